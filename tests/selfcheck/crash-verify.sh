#!/bin/bash
# Harness self-check, boot 2 of 2: the pattern written before the power
# cut is still on the NVDIMM (the host saved its hash in build/).
. "$NOVA_TOP/tests/guest/lib.sh"
want=$(cat "$NOVA_TOP/build/selfcheck-crash.sha" 2>/dev/null)
got=$(dd if="$NOVA_PMEM" bs=1M count=1 status=none | sha256sum | cut -d' ' -f1)
t_is "pattern survived the power cut" "$got" "$want"
t_done

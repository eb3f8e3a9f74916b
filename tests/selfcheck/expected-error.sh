#!/bin/bash
# Harness self-check: a kernel error line the test declares expected does
# not fail it.
. "$NOVA_TOP/tests/guest/lib.sh"
expect_klog 'nova \(selfcheck\): error: declared'
t_ok "write a declared nova error line" sh -c "echo 'nova (selfcheck): error: declared' > /dev/kmsg"
t_done

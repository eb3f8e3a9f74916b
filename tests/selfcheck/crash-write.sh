#!/bin/bash
# Harness self-check, boot 1 of 2: write a pattern to the NVDIMM, announce
# it, then keep writing elsewhere until the host cuts the power.
. "$NOVA_TOP/tests/guest/lib.sh"
head -c 1048576 /dev/urandom > /tmp/pattern
t_ok "write 1 MiB pattern to $NOVA_PMEM" \
	dd if=/tmp/pattern of="$NOVA_PMEM" bs=1M count=1 oflag=direct conv=fsync status=none
sha256sum < /tmp/pattern | cut -d' ' -f1 > "$NOVA_RESULT.sha"
echo "nova-selfcheck: pattern written" > /dev/console
while :; do
	dd if=/dev/urandom of="$NOVA_PMEM" bs=1M seek=8 count=8 oflag=direct status=none
done

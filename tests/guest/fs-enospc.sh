#!/bin/bash
# A full NOVA file system: writes and fallocate fail with ENOSPC, nothing
# already written is damaged, unlink (which needs log space) still works
# and gives the space back, and the counts survive a remount.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
bfree() { stat -f -c %f "$M"; }

t_ok "format and mount" nova_mount_init
echo keep > "$M/keep"
free0=$(bfree)
touch "$M/big"
t_errno "fallocate larger than the device" ENOSPC "$NOVA_SYS" fallocate "$M/big" 0 0 $((2 << 30))
t_ok "partial preallocation is kept" [ "$(stat -c %s "$M/big")" -gt 0 ]
t_errno "write on a full file system" ENOSPC python3 -c "
import os, errno, sys
fd = os.open('$M/more', os.O_CREAT | os.O_WRONLY, 0o644)
try:
    while True:
        os.write(fd, bytes(1 << 20))
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(1)
"
t_is "statfs: nothing available to users" "$(stat -f -c %a "$M")" 0
t_is "old data intact" "$(cat "$M/keep")" keep
t_ok "create still works (metadata reserve)" touch "$M/empty1"
t_ok "unlink on a full file system" rm -f "$M/big" "$M/more"
t_ok "space is back" [ $(( $(bfree) + 16 )) -ge "$free0" ]
t_ok "write works again" sh -c "head -c 8M /dev/urandom > $M/after"
sum=$(md5sum < "$M/after")
t_ok "umount" nova_umount
t_ok "mount" nova_mount
t_is "data written after ENOSPC survives" "$(md5sum < "$M/after")" "$sum"
t_is "old data survives" "$(cat "$M/keep")" keep
t_ok "umount" nova_umount
t_done

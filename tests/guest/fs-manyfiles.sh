#!/bin/bash
# Many names in one directory: 100000 files created, listed, looked up,
# persisted across umount/mount and removed; timings as TAP comments.
# nova-timeout: 1200
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
N=${NOVA_MANYFILES:-100000}

t_ok "format and mount" nova_mount_init
mkdir "$M/big"
t_timed "create $N files" python3 -c "
import os
d = '$M/big'
for i in range($N):
    os.close(os.open('%s/file-%06d' % (d, i), os.O_CREAT | os.O_WRONLY, 0o644))
"
t_timed "readdir finds all $N" sh -c "[ \$(ls -f $M/big | wc -l) -eq $((N + 2)) ]"
t_timed "stat every file (lookup)" python3 -c "
import os
for i in range(0, $N):
    os.stat('$M/big/file-%06d' % i)
"
t_errno "missing name in a big directory" ENOENT "$NOVA_SYS" unlink "$M/big/file-x"
t_ok "find sees all files" sh -c "[ \$(find $M/big -type f | wc -l) -eq $N ]"
t_ok "umount" nova_umount
t_timed "mount again" nova_mount
t_timed "readdir after remount" sh -c "[ \$(ls -f $M/big | wc -l) -eq $((N + 2)) ]"
t_timed "unlink every other file" python3 -c "
import os
for i in range(0, $N, 2):
    os.unlink('$M/big/file-%06d' % i)
"
t_ok "half are left" sh -c "[ \$(ls -f $M/big | wc -l) -eq $((N / 2 + 2)) ]"
t_ok "the right half" sh -c "[ -e $M/big/file-000001 ] && [ ! -e $M/big/file-000000 ]"
t_timed "remove the directory" rm -rf "$M/big"
t_ok "statfs inode count is back" python3 -c "
import os
s = os.statvfs('$M')
assert s.f_files - s.f_ffree < 10, (s.f_files, s.f_ffree)
"
t_ok "umount" nova_umount
t_done

#!/bin/bash
# NOVA functional suite at the syscall level (tests/guest/fs_posix.py):
# file data (COW overwrites, holes, truncate, fallocate, SEEK_DATA/HOLE,
# O_APPEND, O_DIRECT), names and their errors, hard and symbolic links,
# special files, O_TMPFILE, rename in all its forms, readdir and
# seekdir/telldir, attributes with nanosecond and negative times, statfs,
# mmap coherence and MAP_SYNC; then everything again after umount/mount.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
py=$NOVA_TOP/tests/guest/fs_posix.py

t_ok "format and mount" nova_mount_init
t_from_py < <(python3 "$py" ops "$NOVA_MNT" 2>&1)
t_ok "umount" nova_umount
t_ok "mount again" nova_mount
t_from_py < <(python3 "$py" verify "$NOVA_MNT" 2>&1)
t_ok "remount read-only" mount -o remount,ro "$NOVA_MNT"
t_errno "create on a read-only mount" EROFS "$NOVA_SYS" open "$NOVA_MNT/x" "O_CREAT|O_WRONLY"
t_errno "mkdir on a read-only mount" EROFS "$NOVA_SYS" mkdir "$NOVA_MNT/x"
t_errno "unlink on a read-only mount" EROFS "$NOVA_SYS" unlink "$NOVA_MNT/attrs"
t_errno "write open on a read-only mount" EROFS "$NOVA_SYS" open "$NOVA_MNT/attrs" "O_WRONLY"
t_ok "umount" nova_umount
t_ok "mount read-only from clean state" nova_mount ro
t_from_py < <(python3 "$py" verify "$NOVA_MNT" 2>&1)
t_ok "umount" nova_umount
t_done

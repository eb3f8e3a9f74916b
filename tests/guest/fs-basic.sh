#!/bin/bash
# NOVA basics: format, mount, files, directories, persistence across
# umount/mount, remount read-only.
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT

t_ok "mount -o init formats and mounts" nova_mount_init
t_ok "mount is listed as NOVA" sh -c "grep -q ' $M NOVA ' /proc/mounts"
t_is "empty root lists nothing" "$(ls -A "$M")" ""
t_ok "create a file" sh -c "echo hello > $M/a"
t_is "read it back" "$(cat "$M/a")" "hello"
t_ok "mkdir" mkdir "$M/d"
t_ok "file in subdirectory" sh -c "printf 'x%.0s' \$(seq 1 5000) > $M/d/f"
t_is "size of 5000-byte file" "$(stat -c %s "$M/d/f")" 5000
t_ok "umount" nova_umount
t_ok "mount again" nova_mount
t_is "file survives remount" "$(cat "$M/a")" "hello"
t_is "subdir file survives" "$(stat -c %s "$M/d/f")" 5000
t_is "root link count (2 + 1 subdir)" "$(stat -c %h "$M")" 3
t_ok "remount ro" mount -o remount,ro "$M"
t_errno "create on ro mount" EROFS "$NOVA_SYS" open "$M/new" "O_CREAT|O_WRONLY"
t_ok "remount rw" mount -o remount,rw "$M"
t_ok "create after rw" touch "$M/new"
t_ok "remount noatime" mount -o remount,noatime "$M"
touch -a -d '2001-01-01 00:00:00' "$M/a"
cat "$M/a" > /dev/null
t_is "noatime: reading keeps atime" "$(stat -c %X "$M/a")" "$(date -d '2001-01-01 00:00:00' +%s)"
t_ok "remount strictatime" mount -o remount,strictatime "$M"
cat "$M/a" > /dev/null
t_fail "strictatime: reading updates atime" [ "$(stat -c %X "$M/a")" = "$(date -d '2001-01-01 00:00:00' +%s)" ]
t_ok "umount" nova_umount

# Stripe counts other than the CPU count: 1, and more stripes than vCPUs.
for n in 1 7; do
	t_ok "format with cpus=$n" nova_mount_init "cpus=$n,label=stripes$n"
	t_ok "cpus=$n shown in mount options" sh -c "grep ' $M NOVA ' /proc/mounts | grep -q 'cpus=$n,label=stripes$n'"
	t_ok "cpus=$n: 300 files" sh -c "mkdir $M/s && for i in \$(seq 300); do echo \$i > $M/s/\$i; done"
	t_ok "umount" nova_umount
	t_ok "mount" nova_mount
	t_is "cpus=$n: files survive" "$(cat $M/s/1 $M/s/150 $M/s/300 | tr '\n' ' ')" "1 150 300 "
	t_is "cpus=$n: inode numbers are distinct" "$(ls -i $M/s | awk '{print $1}' | sort -u | wc -l)" 300
	t_ok "umount" nova_umount
done
t_done

#!/bin/bash
# Disk quotas (format 1.7, NOVA_FEATURE_QUOTA, module/quota.c) through the
# quota package's tools: a 1.6 file system gets the feature and its hidden
# quota inodes on the first mount with usrquota/grpquota (one kernel info
# line); setquota sets limits, quota shows usage (not repquota: see the skip); writes past
# a block hard limit and creates past an inode hard limit get EDQUOT (a
# soft limit only warns), for users and groups; chown and chgrp move the
# charges; truncate and unlink give blocks and inodes back; limits and
# usage survive an unmount; usage is tracked without the options, limits
# are not enforced; quotaoff/quotaon turn limits off and on; bad option
# combinations are refused with a clear message (project quotas:
# fs-prjquota.sh); after a crash whose quota
# files are behind, the mount recounts usage from the inodes; fsck.NOVA
# is clean throughout.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
U=4242			# a user without a passwd entry: ids work as well
G=4343
AS_U=(setpriv --reuid=$U --regid=$G --clear-groups)
# root without CAP_SYS_RESOURCE, which lets a chown pass any hard limit
NORES=(setpriv --bounding-set -sys_resource)
APPEND="dd if=/dev/zero of=$M/u/a bs=4k count=1 oflag=append conv=notrunc status=none"

layout() {
	python3 "$NOVA_TOP/tests/guest/protect-media.py" layout "$D" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}
fsck_clean() {
	t_is "$1" "$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0
}
# q -u|-g ID: quota(1)'s line for ID as "KiB bsoft bhard inodes isoft ihard"
# (grace columns, present only past a soft limit, dropped)
q() {
	quota -w -v -l "$1" "$2" 2>&1 | python3 -c '
import sys
for line in sys.stdin:
    t = line.split()
    if t and t[0] == sys.argv[1]:
        i = 4 if t[4].rstrip("*").isdigit() else 5
        print(t[1].rstrip("*"), t[2], t[3], t[i].rstrip("*"), t[i + 1], t[i + 2])
        break' "$D"
}
# usage -u|-g ID: "KiB inodes"; limits -u|-g ID: "bsoft bhard isoft ihard"
usage() { q "$1" "$2" | awk '{ print $1, $4 }'; }
limits() { q "$1" "$2" | awk '{ print $2, $3, $5, $6 }'; }
quota_kib() { usage -u "$1" | cut -d' ' -f1; }
# kib_raw ID: the user's KiB from quotactl(Q_GETQUOTA) itself (quota(1)
# lists only mounts whose options name quotas)
kib_raw() {
	python3 -c '
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(72)
if libc.quotactl((0x800007 << 8) | 0, sys.argv[1].encode(), int(sys.argv[2]), buf):
    sys.exit("quotactl failed")
print(struct.unpack_from("<Q", buf.raw, 16)[0] // 1024)' "$D" "$1"
}
# as_u CMD: run a shell command as $U:$G, print the errno name on failure
as_u() { "${AS_U[@]}" sh -c "$1" 2>&1 | grep -o 'Disk quota exceeded' | sed 's/.*/EDQUOT/'; }

# --- a 1.6 file system, upgraded by the first quota mount ---
t_ok "format (no quota options)" nova_mount_init
t_is "format 1.6 without the quota feature" "$(layout minor) $(( $(layout incompat) & 128 ))" "6 0"
t_ok "mkdir a directory for the user" sh -c "mkdir $M/u && chmod 1777 $M/u $M"
t_ok "a 64 KiB file of user 4444 from before quotas" setpriv --reuid=4444 --regid=4444 --clear-groups dd if=/dev/zero of="$M/pre" bs=64k count=1 status=none
t_ok "unmount" nova_umount
dmesg -C
t_ok "mount -o usrquota,grpquota" nova_mount usrquota,grpquota
t_ok "one info line for the upgrade" sh -c "dmesg | grep -c 'format upgraded from 1.6 to 1.7: disk quotas' | grep -qx 1"
t_is "format 1.7 with the quota feature" "$(layout minor) $(( $(layout incompat) & 128 ))" "7 128"
t_ok "mount options show usrquota,grpquota" grep -q " $M NOVA rw.*,usrquota,grpquota" /proc/mounts
t_ok "quotaon -p: user and group quotas on" sh -c "quotaon -p -u $M | grep -q 'is on' && quotaon -p -g $M | grep -q 'is on'"
t_ok "no quota files in the root: they are hidden" sh -c "! ls -a $M | grep -q aquota"
t_ok "usage counted from the inodes there were" sh -c "dmesg | grep -q 'quota usage counted from the inodes (new quota files)'"
t_is "the file from before quotas is charged" "$(usage -u 4444)" "64 1"

# --- limits and usage ---
t_ok "setquota -u: 1 MiB soft, 2 MiB hard, 5/8 inodes" setquota -u $U 1024 2048 5 8 "$M"
t_ok "setquota -g: 4 MiB hard, 20 inodes" setquota -g $G 0 4096 0 20 "$M"
t_is "quota -u shows the user's limits" "$(limits -u $U)" "1024 2048 5 8"
t_is "no usage yet" "$(usage -u $U)" "0 0"
t_ok "write 1 MiB as the user" "${AS_U[@]}" dd if=/dev/zero of="$M/u/a" bs=64k count=16 status=none
t_is "quota -u: 1024 KiB, 1 inode" "$(usage -u $U)" "1024 1"
t_is "quota -g: the same for the group" "$(usage -g $G)" "1024 1"
t_ok "past the soft limit: still allowed" "${AS_U[@]}" dd if=/dev/zero of="$M/u/b" bs=64k count=4 status=none
t_is "write past the hard limit: EDQUOT" "$(as_u "dd if=/dev/zero of=$M/u/c bs=64k count=32 status=none")" EDQUOT
t_is "usage stops at the hard limit" "$(usage -u $U | cut -d' ' -f1)" 2048
t_is "another write fails too" "$(as_u "$APPEND")" EDQUOT
t_ok "truncate gives blocks back" "${AS_U[@]}" truncate -s 0 "$M/u/c"
t_ok "unlink gives blocks back" "${AS_U[@]}" rm "$M/u/b"
t_is "usage after truncate and unlink" "$(usage -u $U)" "1024 2"
t_ok "writing works again" "${AS_U[@]}" dd if=/dev/zero of="$M/u/c" bs=64k count=2 status=none
t_is "usage after the write" "$(usage -u $U)" "1152 2"

# --- inodes ---
t_ok "create up to the inode hard limit" "${AS_U[@]}" sh -c "for i in 3 4 5 6 7 8; do : > $M/u/i\$i || exit 1; done"
t_is "8 inodes" "$(usage -u $U | cut -d' ' -f2)" 8
t_is "the 9th create: EDQUOT" "$(as_u ": > $M/u/i9")" EDQUOT
t_is "mkdir too: EDQUOT" "$(as_u "mkdir $M/u/d9")" EDQUOT
t_is "symlink too: EDQUOT" "$(as_u "ln -s x $M/u/l9")" EDQUOT
t_ok "unlink frees an inode" "${AS_U[@]}" rm "$M/u/i8"
t_ok "then a create works" "${AS_U[@]}" mkdir "$M/u/d9"
t_is "still 8 inodes" "$(usage -u $U | cut -d' ' -f2)" 8

# --- chown, chgrp ---
t_ok "chown a 1 MiB file to root" chown 0 "$M/u/a"
t_is "the user lost 1 MiB and an inode" "$(usage -u $U)" "128 7"
t_ok "chgrp it to group $G+1" chgrp $((G + 1)) "$M/u/a"
t_is "group $G lost it" "$(usage -g $G)" "128 7"
t_is "group $((G + 1)) has it" "$(usage -g $((G + 1)))" "1024 1"
t_ok "setquota -u: 1 MiB hard for the user" setquota -u $U 0 1024 0 0 "$M"
t_is "chown back past the hard limit: EDQUOT" "$("${NORES[@]}" chown $U "$M/u/a" 2>&1 | grep -o 'Disk quota exceeded' | sed 's/.*/EDQUOT/')" EDQUOT
t_is "the owner did not change" "$(stat -c %u "$M/u/a")" 0
t_ok "setquota -u: back to 2 MiB hard, 8 inodes" setquota -u $U 1024 2048 5 8 "$M"
t_ok "chown back" chown $U:$G "$M/u/a"
t_is "usage back" "$(usage -u $U)" "1152 8"
t_is "group usage back" "$(usage -g $G)" "1152 8"

# --- group limit ---
t_ok "setquota -g: 1 MiB hard for the group" setquota -g $G 0 1024 0 0 "$M"
t_is "a group over its hard limit: EDQUOT" "$(as_u "dd if=/dev/zero of=$M/u/g bs=64k count=1 status=none")" EDQUOT
t_ok "setquota -g: no group limits" setquota -g $G 0 0 0 0 "$M"

# --- persistence ---
t_ok "unmount" nova_umount
fsck_clean "fsck.NOVA: clean with quota inodes"
t_ok "mount again" nova_mount usrquota,grpquota
t_is "limits survived the unmount" "$(limits -u $U)" "1024 2048 5 8"
t_is "usage survived the unmount" "$(usage -u $U)" "1152 8"
t_is "the hard limit is still enforced" "$(as_u "dd if=/dev/zero of=$M/u/c bs=64k count=32 status=none")" EDQUOT
t_ok "truncate back to 128 KiB" "${AS_U[@]}" truncate -s 128k "$M/u/c"
t_skip "repquota" "quota-tools 4.06 reads hidden quota files only on file systems it knows by type (ext4, ocfs2); on NOVA it looks for aquota.user"

# --- quotaoff, quotaon ---
t_ok "quotaoff -u" quotaoff -u "$M"
t_ok "limits off: the write succeeds" "${AS_U[@]}" dd if=/dev/zero of="$M/u/off" bs=64k count=32 status=none
t_is "usage still tracked" "$(usage -u $U | cut -d' ' -f1)" "$(( 1152 + 2048 ))"
t_ok "quotaon -u" quotaon -u "$M"
t_is "limits on again: EDQUOT" "$(as_u "$APPEND")" EDQUOT
t_ok "remove the big file" rm "$M/u/off"

# --- without the options: tracked, not enforced ---
t_ok "unmount" nova_umount
t_ok "mount without quota options" nova_mount
t_ok "write past the hard limit: not enforced" "${AS_U[@]}" dd if=/dev/zero of="$M/u/free" bs=64k count=32 status=none
t_is "but charged" "$(kib_raw $U)" "$(( 1152 + 2048 ))"
t_ok "rm" rm "$M/u/free"
t_ok "remount read-only" mount -o remount,ro "$M"
t_ok "remount read-write" mount -o remount,rw "$M"
t_is "usage after the read-only round trip" "$(kib_raw $U)" 1152

# --- bad options ---
t_ok "unmount" nova_umount
# bad_mount DESC MESSAGE MOUNT-ARGS...: refused, MESSAGE in the kernel log
bad_mount() {
	local desc=$1 msg=$2
	shift 2
	dmesg -C
	t_fail "$desc: refused" mount "$@"
	t_ok "$desc: the kernel says why" sh -c "dmesg | grep -q -- '$msg'"
}
bad_mount "prjquota,noquota" "noquota and usrquota, grpquota or prjquota exclude each other" -t NOVA -o prjquota,noquota "$D" "$M"
bad_mount "usrquota,noquota" "noquota and usrquota, grpquota or prjquota exclude each other" -t NOVA -o usrquota,noquota "$D" "$M"
bad_mount "noquota,grpquota" "grpquota and noquota exclude each other" -t NOVA -o noquota,grpquota "$D" "$M"
bad_mount "snapshot with usrquota" "quota options and snapshot= exclude each other" -t NOVA -o ro,snapshot=1,usrquota "$D" "$M"
t_ok "mount -o usrquota" nova_mount usrquota
bad_mount "remount changing the quota options" "quota options cannot change on remount" -o remount,usrquota,grpquota "$M"
t_ok "remount repeating them" mount -o remount,usrquota "$M"
t_ok "unmount" nova_umount
t_ok "mount read-only with usrquota is accepted" nova_mount ro,usrquota
t_ok "unmount" nova_umount
fsck_clean "fsck.NOVA: clean"

# --- a crash with the quota files behind ---
# Every NOVA operation is durable when it returns, but quota usage is
# written back lazily: a shutdown after a write and before any sync (no
# write reaches the medium after it, not even at the unmount) leaves what
# a power cut then would (state dirty, the quota files without the
# write's usage).
t_ok "mount" nova_mount usrquota,grpquota
t_ok "setquota -u: 10 inodes hard" setquota -u $U 1024 2048 5 10 "$M"
t_ok "sync" sync
t_ok "write 512 KiB more as the user" "${AS_U[@]}" dd if=/dev/zero of="$M/u/late" bs=64k count=8 status=none
t_is "usage before the crash" "$(usage -u $U)" "1664 9"
t_ok "a power cut (shut down, unmount)" nova_powercut
t_ok "fsck.NOVA -n sees the unclean shutdown" sh -c "fsck.NOVA -n $D | grep -q 'not cleanly unmounted'"
dmesg -C
t_ok "mount after the crash" nova_mount usrquota,grpquota
t_ok "the kernel recovered" sh -c "dmesg | grep -q 'recovered in'"
t_ok "and recounted quota usage" sh -c "dmesg | grep -q 'quota usage counted from the inodes (crash recovery)'"
t_is "usage as before the crash" "$(usage -u $U)" "1664 9"
t_is "group usage as before the crash" "$(usage -g $G)" "1664 9"
t_is "limits as before the crash" "$(limits -u $U)" "1024 2048 5 10"
t_ok "unmount" nova_umount
fsck_clean "fsck.NOVA: clean after the recount"
t_done

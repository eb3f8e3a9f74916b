#!/bin/bash
# FS_IOC_GETFSLABEL / FS_IOC_SETFSLABEL through xfs_io -c label: read the
# label set at format time, change it online, see it in novactl fs list
# and novactl stats and in /proc/mounts, keep it across a remount and
# in both superblock copies on the device (primary in block 0, replica in
# the last block), fsck.NOVA clean; clear it; a 31-byte label works, 32
# bytes is EINVAL; without CAP_SYS_ADMIN EPERM; on a read-only mount EROFS.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
C=${NOVACTL:-novactl}
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

label() { xfs_io -r -c label "$M" 2>&1; }
# sb_label primary|replica: the label bytes in that superblock copy
sb_label() {
	python3 - "$D" "$1" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
size = os.lseek(fd, 0, os.SEEK_END)
buf = mmap.mmap(-1, 4096)
os.preadv(fd, [buf], 0 if sys.argv[2] == "primary" else size - 4096)
print(bytes(buf[64:96]).rstrip(b"\0").decode())
PY
}
list_label() { "$C" fs list | awk -v m="$M" '$NF == m { print $4 }'; }
stats_label() { "$C" stats "$M" | awk '$1 == "Label:" { print $2 }'; }

t_ok "format with label=first" nova_mount_init label=first
t_is "xfs_io -c label reads it" "$(label)" 'label = "first"'
t_is "novactl fs list shows it" "$(list_label)" first
t_is "xfs_io -c 'label -s newlabel'" "$(xfs_io -c "label -s newlabel" "$M" 2>&1)" 'label = "newlabel"'
t_is "read back" "$(label)" 'label = "newlabel"'
t_is "novactl fs list shows the new label" "$(list_label)" newlabel
t_is "novactl stats shows it" "$(stats_label)" newlabel
t_ok "/proc/mounts shows label=newlabel" grep -q "^$D $M NOVA .*label=newlabel" /proc/mounts
t_is "primary superblock on the device" "$(sb_label primary)" newlabel
t_is "replica superblock on the device" "$(sb_label replica)" newlabel
t_ok "remount" nova_remount
t_is "the label survives a remount" "$(label)" 'label = "newlabel"'
t_is "novactl fs list after the remount" "$(list_label)" newlabel

l31=abcdefghijklmnopqrstuvwxyz01234
t_is "a 31-byte label" "$(xfs_io -c "label -s $l31" "$M" 2>&1)" "label = \"$l31\""
out=$(xfs_io -c "label -s ${l31}5" "$M" 2>&1)
t_ok "a 32-byte label: EINVAL ($out)" grep -q "Invalid argument" <<<"$out"
t_is "... the label is unchanged" "$(label)" "label = \"$l31\""
out=$("${NOBODY[@]}" xfs_io -r -c "label -s evil" "$M" 2>&1)
t_ok "without CAP_SYS_ADMIN: EPERM ($out)" grep -q "Operation not permitted" <<<"$out"
t_is "... unchanged" "$(label)" "label = \"$l31\""
t_is "a file's descriptor works too" "$(xfs_io -c "label -s fromfile" -f "$M/f" 2>&1)" 'label = "fromfile"'
t_is "clear the label (label -c)" "$(xfs_io -c "label -c" "$M" 2>&1)" 'label = ""'
t_is "novactl fs list: no label" "$(list_label)" -
t_is "novactl stats: no label" "$(stats_label)" -
t_ok "/proc/mounts has no label= now" eval '! grep "^$D $M " /proc/mounts | grep -q label='
t_is "set it again" "$(xfs_io -c "label -s final" "$M" 2>&1)" 'label = "final"'
t_ok "remount read-only" mount -o remount,ro "$M"
out=$(xfs_io -r -c "label -s ro" "$M" 2>&1)
t_ok "read-only mount: EROFS ($out)" grep -q "Read-only file system" <<<"$out"
t_is "reading works read-only" "$(label)" 'label = "final"'
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n: clean" "$(fsck.NOVA -f -n "$D" > /tmp/fsck.out 2>&1; echo $?)" 0
t_diag "$(grep -i label /tmp/fsck.out)"
t_is "primary superblock after the unmount" "$(sb_label primary)" final
t_is "replica superblock after the unmount" "$(sb_label replica)" final
t_ok "mount" nova_mount
t_is "the label after mount" "$(label)" 'label = "final"'
t_ok "umount" nova_umount
t_done

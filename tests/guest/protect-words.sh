#!/bin/bash
# Commit words verified, not trusted. An inode slot's log head and tail are
# outside its checksum; a copy that disagrees with the other is judged by
# the log it leads to (inode_slot.c, nova_pi_resolve_words()): a primary tail
# rolled back by a few entries, or a primary head pointing nowhere, is
# repaired from the replica when the inode is loaded (read-only mounts
# use the replica without writing), a bad replica from the primary, and
# the scrub compares both copies with a loaded inode's words. The data of
# the rolled-back entries is never lost and fsck.NOVA stays clean.
# nova-expect-klog: log head/tail [0-9]+/[0-9]+ of the (primary|replica) slot (disagree|are not the committed)
# nova-expect-klog: scrub: inode [0-9]+: bad inode at [0-9]+, repaired
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-protect.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)

word() {	# INO COPY OFF: a commit word of a slot copy (8 head, 16 tail)
	media get64 "$D" $(( $(media slot "$D" "$1" "$2") + $3 ))
}
setword() {	# INO COPY OFF VALUE
	media set64 "$D" $(( $(media slot "$D" "$1" "$2") + $3 )) "$4"
}
klog_has() { dmesg | tail -n 40 | grep -q -- "$1"; }
repaired() { novactl stats --json "$M" | python3 -c '
import json, sys
print(json.load(sys.stdin)["filesystems"][0]["protection"]["repaired"])'; }

t_ok "format and mount" nova_mount_init
t_ok "a file of 16 pages" dd if=/dev/urandom of="$M/f" bs=4096 count=16 status=none
n=$(ino f)
t_ok "umount" nova_umount
T1=$(word "$n" 0 16)
t_ok "mount" nova_mount
for i in 1 2 3 4 5 6; do
	dd if=/dev/urandom of="$M/f" bs=4096 count=2 seek=$((14 + 2 * i)) \
		conv=notrunc status=none
done
md5sum < "$M/f" > "$T/full"
size=$(stat -c %s "$M/f")
t_ok "umount" nova_umount
T2=$(word "$n" 0 16)
t_ok "six more entries moved the tail ($T1 -> $T2)" test "$T2" -gt "$T1"
t_is "the replica's tail is the primary's" "$(word "$n" 1 16)" "$T2"

# --- the primary's tail rolled back by six entries ---
setword "$n" 0 16 "$T1"
t_is "primary tail rolled back" "$(word "$n" 0 16)" "$T1"
dmesg -C
t_ok "read-only mount" nova_mount ro
t_is "ro: the whole file is there" "$(md5sum < "$M/f")" "$(cat "$T/full")"
t_is "ro: its size too" "$(stat -c %s "$M/f")" "$size"
t_ok "ro: the kernel says it used the replica" klog_has "whose log reaches transaction [0-9]*: using the replica"
t_ok "umount" nova_umount
t_is "ro: the primary was not written" "$(word "$n" 0 16)" "$T1"
dmesg -C
t_ok "read-write mount" nova_mount
t_is "rw: the whole file is there" "$(md5sum < "$M/f")" "$(cat "$T/full")"
t_ok "rw: the kernel says it rewrote the primary" klog_has "primary rewritten"
t_is "rw: counted as repaired" "$(repaired)" 1
t_ok "umount" nova_umount
t_is "rw: the primary's tail is back" "$(word "$n" 0 16)" "$T2"
t_ok "fsck.NOVA -n clean" fsck.NOVA -f -n "$D"

# --- the primary's head points nowhere ---
H=$(word "$n" 0 8)
setword "$n" 0 8 4096
dmesg -C
t_ok "mount with a bad primary head" nova_mount
t_is "the whole file is there" "$(md5sum < "$M/f")" "$(cat "$T/full")"
t_ok "the kernel says it rewrote the primary" klog_has "primary rewritten"
t_ok "umount" nova_umount
t_is "the primary's head is back" "$(word "$n" 0 8)" "$H"

# --- the replica's tail rolled back on a clean file system ---
setword "$n" 1 16 "$T1"
dmesg -C
t_ok "mount with a bad replica tail" nova_mount
t_is "the whole file is there" "$(md5sum < "$M/f")" "$(cat "$T/full")"
t_ok "the kernel says it rewrote the replica" klog_has "of the replica slot disagree with the primary's .*replica rewritten"
t_ok "umount" nova_umount
t_is "the replica's tail is back" "$(word "$n" 1 16)" "$T2"
t_ok "fsck.NOVA -n clean" fsck.NOVA -f -n "$D"

# --- both copies rolled back: nothing proves the newer log; the file
# shows the older state (the damage is beyond the replica) ---
setword "$n" 0 16 "$T1"
setword "$n" 1 16 "$T1"
t_ok "mount with both tails rolled back" nova_mount
t_is "the file is the older version" "$(stat -c %s "$M/f")" $((16 * 4096))
t_ok "umount" nova_umount
setword "$n" 0 16 "$T2"
setword "$n" 1 16 "$T2"

# --- the scrub, with the inode loaded ---
t_ok "mount" nova_mount
t_is "the file is whole again" "$(md5sum < "$M/f")" "$(cat "$T/full")"
exec 7< "$M/f"		# keep the inode loaded
setword "$n" 0 16 "$T1"
dmesg -C
out=$(novactl scrub start -w "$M" 2>&1)
t_diag "$(tail -n 3 <<< "$out")"
t_ok "scrub: the primary's words are reported" klog_has "of the primary slot are not the committed .*: rewritten"
t_is "scrub: the primary's tail is back" "$(word "$n" 0 16)" "$T2"
st=$(novactl scrub status --json "$M")
t_ok "scrub: the finding is listed as repaired" has_bad "$st" "$n" inode True
exec 7<&-
t_ok "umount" nova_umount
t_ok "fsck.NOVA -n clean at the end" fsck.NOVA -f -n "$D"
rm -rf "$T"
t_done

#!/bin/bash
# The scrub covers what only snapshots hold (issue 19): the data blocks a
# snapshot keeps of a file overwritten since, and the slot, log and data
# of a removed file a snapshot shows. A pass reads them (data_checked
# counts them; bytes scanned equal the total and the pass ends at 100 %);
# damage put there on the unmounted device is found by the next pass and
# repaired from parity, listed under the removed file's inode or, for a
# kept block that no file owns any more, under inode 0 at the block's
# device offset. A damaged slot of the removed file is read from its
# replica and rewritten by the mount (it used to refuse the snapshot's
# record). The snapshot still shows what it was taken of.
# nova-timeout: 600
# nova-expect-klog: nova \(pmem[0-9]+\): error: scrub: inode [0-9]+: bad
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-protect.sh"
D=$NOVA_PMEM
M=$NOVA_MNT
T=$(mktemp -d)

scrub() { novactl scrub start --restart --wait --json "$M"; }

t_ok "format and mount" nova_mount_init
head -c 262144 /dev/urandom > "$T/a"
head -c 131072 /dev/urandom > "$T/b"
t_ok "two files, 64 and 32 pages" sh -c "cp $T/a $T/b $M/ && sync"
b_ino=$(ino b)
t_ok "snapshot s1" novactl snapshot create -n s1 "$M"
t_ok "overwrite a (its old blocks stay for s1), remove b (s1 shows it)" sh -c "
	head -c 262144 /dev/urandom > $T/a2 &&
	dd if=$T/a2 of=$M/a bs=64K conv=notrunc status=none && rm $M/b && sync"
# (Until b is evicted its slot is counted as live: remount so that the
# estimate below is exact.)
t_ok "remount" sh -c "umount $M && mount -t NOVA $D $M"

# The total a pass announces at its start (a slow pass, stopped at once).
t_ok "a slow pass starts" novactl scrub start --restart --bandwidth 4K "$M"
est=$(sj "$(novactl scrub status --json "$M")" bytes_total)
t_ok "and stops" novactl scrub stop "$M"
r=$(scrub)
t_diag "clean pass: $(sj "$r" bytes_scanned) bytes (estimate $est), $(sj "$r" data_checked) data blocks"
t_is "clean pass: no errors" "$(sj "$r" errors)" 0
t_ok "clean pass: 64 + 64 + 32 data blocks read (live, kept, removed file)" \
	test "$(sj "$r" data_checked)" -ge 160
t_is "clean pass: bytes scanned = the total estimated at the start" "$(sj "$r" bytes_scanned)" "$est"
t_is "finished: total = scanned" "$(sj "$r" bytes_total)" "$(sj "$r" bytes_scanned)"
t_ok "clean pass: novactl says 100.0%" sh -c "novactl scrub status $M | grep -q '100.0%'"

t_ok "umount" umount "$M"
ka=$(media find "$D" "$T/a" 3)
kb=$(media find "$D" "$T/b" 5)
t_diag "kept block of a: $ka, block of removed b: $kb"
t_ok "the old page 3 of a is on the device" test -n "$ka"
t_ok "page 5 of b is on the device" test -n "$kb"
t_ok "damage a strip of the kept block" media flip "$D" data "$ka" 700
t_ok "damage a strip of b's block" media flip "$D" data "$kb" 1500
t_ok "damage the removed b's inode slot" media flipat "$D" "$(media meta "$D" inode "$b_ino")"
t_ok "mount" mount -t NOVA "$D" "$M"
t_ok "the mount read b's slot from its replica and rewrote it" \
	sh -c "dmesg | grep -q 'inode $b_ino: damaged slot rewritten from its replica'"

r=$(scrub)
t_diag "pass: errors $(sj "$r" errors) repaired $(sj "$r" repaired) unrecoverable $(sj "$r" unrecoverable)"
t_is "both found" "$(sj "$r" errors)" 2
t_is "both repaired" "$(sj "$r" repaired)" 2
t_is "none unrecoverable" "$(sj "$r" unrecoverable)" 0
t_ok "the kept block listed as data of inode 0" has_bad "$r" 0 data True
t_ok "b's block listed as data of b's inode $b_ino" has_bad "$r" "$b_ino" data True
t_is "the next pass is clean" "$(sj "$(scrub)" errors)" 0

t_ok "umount" umount "$M"
t_ok "on the device: the kept block is whole again" media check "$D" "$ka"
t_ok "... and b's block" media check "$D" "$kb"
t_ok "fsck.NOVA -n clean" fsck.NOVA -n "$D"
t_ok "mount snapshot s1" mount -t NOVA -o snapshot=1,ro "$D" "$M"
t_ok "s1 shows the old a" cmp "$T/a" "$M/a"
t_ok "s1 shows the removed b" cmp "$T/b" "$M/b"
t_ok "umount" umount "$M"
rm -rf "$T"
t_done

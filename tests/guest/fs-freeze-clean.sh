#!/bin/bash
# A user's freeze leaves the medium clean, as ext4 and XFS leave their
# journals: the allocator is saved and the superblock says "clean", so a
# power cut while frozen (here: FS_IOC_SHUTDOWN while frozen, after which
# nothing is written) mounts without crash recovery, with every file and
# the free space as before. The thaw says "dirty" again before any write:
# writes after a thaw and then a power cut do run recovery, which finds
# them. While an unlinked file is still open, or a file is mapped
# writable, the freeze leaves the medium dirty (only recovery frees the
# one and checksums the other again): a power cut then runs recovery. A
# snapshot's own freeze saves nothing. fsck.NOVA is clean after each.
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)

tree_sum() {
	(cd "$M" && find . -type f ! -name 'quota.*' -print0 | sort -z |
		xargs -0 sha256sum; find . -type d | sort)
}
populate() {	# DIR
	mkdir -p "$M/$1/a/b"
	for i in $(seq 1 20); do echo "small $i" > "$M/$1/a/s$i"; done
	dd if=/dev/urandom of="$M/$1/big" bs=64k count=32 status=none
	dd if=/dev/urandom of="$M/$1/big" bs=4k count=5 seek=7 conv=notrunc status=none
	rm "$M/$1/a/s3"
	mv "$M/$1/a/s4" "$M/$1/a/b/moved"
}

# powercut_frozen NAME [RELEASE]: record the tree and free space, freeze,
# cut the power while frozen, thaw, run RELEASE (close what holds the
# file system), unmount, mount again. Nothing may be written from the cut
# through the unmount. $T/NAME.rec is 1 if the mount ran crash recovery.
powercut_frozen() {
	local r0
	tree_sum > "$T/$1.sum"
	nova_bfree > "$T/$1.free"
	t_ok "$1: fsfreeze -f" fsfreeze -f "$M"
	r0=$(nova_recoveries)
	t_ok "$1: power cut while frozen" nova_cut_power
	barrier_count_start
	t_ok "$1: fsfreeze -u" fsfreeze -u "$M"
	[ -z "${2:-}" ] || "$2"
	t_ok "$1: umount" nova_umount
	t_is "$1: no persistence barrier from the cut through the unmount" \
		"$(barrier_count)" 0
	t_ok "$1: mount" nova_mount
	echo $(($(nova_recoveries) - r0)) > "$T/$1.rec"
	t_is "$1: every file is there" "$(tree_sum)" "$(cat "$T/$1.sum")"
}

t_ok "format and mount" nova_mount_init
populate one
sync
powercut_frozen idle
t_is "idle: the mount after the cut ran no crash recovery" "$(cat "$T/idle.rec")" 0
t_is "idle: free space as before" "$(nova_bfree)" "$(cat "$T/idle.free")"
t_ok "idle: writable" sh -c "echo after > $M/one/after"
t_ok "idle: umount" nova_umount
t_ok "idle: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"

# Freeze, thaw, write, cut: the thaw said dirty, recovery finds the writes.
t_ok "thaw: mount" nova_mount
t_ok "thaw: fsfreeze -f" fsfreeze -f "$M"
t_ok "thaw: fsfreeze -u" fsfreeze -u "$M"
populate two
tree_sum > "$T/thaw.sum"
nova_bfree > "$T/thaw.free"
r0=$(nova_recoveries)
t_ok "thaw: power cut after writes" nova_powercut
t_ok "thaw: mount" nova_mount
t_is "thaw: the mount ran crash recovery" $(($(nova_recoveries) - r0)) 1
t_is "thaw: every file written after the thaw is there" "$(tree_sum)" \
	"$(cat "$T/thaw.sum")"
t_is "thaw: free space as before the cut" "$(nova_bfree)" "$(cat "$T/thaw.free")"
t_ok "thaw: umount" nova_umount
t_ok "thaw: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"

# An unlinked file held open across the freeze: its 512 blocks are freed
# by the recovery after the cut, as without a freeze.
t_ok "unlinked: mount" nova_mount
exec 7> "$M/held"
dd if=/dev/urandom bs=64k count=32 status=none >&7
rm "$M/held"
close_held() { exec 7>&-; }
powercut_frozen unlinked close_held
t_is "unlinked: the mount after the cut ran crash recovery" "$(cat "$T/unlinked.rec")" 1
t_ok "unlinked: the held file's blocks are free ($(cat "$T/unlinked.free") before, $(nova_bfree) now)" \
	test "$(nova_bfree)" -ge $(($(cat "$T/unlinked.free") + 512))
t_ok "unlinked: umount" nova_umount
t_ok "unlinked: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"

# A file mapped writable across the freeze: recovery checksums it again.
t_ok "mapped: mount" nova_mount
python3 - "$M/mapped" "$T" <<'PY' &
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR, 0o600)
os.ftruncate(fd, 1 << 20)
m = mmap.mmap(fd, 1 << 20)
m[:5] = b"hello"
open(os.path.join(sys.argv[2], "mapped.ready"), "w").close()
while not os.path.exists(os.path.join(sys.argv[2], "mapped.go")):
    os.sched_yield()
PY
mapper=$!
t_ok "mapped: the file is mapped and stored to" wait_for 60 test -e "$T/mapped.ready"
unmap() { touch "$T/mapped.go"; wait "$mapper"; }
powercut_frozen mapped unmap
t_is "mapped: the mount after the cut ran crash recovery" "$(cat "$T/mapped.rec")" 1
t_is "mapped: the stored bytes read back" "$(head -c 5 "$M/mapped")" hello
t_ok "mapped: umount" nova_umount
t_ok "mapped: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"

# A snapshot's own freeze leaves the medium dirty: a cut right after it
# runs recovery, and the snapshot is there.
t_ok "snapshot: mount" nova_mount
t_ok "snapshot: create" novactl snapshot create --name frz "$M"
r0=$(nova_recoveries)
t_ok "snapshot: power cut" nova_powercut
t_ok "snapshot: mount" nova_mount
t_is "snapshot: the mount ran crash recovery" $(($(nova_recoveries) - r0)) 1
t_ok "snapshot: listed" sh -c "novactl snapshot list '$M' | grep -qw frz"
t_ok "snapshot: umount" nova_umount
t_ok "snapshot: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
rm -rf "$T"
t_done

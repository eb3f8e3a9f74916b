#!/bin/bash
# Kernel crash recovery in one boot, on images made dirty without a power
# cut: the superblocks and the reserved-inode block are copied while the
# file system is mounted read-write (state dirty, no saved allocator),
# and written back after the unmount. That is the image a power cut just
# before the unmount leaves. Checks: recovery on a read-write mount (free
# space exactly as before, files intact, fsck clean afterwards), on a
# read-only mount followed by remount read-write, on a read-only device
# (no recovery, read-only), refusal of a read-write mount when the scan
# finds a block used twice or a broken log (read-only still works), and
# the fault-injection parameter's defaults and permissions. The multi-boot
# power-cut tests are tests/boot/crash-*.sh.
# nova-timeout: 900
# nova-expect-klog: nova \(pmem0\): error: recovery: block [0-9]+ \(data, inode [0-9]+\) is used twice
# nova-expect-klog: nova \(pmem0\): error: crash recovery failed
# nova-expect-klog: nova \(pmem0\): error: inode [0-9]+: bad log page at
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
corrupt() { python3 "$NOVA_TOP/tests/guest/tools-corrupt.py" "$D" "$@"; }
param=/sys/module/nova/parameters/crash_after_barriers

sums() {
	(cd "$M" && find . -type f -print0 | sort -z | xargs -0 sha256sum;
	 find . -type l -printf '%p -> %l\n' | sort; find . -type d | sort)
}

# Format, populate, and leave the device as a power cut would have.
make_dirty() {
	local last
	nova_mount_init || return 1
	mkdir -p "$M/a/b/c" "$M/d" || return 1
	for i in $(seq 1 30); do echo "small $i" > "$M/a/s$i"; done
	dd if=/dev/urandom of="$M/big" bs=64k count=40 status=none
	dd if=/dev/urandom of="$M/big" bs=4k count=9 seek=3 conv=notrunc status=none
	dd if=/dev/urandom of="$M/a/b/f1" bs=4k count=3 status=none
	dd if=/dev/urandom of="$M/a/b/f2" bs=4k count=3 status=none
	truncate -s 5000 "$M/big" && truncate -s 90000 "$M/big"
	ln "$M/a/s1" "$M/d/hard" && ln -s "$(head -c 300 /dev/zero | tr '\0' t)" "$M/d/long"
	mv "$M/a/s2" "$M/a/b/c/moved" && rm "$M/a/s3" "$M/a/s4"
	sync
	# sums first: reading may log atime updates, which take log pages
	sums > "$T/sums"
	nova_bfree > "$T/free"
	stat -c %i "$M/a/b/f1" > "$T/ino1"
	stat -c %i "$M/a/b/f2" > "$T/ino2"
	last=$(( $(blockdev --getsize64 "$D") / 4096 - 1 ))
	dd if="$D" of="$T/b01" bs=4096 count=2 iflag=direct status=none &&
	dd if="$D" of="$T/blast" bs=4096 skip="$last" count=1 iflag=direct status=none &&
	nova_umount &&
	dd if="$T/b01" of="$D" bs=4096 count=2 oflag=direct conv=notrunc status=none &&
	dd if="$T/blast" of="$D" bs=4096 seek="$last" count=1 oflag=direct conv=notrunc status=none
}

dirty_fsck() {
	fsck.NOVA -n "$D" | grep -q 'not cleanly unmounted'
}

# 1. read-write mount
t_ok "make a dirty image" make_dirty
t_ok "fsck.NOVA -n sees the unclean shutdown" dirty_fsck
dmesg -C
t_ok "mount read-write after the crash" nova_mount
t_ok "mounted read-write" grep -q " $M NOVA rw" /proc/mounts
line=$(dmesg | grep -o 'recovered in .*')
t_diag "kernel: $line"
t_ok "the kernel reports the recovery" test -n "$line"
t_is "free blocks as before the crash" "$(nova_bfree)" "$(cat "$T/free")"
t_is "files, symlinks and directories as before the crash" "$(sums)" "$(cat "$T/sums")"
t_ok "write after recovery" sh -c "dd if=/dev/urandom of=$M/new bs=4k count=50 status=none && rm $M/a/s5"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean" fsck.NOVA -n "$D"

# 2. read-only mount, then read-write
t_ok "make a dirty image" make_dirty
t_ok "mount read-only after the crash" nova_mount ro
t_ok "recovered on the read-only mount" sh -c "dmesg | tail -n 5 | grep -q 'recovered in'"
t_is "free blocks as before the crash" "$(nova_bfree)" "$(cat "$T/free")"
t_is "files as before the crash" "$(sums)" "$(cat "$T/sums")"
t_ok "remount read-write" mount -o remount,rw "$M"
t_ok "write after the remount" sh -c "echo x > $M/after"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean" fsck.NOVA -n "$D"

# 3. read-only device: no recovery possible, read-only mount
t_ok "make a dirty image" make_dirty
t_ok "set the device read-only" blockdev --setro "$D"
dmesg -C
t_ok "mount the read-only device" nova_mount ro
t_ok "the kernel says it did not recover" sh -c "dmesg | grep -q 'device is read-only: mounting read-only without recovery'"
t_is "files readable" "$(sums)" "$(cat "$T/sums")"
t_ok "remount read-write is refused" sh -c "! mount -o remount,rw $M 2>/dev/null"
nova_umount
t_ok "set the device writable" blockdev --setrw "$D"
t_ok "now the mount recovers" nova_mount
t_ok "the kernel reports the recovery" sh -c "dmesg | grep -q 'recovered in'"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean" fsck.NOVA -n "$D"

# 4. a block claimed by two files: refuse read-write, allow read-only
t_ok "make a dirty image" make_dirty
i1=$(cat "$T/ino1") i2=$(cat "$T/ino2")
t_ok "point file $i2's data at file $i1's block" corrupt double "$i1" "$i2"
dmesg -C
t_fail "read-write mount is refused" nova_mount
t_ok "the kernel names the block used twice" sh -c "dmesg | grep -q 'is used twice'"
t_ok "read-only mount still works" nova_mount ro
t_is "an undamaged file is readable" "$(cat "$M/a/s10")" "small 10"
t_fail "remount read-write is refused" mount -o remount,rw "$M"
t_ok "unmount" nova_umount

# 5. a broken log page: refuse read-write
t_ok "make a dirty image" make_dirty
i1=$(cat "$T/ino1")
t_ok "break file $i1's log page tail" corrupt tail "$i1"
dmesg -C
t_fail "read-write mount is refused" nova_mount
t_ok "the kernel reports the bad log page" sh -c "dmesg | grep -q 'bad log page'"

# 6. the fault-injection parameter
if [ -e "$param" ]; then
	t_is "crash_after_barriers: root only" "$(stat -c %a "$param")" 600
	t_is "crash_after_barriers: off by default" "$(cat "$param")" 0
	t_fail "crash_after_barriers: rejects junk" sh -c "echo junk > $param"
	t_fail "crash_after_barriers: not writable by others" \
		setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo 5 > $param"
	t_ok "crash_after_barriers: writing 0 keeps it off" sh -c "echo 0 > $param && [ \$(cat $param) = 0 ]"
else
	t_skip "crash_after_barriers" "a production nova.ko (no test hooks: make test loads build/module-test/nova.ko)"
fi
rm -rf "$T"
t_done

#!/bin/bash
# NOVA refuses what it cannot mount, with a message and the right errno,
# and never oopses: a zeroed device, ext4, damaged superblocks, a device
# without DAX, bad mount options.
# nova-expect-klog: nova \(pmem0\): error: both superblocks are damaged
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
mkdir -p "$M"

# mount(2) directly, printing the errno name on failure.
mnt() {	# DEV OPTS
	python3 - "$1" "$M" "$2" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.mount(sys.argv[1].encode(), sys.argv[2].encode(), b"NOVA", 0,
               sys.argv[3].encode())
if r:
    e = ctypes.get_errno()
    print(errno.errorcode[e], file=sys.stderr)
    sys.exit(1)
PY
}
klog_has() { dmesg | tail -n 30 | grep -q -- "$1"; }
scribble() {	# OFFSET BYTES: random bytes into the device, bypassing caches
	dd if=/dev/urandom of="$NOVA_PMEM" bs=1 seek="$1" count="$2" \
		conv=notrunc status=none && sync && blockdev --flushbufs "$NOVA_PMEM"
}
devsize=$(blockdev --getsize64 "$NOVA_PMEM")

dd if=/dev/zero of="$NOVA_PMEM" bs=1M count=4 oflag=direct status=none
dd if=/dev/zero of="$NOVA_PMEM" bs=1M count=4 oflag=direct status=none \
	seek=$((devsize / 1048576 - 4))
t_errno "zeroed device is refused" EINVAL mnt "$NOVA_PMEM" ""
t_ok "message names the problem" klog_has "no NOVA file system"

t_ok "mkfs.ext4" mkfs.ext4 -q -F "$NOVA_PMEM"
t_errno "ext4 device is refused" EINVAL mnt "$NOVA_PMEM" ""
t_ok "ext4 is still intact" e2fsck -n -f "$NOVA_PMEM"

t_errno "init over ext4 is refused" EEXIST mnt "$NOVA_PMEM" init
t_ok "the refusal names what is there" \
	klog_has "init: the device holds a ext2/ext3/ext4 signature"
t_ok "ext4 is still intact after the refused init" e2fsck -n -f "$NOVA_PMEM"
t_ok "format NOVA over ext4 with init=force" mnt "$NOVA_PMEM" init=force
t_ok "write a file" sh -c "echo survivor > $M/f"
t_ok "umount" umount "$M"

t_errno "unknown option" EINVAL mnt "$NOVA_PMEM" bogus
t_ok "unknown option is named in the log" klog_has "Unknown parameter 'bogus'"
t_errno "cpus=0" EINVAL mnt "$NOVA_PMEM" init,cpus=0
t_errno "cpus=65" EINVAL mnt "$NOVA_PMEM" init,cpus=65
t_errno "cpus=abc" EINVAL mnt "$NOVA_PMEM" init,cpus=abc
t_errno "label too long" EINVAL mnt "$NOVA_PMEM" "init,label=$(printf 'x%.0s' $(seq 40))"
t_errno "init with a value" EINVAL mnt "$NOVA_PMEM" init=1
t_ok "mount after bad options" mnt "$NOVA_PMEM" ""
t_is "data intact after refused mounts" "$(cat $M/f)" survivor
t_fail "remount with init is refused" mount -o remount,init "$M"
t_ok "still mounted read-write" touch "$M/g"
t_ok "umount" umount "$M"

# Primary superblock damaged past its magic: the replica takes over.
expect_klog 'primary superblock is damaged, using the replica'
t_ok "scribble over the primary superblock" scribble 40 64
t_ok "mount falls back to the replica" mnt "$NOVA_PMEM" ""
t_ok "fallback is logged" klog_has "using the replica"
t_is "data intact with the replica" "$(cat $M/f)" survivor
t_ok "umount rewrites the primary" umount "$M"
dmesg -C
t_ok "mount again" mnt "$NOVA_PMEM" ""
t_fail "no fallback the second time" klog_has "using the replica"
t_ok "umount" umount "$M"

# One flipped bit in the primary's magic: still this file system (its
# UUID is the replica's and no other signature is there), so the replica
# stands in, a read-only mount leaves the primary alone, a read-write one
# rewrites it; fsck.NOVA applies the same rule.
expect_klog 'primary superblock has a bad magic 0x4e4f5640'
magic_at() { od -An -tx4 -N4 -j "$1" "$NOVA_PMEM" | tr -d ' '; }
xor_byte() {	# OFFSET MASK: flip bits of one byte, bypassing caches
	python3 - "$NOVA_PMEM" "$1" "$2" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
off, mask = int(sys.argv[2]), int(sys.argv[3], 0)
b = os.pread(fd, 1, off)[0]
os.pwrite(fd, bytes([b ^ mask]), off)
os.fsync(fd)
PY
	sync && blockdev --flushbufs "$NOVA_PMEM"
}
t_ok "flip one bit of the primary's magic" xor_byte 0 0x01
t_is "the magic is damaged" "$(magic_at 0)" 4e4f5640
out=$(fsck.NOVA -n "$NOVA_PMEM" 2>&1)
t_ok "fsck.NOVA -n uses the replica" grep -q "primary superblock: .*using the replica" <<< "$out"
t_diag "$(head -n 3 <<< "$out")"
t_ok "a read-only mount uses the replica" mount -t NOVA -o ro "$NOVA_PMEM" "$M"
t_ok "the kernel says why" klog_has "bad magic 0x4e4f5640 but this file system's UUID"
t_is "data intact (ro)" "$(cat $M/f)" survivor
t_ok "umount" umount "$M"
t_is "read-only left the primary as it was" "$(magic_at 0)" 4e4f5640
t_ok "a read-write mount uses the replica" mnt "$NOVA_PMEM" ""
t_is "data intact (rw)" "$(cat $M/f)" survivor
t_ok "umount" umount "$M"
t_is "read-write repaired the primary's magic" "$(magic_at 0)" 4e4f5641
t_ok "fsck.NOVA -n clean after the repair" fsck.NOVA -f -n "$NOVA_PMEM"

# The same bit flipped, but the UUID bytes are not the replica's: the
# replica is not trusted (it could be a leftover of an earlier format).
xor_byte 0 0x01
for i in $(seq 48 63); do xor_byte "$i" 0xff; done
t_errno "bad magic and another UUID is refused" EINVAL mnt "$NOVA_PMEM" ""
t_ok "as no NOVA file system" klog_has "no NOVA file system"
t_fail "fsck.NOVA -n refuses it too" fsck.NOVA -n "$NOVA_PMEM"
for i in $(seq 48 63); do xor_byte "$i" 0xff; done
xor_byte 0 0x01
t_ok "restored: mounts from the primary" mnt "$NOVA_PMEM" ""
t_ok "umount" umount "$M"

# A superblock state that is neither clean nor dirty (checksum intact):
# kernel and fsck.NOVA both call it damaged (it used to mount, recovering
# as if dirty, while fsck refused it). In the primary only: the replica
# stands in; in both copies: refused.
python3 "$NOVA_TOP/tests/guest/protect-media.py" sb "$NOVA_PMEM" state=7
t_errno "state 7 in both copies: refused as damaged" EUCLEAN mnt "$NOVA_PMEM" ""
out=$(fsck.NOVA -n "$NOVA_PMEM" 2>&1)
t_is "fsck.NOVA -n finds it damaged too (exit 4)" "$?" 4
t_ok "... naming the state" grep -q "bad state 7" <<< "$out"
python3 "$NOVA_TOP/tests/guest/protect-media.py" sb "$NOVA_PMEM" state=2
t_ok "state 2 (dirty) again: mounts" mnt "$NOVA_PMEM" ""
t_ok "umount" umount "$M"

# A device reformatted with ext4 whose last block still holds NOVA's
# replica: the replica must not bring the old NOVA back.
dd if="$NOVA_PMEM" of=/tmp/replica bs=4096 skip=$((devsize / 4096 - 1)) count=1 status=none
t_ok "mkfs.ext4 over NOVA" mkfs.ext4 -q -F "$NOVA_PMEM"
dd if=/tmp/replica of="$NOVA_PMEM" bs=4096 seek=$((devsize / 4096 - 1)) count=1 \
	oflag=direct conv=notrunc status=none
t_is "the NOVA replica is still in the last block" "$(magic_at $((devsize - 4096)))" 4e4f5641
t_errno "ext4 with a NOVA replica left over is refused" EINVAL mnt "$NOVA_PMEM" ""
out=$(fsck.NOVA -n "$NOVA_PMEM" 2>&1)
t_is "fsck.NOVA refuses it (exit 8)" "$?" 8
t_ok "fsck.NOVA names ext4 and the leftover" grep -q "ext2/ext3/ext4 signature; the NOVA superblock replica .* is a leftover" <<< "$out"
t_ok "ext4 is intact" e2fsck -n -f "$NOVA_PMEM"
t_ok "format NOVA again" mnt "$NOVA_PMEM" init=force
t_ok "write a file" sh -c "echo survivor > $M/f"
t_ok "umount" umount "$M"

# Both copies damaged.
scribble 40 64
scribble $((devsize - 4096 + 40)) 64
t_errno "both superblocks damaged is refused" EUCLEAN mnt "$NOVA_PMEM" ""
t_ok "message says so" klog_has "both superblocks are damaged"

# A block device without DAX.
modprobe -q loop
img=$(mktemp /tmp/nova-loop.XXXXXX)
truncate -s 64M "$img"
if loop=$(losetup -f --show "$img" 2>/dev/null) && [ -n "$loop" ]; then
	t_errno "device without DAX is refused" EINVAL mnt "$loop" init
	t_ok "message says DAX" klog_has "does not support DAX"
	losetup -d "$loop"
else
	t_skip "device without DAX is refused" "no loop device in the guest"
fi
rm -f "$img"
t_done

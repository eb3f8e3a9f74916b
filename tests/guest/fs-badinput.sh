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

t_ok "format NOVA" mnt "$NOVA_PMEM" init
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

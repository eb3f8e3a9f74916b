#!/bin/bash
# Swap files on NOVA (swap_activate, module/dax.c): mkswap + swapon of a
# fully written file; /proc/swaps lists it; a program in a memory cgroup
# limited to 32 MiB touches 96 MiB, is swapped out to the file and reads
# its data back intact; while active the file refuses writes, truncate,
# fallocate and shared writable mappings (ETXTBSY) and unlink (EPERM);
# after swapoff it is an ordinary file again (written, truncated) and
# fsck.NOVA finds its data checksums right (recomputed at swapoff); a
# file with holes and a file a snapshot shows are refused with a reason
# in the kernel log.
# nova-timeout: 600
# nova-expect-klog: swapon: .*(unallocated|shared) extents
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
CG=/sys/fs/cgroup/nova-swaptest
SW=$M/swap

px() {
	local code=$1
	shift
	python3 -c "import os, errno, sys, mmap
try:
$(printf '%s\n' "$code" | sed 's/^/    /')
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(1)" "$@"
}
swaps() { awk -v f="$SW" '$1 == f { print $2, $3 }' /proc/swaps; }
cleanup() {
	swapoff "$SW" 2> /dev/null
	[ -d "$CG" ] && rmdir "$CG" 2> /dev/null
	true
}
trap cleanup EXIT

t_ok "format and mount" nova_mount_init
t_ok "a 64 MiB file, written" dd if=/dev/zero of="$SW" bs=1M count=64 status=none
chmod 600 "$SW"
t_ok "mkswap" mkswap "$SW"
t_ok "swapon" swapon "$SW"
t_is "/proc/swaps lists it: a file of 64 MiB less the header page" "$(swaps)" "file 65532"

# --- the active swap file is pinned ---
t_errno "write: ETXTBSY" ETXTBSY px 'fd = os.open(sys.argv[1], os.O_WRONLY); os.pwrite(fd, b"x", 0)' "$SW"
t_errno "truncate: ETXTBSY" ETXTBSY px 'os.truncate(sys.argv[1], 4096)' "$SW"
t_errno "fallocate: ETXTBSY" ETXTBSY "$NOVA_SYS" fallocate "$SW" keep_size 0 4096
t_errno "punch hole: ETXTBSY" ETXTBSY "$NOVA_SYS" fallocate "$SW" punch_hole 0 4096
t_errno "shared writable mmap: ETXTBSY" ETXTBSY \
	px 'fd = os.open(sys.argv[1], os.O_RDWR); mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)' "$SW"
t_errno "unlink: EPERM" EPERM "$NOVA_SYS" unlink "$SW"
t_errno "a second swapon: EBUSY" "Device or resource busy" swapon "$SW"

# --- swapping: a program limited to 32 MiB touches 96 MiB ---
[ -e /sys/fs/cgroup/cgroup.controllers ] || mount -t cgroup2 none /sys/fs/cgroup 2> /dev/null
if echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2> /dev/null && mkdir -p "$CG" &&
	echo 32M > "$CG/memory.max"; then
	t_ok "96 MiB touched twice under a 32 MiB limit, data intact" sh -c "
echo \$\$ > $CG/cgroup.procs && exec python3 -c '
import hashlib
n = 96 << 20
b = bytearray(n)
for i in range(0, n, 4096):
    b[i:i + 8] = i.to_bytes(8, \"little\")
for i in range(0, n, 4096):
    assert int.from_bytes(b[i:i + 8], \"little\") == i, i
'"
	used=$(swaps)
	peak=$(cat "$CG/memory.swap.current" 2> /dev/null || echo 0)
	events=$(grep -o 'max [0-9]*' "$CG/memory.events" 2> /dev/null)
	t_diag "swap file used after the run: ${used} KiB; cgroup: $events"
	t_ok "the kernel swapped to the file (pswpout grew)" \
		test "$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)" -gt 0
	rmdir "$CG" 2> /dev/null
else
	t_skip "swapping under a memory cgroup" "no cgroup2 memory controller in the guest"
fi

t_ok "swapoff" swapoff "$SW"
t_is "/proc/swaps no longer lists it" "$(swaps)" ""

# --- an ordinary file again ---
t_ok "write after swapoff" dd if=/dev/urandom of="$SW" bs=4k count=4 conv=notrunc status=none
t_ok "truncate after swapoff" truncate -s 1M "$SW"
t_ok "unlink after swapoff" rm "$SW"
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n clean (checksums right after swap writes)" \
	"$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0
t_diag "$(tail -n 2 "$T/fsck.out")"
t_ok "mount" nova_mount

# --- swapping again, then swapoff, fsck (the swap writes really landed) ---
t_ok "a new swap file" sh -c "dd if=/dev/zero of='$SW' bs=1M count=16 status=none && chmod 600 '$SW' && mkswap '$SW' > /dev/null"
t_ok "swapon" swapon "$SW"
t_ok "swapoff" swapoff "$SW"
t_ok "remount" nova_remount
t_ok "swapon again after a remount" swapon "$SW"
t_ok "swapoff" swapoff "$SW"

# --- refused: holes, blocks a snapshot shows ---
t_ok "a 16 MiB sparse file" sh -c "truncate -s 16M '$M/holes' && chmod 600 '$M/holes' && mkswap '$M/holes' > /dev/null"
n0=$(dmesg | grep -c 'unallocated extents')
t_fail "swapon of a file with holes fails" swapon "$M/holes"
t_is "... the kernel says why" "$(( $(dmesg | grep -c 'unallocated extents') - n0 ))" 1
t_ok "filling the holes (fallocate) makes it usable" sh -c "fallocate -l 16M '$M/holes' && swapon '$M/holes' && swapoff '$M/holes'"
t_ok "snapshot" novactl snapshot create --name swap "$M"
n0=$(dmesg | grep -c 'shared extents')
t_fail "swapon of a file a snapshot shows fails" swapon "$SW"
t_is "... the kernel says why" "$(( $(dmesg | grep -c 'shared extents') - n0 ))" 1
t_ok "delete the snapshot" novactl snapshot delete "$M" 1
t_ok "swapon works once no snapshot shows it" swapon "$SW"
t_ok "swapoff" swapoff "$SW"
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n clean" "$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0
rm -rf "$T"
t_done

#!/bin/bash
# Truncating a file down to the middle of a page zeroes the rest of that
# page (module/attr.c, nova_setattr): a MAP_SHARED mapping of the last
# page shows the bytes past the end of file, and they must read as zeroes,
# as on ext4 (fstests generic/075, fsx: "Mapped Read: non-zero data past
# EOF"). Checked through a new mapping, through a mapping made before the
# truncate, after a remount (the zeroes are on the media), and for a page
# a snapshot shows (copied on write: the snapshot keeps its bytes).
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
S=/mnt/nova-snap

# fill FILE SIZE BYTE: a file of SIZE bytes, each BYTE (a number)
fill() {
	python3 -c "import sys; open(sys.argv[1], 'wb').write(bytes([$3]) * $2)" "$1"
}

# tail_zero FILE [SHRINK]: map the file's last page, truncate it to SHRINK
# through the same descriptor first if given (the mapping stays), and check
# that the mapping shows zeroes from the end of file to the end of the page
# and the data before it.
tail_zero() {
	python3 - "$@" <<'EOF'
import ctypes, mmap, os, sys
path = sys.argv[1]
P = 4096
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(path, os.O_RDWR)
size = os.fstat(fd).st_size
page = (size - 1) // P * P
if len(sys.argv) > 2:
    page = (int(sys.argv[2]) - 1) // P * P
addr = libc.mmap(None, P, mmap.PROT_READ, mmap.MAP_SHARED, fd, page)
if addr in (None, ctypes.c_void_p(-1).value):
    sys.exit("mmap: %s" % os.strerror(ctypes.get_errno()))
before = ctypes.string_at(addr, P)
if len(sys.argv) > 2:
    size = int(sys.argv[2])
    os.ftruncate(fd, size)
got = ctypes.string_at(addr, P)
end = size - page
data = os.pread(fd, end, page)
if got[:end] != data:
    sys.exit("the mapping differs from read() before the end of file")
nz = [i for i in range(end, P) if got[i]]
if nz:
    sys.exit("%d non-zero bytes past the end of file (%d), the first at "
             "page offset %d: %#x" % (len(nz), size, nz[0], got[nz[0]]))
os.close(fd)
EOF
}

mkdir -p "$S"
t_ok "format and mount" nova_mount_init

fill "$M/a" 8192 0xab
t_ok "truncate down to 5000 bytes" truncate -s 5000 "$M/a"
t_ok "a new mapping of the last page shows zeroes past the end" tail_zero "$M/a"
t_ok "read() gives the 5000 bytes" python3 -c "
import sys
sys.exit(open('$M/a', 'rb').read() != bytes([0xab]) * 5000)"
t_ok "truncate up to 6000 bytes" truncate -s 6000 "$M/a"
t_ok "read() gives the data, then zeroes" python3 -c "
import sys
sys.exit(open('$M/a', 'rb').read() != bytes([0xab]) * 5000 + bytes(1000))"

fill "$M/b" 12288 0x5a
t_ok "a mapping made before ftruncate to 9000 shows zeroes past the end" \
	tail_zero "$M/b" 9000

fill "$M/c" 8192 0x77
t_ok "truncate down to 4097 bytes" truncate -s 4097 "$M/c"
t_ok "remount" nova_remount
t_ok "after a remount: zeroes past the end (on the media)" tail_zero "$M/c"

# A page a snapshot shows is copied on write, not zeroed in place.
fill "$M/d" 8192 0xcd
t_ok "snapshot" "$C" snapshot create --name t "$M"
t_ok "truncate down to 6000 bytes (the page is in the snapshot)" truncate -s 6000 "$M/d"
t_ok "the live file's mapping shows zeroes past the end" tail_zero "$M/d"
t_ok "umount" nova_umount
t_ok "mount the snapshot" mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$S"
t_ok "the snapshot keeps the 8192 bytes" python3 -c "
import sys
sys.exit(open('$S/d', 'rb').read() != bytes([0xcd]) * 8192)"
t_ok "umount the snapshot" umount "$S"
t_ok "mount live" nova_mount
t_ok "after a remount: zeroes past the end" tail_zero "$M/d"
t_ok "delete the snapshot" "$C" snapshot delete "$M" t
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_done

#!/bin/bash
# Verified reads in one pass (protect.c, csum.c): whole strips read into a
# plain user buffer are copied from PMEM and checksummed in the same loop,
# storing straight to the user. Checks what that loop must get right with
# read(2)/pread(2) through ctypes (so the kernel sees a plain user buffer):
# every buffer alignment, file offsets and lengths that start and end
# inside strips, a user buffer that ends in an inaccessible page (the read
# returns exactly the bytes before it, mid-strip or on a strip boundary,
# and they are right), a buffer that is a DAX mapping of another NOVA file,
# readv(2) (not a plain buffer: the strip-buffer path), and the verified
# strip counter moving by the strips each read touched. Damage under the
# one-pass loop (a bad strip is repaired, two fail with EIO) is in
# protect-data.sh.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

verified() {
	novactl stats --json "$M" | python3 -c "
import json, sys
print(json.load(sys.stdin)['filesystems'][0]['protection']['verified'])"
}

t_ok "mount -o init (default protection)" nova_mount_init
t_ok "a 64 KiB file of random bytes" dd if=/dev/urandom of="$T/f" bs=4k count=16 status=none
t_ok "copied to NOVA" cp "$T/f" "$M/f"
t_ok "and a 16 KiB file to map" dd if=/dev/zero of="$M/map" bs=4k count=4 status=none

before=$(verified)
python3 - "$M/f" "$T/f" "$M/map" "$T/strips" > "$T/py.out" 2>&1 <<'EOF'
import ctypes, mmap, os, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.pread.restype = ctypes.c_ssize_t
libc.pread.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
                       ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PAGE = 4096
want = open(sys.argv[2], "rb").read()
fd = os.open(sys.argv[1], os.O_RDONLY)
strips = 0


def touched(off, n, got):
    """Strips a verified read checks: those of the bytes it returned and,
    if it stopped short of the end of file, the strip it stopped in."""
    n = min(n, len(want) - off)
    end = off + got + (1 if got < n else 0)
    return len({b // 512 for b in range(off, end)}) if end > off else 0


def check(desc, ok):
    print(("PASS " if ok else "FAIL ") + desc)


def buffer(pages):
    m = mmap.mmap(-1, pages * PAGE)
    return m, ctypes.addressof(ctypes.c_char.from_buffer(m))


# Alignments and ranges: every result compared with the source file.
m, base = buffer(40)
bad = []
for align in (0, 1, 3, 8, 1000):
    for off, n in ((0, 65536), (0, 4096), (512, 512), (100, 5000),
                   (4096 - 7, 1030), (8192, 3 * 4096 + 511),
                   (65536 - 600, 600), (65536 - 600, 4096)):
        m[:] = b"\xa5" * len(m)
        got = libc.pread(fd, base + align, n, off)
        exp = want[off:off + n]
        strips += touched(off, n, max(got, 0))
        if got != len(exp) or m[align:align + got] != exp or \
           m[align + got:align + got + 64] != b"\xa5" * 64 or \
           (align and m[:align] != b"\xa5" * align):
            bad.append((align, off, n, got))
check("pread at every alignment, offset and length reads the file exactly "
      "(%s)" % (bad or "40 reads"), not bad)

# The buffer ends in a page the kernel cannot write: the read stops at it.
m2, base2 = buffer(3)
libc.mprotect(base2 + 2 * PAGE, PAGE, 0)
for start, off, n in ((1000, 0, 3 * PAGE),     # fault inside a strip
                      (0, 512, 3 * PAGE),      # on a strip boundary
                      (PAGE + 8, 4096, 2 * PAGE)):
    m2[:2 * PAGE] = b"\xa5" * (2 * PAGE)
    got = libc.pread(fd, base2 + start, n, off)
    exp = 2 * PAGE - start
    strips += touched(off, n, max(got, 0))
    check("read into a buffer ending at a PROT_NONE page at +%d, file offset "
          "%d: %d bytes (want %d), all right" % (start, off, got, exp),
          got == exp and m2[start:2 * PAGE] == want[off:off + exp])
m3, base3 = buffer(1)
libc.mprotect(base3, PAGE, 0)
got = libc.pread(fd, base3, PAGE, 0)
strips += touched(0, PAGE, 0)
check("read into an inaccessible buffer: EFAULT (%d, errno %d)" %
      (got, ctypes.get_errno()), got == -1 and ctypes.get_errno() == 14)

# The buffer is another NOVA file mapped shared (stores go to its blocks).
mf = os.open(sys.argv[3], os.O_RDWR)
mm = mmap.mmap(mf, 4 * PAGE, mmap.MAP_SHARED)
mbase = ctypes.addressof(ctypes.c_char.from_buffer(mm))
got = libc.pread(fd, mbase + 24, 3 * PAGE, 8192)
strips += touched(8192, 3 * PAGE, max(got, 0))
check("read into a DAX mapping of another NOVA file",
      got == 3 * PAGE and mm[24:24 + got] == want[8192:8192 + got])
mm.flush()

# readv: an iovec, not a plain buffer (the strip-buffer path).
a, b = bytearray(3000), bytearray(9000)
got = os.preadv(fd, [a, b], 700)
strips += touched(700, 12000, got)
check("readv of two buffers reads the file exactly",
      got == 12000 and bytes(a) + bytes(b) == want[700:12700])
open(sys.argv[4], "w").write("%d\n" % strips)
EOF
t_from_py < "$T/py.out"
after=$(verified)
t_is "verified strips moved by exactly the strips the reads touched" \
	"$((after - before))" "$(cat "$T/strips")"
t_ok "the mapped file got the bytes" sh -c "cmp -n 12288 -i 8192:24 $M/f $M/map"
t_ok "umount" nova_umount
t_done

#!/bin/bash
# The write path's one-pass copy (module/csum.c): whole pages written from
# a user buffer get their strip checksums and parity while they are
# copied (with SSE2 or AVX2 loads and stores where the CPU has them, the
# general registers where a fault ends that: a page not yet mapped, a hole
# in the buffer); other sources (writev with pages split across segments,
# splice from a pipe, unaligned heads and tails, a user buffer that faults
# part way) take the copy-then-protect path. Whatever the path, the
# checksums and parity on the medium must be exactly what crc32c() and
# the XOR of the strips give (tests/guest/protect-media.py computes both
# in Python, fsck.NOVA -f with its own crc32c), reads verify, and a short
# write returns what it copied.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }

# The module chose the widest copy the CPU has (and that agreed with the
# general-register copy and crc32c() at load); the harness clears the
# kernel log before each test, so load it again to see its choice.
copy_kind() {
	local want=SSE2

	grep -qw avx2 /proc/cpuinfo && want=AVX2
	rmmod nova && insmod "$NOVA_MODULE" || return 1
	dmesg | grep "nova: data block copy: $want," > /dev/null
}
t_ok "data block copy: AVX2 if the CPU has it, else SSE2" copy_kind
t_ok "mount -o init (protection on)" nova_mount_init

t_from_py < <(python3 - "$T/src" "$M" "$T" <<'PY'
import ctypes, mmap, os, sys

# Each file its own random contents: protect-media.py finds a page's block
# by its contents.
def fresh():
    return os.urandom(64 * 4096)

src = fresh()
M, T = sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)

def check(name, want):
    with open(os.path.join(T, "exp-" + name), "wb") as f:
        f.write(want)
    got = open(os.path.join(M, name), "rb").read()
    print(("PASS" if got == want else "FAIL") + " %s reads back right (%d bytes)" % (name, len(want)))

# write(2) of whole pages: the one-pass path.
with open(os.path.join(M, "whole"), "wb") as f:
    f.write(src)
check("whole", src)
# writev with segments that split pages (1000 + 7192 + ...): fallback.
src = fresh()
fd = os.open(os.path.join(M, "vec"), os.O_CREAT | os.O_WRONLY, 0o644)
cuts = [0, 1000, 8192, 8192 + 4096, 20000, 64 * 4096]
n = os.writev(fd, [src[a:b] for a, b in zip(cuts, cuts[1:])])
os.close(fd)
print(("PASS" if n == len(src) else "FAIL") + " writev wrote everything (%d)" % n)
check("vec", src)
# Unaligned overwrites: head and tail pages filled from the old data.
data = bytearray(open(os.path.join(T, "exp-whole"), "rb").read())
fd = os.open(os.path.join(M, "whole"), os.O_WRONLY)
for off, ln in ((100, 5000), (4096 * 3 + 7, 4096 * 5), (4096 * 10, 4096 * 4 + 1), (4096 * 20, 4096 * 3)):
    piece = os.urandom(ln)
    os.pwrite(fd, piece, off)
    data[off:off + ln] = piece
os.close(fd)
check("whole", bytes(data))
# A user buffer whose third page is not mapped: a short write of two pages.
PROT_RW = mmap.PROT_READ | mmap.PROT_WRITE
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
libc.write.restype = ctypes.c_ssize_t
src = fresh()
p = libc.mmap(None, 4 * 4096, PROT_RW, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
ctypes.memmove(p, src, 4 * 4096)
libc.munmap(p + 2 * 4096, 4096)
fd = os.open(os.path.join(M, "short"), os.O_CREAT | os.O_WRONLY, 0o644)
r = libc.write(fd, p, 4 * 4096)
os.close(fd)
print(("PASS" if r == 2 * 4096 else "FAIL") + " write from a half-mapped buffer is short: %d" % r)
check("short", src[:2 * 4096])
# The same from an unaligned file offset (fault inside a page).
fd = os.open(os.path.join(M, "short2"), os.O_CREAT | os.O_WRONLY, 0o644)
os.pwrite(fd, b"x" * 10, 0)
os.lseek(fd, 10, os.SEEK_SET)
r = libc.write(fd, p + 4096 + 10, 4096)	# pos 10; faults after 4086 bytes
os.close(fd)
print(("PASS" if r == 4096 - 10 else "FAIL") + " unaligned short write: %d" % r)
check("short2", b"x" * 10 + src[4096 + 10:2 * 4096])
# An unaligned user buffer at a page-aligned file offset, its third page
# unmapped: the first block comes through the vector copy (16- or 32-byte
# loads that straddle the buffer's pages), the second faults in it and in
# the general-register copy, and the write returns the bytes before the
# hole (the ordinary copy that finishes a faulting block may stop up to
# 7 bytes before it: 6.12's __copy_user_nocache() does not go byte by
# byte to the fault from an unaligned source).
fd = os.open(os.path.join(M, "short3"), os.O_CREAT | os.O_WRONLY, 0o644)
r = libc.write(fd, p + 10, 3 * 4096)
os.close(fd)
ok = 2 * 4096 - 10 - 8 < r <= 2 * 4096 - 10
print(("PASS" if ok else "FAIL") + " unaligned buffer, short write: %d" % r)
check("short3", src[10:10 + max(r, 0)])
# A source not yet mapped: a fresh MAP_PRIVATE mapping of a file. The
# vector copy runs with page faults disabled and gives up on the first
# touch of each page; the general-register copy faults it in.
src = fresh()
with open(sys.argv[1], "wb") as f:
    f.write(src)
fi = os.open(sys.argv[1], os.O_RDONLY)
q = libc.mmap(None, len(src), mmap.PROT_READ, mmap.MAP_PRIVATE, fi, 0)
os.close(fi)
fd = os.open(os.path.join(M, "lazy"), os.O_CREAT | os.O_WRONLY, 0o644)
r = libc.write(fd, q, len(src))
os.close(fd)
libc.munmap(q, len(src))
print(("PASS" if r == len(src) else "FAIL") + " write from an untouched file mapping: %d" % r)
check("lazy", src)
# Another thread rewrites the buffer while write(2) copies it: whatever
# bytes land, each block's checksums and parity must be of exactly those
# bytes (the copy checksums what it stores, not a second read of the
# user's buffer). fsck.NOVA -f below checks every page.
import threading
buf = ctypes.create_string_buffer(16 * 4096)
stop = threading.Event()
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
def scribble():
    n = 0
    while not stop.is_set():
        libc.memset(buf, n & 0xff, len(buf))
        n += 1
t = threading.Thread(target=scribble)
t.start()
fd = os.open(os.path.join(M, "racy"), os.O_CREAT | os.O_WRONLY, 0o644)
ok = True
for k in range(200):
    ok = ok and libc.write(fd, buf, len(buf)) == len(buf)
    os.lseek(fd, 0, os.SEEK_SET)
os.close(fd)
stop.set()
t.join()
print(("PASS" if ok else "FAIL") + " writes from a buffer another thread rewrites")
# Kernel pages as the source: splice from a pipe, sendfile from a file.
src = fresh()
r, w = os.pipe()
fd = os.open(os.path.join(M, "pipe"), os.O_CREAT | os.O_WRONLY, 0o644)
done = 0
while done < len(src):
    n = os.write(w, src[done:done + 65536])
    m = 0
    while m < n:
        m += os.splice(r, fd, n - m)
    done += n
os.close(fd)
check("pipe", src)
src = fresh()
with open(sys.argv[1], "wb") as f:
    f.write(src)
fd = os.open(os.path.join(M, "cp"), os.O_CREAT | os.O_WRONLY, 0o644)
fi = os.open(sys.argv[1], os.O_RDONLY)
done = 0
while done < len(src):
    done += os.sendfile(fd, fi, done, len(src) - done)
os.close(fd)
check("cp", src)
PY
)
t_ok "umount" nova_umount

# Checksums and parity against Python's crc32c and XOR, some pages of each
# file (fsck.NOVA -f below checks every page with its own crc32c).
check_pages() {	# NAME PAGE...
	local f=$1 p blk
	shift
	for p in "$@"; do
		blk=$(media find "$D" "$T/exp-$f" "$p") || return 1
		media check "$D" "$blk" || return 1
	done
}
t_ok "whole: checksums and parity right on the medium" check_pages whole 0 1 3 9 10 14 20 22 63
t_ok "vec: likewise" check_pages vec 0 1 2 3 4 63
t_ok "short: likewise" check_pages short 0 1
t_ok "short2: likewise" check_pages short2 0
t_ok "short3 (unaligned buffer): likewise" check_pages short3 0 1
t_ok "lazy (untouched mapping): likewise" check_pages lazy 0 1 31 63
t_ok "pipe: likewise" check_pages pipe 0 5 63
t_ok "cp (sendfile): likewise" check_pages cp 0 63
t_is "fsck.NOVA -f -n: clean" "$(fsck.NOVA -f -n "$D" > "$T/fsck" 2>&1; echo $?)" 0
t_fail "fsck.NOVA finds no damaged strip" grep -q "damaged strip\|beyond repair" "$T/fsck"
t_ok "mount again" nova_mount
t_ok "verified reads: whole" sh -c "cat $M/whole > /dev/null"
t_ok "verified reads: racy (written while rewritten)" sh -c "cat $M/racy > /dev/null"
t_ok "verified reads: 1-byte reads across a page" python3 -c "
import os
fd = os.open('$M/vec', os.O_RDONLY)
want = open('$T/exp-vec', 'rb').read()
ok = all(os.pread(fd, 1, o) == want[o:o + 1] for o in range(4090, 4610))
ok = ok and os.pread(fd, 700, 4000) == want[4000:4700]
raise SystemExit(0 if ok else 1)"
t_ok "umount" nova_umount
rm -rf "$T"
t_done

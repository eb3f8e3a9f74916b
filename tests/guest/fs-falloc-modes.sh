#!/bin/bash
# fallocate range modes (format 1.5 range entries, module/falloc.c):
# PUNCH_HOLE, ZERO_RANGE (with and without KEEP_SIZE), COLLAPSE_RANGE and
# INSERT_RANGE through fallocate(1) and xfs_io, on a file of known random
# content compared after every step with falloc_model.py; sizes; st_blocks
# drops after a punch; unaligned punch and zero edges; EINVAL for
# unaligned collapse/insert, a collapse reaching EOF, an insert at EOF,
# EFBIG for an insert past the largest file size; a write to and a punch
# of the last page a file can have, after a remount;
# the result across umount/mount and fsck.NOVA -n clean after every
# stage; FIEMAP (filefrag, via fiemap_check.py) shows the hole; a punch
# and a collapse while the file is mapped MAP_SHARED (the mapping sees the
# new contents); a snapshot taken before a punch and a collapse still
# shows the old data and keeps its blocks; a format 1.4 image gets
# feature 0x20 and format 1.5 on its first range operation, with one
# kernel info line; a loop device on a NOVA file takes mkfs.ext4 -E
# discard, fstrim and blkdiscard -z without DISCARD/WRITE_ZEROES errors
# in the kernel log, and discards free the file's blocks; 300 mixed range
# operations and writes, then novactl gc, keep the contents.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
C=${NOVACTL:-novactl}
S=/mnt/nova-snap
T=$(mktemp -d)
F=$M/f
MOD=$T/model
CHK=$NOVA_TOP/tests/guest/fiemap_check.py

model() { python3 "$NOVA_TOP/tests/guest/falloc_model.py" "$MOD" "$@"; }
media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }
layout() { media layout "$D" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
blocks() { stat -c %b "$1"; }
size() { stat -c %s "$1"; }
same() { t_ok "$1: contents match the model" model check "$F"; }
# op DESC MODELOP CMD...: run CMD on $F and the model, compare
op() {
	local desc=$1 mop=$2
	shift 2
	t_ok "$desc" "$@"
	model $mop
	same "$desc"
	t_is "$desc: size" "$(size "$F")" "$(size "$MOD")"
}
# fsck_cycle DESC: umount, fsck.NOVA -n clean, mount, contents still right
fsck_cycle() {
	t_ok "$1: umount" nova_umount
	t_ok "$1: fsck.NOVA -n clean" fsck.NOVA -f -n "$D"
	t_ok "$1: mount" nova_mount
	same "$1: after the remount"
}
mkdir -p "$S"

t_ok "format and mount" nova_mount_init
t_ok "umount" nova_umount
t_is "format 1.6 with the range feature" "$(layout minor) $(($(layout incompat) & 32))" "6 32"
t_ok "mount" nova_mount

# --- the modes, on 1 MiB of random data ---
dd if=/dev/urandom of="$MOD" bs=1M count=1 status=none
cp "$MOD" "$F"
same "initial copy"
b0=$(blocks "$F")
op "punch 4 aligned pages" "punch 8192 16384" fallocate -p -o 8192 -l 16384 "$F"
b1=$(blocks "$F")
t_is "st_blocks dropped by 4 pages ($b0 -> $b1)" "$((b0 - b1))" 32
op "punch unaligned (partial edges)" "punch 100000 10000" fallocate -p -o 100000 -l 10000 "$F"
op "punch inside one page" "punch 200005 100" fallocate -p -o 200005 -l 100 "$F"
op "punch past EOF (keeps the size)" "punch 1040000 100000" fallocate -p -o 1040000 -l 100000 "$F"
b2=$(blocks "$F")
op "zero range inside the file" "zero 300001 50000" fallocate -z -o 300001 -l 50000 "$F"
op "zero range over a hole allocates it" "zero 8192 16384" fallocate -z -o 8192 -l 16384 "$F"
t_ok "zeroed hole is allocated again ($b2 -> $(blocks "$F"))" test "$(blocks "$F")" -ge $((b2 + 32))
op "zero range past EOF, KEEP_SIZE" "zero-keep 1048000 20000" fallocate -z -n -o 1048000 -l 20000 "$F"
op "zero range past EOF grows the file" "zero 1048000 30000" fallocate -z -o 1048000 -l 30000 "$F"
op "collapse 2 pages at 64 KiB" "collapse 65536 8192" fallocate -c -o 65536 -l 8192 "$F"
op "insert 3 pages at 64 KiB" "insert 65536 12288" fallocate -i -o 65536 -l 12288 "$F"
op "collapse the first page" "collapse 0 4096" fallocate -c -o 0 -l 4096 "$F"
op "insert one page at page 1" "insert 4096 4096" fallocate -i -o 4096 -l 4096 "$F"
op "xfs_io fpunch" "punch 4096 4096" xfs_io -c "fpunch 4096 4096" "$F"
op "xfs_io fzero" "zero-keep 12288 5000" xfs_io -c "fzero -k 12288 5000" "$F"
op "xfs_io fcollapse" "collapse 40960 4096" xfs_io -c "fcollapse 40960 4096" "$F"
op "xfs_io finsert" "insert 8192 8192" xfs_io -c "finsert 8192 8192" "$F"
sz=$(size "$F")
t_errno "collapse at an unaligned offset: EINVAL" "Invalid argument" fallocate -c -o 100 -l 4096 "$F"
t_errno "collapse of an unaligned length: EINVAL" "Invalid argument" fallocate -c -o 4096 -l 100 "$F"
t_errno "collapse reaching EOF: EINVAL" "Invalid argument" fallocate -c -o 4096 -l $(( ((sz + 4095) & ~4095) - 4096 )) "$F"
t_errno "collapse past EOF: EINVAL" "Invalid argument" fallocate -c -o 0 -l $(( (sz + 8192) & ~4095 )) "$F"
t_errno "insert at EOF: EINVAL" "Invalid argument" fallocate -i -o $(( (sz + 4095) & ~4095 )) -l 4096 "$F"
t_errno "insert of an unaligned length: EINVAL" "Invalid argument" fallocate -i -o 0 -l 10 "$F"
# A file one page short of the largest size (2^63 - 4096, sparse): two
# more pages are too large (EFBIG), not a negative size (generic/485).
truncate -s $(( (1 << 63) - 4096 )) "$M/big"
t_errno "insert past the largest file size: EFBIG" "File too large" fallocate -i -o 0 -l 8192 "$M/big"
rm -f "$M/big"
# The last page a file can have (generic/525): a byte written at 2^63 - 2
# and a punch of that page are entries replay and fsck.NOVA take (the
# remount of fsck_cycle below).
L=$(( (1 << 63) - 4096 ))
t_ok "write a byte at 2^63 - 2" xfs_io -f -c "pwrite -q -S 0x7a $(( L + 4094 )) 1" "$M/last"
t_ok "write the last page of another file" xfs_io -f -c "pwrite -q -S 0x7b $L 4095" "$M/lastp"
t_ok "punch that page (up to the largest size)" fallocate -p -o $L -l 4095 "$M/lastp"
last_page() {	# FILE: its size and what its last page holds
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
d = os.pread(fd, 4095, (1 << 63) - 4096)
print(os.fstat(fd).st_size, len(d), d.count(0), d[-1:])' "$1"
}
t_errno "punch of a directory: not supported" "Operation not supported\|Is a directory" fallocate -p -o 0 -l 4096 "$M"
t_is "the failed calls changed nothing: size" "$(size "$F")" "$sz"
same "the failed calls changed nothing"
fsck_cycle "modes"
t_is "the byte at 2^63 - 2 after the remount" "$(last_page "$M/last")" \
	"9223372036854775807 4095 4094 b'z'"
t_is "the punched last page after the remount" "$(last_page "$M/lastp")" \
	"9223372036854775807 4095 4095 b'\\x00'"
rm -f "$M/last" "$M/lastp"

# --- garbage collection of a log full of range entries ---
dd if=/dev/urandom of="$MOD" bs=4k count=64 status=none
cp "$MOD" "$F"
t_ok "300 punches, zeroes, collapses, inserts and rewrites" python3 - "$F" "$MOD" "$NOVA_TOP/tests/crash" <<'EOF'
import ctypes, os, random, sys
sys.path.insert(0, sys.argv[3])
from crashfs import FALLOC, falloc_model
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64,
                           ctypes.c_int64]
f, model = sys.argv[1], sys.argv[2]
want = bytearray(open(model, "rb").read())
rng = random.Random(7)
fd = os.open(f, os.O_RDWR)
for i in range(300):
    size = len(want)
    mode = rng.choice(list(FALLOC) + ["write"])
    if mode == "write":
        off, n = rng.randrange(size + 1), rng.randrange(1, 20000)
        data = rng.randbytes(n)
        os.pwrite(fd, data, off)
        if off + n > size:
            want.extend(bytes(off + n - size))
        want[off:off + n] = data
        continue
    if mode in ("collapse", "insert"):
        if size < 3 * 4096:
            continue
        off = rng.randrange(size // 4096 - 1) * 4096
        n = 4096 * rng.randrange(1, 3)
        if mode == "collapse" and off + n >= size:
            continue
    else:
        off, n = rng.randrange(size + 4096), rng.randrange(1, 40000)
        if mode == "zero" and off + n > 1 << 20:
            continue
    if libc.fallocate(fd, FALLOC[mode], off, n) < 0:
        sys.exit("fallocate %s %d %d: %s" % (mode, off, n,
                                            os.strerror(ctypes.get_errno())))
    falloc_model(want, mode, off, n)
os.close(fd)
open(model, "wb").write(want)
EOF
same "after the mixed operations"
t_ok "novactl gc" "$C" gc "$M"
same "after garbage collection"
fsck_cycle "gc"

# Range entries are never marked dead, but count as cancels only: the
# thorough GC drops the old ones, so repeated punches keep the log small.
printf 'x' > "$M/rep"
t_ok "3000 punches of the same hole" python3 - "$M/rep" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64,
                           ctypes.c_int64]
fd = os.open(sys.argv[1], os.O_RDWR)
for i in range(3000):
    if libc.fallocate(fd, 3, 65536, 8192) < 0:
        sys.exit(os.strerror(ctypes.get_errno()))
os.close(fd)
EOF
t_ok "the log stays small (st_blocks $(blocks "$M/rep"), 3000 entries would need 53 pages)" \
	wait_for 20 sh -c "[ \$(stat -c %b $M/rep) -le $((24 * 8)) ]"
t_is "the file still reads 'x'" "$(cat "$M/rep")" x

# --- FIEMAP shows the hole ---
dd if=/dev/urandom of="$M/map" bs=4k count=64 status=none
t_ok "punch pages 8-15 and half of page 30" sh -c "fallocate -p -o 32768 -l 32768 $M/map && fallocate -p -o 122880 -l 2048 $M/map"
out=$(python3 "$CHK" "$D" "$M/map" "0-7,16-63" 2>&1)
t_diag "fiemap after the punch"
t_from_py <<<"$out"
t_ok "filefrag reports the hole" sh -c "filefrag -v $M/map | grep -q 'found'"

# --- with the file mapped ---
dd if=/dev/urandom of="$MOD" bs=4k count=32 status=none
cp "$MOD" "$F"
t_ok "punch and collapse while mapped MAP_SHARED; the mapping sees both" python3 - "$F" "$MOD" <<'EOF'
import mmap, os, subprocess, sys
f, model = sys.argv[1], sys.argv[2]
fd = os.open(f, os.O_RDWR)
m = mmap.mmap(fd, 32 * 4096, mmap.MAP_SHARED)
want = bytearray(open(model, "rb").read())
assert m[:] == want, "before"
subprocess.run(["fallocate", "-p", "-o", "4096", "-l", "8192", f], check=True)
want[4096:12288] = bytes(8192)
assert m[:] == want, "after the punch"
m[5000:5004] = b"abcd"
want[5000:5004] = b"abcd"
m.flush()
subprocess.run(["fallocate", "-c", "-o", "16384", "-l", "4096", f], check=True)
del want[16384:20480]
assert m[:31 * 4096] == want, "after the collapse"
m.close()
os.close(fd)
open(model, "wb").write(want)
EOF
same "mapped file"
fsck_cycle "mapped"

# --- a snapshot taken before a punch and a collapse ---
dd if=/dev/urandom of="$M/s" bs=4k count=64 status=none
fr0=$(nova_bfree)
# Stores through a shared mapping (checksums stale while it is open),
# the snapshot, then the punch and the collapse with the mapping open: the
# blocks left to the snapshot must read back verified.
t_ok "store through a mapping, snapshot, punch and collapse while mapped" python3 - "$M/s" "$T/s.old" "$C" "$M" <<'EOF'
import mmap, os, subprocess, sys
f, old, novactl, mnt = sys.argv[1:5]
fd = os.open(f, os.O_RDWR)
m = mmap.mmap(fd, 64 * 4096, mmap.MAP_SHARED)
m[100:107] = b"mapped!"
m[70000:70007] = b"mapped!"
m[140000:140007] = b"mapped!"
m.flush()
open(old, "wb").write(open(f, "rb").read())
subprocess.run([novactl, "snapshot", "create", "--name", "before", mnt],
               check=True, stdout=subprocess.DEVNULL)
subprocess.run(["fallocate", "-p", "-o", "0", "-l", "65536", f], check=True)
subprocess.run(["fallocate", "-c", "-o", "65536", "-l", "65536", f],
               check=True)
m.close()
os.close(fd)
EOF
fr1=$(nova_bfree)
t_ok "the snapshot keeps the punched blocks ($fr0 -> $fr1 free)" test "$fr1" -le "$fr0"
cp "$M/s" "$T/s.new"
t_is "live: size after the collapse" "$(size "$M/s")" $((48 * 4096))
t_ok "live: first 16 pages read zeroes" cmp -n 65536 "$M/s" /dev/zero
t_ok "live: the pages after the collapse moved down" cmp -i 65536:131072 -n 65536 "$M/s" "$T/s.old"
t_ok "umount" nova_umount
t_ok "fsck.NOVA -n clean with the snapshot" fsck.NOVA -f -n "$D"
t_ok "mount snapshot 1" mount -t NOVA -o snapshot=1,ro "$D" "$S"
t_ok "the snapshot shows the old data" cmp "$S/s" "$T/s.old"
t_ok "umount the snapshot" umount "$S"
t_ok "mount" nova_mount
t_ok "live file unchanged by the remount" cmp "$M/s" "$T/s.new"
t_ok "delete the snapshot" "$C" snapshot delete "$M" before
t_ok "umount" nova_umount
t_ok "fsck.NOVA -n clean after the delete" fsck.NOVA -f -n "$D"
t_ok "mount" nova_mount
t_ok "live file still right" cmp "$M/s" "$T/s.new"
t_ok "umount" nova_umount

# --- a format 1.4 image is upgraded on its first range operation ---
t_ok "a new file system" nova_mount_init
dd if=/dev/urandom of="$M/s" bs=4k count=16 status=none
cp "$M/s" "$T/s.new"
t_ok "umount" nova_umount
t_ok "rewrite the superblock as format 1.4 (no range feature)" media sb "$D" minor=4 incompat=15
t_ok "fsck.NOVA -n accepts the 1.4 image" fsck.NOVA -f -n "$D"
t_ok "a 1.4 image mounts" nova_mount
t_ok "... and holds its files" cmp "$M/s" "$T/s.new"
t_ok "mode 0 preallocation does not upgrade it" fallocate -o 0 -l 8192 "$M/new"
n0=$(dmesg | grep -c 'format upgraded from 1.4 to 1.5')
t_ok "punch on the 1.4 image" fallocate -p -o 0 -l 4096 "$M/s"
t_ok "zero on it too" fallocate -z -o 8192 -l 4096 "$M/s"
t_is "one kernel info line says so" "$(( $(dmesg | grep -c 'format upgraded from 1.4 to 1.5') - n0 ))" 1
t_ok "umount" nova_umount
t_is "format 1.5 with feature 0x20 now" "$(layout minor) $(layout incompat)" "5 47"
t_ok "fsck.NOVA -n clean after the upgrade" fsck.NOVA -f -n "$D"
t_ok "mount" nova_mount

# --- a loop device on a NOVA file: discard and write zeroes ---
mark="falloc-modes-loop-$$"
echo "$mark" > /dev/kmsg
t_ok "64 MiB image file" truncate -s 64M "$M/disk.img"
modprobe -q loop
L=$(losetup -f --show "$M/disk.img")
t_ok "losetup: $L" test -b "$L"
t_ok "mkfs.ext4 -E discard on it" mkfs.ext4 -q -F -E discard "$L"
t_ok "mount the ext4" sh -c "mkdir -p $T/ext && mount $L $T/ext"
t_ok "fill and remove 16 MiB" sh -c "dd if=/dev/urandom of=$T/ext/big bs=1M count=16 status=none && sync && rm $T/ext/big && sync"
b=$(blocks "$M/disk.img")
t_ok "fstrim" fstrim -v "$T/ext"
t_ok "fstrim freed the image's blocks ($b -> $(blocks "$M/disk.img"))" test "$(blocks "$M/disk.img")" -lt $((b - 16 * 2048 / 2))
t_ok "umount the ext4" umount "$T/ext"
t_ok "blkdiscard -z the first 8 MiB" blkdiscard -z -o 0 -l 8M "$L"
t_ok "the first 8 MiB read zeroes" cmp -n 8388608 "$M/disk.img" /dev/zero
t_ok "blkdiscard the rest" blkdiscard -o 8M "$L"
t_ok "losetup -d" losetup -d "$L"
t_is "no DISCARD / WRITE_ZEROES / I/O errors in the kernel log" \
	"$(dmesg | sed -n "/$mark/,\$p" | grep -Ei 'DISCARD|WRITE_ZEROES|I/O error|operation not supported' | head -3)" ""
t_ok "umount" nova_umount
t_ok "fsck.NOVA -n clean at the end" fsck.NOVA -f -n "$D"
rm -rf "$T"
t_done

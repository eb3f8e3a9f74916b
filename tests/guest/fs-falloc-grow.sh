#!/bin/bash
# Blocks preallocated past the end of file (fallocate FALLOC_FL_KEEP_SIZE)
# survive operations that grow the size: ftruncate up, a write past the
# end, fallocate without KEEP_SIZE. After each: st_blocks still counts
# every preallocated block, free space did not move, the file reads as
# its data followed by zeroes; the same after a remount, after crash
# recovery (an image left as a power cut before the unmount leaves it)
# and in fsck.NOVA -n. Shrinking (and truncating to the same size) still
# discards the preallocation, as on ext4.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
F=$M/pre
T=$(mktemp -d)

blocks() { stat -c %b "$F"; }
size() { stat -c %s "$F"; }
# The file's blocks in 4 KiB units: data pages plus its log pages (a few).
data_pages() { echo $(( $(blocks) / 8 )); }
# pages_about DESC N: N data pages, give or take the log (1 to 3 pages)
pages_about() {
	local got
	got=$(data_pages)
	t_ok "$1 ($got blocks, want $2 data pages plus the log)" \
		test "$got" -gt "$2" -a "$got" -le $(($2 + 3))
}

# expect SIZE: the file holds the first 5000 bytes of $T/data, then zeroes
# up to SIZE, except the 4 KiB written at 700 KiB once $T/w exists.
expect() {
	python3 - "$F" "$T/data" "$1" "$T/w" <<'PY'
import os, sys
f, data, size, w = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
want = bytearray(size)
d = open(data, "rb").read()
want[:len(d)] = d[:size]
if os.path.exists(w) and size > 700 << 10:
    want[700 << 10:(700 << 10) + 4096] = open(w, "rb").read()[:size - (700 << 10)]
got = open(f, "rb").read()
if got != bytes(want):
    diff = next((i for i in range(min(len(got), len(want)))
                 if got[i] != want[i]), min(len(got), len(want)))
    print("size %d, expected %d; first difference at byte %d" %
          (len(got), len(want), diff))
    sys.exit(1)
PY
}

# state DESC SIZE MINPAGES FREE: size, blocks, free space, contents
state() {
	t_is "$1: size" "$(size)" "$2"
	t_ok "$1: st_blocks counts the preallocation ($(data_pages) pages, want >= $3)" \
		test "$(data_pages)" -ge "$3"
	[ -z "$4" ] || t_is "$1: free blocks unchanged" "$(nova_bfree)" "$4"
	t_ok "$1: contents are the data and zeroes" expect "$2"
}

t_ok "format and mount" nova_mount_init
head -c 5000 /dev/urandom > "$T/data"
cp "$T/data" "$F"
t_ok "fallocate KEEP_SIZE 0..1 MiB" "$NOVA_SYS" fallocate "$F" keep_size 0 $((1 << 20))
t_is "the size stays 5000" "$(size)" 5000
free=$(nova_bfree)
state "after fallocate" 5000 256 ""

t_ok "ftruncate up to 512 KiB" truncate -s $((512 << 10)) "$F"
state "ftruncate up" $((512 << 10)) 256 "$free"

head -c 4096 /dev/urandom > "$T/w.tmp"
t_ok "write 4 KiB at 700 KiB (past the end, inside the preallocation)" \
	dd if="$T/w.tmp" of="$F" bs=4096 seek=175 conv=notrunc status=none
mv "$T/w.tmp" "$T/w"
# The write copies on write: one block allocated, the preallocated one freed.
state "write past the end" $(((700 << 10) + 4096)) 256 "$free"

t_ok "fallocate (mode 0) 0..800 KiB grows the size" "$NOVA_SYS" fallocate "$F" 0 0 $((800 << 10))
state "fallocate grows" $((800 << 10)) 256 "$free"

t_ok "remount" nova_remount
state "after remount" $((800 << 10)) 256 "$free"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean with blocks past the end of file" fsck.NOVA -n "$D"

# Crash recovery replays the log to rebuild the allocator: it must keep
# the preallocated blocks too (else they would be free and in use).
t_ok "mount" nova_mount
t_ok "ftruncate up to 900 KiB" truncate -s $((900 << 10)) "$F"
sync
last=$(( $(blockdev --getsize64 "$D") / 4096 - 1 ))
t_ok "save the dirty superblocks" sh -c "
	dd if=$D of=$T/b01 bs=4096 count=2 iflag=direct status=none &&
	dd if=$D of=$T/blast bs=4096 skip=$last count=1 iflag=direct status=none"
t_ok "unmount" nova_umount
t_ok "leave the image as a power cut before the unmount would" sh -c "
	dd if=$T/b01 of=$D bs=4096 count=2 oflag=direct conv=notrunc status=none &&
	dd if=$T/blast of=$D bs=4096 seek=$last count=1 oflag=direct conv=notrunc status=none"
t_ok "fsck.NOVA -n on the unrecovered image" fsck.NOVA -n "$D"
dmesg -C
t_ok "mount with crash recovery" nova_mount
t_ok "recovery ran" sh -c "dmesg | grep -q 'recovered in'"
state "after recovery" $((900 << 10)) 256 "$free"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean after recovery" fsck.NOVA -n "$D"

# Shrinking discards what lies past the new end, preallocated or not.
t_ok "mount" nova_mount
t_ok "truncate to the same size drops the preallocation" truncate -s $((900 << 10)) "$F"
pages_about "same size: 225 pages left" 225
t_ok "truncate down to 3000 bytes" truncate -s 3000 "$F"
t_ok "truncate up to 64 KiB (nothing preallocated now)" truncate -s $((64 << 10)) "$F"
pages_about "one page left" 1
t_ok "contents: 3000 bytes of data, then zeroes" python3 -c "
import sys
d = open('$T/data', 'rb').read()[:3000]
sys.exit(open('$F', 'rb').read() != d + bytes((64 << 10) - 3000))"
t_ok "remount" nova_remount
pages_about "after remount: one page" 1
rm -f "$F"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean at the end" fsck.NOVA -n "$D"
rm -rf "$T"
t_done

#!/bin/bash
# FIEMAP through filefrag -v and xfs_io -c 'fiemap -v' (fiemap_check.py
# checks both against the pages written, and the bytes at every reported
# physical address on the device against the file): an empty file, a
# dense file, a sparse one (holes not reported, the last extent flagged),
# a copy-on-write overwrite splitting an extent, fallocate inside and past
# the end of file (KEEP_SIZE), a file of many small extents, the shared
# flag on pages a snapshot shows, the xattr map (fiemap -a), and the
# same maps after a remount.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
C=${NOVACTL:-novactl}
CHK=$NOVA_TOP/tests/guest/fiemap_check.py

# check DESC FILE PAGES [shared|unshared]
check() {
	local out rc
	out=$(python3 "$CHK" "$D" "$2" "$3" ${4:+"$4"} 2>&1)
	rc=$?
	t_diag "$1"
	t_from_py <<<"$out"
	t_is "$1: checker exit status" "$rc" 0
}
# extents FIEMAP reports (filefrag's count merges physically contiguous ones)
nextents() { xfs_io -c fiemap "$1" | grep -vc 'hole\|:$'; }

t_ok "format and mount" nova_mount_init

: > "$M/empty"
check "empty file" "$M/empty" ""
t_is "empty file has 0 extents" "$(nextents "$M/empty")" 0

python3 -c 'import os, sys; open(sys.argv[1], "wb").write(os.urandom(1 << 20))' "$M/dense"
check "1 MiB written at once" "$M/dense" "0-255" unshared
t_is "one extent for one write" "$(nextents "$M/dense")" 1

# 4 KiB at 0, 8 KiB at 1 MiB, 100 bytes at 4 MiB + 10, size 8 MiB
python3 - "$M/sparse" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
os.pwrite(fd, os.urandom(4096), 0)
os.pwrite(fd, os.urandom(8192), 1 << 20)
os.pwrite(fd, os.urandom(100), (4 << 20) + 10)
os.ftruncate(fd, 8 << 20)
PY
check "sparse file, holes between" "$M/sparse" "0,256-257,1024"
out=$(xfs_io -c "fiemap" "$M/sparse")
t_ok "xfs_io lists the holes" grep -q hole <<<"$out"
t_is "xfs_io: the last line is the hole up to 8 MiB" \
	"$(tail -n1 <<<"$out" | awk '{ print $2, $3 }')" "[8200..16383]: hole"

# Overwrite one page in the middle: copy-on-write moves it elsewhere.
dd if=/dev/urandom of="$M/dense" bs=4096 seek=100 count=1 conv=notrunc status=none
check "page 100 rewritten" "$M/dense" "0-255"
t_is "the rewrite splits the extent in three" "$(nextents "$M/dense")" 3

fallocate -l $((512 << 10)) "$M/falloc"
check "fallocate 512 KiB" "$M/falloc" "0-127"
fallocate -n -o $((1 << 20)) -l $((256 << 10)) "$M/falloc"
t_is "KEEP_SIZE leaves the size" "$(stat -c %s "$M/falloc")" $((512 << 10))
check "fallocate -n past EOF is reported" "$M/falloc" "0-127,256-319"
out=$(filefrag -v "$M/falloc")
t_ok "filefrag flags the extent past EOF as last" \
	grep -Eq '\.\. *319: .*last' <<<"$out"
printf 'x' | dd of="$M/falloc" bs=1 seek=$((512 << 10)) conv=notrunc status=none
check "a byte appended at 512 KiB, before the preallocation" "$M/falloc" "0-128,256-319"

# 300 single-page writes at every other page: 300 extents.
python3 - "$M/frag" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
for i in range(300):
    os.pwrite(fd, os.urandom(4096), i * 8192)
PY
check "300 separate pages" "$M/frag" "$(seq -s, 0 2 598)"
t_is "300 extents" "$(nextents "$M/frag")" 300
t_is "xfs_io fiemap of a range: pages 10-20 only" \
	"$(xfs_io -c "fiemap 40k 44k" "$M/frag" | grep -vc 'hole\|:$')" 6

# Pages a snapshot shows are shared until rewritten.
t_ok "snapshot" "$C" snapshot create --name fiemap "$M"
check "after a snapshot every extent is shared" "$M/sparse" "0,256-257,1024" shared
dd if=/dev/urandom of="$M/sparse" bs=4096 seek=1024 count=1 conv=notrunc status=none
out=$(filefrag -v "$M/sparse")
line=$(grep -E '^ *[0-9]+: *1024\.\. *1024:' <<<"$out")
t_ok "the rewritten page is the last extent, not shared ($line)" \
	eval 'grep -q last <<<"$line" && ! grep -q shared <<<"$line"'
t_is "the others still are" "$(grep -c shared <<<"$out")" 2
t_ok "snapshot delete" "$C" snapshot delete "$M" 1
check "after the snapshot is gone nothing is shared" "$M/sparse" "0,256-257,1024" unshared

# FIEMAP_FLAG_XATTR (xfs_io fiemap -a): the log pages holding the current
# xattr values, each once, flagged inline (0x200) and not aligned
# (0x100), the last one also 0x1; the device bytes there hold the values.
# xattr_map FILE MARKER...: "EXTENTS FLAGS-OF-LAST MARKERS-FOUND"
xattr_map() {
	xfs_io -c "fiemap -a -v" "$1" | python3 -c '
import mmap, os, re, sys
dev, markers = sys.argv[1], sys.argv[2:]
ext = [l.split() for l in sys.stdin if re.match(r"\s*\d+:", l)]
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)	# O_DIRECT wants an aligned buffer
data = b""
for e in ext:
    start, end = (int(x) for x in e[2].rstrip(":").split(".."))
    for sec in range(start, end + 1, 8):
        os.preadv(fd, [buf], sec * 512)
        data += bytes(buf)
found = sum(m.encode() in data for m in markers)
print(len(ext), hex(int(ext[-1][-1], 16)) if ext else "-", found)' "$D" "${@:2}"
}
touch "$M/xa"
t_is "no xattrs: fiemap -a reports nothing" "$(xattr_map "$M/xa")" "0 - 0"
t_ok "setfattr user.one" setfattr -n user.one -v fiemap-xattr-one "$M/xa"
t_is "one small value: one inline extent, last, holding it" \
	"$(xattr_map "$M/xa" fiemap-xattr-one)" "1 0x301 1"
big=$(python3 -c 'print("fiemap-big-head" + "b" * 60000 + "fiemap-big-tail")')
t_ok "setfattr a 60 KiB value" setfattr -n user.big -v "$big" "$M/xa"
out=$(xattr_map "$M/xa" fiemap-xattr-one fiemap-big-head fiemap-big-tail)
t_ok "60 KiB: more than one page, all three values found ($out)" \
	eval '[ "${out%% *}" -gt 1 ] && [ "${out#* }" = "0x301 3" ]'
t_ok "xfs_io fiemap without -a still maps the data only" \
	eval '[ "$(nextents "$M/xa")" = 0 ]'
t_ok "setfattr -x user.one" setfattr -x user.one "$M/xa"
out=$(xattr_map "$M/xa" fiemap-big-head fiemap-big-tail)
t_ok "the other value is still mapped ($out)" \
	eval '[ "${out%% *}" -ge 1 ] && [ "${out#* }" = "0x301 2" ]'
t_ok "setfattr -x user.big" setfattr -x user.big "$M/xa"
t_is "all removed: fiemap -a reports nothing" "$(xattr_map "$M/xa")" "0 - 0"
t_ok "setfattr user.one again" setfattr -n user.one -v fiemap-xattr-one "$M/xa"
xfs_io -c "fiemap -a -v" "$M/xa" > /tmp/xa.map

for f in dense sparse falloc frag; do
	filefrag -v "$M/$f" | grep -v '^Filesystem' > "/tmp/$f.map"
done
t_ok "remount" nova_remount
for f in dense sparse falloc frag; do
	t_is "$f: same map after a remount" \
		"$(filefrag -v "$M/$f" | grep -v '^Filesystem')" "$(cat "/tmp/$f.map")"
done
t_is "xattr map after a remount" "$(xfs_io -c "fiemap -a -v" "$M/xa")" \
	"$(cat /tmp/xa.map)"
t_is "and it holds the value" "$(xattr_map "$M/xa" fiemap-xattr-one)" "1 0x301 1"
check "dense after remount" "$M/dense" "0-255"
t_ok "umount" nova_umount
t_done

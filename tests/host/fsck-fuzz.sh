#!/usr/bin/env bash
# mkfs.NOVA and fsck.NOVA as programs, on image files: exit statuses and
# messages of the option checks, refusal to overwrite other file systems,
# mkfs then fsck clean, and a subprocess fuzz loop (random damage to the
# metadata, fsck.NOVA under a timeout: it must neither crash nor hang, and
# -y must either leave a clean image or say that it could not). A real
# kernel-written image is fuzzed too when one is available (NOVA_REAL_IMAGE,
# or the one tests/guest/tools-fsck.sh leaves in build/test-results).
#
# NOVA_FUZZ_ITERS scales the loop (default 100 per image; the in-process
# unit test tests/unit/test-fsck-fuzz.c does thousands).
set -uo pipefail
# shellcheck source=../../qemu/lib.sh
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
bin=$(nova_build_dir)/bin
mkfs=$bin/mkfs.NOVA
fsck=$bin/fsck.NOVA
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nova-fsck-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
iters=${NOVA_FUZZ_ITERS:-100}
img=$tmp/img

# status CMD...: the exit status of CMD (output to $tmp/out)
status() {
	"$@" > "$tmp/out" 2>&1
	echo $?
}

t_ok "mkfs.NOVA and fsck.NOVA are built" test -x "$mkfs" -a -x "$fsck"

# ---- mkfs.NOVA options ----
truncate -s 64M "$img"
t_is "mkfs.NOVA on a 64 MiB file" "$(status "$mkfs" -q -L lab -U 0b2c7a1e-3f4d-4e5f-8a9b-0c1d2e3f4a5b "$img")" 0
t_is "fsck.NOVA finds it clean" "$(status "$fsck" -n "$img")" 0
t_ok "report says clean" grep -q "clean" "$tmp/out"
t_is "label stored" "$(dd if="$img" bs=1 skip=64 count=3 status=none)" lab
t_is "UUID stored" "$(od -An -tx1 -j48 -N4 "$img" | tr -d ' ')" 0b2c7a1e
t_is "replica superblock equals the primary" \
	"$(cmp <(dd if="$img" bs=512 count=1 status=none) \
	       <(dd if="$img" bs=4096 skip=$((64 * 256 - 1)) count=1 status=none | head -c 512) && echo same)" same
t_is "fsck -p on a clean fs skips the check" "$(status "$fsck" -p "$img")" 0
t_ok "... and says so" grep -q "clean (use -f" "$tmp/out"
t_is "fsck -f -p checks anyway" "$(status "$fsck" -f -p "$img")" 0
t_is "fsck -y on a clean fs changes nothing" \
	"$(sum < "$img"; "$fsck" -y "$img" > /dev/null; sum < "$img")" "$(sum < "$img"; sum < "$img")"

t_is "refuses an existing NOVA without -f" "$(status "$mkfs" "$img")" 1
t_ok "... naming it" grep -q "contains a NOVA signature; use -f" "$tmp/out"
t_is "-f overwrites it" "$(status "$mkfs" -q -f "$img")" 0
if command -v mke2fs > /dev/null; then
	mke2fs -q -F -t ext4 "$img" > /dev/null 2>&1
	t_is "refuses an ext4 image without -f" "$(status "$mkfs" "$img")" 1
	t_ok "... naming it" grep -q "ext2/ext3/ext4" "$tmp/out"
	t_is "-f overwrites ext4" "$(status "$mkfs" -q -f "$img")" 0
	t_is "... and the result is clean" "$(status "$fsck" "$img")" 0
else
	t_skip "refuses an ext4 image" "no mke2fs"
fi
before=$(sum < "$img")
t_is "-n writes nothing" "$(status "$mkfs" -n -f "$img"; sum < "$img")" "0
$before"

for args in "-U 1234" "-U 0b2c7a1e-3f4d-4e5f-8a9b-0c1d2e3f4a5" "-U 0b2c7a1e+3f4d-4e5f-8a9b-0c1d2e3f4a5b" \
	    "-L 0123456789012345678901234567890123456789" "-c 0" "-c 65" "-c two" "-c" "-x" ""; do
	# shellcheck disable=SC2086
	t_is "mkfs.NOVA $args fails" "$(status "$mkfs" -f $args ${args:+"$img"})" 1
done
t_ok "bad UUID message" sh -c "'$mkfs' -U 1234 '$img' 2>&1 | grep -q 'bad UUID'"
t_ok "long label message" sh -c "'$mkfs' -L 0123456789012345678901234567890123 '$img' 2>&1 | grep -q 'too long'"
t_ok "CPU range message" sh -c "'$mkfs' -c 65 '$img' 2>&1 | grep -q '1..64'"
truncate -s 4M "$tmp/small"
t_is "refuses a 4 MiB file" "$(status "$mkfs" "$tmp/small")" 1
t_ok "... saying it is too small" grep -q "too small" "$tmp/out"
truncate -s 64M "$tmp/cpus"
t_is "refuses 64 stripes on 64 MiB" "$(status "$mkfs" -c 64 "$tmp/cpus")" 1
# With inode replicas (the default) every stripe takes two 2 MiB tables.
t_is "refuses 20 stripes on 64 MiB with inode replicas" "$(status "$mkfs" -c 20 "$tmp/cpus")" 1
t_ok "... saying why" grep -q "inode tables (with replicas)" "$tmp/out"
t_is "accepts 10 stripes on 64 MiB" "$(status "$mkfs" -q -c 10 "$tmp/cpus")" 0
t_is "... clean" "$(status "$fsck" "$tmp/cpus")" 0
t_is "refuses a missing file" "$(status "$mkfs" "$tmp/nonexistent")" 1
t_is "refuses a directory" "$(status "$mkfs" "$tmp")" 1

# ---- fsck.NOVA statuses ----
t_is "fsck.NOVA without a device: usage (16)" "$(status "$fsck")" 16
t_is "fsck.NOVA -n -y: usage (16)" "$(status "$fsck" -n -y "$img")" 16
t_is "fsck.NOVA -z: usage (16)" "$(status "$fsck" -z "$img")" 16
t_is "fsck.NOVA on a missing file: 8" "$(status "$fsck" "$tmp/nonexistent")" 8
t_is "fsck.NOVA on a 4 MiB file: 8" "$(status "$fsck" "$tmp/small")" 8
t_ok "... too small" grep -q "too small" "$tmp/out"
truncate -s 16M "$tmp/zeros"
t_is "fsck.NOVA on zeros: 8" "$(status "$fsck" "$tmp/zeros")" 8
t_ok "... no NOVA found" grep -q "no NOVA file system" "$tmp/out"
"$mkfs" -q -f "$img"
printf 'XXXX' | dd of="$img" bs=1 seek=100 conv=notrunc status=none
t_is "damaged primary: 4 with -n" "$(status "$fsck" -n "$img")" 4
t_is "damaged primary: 1 with -y" "$(status "$fsck" -y "$img")" 1
t_ok "... saying what it repaired" grep -q "REPAIRED: rewrote the primary superblock" "$tmp/out"
t_is "then clean: 0" "$(status "$fsck" -n "$img")" 0

# ---- fuzzing through the program ----
# damage IMG N: N random byte changes in the metadata (fixed blocks, the
# replica, inode table slots in use, journal rings and log pages).
cat > "$tmp/damage.py" <<'PY'
import os, random, struct, sys
path, seed = sys.argv[1], int(sys.argv[2])
r = random.Random(seed)
size = os.path.getsize(path)
nblocks = size // 4096
with open(path, "r+b") as f:
    data = bytearray(f.read())
    regions = [(0, 512), (4096, 4096), (8192, 4096), (12288, 4096),
               ((nblocks - 1) * 4096, 512)]
    for b in range(4, nblocks - 1):
        tail = data[b * 4096 + 4032: b * 4096 + 4064]
        if tail[16:24] == b"\0" * 8 or tail[24:28] != b"GOLN":
            continue
        # the entries written to the log page (up to a pad), and its tail
        pos = 0
        while pos + 24 <= 4032:
            t, size = data[b * 4096 + pos], struct.unpack_from("<H", data, b * 4096 + pos + 2)[0]
            if t == 0 or size < 24 or size % 8 or pos + size > 4032:
                break
            pos += size
        if pos:
            regions.append((b * 4096, pos))
        regions.append((b * 4096 + 4032, 32))
    cpus = struct.unpack_from("<I", data, 24)[0]
    for c in range(min(cpus, 64)):
        head = struct.unpack_from("<Q", data, 12288 + 64 * c)[0]
        if 4 <= head < nblocks - 512:
            regions.append((head * 4096, 4096))
            regions.append((head * 4096 + 8191 * 256, 256))
        jb = struct.unpack_from("<Q", data, 8192 + 64 * c + 16)[0]
        if 4 <= jb < nblocks - 1:
            regions.append((jb * 4096, 4096))
    for _ in range(r.randint(1, 6)):
        off, n = r.choice(regions)
        if r.random() < 0.25 and n >= 8:
            o = off + 8 * r.randrange(n // 8)
            v = r.choice([0, 1, 4096, 2 ** 64 - 1, r.randrange(nblocks + 8) * 4096,
                          struct.unpack_from("<Q", data, o)[0] + 8 * r.randint(-64, 64)])
            struct.pack_into("<Q", data, o, v % 2 ** 64)
        else:
            o = off + r.randrange(n)
            data[o] ^= r.randint(1, 255)
    f.seek(0)
    f.write(data)
PY

# fuzz NAME IMAGE: the loop on copies of IMAGE
fuzz() {
	local name=$1 base=$2 i st st2 crashes=0 hangs=0 badst=0 lies=0 detected=0
	for ((i = 0; i < iters; i++)); do
		cp "$base" "$tmp/f"
		python3 "$tmp/damage.py" "$tmp/f" "$((i * 7919 + 17))"
		timeout 20 "$fsck" -n "$tmp/f" > "$tmp/fout" 2>&1
		st=$?
		case $st in
		0) ;;
		4|8) detected=$((detected + 1)) ;;
		124) hangs=$((hangs + 1)); t_diag "$name: fsck -n hung on seed $((i * 7919 + 17))" ;;
		*) if [ "$st" -ge 128 ]; then crashes=$((crashes + 1)); else badst=$((badst + 1)); fi
		   t_diag "$name: fsck -n exited $st on seed $((i * 7919 + 17))" ;;
		esac
		if [ $((i % 3)) -eq 0 ]; then
			timeout 20 "$fsck" -y "$tmp/f" > "$tmp/fout" 2>&1
			st=$?
			timeout 20 "$fsck" -n "$tmp/f" > "$tmp/fout2" 2>&1
			st2=$?
			if [ "$st" -ge 124 ] || [ "$st2" -ge 124 ]; then
				crashes=$((crashes + 1))
				t_diag "$name: fsck -y/-n exited $st/$st2 on seed $((i * 7919 + 17))"
			elif { [ "$st" = 1 ] || [ "$st" = 0 ]; } && [ "$st2" != 0 ]; then
				lies=$((lies + 1))
				t_diag "$name: -y returned $st but -n then $st2 (seed $((i * 7919 + 17)))"
			fi
		fi
	done
	t_is "$name: $iters damaged images, no crash" "$crashes" 0
	t_is "$name: no hang" "$hangs" 0
	t_is "$name: only fsck(8) statuses 0, 4, 8 from -n" "$badst" 0
	t_is "$name: -y that reports success leaves a clean fs" "$lies" 0
	t_ok "$name: most damage detected ($detected of $iters)" test "$((detected * 2))" -gt "$iters"
}

truncate -s 16M "$tmp/fresh"
"$mkfs" -q -c 2 "$tmp/fresh"
fuzz "fresh image" "$tmp/fresh"

real=${NOVA_REAL_IMAGE:-}
if [ -z "$real" ]; then
	real=$(find "$(nova_build_dir)/test-results" -name '*nova-real.img.gz' \
		-printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n1 | cut -d' ' -f2-)
fi
if [ -n "$real" ] && [ -f "$real" ]; then
	case $real in
	*.gz) gzip -dc "$real" > "$tmp/real" ;;
	*) cp "$real" "$tmp/real" ;;
	esac
	t_is "the real image ($real) is clean" "$(status "$fsck" -f -n "$tmp/real")" 0
	iters=$(( (iters + 3) / 4 ))	# 256 MiB a copy: fewer rounds
	fuzz "real image" "$tmp/real"
	unit=$(nova_build_dir)/tests/unit/test-fsck-fuzz
	if [ -x "$unit" ]; then
		t_ok "in-process fuzz of the real image" env NOVA_FUZZ_IMAGE="$tmp/real" NOVA_FUZZ_ITERS=1500 "$unit"
	fi
else
	t_skip "fuzz a real kernel-written image" "none saved yet (tests/guest/tools-fsck.sh saves one)"
fi
t_done

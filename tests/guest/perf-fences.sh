#!/bin/bash
# One persistence round per write (issue 25). NOVA counts its fences and
# cache write-back calls (module/pmem.h; read-only module parameters
# /sys/module/nova/parameters/fences and flushes). A 4 KiB overwrite
# costs exactly 2 fences with full protection and with protection off:
# the data, the log entry and its mirror, and both copies of the log tail
# (slot and replica) are written, one fence, the tail words stored, one
# fence. The garbage-collection hints (lt_valid, lt_entries, the invalid
# flag, fw_dead_pages) are plain stores, not written back, so nothing may
# depend on them being durable: after they are reset to the state a crash
# leaves when none reached the media, overwrites still collect the log,
# the data is right and fsck.NOVA finds nothing.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
P=/sys/module/nova/parameters
media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }

# overwrites FILE N: N 4 KiB pwrites at page offsets of FILE (1 MiB),
# counters read around each; prints "fences flushes" as the most common
# per-write count of each, then "max fences", "total fences".
overwrites() {
	python3 - "$1" "$2" "$P" <<'PY'
import collections, os, random, sys
path, n, p = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def cnt(name):
    with open(os.path.join(p, name)) as f:
        return int(f.read())
fd = os.open(path, os.O_WRONLY)
rnd = random.Random(25)
buf = bytes(rnd.getrandbits(8) for _ in range(4096))
fen, fl = [], []
for i in range(n):
    f0, l0 = cnt("fences"), cnt("flushes")
    os.pwrite(fd, buf, rnd.randrange(256) * 4096)
    fen.append(cnt("fences") - f0)
    fl.append(cnt("flushes") - l0)
os.close(fd)
mode = lambda v: collections.Counter(v).most_common(1)[0][0]
print(mode(fen), mode(fl), max(fen), sum(fen))
PY
}

t_ok "the fences counter is exported" test -r $P/fences
t_ok "the flushes counter is exported" test -r $P/flushes

for opts in "" protection=off; do
	name=${opts:-default protection}
	t_ok "$name: format and mount" nova_mount_init "$opts"
	dd if=/dev/urandom of="$M/f" bs=1M count=1 status=none
	sync
	read -r fences flushes maxf total <<< "$(overwrites "$M/f" 500)"
	t_diag "$name: 500 overwrites: $fences fences and $flushes write-back calls per write (most common), at most $maxf, $total fences in all"
	t_is "$name: 2 fences per 4 KiB overwrite" "$fences" 2
	# Extending the log (a new page and its mirror, fast GC) adds rounds
	# to one write in about fifty; the average stays close to 2.
	t_ok "$name: fewer than 2.5 fences per write on average" \
		test $((total * 10)) -lt $((500 * 25))
	t_ok "$name: unmount" nova_umount
done

# Hints lost. A file overwritten many times has a log of several pages
# full of superseded entries, all marked invalid.
t_ok "format and mount" nova_mount_init
dd if=/dev/urandom of="$M/g" bs=1M count=1 status=none
python3 - "$M/g" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for i in range(600):
    os.pwrite(fd, (b"%08d" % i) * 512, (i % 200) * 4096)
os.close(fd)
PY
ino=$(stat -c %i "$M/g")
want=$(sha256sum < "$M/g")
lp0=$(( $(stat -c %b "$M/g") / 8 - 256 ))
t_ok "unmount" nova_umount
out=$(media lose-hints "$NOVA_PMEM" "$ino")
t_diag "hints reset in (log pages, entries): $out"
t_ok "the log has several pages" test "${out% *}" -gt 3
t_ok "fsck.NOVA: clean with every hint lost" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount" nova_mount
t_is "the data is intact" "$(sha256sum < "$M/g")" "$want"
python3 - "$M/g" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for i in range(3000):
    os.pwrite(fd, (b"%08d" % (i + 600)) * 512, (i % 200) * 4096)
os.close(fd)
PY
lp=$(( $(stat -c %b "$M/g") / 8 - 256 ))
t_diag "log pages before the hints were lost: $lp0, after 3000 more overwrites: $lp"
# Uncollected, 3000 entries of 72 bytes would fill 54 pages.
t_ok "the log is still collected (fewer than 27 pages)" test "$lp" -lt 27
t_ok "unmount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount" nova_mount
t_ok "the last writes are there" python3 - "$M/g" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for p in range(200):
    last = max(i for i in range(3600) if i % 200 == p)
    if os.pread(fd, 4096, p * 4096) != (b"%08d" % last) * 512:
        sys.exit("page %d: not write %d" % (p, last))
PY
t_ok "unmount" nova_umount
t_done

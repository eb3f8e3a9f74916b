#!/bin/bash
# Windowed thorough GC (gc.c): the work item compacts a regular file's
# log a window of pages at a time, giving up its locks between windows.
# 1. A 32 MiB file takes 250,000 random 4 KiB overwrites, which leave a
#    log far larger than its live entries: the work item must compact it
#    (thorough GC counters up, the log pages down to a few times the live
#    entries), the content must equal a reference copy, also after a
#    remount, and fsck.NOVA must be clean. The longest and 99th percentile
#    pwrite(2) latency while GC ran are TAP comments, for the windowed work
#    item and (test builds, nova.gc_whole_work) for the whole-log one.
# 2. Every kind of entry a file log holds (overwrites, partial overwrites,
#    truncations down and up, a size change without a time, punched
#    holes, chmod, utimes, extended attributes set, replaced, removed,
#    hard links), collected window by window through the test hook
#    nova.gc_windowed_requests (which also keeps the work item to windows
#    alone) and novactl gc: what the tree shows
#    (gc-state.py: sizes, times, modes, links, contents, holes) and the
#    extended attributes must be the same after the collection and after a
#    remount.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
HOOK=/sys/module/nova/parameters/gc_windowed_requests
WHOLE=/sys/module/nova/parameters/gc_whole_work
REF=$(mktemp -d)
trap '[ -w "$HOOK" ] && echo 0 > "$HOOK"; [ -w "$WHOLE" ] && echo 0 > "$WHOLE"; rm -rf "$REF"' EXIT
state() { python3 "$NOVA_TOP/tests/guest/gc-state.py" "$1"; }
xattrs() { (cd "$1" && getfattr -d -m - -R . 2>/dev/null); }
PAGES=8192
log_pages() {	# log pages of FILE of $PAGES data pages (blocks = data + log)
	echo $(( $(stat -c %b "$1") / 8 - PAGES ))
}

# overwrite FILE REF: 250,000 random 4 KiB pwrite(2)s of both; prints the
# longest and the 99th percentile latency of those to FILE
overwrite() {
	python3 - "$1" "$2" $PAGES 250000 <<'PY'
import os, random, sys, time
f = os.open(sys.argv[1], os.O_WRONLY)
r = os.open(sys.argv[2], os.O_WRONLY)
pages, n = int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(25)
buf = os.urandom(1 << 20)
lat = []
for i in range(n):
    p = rnd.randrange(pages)
    j = rnd.randrange((1 << 20) - 4096)
    d = buf[j:j + 4096]
    t = time.monotonic()
    os.pwrite(f, d, p * 4096)
    lat.append(time.monotonic() - t)
    os.pwrite(r, d, p * 4096)
os.close(f)
os.close(r)
lat.sort()
print("max_ms=%.2f p99_ms=%.3f p999_ms=%.3f" %
      (lat[-1] * 1000, lat[n * 99 // 100] * 1000, lat[n * 999 // 1000] * 1000))
PY
}
gc_settle() {	# wait for the work item's last pass
	local a i
	for i in $(seq 1 60); do
		a=$(nova_fs_stat gc.thorough_pages); sleep 1
		[ "$a" = "$(nova_fs_stat gc.thorough_pages)" ] && break
	done
}

t_ok "format and mount (noatime)" nova_mount_init noatime
t_ok "a 32 MiB reference file" dd if=/dev/urandom of="$REF/big" bs=1M count=32 status=none
# Before windows: the work item compacting the whole log under the locks.
if [ -w "$WHOLE" ]; then
	echo 1 > "$WHOLE"
	cp "$REF/big" "$REF/big0" && cp "$REF/big" "$M/big0"
	out=$(overwrite "$M/big0" "$REF/big0")
	gc_settle
	t_diag "whole-log work item: pwrite latency $out"
	t_ok "whole-log work item: content equals the reference" cmp "$M/big0" "$REF/big0"
	echo 0 > "$WHOLE"
	rm -f "$M/big0" "$REF/big0"
fi
t_ok "the file to overwrite" cp "$REF/big" "$M/big"
runs0=$(nova_fs_stat gc.thorough_runs)
pages0=$(nova_fs_stat gc.thorough_pages)
out=$(overwrite "$M/big" "$REF/big")
t_ok "250000 random overwrites" test -n "$out"
t_diag "windowed work item: pwrite latency $out"
gc_settle
runs=$(( $(nova_fs_stat gc.thorough_runs) - runs0 ))
freed=$(( $(nova_fs_stat gc.thorough_pages) - pages0 ))
lp=$(log_pages "$M/big")
t_diag "windowed passes: $runs, log pages freed by them: $freed, log pages now: $lp"
t_ok "the work item compacted the log ($runs passes)" test "$runs" -ge 1
t_ok "its windows freed log pages ($freed >= 100)" test "$freed" -ge 100
# 8192 live write entries, 56 to a page: 147 pages; 250000 entries: 4465.
t_ok "the log came down ($lp < 1200 pages, 4465 written)" test "$lp" -lt 1200
t_ok "content equals the reference" cmp "$M/big" "$REF/big"
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount again" nova_mount noatime
t_ok "content after the remount" cmp "$M/big" "$REF/big"
rm -f "$M/big"

if [ ! -w "$HOOK" ]; then
	t_skip "collection window by window on request" "a production nova.ko (no test hooks)"
	t_done
fi
# Windows only, from here on: the work item does not follow its windows
# with a whole-log pass, which would leave a request nothing to drop.
t_ok "set nova.gc_windowed_requests" sh -c "echo 1 > $HOOK"
t_ok "a file log with every kind of entry" python3 - "$M" <<'PY'
import ctypes, os, sys
m = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
def pat(n, seed):
    return bytes((i * 31 + seed) % 251 for i in range(n))
def punch(fd, off, ln):	# FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
    if libc.fallocate(fd, 3, ctypes.c_long(off), ctypes.c_long(ln)):
        raise OSError(ctypes.get_errno(), "fallocate")
os.mkdir(m + "/d")
fd = os.open(m + "/d/mix", os.O_CREAT | os.O_RDWR, 0o644)
os.pwrite(fd, pat(1 << 20, 1), 0)
for i in range(3000):
    p = (i * 37) % 256
    os.pwrite(fd, pat(4096 * (1 + i % 3), i), p * 4096)
    if i % 50 == 0:
        os.fchmod(fd, 0o600 | (i & 0o77))
        os.utime(fd, ns=(i * 1000000007, i * 1000000009))
    if i % 97 == 0:
        os.setxattr(m + "/d/mix", "user.a%d" % (i % 5), pat(100 + i % 300, i))
    if i % 131 == 0:
        try:
            os.removexattr(m + "/d/mix", "user.a%d" % ((i + 2) % 5))
        except OSError:
            pass
    if i % 400 == 0:
        punch(fd, (i % 200) * 4096, 5 * 4096)
    if i % 700 == 0:
        os.ftruncate(fd, 300000 + i)
        os.ftruncate(fd, 1 << 20)
    if i % 900 == 0:
        os.link(m + "/d/mix", m + "/d/l%d" % i)
os.unlink(m + "/d/l900")
os.setxattr(m + "/d/mix", "user.big", pat(3000, 9))
os.setxattr(m + "/d/mix", "user.big", pat(2000, 8))
os.close(fd)
# a file whose newest write is cut away by a size change alone (truncate(2)
# by name: no time change), so its mtime comes from that write
fd = os.open(m + "/d/cut", os.O_CREAT | os.O_RDWR, 0o644)
for i in range(2000):
    os.pwrite(fd, pat(4096, i), (i % 40) * 4096)
os.utime(fd, ns=(5, 7))
os.pwrite(fd, pat(4096, 3), 50 * 4096)
os.close(fd)
os.truncate(m + "/d/cut", 40 * 4096)
PY
before=$(state "$M/d")
xbefore=$(xattrs "$M/d")
p0=$(nova_fs_stat gc.thorough_pages)
t_ok "novactl gc of the files, window by window" sh -c \
	"novactl gc $M >/dev/null"
t_ok "windows freed log pages" test "$(nova_fs_stat gc.thorough_pages)" -gt "$p0"
t_is "the tree is the same after the collection" "$(state "$M/d")" "$before"
t_is "the extended attributes too" "$(xattrs "$M/d")" "$xbefore"
t_ok "clear nova.gc_windowed_requests" sh -c "echo 0 > $HOOK"
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount again" nova_mount noatime
t_is "the tree is the same after the remount" "$(state "$M/d")" "$before"
t_is "the extended attributes too" "$(xattrs "$M/d")" "$xbefore"
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean at the end" fsck.NOVA -n "$NOVA_PMEM"
t_done

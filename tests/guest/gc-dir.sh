#!/bin/bash
# Log garbage collection of directories: 1,000,000 files created and
# unlinked one at a time in one directory, then 200,000 more in batches of
# 1000; then a directory where 90% of 20,000 names are removed, which a
# thorough GC (started by the kernel itself) must compact. The logs must
# stay bounded, novactl gc must bring the device usage back to the
# baseline, the names must be right, also after a remount, and fsck.NOVA
# must find the file system clean. Timings are TAP comments.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
N=1000000
NB=200000
BATCH=1000
K=20000

used_blocks() {
	stat -f -c '%b %f' "$M" | awk '{ print $1 - $2 }'
}
dir_log_pages() {	# a directory has no data pages: st_blocks is its log
	echo $(( $(stat -c %b "$1") / 8 ))
}

t_ok "format and mount" nova_mount_init
# Log pages come with a mirror each (format 1.4, NOVA_FEATURE_LOG_REPLICA).
c=$(python3 "$NOVA_TOP/tests/guest/protect-media.py" layout "$NOVA_PMEM" |
	python3 -c "import json,sys; print(2 if json.load(sys.stdin)['incompat'] & 8 else 1)")
mkdir "$M/d"
base_used=$(used_blocks)
t_diag "baseline: $base_used blocks used"

t_timed "$N files created and unlinked one at a time" \
	nova-gc-load churn "$M/d" $N 1
# Live entries: the newest removal. Every create/unlink pair shares a page
# (or waits for the page of the one before), so fast GC frees all pages but
# the tail page at each extension, which then doubles what is left.
lp=$(dir_log_pages "$M/d")
t_diag "log pages of the directory after $N create/unlink pairs: $lp"
t_ok "directory log bounded ($lp <= 4)" test "$lp" -le 4
t_is "the directory is empty" "$(ls -A "$M/d" | wc -l)" 0

t_timed "$NB files created and unlinked $BATCH at a time" \
	nova-gc-load churn "$M/d" $NB $BATCH b
# At most BATCH names are live; their entries (72 bytes each, 56 a page)
# and the removals waiting for the pages of the bindings they cancel fill
# 2 * 18 pages; fast GC frees the rest, an extension at most doubles.
lp=$(dir_log_pages "$M/d")
t_diag "log pages after the batched churn: $lp"
t_ok "directory log bounded ($lp <= 2 * 2 * 18 + 2)" test "$lp" -le 74

ino=$(stat -c %i "$M/d")
out=$(novactl gc --json --inode "$ino" "$M")
t_is "novactl gc --inode succeeds" "$?" 0
t_diag "novactl gc --inode $ino: $out"
t_is "it collected one inode" "$(gc_field "$out" inodes)" 1
t_is "it reports the inode" "$(gc_field "$out" inode)" "$ino"
lp=$(dir_log_pages "$M/d")
t_is "the empty directory's log is one page after novactl gc" "$lp" 1
t_is "reported log pages after" "$(gc_field "$out" log_pages_after)" 1
used=$(used_blocks)
t_diag "blocks used: $base_used before, $used after (the directory's log page, $c copies)"
t_ok "device usage back to the baseline ($used <= $base_used + $c)" \
	test "$used" -le $((base_used + c))

# --- thorough GC by the kernel itself ---
mkdir "$M/k"
runs0=$(gc_stat thorough_runs)
t_timed "$K names created in one directory" python3 -c "
import os
for i in range($K):
    os.close(os.open('$M/k/n%06d' % i, os.O_CREAT | os.O_WRONLY, 0o644))
"
t_timed "90% of them removed" python3 -c "
import os
for i in range($K):
    if i % 10:
        os.unlink('$M/k/n%06d' % i)
"
before=$(dir_log_pages "$M/k")
# Keep the log growing (names come and go) so that it needs new pages:
# the extension sees that the live names fill far less than half of it.
t_ok "churn in the sparse directory" nova-gc-load churn "$M/k" 4000 1 t
runs=$(gc_stat thorough_runs)
for i in $(seq 1 30); do
	[ "$runs" -gt "$runs0" ] && break
	sleep 1
	runs=$(gc_stat thorough_runs)
done
after=$(dir_log_pages "$M/k")
t_diag "sparse directory: $before log pages before, $after after; thorough runs $runs0 -> $runs, $(gc_stat entries_copied) entries copied"
t_ok "a thorough GC ran by itself" test "$runs" -gt "$runs0"
# 2000 live names of 72 bytes fill 36 pages. A log is compacted when the
# live entries fill less than half of it as it is extended, and extensions
# double it: at most 4 * 36 pages (and a few for the work item's delay).
t_ok "the sparse log was compacted ($after <= 4 * 36 + 4, was $before)" \
	test "$after" -le 148
out=$(novactl gc --json --inode "$(stat -c %i "$M/k")" "$M")
t_is "novactl gc of the sparse directory" "$?" 0
after=$(dir_log_pages "$M/k")
t_diag "after novactl gc: $after log pages ($(gc_field "$out" entries_copied) entries copied)"
t_ok "on request, the live names in 36 pages and the closing entries ($after <= 37)" \
	test "$after" -le 37
python3 -c "print('\n'.join('n%06d' % i for i in range(0, $K, 10)))" > /tmp/gc-k.want
t_ok "the kept names are all there, nothing else" \
	sh -c "ls '$M/k' | sort | cmp - /tmp/gc-k.want"
t_ok "every kept name can be looked up" python3 -c "
import os
for i in range(0, $K, 10):
    os.stat('$M/k/n%06d' % i)
"
t_ok "readdir positions still work (telldir/seekdir walk)" python3 -c "
import os
n = sorted(os.listdir('$M/k'))
assert len(n) == $K // 10, len(n)
"

t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount again" nova_mount
t_ok "after the remount: the kept names, nothing else" \
	sh -c "ls '$M/k' | sort | cmp - /tmp/gc-k.want"
t_is "after the remount: the churned directory is empty" "$(ls -A "$M/d" | wc -l)" 0
t_ok "new names in the compacted directory" sh -c "touch '$M/k/new1' '$M/d/new2'"
t_ok "and removals" rm "$M/k/n000000" "$M/d/new2"
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean at the end" fsck.NOVA -n "$NOVA_PMEM"
rm -f /tmp/gc-k.want
t_done

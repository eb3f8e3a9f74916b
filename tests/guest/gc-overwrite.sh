#!/bin/bash
# Log garbage collection on a file overwritten again and again: the same
# 4 KiB block rewritten 1,000,000 times with pwrite(2). Fast GC must keep
# the file's log at a few pages, the device usage must come back to the
# baseline, the last write's content must be there, also after a remount,
# and fsck.NOVA must find the file system clean. Timings and rates are
# TAP comments; see docs/gc.md for what they mean.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
N=1000000
WARM=10000

used_blocks() {	# blocks in use, as statfs(2) reports them
	stat -f -c '%b %f' "$M" | awk '{ print $1 - $2 }'
}
file_log_pages() {	# log pages of FILE holding one data page
	echo $(( $(stat -c %b "$1") / 8 - 1 ))
}
rate_of() {	# the rate=R of nova-gc-load output
	sed -n 's/.*rate=\([0-9]*\).*/\1/p' <<< "$1"
}

t_ok "format and mount" nova_mount_init
# Log pages come with a mirror each (format 1.4, NOVA_FEATURE_LOG_REPLICA):
# the file system's counts are twice the file's.
c=$(python3 "$NOVA_TOP/tests/guest/protect-media.py" layout "$NOVA_PMEM" |
	python3 -c "import json,sys; print(2 if json.load(sys.stdin)['incompat'] & 8 else 1)")
base_used=$(used_blocks)
base_log=$(nova_fs_stat log_pages)
t_diag "baseline: $base_used blocks used, $base_log log pages"

out=$(nova-gc-load overwrite "$M/fresh" $WARM 0)
t_ok "$WARM overwrites of a fresh file" test -n "$(rate_of "$out")"
fresh_rate=$(rate_of "$out")
t_diag "fresh file: $out"
t_ok "fresh file holds the last write" nova-gc-load check "$M/fresh" $((WARM - 1))
rm "$M/fresh"

fast0=$(nova_fs_stat gc.fast_pages)
time0=$(nova_fs_stat gc.time_ns)
out=$(nova-gc-load overwrite "$M/f" $N 0)
t_ok "$N overwrites of the same block" test -n "$(rate_of "$out")"
t_diag "$N overwrites: $out"
t_ok "the file holds the last write" nova-gc-load check "$M/f" $((N - 1))

# Live entries: one write entry, and one setattr entry from the atime
# update of the last read ("check"). Fast GC frees every page before the
# tail page when the log is extended, and the extension doubles what is
# left: with the live entries in at most 2 pages, at most 4 pages.
lp=$(file_log_pages "$M/f")
t_diag "log pages of the file after $N overwrites: $lp (2 live entries)"
t_ok "the file's log stays bounded (<= 4 pages, got $lp)" test "$lp" -le 4
fslog=$(nova_fs_stat log_pages)
t_diag "log pages of the file system: $base_log before, $fslog after"
t_ok "file-system log pages bounded ($fslog <= $base_log + 4 * $c)" \
	test "$fslog" -le $((base_log + 4 * c))
used=$(used_blocks)
t_diag "blocks used: $base_used before, $used after (1 data block, $lp log pages, $c copies)"
t_ok "device usage back to the baseline plus the file ($used <= $base_used + 1 + 4 * $c)" \
	test "$used" -le $((base_used + 1 + 4 * c))
# 56 write entries fill a page; every extension frees the pages before it.
fast=$(( $(nova_fs_stat gc.fast_pages) - fast0 ))
gcns=$(( $(nova_fs_stat gc.time_ns) - time0 ))
secs=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' <<< "$out")
t_diag "fast GC freed $fast log pages in $gcns ns: $(awk -v g="$gcns" -v s="$secs" 'BEGIN { printf "%.2f%%", g / (s * 1e7) }') of the run"
t_ok "fast GC freed the dead pages ($fast >= $N / 56 - 8)" \
	test "$fast" -ge $((N / 56 - 8))

out=$(nova-gc-load overwrite "$M/f" $WARM $N)
t_ok "$WARM more overwrites of the collected file" test -n "$(rate_of "$out")"
gc_rate=$(rate_of "$out")
t_diag "rate: fresh file $fresh_rate/s, after $N overwrites $gc_rate/s"
t_ok "the file holds the last write" nova-gc-load check "$M/f" $((N + WARM - 1))

t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount again" nova_mount
t_ok "the last write survives the remount" \
	nova-gc-load check "$M/f" $((N + WARM - 1))
lp=$(file_log_pages "$M/f")
t_ok "the log is still bounded after the remount ($lp <= 4)" test "$lp" -le 4
t_ok "one more overwrite after the remount" nova-gc-load overwrite "$M/f" 100 7
t_ok "and its content" nova-gc-load check "$M/f" 106
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean at the end" fsck.NOVA -n "$NOVA_PMEM"
t_done

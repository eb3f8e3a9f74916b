#!/usr/bin/env bash
# Crash consistency of snapshots. A guest builds a tree, takes snapshot 1
# and records what it shows, counts the persistence barriers of a workload
# run with that snapshot live (pages overwritten, a file truncated and
# grown again, files unlinked, a directory removed, a file renamed over,
# snapshot 2 created, snapshot 1 deleted, snapshot 2 deleted), and then,
# boot after boot, runs that workload with the machine stopped after a
# chosen barrier (nova.crash_after_barriers). The next boot checks the cut
# image (tests/boot/snapshot-crash.guest): fsck.NOVA -n before and after
# recovery, the mount, snapshot 1's contents exact if it is still listed,
# and, after deleting every snapshot and file, free space back to the
# empty baseline.
#
# Quick mode (make test): 4 crash points, 6 boots. Long mode:
# NOVA_SNAP_CRASH_POINTS=30 tests/run.sh tests/boot/snapshot-crash.sh
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
work=${NOVA_RESULTS:-$(nova_build_dir)/test-results}/snapshot-crash
pmem=$work/pmem
rm -rf "$work"
mkdir -p "$work"

# snap_boot NAME VERIFY CRASH: one boot; sets $cut (1: stopped at the point)
prev=
snap_boot() {
	local name=$1 verify=$2 crash=$3 out=$work/$1 rc tap nf np klog
	mkdir -p "$out"
	{
		echo "SNAP_VERIFY=$verify"
		[ -z "$crash" ] || echo "SNAP_CRASH=$crash"
	} > "$out/snapshot-crash.env"
	if [ -n "$prev" ]; then
		for f in expect.sums expect.empty; do
			cp "$prev/$f" "$out/prev-$f" 2>/dev/null
		done
	fi
	qemu/run-guest.sh --out "$out" --pmem-dir "$pmem" --timeout 900 \
		tests/boot/snapshot-crash.guest > "$out/run.txt" 2>&1
	rc=$?
	tap=$out/results/01-snapshot-crash.guest.tap
	nf=$(grep -c '^not ok' "$tap" 2>/dev/null)
	np=$(grep -c '^ok' "$tap" 2>/dev/null)
	grep '^#' "$tap" 2>/dev/null | sed "s/^# /# $name: /"
	t_is "$name: guest checks ($np passed)" "${nf:-missing}" 0
	[ "${nf:-1}" = 0 ] || grep -A6 '^not ok' "$tap" | head -n 30 | sed 's/^/#   /'
	klog=$(tests/lib/klog-scan.sh "$out/console.log"; \
	       tests/lib/klog-scan.sh "$out/results/01-snapshot-crash.guest.klog")
	t_is "$name: kernel log has no oops, warning or nova error" "$klog" ""
	cut=0
	if [ "$rc" = 1 ] && grep -q 'nova: fault injection: crash point reached' "$out/console.log" &&
	   ! grep -q 'Kernel panic' "$out/console.log"; then
		cut=1
	elif [ "$rc" != 0 ]; then
		t_is "$name: the boot ends cleanly or at the crash point ($(cat "$out/host-status" 2>/dev/null))" "$rc" 0
	fi
	prev=$out
}

snap_boot boot00-count 0 0
total=$(cat "$work/boot00-count/snap-barriers" 2>/dev/null)
t_ok "the workload's barriers were counted (${total:-none})" test -n "$total"
[ -n "$total" ] || t_done
# The points: the very first barriers, then spread over the whole
# workload, the last one included.
n=${NOVA_SNAP_CRASH_POINTS:-4}
points=()
for ((i = 1; i <= n; i++)); do
	p=$(( total * i / n ))
	[ "$i" != 1 ] || p=2
	points+=("$p")
done
t_diag "crash points (of $total barriers): ${points[*]}"
# The count boot's workload finished: the first crash boot builds afresh.
prev=
reached=0
for ((i = 0; i < n; i++)); do
	snap_boot "$(printf 'boot%02d-crash-%s' $((i + 1)) "${points[i]}")" \
		"$([ "$i" = 0 ] && echo 0 || echo 1)" "${points[i]}"
	[ "$cut" = 1 ] && reached=$((reached + 1))
	# Not reached: the next boot checks a cleanly unmounted state.
	[ "$cut" = 1 ] || t_diag "crash point ${points[i]} not reached: the workload finished"
done
snap_boot "boot$(printf '%02d' $((n + 1)))-verify" 1 ""
t_ok "most crash points were reached ($reached of $n)" test "$reached" -ge $((n - 1))
rm -rf "$pmem"
t_done

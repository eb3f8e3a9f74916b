#!/usr/bin/env bash
# Crash consistency of snapshots. A guest builds a tree, takes snapshot 1,
# and runs a workload in phases (tests/boot/snapshot-crash.guest): changes
# to the live tree, snapshot 2 created, more changes, snapshot 3 created,
# more changes, then snapshot 2 (the middle one, whose keep list merges
# into snapshot 1), snapshot 1 and snapshot 3 (the last one: reclaim and
# log compaction) deleted. A first boot counts the persistence barriers
# of each phase; then, boot after boot, the workload runs with the
# machine stopped after barrier N of phase P (nova.crash_after_barriers,
# armed when P starts, so the point lands inside P even though the
# barrier count of the whole workload varies from boot to boot). The next
# boot checks the cut image: fsck.NOVA -n before and after recovery, the
# mount, every snapshot still listed showing exactly what it was taken of
# (snapshots 2 and 3 checked against a model of the tree run outside
# NOVA), and, after deleting every snapshot and file, free space back to
# the empty baseline. Until the deletes, readers browse snapshot 1 under
# .snapshots/ of the live mount, so the power is cut with views open; after
# each cut every snapshot must show its tree under .snapshots/ too.
#
# Quick mode (make test): the crash points in $quick below, at least one
# inside each delete and one inside a create; 7 boots. Long mode: every
# barrier of the phases with at most 8 (the creates and deletes), K
# points spread over each longer phase:
#   NOVA_SNAP_CRASH_POINTS=K tests/run.sh tests/boot/snapshot-crash.sh
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
. "$nova_top/tests/crash/host-lib.sh"
cd "$nova_top" || exit 1
crash_work=${NOVA_RESULTS:-$(nova_build_dir)/test-results}/snapshot-crash
crash_pmem=$crash_work/pmem
rm -rf "$crash_work"
mkdir -p "$crash_work"
guest=tests/boot/snapshot-crash.guest
carry="expect1.sums expect2.sums expect3.sums expect.empty"
# PHASE:N, N a barrier number, "mid" or "last" (of the counted phase)
quick="live:2 create2:mid del2:last del1:last del3:mid"

crash_guest_boot boot00-count "$guest" "$carry" SNAP_VERIFY=0 SNAP_CRASH=count
counts=$crash_work/boot00-count/snap-barriers
t_ok "the barriers of every phase were counted ($(tr '\n' ' ' < "$counts" 2>/dev/null))" \
	test -s "$counts"
[ -s "$counts" ] || t_done
count_of() { awk -v p="$1" '$1 == p { print $2 }' "$counts"; }

points=()
if [ -n "${NOVA_SNAP_CRASH_POINTS:-}" ]; then
	while read -r phase total; do
		[ "$total" -gt 0 ] || continue
		k=$(( total < NOVA_SNAP_CRASH_POINTS ? total : NOVA_SNAP_CRASH_POINTS ))
		if [ "$total" -le 8 ] || [ "$k" = "$total" ]; then
			mapfile -t ns < <(seq 1 "$total")
		else
			mapfile -t ns < <(crash_spread "$total" "$k")
		fi
		for b in "${ns[@]}"; do points+=("$phase:$b"); done
	done < "$counts"
else
	for q in $quick; do
		phase=${q%%:*} b=${q#*:} total=$(count_of "${q%%:*}")
		[ -n "$total" ] && [ "$total" -gt 0 ] || continue
		case $b in
		mid) b=$(( (total + 1) / 2 )) ;;
		last) b=$total ;;
		esac
		points+=("$phase:$b")
	done
fi
n=${#points[@]}
t_diag "crash points (PHASE:BARRIER): ${points[*]}"
# The count boot's workload finished: the first crash boot builds afresh.
crash_guest_prev=
reached=0 where=()
for ((i = 0; i < n; i++)); do
	name=$(printf 'boot%02d-crash-%s' $((i + 1)) "${points[i]/:/-}")
	crash_guest_boot "$name" "$guest" "$carry" \
		"SNAP_VERIFY=$([ "$i" = 0 ] && echo 0 || echo 1)" "SNAP_CRASH=${points[i]}"
	if [ "$crash_cut" = 1 ]; then
		reached=$((reached + 1))
		# The phase the machine stopped in: the last one it started.
		in=$(grep -o 'nova-snapshot-crash: phase [a-z0-9]*' \
			"$crash_work/$name/console.log" | tail -n1 | awk '{ print $3 }')
		where+=("${points[i]}=$in/$crash_where")
		t_diag "$name: stopped in phase $in, in $crash_where"
	else
		# Not reached: the next boot checks a cleanly unmounted state.
		t_diag "crash point ${points[i]} not reached: the workload finished"
	fi
	t_ok "$name: the readers in .snapshots/one saw its tree unchanged" \
		sh -c "! grep -q 'view mismatch' '$crash_work/$name/console.log'"
done
crash_guest_boot "boot$(printf '%02d' $((n + 1)))-verify" "$guest" "$carry" SNAP_VERIFY=1
t_ok "most crash points were reached ($reached of $n)" test "$reached" -ge $((n - 1))
t_diag "where the cuts landed: ${where[*]}"
del=$(printf '%s\n' "${where[@]}" | grep -c '=del[0-9]/')
t_ok "cuts landed inside snapshot deletes ($del)" test "$del" -ge 1
rm -rf "$crash_pmem"
t_done

#!/usr/bin/env bash
# Crash consistency of log garbage collection. A guest builds a state that
# exercises both collectors (files overwritten in place, a file whose
# write entries must be trimmed, sparse directories), counts the
# persistence barriers a full "novactl gc" takes, and then, boot after
# boot, runs that collection with the machine stopped after a chosen
# barrier (nova.crash_after_barriers): inside fast GC's unlinks, inside a
# thorough GC before, during and after its journal transaction. The next
# boot checks the cut image (fsck.NOVA -n before and after recovery, the
# contents unchanged) and sets up the next crash point
# (tests/boot/gc-crash.guest). The boots: crash_guest_boot in
# tests/crash/host-lib.sh.
#
# Quick mode (make test): 6 crash points, 8 boots. Long mode:
# NOVA_GC_CRASH_POINTS=40 tests/run.sh tests/boot/gc-crash.sh. With
# NOVA_GC_WINDOWED=1 the collection compacts regular files window by
# window (the work item's way, nova.gc_windowed_requests), so the cuts
# fall inside windows: after a window's copy is durable and before or
# after the commit that swaps it in.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
. "$nova_top/tests/crash/host-lib.sh"
cd "$nova_top" || exit 1
crash_workdir gc-crash
guest=tests/boot/gc-crash.guest
carry="expect.sha expect.names expect.stat"

win="GC_WINDOWED=${NOVA_GC_WINDOWED:-0}"
crash_guest_boot boot00-count "$guest" "$carry" GC_VERIFY=0 GC_CRASH=0 "$win"
total=$(cat "$crash_work/boot00-count/gc-barriers" 2>/dev/null)
t_ok "the collection's barriers were counted (${total:-none})" test -n "$total"
[ -n "$total" ] || t_done
# The points: the very first barriers (fast GC of the first inodes), then
# spread over the whole collection, the last one included.
n=${NOVA_GC_CRASH_POINTS:-6}
mapfile -t points < <(crash_spread "$total" "$n")
t_diag "crash points (of $total barriers): ${points[*]}"
# The count boot's collection finished: the first crash boot builds afresh.
crash_guest_prev=
reached=0
for ((i = 0; i < n; i++)); do
	crash_guest_boot "$(printf 'boot%02d-crash-%s' $((i + 1)) "${points[i]}")" \
		"$guest" "$carry" "GC_VERIFY=$([ "$i" = 0 ] && echo 0 || echo 1)" \
		"GC_CRASH=${points[i]}" "$win"
	[ "$crash_cut" = 1 ] && reached=$((reached + 1))
	# Not reached: the next boot checks a cleanly unmounted state.
	[ "$crash_cut" = 1 ] || t_diag "crash point ${points[i]} not reached: the collection finished"
done
crash_guest_boot "boot$(printf '%02d' $((n + 1)))-verify" "$guest" "$carry" GC_VERIFY=1 "$win"
t_ok "most crash points were reached ($reached of $n)" test "$reached" -ge $((n - 1))
rm -rf "$crash_pmem"
t_done

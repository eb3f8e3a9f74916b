#!/bin/bash
# The crash tests' gc and mmap workloads (tests/crash/crashfs.py), run to
# the end without a crash: they must do what their crash points rely on.
# The gc workload (bursts of fsync'd overwrites, create/unlink churn,
# whole-fs novactl gc) must make fast GC free pages and thorough GC
# rewrite logs; both leave the tree the model expects, before and after
# a remount, and fsck.NOVA clean.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
W=/tmp/gc-workload
cfs() { NOVA_CONSOLE=/dev/null python3 "$NOVA_TOP/tests/crash/crashfs.py" "$@"; }

rm -rf "$W"
mkdir -p "$W"
t_ok "format and mount" nova_mount_init
cfs init "$W/m0.json"
t_ok "gc workload: 400 operations" \
	cfs run "$W/m0.json" "$W/acks1" --workload gc --seed 7 --max-ops 400 --seconds 400
fast=$(gc_stat fast_pages)
runs=$(gc_stat thorough_runs)
copied=$(gc_stat entries_copied)
t_diag "GC since mount: $fast log pages freed by fast GC, $runs thorough runs, $copied entries copied"
t_ok "fast GC freed log pages ($fast)" test "$fast" -gt 0
t_ok "thorough GC rewrote logs ($runs)" test "$runs" -gt 0
t_ok "the tree is what the model says" cfs verify "$W/m0.json" "$W/acks1" "$W/m1.json"
t_ok "mmap workload: 300 operations" \
	cfs run "$W/m1.json" "$W/acks2" --workload mmap --seed 8 --max-ops 300 --seconds 400
t_ok "the tree is what the model says" cfs verify "$W/m1.json" "$W/acks2" "$W/m2.json"
t_ok "remount" nova_remount
t_ok "the remount shows the same tree" cfs verify "$W/m2.json" "$W/m3.json"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
rm -rf "$W"
t_done

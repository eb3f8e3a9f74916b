#!/bin/bash
# Snapshot delete with much to reclaim: a snapshot that keeps ~50k data
# blocks in runs of different shapes (single-page overwrites, 4-page
# overwrites every other 16 KiB, one large overwrite) and one that keeps
# 5000 removed files. Each delete (with --wait) is timed: the request
# under the snapshot table lock and the reclaim worker separately (the
# figures are printed as TAP diagnostics and recorded in
# docs/snapshots.md), and after each the free blocks and inodes of
# statfs(2) must be back where they were before the snapshot was taken.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT

iused() { "$NOVA_SYS" statfs "$M" | awk '{ print $3 - $4 }'; }
now_us() { echo $(($(date +%s%N) / 1000)); }

# overwrite FILE CHUNK_PAGES STEP_PAGES: pwrite CHUNK pages every STEP pages.
overwrite() {
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
size = os.fstat(fd).st_size
chunk, step = int(sys.argv[2]) * 4096, int(sys.argv[3]) * 4096
buf = b"\xa5" * chunk
for off in range(0, size, step):
    os.pwrite(fd, buf, off)
os.fsync(fd)
os.close(fd)' "$@"
}

# The kernel's own time in nova_snapshot_delete() (the genl request, under
# the snapshot table lock) and in the reclaim worker that frees what it
# kept afterwards (nova_snap_reclaim_work(), no snapshot lock), from the
# function graph tracer when the guest kernel has it (else only the
# command's wall time).
T=/sys/kernel/tracing
ftrace_on() {
	[ -f "$T/tracing_on" ] ||
		mount -t tracefs nodev "$T" 2> /dev/null || return 1
	printf '%s\n' nova_snapshot_delete nova_snap_reclaim_work \
		> "$T/set_graph_function" 2> /dev/null || return 1
	echo 1 > "$T/max_graph_depth" && echo function_graph > "$T/current_tracer" &&
		echo > "$T/trace"
}
ftrace_us() {	# FUNCTION: the total duration of its calls traced, or "?"
	grep "$1" "$T/trace" 2> /dev/null | grep -o '[0-9.]* us' |
		awk '{ t += $1; n++ } END { if (n) printf "%.1f us", t; else print "? us" }'
}
FTRACE=0
ftrace_on && FTRACE=1

# timed_delete ID: delete snapshot ID and wait for its reclaim; print the
# command's wall time and the kernel time of the request and the worker.
timed_delete() {
	local t0 t1
	[ "$FTRACE" = 1 ] && echo > "$T/trace"
	t0=$(now_us)
	"$C" snapshot delete --wait "$M" "$1" > /dev/null || return 1
	t1=$(now_us)
	if [ "$FTRACE" = 1 ]; then
		echo "command $((t1 - t0)) us, request $(ftrace_us nova_snapshot_delete) (table lock held), worker $(ftrace_us nova_snap_reclaim_work)"
	else
		echo "command $((t1 - t0)) us (no function graph tracer)"
	fi
}

t_ok "format and mount" nova_mount_init
empty=$(nova_bfree)

# An anchor snapshot of the empty file system stays live until the end,
# so the deletes below are not of the last snapshot (which also compacts
# the snapshot log, measured separately at the end); it shows no block
# written after it, so it takes over nothing.
t_ok "snapshot 1 (anchor, of the empty file system)" "$C" snapshot create "$M"

# --- a baseline: delete of a snapshot that keeps nothing ---
t_ok "snapshot 2 (keeps nothing)" "$C" snapshot create "$M"
us=$(timed_delete 2)
t_ok "delete snapshot 2" test -n "$us"
t_diag "delete, nothing kept: $us"

# --- (a) ~50k kept blocks in runs of three shapes ---
dd if=/dev/urandom of="$M/single" bs=1M count=100 status=none
dd if=/dev/urandom of="$M/quad" bs=1M count=80 status=none
dd if=/dev/urandom of="$M/big" bs=1M count=40 status=none
sync
before=$(nova_bfree)
t_ok "snapshot 3" "$C" snapshot create "$M"
t_ok "overwrite 25600 single pages" overwrite "$M/single" 1 1
t_ok "overwrite 4 pages of every 8 (5120 runs)" overwrite "$M/quad" 4 8
t_ok "overwrite 40 MiB at once" overwrite "$M/big" 10240 10240
freed=$(nova_bfree)
kept=$((before - freed))
t_ok "the snapshot keeps at least 46080 blocks ($kept)" test "$kept" -ge 46080
us=$(timed_delete 3)
t_ok "delete snapshot 3" test -n "$us"
t_diag "delete, $kept blocks kept (25600 + 5120 runs + 1): $us"
t_ok "statfs: the kept blocks are free again" test $(($(nova_bfree) - freed)) -ge 46080

# --- (b) 5000 removed files ---
rm -f "$M/single" "$M/quad" "$M/big"
mkdir "$M/d"
python3 -c '
import os, sys
for i in range(5000):
    with open(os.path.join(sys.argv[1], "f%d" % i), "wb") as f:
        f.write(b"x" * 4096)' "$M/d"
sync
before=$(nova_bfree)
before_ino=$(iused)
t_ok "snapshot 4" "$C" snapshot create "$M"
t_ok "remove the 5000 files" rm -r "$M/d"
us=$(timed_delete 4)
t_ok "delete snapshot 4" test -n "$us"
t_diag "delete, 5000 removed files kept: $us"
t_ok "statfs: blocks back to before the files were removed, less theirs" \
	test "$(nova_bfree)" -ge $((before + 5000))
t_is "statfs: inodes back to before the files, less 5001" \
	"$(iused)" $((before_ino - 5001))

# --- the last snapshot: its delete compacts the snapshot log ---
us=$(timed_delete 1)
t_ok "delete snapshot 1, the last one" test -n "$us"
t_diag "delete of the last snapshot, compacting a log of ~36000 records: $us"
now=$(nova_bfree)
t_ok "blocks back to the empty baseline ($empty free empty, $now now)" \
	test $((empty - now)) -le 8
[ "$FTRACE" = 1 ] && echo nop > "$T/current_tracer"
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean after the reclaim" fsck.NOVA -n "$NOVA_PMEM"
t_done

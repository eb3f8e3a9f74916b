#!/bin/bash
# Snapshot delete with the background reclaim worker: the reply comes once
# the delete record is durable and the snapshot is gone from the list;
# what it alone kept is freed afterwards and shows in statfs(2) and in the
# snapshot_reclaim statistics. --wait (NOVA_SNAPSHOT_A_WAIT) returns only
# once it is free. An unmount or a remount read-only right after a delete
# must not lose the queued blocks (the saved allocator state has them
# free: the next mount, which trusts that state, and fsck.NOVA agree); the
# test hold (nova.snap_reclaim_hold, fault-injection builds) keeps the
# queue full until then, so that path is really taken. The flag is
# refused on create.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
GC="$NOVA_TOP/tests/guest/genl-client.py"
HOLD=/sys/module/nova/parameters/snap_reclaim_hold
trap '[ -w "$HOLD" ] && echo 0 > "$HOLD"' EXIT

iused() { "$NOVA_SYS" statfs "$M" | awk '{ print $3 - $4 }'; }
# reclaim FIELD: one member of "snapshot_reclaim" in novactl stats --json
reclaim() {
	"$C" stats --json "$M" | python3 -c '
import json, sys
print(json.load(sys.stdin)["filesystems"][0]["snapshot_reclaim"][sys.argv[1]])' "$1"
}
pending_zero() {
	[ "$(reclaim pending_blocks)" = 0 ] && [ "$(reclaim pending_inodes)" = 0 ]
}

# files DIR N: N one-page files in DIR
files() {
	mkdir -p "$1"
	python3 -c '
import os, sys
for i in range(int(sys.argv[2])):
    with open(os.path.join(sys.argv[1], "f%d" % i), "wb") as f:
        f.write(b"x" * 4096)' "$1" "$2"
}

# overwrite FILE: rewrite every page of FILE in place, one page at a time
overwrite() {
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
for off in range(0, os.fstat(fd).st_size, 4096):
    os.pwrite(fd, b"\x5a" * 4096, off)
os.close(fd)' "$1"
}

# A snapshot keeping about 20000 single-page runs and 2000 removed files.
# Prints nothing; leaves $M/a (80 MiB) and $M/d (2000 files) changed.
populate() {
	dd if=/dev/urandom of="$M/a" bs=1M count=80 status=none &&
		files "$M/d" 2000 && sync &&
		"$C" snapshot create -n "$1" "$M" > /dev/null &&
		overwrite "$M/a" && rm -r "$M/d"
}

t_ok "format and mount" nova_mount_init
empty=$(nova_bfree)
empty_ino=$(iused)
t_is "stats: nothing pending on a fresh file system" \
	"$(reclaim pending_blocks) $(reclaim pending_inodes) $(reclaim reclaimed_blocks)" "0 0 0"

# --- the flag is for delete only ---
res=$(python3 "$GC" request NOVA_CMD_SNAPSHOT_CREATE \
	--attr NOVA_A_FS_DEV:u64:"$(stat -c %d "$M")" \
	--attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_WAIT:flag:)
t_is "create with NOVA_SNAPSHOT_A_WAIT is refused (EINVAL, extack)" \
	"$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["name"], d["extack"])' "$res")" \
	"EINVAL a new snapshot takes only a name"

# --- 1: delete without waiting; the worker frees it afterwards ---
t_ok "snapshot 1 keeps ~20000 runs and 2000 removed files" populate one
before=$(nova_bfree)
t_ok "delete snapshot 1 (no wait)" "$C" snapshot delete "$M" one
t_is "snapshot 1 is gone from the list at once" \
	"$("$C" snapshot list --json "$M" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["snapshots"]))')" 0
t_diag "right after the reply: $(reclaim pending_blocks) blocks and $(reclaim pending_inodes) inodes pending"
t_ok "the worker empties the queue" wait_for 120 pending_zero
freed=$(($(nova_bfree) - before))
t_ok "statfs: >= 22000 blocks came back ($freed)" test "$freed" -ge 22000
t_ok "stats: reclaimed_blocks counts them ($(reclaim reclaimed_blocks))" \
	test "$(reclaim reclaimed_blocks)" -ge 22000
t_is "statfs: the 2000 removed inodes are free" "$(iused)" $((empty_ino + 1))

# --- 2: --wait returns once the space is free ---
t_ok "snapshot 2 keeps as much" populate two
before=$(nova_bfree)
t_ok "delete --wait snapshot 2" "$C" snapshot delete --wait "$M" two
t_is "stats: nothing pending when --wait returns" \
	"$(reclaim pending_blocks) $(reclaim pending_inodes)" "0 0"
freed=$(($(nova_bfree) - before))
t_ok "statfs: the space is free when --wait returns ($freed)" \
	test "$freed" -ge 22000

# --- 3: unmount with the queue full ---
if [ -w "$HOLD" ]; then
	t_ok "snapshot 3 keeps as much" populate three
	before=$(nova_bfree)
	echo 1 > "$HOLD"
	t_ok "delete snapshot 3 (no wait, reclaim held)" \
		"$C" snapshot delete "$M" three
	t_ok "stats: its runs and removed inodes are pending ($(reclaim pending_blocks), $(reclaim pending_inodes))" \
		test "$(reclaim pending_blocks)" -ge 20000 -a "$(reclaim pending_inodes)" -ge 2000
	t_ok "statfs: not free yet ($(($(nova_bfree) - before)) back)" \
		test $(($(nova_bfree) - before)) -lt 20000
	t_ok "unmount (drains the queue before saving the allocator)" nova_umount
	echo 0 > "$HOLD"
	t_ok "fsck.NOVA: clean (nothing leaked in the saved allocator)" \
		fsck.NOVA -n "$NOVA_PMEM"
	t_ok "mount again (clean: the saved allocator is used)" nova_mount
	t_is "stats: the mount was not a recovery" \
		"$("$C" stats --json "$M" | python3 -c 'import json,sys; print(json.load(sys.stdin)["filesystems"][0]["recovered"])')" False
	rm -f "$M/a"
	t_ok "blocks back to the empty baseline ($empty free empty, $(nova_bfree) now)" \
		test $((empty - $(nova_bfree))) -le 8
	t_is "inodes back to the empty baseline" "$(iused)" "$empty_ino"

	# --- 4: remount read-only with the queue full ---
	t_ok "snapshot 4 keeps as much" populate four
	echo 1 > "$HOLD"
	t_ok "delete snapshot 4 (no wait, reclaim held)" \
		"$C" snapshot delete "$M" four
	t_ok "stats: pending before the remount" \
		test "$(reclaim pending_blocks)" -ge 20000
	t_ok "remount read-only (drains the queue)" mount -o remount,ro "$M"
	echo 0 > "$HOLD"
	t_is "stats: nothing pending after remount,ro" \
		"$(reclaim pending_blocks) $(reclaim pending_inodes)" "0 0"
	out=$("$C" snapshot delete "$M" 99 -j)
	t_ok "delete on the read-only mount: EROFS" grep -q EROFS <<< "$out"
	t_ok "unmount" nova_umount
	t_ok "fsck.NOVA: clean after remount,ro" fsck.NOVA -n "$NOVA_PMEM"
	t_ok "mount again" nova_mount
	rm -f "$M/a"
	t_ok "blocks back to the empty baseline ($empty free empty, $(nova_bfree) now)" \
		test $((empty - $(nova_bfree))) -le 8
	t_is "inodes back to the empty baseline" "$(iused)" "$empty_ino"
else
	t_skip "unmount and remount,ro with reclaim queued" \
		"a production nova.ko (no test hooks: make test loads build/module-test/nova.ko)"
	rm -f "$M/a"
fi

# --- 5: writers proceed while the worker frees ---
t_ok "snapshot 5 keeps as much" populate five
dd if=/dev/urandom of="$M/b" bs=1M count=8 status=none
t_ok "snapshot 6 (shows b)" "$C" snapshot create -n six "$M"
"$C" snapshot delete "$M" five > /dev/null
t_ok "overwrite b (each page asks the epoch check) while snapshot 5 is reclaimed" \
	overwrite "$M/b"
t_ok "the queue empties" wait_for 120 pending_zero
t_ok "delete --wait snapshot 6" "$C" snapshot delete --wait "$M" six
rm -f "$M/a" "$M/b"
t_ok "blocks back to the empty baseline ($empty free empty, $(nova_bfree) now)" \
	test $((empty - $(nova_bfree))) -le 8
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean at the end" fsck.NOVA -n "$NOVA_PMEM"
t_done

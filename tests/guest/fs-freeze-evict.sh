#!/bin/bash
# A frozen NOVA file system is not written. The last close of an unlinked
# file frees the inode (evict), which writes PMEM; while the file system
# is frozen (fsfreeze -f) that close must wait for the thaw: during the
# freeze the closing task stays blocked, free space does not move and no
# persistence barrier is taken; after fsfreeze -u the close completes
# and the space comes back. The same for an O_TMPFILE file. Snapshot
# create and delete are refused while frozen, and a user's freeze racing
# snapshot creation never sees the medium written. Then fsck is clean (and
# the kernel log shows no warning or hung task: the harness checks).
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)

# holder NAME KIND: keep a file open in the background until $T/NAME.go
# is written to, then close it and record that in $T/NAME.closed. KIND
# "unlinked": $M/NAME, 2 MiB, unlinked while open; "tmpfile": O_TMPFILE.
holder() {
	mkfifo "$T/$1.go"
	python3 - "$M" "$1" "$2" "$T" <<'PY' &
import os, sys
m, name, kind, t = sys.argv[1:]
if kind == "tmpfile":
    fd = os.open(m, os.O_TMPFILE | os.O_RDWR, 0o600)
else:
    fd = os.open(os.path.join(m, name), os.O_CREAT | os.O_RDWR, 0o600)
os.write(fd, os.urandom(2 << 20))
if kind != "tmpfile":
    os.unlink(os.path.join(m, name))
open(os.path.join(t, name + ".ready"), "w").close()
open(os.path.join(t, name + ".go")).read()
os.close(fd)	# the last reference: evict runs here
open(os.path.join(t, name + ".closed"), "w").close()
PY
	holder_pid=$!
}

check_frozen_close() {	# NAME KIND
	local name=$1 free0 fences
	holder "$name" "$2"
	t_ok "$name: open, written, $2" wait_for 60 test -e "$T/$name.ready"
	free0=$(nova_bfree)
	t_ok "$name: fsfreeze -f" fsfreeze -f "$M"
	barrier_count_start
	echo go > "$T/$name.go"
	sleep 3
	t_fail "$name: the last close waits while the file system is frozen" \
		test -e "$T/$name.closed"
	t_is "$name: free space unchanged while frozen" "$(nova_bfree)" "$free0"
	fences=$(barrier_count)
	t_is "$name: no persistence barrier while frozen" "$fences" 0
	t_ok "$name: fsfreeze -u" fsfreeze -u "$M"
	t_ok "$name: the close completes after the thaw" wait_for 60 test -e "$T/$name.closed"
	wait "$holder_pid"
	t_is "$name: the holder exited cleanly" "$?" 0
	t_ok "$name: its 512 blocks are free again ($free0 before, $(nova_bfree) now)" \
		test "$(nova_bfree)" -ge $((free0 + 512))
}

t_ok "format and mount" nova_mount_init
echo keep > "$M/keep"
check_frozen_close victim unlinked
check_frozen_close anon tmpfile

# The genl snapshot commands write PMEM too: refused while frozen.
t_ok "snapshot create" novactl snapshot create --name cold "$M"
t_ok "fsfreeze -f" fsfreeze -f "$M"
barrier_count_start
out=$(novactl snapshot delete "$M" cold 2>&1)
t_ok "snapshot delete while frozen fails (status $?)" test $? != 0
t_ok "... saying the file system is frozen ($out)" grep -q frozen <<< "$out"
out=$(novactl snapshot create "$M" 2>&1)
t_ok "snapshot create while frozen fails (status $?)" test $? != 0
t_ok "... saying the file system is frozen ($out)" grep -q frozen <<< "$out"
fences=$(barrier_count)
t_is "no persistence barrier while frozen" "$fences" 0
t_ok "fsfreeze -u" fsfreeze -u "$M"
t_ok "snapshot delete after the thaw" novactl snapshot delete "$M" cold

# A user's freeze arriving while a snapshot holds its freeze (the test
# hook snapshot_freeze_hold_ms keeps the snapshot frozen 3 s before it
# writes its record): 6.1 refuses the user's freeze (EBUSY); 6.6+ would
# nest it in the snapshot's and return at once, then the record is
# written while the user holds the freeze. NOVA makes it wait for the
# snapshot's thaw. Either way nothing is written while the user's freeze
# holds, and the snapshot is taken.
hold=/sys/module/nova/parameters/snapshot_freeze_hold_ms
echo 3000 > "$hold"
novactl snapshot create --name held "$M" > "$T/held.out" 2>&1 &
snap=$!
sleep 1
t0=$(date +%s%N)
if fsfreeze -f "$M" 2> "$T/freeze.err"; then
	barrier_count_start
	waited=$((($(date +%s%N) - t0) / 1000000))
	sleep 3
	fences=$(barrier_count)
	t_is "no persistence barrier while the user's freeze holds (it waited $waited ms)" \
		"$fences" 0
	t_ok "fsfreeze -u" fsfreeze -u "$M"
else
	t_ok "the user's freeze was refused while the snapshot held its own" \
		grep -q "busy" "$T/freeze.err"
fi
wait "$snap"
rc=$?
t_is "the snapshot with the held freeze is taken ($(cat "$T/held.out"))" "$rc" 0
echo 0 > "$hold"
t_ok "... and listed" sh -c "novactl snapshot list '$M' | grep -qw held"
t_is "other files intact" "$(cat "$M/keep")" keep
t_ok "writes work after the thaw" sh -c "echo more > $M/more"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
rm -rf "$T"
t_done

#!/bin/bash
# One boot of a crash test (guest side; driven by tests/boot/crash-*.sh).
#
# Reads /out/crash.env, written by the host:
#   CRASH_FORMAT=OPTS    format first (mount -o init,OPTS; "default": no
#                        options); else recover
#   CRASH_REFORMAT=OPTS  after recovering and checking, format again
#   CRASH_RECOVER=0|1    the previous boot was cut: expect crash recovery
#   CRASH_WORKLOAD=W     then run workload W until the power is cut
#                        (empty: check only and shut down cleanly;
#                        "umount": crash inside the unmount, see below)
#   CRASH_MOUNT_FAULT=N  arm the fault injection before the recovering
#                        mount: the crash point is inside recovery or the
#                        mount (journal rollback, superblock, state pages)
#   CRASH_SEED, CRASH_FAULT (crash after N barriers, 0: host cuts the
#   power), CRASH_SECONDS (give up after that long)
# and /out/prev-model.json, /out/prev-acks.log: the state the previous
# boot verified and the operations it logged afterwards.
#
# Checks, after a power cut: fsck.NOVA -n on the unrecovered image finds
# no problem (it checks it as the kernel will recover it); the mount
# succeeds read-write and the kernel reports the recovery; every
# acknowledged operation is there and the one in flight is old or new
# (crashfs.py verify); after unmounting fsck.NOVA -n finds the file system
# clean and the free space statfs showed is exactly what fsck counts (after
# a recovery from the allocation bitmap: with the leaked blocks the
# unmount's space check freed); a clean remount shows the same tree.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
. /out/crash.env
cfs() { python3 "$NOVA_TOP/tests/crash/crashfs.py" "$@"; }
dev=$NOVA_PMEM
verified=0

# fsck.NOVA -n on a cut file system: no problem at all (it checks a dirty
# image as the kernel recovers it: journals rolled back, allocator state
# ignored). Sets $dirty when the superblock says not cleanly unmounted (a
# cut inside an unmount may leave the file system clean).
dirty=0
fsck_dirty_ok() {
	local out rc
	out=$(fsck.NOVA -n "$dev" 2>&1)
	rc=$?
	! grep -q 'not cleanly unmounted' <<< "$out" || dirty=1
	! grep -q 'interrupted superblock update' <<< "$out" ||
		echo "# fsck.NOVA: the cut interrupted a superblock update (primary written, replica not)" >&3
	[ "$rc" -eq 0 ] || { echo "status $rc"; echo "$out"; return 1; }
}

# statfs free blocks == fsck's free blocks + the pages holding them.
statfs_matches_fsck() {
	local bfree=$1 out line free pages
	out=$(fsck.NOVA -n -v "$dev" 2>&1) || { echo "$out"; return 1; }
	line=$(grep -m1 'allocator state: .* free blocks in .* pages' <<< "$out")
	free=$(sed -n 's/.* ranges, \([0-9]*\) free blocks in \([0-9]*\) pages.*/\1/p' <<< "$line")
	pages=$(sed -n 's/.* ranges, \([0-9]*\) free blocks in \([0-9]*\) pages.*/\2/p' <<< "$line")
	echo "statfs free $bfree, fsck free $free + $pages state pages"
	[ -n "$free" ] && [ $((free + pages)) -eq "$bfree" ]
}

format() {
	if [ "$1" = default ]; then
		nova_mount_init
	else
		nova_mount_init "$1"
	fi
}

stripes() {
	t_diag "stripes: $(grep " $NOVA_MNT NOVA" /proc/mounts | grep -o 'cpus=[0-9]*'), online CPUs: $(nproc)"
}

bfree() {
	python3 -c "import os; print(os.statvfs('$NOVA_MNT').f_bfree)"
}

if [ -n "${CRASH_FORMAT+x}" ] && [ -n "$CRASH_FORMAT" ]; then
	t_ok "format ($CRASH_FORMAT)" format "$CRASH_FORMAT"
	stripes
	cfs init /out/model.json
	verified=1
else
	fsck_dirty_ok 3>&1 > /tmp/fsck-dirty.out
	t_is "fsck.NOVA -n before recovery finds no problem" \
		"$?$(head -n 20 /tmp/fsck-dirty.out)" 0
	dmesg -C
	if [ "${CRASH_MOUNT_FAULT:-0}" != 0 ]; then
		# If the machine stops in there, the next boot checks the
		# same state again.
		cp /out/prev-model.json /out/model.json
		cp /out/prev-acks.log /out/acks.log 2>/dev/null
		echo "1..$_t_n"
		echo "$CRASH_MOUNT_FAULT" > /sys/module/nova/parameters/crash_after_barriers
		echo "nova-crash: mount with a crash after $CRASH_MOUNT_FAULT barriers" > /dev/console
	fi
	t_ok "mount after the power cut" nova_mount
	if [ "${CRASH_MOUNT_FAULT:-0}" != 0 ]; then
		echo 0 > /sys/module/nova/parameters/crash_after_barriers
		rm -f /out/model.json /out/acks.log
		t_diag "crash point not reached: the mount finished"
	fi
	t_ok "mounted read-write" grep -q " $NOVA_MNT NOVA rw" /proc/mounts
	rec=$(dmesg | grep -o 'recovered in .*' | head -n1)
	if [ "$dirty" = 1 ]; then
		t_diag "kernel: $rec"
		t_ok "the kernel reports the recovery" test -n "$rec"
	fi
	rm -f /out/model.json
	out=$(cfs verify /out/prev-model.json /out/prev-acks.log /out/model.json 2>&1)
	rc=$?
	grep '^#' <<< "$out" | head -n 40
	grep -v '^#' <<< "$out" | head -n 20 | sed 's/^/# /'
	t_is "acknowledged operations present, files old or new" "$rc" 0
	[ "$rc" = 0 ] && [ -f /out/model.json ] && verified=1
	free=$(bfree)
	t_ok "unmount" nova_umount
	# Recovered from the allocation bitmap: what operations the crash
	# cut short had allocated is free only after the unmount's space
	# check (docs/recovery.md), which says how many blocks it freed.
	if [[ $rec == *"from the allocation bitmap"* ]]; then
		leaked=$(dmesg | grep -o 'space check after crash recovery in .*, [0-9]* leaked' |
			tail -n1 | grep -o '[0-9]* leaked' | cut -d' ' -f1)
		t_diag "space check: ${leaked:-no} leaked blocks freed"
		free=$((free + ${leaked:-0}))
	fi
	t_ok "fsck.NOVA -n: clean after recovery, statfs free space matches" \
		statfs_matches_fsck "$free"
	t_ok "clean remount" nova_mount
	if [ "$verified" = 1 ]; then
		t_ok "the clean remount shows the same tree" \
			cfs verify /out/model.json /out/model.json.remount
	fi
fi
if [ -n "${CRASH_REFORMAT:-}" ] && [ "$verified" = 1 ]; then
	nova_umount
	t_ok "format again ($CRASH_REFORMAT)" format "$CRASH_REFORMAT"
	stripes
	cfs init /out/model.json
fi
dmesg > "$NOVA_RESULT.klog-verify"

if [ -z "$CRASH_WORKLOAD" ] || [ "$verified" != 1 ]; then
	nova_umount
	t_done
fi
if [ "$CRASH_WORKLOAD" = umount ]; then
	# The crash point is in the unmount: allocator state, superblocks.
	echo "1..$_t_n"
	[ "$_t_failed" -eq 0 ] || exit 1
	echo "$CRASH_FAULT" > /sys/module/nova/parameters/crash_after_barriers
	echo "nova-crash: workload umount running (crash after $CRASH_FAULT barriers)" > /dev/console
	nova_umount
	echo 0 > /sys/module/nova/parameters/crash_after_barriers
	echo "# workload umount finished: crash point not reached"
	exit 0
fi
echo "1..$_t_n"
[ "$_t_failed" -eq 0 ] || exit 1
exec python3 "$NOVA_TOP/tests/crash/crashfs.py" run /out/model.json /out/acks.log --workload "$CRASH_WORKLOAD" \
	--seed "$CRASH_SEED" --fault "$CRASH_FAULT" --seconds "$CRASH_SECONDS"

# shellcheck shell=bash
# TAP helpers and NOVA helpers for guest tests (sourced, bash).
#
#   t_ok DESC CMD...        ok if CMD exits 0
#   t_fail DESC CMD...      ok if CMD exits non-zero
#   t_is DESC GOT WANT      ok if the two strings are equal
#   t_errno DESC ERRNO CMD  ok if CMD fails and prints ERRNO (e.g. ENOENT);
#                           "$NOVA_SYS" OP ARGS... (tests/guest/sys.py)
#                           runs one syscall and prints its errno name
#   t_skip DESC REASON
#   t_diag MSG              a '#' comment line
#   t_done                  print the plan; exit 1 if anything failed
#   expect_klog ERE         kernel log lines matching ERE are expected
#                           (the watchdog ignores them for this test)
#   nova_mount_init [OPTS]  format NOVA_PMEM and mount it on NOVA_MNT
#   nova_mount [OPTS]       mount the existing fs on NOVA_MNT
#   nova_umount             unmount NOVA_MNT
#   nova_remount [OPTS]     unmount and mount again
#
# A test prints TAP on stdout and diagnostics on stderr; the harness
# stores both. Each failure says what was expected and what was seen.
set -u

_t_n=0
_t_failed=0
NOVA_PMEM=${NOVA_PMEM:-/dev/pmem0}
NOVA_MNT=${NOVA_MNT:-/mnt/nova}
NOVA_EXPECT=${NOVA_EXPECT:-/dev/null}
NOVA_SYS=${NOVA_TOP:-/nova}/tests/guest/sys.py

_t_result() {	# ok|fail DESC [DIAG]
	_t_n=$((_t_n + 1))
	if [ "$1" = ok ]; then
		echo "ok $_t_n - $2"
	else
		_t_failed=$((_t_failed + 1))
		echo "not ok $_t_n - $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}

t_ok() {
	local desc=$1 outp
	shift
	if outp=$("$@" 2>&1); then
		_t_result ok "$desc"
	else
		_t_result fail "$desc" "command failed (status $?): $*
$outp"
	fi
}

t_fail() {
	local desc=$1 outp
	shift
	if outp=$("$@" 2>&1); then
		_t_result fail "$desc" "command succeeded but should have failed: $*
$outp"
	else
		_t_result ok "$desc"
	fi
}

t_is() {
	if [ "$2" = "$3" ]; then
		_t_result ok "$1"
	else
		_t_result fail "$1" "expected: '$3'
got:      '$2'"
	fi
}

t_errno() {
	local desc=$1 want=$2 outp
	shift 2
	if outp=$("$@" 2>&1); then
		_t_result fail "$desc" "succeeded, expected $want: $*"
	elif printf '%s' "$outp" | grep -qw -- "$want"; then
		_t_result ok "$desc"
	else
		_t_result fail "$desc" "expected $want from: $*
got: $outp"
	fi
}

t_skip() {
	_t_n=$((_t_n + 1))
	echo "ok $_t_n - $1 # SKIP $2"
}

t_diag() {
	printf '# %s\n' "$*"
}

t_done() {
	echo "1..$_t_n"
	[ "$_t_failed" -eq 0 ]
	exit $?
}

expect_klog() {
	printf '%s\n' "$1" >> "$NOVA_EXPECT"
}

nova_mount_init() {
	mkdir -p "$NOVA_MNT"
	mount -t NOVA -o "init=force${1:+,$1}" "$NOVA_PMEM" "$NOVA_MNT"
}

nova_mount() {
	mkdir -p "$NOVA_MNT"
	mount -t NOVA ${1:+-o "$1"} "$NOVA_PMEM" "$NOVA_MNT"
}

nova_umount() {
	umount "$NOVA_MNT"
}

# nova_powercut: leave the medium as a power cut now would (every NOVA
# operation is durable when it returns): FS_IOC_SHUTDOWN with
# NOLOGFLUSH, after which nothing is written through the unmount
# (fs-shutdown.sh checks that), then unmount. Cheaper than imaging the
# whole device and writing it back.
nova_powercut() {
	nova_cut_power && umount "$NOVA_MNT"
}

# nova_cut_power: the same without the unmount (FS_IOC_SHUTDOWN with
# NOLOGFLUSH): the file system stays mounted, and may stay frozen.
nova_cut_power() {
	python3 - "$NOVA_MNT" <<'PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587d, struct.pack("I", 2))
os.close(fd)
PY
}

# nova_recoveries: how many mounts since the boot ran crash recovery.
nova_recoveries() {
	dmesg | grep -c 'not cleanly unmounted: running crash recovery'
}

# nova_bfree: free blocks of the file system at $NOVA_MNT (statfs).
nova_bfree() {
	python3 -c "import os, sys; print(os.statvfs(sys.argv[1]).f_bfree)" "$NOVA_MNT"
}

# nova_fs_stat FIELD: FIELD of `novactl stats --json` for the file system
# at $NOVA_MNT (a dotted path into its object, e.g. gc.thorough_pages).
nova_fs_stat() {
	novactl stats --json "$NOVA_MNT" | python3 -c "
import json, sys
d = json.load(sys.stdin)['filesystems'][0]
for k in sys.argv[1].split('.'):
    d = d[k]
print(d)" "$1"
}

# barrier_count_start, then barrier_count: how many persistence barriers
# (fences) NOVA issued in between. The crash_after_barriers countdown is
# set far beyond reach and read back; barrier_count prints the number and
# turns the countdown off.
NOVA_BARRIERS=/sys/module/nova/parameters/crash_after_barriers
barrier_count_start() {
	echo 1000000000 > "$NOVA_BARRIERS"
}

barrier_count() {
	local left
	left=$(cat "$NOVA_BARRIERS")
	echo 0 > "$NOVA_BARRIERS"
	echo $((1000000000 - left))
}

nova_remount() {
	nova_umount && nova_mount "${1:-}"
}

# wait_for SECONDS CMD...: poll CMD (output discarded) every 0.2 s until it
# succeeds; fail once SECONDS have passed.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" > /dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# pread_file FILE OFFSET LENGTH: one pread(2) of FILE, data discarded; on
# failure print the errno name (EIO, EUCLEAN, ...) to stderr, for t_errno.
pread_file() {
	python3 -c "
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.pread(fd, int(sys.argv[3]), int(sys.argv[2]))
except OSError as e:
    print(errno.errorcode[e.errno], file=sys.stderr)
    sys.exit(1)" "$1" "$2" "$3"
}

# t_timed DESC CMD...: t_ok, with the elapsed time as a diagnostic line.
t_timed() {
	local desc=$1 s e
	shift
	s=$(date +%s.%N)
	t_ok "$desc" "$@"
	e=$(date +%s.%N)
	t_diag "$desc: $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f s", e - s }')"
}

# t_from_py: turn "PASS desc" / "FAIL desc" lines of a Python checker on
# stdin into TAP results; other lines become diagnostics.
t_from_py() {
	local line
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) t_is "${line#PASS }" ok ok ;;
		FAIL\ *) t_is "${line#FAIL }" failed ok ;;
		*) t_diag "$line" ;;
		esac
	done
}

# gc_stat FIELD: that field of the "gc" object of 'novactl stats --json'
# for the file system at $NOVA_MNT.
gc_stat() {
	novactl stats --json "$NOVA_MNT" | python3 -c "
import json, sys
print(json.load(sys.stdin)['filesystems'][0]['gc']['$1'])"
}

# gc_field JSON FIELD: that field of the "gc" object of 'novactl gc --json'
# output JSON.
gc_field() {
	python3 -c "import json, sys; print(json.loads(sys.argv[1])['gc']['$2'])" "$1"
}

# monitor_start FILE: 'novactl monitor --json' in the background, events
# to FILE and its messages to FILE.err, its pid in $mon (the caller kills
# and waits for it). Returns once it listens; fails after 10 s.
monitor_start() {
	# A previous monitor's "Monitoring" line must not be taken for this
	# one's: the background shell may not have truncated the file yet.
	rm -f "$1" "$1.err"
	novactl monitor --json > "$1" 2> "$1.err" &
	mon=$!
	wait_for 10 grep -q Monitoring "$1.err"
}

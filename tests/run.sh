#!/usr/bin/env bash
# The test runner behind 'make test'.
#
# usage: tests/run.sh [TEST...]
#
# Without arguments it runs everything:
#   tests/host/*.sh        host checks (build warnings, style), TAP
#   build/tests/unit/test-*  host unit tests (cmocka, TAP output)
#   tests/guest/*.sh       guest tests, TAP; one boot per set of guest options
#   tests/boot/*.sh        host scripts that boot the guest themselves
#                          (crash tests, harness self-checks), TAP
# With arguments it runs only the named tests, e.g.
#   tests/run.sh tests/guest/fs-basic.sh
#
# The guest loads build/module-test/nova.ko, the test build (make
# module-test), unless NOVA_GUEST_MODULE names another.
#
# Boots run two at a time on a machine with two CPUs or more, one at a time
# with NOVA_TEST_JOBS=1 or when NOVA_QEMU_LOCK_FILE is set (docs/testing.md).
#
# Every guest test's kernel log is scanned (tests/lib/klog-scan.sh); a
# problem there fails the test. The last line is the summary
# "N passed, N failed[, N skipped]"; the exit status is 1 on any failure.
# Results: build/test-results/latest/.
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top" || exit 1

build=$(nova_build_dir)
case ${NOVA_TEST_JOBS:-1} in
[1-9]) ;;
*) nova_die "NOVA_TEST_JOBS must be a number from 1 to 9, not '$NOVA_TEST_JOBS'" ;;
esac
# Every guest of the suite, also those tests/boot scripts start, loads the
# test build of the module (make module-test: crash points, injector).
export NOVA_GUEST_MODULE=${NOVA_GUEST_MODULE:-build/module-test/nova.ko}
stamp=$(date +%Y%m%d-%H%M%S)
if [ -n "${NOVA_RESULTS_DIR:-}" ]; then
	results=$NOVA_RESULTS_DIR	# nested runs (harness self-checks)
	mkdir -p "$results"
else
	results=$build/test-results/run-$stamp
	mkdir -p "$results"
	ln -sfn "run-$stamp" "$build/test-results/latest"
fi

pass=0 fail=0 skip=0
failures=()

note() { printf '%s\n' "$*"; }

# account NAME PASS FAIL SKIP DETAIL SECONDS
account() {
	local name=$1 p=$2 f=$3 s=$4 detail=$5 secs=${6:-}
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		note "  FAIL $name: $p passed, $f failed${secs:+ (${secs} s)}"
		[ -z "$detail" ] || printf '%s\n' "${detail%$'\n'}" | sed 's/^/       /'
		failures+=("$name")
	else
		local sk=""
		[ "$s" -eq 0 ] || sk=", $s skipped"
		note "  ok   $name: $p passed$sk${secs:+ (${secs} s)}"
	fi
}

# run_tap NAME LOGBASE CMD...: run a host-side TAP producer.
run_tap() {
	local name=$1 base=$2 rc counts start secs
	shift 2
	start=$(date +%s)
	"$@" > "$base.tap" 2> "$base.err"
	rc=$?
	secs=$(( $(date +%s) - start ))
	counts=$(tests/lib/tap-count.sh "$base.tap" "$rc")
	read -r p f s <<< "$(head -n1 <<< "$counts")"
	account "$name" "$p" "$f" "$s" "$(tail -n +2 <<< "$counts")" "$secs"
}

host_tests=() unit_tests=() guest_tests=() boot_tests=()
classify() {
	case "$1" in
	tests/host/*) host_tests+=("$1") ;;
	tests/guest/lib.sh | tests/guest/lib-*.sh) ;;
	tests/guest/*|tests/selfcheck/*) guest_tests+=("$1") ;;
	tests/boot/*) boot_tests+=("$1") ;;
	*/test-*) unit_tests+=("$1") ;;
	*) nova_die "don't know how to run $1" ;;
	esac
}
if [ $# -gt 0 ]; then
	for t in "$@"; do classify "$t"; done
else
	for t in tests/host/*.sh tests/guest/*.sh tests/boot/*.sh "$build"/tests/unit/test-*; do
		[ -f "$t" ] && classify "$t"
	done
fi

if [ ${#host_tests[@]} -gt 0 ] || [ ${#unit_tests[@]} -gt 0 ]; then
	note "host tests:"
fi
for t in "${host_tests[@]}"; do
	run_tap "$t" "$results/host-$(basename "$t" .sh)" bash "$t"
done
for t in "${unit_tests[@]}"; do
	run_tap "unit/$(basename "$t")" "$results/unit-$(basename "$t")" \
		env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
done

# Guest tests run in as few boots as possible: one per distinct set of
# guest options, which a test declares with "# nova-guest-args: ARGS"
# (e.g. --systemd, --smp 1, --pmem-size 2G).
guest_args() {
	sed -n 's/^# nova-guest-args: *//p' "$1" | head -n1
}

# run_guest_boot OUTDIR ARGS TEST...
run_guest_boot() {
	local out=$1 args=$2 gstatus t n name base rc counts klog hits secs
	shift 2
	local tests=("$@")
	note "guest tests (one boot${args:+ with $args}, ${#tests[@]} tests):"
	# shellcheck disable=SC2086
	qemu/run-guest.sh --out "$out" $args "${tests[@]}"
	gstatus=$(cat "$out/host-status" 2>/dev/null || echo "no status")
	note "  guest: $gstatus, $(cat "$out/boot-seconds" 2>/dev/null || echo '?') s"

	hits=$(tests/lib/klog-scan.sh "$out/results/00-setup.klog")
	if [ -f "$out/results/00-setup.klog" ] && [ -z "$hits" ]; then
		account "guest setup (pmem, module load)" 1 0 0 ""
	else
		account "guest setup (pmem, module load)" 0 1 0 \
			"${hits:-setup did not complete}"$'\n'
	fi
	n=0
	for t in "${tests[@]}"; do
		n=$((n + 1))
		name=$(basename "$t" .sh)
		base=$out/results/$(printf '%02d' "$n")-$name
		if [ ! -f "$base.rc" ]; then
			account "$t" 0 1 0 "did not run to completion: $gstatus"$'\n'
			continue
		fi
		rc=$(cat "$base.rc")
		secs=$(cat "$base.time" 2>/dev/null)
		counts=$(tests/lib/tap-count.sh "$base.tap" "$rc")
		read -r p f s <<< "$(head -n1 <<< "$counts")"
		detail=$(tail -n +2 <<< "$counts")
		if [ "$f" -gt 0 ] && [ -s "$base.err" ]; then
			detail="$detail"$'\n'"stderr (last lines):"$'\n'"$(tail -n 5 "$base.err")"$'\n'
		fi
		sed -n 's/^# nova-expect-klog: *//p' "$t" > "$base.expect-static"
		klog=$(tests/lib/klog-scan.sh "$base.klog" "$base.expect-static" "$base.expect")
		if [ -n "$klog" ]; then
			f=$((f + 1))
			detail="${detail}kernel log:"$'\n'"$klog"$'\n'
		fi
		account "$t" "$p" "$f" "$s" "$detail" "$secs"
	done
	if [ -f "$out/done" ]; then
		hits=$(tests/lib/klog-scan.sh "$out/results/zz-teardown.klog")
		rc=$(cat "$out/results/zz-unload.rc" 2>/dev/null || echo 0)
		if [ "$rc" = 0 ] && [ -z "$hits" ]; then
			account "guest teardown (module unload)" 1 0 0 ""
		else
			account "guest teardown (module unload)" 0 1 0 \
				"rmmod status $rc: $(cat "$out/results/zz-unload.err" 2>/dev/null)"$'\n'"$hits"$'\n'
		fi
	else
		hits=$(tests/lib/klog-scan.sh "$out/console.log")
		account "guest run" 0 1 0 "$gstatus"$'\n'"${hits:+kernel log:
$hits
}last console lines:"$'\n'"$(tail -n 15 "$out/console.log" 2>/dev/null)"$'\n'
	fi
}
# A guest test may need something built on the host first, which "make
# all" does not build (e.g. fstests): it names the command with a line
# "# nova-host-prep: CMD" (run from the top directory, once per boot set).
# If the command fails, the tests that asked for it fail without a boot.
host_prep() {
	local t cmd kept=() base
	declare -A prep_rc=() prep_log=()
	for t in "${guest_tests[@]}"; do
		cmd=$(sed -n 's/^# nova-host-prep: *//p' "$t" | head -n1)
		if [ -n "$cmd" ] && [ -z "${prep_rc[x$cmd]+set}" ]; then
			base=$results/prep-$(basename "$t" .sh)
			note "host preparation for $t: $cmd"
			bash -c "$cmd" > "$base.log" 2>&1
			prep_rc[x$cmd]=$?
			prep_log[x$cmd]=$base.log
		fi
		if [ -n "$cmd" ] && [ "${prep_rc[x$cmd]}" != 0 ]; then
			account "$t" 0 1 0 "host preparation '$cmd' failed:"$'\n'"$(tail -n 10 "${prep_log[x$cmd]}")"$'\n'
		else
			kept+=("$t")
		fi
	done
	guest_tests=(${kept[@]+"${kept[@]}"})
}
[ ${#guest_tests[@]} -eq 0 ] || host_prep

# What boots a guest, in units: one per set of guest options (a boot with
# all its tests; when boots run side by side, a set of more than
# $boot_max tests is split into boots of about equal size so that the
# lanes end together), then one per tests/boot script (which boots by
# itself). units[N] is "guest ARGS" or "boot SCRIPT"; a guest unit's tests
# are in unit_tests[N].
units=() unit_tests=()
boot_max=20
plan_units() {
	local t a k n chunks size members=() groups=()
	declare -A seen=()
	for t in "${guest_tests[@]}"; do
		a=$(guest_args "$t")
		[ -n "${seen[x$a]+set}" ] || groups+=("$a")
		seen[x$a]=1
	done
	for a in "${groups[@]}"; do
		members=()
		for t in "${guest_tests[@]}"; do
			[ "$(guest_args "$t")" = "$a" ] && members+=("$t")
		done
		n=${#members[@]} chunks=1
		[ "$jobs" -eq 1 ] || chunks=$(( (n + boot_max - 1) / boot_max ))
		size=$(( (n + chunks - 1) / chunks ))
		for ((k = 0; k < n; k += size)); do
			units+=("guest $a")
			unit_tests+=("${members[*]:k:size}")
		done
	done
	for t in "${boot_tests[@]}"; do
		units+=("boot $t")
		unit_tests+=("")
	done
}

# run_unit N: what unit N does, accounted as it goes.
run_unit() {
	local n=$1 kind=${units[$1]%% *} rest=${units[$1]#* } tests
	case $kind in
	guest)
		read -r -a tests <<< "${unit_tests[$n]}"
		run_guest_boot "$results/guest$((n + 1))" "$rest" "${tests[@]}"
		;;
	boot)
		note "multi-boot test:"
		run_tap "$rest" "$results/boot-$(basename "$rest" .sh)" \
			env NOVA_RESULTS="$results" bash "$rest"
		;;
	esac
}

# Units run $jobs at a time, each guest with its own QEMU lock ("lane"):
# the lock NOVA_QEMU_LOCK_FILE names (default build/qemu.lock) for the
# first, that name with ".N" for lane N. A unit's lines are printed when it
# ends; its counts are added then. NOVA_TEST_JOBS sets how many at once;
# the default is 2 on a machine with 2 or more CPUs, 1 if NOVA_QEMU_LOCK_FILE
# is set (the machine's guests are being shared out by hand) or in a run
# nested in another (NOVA_RESULTS_DIR).
test_jobs() {
	if [ -n "${NOVA_TEST_JOBS:-}" ]; then
		echo "$NOVA_TEST_JOBS"
	elif [ -n "${NOVA_QEMU_LOCK_FILE:-}" ] || [ -n "${NOVA_RESULTS_DIR:-}" ] ||
	     [ "$(nproc)" -lt 2 ]; then
		echo 1
	else
		echo 2
	fi
}

# unit_start N LANE: unit N in the background on LANE; its output and
# counts go to files.
unit_start() {
	local n=$1 lane=$2 lock=${NOVA_QEMU_LOCK_FILE:-$build/qemu.lock}
	[ "$lane" -eq 0 ] || lock=$lock.$lane
	(
		pass=0 fail=0 skip=0 failures=()
		export NOVA_QEMU_LOCK_FILE=$lock
		run_unit "$n" > "$results/unit-$n.out" 2>&1
		printf '%s %s %s\n%s\n' "$pass" "$fail" "$skip" \
			"${failures[*]}" > "$results/unit-$n.sum"
	) &
	unit_pid[$n]=$!
	unit_lane[$n]=$lane
}

# unit_end N: print unit N's lines and add its counts.
unit_end() {
	local n=$1 p=0 f=0 s=0 failed=""
	cat "$results/unit-$n.out"
	if [ -f "$results/unit-$n.sum" ]; then
		{ read -r p f s; read -r failed; } < "$results/unit-$n.sum"
		# shellcheck disable=SC2206
		[ -z "$failed" ] || failures+=($failed)
	else
		note "  FAIL ${units[$n]}: ended without counts"
		f=1
		failures+=("${units[$n]}")
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

run_units() {
	local n=0 k pid lane running=0
	declare -A lane_busy=()
	declare -a unit_pid=() unit_lane=()
	if [ "$jobs" -eq 1 ]; then
		for k in "${!units[@]}"; do run_unit "$k"; done
		return
	fi
	# A guest's first boot may build the rootfs: build it once, first.
	if [ ${#units[@]} -gt 1 ]; then
		nova_rootfs > /dev/null || nova_die "cannot build the guest rootfs"
	fi
	note "guests: ${#units[@]} units, $jobs at a time (NOVA_TEST_JOBS)"
	# Interrupted: the units' guests go too.
	trap 'trap - INT TERM; kill -TERM 0 2> /dev/null; exit 130' INT TERM
	while [ "$n" -lt ${#units[@]} ] || [ "$running" -gt 0 ]; do
		if [ "$n" -lt ${#units[@]} ] && [ "$running" -lt "$jobs" ]; then
			for ((lane = 0; lane < jobs; lane++)); do
				[ -n "${lane_busy[$lane]:-}" ] || break
			done
			lane_busy[$lane]=$n
			unit_start "$n" "$lane"
			n=$((n + 1)) running=$((running + 1))
			continue
		fi
		wait -n -p pid
		for k in "${!unit_pid[@]}"; do
			[ "${unit_pid[$k]}" = "$pid" ] || continue
			unset "lane_busy[${unit_lane[$k]}]" "unit_pid[$k]"
			unit_end "$k"
			running=$((running - 1))
		done
	done
}
jobs=$(test_jobs)
plan_units
[ ${#units[@]} -eq 0 ] || run_units

note ""
note "results: $results"
if [ ${#failures[@]} -gt 0 ]; then
	note "failed: ${failures[*]}"
fi
if [ "$skip" -gt 0 ]; then
	note "$pass passed, $fail failed, $skip skipped"
else
	note "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ] && [ $((pass + skip)) -gt 0 ]

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
# Every guest test's kernel log is scanned (tests/lib/klog-scan.sh); a
# problem there fails the test. The last line is the summary
# "N passed, N failed[, N skipped]"; the exit status is 1 on any failure.
# Results: build/test-results/latest/.
set -uo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top" || exit 1

build=$(nova_build_dir)
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
run_guest_tests() {
	local t a i=0 groups=()
	declare -A seen=()
	for t in "${guest_tests[@]}"; do
		a=$(guest_args "$t")
		if [ -z "${seen[x$a]+set}" ]; then
			seen[x$a]=1
			groups+=("$a")
		fi
	done
	for a in "${groups[@]}"; do
		local members=()
		for t in "${guest_tests[@]}"; do
			[ "$(guest_args "$t")" = "$a" ] && members+=("$t")
		done
		i=$((i + 1))
		run_guest_boot "$results/guest$i" "$a" "${members[@]}"
	done
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
[ ${#guest_tests[@]} -eq 0 ] || run_guest_tests

if [ ${#boot_tests[@]} -gt 0 ]; then
	note "multi-boot tests:"
fi
for t in "${boot_tests[@]}"; do
	run_tap "$t" "$results/boot-$(basename "$t" .sh)" env NOVA_RESULTS="$results" bash "$t"
done

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

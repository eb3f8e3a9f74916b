#!/usr/bin/env bash
# The harness catches what it must: failing checks, kernel warnings, hung
# tests, kernel panics; it tolerates declared kernel errors; and its crash
# mode cuts the power with the NVDIMM contents kept for the next boot.
# Boots the guest four times.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
build=$(nova_build_dir)
work=${NOVA_RESULTS:-$build/test-results}/selfcheck
rm -rf "$work"
mkdir -p "$work"

kmod=$build/selfcheck-kmod
rm -rf "$kmod" && mkdir -p "$kmod" && cp tests/selfcheck/kmod/* "$kmod/"
t_ok "build the WARN-on-load test module" \
	make -s -C "$(nova_kdir)" M="$kmod" modules

NOVA_RESULTS_DIR=$work/run1 tests/run.sh tests/selfcheck/broken.sh \
	tests/selfcheck/warn.sh tests/selfcheck/expected-error.sh \
	tests/selfcheck/hang.sh > "$work/run1.txt" 2>&1
rc=$?
r1=$(cat "$work/run1.txt")
t_fail "a run with failures exits non-zero" test "$rc" -eq 0
t_ok "a failing check is reported with what was expected" \
	grep -q "expected: 'oranges'" <<< "$r1"
t_ok "the failing test is named" grep -q 'FAIL tests/selfcheck/broken.sh' <<< "$r1"
t_ok "a WARN in the kernel log fails the test that caused it" \
	grep -q 'FAIL tests/selfcheck/warn.sh' <<< "$r1"
t_ok "the WARN line is shown" grep -q 'WARNING:.*warn_on_load' <<< "$r1"
t_ok "a declared nova error line does not fail the test" \
	grep -q '^  ok   tests/selfcheck/expected-error.sh' <<< "$r1"
t_ok "a hung test is stopped by its timeout" \
	grep -A3 'FAIL tests/selfcheck/hang.sh' <<< "$r1"
t_ok "the timeout is reported" grep -q 'timed out' <<< "$r1"
t_ok "the summary line ends the output" \
	sh -c "tail -n1 '$work/run1.txt' | grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed\$'"

NOVA_RESULTS_DIR=$work/run2 tests/run.sh tests/selfcheck/panic.sh > "$work/run2.txt" 2>&1
rc=$?
t_fail "a kernel panic fails the run" test "$rc" -eq 0
t_ok "the panic is reported as such" grep -q 'panicked' "$work/run2.txt"
t_ok "the panic message is shown" grep -q 'Kernel panic' "$work/run2.txt"

pm=$work/pmem
qemu/run-guest.sh --out "$work/crash1" --pmem-dir "$pm" \
	--kill-on 'nova-selfcheck: pattern written' --kill-delay 2 \
	tests/selfcheck/crash-write.sh > "$work/crash1.txt" 2>&1
t_is "crash mode cuts the power when the marker appears" "$?" 2
cp "$work/crash1/results/01-crash-write.sha" "$build/selfcheck-crash.sha" 2>/dev/null
qemu/run-guest.sh --out "$work/crash2" --pmem-dir "$pm" \
	tests/selfcheck/crash-verify.sh > "$work/crash2.txt" 2>&1
t_ok "the next boot on the same NVDIMM file runs" test "$?" -eq 0
t_ok "data written before the power cut is there" \
	grep -q '^ok 1 - pattern survived' "$work/crash2/results/01-crash-verify.tap"
rm -rf "$pm"
t_done

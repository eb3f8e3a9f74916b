#!/usr/bin/env bash
# Crash recovery time for many files: format, create N files, stop the
# machine by fault injection, boot again and report the kernel's
# "recovered in N ms" line as a TAP comment. Quick mode: 10 000 files;
# long mode (NOVA_CRASH_POINTS set, i.e. make crashtest): also 100 000.
# NOVA_CRASH_SCALE="10000 100000" chooses the sizes explicitly,
# NOVA_CRASH_SMP=N the vCPUs of the recovery boot (default 2).
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
work=${NOVA_RESULTS:-$(nova_build_dir)/test-results}/crash-scale
rm -rf "$work"
mkdir -p "$work"

# failures OUT: "not ok" lines of the boot's TAP ("no TAP" if none ran).
failures() {
	local tap=$1/results/01-scale.tap
	if [ -s "$tap" ]; then
		grep -c '^not ok' "$tap"
	else
		echo "no TAP"
	fi
}

sizes=${NOVA_CRASH_SCALE:-10000${NOVA_CRASH_POINTS:+ 100000}}
for n in $sizes; do
	pm=$work/pmem-$n
	out=$work/create-$n
	mkdir -p "$out"
	printf 'SCALE_PHASE=create\nSCALE_FILES=%s\n' "$n" > "$out/crash.env"
	qemu/run-guest.sh --out "$out" --pmem-dir "$pm" --pmem-size 2G \
		--timeout 2400 tests/crash/scale.sh > "$out/run.txt" 2>&1
	rc=$?
	grep '^# created' "$out/results/01-scale.tap" 2>/dev/null | sed "s/^# /# $n files: /"
	t_is "$n files: created, then the machine stopped at the crash point" \
		"$rc:$(grep -c 'crash point reached' "$out/console.log")" 1:1
	t_is "$n files: creation checks" "$(failures "$out")" 0

	out=$work/recover-$n
	mkdir -p "$out"
	printf 'SCALE_PHASE=recover\nSCALE_FILES=%s\n' "$n" > "$out/crash.env"
	qemu/run-guest.sh --out "$out" --pmem-dir "$pm" --pmem-size 2G \
		--smp "${NOVA_CRASH_SMP:-2}" --timeout 2400 tests/crash/scale.sh \
		> "$out/run.txt" 2>&1
	rc=$?
	t_diag "$n files: $(cat "$out/recovery-line" 2>/dev/null)"
	t_is "$n files: recovery boot finished" "$rc" 0
	t_is "$n files: recovery checks" "$(failures "$out")" 0
	grep -A4 '^not ok' "$out/results/01-scale.tap" 2>/dev/null | sed 's/^/#   /'
	t_is "$n files: kernel log clean" \
		"$(tests/lib/klog-scan.sh "$out/results/01-scale.klog"; tests/lib/klog-scan.sh "$out/console.log")" ""
	rm -rf "$pm"
done
t_done

# shellcheck shell=bash
# Host side of the crash tests (sourced by tests/boot/crash-*.sh,
# gc-crash.sh and snapshot-crash.sh after qemu/lib.sh and
# tests/guest/lib.sh). crash_boot drives tests/crash/step.sh;
# crash_guest_boot (below) drives a guest script of its own.
#
#   crash_boot NAME SMP KIND ARG WORKLOAD SEED [FORMAT [REFORMAT]]
#       One boot of tests/crash/step.sh on the NVDIMM in $crash_pmem:
#       recover and check what the previous boot left (unless FORMAT is
#       given: then format with mount options FORMAT), then run WORKLOAD
#       and cut the power: KIND "fault" arms nova.crash_after_barriers=ARG,
#       KIND "kill" SIGKILLs QEMU ARG seconds after the workload started,
#       KIND "none" (WORKLOAD empty) checks only and shuts down cleanly,
#       KIND "mount" arms the fault injection (ARG barriers) before the
#       recovering mount and runs no workload. WORKLOAD "umount" (with
#       KIND fault) puts the crash point inside the unmount.
#       REFORMAT: format again (options) after the checks, before the
#       workload. FORMAT/REFORMAT "default" formats without options.
#       Prints TAP for the boot and sets crash_cut (1: the power was cut)
#       and crash_broken (1: the chain cannot go on).
#
#   crash_workdir TEST
#       Sets crash_work (an empty results directory for TEST) and
#       crash_pmem (the NVDIMM image in it).
#
# Results: $crash_work/NAME/ (console.log, results/01-step.tap, ...).
# The caller sets crash_work and crash_pmem (crash_workdir) and
# crash_points, and reads crash_broken.
# shellcheck disable=SC2154,SC2034
crash_cut=0
crash_broken=0
crash_prev=

crash_workdir() {
	crash_work=${NOVA_RESULTS:-$(nova_build_dir)/test-results}/$1
	crash_pmem=$crash_work/pmem
	rm -rf "$crash_work"
	mkdir -p "$crash_work"
}

crash_boot() {
	local name=$1 smp=$2 kind=$3 arg=$4 wl=$5 seed=$6 format=${7-}
	local reformat=${8-}
	local out=$crash_work/$name rc tap nf np klog kill=() what
	rm -rf "$out"
	mkdir -p "$out"
	{
		[ -z "$format" ] || echo "CRASH_FORMAT='$format'"
		[ -z "$reformat" ] || echo "CRASH_REFORMAT='$reformat'"
		echo "CRASH_RECOVER=$crash_cut"
		echo "CRASH_WORKLOAD='$wl'"
		echo "CRASH_SEED=${seed:-1}"
		echo "CRASH_FAULT=$([ "$kind" = fault ] && echo "$arg" || echo 0)"
		echo "CRASH_MOUNT_FAULT=$([ "$kind" = mount ] && echo "$arg" || echo 0)"
		echo "CRASH_SECONDS=$([ "$kind" = kill ] && echo 60 || echo 120)"
	} > "$out/crash.env"
	if [ -n "$crash_prev" ] && [ -z "$format" ]; then
		cp "$crash_prev/model.json" "$out/prev-model.json" 2>/dev/null
		cp "$crash_prev/acks.log" "$out/prev-acks.log" 2>/dev/null
	fi
	[ "$kind" != kill ] || kill=(--kill-on 'nova-crash: workload .* running' --kill-delay "$arg")
	case $kind in
	fault) what="crash after $arg barriers" ;;
	kill) what="power cut ${arg}s into the workload" ;;
	mount) what="crash after $arg barriers of the recovering mount" ;;
	*) what="check only" ;;
	esac
	what="$name (--smp $smp${format:+, format $format}${reformat:+, then format $reformat}${wl:+, workload $wl seed $seed}, $what)"

	qemu/run-guest.sh --out "$out" --pmem-dir "$crash_pmem" --smp "$smp" \
		--timeout 1500 "${kill[@]}" tests/crash/step.sh > "$out/run.txt" 2>&1
	rc=$?
	tap=$out/results/01-step.tap
	nf=$(grep -c '^not ok' "$tap" 2>/dev/null)
	np=$(grep -c '^ok' "$tap" 2>/dev/null)
	grep '^#' "$tap" 2>/dev/null | grep -E 'kernel: recovered|in flight|finished|stripes:|superblock update' | sed "s/^# /# $name: /"
	t_is "$what: guest checks ($np passed)" "${nf:-missing}" 0
	[ "${nf:-1}" = 0 ] || grep -A8 '^not ok' "$tap" 2>/dev/null | head -n 40 | sed 's/^/#   /'

	klog=$(tests/lib/klog-scan.sh "$out/console.log"; \
	       tests/lib/klog-scan.sh "$out/results/01-step.klog-verify"; \
	       tests/lib/klog-scan.sh "$out/results/01-step.klog")
	t_is "$name: kernel log has no oops, warning or nova error" "$klog" ""

	crash_cut=0
	if [ "$kind" = none ]; then
		t_is "$name: guest shut down cleanly" "$rc" 0
	elif [ "$kind" = kill ] && [ "$rc" = 2 ]; then
		crash_cut=1
	elif [[ $kind == fault || $kind == mount ]] && [ "$rc" = 1 ] &&
	     grep -q 'nova: fault injection: crash point reached' "$out/console.log" &&
	     ! grep -q 'Kernel panic' "$out/console.log"; then
		crash_cut=1
	elif [ "$rc" = 0 ] && grep -q 'workload.* finished\|crash point not reached' "$tap"; then
		t_diag "$name: the crash point was not reached"
	else
		t_is "$name: the boot ends at the crash point ($(cat "$out/host-status" 2>/dev/null))" "$rc" "cut"
		tail -n 15 "$out/console.log" | sed 's/^/#   /'
	fi
	[ "$crash_cut" = 0 ] || crash_points=$((crash_points + 1))
	# Where a fault-injection crash point was (the function of the fence).
	crash_where=$(sed -n 's/.*crash point reached after [0-9]* barriers in \([^+ ]*\).*/\1/p' \
		"$out/console.log" 2>/dev/null | head -n1)
	[ -z "$crash_where" ] || t_diag "$name: crash point in $crash_where"
	if [ ! -f "$out/model.json" ] || [ "${nf:-1}" != 0 ]; then
		crash_broken=1
	fi
	crash_prev=$out
}

#   crash_guest_boot NAME GUEST CARRY [KEY=VALUE...]
#       One boot of the guest script GUEST (tests/boot/*.guest, one test
#       of its own crash chain) on the NVDIMM in $crash_pmem. The
#       KEY=VALUE pairs go to /out/BASE.env (BASE: GUEST's name without
#       .guest), the files named in CARRY (space-separated) from the
#       previous boot's /out to /out/prev-FILE (none after
#       crash_guest_prev= is cleared). Prints TAP for the boot (the
#       guest's checks, the kernel log watchdog, how the boot ended) and
#       sets crash_cut (1: stopped at the fault-injection crash point) and
#       crash_where (the function of the barrier it stopped at).
#       Results: $crash_work/NAME/. Extra qemu/run-guest.sh options for
#       every boot: the array crash_guest_args (e.g. --systemd).
crash_guest_prev=
crash_guest_args=()

crash_guest_boot() {
	local name=$1 guest=$2 carry=$3 out=$crash_work/$1 base rc tap nf np
	local klog f
	shift 3
	base=$(basename "$guest" .guest)
	rm -rf "$out"
	mkdir -p "$out"
	printf '%s\n' "$@" > "$out/$base.env"
	if [ -n "$crash_guest_prev" ]; then
		for f in $carry; do
			cp "$crash_guest_prev/$f" "$out/prev-$f" 2>/dev/null
		done
	fi
	qemu/run-guest.sh --out "$out" --pmem-dir "$crash_pmem" --timeout 900 \
		"${crash_guest_args[@]}" "$guest" > "$out/run.txt" 2>&1
	rc=$?
	tap=$out/results/01-$base.guest.tap
	nf=$(grep -c '^not ok' "$tap" 2>/dev/null)
	np=$(grep -c '^ok' "$tap" 2>/dev/null)
	grep '^#' "$tap" 2>/dev/null | sed "s/^# /# $name: /"
	t_is "$name: guest checks ($np passed)" "${nf:-missing}" 0
	[ "${nf:-1}" = 0 ] || grep -A6 '^not ok' "$tap" | head -n 30 | sed 's/^/#   /'
	klog=$(tests/lib/klog-scan.sh "$out/console.log"; \
	       tests/lib/klog-scan.sh "$out/results/01-$base.guest.klog")
	t_is "$name: kernel log has no oops, warning or nova error" "$klog" ""
	crash_cut=0
	if [ "$rc" = 1 ] && grep -q 'nova: fault injection: crash point reached' "$out/console.log" &&
	   ! grep -q 'Kernel panic' "$out/console.log"; then
		crash_cut=1
	elif [ "$rc" != 0 ]; then
		t_is "$name: the boot ends cleanly or at the crash point ($(cat "$out/host-status" 2>/dev/null))" "$rc" 0
	fi
	crash_where=$(sed -n 's/.*crash point reached after [0-9]* barriers in \([^+ ]*\).*/\1/p' \
		"$out/console.log" 2>/dev/null | head -n1)
	crash_guest_prev=$out
}

#   crash_spread TOTAL N
#       N crash points over TOTAL barriers: the second barrier, then
#       evenly spread, the last one included. Prints them.
crash_spread() {
	local total=$1 n=$2 i p
	for ((i = 1; i <= n; i++)); do
		p=$(( total * i / n ))
		[ "$i" != 1 ] || p=$(( total < 2 ? total : 2 ))
		printf '%s\n' "$p"
	done
}

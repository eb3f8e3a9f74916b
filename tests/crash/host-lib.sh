# shellcheck shell=bash
# Host side of the crash tests (sourced by tests/boot/crash-*.sh after
# qemu/lib.sh and tests/guest/lib.sh).
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
# Results: $crash_work/NAME/ (console.log, results/01-step.tap, ...).
# The caller sets crash_work, crash_pmem and crash_points and reads
# crash_broken.
# shellcheck disable=SC2154,SC2034
crash_cut=0
crash_broken=0
crash_prev=

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

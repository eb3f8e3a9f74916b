#!/usr/bin/env bash
# Crash consistency: a chain of boots on one NVDIMM file. Each boot
# recovers what the previous one left when its power was cut, checks it
# (tests/crash/step.sh: fsck before and after, acknowledged operations,
# old-or-new file contents, directories, link counts, free space), then
# runs a workload until the next crash point: a deterministic one (the
# module's nova.crash_after_barriers fault injection) or a random one
# (QEMU killed a random number of seconds in). The last boot only checks.
# Besides the workloads, crash points inside an unmount (allocator state
# and superblock writes) and, in long mode, inside the recovering mount.
#
# Quick mode (make test): 8 crash points, 9 boots (crash-cpus.sh adds
# two more with the mix and rename workloads). Long mode:
#   NOVA_CRASH_POINTS=200 make crashtest     (NOVA_CRASH_SEED to replay)
#   NOVA_CRASH_FORMAT=cpus=3,alloc_bitmap  (the options of each format;
#                                           default cpus=3)
# The file system is formatted with 3 stripes on 2 vCPUs, and the long
# mode changes the vCPU count between boots, so stripes and CPUs differ.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
. tests/crash/host-lib.sh
crash_workdir crash-basic
crash_points=0
crash_failed=0

workloads=(mix storm rename write big tree gc mmap pmd)
seed=${NOVA_CRASH_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$seed
t_diag "seed $seed (NOVA_CRASH_SEED=$seed replays the schedule)"

# The quick schedule: both kinds of crash point; with crash-cpus.sh every
# workload.
quick=("storm kill 3" "write fault 300" "umount fault 5" "big kill 4"
       "tree fault 2500" "gc fault 20" "mmap fault 700" "pmd fault 3000")
# NOVA_CRASH_SCHEDULE="wl kind arg[,wl kind arg...]" replaces the quick
# schedule (to replay or aim at one point; kind fault, kill or mount).
if [ -n "${NOVA_CRASH_SCHEDULE:-}" ]; then
	IFS=, read -r -a quick <<< "$NOVA_CRASH_SCHEDULE"
fi
n=${NOVA_CRASH_POINTS:-${#quick[@]}}
for ((i = 0; i < n; i++)); do
	if [ -z "${NOVA_CRASH_POINTS:-}" ]; then
		read -r wl kind arg <<< "${quick[$i]}"
		[ "$kind" != mount ] || wl=
		smp=2
	else
		wl=${workloads[RANDOM % ${#workloads[@]}]}
		case $((RANDOM % 8)) in
		[0-3]) kind=fault arg=$((1 + RANDOM % 4000))
			# gc arms its countdown at a novactl gc (crashfs.py)
			[ "$wl" != gc ] || arg=$((1 + arg % 150)) ;;
		[45]) kind=kill arg=$((RANDOM % 9)) ;;
		6) kind=fault arg=$((1 + RANDOM % 12)) wl=umount ;;
		*) kind=mount arg=$((1 + RANDOM % 10)) wl= ;;
		esac
		smp=$((1 + RANDOM % 2))
	fi
	fmt=
	if [ "$i" = 0 ] || [ "$crash_broken" = 1 ]; then
		# The first boot, or the chain broke (failure reported
		# above): format and go on, so a long run still tries every
		# point.
		fmt=${NOVA_CRASH_FORMAT:-cpus=3}
		[ "$kind" != mount ] || kind=fault wl=mix
		[ "$i" = 0 ] || t_diag "boot$i: the chain broke: formatting again"
		crash_broken=0
		crash_cut=0
		crash_prev=
	fi
	crash_boot "$(printf 'boot%03d' "$i")" "$smp" "$kind" "$arg" "$wl" \
		"$((seed + i))" $fmt
	[ "$crash_broken" = 0 ] || crash_failed=$((crash_failed + 1))
	# Quick mode stops at the first failure.
	[ "$crash_broken" = 0 ] || [ -n "${NOVA_CRASH_POINTS:-}" ] || break
	t_diag "tally $wl $kind smp$smp cut=$crash_cut broken=$crash_broken"
done
if [ "$crash_broken" = 0 ]; then
	crash_boot "$(printf 'boot%03d' "$n")-final" 2 none 0 "" 0
	[ "$crash_broken" = 0 ] || crash_failed=$((crash_failed + 1))
fi
t_diag "$crash_points crash points recovered and checked, $crash_failed boots failed"
rm -rf "$crash_pmem"
t_done

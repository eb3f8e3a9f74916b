#!/usr/bin/env bash
# Crash recovery with a CPU count different from the one at format time.
# The stripe count (s_cpus) is a property of the media; the scan threads
# depend on the running machine. Three boots on one NVDIMM:
#   1. --smp 1: format (1 stripe), workload, power cut
#   2. --smp 2: recover the 1-stripe fs with 2 CPUs, check; format again
#      (2 stripes), workload, power cut
#   3. --smp 1: recover the 2-stripe fs with 1 CPU, check
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
. tests/crash/host-lib.sh
crash_workdir crash-cpus
crash_points=0

# scan_threads BOOT: the thread count in the kernel's recovery line.
scan_threads() {
	sed -n 's/.*recovered in .*, \([0-9]*\) scan threads.*/\1/p' \
		"$crash_work/$1/results/01-step.tap" | head -n1
}
stripes() {
	sed -n 's/.*stripes: cpus=\([0-9]*\).*/\1/p' \
		"$crash_work/$1/results/01-step.tap" | head -n1
}

crash_boot boot0-smp1 1 fault 1500 mix 11 default
t_is "boot0: formatted with 1 vCPU: 1 stripe" "$(stripes boot0-smp1)" 1
if [ "$crash_broken" = 0 ]; then
	crash_boot boot1-smp2 2 fault 2500 rename 12 "" default
	t_is "boot1: 1 stripe recovered with 2 vCPUs by 1 scan thread" \
		"$(scan_threads boot1-smp2)" 1
	t_is "boot1: formatted again with 2 vCPUs: 2 stripes" \
		"$(stripes boot1-smp2)" 2
fi
if [ "$crash_broken" = 0 ]; then
	crash_boot boot2-smp1 1 none 0 "" 0
	t_is "boot2: 2 stripes recovered with 1 vCPU by 1 scan thread" \
		"$(scan_threads boot2-smp1)" 1
fi
t_diag "$crash_points crash points recovered and checked"
rm -rf "$crash_pmem"
t_done

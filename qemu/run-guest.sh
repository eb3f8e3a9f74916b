#!/usr/bin/env bash
# Boot the QEMU guest (TCG, emulated NVDIMMs) on the fresh build.
#
# usage: qemu/run-guest.sh [options] [TEST...]
#
#   TEST...            guest test scripts (paths relative to the repository)
#   --out DIR          results directory (default build/test-results/<stamp>)
#   --shell            interactive shell on the serial console (Ctrl-A X quits)
#   --script FILE      run FILE (not TAP) instead of tests, output on console
#   --systemd          boot systemd as init; the runner starts from a unit
#   --smp N            vCPUs (default 2)
#   --mem MiB          guest RAM (default 2048)
#   --pmem-count N     emulated NVDIMMs (default 1)
#   --pmem-size SIZE   size of each, QEMU syntax (default 1G)
#   --pmem-dir DIR     keep the NVDIMM backing files in DIR and reuse them
#                      on the next boot (crash tests); default: fresh files,
#                      removed after the run
#   --kill-on REGEX    cut the power (SIGKILL QEMU) once REGEX appears on
#   --kill-delay SECS  the console, after SECS more seconds (default 0)
#   --timeout SECS     hard wall-clock limit for the whole boot (default:
#                      600 for booting and set-up plus every test's own
#                      limit, "# nova-timeout: SECS" or 600, which the guest
#                      enforces per test; at least 1800, the limit of a
#                      --script boot; times nova_timeout_scale: 4 on
#                      KERNEL=debug)
#   --root-overlay F   boot the root disk through the qcow2 overlay F
#                      (made over the cached image on first use) and keep
#                      it, so what a boot changes in / is there on the
#                      next boot with the same F (tests that reboot);
#                      default: changes are discarded (snapshot=on)
#   --append ARGS      extra kernel command line
#   --live             copy the guest console to stdout while it runs
#   --qemu-arg ARG     pass ARG (one word) to QEMU; repeat for more words,
#                      e.g. --qemu-arg -icount --qemu-arg shift=auto (an
#                      -icount also selects single-threaded TCG: QEMU
#                      refuses MTTCG with icount)
#
# The repository is shared read-only at /nova, DIR read-write at /out.
# NOVA_GUEST_MODULE names the nova.ko the guest loads (default
# module/nova.ko, the production build; tests/run.sh sets
# build/module-test/nova.ko, the test build with its hooks).
# KERNEL=debug boots the debug lane's kernel (qemu/build-debug-kernel.sh;
# no initrd) with its modules in the image, and scales the guest's time
# limits (NOVA_TIMEOUT_SCALE, default 4 there).
# Exit status: 0 guest finished, 2 power cut by --kill-on as requested,
# 1 anything else (reason in DIR/host-status).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out= mode=tests script= init=pid1 smp=2 mem=2048 npmem=1 pmem_size=1G
pmem_dir= kill_on= kill_delay=0 timeout= append= live=0 root_overlay=
tests=() qemu_extra=()
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift ;;
	--shell) mode=shell ;;
	--script) mode=script; script=$2; shift ;;
	--systemd) init=systemd ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--pmem-count) npmem=$2; shift ;;
	--pmem-size) pmem_size=$2; shift ;;
	--pmem-dir) pmem_dir=$2; shift ;;
	--kill-on) kill_on=$2; shift ;;
	--kill-delay) kill_delay=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--root-overlay) root_overlay=$2; shift ;;
	--live) live=1 ;;
	--qemu-arg) qemu_extra+=("$2"); shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) nova_die "unknown option $1 (see --help)" ;;
	*) tests+=("$1") ;;
	esac
	shift
done

kver=$(nova_kver)
build=$(nova_build_dir)
scale=$(nova_timeout_scale)
# The boot may take as long as its tests may, one after the other (the
# guest stops each at its own limit, qemu/guest/main.sh); a fixed limit
# stopped long groups that were making progress.
if [ -z "$timeout" ]; then
	timeout=600
	for t in "${tests[@]}"; do
		case $t in /*) ;; *) t=$nova_top/$t ;; esac
		t=$(sed -n 's/^# nova-timeout: *\([0-9]\+\).*/\1/p' "$t" 2>/dev/null | head -n1)
		timeout=$(( timeout + ${t:-600} ))
	done
	[ "$timeout" -ge 1800 ] || timeout=1800
	timeout=$(( timeout * scale ))
fi
read -r kernel initrd <<< "$(nova_guest_kernel "$kver")"
if [ "${KERNEL:-}" = debug ]; then
	[ -r "$kernel" ] || nova_die "no $kernel: run qemu/build-debug-kernel.sh"
else
	[ -r "$kernel" ] && [ -r "$initrd" ] || nova_die "no $kernel / $initrd: run 'make deps'"
fi
# The module the guest loads, relative to the repository: the production
# build by default; tests/run.sh names the test build (make module-test).
module=${NOVA_GUEST_MODULE:-module/nova.ko}
case $module in
/*|*..*) nova_die "NOVA_GUEST_MODULE must be a path inside the repository: $module" ;;
esac
[ -f "$nova_top/$module" ] || {
	[ "$module" = module/nova.ko ] && nova_die "module/nova.ko is not built: run 'make'"
	nova_die "$module is not built: run 'make module-test'"
}
# A module built for the other kernel would only fail inside the guest,
# after the boot: say so now.
built_for=$(modinfo -F vermagic "$nova_top/$module" 2>/dev/null | cut -d' ' -f1)
[ -z "$built_for" ] || [ "$built_for" = "$kver" ] ||
	nova_die "$module is built for $built_for, the guest runs $kver: run 'make all module-test' with the same KERNEL/KVER"
rootfs=$(nova_rootfs)
root_drive="file=$rootfs,if=virtio,format=raw,snapshot=on"
if [ -n "$root_overlay" ]; then
	# The overlay names its backing image; one made over an older image
	# (a new rootfs recipe) would show a mix: start it again.
	if [ -f "$root_overlay" ] &&
	   [ "$(qemu-img info --output=json "$root_overlay" |
		python3 -c 'import json,sys; print(json.load(sys.stdin).get("backing-filename",""))')" != "$rootfs" ]; then
		rm -f "$root_overlay"
	fi
	[ -f "$root_overlay" ] ||
		qemu-img create -q -f qcow2 -b "$rootfs" -F raw "$root_overlay" ||
		nova_die "cannot create the root overlay $root_overlay"
	root_drive="file=$root_overlay,if=virtio,format=qcow2"
fi

[ -n "$out" ] || out=$build/test-results/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$out/results"
out=$(cd "$out" && pwd)
rm -f "$out/done" "$out/host-status"

# The plan and settings the guest runner reads from /out.
for t in "${tests[@]}"; do
	[ -f "$nova_top/$t" ] || nova_die "no such test: $t"
	echo "$t"
done > "$out/plan"
{
	echo "NOVA_MODE=$mode"
	echo "NOVA_SCRIPT=$script"
	echo "NOVA_PMEM_COUNT=$npmem"
	echo "NOVA_KVER=$kver"
	echo "NOVA_TIMEOUT_SCALE=$scale"
	echo "NOVA_MODULE_PATH=$module"
	# crash states per workload of the persistence checker (make crashtest)
	# and which workloads (default all)
	echo "NOVA_PCHECK_STATES=${NOVA_PCHECK_STATES:-}"
	echo "NOVA_PCHECK_WORKLOADS=\"${NOVA_PCHECK_WORKLOADS:-}\""
} > "$out/guest.env"

# Only one guest at a time: two TCG guests on two cores starve each other.
# NOVA_QEMU_LOCK_FILE lets several checkouts (git worktrees) share one lock.
if [ "${NOVA_QEMU_LOCK:-1}" = 1 ]; then
	exec 9> "${NOVA_QEMU_LOCK_FILE:-$build/qemu.lock}"
	if ! flock -n 9; then
		echo "nova: another guest is running; waiting for it" >&2
		flock 9
	fi
fi

pmem_keep=1
if [ -z "$pmem_dir" ]; then
	pmem_dir=$out/pmem
	pmem_keep=0
fi
mkdir -p "$pmem_dir"
pmem_args=()
for ((i = 0; i < npmem; i++)); do
	f=$pmem_dir/pmem$i.img
	[ -f "$f" ] || truncate -s "$pmem_size" "$f"
	pmem_args+=(-object "memory-backend-file,id=mem$i,share=on,mem-path=$f,size=$pmem_size"
		    -device "nvdimm,id=nv$i,memdev=mem$i")
done

cmdline="console=ttyS0,115200 root=/dev/vda rw fsck.mode=skip loglevel=5"
cmdline="$cmdline panic=-1 log_buf_len=8M mitigations=off random.trust_cpu=on"
# TCG on a busy two-core host is slow: generous lockup and stall thresholds
# keep emulation speed from looking like a kernel bug, while real hangs
# still show up as hung-task reports or as the hard timeout.
cmdline="$cmdline watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300"
cmdline="$cmdline sysctl.kernel.hung_task_timeout_secs=240"
if [ "$init" = systemd ]; then
	cmdline="$cmdline nova.mode=systemd systemd.show_status=0"
else
	cmdline="$cmdline init=/usr/local/sbin/nova-guest-boot"
fi
# The debug kernel has kmemleak built in but off (it slows every
# allocation): NOVA_KMEMLEAK=1 turns it on, and the guest's teardown then
# fails on leaks of nova.ko (qemu/guest/main.sh).
if [ "${KERNEL:-}" = debug ] && [ "${NOVA_KMEMLEAK:-0}" = 1 ]; then
	cmdline="$cmdline kmemleak=on"
fi
# The debug kernel runs with 4-level page tables: TCG's "-cpu max" offers
# LA57, and 6.1's identify_cpu() clears the CPU's feature bits for a
# moment at boot, so an interrupt then makes KASAN take a 5-level
# direct-map address for a wild access (a false report before nova.ko is
# loaded, which also turns lockdep off for the whole boot).
if [ "${KERNEL:-}" = debug ]; then
	cmdline="$cmdline no5lvl"
fi
cmdline="$cmdline$append"

maxmem=$(( mem + 1024 * npmem * 64 ))
tcg=tcg,thread=multi
for a in "${qemu_extra[@]}"; do [ "$a" != -icount ] || tcg=tcg,thread=single; done
qemu=(qemu-system-x86_64 -machine pc,nvdimm=on -accel "$tcg" -cpu max
	-smp "$smp" -m "${mem}M,slots=$(( npmem > 0 ? npmem : 1 )),maxmem=${maxmem}M"
	"${pmem_args[@]}"
	-kernel "$kernel" ${initrd:+-initrd "$initrd"} -append "$cmdline"
	-drive "$root_drive"
	-virtfs "local,path=$nova_top,mount_tag=nova,security_model=none,readonly=on"
	-virtfs "local,path=$out,mount_tag=out,security_model=none"
	-nic none -no-reboot "${qemu_extra[@]}")

cleanup_pmem() {
	[ "$pmem_keep" = 1 ] || rm -rf "$pmem_dir"
}

if [ "$mode" = shell ]; then
	"${qemu[@]}" -nographic
	cleanup_pmem
	exit 0
fi

console=$out/console.log
: > "$console"
start=$(date +%s)
"${qemu[@]}" -display none -monitor none -serial "file:$console" &
qpid=$!
if [ "$live" = 1 ]; then
	tail -n +1 -F --pid="$qpid" "$console" 2>/dev/null &
fi

status=
killed_at=
while kill -0 "$qpid" 2>/dev/null; do
	now=$(date +%s)
	if [ $(( now - start )) -ge "$timeout" ]; then
		status="timeout: guest still running after $timeout s"
		kill -KILL "$qpid" 2>/dev/null || true
		break
	fi
	if [ -n "$kill_on" ] && [ -z "$killed_at" ] && grep -Eq -- "$kill_on" "$console"; then
		killed_at=$now
	fi
	if [ -n "$killed_at" ] && [ $(( now - killed_at )) -ge "$kill_delay" ]; then
		kill -KILL "$qpid" 2>/dev/null || true
		status=power-cut
		break
	fi
	sleep 0.2
done
wait "$qpid" 2>/dev/null && qrc=0 || qrc=$?
echo "$(( $(date +%s) - start ))" > "$out/boot-seconds"
cleanup_pmem

if [ "$status" = power-cut ]; then
	echo "power cut as requested (--kill-on)" > "$out/host-status"
	exit 2
fi
if [ -n "$status" ]; then
	echo "$status" > "$out/host-status"
	exit 1
fi
if [ ! -f "$out/done" ]; then
	if grep -q 'Kernel panic' "$console"; then
		echo "guest kernel panicked (qemu exit $qrc)" > "$out/host-status"
	else
		echo "guest stopped before the runner finished (qemu exit $qrc)" > "$out/host-status"
	fi
	exit 1
fi
echo ok > "$out/host-status"
exit 0

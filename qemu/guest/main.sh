#!/bin/bash
# Guest side of the test harness, started by /usr/local/sbin/nova-guest-boot
# with the repository at /nova (read-only) and the results directory at
# /out. Reads /out/guest.env and /out/plan, written by qemu/run-guest.sh.
#
# For every test in the plan it writes, under /out/results/:
#   NN-NAME.tap    the test's stdout (TAP)
#   NN-NAME.err    its stderr
#   NN-NAME.rc     its exit status (124: killed by the timeout)
#   NN-NAME.klog   the kernel log written while it ran
#   NN-NAME.expect kernel log patterns it declared expected (if any)
# and /out/done when the whole plan ran.
set -u
top=/nova
out=/out
res=$out/results
. "$out/guest.env"

say() { echo "nova-guest: $*" > /dev/console; }

poweroff_now() {
	sync
	if [ "${NOVA_GUEST_PID1:-0}" = 1 ]; then
		echo o > /proc/sysrq-trigger
		# PID 1 must not exit; programs may no longer start from the
		# root disk while it goes down, so keep quiet and keep trying.
		while :; do sleep 1; done 2> /dev/null
	fi
	exit 0
}

# The NVDIMMs come up as raw namespaces, which have no DAX: turn each into
# fsdax (the info block is stored on the NVDIMM, so this happens once per
# backing file).
setup_pmem() {
	local ns i mode
	modprobe -q nfit && modprobe -q nd_pmem || return 1
	for ((i = 0; i < 100; i++)); do
		[ "$(ls -d /sys/bus/nd/devices/namespace*.0 2>/dev/null | wc -l)" -ge "$NOVA_PMEM_COUNT" ] && break
		sleep 0.1
	done
	for ns in /sys/bus/nd/devices/namespace*.0; do
		[ -e "$ns" ] || continue
		ns=${ns##*/}
		mode=$(ndctl list -n "$ns" 2>/dev/null | sed -n 's/.*"mode":"\([a-z]*\)".*/\1/p')
		if [ "$mode" != fsdax ]; then
			ndctl create-namespace --force --reconfig="$ns" --mode=fsdax --map=mem \
				> /dev/null 2> "$res/00-ndctl.err" || return 1
		fi
	done
	for ((i = 0; i < 100; i++)); do
		[ "$(ls /dev/pmem* 2>/dev/null | wc -l)" -ge "$NOVA_PMEM_COUNT" ] && return 0
		sleep 0.1
	done
	return 1
}

# With kmemleak on (the debug kernel booted with kmemleak=on, which
# NOVA_KMEMLEAK=1 asks for), scan for objects nobody references any more
# while nova.ko is still loaded, so that its frames have names, and put
# the ones nova allocated in zz-kmemleak.nova (in a form the watchdog
# flags). kmemleak reports only objects older than 5 s: the second scan
# after the pause sees what the last test freed or leaked. The whole
# report and kmemleak's own summary line (which counts every subsystem's
# suspects) go to zz-kmemleak.txt and zz-kmemleak.klog.
kmemleak_file() {
	local f=/sys/kernel/debug/kmemleak

	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
	[ -w "$f" ] && echo "$f"
}

# kmemleak's own thread scans every 10 minutes and logs a count of every
# subsystem's suspects, which the watchdog would pin on whichever test
# runs then: only the teardown scans.
kmemleak_setup() {
	local f

	f=$(kmemleak_file) || return 0
	echo scan=off 2> /dev/null > "$f" || true	# fails when kmemleak is off
}

kmemleak_check() {
	local f

	f=$(kmemleak_file) || return 0
	echo scan 2> /dev/null > "$f" || return 0	# kmemleak is off
	sleep 6
	echo scan > "$f"
	cat "$f" > "$res/zz-kmemleak.txt"
	dmesg -c > "$res/zz-kmemleak.klog"
	"$top/tests/lib/kmemleak-nova.sh" "$res/zz-kmemleak.txt" > "$res/zz-kmemleak.nova"
	say "kmemleak: $(grep -c '^unreferenced object' "$res/zz-kmemleak.txt") suspects, $(wc -l < "$res/zz-kmemleak.nova") of nova"
}

load_module() {
	local deps
	# A boot of a test that installed nova.ko into the root overlay
	# (--root-overlay) may find it loaded already, by an fstab mount.
	if lsmod | grep -q '^nova '; then
		say "nova.ko already loaded ($(modinfo -F filename nova 2>/dev/null))"
		return 0
	fi
	deps=$(modinfo -F depends "$NOVA_MODULE" | tr ',' ' ')
	[ -z "$deps" ] || modprobe -a $deps || return 1
	insmod "$NOVA_MODULE"
}

test_env() {
	export NOVA_TOP=$top
	export NOVA_MODULE=$top/${NOVA_MODULE_PATH:-module/nova.ko}
	export NOVA_PMEM=/dev/pmem0
	NOVA_PMEM_DEVS=$(ls /dev/pmem* 2>/dev/null | tr '\n' ' ')
	export NOVA_PMEM_DEVS
	export NOVA_MNT=/mnt/nova
	export NOVA_PCHECK_STATES NOVA_PCHECK_WORKLOADS
	# 1, or the debug lane's slowdown, for a test's own time windows
	export NOVA_TIMEOUT_SCALE=${NOVA_TIMEOUT_SCALE:-1}
	export NOVA_SCRATCH=/mnt/scratch
	export PATH=$top/build/bin:$PATH
	export TMPDIR=/tmp
	export HOME=/root
}

# A test may ask for more time with a line "# nova-timeout: SECONDS";
# the debug kernel's lane multiplies it by NOVA_TIMEOUT_SCALE.
test_timeout() {
	local t
	t=$(sed -n 's/^# nova-timeout: *\([0-9]\+\).*/\1/p' "$1" | head -n1)
	echo $(( ${t:-600} * ${NOVA_TIMEOUT_SCALE:-1} ))
}

run_plan() {
	local n=0 t name base tmo rc start
	while read -r t; do
		[ -n "$t" ] || continue
		n=$((n + 1))
		name=$(basename "$t" .sh)
		base=$res/$(printf '%02d' "$n")-$name
		tmo=$(test_timeout "$top/$t")
		say "RUN  $t"
		start=$(date +%s.%N)
		(
			cd /tmp || exit 1
			export NOVA_RESULT=$base NOVA_EXPECT=$base.expect
			exec timeout -k 10 "$tmo" bash "$top/$t"
		) > "$base.tap" 2> "$base.err" < /dev/null
		rc=$?
		echo "$rc" > "$base.rc"
		echo "$start $(date +%s.%N)" | awk '{ printf "%.1f\n", $2 - $1 }' > "$base.time"
		dmesg -c > "$base.klog" 2>/dev/null
		say "DONE $t rc=$rc ($(cat "$base.time") s)"
		# Leave a clean slate for the next test.
		umount -q -R /mnt/nova 2>/dev/null
		lsmod | grep -q '^nova ' || load_module
	done < "$out/plan"
}

# Without an initramfs (the debug kernel boots straight into the image)
# nobody made the /dev/fd links that bash's process substitution needs.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr

test_env
dmesg -n 5
say "guest up after $(cut -d' ' -f1 /proc/uptime) s"
if ! setup_pmem; then
	say "FATAL: no fsdax /dev/pmem device"
	dmesg > "$res/00-setup.klog"
	poweroff_now
fi
if ! load_module; then
	say "FATAL: cannot load nova.ko"
	dmesg > "$res/00-setup.klog"
	poweroff_now
fi
kmemleak_setup
dmesg > "$res/00-setup.klog"

case "$NOVA_MODE" in
shell)
	say "interactive shell; 'poweroff -f' or Ctrl-A X to leave"
	if [ "${NOVA_GUEST_PID1:-0}" = 1 ]; then
		setsid -c bash -l < /dev/ttyS0 > /dev/ttyS0 2>&1
	else
		bash -l < /dev/ttyS0 > /dev/ttyS0 2>&1
	fi
	;;
script)
	bash "$top/$NOVA_SCRIPT" > /dev/console 2>&1
	echo "$?" > "$res/script.rc"
	dmesg -c > "$res/script.klog"
	;;
*)
	dmesg -C
	run_plan
	dmesg -c > "$res/zz-teardown.klog"
	kmemleak_check
	# Unloading at the end checks that nothing leaked a reference.
	if lsmod | grep -q '^nova '; then
		rmmod nova 2> "$res/zz-unload.err"
		echo "$?" > "$res/zz-unload.rc"
	fi
	dmesg -c >> "$res/zz-teardown.klog"
	cat "$res/zz-kmemleak.nova" >> "$res/zz-teardown.klog" 2>/dev/null
	;;
esac
touch "$out/done"
say "all done after $(cut -d' ' -f1 /proc/uptime) s"
poweroff_now

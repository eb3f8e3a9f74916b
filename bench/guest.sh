#!/bin/bash
# Guest side of bench/run.sh, started by qemu/guest/main.sh in script mode
# (qemu/run-guest.sh --script bench/guest.sh). Reads its settings from
# /out/bench.env (written by bench/run.sh) and writes
#   /out/records.jsonl   one JSON record per measured figure (bench/results.py)
#   /out/raw/            fio's JSON output and the driver's output, per run
#   /out/guest-info      kernel, tool versions, CPU and memory of the guest
#   /out/bench-done      when the phase ran to its end
#
# Phases (BENCH_PHASE):
#   main      every file system in turn on /dev/pmem0, plus the raw device
#   crash     populate one file system per NVDIMM, then print the power-cut
#             marker and wait for the host to kill QEMU
#   recover   time the first mount of each of those file systems
set -u
top=${NOVA_TOP:-/nova}
out=/out
. "$out/bench.env"
B=$top/bench
raw=$out/raw
rec=$out/records.jsonl
mnt=/mnt/bench
mkdir -p "$raw" "$mnt"
export PATH=$top/build/bin:$PATH
BENCH_FIO_SIZE_BYTES=$(numfmt --from=iec "$BENCH_FIO_SIZE")
BENCH_MMAP_SIZE_BYTES=$(numfmt --from=iec "$BENCH_MMAP_SIZE")

log() { echo "nova-bench: $*"; }

results() { python3 "$B/results.py" "$@"; }

# record FS WORKLOAD JOBS METRIC VALUE UNIT BETTER
record() {
	results value --fs "$1" --workload "$2" --jobs "$3" --metric "$4" \
		--value "$5" --unit "$6" --better "$7" >> "$rec"
}

# unavailable FS WORKLOAD REASON: the figure does not exist, and why.
unavailable() {
	results na --fs "$1" --workload "$2" --reason "$3" >> "$rec"
}

# The last kernel log lines about a file system: the reason a mount failed
# is often only there (util-linux 2.38 uses mount(2), not fsconfig).
klog_reason() {
	dmesg | grep -iE "$1" | tail -n 2 | sed 's/^\[[ 0-9.]*\] //' | tr '\n' ' '
}

fs_type() {
	case "$1" in
	nova|nova-noprot) echo NOVA ;;
	ext4-dax) echo ext4 ;;
	xfs-dax) echo xfs ;;
	esac
}

# Mount data for the first (formatting) mount and for later mounts. NOVA
# chooses protection when it formats (-o init=force: the device holds the
# previous file system); a later mount takes it from the superblock and
# refuses a protection= that differs from it. BENCH_NOVA_OPTS (--nova-opts)
# adds options to both NOVA columns' formatting mount (alloc_bitmap).
fs_data() {	# FS init|again
	local more=${BENCH_NOVA_OPTS:+,$BENCH_NOVA_OPTS}
	case "$1:$2" in
	nova:init) echo "init=force$more" ;;
	nova:again|nova-noprot:again) echo "" ;;
	nova-noprot:init) echo "init=force,$BENCH_NOVA_OFF_OPTS$more" ;;
	*) echo dax ;;
	esac
}

# fs_make FS DEV DIR: a fresh file system of FS on DEV, mounted on DIR.
# Prints the reason on stdout and fails if it cannot be had.
fs_make() {
	local fs=$1 dev=$2 dir=$3 outp
	umount -q "$dir" 2>/dev/null
	case "$fs" in
	ext4-dax)
		# No lazy init: a background inode-table writer would run
		# during the measurements.
		# 4 KiB blocks always: DAX needs the page size, and mke2fs
		# would pick 1 KiB for a "small" (< 512 MiB) device.
		outp=$(mkfs.ext4 -F -q -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$dev" 2>&1) ||
			{ echo "mkfs.ext4 failed: $outp"; return 1; }
		;;
	xfs-dax)
		outp=$(mkfs.xfs -f -q -m reflink=0 "$dev" 2>&1) ||
			{ echo "mkfs.xfs failed: $outp"; return 1; }
		;;
	esac
	dmesg -C
	# mount(2) from the driver: its error is errno and the kernel's
	# message, without mount(8)'s boilerplate.
	if ! outp=$(nova-bench-meta mount -k -R 1 -T "$(fs_type "$fs")" -o "$(fs_data "$fs" init)" \
		"$dev" "$dir" 2>&1 > /dev/null); then
		echo "${outp#nova-bench-meta: }; kernel: $(klog_reason 'nova|ext4|xfs|dax')" | tr -s ' \n' '  '
		return 1
	fi
	case "$fs" in
	nova|nova-noprot)
		# What the kernel shows of the options (alloc_bitmap, protection=off).
		grep -E "^$dev $dir " /proc/mounts >> "$raw/$fs-mounts.txt"
		;;
	ext4-dax|xfs-dax)
		if ! grep -E "^$dev $dir " /proc/mounts | grep -qw -E 'dax|dax=always'; then
			echo "mounted without DAX: $(grep -E "^$dev " /proc/mounts)"
			umount "$dir"
			return 1
		fi
		;;
	esac
	return 0
}

# ns per operation: instructions per operation in the reference mode.
BENCH_NS_OP=
[ "$BENCH_MODE" != reference ] || BENCH_NS_OP=1
fio_common=(--ioengine=psync --group_reporting --output-format=json)

# NOVA's persistence counters (module/stats.c): fences and write-back
# calls since the module was loaded, "-" when not there.
nova_counters() {
	local p=/sys/module/nova/parameters
	if [ -r $p/fences ] && [ -r $p/flushes ]; then
		echo "$(cat $p/fences) $(cat $p/flushes)"
	else
		echo "- -"
	fi
}

# fio_run FS WORKLOAD JOBS ARGS...: one fio run, its records appended.
# On NOVA also fences and write-backs per operation (pwrite/pread).
fio_run() {
	local fs=$1 wl=$2 jobs=$3 f c0 c1
	shift 3
	f=$raw/$fs-$wl-j$jobs.json
	log "$fs: fio $wl, $jobs job(s)"
	c0=$(nova_counters)
	if fio "${fio_common[@]}" --numjobs="$jobs" --output="$f" "$@" > "$f.err" 2>&1; then
		c1=$(nova_counters)
		results fio --fs "$fs" --workload "$wl" --jobs "$jobs" \
			${BENCH_NS_OP:+--ns-op} "$f" >> "$rec" ||
			unavailable "$fs" "$wl" "fio output not understood (raw/${f##*/})"
		case "$fs" in
		nova*)	[ "${c0% *}" = - ] ||
			results fio-counters --fs "$fs" --workload "$wl" \
				--jobs "$jobs" --before "$c0" --after "$c1" "$f" >> "$rec" ;;
		esac
	else
		unavailable "$fs" "$wl" "fio failed: $(tail -n 3 "$f.err" | tr '\n' ' ')"
	fi
}

# The device's own copy bandwidth: memcpy through a DAX mapping of a file
# on the file system just measured (no file system code runs while timed).
memcpy_ceiling() {
	local j
	for j in $BENCH_JOBS; do
		driver memcpy "j$j" memcpy -S "$BENCH_FIO_SIZE_BYTES" -t "$BENCH_FIO_RUNTIME" -p "$j" "$mnt"
	done
}

fio_fs() {
	local fs=$1 j d=$mnt/fio
	local data=(--directory="$d" --name=data --size="$BENCH_FIO_SIZE")
	local timed=(--time_based --runtime="$BENCH_FIO_RUNTIME")
	mkdir -p "$d"
	# Lay out the data files of the largest job count once, so the timed
	# runs overwrite and read written data on every file system.
	fio "${fio_common[@]}" "${data[@]}" --numjobs="${BENCH_JOBS##* }" --rw=write --bs=2M \
		--output="$raw/$fs-layout.json" > /dev/null 2>&1
	for j in $BENCH_JOBS; do
		fio_run "$fs" seqwrite-2m "$j" "${data[@]}" "${timed[@]}" --rw=write --bs=2M
		fio_run "$fs" seqread-2m "$j" "${data[@]}" "${timed[@]}" --rw=read --bs=2M
		fio_run "$fs" randwrite-4k "$j" "${data[@]}" "${timed[@]}" --rw=randwrite --bs=4k
		fio_run "$fs" randread-4k "$j" "${data[@]}" "${timed[@]}" --rw=randread --bs=4k
		# The reference mode measures the data rows only, unless asked
		# for the metadata rows (BENCH_META_N), which this one joins.
		[ "$BENCH_MODE" != reference ] || [ "${BENCH_META_N:-0}" -gt 0 ] ||
			continue
		fio_run "$fs" append-fsync-4k "$j" --directory="$d" --name=append \
			--size="$BENCH_FIO_SIZE" "${timed[@]}" --rw=write --bs=4k \
			--file_append=1 --fsync=1
		rm -f "$d"/append.*
	done
	rm -rf "$d"
}

# The cost of snapshots on the data rows (BENCH_SNAPSHOT_ROWS=1, the
# default in the reference mode; NOVA only): the layout and the four data
# rows of fio_fs again, (1) "nova-snap": with a snapshot taken after the
# layout, so overwrites keep the pages it shows (keep records), and (2)
# "nova-browsed": the same while a process holds every laid-out file open
# under .snapshots/<snap>/ (read once in full, then left open: view inodes
# in memory and their logs pinned against thorough GC). Each variant starts
# from an empty directory and ends by deleting the snapshot (-w).
snap_rows() {
	local fs=$1 j d=$mnt/fio v pid label ready=/tmp/bench-view-ready
	local data=(--directory="$d" --name=data --size="$BENCH_FIO_SIZE")
	local timed=(--time_based --runtime="$BENCH_FIO_RUNTIME")
	for label in snap browsed; do
		mkdir -p "$d"
		fio "${fio_common[@]}" "${data[@]}" --numjobs="${BENCH_JOBS##* }" --rw=write --bs=2M \
			--output="$raw/$fs-$label-layout.json" > /dev/null 2>&1
		if ! novactl snapshot create -n bench "$mnt" > /dev/null 2> "$raw/$fs-$label-snap.err"; then
			unavailable "$fs-$label" "*" "snapshot create failed: $(tr '\n' ' ' < "$raw/$fs-$label-snap.err")"
			rm -rf "$d"
			continue
		fi
		pid=
		v=$mnt/.snapshots/bench/fio
		if [ "$label" = browsed ]; then
			rm -f "$ready"
			python3 -c '
import os, sys, time
fs = [open(os.path.join(sys.argv[1], n), "rb") for n in sorted(os.listdir(sys.argv[1]))]
for f in fs:
    while f.read(1 << 20):
        pass
open(sys.argv[2], "w").close()
time.sleep(100000)' "$v" "$ready" &
			pid=$!
			for _ in $(seq 600); do
				[ -e "$ready" ] || ! kill -0 "$pid" 2>/dev/null || { sleep 0.1; continue; }
				break
			done
			if [ ! -e "$ready" ]; then
				unavailable "$fs-$label" "*" "could not open and read the files under $v"
				kill "$pid" 2>/dev/null
				wait "$pid" 2>/dev/null
				pid=
			fi
		fi
		if [ "$label" = snap ] || [ -n "$pid" ]; then
			for j in $BENCH_JOBS; do
				fio_run "$fs-$label" seqwrite-2m "$j" "${data[@]}" "${timed[@]}" --rw=write --bs=2M
				fio_run "$fs-$label" seqread-2m "$j" "${data[@]}" "${timed[@]}" --rw=read --bs=2M
				fio_run "$fs-$label" randwrite-4k "$j" "${data[@]}" "${timed[@]}" --rw=randwrite --bs=4k
				fio_run "$fs-$label" randread-4k "$j" "${data[@]}" "${timed[@]}" --rw=randread --bs=4k
			done
		fi
		if [ -n "$pid" ]; then
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
		fi
		rm -rf "$d"
		novactl snapshot delete -w "$mnt" bench > /dev/null ||
			log "$fs: deleting snapshot bench failed"
	done
}

# driver FS NAME ARGS...: run nova-bench-meta, its records appended.
driver() {
	local fs=$1 name=$2 f
	shift 2
	f=$raw/$fs-$name.jsonl
	log "$fs: nova-bench-meta $*"
	if nova-bench-meta "$@" > "$f" 2> "$f.err"; then
		results driver --fs "$fs" "$f" >> "$rec"
	else
		unavailable "$fs" "$name" "nova-bench-meta $1 failed: $(tail -n 2 "$f.err" | tr '\n' ' ')"
	fi
}

meta_fs() {
	local fs=$1 p
	driver "$fs" meta meta -D -n "$BENCH_META_N" -b "$BENCH_META_BYTES" "$mnt"
	[ "$BENCH_TREE_DEPTH" -eq 0 ] ||
		driver "$fs" tree tree -d "$BENCH_TREE_DEPTH" -f "$BENCH_TREE_FANOUT" "$mnt"
	for p in $BENCH_MIX_PROCS; do
		driver "$fs" "fileserver-p$p" fileserver -n "$BENCH_MIX_FILES" -t "$BENCH_MIX_SECONDS" -p "$p" "$mnt"
		driver "$fs" "varmail-p$p" varmail -n "$BENCH_MIX_FILES" -t "$BENCH_MIX_SECONDS" -p "$p" "$mnt"
	done
}

# 4 KiB random stores and loads through a mapping of a BENCH_MMAP_SIZE file
# (issue 21), on a fresh file system and again after aging it as
# tests/guest/mmap-pmd.sh does (bench/age.py); the driver reports the page
# faults of touching every page and the share mapped by 2 MiB PMDs. Its
# own mkfs: the rows before leave a used file system behind.
mmap_fs() {
	local fs=$1 reason
	if ! reason=$(fs_make "$fs" /dev/pmem0 "$mnt"); then
		unavailable "$fs" mmap "$reason"
		return
	fi
	driver "$fs" mmap-fresh mmap -S "$BENCH_MMAP_SIZE_BYTES" -t "$BENCH_MMAP_SECONDS" -l fresh "$mnt"
	log "$fs: aging (bench/age.py)"
	if python3 "$B/age.py" "$mnt/age" > "$raw/$fs-age.txt" 2>&1; then
		driver "$fs" mmap-aged mmap -S "$BENCH_MMAP_SIZE_BYTES" -t "$BENCH_MMAP_SECONDS" -l aged "$mnt"
	else
		unavailable "$fs" mmap-aged "aging failed: $(tail -n 2 "$raw/$fs-age.txt" | tr '\n' ' ')"
	fi
	rm -rf "$mnt/age"
}

# Mount time after a clean unmount, on the file system the workloads left.
mount_fs() {
	local fs=$1
	sync
	umount "$mnt" || { unavailable "$fs" mount "umount failed"; return; }
	driver "$fs" mount mount -T "$(fs_type "$fs")" -o "$(fs_data "$fs" again)" \
		-R "$BENCH_MOUNT_REPEATS" /dev/pmem0 "$mnt"
}

raw_device() {
	local dev=/dev/pmem0 j
	local common=(--filename="$dev" --direct=1 --size="$BENCH_FIO_SIZE" --offset_increment="$BENCH_FIO_SIZE")
	local timed=(--time_based --runtime="$BENCH_FIO_RUNTIME")
	for j in $BENCH_JOBS; do
		fio_run raw seqwrite-2m "$j" --name=raw "${common[@]}" "${timed[@]}" --rw=write --bs=2M
		fio_run raw seqread-2m "$j" --name=raw "${common[@]}" "${timed[@]}" --rw=read --bs=2M
		fio_run raw randwrite-4k "$j" --name=raw "${common[@]}" "${timed[@]}" --rw=randwrite --bs=4k
		fio_run raw randread-4k "$j" --name=raw "${common[@]}" "${timed[@]}" --rw=randread --bs=4k
	done
}

# The crc32c implementation the crypto API hands out (highest priority
# among the registered ones; libcrc32c and NOVA's log and data checksums
# without the crc32q loop go through it), and whether the CPU has SSE4.2
# (NOVA's inline crc32q loop, module/csum.c, needs it).
crc32c_driver() {
	local d
	modprobe -q crc32c_intel 2>/dev/null
	modprobe -q crc32c_generic 2>/dev/null
	d=$(awk '/^name/ { n = $3 } /^driver/ { d = $3 } /^priority/ { p = $3 }
		/^$/ { if (n == "crc32c" && p > best) { best = p; bd = d }; n = "" }
		END { if (bd != "") printf "%s (priority %d)", bd, best }' /proc/crypto)
	echo "${d:-none registered}, sse4_2 $(grep -qw sse4_2 /proc/cpuinfo && echo yes || echo no)"
}

guest_info() {
	{
		echo "kernel=$(uname -r)"
		echo "kernel_version=$(uname -v)"
		echo "fio=$(fio --version)"
		echo "e2fsprogs=$(mkfs.ext4 -V 2>&1 | head -n1)"
		echo "xfsprogs=$(mkfs.xfs -V 2>&1 | head -n1)"
		echo "cpus=$(nproc)"
		echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)"
		# the copy routines the kernel picks depend on these
		echo "cpu_flags=$(grep -o -w -E 'erms|fsrm|avx2|avx512f|clwb|clflushopt' /proc/cpuinfo | sort -u | xargs)"
		echo "mem_kib=$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
		echo "pmem_bytes=$(blockdev --getsize64 /dev/pmem0)"
		echo "nova_module=$(modinfo -F srcversion "$top/module/nova.ko" 2>/dev/null)"
		echo "crc32c=$(crc32c_driver)"
	} > "$out/guest-info"
}

phase_main() {
	local fs reason start ceiling_fs nova_ok=0
	guest_info
	if [ "$BENCH_MODE" != reference ]; then
		log "raw device ceiling"
		raw_device
	fi
	ceiling_fs=$(for fs in $BENCH_FS; do case $fs in ext4-dax|xfs-dax) echo "$fs" ;; esac; done | head -n1)
	[ -n "$ceiling_fs" ] || [ "$BENCH_MODE" = reference ] || unavailable memcpy "*" "needs ext4-dax or xfs-dax in the run (a DAX file to map)"
	for fs in $BENCH_FS; do
		start=$(cut -d' ' -f1 /proc/uptime)
		log "$fs: mkfs and mount"
		if ! reason=$(fs_make "$fs" /dev/pmem0 "$mnt"); then
			if [ "$fs" = nova-noprot ] && [ "$nova_ok" = 1 ]; then
				reason="NOVA mounts, but not with '$BENCH_NOVA_OFF_OPTS' (protection off not supported yet): $reason"
			fi
			log "$fs: not available: $reason"
			unavailable "$fs" "*" "$reason"
			continue
		fi
		[ "$fs" != nova ] || nova_ok=1
		fio_fs "$fs"
		if [ "$fs" = nova ] && [ "${BENCH_SNAPSHOT_ROWS:-0}" = 1 ]; then
			log "$fs: the data rows with a snapshot, and with a browsed one"
			snap_rows "$fs"
		fi
		if [ "$BENCH_MODE" != reference ]; then
			if [ "$fs" = "$ceiling_fs" ]; then
				log "$fs: memcpy ceiling through a DAX mapping"
				memcpy_ceiling
			fi
			meta_fs "$fs"
			mount_fs "$fs"
		elif [ "${BENCH_META_N:-0}" -gt 0 ]; then
			meta_fs "$fs"	# instructions per metadata operation
		fi
		[ "$fs" = nova-noprot ] || mmap_fs "$fs"
		umount -q "$mnt" 2>/dev/null
		touch "$out/done-$fs"
		log "$fs: done in $(awk -v s="$start" '{ printf "%.0f", $1 - s }' /proc/uptime) s"
	done
}

# Devices of the crash/recover phases: BENCH_CRASH_PLAN lines "DEV FS COUNT".
phase_crash() {
	local dev fs n reason
	guest_info
	while read -r dev fs n; do
		[ -n "$dev" ] || continue
		mkdir -p "$mnt-${dev##*/}"
		if ! reason=$(fs_make "$fs" "$dev" "$mnt-${dev##*/}"); then
			log "$fs: not available: $reason"
			unavailable "$fs" "recovery-$n" "$reason"
			continue
		fi
		driver "$fs" "populate-$n" populate -n "$n" -b "$BENCH_META_BYTES" "$mnt-${dev##*/}"
		echo "$dev $fs $n" >> "$out/crash-populated"
	done <<< "$BENCH_CRASH_PLAN"
	touch "$out/bench-done"
	log "populated; file systems stay mounted"
	sync
	# The host cuts the power when it sees this line (--kill-on).
	echo "NOVA-BENCH-POWER-CUT-NOW" > /dev/console
	sleep 600
}

phase_recover() {
	local dev fs n f got
	guest_info
	[ -f "$out/crash-populated" ] || return 0
	while read -r dev fs n; do
		f=$raw/$fs-recovery-$n.jsonl
		mkdir -p "$mnt-${dev##*/}"
		dmesg -C
		log "$fs: recovery mount of $n files"
		prof=()
		# BENCH_RECOVERY_PERF=1: a perf profile of the recovery mount.
		[ "${BENCH_RECOVERY_PERF:-0}" = 0 ] ||
			prof=(perf record -q -e cpu-clock -F 20000 -a -g -o "/tmp/rec-$fs-$n.data" --)
		if ! "${prof[@]}" nova-bench-meta mount -k -R 1 -T "$(fs_type "$fs")" -o "$(fs_data "$fs" again)" \
			"$dev" "$mnt-${dev##*/}" > "$f" 2> "$f.err"; then
			unavailable "$fs" "recovery-$n" "mount after power cut failed: $(tail -n 1 "$f.err") $(klog_reason 'nova|ext4|xfs')"
			continue
		fi
		dmesg > "$out/$fs-recovery-$n.dmesg" 2>&1
		if [ ${#prof[@]} -gt 0 ]; then
			perf report -i "/tmp/rec-$fs-$n.data" --stdio --no-children --sort sym \
				--percent-limit 0.5 -g none > "$out/$fs-recovery-$n.report" 2> /dev/null
			perf report -i "/tmp/rec-$fs-$n.data" --stdio --no-children --sort sym \
				--percent-limit 2 -g caller,0.5,2 --max-stack 16 \
				> "$out/$fs-recovery-$n.callers" 2> /dev/null
			rm -f "/tmp/rec-$fs-$n.data"
		fi
		got=$(find "$mnt-${dev##*/}/pop" -type f 2>/dev/null | wc -l)
		if awk -v d="$mnt-${dev##*/}" '$2 == d { split($4, o, ","); if (o[1] == "ro") ro = 1 } END { exit !ro }' /proc/mounts; then
			# It came up, but read-only: nothing was recovered.
			unavailable "$fs" "recovery-$n" "read-only after the power cut ($got of $n files visible), so no recovery to time: $(klog_reason 'nova|ext4|xfs')"
		elif [ "$got" != "$n" ]; then
			unavailable "$fs" "recovery-$n" "recovered $got of $n files"
		else
			results driver --fs "$fs" --workload "recovery-$n" "$f" >> "$rec"
		fi
		umount "$mnt-${dev##*/}"
	done < "$out/crash-populated"
}

dmesg -n 1
log "phase $BENCH_PHASE starts after $(cut -d' ' -f1 /proc/uptime) s"
case "$BENCH_PHASE" in
main) phase_main ;;
crash) phase_crash ;;
recover) phase_recover ;;
*) log "unknown phase $BENCH_PHASE"; exit 1 ;;
esac
touch "$out/bench-done"
log "phase $BENCH_PHASE done after $(cut -d' ' -f1 /proc/uptime) s"

#!/bin/bash
# Guest side of bench/profile.sh (qemu/run-guest.sh --script). For each
# file system in PROFILE_FS, a fresh file system on /dev/pmem0, the data
# files laid out (one per job, for the most jobs asked), then each fio
# workload of PROFILE_WORKLOAD (W or W:JOBS, space-separated) under a
# system-wide perf profile (cpu-clock: TCG guests have no hardware PMU).
# Writes, per file system and workload (T = FS-W-JOBSj),
#   /out/T.fio.json     fio's result
#   /out/T.report       perf report: self time by symbol
#   /out/T.tasks        perf report: self time by task and symbol
#   /out/T.flat         perf report: self time by symbol down to 0.05 %,
#                       no call graphs (the small costs of one path)
#   /out/T.callers      perf report: who calls the top symbols
set -u
top=${NOVA_TOP:-/nova}
out=/out
. "$out/profile.env"
mnt=/mnt/prof
dev=/dev/pmem0
mkdir -p "$mnt"
# perf writes its samples to a tmpfs, not to /out: writes through 9p
# (kmalloc'd request buffers, zeroed) showed as a few % of every profile.
pdata=/run/nova-profile
mkdir -p "$pdata"
mount -t tmpfs -o size=512m tmpfs "$pdata" || log "no tmpfs for perf data; using $pdata on the root fs"
export PATH=$top/build/bin:$PATH

log() { echo "nova-profile: $*"; }

fs_mount() {	# FS
	case "$1" in
	nova) mount -t NOVA -o init=force "$dev" "$mnt" ;;
	nova-noprot) mount -t NOVA -o init=force,protection=off "$dev" "$mnt" ;;
	ext4-dax) mkfs.ext4 -F -q -b 4096 "$dev" && mount -o dax "$dev" "$mnt" ;;
	xfs-dax) mkfs.xfs -f -q -m reflink=0 "$dev" && mount -o dax "$dev" "$mnt" ;;
	*) log "unknown file system $1"; return 1 ;;
	esac
}

workload_args() {	# WORKLOAD
	case "$1" in
	randwrite-4k) echo "--rw=randwrite --bs=4k" ;;
	seqwrite-2m) echo "--rw=write --bs=2M" ;;
	randread-4k) echo "--rw=randread --bs=4k" ;;
	seqread-2m) echo "--rw=read --bs=2M" ;;
	*) return 1 ;;
	esac
}

# The NVDIMM's backing file on the host is sparse: the first store to each
# page costs a host page fault, which a copy-on-write file system pays on
# every fresh block and an in-place one only while laying out its file.
# PROFILE_PREFILL=1 writes the whole device once first, as real PMEM is.
if [ "${PROFILE_PREFILL:-0}" = 1 ]; then
	log "writing all of $dev once"
	dd if=/dev/zero of="$dev" bs=2M oflag=direct status=none
fi

max_jobs=$PROFILE_JOBS
for w in $PROFILE_WORKLOAD; do
	workload_args "${w%%:*}" > /dev/null || { log "unknown workload ${w%%:*}"; exit 1; }
	[[ "$w" != *:* ]] || [ "${w#*:}" -le "$max_jobs" ] || max_jobs=${w#*:}
done
common=(--ioengine=psync --group_reporting --directory="$mnt" --name=data
	--size="$PROFILE_SIZE")
for fs in $PROFILE_FS; do
	umount -q "$mnt" 2>/dev/null
	if ! fs_mount "$fs"; then
		log "$fs: mount failed: $(dmesg | tail -n 2 | tr '\n' ' ')"
		continue
	fi
	fio "${common[@]}" --numjobs="$max_jobs" --rw=write --bs=2M > /dev/null 2>&1
	for w in $PROFILE_WORKLOAD; do
		jobs=$PROFILE_JOBS
		[[ "$w" != *:* ]] || jobs=${w#*:}
		w=${w%%:*}
		t=$fs-$w-${jobs}j
		wl=$(workload_args "$w")
		log "$fs: profiling $w, $jobs job(s), $PROFILE_RUNTIME s"
		# shellcheck disable=SC2086 # $wl is two fio options
		perf record -q -e cpu-clock -F 2000 -a -g -o "$pdata/$t.data" -- \
			fio "${common[@]}" --numjobs="$jobs" $wl --time_based \
			--runtime="$PROFILE_RUNTIME" --output-format=json \
			--output="$out/$t.fio.json" > "$out/$t.perf.err" 2>&1
		perf report -i "$pdata/$t.data" --stdio --no-children --sort sym \
			--percent-limit 0.5 > "$out/$t.report" 2> /dev/null
		perf report -i "$pdata/$t.data" --stdio --no-children --sort comm,sym \
			--percent-limit 1 -g none > "$out/$t.tasks" 2> /dev/null
		perf report -i "$pdata/$t.data" --stdio --no-children --sort sym \
			--percent-limit 0.05 -g none > "$out/$t.flat" 2> /dev/null
		perf report -i "$pdata/$t.data" --stdio --no-children --sort sym \
			--percent-limit 2 -g callee,0.5,2 --max-stack 16 \
			> "$out/$t.callers" 2> /dev/null
		rm -f "$pdata/$t.data"
	done
	umount "$mnt"
done
touch "$out/profile-done"

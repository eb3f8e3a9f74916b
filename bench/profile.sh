#!/usr/bin/env bash
# Where the time goes: one fio workload on each file system under perf in
# the guest (system-wide cpu-clock samples, call graphs), in one boot on
# one emulated NVDIMM. For finding out why NOVA falls short of a baseline
# in bench/run.sh's table; the figures are relative (TCG), see docs/bench.md.
#
# usage: bench/profile.sh [--fs LIST] [--workload W] [--jobs N]
#                         [--runtime SECS] [--size SIZE] [--prefill]
#                         [--pmem-dir DIR|disk] [--icount[=SPEC]] [--out DIR]
#   --fs LIST      comma-separated, of nova,nova-noprot,ext4-dax,xfs-dax
#                  (default nova,ext4-dax)
#   --workload W   randwrite-4k (default), seqwrite-2m, randread-4k,
#                  seqread-2m; a comma-separated list runs each in turn
#                  on the same file system (one boot), and W:N runs W
#                  with N jobs
#   --jobs N       fio jobs of a workload without :N (default 1)
#   --runtime S    seconds under the profiler (default 5)
#   --size SIZE    data file per job (default 64M)
#   --pmem-size S  the NVDIMM (default 1G)
#   --prefill      write the whole NVDIMM once before the first file system
#                  (the host backing file is sparse: see profile-guest.sh)
#   --pmem-dir D   where the NVDIMM backing file lives (default: a fresh
#                  directory in /dev/shm, so that host writeback of a
#                  disk file does not make guest stores fault; "disk" keeps
#                  it in the output directory as the test runs do)
#   --icount[=SPEC]  run QEMU with -icount SPEC (default shift=auto),
#                  single-threaded TCG, as bench/run.sh --icount does
#   --reference    as bench/run.sh --reference: -icount shift=0,sleep=off
#                  on one vCPU, so samples count guest instructions
#   --out DIR      default build/bench/profile-<stamp>
#
# Prints, per file system, fio's IOPS and bandwidth and the symbols with
# the most self time; the full reports are in DIR.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top"

fs_list="nova ext4-dax" workload=randwrite-4k jobs=1 runtime=5 size=64M out= prefill=0 pmem_dir=
icount= pmem_size=1G smp=2
while [ $# -gt 0 ]; do
	case "$1" in
	--fs) fs_list=$(tr ',' ' ' <<< "$2"); shift ;;
	--workload) workload=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--runtime) runtime=$2; shift ;;
	--size) size=$2; shift ;;
	--pmem-size) pmem_size=$2; shift ;;
	--out) out=$2; shift ;;
	--prefill) prefill=1 ;;
	--icount) icount=shift=auto ;;
	--icount=*) icount=${1#--icount=} ;;
	--reference) icount=shift=0,sleep=off smp=1 ;;
	--pmem-dir) pmem_dir=$2; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) nova_die "profile: unknown argument $1 (see --help)" ;;
	esac
	shift
done
workload=$(tr ',' ' ' <<< "$workload")
for w in $workload; do
	case "${w%%:*}" in
	randwrite-4k|seqwrite-2m|randread-4k|seqread-2m) ;;
	*) nova_die "profile: unknown workload '${w%%:*}'" ;;
	esac
	[[ "$w" != *:* ]] || [[ "${w#*:}" =~ ^[1-9][0-9]*$ ]] ||
		nova_die "profile: '$w': the jobs after : want a positive number"
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || nova_die "profile: --jobs wants a positive number"
[[ "$runtime" =~ ^[1-9][0-9]*$ ]] || nova_die "profile: --runtime wants seconds"
for fs in $fs_list; do
	case "$fs" in
	nova|nova-noprot|ext4-dax|xfs-dax) ;;
	*) nova_die "profile: unknown file system '$fs'" ;;
	esac
done

[ -n "$out" ] || out=$(nova_build_dir)/bench/profile-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
{
	printf 'PROFILE_FS=%q\n' "$fs_list"
	printf 'PROFILE_WORKLOAD=%q\n' "$workload"
	echo "PROFILE_JOBS=$jobs"
	echo "PROFILE_RUNTIME=$runtime"
	echo "PROFILE_SIZE=$size"
	echo "PROFILE_PREFILL=$prefill"
} > "$out/profile.env"
pmem_args=()
if [ -z "$pmem_dir" ]; then
	pmem_dir=$(mktemp -d /dev/shm/nova-profile.XXXXXX)
	trap 'rm -rf "$pmem_dir"' EXIT
	# Allocated in full, as bench/run.sh does (no SIGBUS when short).
	fallocate -l "$pmem_size" "$pmem_dir/pmem0.img" ||
		nova_die "profile: cannot allocate $pmem_size in $pmem_dir"
fi
[ "$pmem_dir" = disk ] || pmem_args=(--pmem-dir "$pmem_dir")
qemu_args=()
if [ -n "$icount" ]; then
	# As in bench/run.sh: the TSC is the virtual clock under icount.
	hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(nova_kver)" 2>/dev/null)
	qemu_args=(--qemu-arg -icount --qemu-arg "$icount"
		   --append "tsc=reliable lpj=$(( 1000000000 / ${hz:-250} ))")
fi
echo "icount: ${icount:-off}" > "$out/accel"
qemu/run-guest.sh --script bench/profile-guest.sh --out "$out" --pmem-size "$pmem_size" \
	--smp "$smp" --mem 2048 --timeout 1200 "${pmem_args[@]}" "${qemu_args[@]}"
[ -f "$out/profile-done" ] || nova_die "profile: the guest run did not finish: see $out/console.log"

for fs in $fs_list; do
	for w in $workload; do
		j=$jobs
		[[ "$w" != *:* ]] || j=${w#*:}
		t=$fs-${w%%:*}-${j}j
		[ -f "$out/$t.fio.json" ] || { echo "== $t: no result (see $out)"; continue; }
		python3 - "$out/$t.fio.json" "$t" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
w, r = j["write"], j["read"]
io = w if w["io_bytes"] else r
print("== %s: %.0f IOPS, %.0f MiB/s" % (sys.argv[2], io["iops"], io["bw"] / 1024))
PY
		grep -E '^ +[0-9.]+%' "$out/$t.report" | head -n 25
	done
done
echo "reports: $out"

#!/usr/bin/env bash
# NOVA side by side with ext4-dax and xfs-dax, in one guest boot on one
# emulated NVDIMM (make bench). See docs/bench.md.
#
# usage: bench/run.sh [--quick|--full|--reference] [--icount[=SPEC]] [--fs LIST] [options]
#
#   --quick            about 5 minutes of guest time (default)
#   --full             bigger sizes, longer runs, recovery after power cuts
#                      (up to about 45 minutes)
#   --reference        deterministic instruction counts: -icount
#                      shift=0,sleep=off on ONE vCPU, so a guest nanosecond
#                      is one executed instruction; only the 1-job data
#                      rows (2 MiB sequential write and read, 4 KiB random
#                      overwrite and read) and the mmap rows (fresh and
#                      aged), reported as ns (= guest
#                      instructions) per operation and their ratios;
#                      nova, nova-noprot and ext4-dax unless --fs says
#                      otherwise (a few minutes); BENCH_META_N=N adds the
#                      metadata rows (N files) and 4 KiB append+fsync
#   --icount[=SPEC]    run QEMU with -icount SPEC (default shift=auto),
#                      single-threaded TCG
#   --fs LIST          comma-separated subset of
#                      nova,nova-noprot,ext4-dax,xfs-dax (default: all)
#   --nova-off-opts O  mount options that turn NOVA's data protection off
#                      (default protection=off); n/a when NOVA rejects them
#   --nova-opts O      more options for the mount that makes each NOVA
#                      file system (init=force,O; both NOVA columns), e.g.
#                      alloc_bitmap; n/a when NOVA rejects them
#   --work DIR         guest output directory (default build/bench/<stamp>)
#   --results DIR      where the report goes (default bench/results)
#   --no-report-copy   leave the report in the work directory only
#   --pmem-dir DIR|disk  where the NVDIMM backing files live on the host
#                      (default: a fresh directory in /dev/shm, allocated in
#                      full before each boot and removed on exit; "disk"
#                      keeps sparse files under the work directory, as the
#                      test runs do: a copy-on-write file system then pays
#                      host page faults on every fresh block)
#
# Sizes come from the mode; any BENCH_* variable of the mode (see below)
# can be overridden from the environment for a smaller development run,
# e.g. BENCH_FIO_RUNTIME=1 BENCH_META_N=200 bench/run.sh --fs ext4-dax.
#
# Output: bench/results/<date>-<mode>.md, .json and .png (ratios plot).
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top"

mode=quick icount= fs_list="nova nova-noprot ext4-dax xfs-dax" fs_given=0 smp=2
off_opts=protection=off work= results_dir=$nova_top/bench/results copy=1
pmem_base=
nova_opts=
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) mode=quick ;;
	--full) mode=full ;;
	--reference) mode=reference ;;
	--icount) icount=shift=auto ;;
	--icount=*) icount=${1#--icount=} ;;
	--fs) fs_list=$(tr ',' ' ' <<< "$2") fs_given=1; shift ;;
	--nova-off-opts) off_opts=$2; shift ;;
	--nova-opts) nova_opts=$2; shift ;;
	--work) work=$2; shift ;;
	--results) results_dir=$2; shift ;;
	--no-report-copy) copy=0 ;;
	--pmem-dir) pmem_base=$2; shift ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) nova_die "bench: unknown argument $1 (see --help)" ;;
	esac
	shift
done
if [ "$mode" = reference ]; then
	# One vCPU: with two, icount round-robins them on a 100 ms virtual
	# kick and every cross-CPU wait burns 10^8 instructions.
	[ -z "$icount" ] || nova_die "bench: --reference sets -icount itself (shift=0,sleep=off)"
	icount=shift=0,sleep=off smp=1
	[ "$fs_given" = 1 ] || fs_list="nova nova-noprot ext4-dax"
fi
for fs in $fs_list; do
	case "$fs" in
	nova|nova-noprot|ext4-dax|xfs-dax) ;;
	*) nova_die "bench: unknown file system '$fs' (nova, nova-noprot, ext4-dax, xfs-dax)" ;;
	esac
done
# Run order: the baselines first, so that a NOVA bug that takes the guest
# down still leaves their figures (the report's columns keep NOVA first).
fs_list=$(for fs in ext4-dax xfs-dax nova nova-noprot; do
	[[ " $fs_list " != *" $fs "* ]] || echo "$fs"; done | xargs)

# Mode defaults (environment wins).
if [ "$mode" = reference ]; then
	# fio runtimes are virtual seconds here: 10^9 instructions each.
	: "${BENCH_PMEM_SIZE:=1G}" "${BENCH_MEM:=2048}"
	: "${BENCH_FIO_SIZE:=64M}" "${BENCH_FIO_RUNTIME:=1}" "${BENCH_JOBS:=1}"
	: "${BENCH_META_N:=0}" "${BENCH_META_BYTES:=1024}"
	: "${BENCH_TREE_DEPTH:=0}" "${BENCH_TREE_FANOUT:=0}"
	: "${BENCH_MIX_FILES:=0}" "${BENCH_MIX_SECONDS:=0}" "${BENCH_MIX_PROCS:=}"
	: "${BENCH_MOUNT_REPEATS:=0}" "${BENCH_RECOVERY_COUNTS:=}"
	: "${BENCH_MMAP_SIZE:=256M}" "${BENCH_MMAP_SECONDS:=1}"
	: "${BENCH_TIMEOUT:=2400}" "${BENCH_SNAPSHOT_ROWS:=1}"
elif [ "$mode" = quick ]; then
	: "${BENCH_PMEM_SIZE:=1G}" "${BENCH_MEM:=2048}"
	: "${BENCH_FIO_SIZE:=64M}" "${BENCH_FIO_RUNTIME:=3}" "${BENCH_JOBS:=1 2}"
	: "${BENCH_META_N:=2000}" "${BENCH_META_BYTES:=1024}"
	: "${BENCH_TREE_DEPTH:=6}" "${BENCH_TREE_FANOUT:=3}"
	: "${BENCH_MIX_FILES:=100}" "${BENCH_MIX_SECONDS:=4}" "${BENCH_MIX_PROCS:=1}"
	: "${BENCH_MOUNT_REPEATS:=3}" "${BENCH_RECOVERY_COUNTS:=}"
	: "${BENCH_MMAP_SIZE:=256M}" "${BENCH_MMAP_SECONDS:=2}"
	: "${BENCH_TIMEOUT:=2400}"
else
	: "${BENCH_PMEM_SIZE:=4G}" "${BENCH_MEM:=2048}"
	: "${BENCH_FIO_SIZE:=512M}" "${BENCH_FIO_RUNTIME:=15}" "${BENCH_JOBS:=1 2}"
	: "${BENCH_META_N:=20000}" "${BENCH_META_BYTES:=1024}"
	: "${BENCH_TREE_DEPTH:=8}" "${BENCH_TREE_FANOUT:=3}"
	: "${BENCH_MIX_FILES:=400}" "${BENCH_MIX_SECONDS:=20}" "${BENCH_MIX_PROCS:=1 2}"
	: "${BENCH_MOUNT_REPEATS:=5}" "${BENCH_RECOVERY_COUNTS:=1000 5000 20000}"
	: "${BENCH_MMAP_SIZE:=1G}" "${BENCH_MMAP_SECONDS:=5}"
	: "${BENCH_TIMEOUT:=3600}"
fi
: "${BENCH_RECOVERY_PMEM_SIZE:=512M}" "${BENCH_RECOVERY_PERF:=0}" "${BENCH_SNAPSHOT_ROWS:=0}"

build=$(nova_build_dir)
[ -n "$work" ] || work=$build/bench/$(date +%Y%m%d-%H%M%S)-$mode
mkdir -p "$work"
work=$(cd "$work" && pwd)
label=$mode
[ "$mode" = reference ] || label=$mode${icount:+-icount}
log() { echo "bench: $*" >&2; }

# The NVDIMM backing. A sparse file on disk makes the first store to each
# page a host page fault, and writeback write-protects dirty pages again,
# so every fresh block a copy-on-write file system writes costs faults an
# in-place one pays only while laying out its file. Backing files in
# /dev/shm (tmpfs, host RAM), allocated in full before the boot
# (fallocate: also fails early rather than with SIGBUS in QEMU when
# /dev/shm is short of space), avoid both; they are removed on exit.
if [ "$pmem_base" = disk ]; then
	backing="sparse file on disk ($(df --output=fstype "$work" | tail -n1 | xargs))"
	pmem_base=$work
	prealloc=0
else
	prealloc=1
	if [ -z "$pmem_base" ]; then
		pmem_base=$(mktemp -d /dev/shm/nova-bench.XXXXXX)
		# shellcheck disable=SC2064 # the directory is fixed now
		trap "rm -rf '$pmem_base'" EXIT
		trap 'exit 130' INT TERM HUP
	else
		mkdir -p "$pmem_base"
		pmem_base=$(cd "$pmem_base" && pwd)
	fi
	backing="$pmem_base, $(df --output=fstype "$pmem_base" | tail -n1 | xargs), allocated in full before each boot"
fi
# pmem_prepare DIR COUNT SIZE: fresh, fully allocated backing files (a
# disk backing stays sparse, created by qemu/run-guest.sh).
pmem_prepare() {
	rm -rf "$1"
	mkdir -p "$1"
	[ "$prealloc" = 1 ] || return 0
	local i
	for ((i = 0; i < $2; i++)); do
		fallocate -l "$3" "$1/pmem$i.img" ||
			nova_die "bench: cannot allocate $3 for the NVDIMM in $1 (see --pmem-dir)"
	done
}
log "NVDIMM backing: $backing"

# The driver, built on the host (Debian 12 like the guest).
make -s -C bench BUILD="$build"

qemu_args=()
if [ -n "$icount" ]; then
	# Under icount the TSC is the 1 GHz virtual clock: it is reliable, and
	# loops_per_jiffy is 10^9/HZ. Without these the secondary vCPU's TSC
	# sync check and delay calibration spin for a minute of guest time
	# (both vCPUs share one host thread).
	hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(nova_kver)" 2>/dev/null)
	qemu_args=(--qemu-arg -icount --qemu-arg "$icount"
		   --append "tsc=reliable lpj=$(( 1000000000 / ${hz:-250} ))")
fi
qemu_args+=(--smp "$smp")

# write_env DIR PHASE [PLAN]
write_env() {
	{
		echo "BENCH_PHASE=$2"
		echo "BENCH_MODE=$mode"
		printf 'BENCH_FS=%q\n' "$fs_list"
		printf 'BENCH_NOVA_OFF_OPTS=%q\n' "$off_opts"
		printf 'BENCH_NOVA_OPTS=%q\n' "$nova_opts"
		for v in BENCH_FIO_SIZE BENCH_FIO_RUNTIME BENCH_JOBS BENCH_META_N BENCH_META_BYTES \
			 BENCH_TREE_DEPTH BENCH_TREE_FANOUT BENCH_MIX_FILES BENCH_MIX_SECONDS \
			 BENCH_MIX_PROCS BENCH_MOUNT_REPEATS BENCH_RECOVERY_PERF \
			 BENCH_MMAP_SIZE BENCH_MMAP_SECONDS BENCH_SNAPSHOT_ROWS; do
			printf '%s=%q\n' "$v" "${!v}"
		done
		printf 'BENCH_CRASH_PLAN=%q\n' "${3:-}"
	} > "$1/bench.env"
}

# The guest loads module/nova.ko from the work tree, which others rebuild
# while they work: note which build ran, and whether it changed mid-run.
ko_sum() { sha256sum module/nova.ko 2>/dev/null | cut -c1-12; }
ko_before=$(ko_sum)
head_before=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
guest_status=()

# 1. The main run: every file system in one boot on /dev/pmem0.
main=$work/main
mkdir -p "$main"
write_env "$main" main
log "main run ($label, file systems: $fs_list) in $main"
rc=0
pmem_prepare "$pmem_base/pmem-main" 1 "$BENCH_PMEM_SIZE"
qemu/run-guest.sh --script bench/guest.sh --out "$main" --mem "$BENCH_MEM" \
	--pmem-size "$BENCH_PMEM_SIZE" --pmem-dir "$pmem_base/pmem-main" \
	--timeout "$BENCH_TIMEOUT" "${qemu_args[@]}" || rc=$?
rm -rf "$pmem_base/pmem-main"
guest_status+=("main: $(cat "$main/host-status" 2>/dev/null || echo "exit $rc"), $(cat "$main/boot-seconds" 2>/dev/null || echo '?') s")
[ -f "$main/bench-done" ] || log "main run did not finish: see $main/console.log"
records=$work/records.jsonl
cat "$main/records.jsonl" > "$records" 2>/dev/null || : > "$records"
# A file system whose run the guest did not finish (panic, hang, timeout):
# its missing figures are n/a with what the console says.
if [ ! -f "$main/bench-done" ]; then
	why="the guest stopped before this file system's run ended ($(cat "$main/host-status" 2>/dev/null || echo "exit $rc"))"
	oops=$(grep -E 'BUG:|Oops|Kernel panic|WARNING:|general protection|soft lockup|hung task' "$main/console.log" 2>/dev/null | head -n 1 | sed 's/^\[[ 0-9.]*\] //')
	[ -z "$oops" ] || why="$why; console: $oops"
	for fs in $fs_list; do
		[ -f "$main/done-$fs" ] && continue
		grep -q "\"fs\": \"$fs\", \"na\".*\"workload\": \"\*\"" "$records" && continue
		python3 bench/results.py na --fs "$fs" --workload '*' --reason "$why" >> "$records"
	done
fi

# 2. Recovery after a power cut (--full): per file count, one boot fills
#    one NVDIMM per file system and is killed, the next boot mounts them.
recovery_fs=$(for fs in $fs_list; do [ "$fs" = nova-noprot ] || echo "$fs"; done | xargs)
for n in $BENCH_RECOVERY_COUNTS; do
	cdir=$work/crash-$n rdir=$work/recover-$n pdir=$pmem_base/pmem-$n
	mkdir -p "$cdir" "$rdir"
	plan= i=0
	for fs in $recovery_fs; do
		plan+="/dev/pmem$i $fs $n"$'\n'
		i=$((i + 1))
	done
	pmem_prepare "$pdir" "$i" "$BENCH_RECOVERY_PMEM_SIZE"
	write_env "$cdir" crash "$plan"
	log "recovery, $n files: populate and cut the power"
	rc=0
	qemu/run-guest.sh --script bench/guest.sh --out "$cdir" --mem "$BENCH_MEM" \
		--pmem-count "$i" --pmem-size "$BENCH_RECOVERY_PMEM_SIZE" --pmem-dir "$pdir" \
		--kill-on NOVA-BENCH-POWER-CUT-NOW --kill-delay 1 --timeout "$BENCH_TIMEOUT" \
		"${qemu_args[@]}" || rc=$?
	guest_status+=("crash-$n: $(cat "$cdir/host-status" 2>/dev/null || echo "exit $rc")")
	cat "$cdir/records.jsonl" >> "$records" 2>/dev/null || true
	if [ "$rc" = 2 ] && [ -f "$cdir/crash-populated" ]; then
		cp "$cdir/crash-populated" "$rdir/"
		write_env "$rdir" recover
		log "recovery, $n files: recovery mounts"
		rc=0
		qemu/run-guest.sh --script bench/guest.sh --out "$rdir" --mem "$BENCH_MEM" \
			--pmem-count "$i" --pmem-size "$BENCH_RECOVERY_PMEM_SIZE" --pmem-dir "$pdir" \
			--timeout "$BENCH_TIMEOUT" "${qemu_args[@]}" || rc=$?
		guest_status+=("recover-$n: $(cat "$rdir/host-status" 2>/dev/null || echo "exit $rc")")
		cat "$rdir/records.jsonl" >> "$records" 2>/dev/null || true
	else
		for fs in $recovery_fs; do
			grep -q "\"workload\": \"recovery-$n\"" "$cdir/records.jsonl" 2>/dev/null &&
				grep "\"fs\": \"$fs\"" "$cdir/records.jsonl" | grep -q "recovery-$n" && continue
			python3 bench/results.py na --fs "$fs" --workload "recovery-$n" \
				--reason "the power-cut boot did not get to the cut ($(cat "$cdir/host-status" 2>/dev/null))" >> "$records"
		done
	fi
	rm -rf "$pdir"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
ko_after=$(ko_sum)
ko_note="sha256 $ko_before"
if [ "$ko_before" != "$ko_after" ]; then
	ko_note="CHANGED during the run: sha256 $ko_before at the start, $ko_after at the end; boots may have run different builds"
fi
[ -z "$(git status --porcelain -- module 2>/dev/null)" ] || ko_note="$ko_note, built from a work tree with uncommitted module/ changes"

# 3. The report.
ginfo() { sed -n "s/^$1=//p" "$main/guest-info" 2>/dev/null | head -n1; }
qemu_version=$(qemu-system-x86_64 --version | head -n1 | sed 's/^QEMU emulator version //')
commit=$head_before
head_after=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ "$head_after" = "$head_before" ] || commit="$commit at the start, $head_after at the end"
# Reports in bench/results (this run's, earlier ones) do not count.
if [ -n "$(git status --porcelain -- bench ':!bench/results' 2>/dev/null)" ]; then
	commit="$commit (uncommitted changes in bench/)"
fi
notes="recovery after power cut: --full mode only"
[ -z "$BENCH_RECOVERY_COUNTS" ] || notes="recovery after power cut: file counts $BENCH_RECOVERY_COUNTS, one NVDIMM of $BENCH_RECOVERY_PMEM_SIZE per file system"
python3 - "$work/info.json" <<EOF
import json, sys
info = {
    "date": "$(date +%Y-%m-%d)",
    "mode": "$mode",
    "icount": "$icount" or None,
    "kernel": "$(ginfo kernel)",
    "qemu": "$qemu_version",
    "accel": "TCG, " + ("-icount $icount, single thread" if "$icount" else "multi-threaded") + ", no KVM",
    "guest": "$(ginfo cpus) vCPUs ($(ginfo cpu)), $BENCH_MEM MiB RAM",
    "crc32c": "$(ginfo crc32c)",
    "pmem": "one fsdax NVDIMM of $BENCH_PMEM_SIZE (/dev/pmem0), every file system made on all of it",
    "backing": "$backing",
    "fio": "$(ginfo fio), ioengine=psync; file systems buffered (DAX), raw device O_DIRECT",
    "host": "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1 | tr -d '"')",
    "load": "$load_before / $load_after (1, 5, 15 min)",
    "sizes": "fio $BENCH_FIO_SIZE per job, ${BENCH_FIO_RUNTIME} s per run, jobs $BENCH_JOBS; "
             "metadata $BENCH_META_N files of $BENCH_META_BYTES B; tree depth $BENCH_TREE_DEPTH fanout $BENCH_TREE_FANOUT; "
             "mixed $BENCH_MIX_FILES files, ${BENCH_MIX_SECONDS} s, procs $BENCH_MIX_PROCS; "
             "mmap file $BENCH_MMAP_SIZE, ${BENCH_MMAP_SECONDS} s per row; $notes",
    "commit": "$commit",
    "nova_ko": "$ko_note",
    "guest_run": "$(IFS=';'; echo "${guest_status[*]}" | sed 's/;/; /g'), $(( $(date +%s) - started )) s wall clock in all",
    "nova_off_opts": "$off_opts",
    "nova_opts": "$nova_opts",
}
json.dump(info, open(sys.argv[1], "w"), indent=1)
EOF
python3 bench/results.py report --records "$records" --info "$work/info.json" \
	--md "$work/report.md" --json "$work/report.json" --plot-data "$work/ratios.dat"

# The plot (gnuplot-nox, installed here when missing).
if ! command -v gnuplot > /dev/null; then
	log "installing gnuplot-nox for the plot"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox > /dev/null 2>&1 ||
		{ apt-get update -qq > /dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox > /dev/null 2>&1; } || true
fi
if command -v gnuplot > /dev/null; then
	gnuplot -e "datafile='$work/ratios.dat'; outfile='$work/ratios.png'; subtitle='$label, $(date +%Y-%m-%d)'; nrows=$(wc -l < "$work/ratios.dat")" \
		bench/plot.gp || log "gnuplot failed; no plot"
else
	log "no gnuplot (apt-get install gnuplot-nox failed); no plot"
fi

if [ "$copy" = 1 ]; then
	mkdir -p "$results_dir"
	base=$results_dir/$(date +%Y-%m-%d)-$label
	cp "$work/report.md" "$base.md"
	cp "$work/report.json" "$base.json"
	[ ! -f "$work/ratios.png" ] || cp "$work/ratios.png" "$base.png"
	log "report: $base.md (.json, .png)"
	cat "$base.md"
else
	log "report: $work/report.md"
	cat "$work/report.md"
fi

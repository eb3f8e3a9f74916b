#!/usr/bin/env bash
# How long thorough log GC keeps a writer waiting: the work item's
# whole-log copy against its windows, in ONE reference-mode boot
# (-icount shift=0,sleep=off, one vCPU: latencies are guest
# instructions). One fio job overwrites a file of SIZE at random, 4 KiB
# at a time, N times, then twice in order, 2 MiB at a time (timed); the
# work item compacts the file's log, left long by the random writes,
# while the sequential ones go on. Needs the test build of nova.ko (its hook nova.gc_whole_work
# selects the whole-log copy). docs/gc.md ("What windows change").
#
# usage: bench/gc-stall.sh [--size MiB] [--ios N] OUT   (default 512M, 600000)
#   results in OUT: MODE.json (fio), MODE-gc.json (novactl stats --json),
#   for MODE whole and windows, and a summary on stdout.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top"
size=512M ios=600000
while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=$2; shift ;;
	--ios) ios=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || nova_die "usage: bench/gc-stall.sh [--size SIZE] [--ios N] OUT"
out=$1
[[ $size =~ ^[1-9][0-9]*M$ ]] || nova_die "bench/gc-stall.sh: --size takes MiB (e.g. 512M), not '$size'"
[[ $ios =~ ^[1-9][0-9]*$ ]] || nova_die "bench/gc-stall.sh: --ios takes a count, not '$ios'"
ko=build/module-test/nova.ko
[ -f "$ko" ] || nova_die "$ko is not built: run 'make module-test'"
mkdir -p "$out"
printf 'KO=%q\nSIZE=%q\nIOS=%q\n' "$ko" "$size" "$ios" > "$out/stall.env"
hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(nova_kver)" 2>/dev/null)
pdir=$(mktemp -d /dev/shm/nova-gcstall.XXXXXX)
trap 'rm -rf "$pdir"' EXIT
fallocate -l 1G "$pdir/pmem0.img"
qemu/run-guest.sh --script bench/gc-stall-guest.sh --out "$out" --mem 2048 \
	--pmem-count 1 --pmem-size 1G --pmem-dir "$pdir" --timeout 2400 --smp 1 \
	--qemu-arg -icount --qemu-arg shift=0,sleep=off \
	--append "tsc=reliable lpj=$(( 1000000000 / ${hz:-250} ))"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print("| work item | 2 MiB writes | mean ns | p99 ns | p99.9 ns | p99.99 ns | max ns | thorough runs | log pages freed | GC ns |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for mode in ("whole", "windows"):
    try:
        w = json.load(open(os.path.join(out, mode + ".json")))["jobs"][0]["write"]
        gc = json.load(open(os.path.join(out, mode + "-gc.json")))["filesystems"][0]["gc"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("| %s | failed: %s |" % (mode, e))
        continue
    c = w["clat_ns"]
    p = c["percentile"]
    print("| %s | %d | %.0f | %s | %s | %s | %d | %s | %s | %s |" % (
        mode, w["total_ios"], c["mean"], p["99.000000"], p["99.900000"],
        p["99.990000"], c["max"], gc["thorough_runs"], gc["thorough_pages"],
        gc["time_ns"]))
PY

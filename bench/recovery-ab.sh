#!/usr/bin/env bash
# Crash-recovery cost of NOVA builds side by side, in ONE reference-mode
# boot (-icount shift=0,sleep=off, one vCPU: mount times are guest
# instructions), for profiling recovery without the four boots of
# bench/run.sh's recovery rows. docs/bench.md ("Recovery scaling").
#
# usage: bench/recovery-ab.sh [--perf] [--ext4] [--counts "1000 20000"]
#                             [--pmem-size SIZE] [--timeout S] OUT KO[:OPTS]...
#   --ext4: ext4-dax's first mount after the same kind of cut too
#   --pmem-size: of each emulated NVDIMM (default 512M; 100 000 files of
#     1 KiB with full protection need about 2G)
#   KO: nova.ko files under the repository (e.g. build/rec/before.ko),
#   each with extra options of the formatting mount after a colon
#   (module/nova.ko:alloc_bitmap: a file system with the allocation
#   bitmap, recovered from it); results in OUT: koI-N.json (mount ms),
#   .dmesg (with the space check of the unmount after it), .report,
#   .callers.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top"
perf=0 ext4=0 counts="1000 20000" size=512M timeout=2400
while [ $# -gt 0 ]; do
	case "$1" in
	--perf) perf=1 ;;
	--ext4) ext4=1 ;;
	--counts) counts=$2; shift ;;
	--pmem-size) size=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || nova_die "usage: bench/recovery-ab.sh [--perf] [--ext4] [--counts LIST] [--pmem-size SIZE] [--timeout S] OUT KO[:OPTS]..."
out=$1
shift
mkdir -p "$out"
{
	printf 'KOS=%q\n' "$*"
	printf 'COUNTS=%q\n' "$counts"
	echo "PERF=$perf"
	echo "EXT4=$ext4"
} > "$out/ab.env"
hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(nova_kver)" 2>/dev/null)
pdir=$(mktemp -d /dev/shm/nova-recab.XXXXXX)
trap 'rm -rf "$pdir"' EXIT
fallocate -l "$size" "$pdir/pmem0.img"
fallocate -l "$size" "$pdir/pmem1.img"
qemu/run-guest.sh --script bench/recovery-ab-guest.sh --out "$out" --mem 2048 \
	--pmem-count 2 --pmem-size "$size" --pmem-dir "$pdir" --timeout "$timeout" --smp 1 \
	--qemu-arg -icount --qemu-arg shift=0,sleep=off \
	--append "tsc=reliable lpj=$(( 1000000000 / ${hz:-250} ))"
for f in "$out"/ko*.json "$out"/ext4*.json; do
	[ -f "$f" ] || continue
	echo "$(basename "$f" .json): $(cat "$f") $(grep -oE 'recovered in .*|space check .*' "${f%.json}.dmesg" | tr '\n' ' ')"
done

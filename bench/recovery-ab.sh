#!/usr/bin/env bash
# Crash-recovery cost of NOVA builds side by side, in ONE reference-mode
# boot (-icount shift=0,sleep=off, one vCPU: mount times are guest
# instructions), for profiling recovery without the four boots of
# bench/run.sh's recovery rows. docs/bench.md ("Recovery scaling").
#
# usage: bench/recovery-ab.sh [--perf] [--counts "1000 20000"] OUT KO...
#   KO: nova.ko files under the repository (e.g. build/rec/before.ko);
#   results in OUT: koI-N.json (mount ms), .dmesg, .report, .callers.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top"
perf=0 counts="1000 20000"
while [ $# -gt 0 ]; do
	case "$1" in
	--perf) perf=1 ;;
	--counts) counts=$2; shift ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || nova_die "usage: bench/recovery-ab.sh [--perf] [--counts LIST] OUT KO..."
out=$1
shift
mkdir -p "$out"
{
	printf 'KOS=%q\n' "$*"
	printf 'COUNTS=%q\n' "$counts"
	echo "PERF=$perf"
} > "$out/ab.env"
hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(nova_kver)" 2>/dev/null)
pdir=$(mktemp -d /dev/shm/nova-recab.XXXXXX)
trap 'rm -rf "$pdir"' EXIT
fallocate -l 1G "$pdir/pmem0.img"
qemu/run-guest.sh --script bench/recovery-ab-guest.sh --out "$out" --mem 2048 \
	--pmem-size 1G --pmem-dir "$pdir" --timeout 2400 --smp 1 \
	--qemu-arg -icount --qemu-arg shift=0,sleep=off \
	--append "tsc=reliable lpj=$(( 1000000000 / ${hz:-250} ))"
for f in "$out"/ko*.json; do
	echo "$(basename "$f" .json): $(cat "$f") $(grep -o 'recovered in .*' "${f%.json}.dmesg")"
done

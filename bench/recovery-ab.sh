#!/usr/bin/env bash
# Crash-recovery cost of NOVA builds side by side, in ONE reference-mode
# boot (-icount shift=0,sleep=off, one vCPU: mount times are guest
# instructions), for profiling recovery without the four boots of
# bench/run.sh's recovery rows. docs/bench.md ("Recovery scaling").
#
# usage: bench/recovery-ab.sh [--perf] [--ext4] [--counts "1000 20000"] OUT KO...
#   --ext4: ext4-dax's first mount after the same kind of cut too
#   KO: nova.ko files under the repository (e.g. build/rec/before.ko);
#   results in OUT: koI-N.json (mount ms), .dmesg, .report, .callers.
set -euo pipefail
. "$(dirname "$0")/../qemu/lib.sh"
cd "$nova_top"
perf=0 ext4=0 counts="1000 20000"
while [ $# -gt 0 ]; do
	case "$1" in
	--perf) perf=1 ;;
	--ext4) ext4=1 ;;
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
	echo "EXT4=$ext4"
} > "$out/ab.env"
hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(nova_kver)" 2>/dev/null)
pdir=$(mktemp -d /dev/shm/nova-recab.XXXXXX)
trap 'rm -rf "$pdir"' EXIT
fallocate -l 512M "$pdir/pmem0.img"
fallocate -l 512M "$pdir/pmem1.img"
qemu/run-guest.sh --script bench/recovery-ab-guest.sh --out "$out" --mem 2048 \
	--pmem-count 2 --pmem-size 512M --pmem-dir "$pdir" --timeout 2400 --smp 1 \
	--qemu-arg -icount --qemu-arg shift=0,sleep=off \
	--append "tsc=reliable lpj=$(( 1000000000 / ${hz:-250} ))"
for f in "$out"/ko*.json "$out"/ext4*.json; do
	[ -f "$f" ] || continue
	echo "$(basename "$f" .json): $(cat "$f") $(grep -o 'recovered in .*' "${f%.json}.dmesg")"
done

#!/bin/bash
# Guest side of bench/gc-stall.sh: the test build of nova.ko (KO in
# /out/stall.env) loaded once; for MODE whole (nova.gc_whole_work=1) and
# windows (0) a fresh NOVA, a file of SIZE laid out with 2 MiB writes,
# IOS random 4 KiB overwrites, then the timed part: the file overwritten
# twice with 2 MiB writes (/out/MODE.json), and the GC counters after it
# (/out/MODE-gc.json).
top=/nova
out=/out
export PATH=$top/build/bin:$PATH
. "$out/stall.env"
dev=/dev/pmem0
mnt=/mnt/gcs
whole=/sys/module/nova/parameters/gc_whole_work
log() { echo "gc-stall: $*" > /dev/console; }
mkdir -p "$mnt"
rmmod nova 2>/dev/null
insmod "$top/$KO" || { log "insmod $KO failed"; exit 1; }
[ -w "$whole" ] || { log "$KO has no gc_whole_work hook (not a test build)"; exit 1; }
for mode in whole windows; do
	case $mode in whole) echo 1 > "$whole" ;; *) echo 0 > "$whole" ;; esac
	mount -t NOVA -o init=force "$dev" "$mnt" || { log "$mode: mount failed"; continue; }
	fio --name=data --directory="$mnt" --size="$SIZE" --rw=write --bs=2M \
		--ioengine=psync --output=/dev/null || log "$mode: layout failed"
	# The random overwrites leave a log of about IOS entries that fast GC
	# cannot shorten (few pages of it are wholly dead); the sequential
	# overwrites then leave few live entries, so the work item compacts
	# that log while the writer goes on: the timed part.
	fio --name=data --directory="$mnt" --size="$SIZE" --rw=randwrite \
		--bs=4k --ioengine=psync --io_size=$((IOS * 4))k \
		--output=/dev/null || log "$mode: random overwrites failed"
	fio --name=data --directory="$mnt" --size="$SIZE" --rw=write \
		--bs=2M --ioengine=psync --io_size=$((2 * ${SIZE%M}))M \
		--percentile_list=50:99:99.9:99.99 \
		--output-format=json --output="$out/$mode.json" ||
		log "$mode: fio failed"
	sleep 1
	novactl stats --json "$mnt" > "$out/$mode-gc.json"
	log "$mode: done"
	umount "$mnt"
done
echo 0 > "$whole"

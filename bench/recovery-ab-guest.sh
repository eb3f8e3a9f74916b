#!/bin/bash
# Guest side of bench/recovery-ab.sh: for each nova.ko named in
# /out/ab.env (KOS) and each file count (COUNTS), a fresh NOVA with N
# files of 1 KiB (nova-bench-meta populate), left as a power cut just
# before the unmount would leave it (the superblocks are copied while it
# is mounted and written back after the unmount, as
# tests/guest/crash-recovery.sh does), then the first mount timed, under
# perf when PERF=1. Writes /out/TAG.json (the mount time), TAG.dmesg
# (NOVA's "recovered" line, then the unmount's space check after a
# recovery from the allocation bitmap) and TAG.report / TAG.callers; with
# EXT4=1 the same for ext4-dax (TAG ext4-N). A KOS entry FILE:OPTS adds
# OPTS to the formatting mount (e.g. alloc_bitmap).
top=/nova
out=/out
export PATH=$top/build/bin:$PATH
. "$out/ab.env"
dev=/dev/pmem0
mnt=/mnt/rec
log() { echo "recovery-ab: $*" > /dev/console; }
mkdir -p "$mnt"
last=$(( $(blockdev --getsize64 "$dev") / 4096 - 1 ))
i=0
for spec in $KOS; do
	i=$((i + 1))
	ko=${spec%%:*}
	opts=${spec#"$ko"}
	opts=${opts#:}
	umount -q "$mnt" 2>/dev/null
	rmmod nova 2>/dev/null
	insmod "$top/$ko" || { log "insmod $ko failed"; continue; }
	for n in $COUNTS; do
		tag=ko$i-$n
		mount -t NOVA -o "init=force${opts:+,$opts}" "$dev" "$mnt" || { log "$tag: mount init failed"; continue; }
		nova-bench-meta populate -n "$n" -b 1024 "$mnt" > /dev/null || log "$tag: populate failed"
		sync
		dd if="$dev" of=/tmp/b01 bs=4096 count=2 iflag=direct status=none
		dd if="$dev" of=/tmp/blast bs=4096 skip="$last" count=1 iflag=direct status=none
		umount "$mnt"
		dd if=/tmp/b01 of="$dev" bs=4096 count=2 oflag=direct conv=notrunc status=none
		dd if=/tmp/blast of="$dev" bs=4096 seek="$last" count=1 oflag=direct conv=notrunc status=none
		prof=()
		[ "${PERF:-0}" = 0 ] ||
			prof=(perf record -q -e cpu-clock -F 20000 -a -g -o /tmp/rec.data --)
		dmesg -C
		"${prof[@]}" nova-bench-meta mount -k -R 1 -T NOVA -o "" "$dev" "$mnt" \
			> "$out/$tag.json" 2> "$out/$tag.err" || log "$tag: recovery mount failed"
		dmesg > "$out/$tag.dmesg"
		if [ ${#prof[@]} -gt 0 ]; then
			perf report -i /tmp/rec.data --stdio --no-children --sort sym \
				--percent-limit 0.3 -g none > "$out/$tag.report" 2> /dev/null
			perf report -i /tmp/rec.data --stdio --no-children --sort sym \
				--percent-limit 2 -g caller,0.5,2 --max-stack 16 \
				> "$out/$tag.callers" 2> /dev/null
			rm -f /tmp/rec.data
		fi
		got=$(find "$mnt/pop" -type f 2> /dev/null | wc -l)
		echo "$got" > "$out/$tag.files"
		log "$tag: $(grep -oE 'recovered in .*' "$out/$tag.dmesg"), $got files"
		umount "$mnt"
		dmesg | grep -o 'space check after crash recovery in .*' >> "$out/$tag.dmesg"
	done
done
# ext4-dax in the same boot (EXT4=1): the device as it was after the
# populate's sync, copied to /dev/pmem1 while mounted and written back
# after the unmount, so the next mount replays the journal as after a
# power cut at that moment.
if [ "${EXT4:-0}" = 1 ] && [ -b /dev/pmem1 ]; then
	umount -q "$mnt" 2>/dev/null
	for n in $COUNTS; do
		tag=ext4-$n
		mkfs.ext4 -F -q -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$dev" &&
			mount -t ext4 -o dax "$dev" "$mnt" || { log "$tag: mkfs/mount failed"; continue; }
		nova-bench-meta populate -n "$n" -b 1024 "$mnt" > /dev/null || log "$tag: populate failed"
		sync
		dd if="$dev" of=/dev/pmem1 bs=1M iflag=direct oflag=direct status=none
		umount "$mnt"
		dd if=/dev/pmem1 of="$dev" bs=1M iflag=direct oflag=direct status=none
		dmesg -C
		nova-bench-meta mount -k -R 1 -T ext4 -o dax "$dev" "$mnt" \
			> "$out/$tag.json" 2> "$out/$tag.err" || log "$tag: recovery mount failed"
		dmesg > "$out/$tag.dmesg"
		got=$(find "$mnt/pop" -type f 2> /dev/null | wc -l)
		echo "$got" > "$out/$tag.files"
		log "$tag: $(grep -o 'recovery complete' "$out/$tag.dmesg" | head -n1), $got files"
		umount "$mnt"
	done
fi
touch "$out/ab-done"

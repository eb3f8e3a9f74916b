#!/bin/bash
# fsck.NOVA on what the kernel wrote: a populated file system (many files
# and directories, overwrites, appends, truncates, links, renames,
# removals) is clean after umount; damage done to the device on purpose is
# found (and, where safe, repaired, after which the kernel mounts it; a
# primary inode slot's rolled-back log tail is repaired from its replica);
# snapshots' kept blocks are accounted; a copy taken while mounted (a crash
# image) checks clean and the kernel recovers it. Leaves a
# compressed copy of the populated image for tests/host/fsck-fuzz.sh.
# nova-guest-args: --pmem-size 256M
# nova-timeout: 1200
# nova-expect-klog: nova \(pmem0\): error: inode [0-9]+: bad log (entry|page) at
# nova-expect-klog: nova \(pmem0\): error: inode [0-9]+: log tail
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
corrupt="python3 $NOVA_TOP/tests/guest/tools-corrupt.py $D"

# status CMD...: exit status, output in $T/out
status() {
	"$@" > "$T/out" 2>&1
	echo $?
}

t_ok "mount -o init" nova_mount_init
t_ok "populate: 40 directories of 12 files" sh -c '
	for d in $(seq 1 40); do
		mkdir -p '"$M"'/top/d$d/sub || exit 1
		for f in $(seq 1 12); do
			printf "file %s/%s\n" $d $f > '"$M"'/top/d$d/f$f || exit 1
		done
	done'
t_ok "big files and overwrites" sh -c "
	dd if=/dev/urandom of=$M/big bs=64k count=64 status=none &&
	dd if=/dev/urandom of=$M/big bs=4k count=40 seek=7 conv=notrunc status=none &&
	dd if=/dev/zero of=$M/big bs=1 count=3 seek=1000 conv=notrunc status=none &&
	for i in \$(seq 1 30); do echo append \$i >> $M/log; done &&
	dd if=/dev/urandom of=$M/shrink bs=4k count=20 status=none &&
	truncate -s 10000 $M/shrink && truncate -s 50000 $M/shrink"
t_ok "links, symlinks, renames, removals" sh -c "
	ln $M/top/d1/f1 $M/hard1 && ln $M/top/d1/f1 $M/top/d2/hard2 &&
	ln -s short $M/sym1 && ln -s \$(printf 'x%.0s' \$(seq 1 300)) $M/sym2 &&
	mv $M/top/d3 $M/top/d4/moved && mv $M/top/d5/f1 $M/top/d6/renamed &&
	mv -f $M/top/d7/f2 $M/top/d7/f3 &&
	rm -f $M/top/d8/f* && rmdir $M/top/d8/sub && rmdir $M/top/d8 &&
	rm $M/hard1 && mkfifo $M/fifo && mknod $M/null c 1 3"
t_ok "overwrite many small files" sh -c "for d in \$(seq 10 30); do echo rewritten > $M/top/d\$d/f5; done"
md5_big=$(md5sum < "$M/big")
n_files=$(find "$M" | wc -l)
ino_big=$(stat -c %i "$M/big")
ino_log=$(stat -c %i "$M/log")
ino_once=$(stat -c %i "$M/top/d40/f12")	# written once: its only write is live
ino_once2=$(stat -c %i "$M/top/d39/f12")	# likewise
ino_top=$(stat -c %i "$M/top")
t_ok "umount" nova_umount

t_is "fsck.NOVA -f -n: clean" "$(status fsck.NOVA -f -n "$D")" 0
t_ok "... and says so" grep -q "clean, " "$T/out"
t_diag "$(cat "$T/out")"
t_is "fsck.NOVA -f -y changes nothing" "$(md5sum < "$D"; fsck.NOVA -f -y "$D" > /dev/null; md5sum < "$D")" \
	"$(md5sum < "$D"; md5sum < "$D")"
if [ -n "${NOVA_RESULT:-}" ]; then
	t_ok "save the image for the host fuzz test" sh -c "gzip -1 -c $D > $NOVA_RESULT.nova-real.img.gz"
fi

# damage, detect, undo
t_ok "damage the primary superblock" $corrupt sb-byte
t_is "fsck -n: 4" "$(status fsck.NOVA -n "$D")" 4
t_ok "... names it" grep -q "primary superblock: bad checksum" "$T/out"
t_is "fsck -p repairs it: 1" "$(status fsck.NOVA -p "$D")" 1
t_is "then clean" "$(status fsck.NOVA -f -n "$D")" 0

# (entry and tail damage both copies of a mirrored page: protect-logrepl.sh
# covers one bad copy, which fsck -y repairs)
head=$($corrupt where "$ino_top")
$corrupt save "$T/page" "$head" 4096 > /dev/null
mhead=$($corrupt mirror "$ino_top")
[ -z "$mhead" ] || $corrupt save "$T/mpage" "$mhead" 4096 > /dev/null
t_ok "damage a directory's log entry" $corrupt entry "$ino_top"
t_is "fsck -n: 4" "$(status fsck.NOVA -f -n "$D")" 4
t_ok "... a bad log entry of inode $ino_top" grep -q "inode $ino_top: bad log entry" "$T/out"
t_is "fsck -y cannot repair it: 4" "$(status fsck.NOVA -f -y "$D")" 4
t_ok "the kernel refuses that directory too" sh -c "mount -t NOVA $D $M || exit 1; ls $M/top > /dev/null 2>&1; r=\$?; umount $M; [ \$r -ne 0 ]"
t_ok "undo" sh -c "$corrupt restore $T/page $head${mhead:+ && $corrupt restore $T/mpage $mhead}"
lhead=$($corrupt where "$ino_log")
$corrupt save "$T/lpage" "$lhead" 4096 > /dev/null
mlhead=$($corrupt mirror "$ino_log")
[ -z "$mlhead" ] || $corrupt save "$T/mlpage" "$mlhead" 4096 > /dev/null
t_ok "damage a log page tail" $corrupt tail "$ino_log"
t_is "fsck -n: 4" "$(status fsck.NOVA -f -n "$D")" 4
t_ok "... a bad log page" grep -q "inode $ino_log: bad log page" "$T/out"
t_ok "undo" sh -c "$corrupt restore $T/lpage $lhead${mlhead:+ && $corrupt restore $T/mlpage $mlhead}"
t_is "clean again" "$(status fsck.NOVA -f -n "$D")" 0

# Commit words verified, not trusted (issue 24): the primary slot's log
# tail lowered by two entries, its replica (format 1.3) intact. The
# replica's log reaches further: fsck repairs the primary from it and
# keeps the data only that log maps, rather than the other way round.
t_ok "roll back the primary log tail of $ino_log by two entries" $corrupt rollback "$ino_log" 2
t_is "fsck -n: 4" "$(status fsck.NOVA -f -n "$D")" 4
t_ok "... the replica's log reaches further" grep -qE "inode $ino_log: log head/tail [0-9]+/[0-9]+ of the primary slot disagree with the replica's [0-9]+/[0-9]+, whose log reaches transaction" "$T/out"
t_ok "... nothing leaked" sh -c "! grep -q leaked $T/out"
t_diag "$(cat "$T/out")"
t_is "fsck -y repairs the primary from the replica: 1" "$(status fsck.NOVA -f -y "$D")" 1
t_is "then clean" "$(status fsck.NOVA -f -n "$D")" 0
t_is "the file has all 30 appends" "$(mount -t NOVA -o ro "$D" "$M" && tail -n 1 "$M/log"; umount "$M")" "append 30"

# The source block must be live: big's first write was overwritten, so its
# block is free again (and "double" would only make a used block look free,
# or a used-twice one, depending on whether the allocator reused it).
t_ok "a double allocation (two files, one block)" $corrupt double "$ino_once2" "$ino_once"
t_is "fsck -n: 4" "$(status fsck.NOVA -f -n "$D")" 4
t_ok "... used twice" grep -q "is used twice" "$T/out"
t_is "fsck -y leaves it: 4" "$(status fsck.NOVA -f -y "$D")" 4

# Back to a good image for the rest: format and populate again.
t_ok "mount -o init again" nova_mount_init
t_ok "populate" sh -c "for i in \$(seq 1 100); do echo \$i > $M/n\$i; done; mkdir $M/dir; dd if=/dev/urandom of=$M/dir/data bs=4k count=64 status=none"
md5_data=$(md5sum < "$M/dir/data")
t_ok "umount" nova_umount
t_ok "leak 5 blocks (saved free range shortened)" $corrupt leak 5
t_is "fsck -n: 4" "$(status fsck.NOVA -n "$D")" 4
t_ok "... 5 leaked" grep -q "5 blocks are neither in use nor free" "$T/out"
t_is "fsck -y rebuilds the allocator state: 1" "$(status fsck.NOVA -y "$D")" 1
t_is "then clean" "$(status fsck.NOVA -f -n "$D")" 0
t_ok "the kernel mounts it read-write" sh -c "mount -t NOVA $D $M && touch $M/after-repair && grep -q '^$D $M NOVA rw' /proc/mounts"
t_is "data intact" "$(md5sum < "$M/dir/data")" "$md5_data"

# Snapshots (format 1.1): kept blocks belong to the snapshot log.
if command -v novactl > /dev/null; then
	t_ok "snapshot with overwritten and removed data" sh -c "
		dd if=/dev/urandom of=$M/snapfile bs=4k count=16 status=none &&
		novactl snapshot create $M > /dev/null &&
		dd if=/dev/urandom of=$M/snapfile bs=4k count=16 conv=notrunc status=none &&
		rm $M/n2 $M/dir/data"
	t_ok "umount" nova_umount
	t_is "fsck -f -n with a live snapshot: clean" "$(status fsck.NOVA -f -v -n "$D")" 0
	t_ok "... counts the kept blocks" grep -qE "snapshots: 1 live, [1-9][0-9]* kept data blocks" "$T/out"
	t_ok "delete the snapshot" sh -c "mount -t NOVA $D $M && novactl snapshot delete $M 1 > /dev/null"
	t_ok "umount" nova_umount
	t_is "fsck after the delete: clean" "$(status fsck.NOVA -f -v -n "$D")" 0
	t_ok "... no snapshot left" grep -q "snapshots: 0 live, 0 kept" "$T/out"
	t_ok "mount" nova_mount
else
	t_skip "snapshots" "novactl is not built"
fi

# A crash image: copied while mounted read-write (state dirty).
t_ok "write more, then copy the mounted device" sh -c "for i in \$(seq 1 20); do echo c\$i > $M/c\$i; done; sync; dd if=$D of=$T/crash bs=1M status=none"
t_ok "umount" nova_umount
t_is "fsck -n on the crash image: no error (the kernel recovers it)" "$(status fsck.NOVA -f -n "$T/crash")" 0
t_ok "... says it was not cleanly unmounted" grep -q "not cleanly unmounted" "$T/out"
t_is "fsck -y leaves it as it is" "$(md5sum < "$T/crash"; fsck.NOVA -y "$T/crash" > /dev/null; md5sum < "$T/crash")" \
	"$(md5sum < "$T/crash"; md5sum < "$T/crash")"
t_ok "put the crash image on the device" dd if="$T/crash" of="$D" bs=1M conv=fsync status=none
t_ok "the kernel recovers and mounts it read-write" sh -c "mount -t NOVA $D $M && grep -q '^$D $M NOVA rw' /proc/mounts"
t_is "files written before the crash are there" "$(cat "$M/c20" "$M/n100")" "c20
100"
t_ok "and it is usable" sh -c "echo new > $M/post && rm $M/n1"
t_ok "umount" nova_umount
t_is "clean at the end" "$(status fsck.NOVA -f -n "$D")" 0

# Progress (-C FD as e2fsck takes it): a bar on stdout for 0, lines
# "PASS CUR MAX DEVICE" on another descriptor, as fsck(8) reads them.
t_is "fsck -f -n -C 0: exit 0" "$(status fsck.NOVA -f -n -C 0 "$D")" 0
t_ok "... draws a bar that reaches 100%" grep -q "$D: |========================================| 100.0%" "$T/out"
t_ok "... and clears it before the summary" sh -c "tail -n 1 $T/out | tr '\r' '\n' | tail -n 1 | grep -q '^$D: clean'"
t_is "fsck -f -n -C0 (glued, as fsck(8) writes it): exit 0" "$(status fsck.NOVA -f -n -C0 "$D")" 0
fsck.NOVA -f -n -C 3 "$D" 3> "$T/progress" > /dev/null
t_ok "-C 3: lines 'PASS CUR MAX DEVICE'" grep -qxE "[1-5] [0-9]+ [0-9]+ $D" "$T/progress"
t_is "... all of that form" "$(grep -cvxE "[1-5] [0-9]+ [0-9]+ $D" "$T/progress")" 0
t_ok "... several in pass 2 (the logs)" test "$(grep -c "^2 " "$T/progress")" -gt 2
t_is "... passes in order, 1 to 5" "$(cut -d' ' -f1 "$T/progress" | uniq | tr -d '\n')" 12345
t_ok "... progress never goes back" awk '{ p = $1 * 1e12 + ($2 / $3) * 1e9; if (p < last) exit 1; last = p }' "$T/progress"
t_is "... ends with pass 5 done" "$(tail -n 1 "$T/progress")" "5 1 1 $D"
t_is "-C 9 (not open): usage error 16" "$(status fsck.NOVA -f -n -C 9 "$D")" 16
t_ok "... saying so" grep -q "file descriptor 9 is not open" "$T/out"
t_is "-C x: usage error 16" "$(status fsck.NOVA -n -C x "$D")" 16
t_diag "fsck(8) -C passes: $(fsck -N -C0 -t NOVA "$D" 2>&1 | tail -n 1)"
t_diag "files in the first populated tree: $n_files, big file md5 $md5_big"
rm -rf "$T"
t_done

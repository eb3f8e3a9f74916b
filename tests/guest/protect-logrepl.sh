#!/bin/bash
# Log page mirrors (format 1.4, NOVA_FEATURE_LOG_REPLICA), damaged through
# the injector (novactl debug inject, nova.inject=1; copy 0 is the primary
# page, copy 1 its mirror) and checked through remount, stat, read(2),
# readdir, scrub, novactl stats and fsck.NOVA:
#  - a bad primary entry / page tail: the log walk uses the mirror's copy
#    and rewrites the primary (read after a remount, or the scrub of a
#    cached inode); on a read-only mount it reads the mirror and leaves
#    the medium alone;
#  - a bad mirror entry / tail: the scrub (or, for a tail, any walk)
#    rewrites it from the primary; fsck -n reports it, -y repairs it;
#  - both copies: EUCLEAN naming the inode, unrecoverable for the scrub,
#    the rest of the file system fine, no oops;
#  - formats without mirrors (protection=nolog, mkfs -p nolog: the 1.3
#    layout, format 1.5 for its range entries feature 0x20) mount
#    and work, their log damage is detected as before.
# Every case checks that the data is intact and counts injected /
# detected / repaired faults per kind.
# nova-timeout: 900
# nova-expect-klog: nova \(pmem0\): error: (inode [0-9]+: (bad log|log tail)|scrub: inode)
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-protect.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
P=/sys/module/nova/parameters/inject
tmp=$(mktemp -d)
layout() {	# FIELD of the superblock
	media layout "$D" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}
scrub() { novactl scrub start --restart --wait --json "$M"; }
prot() {	# FIELD of the protection counters since mount
	novactl stats --json "$M" | python3 -c "
import json, sys
print(json.load(sys.stdin)['filesystems'][0]['protection']['$1'])"
}
klog_has() { dmesg | grep -q "$1"; }
euclean() {	# FILE: opening it fails with EUCLEAN (its inode cannot load)
	cat "$1" 2>&1 > /dev/null | grep -q 'Structure needs cleaning'
}
declare -A injected detected repaired
count() {	# KIND DETECTED REPAIRED
	injected[$1]=$((${injected[$1]:-0} + 1))
	detected[$1]=$((${detected[$1]:-0} + $2))
	repaired[$1]=$((${repaired[$1]:-0} + $3))
}
intact() {	# all files as written
	cmp -s "$tmp/v" "$M/victim" && cmp -s "$tmp/o" "$M/other" &&
	[ "$(cat "$M/dir/f1")" = one ] && [ "$(cat "$M/dir/f2")" = two ] &&
	[ "$(ls "$M/dir" | tr '\n' ' ')" = "f1 f2 " ]
}

head -c 20000 /dev/urandom > "$tmp/v"
head -c 5000 /dev/urandom > "$tmp/o"
fresh() {	# [OPTS]: format, a file written in 20 pieces, a directory
	nova_mount_init "${1:-}" || return 1
	for i in $(seq 0 19); do
		dd if="$tmp/v" of="$M/victim" bs=1000 skip="$i" seek="$i" \
			count=1 conv=notrunc status=none || return 1
	done
	cp "$tmp/o" "$M/other" && mkdir "$M/dir" &&
	echo one > "$M/dir/f1" && echo two > "$M/dir/f2" && sync
}

t_ok "format (default protection) and mount" fresh
t_is "format 1.6 with the log mirror feature" "$(layout minor) $(($(layout incompat) & 8))" "6 8"
echo 1 > "$P"
v=$(ino victim)
d=$(ino dir)
o=$(ino other)

# --- primary entry, found by a read after a remount ---
t_ok "entry: inject copy 0 of log entry 3 of inode $v" inject log-entry --ino "$v" --offset 3
t_ok "umount" nova_umount
out=$(fsck.NOVA -f -n "$D" 2>&1)
t_fail "entry: fsck -n is not clean" fsck.NOVA -f -n "$D"
t_ok "entry: fsck -n calls it repairable from the mirror" sh -c "printf '%s' '$out' | grep -q 'inode $v: damaged log entry at .*its mirror is good: repairable'"
t_ok "mount" nova_mount
t_ok "entry: the victim reads back right" cmp "$tmp/v" "$M/victim"
det=0; cmp -s "$tmp/v" "$M/victim" && det=1
t_ok "entry: the kernel rewrote the primary" klog_has "inode $v: damaged log entry at [0-9]*, rewritten from its mirror"
t_is "entry: one repair counted" "$(prot repaired)" 1
t_is "entry: nothing unrecoverable" "$(prot unrecoverable)" 0
r=$(scrub)
t_is "entry: the scrub finds nothing left" "$(sj "$r" errors)" 0
t_ok "entry: all files intact" intact
t_ok "umount" nova_umount
t_ok "entry: fsck -n clean (the primary was rewritten)" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
count log-entry "$det" "$rep"

# --- primary page tail of a directory, found by readdir after a remount ---
t_ok "mount" nova_mount
t_ok "tail: inject copy 0 of log page 0 of directory $d" inject log-tail --ino "$d" --offset 0
t_ok "umount" nova_umount
t_ok "mount" nova_mount
t_is "tail: the directory lists its names" "$(ls "$M/dir" | tr '\n' ' ')" "f1 f2 "
det=0; [ "$(ls "$M/dir" | wc -l)" -eq 2 ] && det=1
t_ok "tail: the kernel rewrote the primary tail" klog_has "inode $d: damaged log page tail at [0-9]*, rewritten from its mirror"
t_is "tail: one repair counted" "$(prot repaired)" 1
t_ok "tail: all files intact" intact
t_ok "umount" nova_umount
t_ok "tail: fsck -n clean" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
count log-tail "$det" "$rep"

# --- primary entry and tail of a cached inode: the scrub repairs them ---
t_ok "mount" nova_mount
t_ok "scrub: the victim is cached" cmp "$tmp/v" "$M/victim"
t_ok "scrub: inject copy 0 of log entry 7" inject log-entry --ino "$v" --offset 7
t_ok "scrub: inject copy 0 of the tail of log page 0 of inode $o" inject log-tail --ino "$o" --offset 0
t_ok "scrub: stat of the other file" stat "$M/other"
r=$(scrub)
t_is "scrub: exits 0 (repaired)" "$?" 0
t_is "scrub: two bad objects" "$(sj "$r" errors)" 2
t_is "scrub: both repaired" "$(sj "$r" repaired)" 2
t_is "scrub: nothing unrecoverable" "$(sj "$r" unrecoverable)" 0
t_ok "scrub: the entry is listed repaired" has_bad "$r" "$v" log-entry True
t_ok "scrub: the tail is listed repaired" has_bad "$r" "$o" log-tail True
det=0; has_bad "$r" "$v" log-entry True && det=1
det2=0; has_bad "$r" "$o" log-tail True && det2=1
t_is "scrub: counted in prot repaired" "$(prot repaired)" 2
t_is "scrub: the next pass is clean" "$(sj "$(scrub)" errors)" 0
t_ok "scrub: all files intact" intact
t_ok "umount" nova_umount
t_ok "scrub: fsck -n clean" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
count log-entry "$det" "$rep"
count log-tail "$det2" "$rep"

# --- mirror entry: fsck reports it, the scrub repairs it ---
t_ok "mount" nova_mount
t_ok "mirror entry: inject copy 1 of log entry 5" inject log-entry --ino "$v" --offset 5 --copy 1
t_ok "umount" nova_umount
out=$(fsck.NOVA -f -n "$D" 2>&1)
t_fail "mirror entry: fsck -n is not clean" fsck.NOVA -f -n "$D"
t_ok "mirror entry: fsck -n names it" sh -c "printf '%s' '$out' | grep -q 'inode $v: damaged mirror log entry at .*the primary is good: repairable'"
t_ok "mount" nova_mount
t_ok "mirror entry: the victim reads back right" cmp "$tmp/v" "$M/victim"
r=$(scrub)
t_is "mirror entry: scrub exits 0" "$?" 0
t_ok "mirror entry: listed repaired" has_bad "$r" "$v" log-entry True
det=0; has_bad "$r" "$v" log-entry True && det=1
t_is "mirror entry: one repaired" "$(sj "$r" repaired)" 1
t_ok "mirror entry: the kernel says so" klog_has "inode $v: damaged mirror log entry at [0-9]*, rewritten from the primary"
t_is "mirror entry: the next pass is clean" "$(sj "$(scrub)" errors)" 0
t_ok "umount" nova_umount
t_ok "mirror entry: fsck -n clean" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
count log-entry-mirror "$det" "$rep"

# --- mirror tail: any walk of the log rewrites it (here the remount) ---
t_ok "mount" nova_mount
t_ok "mirror tail: inject copy 1 of log page 0 of inode $v" inject log-tail --ino "$v" --offset 0 --copy 1
t_ok "umount" nova_umount
t_ok "mount" nova_mount
t_ok "mirror tail: the victim reads back right" cmp "$tmp/v" "$M/victim"
t_ok "mirror tail: the kernel rewrote it" klog_has "inode $v: damaged mirror log page tail at [0-9]*, rewritten from the primary"
det=0; klog_has "inode $v: damaged mirror log page tail" && det=1
t_is "mirror tail: one repair counted" "$(prot repaired)" 1
t_ok "umount" nova_umount
t_ok "mirror tail: fsck -n clean" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
count log-tail-mirror "$det" "$rep"

# --- mirror tail of a cached inode, for the scrub ---
t_ok "mount" nova_mount
t_ok "mirror tail (scrub): cache the file" cmp "$tmp/o" "$M/other"
t_ok "mirror tail (scrub): inject copy 1 of log page 0 of inode $o" inject log-tail --ino "$o" --offset 0 --copy 1
r=$(scrub)
t_ok "mirror tail (scrub): listed repaired" has_bad "$r" "$o" log-tail True
det=0; has_bad "$r" "$o" log-tail True && det=1
t_is "mirror tail (scrub): the next pass is clean" "$(sj "$(scrub)" errors)" 0
t_ok "umount" nova_umount
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
t_is "mirror tail (scrub): fsck -n clean" "$rep" 1
count log-tail-mirror "$det" "$rep"

# --- read-only mount: the mirror is read, nothing is written ---
t_ok "mount" nova_mount
t_ok "ro: inject copy 0 of log entry 1" inject log-entry --ino "$v" --offset 1
t_ok "umount" nova_umount
t_ok "ro: mount read-only" nova_mount ro
t_ok "ro: the victim reads back right" cmp "$tmp/v" "$M/victim"
t_ok "ro: the kernel used the mirror" klog_has "inode $v: damaged log entry at [0-9]*, using the other copy"
det=0; klog_has "inode $v: damaged log entry at [0-9]*, using the other copy" && det=1
t_is "ro: nothing rewritten" "$(prot repaired)" 0
t_ok "umount" nova_umount
t_fail "ro: the damage is still on the medium" fsck.NOVA -f -n "$D"
fsck.NOVA -f -y "$D" > /dev/null 2>&1
t_is "ro: fsck -y repairs it (exit 1: corrected)" "$?" 1
t_ok "ro: fsck -n clean after -y" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
t_ok "mount" nova_mount
t_ok "ro: all files intact" intact
t_is "ro: no kernel repair needed after fsck" "$(prot repaired)" 0
count log-entry "$det" "$rep"

# --- both copies: EUCLEAN, unrecoverable, the rest fine ---
t_ok "both: inject copy 0 of log entry 2" inject log-entry --ino "$v" --offset 2
t_ok "both: inject copy 1 of log entry 2" inject log-entry --ino "$v" --offset 2 --copy 1
t_ok "both: inject copy 0 of log page 0 of inode $o" inject log-tail --ino "$o" --offset 0
t_ok "both: inject copy 1 of log page 0 of inode $o" inject log-tail --ino "$o" --offset 0 --copy 1
t_ok "umount" nova_umount
t_fail "both: fsck -n reports damage" fsck.NOVA -f -n "$D"
out=$(fsck.NOVA -f -n "$D" 2>&1)
t_ok "both: fsck says both copies are bad" sh -c "printf '%s' '$out' | grep -q 'inode $v: bad log entry at .*in both copies'"
t_ok "mount" nova_mount
t_ok "both entry: the victim fails with EUCLEAN" euclean "$M/victim"
det=0; euclean "$M/victim" && det=1
t_ok "both tail: the other file fails with EUCLEAN" euclean "$M/other"
det2=0; euclean "$M/other" && det2=1
t_ok "both: the kernel names the inode" klog_has "nova (pmem0): error: inode $v: bad log entry"
t_ok "both: the directory is fine" sh -c "[ \"\$(cat $M/dir/f1 $M/dir/f2 | tr '\n' ' ')\" = 'one two ' ]"
t_ok "both: counted unrecoverable" [ "$(prot unrecoverable)" -ge 2 ]
r=$(scrub)
t_ok "both: scrub lists the entry, not repaired" has_bad "$r" "$v" log-entry False
t_ok "both: scrub lists the tail, not repaired" has_bad "$r" "$o" log-tail False
t_ok "both: scrub counts them unrecoverable" [ "$(sj "$r" unrecoverable)" -ge 2 ]
t_ok "both: new files still work" sh -c "echo new > $M/new && [ \"\$(cat $M/new)\" = new ]"
t_ok "umount" nova_umount
count log-entry-both "$det" 0
count log-tail-both "$det2" 0

# --- a workload with GC on mirrored logs, then fsck ---
t_ok "gc: format" fresh
for i in $(seq 1 400); do
	dd if=/dev/urandom of="$M/victim" bs=512 count=1 seek=$((i % 8)) conv=notrunc status=none
	touch "$M/dir/n$i"
	[ $((i % 3)) -eq 0 ] && rm -f "$M/dir/n$((i - 1))"
done
cp "$M/victim" "$tmp/v2"
t_ok "gc: novactl gc" novactl gc "$M"
t_ok "gc: the victim is unchanged by GC" cmp "$tmp/v2" "$M/victim"
t_is "gc: log pages come in pairs" "$(( $(novactl stats --json "$M" | python3 -c "import json,sys; print(json.load(sys.stdin)['filesystems'][0]['log_pages'])") % 2 ))" 0
t_is "gc: a scrub finds nothing" "$(sj "$(scrub)" errors)" 0
t_ok "umount" nova_umount
t_ok "gc: fsck -n clean after the workload" fsck.NOVA -f -n "$D"
t_ok "gc: mount again" nova_mount
t_ok "gc: the victim is there" cmp "$tmp/v2" "$M/victim"
t_ok "umount" nova_umount

# --- formats without mirrors ---
t_ok "nolog: format with protection=nolog" fresh protection=nolog
t_is "nolog: format 1.6, no log mirror feature" "$(layout minor) $(layout incompat)" "6 119"
t_fail "nolog: no copy 1 to damage" inject log-entry --ino "$(ino victim)" --offset 0 --copy 1
t_ok "nolog: read/write" sh -c "echo more >> $M/other && tail -c 5 $M/other | grep -q more"
t_ok "umount" nova_umount
t_ok "nolog: fsck -n clean" fsck.NOVA -f -n "$D"
t_ok "nolog: mount again" nova_mount
t_ok "nolog: the victim reads back" cmp "$tmp/v" "$M/victim"
nv=$(ino victim)
t_ok "nolog: inject copy 0 of log entry 0" inject log-entry --ino "$nv" --offset 0
t_ok "umount" nova_umount
t_ok "mount" nova_mount
t_ok "nolog: a bad entry is EUCLEAN, as in 1.3" euclean "$M/victim"
t_ok "umount" nova_umount
t_fail "-o protection=on needs init (made with nolog)" nova_mount protection=on
mkfs.NOVA -f -q -p nolog "$D" > /dev/null
t_is "mkfs -p nolog: format 1.6, no log mirrors" "$(layout minor) $(layout incompat)" "6 119"
t_ok "mkfs -p nolog: mount, write, read" sh -c "mount -t NOVA $D $M && echo x > $M/x && [ \"\$(cat $M/x)\" = x ] && umount $M"
t_ok "mkfs -p nolog: fsck -n clean" fsck.NOVA -f -n "$D"
mkfs.NOVA -f -q "$D" > /dev/null
t_is "mkfs default: format 1.6 with log mirrors" "$(layout minor) $(($(layout incompat) & 8))" "6 8"
t_ok "mkfs default: mount, write, read" sh -c "mount -t NOVA $D $M && echo x > $M/x && [ \"\$(cat $M/x)\" = x ] && umount $M"
t_ok "mkfs default: fsck -n clean" fsck.NOVA -f -n "$D"
echo 0 > "$P"

for k in log-entry log-tail log-entry-mirror log-tail-mirror log-entry-both log-tail-both; do
	t_diag "faults: $k injected ${injected[$k]:-0} detected ${detected[$k]:-0} repaired ${repaired[$k]:-0}"
done
rm -rf "$tmp"
t_done

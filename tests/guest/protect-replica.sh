#!/bin/bash
# Inode replicas (format 1.3, NOVA_FEATURE_META_REPLICA), damaged through
# the injector (novactl debug inject, nova.inject=1; copy 0 is the primary
# slot, copy 1 its replica) and checked through remount, read(2), scrub
# and fsck.NOVA:
#  - a damaged primary: the file reads back right after a remount, the
#    kernel says it rewrote the slot, fsck -n then finds nothing;
#  - a damaged replica: fsck -n reports it, scrub rewrites it;
#  - both copies: EUCLEAN naming the inode, the rest is fine, no oops;
#  - fsck -n reports a bad primary as repairable and -y repairs it;
#  - a 1.2 image (no features) still mounts and has no replicas.
# Log page mirrors (format 1.4) are tested in protect-logrepl.sh.
# nova-timeout: 600
# nova-expect-klog: nova \(pmem0\): error: (inode [0-9]+: bad checksum|scrub: inode)
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-protect.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
P=/sys/module/nova/parameters/inject
declare -A injected detected repaired
count() {	# KIND DETECTED REPAIRED
	injected[$1]=$((${injected[$1]:-0} + 1))
	detected[$1]=$((${detected[$1]:-0} + $2))
	repaired[$1]=$((${repaired[$1]:-0} + $3))
}
klog_has() { dmesg | grep -q "$1"; }
klog_count() { dmesg | grep -c "$1"; }

fresh() {
	nova_mount_init && echo victim-data > "$M/victim" &&
	echo other-data > "$M/other" && mkdir "$M/dir" &&
	echo inner > "$M/dir/f" && sync
}

t_ok "format (default protection) and mount" fresh
t_is "format 1.6 with the replica feature" \
	"$(media layout "$D" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["minor"], d["incompat"] & 4)')" "6 4"
echo 1 > "$P"
v=$(ino victim)

# --- primary slot damaged: remount and read repair it ---
t_ok "inode: inject copy 0 of inode $v" inject inode --ino "$v" --offset 200
t_ok "umount" nova_umount
out=$(fsck.NOVA -f -n "$D" 2>&1)
t_fail "fsck -n: not clean with a bad primary" fsck.NOVA -f -n "$D"
t_ok "fsck -n: calls it repairable from the replica" sh -c "printf '%s' '$out' | grep -q 'inode $v: damaged slot.*replica is good: repairable'"
t_ok "mount" nova_mount
got=$(cat "$M/victim" 2>&1)
t_is "the victim reads back right" "$got" victim-data
ok=0; [ "$got" = victim-data ] && ok=1
t_ok "the kernel rewrote the primary" klog_has "inode $v: damaged slot rewritten from its replica"
rep=0; klog_has "inode $v: damaged slot rewritten from its replica" && rep=1
t_ok "umount" nova_umount
t_ok "fsck -n: clean (the primary on the medium was rewritten)" fsck.NOVA -f -n "$D"
fsck.NOVA -f -n "$D" > /dev/null || rep=0
count inode "$ok" "$rep"

# --- the root directory (a reserved inode, replica block at the end) ---
t_ok "mount" nova_mount
t_ok "root: inject copy 0 of inode 1" inject inode --ino 1 --offset 100
t_ok "umount" nova_umount
t_ok "mount with a damaged root slot" nova_mount
t_is "the root lists its names" "$(ls "$M" | tr '\n' ' ')" "dir other victim "
ok=0; [ "$(ls "$M" | wc -l)" -eq 3 ] && ok=1
rep=0; klog_has "inode 1: damaged slot rewritten from its replica" && rep=1
t_is "... and was rewritten" "$rep" 1
t_ok "umount" nova_umount
t_ok "fsck -n: clean" fsck.NOVA -f -n "$D"
count inode "$ok" "$rep"

# --- replica damaged: fsck reports it, scrub rewrites it ---
t_ok "mount" nova_mount
o=$(ino other)
t_ok "replica: inject copy 1 of inode $o" inject inode --ino "$o" --offset 120 --copy 1
t_ok "umount" nova_umount
out=$(fsck.NOVA -f -n "$D" 2>&1)
t_fail "fsck -n: notices the damaged replica" fsck.NOVA -f -n "$D"
t_ok "... naming it" sh -c "printf '%s' '$out' | grep -q 'inode $o: damaged replica slot'"
t_ok "mount" nova_mount
t_is "the file reads (primary good)" "$(cat "$M/other")" other-data
r=$(novactl scrub start --restart --wait --json "$M")
t_ok "scrub: listed as repaired" has_bad "$r" "$o" inode True
t_is "scrub: nothing unrecoverable" "$(sj "$r" unrecoverable)" 0
t_ok "umount" nova_umount
t_ok "fsck -n: clean after the scrub" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
count inode-replica 1 "$rep"

# --- scrub repairs a damaged primary of a cached inode ---
t_ok "mount" nova_mount
f=$(ino dir/f)
t_is "dir/f is cached" "$(cat "$M/dir/f")" inner
t_ok "scrub: inject copy 0 of inode $f" inject inode --ino "$f" --offset 64
r=$(novactl scrub start --restart --wait --json "$M")
t_is "scrub: exits 0" "$?" 0
t_ok "scrub: listed as repaired" has_bad "$r" "$f" inode True
rep=0; has_bad "$r" "$f" inode True && rep=1
t_ok "umount" nova_umount
t_ok "fsck -n: clean after the scrub" fsck.NOVA -f -n "$D"
fsck.NOVA -f -n "$D" > /dev/null || rep=0
count inode "$rep" "$rep"

# --- fsck -y repairs a bad primary ---
t_ok "mount" nova_mount
t_ok "fsck: inject copy 0 of inode $o" inject inode --ino "$o" --offset 90
t_ok "umount" nova_umount
fsck.NOVA -f -y "$D" > /dev/null 2>&1
t_is "fsck -y: exit 1 (corrected)" "$?" 1
t_ok "fsck -n: clean after -y" fsck.NOVA -f -n "$D"
rep=0; fsck.NOVA -f -n "$D" > /dev/null && rep=1
before=$(klog_count "inode $o: damaged slot rewritten")
t_ok "mount" nova_mount
t_is "the file reads back" "$(cat "$M/other")" other-data
t_is "no kernel repair was needed" "$(klog_count "inode $o: damaged slot rewritten")" "$before"
t_ok "umount" nova_umount
count inode 1 "$rep"

# --- both copies damaged: detected, EUCLEAN, no crash ---
t_ok "mount" nova_mount
t_ok "both: inject copy 0 of inode $v" inject inode --ino "$v" --offset 150
t_ok "both: inject copy 1 of inode $v" inject inode --ino "$v" --offset 150 --copy 1
t_ok "umount" nova_umount
t_ok "mount" nova_mount
out=$(cat "$M/victim" 2>&1)
t_ok "the victim fails cleanly (EUCLEAN)" sh -c "printf '%s' '$out' | grep -q 'Structure needs cleaning'"
det=0; printf '%s' "$out" | grep -q 'Structure needs cleaning' && det=1
t_ok "the kernel names the inode" klog_has "nova (pmem0): error: inode $v: bad checksum"
t_is "the other files are fine" "$(cat "$M/other" "$M/dir/f" | tr '\n' ' ')" "other-data inner "
r=$(novactl scrub start --restart --wait --json "$M")
t_ok "scrub: listed, not repaired" has_bad "$r" "$v" inode False
t_ok "umount" nova_umount
t_fail "fsck -n: reports it" fsck.NOVA -f -n "$D"
count inode-both "$det" 0

# --- formats without replicas ---
t_ok "protection=off: format" nova_mount_init protection=off
echo x > "$M/x"
t_fail "protection=off: no copy 1 to damage" inject inode --ino "$(ino x)" --offset 100 --copy 1
t_is "protection=off: no replica feature (xattrs, range entries, file attributes only)" "$(media layout "$D" | python3 -c 'import json,sys; print(json.load(sys.stdin)["incompat"])')" 112
t_ok "umount" nova_umount
t_ok "rewrite as format 1.2" media sb "$D" minor=2 incompat=0
t_ok "a 1.2 image mounts" nova_mount
t_is "... with its file" "$(cat "$M/x")" x
t_ok "umount" nova_umount
t_ok "and stays 1.2, fsck clean" sh -c "fsck.NOVA -f -n $D && [ \"\$(python3 $NOVA_TOP/tests/guest/protect-media.py layout $D | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"minor\"])')\" = 2 ]"
echo 0 > "$P"

for k in inode inode-replica inode-both; do
	t_diag "faults: $k injected ${injected[$k]:-0} detected ${detected[$k]:-0} repaired ${repaired[$k]:-0}"
done
t_done

#!/bin/bash
# Metadata damage, one object at a time, on the unmounted device
# (tests/guest/protect-media.py): a superblock copy (the other copy is
# used and the damaged one rewritten), an inode slot (format 1.3: read
# from its replica and rewritten, fsck clean afterwards), a log entry, a
# log page tail (format 1.4: read from the page's mirror and rewritten,
# fsck clean afterwards; formatted without log mirrors, protection=nolog:
# detected by their checksums, a clean EUCLEAN error naming the inode, no
# oops, the rest of the file system usable). The injector-based replica
# checks are in tests/guest/protect-replica.sh and protect-logrepl.sh.
# nova-timeout: 300
# nova-expect-klog: nova \(pmem0\): error:
# nova-expect-klog: nova \(pmem0\): primary superblock is damaged
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }
declare -A injected detected repaired

fresh() {	# [OPTS]
	nova_mount_init "${1:-}" &&
	echo victim > "$M/victim" && echo other > "$M/other" &&
	chmod 600 "$M/victim" && nova_umount
}

# Superblock, primary copy.
t_ok "format, two files" fresh
media flipat "$D" 100
injected[super]=1
t_ok "mount with a damaged primary superblock" nova_mount
t_ok "... the kernel used the replica" sh -c "dmesg | grep -q 'primary superblock is damaged, using the replica'"
dmesg | grep -q "primary superblock is damaged" && detected[super]=1
t_is "files are there" "$(cat "$M/victim")" victim
t_ok "umount" nova_umount
t_ok "the primary was rewritten (fsck finds both copies good)" fsck.NOVA -f -n "$D"
fsck.NOVA -f -n "$D" > /dev/null && repaired[super]=1

# Superblock, replica copy.
size=$(blockdev --getsize64 "$D")
media flipat "$D" $((size / 4096 * 4096 - 4096 + 200))
injected[super]=$((${injected[super]} + 1))
t_fail "fsck -n notices the damaged replica" fsck.NOVA -f -n "$D"
fsck.NOVA -f -n "$D" > /dev/null || detected[super]=$((${detected[super]:-0} + 1))
t_ok "mount with a damaged replica" nova_mount
t_ok "umount (rewrites both copies)" nova_umount
t_ok "fsck finds both copies good again" fsck.NOVA -f -n "$D"
fsck.NOVA -f -n "$D" > /dev/null && repaired[super]=$((${repaired[super]:-0} + 1))

victim_ino() { stat -c %i "$M/victim"; }
check_damage() {	# KIND: mount, access the victim, expect EUCLEAN
	local kind=$1 out
	t_ok "$kind: mount" nova_mount
	out=$(cat "$M/victim" 2>&1)
	t_ok "$kind: the damaged file fails cleanly (EUCLEAN)" sh -c "printf '%s' '$out' | grep -q 'Structure needs cleaning'"
	printf '%s' "$out" | grep -q 'Structure needs cleaning' && detected[$kind]=1
	t_is "$kind: the other file is fine" "$(cat "$M/other")" other
	t_ok "$kind: the kernel names the inode" sh -c "dmesg | grep -q 'nova (pmem0): error: .*inode $ino'"
	t_ok "$kind: umount" nova_umount
	repaired[$kind]=0
}

check_repair() {	# KIND MESSAGE: mount, the victim reads back, primary rewritten
	local kind=$1
	t_ok "$kind: mount" nova_mount
	t_is "$kind: the damaged file reads back from the other copy" "$(cat "$M/victim" 2>&1)" victim
	[ "$(cat "$M/victim" 2>&1)" = victim ] && detected[$kind]=1
	t_ok "$kind: the kernel rewrote it" sh -c "dmesg | grep -q 'nova (pmem0): inode $ino: $2'"
	t_ok "$kind: umount" nova_umount
	t_ok "$kind: fsck finds the primary good again" fsck.NOVA -f -n "$D"
	fsck.NOVA -f -n "$D" > /dev/null && repaired[$kind]=1
}

for kind in inode entry tail entry-nolog tail-nolog; do
	opts=
	case $kind in *-nolog) opts=protection=nolog ;; esac
	t_ok "$kind: format, two files" fresh $opts
	nova_mount
	ino=$(victim_ino)
	nova_umount
	off=$(media meta "$D" "${kind%-nolog}" "$ino")
	t_ok "$kind: found the object of inode $ino" test -n "$off"
	media flipat "$D" "$off"
	injected[$kind]=1
	case $kind in
	inode) check_repair "$kind" "damaged slot rewritten from its replica" ;;
	entry) check_repair "$kind" "damaged log entry at [0-9]*, rewritten from its mirror" ;;
	tail) check_repair "$kind" "damaged log page tail at [0-9]*, rewritten from its mirror" ;;
	*) check_damage "$kind" ;;
	esac
done

for k in super inode entry tail entry-nolog tail-nolog; do
	t_diag "faults: $k injected ${injected[$k]:-0} detected ${detected[$k]:-0} repaired ${repaired[$k]:-0}"
done
t_done

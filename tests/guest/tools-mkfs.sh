#!/bin/bash
# mkfs.NOVA in the guest: formats /dev/pmem0 the way the kernel's
# "mount -o init" does (same structures in the same blocks), the result
# mounts without init and is usable and persistent; option checks that
# need a real device (mounted, other file system); mkfs(8) finds it.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
layout=$NOVA_TOP/tests/guest/tools-layout.py

t_ok "mkfs.NOVA is on PATH" command -v mkfs.NOVA
t_ok "mkfs.NOVA -f -L guest $D" mkfs.NOVA -q -f -L guest "$D"
t_ok "fsck.NOVA finds it clean" fsck.NOVA -n "$D"
t_ok "mount -t NOVA (no init)" mount -t NOVA "$D" "$M"
t_ok "mounted as NOVA with the label" sh -c "grep -q '^$D $M NOVA .*label=guest' /proc/mounts"
t_ok "write a file" sh -c "dd if=/dev/urandom of=$M/f bs=4k count=300 status=none"
t_ok "and a directory tree" sh -c "mkdir -p $M/a/b/c && for i in \$(seq 1 50); do echo \$i > $M/a/b/c/n\$i; done"
sum1=$(md5sum < "$M/f")
t_is "read it back" "$(cat "$M"/a/b/c/n42)" 42
t_ok "statfs works" df "$M"
t_fail "mkfs.NOVA refuses the mounted device" mkfs.NOVA -f "$D"
t_ok "... saying it is mounted" sh -c "mkfs.NOVA -f $D 2>&1 | grep -q 'is mounted on $M'"
t_fail "fsck.NOVA -y refuses the mounted device" fsck.NOVA -y "$D"
t_ok "umount" umount "$M"
t_ok "fsck.NOVA clean after use" fsck.NOVA -f -n "$D"
t_ok "mount again" mount -t NOVA "$D" "$M"
t_is "data persisted" "$(md5sum < "$M/f")" "$sum1"
t_is "names persisted" "$(ls "$M/a/b/c" | wc -l)" 50
t_ok "umount" umount "$M"

# The kernel's format and mkfs.NOVA's, same options: both place every
# structure where the shared format plan says (uapi/nova_plan.h), so the
# images agree whatever CPU formats and unmounts: on CPU 0, and on the
# last CPU (unmounting on CPU 0) when the guest has more than one.
t_ok "mkfs.NOVA -c 2 -L same" mkfs.NOVA -q -f -c 2 -L same "$D"
python3 "$layout" "$D" > "$T/mkfs" 2> "$T/mkfs.err"
ncpu=$(nproc)
cpus_tried=0
[ "$ncpu" -le 1 ] || cpus_tried="0 $((ncpu - 1))"
for c in $cpus_tried; do
	t_ok "kernel format: mount -o init=force,cpus=2,label=same on CPU $c" \
		taskset -c "$c" mount -t NOVA -o init=force,cpus=2,label=same "$D" "$M"
	t_ok "... umount on CPU $(( ncpu - 1 - c ))" taskset -c $(( ncpu - 1 - c )) umount "$M"
	t_ok "fsck.NOVA finds the kernel's fresh fs clean" fsck.NOVA -f -n "$D"
	python3 "$layout" "$D" > "$T/kernel$c" 2> "$T/kernel.err"
	t_ok "layout described" test -s "$T/kernel$c" -a -s "$T/mkfs"
	t_diag "kernel format on CPU $c: $(grep -E "^(super|journal |table |state|  free)" "$T/kernel$c" | tr "\n" ";")"
	t_is "mkfs.NOVA writes what the kernel's format on CPU $c writes" \
		"$(diff "$T/kernel$c" "$T/mkfs" | head -n 20)" ""
done
t_ok "mkfs.NOVA -c 2 -L same, again" mkfs.NOVA -q -f -c 2 -L same "$D"
t_ok "the mkfs'd fs mounts" mount -t NOVA "$D" "$M"
t_is "with 2 CPU stripes" "$(sed -n "s|^$D $M NOVA .*cpus=\([0-9]*\).*|\1|p" /proc/mounts)" 2
t_ok "umount" umount "$M"

# Stripes are a property of the media, not of this machine.
t_ok "mkfs.NOVA -c 7 on a 2-CPU guest" mkfs.NOVA -q -f -c 7 "$D"
t_ok "mounts" mount -t NOVA "$D" "$M"
t_ok "many files spread over 7 stripes" sh -c "for i in \$(seq 1 100); do : > $M/x\$i; done"
t_is "with 7 stripes" "$(sed -n "s|^$D $M NOVA .*cpus=\([0-9]*\).*|\1|p" /proc/mounts)" 7
t_ok "umount" umount "$M"
t_ok "clean" fsck.NOVA -f -n "$D"

# Another file system on the device.
t_ok "mkfs.ext4 on the device" mkfs.ext4 -q -F "$D"
t_fail "mkfs.NOVA refuses an ext4 device" mkfs.NOVA "$D"
t_ok "... naming it" sh -c "mkfs.NOVA $D 2>&1 | grep -q 'ext2/ext3/ext4 signature; use -f'"
# What the built-in table does not know, libblkid does (generic/740).
for fs in minix bfs; do
	t_ok "mkfs.$fs on the device" sh -c "dd if=/dev/zero of=$D bs=64k count=16 status=none && mkfs.$fs $D $([ $fs = minix ] && echo 2000) >/dev/null"
	t_fail "mkfs.NOVA refuses a $fs device" mkfs.NOVA "$D"
	t_ok "... naming it" sh -c "mkfs.NOVA $D 2>&1 | grep -q 'contains a $fs signature; use -f'"
done
t_ok "mkfs -t NOVA (util-linux) runs mkfs.NOVA" mkfs -t NOVA -f -q "$D"
t_ok "fsck -t NOVA (util-linux) runs fsck.NOVA" fsck -t NOVA "$D"
t_ok "fsck -t NOVA -- -f -n" fsck -t NOVA -- -f -n "$D"
t_ok "the result mounts" mount -t NOVA "$D" "$M"
t_ok "umount" umount "$M"

# Data protection chosen at mkfs time (format 1.2 feature bits).
media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }
incompat() { media layout "$D" | python3 -c "import json,sys; print(json.load(sys.stdin)['incompat'])"; }
t_ok "mkfs.NOVA says protection is on by default" sh -c "mkfs.NOVA -f $D | grep -q 'protection: *checksums+parity'"
t_is "... checksums, parity, inode replica, log mirror, xattr, range entry and file attribute feature bits" "$(incompat)" 127
t_ok "mkfs.NOVA -p nolog" sh -c "mkfs.NOVA -f -p nolog $D | grep -q 'protection: *checksums+parity+replicas$'"
t_is "... all but the log mirror bit" "$(incompat)" 119
t_ok "mkfs.NOVA -p csum" sh -c "mkfs.NOVA -f -p csum $D | grep -q 'protection: *checksums$'"
t_is "... the checksum bit and the xattr, range entry and file attribute bits" "$(incompat)" 113
t_ok "mkfs.NOVA -p off" sh -c "mkfs.NOVA -f -p off $D | grep -q 'protection: *off'"
t_is "... the xattr, range entry and file attribute bits only" "$(incompat)" 112
t_fail "mkfs.NOVA -p bogus is refused" mkfs.NOVA -f -p bogus "$D"
for mode in all nolog csum off; do
	t_ok "-p $mode: mkfs" mkfs.NOVA -q -f -p "$mode" "$D"
	t_ok "-p $mode: mount, write, read" sh -c "mount -t NOVA $D $M &&
		dd if=/dev/urandom of=$T/p bs=4k count=40 status=none && cp $T/p $M/p &&
		umount $M && mount -t NOVA $D $M && cmp $T/p $M/p && umount $M"
	t_ok "-p $mode: fsck.NOVA clean" fsck.NOVA -f -n "$D"
	t_ok "-p $mode: fsck -v reports the protection" sh -c "fsck.NOVA -f -n -v $D | grep -q 'protection: '"
done
# -s SIZE: only the first SIZE bytes (fstests' _scratch_mkfs_sized).
devsize=$(blockdev --getsize64 "$D")
t_ok "mkfs.NOVA -s 64m" mkfs.NOVA -q -f -s 64m "$D"
t_ok "-s: fsck.NOVA clean, a 64 MiB file system" sh -c "fsck.NOVA -f -n -v $D | grep -q 'file system is 67108864 bytes, the device $devsize'"
t_ok "-s: mounts" mount -t NOVA "$D" "$M"
b=$(stat -f -c '%b' "$M")
t_ok "-s: statfs shows at most 64 MiB ($b blocks), more than half of it" test "$b" -le 16384 -a "$b" -gt 8192
t_fail "-s: a 80 MiB file does not fit" dd if=/dev/zero of="$M/big" bs=1M count=80 status=none
t_ok "umount" umount "$M"
t_ok "-s: fsck.NOVA clean after ENOSPC" fsck.NOVA -f -n "$D"
t_ok "mkfs -t NOVA -- -s 32m (as fstests calls it)" mkfs -t NOVA -- -f -q -s 32m "$D"
b=$(mount -t NOVA "$D" "$M" && stat -f -c '%b' "$M"; umount "$M")
t_ok "-s: statfs shows at most 32 MiB ($b blocks)" test "$b" -le 8192 -a "$b" -gt 4096
t_fail "-s larger than the device is refused" mkfs.NOVA -f -s $((devsize + 4096)) "$D"
t_ok "... saying so" sh -c "mkfs.NOVA -f -s $((devsize + 4096)) $D 2>&1 | grep -q 'larger than $D'"
t_fail "-s 1m is too small" mkfs.NOVA -f -s 1m "$D"
rm -rf "$T"
t_done

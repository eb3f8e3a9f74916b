#!/bin/bash
# Mount options that would lose data or do nothing are refused, with a
# message and an errno, and lose nothing: "-o init" over a device that holds
# a file system (NOVA, ext4, xfs, swap) unless it says init=force, "init" on
# a device mounted elsewhere, and cpus=/label=/protection= that differ from
# what the file system was made with, on mount and on remount. Repeating
# the values /proc/mounts shows is accepted (fstab lines copied from it).
# dax and dax=always are taken (NOVA is always DAX), dax=never and
# dax=inode refused.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
M2=/mnt/nova-second
mkdir -p "$M" "$M2"

# mount(2) directly (flags, data), printing the errno name on failure, so
# that exactly these options reach the kernel.
mnt() {	# DEV DIR FLAGS OPTS
	python3 - "$@" <<'PY'
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.mount(sys.argv[1].encode(), sys.argv[2].encode(), b"NOVA",
               int(sys.argv[3], 0), sys.argv[4].encode())
if r:
    print(errno.errorcode[ctypes.get_errno()], file=sys.stderr)
    sys.exit(1)
PY
}
MS_REMOUNT=32 MS_RDONLY=1
klog_has() { dmesg | tail -n 20 | grep -q -- "$1"; }
opt() {	# NAME: the value /proc/mounts shows for NOVA option NAME on $M
	awk -v m="$M" '$2 == m { print $4 }' /proc/mounts | tr , '\n' |
		sed -n "s/^$1=//p"
}
devsize=$(blockdev --getsize64 "$D")
wipe() {	# the start and the end of the device, where signatures live
	dd if=/dev/zero of="$D" bs=1M count=1 oflag=direct status=none
	dd if=/dev/zero of="$D" bs=1M count=1 oflag=direct status=none \
		seek=$((devsize / 1048576 - 1))
}

# --- init over an empty device formats it ---
wipe
t_ok "init on a wiped device formats" mnt "$D" "$M" 0 init,cpus=2,label=first
t_ok "write a file" sh -c "echo keep > $M/keep"
t_errno "init on a device mounted elsewhere is EBUSY" EBUSY mnt "$D" "$M2" 0 init
t_ok "the refusal says it is mounted" klog_has "init: the device is mounted"
t_ok "umount" umount "$M"

# --- init over an existing NOVA ---
t_errno "init over a NOVA file system is EEXIST" EEXIST mnt "$D" "$M" 0 init
t_ok "the message names NOVA and init=force" \
	klog_has "init: the device holds a NOVA signature; not formatting it (mount -o init=force"
t_ok "mount without init" mnt "$D" "$M" 0 ""
t_is "the file survived the refused init" "$(cat "$M/keep")" keep
t_ok "umount" umount "$M"
# only the replica left (the primary zeroed): still NOVA
dd if=/dev/zero of="$D" bs=4096 count=1 oflag=direct status=none
t_errno "init with only the replica superblock left is EEXIST" EEXIST \
	mnt "$D" "$M" 0 init
t_ok "init=force formats it" mnt "$D" "$M" 0 init=force
t_ok "the old file is gone" test ! -e "$M/keep"
t_is "init=force does not show in /proc/mounts" \
	"$(awk -v m="$M" '$2 == m' /proc/mounts | grep -c init)" 0
t_ok "umount" umount "$M"

# --- init over other file systems ---
t_ok "mkfs.xfs" mkfs.xfs -q -f -m reflink=0 "$D"
t_errno "init over xfs is EEXIST" EEXIST mnt "$D" "$M" 0 init
t_ok "the message names xfs" klog_has "holds a xfs signature"
t_ok "xfs is intact" xfs_repair -n "$D"
t_ok "mkswap" mkswap -q "$D"
t_errno "init over swap is EEXIST" EEXIST mnt "$D" "$M" 0 init
t_ok "the message names swap" klog_has "holds a swap signature"
t_ok "the swap signature is intact" sh -c "blkid -p -o value -s TYPE $D | grep -qx swap"
t_ok "init=force over swap" mnt "$D" "$M" 0 init=force,cpus=2,label=lbl
t_is "cpus shown" "$(opt cpus)" 2
t_is "label shown" "$(opt label)" lbl

# --- options fixed at format time, on remount ---
t_errno "remount,label=other is EINVAL" EINVAL mnt "$D" "$M" $MS_REMOUNT label=other
t_ok "the refusal names the label in use" klog_has 'label=other: the label is "lbl"'
t_is "the label did not change" "$(opt label)" lbl
t_errno "remount,cpus=4 is EINVAL" EINVAL mnt "$D" "$M" $MS_REMOUNT cpus=4
t_ok "the refusal names the cpus in use" klog_has "cpus=4: the file system has 2 per-CPU structures"
t_errno "remount,protection=off is EINVAL" EINVAL mnt "$D" "$M" $MS_REMOUNT protection=off
t_ok "the refusal names the protection in use" klog_has "made with protection=on"
t_ok "remount with the options /proc/mounts shows" \
	mnt "$D" "$M" $MS_REMOUNT "cpus=2,label=lbl,protection=on"
t_ok "mount -o remount,ro (mount(8))" mount -o remount,ro "$M"
t_ok "mount -o remount,rw (mount(8))" mount -o remount,rw "$M"
t_ok "still writable" touch "$M/w"

# --- a second mount of the mounted device ---
t_errno "second mount with cpus=3 is EINVAL" EINVAL mnt "$D" "$M2" 0 cpus=3
t_ok "second mount with the same options" mnt "$D" "$M2" 0 cpus=2,label=lbl
t_ok "both show the same file" test -e "$M2/w"
t_ok "umount the second" umount "$M2"
t_ok "umount" umount "$M"

# --- options fixed at format time, on mount ---
t_errno "mount with label=other is EINVAL" EINVAL mnt "$D" "$M" 0 label=other
t_errno "mount with cpus=1 is EINVAL" EINVAL mnt "$D" "$M" 0 cpus=1
t_errno "mount with protection=nolog is EINVAL" EINVAL mnt "$D" "$M" 0 protection=nolog
t_ok "an fstab line with the /proc/mounts options mounts" sh -c "
	echo '$D $M NOVA cpus=2,label=lbl,protection=on 0 0' > /tmp/fstab.nova &&
	mount -T /tmp/fstab.nova $M"
t_ok "umount" umount "$M"

# --- dax: NOVA is always DAX; ext4's and xfs's option is taken as such ---
t_ok "mount -o dax" mnt "$D" "$M" 0 dax
t_is "/proc/mounts shows dax=always" "$(opt dax)" always
t_ok "remount,dax=always" mnt "$D" "$M" $MS_REMOUNT dax=always
t_errno "remount,dax=never is EINVAL" EINVAL mnt "$D" "$M" $MS_REMOUNT dax=never
t_ok "the refusal says why" klog_has "dax=never: NOVA always maps file data directly"
t_is "still dax=always" "$(opt dax)" always
t_ok "umount" umount "$M"
t_errno "mount with dax=inode is EINVAL" EINVAL mnt "$D" "$M" 0 dax=inode
t_errno "mount with dax=bogus is EINVAL" EINVAL mnt "$D" "$M" 0 dax=bogus
t_ok "an fstab line written for ext4 -o dax mounts" sh -c "
	echo '$D $M NOVA defaults,dax 0 0' > /tmp/fstab.nova &&
	mount -T /tmp/fstab.nova $M"
t_ok "umount" umount "$M"
t_ok "mount without dax" mnt "$D" "$M" 0 ""
t_is "no dax= shown without the option" "$(opt dax)" ""
t_ok "umount" umount "$M"
t_ok "fsck.NOVA -n clean after all refusals" fsck.NOVA -f -n "$D"
t_done

#!/bin/bash
# tune.NOVA changes the label and the UUID of an unmounted NOVA file system
# in both superblock copies; udev moves the /dev/disk/by-label and by-uuid
# links and lsblk shows the new names; a mounted, unclean or damaged file
# system and bad arguments are refused with a message and leave the device
# as it was. nova_id follows the kernel's superblock rule for a primary
# with one flipped magic bit.
# nova-guest-args: --systemd
# nova-timeout: 240
. "$NOVA_TOP/tests/guest/lib.sh"
D=$NOVA_PMEM
M=$NOVA_MNT
B=$NOVA_TOP/build/bin
mkdir -p "$M"

cleanup() {
	umount -q "$M" 2>/dev/null
	env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local \
		"$NOVA_TOP/mk/install.sh" uninstall tools udev
	udevadm control --reload
}
trap cleanup EXIT

lsblk_f() { lsblk -rno "$1" "$D"; }
settle() { udevadm trigger --settle "$D"; udevadm settle -t 30; }
sbsum() { dd if="$D" bs=4096 count=1 status=none | md5sum; }

t_ok "install tools and the udev rule" \
	env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local "$NOVA_TOP/mk/install.sh" install tools udev
udevadm control --reload
t_ok "mkfs.NOVA -L before" mkfs.NOVA -q -f -L before "$D"
t_ok "mount and write" sh -c "mount -t NOVA $D $M && echo kept > $M/f"

# ---- refused while mounted ----
t_fail "tune.NOVA -L on a mounted device is refused" "$B/tune.NOVA" -L x "$D"
t_ok "umount" umount "$M"

# ---- the label ----
old_uuid=$("$B/tune.NOVA" -l "$D" | sed -n 's/^UUID: *//p')
t_ok "tune.NOVA -l prints the UUID" test -n "$old_uuid"
t_ok "tune.NOVA -L after" "$B/tune.NOVA" -L after "$D"
settle
t_is "lsblk shows the new label" "$(lsblk_f LABEL)" after
t_ok "by-label/after points at the device" test "$(readlink -f /dev/disk/by-label/after)" = "$D"
t_ok "by-label/before is gone" test ! -e /dev/disk/by-label/before
t_is "the UUID did not change" "$(lsblk_f UUID)" "$old_uuid"
t_ok "fsck.NOVA -n clean" fsck.NOVA -f -n "$D"
t_ok "mount LABEL=after" mount -t NOVA LABEL=after "$M"
t_is "the data is there" "$(cat "$M/f")" kept
t_ok "/proc/mounts shows label=after" grep -q "label=after" /proc/mounts
# online (FS_IOC_SETFSLABEL): the kernel's change uevent moves the link
t_ok "xfs_io label -s online" xfs_io -c "label -s online" "$M"
udevadm settle -t 30
t_ok "by-label/online appears without a trigger" \
	wait_for 10 sh -c "test \"\$(readlink -f /dev/disk/by-label/online)\" = $D"
t_ok "by-label/after is gone" test ! -e /dev/disk/by-label/after
t_ok "umount" umount "$M"
t_ok "tune.NOVA -L after (offline again)" "$B/tune.NOVA" -L after "$D"
settle

# ---- the UUID ----
t_ok "tune.NOVA -U random" "$B/tune.NOVA" -U random "$D"
settle
new_uuid=$(lsblk_f UUID)
t_ok "lsblk shows another UUID" test -n "$new_uuid" -a "$new_uuid" != "$old_uuid"
t_ok "by-uuid follows" test "$(readlink -f "/dev/disk/by-uuid/$new_uuid")" = "$D"
t_ok "tune.NOVA -U with a given UUID" "$B/tune.NOVA" -U 01234567-89ab-cdef-0123-456789abcdef "$D"
settle
t_is "lsblk shows it" "$(lsblk_f UUID)" 01234567-89ab-cdef-0123-456789abcdef
t_ok "mount UUID=" mount -t NOVA UUID=01234567-89ab-cdef-0123-456789abcdef "$M"
t_ok "umount" umount "$M"
t_ok "fsck.NOVA -n clean" fsck.NOVA -f -n "$D"
t_ok "clear the label" "$B/tune.NOVA" -L "" "$D"
settle
t_is "no label" "$(lsblk_f LABEL)" ""

# ---- refusals that change nothing ----
sum=$(sbsum)
t_is "a 32-byte label is refused (exit 1)" "$("$B/tune.NOVA" -L "$(printf 'x%.0s' $(seq 32))" "$D" 2>/dev/null; echo $?)" 1
t_is "a bad UUID is refused (exit 1)" "$("$B/tune.NOVA" -U nope "$D" 2>/dev/null; echo $?)" 1
t_is "no option is a usage error (exit 2)" "$("$B/tune.NOVA" "$D" 2>/dev/null; echo $?)" 2
t_is "the superblock is untouched" "$(sbsum)" "$sum"
# an unclean file system: both superblocks as a mounted one has them
last=$(( $(blockdev --getsize64 "$D") / 4096 - 1 ))
t_ok "mount" mount -t NOVA "$D" "$M"
dd if="$D" of=/tmp/sb0 bs=4096 count=1 iflag=direct status=none
dd if="$D" of=/tmp/sb1 bs=4096 skip="$last" count=1 iflag=direct status=none
t_ok "umount" umount "$M"
dd if=/tmp/sb0 of="$D" bs=4096 count=1 oflag=direct conv=notrunc status=none
dd if=/tmp/sb1 of="$D" bs=4096 seek="$last" count=1 oflag=direct conv=notrunc status=none
out=$("$B/tune.NOVA" -L y "$D" 2>&1)
t_is "an unclean file system is refused (exit 1)" "$?" 1
t_ok "it says to run recovery or fsck" grep -q "not cleanly unmounted" <<< "$out"
t_ok "mount runs recovery" sh -c "mount -t NOVA $D $M && umount $M"
t_ok "then tune.NOVA works" "$B/tune.NOVA" -L y "$D"
t_ok "ext4 is refused" sh -c "mkfs.ext4 -q -F $D && ! $B/tune.NOVA -L z $D"
t_ok "ext4 is intact" e2fsck -n -f "$D"

# ---- nova_id and a flipped magic bit (the kernel's rule) ----
t_ok "mkfs.NOVA -L flip" mkfs.NOVA -q -f -L flip "$D"
printf '\x40' | dd of="$D" bs=1 count=1 conv=notrunc status=none
t_ok "nova_id identifies it from the replica" \
	sh -c "/usr/local/lib/udev/nova_id $D | grep -qx ID_FS_LABEL=flip"
printf '\xff\xff\xff\xff' | dd of="$D" bs=1 seek=48 count=4 conv=notrunc status=none
t_fail "but not when the UUID bytes are not the replica's" \
	/usr/local/lib/udev/nova_id "$D"
t_done

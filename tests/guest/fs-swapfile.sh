#!/bin/bash
# Swap files on NOVA are refused, for the reason every DAX file system
# has (docs/fs.md, "Swap files"): swapon(2) reads the swap header through
# the page cache (address_space_operations.read_folio) before it asks the
# file system for the file's extents, and a DAX mapping has no page
# cache. This test shows that swapon of a fully written NOVA file fails
# with EINVAL, cleanly (no kernel error, the file stays an ordinary file,
# fsck clean), and that ext4 on the same NVDIMM behaves the same with
# -o dax and swaps to the file without it: the limit is DAX, not NOVA.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
E=$T/ext4

# swapfile DIR: a 16 MiB swap file, fully written, in DIR
swapfile() {
	dd if=/dev/zero of="$1/swap" bs=1M count=16 status=none &&
		chmod 600 "$1/swap" && mkswap "$1/swap" > /dev/null
}
listed() { awk -v f="$1" '$1 == f { print $2 }' /proc/swaps; }

t_ok "format and mount" nova_mount_init
t_ok "a 16 MiB swap file, written, mkswap" swapfile "$M"
t_errno "swapon on NOVA: EINVAL" "Invalid argument" swapon "$M/swap"
t_is "... not in /proc/swaps" "$(listed "$M/swap")" ""
t_ok "the file is still an ordinary file: written" \
	dd if=/dev/urandom of="$M/swap" bs=4k count=4 conv=notrunc status=none
t_ok "... truncated" truncate -s 1M "$M/swap"
t_ok "... removed" rm "$M/swap"
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n clean" "$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0

# The reference: ext4 on the same device, with and without DAX.
mkdir -p "$E"
t_ok "mkfs.ext4 on the NVDIMM" mkfs.ext4 -q -F "$D"
t_ok "mount ext4 -o dax" mount -o dax "$D" "$E"
t_ok "ext4 -o dax is DAX" sh -c "grep ' $E ' /proc/mounts | grep -q dax"
t_ok "a swap file on ext4 -o dax" swapfile "$E"
t_errno "swapon on ext4 -o dax: EINVAL as well" "Invalid argument" swapon "$E/swap"
t_ok "umount" umount "$E"
t_ok "mount ext4 -o dax=never" mount -o dax=never "$D" "$E"
t_ok "swapon of the same file without DAX works" swapon "$E/swap"
t_is "... /proc/swaps lists it" "$(listed "$E/swap")" file
t_ok "swapoff" swapoff "$E/swap"
t_ok "umount" umount "$E"
rm -rf "$T"
t_done

#!/usr/bin/env bash
# The guest root image of the debug lane (KERNEL=debug): the image of
# qemu/build-rootfs.sh for the distribution's 6.1 kernel, plus the debug
# kernel's /lib/modules/RELEASE (modules.builtin and friends, so that
# modprobe of a built-in module succeeds, and any modules built as such).
# The files go in with debugfs(8), on a copy of the base image: no new
# debootstrap, no loop device. Cached next to the base image by a hash of
# the base image's name, the debug kernel's key and this script.
#
# usage: KERNEL=debug qemu/debug-rootfs.sh
# Prints the path of the image on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "${KERNEL:-}" = debug ] || nova_die "debug-rootfs.sh is for KERNEL=debug"
kver=$(nova_kver)
dir=$(nova_debug_dir)
moddir=$(nova_kmoddir "$kver")
[ -f "$moddir/modules.builtin" ] || nova_die "no $moddir: run qemu/build-debug-kernel.sh"
base=$(KERNEL='' KVER='' "$nova_top/qemu/build-rootfs.sh")
cache=$(nova_cache_dir)

key=$( { basename "$base"; cat "$dir/key" "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-16)
img=$cache/debug-rootfs-$key.img
if [ -s "$img" ]; then
	echo "$img"
	exit 0
fi

tmp=$(mktemp "$cache/debug-rootfs.XXXXXX")
cmds=$(mktemp)
trap 'rm -f "$tmp" "$cmds"' EXIT
cp --sparse=always "$base" "$tmp"
{
	echo "mkdir /lib/modules/$kver"
	(cd "$moddir" && find . -mindepth 1 -type d -printf '%P\n' | sort) |
		while IFS= read -r d; do echo "mkdir \"/lib/modules/$kver/$d\""; done
	(cd "$moddir" && find . -type f -printf '%P\n' | sort) |
		while IFS= read -r f; do echo "write \"$moddir/$f\" \"/lib/modules/$kver/$f\""; done
} > "$cmds"
debugfs -w -f "$cmds" "$tmp" > /dev/null 2>&1
# Check that the files arrived (debugfs does not fail on a bad command).
debugfs -R "stat /lib/modules/$kver/modules.builtin" "$tmp" 2>/dev/null | grep -q 'Type: regular' ||
	nova_die "debugfs could not add the debug kernel's modules to $tmp"
e2fsck -fn "$tmp" > /dev/null 2>&1 || nova_die "debug rootfs image fails e2fsck"
mv "$tmp" "$img"
find "$cache" -maxdepth 1 -name 'debug-rootfs-*.img' ! -name "debug-rootfs-$key.img" -delete
echo "$img"

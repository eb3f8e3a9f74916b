#!/usr/bin/env bash
# Build (or reuse) the guest root image.
#
# The image is Debian 12 minbase plus qemu/rootfs-packages.txt, the guest
# bootstrap from qemu/rootfs/, and the kernel modules of $KVER copied from
# the host's installed linux-image package. It is cached under
# $(nova_cache_dir) by a hash of everything that goes into it, so it is
# rebuilt only when the recipe, the package list or KVER changes.
#
# Prints the path of the image on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=$(nova_kver)
cache=$(nova_cache_dir)
mkdir -p "$cache"

key=$( { echo "$kver"; cat "$nova_top/qemu/build-rootfs.sh" \
	"$nova_top/qemu/rootfs-packages.txt"; \
	find "$nova_top/qemu/rootfs" -type f -print0 | sort -z | xargs -0 cat; } |
	sha256sum | cut -c1-16)
img="$cache/rootfs-$key.img"
if [ -s "$img" ]; then
	echo "$img"
	exit 0
fi

[ -d "/lib/modules/$kver/kernel" ] ||
	nova_die "linux-image-$kver is not installed (run make deps)"

# Use the host's own apt sources for the guest so no mirror is named here.
sources=
for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
	if [ -s "$f" ]; then
		sources=$f
		break
	fi
done
[ -n "$sources" ] || nova_die "no apt sources found on the host"

pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$nova_top/qemu/rootfs-packages.txt" |
	tr '\n' ',' | sed 's/,$//')

work=$(mktemp -d "$cache/rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"

echo "nova: building guest rootfs for $kver (cached as $img)" >&2
start=$(date +%s)
# Details go to a log; on failure its tail is shown.
log=$cache/rootfs-build.log
exec 3>&2 2> "$log"
trap 'rc=$?; rm -rf "$work"; [ $rc -eq 0 ] || { tail -n 20 "$log" >&3; echo "nova: rootfs build failed, see $log" >&3; }' EXIT
mmdebstrap --quiet --mode=root --variant=minbase --include="$pkgs" \
	--customize-hook="cp -a '$nova_top/qemu/rootfs/.' \"\$1/\"" \
	bookworm "$root" "$sources" >&2

# Kernel modules of the guest kernel (the kernel image itself stays out).
mkdir -p "$root/lib/modules/$kver"
cp -a "/lib/modules/$kver/kernel" "/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} \
	"$root/lib/modules/$kver/"
depmod -b "$root" "$kver"

# Guest configuration: no password root on the serial console, fixed
# hostname, the mount points the bootstrap uses.
echo nova-guest > "$root/etc/hostname"
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"
mkdir -p "$root/nova" "$root/out" "$root/mnt/nova" "$root/mnt/scratch"
systemctl --root="$root" enable nova-guest.service >&2
systemctl --root="$root" mask systemd-networkd-wait-online.service \
	apt-daily.timer apt-daily-upgrade.timer >&2 || true
rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*

size_mb=$(( $(du -sm "$root" | cut -f1) + 768 ))
mke2fs -q -t ext4 -L nova-root -d "$root" "$work/rootfs.img" "${size_mb}M" >&2
mv "$work/rootfs.img" "$img"
# Drop images of older recipes, but keep the two newest others: checkouts
# that share a cache (NOVA_CACHE, git worktrees, another KVER) may still
# be about to boot theirs.
find "$cache" -maxdepth 1 -name 'rootfs-*.img' ! -name "rootfs-$key.img" \
	-printf '%T@ %p\n' | sort -rn | tail -n +3 | cut -d' ' -f2- |
	xargs -r rm -f
echo "nova: rootfs ready in $(( $(date +%s) - start )) s" >&3
echo "$img"

#!/usr/bin/env bash
# Build (or reuse) the kernel of the debug lane (make test-debug): Linux
# 6.1 from Debian's linux-source-6.1 package, configured as
# x86_64_defconfig + kvm_guest.config + qemu/debug-kernel.config (guest
# devices built in, so no initrd; KASAN, lockdep, UBSAN, KFENCE, ...).
#
# The tree, the build output and the installed modules live under
# $(nova_cache_dir)/debug-kernel/ (outside the git tree):
#   src/        the unpacked source (re-unpacked when the package changes)
#   obj/        the build (O=); KERNEL=debug builds nova.ko against it
#   modules/    modules_install output, copied into the guest image
#   bzImage, release, key   what the guest boots, its uname -r, the hash
# The build runs again (incrementally, in the same obj/) only when the key
# changes: a hash of the source package version, the fragment and this
# script. Needs qemu/deps.sh --debug (bc, bison, flex, libelf-dev, ...).
#
# usage: qemu/build-debug-kernel.sh [--force]
# Prints the kernel release (uname -r of the guest) on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

force=0
[ "${1:-}" != --force ] || force=1

dir=$(nova_debug_dir)
tarball=/usr/src/linux-source-6.1.tar.xz
fragment=$nova_top/qemu/debug-kernel.config
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	nova_die "linux-source-6.1 is not installed: run 'qemu/deps.sh --debug' as root"
[ -r "$tarball" ] || nova_die "no $tarball: run 'qemu/deps.sh --debug' as root"

key=$( { echo "$srcver"; cat "$fragment" "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-16)
if [ "$force" = 0 ] && [ -s "$dir/bzImage" ] && [ -s "$dir/release" ] &&
   [ "$(cat "$dir/key" 2>/dev/null)" = "$key" ]; then
	cat "$dir/release"
	exit 0
fi

mkdir -p "$dir"
start=$(date +%s)
log=$dir/build.log
echo "nova: building the debug kernel (linux-source-6.1 $srcver; log: $log)" >&2
exec 3>&2 2> "$log"
trap 'rc=$?; [ $rc -eq 0 ] || { tail -n 30 "$log" >&3; echo "nova: debug kernel build failed, see $log" >&3; }' EXIT

# A new source package version starts from scratch.
if [ "$(cat "$dir/src-version" 2>/dev/null)" != "$srcver" ] || [ ! -f "$dir/src/Makefile" ]; then
	rm -rf "$dir/src" "$dir/obj" "$dir/src-version"
	mkdir -p "$dir/src"
	tar -xJf "$tarball" -C "$dir/src" --strip-components=1
	echo "$srcver" > "$dir/src-version"
fi
rm -f "$dir/key"

kmake() {
	nice -n 19 make -C "$dir/src" O="$dir/obj" "$@" >&2
}
mkdir -p "$dir/obj"
kmake x86_64_defconfig
kmake kvm_guest.config
"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" "$dir/obj/.config" "$fragment" >&2
kmake olddefconfig

# Every option the fragment asks for must have survived olddefconfig (a
# missing dependency silently drops it otherwise).
missing=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*=.*\)$/\1/p; s/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p' "$fragment" |
	while IFS= read -r want; do
		opt=${want%%=*}
		have=$(grep -E "^$opt=|^# $opt is not set" "$dir/obj/.config" || true)
		case "$want" in
		*=n) [ -z "$have" ] || [ "$have" = "# $opt is not set" ] || echo "$want (have: $have)" ;;
		*) [ "$have" = "$want" ] || echo "$want (have: ${have:-nothing})" ;;
		esac
	done)
[ -z "$missing" ] || nova_die "debug kernel config: not taken by olddefconfig:"$'\n'"$missing"

kmake -j2 bzImage modules
rm -rf "$dir/modules"
kmake INSTALL_MOD_PATH="$dir/modules" modules_install
release=$(make -s -C "$dir/src" O="$dir/obj" kernelrelease 2>/dev/null | tail -n1)
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/bzImage"
echo "$release" > "$dir/release"
echo "$key" > "$dir/key"
echo "nova: debug kernel $release built in $(( $(date +%s) - start )) s" >&3
echo "$release"

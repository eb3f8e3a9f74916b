# shellcheck shell=bash
# Helpers shared by the host-side scripts in qemu/ and tests/.

nova_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The headers meta package naming the ABI of a kernel series: KERNEL=6.12
# selects Debian 12's linux-headers-6.12-amd64 (bookworm-security); empty
# or 6.1 selects the distribution default, linux-headers-amd64.
# KERNEL=debug is the debug lane's own 6.1 build (nova_debug_dir), which
# has no package: nova_kver reads its release from the build.
nova_kmeta() {
	case "${KERNEL:-}" in
	"" | 6.1) echo linux-headers-amd64 ;;
	6.12) echo linux-headers-6.12-amd64 ;;
	debug) echo "nova: KERNEL=debug has no headers package" >&2; return 1 ;;
	*) echo "nova: KERNEL=$KERNEL: supported are 6.1, 6.12 and debug" >&2; return 1 ;;
	esac
}

# The kernel ABI to build and boot: $KVER if set, else the one named by
# the headers meta package of $KERNEL (nova_kmeta), else the newest
# installed kernel (of the $KERNEL series when that is set).
nova_kver() {
	local v meta
	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
		return
	fi
	if [ "${KERNEL:-}" = debug ]; then
		v=$(cat "$(nova_debug_dir)/release" 2>/dev/null) ||
			{ echo "nova: no debug kernel built: run qemu/build-debug-kernel.sh" >&2; return 1; }
		echo "$v"
		return
	fi
	meta=$(nova_kmeta) || return 1
	v=$(apt-cache depends "$meta" 2>/dev/null |
	    sed -n 's/^ *Depends: linux-headers-\(.*-amd64\)$/\1/p' | head -n1)
	if [ -z "$v" ]; then
		v=$(find /lib/modules -mindepth 1 -maxdepth 1 -name "${KERNEL:+$KERNEL.}*" \
		    -printf '%f\n' 2>/dev/null |
		    sort -V | tail -n1)
	fi
	[ -n "$v" ] || { echo "nova: cannot determine KVER (run apt-get update)" >&2; return 1; }
	echo "$v"
}

nova_build_dir() {
	echo "${NOVA_BUILD:-$nova_top/build}"
}

# Cache for the guest root image: outside the git tree's tracked files.
nova_cache_dir() {
	echo "${NOVA_CACHE:-$(nova_build_dir)/cache}"
}

# The debug lane's kernel (KERNEL=debug, qemu/build-debug-kernel.sh):
# its source, build and modules, outside the git tree.
nova_debug_dir() {
	echo "$(nova_cache_dir)/debug-kernel"
}

# The kernel build tree to build nova.ko against.
nova_kdir() {
	if [ "${KERNEL:-}" = debug ]; then
		echo "$(nova_debug_dir)/obj"
	else
		echo "/lib/modules/$(nova_kver)/build"
	fi
}

# The suffix modules_install gives a module of the kernel built in $1
# (nova_kdir): Debian's 6.12 compresses with xz (.ko.xz), 6.1 does not.
nova_ko_suffix() {
	local conf=$1/include/config/auto.conf
	if grep -q '^CONFIG_MODULE_COMPRESS_XZ=y' "$conf" 2> /dev/null; then
		echo .xz
	elif grep -q '^CONFIG_MODULE_COMPRESS_ZSTD=y' "$conf" 2> /dev/null; then
		echo .zst
	elif grep -q '^CONFIG_MODULE_COMPRESS_GZIP=y' "$conf" 2> /dev/null; then
		echo .gz
	fi
}

# Where the modules of kernel $1 are (copied into the guest image).
nova_kmoddir() {
	if [ "${KERNEL:-}" = debug ]; then
		echo "$(nova_debug_dir)/modules/lib/modules/$1"
	else
		echo "/lib/modules/$1"
	fi
}

# What the guest boots: "KERNEL-IMAGE INITRD" (no initrd for the debug
# kernel, which has the root disk, 9p and pmem built in).
nova_guest_kernel() {
	local kver=$1
	if [ "${KERNEL:-}" = debug ]; then
		echo "$(nova_debug_dir)/bzImage"
	else
		echo "/boot/vmlinuz-$kver /boot/initrd.img-$kver"
	fi
}

# Factor for the guest's time limits: KASAN and lockdep make the debug
# kernel several times slower under TCG.
nova_timeout_scale() {
	if [ "${KERNEL:-}" = debug ]; then
		echo "${NOVA_TIMEOUT_SCALE:-4}"
	else
		echo "${NOVA_TIMEOUT_SCALE:-1}"
	fi
}

# The guest's root image for this kernel (built and cached on first use):
# prints its path.
nova_rootfs() {
	if [ "${KERNEL:-}" = debug ]; then
		"$nova_top/qemu/debug-rootfs.sh"
	else
		"$nova_top/qemu/build-rootfs.sh"
	fi
}

nova_die() {
	echo "nova: $*" >&2
	exit 1
}

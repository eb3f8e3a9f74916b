# shellcheck shell=bash
# Helpers shared by the host-side scripts in qemu/ and tests/.

nova_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The headers meta package naming the ABI of a kernel series: KERNEL=6.12
# selects Debian 12's linux-headers-6.12-amd64 (bookworm-security); empty
# or 6.1 selects the distribution default, linux-headers-amd64.
nova_kmeta() {
	case "${KERNEL:-}" in
	"" | 6.1) echo linux-headers-amd64 ;;
	6.12) echo linux-headers-6.12-amd64 ;;
	*) echo "nova: KERNEL=$KERNEL: supported are 6.1 and 6.12" >&2; return 1 ;;
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

nova_die() {
	echo "nova: $*" >&2
	exit 1
}

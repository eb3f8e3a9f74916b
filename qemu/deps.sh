#!/usr/bin/env bash
# Install, with apt-get, what the build and the tests need; only what is
# missing. Works on a fresh Debian 12 machine (runs apt-get update itself
# when the package lists are empty or an install fails).
#
# usage: qemu/deps.sh [--debug]
#   --debug   also what the debug lane needs to build its kernel from
#             linux-source-6.1 (qemu/build-debug-kernel.sh, make test-debug);
#             plain 'make deps' and CI leave these out
set -euo pipefail
. "$(dirname "$0")/lib.sh"

debug=0
[ "${1:-}" != --debug ] || debug=1

apt_updated=0
apt_update() {
	[ "$apt_updated" = 1 ] && return 0
	echo "nova: apt-get update" >&2
	apt-get update -qq
	apt_updated=1
}

# Package lists are needed to resolve KVER from the meta packages.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -print -quit 2>/dev/null)" ]; then
	apt_update
fi
# KERNEL=6.12 resolves through linux-headers-6.12-amd64, which only
# bookworm-security lists: refresh once if the lists predate it.
# KERNEL=debug boots a kernel built here; the distribution's 6.1 packages
# are still what the rest of the build and the guest image start from.
[ "${KERNEL:-}" != debug ] || { debug=1; KERNEL=; KVER=; }
kver=$(nova_kver 2>/dev/null) || { apt_update; kver=$(nova_kver); }

pkgs=(
	"linux-headers-$kver" "linux-image-$kver"
	qemu-system-x86 qemu-utils mmdebstrap ndctl e2fsprogs xfsprogs fio
	build-essential pkg-config libnl-3-dev libnl-genl-3-dev libjson-c-dev
	libsystemd-dev libcmocka-dev libblkid-dev sparse linux-source-6.1 xz-utils
	util-linux procps dkms
	prometheus	# promtool checks novad's metrics and docs/alerts (guest tests)
	# fstests, built from ../shared/fstests/ by tests/fstests/build.sh:
	# its configure needs these (xfs, ACL, UUID headers; autotools) ...
	autoconf automake libtool-bin xfslibs-dev libacl1-dev uuid-dev libattr1-dev
	# ... and builds its AIO and io_uring test programs with these
	libaio-dev liburing-dev
)
if [ "$debug" = 1 ]; then
	pkgs+=(bc bison flex libelf-dev libssl-dev dwarves cpio rsync kmod)
fi

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || nova_die "missing packages (${missing[*]}); run 'make deps' as root"
echo "nova: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
	apt_update
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

#!/usr/bin/env bash
# Build fstests (xfstests) for the guest, from the unmodified upstream
# snapshot beside the project (../shared/fstests/, see its README.md).
#
# usage: tests/fstests/build.sh
#
#   NOVA_FSTESTS_TARBALL   the snapshot (default ../shared/fstests/xfstests-*.tar.gz)
#
# Unpacks the tarball into build/fstests/, applies our patches
# (tests/fstests/patches/*.patch, in name order) and runs its make. The
# unpack and the build happen again only when the tarball or a patch
# changed (the key is in build/fstests/.nova-stamp), so a second call costs
# a second. Its build needs the Debian packages qemu/deps.sh installs
# (xfslibs-dev, libacl1-dev, uuid-dev, autoconf, automake, libtool-bin;
# libaio-dev and liburing-dev for the AIO and io_uring programs,
# libattr1-dev for attr/attributes.h). Host and guest are both Debian 12, so the guest
# runs the result from the read-only share /nova/build/fstests.
# Neither the source nor the build output is ever committed.
set -euo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"

build=$(nova_build_dir)
dest=$build/fstests
tarball=${NOVA_FSTESTS_TARBALL:-}
if [ -z "$tarball" ]; then
	for f in "$nova_top"/../shared/fstests/xfstests-*.tar.gz; do
		[ -f "$f" ] && tarball=$f
	done
fi
[ -n "$tarball" ] && [ -f "$tarball" ] ||
	nova_die "no fstests snapshot: expected ../shared/fstests/xfstests-*.tar.gz beside the project (or set NOVA_FSTESTS_TARBALL)"

patches=()
for p in "$nova_top"/tests/fstests/patches/*.patch; do
	[ -f "$p" ] && patches+=("$p")
done
key=$( { sha256sum < "$tarball"; cat "$nova_top/tests/fstests/build.sh" \
	${patches[@]+"${patches[@]}"}; } | sha256sum | cut -c1-16)

if [ -f "$dest/.nova-stamp" ] && [ "$(cat "$dest/.nova-stamp")" = "$key" ]; then
	exit 0
fi

start=$(date +%s)
log=$build/fstests-build.log
mkdir -p "$build"
echo "nova: building fstests from $(basename "$tarball") into build/fstests (log: build/fstests-build.log)" >&2
rm -rf "$dest" "$dest.tmp"
mkdir -p "$dest.tmp"
# The snapshot has one top directory (xfstests-<commit>/).
tar -xzf "$tarball" -C "$dest.tmp" --strip-components=1
for p in ${patches[@]+"${patches[@]}"}; do
	patch -d "$dest.tmp" -p1 --no-backup-if-mismatch -s < "$p" ||
		nova_die "fstests: $(basename "$p") does not apply to $(basename "$tarball")"
done
# Built in its final place: libtool and configure record the path.
mv "$dest.tmp" "$dest"
if ! make -C "$dest" -j"${NOVA_FSTESTS_JOBS:-2}" > "$log" 2>&1; then
	tail -n 25 "$log" >&2
	nova_die "fstests build failed (see $log; 'make deps' installs what it needs)"
fi
[ -x "$dest/ltp/fsstress" ] && [ -x "$dest/src/xfsctl" ] ||
	nova_die "fstests build finished without ltp/fsstress or src/xfsctl (see $log)"
echo "$key" > "$dest/.nova-stamp"
echo "nova: fstests built in $(( $(date +%s) - start )) s" >&2

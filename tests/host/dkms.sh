#!/usr/bin/env bash
# dkms.conf builds nova.ko: run 'dkms build' on a private DKMS tree (no
# install, nothing touches /lib/modules or /usr/src) from the committed tree.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
if ! command -v dkms > /dev/null; then
	t_skip "dkms build" "dkms not installed (make deps)"
	t_done
fi
kver=$(nova_kver)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
work=$(mktemp -d "${TMPDIR:-/tmp}/nova-dkms.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/nova-$ver" "$work/tree"
# The committed tree, as a DKMS source package would ship it.
git archive HEAD dkms.conf module uapi | tar -x -C "$work/src/nova-$ver"
t_ok "dkms add" dkms add --dkmstree "$work/tree" --sourcetree "$work/src" nova/"$ver"
t_ok "dkms build for $kver" dkms build --dkmstree "$work/tree" --sourcetree "$work/src" \
	-k "$kver" nova/"$ver"
ko=$(find "$work/tree/nova/$ver" -name nova.ko | head -n1)
t_ok "dkms produced nova.ko" test -s "$ko"
t_is "built for $kver" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" "$kver"
t_done

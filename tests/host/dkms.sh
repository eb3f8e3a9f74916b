#!/usr/bin/env bash
# dkms.conf builds nova.ko: "make dkms-source" stages the sources into a
# private DESTDIR (only dkms.conf, module/ sources and uapi/: no build/,
# no build products), then 'dkms build' on a private DKMS tree (no
# install, nothing touches /lib/modules or /usr/src) builds from it;
# BUILD_EXCLUSIVE_KERNEL takes 6.1 and 6.12 (built too when its headers
# are installed) and keeps other kernels out.
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
mkdir -p "$work/tree"
src=$work/stage/usr/src/nova-$ver

t_ok "make dkms-source DESTDIR=..." make -s dkms-source DESTDIR="$work/stage"
t_ok "staged in DESTDIR/usr/src/nova-$ver" test -f "$src/dkms.conf"
got=$(cd "$src" && find . -type f | sed 's|^\./||' | sort)
want=$( (echo dkms.conf; git ls-files module uapi) | sort)
t_is "exactly dkms.conf and the committed module/ and uapi/ files" "$got" "$want"
t_is "no build products or build/" "$(cd "$src" && find . -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name build | head -n 3)" ""
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$src/dkms.conf")
t_is "declares BUILD_EXCLUSIVE_KERNEL for 6.1 and 6.12" "$re" '^6\.(1|12)\.'
for k in "$kver" 6.1.0-57-amd64 6.12.118+deb12-amd64; do
	t_ok "the regex takes $k" sh -c "echo '$k' | grep -qE '$re'"
done
for k in 6.6.0-1-amd64 6.13.1-amd64 6.10.0-1-amd64; do
	t_fail "... and not $k" sh -c "echo '$k' | grep -qE '$re'"
done
t_ok "a second make dkms-source replaces the first" make -s dkms-source DESTDIR="$work/stage"

t_ok "dkms add" dkms add --dkmstree "$work/tree" --sourcetree "$work/stage/usr/src" nova/"$ver"
t_ok "dkms build for $kver" dkms build --dkmstree "$work/tree" --sourcetree "$work/stage/usr/src" \
	-k "$kver" nova/"$ver"
ko=$(find "$work/tree/nova/$ver/$kver" -name "nova.ko*" | head -n1)
t_ok "dkms produced nova.ko" test -s "$ko"
# Debian's 6.12 compresses installed modules (nova.ko.xz); the checks
# below read the module itself.
case $ko in
*.xz) xz -dc "$ko" > "$work/nova.ko" && ko=$work/nova.ko ;;
*.zst) zstd -qdc "$ko" > "$work/nova.ko" && ko=$work/nova.ko ;;
*.gz) gzip -dc "$ko" > "$work/nova.ko" && ko=$work/nova.ko ;;
esac
t_is "built for $kver" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" "$kver"
t_is "the DKMS module is the production build (no test hooks)" \
	"$(modinfo -F parm "$ko" | grep -E -o '^(crash_after_barriers|inject|snap_reclaim_hold):')" ""
t_fail "the DKMS module has no persistence trace (pmtrace.c)" grep -q "persistence trace: armed" "$ko"
k612=$(KERNEL=6.12 KVER= nova_kver 2>/dev/null)
if [ "$k612" = "$kver" ]; then
	t_skip "dkms build for 6.12" "built above as the default kernel"
elif [ -n "$k612" ] && [ -d "/lib/modules/$k612/build" ]; then
	t_ok "dkms build for $k612" dkms build --dkmstree "$work/tree" \
		--sourcetree "$work/stage/usr/src" -k "$k612" nova/"$ver"
	ko=$(find "$work/tree/nova/$ver/$k612" -name "nova.ko*" | head -n1)
	t_is "built for $k612" "$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)" "$k612"
else
	t_skip "dkms build for 6.12" "no 6.12 headers installed (make deps KERNEL=6.12)"
fi
out=$(dkms build --dkmstree "$work/tree" --sourcetree "$work/stage/usr/src" \
	-k 6.6.0-1-amd64 nova/"$ver" 2>&1)
rc=$?
t_ok "dkms build for 6.6.0-1-amd64 is refused (rc $rc)" test "$rc" -ne 0
t_ok "... because of BUILD_EXCLUSIVE" grep -qi 'BUILD_EXCLUSIVE' <<< "$out"
t_diag "$(head -n 2 <<< "$out")"
t_done

#!/usr/bin/env bash
# The module builds from the same source for every supported kernel series
# whose headers are installed (Debian 12's 6.1 and 6.12; compat.h holds the
# differences): for each, a private copy of the committed module/ and uapi/
# builds with W=1 and sparse (C=1, one pass) without a single warning, and
# the result carries that kernel's vermagic. The kernel 'make' builds for
# (KVER / KERNEL) must be among them; a missing 6.12 is a skip that names
# the command that installs it.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1

default=$(nova_kver)
work=$(mktemp -d "${TMPDIR:-/tmp}/nova-kernels.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Installed header trees of the supported series.
kvers=()
for d in /lib/modules/*/build; do
	[ -d "$d" ] || continue
	k=$(basename "$(dirname "$d")")
	case "$k" in
	6.1.*-amd64 | 6.12.*-amd64) kvers+=("$k") ;;
	esac
done
t_ok "headers of the default kernel $default are installed" \
	test -d "/lib/modules/$default/build"
have612=0
for k in "${kvers[@]}"; do
	case "$k" in 6.12.*) have612=1 ;; esac
done
[ "$have612" = 1 ] ||
	t_skip "6.12 build" "no linux-headers-6.12.*-amd64 (make deps KERNEL=6.12)"

for k in "${kvers[@]}"; do
	src=$work/$k
	mkdir -p "$src"
	git archive HEAD module uapi | tar -x -C "$src"
	if command -v sparse > /dev/null; then
		check=C=1
	else
		check=
	fi
	make -C "/lib/modules/$k/build" M="$src/module" W=1 $check modules \
		> "$src/build.log" 2>&1
	t_is "$k: module builds (W=1${check:+, sparse})" "$?" 0
	t_is "$k: no warnings" \
		"$(grep -E 'warning:|error:' "$src/build.log" | head -n 20)" ""
	t_is "$k: nova.ko vermagic" \
		"$(modinfo -F vermagic "$src/module/nova.ko" 2>/dev/null | cut -d' ' -f1)" "$k"
done
t_done

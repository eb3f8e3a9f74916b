#!/usr/bin/env bash
# Kernel code quality gates, on a private copy of module/ and uapi/ so that
# a build in the work tree is not disturbed:
#   - the module builds with W=1 without a single warning, in its production
#     and its test build (NOVA_TEST_HOOKS)
#   - sparse (C=2) reports nothing (on the test build, a superset)
#   - checkpatch.pl (from linux-source-6.1) is clean on every file
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1
kver=$(nova_kver)
kdir=/lib/modules/$kver/build
build=$(nova_build_dir)
work=$(mktemp -d "${TMPDIR:-/tmp}/nova-style.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -a module "$work/"
[ ! -d uapi ] || cp -a uapi "$work/"
rm -f "$work"/module/*.o "$work"/module/*.ko "$work"/module/.*.cmd

# Both builds: the production module and the test build (NOVA_TEST_HOOKS,
# make module-test), which compiles the test hooks as well.
for hooks in n y; do
	name=production
	[ "$hooks" = n ] || name="test build"
	make -C "$kdir" M="$work/module" W=1 NOVA_TEST_HOOKS=$hooks modules > "$work/w1.log" 2>&1
	t_is "$name: module builds with W=1" "$?" 0
	t_is "$name: W=1 build has no warnings" \
		"$(grep -E 'warning:|error:' "$work/w1.log" | head -n 20)" ""
done

touch "$work"/module/*.c
if command -v sparse > /dev/null; then
	make -C "$kdir" M="$work/module" C=2 NOVA_TEST_HOOKS=y modules > "$work/sparse.log" 2>&1
	t_is "sparse (C=2) reports nothing" \
		"$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$work/sparse.log" | head -n 20)" ""
else
	t_skip "sparse (C=2) reports nothing" "sparse not installed (make deps)"
fi

# checkpatch.pl and its data files, taken from the kernel source package.
cp_dir=$build/tools/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ] && [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	mkdir -p "$cp_dir"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch 2>/dev/null
fi
if [ -x "$cp_dir/scripts/checkpatch.pl" ]; then
	for f in $(git ls-files 'module/*.[ch]' 'uapi/*.h' 'uapi/**/*.h'); do
		# compat.h is where the kernel-version tests belong (6.1/6.12).
		ign=
		[ "$f" != module/compat.h ] || ign="--ignore LINUX_VERSION_CODE"
		# shellcheck disable=SC2086
		t_ok "checkpatch: $f" "$cp_dir/scripts/checkpatch.pl" --no-tree --quiet \
			--terse --show-types $ign -f "$f"
	done
else
	t_skip "checkpatch" "linux-source-6.1 not installed (make deps)"
fi
t_done

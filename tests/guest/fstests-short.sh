#!/bin/bash
# A fixed short list of fast fstests (xfstests) generic tests that pass on
# NOVA (tests/fstests/short.list, with the guest time of each), run by
# fstests' own "check" with the NOVA config (mkfs.NOVA, fsck.NOVA -n -f
# after each test) on two NVDIMMs: one TAP line per fstests test, which
# fails if that test fails or does not run. The whole generic quick group
# is "make fstests" (tests/fstests/, docs/testing.md).
# nova-guest-args: --pmem-count 2 --pmem-size 2G
# nova-host-prep: tests/fstests/build.sh
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"

list=$(sed -e 's/#.*//' "$NOVA_TOP/tests/fstests/short.list" | tr -s ' \n' ' ')
res=${NOVA_RESULT:-/tmp/fstests-short}.fstests
rm -rf "$res"
# shellcheck disable=SC2086
t_ok "fstests check runs on NOVA" bash "$NOVA_TOP/tests/fstests/guest.sh" nova "$res" $list
for t in $list; do
	line=$(grep "^$t " "$res/status" 2>/dev/null)
	read -r _ st secs reason <<< "$line"
	t_is "$t (${secs:-?} s)${reason:+: $reason}" "${st:-no result}" pass
	if [ "$st" != pass ]; then
		cat "$res/$t.out.bad" "$res/$t.dmesg" 2>/dev/null | head -n 20 |
			while IFS= read -r l; do t_diag "$l"; done
	fi
done
t_done

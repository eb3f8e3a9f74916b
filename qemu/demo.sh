#!/usr/bin/env bash
# make demo: boot the guest and run qemu/guest/demo.sh with its output on
# the terminal.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$(nova_build_dir)/demo
rm -rf "$out"
rc=0
"$nova_top/qemu/run-guest.sh" --live --out "$out" --script qemu/guest/demo.sh || rc=$?
src=$(cat "$out/results/script.rc" 2>/dev/null || echo none)
echo
if [ "$rc" -ne 0 ] || [ "$src" != 0 ]; then
	echo "demo FAILED: guest: $(cat "$out/host-status" 2>/dev/null), demo script status: $src"
	exit 1
fi
echo "demo finished: console log in $out/console.log"

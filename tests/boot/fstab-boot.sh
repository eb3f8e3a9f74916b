#!/usr/bin/env bash
# File systems in /etc/fstab mount at boot (issue 23), the way an operator
# sets them up: two boots under systemd on one root overlay
# (qemu/run-guest.sh --root-overlay) and two NVDIMMs.
#   1. install nova.ko (into /lib/modules/KVER/updates, depmod) and the
#      tools with the udev rule; mkfs.NOVA one device with a label and
#      the other without; write a file on each; add the README's fstab
#      line (UUID=, no nofail) for the unlabelled one and a LABEL= line
#      for the other; shut down.
#   2. without any help from the test runner, systemd has mounted both
#      before multi-user.target (the udev rule gave the by-uuid and
#      by-label device units; the mount loaded nova.ko by its fs-NOVA
#      alias): the mount units are active, the files read back, and the
#      boot logged no failed unit.
# Guest side: tests/boot/fstab-boot.guest.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
. "$nova_top/tests/guest/lib.sh"
cd "$nova_top" || exit 1

work=${NOVA_RESULTS:-$(nova_build_dir)/test-results}/fstab-boot
rm -rf "$work"
mkdir -p "$work"
guest=tests/boot/fstab-boot.guest

# boot NAME PHASE: one systemd boot of the guest script in PHASE.
boot() {
	local name=$1 phase=$2 out=$work/$1 rc tap nf np klog
	mkdir -p "$out"
	echo "FSTAB_PHASE=$phase" > "$out/fstab-boot.env"
	[ "$phase" = install ] || cp "$work/install/uuid" "$out/prev-uuid" 2>/dev/null
	qemu/run-guest.sh --systemd --out "$out" --pmem-dir "$work/pmem" --pmem-count 2 \
		--pmem-size 256M --root-overlay "$work/root.qcow2" --timeout 600 \
		"$guest" > "$out/run.txt" 2>&1
	rc=$?
	tap=$out/results/01-fstab-boot.guest.tap
	nf=$(grep -c '^not ok' "$tap" 2>/dev/null)
	np=$(grep -c '^ok' "$tap" 2>/dev/null)
	grep '^#' "$tap" 2>/dev/null | sed "s/^# /# $name: /"
	t_is "$name: guest checks ($np passed)" "${nf:-missing}" 0
	[ "${nf:-1}" = 0 ] || grep -A6 '^not ok' "$tap" | head -n 40 | sed 's/^/#   /'
	klog=$(tests/lib/klog-scan.sh "$out/console.log"; \
	       tests/lib/klog-scan.sh "$out/results/01-fstab-boot.guest.klog")
	t_is "$name: kernel log has no oops, warning or nova error" "$klog" ""
	t_is "$name: the boot ends cleanly ($(cat "$out/host-status" 2>/dev/null))" "$rc" 0
	[ "$rc" = 0 ] || tail -n 20 "$out/console.log" | sed 's/^/#   /'
}

boot install install
if [ -s "$work/install/uuid" ]; then
	boot reboot check
	t_ok "reboot: nova.ko was loaded (by the fstab mounts) before the test runner started" \
		grep -q 'nova.ko already loaded' "$work/reboot/console.log"
else
	t_ok "boot 1 recorded the UUID it formatted" false
fi
rm -f "$work/root.qcow2"
rm -rf "$work/pmem"
t_done

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

. tests/crash/host-lib.sh
crash_workdir fstab-boot
work=$crash_work
crash_guest_args=(--systemd --pmem-count 2 --pmem-size 256M
		  --root-overlay "$work/root.qcow2")
guest=tests/boot/fstab-boot.guest

crash_guest_boot install "$guest" uuid FSTAB_PHASE=install
if [ -s "$work/install/uuid" ]; then
	crash_guest_boot reboot "$guest" uuid FSTAB_PHASE=check
	t_ok "reboot: nova.ko was loaded (by the fstab mounts) before the test runner started" \
		grep -q 'nova.ko already loaded' "$work/reboot/console.log"
else
	t_ok "boot 1 recorded the UUID it formatted" false
fi
rm -f "$work/root.qcow2"
rm -rf "$crash_pmem"
t_done

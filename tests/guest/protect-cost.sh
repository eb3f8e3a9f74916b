#!/bin/bash
# The write-path cost of data protection, measured in one guest boot:
# fio 4 KiB random writes (psync, one job, 10 s) on a file system made
# with checksums and parity (the default) and on one made with
# -o init,protection=off; the IOPS and their ratio are printed as TAP
# diagnostics (only ratios from the same run mean anything, see
# docs/bench.md). Also 4 KiB random reads, which verify every page read.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT

iops() {	# RW: IOPS of a 10 s fio run on $M/fio
	fio --name=p --filename="$M/fio" --size=64M --bs=4k --rw="$1" \
		--ioengine=psync --time_based --runtime=10 --ramp_time=1 \
		--output-format=json 2> /dev/null |
		python3 -c "import json,sys; j=json.load(sys.stdin)['jobs'][0]; print(int(j['write' if 'write' in '$1' else 'read']['iops']))"
}

declare -A w r
for mode in on off; do
	opt=""
	[ "$mode" = off ] && opt=protection=off
	t_ok "protection $mode: mount -o init${opt:+,$opt}" nova_mount_init "$opt"
	t_ok "protection $mode: lay out a 64 MiB file" sh -c "dd if=/dev/urandom of=$M/fio bs=1M count=64 status=none"
	w[$mode]=$(iops randwrite)
	r[$mode]=$(iops randread)
	t_ok "protection $mode: fio ran (write ${w[$mode]} IOPS, read ${r[$mode]} IOPS)" \
		test "${w[$mode]:-0}" -gt 0 -a "${r[$mode]:-0}" -gt 0
	t_ok "protection $mode: umount" nova_umount
done
t_diag "4k randwrite IOPS: protected ${w[on]:-?}, unprotected ${w[off]:-?}, ratio $(python3 -c "print(round(${w[on]:-0} / max(${w[off]:-1}, 1), 3))")"
t_diag "4k randread IOPS: protected ${r[on]:-?}, unprotected ${r[off]:-?}, ratio $(python3 -c "print(round(${r[on]:-0} / max(${r[off]:-1}, 1), 3))")"
t_done

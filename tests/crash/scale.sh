#!/bin/bash
# Recovery time at scale (guest side of tests/boot/crash-scale.sh).
# /out/crash.env: SCALE_PHASE=create|recover, SCALE_FILES=N.
#   create:  format, make N files of 100 bytes (1000 per directory), then
#            stop the machine at the next persistence barrier
#   recover: mount (crash recovery), report the kernel's recovery line,
#            count the files, unmount, fsck.NOVA -n must be clean
# nova-timeout: 1500
. "$NOVA_TOP/tests/guest/lib.sh"
. /out/crash.env

count_files() {
	python3 - "$NOVA_MNT" <<'PY'
import os, sys
n = 0
for d, _, files in os.walk(sys.argv[1]):
	for f in files:
		with open(os.path.join(d, f), "rb") as fh:
			if fh.read() != ("%s\n" % f).encode().ljust(100, b"."):
				print("bad content:", os.path.join(d, f))
				sys.exit(1)
		n += 1
print(n)
PY
}

if [ "$SCALE_PHASE" = create ]; then
	t_ok "format" nova_mount_init
	start=$(date +%s)
	t_ok "create $SCALE_FILES files" python3 - "$NOVA_MNT" "$SCALE_FILES" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
	d = os.path.join(root, "d%03d" % (i // 1000))
	if i % 1000 == 0:
		os.mkdir(d)
	name = "f%06d" % i
	fd = os.open(os.path.join(d, name), os.O_CREAT | os.O_WRONLY, 0o644)
	os.write(fd, ("%s\n" % name).encode().ljust(100, b"."))
	os.close(fd)
PY
	t_diag "created in $(( $(date +%s) - start )) s"
	echo "1..$_t_n"
	[ "$_t_failed" -eq 0 ] || exit 1
	echo 1 > /sys/module/nova/parameters/crash_after_barriers
	touch "$NOVA_MNT/last"
	echo "the machine did not stop"
	exit 1
fi

t_ok "mount after the power cut" nova_mount
line=$(dmesg | grep -o 'recovered in .*' | head -n1)
t_diag "$SCALE_FILES files: $line"
echo "$line" > /out/recovery-line
t_ok "the kernel reports the recovery" test -n "$line"
t_is "all files there, contents intact" "$(count_files)" "$SCALE_FILES"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
t_done

#!/bin/bash
# Corrupted media must give errors, never an oops: populate a file system,
# overwrite random spots of the device with garbage, then mount, read
# everything, modify, unmount. Errors reported by NOVA are expected here;
# the kernel-log watchdog still fails the test on an oops, BUG or WARNING.
# nova-timeout: 900
# nova-expect-klog: nova \(pmem0\): error:
# nova-expect-klog: nova \(pmem0\): primary superblock is damaged
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
devsize=$(blockdev --getsize64 "$NOVA_PMEM")

populate() {
	mkdir -p "$M/d1/d2" "$M/d3"
	for i in $(seq 40); do
		head -c $((i * 997)) /dev/urandom > "$M/d1/f$i"
		echo "small $i" > "$M/d3/s$i"
		ln -s "target-$i" "$M/d1/d2/l$i"
	done
	ln -s "$(printf 'long%.0s' $(seq 300))" "$M/d3/longlink"
	for i in $(seq 20); do mv "$M/d3/s$i" "$M/d1/d2/m$i"; done
	dd if=/dev/urandom of="$M/big" bs=1M count=8 status=none
	for i in $(seq 10); do	# longer logs: many entries per file
		for j in $(seq 60); do echo "append $j" >> "$M/d1/f$i"; done
		chmod 600 "$M/d1/f$i"
	done
}

scribble() {	# SEED COUNT: COUNT random 64-byte chunks of garbage
	python3 - "$NOVA_PMEM" "$devsize" "$1" "$2" <<'PY'
import os, random, sys
dev, size, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
fd = os.open(dev, os.O_WRONLY)
for _ in range(n):
    # Aim where things live: tables and journals near the start, and the
    # low end of each CPU's allocation region (two vCPUs: 0 and size/2).
    r = rnd.random()
    if r < 0.3:
        off = rnd.randrange(4096, 3 << 20)
    elif r < 0.6:
        off = rnd.randrange(4096, 16 << 20)
    elif r < 0.9:
        off = rnd.randrange(size // 2, size // 2 + (16 << 20))
    else:
        off = rnd.randrange(4096, size - 4096)
    os.pwrite(fd, rnd.randbytes(64), off & ~63)
os.fsync(fd)
os.close(fd)
PY
	blockdev --flushbufs "$NOVA_PMEM"
}

for seed in 1 2 3 4 5 6 7 8; do
	t_ok "seed $seed: format and populate" sh -c "mount -t NOVA -o init=force $NOVA_PMEM $M && $(declare -f populate); populate && umount $M"
	scribble "$seed" 1500
	if mount -t NOVA "$NOVA_PMEM" "$M" 2> /tmp/mnt.err; then
		t_diag "seed $seed: mounted"
		# Read everything; errors are fine, the kernel must survive.
		find "$M" > /dev/null 2>&1
		ls -lR "$M" > /dev/null 2>&1
		find "$M" -type f -exec cat {} + > /dev/null 2>&1
		find "$M" -type l -exec readlink {} + > /dev/null 2>&1
		if touch "$M/new" 2>/dev/null; then
			echo data > "$M/new" 2>/dev/null
			mkdir "$M/newdir" 2>/dev/null
			mv "$M/new" "$M/newdir/" 2>/dev/null
			rm -rf "$M/d1" "$M/big" 2>/dev/null
		fi
		t_ok "seed $seed: unmount after reading a damaged tree" umount "$M"
	else
		t_diag "seed $seed: mount refused: $(cat /tmp/mnt.err)"
		t_ok "seed $seed: refused mount leaves nothing mounted" \
			sh -c "! grep -q ' $M ' /proc/mounts"
	fi
done
t_ok "the device can be formatted again" nova_mount_init
t_ok "and used" sh -c "echo ok > $M/x && [ \"\$(cat $M/x)\" = ok ]"
t_ok "umount" nova_umount
t_done

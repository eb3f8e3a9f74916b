#!/bin/bash
# fsck.NOVA and the kernel judge the same damaged image the same way.
# A populated file system is saved; each case flips one bit of one
# structure (primary superblock, journal pointers, inode table heads, an
# inode slot with its commit words, a log page with its entries and tail)
# and hands the same bytes to fsck.NOVA -n, to mount, and to fsck.NOVA -y.
# The rules:
#   - fsck.NOVA -n says clean (0)      => the kernel mounts it and every
#                                         file reads;
#   - the kernel refuses to mount      => fsck.NOVA -n reports errors (4);
#   - fsck.NOVA -y corrects everything => the kernel mounts the result,
#     (exit 0 or 1)                       fsck.NOVA -n then says clean and
#                                         every file that is left reads.
# The bits are drawn from a fixed seed, so a failure is reproducible.
# nova-guest-args: --pmem-size 256M
# nova-timeout: 1500
# nova-expect-klog: nova \(pmem0\): error:
# nova-expect-klog: nova \(pmem0\): primary superblock is damaged
# nova-expect-klog: nova \(pmem0\): .*(replica|repaired|rebuilt)
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
CASES=${NOVA_AGREE_CASES:-30}
SEED=${NOVA_AGREE_SEED:-2026}

t_ok "mount -o init" nova_mount_init
t_ok "populate: directories, files, links, overwrites, appends" sh -c "
	for d in \$(seq 1 6); do
		mkdir -p $M/d\$d/sub || exit 1
		for f in \$(seq 1 8); do
			echo \"file \$d/\$f\" > $M/d\$d/f\$f || exit 1
		done
		ln -s f1 $M/d\$d/link && ln $M/d\$d/f2 $M/d\$d/sub/hard || exit 1
	done
	dd if=/dev/urandom of=$M/big bs=64k count=32 status=none &&
	dd if=/dev/urandom of=$M/big bs=4k count=8 seek=3 conv=notrunc status=none &&
	for i in \$(seq 1 40); do echo append \$i >> $M/d1/f1; done &&
	mv $M/d2/f3 $M/d3/moved && rm $M/d4/f4"
inos=$(find "$M" -mindepth 1 \( -type f -o -type d \) -printf '%i\n' | sort -un | tr '\n' ' ')
t_ok "umount" nova_umount
t_ok "fsck.NOVA -n: the populated image is clean" fsck.NOVA -n "$D"
t_ok "save the image" dd if="$D" of="$T/base.img" bs=1M status=none

# The offsets of the structures of this image, as "NAME OFFSET LENGTH".
python3 - "$D" "$NOVA_TOP/tests/guest/tools-corrupt.py" $inos > "$T/regions" <<'PY' || echo "regions: failed" >&2
import importlib.util, sys
spec = importlib.util.spec_from_file_location("corrupt", sys.argv[2])
c = importlib.util.module_from_spec(spec)
spec.loader.exec_module(c)
dev = c.Dev(sys.argv[1])
BS = c.BS
print("superblock 0 512")
print("journal-pointers %d %d" % (2 * BS, 64 * dev.cpus))
print("table-heads %d %d" % (3 * BS, 64 * dev.cpus))
for ino in map(int, sys.argv[3:]):
    print("slot-%d %d 256" % (ino, dev.inode(ino)))
    print("log-%d %d %d" % (ino, dev.log_head(ino), BS))
PY
t_ok "structure offsets found" test -s "$T/regions"
t_diag "$(wc -l < "$T/regions") structures, $CASES cases, seed $SEED"

# The cases: "NAME BYTE-OFFSET BIT", drawn from the seed.
python3 - "$T/regions" "$CASES" "$SEED" > "$T/cases" <<'PY'
import random, sys
regions = [l.split() for l in open(sys.argv[1])]
rng = random.Random(int(sys.argv[3]))
fixed = [r for r in regions if not r[0].startswith(("slot-", "log-"))]
for i in range(int(sys.argv[2])):
    name, off, length = fixed[i] if i < len(fixed) else rng.choice(regions)
    print(name, int(off) + rng.randrange(int(length)), rng.randrange(8))
PY

restore() { dd if="$T/base.img" of="$D" bs=1M conv=fsync status=none; }

flip() {	# OFFSET BIT
	python3 - "$D" "$1" "$2" <<'PY'
import sys
off, bit = int(sys.argv[2]), int(sys.argv[3])
with open(sys.argv[1], "r+b") as f:
    f.seek(off)
    b = f.read(1)[0] ^ (1 << bit)
    f.seek(off)
    f.write(bytes([b]))
PY
}

# Reads every file under the mount; 0 when all read.
read_all() { find "$M" -type f -exec cat {} + > /dev/null 2> "$T/read.err"; }

n=0
while read -r name off bit; do
	n=$((n + 1))
	what="case $n ($name, byte $off bit $bit)"
	restore && flip "$off" "$bit"
	fsck.NOVA -n "$D" > "$T/fsck-n" 2>&1
	rc_n=$?
	if mount -t NOVA "$D" "$M" 2> "$T/mount.err"; then
		mounted=1
		read_all
		rc_read=$?
		umount "$M"
	else
		mounted=0
	fi
	if [ "$mounted" = 0 ]; then
		t_is "$what: the kernel refuses it, so fsck -n reports errors" "$rc_n" 4
	elif [ "$rc_n" = 0 ]; then
		t_is "$what: fsck clean, the kernel mounts it, every file reads" "$rc_read" 0
	elif [ "$rc_n" = 4 ]; then
		t_diag "$what: fsck -n reports errors, the kernel mounts it (repairs or reports on access)"
	else
		t_fail "$what: fsck.NOVA -n exits $rc_n ($(head -n 3 "$T/fsck-n" | tr '\n' ' '))" true
	fi
	# The same damage, repaired by fsck.NOVA -y.
	restore && flip "$off" "$bit"
	fsck.NOVA -y "$D" > "$T/fsck-y" 2>&1
	rc_y=$?
	if [ $((rc_y & ~1)) -eq 0 ]; then
		t_ok "$what: fsck -y corrected it (exit $rc_y), the kernel mounts the result" \
			sh -c "mount -t NOVA '$D' '$M' || { cat '$T/fsck-y'; exit 1; }"
		if mountpoint -q "$M"; then
			read_all
			t_is "$what: ... every file left reads" "$?" 0
			umount "$M"
		fi
		t_ok "$what: ... and checks clean afterwards" fsck.NOVA -n "$D"
	else
		t_is "$what: fsck -y that cannot correct it says so (4)" "$rc_y" 4
		[ "$mounted" = 1 ] && t_diag "$what: fsck -y left errors the kernel mounted over"
	fi
done < "$T/cases"
t_is "all $CASES cases ran" "$n" "$CASES"

restore
rm -rf "$T"
t_done

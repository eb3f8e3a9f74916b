#!/bin/bash
# The allocation bitmap (format 1.9, docs/recovery.md): mkfs.NOVA -O
# alloc_bitmap and mount -o init,alloc_bitmap make it, and only a format
# can; the kernel keeps it as blocks are allocated and freed, so that a
# clean unmount leaves it exact (fsck.NOVA -n on a clean file system
# counts a set bit of a free block as a problem); a damaged word is found
# and rewritten by fsck.NOVA -y; crash recovery mounts from it without
# scanning the inodes (recovery_fast.c) and the next clean unmount's space
# check frees what operations cut short had allocated; -o recovery=scan,
# or a damaged word, takes the scan, which checks the bitmap (no block in
# use may have a clear bit) and writes it anew; and the persistence
# checker's crash states each pass fsck.NOVA -n before the mount, which
# fails if any block in use lacks its bit at that point, then the fast
# mount, the tree of files, the space check and fsck.NOVA -n after it.
# nova-guest-args: --pmem-count 2 --pmem-size 64M
# nova-timeout: 900
# The persistence checker's pmem1 (pcheck.sh explains this line).
# nova-expect-klog: nova \(pmem1\): error: .*
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
STATES=${NOVA_PCHECK_STATES:-8}

work() {
	mkdir -p "$M/d/e" &&
	for i in $(seq 1 60); do echo "file $i" > "$M/d/f$i" || return 1; done &&
	dd if=/dev/urandom of="$M/big" bs=64k count=64 status=none &&
	dd if=/dev/urandom of="$M/big" bs=4k count=40 seek=7 conv=notrunc status=none &&
	fallocate -p -o 65536 -l 131072 "$M/big" &&
	fallocate -l 1M "$M/pre" &&
	truncate -s 100000 "$M/big" &&
	setfattr -n user.k -v "$(head -c 3000 /dev/zero | tr '\0' v)" "$M/d/f1" &&
	ln -s "$(head -c 400 /dev/zero | tr '\0' s)" "$M/d/long" &&
	rm -f "$M"/d/f1[0-9] && mv "$M/d/f2" "$M/d/e/moved" && sync
}

# mkfs.NOVA and the format it writes.
out=$(mkfs.NOVA -f -O alloc_bitmap "$D" 2>&1)
t_ok "mkfs.NOVA -O alloc_bitmap" test $? -eq 0
t_ok "... writes format 1.9" grep -q 'format 1.9' <<<"$out"
t_ok "fsck.NOVA -n -f: the fresh bitmap is exact" fsck.NOVA -n -f "$D"
out=$(mkfs.NOVA -f -O alloc_bitmap,nosuch "$D" 2>&1)
t_is "mkfs.NOVA -O nosuch: exit status" "$?" 1
t_ok "... names the unknown feature" grep -q "unknown feature 'nosuch'" <<<"$out"

# Kept while in use; exact after a clean unmount.
t_ok "mount" nova_mount
t_ok "/proc/mounts shows alloc_bitmap" grep -q " $M NOVA .*alloc_bitmap" /proc/mounts
t_ok "files, overwrites, holes, xattrs, removals" work
t_ok "snapshot" novactl snapshot create --name s1 "$M"
t_ok "overwrite what it shows" dd if=/dev/urandom of="$M/big" bs=4k count=20 conv=notrunc status=none
t_ok "delete the snapshot" novactl snapshot delete "$M" 1
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n -f: clean, bitmap as the logs say" fsck.NOVA -n -f "$D"
t_ok "remount with the option repeated" nova_mount alloc_bitmap
t_ok "more work after a clean mount" sh -c "rm -rf $M/d && dd if=/dev/urandom of=$M/g bs=1M count=4 status=none"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n -f: still exact" fsck.NOVA -n -f "$D"

# A damaged word: found, and rewritten from the logs.
damage_word() {	# flip a check bit of word 12
	python3 - "$D" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
sb = os.pread(fd, 512, 0)
start = int.from_bytes(sb[232:240], "little")
assert start, "no bitmap in the superblock"
off = start * 4096 + 8 * 12
w = int.from_bytes(os.pread(fd, 8, off), "little")
os.pwrite(fd, (w ^ (1 << 50)).to_bytes(8, "little"), off)
os.close(fd)
PY
}
t_ok "damage a bitmap word" damage_word
out=$(fsck.NOVA -n -f "$D" 2>&1)
t_is "fsck.NOVA -n: exit status 4" "$?" 4
t_ok "... reports the damaged word" grep -q 'allocation bitmap: 1 damaged words' <<<"$out"
t_ok "fsck.NOVA -y -f repairs it" sh -c "fsck.NOVA -y -f $D; test \$? -eq 1"
t_ok "fsck.NOVA -n -f: clean again" fsck.NOVA -n -f "$D"

# A file system without the bitmap cannot get one by a mount option.
mnt() {	# DEV DIR OPTS: mount(2), the errno name on failure
	python3 - "$@" <<'PY'
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.mount(sys.argv[1].encode(), sys.argv[2].encode(), b"NOVA", 0,
              sys.argv[3].encode()):
    print(errno.errorcode[ctypes.get_errno()], file=sys.stderr)
    sys.exit(1)
PY
}
plain() { nova_mount_init && nova_umount; }
t_ok "format without the bitmap" plain
t_errno "mount -o alloc_bitmap of such a file system: EINVAL" EINVAL mnt "$D" "$M" alloc_bitmap
t_ok "... says why" sh -c "dmesg | tail -n 5 | grep -q 'made without an allocation bitmap'"

# mount -o init,alloc_bitmap, then crash recovery from the bitmap.
sums() { (cd "$M" && find . -type f ! -name 'after*' -print0 | sort -z | xargs -0 md5sum); }
klog() { dmesg | grep -o "$1" | tail -n 1; }
dmesg -C
t_ok "mount -o init,alloc_bitmap" nova_mount_init alloc_bitmap
t_ok "work" work
sums > "$T/before"
t_ok "cut the power" nova_powercut
t_ok "fsck.NOVA -n before recovery: no block in use with a clear bit" fsck.NOVA -n "$D"
t_ok "mount: recovery" nova_mount
line=$(klog 'recovered in [0-9]* ms from the allocation bitmap.*')
t_diag "kernel: $line"
t_ok "... from the bitmap, no scan of the inodes" test -n "$line"
t_ok "... every file as before the cut" sh -c "$(declare -f sums); M=$M sums | cmp -s - $T/before"
t_ok "new files and overwrites after it" sh -c "dd if=/dev/urandom of=$M/after1 bs=1M count=3 status=none && dd if=/dev/urandom of=$M/big bs=4k count=9 seek=3 conv=notrunc status=none && mkdir $M/after2 && echo x > $M/after2/x && rm $M/pre"
sums > "$T/before"
t_ok "unmount" nova_umount
line=$(klog 'space check after crash recovery in .*')
t_diag "kernel: $line"
t_ok "... ran the space check" test -n "$line"
t_ok "fsck.NOVA -n -f: exact after the space check" fsck.NOVA -n -f "$D"
t_ok "mount" nova_mount
t_ok "... every file as before the unmount" sh -c "$(declare -f sums); M=$M sums | cmp -s - $T/before"

# Twice in a row: a cut before the space check leaves it to the next one.
t_ok "cut the power" nova_powercut
t_ok "mount: recovery from the bitmap" nova_mount
t_ok "more work" sh -c "dd if=/dev/urandom of=$M/after3 bs=64k count=5 status=none"
t_ok "cut the power again, before any space check" nova_powercut
t_ok "mount: recovery from the bitmap again" nova_mount
t_is "three recoveries from the bitmap since the first cut" "$(dmesg | grep -c 'ms from the allocation bitmap')" 3
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n -f: exact" fsck.NOVA -n -f "$D"

# Until the space check the page counters are provisional, and novactl
# says so; a freeze runs the check as an unmount does.
pending() {
	novactl -j stats "$M" | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["filesystems"][0]["space_check_pending"])'
}
t_ok "mount" nova_mount
t_is "novactl stats after a clean mount: no space check pending" "$(pending)" False
t_ok "cut the power" nova_powercut
t_ok "mount: recovery from the bitmap" nova_mount
t_is "novactl stats: space check pending" "$(pending)" True
t_ok "... and the text says the counts are provisional" sh -c "novactl stats $M | grep -q 'Space check: *pending: log and data page counts are provisional'"
dmesg -C
t_ok "fsfreeze -f" fsfreeze -f "$M"
t_ok "... ran the space check" sh -c "dmesg | grep -q 'space check after crash recovery in'"
t_ok "fsfreeze -u" fsfreeze -u "$M"
t_is "novactl stats after the freeze: no space check pending" "$(pending)" False
t_ok "write after the thaw" sh -c "dd if=/dev/urandom of=$M/after4 bs=64k count=3 status=none"
t_ok "unmount" nova_umount
t_is "... without a second space check" "$(dmesg | grep -c 'space check after crash recovery in')" 1
t_ok "fsck.NOVA -n -f: exact" fsck.NOVA -n -f "$D"

# -o recovery=scan: the scan of every inode, which checks the bitmap.
t_errno "mount -o recovery=nosuch: EINVAL" EINVAL mnt "$D" "$M" recovery=nosuch
t_ok "mount" nova_mount
t_ok "cut the power" nova_powercut
t_ok "mount -o recovery=scan" nova_mount recovery=scan
t_ok "... says why it scans" sh -c "dmesg | grep -q 'scanning every inode (recovery=scan)'"
line=$(klog 'allocation bitmap: [0-9]* blocks in use with a clear bit.*')
t_diag "kernel: $line"
t_ok "... found no block in use with a clear bit" grep -q 'bitmap: 0 blocks in use' <<<"$line"
t_ok "/proc/mounts shows recovery=scan" grep -q " $M NOVA .*recovery=scan" /proc/mounts
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n -f: exact" fsck.NOVA -n -f "$D"

# A damaged word after a cut: the scan instead, which rewrites the bitmap.
t_ok "mount" nova_mount
t_ok "cut the power" nova_powercut
t_ok "damage a bitmap word" damage_word
t_ok "mount: recovery" nova_mount
t_ok "... scans every inode" sh -c "dmesg | tail -n 20 | grep -q 'scanning every inode (the allocation bitmap is damaged)'"
t_ok "... every file as before" sh -c "$(declare -f sums); M=$M sums | cmp -s - $T/before"
t_ok "unmount" nova_umount
t_ok "fsck.NOVA -n -f: exact, the word rewritten" fsck.NOVA -n -f "$D"

# Every crash state the persistence checker tries, before its mount.
P="python3 $NOVA_TOP/tests/guest/pcheck.py"
$P /dev/pmem1 /mnt/pcheck --states "$STATES" --init-opt alloc_bitmap \
	--fsck-first --json "$T/run.json" > "$T/run.out" 2>&1
rc=$?
while IFS= read -r l; do t_diag "$l"; done < <(tail -n 20 "$T/run.out")
t_is "persistence checker with the bitmap, $STATES states a workload: exit status" "$rc" 0
t_ok "... tried states in every workload" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r and all(w["tried"] > 0 and not w["failed"] for w in r) else 1)' "$T/run.json"
fast=$(dmesg | grep -c 'nova (pmem1): recovered in [0-9]* ms from the allocation bitmap')
leaked=$(dmesg | grep -o 'nova (pmem1): space check after crash recovery .*, [0-9]* leaked' |
	grep -o '[0-9]* leaked' | awk '{ n += $1 } END { print n + 0 }')
t_diag "crash states recovered from the bitmap: $fast; leaked blocks the space checks freed: $leaked"
t_ok "... each recovered from the bitmap" test "$fast" -ge "$STATES"
t_ok "... and some had leaks that the space check freed (fsck.NOVA -n then clean)" test "$leaked" -gt 0
$P /dev/pmem1 /mnt/pcheck --workload overwrite-append --states 30 \
	--init-opt alloc_bitmap --fsck-first --drop-bitmap \
	--json "$T/self.json" > "$T/self.out" 2>&1
rc=$?
t_is "self-check: without the bitmap's write-backs the checker fails" "$rc" 1
t_ok "... on a block in use with a clear bit" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))[0]
sys.exit(0 if r["failed"] > 0 and not r.get("error") and
         any("clear bit" in f["symptom"] for f in r["failures"]) else 1)' "$T/self.json"
t_done

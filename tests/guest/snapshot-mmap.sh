#!/bin/bash
# Snapshots of DAX-mmapped files: a file mapped MAP_SHARED is stored to,
# a snapshot is taken with the mapping still in place, and the same
# mapping is stored to again (pages written before the snapshot, a page
# only read before it, a hole filled after it). The snapshot must show the
# contents at snapshot time, the live file the new ones; msync/munmap and
# remounts change nothing; deleting the snapshot returns the copied-on-
# write pages (all but the filled hole and a few log pages).
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
S=/mnt/nova-snap


mkdir -p "$S"
t_ok "format and mount" nova_mount_init
head -c $((8 * 4096)) /dev/urandom > "$M/mapped"
truncate -s $((12 * 4096)) "$M/mapped"	# pages 8..11: holes
base=$(nova_bfree)

t_ok "store, snapshot, store again through one MAP_SHARED mapping" python3 - "$M/mapped" "$C" "$M" <<'EOF'
import mmap, os, subprocess, sys
path, novactl, mnt = sys.argv[1:4]
P = 4096
fd = os.open(path, os.O_RDWR)
mm = mmap.mmap(fd, 12 * P, mmap.MAP_SHARED)
for pg in range(4):                 # pages 0..3: stored to before
    mm[pg * P:pg * P + 16] = b"before-%08d" % pg + b"\n"
_ = mm[5 * P:5 * P + 16]            # page 5: only read before
with open("/tmp/snap.img", "wb") as f:
    f.write(mm[:])
subprocess.run([novactl, "snapshot", "create", "--name", "m", mnt],
               check=True, stdout=subprocess.DEVNULL)
for pg in (0, 1, 2, 3, 5, 9):        # again, through the same mapping
    mm[pg * P + 8:pg * P + 24] = b"after--%08d" % pg + b"\n"
mm.flush()
with open("/tmp/live.img", "wb") as f:
    f.write(mm[:])
mm.close()
os.close(fd)
EOF
t_ok "the live file reads the new stores" cmp "$M/mapped" /tmp/live.img
t_fail "... which differ from the snapshot image" cmp -s /tmp/snap.img /tmp/live.img
t_ok "the pages copied on write are allocated ($base -> $(nova_bfree) free)" \
	test $((base - $(nova_bfree))) -ge 6
t_ok "umount" nova_umount
t_ok "mount the snapshot" mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$S"
t_ok "the snapshot shows the file at snapshot time" cmp "$S/mapped" /tmp/snap.img
t_ok "umount the snapshot" umount "$S"
t_ok "mount live" nova_mount
t_ok "the live file after a remount" cmp "$M/mapped" /tmp/live.img
t_ok "delete the snapshot" "$C" snapshot delete "$M" m
t_ok "space returns ($base free before, $(nova_bfree) now)" test "$(nova_bfree)" -ge $((base - 4))
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_done

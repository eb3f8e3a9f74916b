#!/bin/bash
# Thorough GC must not change what a file system shows. A tree with every
# kind of log entry and many superseded ones (overwrites, partial
# overwrites, truncations down and up, preallocation past the end, chmod,
# chown, utimes, hard links made and removed, renames within and across
# directories, directories moved, symlinks, device nodes) is collected
# with novactl gc; names, inode numbers, modes, owners, sizes, link
# counts, times, contents, data/hole maps and readdir order must be the
# same after the collection and after a remount, and fsck.NOVA clean.
# With a snapshot, the collection must keep what the snapshot shows.
# Also the control path: permissions, rejections with extack, EROFS, the
# GC_FINISHED notification.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
G=$NOVA_TOP/tests/guest/genl-client.py
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
state() { python3 "$NOVA_TOP/tests/guest/gc-state.py" "$1"; }
jget() { python3 -c "import json, sys; d = json.loads(sys.argv[1]); print($2)" "$1"; }

# The tree is built with noatime: reading it to compare must not change it.
t_ok "format and mount (noatime)" nova_mount_init noatime
t_ok "build a tree with many superseded log entries" python3 - "$M" <<'PY'
import os, sys
m = sys.argv[1]
def pat(n, seed):
    return bytes((i * 31 + seed) % 251 for i in range(n))
os.makedirs(m + "/a/b/c")
os.makedirs(m + "/x")
# a file overwritten in place, chmod-ed and touched in between
fd = os.open(m + "/a/over", os.O_CREAT | os.O_RDWR, 0o644)
for i in range(700):
    os.pwrite(fd, pat(4096, i), 0)
    os.fchmod(fd, 0o600 | (i & 0o77))
    os.utime(fd, ns=(i * 1000000007, i * 1000000009))
os.close(fd)
# one big write entry, partly rewritten, cut down and grown back with a
# hole, a preallocated range past the end, an unaligned tail
fd = os.open(m + "/a/trim", os.O_CREAT | os.O_RDWR, 0o640)
os.pwrite(fd, pat(2 << 20, 1), 0)
for p in range(0, 512, 3):
    os.pwrite(fd, pat(4096, p), p * 4096)
os.ftruncate(fd, 777777)
os.ftruncate(fd, 1 << 21)
os.pwrite(fd, b"end", (1 << 21) - 3)
os.close(fd)
fd = os.open(m + "/a/prealloc", os.O_CREAT | os.O_RDWR, 0o644)
os.pwrite(fd, pat(10000, 7), 0)
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
# fallocate(fd, FALLOC_FL_KEEP_SIZE, 64 KiB, 64 KiB): blocks past the end
if libc.fallocate(fd, 1, ctypes.c_long(65536), ctypes.c_long(65536)):
    raise OSError(ctypes.get_errno(), "fallocate")
os.close(fd)
# hard links made and removed (link count entries)
open(m + "/a/linked", "w").write("links\n")
for i in range(300):
    os.link(m + "/a/linked", m + "/x/l%d" % i)
for i in range(0, 300, 2):
    os.unlink(m + "/x/l%d" % i)
# renames back and forth, a directory moved across directories
for i in range(400):
    os.rename(m + "/a/b/c", m + "/x/c") if i % 2 == 0 else os.rename(m + "/x/c", m + "/a/b/c")
os.chown(m + "/a/b", 1234, 5678)
for i in range(500):
    open(m + "/a/b/n%d" % i, "w").write(str(i))
for i in range(500):
    if i % 7:
        os.rename(m + "/a/b/n%d" % i, m + "/a/b/r%d" % i)
for i in range(0, 500, 3):
    if i % 7:
        os.unlink(m + "/a/b/r%d" % i)
open(m + "/x/victim", "w").write("old")
open(m + "/x/winner", "w").write("new")
os.rename(m + "/x/winner", m + "/x/victim")
os.symlink("short", m + "/x/s1")
os.symlink("L" * 3000, m + "/x/s2")
os.mknod(m + "/x/dev", 0o600 | 0o020000, os.makedev(1, 3))
os.mkfifo(m + "/x/fifo")
os.chmod(m + "/x/fifo", 0o640)
PY
# Compare against the tree as a mount reads it from media (what only DRAM
# held, e.g. the ctime a rename gives the moved inode, is not GC's to keep).
t_ok "umount" nova_umount
t_ok "mount (noatime)" nova_mount noatime
state "$M" > /tmp/gc-s1
t_ok "state captured ($(wc -l < /tmp/gc-s1) names)" test -s /tmp/gc-s1
runs0=$(gc_stat thorough_runs)
out=$(novactl gc --json "$M")
t_is "novactl gc of the whole file system" "$?" 0
t_ok "its JSON follows the schema" sh -c "printf '%s' '$out' | python3 '$NOVA_TOP/tests/guest/genl-json-check.py' gc"
t_diag "novactl gc: $out"
t_ok "thorough GC rewrote logs" test "$(gc_stat thorough_runs)" -gt "$runs0"
t_ok "it freed log pages" test "$(jget "$out" 'd["gc"]["log_pages_after"]')" -lt \
	"$(jget "$out" 'd["gc"]["log_pages_before"]')"
state "$M" > /tmp/gc-s2
t_ok "the tree is the same after the collection" diff /tmp/gc-s1 /tmp/gc-s2
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount (noatime)" nova_mount noatime
state "$M" > /tmp/gc-s3
t_ok "the tree is the same after a remount" diff /tmp/gc-s1 /tmp/gc-s3
out=$(novactl gc --json "$M")
t_is "a second collection right away" "$?" 0
t_is "finds nothing to rewrite" "$(jget "$out" 'd["gc"]["thorough_runs"]')" 0
t_ok "the collected logs take new entries" python3 - "$M" <<'PY'
import os, sys
m = sys.argv[1]
with open(m + "/a/trim", "r+b") as f:
    f.seek(5000)
    f.write(b"again")
os.rename(m + "/a/b/r1", m + "/x/r1")
os.unlink(m + "/x/l1")
os.chmod(m + "/a/over", 0o700)
os.mkdir(m + "/a/b/c/new")
PY
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean after more changes" fsck.NOVA -n "$NOVA_PMEM"

# --- a snapshot keeps what it shows ---
t_ok "mount (noatime)" nova_mount noatime
state "$M" > /tmp/gc-snap
# Unlinked inodes are a known gap of snapshots (docs/snapshots.md): the
# changes after the snapshot overwrite, truncate, rename, add, re-link.
out=$(novactl snapshot create --json "$M")
t_is "take a snapshot" "$?" 0
sid=$(jget "$out" 'd["snapshot"]["id"]')
t_ok "change the tree after it" python3 - "$M" <<'PY'
import os, sys
m = sys.argv[1]
fd = os.open(m + "/a/over", os.O_RDWR)
for i in range(300):
    os.pwrite(fd, bytes([i % 256]) * 4096, 0)
os.close(fd)
os.truncate(m + "/a/trim", 4096)
for i in range(1, 500, 3):
    p = m + "/a/b/r%d" % i
    if os.path.exists(p):
        os.rename(p, m + "/x/moved%d" % i)
for i in range(200):
    open(m + "/x/after%d" % i, "w").write("after")
os.link(m + "/a/linked", m + "/a/relinked")
os.rename(m + "/a/b/c", m + "/c")
PY
state "$M" > /tmp/gc-live
t_ok "novactl gc with a live snapshot" novactl gc "$M"
state "$M" > /tmp/gc-live2
t_ok "the live tree is the same after the collection" diff /tmp/gc-live /tmp/gc-live2
t_ok "umount" nova_umount
mkdir -p /mnt/gc-snap
t_ok "mount the snapshot" mount -t NOVA -o "snapshot=$sid,ro,noatime" "$NOVA_PMEM" /mnt/gc-snap
t_ok "the snapshot shows the tree as it was" sh -c "python3 '$NOVA_TOP/tests/guest/gc-state.py' /mnt/gc-snap | diff /tmp/gc-snap -"
t_errno "no GC on a snapshot mount: EROFS" EROFS novactl gc --json /mnt/gc-snap
t_ok "umount the snapshot" umount /mnt/gc-snap
t_ok "mount the live file system" nova_mount noatime
state "$M" > /tmp/gc-live
t_ok "delete the snapshot" novactl snapshot delete "$M" "$sid"
t_ok "novactl gc once nothing is pinned" novactl gc "$M"
state "$M" > /tmp/gc-live3
t_ok "the live tree is still the same" diff /tmp/gc-live /tmp/gc-live3
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"

# --- the control path ---
t_ok "mount" nova_mount
dev=$(stat -c %d "$M")
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_GC --attr NOVA_A_FS_DEV:u64:"$dev")
t_is "GC needs CAP_NET_ADMIN: EPERM" "$(jget "$res" 'd["name"]')" EPERM
t_fail "novactl gc as nobody fails" "${NOBODY[@]}" novactl gc "$M"
res=$(python3 "$G" request NOVA_CMD_GC)
t_is "GC without a selector: EINVAL" "$(jget "$res" 'd["name"]')" EINVAL
res=$(python3 "$G" request NOVA_CMD_GC --attr NOVA_A_FS_DEV:u64:"$dev" \
	--attr NOVA_A_GC:nest:NOVA_GC_A_INODES:u64:1)
t_is "a result member in the request: EINVAL" "$(jget "$res" 'd["name"]')" EINVAL
t_ok "... with an extack" test -n "$(jget "$res" 'd["extack"]')"
res=$(python3 "$G" request NOVA_CMD_GC --attr NOVA_A_FS_DEV:u64:"$dev" \
	--attr NOVA_A_GC:nest:NOVA_GC_A_INODE:u64:0)
t_is "inode 0: ERANGE" "$(jget "$res" 'd["name"]')" ERANGE
t_ok "... with an extack" test -n "$(jget "$res" 'd["extack"]')"
res=$(python3 "$G" request NOVA_CMD_GC --attr NOVA_A_FS_DEV:u64:"$dev" \
	--attr NOVA_A_GC:nest:NOVA_GC_A_INODE:u32:5)
t_is "inode as u32: EINVAL" "$(jget "$res" 'd["name"]')" EINVAL
res=$(python3 "$G" request NOVA_CMD_GC --attr NOVA_A_FS_DEV:u64:"$dev" \
	--attr NOVA_A_GC:nest:NOVA_GC_A_INODE:u64:999999999)
t_is "an inode that does not exist: ENOENT" "$(jget "$res" 'd["name"]')" ENOENT
t_is "... with an extack" "$(jget "$res" 'd["extack"]')" "no such inode in this file system"
res=$(python3 "$G" request NOVA_CMD_GC --attr NOVA_A_FS_DEV:u64:"$dev" \
	--attr NOVA_A_GC:nest:NOVA_GC_A_INODE:u64:2)
t_is "a reserved inode (the allocator's): ENOENT" "$(jget "$res" 'd["name"]')" ENOENT
t_errno "novactl gc --inode of a missing inode" ENOENT novactl gc --json --inode 999999999 "$M"
t_is "novactl gc --inode 0 is a usage error" "$(novactl gc --inode 0 "$M" > /dev/null 2>&1; echo $?)" 2
ev=$(python3 - "$G" "$M" <<'PY'
import importlib.util, json, struct, subprocess, sys
spec = importlib.util.spec_from_file_location("gc", sys.argv[1])
gc = importlib.util.module_from_spec(spec); spec.loader.exec_module(gc)
fam, s = gc.events_socket()
subprocess.run(["novactl", "gc", sys.argv[2]], check=True, stdout=subprocess.DEVNULL)
s.settimeout(10)
while True:
    b = s.recv(65536)
    ln, typ = struct.unpack("=IH", b[:6])
    cmd = b[16]
    if typ == fam["id"] and cmd == gc.NOVA["NOVA_CMD_GC_FINISHED"]:
        print("gc-finished", len(b))
        break
PY
)
t_is "GC_FINISHED is multicast to the events group" "${ev%% *}" gc-finished
t_ok "umount" nova_umount
t_ok "mount read-only" nova_mount ro
t_errno "no GC on a read-only mount: EROFS" EROFS novactl gc --json "$M"
t_ok "umount" nova_umount
rm -f /tmp/gc-s1 /tmp/gc-s2 /tmp/gc-s3 /tmp/gc-snap /tmp/gc-live /tmp/gc-live2 /tmp/gc-live3
t_done

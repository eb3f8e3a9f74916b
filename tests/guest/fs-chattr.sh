#!/bin/bash
# File attributes (format 1.6, NOVA_ATTR_FLAGS setattr entries,
# module/fileattr.c) through e2fsprogs' chattr/lsattr and xfs_io:
# immutable refuses writes (also through a descriptor opened before the
# flag), truncate, fallocate, chmod/chown/utimes, link, unlink, rename,
# setxattr, shared writable mmap and write faults of an older mapping,
# all with EPERM; append-only allows only O_APPEND writes and plain
# preallocation; immutable and append-only directories; noatime keeps
# atime; nodump, sync, dirsync (directories only) are kept; unknown
# flags are EOPNOTSUPP; the DAX flag (chattr +x) is accepted on files
# and directories and changes nothing (always DAX: statx shows
# STATX_ATTR_DAX; the flag is not kept, so lsattr shows no x);
# CAP_LINUX_IMMUTABLE and ownership are required;
# the flags survive remount and thorough GC; a snapshot shows the old
# flags; new files and directories inherit A, d, S (and D, directories
# only) from their directory, as ext4 does, not i or a, and keep them
# across a remount; fsck.NOVA clean; a 1.5 image mounts and is upgraded
# to 1.6 by its first chattr, with one kernel info line.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
S=/mnt/nova-snap
T=$(mktemp -d)
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
NOCAP=(setpriv --bounding-set -linux_immutable)

# px CODE ARGS...: python with os, errno, mmap imported; prints the errno
# name of an OSError and fails, as t_errno wants.
px() {
	local code=$1
	shift
	python3 -c "import os, errno, sys, mmap, subprocess
try:
$(printf '%s\n' "$code" | sed 's/^/    /')
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(1)" "$@"
}
flags() { lsattr -d "$1" 2>&1 | awk '{ print $1 }' | tr -d -- -; }
layout() {
	python3 "$NOVA_TOP/tests/guest/protect-media.py" layout "$D" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}
fsck_clean() {
	t_is "$1" "$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0
}
mkdir -p "$S"

t_ok "format and mount" nova_mount_init
t_is "format 1.6 with the file attribute feature" "$(layout minor) $(( $(layout incompat) & 64 ))" "6 64"
echo data > "$M/f"
t_is "a new file has no flags" "$(flags "$M/f")" ""

# --- immutable ---
exec 7<> "$M/f"			# opened for writing before the flag
t_ok "chattr +i" chattr +i "$M/f"
t_is "lsattr shows i" "$(flags "$M/f")" i
t_ok "xfs_io lsattr shows it too (FS_IOC_FSGETXATTR)" sh -c "xfs_io -r -c lsattr '$M/f' | grep -q '^-*i'"
t_is "still readable" "$(cat "$M/f")" data
# statx(2) FILE [BITS]: stx_attributes (byte 8) and stx_attributes_mask
# (byte 56), each masked with BITS (default 0x70: immutable, append,
# nodump)
statx_attrs() {
	python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
if libc.statx(-100, sys.argv[1].encode(), 0, 0x7ff, buf) < 0:
    sys.exit("statx failed")
a, m = (int.from_bytes(buf.raw[o:o + 8], "little") for o in (8, 56))
b = int(sys.argv[2], 0)
print("0x%x 0x%x" % (a & b, m & b))' "$1" "${2:-0x70}"
}
t_is "statx: immutable (0x10) set, and immutable, append, nodump known" "$(statx_attrs "$M/f")" "0x10 0x70"
t_errno "open for writing: EPERM" EPERM "$NOVA_SYS" open "$M/f" O_WRONLY
t_errno "open O_APPEND: EPERM" EPERM "$NOVA_SYS" open "$M/f" "O_WRONLY|O_APPEND"
t_errno "write through a descriptor opened before: EPERM" EPERM px 'os.pwrite(7, b"x", 0)'
t_errno "truncate: EPERM" EPERM "$NOVA_SYS" truncate "$M/f" 0
t_errno "ftruncate through the old descriptor: EPERM" EPERM px 'os.ftruncate(7, 0)'
t_errno "fallocate: EPERM" EPERM "$NOVA_SYS" fallocate "$M/f" 0 0 8192
t_errno "punch hole: EPERM" EPERM "$NOVA_SYS" fallocate "$M/f" punch_hole 0 4096
t_errno "chmod: EPERM" EPERM px 'os.chmod(sys.argv[1], 0o600)' "$M/f"
t_errno "chown: EPERM" EPERM px 'os.chown(sys.argv[1], 1, 1)' "$M/f"
t_errno "utimes: EPERM" EPERM px 'os.utime(sys.argv[1], (1, 1))' "$M/f"
t_errno "link: EPERM" EPERM "$NOVA_SYS" link "$M/f" "$M/f2"
t_errno "unlink: EPERM" EPERM "$NOVA_SYS" unlink "$M/f"
t_errno "rename: EPERM" EPERM "$NOVA_SYS" rename "$M/f" "$M/g"
t_errno "setxattr: EPERM" EPERM px 'os.setxattr(sys.argv[1], "user.a", b"1")' "$M/f"
t_errno "shared writable mmap of the old descriptor: EPERM" EPERM \
	px 'mmap.mmap(7, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)'
t_ok "private writable mmap is allowed" \
	px 'm = mmap.mmap(7, 0, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_WRITE); m[0:1] = b"X"'
t_is "... and leaves the file alone" "$(cat "$M/f")" data
t_errno "chattr -i without CAP_LINUX_IMMUTABLE: EPERM" "Operation not permitted" "${NOCAP[@]}" chattr -i "$M/f"
t_is "... still immutable" "$(flags "$M/f")" i
t_ok "chattr -i" chattr -i "$M/f"
t_ok "writable again through the old descriptor" px 'os.pwrite(7, b"D", 0)'
exec 7>&-
t_is "... the write landed" "$(cat "$M/f")" Data

# A shared writable mapping made before chattr +i: the next write faults.
echo page > "$M/m"
t_ok "write fault through a mapping older than chattr +i: SIGBUS" px '
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[0:1] = b"P"
subprocess.run(["chattr", "+i", sys.argv[1]], check=True)
assert m[0:4] == b"Page"
pid = os.fork()
if pid == 0:
    m[1:2] = b"A"
    os._exit(0)
_, st = os.waitpid(pid, 0)
assert os.WIFSIGNALED(st) and os.WTERMSIG(st) == 7, st
' "$M/m"
t_is "... the file kept its bytes" "$(head -c 4 "$M/m")" Page
t_ok "chattr -i" chattr -i "$M/m"

# An immutable directory: no new or removed names.
mkdir "$M/d"
echo x > "$M/d/in"
t_ok "chattr +i on a directory" chattr +i "$M/d"
t_errno "create in it: EPERM" EPERM "$NOVA_SYS" open "$M/d/new" "O_CREAT|O_WRONLY"
t_errno "unlink in it: EPERM" EPERM "$NOVA_SYS" unlink "$M/d/in"
t_errno "rename out of it: EPERM" EPERM "$NOVA_SYS" rename "$M/d/in" "$M/out"
t_errno "mkdir in it: EPERM" EPERM "$NOVA_SYS" mkdir "$M/d/sub"
t_ok "its files stay writable" sh -c "echo y > '$M/d/in'"
t_ok "chattr -i on the directory" chattr -i "$M/d"
t_ok "... create works again" touch "$M/d/new"

# --- append-only ---
printf 'one\n' > "$M/a"
exec 8<> "$M/a"			# opened without O_APPEND before the flag
t_ok "chattr +a" chattr +a "$M/a"
t_is "lsattr shows a" "$(flags "$M/a")" a
t_is "statx: append-only (0x20)" "$(statx_attrs "$M/a")" "0x20 0x70"
t_ok "append with >>" sh -c "echo two >> '$M/a'"
t_is "... appended" "$(cat "$M/a")" "one
two"
t_errno "open O_WRONLY without O_APPEND: EPERM" EPERM "$NOVA_SYS" open "$M/a" O_WRONLY
t_errno "open O_APPEND|O_TRUNC: EPERM" EPERM "$NOVA_SYS" open "$M/a" "O_WRONLY|O_APPEND|O_TRUNC"
t_errno "write through a descriptor without O_APPEND: EPERM" EPERM px 'os.pwrite(8, b"x", 0)'
t_errno "truncate: EPERM" EPERM "$NOVA_SYS" truncate "$M/a" 0
t_errno "ftruncate through the old descriptor: EPERM" EPERM px 'os.ftruncate(8, 100)'
t_errno "punch hole: EPERM" EPERM "$NOVA_SYS" fallocate "$M/a" punch_hole 0 4096
t_ok "preallocation past the end (keep size) is allowed" px '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
if libc.fallocate(fd, 1, 0, 65536) < 0:
    raise OSError(ctypes.get_errno(), "fallocate")' "$M/a"
t_errno "collapse range: EPERM" "Operation not permitted" fallocate -c -o 0 -l 4096 "$M/a"
t_errno "unlink: EPERM" EPERM "$NOVA_SYS" unlink "$M/a"
t_errno "rename: EPERM" EPERM "$NOVA_SYS" rename "$M/a" "$M/b"
t_errno "link: EPERM" EPERM "$NOVA_SYS" link "$M/a" "$M/a2"
t_errno "chmod: EPERM" EPERM px 'os.chmod(sys.argv[1], 0o600)' "$M/a"
t_errno "setxattr: EPERM" EPERM px 'os.setxattr(sys.argv[1], "user.a", b"1")' "$M/a"
t_errno "shared writable mmap: EACCES" EACCES \
	px 'fd = os.open(sys.argv[1], os.O_RDWR | os.O_APPEND); mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)' "$M/a"
exec 8>&-
t_is "the contents are just the appends" "$(cat "$M/a")" "one
two"
mkdir "$M/ad"
echo x > "$M/ad/old"
t_ok "chattr +a on a directory" chattr +a "$M/ad"
t_ok "create in it" touch "$M/ad/new"
t_errno "unlink in it: EPERM" EPERM "$NOVA_SYS" unlink "$M/ad/old"
t_errno "rename in it: EPERM" EPERM "$NOVA_SYS" rename "$M/ad/old" "$M/ad/old2"
t_errno "chattr +a without CAP_LINUX_IMMUTABLE: EPERM" "Operation not permitted" "${NOCAP[@]}" chattr +a "$M/f"

# --- noatime, nodump, sync, dirsync ---
echo t > "$M/na"
echo t > "$M/at"
touch -a -d 2001-01-01 "$M/na" "$M/at"
t_ok "chattr +A" chattr +A "$M/na"
cat "$M/na" "$M/at" > /dev/null
t_is "atime unchanged by a read with +A" "$(stat -c %X "$M/na")" "$(date -d 2001-01-01 +%s)"
t_ok "... but updated without it" test "$(stat -c %X "$M/at")" -gt "$(date -d 2002-01-01 +%s)"
t_ok "chattr +d +S" chattr +d +S "$M/na"
t_is "lsattr shows S, d, A" "$(flags "$M/na")" SdA
t_ok "a sync file takes writes" sh -c "echo more >> '$M/na'"
t_ok "chattr +D on a directory" chattr +D "$M/d"
t_is "lsattr shows D" "$(flags "$M/d")" D
# chattr(1) itself drops D for a file; ask the kernel directly.
t_errno "FS_IOC_SETFLAGS dirsync on a file: EOPNOTSUPP" ENOTSUP px '
import array, fcntl
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x40086602, array.array("i", [0x10000]))' "$M/at"
t_errno "chattr +c (compression, not supported): EOPNOTSUPP" "Operation not supported" chattr +c "$M/at"
t_is "... no flag set" "$(flags "$M/at")" ""
t_ok "xfs_io chattr +a (FS_IOC_FSSETXATTR)" xfs_io -c "chattr +a" "$M/at"
t_is "lsattr shows a" "$(flags "$M/at")" a
t_ok "xfs_io chattr -a" xfs_io -r -c "chattr -a" "$M/at"
t_is "... gone" "$(flags "$M/at")" ""
# The DAX flag: every NOVA inode is DAX, as on ext4 -o dax=always, where
# the flag changes nothing either; NOVA accepts it and does not keep it.
# xflags through FS_IOC_FSGETXATTR (fsx_xflags is the first word)
xflags() {
	python3 -c '
import array, fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
b = array.array("I", [0] * 7)
fcntl.ioctl(fd, 0x801c581f, b)
print("0x%x" % b[0])' "$1"
}
# statx(2): STATX_ATTR_DAX (0x200000) in stx_attributes and its mask
statx_dax() { statx_attrs "$1" 0x200000; }
t_is "statx: a file is DAX (STATX_ATTR_DAX)" "$(statx_dax "$M/at")" "0x200000 0x200000"
t_ok "xfs_io chattr +x (FS_XFLAG_DAX) on a file" xfs_io -c "chattr +x" "$M/at"
t_ok "... on a directory" xfs_io -c "chattr +x" "$M/d"
t_is "... not kept: xflags 0 (xfs_io lsattr)" "$(xflags "$M/at")" 0x0
t_is "... the directory keeps its D" "$(flags "$M/d")" D
t_ok "xfs_io chattr +ax: append-only and DAX at once" xfs_io -c "chattr +ax" "$M/at"
t_is "... append-only set, DAX not kept (lsattr)" "$(flags "$M/at")" a
t_is "... xflags: append 0x10 only" "$(xflags "$M/at")" 0x10
t_ok "xfs_io chattr -ax" xfs_io -r -c "chattr -ax" "$M/at"
t_is "... no flag left" "$(flags "$M/at")" ""
t_ok "chattr +x (FS_IOC_SETFLAGS with FS_DAX_FL)" chattr +x "$M/at"
t_is "... no flag shown" "$(flags "$M/at")" ""
t_is "statx: still DAX" "$(statx_dax "$M/at")" "0x200000 0x200000"
t_ok "chattr -x" chattr -x "$M/at"
t_is "statx: DAX after chattr -x too (it cannot be turned off)" "$(statx_dax "$M/at")" "0x200000 0x200000"
chown 65534:65534 "$M/at"
t_ok "the owner may set nodump" "${NOBODY[@]}" chattr +d "$M/at"
t_errno "... not immutable: EPERM" "Operation not permitted" "${NOBODY[@]}" chattr +i "$M/at"
t_errno "another user may set nothing: EPERM" "Operation not permitted" "${NOBODY[@]}" chattr +d "$M/f"

# --- inheritance, as ext4: A d S D to new directories, A d S to new
# files, A d to anything else; never i or a ---
# stx_attributes & 0x40: STATX_ATTR_NODUMP, of the name itself (no follow)
nodump() {
	python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(256)
if libc.statx(-100, sys.argv[1].encode(), 0x100, 0x7ff, buf) < 0:
    sys.exit("statx failed")
print("yes" if int.from_bytes(buf.raw[8:16], "little") & 0x40 else "no")' "$1"
}
mkdir "$M/inh"
t_ok "chattr +A +d +S +D +a on a directory" chattr +A +d +S +D +a "$M/inh"
t_is "lsattr shows SDadA" "$(flags "$M/inh")" SDadA
echo f > "$M/inh/file"
mkdir "$M/inh/sub"
mkdir "$M/inh/sub/deeper"
echo g > "$M/inh/sub/deeper/file"
ln -s target "$M/inh/link"
mkfifo "$M/inh/fifo"
mknod "$M/inh/dev" c 1 3
t_is "a new file: S d A (no D, no a)" "$(flags "$M/inh/file")" SdA
t_is "a new directory: S D d A (no a)" "$(flags "$M/inh/sub")" SDdA
t_is "... and its own new directory" "$(flags "$M/inh/sub/deeper")" SDdA
t_is "... and the file in that" "$(flags "$M/inh/sub/deeper/file")" SdA
t_is "a new symlink is nodump" "$(nodump "$M/inh/link")" yes
t_is "a new fifo is nodump" "$(nodump "$M/inh/fifo")" yes
t_is "a new device node is nodump" "$(nodump "$M/inh/dev")" yes
ln -s target "$M/d/link"
t_is "a new symlink in a directory with only D is not" "$(nodump "$M/d/link")" no
t_ok "an O_TMPFILE file, linked in" px '
fd = os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600)
os.write(fd, b"tmp")
# a directory descriptor makes os.link() call linkat(AT_SYMLINK_FOLLOW)
os.link("/proc/self/fd/%d" % fd, sys.argv[1] + "/tmpf",
        src_dir_fd=os.open("/", os.O_RDONLY), follow_symlinks=True)' "$M/inh"
t_is "... has S d A" "$(flags "$M/inh/tmpf")" SdA
t_ok "chattr -a on the directory" chattr -a "$M/inh"
t_ok "rename with a whiteout in the directory" "$NOVA_SYS" rename "$M/inh/file" "$M/inh/moved" whiteout
t_is "... the whiteout is nodump" "$(nodump "$M/inh/file")" yes
t_is "... the moved file keeps its flags" "$(flags "$M/inh/moved")" SdA
echo n > "$M/inh/sub/noinherit"
t_ok "chattr -A -S -D on sub" chattr -A -S -D "$M/inh/sub"
echo n > "$M/inh/sub/after"
t_is "a file made after: only d" "$(flags "$M/inh/sub/after")" d
t_is "a file made before keeps what it had" "$(flags "$M/inh/sub/noinherit")" SdA
find "$M/inh" -print0 | sort -z | xargs -0 lsattr -d 2>/dev/null > "$T/before"
t_ok "remount" nova_remount
find "$M/inh" -print0 | sort -z | xargs -0 lsattr -d 2>/dev/null > "$T/after"
t_ok "inherited flags survive a remount" cmp "$T/before" "$T/after"
t_diag "$(cat "$T/after")"
t_is "... and the symlink's nodump" "$(nodump "$M/inh/link")" yes

# --- remount, GC ---
lsattr -d "$M"/* > "$T/before"
t_ok "remount" nova_remount
lsattr -d "$M"/* > "$T/after"
t_ok "flags survive a remount" cmp "$T/before" "$T/after"
t_ok "200 flag changes and chmods on one file" px '
p = sys.argv[1]
for i in range(200):
    subprocess.run(["chattr", "+d" if i % 2 else "-d", p], check=True)
    os.chmod(p, 0o600 if i % 2 else 0o644)' "$M/f"
chattr +A "$M/f"
lsattr -d "$M"/* > "$T/before"
pages_before=$(( $(stat -c %b "$M/f") / 8 ))
out=$(novactl gc --json --inode "$(stat -c %i "$M/f")" "$M")
t_is "novactl gc --inode" "$?" 0
pages_after=$(( $(stat -c %b "$M/f") / 8 ))
t_diag "log pages $pages_before -> $pages_after; $out"
t_ok "GC shrank the log" test "$pages_after" -lt "$pages_before"
t_ok "remount" nova_remount
lsattr -d "$M"/* > "$T/after"
t_ok "flags the same after GC and a remount" cmp "$T/before" "$T/after"
t_is "f has d (set last) and A" "$(flags "$M/f")" dA
t_ok "umount" nova_umount
fsck_clean "fsck.NOVA -f -n clean"
t_diag "$(tail -n 2 "$T/fsck.out")"

# --- snapshots ---
t_ok "mount" nova_mount
t_ok "chattr +i f" chattr +i "$M/f"
t_ok "snapshot" novactl snapshot create --name flags "$M"
t_ok "chattr -i f, +a na" sh -c "chattr -i '$M/f' && chattr +a '$M/na'"
t_ok "umount the live file system" nova_umount
t_ok "mount the snapshot" mount -t NOVA -o snapshot=1,ro "$D" "$S"
t_is "the snapshot shows f immutable" "$(flags "$S/f")" idA
t_is "... and na without a" "$(flags "$S/na")" SdA
t_errno "chattr in a snapshot: EROFS" "Read-only file system" chattr -i "$S/f"
t_ok "umount the snapshot" umount "$S"
t_ok "mount the live file system" nova_mount
t_is "live: f not immutable" "$(flags "$M/f")" dA
t_is "live: na append-only" "$(flags "$M/na")" SadA
t_ok "delete the snapshot" novactl snapshot delete "$M" 1
t_ok "clear the flags" sh -c "chattr -a '$M/na' && chattr -a '$M/ad' && chattr -a '$M/a'"
t_ok "umount" nova_umount
fsck_clean "fsck.NOVA -f -n clean after the snapshot"

# --- a 1.5 image is upgraded by its first chattr ---
t_ok "format" nova_mount_init
echo old > "$M/old"
t_ok "umount" nova_umount
t_ok "rewrite the superblocks as format 1.5 (no file attribute feature)" \
	python3 "$NOVA_TOP/tests/guest/protect-media.py" sb "$D" minor=5 incompat=63
fsck_clean "fsck.NOVA accepts the 1.5 image"
t_ok "a 1.5 image mounts" nova_mount
t_is "lsattr reads it without upgrading" "$(flags "$M/old")" ""
n0=$(dmesg | grep -c 'format upgraded from 1.5 to 1.6: file attributes (feature 0x40)')
t_ok "first chattr" chattr +i "$M/old"
t_ok "second chattr" chattr -i +d "$M/old"
t_is "one kernel info line says so" \
	"$(( $(dmesg | grep -c 'format upgraded from 1.5 to 1.6: file attributes (feature 0x40)') - n0 ))" 1
t_is "the superblock says 1.6 with the feature at once" "$(layout minor) $(layout incompat)" "6 127"
t_ok "remount" nova_remount
t_is "the flag is there" "$(flags "$M/old")" d
t_ok "umount" nova_umount
fsck_clean "fsck.NOVA clean after the upgrade"
rm -rf "$T"
t_done

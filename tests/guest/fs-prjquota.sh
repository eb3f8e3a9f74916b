#!/bin/bash
# Project ids and project quotas (format 1.8, NOVA_FEATURE_PROJID,
# NOVA_ATTR_PROJID setattr entries, module/fileattr.c and module/quota.c)
# through e2fsprogs' chattr/lsattr and the quota package: chattr -p sets
# a project id and lsattr -p shows it (the first one upgrades a 1.6 file
# system to 1.8 with one kernel info line); chattr +P sets the inherit
# flag; new files, directories and symlinks in such a directory take its
# project id, new directories the flag too (as ext4); link and rename of
# an inode of another project into it get EXDEV; only the owner may
# change an id; ids survive a remount, thorough GC and a crash; mount
# -o prjquota loads the hidden project quota file (reserved inode 6);
# project limits set through quotactl(2) (quota-tools 4.06 refuses -P on
# NOVA: see the skip) give EDQUOT on blocks and inodes for the project;
# chattr -p moves the charges (and is refused past the new project's
# hard limit); after a crash whose quota files are behind, the mount
# recounts project usage; fsck.NOVA is clean throughout.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# px CODE ARGS...: python with os, errno, sys imported; prints the errno
# name of an OSError and fails, as t_errno wants.
px() {
	local code=$1
	shift
	python3 -c "import os, errno, sys
try:
$(printf '%s\n' "$code" | sed 's/^/    /')
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(1)" "$@"
}
layout() {
	python3 "$NOVA_TOP/tests/guest/protect-media.py" layout "$D" |
		python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}
fsck_clean() {
	t_is "$1" "$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0
}
# projid PATH: the project id lsattr -p shows
projid() { lsattr -pd "$1" 2>&1 | awk '{ print $1 }'; }
# pflag PATH: "P" if lsattr shows the inherit flag, else "-"
pflag() { lsattr -d "$1" 2>&1 | awk '{ print $1 }' | grep -q P && echo P || echo -; }
# ids: project id and inherit flag of every file under the mount
ids() {
	(cd "$M" && find . -path ./.snapshots -prune -o \( -type f -o -type d \) -print | sort |
		while read -r f; do echo "$f $(projid "$f") $(pflag "$f")"; done)
}

# --- project ids on a 1.6 file system ---
t_ok "format (no options)" nova_mount_init
t_is "format 1.6" "$(layout minor) $(( $(layout incompat) & 256 ))" "6 0"
t_ok "mkdir p, a file outside it" sh -c "mkdir $M/p && echo x > $M/out"
t_is "lsattr -p: project 0 before anything" "$(projid "$M/p")" 0
dmesg -C
t_ok "chattr -p 42 p" chattr -p 42 "$M/p"
t_is "lsattr -p shows 42" "$(projid "$M/p")" 42
t_ok "one info line for the upgrade" sh -c "dmesg | grep -c 'format upgraded from 1.6 to 1.8: project ids' | grep -qx 1"
t_is "format 1.8 with the project id feature" "$(layout minor) $(( $(layout incompat) & 256 ))" "8 256"
t_is "no inherit flag yet" "$(pflag "$M/p")" -
t_ok "a file created now keeps project 0" sh -c "echo y > $M/p/before"
t_is "... project 0" "$(projid "$M/p/before")" 0
t_ok "chattr +P p" chattr +P "$M/p"
t_is "lsattr shows P" "$(pflag "$M/p")" P
t_is "the id stays with +P" "$(projid "$M/p")" 42
t_is "FS_IOC_FSGETXATTR: xflags PROJINHERIT (0x200), projid 42" "$(python3 -c '
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
x = struct.unpack_from("<5I", fcntl.ioctl(fd, 0x801c581f, bytes(28)))
print(hex(x[0]), x[3])' "$M/p" 2>&1)" "0x200 42"

# --- inheritance ---
t_ok "create a file, a directory, a symlink, a fifo in p" sh -c "echo z > $M/p/f && mkdir $M/p/sub && ln -s f $M/p/sl && mkfifo $M/p/fifo"
t_is "the file takes project 42, not the flag" "$(projid "$M/p/f") $(pflag "$M/p/f")" "42 -"
t_is "the directory takes both" "$(projid "$M/p/sub") $(pflag "$M/p/sub")" "42 P"
t_ok "a file two levels down" sh -c "mkdir $M/p/sub/deep && echo w > $M/p/sub/deep/g"
t_is "... in project 42 too" "$(projid "$M/p/sub/deep/g")" 42
t_ok "O_TMPFILE linked into p" px '
fd = os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY, 0o600)
os.write(fd, b"t")
# a directory descriptor makes os.link() call linkat(AT_SYMLINK_FOLLOW)
os.link("/proc/self/fd/%d" % fd, sys.argv[1] + "/tmp",
        src_dir_fd=os.open("/", os.O_RDONLY), follow_symlinks=True)' "$M/p"
t_is "... in project 42" "$(projid "$M/p/tmp")" 42
t_ok "a directory outside p" mkdir "$M/q"
t_is "... in project 0" "$(projid "$M/q")" 0

# --- link, rename: EXDEV from another project ---
t_errno "link of a project 0 file into p: EXDEV" EXDEV px 'os.link(sys.argv[1], sys.argv[2])' "$M/out" "$M/p/out"
t_errno "rename of a project 0 file into p: EXDEV" EXDEV px 'os.rename(sys.argv[1], sys.argv[2])' "$M/out" "$M/p/out"
t_errno "rename of a project 0 directory into p: EXDEV" EXDEV px 'os.rename(sys.argv[1], sys.argv[2])' "$M/q" "$M/p/q"
t_ok "mv copies instead" mv "$M/out" "$M/p/out"
t_is "... and the copy is in project 42" "$(projid "$M/p/out")" 42
t_ok "rename inside p" mv "$M/p/f" "$M/p/f2"
t_ok "link inside p" ln "$M/p/f2" "$M/p/sub/f3"
t_ok "rename out of p (the target has no inherit flag)" mv "$M/p/sub/f3" "$M/f3"
t_is "... keeps project 42" "$(projid "$M/f3")" 42
t_ok "chattr -p 7 on a file in p" chattr -p 7 "$M/p/f2"
t_errno "renaming it inside p: EXDEV" EXDEV px 'os.rename(sys.argv[1], sys.argv[2])' "$M/p/f2" "$M/p/f4"
t_ok "a project 0 file in q" sh -c "echo e > $M/q/x"
t_errno "RENAME_EXCHANGE of a project 0 file with one in p: EXDEV" EXDEV px '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2):
    raise OSError(ctypes.get_errno(), "renameat2")' "$M/q/x" "$M/p/sub/deep/g"
t_ok "chattr -p 42 puts it back" chattr -p 42 "$M/p/f2"
t_ok "then the rename works" mv "$M/p/f2" "$M/p/f"

# --- who may change it ---
t_ok "a file of nobody's" sh -c "echo n > $M/nob && chown 65534 $M/nob"
t_errno "chattr -p on another user's file: EPERM" "Operation not permitted" "${NOBODY[@]}" chattr -p 9 "$M/f3"
t_ok "the owner may" "${NOBODY[@]}" chattr -p 9 "$M/nob"
t_is "... 9" "$(projid "$M/nob")" 9
t_ok "chattr -p 0 gives it back" chattr -p 0 "$M/nob"
t_is "... 0" "$(projid "$M/nob")" 0

# --- remount, GC, fsck ---
ids > "$T/before"
t_ok "remount" nova_remount
ids > "$T/after"
t_ok "ids and flags survive a remount" cmp "$T/before" "$T/after"
t_ok "100 id changes and chmods on one file" px '
import subprocess
p = sys.argv[1]
for i in range(100):
    subprocess.run(["chattr", "-p", str(1000 + i), p], check=True)
    os.chmod(p, 0o600 if i % 2 else 0o644)' "$M/p/f"
t_ok "then back to 42" chattr -p 42 "$M/p/f"
pages_before=$(( $(stat -c %b "$M/p/f") / 8 ))
out=$(novactl gc --json --inode "$(stat -c %i "$M/p/f")" "$M")
t_is "novactl gc --inode" "$?" 0
pages_after=$(( $(stat -c %b "$M/p/f") / 8 ))
t_diag "log pages $pages_before -> $pages_after; $out"
t_ok "GC shrank the log" test "$pages_after" -lt "$pages_before"
t_ok "remount" nova_remount
ids > "$T/after"
t_ok "ids the same after GC and a remount" cmp "$T/before" "$T/after"
t_ok "umount" nova_umount
fsck_clean "fsck.NOVA -f -n clean with project ids"
t_diag "$(tail -n 2 "$T/fsck.out")"

# --- a crash right after a chattr -p and a create ---
# Every NOVA operation is durable when it returns: a shutdown now, then
# the unmount, leaves what a power cut would.
t_ok "mount" nova_mount
t_ok "chattr -p 77 on a new directory with +P, a file in it" sh -c "mkdir $M/c && chattr +P -p 77 $M/c && echo c > $M/c/f"
ids > "$T/before"
t_ok "a power cut (shut down, unmount)" nova_powercut
dmesg -C
t_ok "mount after the crash" nova_mount
t_ok "the kernel recovered" sh -c "dmesg | grep -q 'recovered in'"
ids > "$T/after"
t_ok "ids and flags as before the crash" cmp "$T/before" "$T/after"
t_is "c/f in project 77" "$(projid "$M/c/f")" 77
t_ok "unmount" nova_umount
fsck_clean "fsck.NOVA -f -n clean after the crash"
# --- project quotas ---
# root without CAP_SYS_RESOURCE, which lets it pass any hard limit
NORES=(setpriv --bounding-set -sys_resource)
# quota-tools 4.06 (Debian 12): setquota -P, quota -P and quotaon -P say
# "not found or has no quota enabled" on NOVA. quotactl(2) itself:
# pq get ID: "KiB inodes bsoft bhard isoft ihard"; pq set ID BSOFT BHARD
# ISOFT IHARD (KiB, inodes); pq on, pq off: project limits on, off.
pq() {
	python3 -c '
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
dev, op, args = sys.argv[1].encode(), sys.argv[2], [int(a) for a in sys.argv[3:]]
def qc(cmd, qid, addr):
    if libc.quotactl((cmd << 8) | 2, dev, qid, addr):
        sys.exit("quotactl 0x%x: %s" % (cmd, os.strerror(ctypes.get_errno())))
buf = ctypes.create_string_buffer(72)
if op == "get":
    qc(0x800007, args[0], buf)
    v = struct.unpack_from("<8Q", buf.raw, 0)
    print(v[2] // 1024, v[5], v[1], v[0], v[4], v[3])
elif op == "set":
    struct.pack_into("<8QI", buf, 0, args[2], args[1], 0, args[4], args[3],
                     0, 0, 0, 1 | 4)
    qc(0x800008, args[0], buf)
elif op == "on":
    qc(0x800002, 4, None)
elif op == "off":
    qc(0x800003, 0, None)' "$D" "$@"
}
usage() { pq get "$1" | awk '{ print $1, $2 }'; }
limits() { pq get "$1" | awk '{ print $3, $4, $5, $6 }'; }
raw() { usage "$1"; }
# nores CMD: run a shell command as root without CAP_SYS_RESOURCE, print
# EDQUOT if it failed with it
nores() { "${NORES[@]}" sh -c "$1" 2>&1 | grep -o 'Disk quota exceeded' | sed 's/.*/EDQUOT/'; }

t_ok "mount -o usrquota (a 1.8 file system with project ids)" nova_mount usrquota
t_is "quota feature set, and the project quota file with it" "$(( $(layout incompat) & 384 ))" 384
t_is "the project quota file is loaded: project 77 charged (c and c/f)" "$(raw 77)" "4 2"
t_ok "unmount" nova_umount
dmesg -C
t_ok "mount -o prjquota" nova_mount prjquota
t_ok "mount options show prjquota" grep -q " $M NOVA rw.*,prjquota" /proc/mounts
t_skip "setquota -P, quota -P, quotaon -P" "quota-tools 4.06 answers 'Mountpoint (or device) ... not found or has no quota enabled' for -P on NOVA (its -u and -g work on NOVA); quotactl(2) with PRJQUOTA works and is what this test uses"
t_ok "no quota files in the root: they are hidden" sh -c "! ls -a $M | grep -q aquota"
t_ok "a directory for project 100 (+P)" sh -c "mkdir $M/pq && chattr +P -p 100 $M/pq"
t_is "Q_GETQUOTA 100: the directory, no blocks" "$(usage 100)" "0 1"
t_ok "Q_SETQUOTA 100: 512 KiB soft, 1 MiB hard, 3/6 inodes" pq set 100 512 1024 3 6
t_is "Q_GETQUOTA shows the limits" "$(limits 100)" "512 1024 3 6"
t_ok "write 512 KiB in pq" dd if=/dev/zero of="$M/pq/a" bs=64k count=8 status=none
t_is "Q_GETQUOTA 100: 512 KiB, 2 inodes" "$(usage 100)" "512 2"
t_is "write past the hard limit: EDQUOT" "$(nores "dd if=/dev/zero of=$M/pq/b bs=64k count=16 status=none")" EDQUOT
t_is "usage stops at the hard limit" "$(usage 100 | cut -d' ' -f1)" 1024
t_ok "unlink gives the blocks back" rm "$M/pq/b"
t_is "usage after unlink" "$(usage 100)" "512 2"
t_ok "create up to the inode hard limit" sh -c "for i in 3 4 5 6; do : > $M/pq/i\$i || exit 1; done"
t_is "the 7th inode: EDQUOT" "$(nores ": > $M/pq/i7")" EDQUOT
t_is "mkdir too: EDQUOT" "$(nores "mkdir $M/pq/d7")" EDQUOT
t_ok "root with CAP_SYS_RESOURCE passes the limit" mkdir "$M/pq/d7"
t_ok "rmdir" rmdir "$M/pq/d7"
t_ok "a 1 MiB file outside, project 0" dd if=/dev/zero of="$M/big" bs=64k count=16 status=none
t_errno "chattr -p 100 on it: EDQUOT (transfer past the hard limit)" "Disk quota exceeded" "${NORES[@]}" chattr -p 100 "$M/big"
t_is "... it stays in project 0" "$(projid "$M/big")" 0
t_ok "chattr -p 200 on pq/a moves its charges" chattr -p 200 "$M/pq/a"
t_is "project 100 lost 512 KiB and an inode" "$(usage 100)" "0 5"
t_is "project 200 has them" "$(usage 200)" "512 1"
t_ok "chattr -p 100 back" chattr -p 100 "$M/pq/a"
t_is "project 100 usage back" "$(usage 100)" "512 6"
t_is "project 200 empty" "$(usage 200)" "0 0"
t_ok "Q_QUOTAOFF: project limits off" pq off
t_ok "a write past the hard limit works" dd if=/dev/zero of="$M/pq/off" bs=64k count=16 status=none
t_is "usage still tracked" "$(usage 100 | cut -d' ' -f1)" 1536
t_ok "Q_QUOTAON: project limits on" pq on
t_is "limits on again: EDQUOT" "$(nores "dd if=/dev/zero of=$M/pq/a bs=4k count=1 oflag=append conv=notrunc status=none")" EDQUOT
t_ok "rm the big file" rm "$M/pq/off"

# --- persistence, crash ---
t_ok "unmount" nova_umount
fsck_clean "fsck.NOVA: clean with the project quota file"
t_diag "$(tail -n 2 "$T/fsck.out")"
t_ok "mount -o prjquota again" nova_mount prjquota
t_is "limits survived the unmount" "$(limits 100)" "512 1024 3 6"
t_is "usage survived the unmount" "$(usage 100)" "512 6"
t_ok "sync" sync
t_ok "write 256 KiB more in pq" dd if=/dev/zero of="$M/pq/late" bs=64k count=4 status=none
t_is "usage before the crash" "$(usage 100)" "768 7"
t_ok "a power cut (shut down, unmount)" nova_powercut
dmesg -C
t_ok "mount after the crash" nova_mount prjquota
t_ok "the kernel recovered and recounted quota usage" sh -c "dmesg | grep -q 'quota usage counted from the inodes (crash recovery)'"
t_is "usage as before the crash" "$(usage 100)" "768 7"
t_is "limits as before the crash" "$(limits 100)" "512 1024 3 6"
t_is "project ids as before the crash" "$(projid "$M/pq/late") $(projid "$M/pq/a")" "100 100"
t_ok "unmount" nova_umount
fsck_clean "fsck.NOVA: clean after the recount"
t_done

#!/bin/bash
# FS_IOC_SHUTDOWN (the ioctl of ext4 and xfs that xfs_io -c shutdown and
# fstests' godown call): bad flags are EINVAL, an unprivileged caller gets
# EPERM. After it, with each of the three flags in turn: reads, writes,
# creates, directory listings, renames, unlinks, attribute and xattr
# changes, fallocate and fsync fail with EIO, a fault on a mapping gets
# SIGBUS, the control plane's snapshot, GC and scrub commands and a
# remount are refused; stat still answers from memory. Nothing is written
# to the medium from the shutdown through the unmount (no persistence
# barrier), the next mount runs crash recovery, and everything
# acknowledged before the shutdown is there; fsck.NOVA is clean.
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)

# shutdown PATH FLAGS: the ioctl; prints the errno name on failure.
shutdown_fs() {
	python3 - "$1" "$2" <<'PY'
import errno, fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.ioctl(fd, 0x8004587d, struct.pack("I", int(sys.argv[2])))
except OSError as e:
    print(errno.errorcode[e.errno])
    sys.exit(1)
PY
}

# eio CMD...: the command fails with EIO ("Input/output error"; dash's
# builtins say "I/O error").
eio() {
	local out
	out=$("$@" 2>&1) && return 1
	grep -Eq "Input/output error|I/O error" <<< "$out"
}

# The sum of every file's contents, names and sizes under $M.
tree_sum() {
	(cd "$M" && find . -path ./.snapshots -prune -o -type f -print0 |
		sort -z | xargs -0 sha1sum) | sha1sum | cut -d' ' -f1
}

t_ok "format and mount" nova_mount_init
t_is "bad flags: EINVAL" "$(shutdown_fs "$M" 3)" EINVAL
t_is "unprivileged: EPERM" \
	"$(setpriv --reuid 65534 --regid 65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all \
		python3 -c 'import fcntl, os, struct, errno, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.ioctl(fd, 0x8004587d, struct.pack("I", 0))
except OSError as e:
    print(errno.errorcode[e.errno])' "$M" 2>&1)" EPERM
t_ok "still writable after the refused calls" sh -c "echo x > $M/x"
t_ok "umount" nova_umount

for flags in 0 1 2; do
	r="flags $flags"
	t_ok "$r: mount" nova_mount
	mkdir -p "$M/d$flags"
	head -c 300000 /dev/urandom > "$M/d$flags/data"
	echo "kept $flags" > "$M/d$flags/small"
	setfattr -n user.round -v "$flags" "$M/d$flags/small"
	t_ok "$r: a snapshot before" novactl snapshot create --name "s$flags" "$M"
	sync
	before=$(tree_sum)
	dmesg -c > /dev/null
	barrier_count_start
	t_ok "$r: shutdown" shutdown_fs "$M" "$flags"
	t_ok "$r: dmesg says so" sh -c "dmesg | grep -q 'shut down (flags $flags)'"
	t_ok "$r: read: EIO" eio cat "$M/d$flags/small"
	t_ok "$r: write: EIO" eio dd if=/dev/zero of="$M/d$flags/small" bs=4k count=1 \
		conv=notrunc status=none
	t_ok "$r: create: EIO" eio touch "$M/d$flags/new"
	t_ok "$r: mkdir: EIO" eio mkdir "$M/d$flags/sub"
	t_ok "$r: readdir: EIO" eio ls "$M/d$flags"
	t_ok "$r: rename: EIO" eio mv "$M/d$flags/small" "$M/d$flags/moved"
	t_ok "$r: unlink: EIO" eio rm "$M/d$flags/data"
	t_ok "$r: chmod: EIO" eio chmod 600 "$M/d$flags/small"
	t_ok "$r: setfattr: EIO" eio setfattr -n user.x -v y "$M/d$flags/small"
	t_ok "$r: fallocate: EIO" eio fallocate -l 1M "$M/d$flags/data"
	t_ok "$r: fsync: EIO" eio xfs_io -c fsync "$M/d$flags/data"
	python3 - "$M/d$flags/data" <<'PY' > /dev/null 2>&1
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 4096, prot=mmap.PROT_READ)
m[0]
PY
	t_is "$r: a fault on a mapping: SIGBUS" "$?" $((128 + 7))
	t_ok "$r: stat answers" stat "$M/d$flags/small"
	t_fail "$r: snapshot create refused" novactl snapshot create "$M"
	t_fail "$r: snapshot delete refused" novactl snapshot delete "$M" "s$flags"
	t_fail "$r: GC refused" novactl gc "$M"
	t_fail "$r: scrub refused" novactl scrub start "$M"
	t_fail "$r: remount refused" mount -o remount,ro "$M"
	t_ok "$r: shutdown again: no error" shutdown_fs "$M" "$flags"
	t_ok "$r: sync" sync
	t_ok "$r: umount" nova_umount
	fences=$(barrier_count)
	t_is "$r: no persistence barrier from the shutdown through the unmount" \
		"$fences" 0
	t_ok "$r: mount" nova_mount
	t_ok "$r: ... ran crash recovery" \
		sh -c "dmesg | grep -q 'not cleanly unmounted: running crash recovery'"
	t_is "$r: everything acknowledged before is there" "$(tree_sum)" "$before"
	t_is "$r: the xattr too" \
		"$(getfattr --only-values -n user.round "$M/d$flags/small")" "$flags"
	t_ok "$r: and the snapshot" sh -c "novactl snapshot list '$M' | grep -qw s$flags"
	t_ok "$r: writable again" sh -c "echo after > $M/d$flags/after"
	t_ok "$r: umount" nova_umount
	t_ok "$r: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
done
rm -rf "$T"
t_done

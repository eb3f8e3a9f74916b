#!/bin/bash
# Snapshots of removed files (format 1.2 inode records) and of end-of-file
# pages: files unlinked (also open ones written after the unlink, hard
# links, symlinks), directories removed with rm -r and files renamed over
# stay readable in a snapshot taken while they existed, their inode
# numbers are not reused meanwhile, across clean remounts; bytes past a
# shrunk end of file that a snapshot shows survive the file growing again
# (truncate, write past EOF, fallocate: the page is copied on write);
# fsck.NOVA finds nothing wrong with kept inodes; deleting the snapshots
# returns blocks and inodes to the baseline.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
S=/mnt/nova-snap

iused() { "$NOVA_SYS" statfs "$M" | awk '{ print $3 - $4 }'; }
sums() { (cd "$1" && find . \( -type f -o -type l \) | sort | while read -r f; do
	if [ -L "$f" ]; then echo "$(readlink "$f")  $f"; else sha256sum "$f"; fi
done; find . -type d | sort) }
snap_mount() { mount -t NOVA -o "snapshot=$1,ro" "$NOVA_PMEM" "$S"; }

mkdir -p "$S"
t_ok "format and mount" nova_mount_init
empty=$(nova_bfree)
empty_ino=$(iused)

# --- the tree at snapshot 1 ---
mkdir -p "$M/tree/a/b" "$M/keep"
head -c $((1 << 20)) /dev/urandom > "$M/tree/a/b/big"
head -c 5000 /dev/urandom > "$M/tree/a/small"
echo "gone soon" > "$M/unlinked"
head -c 300000 /dev/urandom > "$M/open-unlinked"
head -c 20000 /dev/urandom > "$M/linked"
ln "$M/linked" "$M/keep/hardlink"
ln -s "$(printf 'x%.0s' $(seq 200))" "$M/longlink"
ln -s short "$M/shortlink"
echo "victim of a rename" > "$M/victim"
echo "replacement" > "$M/replacement"
head -c 6000 /dev/urandom > "$M/eof-trunc"
head -c 6000 /dev/urandom > "$M/eof-write"
head -c 6000 /dev/urandom > "$M/eof-falloc"
sums "$M" > /tmp/s1.sums
t_ok "snapshot 1" "$C" snapshot create --name one "$M"

# --- remove everything, in every way ---
exec 7<> "$M/open-unlinked"
rm -r "$M/tree"
rm "$M/unlinked" "$M/linked" "$M/keep/hardlink" "$M/longlink" "$M/shortlink"
mv "$M/replacement" "$M/victim"
rm "$M/open-unlinked"
# Written after the unlink, while open: not what the snapshot shows.
head -c 300000 /dev/urandom >&7
exec 7>&-
for f in trunc write falloc; do truncate -s 5000 "$M/eof-$f"; done
truncate -s 9000 "$M/eof-trunc"
printf 'X' | dd of="$M/eof-write" bs=1 seek=8000 conv=notrunc status=none
fallocate -l 9000 "$M/eof-falloc"
t_is "the grown files read zeroes past the old end" \
	"$(tail -c 4000 "$M/eof-trunc" | tr -d '\0' | wc -c)" 0
# New inodes, which must not take the removed ones' numbers.
mkdir "$M/new"
for i in $(seq 40); do echo "$i" > "$M/new/f$i"; done
sums "$M" > /tmp/live.sums
t_ok "snapshot 2 (nothing of the removed files in it)" "$C" snapshot create "$M"

t_ok "umount" nova_umount
t_ok "mount snapshot 1" snap_mount 1
t_is "snapshot 1 shows the removed files, names and contents" \
	"$(sums "$S")" "$(cat /tmp/s1.sums)"
t_is "... and the hard link's count" "$(stat -c %h "$S/linked")" 2
t_ok "umount snapshot 1" umount "$S"
t_ok "mount snapshot 2" snap_mount 2
t_is "snapshot 2 shows the tree after the removals" "$(sums "$S")" "$(cat /tmp/live.sums)"
t_ok "umount snapshot 2" umount "$S"
t_ok "fsck.NOVA: clean with kept inodes" fsck.NOVA -n "$NOVA_PMEM"

t_ok "mount live" nova_mount
t_is "the live tree is unchanged" "$(sums "$M")" "$(cat /tmp/live.sums)"
t_ok "umount, mount (the kept inodes' slots stay taken)" nova_remount
for i in $(seq 40); do echo "$i" > "$M/new/g$i"; done
rm -r "$M/new"
t_ok "umount" nova_umount
t_ok "snapshot 1 again after a remount and new inodes" snap_mount 1
t_is "... same contents" "$(sums "$S")" "$(cat /tmp/s1.sums)"
t_ok "umount snapshot 1" umount "$S"

# --- reclaim ---
t_ok "mount live" nova_mount
t_ok "delete snapshot 2" "$C" snapshot delete "$M" 2
t_ok "delete snapshot 1" "$C" snapshot delete "$M" one
rm -rf "${M:?}"/*
now=$(nova_bfree)
t_ok "blocks return to the baseline ($empty free empty, $now now)" \
	test $((empty - now)) -le 8
t_is "inodes in use return to the baseline" "$(iused)" "$empty_ino"
t_ok "umount" nova_umount
t_ok "fsck.NOVA: clean after the reclaim" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount again" nova_mount
t_is "free space is the same after a remount" "$(nova_bfree)" "$now"
t_ok "umount" nova_umount
t_done

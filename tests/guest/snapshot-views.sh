#!/bin/bash
# Snapshot views: .snapshots/<name>/ browsed while the live file system is
# mounted read-write. A manifest (type, size and sha256 of every file,
# symlink targets, directory modes) taken at snapshot time must match the
# view while writers overwrite, truncate, unlink and rename in the live
# tree and thorough GC runs (novactl gc); several snapshots; a view pins
# the live log against thorough GC only while it exists; deleting another
# snapshot while browsing works, deleting the browsed one fails EBUSY until
# the last file there is closed; every write under .snapshots fails EROFS;
# .snapshots is hidden from readdir unless -o snapdir=visible; cat and
# mmap reads; unmount, fsck.NOVA clean, space back after deleting all.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
V=$M/.snapshots
SYS=$NOVA_SYS

jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}
# One line per path under DIR: files with size and sha256, symlinks with
# their target, directories with their mode.
manifest() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while read -r p; do
		if [ -L "$p" ]; then
			echo "l $p -> $(readlink "$p")"
		elif [ -d "$p" ]; then
			echo "d $p $(stat -c %a "$p")"
		else
			echo "f $p $(stat -c %s "$p") $(sha256sum < "$p" | cut -d' ' -f1)"
		fi
	done)
}
same() {	# DIR MANIFEST: the tree under DIR matches MANIFEST
	manifest "$1" > /tmp/views.now
	diff -u "$2" /tmp/views.now
}
gc_ino() {	# FILE: novactl gc of the live FILE's inode, prints thorough_runs
	local out
	out=$("$C" gc --inode "$(stat -c %i "$1")" --json "$M") || return 1
	jget "$out" 'd["gc"]["thorough_runs"]'
}
# churn FILE: pwrite every page of a 1024-page file, then every even page
# again: half the entries of every log page stay live, so fast GC frees
# nothing and a thorough GC halves the log.
churn() {
	python3 - "$1" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for rnd, step in ((1, 1), (2, 2)):
    for i in range(0, 1024, step):
        os.pwrite(fd, bytes([(i + rnd) & 255]) * 4096, i * 4096)
os.close(fd)
EOF
}
mmap_sum() {	# FILE: sha256 of FILE read through a read-only shared mmap
	python3 - "$1" <<'EOF'
import hashlib, mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
h = hashlib.sha256()
if size:
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
    h.update(m[:])
    m.close()
os.close(fd)
print(h.hexdigest())
EOF
}
setx() {	# FILE: setxattr user.v, prints the errno name on failure
	python3 -c '
import errno, os, sys
try:
    os.setxattr(sys.argv[1], "user.v", b"x")
except OSError as e:
    print(errno.errorcode[e.errno], file=sys.stderr)
    sys.exit(1)' "$1"
}

expect_klog 'snapdir=bogus'
t_ok "format and mount" nova_mount_init
empty=$(nova_bfree)

# --- the tree at the first snapshot ---
mkdir -p "$M/d/sub" "$M/keep"
chmod 750 "$M/d/sub"
head -c $((3 << 20)) /dev/urandom > "$M/big"
head -c 100000 /dev/urandom > "$M/trunc"
head -c 12345 /dev/urandom > "$M/d/sub/gone"
echo "renamed later" > "$M/d/old-name"
printf 'short' > "$M/grow"
: > "$M/empty"
ln -s big "$M/short-link"
ln -s "$(printf 'x%.0s' $(seq 200))/long/target" "$M/long-link"
ln "$M/big" "$M/d/hardlink"
churn "$M/churn"
for i in $(seq 30); do head -c $((i * 1000)) /dev/urandom > "$M/keep/f$i"; done
setfattr -n user.color -v blue "$M/grow" 2>/dev/null || python3 -c \
	'import os, sys; os.setxattr(sys.argv[1], "user.color", b"blue")' "$M/grow"
manifest "$M" > /tmp/views.one
t_ok "snapshot one" "$C" snapshot create --name one "$M"

# --- hidden, found by name ---
t_fail "ls -a of the root does not list .snapshots" \
	grep -qx .snapshots <<< "$(ls -a "$M")"
t_ok "but stat finds it" stat "$V"
t_is "it lists the snapshot by name" "$(ls "$V")" one
t_ok "the view matches the manifest" same "$V/one" /tmp/views.one
t_is "xattrs of the snapshot are readable" \
	"$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "user.color").decode())' "$V/one/grow")" blue
t_is "view inode numbers are not the live ones" \
	"$([ "$(stat -c %i "$V/one/big")" != "$(stat -c %i "$M/big")" ] && echo differ)" differ
t_is "hard links share one view inode" \
	"$(stat -c %i "$V/one/big")" "$(stat -c %i "$V/one/d/hardlink")"
t_is "readdir and stat agree on view inode numbers" \
	"$(ls -i "$V/one" | awk '$2 == "big" { print $1 }')" "$(stat -c %i "$V/one/big")"

# --- change the live tree; two more snapshots ---
head -c $((3 << 20)) /dev/urandom | dd of="$M/big" conv=notrunc status=none
truncate -s 5000 "$M/trunc"
mv "$M/d/old-name" "$M/d/new-name"
rm "$M/d/sub/gone"
echo more >> "$M/grow"
rm "$M/short-link"
ln -s trunc "$M/short-link"
for i in $(seq 1 3 30); do rm "$M/keep/f$i"; done
manifest "$M" > /tmp/views.two
t_ok "snapshot two" "$C" snapshot create --name two "$M"
rm -r "$M/d"
head -c 50000 /dev/urandom > "$M/trunc"
echo "born in three" > "$M/new"
manifest "$M" > /tmp/views.three
t_ok "snapshot 3 (no name)" "$C" snapshot create "$M"
t_is ".snapshots lists all three (unnamed by id)" "$(ls "$V" | tr '\n' ' ')" "3 one two "
t_ok "view one still matches" same "$V/one" /tmp/views.one
t_ok "view two matches" same "$V/two" /tmp/views.two
t_ok "view 3 matches" same "$V/3" /tmp/views.three
t_ok "a removed directory is in the older views" test -f "$V/two/d/new-name"

# --- EROFS for every write ---
t_errno "open for writing" EROFS "$SYS" open "$V/one/big" O_WRONLY
t_errno "O_TRUNC" EROFS "$SYS" open "$V/one/big" "O_RDONLY|O_TRUNC"
t_errno "create" EROFS "$SYS" open "$V/one/newfile" "O_CREAT|O_WRONLY"
t_errno "mkdir" EROFS "$SYS" mkdir "$V/one/newdir"
t_errno "mkdir in .snapshots" EROFS "$SYS" mkdir "$V/new"
t_errno "unlink" EROFS "$SYS" unlink "$V/one/big"
t_errno "rmdir" EROFS "$SYS" rmdir "$V/one/keep"
t_errno "rmdir of a snapshot" EROFS "$SYS" rmdir "$V/one"
t_errno "rmdir of .snapshots" EROFS "$SYS" rmdir "$V"
t_errno "rename inside a view" EROFS "$SYS" rename "$V/one/big" "$V/one/big2"
t_errno "rename out of a view" EROFS "$SYS" rename "$V/one/big" "$M/stolen"
t_errno "rename into a view" EROFS "$SYS" rename "$M/new" "$V/one/new"
t_errno "rename of .snapshots" EROFS "$SYS" rename "$V" "$M/snaps"
mkdir "$M/emptydir"
t_errno "rename over .snapshots" EROFS "$SYS" rename "$M/emptydir" "$V"
rmdir "$M/emptydir"
t_errno "hard link out of a view" EROFS "$SYS" link "$V/one/big" "$M/linked"
t_errno "symlink in a view" EROFS "$SYS" symlink x "$V/one/sl"
t_errno "truncate" EROFS "$SYS" truncate "$V/one/big" 0
t_errno "mknod" EROFS "$SYS" mknod "$V/one/fifo" fifo
t_errno "setxattr" EROFS setx "$V/one/grow"
t_fail "chmod" chmod 600 "$V/one/big"
t_ok "... with EROFS" grep -q "Read-only file system" <<< "$(chmod 600 "$V/one/big" 2>&1)"
t_fail "touch (utimes)" touch "$V/one/big"
t_errno "mkdir /.snapshots" EEXIST "$SYS" mkdir "$V"
t_ok "the views are unchanged" same "$V/one" /tmp/views.one
atime=$(stat -c %X "$V/one/big")
sleep 1.1
cat "$V/one/big" > /dev/null
t_is "reading does not change atime" "$(stat -c %X "$V/one/big")" "$atime"

# --- cat and mmap ---
t_is "cat of a view file" "$(cat "$V/one/big" | sha256sum | cut -d' ' -f1)" \
	"$(awk '$2 == "./big" { print $4 }' /tmp/views.one)"
t_is "mmap read of a view file" "$(mmap_sum "$V/one/trunc")" \
	"$(awk '$2 == "./trunc" { print $4 }' /tmp/views.one)"
t_is "mmap read of an empty view file" "$(mmap_sum "$V/one/empty")" \
	"$(sha256sum < /dev/null | cut -d' ' -f1)"
t_is "mmap of one block through the live file and two views at once" \
	"$(python3 - "$M/keep/f2" "$V/one/keep/f2" "$V/two/keep/f2" <<'EOF'
import hashlib, mmap, os, sys
maps = []
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY)
    maps.append(mmap.mmap(fd, os.fstat(fd).st_size, mmap.MAP_SHARED, mmap.PROT_READ))
print(len({hashlib.sha256(m[:]).hexdigest() for m in maps}))
EOF
)" 1
t_is "a store to a private mapping of a view file stays private" \
	"$(python3 - "$V/one/big" <<'EOF'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 8192, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_WRITE)
m[0:5] = b"XXXXX"
print(m[0:5].decode(), os.pread(fd, 5, 0) != b"XXXXX")
EOF
)" "XXXXX True"
t_is "... and the view file is unchanged" "$(sha256sum < "$V/one/big" | cut -d' ' -f1)" \
	"$(awk '$2 == "./big" { print $4 }' /tmp/views.one)"
t_fail "writable shared mmap refused" python3 -c '
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)' "$V/one/big"

# --- a view pins the live log against thorough GC, and only while it exists ---
exec 3< "$V/one/churn"
churn "$M/churn"
t_is "thorough GC leaves a browsed file's log alone" "$(gc_ino "$M/churn")" 0
t_is "the open view file still reads as the snapshot" \
	"$(sha256sum <&3 | cut -d' ' -f1)" "$(awk '$2 == "./churn" { print $4 }' /tmp/views.one)"
exec 3<&-
t_is "once closed, thorough GC compacts it" "$(gc_ino "$M/churn")" 1
t_ok "and the view reads the same after the compaction" same "$V/one" /tmp/views.one

# --- writers, readers and GC together ---
# The writer runs until the readers have done 6 rounds.
rm -f /tmp/views.stop
(
	r=0
	until [ -e /tmp/views.stop ]; do
		r=$((r + 1))
		head -c $((r % 40 * 7000 + 1)) /dev/urandom |
			dd of="$M/big" bs=4096 seek=$((r % 40 * 3)) conv=notrunc status=none
		truncate -s $((r % 40 * 1000)) "$M/trunc"
		mv "$M/grow" "$M/grow.tmp" && mv "$M/grow.tmp" "$M/grow"
		echo "$r" > "$M/keep/w$r"
		rm -f "$M/keep/w$((r - 2))"
		[ $((r % 10)) -eq 0 ] && churn "$M/churn"
	done
	echo "$r" > /tmp/views.wrounds
) &
wpid=$!
bad=0
rounds=0
while [ "$rounds" -lt 6 ]; do
	same "$V/one" /tmp/views.one > /dev/null || bad=$((bad + 1))
	same "$V/two" /tmp/views.two > /dev/null || bad=$((bad + 1))
	same "$V/3" /tmp/views.three > /dev/null || bad=$((bad + 1))
	"$C" gc "$M" > /dev/null || bad=$((bad + 1))
	rounds=$((rounds + 1))
done
touch /tmp/views.stop
wait "$wpid"
t_is "no mismatch in $rounds rounds of readers against $(cat /tmp/views.wrounds) rounds of writers and GC" "$bad" 0

# --- deletes while browsing ---
exec 4< "$V/one/big"
t_ok "delete snapshot two while one is browsed" "$C" snapshot delete "$M" two
t_is ".snapshots follows" "$(ls "$V" | tr '\n' ' ')" "3 one "
out=$("$C" snapshot delete "$M" one -j)
t_is "delete of the browsed snapshot: EBUSY" "$(jget "$out" 'd["error"]["name"]')" EBUSY
t_ok "... saying it is being browsed" grep -q "being browsed" <<< "$(jget "$out" 'd["error"]["message"]')"
t_is "the open file still reads right" "$(sha256sum <&4 | cut -d' ' -f1)" \
	"$(awk '$2 == "./big" { print $4 }' /tmp/views.one)"
exec 4<&-
t_ok "after the close the delete succeeds" "$C" snapshot delete --wait "$M" one
t_is ".snapshots shows what is left" "$(ls "$V")" 3
t_ok "view 3 still matches" same "$V/3" /tmp/views.three

# --- snapdir=visible ---
t_ok "remount with snapdir=visible" mount -o remount,snapdir=visible "$M"
t_ok "ls -a lists .snapshots" grep -qx .snapshots <<< "$(ls -a "$M")"
t_ok "/proc/mounts shows the option" grep -q "snapdir=visible" /proc/mounts
out=$(mount -o remount,snapdir=bogus "$M" 2>&1)
t_is "snapdir=bogus is refused" "$?" 32
t_ok "... with a message" grep -q "snapdir=bogus: must be hidden or visible" \
	<<< "$out$(dmesg | tail -20)"
t_ok "remount with snapdir=hidden" mount -o remount,snapdir=hidden "$M"
t_fail "hidden again" grep -qx .snapshots <<< "$(ls -a "$M")"

# --- unmount, fsck, space ---
t_ok "unmount" nova_umount
t_ok "fsck.NOVA: clean" fsck.NOVA -n "$NOVA_PMEM"
t_ok "mount again" nova_mount
t_ok "view 3 matches after the remount" same "$V/3" /tmp/views.three
t_ok "delete the last snapshot" "$C" snapshot delete --wait "$M" 3
t_is ".snapshots is empty" "$(ls -A "$V" | wc -l)" 0
rm -rf "${M:?}"/*
# The writers' renames grew the root's log; with no snapshot left,
# thorough GC compacts it.
t_ok "novactl gc" "$C" gc "$M"
now=$(nova_bfree)
t_ok "space returns to the empty baseline ($empty free empty, $now now)" \
	test $((empty - now)) -le 8
t_ok "unmount" nova_umount
t_ok "fsck.NOVA: clean at the end" fsck.NOVA -n "$NOVA_PMEM"
t_done

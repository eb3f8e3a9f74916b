#!/bin/bash
# Snapshots end to end through the nova genl family (tests/guest/genl-client.py):
# a snapshot shows what the files held when it was taken after the live tree
# is overwritten, truncated, renamed and extended, across umount/mount; a
# snapshot mount is read-only (EROFS, remount,rw refused) and excludes the
# live mount; unknown ids give ENOENT with an extack, unprivileged users
# EPERM; deleting the snapshot and the files returns the space (statfs).
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"

G=$NOVA_TOP/tests/guest/genl-client.py
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
M=$NOVA_MNT
S=/mnt/nova-snap

jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}
dev() { stat -c %d "$M"; }
req() {	# CMD [--attr ...]: one request for the fs on $M
	local cmd=$1
	shift
	python3 "$G" request "$cmd" --attr NOVA_A_FS_DEV:u64:"$(dev)" "$@"
}
sums() { (cd "$1" && find . -type f | sort | xargs -r sha256sum); }

expect_klog 'nova \(pmem0\): error: .*no snapshot'
mkdir -p "$S"
t_ok "format and mount" nova_mount_init
empty=$(nova_bfree)

# --- the tree at snapshot time ---
mkdir "$M/dir"
head -c $((3 << 20)) /dev/urandom > "$M/big"
head -c 100000 /dev/urandom > "$M/trunc"
echo "renamed later" > "$M/dir/old-name"
printf 'short' > "$M/grow"
sums "$M" > /tmp/snap1.sums
res=$(req NOVA_CMD_SNAPSHOT_CREATE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_NAME:strz:first)
t_is "SNAPSHOT_CREATE succeeds" "$(jget "$res" 'd["name"]')" OK
t_is "SNAPSHOT_CREATE replies with one message" "$(jget "$res" 'len(d["messages"])')" 1
res=$(req NOVA_CMD_SNAPSHOT_CREATE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_NAME:strz:first)
t_is "a second snapshot with the same name: EEXIST" "$(jget "$res" 'd["name"]')" EEXIST
res=$(req NOVA_CMD_SNAPSHOT_CREATE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_NAME:strz:123)
t_is "a name of digits only: EINVAL" "$(jget "$res" 'd["name"]')" EINVAL

# --- change everything ---
before=$(nova_bfree)
head -c $((3 << 20)) /dev/urandom | dd of="$M/big" conv=notrunc status=none
truncate -s 5000 "$M/trunc"
mv "$M/dir/old-name" "$M/dir/new-name"
echo "more" >> "$M/grow"
echo "born after" > "$M/new-file"
after=$(nova_bfree)
t_ok "overwritten pages stay allocated for the snapshot ($before -> $after free)" \
	test $((before - after)) -ge 768
sums "$M" > /tmp/live.sums

res=$(python3 "$G" request NOVA_CMD_SNAPSHOT_LIST --dump --attr NOVA_A_FS_DEV:u64:"$(dev)")
t_is "SNAPSHOT_LIST dumps one snapshot" \
	"$(jget "$res" 'd["name"], len(d["messages"])')" "('OK', 1)"

# --- errors ---
res=$(req NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_ID:u64:77)
t_is "delete of an unknown id: ENOENT" "$(jget "$res" 'd["name"]')" ENOENT
t_is "... with an extack" "$(jget "$res" 'd["extack"]')" "no live snapshot matches"
res=$(req NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_NAME:strz:nope)
t_is "delete of an unknown name: ENOENT" "$(jget "$res" 'd["name"]')" ENOENT
res=$(req NOVA_CMD_SNAPSHOT_DELETE)
t_is "delete without a snapshot: EINVAL" "$(jget "$res" 'd["name"]')" EINVAL
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_SNAPSHOT_CREATE --attr NOVA_A_FS_DEV:u64:"$(dev)")
t_is "unprivileged create: EPERM" "$(jget "$res" 'd["name"]')" EPERM
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_FS_DEV:u64:"$(dev)" \
	--attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_ID:u64:1)
t_is "unprivileged delete: EPERM" "$(jget "$res" 'd["name"]')" EPERM
res=$("${NOBODY[@]}" python3 "$G" request NOVA_CMD_SNAPSHOT_LIST --dump --attr NOVA_A_FS_DEV:u64:"$(dev)")
t_is "unprivileged list works" "$(jget "$res" 'd["name"], len(d["messages"])')" "('OK', 1)"
t_fail "a snapshot cannot be mounted while the live fs is mounted" \
	mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$S"

# --- the snapshot view, across umount/mount ---
t_ok "umount" nova_umount
t_fail "snapshot mount without ro is refused" mount -t NOVA -o snapshot=1 "$NOVA_PMEM" "$S"
t_fail "snapshot mount of a nonexistent id fails" mount -t NOVA -o snapshot=9,ro "$NOVA_PMEM" "$S"
t_ok "mount snapshot 1 read-only" mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$S"
t_is "the snapshot holds the files as they were" "$(sums "$S")" "$(cat /tmp/snap1.sums)"
t_ok "the old name is in the snapshot" test -f "$S/dir/old-name"
t_fail "the new name is not" test -e "$S/dir/new-name"
t_fail "the file created later is not" test -e "$S/new-file"
t_errno "create in a snapshot: EROFS" EROFS "$NOVA_SYS" open "$S/x" "O_CREAT|O_WRONLY"
t_errno "write open in a snapshot: EROFS" EROFS "$NOVA_SYS" open "$S/big" "O_WRONLY"
t_errno "truncate in a snapshot: EROFS" EROFS "$NOVA_SYS" truncate "$S/big" 0
t_errno "unlink in a snapshot: EROFS" EROFS "$NOVA_SYS" unlink "$S/grow"
t_fail "remount,rw of a snapshot is refused" mount -o remount,rw "$S"
res=$(python3 "$G" request NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_FS_DEV:u64:"$(stat -c %d "$S")" \
	--attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_ID:u64:1)
t_is "deleting the mounted snapshot: EBUSY, with an extack" \
	"$(jget "$res" 'd["name"], d["extack"]')" "('EBUSY', 'this snapshot is mounted')"
res=$(python3 "$G" request NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_FS_DEV:u64:"$(stat -c %d "$S")" \
	--attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_ID:u64:99)
t_is "deleting another snapshot through a snapshot mount: EROFS" \
	"$(jget "$res" 'd["name"]')" EROFS
t_fail "the live fs cannot be mounted while a snapshot is" nova_mount
t_ok "umount the snapshot" umount "$S"

t_ok "mount the live fs again" nova_mount
t_is "the live tree is unchanged" "$(sums "$M")" "$(cat /tmp/live.sums)"
t_ok "umount" nova_umount
t_ok "mount again (clean)" nova_mount
t_ok "umount" nova_umount
t_ok "the snapshot survives a second clean mount" mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$S"
t_is "... with the same contents" "$(sums "$S")" "$(cat /tmp/snap1.sums)"
t_ok "umount the snapshot" umount "$S"

# --- by name ---
t_ok "mount -o snapshot=first,ro (by name)" mount -t NOVA -o snapshot=first,ro "$NOVA_PMEM" "$S"
t_is "... the same snapshot" "$(sums "$S")" "$(cat /tmp/snap1.sums)"
t_ok "/proc/mounts names it by id" grep -q " $S NOVA ro,.*snapshot=1" /proc/mounts
t_ok "a second mount by id shares it" mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" /mnt
t_ok "... and umount" umount /mnt
t_ok "a second mount by name shares it" mount -t NOVA -o snapshot=first,ro "$NOVA_PMEM" /mnt
t_ok "... and umount" umount /mnt
t_ok "remount keeping the name" mount -o remount,ro,snapshot=first "$S"
t_fail "a mount of another name is refused while it is mounted" \
	mount -t NOVA -o snapshot=nosuch,ro "$NOVA_PMEM" /mnt
t_ok "umount the snapshot" umount "$S"
t_fail "an unknown name is refused" mount -t NOVA -o snapshot=nosuch,ro "$NOVA_PMEM" "$S"
t_ok "... saying so" sh -c "dmesg | grep -q 'no snapshot named nosuch'"
t_fail "snapshot=0 is refused" mount -t NOVA -o snapshot=0,ro "$NOVA_PMEM" "$S"
t_fail "snapshot= (empty) is refused" mount -t NOVA -o snapshot=,ro "$NOVA_PMEM" "$S"
t_fail "a name too long is refused" mount -t NOVA -o "snapshot=$(printf 'n%.0s' $(seq 64)),ro" "$NOVA_PMEM" "$S"
t_fail "snapshot=NAME without ro is refused" mount -t NOVA -o snapshot=first "$NOVA_PMEM" "$S"
t_ok "mount the live fs" nova_mount

# --- delete and reclaim ---
res=$(req NOVA_CMD_SNAPSHOT_DELETE --attr NOVA_A_SNAPSHOT:nest:NOVA_SNAPSHOT_A_NAME:strz:first)
t_is "delete by name" "$(jget "$res" 'd["name"]')" OK
res=$(python3 "$G" request NOVA_CMD_SNAPSHOT_LIST --dump --attr NOVA_A_FS_DEV:u64:"$(dev)")
t_is "no snapshot is left" "$(jget "$res" 'd["name"], len(d["messages"])')" "('OK', 0)"
rm -rf "${M:?}"/*
now=$(nova_bfree)
# The root directory's log and the snapshot log keep a few pages.
t_ok "space returns to the empty baseline ($empty free empty, $now now)" \
	test $((empty - now)) -le 8
t_ok "umount" nova_umount
t_ok "mount again" nova_mount
t_is "free space is the same after a remount" "$(nova_bfree)" "$now"
t_ok "umount" nova_umount
t_fail "snapshot 1 cannot be mounted once deleted" \
	mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$S"
t_done

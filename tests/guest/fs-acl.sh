#!/bin/bash
# POSIX ACLs (system.posix_acl_* kept as NOVA_LOG_XATTR entries): setfacl
# and getfacl; access checks of a non-root user follow the ACL; default
# ACLs are inherited by new files and directories (and the umask applies
# where there is none); chmod keeps mode and ACL mask consistent; ACLs
# survive a remount; cp -a, tar --xattrs --acls and rsync -aAX copy ACLs
# and xattrs; the acl/noacl and user_xattr/nouser_xattr mount options as
# ext4 users write them in fstab; fsck.NOVA clean.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
acl() { getfacl -c -p "$1" 2>/dev/null | grep -v '^$'; }
# the ACLs of a tree, in name order (a copy's readdir order may differ)
facls() { (cd "$1" && find . | sort | xargs getfacl -p 2>/dev/null); }

t_ok "format and mount" nova_mount_init
t_ok "acl is the default: not in /proc/mounts" sh -c "! grep ' $M ' /proc/mounts | grep -q acl"

# --- access ACLs and enforcement ---
echo secret > "$M/f"
chmod 600 "$M/f"
t_fail "nobody cannot read a 600 root file" "${NOBODY[@]}" cat "$M/f"
t_ok "setfacl -m u:nobody:r" setfacl -m u:nobody:r "$M/f"
t_is "getfacl shows the entry and a mask" "$(acl "$M/f" | tr '\n' ' ')" \
	"user::rw- user:nobody:r-- group::--- mask::r-- other::--- "
t_ok "ls -l shows the + of an ACL" sh -c "ls -l $M/f | cut -c11 | grep -q +"
t_is "nobody can read it now" "$("${NOBODY[@]}" cat "$M/f")" secret
t_fail "... but not write it" "${NOBODY[@]}" sh -c "echo x >> $M/f"
t_ok "chmod 600 (mask becomes ---)" chmod 600 "$M/f"
t_is "the mask follows the group bits" "$(acl "$M/f" | grep mask)" "mask::---"
t_fail "the mask now denies nobody" "${NOBODY[@]}" cat "$M/f"
t_ok "chmod 640" chmod 640 "$M/f"
t_is "nobody reads again" "$("${NOBODY[@]}" cat "$M/f")" secret
t_ok "setfacl -m u::rwx changes the mode" setfacl -m u::rwx "$M/f"
t_is "... mode 740" "$(stat -c %a "$M/f")" 740
echo other > "$M/g"
chmod 644 "$M/g"
t_ok "an ACL equivalent to the mode" setfacl -m u::rw,g::r,o::- "$M/g"
t_is "... is only mode bits (640, no ACL xattr)" \
	"$(stat -c %a "$M/g") $(getfattr -m system. -d "$M/g" 2>/dev/null | grep -c posix_acl)" "640 0"

# --- default ACLs ---
mkdir "$M/d"
t_ok "setfacl -d -m u:nobody:rwx on a directory" setfacl -d -m u:nobody:rwx "$M/d"
(umask 077; touch "$M/d/new"; mkdir "$M/d/sub")
t_ok "a new file inherits the entry" sh -c "getfacl -c $M/d/new | grep -q '^user:nobody:rwx'"
t_is "... and the umask (077) does not apply: the default ACL decides" "$(stat -c %a "$M/d/new")" 664
t_ok "a new directory inherits the default ACL" sh -c "getfacl -c -d $M/d/sub | grep -q '^user:nobody:rwx'"
t_ok "nobody may write the inherited file" "${NOBODY[@]}" sh -c "echo hi > $M/d/new"
mkdir "$M/plain"
(umask 027; touch "$M/plain/x"; mkdir "$M/plain/y")
t_is "without a default ACL the umask applies" "$(stat -c %a "$M/plain/x") $(stat -c %a "$M/plain/y")" "640 750"
t_ok "setfacl -b removes the ACL" setfacl -b "$M/f"
t_is "... getfacl shows mode bits only" "$(acl "$M/f" | wc -l)" 3
t_fail "a default ACL on a file is refused" setfacl -d -m u:nobody:r "$M/g"
t_errno "... also through setxattr: EACCES" EACCES python3 -c '
import os, sys, errno
try:
    os.setxattr(sys.argv[1], "system.posix_acl_default", os.getxattr(sys.argv[2], "system.posix_acl_default"))
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(1)' "$M/g" "$M/d"

# --- persistence ---
setfacl -m u:nobody:r,g:nogroup:rw "$M/f"
getfacl -R -p "$M" > "$T/before" 2>/dev/null
t_ok "remount" nova_remount
getfacl -R -p "$M" > "$T/after" 2>/dev/null
t_ok "every ACL is the same after a remount" cmp "$T/before" "$T/after"

# --- copies ---
setfattr -n user.note -v hello "$M/f"
setfattr -n trusted.t -v t "$M/f"
mkdir "$M/src" && mv "$M/f" "$M/d" "$M/src/"
t_ok "cp -a" cp -a "$M/src" "$M/cpa"
t_is "cp -a kept the ACLs" "$(facls "$M/cpa")" "$(facls "$M/src")"
t_is "cp -a kept user.note" "$(getfattr --only-values -n user.note "$M/cpa/f")" hello
t_ok "tar --xattrs --acls create" tar --xattrs --xattrs-include='*' --acls -C "$M/src" -cf "$T/t.tar" .
mkdir "$M/untar"
t_ok "tar --xattrs --acls extract" tar --xattrs --xattrs-include='*' --acls -C "$M/untar" -xf "$T/t.tar"
t_is "tar kept the ACLs" "$(facls "$M/untar")" "$(facls "$M/src")"
t_is "tar kept the xattrs" "$(getfattr --only-values -n user.note "$M/untar/f") $(getfattr --only-values -n trusted.t "$M/untar/f")" "hello t"
if command -v rsync > /dev/null; then
	t_ok "rsync -aAX" rsync -aAX "$M/src/" "$M/rs/"
	t_is "rsync kept the ACLs" "$(facls "$M/rs")" "$(facls "$M/src")"
	t_is "rsync kept user.note" "$(getfattr --only-values -n user.note "$M/rs/f")" hello
else
	t_skip "rsync -aAX" "rsync is not in the guest image"
fi

# --- noacl ---
t_ok "remount noacl" mount -o remount,noacl "$M"
t_ok "noacl shows in /proc/mounts" grep -q "noacl" /proc/mounts
t_errno "setfacl: EOPNOTSUPP" "Operation not supported" setfacl -m u:nobody:r "$M/src/f"
(umask 022; touch "$M/noacl-file")
t_is "the umask applies" "$(stat -c %a "$M/noacl-file")" 644
t_ok "remount acl" mount -o remount,acl "$M"
t_ok "setfacl works again" setfacl -m u:nobody:r "$M/noacl-file"
t_ok "umount" nova_umount
t_ok "mount -o acl,user_xattr as fstab lines say it" nova_mount acl,user_xattr
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n: clean" "$(fsck.NOVA -f -n "$D" > "$T/fsck.out" 2>&1; echo $?)" 0
t_diag "$(tail -n 3 "$T/fsck.out")"
rm -rf "$T"
t_done

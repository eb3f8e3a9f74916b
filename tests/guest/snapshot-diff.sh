#!/bin/bash
# novactl snapshot restore: files, trees and symlinks copied back out of
# .snapshots/<name>/ to their place (atomic rename, no temporary left) or
# --to elsewhere (tmpfs: another file system), with mode, owner, times,
# xattrs and ACLs as in the snapshot; a directory that is there is merged
# into; by name, id and absolute path; JSON; errors for an unknown
# snapshot, a file not in it, '..', a type clash. ACLs in views: shown,
# applied, EROFS on change.
# novactl snapshot diff: created, deleted, modified and renamed files and
# directories (nested) give exactly the expected list, snapshot to
# snapshot and snapshot to live, also after novactl gc and a remount;
# JSON; errors.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"

C=${NOVACTL:-novactl}
M=$NOVA_MNT
V=$M/.snapshots

jget() {
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}
# meta DIR [NAME]: one line per path under DIR (or its entry NAME), the
# top as "." (or NAME): type, mode, owner, size (not of directories:
# that depends on their log), mtime (ns), sha256 or
# symlink target, then every xattr.
meta() {
	(cd "$1" && find "${2:-.}" | LC_ALL=C sort | while read -r p; do
		printf '%s %s ' "$p" "$(stat -c '%F %a %u:%g' "$p")"
		[ -d "$p" ] || printf '%s ' "$(stat -c %s "$p")"
		[ -L "$p" ] || printf '%s ' "$(stat -c %y "$p")"
		if [ -L "$p" ]; then
			printf -- '-> %s' "$(readlink "$p")"
		elif [ -f "$p" ]; then
			sha256sum < "$p" | cut -d' ' -f1 | tr -d '\n'
		fi
		echo
		getfattr -h -d -m - -e hex "$p" 2>/dev/null | grep -v '^#' | grep -v '^$' | LC_ALL=C sort
	done)
}
same_tree() {	# A B: the trees have the same meta
	meta "$1" > /tmp/rs.a
	meta "$2" > /tmp/rs.b
	diff -u /tmp/rs.a /tmp/rs.b
}
no_temps() {
	! find "$M" -xdev -name '*.nova-restore.*' | grep -q .
}

t_ok "format and mount" nova_mount_init

# ---- restore ----
mkdir -p "$M/d/sub/deep" "$M/e"
head -c 300000 /dev/urandom > "$M/d/a"
echo bee > "$M/d/sub/b"
echo deep > "$M/d/sub/deep/c"
truncate -s 1M "$M/d/sparse"
echo tail >> "$M/d/sparse"
ln -s a "$M/d/link"
ln -s /nowhere "$M/dangling"
echo eff > "$M/f"
chmod 0640 "$M/f"
chown 1234:5678 "$M/f" "$M/d/sub"
chmod 0751 "$M/d/sub"
setfattr -n user.color -v blue "$M/f"
setfattr -n trusted.t -v 1 "$M/f"
setfattr -n user.dir -v x "$M/d/sub"
setfacl -m u:nobody:r "$M/f"
touch -h -d '2020-01-02 03:04:05.123456789' "$M/d/link"
touch -d '2021-05-06 07:08:09.5' "$M/f" "$M/d/a" "$M/d/sub/b"
touch -d '2019-01-01' "$M/d/sub" "$M/d"
"$C" snapshot create --name s1 "$M" > /dev/null
t_ok "snapshot s1" test -d "$V/s1/d"
t_ok "the view shows the ACL" grep -q '^user:nobody:r--' <<< "$(getfacl -c "$V/s1/f" 2>/dev/null)"
t_fail "... and refuses to change it" setfacl -m u:nobody:rw "$V/s1/f"
t_is "... with EROFS" "$(python3 -c 'import os, sys
try:
    os.setxattr(sys.argv[1], "system.posix_acl_access", os.getxattr(sys.argv[1], "system.posix_acl_access"))
except OSError as e:
    print(os.strerror(e.errno))' "$V/s1/f")" "Read-only file system"
t_ok "... and applies it (nobody may read f there)" setpriv --reuid=65534 --regid=65534 --clear-groups cat "$V/s1/f"

# Change everything the snapshot has.
echo changed > "$M/f"
chmod 0600 "$M/f"
chown 0:0 "$M/f"
setfattr -x user.color "$M/f"
setfattr -n user.new -v 1 "$M/f"
rm -rf "$M/d"
rm "$M/dangling"
ln -s elsewhere "$M/dangling"

out=$("$C" snapshot restore "$M" s1 f)
t_is "restore of a file to its place exits 0" "$?" 0
t_ok "... human output names it" grep -q "^Restored /f from snapshot 1 (s1) to $M/f\$" <<< "$out"
t_ok "... mode, owner, times, xattrs, ACL and data as in the snapshot" \
	diff <(meta "$V/s1" f) <(meta "$M" f)
t_is "... user.new is gone (a new file was renamed over it)" \
	"$(getfattr -h --only-values -n user.new "$M/f" 2>/dev/null)" ""
t_ok "... ACL back" grep -q '^user:nobody:r--' <<< "$(getfacl -c "$M/f" 2>/dev/null)"
t_ok "... no temporary left" no_temps

out=$("$C" snapshot restore "$M" 1 d -j)
t_is "restore of a deleted tree by id, --json, exits 0" "$?" 0
t_is "... JSON: file, to, counts" \
	"$(jget "$out" 'd["restored"][0]["file"], d["restored"][0]["to"], d["files"], d["directories"], d["symlinks"], d["bytes"], d["snapshot"]["name"], d["warnings"]')" \
	"('d', '$M/d', 4, 3, 1, $((300000 + 4 + 5 + 1048576 + 5)), 's1', [])"
t_ok "... the tree equals the snapshot's (modes, owners, times, xattrs, symlink)" same_tree "$V/s1/d" "$M/d"
t_is "... holes stay holes (sparse file uses < 100 KiB)" \
	"$(( $(stat -c %b "$M/d/sparse") * 512 < 102400 ))" 1
t_ok "... no temporary left" no_temps

echo new > "$M/d/sub/new"
echo modified > "$M/d/sub/b"
chmod 0700 "$M/d/sub"
setfattr -n user.dir -v y "$M/d/sub"
setfattr -n user.extra -v z "$M/d/sub"
out=$("$C" snapshot restore "$M" s1 "$M/d/sub")
t_is "restore into an existing directory by absolute path exits 0" "$?" 0
t_is "... the changed file is back" "$(cat "$M/d/sub/b")" bee
t_is "... the file created since stays" "$(cat "$M/d/sub/new")" new
t_ok "... the directory's mode, times and xattrs are the snapshot's (extra xattr removed)" \
	diff <(meta "$V/s1/d/sub") <(meta "$M/d/sub" | grep -v '^\./new ')
rm "$M/d/sub/new"

out=$("$C" snapshot restore "$M" s1 dangling)
t_is "restore of a symlink exits 0" "$?" 0
t_is "... its target is back" "$(readlink "$M/dangling")" /nowhere

mkdir -p /tmp/rs-to
out=$("$C" snapshot restore "$M" s1 d f --to /tmp/rs-to -j)
t_is "restore --to a directory on tmpfs exits 0" "$?" 0
t_is "... both land under their names" \
	"$(jget "$out" '[i["to"] for i in d["restored"]]')" "['/tmp/rs-to/d', '/tmp/rs-to/f']"
t_is "... data and mode of f" "$(cat /tmp/rs-to/f) $(stat -c '%a %u' /tmp/rs-to/f)" "eff 640 1234"
t_is "... the tree's files" "$(cat /tmp/rs-to/d/sub/b /tmp/rs-to/d/sub/deep/c)" "bee
deep"
t_is "... symlink" "$(readlink /tmp/rs-to/d/link)" a
t_is "... times" "$(stat -c %y /tmp/rs-to/d/a)" "$(stat -c %y "$V/s1/d/a")"
out=$("$C" snapshot restore "$M" s1 d/sub/b --to /tmp/rs-to/renamed)
t_is "restore --to a new name exits 0" "$?" 0
t_is "... the data" "$(cat /tmp/rs-to/renamed)" bee
rm -rf /tmp/rs-to

# ---- errors ----
out=$("$C" snapshot restore "$M" nosuch f 2>&1)
t_is "unknown snapshot: exit 1" "$?" 1
t_ok "... says so" grep -q "^Error: nosuch: no live snapshot matches" <<< "$out"
out=$("$C" snapshot restore "$M" s1 d/missing -j)
t_is "file not in the snapshot: exit 1" "$?" 1
t_is "... JSON ENOENT naming the snapshot" \
	"$(jget "$out" 'd["error"]["name"], "not in snapshot s1" in d["error"]["message"]')" "('ENOENT', True)"
rm -rf "$M/d"
out=$("$C" snapshot restore "$M" s1 d/sub/b 2>&1)
t_is "a file whose directory is gone: exit 1" "$?" 1
t_ok "... says to restore the directory first" grep -q "is not there (restore that first" <<< "$out"
out=$("$C" snapshot restore "$M" s1 ../etc/passwd 2>&1)
t_is "'..' in FILE: usage error (2)" "$?" 2
out=$("$C" snapshot restore "$M" s1 /etc/passwd 2>&1)
t_is "absolute FILE outside the mount: usage error (2)" "$?" 2
out=$("$C" snapshot restore "$M" s1 f d --to /tmp/none-such 2>&1)
t_is "several FILEs --to a non-directory: usage error (2)" "$?" 2
rm -rf "$M/e"
echo x > "$M/e"
out=$("$C" snapshot restore "$M" s1 e 2>&1)
t_is "directory over a file: exit 1" "$?" 1
t_ok "... explained" grep -q "is a file, the snapshot has a directory there" <<< "$out"
t_ok "... nothing left behind" no_temps
"$C" snapshot restore "$M" s1 > /dev/null 2>&1
t_is "no FILE: usage error (2)" "$?" 2
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$C" snapshot restore "$M" s1 f --to /tmp/nobody-f 2>&1)
t_is "unprivileged restore --to /tmp works (owner not kept)" "$?:$(cat /tmp/nobody-f 2>/dev/null)" "0:eff"
rm -f /tmp/nobody-f

# ---- diff ----
nova_umount
t_ok "fresh file system for diff" nova_mount_init
mkdir -p "$M/keep/sub" "$M/gone/inner" "$M/mv/src" "$M/tomove"
for f in keep/same keep/mod keep/del keep/ren keep/chmod gone/inner/x mv/src/f; do
	echo 1 > "$M/$f"
done
ln -s keep/same "$M/link"
SAME=$(stat -c %i "$M/keep/same")
"$C" snapshot create --name s1 "$M" > /dev/null

echo 2 >> "$M/keep/mod"
rm "$M/keep/del"
mv "$M/keep/ren" "$M/keep/sub/renamed"
rm -r "$M/gone"
mv "$M/mv/src" "$M/newsrc"
mkdir -p "$M/new/deep"
echo n > "$M/new/deep/file"
chmod 600 "$M/keep/chmod"
setfattr -n user.x -v 1 "$M/tomove"
# EXPECTED LINES...: the human diff, paths under the mount point.
want() { printf '%s\n' "$@" | sed "s|\t/|\t$M/|; s| -> /| -> $M/|"; }
D1=$(want $'M\t/' $'-\t/gone' $'-\t/gone/inner' $'-\t/gone/inner/x' \
	$'M\t/keep' $'M\t/keep/chmod' $'-\t/keep/del' $'M\t/keep/mod' \
	$'M\t/keep/sub' $'R\t/keep/ren -> /keep/sub/renamed' $'M\t/mv' \
	$'+\t/new' $'+\t/new/deep' $'+\t/new/deep/file' \
	$'R\t/mv/src -> /newsrc' $'M\t/tomove')
out=$("$C" snapshot diff "$M" s1)
t_is "diff s1 live exits 0" "$?" 0
t_is "... created, deleted, modified, renamed files and directories, nested" "$out" "$D1"
t_is "... the same as a walk that stats every inode (--walk)" \
	"$("$C" snapshot diff --walk "$M" s1)" "$D1"
# what the kernel says (NOVA_CMD_SNAPSHOT_DIFF)
out=$("$C" snapshot diff --inodes -j "$M" s1)
t_is "kernel: 4 removed (del, gone, gone/inner, gone/inner/x), 3 created (new...)" \
	"$(jget "$out" '[sum(i["change"] == c for i in d["inodes"]) for c in ("removed", "created")]')" "[4, 3]"
mods=$(jget "$out" '" ".join(str(i["ino"]) for i in d["inodes"] if i["change"] == "modified")')
for f in keep/mod keep/chmod tomove keep keep/sub mv; do
	t_ok "kernel: $f is modified" grep -qw "$(stat -c %i "$M/$f")" <<< "$mods"
done
t_fail "kernel: keep/same is not listed" grep -qw "$SAME" <<< "$(jget "$out" '" ".join(str(i["ino"]) for i in d["inodes"])')"

"$C" snapshot create --name s2 "$M" > /dev/null
echo 3 > "$M/newsrc/f"
rm "$M/link"
D2=$(want $'M\t/' $'-\t/link' $'M\t/newsrc/f')
t_is "diff s1 s2 (snapshot to snapshot)" "$("$C" snapshot diff "$M" s1 s2)" "$D1"
t_is "diff s2 live" "$("$C" snapshot diff "$M" s2)" "$D2"
t_is "... both as the tree walk" \
	"$("$C" snapshot diff -w "$M" s1 s2; "$C" snapshot diff -w "$M" s2)" "$D1
$D2"
out=$("$C" snapshot diff "$M" 1 2 -j)
t_is "diff --json by ids: a rename with type and old path" \
	"$(jget "$out" '[(c["change"], c["type"], c["old_path"]) for c in d["changes"] if c["path"] == "/newsrc"]')" \
	"[('renamed', 'directory', '/mv/src')]"
t_is "... one entry per human line, new is s2" \
	"$(jget "$out" 'len(d["changes"]), d["new"]["name"], d["old"]["name"]')" "(16, 's2', 's1')"
t_is "... live NEW is \"live\"" "$(jget "$("$C" snapshot diff "$M" s2 -j)" 'd["new"]')" live
t_is "identical snapshots: empty diff" \
	"$("$C" snapshot create --name s3 "$M" > /dev/null; "$C" snapshot diff "$M" s3)" ""

"$C" gc "$M" > /dev/null
t_is "after novactl gc: s1 s2 unchanged" "$("$C" snapshot diff "$M" s1 s2)" "$D1"
t_is "... s2 live unchanged" "$("$C" snapshot diff "$M" s2)" "$D2"
t_is "... s3 live empty, as the tree walk says" \
	"$("$C" snapshot diff "$M" s3; "$C" snapshot diff -w "$M" s3)" ""
t_ok "remount" nova_remount
t_is "after a remount: s1 s2 unchanged" "$("$C" snapshot diff "$M" s1 s2)" "$D1"
t_is "... s2 live unchanged" "$("$C" snapshot diff "$M" s2)" "$D2"
t_is "... s3 live empty" "$("$C" snapshot diff "$M" s3)" ""
t_is "... all three as the tree walk" \
	"$("$C" snapshot diff -w "$M" s1 s2; "$C" snapshot diff -w "$M" s2)" "$D1
$D2"

# The kernel's answer is what the logs say, per inode: only a setattr,
# only an xattr, only data, in a directory that did not change; a change
# before OLD is not listed.
mkdir "$M/quiet"
for f in a b c d e; do echo 1 > "$M/quiet/$f"; done
"$C" snapshot create --name q0 "$M" > /dev/null
echo 2 >> "$M/quiet/e"
"$C" snapshot create --name q1 "$M" > /dev/null
chmod 600 "$M/quiet/a"
setfattr -n user.q -v 1 "$M/quiet/b"
printf 9 | dd of="$M/quiet/c" conv=notrunc status=none
qi() { stat -c %i "$M/quiet/$1"; }
t_is "kernel q1 live: a (setattr), b (xattr), c (data) modified, nothing else" \
	"$("$C" snapshot diff -i "$M" q1)" \
	"$(printf '%s\tmodified\tfile\n' "$(qi a)" "$(qi b)" "$(qi c)" | sort -n)"
t_is "diff q1 live: the three files, not their directory" \
	"$("$C" snapshot diff "$M" q1)" "$(want $'M\t/quiet/a' $'M\t/quiet/b' $'M\t/quiet/c')"
t_is "... as the tree walk" "$("$C" snapshot diff -w "$M" q1)" \
	"$(want $'M\t/quiet/a' $'M\t/quiet/b' $'M\t/quiet/c')"
t_is "kernel q0 q1: only e" "$("$C" snapshot diff -i "$M" q0 q1)" \
	"$(printf '%s\tmodified\tfile' "$(qi e)")"
t_is "diff q0 q1: only e" "$("$C" snapshot diff "$M" q0 q1)" "$(want $'M\t/quiet/e')"
t_ok "remount" nova_remount
t_is "after a remount: kernel q1 live the same" \
	"$("$C" snapshot diff -i "$M" q1)" \
	"$(printf '%s\tmodified\tfile\n' "$(qi a)" "$(qi b)" "$(qi c)" | sort -n)"
rm "$M/quiet/d"
t_is "kernel q1 live: d removed, the directory modified" \
	"$("$C" snapshot diff -i "$M" q1 | grep -v 'modified.file$' | sort)" \
	"$(printf '%s\tmodified\tdirectory\n%s\tremoved\tfile\n' "$(stat -c %i "$M/quiet")" "$(python3 -c 'import os, sys; print(os.lstat(sys.argv[1]).st_ino & ((1 << 40) - 1))' "$V/q1/quiet/d")" | sort)"
out=$("$C" snapshot diff -i "$M" q1 q0 2>&1)
t_is "--inodes NEW OLD (wrong order): usage error (2)" "$?" 2
out=$("$C" snapshot diff -w -i "$M" q1 2>&1)
t_is "--walk with --inodes: usage error (2)" "$?" 2

out=$("$C" snapshot diff "$M" nosuch 2>&1)
t_is "diff of an unknown snapshot: exit 1" "$?" 1
t_ok "... says so" grep -q "^Error: nosuch: no live snapshot matches" <<< "$out"
out=$("$C" snapshot diff "$M" s2 s1 2>&1)
t_is "diff NEW OLD (wrong order): usage error (2)" "$?" 2
t_ok "... explained" grep -q "must be older than NEW" <<< "$out"
"$C" snapshot diff "$M" > /dev/null 2>&1
t_is "diff without OLD: usage error (2)" "$?" 2
for s in s1 s2 s3 q0 q1; do "$C" snapshot delete -w "$M" $s > /dev/null; done
t_ok "unmount" nova_umount

t_done

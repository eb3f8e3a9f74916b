#!/bin/bash
# rename(RENAME_WHITEOUT) and overlayfs with NOVA as the upper layer.
# Direct: the old name becomes a whiteout (character device 0/0, mode 0)
# and the file moves, also over an existing target and for a directory;
# an unprivileged caller may make them (Linux >= 5.8); whiteouts survive a remount and fsck.NOVA
# -f -n is clean. Overlay (lower on tmpfs, upper and work on NOVA): files
# and an empty directory removed from the lower layer disappear from the
# merged view and leave whiteouts in upper; created files land in upper;
# a renamed lower file is copied up and its old name whited out; the
# merged view is the same after the overlay and NOVA are remounted. With
# xattrs (trusted.overlay.*) on NOVA: rm -rf of a lower directory whose
# files were removed, mkdir over a removed lower directory (an opaque
# upper directory) and mv of a lower directory work.
# nova-timeout: 300
# nova-expect-klog: overlayfs: (failed to set xattr on upper|upper fs does not support xattr|\.\.\.falling back to|try mounting with 'userxattr')
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
L=/tmp/ovl-lower
O=/mnt/ovl

# is_whiteout PATH: a character device 0/0
is_whiteout() {
	[ "$(stat -c '%F %t:%T %a' "$1" 2>&1)" = "character special file 0:0 0" ]
}
view() { (cd "$1" && find . | sort | while read -r p; do
	if [ -f "$p" ]; then echo "$p $(md5sum < "$p" | cut -c1-8)"; else echo "$p"; fi
done); }

t_ok "format and mount" nova_mount_init

# --- renameat2(RENAME_WHITEOUT) ---
echo one > "$M/a"
t_ok "rename a -> b with RENAME_WHITEOUT" "$NOVA_SYS" rename "$M/a" "$M/b" whiteout
t_ok "a is a whiteout ($(stat -c '%F %t:%T %a' "$M/a"))" is_whiteout "$M/a"
t_is "b holds the file" "$(cat "$M/b")" one
echo two > "$M/c"
t_ok "whiteout rename over an existing target" "$NOVA_SYS" rename "$M/b" "$M/c" whiteout
t_ok "b is a whiteout" is_whiteout "$M/b"
t_is "c holds what b held" "$(cat "$M/c")" one
mkdir -p "$M/dir/sub"
t_ok "whiteout rename of a directory" "$NOVA_SYS" rename "$M/dir" "$M/dir2" whiteout
t_ok "dir is a whiteout" is_whiteout "$M/dir"
t_ok "dir2/sub is there" test -d "$M/dir2/sub"
t_is "root link count: dir2 only" "$(stat -c %h "$M")" 3
t_errno "RENAME_WHITEOUT|RENAME_NOREPLACE onto an existing name: EEXIST" EEXIST \
	python3 -c 'import ctypes, os, sys
l = ctypes.CDLL(None, use_errno=True)
if l.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 5):
    e = ctypes.get_errno(); print(os.strerror(e), "EEXIST" if e == 17 else e); sys.exit(1)' \
	"$M/c" "$M/dir2"
mkdir "$M/pub" && chmod 777 "$M/pub" && echo x > "$M/pub/f" && chmod 666 "$M/pub/f"
# Since Linux 5.8 anyone may create whiteouts (the VFS dropped CAP_MKNOD).
t_ok "an unprivileged whiteout rename" "${NOBODY[@]}" "$NOVA_SYS" rename "$M/pub/f" "$M/pub/g" whiteout
t_ok "... leaves a whiteout owned by the caller" \
	eval 'is_whiteout "$M/pub/f" && [ "$(stat -c %u "$M/pub/f")" = 65534 ]'
t_ok "remount" nova_remount
t_ok "after a remount a, b and dir are whiteouts" \
	eval 'is_whiteout "$M/a" && is_whiteout "$M/b" && is_whiteout "$M/dir"'
t_is "... and c, dir2 are intact" "$(cat "$M/c"; ls "$M/dir2")" "one
sub"
t_ok "whiteouts can be removed" rm "$M/a" "$M/b" "$M/dir" "$M/pub/f"
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n: clean" "$(fsck.NOVA -f -n "$D" > /tmp/fsck.out 2>&1; echo $?)" 0

# --- overlayfs: lower on tmpfs, upper and work on NOVA ---
t_ok "mount again" nova_mount
mkdir -p "$L" "$O" "$M/upper" "$M/work"
mount -t tmpfs lower "$L"
mkdir -p "$L/keep" "$L/emptydir" "$L/full"
for f in f1 f2 f3 mv1; do echo "lower $f" > "$L/$f"; done
echo "in full" > "$L/full/x"
echo kept > "$L/keep/k"
ovl() { mount -t overlay overlay -o "lowerdir=$L,upperdir=$M/upper,workdir=$M/work" "$O"; }
t_ok "mount overlay with NOVA as upper" ovl
t_ok "the merged view shows the lower files" test -f "$O/f1" -a -d "$O/keep"
t_ok "rm a lower file" rm "$O/f1"
t_ok "... it is gone from the merged view" test ! -e "$O/f1"
t_ok "... and a whiteout is in upper" is_whiteout "$M/upper/f1"
t_ok "rmdir a lower empty directory" rmdir "$O/emptydir"
t_ok "... gone, whiteout in upper" eval '! test -e "$O/emptydir" && is_whiteout "$M/upper/emptydir"'
t_ok "create a new file" sh -c "echo new > '$O/new'"
t_is "... it lands in upper" "$(cat "$M/upper/new")" new
t_ok "rename a lower file" mv "$O/mv1" "$O/moved"
t_is "... the new name has its data" "$(cat "$O/moved")" "lower mv1"
t_ok "... copied up" test -f "$M/upper/moved"
t_ok "... the old name is gone and whited out in upper" \
	eval '! test -e "$O/mv1" && is_whiteout "$M/upper/mv1"'
t_ok "rm a file in a lower directory" rm "$O/keep/k"
t_ok "... whiteout in the copied-up directory" is_whiteout "$M/upper/keep/k"
t_ok "modify a lower file (copy-up)" sh -c "echo changed >> '$O/f2'"
t_is "... the lower layer is untouched" "$(cat "$L/f2")" "lower f2"
t_ok "rename over a lower file" mv "$O/new" "$O/f3"
t_is "... f3 has the new data" "$(cat "$O/f3")" new
# Removing a directory whose copied-up upper holds whiteouts, and a
# directory over a removed lower one, need opaque directories (xattrs).
t_ok "rm a file in a lower directory" rm "$O/full/x"
t_ok "rmdir of that directory" "$NOVA_SYS" rmdir "$O/full"
t_ok "... it is gone from the merged view" test ! -e "$O/full"
mkdir -p "$L/tree/a/b" && echo t > "$L/tree/a/b/c" && echo u > "$L/tree/top"
t_ok "rm -rf of a lower directory tree" rm -rf "$O/tree"
t_ok "... gone, whiteout in upper" eval '! test -e "$O/tree" && is_whiteout "$M/upper/tree"'
t_ok "mkdir over a removed lower directory" "$NOVA_SYS" mkdir "$O/emptydir"
t_is "... an opaque directory in upper" \
	"$(getfattr --only-values -n trusted.overlay.opaque "$M/upper/emptydir")" y
t_ok "mv of a lower directory" mv "$O/keep" "$O/keep2"
t_ok "... the old name is gone, the new one has no k" \
	eval '! test -e "$O/keep" && test -d "$O/keep2" && ! test -e "$O/keep2/k"'
view "$O" > /tmp/ovl.view
t_ok "the merged view: $(tr '\n' ' ' < /tmp/ovl.view)" test -s /tmp/ovl.view
t_ok "umount overlay" umount "$O"
t_ok "remount NOVA" nova_remount
t_ok "mount overlay again" ovl
t_is "the merged view is the same" "$(view "$O")" "$(cat /tmp/ovl.view)"
t_ok "umount overlay" umount "$O"
umount "$L"
t_ok "umount" nova_umount
t_is "fsck.NOVA -f -n after overlay use: clean" "$(fsck.NOVA -f -n "$D" > /tmp/fsck.out 2>&1; echo $?)" 0
t_done

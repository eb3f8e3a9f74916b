#!/bin/bash
# Everyday tools on NOVA: cp -a of a real tree (the guest's Python
# library), diff -r (symlinks compared as links: the image has dangling
# ones), tar round trip, find, du, a remount, rm -rf, and free space back
# where it started.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
src=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')

t_ok "format and mount" nova_mount_init
free0=$(stat -f -c %f "$M")
files0=$(stat -f -c %d "$M")
s=$(date +%s.%N)
t_ok "cp -a $src" cp -a "$src" "$M/lib"
t_diag "cp -a: $(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }'), $(find "$src" | wc -l) names"
t_ok "diff -r with the source" diff -r --no-dereference "$src" "$M/lib"
t_is "same number of names" "$(find "$M/lib" | wc -l)" "$(find "$src" | wc -l)"
t_is "same symlinks" "$(cd "$M/lib" && find . -type l -printf '%p %l\n' | sort | md5sum)" \
	"$(cd "$src" && find . -type l -printf '%p %l\n' | sort | md5sum)"
t_is "same modes and mtimes" "$(cd "$M/lib" && find . -printf '%p %m %T@\n' | sort | md5sum)" \
	"$(cd "$src" && find . -printf '%p %m %T@\n' | sort | md5sum)"
t_ok "du counts the data" [ "$(du -s "$M/lib" | cut -f1)" -gt 1000 ]
t_ok "tar round trip" sh -c "cd $M && tar cf - lib | (mkdir t && cd t && tar xf -)"
t_ok "tar copy matches" diff -r --no-dereference "$M/lib" "$M/t/lib"
t_ok "umount" nova_umount
t_ok "mount" nova_mount
t_ok "diff -r after remount" diff -r --no-dereference "$src" "$M/lib"
t_ok "python imports from NOVA" env PYTHONPATH="$M/lib" python3 -S -c 'import json, email.mime.text; print(json.dumps([1]))'
t_ok "rm -rf everything" rm -rf "$M/lib" "$M/t"
t_is "root is empty" "$(ls -A "$M")" ""
t_ok "free blocks back (log pages of the root aside)" [ $(( $(stat -f -c %f "$M") + 64 )) -ge "$free0" ]
t_is "free inodes back" "$(stat -f -c %d "$M")" "$files0"
t_ok "umount" nova_umount
t_done

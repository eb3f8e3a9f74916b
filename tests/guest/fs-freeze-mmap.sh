#!/bin/bash
# Writable shared mappings and a freeze: nothing is written to the medium
# while frozen. A file is listed as unprotected (protect.c) at its first
# write fault, not at mmap(), so mapping and unmapping it while frozen
# writes nothing, and a file only read through a writable mapping leaves
# the freeze clean. The last unmap of a file stored to, during a freeze,
# leaves its re-protection to after the thaw: the unmapping task does not
# wait (not even to free a file unlinked while mapped), reads while frozen
# return the stored bytes, and afterwards the file is re-protected (a
# clean mount reads it verified, fsck.NOVA agrees). A power cut before
# the thaw leaves it to recovery, as for a file still mapped.
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)


# start_mapper NAME FILE store|read DESC: a task maps the first MiB of FILE
# shared and writable, stores "hello" at 0 and "world" at 400 KiB through
# it (or only reads it), and holds the mapping until $T/NAME.go appears;
# then it unmaps, closes and exits. Its pid is in $T/NAME.pid. Not under
# t_ok (a subshell): the task is a child of the test, for release.
start_mapper() {
	python3 - "$2" "$T/$1" "$3" > /dev/null 2>&1 <<'PY' &
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 1 << 20)
if sys.argv[3] == "store":
    m[0:5] = b"hello"
    m[409600:409605] = b"world"
else:
    sum(m[i] for i in range(0, 1 << 20, 4096))
open(sys.argv[2] + ".ready", "w").close()
while not os.path.exists(sys.argv[2] + ".go"):
    time.sleep(0.05)
m.close()
os.close(fd)
PY
	echo $! > "$T/$1.pid"
	t_ok "$4" wait_for 60 test -e "$T/$1.ready"
}

# exited NAME: the mapper has exited (a zombie: its files are closed).
exited() {
	local st
	st=$(cut -d' ' -f3 "/proc/$(cat "$T/$1.pid")/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ]
}

# release NAME DESC: let the mapper unmap and exit; DESC fails if it does
# not exit within 30 s or exits with an error.
release() {
	local st=0
	touch "$T/$1.go"
	if wait_for 30 exited "$1"; then
		wait "$(cat "$T/$1.pid")" || st=$?
		t_is "$2" "$st" 0
	else
		t_ok "$2 (still running after 30 s)" false
	fi
}

stored() {	# FILE: the bytes a "store" mapper left
	[ "$(head -c 5 "$1")" = hello ] &&
		[ "$(dd if="$1" bs=1 skip=409600 count=5 status=none)" = world ]
}

new_file() {	# NAME: 1 MiB of random data
	dd if=/dev/urandom of="$M/$1" bs=64k count=16 status=none
}

t_ok "format and mount" nova_mount_init
new_file mf
new_file rd
sync

# Mapping and unmapping while frozen: no write fault, nothing written.
t_ok "map frozen: fsfreeze -f" fsfreeze -f "$M"
barrier_count_start
start_mapper mf "$M/mf" read "map frozen: a task maps a file writable and reads it"
release mf "map frozen: ... unmaps it and exits"
t_is "map frozen: no persistence barrier while frozen" "$(barrier_count)" 0
t_ok "map frozen: fsfreeze -u" fsfreeze -u "$M"

# A file mapped writable but only read: the freeze leaves the medium
# clean, so a power cut while frozen mounts without recovery.
start_mapper rd "$M/rd" read "read only: a task maps a file writable and reads it"
sum=$(sha256sum < "$M/rd")
t_ok "read only: fsfreeze -f" fsfreeze -f "$M"
r0=$(nova_recoveries)
t_ok "read only: power cut while frozen" nova_cut_power
t_ok "read only: fsfreeze -u" fsfreeze -u "$M"
release rd "read only: the task unmaps and exits"
t_ok "read only: umount" nova_umount
t_ok "read only: mount" nova_mount
t_is "read only: the mount after the cut ran no crash recovery" $(($(nova_recoveries) - r0)) 0
t_is "read only: the file is as it was" "$(sha256sum < "$M/rd")" "$sum"

# Stored to, unmapped while frozen: the task exits at once and nothing is
# written; the file reads back while frozen and is re-protected after the
# thaw.
new_file st
start_mapper st "$M/st" store "unmap frozen: a task maps a file and stores to it"
t_ok "unmap frozen: fsfreeze -f" fsfreeze -f "$M"
barrier_count_start
release st "unmap frozen: the task unmaps and exits while frozen"
t_ok "unmap frozen: the stored bytes read back while frozen" stored "$M/st"
t_is "unmap frozen: no persistence barrier while frozen" "$(barrier_count)" 0
t_ok "unmap frozen: fsfreeze -u" fsfreeze -u "$M"
t_ok "unmap frozen: the stored bytes read back after the thaw" stored "$M/st"
t_ok "unmap frozen: umount" nova_umount
t_ok "unmap frozen: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
r0=$(nova_recoveries)
t_ok "unmap frozen: mount" nova_mount
t_is "unmap frozen: no crash recovery" $(($(nova_recoveries) - r0)) 0
t_ok "unmap frozen: no file was left unprotected" \
	sh -c "! dmesg | grep -q 'were not re-protected'"
t_ok "unmap frozen: read verified: the stored bytes" stored "$M/st"

# Unlinked while mapped, unmapped while frozen: the task does not wait to
# free the file; its blocks are free after the thaw.
new_file ul
start_mapper ul "$M/ul" store "unlinked: a task maps a file and stores to it"
t_ok "unlinked: rm" rm "$M/ul"
free0=$(nova_bfree)
t_ok "unlinked: fsfreeze -f" fsfreeze -f "$M"
barrier_count_start
release ul "unlinked: the task unmaps and exits while frozen"
t_is "unlinked: no persistence barrier while frozen" "$(barrier_count)" 0
t_ok "unlinked: fsfreeze -u" fsfreeze -u "$M"
bfree_grew() { [ "$(nova_bfree)" -ge $((free0 + 256)) ]; }
t_ok "unlinked: its 256 blocks are free after the thaw" wait_for 30 bfree_grew
t_ok "unlinked: umount" nova_umount
t_ok "unlinked: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"

# Stored to, unmapped while frozen, power cut before the thaw: the file
# stays listed and recovery checksums it again.
t_ok "cut: mount" nova_mount
new_file pc
start_mapper pc "$M/pc" store "cut: a task maps a file and stores to it"
t_ok "cut: fsfreeze -f" fsfreeze -f "$M"
release pc "cut: the task unmaps and exits while frozen"
r0=$(nova_recoveries)
t_ok "cut: power cut while frozen" nova_cut_power
barrier_count_start
t_ok "cut: fsfreeze -u" fsfreeze -u "$M"
t_ok "cut: umount" nova_umount
t_is "cut: no persistence barrier from the cut through the unmount" \
	"$(barrier_count)" 0
t_ok "cut: mount" nova_mount
t_is "cut: the mount ran crash recovery" $(($(nova_recoveries) - r0)) 1
t_ok "cut: read verified: the stored bytes" stored "$M/pc"
t_ok "cut: umount" nova_umount
t_ok "cut: fsck.NOVA -n: clean" fsck.NOVA -n "$NOVA_PMEM"
rm -rf "$T"
t_done

#!/bin/bash
# The pmem driver's bad-block list at mount (module/badblocks.c): with
# sectors listed through /sys/block/pmemN/badblocks the device still
# mounts; a data block with one listed, damaged sector is rebuilt from
# parity at mount (right data, counted, announced); one with two is
# reported (kernel log with inode and offset, counters, a CORRUPTION
# event) and its page reads as EIO, never as wrong data; a listed sector
# of metadata is reported. QEMU's NFIT cannot clear poison, so listed
# sectors stay listed until the guest reboots: the test uses a second
# NVDIMM of its own boot.
# nova-guest-args: --pmem-count 2 --pmem-size 256M
# nova-timeout: 600
# nova-expect-klog: nova \(pmem1\): error: (bad block [0-9]+|inode [0-9]+ offset 8192: unrecoverable data corruption)
. "$NOVA_TOP/tests/guest/lib.sh"
NOVA_PMEM=/dev/pmem1
D=$NOVA_PMEM
M=$NOVA_MNT
BB=/sys/block/pmem1/badblocks
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${mon:-}" ] && kill "$mon" 2> /dev/null' EXIT

media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }
prot() {	# FIELD of the protection object of 'novactl stats --json'
	novactl stats --json "$M" | python3 -c "
import json, sys
print(json.load(sys.stdin)['filesystems'][0]['protection']['$1'])"
}
bbstats() {
	echo "$(prot badblocks) $(prot badblocks_repaired) $(prot badblocks_lost) $(prot badblocks_withheld)"
}
samepage() {	# PAGE: that page of the file reads back as written
	cmp <(dd if="$M/f" bs=4k skip="$1" count=1 status=none) \
	    <(dd if="$tmp/data" bs=4k skip="$1" count=1 status=none)
}
listed_blocks() {	# distinct 4 KiB blocks in the device's list
	awk '{ for (s = $1; s < $1 + $2; s++) print int(s / 8) }' "$BB" | sort -u | wc -l
}
list_bad() {	# BLOCK STRIP: list that 512-byte sector of the device as bad
	echo "$(($1 * 8 + $2)) 1" > "$BB"
}
klog_mark() { dmesg > "$tmp/klog.before"; }
monitor_stop() {	# stop the event monitor started by monitor_start
	sleep 0.5
	kill "$mon"
	wait "$mon" 2> /dev/null
	mon=
}
# has_events INO TUPLE...: the monitor saw every CORRUPTION event
# (inode, kind, offset, repaired) given as a Python tuple; INO names the
# file's inode inside them.
has_events() {
	python3 - "$tmp/mon" "$@" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = {(e["corruption"]["inode"], e["corruption"]["kind"],
        e["corruption"]["offset"], e["corruption"]["repaired"])
       for e in ev if e["event"] == "corruption"}
ino = int(sys.argv[2])
need = {eval(t, {"INO": ino}) for t in sys.argv[3:]}
if not need <= got:
    err = open(sys.argv[1] + ".err").read().strip().replace("\n", " | ")
    sys.exit("missing %s; got %s; %d events in all; monitor's stderr: %s"
             % (need - got, got, len(ev), err))
EOF
}
klog_new() { dmesg | tail -n +$(($(wc -l < "$tmp/klog.before") + 1)); }

t_ok "the second NVDIMM has a bad-block list" test -w "$BB"
t_is "and it is empty" "$(cat "$BB")" ""
t_ok "format and mount" nova_mount_init
dd if=/dev/urandom of="$tmp/data" bs=4k count=4 status=none
cp "$tmp/data" "$M/f"
sync
ino=$(stat -c %i "$M/f")
t_is "no bad blocks at a clean mount" "$(bbstats)" "0 0 0 0"
t_ok "unmount" nova_umount
for p in 0 1 2 3; do
	blk[p]=$(media find "$D" "$tmp/data" "$p")
done
t_ok "found the file's pages on the device" test -n "${blk[3]}"

# Page 1: strip 3 damaged and its sector listed (rebuildable).
media flip "$D" data "${blk[1]}" $((3 * 512 + 17))
list_bad "${blk[1]}" 3
# Page 2: strips 0 and 5 damaged and listed (not rebuildable).
media flip "$D" data "${blk[2]}" 100
media flip "$D" data "${blk[2]}" $((5 * 512 + 9))
list_bad "${blk[2]}" 0
list_bad "${blk[2]}" 5
# Block 0 (the superblock's block), a sector past the superblock itself.
list_bad 0 6
t_diag "listed: $(tr '\n' ' ' < "$BB")"

# Read-only first: the damage is reported, not repaired, not called intact.
monitor_start "$tmp/mon"
t_is "the event monitor listens" "$?" 0
klog_mark
t_ok "mount read-only with listed bad sectors" nova_mount ro
klog_new > "$tmp/klog"
t_is "read-only: 3 listed, none rebuilt, 2 lost, none withheld" "$(bbstats)" "3 0 2 0"
t_ok "read-only: the rebuildable page reads back right" samepage 1
t_ok "klog: the rebuildable block is reported as damaged, not intact" \
	grep -q "bad block ${blk[1]} (inode $ino offset 4096): sector(s) 0x8 damaged; reads rebuild it from parity" "$tmp/klog"
monitor_stop
t_ok "read-only: a CORRUPTION event for it, not repaired" \
	has_events "$ino" '(INO, "data", 4096, False)'
t_ok "unmount the read-only mount" nova_umount

monitor_start "$tmp/mon"
t_is "the event monitor listens" "$?" 0
klog_mark
t_ok "the device mounts despite listed bad sectors" nova_mount

klog_new > "$tmp/klog"
t_is "bad blocks: 3 listed, 1 rebuilt, 2 lost, none withheld" "$(bbstats)" "3 1 2 0"
t_ok "the rebuilt page reads back right" samepage 1
t_ok "the repair is counted in the protection counters" \
	[ "$(prot repaired)" -ge 1 ]
t_errno "the page with two lost sectors reads as EIO" EIO pread_file "$M/f" 8192 4096
t_ok "pages 0 and 3 stay readable" \
	sh -c "cmp -n 4096 '$M/f' '$tmp/data' && cmp -i 12288:12288 '$M/f' '$tmp/data'"
t_ok "klog: the rebuilt block, with its inode and offset" \
	grep -q "bad block ${blk[1]} (inode $ino offset 4096): sector(s) 0x8 rebuilt from parity" "$tmp/klog"
t_ok "klog: the lost block, with its inode and offset" \
	grep -q "error: bad block ${blk[2]} (inode $ino offset 8192): sector(s) 0x21 cannot be rebuilt" "$tmp/klog"
t_ok "klog: the metadata block" \
	grep -q "error: bad block 0: sector(s) 0x40 of metadata" "$tmp/klog"
t_diag "after the mount: listed $(tr '\n' ' ' < "$BB")"
monitor_stop
t_ok "CORRUPTION events at mount: data repaired, data lost, super" \
	has_events "$ino" '(INO, "data", 4096, True)' \
	'(INO, "data", 8192, False)' '(0, "super", 0, False)'

# A remount sees the list as the driver keeps it (QEMU's NFIT cannot
# clear poison, so all of it): the rebuilt block now verifies, the lost
# one is still lost, the metadata sector still reported.
t_ok "unmount" nova_umount
t_ok "mount again" nova_mount
n=$(listed_blocks)
t_is "second mount: $n listed, none rebuilt, 2 lost, none withheld" "$(bbstats)" "$n 0 2 0"
t_ok "page 1 still reads back right" samepage 1
t_errno "page 2 still reads as EIO" EIO pread_file "$M/f" 8192 4096
t_ok "unmount" nova_umount

# A bad sector in free space: the block is withheld from the allocator,
# so filling the file system leaves it untouched. The block is one a
# removed file used, i.e. among the first the allocator hands out again.
# On the first NVDIMM, whose list is still empty (pmem1's listed sectors
# make block reads of its superblock fail).
NOVA_PMEM=/dev/pmem0
D=$NOVA_PMEM
BB=/sys/block/pmem0/badblocks
t_is "pmem0's bad-block list is empty" "$(cat "$BB")" ""
t_ok "format and mount pmem0" nova_mount_init
dd if=/dev/urandom of="$tmp/g" bs=4k count=8 status=none
cp "$tmp/g" "$M/g"
sync
t_ok "unmount" nova_umount
freed=$(media find "$D" "$tmp/g" 0)
t_ok "found the block of g's first page (${freed:-none})" test -n "$freed"
t_ok "mount" nova_mount
t_ok "remove g" rm "$M/g"
free0=$(stat -f -c %f "$M")
t_ok "unmount" nova_umount
# Its first sector as the unmount left it (the saved allocator state may
# have reused the freed block; the next mount frees those pages again).
dd if="$D" of="$tmp/sector0" bs=512 skip=$((${freed:-0} * 8)) count=1 iflag=direct status=none
list_bad "${freed:-0}" 7
klog_mark
t_ok "mount with a listed sector in a free block" nova_mount
klog_new > "$tmp/klog"
t_ok "klog: the free block is withheld" \
	grep -q "bad block $freed: sector(s) 0x80 of free space, withheld from allocation" "$tmp/klog"
t_is "statfs: one free block fewer" "$(stat -f -c %f "$M")" $((free0 - 1))
t_is "bad blocks: 1 listed, none rebuilt, none lost, 1 withheld" "$(bbstats)" "1 0 0 1"
t_errno "fill the file system" ENOSPC python3 -c "
import errno, os, sys
fd = os.open('$M/fill', os.O_WRONLY | os.O_CREAT, 0o644)
page = b'FILL' * 1024
try:
    while True:
        os.write(fd, page * 64)
except OSError as e:
    print(errno.errorcode[e.errno], file=sys.stderr)
    sys.exit(1)"
t_ok "unmount" nova_umount
t_ok "the withheld block's first sector is unchanged by the fill" \
	cmp <(dd if="$D" bs=512 skip=$((freed * 8)) count=1 iflag=direct status=none) \
	    "$tmp/sector0"
klog_mark
t_ok "mount again" nova_mount
klog_new > "$tmp/klog"
t_ok "the next mount withholds it again" grep -q "bad block $freed: .*withheld" "$tmp/klog"
t_ok "remove the fill" rm "$M/fill"
t_ok "unmount" nova_umount
t_done

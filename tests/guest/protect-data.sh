#!/bin/bash
# Data protection through the real interfaces: damage data strips, their
# checksums (either copy) and parity strips on the unmounted device
# (tests/guest/protect-media.py), mount, read with read(2): a single bad
# strip or checksum copy is repaired (the content is right and the medium
# is fixed afterwards), two bad strips in a page fail with EIO and a kernel
# error naming the inode and offset, never wrong data. Also: the format
# options (protection=off, verify=off), files mapped writable, unknown
# incompatible features, and a format 1.1 image.
# nova-timeout: 600
# nova-expect-klog: unrecoverable data corruption
# nova-expect-klog: unknown incompatible features
# nova-expect-klog: scrub: inode [0-9]+: bad
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
D=$NOVA_PMEM
T=$(mktemp -d)
media() { python3 "$NOVA_TOP/tests/guest/protect-media.py" "$@"; }
layout() { media layout "$D" | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
# pread(2) of LEN bytes at OFF; prints the errno name on failure.
klog_mark() { dmesg > "$T/klog.before"; }
klog_new() { dmesg | tail -n +$(($(wc -l < "$T/klog.before") + 1)); }
# Faults injected and what became of them, for the issue's note.
declare -A injected detected repaired

t_ok "mount -o init (protection on by default)" nova_mount_init
t_fail "protection is not off in /proc/mounts" grep -q "protection=off" /proc/mounts
t_ok "write a 16-page file" dd if=/dev/urandom of="$T/f" bs=4k count=16 status=none
cp "$T/f" "$M/f"
t_ok "and a second one" sh -c "dd if=/dev/urandom of=$M/g bs=4k count=4 status=none"
t_ok "partial overwrite (copy-on-write of head and tail pages)" \
	sh -c "printf 'hello protected world' | dd of=$T/f bs=1 seek=5000 conv=notrunc status=none &&
	       printf 'hello protected world' | dd of=$M/f bs=1 seek=5000 conv=notrunc status=none"
t_ok "umount" nova_umount
t_is "format 1.6 with checksums, parity, inode replicas, log mirrors, xattrs, range entries and file attributes" "$(layout minor) $(layout incompat)" "6 127"

for p in 0 1 2 3 4 5 6 7; do
	blk[p]=$(media find "$D" "$T/f" "$p")
done
t_ok "found the file's pages on the device" test -n "${blk[7]}"

# One bad byte in a data strip (page 0, strip 2).
good=$(media read "$D" data "${blk[0]}")
media flip "$D" data "${blk[0]}" 1100
injected[data]=$((${injected[data]:-0} + 1))
# A bad primary checksum (page 1, strip 0), a bad replica checksum (page 2,
# strip 7), a bad parity strip (page 3).
media flip "$D" csum "${blk[1]}" 0 0
media flip "$D" csum "${blk[2]}" 3600 1
injected[csum]=$((${injected[csum]:-0} + 2))
media flip "$D" parity "${blk[3]}" 77
injected[parity]=$((${injected[parity]:-0} + 1))
# Two bad strips in one page (page 5: strips 0 and 6).
media flip "$D" data "${blk[5]}" 10
media flip "$D" data "${blk[5]}" 3100
injected[data2]=$((${injected[data2]:-0} + 1))
csum1=$(media read "$D" csum "${blk[1]}" 1)
csum2=$(media read "$D" csum "${blk[2]}" 0)

klog_mark
t_ok "mount the damaged file system" nova_mount
expect_klog "inode [0-9]+ offset 20480: unrecoverable data corruption"
t_ok "pages 0-4 read back right" sh -c "cmp -n 20480 $M/f $T/f"
t_errno "page 5 (two bad strips) fails with EIO" EIO pread_file "$M/f" 20480 4096
t_ok "... and so does a read crossing it" sh -c "! dd if=$M/f of=/dev/null bs=4k skip=4 count=3 status=none"
t_ok "pages 6-15 read back right" sh -c "cmp -i 24576 $M/f $T/f"
t_ok "the error names inode and offset" sh -c "dmesg | grep -q 'inode [0-9]* offset 20480: unrecoverable data corruption'"
t_ok "the second file is fine" sh -c "cat $M/g > /dev/null"
klog_new > "$T/klog.read"
n=$(grep -c "repaired" "$T/klog.read")
# Reads check the strips they copy against the checksums; the parity
# strip is read only to rebuild a bad strip, so page 3's is left to the
# scrub.
t_is "three pages reported repaired (data, two checksum copies)" "$n" 3
t_ok "the scrub repairs the bad parity strip" sh -c "novactl scrub start --restart --wait --json $M > $T/scrub.json; dmesg | grep -q 'scrub: inode [0-9]*: bad parity at 12288, repaired'"
t_diag "$(cat "$T/scrub.json")"
t_ok "umount" nova_umount

v=$(media read "$D" data "${blk[0]}")
t_is "the bad data strip was rewritten on the medium" "$v" "$good"
[ "$v" = "$good" ] && { detected[data]=1; repaired[data]=1; }
v=$(media read "$D" csum "${blk[1]}" 0)
t_is "the bad primary checksum was rewritten from the replica" "$v" "$csum1"
c1=$([ "$v" = "$csum1" ] && echo 1 || echo 0)
v=$(media read "$D" csum "${blk[2]}" 1)
t_is "the bad replica checksum was rewritten from the primary" "$v" "$csum2"
c2=$([ "$v" = "$csum2" ] && echo 1 || echo 0)
detected[csum]=$((c1 + c2)); repaired[csum]=$((c1 + c2))
good=$(cat "$T/f" | python3 -c "
import sys
d = sys.stdin.buffer.read()[3 * 4096:4 * 4096]
p = bytearray(512)
for s in range(8):
    for i in range(512):
        p[i] ^= d[s * 512 + i]
print(p.hex())")
v=$(media read "$D" parity "${blk[3]}")
t_is "the bad parity strip was recomputed by the scrub" "$v" "$good"
[ "$v" = "$good" ] && { detected[parity]=1; repaired[parity]=1; }
grep -q "offset 20480: unrecoverable" "$T/klog.read" && detected[data2]=1
repaired[data2]=0

# A bad strip together with a bad parity strip: EIO, not wrong data, even
# when the damage is at the same place in both and cancels out in the XOR.
media flip "$D" data "${blk[6]}" 600
media flip "$D" parity "${blk[6]}" 600
injected[data]=$((${injected[data]} + 1)); injected[parity]=$((${injected[parity]} + 1))
expect_klog "inode [0-9]+ offset 24576: unrecoverable data corruption"
t_ok "mount" nova_mount
t_errno "bad strip and bad parity: EIO" EIO pread_file "$M/f" 24576 4096
dmesg | grep -q "offset 24576: unrecoverable" && {
	detected[data]=$((${detected[data]} + 1)); detected[parity]=$((${detected[parity]} + 1)); }

# verify=off: reads are not verified (and return what is on the medium);
# writes keep checksums and parity, so verification finds them right.
t_ok "remount with verify=off" nova_remount verify=off
t_ok "verify=off shows in /proc/mounts" grep -q "verify=off" /proc/mounts
t_ok "page 6 reads without verification" sh -c "dd if=$M/f of=/dev/null bs=4k skip=6 count=1 status=none"
t_ok "overwrite pages 5 and 6 with verify=off" sh -c "dd if=$T/f of=$M/f bs=4k skip=5 seek=5 count=2 conv=notrunc status=none"
t_ok "remount with verification" nova_remount
t_ok "the whole file reads back right" cmp "$M/f" "$T/f"

# Files mapped writable are re-protected when the mapping goes away.
t_ok "write through a shared writable mapping" python3 -c "
import mmap, os
fd = os.open('$M/f', os.O_RDWR)
m = mmap.mmap(fd, 16 * 4096)
m[8192:8200] = b'MMAPMMAP'
m.close()
os.close(fd)"
printf 'MMAPMMAP' | dd of="$T/f" bs=1 seek=8192 conv=notrunc status=none
t_ok "remount" nova_remount
t_ok "the mmap store reads back verified" cmp "$M/f" "$T/f"
t_ok "umount" nova_umount
t_ok "fsck.NOVA accepts the protected file system" fsck.NOVA -f -n "$D"

# Unknown incompatible feature bits: refused with a clear message.
media sb "$D" incompat=0x8003
t_fail "a file system with unknown incompatible features does not mount" nova_mount
t_ok "... and the kernel says why" sh -c "dmesg | tail -n 20 | grep -q 'unknown incompatible features 0x8000'"
t_fail "fsck.NOVA refuses it too" fsck.NOVA -n "$D"
media sb "$D" incompat=63

# protection=off: no areas; reads are not verified.
t_ok "mount -o init,protection=off" nova_mount_init protection=off
t_ok "protection=off shows in /proc/mounts" grep -q "protection=off" /proc/mounts
t_ok "write a file" cp "$T/f" "$M/f"
t_ok "umount" nova_umount
t_is "format 1.6 without protection features (xattrs, range entries, file attributes)" "$(layout minor) $(layout incompat) $(layout alloc_start)" "6 112 4"
t_fail "protection=on is refused without init (made with off)" nova_mount protection=on
t_ok "protection=off as /proc/mounts shows it is accepted" nova_mount protection=off
t_ok "umount" nova_umount

# A format 1.1 image (no features, no layout fields) still mounts.
media sb "$D" minor=1 incompat=0 clear-layout
t_ok "a format 1.1 image mounts" nova_mount
t_ok "and reads back" cmp "$M/f" "$T/f"
t_ok "umount" nova_umount
t_is "it stays format 1.1" "$(layout minor)" 1

for k in data data2 csum parity; do
	t_diag "faults: $k injected ${injected[$k]:-0} detected ${detected[$k]:-0} repaired ${repaired[$k]:-0}"
done
rm -rf "$T"
t_done

#!/bin/bash
# The last unmap of a file written through a shared mapping re-protects
# the pages that were written (marked at their write faults, protect.c),
# not the whole file. Every written page must be among them: stores to
# pages spread over the index (several xarray nodes apart, a 2 MiB
# hole that a PMD fault fills, both ends of the file), from a parent and
# a forked child, pages rewritten by write() while mapped, pages
# truncated away and written again, and pages that a collapse moved.
# After the unmap, fsck.NOVA checks every checksum and parity, a scrub
# finds no damage, and the file reads back verified, equal to a model of
# the stores.
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)

t_ok "format and mount" nova_mount_init
t_ok "an 8 MiB file: 4 MiB of data, a 4 MiB hole" sh -c \
	"dd if=/dev/urandom of='$M/f' bs=1M count=4 status=none && truncate -s 8M '$M/f'"
cp "$M/f" "$T/model"

# The same stores go to the file (through a mapping) and to the model
# (with pwrite); pages 100-119 are written with write() while mapped, and
# the last 32 pages truncated away while mapped and extended again.
t_ok "stores through a shared mapping, a forked child's too" python3 - "$M/f" "$T/model" <<'PY'
import mmap, os, subprocess, sys
P = 4096
fd = os.open(sys.argv[1], os.O_RDWR)
model = os.open(sys.argv[2], os.O_RDWR)
m = mmap.mmap(fd, 8 << 20)

def store(off, data):
    m[off:off + len(data)] = data
    os.pwrite(model, data, off)

for page in (0, 1, 63, 64, 65, 511, 512, 1000, 2047):
    store(page * P + 17, b"parent %d" % page)
store(1024 * P, bytes([7]) * (512 * P))          # a 2 MiB hole (PMD)
os.pwrite(model, bytes([9]) * (20 * P), 100 * P)
os.pwrite(fd, bytes([9]) * (20 * P), 100 * P)     # write() while mapped
store(105 * P + 3, b"after write")
pid = os.fork()
if pid == 0:
    m[300 * P + 5:300 * P + 10] = b"child"
    os._exit(0)
os.waitpid(pid, 0)
os.pwrite(model, b"child", 300 * P + 5)
os.ftruncate(fd, (2048 - 32) * P)                 # drop the last 32 pages
os.ftruncate(fd, 2048 * P)
os.ftruncate(model, (2048 - 32) * P)
os.ftruncate(model, 2048 * P)
store(2040 * P + 1, b"regrown")
# Collapse 16 pages at page 256: the stored pages above move down, away
# from their marks; then a store to one that moved.
subprocess.run(["fallocate", "-c", "-o", str(256 * P), "-l", str(16 * P),
                sys.argv[1]], check=True)
data = os.pread(model, 2048 * P, 0)
os.ftruncate(model, 0)
os.pwrite(model, data[:256 * P] + data[272 * P:], 0)
store(284 * P + 100, b"after collapse")
m.close()
os.close(fd)
os.close(model)
PY
t_ok "the file reads back equal to the model" cmp "$M/f" "$T/model"
t_ok "scrub" sh -c "novactl scrub start --restart --wait '$M' > /dev/null"
t_is "scrub: data checked, no errors, nothing repaired" \
	"$(novactl scrub status --json "$M" | python3 -c 'import json, sys; s = json.load(sys.stdin)["scrub"]; print(s["data_checked"] > 0, s["errors"], s["repaired"])')" "True 0 0"
t_ok "remount" nova_remount
t_ok "read verified after a remount: equal to the model" cmp "$M/f" "$T/model"

# Pages stored to and then moved by a collapse or an insert before the
# unmap: the marks go with their old index entries, so the shift must seal
# them. If it does not, a verified read finds the stores' strips bad and
# "repairs" them from the parity: the stores are silently undone.
t_ok "a second 4 MiB file" dd if=/dev/urandom of="$M/g" bs=1M count=4 status=none
cp "$M/g" "$T/gmodel"
since=$(dmesg | wc -l)
t_ok "stores, a collapse and an insert, unmap" python3 - "$M/g" "$T/gmodel" <<'PY'
import mmap, os, subprocess, sys
P = 4096
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 4 << 20)
for page in (300, 511, 700):
    m[page * P + 17:page * P + 27] = b"store %4d" % page
subprocess.run(["fallocate", "-c", "-o", str(256 * P), "-l", str(16 * P),
                sys.argv[1]], check=True)
subprocess.run(["fallocate", "-i", "-o", str(600 * P), "-l", str(8 * P),
                sys.argv[1]], check=True)
m.close()
os.close(fd)
d = bytearray(open(sys.argv[2], "rb").read())
for page in (300, 511, 700):
    d[page * P + 17:page * P + 27] = b"store %4d" % page
d = d[:256 * P] + d[272 * P:]
d = d[:600 * P] + bytes(8 * P) + d[600 * P:]
open(sys.argv[2], "wb").write(d)
PY
t_ok "the moved stores read back (verified)" cmp "$M/g" "$T/gmodel"
t_is "no strip 'repaired' by the reads" \
	"$(dmesg | tail -n +$((since + 1)) | grep -c 'repaired [1-9]')" 0
t_ok "umount" nova_umount
t_ok "fsck.NOVA -n -f: every checksum and parity right" fsck.NOVA -f -n "$NOVA_PMEM"
rm -rf "$T"
t_done

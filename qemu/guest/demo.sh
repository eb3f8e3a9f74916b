#!/bin/bash
# The demo, run inside the guest by 'make demo'. Every step is a real
# command; the first one that fails ends the demo with its status.
set -euo pipefail
step() { printf '\n### %s\n' "$*"; }
mnt=/mnt/nova
dev=/dev/pmem0

step "kernel and NVDIMM (fsdax namespace, DAX-capable)"
uname -r
ndctl list -N | grep -E '"(dev|mode|size|blockdev)"'

step "nova.ko is loaded and registers file system type NOVA"
lsmod | grep '^nova '
grep -w NOVA /proc/filesystems

step "mkfs.NOVA $dev, then mount -t NOVA $dev $mnt"
mkfs.NOVA -f -L demo "$dev"
mkdir -p "$mnt"
mount -t NOVA "$dev" "$mnt"
findmnt "$mnt"
df -h "$mnt"

step "write files and directories"
mkdir -p "$mnt/docs/notes"
echo "hello from NOVA on persistent memory" > "$mnt/docs/hello.txt"
head -c 8M /dev/urandom > "$mnt/random.bin"
sum=$(sha256sum < "$mnt/random.bin")
for i in $(seq 1 200); do echo "note $i" > "$mnt/docs/notes/n$i"; done
ln -s docs/hello.txt "$mnt/hello-link"
ls -l "$mnt" "$mnt/docs"
cat "$mnt/hello-link"

step "novactl fs list; novactl stats --json (counters of this mount)"
novactl fs list
novactl stats --json --pretty "$mnt"

step "unmount, mount again: everything is still there"
umount "$mnt"
mount -t NOVA "$dev" "$mnt"
cat "$mnt/docs/hello.txt"
[ "$(sha256sum < "$mnt/random.bin")" = "$sum" ] && echo "random.bin: sha256 matches"
echo "notes: $(ls "$mnt/docs/notes" | wc -l) files"

step "fsck.NOVA after a clean unmount"
umount "$mnt"
fsck.NOVA -n "$dev"
echo "demo complete"

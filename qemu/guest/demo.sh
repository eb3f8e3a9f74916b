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

step "novactl snapshot create, list"
novactl snapshot create --name before-edit "$mnt"
novactl snapshot list "$mnt"

step "change the live file system: overwrite, remove, rename, create"
echo "edited after the snapshot" > "$mnt/docs/hello.txt"
rm "$mnt/random.bin"
mv "$mnt/docs/notes" "$mnt/notes"
mkdir "$mnt/new" && echo fresh > "$mnt/new/file"
cat "$mnt/docs/hello.txt"

step "browse the snapshot under .snapshots while a writer keeps the live tree busy"
( while :; do date > "$mnt/busy"; done ) &
writer=$!
ls "$mnt/.snapshots" "$mnt/.snapshots/before-edit"
cat "$mnt/.snapshots/before-edit/docs/hello.txt"
[ "$(sha256sum < "$mnt/.snapshots/before-edit/random.bin")" = "$sum" ] &&
	echo "random.bin (removed live): sha256 matches in the snapshot"
if touch "$mnt/.snapshots/before-edit/x" 2>/dev/null; then
	echo "a snapshot must be read-only" >&2
	exit 1
fi
echo "writes under .snapshots are refused (read-only)"

step "novactl snapshot diff: what changed since the snapshot"
novactl snapshot diff "$mnt" before-edit

step "novactl snapshot restore: hello.txt back to its place"
novactl snapshot restore "$mnt" before-edit docs/hello.txt
cat "$mnt/docs/hello.txt"
kill "$writer"
wait "$writer" || true

step "delete the snapshot: its space returns"
df -k "$mnt" | tail -1
novactl snapshot delete "$mnt" before-edit
df -k "$mnt" | tail -1

step "novad schedules snapshots (frequently = 2, frequent_period = 1m)"
# Run by hand here (this guest has no systemd; the unit is novad.service).
mkdir -p /run/novad-demo
cat > /run/novad-demo/novad.conf <<'CONF'
[default]
snapshots = yes
frequently = 2
frequent_period = 1m
hourly = 0
daily = 0
weekly = 0
monthly = 0
CONF
cat /run/novad-demo/novad.conf
novad --check-config --config /run/novad-demo/novad.conf
novad --config /run/novad-demo/novad.conf --state-dir /run/novad-demo &
novad_pid=$!
auto_snaps() { novactl snapshot list "$mnt" | grep -- '-frequently' || true; }
# wait_new OLD SECONDS: until a novad snapshot not in OLD is listed
wait_new() {
	local end=$((SECONDS + $2))
	until auto_snaps | grep -qvxF -- "${1:-none}"; do
		if [ "$SECONDS" -ge "$end" ] || ! kill -0 "$novad_pid" 2>/dev/null; then
			echo "novad took no snapshot in $2 s" >&2
			exit 1
		fi
		sleep 1
	done
}
wait_new "" 30
novactl snapshot list "$mnt"
echo "waiting for the next minute boundary (novad's calendar timer) ..."
wait_new "$(auto_snaps)" 75
novactl snapshot list "$mnt"
kill "$novad_pid"
wait "$novad_pid" || true

step "fsck.NOVA after a clean unmount"
umount "$mnt"
fsck.NOVA -n "$dev"
echo "demo complete"

#!/bin/bash
# novactl end to end: every command with nothing mounted (empty results,
# errors for unknown file systems, usage errors, help), then against a
# mounted NOVA: fs list, stats by every kind of name, JSON validated against
# the documented schema, statistics checked against statfs(2) and against
# operations performed, read-only state, mount/unmount events from
# 'novactl monitor', and read access for an unprivileged user.
# nova-timeout: 900
. "$NOVA_TOP/tests/guest/lib.sh"

J=$NOVA_TOP/tests/guest/genl-json-check.py
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"; [ -n "${mon_pid:-}" ] && kill "$mon_pid" 2>/dev/null' EXIT

jget() {	# JSON PYTHON-EXPR (d is the document)
	python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(eval(sys.argv[2]))' "$1" "$2"
}

# run NAME CMD...: run CMD, keep stdout/stderr/status in $tmp/NAME.{out,err,rc}
run() {
	local name=$1
	shift
	"$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
	echo $? > "$tmp/$name.rc"
}
out() { cat "$tmp/$1.out"; }
err() { cat "$tmp/$1.err"; }
rc() { cat "$tmp/$1.rc"; }

# ---------------------------------------------------------------- help
t_ok "novactl --help" novactl --help
t_ok "novactl help" novactl help
for c in "fs" "fs list" "stats" "monitor"; do
	# shellcheck disable=SC2086
	t_ok "novactl $c --help" novactl $c --help
done
t_ok "novactl -V names the protocol version" sh -c 'novactl -V | grep -q "protocol 1"'

# ---------------------------------------------------------- usage errors
run u1 novactl frobnicate
t_is "unknown object: exit 2" "$(rc u1)" 2
t_is "unknown object: message" "$(err u1)" "Error: unknown object 'frobnicate' (try --help)"
run u2 novactl stats /a /b
t_is "stats with two names: exit 2" "$(rc u2)" 2
run u3 novactl --bogus fs
t_is "unknown global option: exit 2" "$(rc u3)" 2
run u4 novactl -j frobnicate
t_is "usage error in JSON mode: exit 2" "$(rc u4)" 2
t_ok "usage error in JSON mode is a JSON error document" python3 "$J" error "$tmp/u4.out"
t_is "usage error in JSON mode: nothing on stderr" "$(err u4)" ""
run u5 novactl monitor --count
t_is "monitor --count without a number: exit 2" "$(rc u5)" 2
run u6 novactl st
t_is "unique prefix: 'st' is stats" "$(rc u6)" 0
run u7 novactl s
t_is "ambiguous prefix 's' (stats, snapshot): exit 2" "$(rc u7)" 2

# ------------------------------------------------ nothing mounted
umount -q "$NOVA_MNT" 2>/dev/null
run e1 novactl fs list
t_is "fs list, nothing mounted: exit 0" "$(rc e1)" 0
t_is "fs list, nothing mounted: no output" "$(out e1)" ""
run e2 novactl -j fs list
t_ok "fs list JSON (empty) follows the schema" python3 "$J" fs-list "$tmp/e2.out"
t_is "fs list JSON: no file systems" "$(jget "$(out e2)" 'd["filesystems"]')" "[]"
run e3 novactl --pretty stats
t_ok "stats --pretty JSON (empty) follows the schema" python3 "$J" stats "$tmp/e3.out"
t_ok "pretty JSON spans several indented lines" grep -q '^  "version": 1,$' "$tmp/e3.out"
run e4 novactl stats
t_is "stats, nothing mounted: exit 0, no output" "$(rc e4):$(out e4)" "0:"

run n1 novactl stats 259:200
t_is "stats of an unknown device: exit 1" "$(rc n1)" 1
t_is "stats of an unknown device: extack shown" "$(err n1)" \
	"Error: 259:200: no mounted NOVA file system matches"
run n2 novactl -j stats 259:200
t_is "unknown device in JSON mode: exit 1" "$(rc n2)" 1
t_ok "unknown device in JSON mode: JSON error document" python3 "$J" error "$tmp/n2.out"
t_is "unknown device in JSON mode: ENODEV" "$(jget "$(out n2)" 'd["error"]["name"]')" ENODEV
t_is "unknown device in JSON mode: extack message" \
	"$(jget "$(out n2)" 'd["error"]["message"]')" "259:200: no mounted NOVA file system matches"
run n3 novactl stats /
t_is "stats of / (not NOVA): ENODEV, exit 1" "$(rc n3):$(err n3)" \
	"1:Error: /: no mounted NOVA file system matches"
run n4 novactl stats /no/such/path
t_is "stats of a missing path: exit 1" "$(rc n4):$(err n4)" \
	"1:Error: /no/such/path: No such file or directory"
run n5 novactl stats 00112233-4455-6677-8899-aabbccddeeff
t_is "stats of an unknown UUID: ENODEV" "$(rc n5):$(err n5)" \
	"1:Error: 00112233-4455-6677-8899-aabbccddeeff: no mounted NOVA file system matches"
run n6 novactl stats 5000:1
t_is "stats of an impossible device number: exit 1" "$(rc n6)" 1

run p1 "${NOBODY[@]}" novactl fs list
t_is "nobody: fs list works" "$(rc p1)" 0
run p2 "${NOBODY[@]}" novactl -j stats
t_is "nobody: stats works" "$(rc p2)" 0
t_ok "nobody: stats JSON follows the schema" python3 "$J" stats "$tmp/p2.out"

# ------------------------------------------------------------- mounted
if ! nova_mount_init > "$tmp/mount.err" 2>&1; then
	t_skip "tests against a mounted NOVA" \
		"NOVA cannot be mounted yet: $(tr '\n' ' ' < "$tmp/mount.err")"
	t_done
fi

dev=$(stat -c %d "$NOVA_MNT")
bdev=$(basename "$(readlink -f "$NOVA_PMEM")")
majmin=$(printf '%d:%d' "0x$(stat -L -c %t "$NOVA_PMEM")" "0x$(stat -L -c %T "$NOVA_PMEM")")
t_diag "mounted $NOVA_PMEM ($majmin, st_dev $dev) on $NOVA_MNT"

run m1 novactl -j fs list
t_ok "fs list JSON follows the schema" python3 "$J" fs-list "$tmp/m1.out"
fl=$(out m1)
t_is "fs list: one file system" "$(jget "$fl" 'len(d["filesystems"])')" 1
t_is "fs list: dev is the mount point's st_dev" "$(jget "$fl" 'd["filesystems"][0]["dev"]')" "$dev"
t_is "fs list: device is the block device's MAJOR:MINOR" \
	"$(jget "$fl" 'd["filesystems"][0]["device"]')" "$majmin"
t_is "fs list: block device name" "$(jget "$fl" 'd["filesystems"][0]["bdev"]')" "$bdev"
t_is "fs list: mount point" "$(jget "$fl" 'd["filesystems"][0]["mountpoints"]')" "['$NOVA_MNT']"
t_is "fs list: read-write" "$(jget "$fl" 'd["filesystems"][0]["read_only"]')" False
uuid=$(jget "$fl" 'd["filesystems"][0]["uuid"]')
run m2 novactl fs list
t_ok "fs list (human) shows device and mount point" \
	grep -Eq "^$majmin +$bdev +$uuid .* rw +$NOVA_MNT\$" "$tmp/m2.out"

# Every way of naming the file system reaches the same one.
mkdir -p "$NOVA_MNT/sub" && echo x > "$NOVA_MNT/sub/f"
for name in "$NOVA_MNT" "$NOVA_MNT/sub/f" "$NOVA_PMEM" "$majmin" "$uuid" "uuid=$uuid"; do
	run byname novactl -j stats "$name"
	t_is "stats $name: same file system" \
		"$(rc byname):$(jget "$(out byname)" '[f["dev"] for f in d["filesystems"]]')" "0:[$dev]"
done
run m3 novactl -j stats
t_ok "stats JSON follows the schema" python3 "$J" stats "$tmp/m3.out"
t_is "stats dump covers the mounted fs" \
	"$(jget "$(out m3)" '[f["uuid"] for f in d["filesystems"]]')" "['$uuid']"
run m4 "${NOBODY[@]}" novactl -j stats "$NOVA_MNT"
t_is "nobody: stats of the mounted fs" "$(rc m4)" 0

st=$(out m3)
sv() { jget "$st" "d['filesystems'][0]['$1']"; }
t_is "block size is 4096" "$(sv block_size)" 4096
t_ok "at least one CPU stripe" test "$(sv cpus)" -ge 1
t_ok "free blocks <= total blocks" test "$(sv blocks_free)" -le "$(sv blocks_total)"
t_ok "free inodes <= total inodes" test "$(sv inodes_free)" -le "$(sv inodes_total)"
t_is "format version agrees with fs list" "$(sv format_version)" \
	"$(jget "$fl" 'd["filesystems"][0]["format_version"]')"
t_is "every counted operation is reported" \
	"$(jget "$st" 'sorted(o["name"] for o in d["filesystems"][0]["operations"])')" \
	"['create', 'fault', 'fsync', 'link', 'lookup', 'mkdir', 'read', 'readdir', 'rename', 'rmdir', 'setattr', 'symlink', 'unlink', 'write']"

run h1 novactl stats "$NOVA_MNT"
t_ok "human stats: 'Key: value' lines, values in one column" python3 - "$tmp/h1.out" <<'EOF'
import re, sys
cols = set()
for line in open(sys.argv[1]):
    m = re.match(r"^  ([A-Z][\w -]*):( +)\S", line)
    if m:
        cols.add(len(m.group(1)) + len(m.group(2)))
sys.exit(0 if len(cols) == 1 else "value columns: %s" % sorted(cols))
EOF
t_ok "human stats: names the device and mount point" \
	sh -c "grep -q '^$bdev ($majmin)' '$tmp/h1.out' && grep -q 'Mounted on: *$NOVA_MNT\$' '$tmp/h1.out'"

# statfs(2) and the allocator must tell the same story on a quiet fs
# (df shows the same numbers as statfs).
statfs_check() {	# LABEL
	local s
	sync
	s=$(novactl -j stats "$NOVA_MNT")
	python3 - "$s" "$NOVA_MNT" <<'EOF'
import json, os, sys
f = json.loads(sys.argv[1])["filesystems"][0]
v = os.statvfs(sys.argv[2])
# Free space must be the same number; the allocator may manage fewer
# blocks than the device has (superblock, tables), never more.
if (f["block_size"], f["blocks_free"]) != (v.f_bsize, v.f_bfree):
    sys.exit("block size, free blocks: nova stats %s, statfs %s" %
             ((f["block_size"], f["blocks_free"]), (v.f_bsize, v.f_bfree)))
if not 0 < f["blocks_total"] <= v.f_blocks:
    sys.exit("blocks_total %d, statfs f_blocks %d" % (f["blocks_total"], v.f_blocks))
EOF
}
t_ok "stats agree with statfs (fresh fs)" statfs_check

# Operation counters move with the operations.
ops() {	# print "name count time_ns" lines
	novactl -j stats "$NOVA_MNT" | python3 -c '
import json, sys
f = json.load(sys.stdin)["filesystems"][0]
for o in f["operations"]:
    print(o["name"], o["count"], o["time_ns"])
print("_blocks_free", f["blocks_free"], 0)
print("_inodes_free", f["inodes_free"], 0)
print("_data_pages", f["data_pages"], 0)'
}
ops > "$tmp/ops0"
touch "$NOVA_MNT/created"
mkdir "$NOVA_MNT/dir"
dd if=/dev/urandom of="$NOVA_MNT/data" bs=64k count=16 conv=fsync status=none
cat "$NOVA_MNT/data" > /dev/null
ls -l "$NOVA_MNT" > /dev/null
ls "$NOVA_MNT/dir" "$NOVA_MNT/no-such" > /dev/null 2>&1
mv "$NOVA_MNT/created" "$NOVA_MNT/dir/moved"
ln "$NOVA_MNT/data" "$NOVA_MNT/hard"
ln -s data "$NOVA_MNT/soft"
chmod 600 "$NOVA_MNT/data"
python3 -c '
import mmap, sys
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 8192)
    m[0] = m[4096] ^ 1
    m.close()' "$NOVA_MNT/data"
ops > "$tmp/ops1"
sync
t_ok "stats agree with statfs (after writing 1 MiB)" statfs_check
rm "$NOVA_MNT/hard" "$NOVA_MNT/dir/moved"
rmdir "$NOVA_MNT/sub" 2>/dev/null || { rm "$NOVA_MNT/sub/f"; rmdir "$NOVA_MNT/sub"; }
ops > "$tmp/ops2"

delta() {	# FILE-A FILE-B NAME FIELD(2 count, 3 time): B - A
	local a b
	a=$(awk -v n="$3" -v f="$4" '$1 == n { print $f }' "$1")
	b=$(awk -v n="$3" -v f="$4" '$1 == n { print $f }' "$2")
	echo $(( b - a ))
}
for op in create mkdir write fsync read readdir lookup rename link symlink setattr fault; do
	t_ok "op '$op' counted" test "$(delta "$tmp/ops0" "$tmp/ops1" "$op" 2)" -ge 1
done
t_ok "op 'write' timed" test "$(delta "$tmp/ops0" "$tmp/ops1" write 3)" -gt 0
t_ok "op 'read' timed" test "$(delta "$tmp/ops0" "$tmp/ops1" read 3)" -gt 0
t_ok "op 'unlink' counted" test "$(delta "$tmp/ops1" "$tmp/ops2" unlink 2)" -ge 2
t_ok "op 'rmdir' counted" test "$(delta "$tmp/ops1" "$tmp/ops2" rmdir 2)" -ge 1
t_ok "1 MiB written: >= 256 fewer free blocks" \
	test "$(delta "$tmp/ops1" "$tmp/ops0" _blocks_free 2)" -ge 256
t_ok "1 MiB written: >= 256 more data pages" \
	test "$(delta "$tmp/ops0" "$tmp/ops1" _data_pages 2)" -ge 256
t_ok "new files and directories use inodes" \
	test "$(delta "$tmp/ops1" "$tmp/ops0" _inodes_free 2)" -ge 3
t_ok "counters never go backwards" awk '
	NR == FNR { a[$1] = $2; next }
	$1 !~ /^_/ && $2 < a[$1] { print $1; bad = 1 }
	END { exit bad }' "$tmp/ops1" "$tmp/ops2"

# Operation times are nanoseconds (the module may count TSC cycles and
# convert them when read): one 32 MiB write(2) timed by the caller's
# CLOCK_MONOTONIC against the write time it added.
ops > "$tmp/ops3"
wall=$(python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
buf = bytes(32 << 20)
t = time.monotonic_ns()
os.write(fd, buf)
print(time.monotonic_ns() - t)
os.close(fd)' "$NOVA_MNT/timed")
ops > "$tmp/ops4"
wt=$(delta "$tmp/ops3" "$tmp/ops4" write 3)
t_diag "32 MiB write: $wt ns counted, $wall ns measured by the caller"
t_ok "op 'write' time is in ns (within 60-102 % of the caller's)" \
	test $((wt * 100)) -le $((wall * 102)) -a $((wt * 100)) -ge $((wall * 60))
rm -f "$NOVA_MNT/timed"

# Read-only state follows remounts.
if mount -o remount,ro "$NOVA_MNT" 2> "$tmp/ro.err"; then
	t_is "stats: read-only after remount,ro" \
		"$(novactl -j stats "$NOVA_MNT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["filesystems"][0]["read_only"])')" True
	t_is "fs list: read-only after remount,ro" \
		"$(novactl -j fs list | python3 -c 'import json,sys; print(json.load(sys.stdin)["filesystems"][0]["read_only"])')" True
	mount -o remount,rw "$NOVA_MNT"
	t_is "stats: read-write again" \
		"$(novactl -j stats "$NOVA_MNT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["filesystems"][0]["read_only"])')" False
else
	t_fail "remount,ro works" cat "$tmp/ro.err"
fi

sum_before=$(md5sum < "$NOVA_MNT/data")

# Events: unmount and mount again while two monitors listen.
novactl -j monitor --count 2 > "$tmp/mon.out" 2> "$tmp/mon.err" &
mon_pid=$!
"${NOBODY[@]}" novactl monitor --count 2 > "$tmp/mon2.out" 2> "$tmp/mon2.err" &
mon2_pid=$!
t_ok "monitor subscribes" wait_for 20 grep -q Monitoring "$tmp/mon.err"
t_ok "monitor as nobody subscribes" wait_for 20 grep -q Monitoring "$tmp/mon2.err"
t_ok "unmount" nova_umount
run a1 novactl -j stats "$majmin"
t_is "stats after unmount: ENODEV" "$(jget "$(out a1)" 'd["error"]["name"]')" ENODEV
t_is "fs list after unmount: empty" "$(novactl fs list)" ""
t_ok "mount again" nova_mount
t_ok "monitor saw two events and exited" sh -c "
	for i in \$(seq 300); do kill -0 $mon_pid 2>/dev/null || exit 0; sleep 0.1; done; exit 1"
wait "$mon_pid"
t_is "monitor exit status" "$?" 0
mon_pid=
t_ok "monitor JSON lines follow the schema" python3 "$J" event "$tmp/mon.out"
t_is "events in order, for this device" \
	"$(python3 -c '
import json, sys
print([(e["event"], e["dev"], e["uuid"]) for e in map(json.loads, open(sys.argv[1]))])' "$tmp/mon.out")" \
	"[('fs-unmounted', $dev, '$uuid'), ('fs-mounted', $dev, '$uuid')]"
for ((i = 0; i < 100; i++)); do kill -0 "$mon2_pid" 2>/dev/null || break; sleep 0.1; done
t_ok "human monitor (nobody) printed both events" sh -c "
	grep -q ' fs-unmounted *$majmin $bdev uuid $uuid' '$tmp/mon2.out' &&
	grep -q ' fs-mounted *$majmin $bdev uuid $uuid' '$tmp/mon2.out'"
kill "$mon2_pid" 2>/dev/null

run r1 novactl -j stats "$NOVA_MNT"
t_is "clean remount: not recovered" "$(jget "$(out r1)" 'd["filesystems"][0]["recovered"]')" False
t_ok "clean remount: mount time measured" test "$(jget "$(out r1)" 'd["filesystems"][0]["mount_time_ns"]')" -gt 0
t_is "data survived the remount" "$(md5sum < "$NOVA_MNT/data")" "$sum_before"
t_ok "stats agree with statfs (after remount)" statfs_check

# Queries racing with mounts and unmounts: a dump always succeeds, a
# query for the device succeeds or says ENODEV, nothing else (and the
# kernel log stays clean, which the harness checks).
race_queries() {	# until $tmp/race.stop exists
	local r
	while [ ! -e "$tmp/race.stop" ]; do
		novactl -j stats > "$tmp/race.dump" 2>&1
		r=$?
		[ "$r" = 0 ] || { echo "dump rc $r: $(cat "$tmp/race.dump")"; }
		novactl -j stats "$majmin" > "$tmp/race.one" 2>&1
		r=$?
		case $r in
		0) ;;
		1) grep -q '"ENODEV"' "$tmp/race.one" || echo "one: $(cat "$tmp/race.one")" ;;
		*) echo "one rc $r: $(cat "$tmp/race.one")" ;;
		esac
		novactl -j fs list > "$tmp/race.list" 2>&1 || echo "list: $(cat "$tmp/race.list")"
	done > "$tmp/race.bad"
}
race_queries &
race_pid=$!
cycles=0
for ((i = 0; i < 15; i++)); do
	nova_umount && nova_mount && cycles=$((cycles + 1))
done
touch "$tmp/race.stop"
wait "$race_pid"
t_is "15 unmount/mount cycles under concurrent queries" "$cycles" 15
t_is "racing queries: only success or ENODEV" "$(head -n 5 "$tmp/race.bad")" ""
t_is "after the cycles: one file system, same UUID" \
	"$(novactl -j fs list | python3 -c 'import json,sys; print([f["uuid"] for f in json.load(sys.stdin)["filesystems"]])')" "['$uuid']"
nova_umount
t_is "fs list after the final unmount: empty" "$(novactl fs list)" ""
t_done

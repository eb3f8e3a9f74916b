#!/bin/bash
# The benchmark code cannot rot: nova-bench-meta and bench/results.py run on
# tiny sizes on ext4-dax and produce well-formed records and reports. No
# figure is judged here: benchmarks are 'make bench', not 'make test'.
# nova-timeout: 120
. "$NOVA_TOP/tests/guest/lib.sh"

R=$NOVA_TOP/bench/results.py
w=$(mktemp -d)
mnt=$NOVA_MNT
recs=$w/records.jsonl

# ok when every line of FILE is a JSON object with the given keys
json_lines_have() {	# FILE KEY...
	python3 - "$@" <<'EOF'
import json, sys
path, keys = sys.argv[1], sys.argv[2:]
lines = [l for l in open(path) if l.strip()]
assert lines, "no output"
for l in lines:
    d = json.loads(l)
    missing = [k for k in keys if k not in d]
    assert not missing, "%r lacks %s" % (d, missing)
EOF
}

t_ok "nova-bench-meta is built and on PATH" command -v nova-bench-meta
mkdir -p "$mnt"
t_ok "mkfs.ext4 on $NOVA_PMEM" mkfs.ext4 -F -q "$NOVA_PMEM"
t_ok "mount ext4 -o dax" mount -t ext4 -o dax "$NOVA_PMEM" "$mnt"
t_ok "the mount is DAX" grep -qE "^$NOVA_PMEM $mnt ext4 .*dax" /proc/mounts

t_ok "driver: meta" sh -c "nova-bench-meta meta -D -n 50 -b 100 -r 2 $mnt > $w/meta.jsonl"
t_ok "driver: meta prints create, stat, rename, readdir, unlink" \
	test "$(python3 -c 'import json,sys; print(" ".join(json.loads(l)["workload"] for l in open(sys.argv[1])))' "$w/meta.jsonl")" \
	= "create stat rename readdir unlink"
t_ok "driver: meta output has ops, seconds, ops_per_sec" \
	json_lines_have "$w/meta.jsonl" workload ops seconds ops_per_sec
t_ok "driver: tree" sh -c "nova-bench-meta tree -d 3 -f 2 $mnt > $w/tree.jsonl"
t_is "driver: tree counts its directories" \
	"$(python3 -c 'import json,sys; print([json.loads(l)["ops"] for l in open(sys.argv[1])])' "$w/tree.jsonl")" \
	"[14, 14]"
t_ok "driver: fileserver" sh -c "nova-bench-meta fileserver -n 8 -t 1 -p 2 $mnt > $w/fs.jsonl"
t_ok "driver: varmail" sh -c "nova-bench-meta varmail -n 8 -t 1 $mnt > $w/vm.jsonl"
t_ok "driver: mixed output has procs and MiB/s" \
	json_lines_have "$w/fs.jsonl" workload ops ops_per_sec procs mib_per_sec
t_ok "driver: memcpy through a DAX mapping" sh -c "nova-bench-meta memcpy -S 4194304 -t 0 -p 2 $mnt > $w/mc.jsonl"
t_ok "driver: memcpy output has write and read MiB/s" \
	json_lines_have "$w/mc.jsonl" workload procs mib_per_sec
t_ok "driver: mmap random stores and loads through a mapping" \
	sh -c "nova-bench-meta mmap -S 8388608 -t 0 -l fresh $mnt > $w/mmap.jsonl"
t_ok "driver: mmap output has ns/op, faults and the PMD share" \
	json_lines_have "$w/mmap.jsonl" workload ops ns_op
t_is "driver: mmap names its rows after the state" \
	"$(python3 -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; print(d[0]["workload"], d[1]["workload"], d[0]["pages"], "faults" in d[0], 0 <= d[0]["pmd_share"] <= 100)' "$w/mmap.jsonl")" \
	"mmap-randwrite-4k-fresh mmap-randread-4k-fresh 2048 True True"
t_ok "age.py: two rounds of filling to 5 % and deleting half" \
	sh -c "python3 $NOVA_TOP/bench/age.py $mnt/age 2 0.05 > $w/age.txt"
t_is "age.py: says what each round kept" "$(grep -c '^round [01]: [0-9]* files kept' "$w/age.txt")" 2
rm -rf "$mnt/age"
t_is "driver: workloads clean up after themselves" "$(ls -A "$mnt" | grep -v lost+found)" ""
t_ok "driver: populate" sh -c "nova-bench-meta populate -n 30 -b 10 $mnt > $w/pop.jsonl"
t_is "driver: populate made its files" "$(find "$mnt/pop" -type f | wc -l)" 30
t_ok "umount" umount "$mnt"
t_ok "driver: mount/umount timing" \
	sh -c "nova-bench-meta mount -T ext4 -o dax -R 2 $NOVA_PMEM $mnt > $w/mount.jsonl"
t_ok "driver: mount output has mount_ms and umount_ms" \
	json_lines_have "$w/mount.jsonl" mount_ms umount_ms
t_fail "driver: mount of a missing device fails" \
	nova-bench-meta mount -T ext4 -R 1 /dev/nonexistent "$mnt"
t_fail "driver: unknown workload fails" nova-bench-meta frobnicate "$mnt"

mount -t ext4 -o dax "$NOVA_PMEM" "$mnt"
t_ok "fio: 4k randwrite, JSON" fio --name=data --directory="$mnt" --size=1M --bs=4k \
	--rw=randwrite --ioengine=psync --group_reporting --output-format=json \
	--output="$w/rw.json"
t_ok "fio: 4k append+fsync, JSON" fio --name=append --directory="$mnt" --size=256k --bs=4k \
	--rw=write --file_append=1 --fsync=1 --ioengine=psync --group_reporting \
	--output-format=json --output="$w/af.json"
umount "$mnt"

t_ok "parser: fio randwrite" sh -c "python3 $R fio --fs ext4-dax --workload randwrite-4k --jobs 1 $w/rw.json >> $recs"
t_ok "parser: fio append+fsync" sh -c "python3 $R fio --fs ext4-dax --workload append-fsync-4k --jobs 1 $w/af.json > $w/af.rec"
t_is "parser: append+fsync gives IOPS and write/fsync p50/p99" \
	"$(python3 -c 'import json,sys; print(" ".join(sorted(json.loads(l)["metric"] for l in open(sys.argv[1]))))' "$w/af.rec")" \
	"fsync_p50 fsync_p99 iops write_p50 write_p99"
cat "$w/af.rec" >> "$recs"
for f in meta tree fs vm mount; do
	t_ok "parser: driver output $f" sh -c "python3 $R driver --fs ext4-dax $w/$f.jsonl >> $recs"
done
t_ok "parser: memcpy ceiling" sh -c "python3 $R driver --fs memcpy $w/mc.jsonl > $w/mc.rec"
t_is "parser: memcpy gives seqwrite-2m and seqread-2m bandwidth" \
	"$(python3 -c 'import json,sys; print(" ".join("%s/%s/%d" % (d["workload"], d["metric"], d["jobs"]) for d in map(json.loads, open(sys.argv[1]))))' "$w/mc.rec")" \
	"seqwrite-2m/bw/2 seqread-2m/bw/2"
# A NOVA figure derived from the ext4 one, to exercise the ratio columns.
python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d = json.loads(l); d["fs"] = "nova"; d["value"] *= 2; print(json.dumps(d))' "$recs" > "$w/nova.rec"
cat "$w/nova.rec" "$w/mc.rec" >> "$recs"
t_ok "parser: n/a record" sh -c "python3 $R na --fs xfs-dax --workload '*' --reason 'not run in the smoke test' >> $recs"
t_ok "parser: records are well formed" python3 "$R" check --records "$recs"
t_fail "parser: a malformed record is rejected" \
	sh -c "echo '{\"fs\": \"x\"}' > $w/bad.jsonl; python3 $R check --records $w/bad.jsonl"
echo '{"mode": "smoke", "date": "today", "kernel": "'"$(uname -r)"'"}' > "$w/info.json"
t_ok "report: Markdown, JSON and plot data" python3 "$R" report --records "$recs" \
	--info "$w/info.json" --md "$w/r.md" --json "$w/r.json" --plot-data "$w/r.dat"
t_ok "report: JSON is well formed" python3 "$R" check --json "$w/r.json"
t_ok "report: Markdown has the table header" grep -q '^| workload | metric | NOVA |' "$w/r.md"
t_ok "report: the n/a reason is listed" grep -q 'not run in the smoke test' "$w/r.md"
t_ok "report: ratio NOVA/ext4-dax is 2.00x" grep -q '| randwrite-4k, 1 job | IOPS ↑ | .* | 2.00× |' "$w/r.md"
t_is "report: plot data has one line per row with a ratio" \
	"$(wc -l < "$w/r.dat")" "$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r["ratios"]))' "$w/r.json")"

rm -rf "$w"
t_done

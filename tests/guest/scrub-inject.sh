#!/bin/bash
# Scrub after injected corruption (novactl debug inject, nova.inject=1):
# each kind is detected by the scrub, repaired where the design can
# (data strip from parity, checksum copy and parity from the data,
# superblock copy from the other, log entry from its page's mirror),
# reported as unrecoverable with its inode where it cannot (a log entry
# or an inode slot with both copies damaged), counted, listed in the
# status and announced as a CORRUPTION event.
# nova-timeout: 600
# nova-expect-klog: nova \(pmem[0-9]+\): error: (scrub: inode|inode [0-9]+: bad)
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-protect.sh"
M=$NOVA_MNT
P=/sys/module/nova/parameters/inject
tmp=$(mktemp -d)

scrub() {	# a full new pass; its JSON on stdout
	novactl scrub start --restart --wait --json "$M"
}
verified() {	# strips verified since mount (STATS_GET protection nest)
	novactl stats --json "$M" | python3 -c "
import json, sys
print(json.load(sys.stdin)['filesystems'][0]['protection']['verified'])"
}
side_repaired() {	# KIND WHAT INO: pass $r found KIND (kernel log: WHAT)
	# of file INO page 0, repaired it, and did not call it data.
	t_ok "$1: detected and repaired" [ "$(sj "$r" errors)" -ge 1 -a "$(sj "$r" repaired)" -ge 1 -a "$(sj "$r" unrecoverable)" -eq 0 ]
	t_ok "$1: listed as $2, not as data" has_bad "$r" "$3" "$1" True
	t_fail "$1: no data finding" has_bad "$r" "$3" data True
	t_ok "$1: kernel log names the $2" sh -c "dmesg | grep -q 'scrub: inode $3: bad $2 at 0, repaired'"
	t_is "$1: the next pass is clean" "$(sj "$(scrub)" errors)" 0
}

t_ok "format and mount" nova_mount_init
head -c 65536 /dev/urandom > "$tmp/data"
for f in a b c d e; do cp "$tmp/data" "$M/$f"; done
sync

echo 0 > "$P"
t_fail "inject is refused without inject=1" inject data --ino "$(ino a)" --offset 0
echo 1 > "$P"

monitor_start "$tmp/mon"
t_is "the event monitor listens" "$?" 0

r=$(scrub)
t_is "clean before injection" "$(sj "$r" errors)" 0

# --- data strip: repaired from parity ---
t_ok "inject a data strip" inject data --ino "$(ino a)" --offset 5000
v0=$(verified)
r=$(scrub)
t_is "data: scrub exits 0 (repaired)" "$?" 0
v1=$(verified)
# Every data block once, the damaged one too (8 strips a block).
t_is "data: each block verified once ($(sj "$r" data_checked) blocks)" "$((v1 - v0))" "$((8 * $(sj "$r" data_checked)))"
t_is "data: one bad strip found" "$(sj "$r" errors)" 1
# The strip only: both checksum copies of it were right.
t_is "data: one object rewritten" "$(sj "$r" repaired)" 1
t_is "data: nothing unrecoverable" "$(sj "$r" unrecoverable)" 0
t_ok "data: listed with its inode" has_bad "$r" "$(ino a)" data True
t_ok "data: content intact" cmp "$tmp/data" "$M/a"
t_is "data: the next pass is clean" "$(sj "$(scrub)" errors)" 0

# --- checksum copy and parity ---
t_ok "inject a checksum replica" inject csum --ino "$(ino b)" --offset 0 --copy 1
r=$(scrub)
side_repaired csum "data checksum" "$(ino b)"
t_ok "inject a parity strip" inject parity --ino "$(ino c)" --offset 0
r=$(scrub)
side_repaired parity parity "$(ino c)"
t_ok "data after csum/parity repair intact" sh -c "cmp '$tmp/data' '$M/b' && cmp '$tmp/data' '$M/c'"

# --- superblock replica: rewritten from the DRAM copy ---
t_ok "inject the superblock replica" inject super --offset 100 --copy 1
r=$(scrub)
t_ok "super: detected and repaired" has_bad "$r" 0 super True
t_is "super: the next pass is clean" "$(sj "$(scrub)" errors)" 0

# --- log entry: repaired from the mirror (format 1.4) ---
t_ok "inject a log entry" inject log-entry --ino "$(ino d)" --offset 0
r=$(scrub)
t_is "log entry: scrub --wait exits 0 (repaired)" "$?" 0
t_ok "log entry: listed with its inode, repaired" has_bad "$r" "$(ino d)" log-entry True
t_is "log entry: the next pass is clean" "$(sj "$(scrub)" errors)" 0
t_ok "log entry: content intact" cmp "$tmp/data" "$M/d"

# --- metadata with both copies damaged: reported, not repairable ---
t_ok "inject a log entry" inject log-entry --ino "$(ino d)" --offset 0
t_ok "and its mirror" inject log-entry --ino "$(ino d)" --offset 0 --copy 1
r=$(scrub)
t_is "log entry: scrub --wait exits 1 (unrecoverable)" "$?" 1
t_ok "log entry: listed with its inode, not repaired" has_bad "$r" "$(ino d)" log-entry False
novactl scrub status "$M" > /dev/null
t_is "scrub status exits 1 after unrecoverable damage" "$?" 1
t_ok "inject an inode slot" inject inode --ino "$(ino e)" --offset 200
# and its replica (format 1.3), so that it is beyond repair
t_ok "inject its replica" inject inode --ino "$(ino e)" --offset 200 --copy 1
r=$(scrub)
t_ok "inode: listed with its inode, not repaired" has_bad "$r" "$(ino e)" inode False
t_ok "inode: at least two unrecoverable now" [ "$(sj "$r" unrecoverable)" -ge 2 ]

s=$(novactl stats --json "$M")
t_ok "stats count the scrub findings" python3 -c '
import json, sys
s = json.loads(sys.argv[1])["filesystems"][0]["scrub"]
assert s["passes"] >= 12 and s["errors"] >= 7 and s["unrecoverable"] >= 2, s
' "$s"

sleep 0.5
kill "$mon"
wait "$mon" 2> /dev/null
t_ok "CORRUPTION events: data, csum, parity, super, log entry (twice), inode" python3 - "$tmp/mon" "$(ino a)" "$(ino d)" "$(ino e)" "$(ino b)" "$(ino c)" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
c = [e["corruption"] for e in ev if e["event"] == "corruption"]
a, d, e, b, cc = (int(x) for x in sys.argv[2:7])
need = [(a, "data", True), (0, "super", True), (d, "log-entry", False),
        (d, "log-entry", True),
        (e, "inode", False), (b, "csum", True), (cc, "parity", True)]
wrong = {(b, "data", True), (cc, "data", True)} & \
    {(x["inode"], x["kind"], x["repaired"]) for x in c}
if wrong:
    sys.exit("csum/parity damage reported as data: %s" % sorted(wrong))
got = {(x["inode"], x["kind"], x["repaired"]) for x in c}
missing = [n for n in need if n not in got]
fin = [e for e in ev if e["event"] == "scrub-finished"]
if missing or len(fin) < 12:
    sys.exit("missing %s, %d scrub-finished; got %s" % (missing, len(fin), sorted(got)))
EOF

echo 0 > "$P"
t_ok "unmount" nova_umount
rm -rf "$tmp"
t_done

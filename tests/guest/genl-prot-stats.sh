#!/bin/bash
# Data protection in STATS_GET (NOVA_STATS_A_PROTECTION) through
# 'novactl stats': the features (checksums, parity, read verification)
# for each way of choosing them, and the counters moving exactly as the
# reads that verify, repair and fail say they must after an injected
# fault (novactl debug inject, nova.inject=1).
# nova-timeout: 300
# nova-expect-klog: nova \(pmem[0-9]+\): error: inode [0-9]+ offset [0-9]+: unrecoverable data corruption
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
J=$NOVA_TOP/tests/guest/genl-json-check.py
P=/sys/module/nova/parameters/inject
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; echo 0 > "$P"; [ -n "${mon:-}" ] && kill "$mon" 2> /dev/null' EXIT

prot() {	# FIELD of the protection object of 'novactl stats --json'
	novactl stats --json "$M" | python3 -c "
import json, sys
v = json.load(sys.stdin)['filesystems'][0]['protection']['$1']
print(str(v).lower())"
}
features() {
	echo "$(prot csum) $(prot parity) $(prot verify)"
}
counters() {
	echo "$(prot verified) $(prot repaired) $(prot unrecoverable)"
}
moved() {	# BEFORE AFTER: the difference of two 'counters' lines
	set -- $1 $2
	echo "$(($4 - $1)) $(($5 - $2)) $(($6 - $3))"
}
readpage() {	# FILE PAGE: one read(2) of that page into $tmp/got
	dd if="$1" of="$tmp/got" bs=4096 skip="$2" count=1 status=none
}

# --- features, for each way of choosing them ---
t_ok "format and mount (default protection)" nova_mount_init
t_is "default: checksums, parity, verify" "$(features)" "true true true"
t_is "counters start at zero" "$(counters)" "0 0 0"
novactl stats --json "$M" > "$tmp/s.json"
t_ok "stats JSON matches the schema" python3 "$J" stats "$tmp/s.json"
novactl stats "$M" > "$tmp/s.txt"
t_ok "human output shows the features" grep -q "Protection: *checksums on, parity on, verify on" "$tmp/s.txt"
t_ok "human output shows the counters" grep -q "Data verified: *0 strips, 0 repaired, 0 pages unrecoverable" "$tmp/s.txt"
t_ok "remount with verify=off" nova_remount verify=off
t_is "verify=off: features" "$(features)" "true true false"
t_ok "unmount" nova_umount
t_ok "mkfs.NOVA -p csum" mkfs.NOVA -q -f -p csum "$NOVA_PMEM"
t_ok "mount it" nova_mount
t_is "protection=csum: features" "$(features)" "true false true"
t_ok "unmount" nova_umount
t_ok "format with mount -o init,protection=off" nova_mount_init protection=off
t_is "protection=off: features" "$(features)" "false false false"
novactl stats "$M" > "$tmp/s.txt"
t_ok "human output: all off" grep -q "Protection: *checksums off, parity off, verify off" "$tmp/s.txt"
t_ok "unmount" nova_umount

# --- counters ---
t_ok "format and mount" nova_mount_init
head -c 8192 /dev/urandom > "$tmp/data"
cp "$tmp/data" "$M/f"
sync
ino=$(stat -c %i "$M/f")
echo 1 > "$P"

monitor_start "$tmp/mon"
t_is "the event monitor listens" "$?" 0
c0=$(counters)
readpage "$M/f" 0
t_ok "a clean page reads back" cmp -n 4096 "$tmp/data" "$tmp/got"
c1=$(counters)
t_is "a clean read: 8 strips verified, nothing repaired" "$(moved "$c0" "$c1")" "8 0 0"

t_ok "inject one data strip of page 0" novactl debug inject data --ino "$ino" --offset 700 "$M"
readpage "$M/f" 0
t_ok "the damaged page reads back right" cmp -n 4096 "$tmp/data" "$tmp/got"
c2=$(counters)
# The strip is rebuilt from parity and rewritten; both checksum copies of
# it were right and are left alone: 1 write.
t_is "a repairing read: 8 verified, the strip rewritten" "$(moved "$c1" "$c2")" "8 1 0"
readpage "$M/f" 0
c3=$(counters)
t_is "the next read finds it repaired" "$(moved "$c2" "$c3")" "8 0 0"

t_ok "inject a second strip of page 1" novactl debug inject data --ino "$ino" --offset 4196 "$M"
t_ok "... and another one of page 1" novactl debug inject data --ino "$ino" --offset 8000 "$M"
t_errno "two bad strips: EIO" EIO pread_file "$M/f" 4096 4096
c4=$(counters)
t_is "an unrepairable read: 8 verified, 1 page unrecoverable" "$(moved "$c3" "$c4")" "8 0 1"
readpage "$M/f" 0
t_ok "the other page stays readable" cmp -n 4096 "$tmp/data" "$tmp/got"


# Readers announce what they find: one CORRUPTION event per damaged page
# read (the repaired page 0, the lost page 1), none for clean reads.
sleep 0.5
kill "$mon"
wait "$mon" 2> /dev/null
mon=
t_ok "readers sent CORRUPTION events: page 0 repaired, page 1 not" python3 - "$tmp/mon" "$ino" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = sorted((e["corruption"]["inode"], e["corruption"]["kind"],
              e["corruption"]["offset"], e["corruption"]["repaired"])
             for e in ev if e["event"] == "corruption")
ino = int(sys.argv[2])
want = [(ino, "data", 0, True), (ino, "data", 4096, False)]
if got != want:
    sys.exit("events %s, want %s" % (got, want))
EOF

echo 0 > "$P"
t_ok "unmount" nova_umount
t_done

#!/bin/bash
# CORRUPTION notifications are rate-limited per file system: a scrub that
# finds hundreds of bad parity strips sends at most
# NOVA_GENL_CORRUPTION_BURST (16) per second; the rest are counted in the
# scrub status (events_suppressed, also in SCRUB_FINISHED) and carried by
# the next notification sent (suppressed), so that events received plus
# suppressed equals the findings, exactly.
# nova-timeout: 600
# nova-expect-klog: nova \(pmem[0-9]+\): error: scrub: inode [0-9]+: bad
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
P=/sys/module/nova/parameters/inject
C=$NOVA_TOP/tests/guest/genl-client.py
PAGES=400
BURST=16
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; echo 0 > "$P"; [ -n "${mon:-}" ] && kill "$mon" 2> /dev/null' EXIT

sj() {	# FIELD of the "scrub" object of document $1
	python3 -c "import json, sys; print(json.loads(sys.argv[1])['scrub']['$2'])" "$1"
}

t_ok "format and mount" nova_mount_init
head -c $((PAGES * 4096)) /dev/urandom > "$tmp/data"
cp "$tmp/data" "$M/f"
sync
ino=$(stat -c %i "$M/f")
dev=$(stat -c %d "$M")
echo 1 > "$P"

monitor_start "$tmp/mon"
t_is "the event monitor listens" "$?" 0

t_ok "damage the parity of all $PAGES pages" python3 "$C" inject-pages "$dev" "$ino" 7 "$PAGES"
r=$(novactl scrub start --restart --wait --json "$M")
t_is "scrub: every page found" "$(sj "$r" errors)" "$PAGES"
t_is "scrub: every parity strip repaired" "$(sj "$r" repaired)" "$PAGES"
sup=$(sj "$r" events_suppressed)
t_ok "scrub: events were suppressed ($sup)" [ "$sup" -gt 0 ]
t_ok "the file reads back intact" cmp "$tmp/data" "$M/f"

# The next finding after the window: its event carries the remainder.
sleep 1.2
t_ok "damage one data strip" novactl debug inject data --ino "$ino" --offset 0 "$M"
r2=$(novactl scrub start --restart --wait --json "$M")
t_is "second scrub: one finding" "$(sj "$r2" errors)" 1
t_is "second scrub: nothing suppressed" "$(sj "$r2" events_suppressed)" 0
t_ok "the file reads back intact" cmp "$tmp/data" "$M/f"
sleep 1
kill "$mon"
wait "$mon" 2> /dev/null
mon=

t_ok "events + suppressed = findings, at most $BURST a second" python3 - "$tmp/mon" "$r" "$PAGES" "$BURST" "$ino" <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = json.loads(sys.argv[2])["scrub"]
pages, burst, ino = (int(x) for x in sys.argv[3:6])
c = [e for e in ev if e["event"] == "corruption"]
scrub = [e for e in c if e["corruption"]["kind"] == "parity"]
later = [e for e in c if e["corruption"]["kind"] == "data"]
fin = [e for e in ev if e["event"] == "scrub-finished"]
secs = (r["finish_ns"] - r["start_ns"]) / 1e9
err = []
if len(scrub) + r["events_suppressed"] != pages:
    err.append("%d events + %d suppressed != %d" %
               (len(scrub), r["events_suppressed"], pages))
if len(scrub) > burst * (int(secs) + 2):
    err.append("%d events in %.1f s" % (len(scrub), secs))
if len(scrub) < burst:
    err.append("only %d events" % len(scrub))
if len(later) != 1 or later[0]["corruption"]["inode"] != ino:
    err.append("second pass events: %s" % later)
total = sum(e["suppressed"] for e in c)
if total != r["events_suppressed"]:
    err.append("suppressed carried by events %d != %d" %
               (total, r["events_suppressed"]))
if later and later[0]["suppressed"] == 0 and r["events_suppressed"]:
    err.append("the next event carries no remainder")
if len(fin) != 2 or fin[0]["scrub"]["events_suppressed"] != r["events_suppressed"]:
    err.append("scrub-finished: %s" % [f["scrub"]["events_suppressed"] for f in fin])
sys.exit("; ".join(err) if err else 0)
EOF

echo 0 > "$P"
t_ok "unmount" nova_umount
t_done

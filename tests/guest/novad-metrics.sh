#!/bin/bash
# novad's Prometheus metrics under systemd, for alerting (issue 23):
# the textfile and the HTTP output pass `promtool check metrics`, carry
# the scrub, protection, bad-block, GC and snapshot-reclaim series with
# HELP/TYPE, the scrub state as a state set, and the corruption counters
# move after an injected fault (scrub repairs it: nova_scrub_errors_total,
# nova_scrub_repaired_total, nova_protection_repaired_total,
# nova_corruption_events_total; damage that cannot be repaired:
# nova_scrub_unrecoverable_total). docs/alerts/nova.rules.yml passes
# `promtool check rules` and its unit tests (`promtool test rules`).
# nova-guest-args: --systemd
# nova-timeout: 300
# nova-expect-klog: nova \(pmem[0-9]+\): error: (scrub: inode|inode [0-9]+: bad)
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-novad.sh"

CONF=/etc/nova/novad.conf
M=$NOVA_MNT
PROM_DIR=/var/lib/prometheus/node-exporter
PROM=$PROM_DIR/nova.prom
DROPIN=/run/systemd/system/novad.service.d
PORT=9471
RULES=$NOVA_TOP/docs/alerts/nova.rules.yml

ino() { stat -c %i "$M/$1"; }
inject() { novactl debug inject "$@" "$M" > /dev/null; }
scrape() {
	python3 -c 'import urllib.request, sys; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:'$PORT'/metrics", timeout=5).read().decode())'
}
# value METRIC [EXTRA_LABEL_RE]: the sample of the file system on $M.
value() {
	awk -v m="$1" -v x="${2:-}" -v mp="mountpoint=\"$M\"" '
		index($0, m "{") == 1 && index($0, mp) && (x == "" || $0 ~ x) { print $NF; exit }' "$PROM"
}
value_is() { [ "$(value "$1")" = "$2" ]; }
at_least() { local v; v=$(value "$1"); [ -n "$v" ] && [ "$v" -ge "$2" ]; }

cleanup() {
	systemctl stop novad 2>/dev/null
	rm -f "$DROPIN/60-http.conf" "$CONF"
	systemctl daemon-reload
	echo 0 > /sys/module/nova/parameters/inject
}
trap cleanup EXIT

t_ok "promtool is on PATH (copied from the host's prometheus package)" command -v promtool
t_ok "promtool check rules docs/alerts/nova.rules.yml" promtool check rules "$RULES"
t_ok "promtool test rules: the example rules fire when they should" \
	promtool test rules "$NOVA_TOP/docs/alerts/nova.rules.test.yml"

t_ok "install novad" env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local "$NOVA_TOP/mk/install.sh" install novad
mkdir -p "$PROM_DIR" "$DROPIN"
printf '[Service]\nRestrictAddressFamilies=AF_INET AF_INET6\n' > "$DROPIN/60-http.conf"
systemctl daemon-reload

echo 1 > /sys/module/nova/parameters/inject
t_ok "format and mount" nova_mount_init
head -c 262144 /dev/urandom > /tmp/data
for f in a b c; do cp /tmp/data "$M/$f"; done
sync
printf '%s\n' "[global]" "stats_interval = 1s" "textfile = $PROM" \
	"http_listen = 127.0.0.1:$PORT" "" "[default]" "snapshots = no" > "$CONF"
rm -f "$PROM" /var/lib/novad/state
t_ok "systemctl start novad" systemctl start novad
t_ok "the textfile has the file system" wait_for 20 sh -c "grep -q 'mountpoint=\"$M\"' $PROM"

# ---- the output is valid and complete ----
t_ok "promtool check metrics: textfile" sh -c "promtool check metrics < $PROM"
t_ok "GET /metrics answers" wait_for 10 scrape
t_ok "promtool check metrics: HTTP" bash -c "$(declare -f scrape); PORT=$PORT; scrape | promtool check metrics"
for m in nova_scrub_passes_total nova_scrub_bytes_total nova_scrub_errors_total \
	 nova_scrub_repaired_total nova_scrub_unrecoverable_total \
	 nova_protection_verified_total nova_protection_repaired_total \
	 nova_protection_unrecoverable_total nova_corruption_events_total \
	 nova_gc_fast_pages_total nova_gc_thorough_runs_total nova_gc_seconds_total \
	 nova_snapshot_reclaimed_blocks_total; do
	t_ok "$m is a counter with HELP" sh -c "grep -qx '# TYPE $m counter' $PROM && grep -q '^# HELP $m ' $PROM"
done
for m in nova_scrub_state nova_protection_checksums nova_protection_parity \
	 nova_protection_verify nova_badblocks nova_badblocks_lost \
	 nova_snapshot_reclaim_pending_blocks; do
	t_ok "$m is a gauge with HELP" sh -c "grep -qx '# TYPE $m gauge' $PROM && grep -q '^# HELP $m ' $PROM"
done
t_is "format 1.4 keeps checksums" "$(value nova_protection_checksums)" 1
t_is "... and parity" "$(value nova_protection_parity)" 1
t_is "reads are verified" "$(value nova_protection_verify)" 1
t_is "scrub state: idle" "$(value nova_scrub_state 'state="idle"')" 1
t_is "not running" "$(value nova_scrub_state 'state="running"')" 0
t_is "no corruption yet (events)" "$(value nova_corruption_events_total)" 0
t_is "no corruption yet (scrub)" "$(value nova_scrub_errors_total)" 0
t_is "no bad blocks listed" "$(value nova_badblocks)" 0
cat "$M/a" "$M/b" > /dev/null
t_ok "verified reads are counted" wait_for 10 at_least nova_protection_verified_total 1

# ---- an injected fault: the counters move ----
t_ok "inject a bad data strip into a" inject data --ino "$(ino a)" --offset 5000
t_ok "novactl scrub start --wait" sh -c "novactl scrub start --wait $M > /dev/null"
t_ok "nova_scrub_errors_total becomes 1" wait_for 10 value_is nova_scrub_errors_total 1
t_is "nova_scrub_repaired_total" "$(value nova_scrub_repaired_total)" 1
t_is "nova_scrub_unrecoverable_total still 0" "$(value nova_scrub_unrecoverable_total)" 0
t_ok "nova_protection_repaired_total moved" at_least nova_protection_repaired_total 1
t_ok "nova_corruption_events_total moved (novad got the notification)" \
	wait_for 10 at_least nova_corruption_events_total 1
t_is "nova_scrub_passes_total" "$(value nova_scrub_passes_total)" 1
t_ok "nova_scrub_bytes_total counts what it read" at_least nova_scrub_bytes_total 786432
t_is "scrub state: finished" "$(value nova_scrub_state 'state="finished"')" 1
t_ok "still valid for promtool" sh -c "promtool check metrics < $PROM"
ev1=$(value nova_corruption_events_total)

t_ok "inject a log entry of c and its mirror (beyond repair)" \
	sh -c "novactl debug inject log-entry --ino $(ino c) --offset 0 $M >/dev/null &&
	       novactl debug inject log-entry --ino $(ino c) --offset 0 --copy 1 $M >/dev/null"
novactl scrub start --restart --wait "$M" > /dev/null 2>&1
t_is "scrub again: exit 1 (damage it could not repair)" "$?" 1
t_ok "nova_scrub_unrecoverable_total becomes 1" wait_for 10 value_is nova_scrub_unrecoverable_total 1
t_ok "nova_corruption_events_total moved again" \
	wait_for 10 at_least nova_corruption_events_total $((ev1 + 1))
t_ok "promtool check metrics after the faults" sh -c "promtool check metrics < $PROM"

t_ok "umount" nova_umount
t_done

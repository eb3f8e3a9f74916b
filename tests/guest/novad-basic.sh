#!/bin/bash
# novad under real systemd: install, enable --now, READY and STATUS=,
# textfile metrics, journal fields, reload (good and bad config), a bad
# config refused at start, the watchdog restarting a hung daemon, the
# HTTP export behind the unit's address-family sandbox, following a
# NOVA file system through mount and unmount, and snapshot jobs: taken
# when due, named PREFIX-YYYY-MM-DDTHHMMZ-PERIOD, retention that prunes
# only novad's own snapshots (at start, on SIGHUP, at the kernel's
# snapshot limit), a read-only mount skipped. Scrub jobs, corruption
# events and the frequently period: novad-scrub.sh.
# nova-guest-args: --systemd
# nova-timeout: 420
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-novad.sh"

CONF=/etc/nova/novad.conf
PROM_DIR=/var/lib/prometheus/node-exporter
PROM=$PROM_DIR/nova.prom
DROPIN=/run/systemd/system/novad.service.d

prop() { systemctl show -p "$1" --value novad; }

textfile_has() { grep -qxF -- "$1" "$PROM"; }

write_conf() {	# write_conf LINES...
	printf '%s\n' "$@" > "$CONF"
}

# ---- install and start ----
t_ok "install.sh copies novad, unit, man pages, example" \
	env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local "$NOVA_TOP/novad/install.sh"
t_ok "unit installed where systemd looks" test -f /usr/local/lib/systemd/system/novad.service
t_ok "example config installed as $CONF" grep -q '^\[default\]' "$CONF"
t_ok "installed example config is valid" /usr/local/sbin/novad --check-config
mkdir -p "$PROM_DIR"
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM" "" \
	"[default]" "snapshots = yes" "hourly = 2" "scrub_interval = 1d"
systemctl daemon-reload
t_ok "systemctl enable --now novad" systemctl enable --now novad
t_is "novad is active (READY=1 reached)" "$(systemctl is-active novad)" active
t_is "unit type is notify" "$(prop Type)" notify
t_is "watchdog configured" "$(prop WatchdogUSec)" 30s
t_ok "StateDirectory= created /var/lib/novad" test -d /var/lib/novad
status=$(prop StatusText)
t_diag "STATUS=$status"
t_ok "STATUS= says how many file systems it follows" grep -q 'following [0-9]* NOVA file system' <<< "$status"
t_ok "STATUS= says no snapshots are scheduled (no file system yet)" \
	grep -q 'snapshots: none scheduled;' <<< "$status"
t_fail "STATUS= does not call scrub unavailable (nova.ko has the commands)" grep -q 'scrub: unavailable' <<< "$status"
t_journal "journal: started, with MESSAGE_ID" MESSAGE_ID=$MID_STARTED "MESSAGE=~nova genl family"
t_fail "journal: snapshot jobs not reported unavailable" jmatch MESSAGE_ID=$MID_UNAVAILABLE NOVA_JOB=snapshot
t_fail "journal: scrub jobs not reported unavailable" jmatch MESSAGE_ID=$MID_UNAVAILABLE NOVA_JOB=scrub

# ---- metrics with no file system mounted ----
t_ok "textfile written" wait_for 10 test -s "$PROM"
t_ok "textfile: nova_filesystems 0" wait_for 10 textfile_has "nova_filesystems 0"
t_ok "textfile: TYPE line" textfile_has "# TYPE nova_filesystems gauge"
t_ok "textfile: collection timestamp" grep -q '^nova_stats_collected_timestamp_seconds [0-9]*$' "$PROM"
t_ok "textfile readable by others (node_exporter)" test "$(stat -c %a "$PROM")" = 644
t_fail "no temporary files left behind" compgen -G "$PROM.tmp.*"
t1=$(sed -n 's/^nova_stats_collected_timestamp_seconds //p' "$PROM")
sleep 3.5
t2=$(sed -n 's/^nova_stats_collected_timestamp_seconds //p' "$PROM")
t_ok "textfile refreshed every stats_interval ($t1 -> $t2)" test "${t2:-0}" -gt "${t1:-0}"

# ---- reload ----
mark_journal
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM_DIR/nova2.prom" \
	"corruption_hook = /nonexistent/nova-hook"
t_ok "systemctl reload with a valid config" systemctl reload novad
t_ok "reload picked up the new textfile path" wait_for 15 test -s "$PROM_DIR/nova2.prom"
t_journal "journal: configuration reloaded" "MESSAGE=~configuration reloaded from $CONF"
t_journal "journal: a corruption_hook that cannot run is reported at reload" \
	MESSAGE_ID=18de991af75a4045bc92c137cd9c0655 NOVA_HOOK_STATUS=not-executable \
	"MESSAGE=~/nonexistent/nova-hook cannot be run: No such file or directory"
t_is "still active after reload" "$(systemctl is-active novad)" active

mark_journal
write_conf "[global]" "stats_interval = 2s" "bogus_key = 1" "textfile = /nowhere/x.prom"
t_fail "systemctl reload refuses an invalid config" systemctl reload novad
t_ok "SIGHUP with an invalid config" systemctl kill -s HUP novad
t_journal "journal: rejected with FILE:LINE, old config kept" \
	MESSAGE_ID=$MID_REJECTED "MESSAGE=~$CONF:3: unknown key 'bogus_key' in [global]" \
	"MESSAGE=~keeping the previous configuration" CONFIG_FILE=$CONF CONFIG_LINE=3
t_is "still active after the rejected reload" "$(systemctl is-active novad)" active
rm -f "$PROM_DIR/nova2.prom"
t_ok "old config still in force (textfile rewritten)" wait_for 10 test -s "$PROM_DIR/nova2.prom"

# ---- invalid config at start ----
mark_journal
write_conf "[default]" "snapshots = yes" "hourly = lots"
t_fail "systemctl restart with an invalid config fails" systemctl restart novad
t_is "novad failed" "$(systemctl is-active novad)" failed
t_is "exit status 78 (EX_CONFIG)" "$(prop ExecMainStatus)" 78
t_journal "journal: start refused with FILE:LINE" \
	"MESSAGE=~$CONF:3: hourly: 'lots' is not a count from 0 to 100000" \
	"MESSAGE=~refuses to start"
sleep 6
t_is "not restarted in a loop (RestartPreventExitStatus)" "$(systemctl is-active novad)" failed
t_is "no automatic restarts after exit 78" "$(prop NRestarts)" 0
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM"
systemctl reset-failed novad
t_ok "starts again with a valid config" systemctl start novad

# ---- watchdog ----
mkdir -p "$DROPIN"
printf '[Service]\nEnvironment=NOVAD_DEBUG_HANG_SIGNAL=1\nWatchdogSec=4s\n' > "$DROPIN/50-debug-hang.conf"
systemctl daemon-reload
t_ok "restart with the debug hang signal enabled" systemctl restart novad
pid1=$(prop MainPID)
n1=$(prop NRestarts)
mark_journal
t_ok "SIGUSR2 hangs the main loop" systemctl kill -s USR2 --kill-whom=main novad
t_journal "journal: novad says it hangs" "MESSAGE=~hanging the main loop"
restarted() { [ "$(prop NRestarts)" -gt "$n1" ] && [ "$(systemctl is-active novad)" = active ] && [ "$(prop MainPID)" != "$pid1" ]; }
t_ok "watchdog killed and systemd restarted novad" wait_for 60 restarted
t_ok "systemd logged the watchdog timeout" \
	wait_for 10 sh -c "journalctl -u novad --no-pager | grep -q 'Watchdog timeout'"
rm -f "$DROPIN/50-debug-hang.conf"
systemctl daemon-reload
systemctl restart novad

# ---- HTTP export and the address-family sandbox ----
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM" "http_listen = 127.0.0.1:9469"
mark_journal
t_fail "http_listen without an AF_INET drop-in: start refused" systemctl restart novad
t_journal "journal: says the sandbox forbids AF_INET" "MESSAGE=~RestrictAddressFamilies"
printf '[Service]\nRestrictAddressFamilies=AF_INET AF_INET6\n' > "$DROPIN/60-http.conf"
systemctl daemon-reload
systemctl reset-failed novad
t_ok "with the documented drop-in novad starts" systemctl restart novad
scrape() {
	python3 -c 'import urllib.request,sys; sys.stdout.write(urllib.request.urlopen("http://127.0.0.1:9469/metrics", timeout=5).read().decode())'
}
t_ok "GET /metrics answers" wait_for 10 scrape
t_ok "GET /metrics has nova_filesystems" bash -c "$(declare -f scrape); scrape | grep -q '^nova_filesystems '"
t_is "GET /other is 404" "$(python3 -c '
import urllib.request, urllib.error
try:
    urllib.request.urlopen("http://127.0.0.1:9469/other", timeout=5)
    print(200)
except urllib.error.HTTPError as e:
    print(e.code)')" 404
rm -f "$DROPIN/60-http.conf"
systemctl daemon-reload
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM" "" "[default]" "snapshots = no"
systemctl restart novad

# ---- following a NOVA file system ----
mark_journal
if nova_mount_init 2> /tmp/novad-mount.err; then
	t_journal "journal: mount followed (MESSAGE_ID, NOVA_DEVICE)" \
		MESSAGE_ID=$MID_MOUNTED NOVA_DEVICE="$NOVA_PMEM"
	t_journal "journal: mount point resolved (NOVA_MOUNTPOINT)" \
		NOVA_DEVICE="$NOVA_PMEM" NOVA_MOUNTPOINT="$NOVA_MNT"
	t_ok "textfile: nova_filesystems 1" wait_for 15 textfile_has "nova_filesystems 1"
	t_ok "STATUS= follows 1 file system" \
		wait_for 10 sh -c "systemctl show -p StatusText --value novad | grep -q 'following 1 NOVA file system;'"
	lbl="device=\"$NOVA_PMEM\",mountpoint=\"$NOVA_MNT\""
	t_ok "textfile: nova_blocks with device and mountpoint labels" \
		wait_for 10 grep -q "^nova_blocks{$lbl,uuid=\"[0-9a-f-]*\"} [1-9][0-9]*\$" "$PROM"
	for m in nova_blocks_free nova_inodes nova_inodes_free nova_block_size_bytes \
		 nova_size_bytes nova_free_bytes nova_log_pages nova_data_pages \
		 nova_snapshot_epoch nova_snapshots nova_mount_duration_seconds \
		 nova_mount_recovered nova_read_only nova_format_version nova_cpu_stripes; do
		t_ok "textfile: $m" grep -q "^$m{$lbl," "$PROM"
	done
	sh -c ": > $NOVA_MNT/f && cat $NOVA_MNT/f" 2>/dev/null
	sleep 3
	if grep -q '^nova_operations_total{' "$PROM"; then
		t_ok "textfile: operation counters are counters" grep -q '^# TYPE nova_operations_total counter' "$PROM"
	else
		t_skip "textfile: operation counters" "the kernel reported no operation counters"
	fi
	mark_journal
	t_ok "restart novad with the fs mounted" systemctl restart novad
	t_journal "journal: fs listed at start (FS_LIST)" "MESSAGE=~following /dev/${NOVA_PMEM#/dev/}" \
		NOVA_DEVICE="$NOVA_PMEM" NOVA_MOUNTPOINT="$NOVA_MNT"
	t_ok "textfile after restart: nova_filesystems 1" wait_for 15 textfile_has "nova_filesystems 1"
	mark_journal
	t_ok "umount $NOVA_MNT" nova_umount
	t_journal "journal: unmount followed" MESSAGE_ID=$MID_UNMOUNTED NOVA_DEVICE="$NOVA_PMEM"
	t_ok "textfile: back to nova_filesystems 0" wait_for 15 textfile_has "nova_filesystems 0"
	t_ok "mount again" nova_mount
	t_journal "journal: second mount followed" MESSAGE_ID=$MID_MOUNTED NOVA_DEVICE="$NOVA_PMEM"
	t_ok "umount again" nova_umount
else
	why=$(tr '\n' ' ' < /tmp/novad-mount.err)
	t_skip "follow mount/unmount of a NOVA file system" "mount -t NOVA does not work yet: $why"
	t_skip "metrics of a mounted NOVA file system" "mount -t NOVA does not work yet"
fi

# ---- clock changes ----
mark_journal
t_ok "set the clock forward two hours" date -s "+2 hours"
t_journal "journal: clock change noticed, jobs re-planned" "MESSAGE=~system clock changed"
date -s "-2 hours" > /dev/null
t_is "still active after clock changes" "$(systemctl is-active novad)" active

# ---- snapshot jobs ----
t_diag "snapshot jobs section starts at $SECONDS s"
# A fresh file system (a new UUID: no job history in novad's state), a
# history of auto snapshots made by hand as if an earlier novad had
# taken them, and snapshots of the user's that novad must never touch:
# one without the prefix, two with it but not in novad's name format,
# one with another prefix.
C=novactl
M=$NOVA_MNT
STATE=/var/lib/novad/state
USER_SNAPS="mine auto-manual auto-2020-01-01T0000Z-hourly-keep other-2020-01-01T0000Z-hourly"
OLD_AUTO="auto-2020-01-01T0000Z-hourly auto-2020-01-01T0100Z-hourly auto-2020-01-01T0200Z-hourly
	  auto-2020-01-01T0000Z-daily auto-2019-12-30T0000Z-weekly"
AUTO_RE='^auto-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{4}Z-(hourly|daily|weekly|monthly|yearly)$'
snap_json() { "$C" snapshot list "$M" --json; }
snap_names() { snap_json | python3 -c 'import json, sys; [print(s["name"]) for s in json.load(sys.stdin)["snapshots"]]'; }
snap_id() { snap_json | python3 -c 'import json, sys; print(*[s["id"] for s in json.load(sys.stdin)["snapshots"] if s["name"] == sys.argv[1]])' "$1"; }
has_snap() { snap_names | grep -qxF -- "$1"; }
# auto_new PERIOD: novad's snapshots of PERIOD taken today, newest last
auto_new() { snap_names | grep -E "$AUTO_RE" | grep -- "-$1\$" | grep -vE '^auto-(2019|2020)-'; }
n_auto() { snap_names | grep -E "$AUTO_RE" | grep -c -- "-$1\$"; }
n_auto_is() { [ "$(n_auto "$1")" -eq "$2" ]; }
name_time_ok() {	# name_time_ok NAME: its time is its ctime (2 min)
	snap_json | python3 -c '
import calendar, json, sys, time
for s in json.load(sys.stdin)["snapshots"]:
    if s["name"] == sys.argv[1]:
        t = calendar.timegm(time.strptime(s["name"][5:21], "%Y-%m-%dT%H%MZ"))
        sys.exit(abs(s["ctime_ns"] / 1e9 - t) > 120)
sys.exit(1)' "$1"
}
took_both() { [ -n "$(auto_new hourly)" ] && [ -n "$(auto_new daily)" ]; }
# fill_snapshots N: create fill-1..fill-N over one genl socket (a
# novactl process each would cost a minute of TCG time); prints how many.
fill_snapshots() {
	python3 - "$NOVA_TOP/tests/guest/genl-client.py" "$M" "$1" <<'PY'
import importlib.util, os, struct, sys
spec = importlib.util.spec_from_file_location("genl_client", sys.argv[1])
gc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gc)
g = gc.Genl()
fam, _ = g.family()
dev = gc.nla(gc.NOVA["NOVA_A_FS_DEV"], struct.pack("=Q", os.stat(sys.argv[2]).st_dev))
made = 0
for i in range(1, int(sys.argv[3]) + 1):
    name = gc.encode_attr("NOVA_SNAPSHOT_A_NAME:strz:fill-%d" % i)
    sn = gc.nla(gc.NOVA["NOVA_A_SNAPSHOT"] | gc.NLA_F_NESTED, name)
    res = g.request(fam["id"], gc.NOVA["NOVA_CMD_SNAPSHOT_CREATE"],
                    gc.NLM_F_REQUEST | gc.NLM_F_ACK, dev + sn)
    if res["errno"]:
        print("fill-%d: %s %s" % (i, res["name"], res["extack"]), file=sys.stderr)
        break
    made += 1
print(made)
PY
}
users_intact() {
	local n
	for n in $USER_SNAPS; do has_snap "$n" || { echo "user snapshot $n is gone"; return 1; }; done
}
policy() {	# policy HOURLY: novad manages $M's snapshots, keeps HOURLY hourly
	write_conf "[global]" "stats_interval = 2s" "textfile = $PROM" "" \
		"[default]" "snapshots = no" "" "[$M]" "snapshots = yes" \
		"hourly = $1" "daily = 1" "weekly = 0" "monthly = 0" "yearly = 0"
}
if nova_mount_init 2> /tmp/novad-mount.err; then
	uuid=$("$C" snapshot create --name mine "$M" -j |
	       python3 -c 'import json, sys; print(json.load(sys.stdin)["filesystem"]["uuid"])')
	made=0
	for n in $USER_SNAPS $OLD_AUTO; do
		[ "$n" = mine ] || "$C" snapshot create --name "$n" "$M" > /dev/null || break
		made=$((made + 1))
	done
	t_is "user snapshots and an old auto history made by hand" "$made" 9
	sleep 2
	t_is "snapshots = no: novad takes none, prunes none" "$(snap_names | wc -l)" 9

	# Enabled by a reload: every period novad keeps is due at once (no
	# history for this file system), then retention runs.
	mark_journal
	policy 3
	t_ok "systemctl reload with snapshots = yes for $M" systemctl reload novad
	t_ok "hourly and daily snapshots taken" wait_for 30 took_both
	h=$(auto_new hourly | tail -n 1)
	d=$(auto_new daily | tail -n 1)
	t_diag "novad took: $h $d"
	t_ok "hourly name is PREFIX-YYYY-MM-DDTHHMMZ-hourly" grep -qE "$AUTO_RE" <<< "$h"
	t_ok "daily name is PREFIX-YYYY-MM-DDTHHMMZ-daily" grep -qE "$AUTO_RE" <<< "$d"
	t_ok "the name's UTC time is the snapshot's creation time (within 2 min)" name_time_ok "$h"

	wait_for 20 n_auto_is daily 1
	t_is "retention: 3 hourly kept" "$(n_auto hourly)" 3
	t_fail "retention: oldest hourly pruned" has_snap auto-2020-01-01T0000Z-hourly
	t_ok "retention: newer hourly kept" has_snap auto-2020-01-01T0200Z-hourly
	t_is "retention: 1 daily kept (the new one)" "$(n_auto daily)" 1
	t_is "retention: weekly = 0 prunes the old weekly" "$(n_auto weekly)" 0
	t_ok "user snapshots untouched" users_intact
	t_journal "journal: created, with MESSAGE_ID, NOVA_SNAPSHOT_ID/NAME, NOVA_DEVICE, NOVA_UUID" \
		MESSAGE_ID=$MID_SNAP_CREATED NOVA_SNAPSHOT_NAME="$h" NOVA_SNAPSHOT_ID="$(snap_id "$h")" \
		NOVA_DEVICE="$NOVA_PMEM" NOVA_MOUNTPOINT="$M" NOVA_UUID="$uuid" PRIORITY=6
	t_journal "journal: pruned, with MESSAGE_ID and NOVA_SNAPSHOT_NAME" \
		MESSAGE_ID=$MID_SNAP_DELETED NOVA_SNAPSHOT_NAME=auto-2020-01-01T0000Z-hourly \
		NOVA_DEVICE="$NOVA_PMEM" "NOVA_SNAPSHOT_ID=~"
	t_ok "STATUS= says snapshots are scheduled" \
		sh -c "systemctl show -p StatusText --value novad | grep -q 'snapshots: scheduled on 1;'"

	# SIGHUP with a lower keep count prunes at once, not at the next hour.
	mark_journal
	policy 1
	t_ok "SIGHUP with hourly = 1" systemctl kill -s HUP --kill-whom=main novad
	t_journal "journal: reloaded" "MESSAGE=~configuration reloaded"
	t_ok "reload pruned down to 1 hourly" wait_for 20 n_auto_is hourly 1
	t_ok "... the newest one" has_snap "$h"
	t_journal "journal: 0200 pruned after reload" \
		MESSAGE_ID=$MID_SNAP_DELETED NOVA_SNAPSHOT_NAME=auto-2020-01-01T0200Z-hourly
	t_ok "user snapshots untouched after reload" users_intact
	t_is "still active" "$(systemctl is-active novad)" active

	# The kernel's snapshot limit: novad makes room from its own
	# snapshots (never the user's) and takes the new one.
	systemctl stop novad
	rm -f "$STATE"		# no history: both jobs due at start
	live=$(snap_names | wc -l)
	t0=$SECONDS
	filled=$(fill_snapshots $((256 - live)))
	t_is "filled to the kernel's limit of 256 with user snapshots" "$((live + filled))" 256
	t_errno "one more is refused" ENOSPC "$C" snapshot create "$M" -j
	t_diag "filling took $((SECONDS - t0)) s"
	# Still the minute of $h? The kernel checks its limit first
	# (ENOSPC, not EEXIST), novad deletes $h and takes it anew.
	mark_journal
	t_ok "start novad at the limit" systemctl start novad
	t_journal "journal: old hourly pruned to make room" \
		MESSAGE_ID=$MID_SNAP_DELETED NOVA_SNAPSHOT_NAME="$h"
	t_journal "journal: new hourly created" MESSAGE_ID=$MID_SNAP_CREATED "NOVA_SNAPSHOT_NAME=~-hourly"
	t_journal "journal: new daily created" MESSAGE_ID=$MID_SNAP_CREATED "NOVA_SNAPSHOT_NAME=~-daily"
	t_fail "journal: no creation failure" jmatch "MESSAGE=~cannot create snapshot"
	t_is "still 256 live snapshots" "$(snap_names | wc -l)" 256
	t_is "1 hourly, 1 daily" "$(n_auto hourly) $(n_auto daily)" "1 1"
	t_is "no fill snapshot deleted" "$(snap_names | grep -c '^fill-')" "$filled"
	t_ok "user snapshots untouched at the limit" users_intact

	# A read-only mount is skipped, not failed on: a lower keep count
	# given meanwhile is applied once the file system is writable again.
	h2=$(auto_new hourly | tail -n 1)
	mark_journal
	t_ok "remount read-only" mount -o remount,ro "$M"
	t_journal "journal: read-only mount skipped (said once)" \
		MESSAGE_ID=96277a3f9bed4dc89249644d1b7df4ab NOVA_READ_ONLY=1 NOVA_MOUNTPOINT="$M"
	policy 0
	t_ok "SIGHUP with hourly = 0 on the read-only fs" systemctl kill -s HUP --kill-whom=main novad
	t_journal "journal: reloaded" "MESSAGE=~configuration reloaded"
	sleep 2
	t_fail "journal: no prune attempt (no EROFS failure)" jmatch "MESSAGE=~cannot prune"
	t_ok "the hourly snapshot is still there while read-only" has_snap "$h2"
	t_is "still active" "$(systemctl is-active novad)" active
	t_ok "remount read-write" mount -o remount,rw "$M"
	t_journal "journal: writable again" MESSAGE_ID=96277a3f9bed4dc89249644d1b7df4ab NOVA_READ_ONLY=0
	t_ok "hourly = 0 prunes the last hourly once writable (no reload needed)" wait_for 20 n_auto_is hourly 0
	t_ok "user snapshots untouched at the end" users_intact
	mark_journal
	t_ok "umount" nova_umount
	t_journal "journal: unmount followed" MESSAGE_ID=$MID_UNMOUNTED NOVA_DEVICE="$NOVA_PMEM"
else
	t_skip "snapshot jobs run" "mount -t NOVA does not work: $(tr '\n' ' ' < /tmp/novad-mount.err)"
fi
t_diag "snapshot jobs section ends at $SECONDS s"

# ---- stop ----
mark_journal
t_ok "systemctl stop novad" systemctl stop novad
t_journal "journal: clean stop" "MESSAGE=~novad stopping"
t_is "exit status 0 after SIGTERM" "$(prop ExecMainStatus)" 0
systemctl disable novad > /dev/null 2>&1
t_done

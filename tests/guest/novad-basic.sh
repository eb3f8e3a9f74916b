#!/bin/bash
# novad under real systemd: install, enable --now, READY and STATUS=,
# textfile metrics, journal fields, reload (good and bad config), a bad
# config refused at start, the watchdog restarting a hung daemon, the
# HTTP export behind the unit's address-family sandbox, and following a
# NOVA file system through mount and unmount (when mounting works).
# nova-guest-args: --systemd
# nova-timeout: 420
. "$NOVA_TOP/tests/guest/lib.sh"

CONF=/etc/nova/novad.conf
PROM_DIR=/var/lib/prometheus/node-exporter
PROM=$PROM_DIR/nova.prom
DROPIN=/run/systemd/system/novad.service.d
MID_STARTED=64b838b7e9ee4478bc9dba99938bf34d
MID_REJECTED=5380f6bccc364ca3a18698312de4eda0
MID_MOUNTED=8f44d4ff0555461dae2ac6eab0d619c4
MID_UNMOUNTED=c1c02c36371b454a93477beac918761f
MID_UNAVAILABLE=0ef52dab008141e9a201485e75ce40f1

# wait_for SECONDS CMD...: poll CMD until it succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" > /dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# jmatch FIELD=VALUE...: one novad journal entry (since the cursor file)
# has every field; VALUE "~TEXT" means the field contains TEXT.
jmatch() {
	journalctl -u novad -o json --no-pager ${JCURSOR:+--after-cursor="$JCURSOR"} 2>/dev/null |
	python3 -c '
import json, sys
want = [a.split("=", 1) for a in sys.argv[1:]]
def ok(e, k, v):
    got = e.get(k)
    if not isinstance(got, str):
        return False
    return v[1:] in got if v.startswith("~") else got == v
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if all(ok(e, k, v) for k, v in want):
        sys.exit(0)
sys.exit(1)' "$@"
}

# t_journal DESC FIELD=VALUE...: wait up to 20 s for such an entry.
t_journal() {
	local desc=$1
	shift
	if wait_for 20 jmatch "$@"; then
		t_ok "$desc" true
	else
		t_ok "$desc" false
		t_diag "no novad journal entry with: $*"
		journalctl -u novad -o json --no-pager -n 15 2>&1 | sed 's/^/#   /' | cut -c1-400
	fi
}

mark_journal() {
	JCURSOR=$(journalctl -u novad -n 1 --show-cursor --no-pager 2>/dev/null |
		  sed -n 's/^-- cursor: //p')
}

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
t_ok "STATUS= says snapshots are unavailable" \
	grep -q 'snapshots: unavailable (see the journal for why)' <<< "$status"
t_ok "STATUS= says scrub is unavailable" grep -q 'scrub: unavailable' <<< "$status"
t_journal "journal: started, with MESSAGE_ID" MESSAGE_ID=$MID_STARTED "MESSAGE=~nova genl family"
t_journal "journal: snapshot jobs reported unavailable at start" \
	MESSAGE_ID=$MID_UNAVAILABLE NOVA_JOB=snapshot "MESSAGE=~does not drive the kernel's snapshot commands yet"
t_journal "journal: scrub jobs reported unavailable at start" \
	MESSAGE_ID=$MID_UNAVAILABLE NOVA_JOB=scrub "MESSAGE=~no scrub commands"

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
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM_DIR/nova2.prom"
t_ok "systemctl reload with a valid config" systemctl reload novad
t_ok "reload picked up the new textfile path" wait_for 15 test -s "$PROM_DIR/nova2.prom"
t_journal "journal: configuration reloaded" "MESSAGE=~configuration reloaded from $CONF"
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
write_conf "[global]" "stats_interval = 2s" "textfile = $PROM" "" "[default]" "snapshots = yes"
systemctl restart novad

# ---- following a NOVA file system ----
mark_journal
if nova_mount_init 2> /tmp/novad-mount.err; then
	t_journal "journal: mount followed (MESSAGE_ID, NOVA_DEVICE)" \
		MESSAGE_ID=$MID_MOUNTED NOVA_DEVICE="$NOVA_PMEM"
	t_journal "journal: mount point resolved (NOVA_MOUNTPOINT)" \
		NOVA_DEVICE="$NOVA_PMEM" NOVA_MOUNTPOINT="$NOVA_MNT"
	t_journal "journal: snapshot jobs for the fs reported unavailable" \
		MESSAGE_ID=$MID_UNAVAILABLE NOVA_MOUNTPOINT="$NOVA_MNT" NOVA_JOB=snapshot
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

# ---- snapshot and scrub jobs ----
if grep -q 'NOVA_CMD_SNAPSHOT' "$NOVA_TOP/uapi/linux/nova_genl.h"; then
	# The kernel has snapshot commands; novad's backend (novad/genl.c)
	# does not send them yet and says so (checked above). Issue 9.
	t_skip "snapshot jobs run" "novad does not drive the kernel's snapshot commands yet"
	t_skip "scrub jobs run" "the nova protocol has no scrub commands yet (novad reports them unavailable, checked above)"
else
	t_skip "snapshot jobs run" "the nova protocol has no snapshot commands yet (novad reports them unavailable, checked above)"
	t_skip "scrub jobs run" "the nova protocol has no scrub commands yet (novad reports them unavailable, checked above)"
fi

# ---- stop ----
mark_journal
t_ok "systemctl stop novad" systemctl stop novad
t_journal "journal: clean stop" "MESSAGE=~novad stopping"
t_is "exit status 0 after SIGTERM" "$(prop ExecMainStatus)" 0
systemctl disable novad > /dev/null 2>&1
t_done

#!/bin/bash
# novad under systemd, the jobs that need a mounted NOVA file system and
# time: scrubs on schedule (interval, bandwidth limit, a pass already
# running is not doubled), their results in the journal with
# NOVA_SCRUB_* fields at the right priority (info clean, warning
# repaired, err unrecoverable), CORRUPTION notifications logged with
# MESSAGE_ID, NOVA_INODE, NOVA_KIND, NOVA_REPAIRED and handed to the
# corruption_hook (environment checked, a failing hook logged), the
# "frequently" snapshot period firing on the calendar timer more than
# once with retention pruning it, and a read-only mount skipped (said
# once, no EROFS failures) until it is writable again.
# nova-guest-args: --systemd
# nova-timeout: 360
# nova-expect-klog: nova \(pmem[0-9]+\): error: (scrub: inode|inode [0-9]+: bad)
. "$NOVA_TOP/tests/guest/lib.sh"
. "$NOVA_TOP/tests/guest/lib-novad.sh"

CONF=/etc/nova/novad.conf
M=$NOVA_MNT
HOOK=/usr/local/libexec/novad-test-hook
HOOKLOG=/var/lib/novad/hook.log
FREQ_RE='^auto-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{4}Z-frequently$'

snap_names() {
	novactl snapshot list "$M" --json |
	python3 -c 'import json, sys; [print(s["name"]) for s in json.load(sys.stdin)["snapshots"]]'
}
n_freq() { snap_names | grep -cE "$FREQ_RE"; }
n_freq_is() { [ "$(n_freq)" -eq "$1" ]; }
scrub_field() {	# FIELD of novactl scrub status --json
	novactl scrub status --json "$M" | python3 -c 'import json, sys; print(json.load(sys.stdin)["scrub"][sys.argv[1]])' "$1"
}
scrub_idle() { [ "$(scrub_field state)" != running ]; }
ino() { stat -c %i "$M/$1"; }
inject() { novactl debug inject "$@" "$M" > /dev/null; }
hook_has() { grep -qxF -- "$1" "$HOOKLOG"; }	# a line of the hook's log

t_ok "install novad" env BUILD="$NOVA_TOP/build" DESTDIR=/ PREFIX=/usr/local "$NOVA_TOP/novad/install.sh"
mkdir -p "${HOOK%/*}"
# The hook records its environment; it fails (exit 7) for damage that
# was not repaired, so that the failure path is exercised too.
cat > "$HOOK" <<'SH'
#!/bin/sh
{ echo "--- $NOVA_KIND"; env | grep '^NOVA_' | sort; } >> /var/lib/novad/hook.log
[ "$NOVA_REPAIRED" = yes ] || exit 7
SH
chmod 755 "$HOOK"
systemctl daemon-reload

echo 1 > /sys/module/nova/parameters/inject
t_ok "format and mount" nova_mount_init
head -c 262144 /dev/urandom > /tmp/data
for f in a b c d; do cp /tmp/data "$M/$f"; done
sync
uuid=$(novactl fs list --json | python3 -c '
import json, sys
def find(o):
    if isinstance(o, dict):
        if "uuid" in o:
            return o["uuid"]
        o = list(o.values())
    for v in o if isinstance(o, list) else []:
        u = find(v)
        if u:
            return u
print(find(json.load(sys.stdin)["filesystems"][0]))')
t_diag "uuid $uuid"

printf '%s\n' "[global]" "stats_interval = 2s" "corruption_hook = $HOOK" \
	"corruption_hook_timeout = 20s" "" "[default]" "snapshots = no" "" \
	"[$M]" "snapshots = yes" "hourly = 0" "daily = 0" "weekly = 0" \
	"monthly = 0" "yearly = 0" "frequently = 2" "frequent_period = 1m" \
	"scrub_interval = 1m" "scrub_bandwidth = 64M" > "$CONF"
t_ok "config with frequent snapshots, scrub and hook is valid" /usr/local/sbin/novad --check-config
rm -f /var/lib/novad/state "$HOOKLOG"

# A pass the operator started, slowed down, runs when novad starts: novad
# must not start another; it logs the pass's result all the same.
t_ok "a slow manual scrub runs" novactl scrub start --bandwidth 200K "$M"
mark_journal
t0=$SECONDS
t_ok "systemctl start novad" systemctl start novad
t_journal "a scrub already running: novad does not start another" 20 \
	"MESSAGE=~already running; not starting another" NOVA_JOB=scrub NOVA_MOUNTPOINT="$M"
t_journal "the running pass's result is logged (info, clean, NOVA_SCRUB_* fields)" 60 \
	MESSAGE_ID=$MID_SCRUB_FINISHED PRIORITY=6 NOVA_SCRUB_ERRORS=0 \
	NOVA_SCRUB_REPAIRED=0 NOVA_SCRUB_UNRECOVERABLE=0 NOVA_SCRUB_STATE=finished \
	"NOVA_SCRUB_BYTES_SCANNED=~" "NOVA_SCRUB_DURATION_SEC=~" NOVA_DEVICE="$NOVA_PMEM" \
	NOVA_MOUNTPOINT="$M" NOVA_UUID="$uuid" "MESSAGE=~: clean"
t_fail "no scrub start failure" jmatch "MESSAGE=~cannot start scrub"
t_journal "first frequent snapshot at once (never ran)" 20 \
	MESSAGE_ID=$MID_SNAP_CREATED "NOVA_SNAPSHOT_NAME=~-frequently"

# The scheduled scrub one interval later finds an injected data error
# and repairs it.
t_ok "inject a data strip into a" inject data --ino "$(ino a)" --offset 5000
t_journal "scheduled scrub after the interval: started by novad" 90 \
	"MESSAGE=~started scrub of $M" NOVA_JOB=scrub
t_journal "its result: warning, 1 repaired" 60 \
	MESSAGE_ID=$MID_SCRUB_FINISHED PRIORITY=4 "MESSAGE=~repaired" NOVA_SCRUB_UNRECOVERABLE=0 \
	NOVA_UUID="$uuid"
t_is "the scheduled scrub had the bandwidth limit" "$(scrub_field bandwidth)" $((64 << 20))
t_journal "corruption entry: MESSAGE_ID, NOVA_INODE, NOVA_KIND=data, repaired, warning" 10 \
	MESSAGE_ID=$MID_CORRUPTION NOVA_INODE="$(ino a)" NOVA_KIND=data NOVA_REPAIRED=yes \
	PRIORITY=4 NOVA_MOUNTPOINT="$M" NOVA_UUID="$uuid" "NOVA_OFFSET=~"
t_journal "the hook ran and succeeded" 20 MESSAGE_ID=$MID_HOOK NOVA_HOOK="$HOOK" NOVA_HOOK_STATUS=exit-0
t_ok "hook environment: NOVA_KIND=data" hook_has "NOVA_KIND=data"
t_ok "hook environment: NOVA_INODE" hook_has "NOVA_INODE=$(ino a)"
t_ok "hook environment: NOVA_REPAIRED=yes" hook_has "NOVA_REPAIRED=yes"
t_ok "hook environment: NOVA_MOUNTPOINT, NOVA_DEVICE, NOVA_UUID" \
	sh -c "grep -qx 'NOVA_MOUNTPOINT=$M' $HOOKLOG && grep -qx 'NOVA_DEVICE=$NOVA_PMEM' $HOOKLOG && grep -qx 'NOVA_UUID=$uuid' $HOOKLOG"
t_ok "hook environment: NOVA_EVENT=corruption" hook_has "NOVA_EVENT=corruption"

# Unrecoverable damage (a log entry and its mirror, format 1.4): err,
# and the hook's failure.
t_ok "inject a log entry into d" inject log-entry --ino "$(ino d)" --offset 0
t_ok "... and into its mirror" inject log-entry --ino "$(ino d)" --offset 0 --copy 1
novactl scrub start --restart --wait "$M" > /dev/null
t_journal "scrub result: err with the unrecoverable count" 30 \
	MESSAGE_ID=$MID_SCRUB_FINISHED PRIORITY=3 "MESSAGE=~1 unrecoverable" NOVA_SCRUB_UNRECOVERABLE=1
t_journal "corruption entry: NOVA_KIND=log-entry, not repaired, err" 10 \
	MESSAGE_ID=$MID_CORRUPTION NOVA_INODE="$(ino d)" NOVA_KIND=log-entry NOVA_REPAIRED=no PRIORITY=3
t_journal "the failing hook is logged (exit status 7)" 20 \
	MESSAGE_ID=$MID_HOOK NOVA_HOOK_STATUS=exit-7 "MESSAGE=~failed with exit status 7" PRIORITY=4
t_ok "hook environment: NOVA_KIND=log-entry" hook_has "NOVA_KIND=log-entry"

# The frequently period: the calendar timer fires at every minute
# boundary; retention keeps 2.
t_ok "the frequent timer fired at least twice more (3 frequent snapshots made)" \
	wait_for $((150 - (SECONDS - t0))) jatleast 3 MESSAGE_ID=$MID_SNAP_CREATED "NOVA_SNAPSHOT_NAME=~-frequently"
t_journal "retention pruned a frequent snapshot" 20 MESSAGE_ID=$MID_SNAP_DELETED "NOVA_SNAPSHOT_NAME=~-frequently"
t_ok "2 frequent snapshots kept" wait_for 20 n_freq_is 2
t_diag "frequent snapshots: $(snap_names | grep -E "$FREQ_RE" | tr '\n' ' ')"

# Read-only: skipped, said once, nothing fails; writable again: resumes.
# The mark goes first: novad may say so before the remount returns here.
mark_journal
t_ok "remount read-only" mount -o remount,ro "$M"
t_journal "read-only mount: skipped, said once" 20 MESSAGE_ID=$MID_SKIPPED NOVA_READ_ONLY=1 \
	NOVA_MOUNTPOINT="$M" "MESSAGE=~read-only"
before=$(snap_names | tr '\n' ' ')
# Past the next minute boundary and the next scrub time.
sleep 65
t_is "said only once" "$(jcount MESSAGE_ID=$MID_SKIPPED NOVA_READ_ONLY=1)" 1
t_is "no job failure while read-only" "$(jcount PRIORITY=3)" 0
t_is "no snapshot taken or pruned while read-only" "$(snap_names | tr '\n' ' ')" "$before"
t_is "no scrub started while read-only" "$(jcount "MESSAGE=~started scrub")" 0
t_ok "remount read-write" mount -o remount,rw "$M"
t_journal "writable again: jobs resume" 20 MESSAGE_ID=$MID_SKIPPED NOVA_READ_ONLY=0
t_journal "the missed frequent snapshot is taken once" 20 \
	MESSAGE_ID=$MID_SNAP_CREATED "NOVA_SNAPSHOT_NAME=~-frequently"
t_journal "the missed scrub runs" 20 "MESSAGE=~started scrub of $M"
t_ok "still 2 frequent snapshots after retention" wait_for 20 n_freq_is 2
t_is "novad still active" "$(systemctl is-active novad)" active
t_diag "novad-scrub took $((SECONDS - t0)) s after novad started"

wait_for 30 scrub_idle
systemctl stop novad
echo 0 > /sys/module/nova/parameters/inject
t_ok "unmount" nova_umount
t_done

#!/bin/bash
# Online integrity scrub on a clean, populated file system, through
# novactl: a full pass finishes with no errors and counts what was written
# (inodes, log pages); JSON output is valid and matches the status; a
# stopped pass resumes from its cursor and the two halves add up to one
# full pass; the bandwidth limit is roughly honoured; unmount during a
# running scrub is prompt and clean; read-only and snapshot mounts refuse
# to scrub (a scrub repairs in place); argument errors are usage errors.
# nova-timeout: 600
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
FILES=600

sj() {	# FIELD of the "scrub" object of a novactl scrub --json document $1
	python3 -c "import json, sys; print(json.loads(sys.argv[1])['scrub']['$2'])" "$1"
}
status() {
	novactl scrub status --json "$M"
}
now() {
	date +%s.%N
}
elapsed() {	# START END -> seconds, one decimal
	awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", e - s }'
}

t_ok "format and mount" nova_mount_init
mkdir -p "$M/d/e"
for ((i = 0; i < FILES; i++)); do
	echo "file $i" > "$M/d/f$i"
done
head -c 1048576 /dev/urandom > "$M/d/e/big"
sync
# root, d, e, the files and big
want_inodes=$((3 + FILES + 1))

s=$(status)
t_is "status before any scrub: idle" "$(sj "$s" state)" idle
t_is "nothing scanned yet" "$(sj "$s" bytes_scanned)" 0
t_fail "stop with no scrub running fails" novactl scrub stop "$M"
err=$(novactl scrub stop "$M" 2>&1)
t_ok "and says none is running" grep -q "no scrub is running" <<< "$err"

# --- a full pass, unlimited ---
t0=$(now)
full=$(novactl scrub start --wait --json "$M")
t_is "scrub start --wait exits 0 on a clean fs" "$?" 0
t_diag "full pass: $(elapsed "$t0" "$(now)") s"
t_ok "JSON output is valid and versioned" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["version"] == 1 and d["filesystem"]["bdev"] and "scrub" in d
' "$full"
t_is "pass finished" "$(sj "$full" state)" finished
t_is "no errors" "$(sj "$full" errors)" 0
t_is "no unrecoverable" "$(sj "$full" unrecoverable)" 0
t_is "every inode visited" "$(sj "$full" inodes_scanned)" "$want_inodes"
B=$(sj "$full" bytes_scanned)
T=$(sj "$full" bytes_total)
t_ok "bytes scanned ($B) equal the total at the start ($T)" [ "$B" -eq "$T" ]
t_ok "at least one log page per file was read" \
	[ "$B" -ge $((FILES * 4096)) ]
meta=$(sj "$full" meta_checked)
# each file: slot + one log page + one entry; plus the fixed records
t_ok "metadata objects checked ($meta) cover slot, log page and entry of each file" \
	[ "$meta" -ge $((3 * FILES)) ]
t_ok "start and finish times are set" python3 -c '
import json, sys
s = json.loads(sys.argv[1])["scrub"]
assert 0 < s["start_ns"] <= s["finish_ns"] and s["finish_time"].endswith("Z")
' "$full"
s=$(status)
t_is "status after the pass agrees with the --wait result" \
	"$(sj "$s" bytes_scanned) $(sj "$s" state)" "$B finished"
t_ok "human status output" sh -c "novactl scrub status '$M' | grep -q 'State: *finished'"
t_fail "stop after the pass finished fails" novactl scrub stop "$M"

# --- stop and resume: the two halves make one pass ---
# About four seconds for the pass, times the lane's time scale: the stop
# must come while it runs, after three commands and a 1.5 s sleep, which
# took 7.4 s on the debug kernel under TCG (each command about 1.5 s).
RATE=$((B / (4 * ${NOVA_TIMEOUT_SCALE:-1})))
t0=$(now)
t_ok "start a limited pass" novactl scrub start --restart --bandwidth "$RATE" "$M"
t_fail "a second start while running fails" novactl scrub start "$M"
err=$(novactl scrub start "$M" 2>&1)
t_ok "and says one is running" grep -q "already running" <<< "$err"
sleep 1.5
p=$(novactl scrub stop --json "$M")
t_diag "start to stop: $(elapsed "$t0" "$(now)") s"
t_is "stop pauses it" "$(sj "$p" state)" paused
half=$(sj "$p" bytes_scanned)
t_ok "paused part way ($half of $B)" [ "$half" -gt 0 -a "$half" -lt "$B" ]
sleep 1
t_is "nothing is scanned while paused" "$(sj "$(status)" bytes_scanned)" "$half"
r=$(novactl scrub start --wait --json "$M")
t_is "resume finishes" "$(sj "$r" state)" finished
t_is "the resumed pass kept its bandwidth" "$(sj "$r" bandwidth)" "$RATE"
t_is "paused + resumed = one full pass (bytes)" "$(sj "$r" bytes_scanned)" "$B"
t_is "paused + resumed = one full pass (inodes)" "$(sj "$r" inodes_scanned)" "$want_inodes"
t_is "paused + resumed = one full pass (objects)" "$(sj "$r" meta_checked)" "$meta"

# --- bandwidth ---
RATE=$((B / 3))
t0=$(now)
r=$(novactl scrub start --restart --bandwidth "$RATE" --wait --json "$M")
dt=$(elapsed "$t0" "$(now)")
t_diag "limited pass: $B bytes at $RATE B/s took $dt s (ideal 3.0 s)"
t_is "limited pass finished" "$(sj "$r" state)" finished
t_ok "limit honoured: took >= 2 s for a 3 s budget ($dt s)" \
	awk -v t="$dt" 'BEGIN { exit !(t >= 2.0) }'
t_ok "bandwidth reported" [ "$(sj "$r" bandwidth)" -eq "$RATE" ]
t_ok "--restart resets the counters" [ "$(sj "$r" bytes_scanned)" -eq "$B" ]

# --- unmount while a scrub runs ---
t_ok "start a slow pass" novactl scrub start --restart --bandwidth 16K "$M"
sleep 1
t_is "it is running" "$(sj "$(status)" state)" running
t0=$(now)
t_ok "unmount during the scrub" nova_umount
dt=$(elapsed "$t0" "$(now)")
t_diag "unmount took $dt s"
t_ok "unmount was prompt (< 5 s)" awk -v t="$dt" 'BEGIN { exit !(t < 5.0) }'
t_fail "no scrub thread left" sh -c 'grep -qs nova_scrub /proc/[0-9]*/comm'
t_ok "mount again" nova_mount
t_is "a new mount starts idle" "$(sj "$(status)" state)" idle
t_ok "the file system is intact" cmp <(echo "file 7") "$M/d/f7"

# --- read-only and snapshot mounts ---
t_ok "remount read-only" mount -o remount,ro "$M"
err=$(novactl scrub start "$M" 2>&1)
t_is "scrub on a read-only mount fails" "$?" 1
t_ok "with EROFS's reason" grep -q "read-only" <<< "$err"
t_ok "status is still readable" novactl scrub status "$M"
t_ok "remount read-write" mount -o remount,rw "$M"
t_ok "take a snapshot" novactl snapshot create "$M"
t_ok "unmount" nova_umount
t_ok "mount the snapshot" mount -t NOVA -o snapshot=1,ro "$NOVA_PMEM" "$M"
t_fail "scrub on a snapshot mount fails" novactl scrub start "$M"
t_ok "unmount the snapshot" nova_umount
t_ok "mount the live fs" nova_mount
t_ok "a pass after all that is clean" novactl scrub start --wait "$M"

# --- unprivileged users read but cannot start ---
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
t_ok "nobody can read the status" "${NOBODY[@]}" novactl scrub status "$M"
t_fail "nobody cannot start a scrub" "${NOBODY[@]}" novactl scrub start "$M"

# --- command line ---
novactl scrub start --bandwidth 12Q "$M" > /dev/null 2>&1
t_is "bad rate is a usage error" "$?" 2
novactl scrub status > /dev/null 2>&1
t_is "missing PATH is a usage error" "$?" 2
novactl scrub frobnicate "$M" > /dev/null 2>&1
t_is "unknown scrub command is a usage error" "$?" 2

t_ok "unmount" nova_umount
t_done

#!/bin/bash
# Feedback on a long scrub (issue 23): `novactl scrub start --wait` shows
# progress with rate and time left on stderr (lines every 5 s when stderr
# is not a terminal, none with --json) and the result on stdout;
# `novactl scrub status` shows the average rate and, while running, the
# time left, in text and JSON (rate, eta_sec); both computed from the
# kernel's running time (run_ns, pauses excluded) and bytes scanned.
# nova-timeout: 300
. "$NOVA_TOP/tests/guest/lib.sh"
M=$NOVA_MNT
T=$(mktemp -d)

sj() {	# FIELD of the "scrub" object of a novactl scrub --json document $1
	python3 -c "import json, sys; v = json.loads(sys.argv[1])['scrub']['$2']; print('null' if v is None else v)" "$1"
}

t_ok "format and mount" nova_mount_init
t_ok "12 MiB of data" sh -c "head -c 12582912 /dev/urandom > $M/big && sync"

s=$(novactl scrub status --json "$M")
t_is "idle: no rate" "$(sj "$s" rate)" null
t_is "idle: no eta" "$(sj "$s" eta_sec)" null
t_fail "idle: no Rate line" sh -c "novactl scrub status $M | grep -q Rate"

# A pass at 2 MiB/s takes about 6 s: at least two progress lines.
t_ok "scrub start --wait --bandwidth 2M" sh -c "novactl scrub start --wait --bandwidth 2M $M > $T/out 2> $T/err"
t_diag "progress: $(tr '\n' '|' < "$T/err")"
re='^scrub pmem0: +[0-9]+\.[0-9]% \([0-9.]+ [KMG]?i?B of [0-9.]+ [KMG]?i?B\), [0-9.]+ [KMG]?i?B/s(, [0-9hms]+ left)?, [0-9]+ errors$'
t_ok "progress lines on stderr" test "$(grep -cE "$re" "$T/err")" -ge 2
t_is "... and nothing else there" "$(grep -cvE "$re" "$T/err")" 0
t_ok "... some with the time left" grep -qE ' left, ' "$T/err"
t_ok "... percentages never go back" awk '{ sub(/%.*/, "", $3); if ($3 + 0 < last) exit 1; last = $3 + 0 }' "$T/err"
t_ok "... the last at 100%" sh -c "tail -n 1 $T/err | grep -q ' 100.0% '"
t_ok "the result on stdout" grep -q '^Scrubbed pmem0' "$T/out"
t_ok "... with the average rate" grep -qE '^  Rate: +[0-9.]+ [KMG]?i?B/s \(average while running\)' "$T/out"
t_fail "... and no time left (finished)" grep -q 'Time left' "$T/out"
rate=$(novactl scrub status --json "$M")
r=$(sj "$rate" rate)
t_ok "JSON rate after the pass: about the 2 MiB/s limit ($r)" test "$r" -gt 1000000 -a "$r" -lt 3000000
t_is "JSON eta_sec: null when finished" "$(sj "$rate" eta_sec)" null
t_ok "--json: no progress on stderr" sh -c "novactl scrub start --restart --wait --json --bandwidth 4M $M > $T/json 2> $T/err2 && test ! -s $T/err2"
t_ok "... a JSON document on stdout" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/json"

# Status of a running pass.
t_ok "a slow pass (1 MiB/s) in the background" novactl scrub start --restart --bandwidth 1M "$M"
sleep 3
txt=$(novactl scrub status "$M")
js=$(novactl scrub status --json "$M")
t_diag "$(grep -E 'State|Scanned|Rate|Time left' <<< "$txt" | tr '\n' '|')"
t_ok "running: Rate line" grep -qE '^  Rate: +[0-9.]+ [KMG]?i?B/s' <<< "$txt"
t_ok "running: Time left line" grep -qE '^  Time left: +[0-9hms]+ \(at that rate\)' <<< "$txt"
eta=$(sj "$js" eta_sec)
t_ok "JSON eta_sec while running: 1..20 s for ~12 MiB at 1 MiB/s ($eta)" test "$eta" -ge 1 -a "$eta" -le 20
t_ok "JSON rate about 1 MiB/s ($(sj "$js" rate))" test "$(sj "$js" rate)" -gt 500000 -a "$(sj "$js" rate)" -lt 1600000
t_ok "pause it" novactl scrub stop "$M"
t_ok "paused: the rate is over the running time" sh -c "novactl scrub status $M | grep -q 'average while running'"
p1=$(novactl scrub status --json "$M")
t_is "paused: no eta" "$(sj "$p1" eta_sec)" null
sleep 3
p2=$(novactl scrub status --json "$M")
t_is "paused: run_ns stands still while paused" "$(sj "$p2" run_ns)" "$(sj "$p1" run_ns)"
w=$(( ($(date +%s%N) - $(sj "$p2" start_ns)) ))
t_ok "... and is below the wall time since the start by the pause ($(sj "$p2" run_ns) vs $w ns)" \
	test "$(sj "$p2" run_ns)" -lt $((w - 2500000000))
t_ok "... so the rate stays about 1 MiB/s after the pause ($(sj "$p2" rate))" \
	test "$(sj "$p2" rate)" -gt 500000 -a "$(sj "$p2" rate)" -lt 1600000
t_ok "resume" novactl scrub start "$M"
sleep 2
r3=$(novactl scrub status --json "$M")
t_ok "resumed: run_ns grows again" test "$(sj "$r3" run_ns)" -gt "$(sj "$p2" run_ns)"
t_ok "resumed: eta again ($(sj "$r3" eta_sec))" test "$(sj "$r3" eta_sec)" != null
# The resumed pass may have finished by now on a fast or lightly loaded
# guest; then stop says so, and either way nothing runs at the unmount.
stop_or_done() {
	local out
	out=$(novactl scrub stop "$M" 2>&1) || grep -q "the last one finished" <<< "$out"
}
t_ok "stop (or the pass finished already)" stop_or_done
t_ok "umount" nova_umount
rm -rf "$T"
t_done

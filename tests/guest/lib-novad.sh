# Helpers for the novad tests (sourced after lib.sh, bash): journal
# queries since a cursor, and waiting for a journal entry.

MID_STARTED=64b838b7e9ee4478bc9dba99938bf34d
MID_REJECTED=5380f6bccc364ca3a18698312de4eda0
MID_MOUNTED=8f44d4ff0555461dae2ac6eab0d619c4
MID_UNMOUNTED=c1c02c36371b454a93477beac918761f
MID_UNAVAILABLE=0ef52dab008141e9a201485e75ce40f1
MID_SNAP_CREATED=026458e4047843aca6bf66853506baa9
MID_SNAP_DELETED=eec686a34ad544088f939c2d18aa0c7a
MID_SCRUB_FINISHED=977c38b541da459fbf2517a894492628
MID_CORRUPTION=4ecb137f478e4312a30d2cada427e1e2
MID_HOOK=18de991af75a4045bc92c137cd9c0655
MID_SKIPPED=96277a3f9bed4dc89249644d1b7df4ab

# jcount FIELD=VALUE...: how many novad journal entries since the cursor
# (mark_journal) have every field; VALUE "~TEXT" means "contains TEXT".
jcount() {
	journalctl -u novad -o json --no-pager ${JCURSOR:+--after-cursor="$JCURSOR"} 2>/dev/null |
	python3 -c '
import json, sys
want = [a.split("=", 1) for a in sys.argv[1:]]
def ok(e, k, v):
    got = e.get(k)
    if not isinstance(got, str):
        return False
    return v[1:] in got if v.startswith("~") else got == v
n = 0
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    n += all(ok(e, k, v) for k, v in want)
print(n)' "$@"
}
jmatch() { [ "$(jcount "$@")" -ge 1 ]; }
jatleast() { local n=$1; shift; [ "$(jcount "$@")" -ge "$n" ]; }

# t_journal DESC [SECONDS] FIELD=VALUE...: wait up to SECONDS (20 if not
# given) for such an entry; on failure show the last entries.
t_journal() {
	local desc=$1 secs=20
	shift
	if [[ $1 =~ ^[0-9]+$ ]]; then
		secs=$1
		shift
	fi
	if wait_for "$secs" jmatch "$@"; then
		t_ok "$desc" true
	else
		t_ok "$desc" false
		t_diag "no novad journal entry with: $*"
		journalctl -u novad -o json --no-pager -n 15 2>&1 | sed 's/^/#   /' | cut -c1-600
	fi
}

# mark_journal: later queries see only entries written after this point.
mark_journal() {
	JCURSOR=$(journalctl -u novad -n 1 --show-cursor --no-pager 2>/dev/null |
		  sed -n 's/^-- cursor: //p')
}

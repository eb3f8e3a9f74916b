#!/usr/bin/env bash
# Count a TAP stream and print "PASS FAIL SKIP" followed by the failing
# lines (with their diagnostics) on the following lines.
#
# usage: tests/lib/tap-count.sh FILE.tap [EXIT-STATUS]
#
# A missing or mismatched plan, or a non-zero exit status with no failing
# test point, counts as one more failure.
set -u
file=$1
rc=${2:-0}
awk -v rc="$rc" '
/^ok [0-9]+/ {
	if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skip++; else pass++
	seen++; indiag = 0; next
}
/^not ok [0-9]+/ {
	if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) { skip++; seen++; next }
	fail++; seen++; msg = msg $0 "\n"; indiag = 1; next
}
/^1\.\.[0-9]+/ {
	planned = substr($1, 4) + 0; hasplan = 1
	if (planned == 0 && $0 ~ /[Ss][Kk][Ii][Pp]/) skip++
	indiag = 0; next
}
/^#/ { if (indiag) msg = msg $0 "\n"; next }
END {
	if (rc == 124 || rc == 137) { fail++; msg = msg "timed out (killed at its time limit)\n" }
	else if (!hasplan) { fail++; msg = msg "no TAP plan (test died or printed none)\n" }
	else if (planned != seen) { fail++; msg = msg sprintf("planned %d tests, ran %d\n", planned, seen) }
	else if (rc != 0 && fail == 0) { fail++; msg = msg sprintf("exited with status %d\n", rc) }
	printf "%d %d %d\n%s", pass, fail, skip, msg
}' "$file"

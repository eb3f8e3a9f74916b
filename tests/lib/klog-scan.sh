#!/usr/bin/env bash
# Kernel-log watchdog: print the lines of LOG that show a kernel problem
# and exit 1 if there is any.
#
# usage: tests/lib/klog-scan.sh LOG [EXPECT-FILE...]
#
# Problems: oops, BUG, WARNING, general protection fault, panic, lockdep,
# KASAN/UBSAN/KFENCE, list corruption, kmemleak, hung tasks, RCU stalls, soft/hard lockups, userspace
# segfaults, and any line of the nova module tagged "error". Lines that
# match an ERE from an EXPECT-FILE (one per line) are not problems.
set -u
log=$1
shift

problems='Oops|BUG:|kernel BUG|WARNING:|general protection fault|Kernel panic'
problems="$problems|possible circular locking|possible recursive locking"
problems="$problems|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON"
# lockdep turning itself off (its own limits hit, or after a report); its
# boot banner ("RCU lockdep checking is enabled") is not a problem.
problems="$problems|lockdep is turned off|turning off the locking correctness validator"
problems="$problems|KASAN|UBSAN|KFENCE|blocked for more than [0-9]+ seconds"
problems="$problems|rcu_[a-z]*.* stall|self-detected stall|soft lockup|hard LOCKUP"
problems="$problems|Call Trace:|segfault at|invalid opcode:|stack-protector"
# The debug kernel's checkers (make test-debug) that may print without a
# WARNING/BUG line of their own: DEBUG_LIST, kmemleak.
problems="$problems|list_(add|del) corruption|suspected memory leak"
# The module's messages start "nova: " or "nova (DEV): " (see module/nova.h).
problems="$problems|(^|[] ])nova( \([^)]*\))?: .*([Ee]rror|ERROR)"

[ -f "$log" ] || exit 0
expect=$(mktemp)
trap 'rm -f "$expect"' EXIT
for f in "$@"; do
	[ -f "$f" ] && grep -v '^[[:space:]]*$' "$f" >> "$expect"
done
if [ -s "$expect" ]; then
	hits=$(grep -E -- "$problems" "$log" | grep -Ev -f "$expect")
else
	hits=$(grep -E -- "$problems" "$log")
fi
[ -z "$hits" ] && exit 0
printf '%s\n' "$hits" | head -n 20
exit 1

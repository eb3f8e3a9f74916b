#!/usr/bin/env bash
# Run fstests (xfstests) against NOVA or ext4 -o dax in the QEMU guest.
#
# usage: tests/fstests/run.sh [options] [TEST...]
#
#   --fs nova|ext4-dax  file system (default nova; ext4-dax is the reference)
#   --group G           fstests group of generic/ tests to run (default quick)
#   --from N            start at the Nth test of the group (1-based)
#   --count N           run N tests from there (default: all)
#   --timeout SECS      limit for the whole guest boot (default 43200)
#   TEST...             run these tests instead (e.g. generic/001)
#
# Builds fstests first (tests/fstests/build.sh), boots one guest with two
# 2 GiB NVDIMMs and runs tests/fstests/guest.sh there. Results go to
# build/fstests-results/FS/:
#   status      one line per test ever run there: TEST STATUS SECONDS REASON
#               (the last run of a test wins, so slices add up)
#   summary     pass/fail/notrun counts and the comparison below
#   failed/     for each failure: check's output, .out.bad, .full, .dmesg,
#               the kernel log
#   runs/STAMP  the raw guest output of each run
# A test whose kernel log shows a problem (tests/lib/klog-scan.sh) fails;
# tests/fstests/klog.expect, if there, holds EREs of expected lines.
# The results of the tests just run are compared with tests/fstests/FS.expect
# (one line per test that is expected to fail or not run, with the reason).
# Exit status 1 if a test failed or did not run without being listed there
# (or the guest did not finish), else 0; a listed test that passes is
# reported so that its line can be removed.
set -uo pipefail
. "$(dirname "$0")/../../qemu/lib.sh"
cd "$nova_top" || exit 1

fs=nova group=quick from=1 count=0 timeout=43200
tests=()
while [ $# -gt 0 ]; do
	case "$1" in
	--fs) fs=$2; shift ;;
	--group) group=$2; shift ;;
	--from) from=$2; shift ;;
	--count) count=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) nova_die "unknown option $1 (see --help)" ;;
	*) tests+=("$1") ;;
	esac
	shift
done
case $fs in
nova|ext4-dax) ;;
*) nova_die "--fs $fs: nova or ext4-dax" ;;
esac

tests/fstests/build.sh || exit 1
build=$(nova_build_dir)
src=$build/fstests

if [ ${#tests[@]} -eq 0 ]; then
	mapfile -t tests < <(awk -v g="$group" '
		/^#/ { next }
		{ for (i = 2; i <= NF; i++) if ($i == g) { print "generic/" $1; break } }' \
		"$src/tests/generic/group.list" | sort)
	[ ${#tests[@]} -gt 0 ] || nova_die "no generic tests in group $group"
	tests=("${tests[@]:$((from - 1))}")
	[ "$count" -gt 0 ] && tests=("${tests[@]:0:$count}")
fi

resdir=$build/fstests-results/$fs
stamp=$(date +%Y%m%d-%H%M%S)
out=$resdir/runs/$stamp
mkdir -p "$out" "$resdir/failed"
echo "$fs /out/fstests ${tests[*]}" > "$out/fstests.args"
echo "nova: fstests on $fs: ${#tests[@]} tests (${tests[0]} .. ${tests[-1]}), guest output in $out" >&2
qemu/run-guest.sh --out "$out" --pmem-count 2 --pmem-size 2G --timeout "$timeout" \
	--script tests/fstests/guest.sh
grc=$?
secs=$(cat "$out/boot-seconds" 2>/dev/null || echo "?")

# Fold this run into the per-file-system results (again on the host: the
# guest does not get to it when it is stopped by the timeout).
status=$out/fstests/status
mkdir -p "$out/fstests"
python3 tests/fstests/results.py klog "$out/fstests"
python3 tests/fstests/results.py status "$out/fstests" "${tests[@]}" > "$status"
new=()
while read -r t st s reason; do
	name=${t//\//-}
	klog=$out/fstests/log/$name.klog
	hits=$(tests/lib/klog-scan.sh "$klog" tests/fstests/klog.expect)
	if [ -n "$hits" ]; then
		st=fail
		reason="kernel log: $(head -n1 <<< "$hits" | sed 's/^\[[ 0-9.]*\] //' | cut -c1-100)"
	fi
	new+=("$t $st $s $reason")
	[ "$st" = missing ] && continue
	rm -rf "${resdir:?}/failed/$name"
	if [ "$st" = fail ]; then
		mkdir -p "$resdir/failed/$name"
		cp "$out/fstests/log/$name".* "$resdir/failed/$name/" 2>/dev/null
		for f in "$out/fstests/$t".*; do
			[ -f "$f" ] && cp "$f" "$resdir/failed/$name/"
		done
	fi
done < "$status"
ran=$(awk '$2 != "missing"' "$status" | wc -l)
done_now=$(printf '%s\n' "${new[@]}" | awk '$2 != "missing"')
{
	[ -f "$resdir/status" ] && grep -v -F -f <(awk '{ print $1 " " }' <<< "$done_now") "$resdir/status"
	printf '%s\n' "$done_now"
} | grep -v '^$' | sort -V > "$resdir/status.new"
mv "$resdir/status.new" "$resdir/status"

# Compare with the reviewed list.
expect=tests/fstests/$fs.expect
unexpected=() fixed=()
for line in "${new[@]}"; do
	read -r t st _ reason <<< "$line"
	want=$(awk -v t="$t" '$1 == t { print $2 }' "$expect" 2>/dev/null)
	if [ "$st" = pass ]; then
		[ -z "$want" ] || fixed+=("$t (listed as $want)")
	elif [ "$st" = missing ]; then
		unexpected+=("$t did not run to completion (guest: $(cat "$out/host-status" 2>/dev/null))")
	elif [ "$st" != "$want" ]; then
		unexpected+=("$t $st: $reason")
	fi
done

count_of() { awk -v s="$1" '$2 == s' "$2" | wc -l; }
tmp=$(mktemp)
printf '%s\n' "${new[@]}" > "$tmp"
{
	echo "fstests on $fs, run $stamp: ${#tests[@]} tests asked, $ran ran in a guest of $secs s ($(cat "$out/host-status" 2>/dev/null))"
	echo "this run: $(count_of pass "$tmp") pass, $(count_of fail "$tmp") fail, $(count_of notrun "$tmp") notrun"
	echo "all runs ($resdir/status): $(count_of pass "$resdir/status") pass, $(count_of fail "$resdir/status") fail, $(count_of notrun "$resdir/status") notrun"
	if [ ${#unexpected[@]} -gt 0 ]; then
		echo "not in $expect (failures or not-runs to fix or to list with a reason):"
		printf '  %s\n' "${unexpected[@]}"
	fi
	if [ ${#fixed[@]} -gt 0 ]; then
		echo "listed in $expect but passed (remove the line):"
		printf '  %s\n' "${fixed[@]}"
	fi
} | tee "$resdir/summary"
rm -f "$tmp"
[ "$grc" = 0 ] && [ ${#unexpected[@]} -eq 0 ]

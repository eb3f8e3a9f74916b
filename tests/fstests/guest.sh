#!/bin/bash
# Guest side of the fstests runs: run fstests' "check" on a list of tests
# against NOVA or ext4 -o dax, with the build at /nova/build/fstests
# (read-only 9p share; results go elsewhere).
#
# usage (in the guest): tests/fstests/guest.sh FS RESULTS TEST...
#        tests/fstests/guest.sh     (arguments from /out/fstests.args, as
#                                    tests/fstests/run.sh boots it)
#
#   FS       nova or ext4-dax (tests/fstests/configs/FS.config)
#   RESULTS  writable directory (on /out for the host to read)
#   TEST     fstests test names, e.g. generic/001
#
# Needs two fsdax devices: TEST_DEV=/dev/pmem0 (formatted here, once) and
# SCRATCH_DEV=/dev/pmem1 (the tests format it). Writes to RESULTS:
#   status       one line per test: TEST STATUS SECONDS [REASON], STATUS
#                pass, fail, notrun or missing (tests/fstests/results.py)
#   check.out    check's output (also on the console as it runs)
#   result.xml   check's xunit report
#   kernel.log   the kernel log of the run, and log/TEST.klog per test
#   generic/     fstests' own files (.out.bad, .full, .dmesg, .notrun)
# Exit status 0 when check ran (whatever the results), 1 on a setup error.
set -u
top=${NOVA_TOP:-/nova}
if [ $# -eq 0 ] && [ -f /out/fstests.args ]; then
	# shellcheck disable=SC2046
	set -- $(cat /out/fstests.args)
fi
[ $# -ge 2 ] || { echo "usage: $0 FS RESULTS TEST..." >&2; exit 2; }
fs=$1 results=$2
shift 2
src=$top/build/fstests
conf=$top/tests/fstests/configs/$fs.config

die() { echo "fstests-guest: $*" >&2; exit 1; }
[ -x "$src/check" ] || die "no fstests build at $src (tests/fstests/build.sh)"
[ -f "$conf" ] || die "no config $conf"
for d in /dev/pmem0 /dev/pmem1; do
	[ -b "$d" ] || die "$d missing: boot with --pmem-count 2"
done
mkdir -p "$results/log" || die "cannot write $results"
results=$(cd "$results" && pwd)

# The users and groups some tests switch to (fstests README).
id fsgqa > /dev/null 2>&1 || useradd -m fsgqa
id fsgqa2 > /dev/null 2>&1 || useradd -m fsgqa2
id 123456-fsgqa > /dev/null 2>&1 || useradd -m 123456-fsgqa
getent group fsgqa > /dev/null || groupadd fsgqa
# generic/131's locktest client and server meet over TCP on "localhost":
# the image has no /etc/hosts (debootstrap writes none; the root is a
# snapshot) and the loopback interface is down.
getent hosts localhost > /dev/null ||
	echo "127.0.0.1 localhost" >> /etc/hosts
ip link set lo up || die "cannot bring up the loopback interface"
mkdir -p /mnt/test /mnt/scratch

# fstests reads the config from HOST_OPTIONS; the results go to
# RESULT_BASE, the temporary files to /tmp. mkfs -t NOVA and fsck -t NOVA
# find mkfs.NOVA and fsck.NOVA in PATH (the harness puts build/bin there).
export HOST_OPTIONS=$conf RESULT_BASE=$results
. "$conf"
t0=$SECONDS
umount -q /mnt/test /mnt/scratch 2>/dev/null
case $fs in
nova) mkfs.NOVA -f -q "$TEST_DEV" ;;
ext4-dax) mkfs.ext4 -F -q "$TEST_DEV" ;;
*) die "unknown file system $fs" ;;
esac || die "cannot format $TEST_DEV"

# fstests' _link_out_file (generic/035) puts a symlink to the golden
# output it picks beside the test; the share is read-only, so the generic
# tests' directory (the only one run) is a writable copy in the guest for
# the run. Each phase's time goes to the console: under TCG on a loaded
# machine the start-up has taken minutes.
tests_copy=$(mktemp -d /tmp/fstests-tests.XXXXXX) ||
	die "cannot make a directory in /tmp"
if ! cp -a "$src/tests/generic/." "$tests_copy" ||
   ! mount --bind "$tests_copy" "$src/tests/generic"; then
	die "cannot make a writable copy of $src/tests/generic"
fi
echo "fstests-guest: $TEST_DEV formatted and tests/generic copied in $((SECONDS - t0)) s" > /dev/console

# One "check" for the whole list: its start-up and the final check of
# TEST_DEV cost about 40 s under TCG, too much to pay per test.
dmesg -w > "$results/kernel.log" 2>&1 &
klogger=$!
(cd "$src" && exec ./check -R xunit "$@") 2>&1 < /dev/null | tee "$results/check.out" |
	sed -u 's/^/fstests: /' > /dev/console
kill "$klogger" 2>/dev/null
wait "$klogger" 2>/dev/null
umount -q /mnt/test /mnt/scratch 2>/dev/null
umount "$src/tests/generic" && rm -rf "$tests_copy"
python3 "$top/tests/fstests/results.py" klog "$results"
python3 "$top/tests/fstests/results.py" status "$results" "$@" > "$results/status"
exit 0

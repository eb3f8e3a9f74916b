#!/usr/bin/env bash
# Host unit tests of the harness's own tools: the kernel-log watchdog and
# the TAP counter, on canned inputs.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scan=tests/lib/klog-scan.sh
count=tests/lib/tap-count.sh

printf '[ 1.0] nova: file system type NOVA registered\n[ 2.0] EXT4-fs (pmem0): mounted\n' > "$tmp/clean"
t_ok "clean kernel log passes" "$scan" "$tmp/clean"
for line in \
	"WARNING: CPU: 1 PID: 42 at fs/nova/log.c:10 nova_append+0x1/0x2 [nova]" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000008" \
	"general protection fault, probably for non-canonical address" \
	"INFO: task mount:123 blocked for more than 120 seconds." \
	"rcu: INFO: rcu_preempt self-detected stall on CPU" \
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s!" \
	"WARNING: possible circular locking dependency detected" \
	"UBSAN: shift-out-of-bounds in fs/nova/balloc.c:12" \
	"nova (pmem0): error: bad log page tail at 0x1000" \
	"Kernel panic - not syncing: Fatal exception" \
	"BUG: KASAN: slab-out-of-bounds in nova_append_entry+0x1a/0x80 [nova]" \
	"BUG: KASAN: use-after-free in nova_evict_inode+0x2c/0x90 [nova]" \
	"BUG: KFENCE: out-of-bounds read in nova_lookup+0x44/0x120 [nova]" \
	"BUG: KFENCE: use-after-free write in nova_gc_work+0x10/0x60 [nova]" \
	"UBSAN: array-index-out-of-bounds in /nova/module/dir.c:88:3" \
	"BUG: sleeping function called from invalid context at mm/slab.h:712" \
	"WARNING: possible recursive locking detected" \
	"WARNING: suspicious RCU usage" \
	"list_add corruption. prev->next should be next (ffff8880), but was 0000" \
	"kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)" \
	"BUG: MAX_LOCKDEP_CHAINS too low!" \
	"turning off the locking correctness validator." \
	"DEBUG_LOCKS_WARN_ON(1)"; do
	printf '[ 1.0] ok line\n[ 3.0] %s\n' "$line" > "$tmp/bad"
	t_fail "watchdog flags: ${line:0:40}" "$scan" "$tmp/bad"
done
# Boot lines of the debug kernel (make test-debug) are not problems.
printf '%s\n' "[ 0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar" \
	"[ 0.0] ... MAX_LOCKDEP_SUBCLASSES:  8" "[ 0.0] kasan: KernelAddressSanitizer initialized (generic)" \
	"[ 0.1] kfence: initialized - using 2097152 bytes for 255 objects" \
	"[ 0.1] kmemleak: Kernel memory leak detector disabled" \
	"[ 0.5] rcu: 	RCU lockdep checking is enabled." > "$tmp/debugboot"
t_ok "the debug kernel's boot lines pass" "$scan" "$tmp/debugboot"
printf '/nova/qemu/guest/main.sh: line 25: /bin/sleep: Input/output error\n' > "$tmp/user"
t_ok "a userspace line naming a /nova path is not a nova error" "$scan" "$tmp/user"
printf '[    3.1] nova: error: cannot register\n' > "$tmp/bad2"
t_fail "watchdog flags: nova: error: (pr_fmt form)" "$scan" "$tmp/bad2"
printf 'nova (pmem0): error: bad superblock\n' > "$tmp/expected"
printf 'nova \\(pmem0\\): error: bad superblock\n' > "$tmp/expect"
t_ok "a declared nova error line is tolerated" "$scan" "$tmp/expected" "$tmp/expect"
printf 'nova (pmem0): error: other\n' >> "$tmp/expected"
t_fail "an undeclared one next to it is not" "$scan" "$tmp/expected" "$tmp/expect"

# The kmemleak filter of the guest teardown (qemu/guest/main.sh): nova's
# unreferenced objects are flagged, other subsystems' are not.
leaks=tests/lib/kmemleak-nova.sh
printf '%s\n' "unreferenced object 0xffff888104a2d000 (size 128):" \
	'  comm "swapper/0", pid 1, jiffies 4294893020 (age 21.312s)' "  backtrace:" \
	"    [<ffffffff8130a1b2>] __kmalloc+0x42/0x180" \
	"    [<ffffffff81500000>] virtnet_probe+0x10/0x20" > "$tmp/leak-other"
t_ok "kmemleak: another subsystem's leak is not nova's" "$leaks" "$tmp/leak-other"
t_ok "kmemleak: an empty report passes" "$leaks" /dev/null
{ cat "$tmp/leak-other"
  printf '%s\n' "unreferenced object 0xffff888104a2c000 (size 64):" \
	'  comm "mount", pid 312, jiffies 4294893020 (age 21.312s)' "  backtrace:" \
	"    [<ffffffff8130a1b2>] __kmalloc+0x42/0x180" \
	"    [<ffffffffc0412345>] nova_fill_super+0x1a5/0x9c0 [nova]"; } > "$tmp/leak-nova"
t_fail "kmemleak: nova's leak is flagged" "$leaks" "$tmp/leak-nova"
"$leaks" "$tmp/leak-nova" > "$tmp/leak-lines"
t_is "kmemleak: one line, naming the nova frame" \
	"$(grep -c 'allocated at nova_fill_super+0x1a5/0x9c0$' "$tmp/leak-lines")" 1
t_fail "kmemleak: the line is one the watchdog flags" "$scan" "$tmp/leak-lines"
printf '%s\n' "unreferenced object 0xffff888104a2e000 (size 32):" \
	'  comm "kworker/0:1", pid 40, jiffies 4294893020' "  backtrace (crc 1234abcd):" \
	"    kmemleak_alloc+0x4a/0x80" "    nova_gc_work+0x10/0x60 [nova]" > "$tmp/leak-612"
t_fail "kmemleak: 6.12's backtrace form (no addresses) is read too" "$leaks" "$tmp/leak-612"

printf 'ok 1 - a\nok 2 - b # SKIP no\nnot ok 3 - c\n#   why\n1..3\n' > "$tmp/t1"
t_is "TAP counts pass/fail/skip" "$("$count" "$tmp/t1" | head -n1)" "1 1 1"
t_ok "TAP failure keeps its diagnostic" sh -c "'$count' '$tmp/t1' | grep -q '#   why'"
printf 'ok 1 - a\n1..2\n' > "$tmp/t2"
t_is "a short run against its plan fails" "$("$count" "$tmp/t2" | head -n1)" "1 1 0"
printf 'ok 1 - a\n' > "$tmp/t3"
t_is "a missing plan fails" "$("$count" "$tmp/t3" | head -n1)" "1 1 0"
printf 'ok 1 - a\n1..1\n' > "$tmp/t4"
t_is "non-zero exit without a failing point fails" "$("$count" "$tmp/t4" 3 | head -n1)" "1 1 0"
t_is "a test killed at its time limit fails" "$("$count" "$tmp/t4" 124 | head -n1)" "1 1 0"
t_is "a clean run passes" "$("$count" "$tmp/t4" 0 | head -n1)" "1 0 0"
t_done

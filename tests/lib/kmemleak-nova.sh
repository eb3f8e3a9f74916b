#!/usr/bin/env bash
# The leaks of nova.ko in a kmemleak report: print one line per
# unreferenced object whose allocation backtrace has a frame of the nova
# module, in a form the kernel-log watchdog (klog-scan.sh) flags, and
# exit 1 if there is any. Other subsystems' suspected leaks are left out:
# the debug kernel's own (boot-time caches, virtio buffers) are not ours.
#
# usage: tests/lib/kmemleak-nova.sh REPORT
#   REPORT: the text of /sys/kernel/debug/kmemleak after "echo scan"
#
# A report block looks like
#   unreferenced object 0xffff888104a2c000 (size 64):
#     comm "mount", pid 312, jiffies 4294893020 (age 21.312s)
#     hex dump (first 32 bytes): ...
#     backtrace:
#       [<ffffffff8130a1b2>] __kmalloc+0x42/0x180
#       [<ffffffffc0412345>] nova_fill_super+0x1a5/0x9c0 [nova]
set -u
report=$1

[ -s "$report" ] || exit 0
awk '
function flush() {
	if (head != "" && frame != "")
		printf "nova: kmemleak: suspected memory leak: %s %s allocated at %s\n", head, comm, frame
	head = ""; comm = ""; frame = ""
}
/^unreferenced object / { flush(); head = $3 " " $4 " " $5; sub(/:$/, "", head); next }
head != "" && /^ *comm "/ { comm = $1 " " $2; sub(/,$/, "", comm); next }
head != "" && frame == "" && /\[nova\]$/ { frame = $(NF - 1); next }
END { flush() }
' "$report" | grep . && exit 1
exit 0

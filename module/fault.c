// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: deterministic crash points for crash tests.
 *
 * Writing N > 0 to /sys/module/nova/parameters/crash_after_barriers (root
 * only; 0, the default, disarms) arms a countdown of persistence barriers,
 * counted in nova_pmem_fence() across every mounted NOVA file system. The
 * barrier that brings the count to zero completes (everything written back
 * before it is durable) and then the machine stops: one console line
 *
 *	nova: fault injection: crash point reached after N barriers
 *
 * and emergency_restart(), with no shutdown, no unmount, no cache flush.
 * Under QEMU with -no-reboot that ends the emulator, and the NVDIMM backing
 * file holds what a power cut at that instant would have left.
 *
 * Stopping the machine is deliberate. Freezing only NOVA's persistence
 * helpers would not freeze PMEM: file data reaches it through
 * _copy_from_iter_flushcache() and user mmap stores, and some hint fields
 * are plain stores, so "no more writes" could not be enforced in one place.
 * A machine that stops cannot store anything any more.
 *
 * Locking: takes no locks; the parameter callbacks run under the
 * module parameter lock (kernel_param_lock) only.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/reboot.h>
#include <linux/sysfs.h>

#include "fault.h"

DEFINE_STATIC_KEY_FALSE(nova_fault_armed);

/* Barriers left before the crash point; meaningful while armed. */
static atomic_t nova_barriers_left = ATOMIC_INIT(0);
static unsigned int nova_barriers_armed;

void nova_fault_barrier_hit(void)
{
	if (atomic_dec_return(&nova_barriers_left) != 0)
		return;
	/*
	 * Exactly one barrier sees zero: it is the crash point. The caller
	 * (the function the inline fence is in) tells the tests where.
	 */
	pr_emerg("nova: fault injection: crash point reached after %u barriers in %pS\n",
		 nova_barriers_armed, __builtin_return_address(0));
	emergency_restart();
}

static int nova_crash_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	if (n > INT_MAX)
		return -ERANGE;
	if (!n) {
		static_branch_disable(&nova_fault_armed);
		atomic_set(&nova_barriers_left, 0);
		pr_info("nova: fault injection: disarmed\n");
		return 0;
	}
	nova_barriers_armed = n;
	atomic_set(&nova_barriers_left, n);
	static_branch_enable(&nova_fault_armed);
	pr_warn("nova: fault injection: armed, the machine stops after %u persistence barriers\n",
		n);
	return 0;
}

static int nova_crash_get(char *buf, const struct kernel_param *kp)
{
	int left = 0;

	if (static_key_enabled(&nova_fault_armed))
		left = max(atomic_read(&nova_barriers_left), 0);
	return sysfs_emit(buf, "%d\n", left);
}

static const struct kernel_param_ops nova_crash_ops = {
	.set	= nova_crash_set,
	.get	= nova_crash_get,
};

module_param_cb(crash_after_barriers, &nova_crash_ops, NULL, 0600);
MODULE_PARM_DESC(crash_after_barriers,
		 "crash tests only: stop the machine after N more persistence barriers (0: off; reads back the barriers left)");

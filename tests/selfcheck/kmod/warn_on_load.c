// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-check only: a module whose load triggers a WARN, to prove
 * that the kernel-log watchdog fails a test run that provokes one.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_on_load_init(void)
{
	WARN(1, "nova-selfcheck: deliberate warning\n");
	return 0;
}

static void __exit warn_on_load_exit(void)
{
}

module_init(warn_on_load_init);
module_exit(warn_on_load_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test harness self-check: WARN on load");

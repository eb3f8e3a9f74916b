/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: fault injection hook of the persistence barrier (fault.c).
 *
 * Built only into the test module (Kbuild's NOVA_TEST_HOOKS, make
 * module-test); the production module has an empty hook. Disarmed, the
 * hook is a static branch that is never taken.
 */
#ifndef _NOVA_FAULT_H
#define _NOVA_FAULT_H

#ifdef NOVA_TEST_HOOKS
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(nova_fault_armed);
void nova_fault_barrier_hit(void);

/* Called after every persistence barrier (nova_pmem_fence()). */
static inline void nova_fault_barrier(void)
{
	if (static_branch_unlikely(&nova_fault_armed))
		nova_fault_barrier_hit();
}
#else
static inline void nova_fault_barrier(void)
{
}
#endif

#endif /* _NOVA_FAULT_H */

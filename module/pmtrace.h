/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: the persistence trace of the persistence checker (pmtrace.c).
 *
 * Built only into the test module (Kbuild's NOVA_TEST_HOOKS, make
 * module-test). pmem.h and the few places that store to PMEM without it
 * (protect.c's copies of user data, csum.c's streamed parity) call the
 * hooks below after each write-back or non-temporal copy and at each
 * fence; the production module has empty hooks, and in the test module
 * they are a static branch that is not taken unless a trace is armed.
 */
#ifndef _NOVA_PMTRACE_H
#define _NOVA_PMTRACE_H

#include <linux/types.h>

struct super_block;
struct nova_sb_info;

#ifdef NOVA_TEST_HOOKS
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(nova_pmtrace_armed);
void nova_pmtrace_flush_hit(const void *addr, size_t len);
void nova_pmtrace_fence_hit(void);
void nova_pmtrace_attach(struct super_block *sb, void *virt, u64 size);
void nova_pmtrace_detach(void *virt);
void nova_pmtrace_exit(void);

/* @len bytes at @addr were written back or streamed to PMEM. */
static inline void nova_pmtrace_flush(const void *addr, size_t len)
{
	if (static_branch_unlikely(&nova_pmtrace_armed))
		nova_pmtrace_flush_hit(addr, len);
}

/* A fence: everything recorded before it is durable. */
static inline void nova_pmtrace_fence(void)
{
	if (static_branch_unlikely(&nova_pmtrace_armed))
		nova_pmtrace_fence_hit();
}
#else
static inline void nova_pmtrace_flush(const void *addr, size_t len)
{
}

static inline void nova_pmtrace_fence(void)
{
}

static inline void nova_pmtrace_attach(struct super_block *sb, void *virt,
				       u64 size)
{
}

static inline void nova_pmtrace_detach(void *virt)
{
}

static inline void nova_pmtrace_exit(void)
{
}
#endif

#endif /* _NOVA_PMTRACE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: the only way the module stores to persistent memory.
 *
 * The whole device is mapped once at mount (dax_direct_access()); PMEM is
 * then ordinary kernel memory behind the CPU caches. A store is durable
 * only once its cache line has been written back and a fence has ordered
 * the write-back before later stores. The rules every caller follows:
 *
 *  1. Bulk data and new structures are written with nova_pmem_memcpy() or
 *     nova_pmem_memset(), or written with plain stores and then passed to
 *     nova_pmem_flush(). None of these is durable until the next fence.
 *  2. nova_pmem_fence() makes everything written or flushed before it
 *     durable before any store issued after it (sfence on x86, which orders
 *     both non-temporal stores and clwb/clflushopt write-backs).
 *  3. A commit word (see uapi/nova_format.h) is published with
 *     nova_pmem_commit64(): fence (what it points to is durable), one
 *     aligned 8-byte store, write-back, fence (the commit is durable before
 *     the caller goes on). 8-byte aligned stores are the only stores assumed
 *     to be atomic with respect to power failure.
 *  4. Two commit words whose stores may reach the media in either order
 *     (the primary and replica copies of a log tail: the newer one wins on
 *     its own after a crash) share one persistence round:
 *     nova_pmem_commit64_pair(), two fences for both.
 *
 * Every fence and every write-back call is counted per CPU (nova_fences,
 * nova_flushes; stats.c exports the sums as read-only module parameters),
 * so tests can check how many persistence rounds an operation costs.
 *
 * In the test module every write-back and fence is also offered to the
 * persistence trace (pmtrace.c); the production module has empty hooks.
 *
 * Reads need no helper: PMEM is read directly (nova_pmem_read() for copies
 * that should survive a machine check on poisoned media).
 */
#ifndef _NOVA_PMEM_H
#define _NOVA_PMEM_H

#include <linux/string.h>
#include <linux/libnvdimm.h>
#include <linux/uaccess.h>
#include <linux/percpu.h>
#include <asm/barrier.h>

#include "fault.h"
#include "pmtrace.h"

DECLARE_PER_CPU(unsigned long, nova_fences);
DECLARE_PER_CPU(unsigned long, nova_flushes);

/* Copy into PMEM; durable after the next nova_pmem_fence(). */
static inline void nova_pmem_memcpy(void *dst, const void *src, size_t len)
{
	memcpy_flushcache(dst, src, len);
	nova_pmtrace_flush(dst, len);
}

/* The largest constant size nova_pmem_memcpy_words() unrolls. */
#define NOVA_PMEM_UNROLL_BYTES	128

/*
 * nova_pmem_memcpy() of @len bytes, a multiple of 8, to an 8-byte aligned
 * @dst: one non-temporal store per word, inline (memcpy_flushcache() of a
 * constant 8 bytes is one movnti on x86), without the call into
 * __memcpy_flushcache() and its alignment handling; for log entries.
 * Durable after the next nova_pmem_fence().
 */
static __always_inline void nova_pmem_memcpy_words(void *dst,
						   const void *src, size_t len)
{
	u64 *d = dst;
	const u64 *s = src;
	size_t i;

	/*
	 * A constant size (a file write entry's 72 bytes) is unrolled: one
	 * load and one movnti a word, no loop counter (GCC's -O2 keeps a
	 * loop of nine, at six instructions a word).
	 */
	if (__builtin_constant_p(len) && len <= NOVA_PMEM_UNROLL_BYTES) {
#pragma GCC unroll 16
		for (i = 0; i < len / sizeof(u64); i++)
			memcpy_flushcache(d + i, s + i, sizeof(u64));
	} else {
		for (i = 0; i < len / sizeof(u64); i++)
			memcpy_flushcache(d + i, s + i, sizeof(u64));
	}
	nova_pmtrace_flush(dst, len);
}

/* Fill PMEM; durable after the next nova_pmem_fence(). */
static inline void nova_pmem_memset(void *dst, int c, size_t len)
{
	memset(dst, c, len);
	this_cpu_inc(nova_flushes);
	arch_wb_cache_pmem(dst, len);
	nova_pmtrace_flush(dst, len);
}

/* Write back lines dirtied by plain stores; durable after the next fence. */
static inline void nova_pmem_flush(void *addr, size_t len)
{
	this_cpu_inc(nova_flushes);
	arch_wb_cache_pmem(addr, len);
	nova_pmtrace_flush(addr, len);
}

/* Order: everything written back so far is durable before later stores. */
static inline void nova_pmem_fence(void)
{
	/* sfence: drains write-combining buffers and orders clwb */
	wmb();
	this_cpu_inc(nova_fences);
	nova_pmtrace_fence();
	/* crash tests: the machine may stop here (fault.c) */
	nova_fault_barrier();
}

/* Write back and fence in one go. */
static inline void nova_pmem_persist(void *addr, size_t len)
{
	nova_pmem_flush(addr, len);
	nova_pmem_fence();
}

/*
 * Publish an 8-byte commit word. The fence before the store makes the data
 * the word points to durable first; the one after makes the word durable
 * before the caller's next step.
 */
static inline void nova_pmem_commit64(__le64 *word, u64 val)
{
	nova_pmem_fence();
	WRITE_ONCE(*word, cpu_to_le64(val));
	nova_pmem_persist(word, sizeof(*word));
}

/*
 * Publish two 8-byte commit words in one persistence round: fence (what
 * they point to is durable), both stores, both write-backs, fence. A crash
 * may leave either store without the other, in either order, so this is
 * only for a pair where each value is valid alone (the caller's recovery
 * picks the newer). @b may be NULL: then it is nova_pmem_commit64(@a).
 */
static inline void nova_pmem_commit64_pair(__le64 *a, u64 va, __le64 *b,
					   u64 vb)
{
	nova_pmem_fence();
	WRITE_ONCE(*a, cpu_to_le64(va));
	if (b)
		WRITE_ONCE(*b, cpu_to_le64(vb));
	nova_pmem_flush(a, sizeof(*a));
	if (b)
		nova_pmem_flush(b, sizeof(*b));
	nova_pmem_fence();
}

/*
 * Store a commit word without the fences, for the lite journal, which
 * brackets a group of such stores with its own fences.
 */
static inline void nova_pmem_store64(__le64 *word, u64 val)
{
	WRITE_ONCE(*word, cpu_to_le64(val));
	nova_pmem_flush(word, sizeof(*word));
}

/* Copy out of PMEM; returns the number of bytes NOT copied (poison). */
static inline unsigned long nova_pmem_read(void *dst, const void *src,
					   size_t len)
{
	return copy_mc_to_kernel(dst, src, len);
}

#endif /* _NOVA_PMEM_H */

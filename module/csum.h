/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: crc32c and the data-protection copy loops (csum.c).
 *
 * Every checksum NOVA puts on media is crc32c (Castagnoli) seeded with
 * ~0 and NOT inverted at the end: what crc32c(~0U, buf, len) returns.
 * These helpers compute exactly that value, so media written by either
 * implementation reads back with the other.
 *
 * On x86-64 with SSE4.2 they use the crc32q instruction inline: it works
 * on general registers, so there is no FPU section and no crypto API call
 * (libcrc32c goes through a shash descriptor, and crc32c-intel takes
 * kernel_fpu_begin()/end() for every buffer of 512 bytes or more).
 * Elsewhere they fall back to crc32c().
 *
 *  - nova_crc32c(): crc32c() for the small metadata checksums (log
 *    entries, tails, journals, the superblock).
 *  - nova_csum_copy_user_block(): copy one 4 KiB block from user memory
 *    to PMEM with non-temporal stores, computing its 8 strip checksums
 *    and its XOR parity strip on the way (one pass; parity stored with
 *    non-temporal stores too; AVX2 or SSE2 registers where the CPU has
 *    them). Durable after the caller's next fence.
 *  - nova_csum_strips(): the 8 strip checksums of a block in memory.
 *  - nova_csum_copy_mc_strip_to_user(): copy one 512-byte strip from PMEM
 *    to user memory with machine-check-safe loads, computing its checksum
 *    on the way (the verified read's one pass).
 */
#ifndef _NOVA_CSUM_H
#define _NOVA_CSUM_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/types.h>

u32 nova_crc32c(u32 crc, const void *buf, size_t len);

/* crc32q works and agrees with crc32c() (nova_csum_init()). */
extern bool nova_crc_fast;

#ifdef CONFIG_X86_64
/* The chains are u64 (crc32q zeroes the upper half): no conversions. */
static __always_inline u64 nova_crc32q(u64 crc, u64 v)
{
	asm("crc32q %1, %0" : "+r" (crc) : "rm" (v));
	return crc;
}
#endif

/*
 * nova_crc32c() of a buffer of a constant @len, a multiple of 8 of at
 * most 128 bytes (a file write entry's 72, sealed on every write): with
 * crc32q, one instruction a word, unrolled and inline, instead of the
 * call and the alignment and tail loops of the general one.
 */
static __always_inline u32 nova_crc32c_words(u32 crc, const void *buf,
					     size_t len)
{
#ifdef CONFIG_X86_64
	const u64 *w = buf;
	u64 c = crc;
	size_t i;

	BUILD_BUG_ON(!__builtin_constant_p(len) || len % sizeof(u64) ||
		     len > 128);
	if (likely(nova_crc_fast)) {
#pragma GCC unroll 16
		for (i = 0; i < len / sizeof(u64); i++)
			c = nova_crc32q(c, w[i]);
		return c;
	}
#endif
	return nova_crc32c(crc, buf, len);
}
bool nova_csum_fast(void);
int nova_csum_copy_user_block(void *dst, const void __user *src, u32 *csum,
			      u64 *parity);
void nova_csum_strips(const void *block, u32 *csum);
int nova_csum_copy_mc_strip_to_user(void __user *dst, const void *src,
				    u32 *crc);
void nova_csum_init(void);

#endif /* _NOVA_CSUM_H */

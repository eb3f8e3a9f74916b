// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: crc32c without the crypto API, and the one-pass copy that
 * checksums and builds parity while it writes a data block (csum.h).
 *
 * The on-media checksum is crc32c(~0U, buf, len): Castagnoli polynomial,
 * seed ~0, no final inversion. The x86 crc32 instruction computes the
 * same CRC update (reflected Castagnoli, no inversions of its own), so a
 * chain started at ~0 and fed every byte in order ends at that value.
 * nova_csum_init() checks this against crc32c() when the module loads and
 * keeps the portable path if they ever disagree.
 *
 * The block copy (nova_csum_copy_user_block()) goes over the block
 * row-major, all eight strips at once: for each 8-byte word index w of a
 * 512-byte strip, and for each strip s, it loads word w of strip s from
 * the user, feeds it into strip s's crc chain, stores it to PMEM with
 * movnti and XORs it into the row's parity word (about four instructions
 * per word), then stores the parity word. The chains are independent, so
 * the crc32q latency (3 cycles) overlaps across strips, and the block is
 * read once, from the user's (cached) buffer, instead of being streamed
 * out and read back from PMEM for the checksums and again for the
 * parity. User faults end the copy with -EFAULT; the caller then copies
 * the block the ordinary way, which stops at the exact faulting byte as
 * before.
 */
#include <linux/crc32c.h>
#include <linux/uaccess.h>
#include "nova_format.h"
#include <asm/asm.h>
#include <asm/cpufeature.h>

#include "csum.h"

static bool nova_crc_fast __read_mostly;

#define NOVA_STRIP_WORDS	(NOVA_STRIP_SIZE / sizeof(u64))

#ifdef CONFIG_X86_64
/* The chains are u64 (crc32q zeroes the upper half): no conversions. */
static __always_inline u64 nova_crc32q(u64 crc, u64 v)
{
	asm("crc32q %1, %0" : "+r" (crc) : "rm" (v));
	return crc;
}

static __always_inline u32 nova_crc32b(u32 crc, u8 v)
{
	asm("crc32b %1, %0" : "+r" (crc) : "rm" (v));
	return crc;
}

/* A non-temporal 8-byte store: written back by the next sfence. */
static __always_inline void nova_movnti(u64 *dst, u64 v)
{
	asm volatile("movnti %1, %0" : "=m" (*dst) : "r" (v));
}

static u32 nova_crc32c_x86(u32 crc, const u8 *p, size_t len)
{
	while (len && ((unsigned long)p & 7)) {
		crc = nova_crc32b(crc, *p++);
		len--;
	}
	for (; len >= 8; len -= 8, p += 8)
		crc = nova_crc32q(crc, *(const u64 *)p);
	while (len--)
		crc = nova_crc32b(crc, *p++);
	return crc;
}

/* Eight chains, one per strip, word by word across the strips. */
static void nova_csum_strips_x86(const u64 *b, u32 *csum)
{
	u64 c0 = ~0U, c1 = ~0U, c2 = ~0U, c3 = ~0U;
	u64 c4 = ~0U, c5 = ~0U, c6 = ~0U, c7 = ~0U;
	unsigned int w;

	BUILD_BUG_ON(NOVA_STRIPS != 8);
	for (w = 0; w < NOVA_STRIP_WORDS; w++) {
		c0 = nova_crc32q(c0, b[w]);
		c1 = nova_crc32q(c1, b[NOVA_STRIP_WORDS + w]);
		c2 = nova_crc32q(c2, b[2 * NOVA_STRIP_WORDS + w]);
		c3 = nova_crc32q(c3, b[3 * NOVA_STRIP_WORDS + w]);
		c4 = nova_crc32q(c4, b[4 * NOVA_STRIP_WORDS + w]);
		c5 = nova_crc32q(c5, b[5 * NOVA_STRIP_WORDS + w]);
		c6 = nova_crc32q(c6, b[6 * NOVA_STRIP_WORDS + w]);
		c7 = nova_crc32q(c7, b[7 * NOVA_STRIP_WORDS + w]);
	}
	csum[0] = c0; csum[1] = c1; csum[2] = c2; csum[3] = c3;
	csum[4] = c4; csum[5] = c5; csum[6] = c6; csum[7] = c7;
}

/*
 * _ASM_EXTABLE_TYPE_REG(from, to, EX_TYPE_EFAULT_REG, reg) with the
 * operands as strings: a fault at @from that the page fault handler
 * cannot resolve sets register @reg to -EFAULT and resumes at @to.
 */
#define NOVA_EXTABLE_EFAULT(from, to, reg)				\
	" .pushsection \"__ex_table\",\"a\"\n"				\
	" .balign 4\n"							\
	" .long (" from ") - .\n"					\
	" .long (" to ") - .\n"						\
	DEFINE_EXTABLE_TYPE_REG						\
	"extable_type_reg reg=" reg ", type="				\
	__stringify(EX_TYPE_EFAULT_REG) "\n"				\
	UNDEFINE_EXTABLE_TYPE_REG					\
	" .popsection\n"

/*
 * Word @U of a row of the block (the two rows of a round, @U = 0, 1), of
 * strip @S: load it from the user, feed it into strip @S's chain, store it
 * to PMEM with movnti, and fold it into the row's parity word (strip 0
 * loads straight into the parity register, the others XOR into it). A
 * user fault ends the copy at label 9, which returns -EFAULT.
 */
#define NOVA_CW(S, U, LOAD, FOLD)					\
	"1" #S #U ":	movq " #S "*512+" #U "*8(%[s],%[i]), " LOAD "\n" \
	"	crc32q " LOAD ", %[c" #S "]\n"				\
	"	movnti " LOAD ", " #S "*512+" #U "*8(%[d],%[i])\n"	\
	FOLD								\
	_ASM_EXTABLE_TYPE(1##S##U##b, 9f, EX_TYPE_UACCESS)

/* Row @U of a round: eight words, then the parity word (if wanted). */
#define NOVA_CSUM_ROW(U)						\
	NOVA_CW(0, U, "%[p]", "")					\
	NOVA_CW(1, U, "%[v]", "	xorq %[v], %[p]\n")			\
	NOVA_CW(2, U, "%[v]", "	xorq %[v], %[p]\n")			\
	NOVA_CW(3, U, "%[v]", "	xorq %[v], %[p]\n")			\
	NOVA_CW(4, U, "%[v]", "	xorq %[v], %[p]\n")			\
	NOVA_CW(5, U, "%[v]", "	xorq %[v], %[p]\n")			\
	NOVA_CW(6, U, "%[v]", "	xorq %[v], %[p]\n")			\
	NOVA_CW(7, U, "%[v]", "	xorq %[v], %[p]\n")			\
	"	.if %c[par_on]\n"					\
	"	movnti %[p], " #U "*8(%[par],%[i])\n"			\
	"	.endif\n"

/*
 * The whole block in one asm statement, so that the eight chains, the
 * loaded word, the parity word, the three pointers and the index stay in
 * registers (14 of them): row by row (word w of every strip), two rows a
 * round, the index running from -512 up to 0 against pointers to the end
 * of strip 0 and of the parity block. Per 8 bytes: load, crc32q, movnti
 * and (7 of 8) an XOR; per row one parity store; per round add and jnz.
 * Written as C with a stack row buffer (two halves of four strips), GCC
 * needed about 6.5 instructions per word.
 */
#define NOVA_CSUM_BLOCK(PAR_ON)						\
	({								\
		asm volatile("8:\n"					\
			     NOVA_CSUM_ROW(0)				\
			     NOVA_CSUM_ROW(1)				\
			     "	addq $16, %[i]\n"			\
			     "	jnz 8b\n"				\
			     "	xorl %k[v], %k[v]\n"			\
			     "	jmp 10f\n"				\
			     "9:	movq %[efault], %[v]\n"		\
			     "10:\n"					\
			     : [v] "=&r" (v), [p] "=&r" (p), [i] "+r" (i), \
			       [c0] "+r" (c0), [c1] "+r" (c1),		\
			       [c2] "+r" (c2), [c3] "+r" (c3),		\
			       [c4] "+r" (c4), [c5] "+r" (c5),		\
			       [c6] "+r" (c6), [c7] "+r" (c7)		\
			     : [s] "r" (se), [d] "r" (de), [par] "r" (pe), \
			       [par_on] "i" (PAR_ON), [efault] "i" (-EFAULT) \
			     : "memory", "cc");				\
	})

static int nova_csum_copy_user_x86(u64 *d, const u64 __user *s, u32 *csum,
				   u64 *parity)
{
	const u8 __user *se = (const u8 __user *)s + NOVA_STRIP_SIZE;
	u8 *de = (u8 *)d + NOVA_STRIP_SIZE;
	u8 *pe = (u8 *)(parity ? parity : d) + NOVA_STRIP_SIZE;
	u64 c0 = ~0U, c1 = ~0U, c2 = ~0U, c3 = ~0U;
	u64 c4 = ~0U, c5 = ~0U, c6 = ~0U, c7 = ~0U;
	long i = -(long)NOVA_STRIP_SIZE;
	u64 v, p;

	BUILD_BUG_ON(NOVA_STRIP_SIZE != 512 || NOVA_STRIPS != 8);
	if (!user_access_begin(s, NOVA_BLOCK_SIZE))
		return -EFAULT;
	if (parity)
		NOVA_CSUM_BLOCK(1);
	else
		NOVA_CSUM_BLOCK(0);
	user_access_end();
	if (v)
		return (int)v;
	csum[0] = c0; csum[1] = c1; csum[2] = c2; csum[3] = c3;
	csum[4] = c4; csum[5] = c5; csum[6] = c6; csum[7] = c7;
	return 0;
}

/*
 * One word of a strip read: load word @W (byte offset @W * 8 from the
 * index) from PMEM, feed it into the chain, store it to the user. The
 * load may take a machine check (EX_TYPE_DEFAULT_MCE_SAFE: the handler
 * resumes at 9, err still -EIO); the store may fault on user memory the
 * page fault handler cannot resolve (err = -EFAULT, resume at 9).
 */
#define NOVA_MC_WORD(W)							\
	"1" #W ":	movq " #W "*8(%[s],%[i]), %[v]\n"		\
	"	crc32q %[v], %[crc]\n"					\
	"2" #W ":	movq %[v], " #W "*8(%[d],%[i])\n"		\
	_ASM_EXTABLE_TYPE(1 ## W ## b, 9f, EX_TYPE_DEFAULT_MCE_SAFE)	\
	NOVA_EXTABLE_EFAULT("2" #W "b", "9f", "%[err]")

static int nova_csum_copy_mc_strip_x86(u8 __user *dst, const u8 *src,
				       u32 *crc)
{
	long i = -(long)NOVA_STRIP_SIZE;
	u64 c = ~0U, v;
	int err = -EIO;

	if (!user_access_begin(dst, NOVA_STRIP_SIZE))
		return -EFAULT;
	/* A cache line per round: 8 x (load, crc32q, store), add, jnz. */
	asm volatile("8:\n"
		     NOVA_MC_WORD(0) NOVA_MC_WORD(1)
		     NOVA_MC_WORD(2) NOVA_MC_WORD(3)
		     NOVA_MC_WORD(4) NOVA_MC_WORD(5)
		     NOVA_MC_WORD(6) NOVA_MC_WORD(7)
		     "	addq $64, %[i]\n"
		     "	jnz 8b\n"
		     "	xorl %[err], %[err]\n"
		     "9:\n"
		     : [err] "+r" (err), [i] "+r" (i), [v] "=&r" (v),
		       [crc] "+r" (c)
		     : [s] "r" (src + NOVA_STRIP_SIZE),
		       [d] "r" (dst + NOVA_STRIP_SIZE)
		     : "memory", "cc");
	user_access_end();
	*crc = c;
	return err;
}
#endif /* CONFIG_X86_64 */

/* crc32c(@crc, @buf, @len), as linux/crc32c.h defines it. */
u32 nova_crc32c(u32 crc, const void *buf, size_t len)
{
#ifdef CONFIG_X86_64
	if (likely(nova_crc_fast))
		return nova_crc32c_x86(crc, buf, len);
#endif
	return crc32c(crc, buf, len);
}

/* Is nova_csum_copy_user_block() available (else the caller copies)? */
bool nova_csum_fast(void)
{
	return nova_crc_fast;
}

/*
 * Copy the NOVA_BLOCK_SIZE bytes at user @src to PMEM @dst (non-temporal
 * stores), the strip checksums (seed ~0, as on media) into @csum[8] and,
 * if @parity is not NULL, the XOR of the 8 strips to PMEM @parity (512
 * bytes, non-temporal). Durable after the caller's next fence. Returns 0,
 * or -EFAULT if user memory faulted (@dst then holds part of the block;
 * @csum and @parity are not valid) or if there is no fast path
 * (nova_csum_fast()). @dst and @parity must be 8-byte aligned.
 */
int nova_csum_copy_user_block(void *dst, const void __user *src, u32 *csum,
			      u64 *parity)
{
#ifdef CONFIG_X86_64
	if (likely(nova_crc_fast)) {
		might_fault();
		return nova_csum_copy_user_x86(dst, src, csum, parity);
	}
#endif
	return -EFAULT;
}

/*
 * Copy the NOVA_STRIP_SIZE bytes of PMEM at @src to user @dst and put
 * their crc32c (seed ~0, as on media) in *@crc, in one pass: each 8-byte
 * word is loaded once, fed to the crc and stored to the user, so the
 * checksum is of what was read from PMEM, whatever the user's threads do
 * to their buffer meanwhile. The PMEM loads are machine-check safe, as
 * copy_mc_to_kernel() is. Returns 0; -EIO if a load took a machine check
 * (poison); -EFAULT if user memory faulted; -EOPNOTSUPP without the fast
 * path (nova_csum_fast()). On an error @dst holds part of the strip and
 * *@crc is not valid: the caller reads the strip the careful way.
 */
int nova_csum_copy_mc_strip_to_user(void __user *dst, const void *src,
				    u32 *crc)
{
#ifdef CONFIG_X86_64
	if (likely(nova_crc_fast)) {
		might_fault();
		return nova_csum_copy_mc_strip_x86(dst, src, crc);
	}
#endif
	return -EOPNOTSUPP;
}

/* The 8 strip checksums of the block at @block (8-byte aligned). */
void nova_csum_strips(const void *block, u32 *csum)
{
	unsigned int i;

#ifdef CONFIG_X86_64
	if (likely(nova_crc_fast)) {
		nova_csum_strips_x86(block, csum);
		return;
	}
#endif
	for (i = 0; i < NOVA_STRIPS; i++)
		csum[i] = crc32c(~0U, block + i * NOVA_STRIP_SIZE,
				 NOVA_STRIP_SIZE);
}

/*
 * Module load: use crc32q if the CPU has SSE4.2 and it agrees with
 * crc32c() on a test pattern (every length and alignment the helpers
 * handle: head bytes, words, tail bytes, and the strip loop).
 */
void nova_csum_init(void)
{
#ifdef CONFIG_X86_64
	static u64 block[NOVA_BLOCK_SIZE / sizeof(u64)];
	u8 *b = (u8 *)block;
	u32 fast[NOVA_STRIPS];
	unsigned int i, off, len;
	bool ok = true;

	if (!boot_cpu_has(X86_FEATURE_XMM4_2))
		return;
	for (i = 0; i < NOVA_BLOCK_SIZE; i++)
		b[i] = (i * 2654435761U) >> 13;
	for (off = 0; off < 8 && ok; off++)
		for (len = 0; len < 80 && ok; len++)
			ok = nova_crc32c_x86(~0U, b + off, len) ==
			     crc32c(~0U, b + off, len);
	nova_csum_strips_x86(block, fast);
	for (i = 0; i < NOVA_STRIPS && ok; i++)
		ok = fast[i] == crc32c(~0U, b + i * NOVA_STRIP_SIZE,
				       NOVA_STRIP_SIZE);
	if (!ok) {
		pr_warn("nova: crc32q disagrees with crc32c(); using crc32c()\n");
		return;
	}
	nova_crc_fast = true;
#endif
}

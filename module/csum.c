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
 *
 * Where the CPU has them, the same copy first runs in vector registers
 * (AVX2, else SSE2: 32 or 16 bytes per load and per non-temporal store),
 * in an FPU section with page faults disabled; any fault sends the block
 * back to the general-register copy above. nova_csum_init() uses the
 * vector copy only if it gives the same data, checksums and parity.
 */
#include <linux/crc32c.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "nova_format.h"
#include <asm/asm.h>
#include <asm/cpufeature.h>
#ifdef CONFIG_X86_64
#include <asm/fpu/api.h>
#include <asm/simd.h>
#endif

#include "csum.h"

bool nova_crc_fast __read_mostly;

/* Which block copy nova_csum_copy_user_block() tries first. */
enum nova_copy_kind {
	NOVA_COPY_GPR,		/* 8 bytes per load: general registers */
	NOVA_COPY_SSE2,		/* 16 bytes per load: xmm, in an FPU section */
	NOVA_COPY_AVX2,		/* 32 bytes per load: ymm, in an FPU section */
};

static enum nova_copy_kind nova_copy_kind __read_mostly;

#define NOVA_STRIP_WORDS	(NOVA_STRIP_SIZE / sizeof(u64))

#ifdef CONFIG_X86_64
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

/* The general-register copy; the caller has opened user access. */
static __always_inline int nova_csum_copy_gpr(u64 *d, const u64 __user *s,
					      u32 *csum, u64 *parity)
{
	const u8 __user *se = (const u8 __user *)s + NOVA_STRIP_SIZE;
	u8 *de = (u8 *)d + NOVA_STRIP_SIZE;
	u8 *pe = (u8 *)(parity ? parity : d) + NOVA_STRIP_SIZE;
	u64 c0 = ~0U, c1 = ~0U, c2 = ~0U, c3 = ~0U;
	u64 c4 = ~0U, c5 = ~0U, c6 = ~0U, c7 = ~0U;
	long i = -(long)NOVA_STRIP_SIZE;
	u64 v, p;

	BUILD_BUG_ON(NOVA_STRIP_SIZE != 512 || NOVA_STRIPS != 8);
	if (parity)
		NOVA_CSUM_BLOCK(1);
	else
		NOVA_CSUM_BLOCK(0);
	if (v)
		return (int)v;
	csum[0] = c0; csum[1] = c1; csum[2] = c2; csum[3] = c3;
	csum[4] = c4; csum[5] = c5; csum[6] = c6; csum[7] = c7;
	return 0;
}

/*
 * The SIMD copies: the same block, the same order of every strip's chain,
 * the same data and parity as nova_csum_copy_gpr(), 16 (SSE2) or 32
 * (AVX2) bytes per load and per non-temporal store.
 *
 * For each column of a round (16 or 32 bytes at the same offset in every
 * strip) and each strip s: one unaligned load of the user's bytes into a
 * vector register, one store of that register to a slot of a stack
 * buffer, crc32q of the slot's words into strip s's chain, one
 * non-temporal store of the register to PMEM (aligned: @d and @parity
 * must be 16- or 32-byte aligned) and an XOR into the column's parity
 * register (strip 0 loads straight into it), then one store of the
 * parity. The crc reads the stack copy, not the user's buffer again: the
 * checksum is of exactly the bytes stored and folded into the parity,
 * whatever another thread does to the buffer meanwhile (a second load
 * from the user could see different bytes and leave a block whose
 * checksum does not match its data). The index runs from -512 up to 0;
 * a user fault (page faults are disabled, so every fault is one) resumes
 * at label 9 with the index still negative. Per 16 bytes of a strip:
 * SSE2 six instructions, AVX2 four, against the GPR copy's eight.
 */
#define NOVA_SSE2_W(S, U, X, FOLD)					\
	"1" #S #U ":	movdqu " #S "*512+" #U "*16(%[s],%[i]), %%" X "\n" \
	"	movdqu %%" X ", (" #U "*8+" #S ")*16(%[t])\n"		\
	"	crc32q (" #U "*8+" #S ")*16(%[t]), %[c" #S "]\n"	\
	"	crc32q (" #U "*8+" #S ")*16+8(%[t]), %[c" #S "]\n"	\
	"	movntdq %%" X ", " #S "*512+" #U "*16(%[d],%[i])\n"	\
	FOLD								\
	_ASM_EXTABLE_TYPE(1##S##U##b, 9f, EX_TYPE_UACCESS)

/* Column @U of an SSE2 round (two 16-byte columns), parity in @P. */
#define NOVA_SSE2_COL(U, P)						\
	NOVA_SSE2_W(0, U, P, "")					\
	NOVA_SSE2_W(1, U, "xmm1", "	pxor %%xmm1, %%" P "\n")	\
	NOVA_SSE2_W(2, U, "xmm2", "	pxor %%xmm2, %%" P "\n")	\
	NOVA_SSE2_W(3, U, "xmm3", "	pxor %%xmm3, %%" P "\n")	\
	NOVA_SSE2_W(4, U, "xmm4", "	pxor %%xmm4, %%" P "\n")	\
	NOVA_SSE2_W(5, U, "xmm5", "	pxor %%xmm5, %%" P "\n")	\
	NOVA_SSE2_W(6, U, "xmm6", "	pxor %%xmm6, %%" P "\n")	\
	NOVA_SSE2_W(7, U, "xmm7", "	pxor %%xmm7, %%" P "\n")	\
	"	.if %c[par_on]\n"					\
	"	movntdq %%" P ", " #U "*16(%[par],%[i])\n"		\
	"	.endif\n"

/* Strip @S of an AVX2 round (one 32-byte column), parity in ymm8. */
#define NOVA_AVX2_W(S, Y, FOLD)						\
	"1" #S "2:	vmovdqu " #S "*512(%[s],%[i]), %%" Y "\n"	\
	"	vmovdqu %%" Y ", " #S "*32(%[t])\n"			\
	"	crc32q " #S "*32(%[t]), %[c" #S "]\n"			\
	"	crc32q " #S "*32+8(%[t]), %[c" #S "]\n"			\
	"	crc32q " #S "*32+16(%[t]), %[c" #S "]\n"		\
	"	crc32q " #S "*32+24(%[t]), %[c" #S "]\n"		\
	"	vmovntdq %%" Y ", " #S "*512(%[d],%[i])\n"		\
	FOLD								\
	_ASM_EXTABLE_TYPE(1##S##2b, 9f, EX_TYPE_UACCESS)

#define NOVA_AVX2_X(S)	"	vpxor %%ymm" #S ", %%ymm8, %%ymm8\n"

/* AVX2: one 32-byte column a round. */
#define NOVA_AVX2_ROUND							\
	NOVA_AVX2_W(0, "ymm8", "")					\
	NOVA_AVX2_W(1, "ymm1", NOVA_AVX2_X(1))				\
	NOVA_AVX2_W(2, "ymm2", NOVA_AVX2_X(2))				\
	NOVA_AVX2_W(3, "ymm3", NOVA_AVX2_X(3))				\
	NOVA_AVX2_W(4, "ymm4", NOVA_AVX2_X(4))				\
	NOVA_AVX2_W(5, "ymm5", NOVA_AVX2_X(5))				\
	NOVA_AVX2_W(6, "ymm6", NOVA_AVX2_X(6))				\
	NOVA_AVX2_W(7, "ymm7", NOVA_AVX2_X(7))				\
	"	.if %c[par_on]\n"					\
	"	vmovntdq %%ymm8, (%[par],%[i])\n"			\
	"	.endif\n"

/*
 * The whole block: rounds of @ROUND until the index reaches 0, then @END
 * (vzeroupper after AVX2), also where a fault resumes.
 */
#define NOVA_SIMD_BLOCK(ROUND, END, PAR_ON)				\
	({								\
		asm volatile("8:\n"					\
			     ROUND					\
			     "	addq $32, %[i]\n"			\
			     "	jnz 8b\n"				\
			     "9:\n"					\
			     END					\
			     : [i] "+r" (i),				\
			       [c0] "+r" (c0), [c1] "+r" (c1),		\
			       [c2] "+r" (c2), [c3] "+r" (c3),		\
			       [c4] "+r" (c4), [c5] "+r" (c5),		\
			       [c6] "+r" (c6), [c7] "+r" (c7)		\
			     : [s] "r" (se), [d] "r" (de), [par] "r" (pe), \
			       [t] "r" (tmp), [par_on] "i" (PAR_ON)	\
			     : "memory", "cc");				\
	})

/*
 * The SIMD copy of @kind; the caller holds the FPU (kernel_fpu_begin()),
 * has opened user access and disabled page faults. Returns 0 or -EFAULT
 * (@d then holds part of the block; @csum and @parity are not valid).
 */
static __always_inline int nova_csum_copy_simd(enum nova_copy_kind kind,
					       u64 *d, const u64 __user *s,
					       u32 *csum, u64 *parity)
{
	const u8 __user *se = (const u8 __user *)s + NOVA_STRIP_SIZE;
	u8 *de = (u8 *)d + NOVA_STRIP_SIZE;
	u8 *pe = (u8 *)(parity ? parity : d) + NOVA_STRIP_SIZE;
	u64 c0 = ~0U, c1 = ~0U, c2 = ~0U, c3 = ~0U;
	u64 c4 = ~0U, c5 = ~0U, c6 = ~0U, c7 = ~0U;
	long i = -(long)NOVA_STRIP_SIZE;
	u64 tmp[32] __uninitialized;	/* the crc's copy of a round */

	if (kind == NOVA_COPY_AVX2) {
		if (parity)
			NOVA_SIMD_BLOCK(NOVA_AVX2_ROUND, "	vzeroupper\n", 1);
		else
			NOVA_SIMD_BLOCK(NOVA_AVX2_ROUND, "	vzeroupper\n", 0);
	} else {
		if (parity)
			NOVA_SIMD_BLOCK(NOVA_SSE2_COL(0, "xmm8")
					NOVA_SSE2_COL(1, "xmm9"), "", 1);
		else
			NOVA_SIMD_BLOCK(NOVA_SSE2_COL(0, "xmm8")
					NOVA_SSE2_COL(1, "xmm9"), "", 0);
	}
	if (i)
		return -EFAULT;
	csum[0] = c0; csum[1] = c1; csum[2] = c2; csum[3] = c3;
	csum[4] = c4; csum[5] = c5; csum[6] = c6; csum[7] = c7;
	return 0;
}

/* The vector stores need @d and @parity aligned to the vector size. */
static bool nova_csum_simd_aligned(enum nova_copy_kind kind, const void *d,
				   const void *parity)
{
	unsigned long mask = kind == NOVA_COPY_AVX2 ? 31 : 15;

	return !(((unsigned long)d | (unsigned long)parity) & mask);
}

/*
 * The block through the SIMD copy, in an FPU section with page faults
 * disabled (preemption is off there, so a fault cannot be waited for):
 * any fault, a user page not yet mapped as much as one that never will
 * be, ends it with -EFAULT and the caller redoes the block with the
 * general-register copy, whose faults are handled as usual.
 */
static int nova_csum_copy_user_simd(u64 *d, const u64 __user *s, u32 *csum,
				    u64 *parity)
{
	enum nova_copy_kind kind = nova_copy_kind;
	int err = -EFAULT;

	if (!nova_csum_simd_aligned(kind, d, parity) || !may_use_simd())
		return -EFAULT;
	kernel_fpu_begin();
	pagefault_disable();
	if (user_access_begin(s, NOVA_BLOCK_SIZE)) {
		err = nova_csum_copy_simd(kind, d, s, csum, parity);
		user_access_end();
	}
	pagefault_enable();
	kernel_fpu_end();
	return err;
}

static int nova_csum_copy_user_x86(u64 *d, const u64 __user *s, u32 *csum,
				   u64 *parity)
{
	int err;

	if (nova_copy_kind != NOVA_COPY_GPR &&
	    !nova_csum_copy_user_simd(d, s, csum, parity))
		return 0;
	if (!user_access_begin(s, NOVA_BLOCK_SIZE))
		return -EFAULT;
	err = nova_csum_copy_gpr(d, s, csum, parity);
	user_access_end();
	return err;
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

#ifdef CONFIG_X86_64
/*
 * The copy of @kind against the general-register copy and crc32c() on the
 * test block at @src (unaligned on purpose), with and without parity:
 * the same data, the same strip checksums, the same parity, and those
 * equal to crc32c() and the XOR of the strips. @scratch holds two block
 * copies and two parity strips.
 */
static bool nova_csum_copy_agrees(enum nova_copy_kind kind, const u8 *src,
				  u8 *scratch)
{
	const u64 __user *us = (__force const u64 __user *)src;
	u64 *d1 = (u64 *)scratch, *d2 = d1 + NOVA_BLOCK_SIZE / 8;
	u64 *p1 = d2 + NOVA_BLOCK_SIZE / 8, *p2 = p1 + NOVA_STRIP_SIZE / 8;
	u32 c1[NOVA_STRIPS], c2[NOVA_STRIPS];
	unsigned int i, w, par;
	int e1, e2;

	for (par = 0; par < 2; par++) {
		memset(scratch, 0, 2 * NOVA_BLOCK_SIZE + 2 * NOVA_STRIP_SIZE);
		e1 = nova_csum_copy_gpr(d1, us, c1, par ? p1 : NULL);
		if (kind == NOVA_COPY_GPR) {
			e2 = nova_csum_copy_gpr(d2, us, c2, par ? p2 : NULL);
		} else {
			kernel_fpu_begin();
			e2 = nova_csum_copy_simd(kind, d2, us, c2,
						 par ? p2 : NULL);
			kernel_fpu_end();
		}
		wmb();	/* the non-temporal stores, before reading back */
		if (e1 || e2 || memcmp(d1, src, NOVA_BLOCK_SIZE) ||
		    memcmp(d1, d2, NOVA_BLOCK_SIZE) ||
		    memcmp(c1, c2, sizeof(c1)) ||
		    memcmp(p1, p2, NOVA_STRIP_SIZE))
			return false;
		for (i = 0; i < NOVA_STRIPS; i++)
			if (c1[i] != crc32c(~0U, src + i * NOVA_STRIP_SIZE,
					    NOVA_STRIP_SIZE))
				return false;
		for (w = 0; par && w < NOVA_STRIP_WORDS; w++) {
			u64 x = 0;

			for (i = 0; i < NOVA_STRIPS; i++)
				x ^= d1[i * NOVA_STRIP_WORDS + w];
			if (p1[w] != x)
				return false;
		}
	}
	return true;
}

/* The fastest block copy this CPU has that agrees with the GPR copy. */
static void nova_csum_copy_choose(const u8 *pattern)
{
	enum nova_copy_kind kind = NOVA_COPY_SSE2;
	u8 *scratch;

	if (boot_cpu_has(X86_FEATURE_AVX2) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		kind = NOVA_COPY_AVX2;
	/* Room for the source at an odd offset, 2 blocks, 2 parity strips. */
	scratch = kmalloc(4 * NOVA_BLOCK_SIZE + 2 * NOVA_STRIP_SIZE,
			  GFP_KERNEL);
	if (!scratch)
		return;
	memcpy(scratch + 3, pattern, NOVA_BLOCK_SIZE);
	if (!nova_csum_copy_agrees(NOVA_COPY_GPR, scratch + 3,
				   scratch + 2 * NOVA_BLOCK_SIZE)) {
		pr_warn("nova: the crc32q block copy disagrees with crc32c(); using crc32c()\n");
		nova_crc_fast = false;
	} else if (!nova_csum_copy_agrees(kind, scratch + 3,
					  scratch + 2 * NOVA_BLOCK_SIZE)) {
		pr_warn("nova: the %s block copy disagrees with the general-register copy; not using it\n",
			kind == NOVA_COPY_AVX2 ? "AVX2" : "SSE2");
	} else {
		nova_copy_kind = kind;
		pr_info("nova: data block copy: %s, %d bytes a load\n",
			kind == NOVA_COPY_AVX2 ? "AVX2" : "SSE2",
			kind == NOVA_COPY_AVX2 ? 32 : 16);
	}
	kfree(scratch);
}
#endif /* CONFIG_X86_64 */

/*
 * Module load: use crc32q if the CPU has SSE4.2 and it agrees with
 * crc32c() on a test pattern (every length and alignment the helpers
 * handle: head bytes, words, tail bytes, and the strip loop); then the
 * block copy: the general-register one must agree with crc32c() too, and
 * the SSE2 or AVX2 one (nova_csum_copy_choose()) with it.
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
	nova_csum_copy_choose(b);
#endif
}

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA allocation bitmap (format 1.9, NOVA_FEATURE_ALLOC_BITMAP): the
 * rules of one bitmap word, shared by nova.ko, mkfs.NOVA and fsck.NOVA.
 *
 * A word is a commit word: it changes by one aligned 8-byte store, so a
 * power cut leaves it old or new, never torn, and a word carries its own
 * check instead of a checksum over a block that could not be updated
 * atomically with it:
 *   bits  0-47  blocks w * 48 + i, set = in use (or being allocated)
 *   bits 48-63  the low 16 bits of the crc32c of the word's index and of
 *               its 48 block bits, both as little-endian 64-bit numbers
 * A word whose check does not match is damaged. Its blocks may be in use:
 * nothing may be allocated from them until the logs say otherwise (the
 * kernel falls back to scanning the inodes, fsck.NOVA rebuilds the word).
 * The check finds a damaged word, a word written to the wrong place and a
 * never-written (zeroed) area; it is no defence against a writer that
 * stores a wrong but well-formed word.
 *
 * Only the bits of the allocator's range [alloc_start, alloc_end) have a
 * meaning; the others are written as 0 and read as nothing.
 */
#ifndef _UAPI_NOVA_BITMAP_H
#define _UAPI_NOVA_BITMAP_H

#include "nova_csum.h"
#include "nova_plan.h"
#include "nova_sb.h"	/* nova_sb_cpu64(): byte order on either side */

#define NOVA_BITMAP_BITS_MASK	((1ULL << NOVA_BITMAP_WORD_BITS) - 1)
#define NOVA_BITMAP_WORDS_PER_BLOCK	(NOVA_BLOCK_SIZE / 8)

/* The check of word @index holding the block bits @bits. */
static inline __u64 nova_bitmap_check(__u64 index, __u64 bits)
{
	__le64 v[2];

	v[0] = nova_sb_cpu64(index);
	v[1] = nova_sb_cpu64(bits & NOVA_BITMAP_BITS_MASK);
	return nova_crc32c(NOVA_CRC_SEED, v, sizeof(v)) & 0xffff;
}

/* Word @index with block bits @bits, as stored (CPU order). */
static inline __u64 nova_bitmap_word(__u64 index, __u64 bits)
{
	bits &= NOVA_BITMAP_BITS_MASK;
	return bits | nova_bitmap_check(index, bits) << NOVA_BITMAP_WORD_BITS;
}

/* Whether the stored word @word (CPU order) is word @index, undamaged. */
static inline int nova_bitmap_word_ok(__u64 index, __u64 word)
{
	return word == nova_bitmap_word(index, word);
}

/* The word of block @blk, and the block's bit in it. */
static inline __u64 nova_bitmap_index(__u64 blk)
{
	return blk / NOVA_BITMAP_WORD_BITS;
}

static inline unsigned int nova_bitmap_bit(__u64 blk)
{
	return blk % NOVA_BITMAP_WORD_BITS;
}

/*
 * The bits of word @index that blocks [@start, @end) have: the mask to
 * set or clear when a run of blocks is allocated or freed, 0 if the run
 * does not reach the word.
 */
static inline __u64 nova_bitmap_run_mask(__u64 index, __u64 start,
					 __u64 end)
{
	__u64 first = index * NOVA_BITMAP_WORD_BITS;
	__u64 last = first + NOVA_BITMAP_WORD_BITS;
	__u64 lo, hi;

	if (end <= first || start >= last)
		return 0;
	lo = start > first ? start - first : 0;
	hi = end < last ? end - first : NOVA_BITMAP_WORD_BITS;
	return ((1ULL << hi) - 1) & ~((1ULL << lo) - 1);
}

/* The words that cover the allocator's range of layout @l. */
static inline __u64 nova_bitmap_words(const struct nova_layout *l)
{
	return (l->alloc_end + NOVA_BITMAP_WORD_BITS - 1) /
	       NOVA_BITMAP_WORD_BITS;
}

/* The block of the bitmap area (@layout) that holds word @index. */
static inline __u64 nova_bitmap_block(const struct nova_layout *l,
				      __u64 index)
{
	return l->bitmap + index / NOVA_BITMAP_WORDS_PER_BLOCK;
}

/*
 * Word @index of a fresh file system's bitmap (@p, uapi/nova_plan.h):
 * the rings and tables, the replicas at the top and every block below
 * @free_from in use, the rest of the allocator's range free. mkfs.NOVA
 * passes nova_plan_saved_start() (its image has the first clean
 * unmount's state page), mount -o init the plan's free_start.
 */
static inline __u64 nova_plan_bitmap_word(const struct nova_format_plan *p,
					  __u64 free_from, __u64 index)
{
	__u64 bits;

	bits = nova_bitmap_run_mask(index, p->layout.alloc_start, free_from) |
	       nova_bitmap_run_mask(index, p->free_end, p->layout.alloc_end);
	return nova_bitmap_word(index, bits);
}

#endif /* _UAPI_NOVA_BITMAP_H */

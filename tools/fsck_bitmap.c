// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: the allocation bitmap (format 1.9, uapi/nova_bitmap.h),
 * checked against the block map the logs gave (fsck_space.c):
 *
 *  - a word whose check does not match is damaged;
 *  - a block in use whose bit is clear could be handed out twice by the
 *    next mount after a crash: always a problem;
 *  - a set bit of a block nobody uses is a leak. After a crash it is
 *    expected (an operation in flight allocated it and never committed;
 *    the kernel frees such blocks after the mount) and only counted; on
 *    a cleanly unmounted file system every free has cleared its bit, so
 *    it is a problem.
 *
 * All three are repaired (REP_BITMAP, fsck_repair.c) by writing every
 * word anew from the block map, once the map is known to be complete.
 */
#include <stdlib.h>

#include "fsck.h"
#include "le.h"
#include "nova_bitmap.h"

/* The bit block @b should have: in use, within the allocator's range. */
static bool want_bit(const struct fsck *f, uint64_t b)
{
	return b >= f->layout.alloc_start && b < f->layout.alloc_end &&
	       f->bkind[b] != BK_FREE;
}

/* The bits word @index should hold, from the block map. */
uint64_t fsck_bitmap_want(const struct fsck *f, uint64_t index)
{
	uint64_t first = index * NOVA_BITMAP_WORD_BITS, bits = 0;
	unsigned int i;

	for (i = 0; i < NOVA_BITMAP_WORD_BITS; i++)
		if (first + i < f->nblocks && want_bit(f, first + i))
			bits |= 1ULL << i;
	return bits;
}

void fsck_check_bitmap(struct fsck *f)
{
	uint64_t index, words = nova_bitmap_words(&f->layout);
	uint64_t damaged = 0, clear_used = 0, leaked = 0;
	const __le64 *w;

	if (!f->layout.bitmap_blocks)
		return;
	w = fsck_ptr(f, NOVA_OFF(f->layout.bitmap),
		     f->layout.bitmap_blocks * NOVA_BLOCK_SIZE);
	for (index = 0; index < words; index++) {
		uint64_t word = le64(w[index]);
		uint64_t want = fsck_bitmap_want(f, index);
		uint64_t have = word & NOVA_BITMAP_BITS_MASK;

		if (!nova_bitmap_word_ok(index, word)) {
			if (damaged++ < 8)
				fsck_info(f, 0, "  allocation bitmap: word %llu (blocks %llu-%llu) is damaged",
					  (unsigned long long)index,
					  (unsigned long long)(index * NOVA_BITMAP_WORD_BITS),
					  (unsigned long long)(index * NOVA_BITMAP_WORD_BITS +
							       NOVA_BITMAP_WORD_BITS - 1));
			continue;
		}
		clear_used += (unsigned int)__builtin_popcountll(want & ~have);
		leaked += (unsigned int)__builtin_popcountll(have & ~want);
	}
	f->bitmap_leaked = leaked;
	if (damaged)
		fsck_problem_fix(f, REP_BITMAP, "allocation bitmap: %llu damaged words",
				 (unsigned long long)damaged);
	if (clear_used)
		fsck_problem_fix(f, REP_BITMAP, "allocation bitmap: %llu blocks in use have a clear bit (a mount after a crash would hand them out twice)",
				 (unsigned long long)clear_used);
	if (leaked && f->clean)
		fsck_problem_fix(f, REP_BITMAP, "allocation bitmap: %llu free blocks have a set bit (leaked)",
				 (unsigned long long)leaked);
	else if (leaked)
		fsck_info(f, 0, "allocation bitmap: %llu blocks allocated by operations a crash cut short; the kernel frees them after the next mount",
			  (unsigned long long)leaked);
	else
		fsck_info(f, 1, "allocation bitmap: %llu words, as the logs say",
			  (unsigned long long)words);
}

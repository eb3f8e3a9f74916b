// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: the allocation bitmap's upkeep (format 1.9,
 * NOVA_FEATURE_ALLOC_BITMAP; the word format is uapi/nova_bitmap.h).
 *
 * The DRAM allocator (balloc.c) decides; the bitmap follows it so that a
 * mount after a crash could start from it. Two rules keep it safe:
 *
 *  - Set before referenced. nova_abm_set() runs when blocks leave the
 *    free lists, before the caller writes anything that points to them,
 *    and writes the word's line back without a fence: every reference on
 *    media is a commit word (a log tail, a next pointer, a valid word),
 *    and the fence that precedes a commit word makes the bit durable
 *    with the contents it points to.
 *  - Cleared after unreferenced. nova_abm_clear() runs when blocks go
 *    back to the free lists (nova_free_blocks()), which callers do after
 *    the commit that dropped the last reference is durable; it clears
 *    before the blocks are back, so no allocation can set a bit that the
 *    clear then loses.
 *
 * A word is changed with cmpxchg, as blocks of one word may belong to
 * two CPUs' free lists. A word found damaged is left alone and counted:
 * the DRAM allocator is right while mounted, and the next recovery sees
 * the damage and scans the inodes instead.
 *
 * After a crash the mount reads it (recovery_fast.c): the clear bits of
 * undamaged words are the free space (nova_abm_load_free()). The set bits
 * nobody references are freed by the space check before the next clean
 * unmount (nova_abm_free_leaks()). When the scan of every inode runs
 * instead, it checks the bitmap: every block the scan finds in use must
 * have its bit set (nova_abm_check_used()); then the whole bitmap is
 * written from the scan (nova_abm_write_used()).
 */
#include <linux/bitmap.h>
#include <linux/ratelimit.h>

#include "abitmap.h"
#include "nova.h"
#include "nova_bitmap.h"
#include "pmem.h"

/* A run of blocks (nova_abm_runs()). */
typedef int (*nova_abm_run_fn)(struct nova_sb_info *sbi, unsigned long blk,
			       unsigned long n, void *arg);

static __le64 *nova_abm_words(struct nova_sb_info *sbi)
{
	return nova_block(sbi, sbi->layout.bitmap);
}

static bool nova_abm_on(struct nova_sb_info *sbi)
{
	return sbi->layout.bitmap_blocks;
}

/* Words that cover the allocator's range. */
static u64 nova_abm_nr_words(struct nova_sb_info *sbi)
{
	return nova_bitmap_words(&sbi->layout);
}

static void nova_abm_damaged(struct nova_sb_info *sbi, u64 index)
{
	static DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 1);

	atomic_long_inc(&sbi->abm_damaged);
	if (__ratelimit(&rs))
		nova_err(sbi->sb, "allocation bitmap: word %llu is damaged; the next crash recovery will scan every inode",
			 index);
}

/*
 * Set (@set) or clear the bits of [@blk, @blk + @n) in word @index.
 * Returns false if the word is damaged (left as it is).
 */
static bool nova_abm_update_word(struct nova_sb_info *sbi, u64 index,
				 unsigned long blk, unsigned long n, bool set)
{
	u64 mask = nova_bitmap_run_mask(index, blk, blk + n);
	u64 *w = (u64 __force *)&nova_abm_words(sbi)[index];
	u64 old = READ_ONCE(*w), bits;

	do {
		if (!nova_bitmap_word_ok(index, le64_to_cpu((__force __le64)old)))
			return false;
		bits = le64_to_cpu((__force __le64)old);
		bits = set ? bits | mask : bits & ~mask;
		bits = nova_bitmap_word(index, bits);
	} while (!try_cmpxchg64(w, &old, (__force u64)cpu_to_le64(bits)));
	return true;
}

/*
 * The bits of [@blk, @blk + @n) set or cleared, their lines written back
 * (not fenced: see above).
 */
void nova_abm_update(struct nova_sb_info *sbi, unsigned long blk,
		     unsigned long n, bool set)
{
	u64 first = nova_bitmap_index(blk);
	u64 last = nova_bitmap_index(blk + n - 1), index;
	__le64 *words = nova_abm_words(sbi);

	for (index = first; index <= last; index++)
		if (!nova_abm_update_word(sbi, index, blk, n, set))
			nova_abm_damaged(sbi, index);
	nova_pmem_flush(&words[first], (last - first + 1) * sizeof(*words));
}

/* The bits word @index should hold for the blocks set in @used. */
static u64 nova_abm_bits_of(struct nova_sb_info *sbi, const unsigned long *used,
			    u64 index)
{
	u64 first = index * NOVA_BITMAP_WORD_BITS, bits = 0;
	unsigned int i;

	for (i = 0; i < NOVA_BITMAP_WORD_BITS; i++) {
		u64 b = first + i;

		if (b >= sbi->layout.alloc_start && b < sbi->layout.alloc_end &&
		    test_bit(b, used))
			bits |= 1ULL << i;
	}
	return bits;
}

/*
 * Crash recovery's scan found the blocks in @used (one bit per block of
 * the device). Every one of them must have its bit set, or a mount that
 * trusted the bitmap would hand it out twice: each that has not is a bug
 * in the ordering above, reported. Set bits of unused blocks are
 * operations the crash cut short, counted. Returns the blocks in use
 * whose bit was clear.
 */
unsigned long nova_abm_check_used(struct nova_sb_info *sbi,
				  const unsigned long *used,
				  unsigned long *leaked)
{
	u64 index, words = nova_abm_nr_words(sbi);
	__le64 *w = nova_abm_words(sbi);
	unsigned long clear_used = 0, damaged = 0;

	*leaked = 0;
	if (!nova_abm_on(sbi))
		return 0;
	for (index = 0; index < words; index++) {
		u64 word = le64_to_cpu(READ_ONCE(w[index]));
		u64 want = nova_abm_bits_of(sbi, used, index);
		u64 have = word & NOVA_BITMAP_BITS_MASK;

		if (!nova_bitmap_word_ok(index, word)) {
			damaged++;
			continue;
		}
		if (want & ~have) {
			if (!clear_used)
				nova_err(sbi->sb, "allocation bitmap: blocks in use with a clear bit, first in word %llu (mask 0x%llx)",
					 index, want & ~have);
			clear_used += hweight64(want & ~have);
		}
		*leaked += hweight64(have & ~want);
		if (!(index % 512))
			cond_resched();
	}
	if (damaged)
		nova_warn(sbi->sb, "allocation bitmap: %lu damaged words", damaged);
	return clear_used;
}

/* Write the whole bitmap from @used and make it durable. */
void nova_abm_write_used(struct nova_sb_info *sbi, const unsigned long *used)
{
	u64 index, words = nova_abm_nr_words(sbi);
	__le64 *w = nova_abm_words(sbi);

	if (!nova_abm_on(sbi))
		return;
	for (index = 0; index < words; index++) {
		u64 bits = nova_abm_bits_of(sbi, used, index);

		WRITE_ONCE(w[index],
			   cpu_to_le64(nova_bitmap_word(index, bits)));
		if (!(index % 512))
			cond_resched();
	}
	nova_pmem_persist(w, words * sizeof(*w));
	atomic_long_set(&sbi->abm_damaged, 0);
}

/* Damaged words (nova_bitmap_word_ok()): the mount must scan instead. */
u64 nova_abm_count_damaged(struct nova_sb_info *sbi)
{
	u64 index, words = nova_abm_nr_words(sbi), bad = 0;
	__le64 *w = nova_abm_words(sbi);

	for (index = 0; index < words; index++) {
		if (!nova_bitmap_word_ok(index, le64_to_cpu(READ_ONCE(w[index]))))
			bad++;
		if (!(index % 4096))
			cond_resched();
	}
	return bad;
}

/*
 * Call @fn for each run of blocks of the allocator's range whose bits in
 * the undamaged words are @set (the caller has checked the words, or
 * skips damaged ones: their blocks are in no run). The bits are read
 * once; @fn may change them.
 */
static int nova_abm_runs(struct nova_sb_info *sbi, bool set,
			 nova_abm_run_fn fn, void *arg)
{
	u64 index, words = nova_abm_nr_words(sbi);
	unsigned long start = sbi->layout.alloc_start;
	unsigned long end = sbi->layout.alloc_end;
	unsigned long run = 0, len = 0;	/* the open run */
	__le64 *w = nova_abm_words(sbi);
	int err;

	for (index = nova_bitmap_index(start); index < words; index++) {
		u64 word = le64_to_cpu(READ_ONCE(w[index]));
		unsigned long first = index * NOVA_BITMAP_WORD_BITS;
		unsigned int i = 0, j;
		u64 in = 0, out;

		/* The blocks of this word that belong in a run. */
		if (nova_bitmap_word_ok(index, word))
			in = (set ? word : ~word) &
			     nova_bitmap_run_mask(index, start, end);
		while (i < NOVA_BITMAP_WORD_BITS) {
			if (!len) {
				u64 rest = in & (~0ULL << i);

				if (!rest)
					break;
				i = __ffs64(rest);
				run = first + i;
			}
			/* The open run goes on to the next block not in one. */
			out = ~in & NOVA_BITMAP_BITS_MASK & (~0ULL << i);
			j = out ? __ffs64(out) : NOVA_BITMAP_WORD_BITS;
			len += j - i;
			if (j == NOVA_BITMAP_WORD_BITS)
				break;
			err = fn(sbi, run, len, arg);
			if (err)
				return err;
			len = 0;
			i = j;
		}
		if (!(index % 512))
			cond_resched();
	}
	return len ? fn(sbi, run, len, arg) : 0;
}

static int nova_abm_add_free(struct nova_sb_info *sbi, unsigned long blk,
			     unsigned long n, void *arg)
{
	return nova_balloc_add_free(sbi->sb, blk, n);
}

/* A fast recovery: the clear bits are the free space (words checked). */
int nova_abm_load_free(struct nova_sb_info *sbi)
{
	return nova_abm_runs(sbi, false, nova_abm_add_free, NULL);
}

struct nova_abm_leaks {
	const unsigned long *used;
	unsigned long freed;
};

/* A run of set bits: free the blocks of it that @used does not hold. */
static int nova_abm_free_run(struct nova_sb_info *sbi, unsigned long blk,
			     unsigned long n, void *arg)
{
	struct nova_abm_leaks *l = arg;
	unsigned long end = blk + n, stop;

	blk = find_next_zero_bit(l->used, end, blk);
	while (blk < end) {
		stop = find_next_bit(l->used, end, blk);
		nova_free_blocks(sbi->sb, blk, stop - blk, NOVA_BLOCK_META);
		l->freed += stop - blk;
		blk = find_next_zero_bit(l->used, end, stop);
	}
	return 0;
}

/*
 * The space check (recovery.c), the file system quiescent: free every
 * block whose bit is set while the scan of every inode found it unused
 * (@used). Damaged words are skipped: their blocks stay as they are.
 * Returns the blocks freed.
 */
unsigned long nova_abm_free_leaks(struct super_block *sb,
				  const unsigned long *used)
{
	struct nova_abm_leaks l = { .used = used };

	if (nova_abm_on(NOVA_SB(sb)))
		nova_abm_runs(NOVA_SB(sb), true, nova_abm_free_run, &l);
	return l.freed;
}

/*
 * mount -o init: the bitmap of the fresh file system of @plan, whose
 * free lists start at plan->free_start (uapi/nova_bitmap.h), durable
 * before the superblock that names it.
 */
void nova_abm_format(struct nova_sb_info *sbi,
		     const struct nova_format_plan *plan)
{
	u64 index, words = nova_abm_nr_words(sbi);
	__le64 *w = nova_abm_words(sbi);

	if (!nova_abm_on(sbi))
		return;
	for (index = 0; index < words; index++)
		WRITE_ONCE(w[index],
			   cpu_to_le64(nova_plan_bitmap_word(plan,
							     plan->free_start,
							     index)));
	nova_pmem_flush(w, words * sizeof(*w));
	/* The rest of the area is zero (format.md), the words' lines too. */
	nova_pmem_memset(&w[words], 0,
			 sbi->layout.bitmap_blocks * NOVA_BLOCK_SIZE -
			 words * sizeof(*w));
	nova_pmem_fence();
}

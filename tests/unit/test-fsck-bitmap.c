// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The allocation bitmap (format 1.9): the word rules of
 * uapi/nova_bitmap.h (check, masks, a fresh file system's words), the
 * bitmap mkfs.NOVA writes, and what fsck.NOVA says of a damaged word, a
 * block in use with a clear bit and a leaked bit, and its repairs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test-fsck-image.h"
#include "nova_bitmap.h"

#define SIZE	(64ULL << 20)
#define FEAT	(NOVA_FEATURE_PROT_ALL | NOVA_FEATURE_ALLOC_BITMAP)

static void test_word_check(void **state)
{
	uint64_t w = nova_bitmap_word(12, 0x123456789abcULL);
	unsigned int bit;

	(void)state;
	assert_true(nova_bitmap_word_ok(12, w));
	assert_int_equal(w & NOVA_BITMAP_BITS_MASK, 0x123456789abcULL);
	/* Any one flipped bit, the check's included, is found. */
	for (bit = 0; bit < 64; bit++)
		assert_false(nova_bitmap_word_ok(12, w ^ (1ULL << bit)));
	/* A word stored at another index is found. */
	assert_false(nova_bitmap_word_ok(13, w));
	/* A zeroed area is not a valid bitmap. */
	assert_false(nova_bitmap_word_ok(0, 0) && nova_bitmap_word_ok(1, 0) &&
		     nova_bitmap_word_ok(2, 0));
}

static void test_run_mask(void **state)
{
	(void)state;
	assert_int_equal(nova_bitmap_run_mask(1, 48, 49), 1);
	assert_int_equal(nova_bitmap_run_mask(1, 40, 50), 3);
	assert_int_equal(nova_bitmap_run_mask(1, 95, 200), 1ULL << 47);
	assert_int_equal(nova_bitmap_run_mask(1, 0, 1000),
			 NOVA_BITMAP_BITS_MASK);
	assert_int_equal(nova_bitmap_run_mask(1, 0, 48), 0);
	assert_int_equal(nova_bitmap_run_mask(1, 96, 100), 0);
	assert_int_equal(nova_bitmap_index(95), 1);
	assert_int_equal(nova_bitmap_bit(95), 47);
}

/* The layout puts the bitmap between the low areas and the allocator. */
static void test_layout(void **state)
{
	struct nova_layout with, without;
	uint64_t n = SIZE / NOVA_BLOCK_SIZE;

	(void)state;
	nova_layout_compute(n, NOVA_FEATURE_PROT_ALL, &without);
	nova_layout_compute(n, FEAT, &with);
	assert_int_equal(without.bitmap, 0);
	assert_int_equal(with.bitmap, without.alloc_start);
	assert_int_equal(with.bitmap_blocks,
			 (n + NOVA_BITMAP_PER_BLOCK - 1) / NOVA_BITMAP_PER_BLOCK);
	assert_int_equal(with.alloc_start, with.bitmap + with.bitmap_blocks);
	assert_int_equal(with.alloc_end, without.alloc_end);
}

static __le64 *word_at(struct img *im, uint64_t index)
{
	const struct nova_super_block *sb = img_sb(im);

	return img_at(im, NOVA_OFF(le64(sb->s_bitmap_start)) + index * 8);
}

static uint64_t word(struct img *im, uint64_t index)
{
	return le64(*word_at(im, index));
}

static void put(struct img *im, uint64_t index, uint64_t bits)
{
	*word_at(im, index) = cpu64(nova_bitmap_word(index, bits));
}

static int setup(void **state)
{
	struct img *im = calloc(1, sizeof(*im));

	if (!im || img_make_features(im, SIZE, 2, FEAT))
		return -1;
	*state = im;
	return 0;
}

static int teardown(void **state)
{
	img_free(*state);
	free(*state);
	return 0;
}

/* mkfs.NOVA's words: valid, and set exactly for the blocks in use. */
static void test_mkfs_words(void **state)
{
	struct img *im = *state;
	const struct nova_super_block *sb = img_sb(im);
	struct nova_layout l;
	struct nova_format_plan p;
	uint64_t index, words;

	nova_layout_compute(im->nblocks, FEAT, &l);
	assert_int_equal(le16(sb->s_version_minor), 9);
	assert_int_equal(le64(sb->s_bitmap_start), l.bitmap);
	assert_int_equal(le64(sb->s_bitmap_blocks), l.bitmap_blocks);
	assert_int_equal(nova_format_plan(im->nblocks, 2, FEAT | NOVA_FEATURE_1_5 |
					  NOVA_FEATURE_1_6, &p), NOVA_PLAN_FINE);
	words = (l.alloc_end + NOVA_BITMAP_WORD_BITS - 1) /
		NOVA_BITMAP_WORD_BITS;
	assert_int_equal(nova_bitmap_words(&l), words);
	for (index = 0; index < words; index++) {
		assert_true(nova_bitmap_word_ok(index, word(im, index)));
		assert_int_equal(word(im, index),
				 nova_plan_bitmap_word(&p,
						       nova_plan_saved_start(&p),
						       index));
	}
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_damaged_word(void **state)
{
	struct img *im = *state;
	__le64 *w = word_at(im, 20);

	*w = cpu64(le64(*w) ^ (1ULL << 55));
	img_expect(im, FSCK_NO_CHANGES, 4, "1 damaged words");
	img_expect(im, FSCK_YES, 1, "rewrote the allocation bitmap");
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/* The first block of the allocator's range is a journal ring: in use. */
static void test_used_block_clear(void **state)
{
	struct img *im = *state;
	uint64_t blk = le64(img_sb(im)->s_alloc_start);
	uint64_t index = nova_bitmap_index(blk);

	put(im, index, word(im, index) & ~(1ULL << nova_bitmap_bit(blk)));
	img_expect(im, FSCK_NO_CHANGES, 4, "1 blocks in use have a clear bit");
	img_expect(im, FSCK_YES, 1, "rewrote the allocation bitmap");
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/* The last block of the free space: free, so a set bit is a leak. */
static void test_leak(void **state)
{
	struct img *im = *state;
	uint64_t blk = im->low - 1;
	uint64_t index = nova_bitmap_index(blk);

	put(im, index, word(im, index) | 1ULL << nova_bitmap_bit(blk));
	img_expect(im, FSCK_NO_CHANGES, 4, "1 free blocks have a set bit (leaked)");
	img_expect(im, FSCK_YES, 1, "rewrote the allocation bitmap");
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/*
 * After a crash a leak is what an operation in flight left: a note. The
 * saved allocator state's page counts too: a dirty file system's state
 * is stale, so its page is in use by nobody.
 */
static void test_leak_after_crash(void **state)
{
	struct img *im = *state;
	uint64_t blk = im->low - 1;
	uint64_t index = nova_bitmap_index(blk);

	put(im, index, word(im, index) | 1ULL << nova_bitmap_bit(blk));
	img_sb(im)->s_state = cpu32(NOVA_STATE_DIRTY);
	img_sync_super(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "2 blocks allocated by operations a crash cut short");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_word_check),
		cmocka_unit_test(test_run_mask),
		cmocka_unit_test(test_layout),
		cmocka_unit_test_setup_teardown(test_mkfs_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_word, setup, teardown),
		cmocka_unit_test_setup_teardown(test_used_block_clear, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leak, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leak_after_crash, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

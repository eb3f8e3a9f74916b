// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA finds what it must find: a populated image is clean, and each
 * kind of damage (bad superblocks, double-allocated and leaked blocks,
 * dangling names, wrong link counts, log loops, pointers out of range, bad
 * checksums, open journal transactions, orphans) is reported with the
 * right exit status; the safe repairs work and leave a clean image.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "test-fsck-image.h"

#define SIZE	(16ULL << 20)

static int setup(void **state)
{
	struct img *im = calloc(1, sizeof(*im));

	if (!im || img_make(im, SIZE, 1))
		return -1;
	img_populate(im);
	img_finish(im);
	*state = im;
	return 0;
}

static int teardown(void **state)
{
	img_free(*state);
	free(*state);
	return 0;
}

static struct nova_inode *pi_of(struct img *im, uint64_t ino)
{
	return img_inode(im, ino);
}

/* The first log page of @ino, and its tail. */
static struct nova_log_page_tail *tail_of(struct img *im, uint64_t page)
{
	return img_at(im, page + NOVA_LOG_DATA_SIZE);
}

static void test_populated_is_clean(void **state)
{
	struct img *im = *state;

	img_expect(im, FSCK_NO_CHANGES, 0, "clean, 7 inodes");
	img_expect(im, FSCK_YES, 0, "clean");
}

static void test_preen_skips_clean(void **state)
{
	struct img *im = *state;
	struct fsck_opts o = { .mode = FSCK_PREEN };
	struct nova_dev d;
	char *rep = NULL;
	size_t len;

	o.out = open_memstream(&rep, &len);
	ndev_from_buffer(&d, im->buf, im->size);
	assert_int_equal(fsck_run(&d, &o), 0);
	fclose(o.out);
	assert_non_null(strstr(rep, "clean (use -f"));
	free(rep);
}

static void test_not_nova(void **state)
{
	struct img *im = *state;

	memset(img_sb(im), 0, 512);
	memset(img_replica(im), 0, 512);
	img_expect(im, FSCK_NO_CHANGES, FSCK_OPERATIONAL, NULL);
}

/*
 * One flipped bit in the primary's magic: its UUID is still the replica's,
 * so it is a damaged copy (the kernel's rule, nova_format.h) and -y
 * rewrites it from the replica.
 */
static void test_flipped_magic_restored(void **state)
{
	struct img *im = *state;

	*(uint8_t *)img_sb(im) ^= 0x01;
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "using the replica");
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "REPAIRED: rewrote the primary superblock");
	assert_memory_equal(img_sb(im), img_replica(im), 512);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/* No magic and another UUID in block 0: the replica is a leftover. */
static void test_leftover_replica_ignored(void **state)
{
	struct img *im = *state;

	*(uint8_t *)img_sb(im) ^= 0x01;
	img_sb(im)->s_uuid[3] ^= 0xff;
	img_expect(im, FSCK_YES, FSCK_OPERATIONAL, NULL);	/* message on stderr */
	assert_int_equal(*(uint8_t *)img_sb(im) & 0x01, 0);
}

/* Another file system's signature at the start: the replica is a leftover. */
static void test_leftover_replica_foreign(void **state)
{
	struct img *im = *state;

	*(uint8_t *)img_sb(im) ^= 0x01;
	memcpy((uint8_t *)img_at(im, 0x438), "\x53\xef", 2);
	img_expect(im, FSCK_YES, FSCK_OPERATIONAL, NULL);	/* message on stderr */
}

static void test_bad_primary_restored(void **state)
{
	struct img *im = *state;
	struct nova_super_block good = *img_replica(im);

	img_sb(im)->s_label[0] ^= 0x20;
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "primary superblock: bad checksum");
	assert_memory_not_equal(img_sb(im), &good, sizeof(good));
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "REPAIRED: rewrote the primary superblock");
	assert_memory_equal(img_sb(im), img_replica(im), sizeof(good));
	assert_string_equal(img_sb(im)->s_label, good.s_label);
	assert_int_equal(img_sb(im)->s_free_blocks, good.s_free_blocks);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_bad_replica_restored(void **state)
{
	struct img *im = *state;

	img_replica(im)->s_cpus = cpu32(3);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "replica superblock");
	img_expect(im, FSCK_PREEN, FSCK_CORRECTED, "REPAIRED: rewrote the replica");
	assert_memory_equal(img_sb(im), img_replica(im), 512);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/*
 * A crash between the two copies of a superblock update (the kernel
 * writes the primary, fences, then the replica): both valid, different.
 * The kernel uses the primary and rewrites both at its next read-write
 * mount, so this is no inconsistency, clean or dirty.
 */
static void test_interrupted_super_update(void **state)
{
	struct img *im = *state;
	struct nova_super_block old = *img_replica(im);

	img_sb(im)->s_mount_count = cpu64(le64(img_sb(im)->s_mount_count) + 1);
	nova_sb_seal(img_sb(im));
	assert_memory_not_equal(img_sb(im), &old, sizeof(old));
	img_expect(im, FSCK_NO_CHANGES, 0, "an interrupted superblock update");
	img_sb(im)->s_state = cpu32(NOVA_STATE_DIRTY);
	nova_sb_seal(img_sb(im));
	img_expect(im, FSCK_NO_CHANGES, 0, "an interrupted superblock update");
	assert_memory_equal(img_replica(im), &old, sizeof(old));
}

static void test_both_supers_bad(void **state)
{
	struct img *im = *state;

	img_sb(im)->s_csum ^= 1;
	img_replica(im)->s_csum ^= 1;
	img_expect(im, FSCK_YES, FSCK_UNCORRECTED, "both superblocks are unusable");
}

static void test_bad_geometry(void **state)
{
	struct img *im = *state;

	img_sb(im)->s_size = cpu64(SIZE * 2);	/* bigger than the device */
	img_sync_super(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "larger than the device");
}

static void test_stale_hints_fixed(void **state)
{
	struct img *im = *state;

	img_sb(im)->s_free_blocks = cpu64(7);
	img_sb(im)->s_log_pages = cpu64(1000);
	img_sync_super(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "free block count is 7");
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "corrected the superblock counters");
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_double_allocation(void **state)
{
	struct img *im = *state;
	uint64_t blk;

	/* File 18 ("b") gets a page that file 16 ("a") already maps. */
	img_write(im, 16, 7, 1, 8 * NOVA_BLOCK_SIZE, &blk);
	img_write(im, 18, 0, 1, 100, NULL);
	{
		struct nova_inode *pi = pi_of(im, 18);
		struct nova_file_write_entry *fw = img_at(im,
			le64(pi->i_log_tail) - sizeof(*fw));

		fw->fw_block = cpu64(blk);
		nova_entry_seal(fw);
	}
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "is used twice");
}

static void test_leak_detected_and_dropped(void **state)
{
	struct img *im = *state;
	uint64_t blk = img_alloc(im, 5);	/* handed out, referenced by none */

	(void)blk;
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "5 blocks are neither in use nor free (leaked)");
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "rebuilt the allocator state");
	assert_int_equal(le32(img_sb(im)->s_state), NOVA_STATE_CLEAN);
	assert_memory_equal(img_sb(im), img_replica(im), 512);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_used_and_free(void **state)
{
	struct img *im = *state;
	struct nova_inode *ai = pi_of(im, NOVA_ALLOC_INO);
	struct nova_free_ranges_entry *fr = img_at(im, le64(ai->i_log_head));
	uint32_t n = le32(fr->fr_count);

	/* The first free range grows back over the state page and a ring. */
	(void)n;
	fr->fr_ranges[0].r_start = cpu64(le64(fr->fr_ranges[0].r_start) - 3);
	fr->fr_ranges[0].r_len = cpu64(le64(fr->fr_ranges[0].r_len) + 3);
	nova_entry_seal(fr);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "3 blocks in use are also in the saved free space");
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "rebuilt the allocator state");
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/* A leak next to a real inconsistency: the state is left alone. */
static void test_no_rebuild_with_other_errors(void **state)
{
	struct img *im = *state;
	struct nova_inode *ai = pi_of(im, NOVA_ALLOC_INO);
	uint64_t head = le64(ai->i_log_head);
	uint8_t before[NOVA_BLOCK_SIZE];

	img_alloc(im, 2);
	img_dentry(im, NOVA_ROOT_INO, "ghost", 99, 3, 8, 50);
	img_finish(im);
	memcpy(before, img_at(im, head), sizeof(before));
	img_expect(im, FSCK_YES, FSCK_UNCORRECTED, "leaked");
	assert_int_equal(le64(ai->i_log_head), head);
	assert_memory_equal(img_at(im, head), before, sizeof(before));
}

/*
 * Not cleanly unmounted: the kernel rebuilds the allocator at mount, so
 * that alone is no error; fsck says so and changes nothing.
 */
static void test_dirty_is_no_error(void **state)
{
	struct img *im = *state;
	struct nova_inode *ai = pi_of(im, NOVA_ALLOC_INO);
	uint8_t *copy = malloc(im->size);

	img_sb(im)->s_state = cpu32(NOVA_STATE_DIRTY);
	img_sync_super(im);
	ai->i_log_head = 0;	/* what nova_release_state_pages() leaves */
	ai->i_log_tail = 0;
	img_alloc(im, 9);	/* blocks the crash left allocated: free */
	memcpy(copy, im->buf, im->size);
	img_expect(im, FSCK_NO_CHANGES, 0, "not cleanly unmounted");
	img_expect(im, FSCK_YES, 0, "no problems, 7 inodes");
	assert_memory_equal(copy, im->buf, im->size);
	free(copy);
}

/* A crash image with an interrupted operation: read as rolled back. */
static void test_dirty_open_transaction(void **state)
{
	struct img *im = *state;
	struct nova_inode *root = pi_of(im, NOVA_ROOT_INO);
	struct nova_journal_ptr *jp = img_at(im, NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK));
	uint64_t ring = le64(jp->j_head), old_tail = le64(root->i_log_tail);
	struct nova_journal_entry je = { 0 };

	img_dentry(im, NOVA_ROOT_INO, "half", 77, 3, 8, 70);	/* dangling */
	img_sb(im)->s_state = cpu32(NOVA_STATE_DIRTY);
	img_sync_super(im);
	je.je_addr = cpu64((uint64_t)((uint8_t *)&root->i_log_tail - im->buf));
	je.je_old = cpu64(old_tail);
	je.je_type = cpu32(NOVA_JOURNAL_WORD);
	je.je_csum = cpu32(nova_je_csum(&je));
	memcpy(img_at(im, ring), &je, sizeof(je));
	jp->j_tail = cpu64(ring + sizeof(je));
	img_expect(im, FSCK_NO_CHANGES, 0, "checked as rolled back");
	/* without the rollback the dangling name would show */
	jp->j_tail = jp->j_head;
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "'half' points to inode 77");
}

/* ---- range entries (format 1.5: fallocate punch, collapse, ...) ---- */

static uint64_t range_entry(struct img *im, uint64_t ino, uint32_t kind,
			    uint64_t pgoff, uint64_t pages, uint64_t size)
{
	struct nova_range_entry rg;

	img_hdr(&rg, NOVA_LOG_RANGE, sizeof(rg));
	rg.rg_kind = cpu32(kind);
	rg.rg_pgoff = cpu64(pgoff);
	rg.rg_pages = cpu64(pages);
	rg.rg_size = cpu64(size);
	return img_append(im, ino, &rg);
}

/* A write entry mapping @n pages from @pgoff to existing blocks @blk... */
static void remap_entry(struct img *im, uint64_t ino, uint64_t pgoff,
			uint32_t n, uint64_t blk, uint64_t size)
{
	struct nova_file_write_entry fw;

	img_hdr(&fw, NOVA_LOG_FILE_WRITE, sizeof(fw));
	fw.fw_pgoff = cpu64(pgoff);
	fw.fw_num_pages = cpu32(n);
	fw.fw_block = cpu64(blk);
	fw.fw_size = cpu64(size);
	img_append(im, ino, &fw);
}

/* The pages a range entry drops are not the file's: their blocks are free. */
static void test_range_entries(void **state)
{
	struct img *im = *state;
	uint64_t blk;

	/* File 16 ("a"): pages 4-7, then pages 5 and 6 punched. */
	img_write(im, 16, 4, 4, 8 * NOVA_BLOCK_SIZE, &blk);
	range_entry(im, 16, NOVA_RANGE_PUNCH, 5, 2, 8 * NOVA_BLOCK_SIZE);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "2 blocks are neither in use nor free (leaked)");
	img_release(im, blk + 1, 2, true);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
	/* Collapse page 4: page 7 moves to 4, keeping its block. */
	range_entry(im, 16, NOVA_RANGE_COLLAPSE, 4, 1, 7 * NOVA_BLOCK_SIZE);
	remap_entry(im, 16, 6, 1, blk + 3, 7 * NOVA_BLOCK_SIZE);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "1 blocks are neither in use nor free (leaked)");
	img_release(im, blk, 1, true);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
	/* Without the remap, page 7's block would be leaked too. */
}

/*
 * Holes punched a page at a time in a large file (generic/610 punches
 * every other page of 100 MiB): one range entry a page, which fsck.NOVA
 * must check without giving up ("log maps too many pages to check", as
 * when each entry cost a pass over the whole page map). The pages are
 * contiguous here only so that the freed blocks fit the one page of
 * free ranges that img_finish() writes.
 */
static void test_many_punches(void **state)
{
	const uint64_t pages = 40000;
	struct img im;
	uint64_t blk, i;

	(void)state;
	assert_int_equal(img_make(&im, 256ULL << 20, 1), 0);
	img_populate(&im);
	/* File 16 ("a") has pages 0 and 1: these go after them. */
	img_write(&im, 16, 2, (uint32_t)pages, (pages + 2) * NOVA_BLOCK_SIZE,
		  &blk);
	for (i = 0; i < pages / 2; i++) {
		range_entry(&im, 16, NOVA_RANGE_PUNCH, i + 2, 1,
			    (pages + 2) * NOVA_BLOCK_SIZE);
		img_release(&im, blk + i, 1, true);
	}
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, 0, "clean");
	img_free(&im);
}

static void test_range_entry_errors(void **state)
{
	struct img *im = *state;

	range_entry(im, 16, 9, 0, 1, 100);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "unknown kind");
}

static void test_range_entry_in_dir(void **state)
{
	struct img *im = *state;

	range_entry(im, 17, NOVA_RANGE_PUNCH, 0, 1, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "range operation in an inode that is not a regular file");
}

/* ---- file attribute flags (format 1.6: chattr) ---- */

static void test_attr_flags_clean(void **state)
{
	struct img *im = *state;

	img_attr_flags(im, 16, NOVA_ATTR_FLAGS,
		       NOVA_FL_IMMUTABLE | NOVA_FL_NODUMP);
	img_attr_flags(im, 17, NOVA_ATTR_FLAGS, NOVA_FL_DIRSYNC);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_attr_flags_unknown(void **state)
{
	struct img *im = *state;

	img_attr_flags(im, 16, NOVA_ATTR_FLAGS, 0x40);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "unknown file attribute flags");
}

static void test_attr_flags_without_mask(void **state)
{
	struct img *im = *state;

	img_attr_flags(im, 16, NOVA_ATTR_CTIME, NOVA_FL_APPEND);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "nonzero padding");
}

/* A 1.5 image must not hold flags (the feature comes first). */
static void test_attr_flags_need_feature(void **state)
{
	struct img *im = *state;
	struct nova_super_block *sb = img_sb(im);

	sb->s_feature_incompat = cpu32(le32(sb->s_feature_incompat) &
				       ~NOVA_FEATURE_1_6);
	sb->s_version_minor = cpu16(5);
	img_sync_super(im);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
	img_attr_flags(im, 16, NOVA_ATTR_FLAGS, NOVA_FL_IMMUTABLE);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "file attribute flags without the fileattr feature");
}

/* ---- quota files (format 1.7) ---- */

static void quota_feature(struct img *im)
{
	struct nova_super_block *sb = img_sb(im);

	sb->s_feature_incompat = cpu32(le32(sb->s_feature_incompat) |
				       NOVA_FEATURE_QUOTA);
	sb->s_version_minor = cpu16(7);
	img_sync_super(im);
}

/* Quota files as the kernel makes them: 2 KiB regular files. */
static void test_quota_files_clean(void **state)
{
	struct img *im = *state;

	quota_feature(im);
	img_new_inode(im, NOVA_USR_QUOTA_INO, S_IFREG | 0600, 1, 0);
	img_write(im, NOVA_USR_QUOTA_INO, 0, 1, 2048, NULL);
	img_new_inode(im, NOVA_GRP_QUOTA_INO, S_IFREG | 0600, 1, 0);
	img_write(im, NOVA_GRP_QUOTA_INO, 0, 1, 2048, NULL);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

/* The feature may come before the files (a crash between the two). */
static void test_quota_feature_without_files(void **state)
{
	struct img *im = *state;

	quota_feature(im);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_quota_file_needs_feature(void **state)
{
	struct img *im = *state;

	img_new_inode(im, NOVA_GRP_QUOTA_INO, S_IFREG | 0600, 1, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "quota inode 5 is in use without the quota feature");
}

static void test_quota_file_not_regular(void **state)
{
	struct img *im = *state;

	quota_feature(im);
	img_new_inode(im, NOVA_USR_QUOTA_INO, S_IFCHR | 0600, 1, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "quota inode 4 is not a regular file");
}

/* ---- project ids (format 1.8) ---- */

static void projid_feature(struct img *im, uint32_t more)
{
	struct nova_super_block *sb = img_sb(im);

	sb->s_feature_incompat = cpu32(le32(sb->s_feature_incompat) |
				       NOVA_FEATURE_PROJID | more);
	sb->s_version_minor = cpu16(8);
	img_sync_super(im);
}

/* An id and the inherit flag, and a project quota file, as the kernel writes them. */
static void test_projid_clean(void **state)
{
	struct img *im = *state;

	projid_feature(im, NOVA_FEATURE_QUOTA);
	img_attr_projid(im, 16, NOVA_ATTR_FLAGS | NOVA_ATTR_PROJID,
			NOVA_FL_PROJINHERIT, 42);
	img_attr_projid(im, 17, NOVA_ATTR_PROJID | NOVA_ATTR_CTIME, 0, 7);
	img_new_inode(im, NOVA_PRJ_QUOTA_INO, S_IFREG | 0600, 1, 0);
	img_write(im, NOVA_PRJ_QUOTA_INO, 0, 1, 2048, NULL);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_projid_needs_feature(void **state)
{
	struct img *im = *state;

	img_attr_projid(im, 16, NOVA_ATTR_PROJID, 0, 42);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "project id without the project id feature");
}

static void test_projinherit_needs_feature(void **state)
{
	struct img *im = *state;

	img_attr_flags(im, 16, NOVA_ATTR_FLAGS, NOVA_FL_PROJINHERIT);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "unknown file attribute flags");
}

static void test_projid_without_mask(void **state)
{
	struct img *im = *state;

	projid_feature(im, 0);
	img_attr_projid(im, 16, NOVA_ATTR_CTIME, 0, 42);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "nonzero project id without NOVA_ATTR_PROJID");
}

static void test_prj_quota_file_needs_projid(void **state)
{
	struct img *im = *state;

	quota_feature(im);
	img_new_inode(im, NOVA_PRJ_QUOTA_INO, S_IFREG | 0600, 1, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "project quota inode 6 is in use without the project id feature");
}

/* A 1.4 image must not hold range entries (the feature comes first). */
static void test_range_entry_needs_feature(void **state)
{
	struct img *im = *state;
	struct nova_super_block *sb = img_sb(im);

	/* A 1.4 image: neither 1.5 feature. */
	sb->s_feature_incompat = cpu32(le32(sb->s_feature_incompat) &
				       ~(NOVA_FEATURE_1_5 | NOVA_FEATURE_1_6));
	sb->s_version_minor = cpu16(4);
	img_sync_super(im);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
	range_entry(im, 16, NOVA_RANGE_PUNCH, 7, 0, 5000);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "range entry without the range feature");
}

/* ---- snapshots (format 1.1) ---- */

/* Blocks a live snapshot keeps are in use; history owns nothing. */
static void test_snapshot_keeps_blocks(void **state)
{
	struct img *im = *state;
	uint64_t kept = img_alloc(im, 3), gone = img_alloc(im, 2);

	img_snapshot(im, 1, 0, "first");
	img_snapshot(im, 2, 5, "");
	img_snapshot_keep(im, kept, 3, 0, 2);	/* snapshot 1 needs them */
	img_snapshot_keep(im, gone, 2, 2, 4);	/* no snapshot in epochs 2-3 */
	img_release(im, gone, 2, false);
	im->data_pages += 3;
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
	/* Deleting snapshot 1 leaves its blocks to nobody: they must be free. */
	img_snapshot_del(im, 1, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "3 blocks are neither in use nor free");
	img_release(im, kept, 3, false);
	im->data_pages -= 3;
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_snapshot_log_errors(void **state)
{
	struct img *im = *state;
	uint64_t blk;

	img_snapshot(im, 1, 0, "a");
	img_snapshot_del(im, 5, 0);		/* not live */
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "delete of a snapshot that is not live");
	teardown(state);
	setup(state);
	im = *state;
	img_snapshot(im, 2, 0, "a");
	img_snapshot(im, 2, 1, "b");		/* id reused */
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "snapshot id 0 or reused");
	teardown(state);
	setup(state);
	im = *state;
	img_snapshot(im, 1, 0, "a");
	img_snapshot_keep(im, im->nblocks - 2, 2, 0, 1);	/* onto the replica */
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "out of range");
	teardown(state);
	setup(state);
	im = *state;
	img_write(im, 18, 5, 1, 6 * NOVA_BLOCK_SIZE, &blk);
	img_snapshot(im, 1, 0, "a");
	img_snapshot_keep(im, blk, 1, 0, 1);	/* a block a file maps */
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "is used twice");
}

static void test_snapshot_record_in_file(void **state)
{
	struct img *im = *state;
	struct nova_snapshot_entry sn;

	img_hdr(&sn, NOVA_LOG_SNAPSHOT, sizeof(sn));
	sn.sn_id = cpu64(1);
	img_append(im, 16, &sn);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "snapshot record in a normal inode");
}

static void test_snapshot_inode_required(void **state)
{
	struct img *im = *state;

	pi_of(im, NOVA_SNAPSHOT_INO)->i_valid = 0;
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "snapshot inode 3 is not in use");
}

static void test_overlapping_free_ranges(void **state)
{
	struct img *im = *state;
	struct nova_inode *ai = pi_of(im, NOVA_ALLOC_INO);
	struct nova_free_ranges_entry *fr = img_at(im, le64(ai->i_log_head));

	fr->fr_ranges[1] = fr->fr_ranges[0];
	nova_entry_seal(fr);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "overlaps another one");
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "rebuilt the allocator state");
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_dangling_dentry(void **state)
{
	struct img *im = *state;

	img_dentry(im, NOVA_ROOT_INO, "ghost", 99, 3, 8, 50);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "name 'ghost' points to inode 99, which is not in use (dangling)");
}

static void test_dentry_type_mismatch(void **state)
{
	struct img *im = *state;

	img_dentry(im, NOVA_ROOT_INO, "wrongtype", 16, 3, 4, 51);
	img_link_change(im, 16, 2);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "says type 4");
}

static void test_wrong_link_count(void **state)
{
	struct img *im = *state;

	img_link_change(im, 18, 3);	/* "b" has two names */
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode 18: link count is 3, should be 2");
}

static void test_wrong_dir_link_count(void **state)
{
	struct img *im = *state;

	/* A dentry in "d" claiming "d" has 5 links (it has 3). */
	img_dentry(im, 17, "x", 16, 5, 8, 200);
	img_dentry(im, 17, "x", 0, 5, 0, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode 17: link count is 5, should be 3");
}

static void test_orphan(void **state)
{
	struct img *im = *state;

	img_new_inode(im, 21, S_IFREG | 0644, 1, 0);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode 21 (mode 0100644, 1 links) is in use but in no directory");
}

static void test_directory_two_names(void **state)
{
	struct img *im = *state;

	img_dentry(im, NOVA_ROOT_INO, "e2", 19, 3, 4, 60);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "directory 19 has a second name");
}

static void test_log_loop(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, 17);
	uint64_t head = le64(pi->i_log_head);
	struct nova_log_page_tail *lt = tail_of(im, head);
	uint64_t second = le64(lt->lt_next);

	assert_int_not_equal(second, 0);	/* populate made two pages */
	tail_of(im, second)->lt_next = cpu64(head);	/* commit word */
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "a second time (a loop)");
	img_expect(im, FSCK_YES, FSCK_UNCORRECTED, "a loop");
}

static void test_log_self_loop(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, 16);
	uint64_t head = le64(pi->i_log_head);

	tail_of(im, head)->lt_next = cpu64(head);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "(a loop)");
}

static void test_log_head_out_of_range(void **state)
{
	struct img *im = *state;

	pi_of(im, 16)->i_log_head = cpu64(SIZE + 4096);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "pointer out of range");
	pi_of(im, 16)->i_log_head = cpu64(NOVA_OFF(2));	/* a fixed block */
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "pointer out of range");
	pi_of(im, 16)->i_log_head = cpu64(NOVA_OFF(im->nblocks - 1) + 8);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "pointer out of range");
}

static void test_next_out_of_range(void **state)
{
	struct img *im = *state;
	uint64_t head = le64(pi_of(im, 17)->i_log_head);

	tail_of(im, head)->lt_next = cpu64(~0ULL & ~4095ULL);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "pointer out of range");
}

static void test_tail_not_in_log(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, 16);

	pi->i_log_tail = cpu64(le64(pi->i_log_tail) + 8);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "is not in its log");
}

static void test_data_out_of_range(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, 18);
	struct nova_file_write_entry *fw;

	img_write(im, 18, 3, 2, 100, NULL);
	fw = img_at(im, le64(pi->i_log_tail) - sizeof(*fw));
	fw->fw_block = cpu64(im->nblocks - 2);	/* 2 pages: hits the replica */
	nova_entry_seal(fw);
	img_finish(im);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "data blocks out of range");
}

static void test_bad_entry_csum(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, NOVA_ROOT_INO);
	struct nova_dentry_entry *de = img_at(im, le64(pi->i_log_head));

	de->de_name[0] ^= 1;
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "bad log entry at");
}

static void test_entry_hint_change_is_fine(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, NOVA_ROOT_INO);
	struct nova_dentry_entry *de = img_at(im, le64(pi->i_log_head));

	de->hdr.e_flags = NOVA_ENTRY_INVALID;	/* a GC hint */
	tail_of(im, le64(pi->i_log_head))->lt_valid = cpu32(1234);
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_bad_inode_csum(void **state)
{
	struct img *im = *state;

	pi_of(im, 19)->i_uid ^= cpu32(1);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode 19: bad checksum");
}

static void test_bad_valid_word(void **state)
{
	struct img *im = *state;

	pi_of(im, 20)->i_valid = cpu64(2);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode 20: valid word is 2");
}

static void test_bad_table_and_journal(void **state)
{
	struct img *im = *state;
	struct nova_inode_table *it = img_at(im, NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK));
	struct nova_journal_ptr *jp = img_at(im, NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK));

	it->it_cpu = cpu32(5);
	jp->j_block = cpu64(im->nblocks + 10);
	nova_jp_seal(jp);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode table 0: bad table head");
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "journal 0: block");
}

static void test_symlink_checks(void **state)
{
	struct img *im = *state;
	struct nova_inode *pi = pi_of(im, 20);

	pi->i_size = cpu64(3);		/* the target is 6 bytes */
	nova_inode_seal(pi);
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "symlink 20: inline target");
}

/*
 * An interrupted operation: a new name in the root published by an open
 * journal transaction. The check reads the old tail (as recovery would);
 * -y rolls it back, which leaves a clean file system.
 */
static void test_open_journal_transaction(void **state)
{
	struct img *im = *state;
	struct nova_inode *root = pi_of(im, NOVA_ROOT_INO);
	struct nova_journal_ptr *jp = img_at(im, NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK));
	uint64_t ring = le64(jp->j_head), old_tail = le64(root->i_log_tail);
	struct nova_journal_entry je = { 0 };

	img_dentry(im, NOVA_ROOT_INO, "half", 77, 3, 8, 70);	/* dangling */
	img_finish(im);
	je.je_addr = cpu64((uint64_t)((uint8_t *)&root->i_log_tail - im->buf));
	je.je_old = cpu64(old_tail);
	je.je_trans_id = cpu64(im->trans);
	je.je_type = cpu32(NOVA_JOURNAL_WORD);
	je.je_csum = cpu32(nova_je_csum(&je));
	memcpy(img_at(im, ring), &je, sizeof(je));
	jp->j_tail = cpu64(ring + sizeof(je));	/* open */
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "journal 0: open transaction of 1 records");
	img_expect(im, FSCK_YES, FSCK_CORRECTED, "rolled back 1 journaled words");
	assert_int_equal(le64(root->i_log_tail), old_tail);
	assert_int_equal(le64(jp->j_tail), le64(jp->j_head));
	img_expect(im, FSCK_NO_CHANGES, 0, "clean");
}

static void test_bad_journal_record(void **state)
{
	struct img *im = *state;
	struct nova_journal_ptr *jp = img_at(im, NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK));

	jp->j_tail = cpu64(le64(jp->j_head) + 64);	/* two zero records */
	img_expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "bad record");
}

/* Many inodes over several stripes and a second table block. */
static void test_many_inodes(void **state)
{
	struct img im;
	uint64_t ino, n = 0;

	(void)state;
	assert_int_equal(img_make(&im, 32ULL << 20, 3), 0);
	for (ino = NOVA_FIRST_INO; ino < NOVA_FIRST_INO + 300; ino++) {
		char name[16];

		snprintf(name, sizeof(name), "f%llu", (unsigned long long)ino);
		img_new_inode(&im, ino, S_IFREG | 0644, 1, 0);
		img_dentry(&im, NOVA_ROOT_INO, name, ino, 2, 8, 2 + n++);
		if (ino % 7 == 0)
			img_write(&im, ino, 0, 2, 8000, NULL);
	}
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, 0, "clean, 302 inodes");
	img_free(&im);
}

/*
 * Format 1.3 inode replicas (mkfs -p with META_REPLICA): a bad primary or
 * replica slot next to a good copy is repairable and -y rewrites it; both
 * bad is not; replica commit words must equal the primary's when clean.
 */
static struct nova_inode *replica_of(struct img *im, uint64_t ino)
{
	struct nova_layout l;

	nova_layout_compute(im->nblocks, le32(img_sb(im)->s_feature_incompat),
			    &l);
	return img_at(im, NOVA_OFF(l.meta_replica) + ino * NOVA_INODE_SIZE);
}

static void test_inode_replicas(void **state)
{
	struct img im;

	(void)state;
	assert_int_equal(img_make_features(&im, SIZE, 1,
					   NOVA_FEATURE_META_REPLICA), 0);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, "clean");

	pi_of(&im, NOVA_ROOT_INO)->i_uid ^= cpu32(1);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 1: damaged slot (bad checksum or inode number), its replica is good: repairable");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 inode slot copies");
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);

	replica_of(&im, NOVA_SNAPSHOT_INO)->i_mode ^= cpu16(1);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 3: damaged replica slot, the primary is good");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 inode slot copies");
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);

	replica_of(&im, NOVA_ROOT_INO)->i_log_tail = cpu64(4096);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 1: the replica's commit words differ");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, NULL);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);

	pi_of(&im, NOVA_ROOT_INO)->i_gid ^= cpu32(1);
	replica_of(&im, NOVA_ROOT_INO)->i_gid ^= cpu32(2);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "inode 1: bad checksum");
	img_expect(&im, FSCK_YES, FSCK_UNCORRECTED, "inode 1: bad checksum");
	img_free(&im);
}

/*
 * An open journal transaction with inode replicas: the commit's step 2
 * stored the new tail in the root's primary slot and in its replica. -y
 * rolls both back before it closes the transaction; a replica left with
 * the new tail would bring the half operation back at the next crash
 * recovery, which takes a replica log that reaches further.
 */
static void test_open_journal_replicas(void **state)
{
	struct img im;
	struct nova_inode *root, *rroot;
	struct nova_journal_ptr *jp;
	struct nova_journal_entry je = { 0 };
	uint64_t ring, old_tail;

	(void)state;
	assert_int_equal(img_make_features(&im, SIZE, 1,
					   NOVA_FEATURE_META_REPLICA), 0);
	root = pi_of(&im, NOVA_ROOT_INO);
	rroot = replica_of(&im, NOVA_ROOT_INO);
	jp = img_at(&im, NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK));
	ring = le64(jp->j_head);
	old_tail = le64(root->i_log_tail);
	img_dentry(&im, NOVA_ROOT_INO, "half", 77, 3, 8, 70);	/* dangling */
	img_finish(&im);
	assert_int_not_equal(le64(rroot->i_log_tail), old_tail);
	je.je_addr = cpu64((uint64_t)((uint8_t *)&root->i_log_tail - im.buf));
	je.je_old = cpu64(old_tail);
	je.je_trans_id = cpu64(im.trans);
	je.je_type = cpu32(NOVA_JOURNAL_WORD);
	je.je_csum = cpu32(nova_je_csum(&je));
	memcpy(img_at(&im, ring), &je, sizeof(je));
	jp->j_tail = cpu64(ring + sizeof(je));	/* open */
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "journal 0: open transaction of 1 records");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, "rolled back 1 journaled words");
	assert_int_equal(le64(root->i_log_tail), old_tail);
	assert_int_equal(le64(rroot->i_log_tail), old_tail);
	assert_int_equal(le64(jp->j_tail), le64(jp->j_head));
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, "clean");
	img_free(&im);
}

/* Format 1.4: one bad copy of a log entry or tail is repairable. */
static void test_log_mirrors(void **state)
{
	struct img im;
	uint64_t head, m;

	(void)state;
	/* The image helpers write no data checksums or slot replicas. */
	assert_int_equal(img_make_features(&im, SIZE, 1,
					   NOVA_FEATURE_LOG_REPLICA), 0);
	img_populate(&im);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, "clean");

	head = le64(pi_of(&im, 17)->i_log_head);
	m = img_mirror(&im, head);
	assert_true(m != 0);

	/* primary entry */
	*(uint8_t *)img_at(&im, head + 30) ^= 1;
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: damaged log entry at");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 log entry");
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);

	/* mirror entry */
	*(uint8_t *)img_at(&im, m + 30) ^= 1;
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: damaged mirror log entry at");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, NULL);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);

	/* primary tail, then mirror tail */
	*(uint8_t *)img_at(&im, head + NOVA_LOG_DATA_SIZE + 24) ^= 1;
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: damaged log page tail at");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, NULL);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);
	*(uint8_t *)img_at(&im, m + NOVA_LOG_DATA_SIZE + 24) ^= 1;
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: damaged mirror log page tail at");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, NULL);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);

	/* both copies of an entry: beyond repair */
	*(uint8_t *)img_at(&im, head + 30) ^= 1;
	*(uint8_t *)img_at(&im, m + 30) ^= 1;
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: bad log entry at");
	img_expect(&im, FSCK_YES, FSCK_UNCORRECTED, "in both copies");
	img_free(&im);
}

/*
 * Format 1.5: extended attribute entries. Whole sets (one piece, split
 * values, removals) are clean; each broken rule is reported; a damaged
 * copy is rewritten from the log mirror like any entry.
 */
static void test_xattr_entries(void **state)
{
	struct img im;
	uint64_t off, m, t;

	(void)state;
	assert_int_equal(img_make_features(&im, SIZE, 1, NOVA_FEATURE_XATTR |
					   NOVA_FEATURE_LOG_REPLICA), 0);
	img_populate(&im);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "a", 10, 0, 10, 0, 0);
	off = img_xattr(&im, 16, NOVA_XATTR_INDEX_TRUSTED, "big", 5000, 0,
			NOVA_XATTR_PIECE_MAX, 0, 0);
	t = le64(((struct nova_log_entry_header *)img_at(&im, off))->e_trans_id);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_TRUSTED, "big", 5000,
		  NOVA_XATTR_PIECE_MAX, 5000 - NOVA_XATTR_PIECE_MAX, 0, t);
	img_xattr(&im, 17, NOVA_XATTR_INDEX_ACL_DEFAULT, "", 4, 0, 4, 0, 0);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "a", 0, 0, 0,
		  NOVA_XATTR_REMOVE, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, "clean");

	/* one damaged copy: repaired from the mirror */
	m = img_mirror(&im, off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1));
	assert_true(m != 0);
	*(uint8_t *)img_at(&im, off + 50) ^= 1;
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 16: damaged log entry at");
	img_expect(&im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 log entry");
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, NULL);
	img_free(&im);

	/* an unknown namespace (checksum valid) */
	assert_int_equal(img_make_features(&im, SIZE, 1, NOVA_FEATURE_XATTR), 0);
	img_populate(&im);
	img_xattr(&im, 16, 9, "x", 1, 0, 1, 0, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 16: xattr entry at");
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "unknown attribute namespace");
	img_free(&im);

	/* a split value cut short */
	assert_int_equal(img_make_features(&im, SIZE, 1, NOVA_FEATURE_XATTR), 0);
	img_populate(&im);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "c", 9000, 0,
		  NOVA_XATTR_PIECE_MAX, 0, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "value cut short");
	img_free(&im);

	/*
	 * A set interrupted by another set's later piece: what fast GC leaves
	 * of two superseded sets split over pages it partly collected (the
	 * rest of "c", the start of "d"). Skipped, as the kernel does.
	 */
	assert_int_equal(img_make_features(&im, SIZE, 1, NOVA_FEATURE_XATTR), 0);
	img_populate(&im);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "c", 9000, 0,
		  NOVA_XATTR_PIECE_MAX, 0, 0);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "d", 9000,
		  NOVA_XATTR_PIECE_MAX, NOVA_XATTR_PIECE_MAX, 0, 0);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "e", 1, 0, 1, 0, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_OK, "clean");
	img_free(&im);

	/* a removal with a value, a NUL in a name, an oversized value */
	assert_int_equal(img_make_features(&im, SIZE, 1, NOVA_FEATURE_XATTR), 0);
	img_populate(&im);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "r", 1, 0, 1,
		  NOVA_XATTR_REMOVE, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, "removal with a value");
	img_free(&im);
	assert_int_equal(img_make_features(&im, SIZE, 1, NOVA_FEATURE_XATTR), 0);
	img_populate(&im);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "big", 70000, 0,
		  NOVA_XATTR_PIECE_MAX, 0, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "value larger than 64 KiB");
	img_free(&im);

	/* an xattr entry without the feature (a 1.4 image) */
	assert_int_equal(img_make_features(&im, SIZE, 1,
					   NOVA_FEATURE_LOG_REPLICA), 0);
	img_sb(&im)->s_feature_incompat =
		cpu32(le32(img_sb(&im)->s_feature_incompat) &
		      ~(NOVA_FEATURE_1_5 | NOVA_FEATURE_1_6));
	img_sb(&im)->s_version_minor = cpu16(4);
	img_sync_super(&im);
	img_populate(&im);
	img_xattr(&im, 16, NOVA_XATTR_INDEX_USER, "a", 1, 0, 1, 0, 0);
	img_finish(&im);
	img_expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "extended attribute without the xattr feature");
	img_free(&im);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_populated_is_clean),
		T(test_preen_skips_clean),
		T(test_not_nova),
		T(test_flipped_magic_restored),
		T(test_leftover_replica_ignored),
		T(test_leftover_replica_foreign),
		T(test_bad_primary_restored),
		T(test_bad_replica_restored),
		T(test_interrupted_super_update),
		T(test_both_supers_bad),
		T(test_bad_geometry),
		T(test_stale_hints_fixed),
		T(test_double_allocation),
		T(test_leak_detected_and_dropped),
		T(test_used_and_free),
		T(test_overlapping_free_ranges),
		T(test_no_rebuild_with_other_errors),
		T(test_dirty_is_no_error),
		T(test_dirty_open_transaction),
		T(test_range_entries),
		cmocka_unit_test(test_many_punches),
		T(test_range_entry_errors),
		T(test_range_entry_in_dir),
		T(test_range_entry_needs_feature),
		T(test_attr_flags_clean),
		T(test_attr_flags_unknown),
		T(test_attr_flags_without_mask),
		T(test_attr_flags_need_feature),
		T(test_quota_files_clean),
		T(test_quota_feature_without_files),
		T(test_quota_file_needs_feature),
		T(test_quota_file_not_regular),
		T(test_projid_clean),
		T(test_projid_needs_feature),
		T(test_projinherit_needs_feature),
		T(test_projid_without_mask),
		T(test_prj_quota_file_needs_projid),
		T(test_snapshot_keeps_blocks),
		T(test_snapshot_log_errors),
		T(test_snapshot_record_in_file),
		T(test_snapshot_inode_required),
		T(test_dangling_dentry),
		T(test_dentry_type_mismatch),
		T(test_wrong_link_count),
		T(test_wrong_dir_link_count),
		T(test_orphan),
		T(test_directory_two_names),
		T(test_log_loop),
		T(test_log_self_loop),
		T(test_log_head_out_of_range),
		T(test_next_out_of_range),
		T(test_tail_not_in_log),
		T(test_data_out_of_range),
		T(test_bad_entry_csum),
		T(test_entry_hint_change_is_fine),
		T(test_bad_inode_csum),
		T(test_bad_valid_word),
		T(test_bad_table_and_journal),
		T(test_symlink_checks),
		T(test_open_journal_transaction),
		T(test_open_journal_replicas),
		T(test_bad_journal_record),
		cmocka_unit_test(test_many_inodes),
		cmocka_unit_test(test_inode_replicas),
		cmocka_unit_test(test_log_mirrors),
		cmocka_unit_test(test_xattr_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

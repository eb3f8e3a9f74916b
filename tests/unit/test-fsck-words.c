// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Commit words verified, not trusted (format 1.3, inode replicas): when an
 * inode slot's log head/tail differ from its replica's, fsck.NOVA follows
 * the copy whose log walks to its tail and reaches the newer transaction
 * (a tie goes to the primary). A rolled-back or garbage primary is
 * repaired from the replica, and the blocks only the replica's log maps
 * stay in use; a damaged replica on a clean file system is repaired from
 * the primary; a replica behind the primary after a crash is no error;
 * with both copies broken the report is as before the rule.
 */
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
#define FILE_INO	21	/* after img_populate()'s 16..20 */
#define WRITES		6

/* An image with a file whose log has WRITES write entries. */
struct wimg {
	struct img im;
	uint64_t end[WRITES];	/* the log tail after each write */
	uint64_t blk[WRITES];	/* the data block of each write */
};

static void build(struct wimg *w, uint32_t features)
{
	struct img *im = &w->im;
	unsigned int i;

	assert_int_equal(img_make_features(im, SIZE, 1, features), 0);
	img_populate(im);
	img_new_inode(im, FILE_INO, S_IFREG | 0644, 1, 0);
	img_dentry(im, NOVA_ROOT_INO, "f", FILE_INO, 3, 8, 200);
	for (i = 0; i < WRITES; i++) {
		img_write(im, FILE_INO, i, 1, (i + 1) * NOVA_BLOCK_SIZE,
			  &w->blk[i]);
		w->end[i] = le64(img_inode(im, FILE_INO)->i_log_tail);
	}
	img_finish(im);
}

static int setup(void **state)
{
	struct wimg *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	build(w, NOVA_FEATURE_META_REPLICA);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct wimg *w = *state;

	img_free(&w->im);
	free(w);
	return 0;
}

/* How often @what occurs in @s. */
static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* fsck in @mode; its report must contain @want and not @unwanted. */
static void expect2(struct img *im, enum fsck_mode mode, int status,
		    const char *want, const char *unwanted)
{
	char *report = NULL;
	int st = img_fsck_report(im, mode, &report);

	if (st != status || (want && !strstr(report, want)) ||
	    (unwanted && strstr(report, unwanted)))
		fail_msg("expected status %d, '%s' and not '%s', got %d:\n%s",
			 status, want ? want : "", unwanted ? unwanted : "",
			 st, report);
	free(report);
}

static void expect(struct img *im, enum fsck_mode mode, int status,
		   const char *want)
{
	expect2(im, mode, status, want, NULL);
}

static struct nova_inode *prim(struct wimg *w)
{
	return img_inode(&w->im, FILE_INO);
}

static struct nova_inode *repl(struct wimg *w)
{
	return img_replica_inode(&w->im, FILE_INO);
}

/* The transaction of the write entry that ends at @end. */
static uint64_t trans_at(struct wimg *w, uint64_t end)
{
	const struct nova_log_entry_header *h =
		img_at(&w->im, end - sizeof(struct nova_file_write_entry));

	return le64(h->e_trans_id);
}

/* Is block @blk in the saved allocator state's free ranges? */
static bool saved_free(struct img *im, uint64_t blk)
{
	const struct nova_inode *ai = img_inode(im, NOVA_ALLOC_INO);
	const struct nova_free_ranges_entry *fr = img_at(im,
							 le64(ai->i_log_head));
	uint32_t i;

	for (i = 0; i < le32(fr->fr_count); i++)
		if (blk >= le64(fr->fr_ranges[i].r_start) &&
		    blk - le64(fr->fr_ranges[i].r_start) <
		    le64(fr->fr_ranges[i].r_len))
			return true;
	return false;
}

static void make_dirty(struct img *im)
{
	img_sb(im)->s_state = cpu32(NOVA_STATE_DIRTY);
	img_sync_super(im);
}

static void test_replicated_image_is_clean(void **state)
{
	struct wimg *w = *state;

	expect(&w->im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
	assert_memory_equal(prim(w), repl(w), sizeof(struct nova_inode));
}

/*
 * The case: the primary's tail lowered by two entries. The replica
 * proves the newer log: reported, -y repairs the primary from it, and the
 * data of the two later writes stays in use (nothing leaked or freed).
 */
static void test_primary_tail_rolled_back(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	char want[256];

	prim(w)->i_log_tail = cpu64(w->end[WRITES - 3]);
	snprintf(want, sizeof(want), "inode %u: log head/tail %llu/%llu of the primary slot disagree with the replica's %llu/%llu, whose log reaches transaction %llu (the primary's reaches transaction %llu): repairable from the replica",
		 FILE_INO, (unsigned long long)le64(prim(w)->i_log_head),
		 (unsigned long long)w->end[WRITES - 3],
		 (unsigned long long)le64(repl(w)->i_log_head),
		 (unsigned long long)w->end[WRITES - 1],
		 (unsigned long long)trans_at(w, w->end[WRITES - 1]),
		 (unsigned long long)trans_at(w, w->end[WRITES - 3]));
	expect2(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, want, "leaked");
	expect2(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
		"run fsck.NOVA -y to repair them", "data pages");
	expect2(im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 inode slot copies",
		"allocator state");
	assert_int_equal(le64(prim(w)->i_log_tail), w->end[WRITES - 1]);
	assert_int_equal(le64(repl(w)->i_log_tail), w->end[WRITES - 1]);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
	assert_false(saved_free(im, w->blk[WRITES - 1]));
	assert_false(saved_free(im, w->blk[WRITES - 2]));
}

/* Preen (-p) repairs it too: the repair is safe. */
static void test_preen_repairs_rolled_back(void **state)
{
	struct wimg *w = *state;

	prim(w)->i_log_tail = cpu64(w->end[WRITES - 2]);
	expect(&w->im, FSCK_PREEN, FSCK_CORRECTED, "of the primary slot disagree");
	assert_int_equal(le64(prim(w)->i_log_tail), w->end[WRITES - 1]);
	expect(&w->im, FSCK_NO_CHANGES, FSCK_OK, "clean");
}

/* A primary head at a data block, or out of the device: no log at all. */
static void test_primary_head_garbage(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	uint64_t head = le64(repl(w)->i_log_head);
	const uint64_t bad[] = { NOVA_OFF(w->blk[0]), 0xdead0000ULL << 12, 8 };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		prim(w)->i_log_head = cpu64(bad[i]);
		expect2(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
			"(the primary's does not walk to its tail): repairable from the replica",
			"bad log page");
		expect(im, FSCK_YES, FSCK_CORRECTED, "REPAIRED");
		assert_int_equal(le64(prim(w)->i_log_head), head);
		expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
	}
	/* no head at all: an empty log, but the replica's reaches further */
	prim(w)->i_log_head = 0;
	prim(w)->i_log_tail = 0;
	expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "(the primary's reaches transaction 0)");
	expect(im, FSCK_YES, FSCK_CORRECTED, NULL);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
}

/* A lowered replica tail after a clean unmount: -y rewrites the replica. */
static void test_replica_tail_lowered(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	char want[256];

	repl(w)->i_log_tail = cpu64(w->end[WRITES - 2]);
	snprintf(want, sizeof(want), "inode %u: the replica's commit words differ from the primary's: log head/tail %llu/%llu of the replica slot, %llu/%llu of the primary, whose log reaches transaction %llu (the replica's reaches transaction %llu): repairable from the primary",
		 FILE_INO, (unsigned long long)le64(repl(w)->i_log_head),
		 (unsigned long long)w->end[WRITES - 2],
		 (unsigned long long)le64(prim(w)->i_log_head),
		 (unsigned long long)w->end[WRITES - 1],
		 (unsigned long long)trans_at(w, w->end[WRITES - 1]),
		 (unsigned long long)trans_at(w, w->end[WRITES - 2]));
	expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, want);
	expect(im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 inode slot copies");
	assert_int_equal(le64(repl(w)->i_log_tail), w->end[WRITES - 1]);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");

	/* a garbage replica head too */
	repl(w)->i_log_head = cpu64(NOVA_OFF(w->blk[2]));
	expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "(the replica's does not walk to its tail): repairable from the primary");
	expect(im, FSCK_YES, FSCK_CORRECTED, NULL);
	assert_memory_equal(prim(w), repl(w), sizeof(struct nova_inode));
}

/*
 * A replica head at a page of the file's that links to itself: weighing
 * it ends (the loop is found), it does not walk to its tail, the primary
 * wins.
 */
static void test_replica_log_loop(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	uint64_t page = NOVA_OFF(img_alloc(im, 1));	/* free in the state */
	struct nova_log_page_tail *lt = img_at(im, page + NOVA_LOG_DATA_SIZE);

	memset(img_at(im, page), 0, NOVA_BLOCK_SIZE);
	lt->lt_ino = cpu64(FILE_INO);
	lt->lt_magic = cpu32(NOVA_LOG_PAGE_MAGIC);
	lt->lt_next = cpu64(page);
	nova_lt_seal(lt);
	repl(w)->i_log_head = cpu64(page);
	expect2(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
		"(the replica's does not walk to its tail): repairable from the primary",
		"loop");
	expect(im, FSCK_YES, FSCK_CORRECTED, NULL);
	assert_memory_equal(prim(w), repl(w), sizeof(struct nova_inode));
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
}

/*
 * A tie goes to the primary: a replica head at the second page of the
 * same log reaches the same transaction, but it is not what was committed.
 */
static void test_tie_goes_to_primary(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	struct nova_inode *pd = img_inode(im, 17), *rd = img_replica_inode(im, 17);
	const struct nova_log_page_tail *lt =
		img_at(im, le64(pd->i_log_head) + NOVA_LOG_DATA_SIZE);
	uint64_t second = le64(lt->lt_next);

	assert_true(second != 0);
	assert_true(le64(pd->i_log_tail) > second);	/* tail in page 2 */
	rd->i_log_head = cpu64(second);
	expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: the replica's commit words differ from the primary's");
	expect(im, FSCK_YES, FSCK_CORRECTED, NULL);
	assert_int_equal(le64(rd->i_log_head), le64(pd->i_log_head));
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
}

/*
 * After a crash, either tail copy one entry behind the other is what a
 * crash inside a commit leaves (both stores share one persistence round,
 * nova_pi_commit_tail()): no error, nothing changed; the newer tail wins
 * at mount. (On a clean image a primary behind is damage:
 * test_primary_tail_rolled_back.)
 */
static void test_dirty_replica_behind(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	uint8_t *copy = malloc(im->size);

	make_dirty(im);
	repl(w)->i_log_tail = cpu64(w->end[WRITES - 2]);
	memcpy(copy, im->buf, im->size);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "no problems, 8 inodes");
	expect(im, FSCK_YES, FSCK_OK, "no problems, 8 inodes");
	assert_memory_equal(copy, im->buf, im->size);

	repl(w)->i_log_tail = prim(w)->i_log_tail;
	prim(w)->i_log_tail = cpu64(w->end[WRITES - 2]);
	memcpy(copy, im->buf, im->size);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "no problems, 8 inodes");
	expect(im, FSCK_YES, FSCK_OK, "no problems, 8 inodes");
	assert_memory_equal(copy, im->buf, im->size);
	free(copy);
}

/*
 * An open journal transaction that recorded the primary's tail, and a
 * crash that made the replica's new value durable but not the primary's:
 * the primary reads as rolled back (as recovery does), and the replica's
 * newer log is not followed (the journal decides, recovery then copies
 * the primary's words to the replica).
 */
static void test_journaled_words_left_to_journal(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	struct nova_journal_ptr *jp = img_at(im, NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK));
	uint64_t ring = le64(jp->j_head);
	struct nova_journal_entry je = { 0 };

	make_dirty(im);
	prim(w)->i_log_tail = cpu64(w->end[WRITES - 2]);
	je.je_addr = cpu64((uint64_t)((uint8_t *)&prim(w)->i_log_tail - im->buf));
	je.je_old = cpu64(w->end[WRITES - 2]);
	je.je_type = cpu32(NOVA_JOURNAL_WORD);
	je.je_csum = cpu32(nova_je_csum(&je));
	memcpy(img_at(im, ring), &je, sizeof(je));
	jp->j_tail = cpu64(ring + sizeof(je));
	expect2(im, FSCK_NO_CHANGES, FSCK_OK, "checked as rolled back",
		"disagree");
}

/*
 * Both copies broken: no winner, reported as before the rule (the
 * primary's words are checked; a clean file system's replica words are
 * to be the primary's).
 */
static void test_both_broken(void **state)
{
	struct wimg *w = *state;
	struct img *im = &w->im;
	char want[128];

	prim(w)->i_log_head = cpu64(NOVA_OFF(w->blk[1]));
	repl(w)->i_log_tail = cpu64(w->end[WRITES - 1] - 8);
	snprintf(want, sizeof(want), "inode %u: bad log page at %llu",
		 FILE_INO, (unsigned long long)NOVA_OFF(w->blk[1]));
	expect(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED, want);
	expect2(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
		"inode 21: the replica's commit words differ from the primary's\n",
		"disagree");
	expect(im, FSCK_YES, FSCK_CORRECTED | FSCK_UNCORRECTED, want);
}

/*
 * Format 1.4: the winning log may lean on its mirror. The replica's log
 * reaches an entry whose primary copy is bad but whose mirror is good:
 * it is whole, wins, and -y repairs both the words and the entry.
 */
static void test_winner_with_mirror_repair(void **state)
{
	struct wimg w;
	struct img *im = &w.im;
	char *report = NULL;
	uint64_t last;

	(void)state;
	build(&w, NOVA_FEATURE_META_REPLICA | NOVA_FEATURE_LOG_REPLICA);
	last = w.end[WRITES - 1] - sizeof(struct nova_file_write_entry);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");
	prim(&w)->i_log_tail = cpu64(w.end[WRITES - 2]);
	*(uint8_t *)img_at(im, last + 30) ^= 1;
	assert_int_equal(img_fsck_report(im, FSCK_NO_CHANGES, &report),
			 FSCK_UNCORRECTED);
	/* once: weighing the two logs reports nothing */
	assert_int_equal(count(report, "of the primary slot disagree with the replica's"), 1);
	assert_int_equal(count(report, "damaged log entry at"), 1);
	assert_int_equal(count(report, "\n"), 4);
	free(report);
	expect(im, FSCK_YES, FSCK_CORRECTED, "rewrote 1 log entry");
	assert_int_equal(le64(prim(&w)->i_log_tail), w.end[WRITES - 1]);
	expect(im, FSCK_NO_CHANGES, FSCK_OK, "clean, 8 inodes");

	/* both copies of that entry bad: the replica's log is not whole */
	prim(&w)->i_log_tail = cpu64(w.end[WRITES - 2]);
	*(uint8_t *)img_at(im, last + 30) ^= 1;
	*(uint8_t *)img_at(im, img_mirror(im, last & ~(uint64_t)4095) +
			   (last & 4095) + 30) ^= 1;
	expect2(im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
		"(the replica's does not walk to its tail): repairable from the primary",
		"bad log entry");
	img_free(im);
}

/*
 * Format 1.4: a page link (lt_next, outside the tail checksum) damaged in
 * the mirror while the primary's tail is damaged too: the primary's tail
 * is rebuilt from the mirror and the mirror's link from the primary's, in
 * one run (a second check is clean).
 */
static void test_mirror_link_with_bad_primary_tail(void **state)
{
	struct img im;
	struct nova_log_page_tail *lt, *mt;
	uint64_t head, m;

	(void)state;
	assert_int_equal(img_make_features(&im, SIZE, 1,
					   NOVA_FEATURE_META_REPLICA |
					   NOVA_FEATURE_LOG_REPLICA), 0);
	img_populate(&im);
	img_finish(&im);
	head = le64(img_inode(&im, 17)->i_log_head);
	m = img_mirror(&im, head);
	lt = img_at(&im, head + NOVA_LOG_DATA_SIZE);
	mt = img_at(&im, m + NOVA_LOG_DATA_SIZE);
	assert_true(lt->lt_next != 0);
	mt->lt_next = cpu64(le64(mt->lt_next) + 4 * NOVA_BLOCK_SIZE);
	lt->lt_magic ^= cpu32(0x100);
	expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "inode 17: damaged log page tail at");
	expect(&im, FSCK_NO_CHANGES, FSCK_UNCORRECTED,
	       "the mirror's link differs from the primary's");
	expect(&im, FSCK_YES, FSCK_CORRECTED, NULL);
	assert_int_equal(le64(mt->lt_next), le64(lt->lt_next));
	expect(&im, FSCK_NO_CHANGES, FSCK_OK, "clean");
	img_free(&im);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_replicated_image_is_clean),
		T(test_primary_tail_rolled_back),
		T(test_preen_repairs_rolled_back),
		T(test_primary_head_garbage),
		T(test_replica_tail_lowered),
		T(test_replica_log_loop),
		T(test_tie_goes_to_primary),
		T(test_dirty_replica_behind),
		T(test_journaled_words_left_to_journal),
		T(test_both_broken),
		cmocka_unit_test(test_winner_with_mirror_repair),
		cmocka_unit_test(test_mirror_link_with_bad_primary_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

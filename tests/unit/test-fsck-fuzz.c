// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA on damaged images: thousands of random byte flips and
 * pointer rewrites in the metadata of a fresh, a populated and a populated
 * replicated (inode replicas, log mirrors) image (and of NOVA_FUZZ_IMAGE,
 * a real image, if that is set). Every run must
 * end (a watchdog alarm kills a hang), return an fsck(8) status, detect
 * damage to checksummed structures, and after -y either leave a clean
 * file system or say that it could not.
 *
 * NOVA_FUZZ_SEED and NOVA_FUZZ_ITERS vary and scale the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test-fsck-image.h"

#define WATCHDOG_SECONDS	20
#define REPLICA_SLOTS_FUZZED	64	/* replica slots mapped: the first */

static uint64_t rng_state;
static volatile const char *current = "setup";
static volatile unsigned long current_iter;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	n = snprintf(msg, sizeof(msg),
		     "not ok - fsck.NOVA hung: %s, iteration %lu (seed %llu)\n",
		     (const char *)current, current_iter,
		     (unsigned long long)rng_state);
	if (write(1, msg, (size_t)n) < 0)
		_exit(99);
	_exit(99);
}

static unsigned long iters(unsigned long dflt)
{
	const char *s = getenv("NOVA_FUZZ_ITERS");

	return s && atol(s) > 0 ? (unsigned long)atol(s) : dflt;
}

/* ---- where the metadata is ---- */

struct region {
	uint64_t off, len;
	int kind;
};

enum { R_SUPER, R_REPLICA, R_RESERVED, R_PTRS, R_TABLE, R_LOG, R_WORD };

struct target {
	struct img im;
	uint8_t *pristine;
	struct region r[4096];
	unsigned int nr;
	uint64_t words[4096];	/* offsets of commit words */
	unsigned int nwords;
	const char *name;
};

static void add_region(struct target *t, uint64_t off, uint64_t len, int kind)
{
	if (t->nr < sizeof(t->r) / sizeof(t->r[0]) && off + len <= t->im.size)
		t->r[t->nr++] = (struct region){ off, len, kind };
}

static void add_word(struct target *t, uint64_t off)
{
	if (t->nwords < sizeof(t->words) / sizeof(t->words[0]) &&
	    off + 8 <= t->im.size)
		t->words[t->nwords++] = off;
}

/* Find the metadata of an image by walking it (tolerant, bounded). */
static void map_target(struct target *t)
{
	struct img *im = &t->im;
	const struct nova_super_block *sb = img_sb(im);
	unsigned int cpus = le32(sb->s_cpus), c, s;
	uint64_t b;

	add_region(t, 0, NOVA_SB_SIZE, R_SUPER);
	add_region(t, NOVA_OFF(im->nblocks - 1), NOVA_SB_SIZE, R_REPLICA);
	add_region(t, NOVA_OFF(1), NOVA_BLOCK_SIZE, R_RESERVED);
	add_region(t, NOVA_OFF(2), 64 * cpus, R_PTRS);
	add_region(t, NOVA_OFF(3), 64 * cpus, R_PTRS);
	for (s = 1; s < NOVA_RESERVED_INODES; s++) {
		add_word(t, NOVA_OFF(1) + s * NOVA_INODE_SIZE + 8);
		add_word(t, NOVA_OFF(1) + s * NOVA_INODE_SIZE + 16);
	}
	for (c = 0; c < cpus && c < NOVA_MAX_CPUS; c++) {
		const struct nova_inode_table *it = img_at(im, NOVA_OFF(3) + 64 * c);
		uint64_t tb = le64(it->it_head);

		add_word(t, NOVA_OFF(2) + 64 * c);
		add_word(t, NOVA_OFF(2) + 64 * c + 8);
		if (tb < 4 || tb + NOVA_INODE_TABLE_BLOCKS >= im->nblocks)
			continue;
		/* the slots in use and the tail */
		for (s = 0; s < NOVA_INODES_PER_TABLE; s++) {
			uint64_t off = NOVA_OFF(tb) + nova_slot_off(s);
			const struct nova_inode *pi = img_at(im, off);

			if (!pi->i_valid && !pi->i_ino)
				continue;
			add_region(t, off, NOVA_INODE_SIZE, R_TABLE);
			add_word(t, off);
			add_word(t, off + 8);
			add_word(t, off + 16);
		}
		add_region(t, NOVA_OFF(tb) + NOVA_ITT_OFF, 256, R_TABLE);
		add_word(t, NOVA_OFF(tb) + NOVA_ITT_OFF);
	}
	/*
	 * Inode replicas (1.3): the log words of the replica slots in use
	 * (images made here: img_replica_inode() needs im->cpus).
	 */
	for (s = 1; s < REPLICA_SLOTS_FUZZED; s++) {
		const struct nova_inode *ri;

		if (!(le32(sb->s_feature_incompat) & NOVA_FEATURE_META_REPLICA) ||
		    !im->cpus)
			break;
		ri = img_replica_inode(im, s);
		if (!ri->i_valid)
			continue;
		add_word(t, (uint64_t)((const uint8_t *)ri - im->buf) + 8);
		add_word(t, (uint64_t)((const uint8_t *)ri - im->buf) + 16);
	}
	/* log pages: every block with a sealed log tail */
	for (b = NOVA_FIRST_ALLOC_BLOCK; b < im->nblocks - 1; b++) {
		const struct nova_log_page_tail *lt = img_at(im, NOVA_OFF(b) +
							     NOVA_LOG_DATA_SIZE);

		if (le32(lt->lt_magic) != NOVA_LOG_PAGE_MAGIC ||
		    le32(lt->lt_csum) != nova_lt_csum(lt))
			continue;
		/* the entries written to the page (up to a pad), and the tail */
		{
			uint64_t pos = 0;

			while (pos + sizeof(struct nova_log_entry_header) <= NOVA_LOG_DATA_SIZE) {
				const struct nova_log_entry_header *h = img_at(im, NOVA_OFF(b) + pos);
				unsigned int sz = le16(h->e_size);

				if (h->e_type == NOVA_LOG_PAD || sz < 24 || sz % 8 ||
				    pos + sz > NOVA_LOG_DATA_SIZE)
					break;
				pos += sz;
			}
			if (pos)
				add_region(t, NOVA_OFF(b), pos, R_LOG);
		}
		add_region(t, NOVA_OFF(b) + NOVA_LOG_DATA_SIZE, 32, R_LOG);
		add_word(t, NOVA_OFF(b) + NOVA_LOG_DATA_SIZE);
	}
}

static void target_init(struct target *t, const char *name)
{
	t->name = name;
	t->pristine = malloc(t->im.size);
	assert_non_null(t->pristine);
	memcpy(t->pristine, t->im.buf, t->im.size);
	map_target(t);
}

static void target_free(struct target *t)
{
	free(t->pristine);
	img_free(&t->im);
}

/* ---- mutations, undone from a log of changed bytes ---- */

struct undo {
	uint64_t off[16];
	uint8_t old[16][8];
	unsigned int len[16];
	unsigned int n;
};

static void save(struct target *t, struct undo *u, uint64_t off, unsigned int len)
{
	u->off[u->n] = off;
	u->len[u->n] = len;
	memcpy(u->old[u->n], t->im.buf + off, len);
	u->n++;
}

static void restore(struct target *t, struct undo *u)
{
	while (u->n) {
		u->n--;
		memcpy(t->im.buf + u->off[u->n], u->old[u->n], u->len[u->n]);
	}
}

static const uint64_t interesting[] = {
	0, 1, 8, 4096, 4096 * 2, 4096 * 3, 0xfff, ~0ULL, ~0ULL - 4095,
	1ULL << 63, 16ULL << 20, (16ULL << 20) - 4096, (16ULL << 20) - 8,
};

/*
 * Damage the image: returns the kind of the first region hit, or -1 for a
 * pointer rewrite. Flipped bytes always change.
 */
static int mutate(struct target *t, struct undo *u)
{
	unsigned int n = 1 + (unsigned int)below(4), i;
	int first = -2;

	u->n = 0;
	if (t->nwords && below(100) < 30) {
		uint64_t off = t->words[below(t->nwords)], v;

		save(t, u, off, 8);
		switch (below(3)) {
		case 0:
			v = interesting[below(sizeof(interesting) / 8)];
			break;
		case 1:	/* another block, maybe a real one */
			v = NOVA_OFF(below(t->im.nblocks + 4)) + 8 * below(3);
			break;
		default: /* near the current value */
			memcpy(&v, t->im.buf + off, 8);
			v = le64(v) + (below(2) ? 8 : -8) * (1 + below(512));
			break;
		}
		v = cpu64(v);
		memcpy(t->im.buf + off, &v, 8);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct region *r = &t->r[below(t->nr)];
		uint64_t off = r->off + below(r->len);

		save(t, u, off, 1);
		t->im.buf[off] ^= (uint8_t)(1 + below(255));
		if (first == -2)
			first = r->kind;
	}
	return first;
}

/* Bytes of the superblock and root inode that every flip must expose. */
static bool must_detect(struct target *t, struct undo *u)
{
	unsigned int i;

	for (i = 0; i < u->n; i++) {
		uint64_t off = u->off[i];
		uint64_t root = NOVA_OFF(1) + NOVA_ROOT_INO * NOVA_INODE_SIZE;

		if (u->len[i] != 1)
			continue;
		/* primary superblock: every byte is under s_csum */
		if (off < NOVA_SB_SIZE)
			return true;
		/* root inode: everything after the three commit words */
		if (off >= root + 24 && off < root + NOVA_INODE_SIZE)
			return true;
		/* table heads and journal pointers past their commit words */
		if (off >= NOVA_OFF(2) && off < NOVA_OFF(4) &&
		    (off % 64) >= 8 && (off % 64) < 64 &&
		    (off % NOVA_BLOCK_SIZE) < 64 * le32(img_sb(&t->im)->s_cpus) &&
		    (off >= NOVA_OFF(3) || (off % 64) >= 16))
			return true;
	}
	return false;
}

static void fuzz_check_only(struct target *t, unsigned long n)
{
	unsigned long i, detected = 0, required = 0, missed = 0;
	struct undo u;

	current = t->name;
	for (i = 0; i < n; i++) {
		int st;

		current_iter = i;
		mutate(t, &u);
		alarm(WATCHDOG_SECONDS);
		st = img_fsck(&t->im, FSCK_NO_CHANGES, NULL);
		alarm(0);
		if (st != 0 && st != FSCK_UNCORRECTED && st != FSCK_OPERATIONAL)
			fail_msg("%s iteration %lu: fsck -n returned %d", t->name, i, st);
		if (st)
			detected++;
		if (must_detect(t, &u)) {
			required++;
			if (!st && missed++ < 5)
				print_message("# %s iteration %lu: damage at %llu not detected\n",
					      t->name, i, (unsigned long long)u.off[0]);
		}
		restore(t, &u);
	}
	print_message("# %s: %lu damaged images, %lu detected; %lu of %lu required detections\n",
		      t->name, n, detected, required - missed, required);
	assert_int_equal(missed, 0);
	assert_true(detected * 2 > n);
	assert_memory_equal(t->im.buf, t->pristine, t->im.size);
}

static void fuzz_repair(struct target *t, unsigned long n, bool expect_fixes)
{
	unsigned long i, fixed = 0, left = 0;
	struct undo u;

	current = t->name;
	for (i = 0; i < n; i++) {
		int st, again;

		current_iter = i;
		mutate(t, &u);
		alarm(WATCHDOG_SECONDS);
		st = img_fsck(&t->im, FSCK_YES, NULL);
		again = img_fsck(&t->im, FSCK_NO_CHANGES, NULL);
		alarm(0);
		if (st & ~(FSCK_CORRECTED | FSCK_UNCORRECTED | FSCK_OPERATIONAL))
			fail_msg("%s iteration %lu: fsck -y returned %d", t->name, i, st);
		/* "all corrected" must mean it: the next check is clean */
		if (st == FSCK_CORRECTED && again != 0)
			fail_msg("%s iteration %lu: -y said corrected, then -n returned %d",
				 t->name, i, again);
		if (st == 0 && again != 0)
			fail_msg("%s iteration %lu: clean, then %d", t->name, i, again);
		fixed += st == FSCK_CORRECTED;
		left += (st & FSCK_UNCORRECTED) != 0;
		memcpy(t->im.buf, t->pristine, t->im.size);
	}
	print_message("# %s: %lu repairs: %lu fully corrected, %lu left errors\n",
		      t->name, n, fixed, left);
	if (expect_fixes)
		assert_true(fixed > 0);
}

/* ---- the images ---- */

static void make_fresh(struct target *t)
{
	assert_int_equal(img_make(&t->im, 16ULL << 20, 2), 0);
	target_init(t, "fresh image");
}

static void make_populated(struct target *t)
{
	assert_int_equal(img_make(&t->im, 16ULL << 20, 1), 0);
	img_populate(&t->im);
	img_finish(&t->im);
	assert_int_equal(img_fsck(&t->im, FSCK_NO_CHANGES, NULL), 0);
	target_init(t, "populated image");
}

/* Inode replicas and log mirrors (formats 1.3 and 1.4). */
static void make_replicated(struct target *t)
{
	assert_int_equal(img_make_features(&t->im, 16ULL << 20, 1,
					   NOVA_FEATURE_META_REPLICA |
					   NOVA_FEATURE_LOG_REPLICA), 0);
	img_populate(&t->im);
	img_finish(&t->im);
	assert_int_equal(img_fsck(&t->im, FSCK_NO_CHANGES, NULL), 0);
	target_init(t, "replicated image");
}

static void test_fresh_check(void **state)
{
	struct target *t = calloc(1, sizeof(*t));

	(void)state;
	make_fresh(t);
	fuzz_check_only(t, iters(5000));
	target_free(t);
	free(t);
}

static void test_populated_check(void **state)
{
	struct target *t = calloc(1, sizeof(*t));

	(void)state;
	make_populated(t);
	fuzz_check_only(t, iters(8000));
	target_free(t);
	free(t);
}

static void test_fresh_repair(void **state)
{
	struct target *t = calloc(1, sizeof(*t));

	(void)state;
	make_fresh(t);
	fuzz_repair(t, iters(6000) / 6, true);
	target_free(t);
	free(t);
}

static void test_populated_repair(void **state)
{
	struct target *t = calloc(1, sizeof(*t));

	(void)state;
	make_populated(t);
	fuzz_repair(t, iters(6000) / 6, true);
	target_free(t);
	free(t);
}

static void test_replicated_check(void **state)
{
	struct target *t = calloc(1, sizeof(*t));

	(void)state;
	make_replicated(t);
	fuzz_check_only(t, iters(4000));
	target_free(t);
	free(t);
}

static void test_replicated_repair(void **state)
{
	struct target *t = calloc(1, sizeof(*t));

	(void)state;
	make_replicated(t);
	fuzz_repair(t, iters(6000) / 6, true);
	target_free(t);
	free(t);
}

/* A real image (e.g. saved by a guest test), if one is named. */
static void test_real_image(void **state)
{
	const char *path = getenv("NOVA_FUZZ_IMAGE");
	struct target *t;
	struct stat st;
	int fd;

	(void)state;
	if (!path || !*path) {
		skip();
		return;
	}
	t = calloc(1, sizeof(*t));
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	t->im.size = (uint64_t)st.st_size & ~4095ULL;
	t->im.nblocks = t->im.size / NOVA_BLOCK_SIZE;
	t->im.buf = malloc(t->im.size);
	assert_non_null(t->im.buf);
	assert_int_equal(pread(fd, t->im.buf, t->im.size, 0), (ssize_t)t->im.size);
	close(fd);
	target_init(t, path);
	{
		int clean = img_fsck(&t->im, FSCK_NO_CHANGES, NULL);

		if (clean)
			fail_msg("the real image %s is not clean to begin with (%d)", path, clean);
	}
	fuzz_check_only(t, iters(3000) / 3);
	fuzz_repair(t, iters(3000) / 30, false);
	target_free(t);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_check),
		cmocka_unit_test(test_populated_check),
		cmocka_unit_test(test_fresh_repair),
		cmocka_unit_test(test_populated_repair),
		cmocka_unit_test(test_replicated_check),
		cmocka_unit_test(test_replicated_repair),
		cmocka_unit_test(test_real_image),
	};
	const char *seed = getenv("NOVA_FUZZ_SEED");

	rng_state = seed && strtoull(seed, NULL, 0) ? strtoull(seed, NULL, 0) :
		    0x9e3779b97f4a7c15ULL;
	signal(SIGALRM, on_alarm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

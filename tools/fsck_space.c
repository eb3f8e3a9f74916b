// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: block ownership. Every block referenced by the metadata is
 * claimed once; a second claim is a double allocation (or a loop). On a
 * clean file system the allocator state saved in the log of
 * NOVA_ALLOC_INO must be exactly the complement of the claimed blocks:
 * a block both free and in use would be handed out twice, a block neither
 * free nor used is leaked. The superblock's counters are compared too.
 */
#include <stdlib.h>
#include <string.h>

#include "fsck.h"
#include "le.h"

static const char *const kind_names[BK_NR] = {
	[BK_FREE] = "free",
	[BK_FIXED] = "fixed metadata",
	[BK_TABLE] = "inode table",
	[BK_JOURNAL] = "journal",
	[BK_LOG] = "log page",
	[BK_DATA] = "data",
	[BK_STATE] = "allocator state",
};

const char *fsck_bkind_name(enum fsck_bkind k)
{
	return k < BK_NR ? kind_names[k] : "?";
}

bool fsck_claim(struct fsck *f, uint64_t blk, uint64_t n,
		enum fsck_bkind kind, uint64_t owner, const char *what)
{
	uint64_t i;

	if (kind != BK_FIXED && !fsck_blocks_ok(f, blk, n)) {
		fsck_problem(f, "%s of inode %llu: blocks %llu+%llu are out of range",
			     what, (unsigned long long)owner,
			     (unsigned long long)blk, (unsigned long long)n);
		return false;
	}
	for (i = 0; i < n; i++) {
		uint64_t b = blk + i;

		if (f->bkind[b] == BK_FREE)
			continue;
		/* A log chain revisiting its own page is reported as a loop. */
		if (kind == BK_LOG && f->bkind[b] == BK_LOG &&
		    f->bowner[b] == owner)
			return false;
		fsck_problem(f, "block %llu is used twice: %s of inode %llu and %s of inode %llu",
			     (unsigned long long)b,
			     fsck_bkind_name(f->bkind[b]),
			     (unsigned long long)f->bowner[b], what,
			     (unsigned long long)owner);
		return false;
	}
	for (i = 0; i < n; i++) {
		f->bkind[blk + i] = (uint8_t)kind;
		f->bowner[blk + i] = owner;
	}
	return true;
}

/* ---- the saved allocator state ---- */

struct state_ctx {
	uint8_t *freemap;	/* one bit per block */
	bool bad;
	uint64_t ranges;
};

static bool test_and_set(uint8_t *map, uint64_t b)
{
	bool was = map[b / 8] & (1U << (b % 8));

	map[b / 8] |= (uint8_t)(1U << (b % 8));
	return was;
}

static bool state_entry(struct fsck *f, uint64_t off,
			const struct nova_log_entry_header *h, void *arg)
{
	const struct nova_free_ranges_entry *fr = (const void *)h;
	struct state_ctx *c = arg;
	uint32_t n, i;

	if (h->e_type != NOVA_LOG_FREE_RANGES || le16(h->e_size) < sizeof(*fr) ||
	    le16(h->e_size) != nova_entry_expected_size(h)) {
		fsck_problem(f, "allocator state: bad entry at %llu",
			     (unsigned long long)off);
		c->bad = true;
		return false;
	}
	if (le64(h->e_trans_id) > f->max_trans)
		f->max_trans = le64(h->e_trans_id);
	n = le32(fr->fr_count);
	for (i = 0; i < n; i++) {
		uint64_t start = le64(fr->fr_ranges[i].r_start);
		uint64_t len = le64(fr->fr_ranges[i].r_len), b;

		if (!fsck_blocks_ok(f, start, len)) {
			fsck_problem(f, "allocator state: free range %llu+%llu is outside the device",
				     (unsigned long long)start,
				     (unsigned long long)len);
			c->bad = true;
			return false;
		}
		for (b = start; b < start + len; b++) {
			if (test_and_set(c->freemap, b)) {
				fsck_problem(f, "allocator state: free range %llu+%llu overlaps another one at block %llu",
					     (unsigned long long)start,
					     (unsigned long long)len,
					     (unsigned long long)b);
				c->bad = true;
				return false;
			}
		}
		f->free_blocks += len;
		c->ranges++;
	}
	return true;
}

/* Report runs of blocks with a property, at most a few lines. */
struct runs {
	uint64_t start, len, total, runs;
};

static void run_add(struct fsck *f, struct runs *r, uint64_t b,
		    const char *what)
{
	if (r->len && r->start + r->len == b) {
		r->len++;
	} else {
		if (r->len && r->runs <= 8)
			fsck_info(f, 0, "  %s: blocks %llu-%llu", what,
				  (unsigned long long)r->start,
				  (unsigned long long)(r->start + r->len - 1));
		r->start = b;
		r->len = 1;
		r->runs++;
	}
	r->total++;
}

static void run_end(struct fsck *f, struct runs *r, const char *what)
{
	if (r->len && r->runs <= 8)
		fsck_info(f, 0, "  %s: blocks %llu-%llu", what,
			  (unsigned long long)r->start,
			  (unsigned long long)(r->start + r->len - 1));
	if (r->runs > 8)
		fsck_info(f, 0, "  ... %llu runs in all",
			  (unsigned long long)r->runs);
}

static void compare_state(struct fsck *f, const uint8_t *freemap)
{
	struct runs used = { 0 }, leaked = { 0 };
	uint64_t b;

	for (b = NOVA_FIRST_ALLOC_BLOCK; b < f->nblocks - 1; b++) {
		bool is_free = freemap[b / 8] & (1U << (b % 8));

		if (is_free && f->bkind[b] != BK_FREE)
			run_add(f, &used, b, "in use and free");
		else if (!is_free && f->bkind[b] == BK_FREE)
			run_add(f, &leaked, b, "leaked");
	}
	run_end(f, &used, "in use and free");
	run_end(f, &leaked, "leaked");
	if (used.total)
		fsck_problem_fix(f, REP_STATE, "%llu blocks in use are also in the saved free space (they would be allocated twice)",
				 (unsigned long long)used.total);
	if (leaked.total)
		fsck_problem_fix(f, REP_STATE, "%llu blocks are neither in use nor free (leaked)",
				 (unsigned long long)leaked.total);
}

static void check_state(struct fsck *f)
{
	const struct nova_inode *pi = fsck_ptr(f,
		NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) +
		NOVA_ALLOC_INO * NOVA_INODE_SIZE, NOVA_INODE_SIZE);
	uint64_t head = fsck_word(f, &pi->i_log_head);
	uint64_t tail = fsck_word(f, &pi->i_log_tail);
	struct state_ctx c = { 0 };
	uint64_t pages = 0;
	unsigned long before;
	bool ok;

	if (!f->clean) {
		fsck_info(f, 0, "%s: not cleanly unmounted: the saved allocator state is not used, the kernel rebuilds it from the logs at mount (checked above)",
			  f->dev->path);
		return;
	}
	c.freemap = calloc(f->nblocks / 8 + 1, 1);
	if (!c.freemap) {
		fsck_oper(f, "out of memory");
		return;
	}
	f->state_present = true;
	if (!head && tail) {
		fsck_problem_fix(f, REP_STATE, "allocator state: log tail %llu without a log",
				 (unsigned long long)tail);
		ok = false;
	} else if (before = f->problems,
		   head && !fsck_walk_log(f, NOVA_ALLOC_INO, head, tail,
					  BK_STATE, state_entry, &c, &pages)) {
		/* What the walk reported is fixed by rebuilding the state. */
		f->fixable[REP_STATE] += f->problems - before;
		ok = false;
	} else {
		ok = true;
	}
	f->state_pages = pages;
	if (ok) {
		f->state_valid = true;
		fsck_info(f, 1, "allocator state: %llu free ranges, %llu free blocks in %llu pages",
			  (unsigned long long)c.ranges,
			  (unsigned long long)f->free_blocks,
			  (unsigned long long)pages);
		compare_state(f, c.freemap);
	}
	free(c.freemap);
}

/* A clean superblock's counters: compare, and fix in f->sb for REP_HINTS. */
static void hint(struct fsck *f, const char *name, __le64 *field, uint64_t want)
{
	if (le64(*field) == want)
		return;
	fsck_problem_fix(f, REP_HINTS, "superblock: %s is %llu, counted %llu",
			 name, (unsigned long long)le64(*field),
			 (unsigned long long)want);
	*field = cpu64(want);
}

static void check_hints(struct fsck *f)
{
	f->orig_sb_hints = f->sb;
	hint(f, "free block count", &f->sb.s_free_blocks, f->free_blocks);
	hint(f, "log page count", &f->sb.s_log_pages, f->log_pages);
	hint(f, "data page count", &f->sb.s_data_pages, f->data_pages);
	if (le64(f->sb.s_trans_id) <= f->max_trans)
		hint(f, "next transaction id", &f->sb.s_trans_id,
		     f->max_trans + 1);
}

void fsck_check_space(struct fsck *f)
{
	uint64_t b, meta = 0;

	check_state(f);
	for (b = NOVA_FIRST_ALLOC_BLOCK; b < f->nblocks - 1; b++)
		if (f->bkind[b] == BK_TABLE || f->bkind[b] == BK_JOURNAL ||
		    f->bkind[b] == BK_STATE)
			meta++;
	f->meta_blocks = meta;
	if (f->state_valid)
		check_hints(f);
	fsck_info(f, 1, "space: %llu metadata blocks, %llu log pages, %llu data blocks",
		  (unsigned long long)meta, (unsigned long long)f->log_pages,
		  (unsigned long long)f->data_pages);
}

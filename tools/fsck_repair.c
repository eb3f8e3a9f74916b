// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: repairs. Only what can be repaired without guessing:
 *
 *   REP_JOURNAL  roll back an open lite-journal transaction found on a
 *                cleanly unmounted file system, exactly as the kernel's
 *                recovery does (old values, then close the ring); after a
 *                crash the kernel does that itself at mount;
 *   REP_STATE    a saved allocator state that is wrong (leaks, blocks both
 *                used and free, unreadable) is written anew as the
 *                complement of the blocks the check found in use;
 *   REP_HINTS    the superblock's counters of a clean file system;
 *   REP_SUPER    a bad or stale superblock copy is rewritten from the good
 *                one (primary first, then the replica, each made durable);
 *   REP_INODE    (1.3) a bad inode slot copy, primary or replica, is
 *                rewritten from the good one (its static part); log words
 *                from the copy whose log proves newer (fsck_tables.c),
 *                other commit words of a clean file system from the
 *                primary;
 *   REP_LOG      (1.4) a bad copy of a log entry or log page tail, in the
 *                primary page or its mirror, is rewritten from the good
 *                copy (as the kernel's log walk does);
 *   REP_BITMAP   (1.9) the allocation bitmap is written anew from the
 *                blocks in use (after a state rebuild too, whose pages
 *                move).
 *
 * The allocator state and the counters are rebuilt only when every other
 * problem found is repairable too: the block map is then complete. Logs,
 * names and link counts are reported, not repaired: the logs are the only
 * record of what the files contain.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsck.h"
#include "le.h"
#include "nova_bitmap.h"
#include "nova_state.h"

static bool put_word(struct fsck *f, uint64_t off, uint64_t val)
{
	__le64 v = cpu64(val);
	struct nerr e;

	if (ndev_write(f->dev, off, &v, sizeof(v), &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	return true;
}

static bool sync_dev(struct fsck *f)
{
	struct nerr e;

	if (ndev_sync(f->dev, &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	return true;
}

static bool repair_journals(struct fsck *f)
{
	unsigned int i, cpu;

	/* 1. the old values of every recorded word and its replica, durable */
	for (i = 0; i < f->nr_undo; i++) {
		if (!put_word(f, f->undo[i].addr, f->undo[i].old))
			return false;
		if (f->undo[i].raddr &&
		    !put_word(f, f->undo[i].raddr, f->undo[i].old))
			return false;
	}
	if (!sync_dev(f))
		return false;
	/* 2. close every ring: tail = head */
	for (cpu = 0; cpu < f->cpus; cpu++) {
		uint64_t off = NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK) +
			       cpu * sizeof(struct nova_journal_ptr);
		const struct nova_journal_ptr *jp = fsck_ptr(f, off, sizeof(*jp));

		if (le32(jp->j_csum) != nova_jp_csum(jp) ||
		    le64(jp->j_head) == le64(jp->j_tail))
			continue;
		if (!put_word(f, off + offsetof(struct nova_journal_ptr, j_tail),
			      le64(jp->j_head)))
			return false;
	}
	if (!sync_dev(f))
		return false;
	fsck_fixed(f, "rolled back %u journaled words of interrupted operations",
		   f->nr_undo);
	return true;
}

/* ---- rebuilding the saved allocator state ---- */

static bool avail(const struct fsck *f, uint64_t b)
{
	return f->bkind[b] == BK_FREE || f->bkind[b] == BK_STATE;
}

/* Free runs of the block map, skipping blocks marked in @taken. */
static uint64_t count_runs(const struct fsck *f, const uint8_t *taken)
{
	uint64_t b, runs = 0;
	bool in = false;

	for (b = NOVA_FIRST_ALLOC_BLOCK; b < f->nblocks - 1; b++) {
		bool fr = avail(f, b) && !taken[b];

		runs += fr && !in;
		in = fr;
	}
	return runs;
}

/* One state page (nova_state_page_fill(), as the kernel writes it). */
static bool write_state_page(struct fsck *f, const struct nova_range *r,
			     unsigned int k, uint64_t blk, uint64_t next,
			     uint64_t *trans, uint64_t *tail)
{
	uint8_t page[NOVA_BLOCK_SIZE];
	struct nerr e;

	*tail = NOVA_OFF(blk) +
		nova_state_page_fill(page, r, k, le64(f->sb.s_epoch_id),
				     ++*trans, next);
	if (ndev_write(f->dev, NOVA_OFF(blk), page, sizeof(page), &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	return true;
}

/*
 * Write the free space as nova_save_alloc_state() would: the pages for
 * the state first (taken from the front of the free space, so the ranges
 * exclude them), 250 ranges a page. The ordering mirrors the kernel's:
 * forget the old state (tail 0), write the pages, then head, then tail.
 */
static bool rebuild_state(struct fsck *f)
{
	uint64_t ai = NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) +
		      NOVA_ALLOC_INO * NOVA_INODE_SIZE;
	uint64_t runs, npages, i, n = 0, b, nfree = 0, tail = 0;
	uint64_t trans = f->max_trans;
	uint64_t *pages = NULL;
	struct nova_range *r = NULL;
	uint8_t *taken;
	bool ok = false;

	taken = calloc(f->nblocks, 1);
	if (!taken) {
		fsck_oper(f, "out of memory");
		return false;
	}
	runs = count_runs(f, taken);
	npages = (runs + NOVA_RANGES_PER_ENTRY - 1) / NOVA_RANGES_PER_ENTRY;
	pages = calloc(npages + 1, sizeof(*pages));
	r = calloc(runs + 1, sizeof(*r));
	if (!pages || !r) {
		fsck_oper(f, "out of memory");
		goto out;
	}
	for (b = NOVA_FIRST_ALLOC_BLOCK, i = 0; i < npages && b < f->nblocks - 1; b++) {
		if (avail(f, b)) {
			taken[b] = 1;
			pages[i++] = b;
		}
	}
	if (i < npages) {
		fsck_info(f, 0, "no room for the allocator state");
		goto out;
	}
	/* Taking blocks can only remove runs; a spare page gets no ranges. */
	for (b = NOVA_FIRST_ALLOC_BLOCK; b < f->nblocks - 1; b++) {
		if (!avail(f, b) || taken[b])
			continue;
		if (n && le64(r[n - 1].r_start) + le64(r[n - 1].r_len) == b) {
			r[n - 1].r_len = cpu64(le64(r[n - 1].r_len) + 1);
		} else {
			r[n].r_start = cpu64(b);
			r[n].r_len = cpu64(1);
			n++;
		}
		nfree++;
	}

	if (!put_word(f, ai + offsetof(struct nova_inode, i_log_tail), 0) ||
	    !sync_dev(f))
		goto out;
	for (i = 0; i < npages; i++) {
		uint64_t first = i * NOVA_RANGES_PER_ENTRY, k = 0;

		if (first < n)
			k = n - first < NOVA_RANGES_PER_ENTRY ? n - first :
			    NOVA_RANGES_PER_ENTRY;
		if (!write_state_page(f, r + (first < n ? first : 0),
				      (unsigned int)k, pages[i],
				      i + 1 < npages ? pages[i + 1] : 0,
				      &trans, &tail))
			goto out;
	}
	if (!sync_dev(f) ||
	    !put_word(f, ai + offsetof(struct nova_inode, i_log_head),
		      npages ? NOVA_OFF(pages[0]) : 0) ||
	    !sync_dev(f) ||
	    !put_word(f, ai + offsetof(struct nova_inode, i_log_tail), tail) ||
	    !sync_dev(f))
		goto out;

	/* The block map follows, for the allocation bitmap (1.9). */
	for (b = NOVA_FIRST_ALLOC_BLOCK; b < f->nblocks - 1; b++)
		if (f->bkind[b] == BK_STATE)
			f->bkind[b] = BK_FREE;
	for (i = 0; i < npages; i++)
		f->bkind[pages[i]] = BK_STATE;
	f->sb.s_free_blocks = cpu64(nfree);
	f->sb.s_log_pages = cpu64(f->log_pages);
	f->sb.s_data_pages = cpu64(f->data_pages);
	f->sb.s_trans_id = cpu64(trans + 1);
	f->free_blocks = nfree;
	fsck_fixed(f, "rebuilt the allocator state: %llu free blocks in %llu ranges",
		   (unsigned long long)nfree, (unsigned long long)n);
	ok = true;
out:
	free(taken);
	free(pages);
	free(r);
	return ok;
}

/*
 * The allocation bitmap (1.9) written anew from the block map, every
 * word, then made durable (fsck_bitmap.c checked it).
 */
static bool repair_bitmap(struct fsck *f)
{
	uint64_t words = nova_bitmap_words(&f->layout), index;
	uint64_t base = NOVA_OFF(f->layout.bitmap);

	for (index = 0; index < words; index++) {
		uint64_t want = nova_bitmap_word(index,
						 fsck_bitmap_want(f, index));

		if (!put_word(f, base + index * 8, want))
			return false;
	}
	if (!sync_dev(f))
		return false;
	fsck_fixed(f, "rewrote the allocation bitmap from the logs");
	return true;
}

static bool write_supers(struct fsck *f)
{
	uint8_t blk[NOVA_BLOCK_SIZE];
	struct nerr e;

	f->sb.s_write_time = cpu64((uint64_t)time(NULL));
	nova_sb_seal(&f->sb);
	memset(blk, 0, sizeof(blk));
	memcpy(blk, &f->sb, sizeof(f->sb));
	/* Primary, durable, then the replica, durable (as the kernel). */
	if (ndev_write(f->dev, 0, &f->sb, sizeof(f->sb), &e) ||
	    ndev_sync(f->dev, &e) ||
	    ndev_write(f->dev, NOVA_OFF(f->nblocks - 1), blk, sizeof(blk), &e) ||
	    ndev_sync(f->dev, &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	return true;
}

/* REP_INODE: each bad slot copy from the good one, then durable. */
static bool repair_inodes(struct fsck *f)
{
	unsigned long i;
	struct nerr e;

	for (i = 0; i < f->nr_copies; i++) {
		const struct fsck_copy *c = &f->copies[i];
		const void *src = fsck_ptr(f, c->src, c->len);

		if (!src || ndev_write(f->dev, c->dst, src, c->len, &e)) {
			fsck_oper(f, "%s", src ? e.msg : "inode copy out of range");
			return false;
		}
	}
	if (!sync_dev(f))
		return false;
	fsck_fixed(f, "rewrote %lu inode slot copies from their good copy",
		   f->nr_copies);
	return true;
}

/* REP_LOG: each bad log copy from the good one, then durable. */
static bool repair_logs(struct fsck *f)
{
	unsigned long i;
	struct nerr e;

	for (i = 0; i < f->nr_patches; i++) {
		const struct fsck_patch *p = &f->patches[i];

		if (ndev_write(f->dev, p->dst, p->data, p->len, &e)) {
			fsck_oper(f, "%s", e.msg);
			return false;
		}
	}
	if (!sync_dev(f))
		return false;
	fsck_fixed(f, "rewrote %lu log entry and page tail copies from their good copy",
		   f->nr_patches);
	return true;
}

void fsck_repair(struct fsck *f)
{
	unsigned long fixable = 0;
	bool sb = false, all;
	int i;

	for (i = 0; i < REP_NR; i++)
		fixable += f->fixable[i];
	/* Is the block map complete? Then state and counters can be redone. */
	all = fixable >= f->problems;
	if (!all) {
		f->sb = f->orig_sb_hints.s_magic ? f->orig_sb_hints : f->sb;
		f->fixable[REP_HINTS] = 0;
		f->fixable[REP_STATE] = 0;
		f->fixable[REP_BITMAP] = 0;
	}

	if (f->fixable[REP_JOURNAL]) {
		if (!repair_journals(f))
			return;
		f->fixed += f->fixable[REP_JOURNAL];
	}
	if (f->fixable[REP_INODE]) {
		if (!repair_inodes(f))
			return;
		f->fixed += f->fixable[REP_INODE];
	}
	if (f->fixable[REP_LOG]) {
		if (!repair_logs(f))
			return;
		f->fixed += f->fixable[REP_LOG];
	}
	if (f->fixable[REP_STATE]) {
		if (!rebuild_state(f))
			return;
		f->fixed += f->fixable[REP_STATE];
		/* The counters were recomputed with the state. */
		f->fixed += f->fixable[REP_HINTS];
		f->fixable[REP_HINTS] = 0;
		sb = true;
	}
	/* New state pages change the bitmap too. */
	if (f->layout.bitmap_blocks &&
	    (f->fixable[REP_BITMAP] || f->fixable[REP_STATE] ||
	     (f->bitmap_leaked && f->fixed))) {
		if (!repair_bitmap(f))
			return;
		f->fixed += f->fixable[REP_BITMAP];
	}
	if (f->fixable[REP_HINTS] || f->fixable[REP_SUPER])
		sb = true;
	if (!sb)
		return;
	if (!write_supers(f))
		return;
	if (f->fixable[REP_HINTS]) {
		fsck_fixed(f, "corrected the superblock counters");
		f->fixed += f->fixable[REP_HINTS];
	}
	if (f->fixable[REP_SUPER]) {
		fsck_fixed(f, "rewrote %s superblock",
			   !f->primary_ok ? "the primary" : "the replica");
		f->fixed += f->fixable[REP_SUPER];
	}
}

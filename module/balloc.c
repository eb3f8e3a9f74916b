// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: per-CPU free-range allocator.
 *
 * The allocatable blocks are split into one region per possible CPU; each
 * region's free space is an rbtree of [start, end) ranges kept in DRAM.
 * A CPU allocates from its own region first and only then from the others,
 * so concurrent writers rarely share a lock. Freed ranges go back to the
 * region that contains them and merge with their neighbours.
 *
 * The hot paths do not allocate or sum: each list keeps one spare range
 * node (a node that a take or a merge empties is kept there, and a free
 * that needs a new node uses it), and the free total is also kept as a
 * per-CPU delta folded into a shared figure every NOVA_FREE_BATCH blocks
 * (nova_free_count_add()), which the data reserve check reads; the exact
 * per-list sum is taken only near the reserve.
 *
 * One free block per list may be kept out of its tree (fl->one): a single
 * block freed at runtime that touches no free range. A copy-on-write
 * overwrite of one page takes a block and frees the one it replaces; with
 * the freed block kept there, the next such overwrite takes it back
 * without changing the tree (no node, no rebalancing, no subtree figures
 * to bring up to date). The block is free in every other sense: counted
 * in fl->free and the free count, found by a goal probe, taken before any
 * whole chunk is broken and as a last resort by any request, folded back
 * into the tree when a neighbour is freed, and written with the tree to
 * the saved state. Since it touches no free range, its 2 MiB chunk is not
 * whole (one of its neighbours is in use in the same chunk), so keeping
 * it out of the tree hides no chunk. A free still checks it against the
 * tree and against fl->one (a double free is reported, not cached).
 *
 * One gap between free ranges per list is remembered (fl->gap_lo,
 * fl->gap_hi: blocks no range of the tree holds), as the last lookup that
 * found nothing saw it. Takes only shrink ranges, so it stays true until
 * a free grows the tree, which forgets it. A goal probe inside it needs no
 * walk of the tree, nor does a single block freed inside it with its two
 * neighbours (it touches no range: fl->one if that is empty). In a random
 * overwrite of a file laid out in one piece, the goals and the freed
 * blocks are mostly in one such gap.
 *
 * Huge extents: free space is seen in 2 MiB chunks aligned on physical
 * addresses (NOVA_HUGE_BLOCKS, sbi->huge_skew), the unit of a PMD
 * mapping (dax.c). Each range node knows, for its subtree, the most whole
 * chunks and the most blocks outside whole chunks ("fragments") that one
 * range holds (an augmented rbtree), so both kinds are found in O(log n).
 * Small allocations take fragments first, from any list, and break a
 * whole chunk only when no list has a fragment left; file data whose file
 * range covers an aligned 2 MiB takes whole chunks, other file data goes
 * on after the file's previous block (nova_alloc_data()), falling back to
 * anything when nothing else is left. docs/fs.md "Allocation".
 *
 * The trees are not on PMEM. On a clean unmount they are written to the log
 * of the reserved inode NOVA_ALLOC_INO and read back by the next mount.
 *
 * Locking (nova.h): nova_free_list.lock is a leaf spinlock.
 */
#include <linux/rbtree_augmented.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "abitmap.h"
#include "nova.h"
#include "nova_state.h"
#include "pmem.h"

/* Over a subtree: the most of each that one range holds. */
struct nova_range_aug {
	unsigned long chunks;		/* whole aligned 2 MiB chunks */
	unsigned long frag;		/* blocks outside them */
};

struct nova_range_node {
	struct rb_node node;
	unsigned long start;
	unsigned long end;		/* exclusive */
	unsigned long skew;		/* sbi->huge_skew, set when linked */
	struct nova_range_aug sub;
};

static unsigned long nova_range_len(const struct nova_range_node *r)
{
	return r->end - r->start;
}

/* First block of the chunk holding @blk, and of the next chunk. */
static unsigned long nova_chunk_down(unsigned long skew, unsigned long blk)
{
	return blk - ((blk + skew) & (NOVA_HUGE_BLOCKS - 1));
}

static unsigned long nova_chunk_up(unsigned long skew, unsigned long blk)
{
	return nova_chunk_down(skew, blk + NOVA_HUGE_BLOCKS - 1);
}

bool nova_block_huge_aligned(struct nova_sb_info *sbi, unsigned long blk)
{
	return nova_chunk_down(sbi->huge_skew, blk) == blk;
}

/* Whole chunks in @r: they start at nova_chunk_up(r->start). */
static unsigned long nova_range_chunks(const struct nova_range_node *r)
{
	unsigned long lo = nova_chunk_up(r->skew, r->start);
	unsigned long hi = nova_chunk_down(r->skew, r->end);

	return hi > lo ? (hi - lo) / NOVA_HUGE_BLOCKS : 0;
}

static bool nova_range_compute(struct nova_range_node *r, bool exit)
{
	struct nova_range_aug a;
	struct rb_node *kid[2] = { r->node.rb_left, r->node.rb_right };
	int i;

	a.chunks = nova_range_chunks(r);
	a.frag = nova_range_len(r) - a.chunks * NOVA_HUGE_BLOCKS;
	for (i = 0; i < 2; i++) {
		struct nova_range_node *c;

		if (!kid[i])
			continue;
		c = rb_entry(kid[i], struct nova_range_node, node);
		a.chunks = max(a.chunks, c->sub.chunks);
		a.frag = max(a.frag, c->sub.frag);
	}
	if (exit && r->sub.chunks == a.chunks && r->sub.frag == a.frag)
		return true;
	r->sub = a;
	return false;
}

RB_DECLARE_CALLBACKS(static, nova_range_cb, struct nova_range_node, node,
		     sub, nova_range_compute);

/* @r's bounds changed in place: bring the subtree figures up to date. */
static void nova_range_changed(struct nova_range_node *r)
{
	nova_range_cb_propagate(&r->node, NULL);
}

/* Link the new node @r at @link under @parent. */
static void nova_range_link(struct nova_sb_info *sbi, struct rb_root *root,
			    struct nova_range_node *r, struct rb_node *parent,
			    struct rb_node **link)
{
	r->skew = sbi->huge_skew;
	r->sub.chunks = 0;
	r->sub.frag = 0;
	rb_link_node(&r->node, parent, link);
	nova_range_cb_propagate(&r->node, NULL);
	rb_insert_augmented(&r->node, root, &nova_range_cb);
}

static void nova_range_erase(struct rb_root *root, struct nova_range_node *r)
{
	rb_erase_augmented(&r->node, root, &nova_range_cb);
}

/* The subtree figure that nova_range_find() follows. */
static unsigned long nova_range_aug(struct rb_node *rb, bool frag)
{
	struct nova_range_node *r = rb_entry(rb, struct nova_range_node, node);

	return frag ? r->sub.frag : r->sub.chunks;
}

/*
 * The lowest range that holds a whole chunk (@frag false) or a fragment
 * (@frag true), or NULL.
 */
static struct nova_range_node *nova_range_find(struct rb_root *root,
					       bool frag)
{
	struct rb_node *p = root->rb_node;
	struct nova_range_node *r;

	if (!p || !nova_range_aug(p, frag))
		return NULL;
	for (;;) {
		if (p->rb_left && nova_range_aug(p->rb_left, frag)) {
			p = p->rb_left;
			continue;
		}
		r = rb_entry(p, struct nova_range_node, node);
		if (frag ? nova_range_len(r) >
			   nova_range_chunks(r) * NOVA_HUGE_BLOCKS :
			   nova_range_chunks(r) > 0)
			return r;
		/* Neither here nor on the left: on the right, by the figures. */
		p = p->rb_right;
		if (WARN_ON_ONCE(!p || !nova_range_aug(p, frag)))
			return NULL;
	}
}

static unsigned int nova_list_of(struct nova_sb_info *sbi, unsigned long blk)
{
	unsigned long l = blk / sbi->list_span;

	return min_t(unsigned long, l, sbi->nr_lists - 1);
}

/* Whether no range of @fl's tree holds a block of [@lo, @hi). Lock held. */
static bool nova_gap_has(const struct nova_free_list *fl, unsigned long lo,
			 unsigned long hi)
{
	return fl->gap_lo <= lo && hi <= fl->gap_hi;
}

/*
 * A lookup found no range between @prev and @next (either NULL at an end
 * of the tree): remember the gap. Lock held.
 */
static void nova_gap_set(struct nova_free_list *fl,
			 const struct nova_range_node *prev,
			 const struct nova_range_node *next)
{
	fl->gap_lo = prev ? prev->end : 0;
	fl->gap_hi = next ? next->start : ULONG_MAX;
}

/* The tree is about to gain blocks: forget the gap. Lock held. */
static void nova_gap_forget(struct nova_free_list *fl)
{
	fl->gap_lo = 0;
	fl->gap_hi = 0;
}

/* A range node no longer in @fl's tree: kept as the spare or freed. */
static void nova_drop_node(struct nova_free_list *fl, struct nova_range_node *r)
{
	if (!fl->spare)
		fl->spare = r;
	else
		kfree(r);
}

/*
 * The free count over all lists: sbi->free_folded plus each CPU's
 * sbi->free_delta, which is folded in once it reaches NOVA_FREE_BATCH
 * either way. So free_folded is within nr_cpu_ids * NOVA_FREE_BATCH of
 * the sum of the lists' fl->free, plus whatever changes are in flight.
 * A percpu_counter with its batch, inline: every take and free changes
 * it, and a 4 KiB overwrite does one of each.
 *
 * The list lock does not make a read-modify-write of the delta safe: on
 * PREEMPT_RT a spinlock_t only disables migration, and a task taking
 * another list's lock on this CPU may run in between. Hence one
 * this_cpu_add_return() (a single xadd on x86) and, to fold, a
 * this_cpu_sub() of what was seen; the sum stays exact whatever runs in
 * between.
 */
#define NOVA_FREE_BATCH		32

static __always_inline void nova_free_count_add(struct nova_sb_info *sbi,
						long n)
{
	long v = this_cpu_add_return(*sbi->free_delta, n);

	/* As percpu_counter_add_batch(): the shared figure first. */
	if (unlikely(v >= NOVA_FREE_BATCH || v <= -NOVA_FREE_BATCH)) {
		atomic_long_add(v, &sbi->free_folded);
		this_cpu_sub(*sbi->free_delta, v);
	}
}

/*
 * Whether more than @need blocks are free for certain, by the folded
 * count alone; false says only that the exact sum must decide.
 */
static bool nova_free_surely_above(struct nova_sb_info *sbi,
				   unsigned long need)
{
	long slack = (long)nr_cpu_ids * NOVA_FREE_BATCH;

	return atomic_long_read(&sbi->free_folded) - slack > (long)need;
}

/* @n blocks more (or fewer, negative) are free in @fl. Lock held. */
static __always_inline void nova_list_free_add(struct nova_sb_info *sbi,
					       struct nova_free_list *fl, long n)
{
	lockdep_assert_held(&fl->lock);
	fl->free += n;
	nova_free_count_add(sbi, n);
}

/*
 * Insert [start, end) into @fl, merging with neighbours (fl->one
 * included). A range that merges with neither needs a node: @fl's spare;
 * -ENOMEM (nothing changed) if there is none. With @keep, a single block
 * that touches no free range becomes fl->one if that is empty, and needs
 * no node. Lock held.
 */
static __always_inline int nova_insert_range(struct nova_sb_info *sbi,
					     struct nova_free_list *fl,
					     unsigned long start,
					     unsigned long end, bool keep)
{
	struct rb_node **link = &fl->root.rb_node, *parent = NULL;
	struct nova_range_node *prev = NULL, *next = NULL, *r;

	lockdep_assert_held(&fl->lock);
	/* In the gap with both neighbours: no range to find or to touch. */
	if (keep && end - start == 1 && !fl->one &&
	    nova_gap_has(fl, start - 1, end + 1)) {
		WRITE_ONCE(fl->one, start);
		nova_list_free_add(sbi, fl, 1);
		return 0;
	}
	while (*link) {
		r = rb_entry(*link, struct nova_range_node, node);
		parent = *link;
		if (end <= r->start) {
			next = r;
			link = &(*link)->rb_left;
		} else if (start >= r->end) {
			prev = r;
			link = &(*link)->rb_right;
		} else {
			return -EEXIST;		/* overlaps a free range */
		}
	}

	/*
	 * fl->one touches no range of the tree, so prev, next and the link
	 * found above stay right when the new range takes it in. Nothing
	 * changes before the spare node is known to be there if needed.
	 */
	if (fl->one) {
		if (fl->one >= start && fl->one < end)
			return -EEXIST;
		if (fl->one + 1 == start || fl->one == end) {
			unsigned long lo = min(start, fl->one);
			unsigned long hi = max(end, fl->one + 1);

			if (!fl->spare && !(prev && prev->end == lo) &&
			    !(next && next->start == hi))
				return -ENOMEM;
			WRITE_ONCE(fl->one, 0);
			nova_list_free_add(sbi, fl, -1);
			start = lo;
			end = hi;
		}
	}
	if (keep && end - start == 1 && !fl->one &&
	    !(prev && prev->end == start) && !(next && next->start == end)) {
		WRITE_ONCE(fl->one, start);
		nova_list_free_add(sbi, fl, 1);
		nova_gap_set(fl, prev, next);
		return 0;
	}

	nova_gap_forget(fl);
	if (prev && prev->end == start && next && next->start == end) {
		unsigned long hi = next->end;

		nova_range_erase(&fl->root, next);
		nova_drop_node(fl, next);
		fl->nr_ranges--;
		prev->end = hi;
		nova_range_changed(prev);
	} else if (prev && prev->end == start) {
		prev->end = end;
		nova_range_changed(prev);
	} else if (next && next->start == end) {
		next->start = start;
		nova_range_changed(next);
	} else {
		if (!fl->spare)
			return -ENOMEM;
		r = fl->spare;
		fl->spare = NULL;
		r->start = start;
		r->end = end;
		nova_range_link(sbi, &fl->root, r, parent, link);
		fl->nr_ranges++;
	}
	nova_list_free_add(sbi, fl, end - start);
	return 0;
}

/*
 * nova_free_in_list() when the range needs a node and the list had no
 * spare: allocate one unlocked and try again.
 */
static noinline int nova_free_in_list_node(struct nova_sb_info *sbi,
					   struct nova_free_list *fl,
					   unsigned long start, unsigned long n,
					   bool keep)
{
	struct nova_range_node *node = NULL;
	int err;

	do {
		kfree(node);
		node = kmalloc(sizeof(*node), GFP_NOFS | __GFP_NOFAIL);
		spin_lock(&fl->lock);
		if (!fl->spare) {
			fl->spare = node;
			node = NULL;
		}
		err = nova_insert_range(sbi, fl, start, start + n, keep);
		spin_unlock(&fl->lock);
	} while (err == -ENOMEM);
	kfree(node);
	return err;
}

/*
 * Free [start, start + n) that lies within one list's region (@keep: a
 * single block may become the list's fl->one). Allocates only when the
 * range needs a node and the list has no spare.
 */
static int nova_free_in_list(struct nova_sb_info *sbi, unsigned int l,
			     unsigned long start, unsigned long n, bool keep)
{
	struct nova_free_list *fl = &sbi->free_lists[l];
	int err;

	spin_lock(&fl->lock);
	err = nova_insert_range(sbi, fl, start, start + n, keep);
	spin_unlock(&fl->lock);
	if (unlikely(err == -ENOMEM))
		err = nova_free_in_list_node(sbi, fl, start, n, keep);
	return err;
}

/*
 * Return [blk, blk + n) to the free lists, split along region borders.
 * @keep: at runtime, where a single block may be kept out of the tree
 * (not while the free space is being rebuilt at mount, in any order).
 */
static __always_inline int nova_free_range(struct nova_sb_info *sbi,
					   unsigned long blk, unsigned long n,
					   bool keep)
{
	/* One block (the page an overwrite replaced) is in one region. */
	if (n == 1)
		return nova_free_in_list(sbi, nova_list_of(sbi, blk), blk, 1,
					 keep);
	while (n) {
		unsigned int l = nova_list_of(sbi, blk);
		unsigned long lim = (l == sbi->nr_lists - 1) ? blk + n :
				    (unsigned long)(l + 1) * sbi->list_span;
		unsigned long chunk = min(n, lim - blk);
		int err = nova_free_in_list(sbi, l, blk, chunk, keep);

		if (err)
			return err;
		blk += chunk;
		n -= chunk;
	}
	return 0;
}

int nova_balloc_add_free(struct super_block *sb, unsigned long start,
			 unsigned long n)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!nova_block_ok(sbi, start, n)) {
		nova_err(sb, "free range %lu+%lu is outside the device",
			 start, n);
		return -EFSCORRUPTED;
	}
	if (nova_free_range(sbi, start, n, false)) {
		nova_err(sb, "free range %lu+%lu overlaps free space", start, n);
		return -EFSCORRUPTED;
	}
	return 0;
}

void nova_free_blocks(struct super_block *sb, unsigned long blk,
		      unsigned long n, enum nova_block_kind kind)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!n)
		return;
	/*
	 * A bad range here means a corrupted log pointed two owners at one
	 * block or outside the device: report it and leak rather than hand
	 * the blocks out twice.
	 */
	if (!nova_block_ok(sbi, blk, n))
		goto bad;
	/* Cleared before they are free: no allocation's set is lost. */
	nova_abm_clear(sbi, blk, n);
	if (nova_free_range(sbi, blk, n, true)) {
		/* Some may have an owner still: set is the safe side. */
		nova_abm_set(sbi, blk, n);
		goto bad;
	}
	if (kind == NOVA_BLOCK_LOG)
		atomic_long_sub(n, &sbi->log_pages);
	else if (kind == NOVA_BLOCK_DATA)
		atomic_long_sub(n, &sbi->data_pages);
	else
		atomic_long_sub(n, &sbi->meta_blocks);
	return;
bad:
	nova_err(sb, "freeing blocks %lu+%lu that are not in use", blk, n);
}

/* @r lost blocks at one end: drop it if empty. Lock held. */
static void nova_range_shrunk(struct nova_free_list *fl,
			      struct nova_range_node *r)
{
	lockdep_assert_held(&fl->lock);
	if (nova_range_len(r)) {
		nova_range_changed(r);
		return;
	}
	nova_range_erase(&fl->root, r);
	fl->nr_ranges--;
	nova_drop_node(fl, r);
}

/*
 * Cut [@lo, @hi) out of the middle of @r (r->start < @lo, @hi < r->end):
 * @r keeps what is below, the unused node @up takes what is above and goes
 * into @fl's tree. Lock held.
 */
static void nova_range_split(struct nova_sb_info *sbi,
			     struct nova_free_list *fl,
			     struct nova_range_node *r, unsigned long lo,
			     unsigned long hi, struct nova_range_node *up)
{
	struct rb_node **link, *parent;

	lockdep_assert_held(&fl->lock);
	up->start = hi;
	up->end = r->end;
	r->end = lo;
	nova_range_changed(r);
	/* up is the leftmost node to the right of r. */
	link = &r->node.rb_right;
	parent = &r->node;
	while (*link) {
		parent = *link;
		link = &(*link)->rb_left;
	}
	nova_range_link(sbi, &fl->root, up, parent, link);
	fl->nr_ranges++;
}

/*
 * The free range of @fl that holds @blk, or NULL. Lock held. Inline: the
 * goal probe of every single-page overwrite asks it, and mostly the gap
 * answers with two compares.
 */
static __always_inline struct nova_range_node *nova_range_at(struct nova_free_list *fl,
					     unsigned long blk)
{
	struct rb_node *p = fl->root.rb_node;
	struct nova_range_node *r, *prev = NULL, *next = NULL;

	lockdep_assert_held(&fl->lock);
	if (nova_gap_has(fl, blk, blk + 1))
		return NULL;
	while (p) {
		r = rb_entry(p, struct nova_range_node, node);
		if (blk < r->start) {
			next = r;
			p = p->rb_left;
		} else if (blk >= r->end) {
			prev = r;
			p = p->rb_right;
		} else {
			return r;
		}
	}
	nova_gap_set(fl, prev, next);
	return NULL;
}

/*
 * Take the single free block @blk out of @fl, splitting its range (the
 * upper half goes into *@spare). Returns false if @blk is not free. Lock
 * held.
 */
static bool nova_remove_block(struct nova_sb_info *sbi,
			      struct nova_free_list *fl, unsigned long blk,
			      struct nova_range_node **spare)
{
	struct nova_range_node *r = nova_range_at(fl, blk), *hi;

	lockdep_assert_held(&fl->lock);
	if (!r)
		return false;
	nova_list_free_add(sbi, fl, -1);
	if (r->start == blk) {
		r->start++;
	} else if (r->end == blk + 1) {
		r->end--;
	} else {
		hi = *spare;
		*spare = NULL;
		nova_range_split(sbi, fl, r, blk, blk + 1, hi);
		return true;
	}
	nova_range_shrunk(fl, r);
	return true;
}

/*
 * Keep free block @blk from ever being allocated (a known media error,
 * badblocks.c). It is not counted as used: it is simply not free.
 * Returns true if @blk was free and is withheld now.
 */
bool nova_balloc_withhold(struct super_block *sb, unsigned long blk)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_free_list *fl;
	struct nova_range_node *spare;
	bool taken;

	if (!nova_block_ok(sbi, blk, 1))
		return false;
	fl = &sbi->free_lists[nova_list_of(sbi, blk)];
	spare = kmalloc(sizeof(*spare), GFP_NOFS | __GFP_NOFAIL);
	spin_lock(&fl->lock);
	if (fl->one == blk) {
		WRITE_ONCE(fl->one, 0);
		nova_list_free_add(sbi, fl, -1);
		taken = true;
	} else {
		taken = nova_remove_block(sbi, fl, blk, &spare);
	}
	spin_unlock(&fl->lock);
	kfree(spare);
	return taken;
}

/*
 * File data of at least this many blocks at an aligned 2 MiB of the file
 * starts a whole chunk even if it does not fill it: a large file written
 * in pieces then goes on in that chunk (the goal) and stays aligned.
 */
#define NOVA_HUGE_START		64

/* What a take from one list looks for (nova_alloc()). */
enum nova_fit {
	NOVA_FIT_FRAG,		/* blocks outside whole aligned chunks */
	NOVA_FIT_ANY,		/* the lowest free blocks */
	NOVA_FIT_HUGE,		/* whole aligned chunks, or the start of one */
	NOVA_FIT_CONTIG,	/* exactly @want contiguous blocks */
	NOVA_FIT_GOAL,		/* from block *@blk on */
};

/*
 * Take [@lo, @hi) out of range @r. Taking it from inside the range splits
 * it, which needs @fl's spare node: false (nothing taken) if there is
 * none. Lock held.
 */
static bool nova_take_at(struct nova_sb_info *sbi, struct nova_free_list *fl,
			 struct nova_range_node *r, unsigned long lo,
			 unsigned long hi)
{
	struct nova_range_node *up;

	lockdep_assert_held(&fl->lock);
	if (lo == r->start) {
		r->start = hi;
		nova_range_shrunk(fl, r);
	} else if (hi == r->end) {
		r->end = lo;
		nova_range_changed(r);
	} else {
		if (!fl->spare)
			return false;
		up = fl->spare;
		fl->spare = NULL;
		nova_range_split(sbi, fl, r, lo, hi, up);
	}
	nova_list_free_add(sbi, fl, -(long)(hi - lo));
	return true;
}

/*
 * Take fl->one if it is set (and is @goal, when that is not 0). Lock held.
 * Inline: a single-page overwrite asks twice (the goal, then any).
 */
static __always_inline bool nova_take_one(struct nova_sb_info *sbi, struct nova_free_list *fl,
			  unsigned long goal, unsigned long *blk)
{
	lockdep_assert_held(&fl->lock);
	if (!fl->one || (goal && fl->one != goal))
		return false;
	*blk = fl->one;
	WRITE_ONCE(fl->one, 0);
	nova_list_free_add(sbi, fl, -1);
	return true;
}

/*
 * nova_pick() for NOVA_FIT_GOAL: up to @want blocks from @goal on, if
 * @goal is free. Inline: the probe of every single-page overwrite (which
 * the remembered gap mostly answers with two compares).
 */
static __always_inline bool nova_pick_goal(struct nova_free_list *fl,
					   unsigned long want,
					   unsigned long goal,
					   struct nova_range_node **rp,
					   unsigned long *lo, unsigned long *hi)
{
	struct nova_range_node *r = nova_range_at(fl, goal);

	if (!r)
		return false;
	*lo = goal;
	*hi = goal + min(want, r->end - goal);
	*rp = r;
	return true;
}

/*
 * What to take from one list for @fit: [*@lo, *@hi), in range *@rp.
 * False if the list has nothing that fits. Lock held.
 */
static bool nova_pick(struct nova_free_list *fl, unsigned long want,
		      enum nova_fit fit, unsigned long goal,
		      struct nova_range_node **rp, unsigned long *lo,
		      unsigned long *hi)
{
	struct nova_range_node *r = NULL;
	struct rb_node *p;
	unsigned long top;

	lockdep_assert_held(&fl->lock);
	switch (fit) {
	case NOVA_FIT_HUGE:
		r = nova_range_find(&fl->root, false);
		if (!r)
			return false;
		*lo = nova_chunk_up(r->skew, r->start);
		if (want < NOVA_HUGE_BLOCKS)
			*hi = *lo + want;
		else
			*hi = *lo + min(want / NOVA_HUGE_BLOCKS,
					nova_range_chunks(r)) *
			      NOVA_HUGE_BLOCKS;
		break;
	case NOVA_FIT_FRAG:
		/*
		 * The top of the lowest fragment: the start of a free range
		 * is where a file that ends just below it goes on (the
		 * goal), so it is kept for last.
		 */
		r = nova_range_find(&fl->root, true);
		if (!r)
			return false;
		if (!nova_range_chunks(r))
			top = r->end;
		else if (nova_chunk_down(r->skew, r->end) != r->end)
			top = r->end;
		else
			top = nova_chunk_up(r->skew, r->start);
		*hi = top;
		*lo = top - min(want, top - max(r->start,
					     nova_range_chunks(r) ?
					     nova_chunk_down(r->skew, top - 1) :
					     r->start));
		break;
	case NOVA_FIT_GOAL:
		return nova_pick_goal(fl, want, goal, rp, lo, hi);
	case NOVA_FIT_ANY:
	case NOVA_FIT_CONTIG:
		for (p = rb_first(&fl->root); p; p = rb_next(p)) {
			r = rb_entry(p, struct nova_range_node, node);
			if (fit == NOVA_FIT_ANY || nova_range_len(r) >= want)
				break;
		}
		if (!p)
			return false;
		*lo = r->start;
		*hi = r->start + min(want, nova_range_len(r));
		break;
	}
	*rp = r;
	return true;
}

/*
 * Take up to @want blocks from one list as @fit says (exactly @want for
 * NOVA_FIT_CONTIG; for NOVA_FIT_HUGE whole chunks, at most @want /
 * NOVA_HUGE_BLOCKS of them, or fewer blocks than a chunk from the start
 * of one; from @goal on for NOVA_FIT_GOAL). Returns the
 * number taken (first in *@blk), 0 if none fit.
 */
static unsigned long nova_take(struct nova_sb_info *sbi,
			       struct nova_free_list *fl, unsigned long want,
			       enum nova_fit fit, unsigned long goal,
			       unsigned long *blk)
{
	struct nova_range_node *r, *node = NULL;
	unsigned long lo, hi, got = 0;

	spin_lock(&fl->lock);
	if (fit == NOVA_FIT_GOAL && nova_take_one(sbi, fl, goal, blk)) {
		spin_unlock(&fl->lock);
		return 1;
	}
	while (nova_pick(fl, want, fit, goal, &r, &lo, &hi)) {
		if (nova_take_at(sbi, fl, r, lo, hi)) {
			*blk = lo;
			got = hi - lo;
			break;
		}
		/* A split needs a node: get one unlocked, then look again. */
		spin_unlock(&fl->lock);
		kfree(node);
		node = kmalloc(sizeof(*node), GFP_NOFS | __GFP_NOFAIL);
		spin_lock(&fl->lock);
		if (!fl->spare) {
			fl->spare = node;
			node = NULL;
		}
	}
	spin_unlock(&fl->lock);
	kfree(node);
	return got;
}

/*
 * nova_take() for NOVA_FIT_GOAL and, if the goal is not free, fl->one
 * for a single block or NOVA_FIT_FRAG, from the same list in one round of
 * its lock: the takes that nova_alloc() tries in turn when that list is
 * the one the fragment search starts with. A single-page overwrite pays
 * for the goal probe, its goal (the block after the file's previous page)
 * being rarely free, and then takes the block the previous overwrite
 * freed (fl->one) without changing the tree. Returns the number taken; 0
 * (nothing taken) if nothing fits or the take needs a node, and the
 * caller then tries the steps the long way.
 */
static unsigned long nova_take_goal_frag(struct nova_sb_info *sbi,
					 struct nova_free_list *fl,
					 unsigned long want, unsigned long goal,
					 unsigned long *blk)
{
	struct nova_range_node *r;
	unsigned long lo, hi, got = 0;

	spin_lock(&fl->lock);
	if (nova_take_one(sbi, fl, goal, blk)) {
		got = 1;
	} else if (nova_pick_goal(fl, want, goal, &r, &lo, &hi)) {
		if (nova_take_at(sbi, fl, r, lo, hi)) {
			*blk = lo;
			got = hi - lo;
		}
	} else if (want == 1 && nova_take_one(sbi, fl, 0, blk)) {
		got = 1;
	} else if (nova_pick(fl, want, NOVA_FIT_FRAG, 0, &r, &lo, &hi) &&
		   nova_take_at(sbi, fl, r, lo, hi)) {
		*blk = lo;
		got = hi - lo;
	}
	spin_unlock(&fl->lock);
	return got;
}

/* Take exactly @want blocks from the end of the highest range that fits. */
static bool nova_take_high(struct nova_sb_info *sbi,
			   struct nova_free_list *fl, unsigned long want,
			   unsigned long *blk)
{
	struct nova_range_node *r = NULL;
	struct rb_node *p;

	spin_lock(&fl->lock);
	for (p = rb_last(&fl->root); p; p = rb_prev(p)) {
		r = rb_entry(p, struct nova_range_node, node);
		if (nova_range_len(r) >= want)
			break;
	}
	if (!p) {
		spin_unlock(&fl->lock);
		return false;
	}
	r->end -= want;
	*blk = r->end;
	nova_list_free_add(sbi, fl, -(long)want);
	nova_range_shrunk(fl, r);
	spin_unlock(&fl->lock);
	return true;
}

/*
 * Allocate @want contiguous metadata blocks (inode table replicas) or log
 * pages (log mirrors) as high on the device as they fit: the last list's
 * region first, the highest range in it first. Used for replicas, which
 * should sit far from their primaries (those come from the low end of
 * some CPU's region). Log mirrors may use the reserve that data leaves.
 */
int nova_alloc_blocks_high(struct super_block *sb, unsigned long want,
			   enum nova_block_kind kind, unsigned long *blk)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	if (!want)
		return -EINVAL;
	for (i = sbi->nr_lists; i-- > 0;) {
		if (nova_take_high(sbi, &sbi->free_lists[i], want, blk)) {
			nova_abm_set(sbi, *blk, want);
			if (kind == NOVA_BLOCK_LOG)
				atomic_long_add(want, &sbi->log_pages);
			else
				atomic_long_add(want, &sbi->meta_blocks);
			return 0;
		}
	}
	return -ENOSPC;
}

unsigned long nova_count_free(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long free = 0;
	unsigned int i;

	for (i = 0; i < sbi->nr_lists; i++)
		free += READ_ONCE(sbi->free_lists[i].free);
	return free;
}

/*
 * Free space as users see it: the pages holding a saved allocator state
 * (kept while mounted read-only) count as free, so that statfs does not
 * change between a read-only and a read-write mount.
 */
unsigned long nova_count_user_free(struct super_block *sb)
{
	return nova_count_free(sb) + NOVA_SB(sb)->nr_state_pages;
}

/* The list a search of all lists starts with: this CPU's. */
static unsigned int nova_first_list(struct nova_sb_info *sbi)
{
	return raw_smp_processor_id() % sbi->nr_lists;
}

/* fl->one of this CPU's list or else of any other, or 0. */
static unsigned long nova_take_one_any_list(struct nova_sb_info *sbi,
					    unsigned long *blk)
{
	unsigned int first = nova_first_list(sbi), i;
	struct nova_free_list *fl;
	bool took;

	for (i = 0; i < sbi->nr_lists; i++) {
		fl = &sbi->free_lists[(first + i) % sbi->nr_lists];
		if (!READ_ONCE(fl->one))
			continue;
		spin_lock(&fl->lock);
		took = nova_take_one(sbi, fl, 0, blk);
		spin_unlock(&fl->lock);
		if (took)
			return 1;
	}
	return 0;
}

/* Take from the lists as @fit says, this CPU's list first. */
static unsigned long nova_take_any_list(struct nova_sb_info *sbi,
					unsigned long want, enum nova_fit fit,
					unsigned long *blk)
{
	unsigned int first = nova_first_list(sbi), i;
	unsigned long n = 0;

	for (i = 0; i < sbi->nr_lists && !n; i++)
		n = nova_take(sbi, &sbi->free_lists[(first + i) % sbi->nr_lists],
			      want, fit, 0, blk);
	return n;
}

/*
 * Allocate blocks; @huge: whole aligned chunks if any are left; @goal
 * (not 0): from that block on if it is free. Data allocations leave
 * sbi->reserve blocks for log pages, so that a full file system can still
 * log the unlinks that make room.
 */
static int nova_alloc(struct super_block *sb, unsigned long want, bool contig,
		      bool huge, unsigned long goal, enum nova_block_kind kind,
		      unsigned long *blk, unsigned long *got)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long n = 0;

	if (!want)
		return -EINVAL;
	/*
	 * Far from the reserve the folded count decides (its error is
	 * bounded by the batch per CPU); near it, the exact sum.
	 */
	if (kind == NOVA_BLOCK_DATA &&
	    !nova_free_surely_above(sbi, sbi->reserve + want)) {
		unsigned long free = nova_count_free(sb);

		if (free <= sbi->reserve)
			return -ENOSPC;
		want = min(want, free - sbi->reserve);
		if (contig && want < *got)
			return -ENOSPC;
	}

	if (contig) {
		n = nova_take_any_list(sbi, want, NOVA_FIT_CONTIG, blk);
		if (!n && want == 1)
			n = nova_take_one_any_list(sbi, blk);
	} else {
		if (huge && want >= NOVA_HUGE_START)
			n = nova_take_any_list(sbi, want, NOVA_FIT_HUGE, blk);
		if (!n && goal && nova_block_ok(sbi, goal, 1)) {
			unsigned int l = nova_list_of(sbi, goal);

			if (kind != NOVA_BLOCK_META && l == nova_first_list(sbi))
				n = nova_take_goal_frag(sbi, &sbi->free_lists[l],
							want, goal, blk);
			if (!n)
				n = nova_take(sbi, &sbi->free_lists[l], want,
					      NOVA_FIT_GOAL, goal, blk);
		}
		/*
		 * Fragments from every list before breaking a chunk in any:
		 * a list without fragments makes some by breaking one.
		 * Metadata (inode-table growth, contiguous runs) takes the
		 * lowest free blocks instead, wherever the device's 2 MiB
		 * boundaries fall. A fresh file system's structures and the
		 * allocator-state pages do not come through here: they are
		 * placed by the format plan (uapi/nova_plan.h) and by
		 * nova_alloc_state_page().
		 * A kept single block (fl->one) is a fragment too: a single
		 * block takes it before any other; for metadata, and for
		 * more than one block, it is the last resort.
		 */
		if (!n && kind != NOVA_BLOCK_META && want == 1)
			n = nova_take_one_any_list(sbi, blk);
		if (!n && kind != NOVA_BLOCK_META)
			n = nova_take_any_list(sbi, want, NOVA_FIT_FRAG, blk);
		if (!n)
			n = nova_take_any_list(sbi, want, NOVA_FIT_ANY, blk);
		if (!n)
			n = nova_take_one_any_list(sbi, blk);
	}
	if (!n)
		return -ENOSPC;
	*got = n;
	nova_abm_set(sbi, *blk, n);
	if (kind == NOVA_BLOCK_LOG)
		atomic_long_add(n, &sbi->log_pages);
	else if (kind == NOVA_BLOCK_DATA)
		atomic_long_add(n, &sbi->data_pages);
	else
		atomic_long_add(n, &sbi->meta_blocks);
	return 0;
}

/*
 * Allocate blocks. Without @contig, returns between 1 and @want blocks in
 * *@got (one contiguous run), outside whole aligned 2 MiB chunks while
 * there are such blocks; with it, exactly @want. Returns -ENOSPC when
 * nothing fits.
 */
int nova_alloc_blocks(struct super_block *sb, unsigned long want, bool contig,
		      enum nova_block_kind kind, unsigned long *blk,
		      unsigned long *got)
{
	return nova_alloc(sb, want, contig, false, 0, kind, blk, got);
}

/*
 * Allocate between 1 and @want data blocks for pages @pgoff onwards of
 * @inode (one contiguous run in *@blk, *@got). Where the file range
 * covers an aligned 2 MiB of the file, whole aligned 2 MiB chunks, so
 * that a PMD can map them (dax.c): a request that starts inside a 2 MiB
 * of the file and reaches past the next whole one gets only the blocks up
 * to it, and the caller's next request starts aligned. A request of at
 * least NOVA_HUGE_START pages at an aligned 2 MiB of the file starts a
 * chunk (and the file's next pieces go on in it). Otherwise the
 * blocks right after those of page @pgoff - 1 if they are free, so that
 * a file written in pieces stays contiguous (and frees whole chunks when
 * deleted); else as nova_alloc_blocks(). Caller holds i_rwsem or the log
 * lock (a quota file: the quota layer's dqio_sem). Quota limits may give
 * fewer blocks than @want, or EDQUOT (quota.c).
 */
int nova_alloc_data(struct inode *inode, pgoff_t pgoff, unsigned long want,
		    unsigned long *blk, unsigned long *got)
{
	unsigned long in = pgoff & (NOVA_HUGE_BLOCKS - 1);
	u64 goal = pgoff ? nova_file_block(inode, pgoff - 1) : 0;
	int err;

	/* A quota file's writes are serialized by the quota layer. */
	lockdep_assert(lockdep_is_held(&inode->i_rwsem) ||
		       lockdep_is_held(&NOVA_I(inode)->log_lock) ||
		       IS_NOQUOTA(inode));
	if (in && want >= 2 * NOVA_HUGE_BLOCKS - in)
		want = NOVA_HUGE_BLOCKS - in;
	/* Quota limits (quota.c): as many blocks as they still allow. */
	err = nova_quota_check(inode, want);
	while (err == -EDQUOT && want > 1) {
		want /= 2;
		err = nova_quota_check(inode, want);
	}
	if (err)
		return err;
	return nova_alloc(inode->i_sb, want, false, !in, goal ? goal + 1 : 0,
			  NOVA_BLOCK_DATA, blk, got);
}

int nova_balloc_init(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	sbi->nr_lists = nr_cpu_ids;
	sbi->list_span = DIV_ROUND_UP(sbi->nblocks, sbi->nr_lists);
	sbi->free_lists = kcalloc(sbi->nr_lists, sizeof(*sbi->free_lists),
				  GFP_KERNEL);
	if (!sbi->free_lists)
		return -ENOMEM;
	atomic_long_set(&sbi->free_folded, 0);
	sbi->free_delta = alloc_percpu(long);
	if (!sbi->free_delta) {
		kfree(sbi->free_lists);
		sbi->free_lists = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < sbi->nr_lists; i++) {
		spin_lock_init(&sbi->free_lists[i].lock);
		sbi->free_lists[i].root = RB_ROOT;
	}
	/*
	 * Blocks 0..3, the protection areas and the replica superblock are
	 * never allocated (sbi->layout, uapi nova_layout_compute()).
	 */
	sbi->managed = sbi->layout.alloc_end - sbi->layout.alloc_start;
	sbi->reserve = clamp_t(unsigned long, sbi->managed / 256, 64, 4096);
	atomic_long_set(&sbi->log_pages, 0);
	atomic_long_set(&sbi->data_pages, 0);
	atomic_long_set(&sbi->meta_blocks, 0);
	return 0;
}

void nova_balloc_destroy(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_range_node *r, *tmp;
	unsigned int i;

	if (!sbi->free_lists)
		return;
	for (i = 0; i < sbi->nr_lists; i++) {
		rbtree_postorder_for_each_entry_safe(r, tmp,
				&sbi->free_lists[i].root, node)
			kfree(r);
		kfree(sbi->free_lists[i].spare);
	}
	free_percpu(sbi->free_delta);
	sbi->free_delta = NULL;
	kfree(sbi->free_lists);
	sbi->free_lists = NULL;
	kfree(sbi->state_pages);
	sbi->state_pages = NULL;
	kfree(sbi->bb_held);
	sbi->bb_held = NULL;
	sbi->bb_nr_held = 0;
}

/* ---- saving and restoring the allocator state ---- */

static struct nova_inode *nova_alloc_pi(struct nova_sb_info *sbi)
{
	return nova_block(sbi, NOVA_RESERVED_INODE_BLOCK) +
	       NOVA_ALLOC_INO * NOVA_INODE_SIZE;
}

/*
 * Write @k ranges as state page @blk, chained to @next (0: the last
 * page), built by nova_state_page_fill() (uapi/nova_state.h, shared with
 * mkfs.NOVA and fsck.NOVA). Returns the log tail just past its entry.
 */
static u64 nova_write_state_page(struct nova_sb_info *sbi, void *page,
				 const struct nova_range *r, unsigned int k,
				 unsigned long blk, unsigned long next)
{
	unsigned int size;

	size = nova_state_page_fill(page, r, k, sbi->epoch_id,
				    nova_next_trans(sbi), next);
	nova_pmem_memcpy(nova_block(sbi, blk), page, NOVA_BLOCK_SIZE);
	return ((u64)blk << NOVA_BLOCK_SHIFT) + size;
}

/*
 * Filling the state pages, one range at a time. A full page is written
 * only when another range follows, so every page written names its next
 * one and the last names none, however many of the pages are used.
 * Ranges that touch (the last of one list and the first of the next) are
 * saved as one: the saved state is the device's maximal free runs,
 * whatever the number of lists (nova_balloc_add_free() splits them again
 * at restore).
 */
struct nova_state_writer {
	struct nova_sb_info *sbi;
	struct nova_range *ranges;	/* NOVA_RANGES_PER_ENTRY */
	void *page;			/* NOVA_BLOCK_SIZE */
	unsigned long *pages;
	unsigned long npages;
	unsigned long i;		/* the page being filled */
	unsigned int k;			/* ranges in it so far */
	u64 tail;
	unsigned long run_start, run_len;	/* the run being merged */
	unsigned long runs;		/* counting only: runs so far */
	bool counting;
};

static int nova_state_put(struct nova_state_writer *w, unsigned long start,
			  unsigned long len)
{
	if (w->k == NOVA_RANGES_PER_ENTRY) {
		/* Allocating the pages never adds ranges (see below). */
		if (w->i + 1 >= w->npages)
			return -EFSCORRUPTED;
		w->tail = nova_write_state_page(w->sbi, w->page, w->ranges,
						w->k, w->pages[w->i],
						w->pages[w->i + 1]);
		w->i++;
		w->k = 0;
	}
	w->ranges[w->k].r_start = cpu_to_le64(start);
	w->ranges[w->k].r_len = cpu_to_le64(len);
	w->k++;
	return 0;
}

/* Add [@start, @start + @len) to the run being merged; 0, 0 ends it. */
static int nova_state_run(struct nova_state_writer *w, unsigned long start,
			  unsigned long len)
{
	int err = 0;

	if (w->run_len && w->run_start + w->run_len == start) {
		w->run_len += len;
		return 0;
	}
	if (w->run_len && w->counting)
		w->runs++;
	else if (w->run_len)
		err = nova_state_put(w, w->run_start, w->run_len);
	w->run_start = start;
	w->run_len = len;
	return err;
}

/* Every free range, in block order, then the withheld blocks. */
static int nova_state_ranges(struct nova_state_writer *w)
{
	struct nova_sb_info *sbi = w->sbi;
	unsigned long i;
	unsigned int l;
	int err = 0;

	for (l = 0; l < sbi->nr_lists && !err; l++) {
		struct nova_range_node *r;
		struct rb_node *p;

		for (p = rb_first(&sbi->free_lists[l].root);
		     p && !err; p = rb_next(p)) {
			r = rb_entry(p, struct nova_range_node, node);
			err = nova_state_run(w, r->start, nova_range_len(r));
		}
	}
	for (i = 0; i < sbi->bb_nr_held && !err; i++)
		err = nova_state_run(w, sbi->bb_held[i], 1);
	return err ? err : nova_state_run(w, 0, 0);
}

/*
 * A page for the saved state: the lowest free block of the device, so
 * that the pages are the same whatever CPU unmounts (uapi/nova_plan.h
 * counts on it) and taking them never splits a free run.
 */
static int nova_alloc_state_page(struct nova_sb_info *sbi, unsigned long *blk)
{
	unsigned int l;

	for (l = 0; l < sbi->nr_lists; l++) {
		if (nova_take(sbi, &sbi->free_lists[l], 1, NOVA_FIT_ANY, 0,
			      blk)) {
			nova_abm_set(sbi, *blk, 1);
			atomic_long_inc(&sbi->meta_blocks);
			return 0;
		}
	}
	return -ENOSPC;
}

/*
 * Write every free range to the log of NOVA_ALLOC_INO. The pages for that
 * log are the lowest free blocks, allocated first, so the ranges written
 * exclude them; taking the lowest blocks never increases the number of
 * runs. Blocks
 * withheld for media errors (nova_balloc_withhold()) are saved as free:
 * the next mount decides again from the driver's list of its time. Called
 * with the file system quiescent (unmount, remount read-only, a user's
 * freeze).
 */
int nova_save_alloc_state(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_alloc_pi(sbi);
	struct nova_state_writer w = { .sbi = sbi };
	unsigned long i;
	unsigned int l;
	int err = 0;

	/* Kept single blocks go into the trees, whose ranges are saved. */
	for (l = 0; l < sbi->nr_lists; l++) {
		struct nova_free_list *fl = &sbi->free_lists[l];
		unsigned long one = 0;

		spin_lock(&fl->lock);
		nova_take_one(sbi, fl, 0, &one);
		spin_unlock(&fl->lock);
		if (one && nova_free_in_list(sbi, l, one, 1, false))
			return -EFSCORRUPTED;
	}
	w.counting = true;
	nova_state_ranges(&w);
	w.counting = false;
	w.npages = DIV_ROUND_UP(w.runs, NOVA_RANGES_PER_ENTRY);

	/* Forget an older saved state first: it would otherwise be reused. */
	nova_pi_commit64(sbi, &pi->i_log_tail, 0);
	nova_pi_commit64(sbi, &pi->i_log_head, 0);
	if (!w.npages)
		return 0;

	w.pages = kcalloc(w.npages, sizeof(*w.pages), GFP_KERNEL);
	w.ranges = kcalloc(NOVA_RANGES_PER_ENTRY, sizeof(*w.ranges),
			   GFP_KERNEL);
	w.page = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	if (!w.pages || !w.ranges || !w.page) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < w.npages; i++) {
		err = nova_alloc_state_page(sbi, &w.pages[i]);
		if (err) {
			while (i--)
				nova_free_blocks(sb, w.pages[i], 1,
						 NOVA_BLOCK_META);
			goto out;
		}
	}

	/* Fill the pages; nothing of this is reachable until the head store. */
	err = nova_state_ranges(&w);
	if (err) {
		while (w.npages)
			nova_free_blocks(sb, w.pages[--w.npages], 1,
					 NOVA_BLOCK_META);
		goto out;
	}
	/*
	 * The last page, then any the ranges no longer need (taking the
	 * lowest free blocks can only remove runs, down to none when they
	 * were the last ones), with what is left: possibly nothing. Given
	 * back instead, such a page would be free in DRAM and in no saved
	 * range, leaked by the next mount.
	 */
	while (w.i < w.npages) {
		w.tail = nova_write_state_page(sbi, w.page, w.ranges, w.k,
					       w.pages[w.i],
					       w.i + 1 < w.npages ?
					       w.pages[w.i + 1] : 0);
		w.i++;
		w.k = 0;
	}

	/* Pages durable, then head, then tail: the state is complete. */
	nova_pi_commit64(sbi, &pi->i_log_head,
			 (u64)w.pages[0] << NOVA_BLOCK_SHIFT);
	nova_pi_commit64(sbi, &pi->i_log_tail, w.tail);
	kfree(sbi->state_pages);
	sbi->state_pages = w.pages;
	sbi->nr_state_pages = w.npages;
	w.pages = NULL;
out:
	kfree(w.page);
	kfree(w.ranges);
	kfree(w.pages);
	return err;
}

struct nova_restore_ctx {
	unsigned long *pages;
	unsigned long nr_pages;
	unsigned long ranges;
};

static int nova_restore_entry(struct super_block *sb, u64 off, void *entry,
			      void *arg)
{
	struct nova_free_ranges_entry *fr = entry;
	unsigned int i, n = le32_to_cpu(fr->fr_count);
	struct nova_restore_ctx *ctx = arg;
	int err;

	if (fr->hdr.e_type != NOVA_LOG_FREE_RANGES ||
	    le16_to_cpu(fr->hdr.e_size) != struct_size(fr, fr_ranges, n)) {
		nova_err(sb, "allocator state: bad entry at %llu", off);
		return -EFSCORRUPTED;
	}
	for (i = 0; i < n; i++) {
		err = nova_balloc_add_free(sb,
				le64_to_cpu(fr->fr_ranges[i].r_start),
				le64_to_cpu(fr->fr_ranges[i].r_len));
		if (err)
			return err;
	}
	ctx->ranges += n;
	return 0;
}

static int nova_restore_page(struct super_block *sb, u64 page_off, void *arg)
{
	struct nova_restore_ctx *ctx = arg;
	unsigned long *p;

	p = krealloc_array(ctx->pages, ctx->nr_pages + 1, sizeof(*p),
			   GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	ctx->pages = p;
	p[ctx->nr_pages++] = page_off >> NOVA_BLOCK_SHIFT;
	return 0;
}

/*
 * Read the state saved by nova_save_alloc_state(). The state pages stay
 * allocated until nova_release_state_pages(), which runs once the
 * superblock says "dirty" again.
 */
int nova_restore_alloc_state(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_alloc_pi(sbi);
	struct nova_restore_ctx ctx = { };
	u64 head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	u64 tail = le64_to_cpu(READ_ONCE(pi->i_log_tail));
	int err;

	if (head)
		err = nova_log_walk_raw(sb, NOVA_ALLOC_INO, head, tail,
					nova_restore_entry, nova_restore_page,
					&ctx);
	else
		err = tail ? -EFSCORRUPTED : 0;
	if (err) {
		kfree(ctx.pages);
		nova_err(sb, "cannot read the saved allocator state: %d", err);
		return err;
	}
	atomic_long_set(&sbi->meta_blocks, sbi->managed - nova_count_free(sb) -
			atomic_long_read(&sbi->log_pages) -
			atomic_long_read(&sbi->data_pages));
	sbi->state_pages = ctx.pages;
	sbi->nr_state_pages = ctx.nr_pages;
	return 0;
}

/* The saved state is obsolete once the file system is writable. */
void nova_release_state_pages(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_alloc_pi(sbi);
	unsigned long i;

	nova_pi_commit64(sbi, &pi->i_log_tail, 0);
	nova_pi_commit64(sbi, &pi->i_log_head, 0);
	for (i = 0; i < sbi->nr_state_pages; i++)
		nova_free_blocks(sb, sbi->state_pages[i], 1, NOVA_BLOCK_META);
	kfree(sbi->state_pages);
	sbi->state_pages = NULL;
	sbi->nr_state_pages = 0;
}

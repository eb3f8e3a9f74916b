// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: log garbage collection.
 *
 * Every operation appends to a per-inode log, so a file overwritten
 * forever or a directory with churn would eat the device. Entries that a
 * later entry makes irrelevant are marked invalid as they are superseded
 * (the e_flags hint and the page tail's lt_valid count, see log.c and the
 * supersession rules in file.c, iget.c and below) and two collectors
 * reclaim them:
 *
 *  - Fast GC runs when a log needs a new page (nova_gc_extend_log()). It
 *    walks the page tails from the head to the page holding the committed
 *    tail and unlinks every run of pages whose entries are all invalid
 *    with one 8-byte commit of the pointer to the run (the previous page's
 *    lt_next, or i_log_head); the pages are freed once that store is
 *    durable. A crash leaves the chain either with or without the run.
 *
 *  - Thorough GC runs when the live entries would fill less than half of
 *    the log's pages. It writes the live entries, in log order, to new
 *    pages, switches i_log_head and i_log_tail together through the lite
 *    journal, repoints the DRAM indexes and frees the old chain. A crash
 *    before the journal transaction closes leaves the old log, after it
 *    the new one; the new pages (or the old ones) are unreachable then and
 *    crash recovery, which rebuilds the allocator from reachable pages,
 *    frees them. It needs the inode's i_rwsem (and, for files, the
 *    invalidate lock) because lookups, readdir, read() and page faults
 *    read entries without log_lock, so it runs from a work item (or on
 *    request, nova_gc_request()), not inside an operation.
 *
 *  - Windowed thorough GC is what the work item does for a regular file
 *    (nova_gc_windowed()): a file overwritten at random has a huge log,
 *    and one whole-log pass would stall its readers and writers for as
 *    long as the copy takes. It compacts the log a window at a time, at
 *    most NOVA_GC_WINDOW_PAGES consecutive pages before the page holding
 *    the committed tail: the entries the window keeps are copied, in
 *    order, to new pages (with mirrors) whose last one links to the page
 *    after the window; once those are durable, one 8-byte commit of the
 *    link to the window (the previous page's lt_next, or i_log_head)
 *    swaps the copy in, as fast GC unlinks a run. A crash finds the old
 *    run or the new one; the other is unreachable, and recovery frees
 *    it. Then the DRAM indexes and every ni->last_* pointer into the
 *    window are repointed and the old pages freed. Between two windows
 *    every lock is given up, s_umount included, so a reader or writer
 *    waits for one window at most. Each window finds its place again from
 *    the head (the pages compacted so far are counted, not remembered),
 *    so whatever fast GC or a request did in between, it works on the
 *    chain as it is; a miscount only makes it look at a page twice or
 *    skip one. Inode state, view pins and the file system's state are
 *    checked again for each window; a pass looks at no more pages than
 *    the log had when it began. Directories, whose removals wait for
 *    pages (gc_cancels), and requests keep the whole-log pass; so does a
 *    file whose log the windows leave more than twice as long as its live
 *    entries would fill (nova_gc_windows_not_enough(): range entries,
 *    which windows keep, are what makes that happen).
 *
 *    Entries before and after a window stay, so a window may drop only
 *    what is dead wherever it lies: a write entry's pages that the page
 *    index no longer maps to it (trimmed as thorough GC does); a setattr
 *    or xattr entry whose invalid hint is set (the hint is set only once
 *    a later entry that restates all of it is committed: a setattr that
 *    sets every field, a size change that also drops every page the old
 *    one dropped, a set or removal of the same xattr); a link change that
 *    is not the newest. Everything else is copied as it is: a size change
 *    or a removal not marked may cancel something in an earlier page, a
 *    range entry cancels pages wherever they are, what a snapshot shows
 *    is not reclaimable. The newest write entry stays even without a
 *    live page: its size and mtime hold until a later entry restates
 *    them, and a size change without NOVA_ATTR_MTIME (truncate(2) by
 *    name) that dropped its pages does not; a window cannot emit the
 *    restating setattr the whole-log pass ends with, which would have to
 *    go at the end of the log.
 *
 * Extensions double the log (its page count after fast GC) up to
 * NOVA_LOG_EXTEND_MAX pages and then add NOVA_LOG_EXTEND_MAX pages at a
 * time, so the walk of fast GC is amortised over the pages it adds.
 *
 * What is live. A write entry: the file pages the xarray maps to it. A
 * dentry: the binding a name in the index points to, the newest ".."
 * (the parent), and the newest dentry entry of any kind (it carries the
 * directory's link count). A removal cancels the binding it removes, so
 * it must outlive that binding on media: it is invalidated at once when
 * both share a page (they are freed together) and otherwise when fast GC
 * frees the binding's page (nova_inode_info.gc_cancels). A setattr entry:
 * see nova_apply_setattr(); in addition a size change is superseded by a
 * later one that sets every field it set and drops at least the pages it
 * dropped. A link change: the newest one. A range entry (fallocate
 * punch, zero, collapse, insert) is never invalidated at runtime, as it
 * cancels the pages of older write entries wherever they are; thorough
 * GC, which trims those, keeps only the newest one (it may carry the
 * size) and those after a kept prefix. Thorough GC decides liveness
 * from the DRAM indexes rather than from the hints (which may overcount
 * after a crash), trims write entries to their live pages, and closes the
 * new log with one setattr entry restating mode, owner and times, so that
 * older attribute entries need not be kept. An xattr entry: the pieces of
 * the value the inode's xattr index holds (superseded ones are marked
 * invalid when replaced); a removal is never marked and is dropped by
 * thorough GC with the sets it cancels (xattr.c).
 *
 * nova_gc_reclaimable() is the one decision point for dropping an entry:
 * dead for the live file system and not shown by a snapshot (the epoch
 * check). Entries are in epoch order in a log, so the entries a snapshot
 * shows are a prefix of it; thorough GC copies that prefix unchanged and
 * then keeps every size change and removal after it, since they may
 * cancel something in the prefix.
 *
 * Locking (nova.h): sb_writers (freeze), i_rwsem, invalidate_lock,
 * log_lock; the queue's xa_lock is a leaf taken with log_lock held. The
 * work item takes s_umount only by trylock (for each window, too), so
 * unmount and remount, which hold it, never wait for GC; unmount flushes
 * the work before the inodes are evicted (nova_gc_stop()). A window takes
 * all three inode locks like the whole-log pass, as readers read entries
 * without log_lock; what the window changes is only how long they are
 * held.
 */
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "nova.h"
#include "xattr.h"
#include "pmem.h"

/* Log extension: double up to this many pages (1 MiB), then add as many. */
#define NOVA_LOG_EXTEND_MAX		256
/* Smaller logs are not worth a thorough GC on their own. */
#define NOVA_GC_THOROUGH_MIN_PAGES	8
/* Log pages one window of a windowed thorough GC compacts at most. */
#define NOVA_GC_WINDOW_PAGES		16
/* nova_log_walk() callback return: the walk reached the window's end. */
#define NOVA_GC_WINDOW_END		1
/* Attributes the setattr entry closing a compacted log restates. */
#define NOVA_GC_ATTRS	(NOVA_ATTR_MODE | NOVA_ATTR_UID | NOVA_ATTR_GID | \
			 NOVA_ATTR_ATIME | NOVA_ATTR_MTIME | NOVA_ATTR_CTIME)

struct nova_gc_info {
	struct super_block *sb;
	struct work_struct work;
	struct xarray queue;		/* ino -> igrab()bed inode, thorough GC */
	bool stopped;			/* under the queue's xa_lock */
	atomic64_t fast_pages;
	atomic64_t thorough_runs;
	atomic64_t thorough_pages;
	atomic64_t entries_copied;
	atomic64_t time_ns;
};

/* Removal entries waiting for the log page of the binding they cancel. */
struct nova_gc_wait {
	unsigned int nr, cap;
	u64 off[];
};

static bool nova_gc_page_ok(struct nova_sb_info *sbi, u64 page)
{
	return !(page & (NOVA_BLOCK_SIZE - 1)) &&
	       nova_block_ok(sbi, page >> NOVA_BLOCK_SHIFT, 1);
}

/*
 * The reclaim hook: may an entry be dropped from its log? @dead says the
 * live file system no longer needs it (validity accounting); a snapshot
 * that shows it still does (the epoch check, snapshot.c).
 */
static bool nova_gc_reclaimable(struct super_block *sb,
				const struct nova_log_entry_header *h,
				bool dead)
{
	return dead &&
	       nova_snapshot_entry_reclaimable(sb, le64_to_cpu(h->e_epoch_id));
}

#ifdef NOVA_TEST_HOOKS
/*
 * Test hook (test builds only, NOVA_TEST_HOOKS): while set, a request
 * (novactl gc) collects regular files window by window as the work item
 * does, so a crash test can stop the machine inside a window
 * (tests/boot/gc-crash.sh), and the work item never follows its windows
 * with the whole-log pass, so a test sees what windows alone do
 * (tests/guest/gc-window.sh).
 */
static bool nova_gc_windowed_req;
module_param_named(gc_windowed_requests, nova_gc_windowed_req, bool, 0600);
MODULE_PARM_DESC(gc_windowed_requests, "test only: novactl gc and the work item compact files window by window only");

static bool nova_gc_windowed_requests(void)
{
	return READ_ONCE(nova_gc_windowed_req);
}

/*
 * Test hook: while set, the work item compacts regular files whole, as it
 * did before windows, so a test can compare the stalls of both.
 */
static bool nova_gc_whole_work;
module_param_named(gc_whole_work, nova_gc_whole_work, bool, 0600);
MODULE_PARM_DESC(gc_whole_work, "test only: the GC work item compacts file logs whole");

static bool nova_gc_work_windowed(struct inode *inode)
{
	return S_ISREG(inode->i_mode) && !READ_ONCE(nova_gc_whole_work);
}
#else
static bool nova_gc_windowed_requests(void)
{
	return false;
}

static bool nova_gc_work_windowed(struct inode *inode)
{
	return S_ISREG(inode->i_mode);
}
#endif

/* ---- per-inode state ---- */

void nova_gc_init_inode(struct nova_inode_info *ni)
{
	ni->last_size = 0;
	ni->last_write = 0;
	ni->last_dentry = 0;
	ni->last_dotdot = 0;
	ni->last_dentry_cancels = false;
	ni->gc_removals = 0;
	ni->gc_thorough_at = 0;
	xa_init(&ni->gc_cancels);
}

/* Forget the removals waiting for pages (the index goes away). */
void nova_gc_forget_inode(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_gc_wait *w;
	unsigned long idx;

	xa_for_each(&ni->gc_cancels, idx, w)
		kfree(w);
	xa_destroy(&ni->gc_cancels);
}

/*
 * Removal entry @off may go once the log page @page is gone. If that
 * cannot be recorded (no memory), the removal simply stays until a
 * thorough GC.
 */
static void nova_gc_wait_for(struct inode *dir, u64 page, u64 off)
{
	struct nova_inode_info *ni = NOVA_I(dir);
	unsigned long idx = page >> NOVA_BLOCK_SHIFT;
	struct nova_gc_wait *w = xa_load(&ni->gc_cancels, idx), *n;
	unsigned int cap;

	if (w && w->nr < w->cap) {
		w->off[w->nr++] = off;
		return;
	}
	cap = w ? w->cap * 2 : 4;
	n = krealloc(w, struct_size(n, off, cap), GFP_NOFS | __GFP_NOWARN);
	if (!n)
		return;
	n->cap = cap;
	if (!w)
		n->nr = 0;
	n->off[n->nr++] = off;
	/* Replacing a present slot cannot fail; only a new one can. */
	if (n != w && xa_is_err(xa_store(&ni->gc_cancels, idx, n, GFP_NOFS)))
		kfree(n);
}

/* Log page @page of @dir is gone: the removals waiting for it are dead. */
static void nova_gc_page_gone(struct inode *dir, u64 page)
{
	struct nova_inode_info *ni = NOVA_I(dir);
	struct nova_gc_wait *w;
	unsigned int i;

	w = xa_erase(&ni->gc_cancels, page >> NOVA_BLOCK_SHIFT);
	if (!w)
		return;
	for (i = 0; i < w->nr; i++) {
		if (w->off[i] == ni->last_dentry)
			ni->last_dentry_cancels = false;
		else
			nova_log_invalidate(dir, w->off[i]);
		if (ni->gc_removals)
			ni->gc_removals--;
	}
	kfree(w);
}

static bool nova_gc_is_dotdot(const struct nova_dentry_entry *de)
{
	return de->de_name_len == 2 && de->de_name[0] == '.' &&
	       de->de_name[1] == '.';
}

/*
 * A dentry entry at @off is being applied to @dir (before the index
 * changes). At runtime, retire what it supersedes: the previous newest
 * dentry entry if it was a removal whose binding is gone, the previous
 * "..". Called by nova_dir_apply() with log_lock held.
 */
void nova_gc_dentry(struct inode *dir, u64 off, struct nova_dentry_entry *de,
		    bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(dir);
	struct nova_sb_info *sbi = NOVA_SB(dir->i_sb);
	u64 prev = ni->last_dentry, old;
	bool prev_cancels = ni->last_dentry_cancels;
	struct nova_dentry_node *n;

	/* The newest dentry entry carries the link count: it stays. */
	ni->last_dentry = off;
	ni->last_dentry_cancels = false;
	if (nova_gc_is_dotdot(de)) {
		old = ni->last_dotdot;
		ni->last_dotdot = off;
		if (runtime)
			nova_log_invalidate(dir, old);
	} else if (!le64_to_cpu(de->de_ino)) {
		/*
		 * A removal. After a remount nothing says whether the binding
		 * it cancels is still on media: keep it.
		 */
		n = runtime ? nova_dir_find(dir, de->de_name, de->de_name_len) :
			      NULL;
		if (!runtime) {
			ni->last_dentry_cancels = true;
			if (!(de->hdr.e_flags & NOVA_ENTRY_INVALID))
				ni->gc_removals++;
		} else if (n && nova_log_page_of(n->entry) != nova_log_page_of(off)) {
			/* Sharing a page, the two would be freed together. */
			nova_gc_wait_for(dir, nova_log_page_of(n->entry), off);
			ni->last_dentry_cancels = true;
			ni->gc_removals++;
		}
	}
	if (!runtime || !prev)
		return;
	de = nova_addr(sbi, prev);
	if (nova_gc_is_dotdot(de)) {
		if (prev != ni->last_dotdot)
			nova_log_invalidate(dir, prev);
	} else if (!le64_to_cpu(de->de_ino) && !prev_cancels) {
		nova_log_invalidate(dir, prev);
	}
}

/*
 * A setattr entry at @off is being applied. A size change supersedes the
 * previous one if it sets every other field that one set and drops at
 * least the pages it dropped (its size is not larger, and it does not keep
 * them, NOVA_ATTR_GROW, unless the previous one kept them too). Log lock
 * held.
 */
void nova_gc_setattr(struct inode *inode, u64 off,
		     const struct nova_setattr_entry *sa, bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	const struct nova_setattr_entry *old;
	u32 mask = le32_to_cpu(sa->sa_mask), omask;

	if (!(mask & NOVA_ATTR_SIZE))
		return;
	if (runtime && ni->last_size) {
		old = nova_addr(NOVA_SB(inode->i_sb), ni->last_size);
		omask = le32_to_cpu(old->sa_mask);
		/* One that grew (NOVA_ATTR_GROW) drops nothing. */
		if ((omask & NOVA_ATTR_GROW || !(mask & NOVA_ATTR_GROW)) &&
		    !(omask & ~(mask | NOVA_ATTR_SIZE | NOVA_ATTR_GROW)) &&
		    le64_to_cpu(old->sa_size) >= le64_to_cpu(sa->sa_size))
			nova_log_invalidate(inode, ni->last_size);
	}
	ni->last_size = off;
}

/* ---- fast GC ---- */

/*
 * May every entry of log page @page be dropped? lt_valid is a quick
 * filter; the invalid flags of the entries decide (a flag is set only
 * after the entry superseding it is committed).
 */
static bool nova_gc_page_dead(struct super_block *sb, u64 page,
			      struct nova_log_page_tail *lt)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 pos = page, end = page + NOVA_LOG_DATA_SIZE;
	struct nova_log_entry_header *h;

	if (le32_to_cpu(READ_ONCE(lt->lt_valid)))
		return false;
	while (end - pos >= sizeof(*h)) {
		unsigned int size;

		h = nova_addr(sbi, pos);
		size = le16_to_cpu(h->e_size);
		if (h->e_type == NOVA_LOG_PAD)
			break;
		if (size < sizeof(*h) || size % 8 || size > end - pos ||
		    !(h->e_flags & NOVA_ENTRY_INVALID))
			return false;
		pos += size;
	}
	/* The first entry is the oldest: its epoch decides for the page. */
	h = nova_addr(sbi, page);
	return h->e_type == NOVA_LOG_PAD || nova_gc_reclaimable(sb, h, true);
}

/*
 * Unlink the dead pages from @first up to (not including) @to, which
 * the lt_next of @link_page (0: i_log_head) points to, and free them with
 * their mirrors. Returns how many were freed.
 */
static unsigned long nova_gc_unlink(struct inode *inode, u64 link_page,
				    u64 first, u64 to)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long n = 0;
	u64 page = first, next;

	/*
	 * One 8-byte store takes the whole run out of the chain. The fence
	 * after it (nova_pmem_commit64()) makes that durable before any of
	 * the pages can be handed out again and overwritten; until then they
	 * are intact, so a crash finds the old chain or the new one. The
	 * mirror's copy of a page link follows (nova_log_link()), durable at
	 * the next fence; a stale copy is read only when the primary's link
	 * is unusable, and the walk sets it right.
	 */
	if (link_page) {
		nova_log_link(sbi, link_page, to);
	} else {
		nova_pi_commit64(sbi, &nova_pi(inode)->i_log_head, to);
		ni->log_head = to;
	}
	while (page != to) {
		/* Read the link before the page can be reused. */
		next = le64_to_cpu(READ_ONCE(nova_log_page_tail(sbi, page)->lt_next));
		if (S_ISDIR(inode->i_mode))
			nova_gc_page_gone(inode, page);
		/* The page and its mirror. */
		nova_log_free_page(sb, page);
		ni->log_pages--;
		n++;
		page = next;
	}
	return n;
}

/*
 * Fast GC of @inode's log: free the runs of dead pages before the page
 * holding the committed tail. Sets *@live to an estimate of the pages the
 * live entries would fill. Returns the pages freed. Log lock held.
 */
static unsigned long nova_gc_fast(struct inode *inode, unsigned long *live)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 link = 0;			/* the page linking to the next one, 0: head */
	u64 stop, page = ni->log_head, dead = 0, next, valid = 0, entries = 0;
	unsigned long freed = 0, seen = 0, kept = 0, pages = ni->log_pages;
	struct nova_log_page_tail *lt;

	lockdep_assert_held(&ni->log_lock);
	*live = 1;
	if (!page)
		return 0;
	stop = ni->log_tail ? nova_log_page_of(ni->log_tail) : page;
	/*
	 * ni->log_pages is exact, not a hint: nova_iget() counts every page
	 * of the chain (past the tail page too), and every change to the
	 * chain (nova_new_log_page(), nova_gc_new_chain(), nova_gc_unlink(),
	 * a thorough GC, nova_log_free()) adjusts it under log_lock, which
	 * we hold. The pages before the tail page are fewer, so a walk that
	 * sees more than that has met a loop or a corrupted link.
	 */
	while (page != stop) {
		lt = nova_log_page_tail(sbi, page);
		next = le64_to_cpu(READ_ONCE(lt->lt_next));
		if (++seen > pages || !nova_gc_page_ok(sbi, next)) {
			nova_err(sb, "inode %lu: log chain broken at %llu, not collecting it",
				 inode->i_ino, page);
			return freed;
		}
		if (nova_gc_page_dead(sb, page, lt)) {
			if (!dead)
				dead = page;
			page = next;
			continue;
		}
		if (dead) {
			freed += nova_gc_unlink(inode, link, dead, page);
			dead = 0;
			/* Removals waiting for those pages may be dead now. */
			if (nova_gc_page_dead(sb, page, lt)) {
				dead = page;
				page = next;
				continue;
			}
		}
		valid += le32_to_cpu(lt->lt_valid);
		entries += le32_to_cpu(lt->lt_entries);
		kept++;
		link = page;
		page = next;
	}
	if (dead)
		freed += nova_gc_unlink(inode, link, dead, stop);
	/*
	 * Pages the live entries would fill, at the average entry size of
	 * the pages kept, plus the tail page. Removals counted valid only
	 * because of what they cancel are not live for a thorough GC.
	 */
	valid -= min_t(u64, valid, ni->gc_removals);
	if (entries)
		*live = div64_u64(valid * kept + entries - 1, entries) + 1;
	return freed;
}

/* Hand @inode to the work item for a thorough GC. Log lock held. */
static void nova_gc_queue(struct inode *inode)
{
	struct nova_gc_info *gc = NOVA_SB(inode->i_sb)->gc;
	int err;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	if (!gc || xa_load(&gc->queue, inode->i_ino) || !igrab(inode))
		return;
	xa_lock(&gc->queue);
	err = gc->stopped ? -ESHUTDOWN :
	      __xa_insert(&gc->queue, inode->i_ino, inode,
			  GFP_NOWAIT | __GFP_NOWARN);
	xa_unlock(&gc->queue);
	if (err) {
		/* The caller holds a reference too: this is not the last. */
		iput(inode);
		return;
	}
	queue_work(system_unbound_wq, &gc->work);
}

/*
 * Link @next after @page in a chain nothing reaches yet: the page's
 * lt_next and its mirror's copy, no fence (the caller fences once before
 * linking the chain).
 */
static void nova_gc_link_new(struct nova_sb_info *sbi, u64 page, u64 next)
{
	u64 m = nova_log_mirror(sbi, page);

	nova_pmem_store64(&nova_log_page_tail(sbi, page)->lt_next, next);
	if (m)
		nova_pmem_store64(&nova_log_page_tail(sbi, m)->lt_next, next);
}

/*
 * Allocate @want log pages (fewer if space is short, at least one) and
 * chain them, each with its mirror: each initialised empty, linked to
 * the next, durable on return and not yet reachable. Returns the first
 * page in *@first.
 */
static int nova_gc_new_chain(struct inode *inode, unsigned long want,
			     u64 *first, unsigned long *got)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long n = 0, blk, cnt, i;
	u64 prev = 0, page, mirror;
	int err = 0;

	while (n < want) {
		err = nova_alloc_blocks(sb, want - n, false, NOVA_BLOCK_LOG,
					&blk, &cnt);
		if (err)
			break;
		for (i = 0; i < cnt; i++) {
			page = (u64)(blk + i) << NOVA_BLOCK_SHIFT;
			err = nova_log_alloc_mirror(sb, inode->i_ino, &mirror);
			if (err) {
				/* This page and the rest of the run. */
				nova_free_blocks(sb, blk + i, cnt - i,
						 NOVA_BLOCK_LOG);
				break;
			}
			/* Both copies empty, each tail naming the other. */
			nova_log_init_page(sbi, inode->i_ino, page, mirror);
			if (prev)
				nova_gc_link_new(sbi, prev, page);
			else
				*first = page;
			prev = page;
			n++;
		}
		if (err)
			break;
	}
	if (!n)
		return err;
	/* The chain is durable before the caller links it. */
	nova_pmem_fence();
	NOVA_I(inode)->log_pages += n;
	*got = n;
	return 0;
}

/*
 * The log of @inode is full up to the end of @page (whose lt_next is 0)
 * and needs more room: collect dead pages, maybe queue a thorough GC,
 * then link an extension after @page and return its first page in
 * *@next. Caller (nova_log_append()) holds the log lock.
 */
int nova_gc_extend_log(struct inode *inode, u64 page, u64 *next)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	struct nova_gc_info *gc = sbi->gc;
	unsigned long freed, live, got;
	u64 start = ktime_get_ns();
	int err;

	freed = nova_gc_fast(inode, &live);
	if (gc) {
		atomic64_add(freed, &gc->fast_pages);
		atomic64_add(ktime_get_ns() - start, &gc->time_ns);
	}
	if (ni->log_pages >= max_t(unsigned long, NOVA_GC_THOROUGH_MIN_PAGES,
				   ni->gc_thorough_at) &&
	    live * 2 < ni->log_pages)
		nova_gc_queue(inode);

	err = nova_gc_new_chain(inode, clamp_t(unsigned long, ni->log_pages,
					       1, NOVA_LOG_EXTEND_MAX),
				next, &got);
	if (err)
		return err;
	/*
	 * The extension is durable; link it (0 -> first page, once), in the
	 * page, then in its mirror (durable at the next fence: the commit of
	 * the entry that needed the room).
	 */
	nova_log_link(sbi, page, *next);
	return 0;
}

/* ---- thorough GC ---- */

/* Where an entry that DRAM may point to moved. */
struct nova_gc_move {
	u64 from, to;
};

/* The new log being planned (@write false) or written. */
struct nova_gc_out {
	struct inode *inode;
	bool write;
	bool pinned;			/* a prefix a snapshot shows was kept */
	bool suffix;			/* planning: past that prefix */
	unsigned long index;		/* entries of the old log seen */
	unsigned long prefix;		/* entries in that prefix (planned) */
	u64 *pages;			/* the new pages (writing) */
	u64 *mirrors;			/* their mirrors, 0: none */
	unsigned long nr_pages;		/* used so far */
	unsigned long max_pages;	/* allocated (writing) */
	u64 pos;			/* planning: in the current page; the tail */
	struct nova_log_writer lw;	/* writing */
	struct nova_gc_move *moves;
	unsigned long nr_moves, max_moves;
	unsigned long copied;		/* entries written */
	u64 win_end;			/* windows: the page after the window */
};

/*
 * Thorough GC's growth policy: the new log grows into the pages allocated
 * for it, each made an empty log page (both copies) and linked after the
 * previous one without a fence: nothing reaches the chain until the
 * journal switches to it, after a fence (nova_gc_thorough()). Out of the
 * planned pages is a bug.
 */
static int nova_gc_out_extend(struct nova_log_writer *lw, u64 page, u64 *next)
{
	struct nova_gc_out *o = lw->arg;

	if (o->nr_pages >= o->max_pages)
		return -EIO;
	*next = o->pages[o->nr_pages];
	nova_log_init_page(lw->sbi, lw->ino, *next, o->mirrors[o->nr_pages]);
	if (page)
		nova_gc_link_new(lw->sbi, page, *next);
	o->nr_pages++;
	return 0;
}

/*
 * Append @size bytes of @entry (sealed) to the new log; @valid is its
 * hint, @from its old offset (0: a new entry). Planning counts the pages
 * by the writer's layout rule; writing puts the entry through the writer.
 * Returns the new offset (nonzero when planning), 0 when out of the
 * planned pages (a bug).
 */
static u64 nova_gc_emit(struct nova_gc_out *o, const void *entry,
			unsigned int size, bool valid, u64 from)
{
	u64 at;

	o->copied++;
	if (!o->write) {
		if (!o->nr_pages || !nova_log_fits(o->pos, size)) {
			o->nr_pages++;
			o->pos = 0;
		}
		o->pos += size;
		return 1;
	}
	if (nova_log_put_sealed(&o->lw, entry, valid))
		return 0;
	at = o->lw.last;
	if (from && o->nr_moves < o->max_moves) {
		o->moves[o->nr_moves].from = from;
		o->moves[o->nr_moves].to = at;
		o->nr_moves++;
	}
	return at;
}

/* Copy the entry at @off unchanged (hints included). */
static int nova_gc_keep(struct nova_gc_out *o, u64 off,
			struct nova_log_entry_header *h)
{
	unsigned int size = le16_to_cpu(h->e_size);

	return nova_gc_emit(o, h, size, !(h->e_flags & NOVA_ENTRY_INVALID),
			    off) ? 0 : -EIO;
}

/* A write entry: its live pages, as runs. */
static int nova_gc_write(struct nova_gc_out *o, u64 off,
			 struct nova_file_write_entry *fw)
{
	struct nova_inode_info *ni = NOVA_I(o->inode);
	pgoff_t pgoff = le64_to_cpu(fw->fw_pgoff), run = 0;
	u32 i, n = le32_to_cpu(fw->fw_num_pages), len = 0;
	void *me = xa_mk_value(off);
	struct nova_file_write_entry c;

	for (i = 0; i <= n; i++) {
		bool live = i < n && xa_load(&ni->pages, pgoff + i) == me;

		if (live) {
			if (!len)
				run = pgoff + i;
			len++;
			continue;
		}
		if (!len)
			continue;
		c = *fw;
		c.hdr.e_flags = 0;
		c.fw_dead_pages = 0;
		if (len != n) {
			/* Trimmed: a new entry with the same header. */
			c.fw_pgoff = cpu_to_le64(run);
			c.fw_num_pages = cpu_to_le32(len);
			c.fw_block = cpu_to_le64(le64_to_cpu(fw->fw_block) +
						 (run - pgoff));
			nova_entry_seal(&c);
		}
		if (!nova_gc_emit(o, &c, sizeof(c), true, off))
			return -EIO;
		len = 0;
	}
	return 0;
}

/* A dentry entry of directory o->inode. */
static int nova_gc_dentry_entry(struct nova_gc_out *o, u64 off,
				struct nova_dentry_entry *de)
{
	struct nova_inode_info *ni = NOVA_I(o->inode);
	struct nova_dentry_node *n;
	bool keep = off == ni->last_dentry;

	if (nova_gc_is_dotdot(de)) {
		keep |= off == ni->last_dotdot;
	} else if (le64_to_cpu(de->de_ino)) {
		n = nova_dir_find(o->inode, de->de_name, de->de_name_len);
		keep |= n && n->entry == off;
	} else {
		/* A removal may cancel a binding in the kept prefix. */
		keep |= o->pinned;
	}
	if (!keep)
		return 0;
	if (!nova_gc_emit(o, de, le16_to_cpu(de->hdr.e_size), true, off))
		return -EIO;
	return 0;
}

static int nova_gc_copy_entry(struct super_block *sb, u64 off, void *entry,
			      void *arg)
{
	struct nova_gc_out *o = arg;
	struct nova_inode_info *ni = NOVA_I(o->inode);
	struct nova_log_entry_header *h = entry;
	bool pinned;

	/*
	 * What a snapshot shows is copied as it is: a prefix of the log, as
	 * entries are in epoch order. The copy uses the planned prefix, so
	 * a snapshot deleted meanwhile cannot make the two passes differ.
	 */
	if (o->write) {
		pinned = o->index < o->prefix;
	} else {
		pinned = !o->suffix && !nova_gc_reclaimable(sb, h, true);
		if (pinned)
			o->prefix = o->index + 1;
		else
			o->suffix = true;
	}
	o->index++;
	if (pinned) {
		o->pinned = true;
		return nova_gc_keep(o, off, h);
	}
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		return nova_gc_write(o, off, entry);
	case NOVA_LOG_DENTRY:
		return nova_gc_dentry_entry(o, off, entry);
	case NOVA_LOG_SETATTR: {
		struct nova_setattr_entry *sa = entry;

		/* Other fields are restated at the end of the new log. */
		if ((le32_to_cpu(sa->sa_mask) & NOVA_ATTR_SIZE) &&
		    (off == ni->last_size || o->pinned))
			return nova_gc_keep(o, off, h);
		return 0;
	}
	case NOVA_LOG_LINK_CHANGE:
		return off == ni->last_link ? nova_gc_keep(o, off, h) : 0;
	case NOVA_LOG_RANGE:
		/*
		 * Write entries kept before it are trimmed to their live
		 * pages, so it drops nothing of theirs; the newest one may
		 * carry the size, and after a kept prefix it may drop
		 * pages of the prefix.
		 */
		if (off == ni->last_range || o->pinned)
			return nova_gc_keep(o, off, h);
		return 0;
	case NOVA_LOG_XATTR: {
		struct nova_xattr_entry *xe = entry;

		/*
		 * A value the index holds; a removal only while it may cancel
		 * a set in the kept prefix.
		 */
		if (le16_to_cpu(xe->xe_flags) & NOVA_XATTR_REMOVE)
			return o->pinned ? nova_gc_keep(o, off, h) : 0;
		return nova_xattr_gc_live(o->inode, off, xe) ?
		       nova_gc_keep(o, off, h) : 0;
	}
	}
	return nova_gc_keep(o, off, h);
}

/* The setattr entry restating @inode's mode, owner, times and flags. */
static void nova_gc_attr_entry(struct inode *inode,
			       struct nova_setattr_entry *sa, u64 trans)
{
	nova_setattr_entry(inode, sa, NOVA_GC_ATTRS, trans);
	/*
	 * File attribute flags (1.6): always once the feature is on, as a
	 * kept older entry may carry flags since cleared.
	 */
	if (NOVA_SB(inode->i_sb)->prot & NOVA_FEATURE_FILEATTR) {
		sa->sa_mask |= cpu_to_le32(NOVA_ATTR_FLAGS);
		sa->sa_flags = cpu_to_le16(NOVA_I(inode)->attr_flags);
	}
	/* The project id (1.8), as the flags. */
	if (NOVA_SB(inode->i_sb)->prot & NOVA_FEATURE_PROJID) {
		sa->sa_mask |= cpu_to_le32(NOVA_ATTR_PROJID);
		NOVA_SA_PROJID(sa) = cpu_to_le32(NOVA_I(inode)->projid);
	}
	nova_entry_seal(sa);
}

/* One pass over the committed log: plan (o->write false) or copy. */
static int nova_gc_pass(struct nova_gc_out *o, u64 *attr_off)
{
	struct inode *inode = o->inode;
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	struct nova_setattr_entry sa;
	u64 at;
	int err;

	/* The new log: its pages are reachable only once it is complete. */
	if (o->write) {
		nova_log_begin(&o->lw, sbi, inode->i_ino, &ni->log_lock, NULL, 0);
		o->lw.extend = nova_gc_out_extend;
		o->lw.arg = o;
	}
	err = nova_log_walk_raw(inode->i_sb, inode->i_ino, ni->log_head,
				ni->log_tail, nova_gc_copy_entry, NULL, o);
	if (err)
		return err;
	nova_gc_attr_entry(inode, &sa, o->write ? nova_next_trans(sbi) : 0);
	at = nova_gc_emit(o, &sa, sizeof(sa), true, 0);
	if (!at)
		return -EIO;
	*attr_off = at;
	if (o->write)
		o->pos = nova_log_end(&o->lw);
	return 0;
}

/*
 * The entry at @from was copied to @to: repoint the index that names it
 * (file pages, a name's binding, an xattr value's pieces). Log lock held.
 */
static void nova_gc_move_index(struct inode *inode, u64 from, u64 to)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_log_entry_header *h = nova_addr(NOVA_SB(inode->i_sb), to);

	if (h->e_type == NOVA_LOG_FILE_WRITE) {
		struct nova_file_write_entry *fw = (void *)h;
		pgoff_t p = le64_to_cpu(fw->fw_pgoff);
		u32 k, n = le32_to_cpu(fw->fw_num_pages);

		/* A kept snapshot entry may own only some pages. */
		for (k = 0; k < n; k++)
			if (xa_load(&ni->pages, p + k) == xa_mk_value(from))
				xa_store(&ni->pages, p + k, xa_mk_value(to),
					 GFP_NOFS);
	} else if (h->e_type == NOVA_LOG_DENTRY) {
		struct nova_dentry_entry *de = (void *)h;
		struct nova_dentry_node *n;

		if (!le64_to_cpu(de->de_ino) || nova_gc_is_dotdot(de))
			return;
		n = nova_dir_find(inode, de->de_name, de->de_name_len);
		if (n && n->entry == from)
			n->entry = to;
	} else if (h->e_type == NOVA_LOG_XATTR) {
		nova_xattr_gc_moved(inode, from, to, (void *)h);
	}
}

/* Repoint the DRAM indexes at the entries' new homes. Log lock held. */
static void nova_gc_repoint(struct inode *inode, struct nova_gc_out *o)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	u64 size = 0, link = 0, dentry = 0, dotdot = 0, range = 0, write = 0;
	unsigned long i;

	lockdep_assert_held(&ni->log_lock);
	for (i = 0; i < o->nr_moves; i++) {
		u64 from = o->moves[i].from, to = o->moves[i].to;

		if (from == ni->last_size)
			size = to;
		if (from == ni->last_link)
			link = to;
		if (from == ni->last_range)
			range = to;
		if (from == ni->last_write)
			write = to;
		if (from == ni->last_dentry)
			dentry = to;
		if (from == ni->last_dotdot)
			dotdot = to;
		nova_gc_move_index(inode, from, to);
	}
	ni->last_size = size;
	ni->last_link = link;
	ni->last_range = range;
	ni->last_write = write;
	ni->last_dentry = dentry;
	ni->last_dotdot = dotdot;
	/* A kept removal may still cancel a binding in a kept prefix. */
	ni->last_dentry_cancels = o->pinned;
	ni->gc_removals = 0;
	if (S_ISDIR(inode->i_mode))
		nova_gc_forget_inode(inode);
}

/* Free a whole old chain from @page (its pages are unreachable). */
static void nova_gc_free_chain(struct inode *inode, u64 page,
			       unsigned long max)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 next;

	while (page && max--) {
		next = le64_to_cpu(READ_ONCE(nova_log_page_tail(sbi, page)->lt_next));
		nova_log_free_page(sb, page);
		page = nova_gc_page_ok(sbi, next) ? next : 0;
	}
}

/* The pages of a new log that was not switched to, and their mirrors. */
static void nova_gc_free_pages(struct super_block *sb, struct nova_gc_out *o,
			       unsigned long n)
{
	while (n--) {
		if (o->mirrors[n])
			nova_free_blocks(sb, o->mirrors[n] >> NOVA_BLOCK_SHIFT,
					 1, NOVA_BLOCK_LOG);
		nova_free_blocks(sb, o->pages[n] >> NOVA_BLOCK_SHIFT, 1,
				 NOVA_BLOCK_LOG);
	}
}

/*
 * Allocate what the copy @plan planned for @o: its page, mirror and move
 * arrays and the pages with their mirrors, not yet written. On error the
 * pages are freed; the arrays go with nova_gc_out_release().
 */
static int nova_gc_out_alloc(struct inode *inode, struct nova_gc_out *o,
			     const struct nova_gc_out *plan)
{
	struct super_block *sb = inode->i_sb;
	unsigned long n = 0, blk, got;
	int err;

	o->max_pages = plan->nr_pages;
	o->max_moves = plan->copied;
	o->pages = kvmalloc_array(o->max_pages, sizeof(*o->pages), GFP_NOFS);
	o->mirrors = kvmalloc_array(o->max_pages, sizeof(*o->mirrors),
				    GFP_NOFS);
	o->moves = kvmalloc_array(o->max_moves, sizeof(*o->moves), GFP_NOFS);
	if (!o->pages || !o->mirrors || !o->moves)
		return -ENOMEM;
	while (n < o->max_pages) {
		err = nova_alloc_blocks(sb, o->max_pages - n, false,
					NOVA_BLOCK_LOG, &blk, &got);
		while (!err && got) {
			o->pages[n] = (u64)blk << NOVA_BLOCK_SHIFT;
			err = nova_log_alloc_mirror(sb, inode->i_ino,
						    &o->mirrors[n]);
			if (err) {
				nova_free_blocks(sb, blk, got, NOVA_BLOCK_LOG);
				break;
			}
			n++;
			blk++;
			got--;
		}
		if (err) {
			nova_gc_free_pages(sb, o, n);
			return err;
		}
	}
	return 0;
}

static void nova_gc_out_release(struct nova_gc_out *o)
{
	kvfree(o->pages);
	kvfree(o->mirrors);
	kvfree(o->moves);
}

/*
 * Thorough GC of @inode's log: copy the live entries to new pages if that
 * at least halves the log (@force: if it saves any page). Returns the
 * entries copied (0: not done) or a negative errno. Caller holds i_rwsem,
 * for a regular file the invalidate lock, and the log lock.
 */
static long nova_gc_thorough(struct inode *inode, bool force)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	struct nova_gc_out plan = { .inode = inode };
	struct nova_gc_out o = { .inode = inode, .write = true };
	unsigned long old_pages = ni->log_pages;
	u64 old_head = ni->log_head, attr_off;
	struct nova_jword w[2];
	long ret;
	int err;

	lockdep_assert_held(&inode->i_rwsem);
	if (S_ISREG(inode->i_mode))
		lockdep_assert_held(&inode->i_mapping->invalidate_lock);
	lockdep_assert_held(&ni->log_lock);
	/*
	 * A snapshot view of this inode points into the log by offset
	 * (snapview.c): the entries stay where they are until it goes.
	 */
	if (!old_head || ni->view_pins)
		return 0;
	err = nova_gc_pass(&plan, &attr_off);
	if (err)
		return err;
	if (force ? plan.nr_pages >= old_pages :
		    plan.nr_pages * 2 > old_pages) {
		/* Not worth it now: wait until the log has doubled. */
		ni->gc_thorough_at = 2 * old_pages;
		return 0;
	}

	o.prefix = plan.prefix;
	ret = nova_gc_out_alloc(inode, &o, &plan);
	if (ret)
		goto out;
	err = nova_gc_pass(&o, &attr_off);
	if (err || WARN_ON_ONCE(o.nr_pages != o.max_pages)) {
		nova_gc_free_pages(sb, &o, o.max_pages);
		ret = err ?: -EIO;
		goto out;
	}
	/*
	 * Every new page and mirror, entry and tail is durable before the
	 * switch; then head and tail change together (lite journal: a crash
	 * rolls both back to the old log, which is untouched until after the
	 * commit).
	 */
	nova_pmem_fence();
	w[0].word = &nova_pi(inode)->i_log_head;
	w[0].val = o.pages[0];
	w[1].word = &nova_pi(inode)->i_log_tail;
	w[1].val = o.pos;
	nova_journal_commit(sb, w, 2);

	nova_gc_repoint(inode, &o);
	ni->log_head = o.pages[0];
	ni->log_tail = o.pos;
	ni->log_pages = o.nr_pages;
	ni->last_setattr = attr_off;
	ni->last_append = attr_off;
	ni->gc_thorough_at = 0;
	/* Nothing reaches the old chain now: free it. */
	nova_gc_free_chain(inode, old_head, old_pages);
	if (NOVA_SB(sb)->gc) {
		atomic64_inc(&NOVA_SB(sb)->gc->thorough_runs);
		atomic64_add(old_pages - o.nr_pages,
			     &NOVA_SB(sb)->gc->thorough_pages);
		atomic64_add(o.copied, &NOVA_SB(sb)->gc->entries_copied);
	}
	ret = o.copied;
out:
	nova_gc_out_release(&o);
	return ret;
}

/* ---- windowed thorough GC (the work item, regular files) ---- */

/*
 * May GC change the file system now? Caller holds s_umount, which keeps
 * remount, freezing and thawing away; a frozen fs stays frozen meanwhile.
 * (GC takes s_umount rather than sb_start_write(): the freeze protection
 * would order it the wrong way round against s_umount.)
 */
static bool nova_gc_writable(struct super_block *sb)
{
	lockdep_assert_held(&sb->s_umount);
	return !sb_rdonly(sb) && sb->s_writers.frozen == SB_UNFROZEN &&
	       NOVA_SB(sb)->view_epoch == NOVA_EPOCH_LIVE &&
	       !nova_is_shutdown(sb);
}

/*
 * Which entries of a window stay: a copy of each, in log order. Entries
 * before and after the window stay where they are, so only what is dead
 * wherever it lies may go (see the top of this file): a write entry's
 * pages the index no longer maps to it, a setattr or xattr entry whose
 * invalid hint is set, a link change that is not the newest.
 */
static int nova_gc_window_entry(struct super_block *sb, u64 off, void *entry,
				void *arg)
{
	struct nova_gc_out *o = arg;
	struct nova_inode_info *ni = NOVA_I(o->inode);
	struct nova_log_entry_header *h = entry;
	unsigned long before = o->copied;
	int err;

	if (!nova_gc_reclaimable(sb, h, true))
		return nova_gc_keep(o, off, h);
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		err = nova_gc_write(o, off, entry);
		/*
		 * The newest write entry's size and times hold until a later
		 * entry restates them; a size change without NOVA_ATTR_MTIME
		 * that dropped all its pages does not. Kept as it is.
		 */
		if (!err && off == ni->last_write && o->copied == before)
			err = nova_gc_keep(o, off, h);
		return err;
	case NOVA_LOG_SETATTR:
	case NOVA_LOG_XATTR:
		if (h->e_flags & NOVA_ENTRY_INVALID)
			return 0;
		return nova_gc_keep(o, off, h);
	case NOVA_LOG_LINK_CHANGE:
		return off == ni->last_link ? nova_gc_keep(o, off, h) : 0;
	}
	/* Range entries (they cancel pages wherever they are) and the rest. */
	return nova_gc_keep(o, off, h);
}

/* nova_log_walk() page callback: stop at the page after the window. */
static int nova_gc_window_page(struct super_block *sb, u64 page, void *arg)
{
	struct nova_gc_out *o = arg;

	return page == o->win_end ? NOVA_GC_WINDOW_END : 0;
}

/* Plan (o->write false) or write the copy of the window at @first. */
static int nova_gc_window_pass(struct nova_gc_out *o, u64 first)
{
	struct inode *inode = o->inode;
	struct nova_inode_info *ni = NOVA_I(inode);
	int err;

	if (o->write) {
		nova_log_begin(&o->lw, NOVA_SB(inode->i_sb), inode->i_ino,
			       &ni->log_lock, NULL, 0);
		o->lw.extend = nova_gc_out_extend;
		o->lw.arg = o;
	}
	err = nova_log_walk_raw(inode->i_sb, inode->i_ino, first, ni->log_tail,
				nova_gc_window_entry, nova_gc_window_page, o);
	if (err == NOVA_GC_WINDOW_END)
		return 0;
	return err ?: -EFSCORRUPTED;
}

/*
 * Where the DRAM pointer *@ptr names an entry of the window's old pages
 * @old[@k]: its copy, or 0 if it was dropped (each pointer either names
 * an entry the window keeps or is only a GC hint, see above).
 */
static void nova_gc_window_rehome(const struct nova_gc_out *o,
				  const u64 *old, unsigned int k, u64 *ptr)
{
	u64 page = nova_log_page_of(*ptr), to = 0;
	unsigned long i;

	if (!*ptr)
		return;
	for (i = 0; i < k && old[i] != page; i++)
		;
	if (i == k)
		return;
	/* A trimmed write entry's last piece: the newest. */
	for (i = 0; i < o->nr_moves; i++)
		if (o->moves[i].from == *ptr)
			to = o->moves[i].to;
	*ptr = to;
}

static void nova_gc_window_repoint(struct inode *inode,
				   const struct nova_gc_out *o,
				   const u64 *old, unsigned int k)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned long i;

	for (i = 0; i < o->nr_moves; i++)
		nova_gc_move_index(inode, o->moves[i].from, o->moves[i].to);
	nova_gc_window_rehome(o, old, k, &ni->last_append);
	nova_gc_window_rehome(o, old, k, &ni->last_setattr);
	nova_gc_window_rehome(o, old, k, &ni->last_link);
	nova_gc_window_rehome(o, old, k, &ni->last_size);
	nova_gc_window_rehome(o, old, k, &ni->last_range);
	nova_gc_window_rehome(o, old, k, &ni->last_write);
}

/* A windowed pass over one log, between its windows. */
struct nova_gc_windows {
	unsigned long skip;		/* log pages before the next window */
	unsigned long budget;		/* old pages it may still look at */
	unsigned long saved;		/* pages freed */
	unsigned long copied;		/* entries written */
};

/*
 * Find the next window of @inode's log: up to NOVA_GC_WINDOW_PAGES pages
 * after the first st->skip ones, before the page holding the committed
 * tail. Its pages go to @old; *@link is the page linking to the first (0:
 * i_log_head), *@after the page after the last. Returns the pages found.
 */
static unsigned int nova_gc_window_find(struct inode *inode,
					struct nova_gc_windows *st, u64 *old,
					u64 *link, u64 *after)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	u64 page = ni->log_head, stop = nova_log_page_of(ni->log_tail), next;
	unsigned long seen = 0;
	unsigned int k = 0;

	*link = 0;
	while (page != stop && seen < st->skip + NOVA_GC_WINDOW_PAGES &&
	       k < st->budget) {
		next = le64_to_cpu(READ_ONCE(nova_log_page_tail(sbi, page)->lt_next));
		/* ni->log_pages is exact (nova_gc_fast()). */
		if (++seen > ni->log_pages || !nova_gc_page_ok(sbi, next)) {
			nova_err(inode->i_sb, "inode %lu: log chain broken at %llu, not collecting it",
				 inode->i_ino, page);
			return 0;
		}
		if (seen > st->skip)
			old[k++] = page;
		else
			*link = page;
		page = next;
	}
	*after = page;
	return k;
}

/*
 * Compact the next window of @inode's log: copy what it keeps to new
 * pages linked to the page after it, durable, then one 8-byte commit of
 * the link to the window (as nova_gc_unlink()) swaps the copy in; a crash
 * finds the old run or the new one. Returns 1 if there may be more, 0 at
 * the end of the pass, or a negative errno. Caller holds i_rwsem, the
 * invalidate lock and the log lock.
 */
static int nova_gc_window(struct inode *inode, struct nova_gc_windows *st)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_gc_out plan = { .inode = inode };
	struct nova_gc_out o = { .inode = inode, .write = true };
	u64 old[NOVA_GC_WINDOW_PAGES], link, after, first, last, end;
	unsigned int k, i;
	int err;

	lockdep_assert_held(&inode->i_rwsem);
	lockdep_assert_held(&inode->i_mapping->invalidate_lock);
	lockdep_assert_held(&ni->log_lock);
	/* A snapshot view reads the log by offset (snapview.c). */
	if (!ni->log_head || !ni->log_tail || ni->view_pins || !inode->i_nlink)
		return 0;
	k = nova_gc_window_find(inode, st, old, &link, &after);
	if (!k)
		return 0;
	st->budget -= k;
	plan.win_end = after;
	err = nova_gc_window_pass(&plan, old[0]);
	if (err)
		return err;
	if (plan.nr_pages >= k) {
		/* Nothing to save here: on to the next window. */
		st->skip += k;
		return 1;
	}
	first = after;
	if (plan.nr_pages) {
		o.win_end = after;
		err = nova_gc_out_alloc(inode, &o, &plan);
		if (err)
			goto out;
		err = nova_gc_window_pass(&o, old[0]);
		if (err || WARN_ON_ONCE(o.nr_pages != o.max_pages)) {
			nova_gc_free_pages(sb, &o, o.max_pages);
			err = err ?: -EIO;
			goto out;
		}
		/* The rest of the last page unused, then on to @after. */
		last = o.pages[o.nr_pages - 1];
		end = nova_log_end(&o.lw);
		if (end < last + NOVA_LOG_DATA_SIZE)
			nova_log_pad(sbi, end);
		nova_gc_link_new(sbi, last, after);
		nova_pmem_fence();
		first = o.pages[0];
	}
	/* The commit: the run is swapped for its copy (nova_gc_unlink()). */
	if (link) {
		nova_log_link(sbi, link, first);
	} else {
		nova_pi_commit64(sbi, &nova_pi(inode)->i_log_head, first);
		ni->log_head = first;
	}
	nova_gc_window_repoint(inode, &o, old, k);
	for (i = 0; i < k; i++)
		nova_log_free_page(sb, old[i]);
	ni->log_pages -= k - o.nr_pages;
	st->skip += o.nr_pages;
	st->saved += k - o.nr_pages;
	st->copied += o.copied;
	if (sbi->gc) {
		atomic64_add(k - o.nr_pages, &sbi->gc->thorough_pages);
		atomic64_add(o.copied, &sbi->gc->entries_copied);
	}
	err = 1;
out:
	nova_gc_out_release(&o);
	return err;
}

/* Fast GC of @inode's log, counted; *@live as nova_gc_fast(). Log lock held. */
static unsigned long nova_gc_fast_counted(struct inode *inode,
					  unsigned long *live)
{
	unsigned long freed;

	freed = nova_gc_fast(inode, live);
	atomic64_add(freed, &NOVA_SB(inode->i_sb)->gc->fast_pages);
	return freed;
}

/*
 * The work item's thorough GC of regular file @inode: fast GC, then the
 * log compacted window by window, every lock (s_umount included) given up
 * between two windows, so that readers and writers of the file wait for
 * one window at most. The pass looks at no more pages than the log had
 * when it began. @umount_held: the caller holds s_umount (a request).
 */
static int nova_gc_windowed(struct inode *inode, bool umount_held)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	struct nova_gc_info *gc = NOVA_SB(sb)->gc;
	struct nova_gc_windows st = { };
	unsigned long start_pages = 0, live;
	bool first = true;
	int ret = 1;
	u64 t;

	while (ret > 0) {
		if (!umount_held && (READ_ONCE(gc->stopped) ||
				     !down_read_trylock(&sb->s_umount)))
			break;
		t = ktime_get_ns();
		if (!nova_gc_writable(sb)) {
			ret = 0;
		} else {
			inode_lock(inode);
			filemap_invalidate_lock(inode->i_mapping);
			mutex_lock(&ni->log_lock);
			if (first) {
				nova_gc_fast_counted(inode, &live);
				st.budget = start_pages = ni->log_pages;
				first = false;
			}
			ret = nova_gc_window(inode, &st);
			/* A pass that saved nothing: not before the log doubled. */
			if (ret <= 0 && start_pages)
				ni->gc_thorough_at = st.saved ? 0 : 2 * ni->log_pages;
			mutex_unlock(&ni->log_lock);
			filemap_invalidate_unlock(inode->i_mapping);
			inode_unlock(inode);
		}
		if (!umount_held)
			up_read(&sb->s_umount);
		atomic64_add(ktime_get_ns() - t, &gc->time_ns);
		cond_resched();
	}
	if (st.saved)
		atomic64_inc(&gc->thorough_runs);
	return ret < 0 ? ret : 0;
}

/*
 * After a windowed pass: would the live entries still fill less than half
 * of @inode's log? Windows keep what may cancel something in another page
 * (range entries above all, which nova_gc_fast()'s estimate counts as
 * cancels, not as live); only the whole-log pass drops those. Caller
 * holds s_umount (the file system is writable); takes the log lock.
 */
static bool nova_gc_windows_not_enough(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned long live;
	bool more;

	mutex_lock(&ni->log_lock);
	nova_gc_fast_counted(inode, &live);
	more = ni->log_pages >= NOVA_GC_THOROUGH_MIN_PAGES &&
	       live * 2 < ni->log_pages;
	mutex_unlock(&ni->log_lock);
	return more;
}

/*
 * Collect @inode's log: fast GC, then a thorough GC if it halves the log
 * (@force: if it saves any page). Takes the inode's locks.
 */
static int nova_gc_inode(struct inode *inode, bool force,
			 struct nova_gc_result *res)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_gc_info *gc = NOVA_SB(inode->i_sb)->gc;
	bool reg = S_ISREG(inode->i_mode);
	u64 start = ktime_get_ns();
	unsigned long before, freed, live;
	long copied;

	inode_lock(inode);
	if (reg)
		filemap_invalidate_lock(inode->i_mapping);
	mutex_lock(&ni->log_lock);
	before = ni->log_pages;
	freed = nova_gc_fast_counted(inode, &live);
	copied = inode->i_nlink ? nova_gc_thorough(inode, force) : 0;
	if (res) {
		res->inodes++;
		res->log_pages_before += before;
		res->log_pages_after += ni->log_pages;
		res->fast_pages += freed;
		if (copied > 0) {
			res->thorough_runs++;
			res->entries_copied += copied;
		}
	}
	mutex_unlock(&ni->log_lock);
	if (reg)
		filemap_invalidate_unlock(inode->i_mapping);
	inode_unlock(inode);
	atomic64_add(ktime_get_ns() - start, &gc->time_ns);
	return copied < 0 ? copied : 0;
}

static void nova_gc_work(struct work_struct *work)
{
	struct nova_gc_info *gc = container_of(work, struct nova_gc_info,
					       work);
	struct super_block *sb = gc->sb;
	struct inode *inode;
	unsigned long idx;
	bool windowed;
	int err;

	xa_for_each(&gc->queue, idx, inode) {
		/* Whoever erases the entry owns its reference. */
		if (xa_erase(&gc->queue, idx) != inode)
			continue;
		/*
		 * Unmount, remount and freezing hold s_umount while they wait
		 * for us: only try it, and skip the inode if it is taken.
		 */
		err = 0;
		windowed = nova_gc_work_windowed(inode);
		if (windowed) {
			/* It takes s_umount for each window. */
			err = nova_gc_windowed(inode, false);
		}
		if (!err && !READ_ONCE(gc->stopped) &&
		    down_read_trylock(&sb->s_umount)) {
			if (nova_gc_writable(sb) &&
			    (!windowed || (!nova_gc_windowed_requests() &&
					   nova_gc_windows_not_enough(inode))))
				err = nova_gc_inode(inode, false, NULL);
			up_read(&sb->s_umount);
		}
		if (err && err != -ENOSPC)
			nova_warn(sb, "inode %lu: thorough GC failed: %d",
				  inode->i_ino, err);
		iput(inode);
		cond_resched();
	}
}

/* ---- on request ---- */

/* Does the live inode @pi have a log of more than one page? */
static bool nova_gc_worth(struct nova_sb_info *sbi, struct nova_inode *pi)
{
	u64 head = le64_to_cpu(READ_ONCE(pi->i_log_head));

	if (le64_to_cpu(READ_ONCE(pi->i_valid)) != 1 ||
	    !nova_gc_page_ok(sbi, head))
		return false;
	return READ_ONCE(nova_log_page_tail(sbi, head)->lt_next);
}

static int nova_gc_one(struct super_block *sb, u64 ino,
		       struct nova_gc_result *res)
{
	struct inode *inode = nova_iget(sb, ino);
	int err;

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (nova_gc_windowed_requests() && S_ISREG(inode->i_mode)) {
		res->inodes++;
		res->log_pages_before += NOVA_I(inode)->log_pages;
		err = nova_gc_windowed(inode, true);
		res->log_pages_after += NOVA_I(inode)->log_pages;
	} else {
		err = nova_gc_inode(inode, true, res);
	}
	iput(inode);
	return err;
}

/* The root and every live inode with a multi-page log. */
static int nova_gc_all(struct super_block *sb, struct nova_gc_result *res)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int cpu, nr;
	int err, ret;
	u64 idx, ino;

	ret = nova_gc_one(sb, NOVA_ROOT_INO, res);
	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		/* Pairs with nova_extend_table(), as nova_get_pinode(). */
		nr = smp_load_acquire(&sbi->imaps[cpu].nr_blocks);
		for (idx = 0; idx < (u64)nr * NOVA_INODES_PER_TABLE; idx++) {
			struct nova_inode *pi;

			ino = nova_ino_make(sbi->cpus, cpu, idx);
			pi = nova_get_pinode(sb, ino);
			if (pi && nova_gc_worth(sbi, pi)) {
				/* Freed since we looked: ESTALE, not an error. */
				err = nova_gc_one(sb, ino, res);
				if (err && err != -ESTALE && !ret)
					ret = err;
			}
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return ret;
}

/*
 * Collect the log of inode @ino, or of every inode (@ino 0), now: fast GC
 * and a thorough GC wherever it saves a page. The caller holds an active
 * reference on @sb. *@res is filled in even on error (partial work).
 * Errors: -ENOENT no such inode, -EROFS read-only or a snapshot mount,
 * -EBUSY frozen, -EINTR killed, -ENOSPC, -ENOMEM, -EFSCORRUPTED.
 */
int nova_gc_request(struct super_block *sb, u64 ino,
		    struct nova_gc_result *res)
{
	u64 start = ktime_get_ns();
	int err;

	memset(res, 0, sizeof(*res));
	res->ino = ino;
	if (ino && ino != NOVA_ROOT_INO && ino < NOVA_FIRST_INO)
		return -ENOENT;
	down_read(&sb->s_umount);
	if (sb_rdonly(sb) || NOVA_SB(sb)->view_epoch != NOVA_EPOCH_LIVE)
		err = -EROFS;
	else if (nova_is_shutdown(sb))
		err = -EIO;
	else if (!nova_gc_writable(sb))
		err = -EBUSY;
	else if (ino)
		err = nova_gc_one(sb, ino, res);
	else
		err = nova_gc_all(sb, res);
	up_read(&sb->s_umount);
	if (err == -ESTALE)
		err = -ENOENT;
	res->time_ns = ktime_get_ns() - start;
	return err;
}

/* ---- life cycle and statistics ---- */

int nova_gc_init(struct super_block *sb)
{
	struct nova_gc_info *gc;

	gc = kzalloc(sizeof(*gc), GFP_KERNEL);
	if (!gc)
		return -ENOMEM;
	gc->sb = sb;
	INIT_WORK(&gc->work, nova_gc_work);
	xa_init(&gc->queue);
	NOVA_SB(sb)->gc = gc;
	return 0;
}

/*
 * Unmount: no more queueing; wait for the work item and drop the inodes
 * still queued, before the VFS evicts every inode. Idempotent.
 */
void nova_gc_stop(struct super_block *sb)
{
	struct nova_gc_info *gc = NOVA_SB(sb)->gc;
	struct inode *inode;
	unsigned long idx;

	if (!gc)
		return;
	xa_lock(&gc->queue);
	gc->stopped = true;
	xa_unlock(&gc->queue);
	flush_work(&gc->work);
	xa_for_each(&gc->queue, idx, inode)
		if (xa_erase(&gc->queue, idx) == inode)
			iput(inode);
}

void nova_gc_destroy(struct super_block *sb)
{
	struct nova_gc_info *gc = NOVA_SB(sb)->gc;

	if (!gc)
		return;
	cancel_work_sync(&gc->work);
	xa_destroy(&gc->queue);
	kfree(gc);
	NOVA_SB(sb)->gc = NULL;
}

void nova_gc_get_stats(struct super_block *sb, struct nova_fs_stats *st)
{
	struct nova_gc_info *gc = NOVA_SB(sb)->gc;

	if (!gc)
		return;
	st->gc_fast_pages = atomic64_read(&gc->fast_pages);
	st->gc_thorough_runs = atomic64_read(&gc->thorough_runs);
	st->gc_thorough_pages = atomic64_read(&gc->thorough_pages);
	st->gc_entries_copied = atomic64_read(&gc->entries_copied);
	st->gc_time_ns = atomic64_read(&gc->time_ns);
}

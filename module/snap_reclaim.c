// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: reclaiming what a deleted snapshot kept.
 *
 * nova_snapshot_delete() commits the delete record, hands every kept run
 * and removed inode that an older live snapshot still shows to that
 * snapshot, and queues the rest here (nova_snap_reclaim_queue()), all in
 * DRAM and under the snapshot table lock. The reclaim worker then frees
 * the queue in batches, without the table lock, so writers that must ask
 * the epoch check (nova_snapshot_keep()) do not wait for a big delete:
 * runs go back to the allocator, removed inodes have their logs replayed
 * from PMEM to find their pages, which are freed with the log pages and
 * the slot.
 *
 * Persistence: nothing here writes PMEM. The delete record is durable
 * before anything is queued, and crash recovery rebuilds the allocator
 * from the live inodes and the live snapshots only, so a crash with a
 * non-empty queue leaves those blocks free. A clean unmount or remount
 * read-only saves the allocator; nova_snapshot_reclaim_drain() empties the
 * queue first, so the saved state has them free too. No delete can queue
 * more meanwhile: it holds s_umount shared and refuses read-only mounts.
 *
 * Each delete takes a ticket; nova_snapshot_reclaim_wait() sleeps until
 * the worker has emptied the queue of everything queued up to that
 * ticket (NOVA_SNAPSHOT_A_WAIT, novactl snapshot delete --wait).
 *
 * Locking (nova.h): nova_snap_reclaimq.lock is a leaf spinlock, taken
 * under nova_snap_table.lock or alone.
 * The worker takes the queue lock only to detach a batch and to account
 * for it; it frees with no snapshot lock held (allocator and inode map
 * locks only, as any free does).
 */
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "nova.h"
#include "snapshot.h"

/* One batch of the worker: at most this many runs, or removed inodes. */
#define NOVA_SNAP_RECLAIM_RUNS		256
#define NOVA_SNAP_RECLAIM_INODES	16

#ifdef NOVA_TEST_HOOKS
/*
 * Test hook (test builds only, NOVA_TEST_HOOKS): while set, the worker leaves every
 * queue alone unless an unmount or remount read-only is draining it, so a
 * test can unmount with reclaim queued (tests/guest/snapshot-bgreclaim.sh).
 * Clearing it takes effect at the next delete or drain. A --wait delete
 * waits while it is set.
 */
static bool nova_snap_reclaim_hold;
module_param_named(snap_reclaim_hold, nova_snap_reclaim_hold, bool, 0600);
MODULE_PARM_DESC(snap_reclaim_hold, "test only: hold snapshot reclaim until unmount");

static bool nova_snap_reclaim_held(struct nova_snap_reclaimq *rq)
{
	return READ_ONCE(nova_snap_reclaim_hold) && !READ_ONCE(rq->draining);
}
#else
static bool nova_snap_reclaim_held(struct nova_snap_reclaimq *rq)
{
	return false;
}
#endif

/* What a removed inode's log references, gathered to free it. */
struct nova_snap_reclaim {
	struct xarray pages;		/* pgoff -> block, after the whole log */
	struct list_head log;		/* struct nova_snap_keep, one per page */
};

static int nova_snap_reclaim_entry(struct super_block *sb, u64 off,
				   void *entry, void *arg)
{
	struct nova_snap_reclaim *r = arg;
	struct nova_log_entry_header *h = entry;
	unsigned long idx;
	void *v;

	if (h->e_type == NOVA_LOG_FILE_WRITE &&
	    le16_to_cpu(h->e_size) == sizeof(struct nova_file_write_entry)) {
		struct nova_file_write_entry *fw = entry;
		u64 pgoff = le64_to_cpu(fw->fw_pgoff);
		u64 blk = le64_to_cpu(fw->fw_block);
		u32 i, n = le32_to_cpu(fw->fw_num_pages);

		if (!nova_block_ok(NOVA_SB(sb), blk, n))
			return -EFSCORRUPTED;
		for (i = 0; i < n; i++) {
			v = xa_store(&r->pages, pgoff + i, xa_mk_value(blk + i),
				     GFP_KERNEL);
			if (xa_is_err(v))
				return xa_err(v);
		}
	} else if (h->e_type == NOVA_LOG_SETATTR &&
		   le16_to_cpu(h->e_size) == sizeof(struct nova_setattr_entry)) {
		struct nova_setattr_entry *sa = entry;

		/* As nova_apply_setattr(): a size that grew drops nothing. */
		if ((le32_to_cpu(sa->sa_mask) &
		     (NOVA_ATTR_SIZE | NOVA_ATTR_GROW)) != NOVA_ATTR_SIZE)
			return 0;
		xa_for_each_start(&r->pages, idx, v,
				  DIV_ROUND_UP(le64_to_cpu(sa->sa_size),
					       PAGE_SIZE))
			xa_erase(&r->pages, idx);
	} else if (h->e_type == NOVA_LOG_RANGE &&
		   le16_to_cpu(h->e_size) == sizeof(struct nova_range_entry)) {
		struct nova_range_entry *rg = entry;
		u64 from, to;

		/* As nova_file_apply_range(). */
		if (!nova_range_entry_drop(rg, &from, &to))
			return -EFSCORRUPTED;
		if (to > from)
			xa_for_each_range(&r->pages, idx, v, from, to - 1)
				xa_erase(&r->pages, idx);
	}
	return 0;
}

static int nova_snap_reclaim_page(struct super_block *sb, u64 page, void *arg)
{
	struct nova_snap_reclaim *r = arg;

	return nova_snap_page_cb(sb, page, &r->log);
}

/*
 * Gather what removed inode @ki holds into @r (initialised here; release
 * with nova_snap_reclaim_put()): the data blocks its log maps at its end
 * and its log pages. Only reads PMEM. A slot that does not match the
 * record is -EFSCORRUPTED.
 */
static int nova_snap_reclaim_get(struct super_block *sb,
				 struct nova_snap_inode *ki,
				 struct nova_snap_reclaim *r)
{
	struct nova_inode *pi = nova_get_pinode(sb, ki->ino);
	u64 head;

	xa_init(&r->pages);
	INIT_LIST_HEAD(&r->log);
	if (!pi || le64_to_cpu(READ_ONCE(pi->i_valid)) ||
	    le64_to_cpu(pi->i_ino) != ki->ino ||
	    le32_to_cpu(pi->i_generation) != ki->gen)
		return -EFSCORRUPTED;
	head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	if (!head)
		return 0;
	return nova_log_walk_raw(sb, ki->ino, head,
				 le64_to_cpu(READ_ONCE(pi->i_log_tail)),
				 nova_snap_reclaim_entry,
				 nova_snap_reclaim_page, r);
}

static void nova_snap_reclaim_put(struct nova_snap_reclaim *r)
{
	struct nova_snap_keep *k, *tmp;

	xa_destroy(&r->pages);
	list_for_each_entry_safe(k, tmp, &r->log, list) {
		list_del(&k->list);
		kfree(k);
	}
}

/* A block symlink's target block, or 0. */
static u64 nova_snap_symlink_block(struct nova_inode *pi)
{
	if (S_ISLNK(le16_to_cpu(pi->i_mode)) &&
	    (le32_to_cpu(pi->i_flags) & NOVA_INODE_BLOCK_SYMLINK))
		return le64_to_cpu(*(__le64 *)pi->i_inline);
	return 0;
}

/*
 * The data pages removed inode @ino (generation @gen) maps at the end of
 * its log, into @pages (pgoff -> xa_mk_value(block); the caller
 * initialises and destroys it). For the scrub, under the table lock
 * (nova_snapshot_with_kept_inode()). -EFSCORRUPTED if the slot does not
 * match or the log cannot be read.
 */
int nova_snap_inode_pages(struct super_block *sb, u64 ino, u32 gen,
			  struct xarray *pages)
{
	struct nova_snap_inode ki = { .ino = ino, .gen = gen };
	struct nova_snap_reclaim r;
	unsigned long idx;
	void *v;
	int err;

	err = nova_snap_reclaim_get(sb, &ki, &r);
	xa_for_each(&r.pages, idx, v) {
		if (err)
			break;
		err = xa_err(xa_store(pages, idx, v, GFP_KERNEL));
	}
	nova_snap_reclaim_put(&r);
	return err;
}

/*
 * Blocks reclaiming removed inode @ki would free (data, log, symlink
 * target), counted once by replaying its log and then cached: a kept
 * inode's log and pages do not change. Table lock held. An unreadable
 * log counts 0 (its reclaim reports the error).
 */
unsigned long nova_snap_inode_blocks(struct super_block *sb,
				     struct nova_snap_inode *ki)
{
	struct nova_snap_reclaim r;
	struct nova_snap_keep *k;
	unsigned long idx, n = 0;
	void *v;

	if (ki->counted)
		return ki->blocks;
	if (!nova_snap_reclaim_get(sb, ki, &r)) {
		xa_for_each(&r.pages, idx, v)
			n++;
		/* A log page and its mirror (1.4) are freed together. */
		list_for_each_entry(k, &r.log, list)
			n += nova_log_mirror(NOVA_SB(sb), (u64)k->blk <<
					     NOVA_BLOCK_SHIFT) ? 2 : 1;
		if (nova_snap_symlink_block(nova_get_pinode(sb, ki->ino)))
			n++;
	}
	nova_snap_reclaim_put(&r);
	ki->blocks = n;
	ki->counted = true;
	return n;
}

/*
 * Free a removed inode no live snapshot shows any more: the data blocks
 * its log maps at its end, its log pages, a block symlink's target, its
 * slot. Returns the blocks freed. Only DRAM allocator state changes:
 * after a crash, recovery does not claim what no live snapshot keeps. A
 * slot that does not match the record is left alone (its blocks stay
 * allocated: fsck finds them).
 */
static unsigned long nova_snap_reclaim_inode(struct super_block *sb,
					     struct nova_snap_inode *ki)
{
	struct nova_snap_reclaim r;
	struct nova_snap_keep *k;
	unsigned long idx, n = 0;
	u64 link;
	void *v;
	int err;

	err = nova_snap_reclaim_get(sb, ki, &r);
	if (err) {
		nova_err(sb, "snapshot: cannot reclaim removed inode %llu (%d); its blocks stay allocated",
			 ki->ino, err);
		goto out;
	}
	xa_for_each(&r.pages, idx, v) {
		nova_free_blocks(sb, xa_to_value(v), 1, NOVA_BLOCK_DATA);
		n++;
	}
	list_for_each_entry(k, &r.log, list) {
		u64 page = (u64)k->blk << NOVA_BLOCK_SHIFT;

		/* The page and its mirror (1.4). */
		n += nova_log_mirror(NOVA_SB(sb), page) ? 2 : 1;
		nova_log_free_page(sb, page);
	}
	link = nova_snap_symlink_block(nova_get_pinode(sb, ki->ino));
	if (link) {
		nova_free_blocks(sb, link, 1, NOVA_BLOCK_DATA);
		n++;
	}
	nova_free_ino(sb, ki->ino);
out:
	nova_snap_reclaim_put(&r);
	return n;
}

/* Move at most @max entries from the head of @from to @to; returns how many. */
static unsigned int nova_snap_take(struct list_head *from,
				   struct list_head *to, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && !list_empty(from)) {
		list_move_tail(from->next, to);
		n++;
	}
	return n;
}

/* Free one detached batch of runs and removed inodes; returns the blocks freed. */
static u64 nova_snap_reclaim_batch(struct super_block *sb,
				   struct list_head *runs,
				   struct list_head *inodes)
{
	struct nova_snap_keep *k, *ktmp;
	struct nova_snap_inode *ki, *itmp;
	u64 freed = 0;

	list_for_each_entry_safe(k, ktmp, runs, list) {
		list_del(&k->list);
		nova_free_blocks(sb, k->blk, k->count, NOVA_BLOCK_DATA);
		freed += k->count;
		kfree(k);
	}
	list_for_each_entry_safe(ki, itmp, inodes, list) {
		list_del(&ki->list);
		freed += nova_snap_reclaim_inode(sb, ki);
		kfree(ki);
	}
	return freed;
}

/*
 * The worker: detach a batch under the queue lock, free it without, and
 * account for it; once the queue is empty, every ticket handed out so far
 * is done.
 */
static void nova_snap_reclaim_work(struct work_struct *work)
{
	struct nova_snap_reclaimq *rq =
		container_of(work, struct nova_snap_reclaimq, work);
	struct nova_snap_keep *k;
	LIST_HEAD(runs);
	LIST_HEAD(inodes);
	unsigned long blocks;
	unsigned int nr;
	u64 freed;

	if (nova_snap_reclaim_held(rq))
		return;
	for (;;) {
		/*
		 * Shut down: nothing is freed any more; the next mount's
		 * recovery frees what no live snapshot keeps. Waiters go.
		 */
		if (nova_is_shutdown(rq->sb)) {
			spin_lock(&rq->lock);
			rq->done = rq->queued;
			spin_unlock(&rq->lock);
			wake_up_all(&rq->wait);
			return;
		}
		spin_lock(&rq->lock);
		if (list_empty(&rq->runs) && list_empty(&rq->inodes)) {
			rq->done = rq->queued;
			spin_unlock(&rq->lock);
			wake_up_all(&rq->wait);
			return;
		}
		nova_snap_take(&rq->runs, &runs, NOVA_SNAP_RECLAIM_RUNS);
		nr = nova_snap_take(&rq->inodes, &inodes,
				    NOVA_SNAP_RECLAIM_INODES);
		spin_unlock(&rq->lock);

		blocks = 0;
		list_for_each_entry(k, &runs, list)
			blocks += k->count;
		freed = nova_snap_reclaim_batch(rq->sb, &runs, &inodes);

		spin_lock(&rq->lock);
		rq->blocks -= blocks;
		rq->nr_inodes -= nr;
		rq->reclaimed += freed;
		spin_unlock(&rq->lock);
		cond_resched();
	}
}

void nova_snap_reclaim_init(struct super_block *sb,
			    struct nova_snap_reclaimq *rq)
{
	spin_lock_init(&rq->lock);
	INIT_LIST_HEAD(&rq->runs);
	INIT_LIST_HEAD(&rq->inodes);
	init_waitqueue_head(&rq->wait);
	INIT_WORK(&rq->work, nova_snap_reclaim_work);
	rq->sb = sb;
}

/*
 * Queue what a delete frees: the runs on @runs (@blocks blocks) and the
 * removed inodes on @inodes (@nr_inodes), both emptied, and start the
 * worker. Returns the delete's ticket. Snapshot table lock held, after
 * the delete record is durable.
 */
u64 nova_snap_reclaim_queue(struct nova_snap_reclaimq *rq,
			    struct list_head *runs, unsigned long blocks,
			    struct list_head *inodes, unsigned long nr_inodes)
{
	u64 ticket;

	spin_lock(&rq->lock);
	list_splice_tail_init(runs, &rq->runs);
	list_splice_tail_init(inodes, &rq->inodes);
	rq->blocks += blocks;
	rq->nr_inodes += nr_inodes;
	ticket = ++rq->queued;
	spin_unlock(&rq->lock);
	queue_work(system_unbound_wq, &rq->work);
	return ticket;
}

/*
 * Sleep until everything queued up to @ticket is free. Returns 0, or
 * -EINTR if the caller was killed meanwhile (the reclaim goes on).
 */
int nova_snapshot_reclaim_wait(struct super_block *sb, u64 ticket)
{
	struct nova_snap_reclaimq *rq = &NOVA_SB(sb)->snaps->rq;

	return wait_event_killable(rq->wait,
				   READ_ONCE(rq->done) >= ticket) ? -EINTR : 0;
}

/*
 * Unmount and remount read-only, before the allocator is saved: run the
 * worker until the queue is empty. The caller holds s_umount exclusively,
 * so no delete queues more meanwhile. Queueing again covers a worker that
 * stopped early (the test hold); flush_work() waits for the last queued
 * instance.
 */
void nova_snapshot_reclaim_drain(struct super_block *sb)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;

	lockdep_assert_held_write(&sb->s_umount);
	if (!t)
		return;
	WRITE_ONCE(t->rq.draining, true);
	queue_work(system_unbound_wq, &t->rq.work);
	flush_work(&t->rq.work);
	WRITE_ONCE(t->rq.draining, false);
}

/* Pending and reclaimed counts for the statistics. */
void nova_snapshot_reclaim_stats(struct super_block *sb,
				 struct nova_fs_stats *st)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;

	if (!t)
		return;
	spin_lock(&t->rq.lock);
	st->snap_reclaim_blocks = t->rq.blocks;
	st->snap_reclaim_inodes = t->rq.nr_inodes;
	st->snap_reclaimed = t->rq.reclaimed;
	spin_unlock(&t->rq.lock);
}

/*
 * Teardown (the allocator is going too): stop the worker and drop what is
 * still queued, which only a failed unmount save can leave behind.
 */
void nova_snap_reclaim_destroy(struct nova_snap_reclaimq *rq)
{
	struct nova_snap_keep *k, *ktmp;
	struct nova_snap_inode *ki, *itmp;

	/* No worker runs after this, and no delete can queue any more. */
	cancel_work_sync(&rq->work);
	list_for_each_entry_safe(k, ktmp, &rq->runs, list) {
		list_del(&k->list);
		kfree(k);
	}
	list_for_each_entry_safe(ki, itmp, &rq->inodes, list) {
		list_del(&ki->list);
		kfree(ki);
	}
}

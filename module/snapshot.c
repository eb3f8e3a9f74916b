// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: epoch-based snapshots.
 *
 * Every log entry carries the epoch it was written in (e_epoch_id, set by
 * nova_entry_header() from nova_sb_info.epoch_id). Taking a snapshot
 * records the current epoch E in the log of NOVA_SNAPSHOT_INO and moves the
 * file system to epoch E + 1; the snapshot then shows exactly the entries
 * whose epoch is at most E (a mount with -o snapshot=ID replays the logs
 * that way, see nova_snapshot_hides()).
 *
 * For that view to stay intact, data blocks written in an epoch a live
 * snapshot covers are not freed when the live file system stops using them
 * (overwrite, truncate, unlink): nova_snapshot_keep() records them durably
 * in the snapshot log (NOVA_LOG_SNAPSHOT_KEEP) and in the DRAM list of the
 * newest snapshot that needs them. Deleting a snapshot hands each of its
 * blocks to the next older snapshot that still needs it, or queues it for
 * the reclaim worker (snap_reclaim.c), which frees it without the table
 * lock (docs/snapshots.md, "Deleting"). At mount
 * the lists are rebuilt from the snapshot log (nova_snapshot_load()), and
 * crash recovery claims the blocks they hold (nova_snapshot_claim()).
 *
 * Log garbage collection asks nova_snapshot_entry_reclaimable() before it
 * drops an entry.
 *
 * Locking (nova.h): s_umount (shared: delete; exclusive: freeze_super(),
 * remount), sb_writers, log_lock, nova_snap_table.lock, and under the
 * table lock the reclaim queue's spinlock or sb_mutex (the epoch in the
 * superblock). nova_snapshot_keep() runs under the log_lock of the file it frees from.
 * The scrub reads and repairs what only snapshots hold under the table lock
 * (nova_snapshot_visit_runs(), nova_snapshot_with_kept_inode()), taking no
 * other lock inside it.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nova.h"
#include "pmem.h"
#include "snapshot.h"

static struct nova_inode *nova_snap_pi(struct nova_sb_info *sbi)
{
	return nova_block(sbi, NOVA_RESERVED_INODE_BLOCK) +
	       NOVA_SNAPSHOT_INO * NOVA_INODE_SIZE;
}

static struct nova_snapshot *nova_snap_find(struct nova_snap_table *t, u64 id)
{
	struct nova_snapshot *s;

	list_for_each_entry(s, &t->live, list)
		if (s->id == id)
			return s;
	return NULL;
}

static struct nova_snapshot *nova_snap_find_name(struct nova_snap_table *t,
						 const char *name)
{
	struct nova_snapshot *s;

	list_for_each_entry(s, &t->live, list)
		if (s->name[0] && !strcmp(s->name, name))
			return s;
	return NULL;
}

/* Newest live snapshot that shows blocks written in @born, dead in @dead. */
static struct nova_snapshot *nova_snap_owner(struct nova_snap_table *t,
					     u64 born, u64 dead)
{
	struct nova_snapshot *s;

	list_for_each_entry_reverse(s, &t->live, list) {
		if (s->epoch < born)
			return NULL;
		if (s->epoch < dead)
			return s;
	}
	return NULL;
}

static struct nova_snapshot *nova_snap_alloc(u64 id, u64 epoch,
					     const struct timespec64 *ctime,
					     const char *name)
{
	struct nova_snapshot *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->id = id;
	s->epoch = epoch;
	s->ctime = *ctime;
	strscpy(s->name, name, sizeof(s->name));
	INIT_LIST_HEAD(&s->keep);
	return s;
}

/* Insert keeping the list sorted by epoch (ids grow with epochs). */
static void nova_snap_insert(struct nova_snap_table *t, struct nova_snapshot *n)
{
	struct nova_snapshot *s;

	list_for_each_entry_reverse(s, &t->live, list) {
		if (s->epoch <= n->epoch) {
			list_add(&n->list, &s->list);
			goto out;
		}
	}
	list_add(&n->list, &t->live);
out:
	t->nr++;
	t->gen++;
}

static void nova_snap_free(struct nova_snapshot *s)
{
	struct nova_snap_keep *k, *tmp;

	list_for_each_entry_safe(k, tmp, &s->keep, list) {
		list_del(&k->list);
		kfree(k);
	}
	kfree(s);
}

/* Copy what userspace sees of @s to @info (no exclusive count). */
static void nova_snap_info(const struct nova_snapshot *s,
			   struct nova_snapshot_info *info)
{
	info->id = s->id;
	info->epoch = s->epoch;
	info->ctime = s->ctime;
	strscpy(info->name, s->name, sizeof(info->name));
	info->excl_blocks = U64_MAX;
}

/* ---- the snapshot log ---- */

/* Fill the record of snapshot @s (header with @trans, not sealed). */
static void nova_snap_record(struct nova_sb_info *sbi,
			     struct nova_snapshot_entry *sn,
			     const struct nova_snapshot *s, u64 trans)
{
	memset(sn, 0, sizeof(*sn));
	nova_entry_header(sbi, sn, NOVA_LOG_SNAPSHOT, sizeof(*sn), trans);
	sn->sn_id = cpu_to_le64(s->id);
	sn->sn_epoch = cpu_to_le64(s->epoch);
	nova_ts_to_media(&sn->sn_ctime, &s->ctime);
	strscpy(sn->sn_name, s->name, sizeof(sn->sn_name));
}

/* Fill the delete record of snapshot @s (header filled, not sealed). */
static void nova_snap_del_record(struct nova_sb_info *sbi,
				 struct nova_snapshot_del_entry *sd,
				 const struct nova_snapshot *s)
{
	memset(sd, 0, sizeof(*sd));
	nova_entry_header(sbi, sd, NOVA_LOG_SNAPSHOT_DEL, sizeof(*sd),
			  nova_next_trans(sbi));
	sd->sd_id = cpu_to_le64(s->id);
	sd->sd_epoch = cpu_to_le64(s->epoch);
}

/*
 * Start writing the snapshot log after its committed tail (its head if it
 * has no tail yet; with no page, the writer makes the first one and
 * attaches it to the head slot). The log grows by one page at a time
 * (nova_log_grow_page()): it holds a few records per snapshot operation.
 * Table lock held (nobody else writes past the tail meanwhile).
 */
static void nova_snap_begin(struct super_block *sb,
			    struct nova_log_writer *lw)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_inode *pi = nova_snap_pi(sbi);

	nova_log_begin(lw, sbi, NOVA_SNAPSHOT_INO, &t->lock, &pi->i_log_head,
		       t->tail ?: le64_to_cpu(pi->i_log_head));
}

/*
 * Append @entry (header filled, not sealed) to the snapshot log and
 * commit it: the entry is durable and visible on return. Table lock held.
 *
 * Like every log's, the page tail hints are not written back. Before the
 * one writer, this log flushed them; nothing needs that: the only reader
 * of a snapshot log page's hints is nova_snap_compact(), which skips a
 * one-page log of at most two entries (a stale count only decides
 * whether a one-page log is rewritten as one page). snap_reclaim.c,
 * recovery, the scrub and fsck.NOVA do not read them.
 */
static int nova_snap_append(struct super_block *sb, void *entry)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_log_writer lw;
	int err;

	nova_snap_begin(sb, &lw);
	err = nova_log_put(&lw, entry);
	if (err)
		return err;
	/* Entry durable (fence inside), then the tail that publishes it. */
	nova_pi_commit64(sbi, &nova_snap_pi(sbi)->i_log_tail,
			 nova_log_end(&lw));
	sbi->snaps->tail = nova_log_end(&lw);
	return 0;
}

/* Log walk page callback: note page @page on the list of runs @arg. */
int nova_snap_page_cb(struct super_block *sb, u64 page, void *arg)
{
	struct list_head *pages = arg;
	struct nova_snap_keep *k = kmalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return -ENOMEM;
	k->blk = page >> NOVA_BLOCK_SHIFT;
	list_add_tail(&k->list, pages);
	return 0;
}

/*
 * With no live snapshot left, every record in the log is history except
 * the newest id and epoch, which must survive (ids are never reused, the
 * epoch never goes back). Replace the log by one page holding the last
 * snapshot record and its delete record: the page is written and made
 * durable, then head and tail switch to it in one journal transaction,
 * then the old pages are freed. A crash before the switch keeps the old
 * log, after it the new one; both load to the same state. @last is the
 * snapshot just deleted. Table lock held. Failure only costs space.
 */
static void nova_snap_compact(struct super_block *sb, struct nova_snapshot *last)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_inode *pi = nova_snap_pi(sbi);
	struct nova_snapshot_entry sn;
	struct nova_snapshot_del_entry sd;
	struct nova_log_page_tail *lt;
	struct nova_log_writer lw;
	struct nova_snap_keep *k, *tmp;
	struct nova_jword w[2];
	LIST_HEAD(old);
	u64 page, head = le64_to_cpu(pi->i_log_head);
	int err;

	lockdep_assert_held(&t->lock);
	if (!head)
		return;
	/* One page is as small as the log gets: nothing to gain. */
	lt = nova_log_page_tail(sbi, head);
	if (!lt->lt_next && le32_to_cpu(lt->lt_entries) <= 2)
		return;
	err = nova_log_walk_raw(sb, NOVA_SNAPSHOT_INO, head, t->tail, NULL,
				nova_snap_page_cb, &old);
	if (!err)
		err = nova_log_new_page(sb, NOVA_SNAPSHOT_INO, &page);
	if (err)
		goto out;

	/*
	 * The new log: its one page (and mirror), which nothing reaches
	 * until the switch, holds both records.
	 */
	BUILD_BUG_ON(sizeof(sn) + sizeof(sd) > NOVA_LOG_DATA_SIZE);
	nova_log_begin(&lw, sbi, NOVA_SNAPSHOT_INO, &t->lock, NULL, page);
	nova_snap_record(sbi, &sn, last, nova_next_trans(sbi));
	nova_snap_del_record(sbi, &sd, last);
	err = nova_log_put(&lw, &sn) ?: nova_log_put(&lw, &sd);
	if (err) {
		nova_log_free_page(sb, page);
		goto out;
	}
	/* The new log is durable (the journal fences first); switch to it. */
	w[0].word = &pi->i_log_head;
	w[0].val = page;
	w[1].word = &pi->i_log_tail;
	w[1].val = nova_log_end(&lw);
	nova_journal_commit(sb, w, 2);
	t->tail = w[1].val;
	list_for_each_entry(k, &old, list)
		nova_log_free_page(sb, (u64)k->blk << NOVA_BLOCK_SHIFT);
out:
	if (err)
		nova_warn(sb, "cannot compact the snapshot log: %d", err);
	list_for_each_entry_safe(k, tmp, &old, list) {
		list_del(&k->list);
		kfree(k);
	}
}

/* ---- mount ---- */

static struct nova_snap_inode *nova_snap_find_inode(struct nova_snap_table *t,
						    u64 ino)
{
	struct nova_snap_inode *ki;

	list_for_each_entry(ki, &t->inodes, list)
		if (ki->ino == ino)
			return ki;
	return NULL;
}

/*
 * A removed inode: kept if a live snapshot shows it. A later record for
 * the same inode replaces an earlier one (whose removal may not have
 * committed, see nova_snapshot_keep_inode()).
 */
static int nova_snap_load_inode(struct nova_snap_table *t,
				struct nova_snapshot_inode_entry *si)
{
	u64 born = le64_to_cpu(si->si_born), dead = le64_to_cpu(si->si_dead);
	struct nova_snapshot *s = nova_snap_owner(t, born, dead);
	struct nova_snap_inode *ki;

	if (!s)
		return 0;	/* history: reclaimed when its owner went */
	ki = nova_snap_find_inode(t, le64_to_cpu(si->si_ino));
	if (!ki) {
		ki = kzalloc(sizeof(*ki), GFP_KERNEL);
		if (!ki)
			return -ENOMEM;
		list_add_tail(&ki->list, &t->inodes);
	}
	ki->ino = le64_to_cpu(si->si_ino);
	ki->gen = le32_to_cpu(si->si_generation);
	ki->born = born;
	ki->dead = dead;
	ki->owner = s;
	ki->counted = false;
	return 0;
}

static int nova_snap_load_entry(struct super_block *sb, u64 off, void *entry,
				void *arg)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_log_entry_header *h = entry;
	unsigned int size = le16_to_cpu(h->e_size);
	struct nova_snapshot *s;

	t->max_trans = max(t->max_trans, le64_to_cpu(h->e_trans_id));
	switch (h->e_type) {
	case NOVA_LOG_SNAPSHOT: {
		struct nova_snapshot_entry *sn = entry;
		struct timespec64 ts;
		u64 id = le64_to_cpu(sn->sn_id);

		if (size != sizeof(*sn) || !id || id < t->next_id ||
		    sn->sn_name[NOVA_SNAPSHOT_NAME_LEN - 1] ||
		    t->nr >= NOVA_MAX_SNAPSHOTS)
			break;
		ts = nova_ts_from_media(&sn->sn_ctime);
		s = nova_snap_alloc(id, le64_to_cpu(sn->sn_epoch), &ts,
				    sn->sn_name);
		if (!s)
			return -ENOMEM;
		s->trans = le64_to_cpu(sn->hdr.e_trans_id);
		nova_snap_insert(t, s);
		t->next_id = id + 1;
		if (!t->any_epoch || s->epoch > t->max_epoch)
			t->max_epoch = s->epoch;
		t->any_epoch = true;
		return 0;
	}
	case NOVA_LOG_SNAPSHOT_DEL: {
		struct nova_snapshot_del_entry *sd = entry;

		if (size != sizeof(*sd))
			break;
		s = nova_snap_find(t, le64_to_cpu(sd->sd_id));
		if (!s)
			break;
		list_del(&s->list);
		t->nr--;
		nova_snap_free(s);
		return 0;
	}
	case NOVA_LOG_SNAPSHOT_KEEP: {
		struct nova_snapshot_keep_entry *sk = entry;
		struct nova_snap_keep *k;
		u64 blk = le64_to_cpu(sk->sk_block);
		u32 n = le32_to_cpu(sk->sk_count);

		if (size != sizeof(*sk) || !n ||
		    !nova_block_ok(NOVA_SB(sb), blk, n))
			break;
		/* Deletes come later in the log: attach now, sort out below. */
		s = nova_snap_owner(t, le64_to_cpu(sk->sk_born),
				    le64_to_cpu(sk->sk_dead));
		if (!s)
			return 0;	/* history: freed when its owner went */
		k = kmalloc(sizeof(*k), GFP_KERNEL);
		if (!k)
			return -ENOMEM;
		k->blk = blk;
		k->count = n;
		k->born = le64_to_cpu(sk->sk_born);
		k->dead = le64_to_cpu(sk->sk_dead);
		list_add_tail(&k->list, &s->keep);
		s->kept += n;
		return 0;
	}
	case NOVA_LOG_SNAPSHOT_INODE:
		if (size != sizeof(struct nova_snapshot_inode_entry))
			break;
		return nova_snap_load_inode(t, entry);
	}
	nova_err(sb, "snapshot log: bad entry (type %u) at %llu", h->e_type,
		 off);
	return -EFSCORRUPTED;
}

/*
 * The log is read twice: first the snapshot and delete records, which give
 * the set of live snapshots, then the keep records, each attached to the
 * newest live snapshot that needs it. A record that no live snapshot needs
 * is history: its blocks were freed when the last snapshot needing them
 * was deleted (or, after a crash, recovery never claimed them).
 */
static int nova_snap_load_keep(struct super_block *sb, u64 off, void *entry,
			       void *arg)
{
	struct nova_log_entry_header *h = entry;

	if (h->e_type != NOVA_LOG_SNAPSHOT_KEEP &&
	    h->e_type != NOVA_LOG_SNAPSHOT_INODE)
		return 0;
	return nova_snap_load_entry(sb, off, entry, arg);
}

static int nova_snap_load_table(struct super_block *sb, u64 off, void *entry,
				void *arg)
{
	struct nova_log_entry_header *h = entry;

	if (h->e_type == NOVA_LOG_SNAPSHOT_KEEP) {
		/* Only checked here; attached in the second pass. */
		if (le16_to_cpu(h->e_size) !=
		    sizeof(struct nova_snapshot_keep_entry))
			return nova_snap_load_entry(sb, off, entry, arg);
		return 0;
	}
	if (h->e_type == NOVA_LOG_SNAPSHOT_INODE) {
		if (le16_to_cpu(h->e_size) !=
		    sizeof(struct nova_snapshot_inode_entry))
			return nova_snap_load_entry(sb, off, entry, arg);
		return 0;
	}
	return nova_snap_load_entry(sb, off, entry, arg);
}

static void nova_snap_destroy_table(struct nova_snap_table *t)
{
	struct nova_snapshot *s, *tmp;
	struct nova_snap_inode *ki, *ktmp;

	nova_snap_reclaim_destroy(&t->rq);
	list_for_each_entry_safe(ki, ktmp, &t->inodes, list) {
		list_del(&ki->list);
		kfree(ki);
	}
	list_for_each_entry_safe(s, tmp, &t->live, list) {
		list_del(&s->list);
		nova_snap_free(s);
	}
	kfree(t);
}

/*
 * Read the snapshot log: the live snapshots and the blocks they keep, and
 * the current epoch. Only reads PMEM. Called once per mount, before crash
 * recovery (which claims the kept blocks) and before the root is read.
 */
int nova_snapshot_load(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_snap_pi(sbi);
	u64 head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	u64 tail = le64_to_cpu(READ_ONCE(pi->i_log_tail));
	struct nova_snap_table *t;
	int err = 0;

	BUILD_BUG_ON(sizeof(struct nova_snapshot_inode_entry) != 56);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	mutex_init(&t->lock);
	INIT_LIST_HEAD(&t->live);
	INIT_LIST_HEAD(&t->inodes);
	nova_snap_reclaim_init(sb, &t->rq);
	t->next_id = 1;
	t->gen = 1;
	sbi->snaps = t;
	sbi->view_epoch = NOVA_EPOCH_LIVE;

	if (le64_to_cpu(READ_ONCE(pi->i_valid)) != 1) {
		nova_err(sb, "snapshot inode is not in use");
		err = -EFSCORRUPTED;
	} else if (head) {
		err = nova_log_walk_raw(sb, NOVA_SNAPSHOT_INO, head, tail,
					nova_snap_load_table, NULL, NULL);
		if (!err)
			err = nova_log_walk_raw(sb, NOVA_SNAPSHOT_INO, head,
						tail, nova_snap_load_keep, NULL,
						NULL);
	} else if (tail) {
		nova_err(sb, "snapshot log has a tail but no head");
		err = -EFSCORRUPTED;
	}
	if (err) {
		sbi->snaps = NULL;
		nova_snap_destroy_table(t);
		return err;
	}
	t->tail = tail;
	/* The log is written before the superblock: it may be ahead. */
	if (t->any_epoch && t->max_epoch >= sbi->epoch_id)
		sbi->epoch_id = t->max_epoch + 1;
	return 0;
}

void nova_snapshot_destroy(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (sbi->snaps)
		nova_snap_destroy_table(sbi->snaps);
	sbi->snaps = NULL;
}

/*
 * Crash recovery: the blocks live snapshots keep are referenced by no live
 * inode, so the scan did not claim them. @used has one bit per block.
 */
int nova_snapshot_claim(struct super_block *sb, unsigned long *used,
			u64 *data_pages)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;
	struct nova_snap_keep *k;
	unsigned long i;

	list_for_each_entry(s, &t->live, list) {
		list_for_each_entry(k, &s->keep, list) {
			for (i = 0; i < k->count; i++) {
				if (test_and_set_bit(k->blk + i, used)) {
					nova_err(sb, "recovery: block %lu kept by snapshot %llu is also in use",
						 k->blk + i, s->id);
					return -EFSCORRUPTED;
				}
			}
			*data_pages += k->count;
		}
	}
	return 0;
}

/*
 * Select the snapshot a mount shows (-o snapshot=ID, or by @name if @id
 * is 0). Every entry written after its epoch is then hidden from the log
 * replay.
 */
int nova_snapshot_select(struct super_block *sb, struct fs_context *fc,
			 u64 id, const char *name)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snapshot *s = id ? nova_snap_find(sbi->snaps, id) :
				  nova_snap_find_name(sbi->snaps, name);

	if (!s) {
		if (id)
			errorfc(fc, "%s: no snapshot %llu", sb->s_id, id);
		else
			errorfc(fc, "%s: no snapshot named %s", sb->s_id, name);
		return -ENOENT;
	}
	sbi->view_epoch = s->epoch;
	sbi->view_id = s->id;
	nova_info(sb, "showing snapshot %llu (epoch %llu), read-only", s->id,
		  s->epoch);
	return 0;
}

/* ---- runtime ---- */

unsigned int nova_snapshot_count(struct super_block *sb)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;

	return t ? READ_ONCE(t->nr) : 0;
}

static int nova_snap_name_ok(const char *name)
{
	size_t len = strlen(name);
	size_t i;

	if (!len)
		return 0;
	if (len >= NOVA_SNAPSHOT_NAME_LEN)
		return -ENAMETOOLONG;
	/* A name made of digits could not be told from an id. */
	for (i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			break;
	}
	if (i == len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (name[i] <= ' ' || name[i] == 0x7f || name[i] == '/')
			return -EINVAL;
	}
	return 0;
}

/*
 * Pages mapped writable through shared DAX mappings are now in a snapshot,
 * but user stores would change them in place. The freeze wrote back the
 * dirty DAX entries, which write-protects their pages already; do not
 * depend on that: unmap every shared writable mapping of the file
 * system's files while it is frozen (no fault can run), so the next store
 * faults and copies the page on write (dax.c). Mappings are unmapped
 * whole: this is rare and the cost is refaults. The inode
 * list walk follows drop_pagecache_sb(); the table lock is not held (an
 * iput() may evict).
 */
static void nova_snap_wrprotect(struct super_block *sb)
{
	struct inode *inode, *toput = NULL;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		spin_lock(&inode->i_lock);
		/*
		 * Unlinked files are skipped: no snapshot taken now shows
		 * them, and our iput() could be their last one, whose evict
		 * would wait for the thaw we are about to do (it takes
		 * sb_start_intwrite()). Nothing unlinks while frozen.
		 */
		if ((inode->i_state & (I_FREEING | I_WILL_FREE | I_NEW)) ||
		    !S_ISREG(inode->i_mode) || !inode->i_nlink ||
		    !mapping_writably_mapped(inode->i_mapping)) {
			spin_unlock(&inode->i_lock);
			continue;
		}
		__iget(inode);
		spin_unlock(&inode->i_lock);
		spin_unlock(&sb->s_inode_list_lock);

		unmap_mapping_range(inode->i_mapping, 0, 0, 0);
		iput(toput);
		toput = inode;

		cond_resched();
		spin_lock(&sb->s_inode_list_lock);
	}
	spin_unlock(&sb->s_inode_list_lock);
	iput(toput);
}

#ifdef NOVA_TEST_HOOKS
/*
 * Test hook (test builds only, NOVA_TEST_HOOKS): milliseconds a snapshot
 * waits, frozen, before it writes its record, so a test can race a
 * user's freeze with it (tests/guest/fs-freeze-evict.sh).
 */
static unsigned int nova_snap_freeze_hold_ms;
module_param_named(snapshot_freeze_hold_ms, nova_snap_freeze_hold_ms, uint,
		   0600);
MODULE_PARM_DESC(snapshot_freeze_hold_ms,
		 "test only: hold a snapshot's freeze this long before its record");

static void nova_snap_freeze_hold(void)
{
	unsigned int ms = READ_ONCE(nova_snap_freeze_hold_ms);

	if (ms)
		msleep(min(ms, 10000U));
}
#else
static void nova_snap_freeze_hold(void)
{
}
#endif

/*
 * Take a snapshot. The file system is frozen meanwhile, so no operation
 * straddles the epoch change: each one's entries are all before or all
 * after it. On success *@info describes the new snapshot.
 */
int nova_snapshot_create(struct super_block *sb, const char *name,
			 struct nova_snapshot_info *info)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snapshot_entry sn;
	struct nova_snapshot *s;
	struct timespec64 now;
	int err, ret;

	if (sb_rdonly(sb))
		return -EROFS;
	if (nova_is_shutdown(sb))
		return -EIO;
	err = nova_snap_name_ok(name);
	if (err)
		return err;
	mutex_lock(&sbi->freeze_mutex);
	sbi->snap_freezing = true;	/* nova_freeze_fs(): nothing to save */
	err = nova_freeze_super(sb);
	if (err) {
		sbi->snap_freezing = false;
		mutex_unlock(&sbi->freeze_mutex);
		return err;
	}

	nova_snap_freeze_hold();
	mutex_lock(&t->lock);
	if (t->nr >= NOVA_MAX_SNAPSHOTS) {
		err = -ENOSPC;
		goto out;
	}
	if (name[0] && nova_snap_find_name(t, name)) {
		err = -EEXIST;
		goto out;
	}
	ktime_get_real_ts64(&now);
	s = nova_snap_alloc(t->next_id, sbi->epoch_id, &now, name);
	if (!s) {
		err = -ENOMEM;
		goto out;
	}
	s->trans = nova_next_trans(sbi);
	nova_snap_record(sbi, &sn, s, s->trans);
	/* The record is durable and committed: the snapshot exists. */
	err = nova_snap_append(sb, &sn);
	if (err) {
		kfree(s);
		goto out;
	}
	nova_snap_insert(t, s);
	t->next_id++;
	t->max_epoch = s->epoch;
	t->any_epoch = true;
	/*
	 * New entries belong to the next epoch. The superblock copy is only
	 * a hint (nova_snapshot_load() derives the epoch from the log too).
	 */
	WRITE_ONCE(sbi->epoch_id, s->epoch + 1);
	mutex_lock(&sbi->sb_mutex);
	nova_write_super(sb, NOVA_STATE_DIRTY);
	mutex_unlock(&sbi->sb_mutex);

	nova_snap_info(s, info);
out:
	mutex_unlock(&t->lock);
	if (!err)
		nova_snap_wrprotect(sb);
	ret = nova_thaw_super(sb);
	sbi->snap_freezing = false;
	mutex_unlock(&sbi->freeze_mutex);
	if (ret)
		nova_warn(sb, "cannot thaw after taking a snapshot: %d", ret);
	return err;
}

/*
 * Find a live snapshot by id (@id != 0) or name; copies it to *@info.
 * Returns -ENOENT if there is none.
 */
int nova_snapshot_lookup(struct super_block *sb, u64 id, const char *name,
			 struct nova_snapshot_info *info)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;
	int err = -ENOENT;

	mutex_lock(&t->lock);
	s = id ? nova_snap_find(t, id) : nova_snap_find_name(t, name);
	if (s) {
		nova_snap_info(s, info);
		err = 0;
	}
	mutex_unlock(&t->lock);
	return err;
}

/* ---- removed inodes ---- */

/*
 * Snapshot @s is going: each removed inode it was the newest to show moves
 * to @older if that one shows it too, else onto @gone (for the reclaim
 * worker). Returns how many went onto @gone. Table lock held.
 */
static unsigned long nova_snap_pass_inodes(struct nova_snap_table *t,
					   struct nova_snapshot *s,
					   struct nova_snapshot *older,
					   struct list_head *gone)
{
	struct nova_snap_inode *ki, *tmp;
	unsigned long n = 0;

	list_for_each_entry_safe(ki, tmp, &t->inodes, list) {
		if (ki->owner != s)
			continue;
		if (older && older->epoch >= ki->born) {
			ki->owner = older;
			continue;
		}
		list_move_tail(&ki->list, gone);
		n++;
	}
	return n;
}

/*
 * The last link of @inode is about to go (unlink, rmdir, rename over it),
 * in an operation whose journal transaction stores i_valid = 0. If a live
 * snapshot shows the inode, commit a NOVA_LOG_SNAPSHOT_INODE record first,
 * so no crash can free what the snapshot reads; evict then keeps the
 * inode (nova_snapshot_evict_inode()). Should the operation not commit
 * after all, the record is void: the slot stays live (i_valid 1) with the
 * same generation, and nova_snapshot_mark_inodes() drops it at the next
 * mount. Caller holds the inode's log_lock.
 *
 * The inode exists in every snapshot taken after its creation: the
 * snapshot record's transaction id is larger than i_create_trans (a
 * snapshot is taken with the file system frozen). So its first epoch is
 * one past that of the newest live snapshot older than it, or 0.
 */
int nova_snapshot_keep_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_inode_info *ni = NOVA_I(inode);
	u64 created = le64_to_cpu(nova_pi(inode)->i_create_trans);
	struct nova_snapshot_inode_entry si;
	struct nova_snapshot *s;
	u64 born = 0, dead = READ_ONCE(sbi->epoch_id);
	int err = 0;

	lockdep_assert_held(&ni->log_lock);
	ni->snap_kept = false;
	if (!t || !READ_ONCE(t->nr))
		return 0;
	mutex_lock(&t->lock);
	list_for_each_entry(s, &t->live, list)
		if (s->trans < created)
			born = s->epoch + 1;
	if (!nova_snap_owner(t, born, dead))
		goto out;
	memset(&si, 0, sizeof(si));
	nova_entry_header(sbi, &si, NOVA_LOG_SNAPSHOT_INODE, sizeof(si),
			  nova_next_trans(sbi));
	si.si_ino = cpu_to_le64(inode->i_ino);
	si.si_generation = cpu_to_le32(inode->i_generation);
	si.si_born = cpu_to_le64(born);
	si.si_dead = cpu_to_le64(dead);
	/* Durable and committed before the caller's i_valid = 0. */
	err = nova_snap_append(sb, &si);
	if (err)
		goto out;
	ni->snap_kept = true;
	ni->snap_born = born;
	ni->snap_dead = dead;
out:
	mutex_unlock(&t->lock);
	return err;
}

/*
 * Evict of a removed inode recorded by nova_snapshot_keep_inode(): if a
 * live snapshot still shows it, it stays (slot, log, data) on that
 * snapshot's account and true is returned; else the caller frees it.
 */
bool nova_snapshot_evict_inode(struct inode *inode)
{
	struct nova_snap_table *t = NOVA_SB(inode->i_sb)->snaps;
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_snapshot *s;
	struct nova_snap_inode *ki;

	if (!t || !ni->snap_kept)
		return false;
	mutex_lock(&t->lock);
	s = nova_snap_owner(t, ni->snap_born, ni->snap_dead);
	if (s) {
		ki = kzalloc(sizeof(*ki), GFP_NOFS | __GFP_NOFAIL);
		ki->ino = inode->i_ino;
		ki->gen = inode->i_generation;
		ki->born = ni->snap_born;
		ki->dead = ni->snap_dead;
		ki->owner = s;
		list_add_tail(&ki->list, &t->inodes);
	}
	mutex_unlock(&t->lock);
	return s;
}

/*
 * For a snapshot mount or a view inode showing @epoch: is removed inode
 * @ino (slot generation @gen) part of that snapshot?
 */
bool nova_snapshot_shows_inode(struct super_block *sb, u64 ino, u32 gen,
			       u64 epoch)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_inode *ki;
	bool ok;

	if (!t || epoch == NOVA_EPOCH_LIVE)
		return false;
	mutex_lock(&t->lock);
	ki = nova_snap_find_inode(t, ino);
	ok = ki && ki->gen == gen && ki->born <= epoch && epoch < ki->dead;
	mutex_unlock(&t->lock);
	return ok;
}

/*
 * Mount, once the journals are rolled back and the inode tables loaded:
 * check every kept removed inode against its slot, drop void records
 * (slot still live with the same generation: the removal never
 * committed), and call @fn for the others (mark the slot used; recovery
 * also claims their blocks). A slot that holds something else is
 * corruption.
 */
int nova_snapshot_mark_inodes(struct super_block *sb, nova_kept_inode_fn fn,
			      void *arg)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_inode *ki, *tmp;
	struct nova_inode *pi, *good;
	u64 valid;
	int err;

	list_for_each_entry_safe(ki, tmp, &t->inodes, list) {
		pi = nova_get_pinode(sb, ki->ino);
		if (!pi || ki->ino < NOVA_FIRST_INO)
			goto bad;
		/*
		 * A damaged slot is read from its replica (and rewritten
		 * from it on a writable mount), as nova_iget() does.
		 */
		if (nova_inode_check(sb, pi, ki->ino, true, &good) ==
		    NOVA_SLOT_BAD)
			goto bad;
		valid = le64_to_cpu(READ_ONCE(pi->i_valid));
		if (le64_to_cpu(good->i_ino) != ki->ino ||
		    le32_to_cpu(good->i_generation) != ki->gen || valid > 1)
			goto bad;
		if (valid) {
			list_del(&ki->list);
			kfree(ki);
			continue;
		}
		err = fn(sb, pi, ki->ino, arg);
		if (err)
			return err;
	}
	return 0;
bad:
	nova_err(sb, "snapshot %llu keeps removed inode %llu, but its slot holds something else",
		 ki->owner->id, ki->ino);
	return -EFSCORRUPTED;
}

/*
 * Snapshot @s is going: each run it kept moves to @older if that one shows
 * it too, else onto @gone. Returns the blocks that went onto @gone. Table
 * lock held.
 */
static unsigned long nova_snap_pass_runs(struct nova_snapshot *s,
					 struct nova_snapshot *older,
					 struct list_head *gone)
{
	struct nova_snap_keep *k, *tmp;
	unsigned long n = 0;

	list_for_each_entry_safe(k, tmp, &s->keep, list) {
		if (older && older->epoch >= k->born) {
			list_move_tail(&k->list, &older->keep);
			older->kept += k->count;
			continue;
		}
		list_move_tail(&k->list, gone);
		n += k->count;
	}
	s->kept = 0;
	return n;
}

/*
 * Delete the live snapshot @id. The delete record is committed first; the
 * blocks and removed inodes it kept then move to the next older snapshot
 * that needs them, or go to the reclaim worker (snap_reclaim.c), whose
 * ticket for this delete is stored in *@ticket. A crash after the record
 * leaves nothing to redo: recovery rebuilds the allocator from the live
 * snapshots only.
 *
 * s_umount is held shared so that no remount read-only or unmount saves
 * the allocator while a delete is between its record and its queueing
 * (they drain the reclaim queue, holding s_umount exclusively).
 */
int nova_snapshot_delete(struct super_block *sb, u64 id,
			 struct nova_snapshot_info *info, u64 *ticket)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snapshot_del_entry sd;
	struct nova_snapshot *s, *older;
	unsigned long blocks, nr_inodes;
	LIST_HEAD(runs);
	LIST_HEAD(inodes);
	int err;

	down_read(&sb->s_umount);
	/* The snapshot this mount shows is in use (and read-only anyway). */
	if (sbi->view_epoch != NOVA_EPOCH_LIVE && id == sbi->view_id) {
		err = -EBUSY;
		goto out_umount;
	}
	if (sb_rdonly(sb)) {
		err = -EROFS;
		goto out_umount;
	}
	if (nova_is_shutdown(sb)) {
		err = -EIO;
		goto out_umount;
	}
	/*
	 * The delete record is a PMEM write: not while frozen (fsfreeze).
	 * Only try: the genl caller would otherwise hold the family's lock
	 * until the thaw.
	 */
	if (!sb_start_write_trylock(sb)) {
		err = -EBUSY;
		goto out_umount;
	}
	mutex_lock(&t->lock);
	s = nova_snap_find(t, id);
	if (!s) {
		err = -ENOENT;
		goto out;
	}
	/*
	 * Someone is browsing it under .snapshots: its view inodes point
	 * into what it keeps (snapview.c). They go with the last reference.
	 */
	if (s->views) {
		err = -EBUSY;
		goto out;
	}
	nova_snap_del_record(sbi, &sd, s);
	err = nova_snap_append(sb, &sd);
	if (err)
		goto out;

	nova_snap_info(s, info);
	older = list_is_first(&s->list, &t->live) ? NULL :
		list_prev_entry(s, list);
	list_del(&s->list);
	t->nr--;
	t->gen++;
	blocks = nova_snap_pass_runs(s, older, &runs);
	nr_inodes = nova_snap_pass_inodes(t, s, older, &inodes);
	*ticket = nova_snap_reclaim_queue(&t->rq, &runs, blocks, &inodes,
					  nr_inodes);
	if (!t->nr)
		nova_snap_compact(sb, s);
	kfree(s);
out:
	mutex_unlock(&t->lock);
	sb_end_write(sb);
out_umount:
	up_read(&sb->s_umount);
	return err;
}

/*
 * Blocks only @s holds: a kept run or removed inode on its account (it is
 * the newest live snapshot showing it) is its alone unless the next older
 * live snapshot shows it too, i.e. when born > older's epoch. Table lock
 * held; a walk of @s's runs and of the kept inodes (their blocks counted
 * once, see nova_snap_inode_blocks()).
 */
static u64 nova_snap_exclusive(struct super_block *sb, struct nova_snapshot *s)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_keep *k;
	struct nova_snap_inode *ki;
	u64 after = 0, n = 0;	/* epochs >= @after are not older's */

	lockdep_assert_held(&t->lock);
	if (!list_is_first(&s->list, &t->live))
		after = list_prev_entry(s, list)->epoch + 1;
	list_for_each_entry(k, &s->keep, list)
		if (k->born >= after)
			n += k->count;
	list_for_each_entry(ki, &t->inodes, list)
		if (ki->owner == s && ki->born >= after)
			n += nova_snap_inode_blocks(sb, ki);
	return n;
}

/*
 * Copy up to @max live snapshots with an id of at least @from, oldest
 * first, into @out. Returns how many were copied; *@gen is the table
 * generation they were read at.
 */
int nova_snapshot_list(struct super_block *sb, u64 from,
		       struct nova_snapshot_info *out, int max,
		       unsigned int *gen)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;
	int n = 0;

	mutex_lock(&t->lock);
	*gen = t->gen;
	list_for_each_entry(s, &t->live, list) {
		if (n == max)
			break;
		if (s->id < from)
			continue;
		nova_snap_info(s, &out[n]);
		out[n].excl_blocks = nova_snap_exclusive(sb, s);
		n++;
	}
	mutex_unlock(&t->lock);
	return n;
}

/*
 * The epoch check. Block @blk of @inode, written in epoch @born, is no
 * longer used by the live file system. If a live snapshot still shows it,
 * record it for that snapshot and return true: the caller must not free
 * it. While an operation applies what it committed with staged keep
 * records (nova_snapshot_stage_commit()), the answer is whether the block
 * was staged: its record is already durable. Runs under the file's
 * log_lock.
 */
bool nova_snapshot_keep(struct inode *inode, unsigned long blk, u64 born)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snap_stage *st = NOVA_I(inode)->snap_stage;
	struct nova_snapshot_keep_entry sk;
	struct nova_snapshot *s;
	struct nova_snap_keep *k;
	u64 dead = READ_ONCE(sbi->epoch_id);
	int err;

	if (st)
		return !xa_empty(&st->blocks) && xa_load(&st->blocks, blk);
	if (!t || !READ_ONCE(t->nr))
		return false;
	mutex_lock(&t->lock);
	s = nova_snap_owner(t, born, dead);
	if (!s) {
		mutex_unlock(&t->lock);
		return false;
	}
	/* Extend the last run if this block continues it (same epochs). */
	k = list_empty(&s->keep) ? NULL :
	    list_last_entry(&s->keep, struct nova_snap_keep, list);
	memset(&sk, 0, sizeof(sk));
	nova_entry_header(sbi, &sk, NOVA_LOG_SNAPSHOT_KEEP, sizeof(sk),
			  nova_next_trans(sbi));
	sk.sk_block = cpu_to_le64(blk);
	sk.sk_count = cpu_to_le32(1);
	sk.sk_born = cpu_to_le64(born);
	sk.sk_dead = cpu_to_le64(dead);
	err = nova_snap_append(sb, &sk);
	if (err)
		nova_warn(sb, "snapshot %llu: cannot record kept block %lu (%d); it stays allocated until fsck",
			  s->id, blk, err);
	if (k && k->blk + k->count == blk && k->born == born &&
	    k->dead == dead) {
		k->count++;
	} else {
		k = kmalloc(sizeof(*k), GFP_NOFS | __GFP_NOFAIL);
		k->blk = blk;
		k->count = 1;
		k->born = born;
		k->dead = dead;
		list_add_tail(&k->list, &s->keep);
	}
	s->kept++;
	mutex_unlock(&t->lock);
	return true;
}

/* Does a live snapshot show data written in epoch @born? */
bool nova_snapshot_shows(struct super_block *sb, u64 born)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	bool ret;

	if (!t || !READ_ONCE(t->nr))
		return false;
	mutex_lock(&t->lock);
	ret = nova_snap_owner(t, born, READ_ONCE(sbi->epoch_id));
	mutex_unlock(&t->lock);
	return ret;
}

/* ---- staged keep records ---- */

/*
 * An operation that supersedes file pages (write, truncate) closes the
 * crash window between its commit and the keep records this way:
 *
 *   1. nova_snapshot_stage_range() for each page range it replaces, after
 *      its own entries are appended (appending may run log GC, which
 *      takes the table lock) and before its tail is committed: notes the
 *      blocks a live snapshot shows, taking the table lock on the first.
 *   2. nova_snapshot_stage_commit(): writes one keep record per run past
 *      the snapshot log tail (durable, not visible), then publishes both
 *      the file's log tail and the snapshot log tail in one lite-journal
 *      transaction. A crash leaves both or neither. Drops the table lock.
 *   3. The caller applies its entries: nova_page_gone() asks
 *      nova_snapshot_keep(), which answers from the staged set.
 *   4. nova_snapshot_stage_done().
 *
 * Between 1 and 2 the table lock pins the owners (a concurrent delete
 * waits); snapshot creation cannot start, the caller being a writer of
 * the frozen-able file system.
 */
void nova_snapshot_stage_init(struct nova_snap_stage *st)
{
	st->locked = false;
	INIT_LIST_HEAD(&st->runs);
	xa_init(&st->blocks);
}

/* Step 1 for the pages [@first, @last] of @inode. Log lock held. */
int nova_snapshot_stage_range(struct inode *inode, struct nova_snap_stage *st,
			      pgoff_t first, pgoff_t last)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	struct nova_snap_table *t = sbi->snaps;
	u64 dead = READ_ONCE(sbi->epoch_id);
	struct nova_file_write_entry *fw;
	struct nova_snapshot *s;
	struct nova_snap_keep *k;
	unsigned long idx, blk;
	void *v, *old;
	u64 born;

	if (!t || !READ_ONCE(t->nr))
		return 0;
	if (!st->locked) {
		mutex_lock(&t->lock);
		st->locked = true;
	}
	xa_for_each_range(&NOVA_I(inode)->pages, idx, v, first, last) {
		fw = nova_addr(sbi, xa_to_value(v));
		born = le64_to_cpu(fw->hdr.e_epoch_id);
		s = nova_snap_owner(t, born, dead);
		if (!s)
			continue;
		blk = le64_to_cpu(fw->fw_block) +
		      (idx - le64_to_cpu(fw->fw_pgoff));
		old = xa_store(&st->blocks, blk, xa_mk_value(1), GFP_NOFS);
		if (xa_is_err(old))
			return xa_err(old);
		if (old)
			continue;
		k = list_empty(&st->runs) ? NULL :
		    list_last_entry(&st->runs, struct nova_snap_keep, list);
		if (k && k->owner == s && k->born == born &&
		    k->blk + k->count == blk) {
			k->count++;
			continue;
		}
		k = kmalloc(sizeof(*k), GFP_NOFS);
		if (!k)
			return -ENOMEM;
		k->blk = blk;
		k->count = 1;
		k->born = born;
		k->dead = dead;
		k->owner = s;
		list_add_tail(&k->list, &st->runs);
	}
	return 0;
}

/*
 * Step 2: commit @inode's log up to @tail together with the staged keep
 * records. On error nothing is published (the caller undoes its appends
 * as if its own append had failed). Log lock held.
 */
int nova_snapshot_stage_commit(struct inode *inode, struct nova_snap_stage *st,
			       u64 tail)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snapshot_keep_entry sk;
	struct nova_snap_keep *k, *tmp, *last;
	struct nova_log_writer lw;
	struct nova_jword w[2];
	int err;

	if (list_empty(&st->runs)) {
		nova_log_commit(inode, tail);
		goto out;
	}
	nova_snap_begin(sb, &lw);
	list_for_each_entry(k, &st->runs, list) {
		memset(&sk, 0, sizeof(sk));
		nova_entry_header(sbi, &sk, NOVA_LOG_SNAPSHOT_KEEP, sizeof(sk),
				  nova_next_trans(sbi));
		sk.sk_block = cpu_to_le64(k->blk);
		sk.sk_count = cpu_to_le32(k->count);
		sk.sk_born = cpu_to_le64(k->born);
		sk.sk_dead = cpu_to_le64(k->dead);
		err = nova_log_put(&lw, &sk);
		if (err)
			return err;
	}
	/* Records and the file's entries durable (journal fences first). */
	w[0].word = &nova_pi(inode)->i_log_tail;
	w[0].val = tail;
	w[1].word = &nova_snap_pi(sbi)->i_log_tail;
	w[1].val = nova_log_end(&lw);
	nova_journal_commit(sb, w, 2);
	NOVA_I(inode)->log_tail = tail;
	t->tail = w[1].val;
	list_for_each_entry_safe(k, tmp, &st->runs, list) {
		struct nova_snapshot *s = k->owner;

		list_del(&k->list);
		s->kept += k->count;
		last = list_empty(&s->keep) ? NULL :
		       list_last_entry(&s->keep, struct nova_snap_keep, list);
		if (last && last->blk + last->count == k->blk &&
		    last->born == k->born && last->dead == k->dead) {
			last->count += k->count;
			kfree(k);
			continue;
		}
		list_add_tail(&k->list, &s->keep);
	}
out:
	if (st->locked) {
		mutex_unlock(&t->lock);
		st->locked = false;
	}
	NOVA_I(inode)->snap_stage = st;
	return 0;
}

/* Step 4, also the way out after an error at any step. */
void nova_snapshot_stage_done(struct inode *inode, struct nova_snap_stage *st)
{
	struct nova_snap_keep *k, *tmp;

	NOVA_I(inode)->snap_stage = NULL;
	if (st->locked) {
		mutex_unlock(&NOVA_SB(inode->i_sb)->snaps->lock);
		st->locked = false;
	}
	list_for_each_entry_safe(k, tmp, &st->runs, list) {
		list_del(&k->list);
		kfree(k);
	}
	/* Nothing staged (no snapshot shows the pages): nothing to free. */
	if (!xa_empty(&st->blocks))
		xa_destroy(&st->blocks);
}

/*
 * For log garbage collection: may a superseded log entry written in
 * @epoch be dropped? Not while a live snapshot shows it (or a mount is
 * showing one). Conservative: an entry superseded after the newest
 * snapshot covering it is kept too.
 */
bool nova_snapshot_entry_reclaimable(struct super_block *sb, u64 epoch)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snapshot *s;
	bool ok;

	if (sbi->view_epoch != NOVA_EPOCH_LIVE)
		return false;
	if (!t || !READ_ONCE(t->nr))
		return true;
	mutex_lock(&t->lock);
	s = list_empty(&t->live) ? NULL :
	    list_last_entry(&t->live, struct nova_snapshot, list);
	ok = !s || s->epoch < epoch;
	mutex_unlock(&t->lock);
	return ok;
}

/* ---- what only snapshots hold, for the scrub ---- */

/*
 * Visit up to @max blocks of the kept runs of live snapshots, from @pos
 * (snapshot by id, then blocks of its runs in list order), calling @fn
 * for each with the table lock held: a run leaves a snapshot's list only
 * under that lock (to an older snapshot or the reclaim queue), so no block
 * visited can be freed while @fn looks at it. A run handed to an older
 * snapshot meanwhile is not visited again in this pass; the next pass
 * finds it. Returns the blocks visited (fewer than @max: the end, with
 * pos->snap set to U64_MAX) or @fn's error.
 */
int nova_snapshot_visit_runs(struct super_block *sb, struct nova_snap_pos *pos,
			     unsigned int max, nova_held_block_fn fn, void *arg)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_keep *k;
	struct nova_snapshot *s;
	unsigned long seen, i;
	unsigned int n = 0;
	int err = 0;

	if (!t)
		return 0;
	mutex_lock(&t->lock);
	list_for_each_entry(s, &t->live, list) {
		if (s->id < pos->snap)
			continue;
		if (s->id > pos->snap) {
			pos->snap = s->id;
			pos->skip = 0;
		}
		seen = 0;
		list_for_each_entry(k, &s->keep, list) {
			if (seen + k->count <= pos->skip) {
				seen += k->count;
				continue;
			}
			for (i = pos->skip - seen; i < k->count; i++) {
				err = fn(sb, k->blk + i, arg);
				if (err)
					goto out;
				pos->skip++;
				if (++n == max)
					goto out;
			}
			seen += k->count;
		}
	}
	pos->snap = U64_MAX;
out:
	mutex_unlock(&t->lock);
	return err ?: n;
}

/* The kept inode at position @idx of the table's list, or NULL past the end. */
static struct nova_snap_inode *nova_snap_kept_nth(struct nova_snap_table *t,
						  u64 idx)
{
	struct nova_snap_inode *ki;

	lockdep_assert_held(&t->lock);
	list_for_each_entry(ki, &t->inodes, list)
		if (!idx--)
			return ki;
	return NULL;
}

/*
 * The removed inode at position @idx of the kept list (the order is the
 * list's: an inode added or dropped meanwhile may shift the others by
 * one), in @ino and @gen. -ENOENT past the end.
 */
int nova_snapshot_kept_inode(struct super_block *sb, u64 idx, u64 *ino,
			     u32 *gen)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_inode *ki;
	int err = -ENOENT;

	if (!t)
		return err;
	mutex_lock(&t->lock);
	ki = nova_snap_kept_nth(t, idx);
	if (ki) {
		*ino = ki->ino;
		*gen = ki->gen;
		err = 0;
	}
	mutex_unlock(&t->lock);
	return err;
}

/*
 * The newest transaction the snapshot log held at mount: a fast crash
 * recovery (recovery_fast.c) starts the counter above it, so that a file
 * created after the mount is never taken for one a snapshot shows.
 */
u64 nova_snapshot_max_trans(struct super_block *sb)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;

	return t ? t->max_trans : 0;
}

/*
 * The epoch and record transaction of live snapshot @id (snapdiff.c: an
 * inode with i_create_trans below @trans existed when it was taken).
 * -ENOENT if there is none.
 */
int nova_snapshot_span(struct super_block *sb, u64 id, u64 *epoch, u64 *trans)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;
	int err = -ENOENT;

	if (!t)
		return err;
	mutex_lock(&t->lock);
	s = nova_snap_find(t, id);
	if (s) {
		*epoch = s->epoch;
		*trans = s->trans;
		err = 0;
	}
	mutex_unlock(&t->lock);
	return err;
}

/*
 * Call @fn with the table lock held for the removed inode at position
 * @idx of the kept list (as nova_snapshot_kept_inode()), with its number
 * and the epochs it lived in: it was shown by snapshots of epochs in
 * [@born, @dead). Its slot and log stay as they are meanwhile. -ENOENT
 * past the end.
 */
int nova_snapshot_kept_at(struct super_block *sb, u64 idx,
			  int (*fn)(struct super_block *sb, u64 ino, u64 born,
				    u64 dead, void *arg),
			  void *arg)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_inode *ki;
	int err = -ENOENT;

	if (!t)
		return err;
	mutex_lock(&t->lock);
	ki = nova_snap_kept_nth(t, idx);
	if (ki)
		err = fn(sb, ki->ino, ki->born, ki->dead, arg);
	mutex_unlock(&t->lock);
	return err;
}

/*
 * Call @fn with the table lock held if removed inode @ino of generation
 * @gen is still kept by a live snapshot (so its slot, log and pages stay
 * as they are while @fn reads them); -ESTALE if it is not any more.
 */
int nova_snapshot_with_kept_inode(struct super_block *sb, u64 ino, u32 gen,
				  int (*fn)(struct super_block *sb, u64 ino,
					    void *arg),
				  void *arg)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snap_inode *ki;
	int err;

	if (!t)
		return -ESTALE;
	mutex_lock(&t->lock);
	ki = nova_snap_find_inode(t, ino);
	err = ki && ki->gen == gen ? fn(sb, ino, arg) : -ESTALE;
	mutex_unlock(&t->lock);
	return err;
}

/*
 * Walk the snapshot log itself (NOVA_SNAPSHOT_INO) with the table lock
 * held, which every writer of that log holds: @entry_fn, @page_fn and
 * @flags as for nova_log_walk(); its head and committed tail in @head and
 * @tail. Nothing to walk: 0.
 */
int nova_snapshot_walk_log(struct super_block *sb, nova_entry_fn entry_fn,
			   nova_page_fn page_fn, void *arg, unsigned int flags,
			   u64 *head, u64 *tail)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_inode *pi = nova_snap_pi(sbi);
	int err = 0;

	if (!t)
		return 0;
	mutex_lock(&t->lock);
	*head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	*tail = t->tail;
	if (*head)
		err = nova_log_walk(sb, NOVA_SNAPSHOT_INO, *head, *tail,
				    entry_fn, page_fn, arg, flags);
	mutex_unlock(&t->lock);
	return err;
}

/* ---- view inodes (snapview.c) ---- */

/*
 * A view inode of snapshot @id is being built: count it, so the snapshot
 * is not deleted while it exists, and return the epoch it shows. -ENOENT
 * if the snapshot is gone.
 */
int nova_snapshot_view_get(struct super_block *sb, u64 id, u64 *epoch)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;
	int err = -ENOENT;

	mutex_lock(&t->lock);
	s = nova_snap_find(t, id);
	if (s) {
		s->views++;
		*epoch = s->epoch;
		err = 0;
	}
	mutex_unlock(&t->lock);
	return err;
}

void nova_snapshot_view_put(struct super_block *sb, u64 id)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;

	mutex_lock(&t->lock);
	s = nova_snap_find(t, id);
	if (!WARN_ON_ONCE(!s || !s->views))
		s->views--;
	mutex_unlock(&t->lock);
}

/* Is live snapshot @id browsed (has view inodes)? */
bool nova_snapshot_browsed(struct super_block *sb, u64 id)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s;
	bool ret;

	mutex_lock(&t->lock);
	s = nova_snap_find(t, id);
	ret = s && s->views;
	mutex_unlock(&t->lock);
	return ret;
}

/*
 * The name of snapshot @s under .snapshots: its name, or its id if it has
 * none (names are never all digits, so the two cannot clash).
 */
static void nova_snap_dir_name(const struct nova_snapshot *s, char *buf)
{
	if (s->name[0])
		strscpy(buf, s->name, NOVA_SNAPSHOT_NAME_LEN);
	else
		snprintf(buf, NOVA_SNAPSHOT_NAME_LEN, "%llu", s->id);
}

/* The id of the live snapshot called @name under .snapshots, or 0. */
u64 nova_snapshot_view_find(struct super_block *sb, const char *name,
			    unsigned int len)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	char buf[NOVA_SNAPSHOT_NAME_LEN];
	struct nova_snapshot *s;
	u64 id = 0;

	if (!len || len >= NOVA_SNAPSHOT_NAME_LEN)
		return 0;
	mutex_lock(&t->lock);
	list_for_each_entry(s, &t->live, list) {
		nova_snap_dir_name(s, buf);
		if (strlen(buf) == len && !memcmp(buf, name, len)) {
			id = s->id;
			break;
		}
	}
	mutex_unlock(&t->lock);
	return id;
}

/*
 * Readdir of .snapshots: the live snapshot with the smallest id >= @from,
 * its id in *@id and its name under .snapshots in @buf
 * (NOVA_SNAPSHOT_NAME_LEN bytes). false when there is none.
 */
bool nova_snapshot_view_next(struct super_block *sb, u64 from, u64 *id,
			     char *buf)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_snapshot *s, *best = NULL;

	mutex_lock(&t->lock);
	list_for_each_entry(s, &t->live, list)
		if (s->id >= from && (!best || s->id < best->id))
			best = s;
	if (best) {
		*id = best->id;
		nova_snap_dir_name(best, buf);
	}
	mutex_unlock(&t->lock);
	return best;
}

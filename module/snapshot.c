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
 * blocks to the next older snapshot that still needs it, or frees it. The
 * lists hold only DRAM bookkeeping, so that work is a list walk done by
 * the deleting task; no reclaim thread is needed. At mount the lists are
 * rebuilt from the snapshot log (nova_snapshot_load()), and crash recovery
 * claims the blocks they hold (nova_snapshot_claim()).
 *
 * Log garbage collection asks nova_snapshot_entry_reclaimable() before it
 * drops an entry.
 *
 * Lock order: freeze_super() (s_umount, s_writers) -> nova_inode_info.log_lock
 * -> nova_snap_table.lock -> nova_sb_info.sb_mutex -> nova_free_list.lock.
 * nova_snapshot_keep() runs under the log_lock of the file it frees from.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nova.h"
#include "pmem.h"

/* A run of kept data blocks (one NOVA_LOG_SNAPSHOT_KEEP record). */
struct nova_snap_keep {
	struct list_head list;		/* on nova_snapshot.keep */
	unsigned long blk;
	unsigned long count;
	u64 born;
	u64 dead;
};

struct nova_snapshot {
	struct list_head list;		/* on nova_snap_table.live, by epoch */
	u64 id;
	u64 epoch;
	struct timespec64 ctime;
	char name[NOVA_SNAPSHOT_NAME_LEN];
	struct list_head keep;		/* blocks this is the newest user of */
	unsigned long kept;		/* blocks on @keep */
};

struct nova_snap_table {
	struct mutex lock;
	struct list_head live;		/* oldest first */
	unsigned int nr;
	u64 next_id;
	u64 tail;			/* committed tail of the snapshot log */
	u64 max_epoch;			/* newest epoch seen in the log */
	bool any_epoch;
	unsigned int gen;		/* bumped on every change, for dumps */
};

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

/* ---- the snapshot log ---- */

static struct nova_log_page_tail *nova_snap_lt(struct nova_sb_info *sbi,
					       u64 page)
{
	return nova_addr(sbi, page + NOVA_LOG_DATA_SIZE);
}

/* A new, empty, durable page for the snapshot log. */
static int nova_snap_new_page(struct super_block *sb, u64 *page)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_log_page_tail lt = {
		.lt_ino = cpu_to_le64(NOVA_SNAPSHOT_INO),
		.lt_magic = cpu_to_le32(NOVA_LOG_PAGE_MAGIC),
	};
	unsigned long blk, got;
	void *addr;
	int err;

	err = nova_alloc_blocks(sb, 1, false, NOVA_BLOCK_LOG, &blk, &got);
	if (err)
		return err;
	addr = nova_block(sbi, blk);
	lt.lt_csum = cpu_to_le32(nova_lt_crc(&lt));
	nova_pmem_memset(addr, NOVA_LOG_PAD, 8);
	nova_pmem_memcpy(addr + NOVA_LOG_DATA_SIZE, &lt, sizeof(lt));
	nova_pmem_fence();
	*page = (u64)blk << NOVA_BLOCK_SHIFT;
	return 0;
}

/*
 * Append @entry (header filled, not sealed) to the snapshot log and commit
 * it: the entry is durable and visible on return. Table lock held.
 */
static int nova_snap_append(struct super_block *sb, void *entry)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_inode *pi = nova_snap_pi(sbi);
	struct nova_log_entry_header *h = entry;
	unsigned int size = le16_to_cpu(h->e_size);
	struct nova_log_page_tail *lt;
	u64 pos = t->tail, page;
	int err;

	lockdep_assert_held(&t->lock);
	if (!pos) {
		pos = le64_to_cpu(pi->i_log_head);
		if (!pos) {
			err = nova_snap_new_page(sb, &pos);
			if (err)
				return err;
			/* Page durable, then the head that reaches it. */
			nova_pmem_commit64(&pi->i_log_head, pos);
		}
	}
	page = pos & ~((u64)NOVA_BLOCK_SIZE - 1);
	if (pos + size > page + NOVA_LOG_DATA_SIZE) {
		lt = nova_snap_lt(sbi, page);
		if (pos < page + NOVA_LOG_DATA_SIZE)
			nova_pmem_memset(nova_addr(sbi, pos), NOVA_LOG_PAD, 1);
		page = le64_to_cpu(lt->lt_next);
		if (!page) {
			err = nova_snap_new_page(sb, &page);
			if (err)
				return err;
			/* New page durable, then the link to it. */
			nova_pmem_commit64(&lt->lt_next, page);
		}
		pos = page;
	}
	nova_entry_seal(entry);
	nova_pmem_memcpy(nova_addr(sbi, pos), entry, size);
	lt = nova_snap_lt(sbi, page);
	le32_add_cpu(&lt->lt_entries, 1);
	le32_add_cpu(&lt->lt_valid, 1);
	nova_pmem_flush(lt, 16);
	/* Entry durable (fence inside), then the tail that publishes it. */
	nova_pmem_commit64(&pi->i_log_tail, pos + size);
	t->tail = pos + size;
	return 0;
}

static int nova_snap_page_cb(struct super_block *sb, u64 page, void *arg)
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
	struct nova_snap_keep *k, *tmp;
	struct nova_jword w[2];
	LIST_HEAD(old);
	u64 page, head = le64_to_cpu(pi->i_log_head);
	void *addr;
	int err;

	lockdep_assert_held(&t->lock);
	if (!head)
		return;
	/* One page is as small as the log gets: nothing to gain. */
	lt = nova_snap_lt(sbi, head);
	if (!lt->lt_next && le32_to_cpu(lt->lt_entries) <= 2)
		return;
	err = nova_log_walk_raw(sb, NOVA_SNAPSHOT_INO, head, t->tail, NULL,
				nova_snap_page_cb, &old);
	if (!err)
		err = nova_snap_new_page(sb, &page);
	if (err)
		goto out;

	memset(&sn, 0, sizeof(sn));
	nova_entry_header(sbi, &sn, NOVA_LOG_SNAPSHOT, sizeof(sn),
			  nova_next_trans(sbi));
	sn.sn_id = cpu_to_le64(last->id);
	sn.sn_epoch = cpu_to_le64(last->epoch);
	nova_ts_to_media(&sn.sn_ctime, &last->ctime);
	strscpy(sn.sn_name, last->name, sizeof(sn.sn_name));
	nova_entry_seal(&sn);
	memset(&sd, 0, sizeof(sd));
	nova_entry_header(sbi, &sd, NOVA_LOG_SNAPSHOT_DEL, sizeof(sd),
			  nova_next_trans(sbi));
	sd.sd_id = cpu_to_le64(last->id);
	sd.sd_epoch = cpu_to_le64(last->epoch);
	nova_entry_seal(&sd);

	addr = nova_addr(sbi, page);
	nova_pmem_memcpy(addr, &sn, sizeof(sn));
	nova_pmem_memcpy(addr + sizeof(sn), &sd, sizeof(sd));
	nova_pmem_memset(addr + sizeof(sn) + sizeof(sd), NOVA_LOG_PAD, 8);
	lt = nova_snap_lt(sbi, page);
	lt->lt_entries = cpu_to_le32(2);
	lt->lt_valid = cpu_to_le32(2);
	nova_pmem_flush(lt, 16);
	/* The new log is durable (the journal fences first); switch to it. */
	w[0].word = &pi->i_log_head;
	w[0].val = page;
	w[1].word = &pi->i_log_tail;
	w[1].val = page + sizeof(sn) + sizeof(sd);
	nova_journal_commit(sb, w, 2);
	t->tail = w[1].val;
	list_for_each_entry(k, &old, list)
		nova_free_blocks(sb, k->blk, 1, NOVA_BLOCK_LOG);
out:
	if (err)
		nova_warn(sb, "cannot compact the snapshot log: %d", err);
	list_for_each_entry_safe(k, tmp, &old, list) {
		list_del(&k->list);
		kfree(k);
	}
}

/* ---- mount ---- */

static int nova_snap_load_entry(struct super_block *sb, u64 off, void *entry,
				void *arg)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;
	struct nova_log_entry_header *h = entry;
	unsigned int size = le16_to_cpu(h->e_size);
	struct nova_snapshot *s;

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

	if (h->e_type != NOVA_LOG_SNAPSHOT_KEEP)
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
	return nova_snap_load_entry(sb, off, entry, arg);
}

static void nova_snap_destroy_table(struct nova_snap_table *t)
{
	struct nova_snapshot *s, *tmp;

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

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	mutex_init(&t->lock);
	INIT_LIST_HEAD(&t->live);
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
 * Select the snapshot a mount shows (-o snapshot=ID). Every entry written
 * after its epoch is then hidden from the log replay.
 */
int nova_snapshot_select(struct super_block *sb, struct fs_context *fc,
			 u64 id)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snapshot *s = nova_snap_find(sbi->snaps, id);

	if (!s) {
		errorfc(fc, "%s: no snapshot %llu", sb->s_id, id);
		return -ENOENT;
	}
	sbi->view_epoch = s->epoch;
	sbi->view_id = id;
	nova_info(sb, "showing snapshot %llu (epoch %llu), read-only", id,
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
	err = nova_snap_name_ok(name);
	if (err)
		return err;
	err = freeze_super(sb);
	if (err)
		return err;

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
	memset(&sn, 0, sizeof(sn));
	nova_entry_header(sbi, &sn, NOVA_LOG_SNAPSHOT, sizeof(sn),
			  nova_next_trans(sbi));
	sn.sn_id = cpu_to_le64(s->id);
	sn.sn_epoch = cpu_to_le64(s->epoch);
	nova_ts_to_media(&sn.sn_ctime, &now);
	strscpy(sn.sn_name, name, sizeof(sn.sn_name));
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

	info->id = s->id;
	info->epoch = s->epoch;
	info->ctime = s->ctime;
	strscpy(info->name, s->name, sizeof(info->name));
out:
	mutex_unlock(&t->lock);
	ret = thaw_super(sb);
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
		info->id = s->id;
		info->epoch = s->epoch;
		info->ctime = s->ctime;
		strscpy(info->name, s->name, sizeof(info->name));
		err = 0;
	}
	mutex_unlock(&t->lock);
	return err;
}

/*
 * Delete the live snapshot @id. The delete record is committed first; the
 * blocks it kept then move to the next older snapshot that needs them or
 * go back to the allocator. A crash after the record leaves nothing to
 * redo: recovery rebuilds the allocator from the live snapshots only.
 */
int nova_snapshot_delete(struct super_block *sb, u64 id,
			 struct nova_snapshot_info *info)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snapshot_del_entry sd;
	struct nova_snap_keep *k, *tmp;
	struct nova_snapshot *s, *older;
	int err;

	if (sb_rdonly(sb))
		return -EROFS;
	mutex_lock(&t->lock);
	s = nova_snap_find(t, id);
	if (!s) {
		err = -ENOENT;
		goto out;
	}
	memset(&sd, 0, sizeof(sd));
	nova_entry_header(sbi, &sd, NOVA_LOG_SNAPSHOT_DEL, sizeof(sd),
			  nova_next_trans(sbi));
	sd.sd_id = cpu_to_le64(s->id);
	sd.sd_epoch = cpu_to_le64(s->epoch);
	err = nova_snap_append(sb, &sd);
	if (err)
		goto out;

	info->id = s->id;
	info->epoch = s->epoch;
	info->ctime = s->ctime;
	strscpy(info->name, s->name, sizeof(info->name));
	older = list_is_first(&s->list, &t->live) ? NULL :
		list_prev_entry(s, list);
	list_del(&s->list);
	t->nr--;
	t->gen++;
	list_for_each_entry_safe(k, tmp, &s->keep, list) {
		list_del(&k->list);
		if (older && older->epoch >= k->born) {
			list_add_tail(&k->list, &older->keep);
			older->kept += k->count;
			continue;
		}
		nova_free_blocks(sb, k->blk, k->count, NOVA_BLOCK_DATA);
		kfree(k);
	}
	if (!t->nr)
		nova_snap_compact(sb, s);
	kfree(s);
out:
	mutex_unlock(&t->lock);
	return err;
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
		out[n].id = s->id;
		out[n].epoch = s->epoch;
		out[n].ctime = s->ctime;
		strscpy(out[n].name, s->name, sizeof(out[n].name));
		n++;
	}
	mutex_unlock(&t->lock);
	return n;
}

/*
 * The epoch check. Block @blk of a file, written in epoch @born, is no
 * longer used by the live file system. If a live snapshot still shows it,
 * record it for that snapshot and return true: the caller must not free
 * it. Runs under the file's log_lock.
 */
bool nova_snapshot_keep(struct super_block *sb, unsigned long blk, u64 born)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snap_table *t = sbi->snaps;
	struct nova_snapshot_keep_entry sk;
	struct nova_snapshot *s;
	struct nova_snap_keep *k;
	u64 dead = READ_ONCE(sbi->epoch_id);
	int err;

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

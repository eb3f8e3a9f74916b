// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: which inodes changed between two epochs (NOVA_CMD_SNAPSHOT_DIFF,
 * used by `novactl snapshot diff`).
 *
 * Every log entry carries the epoch it was written in (e_epoch_id). Between
 * snapshot OLD (epoch O) and snapshot NEW (epoch N, or the live file system)
 * an inode both show changed iff its log has an entry with an epoch in
 * (O, N]: every change NOVA makes to an inode (data, size, attributes, link
 * count, xattrs, and for a directory every name bound or removed) is a log
 * entry of that inode. A setattr entry of the atime alone (what a read
 * writes under relatime, nova_update_time()) is not counted: it moves no
 * ctime and is no change a diff lists. Whether a snapshot shows an inode follows from its
 * creation transaction (a snapshot's record has a larger transaction id
 * than every inode that existed when it was taken, snapshot.c) and, for a
 * removed inode a snapshot keeps, from the epochs [born, dead) of its
 * record. So no tree is walked and no inode of a view is built: this reads
 * the inode tables, and the logs of the inodes both epochs show until the
 * first entry in the range.
 *
 * Entries keep their epoch when thorough GC copies them (gc.c copies an
 * entry or a trimmed write entry with its header); GC's closing setattr
 * entry, which restates mode, owner and times, is written in the epoch
 * of the GC, so an inode whose log was rewritten after O is listed as
 * modified although nothing the trees show changed. The answer is
 * therefore a superset: the caller (novactl) compares the attributes of
 * the listed inodes and drops those whose change time did not move.
 * An inode whose last name went while it is still open (in memory, not
 * yet on the kept list) is not listed as removed until its evict; the
 * name's removal is an entry of its directory, which is listed.
 *
 * Locking (nova.h): per live inode a reference (nova_iget()) and its
 * log_lock while its log is read, so GC cannot move the entries; removed
 * inodes under the snapshot table lock (nova_snapshot_kept_at()), as the
 * scrub reads them. The caller holds an active reference on the super
 * block and no other NOVA lock.
 */
#include <linux/fs.h>
#include <linux/nova_genl.h>
#include <linux/sched.h>

#include "nova.h"
#include "nova_ctl.h"

enum {
	NOVA_SNAPDIFF_START,
	NOVA_SNAPDIFF_TABLES,
	NOVA_SNAPDIFF_KEPT,
	NOVA_SNAPDIFF_DONE,
};

/* A log walk callback's answer: an entry in the range was found. */
#define NOVA_SNAPDIFF_HIT	1

/*
 * Resolve snapshot ids @old_id and @new_id (0: the live file system) to
 * epochs and record transactions. -ENOENT (old) or -ESRCH (new) if no
 * live snapshot has the id, -EINVAL if NEW is not newer than OLD or this
 * is a snapshot mount.
 */
int nova_snapdiff_range(struct super_block *sb, u64 old_id, u64 new_id,
			struct nova_snapdiff_range *r)
{
	if (NOVA_SB(sb)->view_epoch != NOVA_EPOCH_LIVE)
		return -EINVAL;
	if (nova_snapshot_span(sb, old_id, &r->old_epoch, &r->old_trans))
		return -ENOENT;
	r->new_epoch = NOVA_EPOCH_LIVE;
	r->new_trans = U64_MAX;
	if (new_id &&
	    nova_snapshot_span(sb, new_id, &r->new_epoch, &r->new_trans))
		return -ESRCH;
	if (r->new_epoch <= r->old_epoch)
		return -EINVAL;
	return 0;
}

static int nova_snapdiff_entry(struct super_block *sb, u64 off, void *entry,
			       void *arg)
{
	const struct nova_log_entry_header *h = entry;
	const struct nova_setattr_entry *sa = entry;
	const struct nova_snapdiff_range *r = arg;
	u64 epoch = le64_to_cpu(h->e_epoch_id);

	/* An atime update alone (a read, under relatime) changes nothing. */
	if (h->e_type == NOVA_LOG_SETATTR &&
	    le32_to_cpu(sa->sa_mask) == NOVA_ATTR_ATIME)
		return 0;
	/*
	 * Logs are in epoch order, but a newer entry does not end the walk:
	 * a damaged order must not hide a change.
	 */
	return epoch > r->old_epoch && epoch <= r->new_epoch ?
	       NOVA_SNAPDIFF_HIT : 0;
}

/*
 * Does log @head..@tail of @ino have an entry in the range? 1 yes, 0 no.
 * A log that cannot be read whole counts as changed (the walk reported
 * it): the caller compares the inode's attributes anyway.
 */
static int nova_snapdiff_log(struct super_block *sb,
			     const struct nova_snapdiff_range *r, u64 ino,
			     u64 head, u64 tail)
{
	int err;

	if (!head)
		return 0;
	err = nova_log_walk(sb, ino, head, tail, nova_snapdiff_entry, NULL,
			    (void *)r, 0);
	if (err == NOVA_SNAPDIFF_HIT || err == -EFSCORRUPTED)
		return 1;
	return err;
}

/* Live inode @ino: 1 and *@out filled if it is in the answer. */
static int nova_snapdiff_live(struct super_block *sb,
			      const struct nova_snapdiff_range *r, u64 ino,
			      struct nova_snapdiff_item *out)
{
	struct nova_inode *pi = nova_get_pinode(sb, ino);
	struct nova_inode_info *ni;
	struct inode *inode;
	bool in_old, in_new;
	u64 created;
	int ret = 0;

	if (!pi || le64_to_cpu(READ_ONCE(pi->i_valid)) != 1)
		return 0;
	inode = nova_iget(sb, ino);
	if (IS_ERR(inode))
		/* Freed since we looked, or unreadable (reported): skip. */
		return PTR_ERR(inode) == -ENOMEM ? -ENOMEM : 0;
	ni = NOVA_I(inode);
	created = le64_to_cpu(nova_pi(inode)->i_create_trans);
	in_old = created < r->old_trans;
	in_new = r->new_epoch == NOVA_EPOCH_LIVE || created < r->new_trans;
	out->ino = ino;
	out->mode = inode->i_mode & S_IFMT;
	if (in_new && !in_old) {
		out->change = NOVA_SNAPDIFF_CREATED;
		ret = 1;
	} else if (in_new) {
		mutex_lock(&ni->log_lock);
		ret = nova_snapdiff_log(sb, r, ino, ni->log_head,
					ni->log_tail);
		mutex_unlock(&ni->log_lock);
		out->change = NOVA_SNAPDIFF_MODIFIED;
	}
	iput(inode);
	return ret;
}

struct nova_snapdiff_kept {
	const struct nova_snapdiff_range *r;
	struct nova_snapdiff_item *out;
	bool hit;
};

/* A removed inode snapshots keep (snapshot table lock held). */
static int nova_snapdiff_kept(struct super_block *sb, u64 ino, u64 born,
			      u64 dead, void *arg)
{
	struct nova_snapdiff_kept *k = arg;
	const struct nova_snapdiff_range *r = k->r;
	struct nova_inode *pi = nova_get_pinode(sb, ino);
	bool in_old, in_new;
	int ret;

	in_old = born <= r->old_epoch && r->old_epoch < dead;
	in_new = r->new_epoch != NOVA_EPOCH_LIVE && born <= r->new_epoch &&
		 r->new_epoch < dead;
	if (!pi || (!in_old && !in_new))
		return 0;
	k->out->ino = ino;
	k->out->mode = le16_to_cpu(pi->i_mode) & S_IFMT;
	if (in_old != in_new) {
		k->out->change = in_old ? NOVA_SNAPDIFF_REMOVED :
				 NOVA_SNAPDIFF_CREATED;
		k->hit = true;
		return 0;
	}
	ret = nova_snapdiff_log(sb, r, ino,
				le64_to_cpu(READ_ONCE(pi->i_log_head)),
				le64_to_cpu(READ_ONCE(pi->i_log_tail)));
	if (ret < 0)
		return ret == -ENOENT ? -EIO : ret;
	k->out->change = NOVA_SNAPDIFF_MODIFIED;
	k->hit = ret;
	return 0;
}

/* Advance @pos over the inode tables; false at their end. */
static bool nova_snapdiff_next_slot(struct nova_sb_info *sbi,
				    struct nova_snapdiff_pos *pos)
{
	unsigned int nr;

	pos->idx++;
	for (;;) {
		/* Pairs with nova_extend_table(), as nova_get_pinode(). */
		nr = smp_load_acquire(&sbi->imaps[pos->cpu].nr_blocks);
		if (pos->idx < (u64)nr * NOVA_INODES_PER_TABLE)
			return true;
		if (++pos->cpu >= sbi->cpus)
			return false;
		pos->idx = 0;
	}
}

/*
 * The next inode of the answer from @pos (which moves past it) in *@out:
 * 1, or 0 at the end, or a negative error (-ENOMEM, -EINTR when the
 * caller is killed, a log read error).
 */
int nova_snapdiff_next(struct super_block *sb,
		       const struct nova_snapdiff_range *r,
		       struct nova_snapdiff_pos *pos,
		       struct nova_snapdiff_item *out)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_snapdiff_kept k = { .r = r, .out = out };
	u64 ino;
	int ret;

	for (;;) {
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
		switch (pos->stage) {
		case NOVA_SNAPDIFF_START:
		case NOVA_SNAPDIFF_TABLES:
			if (pos->stage == NOVA_SNAPDIFF_START) {
				/* The root first, then the table slots. */
				ino = NOVA_ROOT_INO;
				pos->stage = NOVA_SNAPDIFF_TABLES;
				pos->cpu = 0;
				pos->idx = U64_MAX; /* next_slot() makes it 0 */
			} else {
				ino = nova_ino_make(sbi->cpus, pos->cpu,
						    pos->idx);
			}
			if (!nova_snapdiff_next_slot(sbi, pos)) {
				pos->stage = NOVA_SNAPDIFF_KEPT;
				pos->idx = 0;
			}
			ret = nova_snapdiff_live(sb, r, ino, out);
			if (ret)
				return ret;
			break;
		case NOVA_SNAPDIFF_KEPT:
			k.hit = false;
			ret = nova_snapshot_kept_at(sb, pos->idx,
						    nova_snapdiff_kept, &k);
			if (ret == -ENOENT) {
				pos->stage = NOVA_SNAPDIFF_DONE;
				break;
			}
			if (ret)
				return ret;
			pos->idx++;
			if (k.hit)
				return 1;
			break;
		default:
			return 0;
		}
	}
}

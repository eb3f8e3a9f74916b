/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: the DRAM state of snapshots, shared by snapshot.c (the table, the
 * snapshot log, the epoch check) and snap_reclaim.c (freeing what deleted
 * snapshots kept), and the two questions the write path asks on every
 * write (file.c). Nothing here is on media: the records are in
 * uapi/nova_format.h.
 */
#ifndef NOVA_SNAPSHOT_H
#define NOVA_SNAPSHOT_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "nova.h"

struct nova_snapshot;

/* A run of kept data blocks (one NOVA_LOG_SNAPSHOT_KEEP record). */
struct nova_snap_keep {
	struct list_head list;		/* on nova_snapshot.keep */
	unsigned long blk;
	unsigned long count;
	u64 born;
	u64 dead;
	struct nova_snapshot *owner;	/* while staged (nova_snap_stage) */
};

/* A removed inode a snapshot shows (one NOVA_LOG_SNAPSHOT_INODE record). */
struct nova_snap_inode {
	struct list_head list;		/* on nova_snap_table.inodes */
	u64 ino;
	u32 gen;
	u64 born;
	u64 dead;
	struct nova_snapshot *owner;	/* newest live snapshot showing it */
	unsigned long blocks;		/* what reclaiming it frees ... */
	bool counted;			/* ... once counted (snapshot list) */
};

struct nova_snapshot {
	struct list_head list;		/* on nova_snap_table.live, by epoch */
	u64 id;
	u64 epoch;
	u64 trans;			/* e_trans_id of its record */
	struct timespec64 ctime;
	char name[NOVA_SNAPSHOT_NAME_LEN];
	struct list_head keep;		/* blocks this is the newest user of */
	unsigned long kept;		/* blocks on @keep */
	unsigned int views;		/* view inodes in memory (snapview.c) */
};

/*
 * What deleted snapshots kept and no live snapshot needs any more, waiting
 * for the reclaim worker (snap_reclaim.c). Only DRAM: a crash simply
 * forgets it, because recovery claims only what live snapshots keep.
 * @lock is a leaf lock (taken inside nova_snap_table.lock, never around
 * anything else).
 */
struct nova_snap_reclaimq {
	spinlock_t lock;
	struct list_head runs;		/* struct nova_snap_keep */
	struct list_head inodes;	/* struct nova_snap_inode */
	unsigned long blocks;		/* on @runs */
	unsigned long nr_inodes;	/* on @inodes */
	u64 reclaimed;			/* blocks freed since mount */
	u64 queued;			/* the newest ticket handed out */
	u64 done;			/* every ticket up to this is done */
	wait_queue_head_t wait;		/* woken when @done moves */
	struct work_struct work;
	struct super_block *sb;
	bool draining;			/* unmount/remount ro is waiting */
};

struct nova_snap_table {
	struct mutex lock;
	struct list_head live;		/* oldest first */
	struct list_head inodes;	/* struct nova_snap_inode */
	unsigned int nr;
	u64 next_id;
	u64 tail;			/* committed tail of the snapshot log */
	u64 max_epoch;			/* newest epoch seen in the log */
	u64 max_trans;			/* newest transaction of the log */
	bool any_epoch;
	unsigned int gen;		/* bumped on every change, for dumps */
	struct nova_snap_reclaimq rq;	/* what deleted snapshots left */
};

/*
 * Is there no live snapshot? Then an operation that supersedes file pages
 * has no keep records to stage (nova_snapshot_stage_range() would note
 * none) and may commit its tail alone (nova_commit_write()). The answer
 * holds until a writer's operation ends: a snapshot is created only with
 * the file system frozen (freeze_super() in nova_snapshot_create()),
 * which waits for running writers. Inline, as the next one: every write
 * asks both.
 */
static inline bool nova_snapshot_none(struct super_block *sb)
{
	struct nova_snap_table *t = NOVA_SB(sb)->snaps;

	return !t || !READ_ONCE(t->nr);
}

/*
 * May nova_snapshot_keep() say true for any block of @inode now? False
 * when no snapshot exists and nothing is staged: the caller then frees
 * superseded blocks without asking block by block. Log lock held.
 */
static inline bool nova_snapshot_may_keep(struct inode *inode)
{
	struct nova_snap_table *t = NOVA_SB(inode->i_sb)->snaps;
	struct nova_snap_stage *st = NOVA_I(inode)->snap_stage;

	if (st)
		return !xa_empty(&st->blocks);
	return t && READ_ONCE(t->nr);
}

/* snap_reclaim.c */
void nova_snap_reclaim_init(struct super_block *sb,
			    struct nova_snap_reclaimq *rq);
u64 nova_snap_reclaim_queue(struct nova_snap_reclaimq *rq,
			    struct list_head *runs, unsigned long blocks,
			    struct list_head *inodes, unsigned long nr_inodes);
void nova_snap_reclaim_destroy(struct nova_snap_reclaimq *rq);
unsigned long nova_snap_inode_blocks(struct super_block *sb,
				     struct nova_snap_inode *ki);
int nova_snap_page_cb(struct super_block *sb, u64 page, void *arg);

#endif /* NOVA_SNAPSHOT_H */

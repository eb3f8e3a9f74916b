/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: in-DRAM structures and helpers shared by the module's files.
 * The on-media format lives in uapi/nova_format.h, not here.
 *
 * Lock ordering in NOVA, outermost first. A lock is taken only with
 * locks above it held (any subset of them), never with one below it held.
 * File headers say which part they use and refer here; a function that
 * needs a lock held asserts it with lockdep_assert_held().
 *
 *   nova_sb_info.freeze_mutex   (a snapshot, from its freeze to its thaw;
 *                                a user's freeze on 6.6+, super.c)
 *   s_umount                    (VFS. Exclusive: mount, remount, unmount,
 *                                freeze_super() around a snapshot. Shared:
 *                                snapshot delete, injection. The GC worker
 *                                and the scrub thread only try it.)
 *     nova_ctl_lock             (genl_fs.c, the registry. Under s_umount only
 *                                in the UNMOUNTING event (health.h); requests
 *                                take it with nothing held and drop it
 *                                before anything that waits for s_umount.)
 *     nova_scrub.ctl_mutex      (scrub.c; the control plane only)
 *     sb_writers                (VFS freeze protection: write, setattr...)
 *       i_rwsem                 (VFS order: parent before child, as
 *                                lock_rename(); a .snapshots view inode's
 *                                before the live inode's log_lock)
 *         mmap_lock             (a user copy that faults; faults then take
 *                                sb_start_pagefault())
 *           invalidate_lock     (exclusive to replace or free blocks a user
 *                                mapping may see; shared in faults)
 *             nova_inode_info.log_lock  (an inode's log, index and DRAM
 *                                attributes. Several only through
 *                                nova_lock_logs(): ascending inode number.)
 *               nova_snap_table.lock    (snapshot.c: the snapshot list, what
 *                                snapshots keep, the view counts)
 *                 nova_sb_info.sb_mutex (superblock writes; under it only
 *                                allocator work)
 *               nova_sb_info.mmap_mutex (protect.c: unprotected inodes)
 *               nova_inode_map.lock     (an inode-table stripe)
 *                 leaf spinlocks: nova_free_list.lock, nova_journal.lock,
 *                 nova_snap_reclaimq.lock, the GC queue's xa_lock,
 *                 nova_scrub.lock, the control plane's label and rate-limit
 *                 locks, the persistence trace's (test builds, taken by the
 *                 pmem.h hooks with interrupts off). Nothing nests in them;
 *                 their holders do not sleep.
 *
 * In particular, sb_mutex is not an outer lock: mount, remount, unmount,
 * the label ioctls, the feature upgrade before a file's first xattr, range
 * or attribute entry (i_rwsem held, no log_lock), a superblock repair by
 * scrub and a snapshot (under the snapshot table lock) all take it last,
 * and only the allocator's locks are taken under it.
 */
#ifndef _NOVA_H
#define _NOVA_H

#include <linux/fs.h>
#include <linux/printk.h>
#include <linux/rbtree.h>
#include <linux/xarray.h>
#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include <linux/jump_label.h>
#include <linux/llist.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86_TSC
#include <asm/tsc.h>
#endif

#include "nova_format.h"
#include "nova_csum.h"
#include "nova_plan.h"
#include "nova_ctl.h"
#include "compat.h"

#define NOVA_FS_NAME	"NOVA"

/* As ext4 and xfs: corrupted metadata is reported as EUCLEAN. */
#define EFSCORRUPTED	EUCLEAN

/*
 * Messages name the device. Errors use the "error:" tag, which the guest
 * test harness treats as a failure unless a test declares it expected.
 */
#define nova_err(sb, fmt, ...) \
	pr_err("nova (%s): error: " fmt "\n", (sb)->s_id, ##__VA_ARGS__)
#define nova_warn(sb, fmt, ...) \
	pr_warn("nova (%s): " fmt "\n", (sb)->s_id, ##__VA_ARGS__)
#define nova_info(sb, fmt, ...) \
	pr_info("nova (%s): " fmt "\n", (sb)->s_id, ##__VA_ARGS__)

/* Kinds of allocated blocks, for the counters reported by statistics. */
enum nova_block_kind {
	NOVA_BLOCK_META,	/* inode tables, journals */
	NOVA_BLOCK_LOG,		/* inode log pages */
	NOVA_BLOCK_DATA,	/* file data, symlink targets */
};

/* One CPU's share of the free space: an rbtree of free ranges. */
/*
 * 2 MiB, the size of a PMD mapping, in blocks. The allocator keeps such
 * extents, aligned on the device's physical addresses, whole for the
 * allocations that can use them (balloc.c, docs/fs.md "Allocation").
 */
#define NOVA_HUGE_BLOCKS	512UL

struct nova_free_list {
	spinlock_t lock;
	struct rb_root root;		/* struct nova_range_node by start */
	unsigned long free;		/* blocks */
	unsigned long nr_ranges;
	struct nova_range_node *spare;	/* a node kept for the next insert */
	unsigned long one;		/* a free block kept out of the tree */
	unsigned long gap_lo;		/* [gap_lo, gap_hi): no tree range */
	unsigned long gap_hi;		/* there (balloc.c nova_gap_*()) */
};

/* One stripe of the inode tables. */
struct nova_inode_map {
	struct mutex lock;
	struct nova_inode_table *head;	/* PMEM record in block 3 */
	unsigned long *blocks;		/* table block numbers, chain order */
	unsigned long *rblocks;		/* their replicas (1.3), or NULL */
	unsigned int nr_blocks;
	unsigned int cap_blocks;
	struct ida free;		/* used slot indexes */
	unsigned long used;
};

/* One stripe of the lite journal. */
struct nova_journal {
	spinlock_t lock;
	struct nova_journal_ptr *ptr;	/* PMEM record in block 2 */
	struct nova_journal_entry *ring;
	u64 ring_off;
};

struct nova_sb_info {
	struct super_block *sb;
	struct dax_device *dax_dev;
	u64 dax_part_off;		/* device start within the dax device */
	void *virt;			/* the whole device, mapped */
	u64 size;			/* bytes */
	unsigned long nblocks;
	unsigned int cpus;		/* stripes on media */
	struct nova_layout layout;	/* allocatable range, protection areas */

	struct mutex sb_mutex;		/* superblock writes */
	struct mutex freeze_mutex;	/* a snapshot's freeze against a user's */
	bool snap_freezing;		/* the freeze is a snapshot's (freeze_mutex) */
	bool shutdown;			/* FS_IOC_SHUTDOWN (ioctl.c) */
	struct nova_super_block dsb;	/* DRAM copy of the superblock */

	atomic64_t trans_id;
	u64 epoch_id;

	/* snapshots (snapshot.c) */
	struct nova_snap_table *snaps;
	u64 view_epoch;			/* NOVA_EPOCH_LIVE, or the snapshot mounted */
	u64 view_id;
	bool snapdir_visible;		/* -o snapdir=visible (snapview.c) */
	bool dax_shown;			/* -o dax: shown as dax=always (super.c) */
	unsigned int quota_opts;	/* usr/grp/prjquota: 1 << type (quota.c) */

	/* allocator (balloc.c) */
	struct nova_free_list *free_lists;
	unsigned int nr_lists;
	unsigned long list_span;	/* blocks per list region */
	unsigned long reserve;		/* blocks only log pages may use */
	unsigned long managed;		/* blocks the allocator manages */
	unsigned long huge_skew;	/* pfn of block 0, mod NOVA_HUGE_BLOCKS */
	/*
	 * The sum of the lists' free, within nr_cpu_ids * NOVA_FREE_BATCH:
	 * free_folded plus each CPU's free_delta (balloc.c).
	 */
	atomic_long_t free_folded;
	long __percpu *free_delta;
	atomic_long_t log_pages;
	atomic_long_t data_pages;
	atomic_long_t meta_blocks;
	atomic_long_t abm_damaged;	/* allocation bitmap words (abitmap.c) */
	unsigned long *state_pages;	/* allocator-state log, to release */
	unsigned long nr_state_pages;

	/* log garbage collection (gc.c) */
	struct nova_gc_info *gc;

	/* inode tables (itable.c) and journals (journal.c) */
	struct nova_inode_map *imaps;
	struct nova_journal *journals;
	/* words recovery rolled back, for their inode replicas (journal.c) */
	struct nova_jword *rolled_back;
	unsigned int nr_rolled_back;

	/* data protection (protect.c) */
	u32 prot;			/* NOVA_FEATURE_* on media */
	bool user_xattr;		/* user.* allowed (user_xattr) */
	bool verify;			/* verify reads (mount option verify=) */
	struct mutex mmap_mutex;	/* the unprotected-inode list */
	struct llist_head mmap_deferred;	/* unmapped while frozen */
	struct delayed_work mmap_work;	/* ... re-protected after the thaw */
	atomic64_t prot_verified;	/* strips verified since mount */
	atomic64_t prot_repaired;	/* strips, checksum copies, inode slots rewritten */
	atomic64_t prot_unrecoverable;	/* pages that could not be repaired */
	/* the driver's bad blocks, checked at mount (badblocks.c) */
	u64 bb_blocks;			/* listed blocks checked */
	u64 bb_repaired;		/* of which rebuilt */
	u64 bb_lost;			/* of which not repairable */
	u64 bb_withheld;		/* of which free, kept from allocation */
	unsigned long *bb_held;		/* those blocks (balloc.c) */
	unsigned int bb_nr_held;

	/*
	 * the online scrub (scrub.c): created by its first start
	 * (nova_scrub_get()), freed in kill_sb once the control plane has
	 * let go of the file system
	 */
	struct nova_scrub *scrub;

	/* statistics (stats.c) */
	struct nova_op_stats __percpu *op_stats;
	u64 mount_time_ns;
	bool recovered;
	/* crash recovery (recovery.c, recovery_fast.c) */
	bool recovery_scan;		/* -o recovery=scan: never the bitmap */
	bool space_check;		/* fast recovery: leaks to free (stats) */
};

static inline struct nova_sb_info *NOVA_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/*
 * After FS_IOC_SHUTDOWN (ioctl.c) the file system reads and writes
 * nothing more: operations fail with -EIO, faults with SIGBUS, and the
 * unmount leaves the medium as a power cut would.
 */
static inline bool nova_is_shutdown(struct super_block *sb)
{
	return unlikely(READ_ONCE(NOVA_SB(sb)->shutdown));
}

/* A name in a directory's DRAM index. */
struct nova_dentry_node {
	struct rb_node node;		/* in nova_inode_info.names */
	u32 hash;
	u8 name_len;
	u8 file_type;
	u64 ino;
	u64 pos;			/* readdir position */
	u64 entry;			/* offset of the nova_dentry_entry */
};

struct nova_inode_info {
	struct inode vfs_inode;
	struct mutex log_lock;		/* log, index and DRAM attributes */
	u64 pi_off;			/* offset of the struct nova_inode */
	u64 log_head;			/* committed values of the commit words */
	u64 log_tail;
	unsigned long log_pages;
	u64 last_append;		/* offset of the last appended entry */
	u64 last_setattr;		/* entries the next one supersedes */
	u64 last_link;
	struct timespec64 crtime;

	/* regular files */
	struct xarray pages;		/* pgoff -> xa_mk_value(entry offset) */
	unsigned long data_pages;

	/* directories */
	struct rb_root names;		/* struct nova_dentry_node by hash */
	struct xarray dpos;		/* readdir pos -> struct nova_dentry_node */
	u64 next_pos;
	unsigned long nr_entries;
	u64 parent;

	/* log garbage collection (gc.c) */
	u64 last_size;			/* newest setattr entry with a size */
	u64 last_range;			/* newest range entry (falloc.c) */
	u64 last_write;			/* newest write entry (file.c) */
	u64 last_dentry;		/* newest dentry entry (link count) */
	u64 last_dotdot;		/* newest ".." entry */
	bool last_dentry_cancels;	/* it is a removal still needed */
	unsigned long gc_removals;	/* removals, range entries: valid only as cancels */
	struct xarray gc_cancels;	/* log block -> removals waiting on it */
	unsigned long gc_thorough_at;	/* log pages worth a thorough GC */

	/* snapshots (snapshot.c) */
	struct nova_snap_stage *snap_stage;	/* keep records being applied */
	bool snap_kept;			/* removed while a snapshot shows it */
	u64 snap_born;			/* ... its NOVA_LOG_SNAPSHOT_INODE */
	u64 snap_dead;
	/*
	 * The newest epoch this inode's DRAM state shows: NOVA_EPOCH_LIVE,
	 * the epoch of a snapshot mount, or of the snapshot a view inode
	 * (snapview.c) belongs to. Set before the log replay.
	 */
	u64 view_epoch;
	/* view inodes only (snapview.c) */
	u64 view_id;			/* snapshot id, 0: not a view inode */
	u64 view_ino;			/* the inode number on media */
	struct inode *view_live;	/* the live inode pinned, or NULL */
	bool view_counted;		/* counted in the snapshot's views */
	/* live inodes: view inodes built from this log (thorough GC waits) */
	unsigned int view_pins;		/* under log_lock */
	/* data protection (protect.c) */
	atomic_t wmaps;			/* writable shared mappings */
	bool mmap_listed;		/* in the list on media, under log_lock */
	bool mmap_defer_queued;		/* in mmap_deferred, under log_lock */
	struct llist_node mmap_defer;
	/* extended attributes (xattr.c), under log_lock */
	struct list_head xattrs;	/* struct nova_xattr_node */
	u32 xattr_bytes;		/* names + values */
	struct nova_xattr_node *xattr_pending;	/* replay of a split value */
	/* file attribute flags (fileattr.c), NOVA_FL_*, under log_lock */
	u16 attr_flags;
	/* project id (fileattr.c, 1.8), under log_lock */
	u32 projid;
	/* quotas (quota.c): the quota layer's references, reserved bytes */
	nova_dquot_t *i_dquot[MAXQUOTAS];
	qsize_t quota_rsv;
};

static inline struct nova_inode_info *NOVA_I(struct inode *inode)
{
	return container_of(inode, struct nova_inode_info, vfs_inode);
}

/* PMEM address translation. Offsets are bytes from the device start. */
static inline void *nova_addr(struct nova_sb_info *sbi, u64 off)
{
	return sbi->virt + off;
}

static inline u64 nova_off(struct nova_sb_info *sbi, const void *addr)
{
	return (const char *)addr - (const char *)sbi->virt;
}

static inline void *nova_block(struct nova_sb_info *sbi, unsigned long blk)
{
	return sbi->virt + ((u64)blk << NOVA_BLOCK_SHIFT);
}

static inline bool nova_block_ok(struct nova_sb_info *sbi, u64 blk, u64 n)
{
	return blk >= sbi->layout.alloc_start && n <= sbi->layout.alloc_end &&
	       blk <= sbi->layout.alloc_end - n;
}

static inline struct nova_inode *nova_pi(struct inode *inode)
{
	return nova_addr(NOVA_SB(inode->i_sb), NOVA_I(inode)->pi_off);
}

static inline u64 nova_next_trans(struct nova_sb_info *sbi)
{
	return atomic64_inc_return(&sbi->trans_id);
}

static inline void nova_ts_to_media(struct nova_timespec *d,
				    const struct timespec64 *s)
{
	d->sec = cpu_to_le64(s->tv_sec);
	d->nsec = cpu_to_le32(s->tv_nsec);
	d->pad = 0;
}

static inline struct timespec64 nova_ts_from_media(const struct nova_timespec *s)
{
	struct timespec64 t = {
		.tv_sec = (s64)le64_to_cpu(s->sec),
		.tv_nsec = le32_to_cpu(s->nsec) % NSEC_PER_SEC,
	};
	return t;
}

/* crc32c from PMEM or DRAM (super.c); the rules are in nova_csum.h. */
u32 nova_crc(const void *buf, size_t len);

/* super.c */
int nova_write_super(struct super_block *sb, u32 state);
int nova_set_label(struct super_block *sb, const char *label);
int nova_enable_feature(struct super_block *sb, u32 feature, const char *what);
void nova_get_label(struct super_block *sb, char *buf, size_t len);

/* ioctl.c */
long nova_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* probe.c */
const char *nova_probe_device(struct nova_sb_info *sbi);
const char *nova_probe_foreign(struct nova_sb_info *sbi);

/* balloc.c */
int nova_balloc_init(struct super_block *sb);
void nova_balloc_destroy(struct super_block *sb);
int nova_balloc_add_free(struct super_block *sb, unsigned long start,
			 unsigned long n);
int nova_alloc_blocks(struct super_block *sb, unsigned long want, bool contig,
		      enum nova_block_kind kind, unsigned long *blk,
		      unsigned long *got);
void nova_free_blocks(struct super_block *sb, unsigned long blk,
		      unsigned long n, enum nova_block_kind kind);
int nova_alloc_blocks_high(struct super_block *sb, unsigned long want,
			   enum nova_block_kind kind, unsigned long *blk);
int nova_alloc_data(struct inode *inode, pgoff_t pgoff, unsigned long want,
		    unsigned long *blk, unsigned long *got);
bool nova_block_huge_aligned(struct nova_sb_info *sbi, unsigned long blk);
unsigned long nova_count_free(struct super_block *sb);
bool nova_balloc_withhold(struct super_block *sb, unsigned long blk);
unsigned long nova_count_user_free(struct super_block *sb);
int nova_save_alloc_state(struct super_block *sb);
int nova_restore_alloc_state(struct super_block *sb);
void nova_release_state_pages(struct super_block *sb);

/* journal.c */
struct nova_jword {
	__le64 *word;
	u64 val;
};

#define NOVA_JOURNAL_MAX_WORDS	8

int nova_journal_format(struct super_block *sb,
			const struct nova_format_plan *plan);
int nova_journal_load(struct super_block *sb);
int nova_journal_recover(struct super_block *sb);
void nova_journal_recover_finish(struct super_block *sb);
void nova_journal_destroy(struct super_block *sb);
void nova_journal_commit(struct super_block *sb, struct nova_jword *w, int n);

/* log.c */
typedef int (*nova_entry_fn)(struct super_block *sb, u64 off, void *entry,
			     void *arg);
typedef int (*nova_page_fn)(struct super_block *sb, u64 page, void *arg);

/*
 * Fill the header of a new entry of @type and @size, of transaction
 * @trans, in the current epoch; hints and checksum clear. Inline: a few
 * stores, on every write (nova_file_write_entry_init()).
 */
static inline void nova_entry_header(struct nova_sb_info *sbi, void *entry,
				     u8 type, unsigned int size, u64 trans)
{
	struct nova_log_entry_header *h = entry;

	h->e_type = type;
	h->e_flags = 0;
	h->e_size = cpu_to_le16(size);
	h->e_csum = 0;
	h->e_epoch_id = cpu_to_le64(sbi->epoch_id);
	h->e_trans_id = cpu_to_le64(trans);
}

void nova_entry_seal(void *entry);
const char *nova_entry_invalid(struct nova_sb_info *sbi, u64 ino, umode_t type,
			       const void *entry);
int nova_log_walk_raw(struct super_block *sb, u64 ino, u64 head, u64 tail,
		      nova_entry_fn efn, nova_page_fn pfn, void *arg);
#define NOVA_WALK_BOTH	0x1	/* check both copies of every entry (scrub) */
#define NOVA_WALK_PEEK	0x2	/* use a good copy, repair and report nothing */
/* PEEK, and a broken log is no error either: the caller weighs logs */
#define NOVA_WALK_PROBE	0x6
int nova_log_walk(struct super_block *sb, u64 ino, u64 head, u64 tail,
		  nova_entry_fn efn, nova_page_fn pfn, void *arg,
		  unsigned int flags);
struct nova_walk;
struct nova_walk *nova_walker_new(void);
void nova_walker_free(struct nova_walk *w);
int nova_log_walk_with(struct nova_walk *w, struct super_block *sb, u64 ino,
		       u64 head, u64 tail, nova_entry_fn efn, nova_page_fn pfn,
		       void *arg, unsigned int flags);
bool nova_log_mirrored(struct nova_sb_info *sbi, u64 ino);
u64 nova_log_mirror_of(struct nova_sb_info *sbi, u64 page);

/*
 * The mirror of log page @page, for writers, or 0 if there is none (a
 * log without mirrors, or a damaged pair: nova_log_mirror_of()). The
 * feature test inline: every log store asks, protection off or not.
 */
static inline u64 nova_log_mirror(struct nova_sb_info *sbi, u64 page)
{
	if (!(sbi->prot & NOVA_FEATURE_LOG_REPLICA))
		return 0;
	return nova_log_mirror_of(sbi, page);
}
void nova_log_store(struct nova_sb_info *sbi, u64 off, const void *src,
		    unsigned int len);
void nova_log_pad(struct nova_sb_info *sbi, u64 off);
void nova_log_link(struct nova_sb_info *sbi, u64 page, u64 next);
int nova_log_alloc_mirror(struct super_block *sb, u64 ino, u64 *mirror);
void nova_log_init_page(struct nova_sb_info *sbi, u64 ino, u64 page,
			u64 mirror);
int nova_log_new_page(struct super_block *sb, u64 ino, u64 *page);
void nova_log_free_page(struct super_block *sb, u64 page);

/* The tail of log page @page (a block offset). */
static inline struct nova_log_page_tail *
nova_log_page_tail(struct nova_sb_info *sbi, u64 page)
{
	return nova_addr(sbi, page + NOVA_LOG_DATA_SIZE);
}

/* The log page holding offset @off. */
static inline u64 nova_log_page_of(u64 off)
{
	return off & ~((u64)NOVA_BLOCK_SIZE - 1);
}

/*
 * The layout rule of every log: an entry of @size bytes goes at @pos if it
 * ends within the data area of @pos's page, else at the start of the next
 * page (the rest of this one padded).
 */
static inline bool nova_log_fits(u64 pos, unsigned int size)
{
	return pos + size <= nova_log_page_of(pos) + NOVA_LOG_DATA_SIZE;
}

/*
 * The log writer: the one place that lays entries out in log pages, for
 * file and directory logs (nova_log_append()), the snapshot log and
 * thorough GC's new logs. It needs no VFS inode:
 *
 *	nova_log_begin(&lw, sbi, ino, lock, head, pos);
 *	err = nova_log_put(&lw, entry);		(as often as needed)
 *	tail = nova_log_end(&lw);		(the tail to commit)
 *
 * Each entry put is durable after the next fence, in the page and in its
 * mirror, and visible once a commit publishes a tail at or past it; the
 * commit fences first (nova_pmem_commit64(), nova_journal_commit()). The
 * page tail hints (lt_entries, lt_valid) are plain stores in the primary
 * only, never written back (nova_log_invalidate()).
 *
 * How the log grows is the caller's policy, @extend, called (out of line,
 * never on the common path) only when the log has no page yet (@page 0)
 * or an entry does not fit in the rest of page @page and its lt_next is
 * 0. It returns in *@next an empty initialised page (nova_log_init_page())
 * attached to the head slot or linked after @page. A log that others can
 * reach gets the page durable before the store that reaches it (the file
 * log: nova_gc_extend_log(); NULL: nova_log_grow_page()); a chain nothing
 * reaches yet (thorough GC) may link first and fence once before its
 * switch.
 */
struct nova_log_writer;
typedef int (*nova_log_extend_fn)(struct nova_log_writer *lw, u64 page,
				  u64 *next);

struct nova_log_writer {
	struct nova_sb_info *sbi;
	u64 ino;			/* the log's owner (page tails, mirrors) */
	u64 pos;			/* where the next entry goes, 0: no page */
	u64 last;			/* the last entry put (set by each put) */
	__le64 *head;			/* the head slot, for nova_log_grow_page() */
	nova_log_extend_fn extend;
	void *arg;			/* for @extend */
};

/*
 * Start writing the log of inode @ino at @pos: its committed tail, or its
 * head if it has no tail, or 0 if it has no page. The caller holds @lock,
 * the lock of that log (nova.h), until it has committed or given up.
 */
static inline void nova_log_begin(struct nova_log_writer *lw,
				  struct nova_sb_info *sbi, u64 ino,
				  struct mutex *lock, __le64 *head, u64 pos)
{
	lockdep_assert_held(lock);
	lw->sbi = sbi;
	lw->ino = ino;
	lw->pos = pos;
	lw->head = head;
	lw->extend = NULL;
	lw->arg = NULL;
}

int nova_log_put(struct nova_log_writer *lw, void *entry);
int nova_log_put_sealed(struct nova_log_writer *lw, const void *entry,
			bool valid);
int nova_log_grow_page(struct nova_log_writer *lw, u64 page, u64 *next);

/* The tail to commit: past the last entry put. */
static inline u64 nova_log_end(const struct nova_log_writer *lw)
{
	return lw->pos;
}

int nova_log_append(struct inode *inode, void *entry, u64 *tail);
void nova_log_commit(struct inode *inode, u64 tail);
void nova_log_free(struct inode *inode);
void nova_log_apply_range(struct inode *inode, u64 from, u64 to);
void nova_log_apply_range_arg(struct inode *inode, u64 from, u64 to,
			      void *arg);
void nova_log_invalidate(struct inode *inode, u64 entry_off);
void nova_lock_logs(struct inode **inodes, int n);
void nova_unlock_logs(struct inode **inodes, int n);

/* itable.c */
int nova_inode_tables_format(struct super_block *sb,
			     const struct nova_format_plan *plan);
int nova_inode_tables_load(struct super_block *sb, bool slots);
void nova_inode_tables_destroy(struct super_block *sb);
int nova_imap_mark_used(struct super_block *sb, unsigned int cpu,
			unsigned int idx);
int nova_imap_mark_ino(struct super_block *sb, u64 ino);
void nova_inode_counts(struct super_block *sb, u64 *total, u64 *free);
int nova_alloc_ino(struct super_block *sb, u64 *ino);
void nova_free_ino(struct super_block *sb, u64 ino);

/* inode_slot.c */
static inline bool nova_replicas(struct nova_sb_info *sbi)
{
	return sbi->prot & NOVA_FEATURE_META_REPLICA;
}

struct nova_inode *nova_get_pinode(struct super_block *sb, u64 ino);
struct nova_inode *nova_replica_pi(struct nova_sb_info *sbi, const void *pi);
__le64 *nova_replica_word(struct nova_sb_info *sbi, __le64 *word);
void nova_write_slot(struct nova_sb_info *sbi, struct nova_inode *pi,
		     const struct nova_inode *tmp);
void nova_pi_commit64(struct nova_sb_info *sbi, __le64 *word, u64 val);
void nova_pi_commit_tail(struct nova_sb_info *sbi, struct nova_inode *pi,
			 u64 tail);
void nova_pi_sync_words(struct nova_sb_info *sbi, struct nova_inode *pi);
void nova_pi_resolve_words(struct super_block *sb, struct nova_inode *pi,
			   u64 ino, bool after_crash, u64 *head, u64 *tail);
struct nova_verify_result;
void nova_pi_check_log_words(struct inode *inode, bool repair,
			     struct nova_verify_result *res);

/* What nova_inode_check() found. */
enum nova_slot_state {
	NOVA_SLOT_OK,		/* the primary is good */
	NOVA_SLOT_REPAIRED,	/* it was bad, rewritten from the replica */
	NOVA_SLOT_REPLICA,	/* it is bad, the replica is good (read-only) */
	NOVA_SLOT_BAD,		/* no good copy */
};

enum nova_slot_state nova_inode_check(struct super_block *sb,
				      struct nova_inode *pi, u64 ino,
				      bool repair, struct nova_inode **good);
enum nova_slot_state nova_inode_check_replica(struct super_block *sb,
					      struct nova_inode *pi, u64 ino,
					      bool repair);

/* iget.c */
struct inode *nova_iget(struct super_block *sb, u64 ino);
struct inode *nova_iget_reserved(struct super_block *sb, u64 ino);
int nova_read_inode(struct inode *inode, u64 ino, u64 epoch);
void nova_set_ops(struct inode *inode);
void nova_init_ni(struct nova_inode_info *ni);
int nova_apply_entry(struct inode *inode, u64 off, void *entry, void *arg);

/* inode.c */
struct inode *nova_new_inode(nova_idmap_t *idmap, struct inode *dir,
			     umode_t mode, dev_t rdev, u64 *trans);
void nova_rewrite_new_inode(struct inode *inode, u32 flags, const void *inl,
			    size_t len);
void nova_commit_new_inode(struct inode *inode);
void nova_discard_inode(struct inode *inode);
void nova_evict_inode(struct inode *inode);

/* attr.c */
extern const struct inode_operations nova_special_inode_operations;
int nova_setattr(nova_idmap_t *idmap, struct dentry *dentry,
		 struct iattr *attr);
int nova_getattr(nova_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
int nova_update_time(struct inode *inode, struct timespec64 *t, int flags);
void nova_setattr_entry(struct inode *inode, struct nova_setattr_entry *sa,
			u32 mask, u64 trans);
int nova_link_change_entry(struct inode *inode, unsigned int links,
			   u64 trans, u64 *tail);

/* quota.c: user, group and project quotas (NOVA_FEATURE_QUOTA) */
#define NOVA_QUOTA_TYPES	3	/* USRQUOTA, GRPQUOTA, PRJQUOTA */
nova_dquot_t **nova_get_dquots(struct inode *inode);
void nova_quota_setup_sb(struct super_block *sb);
int nova_quota_on(struct super_block *sb, unsigned int limits);
void nova_quota_off(struct super_block *sb);
unsigned int nova_quota_limits(struct super_block *sb);
bool nova_quota_loaded(struct super_block *sb);
void nova_quota_recount(struct super_block *sb, const char *why);
void nova_quota_charge(struct inode *inode);
int nova_quota_check(struct inode *inode, unsigned long blocks);
void nova_quota_free_inode(struct inode *inode);
void nova_quota_transfer_back(struct inode *inode);
int nova_quota_transfer_projid(struct inode *inode, u32 projid);
ssize_t nova_quota_read(struct super_block *sb, int type, char *data,
			size_t len, loff_t off);
ssize_t nova_quota_write(struct super_block *sb, int type, const char *data,
			 size_t len, loff_t off);

/* fileattr.c */
struct fileattr;
void nova_set_inode_flags(struct inode *inode);
void nova_fileattr_statx(struct inode *inode, struct kstat *stat);
int nova_fileattr_inherit(struct inode *inode, struct inode *dir);
u32 nova_fileattr_new_projid(struct inode *dir);
int nova_fileattr_projid_check(struct inode *dir, struct inode *inode);
int nova_fileattr_get(struct dentry *dentry, struct fileattr *fa);
int nova_fileattr_set(nova_idmap_t *idmap, struct dentry *dentry,
		      struct fileattr *fa);

/* dir.c */
extern const struct file_operations nova_dir_operations;
struct nova_dentry_node *nova_dir_find(struct inode *dir, const char *name,
				       unsigned int len);
int nova_dir_entry(struct inode *dir, const char *name, unsigned int len,
		   struct inode *child, unsigned int links, u64 trans,
		   u64 *tail);
void nova_dir_apply(struct inode *dir, u64 off,
		    struct nova_dentry_entry *de, bool runtime);
void nova_dir_free_index(struct inode *dir);
bool nova_dir_empty(struct inode *dir);

/* namei.c */
extern const struct inode_operations nova_dir_inode_operations;
extern const struct export_operations nova_export_ops;

/* file.c */
extern const struct file_operations nova_file_operations;
extern const struct inode_operations nova_file_inode_operations;
extern const struct inode_operations nova_symlink_inode_operations;
void nova_file_apply_write(struct inode *inode, u64 off,
			   struct nova_file_write_entry *fw, bool runtime);
void nova_file_drop_pages(struct inode *inode, pgoff_t from, bool runtime);

/*
 * The byte offset where @n pages from @pgoff end. Unsigned: the last page
 * a file can have (NOVA_MAX_PGOFF) ends at 2^63, past any loff_t.
 */
static inline u64 nova_pages_end(pgoff_t pgoff, u64 n)
{
	return (u64)(pgoff + n) << PAGE_SHIFT;
}

/*
 * The file pages [*@from, *@to) range entry @rg drops (nova_range_drop(),
 * the rule shared with fsck.NOVA); false if the entry is malformed.
 */
static inline bool nova_range_entry_drop(const struct nova_range_entry *rg,
					 u64 *from, u64 *to)
{
	return nova_range_drop(le32_to_cpu(rg->rg_kind),
			       le64_to_cpu(rg->rg_pgoff),
			       le64_to_cpu(rg->rg_pages),
			       from, to);
}

void nova_file_apply_range(struct inode *inode, u64 off,
			   struct nova_range_entry *rg, bool runtime,
			   struct xarray *moved);
int nova_fill_old(struct inode *inode, void *dst, pgoff_t pgoff,
		  unsigned int from, unsigned int to, loff_t oldsize);
ssize_t nova_file_write_kernel(struct inode *inode, const void *buf,
			       size_t len, loff_t pos);

/* falloc.c */
long nova_fallocate(struct file *file, int mode, loff_t offset, loff_t len);
void nova_file_free_index(struct inode *inode);
int nova_break_mapped_layouts(struct inode *inode, loff_t start, loff_t end);

/*
 * Make [start, end] of the file unreachable through user mappings before
 * its blocks are replaced or freed. Caller holds the invalidate lock. A
 * file that was never mapped (no DAX entries in its mapping, the case of
 * every write(2) to a file nobody maps) has nothing to break: checked
 * here, without a call.
 */
static inline int nova_break_layouts(struct inode *inode, loff_t start,
				     loff_t end)
{
	lockdep_assert_held(&inode->i_mapping->invalidate_lock);
	if (!inode->i_mapping->nrpages)
		return 0;
	return nova_break_mapped_layouts(inode, start, end);
}
int nova_zero_eof_tail(struct inode *inode, loff_t size);
void nova_file_write_entry_init(struct nova_sb_info *sbi,
				struct nova_file_write_entry *fw, u64 trans,
				pgoff_t pgoff, u32 nr, u64 blk);
int nova_file_cow_page(struct inode *inode, pgoff_t pgoff, unsigned int off,
		       u64 old);
u64 nova_file_shown_block(struct inode *inode, pgoff_t pgoff);
u64 nova_file_block(struct inode *inode, pgoff_t pgoff);
u64 nova_file_block_run(struct inode *inode, pgoff_t pgoff,
			unsigned long *run);

/* dax.c */
extern const struct address_space_operations nova_dax_aops;
extern const struct iomap_ops nova_iomap_ops;
int nova_fiemap(struct inode *inode, struct fiemap_extent_info *fi,
		u64 start, u64 len);
int nova_file_mmap(struct file *file, struct vm_area_struct *vma);
int nova_view_mmap(struct file *file, struct vm_area_struct *vma);

/* snapshot.c */
#define NOVA_EPOCH_LIVE	U64_MAX

struct fs_context;

int nova_snapshot_load(struct super_block *sb);
void nova_snapshot_destroy(struct super_block *sb);
void nova_snapshot_reclaim_drain(struct super_block *sb);
int nova_snapshot_claim(struct super_block *sb, unsigned long *used,
			u64 *data_pages);
int nova_snapshot_select(struct super_block *sb, struct fs_context *fc,
			 u64 id, const char *name);
unsigned int nova_snapshot_count(struct super_block *sb);
bool nova_snapshot_keep(struct inode *inode, unsigned long blk, u64 born);
bool nova_snapshot_shows(struct super_block *sb, u64 born);
bool nova_snapshot_entry_reclaimable(struct super_block *sb, u64 epoch);
int nova_snapshot_view_get(struct super_block *sb, u64 id, u64 *epoch);
void nova_snapshot_view_put(struct super_block *sb, u64 id);
bool nova_snapshot_browsed(struct super_block *sb, u64 id);
u64 nova_snapshot_view_find(struct super_block *sb, const char *name,
			    unsigned int len);
bool nova_snapshot_view_next(struct super_block *sb, u64 from, u64 *id,
			     char *buf);

/* Keep records staged by an operation, committed with its log tail. */
struct nova_snap_stage {
	bool locked;			/* holds the snapshot table lock */
	struct list_head runs;		/* records to write */
	struct xarray blocks;		/* block -> staged */
};

void nova_snapshot_stage_init(struct nova_snap_stage *st);
int nova_snapshot_stage_range(struct inode *inode, struct nova_snap_stage *st,
			      pgoff_t first, pgoff_t last);
int nova_snapshot_stage_commit(struct inode *inode, struct nova_snap_stage *st,
			       u64 tail);
void nova_snapshot_stage_done(struct inode *inode, struct nova_snap_stage *st);

/* Removed inodes a snapshot shows. */
typedef int (*nova_kept_inode_fn)(struct super_block *sb,
				  struct nova_inode *pi, u64 ino, void *arg);

int nova_snapshot_keep_inode(struct inode *inode);
bool nova_snapshot_evict_inode(struct inode *inode);
bool nova_snapshot_shows_inode(struct super_block *sb, u64 ino, u32 gen,
			       u64 epoch);
int nova_snapshot_mark_inodes(struct super_block *sb, nova_kept_inode_fn fn,
			      void *arg);

/* What only snapshots hold, for the scrub. */
struct nova_snap_pos {
	u64 snap;			/* id of the snapshot being visited */
	u64 skip;			/* blocks of its runs visited */
};

typedef int (*nova_held_block_fn)(struct super_block *sb, unsigned long blk,
				  void *arg);

int nova_snapshot_visit_runs(struct super_block *sb, struct nova_snap_pos *pos,
			     unsigned int max, nova_held_block_fn fn, void *arg);
int nova_snapshot_kept_inode(struct super_block *sb, u64 idx, u64 *ino,
			     u32 *gen);
int nova_snapshot_with_kept_inode(struct super_block *sb, u64 ino, u32 gen,
				  int (*fn)(struct super_block *sb, u64 ino,
					    void *arg),
				  void *arg);
u64 nova_snapshot_max_trans(struct super_block *sb);
int nova_snapshot_span(struct super_block *sb, u64 id, u64 *epoch, u64 *trans);
int nova_snapshot_kept_at(struct super_block *sb, u64 idx,
			  int (*fn)(struct super_block *sb, u64 ino, u64 born,
				    u64 dead, void *arg),
			  void *arg);
int nova_snapshot_walk_log(struct super_block *sb, nova_entry_fn entry_fn,
			   nova_page_fn page_fn, void *arg, unsigned int flags,
			   u64 *head, u64 *tail);
/* snap_reclaim.c */
int nova_snap_inode_pages(struct super_block *sb, u64 ino, u32 gen,
			  struct xarray *pages);

/*
 * An inode showing a snapshot (a snapshot mount, a view inode) does not
 * replay entries written after it.
 */
static inline bool nova_snapshot_hides(struct nova_inode_info *ni,
				       const struct nova_log_entry_header *h)
{
	return le64_to_cpu(h->e_epoch_id) > ni->view_epoch;
}

/*
 * snapview.c: the .snapshots directory and the read-only view inodes of
 * snapshots under it. View inode numbers have the top bit set (nova inode
 * numbers are far below it), so they never meet a live inode's.
 */
#define NOVA_SNAPDIR_NAME	".snapshots"
#define NOVA_VIEW_INO_BIT	(1UL << 63)

static inline bool nova_is_view(struct inode *inode)
{
	return inode->i_ino & NOVA_VIEW_INO_BIT;
}

/* The readdir position of .snapshots in the root (snapdir=visible). */
#define NOVA_SNAPDIR_POS	((loff_t)1 << 40)

extern const struct file_operations nova_view_file_operations;
extern const struct file_operations nova_view_dir_operations;
struct inode *nova_snapdir_inode(struct super_block *sb);
bool nova_snapdir_name(struct inode *dir, const struct qstr *name);
void nova_snapdir_emit(struct inode *dir, struct dir_context *ctx);
unsigned long nova_view_d_ino(struct inode *dir, u64 ino);
void nova_view_set_ops(struct inode *inode);
void nova_view_evict(struct inode *inode);

/* gc.c */
struct nova_gc_info;

int nova_gc_init(struct super_block *sb);
void nova_gc_stop(struct super_block *sb);
void nova_gc_destroy(struct super_block *sb);
void nova_gc_init_inode(struct nova_inode_info *ni);
void nova_gc_forget_inode(struct inode *inode);
int nova_gc_extend_log(struct inode *inode, u64 page, u64 *next);
void nova_gc_dentry(struct inode *dir, u64 off, struct nova_dentry_entry *de,
		    bool runtime);
void nova_gc_setattr(struct inode *inode, u64 off,
		     const struct nova_setattr_entry *sa, bool runtime);
void nova_gc_get_stats(struct super_block *sb, struct nova_fs_stats *st);

/* recovery.c */
int nova_recover_journals(struct super_block *sb);
int nova_recover(struct super_block *sb);
int nova_recover_space_check(struct super_block *sb);

/* stats.c */

/* Operation counters of one CPU: summed when the control plane asks. */
struct nova_op_stats {
	u64 count[NOVA_CTL_OP_NR];
	u64 time_ns[NOVA_CTL_OP_NR];
};

/*
 * Operation times: on x86 with a usable TSC at a constant rate the raw
 * TSC (one rdtsc, no call: local_clock() was about 70 instructions per
 * operation in the reference bench), converted to ns with tsc_khz when
 * the control plane reads the totals; elsewhere local_clock(), cheaper
 * than ktime_get() (which reads the clocksource, an HPET register under
 * emulators). Both are monotonic on one CPU and close across CPUs, which
 * is enough for totals. The choice is made once, at module load
 * (nova_op_clock_init()).
 */
#ifdef CONFIG_X86_TSC
DECLARE_STATIC_KEY_FALSE(nova_op_tsc);
#endif

static inline u64 nova_op_start(void)
{
#ifdef CONFIG_X86_TSC
	if (static_branch_likely(&nova_op_tsc))
		return rdtsc();
#endif
	return local_clock();
}

void nova_op_clock_init(void);
int nova_stats_init(struct super_block *sb);
void nova_stats_destroy(struct super_block *sb);
void nova_op_done(struct super_block *sb, enum nova_ctl_op op, u64 start);

#endif /* _NOVA_H */

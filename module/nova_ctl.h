/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the file-system core offers the control plane (genl*.c): the
 * statistics, snapshots, garbage collection and scrub services below.
 * The dependency goes one way: the control plane calls these; the core
 * never calls the control plane. It reports damage and life events
 * (mounted, unmounting, relabelled, scrub finished) through health.h,
 * whose notifier chains genl_fs.c and genl_scrub.c listen to. Only the
 * module's init and exit (super.c) call nova_ctl_init()/nova_ctl_exit(),
 * first and last.
 *
 * Services marked so below are called with an active reference on sb
 * (nova_ctl_get_sb()) and without the registry mutex; nova_fs_get_stats()
 * is called with the registry mutex held, which unmounting also takes
 * (through the UNMOUNTING event), so sb stays alive meanwhile.
 *
 * Locking (nova.h): the registry mutex (nova_ctl_lock) is taken with no
 * file-system lock held.
 */
#ifndef _NOVA_CTL_H
#define _NOVA_CTL_H

#include <linux/types.h>
#include <linux/time64.h>

struct super_block;

/* Operations counted per file system (count and total time). */
enum nova_ctl_op {
	NOVA_CTL_OP_READ,
	NOVA_CTL_OP_WRITE,
	NOVA_CTL_OP_FSYNC,
	NOVA_CTL_OP_FAULT,
	NOVA_CTL_OP_LOOKUP,
	NOVA_CTL_OP_CREATE,
	NOVA_CTL_OP_MKDIR,
	NOVA_CTL_OP_UNLINK,
	NOVA_CTL_OP_RMDIR,
	NOVA_CTL_OP_RENAME,
	NOVA_CTL_OP_LINK,
	NOVA_CTL_OP_SYMLINK,
	NOVA_CTL_OP_SETATTR,
	NOVA_CTL_OP_READDIR,
	NOVA_CTL_OP_NR
};

#define NOVA_CTL_LABEL_LEN	32

struct nova_fs_stats {
	u8  uuid[16];
	char label[NOVA_CTL_LABEL_LEN];	/* NUL-terminated */
	u32 format_version;
	u32 cpus;			/* per-CPU stripes on media */
	u64 block_size;			/* bytes, 4096 */
	u64 blocks_total;		/* blocks the allocator manages */
	u64 blocks_free;
	u64 inodes_total;		/* inode slots in the inode tables */
	u64 inodes_free;
	u64 log_pages;			/* pages in per-inode logs */
	u64 data_pages;			/* pages holding file data */
	u64 epoch;			/* current snapshot epoch */
	u64 snapshots;			/* live snapshots */
	u64 snap_reclaim_blocks;	/* kept runs' blocks waiting to be freed */
	u64 snap_reclaim_inodes;	/* removed inodes waiting to be freed */
	u64 snap_reclaimed;		/* blocks the reclaim worker freed */
	u64 mount_time_ns;		/* duration of the last mount */
	bool recovered;			/* last mount ran crash recovery */
	bool space_check_pending;	/* page counters provisional */
	bool read_only;
	u64 op_count[NOVA_CTL_OP_NR];
	u64 op_time_ns[NOVA_CTL_OP_NR];
	/* log garbage collection since mount (gc.c) */
	u64 gc_fast_pages;		/* log pages freed by fast GC */
	u64 gc_thorough_runs;		/* logs rewritten by thorough GC */
	u64 gc_thorough_pages;		/* log pages thorough GC saved */
	u64 gc_entries_copied;		/* entries thorough GC wrote */
	u64 gc_time_ns;			/* time spent collecting */
	/* integrity scrub since mount (scrub.c) */
	u32 scrub_state;		/* enum nova_scrub_state */
	u64 scrub_passes;		/* passes finished */
	u64 scrub_bytes;		/* bytes read, all passes */
	u64 scrub_errors;		/* bad objects found */
	u64 scrub_repaired;
	u64 scrub_unrecoverable;
	/* data protection (protect.c; NOVA_STATS_A_PROTECTION) */
	bool prot_csum;			/* the format keeps data checksums */
	bool prot_parity;		/* ... and data parity */
	bool prot_verify;		/* reads are verified */
	u64 prot_verified;		/* strips verified since mount */
	u64 prot_repaired;		/* strips, checksums, parity rewritten */
	u64 prot_unrecoverable;		/* pages beyond repair */
	u64 bb_blocks;			/* listed bad at mount (badblocks.c) */
	u64 bb_repaired;
	u64 bb_lost;
	u64 bb_withheld;		/* free blocks kept from allocation */
};

/* One snapshot, as the control plane reports it. */
#define NOVA_CTL_SNAPSHOT_NAME_LEN	64

struct nova_snapshot_info {
	u64 id;
	u64 epoch;
	struct timespec64 ctime;
	char name[NOVA_CTL_SNAPSHOT_NAME_LEN];	/* NUL-terminated, may be "" */
	u64 excl_blocks;	/* held by it alone (list only), U64_MAX: not sent */
};

int nova_ctl_init(void);
void nova_ctl_exit(void);

void nova_fs_get_stats(struct super_block *sb, struct nova_fs_stats *st);

/*
 * Snapshots (snapshot.c). Called without the registry mutex but with an
 * active reference on sb (create freezes the file system, which takes
 * s_umount, and unmount takes s_umount before the registry mutex).
 */
int nova_snapshot_create(struct super_block *sb, const char *name,
			 struct nova_snapshot_info *info);
int nova_snapshot_lookup(struct super_block *sb, u64 id, const char *name,
			 struct nova_snapshot_info *info);
int nova_snapshot_delete(struct super_block *sb, u64 id,
			 struct nova_snapshot_info *info, u64 *ticket);
int nova_snapshot_reclaim_wait(struct super_block *sb, u64 ticket);
void nova_snapshot_reclaim_stats(struct super_block *sb,
				 struct nova_fs_stats *st);
int nova_snapshot_list(struct super_block *sb, u64 from,
		       struct nova_snapshot_info *out, int max,
		       unsigned int *gen);

/*
 * What changed between two epochs (snapdiff.c, NOVA_CMD_SNAPSHOT_DIFF).
 * The range is resolved from snapshot ids by nova_snapdiff_range(); the
 * position walks the root, the inode tables and the removed inodes
 * snapshots keep, and may be copied and restored by the caller (a dump
 * whose message did not fit resumes at the copy).
 */
struct nova_snapdiff_range {
	u64 old_epoch, old_trans;
	u64 new_epoch, new_trans;	/* NOVA_EPOCH_LIVE, U64_MAX: live */
};

struct nova_snapdiff_pos {
	u64 idx;			/* table slot, or kept-list position */
	u32 cpu;
	u8 stage;			/* 0: not started */
};

struct nova_snapdiff_item {
	u64 ino;
	u32 mode;			/* S_IFMT bits */
	u32 change;			/* enum nova_snapdiff_change */
};

int nova_snapdiff_range(struct super_block *sb, u64 old_id, u64 new_id,
			struct nova_snapdiff_range *r);
int nova_snapdiff_next(struct super_block *sb,
		       const struct nova_snapdiff_range *r,
		       struct nova_snapdiff_pos *pos,
		       struct nova_snapdiff_item *out);

/* What one garbage collection request did (gc.c). */
struct nova_gc_result {
	u64 ino;			/* inode asked for, 0: every inode */
	u64 inodes;			/* inodes collected */
	u64 log_pages_before;		/* their log pages before */
	u64 log_pages_after;		/* and after */
	u64 fast_pages;			/* pages fast GC freed */
	u64 thorough_runs;		/* logs thorough GC rewrote */
	u64 entries_copied;
	u64 time_ns;
};

/*
 * Collect the logs of inode @ino, or of every inode (@ino 0), now (gc.c).
 * Called without the registry mutex but with an active reference on sb;
 * may take long and sleeps. *@res is filled in also on error.
 */
int nova_gc_request(struct super_block *sb, u64 ino,
		    struct nova_gc_result *res);

/*
 * Integrity scrub: scrub.h (the per-file-system struct nova_scrub hangs
 * off nova_sb_info, created by nova_scrub_get() on the first start and
 * freed at unmount).
 */

#endif /* _NOVA_CTL_H */

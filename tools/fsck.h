/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fsck.NOVA internals: the checker's state, shared by its phases.
 *
 *   fsck_super.c   superblock primary and replica
 *   fsck_tables.c  reserved inodes, inode tables, journals
 *   fsck_log.c     walking one inode's log, replaying its entries
 *   fsck_tree.c    the namespace: dentries, link counts, orphans
 *   fsck_space.c   block ownership, saved allocator state, leaks, counters
 *   fsck_prot.c    data checksums and parity (format 1.2)
 *   fsck_repair.c  the few repairs that are safe
 *   fsck_run.c     the order of the phases, messages, exit status
 *
 * Every pointer read from the media is range-checked against the device
 * before use, and every walk is bounded by the number of blocks, so a
 * corrupted image can make fsck report errors but never crash or loop.
 */
#ifndef NOVA_TOOLS_FSCK_H
#define NOVA_TOOLS_FSCK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dev.h"
#include "format.h"

/* fsck(8) exit status bits. */
#define FSCK_OK			0
#define FSCK_CORRECTED		1
#define FSCK_REBOOT		2
#define FSCK_UNCORRECTED	4
#define FSCK_OPERATIONAL	8
#define FSCK_USAGE		16
#define FSCK_CANCELLED		32

enum fsck_mode {
	FSCK_NO_CHANGES,	/* -n, or no repair option */
	FSCK_PREEN,		/* -p / -a: safe repairs, no questions */
	FSCK_YES,		/* -y: every repair fsck.NOVA knows */
};

struct fsck_opts {
	enum fsck_mode mode;
	bool force;		/* check even if the fs is clean (-f) */
	int verbose;		/* -v */
	FILE *out;		/* report (stdout) */
	unsigned long max_messages;	/* per kind, 0 = unlimited */
	bool progress;		/* -C FD: report progress on progress_fd */
	int progress_fd;	/* 0: a bar on stdout; >0: lines for fsck(8) */
};

/* Passes, for progress (-C): as e2fsck numbers its five. */
enum fsck_pass {
	FSCK_PASS_META = 1,	/* superblock, journals, inode tables */
	FSCK_PASS_LOGS,		/* every inode's log */
	FSCK_PASS_TREE,		/* the namespace */
	FSCK_PASS_SPACE,	/* free space */
	FSCK_PASS_PROT,		/* checksums and parity */
};

/* What a block is used for, in the ownership map. */
enum fsck_bkind {
	BK_FREE = 0,		/* not referenced (free or leaked) */
	BK_FIXED,		/* blocks 0..3 and the replica superblock */
	BK_TABLE,		/* inode table */
	BK_JOURNAL,
	BK_LOG,			/* inode log page */
	BK_DATA,		/* file data or symlink target */
	BK_STATE,		/* allocator state log page */
	BK_NR
};

/* One valid inode, as the checker saw it. */
struct fsck_inode {
	uint64_t ino;
	uint64_t pi_off;	/* offset of its struct nova_inode */
	uint64_t src_off;	/* the good copy's (the replica's if only
				 * it is good), for the static fields */
	uint64_t head, tail;	/* log words the log is checked with: the
				 * primary's, or the replica's when its
				 * log proves newer (fsck_tables.c) */
	uint16_t mode;		/* after replaying the log */
	bool bad;		/* log unusable: contents not checked */
	bool reached;		/* found in the namespace */
	uint32_t links;		/* link count after replaying the log */
	uint32_t refs;		/* names that point to it */
	uint32_t subdirs;	/* directories: child directories */
	uint64_t parent;	/* directories: ".." */
	uint64_t size;
	uint64_t data_pages;
	uint64_t log_pages;
};

/* A name in a directory, after replay. */
struct fsck_dent {
	uint64_t dir;
	uint64_t ino;
	uint64_t entry_off;	/* the dentry entry on the media */
	uint64_t pos;		/* readdir position */
	uint8_t type;		/* DT_* */
	uint8_t name_len;
};

/* The repairs fsck.NOVA knows; each is safe (see fsck_repair.c). */
enum fsck_repair {
	REP_SUPER,		/* rewrite a bad or stale superblock copy */
	REP_HINTS,		/* superblock counters of a clean fs */
	REP_JOURNAL,		/* roll back an open journal transaction */
	REP_STATE,		/* rebuild a wrong saved allocator state */
	REP_INODE,		/* rewrite a bad inode slot copy (1.3) */
	REP_LOG,		/* rewrite a bad log entry or tail copy (1.4) */
	REP_BITMAP,		/* rewrite wrong allocation bitmap words (1.9) */
	REP_NR
};

/* A byte range of one inode slot copy rewritten from the other. */
struct fsck_copy {
	uint64_t dst, src;
	uint32_t len;
};

/* Bytes to write at an offset: a log object's copy rebuilt (REP_LOG). */
struct fsck_patch {
	uint64_t dst;
	uint32_t len;
	uint8_t *data;
};

/* A journal record to be undone (open transaction). */
struct fsck_undo {
	uint64_t addr;
	uint64_t old;
	uint64_t raddr;		/* the word's inode replica copy, or 0 */
};

struct fsck {
	struct nova_dev *dev;
	struct fsck_opts o;

	/* progress (-C): last reported, in tenths of a percent overall */
	int progress_last;
	bool progress_bar;		/* a bar is on the screen */

	/* superblock */
	struct nova_super_block sb;	/* the copy checked against */
	struct nova_super_block orig_sb_hints;	/* before hint fixes */
	bool primary_ok, replica_ok;
	uint64_t nblocks;		/* of the file system */
	struct nova_layout layout;	/* allocatable range, protection areas */
	unsigned int cpus;
	bool clean;			/* s_state says clean */

	/* block ownership */
	uint8_t *bkind;			/* enum fsck_bkind per block */
	uint64_t *bowner;		/* inode number (0: fixed metadata) */
	uint8_t *bsymlink;		/* 1: a block symlink's target */

	/* inodes, open addressing by inode number */
	struct fsck_inode *inodes;
	uint64_t nr_inodes, cap_inodes;

	/* names */
	struct fsck_dent *dents;
	uint64_t nr_dents, cap_dents;

	/* open journal transactions, read as if rolled back */
	struct fsck_undo *undo;
	unsigned int nr_undo;

	/* inode slot copies to rewrite (REP_INODE) */
	struct fsck_copy *copies;
	unsigned long nr_copies, cap_copies;

	/* log entry and page tail copies to rewrite (REP_LOG) */
	struct fsck_patch *patches;
	unsigned long nr_patches, cap_patches;

	/* allocator state */
	bool state_present;		/* clean and ALLOC_INO has a log */
	bool state_valid;		/* ... and it parsed */
	uint64_t free_blocks;		/* in the saved state */

	/* allocation bitmap (fsck_bitmap.c, 1.9) */
	uint64_t bitmap_leaked;		/* set, not in use: a crash's leftovers */

	/* snapshots (fsck_snap.c) */
	unsigned int live_snapshots;
	uint64_t max_snap_epoch;
	bool any_snap_epoch;

	/* counters */
	uint64_t log_pages, data_pages, meta_blocks, state_pages;
	uint64_t table_blocks;
	uint64_t max_trans;

	/* results */
	unsigned long problems;		/* found */
	unsigned long fixable[REP_NR];	/* of them, repairable, by repair */
	unsigned long fixed;		/* of them, repaired */
	bool operational;		/* could not check (I/O, memory) */
	bool cancelled;
	unsigned long msg_count;
};

/* Messages (fsck_run.c). problem() counts an inconsistency. */
void fsck_problem(struct fsck *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fsck_problem_fix(struct fsck *f, enum fsck_repair rep,
		      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fsck_info(struct fsck *f, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void fsck_fixed(struct fsck *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void fsck_oper(struct fsck *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Media access with range checks (fsck_run.c). NULL if out of range. */
const void *fsck_ptr(struct fsck *f, uint64_t off, uint64_t len);
/* A commit word, as it reads after rolling back open transactions. */
uint64_t fsck_word(struct fsck *f, const __le64 *word);
/* Does an open transaction record @word (its value before: *@old)? */
bool fsck_journaled(struct fsck *f, const __le64 *word, uint64_t *old);
static inline bool fsck_can_repair(const struct fsck *f)
{
	return f->o.mode != FSCK_NO_CHANGES;
}

/* Is [blk, blk + n) inside the allocatable area? */
static inline bool fsck_blocks_ok(const struct fsck *f, uint64_t blk,
				  uint64_t n)
{
	return blk >= f->layout.alloc_start && n <= f->layout.alloc_end &&
	       blk <= f->layout.alloc_end - n;
}

/* Phases. Each returns false if the checker cannot go on. */
bool fsck_check_super(struct fsck *f);
bool fsck_check_journals(struct fsck *f);
bool fsck_check_tables(struct fsck *f);
bool fsck_check_logs(struct fsck *f);
void fsck_check_tree(struct fsck *f);
void fsck_check_snapshots(struct fsck *f, struct fsck_inode *in);
void fsck_check_space(struct fsck *f);
void fsck_check_protection(struct fsck *f);
void fsck_check_bitmap(struct fsck *f);
void fsck_repair(struct fsck *f);

/* The block bits word @index of the allocation bitmap should hold. */
uint64_t fsck_bitmap_want(const struct fsck *f, uint64_t index);

/* Inodes and names (fsck_tables.c, fsck_tree.c). */
struct fsck_inode *fsck_inode_add(struct fsck *f, uint64_t ino);
struct fsck_inode *fsck_inode_find(struct fsck *f, uint64_t ino);
uint64_t fsck_slot_off(struct fsck *f, uint64_t ino);
/* A removed inode a live snapshot keeps (fsck_log.c, from fsck_snap.c). */
void fsck_check_kept_inode(struct fsck *f, uint64_t ino, uint64_t off);
bool fsck_dent_add(struct fsck *f, const struct fsck_dent *d);

/*
 * Walk a log (fsck_log.c): claim its pages as @kind for @ino and call @fn
 * for every committed entry (checksum and size already verified); @fn
 * returns false to stop. Returns false if the log is broken.
 */
typedef bool (*fsck_entry_fn)(struct fsck *f, uint64_t off,
			      const struct nova_log_entry_header *h, void *arg);
bool fsck_walk_log(struct fsck *f, uint64_t ino, uint64_t head, uint64_t tail,
		   enum fsck_bkind kind, fsck_entry_fn fn, void *arg,
		   uint64_t *npages);

/*
 * Weigh a candidate pair of log words of @ino (fsck_log.c) without
 * claiming, reporting or repairing anything: true if the log from @head
 * walks to @tail through good page tails and entries (as fsck_walk_log()
 * reads them: a bad copy next to a good mirror counts as good); no head is
 * whole only without a tail. *@max_trans: the newest e_trans_id walked.
 */
bool fsck_probe_log(struct fsck *f, uint64_t ino, uint64_t head,
		    uint64_t tail, uint64_t *max_trans);

/* Block ownership (fsck_space.c): false if a block was already owned. */
bool fsck_claim(struct fsck *f, uint64_t blk, uint64_t n,
		enum fsck_bkind kind, uint64_t owner, const char *what);
const char *fsck_bkind_name(enum fsck_bkind k);

/* The whole check (fsck_run.c); returns the fsck(8) exit status. */
int fsck_run(struct nova_dev *dev, const struct fsck_opts *o);

/*
 * Progress of PASS: CUR of MAX done. With -C 0 a bar on stdout (cleared
 * before any message); with -C FD > 0 the lines e2fsck writes for
 * fsck(8), "PASS CUR MAX DEVICE". Only on a change of a tenth of a
 * percent overall, so calling it per inode is cheap.
 */
void fsck_progress(struct fsck *f, enum fsck_pass pass, uint64_t cur,
		   uint64_t max);

#endif

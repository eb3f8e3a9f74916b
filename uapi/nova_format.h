/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA on-media format.
 *
 * This header is the single definition of the layout, shared by the kernel
 * module and by userspace tools (mkfs, fsck). It depends on <linux/types.h>
 * only. All multi-byte fields are little-endian. docs/format.md explains the
 * layout in prose; keep both in sync and bump NOVA_FORMAT_MINOR (compatible
 * additions) or NOVA_FORMAT_MAJOR (anything else) with every change.
 *
 * Units and conventions
 *   - The device is divided into 4 KiB blocks. A "block number" counts
 *     blocks from the start of the device; an "offset" is a byte offset from
 *     the start of the device. 0 is never a valid block number or offset for
 *     a log page, data page or table, because block 0 is the superblock.
 *   - Checksums are CRC-32C (Castagnoli, reflected polynomial 0x82f63b78),
 *     seed 0xffffffff, no final inversion: the value the kernel's
 *     crc32c(~0, buf, len) returns. The checksum field itself is taken as
 *     zero while computing.
 *   - Commit words. Some 8-byte fields are updated in place by a single
 *     aligned 8-byte store after everything they point to is durable (log
 *     tails, "valid" words, "next" pointers). They are the only fields
 *     written after a structure is first made durable, and they are NOT
 *     covered by the structure's checksum (a checksum cannot be updated
 *     atomically with them); readers range-check them instead. Every other
 *     field is written once, before the structure becomes reachable, and is
 *     covered by the checksum. Fields marked "hint" are advisory counters
 *     for garbage collection, also outside the checksum.
 *   - Timestamps are signed seconds since the epoch plus nanoseconds, so
 *     times before 1970 are representable.
 */
#ifndef _UAPI_NOVA_FORMAT_H
#define _UAPI_NOVA_FORMAT_H

#include <linux/types.h>

#define NOVA_SUPER_MAGIC	0x4e4f5641	/* "NOVA" */
#define NOVA_FORMAT_MAJOR	1
#define NOVA_FORMAT_MINOR	9	/* the newest this code knows */
/*
 * What mkfs.NOVA and -o init write: 1.7 and 1.8 only add features set on
 * first use (NOVA_FEATURE_QUOTA, NOVA_FEATURE_PROJID), so a new file
 * system is 1.6 until then.
 */
#define NOVA_MKFS_MINOR		6

#define NOVA_BLOCK_SHIFT	12
#define NOVA_BLOCK_SIZE		(1U << NOVA_BLOCK_SHIFT)

/* Fixed blocks at the start of the device. */
#define NOVA_SB_BLOCK			0	/* primary superblock */
#define NOVA_RESERVED_INODE_BLOCK	1	/* reserved inodes */
#define NOVA_JOURNAL_PTR_BLOCK		2	/* per-CPU journal pointers */
#define NOVA_INODE_TABLE_PTR_BLOCK	3	/* per-CPU inode table heads */
#define NOVA_FIRST_ALLOC_BLOCK		4	/* first block after them */
/* The replica superblock is the last block of the device. */

/* Smallest device worth formatting: fixed blocks, tables, journals, logs. */
#define NOVA_MIN_BLOCKS		2048		/* 8 MiB */

/* Per-CPU structures: at most one 64-byte record per CPU in a block. */
#define NOVA_MAX_CPUS		64

/* Superblock states (s_state). */
#define NOVA_STATE_CLEAN	1	/* unmounted cleanly, saved state valid */
#define NOVA_STATE_DIRTY	2	/* mounted read-write or crashed */

/*
 * Any other state is a damaged superblock copy (kernel and fsck.NOVA
 * alike): the checksum covers s_state, so only a bad writer gets here.
 */
static inline int nova_sb_state_known(__u32 state)
{
	return state == NOVA_STATE_CLEAN || state == NOVA_STATE_DIRTY;
}

#define NOVA_LABEL_LEN		32
#define NOVA_SB_SIZE		512

/*
 * Superblock: block 0 holds the primary copy, the last block of the device
 * a replica. Both are rewritten whole (primary, fence, replica, fence), so
 * after a crash at least one has a valid checksum.
 */
struct nova_super_block {
	__le32	s_magic;		/* NOVA_SUPER_MAGIC */
	__le32	s_csum;			/* crc32c of the NOVA_SB_SIZE bytes */
	__le16	s_version_major;	/* NOVA_FORMAT_MAJOR */
	__le16	s_version_minor;	/* NOVA_FORMAT_MINOR */
	__le32	s_blocksize;		/* NOVA_BLOCK_SIZE */
	__le64	s_size;			/* bytes of the file system */
	__le32	s_cpus;			/* per-CPU stripes (tables, journals) */
	__le32	s_state;		/* NOVA_STATE_* */
	__le32	s_feature_compat;
	__le32	s_feature_incompat;
	__le32	s_feature_ro_compat;
	__le32	s_reserved0;
	__u8	s_uuid[16];
	char	s_label[NOVA_LABEL_LEN];	/* NUL-padded */
	__le64	s_mkfs_time;		/* seconds */
	__le64	s_mount_time;		/* seconds, last mount */
	__le64	s_write_time;		/* seconds, last superblock write */
	__le64	s_mount_count;
	__le64	s_trans_id;		/* next transaction id; valid if clean */
	__le64	s_epoch_id;		/* current snapshot epoch */
	__le64	s_log_pages;		/* valid if clean */
	__le64	s_data_pages;		/* valid if clean */
	__le64	s_free_blocks;		/* valid if clean (informational) */
	/* 1.2: the device layout, as nova_layout_compute() gives it */
	__le64	s_alloc_start;		/* first block the allocator owns */
	__le64	s_alloc_end;		/* first block past it */
	__le64	s_csum_start;		/* primary strip checksums, 0 none */
	__le64	s_csum_replica_start;	/* replica strip checksums, 0 none */
	__le64	s_parity_start;		/* parity strips, 0 none */
	__le64	s_mmap_block;		/* unprotected-inode list, 0 none */
	__le32	s_csum_blocks;		/* blocks of each checksum copy */
	__le32	s_parity_blocks;	/* blocks of the parity area */
	/* 1.3, META_REPLICA: replica of the reserved-inode block, 0 none */
	__le64	s_meta_replica;
	/* 1.9, ALLOC_BITMAP: the allocation bitmap, 0 none */
	__le64	s_bitmap_start;
	__le64	s_bitmap_blocks;
	__u8	s_reserved[264];
};

/*
 * s_feature_incompat (1.2). A kernel or tool that finds a bit it does not
 * know must not mount or change the file system. DATA_PARITY needs
 * DATA_CSUM (parity can rebuild a strip only once a checksum names it).
 */
#define NOVA_FEATURE_DATA_CSUM		0x1	/* crc32c per 512-byte strip */
#define NOVA_FEATURE_DATA_PARITY	0x2	/* XOR parity strip per block */
/*
 * 1.3: every inode slot has a replica (reserved inodes: the block
 * s_meta_replica; table inodes: the table block named by itt_replica of
 * the primary table block's tail, allocated from the high end).
 */
#define NOVA_FEATURE_META_REPLICA	0x4
/*
 * 1.4: every log page has a mirror page (struct nova_log_page_tail,
 * lt_replica), except the pages of NOVA_ALLOC_INO's log (the saved
 * allocator state, which crash recovery can rebuild). A file system
 * without this bit is written as format 1.3, whatever else it has.
 */
#define NOVA_FEATURE_LOG_REPLICA	0x8
/*
 * 1.5: logs may hold NOVA_LOG_XATTR entries (extended attributes, POSIX
 * ACLs). Set by mkfs.NOVA and mount -o init; a 1.4 (or older) file system
 * mounted read-write gets it, with s_version_minor raised to 5, durably in
 * both superblock copies before its first xattr entry is written.
 */
#define NOVA_FEATURE_XATTR		0x10
/*
 * 1.5: file logs may hold NOVA_LOG_RANGE entries (fallocate punch hole,
 * zero range, collapse range, insert range). Set on every file system
 * made by a 1.5 mkfs.NOVA or mount -o init; a 1.4 (or older) file system
 * mounted read-write gets it, and s_version_minor raised to 5, with a
 * durable superblock update before its first range entry is written.
 * Not valid below 1.5. Whether an image has range entries changes no
 * layout, only what its logs may hold.
 */
#define NOVA_FEATURE_RANGE_OPS		0x20
/*
 * 1.6: setattr entries may carry file attribute flags (NOVA_ATTR_FLAGS,
 * sa_flags: chattr immutable, append-only, ...). Set by a 1.6 mkfs.NOVA
 * and mount -o init; a 1.5 (or older) file system mounted read-write gets
 * it, and s_version_minor raised to 6, durably in both superblock copies
 * before its first entry with NOVA_ATTR_FLAGS is written (its first
 * chattr). A module that predates the bit must not mount such a file
 * system: it would ignore an immutable or append-only flag. Not valid
 * below 1.6.
 */
#define NOVA_FEATURE_FILEATTR		0x40
/*
 * 1.7: disk quotas. The reserved inodes NOVA_USR_QUOTA_INO,
 * NOVA_GRP_QUOTA_INO (and NOVA_PRJ_QUOTA_INO, only with
 * NOVA_FEATURE_PROJID too) are hidden regular files holding the quota files in the kernel's
 * "vfsv1" quota tree format (fs/quota/quota_v2.c, what quotacheck and
 * ext4's quota feature write), changed only by ordinary file write
 * entries. Set, with s_version_minor raised to 7, durably in both
 * superblock copies by the first mount with usrquota or grpquota, before
 * the quota inodes are created (a crash between leaves the feature with
 * slots still free: the next quota mount creates them). Usage is then
 * tracked on every read-write mount of the file system, limits enforced
 * only with the mount options. A module that predates the bit must not
 * mount such a file system: its changes would not be charged. Not valid
 * below 1.7. mkfs.NOVA and -o init do not set it.
 */
#define NOVA_FEATURE_QUOTA		0x80
/*
 * 1.8: project ids. Setattr entries may carry a project id
 * (NOVA_ATTR_PROJID, in sa_ctime.pad) and the project-inherit flag
 * (NOVA_FL_PROJINHERIT in sa_flags); with NOVA_FEATURE_QUOTA too, the
 * reserved inode NOVA_PRJ_QUOTA_INO is the project quota file. Set, with
 * s_version_minor raised to 8, durably in both superblock copies before
 * the first such entry is written (the first chattr -p or +P) or by the
 * first mount with prjquota. An inode whose log has no entry with
 * NOVA_ATTR_PROJID is in project 0, so a 1.7 (or older) image reads as
 * all files in project 0. A module that predates the bit must not mount
 * such a file system: it would drop project ids at garbage collection,
 * ignore the inherit flag and not charge project quotas. Not valid below
 * 1.8.
 */
#define NOVA_FEATURE_PROJID		0x100
/*
 * 1.9: the allocation bitmap, one bit per block (uapi/nova_bitmap.h), in
 * blocks of its own right after the fixed blocks and the protection
 * areas' low end (nova_layout_compute()). A block of the allocator's
 * range whose bit is clear is free: its bit is made durable set before
 * anything on media refers to the block, and cleared only once nothing
 * does. So after a power cut the clear bits are free space, and a set
 * bit is a block in use or one that an operation in flight allocated
 * and never committed (a leak, found by fsck.NOVA or by the pass that
 * crash recovery starts after the mount). Set by mkfs.NOVA when asked
 * for; an image without it recovers by scanning every inode (docs/
 * recovery.md). A module that predates the bit must not mount such a
 * file system: it would hand out blocks without setting their bits.
 * Not valid below 1.9.
 */
#define NOVA_FEATURE_ALLOC_BITMAP	0x200
/* The protection features: what -o init,protection= and mkfs -p choose. */
#define NOVA_FEATURE_PROT_ALL		(NOVA_FEATURE_DATA_CSUM | \
					 NOVA_FEATURE_DATA_PARITY | \
					 NOVA_FEATURE_META_REPLICA | \
					 NOVA_FEATURE_LOG_REPLICA)
/* The 1.5 features (upgrade on first use). */
#define NOVA_FEATURE_1_5		(NOVA_FEATURE_XATTR | \
					 NOVA_FEATURE_RANGE_OPS)
/* The 1.6 feature (upgrade on first use). */
#define NOVA_FEATURE_1_6		NOVA_FEATURE_FILEATTR
/* The 1.7 feature (upgrade on the first quota mount). */
#define NOVA_FEATURE_1_7		NOVA_FEATURE_QUOTA
/* The 1.8 feature (upgrade on first use). */
#define NOVA_FEATURE_1_8		NOVA_FEATURE_PROJID
/* The 1.9 feature (a layout: only at format time). */
#define NOVA_FEATURE_1_9		NOVA_FEATURE_ALLOC_BITMAP
#define NOVA_FEATURE_INCOMPAT_SUPP	(NOVA_FEATURE_PROT_ALL | \
					 NOVA_FEATURE_1_5 | \
					 NOVA_FEATURE_1_6 | \
					 NOVA_FEATURE_1_7 | \
					 NOVA_FEATURE_1_8 | \
					 NOVA_FEATURE_1_9)

/*
 * The minor version mkfs.NOVA and mount -o init write for @incompat:
 * NOVA_MKFS_MINOR, or 9 with the allocation bitmap (a layout, which no
 * later mount can add).
 */
static inline __u16 nova_mkfs_minor(__u32 incompat)
{
	return incompat & NOVA_FEATURE_1_9 ? 9 : NOVA_MKFS_MINOR;
}

/*
 * Data protection areas (1.2). Every block of the device has a slot, so a
 * block number indexes them directly:
 *  - checksums: NOVA_STRIPS crc32c values (__le32) per block, 32 bytes,
 *    slot of block b at byte b * NOVA_CSUM_SLOT of the area; two copies,
 *    the primary right after the fixed blocks, the replica right before
 *    the replica superblock;
 *  - parity: one NOVA_STRIP_SIZE strip per block, the XOR of its
 *    NOVA_STRIPS strips, slot of block b at byte b * NOVA_STRIP_SIZE;
 *  - the unprotected-inode list: one block of __le64 inode numbers of
 *    files mapped writable (their checksums are stale while mapped);
 *    slot 0 counts files that did not fit (recovery then re-protects every
 *    file). Each slot is a commit word.
 * Layout, from low to high block numbers:
 *   0-3 fixed | checksums | list | allocation bitmap (1.9) | allocatable |
 *   parity | checksum replica | reserved-inode replica (1.3) | replica
 *   superblock
 * Only blocks mapped by committed file write entries have meaningful
 * slots; the slots of every other block are unspecified.
 */
#define NOVA_STRIP_SHIFT	9
#define NOVA_STRIP_SIZE		(1U << NOVA_STRIP_SHIFT)
#define NOVA_STRIPS		(NOVA_BLOCK_SIZE / NOVA_STRIP_SIZE)
#define NOVA_CSUM_SLOT		(NOVA_STRIPS * 4)
#define NOVA_CSUM_SLOTS_PER_BLOCK	(NOVA_BLOCK_SIZE / NOVA_CSUM_SLOT)
#define NOVA_PARITY_PER_BLOCK	(NOVA_BLOCK_SIZE / NOVA_STRIP_SIZE)
#define NOVA_MMAP_SLOTS		(NOVA_BLOCK_SIZE / 8)

/*
 * The allocation bitmap (1.9): 64-bit words, each holding the bits of
 * NOVA_BITMAP_WORD_BITS consecutive blocks and a check of them
 * (uapi/nova_bitmap.h), word w for blocks [w * 48, w * 48 + 48) of the
 * device, so a block number indexes it directly, as the protection areas.
 */
#define NOVA_BITMAP_WORD_BITS	48
#define NOVA_BITMAP_PER_BLOCK	((NOVA_BLOCK_SIZE / 8) * NOVA_BITMAP_WORD_BITS)

/*
 * Which superblock copy to trust. A valid primary wins. A primary that
 * fails only its checksum (its magic is NOVA's) is a damaged copy, and a
 * valid replica stands in for it. A primary without the NOVA magic may be a
 * damaged copy too (one flipped bit) or the start of a file system made
 * over NOVA later, whose mkfs left NOVA's replica in the last block: it is
 * taken for a damaged copy only when its UUID bytes are still the
 * replica's (every format draws a new UUID) and no other file system's
 * signature (nova_probe.h) is at the start of the device. The kernel
 * (super.c) and fsck.NOVA (fsck_super.c) both apply this rule.
 */
static inline int nova_sb_uuid_matches(const struct nova_super_block *p,
				       const struct nova_super_block *r)
{
	unsigned int i;

	for (i = 0; i < sizeof(p->s_uuid); i++)
		if (p->s_uuid[i] != r->s_uuid[i])
			return 0;
	return 1;
}

/*
 * Which copy's log words (i_log_head, i_log_tail) to use when an inode
 * slot's differ from its replica's: each pair is judged by the log it
 * leads to, "whole" if it walks from head to tail through good page tails
 * and entries, "trans" the newest e_trans_id it reaches. The newer whole
 * log wins; a tie goes to the primary, which is never behind the replica
 * (commit words are stored in the primary first), so a crash between the
 * two stores resolves to the primary. Neither whole: no winner. Shared by
 * the kernel (nova_pi_resolve_words()) and fsck.NOVA (pick_log_words()).
 */
enum nova_words_winner {
	NOVA_WORDS_NEITHER,
	NOVA_WORDS_PRIMARY,
	NOVA_WORDS_REPLICA,
};

static inline enum nova_words_winner
nova_log_words_winner(int p_whole, __u64 p_trans, int r_whole, __u64 r_trans)
{
	if (r_whole && (!p_whole || r_trans > p_trans))
		return NOVA_WORDS_REPLICA;
	return p_whole ? NOVA_WORDS_PRIMARY : NOVA_WORDS_NEITHER;
}

struct nova_layout {
	__u64	alloc_start, alloc_end;
	__u64	csum, csum_replica, parity, mmap;	/* block numbers, 0 none */
	__u64	csum_blocks, parity_blocks;
	__u64	meta_replica;		/* 1.3: reserved-inode replica, 0 none */
	__u64	bitmap, bitmap_blocks;	/* 1.9: allocation bitmap, 0 none */
};

/* The layout of a device of @nblocks blocks with features @incompat. */
static inline void nova_layout_compute(__u64 nblocks, __u32 incompat,
				       struct nova_layout *l)
{
	__u64 c = 0, p = 0, m = 0, b = 0, low;

	if (incompat & NOVA_FEATURE_DATA_CSUM)
		c = (nblocks + NOVA_CSUM_SLOTS_PER_BLOCK - 1) /
		    NOVA_CSUM_SLOTS_PER_BLOCK;
	if (incompat & NOVA_FEATURE_DATA_PARITY)
		p = (nblocks + NOVA_PARITY_PER_BLOCK - 1) /
		    NOVA_PARITY_PER_BLOCK;
	if (incompat & NOVA_FEATURE_META_REPLICA)
		m = 1;
	if (incompat & NOVA_FEATURE_ALLOC_BITMAP)
		b = (nblocks + NOVA_BITMAP_PER_BLOCK - 1) /
		    NOVA_BITMAP_PER_BLOCK;
	l->csum_blocks = c;
	l->parity_blocks = p;
	l->bitmap_blocks = b;
	l->csum = c ? NOVA_FIRST_ALLOC_BLOCK : 0;
	l->mmap = c ? NOVA_FIRST_ALLOC_BLOCK + c : 0;
	low = NOVA_FIRST_ALLOC_BLOCK + (c ? c + 1 : 0);
	l->bitmap = b ? low : 0;
	l->alloc_start = low + b;
	l->meta_replica = m ? nblocks - 2 : 0;
	l->csum_replica = c ? nblocks - 1 - m - c : 0;
	l->parity = p ? nblocks - 1 - m - c - p : 0;
	l->alloc_end = nblocks - 1 - m - c - p;
}

/* Reserved inode numbers, stored in NOVA_RESERVED_INODE_BLOCK. */
#define NOVA_ROOT_INO		1	/* root directory */
#define NOVA_ALLOC_INO		2	/* allocator state saved at unmount */
#define NOVA_SNAPSHOT_INO	3	/* snapshot table (since 1.1) */
#define NOVA_USR_QUOTA_INO	4	/* user quota file (1.7, QUOTA) */
#define NOVA_GRP_QUOTA_INO	5	/* group quota file (1.7, QUOTA) */
#define NOVA_PRJ_QUOTA_INO	6	/* project quota file (reserved) */
#define NOVA_RESERVED_INODES	16	/* slots in the reserved block */
#define NOVA_FIRST_INO		NOVA_RESERVED_INODES

/*
 * Inodes are NOVA_INODE_SIZE bytes. Normal inodes live in per-CPU inode
 * tables: chains of 2 MiB blocks (512 contiguous blocks). Inode numbers are
 * striped across CPUs: for ino >= NOVA_FIRST_INO, with n = s_cpus,
 *	cpu   = (ino - NOVA_FIRST_INO) % n
 *	index = (ino - NOVA_FIRST_INO) / n
 * and index selects slot (index % NOVA_INODES_PER_TABLE) of table block
 * (index / NOVA_INODES_PER_TABLE) in that CPU's chain. The last slot of
 * each table block holds a struct nova_inode_table_tail instead.
 */
#define NOVA_INODE_SIZE		256
#define NOVA_INODE_TABLE_SIZE	(2U << 20)
#define NOVA_INODE_TABLE_BLOCKS	(NOVA_INODE_TABLE_SIZE / NOVA_BLOCK_SIZE)
#define NOVA_INODES_PER_TABLE	(NOVA_INODE_TABLE_SIZE / NOVA_INODE_SIZE - 1)
#define NOVA_INLINE_SIZE	96

/* The inode number of slot @index of stripe @cpu, and back (see above). */
static inline __u64 nova_ino_make(unsigned int cpus, unsigned int cpu,
				  __u64 index)
{
	return NOVA_FIRST_INO + index * cpus + cpu;
}

static inline unsigned int nova_ino_cpu(__u64 ino, unsigned int cpus)
{
	return (unsigned int)((ino - NOVA_FIRST_INO) % cpus);
}

static inline __u64 nova_ino_index(__u64 ino, unsigned int cpus)
{
	return (ino - NOVA_FIRST_INO) / cpus;
}

struct nova_timespec {
	__le64	sec;			/* signed */
	__le32	nsec;
	__le32	pad;
};

/*
 * The first three fields are commit words. i_csum covers bytes
 * 24..NOVA_INODE_SIZE-1 (everything after them). An inode slot is written
 * completely while i_valid is 0, then made live by storing 1 to i_valid
 * (alone, or inside a lite-journal transaction together with the parent's
 * log tail). The static fields give the inode's state at creation; every
 * later change is a log entry, replayed in order.
 */
struct nova_inode {
	__le64	i_valid;		/* commit word: 1 in use, 0 free */
	__le64	i_log_head;		/* commit word: first log page, 0 none */
	__le64	i_log_tail;		/* commit word: end of committed log */
	__le32	i_csum;
	__le32	i_flags;		/* NOVA_INODE_* */
	__le64	i_ino;
	__le32	i_generation;
	__le16	i_mode;
	__le16	i_pad0;
	__le32	i_uid;
	__le32	i_gid;
	__le32	i_nlink;		/* at creation */
	__le32	i_rdev;			/* device number (new_encode_dev) */
	__le64	i_size;			/* at creation; symlinks: target length */
	struct nova_timespec i_atime;
	struct nova_timespec i_mtime;
	struct nova_timespec i_ctime;
	struct nova_timespec i_crtime;	/* birth time */
	__le64	i_create_trans;		/* transaction that created it */
	__le64	i_parent;		/* directories: parent at creation */
	__le64	i_reserved;
	__u8	i_inline[NOVA_INLINE_SIZE];
};

/* i_flags */
#define NOVA_INODE_INLINE_SYMLINK  0x1	/* target in i_inline, NUL-terminated */
#define NOVA_INODE_BLOCK_SYMLINK   0x2	/* i_inline starts with __le64 block */

/* Per-CPU inode table head, one per CPU in NOVA_INODE_TABLE_PTR_BLOCK. */
struct nova_inode_table {
	__le64	it_head;		/* first table block number */
	__le32	it_csum;		/* covers it_cpu..end */
	__le32	it_cpu;
	__le64	it_reserved[6];
};

/*
 * Last slot of each inode table block.
 *
 * Inode replicas (1.3, META_REPLICA). Slot s of table block P has its
 * replica in slot s of table block R = P's itt_replica; reserved inode i's
 * replica is slot i of block s_meta_replica. The replica is a byte copy of
 * the primary: the static part (i_csum onwards) is written to both, primary
 * first, before i_valid is committed; each commit word is stored in the
 * primary, made durable, then stored in the replica, so the replica lags by
 * at most the store a crash interrupted. Log head and tail are verified
 * against the replica's: when they differ, the pair whose log walks whole
 * to its tail and reaches the newer e_trans_id wins, the primary on a tie
 * (docs/protection.md); crash recovery then copies the primary's words to
 * the replica.
 * A reader whose primary fails its checksum uses the replica's static part
 * and rewrites the primary's from it.
 */
struct nova_inode_table_tail {
	__le64	itt_next;		/* commit word: next block number, 0 end */
	__le32	itt_csum;		/* covers itt_cpu..end */
	__le32	itt_cpu;
	__le64	itt_index;		/* position in the chain, from 0 */
	/*
	 * 1.3, META_REPLICA: the block of the other copy of this table
	 * block (primary -> replica, replica -> primary); 0 without the
	 * feature. Replica table blocks are not in the chain: their
	 * itt_next stays 0.
	 */
	__le64	itt_replica;
	__le64	itt_reserved[28];
};

/*
 * Per-CPU lite journal: an undo log of 8-byte words, used to make updates
 * of several commit words (several inodes' log tails, an inode's valid
 * word) atomic. Records live in one 4 KiB block per CPU, used as a ring.
 * To run a transaction: write one record per word (its address and old
 * value) past j_tail, fence, advance j_tail (transaction open), fence,
 * store the new values, fence, set j_head = j_tail (committed), fence.
 * Recovery undoes the records between j_head and j_tail, newest first.
 */
struct nova_journal_ptr {
	__le64	j_head;			/* commit word: offset of oldest record */
	__le64	j_tail;			/* commit word: offset past newest */
	__le64	j_block;		/* journal block number */
	__le32	j_csum;			/* covers j_block..end */
	__le32	j_cpu;
	__le64	j_reserved[4];
};

#define NOVA_JOURNAL_WORD	1

struct nova_journal_entry {
	__le64	je_addr;		/* offset of the 8-byte word */
	__le64	je_old;			/* value before the transaction */
	__le64	je_trans_id;
	__le32	je_type;		/* NOVA_JOURNAL_WORD */
	__le32	je_csum;
};

#define NOVA_JOURNAL_ENTRIES	(NOVA_BLOCK_SIZE / sizeof(struct nova_journal_entry))

/*
 * Inode logs: a singly linked list of 4 KiB blocks. Entries are packed from
 * the start of a block, 8-byte aligned, never crossing into the tail. A
 * type byte of NOVA_LOG_PAD (0) means "nothing more in this block". The
 * inode's i_log_tail is the offset just past the last committed entry; a
 * log is read from i_log_head up to i_log_tail and nothing beyond.
 */
#define NOVA_LOG_TAIL_SIZE	64
#define NOVA_LOG_DATA_SIZE	(NOVA_BLOCK_SIZE - NOVA_LOG_TAIL_SIZE)
#define NOVA_LOG_PAGE_MAGIC	0x4e4c4f47	/* "NLOG" */

/*
 * Log page mirrors (1.4, LOG_REPLICA). Every page P of a log (except the
 * allocator state's) has a mirror page M, allocated from the high end of
 * the device: P's lt_replica names M, M's names P, and M holds the same
 * entries at the same offsets. The chain goes through primaries only: M's
 * lt_next is a copy of P's (stored after P's, so it may lag by the store
 * a crash interrupted), read only when P's is unusable. Every committed
 * entry is durable in both pages before the log tail that covers it, so
 * the entries of M up to the committed tail equal P's, apart from the
 * hints (e_flags, fw_dead_pages, lt_valid, lt_entries), which are kept
 * in P only. A reader whose copy fails its checksum uses the other one.
 */
struct nova_log_page_tail {
	__le64	lt_next;		/* commit word: next log block, 0 last */
	__le32	lt_valid;		/* hint: live entries in this block */
	__le32	lt_entries;		/* hint: entries written to this block */
	__le64	lt_ino;			/* owner */
	__le32	lt_magic;		/* NOVA_LOG_PAGE_MAGIC */
	/*
	 * Covers lt_ino and lt_magic (the field itself taken as zero), and
	 * lt_replica after them if it is not 0: 1.3 tails (lt_replica 0) keep
	 * their checksum.
	 */
	__le32	lt_csum;
	__le64	lt_replica;		/* 1.4: the other copy of this page, 0 none */
	__le64	lt_reserved[3];
};

/* Log entry types. */
#define NOVA_LOG_PAD		0
#define NOVA_LOG_FILE_WRITE	1
#define NOVA_LOG_DENTRY		2
#define NOVA_LOG_SETATTR	3
#define NOVA_LOG_LINK_CHANGE	4
#define NOVA_LOG_FREE_RANGES	5
#define NOVA_LOG_SNAPSHOT	6	/* since 1.1, NOVA_SNAPSHOT_INO only */
#define NOVA_LOG_SNAPSHOT_DEL	7	/* since 1.1, NOVA_SNAPSHOT_INO only */
#define NOVA_LOG_SNAPSHOT_KEEP	8	/* since 1.1, NOVA_SNAPSHOT_INO only */
#define NOVA_LOG_SNAPSHOT_INODE	9	/* since 1.2, NOVA_SNAPSHOT_INO only */
#define NOVA_LOG_XATTR		10	/* since 1.5, NOVA_FEATURE_XATTR */
#define NOVA_LOG_RANGE		11	/* since 1.5, RANGE_OPS, regular files */

/* Entry header flags (hints, outside the checksum). */
#define NOVA_ENTRY_INVALID	0x1	/* superseded, may be collected */

/*
 * Common header. e_csum covers the whole entry (e_size bytes) with e_csum,
 * e_flags and the entry's hint fields taken as zero.
 */
struct nova_log_entry_header {
	__u8	e_type;			/* NOVA_LOG_* */
	__u8	e_flags;		/* hint: NOVA_ENTRY_* */
	__le16	e_size;			/* bytes, multiple of 8 */
	__le32	e_csum;
	__le64	e_epoch_id;		/* snapshot epoch when written */
	__le64	e_trans_id;		/* file-system-wide, increasing */
};

/*
 * File data: fw_num_pages blocks starting at fw_block hold file pages
 * fw_pgoff... Later entries override earlier ones page by page. Also
 * records i_size and mtime (= ctime) after the write.
 */
struct nova_file_write_entry {
	struct nova_log_entry_header hdr;
	__le64	fw_pgoff;
	__le32	fw_num_pages;
	__le32	fw_dead_pages;		/* hint: pages overwritten since */
	__le64	fw_block;
	__le64	fw_size;
	struct nova_timespec fw_mtime;
};

/*
 * Directory entry: binds de_name to de_ino (de_ino 0 removes the name).
 * A name that is bound again replaces the old binding. The special name
 * ".." records the directory's parent. de_links, de_mtime are the
 * directory's link count and mtime (= ctime) after the change.
 */
#define NOVA_NAME_LEN		255

struct nova_dentry_entry {
	struct nova_log_entry_header hdr;
	__le64	de_ino;
	__le64	de_pos;			/* readdir position, unique per dir */
	__le32	de_links;
	__u8	de_name_len;
	__u8	de_file_type;		/* DT_* */
	__le16	de_pad;
	struct nova_timespec de_mtime;
	char	de_name[];		/* not NUL-terminated, padded to 8 */
};

/* Attribute mask of a setattr entry. */
#define NOVA_ATTR_MODE		0x01
#define NOVA_ATTR_UID		0x02
#define NOVA_ATTR_GID		0x04
#define NOVA_ATTR_SIZE		0x08
#define NOVA_ATTR_ATIME		0x10
#define NOVA_ATTR_MTIME		0x20
#define NOVA_ATTR_CTIME		0x40
#define NOVA_ATTR_GROW		0x80	/* 1.3, with SIZE: the size grew */
#define NOVA_ATTR_FLAGS		0x100	/* 1.6, FILEATTR: sa_flags */
#define NOVA_ATTR_PROJID	0x200	/* 1.8, PROJID: NOVA_SA_PROJID() */

/*
 * File attribute flags (1.6, sa_flags with NOVA_ATTR_FLAGS), what
 * chattr(1) sets: the FS_*_FL of the same name. Any other bit is damage.
 */
#define NOVA_FL_IMMUTABLE	0x01	/* no change at all, no new link */
#define NOVA_FL_APPEND		0x02	/* writes only append */
#define NOVA_FL_NOATIME		0x04	/* atime is not updated */
#define NOVA_FL_NODUMP		0x08	/* dump(8) skips the file */
#define NOVA_FL_SYNC		0x10	/* synchronous updates */
#define NOVA_FL_DIRSYNC		0x20	/* directories: synchronous changes */
#define NOVA_FL_ALL		0x3f	/* the 1.6 flags */
/*
 * 1.8, NOVA_FEATURE_PROJID only: new inodes take the directory's project
 * id (directories the flag too); no link or rename brings in an inode
 * of another project.
 */
#define NOVA_FL_PROJINHERIT	0x40
#define NOVA_FL_ALL_1_8		(NOVA_FL_ALL | NOVA_FL_PROJINHERIT)

/*
 * Attribute change. Fields not in sa_mask are ignored. With
 * NOVA_ATTR_SIZE, the file pages at and above ceil(sa_size / 4096) are
 * dropped (this discards blocks preallocated past the end of file),
 * unless NOVA_ATTR_GROW (1.3) is set too: then the size grew and every
 * page stays, so blocks preallocated with FALLOC_FL_KEEP_SIZE survive a
 * size increase.
 * The writer decides (grow: new size > old size) and records it, so a
 * replay never depends on the size the log had reached before the entry
 * (garbage collection may have dropped the entries that set it).
 * With NOVA_ATTR_FLAGS (1.6), sa_flags replaces the inode's file
 * attribute flags (NOVA_FL_*); an inode whose log has no such entry has
 * none. Without it, sa_flags is 0 (it was padding before 1.6).
 * With NOVA_ATTR_PROJID (1.8), the pad word of sa_ctime (written 0 by
 * every older version, covered by the entry checksum like the rest) is
 * the inode's project id; an inode whose log has no such entry is in
 * project 0. Without it, that word is 0.
 */
struct nova_setattr_entry {
	struct nova_log_entry_header hdr;
	__le32	sa_mask;		/* NOVA_ATTR_* */
	__le16	sa_mode;
	__le16	sa_flags;		/* 1.6, NOVA_ATTR_FLAGS: NOVA_FL_*; else 0 */
	__le32	sa_uid;
	__le32	sa_gid;
	__le64	sa_size;
	struct nova_timespec sa_atime;
	struct nova_timespec sa_mtime;
	struct nova_timespec sa_ctime;	/* pad: 1.8, NOVA_ATTR_PROJID */
};

/* The project id word of a setattr entry (1.8, NOVA_ATTR_PROJID). */
#define NOVA_SA_PROJID(sa)	((sa)->sa_ctime.pad)

/*
 * A range operation on a regular file (1.5, NOVA_FEATURE_RANGE_OPS):
 * fallocate(2) PUNCH_HOLE, ZERO_RANGE, COLLAPSE_RANGE or INSERT_RANGE.
 * rg_pgoff and rg_pages give the whole pages the operation covers (the
 * pages of a punched or zeroed range that it covers entirely; the
 * removed or inserted pages of a collapse or insert). Replay:
 *  - the index forgets the pages nova_range_drop() gives:
 *    [rg_pgoff, rg_pgoff + rg_pages) for PUNCH and ZERO, every page from
 *    rg_pgoff on for COLLAPSE and INSERT;
 *  - i_size becomes rg_size, mtime and ctime rg_mtime.
 * The rest of the operation is ordinary file write entries of the same
 * transaction after it, committed by the same tail store: the partial
 * head and tail pages of a punch or zero (copies with the range zeroed),
 * the zeroed blocks of a zero range, and for COLLAPSE and INSERT the
 * pages that moved, at their new page offsets (pointing at the blocks
 * they had, or at copies when a snapshot shows the old entry). So the
 * operation is atomic, and replay needs nothing but the entries from
 * this one on (no earlier size, which garbage collection may drop).
 * Each write entry carries the file size after the operation.
 */
#define NOVA_RANGE_PUNCH	1
#define NOVA_RANGE_ZERO		2
#define NOVA_RANGE_COLLAPSE	3
#define NOVA_RANGE_INSERT	4

struct nova_range_entry {
	struct nova_log_entry_header hdr;
	__le32	rg_kind;		/* NOVA_RANGE_* */
	__le32	rg_pad;			/* 0 */
	__le64	rg_pgoff;		/* first page */
	__le64	rg_pages;		/* page count, may be 0 for PUNCH/ZERO */
	__le64	rg_size;		/* i_size after the operation */
	struct nova_timespec rg_mtime;	/* mtime = ctime after it */
};

/*
 * The largest page offset of a file: its size is at most 2^63 - 1 bytes
 * (the kernel's MAX_LFS_FILESIZE), so its last byte is on this page.
 */
#define NOVA_MAX_PGOFF		((~0ULL >> 1) >> NOVA_BLOCK_SHIFT)

/* Do the @pages pages from @pgoff (none: 0) all lie within a file? */
static inline int nova_pages_in_file(__u64 pgoff, __u64 pages)
{
	return pgoff <= NOVA_MAX_PGOFF && pages <= NOVA_MAX_PGOFF - pgoff + 1;
}

/*
 * The pages range entry @kind, @pgoff, @pages drops from the index:
 * [*from, *to). Returns 0 for an entry that is not well formed (unknown
 * kind, pages past NOVA_MAX_PGOFF), which readers reject as corrupt.
 */
static inline int nova_range_drop(__u32 kind, __u64 pgoff, __u64 pages,
				  __u64 *from, __u64 *to)
{
	if (!nova_pages_in_file(pgoff, pages))
		return 0;
	*from = pgoff;
	switch (kind) {
	case NOVA_RANGE_PUNCH:
	case NOVA_RANGE_ZERO:
		*to = pgoff + pages;
		return 1;
	case NOVA_RANGE_COLLAPSE:
	case NOVA_RANGE_INSERT:
		if (!pages)
			return 0;
		*to = NOVA_MAX_PGOFF + 1;
		return 1;
	}
	return 0;
}

/* Link count change (link, unlink, rename, rmdir). */
struct nova_link_change_entry {
	struct nova_log_entry_header hdr;
	__le32	lc_links;
	__le32	lc_pad;
	struct nova_timespec lc_ctime;
};

/* Free block ranges, in the log of NOVA_ALLOC_INO after a clean unmount. */
struct nova_range {
	__le64	r_start;		/* first free block */
	__le64	r_len;			/* blocks */
};

#define NOVA_RANGES_PER_ENTRY	250

struct nova_free_ranges_entry {
	struct nova_log_entry_header hdr;
	__le32	fr_count;
	__le32	fr_pad;
	struct nova_range fr_ranges[];	/* fr_count of them */
};

/*
 * Snapshots (format 1.1). The log of NOVA_SNAPSHOT_INO holds one
 * nova_snapshot_entry per snapshot ever taken and one
 * nova_snapshot_del_entry per snapshot deleted; a snapshot is live if it
 * has the first and not the second. Snapshot ids start at 1 and are never
 * reused. A snapshot with sn_epoch E shows every log entry whose e_epoch_id
 * is at most E; taking it moves s_epoch_id to E + 1. The log is written
 * before the superblock, so after a crash the current epoch is the larger
 * of s_epoch_id and (newest sn_epoch + 1).
 */
#define NOVA_SNAPSHOT_NAME_LEN	64	/* including the terminating NUL */
#define NOVA_MAX_SNAPSHOTS	256	/* live at the same time */

struct nova_snapshot_entry {
	struct nova_log_entry_header hdr;
	__le64	sn_id;
	__le64	sn_epoch;		/* last epoch the snapshot shows */
	struct nova_timespec sn_ctime;	/* creation time */
	char	sn_name[NOVA_SNAPSHOT_NAME_LEN];	/* NUL-padded, may be empty */
};

struct nova_snapshot_del_entry {
	struct nova_log_entry_header hdr;
	__le64	sd_id;
	__le64	sd_epoch;		/* sn_epoch of the deleted snapshot */
};

/*
 * Data blocks that the live file system no longer uses but a snapshot
 * does: sk_count blocks from sk_block, written in epoch sk_born and
 * superseded (overwritten, truncated away, freed with their inode) in
 * epoch sk_dead. Snapshot S needs them iff sk_born <= S.sn_epoch < sk_dead.
 * Blocks that no live snapshot needs are free: the record is then only
 * history, and a reader must ignore it.
 */
struct nova_snapshot_keep_entry {
	struct nova_log_entry_header hdr;
	__le64	sk_block;
	__le32	sk_count;
	__le32	sk_pad;
	__le64	sk_born;
	__le64	sk_dead;
};

/*
 * A whole inode that the live file system removed (last link dropped:
 * unlink, rmdir, rename over it) while a snapshot still shows it (format
 * 1.2). Inode si_ino with generation si_generation existed from epoch
 * si_born and its last name went in epoch si_dead; snapshot S needs it iff
 * si_born <= S.sn_epoch < si_dead. While a live snapshot needs it, its
 * slot (i_valid 0, static fields intact), its log chain and the data
 * blocks the committed log maps at its end (plus a block symlink's target)
 * are in use, and the inode number is not reused.
 *
 * The record is committed before the transaction that stores i_valid = 0.
 * A record whose slot is still live (i_valid 1, same generation) is void:
 * the removal did not commit. A later record for the same inode replaces
 * an earlier one.
 */
struct nova_snapshot_inode_entry {
	struct nova_log_entry_header hdr;
	__le64	si_ino;
	__le32	si_generation;
	__le32	si_pad;
	__le64	si_born;
	__le64	si_dead;
};

/*
 * Extended attribute (format 1.5, NOVA_FEATURE_XATTR), in the log of the
 * inode that has it (any inode type but the reserved ones). Sets attribute
 * xe_name of namespace xe_index to a value of xe_value_size bytes, or with
 * NOVA_XATTR_REMOVE (xe_value_size, xe_offset, xe_len 0) removes it.
 *
 * The value is inline: a value longer than NOVA_XATTR_PIECE_MAX is written
 * as consecutive entries ("pieces") of one set, same e_trans_id, name and
 * xe_value_size, with xe_offset 0, NOVA_XATTR_PIECE_MAX, 2 * ..., each
 * holding xe_len bytes (NOVA_XATTR_PIECE_MAX but the last). All pieces are
 * published by one commit of the log tail, so a set or removal is atomic.
 * A set takes effect at its last piece (xe_offset + xe_len ==
 * xe_value_size); a piece that does not continue the set before it, or a
 * set cut short, is corruption. Later sets and removals of the same
 * (xe_index, xe_name) override earlier ones; removing a name that is not
 * set is a no-op. The entry checksum (e_csum) covers name and value.
 *
 * Namespace index: the xattr name prefix, or for the POSIX ACLs the whole
 * name (xe_name_len 0). Name bytes are not NUL-terminated and contain no
 * NUL; user, trusted and security names are not empty.
 */
#define NOVA_XATTR_INDEX_USER		1	/* "user." */
#define NOVA_XATTR_INDEX_TRUSTED	2	/* "trusted." */
#define NOVA_XATTR_INDEX_SECURITY	3	/* "security." */
#define NOVA_XATTR_INDEX_ACL_ACCESS	4	/* "system.posix_acl_access" */
#define NOVA_XATTR_INDEX_ACL_DEFAULT	5	/* "system.posix_acl_default" */
#define NOVA_XATTR_INDEX_MAX		5

#define NOVA_XATTR_REMOVE	0x1		/* xe_flags */
#define NOVA_XATTR_NAME_MAX	255		/* bytes after the prefix */
#define NOVA_XATTR_VALUE_MAX	65536		/* bytes, as ext4 and the VFS */
#define NOVA_XATTR_PIECE_MAX	3584		/* value bytes per entry */
/* Names plus values of one inode's attributes, at most. */
#define NOVA_XATTR_INODE_MAX	(1U << 20)

struct nova_xattr_entry {
	struct nova_log_entry_header hdr;
	__u8	xe_index;		/* NOVA_XATTR_INDEX_* */
	__u8	xe_name_len;
	__le16	xe_flags;		/* NOVA_XATTR_* */
	__le32	xe_value_size;		/* bytes of the whole value */
	__le32	xe_offset;		/* of this piece in the value */
	__le32	xe_len;			/* value bytes in this entry */
	char	xe_name[];		/* name, then the piece; padded to 8 */
};

/* e_size of an xattr entry: name and piece after the fields, padded. */
static inline unsigned int nova_xattr_entry_size(unsigned int name_len,
						 unsigned int len)
{
	return (unsigned int)((sizeof(struct nova_xattr_entry) + name_len +
			       len + 7) & ~7UL);
}

#endif /* _UAPI_NOVA_FORMAT_H */

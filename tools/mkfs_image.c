// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mkfs.NOVA: the initial image, what the kernel's "mount -o init" writes
 * followed by a clean unmount. Both place every structure where the
 * shared format plan says (uapi/nova_plan.h: journal rings, inode tables
 * and their replicas, the free space) and write the allocator state with
 * the shared page builder (uapi/nova_state.h) and the reserved inodes
 * with the shared slot builder (uapi/nova_reserved.h), so the two images
 * hold the same structures in the same blocks. Left as it was never mounted: mount
 * time and count are 0, where "mount -o init" + umount leaves 1.
 *
 * Write order: everything reachable only through the superblock first,
 * made durable, then the primary superblock, then the replica.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "le.h"
#include "mkfs.h"
#include "nova_bitmap.h"
#include "nova_plan.h"
#include "nova_reserved.h"
#include "nova_state.h"

/* ---- the image ---- */

struct image {
	struct nova_dev *d;
	struct nerr *e;
	struct nova_format_plan plan;
	uint8_t fixed[NOVA_FIRST_ALLOC_BLOCK * NOVA_BLOCK_SIZE];	/* 0..3 */
	uint64_t trans;			/* last transaction id used */
	uint64_t nblocks;
};

static void *fixed_at(struct image *im, unsigned int blk, size_t off)
{
	return im->fixed + (size_t)blk * NOVA_BLOCK_SIZE + off;
}

/*
 * Blocks the stripes take from the allocatable part: per stripe a 2 MiB
 * inode table (and its replica with META_REPLICA) and a journal ring,
 * plus the allocator's state page and one free block (nova_format_plan()).
 */
static uint64_t stripe_blocks(const struct mkfs_params *p)
{
	unsigned int tables = p->features & NOVA_FEATURE_META_REPLICA ? 2 : 1;

	return (uint64_t)p->cpus * (tables * NOVA_INODE_TABLE_BLOCKS + 1) + 2;
}

static int too_small(struct image *im, const struct mkfs_params *p)
{
	const struct nova_layout *l = &im->plan.layout;
	uint64_t avail;

	avail = l->alloc_end > l->alloc_start ? l->alloc_end - l->alloc_start : 0;
	nerr_set(im->e, "%s: %llu blocks are too few for %u CPU stripes: %llu are allocatable after the fixed blocks and protection areas, the stripes' inode tables%s and journals need %llu and more (fewer stripes: -c, or less protection: -p)",
		 im->d->path, (unsigned long long)im->nblocks, p->cpus,
		 (unsigned long long)avail,
		 p->features & NOVA_FEATURE_META_REPLICA ? " (with replicas)" : "",
		 (unsigned long long)stripe_blocks(p));
	return -ENOSPC;
}

/* nova_journal_format(): one zeroed ring per stripe, where planned. */
static int make_journals(struct image *im, const struct mkfs_params *p,
			 struct mkfs_layout *out)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->cpus; i++) {
		struct nova_journal_ptr *jp = fixed_at(im, NOVA_JOURNAL_PTR_BLOCK,
						       i * sizeof(*jp));
		uint64_t blk = nova_plan_journal(&im->plan, i);

		err = ndev_zero(im->d, NOVA_OFF(blk), NOVA_BLOCK_SIZE, im->e);
		if (err)
			return err;
		jp->j_head = cpu64(NOVA_OFF(blk));
		jp->j_tail = cpu64(NOVA_OFF(blk));
		jp->j_block = cpu64(blk);
		jp->j_cpu = cpu32(i);
		nova_jp_seal(jp);
		out->journal[i] = blk;
	}
	return 0;
}

/* A zeroed table block and its tail, naming its other copy @other. */
static int write_table(struct image *im, unsigned int cpu, uint64_t blk,
		       uint64_t other)
{
	struct nova_inode_table_tail t;
	int err;

	err = ndev_zero(im->d, NOVA_OFF(blk), NOVA_ITT_OFF, im->e);
	if (err)
		return err;
	memset(&t, 0, sizeof(t));
	t.itt_cpu = cpu32(cpu);
	t.itt_index = 0;
	t.itt_replica = cpu64(other);
	nova_itt_seal(&t);
	return ndev_write(im->d, NOVA_OFF(blk) + NOVA_ITT_OFF, &t, sizeof(t),
			  im->e);
}

/*
 * nova_inode_tables_format(): one zeroed 2 MiB table block per stripe
 * and, with inode replicas, its replica, where planned.
 */
static int make_tables(struct image *im, const struct mkfs_params *p,
		       struct mkfs_layout *out)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->cpus; i++) {
		struct nova_inode_table *it = fixed_at(im,
			NOVA_INODE_TABLE_PTR_BLOCK, i * sizeof(*it));
		uint64_t blk = nova_plan_table(&im->plan, i);
		uint64_t rblk = nova_plan_table_replica(&im->plan, i);

		err = rblk ? write_table(im, i, rblk, blk) : 0;
		if (!err)
			err = write_table(im, i, blk, rblk);
		if (err)
			return err;
		it->it_head = cpu64(blk);
		it->it_cpu = cpu32(i);
		nova_it_seal(it);
		out->table[i] = blk;
	}
	return 0;
}

/*
 * nova_reserved_inode() at init: the root directory (empty, no log yet),
 * the allocator-state inode and the snapshot-table inode. Valid, owned by
 * the caller, parent = itself, generation and creating transaction 0:
 * the slot the kernel builds, with the same builder (uapi/nova_reserved.h).
 */
static void make_reserved(struct image *im, const struct mkfs_params *p,
			  uint64_t ino, uint16_t mode, uint32_t nlink)
{
	struct nova_inode *pi = fixed_at(im, NOVA_RESERVED_INODE_BLOCK,
					 ino * NOVA_INODE_SIZE);
	const struct nova_reserved_attrs a = {
		.mode = mode, .nlink = nlink, .uid = p->uid, .gid = p->gid,
		.parent = ino, .sec = (uint64_t)p->now, .nsec = p->now_nsec,
		.live = 1,
	};

	nova_reserved_inode_fill(pi, ino, &a);
}

/*
 * nova_save_alloc_state() at the first clean unmount: one state page (the
 * lowest free block) holding the one free run left (uapi/nova_plan.h).
 */
static int save_state(struct image *im, struct mkfs_layout *out)
{
	struct nova_inode *pi = fixed_at(im, NOVA_RESERVED_INODE_BLOCK,
					 NOVA_ALLOC_INO * NOVA_INODE_SIZE);
	uint8_t page[NOVA_BLOCK_SIZE];
	uint64_t blk = nova_plan_state_page(&im->plan);
	uint64_t start = nova_plan_saved_start(&im->plan);
	uint64_t len = im->plan.free_end - start;
	struct nova_range r;
	unsigned int size;

	r.r_start = cpu64(start);
	r.r_len = cpu64(len);
	size = nova_state_page_fill(page, &r, 1, 0, ++im->trans, 0);
	pi->i_log_head = cpu64(NOVA_OFF(blk));
	pi->i_log_tail = cpu64(NOVA_OFF(blk) + size);
	out->state_pages = 1;
	out->free_ranges = 1;
	out->free_blocks = len;
	return ndev_write(im->d, NOVA_OFF(blk), page, sizeof(page), im->e);
}

/*
 * The allocation bitmap (1.9): the blocks in use in this image set, the
 * rest of the allocator's range clear (uapi/nova_bitmap.h).
 */
static int make_bitmap(struct image *im)
{
	const struct nova_layout *l = &im->plan.layout;
	uint64_t free_from = nova_plan_saved_start(&im->plan);
	__le64 words[NOVA_BITMAP_WORDS_PER_BLOCK];
	uint64_t b, i, index;
	int err = 0;

	for (b = 0; !err && b < l->bitmap_blocks; b++) {
		for (i = 0; i < NOVA_BITMAP_WORDS_PER_BLOCK; i++) {
			index = b * NOVA_BITMAP_WORDS_PER_BLOCK + i;
			words[i] = cpu64(nova_plan_bitmap_word(&im->plan,
							       free_from,
							       index));
		}
		err = ndev_write(im->d, NOVA_OFF(l->bitmap + b), words,
				 sizeof(words), im->e);
	}
	return err;
}

static int make_super(struct image *im, const struct mkfs_params *p,
		      struct mkfs_layout *out)
{
	struct nova_super_block *sb = fixed_at(im, NOVA_SB_BLOCK, 0);
	uint8_t replica[NOVA_BLOCK_SIZE];
	int err;

	memset(sb, 0, sizeof(*sb));
	sb->s_magic = cpu32(NOVA_SUPER_MAGIC);
	sb->s_version_major = cpu16(NOVA_FORMAT_MAJOR);
	/*
	 * 1.6: xattr, range entries and file attribute flags allowed; 1.9
	 * with the allocation bitmap.
	 */
	sb->s_version_minor = cpu16(nova_mkfs_minor(p->features));
	sb->s_blocksize = cpu32(NOVA_BLOCK_SIZE);
	sb->s_size = cpu64(p->size);
	sb->s_cpus = cpu32(p->cpus);
	sb->s_state = cpu32(NOVA_STATE_CLEAN);
	sb->s_feature_incompat = cpu32(p->features | NOVA_FEATURE_1_5 |
				      NOVA_FEATURE_1_6);
	nova_layout_to_sb(sb, &im->plan.layout);
	memcpy(sb->s_uuid, p->uuid, sizeof(sb->s_uuid));
	memcpy(sb->s_label, p->label, sizeof(sb->s_label));
	sb->s_mkfs_time = cpu64((uint64_t)p->now);
	sb->s_mount_time = 0;
	sb->s_write_time = cpu64((uint64_t)p->now);
	sb->s_mount_count = 0;
	sb->s_trans_id = cpu64(im->trans + 1);
	sb->s_epoch_id = 0;
	sb->s_log_pages = 0;
	sb->s_data_pages = 0;
	sb->s_free_blocks = cpu64(out->free_blocks);
	nova_sb_seal(sb);

	/* Metadata durable, then the primary, durable, then the replica. */
	err = make_bitmap(im);
	if (!err && im->plan.layout.mmap) /* the unprotected-inode list: empty */
		err = ndev_zero(im->d, NOVA_OFF(im->plan.layout.mmap),
				NOVA_BLOCK_SIZE, im->e);
	if (!err)
		err = ndev_write(im->d, NOVA_OFF(NOVA_RESERVED_INODE_BLOCK),
			 fixed_at(im, NOVA_RESERVED_INODE_BLOCK, 0),
			 (NOVA_FIRST_ALLOC_BLOCK - 1) * NOVA_BLOCK_SIZE, im->e);
	/* The reserved inodes' replicas (1.3), a copy of block 1. */
	if (!err && im->plan.layout.meta_replica)
		err = ndev_write(im->d, NOVA_OFF(im->plan.layout.meta_replica),
			 fixed_at(im, NOVA_RESERVED_INODE_BLOCK, 0),
			 NOVA_BLOCK_SIZE, im->e);
	if (!err)
		err = ndev_sync(im->d, im->e);
	if (!err)
		err = ndev_write(im->d, 0, im->fixed, NOVA_BLOCK_SIZE, im->e);
	if (!err)
		err = ndev_sync(im->d, im->e);
	memset(replica, 0, sizeof(replica));
	memcpy(replica, sb, sizeof(*sb));
	if (!err)
		err = ndev_write(im->d, NOVA_OFF(im->nblocks - 1), replica,
				 sizeof(replica), im->e);
	if (!err)
		err = ndev_sync(im->d, im->e);
	return err;
}

uint64_t nova_mkfs_min_blocks(unsigned int cpus)
{
	/*
	 * fixed blocks, per stripe a table and a ring, a state page, a free
	 * block, the replica superblock
	 */
	uint64_t need = NOVA_FIRST_ALLOC_BLOCK +
			(uint64_t)cpus * (NOVA_INODE_TABLE_BLOCKS + 1) + 2 + 1;

	return need > NOVA_MIN_BLOCKS ? need : NOVA_MIN_BLOCKS;
}

int nova_mkfs_write(struct nova_dev *d, const struct mkfs_params *p,
		    struct mkfs_layout *out, struct nerr *e)
{
	struct image *im;
	struct mkfs_layout dummy;
	int err;

	if (!out)
		out = &dummy;
	memset(out, 0, sizeof(*out));
	if (p->cpus < 1 || p->cpus > NOVA_MAX_CPUS) {
		nerr_set(e, "CPU stripes must be 1..%u, not %u", NOVA_MAX_CPUS,
			 p->cpus);
		return -EINVAL;
	}
	if (p->size % NOVA_BLOCK_SIZE || p->size > d->size) {
		nerr_set(e, "%s: bad file system size %llu", d->path,
			 (unsigned long long)p->size);
		return -EINVAL;
	}
	im = calloc(1, sizeof(*im));
	if (!im) {
		nerr_set(e, "out of memory");
		return -ENOMEM;
	}
	im->d = d;
	im->e = e;
	im->nblocks = p->size / NOVA_BLOCK_SIZE;
	out->nblocks = im->nblocks;
	if (im->nblocks < nova_mkfs_min_blocks(p->cpus) ||
	    nova_format_plan(im->nblocks, p->cpus, p->features, &im->plan) !=
	    NOVA_PLAN_FINE) {
		if (im->nblocks >= NOVA_MIN_BLOCKS)
			nova_layout_compute(im->nblocks, p->features,
					    &im->plan.layout);
		err = too_small(im, p);
		goto out;
	}
	err = make_journals(im, p, out);
	if (!err)
		err = make_tables(im, p, out);
	if (!err) {
		make_reserved(im, p, NOVA_ROOT_INO, 0040755, 2);
		make_reserved(im, p, NOVA_ALLOC_INO, 0100600, 1);
		make_reserved(im, p, NOVA_SNAPSHOT_INO, 0100600, 1);
		/* nova_format() starts at 1; the unmount's state pages follow. */
		im->trans = 1;
		err = save_state(im, out);
	}
	if (!err)
		err = make_super(im, p, out);
out:
	free(im);
	return err;
}

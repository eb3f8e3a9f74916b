// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mkfs.NOVA: the initial image, built the way the kernel builds it in
 * "mount -o init" (module/super.c, balloc.c, journal.c, inode.c) and then
 * saved by a clean unmount (nova_save_alloc_state()). To place the
 * structures where the kernel would, the kernel's allocator is simulated:
 * one free list per possible CPU, each a region of ceil(nblocks / lists)
 * blocks, allocations taken from the front of the first fitting range of
 * list 0 (the kernel starts at the list of the CPU it runs on; a mount on
 * CPU 0 gives exactly this image). Left as it was never mounted: mount
 * time and count are 0, where "mount -o init" + umount leaves 1.
 *
 * Write order: everything reachable only through the superblock first,
 * made durable, then the primary superblock, then the replica.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "le.h"
#include "mkfs.h"
#include "nova_state.h"

/* ---- the simulated allocator (module/balloc.c) ---- */

struct sim_range {
	uint64_t start, end;		/* [start, end) */
};

struct sim_list {
	struct sim_range *r;		/* sorted by start */
	unsigned int n, cap;
};

struct sim {
	struct sim_list *l;
	unsigned int nr;
	uint64_t span, nblocks;
};

static int sim_push(struct sim_list *l, uint64_t start, uint64_t end)
{
	if (l->n && l->r[l->n - 1].end == start) {
		l->r[l->n - 1].end = end;
		return 0;
	}
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 4;
		struct sim_range *r = realloc(l->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		l->r = r;
		l->cap = cap;
	}
	l->r[l->n].start = start;
	l->r[l->n].end = end;
	l->n++;
	return 0;
}

/* nova_balloc_init() + nova_balloc_add_free() of the allocatable range. */
static int sim_init(struct sim *s, uint64_t nblocks, unsigned int lists,
		    const struct nova_layout *lay)
{
	uint64_t blk = lay->alloc_start, n = lay->alloc_end - lay->alloc_start;

	s->nr = lists;
	s->nblocks = nblocks;
	s->span = (nblocks + lists - 1) / lists;
	s->l = calloc(lists, sizeof(*s->l));
	if (!s->l)
		return -ENOMEM;
	while (n) {
		uint64_t l = blk / s->span, lim, chunk;

		if (l > s->nr - 1)
			l = s->nr - 1;
		lim = l == s->nr - 1 ? blk + n : (l + 1) * s->span;
		chunk = n < lim - blk ? n : lim - blk;
		if (sim_push(&s->l[l], blk, blk + chunk))
			return -ENOMEM;
		blk += chunk;
		n -= chunk;
	}
	return 0;
}

static void sim_free(struct sim *s)
{
	unsigned int i;

	for (i = 0; s->l && i < s->nr; i++)
		free(s->l[i].r);
	free(s->l);
}

/* nova_take(): the first range that fits, from its front. */
static uint64_t sim_take(struct sim_list *l, uint64_t want, bool contig,
			 uint64_t *blk)
{
	unsigned int i;
	uint64_t got;

	for (i = 0; i < l->n; i++)
		if (!contig || l->r[i].end - l->r[i].start >= want)
			break;
	if (i == l->n)
		return 0;
	got = l->r[i].end - l->r[i].start;
	if (got > want)
		got = want;
	*blk = l->r[i].start;
	l->r[i].start += got;
	if (l->r[i].start == l->r[i].end) {
		memmove(&l->r[i], &l->r[i + 1], (l->n - i - 1) * sizeof(l->r[0]));
		l->n--;
	}
	return got;
}

/* nova_alloc_blocks() on CPU 0; returns the blocks taken, 0 if none. */
static uint64_t sim_alloc(struct sim *s, uint64_t want, bool contig,
			  uint64_t *blk)
{
	unsigned int i;
	uint64_t n = 0;

	for (i = 0; i < s->nr && !n; i++)
		n = sim_take(&s->l[i], want, contig, blk);
	return n;
}

/*
 * nova_alloc_blocks_high(): exactly @want blocks from the end of the
 * highest range that fits, last list first. 0 if none fits.
 */
static uint64_t sim_alloc_high(struct sim *s, uint64_t want, uint64_t *blk)
{
	unsigned int i, j;

	for (i = s->nr; i-- > 0;) {
		struct sim_list *l = &s->l[i];

		for (j = l->n; j-- > 0;) {
			if (l->r[j].end - l->r[j].start < want)
				continue;
			l->r[j].end -= want;
			*blk = l->r[j].end;
			if (l->r[j].start == l->r[j].end) {
				memmove(&l->r[j], &l->r[j + 1],
					(l->n - j - 1) * sizeof(l->r[0]));
				l->n--;
			}
			return want;
		}
	}
	return 0;
}

static uint64_t sim_ranges(const struct sim *s, uint64_t *blocks)
{
	uint64_t nr = 0, nfree = 0;
	unsigned int i, j;

	for (i = 0; i < s->nr; i++) {
		nr += s->l[i].n;
		for (j = 0; j < s->l[i].n; j++)
			nfree += s->l[i].r[j].end - s->l[i].r[j].start;
	}
	*blocks = nfree;
	return nr;
}

/* ---- the image ---- */

struct image {
	struct nova_dev *d;
	struct nerr *e;
	struct sim sim;
	uint8_t fixed[NOVA_FIRST_ALLOC_BLOCK * NOVA_BLOCK_SIZE];	/* 0..3 */
	uint64_t trans;			/* last transaction id used */
	uint64_t nblocks;
	struct nova_layout layout;	/* allocatable range, protection areas */
};

static void *fixed_at(struct image *im, unsigned int blk, size_t off)
{
	return im->fixed + (size_t)blk * NOVA_BLOCK_SIZE + off;
}

/*
 * Blocks the stripes take from the allocatable part: per stripe a 2 MiB
 * inode table (and its replica with META_REPLICA) and a journal ring,
 * plus the allocator's state page.
 */
static uint64_t stripe_blocks(const struct mkfs_params *p)
{
	unsigned int tables = p->features & NOVA_FEATURE_META_REPLICA ? 2 : 1;

	return (uint64_t)p->cpus * (tables * NOVA_INODE_TABLE_BLOCKS + 1) + 1;
}

static int too_small(struct image *im, const struct mkfs_params *p)
{
	struct nova_layout l;
	uint64_t avail;

	nova_layout_compute(im->nblocks, p->features, &l);
	avail = l.alloc_end > l.alloc_start ? l.alloc_end - l.alloc_start : 0;
	nerr_set(im->e, "%s: %llu blocks are too few for %u CPU stripes: %llu are allocatable after the fixed blocks and protection areas, the stripes' inode tables%s and journals need %llu and more (fewer stripes: -c, or less protection: -p)",
		 im->d->path, (unsigned long long)im->nblocks, p->cpus,
		 (unsigned long long)avail,
		 p->features & NOVA_FEATURE_META_REPLICA ? " (with replicas)" : "",
		 (unsigned long long)stripe_blocks(p));
	return -ENOSPC;
}

/* nova_journal_format(): one zeroed ring per stripe. */
static int make_journals(struct image *im, const struct mkfs_params *p,
			 struct mkfs_layout *out)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->cpus; i++) {
		struct nova_journal_ptr *jp = fixed_at(im, NOVA_JOURNAL_PTR_BLOCK,
						       i * sizeof(*jp));
		uint64_t blk;

		if (!sim_alloc(&im->sim, 1, false, &blk))
			return too_small(im, p);
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
 * and, with inode replicas, its replica from the high end.
 */
static int make_tables(struct image *im, const struct mkfs_params *p,
		       struct mkfs_layout *out)
{
	unsigned int i;
	int err;

	for (i = 0; i < p->cpus; i++) {
		struct nova_inode_table *it = fixed_at(im,
			NOVA_INODE_TABLE_PTR_BLOCK, i * sizeof(*it));
		uint64_t blk, rblk = 0;

		if (sim_alloc(&im->sim, NOVA_INODE_TABLE_BLOCKS, true, &blk) !=
		    NOVA_INODE_TABLE_BLOCKS) {
			if (im->sim.span > NOVA_INODE_TABLE_BLOCKS + NOVA_FIRST_ALLOC_BLOCK)
				return too_small(im, p);
			nerr_set(im->e, "%s: no contiguous 2 MiB for an inode table: the kernel's %u free lists (one per possible CPU) cut %llu blocks into regions of %llu",
				 im->d->path, im->sim.nr,
				 (unsigned long long)im->nblocks,
				 (unsigned long long)im->sim.span);
			return -ENOSPC;
		}
		if ((p->features & NOVA_FEATURE_META_REPLICA) &&
		    sim_alloc_high(&im->sim, NOVA_INODE_TABLE_BLOCKS, &rblk) !=
		    NOVA_INODE_TABLE_BLOCKS)
			return too_small(im, p);
		if (rblk)
			err = write_table(im, i, rblk, blk);
		else
			err = 0;
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
 * the caller, parent = itself, generation and creating transaction 0.
 */
static void make_reserved(struct image *im, const struct mkfs_params *p,
			  uint64_t ino, uint16_t mode, uint32_t nlink)
{
	struct nova_inode *pi = fixed_at(im, NOVA_RESERVED_INODE_BLOCK,
					 ino * NOVA_INODE_SIZE);
	struct nova_timespec ts = {
		.sec = cpu64((uint64_t)p->now), .nsec = cpu32(p->now_nsec),
	};

	memset(pi, 0, sizeof(*pi));
	pi->i_valid = cpu64(1);
	pi->i_ino = cpu64(ino);
	pi->i_mode = cpu16(mode);
	pi->i_uid = cpu32(p->uid);
	pi->i_gid = cpu32(p->gid);
	pi->i_nlink = cpu32(nlink);
	pi->i_parent = cpu64(ino);
	pi->i_atime = ts;
	pi->i_mtime = ts;
	pi->i_ctime = ts;
	pi->i_crtime = ts;
	nova_inode_seal(pi);
}

/* One state page (nova_state_page_fill(), as the kernel writes it). */
static int write_state_page(struct image *im, const struct sim_range *r,
			    unsigned int k, uint64_t blk, uint64_t next,
			    uint64_t *tail)
{
	uint8_t page[NOVA_BLOCK_SIZE];
	struct nova_range rr[NOVA_RANGES_PER_ENTRY];
	unsigned int i;

	for (i = 0; i < k; i++) {
		rr[i].r_start = cpu64(r[i].start);
		rr[i].r_len = cpu64(r[i].end - r[i].start);
	}
	*tail = NOVA_OFF(blk) + nova_state_page_fill(page, rr, k, 0,
						      ++im->trans, next);
	return ndev_write(im->d, NOVA_OFF(blk), page, sizeof(page), im->e);
}

/*
 * nova_save_alloc_state() at the clean unmount: the free ranges, 250 per
 * NOVA_LOG_FREE_RANGES entry, one entry per log page of NOVA_ALLOC_INO.
 * The pages are allocated first, so the ranges written exclude them.
 */
static int save_state(struct image *im, struct mkfs_layout *out)
{
	struct nova_inode *pi = fixed_at(im, NOVA_RESERVED_INODE_BLOCK,
					 NOVA_ALLOC_INO * NOVA_INODE_SIZE);
	uint64_t nr, npages, i, n = 0, tail = 0, nfree, *pages = NULL;
	struct sim_range *all = NULL;
	unsigned int l, j;
	int err = 0;

	pi->i_log_head = 0;
	pi->i_log_tail = 0;
	nr = sim_ranges(&im->sim, &nfree);
	npages = (nr + NOVA_RANGES_PER_ENTRY - 1) / NOVA_RANGES_PER_ENTRY;
	if (!npages)
		return 0;
	pages = calloc(npages, sizeof(*pages));
	all = calloc(nr, sizeof(*all));
	if (!pages || !all) {
		err = -ENOMEM;
		nerr_set(im->e, "out of memory");
		goto out;
	}
	for (i = 0; i < npages; i++) {
		if (!sim_alloc(&im->sim, 1, false, &pages[i])) {
			err = -ENOSPC;
			nerr_set(im->e, "no room for the allocator state");
			goto out;
		}
	}
	/* Taking from the front of ranges may drop ranges, never adds any. */
	for (l = 0; l < im->sim.nr; l++)
		for (j = 0; j < im->sim.l[l].n; j++)
			all[n++] = im->sim.l[l].r[j];
	/*
	 * If ranges were dropped, a page may be left over. The kernel frees
	 * it after writing the state, so it is in no saved range (leaked
	 * until the next dirty mount); mkfs keeps it in the chain with an
	 * entry of no ranges instead, so the image has no leak.
	 */
	for (i = 0; i < npages; i++) {
		uint64_t first = i * NOVA_RANGES_PER_ENTRY, k = 0;

		if (first < n)
			k = n - first < NOVA_RANGES_PER_ENTRY ? n - first :
			    NOVA_RANGES_PER_ENTRY;
		err = write_state_page(im, all + (first < n ? first : 0),
				       (unsigned int)k, pages[i],
				       i + 1 < npages ? pages[i + 1] : 0, &tail);
		if (err)
			goto out;
	}
	pi->i_log_head = cpu64(NOVA_OFF(pages[0]));
	pi->i_log_tail = cpu64(tail);
	out->state_pages = npages;
	out->free_ranges = n;
out:
	free(pages);
	free(all);
	return err;
}

static int make_super(struct image *im, const struct mkfs_params *p,
		      struct mkfs_layout *out)
{
	struct nova_super_block *sb = fixed_at(im, NOVA_SB_BLOCK, 0);
	uint8_t replica[NOVA_BLOCK_SIZE];
	uint64_t nfree;
	int err;

	sim_ranges(&im->sim, &nfree);
	memset(sb, 0, sizeof(*sb));
	sb->s_magic = cpu32(NOVA_SUPER_MAGIC);
	sb->s_version_major = cpu16(NOVA_FORMAT_MAJOR);
	/* 1.6: xattr, range entries and file attribute flags allowed. */
	sb->s_version_minor = cpu16(NOVA_MKFS_MINOR);
	sb->s_blocksize = cpu32(NOVA_BLOCK_SIZE);
	sb->s_size = cpu64(p->size);
	sb->s_cpus = cpu32(p->cpus);
	sb->s_state = cpu32(NOVA_STATE_CLEAN);
	sb->s_feature_incompat = cpu32(p->features | NOVA_FEATURE_1_5 |
				      NOVA_FEATURE_1_6);
	nova_layout_to_sb(sb, &im->layout);
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
	sb->s_free_blocks = cpu64(nfree);
	nova_sb_seal(sb);
	out->free_blocks = nfree;

	/* Metadata durable, then the primary, durable, then the replica. */
	err = 0;
	if (im->layout.mmap)	/* the unprotected-inode list starts empty */
		err = ndev_zero(im->d, NOVA_OFF(im->layout.mmap),
				NOVA_BLOCK_SIZE, im->e);
	if (!err)
		err = ndev_write(im->d, NOVA_OFF(NOVA_RESERVED_INODE_BLOCK),
			 fixed_at(im, NOVA_RESERVED_INODE_BLOCK, 0),
			 (NOVA_FIRST_ALLOC_BLOCK - 1) * NOVA_BLOCK_SIZE, im->e);
	/* The reserved inodes' replicas (1.3), a copy of block 1. */
	if (!err && im->layout.meta_replica)
		err = ndev_write(im->d, NOVA_OFF(im->layout.meta_replica),
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
	/* fixed blocks, per stripe a table and a ring, a state page, replica */
	uint64_t need = NOVA_FIRST_ALLOC_BLOCK +
			(uint64_t)cpus * (NOVA_INODE_TABLE_BLOCKS + 1) + 1 + 1;

	return need > NOVA_MIN_BLOCKS ? need : NOVA_MIN_BLOCKS;
}

unsigned int nova_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned int n = 0, a, b;
	char sep;

	if (f) {
		/* "0-3,5,7-8" */
		while (fscanf(f, "%u", &a) == 1) {
			b = a;
			if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
				if (fscanf(f, "%u", &b) != 1)
					break;
				if (fscanf(f, "%c", &sep) != 1)
					sep = 0;
			}
			if (b > a)
				n += b - a + 1;
			else
				n++;
			if (sep != ',')
				break;
		}
		fclose(f);
	}
	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		n = c > 0 ? (unsigned int)c : 1;
	}
	return n;
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
	if (im->nblocks < nova_mkfs_min_blocks(p->cpus)) {
		err = too_small(im, p);
		goto out;
	}
	nova_layout_compute(im->nblocks, p->features, &im->layout);
	if (im->layout.alloc_end < im->layout.alloc_start + NOVA_MIN_BLOCKS / 2) {
		err = too_small(im, p);
		goto out;
	}
	err = sim_init(&im->sim, im->nblocks,
		       p->alloc_lists ? p->alloc_lists : nova_possible_cpus(),
		       &im->layout);
	if (err) {
		nerr_set(e, "out of memory");
		goto out;
	}
	/* The order of nova_format(): it decides where things go. */
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
	sim_free(&im->sim);
	free(im);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: the pmem driver's list of bad blocks (known media errors), at
 * mount. docs/protection.md ("Bad blocks") explains the design.
 *
 * The driver keeps a list of bad 512-byte sectors per disk
 * (gendisk->bb; for tests writable through /sys/block/pmemN/badblocks).
 * It affects NOVA twice:
 *
 *  - dax_direct_access() in DAX_ACCESS mode fails for any range that
 *    contains a listed sector (drivers/nvdimm/pmem.c,
 *    __pmem_direct_access(); -EIO in 6.1, -EHWPOISON since 6.4:
 *    nova_dax_range_bad() in compat.h), so mapping the whole device at
 *    once fails and with it the mount. nova_bb_map_device() maps it piece by piece
 *    instead: good runs with DAX_ACCESS, a bad page with
 *    DAX_RECOVERY_WRITE (which hands out the address of a page with
 *    listed sectors, for writing it), and checks that the pieces form the
 *    one linear mapping NOVA addresses the device with.
 *  - reading a poisoned line machine-checks. NOVA reads file data with
 *    machine-check-safe loads (copy_mc_to_kernel() in protect.c, the
 *    one-pass read loop in csum.c), so poison is a bad strip there, but
 *    the mount should not wait for a reader to find it: nova_bb_mount()
 *    walks the list once the file system is loaded.
 *
 * For each listed block:
 *  - a data block of a file (found by walking the files' block maps;
 *    only done when the list is not empty): its strips are checked
 *    against their checksums with copy_mc reads; one bad strip is rebuilt
 *    from parity and the other seven, checked against a checksum copy and
 *    written back with dax_recovery_write() (the driver clears the poison
 *    and the list entry; on a platform that cannot clear poison, e.g.
 *    QEMU's NFIT, it writes nothing and we store the strip with the
 *    ordinary persistent-store helper and read it back). More bad strips,
 *    or no parity: reported unrecoverable; reads of the page then fail
 *    with EIO through the checksums, never returning wrong data. Listed
 *    strips that still verify are left alone.
 *  - a free block: withheld from the allocator until unmount, so that
 *    nothing new is written to it (nova_bb_metadata()); reported as a
 *    warning, nothing is lost.
 *  - any other block (superblock area, journals, inode tables, log
 *    pages, checksum/parity areas): reported. Inode slots are served
 *    from their replicas when read; nothing here rewrites metadata.
 * Each finding is counted (nova_sb_info.bb_*, STATS_GET), logged with
 * the inode and offset where known, and announced with
 * nova_report_damage().
 *
 * Runs in fill_super after the root inode is read and before the file
 * system is announced, single-threaded: no file-system lock is
 * contended; it still takes each inode's log_lock around its block map.
 * Repairs are written only on a read-write mount. Ordering of a repair:
 * the strip is written and flushed (the checksums already describe it),
 * then fenced; nothing else changes.
 */
#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/dax.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/xarray.h>
#include <linux/nova_genl.h>

#include "health.h"
#include "nova.h"
#include "pmem.h"
#include "protect.h"
#include "badblocks.h"

/* Listed bad ranges handled per mount (the driver's list is one page). */
#define NOVA_BB_MAX	(PAGE_SIZE / sizeof(u64))

/*
 * Map the whole device into sbi->virt. Returns the number of pages mapped
 * (sbi->nblocks on success) or -errno. Caller holds dax_read_lock().
 */
long nova_bb_map_device(struct nova_sb_info *sbi)
{
	pgoff_t base = sbi->dax_part_off >> PAGE_SHIFT;
	unsigned long done = 0;
	void *kaddr;
	long n;

	n = dax_direct_access(sbi->dax_dev, base, sbi->nblocks, DAX_ACCESS,
			      &sbi->virt, NULL);
	if (!nova_dax_range_bad(n))
		return n;
	/* Listed bad sectors: map around them, page by page where bad. */
	while (done < sbi->nblocks) {
		long left = sbi->nblocks - done;

		n = dax_direct_access(sbi->dax_dev, base + done, left,
				      DAX_ACCESS, &kaddr, NULL);
		if (nova_dax_range_bad(n))
			n = dax_direct_access(sbi->dax_dev, base + done, left,
					      DAX_RECOVERY_WRITE, &kaddr, NULL);
		if (n <= 0)
			return n ?: -EIO;
		if (!done)
			sbi->virt = kaddr;
		else if (kaddr != sbi->virt + done * PAGE_SIZE)
			return -EINVAL;	/* not one linear mapping */
		done += min_t(unsigned long, n, left);
	}
	return done;
}

/* nova_bb_metadata(): a free block, now kept out of allocation. */
#define NOVA_BB_WITHHELD	2
/*
 * nova_bb_data() on a read-only mount: damaged but rebuildable; every
 * read rebuilds it from parity, nothing is written back.
 */
#define NOVA_BB_REBUILDABLE	3

/* One listed block and what it turned out to be. */
struct nova_bb_block {
	unsigned long blk;
	unsigned long sectors;		/* bitmap of listed 512-byte sectors */
	u64 ino;			/* owning file, 0: none found */
	u64 pgoff;			/* its page in that file */
};

struct nova_bb_walk {
	struct nova_bb_block *b;
	unsigned int n;
};

/* Copy the driver's list (under its seqlock) into device blocks. */
static int nova_bb_collect(struct super_block *sb, struct nova_bb_walk *w)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct badblocks *bb = sb->s_bdev->bd_disk->bb;
	u64 *copy;
	unsigned int seq, i, n;
	int err = 0;

	w->n = 0;
	if (!bb || !READ_ONCE(bb->count))
		return 0;
	copy = kmalloc(PAGE_SIZE, GFP_KERNEL);
	w->b = kcalloc(NOVA_BB_MAX, sizeof(*w->b), GFP_KERNEL);
	if (!copy || !w->b) {
		err = -ENOMEM;
		goto out;
	}
	do {
		seq = read_seqbegin(&bb->lock);
		n = min_t(unsigned int, READ_ONCE(bb->count), NOVA_BB_MAX);
		memcpy(copy, bb->page, n * sizeof(u64));
	} while (read_seqretry(&bb->lock, seq));

	for (i = 0; i < n; i++) {
		u64 s = BB_OFFSET(copy[i]), end = s + BB_LEN(copy[i]);

		for (; s < end; s++) {
			u64 off = s << SECTOR_SHIFT;
			unsigned long blk;

			if (off < sbi->dax_part_off)
				continue;
			off -= sbi->dax_part_off;
			blk = off >> NOVA_BLOCK_SHIFT;
			if (blk >= sbi->nblocks)
				break;
			if (!w->n || w->b[w->n - 1].blk != blk) {
				if (w->n == NOVA_BB_MAX)
					goto full;
				w->b[w->n++].blk = blk;
			}
			__set_bit((off & (NOVA_BLOCK_SIZE - 1)) >> SECTOR_SHIFT,
				  &w->b[w->n - 1].sectors);
		}
	}
	goto out;
full:
	nova_warn(sb, "bad blocks: more than %lu listed, the rest is not checked",
		  NOVA_BB_MAX);
out:
	kfree(copy);
	return err;
}

/* Record @inode as the owner of the listed blocks its block map holds. */
static void nova_bb_owner_file(struct inode *inode, struct nova_bb_walk *w)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned long idx;
	unsigned int i;
	void *v;

	mutex_lock(&ni->log_lock);
	xa_for_each(&ni->pages, idx, v) {
		u64 blk = nova_file_block(inode, idx);

		for (i = 0; i < w->n; i++) {
			if (w->b[i].blk == blk && !w->b[i].ino) {
				w->b[i].ino = inode->i_ino;
				w->b[i].pgoff = idx;
			}
		}
	}
	mutex_unlock(&ni->log_lock);
}

/* Find the files that own listed blocks: every live regular file. */
static void nova_bb_find_owners(struct super_block *sb, struct nova_bb_walk *w)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int cpu;
	u64 idx, nr;

	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		/* Pairs with nova_extend_table(), as nova_get_pinode(). */
		nr = (u64)smp_load_acquire(&sbi->imaps[cpu].nr_blocks) *
		     NOVA_INODES_PER_TABLE;
		for (idx = 0; idx < nr; idx++) {
			u64 ino = nova_ino_make(sbi->cpus, cpu, idx);
			struct nova_inode *pi = nova_get_pinode(sb, ino);
			struct inode *inode;

			if (!pi || le64_to_cpu(READ_ONCE(pi->i_valid)) != 1 ||
			    !S_ISREG(le16_to_cpu(READ_ONCE(pi->i_mode))))
				continue;
			inode = nova_iget(sb, ino);
			if (IS_ERR(inode))
				continue;	/* reported by the loader */
			nova_bb_owner_file(inode, w);
			iput(inode);
		}
	}
}

static __le32 *nova_bb_csum_slot(struct nova_sb_info *sbi, unsigned long blk,
				 unsigned int copy)
{
	u64 area = copy ? sbi->layout.csum_replica : sbi->layout.csum;

	return nova_block(sbi, area) + (u64)blk * NOVA_CSUM_SLOT;
}

/* Strip @i of @buf against both checksum copies @c (read ok in @ok). */
static bool nova_bb_strip_good(const u8 *buf, unsigned int i,
			       __le32 c[2][NOVA_STRIPS], const bool ok[2])
{
	u32 crc = nova_crc(buf + i * NOVA_STRIP_SIZE, NOVA_STRIP_SIZE);

	return (ok[0] && le32_to_cpu(c[0][i]) == crc) ||
	       (ok[1] && le32_to_cpu(c[1][i]) == crc);
}

/*
 * Rewrite block @blk with its good contents @buf through the driver's
 * recovery path, which clears the poison and the list entry where the
 * platform can (it writes nothing and returns 0 where it cannot).
 */
static bool nova_bb_clear(struct nova_sb_info *sbi, unsigned long blk,
			  const u8 *buf)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = NOVA_BLOCK_SIZE };
	struct iov_iter it;
	size_t done;
	int id;

	iov_iter_kvec(&it, WRITE, &kv, 1, NOVA_BLOCK_SIZE);
	id = dax_read_lock();
	done = dax_recovery_write(sbi->dax_dev,
				  (sbi->dax_part_off >> PAGE_SHIFT) + blk,
				  nova_block(sbi, blk), NOVA_BLOCK_SIZE, &it);
	dax_read_unlock(id);
	return done == NOVA_BLOCK_SIZE;
}

/*
 * Write the rebuilt strip @i of block @blk (whole block in @buf) back:
 * through the driver's recovery path, which clears the poison and the
 * list entry, else with a plain persistent store. True if the medium
 * then reads back right.
 */
static bool nova_bb_write_back(struct nova_sb_info *sbi, unsigned long blk,
			       const u8 *buf, unsigned int i)
{
	void *addr = nova_block(sbi, blk);
	u8 *check;
	bool ok;

	if (!nova_bb_clear(sbi, blk, buf))
		nova_pmem_memcpy(addr + i * NOVA_STRIP_SIZE,
				 buf + i * NOVA_STRIP_SIZE, NOVA_STRIP_SIZE);
	nova_pmem_fence();
	check = kmalloc(NOVA_STRIP_SIZE, GFP_KERNEL);
	if (!check)
		return false;
	ok = !nova_pmem_read(check, addr + i * NOVA_STRIP_SIZE,
			     NOVA_STRIP_SIZE) &&
	     !memcmp(check, buf + i * NOVA_STRIP_SIZE, NOVA_STRIP_SIZE);
	kfree(check);
	return ok;
}

/* Rebuild strip @bad of @buf from parity; true if a checksum confirms it. */
static bool nova_bb_rebuild(struct nova_sb_info *sbi, unsigned long blk,
			    u8 *buf, unsigned int bad,
			    __le32 c[2][NOVA_STRIPS], const bool ok[2])
{
	u64 p[NOVA_STRIP_SIZE / sizeof(u64)];
	const u64 *w = (const u64 *)buf;
	unsigned int i, j;

	if (!(sbi->prot & NOVA_FEATURE_DATA_PARITY) ||
	    nova_pmem_read(p, nova_block(sbi, sbi->layout.parity) +
			   (u64)blk * NOVA_STRIP_SIZE, sizeof(p)))
		return false;
	for (i = 0; i < NOVA_STRIPS; i++)
		if (i != bad)
			for (j = 0; j < ARRAY_SIZE(p); j++)
				p[j] ^= w[i * ARRAY_SIZE(p) + j];
	memcpy(buf + bad * NOVA_STRIP_SIZE, p, sizeof(p));
	return nova_bb_strip_good(buf, bad, c, ok);
}

/*
 * A listed block of a file. Returns 1 if repaired, 0 if intact,
 * NOVA_BB_REBUILDABLE if damaged but rebuildable on a read-only mount,
 * -EIO if it cannot be repaired (reads of it fail with EIO), -ENOMEM.
 */
static int nova_bb_data(struct super_block *sb, const struct nova_bb_block *b)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	const u8 *data = nova_block(sbi, b->blk);
	__le32 c[2][NOVA_STRIPS];
	unsigned long bad = 0;
	unsigned int i, copy;
	bool ok[2];
	u8 *buf;
	int ret = 0;

	if (!nova_prot_csum(sb))
		return -EIO;	/* no checksums: cannot tell, cannot rebuild */
	buf = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (copy = 0; copy < 2; copy++)
		ok[copy] = !nova_pmem_read(c[copy],
					   nova_bb_csum_slot(sbi, b->blk, copy),
					   sizeof(c[copy]));
	for (i = 0; i < NOVA_STRIPS; i++) {
		if (nova_pmem_read(buf + i * NOVA_STRIP_SIZE,
				   data + i * NOVA_STRIP_SIZE, NOVA_STRIP_SIZE) ||
		    !nova_bb_strip_good(buf, i, c, ok))
			__set_bit(i, &bad);
	}
	if (!bad) {
		/* Listed, but every strip verifies: let the driver clear it. */
		if (!sb_rdonly(sb))
			nova_bb_clear(sbi, b->blk, buf);
		goto out;
	}
	ret = -EIO;
	if (bitmap_weight(&bad, NOVA_STRIPS) > 1 ||
	    !nova_bb_rebuild(sbi, b->blk, buf, __ffs(bad), c, ok))
		goto out;
	if (sb_rdonly(sb)) {
		/* Readers rebuild it the same way; nothing is written. */
		ret = NOVA_BB_REBUILDABLE;
		goto out;
	}
	if (nova_bb_write_back(sbi, b->blk, buf, __ffs(bad))) {
		atomic64_inc(&sbi->prot_repaired);
		ret = 1;
	}
out:
	kfree(buf);
	return ret;
}

/*
 * A listed block that is not file data: free space, metadata or a
 * protection area. A free block is withheld from the allocator for the
 * rest of the mount (nova_balloc_withhold(); the saved allocator state
 * keeps it free, so the next mount decides again): nothing is lost, and
 * no new data or metadata lands on the damaged media. Metadata is not
 * repaired here: inode slots are served from their replica when read
 * (nova_inode_check()), the rest has none (the block is b->blk; the
 * caller reports what this returns). Returns 2 if withheld, 1 if
 * repaired, -EIO if not.
 */
static int nova_bb_metadata(struct super_block *sb,
			    const struct nova_bb_block *b)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!sbi->bb_held || !nova_balloc_withhold(sb, b->blk))
		return -EIO;
	sbi->bb_held[sbi->bb_nr_held++] = b->blk;
	return NOVA_BB_WITHHELD;
}

/* What kind of object block @blk holds, for the report. */
static u32 nova_bb_kind(struct nova_sb_info *sbi, unsigned long blk)
{
	const struct nova_layout *l = &sbi->layout;

	if (l->csum && blk >= l->csum && blk < l->csum + l->csum_blocks)
		return NOVA_CORRUPT_CSUM;
	if (l->csum_replica && blk >= l->csum_replica &&
	    blk < l->csum_replica + l->csum_blocks)
		return NOVA_CORRUPT_CSUM;
	if (l->parity && blk >= l->parity &&
	    blk < l->parity + l->parity_blocks)
		return NOVA_CORRUPT_PARITY;
	if (blk == 0)
		return NOVA_CORRUPT_SUPER;
	return NOVA_CORRUPT_MEDIA;	/* other metadata or free space */
}

static void nova_bb_report(struct super_block *sb,
			   const struct nova_bb_block *b, int ret)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 off = (u64)b->pgoff << PAGE_SHIFT;
	u32 kind;

	if (b->ino) {
		if (ret == 1)
			nova_info(sb, "bad block %lu (inode %llu offset %llu): sector(s) 0x%lx rebuilt from parity",
				  b->blk, b->ino, off, b->sectors);
		else if (ret == NOVA_BB_REBUILDABLE)
			nova_warn(sb, "bad block %lu (inode %llu offset %llu): sector(s) 0x%lx damaged; reads rebuild it from parity, a read-write mount repairs it",
				  b->blk, b->ino, off, b->sectors);
		else if (ret == 0)
			nova_info(sb, "bad block %lu (inode %llu offset %llu): listed sector(s) 0x%lx still verify",
				  b->blk, b->ino, off, b->sectors);
		else
			nova_err(sb, "bad block %lu (inode %llu offset %llu): sector(s) 0x%lx cannot be rebuilt, reads of the page fail",
				 b->blk, b->ino, off, b->sectors);
		if (ret)
			nova_report_damage(sb, b->ino, NOVA_CORRUPT_DATA,
					   off, ret == 1);
		return;
	}
	kind = nova_bb_kind(sbi, b->blk);
	if (ret == NOVA_BB_WITHHELD) {
		nova_warn(sb, "bad block %lu: sector(s) 0x%lx of free space, withheld from allocation",
			  b->blk, b->sectors);
		return;
	}
	if (ret == 1) {
		nova_info(sb, "bad block %lu: metadata sector(s) 0x%lx repaired",
			  b->blk, b->sectors);
	} else if (b->blk < sbi->layout.alloc_start ||
		   kind != NOVA_CORRUPT_MEDIA) {
		nova_err(sb, "bad block %lu: sector(s) 0x%lx of metadata (no replica)",
			 b->blk, b->sectors);
	} else {
		nova_err(sb, "bad block %lu: sector(s) 0x%lx of a log page, an inode table or free space",
			 b->blk, b->sectors);
	}
	nova_report_damage(sb, 0, kind, (u64)b->blk << NOVA_BLOCK_SHIFT,
			   ret == 1);
}

void nova_bb_mount(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_bb_walk w = { };
	unsigned int i;
	int err, ret;

	err = nova_bb_collect(sb, &w);
	if (err || !w.n)
		goto out;
	/* Withheld blocks are remembered until unmount (balloc.c). */
	kfree(sbi->bb_held);
	sbi->bb_nr_held = 0;
	sbi->bb_held = kcalloc(w.n, sizeof(*sbi->bb_held), GFP_KERNEL);
	nova_bb_find_owners(sb, &w);
	for (i = 0; i < w.n; i++) {
		const struct nova_bb_block *b = &w.b[i];

		ret = b->ino ? nova_bb_data(sb, b) : nova_bb_metadata(sb, b);
		if (ret == -ENOMEM) {
			err = ret;
			break;
		}
		sbi->bb_blocks++;
		if (ret == 1)
			sbi->bb_repaired++;
		else if (ret == NOVA_BB_WITHHELD)
			sbi->bb_withheld++;
		else if (ret < 0)
			sbi->bb_lost++;
		if (ret < 0 && b->ino)
			atomic64_inc(&sbi->prot_unrecoverable);
		nova_bb_report(sb, b, ret);
	}
out:
	if (err)
		nova_warn(sb, "bad blocks: not checked at mount (%d)", err);
	kfree(w.b);
}

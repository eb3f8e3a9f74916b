// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: fallocate(2).
 *
 *   mode 0, KEEP_SIZE  allocate zeroed blocks for the holes of the range
 *                      (write entries), and the size (a setattr entry
 *                      with NOVA_ATTR_GROW) unless KEEP_SIZE;
 *   PUNCH_HOLE         (with KEEP_SIZE, as the VFS demands) the pages the
 *                      range covers become holes and their blocks are
 *                      freed; a partial page at either edge gets a copy
 *                      with the range zeroed (copy-on-write, as write());
 *   ZERO_RANGE         as a punch, then zeroed blocks for the whole pages
 *                      and the edges (the range stays allocated, as in
 *                      ext4); the size grows to the end unless KEEP_SIZE;
 *   COLLAPSE_RANGE     removes the pages of the range, the pages after it
 *                      move down, the size drops by the length;
 *   INSERT_RANGE       inserts a hole, the pages from the offset move up,
 *                      the size grows by the length.
 * Collapse and insert need page-aligned offset and length (else EINVAL);
 * a collapse must end before the end of file and an insert start before
 * it (EINVAL), as in ext4.
 *
 * Each range operation is one NOVA_LOG_RANGE entry followed by file write
 * entries (edges, zeroed blocks, moved pages at their new offsets), all
 * committed by one tail store, with the keep records for the blocks a
 * snapshot shows (nova_snapshot_stage_*()): a crash leaves the file as it
 * was before or after the whole operation. Moved pages keep their blocks,
 * unless a live snapshot shows the entry that maps them: that block stays
 * with the snapshot and the file gets a copy, because the entries at the
 * new offsets are of the current epoch and would not keep it for the
 * snapshot when they are superseded. The first range operation on a file
 * system made before format 1.5 sets NOVA_FEATURE_RANGE_OPS
 * (nova_enable_feature()).
 *
 * Locking (nova.h), as truncate: i_rwsem, invalidate_lock (user mappings
 * of the range are broken under it before any block is replaced), log_lock.
 */
#include <linux/fs.h>
#include <linux/falloc.h>
#include <linux/pagemap.h>
#include <linux/slab.h>

#include "nova.h"
#include "pmem.h"
#include "protect.h"

#define NOVA_FALLOC_RANGE_MODES	(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | \
				 FALLOC_FL_COLLAPSE_RANGE | \
				 FALLOC_FL_INSERT_RANGE)

/*
 * The VFS checks these before calling us; again under i_rwsem, as a
 * chattr may have come between (fileattr.c). Append-only files take
 * plain preallocation only, immutable ones nothing.
 */
static int nova_falloc_flags_ok(struct inode *inode, int mode)
{
	if (IS_IMMUTABLE(inode))
		return -EPERM;
	if (IS_APPEND(inode) && (mode & ~FALLOC_FL_KEEP_SIZE))
		return -EPERM;
	return 0;
}

/* Allocate zeroed blocks for the holes in [pgoff, last]. Log lock held. */
static int nova_falloc_holes(struct inode *inode, pgoff_t pgoff, pgoff_t last,
			     loff_t newsize, u64 trans, u64 *tail)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct timespec64 now = current_time(inode);
	loff_t cursize = i_size_read(inode);
	int err;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	while (pgoff <= last) {
		struct nova_file_write_entry fw;
		unsigned long hole = 0, blk, got;

		if (nova_file_block(inode, pgoff)) {
			pgoff++;
			continue;
		}
		while (pgoff + hole <= last && !nova_file_block(inode, pgoff + hole))
			hole++;
		err = nova_alloc_data(inode, pgoff, hole, &blk, &got);
		if (err)
			return err;
		nova_pmem_memset(nova_block(sbi, blk), 0, got << PAGE_SHIFT);
		nova_protect_blocks(sb, blk, got);
		nova_file_write_entry_init(sbi, &fw, trans, pgoff, got, blk);
		cursize = max_t(u64, cursize,
				min_t(u64, newsize, nova_pages_end(pgoff, got)));
		fw.fw_size = cpu_to_le64(cursize);
		nova_ts_to_media(&fw.fw_mtime, &now);
		/* Zeroes and their checksums durable before the entry. */
		nova_pmem_fence();
		err = nova_log_append(inode, &fw, tail);
		if (err) {
			nova_free_blocks(sb, blk, got, NOVA_BLOCK_DATA);
			return err;
		}
		pgoff += got;
	}
	return 0;
}

/* Mode 0 and KEEP_SIZE: preallocation. */
static long nova_falloc_alloc(struct file *file, int mode, loff_t offset,
			      loff_t len)
{
	struct inode *inode = file_inode(file);
	struct nova_inode_info *ni = NOVA_I(inode);
	bool keep = mode & FALLOC_FL_KEEP_SIZE;
	loff_t end = offset + len, target;
	u64 trans, tail = 0, from;
	int err, err2 = 0;

	inode_lock(inode);
	err = nova_falloc_flags_ok(inode, mode);
	if (!err)
		err = inode_newsize_ok(inode, end);
	if (err)
		goto out;
	err = file_remove_privs(file);
	if (err)
		goto out;
	filemap_invalidate_lock(inode->i_mapping);
	target = keep ? i_size_read(inode) : max(i_size_read(inode), end);
	if (target > i_size_read(inode)) {
		/* The end-of-file page may be copied on write. */
		err = nova_break_layouts(inode,
					 i_size_read(inode) & PAGE_MASK,
					 i_size_read(inode) | ~PAGE_MASK);
		if (err)
			goto out_unlock;
	}
	mutex_lock(&ni->log_lock);
	if (target > i_size_read(inode)) {
		err = nova_zero_eof_tail(inode, i_size_read(inode));
		if (err) {
			mutex_unlock(&ni->log_lock);
			goto out_unlock;
		}
	}
	trans = nova_next_trans(NOVA_SB(inode->i_sb));
	from = ni->log_tail;
	err = nova_falloc_holes(inode, offset >> PAGE_SHIFT,
				(end - 1) >> PAGE_SHIFT, target, trans, &tail);
	if (!err && target > i_size_read(inode)) {
		/* The range was allocated already: only the size changes. */
		struct nova_setattr_entry sa = { };
		struct timespec64 now = current_time(inode);

		nova_entry_header(NOVA_SB(inode->i_sb), &sa, NOVA_LOG_SETATTR,
				  sizeof(sa), trans);
		sa.sa_mask = cpu_to_le32(NOVA_ATTR_SIZE | NOVA_ATTR_GROW |
					 NOVA_ATTR_MTIME | NOVA_ATTR_CTIME);
		sa.sa_size = cpu_to_le64(target);
		nova_ts_to_media(&sa.sa_mtime, &now);
		nova_ts_to_media(&sa.sa_ctime, &now);
		err2 = nova_log_append(inode, &sa, &tail);
	}
	if (tail) {
		/* Commit what was allocated, even after ENOSPC. */
		nova_log_commit(inode, tail);
		nova_log_apply_range(inode, from, tail);
	}
	mutex_unlock(&ni->log_lock);
out_unlock:
	filemap_invalidate_unlock(inode->i_mapping);
	if (!err)
		err = err2;
out:
	inode_unlock(inode);
	return err;
}

/* One range operation being built. */
struct nova_rop {
	struct inode *inode;
	u64 trans, tail;
	loff_t oldsize, newsize;
	struct timespec64 now;
	struct xarray moved;		/* old pgoff -> 1: same block, new offset */
	unsigned long *blks;		/* blocks allocated, freed on failure */
	unsigned int nr, cap;
};

static int nova_rop_note(struct nova_rop *r, unsigned long blk,
			 unsigned long n)
{
	unsigned long *b;

	if (r->nr + 2 > r->cap) {
		b = krealloc(r->blks, (r->cap + 64) * sizeof(*b), GFP_NOFS);
		if (!b)
			return -ENOMEM;
		r->blks = b;
		r->cap += 64;
	}
	r->blks[r->nr++] = blk;
	r->blks[r->nr++] = n;
	return 0;
}

static void nova_rop_free_blocks(struct nova_rop *r)
{
	unsigned int i;

	for (i = 0; i < r->nr; i += 2)
		nova_free_blocks(r->inode->i_sb, r->blks[i], r->blks[i + 1],
				 NOVA_BLOCK_DATA);
	r->nr = 0;
}

/* Append a write entry mapping @nr pages from @pgoff to blocks from @blk. */
static int nova_rop_write(struct nova_rop *r, pgoff_t pgoff, u32 nr,
			  unsigned long blk)
{
	struct nova_file_write_entry fw;

	nova_file_write_entry_init(NOVA_SB(r->inode->i_sb), &fw, r->trans,
				   pgoff, nr, blk);
	fw.fw_size = cpu_to_le64(r->newsize);
	nova_ts_to_media(&fw.fw_mtime, &r->now);
	return nova_log_append(r->inode, &fw, &r->tail);
}

/*
 * New blocks for pages @pgoff onwards (nova_alloc_data()), noted for
 * freeing if the operation fails.
 */
static int nova_rop_alloc(struct nova_rop *r, pgoff_t pgoff,
			  unsigned long want, unsigned long *blk,
			  unsigned long *got)
{
	int err = nova_alloc_data(r->inode, pgoff, want, blk, got);

	if (err)
		return err;
	err = nova_rop_note(r, *blk, *got);
	if (err)
		nova_free_blocks(r->inode->i_sb, *blk, *got, NOVA_BLOCK_DATA);
	return err;
}

/*
 * Page @pgoff with bytes [@zf, @zt) zeroed, the rest as it was: a new
 * block, like the partial pages of write(). A hole stays a hole unless
 * @alloc.
 */
static int nova_rop_edge(struct nova_rop *r, pgoff_t pgoff, unsigned int zf,
			 unsigned int zt, bool alloc)
{
	struct inode *inode = r->inode;
	struct super_block *sb = inode->i_sb;
	unsigned long blk, got;
	void *dst;
	int err;

	if (!alloc && !nova_file_block(inode, pgoff))
		return 0;
	err = nova_rop_alloc(r, pgoff, 1, &blk, &got);
	if (err)
		return err;
	dst = nova_block(NOVA_SB(sb), blk);
	err = nova_fill_old(inode, dst, pgoff, 0, zf, r->oldsize);
	if (!err)
		err = nova_fill_old(inode, dst, pgoff, zt, PAGE_SIZE,
				    r->oldsize);
	if (err)
		return err;
	nova_pmem_memset(dst + zf, 0, zt - zf);
	nova_protect_blocks(sb, blk, 1);
	nova_pmem_fence();
	return nova_rop_write(r, pgoff, 1, blk);
}

/* Zeroed blocks for pages [@pgoff, @end). */
static int nova_rop_zeroed(struct nova_rop *r, pgoff_t pgoff, pgoff_t end)
{
	struct super_block *sb = r->inode->i_sb;
	unsigned long blk, got;
	int err;

	while (pgoff < end) {
		err = nova_rop_alloc(r, pgoff, min_t(unsigned long,
						     end - pgoff, U32_MAX),
				     &blk, &got);
		if (err)
			return err;
		nova_pmem_memset(nova_block(NOVA_SB(sb), blk), 0,
				 got << PAGE_SHIFT);
		nova_protect_blocks(sb, blk, got);
		nova_pmem_fence();
		err = nova_rop_write(r, pgoff, got, blk);
		if (err)
			return err;
		pgoff += got;
		cond_resched();
	}
	return 0;
}

/* Punch (@zero false) or zero the byte range [@start, @end). */
static int nova_rop_punch(struct nova_rop *r, loff_t start, loff_t end,
			  bool zero)
{
	pgoff_t first = start >> PAGE_SHIFT, last = (end - 1) >> PAGE_SHIFT;
	unsigned int head = start & ~PAGE_MASK, tail = end & ~PAGE_MASK;
	pgoff_t full = DIV_ROUND_UP(start, PAGE_SIZE), full_end = end >> PAGE_SHIFT;
	int err;

	if (first == last && (head || tail))
		return nova_rop_edge(r, first, head, tail ? tail : PAGE_SIZE,
				     zero);
	if (head) {
		err = nova_rop_edge(r, first, head, PAGE_SIZE, zero);
		if (err)
			return err;
	}
	if (tail) {
		err = nova_rop_edge(r, last, 0, tail, zero);
		if (err)
			return err;
	}
	if (zero && full_end > full)
		return nova_rop_zeroed(r, full, full_end);
	return 0;
}

/*
 * The pages from @src on move by @shift pages (down if @down): one write
 * entry per run of pages with consecutive blocks, at the new offsets.
 * Pages whose entry a live snapshot shows get copies (see the top).
 */
static int nova_rop_shift(struct nova_rop *r, pgoff_t src, pgoff_t shift,
			  bool down)
{
	struct inode *inode = r->inode;
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	pgoff_t run_pg = 0, idx;
	unsigned long run_blk = 0, run_nr = 0, blk, got;
	bool stale = nova_prot_csum(sb) && nova_prot_maybe_stale(inode);
	void *v, *old;
	int err;

	xa_for_each_start(&NOVA_I(inode)->pages, idx, v, src) {
		pgoff_t to = down ? idx - shift : idx + shift;

		/* Replay rejects an entry past the largest page offset. */
		if (!down && to > NOVA_MAX_PGOFF)
			return -EFBIG;
		if (nova_file_shown_block(inode, idx)) {
			err = nova_rop_alloc(r, to, 1, &blk, &got);
			if (!err)
				err = nova_fill_old(inode, nova_block(sbi, blk),
						    idx, 0, PAGE_SIZE,
						    LLONG_MAX);
			if (err)
				return err;
			nova_protect_blocks(sb, blk, 1);
			nova_pmem_fence();
		} else {
			blk = nova_file_block(inode, idx);
			/*
			 * A page stored to through a mapping is marked in the
			 * index (protect.c), and the range entry's apply drops
			 * the marks of every page it moves: seal the block now.
			 * It is unmapped, and the invalidate lock keeps it so.
			 */
			if (stale && nova_prot_page_stored(inode, idx))
				nova_protect_block(sb, blk);
			old = xa_store(&r->moved, idx, xa_mk_value(1),
				       GFP_NOFS);
			if (xa_is_err(old))
				return xa_err(old);
		}
		if (run_nr && to == run_pg + run_nr &&
		    blk == run_blk + run_nr && run_nr < U32_MAX) {
			run_nr++;
			continue;
		}
		if (run_nr) {
			err = nova_rop_write(r, run_pg, run_nr, run_blk);
			if (err)
				return err;
		}
		run_pg = to;
		run_blk = blk;
		run_nr = 1;
		cond_resched();
	}
	if (run_nr)
		return nova_rop_write(r, run_pg, run_nr, run_blk);
	return 0;
}

/*
 * Stores through a writable mapping left the checksums of the file's
 * blocks stale (protect.c). A block in [@first, @last] that a snapshot
 * shows is about to be left to the snapshot, which reads it verified:
 * seal what it holds first, as nova_file_cow_page() does. The pages are
 * unmapped (the caller broke the layouts). Log lock held.
 */
static void nova_rop_seal_shown(struct inode *inode, pgoff_t first,
				pgoff_t last)
{
	unsigned long idx;
	void *v;
	u64 blk;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	if (!nova_prot_csum(inode->i_sb) || !nova_prot_maybe_stale(inode))
		return;
	xa_for_each_range(&NOVA_I(inode)->pages, idx, v, first, last) {
		blk = nova_file_shown_block(inode, idx);
		if (blk)
			nova_protect_block(inode->i_sb, blk);
	}
}

/* Checks of the VFS's fallocate rules left to the file system. */
static int nova_range_check(struct inode *inode, int mode, loff_t offset,
			    loff_t len)
{
	loff_t size = i_size_read(inode);

	if (mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) {
		if ((offset | len) & ~PAGE_MASK)
			return -EINVAL;
	}
	if (mode & FALLOC_FL_COLLAPSE_RANGE) {
		/* A collapse must leave a tail: it cannot reach the end. */
		if (offset + len >= size)
			return -EINVAL;
	}
	if (mode & FALLOC_FL_INSERT_RANGE) {
		if (offset >= size)
			return -EINVAL;
		/* Too large, not negative: size + len would overflow. */
		if (len > inode->i_sb->s_maxbytes - size)
			return -EFBIG;
		return inode_newsize_ok(inode, size + len);
	}
	if ((mode & FALLOC_FL_ZERO_RANGE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return inode_newsize_ok(inode, offset + len);
	return 0;
}

static u32 nova_range_kind(int mode)
{
	if (mode & FALLOC_FL_PUNCH_HOLE)
		return NOVA_RANGE_PUNCH;
	if (mode & FALLOC_FL_ZERO_RANGE)
		return NOVA_RANGE_ZERO;
	if (mode & FALLOC_FL_COLLAPSE_RANGE)
		return NOVA_RANGE_COLLAPSE;
	return NOVA_RANGE_INSERT;
}

/* Build, commit and apply one range operation. Locks held. */
static int nova_range_commit(struct nova_rop *r, u32 kind, loff_t offset,
			     loff_t len)
{
	struct inode *inode = r->inode;
	struct nova_inode_info *ni = NOVA_I(inode);
	loff_t end = offset + len;
	struct nova_range_entry rg = { };
	struct nova_snap_stage st;
	pgoff_t first, last;
	u64 from = ni->log_tail;
	int err;

	/* A zero range past the end of file grows it over the EOF page. */
	if (kind == NOVA_RANGE_ZERO && r->newsize > r->oldsize) {
		err = nova_zero_eof_tail(inode, r->oldsize);
		if (err)
			return err;
		from = ni->log_tail;
	}
	r->trans = nova_next_trans(NOVA_SB(inode->i_sb));
	nova_entry_header(NOVA_SB(inode->i_sb), &rg, NOVA_LOG_RANGE,
			  sizeof(rg), r->trans);
	rg.rg_kind = cpu_to_le32(kind);
	if (kind == NOVA_RANGE_PUNCH || kind == NOVA_RANGE_ZERO) {
		first = DIV_ROUND_UP(offset, PAGE_SIZE);
		last = end >> PAGE_SHIFT;
		rg.rg_pgoff = cpu_to_le64(first);
		rg.rg_pages = cpu_to_le64(last > first ? last - first : 0);
	} else {
		rg.rg_pgoff = cpu_to_le64(offset >> PAGE_SHIFT);
		rg.rg_pages = cpu_to_le64(len >> PAGE_SHIFT);
	}
	rg.rg_size = cpu_to_le64(r->newsize);
	nova_ts_to_media(&rg.rg_mtime, &r->now);
	err = nova_log_append(inode, &rg, &r->tail);
	if (err)
		return err;
	first = offset >> PAGE_SHIFT;
	last = (kind == NOVA_RANGE_PUNCH || kind == NOVA_RANGE_ZERO) ?
	       (end - 1) >> PAGE_SHIFT : ULONG_MAX;
	nova_rop_seal_shown(inode, first, last);
	switch (kind) {
	case NOVA_RANGE_PUNCH:
	case NOVA_RANGE_ZERO:
		err = nova_rop_punch(r, offset, end, kind == NOVA_RANGE_ZERO);
		break;
	case NOVA_RANGE_COLLAPSE:
		err = nova_rop_shift(r, (end >> PAGE_SHIFT), len >> PAGE_SHIFT,
				     true);
		break;
	default:
		err = nova_rop_shift(r, offset >> PAGE_SHIFT,
				     len >> PAGE_SHIFT, false);
		break;
	}
	if (err)
		return err;
	/* Keep records for what a snapshot shows of the pages replaced. */
	nova_snapshot_stage_init(&st);
	err = nova_snapshot_stage_range(inode, &st, first, last);
	/* Data, checksums, entries and records durable, then the tails. */
	if (!err)
		err = nova_snapshot_stage_commit(inode, &st, r->tail);
	if (!err) {
		nova_log_apply_range_arg(inode, from, r->tail, &r->moved);
		r->nr = 0;	/* the blocks are the file's now */
	}
	nova_snapshot_stage_done(inode, &st);
	return err;
}

/* PUNCH_HOLE, ZERO_RANGE, COLLAPSE_RANGE, INSERT_RANGE. */
static long nova_falloc_range_op(struct file *file, int mode, loff_t offset,
				 loff_t len)
{
	struct inode *inode = file_inode(file);
	struct nova_inode_info *ni = NOVA_I(inode);
	u32 kind = nova_range_kind(mode);
	struct nova_rop r = { .inode = inode };
	loff_t end = offset + len, bstart, bend;
	int err;

	xa_init(&r.moved);
	inode_lock(inode);
	err = nova_falloc_flags_ok(inode, mode);
	if (!err)
		err = nova_range_check(inode, mode, offset, len);
	if (err)
		goto out;
	err = file_remove_privs(file);
	if (err)
		goto out;
	err = nova_enable_feature(inode->i_sb, NOVA_FEATURE_RANGE_OPS,
				  "fallocate range operations");
	if (err)
		goto out;
	inode_dio_wait(inode);
	filemap_invalidate_lock(inode->i_mapping);
	r.oldsize = i_size_read(inode);
	r.now = current_time(inode);
	switch (kind) {
	case NOVA_RANGE_PUNCH:
		r.newsize = r.oldsize;
		break;
	case NOVA_RANGE_ZERO:
		r.newsize = (mode & FALLOC_FL_KEEP_SIZE) ? r.oldsize :
			    max(r.oldsize, end);
		break;
	case NOVA_RANGE_COLLAPSE:
		r.newsize = r.oldsize - len;
		break;
	default:
		r.newsize = r.oldsize + len;
		break;
	}
	/*
	 * No user mapping may reach a block that is replaced, freed or
	 * moved: the range, everything after it for a shift, and the
	 * end-of-file page if it may be copied on write.
	 */
	bstart = offset & PAGE_MASK;
	bend = (end - 1) | (PAGE_SIZE - 1);	/* no overflow at 2^63 - 1 */
	if (kind == NOVA_RANGE_COLLAPSE || kind == NOVA_RANGE_INSERT)
		bend = LLONG_MAX;
	if (r.newsize > r.oldsize) {
		bstart = min_t(loff_t, bstart, r.oldsize & PAGE_MASK);
		bend = max_t(loff_t, bend, r.oldsize | ~PAGE_MASK);
	}
	err = nova_break_layouts(inode, bstart, bend);
	if (err)
		goto out_unlock;
	mutex_lock(&ni->log_lock);
	err = nova_range_commit(&r, kind, offset, len);
	mutex_unlock(&ni->log_lock);
	if (err)
		nova_rop_free_blocks(&r);
out_unlock:
	filemap_invalidate_unlock(inode->i_mapping);
out:
	inode_unlock(inode);
	xa_destroy(&r.moved);
	kfree(r.blks);
	return err;
}

long nova_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);

	if (mode & ~(FALLOC_FL_KEEP_SIZE | NOVA_FALLOC_RANGE_MODES))
		return -EOPNOTSUPP;
	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	if (!S_ISREG(inode->i_mode))
		return -EOPNOTSUPP;
	if (offset < 0 || len <= 0)
		return -EINVAL;
	if (mode & NOVA_FALLOC_RANGE_MODES)
		return nova_falloc_range_op(file, mode, offset, len);
	return nova_falloc_alloc(file, mode, offset, len);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: regular files.
 *
 * File data lives in data blocks outside the log; the log holds write
 * entries mapping file pages to blocks, and a per-file xarray in DRAM maps
 * each page to the write entry that currently owns it. There is no page
 * cache: read() copies straight from PMEM, write() is copy-on-write:
 *
 *   1. allocate new blocks and copy the user's data into them (the blocks
 *      are private, so this needs no lock but i_rwsem and may fault);
 *   2. under the invalidate lock, unmap the pages from user mappings and
 *      wait for pinned pages, so no mmap store can hit the old blocks;
 *   3. under log_lock, fill the partial head and tail page from the old
 *      blocks, append one write entry per extent, commit the tail once
 *      (the data and entries are durable before the tail store);
 *   4. apply the entries to the index and free the blocks they replaced.
 *
 * A crash leaves either the old or the new contents of the range. With
 * data protection, the new blocks' strip checksums and parity are written
 * in step 1 for the pages the copy fills (computed while copying,
 * protect.c and csum.c) and in step 3 for the partial head and tail pages
 * once they are filled, all before the tail commit, so they are part of
 * the same atomic step.
 *
 * Locking (nova.h): i_rwsem, invalidate_lock, log_lock, in that order.
 */
#include <linux/uio.h>
#include <linux/falloc.h>
#include <linux/pagemap.h>
#include <linux/dax.h>
#include <linux/mman.h>
#include <linux/quotaops.h>

#include "nova.h"
#include "xattr.h"
#include "pmem.h"
#include "protect.h"
#include "snapshot.h"

/*
 * Extents written by one write() batch, published together. The array is
 * on the stack: allocating it cost a 2 KiB memset per write(2) with
 * init_on_alloc (Debian's default). An extent is as long as the allocator
 * can make it, so only a fragmented device needs several batches.
 */
#define NOVA_WRITE_EXTENTS	8

struct nova_wextent {
	unsigned long blk;
	unsigned long nr;
	pgoff_t pgoff;
};

static struct nova_file_write_entry *nova_fw(struct inode *inode, void *v)
{
	return nova_addr(NOVA_SB(inode->i_sb), xa_to_value(v));
}

/*
 * xa_load() of the page index, walked inline: from the head down the
 * nodes, one slot per level, under the RCU read lock as xa_load() (nodes
 * are freed after a grace period). The index holds value entries only,
 * each for one page (no multi-index entries; the one mark, protect.c's,
 * lives beside the slots), so a walk that
 * ends on anything else internal (a retry entry left by a node being
 * removed, a sibling) goes through xa_load(), which knows them all. Each
 * write looks up the page before its own (the allocation goal) and each
 * read its page; xa_load()'s calls into xas_load(), xas_start() and
 * xas_descend() cost that lookup several times the walk. *@leaf is the
 * last node walked (NULL if the entry is the head). RCU read lock held.
 */
static __always_inline void *nova_index_walk(struct xarray *xa, pgoff_t pgoff,
					     struct xa_node **leaf)
{
	struct xa_node *node = NULL;
	void *entry = rcu_dereference(xa->xa_head);

	if (!xa_is_node(entry)) {
		if (pgoff)
			entry = NULL;
	} else if ((pgoff >> xa_to_node(entry)->shift) > XA_CHUNK_MASK) {
		entry = NULL;
	} else {
		do {
			node = xa_to_node(entry);
			entry = rcu_dereference(node->slots[(pgoff >> node->shift) &
							    XA_CHUNK_MASK]);
		} while (node->shift && xa_is_node(entry));
	}
	*leaf = node;
	return entry;
}

static void *nova_index_load(struct xarray *xa, pgoff_t pgoff)
{
	struct xa_node *leaf;
	void *entry;

	rcu_read_lock();
	entry = nova_index_walk(xa, pgoff, &leaf);
	rcu_read_unlock();
	if (unlikely(xa_is_internal(entry)))
		return xa_load(xa, pgoff);
	return entry;
}

static u64 nova_fw_block(struct inode *inode, void *v, pgoff_t pgoff)
{
	struct nova_file_write_entry *fw = nova_fw(inode, v);

	return le64_to_cpu(fw->fw_block) + (pgoff - le64_to_cpu(fw->fw_pgoff));
}

/* Block holding file page @pgoff, or 0 for a hole. */
u64 nova_file_block(struct inode *inode, pgoff_t pgoff)
{
	void *v = nova_index_load(&NOVA_I(inode)->pages, pgoff);

	return v ? nova_fw_block(inode, v, pgoff) : 0;
}

/*
 * nova_file_block() of @pgoff, and in *@run (at most its value on entry,
 * at least 1) how many pages from @pgoff on the same entry maps, so to
 * consecutive blocks: the slots after @pgoff's in its index leaf that
 * hold the same value. A read copies such a run with one call instead of
 * one per page (a 2 MiB write is one entry, 512 slots in eight leaves).
 * The caller holds i_rwsem, so no write, truncate or fallocate changes
 * the run; a fault may fill a hole or copy a page a snapshot shows, and
 * neither frees a block the run maps (as for nova_file_block()).
 */
u64 nova_file_block_run(struct inode *inode, pgoff_t pgoff,
			unsigned long *run)
{
	unsigned int slot = pgoff & XA_CHUNK_MASK;
	unsigned long max = min_t(unsigned long, *run, XA_CHUNK_SIZE - slot);
	unsigned long n = 1;
	struct xa_node *leaf;
	void *v;

	rcu_read_lock();
	v = nova_index_walk(&NOVA_I(inode)->pages, pgoff, &leaf);
	if (v && !xa_is_internal(v) && leaf && !leaf->shift)
		while (n < max && rcu_access_pointer(leaf->slots[slot + n]) == v)
			n++;
	rcu_read_unlock();
	*run = n;
	if (unlikely(xa_is_internal(v)))
		v = xa_load(&NOVA_I(inode)->pages, pgoff);
	return v ? nova_fw_block(inode, v, pgoff) : 0;
}

/*
 * The block of file page @pgoff if a live snapshot shows it (it must not
 * change in place), else 0. Log lock held, or a racy hint.
 */
u64 nova_file_shown_block(struct inode *inode, pgoff_t pgoff)
{
	void *v = nova_index_load(&NOVA_I(inode)->pages, pgoff);

	if (!v || !nova_snapshot_shows(inode->i_sb,
				       le64_to_cpu(nova_fw(inode, v)->hdr.e_epoch_id)))
		return 0;
	return nova_fw_block(inode, v, pgoff);
}

/* Collects freed blocks into runs, so each run is freed with one call. */
struct nova_free_run {
	unsigned long start;
	unsigned long len;
};

static void nova_run_flush(struct super_block *sb, struct nova_free_run *r)
{
	nova_free_blocks(sb, r->start, r->len, NOVA_BLOCK_DATA);
	r->len = 0;
}

static void nova_run_add(struct super_block *sb, struct nova_free_run *r,
			 unsigned long blk, unsigned long n)
{
	if (r->len && blk == r->start + r->len) {
		r->len += n;
		return;
	}
	if (r->len)
		nova_run_flush(sb, r);
	r->start = blk;
	r->len = n;
}

/*
 * @n pages of write entry @v are no longer mapped by it: update the hints
 * (the entry is invalid once none of its pages is). Plain stores, never
 * written back (nova_log_invalidate()).
 */
static void nova_pages_dead(struct inode *inode, void *v, unsigned int n)
{
	struct nova_file_write_entry *fw = nova_fw(inode, v);
	u32 dead = le32_to_cpu(fw->fw_dead_pages) + n;

	fw->fw_dead_pages = cpu_to_le32(dead);
	if (dead >= le32_to_cpu(fw->fw_num_pages))
		nova_log_invalidate(inode, xa_to_value(v));
}

/*
 * @n consecutive pages from @pgoff of write entry @v are no longer used:
 * free their blocks (unless a snapshot keeps them; with no snapshot and
 * nothing staged, without asking page by page), update the hints.
 */
static void nova_pages_gone(struct inode *inode, void *v, pgoff_t pgoff,
			    unsigned int n, struct nova_free_run *run)
{
	struct nova_file_write_entry *fw = nova_fw(inode, v);
	u64 born = le64_to_cpu(fw->hdr.e_epoch_id);
	unsigned long blk = le64_to_cpu(fw->fw_block) +
			    (pgoff - le64_to_cpu(fw->fw_pgoff));
	unsigned int i;

	if (!nova_snapshot_may_keep(inode)) {
		nova_run_add(inode->i_sb, run, blk, n);
	} else {
		/* The epoch check: a snapshot may still show the old page. */
		for (i = 0; i < n; i++)
			if (!nova_snapshot_keep(inode, blk + i, born))
				nova_run_add(inode->i_sb, run, blk + i, 1);
	}
	nova_pages_dead(inode, v, n);
}

/*
 * Apply a committed write entry: its pages now belong to it. At runtime
 * the blocks it replaces are freed (the entry is committed, so nothing on
 * media refers to them any more).
 */
#define NOVA_INDEX_BATCH	32

/*
 * The slot of page @pgoff in a leaf node of @xa, walked inline as
 * nova_index_load() does, or NULL if the walk does not end in a leaf (a
 * hole above the leaves, the head slot, a page past the top node's
 * reach). xa_lock held.
 */
static void __rcu **nova_index_leaf_slot(struct xarray *xa, pgoff_t pgoff)
{
	struct xa_node *node;
	void *entry = xa_head_locked(xa);

	if (!xa_is_node(entry) ||
	    (pgoff >> xa_to_node(entry)->shift) > XA_CHUNK_MASK)
		return NULL;
	for (;;) {
		node = xa_to_node(entry);
		if (!node->shift)
			return &node->slots[pgoff & XA_CHUNK_MASK];
		entry = xa_entry_locked(xa, node,
					(pgoff >> node->shift) & XA_CHUNK_MASK);
		if (!xa_is_node(entry))
			return NULL;
	}
}

/*
 * Point file pages [@pgoff, @pgoff + @n) (@n <= NOVA_INDEX_BATCH) at @val
 * with one walk of the xarray and one round of its lock, instead of one of
 * each per page as xa_store() does (a 2 MiB write is 512 pages). The
 * values replaced are returned in @old[], so that the caller frees their
 * blocks outside the xarray's spinlock. Node allocation does not fail
 * (__GFP_NOFAIL): the entry is committed, its pages must be indexed. A
 * store that needs memory drops the lock, allocates, and goes on from the
 * page it stopped at.
 *
 * An overwritten page (a value entry in a leaf node, which is what an
 * order-0 xa_state lands on in this xarray: no multi-index entries)
 * gets the new value with one slot store: that is all xas_store() does
 * for a value replacing a value there (no count, value count or mark
 * changes: protect.c's mark stays with the page), without its creation
 * walk and checks per page.
 * A single page (a 4 KiB overwrite) is found by nova_index_leaf_slot()'s
 * inline walk, without an xa_state. Anything else (a hole, the head slot,
 * a new node) goes through xas_store().
 */
static void nova_index_store(struct xarray *xa, pgoff_t pgoff,
			     unsigned int n, void *val, void **old)
{
	XA_STATE(xas, xa, pgoff);
	unsigned int i = 0;
	void __rcu **slot;
	void *cur;

	xas_lock(&xas);
	/* One overwritten page (a 4 KiB write): its slot, one store. */
	if (n == 1) {
		slot = nova_index_leaf_slot(xa, pgoff);
		cur = slot ? rcu_dereference_protected(*slot,
				lockdep_is_held(&xa->xa_lock)) : NULL;
		if (xa_is_value(cur)) {
			rcu_assign_pointer(*slot, val);
			xas_unlock(&xas);
			old[0] = cur;
			return;
		}
	}
	for (;;) {
		cur = xas_load(&xas);
		while (i < n) {
			if (xa_is_value(cur) && xas_is_node(&xas) &&
			    !xas.xa_node->shift) {
				rcu_assign_pointer(xas.xa_node->slots[xas.xa_offset],
						   val);
				old[i] = cur;
			} else {
				old[i] = xas_store(&xas, val);
				if (xas_error(&xas))
					break;
			}
			if (++i < n)
				cur = xas_next(&xas);
		}
		xas_unlock(&xas);
		if (!xas_nomem(&xas, GFP_NOFS | __GFP_NOFAIL))
			break;
		xas_lock(&xas);
	}
}

void nova_file_apply_write(struct inode *inode, u64 off,
			   struct nova_file_write_entry *fw, bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	pgoff_t pgoff = le64_to_cpu(fw->fw_pgoff);
	u32 i, k, batch, same, n = le32_to_cpu(fw->fw_num_pages);
	struct nova_free_run run = { };
	void *old[NOVA_INDEX_BATCH] __uninitialized;
	unsigned long had = ni->data_pages;

	for (i = 0; i < n; i += batch) {
		batch = min_t(u32, n - i, NOVA_INDEX_BATCH);
		nova_index_store(&ni->pages, pgoff + i, batch,
				 xa_mk_value(off), old);
		/* Runs of pages that one old entry owned go together. */
		for (k = 0; k < batch; k += same) {
			same = 1;
			if (!old[k]) {
				ni->data_pages++;
				continue;
			}
			while (k + same < batch && old[k + same] == old[k])
				same++;
			if (runtime)
				nova_pages_gone(inode, old[k], pgoff + i + k,
						same, &run);
		}
	}
	if (run.len)
		nova_run_flush(inode->i_sb, &run);
	ni->last_write = off;
	i_size_write(inode, le64_to_cpu(fw->fw_size));
	nova_set_mtime(inode, nova_ts_from_media(&fw->fw_mtime));
	nova_set_ctime(inode, nova_get_mtime(inode));
	/*
	 * The charged bytes follow data_pages (quota.c): set when the inode
	 * is loaded, charged again after every change. An overwrite (no page
	 * added) leaves nothing to charge: skip inode_get_bytes()'s lock.
	 */
	if (ni->data_pages != had)
		nova_quota_charge(inode);
}

/* Forget the pages at and after @from; at runtime free their blocks. */
void nova_file_drop_pages(struct inode *inode, pgoff_t from, bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_free_run run = { };
	unsigned long idx;
	void *v;

	xa_for_each_start(&ni->pages, idx, v, from) {
		xa_erase(&ni->pages, idx);
		ni->data_pages--;
		if (runtime)
			nova_pages_gone(inode, v, idx, 1, &run);
	}
	if (run.len)
		nova_run_flush(inode->i_sb, &run);
	nova_quota_charge(inode);
}

/*
 * Apply a committed range entry (fallocate punch, zero, collapse, insert;
 * falloc.c): forget the pages nova_range_drop() names and take the size
 * and times. At runtime their blocks are freed (a snapshot that shows them
 * keeps them), except the pages in @moved (old page offsets of a collapse
 * or insert): the write entries after this one map their blocks at new
 * offsets, so only the old entries' hints change. Log lock held.
 */
void nova_file_apply_range(struct inode *inode, u64 off,
			   struct nova_range_entry *rg, bool runtime,
			   struct xarray *moved)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_free_run run = { };
	unsigned long idx;
	u64 from, to;
	void *v;

	if (nova_range_entry_drop(rg, &from, &to) &&
	    to > from) {
		xa_for_each_range(&ni->pages, idx, v, from, to - 1) {
			xa_erase(&ni->pages, idx);
			ni->data_pages--;
			if (!runtime)
				continue;
			if (moved && xa_load(moved, idx))
				nova_pages_dead(inode, v, 1);
			else
				nova_pages_gone(inode, v, idx, 1, &run);
		}
	}
	if (run.len)
		nova_run_flush(inode->i_sb, &run);
	i_size_write(inode, le64_to_cpu(rg->rg_size));
	nova_set_mtime(inode, nova_ts_from_media(&rg->rg_mtime));
	nova_set_ctime(inode, nova_get_mtime(inode));
	nova_quota_charge(inode);
	ni->last_range = off;
	/*
	 * Like a removal, it stays valid only for what it cancels: not live
	 * for the thorough GC estimate, which then drops all but the newest
	 * (gc.c), so repeated punches cannot grow the log for ever.
	 */
	ni->gc_removals++;
}

void nova_file_free_index(struct inode *inode)
{
	xa_destroy(&NOVA_I(inode)->pages);
}

/*
 * Fill @fw, a file write entry of transaction @trans: @nr pages from page
 * @pgoff on, stored in the blocks from @blk on. The caller sets fw_size and
 * fw_mtime, the file's size and mtime once the entry is applied. Every
 * field is stored once, no memset first: on every write that was a
 * `rep stosq` of nine words (charged per word under icount) before the
 * same words were stored again.
 */
void nova_file_write_entry_init(struct nova_sb_info *sbi,
				struct nova_file_write_entry *fw, u64 trans,
				pgoff_t pgoff, u32 nr, u64 blk)
{
	BUILD_BUG_ON(sizeof(*fw) != sizeof(fw->hdr) + sizeof(fw->fw_pgoff) +
		     sizeof(fw->fw_num_pages) + sizeof(fw->fw_dead_pages) +
		     sizeof(fw->fw_block) + sizeof(fw->fw_size) +
		     sizeof(fw->fw_mtime));
	nova_entry_header(sbi, fw, NOVA_LOG_FILE_WRITE, sizeof(*fw), trans);
	fw->fw_pgoff = cpu_to_le64(pgoff);
	fw->fw_num_pages = cpu_to_le32(nr);
	fw->fw_dead_pages = 0;
	fw->fw_block = cpu_to_le64(blk);
	fw->fw_size = 0;
	fw->fw_mtime.sec = 0;
	fw->fw_mtime.nsec = 0;
	fw->fw_mtime.pad = 0;
}

/*
 * File page @pgoff (in block @old) is shown by a snapshot, so it cannot
 * change in place: give the file a copy of its first @off bytes, zeroes
 * after them, committed as a one-page write entry (with the keep record
 * for the old page, nova_snapshot_stage_commit()). The size does not
 * change. Used for the end-of-file page before it is zeroed and for DAX
 * write faults (dax.c). Log lock held; the page is not mapped (the caller
 * broke the layouts under the invalidate lock).
 */
int nova_file_cow_page(struct inode *inode, pgoff_t pgoff, unsigned int off,
		       u64 old)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_file_write_entry fw;
	struct nova_snap_stage st;
	struct timespec64 mtime = nova_get_mtime(inode);
	u64 tail = 0, from = NOVA_I(inode)->log_tail;
	unsigned long blk, got;
	void *dst;
	int err;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	err = nova_alloc_blocks(sb, 1, false, NOVA_BLOCK_DATA, &blk, &got);
	if (err)
		return err;
	/*
	 * Stores through a writable mapping left @old's checksums stale
	 * (protect.c); it is unmapped now and stays with the snapshot, which
	 * reads it verified: seal what it holds before the copy.
	 */
	if (nova_prot_csum(sb) && nova_prot_maybe_stale(inode))
		nova_protect_block(sb, old);
	dst = nova_block(sbi, blk);
	nova_pmem_memcpy(dst, nova_block(sbi, old), off);
	nova_pmem_memset(dst + off, 0, PAGE_SIZE - off);
	nova_protect_blocks(sb, blk, 1);
	nova_file_write_entry_init(sbi, &fw, nova_next_trans(sbi), pgoff, 1,
				   blk);
	fw.fw_size = cpu_to_le64(i_size_read(inode));
	nova_ts_to_media(&fw.fw_mtime, &mtime);
	nova_snapshot_stage_init(&st);
	/*
	 * Copy, its checksums and parity, and the entry are durable before
	 * the commit (it fences first).
	 */
	err = nova_log_append(inode, &fw, &tail);
	if (!err)
		err = nova_snapshot_stage_range(inode, &st, pgoff, pgoff);
	if (!err)
		err = nova_snapshot_stage_commit(inode, &st, tail);
	if (!err)
		nova_log_apply_range(inode, from, tail);
	nova_snapshot_stage_done(inode, &st);
	if (err)
		nova_free_blocks(sb, blk, 1, NOVA_BLOCK_DATA);
	return err;
}

/*
 * Zero the bytes after @size in its last page, so the file can grow over
 * them. They are beyond the end of file, so nobody can observe the store
 * in place, unless a snapshot shows the page (with a larger size): then
 * the page is copied on write. Caller holds log_lock and the invalidate
 * lock, with the page's user mappings broken.
 */
int nova_zero_eof_tail(struct inode *inode, loff_t size)
{
	unsigned int off = size & (PAGE_SIZE - 1);
	pgoff_t pgoff = size >> PAGE_SHIFT;
	struct super_block *sb = inode->i_sb;
	unsigned int s, from, to;
	u8 *page;
	u64 blk;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	lockdep_assert_held(&inode->i_mapping->invalidate_lock);
	if (!off)
		return 0;
	blk = nova_file_shown_block(inode, pgoff);
	if (blk)
		return nova_file_cow_page(inode, pgoff, off, blk);
	blk = nova_file_block(inode, pgoff);
	if (!blk)
		return 0;
	page = nova_block(NOVA_SB(sb), blk);
	/*
	 * One strip at a time, each with its checksums and parity before the
	 * next: a crash leaves at most one strip that matches no checksum,
	 * and parity still rebuilds its old (invisible) contents.
	 */
	for (s = off >> NOVA_STRIP_SHIFT; s < NOVA_STRIPS; s++) {
		from = max(off, s << NOVA_STRIP_SHIFT);
		to = (s + 1) << NOVA_STRIP_SHIFT;
		if (!memchr_inv(page + from, 0, to - from))
			continue;
		nova_pmem_memset(page + from, 0, to - from);
		nova_pmem_fence();
		nova_protect_strips(sb, blk, s, s + 1);
		nova_pmem_fence();
	}
	return 0;
}

/*
 * Fill bytes [from, to) of new page @dst for file page @pgoff with the old
 * contents, or zeroes for a hole or for bytes past the old end of file.
 */
int nova_fill_old(struct inode *inode, void *dst, pgoff_t pgoff,
		  unsigned int from, unsigned int to, loff_t oldsize)
{
	loff_t start = (loff_t)pgoff << PAGE_SHIFT;
	unsigned int valid = 0;
	u64 blk = nova_file_block(inode, pgoff);
	const void *src;
	void *buf = NULL;
	int err;

	if (oldsize > start)
		valid = min_t(loff_t, oldsize - start, PAGE_SIZE);
	valid = clamp(valid, from, to);
	if (blk && valid > from) {
		src = nova_block(NOVA_SB(inode->i_sb), blk);
		/* Never carry damaged old data into the new, sealed page. */
		if (!nova_prot_skip_verify(inode)) {
			buf = kmalloc(PAGE_SIZE, GFP_NOFS);
			if (!buf)
				return -ENOMEM;
			err = nova_read_verified(inode, blk, start, buf);
			if (err) {
				kfree(buf);
				return err;
			}
			src = buf;
		}
		nova_pmem_memcpy(dst + from, src + from, valid - from);
		kfree(buf);
	} else {
		valid = from;
	}
	if (to > valid)
		nova_pmem_memset(dst + valid, 0, to - valid);
	return 0;
}

/* Wait for pinned DAX pages (e.g. by O_DIRECT elsewhere) to be released. */
static void nova_wait_dax_page(struct inode *inode)
{
	filemap_invalidate_unlock(inode->i_mapping);
	schedule();
	filemap_invalidate_lock(inode->i_mapping);
}

/* nova_break_layouts() of a file that has DAX entries in its mapping. */
int nova_break_mapped_layouts(struct inode *inode, loff_t start, loff_t end)
{
	struct address_space *mapping = inode->i_mapping;
	struct page *page;
	int err;

	lockdep_assert_held(&mapping->invalidate_lock);
	for (;;) {
		page = dax_layout_busy_page_range(mapping, start, end);
		if (!page)
			break;
		err = ___wait_var_event(&page->_refcount,
				atomic_read(&page->_refcount) == 1,
				TASK_INTERRUPTIBLE, 0, 0,
				nova_wait_dax_page(inode));
		if (err)
			return err;
	}
	truncate_pagecache_range(inode, start, end);
	return 0;
}

/* Publish the extents of one batch (steps 2-4 of the comment at the top). */
static ssize_t nova_commit_write(struct inode *inode, loff_t pos,
				 size_t len, struct nova_wextent *ext, int n)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct timespec64 now = current_time(inode);
	loff_t end = pos + len, oldsize;
	u64 trans, tail = 0, from;
	unsigned int head = pos & (PAGE_SIZE - 1);
	unsigned int tail_off = end & (PAGE_SIZE - 1);
	struct nova_file_write_entry fw __uninitialized;
	/* Set up only when a snapshot exists (staged): not zeroed first. */
	struct nova_snap_stage st __uninitialized;
	int i, j, err, err2 = 0;
	bool staged;

	filemap_invalidate_lock(inode->i_mapping);
	/* From the end-of-file page if it is zeroed (maybe copied). */
	oldsize = i_size_read(inode);
	err = nova_break_layouts(inode, min(pos, oldsize) & PAGE_MASK,
				 (end - 1) | (PAGE_SIZE - 1));
	if (err)
		goto out_unlock;
	mutex_lock(&ni->log_lock);
	if (pos > oldsize) {
		err = nova_zero_eof_tail(inode, oldsize);
		if (err) {
			mutex_unlock(&ni->log_lock);
			goto out_unlock;
		}
	}
	/* After a copy-on-write of the EOF page: ids grow along the log. */
	trans = nova_next_trans(sbi);
	if (head)
		err = nova_fill_old(inode, nova_block(sbi, ext[0].blk),
				    ext[0].pgoff, 0, head, oldsize);
	if (tail_off && !err)
		err = nova_fill_old(inode, nova_block(sbi, ext[n - 1].blk +
							   ext[n - 1].nr - 1),
				    ext[n - 1].pgoff + ext[n - 1].nr - 1,
				    tail_off, PAGE_SIZE, oldsize);
	if (err) {
		mutex_unlock(&ni->log_lock);
		goto out_unlock;
	}
	/*
	 * Checksums and parity of the new pages, durable before the tail: the
	 * copy protected every page it filled (nova_write_batch()); the head
	 * and tail pages, completed just now, are left.
	 */
	if (head)
		nova_protect_blocks(sb, ext[0].blk, 1);
	if (tail_off && (!head || n > 1 || ext[0].nr > 1))
		nova_protect_blocks(sb, ext[n - 1].blk + ext[n - 1].nr - 1, 1);

	from = ni->log_tail;
	for (i = 0; i < n; i++) {
		u64 ext_end = nova_pages_end(ext[i].pgoff, ext[i].nr);

		nova_file_write_entry_init(sbi, &fw, trans, ext[i].pgoff,
					   ext[i].nr, ext[i].blk);
		fw.fw_size = cpu_to_le64(max_t(u64, oldsize,
					       min_t(u64, end, ext_end)));
		nova_ts_to_media(&fw.fw_mtime, &now);
		err = nova_log_append(inode, &fw, &tail);
		if (err)
			break;
	}
	/*
	 * Keep records for replaced pages a snapshot shows: see snapshot.c.
	 * With no snapshot there is nothing to stage, and none can appear
	 * before this write returns (nova_snapshot_none()).
	 */
	staged = !nova_snapshot_none(sb);
	if (staged) {
		nova_snapshot_stage_init(&st);
		for (j = 0; j < i && !err2; j++)
			err2 = nova_snapshot_stage_range(inode, &st,
							 ext[j].pgoff,
							 ext[j].pgoff +
							 ext[j].nr - 1);
	}
	/* Data, entries and records durable (fence first), then the tails. */
	if (i && !err2) {
		if (staged)
			err2 = nova_snapshot_stage_commit(inode, &st, tail);
		else
			nova_log_commit(inode, tail);
	}
	if (!i || err2) {
		if (staged)
			nova_snapshot_stage_done(inode, &st);
		mutex_unlock(&ni->log_lock);
		err = err2 ? err2 : err;
		goto out_unlock;
	}
	/*
	 * One extent, so one entry (@fw is the last one built): applied from
	 * that copy, sealed as stored, at the position nova_log_append() gave
	 * it; not read back from the log.
	 */
	if (n == 1)
		nova_file_apply_write(inode, ni->last_append, &fw, true);
	else
		nova_log_apply_range(inode, from, tail);
	if (staged)
		nova_snapshot_stage_done(inode, &st);
	mutex_unlock(&ni->log_lock);
	filemap_invalidate_unlock(inode->i_mapping);
	if (i < n) {
		/* Out of log space: only extents 0..i-1 were published. */
		len = min_t(u64, nova_pages_end(ext[i - 1].pgoff,
						ext[i - 1].nr), end) - pos;
		for (; i < n; i++)
			nova_free_blocks(sb, ext[i].blk, ext[i].nr,
					 NOVA_BLOCK_DATA);
	}
	return len;

out_unlock:
	filemap_invalidate_unlock(inode->i_mapping);
	for (i = 0; i < n; i++)
		nova_free_blocks(sb, ext[i].blk, ext[i].nr, NOVA_BLOCK_DATA);
	return err;
}

/*
 * Write one batch of at most NOVA_WRITE_EXTENTS extents at @pos. Returns
 * the bytes written (maybe short) or an error if nothing was written.
 */
static ssize_t nova_write_batch(struct inode *inode, loff_t pos,
				struct iov_iter *from)
{
	struct super_block *sb = inode->i_sb;
	struct nova_wextent ext[NOVA_WRITE_EXTENTS] __uninitialized;
	size_t count = iov_iter_count(from), done = 0;
	ssize_t ret;
	int n = 0, err = 0;

	while (done < count && n < NOVA_WRITE_EXTENTS) {
		loff_t p = pos + done;
		unsigned int off = p & (PAGE_SIZE - 1);
		unsigned long want = DIV_ROUND_UP(off + count - done, PAGE_SIZE);
		unsigned long blk, got;
		size_t bytes, copied;

		err = nova_alloc_data(inode, p >> PAGE_SHIFT, want, &blk, &got);
		if (err)
			break;
		bytes = min_t(size_t, count - done, got * PAGE_SIZE - off);
		/* With protection, checksums and parity on the way. */
		copied = nova_copy_from_iter_protected(sb, blk, off, bytes,
						       from);
		if (!copied) {
			nova_free_blocks(sb, blk, got, NOVA_BLOCK_DATA);
			err = -EFAULT;
			break;
		}
		/* Keep only the blocks that received data. */
		if (DIV_ROUND_UP(off + copied, PAGE_SIZE) < got) {
			unsigned long used = DIV_ROUND_UP(off + copied,
							  PAGE_SIZE);

			nova_free_blocks(sb, blk + used, got - used,
					 NOVA_BLOCK_DATA);
			got = used;
		}
		ext[n].blk = blk;
		ext[n].nr = got;
		ext[n].pgoff = p >> PAGE_SHIFT;
		n++;
		done += copied;
		if (copied < bytes)
			break;
	}
	if (!n)
		return err;
	ret = nova_commit_write(inode, pos, done, ext, n);
	if (ret < (ssize_t)done)
		iov_iter_revert(from, done - max_t(ssize_t, ret, 0));
	return ret;
}

static ssize_t nova_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	u64 start = nova_op_start();
	ssize_t ret, written = 0;

	/* Before the copy-on-write copy writes new blocks. */
	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock(inode))
			return -EAGAIN;
	} else {
		inode_lock(inode);
	}
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out;
	/* Set after the open (fileattr.c): immutable, or not appending. */
	if (IS_IMMUTABLE(inode) ||
	    (IS_APPEND(inode) && !(iocb->ki_flags & IOCB_APPEND))) {
		ret = -EPERM;
		goto out;
	}
	ret = file_remove_privs(file);
	if (ret)
		goto out;
	while (iov_iter_count(from)) {
		ret = nova_write_batch(inode, iocb->ki_pos, from);
		if (ret <= 0)
			break;
		iocb->ki_pos += ret;
		written += ret;
	}
out:
	inode_unlock(inode);
	nova_op_done(inode->i_sb, NOVA_CTL_OP_WRITE, start);
	if (written)
		return generic_write_sync(iocb, written);
	return ret;
}

/*
 * With verification, each page goes through nova_read_iter_verified(),
 * which reads PMEM once and checks each strip as the user gets it;
 * only a page that fails the check goes through a DRAM page buffer, where
 * nova_read_verified() repairs it. Without, the pages one entry maps are
 * copied straight from PMEM with one call (copy_mc: poison ends the read
 * short, no machine check).
 */
static ssize_t nova_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	u64 start = nova_op_start();
	loff_t pos = iocb->ki_pos, size;
	ssize_t done = 0;
	bool verify = !nova_prot_skip_verify(inode);
	void *buf = NULL;
	int err;

	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	if (!iov_iter_count(to))
		return 0;
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock_shared(inode))
			return -EAGAIN;
	} else {
		inode_lock_shared(inode);
	}
	size = i_size_read(inode);
	while (iov_iter_count(to) && pos < size) {
		unsigned int off = pos & (PAGE_SIZE - 1);
		size_t n = min_t(loff_t, iov_iter_count(to), size - pos);
		unsigned long run = 1;
		size_t copied;
		u64 blk;

		/* Verified a page at a time, else as far as the entry goes. */
		if (!verify && off + n > PAGE_SIZE) {
			run = DIV_ROUND_UP(off + n, PAGE_SIZE);
			blk = nova_file_block_run(inode, pos >> PAGE_SHIFT, &run);
		} else {
			blk = nova_file_block(inode, pos >> PAGE_SHIFT);
		}
		n = min_t(size_t, n, run * PAGE_SIZE - off);
		err = 0;
		if (blk && verify) {
			copied = nova_read_iter_verified(inode, blk,
							 pos & PAGE_MASK, off,
							 n, to, &buf, &err);
		} else if (blk) {
			copied = _copy_mc_to_iter(nova_block(sbi, blk) + off, n,
						  to);
		} else {
			copied = iov_iter_zero(n, to);
		}
		pos += copied;
		done += copied;
		if (copied < n) {
			if (!done)
				done = err ? err : -EFAULT;
			break;
		}
	}
	inode_unlock_shared(inode);
	kfree(buf);
	iocb->ki_pos = pos;
	file_accessed(iocb->ki_filp);
	nova_op_done(inode->i_sb, NOVA_CTL_OP_READ, start);
	return done;
}

/* Exact SEEK_DATA / SEEK_HOLE from the page index. */
static loff_t nova_seek_data_hole(struct file *file, loff_t offset,
				  int whence)
{
	struct inode *inode = file_inode(file);
	struct nova_inode_info *ni = NOVA_I(inode);
	loff_t size, res;
	unsigned long idx, expect;
	void *v;

	inode_lock_shared(inode);
	size = i_size_read(inode);
	if (offset < 0 || offset >= size) {
		inode_unlock_shared(inode);
		return -ENXIO;
	}
	idx = offset >> PAGE_SHIFT;
	if (whence == SEEK_DATA) {
		v = xa_find(&ni->pages, &idx, (size - 1) >> PAGE_SHIFT,
			    XA_PRESENT);
		res = v ? max_t(loff_t, offset, (loff_t)idx << PAGE_SHIFT) :
			  -ENXIO;
	} else {
		expect = idx;
		xa_for_each_start(&ni->pages, idx, v, expect) {
			if (idx != expect)
				break;
			expect++;
			if ((loff_t)expect << PAGE_SHIFT >= size)
				break;
		}
		res = min_t(loff_t, size, (loff_t)expect << PAGE_SHIFT);
		res = max(res, offset);
	}
	inode_unlock_shared(inode);
	if (res < 0)
		return res;
	return vfs_setpos(file, res, inode->i_sb->s_maxbytes);
}

static loff_t nova_llseek(struct file *file, loff_t offset, int whence)
{
	if (whence == SEEK_DATA || whence == SEEK_HOLE)
		return nova_seek_data_hole(file, offset, whence);
	return generic_file_llseek(file, offset, whence);
}

/*
 * Metadata and write() data are durable when the call returns; fsync only
 * has to write back CPU caches for pages stored to through mmap.
 */
static int nova_fsync(struct file *file, loff_t start, loff_t end,
		      int datasync)
{
	u64 t = nova_op_start();
	int err;

	if (nova_is_shutdown(file_inode(file)->i_sb))
		return -EIO;
	err = file_write_and_wait_range(file, start, end);
	nova_op_done(file_inode(file)->i_sb, NOVA_CTL_OP_FSYNC, t);
	return err;
}

/*
 * A kernel buffer written to @inode at @pos the way write(2) does: a
 * quota file (quota.c), whose I/O the quota layer serializes (dqio_sem),
 * so i_rwsem is not taken. Returns the bytes written or an error.
 */
ssize_t nova_file_write_kernel(struct inode *inode, const void *buf,
			       size_t len, loff_t pos)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter it;
	ssize_t ret = 0, done = 0;

	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	while (iov_iter_count(&it)) {
		ret = nova_write_batch(inode, pos + done, &it);
		if (ret <= 0)
			break;
		done += ret;
	}
	return done ? done : ret;
}

/* Quotas: a file opened for writing has its dquots (quota.c). */
static int nova_file_open(struct inode *inode, struct file *file)
{
	return dquot_file_open(inode, file);
}

const struct file_operations nova_file_operations = {
	.llseek			= nova_llseek,
	.read_iter		= nova_read_iter,
	.write_iter		= nova_write_iter,
	.mmap			= nova_file_mmap,
	/* 2 MiB-aligned user addresses, so that PMDs can map (dax.c). */
	.get_unmapped_area	= thp_get_unmapped_area,
	NOVA_FOP_MMAP_SYNC,
	.open			= nova_file_open,
	.fsync			= nova_fsync,
	.fallocate		= nova_fallocate,
	.unlocked_ioctl		= nova_ioctl,
	.compat_ioctl		= compat_ptr_ioctl,
	.splice_read		= nova_splice_read,
	.splice_write		= iter_file_splice_write,
};

/* Files of snapshot views (snapview.c): opened read-only only. */
const struct file_operations nova_view_file_operations = {
	.llseek			= nova_llseek,
	.read_iter		= nova_read_iter,
	.mmap			= nova_view_mmap,
	.open			= nova_file_open,
	.splice_read		= nova_splice_read,
};

const struct inode_operations nova_file_inode_operations = {
	.setattr	= nova_setattr,
	.getattr	= nova_getattr,
	.update_time	= nova_vfs_update_time,
	.fiemap		= nova_fiemap,
	.listxattr	= nova_listxattr,
	.fileattr_get	= nova_fileattr_get,
	.fileattr_set	= nova_fileattr_set,
	NOVA_ACL_IOPS,
};

const struct inode_operations nova_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.setattr	= nova_setattr,
	.getattr	= nova_getattr,
	.update_time	= nova_vfs_update_time,
	.listxattr	= nova_listxattr,
	.fileattr_get	= nova_fileattr_get,
};

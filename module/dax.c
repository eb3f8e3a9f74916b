// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: mmap through the kernel's DAX fault code.
 *
 * User mappings map the file's PMEM blocks directly; stores through them
 * update the blocks in place (they cannot be copy-on-write: the CPU writes
 * without asking us). A write fault on a hole allocates a zeroed block and
 * commits a one-page write entry before the page is mapped, so the mapping
 * never exposes a block the log does not own. write() and truncate remove
 * mappings of the blocks they replace first (nova_break_layouts()), under
 * the invalidate lock that faults take shared.
 *
 * Snapshots: when one is taken, with the file system frozen, no page is
 * mapped writable any more (the freeze writes back dirty DAX entries,
 * which write-protects them, and snapshot.c unmaps every shared writable
 * mapping as well), so the next store to a page faults here. If a
 * snapshot shows the page, the write fault first copies it on write
 * (nova_dax_cow()): under the invalidate lock taken exclusively, the old
 * page is unmapped and a copy committed in its place, then the fault goes
 * on as usual and maps the copy writable.
 * A file with a writable shared mapping is unprotected until the last
 * one goes away (nova_vma_open/close(), protect.c, docs/protection.md).
 *
 * 2 MiB: where the file's 2 MiB is one physically aligned run of blocks
 * (balloc.c keeps such chunks for data that covers an aligned 2 MiB of
 * the file), a PMD maps it (nova_dax_huge_fault()); docs/fs.md.
 *
 * Locking (nova.h): a fault runs under mmap_lock and sb_start_pagefault(),
 * then takes invalidate_lock shared and the inode's log_lock.
 */
#include <linux/dax.h>
#include <linux/fiemap.h>
#include <linux/iomap.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pfn_t.h>
#include <linux/uio.h>

#include "nova.h"
#include "pmem.h"
#include "protect.h"
#include "xattr.h"

/*
 * Give the hole of @n pages at @pgoff zeroed blocks (write fault): one
 * page, or a whole aligned 2 MiB for a PMD fault (nova_alloc_data() then
 * gives an aligned chunk if one is left; fewer blocks than asked for are
 * fine, the fault falls back to pages). Log lock held.
 */
static int nova_fault_alloc(struct inode *inode, pgoff_t pgoff,
			    unsigned long n)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_file_write_entry fw;
	struct timespec64 mtime = nova_get_mtime(inode);
	u64 tail = 0, from = NOVA_I(inode)->log_tail;
	unsigned long blk, got;
	int err;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	err = nova_alloc_data(inode, pgoff, n, &blk, &got);
	if (err)
		return err;
	nova_pmem_memset(nova_block(sbi, blk), 0, got << PAGE_SHIFT);
	nova_protect_blocks(sb, blk, got);
	nova_file_write_entry_init(sbi, &fw, nova_next_trans(sbi), pgoff, got,
				   blk);
	fw.fw_size = cpu_to_le64(i_size_read(inode));
	nova_ts_to_media(&fw.fw_mtime, &mtime);
	/* Zeroes and their checksums durable, then the entry, the tail. */
	nova_pmem_fence();
	err = nova_log_append(inode, &fw, &tail);
	if (err) {
		nova_free_blocks(sb, blk, got, NOVA_BLOCK_DATA);
		return err;
	}
	nova_log_commit(inode, tail);
	nova_log_apply_range(inode, from, tail);
	return 0;
}

/*
 * Pages from @pgoff on, at most @max, that are all holes (@blk 0) or all
 * mapped by consecutive blocks from @blk.
 */
static unsigned long nova_fault_run(struct inode *inode, pgoff_t pgoff,
				    u64 blk, unsigned long max)
{
	unsigned long n = 1;

	while (n < max && nova_file_block(inode, pgoff + n) == (blk ? blk + n : 0))
		n++;
	return n;
}

/*
 * A page fault (length one page) or a PMD fault (2 MiB, aligned): the DAX
 * core maps a PMD only if the extent returned covers the 2 MiB and its
 * address is 2 MiB-aligned, else it falls back to pages.
 */
static int nova_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			    unsigned int flags, struct iomap *iomap,
			    struct iomap *srcmap)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	pgoff_t pgoff = pos >> PAGE_SHIFT;
	unsigned long max = max_t(loff_t, length >> PAGE_SHIFT, 1), n;
	u64 blk;
	int err;

	blk = nova_file_block(inode, pgoff);
	iomap->flags = 0;
	if ((flags & IOMAP_WRITE) && nova_is_view(inode))
		return -EROFS;
	if (!blk && (flags & IOMAP_WRITE)) {
		mutex_lock(&NOVA_I(inode)->log_lock);
		blk = nova_file_block(inode, pgoff);
		if (!blk) {
			/* A PMD fault on a whole hole fills all of it. */
			n = nova_fault_run(inode, pgoff, 0, max);
			err = nova_fault_alloc(inode, pgoff,
					       n == max ? max : 1);
			if (err) {
				mutex_unlock(&NOVA_I(inode)->log_lock);
				return err;
			}
			blk = nova_file_block(inode, pgoff);
			iomap->flags |= IOMAP_F_NEW;
		}
		mutex_unlock(&NOVA_I(inode)->log_lock);
	}

	n = nova_fault_run(inode, pgoff, blk, max);
	iomap->bdev = inode->i_sb->s_bdev;
	iomap->dax_dev = sbi->dax_dev;
	iomap->offset = (loff_t)pgoff << PAGE_SHIFT;
	iomap->length = (loff_t)n << PAGE_SHIFT;
	if (blk) {
		iomap->type = IOMAP_MAPPED;
		iomap->addr = (blk << NOVA_BLOCK_SHIFT) + sbi->dax_part_off;
	} else {
		iomap->type = IOMAP_HOLE;
		iomap->addr = IOMAP_NULL_ADDR;
	}
	return 0;
}

const struct iomap_ops nova_iomap_ops = {
	.iomap_begin	= nova_iomap_begin,
};

/*
 * FIEMAP: the extent (or hole) at @pos, as long as it goes, within
 * [pos, pos + length). An extent is a run of pages whose blocks are
 * consecutive on the device and equally shared (or not) with a snapshot,
 * whichever write entries they came from; a hole runs to the next page
 * that has a block. NOVA has no unwritten state: fallocate() zeroes the
 * blocks it gives, so preallocated pages are reported as ordinary data,
 * also beyond the end of the file (FALLOC_FL_KEEP_SIZE). Addresses are
 * relative to the block device, as filefrag expects. Caller holds
 * i_rwsem shared; the log lock keeps page faults from adding blocks
 * while a run is measured.
 */
static int nova_report_begin(struct inode *inode, loff_t pos, loff_t length,
			     unsigned int flags, struct iomap *iomap,
			     struct iomap *srcmap)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	pgoff_t pgoff = pos >> PAGE_SHIFT;
	pgoff_t last = (pos + length - 1) >> PAGE_SHIFT;
	unsigned long n = 1, next = pgoff;
	void *prev;
	bool shown;
	u64 blk;

	lockdep_assert_held(&inode->i_rwsem);
	iomap->flags = 0;
	iomap->bdev = inode->i_sb->s_bdev;
	iomap->offset = (loff_t)pgoff << PAGE_SHIFT;
	mutex_lock(&ni->log_lock);
	blk = nova_file_block(inode, pgoff);
	if (!blk) {
		iomap->type = IOMAP_HOLE;
		iomap->addr = IOMAP_NULL_ADDR;
		if (xa_find(&ni->pages, &next, last, XA_PRESENT))
			n = next - pgoff;
		else
			n = last - pgoff + 1;
		mutex_unlock(&ni->log_lock);
		iomap->length = (loff_t)n << PAGE_SHIFT;
		return 0;
	}
	/* Pages of one write entry share its epoch: ask once per entry. */
	prev = xa_load(&ni->pages, pgoff);
	shown = nova_file_shown_block(inode, pgoff) != 0;
	while (pgoff + n <= last &&
	       nova_file_block(inode, pgoff + n) == blk + n) {
		void *v = xa_load(&ni->pages, pgoff + n);

		if (v != prev &&
		    (nova_file_shown_block(inode, pgoff + n) != 0) != shown)
			break;
		prev = v;
		n++;
		if (!(n & 1023))
			cond_resched();
	}
	mutex_unlock(&ni->log_lock);
	iomap->type = IOMAP_MAPPED;
	iomap->addr = blk << NOVA_BLOCK_SHIFT;
	iomap->length = (loff_t)n << PAGE_SHIFT;
	if (shown)
		iomap->flags |= IOMAP_F_SHARED;
	return 0;
}

static const struct iomap_ops nova_report_iomap_ops = {
	.iomap_begin	= nova_report_begin,
};

/* FIEMAP of the file's data, or with FIEMAP_FLAG_XATTR of its xattrs. */
int nova_fiemap(struct inode *inode, struct fiemap_extent_info *fi,
		u64 start, u64 len)
{
	int err;

	inode_lock_shared(inode);
	if (fi->fi_flags & FIEMAP_FLAG_XATTR) {
		err = fiemap_prep(inode, fi, start, &len, FIEMAP_FLAG_XATTR);
		if (!err)
			err = nova_xattr_fiemap(inode, fi);
	} else {
		err = iomap_fiemap(inode, fi, start, len,
				   &nova_report_iomap_ops);
	}
	inode_unlock_shared(inode);
	return err;
}

/*
 * A write fault on page @pgoff that a snapshot shows: replace it by a
 * copy before it can be mapped writable. Returns 0 or a negative errno.
 */
static int nova_dax_cow(struct inode *inode, pgoff_t pgoff)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	loff_t start = (loff_t)pgoff << PAGE_SHIFT;
	u64 blk;
	int err;

	/* Racy hint first: most write faults need nothing. */
	if (!nova_file_shown_block(inode, pgoff))
		return 0;
	filemap_invalidate_lock(inode->i_mapping);
	/* No user mapping may keep the old page mapped or pinned. */
	err = nova_break_layouts(inode, start, start + PAGE_SIZE - 1);
	if (!err) {
		mutex_lock(&ni->log_lock);
		blk = nova_file_shown_block(inode, pgoff);
		if (blk)
			err = nova_file_cow_page(inode, pgoff, PAGE_SIZE, blk);
		mutex_unlock(&ni->log_lock);
	}
	filemap_invalidate_unlock(inode->i_mapping);
	return err;
}

/*
 * Whether a snapshot shows any page of the 2 MiB at @pgoff (aligned): a
 * racy hint, asked once per write entry. Exact enough where it matters:
 * the caller holds off snapshots (sb_start_pagefault()).
 */
static bool nova_pmd_shown(struct inode *inode, pgoff_t pgoff)
{
	void *prev = NULL, *v;
	unsigned long i;

	for (i = 0; i < NOVA_HUGE_BLOCKS; i++) {
		v = xa_load(&NOVA_I(inode)->pages, pgoff + i);
		if (!v || v == prev)
			continue;
		prev = v;
		if (nova_file_shown_block(inode, pgoff + i))
			return true;
	}
	return false;
}

/* The pages a write fault of @pe_size at @pgoff may have made writable. */
static void nova_dax_mark_stored(struct inode *inode, pgoff_t pgoff,
				 nova_pe_size_t pe_size)
{
	if (pe_size == NOVA_PE_SIZE_PMD)
		nova_prot_mmap_stored(inode, pgoff & ~(NOVA_HUGE_BLOCKS - 1),
				      NOVA_HUGE_BLOCKS);
	else
		nova_prot_mmap_stored(inode, pgoff, 1);
}

/*
 * Page (PTE) and 2 MiB (PMD) faults. A PMD is mapped when the 2 MiB of
 * the file is one run of blocks that starts 2 MiB-aligned in physical
 * memory (balloc.c keeps such chunks for file data that covers an aligned
 * 2 MiB); a write fault on a 2 MiB hole gets such a chunk. A PMD write
 * fault over pages that a snapshot shows falls back to pages
 * (VM_FAULT_FALLBACK: the kernel splits the PMD), and each page write
 * fault then copies its page on write as below; the copies are not
 * aligned, so that 2 MiB stays mapped by pages.
 */
static vm_fault_t nova_dax_huge_fault(struct vm_fault *vmf,
				      nova_pe_size_t pe_size)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct super_block *sb = inode->i_sb;
	bool write = (vmf->flags & FAULT_FLAG_WRITE) &&
		     (vmf->vma->vm_flags & VM_SHARED);
	u64 start = nova_op_start();
	vm_fault_t ret;
	pfn_t pfn;

	if (pe_size != NOVA_PE_SIZE_PTE && pe_size != NOVA_PE_SIZE_PMD)
		return VM_FAULT_FALLBACK;
	if (nova_is_shutdown(sb))
		return VM_FAULT_SIGBUS;
	/* chattr +i unmapped the file; its pages stay read-only. */
	if (write && IS_IMMUTABLE(inode))
		return VM_FAULT_SIGBUS;
	if (write) {
		int err;

		sb_start_pagefault(sb);
		if (pe_size == NOVA_PE_SIZE_PMD &&
		    nova_pmd_shown(inode, vmf->pgoff &
				   ~(NOVA_HUGE_BLOCKS - 1))) {
			sb_end_pagefault(sb);
			return VM_FAULT_FALLBACK;
		}
		/* Stores through a shared mapping leave checksums stale. */
		nova_prot_mmap_write(inode);
		file_update_time(vmf->vma->vm_file);
		/* Before the shared invalidate lock: it may take it exclusive. */
		err = pe_size == NOVA_PE_SIZE_PTE ?
		      nova_dax_cow(inode, vmf->pgoff) : 0;
		if (err) {
			sb_end_pagefault(sb);
			nova_op_done(sb, NOVA_CTL_OP_FAULT, start);
			return vmf_error(err);
		}
	}
	filemap_invalidate_lock_shared(inode->i_mapping);
	/* Again under the lock nova_fileattr_set() holds to change it. */
	if (write && IS_IMMUTABLE(inode))
		ret = VM_FAULT_SIGBUS;
	else
		ret = dax_iomap_fault(vmf, pe_size, &pfn, NULL,
				      &nova_iomap_ops);
	/*
	 * Block allocations are committed before iomap_begin returns, so
	 * iomap never reports IOMAP_F_DIRTY and a MAP_SYNC fault needs no
	 * extra flush; handle the request anyway should the DAX core ask.
	 */
	if (write && (ret & VM_FAULT_NEEDDSYNC))
		ret = dax_finish_sync_fault(vmf, pe_size, pfn);
	/* Marked while the pages cannot be unmapped yet (protect.c). */
	if (write)
		nova_dax_mark_stored(inode, vmf->pgoff, pe_size);
	filemap_invalidate_unlock_shared(inode->i_mapping);
	if (write)
		sb_end_pagefault(sb);
	nova_op_done(sb, NOVA_CTL_OP_FAULT, start);
	return ret;
}

static vm_fault_t nova_dax_fault(struct vm_fault *vmf)
{
	return nova_dax_huge_fault(vmf, NOVA_PE_SIZE_PTE);
}

/*
 * Writable shared mappings leave the file unprotected while they exist
 * (protect.c): counted per inode, re-protected after the last one.
 */
static bool nova_vma_writable(struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_MAYWRITE);
}

static void nova_vma_open(struct vm_area_struct *vma)
{
	if (nova_vma_writable(vma))
		nova_prot_mmap_get(file_inode(vma->vm_file));
}

static void nova_vma_close(struct vm_area_struct *vma)
{
	if (nova_vma_writable(vma))
		nova_prot_mmap_put(file_inode(vma->vm_file));
}

static const struct vm_operations_struct nova_dax_vm_ops = {
	.open		= nova_vma_open,
	.close		= nova_vma_close,
	.fault		= nova_dax_fault,
	.huge_fault	= nova_dax_huge_fault,
	.page_mkwrite	= nova_dax_fault,
	.pfn_mkwrite	= nova_dax_fault,
};

int nova_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(file);

	if (!daxdev_mapping_supported(vma, NOVA_SB(inode->i_sb)->dax_dev))
		return -EOPNOTSUPP;
	/* Opened for writing before chattr +i (fileattr.c). */
	if (IS_IMMUTABLE(inode) && (vma->vm_flags & VM_SHARED) &&
	    (vma->vm_flags & VM_WRITE))
		return -EPERM;
	file_accessed(file);
	vma->vm_ops = &nova_dax_vm_ops;
	/* PMD faults where the blocks allow (nova_dax_huge_fault()). */
	nova_vma_set_flags(vma, VM_HUGEPAGE);
	nova_vma_open(vma);
	return 0;
}

/*
 * Faults of snapshot views (snapview.c): the snapshot's block, or the
 * zero page for a hole, mapped read-only without a DAX mapping entry.
 * fsdax lets a page belong to one file mapping at a time (page->mapping),
 * and the live file or another view may map the same block. The pte is
 * special (devmap), as for fsdax, so the page's refcount is untouched; a
 * write to a private mapping copies the page (do_wp_page()). The block
 * stays: the snapshot is not deleted while the mapping holds the view.
 */
static vm_fault_t nova_view_fault(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	unsigned long addr = vmf->address;
	void *kaddr;
	pfn_t pfn;
	long n;
	u64 blk;
	int id;

	if (vmf->pgoff >= DIV_ROUND_UP((u64)i_size_read(inode), PAGE_SIZE))
		return VM_FAULT_SIGBUS;
	blk = nova_file_block(inode, vmf->pgoff);
	if (!blk)
		return vmf_insert_mixed(vmf->vma, addr,
					pfn_to_pfn_t(my_zero_pfn(addr)));
	id = dax_read_lock();
	n = dax_direct_access(sbi->dax_dev,
			      (sbi->dax_part_off >> PAGE_SHIFT) + blk, 1,
			      DAX_ACCESS, &kaddr, &pfn);
	dax_read_unlock(id);
	if (n < 1)
		return VM_FAULT_SIGBUS;
	return vmf_insert_mixed(vmf->vma, addr, pfn);
}

static const struct vm_operations_struct nova_view_vm_ops = {
	.fault		= nova_view_fault,
};

/* mmap of a snapshot view file: read-only (its fd is never writable). */
int nova_view_mmap(struct file *file, struct vm_area_struct *vma)
{
	if ((vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_MAYWRITE))
		return -EROFS;
	vma->vm_ops = &nova_view_vm_ops;
	return 0;
}

/* msync/fsync: write back CPU caches of pages dirtied through mmap. */
static int nova_dax_writepages(struct address_space *mapping,
			       struct writeback_control *wbc)
{
	return dax_writeback_mapping_range(mapping,
			NOVA_SB(mapping->host->i_sb)->dax_dev, wbc);
}

/*
 * No read_folio, so swapon(2) of a NOVA file fails (EINVAL) before it
 * asks for swap_activate: it reads the swap header through the page
 * cache, and a DAX mapping holds DAX entries where page cache folios
 * would go (ext4 and xfs with dax behave the same; docs/fs.md).
 */
const struct address_space_operations nova_dax_aops = {
	.writepages	= nova_dax_writepages,
	.direct_IO	= noop_direct_IO,
	.dirty_folio	= noop_dirty_folio,
};

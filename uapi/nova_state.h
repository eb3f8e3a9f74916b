/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA allocator-state pages, written once for the kernel module and the
 * tools. The log of NOVA_ALLOC_INO, after a clean unmount, is a chain of
 * pages each holding one NOVA_LOG_FREE_RANGES entry of at most
 * NOVA_RANGES_PER_ENTRY ranges (uapi/nova_format.h). nova.ko
 * (nova_save_alloc_state(), module/balloc.c), mkfs.NOVA
 * (tools/mkfs_image.c) and fsck.NOVA's repair (tools/fsck_repair.c) all
 * build the page with nova_state_page_fill(), so the bytes cannot differ;
 * which blocks the pages take and how they are made durable is each
 * side's own (pmem.h helpers in the kernel, writes and syncs in the
 * tools).
 */
#ifndef NOVA_STATE_H
#define NOVA_STATE_H

#include "nova_csum.h"
#include "nova_sb.h"	/* nova_sb_cpu*(): byte order on either side */

/* Bytes of a NOVA_LOG_FREE_RANGES entry of @count ranges. */
static inline unsigned int nova_free_ranges_size(unsigned int count)
{
	return (unsigned int)sizeof(struct nova_free_ranges_entry) +
	       count * (unsigned int)sizeof(struct nova_range);
}

/*
 * Fill @page (NOVA_BLOCK_SIZE bytes) as one allocator-state page: the
 * entry of the @k (at most NOVA_RANGES_PER_ENTRY) ranges at @r, written
 * in epoch @epoch by transaction @trans and sealed, zeroes after it, and
 * the page tail of NOVA_ALLOC_INO's log naming block @next_blk as the
 * next page (0: the last). No allocation, no I/O. Returns the entry's
 * size: the log tail just past it is the page's offset plus that.
 */
static inline unsigned int
nova_state_page_fill(void *page, const struct nova_range *r, unsigned int k,
		     __u64 epoch, __u64 trans, __u64 next_blk)
{
	struct nova_free_ranges_entry *fr =
		(struct nova_free_ranges_entry *)page;
	struct nova_log_page_tail *lt = (struct nova_log_page_tail *)
		((unsigned char *)page + NOVA_LOG_DATA_SIZE);
	unsigned int size = nova_free_ranges_size(k);

	memset(page, 0, NOVA_BLOCK_SIZE);
	if (k)
		memcpy(fr->fr_ranges, r, k * sizeof(*r));
	fr->fr_count = nova_sb_cpu32(k);
	fr->hdr.e_type = NOVA_LOG_FREE_RANGES;
	fr->hdr.e_size = nova_sb_cpu16((__u16)size);
	fr->hdr.e_epoch_id = nova_sb_cpu64(epoch);
	fr->hdr.e_trans_id = nova_sb_cpu64(trans);
	fr->hdr.e_csum = nova_sb_cpu32(nova_entry_csum(fr, size));
	lt->lt_next = nova_sb_cpu64(next_blk << NOVA_BLOCK_SHIFT);
	lt->lt_valid = nova_sb_cpu32(1);
	lt->lt_entries = nova_sb_cpu32(1);
	lt->lt_ino = nova_sb_cpu64(NOVA_ALLOC_INO);
	lt->lt_magic = nova_sb_cpu32(NOVA_LOG_PAGE_MAGIC);
	lt->lt_csum = nova_sb_cpu32(nova_lt_csum(lt));
	return size;
}

#endif /* NOVA_STATE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: the allocation bitmap's upkeep (abitmap.c, format 1.9). Every
 * function does nothing on a file system without the bitmap.
 */
#ifndef _NOVA_ABITMAP_H
#define _NOVA_ABITMAP_H

#include "nova.h"

struct nova_format_plan;

void nova_abm_update(struct nova_sb_info *sbi, unsigned long blk,
		     unsigned long n, bool set);

/* Blocks leave the free lists: set, written back, not fenced. */
static inline void nova_abm_set(struct nova_sb_info *sbi, unsigned long blk,
				unsigned long n)
{
	if (sbi->layout.bitmap_blocks && n)
		nova_abm_update(sbi, blk, n, true);
}

/* Blocks go back to the free lists: cleared first. */
static inline void nova_abm_clear(struct nova_sb_info *sbi, unsigned long blk,
				  unsigned long n)
{
	if (sbi->layout.bitmap_blocks && n)
		nova_abm_update(sbi, blk, n, false);
}

/* Recovery's scan against the bitmap: blocks in use with a clear bit. */
unsigned long nova_abm_check_used(struct nova_sb_info *sbi,
				  const unsigned long *used,
				  unsigned long *leaked);
/* The whole bitmap from recovery's scan, durable. */
void nova_abm_write_used(struct nova_sb_info *sbi, const unsigned long *used);
/* A fast recovery (recovery_fast.c). */
u64 nova_abm_count_damaged(struct nova_sb_info *sbi);
int nova_abm_load_free(struct nova_sb_info *sbi);
/* The space check: set bits of blocks not in @used freed. */
unsigned long nova_abm_free_leaks(struct super_block *sb,
				  const unsigned long *used);
/* mount -o init. */
void nova_abm_format(struct nova_sb_info *sbi,
		     const struct nova_format_plan *plan);

#endif /* _NOVA_ABITMAP_H */

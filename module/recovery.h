/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: what the two ways of crash recovery share: the scan of every
 * inode (recovery.c) and the mount from the allocation bitmap
 * (recovery_fast.c, format 1.9), whose leaks the scan finds later.
 */
#ifndef _NOVA_RECOVERY_H
#define _NOVA_RECOVERY_H

#include "nova.h"

/* What a scan of every inode found. */
struct nova_rec_found {
	unsigned long *used;		/* one bit per block: referenced */
	u64 inodes;
	u64 log_pages;
	u64 data_pages;
	u64 meta;			/* journals and inode tables */
	u64 max_trans;			/* newest transaction on media */
	unsigned int threads;
};

int nova_rec_scan_all(struct super_block *sb, bool crash,
		      struct nova_rec_found *f);
void nova_rec_slot_words(struct super_block *sb, struct nova_inode *pi,
			 u64 ino);
int nova_rec_reprotect_file(struct super_block *sb, struct nova_inode *pi,
			    u64 ino);

/* recovery_fast.c: 0 done, -EAGAIN the scan must run instead, or error. */
int nova_recover_fast(struct super_block *sb, u64 start_ns);

#endif /* _NOVA_RECOVERY_H */

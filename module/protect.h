/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA data protection (protect.c): per-strip crc32c checksums of data
 * blocks, kept in two copies far apart on the device, and one XOR parity
 * strip per data block; verification and repair; the test-only
 * corruption injector (inject.c). docs/protection.md explains the design.
 *
 * The entry points for the scrub thread and the control plane:
 *
 *  - nova_verify_data_block(): check one data block's strips against both
 *    checksum copies; with @repair, rebuild a single bad strip from parity
 *    and fix a bad checksum copy from the good one. The caller must keep
 *    the block owned by its file while this runs (hold the owning inode's
 *    log_lock, as nova_verify_inode_data() does); a block that changes
 *    owner meanwhile could otherwise be "repaired" with stale contents.
 *  - nova_verify_inode(): check an inode slot's checksum: a live slot, or
 *    with @kept the slot of a removed inode a snapshot keeps (i_valid 0;
 *    its static part is as it was; the caller holds the snapshot table
 *    lock so it stays kept).
 *  - nova_inject(): flip one byte of a chosen object (test builds only,
 *    NOVA_TEST_HOOKS, and module parameter inject=1; the caller checks it
 *    with nova_inject_enabled()).
 *
 * Counters since mount (struct nova_sb_info): prot_verified (strips
 * checked), prot_repaired (strips or checksum copies rewritten),
 * prot_unrecoverable (pages that could not be repaired).
 */
#ifndef _NOVA_PROTECT_H
#define _NOVA_PROTECT_H

#include <linux/types.h>

struct super_block;
struct inode;
struct iov_iter;

struct nova_verify_result {
	u32 checked;		/* strips (data) or slots (inodes) checked */
	u32 bad;		/* found damaged */
	u32 repaired;		/* rewritten from parity or the other copy */
	u32 unrecoverable;	/* damaged beyond repair */
	u32 kind;		/* data blocks: NOVA_CORRUPT_* of the damage */
};

int nova_verify_data_block(struct super_block *sb, u64 blocknr, bool repair,
			   struct nova_verify_result *res);
int nova_verify_inode(struct super_block *sb, u64 ino, bool kept, bool repair,
		      struct nova_verify_result *res);
int nova_verify_inode_data(struct inode *inode, bool repair,
			   struct nova_verify_result *res);

#ifdef NOVA_TEST_HOOKS
bool nova_inject_enabled(void);
int nova_inject(struct super_block *sb, u32 target, u64 ino, u64 offset,
		u32 copy);
#endif

/* Used by the file system itself. */
bool nova_prot_csum(struct super_block *sb);
void nova_protect_block(struct super_block *sb, unsigned long blk);
void nova_protect_blocks(struct super_block *sb, unsigned long blk,
			 unsigned long n);
void nova_protect_strips(struct super_block *sb, unsigned long blk,
			 unsigned int from, unsigned int to);
bool nova_prot_skip_verify(struct inode *inode);
bool nova_block_intact(struct super_block *sb, unsigned long blk);
int nova_read_verified(struct inode *inode, unsigned long blk, loff_t pos,
		       void *buf);
size_t nova_read_iter_verified(struct inode *inode, unsigned long blk,
			       loff_t pos, unsigned int off, size_t n,
			       struct iov_iter *to, void **buf, int *err);
size_t nova_copy_from_iter_protected(struct super_block *sb,
				     unsigned long blk, unsigned int off,
				     size_t bytes, struct iov_iter *from);
int nova_prot_load(struct super_block *sb);
bool nova_prot_was_mapped(struct super_block *sb, u64 ino);
bool nova_prot_any_mapped(struct super_block *sb);
bool nova_prot_mapped_overflow(struct super_block *sb);
void nova_prot_clear_mapped(struct super_block *sb);
void nova_prot_init_sb(struct nova_sb_info *sbi);
void nova_prot_flush(struct super_block *sb);
bool nova_prot_maybe_stale(struct inode *inode);
void nova_prot_mmap_get(struct inode *inode);
void nova_prot_mmap_write(struct inode *inode);
void nova_prot_mmap_stored(struct inode *inode, pgoff_t first,
			   unsigned long nr);
void nova_prot_mmap_put(struct inode *inode);
bool nova_prot_page_stored(struct inode *inode, pgoff_t index);

#endif /* _NOVA_PROTECT_H */

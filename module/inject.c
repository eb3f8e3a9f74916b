// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: test-only corruption injector (genl NOVA_CMD_INJECT in
 * genl_inject.c; built only into the test module, NOVA_TEST_HOOKS, and
 * available only with the module parameter inject=1). nova_inject()
 * inverts one byte of the chosen object on PMEM, writes it back from the
 * CPU caches and fences, so the next read of the object, by any path,
 * sees the damage. The objects and their offsets are those of enum
 * nova_inject_target (uapi/linux/nova_genl.h).
 *
 * Locking (nova.h): VFS inode references, then nova_inode_info.log_lock while
 * the log or the page index is looked at.
 */
#include <linux/moduleparam.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "pmem.h"
#include "protect.h"

static bool inject;
module_param(inject, bool, 0644);
MODULE_PARM_DESC(inject, "allow NOVA_CMD_INJECT to damage file systems (tests only)");

bool nova_inject_enabled(void)
{
	return READ_ONCE(inject);
}

static void nova_flip(u8 *p)
{
	WRITE_ONCE(*p, *p ^ 0xff);
	nova_pmem_persist(p, 1);
}

static int nova_inject_super(struct super_block *sb, u64 offset, u32 copy)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (offset >= NOVA_SB_SIZE)
		return -ERANGE;
	if (copy > 1)
		return -EINVAL;
	nova_flip((u8 *)nova_block(sbi, copy ? sbi->nblocks - 1 :
				   NOVA_SB_BLOCK) + offset);
	return 0;
}

/* The live slot of @ino, or NULL. */
static struct nova_inode *nova_inject_pi(struct super_block *sb, u64 ino)
{
	struct nova_inode *pi = ino ? nova_get_pinode(sb, ino) : NULL;

	if (!pi || le64_to_cpu(READ_ONCE(pi->i_valid)) != 1)
		return NULL;
	return pi;
}

static int nova_inject_inode(struct super_block *sb, u64 ino, u64 offset,
			     u32 copy)
{
	struct nova_inode *pi = nova_inject_pi(sb, ino);

	if (!pi)
		return -ENOENT;
	if (offset >= NOVA_INODE_SIZE)
		return -ERANGE;
	if (copy > 1)
		return -EINVAL;
	/* Copy 1 is the slot's replica (format 1.3, META_REPLICA). */
	if (copy)
		pi = nova_replica_pi(NOVA_SB(sb), pi);
	if (!pi)
		return -EINVAL;
	nova_flip((u8 *)pi + offset);
	return 0;
}

struct nova_inject_walk {
	u64 want;			/* index of the entry or page */
	u64 seen;
	u64 found;			/* its offset, 0: not reached */
};

static int nova_inject_entry_fn(struct super_block *sb, u64 off, void *entry,
				void *arg)
{
	struct nova_inject_walk *w = arg;

	if (w->seen++ != w->want)
		return 0;
	w->found = off;
	return 1;			/* stop */
}

static int nova_inject_page_fn(struct super_block *sb, u64 page, void *arg)
{
	return nova_inject_entry_fn(sb, page, NULL, arg);
}

/*
 * Entry @index of @ino's log (its e_csum byte, which always breaks the
 * checksum) or the tail of log page @index (its lt_csum byte); copy 0 is
 * the primary page, copy 1 its mirror (1.4, LOG_REPLICA).
 */
static int nova_inject_log(struct super_block *sb, u64 ino, u64 index,
			   bool page, u32 copy)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inject_walk w = { .want = index };
	struct nova_inode *pi;
	struct inode *inode;
	u64 at, m;
	int err;

	if (copy > 1 || (copy && !nova_log_mirrored(sbi, ino)))
		return -EINVAL;
	pi = nova_inject_pi(sb, ino);
	if (!pi)
		return -ENOENT;
	inode = nova_iget(sb, ino);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	mutex_lock(&NOVA_I(inode)->log_lock);
	/* Leave damage injected before as it is (no repair). */
	err = nova_log_walk(sb, ino, NOVA_I(inode)->log_head,
			    NOVA_I(inode)->log_tail,
			    page ? NULL : nova_inject_entry_fn,
			    page ? nova_inject_page_fn : NULL, &w,
			    NOVA_WALK_PEEK);
	at = w.found;
	if (err >= 0 && w.found && copy) {
		/* The same offset in the page's mirror. */
		m = nova_log_mirror(sbi, w.found & ~((u64)NOVA_BLOCK_SIZE - 1));
		at = m ? m + (w.found & (NOVA_BLOCK_SIZE - 1)) : 0;
		if (!m)
			err = -EINVAL;
	}
	if (err >= 0 && !w.found)
		err = -ERANGE;
	else if (err >= 0 && page)
		nova_flip((u8 *)nova_addr(sbi, at) + NOVA_LOG_DATA_SIZE +
			  offsetof(struct nova_log_page_tail, lt_csum));
	else if (err >= 0)
		nova_flip((u8 *)nova_addr(sbi, at) +
			  offsetof(struct nova_log_entry_header, e_csum));
	mutex_unlock(&NOVA_I(inode)->log_lock);
	iput(inode);
	return err < 0 ? err : 0;
}

/* Data byte, checksum of its strip (copy 0/1) or its page's parity. */
static int nova_inject_data(struct super_block *sb, u32 target, u64 ino,
			    u64 offset, u32 copy)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int in = offset & (NOVA_BLOCK_SIZE - 1);
	struct inode *inode;
	u64 blk;
	u8 *p;
	int err = 0;

	if (target != NOVA_INJECT_DATA && !nova_prot_csum(sb))
		return -EINVAL;
	if (target == NOVA_INJECT_PARITY &&
	    !(sbi->prot & NOVA_FEATURE_DATA_PARITY))
		return -EINVAL;
	if (copy > (target == NOVA_INJECT_CSUM ? 1 : 0))
		return -EINVAL;
	if (!nova_inject_pi(sb, ino))
		return -ENOENT;
	inode = nova_iget(sb, ino);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (!S_ISREG(inode->i_mode)) {
		iput(inode);
		return -EINVAL;
	}
	mutex_lock(&NOVA_I(inode)->log_lock);
	blk = offset < i_size_read(inode) ?
	      nova_file_block(inode, offset >> NOVA_BLOCK_SHIFT) : 0;
	if (offset >= i_size_read(inode)) {
		err = -ERANGE;
	} else if (!blk) {
		err = -ENOENT;		/* a hole */
	} else {
		if (target == NOVA_INJECT_DATA)
			p = (u8 *)nova_block(sbi, blk) + in;
		else if (target == NOVA_INJECT_CSUM)
			p = (u8 *)nova_block(sbi, copy ? sbi->layout.csum_replica :
					     sbi->layout.csum) +
			    blk * NOVA_CSUM_SLOT + (in >> NOVA_STRIP_SHIFT) * 4;
		else
			p = (u8 *)nova_block(sbi, sbi->layout.parity) +
			    blk * NOVA_STRIP_SIZE + (in & (NOVA_STRIP_SIZE - 1));
		nova_flip(p);
	}
	mutex_unlock(&NOVA_I(inode)->log_lock);
	iput(inode);
	return err;
}

int nova_inject(struct super_block *sb, u32 target, u64 ino, u64 offset,
		u32 copy)
{
	switch (target) {
	case NOVA_INJECT_SUPER:
		return nova_inject_super(sb, offset, copy);
	case NOVA_INJECT_INODE:
		return nova_inject_inode(sb, ino, offset, copy);
	case NOVA_INJECT_LOG_ENTRY:
	case NOVA_INJECT_LOG_TAIL:
		return nova_inject_log(sb, ino, offset,
				       target == NOVA_INJECT_LOG_TAIL, copy);
	case NOVA_INJECT_DATA:
	case NOVA_INJECT_CSUM:
	case NOVA_INJECT_PARITY:
		return nova_inject_data(sb, target, ino, offset, copy);
	}
	return -EINVAL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: inode tables and inode numbers.
 *
 * Each CPU stripe of the inode table is a chain of 2 MiB PMEM blocks
 * (block 3 holds the head of each chain), each block ending in a tail
 * that names its stripe, its position and, with inode replicas, its
 * replica block. Free slots are tracked in DRAM (an IDA per stripe),
 * rebuilt at mount by scanning the i_valid words; an inode number is its
 * stripe and its slot in the stripe.
 *
 * Crash behaviour: a new table block and its replica are zeroed, their
 * tails written and made durable before one 8-byte store to the previous
 * block's itt_next links the primary in; a crash before that store leaves
 * an unreferenced block, free again at the next mount. Taking or giving
 * back an inode number otherwise changes DRAM only: a slot is in use once
 * its i_valid word is committed (inode.c, namei.c).
 *
 * Locking (nova.h): a stripe's nova_inode_map.lock, then the allocator's
 * leaf locks. nova_get_pinode() and nova_replica_of() (inode_slot.c) read
 * a stripe's blocks without it (nova_extend_table() publishes them in
 * order).
 */
#include <linux/slab.h>

#include "nova.h"
#include "pmem.h"

/* ---- inode tables ---- */

static struct nova_inode_table *nova_itable(struct nova_sb_info *sbi,
					    unsigned int cpu)
{
	return nova_block(sbi, NOVA_INODE_TABLE_PTR_BLOCK) +
	       cpu * sizeof(struct nova_inode_table);
}

static struct nova_inode_table_tail *nova_ttail(struct nova_sb_info *sbi,
						unsigned long blk)
{
	return nova_block(sbi, blk) +
	       NOVA_INODES_PER_TABLE * NOVA_INODE_SIZE;
}

/* Zero table block @blk and write its tail (durable after a fence). */
static void nova_init_table_block(struct nova_sb_info *sbi, unsigned long blk,
				  unsigned int cpu, unsigned int index,
				  unsigned long other)
{
	struct nova_inode_table_tail t = {
		.itt_cpu = cpu_to_le32(cpu),
		.itt_index = cpu_to_le64(index),
		.itt_replica = cpu_to_le64(other),
	};

	nova_pmem_memset(nova_block(sbi, blk), 0,
			 NOVA_INODES_PER_TABLE * NOVA_INODE_SIZE);
	t.itt_csum = cpu_to_le32(nova_table_rec_csum(&t, sizeof(t)));
	nova_pmem_memcpy(nova_ttail(sbi, blk), &t, sizeof(t));
}

/*
 * A zeroed table block with its tail and, with inode replicas, its
 * replica block (allocated from the high end, each tail naming the other
 * block); durable on return, before the caller links the primary in.
 */
static int nova_new_table_block(struct super_block *sb, unsigned int cpu,
				unsigned int index, unsigned long *blk,
				unsigned long *rblk)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long got;
	int err;

	*rblk = 0;
	err = nova_alloc_blocks(sb, NOVA_INODE_TABLE_BLOCKS, true,
				NOVA_BLOCK_META, blk, &got);
	if (err)
		return err;
	if (nova_replicas(sbi)) {
		err = nova_alloc_blocks_high(sb, NOVA_INODE_TABLE_BLOCKS,
					     NOVA_BLOCK_META, rblk);
		if (err) {
			nova_free_blocks(sb, *blk, NOVA_INODE_TABLE_BLOCKS,
					 NOVA_BLOCK_META);
			return err;
		}
		nova_init_table_block(sbi, *rblk, cpu, index, *blk);
	}
	nova_init_table_block(sbi, *blk, cpu, index, *rblk);
	nova_pmem_fence();
	return 0;
}

static int nova_imaps_alloc(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	sbi->imaps = kcalloc(sbi->cpus, sizeof(*sbi->imaps), GFP_KERNEL);
	if (!sbi->imaps)
		return -ENOMEM;
	for (i = 0; i < sbi->cpus; i++) {
		mutex_init(&sbi->imaps[i].lock);
		ida_init(&sbi->imaps[i].free);
	}
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_inode_map *m = &sbi->imaps[i];

		m->head = nova_itable(sbi, i);
		/* Sized for the whole device so it is never reallocated. */
		m->cap_blocks = sbi->nblocks / NOVA_INODE_TABLE_BLOCKS + 1;
		m->blocks = kvcalloc(m->cap_blocks, sizeof(*m->blocks),
				     GFP_KERNEL);
		if (!m->blocks)
			return -ENOMEM;
		if (!nova_replicas(sbi))
			continue;
		m->rblocks = kvcalloc(m->cap_blocks, sizeof(*m->rblocks),
				      GFP_KERNEL);
		if (!m->rblocks)
			return -ENOMEM;
	}
	return 0;
}

void nova_inode_tables_destroy(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	if (!sbi->imaps)
		return;
	for (i = 0; i < sbi->cpus; i++) {
		ida_destroy(&sbi->imaps[i].free);
		kvfree(sbi->imaps[i].blocks);
		kvfree(sbi->imaps[i].rblocks);
	}
	kfree(sbi->imaps);
	sbi->imaps = NULL;
}

/*
 * mkfs: one table block per stripe and, with inode replicas, its replica,
 * at the blocks @plan gives them (the caller keeps those blocks out of
 * the free lists). Block 3 was zeroed by the caller.
 */
int nova_inode_tables_format(struct super_block *sb,
			     const struct nova_format_plan *plan)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;
	int err;

	err = nova_imaps_alloc(sb);
	if (err)
		return err;
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_inode_map *m = &sbi->imaps[i];
		struct nova_inode_table t = { .it_cpu = cpu_to_le32(i) };
		unsigned long blk = nova_plan_table(plan, i);
		unsigned long rblk = m->rblocks ?
				     nova_plan_table_replica(plan, i) : 0;

		if (rblk)
			nova_init_table_block(sbi, rblk, i, 0, blk);
		nova_init_table_block(sbi, blk, i, 0, rblk);
		t.it_head = cpu_to_le64(blk);
		t.it_csum = cpu_to_le32(nova_table_rec_csum(&t, sizeof(t)));
		nova_pmem_memcpy(m->head, &t, sizeof(t));
		m->blocks[0] = blk;
		if (m->rblocks)
			m->rblocks[0] = rblk;
		m->nr_blocks = 1;
	}
	nova_pmem_fence();
	return 0;
}

/*
 * Note slot @idx of stripe @cpu as in use. Mount only: the stripe belongs
 * to the caller (the mounting task or one crash recovery thread).
 */
int nova_imap_mark_used(struct super_block *sb, unsigned int cpu,
			unsigned int idx)
{
	struct nova_inode_map *m = &NOVA_SB(sb)->imaps[cpu];
	int err;

	err = ida_alloc_range(&m->free, idx, idx, GFP_KERNEL);
	if (err < 0)
		return err;
	m->used++;
	return 0;
}

/* Note the slot of inode @ino as in use (mount only, as above). */
int nova_imap_mark_ino(struct super_block *sb, u64 ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	return nova_imap_mark_used(sb, nova_ino_cpu(ino, sbi->cpus),
				   nova_ino_index(ino, sbi->cpus));
}

/* A removed inode a live snapshot keeps: its slot is not free. */
static int nova_kept_slot(struct super_block *sb, struct nova_inode *pi,
			  u64 ino, void *arg)
{
	return nova_imap_mark_ino(sb, ino);
}

/*
 * The replica named by primary table block @blk's tail @t: without inode
 * replicas there is none; with them it is a table block whose own tail
 * has the same stripe and position and names @blk back.
 */
static bool nova_table_replica_ok(struct nova_sb_info *sbi,
				  const struct nova_inode_table_tail *t,
				  unsigned long blk)
{
	u64 rblk = le64_to_cpu(t->itt_replica);
	const struct nova_inode_table_tail *r;

	if (!nova_replicas(sbi))
		return !rblk;
	if (!nova_block_ok(sbi, rblk, NOVA_INODE_TABLE_BLOCKS) ||
	    (rblk < blk + NOVA_INODE_TABLE_BLOCKS &&
	     blk < rblk + NOVA_INODE_TABLE_BLOCKS))
		return false;
	r = nova_ttail(sbi, rblk);
	return le32_to_cpu(r->itt_csum) == nova_table_rec_csum(r, sizeof(*r)) &&
	       r->itt_cpu == t->itt_cpu && r->itt_index == t->itt_index &&
	       le64_to_cpu(r->itt_replica) == blk && !r->itt_next;
}

/*
 * Mount: walk the chains and, with @slots, note which slots are in use
 * (crash recovery does that itself, in parallel with the log scan).
 */
int nova_inode_tables_load(struct super_block *sb, bool slots)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i, s;
	int err;

	err = nova_imaps_alloc(sb);
	if (err)
		return err;
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_inode_map *m = &sbi->imaps[i];
		u64 blk = le64_to_cpu(m->head->it_head);
		unsigned int n = 0;

		if (le32_to_cpu(m->head->it_csum) !=
		    nova_table_rec_csum(m->head, sizeof(*m->head)) ||
		    le32_to_cpu(m->head->it_cpu) != i) {
			nova_err(sb, "inode table %u: bad head record", i);
			return -EFSCORRUPTED;
		}
		while (blk) {
			struct nova_inode_table_tail *t;

			if (n >= m->cap_blocks ||
			    !nova_block_ok(sbi, blk, NOVA_INODE_TABLE_BLOCKS))
				goto bad;
			t = nova_ttail(sbi, blk);
			if (le32_to_cpu(t->itt_csum) !=
			    nova_table_rec_csum(t, sizeof(*t)) ||
			    le32_to_cpu(t->itt_cpu) != i ||
			    le64_to_cpu(t->itt_index) != n ||
			    !nova_table_replica_ok(sbi, t, blk))
				goto bad;
			if (m->rblocks)
				m->rblocks[n] = le64_to_cpu(t->itt_replica);
			m->blocks[n++] = blk;
			blk = le64_to_cpu(READ_ONCE(t->itt_next));
		}
		m->nr_blocks = n;

		for (n = 0; slots && n < m->nr_blocks; n++) {
			struct nova_inode *pi = nova_block(sbi, m->blocks[n]);

			for (s = 0; s < NOVA_INODES_PER_TABLE; s++) {
				if (!READ_ONCE(pi[s].i_valid))
					continue;
				err = nova_imap_mark_used(sb, i,
						n * NOVA_INODES_PER_TABLE + s);
				if (err)
					return err;
			}
		}
		continue;
bad:
		nova_err(sb, "inode table %u: bad table block %u at %llu",
			 i, n, blk);
		return -EFSCORRUPTED;
	}
	if (slots)
		return nova_snapshot_mark_inodes(sb, nova_kept_slot, NULL);
	return 0;
}

void nova_inode_counts(struct super_block *sb, u64 *total, u64 *free)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 slots = 0, used = 0, room;
	unsigned int i;

	for (i = 0; i < sbi->cpus; i++) {
		slots += (u64)READ_ONCE(sbi->imaps[i].nr_blocks) *
			 NOVA_INODES_PER_TABLE;
		used += READ_ONCE(sbi->imaps[i].used);
	}
	/* Tables grow on demand: count the slots free space could hold. */
	room = (nova_count_free(sb) / NOVA_INODE_TABLE_BLOCKS) *
	       NOVA_INODES_PER_TABLE;
	*total = slots + room;
	*free = slots - min(used, slots) + room;
}

/* Append a table block to stripe @cpu. Caller holds m->lock. */
static int nova_extend_table(struct super_block *sb, unsigned int cpu)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_map *m = &sbi->imaps[cpu];
	unsigned long blk, rblk;
	int err;

	lockdep_assert_held(&m->lock);
	if (m->nr_blocks >= m->cap_blocks)
		return -ENOSPC;
	err = nova_new_table_block(sb, cpu, m->nr_blocks, &blk, &rblk);
	if (err)
		return err;
	/*
	 * The new block and its replica are durable; link the primary
	 * (0 -> blk, once). The replica is reached through its tail.
	 */
	nova_pmem_commit64(&nova_ttail(sbi, m->blocks[m->nr_blocks - 1])->itt_next,
			   blk);
	if (m->rblocks)
		m->rblocks[m->nr_blocks] = rblk;
	m->blocks[m->nr_blocks] = blk;
	/* Publish blocks[] before the count (nova_get_pinode()). */
	smp_store_release(&m->nr_blocks, m->nr_blocks + 1);
	return 0;
}

int nova_alloc_ino(struct super_block *sb, u64 *ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int first = raw_smp_processor_id() % sbi->cpus, i;
	int err = -ENOSPC;

	for (i = 0; i < sbi->cpus; i++) {
		unsigned int cpu = (first + i) % sbi->cpus;
		struct nova_inode_map *m = &sbi->imaps[cpu];
		int idx;

		mutex_lock(&m->lock);
		idx = ida_alloc(&m->free, GFP_NOFS);
		if (idx < 0) {
			mutex_unlock(&m->lock);
			return idx;
		}
		if (idx >= m->nr_blocks * NOVA_INODES_PER_TABLE) {
			err = nova_extend_table(sb, cpu);
			if (err) {
				ida_free(&m->free, idx);
				mutex_unlock(&m->lock);
				continue;
			}
		}
		m->used++;
		mutex_unlock(&m->lock);
		*ino = nova_ino_make(sbi->cpus, cpu, idx);
		return 0;
	}
	return err;
}

void nova_free_ino(struct super_block *sb, u64 ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_map *m;

	if (ino < NOVA_FIRST_INO)
		return;
	m = &sbi->imaps[nova_ino_cpu(ino, sbi->cpus)];
	mutex_lock(&m->lock);
	ida_free(&m->free, nova_ino_index(ino, sbi->cpus));
	m->used--;
	mutex_unlock(&m->lock);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: per-CPU lite journals.
 *
 * An operation that touches several inodes (create, link, unlink, rename,
 * ...) first appends its entries to every log involved, unpublished. It
 * then hands the new values of the commit words (log tails, i_valid) to
 * nova_journal_commit(), which makes them change together: it records the
 * old values in this CPU's journal ring, opens the transaction, stores the
 * new values and closes it. After a crash, nova_journal_recover() puts the
 * old values back for a transaction that was open, and
 * nova_journal_recover_finish() those of the words' inode replicas, then
 * closes it: either every log shows the operation or none does, also when
 * the recovering mount is itself cut short.
 *
 * Locking (nova.h): nova_journal.lock is a leaf spinlock.
 */
#include <linux/crc32c.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "nova.h"
#include "nova_journal.h"
#include "pmem.h"

static struct nova_journal_ptr *nova_jptr(struct nova_sb_info *sbi,
					  unsigned int cpu)
{
	return nova_block(sbi, NOVA_JOURNAL_PTR_BLOCK) +
	       cpu * sizeof(struct nova_journal_ptr);
}

static int nova_journal_alloc(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	sbi->journals = kcalloc(sbi->cpus, sizeof(*sbi->journals), GFP_KERNEL);
	if (!sbi->journals)
		return -ENOMEM;
	for (i = 0; i < sbi->cpus; i++) {
		spin_lock_init(&sbi->journals[i].lock);
		sbi->journals[i].ptr = nova_jptr(sbi, i);
	}
	return 0;
}

/*
 * mkfs: one empty ring per stripe, at the block @plan gives it (the
 * caller keeps those blocks out of the free lists). Block 2 was zeroed by
 * the caller.
 */
int nova_journal_format(struct super_block *sb,
			const struct nova_format_plan *plan)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;
	int err;

	err = nova_journal_alloc(sb);
	if (err)
		return err;
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_journal *j = &sbi->journals[i];
		struct nova_journal_ptr p = { };
		unsigned long blk = nova_plan_journal(plan, i);

		nova_pmem_memset(nova_block(sbi, blk), 0, NOVA_BLOCK_SIZE);
		j->ring_off = (u64)blk << NOVA_BLOCK_SHIFT;
		j->ring = nova_block(sbi, blk);
		p.j_head = cpu_to_le64(j->ring_off);
		p.j_tail = cpu_to_le64(j->ring_off);
		p.j_block = cpu_to_le64(blk);
		p.j_cpu = cpu_to_le32(i);
		p.j_csum = cpu_to_le32(nova_jp_csum(&p));
		nova_pmem_memcpy(j->ptr, &p, sizeof(p));
	}
	nova_pmem_fence();
	return 0;
}

int nova_journal_load(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;
	int err;

	err = nova_journal_alloc(sb);
	if (err)
		return err;
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_journal *j = &sbi->journals[i];
		u64 blk = le64_to_cpu(j->ptr->j_block);

		if (!nova_jptr_ok(j->ptr, i) || !nova_block_ok(sbi, blk, 1)) {
			nova_err(sb, "journal %u: bad journal pointer", i);
			return -EFSCORRUPTED;
		}
		j->ring_off = blk << NOVA_BLOCK_SHIFT;
		j->ring = nova_block(sbi, blk);
		if (!nova_jpos_ok(j->ring_off, le64_to_cpu(j->ptr->j_head)) ||
		    !nova_jpos_ok(j->ring_off, le64_to_cpu(j->ptr->j_tail))) {
			nova_err(sb, "journal %u: head or tail out of range", i);
			return -EFSCORRUPTED;
		}
	}
	return 0;
}

void nova_journal_destroy(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	kfree(sbi->journals);
	sbi->journals = NULL;
	kvfree(sbi->rolled_back);	/* a recovery that failed half-way */
	sbi->rolled_back = NULL;
}

/*
 * Undo the open transaction of every journal, newest record first (a word
 * recorded twice ends with its first old value), and remember the words
 * for nova_journal_recover_finish(). The transactions stay open: their
 * words' inode replicas still hold the new values, and closing before
 * those are rolled back too would let a crash leave half a transaction
 * (the replica of a directory's tail reaching further than the primary,
 * which nova_pi_resolve_words() rightly takes). Until they are closed, a
 * crash only rolls the same records back again.
 * Returns the number of words restored or -EFSCORRUPTED.
 */
int nova_journal_recover(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i, n = 0;
	int undone = 0;

	for (i = 0; i < sbi->cpus; i++) {
		struct nova_journal *j = &sbi->journals[i];
		u64 head = le64_to_cpu(j->ptr->j_head);
		u64 pos = le64_to_cpu(j->ptr->j_tail);

		while (pos != head) {
			pos = nova_jpos_prev(j->ring_off, pos);
			n++;
		}
	}
	if (n) {
		sbi->rolled_back = kvmalloc_array(n, sizeof(*sbi->rolled_back),
						  GFP_KERNEL);
		if (!sbi->rolled_back)
			return -ENOMEM;
	}
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_journal *j = &sbi->journals[i];
		u64 head = le64_to_cpu(j->ptr->j_head);
		u64 pos = le64_to_cpu(j->ptr->j_tail);

		while (pos != head) {
			struct nova_journal_entry *e;
			u64 addr;

			pos = nova_jpos_prev(j->ring_off, pos);
			e = nova_addr(sbi, pos);
			addr = le64_to_cpu(e->je_addr);
			if (!nova_jrec_ok(e, sbi->size)) {
				nova_err(sb, "journal %u: bad record at %llu",
					 i, pos);
				return -EFSCORRUPTED;
			}
			nova_pmem_store64(nova_addr(sbi, addr),
					  le64_to_cpu(e->je_old));
			sbi->rolled_back[undone].word = nova_addr(sbi, addr);
			sbi->rolled_back[undone].val = le64_to_cpu(e->je_old);
			undone++;
		}
	}
	sbi->nr_rolled_back = undone;
	return undone;
}

/*
 * Step 2 of a transaction also stored each new value in the word's inode
 * replica, with no record of its own. Once the inode tables are loaded
 * (so that nova_replica_word() can find a table slot's replica), the words
 * nova_journal_recover() rolled back get their old values in the replica
 * too, in the same order. Then, with the old values of both copies
 * durable (the fence of the first nova_pmem_commit64()), every journal's
 * transaction is closed.
 */
void nova_journal_recover_finish(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int i;

	for (i = 0; i < sbi->nr_rolled_back; i++) {
		struct nova_jword *w = &sbi->rolled_back[i];
		__le64 *r = nova_replica_word(sbi, w->word);

		if (r)
			nova_pmem_store64(r, w->val);
	}
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_journal_ptr *jp = sbi->journals[i].ptr;

		if (jp->j_tail != jp->j_head)
			nova_pmem_commit64(&jp->j_tail, le64_to_cpu(jp->j_head));
	}
	kvfree(sbi->rolled_back);
	sbi->rolled_back = NULL;
	sbi->nr_rolled_back = 0;
}

/*
 * Atomically set @n (<= NOVA_JOURNAL_MAX_WORDS) commit words. Everything
 * the new values point to must already be durable. A word may appear more
 * than once; the last value wins, recovery restores the first old value.
 */
void nova_journal_commit(struct super_block *sb, struct nova_jword *w, int n)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_journal *j;
	u64 pos, trans = atomic64_read(&sbi->trans_id);
	int i;

	if (WARN_ON_ONCE(n > NOVA_JOURNAL_MAX_WORDS))
		n = NOVA_JOURNAL_MAX_WORDS;
	j = &sbi->journals[raw_smp_processor_id() % sbi->cpus];
	spin_lock(&j->lock);
	pos = le64_to_cpu(j->ptr->j_tail);
	for (i = 0; i < n; i++) {
		struct nova_journal_entry e = {
			.je_addr = cpu_to_le64(nova_off(sbi, w[i].word)),
			.je_old = READ_ONCE(*w[i].word),
			.je_trans_id = cpu_to_le64(trans),
			.je_type = cpu_to_le32(NOVA_JOURNAL_WORD),
		};

		e.je_csum = cpu_to_le32(nova_je_csum(&e));
		nova_pmem_memcpy(nova_addr(sbi, pos), &e, sizeof(e));
		pos = nova_jpos_next(j->ring_off, pos);
	}
	/* 1. records durable, then open the transaction */
	nova_pmem_commit64(&j->ptr->j_tail, pos);
	/*
	 * 2. the new values, each followed by its inode replica's copy (no
	 * record: if the transaction is rolled back, recovery restores the
	 * replica's copy too, nova_journal_recover_finish())
	 */
	for (i = 0; i < n; i++) {
		__le64 *r = nova_replica_word(sbi, w[i].word);

		nova_pmem_store64(w[i].word, w[i].val);
		if (r)
			nova_pmem_store64(r, w[i].val);
	}
	/* 3. new values durable, then close the transaction */
	nova_pmem_commit64(&j->ptr->j_head, pos);
	spin_unlock(&j->lock);
}

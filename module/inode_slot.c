// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: the persistent inode slot and its replica.
 *
 * A slot (struct nova_inode) is written whole while not live (i_valid 0)
 * and then only its commit words change: i_valid, i_log_head and
 * i_log_tail, which its checksum does not cover. With inode replicas
 * (NOVA_FEATURE_META_REPLICA) each slot has a copy at the same offset of
 * its stripe's replica table block (reserved inodes: layout.meta_replica).
 * Here: finding a slot and its replica, writing a slot that is not live
 * and committing the commit words to both copies, judging commit words
 * that differ by the logs they lead to, and checking and repairing a
 * slot's static part from its good copy.
 *
 * Crash behaviour: a slot that is not live is written to the primary,
 * then to the replica, each durable before the next, and nothing reads
 * it until its i_valid is committed. A commit word is stored to the
 * primary, then to the replica, each durable before the next (a log tail: both in one
 * persistence round); a crash between the two leaves the primary ahead
 * (or, for a tail, either copy ahead with both logs whole). Crash
 * recovery resolves the log words by the log each pair reaches
 * (nova_pi_resolve_words()) and copies the primary's commit words over
 * the replica's (nova_pi_sync_words()).
 *
 * Locking (nova.h): callers serialise stores to one commit word (the
 * inode's log_lock, the journal, or the inode being loaded: see each
 * function); finding a slot or its replica takes no lock (itable.c
 * publishes a stripe's blocks in order).
 */
#include <linux/nova_genl.h>

#include "health.h"
#include "nova.h"
#include "pmem.h"
#include "protect.h"

struct nova_inode *nova_get_pinode(struct super_block *sb, u64 ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_map *m;
	u64 idx;
	unsigned int nr;

	if (ino < NOVA_RESERVED_INODES)
		return nova_block(sbi, NOVA_RESERVED_INODE_BLOCK) +
		       ino * NOVA_INODE_SIZE;
	m = &sbi->imaps[nova_ino_cpu(ino, sbi->cpus)];
	idx = nova_ino_index(ino, sbi->cpus);
	/* Pairs with nova_extend_table(): blocks[nr - 1] is set. */
	nr = smp_load_acquire(&m->nr_blocks);
	if (idx / NOVA_INODES_PER_TABLE >= nr)
		return NULL;
	return nova_block(sbi, m->blocks[idx / NOVA_INODES_PER_TABLE]) +
	       (idx % NOVA_INODES_PER_TABLE) * NOVA_INODE_SIZE;
}

/*
 * The replica of the inode slot byte at @pi (a slot, or one of its commit
 * words), or NULL without inode replicas. Reserved inodes have theirs in
 * layout.meta_replica; a table slot's is at the same offset of the
 * stripe's replica table block. Lock-free, as nova_get_pinode().
 */
static void *nova_replica_of(struct nova_sb_info *sbi, const void *pi)
{
	u64 off = nova_off(sbi, pi), blk = off >> NOVA_BLOCK_SHIFT;
	unsigned int i, n, nr;

	if (!nova_replicas(sbi))
		return NULL;
	if (blk == NOVA_RESERVED_INODE_BLOCK)
		return nova_block(sbi, sbi->layout.meta_replica) +
		       (off & (NOVA_BLOCK_SIZE - 1));
	for (i = 0; i < sbi->cpus; i++) {
		struct nova_inode_map *m = &sbi->imaps[i];

		/* Pairs with nova_extend_table(): rblocks[nr - 1] is set. */
		nr = smp_load_acquire(&m->nr_blocks);
		for (n = 0; n < nr; n++) {
			u64 start = m->blocks[n];

			if (blk >= start && blk < start + NOVA_INODE_TABLE_BLOCKS)
				return nova_addr(sbi, off + (((u64)m->rblocks[n] -
						 start) << NOVA_BLOCK_SHIFT));
		}
	}
	return NULL;
}

struct nova_inode *nova_replica_pi(struct nova_sb_info *sbi, const void *pi)
{
	return nova_replica_of(sbi, pi);
}

__le64 *nova_replica_word(struct nova_sb_info *sbi, __le64 *word)
{
	return nova_replica_of(sbi, word);
}

/*
 * Store commit word @word of an inode slot (i_valid, i_log_head,
 * i_log_tail) and its replica: fence, primary store, write-back, fence,
 * then the same for the replica. The primary is never older than the
 * replica (log tails excepted: nova_pi_commit_tail()), so it wins after a
 * crash between the two (recovery copies it
 * over, nova_pi_sync_words()). Callers serialise stores to one word as
 * for a plain nova_pmem_commit64().
 */
void nova_pi_commit64(struct nova_sb_info *sbi, __le64 *word, u64 val)
{
	__le64 *r = nova_replica_word(sbi, word);

	nova_pmem_commit64(word, val);
	if (r)
		nova_pmem_commit64(r, val);
}

/*
 * Commit a new log tail @tail of inode slot @pi and of its replica in one
 * persistence round (nova_pmem_commit64_pair(): two fences, not the four
 * of two nova_pi_commit64() calls). A crash may leave either copy ahead
 * of the other; both logs are whole (the entries were durable before the
 * first fence), and nova_pi_resolve_words() takes the one reaching the
 * newer transaction, so the outcome is the old tail or the new one as
 * with a single word. Log lock held.
 */
void nova_pi_commit_tail(struct nova_sb_info *sbi, struct nova_inode *pi,
			 u64 tail)
{
	/* Without replicas (protection off), no call to find none. */
	__le64 *r = nova_replicas(sbi) ?
		    nova_replica_word(sbi, &pi->i_log_tail) : NULL;

	nova_pmem_commit64_pair(&pi->i_log_tail, tail, r, tail);
}

/*
 * Crash recovery, after the journal rollback: make the replica's commit
 * words equal to the primary's (a crash may have stopped between the two
 * stores of nova_pi_commit64() or of a journal transaction). Durable at
 * the caller's next fence.
 */
void nova_pi_sync_words(struct nova_sb_info *sbi, struct nova_inode *pi)
{
	struct nova_inode *r = nova_replica_pi(sbi, pi);

	if (!r || !memcmp(r, pi, offsetof(struct nova_inode, i_csum)))
		return;
	nova_pmem_store64(&r->i_valid, le64_to_cpu(READ_ONCE(pi->i_valid)));
	nova_pmem_store64(&r->i_log_head,
			  le64_to_cpu(READ_ONCE(pi->i_log_head)));
	nova_pmem_store64(&r->i_log_tail,
			  le64_to_cpu(READ_ONCE(pi->i_log_tail)));
}

/* What a pair of log commit words leads to (nova_pi_resolve_words()). */
struct nova_log_proof {
	u64 head, tail;
	u64 max_trans;		/* the newest transaction of the log */
	bool whole;		/* the log walks to its tail, every object good */
};

static int nova_proof_entry(struct super_block *sb, u64 off, void *entry,
			    void *arg)
{
	const struct nova_log_entry_header *h = entry;
	struct nova_log_proof *p = arg;

	p->max_trans = max(p->max_trans, le64_to_cpu(h->e_trans_id));
	return 0;
}

static void nova_log_prove(struct super_block *sb, u64 ino,
			   struct nova_log_proof *p)
{
	p->max_trans = 0;
	if (!p->head) {
		p->whole = !p->tail;
		return;
	}
	p->whole = !nova_log_walk(sb, ino, p->head, p->tail, nova_proof_entry,
				  NULL, p, NOVA_WALK_PROBE);
}

/* Rewrite one copy's log words; durable on return. */
static void nova_pi_store_log_words(struct nova_inode *slot,
				    const struct nova_log_proof *p)
{
	nova_pmem_commit64(&slot->i_log_head, p->head);
	nova_pmem_commit64(&slot->i_log_tail, p->tail);
}

/*
 * Commit words are verified, not trusted. An inode slot's i_log_head and
 * i_log_tail are outside its checksum (format.md), so damage that lowers
 * the primary's tail would silently roll the file back. When they differ
 * from the replica's, each pair is judged by the log it leads to
 * (nova_log_prove(); a bad copy next to a good mirror counts as good) and
 * nova_log_words_winner() (nova_format.h, shared with fsck.NOVA) picks:
 * the newer whole log, the primary on a tie, so a crash between the two
 * stores of nova_pi_commit64() resolves as before. If neither log is
 * whole, nothing changes here and loading the inode reports the damage.
 *
 * A primary ahead of the replica after a crash (@after_crash: recovery) is
 * the expected state, and so is a replica whose tail alone is ahead of a
 * whole primary log (nova_pi_commit_tail()); any other disagreement is
 * damage: logged, counted
 * and sent as a CORRUPTION event. The losing copy is rewritten, except on
 * a read-only mount outside recovery, where *@head and *@tail (the words
 * to use) are all that change. The i_valid word is left to
 * nova_pi_sync_words(): a log cannot tell a freed inode from a live one.
 *
 * Called while nobody else commits to the slot: on an inode being loaded
 * (I_NEW) and by recovery, before nova_pi_sync_words().
 */
void nova_pi_resolve_words(struct super_block *sb, struct nova_inode *pi,
			   u64 ino, bool after_crash, u64 *head, u64 *tail)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *r = nova_replica_pi(sbi, pi);
	bool write = after_crash || !sb_rdonly(sb);
	enum nova_words_winner win;
	struct nova_log_proof p, rp;

	p.head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	p.tail = le64_to_cpu(READ_ONCE(pi->i_log_tail));
	*head = p.head;
	*tail = p.tail;
	if (!r || le64_to_cpu(READ_ONCE(pi->i_valid)) != 1 ||
	    le64_to_cpu(READ_ONCE(r->i_valid)) != 1)
		return;
	rp.head = le64_to_cpu(READ_ONCE(r->i_log_head));
	rp.tail = le64_to_cpu(READ_ONCE(r->i_log_tail));
	if (p.head == rp.head && p.tail == rp.tail)
		return;

	nova_log_prove(sb, ino, &p);
	nova_log_prove(sb, ino, &rp);
	win = nova_log_words_winner(p.whole, p.max_trans, rp.whole,
				    rp.max_trans);
	if (win == NOVA_WORDS_REPLICA && after_crash && p.whole &&
	    p.head == rp.head) {
		/*
		 * A crash inside nova_pi_commit_tail()'s round left the
		 * replica's new tail durable and not the primary's: expected.
		 */
		nova_pi_store_log_words(pi, &rp);
		*tail = rp.tail;
		return;
	}
	if (win == NOVA_WORDS_REPLICA) {
		nova_warn(sb, "inode %llu: log head/tail %llu/%llu of the primary slot disagree with the replica's %llu/%llu, whose log reaches transaction %llu: %s",
			  ino, p.head, p.tail, rp.head, rp.tail, rp.max_trans,
			  write ? "primary rewritten" : "using the replica");
		if (write) {
			nova_pi_store_log_words(pi, &rp);
			atomic64_inc(&sbi->prot_repaired);
		}
		nova_report_damage(sb, ino, NOVA_CORRUPT_INODE,
				   nova_off(sbi, pi), write);
		*head = rp.head;
		*tail = rp.tail;
		return;
	}
	if (win == NOVA_WORDS_NEITHER)
		return;
	if (!after_crash) {
		nova_warn(sb, "inode %llu: log head/tail %llu/%llu of the replica slot disagree with the primary's %llu/%llu: %s",
			  ino, rp.head, rp.tail, p.head, p.tail,
			  write ? "replica rewritten" : "using the primary");
		if (write)
			atomic64_inc(&sbi->prot_repaired);
		nova_report_damage(sb, ino, NOVA_CORRUPT_INODE,
				   nova_off(sbi, r), write);
	}
	if (write)
		nova_pi_store_log_words(r, &p);
}

/*
 * Scrub of a loaded inode of the live file system, its log_lock held: no
 * commit runs meanwhile, and the log head and tail in DRAM are the ones
 * this mount committed (or resolved at load). A slot copy whose words
 * differ is damaged: counted in @res and, with @repair on a writable mount,
 * rewritten. The caller reports the findings.
 */
void nova_pi_check_log_words(struct inode *inode, bool repair,
			     struct nova_verify_result *res)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_log_proof want = {
		.head = ni->log_head, .tail = ni->log_tail,
	};
	struct nova_inode *copy[2];
	unsigned int i;

	lockdep_assert_held(&ni->log_lock);
	copy[0] = nova_pi(inode);
	copy[1] = nova_replica_pi(sbi, copy[0]);
	for (i = 0; i < ARRAY_SIZE(copy) && copy[i]; i++) {
		u64 head = le64_to_cpu(READ_ONCE(copy[i]->i_log_head));
		u64 tail = le64_to_cpu(READ_ONCE(copy[i]->i_log_tail));

		if (head == want.head && tail == want.tail)
			continue;
		res->bad++;
		repair = repair && !sb_rdonly(sb);
		nova_warn(sb, "inode %lu: log head/tail %llu/%llu of the %s slot are not the committed %llu/%llu%s",
			  inode->i_ino, head, tail, i ? "replica" : "primary",
			  want.head, want.tail, repair ? ": rewritten" : "");
		if (!repair)
			continue;
		nova_pi_store_log_words(copy[i], &want);
		atomic64_inc(&sbi->prot_repaired);
		res->repaired++;
	}
}

/* Read slot @pi with copy_mc and check it belongs to @ino intact. */
static bool nova_slot_good(const struct nova_inode *pi, u64 ino)
{
	struct nova_inode copy;

	if (nova_pmem_read(&copy, pi, sizeof(copy)))
		return false;
	return le32_to_cpu(copy.i_csum) == nova_inode_csum(&copy) &&
	       le64_to_cpu(copy.i_ino) == ino;
}

/*
 * Rewrite the static part of damaged slot @dst (from i_csum on; the commit
 * words before it are resolved on their own) from its good copy @src.
 */
static void nova_slot_rewrite(struct super_block *sb, struct nova_inode *dst,
			      const struct nova_inode *src, u64 ino,
			      const char *what)
{
	const unsigned int st = offsetof(struct nova_inode, i_csum);

	nova_pmem_memcpy((u8 *)dst + st, (const u8 *)src + st,
			 NOVA_INODE_SIZE - st);
	nova_pmem_fence();
	atomic64_inc(&NOVA_SB(sb)->prot_repaired);
	nova_warn(sb, "inode %llu: %s", ino, what);
}

/*
 * Verify inode @ino's slot @pi (the primary). If it is bad and its
 * replica is good, the replica's static part (i_csum onwards) is copied
 * over the primary's when @repair is set and the file system is writable;
 * the commit words are never copied (the primary's are authoritative, and
 * the checksum does not cover them). *@good is the copy to read the
 * static fields from (NULL if none is). A repair is counted in
 * prot_repaired and logged. The caller keeps the slot from being rewritten
 * meanwhile (the inode is being loaded, or the slot is live and only its
 * commit words change).
 */
enum nova_slot_state nova_inode_check(struct super_block *sb,
				      struct nova_inode *pi, u64 ino,
				      bool repair, struct nova_inode **good)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *r;

	*good = pi;
	if (nova_slot_good(pi, ino))
		return NOVA_SLOT_OK;
	r = nova_replica_pi(sbi, pi);
	*good = NULL;
	if (!r || !nova_slot_good(r, ino))
		return NOVA_SLOT_BAD;
	*good = r;
	if (!repair || sb_rdonly(sb))
		return NOVA_SLOT_REPLICA;
	nova_slot_rewrite(sb, pi, r, ino,
			  "damaged slot rewritten from its replica");
	*good = pi;
	return NOVA_SLOT_REPAIRED;
}

/*
 * Scrub: with a good primary @pi, check its replica too; with @repair on
 * a writable mount, rewrite a bad replica's static part from the primary.
 * Returns NOVA_SLOT_OK (good or no replica), NOVA_SLOT_REPAIRED or
 * NOVA_SLOT_BAD (damaged, not rewritten).
 */
enum nova_slot_state nova_inode_check_replica(struct super_block *sb,
					      struct nova_inode *pi, u64 ino,
					      bool repair)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *r = nova_replica_pi(sbi, pi);

	if (!r || nova_slot_good(r, ino))
		return NOVA_SLOT_OK;
	if (!repair || sb_rdonly(sb))
		return NOVA_SLOT_BAD;
	nova_slot_rewrite(sb, r, pi, ino,
			  "damaged replica slot rewritten from the primary");
	return NOVA_SLOT_REPAIRED;
}

/*
 * Write a whole slot that is not live (i_valid 0 in @tmp) to the primary,
 * then to its replica; durable on return.
 */
void nova_write_slot(struct nova_sb_info *sbi, struct nova_inode *pi,
		     const struct nova_inode *tmp)
{
	struct nova_inode *r = nova_replica_pi(sbi, pi);

	nova_pmem_memcpy(pi, tmp, sizeof(*tmp));
	nova_pmem_fence();
	if (r) {
		nova_pmem_memcpy(r, tmp, sizeof(*tmp));
		nova_pmem_fence();
	}
}

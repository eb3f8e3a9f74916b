// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: inode tables, inode life cycle and attributes.
 *
 * Each stripe of the inode table is a chain of 2 MiB PMEM blocks. Free
 * slots are tracked in DRAM (an IDA per stripe), rebuilt at mount by
 * scanning the i_valid words. A PMEM inode is written once, while invalid,
 * and then only its commit words change; attributes changed later are log
 * entries (setattr, link change, write, dentry) replayed by nova_iget().
 *
 * Locking (nova.h): an inode's log_lock, then its stripe's
 * nova_inode_map.lock, then the allocator's and journals' leaf locks.
 */
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/pagemap.h>
#include <linux/iversion.h>
#include <linux/quotaops.h>
#include <linux/nova_genl.h>

#include "csum.h"
#include "health.h"
#include "nova.h"
#include "xattr.h"
#include "pmem.h"
#include "protect.h"

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

static bool nova_replicas(struct nova_sb_info *sbi)
{
	return sbi->prot & NOVA_FEATURE_META_REPLICA;
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
	nova_pmem_commit64_pair(&pi->i_log_tail, tail,
				nova_replica_word(sbi, &pi->i_log_tail), tail);
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

static int nova_alloc_ino(struct super_block *sb, u64 *ino)
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

/* ---- DRAM inodes ---- */

static void nova_set_ops(struct inode *inode)
{
	if (nova_is_view(inode)) {
		nova_view_set_ops(inode);
		return;
	}
	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &nova_file_inode_operations;
		inode->i_fop = &nova_file_operations;
		inode->i_mapping->a_ops = &nova_dax_aops;
		inode->i_flags |= S_DAX;
		break;
	case S_IFDIR:
		inode->i_op = &nova_dir_inode_operations;
		inode->i_fop = &nova_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &nova_symlink_inode_operations;
		break;
	default:
		inode->i_op = &nova_special_inode_operations;
		init_special_inode(inode, inode->i_mode, inode->i_rdev);
		break;
	}
}

static void nova_update_trans(struct nova_sb_info *sbi, u64 trans)
{
	s64 cur = atomic64_read(&sbi->trans_id);

	while ((s64)trans > cur) {
		s64 old = atomic64_cmpxchg(&sbi->trans_id, cur, trans);

		if (old == cur)
			break;
		cur = old;
	}
}

static void nova_apply_setattr(struct inode *inode, u64 off,
			       struct nova_setattr_entry *sa, bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	u32 mask = le32_to_cpu(sa->sa_mask);

	if (mask & NOVA_ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) |
				(le16_to_cpu(sa->sa_mode) & ~S_IFMT);
	if (mask & NOVA_ATTR_UID)
		i_uid_write(inode, le32_to_cpu(sa->sa_uid));
	if (mask & NOVA_ATTR_GID)
		i_gid_write(inode, le32_to_cpu(sa->sa_gid));
	if (mask & NOVA_ATTR_ATIME)
		nova_set_atime(inode, nova_ts_from_media(&sa->sa_atime));
	if (mask & NOVA_ATTR_MTIME)
		nova_set_mtime(inode, nova_ts_from_media(&sa->sa_mtime));
	if (mask & NOVA_ATTR_CTIME)
		nova_set_ctime(inode, nova_ts_from_media(&sa->sa_ctime));
	if (mask & NOVA_ATTR_FLAGS) {
		WRITE_ONCE(ni->attr_flags, le16_to_cpu(sa->sa_flags));
		nova_set_inode_flags(inode);
	}
	if (mask & NOVA_ATTR_PROJID)
		WRITE_ONCE(ni->projid, le32_to_cpu(NOVA_SA_PROJID(sa)));
	if ((mask & NOVA_ATTR_SIZE) && S_ISREG(inode->i_mode)) {
		u64 size = le64_to_cpu(sa->sa_size);

		/*
		 * A size that grew keeps the pages past it (blocks
		 * preallocated with FALLOC_FL_KEEP_SIZE); the entry says so,
		 * as replay cannot tell from the log what the size was.
		 */
		if (!(mask & NOVA_ATTR_GROW))
			nova_file_drop_pages(inode, DIV_ROUND_UP(size, PAGE_SIZE),
					     runtime);
		i_size_write(inode, size);
	}
	/*
	 * The previous setattr entry is dead once this one sets every field
	 * it set (e.g. atime updates replacing each other). An entry that
	 * changed the size stays: the pages it dropped must stay dropped
	 * when the log is replayed. Garbage collection may do finer work.
	 */
	if (runtime && ni->last_setattr) {
		struct nova_setattr_entry *old = nova_addr(NOVA_SB(inode->i_sb),
							   ni->last_setattr);
		u32 omask = le32_to_cpu(old->sa_mask);

		if (!(omask & NOVA_ATTR_SIZE) && (mask & omask) == omask)
			nova_log_invalidate(inode, ni->last_setattr);
	}
	ni->last_setattr = off;
	nova_gc_setattr(inode, off, sa, runtime);
}

/*
 * Replay one committed entry of @arg's log while loading the inode
 * (nova_log_walk_raw() callback): validate it, then apply it.
 */
static int nova_replay_entry(struct super_block *sb, u64 off, void *entry,
			     void *arg)
{
	struct inode *inode = arg;
	struct nova_log_entry_header *h = entry;
	const char *why;
	int err;

	nova_update_trans(NOVA_SB(sb), le64_to_cpu(h->e_trans_id));
	/* A snapshot mount stops at its epoch (entries are in epoch order). */
	if (nova_snapshot_hides(NOVA_I(inode), h))
		return 0;
	why = nova_entry_invalid(NOVA_SB(sb), inode->i_ino,
				 inode->i_mode & S_IFMT, entry);
	if (why)
		goto bad;
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		nova_file_apply_write(inode, off, entry, false);
		return 0;
	case NOVA_LOG_DENTRY:
		nova_dir_apply(inode, off, entry, false);
		return 0;
	case NOVA_LOG_SETATTR:
		nova_apply_setattr(inode, off, entry, false);
		return 0;
	case NOVA_LOG_RANGE:
		nova_file_apply_range(inode, off, entry, false, NULL);
		return 0;
	case NOVA_LOG_LINK_CHANGE: {
		struct nova_link_change_entry *lc = entry;

		set_nlink(inode, le32_to_cpu(lc->lc_links));
		nova_set_ctime(inode, nova_ts_from_media(&lc->lc_ctime));
		NOVA_I(inode)->last_link = off;
		return 0;
	}
	case NOVA_LOG_XATTR:
		err = nova_xattr_replay(inode, off, entry);
		if (err == -EFSCORRUPTED)
			nova_err(sb, "inode %lu: bad extended attribute entry at %llu",
				 inode->i_ino, off);
		return err;
	}
	why = "log entry of a kind no inode loads";
bad:
	nova_err(sb, "inode %lu: %s (type %u) at %llu", inode->i_ino, why,
		 h->e_type, off);
	return -EFSCORRUPTED;
}

/*
 * Apply an entry the running system just committed, with the same code as
 * replay (so the two cannot disagree), also freeing what it supersedes.
 * Caller holds the inode's log_lock.
 */
int nova_apply_entry(struct inode *inode, u64 off, void *entry, void *arg)
{
	struct nova_log_entry_header *h = entry;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		nova_file_apply_write(inode, off, entry, true);
		break;
	case NOVA_LOG_DENTRY:
		nova_dir_apply(inode, off, entry, true);
		break;
	case NOVA_LOG_SETATTR:
		nova_apply_setattr(inode, off, entry, true);
		break;
	case NOVA_LOG_RANGE:
		nova_file_apply_range(inode, off, entry, true, arg);
		break;
	case NOVA_LOG_LINK_CHANGE: {
		struct nova_link_change_entry *lc = entry;

		set_nlink(inode, le32_to_cpu(lc->lc_links));
		nova_set_ctime(inode, nova_ts_from_media(&lc->lc_ctime));
		nova_log_invalidate(inode, NOVA_I(inode)->last_link);
		NOVA_I(inode)->last_link = off;
		break;
	}
	}
	return 0;
}

static int nova_count_page(struct super_block *sb, u64 page, void *arg)
{
	NOVA_I(arg)->log_pages++;
	return 0;
}

static void nova_init_ni(struct nova_inode_info *ni)
{
	ni->log_head = 0;
	ni->log_tail = 0;
	ni->log_pages = 0;
	ni->last_setattr = 0;
	ni->last_link = 0;
	ni->last_range = 0;
	ni->attr_flags = 0;
	ni->projid = 0;
	ni->data_pages = 0;
	ni->names = RB_ROOT;
	ni->next_pos = 2;
	ni->nr_entries = 0;
	ni->parent = 0;
	ni->snap_stage = NULL;
	ni->snap_kept = false;
	ni->view_epoch = NOVA_EPOCH_LIVE;
	ni->view_pins = 0;
	INIT_LIST_HEAD(&ni->xattrs);
	ni->xattr_bytes = 0;
	ni->xattr_pending = NULL;
	nova_gc_init_inode(ni);
}

/*
 * Build @inode's DRAM state from slot and log of inode @ino (on media),
 * showing what epoch @epoch shows (NOVA_EPOCH_LIVE: everything). @inode
 * is a live inode (@ino is its i_ino) or a view inode (snapview.c).
 */
int nova_read_inode(struct inode *inode, u64 ino, u64 epoch)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_inode *pi = nova_get_pinode(sb, ino), *src;
	u64 valid;
	u32 flags;
	int err;

	if (!pi)
		return -ESTALE;
	/* A snapshot also shows inodes removed after it was taken. */
	valid = le64_to_cpu(READ_ONCE(pi->i_valid));
	if (valid != 1 &&
	    (valid || !nova_snapshot_shows_inode(sb, ino,
						 le32_to_cpu(pi->i_generation),
						 epoch)))
		return -ESTALE;
	/* Static fields from a good copy; commit words from the primary. */
	if (nova_inode_check(sb, pi, ino, true, &src) == NOVA_SLOT_BAD) {
		nova_err(sb, "inode %llu: bad checksum or inode number", ino);
		return -EFSCORRUPTED;
	}

	nova_init_ni(ni);
	ni->view_epoch = epoch;
	ni->pi_off = nova_off(sbi, pi);
	pi = src;
	inode->i_mode = le16_to_cpu(pi->i_mode);
	i_uid_write(inode, le32_to_cpu(pi->i_uid));
	i_gid_write(inode, le32_to_cpu(pi->i_gid));
	set_nlink(inode, le32_to_cpu(pi->i_nlink));
	inode->i_rdev = new_decode_dev(le32_to_cpu(pi->i_rdev));
	inode->i_size = le64_to_cpu(pi->i_size);
	inode->i_generation = le32_to_cpu(pi->i_generation);
	nova_set_atime(inode, nova_ts_from_media(&pi->i_atime));
	nova_set_mtime(inode, nova_ts_from_media(&pi->i_mtime));
	nova_set_ctime(inode, nova_ts_from_media(&pi->i_ctime));
	ni->crtime = nova_ts_from_media(&pi->i_crtime);
	ni->parent = le64_to_cpu(pi->i_parent);
	flags = le32_to_cpu(pi->i_flags);

	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	case S_IFLNK:
		if (inode->i_size >= PATH_MAX)
			goto bad;
		if (flags & NOVA_INODE_INLINE_SYMLINK) {
			if (inode->i_size >= NOVA_INLINE_SIZE ||
			    pi->i_inline[inode->i_size])
				goto bad;
			inode->i_link = (char *)pi->i_inline;
		} else if (flags & NOVA_INODE_BLOCK_SYMLINK) {
			u64 blk = le64_to_cpu(*(__le64 *)pi->i_inline);
			char *target;

			if (!nova_block_ok(sbi, blk, 1))
				goto bad;
			target = nova_block(sbi, blk);
			if (target[inode->i_size])
				goto bad;
			inode->i_link = target;
			ni->data_pages = 1;
		} else {
			goto bad;
		}
		break;
	default:
		goto bad;
	}
	nova_set_ops(inode);

	nova_pi_resolve_words(sb, nova_pi(inode), ino, false,
			      &ni->log_head, &ni->log_tail);
	if (ni->log_head) {
		err = nova_log_walk_raw(sb, ino, ni->log_head,
					ni->log_tail, nova_replay_entry,
					nova_count_page, inode);
		if (!err)
			err = nova_xattr_replay_done(inode);
		if (err) {
			nova_xattr_free_index(inode);
			if (S_ISREG(inode->i_mode))
				nova_file_free_index(inode);
			else if (S_ISDIR(inode->i_mode))
				nova_dir_free_index(inode);
			return err;
		}
	} else if (ni->log_tail) {
		goto bad;
	}
	/* What quotas charge: data blocks (quota.c). */
	inode_set_bytes(inode, (loff_t)ni->data_pages << NOVA_BLOCK_SHIFT);
	return 0;
bad:
	nova_err(sb, "inode %llu: inconsistent inode (mode %o, flags %x)",
		 ino, inode->i_mode, flags);
	return -EFSCORRUPTED;
}

static struct inode *nova_iget_any(struct super_block *sb, u64 ino)
{
	struct inode *inode;
	int err;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	err = nova_read_inode(inode, ino, NOVA_SB(sb)->view_epoch);
	if (err) {
		iget_failed(inode);
		return ERR_PTR(err);
	}
	unlock_new_inode(inode);
	return inode;
}

struct inode *nova_iget(struct super_block *sb, u64 ino)
{
	if (ino != NOVA_ROOT_INO && ino < NOVA_FIRST_INO)
		return ERR_PTR(-ESTALE);
	if (ino >= NOVA_FIRST_INO && !nova_get_pinode(sb, ino))
		return ERR_PTR(-ESTALE);
	return nova_iget_any(sb, ino);
}

/* A reserved inode the file system itself uses (the quota files). */
struct inode *nova_iget_reserved(struct super_block *sb, u64 ino)
{
	if (!ino || ino >= NOVA_FIRST_INO)
		return ERR_PTR(-ESTALE);
	return nova_iget_any(sb, ino);
}

/*
 * Write a whole slot that is not live (i_valid 0 in @tmp) to the primary,
 * then to its replica; durable on return.
 */
static void nova_write_slot(struct nova_sb_info *sbi, struct nova_inode *pi,
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

/*
 * Create an inode: a free slot is written completely (i_valid still 0)
 * and made durable. The caller publishes it by committing i_valid = 1,
 * normally in one journal transaction with the new directory entry, then
 * calls d_instantiate_new(); on failure it calls nova_discard_inode().
 */
struct inode *nova_new_inode(nova_idmap_t *idmap, struct inode *dir,
			     umode_t mode, dev_t rdev, u64 *trans)
{
	struct super_block *sb = dir->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi, tmp;
	struct nova_inode_info *ni;
	struct inode *inode;
	u64 ino;
	int err;

	/* The slot is written before the directory entry is appended. */
	if (nova_is_shutdown(sb))
		return ERR_PTR(-EIO);
	inode = new_inode(sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	err = nova_alloc_ino(sb, &ino);
	if (err) {
		iput(inode);
		return ERR_PTR(err);
	}
	ni = NOVA_I(inode);
	nova_init_ni(ni);
	pi = nova_get_pinode(sb, ino);
	ni->pi_off = nova_off(sbi, pi);

	inode->i_ino = ino;
	inode_init_owner(idmap, inode, dir, mode);
	inode->i_generation = get_random_u32();
	inode->i_rdev = rdev;
	ni->crtime = current_time(inode);
	nova_set_atime(inode, ni->crtime);
	nova_set_mtime(inode, ni->crtime);
	nova_set_ctime(inode, ni->crtime);
	set_nlink(inode, S_ISDIR(mode) ? 2 : 1);
	if (S_ISDIR(mode))
		ni->parent = dir->i_ino;
	/* Charged below to it; logged by nova_fileattr_inherit(). */
	ni->projid = nova_fileattr_new_projid(dir);
	nova_set_ops(inode);
	*trans = nova_next_trans(sbi);

	memset(&tmp, 0, sizeof(tmp));
	tmp.i_ino = cpu_to_le64(ino);
	tmp.i_generation = cpu_to_le32(inode->i_generation);
	tmp.i_mode = cpu_to_le16(inode->i_mode);
	tmp.i_uid = cpu_to_le32(i_uid_read(inode));
	tmp.i_gid = cpu_to_le32(i_gid_read(inode));
	tmp.i_nlink = cpu_to_le32(inode->i_nlink);
	tmp.i_rdev = cpu_to_le32(new_encode_dev(rdev));
	nova_ts_to_media(&tmp.i_atime, &ni->crtime);
	nova_ts_to_media(&tmp.i_mtime, &ni->crtime);
	nova_ts_to_media(&tmp.i_ctime, &ni->crtime);
	nova_ts_to_media(&tmp.i_crtime, &ni->crtime);
	tmp.i_create_trans = cpu_to_le64(*trans);
	tmp.i_parent = cpu_to_le64(ni->parent);
	tmp.i_csum = cpu_to_le32(nova_inode_csum(&tmp));
	/*
	 * The slot is invalid: nothing reads it until i_valid is committed.
	 * Primary, then replica, both durable before that commit.
	 */
	nova_write_slot(sbi, pi, &tmp);

	err = insert_inode_locked(inode);
	if (err) {
		nova_err(sb, "inode %llu is already in use", ino);
		nova_free_ino(sb, ino);
		ni->pi_off = 0;
		make_bad_inode(inode);
		iput(inode);
		return ERR_PTR(-EFSCORRUPTED);
	}
	/* Quotas (quota.c): the new inode counts against its owner's. */
	err = dquot_initialize(inode);
	if (!err)
		err = dquot_alloc_inode(inode);
	if (err) {
		/* Nothing was charged: eviction has nothing to give back. */
		dquot_drop(inode);
		inode->i_flags |= S_NOQUOTA;
		nova_discard_inode(inode);
		return ERR_PTR(err);
	}
	return inode;
}

/* Rewrite a new, still invalid inode's static part (symlinks). */
void nova_rewrite_new_inode(struct inode *inode, u32 flags, const void *inl,
			    size_t len)
{
	struct nova_inode *pi = nova_pi(inode);
	struct nova_inode tmp = *pi;

	tmp.i_flags = cpu_to_le32(flags);
	tmp.i_size = cpu_to_le64(inode->i_size);
	memcpy(tmp.i_inline, inl, len);
	tmp.i_csum = cpu_to_le32(nova_inode_csum(&tmp));
	nova_write_slot(NOVA_SB(inode->i_sb), pi, &tmp);
}

/* Publish a new inode on its own (O_TMPFILE has no directory entry). */
void nova_commit_new_inode(struct inode *inode)
{
	nova_pi_commit64(NOVA_SB(inode->i_sb), &nova_pi(inode)->i_valid, 1);
}

/* Undo nova_new_inode() for an inode that was never published. */
void nova_discard_inode(struct inode *inode)
{
	clear_nlink(inode);
	discard_new_inode(inode);
}

/* ---- evict, attributes ---- */

void nova_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info *ni = NOVA_I(inode);
	bool dead = !inode->i_nlink && ni->pi_off && !is_bad_inode(inode) &&
		    NOVA_SB(sb)->view_epoch == NOVA_EPOCH_LIVE;
	bool guard = dead;

	if (nova_is_view(inode)) {
		nova_view_evict(inode);
		return;
	}
	truncate_inode_pages_final(&inode->i_data);
	/*
	 * Freeing a dead inode writes PMEM (hints in its log, keep records
	 * in the snapshot log), and the last iput() can come from a task
	 * without freeze protection (close(2) of an unlinked file): wait
	 * for a thaw, as ext4 does. Only for dead inodes, so memory reclaim
	 * never waits on a frozen file system; nova_snap_wrprotect(), which
	 * runs frozen, never drops the last reference of one.
	 */
	if (guard)
		sb_start_intwrite(sb);
	/* Gone from the live file system: its quota charges go (quota.c). */
	if (dead)
		nova_quota_free_inode(inode);
	/*
	 * A dead inode's i_valid is already 0 on media (committed with the
	 * unlink, or never set for O_TMPFILE), so its blocks are unreferenced
	 * and only the DRAM allocator needs to hear about them. One that a
	 * live snapshot shows keeps everything (snapshot.c reclaims it).
	 */
	if (dead && nova_snapshot_evict_inode(inode))
		dead = false;
	if (S_ISREG(inode->i_mode)) {
		if (dead)
			nova_file_drop_pages(inode, 0, true);
		nova_file_free_index(inode);
	} else if (S_ISDIR(inode->i_mode)) {
		nova_dir_free_index(inode);
	} else if (S_ISLNK(inode->i_mode) && dead && ni->data_pages) {
		struct nova_inode *pi = nova_pi(inode);

		nova_free_blocks(sb, le64_to_cpu(*(__le64 *)pi->i_inline), 1,
				 NOVA_BLOCK_DATA);
	}
	nova_xattr_free_index(inode);
	if (dead) {
		nova_log_free(inode);
		nova_free_ino(sb, inode->i_ino);
	}
	dquot_drop(inode);
	clear_inode(inode);
	if (guard)
		sb_end_intwrite(sb);
}

/* A setattr entry restating @inode's attributes, @mask set (not sealed). */
void nova_setattr_entry(struct inode *inode, struct nova_setattr_entry *sa,
			u32 mask, u64 trans)
{
	struct timespec64 atime = nova_get_atime(inode);
	struct timespec64 mtime = nova_get_mtime(inode);
	struct timespec64 ctime = nova_get_ctime(inode);

	memset(sa, 0, sizeof(*sa));
	nova_entry_header(NOVA_SB(inode->i_sb), sa, NOVA_LOG_SETATTR,
			  sizeof(*sa), trans);
	sa->sa_mask = cpu_to_le32(mask);
	sa->sa_mode = cpu_to_le16(inode->i_mode);
	sa->sa_uid = cpu_to_le32(i_uid_read(inode));
	sa->sa_gid = cpu_to_le32(i_gid_read(inode));
	sa->sa_size = cpu_to_le64(inode->i_size);
	nova_ts_to_media(&sa->sa_atime, &atime);
	nova_ts_to_media(&sa->sa_mtime, &mtime);
	nova_ts_to_media(&sa->sa_ctime, &ctime);
	if (mask & NOVA_ATTR_PROJID)
		NOVA_SA_PROJID(sa) = cpu_to_le32(NOVA_I(inode)->projid);
}

struct nova_attr_save {
	umode_t mode;
	kuid_t uid;
	kgid_t gid;
	struct timespec64 atime, mtime, ctime;
};

int nova_setattr(nova_idmap_t *idmap, struct dentry *dentry,
		 struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned int valid = attr->ia_valid;
	struct nova_setattr_entry sa;
	struct nova_attr_save save;
	struct nova_snap_stage st;
	u64 start = nova_op_start(), tail = 0;
	loff_t oldsize = inode->i_size;
	bool transferred = false;
	u32 mask = 0;
	int err;

	err = setattr_prepare(idmap, dentry, attr);
	if (err)
		return err;
	/*
	 * chattr +i, +a (fileattr.c): the VFS refuses mode, owner and set
	 * times; an immutable file takes no change at all, an append-only
	 * one no size change (ftruncate through an open descriptor).
	 */
	if (IS_IMMUTABLE(inode) ||
	    (IS_APPEND(inode) && (valid & ATTR_SIZE)))
		return -EPERM;
	if ((valid & ATTR_SIZE) && !S_ISREG(inode->i_mode))
		return -EINVAL;
	/*
	 * Quotas (quota.c), before any NOVA lock: a new owner or group takes
	 * over the charges (EDQUOT if over its hard limit).
	 */
	if (valid & (ATTR_UID | ATTR_GID | ATTR_SIZE)) {
		err = dquot_initialize(inode);
		if (err)
			return err;
	}
	if (valid & (ATTR_UID | ATTR_GID)) {
		err = dquot_transfer(idmap, inode, attr);
		if (err)
			return err;
		transferred = true;
	}

	if (valid & ATTR_SIZE) {
		/* truncate(2) leaves the times to us; POSIX wants them. */
		if (attr->ia_size != oldsize &&
		    !(valid & (ATTR_MTIME | ATTR_CTIME))) {
			attr->ia_mtime = current_time(inode);
			attr->ia_ctime = attr->ia_mtime;
			attr->ia_valid |= ATTR_MTIME | ATTR_CTIME;
			valid = attr->ia_valid;
		}
		inode_dio_wait(inode);
		filemap_invalidate_lock(inode->i_mapping);
		if (attr->ia_size < oldsize) {
			/* From the new end-of-file page: it is zeroed below. */
			err = nova_break_layouts(inode,
					attr->ia_size & PAGE_MASK, LLONG_MAX);
		} else if (attr->ia_size > oldsize && (oldsize & ~PAGE_MASK)) {
			/* The end-of-file page may be copied on write. */
			err = nova_break_layouts(inode, oldsize & PAGE_MASK,
						 oldsize | ~PAGE_MASK);
		}
		if (err) {
			filemap_invalidate_unlock(inode->i_mapping);
			return err;
		}
	}

	mutex_lock(&ni->log_lock);
	if ((valid & ATTR_SIZE) && attr->ia_size > oldsize) {
		err = nova_zero_eof_tail(inode, oldsize);
		if (err)
			goto out;
	}
	save.mode = inode->i_mode;
	save.uid = inode->i_uid;
	save.gid = inode->i_gid;
	save.atime = nova_get_atime(inode);
	save.mtime = nova_get_mtime(inode);
	save.ctime = nova_get_ctime(inode);
	setattr_copy(idmap, inode, attr);
	if (valid & ATTR_MODE)
		mask |= NOVA_ATTR_MODE;
	if (valid & ATTR_UID)
		mask |= NOVA_ATTR_UID;
	if (valid & ATTR_GID)
		mask |= NOVA_ATTR_GID;
	if (valid & ATTR_ATIME)
		mask |= NOVA_ATTR_ATIME;
	if (valid & ATTR_MTIME)
		mask |= NOVA_ATTR_MTIME;
	if (valid & ATTR_CTIME)
		mask |= NOVA_ATTR_CTIME;
	nova_setattr_entry(inode, &sa, mask, nova_next_trans(NOVA_SB(inode->i_sb)));
	if (valid & ATTR_SIZE) {
		if (attr->ia_size > oldsize)
			mask |= NOVA_ATTR_GROW;
		sa.sa_mask = cpu_to_le32(mask | NOVA_ATTR_SIZE);
		sa.sa_size = cpu_to_le64(attr->ia_size);
	}
	nova_snapshot_stage_init(&st);
	err = nova_log_append(inode, &sa, &tail);
	/* Pages the size change drops that a snapshot shows: keep records. */
	if (!err && (valid & ATTR_SIZE) && !(mask & NOVA_ATTR_GROW))
		err = nova_snapshot_stage_range(inode, &st,
				DIV_ROUND_UP(attr->ia_size, PAGE_SIZE), ULONG_MAX);
	/* Entry and records durable; publish both, then drop pages. */
	if (!err)
		err = nova_snapshot_stage_commit(inode, &st, tail);
	if (err) {
		inode->i_mode = save.mode;
		inode->i_uid = save.uid;
		inode->i_gid = save.gid;
		nova_set_atime(inode, save.atime);
		nova_set_mtime(inode, save.mtime);
		nova_set_ctime(inode, save.ctime);
	} else {
		u64 off = tail - sizeof(sa);

		nova_apply_entry(inode, off, nova_addr(NOVA_SB(inode->i_sb), off),
				 NULL);
		nova_quota_charge(inode);
	}
	nova_snapshot_stage_done(inode, &st);
	/*
	 * Shrunk to the middle of a page: a mapping of that page shows the
	 * bytes past the new end, which must read as zeroes (as on ext4).
	 * The size is durable first, so a crash loses none of the data that
	 * was still in the file. Should this fail (no space to copy a page a
	 * snapshot shows), growing the file zeroes them again and reports.
	 */
	if (!err && (valid & ATTR_SIZE) && attr->ia_size < oldsize)
		nova_zero_eof_tail(inode, attr->ia_size);
out:
	mutex_unlock(&ni->log_lock);
	if (valid & ATTR_SIZE)
		filemap_invalidate_unlock(inode->i_mapping);
	/* Not committed: the charges go back to the old owner and group. */
	if (err && transferred)
		nova_quota_transfer_back(inode);
	/* The access ACL follows the new mode bits (its own commit). */
	if (!err && (valid & ATTR_MODE))
		err = nova_posix_acl_chmod(idmap, dentry, inode->i_mode);
	nova_op_done(inode->i_sb, NOVA_CTL_OP_SETATTR, start);
	return err;
}

int nova_getattr(nova_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	struct nova_inode_info *ni = NOVA_I(inode);

	nova_fillattr(idmap, request_mask, inode, stat);
	nova_fileattr_statx(inode, stat);
	/* Directories have no byte size: report a nominal 32 bytes a name. */
	if (S_ISDIR(inode->i_mode))
		stat->size = (READ_ONCE(ni->nr_entries) + 2) * 32;
	stat->blocks = (u64)(READ_ONCE(ni->data_pages) +
			     READ_ONCE(ni->log_pages)) << (NOVA_BLOCK_SHIFT - 9);
	stat->blksize = NOVA_BLOCK_SIZE;
	stat->result_mask |= STATX_BTIME;
	stat->btime = ni->crtime;
	return 0;
}

/* Timestamp updates (atime on read, mtime/ctime on mmap writes, ...). */
int nova_update_time(struct inode *inode, struct timespec64 *t, int flags)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_setattr_entry sa;
	struct nova_attr_save save;
	u64 tail = 0;
	u32 mask = 0;
	int err;

	mutex_lock(&ni->log_lock);
	save.atime = nova_get_atime(inode);
	save.mtime = nova_get_mtime(inode);
	save.ctime = nova_get_ctime(inode);
	if (flags & S_ATIME) {
		nova_set_atime(inode, *t);
		mask |= NOVA_ATTR_ATIME;
	}
	if (flags & S_MTIME) {
		nova_set_mtime(inode, *t);
		mask |= NOVA_ATTR_MTIME;
	}
	if (flags & S_CTIME) {
		nova_set_ctime(inode, *t);
		mask |= NOVA_ATTR_CTIME;
	}
	if (flags & S_VERSION)
		inode_maybe_inc_iversion(inode, false);
	nova_setattr_entry(inode, &sa, mask, nova_next_trans(NOVA_SB(inode->i_sb)));
	err = nova_log_append(inode, &sa, &tail);
	if (!err) {
		nova_log_commit(inode, tail);
		nova_apply_entry(inode, ni->last_append,
				 nova_addr(NOVA_SB(inode->i_sb), ni->last_append),
				 NULL);
	} else {
		nova_set_atime(inode, save.atime);
		nova_set_mtime(inode, save.mtime);
		nova_set_ctime(inode, save.ctime);
	}
	mutex_unlock(&ni->log_lock);
	return err;
}

/* Build a link change entry for @inode's log (caller commits). */
int nova_link_change_entry(struct inode *inode, unsigned int links,
			   u64 trans, u64 *tail)
{
	struct nova_link_change_entry lc = { };
	struct timespec64 now = current_time(inode);

	nova_entry_header(NOVA_SB(inode->i_sb), &lc, NOVA_LOG_LINK_CHANGE,
			  sizeof(lc), trans);
	lc.lc_links = cpu_to_le32(links);
	nova_ts_to_media(&lc.lc_ctime, &now);
	return nova_log_append(inode, &lc, tail);
}

const struct inode_operations nova_special_inode_operations = {
	.setattr	= nova_setattr,
	.getattr	= nova_getattr,
	.update_time	= nova_vfs_update_time,
	.listxattr	= nova_listxattr,
	NOVA_ACL_IOPS,
};

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: the fixed metadata blocks. Journal pointers (block 2) and
 * their rings, the reserved inodes (block 1), the per-CPU inode table
 * heads (block 3) and every table block of every chain. With inode
 * replicas (1.3) each live slot is compared with its replica, and the log
 * words the inode is checked with are chosen by pick_log_words().
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsck.h"
#include "le.h"
#include "nova_journal.h"

/* ---- the inode set: open addressing on the inode number ---- */

static uint64_t ino_hash(uint64_t ino)
{
	ino ^= ino >> 33;
	ino *= 0xff51afd7ed558ccdULL;
	ino ^= ino >> 33;
	return ino;
}

static struct fsck_inode *ino_slot(struct fsck_inode *tab, uint64_t cap,
				   uint64_t ino)
{
	uint64_t i = ino_hash(ino) & (cap - 1);

	while (tab[i].ino && tab[i].ino != ino)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

struct fsck_inode *fsck_inode_find(struct fsck *f, uint64_t ino)
{
	struct fsck_inode *s;

	if (!ino || !f->cap_inodes)
		return NULL;
	s = ino_slot(f->inodes, f->cap_inodes, ino);
	return s->ino ? s : NULL;
}

struct fsck_inode *fsck_inode_add(struct fsck *f, uint64_t ino)
{
	struct fsck_inode *s;

	if ((f->nr_inodes + 1) * 2 > f->cap_inodes) {
		uint64_t cap = f->cap_inodes ? f->cap_inodes * 2 : 1024, i;
		struct fsck_inode *tab = calloc(cap, sizeof(*tab));

		if (!tab) {
			fsck_oper(f, "out of memory for %llu inodes",
				  (unsigned long long)f->nr_inodes);
			return NULL;
		}
		for (i = 0; i < f->cap_inodes; i++)
			if (f->inodes[i].ino)
				*ino_slot(tab, cap, f->inodes[i].ino) =
					f->inodes[i];
		free(f->inodes);
		f->inodes = tab;
		f->cap_inodes = cap;
	}
	s = ino_slot(f->inodes, f->cap_inodes, ino);
	if (!s->ino) {
		memset(s, 0, sizeof(*s));
		s->ino = ino;
		f->nr_inodes++;
	}
	return s;
}

/* ---- journals ---- */

static void undo_add(struct fsck *f, uint64_t addr, uint64_t old)
{
	unsigned int i;

	/* Newest record first: an older record of the same word wins. */
	for (i = 0; i < f->nr_undo; i++) {
		if (f->undo[i].addr == addr) {
			f->undo[i].old = old;
			return;
		}
	}
	f->undo[f->nr_undo].addr = addr;
	f->undo[f->nr_undo].old = old;
	f->undo[f->nr_undo].raddr = 0;
	f->nr_undo++;
}

/*
 * Journaled words of slot @off get the address of their copy in the
 * slot's replica @roff: a transaction stores its new values in both (the
 * kernel's nova_journal_commit()), so rolling one back restores both.
 */
static void undo_note_replica(struct fsck *f, uint64_t off, uint64_t roff)
{
	unsigned int i;

	if (!roff)
		return;
	for (i = 0; i < f->nr_undo; i++)
		if (f->undo[i].addr >= off &&
		    f->undo[i].addr < off + NOVA_INODE_SIZE)
			f->undo[i].raddr = roff + (f->undo[i].addr - off);
}

static void check_journal(struct fsck *f, unsigned int cpu)
{
	const struct nova_journal_ptr *jp = fsck_ptr(f,
		NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK) + cpu * sizeof(*jp),
		sizeof(*jp));
	uint64_t blk, ring, head, tail, pos;
	unsigned int n = 0;

	if (!nova_jptr_ok(jp, cpu)) {
		fsck_problem(f, "journal %u: bad journal pointer (checksum or CPU number)", cpu);
		return;
	}
	blk = le64(jp->j_block);
	if (!fsck_blocks_ok(f, blk, 1)) {
		fsck_problem(f, "journal %u: block %llu is out of range", cpu,
			     (unsigned long long)blk);
		return;
	}
	fsck_claim(f, blk, 1, BK_JOURNAL, 0, "journal");
	ring = NOVA_OFF(blk);
	head = le64(jp->j_head);
	tail = le64(jp->j_tail);
	if (!nova_jpos_ok(ring, head) || !nova_jpos_ok(ring, tail)) {
		fsck_problem(f, "journal %u: head %llu or tail %llu is outside its ring at %llu",
			     cpu, (unsigned long long)head,
			     (unsigned long long)tail, (unsigned long long)ring);
		return;
	}
	if (head == tail)
		return;

	/* An open transaction: recovery undoes it, newest record first. */
	pos = tail;
	while (pos != head && n < NOVA_JOURNAL_ENTRIES) {
		const struct nova_journal_entry *je;
		uint64_t addr;

		pos = nova_jpos_prev(ring, pos);
		je = fsck_ptr(f, pos, sizeof(*je));
		addr = le64(je->je_addr);
		if (!nova_jrec_ok(je, NOVA_OFF(f->nblocks))) {
			fsck_problem(f, "journal %u: bad record at %llu in an open transaction (the kernel refuses to mount)",
				     cpu, (unsigned long long)pos);
			return;
		}
		undo_add(f, addr, le64(je->je_old));
		n++;
	}
	/* After a crash this is expected; after a clean unmount it is not. */
	if (f->clean)
		fsck_problem_fix(f, REP_JOURNAL, "journal %u: open transaction of %u records on a cleanly unmounted file system",
				 cpu, n);
	else
		fsck_info(f, 0, "journal %u: open transaction of %u records (an interrupted operation; checked as rolled back, as the kernel does at mount)",
			  cpu, n);
}

bool fsck_check_journals(struct fsck *f)
{
	unsigned int cpu;

	f->undo = calloc((size_t)f->cpus * NOVA_JOURNAL_ENTRIES,
			 sizeof(*f->undo));
	if (!f->undo) {
		fsck_oper(f, "out of memory");
		return false;
	}
	for (cpu = 0; cpu < f->cpus; cpu++)
		check_journal(f, cpu);
	return true;
}

/* ---- inodes ---- */

static bool mode_ok(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFCHR:
	case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		return true;
	default:
		return false;
	}
}

static bool slot_good(const struct nova_inode *pi, uint64_t ino)
{
	return le32(pi->i_csum) == nova_inode_csum(pi) &&
	       le64(pi->i_ino) == ino;
}

/* Queue a REP_INODE rewrite of @len bytes at @dst from @src. */
static void copy_add(struct fsck *f, uint64_t dst, uint64_t src, uint32_t len)
{
	if (f->nr_copies == f->cap_copies) {
		unsigned long cap = f->cap_copies ? f->cap_copies * 2 : 64;
		struct fsck_copy *c = realloc(f->copies, cap * sizeof(*c));

		if (!c) {
			fsck_oper(f, "out of memory");
			return;
		}
		f->copies = c;
		f->cap_copies = cap;
	}
	f->copies[f->nr_copies].dst = dst;
	f->copies[f->nr_copies].src = src;
	f->copies[f->nr_copies].len = len;
	f->nr_copies++;
}

/*
 * Format 1.3: compare live slot @off of inode @ino with its replica at
 * @roff, as the kernel reads them (nova_inode_check()): a bad copy next to
 * a good one is repairable from it; the static fields are then read from
 * the good copy. The commit words are compared by check_replica_words().
 * Returns the offset of the copy to read the static fields from.
 */
static uint64_t check_replica(struct fsck *f, uint64_t off, uint64_t roff,
			      uint64_t ino)
{
	const struct nova_inode *pi = fsck_ptr(f, off, sizeof(*pi));
	const struct nova_inode *ri = fsck_ptr(f, roff, sizeof(*ri));
	const uint32_t st = offsetof(struct nova_inode, i_csum);
	bool pg = slot_good(pi, ino), rg = slot_good(ri, ino);
	unsigned long long n = (unsigned long long)ino;

	if (pg && rg && memcmp((const uint8_t *)pi + st,
			       (const uint8_t *)ri + st, NOVA_INODE_SIZE - st)) {
		fsck_problem_fix(f, REP_INODE, "inode %llu: the replica slot differs from the primary (both checksums good)", n);
		copy_add(f, roff + st, off + st, NOVA_INODE_SIZE - st);
	} else if (!pg && rg) {
		fsck_problem_fix(f, REP_INODE, "inode %llu: damaged slot (bad checksum or inode number), its replica is good: repairable", n);
		copy_add(f, off + st, roff + st, NOVA_INODE_SIZE - st);
	} else if (pg && !rg) {
		fsck_problem_fix(f, REP_INODE, "inode %llu: damaged replica slot, the primary is good: repairable", n);
		copy_add(f, roff + st, off + st, NOVA_INODE_SIZE - st);
	}
	return !pg && rg ? roff : off;
}

/* A candidate pair of log words and what its log proves. */
struct log_proof {
	uint64_t head, tail;
	uint64_t max_trans;	/* the newest transaction its log reaches */
	bool whole;		/* the log walks from head to tail */
};

/* The rule is nova_log_words_winner()'s (nova_format.h), as the kernel's. */
static enum nova_words_winner pick_log_words(const struct log_proof *p,
					     const struct log_proof *r)
{
	return nova_log_words_winner(p->whole, p->max_trans,
				     r->whole, r->max_trans);
}

/* What a losing log proves, for a message. */
static const char *proof_str(const struct log_proof *p, char *buf, size_t len)
{
	if (!p->whole)
		return "does not walk to its tail";
	snprintf(buf, len, "reaches transaction %llu",
		 (unsigned long long)p->max_trans);
	return buf;
}

/* Does an open journal transaction record one of @pi's commit words? */
static bool words_journaled(struct fsck *f, const struct nova_inode *pi)
{
	uint64_t old;

	return fsck_journaled(f, &pi->i_valid, &old) ||
	       fsck_journaled(f, &pi->i_log_head, &old) ||
	       fsck_journaled(f, &pi->i_log_tail, &old);
}

/*
 * Format 1.3: the commit words of live slot @off of inode @in and of its
 * replica at @roff. When both copies are valid and their log words
 * differ, pick_log_words() decides. A winning replica means a damaged
 * primary, repairable from the replica, and the inode is checked with the
 * replica's words from here on (its log, the blocks it maps), except
 * after a crash when only the tail differs and the primary's log is whole:
 * both tail stores share one persistence round (the kernel's
 * nova_pi_commit_tail()), so either may be the one that landed. A winning
 * primary means a damaged replica after a clean unmount; after a crash it
 * is what a crash between the two stores leaves, and the kernel's
 * recovery copies the primary's words (no problem). Any other difference
 * (i_valid, neither log whole) is handled as before the rule: the
 * primary's words stand, and must be the replica's after a clean unmount.
 * Words an open journal transaction recorded are left to the journal: it
 * restores the primary's, which recovery then copies to the replica.
 */
static void check_replica_words(struct fsck *f, struct fsck_inode *in,
				uint64_t off, uint64_t roff)
{
	const struct nova_inode *pi = fsck_ptr(f, off, sizeof(*pi));
	const struct nova_inode *ri = fsck_ptr(f, roff, sizeof(*ri));
	const uint32_t st = offsetof(struct nova_inode, i_csum);
	const uint32_t lw = offsetof(struct nova_inode, i_log_head);
	struct log_proof p = { .head = in->head, .tail = in->tail };
	struct log_proof r = { .head = le64(ri->i_log_head),
			       .tail = le64(ri->i_log_tail) };
	unsigned long long n = (unsigned long long)in->ino;
	char buf[64];

	if (!memcmp(pi, ri, st))
		return;
	if (!words_journaled(f, pi) && le64(pi->i_valid) == 1 &&
	    le64(ri->i_valid) == 1) {
		p.whole = fsck_probe_log(f, in->ino, p.head, p.tail,
					 &p.max_trans);
		r.whole = fsck_probe_log(f, in->ino, r.head, r.tail,
					 &r.max_trans);
		switch (pick_log_words(&p, &r)) {
		case NOVA_WORDS_REPLICA:
			if (!f->clean && p.whole && p.head == r.head) {
				fsck_info(f, 1, "inode %llu: the replica's log tail %llu is ahead of the primary's %llu (a crash inside the one persistence round of both tail stores; the kernel's recovery copies it)",
					  n, (unsigned long long)r.tail,
					  (unsigned long long)p.tail);
				in->head = r.head;
				in->tail = r.tail;
				return;
			}
			fsck_problem_fix(f, REP_INODE, "inode %llu: log head/tail %llu/%llu of the primary slot disagree with the replica's %llu/%llu, whose log reaches transaction %llu (the primary's %s): repairable from the replica",
					 n, (unsigned long long)p.head,
					 (unsigned long long)p.tail,
					 (unsigned long long)r.head,
					 (unsigned long long)r.tail,
					 (unsigned long long)r.max_trans,
					 proof_str(&p, buf, sizeof(buf)));
			copy_add(f, off + lw, roff + lw, 2 * sizeof(__le64));
			in->head = r.head;
			in->tail = r.tail;
			return;
		case NOVA_WORDS_PRIMARY:
			if (f->clean) {
				fsck_problem_fix(f, REP_INODE, "inode %llu: the replica's commit words differ from the primary's: log head/tail %llu/%llu of the replica slot, %llu/%llu of the primary, whose log reaches transaction %llu (the replica's %s): repairable from the primary",
						 n, (unsigned long long)r.head,
						 (unsigned long long)r.tail,
						 (unsigned long long)p.head,
						 (unsigned long long)p.tail,
						 (unsigned long long)p.max_trans,
						 proof_str(&r, buf, sizeof(buf)));
				copy_add(f, roff + lw, off + lw,
					 2 * sizeof(__le64));
			} else {
				fsck_info(f, 1, "inode %llu: the replica's log head/tail %llu/%llu lag the primary's %llu/%llu (a crash between the two commits; the kernel's recovery copies them)",
					  n, (unsigned long long)r.head,
					  (unsigned long long)r.tail,
					  (unsigned long long)p.head,
					  (unsigned long long)p.tail);
			}
			return;
		case NOVA_WORDS_NEITHER:
			break;
		}
	}
	if (f->clean) {
		fsck_problem_fix(f, REP_INODE, "inode %llu: the replica's commit words differ from the primary's", n);
		copy_add(f, roff, off, st);
	} else {
		fsck_info(f, 1, "inode %llu: replica commit words lag the primary's (the kernel's recovery copies them)", n);
	}
}

/* The replica of slot @off of table block @blk (replica @rblk), or 0. */
static uint64_t replica_off(uint64_t off, uint64_t blk, uint64_t rblk)
{
	return rblk ? off - NOVA_OFF(blk) + NOVA_OFF(rblk) : 0;
}

/*
 * A slot whose valid word is set: record the inode. Its log is walked
 * later, when every inode is known. @roff: its replica (1.3), or 0.
 */
static void check_inode(struct fsck *f, uint64_t off, uint64_t roff,
			uint64_t ino)
{
	const struct nova_inode *pi = fsck_ptr(f, off, sizeof(*pi));
	uint64_t valid = fsck_word(f, &pi->i_valid), src = off;
	struct fsck_inode *in;

	if (valid == 0)
		return;
	if (valid != 1) {
		fsck_problem(f, "inode %llu: valid word is %llu, not 0 or 1",
			     (unsigned long long)ino,
			     (unsigned long long)valid);
		return;
	}
	in = fsck_inode_add(f, ino);
	if (!in)
		return;
	in->head = fsck_word(f, &pi->i_log_head);
	in->tail = fsck_word(f, &pi->i_log_tail);
	if (roff) {
		src = check_replica(f, off, roff, ino);
		check_replica_words(f, in, off, roff);
	}
	in->pi_off = off;
	if (src != off) {
		in->src_off = src;
		pi = fsck_ptr(f, src, sizeof(*pi));
	}
	if (le64(pi->i_create_trans) > f->max_trans &&
	    le32(pi->i_csum) == nova_inode_csum(pi))
		f->max_trans = le64(pi->i_create_trans);
	in->mode = le16(pi->i_mode);
	in->links = le32(pi->i_nlink);
	in->size = le64(pi->i_size);
	in->parent = le64(pi->i_parent);
	if (le32(pi->i_csum) != nova_inode_csum(pi)) {
		fsck_problem(f, "inode %llu: bad checksum 0x%08x (computed 0x%08x)",
			     (unsigned long long)ino, le32(pi->i_csum),
			     nova_inode_csum(pi));
		in->bad = true;
	} else if (le64(pi->i_ino) != ino) {
		fsck_problem(f, "inode %llu: slot holds inode number %llu",
			     (unsigned long long)ino,
			     (unsigned long long)le64(pi->i_ino));
		in->bad = true;
	} else if (!mode_ok(in->mode)) {
		fsck_problem(f, "inode %llu: bad mode 0%o",
			     (unsigned long long)ino, in->mode);
		in->bad = true;
	}
}

static void check_reserved(struct fsck *f)
{
	uint64_t base = NOVA_OFF(NOVA_RESERVED_INODE_BLOCK), ino;
	uint64_t rbase = f->layout.meta_replica ?
			 NOVA_OFF(f->layout.meta_replica) : 0;
	struct fsck_inode *root;

	const struct nova_inode *ai = fsck_ptr(f, base + NOVA_ALLOC_INO *
					       NOVA_INODE_SIZE, NOVA_INODE_SIZE);

	for (ino = NOVA_ROOT_INO; ino < NOVA_RESERVED_INODES; ino++) {
		undo_note_replica(f, base + ino * NOVA_INODE_SIZE,
				  rbase ? rbase + ino * NOVA_INODE_SIZE : 0);
		if (ino == NOVA_ALLOC_INO)
			continue;	/* fsck_space.c reads its log */
		check_inode(f, base + ino * NOVA_INODE_SIZE,
			    rbase ? rbase + ino * NOVA_INODE_SIZE : 0, ino);
	}
	/* Only its log is used; its static part should still be intact. */
	if (le64(ai->i_valid) == 1 &&
	    (le32(ai->i_csum) != nova_inode_csum(ai) ||
	     le64(ai->i_ino) != NOVA_ALLOC_INO))
		fsck_problem(f, "allocator-state inode %u: bad checksum or inode number",
			     NOVA_ALLOC_INO);
	if (!fsck_inode_find(f, NOVA_SNAPSHOT_INO))
		fsck_problem(f, "snapshot inode %u is not in use (the kernel refuses to mount)",
			     NOVA_SNAPSHOT_INO);
	/*
	 * 1.7: the quota files are regular files, and only with the quota
	 * feature (which may be set before they are created); the project
	 * quota file (1.8) with the project id feature too.
	 */
	for (ino = NOVA_USR_QUOTA_INO; ino <= NOVA_PRJ_QUOTA_INO; ino++) {
		const struct fsck_inode *q = fsck_inode_find(f, ino);

		if (q && !(le32(f->sb.s_feature_incompat) & NOVA_FEATURE_QUOTA))
			fsck_problem(f, "quota inode %llu is in use without the quota feature",
				     (unsigned long long)ino);
		else if (q && ino == NOVA_PRJ_QUOTA_INO &&
			 !(le32(f->sb.s_feature_incompat) & NOVA_FEATURE_PROJID))
			fsck_problem(f, "project quota inode %llu is in use without the project id feature (format 1.8)",
				     (unsigned long long)ino);
		else if (q && !q->bad && !S_ISREG(q->mode))
			fsck_problem(f, "quota inode %llu is not a regular file (mode 0%o)",
				     (unsigned long long)ino, q->mode);
	}
	root = fsck_inode_find(f, NOVA_ROOT_INO);
	if (!root)
		fsck_problem(f, "root directory (inode %u) is not in use",
			     NOVA_ROOT_INO);
	else if (!root->bad && !S_ISDIR(root->mode))
		fsck_problem(f, "root inode %u is not a directory (mode 0%o)",
			     NOVA_ROOT_INO, root->mode);
}

/*
 * Format 1.3: the replica of table block @blk, named by its tail @itt,
 * whose own tail names @blk back. Claimed as table blocks. Returns its
 * block number, 0 if there is none (or it is unusable: reported).
 */
static uint64_t check_table_replica(struct fsck *f, unsigned int cpu,
				    uint64_t blk,
				    const struct nova_inode_table_tail *itt)
{
	uint64_t rblk = le64(itt->itt_replica);
	const struct nova_inode_table_tail *r;

	if (!(le32(f->sb.s_feature_incompat) & NOVA_FEATURE_META_REPLICA)) {
		if (rblk)
			fsck_problem(f, "inode table %u: block %llu names a replica without the replica feature",
				     cpu, (unsigned long long)blk);
		return 0;
	}
	if (!fsck_blocks_ok(f, rblk, NOVA_INODE_TABLE_BLOCKS)) {
		fsck_problem(f, "inode table %u: replica %llu of block %llu is out of range (the kernel refuses to mount)",
			     cpu, (unsigned long long)rblk,
			     (unsigned long long)blk);
		return 0;
	}
	r = fsck_ptr(f, NOVA_OFF(rblk) + NOVA_ITT_OFF, sizeof(*r));
	if (le32(r->itt_csum) != nova_itt_csum(r) ||
	    r->itt_cpu != itt->itt_cpu || r->itt_index != itt->itt_index ||
	    le64(r->itt_replica) != blk || r->itt_next) {
		fsck_problem(f, "inode table %u: bad tail of replica block %llu of block %llu (the kernel refuses to mount)",
			     cpu, (unsigned long long)rblk,
			     (unsigned long long)blk);
		return 0;
	}
	if (!fsck_claim(f, rblk, NOVA_INODE_TABLE_BLOCKS, BK_TABLE, 0,
			"inode table replica"))
		return 0;
	f->table_blocks += NOVA_INODE_TABLE_BLOCKS;
	return rblk;
}

static void check_chain(struct fsck *f, unsigned int cpu)
{
	const struct nova_inode_table *it = fsck_ptr(f,
		NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK) + cpu * sizeof(*it),
		sizeof(*it));
	uint64_t blk, rblk, pos, max = f->nblocks / NOVA_INODE_TABLE_BLOCKS + 1;
	unsigned int slot;

	if (le32(it->it_csum) != nova_it_csum(it) || le32(it->it_cpu) != cpu) {
		fsck_problem(f, "inode table %u: bad table head (checksum or CPU number)", cpu);
		return;
	}
	blk = le64(it->it_head);
	for (pos = 0; blk; pos++) {
		const struct nova_inode_table_tail *itt;
		uint64_t base = NOVA_OFF(blk);

		if (pos >= max) {
			fsck_problem(f, "inode table %u: chain longer than the device allows (a loop)", cpu);
			return;
		}
		if (!fsck_blocks_ok(f, blk, NOVA_INODE_TABLE_BLOCKS)) {
			fsck_problem(f, "inode table %u: block %llu of the chain is out of range",
				     cpu, (unsigned long long)blk);
			return;
		}
		if (!fsck_claim(f, blk, NOVA_INODE_TABLE_BLOCKS, BK_TABLE, 0,
				"inode table")) {
			fsck_problem(f, "inode table %u: chain stops at block %llu, which is used elsewhere",
				     cpu, (unsigned long long)blk);
			return;
		}
		f->table_blocks += NOVA_INODE_TABLE_BLOCKS;
		itt = fsck_ptr(f, base + NOVA_ITT_OFF, sizeof(*itt));
		if (le32(itt->itt_csum) != nova_itt_csum(itt) ||
		    le32(itt->itt_cpu) != cpu || le64(itt->itt_index) != pos) {
			fsck_problem(f, "inode table %u: bad tail of table block %llu (position %llu)",
				     cpu, (unsigned long long)blk,
				     (unsigned long long)pos);
			return;
		}
		rblk = check_table_replica(f, cpu, blk, itt);
		for (slot = 0; slot < NOVA_INODES_PER_TABLE; slot++) {
			uint64_t off = base + nova_slot_off(slot);
			uint64_t roff = replica_off(off, blk, rblk);

			undo_note_replica(f, off, roff);
			check_inode(f, off, roff,
				    nova_ino_of(cpu, pos, slot, f->cpus));
		}
		blk = fsck_word(f, &itt->itt_next);
	}
}

/* Offset of inode @ino's slot (>= NOVA_FIRST_INO), 0 if not in a table. */
uint64_t fsck_slot_off(struct fsck *f, uint64_t ino)
{
	const struct nova_inode_table *it;
	const struct nova_inode_table_tail *itt;
	struct nova_ino_loc loc;
	uint64_t blk, pos;

	if (ino < NOVA_FIRST_INO || !f->cpus)
		return 0;
	nova_ino_locate(ino, f->cpus, &loc);
	it = fsck_ptr(f, NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK) +
		      loc.cpu * sizeof(*it), sizeof(*it));
	blk = le64(it->it_head);
	for (pos = 0; blk && pos < loc.table; pos++) {
		if (pos > f->nblocks / NOVA_INODE_TABLE_BLOCKS ||
		    !fsck_blocks_ok(f, blk, NOVA_INODE_TABLE_BLOCKS))
			return 0;
		itt = fsck_ptr(f, NOVA_OFF(blk) + NOVA_ITT_OFF, sizeof(*itt));
		blk = fsck_word(f, &itt->itt_next);
	}
	if (!blk || !fsck_blocks_ok(f, blk, NOVA_INODE_TABLE_BLOCKS))
		return 0;
	return NOVA_OFF(blk) + nova_slot_off(loc.slot);
}

bool fsck_check_tables(struct fsck *f)
{
	unsigned int cpu;

	check_reserved(f);
	for (cpu = 0; cpu < f->cpus && !f->operational; cpu++)
		check_chain(f, cpu);
	fsck_info(f, 1, "inode tables: %llu blocks, %llu inodes in use",
		  (unsigned long long)f->table_blocks,
		  (unsigned long long)f->nr_inodes);
	return !f->operational;
}

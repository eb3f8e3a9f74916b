// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: crash recovery from the allocation bitmap (format 1.9,
 * NOVA_FEATURE_ALLOC_BITMAP; abitmap.c keeps it).
 *
 * The bitmap's clear bits are free space (a bit is set before anything
 * references its block and cleared only after nothing does), so after
 * the journals are rolled back the mount needs no log of any inode:
 *
 *  1. Every word of the bitmap is checked; one damaged word, a list of
 *     files mapped writable that overflowed, or -o recovery=scan, and the
 *     scan of every inode (recovery.c) runs instead.
 *  2. The clear bits of the allocator's range become its free ranges.
 *  3. One pass over the inode tables: a slot whose commit words differ
 *     from its replica's is resolved as the scan would
 *     (nova_rec_slot_words()); a live slot is marked in its stripe's
 *     free-inode IDA; and its creation transaction is noted. Removed
 *     inodes a snapshot keeps are marked too.
 *  4. The next transaction id starts above every snapshot record and
 *     every inode's creation, the only transaction ids compared across
 *     inodes (snapshot.c, snapdiff.c); within one log, nova_iget() raises
 *     the counter past the newest entry before anything is appended.
 *  5. Files on the list of files mapped writable are re-protected.
 *
 * What the bitmap cannot tell is a block whose bit an operation set
 * before the crash cut it short: in use, referenced by nothing. Such
 * leaks are bounded by the operations that were in flight; the space
 * check (nova_recover_space_check()), run before the next clean unmount,
 * remount read-only or freeze saves the allocator, scans every inode
 * once and frees them, and makes the block counters exact. Until then
 * the counters are those of the last clean unmount, adjusted to the
 * free space (statfs needs only the free count, which is exact), and a
 * crash before the check just leaves more for the next one.
 *
 * Locking: none; nothing else runs on the file system until the mount
 * returns (as for recovery.c).
 */
#include "abitmap.h"
#include "nova.h"
#include "pmem.h"
#include "protect.h"
#include "recovery.h"

struct nova_fast {
	struct super_block *sb;
	bool any_mapped;		/* nova_prot_any_mapped() */
	u64 inodes;
	u64 max_trans;
};

/* Why the bitmap cannot be used, or NULL if it can. */
static const char *nova_fast_refused(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!sbi->layout.bitmap_blocks)
		return "";
	if (sbi->recovery_scan)
		return "recovery=scan";
	if (nova_prot_mapped_overflow(sb))
		return "the list of files mapped writable overflowed";
	/* The scan counts them and rewrites the bitmap. */
	if (nova_abm_count_damaged(sbi))
		return "the allocation bitmap is damaged";
	return NULL;
}

/* A live (or snapshot-kept) inode: its slot in use, its creation noted. */
static int nova_fast_inode(struct nova_fast *fr, struct nova_inode *pi,
			   u64 ino)
{
	int err = 0;

	fr->inodes++;
	fr->max_trans = max(fr->max_trans, le64_to_cpu(pi->i_create_trans));
	if (fr->any_mapped && nova_prot_was_mapped(fr->sb, ino))
		err = nova_rec_reprotect_file(fr->sb, pi, ino);
	return err;
}

/* One slot of a table block (@r: its replica, or NULL). */
static int nova_fast_slot(struct nova_fast *fr, unsigned int cpu,
			  unsigned int idx, struct nova_inode *pi,
			  const struct nova_inode *r)
{
	struct super_block *sb = fr->sb;
	u64 ino = nova_ino_make(NOVA_SB(sb)->cpus, cpu, idx);
	u64 valid;
	int err;

	/* i_valid, i_log_head and i_log_tail: resolved only if they differ. */
	if (r && memcmp(pi, r, offsetof(struct nova_inode, i_csum)))
		nova_rec_slot_words(sb, pi, ino);
	valid = le64_to_cpu(READ_ONCE(pi->i_valid));
	if (!valid)
		return 0;
	if (valid > 1) {
		nova_err(sb, "recovery: inode %llu: bad valid word %llu", ino,
			 valid);
		return -EFSCORRUPTED;
	}
	err = nova_imap_mark_used(sb, cpu, idx);
	return err ?: nova_fast_inode(fr, pi, ino);
}

/* Every slot of every stripe. */
static int nova_fast_tables(struct nova_fast *fr)
{
	struct nova_sb_info *sbi = NOVA_SB(fr->sb);
	unsigned int cpu, n, s;
	int err;

	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		struct nova_inode_map *m = &sbi->imaps[cpu];

		for (n = 0; n < m->nr_blocks; n++) {
			struct nova_inode *pi = nova_block(sbi, m->blocks[n]);
			struct nova_inode *r = m->rblocks ?
				nova_block(sbi, m->rblocks[n]) : NULL;

			for (s = 0; s < NOVA_INODES_PER_TABLE; s++) {
				err = nova_fast_slot(fr, cpu,
						     n * NOVA_INODES_PER_TABLE + s,
						     &pi[s], r ? &r[s] : NULL);
				if (err)
					return err;
			}
			cond_resched();
		}
	}
	return 0;
}

/* The reserved inodes: the root and the others in use. */
static int nova_fast_reserved(struct nova_fast *fr)
{
	struct nova_sb_info *sbi = NOVA_SB(fr->sb);
	struct nova_inode *pi = nova_block(sbi, NOVA_RESERVED_INODE_BLOCK);
	u64 ino;
	int err;

	nova_pi_sync_words(sbi, &pi[0]);	/* unused slot 0, kept equal */
	for (ino = NOVA_ROOT_INO; ino < NOVA_RESERVED_INODES; ino++) {
		if (ino == NOVA_ALLOC_INO) {	/* state of a clean unmount */
			nova_pi_sync_words(sbi, &pi[ino]);
			continue;
		}
		nova_rec_slot_words(fr->sb, &pi[ino], ino);
		if (le64_to_cpu(READ_ONCE(pi[ino].i_valid)) != 1)
			continue;
		err = nova_fast_inode(fr, &pi[ino], ino);
		if (err)
			return err;
	}
	return 0;
}

static int nova_fast_kept(struct super_block *sb, struct nova_inode *pi,
			  u64 ino, void *arg)
{
	int err = nova_imap_mark_ino(sb, ino);

	return err ?: nova_fast_inode(arg, pi, ino);
}

/*
 * Provisional counters until the space check: the last clean unmount's
 * log and data page counts, the rest of what is not free as metadata.
 */
static void nova_fast_counters(struct nova_sb_info *sbi)
{
	long used = sbi->managed - nova_count_free(sbi->sb);
	long logp = le64_to_cpu(sbi->dsb.s_log_pages);
	long datap = le64_to_cpu(sbi->dsb.s_data_pages);

	if (logp < 0 || datap < 0 || logp + datap > used)
		logp = datap = 0;
	atomic_long_set(&sbi->log_pages, logp);
	atomic_long_set(&sbi->data_pages, datap);
	atomic_long_set(&sbi->meta_blocks, used - logp - datap);
}

/*
 * Recover from the bitmap (nova_recover(), after the journal rollback and
 * the inode tables' chains are loaded). -EAGAIN: the bitmap cannot be
 * used and the allocator is untouched; the caller scans every inode.
 */
int nova_recover_fast(struct super_block *sb, u64 start_ns)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_fast fr = { .sb = sb };
	const char *why = nova_fast_refused(sb);
	u64 trans;
	int err;

	if (why) {
		if (*why)
			nova_info(sb, "recovery: scanning every inode (%s)",
				  why);
		return -EAGAIN;
	}
	fr.any_mapped = nova_prot_any_mapped(sb);
	err = nova_abm_load_free(sbi);
	if (!err)
		err = nova_fast_reserved(&fr);
	if (!err)
		err = nova_fast_tables(&fr);
	/* The replicas' commit words, synchronised above, are durable. */
	nova_pmem_fence();
	if (!err)
		err = nova_snapshot_mark_inodes(sb, nova_fast_kept, &fr);
	if (err)
		return err;

	trans = max3(fr.max_trans, nova_snapshot_max_trans(sb),
		     le64_to_cpu(sbi->dsb.s_trans_id));
	atomic64_set(&sbi->trans_id, trans);
	nova_fast_counters(sbi);
	sbi->space_check = true;
	nova_info(sb, "recovered in %llu ms from the allocation bitmap: %llu inodes, %lu free blocks; space check at the next clean unmount",
		  div_u64(ktime_get_ns() - start_ns, NSEC_PER_MSEC), fr.inodes,
		  nova_count_free(sb));
	return 0;
}

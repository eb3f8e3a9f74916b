// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: crash recovery.
 *
 * A clean unmount saves the allocator in the log of NOVA_ALLOC_INO; after
 * a crash that state is missing or stale and is rebuilt from what is live
 * on media:
 *
 *  1. The lite journals are rolled back (nova_recover_journals(), before
 *     nova_snapshot_load() reads the snapshot log's tail), so every
 *     multi-inode operation is either complete or absent.
 *  2. The inode table chains are loaded (nova_inode_tables_load() without
 *     the slot scan) and every stripe's slots are scanned by one of a few
 *     scan threads: the mounting task plus up to min(stripes, online CPUs)
 *     - 1 kthreads, which take stripes from a shared counter until none is
 *     left and are joined before the mount goes on. The stripe count is a
 *     property of the media (s_cpus), so this works with any number of
 *     CPUs, including one.
 *  3. For each live inode (i_valid == 1) a thread marks its slot in the
 *     stripe's free-inode IDA and claims, in one bitmap of the whole
 *     device, every page of its log chain (including pages linked past the
 *     tail page) with its mirror (1.4) and, for regular files, the data blocks that the
 *     committed write entries still map after later writes and truncations
 *     have been applied; for block symlinks the target block. Directory and
 *     other logs need only their chain (their entries are checked and read
 *     for transaction ids). The DRAM indexes are not built: nova_iget()
 *     still does that on first use.
 *     Data blocks that only live snapshots still use are claimed from
 *     the lists nova_snapshot_load() rebuilt from the snapshot log, and
 *     removed inodes a live snapshot keeps (i_valid 0) have their slot
 *     marked and are claimed as live ones are (after the journal
 *     rollback, which decides whether their removal committed).
 *  4. The blocks nobody claimed become the free ranges of the per-CPU
 *     allocator; the block counters and the next transaction id follow from
 *     the scan.
 *
 * With the allocation bitmap (format 1.9) a mount after a crash normally
 * takes recovery_fast.c's way instead of steps 2-4, and the same scan
 * runs later, without its writes, as the space check that frees what the
 * crash left allocated (nova_recover_space_check()).
 *
 * The work is proportional to live metadata: table blocks, live inodes,
 * their log pages and mapped data pages. The only per-device cost is the
 * bitmap itself (one bit per 4 KiB block, 32 KiB per GiB), cleared and
 * searched a word at a time. Per inode nothing is allocated but the
 * xarray nodes of a regular file's pages: each scan thread walks every
 * log with one walker (nova_walker_new(), whose buffers a fresh kmalloc
 * per walk would also zero), and the list of files mapped writable
 * (NOVA_MMAP_SLOTS words) is searched per file only if it is not empty.
 *
 * A block claimed twice, a broken log chain, a bad checksum or an
 * out-of-range pointer stops the scan: handing out a block that a live
 * inode still references would corrupt it silently, and skipping an inode
 * would not make it unreachable. A read-write mount is refused (run
 * fsck.NOVA); a read-only mount goes on without an allocator, as nothing
 * is allocated then.
 *
 * Recovery only reads PMEM, apart from the journal rollback (journal.c
 * orders its stores), the checksums and parity of files that were
 * mapped writable (protect.c) and, with inode replicas (1.3), the
 * replicas' commit words, set to the primary's (which win: they are
 * stored first), and damaged primary slots rewritten from a good replica
 * (inode_slot.c); with log mirrors (1.4), the walk (log.c) likewise sets a
 * mirror's lt_next to its primary's and rewrites a damaged copy of a log
 * entry or page tail from the good one; nothing it rebuilds is written back: the next
 * clean unmount saves the rebuilt allocator as usual.
 *
 * Locking: the scan threads take no NOVA locks. Each stripe (its
 * nova_inode_map) is touched by exactly one thread; the block bitmap is
 * shared and changed only with atomic bitops; the IDA locks internally.
 * Nothing else runs on the file system until nova_recover() returns.
 */
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "abitmap.h"
#include "nova.h"
#include "xattr.h"
#include "pmem.h"
#include "protect.h"
#include "recovery.h"

/* State shared by the scan threads of one recovery. */
struct nova_rec {
	struct super_block *sb;
	unsigned long *used;		/* one bit per block: claimed, or NULL */
	atomic_t next_stripe;		/* next stripe to scan */
	bool crash;			/* recovery, not the space check */
	bool any_mapped;		/* nova_prot_any_mapped() */
	bool abort;			/* a thread failed: stop early */
};

/* One scan thread and what it found. */
struct nova_rec_thread {
	struct nova_rec *rec;
	struct task_struct *task;	/* NULL: the mounting task */
	struct completion done;
	int err;
	struct xarray pages;		/* file being scanned: pgoff -> block */
	struct nova_walk *walker;	/* buffers of this thread's log walks */
	u64 ino;			/* inode being scanned */
	umode_t mode;
	u64 inodes;
	u64 log_pages;
	u64 data_pages;
	u64 table_blocks;
	u64 max_trans;
};

/*
 * Claim @n blocks from @blk for the inode being scanned (t->ino, 0 for
 * tables and journals). A block claimed twice is corruption. Without a
 * bitmap (nova_rec_reprotect_file()) only the range is checked.
 */
static int nova_rec_claim(struct nova_rec_thread *t, unsigned long blk,
			  unsigned long n, const char *what)
{
	struct super_block *sb = t->rec->sb;
	unsigned long i;

	if (!nova_block_ok(NOVA_SB(sb), blk, n)) {
		nova_err(sb, "recovery: %s blocks %lu+%lu (inode %llu) are outside the device",
			 what, blk, n, t->ino);
		return -EFSCORRUPTED;
	}
	for (i = 0; t->rec->used && i < n; i++) {
		if (test_and_set_bit(blk + i, t->rec->used)) {
			nova_err(sb, "recovery: block %lu (%s, inode %llu) is used twice",
				 blk + i, what, t->ino);
			return -EFSCORRUPTED;
		}
	}
	return 0;
}

/*
 * A page of a log (the walk has checked its tail and, in a mirrored log,
 * its mirror's, rewriting a bad one from the other): the page and its
 * mirror.
 */
static int nova_rec_log_page(struct super_block *sb, u64 page, void *arg)
{
	struct nova_rec_thread *t = arg;
	u64 m = nova_log_mirror(NOVA_SB(sb), page);
	int err;

	err = nova_rec_claim(t, page >> NOVA_BLOCK_SHIFT, 1, "log page");
	if (!err)
		t->log_pages++;
	if (!err && m) {
		err = nova_rec_claim(t, m >> NOVA_BLOCK_SHIFT, 1,
				     "log page mirror");
		if (!err)
			t->log_pages++;
	}
	return err;
}

/* A committed write entry: its pages replace what the file had there. */
static int nova_rec_write(struct nova_rec_thread *t,
			  struct nova_file_write_entry *fw)
{
	u64 pgoff = le64_to_cpu(fw->fw_pgoff);
	u64 blk = le64_to_cpu(fw->fw_block);
	u32 i, n = le32_to_cpu(fw->fw_num_pages);

	for (i = 0; i < n; i++) {
		void *old = xa_store(&t->pages, pgoff + i,
				     xa_mk_value(blk + i), GFP_KERNEL);

		if (xa_is_err(old))
			return xa_err(old);
	}
	return 0;
}

/* A size change: pages at and past the new end of file are dropped. */
static void nova_rec_truncate(struct nova_rec_thread *t, u64 size)
{
	unsigned long idx;
	void *v;

	xa_for_each_start(&t->pages, idx, v, DIV_ROUND_UP(size, PAGE_SIZE))
		xa_erase(&t->pages, idx);
}

/*
 * One committed log entry. nova_entry_invalid() is the rule nova_iget()
 * applies too, so recovery accepts exactly the logs iget can read.
 */
static int nova_rec_entry(struct super_block *sb, u64 off, void *entry,
			  void *arg)
{
	struct nova_rec_thread *t = arg;
	struct nova_log_entry_header *h = entry;
	const char *why;

	t->max_trans = max(t->max_trans, le64_to_cpu(h->e_trans_id));
	why = nova_entry_invalid(NOVA_SB(sb), t->ino, t->mode & S_IFMT, entry);
	if (why) {
		nova_err(sb, "recovery: inode %llu: %s (type %u) at %llu",
			 t->ino, why, h->e_type, off);
		return -EFSCORRUPTED;
	}
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		return nova_rec_write(t, entry);
	case NOVA_LOG_SETATTR: {
		struct nova_setattr_entry *sa = entry;

		if ((t->mode & S_IFMT) == S_IFREG &&
		    (le32_to_cpu(sa->sa_mask) & (NOVA_ATTR_SIZE | NOVA_ATTR_GROW)) ==
		    NOVA_ATTR_SIZE)
			nova_rec_truncate(t, le64_to_cpu(sa->sa_size));
		return 0;
	}
	case NOVA_LOG_RANGE: {
		unsigned long idx;
		u64 from, to;
		void *v;

		/* As nova_file_apply_range(): its pages are dropped. */
		nova_range_entry_drop(entry, &from, &to);
		if (to > from)
			xa_for_each_range(&t->pages, idx, v, from, to - 1)
				xa_erase(&t->pages, idx);
		return 0;
	}
	}
	return 0;
}

/* Claim the data blocks a regular file maps once its log is replayed. */
static int nova_rec_file_pages(struct nova_rec_thread *t)
{
	unsigned long idx, run = 0, len = 0;
	int err = 0;
	void *v;

	xa_for_each(&t->pages, idx, v) {
		unsigned long blk = xa_to_value(v);

		if (len && blk == run + len) {
			len++;
			continue;
		}
		if (len) {
			err = nova_rec_claim(t, run, len, "data");
			if (err)
				goto out;
			t->data_pages += len;
		}
		run = blk;
		len = 1;
	}
	if (len) {
		err = nova_rec_claim(t, run, len, "data");
		if (!err)
			t->data_pages += len;
	}
out:
	xa_destroy(&t->pages);
	return err;
}

/*
 * The file was mapped writable when the file system went down: its
 * checksums and parity may be stale. Recompute them from the data its log
 * maps (protect.c); durable before the list is cleared (nova_recover()).
 */
static void nova_rec_reprotect(struct nova_rec_thread *t)
{
	unsigned long idx;
	void *v;

	xa_for_each(&t->pages, idx, v)
		nova_protect_block(t->rec->sb, xa_to_value(v));
	nova_pmem_fence();
}

/* Claim everything live inode @ino at @pi references. */
static int nova_rec_inode(struct nova_rec_thread *t, struct nova_inode *pi,
			  u64 ino)
{
	struct super_block *sb = t->rec->sb;
	u64 head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	u64 tail = le64_to_cpu(READ_ONCE(pi->i_log_tail));
	int err = 0;

	t->ino = ino;
	/* A bad primary is rewritten from a good replica (commit words kept). */
	if (nova_inode_check(sb, pi, ino, true, &pi) == NOVA_SLOT_BAD) {
		nova_err(sb, "recovery: inode %llu: bad checksum or inode number",
			 ino);
		return -EFSCORRUPTED;
	}
	t->mode = le16_to_cpu(pi->i_mode);
	t->max_trans = max(t->max_trans, le64_to_cpu(pi->i_create_trans));
	t->inodes++;

	if (head) {
		err = nova_log_walk_with(t->walker, sb, ino, head, tail,
					 nova_rec_entry, nova_rec_log_page, t,
					 0);
	} else if (tail) {
		nova_err(sb, "recovery: inode %llu: log tail without a log",
			 ino);
		err = -EFSCORRUPTED;
	}
	if (S_ISREG(t->mode)) {
		if (!err && t->rec->crash && t->rec->any_mapped &&
		    nova_prot_was_mapped(sb, ino))
			nova_rec_reprotect(t);
		if (err)
			xa_destroy(&t->pages);
		else
			err = nova_rec_file_pages(t);
	}
	if (!err && S_ISLNK(t->mode) &&
	    (le32_to_cpu(pi->i_flags) & NOVA_INODE_BLOCK_SYMLINK)) {
		err = nova_rec_claim(t, le64_to_cpu(*(__le64 *)pi->i_inline),
				     1, "symlink target");
		if (!err)
			t->data_pages++;
	}
	return err;
}

/* Read a slot's i_valid word: 1 live, 0 free, anything else is damage. */
static int nova_rec_valid(struct nova_rec_thread *t, struct nova_inode *pi,
			  u64 ino)
{
	u64 valid = le64_to_cpu(READ_ONCE(pi->i_valid));

	if (valid > 1) {
		nova_err(t->rec->sb, "recovery: inode %llu: bad valid word %llu",
			 ino, valid);
		return -EFSCORRUPTED;
	}
	return valid;
}

/*
 * A slot's commit words after the crash: the log words of the copy whose
 * log proves newer (nova_pi_resolve_words()), then the replica made equal
 * to the primary. Durable at the caller's next fence.
 */
void nova_rec_slot_words(struct super_block *sb, struct nova_inode *pi,
			 u64 ino)
{
	u64 head, tail;

	nova_pi_resolve_words(sb, pi, ino, true, &head, &tail);
	nova_pi_sync_words(NOVA_SB(sb), pi);
}

/* Only after a crash: the space check leaves a live slot's words alone. */
static void nova_rec_words(struct nova_rec_thread *t, struct nova_inode *pi,
			   u64 ino)
{
	if (t->rec->crash)
		nova_rec_slot_words(t->rec->sb, pi, ino);
}

/* The root directory and the other reserved inodes that are in use. */
static int nova_rec_reserved(struct nova_rec_thread *t)
{
	struct nova_sb_info *sbi = NOVA_SB(t->rec->sb);
	struct nova_inode *pi = nova_block(sbi, NOVA_RESERVED_INODE_BLOCK);
	u64 ino;
	int err;

	if (t->rec->crash)	/* unused slot 0, kept equal */
		nova_pi_sync_words(sbi, &pi[0]);
	for (ino = NOVA_ROOT_INO; ino < NOVA_RESERVED_INODES; ino++) {
		/* The allocator state is what is being rebuilt: ignore it. */
		if (ino == NOVA_ALLOC_INO) {
			if (t->rec->crash)
				nova_pi_sync_words(sbi, &pi[ino]);
			continue;
		}
		nova_rec_words(t, &pi[ino], ino);
		err = nova_rec_valid(t, &pi[ino], ino);
		if (err > 0)
			err = nova_rec_inode(t, &pi[ino], ino);
		if (err)
			return err;
	}
	return 0;
}

/* One stripe: its table blocks, its slots, its live inodes. */
static int nova_rec_stripe(struct nova_rec_thread *t, unsigned int cpu)
{
	struct nova_rec *rec = t->rec;
	struct super_block *sb = rec->sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_map *m = &sbi->imaps[cpu];
	unsigned int n, s;
	int err;

	for (n = 0; n < m->nr_blocks; n++) {
		struct nova_inode *pi = nova_block(sbi, m->blocks[n]);

		t->ino = 0;
		err = nova_rec_claim(t, m->blocks[n], NOVA_INODE_TABLE_BLOCKS,
				     "inode table");
		if (!err && m->rblocks)
			err = nova_rec_claim(t, m->rblocks[n],
					     NOVA_INODE_TABLE_BLOCKS,
					     "inode table replica");
		if (err)
			return err;
		t->table_blocks += NOVA_INODE_TABLE_BLOCKS *
				   (m->rblocks ? 2 : 1);
		for (s = 0; s < NOVA_INODES_PER_TABLE; s++) {
			unsigned int idx = n * NOVA_INODES_PER_TABLE + s;
			u64 ino = nova_ino_make(sbi->cpus, cpu, idx);

			nova_rec_words(t, &pi[s], ino);
			err = nova_rec_valid(t, &pi[s], ino);
			if (err > 0) {
				err = rec->crash ?
				      nova_imap_mark_used(sb, cpu, idx) : 0;
				if (!err)
					err = nova_rec_inode(t, &pi[s], ino);
			}
			if (err)
				return err;
			if (!(s % 64)) {
				if (READ_ONCE(rec->abort))
					return -EINTR;
				cond_resched();
			}
		}
	}
	/* The replicas' commit words, synchronised above, are durable. */
	nova_pmem_fence();
	return 0;
}

/* Scan stripes until none is left or another thread failed. */
static int nova_rec_scan(struct nova_rec_thread *t)
{
	struct nova_rec *rec = t->rec;
	unsigned int cpus = NOVA_SB(rec->sb)->cpus;
	int s, err = 0;

	while (!err && !READ_ONCE(rec->abort)) {
		s = atomic_inc_return(&rec->next_stripe) - 1;
		if (s >= cpus)
			break;
		err = nova_rec_stripe(t, s);
	}
	if (err)
		WRITE_ONCE(rec->abort, true);
	return err;
}

static int nova_rec_thread_fn(void *arg)
{
	struct nova_rec_thread *t = arg;

	t->err = nova_rec_scan(t);
	complete(&t->done);
	return 0;
}

/*
 * The journal blocks, claimed before the threads start. The fixed blocks
 * (0-3 and the replica superblock) are outside the allocator's range.
 */
static int nova_rec_journals(struct nova_rec_thread *t)
{
	struct nova_sb_info *sbi = NOVA_SB(t->rec->sb);
	unsigned int i;
	int err;

	for (i = 0; i < sbi->cpus; i++) {
		err = nova_rec_claim(t, sbi->journals[i].ring_off >>
				     NOVA_BLOCK_SHIFT, 1, "journal");
		if (err)
			return err;
	}
	return 0;
}

/* Turn the unclaimed blocks into free ranges of the per-CPU allocator. */
static int nova_rec_free_space(struct super_block *sb,
			       const unsigned long *used)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long end = sbi->layout.alloc_end, start, stop;
	int err;

	start = find_next_zero_bit(used, end, sbi->layout.alloc_start);
	while (start < end) {
		stop = find_next_bit(used, end, start);
		err = nova_balloc_add_free(sb, start, stop - start);
		if (err)
			return err;
		start = find_next_zero_bit(used, end, stop);
	}
	return 0;
}

/*
 * Scan with the mounting task and up to @want - 1 kthreads. A kthread
 * that cannot be created only means fewer threads share the stripes.
 */
static int nova_rec_run(struct nova_rec *rec, struct nova_rec_thread *t,
			unsigned int want, unsigned int *nr)
{
	unsigned int i, n = 1;
	int err, ret;

	err = nova_rec_journals(&t[0]);
	if (!err)
		err = nova_rec_reserved(&t[0]);
	if (err)
		return err;
	for (i = 1; i < want; i++) {
		struct task_struct *task;

		task = kthread_create(nova_rec_thread_fn, &t[n], "nova_rec/%u",
				      i);
		if (IS_ERR(task))
			continue;
		/* kthread_stop() below needs the task even if it has exited. */
		get_task_struct(task);
		t[n].task = task;
		wake_up_process(task);
		n++;
	}
	err = nova_rec_scan(&t[0]);
	for (i = 1; i < n; i++) {
		/*
		 * Wait for the scan to finish (a thread stopped before it ran
		 * would leave its stripes to nobody), then for the exit.
		 */
		wait_for_completion(&t[i].done);
		kthread_stop(t[i].task);
		put_task_struct(t[i].task);
		ret = t[i].err;
		if (ret && (!err || err == -EINTR))
			err = ret;
	}
	*nr = n;
	return err;
}

/*
 * The allocation bitmap (1.9) against the scan: every block in use must
 * have its bit set (abitmap.c reports one that has not); then the bitmap
 * is written from the scan, so that the next crash starts from an exact
 * one.
 */
static void nova_rec_bitmap(struct super_block *sb, const unsigned long *used)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long clear_used, leaked;

	if (!sbi->layout.bitmap_blocks)
		return;
	clear_used = nova_abm_check_used(sbi, used, &leaked);
	nova_info(sb, "allocation bitmap: %lu blocks in use with a clear bit, %lu allocated by operations the crash cut short",
		  clear_used, leaked);
	nova_abm_write_used(sbi, used);
}

/*
 * A removed inode a live snapshot keeps (i_valid 0): its slot is in use
 * and it references blocks as a live inode would (nova_rec_inode()).
 */
static int nova_rec_kept_inode(struct super_block *sb, struct nova_inode *pi,
			       u64 ino, void *arg)
{
	struct nova_rec_thread *t = arg;
	int err;

	err = t->rec->crash ? nova_imap_mark_ino(sb, ino) : 0;
	if (!err)
		err = nova_rec_inode(t, pi, ino);
	return err;
}

/*
 * Scan every inode, and what only snapshots hold, into @f (f->used is
 * the caller's to kvfree() on success). @crash: crash recovery, which
 * also resolves the slots' commit words, marks the slots in use and
 * re-protects the files that were mapped writable; without it (the space
 * check of nova_recover_space_check(), on a quiescent file system) the
 * scan only reads and, where the inode check repairs, rewrites a damaged
 * primary slot from its replica.
 */
int nova_rec_scan_all(struct super_block *sb, bool crash,
		      struct nova_rec_found *f)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_rec rec = { .sb = sb, .crash = crash };
	unsigned int want, nr = 0, i;
	struct nova_rec_thread *t;
	int err;

	memset(f, 0, sizeof(*f));
	rec.any_mapped = crash && nova_prot_any_mapped(sb);
	want = clamp_t(unsigned int, num_online_cpus(), 1, sbi->cpus);
	rec.used = kvcalloc(BITS_TO_LONGS(sbi->nblocks), sizeof(unsigned long),
			    GFP_KERNEL);
	t = kcalloc(want, sizeof(*t), GFP_KERNEL);
	if (!rec.used || !t) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < want; i++) {
		t[i].rec = &rec;
		init_completion(&t[i].done);
		xa_init(&t[i].pages);
		t[i].walker = nova_walker_new();
		if (!t[i].walker) {
			err = -ENOMEM;
			goto out;
		}
	}

	err = nova_rec_run(&rec, t, want, &nr);
	if (err)
		goto out;
	f->meta = (u64)sbi->cpus;	/* journal blocks */
	for (i = 0; i < nr; i++) {
		f->inodes += t[i].inodes;
		f->log_pages += t[i].log_pages;
		f->data_pages += t[i].data_pages;
		f->meta += t[i].table_blocks;
		f->max_trans = max(f->max_trans, t[i].max_trans);
	}
	/* Removed inodes and blocks only snapshots use: not seen above. */
	t[0].inodes = t[0].log_pages = t[0].data_pages = 0;
	t[0].max_trans = 0;
	err = nova_snapshot_mark_inodes(sb, nova_rec_kept_inode, &t[0]);
	if (err)
		goto out;
	f->inodes += t[0].inodes;
	f->log_pages += t[0].log_pages;
	f->data_pages += t[0].data_pages;
	f->max_trans = max(f->max_trans, t[0].max_trans);
	err = nova_snapshot_claim(sb, rec.used, &f->data_pages);
	if (err)
		goto out;
	f->threads = nr;
	f->used = rec.used;
	rec.used = NULL;
out:
	for (i = 0; t && i < want; i++)
		nova_walker_free(t[i].walker);
	kfree(t);
	kvfree(rec.used);
	return err;
}

/* The counters of a scan: exact (the space check makes them so). */
static void nova_rec_set_counters(struct nova_sb_info *sbi,
				  const struct nova_rec_found *f)
{
	atomic_long_set(&sbi->log_pages, f->log_pages);
	atomic_long_set(&sbi->data_pages, f->data_pages);
	atomic_long_set(&sbi->meta_blocks, f->meta);
}

/* Rebuild the DRAM state a clean unmount would have saved. */
static int nova_rec_rebuild(struct super_block *sb, u64 start_ns)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_rec_found f;
	u64 used;
	int err;

	err = nova_rec_scan_all(sb, true, &f);
	if (err)
		return err;
	err = nova_rec_free_space(sb, f.used);
	if (err)
		goto out;
	nova_rec_bitmap(sb, f.used);
	used = f.log_pages + f.data_pages + f.meta;
	if (nova_count_free(sb) + used != sbi->managed) {
		nova_err(sb, "recovery: %lu free + %llu used blocks, but %lu blocks are managed",
			 nova_count_free(sb), used, sbi->managed);
		err = -EFSCORRUPTED;
		goto out;
	}
	nova_rec_set_counters(sbi, &f);
	/* New entries must sort after every entry on media. */
	atomic64_set(&sbi->trans_id, f.max_trans);
	nova_info(sb, "recovered in %llu ms: %llu inodes, %llu log pages, %llu data pages, %lu free blocks, %u scan threads",
		  div_u64(ktime_get_ns() - start_ns, NSEC_PER_MSEC), f.inodes,
		  f.log_pages, f.data_pages, nova_count_free(sb), f.threads);
out:
	kvfree(f.used);
	return err;
}

/*
 * Re-protect the file at slot @pi that was mapped writable when the file
 * system went down (a fast recovery, recovery_fast.c, which scans no
 * other inode): its log replayed into a page map, the checksums and
 * parity of its pages recomputed.
 */
int nova_rec_reprotect_file(struct super_block *sb, struct nova_inode *pi,
			    u64 ino)
{
	struct nova_rec rec = { .sb = sb, .crash = true, .any_mapped = true };
	struct nova_rec_thread t = { .rec = &rec };
	int err;

	xa_init(&t.pages);
	t.walker = nova_walker_new();
	if (!t.walker)
		return -ENOMEM;
	err = nova_rec_inode(&t, pi, ino);
	nova_walker_free(t.walker);
	return err;
}

/*
 * Step 1 of crash recovery, before anything reads a commit word that a
 * transaction may have changed: the snapshot log's tail is one
 * (nova_snapshot_stage_commit() commits it with a file's log tail), and
 * nova_snapshot_load() must not see keep records whose transaction is
 * rolled back, or their blocks would be both kept and in use. On a
 * read-only device nothing can be rolled back: the mount reads as is.
 */
int nova_recover_journals(struct super_block *sb)
{
	int err;

	if (bdev_read_only(sb->s_bdev)) {
		nova_warn(sb, "not cleanly unmounted and the device is read-only: mounting read-only without recovery");
		sb->s_flags |= SB_RDONLY;
		return 0;
	}
	nova_info(sb, "not cleanly unmounted: running crash recovery");
	err = nova_journal_recover(sb);
	if (err < 0)
		return err;
	if (err)
		nova_info(sb, "rolled back %d journaled words", err);
	return 0;
}

/*
 * Mount of a file system that was not cleanly unmounted (nova_load()),
 * after nova_recover_journals() and nova_snapshot_load().
 * On return the journals are rolled back and the allocator, inode tables
 * and counters are as a clean mount would find them (after a fast
 * recovery: but for the blocks operations cut short had allocated, which
 * nova_recover_space_check() frees, and the counters it makes exact); or
 * the mount is read-only (the device is, or the scan found damage on a
 * read-only mount); or an error is returned.
 */
int nova_recover(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 start = ktime_get_ns();
	int err;

	if (bdev_read_only(sb->s_bdev))
		return nova_inode_tables_load(sb, true);
	err = nova_inode_tables_load(sb, false);
	if (err)
		return err;
	nova_journal_recover_finish(sb);
	err = nova_recover_fast(sb, start);
	if (err == -EAGAIN)
		err = nova_rec_rebuild(sb, start);
	if (!err) {
		/* Files that were mapped writable are protected again. */
		nova_prot_clear_mapped(sb);
		sbi->recovered = true;
		return 0;
	}
	if (err == -ENOMEM || !sb_rdonly(sb)) {
		nova_err(sb, "crash recovery failed (%d): not mounting; mount read-only to read what is there, or run fsck.NOVA",
			 err);
		return err;
	}
	nova_err(sb, "crash recovery failed (%d): mounting read-only without an allocator",
		 err);
	return 0;
}

/*
 * The space check a fast recovery owes (sbi->space_check): before the
 * allocator is saved by a clean unmount, remount read-only or freeze,
 * with the file system quiescent and no inode unlinked but open
 * (nova_freeze_fs() saves nothing while one is; unmount and remount
 * read-only have none). Every inode is scanned as after a crash without
 * the bitmap; the blocks the bitmap holds in use and nobody references
 * (allocated by operations the crash cut short, or owned by files that
 * were unlinked but open) are freed; the counters and the next
 * transaction id become exact, as a clean superblock must have them.
 * On error nothing is freed and the caller leaves the file system marked
 * dirty, so the next mount recovers again.
 */
int nova_recover_space_check(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 start = ktime_get_ns();
	struct nova_rec_found f;
	unsigned long freed;
	int err;

	if (!sbi->space_check)
		return 0;
	err = nova_rec_scan_all(sb, false, &f);
	if (err) {
		nova_err(sb, "space check after crash recovery failed (%d): the file system stays marked dirty; run fsck.NOVA",
			 err);
		return err;
	}
	freed = nova_abm_free_leaks(sb, f.used);
	kvfree(f.used);
	nova_rec_set_counters(sbi, &f);
	if (f.max_trans >= atomic64_read(&sbi->trans_id))
		atomic64_set(&sbi->trans_id, f.max_trans);
	WRITE_ONCE(sbi->space_check, false);
	nova_info(sb, "space check after crash recovery in %llu ms: %llu inodes, %lu leaked blocks freed",
		  div_u64(ktime_get_ns() - start, NSEC_PER_MSEC), f.inodes,
		  freed);
	return 0;
}

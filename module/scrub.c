// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: online integrity scrub.
 *
 * A scrub pass reads every object of a mounted file system and checks it
 * against its checksum: the superblock and its replica, the per-CPU
 * journal pointers and inode-table heads, the tail of every inode table
 * block, every valid inode slot, every page of every inode log (page tail
 * and each committed entry) and every data block a file maps; then what
 * only snapshots hold: the snapshot log, the data blocks kept for
 * snapshots, and the slot, log and data of every removed inode a snapshot
 * still shows (snapshot.c hands them over under its table lock, so none
 * is freed while it is read). A bad
 * superblock copy is rewritten from the DRAM copy; data and inodes are
 * repaired by the verification helpers of the core where it can (replica,
 * parity). Every bad object is counted, listed (the first
 * NOVA_GENL_SCRUB_BAD_MAX), logged (rate-limited) and announced with
 * NOVA_CMD_CORRUPTION; the end of a pass with NOVA_CMD_SCRUB_FINISHED.
 *
 * The pass runs in one kernel thread per file system, started by
 * nova_scrub_start() and ended by kthread_stop() (pause, unmount) or by
 * reaching the end. Its position (the cursor: stage, stripe, slot index,
 * page offset within the file) survives a pause, so a resumed pass goes on
 * where it stopped and one pass reads each object once.
 *
 * Staying out of the way (the thread never blocks unmount, remount,
 * freezing, snapshots or GC):
 * - Each unit of work (the fixed metadata, one inode's slot and log, one
 *   batch of data blocks) runs under s_umount taken shared with a trylock
 *   only, as GC's background work does: unmount, remount and freeze hold
 *   s_umount exclusively while they wait for others, so the thread backs
 *   off (sleeps, retries, or exits when asked to stop) instead of making
 *   them wait. rwsem trylocks fail while a writer waits, so a busy scrub
 *   cannot starve them either.
 * - Under s_umount the thread checks the file system is still writable,
 *   unfrozen and the live view: a frozen file system makes it wait until
 *   thawed; a remount read-only pauses it with EROFS.
 * - Per inode it holds an inode reference (nova_iget()) and the inode's
 *   log_lock while it reads the log and the data blocks: appends, GC and
 *   COW writes (which free replaced blocks under log_lock) cannot change
 *   what it reads meanwhile, so a block it checks is still the file's. It
 *   sleeps for the bandwidth limit only with no lock held.
 * - Unmount calls nova_scrub_free() (->kill_sb, right after the control
 *   plane let go of the file system, before any inode is evicted); the
 *   thread drops its inode references before it exits.
 *
 * Locking (nova.h): the thread tries s_umount (shared), then takes one of
 * sb_mutex (a superblock repair), an inode's log_lock or the snapshot
 * table lock (what only snapshots hold) at a time; the core's verification
 * helpers it calls take only allocator locks. nova_scrub.lock is a leaf
 * spinlock; nova_scrub.ctl_mutex is taken only by the control plane,
 * never by the thread.
 */
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "health.h"
#include "nova.h"
#include "nova_journal.h"
#include "nova_sb.h"
#include "pmem.h"
#include "protect.h"
#include "scrub.h"

/* Data blocks checked per lock hold (and between bandwidth sleeps). */
#define NOVA_SCRUB_BATCH	16
/* Longest single sleep, so a stop request is seen quickly. */
#define NOVA_SCRUB_NAP_MS	100

enum nova_scrub_stage {
	NOVA_SCRUB_STAGE_FIXED,		/* superblocks, journals, table heads */
	NOVA_SCRUB_STAGE_ROOT,		/* the root directory */
	NOVA_SCRUB_STAGE_TABLES,	/* every inode of the inode tables */
	NOVA_SCRUB_STAGE_SNAP_LOG,	/* the snapshot log */
	NOVA_SCRUB_STAGE_KEPT_RUNS,	/* data blocks only snapshots keep */
	NOVA_SCRUB_STAGE_KEPT_INODES,	/* removed inodes snapshots show */
	NOVA_SCRUB_STAGE_DONE,
};

/* Where a pass stands; only the thread changes it while it runs. */
struct nova_scrub_cursor {
	enum nova_scrub_stage stage;
	unsigned int cpu;		/* stripe */
	u64 idx;			/* slot index within the stripe */
	pgoff_t pgoff;			/* next data page of that inode */
	bool meta_done;			/* that inode's slot and log checked */
	struct nova_snap_pos runs;	/* KEPT_RUNS: where in the runs */
	u64 kept;			/* KEPT_INODES: index in the list */
};

struct nova_scrub {
	struct super_block *sb;
	struct mutex ctl_mutex;		/* start/stop/free, task */
	struct task_struct *task;	/* under ctl_mutex; referenced */
	struct nova_scrub_cursor cur;	/* the thread's, or under ctl_mutex */
	struct ratelimit_state rs;	/* kernel log lines */

	/* what is being checked, for nova_scrub_note() (thread only) */
	u64 ctx_ino;
	u32 ctx_gen;			/* of a removed inode (KEPT_INODES) */
	u64 ctx_off;
	u32 ctx_kind;
	u32 ctx_notes;

	/* bandwidth accounting of the current run (thread only) */
	u64 run_start;			/* ktime_get_ns() */
	u64 run_bytes;

	spinlock_t lock;		/* st */
	struct nova_scrub_status st;
};

/* ---- status ---- */

static void nova_scrub_add(struct nova_scrub *s, u64 *field, u64 n)
{
	spin_lock(&s->lock);
	*field += n;
	spin_unlock(&s->lock);
}

/* Account @bytes of objects read, for progress and the bandwidth limit. */
static void nova_scrub_scanned(struct nova_scrub *s, u64 bytes)
{
	s->run_bytes += bytes;
	spin_lock(&s->lock);
	s->st.bytes_scanned += bytes;
	s->st.all_bytes += bytes;
	spin_unlock(&s->lock);
}

/* Count findings (caller holds s->lock). */
static void nova_scrub_tally(struct nova_scrub *s, u64 bad, u64 repaired,
			     u64 unrecoverable)
{
	lockdep_assert_held(&s->lock);
	s->st.errors += bad;
	s->st.repaired += repaired;
	s->st.unrecoverable += unrecoverable;
	s->st.all_errors += bad;
	s->st.all_repaired += repaired;
	s->st.all_unrecoverable += unrecoverable;
}

static const char *nova_scrub_kind_name(u32 kind)
{
	static const char * const names[] = {
		[NOVA_CORRUPT_SUPER] = "superblock",
		[NOVA_CORRUPT_INODE] = "inode",
		[NOVA_CORRUPT_LOG_ENTRY] = "log entry",
		[NOVA_CORRUPT_LOG_TAIL] = "log page tail",
		[NOVA_CORRUPT_DATA] = "data",
		[NOVA_CORRUPT_CSUM] = "data checksum",
		[NOVA_CORRUPT_PARITY] = "parity",
		[NOVA_CORRUPT_JOURNAL] = "journal pointer",
		[NOVA_CORRUPT_INODE_TABLE] = "inode table",
		[NOVA_CORRUPT_MEDIA] = "bad block",
	};

	return kind < ARRAY_SIZE(names) && names[kind] ? names[kind] : "object";
}

static int nova_scrub_thread(void *arg);

struct nova_scrub *nova_scrub_current(struct super_block *sb)
{
	struct nova_scrub *s;

	if (!(current->flags & PF_KTHREAD) ||
	    kthread_func(current) != nova_scrub_thread)
		return NULL;
	s = kthread_data(current);
	return s->sb == sb ? s : NULL;
}

void nova_scrub_note(struct nova_scrub *s, struct nova_scrub_bad *bad)
{
	bool data = bad->kind == NOVA_CORRUPT_DATA ||
		    bad->kind == NOVA_CORRUPT_CSUM ||
		    bad->kind == NOVA_CORRUPT_PARITY;

	/* A block-level helper knows neither the inode nor the file offset. */
	if (!bad->ino)
		bad->ino = s->ctx_ino;
	if (data && (s->ctx_kind == NOVA_CORRUPT_DATA))
		bad->offset = s->ctx_off;
	s->ctx_notes++;
	spin_lock(&s->lock);
	if (s->st.nr_bad < NOVA_GENL_SCRUB_BAD_MAX)
		s->st.bad[s->st.nr_bad++] = *bad;
	else
		s->st.bad_dropped++;
	spin_unlock(&s->lock);
	if (__ratelimit(&s->rs))
		nova_err(s->sb, "scrub: inode %llu: bad %s at %llu%s",
			 bad->ino, nova_scrub_kind_name(bad->kind),
			 bad->offset, bad->repaired ? ", repaired" :
			 ", not repairable");
}

void nova_scrub_event_suppressed(struct nova_scrub *s)
{
	spin_lock(&s->lock);
	s->st.events_suppressed++;
	spin_unlock(&s->lock);
}

/*
 * Count findings that a reader of the core repaired or worked around on
 * the scrub thread's behalf (a log walk finding one bad copy of a log
 * entry or page tail); the core also sends the CORRUPTION event, which
 * lists the finding (nova_scrub_note()).
 */
void nova_scrub_count(struct nova_scrub *s, u32 bad, u32 repaired,
		      u32 unrecoverable)
{
	spin_lock(&s->lock);
	nova_scrub_tally(s, bad, repaired, unrecoverable);
	spin_unlock(&s->lock);
}

/*
 * Count and report one bad object the scrub itself found. The event is
 * sent through the same entry point the core uses, which passes it back
 * to nova_scrub_note() because current is the scrub thread.
 */
static void nova_scrub_found(struct nova_scrub *s, u64 ino, u32 kind,
			     u64 offset, bool repaired)
{
	spin_lock(&s->lock);
	nova_scrub_tally(s, 1, repaired, !repaired);
	spin_unlock(&s->lock);
	nova_report_damage(s->sb, ino, kind, offset, repaired);
}

/* ---- pacing ---- */

static bool nova_scrub_should_stop(void)
{
	return kthread_should_stop();
}

/* Sleep up to @ms, in short naps; false if asked to stop meanwhile. */
static bool nova_scrub_nap(unsigned int ms)
{
	while (ms && !nova_scrub_should_stop()) {
		unsigned int n = min_t(unsigned int, ms, NOVA_SCRUB_NAP_MS);

		schedule_timeout_interruptible(msecs_to_jiffies(n));
		ms -= n;
	}
	return !nova_scrub_should_stop();
}

/* Keep the run's read rate at or below the bandwidth limit. */
static bool nova_scrub_throttle(struct nova_scrub *s)
{
	u64 bw = READ_ONCE(s->st.bandwidth), want, spent;

	cond_resched();
	if (!bw)
		return !nova_scrub_should_stop();
	want = mul_u64_u64_div_u64(s->run_bytes, NSEC_PER_SEC, bw);
	spent = ktime_get_ns() - s->run_start;
	if (want <= spent)
		return !nova_scrub_should_stop();
	return nova_scrub_nap(div_u64(want - spent, NSEC_PER_MSEC) + 1);
}

/*
 * Take s_umount shared for one unit of work, waiting (without holding
 * anything) while it is taken or the file system is frozen. Returns 0
 * with s_umount held, -EROFS if the file system became read-only, or
 * -EINTR if the thread is asked to stop.
 */
static int nova_scrub_enter(struct nova_scrub *s)
{
	struct super_block *sb = s->sb;

	for (;;) {
		if (nova_scrub_should_stop())
			return -EINTR;
		if (down_read_trylock(&sb->s_umount)) {
			if (sb_rdonly(sb) ||
			    NOVA_SB(sb)->view_epoch != NOVA_EPOCH_LIVE) {
				up_read(&sb->s_umount);
				return -EROFS;
			}
			if (nova_is_shutdown(sb)) {
				up_read(&sb->s_umount);
				return -EIO;
			}
			if (sb->s_writers.frozen == SB_UNFROZEN)
				return 0;
			up_read(&sb->s_umount);
		}
		nova_scrub_nap(NOVA_SCRUB_NAP_MS);
	}
}

static void nova_scrub_leave(struct nova_scrub *s)
{
	up_read(&s->sb->s_umount);
}

/* ---- fixed metadata ---- */

/* A copy is good by the rule mount applies (uapi/nova_sb.h). */
static bool nova_scrub_sb_ok(struct nova_sb_info *sbi,
			     const struct nova_super_block *copy)
{
	return nova_sb_check(copy, sbi->size, nova_sb_csum(copy)) ==
	       NOVA_SB_FINE;
}

/*
 * Both superblock copies. They are written only under sb_mutex, from the
 * DRAM copy, so under sb_mutex a bad copy is damage, and rewriting both
 * from the DRAM copy (nova_write_super()) repairs it.
 */
static void nova_scrub_super(struct nova_scrub *s, struct nova_super_block *buf)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	unsigned long blk[2] = { NOVA_SB_BLOCK, sbi->nblocks - 1 };
	bool bad[2];
	int i;

	mutex_lock(&sbi->sb_mutex);
	for (i = 0; i < 2; i++)
		bad[i] = copy_mc_to_kernel(buf, nova_block(sbi, blk[i]),
					   sizeof(*buf)) ||
			 !nova_scrub_sb_ok(sbi, buf);
	if (bad[0] || bad[1])
		nova_write_super(s->sb, le32_to_cpu(sbi->dsb.s_state));
	for (i = 0; i < 2; i++) {
		bool fixed;

		if (!bad[i])
			continue;
		fixed = !copy_mc_to_kernel(buf, nova_block(sbi, blk[i]),
					   sizeof(*buf)) &&
			nova_scrub_sb_ok(sbi, buf);
		nova_scrub_found(s, 0, NOVA_CORRUPT_SUPER,
				 (u64)blk[i] << NOVA_BLOCK_SHIFT, fixed);
	}
	mutex_unlock(&sbi->sb_mutex);
	nova_scrub_add(s, &s->st.meta_checked, 2);
	nova_scrub_scanned(s, 2 * NOVA_SB_SIZE);
}

/* A checked copy of @len bytes at device offset @off into @buf. */
static bool nova_scrub_read(struct nova_sb_info *sbi, void *buf, u64 off,
			    size_t len)
{
	return !copy_mc_to_kernel(buf, nova_addr(sbi, off), len);
}

/*
 * Journal pointers, inode-table heads and table-block tails. These have
 * no replica; a bad one is reported as not repairable (the DRAM state the
 * mount built from them stays in use until the next mount, which will
 * refuse the file system: fsck.NOVA territory).
 */
static void nova_scrub_fixed(struct nova_scrub *s, void *buf)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	u64 checked = 0, bytes = 0;
	unsigned int cpu, n;

	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		u64 off = ((u64)NOVA_JOURNAL_PTR_BLOCK << NOVA_BLOCK_SHIFT) +
			  cpu * sizeof(struct nova_journal_ptr);
		struct nova_journal_ptr *jp = buf;

		/* j_block..end never change after mkfs: no lock needed. */
		if (!nova_scrub_read(sbi, jp, off, sizeof(*jp)) ||
		    !nova_jptr_ok(jp, cpu))
			nova_scrub_found(s, 0, NOVA_CORRUPT_JOURNAL, off, false);
		checked++;
		bytes += sizeof(*jp);
	}
	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		struct nova_inode_map *m = &sbi->imaps[cpu];
		u64 off = ((u64)NOVA_INODE_TABLE_PTR_BLOCK << NOVA_BLOCK_SHIFT) +
			  cpu * sizeof(struct nova_inode_table);
		struct nova_inode_table *it = buf;
		struct nova_inode_table_tail *tt = buf;

		mutex_lock(&m->lock);
		if (!nova_scrub_read(sbi, it, off, sizeof(*it)) ||
		    le32_to_cpu(it->it_csum) !=
		    nova_table_rec_csum(it, sizeof(*it)) ||
		    le32_to_cpu(it->it_cpu) != cpu)
			nova_scrub_found(s, 0, NOVA_CORRUPT_INODE_TABLE, off,
					 false);
		checked++;
		bytes += sizeof(*it);
		for (n = 0; n < m->nr_blocks; n++) {
			off = ((u64)m->blocks[n] << NOVA_BLOCK_SHIFT) +
			      NOVA_INODES_PER_TABLE * NOVA_INODE_SIZE;
			if (!nova_scrub_read(sbi, tt, off, sizeof(*tt)) ||
			    le32_to_cpu(tt->itt_csum) !=
			    nova_table_rec_csum(tt, sizeof(*tt)) ||
			    le32_to_cpu(tt->itt_cpu) != cpu ||
			    le64_to_cpu(tt->itt_index) != n)
				nova_scrub_found(s, 0, NOVA_CORRUPT_INODE_TABLE,
						 off, false);
			checked++;
			bytes += sizeof(*tt);
		}
		mutex_unlock(&m->lock);
	}
	nova_scrub_add(s, &s->st.meta_checked, checked);
	nova_scrub_scanned(s, bytes);
}

/* ---- one inode ---- */

/* State of one log walk, to locate the object a failed walk stopped at. */
struct nova_scrub_walk {
	struct nova_scrub *s;
	u64 page;			/* last page whose tail was good */
	u64 next;			/* where the next entry would start */
	u64 pages;
	u64 entries;
};

static int nova_scrub_page(struct super_block *sb, u64 page, void *arg)
{
	struct nova_scrub_walk *w = arg;

	w->page = page;
	w->next = page;
	w->pages++;
	return 0;
}

static int nova_scrub_entry(struct super_block *sb, u64 off, void *entry,
			    void *arg)
{
	struct nova_scrub_walk *w = arg;
	const struct nova_log_entry_header *h = entry;

	w->next = off + le16_to_cpu(h->e_size);
	w->entries++;
	return 0;
}

/*
 * nova_log_walk_raw() stopped with -EFSCORRUPTED: was it an entry of the
 * last good page, or the tail of the page after it? Entries are checked
 * in order before the walk moves on, so if an entry would start at
 * w->next inside that page (not the committed tail, not a pad), that entry
 * failed; otherwise the next page (or the head) did.
 */
static void nova_scrub_locate(struct nova_sb_info *sbi, struct nova_scrub_walk *w,
			      u64 head, u64 tail, u32 *kind, u64 *off)
{
	u64 end = w->page + NOVA_LOG_DATA_SIZE;
	struct nova_log_page_tail *lt;

	if (w->page && w->next != tail &&
	    end - w->next >= sizeof(struct nova_log_entry_header) &&
	    *(u8 *)nova_addr(sbi, w->next) != NOVA_LOG_PAD) {
		*kind = NOVA_CORRUPT_LOG_ENTRY;
		*off = w->next;
		return;
	}
	*kind = NOVA_CORRUPT_LOG_TAIL;
	if (!w->page) {
		*off = head + NOVA_LOG_DATA_SIZE;
		return;
	}
	lt = nova_addr(sbi, end);
	*off = le64_to_cpu(READ_ONCE(lt->lt_next)) + NOVA_LOG_DATA_SIZE;
}

/*
 * Account for a walk of log @head..@tail of @ino that ended with @err:
 * what it checked, and where it stopped if it found damage. @both: it
 * read both copies of a mirrored log (the byte total counts mirrors too).
 */
static void nova_scrub_walked(struct nova_scrub *s, struct nova_scrub_walk *w,
			      int err, u64 ino, u64 head, u64 tail, bool both)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	u32 kind;
	u64 off;

	if (err == -EFSCORRUPTED) {
		nova_scrub_locate(sbi, w, head, tail, &kind, &off);
		nova_scrub_found(s, ino, kind, off, false);
	}
	nova_scrub_add(s, &s->st.meta_checked, w->pages + w->entries);
	nova_scrub_scanned(s, w->pages * NOVA_BLOCK_SIZE *
			   (both && nova_log_mirrored(sbi, ino) ? 2 : 1));
}

/*
 * The log of @inode, under its log_lock. With log mirrors (1.4) the walk
 * checks both copies of every tail and entry and rewrites a bad one from
 * the other, counting and listing it (nova_scrub_count(), the CORRUPTION
 * event); an object with no good copy stops the walk and is found here.
 */
static void nova_scrub_log(struct nova_scrub *s, struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_scrub_walk w = { .s = s };
	int err;

	lockdep_assert_held(&ni->log_lock);
	if (!ni->log_head)
		return;
	err = nova_log_walk(s->sb, inode->i_ino, ni->log_head, ni->log_tail,
			    nova_scrub_entry, nova_scrub_page, &w,
			    NOVA_WALK_BOTH);
	nova_scrub_walked(s, &w, err, inode->i_ino, ni->log_head, ni->log_tail,
			  true);
}

/*
 * Count what a verification helper of the core found in the object
 * being checked (s->ctx_*), and report the bad ones it did not report
 * itself through nova_report_damage().
 */
static void nova_scrub_verified(struct nova_scrub *s,
				const struct nova_verify_result *res)
{
	u32 i;

	spin_lock(&s->lock);
	nova_scrub_tally(s, res->bad, res->repaired, res->unrecoverable);
	spin_unlock(&s->lock);
	/*
	 * The first res->repaired findings were rewritten; the others were
	 * found and left as they are (no good copy, or a copy that could not
	 * be written): those are not listed as repaired.
	 */
	for (i = s->ctx_notes; i < res->bad; i++)
		nova_report_damage(s->sb, s->ctx_ino, s->ctx_kind,
				   s->ctx_off, i < res->repaired);
}

/*
 * What is wrong with data block @blk, by kind, read-only. The core's
 * verification helper returns counts only, and its repair erases the
 * evidence, so the scrub looks before it asks for a repair. The rules are
 * the helper's (docs/protection.md): a strip matching neither checksum
 * copy is bad data; a checksum slot disagreeing with good data is a bad
 * checksum; a parity strip that is not the XOR of eight good strips is bad
 * parity (parity is judged only when all strips are good).
 */
struct nova_scrub_kinds {
	u32 data;
	u32 csum;
	u32 parity;
};

static void nova_scrub_probe(struct nova_sb_info *sbi, unsigned long blk,
			     u8 *buf, struct nova_scrub_kinds *k)
{
	__le32 c[2][NOVA_STRIPS];
	bool ok[2];
	u64 p[NOVA_STRIP_SIZE / sizeof(u64)], x[ARRAY_SIZE(p)];
	const u64 *w = (const u64 *)buf;
	unsigned int i, j, copy;

	memset(k, 0, sizeof(*k));
	for (copy = 0; copy < 2; copy++) {
		u64 area = copy ? sbi->layout.csum_replica : sbi->layout.csum;

		ok[copy] = !nova_pmem_read(c[copy], nova_block(sbi, area) +
					   (u64)blk * NOVA_CSUM_SLOT,
					   sizeof(c[copy]));
	}
	for (i = 0; i < NOVA_STRIPS; i++) {
		u8 *strip = buf + i * NOVA_STRIP_SIZE;
		bool m0, m1;
		u32 crc;

		if (nova_pmem_read(strip, nova_block(sbi, blk) +
				   i * NOVA_STRIP_SIZE, NOVA_STRIP_SIZE)) {
			k->data++;
			continue;
		}
		crc = nova_crc(strip, NOVA_STRIP_SIZE);
		m0 = ok[0] && le32_to_cpu(c[0][i]) == crc;
		m1 = ok[1] && le32_to_cpu(c[1][i]) == crc;
		if (!m0 && !m1)
			k->data++;
		else
			k->csum += !m0 + !m1;
	}
	if (k->data || !(sbi->prot & NOVA_FEATURE_DATA_PARITY))
		return;
	memcpy(x, w, sizeof(x));
	for (i = 1; i < NOVA_STRIPS; i++)
		for (j = 0; j < ARRAY_SIZE(x); j++)
			x[j] ^= w[i * ARRAY_SIZE(x) + j];
	if (nova_pmem_read(p, nova_block(sbi, sbi->layout.parity) +
			   (u64)blk * NOVA_STRIP_SIZE, sizeof(p)) ||
	    memcmp(p, x, sizeof(p)))
		k->parity++;
}

/*
 * Count what the helper found in data block being checked (s->ctx_*) and
 * announce each bad object with its kind (@k, from nova_scrub_probe();
 * anything the probe did not see, e.g. damage that appeared in between,
 * is reported as data).
 */
static void nova_scrub_verified_data(struct nova_scrub *s,
				     const struct nova_verify_result *res,
				     const struct nova_scrub_kinds *k)
{
	u32 i, kind;

	spin_lock(&s->lock);
	nova_scrub_tally(s, res->bad, res->repaired, res->unrecoverable);
	spin_unlock(&s->lock);
	for (i = s->ctx_notes; i < res->bad; i++) {
		if (i < k->data)
			kind = NOVA_CORRUPT_DATA;
		else if (i < k->data + k->csum)
			kind = NOVA_CORRUPT_CSUM;
		else if (i < k->data + k->csum + k->parity)
			kind = NOVA_CORRUPT_PARITY;
		else
			kind = NOVA_CORRUPT_DATA;
		nova_report_damage(s->sb, s->ctx_ino, kind, s->ctx_off,
				   !res->unrecoverable &&
				   res->repaired);
	}
}

/*
 * Check data block @blk of the file being scrubbed: first the core's
 * read-only intact test (nova_block_intact(), which counts the block in
 * prot_verified only if it is intact); if anything is bad, find out what
 * (nova_scrub_probe(), which counts nothing) and then verify and repair
 * (nova_verify_data_block(), which counts it). Every block is thus counted
 * once, good or damaged. Returns 0, or -errno other than -EIO.
 */
static int nova_scrub_block(struct nova_scrub *s, unsigned long blk, u8 *buf)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	struct nova_verify_result res = { };
	struct nova_scrub_kinds k = { };
	int err;

	if (!nova_block_ok(sbi, blk, 1))
		return -ERANGE;
	if (nova_block_intact(s->sb, blk))
		return 0;
	nova_scrub_probe(sbi, blk, buf, &k);
	err = nova_verify_data_block(s->sb, blk, true, &res);
	if (err && err != -EIO)
		return err;
	nova_scrub_verified_data(s, &res, &k);
	return 0;
}

/*
 * The slot of a live inode, or with @kept of a removed one a snapshot
 * keeps (and its replica, where the core keeps one).
 */
static void nova_scrub_slot(struct nova_scrub *s, u64 ino, bool kept)
{
	struct nova_inode *pi = nova_get_pinode(s->sb, ino);
	struct nova_verify_result res = { };
	int err;

	if (!pi)
		return;
	s->ctx_ino = ino;
	s->ctx_kind = NOVA_CORRUPT_INODE;
	s->ctx_off = nova_off(NOVA_SB(s->sb), pi);
	s->ctx_notes = 0;
	err = nova_verify_inode(s->sb, ino, kept, true, &res);
	if (err && err != -EIO)
		return;		/* freed meanwhile (ENOENT) */
	nova_scrub_verified(s, &res);
	nova_scrub_add(s, &s->st.meta_checked, res.checked);
	nova_scrub_scanned(s, (u64)res.checked * NOVA_INODE_SIZE);
}

/*
 * The log head and tail in both slot copies against the ones the loaded
 * inode uses (inode_slot.c). Snapshot views show an older state: not checked.
 */
static void nova_scrub_log_words(struct nova_scrub *s, struct inode *inode)
{
	struct nova_verify_result res = { };

	if (NOVA_SB(s->sb)->view_epoch != NOVA_EPOCH_LIVE)
		return;
	s->ctx_kind = NOVA_CORRUPT_INODE;
	s->ctx_notes = 0;
	nova_pi_check_log_words(inode, true, &res);
	if (res.bad)
		nova_scrub_verified(s, &res);
}

/*
 * The inode could not be loaded: its slot or its log is damaged (the
 * core has logged which). Nobody can use it, so its log is read without
 * the log lock to say what is wrong.
 */
static void nova_scrub_unloadable(struct nova_scrub *s, u64 ino, void *buf)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	struct nova_inode *pi = nova_get_pinode(s->sb, ino), *copy = buf;
	struct nova_scrub_walk w = { .s = s };
	u64 head, tail;
	int err;

	if (!pi || !nova_scrub_read(sbi, copy, nova_off(sbi, pi),
				    NOVA_INODE_SIZE))
		return;
	nova_scrub_slot(s, ino, false);
	if (le32_to_cpu(copy->i_csum) != nova_inode_csum(copy) ||
	    le64_to_cpu(copy->i_ino) != ino)
		return;		/* the slot is what is wrong */
	head = le64_to_cpu(copy->i_log_head);
	tail = le64_to_cpu(copy->i_log_tail);
	if (!head)
		return;
	err = nova_log_walk_raw(s->sb, ino, head, tail, nova_scrub_entry,
				nova_scrub_page, &w);
	nova_scrub_walked(s, &w, err, ino, head, tail, false);
}

/*
 * Verify up to NOVA_SCRUB_BATCH data blocks of @inode from s->cur.pgoff,
 * under s_umount and the inode's log_lock (so each block is still the
 * file's while the core checks and repairs it). Returns the number of
 * blocks checked, or -errno.
 */
static int nova_scrub_data_batch(struct nova_scrub *s, struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned long idx;
	int n = 0, err;
	u8 *buf;
	void *v;

	buf = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = nova_scrub_enter(s);
	if (err) {
		kfree(buf);
		return err;
	}
	mutex_lock(&ni->log_lock);
	xa_for_each_start(&ni->pages, idx, v, s->cur.pgoff) {
		s->ctx_ino = inode->i_ino;
		s->ctx_kind = NOVA_CORRUPT_DATA;
		s->ctx_off = (u64)idx << PAGE_SHIFT;
		s->ctx_notes = 0;
		err = nova_scrub_block(s, nova_file_block(inode, idx), buf);
		if (err)
			break;
		s->cur.pgoff = idx + 1;
		if (++n == NOVA_SCRUB_BATCH)
			break;
	}
	mutex_unlock(&ni->log_lock);
	nova_scrub_leave(s);
	kfree(buf);
	nova_scrub_add(s, &s->st.data_checked, n);
	nova_scrub_scanned(s, (u64)n * NOVA_BLOCK_SIZE);
	return err ?: n;
}

/*
 * The data of a regular file, in batches with the bandwidth limit applied
 * between them (no lock held). Files mapped writable are not protected
 * while mapped (docs/protection.md), nor is a file system without data
 * checksums: their data is skipped.
 */
static int nova_scrub_data(struct nova_scrub *s, struct inode *inode)
{
	int n;

	if (!S_ISREG(inode->i_mode) || !nova_prot_csum(s->sb) ||
	    nova_prot_skip_verify(inode))
		return 0;
	for (;;) {
		n = nova_scrub_data_batch(s, inode);
		if (n < NOVA_SCRUB_BATCH)
			return n < 0 ? n : 0;
		if (!nova_scrub_throttle(s))
			return -EINTR;
	}
}

/*
 * Check one live inode: slot and log once, then the data (resumable at
 * s->cur.pgoff). Called without s_umount; takes it per unit of work.
 * Returns 0 when the inode is done, or the error that ends the run.
 */
static int nova_scrub_inode(struct nova_scrub *s, u64 ino, void *buf)
{
	struct nova_inode *pi = nova_get_pinode(s->sb, ino);
	struct inode *inode;
	int err;

	if (!pi || le64_to_cpu(READ_ONCE(pi->i_valid)) != 1)
		return 0;
	err = nova_scrub_enter(s);
	if (err)
		return err;
	s->ctx_ino = ino;
	s->ctx_kind = NOVA_CORRUPT_INODE;
	inode = nova_iget(s->sb, ino);
	if (IS_ERR(inode)) {
		/* Freed since we looked (ESTALE) is no finding. */
		if (PTR_ERR(inode) == -EFSCORRUPTED && !s->cur.meta_done)
			nova_scrub_unloadable(s, ino, buf);
		nova_scrub_leave(s);
		return PTR_ERR(inode) == -ENOMEM ? -ENOMEM : 0;
	}
	if (!s->cur.meta_done) {
		mutex_lock(&NOVA_I(inode)->log_lock);
		nova_scrub_slot(s, ino, false);
		nova_scrub_log_words(s, inode);
		nova_scrub_log(s, inode);
		mutex_unlock(&NOVA_I(inode)->log_lock);
		nova_scrub_add(s, &s->st.inodes_scanned, 1);
		s->cur.meta_done = true;
	}
	nova_scrub_leave(s);
	err = nova_scrub_data(s, inode);
	iput(inode);
	return err;
}

/* ---- what only snapshots hold ---- */

/*
 * The snapshot log, both copies of every page and entry, under the
 * snapshot table lock (nova_snapshot_walk_log()).
 */
static int nova_scrub_snap_log(struct nova_scrub *s)
{
	struct nova_scrub_walk w = { .s = s };
	u64 head = 0, tail = 0;
	int err;

	err = nova_scrub_enter(s);
	if (err)
		return err;
	s->ctx_ino = NOVA_SNAPSHOT_INO;
	s->ctx_kind = NOVA_CORRUPT_LOG_ENTRY;
	err = nova_snapshot_walk_log(s->sb, nova_scrub_entry, nova_scrub_page,
				     &w, NOVA_WALK_BOTH, &head, &tail);
	nova_scrub_walked(s, &w, err, NOVA_SNAPSHOT_INO, head, tail, true);
	nova_scrub_leave(s);
	return 0;
}

/* What the snapshot-side walkers hand each block or inode to. */
struct nova_scrub_held {
	struct nova_scrub *s;
	u8 *buf;			/* one block */
	u64 ino;			/* a removed inode, or 0 (a run) */
	struct xarray pages;		/* the removed inode's pages */
	int n;				/* blocks checked by this call */
};

/*
 * One block only snapshots hold (snapshot table lock held, so it stays
 * theirs). A kept run belongs to no file: its findings name the block's
 * device offset under inode 0.
 */
static int nova_scrub_held_block(struct super_block *sb, unsigned long blk,
				 void *arg)
{
	struct nova_scrub_held *h = arg;
	struct nova_scrub *s = h->s;

	if (!h->ino) {
		s->ctx_ino = 0;
		s->ctx_off = (u64)blk << NOVA_BLOCK_SHIFT;
	}
	s->ctx_kind = NOVA_CORRUPT_DATA;
	s->ctx_notes = 0;
	return nova_scrub_block(s, blk, h->buf);
}

/* Up to NOVA_SCRUB_BATCH blocks of the kept runs of live snapshots. */
static int nova_scrub_kept_runs(struct nova_scrub *s, void *buf)
{
	struct nova_scrub_held h = { .s = s, .buf = buf };
	int n;

	if (!nova_prot_csum(s->sb)) {
		s->cur.runs.snap = U64_MAX;
		return 0;
	}
	n = nova_scrub_enter(s);
	if (n)
		return n;
	n = nova_snapshot_visit_runs(s->sb, &s->cur.runs, NOVA_SCRUB_BATCH,
				     nova_scrub_held_block, &h);
	nova_scrub_leave(s);
	if (n < 0)
		return n;
	nova_scrub_add(s, &s->st.data_checked, n);
	nova_scrub_scanned(s, (u64)n * NOVA_BLOCK_SIZE);
	return 0;
}

/* A removed inode's slot and log (snapshot table lock held). */
static int nova_scrub_kept_meta(struct super_block *sb, u64 ino, void *arg)
{
	struct nova_scrub_held *h = arg;
	struct nova_scrub *s = h->s;
	struct nova_inode *pi = nova_get_pinode(sb, ino);
	struct nova_scrub_walk w = { .s = s };
	u64 head, tail;
	int err;

	nova_scrub_slot(s, ino, true);
	if (!pi)
		return 0;
	head = le64_to_cpu(READ_ONCE(pi->i_log_head));
	tail = le64_to_cpu(READ_ONCE(pi->i_log_tail));
	if (!head)
		return 0;
	s->ctx_kind = NOVA_CORRUPT_LOG_ENTRY;
	err = nova_log_walk(sb, ino, head, tail, nova_scrub_entry,
			    nova_scrub_page, &w, NOVA_WALK_BOTH);
	nova_scrub_walked(s, &w, err, ino, head, tail, true);
	return 0;
}

/* Its page map, once per visit (snapshot table lock held). */
static int nova_scrub_kept_map(struct super_block *sb, u64 ino, void *arg)
{
	struct nova_scrub_held *h = arg;

	return nova_snap_inode_pages(sb, ino, h->s->ctx_gen, &h->pages);
}

/* Up to NOVA_SCRUB_BATCH of its pages from s->cur.pgoff (table lock held). */
static int nova_scrub_kept_batch(struct super_block *sb, u64 ino, void *arg)
{
	struct nova_scrub_held *h = arg;
	struct nova_scrub *s = h->s;
	unsigned long idx;
	void *v;
	int err;

	h->n = 0;
	xa_for_each_start(&h->pages, idx, v, s->cur.pgoff) {
		s->ctx_ino = ino;
		s->ctx_off = (u64)idx << PAGE_SHIFT;
		err = nova_scrub_held_block(sb, xa_to_value(v), h);
		if (err)
			return err;
		s->cur.pgoff = idx + 1;
		if (++h->n == NOVA_SCRUB_BATCH)
			break;
	}
	return 0;
}

/*
 * Removed inode @ino of generation @gen that a live snapshot shows: slot
 * and log once, then its data in batches, each under the snapshot table
 * lock and only while the inode is still kept (a snapshot deleted
 * meanwhile may have handed it to the reclaim worker: then it is done).
 * Resumable at s->cur.pgoff like a live inode.
 */
static int nova_scrub_kept_inode(struct nova_scrub *s, u64 ino, u32 gen,
				 void *buf)
{
	struct nova_scrub_held h = { .s = s, .buf = buf, .ino = ino };
	int err;

	s->ctx_gen = gen;
	s->ctx_ino = ino;
	if (!s->cur.meta_done) {
		err = nova_scrub_enter(s);
		if (err)
			return err;
		err = nova_snapshot_with_kept_inode(s->sb, ino, gen,
						    nova_scrub_kept_meta, &h);
		nova_scrub_leave(s);
		if (err)
			return err == -ESTALE ? 0 : err;
		nova_scrub_add(s, &s->st.inodes_scanned, 1);
		s->cur.meta_done = true;
	}
	if (!nova_prot_csum(s->sb))
		return 0;
	xa_init(&h.pages);
	err = nova_snapshot_with_kept_inode(s->sb, ino, gen,
					    nova_scrub_kept_map, &h);
	while (!err) {
		err = nova_scrub_enter(s);
		if (err)
			break;
		err = nova_snapshot_with_kept_inode(s->sb, ino, gen,
						    nova_scrub_kept_batch, &h);
		nova_scrub_leave(s);
		nova_scrub_add(s, &s->st.data_checked, h.n);
		nova_scrub_scanned(s, (u64)h.n * NOVA_BLOCK_SIZE);
		if (err || h.n < NOVA_SCRUB_BATCH)
			break;
		if (!nova_scrub_throttle(s))
			err = -EINTR;
	}
	xa_destroy(&h.pages);
	/* Gone, or its log unreadable (the meta walk reported that). */
	return err == -ESTALE || err == -EFSCORRUPTED ? 0 : err;
}

/* ---- the pass ---- */

/*
 * What the pass will read: metadata, and data if it has checksums. An
 * estimate made at the start (the file system changes meanwhile); a
 * finished pass sets the total to what it read.
 */
static u64 nova_scrub_total(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	/* the root; the tables' counts include removed inodes kept */
	u64 bytes = 2 * NOVA_SB_SIZE, used = 1;
	unsigned int cpu;

	bytes += (u64)sbi->cpus * (sizeof(struct nova_journal_ptr) +
				   sizeof(struct nova_inode_table));
	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		bytes += (u64)READ_ONCE(sbi->imaps[cpu].nr_blocks) *
			 NOVA_INODE_SIZE;
		used += READ_ONCE(sbi->imaps[cpu].used);
	}
	bytes += used * NOVA_INODE_SIZE;
	bytes += (u64)atomic_long_read(&sbi->log_pages) * NOVA_BLOCK_SIZE;
	if (nova_prot_csum(sb))
		bytes += (u64)atomic_long_read(&sbi->data_pages) *
			 NOVA_BLOCK_SIZE;
	return bytes;
}

/* Advance the cursor over the inode tables; false at the end. */
static bool nova_scrub_next_slot(struct nova_scrub *s)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	struct nova_scrub_cursor *c = &s->cur;
	unsigned int nr;

	c->idx++;
	c->pgoff = 0;
	c->meta_done = false;
	for (;;) {
		/* Pairs with nova_extend_table(), as nova_get_pinode(). */
		nr = smp_load_acquire(&sbi->imaps[c->cpu].nr_blocks);
		if (c->idx < (u64)nr * NOVA_INODES_PER_TABLE)
			return true;
		if (++c->cpu >= sbi->cpus)
			return false;
		c->idx = 0;
	}
}

static int nova_scrub_step(struct nova_scrub *s, void *buf)
{
	struct nova_sb_info *sbi = NOVA_SB(s->sb);
	struct nova_scrub_cursor *c = &s->cur;
	int err = 0;

	switch (c->stage) {
	case NOVA_SCRUB_STAGE_FIXED:
		err = nova_scrub_enter(s);
		if (err)
			return err;
		/* These objects belong to no inode: no context to fill in. */
		s->ctx_ino = 0;
		s->ctx_kind = 0;
		nova_scrub_super(s, buf);
		nova_scrub_fixed(s, buf);
		nova_scrub_leave(s);
		c->stage = NOVA_SCRUB_STAGE_ROOT;
		c->meta_done = false;
		c->pgoff = 0;
		break;
	case NOVA_SCRUB_STAGE_ROOT:
		err = nova_scrub_inode(s, NOVA_ROOT_INO, buf);
		if (err)
			return err;
		c->stage = NOVA_SCRUB_STAGE_TABLES;
		c->cpu = 0;
		c->idx = U64_MAX;	/* nova_scrub_next_slot() makes it 0 */
		if (!nova_scrub_next_slot(s))
			c->stage = NOVA_SCRUB_STAGE_SNAP_LOG;
		break;
	case NOVA_SCRUB_STAGE_TABLES:
		err = nova_scrub_inode(s, nova_ino_make(sbi->cpus, c->cpu,
							c->idx), buf);
		if (err)
			return err;
		if (!nova_scrub_next_slot(s))
			c->stage = NOVA_SCRUB_STAGE_SNAP_LOG;
		break;
	case NOVA_SCRUB_STAGE_SNAP_LOG:
		err = nova_scrub_snap_log(s);
		if (err)
			return err;
		c->stage = NOVA_SCRUB_STAGE_KEPT_RUNS;
		c->runs.snap = 0;
		c->runs.skip = 0;
		break;
	case NOVA_SCRUB_STAGE_KEPT_RUNS:
		err = nova_scrub_kept_runs(s, buf);
		if (err)
			return err;
		if (c->runs.snap == U64_MAX) {
			c->stage = NOVA_SCRUB_STAGE_KEPT_INODES;
			c->kept = 0;
			c->pgoff = 0;
			c->meta_done = false;
		}
		break;
	case NOVA_SCRUB_STAGE_KEPT_INODES: {
		u64 ino;
		u32 gen;

		if (nova_snapshot_kept_inode(s->sb, c->kept, &ino, &gen)) {
			c->stage = NOVA_SCRUB_STAGE_DONE;
			break;
		}
		err = nova_scrub_kept_inode(s, ino, gen, buf);
		if (err)
			return err;
		c->kept++;
		c->pgoff = 0;
		c->meta_done = false;
		break;
	}
	case NOVA_SCRUB_STAGE_DONE:
		break;
	}
	return 0;
}

static int nova_scrub_thread(void *arg)
{
	struct nova_scrub *s = arg;
	struct nova_scrub_status *st;
	void *buf;
	int err = 0;

	buf = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		err = -ENOMEM;
	s->run_start = ktime_get_ns();
	s->run_bytes = 0;
	while (!err && s->cur.stage != NOVA_SCRUB_STAGE_DONE) {
		err = nova_scrub_step(s, buf);
		if (!err && !nova_scrub_throttle(s))
			err = -EINTR;
	}
	kfree(buf);

	spin_lock(&s->lock);
	s->st.run_ns += ktime_get_ns() - s->st.run_since;
	s->st.run_since = 0;
	if (err == -EINTR || err == -EROFS) {
		/* Asked to stop, or read-only now: resumable. */
		s->st.state = NOVA_SCRUB_PAUSED;
		s->st.err = err == -EROFS ? EROFS : 0;
	} else {
		s->st.state = NOVA_SCRUB_FINISHED;
		if (!err)
			s->st.bytes_total = s->st.bytes_scanned;
		s->st.err = -err;
		s->st.finish_ns = ktime_get_real_ns();
		s->st.passes++;
	}
	spin_unlock(&s->lock);
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (st) {
		nova_scrub_get_status(s, st);
		if (st->state == NOVA_SCRUB_FINISHED) {
			nova_info(s->sb, "scrub finished: %llu bad objects, %llu repaired, %llu not repairable",
				  st->errors, st->repaired, st->unrecoverable);
			nova_report_event(s->sb, NOVA_EVENT_SCRUB_FINISHED,
					  st);
		}
		kfree(st);
	}
	return 0;
}

/* ---- control ---- */

struct nova_scrub *nova_scrub_alloc(struct super_block *sb)
{
	struct nova_scrub *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->sb = sb;
	mutex_init(&s->ctl_mutex);
	spin_lock_init(&s->lock);
	ratelimit_state_init(&s->rs, 5 * HZ, 20);
	s->st.state = NOVA_SCRUB_IDLE;
	return s;
}

/* Stop and reap the thread, if any. Caller holds ctl_mutex. */
static void nova_scrub_reap(struct nova_scrub *s)
{
	lockdep_assert_held(&s->ctl_mutex);
	if (!s->task)
		return;
	kthread_stop(s->task);
	put_task_struct(s->task);
	s->task = NULL;
}

/* @sb's scrub, or NULL if none was started since mount. */
struct nova_scrub *nova_scrub_of(struct super_block *sb)
{
	return READ_ONCE(NOVA_SB(sb)->scrub);
}

/*
 * @sb's scrub, created on first use (NULL: out of memory). The caller
 * holds an active reference on @sb; kill_sb frees it.
 */
struct nova_scrub *nova_scrub_get(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_scrub *s = nova_scrub_of(sb), *old;

	if (s)
		return s;
	s = nova_scrub_alloc(sb);
	if (!s)
		return NULL;
	old = cmpxchg(&sbi->scrub, NULL, s);
	if (old) {
		nova_scrub_free(s);
		return old;
	}
	return s;
}

/* The scrub's share of the statistics (nova_fs_get_stats()). */
void nova_scrub_stats(struct super_block *sb, struct nova_fs_stats *st)
{
	struct nova_scrub *s = nova_scrub_of(sb);
	struct nova_scrub_status *ss;

	if (!s)
		return;
	ss = kmalloc(sizeof(*ss), GFP_KERNEL);	/* the status copy is big */
	if (!ss)
		return;
	nova_scrub_get_status(s, ss);
	st->scrub_state = ss->state;
	st->scrub_passes = ss->passes;
	st->scrub_bytes = ss->all_bytes;
	st->scrub_errors = ss->all_errors;
	st->scrub_repaired = ss->all_repaired;
	st->scrub_unrecoverable = ss->all_unrecoverable;
	kfree(ss);
}

void nova_scrub_free(struct nova_scrub *s)
{
	if (!s)
		return;
	mutex_lock(&s->ctl_mutex);
	nova_scrub_reap(s);
	mutex_unlock(&s->ctl_mutex);
	kfree(s);
}

/* A new pass: counters and the list start again. Caller holds ctl_mutex. */
static void nova_scrub_reset(struct nova_scrub *s)
{
	u64 total;

	lockdep_assert_held(&s->ctl_mutex);
	total = nova_scrub_total(s->sb);
	memset(&s->cur, 0, sizeof(s->cur));
	s->cur.stage = NOVA_SCRUB_STAGE_FIXED;
	spin_lock(&s->lock);
	/* Only the totals since mount survive (from passes to all_*). */
	memset(&s->st, 0, offsetof(struct nova_scrub_status, passes));
	s->st.bytes_total = total;
	s->st.start_ns = ktime_get_real_ns();
	spin_unlock(&s->lock);
}

/*
 * Start a pass, or resume the paused one unless @restart. @set_bw: take
 * @bw as the new limit (else a resumed pass keeps its limit and a new one
 * is unlimited). The caller holds an active reference on the super block
 * and has checked it is writable. -EALREADY if a pass is running.
 */
int nova_scrub_start(struct nova_scrub *s, bool set_bw, u64 bw, bool restart)
{
	struct task_struct *t;
	u32 state;
	u64 keep;

	mutex_lock(&s->ctl_mutex);
	spin_lock(&s->lock);
	state = s->st.state;
	keep = s->st.bandwidth;
	spin_unlock(&s->lock);
	if (state == NOVA_SCRUB_RUNNING) {
		mutex_unlock(&s->ctl_mutex);
		return -EALREADY;
	}
	nova_scrub_reap(s);
	if (restart || state != NOVA_SCRUB_PAUSED) {
		nova_scrub_reset(s);
		keep = 0;
	}
	spin_lock(&s->lock);
	s->st.bandwidth = set_bw ? bw : keep;
	s->st.state = NOVA_SCRUB_RUNNING;
	s->st.err = 0;
	s->st.run_since = ktime_get_ns();
	spin_unlock(&s->lock);
	/* nova_scrub_current() recognises the thread by its function. */
	t = kthread_create(nova_scrub_thread, s, "nova_scrub/%s", s->sb->s_id);
	if (IS_ERR(t)) {
		spin_lock(&s->lock);
		s->st.state = NOVA_SCRUB_PAUSED;
		s->st.run_since = 0;
		spin_unlock(&s->lock);
		mutex_unlock(&s->ctl_mutex);
		return PTR_ERR(t);
	}
	get_task_struct(t);
	s->task = t;
	wake_up_process(t);
	mutex_unlock(&s->ctl_mutex);
	return 0;
}

/* Pause the running pass; returns once the thread has stopped. */
int nova_scrub_stop(struct nova_scrub *s)
{
	u32 state;

	mutex_lock(&s->ctl_mutex);
	spin_lock(&s->lock);
	state = s->st.state;
	spin_unlock(&s->lock);
	nova_scrub_reap(s);
	mutex_unlock(&s->ctl_mutex);
	return state == NOVA_SCRUB_RUNNING ? 0 : -EALREADY;
}

void nova_scrub_get_status(struct nova_scrub *s, struct nova_scrub_status *st)
{
	spin_lock(&s->lock);
	*st = s->st;
	spin_unlock(&s->lock);
	/* The running time so far, not only that of the ended runs. */
	if (st->run_since)
		st->run_ns += ktime_get_ns() - st->run_since;
}

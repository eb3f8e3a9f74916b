// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: repairs. Only what can be repaired without guessing:
 *
 *   REP_JOURNAL  roll back open lite-journal transactions, exactly as the
 *                kernel's recovery does at mount (old values, then close
 *                the ring);
 *   REP_STATE    a saved allocator state that is wrong (leaks, blocks both
 *                used and free, unreadable) is dropped: the superblock is
 *                marked dirty, so the next mount rebuilds the allocator
 *                from the logs instead of trusting the saved ranges;
 *   REP_HINTS    the superblock's counters of a clean file system;
 *   REP_SUPER    a bad or stale superblock copy is rewritten from the good
 *                one (primary first, then the replica, each made durable).
 *
 * Inconsistencies in logs, names and link counts are reported, not
 * repaired: the logs are the only record of what the files contain.
 */
#include <string.h>

#include "fsck.h"
#include "le.h"

static bool repair_journals(struct fsck *f)
{
	struct nerr e;
	unsigned int i, cpu;

	/* 1. the old values of every recorded word, durable */
	for (i = 0; i < f->nr_undo; i++) {
		__le64 v = cpu64(f->undo[i].old);

		if (ndev_write(f->dev, f->undo[i].addr, &v, sizeof(v), &e)) {
			fsck_oper(f, "%s", e.msg);
			return false;
		}
	}
	if (ndev_sync(f->dev, &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	/* 2. close every ring: tail = head */
	for (cpu = 0; cpu < f->cpus; cpu++) {
		uint64_t off = NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK) +
			       cpu * sizeof(struct nova_journal_ptr);
		const struct nova_journal_ptr *jp = fsck_ptr(f, off, sizeof(*jp));

		if (le32(jp->j_csum) != nova_jp_csum(jp) ||
		    le64(jp->j_head) == le64(jp->j_tail))
			continue;
		if (ndev_write(f->dev, off + offsetof(struct nova_journal_ptr,
						      j_tail),
			       &jp->j_head, sizeof(jp->j_head), &e)) {
			fsck_oper(f, "%s", e.msg);
			return false;
		}
	}
	if (ndev_sync(f->dev, &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	fsck_fixed(f, "rolled back %u journaled words of interrupted operations",
		   f->nr_undo);
	return true;
}

static bool write_supers(struct fsck *f)
{
	uint8_t blk[NOVA_BLOCK_SIZE];
	struct nerr e;

	memset(blk, 0, sizeof(blk));
	nova_sb_seal(&f->sb);
	memcpy(blk, &f->sb, sizeof(f->sb));
	/* Primary, durable, then the replica, durable (as the kernel). */
	if (ndev_write(f->dev, 0, &f->sb, sizeof(f->sb), &e) ||
	    ndev_sync(f->dev, &e) ||
	    ndev_write(f->dev, NOVA_OFF(f->nblocks - 1), blk, sizeof(blk), &e) ||
	    ndev_sync(f->dev, &e)) {
		fsck_oper(f, "%s", e.msg);
		return false;
	}
	return true;
}

void fsck_repair(struct fsck *f)
{
	unsigned long fixable = 0;
	bool sb = false;
	int i;

	if (f->fixable[REP_JOURNAL]) {
		if (!repair_journals(f))
			return;
		f->fixed += f->fixable[REP_JOURNAL];
	}
	if (f->fixable[REP_STATE]) {
		f->sb.s_state = cpu32(NOVA_STATE_DIRTY);
		sb = true;
	}
	/* Counters are only worth fixing on an otherwise sound file system. */
	for (i = 0; i < REP_NR; i++)
		fixable += f->fixable[i];
	if (f->fixable[REP_HINTS] && fixable < f->problems) {
		f->sb = f->orig_sb_hints;
		f->fixable[REP_HINTS] = 0;
	}
	if (f->fixable[REP_HINTS] || f->fixable[REP_SUPER])
		sb = true;
	if (!sb)
		return;
	if (!write_supers(f))
		return;
	if (f->fixable[REP_STATE]) {
		fsck_fixed(f, "marked the file system dirty: the next mount rebuilds the allocator from the logs");
		f->fixed += f->fixable[REP_STATE];
	}
	if (f->fixable[REP_HINTS]) {
		fsck_fixed(f, "corrected the superblock counters");
		f->fixed += f->fixable[REP_HINTS];
	}
	if (f->fixable[REP_SUPER]) {
		fsck_fixed(f, "rewrote %s superblock",
			   !f->primary_ok ? "the primary" :
			   "the replica");
		f->fixed += f->fixable[REP_SUPER];
	}
}

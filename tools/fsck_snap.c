// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: the snapshot log (format 1.1), the log of NOVA_SNAPSHOT_INO,
 * read as module/snapshot.c reads it at mount. First the snapshot and
 * delete records in log order give the live snapshots (ids increasing,
 * never reused, a delete naming a live snapshot, at most
 * NOVA_MAX_SNAPSHOTS live); then each keep record whose blocks a live
 * snapshot still needs (born <= epoch < dead) owns those data blocks.
 * Keep records no live snapshot needs are history and own nothing.
 * Inode records (format 1.2) a live snapshot needs keep a removed inode:
 * its slot (i_valid 0, same generation) owns its log and data as a live
 * inode would; a record whose slot is still live is void (the removal did
 * not commit), and a later record for an inode replaces an earlier one.
 */
#include <stdlib.h>
#include <string.h>

#include "fsck.h"
#include "le.h"

struct snap {
	uint64_t id, epoch;
};

struct snap_ctx {
	struct fsck_inode *in;
	struct snap *live;		/* in log order = epoch order */
	unsigned int nr;
	uint64_t next_id;
	uint64_t *keeps;		/* offsets of keep records */
	uint64_t nr_keeps, cap_keeps;
	uint64_t *inodes;		/* offsets of inode records */
	uint64_t nr_inodes, cap_inodes;
	bool bad;
};

static bool snap_bad(struct fsck *f, struct snap_ctx *c, uint64_t off,
		     const char *what)
{
	fsck_problem(f, "snapshot log: %s at %llu", what,
		     (unsigned long long)off);
	c->bad = true;
	return false;
}

static bool push_off(struct fsck *f, uint64_t **v, uint64_t *nr,
		     uint64_t *cap, uint64_t off)
{
	if (*nr == *cap) {
		uint64_t ncap = *cap ? *cap * 2 : 256;
		uint64_t *k = realloc(*v, ncap * sizeof(*k));

		if (!k) {
			fsck_oper(f, "out of memory");
			return false;
		}
		*v = k;
		*cap = ncap;
	}
	(*v)[(*nr)++] = off;
	return true;
}

static bool snap_entry(struct fsck *f, uint64_t off,
		       const struct nova_log_entry_header *h, void *arg)
{
	struct snap_ctx *c = arg;
	unsigned int size = le16(h->e_size);
	uint64_t trans = le64(h->e_trans_id);
	unsigned int i;

	if (trans > f->max_trans)
		f->max_trans = trans;
	switch (h->e_type) {
	case NOVA_LOG_SNAPSHOT: {
		const struct nova_snapshot_entry *sn = (const void *)h;
		uint64_t id;

		if (size != sizeof(*sn))
			return snap_bad(f, c, off, "snapshot record of the wrong size");
		id = le64(sn->sn_id);
		if (!id || id < c->next_id)
			return snap_bad(f, c, off, "snapshot id 0 or reused");
		if (sn->sn_name[NOVA_SNAPSHOT_NAME_LEN - 1])
			return snap_bad(f, c, off, "snapshot name not NUL-terminated");
		if (c->nr >= NOVA_MAX_SNAPSHOTS)
			return snap_bad(f, c, off, "more live snapshots than NOVA_MAX_SNAPSHOTS");
		c->live[c->nr].id = id;
		c->live[c->nr].epoch = le64(sn->sn_epoch);
		c->nr++;
		c->next_id = id + 1;
		if (!f->any_snap_epoch || le64(sn->sn_epoch) > f->max_snap_epoch)
			f->max_snap_epoch = le64(sn->sn_epoch);
		f->any_snap_epoch = true;
		return true;
	}
	case NOVA_LOG_SNAPSHOT_DEL: {
		const struct nova_snapshot_del_entry *sd = (const void *)h;

		if (size != sizeof(*sd))
			return snap_bad(f, c, off, "delete record of the wrong size");
		for (i = 0; i < c->nr && c->live[i].id != le64(sd->sd_id); i++)
			;
		if (i == c->nr)
			return snap_bad(f, c, off, "delete of a snapshot that is not live");
		memmove(&c->live[i], &c->live[i + 1],
			(c->nr - i - 1) * sizeof(c->live[0]));
		c->nr--;
		return true;
	}
	case NOVA_LOG_SNAPSHOT_KEEP:
		if (size != sizeof(struct nova_snapshot_keep_entry))
			return snap_bad(f, c, off, "keep record of the wrong size");
		return push_off(f, &c->keeps, &c->nr_keeps, &c->cap_keeps, off);
	case NOVA_LOG_SNAPSHOT_INODE:
		if (size != sizeof(struct nova_snapshot_inode_entry))
			return snap_bad(f, c, off, "inode record of the wrong size");
		return push_off(f, &c->inodes, &c->nr_inodes, &c->cap_inodes,
				off);
	default:
		return snap_bad(f, c, off, "entry that is not a snapshot record");
	}
}

/* Does a live snapshot show blocks born in @born and dead in @dead? */
static bool needed(const struct snap_ctx *c, uint64_t born, uint64_t dead)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (c->live[i].epoch >= born && c->live[i].epoch < dead)
			return true;
	return false;
}

/* Is inode record @i replaced by a later one for the same inode? */
static bool replaced(struct fsck *f, const struct snap_ctx *c, uint64_t i)
{
	const struct nova_snapshot_inode_entry *si =
		fsck_ptr(f, c->inodes[i], sizeof(*si));
	uint64_t j;

	for (j = i + 1; j < c->nr_inodes; j++) {
		const struct nova_snapshot_inode_entry *sj =
			fsck_ptr(f, c->inodes[j], sizeof(*sj));

		if (le64(sj->si_ino) == le64(si->si_ino) &&
		    needed(c, le64(sj->si_born), le64(sj->si_dead)))
			return true;
	}
	return false;
}

/* The removed inodes live snapshots keep. */
static void check_kept_inodes(struct fsck *f, const struct snap_ctx *c)
{
	uint64_t i;

	for (i = 0; i < c->nr_inodes; i++) {
		const struct nova_snapshot_inode_entry *si =
			fsck_ptr(f, c->inodes[i], sizeof(*si));
		uint64_t ino = le64(si->si_ino), off, valid;
		const struct nova_inode *pi;

		if (!needed(c, le64(si->si_born), le64(si->si_dead)) ||
		    replaced(f, c, i))
			continue;
		off = fsck_slot_off(f, ino);
		pi = off ? fsck_ptr(f, off, sizeof(*pi)) : NULL;
		if (!pi || le64(pi->i_ino) != ino ||
		    le32(pi->i_generation) != le32(si->si_generation)) {
			fsck_problem(f, "snapshot log: removed inode %llu is kept, but its slot holds something else",
				     (unsigned long long)ino);
			continue;
		}
		valid = fsck_word(f, &pi->i_valid);
		if (valid == 1)
			continue;	/* void: the removal did not commit */
		if (valid)
			continue;	/* reported by the table check */
		fsck_check_kept_inode(f, ino, off);
	}
}

void fsck_check_snapshots(struct fsck *f, struct fsck_inode *in)
{
	uint64_t head = in->head, tail = in->tail, i, kept = 0;
	struct snap_ctx c = { .in = in, .next_id = 1 };

	c.live = calloc(NOVA_MAX_SNAPSHOTS, sizeof(*c.live));
	if (!c.live) {
		fsck_oper(f, "out of memory");
		return;
	}
	if (!head && tail) {
		fsck_problem(f, "snapshot log: tail %llu without a log",
			     (unsigned long long)tail);
		in->bad = true;
	} else if (head && (!fsck_walk_log(f, in->ino, head, tail, BK_LOG,
					   snap_entry, &c, &in->log_pages) ||
			    c.bad)) {
		in->bad = true;
	}
	f->log_pages += in->log_pages;
	for (i = 0; !in->bad && i < c.nr_keeps; i++) {
		const struct nova_snapshot_keep_entry *sk =
			fsck_ptr(f, c.keeps[i], sizeof(*sk));
		uint64_t blk = le64(sk->sk_block);
		uint32_t n = le32(sk->sk_count);

		if (!n || !fsck_blocks_ok(f, blk, n)) {
			fsck_problem(f, "snapshot log: keep record at %llu: blocks %llu+%u out of range",
				     (unsigned long long)c.keeps[i],
				     (unsigned long long)blk, n);
			continue;
		}
		if (!needed(&c, le64(sk->sk_born), le64(sk->sk_dead)))
			continue;	/* history: its blocks were freed */
		if (fsck_claim(f, blk, n, BK_DATA, in->ino, "snapshot-kept data"))
			kept += n;
	}
	in->data_pages = kept;
	f->data_pages += kept;
	f->live_snapshots = c.nr;
	if (!in->bad)
		check_kept_inodes(f, &c);
	fsck_info(f, 1, "snapshots: %u live, %llu kept data blocks",
		  c.nr, (unsigned long long)kept);
	free(c.live);
	free(c.keeps);
	free(c.inodes);
}

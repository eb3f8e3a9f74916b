// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: the superblock, primary (block 0) and replica (last block).
 */
#include <string.h>

#include "fsck.h"
#include "le.h"
#include "probe.h"

static bool read_sb(struct fsck *f, uint64_t off, struct nova_super_block *sb)
{
	const void *p = fsck_ptr(f, off, sizeof(*sb));

	if (!p)
		return false;
	memcpy(sb, p, sizeof(*sb));
	return true;
}

/*
 * A primary without the NOVA magic next to a valid replica: a damaged copy
 * (the replica stands in) or a device reformatted over NOVA, whose replica
 * is a leftover? The rule is the kernel's, written above
 * nova_sb_uuid_matches() in nova_format.h.
 */
static bool replica_may_stand_in(struct fsck *f,
				 const struct nova_super_block *p,
				 const struct nova_super_block *r)
{
	const char *foreign = nova_probe_signature(f->dev);

	if (foreign) {
		fsck_oper(f, "%s: the device holds a %s signature; the NOVA superblock replica in the last block is a leftover, not a file system to repair",
			  f->dev->path, foreign);
		return false;
	}
	if (!nova_sb_uuid_matches(p, r)) {
		fsck_oper(f, "%s: block 0 holds no NOVA superblock and not this file system's UUID; the replica in the last block is a leftover of an earlier format",
			  f->dev->path);
		return false;
	}
	return true;
}

bool fsck_check_super(struct fsck *f)
{
	struct nova_super_block p, r;
	char pwhy[160] = "unreadable", rwhy[160] = "unreadable";
	uint64_t dev_size = f->dev->size & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	uint64_t roff;
	bool pok = false, rok = false, pmagic;

	if (dev_size < (uint64_t)NOVA_MIN_BLOCKS * NOVA_BLOCK_SIZE) {
		fsck_oper(f, "%s: device too small for NOVA (%llu bytes)",
			  f->dev->path, (unsigned long long)f->dev->size);
		return false;
	}
	memset(&p, 0, sizeof(p));
	if (read_sb(f, 0, &p))
		pok = nova_sb_valid(&p, dev_size, pwhy, sizeof(pwhy));
	pmagic = le32(p.s_magic) == NOVA_SUPER_MAGIC;

	/* The replica is the last block of the file system. */
	roff = (pok ? le64(p.s_size) : dev_size) - NOVA_BLOCK_SIZE;
	memset(&r, 0, sizeof(r));
	if (read_sb(f, roff, &r))
		rok = nova_sb_valid(&r, dev_size, rwhy, sizeof(rwhy));
	if (rok && !pok && le64(r.s_size) - NOVA_BLOCK_SIZE != roff) {
		/* A replica claiming another size is not at its place. */
		rok = false;
		snprintf(rwhy, sizeof(rwhy), "its size %llu puts it elsewhere",
			 (unsigned long long)le64(r.s_size));
	}

	if (rok && !pok && !pmagic && !replica_may_stand_in(f, &p, &r))
		return false;

	f->primary_ok = pok;
	f->replica_ok = rok;
	if (!pok && !rok) {
		if (!pmagic && le32(r.s_magic) != NOVA_SUPER_MAGIC) {
			fsck_oper(f, "%s: no NOVA file system found (no superblock magic in block 0 or in the last block)",
				  f->dev->path);
			return false;
		}
		fsck_problem(f, "primary superblock: %s", pwhy);
		fsck_problem(f, "replica superblock: %s", rwhy);
		fsck_info(f, 0, "both superblocks are unusable; nothing else can be checked");
		return false;
	}
	if (pok) {
		f->sb = p;
		if (!rok)
			fsck_problem_fix(f, REP_SUPER, "replica superblock (block %llu): %s",
				     (unsigned long long)(roff >> NOVA_BLOCK_SHIFT),
				     rwhy);
		else if (memcmp(&p, &r, sizeof(p)))
			/*
			 * Both copies are valid: the kernel writes the primary,
			 * fences, then the replica, and a crash in between
			 * leaves this. It uses the primary and rewrites both
			 * when it next mounts read-write: not an inconsistency.
			 */
			fsck_info(f, 0, "replica superblock differs from the primary (an interrupted superblock update; the primary is used and the kernel rewrites both at the next read-write mount)");
	} else {
		f->sb = r;
		fsck_problem_fix(f, REP_SUPER, "primary superblock: %s; using the replica", pwhy);
	}

	f->nblocks = le64(f->sb.s_size) >> NOVA_BLOCK_SHIFT;
	f->cpus = le32(f->sb.s_cpus);
	nova_layout_compute(f->nblocks, le32(f->sb.s_feature_incompat),
			    &f->layout);
	f->clean = le32(f->sb.s_state) == NOVA_STATE_CLEAN;
	if (le64(f->sb.s_size) < f->dev->size)
		fsck_info(f, 1, "file system is %llu bytes, the device %llu",
			  (unsigned long long)le64(f->sb.s_size),
			  (unsigned long long)f->dev->size);
	fsck_info(f, 1, "superblock: format %u.%u, %llu blocks, %u CPU stripes, protection: %s, %s",
		  le16(f->sb.s_version_major), le16(f->sb.s_version_minor),
		  (unsigned long long)f->nblocks, f->cpus,
		  nova_protection_name(le32(f->sb.s_feature_incompat)),
		  f->clean ? "clean" : "dirty (mounted or not cleanly unmounted)");
	return true;
}

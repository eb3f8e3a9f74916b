// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: disk quotas (format 1.7, NOVA_FEATURE_QUOTA; docs/fs.md "Quotas").
 *
 * The kernel's generic quota layer (fs/quota/dquot.c) does the work, as
 * for ext4 with its "quota" feature: the quota files are hidden regular
 * files in the reserved inodes NOVA_USR_QUOTA_INO and NOVA_GRP_QUOTA_INO
 * (DQUOT_QUOTA_SYS_FILE, quotactl through dquot_quotactl_sysfile_ops), in
 * the "vfsv1" tree format. They are read straight from PMEM and written by
 * NOVA's own copy-on-write file write (a write entry and a tail commit per
 * quota_write, like any file), so a quota file is always some committed
 * state.
 *
 * What is charged: a file's data blocks (what its write entries map, a
 * block symlink's target), in bytes, and one inode per inode. Log pages
 * are the file system's own and are not charged. The DRAM inode's
 * i_blocks is the charged amount, kept by the quota layer; stat(2) reports
 * data and log pages (nova_getattr()). Every place that changes a file's
 * data pages calls nova_quota_charge() afterwards, which charges or frees
 * the difference (never failing: the blocks are already in use). Limits
 * are checked before blocks are allocated (nova_quota_check() from
 * nova_alloc_data()): a write, fault or fallocate that would pass the hard
 * limit gets EDQUOT. As writes are copy-on-write, an overwrite needs room
 * for its new blocks before it frees the old ones, as on btrfs.
 *
 * Once the feature is on, usage is tracked on every read-write mount of
 * the live file system, limits are enforced for the types named by the
 * mount options (usrquota, grpquota) or turned on later by quotaon.
 *
 * Crash rule: usage lives in DRAM dquots and reaches the quota files when
 * they are written back (sync, quota sync, the last reference to a dquot,
 * unmount), so after a power cut the files may be behind. Crash recovery
 * already rebuilds the allocator from every inode, so a mount after a
 * crash recounts usage from the live inodes (nova_quota_recount()) before
 * anything else runs; limits and grace times are never lost (a
 * quota_write is atomic).
 *
 * Locking (nova.h): quota I/O (dqio_sem) runs with no NOVA lock held. The
 * operations call dquot_initialize() (which may read and write quota files)
 * before taking log_lock; under log_lock only nova_quota_charge() runs,
 * which updates DRAM dquots and marks them dirty, no I/O. The quota inodes
 * take no i_rwsem: the quota layer serializes their I/O itself.
 */
#include <linux/quotaops.h>
#include <linux/uio.h>

#include "nova.h"
#include "nova_reserved.h"
#include "pmem.h"

/* Quota file of each type, NOVA_QUOTA_TYPES of them. */
static const u64 nova_quota_ino[NOVA_QUOTA_TYPES] = {
	[USRQUOTA] = NOVA_USR_QUOTA_INO,
	[GRPQUOTA] = NOVA_GRP_QUOTA_INO,
	[PRJQUOTA] = NOVA_PRJ_QUOTA_INO,
};

static const char *const nova_quota_name[NOVA_QUOTA_TYPES] = {
	[USRQUOTA] = "user",
	[GRPQUOTA] = "group",
	[PRJQUOTA] = "project",
};

/* Header of an empty vfsv1 quota file (fs/quota/quotaio_v2.h). */
static const u32 nova_quota_magic[NOVA_QUOTA_TYPES] = {
	[USRQUOTA] = 0xd9c01f11,
	[GRPQUOTA] = 0xd9c01927,
	[PRJQUOTA] = 0xd9c03f14,
};

#define NOVA_QUOTA_BLOCK	1024	/* tree block of the v2 format */
#define NOVA_QUOTA_GRACE	(7 * 24 * 3600)	/* as quotacheck's default */

nova_dquot_t **nova_get_dquots(struct inode *inode)
{
	return NOVA_I(inode)->i_dquot;
}

static qsize_t *nova_get_reserved_space(struct inode *inode)
{
	return &NOVA_I(inode)->quota_rsv;
}

/* The project id the quota layer charges @inode to (fileattr.c). */
static int nova_get_projid(struct inode *inode, kprojid_t *projid)
{
	*projid = make_kprojid(&init_user_ns, READ_ONCE(NOVA_I(inode)->projid));
	return 0;
}

static const struct dquot_operations nova_quota_ops = {
	.get_reserved_space	= nova_get_reserved_space,
	.get_projid		= nova_get_projid,
	.write_dquot		= dquot_commit,
	.acquire_dquot		= dquot_acquire,
	.release_dquot		= dquot_release,
	.mark_dirty		= dquot_mark_dquot_dirty,
	.write_info		= dquot_commit_info,
	.alloc_dquot		= dquot_alloc,
	.destroy_dquot		= dquot_destroy,
	.get_next_id		= dquot_get_next_id,
};

/*
 * Bring the charged bytes of @inode (i_blocks) to its data pages, after a
 * change of them. Cannot fail; with quotas off (or at replay, before
 * dquot_initialize()) it only sets i_blocks.
 */
void nova_quota_charge(struct inode *inode)
{
	qsize_t want = (qsize_t)NOVA_I(inode)->data_pages << NOVA_BLOCK_SHIFT;
	qsize_t have = inode_get_bytes(inode);

	if (want > have)
		__dquot_alloc_space(inode, want - have,
				    DQUOT_SPACE_WARN | DQUOT_SPACE_NOFAIL);
	else if (want < have)
		__dquot_free_space(inode, have - want, 0);
}

/*
 * May @inode get @blocks more data blocks? 0 or -EDQUOT. No lock needed.
 * Without limits enabled (no quota, or usage tracking only) nothing can
 * refuse: skip the reservation round trip (two i_lock rounds and the
 * dquot lookups) on every allocation of the write path.
 */
int nova_quota_check(struct inode *inode, unsigned long blocks)
{
	struct super_block *sb = inode->i_sb;
	int err;

	if (IS_NOQUOTA(inode) ||
	    !(sb_has_quota_limits_enabled(sb, USRQUOTA) ||
	      sb_has_quota_limits_enabled(sb, GRPQUOTA) ||
	      sb_has_quota_limits_enabled(sb, PRJQUOTA)))
		return 0;
	err = dquot_reserve_block(inode, blocks);
	if (!err)
		dquot_release_reservation_block(inode, blocks);
	return err;
}

/* The inode is gone from the live file system: give back what it had. */
void nova_quota_free_inode(struct inode *inode)
{
	if (IS_NOQUOTA(inode))
		return;
	dquot_initialize(inode);
	__dquot_free_space(inode, inode_get_bytes(inode), 0);
	dquot_free_inode(inode);
}

/*
 * A chown or chgrp whose setattr entry did not commit: the charges
 * dquot_transfer() moved go back to the ids @inode still has.
 */
void nova_quota_transfer_back(struct inode *inode)
{
	struct dquot *to[MAXQUOTAS] = { };
	int type;

	to[USRQUOTA] = dqget(inode->i_sb, make_kqid_uid(inode->i_uid));
	to[GRPQUOTA] = dqget(inode->i_sb, make_kqid_gid(inode->i_gid));
	for (type = 0; type < MAXQUOTAS; type++)
		if (IS_ERR(to[type]))
			to[type] = NULL;
	if (__dquot_transfer(inode, to))
		nova_warn(inode->i_sb, "inode %lu: quota charges stay with the new owner",
			  inode->i_ino);
	for (type = 0; type < MAXQUOTAS; type++)
		dqput(to[type]);
}

/*
 * A project id change (fileattr.c): the charges of @inode go to project
 * @projid (or back). 0 or -EDQUOT past the new project's hard limit.
 * No NOVA lock held (quota I/O).
 */
int nova_quota_transfer_projid(struct inode *inode, u32 projid)
{
	struct dquot *to[MAXQUOTAS] = { };
	int err;

	if (IS_NOQUOTA(inode))
		return 0;
	err = dquot_initialize(inode);
	if (err)
		return err;
	to[PRJQUOTA] = dqget(inode->i_sb,
			     make_kqid_projid(make_kprojid(&init_user_ns,
							   projid)));
	/* No project quota file loaded: nothing to move. */
	if (IS_ERR(to[PRJQUOTA]))
		return 0;
	err = __dquot_transfer(inode, to);
	dqput(to[PRJQUOTA]);
	return err;
}

ssize_t nova_quota_read(struct super_block *sb, int type, char *data,
			       size_t len, loff_t off)
{
	struct inode *inode = sb_dqopt(sb)->files[type];
	struct nova_sb_info *sbi = NOVA_SB(sb);
	loff_t size = i_size_read(inode);
	size_t done = 0;

	if (off >= size)
		return 0;
	len = min_t(loff_t, len, size - off);
	mutex_lock(&NOVA_I(inode)->log_lock);
	while (done < len) {
		loff_t pos = off + done;
		unsigned int o = pos & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, PAGE_SIZE - o, len - done);
		u64 blk = nova_file_block(inode, pos >> PAGE_SHIFT);

		if (!blk)
			memset(data + done, 0, n);
		else if (copy_mc_to_kernel(data + done,
					   nova_block(sbi, blk) + o, n))
			break;
		done += n;
	}
	mutex_unlock(&NOVA_I(inode)->log_lock);
	return done < len ? -EIO : len;
}

ssize_t nova_quota_write(struct super_block *sb, int type,
			 const char *data, size_t len, loff_t off)
{
	return nova_file_write_kernel(sb_dqopt(sb)->files[type], data, len,
				      off);
}

/*
 * A free quota inode slot becomes an empty regular file: written whole
 * while not live, then published by its valid word. 1 if it was created.
 */
static int nova_quota_create(struct super_block *sb, u64 ino)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi = nova_get_pinode(sb, ino);
	struct nova_reserved_attrs a = { .mode = S_IFREG | 0600, .nlink = 1 };
	struct nova_inode t;
	struct timespec64 now;

	if (le64_to_cpu(READ_ONCE(pi->i_valid)))
		return 0;
	ktime_get_real_ts64(&now);
	a.sec = now.tv_sec;
	a.nsec = now.tv_nsec;
	a.create_trans = nova_next_trans(sbi);
	/* Not live (i_valid 0) until the commit below. */
	nova_reserved_inode_fill(&t, ino, &a);
	nova_pmem_memcpy(pi, &t, sizeof(t));
	if (sbi->layout.meta_replica)
		nova_pmem_memcpy(nova_replica_pi(sbi, pi), &t, sizeof(t));
	nova_pmem_fence();
	nova_pi_commit64(sbi, &pi->i_valid, 1);
	return 1;
}

/* An empty quota file gets the header and root block quotacheck writes. */
static int nova_quota_init_file(struct inode *inode, int type)
{
	__le32 *w;
	ssize_t ret;

	if (i_size_read(inode))
		return 0;
	w = kzalloc(2 * NOVA_QUOTA_BLOCK, GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w[0] = cpu_to_le32(nova_quota_magic[type]);	/* dqh_magic */
	w[1] = cpu_to_le32(1);				/* dqh_version */
	w[2] = cpu_to_le32(NOVA_QUOTA_GRACE);		/* dqi_bgrace */
	w[3] = cpu_to_le32(NOVA_QUOTA_GRACE);		/* dqi_igrace */
	w[4] = 0;					/* dqi_flags */
	w[5] = cpu_to_le32(2);		/* dqi_blocks: header, tree root */
	ret = nova_file_write_kernel(inode, w, 2 * NOVA_QUOTA_BLOCK, 0);
	kfree(w);
	if (ret < 0)
		return ret;
	return ret == 2 * NOVA_QUOTA_BLOCK ? 0 : -ENOSPC;
}

static int nova_quota_load(struct super_block *sb, int type, bool limits)
{
	struct inode *inode;
	int err;

	inode = nova_iget_reserved(sb, nova_quota_ino[type]);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (!S_ISREG(inode->i_mode)) {
		nova_err(sb, "quota inode %llu is not a regular file",
			 nova_quota_ino[type]);
		iput(inode);
		return -EFSCORRUPTED;
	}
	inode->i_flags |= S_NOQUOTA;
	err = nova_quota_init_file(inode, type);
	if (!err)
		err = dquot_load_quota_inode(inode, type, QFMT_VFS_V1,
					     DQUOT_USAGE_ENABLED |
					     (limits ? DQUOT_LIMITS_ENABLED : 0));
	iput(inode);
	return err;
}

/* What nova_fill_super() sets before the first inode is read. */
void nova_quota_setup_sb(struct super_block *sb)
{
	sb->dq_op = &nova_quota_ops;
	sb->s_qcop = &dquot_quotactl_sysfile_ops;
	sb->s_quota_types = QTYPE_MASK_USR | QTYPE_MASK_GRP | QTYPE_MASK_PRJ;
}

/*
 * A read-write mount of the live file system: with the feature (or when
 * @limits, a mask of 1 << type, asks for quotas, which turns it on) load
 * every quota file, enforcing limits for the types in @limits.
 */
int nova_quota_on(struct super_block *sb, unsigned int limits)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	bool created = false;
	int type, err;

	if (!limits && !(READ_ONCE(sbi->prot) & NOVA_FEATURE_QUOTA))
		return 0;
	err = nova_enable_feature(sb, NOVA_FEATURE_QUOTA, "disk quotas");
	if (!err && (limits & (1U << PRJQUOTA)))
		err = nova_enable_feature(sb, NOVA_FEATURE_PROJID,
					  "project ids");
	if (err)
		return err;
	/*
	 * Hidden quota files. Not DQUOT_NOLIST_DIRTY (ext4's journalled
	 * quotas write a dquot when it changes): dirty dquots go on the
	 * dirty list, which sync_fs writes back.
	 */
	sb_dqopt(sb)->flags |= DQUOT_QUOTA_SYS_FILE;
	for (type = 0; type < NOVA_QUOTA_TYPES; type++) {
		/*
		 * The project quota file only with project ids (1.8): a
		 * module without them would not keep it up to date.
		 */
		if (type == PRJQUOTA &&
		    !(READ_ONCE(sbi->prot) & NOVA_FEATURE_PROJID))
			continue;
		err = nova_quota_create(sb, nova_quota_ino[type]);
		if (err > 0)
			created = true;
		if (err >= 0)
			err = nova_quota_load(sb, type, limits & (1U << type));
		if (err) {
			nova_err(sb, "cannot load the %s quota file: %d",
				 nova_quota_name[type], err);
			nova_quota_off(sb);
			return err;
		}
	}
	/*
	 * New quota files know nothing of the files there are; after a
	 * crash they may be behind: count usage from the inodes.
	 */
	if (created)
		nova_quota_recount(sb, "new quota files");
	else if (sbi->recovered)
		nova_quota_recount(sb, "crash recovery");
	return 0;
}

/* Unmount, remount read-only: every dquot written back, files released. */
void nova_quota_off(struct super_block *sb)
{
	dquot_disable(sb, -1, DQUOT_USAGE_ENABLED | DQUOT_LIMITS_ENABLED);
}

/* The types whose limits are enforced, as a mask of 1 << type. */
unsigned int nova_quota_limits(struct super_block *sb)
{
	unsigned int m = 0;
	int type;

	for (type = 0; type < NOVA_QUOTA_TYPES; type++)
		if (sb_has_quota_limits_enabled(sb, type))
			m |= 1U << type;
	return m;
}

bool nova_quota_loaded(struct super_block *sb)
{
	return sb_any_quota_loaded(sb);
}

/* ---- after a crash: usage from the live inodes ---- */

/* Zero the usage of every id the quota file of @type knows. */
static void nova_quota_zero(struct super_block *sb, int type)
{
	struct kqid qid = make_kqid(&init_user_ns, type, 0);
	struct dquot *dq;
	u32 id;

	for (;;) {
		if (dquot_get_next_id(sb, &qid))
			break;
		dq = dqget(sb, qid);
		if (!IS_ERR_OR_NULL(dq)) {
			spin_lock(&dq->dq_dqb_lock);
			dq->dq_dqb.dqb_curspace = 0;
			dq->dq_dqb.dqb_curinodes = 0;
			spin_unlock(&dq->dq_dqb_lock);
			dquot_mark_dquot_dirty(dq);
			dqput(dq);
		}
		id = from_kqid(&init_user_ns, qid);
		if (id >= U32_MAX - 1)
			break;
		qid = make_kqid(&init_user_ns, type, id + 1);
	}
}

/*
 * Charge one live inode to its ids. Mount runs with CAP_SYS_RESOURCE, so
 * no limit refuses it; i_blocks is taken off and charged back.
 */
static void nova_quota_add(struct super_block *sb, u64 ino)
{
	struct inode *inode = nova_iget(sb, ino);
	qsize_t bytes;

	if (IS_ERR(inode))
		return;
	if (!dquot_initialize(inode)) {
		bytes = inode_get_bytes(inode);
		inode_set_bytes(inode, 0);
		__dquot_alloc_space(inode, bytes, DQUOT_SPACE_NOFAIL);
		if (dquot_alloc_inode(inode))
			nova_warn(sb, "inode %llu: not counted in its quota",
				  ino);
	}
	iput(inode);
}

/*
 * After crash recovery, the quota files may be behind (usage is written
 * back lazily), and new ones know nothing: set every id's usage to what
 * the live inodes have (the root directory included). Runs at mount,
 * before the file system is visible. Limits and grace times
 * stay as the files have them.
 */
void nova_quota_recount(struct super_block *sb, const char *why)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned int cpu;
	unsigned long idx;
	int type;

	for (type = 0; type < NOVA_QUOTA_TYPES; type++)
		nova_quota_zero(sb, type);
	nova_quota_add(sb, NOVA_ROOT_INO);
	for (cpu = 0; cpu < sbi->cpus; cpu++) {
		struct nova_inode_map *m = &sbi->imaps[cpu];
		unsigned long limit = (unsigned long)m->nr_blocks *
				      NOVA_INODES_PER_TABLE;

		for (idx = 0; idx < limit; idx++) {
			u64 ino = nova_ino_make(sbi->cpus, cpu, idx);
			struct nova_inode *pi = nova_get_pinode(sb, ino);

			if (!pi || le64_to_cpu(READ_ONCE(pi->i_valid)) != 1)
				continue;
			nova_quota_add(sb, ino);
			cond_resched();
		}
	}
	dquot_writeback_dquots(sb, -1);
	nova_info(sb, "quota usage counted from the inodes (%s)", why);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: file attribute flags (chattr(1), lsattr(1); FS_IOC_GETFLAGS,
 * FS_IOC_SETFLAGS, FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR through the VFS
 * fileattr layer).
 *
 * Supported: immutable, append-only, noatime, nodump, sync, and dirsync
 * on directories (what ext4 offers of these). The DAX flag (FS_DAX_FL,
 * FS_XFLAG_DAX; chattr +x) is accepted and ignored: every NOVA inode is
 * S_DAX, as on ext4 or xfs mounted with dax=always, where the flag
 * changes nothing either (statx() shows STATX_ATTR_DAX). Unlike them NOVA
 * does not keep it (that would take a flag bit and a format feature), so
 * lsattr never shows it. Anything else asked for is EOPNOTSUPP. The flags
 * live in the inode's log: a setattr entry with
 * NOVA_ATTR_FLAGS carries them all (sa_flags, NOVA_FL_*), committed with
 * the new ctime by one tail store, so a chattr is atomic across a crash.
 * Replay, snapshots and garbage collection treat it as any setattr entry
 * (GC restates the flags with the other attributes). The first chattr on
 * a file system made before format 1.6 sets NOVA_FEATURE_FILEATTR
 * (nova_enable_feature()): an older module refuses the file system
 * instead of ignoring an immutable flag.
 *
 * Enforcement: nova_set_inode_flags() maps the flags to S_IMMUTABLE,
 * S_APPEND, S_NOATIME, S_SYNC, S_DIRSYNC, which the VFS checks on open,
 * link, unlink, rename, setxattr, chmod/chown/utimes, fallocate and
 * mmap of append-only files. NOVA checks what the VFS leaves to the file
 * system: write(2) through a descriptor opened before the flag was set
 * (nova_write_iter()), truncate and other setattr (nova_setattr()),
 * shared writable mappings of immutable files (nova_file_mmap() and the
 * write fault). The VFS (fileattr_set_prepare()) requires
 * CAP_LINUX_IMMUTABLE to change immutable or append-only, and ownership
 * for the rest.
 *
 * Inheritance (nova_fileattr_inherit()): a new inode takes the
 * inheritable flags of the directory it is created in, as ext4 does:
 * noatime, nodump, sync and dirsync go to a new directory; noatime,
 * nodump and sync to a new regular file; noatime and nodump to anything
 * else (symlinks, devices, fifos, sockets, whiteouts). Immutable and
 * append-only are never inherited. They are a setattr entry with
 * NOVA_ATTR_FLAGS in the new inode's log, committed while the inode is
 * still unpublished (i_valid 0), so the operation that publishes the
 * inode publishes its flags with it: no crash shows the inode without
 * them.
 *
 * Locking (nova.h): i_rwsem (the VFS), then sb_mutex alone for the feature
 * upgrade, then invalidate_lock and log_lock.
 */
#include <linux/fs.h>
#include <linux/fileattr.h>
#include <linux/mm.h>
#include <linux/stat.h>

#include "nova.h"

/* NOVA_FL_* and the FS_*_FL they stand for. */
static const struct {
	u16 nova;
	u32 fs;
	unsigned int s;
} nova_fl_map[] = {
	{ NOVA_FL_IMMUTABLE,	FS_IMMUTABLE_FL,	S_IMMUTABLE },
	{ NOVA_FL_APPEND,	FS_APPEND_FL,		S_APPEND },
	{ NOVA_FL_NOATIME,	FS_NOATIME_FL,		S_NOATIME },
	{ NOVA_FL_NODUMP,	FS_NODUMP_FL,		0 },
	{ NOVA_FL_SYNC,		FS_SYNC_FL,		S_SYNC },
	{ NOVA_FL_DIRSYNC,	FS_DIRSYNC_FL,		S_DIRSYNC },
	{ NOVA_FL_PROJINHERIT,	FS_PROJINHERIT_FL,	0 },
};

#define NOVA_S_FLAGS	(S_IMMUTABLE | S_APPEND | S_NOATIME | S_SYNC | S_DIRSYNC)

/* What a new inode takes from its directory (ext4's EXT4_FL_INHERITED). */
#define NOVA_FL_INHERITED	(NOVA_FL_NOATIME | NOVA_FL_NODUMP | \
				 NOVA_FL_SYNC | NOVA_FL_DIRSYNC | \
				 NOVA_FL_PROJINHERIT)
/* Of those, what regular files and other non-directories keep. */
#define NOVA_FL_REG_MASK	(NOVA_FL_NOATIME | NOVA_FL_NODUMP | NOVA_FL_SYNC)
#define NOVA_FL_OTHER_MASK	(NOVA_FL_NOATIME | NOVA_FL_NODUMP)

/* The inode's i_flags from its NOVA flags (as ext4_set_inode_flags()). */
void nova_set_inode_flags(struct inode *inode)
{
	u16 flags = NOVA_I(inode)->attr_flags;
	unsigned int s = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(nova_fl_map); i++)
		if (flags & nova_fl_map[i].nova)
			s |= nova_fl_map[i].s;
	inode_set_flags(inode, s, NOVA_S_FLAGS);
}

static u32 nova_fl_to_fs(u16 flags)
{
	u32 fs = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(nova_fl_map); i++)
		if (flags & nova_fl_map[i].nova)
			fs |= nova_fl_map[i].fs;
	return fs;
}

/* The FS_*_FL that @inode may have (dirsync: directories only). */
static u32 nova_fs_settable(struct inode *inode)
{
	u32 fs = nova_fl_to_fs(NOVA_FL_ALL_1_8);

	if (!S_ISDIR(inode->i_mode))
		fs &= ~FS_DIRSYNC_FL;
	return fs;
}

/* statx(2) attributes: immutable, append-only, nodump (as ext4). */
void nova_fileattr_statx(struct inode *inode, struct kstat *stat)
{
	u16 flags = READ_ONCE(NOVA_I(inode)->attr_flags);

	if (flags & NOVA_FL_IMMUTABLE)
		stat->attributes |= STATX_ATTR_IMMUTABLE;
	if (flags & NOVA_FL_APPEND)
		stat->attributes |= STATX_ATTR_APPEND;
	if (flags & NOVA_FL_NODUMP)
		stat->attributes |= STATX_ATTR_NODUMP;
	stat->attributes_mask |= STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND |
				 STATX_ATTR_NODUMP;
}

int nova_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);

	fileattr_fill_flags(fa, nova_fl_to_fs(READ_ONCE(NOVA_I(inode)->attr_flags)));
	fa->fsx_projid = READ_ONCE(NOVA_I(inode)->projid);
	return 0;
}

/*
 * Log a setattr entry with @mask (NOVA_ATTR_FLAGS among it) giving @inode
 * the flags @flags (and with NOVA_ATTR_PROJID the project id @projid),
 * commit and apply it. Caller holds the log lock.
 */
static int nova_fileattr_log(struct inode *inode, u32 mask, u16 flags,
			     u32 projid)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	struct nova_setattr_entry sa;
	u64 tail = 0;
	int err;

	lockdep_assert_held(&ni->log_lock);
	nova_setattr_entry(inode, &sa, mask, nova_next_trans(sbi));
	sa.sa_flags = cpu_to_le16(flags);
	if (mask & NOVA_ATTR_PROJID)
		NOVA_SA_PROJID(&sa) = cpu_to_le32(projid);
	err = nova_log_append(inode, &sa, &tail);
	if (err)
		return err;
	nova_log_commit(inode, tail);
	nova_apply_entry(inode, ni->last_append,
			 nova_addr(sbi, ni->last_append), NULL);
	return 0;
}

int nova_fileattr_set(nova_idmap_t *idmap, struct dentry *dentry,
		      struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info *ni = NOVA_I(inode);
	bool reg = S_ISREG(inode->i_mode);
	u32 projid = fa->fsx_projid, old_projid = READ_ONCE(ni->projid);
	u32 mask = NOVA_ATTR_FLAGS | NOVA_ATTR_CTIME;
	/* Always DAX: the DAX flag asks for nothing (see the top). */
	u32 fsflags = fa->flags & ~FS_DAX_FL;
	struct timespec64 ctime;
	u16 flags = 0;
	int err, i;

	/*
	 * Extent sizes and xflags other than the common ones are not kept.
	 * The VFS gives a FS_IOC_SETFLAGS the current project id.
	 */
	if (fa->fsx_valid &&
	    ((fa->fsx_xflags & ~FS_XFLAG_COMMON) || fa->fsx_extsize ||
	     fa->fsx_cowextsize))
		return -EOPNOTSUPP;
	if (fsflags & ~nova_fs_settable(inode))
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(nova_fl_map); i++)
		if (fsflags & nova_fl_map[i].fs)
			flags |= nova_fl_map[i].nova;
	if (flags == READ_ONCE(ni->attr_flags) && projid == old_projid)
		return 0;
	err = nova_enable_feature(sb, NOVA_FEATURE_FILEATTR, "file attributes");
	if (!err && (projid || (flags & NOVA_FL_PROJINHERIT)))
		err = nova_enable_feature(sb, NOVA_FEATURE_PROJID,
					  "project ids");
	if (err)
		return err;
	if (READ_ONCE(NOVA_SB(sb)->prot) & NOVA_FEATURE_PROJID)
		mask |= NOVA_ATTR_PROJID;
	/*
	 * Project quotas (quota.c), before any NOVA lock: the new project
	 * takes over the charges (EDQUOT if over its hard limit).
	 */
	if (projid != old_projid) {
		err = nova_quota_transfer_projid(inode, projid);
		if (err)
			return err;
	}

	/* No write fault may map a page while the flag changes. */
	if (reg)
		filemap_invalidate_lock(inode->i_mapping);
	mutex_lock(&ni->log_lock);
	ctime = nova_get_ctime(inode);
	nova_set_ctime(inode, current_time(inode));
	err = nova_fileattr_log(inode, mask, flags, projid);
	if (err)
		nova_set_ctime(inode, ctime);
	mutex_unlock(&ni->log_lock);
	/* Not committed: the charges go back to the project it still has. */
	if (err && projid != old_projid &&
	    nova_quota_transfer_projid(inode, old_projid))
		nova_warn(sb, "inode %lu: quota charges stay with project %u",
			  inode->i_ino, projid);
	/*
	 * Writable mappings of a file that became immutable go: the next
	 * write through them faults and is refused (nova_dax_huge_fault()).
	 */
	if (!err && reg && IS_IMMUTABLE(inode))
		unmap_mapping_range(inode->i_mapping, 0, 0, 0);
	if (reg)
		filemap_invalidate_unlock(inode->i_mapping);
	return err;
}

/*
 * The project id a new inode in @dir starts with (before its quota
 * charge): @dir's if @dir has the inherit flag, else 0 (as ext4).
 */
u32 nova_fileattr_new_projid(struct inode *dir)
{
	struct nova_inode_info *d = NOVA_I(dir);

	return READ_ONCE(d->attr_flags) & NOVA_FL_PROJINHERIT ?
	       READ_ONCE(d->projid) : 0;
}

/*
 * Give @inode, new and not yet published (i_valid 0), the inheritable
 * flags of @dir and its project id (set by nova_new_inode() already),
 * committed to its log. Its publication by the caller makes them visible
 * with it; on error the caller discards the inode.
 */
int nova_fileattr_inherit(struct inode *inode, struct inode *dir)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	u16 flags = READ_ONCE(NOVA_I(dir)->attr_flags) & NOVA_FL_INHERITED;
	u32 mask = NOVA_ATTR_FLAGS;
	int err;

	if (S_ISREG(inode->i_mode))
		flags &= NOVA_FL_REG_MASK;
	else if (!S_ISDIR(inode->i_mode))
		flags &= NOVA_FL_OTHER_MASK;
	if (ni->projid)
		mask |= NOVA_ATTR_PROJID;
	if (!flags && !ni->projid)
		return 0;
	/* Set already: @dir has flags (and a project id). */
	err = nova_enable_feature(sb, NOVA_FEATURE_FILEATTR, "file attributes");
	if (!err && ni->projid)
		err = nova_enable_feature(sb, NOVA_FEATURE_PROJID,
					  "project ids");
	if (err)
		return err;
	mutex_lock(&ni->log_lock);
	err = nova_fileattr_log(inode, mask, flags, ni->projid);
	mutex_unlock(&ni->log_lock);
	return err;
}

/*
 * May @inode get a name in @dir (link, rename)? Not into a directory
 * with the inherit flag from another project: -EXDEV, as ext4, so that
 * mv copies and the copy is charged to the directory's project.
 */
int nova_fileattr_projid_check(struct inode *dir, struct inode *inode)
{
	if ((READ_ONCE(NOVA_I(dir)->attr_flags) & NOVA_FL_PROJINHERIT) &&
	    READ_ONCE(NOVA_I(dir)->projid) != READ_ONCE(NOVA_I(inode)->projid))
		return -EXDEV;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: inode attributes: setattr, getattr, timestamps and link counts.
 *
 * An attribute change after creation is a log entry, not a slot update:
 * a setattr entry (mode, owner, times, flags, project, size) or a link
 * change entry, applied to DRAM with nova_apply_entry() (iget.c) once
 * committed and replayed by nova_iget().
 *
 * Crash behaviour: an attribute change is one committed log entry: after
 * a crash it is there whole or not at all. A size change that drops
 * pages a snapshot shows commits its keep records with the entry
 * (snapshot.c); a shrink to the middle of a page zeroes that page's tail
 * only after the new size is durable, so a crash loses no data that was
 * still in the file.
 *
 * Locking (nova.h): the inode's log_lock around the append and apply;
 * quota calls come before it (quota.c).
 */
#include <linux/pagemap.h>
#include <linux/iversion.h>
#include <linux/quotaops.h>

#include "nova.h"
#include "xattr.h"

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
				DIV_ROUND_UP((u64)attr->ia_size, PAGE_SIZE),
				ULONG_MAX);
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

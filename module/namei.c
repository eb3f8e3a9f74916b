// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: name space operations.
 *
 * Every operation follows the same pattern: append the entries it needs to
 * each log involved (unpublished), publish all new log tails and i_valid
 * words in one lite-journal transaction, then apply the entries to the DRAM
 * inodes with the same code that replays logs at load time. A crash before
 * the journal transaction leaves no trace; after it, the whole operation.
 * Nothing is deleted in place: a removed name is a new dentry entry.
 *
 * rename(RENAME_WHITEOUT) (overlayfs) leaves a whiteout, a character
 * device 0/0, at the old name. Its inode is written like any new inode
 * (durable, i_valid 0) before the log locks are taken; the old name's
 * dentry entry then names it instead of removing the name, and its
 * i_valid = 1 is one more word of the rename's journal transaction. So a
 * crash leaves either the old name on the moved inode (the whiteout slot
 * still free) or the new name on it and the whiteout at the old one.
 *
 * Link counts: a directory's own count travels in its dentry entries;
 * another inode's count changes by a link change entry in its log, except
 * that the last link's removal commits i_valid = 0 instead, so an unlinked
 * inode is dead on media at once and its space is reclaimed at eviction.
 *
 * Locking (nova.h): the VFS holds i_rwsem of the parents and children;
 * the log_lock of every inode involved is taken by nova_lock_logs().
 */
#include <linux/exportfs.h>

#include "nova.h"
#include "xattr.h"
#include "pmem.h"

/* Entries appended by one operation, applied in order after the commit. */
struct nova_op {
	struct super_block *sb;
	u64 trans;
	struct nova_jword w[NOVA_JOURNAL_MAX_WORDS];
	struct inode *owner[NOVA_JOURNAL_MAX_WORDS];	/* of a log tail word */
	int nw;
	struct {
		struct inode *inode;
		u64 off;
	} applied[6];
	int na;
};

static void nova_op_word(struct nova_op *op, __le64 *word, u64 val,
			 struct inode *owner)
{
	op->w[op->nw].word = word;
	op->w[op->nw].val = val;
	op->owner[op->nw] = owner;
	op->nw++;
}

/* Record the entry @inode's last nova_log_append() wrote, to apply it. */
static void nova_op_entry(struct nova_op *op, struct inode *inode)
{
	op->applied[op->na].inode = inode;
	op->applied[op->na].off = NOVA_I(inode)->last_append;
	op->na++;
}

static void nova_op_tail(struct nova_op *op, struct inode *inode, u64 tail)
{
	nova_op_word(op, &nova_pi(inode)->i_log_tail, tail, inode);
}

static void nova_op_valid(struct nova_op *op, struct inode *inode, u64 val)
{
	nova_op_word(op, &nova_pi(inode)->i_valid, val, NULL);
}

/* Publish everything, then bring the DRAM inodes up to date. */
static void nova_op_commit(struct nova_op *op)
{
	struct nova_sb_info *sbi = NOVA_SB(op->sb);
	int i;

	nova_journal_commit(op->sb, op->w, op->nw);
	for (i = 0; i < op->nw; i++)
		if (op->owner[i])
			NOVA_I(op->owner[i])->log_tail = op->w[i].val;
	for (i = 0; i < op->na; i++)
		nova_apply_entry(op->applied[i].inode, op->applied[i].off,
				 nova_addr(sbi, op->applied[i].off), NULL);
}

static struct dentry *nova_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct nova_dentry_node *n;
	struct inode *inode = NULL;
	u64 start = nova_op_start();

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	/* The root's .snapshots shadows an entry of that name (snapview.c). */
	if (nova_snapdir_name(dir, &dentry->d_name))
		return d_splice_alias(nova_snapdir_inode(dir->i_sb), dentry);
	n = nova_dir_find(dir, dentry->d_name.name, dentry->d_name.len);
	if (n) {
		inode = nova_iget(dir->i_sb, n->ino);
		if (inode == ERR_PTR(-ESTALE)) {
			nova_err(dir->i_sb, "directory %lu: entry '%pd' points to free inode %llu",
				 dir->i_ino, dentry, n->ino);
			inode = ERR_PTR(-EFSCORRUPTED);
		}
	}
	nova_op_done(dir->i_sb, NOVA_CTL_OP_LOOKUP, start);
	return d_splice_alias(inode, dentry);
}

/* Create @inode (new, unpublished) under @dentry. */
static int nova_add_new(struct inode *dir, struct dentry *dentry,
			struct inode *inode, u64 trans)
{
	struct nova_op op = { .sb = dir->i_sb, .trans = trans };
	unsigned int links = dir->i_nlink + (S_ISDIR(inode->i_mode) ? 1 : 0);
	u64 tail = 0;
	int err;

	mutex_lock(&NOVA_I(dir)->log_lock);
	err = nova_dir_entry(dir, dentry->d_name.name, dentry->d_name.len,
			     inode, links, trans, &tail);
	if (err) {
		mutex_unlock(&NOVA_I(dir)->log_lock);
		nova_discard_inode(inode);
		return err;
	}
	nova_op_entry(&op, dir);
	nova_op_tail(&op, dir, tail);
	nova_op_valid(&op, inode, 1);
	nova_op_commit(&op);
	mutex_unlock(&NOVA_I(dir)->log_lock);
	d_instantiate_new(dentry, inode);
	return 0;
}

static int nova_mknod_op(nova_idmap_t *idmap, struct inode *dir,
			 struct dentry *dentry, umode_t mode, dev_t rdev,
			 enum nova_ctl_op stat)
{
	u64 start = nova_op_start(), trans;
	struct posix_acl *default_acl, *acl;
	struct inode *inode;
	int err;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	err = posix_acl_create(dir, &mode, &default_acl, &acl);
	if (err)
		return err;
	inode = nova_new_inode(idmap, dir, mode, rdev, &trans);
	if (IS_ERR(inode)) {
		posix_acl_release(default_acl);
		posix_acl_release(acl);
		return PTR_ERR(inode);
	}
	err = nova_xattr_init_new(inode, dir, &dentry->d_name, default_acl,
				  acl);
	if (!err)
		err = nova_fileattr_inherit(inode, dir);
	if (err) {
		nova_discard_inode(inode);
		return err;
	}
	err = nova_add_new(dir, dentry, inode, trans);
	nova_op_done(dir->i_sb, stat, start);
	return err;
}

static int nova_create(nova_idmap_t *idmap, struct inode *dir,
		       struct dentry *dentry, umode_t mode, bool excl)
{
	return nova_mknod_op(idmap, dir, dentry, mode, 0, NOVA_CTL_OP_CREATE);
}

static int nova_mknod(nova_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode, dev_t rdev)
{
	return nova_mknod_op(idmap, dir, dentry, mode, rdev,
			     NOVA_CTL_OP_CREATE);
}

static int nova_mkdir(nova_idmap_t *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode)
{
	return nova_mknod_op(idmap, dir, dentry, S_IFDIR | mode, 0,
			     NOVA_CTL_OP_MKDIR);
}

static int nova_symlink(nova_idmap_t *idmap, struct inode *dir,
			struct dentry *dentry, const char *target)
{
	struct nova_sb_info *sbi = NOVA_SB(dir->i_sb);
	size_t len = strlen(target);
	u64 start = nova_op_start(), trans;
	struct inode *inode;
	int err;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	if (len >= NOVA_BLOCK_SIZE)
		return -ENAMETOOLONG;
	inode = nova_new_inode(idmap, dir, S_IFLNK | 0777, 0, &trans);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	inode->i_size = len;
	if (len < NOVA_INLINE_SIZE) {
		/* Fast symlink: the target, NUL included, inside the inode. */
		nova_rewrite_new_inode(inode, NOVA_INODE_INLINE_SYMLINK,
				       target, len + 1);
		inode->i_link = (char *)nova_pi(inode)->i_inline;
	} else {
		unsigned long blk, got;
		__le64 ptr;

		/* The target block counts against the owner's quota. */
		err = nova_quota_check(inode, 1);
		if (!err)
			err = nova_alloc_blocks(dir->i_sb, 1, false,
						NOVA_BLOCK_DATA, &blk, &got);
		if (err) {
			nova_discard_inode(inode);
			return err;
		}
		/* Target and its NUL durable before the inode points at it. */
		nova_pmem_memcpy(nova_block(sbi, blk), target, len + 1);
		ptr = cpu_to_le64(blk);
		nova_rewrite_new_inode(inode, NOVA_INODE_BLOCK_SYMLINK, &ptr,
				       sizeof(ptr));
		NOVA_I(inode)->data_pages = 1;
		nova_quota_charge(inode);
		inode->i_link = nova_block(sbi, blk);
	}
	err = nova_xattr_init_new(inode, dir, &dentry->d_name, NULL, NULL);
	if (!err)
		err = nova_fileattr_inherit(inode, dir);
	if (err) {
		/* Eviction frees the target block with the dead inode. */
		nova_discard_inode(inode);
		return err;
	}
	err = nova_add_new(dir, dentry, inode, trans);
	nova_op_done(dir->i_sb, NOVA_CTL_OP_SYMLINK, start);
	return err;
}

static int nova_tmpfile(nova_idmap_t *idmap, struct inode *dir,
			struct file *file, umode_t mode)
{
	struct posix_acl *default_acl, *acl;
	struct inode *inode;
	u64 trans;
	int err;

	err = posix_acl_create(dir, &mode, &default_acl, &acl);
	if (err)
		return err;
	inode = nova_new_inode(idmap, dir, mode, 0, &trans);
	if (IS_ERR(inode)) {
		posix_acl_release(default_acl);
		posix_acl_release(acl);
		return PTR_ERR(inode);
	}
	err = nova_xattr_init_new(inode, dir, NULL, default_acl, acl);
	if (!err)
		err = nova_fileattr_inherit(inode, dir);
	if (err) {
		nova_discard_inode(inode);
		return err;
	}
	/*
	 * i_valid stays 0 until linkat() gives the inode a name, so a crash
	 * before that leaves nothing to clean up.
	 */
	d_tmpfile(file, inode);
	unlock_new_inode(inode);
	return finish_open_simple(file, 0);
}

/* Does dropping one link of @inode end it (i_valid = 0)? */
static bool nova_last_link(struct inode *inode)
{
	return S_ISDIR(inode->i_mode) || inode->i_nlink <= 1;
}

/* After the commit: a link change entry already set the new count. */
static void nova_dropped_link(struct inode *inode, bool last,
			      struct timespec64 now)
{
	if (last)
		clear_nlink(inode);
	nova_set_ctime(inode, now);
}

/*
 * Drop one link of @inode within @op: a link change entry, or, for the
 * last link (or a directory), i_valid = 0.
 */
static int nova_op_drop_link(struct nova_op *op, struct inode *inode)
{
	u64 tail = 0;
	int err;

	if (nova_last_link(inode)) {
		/* A snapshot showing it keeps it: record that first. */
		err = nova_snapshot_keep_inode(inode);
		if (err)
			return err;
		nova_op_valid(op, inode, 0);
		return 0;
	}
	err = nova_link_change_entry(inode, inode->i_nlink - 1, op->trans,
				     &tail);
	if (err)
		return err;
	nova_op_entry(op, inode);
	nova_op_tail(op, inode, tail);
	return 0;
}

static int nova_link(struct dentry *old_dentry, struct inode *dir,
		     struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	struct nova_op op = { .sb = dir->i_sb };
	struct inode *locks[2] = { dir, inode };
	u64 start = nova_op_start(), dtail = 0, itail = 0;
	int err;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	/* Snapshot views (and .snapshots) are read-only. */
	if (nova_is_view(inode))
		return -EROFS;
	err = nova_fileattr_projid_check(dir, inode);
	if (err)
		return err;
	nova_lock_logs(locks, 2);
	op.trans = nova_next_trans(NOVA_SB(dir->i_sb));
	err = nova_dir_entry(dir, dentry->d_name.name, dentry->d_name.len,
			     inode, dir->i_nlink, op.trans, &dtail);
	if (err)
		goto out;
	nova_op_entry(&op, dir);
	nova_op_tail(&op, dir, dtail);
	/*
	 * The link-change entry records the count and the ctime. An O_TMPFILE
	 * inode (no links yet) is also published by the same transaction.
	 */
	err = nova_link_change_entry(inode, inode->i_nlink + 1, op.trans,
				     &itail);
	if (err)
		goto out;
	nova_op_entry(&op, inode);
	nova_op_tail(&op, inode, itail);
	if (!inode->i_nlink)
		nova_op_valid(&op, inode, 1);
	nova_op_commit(&op);
	ihold(inode);
	d_instantiate(dentry, inode);
out:
	nova_unlock_logs(locks, 2);
	nova_op_done(dir->i_sb, NOVA_CTL_OP_LINK, start);
	return err;
}

static int nova_remove(struct inode *dir, struct dentry *dentry,
		       enum nova_ctl_op stat)
{
	struct inode *inode = d_inode(dentry);
	struct nova_op op = { .sb = dir->i_sb };
	struct inode *locks[2] = { dir, inode };
	bool is_dir = S_ISDIR(inode->i_mode), last;
	u64 start = nova_op_start(), tail = 0;
	int err;

	if (nova_is_view(inode))
		return -EROFS;
	if (is_dir && !nova_dir_empty(inode))
		return -ENOTEMPTY;
	nova_lock_logs(locks, 2);
	op.trans = nova_next_trans(NOVA_SB(dir->i_sb));
	err = nova_dir_entry(dir, dentry->d_name.name, dentry->d_name.len,
			     NULL, dir->i_nlink - (is_dir ? 1 : 0), op.trans,
			     &tail);
	if (err)
		goto out;
	nova_op_entry(&op, dir);
	nova_op_tail(&op, dir, tail);
	last = nova_last_link(inode);
	err = nova_op_drop_link(&op, inode);
	if (err)
		goto out;
	nova_op_commit(&op);
	nova_dropped_link(inode, last, nova_get_ctime(dir));
out:
	nova_unlock_logs(locks, 2);
	nova_op_done(dir->i_sb, stat, start);
	return err;
}

static int nova_unlink(struct inode *dir, struct dentry *dentry)
{
	return nova_remove(dir, dentry, NOVA_CTL_OP_UNLINK);
}

static int nova_rmdir(struct inode *dir, struct dentry *dentry)
{
	return nova_remove(dir, dentry, NOVA_CTL_OP_RMDIR);
}

/*
 * Record a new ctime for @inode, which a rename moves or exchanges without
 * changing its link count (a link-change entry with the same count).
 */
static int nova_op_touch(struct nova_op *op, struct inode *inode)
{
	u64 tail = 0;
	int err;

	err = nova_link_change_entry(inode, inode->i_nlink, op->trans, &tail);
	if (err)
		return err;
	nova_op_entry(op, inode);
	nova_op_tail(op, inode, tail);
	return 0;
}

/* Append a ".." entry to directory @d naming @parent. */
static int nova_op_dotdot(struct nova_op *op, struct inode *d,
			  struct inode *parent)
{
	u64 tail = 0;
	int err;

	err = nova_dir_entry(d, "..", 2, parent, d->i_nlink, op->trans, &tail);
	if (err)
		return err;
	nova_op_entry(op, d);
	nova_op_tail(op, d, tail);
	return 0;
}

static int nova_rename(nova_idmap_t *idmap, struct inode *old_dir,
		       struct dentry *old_dentry, struct inode *new_dir,
		       struct dentry *new_dentry, unsigned int flags)
{
	struct inode *old = d_inode(old_dentry), *new = d_inode(new_dentry);
	struct inode *whiteout = NULL;
	struct nova_op op = { .sb = old_dir->i_sb };
	bool exchange = flags & RENAME_EXCHANGE;
	bool old_is_dir = S_ISDIR(old->i_mode);
	bool new_is_dir = new && S_ISDIR(new->i_mode);
	bool cross = old_dir != new_dir, last = false;
	struct inode *locks[4] = { old_dir, new_dir, old, new };
	int old_links = old_dir->i_nlink, new_links = new_dir->i_nlink;
	u64 start = nova_op_start(), otail = 0, ntail = 0;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if (new_dentry->d_name.len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	if (nova_is_view(old) || (new && nova_is_view(new)))
		return -EROFS;
	/* Project ids (fileattr.c): EXDEV, and mv copies. */
	err = nova_fileattr_projid_check(new_dir, old);
	if (!err && exchange)
		err = nova_fileattr_projid_check(old_dir, new);
	if (err)
		return err;
	if (!exchange && new_is_dir && !nova_dir_empty(new))
		return -ENOTEMPTY;
	if (flags & RENAME_WHITEOUT) {
		u64 wtrans;

		/* Written and durable, unpublished: i_valid is in @op. */
		whiteout = nova_new_inode(idmap, old_dir,
					  S_IFCHR | WHITEOUT_MODE,
					  WHITEOUT_DEV, &wtrans);
		if (IS_ERR(whiteout))
			return PTR_ERR(whiteout);
		err = nova_fileattr_inherit(whiteout, old_dir);
		if (err) {
			nova_discard_inode(whiteout);
			return err;
		}
	}

	/* Directory link counts after the operation. */
	if (exchange) {
		if (cross && old_is_dir != new_is_dir) {
			old_links += old_is_dir ? -1 : 1;
			new_links += old_is_dir ? 1 : -1;
		}
	} else {
		if (cross && old_is_dir) {
			old_links--;
			new_links++;
		}
		if (new_is_dir)
			new_links--;
	}
	if (!cross) {
		old_links += new_links - new_dir->i_nlink;
		new_links = old_links;
	}

	nova_lock_logs(locks, 4);
	op.trans = nova_next_trans(NOVA_SB(old_dir->i_sb));
	/* The new name first: nothing disappears before it exists. */
	err = nova_dir_entry(new_dir, new_dentry->d_name.name,
			     new_dentry->d_name.len, old, new_links, op.trans,
			     &ntail);
	if (err)
		goto out;
	nova_op_entry(&op, new_dir);
	if (!cross)
		otail = ntail;
	err = nova_dir_entry(old_dir, old_dentry->d_name.name,
			     old_dentry->d_name.len, exchange ? new : whiteout,
			     old_links, op.trans, &otail);
	if (err)
		goto out;
	nova_op_entry(&op, old_dir);
	if (cross)
		nova_op_tail(&op, new_dir, ntail);
	nova_op_tail(&op, old_dir, otail);

	/*
	 * The moved inodes' ctime: a directory moved to another parent gets
	 * it from its new ".." entry, anything else from a link-change entry.
	 */
	if (cross && old_is_dir)
		err = nova_op_dotdot(&op, old, new_dir);
	else
		err = nova_op_touch(&op, old);
	if (err)
		goto out;
	if (exchange) {
		if (cross && new_is_dir)
			err = nova_op_dotdot(&op, new, old_dir);
		else
			err = nova_op_touch(&op, new);
		if (err)
			goto out;
	}
	if (!exchange && new) {
		last = nova_last_link(new);
		err = nova_op_drop_link(&op, new);
		if (err)
			goto out;
	}
	if (whiteout)
		nova_op_valid(&op, whiteout, 1);
	nova_op_commit(&op);
	if (!exchange && new)
		nova_dropped_link(new, last, nova_get_ctime(new_dir));
out:
	nova_unlock_logs(locks, 4);
	if (whiteout) {
		/* Found by lookup from now on; no dentry to instantiate. */
		if (err) {
			nova_discard_inode(whiteout);
		} else {
			unlock_new_inode(whiteout);
			iput(whiteout);
		}
	}
	nova_op_done(old_dir->i_sb, NOVA_CTL_OP_RENAME, start);
	return err;
}

const struct inode_operations nova_dir_inode_operations = {
	.lookup		= nova_lookup,
	.create		= nova_create,
	.link		= nova_link,
	.unlink		= nova_unlink,
	.symlink	= nova_symlink,
	.mkdir		= nova_mkdir,
	.rmdir		= nova_rmdir,
	.mknod		= nova_mknod,
	.rename		= nova_rename,
	.tmpfile	= nova_tmpfile,
	.setattr	= nova_setattr,
	.getattr	= nova_getattr,
	.update_time	= nova_vfs_update_time,
	.listxattr	= nova_listxattr,
	.fileattr_get	= nova_fileattr_get,
	.fileattr_set	= nova_fileattr_set,
	NOVA_ACL_IOPS,
};

/* ---- NFS-style file handles ---- */

static struct inode *nova_nfs_get_inode(struct super_block *sb, u64 ino,
					u32 generation)
{
	struct inode *inode = nova_iget(sb, ino);

	if (IS_ERR(inode))
		return ERR_CAST(inode);
	/*
	 * Never hand out a reused inode. An unlinked one is only found
	 * while something still holds it (its i_valid is 0 on media from
	 * the unlink on, so nova_iget() cannot read it again): a file that
	 * is still open opens by handle, as on ext4 and xfs (generic/467).
	 */
	if (generation && inode->i_generation != generation) {
		iput(inode);
		return ERR_PTR(-ESTALE);
	}
	return inode;
}

static struct dentry *nova_fh_to_dentry(struct super_block *sb,
					struct fid *fid, int fh_len,
					int fh_type)
{
	return generic_fh_to_dentry(sb, fid, fh_len, fh_type,
				    nova_nfs_get_inode);
}

static struct dentry *nova_fh_to_parent(struct super_block *sb,
					struct fid *fid, int fh_len,
					int fh_type)
{
	return generic_fh_to_parent(sb, fid, fh_len, fh_type,
				    nova_nfs_get_inode);
}

static struct dentry *nova_get_parent(struct dentry *child)
{
	struct inode *dir = d_inode(child);

	return d_obtain_alias(nova_iget(dir->i_sb, NOVA_I(dir)->parent));
}

const struct export_operations nova_export_ops = {
	NOVA_EXPORT_ENCODE_FH,
	.fh_to_dentry	= nova_fh_to_dentry,
	.fh_to_parent	= nova_fh_to_parent,
	.get_parent	= nova_get_parent,
};

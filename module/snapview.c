// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: browsing snapshots while the file system is in service.
 *
 * The root of a live mount has a hidden directory .snapshots (found by
 * lookup; listed by readdir only with -o snapdir=visible) holding one
 * directory per live snapshot, named as the snapshot (its id if it has no
 * name). Below it every inode is a view inode: a separate DRAM inode of the
 * same super block, built by replaying the on-media log of inode @ino up
 * to the snapshot's epoch (nova_read_inode() with the snapshot's epoch:
 * nova_replay_entry() skips what is newer), so it shows the inode exactly
 * as the snapshot does. Its inode number is NOVA_VIEW_INO_BIT | id << 40 |
 * ino, which no live inode has (nova inode numbers stay below 2^40).
 *
 * Soundness. A view inode's DRAM state points into the live inode's log
 * by offset (page index, directory names, xattrs), like any inode's:
 *  - Fast GC frees only log pages whose oldest entry is newer than every
 *    live snapshot (nova_gc_page_dead() asks the epoch check), and the
 *    entries a snapshot shows are a prefix of the log: no page holding
 *    one is freed while the snapshot lives.
 *  - Thorough GC moves entries. A view inode of a live inode holds a
 *    reference to the live inode and a pin (nova_inode_info.view_pins,
 *    under the live log_lock) for its whole life; nova_gc_thorough()
 *    leaves a pinned log alone. The view is built under the live log_lock,
 *    so no GC runs meanwhile.
 *  - A removed inode a snapshot keeps (no live inode: i_valid 0 and not
 *    in memory) has a log nothing writes or collects; it is reclaimed
 *    only when the last snapshot showing it is deleted.
 *  - Deleting a snapshot fails with EBUSY while it has view inodes in
 *    memory (nova_snapshot.views, under the table lock). View inodes and
 *    their dentries are dropped with their last reference (drop_inode,
 *    always_delete_dentry), so "in memory" means "in use": an open file,
 *    a working directory, a walk in progress.
 *  - Data pages the snapshot shows are kept by the epoch check.
 *
 * Every write fails with EROFS: ->permission refuses MAY_WRITE (create,
 * unlink, rename into or out of, open for writing, truncate), ->setattr
 * refuses, link, rename and unlink in namei.c refuse view inodes and
 * .snapshots itself, xattr sets refuse (xattr.c), ACL sets refuse
 * (nova_view_set_acl_common(); ACLs read and apply as the snapshot has
 * them, through nova_get_acl() on the view's xattr index), S_NOATIME keeps reads
 * from writing atime, and the DAX iomap refuses IOMAP_WRITE.
 *
 * Locking (nova.h): the view inode's i_rwsem (VFS), the live inode's
 * log_lock, nova_snap_table.lock (snapshot.c). The view count is taken before
 * any log_lock, without other locks held.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/string.h>

#include "nova.h"
#include "xattr.h"

#define NOVA_VIEW_ID_SHIFT	40
#define NOVA_VIEW_MAX_ID	((1ULL << (63 - NOVA_VIEW_ID_SHIFT)) - 1)
#define NOVA_SNAPDIR_INO	NOVA_VIEW_INO_BIT

static unsigned long nova_view_ino(u64 id, u64 ino)
{
	return NOVA_VIEW_INO_BIT | (id << NOVA_VIEW_ID_SHIFT) | ino;
}

unsigned long nova_view_d_ino(struct inode *dir, u64 ino)
{
	return nova_view_ino(NOVA_I(dir)->view_id, ino);
}

/* View dentries go with their last reference (see the header). */
static const struct dentry_operations nova_view_dops = {
	.d_delete	= always_delete_dentry,
};

static int nova_view_permission(nova_idmap_t *idmap, struct inode *inode,
				int mask)
{
	if (mask & MAY_WRITE)
		return -EROFS;
	return generic_permission(idmap, inode, mask);
}

static int nova_view_setattr(nova_idmap_t *idmap, struct dentry *dentry,
			     struct iattr *attr)
{
	return -EROFS;
}

/* ACLs read as the snapshot has them (NOVA_VIEW_ACL_IOPS); never set. */
int nova_view_set_acl_common(nova_idmap_t *idmap, struct inode *inode,
			     struct posix_acl *acl, int type)
{
	return -EROFS;
}

/*
 * The view inode of inode @ino in snapshot @id. Holds a count on the
 * snapshot and, for an inode still live, a reference to the live inode
 * and a pin on its log.
 */
static struct inode *nova_view_iget(struct super_block *sb, u64 id, u64 ino)
{
	struct inode *inode, *live = NULL;
	struct nova_inode_info *ni;
	u64 epoch;
	int err;

	BUILD_BUG_ON(sizeof(unsigned long) < sizeof(u64));
	if (ino != NOVA_ROOT_INO && ino < NOVA_FIRST_INO)
		return ERR_PTR(-ESTALE);
	if (id > NOVA_VIEW_MAX_ID || ino >= 1ULL << NOVA_VIEW_ID_SHIFT)
		return ERR_PTR(-EOVERFLOW);
	inode = iget_locked(sb, nova_view_ino(id, ino));
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	ni = NOVA_I(inode);
	ni->view_id = id;
	ni->view_ino = ino;
	err = nova_snapshot_view_get(sb, id, &epoch);
	if (err)
		goto fail;
	ni->view_counted = true;

	/*
	 * The live inode if there is one (also an unlinked one still in
	 * memory): its log lock keeps GC away while we replay, its pin
	 * afterwards. A removed inode a snapshot keeps has none (ESTALE).
	 */
	live = nova_iget(sb, ino);
	if (IS_ERR(live)) {
		err = PTR_ERR(live);
		live = NULL;
		if (err != -ESTALE)
			goto fail;
	}
	if (live)
		mutex_lock(&NOVA_I(live)->log_lock);
	err = nova_read_inode(inode, ino, epoch);
	if (live) {
		if (!err)
			NOVA_I(live)->view_pins++;
		mutex_unlock(&NOVA_I(live)->log_lock);
		if (err)
			iput(live);
		else
			ni->view_live = live;
	}
	if (err)
		goto fail;
	inode->i_flags |= S_NOATIME | S_NOCMTIME;
	unlock_new_inode(inode);
	return inode;
fail:
	iget_failed(inode);
	return ERR_PTR(err);
}

static struct dentry *nova_view_lookup(struct inode *dir, struct dentry *dentry,
				       unsigned int flags)
{
	struct nova_dentry_node *n;
	struct inode *inode = NULL;

	if (dentry->d_name.len > NOVA_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	n = nova_dir_find(dir, dentry->d_name.name, dentry->d_name.len);
	if (n) {
		inode = nova_view_iget(dir->i_sb, NOVA_I(dir)->view_id, n->ino);
		if (inode == ERR_PTR(-ESTALE)) {
			nova_err(dir->i_sb, "snapshot %llu: directory %llu: entry '%pd' points to free inode %llu",
				 NOVA_I(dir)->view_id, NOVA_I(dir)->view_ino,
				 dentry, n->ino);
			inode = ERR_PTR(-EFSCORRUPTED);
		}
	}
	d_set_d_op(dentry, &nova_view_dops);
	return d_splice_alias(inode, dentry);
}

static const struct inode_operations nova_view_dir_iops = {
	.lookup		= nova_view_lookup,
	.permission	= nova_view_permission,
	.setattr	= nova_view_setattr,
	.getattr	= nova_getattr,
	.listxattr	= nova_listxattr,
	NOVA_VIEW_ACL_IOPS,
};

static const struct inode_operations nova_view_file_iops = {
	.permission	= nova_view_permission,
	.setattr	= nova_view_setattr,
	.getattr	= nova_getattr,
	.listxattr	= nova_listxattr,
	NOVA_VIEW_ACL_IOPS,
};

static const struct inode_operations nova_view_symlink_iops = {
	.get_link	= simple_get_link,
	.permission	= nova_view_permission,
	.setattr	= nova_view_setattr,
	.getattr	= nova_getattr,
	.listxattr	= nova_listxattr,
};

void nova_view_set_ops(struct inode *inode)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &nova_view_file_iops;
		inode->i_fop = &nova_view_file_operations;
		inode->i_mapping->a_ops = &nova_dax_aops;
		break;
	case S_IFDIR:
		inode->i_op = &nova_view_dir_iops;
		inode->i_fop = &nova_view_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &nova_view_symlink_iops;
		break;
	default:
		inode->i_op = &nova_view_file_iops;
		init_special_inode(inode, inode->i_mode, inode->i_rdev);
		break;
	}
}

/* Evict a view inode: DRAM only; drop its pin, live inode and count. */
void nova_view_evict(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct inode *live = ni->view_live;

	truncate_inode_pages_final(&inode->i_data);
	if (ni->view_id) {
		if (S_ISREG(inode->i_mode))
			nova_file_free_index(inode);
		else if (S_ISDIR(inode->i_mode))
			nova_dir_free_index(inode);
		nova_xattr_free_index(inode);
	}
	clear_inode(inode);
	if (live) {
		mutex_lock(&NOVA_I(live)->log_lock);
		WARN_ON_ONCE(!NOVA_I(live)->view_pins);
		NOVA_I(live)->view_pins--;
		mutex_unlock(&NOVA_I(live)->log_lock);
		ni->view_live = NULL;
		iput(live);
	}
	if (ni->view_counted) {
		nova_snapshot_view_put(inode->i_sb, ni->view_id);
		ni->view_counted = false;
	}
}

/* ---- .snapshots ---- */

/* Is @name, looked up in @dir, the .snapshots of a live mount's root? */
bool nova_snapdir_name(struct inode *dir, const struct qstr *name)
{
	return dir->i_ino == NOVA_ROOT_INO &&
	       NOVA_SB(dir->i_sb)->view_epoch == NOVA_EPOCH_LIVE &&
	       name->len == sizeof(NOVA_SNAPDIR_NAME) - 1 &&
	       !memcmp(name->name, NOVA_SNAPDIR_NAME, name->len);
}

static struct dentry *nova_snapdir_lookup(struct inode *dir,
					  struct dentry *dentry,
					  unsigned int flags)
{
	struct inode *inode = NULL;
	u64 id;

	id = nova_snapshot_view_find(dir->i_sb, dentry->d_name.name,
				     dentry->d_name.len);
	if (id) {
		inode = nova_view_iget(dir->i_sb, id, NOVA_ROOT_INO);
		/* Deleted meanwhile: no such name. */
		if (inode == ERR_PTR(-ENOENT))
			inode = NULL;
	}
	d_set_d_op(dentry, &nova_view_dops);
	return d_splice_alias(inode, dentry);
}

/* Position n + 1 is snapshot id n (ids start at 1; 0 and 1 are dots). */
static int nova_snapdir_readdir(struct file *file, struct dir_context *ctx)
{
	struct super_block *sb = file_inode(file)->i_sb;
	char name[NOVA_SNAPSHOT_NAME_LEN];
	u64 id;

	if (!dir_emit_dots(file, ctx))
		return 0;
	while (nova_snapshot_view_next(sb, ctx->pos - 1, &id, name)) {
		if (!dir_emit(ctx, name, strlen(name),
			      nova_view_ino(id, NOVA_ROOT_INO), DT_DIR))
			return 0;
		ctx->pos = id + 2;
	}
	return 0;
}

static const struct inode_operations nova_snapdir_iops = {
	.lookup		= nova_snapdir_lookup,
	.permission	= nova_view_permission,
	.setattr	= nova_view_setattr,
};

static const struct file_operations nova_snapdir_fops = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= nova_snapdir_readdir,
};

struct inode *nova_snapdir_inode(struct super_block *sb)
{
	struct inode *inode = iget_locked(sb, NOVA_SNAPDIR_INO);
	struct timespec64 now;

	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	inode->i_mode = S_IFDIR | 0555;
	set_nlink(inode, 2);
	now = current_time(inode);
	nova_set_atime(inode, now);
	nova_set_mtime(inode, now);
	nova_set_ctime(inode, now);
	inode->i_op = &nova_snapdir_iops;
	inode->i_fop = &nova_snapdir_fops;
	inode->i_flags |= S_NOATIME | S_NOCMTIME;
	unlock_new_inode(inode);
	return inode;
}

/*
 * Readdir of a live root: after its entries, .snapshots with
 * -o snapdir=visible, at position NOVA_SNAPDIR_POS.
 */
void nova_snapdir_emit(struct inode *dir, struct dir_context *ctx)
{
	if (dir->i_ino != NOVA_ROOT_INO ||
	    NOVA_SB(dir->i_sb)->view_epoch != NOVA_EPOCH_LIVE ||
	    !NOVA_SB(dir->i_sb)->snapdir_visible ||
	    ctx->pos > NOVA_SNAPDIR_POS)
		return;
	if (dir_emit(ctx, NOVA_SNAPDIR_NAME, sizeof(NOVA_SNAPDIR_NAME) - 1,
		     NOVA_SNAPDIR_INO, DT_DIR))
		ctx->pos = NOVA_SNAPDIR_POS + 1;
}

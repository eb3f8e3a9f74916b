// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: the inode life cycle: new inodes and eviction.
 *
 * A new inode takes a free slot (itable.c) that is written whole, primary
 * then replica, while its i_valid word is 0; the caller publishes it by
 * committing i_valid = 1, normally in one journal transaction with its
 * directory entry. An evicted inode that is dead (no links, not shown by
 * a live snapshot) gives back its log, its blocks and its slot.
 *
 * Crash behaviour: a crash before i_valid is committed leaves a slot
 * nothing references, free at the next mount. A dead inode's i_valid is
 * already 0 on media when it is evicted (committed with the unlink, or
 * never set for O_TMPFILE), so what eviction frees is unreferenced and
 * only the DRAM allocator hears about it.
 *
 * Locking (nova.h): an inode's log_lock, then its stripe's
 * nova_inode_map.lock, then the allocator's and journals' leaf locks.
 */
#include <linux/random.h>
#include <linux/pagemap.h>
#include <linux/quotaops.h>

#include "nova.h"
#include "xattr.h"

/*
 * Create an inode: a free slot is written completely (i_valid still 0)
 * and made durable. The caller publishes it by committing i_valid = 1,
 * normally in one journal transaction with the new directory entry, then
 * calls d_instantiate_new(); on failure it calls nova_discard_inode().
 */
struct inode *nova_new_inode(nova_idmap_t *idmap, struct inode *dir,
			     umode_t mode, dev_t rdev, u64 *trans)
{
	struct super_block *sb = dir->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode *pi, tmp;
	struct nova_inode_info *ni;
	struct inode *inode;
	u64 ino;
	int err;

	/* The slot is written before the directory entry is appended. */
	if (nova_is_shutdown(sb))
		return ERR_PTR(-EIO);
	inode = new_inode(sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	err = nova_alloc_ino(sb, &ino);
	if (err) {
		iput(inode);
		return ERR_PTR(err);
	}
	ni = NOVA_I(inode);
	nova_init_ni(ni);
	pi = nova_get_pinode(sb, ino);
	ni->pi_off = nova_off(sbi, pi);

	inode->i_ino = ino;
	inode_init_owner(idmap, inode, dir, mode);
	inode->i_generation = get_random_u32();
	inode->i_rdev = rdev;
	ni->crtime = current_time(inode);
	nova_set_atime(inode, ni->crtime);
	nova_set_mtime(inode, ni->crtime);
	nova_set_ctime(inode, ni->crtime);
	set_nlink(inode, S_ISDIR(mode) ? 2 : 1);
	if (S_ISDIR(mode))
		ni->parent = dir->i_ino;
	/* Charged below to it; logged by nova_fileattr_inherit(). */
	ni->projid = nova_fileattr_new_projid(dir);
	nova_set_ops(inode);
	*trans = nova_next_trans(sbi);

	memset(&tmp, 0, sizeof(tmp));
	tmp.i_ino = cpu_to_le64(ino);
	tmp.i_generation = cpu_to_le32(inode->i_generation);
	tmp.i_mode = cpu_to_le16(inode->i_mode);
	tmp.i_uid = cpu_to_le32(i_uid_read(inode));
	tmp.i_gid = cpu_to_le32(i_gid_read(inode));
	tmp.i_nlink = cpu_to_le32(inode->i_nlink);
	tmp.i_rdev = cpu_to_le32(new_encode_dev(rdev));
	nova_ts_to_media(&tmp.i_atime, &ni->crtime);
	nova_ts_to_media(&tmp.i_mtime, &ni->crtime);
	nova_ts_to_media(&tmp.i_ctime, &ni->crtime);
	nova_ts_to_media(&tmp.i_crtime, &ni->crtime);
	tmp.i_create_trans = cpu_to_le64(*trans);
	tmp.i_parent = cpu_to_le64(ni->parent);
	tmp.i_csum = cpu_to_le32(nova_inode_csum(&tmp));
	/*
	 * The slot is invalid: nothing reads it until i_valid is committed.
	 * Primary, then replica, both durable before that commit.
	 */
	nova_write_slot(sbi, pi, &tmp);

	err = insert_inode_locked(inode);
	if (err) {
		nova_err(sb, "inode %llu is already in use", ino);
		nova_free_ino(sb, ino);
		ni->pi_off = 0;
		make_bad_inode(inode);
		iput(inode);
		return ERR_PTR(-EFSCORRUPTED);
	}
	/* Quotas (quota.c): the new inode counts against its owner's. */
	err = dquot_initialize(inode);
	if (!err)
		err = dquot_alloc_inode(inode);
	if (err) {
		/* Nothing was charged: eviction has nothing to give back. */
		dquot_drop(inode);
		inode->i_flags |= S_NOQUOTA;
		nova_discard_inode(inode);
		return ERR_PTR(err);
	}
	return inode;
}

/* Rewrite a new, still invalid inode's static part (symlinks). */
void nova_rewrite_new_inode(struct inode *inode, u32 flags, const void *inl,
			    size_t len)
{
	struct nova_inode *pi = nova_pi(inode);
	struct nova_inode tmp = *pi;

	tmp.i_flags = cpu_to_le32(flags);
	tmp.i_size = cpu_to_le64(inode->i_size);
	memcpy(tmp.i_inline, inl, len);
	tmp.i_csum = cpu_to_le32(nova_inode_csum(&tmp));
	nova_write_slot(NOVA_SB(inode->i_sb), pi, &tmp);
}

/* Publish a new inode on its own (O_TMPFILE has no directory entry). */
void nova_commit_new_inode(struct inode *inode)
{
	nova_pi_commit64(NOVA_SB(inode->i_sb), &nova_pi(inode)->i_valid, 1);
}

/* Undo nova_new_inode() for an inode that was never published. */
void nova_discard_inode(struct inode *inode)
{
	clear_nlink(inode);
	discard_new_inode(inode);
}

/* ---- evict ---- */

void nova_evict_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct nova_inode_info *ni = NOVA_I(inode);
	bool dead = !inode->i_nlink && ni->pi_off && !is_bad_inode(inode) &&
		    NOVA_SB(sb)->view_epoch == NOVA_EPOCH_LIVE;
	bool guard = dead;

	if (nova_is_view(inode)) {
		nova_view_evict(inode);
		return;
	}
	truncate_inode_pages_final(&inode->i_data);
	/*
	 * Freeing a dead inode writes PMEM (hints in its log, keep records
	 * in the snapshot log), and the last iput() can come from a task
	 * without freeze protection (close(2) of an unlinked file): wait
	 * for a thaw, as ext4 does. Only for dead inodes, so memory reclaim
	 * never waits on a frozen file system; nova_snap_wrprotect(), which
	 * runs frozen, never drops the last reference of one.
	 */
	if (guard)
		sb_start_intwrite(sb);
	/* Gone from the live file system: its quota charges go (quota.c). */
	if (dead)
		nova_quota_free_inode(inode);
	/*
	 * A dead inode's i_valid is already 0 on media (committed with the
	 * unlink, or never set for O_TMPFILE), so its blocks are unreferenced
	 * and only the DRAM allocator needs to hear about them. One that a
	 * live snapshot shows keeps everything (snapshot.c reclaims it).
	 */
	if (dead && nova_snapshot_evict_inode(inode))
		dead = false;
	if (S_ISREG(inode->i_mode)) {
		if (dead)
			nova_file_drop_pages(inode, 0, true);
		nova_file_free_index(inode);
	} else if (S_ISDIR(inode->i_mode)) {
		nova_dir_free_index(inode);
	} else if (S_ISLNK(inode->i_mode) && dead && ni->data_pages) {
		struct nova_inode *pi = nova_pi(inode);

		nova_free_blocks(sb, le64_to_cpu(*(__le64 *)pi->i_inline), 1,
				 NOVA_BLOCK_DATA);
	}
	nova_xattr_free_index(inode);
	if (dead) {
		nova_log_free(inode);
		nova_free_ino(sb, inode->i_ino);
	}
	dquot_drop(inode);
	clear_inode(inode);
	if (guard)
		sb_end_intwrite(sb);
}

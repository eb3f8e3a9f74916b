// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: reading an inode from its slot and its log.
 *
 * nova_iget() builds an inode's DRAM state from its slot's static fields
 * (a good copy: the primary or its replica) and a replay of its log: each
 * committed entry (write, dentry, setattr, range, link change, xattr) is
 * validated and applied in log order. A committed entry of the running
 * system goes through the same apply code (nova_apply_entry()), so replay
 * and runtime cannot disagree.
 *
 * Crash behaviour: reading writes nothing but repairs: a damaged slot is
 * rewritten from its replica and log words that disagree with the
 * replica's are resolved (inode_slot.c). A log is replayed up to its
 * committed tail; entries appended past it by an operation a crash
 * interrupted are never seen.
 *
 * Locking (nova.h): loading runs on an I_NEW inode nobody else sees;
 * nova_apply_entry() runs with the inode's log_lock held.
 */
#include "nova.h"
#include "xattr.h"

/* ---- DRAM inodes ---- */

void nova_set_ops(struct inode *inode)
{
	if (nova_is_view(inode)) {
		nova_view_set_ops(inode);
		return;
	}
	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
		inode->i_op = &nova_file_inode_operations;
		inode->i_fop = &nova_file_operations;
		inode->i_mapping->a_ops = &nova_dax_aops;
		inode->i_flags |= S_DAX;
		break;
	case S_IFDIR:
		inode->i_op = &nova_dir_inode_operations;
		inode->i_fop = &nova_dir_operations;
		break;
	case S_IFLNK:
		inode->i_op = &nova_symlink_inode_operations;
		break;
	default:
		inode->i_op = &nova_special_inode_operations;
		init_special_inode(inode, inode->i_mode, inode->i_rdev);
		break;
	}
}

static void nova_update_trans(struct nova_sb_info *sbi, u64 trans)
{
	s64 cur = atomic64_read(&sbi->trans_id);

	while ((s64)trans > cur) {
		s64 old = atomic64_cmpxchg(&sbi->trans_id, cur, trans);

		if (old == cur)
			break;
		cur = old;
	}
}

static void nova_apply_setattr(struct inode *inode, u64 off,
			       struct nova_setattr_entry *sa, bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	u32 mask = le32_to_cpu(sa->sa_mask);

	if (mask & NOVA_ATTR_MODE)
		inode->i_mode = (inode->i_mode & S_IFMT) |
				(le16_to_cpu(sa->sa_mode) & ~S_IFMT);
	if (mask & NOVA_ATTR_UID)
		i_uid_write(inode, le32_to_cpu(sa->sa_uid));
	if (mask & NOVA_ATTR_GID)
		i_gid_write(inode, le32_to_cpu(sa->sa_gid));
	if (mask & NOVA_ATTR_ATIME)
		nova_set_atime(inode, nova_ts_from_media(&sa->sa_atime));
	if (mask & NOVA_ATTR_MTIME)
		nova_set_mtime(inode, nova_ts_from_media(&sa->sa_mtime));
	if (mask & NOVA_ATTR_CTIME)
		nova_set_ctime(inode, nova_ts_from_media(&sa->sa_ctime));
	if (mask & NOVA_ATTR_FLAGS) {
		WRITE_ONCE(ni->attr_flags, le16_to_cpu(sa->sa_flags));
		nova_set_inode_flags(inode);
	}
	if (mask & NOVA_ATTR_PROJID)
		WRITE_ONCE(ni->projid, le32_to_cpu(NOVA_SA_PROJID(sa)));
	if ((mask & NOVA_ATTR_SIZE) && S_ISREG(inode->i_mode)) {
		u64 size = le64_to_cpu(sa->sa_size);

		/*
		 * A size that grew keeps the pages past it (blocks
		 * preallocated with FALLOC_FL_KEEP_SIZE); the entry says so,
		 * as replay cannot tell from the log what the size was.
		 */
		if (!(mask & NOVA_ATTR_GROW))
			nova_file_drop_pages(inode, DIV_ROUND_UP(size, PAGE_SIZE),
					     runtime);
		i_size_write(inode, size);
	}
	/*
	 * The previous setattr entry is dead once this one sets every field
	 * it set (e.g. atime updates replacing each other). An entry that
	 * changed the size stays: the pages it dropped must stay dropped
	 * when the log is replayed. Garbage collection may do finer work.
	 */
	if (runtime && ni->last_setattr) {
		struct nova_setattr_entry *old = nova_addr(NOVA_SB(inode->i_sb),
							   ni->last_setattr);
		u32 omask = le32_to_cpu(old->sa_mask);

		if (!(omask & NOVA_ATTR_SIZE) && (mask & omask) == omask)
			nova_log_invalidate(inode, ni->last_setattr);
	}
	ni->last_setattr = off;
	nova_gc_setattr(inode, off, sa, runtime);
}

/*
 * Replay one committed entry of @arg's log while loading the inode
 * (nova_log_walk_raw() callback): validate it, then apply it.
 */
static int nova_replay_entry(struct super_block *sb, u64 off, void *entry,
			     void *arg)
{
	struct inode *inode = arg;
	struct nova_log_entry_header *h = entry;
	const char *why;
	int err;

	nova_update_trans(NOVA_SB(sb), le64_to_cpu(h->e_trans_id));
	/* A snapshot mount stops at its epoch (entries are in epoch order). */
	if (nova_snapshot_hides(NOVA_I(inode), h))
		return 0;
	why = nova_entry_invalid(NOVA_SB(sb), inode->i_ino,
				 inode->i_mode & S_IFMT, entry);
	if (why)
		goto bad;
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		nova_file_apply_write(inode, off, entry, false);
		return 0;
	case NOVA_LOG_DENTRY:
		nova_dir_apply(inode, off, entry, false);
		return 0;
	case NOVA_LOG_SETATTR:
		nova_apply_setattr(inode, off, entry, false);
		return 0;
	case NOVA_LOG_RANGE:
		nova_file_apply_range(inode, off, entry, false, NULL);
		return 0;
	case NOVA_LOG_LINK_CHANGE: {
		struct nova_link_change_entry *lc = entry;

		set_nlink(inode, le32_to_cpu(lc->lc_links));
		nova_set_ctime(inode, nova_ts_from_media(&lc->lc_ctime));
		NOVA_I(inode)->last_link = off;
		return 0;
	}
	case NOVA_LOG_XATTR:
		err = nova_xattr_replay(inode, off, entry);
		if (err == -EFSCORRUPTED)
			nova_err(sb, "inode %lu: bad extended attribute entry at %llu",
				 inode->i_ino, off);
		return err;
	}
	why = "log entry of a kind no inode loads";
bad:
	nova_err(sb, "inode %lu: %s (type %u) at %llu", inode->i_ino, why,
		 h->e_type, off);
	return -EFSCORRUPTED;
}

/*
 * Apply an entry the running system just committed, with the same code as
 * replay (so the two cannot disagree), also freeing what it supersedes.
 * Caller holds the inode's log_lock.
 */
int nova_apply_entry(struct inode *inode, u64 off, void *entry, void *arg)
{
	struct nova_log_entry_header *h = entry;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		nova_file_apply_write(inode, off, entry, true);
		break;
	case NOVA_LOG_DENTRY:
		nova_dir_apply(inode, off, entry, true);
		break;
	case NOVA_LOG_SETATTR:
		nova_apply_setattr(inode, off, entry, true);
		break;
	case NOVA_LOG_RANGE:
		nova_file_apply_range(inode, off, entry, true, arg);
		break;
	case NOVA_LOG_LINK_CHANGE: {
		struct nova_link_change_entry *lc = entry;

		set_nlink(inode, le32_to_cpu(lc->lc_links));
		nova_set_ctime(inode, nova_ts_from_media(&lc->lc_ctime));
		nova_log_invalidate(inode, NOVA_I(inode)->last_link);
		NOVA_I(inode)->last_link = off;
		break;
	}
	}
	return 0;
}

static int nova_count_page(struct super_block *sb, u64 page, void *arg)
{
	NOVA_I(arg)->log_pages++;
	return 0;
}

void nova_init_ni(struct nova_inode_info *ni)
{
	ni->log_head = 0;
	ni->log_tail = 0;
	ni->log_pages = 0;
	ni->last_setattr = 0;
	ni->last_link = 0;
	ni->last_range = 0;
	ni->attr_flags = 0;
	ni->projid = 0;
	ni->data_pages = 0;
	ni->names = RB_ROOT;
	ni->next_pos = 2;
	ni->nr_entries = 0;
	ni->parent = 0;
	ni->snap_stage = NULL;
	ni->snap_kept = false;
	ni->view_epoch = NOVA_EPOCH_LIVE;
	ni->view_pins = 0;
	INIT_LIST_HEAD(&ni->xattrs);
	ni->xattr_bytes = 0;
	ni->xattr_pending = NULL;
	nova_gc_init_inode(ni);
}

/*
 * Build @inode's DRAM state from slot and log of inode @ino (on media),
 * showing what epoch @epoch shows (NOVA_EPOCH_LIVE: everything). @inode
 * is a live inode (@ino is its i_ino) or a view inode (snapview.c).
 */
int nova_read_inode(struct inode *inode, u64 ino, u64 epoch)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_inode *pi = nova_get_pinode(sb, ino), *src;
	u64 valid;
	u32 flags;
	int err;

	if (!pi)
		return -ESTALE;
	/* A snapshot also shows inodes removed after it was taken. */
	valid = le64_to_cpu(READ_ONCE(pi->i_valid));
	if (valid != 1 &&
	    (valid || !nova_snapshot_shows_inode(sb, ino,
						 le32_to_cpu(pi->i_generation),
						 epoch)))
		return -ESTALE;
	/* Static fields from a good copy; commit words from the primary. */
	if (nova_inode_check(sb, pi, ino, true, &src) == NOVA_SLOT_BAD) {
		nova_err(sb, "inode %llu: bad checksum or inode number", ino);
		return -EFSCORRUPTED;
	}

	nova_init_ni(ni);
	ni->view_epoch = epoch;
	ni->pi_off = nova_off(sbi, pi);
	pi = src;
	inode->i_mode = le16_to_cpu(pi->i_mode);
	i_uid_write(inode, le32_to_cpu(pi->i_uid));
	i_gid_write(inode, le32_to_cpu(pi->i_gid));
	set_nlink(inode, le32_to_cpu(pi->i_nlink));
	inode->i_rdev = new_decode_dev(le32_to_cpu(pi->i_rdev));
	inode->i_size = le64_to_cpu(pi->i_size);
	inode->i_generation = le32_to_cpu(pi->i_generation);
	nova_set_atime(inode, nova_ts_from_media(&pi->i_atime));
	nova_set_mtime(inode, nova_ts_from_media(&pi->i_mtime));
	nova_set_ctime(inode, nova_ts_from_media(&pi->i_ctime));
	ni->crtime = nova_ts_from_media(&pi->i_crtime);
	ni->parent = le64_to_cpu(pi->i_parent);
	flags = le32_to_cpu(pi->i_flags);

	switch (inode->i_mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		break;
	case S_IFLNK:
		if (inode->i_size >= PATH_MAX)
			goto bad;
		if (flags & NOVA_INODE_INLINE_SYMLINK) {
			if (inode->i_size >= NOVA_INLINE_SIZE ||
			    pi->i_inline[inode->i_size])
				goto bad;
			inode->i_link = (char *)pi->i_inline;
		} else if (flags & NOVA_INODE_BLOCK_SYMLINK) {
			u64 blk = le64_to_cpu(*(__le64 *)pi->i_inline);
			char *target;

			if (!nova_block_ok(sbi, blk, 1))
				goto bad;
			target = nova_block(sbi, blk);
			if (target[inode->i_size])
				goto bad;
			inode->i_link = target;
			ni->data_pages = 1;
		} else {
			goto bad;
		}
		break;
	default:
		goto bad;
	}
	nova_set_ops(inode);

	nova_pi_resolve_words(sb, nova_pi(inode), ino, false,
			      &ni->log_head, &ni->log_tail);
	if (ni->log_head) {
		err = nova_log_walk_raw(sb, ino, ni->log_head,
					ni->log_tail, nova_replay_entry,
					nova_count_page, inode);
		if (!err)
			err = nova_xattr_replay_done(inode);
		if (err) {
			nova_xattr_free_index(inode);
			if (S_ISREG(inode->i_mode))
				nova_file_free_index(inode);
			else if (S_ISDIR(inode->i_mode))
				nova_dir_free_index(inode);
			return err;
		}
	} else if (ni->log_tail) {
		goto bad;
	}
	/* What quotas charge: data blocks (quota.c). */
	inode_set_bytes(inode, (loff_t)ni->data_pages << NOVA_BLOCK_SHIFT);
	return 0;
bad:
	nova_err(sb, "inode %llu: inconsistent inode (mode %o, flags %x)",
		 ino, inode->i_mode, flags);
	return -EFSCORRUPTED;
}

static struct inode *nova_iget_any(struct super_block *sb, u64 ino)
{
	struct inode *inode;
	int err;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	err = nova_read_inode(inode, ino, NOVA_SB(sb)->view_epoch);
	if (err) {
		iget_failed(inode);
		return ERR_PTR(err);
	}
	unlock_new_inode(inode);
	return inode;
}

struct inode *nova_iget(struct super_block *sb, u64 ino)
{
	if (ino != NOVA_ROOT_INO && ino < NOVA_FIRST_INO)
		return ERR_PTR(-ESTALE);
	if (ino >= NOVA_FIRST_INO && !nova_get_pinode(sb, ino))
		return ERR_PTR(-ESTALE);
	return nova_iget_any(sb, ino);
}

/* A reserved inode the file system itself uses (the quota files). */
struct inode *nova_iget_reserved(struct super_block *sb, u64 ino)
{
	if (!ino || ino >= NOVA_FIRST_INO)
		return ERR_PTR(-ESTALE);
	return nova_iget_any(sb, ino);
}

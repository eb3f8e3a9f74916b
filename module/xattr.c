// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: extended attributes and POSIX ACLs.
 *
 * Every set or removal is NOVA_LOG_XATTR entries in the inode's own log
 * (uapi/nova_format.h): the value inline, split into pieces of
 * NOVA_XATTR_PIECE_MAX bytes when it is longer, all pieces and a setattr
 * entry (ctime; the mode too when an ACL changes it) published by one
 * commit of the log tail. So a set is atomic across a crash and covered
 * by what covers every log entry: entry checksums, log page mirrors, the
 * epoch filter of snapshot mounts (nova_replay_entry() hides later
 * entries) and garbage collection.
 *
 * DRAM: each inode keeps a list of its current attributes with their
 * values (nova_inode_info.xattrs), rebuilt when the log is replayed and
 * changed after each commit. A node remembers the offsets of the entries
 * holding its value: they are live for GC; a node that is replaced has
 * its entries marked invalid at once (the entry that supersedes them is
 * committed and later in the log, so fast GC can only free them first).
 * A removal is never marked invalid: it must outlive the sets it
 * cancels, and thorough GC, which drops those sets, drops it too unless
 * a snapshot prefix pins them.
 *
 * Format: logs of a file system without NOVA_FEATURE_XATTR hold no xattr
 * entries; the first set on such a file system (1.4 and older) sets the
 * bit and raises the minor version to 5 in both superblock copies, durably,
 * before its entries are written (nova_enable_feature()).
 *
 * Locking (nova.h): i_rwsem, then sb_mutex alone for the feature upgrade
 * (released before any log_lock is taken), then nova_inode_info.log_lock.
 * The index is read and changed under log_lock.
 */
#include <linux/xattr.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/fiemap.h>

#include "nova.h"
#include "xattr.h"

struct nova_xattr_node {
	struct list_head list;		/* in nova_inode_info.xattrs */
	u8 index;			/* NOVA_XATTR_INDEX_* */
	u8 name_len;
	u32 size;			/* value bytes */
	u32 filled;			/* replay: bytes assembled so far */
	u64 trans;			/* replay: the set's e_trans_id */
	unsigned int nr_offs;		/* entries holding the value */
	u64 *offs;
	void *value;
	char name[];
};

/* nova_xattr_write(): removing what is not there is no error. */
#define NOVA_XW_MAY_MISS	0x100

static unsigned int nova_xattr_pieces(u32 size)
{
	return size ? DIV_ROUND_UP(size, NOVA_XATTR_PIECE_MAX) : 1;
}

static struct nova_xattr_node *nova_xattr_node_new(int index, const char *name,
						   unsigned int len, u32 size)
{
	struct nova_xattr_node *n;

	n = kzalloc(sizeof(*n) + len, GFP_NOFS);
	if (!n)
		return NULL;
	n->offs = kcalloc(nova_xattr_pieces(size), sizeof(u64), GFP_NOFS);
	n->value = size ? kvmalloc(size, GFP_NOFS) : NULL;
	if (!n->offs || (size && !n->value)) {
		kfree(n->offs);
		kvfree(n->value);
		kfree(n);
		return NULL;
	}
	n->index = index;
	n->name_len = len;
	n->size = size;
	memcpy(n->name, name, len);
	return n;
}

static void nova_xattr_node_free(struct nova_xattr_node *n)
{
	if (!n)
		return;
	kfree(n->offs);
	kvfree(n->value);
	kfree(n);
}

static struct nova_xattr_node *nova_xattr_find(struct inode *inode, int index,
					       const char *name,
					       unsigned int len)
{
	struct nova_xattr_node *n;

	list_for_each_entry(n, &NOVA_I(inode)->xattrs, list)
		if (n->index == index && n->name_len == len &&
		    !memcmp(n->name, name, len))
			return n;
	return NULL;
}

/* Bytes an attribute counts against NOVA_XATTR_INODE_MAX. */
static u32 nova_xattr_cost(const struct nova_xattr_node *n)
{
	return n ? n->name_len + n->size : 0;
}

/*
 * Replace @old (may be NULL) by @new (NULL: removal) in the index. At run
 * time the entries of @old are superseded: mark them for GC.
 */
static void nova_xattr_install(struct inode *inode, struct nova_xattr_node *old,
			       struct nova_xattr_node *new, bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned int i;

	if (old) {
		if (runtime)
			for (i = 0; i < old->nr_offs; i++)
				nova_log_invalidate(inode, old->offs[i]);
		ni->xattr_bytes -= nova_xattr_cost(old);
		list_del(&old->list);
		nova_xattr_node_free(old);
	}
	if (new) {
		ni->xattr_bytes += nova_xattr_cost(new);
		list_add_tail(&new->list, &ni->xattrs);
	}
}

void nova_xattr_free_index(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_xattr_node *n, *t;

	list_for_each_entry_safe(n, t, &ni->xattrs, list) {
		list_del(&n->list);
		nova_xattr_node_free(n);
	}
	nova_xattr_node_free(ni->xattr_pending);
	ni->xattr_pending = NULL;
	ni->xattr_bytes = 0;
}

/* ---- replay ---- */

static bool nova_xattr_index_ok(unsigned int index, unsigned int name_len)
{
	switch (index) {
	case NOVA_XATTR_INDEX_USER:
	case NOVA_XATTR_INDEX_TRUSTED:
	case NOVA_XATTR_INDEX_SECURITY:
		return name_len > 0;
	case NOVA_XATTR_INDEX_ACL_ACCESS:
	case NOVA_XATTR_INDEX_ACL_DEFAULT:
		return name_len == 0;
	}
	return false;
}

/* The checks of one entry on its own (size, namespace, name, piece). */
bool nova_xattr_entry_ok(const struct nova_xattr_entry *xe)
{
	unsigned int size = le16_to_cpu(xe->hdr.e_size);
	u32 vsize = le32_to_cpu(xe->xe_value_size);
	u32 offset = le32_to_cpu(xe->xe_offset);
	u32 len = le32_to_cpu(xe->xe_len);
	u16 flags = le16_to_cpu(xe->xe_flags);

	if (size < sizeof(*xe) || len > NOVA_XATTR_PIECE_MAX ||
	    size != nova_xattr_entry_size(xe->xe_name_len, len))
		return false;
	if (!nova_xattr_index_ok(xe->xe_index, xe->xe_name_len) ||
	    memchr(xe->xe_name, 0, xe->xe_name_len))
		return false;
	if (flags & ~NOVA_XATTR_REMOVE)
		return false;
	if (flags & NOVA_XATTR_REMOVE)
		return !vsize && !offset && !len;
	if (vsize > NOVA_XATTR_VALUE_MAX || offset > vsize ||
	    offset % NOVA_XATTR_PIECE_MAX)
		return false;
	return len == min_t(u32, vsize - offset, NOVA_XATTR_PIECE_MAX) &&
	       (len || !vsize);
}

/*
 * Does @xe continue the pending set @p (its next piece)?
 */
static bool nova_xattr_continues(const struct nova_xattr_node *p,
				 const struct nova_xattr_entry *xe)
{
	return !(le16_to_cpu(xe->xe_flags) & NOVA_XATTR_REMOVE) &&
	       le64_to_cpu(xe->hdr.e_trans_id) == p->trans &&
	       xe->xe_index == p->index && xe->xe_name_len == p->name_len &&
	       le32_to_cpu(xe->xe_value_size) == p->size &&
	       le32_to_cpu(xe->xe_offset) == p->filled &&
	       !memcmp(xe->xe_name, p->name, p->name_len);
}

/*
 * Replay one committed xattr entry (nova_replay_entry(), log lock not
 * needed: the inode is not yet visible). Pieces of one set are consecutive;
 * the set takes effect with its last one.
 *
 * A set split over log pages may have lost some pieces to fast GC: once a
 * later set or removal supersedes it, all its pieces are invalid, and a
 * page whose entries are all invalid is freed while the page holding its
 * other pieces stays for the live entries beside them. So a set that
 * another entry interrupts, or a piece whose start is missing, is a
 * superseded set and is skipped. A value is never torn by a crash (one
 * tail commit publishes all its pieces), and a live set's pieces are
 * never invalid, so nothing current is lost; only a set cut short by the
 * end of the log is corruption (nova_xattr_replay_done()).
 */
int nova_xattr_replay(struct inode *inode, u64 off,
		      const struct nova_xattr_entry *xe)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_xattr_node *p = ni->xattr_pending, *old;
	u32 vsize = le32_to_cpu(xe->xe_value_size);
	u32 offset = le32_to_cpu(xe->xe_offset);
	u32 len = le32_to_cpu(xe->xe_len);
	u64 trans = le64_to_cpu(xe->hdr.e_trans_id);

	if (!nova_xattr_entry_ok(xe))
		return -EFSCORRUPTED;
	if (p && !nova_xattr_continues(p, xe)) {
		/* Superseded; its later pieces were collected. */
		nova_xattr_node_free(p);
		ni->xattr_pending = NULL;
		p = NULL;
	}
	if (!p && offset)
		return 0;	/* a superseded set whose start was collected */
	old = nova_xattr_find(inode, xe->xe_index, xe->xe_name,
			      xe->xe_name_len);
	if (le16_to_cpu(xe->xe_flags) & NOVA_XATTR_REMOVE) {
		nova_xattr_install(inode, old, NULL, false);
		return 0;
	}
	if (!p) {
		p = nova_xattr_node_new(xe->xe_index, xe->xe_name,
					xe->xe_name_len, vsize);
		if (!p)
			return -ENOMEM;
		p->trans = trans;
		ni->xattr_pending = p;
	}
	memcpy(p->value + offset, xe->xe_name + xe->xe_name_len, len);
	p->filled += len;
	p->offs[p->nr_offs++] = off;
	if (p->filled == p->size) {
		ni->xattr_pending = NULL;
		nova_xattr_install(inode, old, p, false);
	}
	return 0;
}

/* The end of a replay: a set cut short is corruption. */
int nova_xattr_replay_done(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);

	if (!ni->xattr_pending)
		return 0;
	nova_err(inode->i_sb, "inode %lu: extended attribute value cut short at %u of %u bytes",
		 inode->i_ino, ni->xattr_pending->filled,
		 ni->xattr_pending->size);
	nova_xattr_node_free(ni->xattr_pending);
	ni->xattr_pending = NULL;
	return -EFSCORRUPTED;
}

/* ---- garbage collection ---- */

bool nova_xattr_gc_live(struct inode *inode, u64 off,
			const struct nova_xattr_entry *xe)
{
	struct nova_xattr_node *n;
	unsigned int i;

	n = nova_xattr_find(inode, xe->xe_index, xe->xe_name, xe->xe_name_len);
	if (!n)
		return false;
	for (i = 0; i < n->nr_offs; i++)
		if (n->offs[i] == off)
			return true;
	return false;
}

void nova_xattr_gc_moved(struct inode *inode, u64 from, u64 to,
			 const struct nova_xattr_entry *xe)
{
	struct nova_xattr_node *n;
	unsigned int i;

	n = nova_xattr_find(inode, xe->xe_index, xe->xe_name, xe->xe_name_len);
	if (!n)
		return;
	for (i = 0; i < n->nr_offs; i++)
		if (n->offs[i] == from)
			n->offs[i] = to;
}

/* ---- writing ---- */

/*
 * Set (@value non-NULL) or remove attribute @name of namespace @index,
 * with XATTR_CREATE / XATTR_REPLACE semantics. @mode, if not NULL, is a
 * new mode committed with it (an access ACL that replaces mode bits).
 */
static int nova_xattr_write(struct inode *inode, int index, const char *name,
			    const void *value, size_t size, int flags,
			    const umode_t *mode)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_inode_info *ni = NOVA_I(inode);
	size_t len = strlen(name);
	struct nova_xattr_node *new = NULL, *old;
	struct nova_xattr_entry *xe;
	struct nova_setattr_entry sa;
	struct timespec64 save_ctime;
	umode_t save_mode;
	unsigned int i, pieces;
	u64 tail = 0, sa_off, trans;
	u32 cost;
	int err;

	if (len > NOVA_XATTR_NAME_MAX)
		return -ERANGE;
	if (!nova_xattr_index_ok(index, len))
		return -EINVAL;
	if (value && size > NOVA_XATTR_VALUE_MAX)
		return -E2BIG;
	/* Before a large value is written to its pages. */
	if (nova_is_shutdown(sb))
		return -EIO;
	if (sbi->view_epoch != NOVA_EPOCH_LIVE || sb_rdonly(sb) ||
	    nova_is_view(inode))
		return -EROFS;
	if (!value)
		size = 0;
	/*
	 * A set is data to the user: like file data it leaves the log
	 * reserve (balloc.c) to the operations that free space, so a full
	 * file system says ENOSPC here, as ext4 does. Its pages, with their
	 * mirrors, at most.
	 */
	pieces = nova_xattr_pieces(size);
	if (value && nova_count_free(sb) <= sbi->reserve + 2 * (pieces + 1))
		return -ENOSPC;
	/* A removal finds the feature set, or removes nothing. */
	err = value || mode ?
	      nova_enable_feature(sb, NOVA_FEATURE_XATTR,
				  "extended attributes") : 0;
	if (err)
		return err;
	xe = kmalloc(nova_xattr_entry_size(NOVA_XATTR_NAME_MAX,
					   NOVA_XATTR_PIECE_MAX), GFP_NOFS);
	if (!xe)
		return -ENOMEM;
	if (value) {
		new = nova_xattr_node_new(index, name, len, size);
		if (!new) {
			kfree(xe);
			return -ENOMEM;
		}
		if (size)
			memcpy(new->value, value, size);
	}
	mutex_lock(&ni->log_lock);
	old = nova_xattr_find(inode, index, name, len);
	err = -EEXIST;
	if ((flags & XATTR_CREATE) && old)
		goto out;
	err = -ENODATA;
	if ((flags & XATTR_REPLACE) && !old)
		goto out;
	if (!value && !old) {
		/* A removal of nothing: only a mode change to write, if any. */
		if (!(flags & NOVA_XW_MAY_MISS))
			goto out;
		err = 0;
		if (!mode)
			goto out;
	}
	cost = ni->xattr_bytes - nova_xattr_cost(old) + nova_xattr_cost(new);
	err = -ENOSPC;
	if (cost > NOVA_XATTR_INODE_MAX)
		goto out;

	trans = nova_next_trans(sbi);
	save_mode = inode->i_mode;
	save_ctime = nova_get_ctime(inode);
	if (mode)
		inode->i_mode = *mode;
	nova_set_ctime(inode, current_time(inode));
	nova_setattr_entry(inode, &sa, NOVA_ATTR_CTIME |
			   (mode ? NOVA_ATTR_MODE : 0), trans);
	err = nova_log_append(inode, &sa, &tail);
	sa_off = ni->last_append;
	for (i = 0; !err && i < pieces; i++) {
		u32 offset = i * NOVA_XATTR_PIECE_MAX;
		u32 plen = min_t(u32, size - offset, NOVA_XATTR_PIECE_MAX);
		unsigned int esize = nova_xattr_entry_size(len, plen);

		memset(xe, 0, esize);
		nova_entry_header(sbi, xe, NOVA_LOG_XATTR, esize, trans);
		xe->xe_index = index;
		xe->xe_name_len = len;
		xe->xe_flags = cpu_to_le16(value ? 0 : NOVA_XATTR_REMOVE);
		xe->xe_value_size = cpu_to_le32(size);
		xe->xe_offset = cpu_to_le32(value ? offset : 0);
		xe->xe_len = cpu_to_le32(plen);
		memcpy(xe->xe_name, name, len);
		if (plen)
			memcpy(xe->xe_name + len, value + offset, plen);
		err = nova_log_append(inode, xe, &tail);
		if (!err && new)
			new->offs[new->nr_offs++] = ni->last_append;
	}
	if (err) {
		/* Appended but never committed: nothing reads them. */
		inode->i_mode = save_mode;
		nova_set_ctime(inode, save_ctime);
		goto out;
	}
	nova_log_commit(inode, tail);
	nova_apply_entry(inode, sa_off, nova_addr(sbi, sa_off), NULL);
	nova_xattr_install(inode, old, new, true);
	new = NULL;
out:
	mutex_unlock(&ni->log_lock);
	nova_xattr_node_free(new);
	kfree(xe);
	return err;
}

static int nova_xattr_read(struct inode *inode, int index, const char *name,
			   void *buf, size_t size)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_xattr_node *n;
	int err;

	if (strlen(name) > NOVA_XATTR_NAME_MAX)
		return -ERANGE;
	mutex_lock(&ni->log_lock);
	n = nova_xattr_find(inode, index, name, strlen(name));
	if (!n) {
		err = -ENODATA;
	} else if (!size) {
		err = n->size;
	} else if (size < n->size) {
		err = -ERANGE;
	} else {
		memcpy(buf, n->value, n->size);
		err = n->size;
	}
	mutex_unlock(&ni->log_lock);
	return err;
}

/* ---- VFS handlers ---- */

static int nova_xattr_get(const struct xattr_handler *h, struct dentry *dentry,
			  struct inode *inode, const char *name, void *buf,
			  size_t size)
{
	if (h->flags == NOVA_XATTR_INDEX_USER && !NOVA_SB(inode->i_sb)->user_xattr)
		return -EOPNOTSUPP;
	return nova_xattr_read(inode, h->flags, name, buf, size);
}

static int nova_xattr_set(const struct xattr_handler *h, nova_idmap_t *idmap,
			  struct dentry *dentry, struct inode *inode,
			  const char *name, const void *value, size_t size,
			  int flags)
{
	if (h->flags == NOVA_XATTR_INDEX_USER && !NOVA_SB(inode->i_sb)->user_xattr)
		return -EOPNOTSUPP;
	return nova_xattr_write(inode, h->flags, name, value, size, flags,
				NULL);
}

static const struct xattr_handler nova_xattr_user_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.flags	= NOVA_XATTR_INDEX_USER,
	.get	= nova_xattr_get,
	.set	= nova_xattr_set,
};

static const struct xattr_handler nova_xattr_trusted_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.flags	= NOVA_XATTR_INDEX_TRUSTED,
	.get	= nova_xattr_get,
	.set	= nova_xattr_set,
};

static const struct xattr_handler nova_xattr_security_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.flags	= NOVA_XATTR_INDEX_SECURITY,
	.get	= nova_xattr_get,
	.set	= nova_xattr_set,
};

const struct xattr_handler *nova_xattr_handlers[] = {
	&nova_xattr_user_handler,
	&nova_xattr_trusted_handler,
	&nova_xattr_security_handler,
	NOVA_ACL_XATTR_HANDLERS
	NULL
};

/* The name listxattr(2) shows for @n, NULL if it hides it. */
static const char *nova_xattr_prefix(struct inode *inode,
				     const struct nova_xattr_node *n)
{
	switch (n->index) {
	case NOVA_XATTR_INDEX_USER:
		return NOVA_SB(inode->i_sb)->user_xattr ? XATTR_USER_PREFIX :
							   NULL;
	case NOVA_XATTR_INDEX_TRUSTED:
		/* As ext4: trusted names only for CAP_SYS_ADMIN. */
		return capable(CAP_SYS_ADMIN) ? XATTR_TRUSTED_PREFIX : NULL;
	case NOVA_XATTR_INDEX_SECURITY:
		return XATTR_SECURITY_PREFIX;
	case NOVA_XATTR_INDEX_ACL_ACCESS:
		return IS_POSIXACL(inode) ? XATTR_NAME_POSIX_ACL_ACCESS : NULL;
	case NOVA_XATTR_INDEX_ACL_DEFAULT:
		return IS_POSIXACL(inode) ? XATTR_NAME_POSIX_ACL_DEFAULT : NULL;
	}
	return NULL;
}

ssize_t nova_listxattr(struct dentry *dentry, char *buf, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_xattr_node *n;
	ssize_t total = 0;

	mutex_lock(&ni->log_lock);
	list_for_each_entry(n, &ni->xattrs, list) {
		const char *prefix = nova_xattr_prefix(inode, n);
		size_t plen, need;

		if (!prefix)
			continue;
		plen = strlen(prefix);
		need = plen + n->name_len + 1;
		if (buf) {
			if (total + need > size) {
				total = -ERANGE;
				break;
			}
			memcpy(buf + total, prefix, plen);
			memcpy(buf + total + plen, n->name, n->name_len);
			buf[total + need - 1] = 0;
		}
		total += need;
	}
	mutex_unlock(&ni->log_lock);
	return total;
}

/* ---- FIEMAP ---- */

static int nova_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The log pages holding a piece of a current value of @inode, each once,
 * in device order, in a new array (*@pages, kvfree()); returns how many.
 */
static int nova_xattr_pages(struct inode *inode, u64 **pages)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_xattr_node *n;
	unsigned int nr = 0, k = 0, i;
	u64 *p;

	mutex_lock(&ni->log_lock);
	list_for_each_entry(n, &ni->xattrs, list)
		nr += n->nr_offs;
	p = kvmalloc_array(max(nr, 1U), sizeof(*p), GFP_NOFS);
	if (!p) {
		mutex_unlock(&ni->log_lock);
		return -ENOMEM;
	}
	list_for_each_entry(n, &ni->xattrs, list)
		for (i = 0; i < n->nr_offs; i++)
			p[k++] = nova_log_page_of(n->offs[i]);
	mutex_unlock(&ni->log_lock);

	sort(p, k, sizeof(*p), nova_cmp_u64, NULL);
	for (i = 0, nr = 0; i < k; i++)
		if (!nr || p[i] != p[nr - 1])
			p[nr++] = p[i];
	*pages = p;
	return nr;
}

/*
 * FIEMAP_FLAG_XATTR: where the extended attributes of @inode are. Their
 * values are entries in the inode's log, so each log page holding a piece
 * of one is an extent of the attribute space, flagged DATA_INLINE (the
 * data shares a metadata block; fiemap adds NOT_ALIGNED). Logical
 * offsets number those pages. Caller holds i_rwsem.
 */
int nova_xattr_fiemap(struct inode *inode, struct fiemap_extent_info *fi)
{
	u32 flags = FIEMAP_EXTENT_DATA_INLINE;
	u64 *pages;
	int nr, i, err = 0;

	nr = nova_xattr_pages(inode, &pages);
	if (nr < 0)
		return nr;
	for (i = 0; i < nr && !err; i++) {
		if (i == nr - 1)
			flags |= FIEMAP_EXTENT_LAST;
		err = fiemap_fill_next_extent(fi, (u64)i << NOVA_BLOCK_SHIFT,
					      pages[i], NOVA_BLOCK_SIZE, flags);
	}
	kvfree(pages);
	/* 1: the caller's array is full, which is no error. */
	return err < 0 ? err : 0;
}

/* ---- POSIX ACLs ---- */

static int nova_acl_index(int type)
{
	return type == ACL_TYPE_ACCESS ? NOVA_XATTR_INDEX_ACL_ACCESS :
					 NOVA_XATTR_INDEX_ACL_DEFAULT;
}

struct posix_acl *nova_get_acl(struct inode *inode, int type, bool rcu)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_xattr_node *n;
	struct posix_acl *acl = NULL;

	if (rcu)
		return ERR_PTR(-ECHILD);
	if (type != ACL_TYPE_ACCESS && type != ACL_TYPE_DEFAULT)
		return ERR_PTR(-EINVAL);
	mutex_lock(&ni->log_lock);
	n = nova_xattr_find(inode, nova_acl_index(type), "", 0);
	if (n)
		acl = posix_acl_from_xattr(&init_user_ns, n->value, n->size);
	mutex_unlock(&ni->log_lock);
	return acl;
}

/* Store @acl (NULL: remove) of @type; an access ACL may change the mode. */
static int nova_acl_store(struct inode *inode, struct posix_acl *acl, int type,
			  const umode_t *mode)
{
	void *value = NULL;
	size_t size = 0;
	int err;

	if (acl) {
		size = posix_acl_xattr_size(acl->a_count);
		value = kmalloc(size, GFP_NOFS);
		if (!value)
			return -ENOMEM;
		err = posix_acl_to_xattr(&init_user_ns, acl, value, size);
		if (err < 0) {
			kfree(value);
			return err;
		}
	}
	/* Removing an ACL that is not there is no error. */
	err = nova_xattr_write(inode, nova_acl_index(type), "", value, size,
			       NOVA_XW_MAY_MISS, mode);
	kfree(value);
	if (!err)
		set_cached_acl(inode, type, acl);
	return err;
}

int nova_set_acl_common(nova_idmap_t *idmap, struct inode *inode,
			struct posix_acl *acl, int type)
{
	umode_t mode = inode->i_mode;
	int err;

	if (!IS_POSIXACL(inode))
		return -EOPNOTSUPP;
	if (type == ACL_TYPE_ACCESS && acl) {
		/* May turn @acl into mode bits only (acl NULL then). */
		err = posix_acl_update_mode(idmap, inode, &mode, &acl);
		if (err)
			return err;
	} else if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode)) {
		return acl ? -EACCES : 0;
	}
	return nova_acl_store(inode, acl, type,
			      mode != inode->i_mode ? &mode : NULL);
}

/* ---- new inodes ---- */

static int nova_initxattrs(struct inode *inode, const struct xattr *xattrs,
			   void *fs_info)
{
	const struct xattr *x;
	int err = 0;

	for (x = xattrs; x->name; x++) {
		err = nova_xattr_write(inode, NOVA_XATTR_INDEX_SECURITY,
				       x->name, x->value, x->value_len, 0,
				       NULL);
		if (err)
			break;
	}
	return err;
}

int nova_xattr_init_new(struct inode *inode, struct inode *dir,
			const struct qstr *qstr, struct posix_acl *default_acl,
			struct posix_acl *acl)
{
	int err = 0;

	if (default_acl)
		err = nova_acl_store(inode, default_acl, ACL_TYPE_DEFAULT,
				     NULL);
	if (acl && !err)
		err = nova_acl_store(inode, acl, ACL_TYPE_ACCESS, NULL);
	if (default_acl)
		posix_acl_release(default_acl);
	if (acl)
		posix_acl_release(acl);
	if (!err)
		err = security_inode_init_security(inode, dir, qstr,
						   nova_initxattrs, NULL);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: directories.
 *
 * A directory is its log of dentry entries. In DRAM each directory has an
 * index built when the inode is loaded: an rbtree of names (by hash, then
 * name) for lookup and an xarray from readdir position to name. Every
 * entry gets a position unique within its directory, so telldir()/seekdir()
 * cookies stay valid while other names come and go. Names are not copied:
 * index nodes point at their dentry entry in PMEM.
 *
 * A directory stream ends at the position the directory would give its
 * next name when the stream began (opendir() or rewinddir()): a rename
 * gives the name a new, higher position, and a reader that renames what it
 * reads must not meet those names again and never finish.
 *
 * Locking: the index is changed only with the directory's i_rwsem held
 * exclusively and its log_lock held; lookup and readdir run under i_rwsem
 * (shared at least) and read it without further locks.
 */
#include <linux/slab.h>
#include <linux/stringhash.h>

#include "nova.h"
#include "pmem.h"

static const char *nova_node_name(struct inode *dir,
				  const struct nova_dentry_node *n)
{
	struct nova_dentry_entry *de = nova_addr(NOVA_SB(dir->i_sb), n->entry);

	return de->de_name;
}

static u32 nova_name_hash(const char *name, unsigned int len)
{
	return full_name_hash(NULL, name, len);
}

static int nova_name_cmp(struct inode *dir, u32 hash, const char *name,
			 unsigned int len, const struct nova_dentry_node *n)
{
	if (hash != n->hash)
		return hash < n->hash ? -1 : 1;
	if (len != n->name_len)
		return len < n->name_len ? -1 : 1;
	return memcmp(name, nova_node_name(dir, n), len);
}

struct nova_dentry_node *nova_dir_find(struct inode *dir, const char *name,
				       unsigned int len)
{
	struct rb_node *p = NOVA_I(dir)->names.rb_node;
	u32 hash = nova_name_hash(name, len);

	while (p) {
		struct nova_dentry_node *n = rb_entry(p, struct nova_dentry_node,
						      node);
		int c = nova_name_cmp(dir, hash, name, len, n);

		if (!c)
			return n;
		p = c < 0 ? p->rb_left : p->rb_right;
	}
	return NULL;
}

static void nova_dir_insert(struct inode *dir, struct nova_dentry_node *new,
			    const char *name)
{
	struct rb_node **link = &NOVA_I(dir)->names.rb_node, *parent = NULL;

	while (*link) {
		struct nova_dentry_node *n = rb_entry(*link,
						      struct nova_dentry_node,
						      node);

		parent = *link;
		if (nova_name_cmp(dir, new->hash, name, new->name_len, n) < 0)
			link = &(*link)->rb_left;
		else
			link = &(*link)->rb_right;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, &NOVA_I(dir)->names);
}

/*
 * Apply a committed dentry entry to the directory's index and attributes.
 * At runtime (@runtime) superseded entries are also marked invalid; the
 * entry that removes a name stays valid, since dropping it before the
 * entry it cancels would bring the name back on the next replay.
 */
void nova_dir_apply(struct inode *dir, u64 off, struct nova_dentry_entry *de,
		    bool runtime)
{
	struct nova_inode_info *ni = NOVA_I(dir);
	gfp_t gfp = GFP_NOFS | __GFP_NOFAIL;
	unsigned int len = de->de_name_len;
	u64 ino = le64_to_cpu(de->de_ino);
	u64 pos = le64_to_cpu(de->de_pos);
	struct nova_dentry_node *n;

	set_nlink(dir, le32_to_cpu(de->de_links));
	nova_set_mtime(dir, nova_ts_from_media(&de->de_mtime));
	nova_set_ctime(dir, nova_get_mtime(dir));
	/* Before the index changes: GC bookkeeping of removals and "..". */
	nova_gc_dentry(dir, off, de, runtime);

	if (len == 2 && de->de_name[0] == '.' && de->de_name[1] == '.') {
		if (ino)
			ni->parent = ino;
		return;
	}

	n = nova_dir_find(dir, de->de_name, len);
	if (n) {
		if (runtime)
			nova_log_invalidate(dir, n->entry);
		xa_erase(&ni->dpos, n->pos);
		if (!ino) {
			rb_erase(&n->node, &ni->names);
			ni->nr_entries--;
			kfree(n);
			return;
		}
	} else {
		if (!ino)
			return;
		n = kmalloc(sizeof(*n), gfp);
		n->hash = nova_name_hash(de->de_name, len);
		n->name_len = len;
		n->entry = off;
		nova_dir_insert(dir, n, de->de_name);
		ni->nr_entries++;
	}
	n->ino = ino;
	n->file_type = de->de_file_type;
	n->entry = off;
	n->pos = pos;
	if (pos >= ni->next_pos)
		ni->next_pos = pos + 1;
	/* Positions are unique per directory; a clash means corruption. */
	if (xa_insert(&ni->dpos, pos, n, gfp))
		nova_err(dir->i_sb, "directory %lu: position %llu used twice",
			 dir->i_ino, pos);
}

void nova_dir_free_index(struct inode *dir)
{
	struct nova_inode_info *ni = NOVA_I(dir);
	struct nova_dentry_node *n, *tmp;

	rbtree_postorder_for_each_entry_safe(n, tmp, &ni->names, node)
		kfree(n);
	ni->names = RB_ROOT;
	xa_destroy(&ni->dpos);
	ni->nr_entries = 0;
	nova_gc_forget_inode(dir);
}

bool nova_dir_empty(struct inode *dir)
{
	return !NOVA_I(dir)->nr_entries;
}

/*
 * Append a dentry entry binding @name to @child (NULL: remove @name) to
 * @dir's log, unpublished. @links is @dir's link count after the
 * operation; the DRAM inode changes only when the entry is applied.
 */
int nova_dir_entry(struct inode *dir, const char *name, unsigned int len,
		   struct inode *child, unsigned int links, u64 trans,
		   u64 *tail)
{
	struct nova_inode_info *ni = NOVA_I(dir);
	struct nova_dentry_entry *de;
	struct timespec64 now = current_time(dir);
	unsigned int size = ALIGN(sizeof(*de) + len, 8);
	u8 buf[ALIGN(sizeof(*de) + NOVA_NAME_LEN, 8)];

	if (len > NOVA_NAME_LEN)
		return -ENAMETOOLONG;
	de = (struct nova_dentry_entry *)buf;
	memset(buf, 0, size);
	nova_entry_header(NOVA_SB(dir->i_sb), de, NOVA_LOG_DENTRY, size, trans);
	de->de_ino = cpu_to_le64(child ? child->i_ino : 0);
	if (child && !(len == 2 && name[0] == '.' && name[1] == '.')) {
		de->de_pos = cpu_to_le64(ni->next_pos);
		/* Read without i_rwsem by nova_dir_mark_end(). */
		WRITE_ONCE(ni->next_pos, ni->next_pos + 1);
	}
	de->de_links = cpu_to_le32(links);
	de->de_name_len = len;
	de->de_file_type = child ? fs_umode_to_dtype(child->i_mode) : 0;
	nova_ts_to_media(&de->de_mtime, &now);
	memcpy(de->de_name, name, len);
	return nova_log_append(dir, de, tail);
}

/*
 * The end of @file's directory stream is kept in its private_data; a
 * position is an index of ni->dpos, so it fits an unsigned long.
 */
static void nova_dir_mark_end(struct file *file)
{
	struct nova_inode_info *ni = NOVA_I(file_inode(file));

	file->private_data = (void *)(unsigned long)READ_ONCE(ni->next_pos);
}

static unsigned long nova_dir_end(struct file *file)
{
	return (unsigned long)file->private_data;
}

static int nova_dir_open(struct inode *dir, struct file *file)
{
	nova_dir_mark_end(file);
	return 0;
}

/* rewinddir() starts a new stream, which sees every name present now. */
static loff_t nova_dir_llseek(struct file *file, loff_t offset, int whence)
{
	loff_t pos = generic_file_llseek(file, offset, whence);

	if (pos == 0)
		nova_dir_mark_end(file);
	return pos;
}

static int nova_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct nova_inode_info *ni = NOVA_I(dir);
	unsigned long end = nova_dir_end(file);
	struct nova_dentry_node *n;
	unsigned long pos;
	u64 start = nova_op_start();

	if (nova_is_shutdown(dir->i_sb))
		return -EIO;
	if (!dir_emit_dots(file, ctx))
		goto out;
	if (ctx->pos < end) {
		xa_for_each_range(&ni->dpos, pos, n, ctx->pos, end - 1) {
			/* A view directory lists the numbers of view inodes. */
			u64 ino = nova_is_view(dir) ?
				  nova_view_d_ino(dir, n->ino) : n->ino;

			if (!dir_emit(ctx, nova_node_name(dir, n), n->name_len,
				      ino, n->file_type))
				goto out;
			ctx->pos = pos + 1;
		}
		ctx->pos = end;
	}
	nova_snapdir_emit(dir, ctx);
out:
	nova_op_done(dir->i_sb, NOVA_CTL_OP_READDIR, start);
	return 0;
}

static int nova_dir_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	/* Directory changes are durable when the operation returns. */
	return nova_is_shutdown(file_inode(file)->i_sb) ? -EIO : 0;
}

const struct file_operations nova_dir_operations = {
	.open		= nova_dir_open,
	.llseek		= nova_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= nova_readdir,
	.fsync		= nova_dir_fsync,
	.unlocked_ioctl	= nova_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

/* Directories of snapshot views (snapview.c): read-only, no ioctls. */
const struct file_operations nova_view_dir_operations = {
	.open		= nova_dir_open,
	.llseek		= nova_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= nova_readdir,
	.fsync		= nova_dir_fsync,
};

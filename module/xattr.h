/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: extended attributes and POSIX ACLs (xattr.c). The entries are in
 * uapi/nova_format.h (NOVA_LOG_XATTR), the rules in docs/format.md.
 */
#ifndef _NOVA_XATTR_H
#define _NOVA_XATTR_H

#include <linux/posix_acl.h>

struct inode;
struct dentry;
struct qstr;
struct fiemap_extent_info;

extern const struct xattr_handler *nova_xattr_handlers[];

ssize_t nova_listxattr(struct dentry *dentry, char *buf, size_t size);
int nova_xattr_fiemap(struct inode *inode, struct fiemap_extent_info *fi);

/* Log replay (iget.c) and DRAM index lifetime. */
int nova_xattr_replay(struct inode *inode, u64 off,
		      const struct nova_xattr_entry *xe);
int nova_xattr_replay_done(struct inode *inode);
void nova_xattr_free_index(struct inode *inode);
bool nova_xattr_entry_ok(const struct nova_xattr_entry *xe);

/* Garbage collection (gc.c). Log lock held. */
bool nova_xattr_gc_live(struct inode *inode, u64 off,
			const struct nova_xattr_entry *xe);
void nova_xattr_gc_moved(struct inode *inode, u64 from, u64 to,
			 const struct nova_xattr_entry *xe);

/*
 * A new, unpublished inode: its inherited ACLs and LSM label, written to
 * its log before the caller publishes it. Releases the ACLs.
 */
int nova_xattr_init_new(struct inode *inode, struct inode *dir,
			const struct qstr *qstr, struct posix_acl *default_acl,
			struct posix_acl *acl);

#endif /* _NOVA_XATTR_H */

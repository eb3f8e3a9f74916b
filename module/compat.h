/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: kernel-version-sensitive interfaces, isolated so that the rest of
 * the module reads the same on every supported kernel. Supported: Debian
 * 12's 6.1 and 6.12. Each helper says which kernel changed what:
 *
 *  - inode operations take the mount's struct user_namespace; 6.3 turned
 *    it into struct mnt_idmap (nova_idmap_t);
 *  - huge_fault takes enum page_entry_size; 6.6 passes a page order
 *    (nova_pe_size_t, NOVA_PE_SIZE_PTE/PMD, and dax_iomap_fault()
 *    follows);
 *  - vma->vm_flags is written directly; 6.3 made it read-only behind
 *    vm_flags_set() (nova_vma_set_flags);
 *  - inode->i_ctime is a plain field; 6.6 hid it behind accessors, 6.7 did
 *    the same to i_atime and i_mtime (nova_{get,set}_{a,m,c}time);
 *  - update_time gets the new time from the VFS; 6.6 dropped that argument
 *    (nova_vfs_update_time);
 *  - generic_fillattr() got the statx request mask in 6.6 (nova_fillattr);
 *  - file_operations.mmap_supported_flags became fop_flags in 6.11
 *    (NOVA_FOP_MMAP_SYNC); generic_file_splice_read() went in 6.5
 *    (nova_splice_read);
 *  - freeze_super()/thaw_super() name their holder since 6.6
 *    (nova_freeze_super, nova_thaw_super);
 *  - a genl dump's parsed attributes moved into genl_dumpit_info.info in
 *    6.2 (nova_genl_dump_attrs);
 *  - iov_iter's iovec array became private (__iov) behind iter_iov() in
 *    6.4 (nova_iter_iov);
 *  - export_operations without ->encode_fh got the 32-bit inode encoder by
 *    default until 6.7, which made it mandatory (NOVA_EXPORT_ENCODE_FH);
 *  - __uninitialized (a stack variable left out of
 *    CONFIG_INIT_STACK_ALL_ZERO's zeroing) is not in 6.1's
 *    compiler_attributes.h; defined here the way later kernels do;
 *  - get_dquots returns RCU-annotated pointers since 6.8 (nova_dquot_t);
 *  - dax_direct_access() of a range holding a listed bad sector fails
 *    with -EIO; 6.4 made it -EHWPOISON (nova_dax_range_bad).
 */
#ifndef _NOVA_COMPAT_H
#define _NOVA_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/version.h>
#include <linux/exportfs.h>
#include <linux/uio.h>
#include <net/genetlink.h>

#define NOVA_KERNEL_AT_LEAST(a, b)	\
	(KERNEL_VERSION(a, b, 0) <= LINUX_VERSION_CODE)

/*
 * Not zeroed on entry under CONFIG_INIT_STACK_ALL_ZERO (Debian's): for
 * hot-path buffers that are always written before they are read, whose
 * zeroing is a rep stos per call (one instruction per 8 bytes).
 */
#ifndef __uninitialized
#if __has_attribute(__uninitialized__)
#define __uninitialized		__attribute__((__uninitialized__))
#else
#define __uninitialized
#endif
#endif

/*
 * 6.8: an inode's dquot pointers are RCU-protected (super_operations
 * get_dquots returns struct dquot __rcu **).
 */
#if NOVA_KERNEL_AT_LEAST(6, 8)
#define nova_dquot_t	struct dquot __rcu
#else
#define nova_dquot_t	struct dquot
#endif

/*
 * 6.4 ("dax: enable dax fault handler to report VM_FAULT_HWPOISON"): the
 * pmem driver refuses a DAX_ACCESS mapping of a range with a listed bad
 * sector with -EHWPOISON instead of -EIO. Whether @err from
 * dax_direct_access() says that (the range may then be mapped around the
 * bad pages, badblocks.c).
 */
static inline bool nova_dax_range_bad(long err)
{
	return err == (NOVA_KERNEL_AT_LEAST(6, 4) ? -EHWPOISON : -EIO);
}

/* 6.3: the idmapped-mount argument of inode operations is a mnt_idmap. */
#if NOVA_KERNEL_AT_LEAST(6, 3)
#define nova_idmap_t	struct mnt_idmap
#else
#define nova_idmap_t	struct user_namespace
#endif

/*
 * 6.6: huge_fault and dax_iomap_fault() take the fault's page order
 * (0 for a PTE) instead of enum page_entry_size.
 */
#if NOVA_KERNEL_AT_LEAST(6, 6)
#define nova_pe_size_t		unsigned int
#define NOVA_PE_SIZE_PTE	0
#define NOVA_PE_SIZE_PMD	PMD_ORDER
#else
#define nova_pe_size_t		enum page_entry_size
#define NOVA_PE_SIZE_PTE	PE_SIZE_PTE
#define NOVA_PE_SIZE_PMD	PE_SIZE_PMD
#endif

/* 6.3: vm_flags is const; vm_flags_set() writes it under the mmap lock. */
static inline void nova_vma_set_flags(struct vm_area_struct *vma,
				      unsigned long flags)
{
#if NOVA_KERNEL_AT_LEAST(6, 3)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/* 6.6: i_ctime became private to inode_{get,set}_ctime*(). */
static inline struct timespec64 nova_get_ctime(const struct inode *inode)
{
#if NOVA_KERNEL_AT_LEAST(6, 6)
	return inode_get_ctime(inode);
#else
	return inode->i_ctime;
#endif
}

static inline void nova_set_ctime(struct inode *inode, struct timespec64 ts)
{
#if NOVA_KERNEL_AT_LEAST(6, 6)
	inode_set_ctime_to_ts(inode, ts);
#else
	inode->i_ctime = ts;
#endif
}

/* 6.7: i_atime and i_mtime went the same way (6.11 split them in two). */
static inline struct timespec64 nova_get_atime(const struct inode *inode)
{
#if NOVA_KERNEL_AT_LEAST(6, 7)
	return inode_get_atime(inode);
#else
	return inode->i_atime;
#endif
}

static inline void nova_set_atime(struct inode *inode, struct timespec64 ts)
{
#if NOVA_KERNEL_AT_LEAST(6, 7)
	inode_set_atime_to_ts(inode, ts);
#else
	inode->i_atime = ts;
#endif
}

static inline struct timespec64 nova_get_mtime(const struct inode *inode)
{
#if NOVA_KERNEL_AT_LEAST(6, 7)
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

static inline void nova_set_mtime(struct inode *inode, struct timespec64 ts)
{
#if NOVA_KERNEL_AT_LEAST(6, 7)
	inode_set_mtime_to_ts(inode, ts);
#else
	inode->i_mtime = ts;
#endif
}

/* 6.6: generic_fillattr() takes the statx request mask. */
static inline void nova_fillattr(nova_idmap_t *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
#if NOVA_KERNEL_AT_LEAST(6, 6)
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/*
 * 6.6: ->update_time() no longer gets the time; the file system reads the
 * clock itself. nova_update_time() keeps the 6.1 form; the inode
 * operations point at nova_vfs_update_time.
 */
int nova_update_time(struct inode *inode, struct timespec64 *t, int flags);
#if NOVA_KERNEL_AT_LEAST(6, 6)
static inline int nova_vfs_update_time(struct inode *inode, int flags)
{
	struct timespec64 now = current_time(inode);

	return nova_update_time(inode, &now, flags);
}
#else
#define nova_vfs_update_time	nova_update_time
#endif

/* 6.11: MAP_SYNC support is a bit of file_operations.fop_flags. */
#if NOVA_KERNEL_AT_LEAST(6, 11)
#define NOVA_FOP_MMAP_SYNC	.fop_flags = FOP_MMAP_SYNC
#else
#define NOVA_FOP_MMAP_SYNC	.mmap_supported_flags = MAP_SYNC
#endif

/*
 * 6.5: generic_file_splice_read() is gone; copy_splice_read() reads
 * through ->read_iter() as it did, which is what a DAX file needs (no
 * page cache to splice from).
 */
#if NOVA_KERNEL_AT_LEAST(6, 5)
#define nova_splice_read	copy_splice_read
#else
#define nova_splice_read	generic_file_splice_read
#endif

/*
 * 6.6: freeze_super() and thaw_super() name who holds the freeze. NOVA
 * freezes for its own purpose (a snapshot), as the kernel: a user's
 * FITHAW cannot end it early, and a user's FIFREEZE would nest in it
 * instead of failing with -EBUSY as on 6.1 (super.c's ->freeze_super
 * makes it wait for the snapshot's thaw instead). The other way round,
 * a snapshot of a file system the user froze, fails with -EBUSY on both.
 */
static inline int nova_freeze_super(struct super_block *sb)
{
#if NOVA_KERNEL_AT_LEAST(6, 6)
	int err = freeze_super(sb, FREEZE_HOLDER_KERNEL);

	/*
	 * Nesting also lets our freeze succeed on a file system the user
	 * froze (FIFREEZE, fsfreeze), where 6.1 fails with -EBUSY. A
	 * snapshot writes to the medium after freezing, which a user's
	 * freeze forbids: refuse as 6.1 does. 6.12 counts the user's
	 * freezes in freeze_ucount.
	 */
	if (!err && READ_ONCE(sb->s_writers.freeze_ucount)) {
		thaw_super(sb, FREEZE_HOLDER_KERNEL);
		err = -EBUSY;
	}
	return err;
#else
	return freeze_super(sb);
#endif
}

static inline int nova_thaw_super(struct super_block *sb)
{
#if NOVA_KERNEL_AT_LEAST(6, 6)
	return thaw_super(sb, FREEZE_HOLDER_KERNEL);
#else
	return thaw_super(sb);
#endif
}

/* 6.2: a dump's parsed attributes live in the embedded genl_info. */
static inline struct nlattr **
nova_genl_dump_attrs(const struct genl_dumpit_info *info)
{
#if NOVA_KERNEL_AT_LEAST(6, 2)
	return info->info.attrs;
#else
	return info->attrs;
#endif
}

/*
 * 6.7: ->encode_fh is mandatory; a NULL one is called (6.12 oopses in
 * name_to_handle_at()). generic_encode_ino32_fh() is the encoder 6.1 used
 * when it was NULL, so file handles stay the same.
 */
#if NOVA_KERNEL_AT_LEAST(6, 7)
#define NOVA_EXPORT_ENCODE_FH	.encode_fh = generic_encode_ino32_fh
#else
#define NOVA_EXPORT_ENCODE_FH	.encode_fh = NULL
#endif

/* 6.4: the current iovec of an ITER_IOVEC is read through iter_iov(). */
static inline const struct iovec *nova_iter_iov(const struct iov_iter *iter)
{
#if NOVA_KERNEL_AT_LEAST(6, 4)
	return iter_iov(iter);
#else
	return iter->iov;
#endif
}

/*
 * POSIX ACLs. 6.2 split ->get_acl() into ->get_inode_acl() (by inode,
 * possibly in RCU mode) and ->get_acl() (by dentry); ->set_acl() and
 * posix_acl_chmod() take a dentry; the system.posix_acl_* xattrs reach
 * ->set_acl() without xattr handlers (6.1 needs the generic ones in
 * s_xattr). xattr.c implements the 6.1 forms plus nova_set_acl_common().
 */
struct posix_acl;
struct posix_acl *nova_get_acl(struct inode *inode, int type, bool rcu);
int nova_set_acl_common(nova_idmap_t *idmap, struct inode *inode,
			struct posix_acl *acl, int type);
#if NOVA_KERNEL_AT_LEAST(6, 2)
static inline struct posix_acl *nova_get_acl_dentry(nova_idmap_t *idmap,
						    struct dentry *dentry,
						    int type)
{
	return nova_get_acl(d_inode(dentry), type, false);
}

static inline int nova_set_acl_dentry(nova_idmap_t *idmap,
				      struct dentry *dentry,
				      struct posix_acl *acl, int type)
{
	return nova_set_acl_common(idmap, d_inode(dentry), acl, type);
}

#define NOVA_ACL_IOPS	.get_inode_acl	= nova_get_acl,		\
			.get_acl	= nova_get_acl_dentry,	\
			.set_acl	= nova_set_acl_dentry
/* Snapshot views (snapview.c): read the ACLs, refuse to set them. */
int nova_view_set_acl_common(nova_idmap_t *idmap, struct inode *inode,
			     struct posix_acl *acl, int type);
static inline int nova_view_set_acl_dentry(nova_idmap_t *idmap,
					   struct dentry *dentry,
					   struct posix_acl *acl, int type)
{
	return nova_view_set_acl_common(idmap, d_inode(dentry), acl, type);
}

#define NOVA_VIEW_ACL_IOPS	.get_inode_acl	= nova_get_acl,		\
				.get_acl	= nova_get_acl_dentry,	\
				.set_acl	= nova_view_set_acl_dentry
#define nova_posix_acl_chmod(idmap, dentry, mode) \
	posix_acl_chmod(idmap, dentry, mode)
#define NOVA_ACL_XATTR_HANDLERS
#else
#define NOVA_ACL_IOPS	.get_acl	= nova_get_acl,		\
			.set_acl	= nova_set_acl_common
int nova_view_set_acl_common(nova_idmap_t *idmap, struct inode *inode,
			     struct posix_acl *acl, int type);
#define NOVA_VIEW_ACL_IOPS	.get_acl	= nova_get_acl,		\
				.set_acl	= nova_view_set_acl_common
#define nova_posix_acl_chmod(idmap, dentry, mode) \
	posix_acl_chmod(idmap, d_inode(dentry), mode)
#define NOVA_ACL_XATTR_HANDLERS	&posix_acl_access_xattr_handler, \
				&posix_acl_default_xattr_handler,
#endif

#endif /* _NOVA_COMPAT_H */

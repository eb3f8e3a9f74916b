/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: kernel-version-sensitive interfaces, isolated so that a port to a
 * later kernel touches this file only. Written against Linux 6.1.
 *
 *  - inode operations take the mount's struct user_namespace (6.3 turned
 *    it into struct mnt_idmap);
 *  - huge_fault takes enum page_entry_size (6.6 passes an order);
 *  - vma->vm_flags is written directly (6.3 added vm_flags_set());
 *  - inode->i_ctime is a plain field (6.6 added accessors).
 */
#ifndef _NOVA_COMPAT_H
#define _NOVA_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>

/* Type names, as macros so that the port is a one-line change each. */
#define nova_idmap_t	struct user_namespace
#define nova_pe_size_t	enum page_entry_size

#define NOVA_PE_SIZE_PTE	PE_SIZE_PTE

static inline void nova_vma_set_flags(struct vm_area_struct *vma,
				      unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline struct timespec64 nova_get_ctime(const struct inode *inode)
{
	return inode->i_ctime;
}

static inline void nova_set_ctime(struct inode *inode, struct timespec64 ts)
{
	inode->i_ctime = ts;
}

#endif /* _NOVA_COMPAT_H */

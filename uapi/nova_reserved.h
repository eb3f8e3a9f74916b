/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA reserved inode slots, written once for the kernel module and the
 * tools. The inodes below NOVA_FIRST_INO live in NOVA_RESERVED_INODE_BLOCK
 * (uapi/nova_format.h) and are made by the file system itself, not by a
 * create call: at format the root directory, the allocator-state inode
 * and the snapshot-table inode (nova_reserved_inode(), module/super.c;
 * make_reserved(), tools/mkfs_image.c), and at the first quota mount the
 * quota files (nova_quota_create(), module/quota.c). All three build the
 * slot with nova_reserved_inode_fill(), so the bytes cannot differ; where
 * the slot and its replica go and how they are made durable is each
 * side's own (pmem.h helpers in the kernel, writes and syncs in the
 * tools).
 */
#ifndef NOVA_RESERVED_H
#define NOVA_RESERVED_H

#include "nova_csum.h"
#include "nova_sb.h"	/* nova_sb_cpu*(): byte order on either side */

/* What a reserved inode's slot says (nova_reserved_inode_fill()). */
struct nova_reserved_attrs {
	__u16	mode;		/* type and permission bits */
	__u32	nlink;
	__u32	uid, gid;	/* format: the caller's; quota files: 0 */
	__u64	parent;		/* format: the inode itself; quota files: 0 */
	__u64	create_trans;	/* format: 0; quota files: their transaction */
	__u64	sec;		/* all four times (signed seconds) */
	__u32	nsec;
	/*
	 * i_valid 1 at format, whose superblock publishes the slot; 0 for
	 * the quota files, published by committing i_valid afterwards.
	 */
	int	live;
};

/*
 * Fill @pi (NOVA_INODE_SIZE bytes) as the slot of reserved inode @ino
 * with attributes @a: zeroes but for the fields @a names, i_ino, and the
 * checksum (i_csum; the commit words before it are not covered). No log
 * (i_log_head and i_log_tail 0), no flags, size, generation, device
 * number or inline data. No allocation, no I/O.
 */
static inline void nova_reserved_inode_fill(struct nova_inode *pi, __u64 ino,
					    const struct nova_reserved_attrs *a)
{
	struct nova_timespec ts;

	memset(&ts, 0, sizeof(ts));
	ts.sec = nova_sb_cpu64(a->sec);
	ts.nsec = nova_sb_cpu32(a->nsec);
	memset(pi, 0, sizeof(*pi));
	pi->i_valid = nova_sb_cpu64(a->live ? 1 : 0);
	pi->i_ino = nova_sb_cpu64(ino);
	pi->i_mode = nova_sb_cpu16(a->mode);
	pi->i_uid = nova_sb_cpu32(a->uid);
	pi->i_gid = nova_sb_cpu32(a->gid);
	pi->i_nlink = nova_sb_cpu32(a->nlink);
	pi->i_atime = ts;
	pi->i_mtime = ts;
	pi->i_ctime = ts;
	pi->i_crtime = ts;
	pi->i_create_trans = nova_sb_cpu64(a->create_trans);
	pi->i_parent = nova_sb_cpu64(a->parent);
	pi->i_csum = nova_sb_cpu32(nova_inode_csum(pi));
}

#endif /* NOVA_RESERVED_H */

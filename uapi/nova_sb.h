/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA superblock rules, written once for the kernel module and the tools.
 *
 * What makes a superblock copy valid (nova_sb_check()) and how the layout
 * fields follow from the size and features (nova_layout_to_sb(),
 * nova_sb_layout_ok()). nova.ko (module/super.c) and fsck.NOVA, mkfs.NOVA,
 * tune.NOVA and nova_id (tools/format.c) both call these, so they agree on
 * which copy is good by construction; only the checksum routine and the
 * wording of the messages are each side's own. The rules themselves are
 * described in docs/format.md.
 */
#ifndef NOVA_SB_H
#define NOVA_SB_H

#include "nova_format.h"

#ifdef __KERNEL__
#include <linux/stddef.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#define nova_sb_le16(x)		le16_to_cpu(x)
#define nova_sb_le32(x)		le32_to_cpu(x)
#define nova_sb_le64(x)		le64_to_cpu(x)
#define nova_sb_cpu16(x)	cpu_to_le16(x)
#define nova_sb_cpu32(x)	cpu_to_le32(x)
#define nova_sb_cpu64(x)	cpu_to_le64(x)
#else
#include <endian.h>
#include <stddef.h>
#include <string.h>
#define nova_sb_le16(x)		le16toh(x)
#define nova_sb_le32(x)		le32toh(x)
#define nova_sb_le64(x)		le64toh(x)
#define nova_sb_cpu16(x)	htole16(x)
#define nova_sb_cpu32(x)	htole32(x)
#define nova_sb_cpu64(x)	htole64(x)
#endif

/* What is wrong with a superblock copy, in the order it is checked. */
enum nova_sb_problem {
	NOVA_SB_FINE,
	NOVA_SB_BAD_MAGIC,		/* not a NOVA superblock at all */
	NOVA_SB_BAD_CSUM,
	NOVA_SB_BAD_VERSION,		/* another major version */
	NOVA_SB_BAD_BLOCKSIZE,
	NOVA_SB_BAD_SIZE,		/* not whole blocks, or too small */
	NOVA_SB_TOO_LARGE,		/* larger than the device */
	NOVA_SB_BAD_CPUS,
	NOVA_SB_BAD_STATE,
	NOVA_SB_UNKNOWN_FEATURES,	/* incompatible bits this code lacks */
	NOVA_SB_PARITY_NO_CSUM,
	NOVA_SB_FEATURE_TOO_NEW,	/* a feature its minor version predates */
	NOVA_SB_BAD_LAYOUT,		/* layout fields not what size gives */
};

/*
 * The oldest minor version of format 1 that can hold the features
 * @incompat: 1.2 introduced feature bits, 1.3 inode replicas, 1.4 log page
 * mirrors, 1.5 xattr and range entries, 1.6 file attribute flags, 1.7
 * quotas, 1.8 project ids.
 */
static inline __u16 nova_features_min_minor(__u32 incompat)
{
	if (incompat & NOVA_FEATURE_1_9)
		return 9;
	if (incompat & NOVA_FEATURE_1_8)
		return 8;
	if (incompat & NOVA_FEATURE_1_7)
		return 7;
	if (incompat & NOVA_FEATURE_1_6)
		return 6;
	if (incompat & NOVA_FEATURE_1_5)
		return 5;
	if (incompat & NOVA_FEATURE_LOG_REPLICA)
		return 4;
	if (incompat & NOVA_FEATURE_META_REPLICA)
		return 3;
	return incompat ? 2 : 0;
}

/* The layout fields (1.2) of a superblock from @l. */
static inline void nova_layout_to_sb(struct nova_super_block *sb,
				     const struct nova_layout *l)
{
	sb->s_alloc_start = nova_sb_cpu64(l->alloc_start);
	sb->s_alloc_end = nova_sb_cpu64(l->alloc_end);
	sb->s_csum_start = nova_sb_cpu64(l->csum);
	sb->s_csum_replica_start = nova_sb_cpu64(l->csum_replica);
	sb->s_parity_start = nova_sb_cpu64(l->parity);
	sb->s_mmap_block = nova_sb_cpu64(l->mmap);
	sb->s_csum_blocks = nova_sb_cpu32((__u32)l->csum_blocks);
	sb->s_parity_blocks = nova_sb_cpu32((__u32)l->parity_blocks);
	sb->s_meta_replica = nova_sb_cpu64(l->meta_replica);
	sb->s_bitmap_start = nova_sb_cpu64(l->bitmap);
	sb->s_bitmap_blocks = nova_sb_cpu64(l->bitmap_blocks);
}

/* 1.2 and later: the stored layout is the one size and features give. */
static inline int nova_sb_layout_ok(const struct nova_super_block *sb)
{
	struct nova_super_block t;
	struct nova_layout l;

	memset(&t, 0, sizeof(t));
	nova_layout_compute(nova_sb_le64(sb->s_size) >> NOVA_BLOCK_SHIFT,
			    nova_sb_le32(sb->s_feature_incompat), &l);
	nova_layout_to_sb(&t, &l);
	return !memcmp(&t.s_alloc_start, &sb->s_alloc_start,
		       offsetof(struct nova_super_block, s_reserved) -
		       offsetof(struct nova_super_block, s_alloc_start));
}

/*
 * Check one superblock copy of a device of @dev_size bytes; @csum is the
 * checksum of the copy as stored (crc32c with s_csum taken as zero,
 * computed by the caller's own routine). Returns the first problem found.
 */
static inline enum nova_sb_problem
nova_sb_check(const struct nova_super_block *sb, __u64 dev_size, __u32 csum)
{
	__u64 size = nova_sb_le64(sb->s_size);
	__u32 cpus = nova_sb_le32(sb->s_cpus);
	__u32 incompat = nova_sb_le32(sb->s_feature_incompat);

	if (nova_sb_le32(sb->s_magic) != NOVA_SUPER_MAGIC)
		return NOVA_SB_BAD_MAGIC;
	if (nova_sb_le32(sb->s_csum) != csum)
		return NOVA_SB_BAD_CSUM;
	if (nova_sb_le16(sb->s_version_major) != NOVA_FORMAT_MAJOR)
		return NOVA_SB_BAD_VERSION;
	if (nova_sb_le32(sb->s_blocksize) != NOVA_BLOCK_SIZE)
		return NOVA_SB_BAD_BLOCKSIZE;
	if (size % NOVA_BLOCK_SIZE ||
	    size < (__u64)NOVA_MIN_BLOCKS * NOVA_BLOCK_SIZE)
		return NOVA_SB_BAD_SIZE;
	if (size > dev_size)
		return NOVA_SB_TOO_LARGE;
	if (cpus < 1 || cpus > NOVA_MAX_CPUS)
		return NOVA_SB_BAD_CPUS;
	if (!nova_sb_state_known(nova_sb_le32(sb->s_state)))
		return NOVA_SB_BAD_STATE;
	if (incompat & ~NOVA_FEATURE_INCOMPAT_SUPP)
		return NOVA_SB_UNKNOWN_FEATURES;
	if ((incompat & NOVA_FEATURE_DATA_PARITY) &&
	    !(incompat & NOVA_FEATURE_DATA_CSUM))
		return NOVA_SB_PARITY_NO_CSUM;
	if (nova_sb_le16(sb->s_version_minor) < nova_features_min_minor(incompat))
		return NOVA_SB_FEATURE_TOO_NEW;
	if (nova_sb_le16(sb->s_version_minor) >= 2 && !nova_sb_layout_ok(sb))
		return NOVA_SB_BAD_LAYOUT;
	return NOVA_SB_FINE;
}

#endif /* NOVA_SB_H */

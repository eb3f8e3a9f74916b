// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sealing (checksumming in place) and small computations of the NOVA
 * on-media format; which bytes each checksum covers is uapi/nova_csum.h,
 * shared with the kernel.
 */
#include <stdio.h>
#include <string.h>

#include "crc32c.h"
#include "format.h"
#include "le.h"

void nova_sb_seal(struct nova_super_block *sb)
{
	sb->s_csum = cpu32(nova_sb_csum(sb));
}

void nova_inode_seal(struct nova_inode *pi)
{
	pi->i_csum = cpu32(nova_inode_csum(pi));
}

void nova_it_seal(struct nova_inode_table *it)
{
	it->it_csum = cpu32(nova_it_csum(it));
}

void nova_itt_seal(struct nova_inode_table_tail *itt)
{
	itt->itt_csum = cpu32(nova_itt_csum(itt));
}

void nova_jp_seal(struct nova_journal_ptr *jp)
{
	jp->j_csum = cpu32(nova_jp_csum(jp));
}

void nova_lt_seal(struct nova_log_page_tail *lt)
{
	lt->lt_csum = cpu32(nova_lt_csum(lt));
}

void nova_entry_seal(void *entry)
{
	struct nova_log_entry_header *h = entry;

	h->e_csum = cpu32(nova_entry_csum(entry, le16(h->e_size)));
}

const char *nova_protection_name(uint32_t incompat)
{
	bool r = incompat & NOVA_FEATURE_META_REPLICA;

	if (incompat & NOVA_FEATURE_LOG_REPLICA)
		return incompat & NOVA_FEATURE_DATA_PARITY ?
		       "checksums+parity+replicas+log-mirrors" :
		       "log-mirrors";
	if (incompat & NOVA_FEATURE_DATA_PARITY)
		return r ? "checksums+parity+replicas" : "checksums+parity";
	if (incompat & NOVA_FEATURE_DATA_CSUM)
		return r ? "checksums+replicas" : "checksums";
	return r ? "replicas" : "off";
}

bool nova_sb_valid(const struct nova_super_block *sb, uint64_t dev_size,
		   char *why, size_t why_len)
{
	uint32_t incompat = le32(sb->s_feature_incompat);
	uint16_t major = le16(sb->s_version_major), minor = le16(sb->s_version_minor);

	if (why_len)
		why[0] = 0;
	/* The rules are uapi/nova_sb.h's (the kernel's too); the words ours. */
	switch (nova_sb_check(sb, dev_size, nova_sb_csum(sb))) {
	case NOVA_SB_FINE:
		return true;
	case NOVA_SB_BAD_MAGIC:
		snprintf(why, why_len, "bad magic 0x%08x", le32(sb->s_magic));
		break;
	case NOVA_SB_BAD_CSUM:
		snprintf(why, why_len, "bad checksum 0x%08x (computed 0x%08x)",
			 le32(sb->s_csum), nova_sb_csum(sb));
		break;
	case NOVA_SB_BAD_VERSION:
		snprintf(why, why_len, "unsupported format version %u.%u", major, minor);
		break;
	case NOVA_SB_BAD_BLOCKSIZE:
		snprintf(why, why_len, "bad block size %u", le32(sb->s_blocksize));
		break;
	case NOVA_SB_BAD_SIZE:
		snprintf(why, why_len, "bad size %llu",
			 (unsigned long long)le64(sb->s_size));
		break;
	case NOVA_SB_TOO_LARGE:
		snprintf(why, why_len, "size %llu is larger than the device (%llu)",
			 (unsigned long long)le64(sb->s_size),
			 (unsigned long long)dev_size);
		break;
	case NOVA_SB_BAD_CPUS:
		snprintf(why, why_len, "bad number of CPU stripes %u", le32(sb->s_cpus));
		break;
	case NOVA_SB_BAD_STATE:
		snprintf(why, why_len, "bad state %u", le32(sb->s_state));
		break;
	case NOVA_SB_UNKNOWN_FEATURES:
		snprintf(why, why_len, "unknown incompatible features 0x%x",
			 incompat & ~NOVA_FEATURE_INCOMPAT_SUPP);
		break;
	case NOVA_SB_PARITY_NO_CSUM:
		snprintf(why, why_len, "data parity without data checksums");
		break;
	case NOVA_SB_FEATURE_TOO_NEW:
		snprintf(why, why_len,
			 "format %u.%u cannot have features 0x%x (they need %u.%u)",
			 major, minor, incompat, major,
			 nova_features_min_minor(incompat));
		break;
	case NOVA_SB_BAD_LAYOUT:
		snprintf(why, why_len, "the layout fields do not match the size and features");
		break;
	}
	return false;
}

unsigned int nova_entry_expected_size(const void *entry)
{
	const struct nova_log_entry_header *h = entry;

	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE:
		return sizeof(struct nova_file_write_entry);
	case NOVA_LOG_DENTRY:
		return nova_dentry_size(
			((const struct nova_dentry_entry *)entry)->de_name_len);
	case NOVA_LOG_SETATTR:
		return sizeof(struct nova_setattr_entry);
	case NOVA_LOG_LINK_CHANGE:
		return sizeof(struct nova_link_change_entry);
	case NOVA_LOG_FREE_RANGES: {
		uint32_t n = le32(((const struct nova_free_ranges_entry *)
				   entry)->fr_count);

		if (n > NOVA_RANGES_PER_ENTRY)
			return 0;
		return nova_free_ranges_size(n);
	}
	case NOVA_LOG_SNAPSHOT:
		return sizeof(struct nova_snapshot_entry);
	case NOVA_LOG_SNAPSHOT_DEL:
		return sizeof(struct nova_snapshot_del_entry);
	case NOVA_LOG_SNAPSHOT_KEEP:
		return sizeof(struct nova_snapshot_keep_entry);
	case NOVA_LOG_SNAPSHOT_INODE:
		return sizeof(struct nova_snapshot_inode_entry);
	case NOVA_LOG_RANGE:
		return sizeof(struct nova_range_entry);
	case NOVA_LOG_XATTR: {
		const struct nova_xattr_entry *xe = entry;

		if (le32(xe->xe_len) > NOVA_XATTR_PIECE_MAX)
			return 0;
		return nova_xattr_entry_size(xe->xe_name_len, le32(xe->xe_len));
	}
	default:
		return 0;
	}
}

void nova_ino_locate(uint64_t ino, unsigned int cpus, struct nova_ino_loc *loc)
{
	uint64_t index = nova_ino_index(ino, cpus);

	loc->cpu = nova_ino_cpu(ino, cpus);
	loc->table = index / NOVA_INODES_PER_TABLE;
	loc->slot = (unsigned int)(index % NOVA_INODES_PER_TABLE);
}

uint64_t nova_ino_of(unsigned int cpu, uint64_t table, unsigned int slot,
		     unsigned int cpus)
{
	uint64_t index = table * NOVA_INODES_PER_TABLE + slot;

	return nova_ino_make(cpus, cpu, index);
}

const char *nova_entry_type_name(unsigned int type)
{
	switch (type) {
	case NOVA_LOG_PAD:		return "pad";
	case NOVA_LOG_FILE_WRITE:	return "file write";
	case NOVA_LOG_DENTRY:		return "dentry";
	case NOVA_LOG_SETATTR:		return "setattr";
	case NOVA_LOG_LINK_CHANGE:	return "link change";
	case NOVA_LOG_FREE_RANGES:	return "free ranges";
	case NOVA_LOG_SNAPSHOT:		return "snapshot";
	case NOVA_LOG_SNAPSHOT_DEL:	return "snapshot delete";
	case NOVA_LOG_SNAPSHOT_KEEP:	return "snapshot keep";
	case NOVA_LOG_SNAPSHOT_INODE:	return "snapshot inode";
	case NOVA_LOG_RANGE:		return "range";
	case NOVA_LOG_XATTR:		return "xattr";
	default:			return "unknown";
	}
}

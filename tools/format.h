/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The on-media format as userspace computes it: checksums of every
 * structure (what the kernel stores and verifies), sizes of log entries,
 * inode number arithmetic. The layout itself is uapi/nova_format.h.
 */
#ifndef NOVA_TOOLS_FORMAT_H
#define NOVA_TOOLS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nova_format.h"
#include "nova_sb.h"
#include "nova_csum.h"
#include "nova_state.h"	/* nova_free_ranges_size() */

#define NOVA_BLOCK(off)		((off) >> NOVA_BLOCK_SHIFT)
#define NOVA_OFF(blk)		((uint64_t)(blk) << NOVA_BLOCK_SHIFT)

/*
 * The checksums of the fixed structures are nova_csum.h's, compiled into
 * the kernel too. Log entry of @size bytes: e_csum, e_flags and hint fields taken as zero. */

/* Store the checksum into the structure (mkfs, repairs). */
void nova_sb_seal(struct nova_super_block *sb);
void nova_inode_seal(struct nova_inode *pi);
void nova_it_seal(struct nova_inode_table *it);
void nova_itt_seal(struct nova_inode_table_tail *itt);
void nova_jp_seal(struct nova_journal_ptr *jp);
void nova_lt_seal(struct nova_log_page_tail *lt);
void nova_entry_seal(void *entry);

/*
 * Check a superblock copy for a device of @dev_size bytes. Returns true if
 * it is usable; otherwise @why (of @why_len bytes) says what is wrong.
 */
bool nova_sb_valid(const struct nova_super_block *sb, uint64_t dev_size,
		   char *why, size_t why_len);

/*
 * The size a log entry of this type must have: exact for fixed-size
 * types; for dentries and free-range lists, computed from the entry's own
 * count fields (caller checks those are readable: 32 bytes). 0 for an
 * unknown type.
 */
unsigned int nova_entry_expected_size(const void *entry);

/* Bytes of a dentry entry with a @name_len-byte name. */
static inline unsigned int nova_dentry_size(unsigned int name_len)
{
	return (unsigned int)offsetof(struct nova_dentry_entry, de_name) +
	       ((name_len + 7U) & ~7U);
}

/* Where a normal inode (ino >= NOVA_FIRST_INO) lives. */
struct nova_ino_loc {
	unsigned int cpu;
	uint64_t table;		/* position in that CPU's table chain */
	unsigned int slot;	/* slot in the table block */
};

void nova_ino_locate(uint64_t ino, unsigned int cpus, struct nova_ino_loc *loc);
uint64_t nova_ino_of(unsigned int cpu, uint64_t table, unsigned int slot,
		     unsigned int cpus);

/* Byte offset of slot @slot inside a 2 MiB inode table block. */
static inline uint64_t nova_slot_off(unsigned int slot)
{
	return (uint64_t)slot * NOVA_INODE_SIZE;
}

/* Offset of the tail in an inode table block. */
#define NOVA_ITT_OFF	((uint64_t)NOVA_INODES_PER_TABLE * NOVA_INODE_SIZE)

/* "checksums+parity", "checksums" or "off", from s_feature_incompat. */
const char *nova_protection_name(uint32_t incompat);

/* Name of a log entry type, for messages. */
const char *nova_entry_type_name(unsigned int type);

#endif

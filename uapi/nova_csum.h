/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA on-media checksums: which bytes of each fixed structure its
 * checksum covers. nova.ko and the tools (mkfs.NOVA, fsck.NOVA) compile
 * these same functions, so the writers, the mount-time checks, the scrub
 * and fsck cannot disagree.
 *
 * Every checksum is CRC-32C seeded with NOVA_CRC_SEED, no final inversion
 * (uapi/nova_format.h), with the checksum field itself taken as zero. Each
 * side provides nova_crc32c(crc, buf, len) with the kernel's crc32c()
 * convention: module/csum.c, tools/crc32c.c.
 *
 * The lite journal's rules (record positions, validity, rollback) are
 * uapi/nova_journal.h.
 */
#ifndef _UAPI_NOVA_CSUM_H
#define _UAPI_NOVA_CSUM_H

#ifdef __KERNEL__
#include <linux/stddef.h>
#else
#include <stddef.h>
#endif
#include "nova_format.h"

#define NOVA_CRC_SEED	0xffffffffU

__u32 nova_crc32c(__u32 crc, const void *buf, size_t len);

/*
 * The checksum of @len bytes at @buf, the 4-byte checksum field at
 * @csum_off taken as zero (@csum_off >= @len: the field is not covered).
 */
static inline __u32 nova_csum_skip(const void *buf, size_t len,
				   size_t csum_off)
{
	static const unsigned char zero[4];
	const unsigned char *p = (const unsigned char *)buf;
	__u32 crc;

	if (csum_off >= len)
		return nova_crc32c(NOVA_CRC_SEED, buf, len);
	crc = nova_crc32c(NOVA_CRC_SEED, p, csum_off);
	crc = nova_crc32c(crc, zero, len - csum_off < 4 ? len - csum_off : 4);
	if (len > csum_off + 4)
		crc = nova_crc32c(crc, p + csum_off + 4, len - csum_off - 4);
	return crc;
}

/* The superblock: all NOVA_SB_SIZE bytes. */
static inline __u32 nova_sb_csum(const struct nova_super_block *sb)
{
	return nova_csum_skip(sb, NOVA_SB_SIZE,
			      offsetof(struct nova_super_block, s_csum));
}

/*
 * An inode slot: from i_csum (as zero) to the end; the commit words
 * before it are not covered.
 */
static inline __u32 nova_inode_csum(const struct nova_inode *pi)
{
	size_t off = offsetof(struct nova_inode, i_csum);

	return nova_csum_skip((const unsigned char *)pi + off,
			      NOVA_INODE_SIZE - off, 0);
}

/*
 * Inode-table heads and tails: a commit word first (not covered: it
 * changes on its own), then the checksum (as zero), then the data.
 */
static inline __u32 nova_table_rec_csum(const void *rec, size_t len)
{
	return nova_csum_skip((const unsigned char *)rec + 8, len - 8, 0);
}

static inline __u32 nova_it_csum(const struct nova_inode_table *it)
{
	return nova_table_rec_csum(it, sizeof(*it));
}

static inline __u32 nova_itt_csum(const struct nova_inode_table_tail *itt)
{
	return nova_table_rec_csum(itt, sizeof(*itt));
}

/* A journal pointer: j_block to the end (j_csum, as zero, among them). */
static inline __u32 nova_jp_csum(const struct nova_journal_ptr *jp)
{
	size_t off = offsetof(struct nova_journal_ptr, j_block);

	return nova_csum_skip((const unsigned char *)jp + off,
			      sizeof(*jp) - off,
			      offsetof(struct nova_journal_ptr, j_csum) - off);
}

/* A journal record: all of it. */
static inline __u32 nova_je_csum(const struct nova_journal_entry *je)
{
	return nova_csum_skip(je, sizeof(*je),
			      offsetof(struct nova_journal_entry, je_csum));
}

/*
 * A log page tail: lt_ino, lt_magic and lt_csum (as zero), then lt_replica
 * if it is set (1.4), so that 1.3 tails keep their checksum.
 */
static inline __u32 nova_lt_csum(const struct nova_log_page_tail *lt)
{
	size_t off = offsetof(struct nova_log_page_tail, lt_ino);

	return nova_csum_skip((const unsigned char *)lt + off,
			      lt->lt_replica ? 24 : 16,
			      offsetof(struct nova_log_page_tail, lt_csum) - off);
}

/*
 * A log entry: its e_size bytes with the hints taken as zero: e_flags,
 * e_csum itself and a file write entry's fw_dead_pages (GC writes the
 * hints in place, after the entry is committed). nova_entry_csum_mask()
 * clears them in a copy, for a writer that checksums a copy in one call;
 * nova_entry_csum() skips them in place. Both give the same value.
 */
static inline void nova_entry_csum_mask(void *copy, unsigned int size)
{
	struct nova_log_entry_header *h = (struct nova_log_entry_header *)copy;

	h->e_flags = 0;
	h->e_csum = 0;
	if (h->e_type == NOVA_LOG_FILE_WRITE &&
	    size >= sizeof(struct nova_file_write_entry))
		((struct nova_file_write_entry *)copy)->fw_dead_pages = 0;
}

static inline __u32 nova_entry_csum(const void *entry, unsigned int size)
{
	static const unsigned char zero[8];
	const unsigned char *p = (const unsigned char *)entry;
	size_t hint = offsetof(struct nova_file_write_entry, fw_dead_pages);
	__u32 crc = NOVA_CRC_SEED;

	if (size < sizeof(struct nova_log_entry_header))
		return 0;
	crc = nova_crc32c(crc, p, 1);		/* e_type */
	crc = nova_crc32c(crc, zero, 1);	/* e_flags */
	crc = nova_crc32c(crc, p + 2, 2);	/* e_size */
	crc = nova_crc32c(crc, zero, 4);	/* e_csum */
	if (p[0] == NOVA_LOG_FILE_WRITE &&
	    size >= sizeof(struct nova_file_write_entry)) {
		crc = nova_crc32c(crc, p + 8, hint - 8);
		crc = nova_crc32c(crc, zero, 4);
		crc = nova_crc32c(crc, p + hint + 4, size - hint - 4);
	} else {
		crc = nova_crc32c(crc, p + 8, size - 8);
	}
	return crc;
}

#endif /* _UAPI_NOVA_CSUM_H */

/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA lite-journal rules, written once for the kernel module and the
 * tools: where records sit in a ring, which journal pointer and which
 * record of an open transaction are valid, and how a transaction is
 * rolled back (its records walked from the tail back to the head, newest
 * first, each word getting its old value, so that a word recorded twice
 * ends with the older value). nova.ko (module/journal.c, module/scrub.c)
 * and fsck.NOVA (tools/fsck_tables.c) call these; only the bounds of the
 * device and the wording of the messages are each side's own. The format
 * is described in uapi/nova_format.h and docs/format.md ("Journals").
 */
#ifndef NOVA_JOURNAL_H
#define NOVA_JOURNAL_H

#include "nova_csum.h"
#include "nova_sb.h"	/* nova_sb_le32()/_le64(): byte order on either side */

/*
 * Whether @pos (a byte offset on the device) is a record boundary inside
 * the one-block ring that starts at @ring.
 */
static inline int nova_jpos_ok(__u64 ring, __u64 pos)
{
	return pos >= ring && pos < ring + NOVA_BLOCK_SIZE &&
	       !((pos - ring) % sizeof(struct nova_journal_entry));
}

/* The record position after @pos in the ring at @ring (wrapping). */
static inline __u64 nova_jpos_next(__u64 ring, __u64 pos)
{
	return ring + (pos - ring + sizeof(struct nova_journal_entry)) %
		      NOVA_BLOCK_SIZE;
}

/* The record position before @pos in the ring at @ring (wrapping). */
static inline __u64 nova_jpos_prev(__u64 ring, __u64 pos)
{
	return ring + (pos - ring + NOVA_BLOCK_SIZE -
		       sizeof(struct nova_journal_entry)) % NOVA_BLOCK_SIZE;
}

/*
 * Whether journal pointer @jp is CPU @cpu's and intact (its checksum); the
 * caller checks that j_block is a block of the device and that head and
 * tail pass nova_jpos_ok().
 */
static inline int nova_jptr_ok(const struct nova_journal_ptr *jp,
			       unsigned int cpu)
{
	return nova_sb_le32(jp->j_csum) == nova_jp_csum(jp) &&
	       nova_sb_le32(jp->j_cpu) == cpu;
}

/*
 * Whether record @je of an open transaction may be rolled back on a
 * device of @size bytes: intact, a word record, and its word 8-byte
 * aligned and outside the first block (the superblocks) and the last
 * (the replica superblock). A record that fails this makes the journal
 * corrupt: the kernel refuses to mount and fsck.NOVA says so.
 */
static inline int nova_jrec_ok(const struct nova_journal_entry *je,
			       __u64 size)
{
	__u64 addr = nova_sb_le64(je->je_addr);

	return nova_sb_le32(je->je_csum) == nova_je_csum(je) &&
	       nova_sb_le32(je->je_type) == NOVA_JOURNAL_WORD &&
	       !(addr % 8) && addr >= NOVA_BLOCK_SIZE &&
	       addr < size - NOVA_BLOCK_SIZE;
}

#endif /* NOVA_JOURNAL_H */

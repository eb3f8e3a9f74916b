// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: per-inode logs.
 *
 * A log is a chain of 4 KiB PMEM pages. Entries are appended past the
 * committed tail without being visible; nova_log_commit() publishes all of
 * them with one 8-byte store to the inode's i_log_tail. Operations on
 * several inodes publish their tails through the lite journal instead.
 *
 * Lock order: the caller holds nova_inode_info.log_lock of every inode
 * whose log it appends to (nova_lock_logs() takes several in inode number
 * order); page allocation takes nova_free_list.lock below it.
 */
#include <linux/crc32c.h>
#include <linux/sort.h>

#include "nova.h"
#include "pmem.h"

void nova_entry_header(struct nova_sb_info *sbi, void *entry, u8 type,
		       unsigned int size, u64 trans)
{
	struct nova_log_entry_header *h = entry;

	h->e_type = type;
	h->e_flags = 0;
	h->e_size = cpu_to_le16(size);
	h->e_csum = 0;
	h->e_epoch_id = cpu_to_le64(sbi->epoch_id);
	h->e_trans_id = cpu_to_le64(trans);
}

/*
 * Entries up to this size (every file write entry) are checksummed as one
 * copy on the stack with the excluded fields cleared: one crc32c() call
 * instead of seven on every write and every log walk.
 */
#define NOVA_ENTRY_CRC_COPY	128

/* The copy of nova_entry_crc(): e_flags, e_csum and the hints cleared. */
static u32 nova_entry_crc_copy(const void *entry, unsigned int size)
{
	u8 buf[NOVA_ENTRY_CRC_COPY];
	struct nova_log_entry_header *h = (void *)buf;

	memcpy(buf, entry, size);
	h->e_flags = 0;
	h->e_csum = 0;
	if (h->e_type == NOVA_LOG_FILE_WRITE &&
	    size >= sizeof(struct nova_file_write_entry))
		((struct nova_file_write_entry *)buf)->fw_dead_pages = 0;
	return crc32c(~0U, buf, size);
}

/*
 * crc32c of an entry with e_flags, e_csum and hint fields taken as zero.
 * @size is at least the header's.
 */
static u32 nova_entry_crc(const void *entry, unsigned int size)
{
	static const u8 zero[8];
	const u8 *p = entry;
	unsigned int hint;
	u32 crc = ~0U;

	if (size <= NOVA_ENTRY_CRC_COPY)
		return nova_entry_crc_copy(entry, size);
	crc = crc32c(crc, p, 1);
	crc = crc32c(crc, zero, 1);
	crc = crc32c(crc, p + 2, 2);
	crc = crc32c(crc, zero, 4);
	if (p[0] == NOVA_LOG_FILE_WRITE &&
	    size >= sizeof(struct nova_file_write_entry)) {
		hint = offsetof(struct nova_file_write_entry, fw_dead_pages);
		crc = crc32c(crc, p + 8, hint - 8);
		crc = crc32c(crc, zero, 4);
		crc = crc32c(crc, p + hint + 4, size - hint - 4);
	} else {
		crc = crc32c(crc, p + 8, size - 8);
	}
	return crc;
}

void nova_entry_seal(void *entry)
{
	struct nova_log_entry_header *h = entry;

	h->e_csum = cpu_to_le32(nova_entry_crc(entry, le16_to_cpu(h->e_size)));
}

static bool nova_entry_ok(const struct nova_log_entry_header *h,
			  unsigned int room)
{
	unsigned int size = le16_to_cpu(h->e_size);

	if (size < sizeof(*h) || size % 8 || size > room)
		return false;
	return le32_to_cpu(h->e_csum) == nova_entry_crc(h, size);
}

static struct nova_log_page_tail *nova_page_tail(struct nova_sb_info *sbi,
						 u64 page)
{
	return nova_addr(sbi, page + NOVA_LOG_DATA_SIZE);
}

static bool nova_log_page_ok(struct nova_sb_info *sbi, u64 page, u64 ino)
{
	struct nova_log_page_tail *lt;

	if (page & (NOVA_BLOCK_SIZE - 1) ||
	    !nova_block_ok(sbi, page >> NOVA_BLOCK_SHIFT, 1))
		return false;
	lt = nova_page_tail(sbi, page);
	return le32_to_cpu(lt->lt_magic) == NOVA_LOG_PAGE_MAGIC &&
	       le64_to_cpu(lt->lt_ino) == ino &&
	       le32_to_cpu(lt->lt_csum) == nova_lt_crc(lt);
}

/*
 * Walk a log: call @efn for every committed entry (up to @tail) and @pfn
 * for every page in the chain, including pages linked past the tail page
 * (left by an operation that extended the log and then failed). Returns
 * the first error of a callback, or -EFSCORRUPTED for a broken chain,
 * a bad checksum or a tail that is not in the chain.
 */
int nova_log_walk_raw(struct super_block *sb, u64 ino, u64 head, u64 tail,
		      nova_entry_fn efn, nova_page_fn pfn, void *arg)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long pages = 0;
	bool done = !tail;
	u64 page = head;
	int err;

	while (page) {
		u64 pos = page, end = page + NOVA_LOG_DATA_SIZE;

		if (!nova_log_page_ok(sbi, page, ino) ||
		    ++pages > sbi->nblocks) {
			nova_err(sb, "inode %llu: bad log page at %llu",
				 ino, page);
			return -EFSCORRUPTED;
		}
		if (pfn) {
			err = pfn(sb, page, arg);
			if (err)
				return err;
		}
		while (!done) {
			struct nova_log_entry_header *h = nova_addr(sbi, pos);

			if (pos == tail) {
				done = true;
				break;
			}
			if (end - pos < sizeof(*h) || h->e_type == NOVA_LOG_PAD)
				break;
			if (!nova_entry_ok(h, end - pos)) {
				nova_err(sb, "inode %llu: bad log entry at %llu",
					 ino, pos);
				return -EFSCORRUPTED;
			}
			if (efn) {
				err = efn(sb, pos, h, arg);
				if (err)
					return err;
			}
			pos += le16_to_cpu(h->e_size);
		}
		if (done && !pfn)
			return 0;
		page = le64_to_cpu(READ_ONCE(nova_page_tail(sbi, page)->lt_next));
	}
	if (!done) {
		nova_err(sb, "inode %llu: log tail %llu is not in its log",
			 ino, tail);
		return -EFSCORRUPTED;
	}
	return 0;
}

/* Allocate and initialise an empty log page; durable on return. */
static int nova_new_log_page(struct inode *inode, u64 *page)
{
	struct super_block *sb = inode->i_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_log_page_tail t = {
		.lt_ino = cpu_to_le64(inode->i_ino),
		.lt_magic = cpu_to_le32(NOVA_LOG_PAGE_MAGIC),
	};
	unsigned long blk, got;
	void *addr;
	int err;

	err = nova_alloc_blocks(sb, 1, false, NOVA_BLOCK_LOG, &blk, &got);
	if (err)
		return err;
	addr = nova_block(sbi, blk);
	t.lt_csum = cpu_to_le32(nova_lt_crc(&t));
	/* An empty page starts with a pad byte; its tail is initialised. */
	nova_pmem_memset(addr, 0, 8);
	nova_pmem_memcpy(addr + NOVA_LOG_DATA_SIZE, &t, sizeof(t));
	nova_pmem_fence();
	NOVA_I(inode)->log_pages++;
	*page = (u64)blk << NOVA_BLOCK_SHIFT;
	return 0;
}

/*
 * Append a sealed copy of @entry (header filled by nova_entry_header())
 * after *@tail (0: the committed tail) and advance *@tail past it. The
 * entry is durable on return but not visible until the tail is committed.
 * Caller holds the inode's log_lock.
 */
int nova_log_append(struct inode *inode, void *entry, u64 *tail)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	struct nova_log_entry_header *h = entry;
	unsigned int size = le16_to_cpu(h->e_size);
	struct nova_log_page_tail *lt;
	u64 pos = *tail ? *tail : ni->log_tail, page;
	int err;

	lockdep_assert_held(&ni->log_lock);
	if (!pos) {
		if (!ni->log_head) {
			err = nova_new_log_page(inode, &page);
			if (err)
				return err;
			/* The page is durable; attach it (0 -> page, once). */
			nova_pi_commit64(sbi, &nova_pi(inode)->i_log_head, page);
			ni->log_head = page;
		}
		pos = ni->log_head;
	}

	page = pos & ~((u64)NOVA_BLOCK_SIZE - 1);
	if (pos + size > page + NOVA_LOG_DATA_SIZE) {
		lt = nova_page_tail(sbi, page);
		/* Mark the rest of this page unused before leaving it. */
		if (pos < page + NOVA_LOG_DATA_SIZE)
			nova_pmem_memset(nova_addr(sbi, pos), NOVA_LOG_PAD, 1);
		page = le64_to_cpu(lt->lt_next);
		if (!page) {
			/* Fast GC, then a durable extension, then its link. */
			err = nova_gc_extend_log(inode, pos & ~((u64)NOVA_BLOCK_SIZE - 1),
						 &page);
			if (err)
				return err;
		}
		pos = page;
	}

	nova_entry_seal(entry);
	nova_pmem_memcpy(nova_addr(sbi, pos), entry, size);
	/* Garbage-collection hints; exactness after a crash is not needed. */
	lt = nova_page_tail(sbi, page);
	le32_add_cpu(&lt->lt_entries, 1);
	le32_add_cpu(&lt->lt_valid, 1);
	nova_pmem_flush(lt, 16);
	ni->last_append = pos;
	*tail = pos + size;
	return 0;
}

/* Publish everything appended up to @tail (one 8-byte store). */
void nova_log_commit(struct inode *inode, u64 tail)
{
	struct nova_inode_info *ni = NOVA_I(inode);

	lockdep_assert_held(&ni->log_lock);
	nova_pi_commit64(NOVA_SB(inode->i_sb), &nova_pi(inode)->i_log_tail, tail);
	ni->log_tail = tail;
}

/* Mark a superseded entry invalid (a hint for garbage collection). */
void nova_log_invalidate(struct inode *inode, u64 entry_off)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	struct nova_log_entry_header *h;
	struct nova_log_page_tail *lt;

	if (!entry_off)
		return;
	h = nova_addr(sbi, entry_off);
	if (h->e_flags & NOVA_ENTRY_INVALID)
		return;
	h->e_flags |= NOVA_ENTRY_INVALID;
	nova_pmem_flush(&h->e_flags, 1);
	lt = nova_page_tail(sbi, entry_off & ~((u64)NOVA_BLOCK_SIZE - 1));
	if (le32_to_cpu(lt->lt_valid))
		le32_add_cpu(&lt->lt_valid, -1);
	nova_pmem_flush(&lt->lt_valid, sizeof(lt->lt_valid));
}

/*
 * Apply the entries between two tails just committed (@from is the tail
 * before, 0 for an empty log) to the DRAM inode. Log lock held.
 */
void nova_log_apply_range(struct inode *inode, u64 from, u64 to)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	u64 pos = from ? from : NOVA_I(inode)->log_head;

	while (pos != to) {
		u64 page = pos & ~((u64)NOVA_BLOCK_SIZE - 1);
		struct nova_log_entry_header *h = nova_addr(sbi, pos);

		if (page + NOVA_LOG_DATA_SIZE - pos < sizeof(*h) ||
		    h->e_type == NOVA_LOG_PAD) {
			pos = le64_to_cpu(nova_page_tail(sbi, page)->lt_next);
			if (WARN_ON_ONCE(!pos))
				return;
			continue;
		}
		nova_apply_entry(inode, pos, h, NULL);
		pos += le16_to_cpu(h->e_size);
	}
}

static int nova_free_page_cb(struct super_block *sb, u64 page, void *arg)
{
	u64 *prev = arg;

	/* Free the previous page: this one's link was read from it. */
	if (*prev)
		nova_free_blocks(sb, *prev >> NOVA_BLOCK_SHIFT, 1,
				 NOVA_BLOCK_LOG);
	*prev = page;
	return 0;
}

/* Free every page of an inode's log (the inode is dead and invalid). */
void nova_log_free(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	u64 prev = 0;

	if (!ni->log_head)
		return;
	nova_log_walk_raw(inode->i_sb, inode->i_ino, ni->log_head, 0, NULL,
			  nova_free_page_cb, &prev);
	nova_free_page_cb(inode->i_sb, 0, &prev);
	ni->log_head = 0;
	ni->log_tail = 0;
	ni->log_pages = 0;
}

static int nova_cmp_ino(const void *a, const void *b)
{
	const struct inode *x = *(struct inode * const *)a;
	const struct inode *y = *(struct inode * const *)b;

	if (x == y)
		return 0;
	if (!x || !y)
		return x ? -1 : 1;	/* NULLs last */
	return x->i_ino < y->i_ino ? -1 : 1;
}

/*
 * Lock the logs of up to NOVA_JOURNAL_MAX_WORDS inodes in inode number
 * order. @inodes is sorted in place; NULLs and duplicates are skipped.
 */
void nova_lock_logs(struct inode **inodes, int n)
{
	int i;

	sort(inodes, n, sizeof(*inodes), nova_cmp_ino, NULL);
	for (i = 0; i < n; i++) {
		if (!inodes[i] || (i && inodes[i] == inodes[i - 1]))
			continue;
		mutex_lock_nested(&NOVA_I(inodes[i])->log_lock, i);
	}
}

void nova_unlock_logs(struct inode **inodes, int n)
{
	int i;

	for (i = n - 1; i >= 0; i--) {
		if (!inodes[i] || (i && inodes[i] == inodes[i - 1]))
			continue;
		mutex_unlock(&NOVA_I(inodes[i])->log_lock);
	}
}

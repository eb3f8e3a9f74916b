// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: per-inode logs.
 *
 * A log is a chain of 4 KiB PMEM pages. Entries are appended past the
 * committed tail without being visible; nova_log_commit() publishes all of
 * them with one 8-byte store to the inode's i_log_tail. Operations on
 * several inodes publish their tails through the lite journal instead.
 * One writer lays entries out in the pages of every log: file and
 * directory logs (nova_log_append()), the snapshot log and thorough GC's
 * new logs (nova_log_begin(), nova_log_put(), nova_log_end(); nova.h).
 *
 * Format 1.4 (NOVA_FEATURE_LOG_REPLICA): every page has a mirror page
 * holding the same entries at the same offsets (uapi/nova_format.h,
 * docs/protection.md). Writers store each entry to both copies before the
 * commit (nova_log_store()); nova_log_walk() reads both as needed with
 * copy_mc_to_kernel(), uses whichever copy is good and rewrites the bad
 * one on a writable mount.
 *
 * Locking (nova.h): the caller holds nova_inode_info.log_lock of every
 * inode whose log it appends to (nova_lock_logs() takes several, in inode
 * number order); a writer of the snapshot log the snapshot table lock
 * (nova_log_begin() asserts the lock it is given).
 */
#include <linux/sort.h>

#include "csum.h"
#include "health.h"
#include "nova.h"
#include "pmem.h"
#include "scrub.h"
#include "xattr.h"

/*
 * Entries up to this size (every file write entry) are checksummed as one
 * copy on the stack with the excluded fields cleared: one crc call
 * instead of seven on every write and every log walk.
 */
#define NOVA_ENTRY_CRC_COPY	128

/*
 * nova_entry_crc() of an entry whose excluded fields may be set: on a
 * masked copy. Out of line: its buffer and stack canary are not paid on
 * every append.
 */
static noinline u32 nova_entry_crc_masked(const void *entry,
					  unsigned int size)
{
	u8 buf[NOVA_ENTRY_CRC_COPY] __aligned(8) __uninitialized;

	/*
	 * A file write entry, the one appended on every write, is copied
	 * with a constant size: inline moves, not a call to a rep movsb
	 * (which instruction counting charges per byte, docs/bench.md).
	 */
	if (size == sizeof(struct nova_file_write_entry)) {
		memcpy(buf, entry, sizeof(struct nova_file_write_entry));
		nova_entry_csum_mask(buf, size);
		return nova_crc32c_words(NOVA_CRC_SEED, buf,
					 sizeof(struct nova_file_write_entry));
	}
	memcpy(buf, entry, size);
	nova_entry_csum_mask(buf, size);
	return nova_crc32c(NOVA_CRC_SEED, buf, size);
}

/*
 * crc32c of an entry (8-byte aligned, as every entry is) as
 * nova_entry_csum() (uapi/nova_csum.h) defines it.
 */
static u32 nova_entry_crc(const void *entry, unsigned int size)
{
	const struct nova_log_entry_header *h = entry;

	if (size > NOVA_ENTRY_CRC_COPY)
		return nova_entry_csum(entry, size);
	/*
	 * The fields nova_entry_csum_mask() clears are clear already in an
	 * entry being sealed for its append (nova_entry_header(), and
	 * nova_file_write_entry_init() for fw_dead_pages): checksummed in
	 * place, the same bytes as the masked copy; a file write entry's
	 * constant size with the unrolled words.
	 */
	if (h->e_flags || h->e_csum)
		return nova_entry_crc_masked(entry, size);
	if (h->e_type != NOVA_LOG_FILE_WRITE ||
	    size < sizeof(struct nova_file_write_entry))
		return nova_crc32c(NOVA_CRC_SEED, entry, size);
	if (((const struct nova_file_write_entry *)entry)->fw_dead_pages)
		return nova_entry_crc_masked(entry, size);
	if (size == sizeof(struct nova_file_write_entry))
		return nova_crc32c_words(NOVA_CRC_SEED, entry,
					 sizeof(struct nova_file_write_entry));
	return nova_crc32c(NOVA_CRC_SEED, entry, size);
}

void nova_entry_seal(void *entry)
{
	struct nova_log_entry_header *h = entry;

	h->e_csum = cpu_to_le32(nova_entry_crc(entry, le16_to_cpu(h->e_size)));
}

/* ---- mirrors (1.4, NOVA_FEATURE_LOG_REPLICA) ---- */

/* Do the pages of @ino's log have mirrors? Not the allocator state's. */
bool nova_log_mirrored(struct nova_sb_info *sbi, u64 ino)
{
	return (sbi->prot & NOVA_FEATURE_LOG_REPLICA) && ino != NOVA_ALLOC_INO;
}

static bool nova_log_page_in_range(struct nova_sb_info *sbi, u64 page)
{
	return !(page & (NOVA_BLOCK_SIZE - 1)) &&
	       nova_block_ok(sbi, page >> NOVA_BLOCK_SHIFT, 1);
}

/*
 * nova_log_mirror() of a file system whose logs have mirrors: the page
 * @page's tail names, provided that page names @page back; 0 if there is
 * none (a damaged pair, which a walk reports and repairs). Writers hold
 * the log's lock; the tail they read was verified when the log was
 * loaded, or written by them.
 */
u64 nova_log_mirror_of(struct nova_sb_info *sbi, u64 page)
{
	u64 m;

	m = le64_to_cpu(READ_ONCE(nova_log_page_tail(sbi, page)->lt_replica));
	if (!m || m == page || !nova_log_page_in_range(sbi, m) ||
	    le64_to_cpu(READ_ONCE(nova_log_page_tail(sbi, m)->lt_replica)) != page)
		return 0;
	return m;
}

/*
 * Store @len bytes of @src at @off of a log page, then at the same offset
 * of its mirror. Durable after the next fence. No fence is needed between
 * the two: the bytes are past the committed tail (or in a page nothing
 * reaches yet), so neither copy is read before the commit that follows,
 * and that commit fences first (nova_pmem_commit64()).
 */
void nova_log_store(struct nova_sb_info *sbi, u64 off, const void *src,
		    unsigned int len)
{
	u64 page = nova_log_page_of(off), m = nova_log_mirror(sbi, page);

	/*
	 * A file write entry (one on every write) at a word offset: its
	 * constant size lets the word stores unroll, nine movnti and no
	 * loop counter; the same stores as the loop below.
	 */
	if (len == sizeof(struct nova_file_write_entry) &&
	    !((off | (unsigned long)src) & (sizeof(u64) - 1))) {
		nova_pmem_memcpy_words(nova_addr(sbi, off), src,
				       sizeof(struct nova_file_write_entry));
		if (m)
			nova_pmem_memcpy_words(nova_addr(sbi, m + (off - page)),
					       src,
					       sizeof(struct nova_file_write_entry));
		return;
	}
	/* Whole words at a word offset: inline stores. */
	if (!((off | len | (unsigned long)src) & (sizeof(u64) - 1))) {
		nova_pmem_memcpy_words(nova_addr(sbi, off), src, len);
		if (m)
			nova_pmem_memcpy_words(nova_addr(sbi, m + (off - page)),
					       src, len);
		return;
	}
	nova_pmem_memcpy(nova_addr(sbi, off), src, len);
	if (m)
		nova_pmem_memcpy(nova_addr(sbi, m + (off - page)), src, len);
}

/* A pad byte at @off of a log page and of its mirror, as nova_log_store(). */
void nova_log_pad(struct nova_sb_info *sbi, u64 off)
{
	static const u8 pad[1] = { NOVA_LOG_PAD };

	nova_log_store(sbi, off, pad, 1);
}

/*
 * Link @next after log page @page: @page's lt_next is the commit word
 * (fence: @next and its mirror are durable; store; persisted), then the
 * mirror's copy of it, durable at the next fence. A crash between the two
 * leaves the mirror's copy behind, which the walk then sets right.
 */
void nova_log_link(struct nova_sb_info *sbi, u64 page, u64 next)
{
	u64 m = nova_log_mirror(sbi, page);

	nova_pmem_commit64(&nova_log_page_tail(sbi, page)->lt_next, next);
	if (m)
		nova_pmem_store64(&nova_log_page_tail(sbi, m)->lt_next, next);
}

/* The tail of a fresh page: owner, magic, the other copy, checksum. */
static void nova_log_fresh_tail(struct nova_log_page_tail *t, u64 ino,
				u64 other)
{
	memset(t, 0, sizeof(*t));
	t->lt_ino = cpu_to_le64(ino);
	t->lt_magic = cpu_to_le32(NOVA_LOG_PAGE_MAGIC);
	t->lt_replica = cpu_to_le64(other);
	t->lt_csum = cpu_to_le32(nova_lt_csum(t));
}

/*
 * Allocate a mirror for log page @page of inode @ino (from the high end
 * of the device, far from the primaries) and return it in *@mirror; 0
 * for a log without mirrors. Nothing is written.
 */
int nova_log_alloc_mirror(struct super_block *sb, u64 ino, u64 *mirror)
{
	unsigned long blk;
	int err;

	*mirror = 0;
	if (!nova_log_mirrored(NOVA_SB(sb), ino))
		return 0;
	err = nova_alloc_blocks_high(sb, 1, NOVA_BLOCK_LOG, &blk);
	if (err)
		return err;
	*mirror = (u64)blk << NOVA_BLOCK_SHIFT;
	return 0;
}

/*
 * Make @page (and its mirror @mirror, 0: none) an empty log page of inode
 * @ino: a pad byte, then nothing; each tail names the other copy.
 * Durable after the next fence; the caller links the page after it.
 */
void nova_log_init_page(struct nova_sb_info *sbi, u64 ino, u64 page,
			u64 mirror)
{
	struct nova_log_page_tail t;

	nova_log_fresh_tail(&t, ino, mirror);
	nova_pmem_memset(nova_addr(sbi, page), NOVA_LOG_PAD, 8);
	nova_pmem_memcpy(nova_log_page_tail(sbi, page), &t, sizeof(t));
	if (!mirror)
		return;
	nova_log_fresh_tail(&t, ino, page);
	nova_pmem_memset(nova_addr(sbi, mirror), NOVA_LOG_PAD, 8);
	nova_pmem_memcpy(nova_log_page_tail(sbi, mirror), &t, sizeof(t));
}

/*
 * Allocate an empty log page for inode @ino, with its mirror if the log
 * has them, initialised (nova_log_init_page()) and durable on return.
 */
int nova_log_new_page(struct super_block *sb, u64 ino, u64 *page)
{
	unsigned long blk, got;
	u64 mirror;
	int err;

	err = nova_alloc_blocks(sb, 1, false, NOVA_BLOCK_LOG, &blk, &got);
	if (err)
		return err;
	err = nova_log_alloc_mirror(sb, ino, &mirror);
	if (err) {
		nova_free_blocks(sb, blk, 1, NOVA_BLOCK_LOG);
		return err;
	}
	*page = (u64)blk << NOVA_BLOCK_SHIFT;
	nova_log_init_page(NOVA_SB(sb), ino, *page, mirror);
	nova_pmem_fence();
	return 0;
}

/*
 * Free log page @page and its mirror. The caller has taken the page out
 * of every chain; its tail is still intact (it names the mirror).
 */
void nova_log_free_page(struct super_block *sb, u64 page)
{
	u64 m = nova_log_mirror(NOVA_SB(sb), page);

	if (m)
		nova_free_blocks(sb, m >> NOVA_BLOCK_SHIFT, 1, NOVA_BLOCK_LOG);
	nova_free_blocks(sb, page >> NOVA_BLOCK_SHIFT, 1, NOVA_BLOCK_LOG);
}

/* ---- reading a log ---- */

/* Entries up to this size are copied to the stack, larger ones to @big. */
#define NOVA_WALK_STACK	256

/* One walk of one log. */
struct nova_walk {
	struct super_block *sb;
	struct nova_sb_info *sbi;
	u64 ino;
	bool mirrored;			/* the log's pages have mirrors */
	bool repair;			/* rewrite a bad copy from the good one */
	bool both;			/* check the mirror's good copies too */
	bool peek;			/* the injector: no reports, no repairs */
	bool probe;			/* a broken log is no error (PROBE) */
	u8 *big;			/* NOVA_LOG_DATA_SIZE bytes, or NULL */
	u8 *mbig;			/* the same, for the second copy */
	u8 small[NOVA_WALK_STACK];
	u8 msmall[NOVA_WALK_STACK];
};

/*
 * A damaged copy of a log object was found: count it, tell the scrub
 * (when it is the one reading) and the listeners. Both copies damaged is
 * not reported here: the walk fails and its caller reports the inode.
 */
static void nova_walk_found(struct nova_walk *w, u32 kind, u64 off,
			    bool mirror, bool repaired)
{
	struct nova_scrub *s = nova_scrub_current(w->sb);

	if (w->peek)
		return;
	nova_warn(w->sb, "inode %llu: damaged %s%s at %llu, %s", w->ino,
		  mirror ? "mirror " : "",
		  kind == NOVA_CORRUPT_LOG_TAIL ? "log page tail" : "log entry",
		  off, !repaired ? "using the other copy" :
		  mirror ? "rewritten from the primary" :
		  "rewritten from its mirror");
	if (repaired)
		atomic64_inc(&w->sbi->prot_repaired);
	if (s)
		nova_scrub_count(s, 1, repaired, 0);
	nova_report_damage(w->sb, w->ino, kind, off, repaired);
}

/*
 * Read the tail of @page with copy_mc (poison is damage, not a machine
 * check). Good: the right owner and magic, a matching checksum and, in a
 * mirrored log, an lt_replica naming a page; for a mirror (@of set) the
 * primary @of.
 */
static bool nova_walk_read_tail(struct nova_walk *w, u64 page, u64 of,
				struct nova_log_page_tail *t)
{
	u64 r;

	if (nova_pmem_read(t, nova_log_page_tail(w->sbi, page), sizeof(*t)))
		return false;
	if (le32_to_cpu(t->lt_magic) != NOVA_LOG_PAGE_MAGIC ||
	    le64_to_cpu(t->lt_ino) != w->ino ||
	    le32_to_cpu(t->lt_csum) != nova_lt_csum(t))
		return false;
	r = le64_to_cpu(t->lt_replica);
	if (of)
		return r == of;
	if (!w->mirrored)
		return true;
	return r && r != page && nova_log_page_in_range(w->sbi, r);
}

/*
 * The tail of @page, from whichever copy is good, in *@t (as the
 * primary's should read); its mirror in *@mirror (0: none). A bad copy
 * next to a good one is reported and, with w->repair, rewritten: the
 * checksummed part of the primary's tail, or the mirror's tail whole. A
 * mirror whose lt_next lags the primary's (a crash between the two
 * stores of nova_log_link()) is set right without a report.
 */
static int nova_walk_tail(struct nova_walk *w, u64 page,
			  struct nova_log_page_tail *t, u64 *mirror)
{
	struct nova_sb_info *sbi = w->sbi;
	struct nova_log_page_tail mt, fix;
	bool pok, mok;
	__le64 r;
	u64 m;

	*mirror = 0;
	if (!nova_log_page_in_range(sbi, page))
		return -EFSCORRUPTED;
	pok = nova_walk_read_tail(w, page, 0, t);
	if (!w->mirrored)
		return pok ? 0 : -EFSCORRUPTED;
	/* A damaged primary tail: its lt_replica is still our only lead. */
	if (pok)
		m = le64_to_cpu(t->lt_replica);
	else if (!nova_pmem_read(&r, &nova_log_page_tail(sbi, page)->lt_replica,
				 sizeof(r)))
		m = le64_to_cpu(r);
	else
		m = 0;
	mok = m && m != page && nova_log_page_in_range(sbi, m) &&
	      nova_walk_read_tail(w, m, page, &mt);
	if (!pok && !mok)
		return -EFSCORRUPTED;
	*mirror = m;
	if (pok && mok) {
		if (w->repair && mt.lt_next != t->lt_next)
			nova_pmem_store64(&nova_log_page_tail(sbi, m)->lt_next,
					  le64_to_cpu(t->lt_next));
		return 0;
	}
	if (pok) {
		/* The mirror's tail: the primary's, naming the primary. */
		if (w->repair) {
			fix = *t;
			fix.lt_valid = 0;
			fix.lt_entries = 0;
			fix.lt_replica = cpu_to_le64(page);
			fix.lt_csum = cpu_to_le32(nova_lt_csum(&fix));
			nova_pmem_memcpy(nova_log_page_tail(sbi, m), &fix,
					 sizeof(fix));
			nova_pmem_fence();
		}
		nova_walk_found(w, NOVA_CORRUPT_LOG_TAIL, m + NOVA_LOG_DATA_SIZE,
				true, w->repair);
		return 0;
	}
	/*
	 * The primary's tail from the mirror's: the checksummed fields and,
	 * if the primary's lt_next is unusable, the mirror's copy of it. The
	 * hints stay as they are.
	 */
	if (nova_pmem_read(&fix, nova_log_page_tail(sbi, page), sizeof(fix)))
		fix = mt;
	fix.lt_ino = mt.lt_ino;
	fix.lt_magic = mt.lt_magic;
	fix.lt_replica = cpu_to_le64(m);
	memset(fix.lt_reserved, 0, sizeof(fix.lt_reserved));
	if (fix.lt_next != mt.lt_next &&
	    (le64_to_cpu(fix.lt_next) & (NOVA_BLOCK_SIZE - 1) ||
	     (fix.lt_next && !nova_log_page_in_range(sbi, le64_to_cpu(fix.lt_next)))))
		fix.lt_next = mt.lt_next;
	fix.lt_csum = 0;
	fix.lt_csum = cpu_to_le32(nova_lt_csum(&fix));
	if (w->repair) {
		/* Everything after lt_next (not a commit word): one copy. */
		nova_pmem_memcpy(&nova_log_page_tail(sbi, page)->lt_valid,
				 &fix.lt_valid, sizeof(fix) - sizeof(fix.lt_next));
		nova_pmem_fence();
		if (fix.lt_next != nova_log_page_tail(sbi, page)->lt_next)
			nova_pmem_commit64(&nova_log_page_tail(sbi, page)->lt_next,
					   le64_to_cpu(fix.lt_next));
	}
	*t = fix;
	nova_walk_found(w, NOVA_CORRUPT_LOG_TAIL, page + NOVA_LOG_DATA_SIZE,
			false, w->repair);
	return 0;
}

/* Buffer for an entry of @size bytes (NULL: out of memory). */
static u8 *nova_walk_buf(struct nova_walk *w, unsigned int size)
{
	if (size <= NOVA_WALK_STACK)
		return w->small;
	if (!w->big)
		w->big = kmalloc(NOVA_LOG_DATA_SIZE, GFP_NOFS);
	return w->big;
}

/*
 * Read the entry at @off (in a page whose data ends at @end) into a
 * buffer with copy_mc and check it. Returns 1 and the copy in *@buf if it
 * is good, 0 for a pad (the page has no more entries), -EFSCORRUPTED if
 * it is damaged, -ENOMEM.
 */
static int nova_walk_read_entry(struct nova_walk *w, u64 off, u64 end,
				u8 **buf)
{
	struct nova_log_entry_header h;
	unsigned int size;

	if (nova_pmem_read(&h, nova_addr(w->sbi, off), sizeof(h)))
		return -EFSCORRUPTED;
	if (h.e_type == NOVA_LOG_PAD)
		return 0;
	size = le16_to_cpu(h.e_size);
	if (size < sizeof(h) || size % 8 || size > end - off)
		return -EFSCORRUPTED;
	*buf = nova_walk_buf(w, size);
	if (!*buf)
		return -ENOMEM;
	if (nova_pmem_read(*buf, nova_addr(w->sbi, off), size) ||
	    le32_to_cpu(((struct nova_log_entry_header *)*buf)->e_csum) !=
	    nova_entry_crc(*buf, size))
		return -EFSCORRUPTED;
	return 1;
}

/*
 * The entry at @pos of @page (mirror @mirror, 0: none), or the pad that
 * ends the page. Returns 1 with the good copy in *@buf and the offset the
 * caller should name it by in *@at (the primary's, or the mirror's on a
 * mount that cannot rewrite the primary, so that later readers of the
 * offset read good bytes), 0 for a pad, -EFSCORRUPTED when no copy is
 * good, -ENOMEM.
 */
static int nova_walk_entry(struct nova_walk *w, u64 page, u64 mirror,
			   u64 pos, u8 **buf, u64 *at)
{
	u64 end = page + NOVA_LOG_DATA_SIZE, mpos = mirror + (pos - page);
	struct nova_log_entry_header *h;
	u8 *mbuf;
	int p, m;

	*at = pos;
	p = nova_walk_read_entry(w, pos, end, buf);
	if (p == -ENOMEM || !mirror)
		return p;
	if (p == 1 && !w->both)
		return 1;
	/*
	 * The scrub compares the mirror's copy of a good entry (its own
	 * buffers: the primary's copy is in use). A pad is checked against
	 * the mirror too (whose entries up to the committed tail are the
	 * primary's): damage that zeroed a type byte must not end the page
	 * early.
	 */
	if (p == 1) {
		h = (void *)*buf;
		mbuf = w->msmall;
		if (le16_to_cpu(h->e_size) > NOVA_WALK_STACK) {
			if (!w->mbig)
				w->mbig = kmalloc(NOVA_LOG_DATA_SIZE, GFP_NOFS);
			mbuf = w->mbig;
			if (!mbuf)
				return -ENOMEM;
		}
		if (nova_pmem_read(mbuf, nova_addr(w->sbi, mpos),
				   le16_to_cpu(h->e_size)) ||
		    ((struct nova_log_entry_header *)mbuf)->e_size != h->e_size ||
		    ((struct nova_log_entry_header *)mbuf)->e_csum != h->e_csum ||
		    nova_entry_crc(mbuf, le16_to_cpu(h->e_size)) !=
		    le32_to_cpu(h->e_csum)) {
			if (w->repair) {
				nova_pmem_memcpy(nova_addr(w->sbi, mpos), *buf,
						 le16_to_cpu(h->e_size));
				nova_pmem_fence();
			}
			nova_walk_found(w, NOVA_CORRUPT_LOG_ENTRY, mpos, true,
					w->repair);
		}
		return 1;
	}
	m = nova_walk_read_entry(w, mpos, mirror + NOVA_LOG_DATA_SIZE, &mbuf);
	if (m == -ENOMEM)
		return m;
	if (p == 0 && m <= 0)
		return 0;		/* a pad in both, or only in the primary */
	if (m != 1)
		return -EFSCORRUPTED;
	h = (void *)mbuf;
	if (w->repair) {
		nova_pmem_memcpy(nova_addr(w->sbi, pos), mbuf,
				 le16_to_cpu(h->e_size));
		nova_pmem_fence();
	} else if (!w->peek) {
		*at = mpos;
	}
	*buf = mbuf;
	nova_walk_found(w, NOVA_CORRUPT_LOG_ENTRY, pos, false, w->repair);
	return 1;
}

/*
 * Walk a log: call @efn for every committed entry (up to @tail) and @pfn
 * for every page in the chain, including pages linked past the tail page
 * (left by an operation that extended the log and then failed). Entries
 * and tails are read with copy_mc_to_kernel(); @efn gets a copy of the
 * entry (valid during the call) and the offset to name it by. In a log
 * with mirrors (1.4) a bad copy is replaced by the good one: reported,
 * counted in prot_repaired and, on a writable mount, rewritten; with
 * NOVA_WALK_BOTH (the scrub) the mirror's copy of every good entry is
 * checked too. Returns the first error of a callback, -ENOMEM, or
 * -EFSCORRUPTED for a broken chain, an object with no good copy or a tail
 * that is not in the chain (logged and counted as unrecoverable, except
 * with NOVA_WALK_PROBE).
 */
int nova_log_walk(struct super_block *sb, u64 ino, u64 head, u64 tail,
		  nova_entry_fn efn, nova_page_fn pfn, void *arg,
		  unsigned int flags)
{
	struct nova_walk *w = nova_walker_new();
	int err;

	if (!w)
		return -ENOMEM;
	err = nova_log_walk_with(w, sb, ino, head, tail, efn, pfn, arg, flags);
	nova_walker_free(w);
	return err;
}

/*
 * A walker for many walks in a row (recovery: one per scan thread), so
 * that each walk does not allocate, and zero (init_on_alloc), its
 * buffers anew.
 */
struct nova_walk *nova_walker_new(void)
{
	struct nova_walk *w = kmalloc(sizeof(*w), GFP_NOFS);

	if (w) {
		w->big = NULL;
		w->mbig = NULL;
	}
	return w;
}

void nova_walker_free(struct nova_walk *w)
{
	if (!w)
		return;
	kfree(w->big);
	kfree(w->mbig);
	kfree(w);
}

/* nova_log_walk() with the buffers of walker @w (nova_walker_new()). */
int nova_log_walk_with(struct nova_walk *w, struct super_block *sb, u64 ino,
		       u64 head, u64 tail, nova_entry_fn efn, nova_page_fn pfn,
		       void *arg, unsigned int flags)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long pages = 0;
	bool done = !tail;
	u64 page = head;
	int err = 0;

	w->sb = sb;
	w->sbi = sbi;
	w->ino = ino;
	w->mirrored = nova_log_mirrored(sbi, ino);
	w->peek = flags & NOVA_WALK_PEEK;
	w->probe = (flags & NOVA_WALK_PROBE) == NOVA_WALK_PROBE;
	w->repair = !sb_rdonly(sb) && !w->peek;
	w->both = flags & NOVA_WALK_BOTH;
	while (page) {
		u64 pos = page, mirror;
		struct nova_log_page_tail lt;

		if (++pages > sbi->nblocks ||
		    nova_walk_tail(w, page, &lt, &mirror)) {
			if (!w->probe) {
				nova_err(sb, "inode %llu: bad log page at %llu",
					 ino, page);
				atomic64_inc(&sbi->prot_unrecoverable);
			}
			err = -EFSCORRUPTED;
			break;
		}
		if (pfn) {
			err = pfn(sb, page, arg);
			if (err)
				break;
		}
		while (!done) {
			u64 at;
			u8 *buf;

			if (pos == tail) {
				done = true;
				break;
			}
			if (page + NOVA_LOG_DATA_SIZE - pos <
			    sizeof(struct nova_log_entry_header))
				break;
			err = nova_walk_entry(w, page, mirror, pos, &buf, &at);
			if (!err)
				break;		/* a pad: the page ends */
			if (err < 0) {
				if (err == -EFSCORRUPTED && !w->probe) {
					nova_err(sb, "inode %llu: bad log entry at %llu",
						 ino, pos);
					atomic64_inc(&sbi->prot_unrecoverable);
				}
				goto out;
			}
			err = 0;
			if (efn) {
				err = efn(sb, at, buf, arg);
				if (err)
					goto out;
			}
			pos += le16_to_cpu(((struct nova_log_entry_header *)buf)->e_size);
		}
		if (done && !pfn)
			break;
		page = le64_to_cpu(lt.lt_next);
	}
	if (!err && !done) {
		if (!w->probe)
			nova_err(sb, "inode %llu: log tail %llu is not in its log",
				 ino, tail);
		err = -EFSCORRUPTED;
	}
out:
	return err;
}

int nova_log_walk_raw(struct super_block *sb, u64 ino, u64 head, u64 tail,
		      nova_entry_fn efn, nova_page_fn pfn, void *arg)
{
	return nova_log_walk(sb, ino, head, tail, efn, pfn, arg, 0);
}

/* ---- writing a log ---- */

/*
 * The default way a log grows: an empty page (and mirror), durable, then
 * the 8-byte store that reaches it: the head slot for the log's first
 * page (0 -> page, once), else @page's lt_next (nova_log_link()).
 */
int nova_log_grow_page(struct nova_log_writer *lw, u64 page, u64 *next)
{
	int err = nova_log_new_page(lw->sbi->sb, lw->ino, next);

	if (err)
		return err;
	if (page)
		nova_log_link(lw->sbi, page, *next);
	else
		nova_pi_commit64(lw->sbi, lw->head, *next);
	return 0;
}

/*
 * The writer has no page yet, or the next entry does not fit in the rest
 * of the current one: move to the next page, padding the rest
 * of this one, and growing the log if nothing follows it. Out of line:
 * once per page, the only place the policy is called (indirectly).
 */
static noinline int nova_log_cross(struct nova_log_writer *lw)
{
	struct nova_sb_info *sbi = lw->sbi;
	u64 pos = lw->pos, page = nova_log_page_of(pos), next;
	int err;

	if (pos) {
		/*
		 * Mark the rest of this page unused before leaving it, in
		 * both copies: durable with the entry, before the commit.
		 */
		if (pos < page + NOVA_LOG_DATA_SIZE)
			nova_log_pad(sbi, pos);
		/* A page already linked (left by a failed operation). */
		next = le64_to_cpu(nova_log_page_tail(sbi, page)->lt_next);
		if (next)
			goto out;
	}
	err = lw->extend ? lw->extend(lw, page, &next) :
			   nova_log_grow_page(lw, page, &next);
	if (err)
		return err;
out:
	lw->pos = next;
	return 0;
}

/*
 * Put @entry (header filled by nova_entry_header(); sealed here if @seal)
 * at the writer's position, moving to the next page first if it does not
 * fit; @valid is its lt_valid hint. Inline in the callers in this file:
 * nova_log_append() is on every write's path, and the common case (no
 * page crossing) is a seal, two stores and two hint increments.
 */
static __always_inline int __nova_log_put(struct nova_log_writer *lw,
					  void *entry, bool seal, bool valid)
{
	struct nova_log_entry_header *h = entry;
	unsigned int size = le16_to_cpu(h->e_size);
	struct nova_log_page_tail *lt;
	u64 pos = lw->pos;
	int err;

	if (unlikely(!pos || !nova_log_fits(pos, size))) {
		err = nova_log_cross(lw);
		if (err)
			return err;
		pos = lw->pos;
	}
	if (seal)
		nova_entry_seal(entry);
	/*
	 * The entry in the page and in its mirror; both durable at the fence
	 * of the commit that publishes it, not before: nothing reads past
	 * the committed tail.
	 */
	nova_log_store(lw->sbi, pos, entry, size);
	/*
	 * Garbage-collection hints, in the primary only, plain stores that
	 * are never flushed (see nova_log_invalidate()).
	 */
	lt = nova_log_page_tail(lw->sbi, nova_log_page_of(pos));
	le32_add_cpu(&lt->lt_entries, 1);
	if (valid)
		le32_add_cpu(&lt->lt_valid, 1);
	lw->last = pos;
	lw->pos = pos + size;
	return 0;
}

/* Seal @entry and put it (a new entry: valid). */
int nova_log_put(struct nova_log_writer *lw, void *entry)
{
	return __nova_log_put(lw, entry, true, true);
}

/*
 * Put a copy of @entry as it is (sealed already: an entry moved by
 * thorough GC, its hints included); @valid is its lt_valid hint.
 */
int nova_log_put_sealed(struct nova_log_writer *lw, const void *entry,
			bool valid)
{
	return __nova_log_put(lw, (void *)entry, false, valid);
}

/*
 * The file and directory logs' growth policy: the first page is attached
 * to the inode's i_log_head, later ones come from nova_gc_extend_log()
 * (fast GC, then a new chain linked after @page). ni->log_head and
 * ni->log_pages follow.
 */
static int nova_inode_log_extend(struct nova_log_writer *lw, u64 page,
				 u64 *next)
{
	struct inode *inode = lw->arg;
	struct nova_inode_info *ni = NOVA_I(inode);
	int err;

	if (page)
		return nova_gc_extend_log(inode, page, next);
	/* The page is durable; attach it (0 -> page, once). */
	lw->head = &nova_pi(inode)->i_log_head;
	err = nova_log_grow_page(lw, 0, next);
	if (err)
		return err;
	ni->log_pages++;
	ni->log_head = *next;
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
	/* Filled in by nova_log_begin(): no zeroing on every write. */
	struct nova_log_writer lw __uninitialized;
	int err;

	/* Every change of a file, directory or attribute appends first. */
	if (nova_is_shutdown(inode->i_sb))
		return -EIO;
	/* The head slot is found only if the log needs its first page. */
	nova_log_begin(&lw, NOVA_SB(inode->i_sb), inode->i_ino, &ni->log_lock,
		       NULL, *tail ?: ni->log_tail ?: ni->log_head);
	lw.extend = nova_inode_log_extend;
	lw.arg = inode;
	err = __nova_log_put(&lw, entry, true, true);
	if (err)
		return err;
	ni->last_append = lw.last;
	*tail = nova_log_end(&lw);
	return 0;
}

/*
 * Publish everything appended up to @tail: one 8-byte store in the slot
 * and one in its replica, in one persistence round (two fences).
 */
void nova_log_commit(struct inode *inode, u64 tail)
{
	struct nova_inode_info *ni = NOVA_I(inode);

	lockdep_assert_held(&ni->log_lock);
	nova_pi_commit_tail(NOVA_SB(inode->i_sb), nova_pi(inode), tail);
	ni->log_tail = tail;
}

/*
 * Mark a superseded entry invalid (a hint for garbage collection).
 *
 * Hints (e_flags, fw_dead_pages, lt_valid, lt_entries) are plain stores,
 * not written back: they reach the media whenever their cache line does,
 * or never before a crash. Nothing depends on them being durable. The
 * flag is set only after the superseding entry's commit is durable (the
 * commit's second fence comes first in program order), so a flag that
 * does reach the media is true; one lost to a crash only keeps a page
 * from fast GC. lt_valid is a filter in front of the flags
 * (nova_gc_page_dead()), and thorough GC decides from the DRAM indexes.
 * A clean unmount does not write them back either: a stale count only
 * makes the next mount's GC estimate coarser.
 */
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
	lt = nova_log_page_tail(sbi, entry_off & ~((u64)NOVA_BLOCK_SIZE - 1));
	if (le32_to_cpu(lt->lt_valid))
		le32_add_cpu(&lt->lt_valid, -1);
}

/*
 * Apply the entries between two tails just committed (@from is the tail
 * before, 0 for an empty log) to the DRAM inode, passing @arg to
 * nova_apply_entry(). Log lock held.
 */
void nova_log_apply_range_arg(struct inode *inode, u64 from, u64 to,
			      void *arg)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	u64 pos = from ? from : NOVA_I(inode)->log_head;

	lockdep_assert_held(&NOVA_I(inode)->log_lock);
	while (pos != to) {
		u64 page = pos & ~((u64)NOVA_BLOCK_SIZE - 1);
		struct nova_log_entry_header *h = nova_addr(sbi, pos);

		if (page + NOVA_LOG_DATA_SIZE - pos < sizeof(*h) ||
		    h->e_type == NOVA_LOG_PAD) {
			pos = le64_to_cpu(nova_log_page_tail(sbi, page)->lt_next);
			if (WARN_ON_ONCE(!pos))
				return;
			continue;
		}
		nova_apply_entry(inode, pos, h, arg);
		pos += le16_to_cpu(h->e_size);
	}
}

void nova_log_apply_range(struct inode *inode, u64 from, u64 to)
{
	nova_log_apply_range_arg(inode, from, to, NULL);
}

static int nova_free_page_cb(struct super_block *sb, u64 page, void *arg)
{
	u64 *prev = arg;

	/* Free the previous page: this one's link was read from it. */
	if (*prev)
		nova_log_free_page(sb, *prev);
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

/*
 * The rule of what a log may hold, for the two readers of whole logs: the
 * inode load (nova_iget() replays the log) and crash recovery (which
 * rebuilds the allocator from the logs). NULL if committed entry @entry
 * may be in the log of inode @ino of file type @type: a kind that inode
 * may have, the size of that kind, fields in range (no page mapped to a
 * block outside the device). Else what is wrong with it, for the message.
 * Entries that refer to each other (xattr pieces) are checked when they
 * are applied.
 */
const char *nova_entry_invalid(struct nova_sb_info *sbi, u64 ino, umode_t type,
			       const void *entry)
{
	const struct nova_log_entry_header *h = entry;
	unsigned int size = le16_to_cpu(h->e_size);

	switch (h->e_type) {
	case NOVA_LOG_FILE_WRITE: {
		const struct nova_file_write_entry *fw = entry;
		u64 n = le32_to_cpu(fw->fw_num_pages);

		if (type != S_IFREG || size != sizeof(*fw) || !n ||
		    !nova_block_ok(sbi, le64_to_cpu(fw->fw_block), n) ||
		    !nova_pages_in_file(le64_to_cpu(fw->fw_pgoff), n))
			return "bad write entry";
		return NULL;
	}
	case NOVA_LOG_DENTRY: {
		const struct nova_dentry_entry *de = entry;

		/* Exactly the size nova_dir_entry() writes, as fsck.NOVA wants. */
		if (type != S_IFDIR || size < sizeof(*de) || !de->de_name_len ||
		    size != ALIGN(sizeof(*de) + de->de_name_len, 8))
			return "bad directory entry";
		return NULL;
	}
	case NOVA_LOG_SETATTR: {
		const struct nova_setattr_entry *sa = entry;
		u16 fl = le16_to_cpu(sa->sa_flags);

		u32 mask = le32_to_cpu(sa->sa_mask);
		u16 known = sbi->prot & NOVA_FEATURE_PROJID ? NOVA_FL_ALL_1_8 :
							     NOVA_FL_ALL;

		if (size != sizeof(*sa))
			return "bad setattr entry";
		/* File attribute flags: 1.6, known bits only, else zero. */
		if (mask & NOVA_ATTR_FLAGS ?
		    !(sbi->prot & NOVA_FEATURE_FILEATTR) || (fl & ~known) :
		    fl)
			return "bad file attribute flags";
		/* Project id: 1.8, else the word is zero. */
		if (mask & NOVA_ATTR_PROJID ? !(sbi->prot & NOVA_FEATURE_PROJID) :
		    !!NOVA_SA_PROJID(sa))
			return "bad project id";
		return NULL;
	}
	case NOVA_LOG_RANGE: {
		const struct nova_range_entry *rg = entry;
		u64 from, to;

		if (type != S_IFREG || size != sizeof(*rg) || rg->rg_pad ||
		    !nova_range_entry_drop(rg, &from, &to))
			return "bad range entry";
		return NULL;
	}
	case NOVA_LOG_LINK_CHANGE:
		if (size != sizeof(struct nova_link_change_entry))
			return "bad link count entry";
		return NULL;
	case NOVA_LOG_XATTR:
		if (!(sbi->prot & NOVA_FEATURE_XATTR) ||
		    (ino < NOVA_FIRST_INO && ino != NOVA_ROOT_INO) ||
		    !nova_xattr_entry_ok(entry))
			return "bad extended attribute entry";
		return NULL;
	case NOVA_LOG_SNAPSHOT:
	case NOVA_LOG_SNAPSHOT_DEL:
	case NOVA_LOG_SNAPSHOT_KEEP:
	case NOVA_LOG_SNAPSHOT_INODE:
		/* Checked in full by nova_snapshot_load(). */
		if (ino != NOVA_SNAPSHOT_INO)
			return "snapshot entry outside the snapshot log";
		return NULL;
	}
	return "unexpected log entry type";
}

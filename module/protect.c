// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: data protection. Every data block is 8 strips of 512 bytes; each
 * strip has a crc32c in two checksum areas (primary low on the device,
 * replica high) and the block has one parity strip, the XOR of its 8
 * strips (uapi/nova_format.h, docs/protection.md).
 *
 * Writing: file data is copy-on-write, so the new blocks are private
 * until the write entry's log tail is committed. write(2) checksums each
 * block it fills while copying it from the user (csum.c, one pass: copy,
 * 8 crc32c chains and parity; nova_copy_from_iter_protected()); other
 * writers, and blocks that path cannot take, compute checksums and parity
 * from what is on PMEM (nova_protect_blocks(), nova_protect_strips()).
 * Either way they are written with the data, before the caller's commit:
 *
 *	data, checksums (both copies), parity -> [caller] fence -> tail
 *
 * A crash before the tail store leaves the old blocks, the old checksums
 * (the slots written belong to blocks nothing references yet) and the old
 * parity; after it, all of the new ones. In-place updates (the bytes past
 * the end of file, nova_zero_eof_tail(), nova_protect_strips()) fence
 * between the two checksum copies: a torn update leaves one copy that
 * matches the data, and a strip matching either copy is good.
 *
 * Reading (nova_read_iter_verified()): a whole strip read into a plain
 * user buffer is copied from PMEM to the user and checksummed in one loop
 * (nova_csum_copy_mc_strip_to_user(): machine-check-safe loads, so
 * poisoned media becomes a bad strip rather than a machine check); any
 * other strip a read touches is copied out of PMEM with
 * copy_mc_to_kernel() into a strip buffer, checked there and copied on to
 * the user. Parity is not read. On any mismatch the page goes through
 * nova_read_verified(), which compares every strip with both checksum
 * copies, and the user gets the repaired bytes in place of the bad ones.
 * One bad strip is rebuilt from parity and the other seven, checked
 * against the checksums and written back; a checksum copy that disagrees
 * with good data is rewritten from the data. Two or more bad strips (or a
 * bad strip whose rebuild does not match) fail the read with -EIO and are
 * reported once per page, rate-limited; wrong data is never returned. A
 * parity strip that disagrees with eight good strips is rewritten (found
 * by the scrub, nova_block_intact(), or a read that needed the full check).
 *
 * Writable shared mappings store to the blocks behind our back, so a file
 * mapped writable is unprotected: reads do not verify it, and from its
 * first write fault until the last such mapping goes away its inode number
 * is in the unprotected-inode list on media. Then (or when recovery finds
 * it listed after a crash) all its checksums and parity are recomputed
 * before the entry is removed; a last unmap during a freeze leaves that to
 * a work item after the thaw.
 *
 * Locking (nova.h): log_lock, then nova_sb_info.mmap_mutex. Repairs from readers
 * (i_rwsem shared) may race with each other or with the scrub; they write
 * the same bytes. In-place changes of a block's contents (writers) hold
 * i_rwsem exclusively and log_lock.
 */
#include <linux/nova_genl.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/xarray.h>

#include "csum.h"
#include "health.h"
#include "nova.h"
#include "pmem.h"
#include "protect.h"

static __le32 *nova_csum_slot(struct nova_sb_info *sbi, unsigned long blk,
			      unsigned int copy)
{
	u64 area = copy ? sbi->layout.csum_replica : sbi->layout.csum;

	return nova_block(sbi, area) + (u64)blk * NOVA_CSUM_SLOT;
}

static void *nova_parity_slot(struct nova_sb_info *sbi, unsigned long blk)
{
	return nova_block(sbi, sbi->layout.parity) + (u64)blk * NOVA_STRIP_SIZE;
}

bool nova_prot_csum(struct super_block *sb)
{
	return NOVA_SB(sb)->prot & NOVA_FEATURE_DATA_CSUM;
}

static bool nova_prot_parity(struct nova_sb_info *sbi)
{
	return sbi->prot & NOVA_FEATURE_DATA_PARITY;
}

static u32 nova_strip_crc(const void *strip)
{
	return nova_crc(strip, NOVA_STRIP_SIZE);
}

/*
 * XOR of the NOVA_STRIPS strips of @block into @out: one pass, each word
 * of @out stored once (the parity write is on every data write's path).
 */
static void nova_xor_strips(u64 *out, const void *block)
{
	const u64 *s = block;
	unsigned int w, words = NOVA_STRIP_SIZE / sizeof(u64);

	BUILD_BUG_ON(NOVA_STRIPS != 8);
	for (w = 0; w < words; w++)
		out[w] = s[w] ^ s[words + w] ^ s[2 * words + w] ^
			 s[3 * words + w] ^ s[4 * words + w] ^
			 s[5 * words + w] ^ s[6 * words + w] ^
			 s[7 * words + w];
}

static void nova_write_parity(struct nova_sb_info *sbi, unsigned long blk)
{
	u64 p[NOVA_STRIP_SIZE / sizeof(u64)];

	nova_xor_strips(p, nova_block(sbi, blk));
	nova_pmem_memcpy(nova_parity_slot(sbi, blk), p, sizeof(p));
}

/*
 * Both checksum copies of new block @blk (no fence between them). The
 * 32-byte slots go out in 16-byte pieces: nova_pmem_memcpy() of a
 * constant 16 bytes is two inline non-temporal stores on x86, where 32
 * bytes would be a call into the general copy (its alignment checks and
 * loops cost more than the stores, once per block written).
 */
static void nova_write_csums(struct nova_sb_info *sbi, unsigned long blk,
			     const u32 *crc)
{
	__le32 c[NOVA_STRIPS] __aligned(8);
	__le32 *s0 = nova_csum_slot(sbi, blk, 0);
	__le32 *s1 = nova_csum_slot(sbi, blk, 1);
	unsigned int i;

	BUILD_BUG_ON(NOVA_CSUM_SLOT != 2 * 16 || sizeof(c) != 2 * 16);
	for (i = 0; i < NOVA_STRIPS; i++)
		c[i] = cpu_to_le32(crc[i]);
	nova_pmem_memcpy(s0, c, 16);
	nova_pmem_memcpy(s0 + 4, c + 4, 16);
	nova_pmem_memcpy(s1, c, 16);
	nova_pmem_memcpy(s1 + 4, c + 4, 16);
}

/*
 * Recompute the checksums of strips [@from, @to) and the parity of block
 * @blk from its contents on PMEM. Durable after the caller's next fence.
 */
void nova_protect_strips(struct super_block *sb, unsigned long blk,
			 unsigned int from, unsigned int to)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	const u8 *data = nova_block(sbi, blk);
	__le32 c[NOVA_STRIPS];
	unsigned int i;

	if (!nova_prot_csum(sb) || from >= to)
		return;
	for (i = from; i < to; i++)
		c[i] = cpu_to_le32(nova_strip_crc(data + i * NOVA_STRIP_SIZE));
	nova_pmem_memcpy(nova_csum_slot(sbi, blk, 0) + from, c + from,
			 (to - from) * sizeof(c[0]));
	/* One copy complete before the other changes (in-place updates). */
	nova_pmem_fence();
	nova_pmem_memcpy(nova_csum_slot(sbi, blk, 1) + from, c + from,
			 (to - from) * sizeof(c[0]));
	if (nova_prot_parity(sbi))
		nova_write_parity(sbi, blk);
}

void nova_protect_block(struct super_block *sb, unsigned long blk)
{
	nova_protect_strips(sb, blk, 0, NOVA_STRIPS);
}

/*
 * Protect @n new blocks from @blk (not yet reachable from any log): both
 * copies and the parity of every block, with one fence between the copies.
 * Durable after the caller's next fence, which precedes its tail commit.
 */
void nova_protect_blocks(struct super_block *sb, unsigned long blk,
			 unsigned long n)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u32 c[NOVA_STRIPS];
	unsigned long b;

	if (!nova_prot_csum(sb))
		return;
	for (b = blk; b < blk + n; b++) {
		nova_csum_strips(nova_block(sbi, b), c);
		nova_write_csums(sbi, b, c);
		if (nova_prot_parity(sbi))
			nova_write_parity(sbi, b);
	}
}

/*
 * One whole new block @blk from a user buffer in one pass: copy, strip
 * checksums and parity together (csum.c). False if that cannot be done
 * here (no crc32q, a kernel or page-vector source, a block that spans two
 * user segments, a fault): the caller copies the block the ordinary way.
 */
static bool nova_copy_block_protected(struct nova_sb_info *sbi,
				      unsigned long blk, struct iov_iter *from)
{
	const void __user *src;
	u32 c[NOVA_STRIPS];
	u64 *parity;

	if (!nova_csum_fast() || iov_iter_count(from) < NOVA_BLOCK_SIZE)
		return false;
	if (iter_is_ubuf(from))
		src = from->ubuf + from->iov_offset;
	else if (iter_is_iovec(from) &&
		 nova_iter_iov(from)->iov_len - from->iov_offset >= NOVA_BLOCK_SIZE)
		src = nova_iter_iov(from)->iov_base + from->iov_offset;
	else
		return false;
	parity = nova_prot_parity(sbi) ? nova_parity_slot(sbi, blk) : NULL;
	if (nova_csum_copy_user_block(nova_block(sbi, blk), src, c, parity))
		return false;
	/* csum.c streamed the block and its parity: the persistence trace */
	nova_pmtrace_flush(nova_block(sbi, blk), NOVA_BLOCK_SIZE);
	if (parity)
		nova_pmtrace_flush(parity, NOVA_STRIP_SIZE);
	iov_iter_advance(from, NOVA_BLOCK_SIZE);
	nova_write_csums(sbi, blk, c);
	return true;
}

/* nova_copy_from_iter_protected() with data protection: the loop. */
static noinline size_t nova_copy_from_iter_csum(struct super_block *sb,
						unsigned long blk,
						unsigned int off, size_t bytes,
						struct iov_iter *from)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u8 *dst = nova_block(sbi, blk);
	size_t done = 0, n, got;

	while (done < bytes) {
		size_t at = off + done;
		unsigned long b = blk + (at >> PAGE_SHIFT);
		bool whole = !(at & (PAGE_SIZE - 1)) &&
			     bytes - done >= PAGE_SIZE;

		if (whole && nova_copy_block_protected(sbi, b, from)) {
			done += PAGE_SIZE;
			continue;
		}
		n = min_t(size_t, bytes - done, PAGE_SIZE - (at & ~PAGE_MASK));
		got = _copy_from_iter_flushcache(dst + at, n, from);
		nova_pmtrace_flush(dst + at, got);
		done += got;
		if (got < n)
			break;
		if (whole)
			nova_protect_blocks(sb, b, 1);
	}
	return done;
}

/*
 * The write path's copy: @bytes from @from into the new (private) blocks
 * from @blk, starting @off bytes into the first. With data protection,
 * every block the copy fills completely is protected on the way, in one
 * pass where nova_copy_block_protected() can, else copied and then
 * protected from PMEM; a block filled only in part (the head and tail of
 * an unaligned write, or where the copy faulted) is protected by the
 * caller once it has filled the rest (nova_protect_blocks()). Durable
 * after the caller's next fence. Returns the bytes copied, short only on
 * a fault, exactly as _copy_from_iter_flushcache().
 */
size_t nova_copy_from_iter_protected(struct super_block *sb,
				     unsigned long blk, unsigned int off,
				     size_t bytes, struct iov_iter *from)
{
	u8 *dst = nova_block(NOVA_SB(sb), blk) + off;
	size_t done;

	/*
	 * Without protection one copy, with no frame for the protected
	 * loop's registers and stack canary (nova_copy_from_iter_csum()).
	 */
	if (nova_prot_csum(sb))
		return nova_copy_from_iter_csum(sb, blk, off, bytes, from);
	done = _copy_from_iter_flushcache(dst, bytes, from);
	nova_pmtrace_flush(dst, done);
	return done;
}

/* ---- verification and repair ---- */

struct nova_block_check {
	u8 *buf;			/* NOVA_BLOCK_SIZE: the block's data */
	__le32 c[2][NOVA_STRIPS];	/* the two checksum copies */
	bool copy_ok[2];		/* the copy could be read */
	unsigned long bad;		/* bitmap: strips matching no copy */
	unsigned long fix[2];		/* bitmap: checksum slots to rewrite */
	bool fix_parity;		/* parity disagrees with good strips */
};

/* Copy the block and its checksums out of PMEM, marking poisoned strips. */
static void nova_check_read(struct nova_sb_info *sbi, unsigned long blk,
			    struct nova_block_check *k)
{
	const u8 *data = nova_block(sbi, blk);
	unsigned int i, copy;

	for (copy = 0; copy < 2; copy++)
		k->copy_ok[copy] = !nova_pmem_read(k->c[copy],
				nova_csum_slot(sbi, blk, copy),
				sizeof(k->c[copy]));
	k->bad = 0;
	k->fix[0] = 0;
	k->fix[1] = 0;
	for (i = 0; i < NOVA_STRIPS; i++) {
		u8 *s = k->buf + i * NOVA_STRIP_SIZE;
		bool m0, m1;
		u32 crc;

		if (nova_pmem_read(s, data + i * NOVA_STRIP_SIZE,
				   NOVA_STRIP_SIZE)) {
			__set_bit(i, &k->bad);
			continue;
		}
		crc = nova_strip_crc(s);
		m0 = k->copy_ok[0] && le32_to_cpu(k->c[0][i]) == crc;
		m1 = k->copy_ok[1] && le32_to_cpu(k->c[1][i]) == crc;
		if (!m0 && !m1) {
			__set_bit(i, &k->bad);
			continue;
		}
		if (!m0)
			__set_bit(i, &k->fix[0]);
		if (!m1)
			__set_bit(i, &k->fix[1]);
		k->c[0][i] = cpu_to_le32(crc);
		k->c[1][i] = cpu_to_le32(crc);
	}
}

/*
 * Rebuild the one bad strip @bad from parity. On success the rebuilt
 * strip is in k->buf, k->c holds its checksum in both copies, and a copy
 * is marked for rewriting only where it differed (one bad strip with both
 * copies right is one repair, the strip).
 */
static bool nova_check_rebuild(struct nova_sb_info *sbi, unsigned long blk,
			       struct nova_block_check *k, unsigned int bad)
{
	u64 p[NOVA_STRIP_SIZE / sizeof(u64)];
	u64 *strip = (u64 *)(k->buf + bad * NOVA_STRIP_SIZE);
	const u64 *s = (const u64 *)k->buf;
	unsigned int i, w, words = ARRAY_SIZE(p);
	bool m0, m1;
	u32 crc;

	if (!nova_prot_parity(sbi) ||
	    nova_pmem_read(p, nova_parity_slot(sbi, blk), sizeof(p)))
		return false;
	for (i = 0; i < NOVA_STRIPS; i++)
		if (i != bad)
			for (w = 0; w < words; w++)
				p[w] ^= s[i * words + w];
	crc = nova_strip_crc(p);
	m0 = k->copy_ok[0] && le32_to_cpu(k->c[0][bad]) == crc;
	m1 = k->copy_ok[1] && le32_to_cpu(k->c[1][bad]) == crc;
	/*
	 * No copy confirms the rebuild: EIO. Not even when the rebuilt strip
	 * equals the one on the medium: the same damage in the strip and in
	 * the parity cancels out, so agreement proves nothing.
	 */
	if (!m0 && !m1)
		return false;
	/* Only a copy that disagrees with the rebuilt strip is rewritten. */
	if (!m0)
		__set_bit(bad, &k->fix[0]);
	if (!m1)
		__set_bit(bad, &k->fix[1]);
	memcpy(strip, p, sizeof(p));
	k->c[0][bad] = cpu_to_le32(crc);
	k->c[1][bad] = cpu_to_le32(crc);
	return true;
}

/* All strips are good: does the parity strip match them? */
static bool nova_check_parity(struct nova_sb_info *sbi, unsigned long blk,
			      struct nova_block_check *k)
{
	u64 p[NOVA_STRIP_SIZE / sizeof(u64)], want[ARRAY_SIZE(p)];

	if (!nova_prot_parity(sbi))
		return true;
	nova_xor_strips(want, k->buf);
	if (!nova_pmem_read(p, nova_parity_slot(sbi, blk), sizeof(p)) &&
	    !memcmp(p, want, sizeof(p)))
		return true;
	k->fix_parity = true;
	return false;
}

/* Write back a rebuilt strip and the checksum slots marked for fixing. */
static unsigned int nova_check_repair(struct nova_sb_info *sbi,
				      unsigned long blk,
				      struct nova_block_check *k, int rebuilt)
{
	unsigned int copy, i, n = 0;

	if (rebuilt >= 0) {
		/* The strip first: it then matches the copy that survived. */
		nova_pmem_memcpy(nova_block(sbi, blk) + rebuilt *
				 NOVA_STRIP_SIZE,
				 k->buf + rebuilt * NOVA_STRIP_SIZE,
				 NOVA_STRIP_SIZE);
		nova_pmem_fence();
		n++;
	}
	for (copy = 0; copy < 2; copy++) {
		for_each_set_bit(i, &k->fix[copy], NOVA_STRIPS) {
			__le32 *slot = nova_csum_slot(sbi, blk, copy) + i;

			nova_pmem_memcpy(slot, &k->c[copy][i], sizeof(*slot));
			n++;
		}
		nova_pmem_fence();
	}
	if (k->fix_parity) {
		u64 p[NOVA_STRIP_SIZE / sizeof(u64)];

		nova_xor_strips(p, k->buf);
		nova_pmem_memcpy(nova_parity_slot(sbi, blk), p, sizeof(p));
		nova_pmem_fence();
		n++;
	}
	return n;
}

/* The kind of what nova_check_read()/nova_check_parity() found bad. */
static u32 nova_check_kind(const struct nova_block_check *k)
{
	if (k->bad)
		return NOVA_CORRUPT_DATA;
	if (k->fix[0] || k->fix[1])
		return NOVA_CORRUPT_CSUM;
	return NOVA_CORRUPT_PARITY;
}

/*
 * Verify block @blk into @buf; repair if @repair. Returns 0 with the good
 * contents in @buf, or -EIO if the block cannot be repaired.
 */
static int nova_check_block(struct nova_sb_info *sbi, unsigned long blk,
			    bool repair, void *buf,
			    struct nova_verify_result *res)
{
	struct nova_block_check k = { .buf = buf };
	unsigned int nbad, n;
	int rebuilt = -1;

	nova_check_read(sbi, blk, &k);
	nbad = bitmap_weight(&k.bad, NOVA_STRIPS);
	res->checked += NOVA_STRIPS;
	res->bad += nbad + bitmap_weight(&k.fix[0], NOVA_STRIPS) +
		    bitmap_weight(&k.fix[1], NOVA_STRIPS);
	atomic64_add(NOVA_STRIPS, &sbi->prot_verified);
	if (nbad > 1 || (nbad == 1 &&
			 !nova_check_rebuild(sbi, blk, &k, __ffs(k.bad)))) {
		res->kind = NOVA_CORRUPT_DATA;
		res->unrecoverable++;
		atomic64_inc(&sbi->prot_unrecoverable);
		return -EIO;
	}
	if (nbad)
		rebuilt = __ffs(k.bad);
	else if (!nova_check_parity(sbi, blk, &k))
		res->bad++;
	res->kind = nova_check_kind(&k);
	if (!repair || (rebuilt < 0 && !k.fix[0] && !k.fix[1] &&
			!k.fix_parity))
		return 0;
	n = nova_check_repair(sbi, blk, &k, rebuilt);
	res->repaired += n;
	atomic64_add(n, &sbi->prot_repaired);
	return 0;
}

/*
 * The common case of a verified read: is every strip of @blk intact?
 * Each strip is copied out of PMEM into a strip buffer (poison becomes a
 * failed copy, not a machine check) and compared with both checksum
 * copies, and the parity is compared with the XOR of the strips, as
 * nova_check_block() does, but without a block-sized buffer: the caller
 * then copies the block straight from PMEM. Any mismatch, false: the
 * caller falls back to nova_read_verified(), which finds out what is
 * wrong, repairs it and counts the check.
 */
bool nova_block_intact(struct super_block *sb, unsigned long blk)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 strip[NOVA_STRIP_SIZE / sizeof(u64)], xor[ARRAY_SIZE(strip)];
	const u8 *data = nova_block(sbi, blk);
	bool parity = nova_prot_parity(sbi);
	__le32 c[2][NOVA_STRIPS];
	unsigned int i, w;

	if (nova_pmem_read(c[0], nova_csum_slot(sbi, blk, 0), sizeof(c[0])) ||
	    nova_pmem_read(c[1], nova_csum_slot(sbi, blk, 1), sizeof(c[1])) ||
	    memcmp(c[0], c[1], sizeof(c[0])))
		return false;
	for (i = 0; i < NOVA_STRIPS; i++) {
		if (nova_pmem_read(strip, data + i * NOVA_STRIP_SIZE,
				   sizeof(strip)) ||
		    nova_strip_crc(strip) != le32_to_cpu(c[0][i]))
			return false;
		for (w = 0; parity && w < ARRAY_SIZE(strip); w++)
			xor[w] = i ? xor[w] ^ strip[w] : strip[w];
	}
	if (parity &&
	    (nova_pmem_read(strip, nova_parity_slot(sbi, blk), sizeof(strip)) ||
	     memcmp(strip, xor, sizeof(strip))))
		return false;
	atomic64_add(NOVA_STRIPS, &sbi->prot_verified);
	return true;
}

/*
 * A verified read of bytes [@off, @off + @n) of file page @pos (block
 * @blk) into @to, reading PMEM once, strip by strip. A whole strip going
 * to a plain user buffer (ITER_UBUF: read(2), pread(2)) takes one pass:
 * each word is loaded from PMEM with a machine-check-safe load, fed to
 * the crc and stored to the user (csum.c), and the crc, of what was
 * loaded rather than of the user's buffer, is compared with the checksum
 * afterwards. The user's buffer then holds the strip before it is known
 * good; a mismatch or poison goes to the slow path below, which writes
 * the repaired page over it, or fails the read (the bytes past what
 * read(2) returns are unspecified, as after any failed read). Other
 * strips (partial ones, iovecs, kernel buffers, and a strip whose user
 * store faulted, so that the read stops at the exact byte) are copied
 * into a strip buffer with copy_mc (poison is a failed copy, not a
 * machine check), checked there and copied to the user from the cache.
 * The parity strip is not read at all on this path: it is needed only to
 * rebuild a bad strip. Damage in strips the read does not touch, or in
 * the parity, is left to the reads that do and to the scrub
 * (nova_block_intact()).
 *
 * Checksum copies that differ, a bad or poisoned strip: the rest of the
 * page goes through nova_read_verified() (parity rebuild, repair, events)
 * into *@buf, a page allocated on first use (the caller frees it).
 * Returns the bytes copied: @n, or less with *@err 0 if the user buffer
 * faulted, or 0 with *@err set if the page cannot be read (strips
 * already handed to the user are taken back: the page fails as a whole).
 */
size_t nova_read_iter_verified(struct inode *inode, unsigned long blk,
			       loff_t pos, unsigned int off, size_t n,
			       struct iov_iter *to, void **buf, int *err)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);
	u64 strip[NOVA_STRIP_SIZE / sizeof(u64)];
	const u8 *data = nova_block(sbi, blk);
	unsigned int at = off, end = off + n, s, len, checked = 0;
	__le32 c[2][NOVA_STRIPS];
	size_t got;
	u32 crc;
	int r;

	*err = 0;
	if (nova_pmem_read(c[0], nova_csum_slot(sbi, blk, 0), sizeof(c[0])) ||
	    nova_pmem_read(c[1], nova_csum_slot(sbi, blk, 1), sizeof(c[1])) ||
	    memcmp(c[0], c[1], sizeof(c[0])))
		goto slow;
	while (at < end) {
		s = at >> NOVA_STRIP_SHIFT;
		if (!(at & (NOVA_STRIP_SIZE - 1)) &&
		    end - at >= NOVA_STRIP_SIZE && iter_is_ubuf(to) &&
		    iov_iter_count(to) >= NOVA_STRIP_SIZE) {
			/* A whole strip into a plain user buffer: one pass. */
			r = nova_csum_copy_mc_strip_to_user(to->ubuf +
							    to->iov_offset,
							    data + at, &crc);
			if (r == -EIO ||
			    (!r && crc != le32_to_cpu(c[0][s])))
				goto slow;
			if (!r) {
				iov_iter_advance(to, NOVA_STRIP_SIZE);
				at += NOVA_STRIP_SIZE;
				checked++;
				continue;
			}
			/* -EFAULT, -EOPNOTSUPP: the strip buffer finds out. */
		}
		if (nova_pmem_read(strip, data + (s << NOVA_STRIP_SHIFT),
				   sizeof(strip)) ||
		    nova_strip_crc(strip) != le32_to_cpu(c[0][s]))
			goto slow;
		checked++;
		len = min(end, (s + 1) << NOVA_STRIP_SHIFT) - at;
		got = copy_to_iter((u8 *)strip + (at & (NOVA_STRIP_SIZE - 1)),
				   len, to);
		at += got;
		if (got < len)
			break;
	}
	atomic64_add(checked, &sbi->prot_verified);
	return at - off;

slow:
	/* nova_read_verified() counts the whole page. */
	if (!*buf)
		*buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!*buf)
		*err = -ENOMEM;
	else
		*err = nova_read_verified(inode, blk, pos, *buf);
	if (*err) {
		/* The page fails as a whole, as it did before any copy. */
		iov_iter_revert(to, at - off);
		return 0;
	}
	return at - off + copy_to_iter(*buf + at, end - at, to);
}

/* Reads of this file are not verified (see the top of the file). */
bool nova_prot_skip_verify(struct inode *inode)
{
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);

	return !nova_prot_csum(inode->i_sb) || !sbi->verify ||
	       nova_prot_maybe_stale(inode);
}

/*
 * Read file page at @pos (block @blk) into @buf, verified and repaired.
 * -EIO (reported) if it cannot be repaired.
 */
int nova_read_verified(struct inode *inode, unsigned long blk, loff_t pos,
		       void *buf)
{
	struct super_block *sb = inode->i_sb;
	struct nova_verify_result res = { };
	int err;

	err = nova_check_block(NOVA_SB(sb), blk, !sb_rdonly(sb), buf, &res);
	if (err)
		pr_err_ratelimited("nova (%s): error: inode %lu offset %lld: unrecoverable data corruption (block %lu)\n",
				   sb->s_id, inode->i_ino, pos, blk);
	else if (res.repaired)
		nova_info(sb, "inode %lu offset %lld: repaired %u damaged strip(s) or checksum(s) of block %lu",
			  inode->i_ino, pos, res.repaired, blk);
	/*
	 * One CORRUPTION event per damaged page a reader meets, rate-limited
	 * per file system like the scrub's (genl_fs.c). "Repaired" only if the
	 * damage was rewritten: a read-only mount returns the rebuilt data
	 * but leaves the medium as it is.
	 */
	if (err || res.bad)
		nova_report_damage(sb, inode->i_ino, res.kind, pos,
				   !err && res.repaired);
	return err;
}

int nova_verify_data_block(struct super_block *sb, u64 blocknr, bool repair,
			   struct nova_verify_result *res)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	void *buf;
	int err;

	if (!nova_prot_csum(sb))
		return -EOPNOTSUPP;
	if (!nova_block_ok(sbi, blocknr, 1))
		return -ERANGE;
	buf = kmalloc(NOVA_BLOCK_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = nova_check_block(sbi, blocknr, repair && !sb_rdonly(sb), buf,
			       res);
	kfree(buf);
	return err;
}

/*
 * Every data page of a regular file, under its log_lock. Returns 0 or the
 * first error other than -EIO (unrecoverable pages are counted in @res).
 */
int nova_verify_inode_data(struct inode *inode, bool repair,
			   struct nova_verify_result *res)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned long idx;
	void *v;
	int err = 0;

	if (!S_ISREG(inode->i_mode) || nova_prot_skip_verify(inode))
		return 0;
	mutex_lock(&ni->log_lock);
	xa_for_each(&ni->pages, idx, v) {
		err = nova_verify_data_block(inode->i_sb,
					     nova_file_block(inode, idx),
					     repair, res);
		if (err == -EIO)
			err = 0;
		if (err)
			break;
	}
	mutex_unlock(&ni->log_lock);
	return err;
}

int nova_verify_inode(struct super_block *sb, u64 ino, bool kept, bool repair,
		      struct nova_verify_result *res)
{
	struct nova_inode *pi = nova_get_pinode(sb, ino), *good;
	struct nova_inode copy;

	if (!ino || !pi)
		return -ENOENT;
	if (nova_pmem_read(&copy, pi, sizeof(copy)) &&
	    (!nova_replica_pi(NOVA_SB(sb), pi) ||
	     nova_pmem_read(&copy, nova_replica_pi(NOVA_SB(sb), pi),
			    sizeof(copy)))) {
		res->checked++;
		res->bad++;
		res->unrecoverable++;
		return -EIO;
	}
	if (le64_to_cpu(copy.i_valid) != !kept)
		return -ENOENT;
	res->checked++;
	/*
	 * A bad primary is rewritten from a good replica (inode_slot.c; the slot
	 * is live, so only its commit words may change meanwhile, and those
	 * are not copied).
	 */
	switch (nova_inode_check(sb, pi, ino, repair, &good)) {
	case NOVA_SLOT_OK:
		/* A bad replica next to a good primary is rewritten too. */
		switch (nova_inode_check_replica(sb, pi, ino, repair)) {
		case NOVA_SLOT_REPAIRED:
			res->bad++;
			res->repaired++;
			break;
		case NOVA_SLOT_BAD:
			res->bad++;
			break;
		default:
			break;
		}
		return 0;
	case NOVA_SLOT_REPAIRED:
		res->bad++;
		res->repaired++;
		return 0;
	case NOVA_SLOT_REPLICA:		/* repairable, not repaired */
		res->bad++;
		return 0;
	case NOVA_SLOT_BAD:
		break;
	}
	res->bad++;
	res->unrecoverable++;
	return 0;
}

/* ---- files mapped writable: the unprotected-inode list ---- */

static __le64 *nova_mmap_list(struct nova_sb_info *sbi)
{
	return nova_block(sbi, sbi->layout.mmap);
}

/* Add @ino to the list (slot 0 counts those that find no slot). */
static void nova_mmap_list_add(struct nova_sb_info *sbi, u64 ino)
{
	__le64 *l = nova_mmap_list(sbi);
	unsigned int i;

	mutex_lock(&sbi->mmap_mutex);
	for (i = 1; i < NOVA_MMAP_SLOTS; i++)
		if (!l[i])
			break;
	if (i < NOVA_MMAP_SLOTS)
		nova_pmem_commit64(&l[i], ino);
	else
		nova_pmem_commit64(&l[0], le64_to_cpu(l[0]) + 1);
	mutex_unlock(&sbi->mmap_mutex);
}

static void nova_mmap_list_del(struct nova_sb_info *sbi, u64 ino)
{
	__le64 *l = nova_mmap_list(sbi);
	unsigned int i;

	mutex_lock(&sbi->mmap_mutex);
	for (i = 1; i < NOVA_MMAP_SLOTS; i++)
		if (le64_to_cpu(l[i]) == ino)
			break;
	if (i < NOVA_MMAP_SLOTS)
		nova_pmem_commit64(&l[i], 0);
	else if (l[0])
		nova_pmem_commit64(&l[0], le64_to_cpu(l[0]) - 1);
	mutex_unlock(&sbi->mmap_mutex);
}

/*
 * The file's checksums may be stale: a writable shared mapping exists, or
 * stores through one were made and the file is not re-protected yet.
 */
bool nova_prot_maybe_stale(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);

	return atomic_read(&ni->wmaps) || READ_ONCE(ni->mmap_listed);
}

/*
 * A writable shared mapping of @inode is created. Nothing is written yet:
 * the inode is listed on media at the first write fault
 * (nova_prot_mmap_write()), so that mapping and unmapping a file that is
 * only read writes nothing, frozen or not.
 */
void nova_prot_mmap_get(struct inode *inode)
{
	if (nova_prot_csum(inode->i_sb))
		atomic_inc(&NOVA_I(inode)->wmaps);
}

/*
 * A write fault through a shared mapping of @inode, under
 * sb_start_pagefault(): list the inode on media (durable) before the fault
 * returns, and so before any store through the mapping can happen.
 */
void nova_prot_mmap_write(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);

	if (!nova_prot_csum(inode->i_sb) || READ_ONCE(ni->mmap_listed))
		return;
	mutex_lock(&ni->log_lock);
	if (!ni->mmap_listed) {
		nova_mmap_list_add(NOVA_SB(inode->i_sb), inode->i_ino);
		WRITE_ONCE(ni->mmap_listed, true);
	}
	mutex_unlock(&ni->log_lock);
}

/*
 * Pages written through a shared mapping carry this mark in the file's
 * page index until they are re-protected. Marks live in the index's
 * nodes, beside the slots, and survive the xa_store() that repoints a
 * page; erasing a page drops its mark with it. Truncate and punch erase
 * pages that are gone; a collapse or insert erases the pages it moves,
 * and seals their blocks first (nova_rop_shift(), falloc.c).
 */
#define NOVA_PAGE_STORED	XA_MARK_0

/*
 * Whether page @index of @inode was written through a shared mapping and
 * not re-protected since: its checksums and parity may be stale.
 */
bool nova_prot_page_stored(struct inode *inode, pgoff_t index)
{
	return xa_get_mark(&NOVA_I(inode)->pages, index, NOVA_PAGE_STORED);
}

/*
 * A write fault through a shared mapping of @inode made pages
 * [@first, @first + @nr) writable: mark them for nova_reprotect_file().
 * Called after the fault mapped them (their index entries exist) and
 * before it returns, so before the unmap that re-protects them.
 */
void nova_prot_mmap_stored(struct inode *inode, pgoff_t first,
			   unsigned long nr)
{
	struct xarray *pages = &NOVA_I(inode)->pages;
	XA_STATE(xas, pages, first);
	void *v;

	if (!nova_prot_csum(inode->i_sb))
		return;
	if (nr == 1 && nova_prot_page_stored(inode, first))
		return;
	xas_lock(&xas);
	xas_for_each(&xas, v, first + nr - 1)
		xas_set_mark(&xas, NOVA_PAGE_STORED);
	xas_unlock(&xas);
}

/*
 * Re-protect the pages of @inode written through a mapping since it was
 * listed. Caller holds log_lock. Recovery, which has no marks, re-protects
 * every page of a listed file (recovery.c).
 */
static void nova_reprotect_file(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	unsigned long idx;
	void *v;

	lockdep_assert_held(&ni->log_lock);
	xa_for_each_marked(&ni->pages, idx, v, NOVA_PAGE_STORED) {
		nova_protect_block(inode->i_sb, nova_file_block(inode, idx));
		xa_clear_mark(&ni->pages, idx, NOVA_PAGE_STORED);
	}
	nova_pmem_fence();
}

/*
 * No writable shared mapping of a listed @inode is left: recompute its
 * checksums and parity, durable before the inode leaves the list. Caller
 * holds log_lock and freeze protection. A file system that is shut down
 * (or forced read-only) is written no more: the inode stays listed, and
 * the recovery of the next mount checksums it again.
 */
static void nova_prot_unlist(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;

	lockdep_assert_held(&ni->log_lock);
	if (!ni->mmap_listed || atomic_read(&ni->wmaps) ||
	    nova_is_shutdown(sb) || sb_rdonly(sb))
		return;
	nova_reprotect_file(inode);
	nova_mmap_list_del(NOVA_SB(sb), inode->i_ino);
	WRITE_ONCE(ni->mmap_listed, false);
}

/*
 * The last unmap came while the file system was frozen (or freezing),
 * which must not be written: keep the inode listed, pinned, and re-protect
 * it after the thaw (nova_prot_unlist_deferred()). Caller holds log_lock.
 */
static void nova_prot_defer_unlist(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct nova_sb_info *sbi = NOVA_SB(inode->i_sb);

	lockdep_assert_held(&ni->log_lock);
	if (ni->mmap_defer_queued)
		return;
	ni->mmap_defer_queued = true;
	ihold(inode);
	llist_add(&ni->mmap_defer, &sbi->mmap_deferred);
	queue_delayed_work(system_long_wq, &sbi->mmap_work, 0);
}

/*
 * Re-protect what was unmapped while frozen, once thawed. The pin is
 * dropped here, so the last iput() of a file unlinked while mapped (which
 * frees it, and must wait for a thaw too) never runs in the task that
 * unmapped it during the freeze.
 *
 * The work never waits for the thaw: while frozen it looks again a second
 * later. Unmount and remount read-only flush it with s_umount held, and
 * a freeze takes s_umount while it holds the writers out, so a work that
 * slept in sb_start_write() would order sb_writers after s_umount (lockdep
 * reports the cycle). Neither flush can meet a freeze (unmount: the freeze
 * holds an active reference; remount: refused while frozen), so the trylock
 * succeeds by then and the flush ends.
 */
static void nova_prot_unlist_deferred(struct work_struct *work)
{
	struct nova_sb_info *sbi = container_of(to_delayed_work(work),
						struct nova_sb_info, mmap_work);
	struct llist_node *list;
	struct nova_inode_info *ni, *next;

	if (llist_empty(&sbi->mmap_deferred))
		return;
	if (!sb_start_write_trylock(sbi->sb)) {
		queue_delayed_work(system_long_wq, &sbi->mmap_work, HZ);
		return;
	}
	list = llist_del_all(&sbi->mmap_deferred);
	llist_for_each_entry_safe(ni, next, list, mmap_defer) {
		mutex_lock(&ni->log_lock);
		ni->mmap_defer_queued = false;
		nova_prot_unlist(&ni->vfs_inode);
		mutex_unlock(&ni->log_lock);
		iput(&ni->vfs_inode);
	}
	sb_end_write(sbi->sb);
}

/*
 * A writable shared mapping goes away (its pages are unmapped already).
 * After the last one, a file that was stored to through a mapping is
 * re-protected and leaves the list: now, or after the thaw if the file
 * system is frozen. The vma callbacks cannot wait for a thaw: an exiting
 * task unmaps with mmap_lock held.
 */
void nova_prot_mmap_put(struct inode *inode)
{
	struct nova_inode_info *ni = NOVA_I(inode);
	struct super_block *sb = inode->i_sb;
	bool writing;

	if (!nova_prot_csum(sb))
		return;
	writing = sb_start_write_trylock(sb);
	mutex_lock(&ni->log_lock);
	if (atomic_dec_and_test(&ni->wmaps) && ni->mmap_listed) {
		if (writing)
			nova_prot_unlist(inode);
		else
			nova_prot_defer_unlist(inode);
	}
	mutex_unlock(&ni->log_lock);
	if (writing)
		sb_end_write(sb);
}

/* Mount: the deferred re-protection's state. */
void nova_prot_init_sb(struct nova_sb_info *sbi)
{
	mutex_init(&sbi->mmap_mutex);
	init_llist_head(&sbi->mmap_deferred);
	INIT_DELAYED_WORK(&sbi->mmap_work, nova_prot_unlist_deferred);
}

/*
 * Remount read-only and unmount: finish re-protections deferred by a
 * freeze (the file system is thawed by then) before the medium is marked
 * clean, and before the VFS evicts the inodes they pin. A run that found
 * the file system still frozen just before the thaw may have put itself
 * back on the timer after the flush began: flush until the list is empty.
 */
void nova_prot_flush(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	do {
		flush_delayed_work(&sbi->mmap_work);
	} while (!llist_empty(&sbi->mmap_deferred));
}

/*
 * Is @ino (0: any inode) listed as mapped writable? l[0] counts the
 * inodes that did not fit in the list: then every inode may have been.
 */
static bool nova_mmap_listed(struct nova_sb_info *sbi, u64 ino)
{
	__le64 *l;
	unsigned int i;

	if (!sbi->layout.mmap)
		return false;
	l = nova_mmap_list(sbi);
	if (READ_ONCE(l[0]))
		return true;
	for (i = 1; i < NOVA_MMAP_SLOTS; i++) {
		u64 v = le64_to_cpu(READ_ONCE(l[i]));

		if (v && (!ino || v == ino))
			return true;
	}
	return false;
}

/* Was @ino listed as mapped writable when the file system went down? */
bool nova_prot_was_mapped(struct super_block *sb, u64 ino)
{
	return nova_mmap_listed(NOVA_SB(sb), ino);
}

/*
 * Is any inode listed as mapped writable (or the list overflowed)? One
 * look at the list per recovery, so that the scan asks
 * nova_prot_was_mapped() only when the answer can be yes: after most
 * crashes nothing was mapped writable.
 */
bool nova_prot_any_mapped(struct super_block *sb)
{
	return nova_mmap_listed(NOVA_SB(sb), 0);
}

/*
 * Did more files get mapped writable than the list holds? Then any inode
 * may have been, and a recovery must look at every one (recovery_fast.c).
 */
bool nova_prot_mapped_overflow(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	return sbi->layout.mmap && READ_ONCE(nova_mmap_list(sbi)[0]);
}

/* Recovery re-protected the listed files: empty the list. */
void nova_prot_clear_mapped(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (!sbi->layout.mmap)
		return;
	nova_pmem_memset(nova_mmap_list(sbi), 0, NOVA_BLOCK_SIZE);
	nova_pmem_fence();
}

/*
 * Mount: a non-empty list on a file system that is not recovered (clean,
 * or mounted without recovery) cannot be acted upon; verification is then
 * turned off rather than failing reads of files whose checksums are stale.
 */
int nova_prot_load(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	__le64 *l;
	unsigned int i;

	if (!sbi->layout.mmap || sbi->recovered)
		return 0;
	l = nova_mmap_list(sbi);
	for (i = 0; i < NOVA_MMAP_SLOTS; i++)
		if (READ_ONCE(l[i]))
			break;
	if (i < NOVA_MMAP_SLOTS && sbi->verify) {
		nova_warn(sb, "files mapped writable were not re-protected (no recovery ran): read verification is off");
		sbi->verify = false;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: data protection (format 1.2, docs/protection.md). Every
 * block a file maps is checked against its strip checksums (both copies)
 * and its parity strip, the way the kernel verifies a read:
 *
 *  - damage the kernel repairs on the next read (one bad strip that
 *    parity rebuilds, a bad checksum copy, a bad parity strip) is
 *    reported as information: a crash while the bytes past the end of a
 *    file are zeroed in place can leave exactly that, by design;
 *  - damage it cannot repair (two bad strips, a bad strip without usable
 *    parity) is a problem: reads of that page fail with EIO.
 *
 * Files in the unprotected-inode list (mapped writable when the file
 * system went down) are skipped: recovery recomputes their checksums.
 * Block symlink targets carry no checksums. Nothing here is repaired.
 */
#include <string.h>

#include "crc32c.h"
#include "fsck.h"
#include "le.h"

static bool prot_listed(struct fsck *f, uint64_t ino)
{
	const __le64 *l;
	unsigned int i;

	if (!f->layout.mmap)
		return false;
	l = fsck_ptr(f, NOVA_OFF(f->layout.mmap), NOVA_BLOCK_SIZE);
	if (!l)
		return true;
	if (le64(l[0]))
		return true;
	for (i = 1; i < NOVA_MMAP_SLOTS; i++)
		if (le64(l[i]) == ino)
			return true;
	return false;
}

struct prot_counts {
	uint64_t blocks, repairable, unrecoverable, skipped;
};

/* 0 good, 1 repairable, 2 unrecoverable. */
static int prot_block(struct fsck *f, uint64_t b)
{
	uint64_t csz = NOVA_CSUM_SLOT, par = NOVA_STRIP_SIZE;
	const uint8_t *d = fsck_ptr(f, NOVA_OFF(b), NOVA_BLOCK_SIZE);
	const uint8_t *c0 = fsck_ptr(f, NOVA_OFF(f->layout.csum) + b * csz, csz);
	const uint8_t *c1 = fsck_ptr(f, NOVA_OFF(f->layout.csum_replica) +
				     b * csz, csz);
	const uint8_t *p = f->layout.parity ?
		fsck_ptr(f, NOVA_OFF(f->layout.parity) + b * par, par) : NULL;
	uint8_t x[NOVA_STRIP_SIZE];
	unsigned int i, j, nbad = 0, bad = 0;
	bool fixable = false;

	if (!d || !c0 || !c1)
		return 2;
	for (i = 0; i < NOVA_STRIPS; i++) {
		uint32_t crc = nova_crc32c(NOVA_CRC_SEED, d + i * NOVA_STRIP_SIZE,
					   NOVA_STRIP_SIZE);
		uint32_t v0, v1;

		memcpy(&v0, c0 + 4 * i, 4);
		memcpy(&v1, c1 + 4 * i, 4);
		v0 = le32(v0);
		v1 = le32(v1);
		if (crc != v0 && crc != v1) {
			nbad++;
			bad = i;
		} else if (crc != v0 || crc != v1) {
			fixable = true;
		}
	}
	if (nbad > 1)
		return 2;
	if (!p)
		return nbad ? 2 : fixable;
	memcpy(x, p, sizeof(x));
	for (i = 0; i < NOVA_STRIPS; i++)
		if (!nbad || i != bad)
			for (j = 0; j < NOVA_STRIP_SIZE; j++)
				x[j] ^= d[i * NOVA_STRIP_SIZE + j];
	if (!nbad) {
		for (j = 0; j < NOVA_STRIP_SIZE; j++)
			if (x[j])
				return 1;	/* parity disagrees */
		return fixable;
	}
	{
		uint32_t crc = nova_crc32c(NOVA_CRC_SEED, x, sizeof(x)), v0, v1;

		memcpy(&v0, c0 + 4 * bad, 4);
		memcpy(&v1, c1 + 4 * bad, 4);
		if (crc == le32(v0) || crc == le32(v1))
			return 1;
	}
	return 2;
}

void fsck_check_protection(struct fsck *f)
{
	struct prot_counts n = { 0 };
	uint64_t b;

	if (!(le32(f->sb.s_feature_incompat) & NOVA_FEATURE_DATA_CSUM))
		return;
	for (b = f->layout.alloc_start; b < f->layout.alloc_end; b++) {
		struct fsck_inode *in;
		int r;

		if (f->bkind[b] != BK_DATA)
			continue;
		/*
		 * Symlink targets carry no checksums, also those of removed
		 * symlinks a snapshot keeps, which are not in the inode map.
		 */
		in = fsck_inode_find(f, f->bowner[b]);
		if (f->bsymlink[b] || (in && (in->mode & 0170000) == 0120000) ||
		    prot_listed(f, f->bowner[b])) {
			n.skipped++;
			continue;
		}
		n.blocks++;
		r = prot_block(f, b);
		if (r == 1) {
			n.repairable++;
			fsck_info(f, 0, "inode %llu: data block %llu: damaged strip, checksum or parity (repairable: a read of the page repairs a strip or checksum, novactl scrub start also parity)",
				  (unsigned long long)f->bowner[b],
				  (unsigned long long)b);
		} else if (r == 2) {
			n.unrecoverable++;
			fsck_problem(f, "inode %llu: data block %llu: damage beyond repair (reads of that page fail with EIO)",
				     (unsigned long long)f->bowner[b],
				     (unsigned long long)b);
		}
	}
	fsck_info(f, 1, "data protection: %llu blocks checked, %llu repairable, %llu unrecoverable, %llu not protected (mapped writable or symlink targets)",
		  (unsigned long long)n.blocks,
		  (unsigned long long)n.repairable,
		  (unsigned long long)n.unrecoverable,
		  (unsigned long long)n.skipped);
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Test helper (header-only, for test-fsck-*.c): build NOVA images in
 * memory. img_make() runs the real mkfs.NOVA code into a buffer; the
 * img_* writers then add inodes, log entries and data the way the kernel
 * lays them out (module/log.c, dir.c, namei.c), so tests can populate an
 * image and then corrupt one thing at a time.
 *
 * Blocks for logs and data come from the top of the free space downwards;
 * on a clean image img_finish() shortens the last saved free range to
 * match, so a populated image stays consistent. With inode replicas
 * (META_REPLICA) the writers change primary slots only; img_finish() (or
 * img_sync_replicas()) then copies them to their replicas, as the kernel's
 * paired stores leave them.
 */
#ifndef TEST_FSCK_IMAGE_H
#define TEST_FSCK_IMAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dev.h"
#include "format.h"
#include "fsck.h"
#include "le.h"
#include "mkfs.h"

struct img {
	uint8_t *buf;
	uint64_t size, nblocks;
	unsigned int cpus;
	uint64_t low;		/* lowest block handed out from the top */
	uint64_t trans;
	uint64_t log_pages, data_pages;
	uint8_t *inuse;		/* per block: handed out by img_alloc() */
	struct nova_range saved[NOVA_RANGES_PER_ENTRY];	/* mkfs's free ranges */
	uint32_t nsaved;
};

static inline void *img_at(struct img *im, uint64_t off)
{
	return im->buf + off;
}

static inline struct nova_super_block *img_sb(struct img *im)
{
	return img_at(im, 0);
}

static inline struct nova_super_block *img_replica(struct img *im)
{
	return img_at(im, NOVA_OFF(im->nblocks - 1));
}

/* Reseal both superblock copies after editing the primary. */
static inline void img_sync_super(struct img *im)
{
	nova_sb_seal(img_sb(im));
	memcpy(img_replica(im), img_sb(im), sizeof(struct nova_super_block));
}

/* An image made with protection @features (img_make(): none). */
static inline int img_make_features(struct img *im, uint64_t size,
				    unsigned int cpus, uint32_t features);

static inline int img_make(struct img *im, uint64_t size, unsigned int cpus)
{
	return img_make_features(im, size, cpus, 0);
}

static inline int img_make_features(struct img *im, uint64_t size,
				    unsigned int cpus, uint32_t features)
{
	struct mkfs_params p;
	struct nova_dev d;
	struct nerr e;
	int err;

	memset(im, 0, sizeof(*im));
	im->buf = calloc(1, size);
	if (!im->buf)
		return -1;
	im->size = size;
	im->nblocks = size / NOVA_BLOCK_SIZE;
	im->cpus = cpus;
	im->low = im->nblocks - 1;
	memset(&p, 0, sizeof(p));
	p.size = size;
	p.cpus = cpus;
	p.features = features;
	p.now = 1700000000;
	p.uuid[0] = 0x42;
	strcpy(p.label, "test");
	ndev_from_buffer(&d, im->buf, size);
	err = nova_mkfs_write(&d, &p, NULL, &e);
	if (err) {
		fprintf(stderr, "img_make: %s\n", e.msg);
		return err;
	}
	im->trans = le64(img_sb(im)->s_trans_id);
	im->inuse = calloc(1, im->nblocks);
	{
		struct nova_inode *ai = img_at(im, NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) +
					       NOVA_ALLOC_INO * NOVA_INODE_SIZE);
		struct nova_free_ranges_entry *fr = img_at(im, le64(ai->i_log_head));

		uint32_t i;

		/* With one free list, mkfs's state fits one page. */
		im->nsaved = le32(fr->fr_count);
		memcpy(im->saved, fr->fr_ranges, im->nsaved * sizeof(im->saved[0]));
		/* Below what mkfs took from the high end (table replicas). */
		im->low = 0;
		for (i = 0; i < im->nsaved; i++)
			if (le64(im->saved[i].r_start) + le64(im->saved[i].r_len) >
			    im->low)
				im->low = le64(im->saved[i].r_start) +
					  le64(im->saved[i].r_len);
	}
	return im->inuse ? 0 : -1;
}

static inline void img_free(struct img *im)
{
	free(im->buf);
	free(im->inuse);
	im->buf = NULL;
	im->inuse = NULL;
}

static inline uint64_t img_alloc(struct img *im, uint64_t n)
{
	im->low -= n;
	memset(im->inuse + im->low, 1, n);
	return im->low;
}

/* Blocks the "kernel" freed again (overwritten or truncated data). */
static inline void img_release(struct img *im, uint64_t blk, uint64_t n,
			       bool data)
{
	memset(im->inuse + blk, 0, n);
	if (data)
		im->data_pages -= n;
}

/* The PMEM inode of @ino (stripe tables: first table block only). */
static inline struct nova_inode *img_inode(struct img *im, uint64_t ino)
{
	struct nova_ino_loc loc;
	const struct nova_inode_table *it;

	if (ino < NOVA_RESERVED_INODES)
		return img_at(im, NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) +
			      ino * NOVA_INODE_SIZE);
	nova_ino_locate(ino, im->cpus, &loc);
	it = img_at(im, NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK) +
		    loc.cpu * sizeof(*it));
	return img_at(im, NOVA_OFF(le64(it->it_head)) + nova_slot_off(loc.slot));
}

/*
 * The replica of @ino's slot (format 1.3, META_REPLICA; first table block
 * only, as img_inode()), NULL without inode replicas.
 */
static inline struct nova_inode *img_replica_inode(struct img *im, uint64_t ino)
{
	uint32_t features = le32(img_sb(im)->s_feature_incompat);
	const struct nova_inode_table_tail *itt;
	const struct nova_inode_table *it;
	struct nova_ino_loc loc;
	struct nova_layout l;

	if (!(features & NOVA_FEATURE_META_REPLICA))
		return NULL;
	if (ino < NOVA_RESERVED_INODES) {
		nova_layout_compute(im->nblocks, features, &l);
		return img_at(im, NOVA_OFF(l.meta_replica) +
			      ino * NOVA_INODE_SIZE);
	}
	nova_ino_locate(ino, im->cpus, &loc);
	it = img_at(im, NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK) +
		    loc.cpu * sizeof(*it));
	itt = img_at(im, NOVA_OFF(le64(it->it_head)) + NOVA_ITT_OFF);
	return img_at(im, NOVA_OFF(le64(itt->itt_replica)) +
		      nova_slot_off(loc.slot));
}

/*
 * Inode replicas: copy every primary slot (reserved block, first table
 * block of each stripe) to its replica, commit words included.
 */
static inline void img_sync_replicas(struct img *im)
{
	unsigned int cpu;

	if (!img_replica_inode(im, 0))
		return;
	memcpy(img_replica_inode(im, 0), img_inode(im, 0), NOVA_BLOCK_SIZE);
	for (cpu = 0; cpu < im->cpus; cpu++) {
		const struct nova_inode_table *it = img_at(im,
			NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK) + cpu * sizeof(*it));
		uint64_t blk = le64(it->it_head);
		const struct nova_inode_table_tail *itt =
			img_at(im, NOVA_OFF(blk) + NOVA_ITT_OFF);

		memcpy(img_at(im, NOVA_OFF(le64(itt->itt_replica))),
		       img_at(im, NOVA_OFF(blk)), NOVA_ITT_OFF);
	}
}

/* A new, valid inode (as nova_new_inode() + commit of i_valid). */
static inline void img_new_inode(struct img *im, uint64_t ino, uint16_t mode,
				 uint32_t nlink, uint64_t parent)
{
	struct nova_inode *pi = img_inode(im, ino);

	memset(pi, 0, sizeof(*pi));
	pi->i_ino = cpu64(ino);
	pi->i_mode = cpu16(mode);
	pi->i_nlink = cpu32(nlink);
	pi->i_parent = cpu64(S_ISDIR(mode) ? parent : 0);
	pi->i_create_trans = cpu64(++im->trans);
	pi->i_mtime.sec = cpu64(1700000000);
	nova_inode_seal(pi);
	pi->i_valid = cpu64(1);
}

/* Does @ino's log get mirror pages (format 1.4, LOG_REPLICA)? */
static inline bool img_mirrored(struct img *im, uint64_t ino)
{
	return (le32(img_sb(im)->s_feature_incompat) &
		NOVA_FEATURE_LOG_REPLICA) && ino != NOVA_ALLOC_INO;
}

/* The mirror of log page @page, 0 without one. */
static inline uint64_t img_mirror(struct img *im, uint64_t page)
{
	const struct nova_log_page_tail *lt = img_at(im, page +
						     NOVA_LOG_DATA_SIZE);

	return le64(lt->lt_replica);
}

/* Copy @len bytes at @off of a log page to its mirror, as the kernel. */
static inline void img_mirror_copy(struct img *im, uint64_t off, uint64_t len)
{
	uint64_t page = off & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	uint64_t m = img_mirror(im, page);

	if (m)
		memcpy(img_at(im, m + off - page), img_at(im, off), len);
}

static inline uint64_t img_new_log_page(struct img *im, uint64_t ino)
{
	uint64_t blk = img_alloc(im, 1), mblk = 0;
	struct nova_log_page_tail *lt = img_at(im, NOVA_OFF(blk) +
					       NOVA_LOG_DATA_SIZE);

	memset(img_at(im, NOVA_OFF(blk)), 0, NOVA_BLOCK_SIZE);
	lt->lt_ino = cpu64(ino);
	lt->lt_magic = cpu32(NOVA_LOG_PAGE_MAGIC);
	if (img_mirrored(im, ino)) {
		struct nova_log_page_tail *mt;

		mblk = img_alloc(im, 1);
		mt = img_at(im, NOVA_OFF(mblk) + NOVA_LOG_DATA_SIZE);
		memset(img_at(im, NOVA_OFF(mblk)), 0, NOVA_BLOCK_SIZE);
		mt->lt_ino = cpu64(ino);
		mt->lt_magic = cpu32(NOVA_LOG_PAGE_MAGIC);
		mt->lt_replica = cpu64(NOVA_OFF(blk));
		nova_lt_seal(mt);
		lt->lt_replica = cpu64(NOVA_OFF(mblk));
		im->log_pages++;
	}
	nova_lt_seal(lt);
	im->log_pages++;
	return NOVA_OFF(blk);
}

/* Append @entry (header filled, e_size set) and commit the tail. */
static inline uint64_t img_append(struct img *im, uint64_t ino, void *entry)
{
	struct nova_inode *pi = img_inode(im, ino);
	struct nova_log_entry_header *h = entry;
	unsigned int size = le16(h->e_size);
	uint64_t pos = le64(pi->i_log_tail), page;

	if (!pi->i_log_head)
		pi->i_log_head = cpu64(img_new_log_page(im, ino));
	if (!pos)
		pos = le64(pi->i_log_head);
	page = pos & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	if (pos + size > page + NOVA_LOG_DATA_SIZE) {
		struct nova_log_page_tail *lt = img_at(im, page +
						       NOVA_LOG_DATA_SIZE);

		if (pos < page + NOVA_LOG_DATA_SIZE) {
			*(uint8_t *)img_at(im, pos) = NOVA_LOG_PAD;
			img_mirror_copy(im, pos, 1);
		}
		if (!lt->lt_next) {
			lt->lt_next = cpu64(img_new_log_page(im, ino));
			if (img_mirror(im, page))
				((struct nova_log_page_tail *)img_at(im,
					img_mirror(im, page) +
					NOVA_LOG_DATA_SIZE))->lt_next = lt->lt_next;
		}
		pos = le64(lt->lt_next);
	}
	h->e_trans_id = cpu64(++im->trans);
	nova_entry_seal(entry);
	memcpy(img_at(im, pos), entry, size);
	img_mirror_copy(im, pos, size);
	pi->i_log_tail = cpu64(pos + size);
	return pos;
}

static inline void img_hdr(void *entry, uint8_t type, unsigned int size)
{
	struct nova_log_entry_header *h = entry;

	memset(entry, 0, size);
	h->e_type = type;
	h->e_size = cpu16((uint16_t)size);
}

static inline uint64_t img_dentry(struct img *im, uint64_t dir,
				  const char *name, uint64_t ino,
				  uint32_t dir_links, uint8_t dtype,
				  uint64_t pos)
{
	uint8_t buf[nova_dentry_size(NOVA_NAME_LEN)];
	struct nova_dentry_entry *de = (void *)buf;
	unsigned int len = (unsigned int)strlen(name);

	img_hdr(de, NOVA_LOG_DENTRY, nova_dentry_size(len));
	de->de_ino = cpu64(ino);
	de->de_pos = cpu64(pos);
	de->de_links = cpu32(dir_links);
	de->de_name_len = (uint8_t)len;
	de->de_file_type = dtype;
	memcpy(de->de_name, name, len);
	return img_append(im, dir, de);
}

static inline uint64_t img_write(struct img *im, uint64_t ino, uint64_t pgoff,
				 uint32_t n, uint64_t size, uint64_t *blkp)
{
	struct nova_file_write_entry fw;
	uint64_t blk = img_alloc(im, n);

	img_hdr(&fw, NOVA_LOG_FILE_WRITE, sizeof(fw));
	fw.fw_pgoff = cpu64(pgoff);
	fw.fw_num_pages = cpu32(n);
	fw.fw_block = cpu64(blk);
	fw.fw_size = cpu64(size);
	memset(img_at(im, NOVA_OFF(blk)), 0xab, (size_t)n * NOVA_BLOCK_SIZE);
	im->data_pages += n;
	if (blkp)
		*blkp = blk;
	return img_append(im, ino, &fw);
}

static inline uint64_t img_link_change(struct img *im, uint64_t ino,
				       uint32_t links)
{
	struct nova_link_change_entry lc;

	img_hdr(&lc, NOVA_LOG_LINK_CHANGE, sizeof(lc));
	lc.lc_links = cpu32(links);
	return img_append(im, ino, &lc);
}

static inline uint64_t img_truncate(struct img *im, uint64_t ino,
				    uint64_t size)
{
	struct nova_setattr_entry sa;

	img_hdr(&sa, NOVA_LOG_SETATTR, sizeof(sa));
	sa.sa_mask = cpu32(NOVA_ATTR_SIZE);
	sa.sa_size = cpu64(size);
	return img_append(im, ino, &sa);
}

/* A setattr entry with file attribute flags (format 1.6) and @mask. */
static inline uint64_t img_attr_flags(struct img *im, uint64_t ino,
				      uint32_t mask, uint16_t flags)
{
	struct nova_setattr_entry sa;

	img_hdr(&sa, NOVA_LOG_SETATTR, sizeof(sa));
	sa.sa_mask = cpu32(mask);
	sa.sa_flags = cpu16(flags);
	return img_append(im, ino, &sa);
}

/* A setattr entry with @mask, @flags and project id word @projid (1.8). */
static inline uint64_t img_attr_projid(struct img *im, uint64_t ino,
				       uint32_t mask, uint16_t flags,
				       uint32_t projid)
{
	struct nova_setattr_entry sa;

	img_hdr(&sa, NOVA_LOG_SETATTR, sizeof(sa));
	sa.sa_mask = cpu32(mask);
	sa.sa_flags = cpu16(flags);
	NOVA_SA_PROJID(&sa) = cpu32(projid);
	return img_append(im, ino, &sa);
}

/*
 * An extended attribute entry (format 1.5): a piece of @vsize bytes of
 * value at @offset (@len bytes of 0x5a), or with NOVA_XATTR_REMOVE a
 * removal. @trans 0: a new transaction id, else that one (a later piece).
 */
static inline uint64_t img_xattr(struct img *im, uint64_t ino, uint8_t index,
				 const char *name, uint32_t vsize,
				 uint32_t offset, uint32_t len, uint16_t flags,
				 uint64_t trans)
{
	size_t nl = strlen(name);
	unsigned int size = nova_xattr_entry_size((unsigned int)nl, len);
	struct nova_xattr_entry *xe = calloc(1, size);
	uint64_t pos;

	img_hdr(xe, NOVA_LOG_XATTR, size);
	xe->xe_index = index;
	xe->xe_name_len = (uint8_t)nl;
	xe->xe_flags = cpu16(flags);
	xe->xe_value_size = cpu32(vsize);
	xe->xe_offset = cpu32(offset);
	xe->xe_len = cpu32(len);
	memcpy(xe->xe_name, name, nl);
	memset(xe->xe_name + nl, 0x5a, len);
	pos = img_append(im, ino, xe);
	if (trans) {
		struct nova_xattr_entry *w = img_at(im, pos);

		im->trans--;
		w->hdr.e_trans_id = cpu64(trans);
		nova_entry_seal(w);
		img_mirror_copy(im, pos, size);
	}
	free(xe);
	return pos;
}

/* Snapshot log records (format 1.1), in the log of NOVA_SNAPSHOT_INO. */
static inline uint64_t img_snapshot(struct img *im, uint64_t id, uint64_t epoch,
				    const char *name)
{
	struct nova_snapshot_entry sn;

	img_hdr(&sn, NOVA_LOG_SNAPSHOT, sizeof(sn));
	sn.sn_id = cpu64(id);
	sn.sn_epoch = cpu64(epoch);
	strncpy(sn.sn_name, name, NOVA_SNAPSHOT_NAME_LEN - 1);
	return img_append(im, NOVA_SNAPSHOT_INO, &sn);
}

static inline uint64_t img_snapshot_del(struct img *im, uint64_t id,
					uint64_t epoch)
{
	struct nova_snapshot_del_entry sd;

	img_hdr(&sd, NOVA_LOG_SNAPSHOT_DEL, sizeof(sd));
	sd.sd_id = cpu64(id);
	sd.sd_epoch = cpu64(epoch);
	return img_append(im, NOVA_SNAPSHOT_INO, &sd);
}

static inline uint64_t img_snapshot_keep(struct img *im, uint64_t blk,
					 uint32_t n, uint64_t born,
					 uint64_t dead)
{
	struct nova_snapshot_keep_entry sk;

	img_hdr(&sk, NOVA_LOG_SNAPSHOT_KEEP, sizeof(sk));
	sk.sk_block = cpu64(blk);
	sk.sk_count = cpu32(n);
	sk.sk_born = cpu64(born);
	sk.sk_dead = cpu64(dead);
	return img_append(im, NOVA_SNAPSHOT_INO, &sk);
}

/*
 * Clean image: rewrite the saved allocator state as mkfs's free ranges
 * minus the blocks still handed out, and set the superblock counters.
 */
static inline void img_finish(struct img *im)
{
	struct nova_inode *ai = img_inode(im, NOVA_ALLOC_INO);
	uint64_t page = le64(ai->i_log_head), nfree = 0;
	struct nova_free_ranges_entry *fr = img_at(im, page);
	struct nova_log_page_tail *lt = img_at(im, page + NOVA_LOG_DATA_SIZE);
	struct nova_super_block *sb = img_sb(im);
	struct nova_range r[NOVA_RANGES_PER_ENTRY];
	uint32_t i, n = 0;
	unsigned int size;

	for (i = 0; i < im->nsaved; i++) {
		uint64_t b = le64(im->saved[i].r_start);
		uint64_t end = b + le64(im->saved[i].r_len);

		while (b < end) {
			uint64_t s;

			while (b < end && im->inuse[b])
				b++;
			s = b;
			while (b < end && !im->inuse[b])
				b++;
			if (b > s && n < NOVA_RANGES_PER_ENTRY) {
				r[n].r_start = cpu64(s);
				r[n].r_len = cpu64(b - s);
				nfree += b - s;
				n++;
			}
		}
	}
	/* The page rebuilt by the builder the kernel and the tools share. */
	size = nova_state_page_fill(fr, r, n, le64(fr->hdr.e_epoch_id),
				    le64(fr->hdr.e_trans_id),
				    NOVA_BLOCK(le64(lt->lt_next)));
	ai->i_log_tail = cpu64(page + size);
	sb->s_free_blocks = cpu64(nfree);
	sb->s_log_pages = cpu64(im->log_pages);
	sb->s_data_pages = cpu64(im->data_pages);
	sb->s_trans_id = cpu64(im->trans + 1);
	img_sync_super(im);
	img_sync_replicas(im);
}

/*
 * A small populated tree: /a (file, 3 pages, truncated to 2), /d (dir),
 * /d/b (file with a second name /c), /d/e (dir), /l (symlink).
 *   inodes: a=16, d=17, b=18, e=19, l=20 (with 1 stripe)
 */
static inline void img_populate(struct img *im)
{
	const uint64_t root = NOVA_ROOT_INO;
	uint64_t a = 16, d = 17, b = 18, e = 19, l = 20;
	struct nova_inode *pi;

	uint64_t blk;

	img_new_inode(im, a, S_IFREG | 0644, 1, 0);
	img_dentry(im, root, "a", a, 2, 8, 2);
	img_write(im, a, 0, 3, 3 * NOVA_BLOCK_SIZE, &blk);
	img_write(im, a, 1, 1, 3 * NOVA_BLOCK_SIZE, NULL);	/* overwrite */
	img_release(im, blk + 1, 1, true);
	img_truncate(im, a, 5000);
	img_release(im, blk + 2, 1, true);

	img_new_inode(im, d, S_IFDIR | 0755, 2, root);
	img_dentry(im, root, "d", d, 3, 4, 3);
	img_new_inode(im, b, S_IFREG | 0600, 1, 0);
	img_dentry(im, d, "b", b, 2, 8, 2);
	img_write(im, b, 0, 1, 100, NULL);
	img_dentry(im, root, "c", b, 3, 8, 4);
	img_link_change(im, b, 2);
	img_new_inode(im, e, S_IFDIR | 0700, 2, d);
	img_dentry(im, d, "e", e, 3, 4, 3);

	img_new_inode(im, l, S_IFLNK | 0777, 1, 0);
	pi = img_inode(im, l);
	pi->i_flags = cpu32(NOVA_INODE_INLINE_SYMLINK);
	pi->i_size = cpu64(6);
	memcpy(pi->i_inline, "target", 7);
	nova_inode_seal(pi);
	img_dentry(im, root, "l", l, 3, 10, 5);

	/* Removed names and a replaced one leave history in the logs. */
	img_dentry(im, root, "gone", a, 3, 8, 6);
	img_dentry(im, root, "gone", 0, 3, 0, 0);
	for (int i = 0; i < 70; i++)	/* enough to need a second page */
		img_dentry(im, d, "a-fairly-long-name-to-fill-the-log-page-quickly",
			   i % 2 ? 0 : b, 3, 8, 10 + (uint64_t)i);
	img_link_change(im, b, 2);
}

/* Run fsck on the image; returns the exit status, output to @out. */
static inline int img_fsck(struct img *im, enum fsck_mode mode, FILE *out)
{
	struct fsck_opts o = { .mode = mode, .force = true, .out = out };
	struct nova_dev d;
	FILE *null = NULL;
	int st;

	if (!out) {
		null = fopen("/dev/null", "w");
		o.out = null;
	}
	ndev_from_buffer(&d, im->buf, im->size);
	st = fsck_run(&d, &o);
	if (null)
		fclose(null);
	return st;
}

/* Run fsck and capture its report in a malloc'd string. */
static inline int img_fsck_report(struct img *im, enum fsck_mode mode,
				  char **report)
{
	size_t len = 0;
	FILE *out = open_memstream(report, &len);
	int st = img_fsck(im, mode, out);

	fclose(out);
	return st;
}

/* fsck in @mode: exit status @status, a report containing @want (NULL: any). */
static inline void img_expect(struct img *im, enum fsck_mode mode, int status,
			      const char *want)
{
	char *report = NULL;
	int st = img_fsck_report(im, mode, &report);

	if (st != status || (want && !strstr(report, want)))
		fail_msg("expected status %d and '%s', got %d:\n%s", status,
			 want ? want : "", st, report);
	free(report);
}

#endif

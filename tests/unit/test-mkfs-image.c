// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The image mkfs.NOVA writes: every structure the format requires of a
 * fresh file system, checked field by field, for several geometries; and
 * fsck.NOVA finds each of them clean.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "test-fsck-image.h"
#include "nova_plan.h"
#include "nova_reserved.h"

struct geo {
	uint64_t size;
	unsigned int cpus;
	uint32_t features;
};

static uint8_t *make(const struct geo *g, struct mkfs_layout *lay,
		     struct mkfs_params *pp)
{
	uint8_t *buf = calloc(1, g->size);
	struct mkfs_params p = {
		.size = g->size, .cpus = g->cpus, .features = g->features,
		.now = -86400 * 365, .now_nsec = 5,	/* 1969: negative */
		.uid = 1000, .gid = 100,
	};
	struct nova_dev d;
	struct nerr e;

	assert_non_null(buf);
	memcpy(p.uuid, "0123456789abcdef", 16);
	memcpy(p.label, "label", 5);
	ndev_from_buffer(&d, buf, g->size);
	if (nova_mkfs_write(&d, &p, lay, &e)) {
		fail_msg("mkfs: %s", e.msg);
	}
	if (pp)
		*pp = p;
	return buf;
}

static void check_super(const uint8_t *buf, const struct geo *g,
			const struct mkfs_layout *lay)
{
	const struct nova_super_block *sb = (const void *)buf;
	const struct nova_super_block *r = (const void *)(buf + g->size -
							  NOVA_BLOCK_SIZE);
	char why[128];

	assert_true(nova_sb_valid(sb, g->size, why, sizeof(why)));
	assert_memory_equal(sb, r, sizeof(*sb));
	assert_int_equal(le32(sb->s_magic), NOVA_SUPER_MAGIC);
	assert_int_equal(le16(sb->s_version_major), NOVA_FORMAT_MAJOR);
	/* 1.5 with xattr and range entries allowed, whatever the protection. */
	assert_int_equal(le16(sb->s_version_minor), NOVA_MKFS_MINOR);
	assert_true(le32(sb->s_feature_incompat) & NOVA_FEATURE_RANGE_OPS);
	assert_true(le32(sb->s_feature_incompat) & NOVA_FEATURE_XATTR);
	assert_int_equal(le32(sb->s_blocksize), NOVA_BLOCK_SIZE);
	assert_int_equal(le64(sb->s_size), g->size);
	assert_int_equal(le32(sb->s_cpus), g->cpus);
	assert_int_equal(le32(sb->s_state), NOVA_STATE_CLEAN);
	assert_memory_equal(sb->s_uuid, "0123456789abcdef", 16);
	assert_string_equal(sb->s_label, "label");
	assert_int_equal((int64_t)le64(sb->s_mkfs_time), -86400 * 365);
	assert_int_equal(le64(sb->s_log_pages), 0);
	assert_int_equal(le64(sb->s_data_pages), 0);
	assert_int_equal(le64(sb->s_free_blocks), lay->free_blocks);
	assert_int_equal(le64(sb->s_epoch_id), 0);
	assert_true(le64(sb->s_trans_id) > 0);
	/*
	 * Allocatable blocks: tables (and replicas), rings, state pages, the
	 * rest free.
	 */
	{
		struct nova_layout l;
		unsigned int copies = g->features & NOVA_FEATURE_META_REPLICA ?
				      2 : 1;

		nova_layout_compute(g->size / NOVA_BLOCK_SIZE, g->features, &l);
		assert_int_equal(lay->free_blocks,
				 l.alloc_end - l.alloc_start -
				 g->cpus * (copies * NOVA_INODE_TABLE_BLOCKS + 1) -
				 lay->state_pages);
	}
}

static void check_structures(const uint8_t *buf, const struct geo *g,
			     const struct mkfs_layout *lay)
{
	const struct nova_inode *root = (const void *)(buf +
		NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) + NOVA_ROOT_INO * NOVA_INODE_SIZE);
	const struct nova_inode *ai = root + 1, *snap = root + 2;
	unsigned int i;

	/* the root directory: valid, empty, no log yet */
	assert_int_equal(le64(root->i_valid), 1);
	assert_int_equal(le64(root->i_log_head), 0);
	assert_int_equal(le64(root->i_log_tail), 0);
	assert_int_equal(le32(root->i_csum), nova_inode_csum(root));
	assert_int_equal(le64(root->i_ino), NOVA_ROOT_INO);
	assert_true(S_ISDIR(le16(root->i_mode)));
	assert_int_equal(le32(root->i_nlink), 2);
	assert_int_equal(le64(root->i_parent), NOVA_ROOT_INO);
	assert_int_equal((int64_t)le64(root->i_crtime.sec), -86400 * 365);
	assert_int_equal(le32(root->i_crtime.nsec), 5);
	assert_int_equal(le32(root->i_uid), 1000);
	assert_int_equal(le32(root->i_gid), 100);
	assert_int_equal(le32(root->i_generation), 0);
	assert_int_equal(le64(root->i_create_trans), 0);
	/* inodes 2 and 3 as nova_reserved_inode() makes them */
	for (i = 0; i < 2; i++) {
		const struct nova_inode *pi = i ? snap : ai;

		assert_int_equal(le64(pi->i_valid), 1);
		assert_int_equal(le64(pi->i_ino), NOVA_ALLOC_INO + i);
		assert_int_equal(le16(pi->i_mode), 0100600);
		assert_int_equal(le32(pi->i_nlink), 1);
		assert_int_equal(le64(pi->i_parent), NOVA_ALLOC_INO + i);
		assert_int_equal(le32(pi->i_csum), nova_inode_csum(pi));
	}
	assert_int_equal(le64(snap->i_log_head), 0);
	/* the allocator state is the log of inode 2; trans ids from 2 on */
	assert_int_not_equal(le64(ai->i_log_head), 0);
	assert_int_equal(le64(ai->i_log_head) % NOVA_BLOCK_SIZE, 0);
	{
		const struct nova_free_ranges_entry *fr = (const void *)(buf +
			le64(ai->i_log_head));

		assert_int_equal(fr->hdr.e_type, NOVA_LOG_FREE_RANGES);
		assert_int_equal(le64(fr->hdr.e_trans_id), 2);
		assert_int_equal(le64(((const struct nova_super_block *)buf)->s_trans_id),
				 2 + lay->state_pages);
	}
	/* nothing else reserved is in use */
	for (i = NOVA_SNAPSHOT_INO + 1; i < NOVA_RESERVED_INODES; i++)
		assert_int_equal(le64(root[i - 1].i_valid), 0);
	assert_int_equal(le64(root[-1].i_valid), 0);	/* inode 0 */

	for (i = 0; i < g->cpus; i++) {
		const struct nova_journal_ptr *jp = (const struct nova_journal_ptr *)
			(buf + NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK)) + i;
		const struct nova_inode_table *it = (const struct nova_inode_table *)
			(buf + NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK)) + i;
		const struct nova_inode_table_tail *itt = (const void *)(buf +
			NOVA_OFF(le64(it->it_head)) + NOVA_ITT_OFF);

		assert_int_equal(le32(jp->j_cpu), i);
		assert_int_equal(le64(jp->j_block), lay->journal[i]);
		assert_int_equal(le64(jp->j_head), NOVA_OFF(lay->journal[i]));
		assert_int_equal(le64(jp->j_tail), NOVA_OFF(lay->journal[i]));
		assert_int_equal(le32(jp->j_csum), nova_jp_csum(jp));
		assert_int_equal(le32(it->it_cpu), i);
		assert_int_equal(le64(it->it_head), lay->table[i]);
		assert_int_equal(le32(it->it_csum), nova_it_csum(it));
		assert_int_equal(le32(itt->itt_cpu), i);
		assert_int_equal(le64(itt->itt_index), 0);
		assert_int_equal(le64(itt->itt_next), 0);
		assert_int_equal(le32(itt->itt_csum), nova_itt_csum(itt));
	}
	/* records past s_cpus are zero */
	for (i = g->cpus * 64; i < NOVA_BLOCK_SIZE; i++) {
		assert_int_equal(buf[NOVA_OFF(NOVA_JOURNAL_PTR_BLOCK) + i], 0);
		assert_int_equal(buf[NOVA_OFF(NOVA_INODE_TABLE_PTR_BLOCK) + i], 0);
	}
}

static void check_geometry(const struct geo *g)
{
	struct mkfs_layout lay;
	struct img im = { 0 };
	uint8_t *buf = make(g, &lay, NULL);
	char *report = NULL;
	int st;

	check_super(buf, g, &lay);
	check_structures(buf, g, &lay);
	im.buf = buf;
	im.size = g->size;
	im.nblocks = g->size / NOVA_BLOCK_SIZE;
	st = img_fsck_report(&im, FSCK_NO_CHANGES, &report);
	if (st)
		fail_msg("fsck of %llu bytes, %u stripes, features %#x: status %d\n%s",
			 (unsigned long long)g->size, g->cpus, g->features, st,
			 report);
	free(report);
	free(buf);
}

#define PROT	(NOVA_FEATURE_PROT_ALL)

static void test_geometries(void **state)
{
	static const struct geo geos[] = {
		{ 8 << 20, 1, 0 },		/* the minimum */
		{ 8 << 20, 1, NOVA_FEATURE_DATA_CSUM },
		{ 16 << 20, 2, 0 },
		{ 16 << 20, 7, 0 },		/* nearly full of tables */
		{ 64 << 20, 4, PROT },
		{ (160 << 20) + 4096 * 3, 2, PROT },	/* odd size */
		{ 200 << 20, 64, 0 },		/* NOVA_MAX_CPUS */
		{ 300 << 20, 64, PROT },	/* with their replicas */
		{ 256 << 20, 3, NOVA_FEATURE_DATA_CSUM | NOVA_FEATURE_META_REPLICA },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(geos) / sizeof(geos[0]); i++)
		check_geometry(&geos[i]);
}

/*
 * The format plan (uapi/nova_plan.h) that mkfs and the kernel share: the
 * rings, tables, replicas and free space tile the allocatable blocks
 * exactly, in the documented order.
 */
static void check_plan(uint64_t nblocks, unsigned int cpus, uint32_t features)
{
	struct nova_format_plan p;
	uint64_t tables = (uint64_t)cpus * NOVA_INODE_TABLE_BLOCKS;
	unsigned int i;

	assert_int_equal(nova_format_plan(nblocks, cpus, features, &p),
			 NOVA_PLAN_FINE);
	assert_int_equal(p.journals, p.layout.alloc_start);
	for (i = 0; i < cpus; i++) {
		assert_int_equal(nova_plan_journal(&p, i), p.journals + i);
		assert_int_equal(nova_plan_table(&p, i),
				 p.journals + cpus + (uint64_t)i * NOVA_INODE_TABLE_BLOCKS);
		if (features & NOVA_FEATURE_META_REPLICA)
			assert_int_equal(nova_plan_table_replica(&p, i),
					 p.layout.alloc_end -
					 (uint64_t)(i + 1) * NOVA_INODE_TABLE_BLOCKS);
		else
			assert_int_equal(nova_plan_table_replica(&p, i), 0);
	}
	assert_int_equal(p.free_start, p.journals + cpus + tables);
	assert_int_equal(p.free_end, p.layout.alloc_end -
			 (features & NOVA_FEATURE_META_REPLICA ? tables : 0));
	assert_true(p.free_end >= p.free_start + 2);
	assert_int_equal(nova_plan_state_page(&p), p.free_start);
}

static void test_plan(void **state)
{
	struct nova_format_plan p;

	(void)state;
	check_plan(NOVA_MIN_BLOCKS, 1, 0);
	check_plan(NOVA_MIN_BLOCKS * 2, 1, PROT);
	check_plan(51200, 3, PROT);
	check_plan(51200, 64, 0);
	check_plan(1ULL << 30, 64, PROT);
	/* too small, and why */
	assert_int_equal(nova_format_plan(51200, 0, 0, &p), NOVA_PLAN_BAD_CPUS);
	assert_int_equal(nova_format_plan(51200, NOVA_MAX_CPUS + 1, 0, &p),
			 NOVA_PLAN_BAD_CPUS);
	assert_int_equal(nova_format_plan(NOVA_MIN_BLOCKS - 1, 1, 0, &p),
			 NOVA_PLAN_NO_AREA);
	assert_int_equal(nova_format_plan(NOVA_MIN_BLOCKS, 2, PROT, &p),
			 NOVA_PLAN_NO_ROOM);
	assert_int_equal(nova_format_plan(NOVA_MIN_BLOCKS, 4, 0, &p),
			 NOVA_PLAN_NO_ROOM);
}

/* mkfs says why a device is too small for its stripes. */
static void test_stripes_too_small(void **state)
{
	uint64_t size = 16 << 20;
	uint8_t *buf = calloc(1, size);
	struct mkfs_params p = { .size = size, .cpus = 4, .features = PROT };
	struct nova_dev d;
	struct nerr e;

	(void)state;
	ndev_from_buffer(&d, buf, size);
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "too few for 4 CPU stripes"));
	free(buf);
}

/* Same parameters, same image; metadata sits where the plan puts it. */
static void test_deterministic_layout(void **state)
{
	struct geo g = { 32 << 20, 2, 0 };
	struct mkfs_layout l1, l2;
	uint8_t *a = make(&g, &l1, NULL), *b = make(&g, &l2, NULL);

	(void)state;
	assert_memory_equal(a, b, g.size);
	assert_int_equal(l1.journal[0], NOVA_FIRST_ALLOC_BLOCK);
	assert_int_equal(l1.journal[1], NOVA_FIRST_ALLOC_BLOCK + 1);
	assert_int_equal(l1.table[0], NOVA_FIRST_ALLOC_BLOCK + 2);
	assert_int_equal(l1.table[1], NOVA_FIRST_ALLOC_BLOCK + 2 + NOVA_INODE_TABLE_BLOCKS);
	assert_int_equal(l1.state_pages, 1);
	assert_int_equal(l1.free_ranges, 1);
	free(a);
	free(b);
}

/*
 * The shared state-page builder (uapi/nova_state.h): the page the kernel,
 * mkfs and fsck write for @k ranges is a sealed entry, zeroes after it
 * and a sealed tail linking to the next page.
 */
static void check_state_page(unsigned int k, uint64_t next)
{
	uint8_t page[NOVA_BLOCK_SIZE];
	struct nova_range r[NOVA_RANGES_PER_ENTRY];
	const struct nova_free_ranges_entry *fr = (const void *)page;
	const struct nova_log_page_tail *lt = (const void *)(page +
							     NOVA_LOG_DATA_SIZE);
	unsigned int i, size;

	for (i = 0; i < k; i++) {
		r[i].r_start = cpu64(100 + 10 * i);
		r[i].r_len = cpu64(i + 1);
	}
	memset(page, 0xa5, sizeof(page));
	size = nova_state_page_fill(page, r, k, 7, 42, next);
	assert_int_equal(size, nova_free_ranges_size(k));
	assert_int_equal(nova_entry_expected_size(fr), size);
	assert_int_equal(fr->hdr.e_type, NOVA_LOG_FREE_RANGES);
	assert_int_equal(fr->hdr.e_flags, 0);
	assert_int_equal(le16(fr->hdr.e_size), size);
	assert_int_equal(le64(fr->hdr.e_epoch_id), 7);
	assert_int_equal(le64(fr->hdr.e_trans_id), 42);
	assert_int_equal(le32(fr->hdr.e_csum), nova_entry_csum(fr, size));
	assert_int_equal(le32(fr->fr_count), k);
	if (k)
		assert_memory_equal(fr->fr_ranges, r, k * sizeof(r[0]));
	for (i = size; i < NOVA_LOG_DATA_SIZE; i++)
		assert_int_equal(page[i], 0);
	assert_int_equal(le64(lt->lt_next), NOVA_OFF(next));
	assert_int_equal(le32(lt->lt_valid), 1);
	assert_int_equal(le32(lt->lt_entries), 1);
	assert_int_equal(le64(lt->lt_ino), NOVA_ALLOC_INO);
	assert_int_equal(le32(lt->lt_magic), NOVA_LOG_PAGE_MAGIC);
	assert_int_equal(le64(lt->lt_replica), 0);
	assert_int_equal(le32(lt->lt_csum), nova_lt_csum(lt));
	for (i = 0; i < 3; i++)
		assert_int_equal(lt->lt_reserved[i], 0);
}

static void test_state_page_fill(void **state)
{
	(void)state;
	check_state_page(0, 0);
	check_state_page(1, 0);
	check_state_page(17, 5000);
	check_state_page(NOVA_RANGES_PER_ENTRY, 123456789);
	/* A full page: the entry fills the data area, no pad byte. */
	assert_int_equal(nova_free_ranges_size(NOVA_RANGES_PER_ENTRY),
			 NOVA_LOG_DATA_SIZE);
}

/* mkfs writes each state page exactly as the builder makes it. */
static void test_state_pages_built(void **state)
{
	struct geo g = { 64 << 20, 2, PROT };
	struct mkfs_layout lay;
	uint8_t *buf = make(&g, &lay, NULL), page[NOVA_BLOCK_SIZE];
	const struct nova_inode *ai = (const void *)(buf +
		NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) + NOVA_ALLOC_INO * NOVA_INODE_SIZE);
	uint64_t off = le64(ai->i_log_head), pages = 0;

	(void)state;
	while (off) {
		const struct nova_free_ranges_entry *fr = (const void *)(buf + off);
		const struct nova_log_page_tail *lt = (const void *)(buf + off +
							NOVA_LOG_DATA_SIZE);

		nova_state_page_fill(page, fr->fr_ranges, le32(fr->fr_count),
				     le64(fr->hdr.e_epoch_id),
				     le64(fr->hdr.e_trans_id),
				     NOVA_BLOCK(le64(lt->lt_next)));
		assert_memory_equal(buf + off, page, NOVA_BLOCK_SIZE);
		off = le64(lt->lt_next);
		pages++;
	}
	assert_int_equal(pages, lay.state_pages);
	free(buf);
}

/*
 * The shared reserved-inode builder (uapi/nova_reserved.h) against the
 * three layouts it replaced, copied here field by field as they were:
 * the kernel's nova_reserved_inode() (format), its nova_quota_create()
 * and mkfs.NOVA's make_reserved(). Same bytes, checksum included.
 */
struct old_inputs {
	uint64_t ino;
	uint16_t mode;
	uint32_t nlink, uid, gid;
	int64_t sec;
	uint32_t nsec;
	uint64_t trans;
};

/* module/super.c nova_reserved_inode(), cpu_to_le*() being htole*(). */
static void old_kernel_format(struct nova_inode *t, const struct old_inputs *in)
{
	memset(t, 0, sizeof(*t));
	t->i_valid = cpu64(1);
	t->i_ino = cpu64(in->ino);
	t->i_mode = cpu16(in->mode);
	t->i_uid = cpu32(in->uid);
	t->i_gid = cpu32(in->gid);
	t->i_nlink = cpu32(in->nlink);
	t->i_parent = cpu64(in->ino);
	/* nova_ts_to_media() */
	t->i_atime.sec = cpu64((uint64_t)in->sec);
	t->i_atime.nsec = cpu32(in->nsec);
	t->i_mtime = t->i_atime;
	t->i_ctime = t->i_atime;
	t->i_crtime = t->i_atime;
	t->i_csum = cpu32(nova_inode_csum(t));
}

/* module/quota.c nova_quota_create(). */
static void old_kernel_quota(struct nova_inode *t, const struct old_inputs *in)
{
	memset(t, 0, sizeof(*t));
	t->i_ino = cpu64(in->ino);
	t->i_mode = cpu16(S_IFREG | 0600);
	t->i_nlink = cpu32(1);
	t->i_create_trans = cpu64(in->trans);
	t->i_atime.sec = cpu64((uint64_t)in->sec);
	t->i_atime.nsec = cpu32(in->nsec);
	t->i_mtime = t->i_atime;
	t->i_ctime = t->i_atime;
	t->i_crtime = t->i_atime;
	t->i_csum = cpu32(nova_inode_csum(t));
}

/* tools/mkfs_image.c make_reserved(). */
static void old_mkfs(struct nova_inode *pi, const struct old_inputs *in)
{
	struct nova_timespec ts = {
		.sec = cpu64((uint64_t)in->sec), .nsec = cpu32(in->nsec),
	};

	memset(pi, 0, sizeof(*pi));
	pi->i_valid = cpu64(1);
	pi->i_ino = cpu64(in->ino);
	pi->i_mode = cpu16(in->mode);
	pi->i_uid = cpu32(in->uid);
	pi->i_gid = cpu32(in->gid);
	pi->i_nlink = cpu32(in->nlink);
	pi->i_parent = cpu64(in->ino);
	pi->i_atime = ts;
	pi->i_mtime = ts;
	pi->i_ctime = ts;
	pi->i_crtime = ts;
	nova_inode_seal(pi);
}

static void test_reserved_inode_fill(void **state)
{
	static const struct old_inputs ins[] = {
		{ NOVA_ROOT_INO, S_IFDIR | 0755, 2, 0, 0, 1733000000, 123456789, 0 },
		{ NOVA_ALLOC_INO, S_IFREG | 0600, 1, 1000, 100, -86400 * 365, 5, 0 },
		{ NOVA_SNAPSHOT_INO, S_IFREG | 0600, 1, 4294967294u, 65534, 0, 999999999, 0 },
		{ NOVA_USR_QUOTA_INO, S_IFREG | 0600, 1, 0, 0, 1733000001, 1, 77 },
		{ NOVA_GRP_QUOTA_INO, S_IFREG | 0600, 1, 0, 0, -1, 0, 1ULL << 40 },
	};
	struct nova_inode old, built, fresh;
	unsigned int i;

	(void)state;
	assert_int_equal(sizeof(old), NOVA_INODE_SIZE);
	for (i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
		const struct old_inputs *in = &ins[i];
		struct nova_reserved_attrs fmt = {
			.mode = in->mode, .nlink = in->nlink, .uid = in->uid,
			.gid = in->gid, .parent = in->ino,
			.sec = (uint64_t)in->sec, .nsec = in->nsec, .live = 1,
		};
		struct nova_reserved_attrs quota = {
			.mode = S_IFREG | 0600, .nlink = 1,
			.create_trans = in->trans,
			.sec = (uint64_t)in->sec, .nsec = in->nsec,
		};

		/* Whatever the buffer held before, the builder sets it all. */
		memset(&built, 0xa5, sizeof(built));
		nova_reserved_inode_fill(&built, in->ino, &fmt);
		old_kernel_format(&old, in);
		assert_memory_equal(&built, &old, NOVA_INODE_SIZE);
		old_mkfs(&old, in);
		assert_memory_equal(&built, &old, NOVA_INODE_SIZE);
		assert_int_equal(le32(built.i_csum), nova_inode_csum(&built));

		memset(&built, 0x5a, sizeof(built));
		nova_reserved_inode_fill(&built, in->ino, &quota);
		old_kernel_quota(&old, in);
		assert_memory_equal(&built, &old, NOVA_INODE_SIZE);
		assert_int_equal(le64(built.i_valid), 0);
		/* The checksum does not cover i_valid: publishing keeps it. */
		fresh = built;
		fresh.i_valid = cpu64(1);
		assert_int_equal(le32(fresh.i_csum), nova_inode_csum(&fresh));
	}
}

/* mkfs writes the reserved inodes exactly as the builder makes them. */
static void test_reserved_inodes_built(void **state)
{
	static const struct { uint64_t ino; uint16_t mode; uint32_t nlink; }
	want[] = {
		{ NOVA_ROOT_INO, S_IFDIR | 0755, 2 },
		{ NOVA_ALLOC_INO, S_IFREG | 0600, 1 },
		{ NOVA_SNAPSHOT_INO, S_IFREG | 0600, 1 },
	};
	struct geo g = { 64 << 20, 2, PROT };
	struct mkfs_layout lay;
	struct mkfs_params p;
	uint8_t *buf = make(&g, &lay, &p);
	struct nova_inode slot;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct nova_inode *pi = (const void *)(buf +
			NOVA_OFF(NOVA_RESERVED_INODE_BLOCK) +
			want[i].ino * NOVA_INODE_SIZE);
		struct nova_reserved_attrs a = {
			.mode = want[i].mode, .nlink = want[i].nlink,
			.uid = p.uid, .gid = p.gid, .parent = want[i].ino,
			.sec = (uint64_t)p.now, .nsec = p.now_nsec, .live = 1,
		};

		nova_reserved_inode_fill(&slot, want[i].ino, &a);
		/* The saved allocator state is the one later change. */
		if (want[i].ino == NOVA_ALLOC_INO) {
			slot.i_log_head = pi->i_log_head;
			slot.i_log_tail = pi->i_log_tail;
			assert_int_not_equal(le64(slot.i_log_head), 0);
		}
		assert_memory_equal(pi, &slot, NOVA_INODE_SIZE);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_geometries),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_stripes_too_small),
		cmocka_unit_test(test_deterministic_layout),
		cmocka_unit_test(test_state_page_fill),
		cmocka_unit_test(test_state_pages_built),
		cmocka_unit_test(test_reserved_inode_fill),
		cmocka_unit_test(test_reserved_inodes_built),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

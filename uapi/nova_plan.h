/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA format plan: where a fresh file system puts each structure, written
 * once for the kernel module ("mount -o init", nova_format() in
 * module/super.c) and mkfs.NOVA (tools/mkfs_image.c). Both place the
 * structures at the blocks nova_format_plan() gives, so they write the
 * same image whatever CPU the mount runs on and however many free lists
 * the kernel keeps. Where things go is not part of the format (every
 * reader finds them through the superblock, blocks 2 and 3 and the
 * pointers in them): an image placed otherwise, by an older mkfs.NOVA or
 * kernel, is just as valid.
 *
 * The allocatable blocks [alloc_start, alloc_end) (nova_layout_compute())
 * of a device of n stripes (s_cpus) are, from low to high:
 *   n journal rings (one block each, stripe 0 first)
 *   n inode tables (NOVA_INODE_TABLE_BLOCKS each, stripe 0 first)
 *   free space [free_start, free_end)
 *   with META_REPLICA, n inode-table replicas, stripe 0's at the top
 * The reserved inodes have no log pages yet. At the first clean unmount
 * the allocator state takes its pages from the lowest free blocks and
 * saves what is left as maximal free runs (uapi/nova_state.h), so a fresh
 * file system's saved state is one page, block free_start, holding the
 * one range [free_start + 1, free_end): what mkfs.NOVA writes.
 */
#ifndef NOVA_PLAN_H
#define NOVA_PLAN_H

#include "nova_format.h"

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

/* Why a device cannot hold a file system (nova_format_plan()). */
enum nova_plan_problem {
	NOVA_PLAN_FINE,
	NOVA_PLAN_BAD_CPUS,		/* stripes not 1..NOVA_MAX_CPUS */
	NOVA_PLAN_NO_AREA,		/* protection areas leave too little */
	NOVA_PLAN_NO_ROOM,		/* no room for the stripes */
};

struct nova_format_plan {
	struct nova_layout layout;
	__u32	cpus;			/* stripes */
	__u32	incompat;		/* features the layout was made for */
	__u64	journals;		/* stripe 0's ring, the others follow */
	__u64	tables;			/* stripe 0's table, the others follow */
	__u64	replicas;		/* past stripe 0's replica, 0 none */
	__u64	free_start, free_end;	/* the free blocks after format */
};

/*
 * Fewest allocatable blocks a file system keeps besides its stripes (so
 * that it can be mounted and written at all), as the kernel has always
 * required.
 */
#define NOVA_PLAN_MIN_ALLOC	(NOVA_MIN_BLOCKS / 2)

/*
 * The plan for a device of @nblocks blocks, @cpus stripes and features
 * @incompat (what s_feature_incompat will hold). Pure: no allocation, no
 * I/O. Returns NOVA_PLAN_FINE, or why the device is too small.
 */
static inline enum nova_plan_problem
nova_format_plan(__u64 nblocks, __u32 cpus, __u32 incompat,
		 struct nova_format_plan *p)
{
	__u64 tables = (__u64)cpus * NOVA_INODE_TABLE_BLOCKS, avail, need;
	int replicas = !!(incompat & NOVA_FEATURE_META_REPLICA);

	memset(p, 0, sizeof(*p));
	p->cpus = cpus;
	p->incompat = incompat;
	if (cpus < 1 || cpus > NOVA_MAX_CPUS)
		return NOVA_PLAN_BAD_CPUS;
	if (nblocks < NOVA_MIN_BLOCKS)
		return NOVA_PLAN_NO_AREA;
	nova_layout_compute(nblocks, incompat, &p->layout);
	avail = p->layout.alloc_end > p->layout.alloc_start ?
		p->layout.alloc_end - p->layout.alloc_start : 0;
	if (avail < NOVA_PLAN_MIN_ALLOC)
		return NOVA_PLAN_NO_AREA;
	/* rings, tables, replicas, a state page and one free block */
	need = cpus + tables * (replicas ? 2 : 1) + 2;
	if (avail < need)
		return NOVA_PLAN_NO_ROOM;
	p->journals = p->layout.alloc_start;
	p->tables = p->journals + cpus;
	p->free_start = p->tables + tables;
	p->free_end = p->layout.alloc_end - (replicas ? tables : 0);
	p->replicas = replicas ? p->layout.alloc_end : 0;
	return NOVA_PLAN_FINE;
}

/* Stripe @cpu's journal ring. */
static inline __u64 nova_plan_journal(const struct nova_format_plan *p,
				      unsigned int cpu)
{
	return p->journals + cpu;
}

/* Stripe @cpu's first inode-table block (NOVA_INODE_TABLE_BLOCKS). */
static inline __u64 nova_plan_table(const struct nova_format_plan *p,
				    unsigned int cpu)
{
	return p->tables + (__u64)cpu * NOVA_INODE_TABLE_BLOCKS;
}

/* Its replica (META_REPLICA), from the high end down; 0 without one. */
static inline __u64 nova_plan_table_replica(const struct nova_format_plan *p,
					    unsigned int cpu)
{
	if (!p->replicas)
		return 0;
	return p->replicas - (__u64)(cpu + 1) * NOVA_INODE_TABLE_BLOCKS;
}

/*
 * What the first clean unmount saves (see above): the state page, and
 * the one free range it holds, [saved_start, free_end).
 */
static inline __u64 nova_plan_state_page(const struct nova_format_plan *p)
{
	return p->free_start;
}

static inline __u64 nova_plan_saved_start(const struct nova_format_plan *p)
{
	return p->free_start + 1;
}

#endif /* NOVA_PLAN_H */

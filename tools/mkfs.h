/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mkfs.NOVA internals: building the initial image (mkfs_image.c) and the
 * validation of what the user asked for (mkfs_opts.c).
 */
#ifndef NOVA_TOOLS_MKFS_H
#define NOVA_TOOLS_MKFS_H

#include <stdbool.h>
#include <stdint.h>

#include "dev.h"
#include "nova_format.h"

struct mkfs_params {
	uint64_t size;			/* bytes to format, block multiple */
	unsigned int cpus;		/* s_cpus: per-CPU stripes */
	uint8_t uuid[16];
	char label[NOVA_LABEL_LEN];	/* NUL-padded, need not end in NUL */
	int64_t now;			/* seconds since the epoch */
	uint32_t now_nsec;
	uint32_t uid, gid;		/* owner of the root directory */
	uint32_t features;		/* s_feature_incompat (protection) */
};

/* What was written, for messages and tests. */
struct mkfs_layout {
	uint64_t nblocks;
	uint64_t journal[NOVA_MAX_CPUS];	/* block of each ring */
	uint64_t table[NOVA_MAX_CPUS];		/* first table block */
	uint64_t state_pages;
	uint64_t free_blocks;
	uint64_t free_ranges;
};

/*
 * Write a fresh NOVA file system of p->size bytes to @d: what the kernel's
 * "mount -o init" writes followed by a clean unmount, every structure
 * where the shared format plan puts it (uapi/nova_plan.h). Returns 0 or a
 * negative errno with a message in @e.
 */
int nova_mkfs_write(struct nova_dev *d, const struct mkfs_params *p,
		    struct mkfs_layout *out, struct nerr *e);

/* Smallest number of blocks that holds @cpus stripes (and NOVA_MIN_BLOCKS). */
uint64_t nova_mkfs_min_blocks(unsigned int cpus);

/* ---- options (mkfs_opts.c) ---- */

struct mkfs_opts {
	const char *device;
	const char *label;		/* NULL: none */
	const char *uuid;		/* NULL or "random": random */
	long cpus;			/* 0: this machine's CPU count */
	bool force;			/* -f */
	bool dry_run;			/* -n */
	bool quiet;			/* -q */
	const char *protection;		/* -p all|csum|off, NULL: all */
	const char *features;		/* -O alloc_bitmap, NULL: none */
	uint64_t size;			/* -s: bytes to use, 0: the device */
};

/*
 * Parse argv into @o. Returns 0, -EINVAL for a usage error (message in
 * @e), 1 for -h and 2 for -V (the caller prints help or version).
 */
int mkfs_parse_args(int argc, char **argv, struct mkfs_opts *o,
		    struct nerr *e);

/*
 * Parse a size as -s takes it: a decimal number of bytes with an optional
 * suffix k, m, g or t (powers of 1024, either case). 0 or -EINVAL.
 */
int mkfs_parse_size(const char *s, uint64_t *out);

/* Check the options and fill @p (except size). 0 or -EINVAL with @e. */
int mkfs_make_params(const struct mkfs_opts *o, struct mkfs_params *p,
		     struct nerr *e);

/*
 * May @d be formatted with @p? Refuses another file system's signature
 * (unless o->force; *sig tells which was found, if any) and a device too
 * small for p->cpus stripes. Sets p->size. 0, -EEXIST or -ENOSPC with @e.
 */
int mkfs_check_device(struct nova_dev *d, const struct mkfs_opts *o,
		      struct mkfs_params *p, const char **sig,
		      struct nerr *e);

/* Parse a UUID "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
int nova_parse_uuid(const char *s, uint8_t uuid[16]);
void nova_format_uuid(const uint8_t uuid[16], char out[37]);
int nova_random_bytes(void *buf, size_t len);
int nova_uuid_from_arg(const char *arg, uint8_t uuid[16], struct nerr *e);

#endif

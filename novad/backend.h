/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad job backend: what snapshot and scrub jobs need from the kernel,
 * as a small interface. genl_backend.c implements it over the nova
 * family; the unit tests implement it with a test double.
 *
 * Every operation returns 0 or a negative errno and fills E. An
 * unavailable operation returns -EOPNOTSUPP; the *_unavailable() hooks
 * say up front (NULL: available; otherwise the reason, for the journal
 * and STATUS=) so the daemon does not schedule what cannot run.
 */
#ifndef NOVAD_BACKEND_H
#define NOVAD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "libnova.h"
#include "sched.h"

/* The file system a job works on. */
struct novad_fs_ref {
	uint64_t dev;
	uint8_t uuid[NOVA_GENL_UUID_LEN];
	const char *bdev;		/* "pmem0" */
	const char *mountpoint;		/* may be NULL */
};

struct novad_backend_ops {
	const char *(*snapshot_unavailable)(void *ctx);
	const char *(*scrub_unavailable)(void *ctx);
	/* Create snapshot NAME; -EEXIST if a snapshot has that name. */
	int (*snapshot_create)(void *ctx, const struct novad_fs_ref *fs,
			       const char *name, uint64_t *id,
			       struct nova_err *e);
	/* All snapshots of FS; *LIST is malloc'ed. */
	int (*snapshot_list)(void *ctx, const struct novad_fs_ref *fs,
			     struct novad_snap **list, size_t *n,
			     struct nova_err *e);
	int (*snapshot_delete)(void *ctx, const struct novad_fs_ref *fs,
			       uint64_t id, struct nova_err *e);
	/* Start a scrub limited to BANDWIDTH bytes/s (0: unlimited). */
	int (*scrub_start)(void *ctx, const struct novad_fs_ref *fs,
			   uint64_t bandwidth, struct nova_err *e);
};

struct novad_backend {
	const struct novad_backend_ops *ops;
	void *ctx;
};

#endif /* NOVAD_BACKEND_H */

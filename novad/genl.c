// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad genl glue (see genl.h).
 *
 * Snapshot jobs go through libnova's NOVA_CMD_SNAPSHOT_* calls. A file
 * system is addressed by its UUID, not its device number: between the
 * moment novad learnt of it and the request, the device could have been
 * unmounted and another file system mounted there; by UUID the request
 * either reaches the file system novad means or fails with -ENODEV.
 * Whether the kernel offers the commands is read from the family's op
 * list at start (a novad on an older nova.ko says the kernel lacks them
 * and schedules nothing). Every request is synchronous on the request
 * socket; notifications arrive on the other one (genl.h).
 *
 * Scrub jobs: NOVA_CMD_SCRUB_START with the bandwidth limit, addressed
 * by UUID like the snapshot commands. A paused pass is resumed (not
 * restarted), a running one is refused by the kernel (-EALREADY, which
 * jobs.c treats as "nothing to do"). A nova.ko without the scrub
 * commands makes the backend say so up front (scrub_unavailable) and
 * from scrub_start (-EOPNOTSUPP); novad never claims a scrub happened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genl.h"

static int backend_unsupported(const char *why, struct nova_err *e)
{
	nova_err_set(e, -EOPNOTSUPP, "%s", why);
	return -EOPNOTSUPP;
}

static const char *g_snapshot_unavailable(void *ctx)
{
	struct novad_genl *g = ctx;

	return g->snapshot_why[0] ? g->snapshot_why : NULL;
}

static const char *g_scrub_unavailable(void *ctx)
{
	struct novad_genl *g = ctx;

	return g->scrub_why[0] ? g->scrub_why : NULL;
}

/* The selector for FS: by UUID (see the top of this file). */
static void fs_sel(const struct novad_fs_ref *fs, struct nova_sel *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->kind = NOVA_SEL_UUID;
	memcpy(sel->uuid, fs->uuid, sizeof(sel->uuid));
}

static int g_snapshot_create(void *ctx, const struct novad_fs_ref *fs,
			     const char *name, uint64_t *id, struct nova_err *e)
{
	struct novad_genl *g = ctx;
	struct nova_snapshot_rec sn;
	struct nova_sel sel;
	int r;

	if (g->snapshot_why[0])
		return backend_unsupported(g->snapshot_why, e);
	fs_sel(fs, &sel);
	r = nova_req_snapshot_create(g->req, &sel, name, &sn, e);
	if (r)
		return r;
	*id = sn.snap_id;
	return 0;
}

static int g_snapshot_list(void *ctx, const struct novad_fs_ref *fs,
			   struct novad_snap **list, size_t *n,
			   struct nova_err *e)
{
	struct novad_genl *g = ctx;
	struct nova_snapshot_rec *ks = NULL;
	struct novad_snap *out;
	struct nova_sel sel;
	size_t kn = 0;
	int r;

	*list = NULL;
	*n = 0;
	if (g->snapshot_why[0])
		return backend_unsupported(g->snapshot_why, e);
	fs_sel(fs, &sel);
	r = nova_req_snapshot_list(g->req, &sel, &ks, &kn, e);
	if (r)
		return r;
	out = calloc(kn ? kn : 1, sizeof(*out));
	if (!out) {
		free(ks);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < kn; i++) {
		out[i].id = ks[i].snap_id;
		snprintf(out[i].name, sizeof(out[i].name), "%s", ks[i].name);
		out[i].ctime = (int64_t)(ks[i].ctime_ns / 1000000000ull);
	}
	free(ks);
	*list = out;
	*n = kn;
	return 0;
}

static int g_snapshot_delete(void *ctx, const struct novad_fs_ref *fs,
			     uint64_t id, struct nova_err *e)
{
	struct novad_genl *g = ctx;
	struct nova_snapshot_rec sn;
	struct nova_sel sel;

	if (g->snapshot_why[0])
		return backend_unsupported(g->snapshot_why, e);
	fs_sel(fs, &sel);
	return nova_req_snapshot_delete(g->req, &sel, id, NULL, false, &sn, e);
}

static int g_scrub_start(void *ctx, const struct novad_fs_ref *fs,
			 uint64_t bandwidth, struct nova_err *e)
{
	struct novad_genl *g = ctx;
	struct nova_scrub_info si;
	struct nova_sel sel;

	if (g->scrub_why[0])
		return backend_unsupported(g->scrub_why, e);
	fs_sel(fs, &sel);
	return nova_req_scrub_start(g->req, &sel, true, bandwidth, false, &si, e);
}

static const struct novad_backend_ops genl_backend_ops = {
	.snapshot_unavailable	= g_snapshot_unavailable,
	.scrub_unavailable	= g_scrub_unavailable,
	.snapshot_create	= g_snapshot_create,
	.snapshot_list		= g_snapshot_list,
	.snapshot_delete	= g_snapshot_delete,
	.scrub_start		= g_scrub_start,
};

struct novad_backend novad_genl_backend(struct novad_genl *g)
{
	return (struct novad_backend){ .ops = &genl_backend_ops, .ctx = g };
}

void novad_genl_ops_string(const struct novad_genl *g, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < 256 && o + 5 < len; c++)
		if (nova_family_has_cmd(&g->ops, (uint8_t)c))
			o += (size_t)snprintf(buf + o, len - o, "%s%u",
					      o ? "," : "", c);
}

/* Commands beyond the ones this novad knows: someone is ahead of us. */
static unsigned int unknown_cmds(const struct novad_genl *g)
{
	unsigned int n = 0;

	for (unsigned int c = NOVA_CMD_MAX + 1; c < 256; c++)
		n += nova_family_has_cmd(&g->ops, (uint8_t)c);
	return n;
}

int novad_genl_open(struct novad_genl *g, struct nova_err *e)
{
	unsigned int newer;
	int r;

	memset(g, 0, sizeof(*g));
	r = nova_ipc_open(&g->req, e);
	if (r) {
		g->no_family = r == -ENOENT;
		return r;
	}
	r = nova_family_ops_get(g->req, &g->ops, e);
	if (r)
		goto fail;
	g->have_stats = nova_family_has_cmd(&g->ops, NOVA_CMD_STATS_GET);
	newer = unknown_cmds(g);
	if (!nova_family_has_cmd(&g->ops, NOVA_CMD_SNAPSHOT_CREATE) ||
	    !nova_family_has_cmd(&g->ops, NOVA_CMD_SNAPSHOT_DELETE) ||
	    !nova_family_has_cmd(&g->ops, NOVA_CMD_SNAPSHOT_LIST))
		snprintf(g->snapshot_why, sizeof(g->snapshot_why),
			 "the loaded nova.ko offers no snapshot commands (protocol version %u%s)",
			 nova_ipc_family_version(g->req),
			 newer ? "; it offers newer commands: rebuild novad" : "");
	if (!nova_family_has_cmd(&g->ops, NOVA_CMD_SCRUB_START))
		snprintf(g->scrub_why, sizeof(g->scrub_why),
			 "the loaded nova.ko offers no scrub commands (protocol version %u%s)",
			 nova_ipc_family_version(g->req),
			 newer ? "; it offers newer commands: rebuild novad" : "");

	r = nova_ipc_open(&g->ev, e);
	if (r)
		goto fail;
	r = nova_ipc_subscribe(g->ev, e);
	if (r)
		goto fail;
	if (nova_ipc_set_nonblocking(g->ev)) {
		r = -EIO;
		nova_err_set(e, r, "cannot make the event socket non-blocking");
		goto fail;
	}
	return 0;
fail:
	novad_genl_close(g);
	return r;
}

void novad_genl_close(struct novad_genl *g)
{
	nova_ipc_close(g->ev);
	nova_ipc_close(g->req);
	g->ev = g->req = NULL;
}

int novad_genl_event_fd(const struct novad_genl *g)
{
	return nova_ipc_fd(g->ev);
}

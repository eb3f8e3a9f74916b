// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad genl glue (see genl.h).
 *
 * Snapshot and scrub jobs. uapi/linux/nova_genl.h lists them under "Room
 * for what comes next": the protocol this novad is built against has no
 * NOVA_CMD_SNAPSHOT_* or NOVA_CMD_SCRUB_* command yet, so there is no
 * request novad could send. The backend below therefore says so, both up
 * front (snapshot_unavailable/scrub_unavailable, shown at start and in
 * STATUS=) and from every operation (-EOPNOTSUPP), and never claims a
 * snapshot or scrub happened. The snapshot commands have since landed in
 * the header; driving them from here (gated on nova_family_has_cmd(), so
 * that novad on an older nova.ko still says the kernel lacks them) is the
 * next step, and until then the reason given says exactly that.
 */
#include <errno.h>
#include <stdio.h>
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

static int g_snapshot_create(void *ctx, const struct novad_fs_ref *fs,
			     const char *name, uint64_t *id, struct nova_err *e)
{
	struct novad_genl *g = ctx;

	(void)fs, (void)name, (void)id;
	return backend_unsupported(g->snapshot_why, e);
}

static int g_snapshot_list(void *ctx, const struct novad_fs_ref *fs,
			   struct novad_snap **list, size_t *n,
			   struct nova_err *e)
{
	struct novad_genl *g = ctx;

	(void)fs;
	*list = NULL;
	*n = 0;
	return backend_unsupported(g->snapshot_why, e);
}

static int g_snapshot_delete(void *ctx, const struct novad_fs_ref *fs,
			     uint64_t id, struct nova_err *e)
{
	struct novad_genl *g = ctx;

	(void)fs, (void)id;
	return backend_unsupported(g->snapshot_why, e);
}

static int g_scrub_start(void *ctx, const struct novad_fs_ref *fs,
			 uint64_t bandwidth, struct nova_err *e)
{
	struct novad_genl *g = ctx;

	(void)fs, (void)bandwidth;
	return backend_unsupported(g->scrub_why, e);
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
	if (r)
		return r;
	r = nova_family_ops_get(g->req, &g->ops, e);
	if (r)
		goto fail;
	g->have_stats = nova_family_has_cmd(&g->ops, NOVA_CMD_STATS_GET);
	newer = unknown_cmds(g);
	if (nova_family_has_cmd(&g->ops, NOVA_CMD_SNAPSHOT_CREATE))
		snprintf(g->snapshot_why, sizeof(g->snapshot_why),
			 "this novad does not drive the kernel's snapshot commands yet");
	else
		snprintf(g->snapshot_why, sizeof(g->snapshot_why),
			 "the nova genl family has no snapshot commands (protocol version %u defines none%s)",
			 nova_ipc_family_version(g->req),
			 newer ? "; the kernel offers newer commands: rebuild novad" : "");
	snprintf(g->scrub_why, sizeof(g->scrub_why),
		 "the nova genl family has no scrub commands (protocol version %u defines none%s)",
		 nova_ipc_family_version(g->req),
		 newer ? "; the kernel offers newer commands: rebuild novad" : "");

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

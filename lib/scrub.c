// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libnova: integrity scrub (start, stop, status), its notifications and
 * the test-only corruption injector.
 */
#include <errno.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "libnova.h"
#include "decode.h"

static struct nla_policy nova_scrub_policy[NOVA_SCRUB_A_MAX + 1] = {
	[NOVA_SCRUB_A_STATE]		= { .type = NLA_U32 },
	[NOVA_SCRUB_A_BANDWIDTH]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_BYTES_SCANNED]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_BYTES_TOTAL]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_INODES_SCANNED]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_META_CHECKED]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_DATA_CHECKED]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_ERRORS]		= { .type = NLA_U64 },
	[NOVA_SCRUB_A_REPAIRED]		= { .type = NLA_U64 },
	[NOVA_SCRUB_A_UNRECOVERABLE]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_START_TIME]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_FINISH_TIME]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_ERRNO]		= { .type = NLA_U32 },
	[NOVA_SCRUB_A_BAD_DROPPED]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_BAD]		= { .type = NLA_NESTED },
	[NOVA_SCRUB_A_EVENTS_SUPPRESSED] = { .type = NLA_U64 },
	[NOVA_SCRUB_A_RUN_TIME]		= { .type = NLA_U64 },
};

static struct nla_policy nova_corruption_policy[NOVA_CORRUPTION_A_MAX + 1] = {
	[NOVA_CORRUPTION_A_INODE]	= { .type = NLA_U64 },
	[NOVA_CORRUPTION_A_KIND]	= { .type = NLA_U32 },
	[NOVA_CORRUPTION_A_OFFSET]	= { .type = NLA_U64 },
	[NOVA_CORRUPTION_A_REPAIRED]	= { .type = NLA_U8 },
	[NOVA_CORRUPTION_A_SUPPRESSED]	= { .type = NLA_U64 },
};

const char *nova_scrub_state_name(uint32_t state)
{
	switch (state) {
	case NOVA_SCRUB_IDLE:
		return "idle";
	case NOVA_SCRUB_RUNNING:
		return "running";
	case NOVA_SCRUB_PAUSED:
		return "paused";
	case NOVA_SCRUB_FINISHED:
		return "finished";
	}
	return "unknown";
}

/* Names of the corruption kinds and inject targets (same numbers). */
static const char *const nova_kind_names[] = {
	[NOVA_CORRUPT_SUPER]		= "super",
	[NOVA_CORRUPT_INODE]		= "inode",
	[NOVA_CORRUPT_LOG_ENTRY]	= "log-entry",
	[NOVA_CORRUPT_LOG_TAIL]		= "log-tail",
	[NOVA_CORRUPT_DATA]		= "data",
	[NOVA_CORRUPT_CSUM]		= "csum",
	[NOVA_CORRUPT_PARITY]		= "parity",
	[NOVA_CORRUPT_JOURNAL]		= "journal",
	[NOVA_CORRUPT_INODE_TABLE]	= "inode-table",
	[NOVA_CORRUPT_MEDIA]		= "media",
};

#define NOVA_N_KINDS (sizeof(nova_kind_names) / sizeof(nova_kind_names[0]))

const char *nova_corruption_kind_name(uint32_t kind)
{
	if (kind < NOVA_N_KINDS && nova_kind_names[kind])
		return nova_kind_names[kind];
	return "unknown";
}

const char *nova_inject_target_name(uint32_t target)
{
	if (target < 1 || target > NOVA_INJECT_MAX)
		return "unknown";
	return nova_kind_names[target];
}

int nova_inject_target_parse(const char *name)
{
	for (uint32_t t = 1; t <= NOVA_INJECT_MAX; t++)
		if (!strcmp(name, nova_kind_names[t]))
			return (int)t;
	return -EINVAL;
}

static int nova_decode_bad(struct nlattr *nest, struct nova_corruption *c)
{
	struct nlattr *tb[NOVA_CORRUPTION_A_MAX + 1];

	memset(c, 0, sizeof(*c));
	if (nla_parse_nested(tb, NOVA_CORRUPTION_A_MAX, nest,
			     nova_corruption_policy) ||
	    !tb[NOVA_CORRUPTION_A_KIND])
		return -EBADMSG;
	c->ino = nova_u64(tb, NOVA_CORRUPTION_A_INODE);
	c->kind = nla_get_u32(tb[NOVA_CORRUPTION_A_KIND]);
	c->offset = nova_u64(tb, NOVA_CORRUPTION_A_OFFSET);
	if (tb[NOVA_CORRUPTION_A_REPAIRED])
		c->repaired = nla_get_u8(tb[NOVA_CORRUPTION_A_REPAIRED]);
	return 0;
}

/* NOVA_A_CORRUPTION of an event: the object and the suppressed count. */
static int nova_decode_corruption(struct nlattr *nest,
				  struct nova_scrub_event *ev)
{
	struct nlattr *tb[NOVA_CORRUPTION_A_MAX + 1];

	if (!nest || nova_decode_bad(nest, &ev->corruption) ||
	    nla_parse_nested(tb, NOVA_CORRUPTION_A_MAX, nest,
			     nova_corruption_policy))
		return -EBADMSG;
	ev->suppressed = nova_u64(tb, NOVA_CORRUPTION_A_SUPPRESSED);
	return 0;
}

static int nova_decode_scrub_nest(struct nlattr *nest,
				  struct nova_scrub_info *si)
{
	struct nlattr *tb[NOVA_SCRUB_A_MAX + 1], *a;
	int rem;

	if (nla_parse_nested(tb, NOVA_SCRUB_A_MAX, nest, nova_scrub_policy) ||
	    !tb[NOVA_SCRUB_A_STATE])
		return -EBADMSG;
	si->state = nla_get_u32(tb[NOVA_SCRUB_A_STATE]);
	if (tb[NOVA_SCRUB_A_ERRNO])
		si->err = nla_get_u32(tb[NOVA_SCRUB_A_ERRNO]);
	si->bandwidth = nova_u64(tb, NOVA_SCRUB_A_BANDWIDTH);
	si->bytes_scanned = nova_u64(tb, NOVA_SCRUB_A_BYTES_SCANNED);
	si->bytes_total = nova_u64(tb, NOVA_SCRUB_A_BYTES_TOTAL);
	si->inodes_scanned = nova_u64(tb, NOVA_SCRUB_A_INODES_SCANNED);
	si->meta_checked = nova_u64(tb, NOVA_SCRUB_A_META_CHECKED);
	si->data_checked = nova_u64(tb, NOVA_SCRUB_A_DATA_CHECKED);
	si->errors = nova_u64(tb, NOVA_SCRUB_A_ERRORS);
	si->repaired = nova_u64(tb, NOVA_SCRUB_A_REPAIRED);
	si->unrecoverable = nova_u64(tb, NOVA_SCRUB_A_UNRECOVERABLE);
	si->start_ns = nova_u64(tb, NOVA_SCRUB_A_START_TIME);
	si->finish_ns = nova_u64(tb, NOVA_SCRUB_A_FINISH_TIME);
	si->has_run = tb[NOVA_SCRUB_A_RUN_TIME] != NULL;
	si->run_ns = nova_u64(tb, NOVA_SCRUB_A_RUN_TIME);
	si->bad_dropped = nova_u64(tb, NOVA_SCRUB_A_BAD_DROPPED);
	si->events_suppressed = nova_u64(tb, NOVA_SCRUB_A_EVENTS_SUPPRESSED);
	/* NOVA_SCRUB_A_BAD repeats: walk the nest. */
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != NOVA_SCRUB_A_BAD)
			continue;
		if (si->n_bad == NOVA_GENL_SCRUB_BAD_MAX)
			break;
		if (nova_decode_bad(a, &si->bad[si->n_bad]))
			return -EBADMSG;
		si->n_bad++;
	}
	return 0;
}

int nova_decode_scrub(const struct nlmsghdr *nlh, struct nova_scrub_info *si)
{
	struct nlattr *tb[NOVA_A_MAX + 1];

	memset(si, 0, sizeof(*si));
	if (nova_parse_top(nlh, tb) || nova_decode_id(tb, &si->id) ||
	    !tb[NOVA_A_SCRUB])
		return -EBADMSG;
	return nova_decode_scrub_nest(tb[NOVA_A_SCRUB], si);
}

int nova_decode_scrub_event(const struct nlmsghdr *nlh,
			    struct nova_scrub_event *ev)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[NOVA_A_MAX + 1];

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EBADMSG;
	if (gh->cmd != NOVA_CMD_SCRUB_FINISHED && gh->cmd != NOVA_CMD_CORRUPTION)
		return -ENOENT;
	ev->cmd = gh->cmd;
	if (nova_parse_top(nlh, tb) || nova_decode_id(tb, &ev->id))
		return -EBADMSG;
	if (gh->cmd == NOVA_CMD_CORRUPTION)
		return nova_decode_corruption(tb[NOVA_A_CORRUPTION], ev);
	ev->scrub.id = ev->id;
	return tb[NOVA_A_SCRUB] ?
	       nova_decode_scrub_nest(tb[NOVA_A_SCRUB], &ev->scrub) : -EBADMSG;
}

/* What a scrub request carries in its NOVA_A_SCRUB nest. */
struct nova_scrub_req {
	bool set_bw;
	uint64_t bw;
	bool restart;
};

static int nova_put_scrub_req(struct nl_msg *msg, const void *arg)
{
	const struct nova_scrub_req *r = arg;
	struct nlattr *nest;

	if (!r->set_bw && !r->restart)
		return 0;
	nest = nla_nest_start(msg, NOVA_A_SCRUB | NLA_F_NESTED);
	if (!nest || (r->set_bw &&
		      nla_put_u64(msg, NOVA_SCRUB_A_BANDWIDTH, r->bw)) ||
	    (r->restart && nla_put_flag(msg, NOVA_SCRUB_A_RESTART)))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

static int nova_decode_scrub_v(const struct nlmsghdr *nlh, void *out)
{
	return nova_decode_scrub(nlh, out);
}

/* One scrub request; SET_BW/RESTART go into a NOVA_A_SCRUB nest. */
static int nova_scrub_do(struct nova_ipc *ipc, uint8_t cmd,
			 const struct nova_sel *sel, bool set_bw, uint64_t bw,
			 bool restart, struct nova_scrub_info *si,
			 struct nova_err *e)
{
	struct nova_scrub_req r = {
		.set_bw = set_bw, .bw = bw, .restart = restart,
	};

	return nova_request_one(ipc, cmd, sel, nova_put_scrub_req, &r,
				nova_decode_scrub_v, si, "scrub status", e);
}

int nova_req_scrub_start(struct nova_ipc *ipc, const struct nova_sel *sel,
		     bool set_bw, uint64_t bw, bool restart,
		     struct nova_scrub_info *si, struct nova_err *e)
{
	return nova_scrub_do(ipc, NOVA_CMD_SCRUB_START, sel, set_bw, bw,
			     restart, si, e);
}

int nova_req_scrub_stop(struct nova_ipc *ipc, const struct nova_sel *sel,
		    struct nova_scrub_info *si, struct nova_err *e)
{
	return nova_scrub_do(ipc, NOVA_CMD_SCRUB_STOP, sel, false, 0, false,
			     si, e);
}

int nova_req_scrub_status(struct nova_ipc *ipc, const struct nova_sel *sel,
		      struct nova_scrub_info *si, struct nova_err *e)
{
	return nova_scrub_do(ipc, NOVA_CMD_SCRUB_STATUS, sel, false, 0, false,
			     si, e);
}

static int nova_inject_cb(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return 0;
}

int nova_req_inject(struct nova_ipc *ipc, const struct nova_sel *sel,
		uint32_t target, uint64_t ino, uint64_t offset, uint32_t copy,
		struct nova_err *e)
{
	struct nlattr *nest;
	struct nl_msg *msg;
	int err;

	msg = nova_ipc_msg(ipc, NOVA_CMD_INJECT, false);
	if (!msg) {
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	err = nova_put_sel(msg, sel);
	nest = err ? NULL : nla_nest_start(msg, NOVA_A_INJECT | NLA_F_NESTED);
	if (!nest || nla_put_u32(msg, NOVA_INJECT_A_TARGET, target) ||
	    nla_put_u64(msg, NOVA_INJECT_A_INODE, ino) ||
	    nla_put_u64(msg, NOVA_INJECT_A_OFFSET, offset) ||
	    nla_put_u32(msg, NOVA_INJECT_A_COPY, copy)) {
		nlmsg_free(msg);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	nla_nest_end(msg, nest);
	return nova_ipc_transact(ipc, msg, nova_inject_cb, NULL, e);
}

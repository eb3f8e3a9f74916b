// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libnova: decoding of FS_LIST / STATS_GET replies and notifications, and
 * the queries built on them.
 *
 * Decoders are lenient about what they do not know (a newer kernel may add
 * attributes or operations) and strict about what they do: an attribute of
 * the wrong size makes the message malformed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "libnova.h"
#include "decode.h"

/* How often an interrupted dump is retried before giving up. */
#define NOVA_DUMP_RETRIES	5

static struct nla_policy nova_attr_policy[NOVA_A_MAX + 1] = {
	[NOVA_A_FS_DEV]			= { .type = NLA_U64 },
	[NOVA_A_FS_UUID]		= { .minlen = NOVA_GENL_UUID_LEN,
					    .maxlen = NOVA_GENL_UUID_LEN },
	[NOVA_A_FS_LABEL]		= { .type = NLA_STRING },
	[NOVA_A_FS_BDEV]		= { .type = NLA_STRING },
	[NOVA_A_FS_FORMAT_VERSION]	= { .type = NLA_U32 },
	[NOVA_A_FS_READ_ONLY]		= { .type = NLA_U8 },
	[NOVA_A_STATS]			= { .type = NLA_NESTED },
	[NOVA_A_SNAPSHOT]		= { .type = NLA_NESTED },
	[NOVA_A_GC]			= { .type = NLA_NESTED },
	[NOVA_A_SCRUB]			= { .type = NLA_NESTED },
	[NOVA_A_CORRUPTION]		= { .type = NLA_NESTED },
	[NOVA_A_INJECT]			= { .type = NLA_NESTED },
};

static struct nla_policy nova_gc_policy[NOVA_GC_A_MAX + 1] = {
	[NOVA_GC_A_INODE]		= { .type = NLA_U64 },
	[NOVA_GC_A_INODES]		= { .type = NLA_U64 },
	[NOVA_GC_A_LOG_PAGES_BEFORE]	= { .type = NLA_U64 },
	[NOVA_GC_A_LOG_PAGES_AFTER]	= { .type = NLA_U64 },
	[NOVA_GC_A_FAST_PAGES]		= { .type = NLA_U64 },
	[NOVA_GC_A_THOROUGH_RUNS]	= { .type = NLA_U64 },
	[NOVA_GC_A_ENTRIES_COPIED]	= { .type = NLA_U64 },
	[NOVA_GC_A_TIME_NS]		= { .type = NLA_U64 },
};

static struct nla_policy nova_snapshot_policy[NOVA_SNAPSHOT_A_MAX + 1] = {
	[NOVA_SNAPSHOT_A_ID]	= { .type = NLA_U64 },
	[NOVA_SNAPSHOT_A_NAME]	= { .type = NLA_STRING },
	[NOVA_SNAPSHOT_A_EPOCH]	= { .type = NLA_U64 },
	[NOVA_SNAPSHOT_A_CTIME]	= { .type = NLA_U64 },
	[NOVA_SNAPSHOT_A_EXCL_BLOCKS] = { .type = NLA_U64 },
};

static struct nla_policy nova_snapdiff_policy[NOVA_SNAPDIFF_A_MAX + 1] = {
	[NOVA_SNAPDIFF_A_INO]		= { .type = NLA_U64 },
	[NOVA_SNAPDIFF_A_MODE]		= { .type = NLA_U32 },
	[NOVA_SNAPDIFF_A_CHANGE]	= { .type = NLA_U32 },
};

static struct nla_policy nova_stats_policy[NOVA_STATS_A_MAX + 1] = {
	[NOVA_STATS_A_FORMAT_VERSION]	= { .type = NLA_U32 },
	[NOVA_STATS_A_CPUS]		= { .type = NLA_U32 },
	[NOVA_STATS_A_BLOCK_SIZE]	= { .type = NLA_U64 },
	[NOVA_STATS_A_BLOCKS_TOTAL]	= { .type = NLA_U64 },
	[NOVA_STATS_A_BLOCKS_FREE]	= { .type = NLA_U64 },
	[NOVA_STATS_A_INODES_TOTAL]	= { .type = NLA_U64 },
	[NOVA_STATS_A_INODES_FREE]	= { .type = NLA_U64 },
	[NOVA_STATS_A_LOG_PAGES]	= { .type = NLA_U64 },
	[NOVA_STATS_A_DATA_PAGES]	= { .type = NLA_U64 },
	[NOVA_STATS_A_EPOCH]		= { .type = NLA_U64 },
	[NOVA_STATS_A_SNAPSHOTS]	= { .type = NLA_U64 },
	[NOVA_STATS_A_SNAPSHOT_RECLAIM_BLOCKS] = { .type = NLA_U64 },
	[NOVA_STATS_A_SNAPSHOT_RECLAIM_INODES] = { .type = NLA_U64 },
	[NOVA_STATS_A_SNAPSHOT_RECLAIMED] = { .type = NLA_U64 },
	[NOVA_STATS_A_MOUNT_TIME_NS]	= { .type = NLA_U64 },
	[NOVA_STATS_A_RECOVERED]	= { .type = NLA_U8 },
	[NOVA_STATS_A_SPACE_CHECK_PENDING] = { .type = NLA_U8 },
	[NOVA_STATS_A_READ_ONLY]	= { .type = NLA_U8 },
	[NOVA_STATS_A_OP]		= { .type = NLA_NESTED },
	[NOVA_STATS_A_GC_FAST_PAGES]	= { .type = NLA_U64 },
	[NOVA_STATS_A_GC_THOROUGH_RUNS]	= { .type = NLA_U64 },
	[NOVA_STATS_A_GC_THOROUGH_PAGES] = { .type = NLA_U64 },
	[NOVA_STATS_A_GC_ENTRIES_COPIED] = { .type = NLA_U64 },
	[NOVA_STATS_A_GC_TIME_NS]	= { .type = NLA_U64 },
	[NOVA_STATS_A_SCRUB_STATE]	= { .type = NLA_U32 },
	[NOVA_STATS_A_SCRUB_PASSES]	= { .type = NLA_U64 },
	[NOVA_STATS_A_SCRUB_BYTES]	= { .type = NLA_U64 },
	[NOVA_STATS_A_SCRUB_ERRORS]	= { .type = NLA_U64 },
	[NOVA_STATS_A_SCRUB_REPAIRED]	= { .type = NLA_U64 },
	[NOVA_STATS_A_SCRUB_UNRECOVERABLE] = { .type = NLA_U64 },
	[NOVA_STATS_A_PROTECTION]	= { .type = NLA_NESTED },
};

static struct nla_policy nova_prot_policy[NOVA_PROT_A_MAX + 1] = {
	[NOVA_PROT_A_CSUM]		= { .type = NLA_U8 },
	[NOVA_PROT_A_PARITY]		= { .type = NLA_U8 },
	[NOVA_PROT_A_VERIFY]		= { .type = NLA_U8 },
	[NOVA_PROT_A_VERIFIED]		= { .type = NLA_U64 },
	[NOVA_PROT_A_REPAIRED]		= { .type = NLA_U64 },
	[NOVA_PROT_A_UNRECOVERABLE]	= { .type = NLA_U64 },
	[NOVA_PROT_A_BADBLOCKS]		= { .type = NLA_U64 },
	[NOVA_PROT_A_BADBLOCKS_REPAIRED] = { .type = NLA_U64 },
	[NOVA_PROT_A_BADBLOCKS_LOST]	= { .type = NLA_U64 },
	[NOVA_PROT_A_BADBLOCKS_WITHHELD] = { .type = NLA_U64 },
};

static struct nla_policy nova_op_policy[NOVA_OP_A_MAX + 1] = {
	[NOVA_OP_A_NAME]	= { .type = NLA_STRING },
	[NOVA_OP_A_COUNT]	= { .type = NLA_U64 },
	[NOVA_OP_A_TIME_NS]	= { .type = NLA_U64 },
};

/* Copy a string attribute, always NUL-terminated, truncated to LEN - 1. */
void nova_copy_str(char *dst, size_t len, const struct nlattr *a)
{
	size_t n;

	dst[0] = '\0';
	if (!a)
		return;
	n = (size_t)nla_len(a);
	if (n >= len)
		n = len - 1;
	memcpy(dst, nla_data(a), n);
	dst[n] = '\0';
}

int nova_parse_top(const struct nlmsghdr *nlh,
		   struct nlattr *tb[NOVA_A_MAX + 1])
{
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, NOVA_A_MAX,
			  nova_attr_policy))
		return -EBADMSG;
	return 0;
}

int nova_decode_id(struct nlattr **tb, struct nova_fs_id *id)
{
	memset(id, 0, sizeof(*id));
	if (!tb[NOVA_A_FS_DEV])
		return -EBADMSG;
	id->dev = nla_get_u64(tb[NOVA_A_FS_DEV]);
	if (tb[NOVA_A_FS_UUID])
		memcpy(id->uuid, nla_data(tb[NOVA_A_FS_UUID]), NOVA_GENL_UUID_LEN);
	nova_copy_str(id->label, sizeof(id->label), tb[NOVA_A_FS_LABEL]);
	nova_copy_str(id->bdev, sizeof(id->bdev), tb[NOVA_A_FS_BDEV]);
	return 0;
}

int nova_decode_fs_info(const struct nlmsghdr *nlh, struct nova_fs_info *fi)
{
	struct nlattr *tb[NOVA_A_MAX + 1];
	int err;

	memset(fi, 0, sizeof(*fi));
	err = nova_parse_top(nlh, tb);
	if (!err)
		err = nova_decode_id(tb, &fi->id);
	if (err)
		return err;
	if (tb[NOVA_A_FS_FORMAT_VERSION])
		fi->format_version = nla_get_u32(tb[NOVA_A_FS_FORMAT_VERSION]);
	if (tb[NOVA_A_FS_READ_ONLY])
		fi->read_only = nla_get_u8(tb[NOVA_A_FS_READ_ONLY]);
	return 0;
}

uint64_t nova_u64(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u64(tb[type]) : 0;
}

static int nova_decode_op(struct nlattr *nest, struct nova_op_stat *op)
{
	struct nlattr *tb[NOVA_OP_A_MAX + 1];

	if (nla_parse_nested(tb, NOVA_OP_A_MAX, nest, nova_op_policy) ||
	    !tb[NOVA_OP_A_NAME])
		return -EBADMSG;
	nova_copy_str(op->name, sizeof(op->name), tb[NOVA_OP_A_NAME]);
	op->count = nova_u64(tb, NOVA_OP_A_COUNT);
	op->time_ns = nova_u64(tb, NOVA_OP_A_TIME_NS);
	return 0;
}

static uint8_t nova_u8(struct nlattr **tb, int type)
{
	return tb[type] ? nla_get_u8(tb[type]) : 0;
}

/* NOVA_STATS_A_PROTECTION (absent from older modules: all zero). */
static int nova_decode_prot(struct nlattr *nest, struct nova_stats *st)
{
	struct nlattr *tb[NOVA_PROT_A_MAX + 1];

	if (!nest)
		return 0;
	if (nla_parse_nested(tb, NOVA_PROT_A_MAX, nest, nova_prot_policy))
		return -EBADMSG;
	st->prot_csum = nova_u8(tb, NOVA_PROT_A_CSUM);
	st->prot_parity = nova_u8(tb, NOVA_PROT_A_PARITY);
	st->prot_verify = nova_u8(tb, NOVA_PROT_A_VERIFY);
	st->prot_verified = nova_u64(tb, NOVA_PROT_A_VERIFIED);
	st->prot_repaired = nova_u64(tb, NOVA_PROT_A_REPAIRED);
	st->prot_unrecoverable = nova_u64(tb, NOVA_PROT_A_UNRECOVERABLE);
	st->bb_blocks = nova_u64(tb, NOVA_PROT_A_BADBLOCKS);
	st->bb_repaired = nova_u64(tb, NOVA_PROT_A_BADBLOCKS_REPAIRED);
	st->bb_lost = nova_u64(tb, NOVA_PROT_A_BADBLOCKS_LOST);
	st->bb_withheld = nova_u64(tb, NOVA_PROT_A_BADBLOCKS_WITHHELD);
	return 0;
}

int nova_decode_stats(const struct nlmsghdr *nlh, struct nova_stats *st)
{
	struct nlattr *tb[NOVA_A_MAX + 1];
	struct nlattr *sb[NOVA_STATS_A_MAX + 1];
	struct nlattr *a;
	int err, rem;

	memset(st, 0, sizeof(*st));
	err = nova_parse_top(nlh, tb);
	if (!err)
		err = nova_decode_id(tb, &st->id);
	if (err)
		return err;
	if (!tb[NOVA_A_STATS] ||
	    nla_parse_nested(sb, NOVA_STATS_A_MAX, tb[NOVA_A_STATS],
			     nova_stats_policy))
		return -EBADMSG;
	if (sb[NOVA_STATS_A_FORMAT_VERSION])
		st->format_version = nla_get_u32(sb[NOVA_STATS_A_FORMAT_VERSION]);
	if (sb[NOVA_STATS_A_CPUS])
		st->cpus = nla_get_u32(sb[NOVA_STATS_A_CPUS]);
	st->block_size = nova_u64(sb, NOVA_STATS_A_BLOCK_SIZE);
	st->blocks_total = nova_u64(sb, NOVA_STATS_A_BLOCKS_TOTAL);
	st->blocks_free = nova_u64(sb, NOVA_STATS_A_BLOCKS_FREE);
	st->inodes_total = nova_u64(sb, NOVA_STATS_A_INODES_TOTAL);
	st->inodes_free = nova_u64(sb, NOVA_STATS_A_INODES_FREE);
	st->log_pages = nova_u64(sb, NOVA_STATS_A_LOG_PAGES);
	st->data_pages = nova_u64(sb, NOVA_STATS_A_DATA_PAGES);
	st->epoch = nova_u64(sb, NOVA_STATS_A_EPOCH);
	st->snapshots = nova_u64(sb, NOVA_STATS_A_SNAPSHOTS);
	st->snap_reclaim_blocks = nova_u64(sb,
					   NOVA_STATS_A_SNAPSHOT_RECLAIM_BLOCKS);
	st->snap_reclaim_inodes = nova_u64(sb,
					   NOVA_STATS_A_SNAPSHOT_RECLAIM_INODES);
	st->snap_reclaimed = nova_u64(sb, NOVA_STATS_A_SNAPSHOT_RECLAIMED);
	st->mount_time_ns = nova_u64(sb, NOVA_STATS_A_MOUNT_TIME_NS);
	if (sb[NOVA_STATS_A_RECOVERED])
		st->recovered = nla_get_u8(sb[NOVA_STATS_A_RECOVERED]);
	if (sb[NOVA_STATS_A_SPACE_CHECK_PENDING])
		st->space_check_pending =
			nla_get_u8(sb[NOVA_STATS_A_SPACE_CHECK_PENDING]);
	if (sb[NOVA_STATS_A_READ_ONLY])
		st->read_only = nla_get_u8(sb[NOVA_STATS_A_READ_ONLY]);
	st->gc_fast_pages = nova_u64(sb, NOVA_STATS_A_GC_FAST_PAGES);
	st->gc_thorough_runs = nova_u64(sb, NOVA_STATS_A_GC_THOROUGH_RUNS);
	st->gc_thorough_pages = nova_u64(sb, NOVA_STATS_A_GC_THOROUGH_PAGES);
	st->gc_entries_copied = nova_u64(sb, NOVA_STATS_A_GC_ENTRIES_COPIED);
	st->gc_time_ns = nova_u64(sb, NOVA_STATS_A_GC_TIME_NS);
	if (sb[NOVA_STATS_A_SCRUB_STATE])
		st->scrub_state = nla_get_u32(sb[NOVA_STATS_A_SCRUB_STATE]);
	st->scrub_passes = nova_u64(sb, NOVA_STATS_A_SCRUB_PASSES);
	st->scrub_bytes = nova_u64(sb, NOVA_STATS_A_SCRUB_BYTES);
	st->scrub_errors = nova_u64(sb, NOVA_STATS_A_SCRUB_ERRORS);
	st->scrub_repaired = nova_u64(sb, NOVA_STATS_A_SCRUB_REPAIRED);
	st->scrub_unrecoverable = nova_u64(sb, NOVA_STATS_A_SCRUB_UNRECOVERABLE);
	err = nova_decode_prot(sb[NOVA_STATS_A_PROTECTION], st);
	if (err)
		return err;

	/* NOVA_STATS_A_OP repeats: walk the nest instead of the table. */
	nla_for_each_nested(a, tb[NOVA_A_STATS], rem) {
		if (nla_type(a) != NOVA_STATS_A_OP)
			continue;
		if (st->n_ops == NOVA_MAX_OPS)
			break;
		err = nova_decode_op(a, &st->ops[st->n_ops]);
		if (err)
			return err;
		st->n_ops++;
	}
	return 0;
}

const char *nova_event_name(enum nova_event_kind kind)
{
	switch (kind) {
	case NOVA_EVENT_FS_MOUNTED:
		return "fs-mounted";
	case NOVA_EVENT_FS_UNMOUNTED:
		return "fs-unmounted";
	}
	return "unknown";
}

int nova_decode_event(const struct nlmsghdr *nlh, struct nova_event *ev)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[NOVA_A_MAX + 1];
	int err;

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EBADMSG;
	switch (gh->cmd) {
	case NOVA_CMD_FS_MOUNTED:
		ev->kind = NOVA_EVENT_FS_MOUNTED;
		break;
	case NOVA_CMD_FS_UNMOUNTED:
		ev->kind = NOVA_EVENT_FS_UNMOUNTED;
		break;
	default:
		return -ENOENT;
	}
	err = nova_parse_top(nlh, tb);
	if (!err)
		err = nova_decode_id(tb, &ev->id);
	return err;
}

/* A growing array of decoded messages. */
struct nova_vec {
	void *items;
	size_t n, cap, size;
	int (*decode)(const struct nlmsghdr *nlh, void *item);
};

static int nova_vec_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nova_vec *v = arg;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4;
		void *p = realloc(v->items, cap * v->size);

		if (!p)
			return -ENOMEM;
		v->items = p;
		v->cap = cap;
	}
	if (v->decode(nlh, (char *)v->items + v->n * v->size))
		return -EBADMSG;
	v->n++;
	return 0;
}

static int nova_decode_fs_info_v(const struct nlmsghdr *nlh, void *item)
{
	return nova_decode_fs_info(nlh, item);
}

static int nova_decode_stats_v(const struct nlmsghdr *nlh, void *item)
{
	return nova_decode_stats(nlh, item);
}

static int nova_dump_all(struct nova_ipc *ipc, uint8_t cmd,
			 struct nova_vec *v, struct nova_err *e)
{
	struct nl_msg *msg;
	int err, i;

	for (i = 0; i < NOVA_DUMP_RETRIES; i++) {
		v->n = 0;
		msg = nova_ipc_msg(ipc, cmd, true);
		if (!msg) {
			nova_err_set(e, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		err = nova_ipc_transact(ipc, msg, nova_vec_cb, v, e);
		if (err != -EINTR)
			break;
	}
	return err;
}

int nova_req_fs_list(struct nova_ipc *ipc, struct nova_fs_info **list,
		 size_t *n, struct nova_err *e)
{
	struct nova_vec v = {
		.size = sizeof(struct nova_fs_info),
		.decode = nova_decode_fs_info_v,
	};
	int err = nova_dump_all(ipc, NOVA_CMD_FS_LIST, &v, e);

	if (err) {
		free(v.items);
		return err;
	}
	*list = v.items;
	*n = v.n;
	return 0;
}

int nova_req_stats_dump(struct nova_ipc *ipc, struct nova_stats **list,
		    size_t *n, struct nova_err *e)
{
	struct nova_vec v = {
		.size = sizeof(struct nova_stats),
		.decode = nova_decode_stats_v,
	};
	int err = nova_dump_all(ipc, NOVA_CMD_STATS_GET, &v, e);

	if (err) {
		free(v.items);
		return err;
	}
	*list = v.items;
	*n = v.n;
	return 0;
}

int nova_req_stats_get(struct nova_ipc *ipc, const struct nova_sel *sel,
		   struct nova_stats *st, struct nova_err *e)
{
	return nova_request_one(ipc, NOVA_CMD_STATS_GET, sel, NULL, NULL,
				nova_decode_stats_v, st, "statistics", e);
}

/* ---- snapshots ---- */

int nova_decode_snapshot(const struct nlmsghdr *nlh, struct nova_snapshot_rec *sn)
{
	struct nlattr *tb[NOVA_A_MAX + 1], *sb[NOVA_SNAPSHOT_A_MAX + 1];

	memset(sn, 0, sizeof(*sn));
	if (nova_parse_top(nlh, tb) || nova_decode_id(tb, &sn->id) ||
	    !tb[NOVA_A_SNAPSHOT] ||
	    nla_parse_nested(sb, NOVA_SNAPSHOT_A_MAX, tb[NOVA_A_SNAPSHOT],
			     nova_snapshot_policy) ||
	    !sb[NOVA_SNAPSHOT_A_ID] || !sb[NOVA_SNAPSHOT_A_EPOCH])
		return -EBADMSG;
	sn->snap_id = nla_get_u64(sb[NOVA_SNAPSHOT_A_ID]);
	sn->epoch = nla_get_u64(sb[NOVA_SNAPSHOT_A_EPOCH]);
	sn->ctime_ns = nova_u64(sb, NOVA_SNAPSHOT_A_CTIME);
	sn->has_excl = sb[NOVA_SNAPSHOT_A_EXCL_BLOCKS] != NULL;
	sn->excl_blocks = nova_u64(sb, NOVA_SNAPSHOT_A_EXCL_BLOCKS);
	nova_copy_str(sn->name, sizeof(sn->name), sb[NOVA_SNAPSHOT_A_NAME]);
	return 0;
}

int nova_put_sel(struct nl_msg *msg, const struct nova_sel *sel)
{
	if (sel->kind == NOVA_SEL_DEV)
		return nla_put_u64(msg, NOVA_A_FS_DEV, sel->dev);
	if (sel->kind == NOVA_SEL_UUID)
		return nla_put(msg, NOVA_A_FS_UUID, NOVA_GENL_UUID_LEN,
			       sel->uuid);
	return 0;
}

struct nova_one {
	int (*decode)(const struct nlmsghdr *nlh, void *out);
	void *out;
	int got;
};

static int nova_one_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nova_one *o = arg;

	if (o->got++)
		return -EBADMSG;	/* a doit has exactly one reply */
	return o->decode(nlh, o->out);
}

int nova_request_one(struct nova_ipc *ipc, uint8_t cmd,
		     const struct nova_sel *sel,
		     int (*put)(struct nl_msg *msg, const void *arg),
		     const void *arg,
		     int (*decode)(const struct nlmsghdr *nlh, void *out),
		     void *out, const char *what, struct nova_err *e)
{
	struct nova_one o = { .decode = decode, .out = out };
	struct nl_msg *msg;
	int err;

	msg = nova_ipc_msg(ipc, cmd, false);
	if (!msg || nova_put_sel(msg, sel) || (put && put(msg, arg))) {
		if (msg)
			nlmsg_free(msg);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	err = nova_ipc_transact(ipc, msg, nova_one_cb, &o, e);
	if (!err && !o.got) {
		nova_err_set(e, -EBADMSG, "the kernel sent no %s", what);
		err = -EBADMSG;
	}
	return err;
}

/* What a snapshot request names (at most one of the two). */
struct nova_snapshot_req {
	uint64_t id;
	const char *name;
	bool wait;		/* delete: NOVA_SNAPSHOT_A_WAIT */
};

static int nova_put_snapshot_req(struct nl_msg *msg, const void *arg)
{
	const struct nova_snapshot_req *r = arg;
	struct nlattr *nest;
	int err;

	if (!r->id && !r->name)
		return 0;
	nest = nla_nest_start(msg, NOVA_A_SNAPSHOT | NLA_F_NESTED);
	if (!nest)
		return -ENOMEM;
	if (r->id)
		err = nla_put_u64(msg, NOVA_SNAPSHOT_A_ID, r->id);
	else
		err = nla_put_string(msg, NOVA_SNAPSHOT_A_NAME, r->name);
	if (!err && r->wait)
		err = nla_put_flag(msg, NOVA_SNAPSHOT_A_WAIT);
	if (!err)
		nla_nest_end(msg, nest);
	return err;
}

static int nova_decode_snapshot_v(const struct nlmsghdr *nlh, void *item)
{
	return nova_decode_snapshot(nlh, item);
}

/* CREATE (NAME may be NULL) or DELETE (by ID if non-zero, else NAME). */
static int nova_snapshot_do(struct nova_ipc *ipc, uint8_t cmd,
			    const struct nova_sel *sel,
			    const struct nova_snapshot_req *r,
			    struct nova_snapshot_rec *sn, struct nova_err *e)
{
	return nova_request_one(ipc, cmd, sel, nova_put_snapshot_req, r,
				nova_decode_snapshot_v, sn, "snapshot", e);
}

int nova_req_snapshot_create(struct nova_ipc *ipc, const struct nova_sel *sel,
			 const char *name, struct nova_snapshot_rec *sn,
			 struct nova_err *e)
{
	struct nova_snapshot_req r = { .name = name && name[0] ? name : NULL };

	return nova_snapshot_do(ipc, NOVA_CMD_SNAPSHOT_CREATE, sel, &r, sn, e);
}

int nova_req_snapshot_delete(struct nova_ipc *ipc, const struct nova_sel *sel,
			 uint64_t id, const char *name, bool wait,
			 struct nova_snapshot_rec *sn, struct nova_err *e)
{
	struct nova_snapshot_req r = {
		.id = id, .name = id ? NULL : name, .wait = wait,
	};

	return nova_snapshot_do(ipc, NOVA_CMD_SNAPSHOT_DELETE, sel, &r, sn, e);
}

int nova_req_snapshot_list(struct nova_ipc *ipc, const struct nova_sel *sel,
		       struct nova_snapshot_rec **list, size_t *n,
		       struct nova_err *e)
{
	struct nova_vec v = { .size = sizeof(**list),
			      .decode = nova_decode_snapshot_v };
	struct nl_msg *msg;
	int err, i;

	for (i = 0; i < NOVA_DUMP_RETRIES; i++) {
		v.n = 0;
		msg = nova_ipc_msg(ipc, NOVA_CMD_SNAPSHOT_LIST, true);
		if (!msg || nova_put_sel(msg, sel)) {
			nlmsg_free(msg);
			nova_err_set(e, -ENOMEM, "out of memory");
			err = -ENOMEM;
			break;
		}
		err = nova_ipc_transact(ipc, msg, nova_vec_cb, &v, e);
		if (err != -EINTR)
			break;
	}
	if (err) {
		free(v.items);
		return err;
	}
	*list = v.items;
	*n = v.n;
	return 0;
}

int nova_decode_snapdiff(const struct nlmsghdr *nlh,
			 struct nova_snapdiff_rec *d)
{
	struct nlattr *tb[NOVA_A_MAX + 1], *db[NOVA_SNAPDIFF_A_MAX + 1];

	memset(d, 0, sizeof(*d));
	if (nova_parse_top(nlh, tb) || nova_decode_id(tb, &d->id) ||
	    !tb[NOVA_A_SNAPSHOT_DIFF] ||
	    nla_parse_nested(db, NOVA_SNAPDIFF_A_MAX, tb[NOVA_A_SNAPSHOT_DIFF],
			     nova_snapdiff_policy) ||
	    !db[NOVA_SNAPDIFF_A_INO] || !db[NOVA_SNAPDIFF_A_MODE] ||
	    !db[NOVA_SNAPDIFF_A_CHANGE])
		return -EBADMSG;
	d->ino = nla_get_u64(db[NOVA_SNAPDIFF_A_INO]);
	d->mode = nla_get_u32(db[NOVA_SNAPDIFF_A_MODE]);
	d->change = nla_get_u32(db[NOVA_SNAPDIFF_A_CHANGE]);
	return 0;
}

static int nova_decode_snapdiff_v(const struct nlmsghdr *nlh, void *item)
{
	return nova_decode_snapdiff(nlh, item);
}

int nova_req_snapshot_diff(struct nova_ipc *ipc, const struct nova_sel *sel,
			   uint64_t old_id, uint64_t new_id,
			   struct nova_snapdiff_rec **list, size_t *n,
			   struct nova_err *e)
{
	struct nova_vec v = { .size = sizeof(**list),
			      .decode = nova_decode_snapdiff_v };
	struct nlattr *nest;
	struct nl_msg *msg;
	int err;

	msg = nova_ipc_msg(ipc, NOVA_CMD_SNAPSHOT_DIFF, true);
	if (!msg || nova_put_sel(msg, sel) ||
	    !(nest = nla_nest_start(msg, NOVA_A_SNAPSHOT_DIFF | NLA_F_NESTED)) ||
	    nla_put_u64(msg, NOVA_SNAPDIFF_A_OLD, old_id) ||
	    (new_id && nla_put_u64(msg, NOVA_SNAPDIFF_A_NEW, new_id))) {
		nlmsg_free(msg);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	nla_nest_end(msg, nest);
	err = nova_ipc_transact(ipc, msg, nova_vec_cb, &v, e);
	if (err) {
		free(v.items);
		return err;
	}
	*list = v.items;
	*n = v.n;
	return 0;
}

int nova_decode_gc(const struct nlmsghdr *nlh, struct nova_gc_report *r)
{
	struct nlattr *tb[NOVA_A_MAX + 1], *gb[NOVA_GC_A_MAX + 1];

	memset(r, 0, sizeof(*r));
	if (nova_parse_top(nlh, tb) || nova_decode_id(tb, &r->id) ||
	    !tb[NOVA_A_GC] ||
	    nla_parse_nested(gb, NOVA_GC_A_MAX, tb[NOVA_A_GC], nova_gc_policy) ||
	    !gb[NOVA_GC_A_INODES])
		return -EBADMSG;
	r->ino = nova_u64(gb, NOVA_GC_A_INODE);
	r->inodes = nova_u64(gb, NOVA_GC_A_INODES);
	r->log_pages_before = nova_u64(gb, NOVA_GC_A_LOG_PAGES_BEFORE);
	r->log_pages_after = nova_u64(gb, NOVA_GC_A_LOG_PAGES_AFTER);
	r->fast_pages = nova_u64(gb, NOVA_GC_A_FAST_PAGES);
	r->thorough_runs = nova_u64(gb, NOVA_GC_A_THOROUGH_RUNS);
	r->entries_copied = nova_u64(gb, NOVA_GC_A_ENTRIES_COPIED);
	r->time_ns = nova_u64(gb, NOVA_GC_A_TIME_NS);
	return 0;
}

static int nova_put_gc_req(struct nl_msg *msg, const void *arg)
{
	uint64_t ino = *(const uint64_t *)arg;
	struct nlattr *nest;

	if (!ino)
		return 0;
	nest = nla_nest_start(msg, NOVA_A_GC | NLA_F_NESTED);
	if (!nest || nla_put_u64(msg, NOVA_GC_A_INODE, ino))
		return -ENOMEM;
	nla_nest_end(msg, nest);
	return 0;
}

static int nova_decode_gc_v(const struct nlmsghdr *nlh, void *out)
{
	return nova_decode_gc(nlh, out);
}

int nova_req_gc(struct nova_ipc *ipc, const struct nova_sel *sel, uint64_t ino,
	    struct nova_gc_report *r, struct nova_err *e)
{
	return nova_request_one(ipc, NOVA_CMD_GC, sel, nova_put_gc_req, &ino,
				nova_decode_gc_v, r, "GC result", e);
}

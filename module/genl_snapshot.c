// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: the snapshot commands (NOVA_CMD_SNAPSHOT_CREATE,
 * _DELETE, the _LIST dump and the _DIFF dump) and the SNAPSHOT_CREATED and
 * SNAPSHOT_DELETED events. Snapshots are snapshot.c's and the diff is
 * snapdiff.c's (docs/snapshots.md); this file only translates.
 *
 * Locking (nova.h): CREATE, DELETE and DIFF hold an active reference on
 * the super block (nova_ctl_get_sb()) and no registry lock, because
 * taking a snapshot freezes the file system and unmount takes s_umount
 * before nova_ctl_lock; LIST and the events hold nova_ctl_lock, under
 * which nova_snapshot_list() takes the snapshot table lock.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "nova_ctl.h"
#include "genl.h"

static int nova_put_snapshot(struct sk_buff *skb,
			     const struct nova_snapshot_info *sn)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_A_SNAPSHOT);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, NOVA_SNAPSHOT_A_ID, sn->id,
			      NOVA_SNAPSHOT_A_PAD) ||
	    nla_put_string(skb, NOVA_SNAPSHOT_A_NAME, sn->name) ||
	    nla_put_u64_64bit(skb, NOVA_SNAPSHOT_A_EPOCH, sn->epoch,
			      NOVA_SNAPSHOT_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_SNAPSHOT_A_CTIME,
			      timespec64_to_ns(&sn->ctime),
			      NOVA_SNAPSHOT_A_PAD) ||
	    (sn->excl_blocks != U64_MAX &&
	     nla_put_u64_64bit(skb, NOVA_SNAPSHOT_A_EXCL_BLOCKS,
			       sn->excl_blocks, NOVA_SNAPSHOT_A_PAD))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Multicast a snapshot created/deleted notification if anyone listens. */
static void nova_ctl_snapshot_event(struct super_block *sb, u8 cmd,
				    const struct nova_snapshot_info *sn)
{
	struct nova_ctl_fs *fs;
	struct sk_buff *msg;

	mutex_lock(&nova_ctl_lock);
	fs = nova_ctl_find(sb);
	msg = fs ? nova_msg_new(NULL, cmd, fs, NULL, GFP_KERNEL) : NULL;
	if (msg)
		nova_msg_multicast(msg, nova_put_snapshot(msg, sn), sb,
				   GFP_KERNEL);
	mutex_unlock(&nova_ctl_lock);
}

/* Reply with the identity and one snapshot. */
static int nova_snapshot_reply(struct genl_info *info,
			       const struct nova_ctl_fs *fs, u8 cmd,
			       const struct nova_snapshot_info *sn)
{
	struct sk_buff *msg = nova_msg_new(info, cmd, fs, NULL, GFP_KERNEL);

	return nova_msg_reply(msg, info, msg ? nova_put_snapshot(msg, sn) : 0);
}

static void nova_snapshot_errmsg(struct genl_info *info, int err)
{
	switch (err) {
	case -EROFS:
		GENL_SET_ERR_MSG(info, "the file system is mounted read-only (or is a snapshot)");
		break;
	case -ENOSPC:
		GENL_SET_ERR_MSG(info, "snapshot limit reached, or no space for the record");
		break;
	case -EBUSY:
		GENL_SET_ERR_MSG(info, "the file system is frozen");
		break;
	case -EIO:
		GENL_SET_ERR_MSG(info, "the file system is shut down");
		break;
	}
}

int nova_snapshot_create_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[NOVA_SNAPSHOT_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_SNAPSHOT];
	struct nova_snapshot_info sn;
	const char *name = "";
	struct nova_ctl_fs fs;
	struct super_block *sb;
	int err;

	if (nest) {
		err = nla_parse_nested(tb, NOVA_SNAPSHOT_A_MAX, nest,
				       nova_snapshot_policy, info->extack);
		if (err)
			return err;
		if (tb[NOVA_SNAPSHOT_A_ID] || tb[NOVA_SNAPSHOT_A_EPOCH] ||
		    tb[NOVA_SNAPSHOT_A_CTIME] || tb[NOVA_SNAPSHOT_A_WAIT]) {
			NL_SET_ERR_MSG_ATTR(info->extack, nest,
					    "a new snapshot takes only a name");
			return -EINVAL;
		}
		if (tb[NOVA_SNAPSHOT_A_NAME])
			name = nla_data(tb[NOVA_SNAPSHOT_A_NAME]);
	}
	sb = nova_ctl_get_sb(skb, info, &fs, NULL);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	err = nova_snapshot_create(sb, name, &sn);
	if (!err) {
		nova_ctl_snapshot_event(sb, NOVA_CMD_SNAPSHOT_CREATED, &sn);
		/* The identity reads the super block: reply while we hold it. */
		err = nova_snapshot_reply(info, &fs, NOVA_CMD_SNAPSHOT_CREATE,
					  &sn);
		deactivate_super(sb);
		return err;
	}
	deactivate_super(sb);
	if (err == -EEXIST)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NOVA_SNAPSHOT_A_NAME],
				    "a live snapshot has this name");
	else if (err == -EINVAL || err == -ENAMETOOLONG)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NOVA_SNAPSHOT_A_NAME],
				    "bad snapshot name (printable, no space or '/', not only digits)");
	else
		nova_snapshot_errmsg(info, err);
	return err;
}

int nova_snapshot_delete_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[NOVA_SNAPSHOT_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_SNAPSHOT];
	struct nlattr *sel;
	struct nova_snapshot_info sn;
	struct nova_ctl_fs fs;
	struct super_block *sb;
	u64 ticket = 0;
	bool browsed, mounted;
	int err;

	if (!nest) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NOVA_A_SNAPSHOT);
		GENL_SET_ERR_MSG(info, "no snapshot given: need NOVA_A_SNAPSHOT with an id or a name");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, NOVA_SNAPSHOT_A_MAX, nest,
			       nova_snapshot_policy, info->extack);
	if (err)
		return err;
	if (!!tb[NOVA_SNAPSHOT_A_ID] == !!tb[NOVA_SNAPSHOT_A_NAME] ||
	    tb[NOVA_SNAPSHOT_A_EPOCH] || tb[NOVA_SNAPSHOT_A_CTIME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest,
				    "give exactly one of NOVA_SNAPSHOT_A_ID and NOVA_SNAPSHOT_A_NAME");
		return -EINVAL;
	}
	sel = tb[NOVA_SNAPSHOT_A_ID] ?: tb[NOVA_SNAPSHOT_A_NAME];
	sb = nova_ctl_get_sb(skb, info, &fs, NULL);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	sn.id = 0;
	if (tb[NOVA_SNAPSHOT_A_ID]) {
		sn.id = nla_get_u64(sel);
		err = nova_snapshot_delete(sb, sn.id, &sn, &ticket);
	} else {
		err = nova_snapshot_lookup(sb, 0, nla_data(sel), &sn);
		if (!err)
			err = nova_snapshot_delete(sb, sn.id, &sn, &ticket);
	}
	if (!err)
		nova_ctl_snapshot_event(sb, NOVA_CMD_SNAPSHOT_DELETED, &sn);
	/* The active reference keeps unmount away while we wait. */
	if (!err && nla_get_flag(tb[NOVA_SNAPSHOT_A_WAIT]))
		err = nova_snapshot_reclaim_wait(sb, ticket);
	if (!err) {
		/* The identity reads the super block: reply while we hold it. */
		err = nova_snapshot_reply(info, &fs, NOVA_CMD_SNAPSHOT_DELETE,
					  &sn);
		deactivate_super(sb);
		return err;
	}
	browsed = err == -EBUSY && sn.id && nova_snapshot_browsed(sb, sn.id);
	mounted = NOVA_SB(sb)->view_epoch != NOVA_EPOCH_LIVE;
	deactivate_super(sb);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, sel,
				    "no live snapshot matches");
	else if (err == -EBUSY && mounted)
		NL_SET_ERR_MSG_ATTR(info->extack, sel,
				    "this snapshot is mounted");
	else if (browsed)
		NL_SET_ERR_MSG_ATTR(info->extack, sel,
				    "snapshot is being browsed (in use under .snapshots)");
	else if (err == -EINTR)
		GENL_SET_ERR_MSG(info, "killed while waiting: the snapshot is deleted, its space is still being freed");
	else
		nova_snapshot_errmsg(info, err);
	return err;
}

/* Snapshot dump state, kept in cb->ctx. */
struct nova_snap_dump_ctx {
	u64	fs_id;			/* registry id of the file system */
	u64	next;			/* first snapshot id not yet sent */
	bool	started;
};

#define NOVA_SNAP_DUMP_BATCH	16

int nova_snapshot_list_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nova_snap_dump_ctx *ctx = (void *)cb->ctx;
	struct nova_snapshot_info *sn;
	struct genl_info ginfo = {
		.attrs = nova_genl_dump_attrs(info),
		.extack = cb->extack,
	};
	struct nova_ctl_fs *fs;
	unsigned int gen;
	int n, i, err = 0;
	void *hdr;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	sn = kmalloc_array(NOVA_SNAP_DUMP_BATCH, sizeof(*sn), GFP_KERNEL);
	if (!sn)
		return -ENOMEM;
	mutex_lock(&nova_ctl_lock);
	if (!ctx->started) {
		fs = nova_ctl_lookup(&ginfo);
		if (IS_ERR(fs)) {
			err = PTR_ERR(fs);
			goto out;
		}
		ctx->fs_id = fs->id;
		ctx->next = 1;
		ctx->started = true;
	}
	fs = nova_ctl_find_id(ctx->fs_id);
	if (!fs)
		goto out;	/* unmounted meanwhile: the dump ends */
	n = nova_snapshot_list(fs->sb, ctx->next, sn, NOVA_SNAP_DUMP_BATCH,
			       &gen);
	cb->seq = gen;
	for (i = 0; i < n; i++) {
		hdr = nova_dump_msg(skb, cb, NOVA_CMD_SNAPSHOT_LIST, fs);
		err = hdr ? nova_dump_end(skb, hdr,
					  nova_put_snapshot(skb, &sn[i])) :
			    -EMSGSIZE;
		if (err)
			break;
		ctx->next = sn[i].id + 1;
	}
out:
	mutex_unlock(&nova_ctl_lock);
	kfree(sn);
	return nova_dump_ret(skb, err);
}

/* NOVA_CMD_SNAPSHOT_DIFF dump state, kept in cb->ctx. */
struct nova_snapdiff_ctx {
	u64	fs_id;			/* registry id of the file system */
	u64	old_id, new_id;		/* snapshot ids, new 0: live */
	struct nova_snapdiff_pos pos;
	bool	started;
};

static int nova_put_snapdiff(struct sk_buff *skb,
			     const struct nova_snapdiff_item *it)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_A_SNAPSHOT_DIFF);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, NOVA_SNAPDIFF_A_INO, it->ino,
			      NOVA_SNAPDIFF_A_PAD) ||
	    nla_put_u32(skb, NOVA_SNAPDIFF_A_MODE, it->mode) ||
	    nla_put_u32(skb, NOVA_SNAPDIFF_A_CHANGE, it->change)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* First call: the snapshot ids of the request into @ctx. */
static int nova_snapdiff_parse(struct genl_info *info,
			       struct nova_snapdiff_ctx *ctx)
{
	struct nlattr *tb[NOVA_SNAPDIFF_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_SNAPSHOT_DIFF];
	int err;

	if (!nest) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NOVA_A_SNAPSHOT_DIFF);
		GENL_SET_ERR_MSG(info, "need NOVA_A_SNAPSHOT_DIFF with the older snapshot's id");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, NOVA_SNAPDIFF_A_MAX, nest,
			       nova_snapdiff_policy, info->extack);
	if (err)
		return err;
	if (!tb[NOVA_SNAPDIFF_A_OLD] || tb[NOVA_SNAPDIFF_A_INO] ||
	    tb[NOVA_SNAPDIFF_A_MODE] || tb[NOVA_SNAPDIFF_A_CHANGE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, nest,
				    "give NOVA_SNAPDIFF_A_OLD and optionally NOVA_SNAPDIFF_A_NEW only");
		return -EINVAL;
	}
	ctx->old_id = nla_get_u64(tb[NOVA_SNAPDIFF_A_OLD]);
	ctx->new_id = tb[NOVA_SNAPDIFF_A_NEW] ?
		      nla_get_u64(tb[NOVA_SNAPDIFF_A_NEW]) : 0;
	return 0;
}

static void nova_snapdiff_errmsg(struct genl_info *info, int err)
{
	struct nlattr *tb[NOVA_SNAPDIFF_A_MAX + 1] = { };

	if (nla_parse_nested(tb, NOVA_SNAPDIFF_A_MAX,
			     info->attrs[NOVA_A_SNAPSHOT_DIFF],
			     nova_snapdiff_policy, NULL))
		return;
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NOVA_SNAPDIFF_A_OLD],
				    "no live snapshot has this id");
	else if (err == -ESRCH)
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NOVA_SNAPDIFF_A_NEW],
				    "no live snapshot has this id");
	else if (err == -EINVAL)
		GENL_SET_ERR_MSG(info, "the newer snapshot must be newer than the older, on a live (not snapshot) mount");
}

/*
 * Each call fills the message buffer from the saved position; an inode
 * whose message does not fit is found again by the next call.
 */
int nova_snapshot_diff_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nova_snapdiff_ctx *ctx = (void *)cb->ctx;
	struct genl_info ginfo = {
		.attrs = nova_genl_dump_attrs(info),
		.extack = cb->extack,
	};
	struct nova_snapdiff_range r;
	struct nova_snapdiff_item it;
	struct nova_snapdiff_pos pos;
	struct super_block *sb;
	struct nova_ctl_fs fs;
	int err;
	void *hdr;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (!ctx->started) {
		err = nova_snapdiff_parse(&ginfo, ctx);
		if (err)
			return err;
	}
	sb = nova_ctl_get_sb(cb->skb, &ginfo, &fs, NULL);
	if (IS_ERR(sb))
		return ctx->started ? 0 : PTR_ERR(sb);
	if (!ctx->started) {
		ctx->fs_id = fs.id;
		ctx->started = true;
	} else if (fs.id != ctx->fs_id) {
		deactivate_super(sb);
		return 0;	/* unmounted meanwhile: the dump ends */
	}
	err = nova_snapdiff_range(sb, ctx->old_id, ctx->new_id, &r);
	if (err) {
		nova_snapdiff_errmsg(&ginfo, err);
		if (err == -ESRCH)
			err = -ENOENT;
		goto out;
	}
	for (;;) {
		pos = ctx->pos;
		err = nova_snapdiff_next(sb, &r, &ctx->pos, &it);
		if (err <= 0)
			break;
		hdr = nova_dump_msg(skb, cb, NOVA_CMD_SNAPSHOT_DIFF, &fs);
		err = hdr ? nova_dump_end(skb, hdr,
					  nova_put_snapdiff(skb, &it)) :
			    -EMSGSIZE;
		if (err)
			break;
	}
	if (err == -EMSGSIZE)
		ctx->pos = pos;		/* this inode again, next time */
out:
	deactivate_super(sb);
	return nova_dump_ret(skb, err);
}

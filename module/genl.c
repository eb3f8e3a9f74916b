// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: the generic netlink family "nova" and the registry of
 * mounted NOVA super blocks it serves. The protocol is documented in
 * uapi/linux/nova_genl.h; this file does only netlink.
 *
 * Locking (nova.h): nova_ctl_lock is taken with no file-system lock held;
 * under it, nova_fs_get_stats() takes the file system's inner locks (it
 * also keeps the super block alive, because the UNMOUNTING event
 * (nova_ctl_fs_unmounting()) must take it before the sb goes away). The family uses parallel_ops, so
 * genl_mutex is never held by our handlers.
 */
#define pr_fmt(fmt) "nova: " fmt

#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "nova_ctl.h"
#include "genl.h"
#include "protect.h"
#include "health.h"

DEFINE_MUTEX(nova_ctl_lock);
/* The cached labels (events read them under RCU, without nova_ctl_lock). */
static DEFINE_SPINLOCK(nova_ctl_label_lock);
/* CORRUPTION events of a file system not (yet) on the list: mounting. */
static struct nova_ctl_ratelimit nova_ctl_unlisted_rl = {
	.lock = __SPIN_LOCK_UNLOCKED(nova_ctl_unlisted_rl.lock),
};
static LIST_HEAD(nova_ctl_list);		/* under nova_ctl_lock */
static u64 nova_ctl_next_id = 1;		/* under nova_ctl_lock */
/* Bumped on every registry change; dumps report NLM_F_DUMP_INTR on change. */
static unsigned int nova_ctl_gen = 1;		/* under nova_ctl_lock */

static const struct genl_multicast_group nova_mcgrps[] = {
	[NOVA_MCGRP_EVENTS] = { .name = NOVA_GENL_MCGRP_EVENTS },
};

/* st_dev values are the kernel's 32-bit "new" encoding; 0 is no device. */
struct netlink_range_validation nova_dev_range __ro_after_init = {
	.min	= 1,
	.max	= U32_MAX,
};

static const struct nla_policy nova_stats_get_policy[NOVA_A_FS_UUID + 1] = {
	[NOVA_A_FS_DEV]		= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_A_FS_UUID]	= NLA_POLICY_EXACT_LEN(NOVA_GENL_UUID_LEN),
};

const struct nla_policy nova_snapshot_policy[NOVA_SNAPSHOT_A_MAX + 1] = {
	[NOVA_SNAPSHOT_A_ID]	= NLA_POLICY_MIN(NLA_U64, 1),
	[NOVA_SNAPSHOT_A_NAME]	= { .type = NLA_NUL_STRING,
				    .len = NOVA_GENL_SNAPSHOT_NAME_LEN - 1 },
	[NOVA_SNAPSHOT_A_WAIT]	= { .type = NLA_FLAG },
};

static const struct nla_policy nova_snapshot_req_policy[NOVA_A_SNAPSHOT + 1] = {
	[NOVA_A_FS_DEV]		= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_A_FS_UUID]	= NLA_POLICY_EXACT_LEN(NOVA_GENL_UUID_LEN),
	[NOVA_A_SNAPSHOT]	= NLA_POLICY_NESTED(nova_snapshot_policy),
};

const struct nla_policy nova_gc_policy[NOVA_GC_A_MAX + 1] = {
	[NOVA_GC_A_INODE]	= NLA_POLICY_MIN(NLA_U64, 1),
};

static const struct nla_policy nova_gc_req_policy[NOVA_A_GC + 1] = {
	[NOVA_A_FS_DEV]		= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_A_FS_UUID]	= NLA_POLICY_EXACT_LEN(NOVA_GENL_UUID_LEN),
	[NOVA_A_GC]		= NLA_POLICY_NESTED(nova_gc_policy),
};

const struct nla_policy nova_scrub_policy[NOVA_SCRUB_A_MAX + 1] = {
	[NOVA_SCRUB_A_BANDWIDTH]	= { .type = NLA_U64 },
	[NOVA_SCRUB_A_RESTART]		= { .type = NLA_FLAG },
};

static const struct nla_policy nova_scrub_req_policy[NOVA_A_SCRUB + 1] = {
	[NOVA_A_FS_DEV]		= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_A_FS_UUID]	= NLA_POLICY_EXACT_LEN(NOVA_GENL_UUID_LEN),
	[NOVA_A_SCRUB]		= NLA_POLICY_NESTED(nova_scrub_policy),
};

const struct nla_policy nova_snapdiff_policy[NOVA_SNAPDIFF_A_MAX + 1] = {
	[NOVA_SNAPDIFF_A_OLD]	= NLA_POLICY_MIN(NLA_U64, 1),
	[NOVA_SNAPDIFF_A_NEW]	= NLA_POLICY_MIN(NLA_U64, 1),
};

static const struct nla_policy nova_snapdiff_req_policy[NOVA_A_SNAPSHOT_DIFF + 1] = {
	[NOVA_A_FS_DEV]		= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_A_FS_UUID]	= NLA_POLICY_EXACT_LEN(NOVA_GENL_UUID_LEN),
	[NOVA_A_SNAPSHOT_DIFF]	= NLA_POLICY_NESTED(nova_snapdiff_policy),
};

/* Dump state, kept in cb->ctx. */
struct nova_dump_ctx {
	u64			next_id;	/* first registry id not yet sent */
	struct nova_fs_stats	*st;		/* scratch buffer for the dump */
};


static struct nova_dump_ctx *nova_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct nova_dump_ctx) > sizeof(cb->ctx));
	return (struct nova_dump_ctx *)cb->ctx;
}

static u64 nova_ctl_dev(const struct nova_ctl_fs *fs)
{
	return new_encode_dev(fs->sb->s_dev);
}

int nova_put_identity(struct sk_buff *skb, const struct nova_ctl_fs *fs)
{
	char label[NOVA_GENL_LABEL_LEN];
	unsigned long flags;

	spin_lock_irqsave(&nova_ctl_label_lock, flags);
	memcpy(label, fs->label, sizeof(label));
	spin_unlock_irqrestore(&nova_ctl_label_lock, flags);
	if (nla_put_u64_64bit(skb, NOVA_A_FS_DEV, nova_ctl_dev(fs), NOVA_A_PAD) ||
	    nla_put(skb, NOVA_A_FS_UUID, NOVA_GENL_UUID_LEN, fs->uuid) ||
	    nla_put_string(skb, NOVA_A_FS_LABEL, label) ||
	    nla_put_string(skb, NOVA_A_FS_BDEV, fs->sb->s_id))
		return -EMSGSIZE;
	return 0;
}

/* The identity read from the super block itself (events of a thread). */
static int nova_put_identity_sb(struct sk_buff *skb, struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	char label[NOVA_GENL_LABEL_LEN];

	BUILD_BUG_ON(sizeof(sbi->dsb.s_uuid) != NOVA_GENL_UUID_LEN);
	BUILD_BUG_ON(sizeof(sbi->dsb.s_label) > sizeof(label));
	memset(label, 0, sizeof(label));
	memcpy(label, sbi->dsb.s_label, sizeof(sbi->dsb.s_label));
	label[sizeof(label) - 1] = '\0';
	if (nla_put_u64_64bit(skb, NOVA_A_FS_DEV, new_encode_dev(sb->s_dev),
			      NOVA_A_PAD) ||
	    nla_put(skb, NOVA_A_FS_UUID, NOVA_GENL_UUID_LEN, sbi->dsb.s_uuid) ||
	    nla_put_string(skb, NOVA_A_FS_LABEL, label) ||
	    nla_put_string(skb, NOVA_A_FS_BDEV, sb->s_id))
		return -EMSGSIZE;
	return 0;
}

/*
 * The replies and events of the family begin with the identity of their
 * file system. nova_msg_new() starts one of command @cmd: a reply to
 * @info or, @info NULL, an event for the multicast group, with the
 * identity of @fs (a registry entry or a copy of one) or, @fs NULL, the
 * identity read from @sb itself (an event of a thread, which has no
 * registry entry). The caller puts its attributes and hands what that
 * returned to nova_msg_reply() or nova_msg_multicast(), which end and
 * send the message, or free it if that was an error. NULL if there is no
 * memory (the allocator has said so) or, for an event, nobody listens.
 */
struct sk_buff *nova_msg_new(struct genl_info *info, u8 cmd,
			     const struct nova_ctl_fs *fs,
			     struct super_block *sb, gfp_t gfp)
{
	struct sk_buff *msg;
	void *hdr;

	if (!info && !genl_has_listeners(&nova_genl_family, &init_net,
					 NOVA_MCGRP_EVENTS))
		return NULL;
	msg = genlmsg_new(NLMSG_GOODSIZE, gfp);
	if (!msg)
		return NULL;
	hdr = info ? genlmsg_put_reply(msg, info, &nova_genl_family, 0, cmd) :
		     genlmsg_put(msg, 0, 0, &nova_genl_family, 0, cmd);
	if (!hdr || (fs ? nova_put_identity(msg, fs) :
			  nova_put_identity_sb(msg, sb))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* The command of a message nova_msg_new() made (one message per skb). */
static u8 nova_msg_cmd(struct sk_buff *msg)
{
	return ((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(msg)))->cmd;
}

/*
 * Send @msg (NULL: out of memory) as the reply to @info, or free it if
 * @err, what putting its attributes returned, is not 0.
 */
int nova_msg_reply(struct sk_buff *msg, struct genl_info *info, int err)
{
	if (!msg) {
		GENL_SET_ERR_MSG(info, "no memory for the reply");
		return -ENOMEM;
	}
	if (err) {
		nlmsg_free(msg);
		GENL_SET_ERR_MSG(info, "the reply does not fit in a message");
		return err;
	}
	nlmsg_end(msg, nlmsg_hdr(msg));
	return genlmsg_reply(msg, info);
}

/*
 * Multicast the event @msg, or free it if @err, what putting its
 * attributes returned, is not 0. Failures are logged against @sb, except
 * with @sb NULL: the CORRUPTION events, lossy by design (uapi header).
 */
void nova_msg_multicast(struct sk_buff *msg, int err, struct super_block *sb,
			gfp_t gfp)
{
	u8 cmd = nova_msg_cmd(msg);

	if (err) {
		nlmsg_free(msg);
	} else {
		nlmsg_end(msg, nlmsg_hdr(msg));
		err = genlmsg_multicast(&nova_genl_family, msg, 0,
					NOVA_MCGRP_EVENTS, gfp);
	}
	if (err && err != -ESRCH && sb)
		nova_warn(sb, "cannot send event %u: %d", cmd, err);
}

/*
 * Start the next message of a dump with the identity of @fs; NULL if it
 * does not fit. nova_dump_end() closes it.
 */
void *nova_dump_msg(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		    const struct nova_ctl_fs *fs)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &nova_genl_family, NLM_F_MULTI, cmd);
	if (!hdr)
		return NULL;
	genl_dump_check_consistent(cb, hdr);
	if (nova_put_identity(skb, fs)) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/* End the message @hdr of a dump, or take it back if @err is not 0. */
int nova_dump_end(struct sk_buff *skb, void *hdr, int err)
{
	if (err)
		genlmsg_cancel(skb, hdr);
	else
		genlmsg_end(skb, hdr);
	return err;
}

/* The end of one call of a dump: a message that did not fit waits. */
int nova_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* One message of the FS_LIST dump (nova_ctl_dump(); @st unused). */
static int nova_fs_list_fill(struct sk_buff *skb, const struct nova_ctl_fs *fs,
			     struct nova_fs_stats *st)
{
	if (nla_put_u32(skb, NOVA_A_FS_FORMAT_VERSION, fs->format_version) ||
	    nla_put_u8(skb, NOVA_A_FS_READ_ONLY, sb_rdonly(fs->sb)))
		return -EMSGSIZE;
	return 0;
}

void nova_get_stats(const struct nova_ctl_fs *fs, struct nova_fs_stats *st)
{
	lockdep_assert_held(&nova_ctl_lock);
	memset(st, 0, sizeof(*st));
	nova_fs_get_stats(fs->sb, st);
}

/* Find the file system a request names; sets extack on failure. */
struct nova_ctl_fs *nova_ctl_lookup(struct genl_info *info)
{
	struct nlattr *dev_attr = info->attrs[NOVA_A_FS_DEV];
	struct nlattr *uuid_attr = info->attrs[NOVA_A_FS_UUID];
	struct nova_ctl_fs *fs;
	dev_t dev = 0;

	lockdep_assert_held(&nova_ctl_lock);
	if (!dev_attr && !uuid_attr) {
		/* Either will do; report the device as the missing one. */
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NOVA_A_FS_DEV);
		GENL_SET_ERR_MSG(info,
				 "no file system given: need NOVA_A_FS_DEV or NOVA_A_FS_UUID");
		return ERR_PTR(-EINVAL);
	}
	if (dev_attr && uuid_attr) {
		NL_SET_ERR_MSG_ATTR(info->extack, uuid_attr,
				    "give NOVA_A_FS_DEV or NOVA_A_FS_UUID, not both");
		return ERR_PTR(-EINVAL);
	}
	if (dev_attr)
		dev = new_decode_dev(nla_get_u64(dev_attr));

	list_for_each_entry(fs, &nova_ctl_list, list) {
		if (dev_attr && fs->sb->s_dev == dev)
			return fs;
		if (uuid_attr && !memcmp(fs->uuid, nla_data(uuid_attr),
					 NOVA_GENL_UUID_LEN))
			return fs;
	}
	NL_SET_ERR_MSG_ATTR(info->extack, dev_attr ?: uuid_attr,
			    "no mounted NOVA file system matches");
	return ERR_PTR(-ENODEV);
}

/*
 * Changing a file system (snapshots, GC, scrub control, injection) is a
 * matter for its administrator: CAP_SYS_ADMIN in the user namespace that
 * owns it, on top of the CAP_NET_ADMIN that GENL_ADMIN_PERM asks of every
 * state-changing command. Both are checked against the opener of the socket
 * and the sender, as netlink_ns_capable() does.
 */
static int nova_ctl_may_change(const struct sk_buff *skb,
			       struct genl_info *info, struct super_block *sb)
{
	if (netlink_ns_capable(skb, sb->s_user_ns, CAP_SYS_ADMIN))
		return 0;
	GENL_SET_ERR_MSG(info,
			 "changing a NOVA file system needs CAP_SYS_ADMIN in its user namespace");
	return -EPERM;
}

/*
 * Look up the file system a state-changing request names, check that the
 * sender may change it and take an active reference, so the handler can
 * run without nova_ctl_lock (taking
 * a snapshot freezes the file system, and unmount takes s_umount before
 * nova_ctl_lock). @prepare, if given, runs on the registry entry under
 * nova_ctl_lock before the reference is taken (so that its failure needs
 * no deactivate_super(), which must not run under nova_ctl_lock: the last
 * reference would unmount, which takes it). *@copy receives the entry as
 * it is then. The caller drops the reference with deactivate_super().
 */
struct super_block *
nova_ctl_get_sb(const struct sk_buff *skb, struct genl_info *info,
		struct nova_ctl_fs *copy,
		int (*prepare)(struct nova_ctl_fs *fs, struct genl_info *info))
{
	struct nova_ctl_fs *fs;
	struct super_block *sb;
	int err;

	mutex_lock(&nova_ctl_lock);
	fs = nova_ctl_lookup(info);
	if (IS_ERR(fs)) {
		mutex_unlock(&nova_ctl_lock);
		return ERR_CAST(fs);
	}
	err = nova_ctl_may_change(skb, info, fs->sb);
	if (!err && prepare)
		err = prepare(fs, info);
	if (err) {
		mutex_unlock(&nova_ctl_lock);
		return ERR_PTR(err);
	}
	sb = fs->sb;
	if (!atomic_inc_not_zero(&sb->s_active)) {
		mutex_unlock(&nova_ctl_lock);
		GENL_SET_ERR_MSG(info, "the file system is being unmounted");
		return ERR_PTR(-ENODEV);
	}
	*copy = *fs;
	mutex_unlock(&nova_ctl_lock);
	return sb;
}

/*
 * May one more CORRUPTION event of @sb go out now? If so, *@suppressed
 * is the number held back since the previous one (and starts again).
 */
bool nova_ctl_corruption_allowed(struct super_block *sb, u64 *suppressed)
{
	struct nova_ctl_ratelimit *rl = &nova_ctl_unlisted_rl;
	struct nova_ctl_fs *fs;
	unsigned long flags;
	bool ok;

	rcu_read_lock();
	list_for_each_entry_rcu(fs, &nova_ctl_list, list) {
		if (fs->sb == sb) {
			rl = &fs->corruption_rl;
			break;
		}
	}
	spin_lock_irqsave(&rl->lock, flags);
	if (!rl->window || time_after_eq(jiffies, rl->window + HZ)) {
		rl->window = jiffies ?: 1;
		rl->sent = 0;
	}
	ok = rl->sent < NOVA_GENL_CORRUPTION_BURST;
	if (ok) {
		rl->sent++;
		*suppressed = rl->suppressed;
		rl->suppressed = 0;
	} else {
		rl->suppressed++;
	}
	spin_unlock_irqrestore(&rl->lock, flags);
	rcu_read_unlock();
	return ok;
}

static int nova_dump_start(struct netlink_callback *cb)
{
	struct nova_dump_ctx *ctx = nova_dump_ctx(cb);

	ctx->next_id = 0;
	ctx->st = kmalloc(sizeof(*ctx->st), GFP_KERNEL);
	if (!ctx->st)
		return -ENOMEM;
	return 0;
}

static int nova_dump_done(struct netlink_callback *cb)
{
	struct nova_dump_ctx *ctx = nova_dump_ctx(cb);

	kfree(ctx->st);
	ctx->st = NULL;
	return 0;
}

/*
 * The FS_LIST and STATS_GET dumps: one message of @cmd per file system,
 * its identity and what @fill puts (with the dump's scratch statistics).
 */
int nova_ctl_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		  int (*fill)(struct sk_buff *skb, const struct nova_ctl_fs *fs,
			      struct nova_fs_stats *st))
{
	struct nova_dump_ctx *ctx = nova_dump_ctx(cb);
	struct nova_ctl_fs *fs;
	int err = 0;
	void *hdr;

	mutex_lock(&nova_ctl_lock);
	cb->seq = nova_ctl_gen;
	list_for_each_entry(fs, &nova_ctl_list, list) {
		if (fs->id < ctx->next_id)
			continue;
		hdr = nova_dump_msg(skb, cb, cmd, fs);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = nova_dump_end(skb, hdr, fill(skb, fs, ctx->st));
		if (err)
			break;
		ctx->next_id = fs->id + 1;
	}
	mutex_unlock(&nova_ctl_lock);
	return nova_dump_ret(skb, err);
}

static int nova_fs_list_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	return nova_ctl_dump(skb, cb, NOVA_CMD_FS_LIST, nova_fs_list_fill);
}

static const struct genl_ops nova_genl_ops[] = {
	{
		.cmd	= NOVA_CMD_FS_LIST,
		.start	= nova_dump_start,
		.dumpit	= nova_fs_list_dumpit,
		.done	= nova_dump_done,
	},
	{
		.cmd	= NOVA_CMD_STATS_GET,
		.doit	= nova_stats_get_doit,
		.start	= nova_dump_start,
		.dumpit	= nova_stats_get_dumpit,
		.done	= nova_dump_done,
		.policy	= nova_stats_get_policy,
		.maxattr = ARRAY_SIZE(nova_stats_get_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SNAPSHOT_CREATE,
		.doit	= nova_snapshot_create_doit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_snapshot_req_policy,
		.maxattr = ARRAY_SIZE(nova_snapshot_req_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SNAPSHOT_DELETE,
		.doit	= nova_snapshot_delete_doit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_snapshot_req_policy,
		.maxattr = ARRAY_SIZE(nova_snapshot_req_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_GC,
		.doit	= nova_gc_doit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_gc_req_policy,
		.maxattr = ARRAY_SIZE(nova_gc_req_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SNAPSHOT_LIST,
		.dumpit	= nova_snapshot_list_dumpit,
		.policy	= nova_stats_get_policy,
		.maxattr = ARRAY_SIZE(nova_stats_get_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SCRUB_START,
		.doit	= nova_scrub_start_doit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_scrub_req_policy,
		.maxattr = ARRAY_SIZE(nova_scrub_req_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SCRUB_STOP,
		.doit	= nova_scrub_stop_doit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_stats_get_policy,
		.maxattr = ARRAY_SIZE(nova_stats_get_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SCRUB_STATUS,
		.doit	= nova_scrub_status_doit,
		.policy	= nova_stats_get_policy,
		.maxattr = ARRAY_SIZE(nova_stats_get_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_SNAPSHOT_DIFF,
		.dumpit	= nova_snapshot_diff_dumpit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_snapdiff_req_policy,
		.maxattr = ARRAY_SIZE(nova_snapdiff_req_policy) - 1,
	},
#ifdef NOVA_TEST_HOOKS
	{
		.cmd	= NOVA_CMD_INJECT,
		.doit	= nova_inject_doit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_inject_req_policy,
		.maxattr = ARRAY_SIZE(nova_inject_req_policy) - 1,
	},
	{
		.cmd	= NOVA_CMD_PMTRACE,
		.doit	= nova_pmtrace_doit,
		.dumpit	= nova_pmtrace_dumpit,
		.flags	= GENL_ADMIN_PERM,
		.policy	= nova_pmtrace_req_policy,
		.maxattr = ARRAY_SIZE(nova_pmtrace_req_policy) - 1,
	},
#endif
};

struct genl_family nova_genl_family __ro_after_init = {
	.name		= NOVA_GENL_NAME,
	.version	= NOVA_GENL_VERSION,
	.module		= THIS_MODULE,
	.parallel_ops	= true,
	.ops		= nova_genl_ops,
	.n_ops		= ARRAY_SIZE(nova_genl_ops),
	.mcgrps		= nova_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(nova_mcgrps),
};

/* Multicast a mount/unmount notification if anyone listens. */
static void nova_ctl_notify(const struct nova_ctl_fs *fs, u8 cmd)
{
	struct sk_buff *msg = nova_msg_new(NULL, cmd, fs, NULL, GFP_KERNEL);

	if (msg)
		nova_msg_multicast(msg, 0, fs->sb, GFP_KERNEL);
}

struct nova_ctl_fs *nova_ctl_find(struct super_block *sb)
{
	struct nova_ctl_fs *fs;

	lockdep_assert_held(&nova_ctl_lock);
	list_for_each_entry(fs, &nova_ctl_list, list)
		if (fs->sb == sb)
			return fs;
	return NULL;
}

/* The registry entry of mount @id; NULL once it is unmounted. */
struct nova_ctl_fs *nova_ctl_find_id(u64 id)
{
	struct nova_ctl_fs *fs;

	lockdep_assert_held(&nova_ctl_lock);
	list_for_each_entry(fs, &nova_ctl_list, list)
		if (fs->id == id)
			return fs;
	return NULL;
}

/* FS_IOC_SETFSLABEL changed the label of @sb to @label. */
static void nova_ctl_fs_relabel(struct super_block *sb, const char *label)
{
	struct nova_ctl_fs *fs;
	unsigned long flags;

	mutex_lock(&nova_ctl_lock);
	fs = nova_ctl_find(sb);
	if (fs) {
		spin_lock_irqsave(&nova_ctl_label_lock, flags);
		strscpy_pad(fs->label, label, sizeof(fs->label));
		spin_unlock_irqrestore(&nova_ctl_label_lock, flags);
	}
	mutex_unlock(&nova_ctl_lock);
}

static void nova_ctl_fs_mounted(struct super_block *sb)
{
	struct nova_fs_stats *st;
	struct nova_ctl_fs *fs;

	fs = kzalloc(sizeof(*fs), GFP_KERNEL);
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!fs || !st) {
		nova_warn(sb, "out of memory: not visible to the control plane");
		goto out;
	}
	fs->sb = sb;

	mutex_lock(&nova_ctl_lock);
	if (nova_ctl_find(sb)) {
		mutex_unlock(&nova_ctl_lock);
		nova_warn(sb, "announced to the control plane twice");
		goto out;
	}
	/* Cache the identity for lookups; only the label may change. */
	nova_get_stats(fs, st);
	BUILD_BUG_ON(sizeof(fs->uuid) != sizeof(st->uuid));
	BUILD_BUG_ON(sizeof(fs->label) != sizeof(st->label));
	memcpy(fs->uuid, st->uuid, sizeof(fs->uuid));
	strscpy(fs->label, st->label, sizeof(fs->label));
	fs->format_version = st->format_version;
	fs->id = nova_ctl_next_id++;
	nova_ctl_gen++;
	spin_lock_init(&fs->corruption_rl.lock);
	list_add_tail_rcu(&fs->list, &nova_ctl_list);
	nova_ctl_notify(fs, NOVA_CMD_FS_MOUNTED);
	mutex_unlock(&nova_ctl_lock);
	fs = NULL;
out:
	kfree(st);
	kfree(fs);
}

/*
 * Off the list, requests no longer find @sb, so the core may free its
 * scrub once this returns (health.h: the UNMOUNTING event).
 */
static void nova_ctl_fs_unmounting(struct super_block *sb)
{
	struct nova_ctl_fs *fs;

	mutex_lock(&nova_ctl_lock);
	fs = nova_ctl_find(sb);
	if (fs) {
		list_del_rcu(&fs->list);
		nova_ctl_gen++;
		nova_ctl_notify(fs, NOVA_CMD_FS_UNMOUNTED);
	}
	mutex_unlock(&nova_ctl_lock);
	/* The damage listener may still be reading it (RCU). */
	if (fs)
		kfree_rcu(fs, rcu);
}

/* The event chain's listener (health.h). */
static int nova_ctl_event(struct notifier_block *nb, unsigned long event,
			  void *data)
{
	const struct nova_event_info *ev = data;

	switch (event) {
	case NOVA_EVENT_MOUNTED:
		nova_ctl_fs_mounted(ev->sb);
		break;
	case NOVA_EVENT_UNMOUNTING:
		nova_ctl_fs_unmounting(ev->sb);
		break;
	case NOVA_EVENT_RELABELLED:
		nova_ctl_fs_relabel(ev->sb, ev->label);
		break;
	case NOVA_EVENT_SCRUB_FINISHED:
		nova_ctl_scrub_finished(ev->sb, ev->scrub);
		break;
	default:
		return NOTIFY_DONE;
	}
	return NOTIFY_OK;
}

static struct notifier_block nova_ctl_event_nb = {
	.notifier_call = nova_ctl_event,
};

static struct notifier_block nova_ctl_damage_nb = {
	.notifier_call = nova_ctl_damage,
};

int __init nova_ctl_init(void)
{
	int err;

	err = genl_register_family(&nova_genl_family);
	if (err) {
		pr_err("error: cannot register generic netlink family %s: %d\n",
		       NOVA_GENL_NAME, err);
		return err;
	}
	err = nova_health_register(&nova_ctl_event_nb, &nova_ctl_damage_nb);
	if (err) {
		pr_err("error: cannot listen to file system events: %d\n",
		       err);
		genl_unregister_family(&nova_genl_family);
	}
	return err;
}

void nova_ctl_exit(void)
{
	nova_health_unregister(&nova_ctl_event_nb, &nova_ctl_damage_nb);
	genl_unregister_family(&nova_genl_family);
}

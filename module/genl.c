// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane, its core: the generic netlink family "nova" (its
 * policies, its table of operations and its multicast group), the builder
 * of its messages (nova_msg_*, nova_dump_*), the state of the per-file-
 * system dumps, and the module load and unload of the whole plane. The
 * protocol is documented in uapi/linux/nova_genl.h and
 * docs/netlink/nova.yaml. The commands live one group a file, in the
 * manner of net/ethtool/ (docs/module.md has the map): genl_fs.c (the
 * registry of mounted file systems, FS_LIST, mount events),
 * genl_stats.c, genl_snapshot.c, genl_gc.c, genl_scrub.c (and the
 * CORRUPTION events) and, in test builds, genl_inject.c and pmtrace.c.
 * They share genl.h; the core of NOVA reaches none of them (it reports
 * through health.h, which genl_fs.c and genl_scrub.c listen to).
 *
 * Locking (nova.h): the family uses parallel_ops, so genl_mutex is never
 * held by our handlers; the registry's locks are genl_fs.c's.
 */
#define pr_fmt(fmt) "nova: " fmt

#include <linux/fs.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "nova_ctl.h"
#include "genl.h"
#include "health.h"

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

/*
 * What one call of a dump returns: the length filled, so that the message
 * that did not fit goes into the next call; one that does not fit even an
 * empty skb is an error.
 */
int nova_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
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

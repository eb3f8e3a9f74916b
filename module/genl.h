/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA control plane, internal to it: what the files of the generic
 * netlink family (genl*.c) share, split as net/ethtool/ is:
 *
 *   genl.c           the family, its policies and operations, the message
 *                    builder (replies, events, dumps), load and unload
 *   genl_fs.c        the registry of mounted file systems and their
 *                    identity, FS_LIST, the mount events (event chain)
 *   genl_stats.c     STATS_GET
 *   genl_snapshot.c  SNAPSHOT_CREATE/_DELETE/_LIST/_DIFF and their events
 *   genl_gc.c        GC and GC_FINISHED
 *   genl_scrub.c     SCRUB_START/_STOP/_STATUS, SCRUB_FINISHED and the
 *                    CORRUPTION events (damage chain)
 *   genl_inject.c    INJECT (test builds only); pmtrace.c has PMTRACE
 *
 * Nothing outside the control plane includes this header: the core never
 * calls the control plane; it reports through health.h, which genl_fs.c
 * and genl_scrub.c listen to, and offers its services in nova_ctl.h.
 *
 * Locking: nova.h and genl_fs.c.
 */
#ifndef _NOVA_GENL_H
#define _NOVA_GENL_H

#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

struct nova_snapshot_info;
struct nova_scrub_status;
struct nova_fs_stats;

/*
 * The rate limit of NOVA_CMD_CORRUPTION notifications of one file system:
 * at most NOVA_GENL_CORRUPTION_BURST per window of one second; the rest
 * are counted in @suppressed, which the next notification sent carries.
 * The lock is taken with interrupts off (callers may be in any context
 * but hard interrupts) and nests inside every NOVA lock.
 */
struct nova_ctl_ratelimit {
	spinlock_t		lock;
	unsigned long		window;		/* jiffies it began */
	u32			sent;		/* in this window */
	u64			suppressed;	/* since the last one sent */
};

/* One mounted NOVA file system, from its MOUNTED to its UNMOUNTING event. */
struct nova_ctl_fs {
	/*
	 * On nova_ctl_list, by id: changed under nova_ctl_lock, read under
	 * it or (the event path, which may not sleep) under RCU; freed after
	 * a grace period.
	 */
	struct list_head	list;
	struct rcu_head		rcu;
	struct nova_ctl_ratelimit corruption_rl;
	struct super_block	*sb;
	u64			id;		/* mount sequence number */
	u8			uuid[NOVA_GENL_UUID_LEN];
	/* FS_IOC_SETFSLABEL changes it: under nova_ctl_label_lock. */
	char			label[NOVA_GENL_LABEL_LEN];
	u32			format_version;
};

enum nova_mcgrp {
	NOVA_MCGRP_EVENTS,
};

/* The family and the nested policies the handlers parse with (genl.c). */
extern struct genl_family nova_genl_family;
extern struct netlink_range_validation nova_dev_range;
extern const struct nla_policy nova_snapshot_policy[NOVA_SNAPSHOT_A_MAX + 1];
extern const struct nla_policy nova_snapdiff_policy[NOVA_SNAPDIFF_A_MAX + 1];
extern const struct nla_policy nova_gc_policy[NOVA_GC_A_MAX + 1];
extern const struct nla_policy nova_scrub_policy[NOVA_SCRUB_A_MAX + 1];

/*
 * Replies and events (genl.c): nova_msg_new() starts one with the identity
 * of its file system, the caller puts its attributes, and nova_msg_reply()
 * or nova_msg_multicast() sends it, or frees it if putting failed.
 */
struct sk_buff *nova_msg_new(struct genl_info *info, u8 cmd,
			     const struct nova_ctl_fs *fs,
			     struct super_block *sb, gfp_t gfp);
int nova_msg_reply(struct sk_buff *msg, struct genl_info *info, int err);
void nova_msg_multicast(struct sk_buff *msg, int err, struct super_block *sb,
			gfp_t gfp);

/* The messages of a dump (genl.c), likewise. */
void *nova_dump_msg(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		    const struct nova_ctl_fs *fs);
int nova_dump_end(struct sk_buff *skb, void *hdr, int err);
int nova_dump_ret(struct sk_buff *skb, int err);

/* State of the FS_LIST and STATS_GET dumps, kept in cb->ctx (genl.c). */
struct nova_dump_ctx {
	u64			next_id;	/* first registry id not yet sent */
	struct nova_fs_stats	*st;		/* scratch buffer for the dump */
};

static inline struct nova_dump_ctx *nova_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct nova_dump_ctx) > sizeof(cb->ctx));
	return (struct nova_dump_ctx *)cb->ctx;
}

/* The registry of mounted file systems (genl_fs.c). */
extern struct mutex nova_ctl_lock;
struct nova_ctl_fs *nova_ctl_lookup(struct genl_info *info);
struct nova_ctl_fs *nova_ctl_find(struct super_block *sb);
struct nova_ctl_fs *nova_ctl_find_id(u64 id);
struct super_block *
nova_ctl_get_sb(const struct sk_buff *skb, struct genl_info *info,
		struct nova_ctl_fs *copy,
		int (*prepare)(struct nova_ctl_fs *fs, struct genl_info *info));
void nova_get_stats(const struct nova_ctl_fs *fs, struct nova_fs_stats *st);
int nova_put_identity(struct sk_buff *skb, const struct nova_ctl_fs *fs);
int nova_put_identity_sb(struct sk_buff *skb, struct super_block *sb);
int nova_ctl_dump(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
		  int (*fill)(struct sk_buff *skb, const struct nova_ctl_fs *fs,
			      struct nova_fs_stats *st));
bool nova_ctl_corruption_allowed(struct super_block *sb, u64 *suppressed);
int nova_fs_list_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nova_ctl_event(struct notifier_block *nb, unsigned long event, void *data);

/* NOVA_CMD_STATS_GET (genl_stats.c). */
int nova_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int nova_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* The snapshot commands (genl_snapshot.c). */
int nova_snapshot_create_doit(struct sk_buff *skb, struct genl_info *info);
int nova_snapshot_delete_doit(struct sk_buff *skb, struct genl_info *info);
int nova_snapshot_list_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nova_snapshot_diff_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* NOVA_CMD_GC (genl_gc.c). */
int nova_gc_doit(struct sk_buff *skb, struct genl_info *info);

/* The scrub commands and events (genl_scrub.c). */
int nova_scrub_start_doit(struct sk_buff *skb, struct genl_info *info);
int nova_scrub_stop_doit(struct sk_buff *skb, struct genl_info *info);
int nova_scrub_status_doit(struct sk_buff *skb, struct genl_info *info);
void nova_ctl_scrub_finished(struct super_block *sb,
			     const struct nova_scrub_status *st);
int nova_ctl_damage(struct notifier_block *nb, unsigned long kind, void *data);

#ifdef NOVA_TEST_HOOKS
extern const struct nla_policy nova_inject_req_policy[NOVA_A_INJECT + 1];
int nova_inject_doit(struct sk_buff *skb, struct genl_info *info);
extern const struct nla_policy nova_pmtrace_req_policy[NOVA_A_PMTRACE + 1];
int nova_pmtrace_doit(struct sk_buff *skb, struct genl_info *info);
int nova_pmtrace_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
#endif

#endif /* _NOVA_GENL_H */

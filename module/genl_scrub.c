// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: the integrity scrub commands (NOVA_CMD_SCRUB_START,
 * _STOP, _STATUS) and its events, NOVA_CMD_SCRUB_FINISHED and the
 * NOVA_CMD_CORRUPTION notification of damage the core found (the damage
 * chain of health.h). The scrub itself and its state are scrub.c's; this
 * file only translates (uapi/linux/nova_genl.h, docs/scrub.md).
 *
 * Locking (nova.h): the requests hold an active reference on the super
 * block (nova_ctl_get_sb()) and no lock while the scrub thread is started
 * or stopped (it may be sending an event); STATUS builds its reply under
 * nova_ctl_lock. The damage listener runs in any context but hard
 * interrupts and takes only the rate limit's spinlock, under RCU.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "nova_ctl.h"
#include "genl.h"
#include "health.h"
#include "scrub.h"

/* The members of a NOVA_CORRUPTION_A_* nest every report carries. */
static int nova_put_bad_members(struct sk_buff *skb,
				const struct nova_scrub_bad *bad)
{
	if (nla_put_u64_64bit(skb, NOVA_CORRUPTION_A_INODE, bad->ino,
			      NOVA_CORRUPTION_A_PAD) ||
	    nla_put_u32(skb, NOVA_CORRUPTION_A_KIND, bad->kind) ||
	    nla_put_u64_64bit(skb, NOVA_CORRUPTION_A_OFFSET, bad->offset,
			      NOVA_CORRUPTION_A_PAD) ||
	    nla_put_u8(skb, NOVA_CORRUPTION_A_REPAIRED, bad->repaired))
		return -EMSGSIZE;
	return 0;
}

static int nova_put_bad(struct sk_buff *skb, int attr,
			const struct nova_scrub_bad *bad)
{
	struct nlattr *nest = nla_nest_start(skb, attr);

	if (!nest)
		return -EMSGSIZE;
	if (nova_put_bad_members(skb, bad)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* NOVA_A_CORRUPTION of an event: the object and the suppressed count. */
static int nova_put_corruption(struct sk_buff *skb,
			       const struct nova_scrub_bad *bad,
			       u64 suppressed)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_A_CORRUPTION);

	if (!nest)
		return -EMSGSIZE;
	if (nova_put_bad_members(skb, bad) ||
	    nla_put_u64_64bit(skb, NOVA_CORRUPTION_A_SUPPRESSED, suppressed,
			      NOVA_CORRUPTION_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int nova_put_scrub64(struct sk_buff *skb, int attr, u64 val)
{
	return nla_put_u64_64bit(skb, attr, val, NOVA_SCRUB_A_PAD);
}

static int nova_put_scrub(struct sk_buff *skb,
			  const struct nova_scrub_status *st)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_A_SCRUB);
	u32 i;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NOVA_SCRUB_A_STATE, st->state) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_BANDWIDTH, st->bandwidth) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_BYTES_SCANNED,
			     st->bytes_scanned) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_BYTES_TOTAL, st->bytes_total) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_INODES_SCANNED,
			     st->inodes_scanned) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_META_CHECKED,
			     st->meta_checked) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_DATA_CHECKED,
			     st->data_checked) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_ERRORS, st->errors) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_REPAIRED, st->repaired) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_UNRECOVERABLE,
			     st->unrecoverable) ||
	    (st->start_ns &&
	     (nova_put_scrub64(skb, NOVA_SCRUB_A_START_TIME, st->start_ns) ||
	      nova_put_scrub64(skb, NOVA_SCRUB_A_RUN_TIME, st->run_ns))) ||
	    (st->state == NOVA_SCRUB_FINISHED &&
	     nova_put_scrub64(skb, NOVA_SCRUB_A_FINISH_TIME, st->finish_ns)) ||
	    nla_put_u32(skb, NOVA_SCRUB_A_ERRNO, st->err) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_BAD_DROPPED, st->bad_dropped) ||
	    nova_put_scrub64(skb, NOVA_SCRUB_A_EVENTS_SUPPRESSED,
			     st->events_suppressed))
		goto fail;
	for (i = 0; i < st->nr_bad && i < NOVA_GENL_SCRUB_BAD_MAX; i++)
		if (nova_put_bad(skb, NOVA_SCRUB_A_BAD, &st->bad[i]))
			goto fail;
	nla_nest_end(skb, nest);
	return 0;
fail:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Identity and NOVA_A_SCRUB, as a reply to @info. */
static int nova_scrub_reply(struct genl_info *info,
			    const struct nova_ctl_fs *fs, u8 cmd,
			    const struct nova_scrub_status *st)
{
	struct sk_buff *msg = nova_msg_new(info, cmd, fs, NULL, GFP_KERNEL);

	return nova_msg_reply(msg, info, msg ? nova_put_scrub(msg, st) : 0);
}

/* May a scrub (which repairs in place) run on @sb now? */
static int nova_scrub_allowed(struct super_block *sb, struct genl_info *info)
{
	int err = 0;

	down_read(&sb->s_umount);
	if (sb_rdonly(sb) || NOVA_SB(sb)->view_epoch != NOVA_EPOCH_LIVE) {
		GENL_SET_ERR_MSG(info, "the file system is mounted read-only (or is a snapshot): a scrub repairs in place");
		err = -EROFS;
	} else if (nova_is_shutdown(sb)) {
		GENL_SET_ERR_MSG(info, "the file system is shut down");
		err = -EIO;
	} else if (sb->s_writers.frozen != SB_UNFROZEN) {
		GENL_SET_ERR_MSG(info, "the file system is frozen");
		err = -EBUSY;
	}
	up_read(&sb->s_umount);
	return err;
}

/*
 * Start and stop: a zeroed status for the reply and an active reference
 * to the file system (nova_ctl_get_sb()); on error neither.
 */
static struct super_block *
nova_scrub_ctl_begin(struct sk_buff *skb, struct genl_info *info,
		     struct nova_ctl_fs *fs, struct nova_scrub_status **st)
{
	struct super_block *sb;

	*st = kzalloc(sizeof(**st), GFP_KERNEL);
	if (!*st)
		return ERR_PTR(-ENOMEM);
	sb = nova_ctl_get_sb(skb, info, fs, NULL);
	if (IS_ERR(sb)) {
		kfree(*st);
		*st = NULL;
	}
	return sb;
}

int nova_scrub_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[NOVA_SCRUB_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_SCRUB];
	struct nova_scrub_status *st;
	struct nova_scrub *scrub;
	struct nova_ctl_fs fs;
	struct super_block *sb;
	int err;

	if (nest) {
		/* The policy admits BANDWIDTH and RESTART only (strict). */
		err = nla_parse_nested(tb, NOVA_SCRUB_A_MAX, nest,
				       nova_scrub_policy, info->extack);
		if (err)
			return err;
	}
	sb = nova_scrub_ctl_begin(skb, info, &fs, &st);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	scrub = nova_scrub_get(sb);
	err = scrub ? nova_scrub_allowed(sb, info) : -ENOMEM;
	if (!err) {
		err = nova_scrub_start(scrub, tb[NOVA_SCRUB_A_BANDWIDTH],
				       tb[NOVA_SCRUB_A_BANDWIDTH] ?
				       nla_get_u64(tb[NOVA_SCRUB_A_BANDWIDTH]) : 0,
				       tb[NOVA_SCRUB_A_RESTART]);
		if (err == -EALREADY)
			GENL_SET_ERR_MSG(info, "a scrub is already running");
		else if (err)
			GENL_SET_ERR_MSG(info, "cannot start the scrub thread");
	}
	if (!err) {
		nova_scrub_get_status(scrub, st);
		err = nova_scrub_reply(info, &fs, NOVA_CMD_SCRUB_START, st);
	}
	deactivate_super(sb);
	kfree(st);
	return err;
}

static void nova_scrub_state_msg(struct genl_info *info, u32 state)
{
	switch (state) {
	case NOVA_SCRUB_PAUSED:
		GENL_SET_ERR_MSG(info, "no scrub is running (the last one is paused)");
		break;
	case NOVA_SCRUB_FINISHED:
		GENL_SET_ERR_MSG(info, "no scrub is running (the last one finished)");
		break;
	default:
		GENL_SET_ERR_MSG(info, "no scrub is running (none ran since mount)");
		break;
	}
}

int nova_scrub_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nova_scrub_status *st;
	struct nova_scrub *scrub;
	struct nova_ctl_fs fs;
	struct super_block *sb;
	int err;

	sb = nova_scrub_ctl_begin(skb, info, &fs, &st);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	scrub = nova_scrub_of(sb);	/* NULL if none ran yet */
	/* No lock held: the thread may be sending an event as we wait. */
	err = scrub ? nova_scrub_stop(scrub) : -EALREADY;
	if (scrub)
		nova_scrub_get_status(scrub, st);
	if (err)
		nova_scrub_state_msg(info, st->state);
	else
		err = nova_scrub_reply(info, &fs, NOVA_CMD_SCRUB_STOP, st);
	deactivate_super(sb);
	kfree(st);
	return err;
}

int nova_scrub_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nova_scrub_status *st;
	struct nova_scrub *scrub;
	struct nova_ctl_fs *fs;
	struct nova_ctl_fs copy;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mutex_lock(&nova_ctl_lock);
	fs = nova_ctl_lookup(info);
	if (IS_ERR(fs)) {
		mutex_unlock(&nova_ctl_lock);
		kfree(st);
		return PTR_ERR(fs);
	}
	scrub = nova_scrub_of(fs->sb);
	if (scrub)
		nova_scrub_get_status(scrub, st);
	copy = *fs;
	/* The reply reads the super block: build it under the lock. */
	err = nova_scrub_reply(info, &copy, NOVA_CMD_SCRUB_STATUS, st);
	mutex_unlock(&nova_ctl_lock);
	kfree(st);
	return err;
}

void nova_ctl_scrub_finished(struct super_block *sb,
			     const struct nova_scrub_status *st)
{
	struct sk_buff *msg;

	msg = nova_msg_new(NULL, NOVA_CMD_SCRUB_FINISHED, NULL, sb,
			   GFP_KERNEL);
	if (msg)
		nova_msg_multicast(msg, nova_put_scrub(msg, st), sb,
				   GFP_KERNEL);
}

/* The damage chain's listener (health.h): NOVA_CMD_CORRUPTION. */
int nova_ctl_damage(struct notifier_block *nb, unsigned long kind, void *data)
{
	const struct nova_damage *d = data;
	struct sk_buff *msg;
	u64 suppressed;

	if (!genl_has_listeners(&nova_genl_family, &init_net,
				NOVA_MCGRP_EVENTS))
		return NOTIFY_DONE;
	if (!nova_ctl_corruption_allowed(d->sb, &suppressed)) {
		if (d->scrub)
			nova_scrub_event_suppressed(d->scrub);
		return NOTIFY_DONE;
	}
	msg = nova_msg_new(NULL, NOVA_CMD_CORRUPTION, NULL, d->sb, GFP_ATOMIC);
	if (!msg)
		return NOTIFY_DONE;
	/* Lossy by design (see the uapi header): failures are not logged. */
	nova_msg_multicast(msg, nova_put_corruption(msg, &d->bad, suppressed),
			   NULL, GFP_ATOMIC);
	return NOTIFY_OK;
}

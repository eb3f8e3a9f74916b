// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: NOVA_CMD_GC, a log garbage collection on request
 * (`novactl gc`), and its event NOVA_CMD_GC_FINISHED. The collection is
 * gc.c's (nova_gc_request(), docs/gc.md); this file only translates.
 *
 * Locking (nova.h): the request holds an active reference on the super
 * block (nova_ctl_get_sb()) and no NOVA lock; the reply and the event are
 * built while it is held, because the identity reads the super block.
 */
#include <linux/fs.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "nova_ctl.h"
#include "genl.h"

static int nova_put_gc(struct sk_buff *skb, const struct nova_gc_result *res)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_A_GC);

	if (!nest)
		return -EMSGSIZE;
	if ((res->ino &&
	     nla_put_u64_64bit(skb, NOVA_GC_A_INODE, res->ino, NOVA_GC_A_PAD)) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_INODES, res->inodes,
			      NOVA_GC_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_LOG_PAGES_BEFORE,
			      res->log_pages_before, NOVA_GC_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_LOG_PAGES_AFTER,
			      res->log_pages_after, NOVA_GC_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_FAST_PAGES, res->fast_pages,
			      NOVA_GC_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_THOROUGH_RUNS, res->thorough_runs,
			      NOVA_GC_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_ENTRIES_COPIED,
			      res->entries_copied, NOVA_GC_A_PAD) ||
	    nla_put_u64_64bit(skb, NOVA_GC_A_TIME_NS, res->time_ns,
			      NOVA_GC_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int nova_gc_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[NOVA_GC_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_GC];
	struct nova_gc_result res;
	struct sk_buff *msg = NULL;
	struct nova_ctl_fs fs;
	struct super_block *sb;
	int err, put_err = 0;
	u64 ino = 0;

	if (nest) {
		/* The policy admits NOVA_GC_A_INODE only (strict). */
		err = nla_parse_nested(tb, NOVA_GC_A_MAX, nest, nova_gc_policy,
				       info->extack);
		if (err)
			return err;
		if (tb[NOVA_GC_A_INODE])
			ino = nla_get_u64(tb[NOVA_GC_A_INODE]);
	}
	sb = nova_ctl_get_sb(skb, info, &fs, NULL);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	err = nova_gc_request(sb, ino, &res);
	/* The identity reads the super block: build both while held. */
	if (!err) {
		msg = nova_msg_new(NULL, NOVA_CMD_GC_FINISHED, &fs, NULL,
				   GFP_KERNEL);
		if (msg)
			nova_msg_multicast(msg, nova_put_gc(msg, &res), sb,
					   GFP_KERNEL);
		msg = nova_msg_new(info, NOVA_CMD_GC, &fs, NULL, GFP_KERNEL);
		if (msg)
			put_err = nova_put_gc(msg, &res);
	}
	deactivate_super(sb);
	switch (err) {
	case 0:
		break;
	case -ENOENT:
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NOVA_GC_A_INODE],
				    "no such inode in this file system");
		return err;
	case -EROFS:
		GENL_SET_ERR_MSG(info, "the file system is mounted read-only (or is a snapshot)");
		return err;
	case -EBUSY:
		GENL_SET_ERR_MSG(info, "the file system is frozen");
		return err;
	case -EINTR:
		GENL_SET_ERR_MSG(info, "interrupted; some logs were collected");
		return err;
	case -ENOSPC:
		GENL_SET_ERR_MSG(info, "no space for the copy of a log");
		return err;
	case -EFSCORRUPTED:
		GENL_SET_ERR_MSG(info, "a damaged log was found (see the kernel log)");
		return err;
	default:
		GENL_SET_ERR_MSG(info, "garbage collection failed");
		return err;
	}
	return nova_msg_reply(msg, info, put_err);
}

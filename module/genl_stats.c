// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: NOVA_CMD_STATS_GET, the statistics of one file
 * system (doit) or of all (dump): space, inodes, per-operation counts and
 * times, GC, scrub and data protection counters (`novactl stats`,
 * novad). The figures are the core's (nova_fs_get_stats(), stats.c);
 * this file only translates.
 *
 * Locking (nova.h): both hold nova_ctl_lock, which keeps the super block
 * alive while nova_fs_get_stats() reads it under its inner locks.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "nova_ctl.h"
#include "genl.h"

static const char * const nova_op_names[NOVA_CTL_OP_NR] = {
	[NOVA_CTL_OP_READ]	= "read",
	[NOVA_CTL_OP_WRITE]	= "write",
	[NOVA_CTL_OP_FSYNC]	= "fsync",
	[NOVA_CTL_OP_FAULT]	= "fault",
	[NOVA_CTL_OP_LOOKUP]	= "lookup",
	[NOVA_CTL_OP_CREATE]	= "create",
	[NOVA_CTL_OP_MKDIR]	= "mkdir",
	[NOVA_CTL_OP_UNLINK]	= "unlink",
	[NOVA_CTL_OP_RMDIR]	= "rmdir",
	[NOVA_CTL_OP_RENAME]	= "rename",
	[NOVA_CTL_OP_LINK]	= "link",
	[NOVA_CTL_OP_SYMLINK]	= "symlink",
	[NOVA_CTL_OP_SETATTR]	= "setattr",
	[NOVA_CTL_OP_READDIR]	= "readdir",
};

static int nova_put_stat64(struct sk_buff *skb, int attr, u64 val)
{
	return nla_put_u64_64bit(skb, attr, val, NOVA_STATS_A_PAD);
}

static int nova_put_ops(struct sk_buff *skb, const struct nova_fs_stats *st)
{
	struct nlattr *op;
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(nova_op_names) != NOVA_CTL_OP_NR);
	for (i = 0; i < NOVA_CTL_OP_NR; i++) {
		op = nla_nest_start(skb, NOVA_STATS_A_OP);
		if (!op)
			return -EMSGSIZE;
		if (nla_put_string(skb, NOVA_OP_A_NAME, nova_op_names[i]) ||
		    nla_put_u64_64bit(skb, NOVA_OP_A_COUNT, st->op_count[i],
				      NOVA_OP_A_PAD) ||
		    nla_put_u64_64bit(skb, NOVA_OP_A_TIME_NS, st->op_time_ns[i],
				      NOVA_OP_A_PAD)) {
			nla_nest_cancel(skb, op);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, op);
	}
	return 0;
}

static int nova_put_prot64(struct sk_buff *skb, int attr, u64 val)
{
	return nla_put_u64_64bit(skb, attr, val, NOVA_PROT_A_PAD);
}

/* NOVA_STATS_A_PROTECTION: features and counters of data protection. */
static int nova_put_prot(struct sk_buff *skb, const struct nova_fs_stats *st)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_STATS_A_PROTECTION);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, NOVA_PROT_A_CSUM, st->prot_csum) ||
	    nla_put_u8(skb, NOVA_PROT_A_PARITY, st->prot_parity) ||
	    nla_put_u8(skb, NOVA_PROT_A_VERIFY, st->prot_verify) ||
	    nova_put_prot64(skb, NOVA_PROT_A_VERIFIED, st->prot_verified) ||
	    nova_put_prot64(skb, NOVA_PROT_A_REPAIRED, st->prot_repaired) ||
	    nova_put_prot64(skb, NOVA_PROT_A_UNRECOVERABLE,
			    st->prot_unrecoverable) ||
	    nova_put_prot64(skb, NOVA_PROT_A_BADBLOCKS, st->bb_blocks) ||
	    nova_put_prot64(skb, NOVA_PROT_A_BADBLOCKS_REPAIRED,
			    st->bb_repaired) ||
	    nova_put_prot64(skb, NOVA_PROT_A_BADBLOCKS_LOST, st->bb_lost) ||
	    nova_put_prot64(skb, NOVA_PROT_A_BADBLOCKS_WITHHELD,
			    st->bb_withheld)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int nova_put_stats(struct sk_buff *skb, const struct nova_fs_stats *st)
{
	struct nlattr *nest = nla_nest_start(skb, NOVA_A_STATS);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NOVA_STATS_A_FORMAT_VERSION, st->format_version) ||
	    nla_put_u32(skb, NOVA_STATS_A_CPUS, st->cpus) ||
	    nova_put_stat64(skb, NOVA_STATS_A_BLOCK_SIZE, st->block_size) ||
	    nova_put_stat64(skb, NOVA_STATS_A_BLOCKS_TOTAL, st->blocks_total) ||
	    nova_put_stat64(skb, NOVA_STATS_A_BLOCKS_FREE, st->blocks_free) ||
	    nova_put_stat64(skb, NOVA_STATS_A_INODES_TOTAL, st->inodes_total) ||
	    nova_put_stat64(skb, NOVA_STATS_A_INODES_FREE, st->inodes_free) ||
	    nova_put_stat64(skb, NOVA_STATS_A_LOG_PAGES, st->log_pages) ||
	    nova_put_stat64(skb, NOVA_STATS_A_DATA_PAGES, st->data_pages) ||
	    nova_put_stat64(skb, NOVA_STATS_A_EPOCH, st->epoch) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SNAPSHOTS, st->snapshots) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SNAPSHOT_RECLAIM_BLOCKS,
			    st->snap_reclaim_blocks) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SNAPSHOT_RECLAIM_INODES,
			    st->snap_reclaim_inodes) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SNAPSHOT_RECLAIMED,
			    st->snap_reclaimed) ||
	    nova_put_stat64(skb, NOVA_STATS_A_MOUNT_TIME_NS, st->mount_time_ns) ||
	    nla_put_u8(skb, NOVA_STATS_A_RECOVERED, st->recovered) ||
	    nla_put_u8(skb, NOVA_STATS_A_SPACE_CHECK_PENDING,
		       st->space_check_pending) ||
	    nla_put_u8(skb, NOVA_STATS_A_READ_ONLY, st->read_only) ||
	    nova_put_ops(skb, st) ||
	    nova_put_stat64(skb, NOVA_STATS_A_GC_FAST_PAGES, st->gc_fast_pages) ||
	    nova_put_stat64(skb, NOVA_STATS_A_GC_THOROUGH_RUNS,
			    st->gc_thorough_runs) ||
	    nova_put_stat64(skb, NOVA_STATS_A_GC_THOROUGH_PAGES,
			    st->gc_thorough_pages) ||
	    nova_put_stat64(skb, NOVA_STATS_A_GC_ENTRIES_COPIED,
			    st->gc_entries_copied) ||
	    nova_put_stat64(skb, NOVA_STATS_A_GC_TIME_NS, st->gc_time_ns) ||
	    nla_put_u32(skb, NOVA_STATS_A_SCRUB_STATE, st->scrub_state) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SCRUB_PASSES, st->scrub_passes) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SCRUB_BYTES, st->scrub_bytes) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SCRUB_ERRORS, st->scrub_errors) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SCRUB_REPAIRED,
			    st->scrub_repaired) ||
	    nova_put_stat64(skb, NOVA_STATS_A_SCRUB_UNRECOVERABLE,
			    st->scrub_unrecoverable) ||
	    nova_put_prot(skb, st)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int nova_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nova_fs_stats *st;
	struct nova_ctl_fs *fs;
	struct sk_buff *msg;
	int err;

	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mutex_lock(&nova_ctl_lock);
	fs = nova_ctl_lookup(info);
	if (IS_ERR(fs)) {
		err = PTR_ERR(fs);
	} else {
		nova_get_stats(fs, st);
		msg = nova_msg_new(info, NOVA_CMD_STATS_GET, fs, NULL,
				   GFP_KERNEL);
		err = nova_msg_reply(msg, info,
				     msg ? nova_put_stats(msg, st) : 0);
	}
	mutex_unlock(&nova_ctl_lock);
	kfree(st);
	return err;
}

/* One message of the STATS_GET dump (nova_ctl_dump()). */
static int nova_stats_fill(struct sk_buff *skb, const struct nova_ctl_fs *fs,
			   struct nova_fs_stats *st)
{
	nova_get_stats(fs, st);
	return nova_put_stats(skb, st);
}

/*
 * FS_LIST has no policy: with resv_start_op at 0 the core then rejects every
 * attribute. STATS_GET's policy admits the selector for the doit; a dump
 * covers every file system, so a selector there is an error. It is checked
 * here rather than in .start because 6.1 only passes an extack to .dumpit.
 */
int nova_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr **attrs = nova_genl_dump_attrs(info);
	int i;

	for (i = 0; i <= info->op.maxattr; i++) {
		if (attrs[i]) {
			NL_SET_ERR_MSG_ATTR(cb->extack, attrs[i],
					    "a stats dump covers every file system and takes no selector");
			return -EINVAL;
		}
	}
	return nova_ctl_dump(skb, cb, NOVA_CMD_STATS_GET, nova_stats_fill);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: operation counters and the statistics the control plane exports
 * (nova_fs_get_stats(), see nova_ctl.h).
 *
 * Counters are atomics in nova_sb_info; no locks are taken here.
 */
#include <linux/string.h>

#include "nova.h"

void nova_op_done(struct super_block *sb, enum nova_ctl_op op, u64 start)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	atomic64_inc(&sbi->op_count[op]);
	atomic64_add(ktime_get_ns() - start, &sbi->op_time_ns[op]);
}

void nova_fs_get_stats(struct super_block *sb, struct nova_fs_stats *st)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	int i;

	memset(st, 0, sizeof(*st));
	memcpy(st->uuid, sbi->dsb.s_uuid, sizeof(st->uuid));
	BUILD_BUG_ON(sizeof(st->label) < NOVA_LABEL_LEN);
	memcpy(st->label, sbi->dsb.s_label, NOVA_LABEL_LEN);
	st->label[NOVA_CTL_LABEL_LEN - 1] = '\0';
	st->format_version = le16_to_cpu(sbi->dsb.s_version_major) << 16 |
			     le16_to_cpu(sbi->dsb.s_version_minor);
	st->cpus = sbi->cpus;
	st->block_size = NOVA_BLOCK_SIZE;
	st->blocks_total = sbi->managed;
	st->blocks_free = nova_count_user_free(sb);
	nova_inode_counts(sb, &st->inodes_total, &st->inodes_free);
	st->log_pages = atomic_long_read(&sbi->log_pages);
	st->data_pages = atomic_long_read(&sbi->data_pages);
	st->epoch = sbi->epoch_id;
	st->snapshots = nova_snapshot_count(sb);
	st->mount_time_ns = sbi->mount_time_ns;
	st->recovered = sbi->recovered;
	st->read_only = sb_rdonly(sb);
	nova_gc_get_stats(sb, st);
	for (i = 0; i < NOVA_CTL_OP_NR; i++) {
		st->op_count[i] = atomic64_read(&sbi->op_count[i]);
		st->op_time_ns[i] = atomic64_read(&sbi->op_time_ns[i]);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: operation counters and the statistics the control plane exports
 * (nova_fs_get_stats(), see nova_ctl.h).
 *
 * Operation counters are per CPU (struct nova_op_stats), updated with
 * this_cpu operations, so the hot paths share no cache line; a reader sums
 * them without locks and may see an operation's count before its time.
 */
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "nova.h"
#include "pmem.h"
#include "scrub.h"

/*
 * Persistence fences and write-back calls issued by every NOVA mount
 * (pmem.h), summed by the read-only parameters
 * /sys/module/nova/parameters/{fences,flushes}: a test or the bench reads
 * them before and after a workload to count rounds per operation.
 */
DEFINE_PER_CPU(unsigned long, nova_fences);
DEFINE_PER_CPU(unsigned long, nova_flushes);

static unsigned long nova_pcpu_sum(unsigned long __percpu *c)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(c, cpu));
	return sum;
}

static int nova_fences_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", nova_pcpu_sum(&nova_fences));
}

static int nova_flushes_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", nova_pcpu_sum(&nova_flushes));
}

static const struct kernel_param_ops nova_fences_ops = {
	.get	= nova_fences_get,
};

static const struct kernel_param_ops nova_flushes_ops = {
	.get	= nova_flushes_get,
};

module_param_cb(fences, &nova_fences_ops, NULL, 0444);
MODULE_PARM_DESC(fences, "persistence fences issued since the module was loaded (read-only)");
module_param_cb(flushes, &nova_flushes_ops, NULL, 0444);
MODULE_PARM_DESC(flushes, "cache write-back calls issued since the module was loaded (read-only)");

int nova_stats_init(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	sbi->op_stats = alloc_percpu(struct nova_op_stats);
	return sbi->op_stats ? 0 : -ENOMEM;
}

void nova_stats_destroy(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	free_percpu(sbi->op_stats);
	sbi->op_stats = NULL;
}

#ifdef CONFIG_X86_TSC
DEFINE_STATIC_KEY_FALSE(nova_op_tsc);
#endif

/*
 * The clock of nova_op_start(), chosen once at module load: the TSC where
 * the kernel has one with a known rate (tsc_khz) that does not follow the
 * CPU's clock frequency (constant_tsc; a virtual CPU's TSC is the host's
 * or the emulator's, also at one rate), else local_clock().
 */
void nova_op_clock_init(void)
{
#ifdef CONFIG_X86_TSC
	if (boot_cpu_has(X86_FEATURE_TSC) && READ_ONCE(tsc_khz) &&
	    (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) ||
	     boot_cpu_has(X86_FEATURE_HYPERVISOR)))
		static_branch_enable(&nova_op_tsc);
#endif
}

/* Operation time units (TSC cycles or ns) to ns. */
static u64 nova_op_time_ns(u64 t)
{
#ifdef CONFIG_X86_TSC
	unsigned int khz = READ_ONCE(tsc_khz);

	if (static_branch_likely(&nova_op_tsc) && khz)
		return mul_u64_u32_div(t, NSEC_PER_MSEC, khz);
#endif
	return t;
}

void nova_op_done(struct super_block *sb, enum nova_ctl_op op, u64 start)
{
	struct nova_op_stats __percpu *s = NOVA_SB(sb)->op_stats;
	s64 d = nova_op_start() - start;

	this_cpu_inc(s->count[op]);
	/* A move to another CPU may see its clock behind. */
	if (d > 0)
		this_cpu_add(s->time_ns[op], d);
}

static void nova_op_stats_sum(struct nova_sb_info *sbi,
			      struct nova_fs_stats *st)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct nova_op_stats *s = per_cpu_ptr(sbi->op_stats, cpu);

		for (i = 0; i < NOVA_CTL_OP_NR; i++) {
			st->op_count[i] += READ_ONCE(s->count[i]);
			st->op_time_ns[i] += READ_ONCE(s->time_ns[i]);
		}
	}
	for (i = 0; i < NOVA_CTL_OP_NR; i++)
		st->op_time_ns[i] = nova_op_time_ns(st->op_time_ns[i]);
}

/* Protection features of the format and the counters protect.c keeps. */
static void nova_prot_stats(struct nova_sb_info *sbi, struct nova_fs_stats *st)
{
	st->prot_csum = sbi->prot & NOVA_FEATURE_DATA_CSUM;
	st->prot_parity = sbi->prot & NOVA_FEATURE_DATA_PARITY;
	st->prot_verify = st->prot_csum && READ_ONCE(sbi->verify);
	st->prot_verified = atomic64_read(&sbi->prot_verified);
	st->prot_repaired = atomic64_read(&sbi->prot_repaired);
	st->prot_unrecoverable = atomic64_read(&sbi->prot_unrecoverable);
	/* Written once, at mount, before the control plane sees sb. */
	st->bb_blocks = sbi->bb_blocks;
	st->bb_repaired = sbi->bb_repaired;
	st->bb_lost = sbi->bb_lost;
	st->bb_withheld = sbi->bb_withheld;
}

void nova_fs_get_stats(struct super_block *sb, struct nova_fs_stats *st)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

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
	nova_snapshot_reclaim_stats(sb, st);
	st->mount_time_ns = sbi->mount_time_ns;
	st->recovered = sbi->recovered;
	st->space_check_pending = READ_ONCE(sbi->space_check);
	st->read_only = sb_rdonly(sb);
	nova_gc_get_stats(sb, st);
	nova_op_stats_sum(sbi, st);
	nova_prot_stats(sbi, st);
	nova_scrub_stats(sb, st);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: module entry points, mount (fs_context), superblock, statfs,
 * remount and unmount.
 *
 * Mounting maps the whole PMEM device through DAX, reads the primary
 * superblock (or its replica in the last block), loads the journals, the
 * allocator state saved by the last clean unmount and the inode tables.
 * "-o init" formats the device first. While mounted read-write the
 * superblock says "dirty"; a clean unmount, a remount read-only or a
 * user's freeze saves the allocator and says "clean" again.
 *
 * Locking (nova.h): nova_sb_info.sb_mutex serialises the superblock
 * writes and is taken last: only allocator work runs under it.
 */
#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/dax.h>
#include <linux/pfn_t.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/seq_file.h>
#include <linux/uuid.h>
#include <linux/cred.h>
#include <linux/exportfs.h>
#include <linux/quotaops.h>

#include "abitmap.h"
#include "badblocks.h"
#include "csum.h"
#include "health.h"
#include "nova.h"
#include "nova_reserved.h"
#include "nova_sb.h"
#include "xattr.h"
#include "pmem.h"
#include "protect.h"

#define NOVA_LINK_MAX	65000

static struct kmem_cache *nova_inode_cachep;

u32 nova_crc(const void *buf, size_t len)
{
	return nova_crc32c(~0U, buf, len);
}

/* Pin every on-media size and offset that tools and old images rely on. */
static void __maybe_unused nova_check_ondisk_layout(void)
{
	BUILD_BUG_ON(sizeof(struct nova_super_block) != NOVA_SB_SIZE);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_csum) != 4);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_size) != 16);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_uuid) != 48);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_label) != 64);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_trans_id) != 128);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_alloc_start) != 168);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_csum_blocks) != 216);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_meta_replica) != 224);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_bitmap_start) != 232);
	BUILD_BUG_ON(offsetof(struct nova_super_block, s_reserved) != 248);
	BUILD_BUG_ON(NOVA_STRIPS != 8 || NOVA_CSUM_SLOT != 32);

	BUILD_BUG_ON(sizeof(struct nova_timespec) != 16);
	BUILD_BUG_ON(sizeof(struct nova_inode) != NOVA_INODE_SIZE);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_valid) != 0);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_log_head) != 8);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_log_tail) != 16);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_csum) != 24);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_ino) != 32);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_size) != 64);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_atime) != 72);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_create_trans) != 136);
	BUILD_BUG_ON(offsetof(struct nova_inode, i_inline) != 160);
	BUILD_BUG_ON(NOVA_RESERVED_INODES * NOVA_INODE_SIZE != NOVA_BLOCK_SIZE);

	BUILD_BUG_ON(sizeof(struct nova_inode_table) != 64);
	BUILD_BUG_ON(offsetof(struct nova_inode_table, it_csum) != 8);
	BUILD_BUG_ON(sizeof(struct nova_inode_table_tail) != NOVA_INODE_SIZE);
	BUILD_BUG_ON(offsetof(struct nova_inode_table_tail, itt_csum) != 8);
	BUILD_BUG_ON(offsetof(struct nova_inode_table_tail, itt_replica) != 24);
	BUILD_BUG_ON(NOVA_MAX_CPUS * sizeof(struct nova_inode_table) !=
		     NOVA_BLOCK_SIZE);
	BUILD_BUG_ON(NOVA_INODE_TABLE_BLOCKS != 512);
	BUILD_BUG_ON(NOVA_INODES_PER_TABLE != 8191);

	BUILD_BUG_ON(sizeof(struct nova_journal_ptr) != 64);
	BUILD_BUG_ON(offsetof(struct nova_journal_ptr, j_block) != 16);
	BUILD_BUG_ON(offsetof(struct nova_journal_ptr, j_csum) != 24);
	BUILD_BUG_ON(NOVA_MAX_CPUS * sizeof(struct nova_journal_ptr) !=
		     NOVA_BLOCK_SIZE);
	BUILD_BUG_ON(sizeof(struct nova_journal_entry) != 32);
	BUILD_BUG_ON(NOVA_JOURNAL_ENTRIES != 128);

	BUILD_BUG_ON(sizeof(struct nova_log_page_tail) != NOVA_LOG_TAIL_SIZE);
	BUILD_BUG_ON(offsetof(struct nova_log_page_tail, lt_ino) != 16);
	BUILD_BUG_ON(offsetof(struct nova_log_page_tail, lt_csum) != 28);
	BUILD_BUG_ON(sizeof(struct nova_log_entry_header) != 24);
	BUILD_BUG_ON(sizeof(struct nova_file_write_entry) != 72);
	BUILD_BUG_ON(offsetof(struct nova_file_write_entry, fw_dead_pages) != 36);
	BUILD_BUG_ON(sizeof(struct nova_dentry_entry) != 64);
	BUILD_BUG_ON(offsetof(struct nova_dentry_entry, de_name) != 64);
	BUILD_BUG_ON(sizeof(struct nova_setattr_entry) != 96);
	BUILD_BUG_ON(sizeof(struct nova_link_change_entry) != 48);
	BUILD_BUG_ON(sizeof(struct nova_range) != 16);
	BUILD_BUG_ON(sizeof(struct nova_free_ranges_entry) != 32);
	BUILD_BUG_ON(struct_size((struct nova_free_ranges_entry *)NULL,
				 fr_ranges, NOVA_RANGES_PER_ENTRY) !=
		     NOVA_LOG_DATA_SIZE);
	BUILD_BUG_ON(ALIGN(sizeof(struct nova_dentry_entry) + NOVA_NAME_LEN, 8) >
		     NOVA_LOG_DATA_SIZE);
	BUILD_BUG_ON(sizeof(struct nova_snapshot_entry) != 120);
	BUILD_BUG_ON(sizeof(struct nova_snapshot_del_entry) != 40);
	BUILD_BUG_ON(sizeof(struct nova_snapshot_keep_entry) != 56);
	BUILD_BUG_ON(NOVA_SNAPSHOT_NAME_LEN != NOVA_CTL_SNAPSHOT_NAME_LEN);
}

/* ---- superblock on media ---- */

static struct nova_super_block *nova_replica_sb(struct nova_sb_info *sbi)
{
	return nova_block(sbi, sbi->nblocks - 1);
}

/*
 * Write both superblock copies from sbi->dsb: primary, fence, replica,
 * fence. A crash leaves at least one copy intact.
 */
int nova_write_super(struct super_block *sb, u32 state)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block *d = &sbi->dsb;

	lockdep_assert_held(&sbi->sb_mutex);
	d->s_state = cpu_to_le32(state);
	d->s_write_time = cpu_to_le64(ktime_get_real_seconds());
	if (state == NOVA_STATE_CLEAN) {
		d->s_trans_id = cpu_to_le64(atomic64_read(&sbi->trans_id) + 1);
		d->s_log_pages = cpu_to_le64(atomic_long_read(&sbi->log_pages));
		d->s_data_pages = cpu_to_le64(atomic_long_read(&sbi->data_pages));
		d->s_free_blocks = cpu_to_le64(nova_count_free(sb));
	}
	d->s_epoch_id = cpu_to_le64(sbi->epoch_id);
	d->s_csum = cpu_to_le32(nova_sb_csum(d));
	nova_pmem_memcpy(nova_block(sbi, NOVA_SB_BLOCK), d, sizeof(*d));
	nova_pmem_fence();
	nova_pmem_memcpy(nova_replica_sb(sbi), d, sizeof(*d));
	nova_pmem_fence();
	return 0;
}

/* Writes may follow: say "dirty" first, then drop the saved state. */
static void nova_drop_clean(struct super_block *sb)
{
	lockdep_assert_held(&NOVA_SB(sb)->sb_mutex);
	nova_write_super(sb, NOVA_STATE_DIRTY);
	nova_release_state_pages(sb);
}

/* Becoming writable: a new mount (or remount) of a clean file system. */
static int nova_make_dirty(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	mutex_lock(&sbi->sb_mutex);
	sbi->dsb.s_mount_time = cpu_to_le64(ktime_get_real_seconds());
	le64_add_cpu(&sbi->dsb.s_mount_count, 1);
	nova_drop_clean(sb);
	mutex_unlock(&sbi->sb_mutex);
	return 0;
}

/* Unmount or remount read-only: save the allocator, then say "clean". */
static int nova_make_clean(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	int err;

	/* What deleted snapshots kept must be free in the saved state. */
	nova_snapshot_reclaim_drain(sb);
	/* After a fast recovery: its leaks freed (logged if it fails). */
	if (nova_recover_space_check(sb))
		return 0;
	mutex_lock(&sbi->sb_mutex);
	err = nova_save_alloc_state(sb);
	if (err)
		nova_err(sb, "cannot save the allocator state (%d); the file system stays marked dirty",
			 err);
	else
		nova_write_super(sb, NOVA_STATE_CLEAN);
	mutex_unlock(&sbi->sb_mutex);
	return err;
}

/*
 * FS_IOC_SETFSLABEL: a new label (shorter than NOVA_LABEL_LEN, checked by
 * the caller) in both superblock copies, written like every superblock
 * update (nova_write_super(): primary, fence, replica, fence; each with
 * its checksum), so a crash leaves the old or the new label in at least
 * one valid copy and mount takes the primary if it is valid. The state
 * stays what it is (dirty while mounted read-write). Readers of the DRAM
 * copy that do not take sb_mutex (statfs-like stats, events) may see a
 * mix of both labels while it changes.
 */
int nova_set_label(struct super_block *sb, const char *label)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	int err;

	mutex_lock(&sbi->sb_mutex);
	strscpy_pad(sbi->dsb.s_label, label, sizeof(sbi->dsb.s_label));
	err = nova_write_super(sb, le32_to_cpu(sbi->dsb.s_state));
	mutex_unlock(&sbi->sb_mutex);
	return err;
}

/*
 * Before the first entry of a 1.5 or 1.6 kind (@feature: NOVA_FEATURE_XATTR,
 * NOVA_FEATURE_RANGE_OPS, NOVA_FEATURE_FILEATTR) on a file system made
 * before that format: set the feature and raise s_version_minor to the
 * oldest minor version that has it (nova_features_min_minor()) in both
 * superblock copies,
 * durably, so that no module or tool that does not know the entry finds
 * one. The upgrade rule is in docs/format.md. Read-write mounts only (the
 * caller holds write access). The caller holds i_rwsem and no log_lock.
 */
int nova_enable_feature(struct super_block *sb, u32 feature, const char *what)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block *d = &sbi->dsb;
	int err = 0;

	if (READ_ONCE(sbi->prot) & feature)
		return 0;
	mutex_lock(&sbi->sb_mutex);
	if (!(le32_to_cpu(d->s_feature_incompat) & feature)) {
		u16 from = le16_to_cpu(d->s_version_minor);
		u32 incompat = le32_to_cpu(d->s_feature_incompat) | feature;

		d->s_feature_incompat = cpu_to_le32(incompat);
		d->s_version_minor = cpu_to_le16(max_t(u16, from,
					nova_features_min_minor(incompat)));
		err = nova_write_super(sb, le32_to_cpu(d->s_state));
		if (!err)
			nova_info(sb, "format upgraded from 1.%u to 1.%u: %s (feature 0x%x)",
				  from, le16_to_cpu(d->s_version_minor), what,
				  feature);
	}
	if (!err)
		WRITE_ONCE(sbi->prot, sbi->prot | feature);
	mutex_unlock(&sbi->sb_mutex);
	return err;
}

void nova_get_label(struct super_block *sb, char *buf, size_t len)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	mutex_lock(&sbi->sb_mutex);
	memset(buf, 0, len);
	memcpy(buf, sbi->dsb.s_label, min(len - 1, sizeof(sbi->dsb.s_label)));
	mutex_unlock(&sbi->sb_mutex);
}

/* ---- mount options ---- */

struct nova_fs_context {
	bool init;
	bool init_force;		/* -o init=force: format whatever is there */
	bool formatted;			/* nova_fill_super() ran the format */
	bool protection_set;		/* protection= given */
	u8 protection;			/* its value: NOVA_PROT_LEVEL_* */
	bool label_set;			/* label= given */
	bool no_protection;		/* -o init,protection=off */
	bool no_log_replica;		/* -o init,protection=nolog */
	bool alloc_bitmap;		/* -o init,alloc_bitmap (format 1.9) */
	bool no_verify;			/* -o verify=off */
	bool recovery_scan;		/* -o recovery=scan */
	int acl;			/* -o acl 1, noacl 0, not given -1 */
	int user_xattr;			/* -o user_xattr 1, nouser_xattr 0, -1 */
	int snapdir;			/* -o snapdir=visible 1, hidden 0, -1 */
	int dax;			/* -o dax or dax=always 1, not given -1 */
	int quota;			/* quota limits: mask of 1 << type, -1 */
	unsigned int cpus;
	char label[NOVA_LABEL_LEN];
	u64 snapshot;			/* -o snapshot=ID, 0: by name or live */
	char snapshot_name[NOVA_SNAPSHOT_NAME_LEN];	/* -o snapshot=NAME */
};

/* A snapshot was asked for (by id or by name). */
static bool nova_ctx_snapshot(const struct nova_fs_context *ctx)
{
	return ctx->snapshot || ctx->snapshot_name[0];
}

enum {
	Opt_init, Opt_init_mode, Opt_cpus, Opt_label, Opt_snapshot,
	Opt_protection, Opt_verify, Opt_acl, Opt_user_xattr, Opt_snapdir,
	Opt_usrquota, Opt_grpquota, Opt_prjquota, Opt_noquota, Opt_dax,
	Opt_dax_mode, Opt_alloc_bitmap, Opt_recovery,
};

static const struct constant_table nova_param_init[] = {
	{ "force",	1 },
	{}
};

/*
 * dax, dax=always, dax=never, dax=inode: ext4's and xfs's option. NOVA
 * always maps file data directly, so it takes the first two (fstab lines
 * written for ext4 -o dax, tools that ask for DAX) and refuses the others.
 */
enum { NOVA_DAX_ALWAYS, NOVA_DAX_NEVER, NOVA_DAX_INODE };

static const struct constant_table nova_param_dax[] = {
	{ "always",	NOVA_DAX_ALWAYS },
	{ "never",	NOVA_DAX_NEVER },
	{ "inode",	NOVA_DAX_INODE },
	{}
};

static const struct constant_table nova_param_onoff[] = {
	{ "on",		1 },
	{ "off",	0 },
	{}
};

/* recovery=: from the allocation bitmap if there is one, or scan always */
enum { NOVA_RECOVERY_AUTO, NOVA_RECOVERY_SCAN };

static const struct constant_table nova_param_recovery[] = {
	{ "auto",	NOVA_RECOVERY_AUTO },
	{ "scan",	NOVA_RECOVERY_SCAN },
	{}
};

/* protection=: on (everything), nolog (no log page mirrors), off */
enum { NOVA_PROT_LEVEL_OFF, NOVA_PROT_LEVEL_ON, NOVA_PROT_LEVEL_NOLOG };

static const char *const nova_prot_level_names[] = {
	[NOVA_PROT_LEVEL_OFF]	= "off",
	[NOVA_PROT_LEVEL_ON]	= "on",
	[NOVA_PROT_LEVEL_NOLOG]	= "nolog",
};

static const struct constant_table nova_param_protection[] = {
	{ "on",		NOVA_PROT_LEVEL_ON },
	{ "off",	NOVA_PROT_LEVEL_OFF },
	{ "nolog",	NOVA_PROT_LEVEL_NOLOG },
	{}
};

/*
 * The options a remount changes only if it gives them: acl/noacl and
 * user_xattr/nouser_xattr (as ext4 users write them in fstab, both on
 * unless turned off), snapdir and dax.
 */
static void nova_apply_given_options(struct super_block *sb,
				     const struct nova_fs_context *ctx)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (ctx->acl > 0)
		sb->s_flags |= SB_POSIXACL;
	else if (!ctx->acl)
		sb->s_flags &= ~SB_POSIXACL;
	if (ctx->user_xattr >= 0)
		sbi->user_xattr = ctx->user_xattr;
	if (ctx->snapdir >= 0)
		sbi->snapdir_visible = ctx->snapdir;
	if (ctx->dax >= 0)
		sbi->dax_shown = ctx->dax;
}

static const struct fs_parameter_spec nova_fs_parameters[] = {
	fsparam_flag("init", Opt_init),
	fsparam_enum("init", Opt_init_mode, nova_param_init),
	fsparam_enum("protection", Opt_protection, nova_param_protection),
	fsparam_enum("verify", Opt_verify, nova_param_onoff),
	fsparam_u32("cpus", Opt_cpus),
	fsparam_string("label", Opt_label),
	fsparam_string("snapshot", Opt_snapshot),
	fsparam_flag_no("acl", Opt_acl),
	fsparam_flag_no("user_xattr", Opt_user_xattr),
	fsparam_string("snapdir", Opt_snapdir),
	fsparam_flag("usrquota", Opt_usrquota),
	fsparam_flag("quota", Opt_usrquota),
	fsparam_flag("grpquota", Opt_grpquota),
	fsparam_flag("prjquota", Opt_prjquota),
	fsparam_flag("noquota", Opt_noquota),
	fsparam_flag("dax", Opt_dax),
	fsparam_enum("dax", Opt_dax_mode, nova_param_dax),
	fsparam_flag("alloc_bitmap", Opt_alloc_bitmap),
	fsparam_enum("recovery", Opt_recovery, nova_param_recovery),
	{}
};

/*
 * snapshot=ID or snapshot=NAME: names are never all digits (snapshot.c),
 * so digits are an id.
 */
static int nova_parse_snapshot(struct fs_context *fc,
			       struct nova_fs_context *ctx, const char *arg)
{
	ctx->snapshot = 0;
	ctx->snapshot_name[0] = 0;
	if (!*arg)
		return invalfc(fc, "snapshot=: give a snapshot id or name");
	if (!kstrtou64(arg, 10, &ctx->snapshot)) {
		if (!ctx->snapshot)
			return invalfc(fc, "snapshot=0: snapshot ids start at 1");
		return 0;
	}
	if (strspn(arg, "0123456789") == strlen(arg))
		return invalfc(fc, "snapshot=%s: not a valid snapshot id", arg);
	if (strlen(arg) >= NOVA_SNAPSHOT_NAME_LEN)
		return invalfc(fc, "snapshot=: a snapshot name has at most %d bytes",
			       NOVA_SNAPSHOT_NAME_LEN - 1);
	strscpy(ctx->snapshot_name, arg, sizeof(ctx->snapshot_name));
	return 0;
}

static int nova_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, nova_fs_parameters, param, &result);
	if (opt < 0)
		return opt;
	switch (opt) {
	case Opt_init:
		ctx->init = true;
		break;
	case Opt_init_mode:
		ctx->init = true;
		ctx->init_force = true;
		break;
	case Opt_protection:
		ctx->protection_set = true;
		ctx->protection = result.uint_32;
		ctx->no_protection = result.uint_32 == NOVA_PROT_LEVEL_OFF;
		ctx->no_log_replica = result.uint_32 != NOVA_PROT_LEVEL_ON;
		break;
	case Opt_verify:
		ctx->no_verify = !result.uint_32;
		break;
	case Opt_alloc_bitmap:
		ctx->alloc_bitmap = true;
		break;
	case Opt_recovery:
		ctx->recovery_scan = result.uint_32 == NOVA_RECOVERY_SCAN;
		break;
	case Opt_acl:
		ctx->acl = !result.negated;
		break;
	case Opt_user_xattr:
		ctx->user_xattr = !result.negated;
		break;
	case Opt_snapdir:
		/* Is .snapshots listed by readdir of the root (snapview.c)? */
		if (!strcmp(param->string, "hidden"))
			ctx->snapdir = 0;
		else if (!strcmp(param->string, "visible"))
			ctx->snapdir = 1;
		else
			return invalfc(fc, "snapdir=%s: must be hidden or visible",
				       param->string);
		break;
	case Opt_cpus:
		if (!result.uint_32 || result.uint_32 > NOVA_MAX_CPUS)
			return invalfc(fc, "cpus=%u: must be 1..%d",
				       result.uint_32, NOVA_MAX_CPUS);
		ctx->cpus = result.uint_32;
		break;
	case Opt_label:
		if (strlen(param->string) >= NOVA_LABEL_LEN)
			return invalfc(fc, "label is longer than %d bytes",
				       NOVA_LABEL_LEN - 1);
		strscpy(ctx->label, param->string, sizeof(ctx->label));
		ctx->label_set = true;
		break;
	case Opt_snapshot:
		return nova_parse_snapshot(fc, ctx, param->string);
	case Opt_usrquota:
	case Opt_grpquota:
	case Opt_prjquota:
		if (ctx->quota == 0)
			return invalfc(fc, "%s and noquota exclude each other",
				       param->key);
		ctx->quota = max(ctx->quota, 0) |
			     (opt == Opt_usrquota ? 1U << USRQUOTA :
			      opt == Opt_grpquota ? 1U << GRPQUOTA :
						    1U << PRJQUOTA);
		break;
	case Opt_dax_mode:
		if (result.uint_32 != NOVA_DAX_ALWAYS)
			return invalfc(fc, "dax=%s: NOVA always maps file data directly; only dax and dax=always are accepted",
				       param->string);
		fallthrough;
	case Opt_dax:
		ctx->dax = 1;
		break;
	case Opt_noquota:
		if (ctx->quota > 0)
			return invalfc(fc, "noquota and usrquota, grpquota or prjquota exclude each other");
		ctx->quota = 0;
		break;
	}
	return 0;
}

/*
 * Quota options: usrquota (or quota), grpquota and prjquota enforce
 * limits (quota.c); noquota names none. They need the live file system read-write
 * (a read-only mount accepts them and they apply when remounted
 * read-write). A remount that names them must name what is on.
 */
static int nova_check_quota_options(struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;

	if (ctx->quota > 0 && nova_ctx_snapshot(ctx))
		return invalfc(fc, "quota options and snapshot= exclude each other (a snapshot is read-only)");
	return 0;
}

/* ---- format and load ---- */

static void nova_reserved_inode(struct nova_sb_info *sbi, u64 ino,
				umode_t mode, unsigned int nlink)
{
	struct nova_inode *pi = nova_block(sbi, NOVA_RESERVED_INODE_BLOCK) +
				ino * NOVA_INODE_SIZE;
	struct nova_reserved_attrs a = {
		.mode = mode, .nlink = nlink, .parent = ino, .live = 1,
		.uid = from_kuid(&init_user_ns, current_fsuid()),
		.gid = from_kgid(&init_user_ns, current_fsgid()),
	};
	struct timespec64 now;
	struct nova_inode t;

	ktime_get_real_ts64(&now);
	a.sec = now.tv_sec;
	a.nsec = now.tv_nsec;
	/* The slot mkfs.NOVA writes too (uapi/nova_reserved.h). */
	nova_reserved_inode_fill(&t, ino, &a);
	/* Both copies are durable before the superblock makes them live. */
	nova_pmem_memcpy(pi, &t, sizeof(t));
	if (sbi->layout.meta_replica)
		nova_pmem_memcpy(nova_block(sbi, sbi->layout.meta_replica) +
				 ino * NOVA_INODE_SIZE, &t, sizeof(t));
}

static int nova_format(struct super_block *sb, struct nova_fs_context *ctx)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block *d = &sbi->dsb;
	struct nova_format_plan plan;
	int err;

	sbi->cpus = ctx->cpus ? ctx->cpus :
		    min_t(unsigned int, num_online_cpus(), NOVA_MAX_CPUS);
	sbi->prot = ctx->no_protection ? 0 : NOVA_FEATURE_PROT_ALL;
	if (ctx->no_log_replica)
		sbi->prot &= ~NOVA_FEATURE_LOG_REPLICA;
	/*
	 * 1.5: xattr and fallocate range entries, 1.6: file attribute flags,
	 * are allowed from the start.
	 */
	sbi->prot |= NOVA_FEATURE_1_5 | NOVA_FEATURE_1_6;
	if (ctx->alloc_bitmap)
		sbi->prot |= NOVA_FEATURE_ALLOC_BITMAP;
	/* Where everything goes: uapi/nova_plan.h, shared with mkfs.NOVA. */
	switch (nova_format_plan(sbi->nblocks, sbi->cpus, sbi->prot, &plan)) {
	case NOVA_PLAN_FINE:
		break;
	case NOVA_PLAN_NO_ROOM:
		nova_err(sb, "device too small for %u CPU stripes; use -o init,cpus=N with fewer",
			 sbi->cpus);
		return -ENOSPC;
	default:
		nova_err(sb, "device too small for the protection areas; use -o init,protection=off");
		return -ENOSPC;
	}
	sbi->layout = plan.layout;

	/* Old superblocks go first: a crash mid-format leaves no file system. */
	nova_pmem_memset(nova_block(sbi, NOVA_SB_BLOCK), 0, NOVA_BLOCK_SIZE);
	nova_pmem_memset(nova_replica_sb(sbi), 0, NOVA_BLOCK_SIZE);
	nova_pmem_fence();
	nova_pmem_memset(nova_block(sbi, NOVA_RESERVED_INODE_BLOCK), 0,
			 3 * NOVA_BLOCK_SIZE);
	if (sbi->layout.meta_replica)
		nova_pmem_memset(nova_block(sbi, sbi->layout.meta_replica), 0,
				 NOVA_BLOCK_SIZE);
	/* No file is mapped: the unprotected-inode list starts empty. */
	if (sbi->layout.mmap)
		nova_pmem_memset(nova_block(sbi, sbi->layout.mmap), 0,
				 NOVA_BLOCK_SIZE);
	nova_abm_format(sbi, &plan);
	nova_pmem_fence();

	err = nova_balloc_init(sb);
	if (err)
		return err;
	/* The free lists get what the plan leaves; the rest is metadata. */
	err = nova_balloc_add_free(sb, plan.free_start,
				   plan.free_end - plan.free_start);
	if (err)
		return err;
	atomic_long_set(&sbi->meta_blocks,
			sbi->managed - (plan.free_end - plan.free_start));
	err = nova_journal_format(sb, &plan);
	if (err)
		return err;
	err = nova_inode_tables_format(sb, &plan);
	if (err)
		return err;
	nova_reserved_inode(sbi, NOVA_ROOT_INO, S_IFDIR | 0755, 2);
	nova_reserved_inode(sbi, NOVA_ALLOC_INO, S_IFREG | 0600, 1);
	nova_reserved_inode(sbi, NOVA_SNAPSHOT_INO, S_IFREG | 0600, 1);
	nova_pmem_fence();

	memset(d, 0, sizeof(*d));
	d->s_magic = cpu_to_le32(NOVA_SUPER_MAGIC);
	d->s_version_major = cpu_to_le16(NOVA_FORMAT_MAJOR);
	/* The 1.5 and 1.6 features are always set: 1.6, or 1.9 with the bitmap. */
	d->s_version_minor = cpu_to_le16(nova_mkfs_minor(sbi->prot));
	d->s_blocksize = cpu_to_le32(NOVA_BLOCK_SIZE);
	d->s_size = cpu_to_le64(sbi->size);
	d->s_cpus = cpu_to_le32(sbi->cpus);
	d->s_feature_incompat = cpu_to_le32(sbi->prot);
	nova_layout_to_sb(d, &sbi->layout);
	generate_random_uuid(d->s_uuid);
	memcpy(d->s_label, ctx->label, NOVA_LABEL_LEN);
	d->s_mkfs_time = cpu_to_le64(ktime_get_real_seconds());
	atomic64_set(&sbi->trans_id, 1);
	/* Everything above is durable; now the file system exists. */
	mutex_lock(&sbi->sb_mutex);
	nova_write_super(sb, NOVA_STATE_CLEAN);
	mutex_unlock(&sbi->sb_mutex);
	nova_info(sb, "formatted: %llu MiB, %u CPU stripes, data checksums %s, parity %s, inode replicas %s, log mirrors %s",
		  sbi->size >> 20, sbi->cpus,
		  sbi->prot & NOVA_FEATURE_DATA_CSUM ? "on" : "off",
		  sbi->prot & NOVA_FEATURE_DATA_PARITY ? "on" : "off",
		  sbi->prot & NOVA_FEATURE_META_REPLICA ? "on" : "off",
		  sbi->prot & NOVA_FEATURE_LOG_REPLICA ? "on" : "off");
	return 0;
}

enum nova_sb_check { NOVA_SB_OK, NOVA_SB_NOT_NOVA, NOVA_SB_BAD,
		     NOVA_SB_FEATURES };

/* What nova_read_super() makes of a copy (uapi/nova_sb.h has the rules). */
static enum nova_sb_check nova_check_sb(struct nova_sb_info *sbi,
					const struct nova_super_block *s,
					u64 dev_size)
{
	switch (nova_sb_check(s, dev_size, nova_sb_csum(s))) {
	case NOVA_SB_FINE:
		return NOVA_SB_OK;
	case NOVA_SB_BAD_MAGIC:
		return NOVA_SB_NOT_NOVA;
	case NOVA_SB_UNKNOWN_FEATURES:
		return NOVA_SB_FEATURES;
	default:
		return NOVA_SB_BAD;
	}
}

/*
 * Is the primary @p, which failed with @pc, a damaged copy of the file
 * system whose valid replica is @r (nova_format.h has the rule)?
 */
static bool nova_primary_is_damaged_copy(struct nova_sb_info *sbi,
					 enum nova_sb_check pc,
					 const struct nova_super_block *p,
					 const struct nova_super_block *r)
{
	const char *foreign;

	if (pc == NOVA_SB_BAD)
		return true;
	if (pc != NOVA_SB_NOT_NOVA || !nova_sb_uuid_matches(p, r))
		return false;
	foreign = nova_probe_foreign(sbi);
	if (foreign) {
		nova_info(sbi->sb, "the device holds a %s signature: the NOVA superblock replica in the last block is a leftover",
			  foreign);
		return false;
	}
	nova_warn(sbi->sb, "primary superblock has a bad magic 0x%08x but this file system's UUID",
		  le32_to_cpu(p->s_magic));
	return true;
}

static int nova_read_super(struct super_block *sb, struct fs_context *fc)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	struct nova_super_block *p = nova_block(sbi, NOVA_SB_BLOCK);
	struct nova_super_block *r = nova_replica_sb(sbi);
	enum nova_sb_check pc, rc;

	pc = nova_check_sb(sbi, p, sbi->size);
	if (pc == NOVA_SB_OK) {
		sbi->dsb = *p;
		return 0;
	}
	if (pc == NOVA_SB_FEATURES) {
		nova_warn(sb, "unknown incompatible features 0x%x: not mounting",
			  le32_to_cpu(p->s_feature_incompat) &
			  ~NOVA_FEATURE_INCOMPAT_SUPP);
		errorfc(fc, "%s: unknown incompatible features 0x%x (this module knows 0x%x): not mounting",
			sb->s_id, le32_to_cpu(p->s_feature_incompat) &
			~NOVA_FEATURE_INCOMPAT_SUPP,
			NOVA_FEATURE_INCOMPAT_SUPP);
		return -EINVAL;
	}
	/*
	 * The replica stands in for a damaged primary, but must not bring
	 * back a NOVA that the device was reformatted over (the rule is
	 * written once, above nova_sb_uuid_matches() in nova_format.h). A
	 * read-write mount rewrites the primary from it (nova_make_dirty()).
	 */
	rc = nova_check_sb(sbi, r, sbi->size);
	if (rc == NOVA_SB_OK && le64_to_cpu(r->s_size) == sbi->size &&
	    nova_primary_is_damaged_copy(sbi, pc, p, r)) {
		nova_warn(sb, "primary superblock is damaged, using the replica");
		sbi->dsb = *r;
		return 0;
	}
	if (pc == NOVA_SB_NOT_NOVA) {
		errorfc(fc, "%s: no NOVA file system (mount with -o init to create one)",
			sb->s_id);
		return -EINVAL;
	}
	nova_err(sb, "both superblocks are damaged");
	errorfc(fc, "%s: damaged NOVA superblock", sb->s_id);
	return -EFSCORRUPTED;
}

static int nova_load(struct super_block *sb, struct fs_context *fc)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	bool clean;
	int err;

	err = nova_read_super(sb, fc);
	if (err)
		return err;
	sbi->size = le64_to_cpu(sbi->dsb.s_size);
	sbi->nblocks = sbi->size >> NOVA_BLOCK_SHIFT;
	sbi->cpus = le32_to_cpu(sbi->dsb.s_cpus);
	sbi->prot = le32_to_cpu(sbi->dsb.s_feature_incompat);
	nova_layout_compute(sbi->nblocks, sbi->prot, &sbi->layout);
	sbi->epoch_id = le64_to_cpu(sbi->dsb.s_epoch_id);
	clean = le32_to_cpu(sbi->dsb.s_state) == NOVA_STATE_CLEAN;

	err = nova_journal_load(sb);
	if (err)
		return err;
	/* Transactions rolled back before any commit word is read. */
	if (!clean) {
		err = nova_recover_journals(sb);
		if (err)
			return err;
	}
	/* Before recovery, which must claim the blocks snapshots keep. */
	err = nova_snapshot_load(sb);
	if (err)
		return err;

	err = nova_balloc_init(sb);
	if (err)
		return err;
	if (clean) {
		atomic64_set(&sbi->trans_id, le64_to_cpu(sbi->dsb.s_trans_id));
		atomic_long_set(&sbi->log_pages,
				le64_to_cpu(sbi->dsb.s_log_pages));
		atomic_long_set(&sbi->data_pages,
				le64_to_cpu(sbi->dsb.s_data_pages));
		err = nova_restore_alloc_state(sb);
		if (err)
			return err;
	} else {
		/* Journal rollback and allocator rebuild (recovery.c). */
		return nova_recover(sb);
	}
	return nova_inode_tables_load(sb, true);
}

/* ---- super operations ---- */

static struct inode *nova_alloc_inode(struct super_block *sb)
{
	struct nova_inode_info *ni;

	ni = alloc_inode_sb(sb, nova_inode_cachep, GFP_NOFS);
	if (!ni)
		return NULL;
	/*
	 * Every field the constructor does not set, before anything can
	 * evict the inode: nova_read_inode() may fail before it gets to
	 * nova_init_ni(), and dquot_drop() reads i_dquot on every eviction.
	 * Kernels booted with init_on_alloc=1 (Debian's default) hide a
	 * field missed here; the debug kernel does not (docs/testing.md).
	 */
	nova_init_ni(ni);
	ni->pi_off = 0;
	ni->last_append = 0;
	ni->crtime = (struct timespec64){};
	ni->snap_born = 0;
	ni->snap_dead = 0;
	ni->view_id = 0;
	ni->view_ino = 0;
	ni->view_live = NULL;
	ni->view_counted = false;
	atomic_set(&ni->wmaps, 0);
	ni->mmap_listed = false;
	ni->mmap_defer_queued = false;
	memset(ni->i_dquot, 0, sizeof(ni->i_dquot));
	ni->quota_rsv = 0;
	return &ni->vfs_inode;
}

static void nova_free_inode(struct inode *inode)
{
	kmem_cache_free(nova_inode_cachep, NOVA_I(inode));
}

static void nova_inode_init_once(void *obj)
{
	struct nova_inode_info *ni = obj;

	mutex_init(&ni->log_lock);
	xa_init(&ni->pages);
	xa_init(&ni->dpos);
	ni->names = RB_ROOT;
	inode_init_once(&ni->vfs_inode);
}

static void nova_put_super(struct super_block *sb)
{
	nova_quota_off(sb);
	/* Shut down: left as a power cut would, recovered at the next mount. */
	if (!sb_rdonly(sb) && !nova_is_shutdown(sb))
		nova_make_clean(sb);
}

static int nova_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	unsigned long free = nova_count_user_free(sb);
	u64 files, ffree;

	nova_inode_counts(sb, &files, &ffree);
	buf->f_type = NOVA_SUPER_MAGIC;
	buf->f_bsize = NOVA_BLOCK_SIZE;
	buf->f_frsize = NOVA_BLOCK_SIZE;
	buf->f_blocks = sbi->managed;
	buf->f_bfree = free;
	buf->f_bavail = free > sbi->reserve ? free - sbi->reserve : 0;
	buf->f_files = files;
	buf->f_ffree = ffree;
	buf->f_namelen = NOVA_NAME_LEN;
	buf->f_fsid = u64_to_fsid(huge_encode_dev(sb->s_bdev->bd_dev));
	return 0;
}

static int nova_show_options(struct seq_file *seq, struct dentry *root)
{
	struct nova_sb_info *sbi = NOVA_SB(root->d_sb);

	seq_printf(seq, ",cpus=%u", sbi->cpus);
	if (sbi->dsb.s_label[0])
		seq_printf(seq, ",label=%.*s", NOVA_LABEL_LEN,
			   sbi->dsb.s_label);
	if (sbi->view_epoch != NOVA_EPOCH_LIVE)
		seq_printf(seq, ",snapshot=%llu", sbi->view_id);
	if (!(root->d_sb->s_flags & SB_POSIXACL))
		seq_puts(seq, ",noacl");
	if (!sbi->user_xattr)
		seq_puts(seq, ",nouser_xattr");
	if (sbi->snapdir_visible)
		seq_puts(seq, ",snapdir=visible");
	if (sbi->dax_shown)
		seq_puts(seq, ",dax=always");
	if (sbi->quota_opts & (1U << USRQUOTA))
		seq_puts(seq, ",usrquota");
	if (sbi->quota_opts & (1U << GRPQUOTA))
		seq_puts(seq, ",grpquota");
	if (sbi->quota_opts & (1U << PRJQUOTA))
		seq_puts(seq, ",prjquota");
	if (sbi->prot & NOVA_FEATURE_ALLOC_BITMAP)
		seq_puts(seq, ",alloc_bitmap");
	if (sbi->recovery_scan)
		seq_puts(seq, ",recovery=scan");
	if (!(sbi->prot & NOVA_FEATURE_DATA_CSUM))
		seq_puts(seq, ",protection=off");
	else if (!sbi->verify)
		seq_puts(seq, ",verify=off");
	return 0;
}

static int nova_sync_fs(struct super_block *sb, int wait)
{
	/*
	 * Every operation is durable when it returns; quota usage is
	 * written back to the quota files here (quota.c). Shut down,
	 * there is nothing left to write (as ext4).
	 */
	if (nova_is_shutdown(sb))
		return 0;
	return dquot_writeback_dquots(sb, -1);
}

/*
 * Is an inode without links still in memory? Its blocks are freed when it
 * is evicted, and only crash recovery frees them if that never happens.
 * An inode being read in (I_NEW) may not have its link count yet: it
 * counts too, which only costs the clean state.
 */
static bool nova_any_unlinked_inode(struct super_block *sb)
{
	struct inode *inode;
	bool found = false;

	spin_lock(&sb->s_inode_list_lock);
	list_for_each_entry(inode, &sb->s_inodes, i_sb_list) {
		if (!READ_ONCE(inode->i_nlink) && !nova_is_view(inode)) {
			found = true;
			break;
		}
	}
	spin_unlock(&sb->s_inode_list_lock);
	return found;
}

/*
 * A user's freeze (FIFREEZE, fsfreeze, a device freeze) leaves the media
 * as a clean unmount does, as ext4 and XFS leave their journals: the
 * allocator saved and the superblock "clean", so that a copy of the frozen
 * device, or a power cut while frozen, mounts without crash recovery.
 *
 * By the time this runs, freeze_super() holds s_umount exclusively and
 * has drained every writer (syscalls, page faults, evict of dead inodes,
 * all under sb_start_*()), and every operation is durable when it
 * returns; background GC and scrub check the frozen state under s_umount,
 * and the genl snapshot delete takes sb_start_write_trylock(). So the
 * allocator cannot change until the thaw.
 *
 * The media stays "dirty", as before, while something that only crash
 * recovery puts right is live: an inode without links that is still open
 * (its blocks are still allocated), or a file mapped writable (stores
 * through the mapping pass the freeze, and recovery checksums the file
 * again). Nor does a snapshot's own freeze (snapshot.c) save anything:
 * it thaws as soon as its record is written.
 */
static int nova_freeze_fs(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	if (sbi->snap_freezing || nova_is_shutdown(sb) ||
	    nova_prot_any_mapped(sb) || nova_any_unlinked_inode(sb))
		return 0;
	/* A failure is logged and leaves the media dirty: still consistent. */
	nova_make_clean(sb);
	return 0;
}

/* Thaw: writers come back; say "dirty" before the first of them. */
static int nova_unfreeze_fs(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	/* Only nova_freeze_fs() says "clean" on a read-write mount. */
	if (le32_to_cpu(sbi->dsb.s_state) != NOVA_STATE_CLEAN)
		return 0;
	/* Shut down while frozen: nothing is written, and nothing was. */
	if (nova_is_shutdown(sb))
		return 0;
	mutex_lock(&sbi->sb_mutex);
	nova_drop_clean(sb);
	mutex_unlock(&sbi->sb_mutex);
	return 0;
}

#if NOVA_KERNEL_AT_LEAST(6, 6)
/*
 * 6.6+ lets a user's freeze (FIFREEZE, a block device freeze) nest in the
 * kernel freeze that a snapshot holds: it would return while the snapshot
 * still writes its record, and the user would copy a changing medium.
 * Wait for the snapshot to thaw first (nova_snapshot_create() holds
 * freeze_mutex from its freeze to its thaw); the snapshot then finds the
 * file system frozen by the user and refuses, as on 6.1.
 */
static int nova_freeze_super_op(struct super_block *sb,
				enum freeze_holder who)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	int err;

	mutex_lock(&sbi->freeze_mutex);
	err = freeze_super(sb, who);
	mutex_unlock(&sbi->freeze_mutex);
	return err;
}
#define NOVA_FREEZE_SUPER_OP	.freeze_super = nova_freeze_super_op,
#else
/* Before 6.6 a second freeze fails with -EBUSY: nothing to wait for. */
#define NOVA_FREEZE_SUPER_OP
#endif

/* Snapshot view inodes go with their last reference (snapview.c). */
static int nova_drop_inode(struct inode *inode)
{
	return nova_is_view(inode) || generic_drop_inode(inode);
}

static const struct super_operations nova_sops = {
	.alloc_inode	= nova_alloc_inode,
	.free_inode	= nova_free_inode,
	.drop_inode	= nova_drop_inode,
	.evict_inode	= nova_evict_inode,
	.put_super	= nova_put_super,
	.sync_fs	= nova_sync_fs,
	.freeze_fs	= nova_freeze_fs,
	.unfreeze_fs	= nova_unfreeze_fs,
	NOVA_FREEZE_SUPER_OP
	.statfs		= nova_statfs,
	.show_options	= nova_show_options,
	.get_dquots	= nova_get_dquots,
	.quota_read	= nova_quota_read,
	.quota_write	= nova_quota_write,
};

/* Media failures on the DAX device: reported; repair is a later feature. */
static int nova_notify_failure(struct dax_device *dax_dev, u64 offset,
			       u64 len, int mf_flags)
{
	struct nova_sb_info *sbi = dax_holder(dax_dev);

	if (sbi && sbi->sb)
		nova_err(sbi->sb, "media failure at offset %llu, %llu bytes",
			 offset, len);
	return -EOPNOTSUPP;
}

static const struct dax_holder_operations nova_dax_holder_ops = {
	.notify_failure	= nova_notify_failure,
};

static void nova_free_sbi(struct nova_sb_info *sbi)
{
	nova_stats_destroy(sbi->sb);
	nova_gc_destroy(sbi->sb);
	nova_snapshot_destroy(sbi->sb);
	nova_inode_tables_destroy(sbi->sb);
	nova_journal_destroy(sbi->sb);
	nova_balloc_destroy(sbi->sb);
	if (sbi->virt)
		nova_pmtrace_detach(sbi->virt);
	if (sbi->dax_dev)
		fs_put_dax(sbi->dax_dev, sbi);
	kfree(sbi);
}

/*
 * Where 2 MiB-aligned physical addresses fall among the blocks: the
 * allocator keeps such chunks whole for PMD mappings (balloc.c). Without
 * an answer (a media error on block 0) it assumes block 0 is aligned,
 * which only costs PMD mappings.
 */
static void nova_find_huge_skew(struct nova_sb_info *sbi)
{
	void *kaddr;
	pfn_t pfn;
	int id;

	sbi->huge_skew = 0;
	id = dax_read_lock();
	if (dax_direct_access(sbi->dax_dev, sbi->dax_part_off >> PAGE_SHIFT, 1,
			      DAX_ACCESS, &kaddr, &pfn) > 0)
		sbi->huge_skew = pfn_t_to_pfn(pfn) & (NOVA_HUGE_BLOCKS - 1);
	dax_read_unlock(id);
}

/* Map the device: all of it, through DAX. */
static int nova_map_device(struct super_block *sb, struct fs_context *fc)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);
	long avail;
	int id;

	sbi->dax_dev = fs_dax_get_by_bdev(sb->s_bdev, &sbi->dax_part_off, sbi,
					  &nova_dax_holder_ops);
	if (!sbi->dax_dev) {
		errorfc(fc, "%s: the device does not support DAX (NOVA needs an fsdax pmem namespace)",
			sb->s_id);
		return -EINVAL;
	}
	sbi->size = bdev_nr_bytes(sb->s_bdev) & ~((u64)NOVA_BLOCK_SIZE - 1);
	sbi->nblocks = sbi->size >> NOVA_BLOCK_SHIFT;
	if (sbi->nblocks < NOVA_MIN_BLOCKS) {
		errorfc(fc, "%s: device too small (%llu bytes, need %u)",
			sb->s_id, sbi->size, NOVA_MIN_BLOCKS * NOVA_BLOCK_SIZE);
		return -EINVAL;
	}
	id = dax_read_lock();
	avail = nova_bb_map_device(sbi);
	dax_read_unlock(id);
	if (avail < 0 || avail < sbi->nblocks) {
		errorfc(fc, "%s: cannot map the whole device (%ld of %lu pages)",
			sb->s_id, avail, sbi->nblocks);
		return avail < 0 ? avail : -EINVAL;
	}
	nova_find_huge_skew(sbi);
	/* test module: the persistence checker may record this device */
	nova_pmtrace_attach(sb, sbi->virt, sbi->size);
	return 0;
}

/*
 * -o init formats the device. Without "=force" it refuses a device that
 * holds a file system (NOVA or another known one, probe.c), naming it, so
 * that a mistyped device or a forgotten fstab option loses nothing.
 */
static int nova_init_allowed(struct super_block *sb, struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	const char *found;

	if (ctx->init_force)
		return 0;
	found = nova_probe_device(NOVA_SB(sb));
	if (!found)
		return 0;
	errorfc(fc, "%s: init: the device holds a %s signature; not formatting it (mount -o init=force overwrites it)",
		sb->s_id, found);
	return -EEXIST;
}

static int nova_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	u64 start = ktime_get_ns();
	struct nova_sb_info *sbi;
	struct inode *root;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sbi->sb = sb;
	mutex_init(&sbi->sb_mutex);
	mutex_init(&sbi->freeze_mutex);
	nova_prot_init_sb(sbi);
	sbi->verify = !ctx->no_verify;
	sbi->recovery_scan = ctx->recovery_scan;
	sb->s_fs_info = sbi;
	err = nova_gc_init(sb);
	if (err)
		return err;
	err = nova_stats_init(sb);
	if (err)
		return err;

	if (!sb_set_blocksize(sb, NOVA_BLOCK_SIZE)) {
		errorfc(fc, "%s: cannot use 4 KiB blocks", sb->s_id);
		return -EINVAL;
	}
	err = nova_map_device(sb, fc);
	if (err)
		return err;

	if (ctx->init) {
		if (sb_rdonly(sb) || bdev_read_only(sb->s_bdev)) {
			errorfc(fc, "init needs a writable, read-write mount");
			return -EROFS;
		}
		err = nova_init_allowed(sb, fc);
		if (err)
			return err;
		ctx->formatted = true;
		err = nova_format(sb, ctx);
		if (!err)
			err = nova_snapshot_load(sb);
	} else {
		err = nova_load(sb, fc);
	}
	if (!err)
		err = nova_prot_load(sb);
	if (err)
		return err;
	if (nova_ctx_snapshot(ctx)) {
		err = nova_snapshot_select(sb, fc, ctx->snapshot,
					   ctx->snapshot_name);
		if (err)
			return err;
	}

	sb->s_magic = NOVA_SUPER_MAGIC;
	sb->s_op = &nova_sops;
	sb->s_export_op = &nova_export_ops;
	sb->s_xattr = nova_xattr_handlers;
	nova_quota_setup_sb(sb);
	sb->s_flags |= SB_POSIXACL;
	sbi->user_xattr = true;
	nova_apply_given_options(sb, ctx);
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	/* The page offsets replay and fsck.NOVA accept (nova_pages_in_file()). */
	BUILD_BUG_ON((MAX_LFS_FILESIZE >> PAGE_SHIFT) != NOVA_MAX_PGOFF);
	sb->s_max_links = NOVA_LINK_MAX;
	sb->s_time_gran = 1;
	sb->s_time_min = S64_MIN;
	sb->s_time_max = S64_MAX;
	sb->s_flags |= SB_NOSEC;
	memcpy(&sb->s_uuid, sbi->dsb.s_uuid, sizeof(sb->s_uuid));

	root = nova_iget(sb, NOVA_ROOT_INO);
	if (IS_ERR(root)) {
		/* A free root slot is damage, not a stale handle. */
		err = PTR_ERR(root) == -ESTALE ? -EFSCORRUPTED : PTR_ERR(root);
		nova_err(sb, "cannot read the root directory: %d", err);
		return err;
	}
	if (!S_ISDIR(root->i_mode)) {
		iput(root);
		nova_err(sb, "root inode is not a directory");
		return -EFSCORRUPTED;
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;

	if (!sb_rdonly(sb)) {
		err = nova_make_dirty(sb);
		if (err)
			return err;
	}
	sbi->quota_opts = max(ctx->quota, 0);
	if (!sb_rdonly(sb) && sbi->view_epoch == NOVA_EPOCH_LIVE) {
		err = nova_quota_on(sb, sbi->quota_opts);
		if (err) {
			errorfc(fc, "%s: cannot turn quotas on (%d)", sb->s_id,
				err);
			return err;
		}
	}
	nova_bb_mount(sb);
	sbi->mount_time_ns = ktime_get_ns() - start;
	nova_report_event(sb, NOVA_EVENT_MOUNTED, NULL);
	return 0;
}

/* The protection= level a file system was made with. */
static u8 nova_prot_level(const struct nova_sb_info *sbi)
{
	if (!(sbi->prot & NOVA_FEATURE_DATA_CSUM))
		return NOVA_PROT_LEVEL_OFF;
	if (!(sbi->prot & NOVA_FEATURE_LOG_REPLICA))
		return NOVA_PROT_LEVEL_NOLOG;
	return NOVA_PROT_LEVEL_ON;
}

/*
 * cpus=, label= and protection= are chosen by init and kept in the
 * superblock. Without init (a plain mount, a second mount of a mounted
 * device, a remount) they may only repeat what the file system has, as an
 * fstab line copied from /proc/mounts does; anything else is refused, never
 * silently ignored. The label changes online with FS_IOC_SETFSLABEL.
 */
static int nova_check_fixed_options(struct fs_context *fc,
				    const struct nova_sb_info *sbi)
{
	struct nova_fs_context *ctx = fc->fs_private;

	if (ctx->cpus && ctx->cpus != sbi->cpus)
		return invalfc(fc, "cpus=%u: the file system has %u per-CPU structures; cpus= takes effect only with init",
			       ctx->cpus, sbi->cpus);
	if (ctx->label_set &&
	    strncmp(ctx->label, sbi->dsb.s_label, NOVA_LABEL_LEN))
		return invalfc(fc, "label=%s: the label is \"%.*s\"; label= takes effect only with init (FS_IOC_SETFSLABEL changes it online)",
			       ctx->label, NOVA_LABEL_LEN, sbi->dsb.s_label);
	if (ctx->alloc_bitmap &&
	    !(sbi->prot & NOVA_FEATURE_ALLOC_BITMAP))
		return invalfc(fc, "alloc_bitmap: the file system was made without an allocation bitmap; alloc_bitmap takes effect only with init");
	if (ctx->protection_set && ctx->protection != nova_prot_level(sbi))
		return invalfc(fc, "protection=%s: the file system was made with protection=%s; protection= takes effect only with init (verify=off turns off read verification)",
			       nova_prot_level_names[ctx->protection],
			       nova_prot_level_names[nova_prot_level(sbi)]);
	return 0;
}

/*
 * The id of the snapshot @ctx asks for on mounted @sb (a name is looked up
 * among its live snapshots), 0 for the live file system, U64_MAX for a
 * name no live snapshot has.
 */
static u64 nova_ctx_snapshot_id(struct super_block *sb,
				const struct nova_fs_context *ctx)
{
	struct nova_snapshot_info info;

	if (!ctx->snapshot_name[0])
		return ctx->snapshot;
	if (nova_snapshot_lookup(sb, 0, ctx->snapshot_name, &info))
		return U64_MAX;
	return info.id;
}

/*
 * A mount of a device that was already mounted shares its super block
 * (nova_fill_super() did not run): it must ask for what is mounted.
 */
static int nova_check_shared_mount(struct fs_context *fc,
				   struct super_block *sb)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	u64 shown;

	if (ctx->init && !ctx->formatted) {
		errorfc(fc, "%s: init: the device is mounted; unmount it first",
			sb->s_id);
		return -EBUSY;
	}
	shown = sbi->view_epoch == NOVA_EPOCH_LIVE ? 0 : sbi->view_id;
	if (shown != nova_ctx_snapshot_id(sb, ctx)) {
		if (shown)
			errorfc(fc, "%s: snapshot %llu of this device is mounted; unmount it first",
				sb->s_id, shown);
		else
			errorfc(fc, "%s: the live file system is mounted; a snapshot can be mounted only when it is not",
				sb->s_id);
		return -EBUSY;
	}
	if (ctx->formatted)
		return 0;
	return nova_check_fixed_options(fc, sbi);
}

/*
 * One super block per device: a device that is already mounted is shared
 * (and get_tree_bdev() refuses a read-only mount of a read-write one with
 * EBUSY). A mount that asks for another view than the one mounted fails.
 */
static int nova_get_tree(struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct super_block *sb;
	int err;

	if (nova_ctx_snapshot(ctx) && !(fc->sb_flags & SB_RDONLY))
		return invalfc(fc, "snapshot: a snapshot can only be mounted read-only (-o ro)");
	if (nova_ctx_snapshot(ctx) && ctx->init)
		return invalfc(fc, "snapshot and init exclude each other");
	err = nova_check_quota_options(fc);
	if (err)
		return err;
	err = get_tree_bdev(fc, nova_fill_super);
	if (err)
		return err;
	sb = fc->root->d_sb;
	err = nova_check_shared_mount(fc, sb);
	if (!err)
		return 0;
	dput(fc->root);
	fc->root = NULL;
	deactivate_locked_super(sb);
	return err;
}

static int nova_reconfigure(struct fs_context *fc)
{
	struct nova_fs_context *ctx = fc->fs_private;
	struct super_block *sb = fc->root->d_sb;
	struct nova_sb_info *sbi = NOVA_SB(sb);
	bool want_ro = fc->sb_flags & SB_RDONLY;
	int err;

	if (ctx->init)
		return invalfc(fc, "init cannot be used on remount");
	if (nova_is_shutdown(sb)) {
		errorfc(fc, "%s is shut down: unmount it, then mount to recover",
			sb->s_id);
		return -EIO;
	}
	err = nova_check_fixed_options(fc, sbi);
	if (!err)
		err = nova_check_quota_options(fc);
	if (err)
		return err;
	if (ctx->quota >= 0 && ctx->quota != sbi->quota_opts)
		return invalfc(fc, "quota options cannot change on remount (quotaon and quotaoff turn limits on and off)");
	sbi->verify = !ctx->no_verify;
	nova_apply_given_options(sb, ctx);
	if (nova_ctx_snapshot(ctx) && (sbi->view_epoch == NOVA_EPOCH_LIVE ||
				       nova_ctx_snapshot_id(sb, ctx) !=
				       sbi->view_id))
		return invalfc(fc, "snapshot= cannot be changed on remount");
	if (sbi->view_epoch != NOVA_EPOCH_LIVE && !want_ro)
		return invalfc(fc, "snapshot %llu is mounted: a snapshot is read-only",
			       sbi->view_id);
	sync_filesystem(sb);
	if (want_ro == sb_rdonly(sb))
		return 0;
	if (want_ro) {
		nova_prot_flush(sb);
		nova_quota_off(sb);
		return nova_make_clean(sb);
	}
	if (le32_to_cpu(sbi->dsb.s_state) != NOVA_STATE_CLEAN &&
	    !sbi->recovered)
		return invalfc(fc, "not cleanly unmounted and not recovered: read-write needs fsck.NOVA first");
	if (bdev_read_only(sb->s_bdev))
		return invalfc(fc, "the device is read-only");
	err = nova_make_dirty(sb);
	if (err)
		return err;
	/* The quota files are written as soon as they load (as ext4). */
	sb->s_flags &= ~SB_RDONLY;
	err = nova_quota_on(sb, sbi->quota_opts);
	if (err) {
		sb->s_flags |= SB_RDONLY;
		nova_make_clean(sb);
	}
	return err;
}

static void nova_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations nova_context_ops = {
	.parse_param	= nova_parse_param,
	.get_tree	= nova_get_tree,
	.reconfigure	= nova_reconfigure,
	.free		= nova_free_fc,
};

static int nova_init_fs_context(struct fs_context *fc)
{
	struct nova_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->acl = -1;
	ctx->user_xattr = -1;
	ctx->snapdir = -1;
	ctx->dax = -1;
	ctx->quota = -1;
	fc->fs_private = ctx;
	fc->ops = &nova_context_ops;
	return 0;
}

static void nova_kill_sb(struct super_block *sb)
{
	struct nova_sb_info *sbi = NOVA_SB(sb);

	/* Listeners let go of sb; then nobody else finds its scrub. */
	nova_report_event(sb, NOVA_EVENT_UNMOUNTING, NULL);
	/*
	 * The scrub thread and GC hold inode references: stop them before
	 * the VFS evicts.
	 */
	if (sbi) {
		nova_prot_flush(sb);
		nova_scrub_free(sbi->scrub);
		sbi->scrub = NULL;
		nova_gc_stop(sb);
	}
	kill_block_super(sb);
	if (sbi)
		nova_free_sbi(sbi);
}

static struct file_system_type nova_fs_type = {
	.owner			= THIS_MODULE,
	.name			= NOVA_FS_NAME,
	.init_fs_context	= nova_init_fs_context,
	.parameters		= nova_fs_parameters,
	.kill_sb		= nova_kill_sb,
	.fs_flags		= FS_REQUIRES_DEV,
};

static int __init nova_init(void)
{
	int err;

	nova_check_ondisk_layout();
	nova_csum_init();
	nova_op_clock_init();
	err = nova_ctl_init();
	if (err)
		return err;
	nova_inode_cachep = kmem_cache_create("nova_inode_cache",
					      sizeof(struct nova_inode_info), 0,
					      SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					      nova_inode_init_once);
	if (!nova_inode_cachep) {
		err = -ENOMEM;
		goto out_ctl;
	}
	err = register_filesystem(&nova_fs_type);
	if (err) {
		pr_err("nova: error: cannot register file system type: %d\n", err);
		goto out_cache;
	}
	pr_info("nova: file system type %s registered\n", NOVA_FS_NAME);
	return 0;

out_cache:
	kmem_cache_destroy(nova_inode_cachep);
out_ctl:
	nova_ctl_exit();
	return err;
}

static void __exit nova_exit(void)
{
	unregister_filesystem(&nova_fs_type);
	/* Inodes are freed through RCU: wait before destroying the cache. */
	rcu_barrier();
	kmem_cache_destroy(nova_inode_cachep);
	pr_info("nova: file system type %s unregistered\n", NOVA_FS_NAME);
	nova_ctl_exit();
	nova_pmtrace_exit();
}

module_init(nova_init);
module_exit(nova_exit);

MODULE_AUTHOR("NOVA for Linux developers");
MODULE_DESCRIPTION("NOVA: log-structured file system for persistent memory");
MODULE_LICENSE("GPL");
MODULE_ALIAS_FS(NOVA_FS_NAME);

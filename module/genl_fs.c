// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: the registry of mounted NOVA file systems that the
 * requests name (by device or UUID), kept from the MOUNTED to the
 * UNMOUNTING event of the event chain (health.h), with the identity each
 * message carries; the FS_MOUNTED, FS_UNMOUNTED events and the FS_LIST
 * dump; the rate limit of the CORRUPTION events of each file system.
 *
 * Locking (nova.h): nova_ctl_lock is taken with no file-system lock held;
 * under it, nova_fs_get_stats() takes the file system's inner locks (it
 * also keeps the super block alive, because the UNMOUNTING event
 * (nova_ctl_fs_unmounting()) must take it before the sb goes away).
 * Entries are freed after an RCU grace period: the damage listener reads
 * the list under RCU. A cached label changes under nova_ctl_label_lock.
 */
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
#include "health.h"

/* The registry: the list, its ids and generation (genl.h exports it). */
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
int nova_put_identity_sb(struct sk_buff *skb, struct super_block *sb)
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

void nova_get_stats(const struct nova_ctl_fs *fs, struct nova_fs_stats *st)
{
	lockdep_assert_held(&nova_ctl_lock);
	memset(st, 0, sizeof(*st));
	nova_fs_get_stats(fs->sb, st);
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

/* One message of the FS_LIST dump (nova_ctl_dump(); @st unused). */
static int nova_fs_list_fill(struct sk_buff *skb, const struct nova_ctl_fs *fs,
			     struct nova_fs_stats *st)
{
	if (nla_put_u32(skb, NOVA_A_FS_FORMAT_VERSION, fs->format_version) ||
	    nla_put_u8(skb, NOVA_A_FS_READ_ONLY, sb_rdonly(fs->sb)))
		return -EMSGSIZE;
	return 0;
}

int nova_fs_list_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nova_ctl_dump(skb, cb, NOVA_CMD_FS_LIST, nova_fs_list_fill);
}

/* Multicast a mount/unmount notification if anyone listens. */
static void nova_ctl_notify(const struct nova_ctl_fs *fs, u8 cmd)
{
	struct sk_buff *msg = nova_msg_new(NULL, cmd, fs, NULL, GFP_KERNEL);

	if (msg)
		nova_msg_multicast(msg, 0, fs->sb, GFP_KERNEL);
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
int nova_ctl_event(struct notifier_block *nb, unsigned long event, void *data)
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

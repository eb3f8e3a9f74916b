// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: ioctls of files and directories.
 *
 *   FS_IOC_GETFSLABEL   the label, NUL-terminated, in an FSLABEL_MAX buffer
 *   FS_IOC_SETFSLABEL   change it online (CAP_SYS_ADMIN, a writable
 *                       mount); at most NOVA_LABEL_LEN - 1 bytes, longer
 *                       is EINVAL. Both superblock copies are rewritten
 *                       (nova_set_label()), then the control plane's copy;
 *                       a change uevent on the block device lets udev
 *                       move its /dev/disk/by-label link (nova_id).
 *
 *   NOVA_IOC_SHUTDOWN   the shutdown ioctl of ext4, xfs and f2fs (the same
 *                       number, XFS_IOC_GOINGDOWN: what xfs_io -c shutdown
 *                       and fstests' godown call; CAP_SYS_ADMIN). Every
 *                       operation is durable when it returns, so the three
 *                       flags (sync first, flush the log, flush nothing)
 *                       all mean the same here: from now on nothing is
 *                       read or written (nova_is_shutdown()), and the
 *                       unmount leaves the medium as a power cut would;
 *                       the next mount recovers.
 *
 * FS_IOC_GETFLAGS/SETFLAGS and FS_IOC_FSGETXATTR/FSSETXATTR reach the
 * inode's fileattr_get/fileattr_set through the VFS, not this file.
 *
 * Locking (nova.h): sb_writers (mnt_want_write_file), then sb_mutex; the
 * control plane's registry (nova_ctl_lock, above sb_writers) learns the
 * new label only after both are released.
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/mount.h>
#include <linux/uaccess.h>

#include "health.h"
#include "nova.h"

static int nova_ioc_getfslabel(struct file *file, char __user *arg)
{
	char label[FSLABEL_MAX];

	BUILD_BUG_ON(NOVA_LABEL_LEN >= FSLABEL_MAX);
	nova_get_label(file_inode(file)->i_sb, label, sizeof(label));
	if (copy_to_user(arg, label, sizeof(label)))
		return -EFAULT;
	return 0;
}

static int nova_ioc_setfslabel(struct file *file, char __user *arg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	char label[FSLABEL_MAX];
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(label, arg, sizeof(label)))
		return -EFAULT;
	if (strnlen(label, sizeof(label)) >= NOVA_LABEL_LEN)
		return -EINVAL;
	if (nova_is_shutdown(sb))
		return -EIO;
	err = mnt_want_write_file(file);
	if (err)
		return err;
	err = nova_set_label(sb, label);
	mnt_drop_write_file(file);
	if (err)
		return err;
	nova_report_event(sb, NOVA_EVENT_RELABELLED, label);
	/* Best effort: the label is changed whether or not udev hears it. */
	kobject_uevent(&sb->s_bdev->bd_device.kobj, KOBJ_CHANGE);
	return 0;
}

/* ext4's EXT4_IOC_SHUTDOWN and flags, xfs's XFS_IOC_GOINGDOWN. */
#define NOVA_IOC_SHUTDOWN		_IOR('X', 125, __u32)
#define NOVA_GOING_FLAGS_DEFAULT	0	/* sync, then shut down */
#define NOVA_GOING_FLAGS_LOGFLUSH	1	/* flush the log, not data */
#define NOVA_GOING_FLAGS_NOLOGFLUSH	2	/* flush nothing */

static int nova_ioc_shutdown(struct file *file, u32 __user *arg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	u32 flags;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (get_user(flags, arg))
		return -EFAULT;
	if (flags > NOVA_GOING_FLAGS_NOLOGFLUSH)
		return -EINVAL;
	if (nova_is_shutdown(sb))
		return 0;
	/*
	 * Operations running now finish (each is atomic and durable when
	 * it returns); every later one fails before it writes.
	 */
	WRITE_ONCE(NOVA_SB(sb)->shutdown, true);
	nova_info(sb, "shut down (flags %u): every operation fails with EIO; unmount, then mount to recover",
		  flags);
	return 0;
}

long nova_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case FS_IOC_GETFSLABEL:
		return nova_ioc_getfslabel(file, uarg);
	case FS_IOC_SETFSLABEL:
		return nova_ioc_setfslabel(file, uarg);
	case NOVA_IOC_SHUTDOWN:
		return nova_ioc_shutdown(file, uarg);
	default:
		return -ENOTTY;
	}
}

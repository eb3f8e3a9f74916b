// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: module entry points and file system type registration.
 */
#define pr_fmt(fmt) "nova: " fmt

#include <linux/module.h>
#include <linux/fs_context.h>

#include "nova.h"

static int nova_init_fs_context(struct fs_context *fc)
{
	return invalfc(fc, "mounting is not implemented yet");
}

static struct file_system_type nova_fs_type = {
	.owner			= THIS_MODULE,
	.name			= NOVA_FS_NAME,
	.init_fs_context	= nova_init_fs_context,
	.kill_sb		= kill_block_super,
	.fs_flags		= FS_REQUIRES_DEV,
};

static int __init nova_init(void)
{
	int err;

	err = register_filesystem(&nova_fs_type);
	if (err) {
		pr_err("error: cannot register file system type: %d\n", err);
		return err;
	}
	pr_info("file system type %s registered\n", NOVA_FS_NAME);
	return 0;
}

static void __exit nova_exit(void)
{
	unregister_filesystem(&nova_fs_type);
	pr_info("file system type %s unregistered\n", NOVA_FS_NAME);
}

module_init(nova_init);
module_exit(nova_exit);

MODULE_AUTHOR("NOVA for Linux developers");
MODULE_DESCRIPTION("NOVA: log-structured file system for persistent memory");
MODULE_LICENSE("GPL");
MODULE_ALIAS_FS(NOVA_FS_NAME);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: in-DRAM structures and helpers shared by the module's files.
 * The on-media format lives in uapi/, not here.
 */
#ifndef _NOVA_H
#define _NOVA_H

#include <linux/fs.h>
#include <linux/printk.h>

#define NOVA_FS_NAME	"NOVA"

/*
 * Messages name the device. Errors use the "error:" tag, which the guest
 * test harness treats as a failure unless a test declares it expected.
 */
#define nova_err(sb, fmt, ...) \
	pr_err("nova (%s): error: " fmt "\n", (sb)->s_id, ##__VA_ARGS__)
#define nova_warn(sb, fmt, ...) \
	pr_warn("nova (%s): " fmt "\n", (sb)->s_id, ##__VA_ARGS__)
#define nova_info(sb, fmt, ...) \
	pr_info("nova (%s): " fmt "\n", (sb)->s_id, ##__VA_ARGS__)

#endif /* _NOVA_H */

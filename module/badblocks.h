/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA and the pmem driver's bad-block list (badblocks.c): mapping a
 * device with listed bad sectors, and checking the listed blocks at mount.
 */
#ifndef _NOVA_BADBLOCKS_H
#define _NOVA_BADBLOCKS_H

struct nova_sb_info;
struct super_block;

/* Map the whole device (caller holds dax_read_lock()); pages or -errno. */
long nova_bb_map_device(struct nova_sb_info *sbi);
/*
 * Check, repair and report the listed bad blocks of a loaded file system
 * (fill_super, after the root inode is read, before it is announced).
 * Never fails the mount.
 */
void nova_bb_mount(struct super_block *sb);

#endif /* _NOVA_BADBLOCKS_H */

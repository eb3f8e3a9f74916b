/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Recognise what a device already holds, so that mkfs.NOVA does not
 * overwrite another file system by accident: a small built-in table of
 * well-known signatures, NOVA's included (probe.c, shared with the
 * kernel's "mount -o init"), then libblkid (probe_blkid.c).
 */
#ifndef NOVA_TOOLS_PROBE_H
#define NOVA_TOOLS_PROBE_H

#include "dev.h"

/*
 * Name of the first signature found on @d ("ext2/3/4", "xfs", "NOVA", ...)
 * or NULL if none is recognised. Reads at most the first 128 KiB.
 */
const char *nova_probe_signature(struct nova_dev *d);

/*
 * The first signature other than NOVA's (a NOVA superblock and, say, an
 * ext4 one in the same first blocks: which one is current cannot be
 * told), or NULL.
 */
const char *nova_probe_other_signature(struct nova_dev *d);

/*
 * What libblkid recognises on @d: a file system, RAID or volume manager
 * member type ("minix", "LVM2_member", ...), "TYPE partition table", or
 * "more than one"; NULL if nothing (or @d is a memory device).
 */
const char *nova_probe_foreign(struct nova_dev *d);

#endif

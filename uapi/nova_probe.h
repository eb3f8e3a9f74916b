/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * What a device holds before NOVA is written over it.
 *
 * A small table of well-known signatures (a magic string at a fixed byte
 * offset from the start of the device), shared by the kernel module's
 * `mount -o init` and by mkfs.NOVA so that both refuse the same devices.
 * It is no substitute for libblkid: it names the common Linux file
 * systems, swap, LUKS and partition tables, which is what an accidental
 * format usually hits. Every entry lies within the first
 * NOVA_PROBE_BYTES of the device. Include this header only where the table
 * is used (it defines a static array).
 */
#ifndef _UAPI_NOVA_PROBE_H
#define _UAPI_NOVA_PROBE_H

#include <linux/types.h>

#define NOVA_PROBE_BYTES	(128U << 10)

struct nova_signature {
	const char	*name;
	__u32		off;
	__u32		len;
	const char	*magic;
};

static const struct nova_signature nova_signatures[] = {
	{ "NOVA",		0,	4,  "AVON" },	/* le32 0x4e4f5641 */
	{ "ext2/ext3/ext4",	0x438,	2,  "\x53\xef" },
	{ "xfs",		0,	4,  "XFSB" },
	{ "btrfs",		0x10040, 8, "_BHRfS_M" },
	{ "f2fs",		0x400,	4,  "\x10\x20\xf5\xf2" },
	{ "LUKS",		0,	6,  "LUKS\xba\xbe" },
	{ "swap",		0xff6,	10, "SWAPSPACE2" },
	{ "swap",		0xff6,	10, "SWAP-SPACE" },
	{ "squashfs",		0,	4,  "hsqs" },
	{ "iso9660",		0x8001,	5,  "CD001" },
	{ "GPT partition table", 0x200,	8,  "EFI PART" },
	{ "vfat",		0x52,	5,  "FAT32" },
	{ "vfat",		0x36,	3,  "FAT" },
	{ "DOS partition table or boot sector", 0x1fe, 2, "\x55\xaa" },
};

#define NOVA_NR_SIGNATURES \
	(sizeof(nova_signatures) / sizeof(nova_signatures[0]))

#endif /* _UAPI_NOVA_PROBE_H */

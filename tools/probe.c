// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Signature probes: a magic string at a fixed offset.
 */
#include <string.h>

#include "le.h"
#include "probe.h"

#define PROBE_BYTES	(128U << 10)

struct signature {
	const char *name;
	uint32_t off;
	uint32_t len;
	const char *magic;
};

static const struct signature signatures[] = {
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

static const char *probe(struct nova_dev *d, bool skip_nova)
{
	static unsigned char buf[PROBE_BYTES];
	size_t n = d->size < PROBE_BYTES ? (size_t)d->size : PROBE_BYTES;
	size_t i;

	memset(buf, 0, sizeof(buf));
	if (ndev_read(d, 0, buf, n, NULL))
		return NULL;
	for (i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++) {
		const struct signature *s = &signatures[i];

		if (skip_nova && !strcmp(s->name, "NOVA"))
			continue;
		if (s->off + s->len <= n &&
		    !memcmp(buf + s->off, s->magic, s->len))
			return s->name;
	}
	return NULL;
}

const char *nova_probe_signature(struct nova_dev *d)
{
	return probe(d, false);
}

const char *nova_probe_other_signature(struct nova_dev *d)
{
	return probe(d, true);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: what a device holds before "mount -o init" formats it.
 *
 * "-o init" overwrites the whole device, so, like mkfs.NOVA without -f, it
 * refuses a device that holds one of the well-known signatures of
 * uapi/nova_probe.h (the table mkfs.NOVA uses; NOVA's own magic is one of
 * them) or a NOVA superblock replica in the last block, so a NOVA whose
 * primary superblock is damaged or zeroed is still found. "-o init=force" skips
 * the check.
 *
 * The device is read through its DAX mapping with copy_mc_to_kernel(), so
 * a poisoned block is skipped (an unreadable signature is no signature)
 * instead of taking a machine check.
 */
#include <linux/uaccess.h>

#include <nova_probe.h>

#include "nova.h"

/* Does the device's byte range [@off, @off + @len) read as @magic? */
static bool nova_probe_match(struct nova_sb_info *sbi, u64 off, u32 len,
			     const void *magic)
{
	u8 buf[16];

	if (len > sizeof(buf) || off + len > sbi->size)
		return false;
	if (copy_mc_to_kernel(buf, (u8 *)nova_block(sbi, 0) + off, len))
		return false;
	return !memcmp(buf, magic, len);
}

/* The NOVA superblock replica in the last block, with its magic. */
static bool nova_probe_replica(struct nova_sb_info *sbi)
{
	__le32 magic = cpu_to_le32(NOVA_SUPER_MAGIC);

	return nova_probe_match(sbi, (u64)(sbi->nblocks - 1) << NOVA_BLOCK_SHIFT,
				sizeof(magic), &magic);
}

/*
 * The first signature of uapi/nova_probe.h found at the start of the
 * device, NOVA's own left out with @skip_nova; NULL if none.
 */
static const char *nova_probe_table(struct nova_sb_info *sbi, bool skip_nova)
{
	unsigned int i;

	BUILD_BUG_ON(NOVA_MIN_BLOCKS * NOVA_BLOCK_SIZE < NOVA_PROBE_BYTES);
	for (i = 0; i < ARRAY_SIZE(nova_signatures); i++) {
		const struct nova_signature *s = &nova_signatures[i];

		if (skip_nova && !strcmp(s->name, "NOVA"))
			continue;
		if (nova_probe_match(sbi, s->off, s->len, s->magic))
			return s->name;
	}
	return NULL;
}

/**
 * nova_probe_foreign() - is another file system's signature at the start?
 * @sbi: the file system, its device mapped
 *
 * Return: the name of the first signature of uapi/nova_probe.h other than
 * NOVA's own found on the device, or NULL.
 */
const char *nova_probe_foreign(struct nova_sb_info *sbi)
{
	return nova_probe_table(sbi, true);
}

/**
 * nova_probe_device() - name what the mapped device already holds
 * @sbi: the file system being formatted, its device mapped
 *
 * Return: "NOVA", the name of another known signature, or NULL if none is
 * found.
 */
const char *nova_probe_device(struct nova_sb_info *sbi)
{
	/* The start of the device first: it says what was made last. */
	const char *found = nova_probe_table(sbi, false);

	/* Else a NOVA whose primary superblock is damaged or zeroed. */
	if (!found && nova_probe_replica(sbi))
		found = "NOVA";
	return found;
}

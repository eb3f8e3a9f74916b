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

/**
 * nova_probe_foreign() - is another file system's signature at the start?
 * @sbi: the file system, its device mapped
 *
 * Return: the name of the first signature of uapi/nova_probe.h other than
 * NOVA's own found on the device, or NULL.
 */
const char *nova_probe_foreign(struct nova_sb_info *sbi)
{
	unsigned int i;

	for (i = 0; i < NOVA_NR_SIGNATURES; i++) {
		const struct nova_signature *s = &nova_signatures[i];

		if (strcmp(s->name, "NOVA") &&
		    nova_probe_match(sbi, s->off, s->len, s->magic))
			return s->name;
	}
	return NULL;
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
	unsigned int i;

	BUILD_BUG_ON(NOVA_PROBE_BYTES > NOVA_MIN_BLOCKS * NOVA_BLOCK_SIZE);
	/* The start of the device first: it says what was made last. */
	for (i = 0; i < NOVA_NR_SIGNATURES; i++) {
		const struct nova_signature *s = &nova_signatures[i];

		if (nova_probe_match(sbi, s->off, s->len, s->magic))
			return s->name;
	}
	/* A NOVA whose primary superblock is damaged or zeroed. */
	if (nova_probe_replica(sbi))
		return "NOVA";
	return NULL;
}

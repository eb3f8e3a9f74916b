// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nova_id: identify a NOVA file system for udev, the way udev's blkid
 * builtin identifies the file systems libblkid knows (libblkid cannot be
 * taught NOVA from here, so udev/61-nova.rules imports this instead).
 *
 *   nova_id DEVICE|FILE
 *
 * Prints ID_FS_TYPE, ID_FS_USAGE, ID_FS_VERSION, ID_FS_UUID(_ENC) and
 * ID_FS_LABEL(_ENC) as KEY=VALUE lines for IMPORT{program}. The superblock
 * is accepted as the kernel accepts it at mount: the primary (block 0) if
 * it is valid; if it is damaged, the replica in the last block when that
 * is valid and describes a file system as large as the device, and the
 * primary is a damaged copy by the rule of nova_sb_uuid_matches()
 * (nova_format.h): a primary without the magic counts only if its UUID
 * bytes are the replica's, so that a surviving replica of a reformatted
 * device does not bring the old file system's UUID back. A device where
 * another file system's signature sits in the first blocks is not NOVA
 * either (libblkid calls a device with two signatures ambivalent and
 * identifies neither).
 *
 * Exit status: 0 NOVA found (properties printed), 1 not NOVA or both
 * superblocks damaged (nothing printed), 2 the device cannot be read.
 */
#include <stdio.h>
#include <string.h>

#include "dev.h"
#include "format.h"
#include "le.h"
#include "mkfs.h"
#include "probe.h"

/* The characters udev leaves alone in ID_FS_*_ENC and in /dev/disk links. */
static bool enc_plain(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
	       (c >= 'a' && c <= 'z') || strchr("#+-.:=@_", c);
}

/* Length of a valid UTF-8 multibyte sequence at @s (at most @n), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * ID_FS_LABEL_ENC: as blkid_encode_string(): plain characters and valid
 * UTF-8 kept, everything else (space, '/', '\\', control bytes) as \xNN.
 */
static void label_encode(const char *in, char *out, size_t out_len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in), i = 0, o = 0, u;

	while (i < n && o + 5 < out_len) {
		u = utf8_len(s + i, n - i);
		if (u) {
			memcpy(out + o, s + i, u);
			o += u;
			i += u;
		} else if (enc_plain(s[i])) {
			out[o++] = (char)s[i++];
		} else {
			o += (size_t)snprintf(out + o, out_len - o, "\\x%02x", s[i++]);
		}
	}
	out[o] = 0;
}

/*
 * ID_FS_LABEL: as blkid_safe_string(): surrounding white space dropped,
 * each inner run of it replaced by '_', control characters by '?'.
 */
static void label_safe(const char *in, char *out, size_t out_len)
{
	const char *ws = " \t\n\r\v\f";
	const unsigned char *s = (const unsigned char *)in;
	size_t n = strlen(in), i = 0, o = 0;

	while (n && strchr(ws, s[n - 1]))
		n--;
	while (i < n && strchr(ws, s[i]))
		i++;
	while (i < n && o + 1 < out_len) {
		if (strchr(ws, s[i])) {
			while (i < n && strchr(ws, s[i]))
				i++;
			out[o++] = '_';
		} else {
			out[o++] = s[i] < 0x20 || s[i] == 0x7f ? '?' : (char)s[i];
			i++;
		}
	}
	out[o] = 0;
}

static bool read_sb(struct nova_dev *d, uint64_t off,
		    struct nova_super_block *sb)
{
	memset(sb, 0, sizeof(*sb));
	return !ndev_read(d, off, sb, sizeof(*sb), NULL);
}

int main(int argc, char **argv)
{
	struct nova_super_block p, r;
	const struct nova_super_block *sb;
	const char *other;
	struct nova_dev dev;
	struct nerr e;
	char why[160], rwhy[160], uuid[37], label[NOVA_LABEL_LEN + 1];
	char safe[4 * NOVA_LABEL_LEN + 1], enc[4 * NOVA_LABEL_LEN + 1];
	uint64_t size;
	bool magic;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: nova_id DEVICE|FILE\n"
			"Prints udev ID_FS_* properties of the NOVA file system on DEVICE.\n");
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	if (ndev_open(&dev, argv[1], 0, &e)) {
		fprintf(stderr, "nova_id: %s\n", e.msg);
		return 2;
	}
	size = dev.size & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	if (size < (uint64_t)NOVA_MIN_BLOCKS * NOVA_BLOCK_SIZE ||
	    !read_sb(&dev, 0, &p)) {
		ndev_close(&dev);
		return 1;
	}
	magic = le32(p.s_magic) == NOVA_SUPER_MAGIC;
	other = nova_probe_other_signature(&dev);
	if (other) {
		if (magic)
			fprintf(stderr, "nova_id: %s: a NOVA superblock and a %s signature: not identifying it\n",
				argv[1], other);
		ndev_close(&dev);
		return 1;
	}
	sb = &p;
	if (!nova_sb_valid(&p, size, why, sizeof(why))) {
		/* Quiet for the many devices that never were NOVA. */
		if (!read_sb(&dev, size - NOVA_BLOCK_SIZE, &r) ||
		    !nova_sb_valid(&r, size, rwhy, sizeof(rwhy)) ||
		    le64(r.s_size) != size ||
		    (!magic && !nova_sb_uuid_matches(&p, &r))) {
			if (magic)
				fprintf(stderr, "nova_id: %s: primary superblock: %s; the replica is unusable too\n",
					argv[1], why);
			ndev_close(&dev);
			return 1;
		}
		fprintf(stderr, "nova_id: %s: primary superblock: %s; using the replica\n",
			argv[1], why);
		sb = &r;
	}
	ndev_close(&dev);

	nova_format_uuid(sb->s_uuid, uuid);
	memcpy(label, sb->s_label, NOVA_LABEL_LEN);
	label[NOVA_LABEL_LEN] = 0;
	printf("ID_FS_TYPE=NOVA\n");
	printf("ID_FS_USAGE=filesystem\n");
	printf("ID_FS_VERSION=%u.%u\n", le16(sb->s_version_major),
	       le16(sb->s_version_minor));
	printf("ID_FS_UUID=%s\n", uuid);
	printf("ID_FS_UUID_ENC=%s\n", uuid);
	if (label[0]) {
		label_safe(label, safe, sizeof(safe));
		label_encode(label, enc, sizeof(enc));
		printf("ID_FS_LABEL=%s\n", safe);
		printf("ID_FS_LABEL_ENC=%s\n", enc);
	}
	return 0;
}

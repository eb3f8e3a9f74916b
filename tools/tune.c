// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * tune.NOVA: change the label or UUID of an unmounted NOVA file system,
 * as tune2fs -L/-U and xfs_admin -L/-U do (a mounted one changes its
 * label online with FS_IOC_SETFSLABEL, e.g. xfs_io -c "label -s NAME").
 *
 *   tune.NOVA [-L LABEL] [-U UUID|random] [-l] DEVICE|FILE
 *
 * The device is opened exclusively (a mounted block device is refused).
 * Both superblock copies must be valid and agree: anything else is
 * fsck.NOVA's to repair first. The primary is rewritten and made durable,
 * then the replica, as the kernel writes them, so a crash in between
 * leaves a valid primary that the next mount copies to the replica.
 * Nothing else refers to the label or the UUID. udev sees the change
 * when the device is closed (its block-device watch) and moves the
 * /dev/disk/by-label and by-uuid links.
 *
 * Exit status: 0 done (or only listed), 1 refused or failed, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "format.h"
#include "le.h"
#include "mkfs.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tune.NOVA [-L label] [-U uuid|random] [-l] DEVICE|FILE\n"
		"  -L label   set the label (at most %u bytes; \"\" clears it)\n"
		"  -U uuid    set the UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or random)\n"
		"  -l         print the label and UUID\n",
		NOVA_LABEL_LEN - 1);
}

struct tune_opts {
	const char *label;
	const char *uuid;
	bool list;
	const char *path;
};

static int parse_args(int argc, char **argv, struct tune_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt_long(argc, argv, "L:U:lh", longopts, NULL)) != -1) {
		switch (c) {
		case 'L':
			o->label = optarg;
			break;
		case 'U':
			o->uuid = optarg;
			break;
		case 'l':
			o->list = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1 || (!o->label && !o->uuid && !o->list)) {
		usage(stderr);
		return -EINVAL;
	}
	o->path = argv[optind];
	return 0;
}

/* Both copies valid and equal, or a message saying why not. */
static int read_supers(struct nova_dev *d, struct nova_super_block *sb)
{
	uint64_t size = d->size & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	struct nova_super_block r;
	char why[160];
	struct nerr e;

	if (ndev_read(d, 0, sb, sizeof(*sb), &e)) {
		fprintf(stderr, "tune.NOVA: %s\n", e.msg);
		return -EIO;
	}
	if (le32(sb->s_magic) != NOVA_SUPER_MAGIC) {
		fprintf(stderr, "tune.NOVA: %s: no NOVA file system\n", d->path);
		return -EINVAL;
	}
	if (!nova_sb_valid(sb, size, why, sizeof(why))) {
		fprintf(stderr, "tune.NOVA: %s: primary superblock: %s; run fsck.NOVA first\n",
			d->path, why);
		return -EINVAL;
	}
	if (ndev_read(d, le64(sb->s_size) - NOVA_BLOCK_SIZE, &r, sizeof(r), &e)) {
		fprintf(stderr, "tune.NOVA: %s\n", e.msg);
		return -EIO;
	}
	if (memcmp(sb, &r, sizeof(r))) {
		fprintf(stderr, "tune.NOVA: %s: the replica superblock differs from the primary; run fsck.NOVA first\n",
			d->path);
		return -EINVAL;
	}
	if (le32(sb->s_state) != NOVA_STATE_CLEAN) {
		fprintf(stderr, "tune.NOVA: %s: not cleanly unmounted; mount it once (recovery) or run fsck.NOVA first\n",
			d->path);
		return -EINVAL;
	}
	return 0;
}

/* Primary, durable, then the replica, durable. */
static int write_supers(struct nova_dev *d, struct nova_super_block *sb)
{
	struct nerr e;

	nova_sb_seal(sb);
	if (ndev_write(d, 0, sb, sizeof(*sb), &e) || ndev_sync(d, &e) ||
	    ndev_write(d, le64(sb->s_size) - NOVA_BLOCK_SIZE, sb, sizeof(*sb),
		       &e) || ndev_sync(d, &e)) {
		fprintf(stderr, "tune.NOVA: %s\n", e.msg);
		return -EIO;
	}
	return 0;
}

static void list(const struct nova_super_block *sb)
{
	char uuid[37];

	nova_format_uuid(sb->s_uuid, uuid);
	printf("Label: %.*s\nUUID:  %s\n", NOVA_LABEL_LEN, sb->s_label, uuid);
}

int main(int argc, char **argv)
{
	struct nova_super_block sb;
	struct tune_opts o;
	struct nova_dev dev;
	uint8_t uuid[16];
	struct nerr e;
	int rc = 1;

	if (parse_args(argc, argv, &o))
		return 2;
	if (o.label && strlen(o.label) >= NOVA_LABEL_LEN) {
		fprintf(stderr, "tune.NOVA: label '%s' is too long: %zu bytes, at most %u\n",
			o.label, strlen(o.label), NOVA_LABEL_LEN - 1);
		return 1;
	}
	if (o.uuid && nova_uuid_from_arg(o.uuid, uuid, &e)) {
		fprintf(stderr, "tune.NOVA: %s\n", e.msg);
		return 1;
	}
	if (ndev_open(&dev, o.path, (o.label || o.uuid) ?
		      NDEV_WRITE | NDEV_EXCL : 0, &e)) {
		fprintf(stderr, "tune.NOVA: %s\n", e.msg);
		return 1;
	}
	if (read_supers(&dev, &sb))
		goto out;
	if (o.label) {
		memset(sb.s_label, 0, sizeof(sb.s_label));
		memcpy(sb.s_label, o.label, strlen(o.label));
	}
	if (o.uuid)
		memcpy(sb.s_uuid, uuid, sizeof(uuid));
	if ((o.label || o.uuid) && write_supers(&dev, &sb))
		goto out;
	if (o.list)
		list(&sb);
	rc = 0;
out:
	ndev_close(&dev);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What libblkid finds on a device: every file system, RAID member,
 * volume manager and partition table signature it knows, as mkfs.xfs
 * and mkfs.btrfs ask it before they overwrite anything. The built-in
 * table (probe.c) names NOVA, which libblkid does not know.
 */
#include <stdio.h>

#include <blkid/blkid.h>

#include "probe.h"

const char *nova_probe_foreign(struct nova_dev *d)
{
	static char what[80];
	const char *type = NULL, *ptype = NULL;
	blkid_probe pr;
	int r;

	if (d->fd < 0)
		return NULL;
	pr = blkid_new_probe();
	if (!pr)
		return NULL;
	if (blkid_probe_set_device(pr, d->fd, 0, 0)) {
		blkid_free_probe(pr);
		return NULL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	r = blkid_do_fullprobe(pr);
	if (r == -2) {
		snprintf(what, sizeof(what), "more than one");
	} else if (r == 0) {
		blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
		blkid_probe_lookup_value(pr, "PTTYPE", &ptype, NULL);
		if (type)
			snprintf(what, sizeof(what), "%s", type);
		else if (ptype)
			snprintf(what, sizeof(what), "%s partition table",
				 ptype);
	}
	blkid_free_probe(pr);
	return r == -2 || type || ptype ? what : NULL;
}

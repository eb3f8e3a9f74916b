// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mkfs.NOVA: make a NOVA file system.
 *
 *   mkfs.NOVA [-L label] [-U uuid|random] [-c cpus] [-f] [-n] [-q] DEVICE|FILE
 *
 * Exit status: 0 success, 1 any error (as mke2fs).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dev.h"
#include "format.h"
#include "mkfs.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mkfs.NOVA [-L label] [-U uuid|random] [-c cpus] [-p all|nolog|csum|off] [-O alloc_bitmap] [-s size] [-f] [-n] [-q] DEVICE|FILE\n"
		"  -L label   file system label, at most %u bytes\n"
		"  -U uuid    file system UUID (default: random)\n"
		"  -c cpus    per-CPU stripes, 1..%u (default: this machine's CPUs)\n"
		"  -p mode    data protection: all (checksums, parity, inode replicas\n"
		"             and log page mirrors, default), nolog (all but log page\n"
		"             mirrors: format 1.3), csum (checksums only) or off\n"
		"  -O alloc_bitmap\n"
		"             keep an allocation bitmap (format 1.9): the first mount\n"
		"             after a crash reads it instead of every inode\n"
		"  -s size    use only the first SIZE bytes of the device (k, m, g,\n"
		"             t: KiB, MiB, GiB, TiB; default: the whole device)\n"
		"  -f         overwrite a device that holds another file system\n"
		"  -n         check everything, write nothing\n"
		"  -q         quiet\n",
		NOVA_LABEL_LEN - 1, NOVA_MAX_CPUS);
}

static int fail(const char *msg)
{
	fprintf(stderr, "mkfs.NOVA: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct mkfs_opts o;
	struct mkfs_params p;
	struct mkfs_layout lay;
	struct nova_dev dev;
	char where[4096], uuid[37];
	const char *sig;
	struct nerr e;
	int r;

	r = mkfs_parse_args(argc, argv, &o, &e);
	if (r == 1) {
		usage(stdout);
		return 0;
	}
	if (r == 2) {
		printf("mkfs.NOVA for NOVA format %u.%u\n", NOVA_FORMAT_MAJOR,
		       NOVA_FORMAT_MINOR);
		return 0;
	}
	if (r) {
		fprintf(stderr, "mkfs.NOVA: %s\n", e.msg);
		usage(stderr);
		return 1;
	}
	if (mkfs_make_params(&o, &p, &e))
		return fail(e.msg);

	if (ndev_mounted(o.device, where, sizeof(where)) == 1) {
		fprintf(stderr, "mkfs.NOVA: %s is mounted on %s; refusing to format it\n",
			o.device, where);
		return 1;
	}
	if (ndev_open(&dev, o.device, o.dry_run ? 0 : NDEV_WRITE | NDEV_EXCL,
		      &e))
		return fail(e.msg);
	if (mkfs_check_device(&dev, &o, &p, &sig, &e)) {
		ndev_close(&dev);
		return fail(e.msg);
	}
	nova_format_uuid(p.uuid, uuid);
	if (o.dry_run) {
		if (!o.quiet)
			printf("%s: would make a NOVA file system of %llu blocks (%llu MiB), %u CPU stripes, UUID %s%s%s%s\n",
			       o.device, (unsigned long long)(p.size / NOVA_BLOCK_SIZE),
			       (unsigned long long)(p.size >> 20), p.cpus, uuid,
			       o.label ? ", label '" : "", o.label ? o.label : "",
			       o.label ? "'" : "");
		ndev_close(&dev);
		return 0;
	}
	if (sig && !o.quiet)
		printf("%s: overwriting a %s signature\n", o.device, sig);
	r = nova_mkfs_write(&dev, &p, &lay, &e);
	if (!r)
		r = ndev_sync(&dev, &e);
	ndev_close(&dev);
	if (r)
		return fail(e.msg);
	if (!o.quiet) {
		printf("%s: NOVA file system, format %u.%u\n", o.device,
		       NOVA_FORMAT_MAJOR, nova_mkfs_minor(p.features));
		printf("  size:         %llu blocks of %u bytes (%llu MiB)\n",
		       (unsigned long long)lay.nblocks, NOVA_BLOCK_SIZE,
		       (unsigned long long)(p.size >> 20));
		printf("  CPU stripes:  %u\n", p.cpus);
		printf("  protection:   %s\n",
		       nova_protection_name(p.features));
		printf("  UUID:         %s\n", uuid);
		if (o.label)
			printf("  label:        %s\n", o.label);
		printf("  free blocks:  %llu\n",
		       (unsigned long long)lay.free_blocks);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mkfs.NOVA option validation: parsing, label/UUID/CPU checks, signature
 * refusal and the minimum device size.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "format.h"
#include "le.h"
#include "mkfs.h"

static int parse(struct mkfs_opts *o, struct nerr *e, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;

	argv[argc++] = "mkfs.NOVA";
	va_start(ap, e);
	for (;;) {
		char *a = va_arg(ap, char *);

		if (!a)
			break;
		argv[argc++] = a;
	}
	va_end(ap);
	argv[argc] = NULL;
	return mkfs_parse_args(argc, argv, o, e);
}

static int params(struct nerr *e, struct mkfs_params *p, ...)
{
	struct mkfs_opts o;
	char *argv[16];
	int argc = 0, r;
	va_list ap;

	argv[argc++] = "mkfs.NOVA";
	va_start(ap, p);
	for (;;) {
		char *a = va_arg(ap, char *);

		if (!a)
			break;
		argv[argc++] = a;
	}
	va_end(ap);
	argv[argc++] = "dev";
	argv[argc] = NULL;
	r = mkfs_parse_args(argc, argv, &o, e);
	if (r)
		return r;
	return mkfs_make_params(&o, p, e);
}

static void test_parse_basic(void **state)
{
	struct mkfs_opts o;
	struct nerr e;

	(void)state;
	assert_int_equal(parse(&o, &e, "-L", "lab", "-U", "random", "-c", "4",
			       "-f", "-n", "-q", "/dev/pmem0", NULL), 0);
	assert_string_equal(o.device, "/dev/pmem0");
	assert_string_equal(o.label, "lab");
	assert_string_equal(o.uuid, "random");
	assert_int_equal(o.cpus, 4);
	assert_true(o.force && o.dry_run && o.quiet);
	assert_int_equal(parse(&o, &e, "-h", NULL), 1);
	assert_int_equal(parse(&o, &e, "-V", NULL), 2);
}

static void test_parse_errors(void **state)
{
	struct mkfs_opts o;
	struct nerr e;

	(void)state;
	assert_int_equal(parse(&o, &e, NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "no device"));
	assert_int_equal(parse(&o, &e, "a", "b", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "one device"));
	assert_int_equal(parse(&o, &e, "-x", "dev", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown option -x"));
	assert_int_equal(parse(&o, &e, "dev", "-L", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "needs an argument"));
	assert_int_equal(parse(&o, &e, "-c", "abc", "dev", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "not a positive number"));
	assert_int_equal(parse(&o, &e, "-c", "0", "dev", NULL), -EINVAL);
	assert_int_equal(parse(&o, &e, "-c", "-3", "dev", NULL), -EINVAL);
	assert_int_equal(parse(&o, &e, "-c", "4x", "dev", NULL), -EINVAL);
}

static void test_label(void **state)
{
	char max[NOVA_LABEL_LEN], over[NOVA_LABEL_LEN + 1];
	struct mkfs_params p;
	struct nerr e;

	(void)state;
	memset(max, 'x', sizeof(max) - 1);
	max[sizeof(max) - 1] = 0;
	memset(over, 'y', sizeof(over) - 1);
	over[sizeof(over) - 1] = 0;
	assert_int_equal(params(&e, &p, "-L", max, NULL), 0);
	assert_memory_equal(p.label, max, NOVA_LABEL_LEN - 1);
	assert_int_equal(p.label[NOVA_LABEL_LEN - 1], 0);
	assert_int_equal(params(&e, &p, "-L", over, NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "too long"));
	assert_int_equal(params(&e, &p, NULL), 0);
	assert_int_equal(p.label[0], 0);
}

static void test_uuid(void **state)
{
	static const uint8_t want[16] = {
		0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
		0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21,
	};
	struct mkfs_params p, q;
	struct nerr e;
	char s[37];

	(void)state;
	assert_int_equal(params(&e, &p, "-U", "12345678-9abc-DEF0-0fed-cba987654321", NULL), 0);
	assert_memory_equal(p.uuid, want, 16);
	nova_format_uuid(p.uuid, s);
	assert_string_equal(s, "12345678-9abc-def0-0fed-cba987654321");
	for (const char *bad = "1234"; bad; bad = NULL)
		assert_int_equal(params(&e, &p, "-U", bad, NULL), -EINVAL);
	assert_int_equal(params(&e, &p, "-U", "12345678-9abc-def0-0fed-cba98765432", NULL), -EINVAL);
	assert_int_equal(params(&e, &p, "-U", "12345678-9abc-def0-0fed-cba9876543210", NULL), -EINVAL);
	assert_int_equal(params(&e, &p, "-U", "12345678x9abc-def0-0fed-cba987654321", NULL), -EINVAL);
	assert_int_equal(params(&e, &p, "-U", "g2345678-9abc-def0-0fed-cba987654321", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "bad UUID"));
	/* random: version 4, RFC 4122 variant, different each time */
	assert_int_equal(params(&e, &p, "-U", "random", NULL), 0);
	assert_int_equal(params(&e, &q, NULL), 0);
	assert_int_equal(p.uuid[6] >> 4, 4);
	assert_int_equal(p.uuid[8] >> 6, 2);
	assert_memory_not_equal(p.uuid, q.uuid, 16);
}

static void test_cpus(void **state)
{
	struct mkfs_params p;
	struct nerr e;

	(void)state;
	assert_int_equal(params(&e, &p, "-c", "1", NULL), 0);
	assert_int_equal(p.cpus, 1);
	assert_int_equal(params(&e, &p, "-c", "64", NULL), 0);
	assert_int_equal(p.cpus, NOVA_MAX_CPUS);
	assert_int_equal(params(&e, &p, "-c", "65", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "1..64"));
	/* default: this machine's CPUs, within 1..NOVA_MAX_CPUS */
	assert_int_equal(params(&e, &p, NULL), 0);
	assert_in_range(p.cpus, 1, NOVA_MAX_CPUS);
}

static void test_min_size(void **state)
{
	(void)state;
	assert_int_equal(nova_mkfs_min_blocks(1), NOVA_MIN_BLOCKS);
	assert_true(nova_mkfs_min_blocks(64) >
		    64 * (uint64_t)NOVA_INODE_TABLE_BLOCKS);
}

/* mkfs_check_device() on a memory device. */
static int check(void *buf, uint64_t size, unsigned int cpus, bool force,
		 const char **sig, struct nerr *e)
{
	struct mkfs_opts o = { .force = force };
	struct mkfs_params p = { .cpus = cpus };
	struct nova_dev d;

	ndev_from_buffer(&d, buf, size);
	return mkfs_check_device(&d, &o, &p, sig, e);
}

static void test_device_checks(void **state)
{
	uint64_t size = 16 << 20;
	uint8_t *buf = calloc(1, size);
	const char *sig;
	struct nerr e;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(check(buf, size, 2, false, &sig, &e), 0);
	assert_null(sig);
	/* too small: below 8 MiB, and below 4 stripes' tables */
	assert_int_equal(check(buf, 4 << 20, 1, false, &sig, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "too small"));
	assert_int_equal(check(buf, size, 8, false, &sig, &e), -ENOSPC);
	assert_int_equal(check(buf, size, 7, false, &sig, &e), 0);
	/* an ext4 superblock magic */
	buf[0x438] = 0x53;
	buf[0x439] = 0xef;
	assert_int_equal(check(buf, size, 2, false, &sig, &e), -EEXIST);
	assert_string_equal(sig, "ext2/ext3/ext4");
	assert_non_null(strstr(e.msg, "use -f"));
	assert_int_equal(check(buf, size, 2, true, &sig, &e), 0);
	assert_string_equal(sig, "ext2/ext3/ext4");
	memset(buf, 0, 4096);
	memcpy(buf, "XFSB", 4);
	assert_int_equal(check(buf, size, 2, false, &sig, &e), -EEXIST);
	assert_string_equal(sig, "xfs");
	memset(buf, 0, 4096);
	memcpy(buf + 0x10040, "_BHRfS_M", 8);
	assert_int_equal(check(buf, size, 2, false, &sig, &e), -EEXIST);
	assert_string_equal(sig, "btrfs");
	free(buf);
}

/* -s: parsing, and mkfs_check_device() using only that much. */
static void test_size_option(void **state)
{
	uint64_t size = 32 << 20, v;
	uint8_t *buf = calloc(1, size);
	struct mkfs_params p = { .cpus = 1 };
	struct mkfs_opts o;
	struct nova_dev d;
	const char *sig;
	struct nerr e;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(mkfs_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(mkfs_parse_size("16m", &v), 0);
	assert_int_equal(v, 16 << 20);
	assert_int_equal(mkfs_parse_size("2G", &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(mkfs_parse_size("1k", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(mkfs_parse_size("", &v), -EINVAL);
	assert_int_equal(mkfs_parse_size("-5", &v), -EINVAL);
	assert_int_equal(mkfs_parse_size("5x", &v), -EINVAL);
	assert_int_equal(mkfs_parse_size("5mb", &v), -EINVAL);
	assert_int_equal(mkfs_parse_size("99999999999999999999", &v), -EINVAL);
	assert_int_equal(mkfs_parse_size("20000000t", &v), -EINVAL);

	assert_int_equal(parse(&o, &e, "-s", "16m", "dev", NULL), 0);
	assert_int_equal(o.size, 16 << 20);
	assert_int_equal(parse(&o, &e, "-s", "0", "dev", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "not a size"));
	assert_int_equal(parse(&o, &e, "-s", "12q", "dev", NULL), -EINVAL);

	ndev_from_buffer(&d, buf, size);
	/* rounded down to whole blocks, the rest of the device unused */
	o.size = (16 << 20) + 100;
	assert_int_equal(mkfs_check_device(&d, &o, &p, &sig, &e), 0);
	assert_int_equal(p.size, 16 << 20);
	o.size = size + 4096;
	assert_int_equal(mkfs_check_device(&d, &o, &p, &sig, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "larger than"));
	o.size = 4 << 20;
	assert_int_equal(mkfs_check_device(&d, &o, &p, &sig, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "-s: the size is too small"));
	/* the image of a sized file system has its replica at its own end */
	o.size = 16 << 20;
	assert_int_equal(mkfs_check_device(&d, &o, &p, &sig, &e), 0);
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), 0);
	assert_memory_equal(buf + (16 << 20) - 4096, buf, 64);
	assert_int_equal(le64(((struct nova_super_block *)buf)->s_size), 16 << 20);
	for (v = 16 << 20; v < size; v++)
		assert_int_equal(buf[v], 0);
	free(buf);
}

static void test_refuses_existing_nova(void **state)
{
	uint64_t size = 16 << 20;
	uint8_t *buf = calloc(1, size);
	struct mkfs_params p = { .size = size, .cpus = 1 };
	struct nova_dev d;
	const char *sig;
	struct nerr e;

	(void)state;
	ndev_from_buffer(&d, buf, size);
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), 0);
	assert_int_equal(check(buf, size, 1, false, &sig, &e), -EEXIST);
	assert_string_equal(sig, "NOVA");
	assert_int_equal(check(buf, size, 1, true, &sig, &e), 0);
	free(buf);
}

static void test_write_validates(void **state)
{
	uint64_t size = 16 << 20;
	uint8_t *buf = calloc(1, size);
	struct mkfs_params p = { .size = size, .cpus = 0 };
	struct nova_dev d;
	struct nerr e;

	(void)state;
	ndev_from_buffer(&d, buf, size);
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), -EINVAL);
	p.cpus = 65;
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), -EINVAL);
	p.cpus = 8;		/* 8 tables of 2 MiB do not fit in 16 MiB */
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "too few"));
	p.cpus = 1;
	p.size = size + 4096;	/* larger than the device */
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), -EINVAL);
	p.size = size - 100;	/* not a block multiple */
	assert_int_equal(nova_mkfs_write(&d, &p, NULL, &e), -EINVAL);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_label),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_min_size),
		cmocka_unit_test(test_device_checks),
		cmocka_unit_test(test_size_option),
		cmocka_unit_test(test_refuses_existing_nova),
		cmocka_unit_test(test_write_validates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

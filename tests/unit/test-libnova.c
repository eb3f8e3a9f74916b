// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of libnova without a kernel: extended-ACK parsing, decoding
 * of replies and notifications built the way the genl*.c files build
 * them, device numbers, UUIDs, selectors and mountinfo parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "libnova.h"

#define FAKE_FAMILY 0x1d

static const uint8_t test_uuid[16] = {
	0x0f, 0x3c, 0x5a, 0x11, 0x22, 0x33, 0x44, 0x55,
	0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
};

/* An NLMSG_ERROR as the kernel sends it; PAYLOAD bytes of the request. */
static struct nl_msg *make_error(int error, bool capped, size_t payload,
				 const char *text, int off)
{
	struct nl_msg *msg;
	struct nlmsgerr ne = { .error = error };
	unsigned char junk[64] = { 0 };
	int flags = (capped ? NLM_F_CAPPED : 0) | ((text || off >= 0) ? NLM_F_ACK_TLVS : 0);

	ne.msg.nlmsg_len = NLMSG_HDRLEN + (capped ? 0 : payload);
	ne.msg.nlmsg_type = FAKE_FAMILY;
	msg = nlmsg_alloc_simple(NLMSG_ERROR, flags);
	assert_non_null(msg);
	assert_int_equal(nlmsg_append(msg, &ne, sizeof(ne), NLMSG_ALIGNTO), 0);
	if (!capped && payload)
		assert_int_equal(nlmsg_append(msg, junk, payload, NLMSG_ALIGNTO), 0);
	if (text)
		assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG, text), 0);
	if (off >= 0)
		assert_int_equal(nla_put_u32(msg, NLMSGERR_ATTR_OFFS, off), 0);
	return msg;
}

static void test_ack_ok(void **state)
{
	struct nl_msg *msg = make_error(0, true, 0, NULL, -1);
	struct nova_err e;

	(void)state;
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), 0);
	assert_int_equal(e.err, 0);
	assert_string_equal(e.msg, "");
	nlmsg_free(msg);
}

static void test_ack_extack_capped(void **state)
{
	struct nl_msg *msg = make_error(-ENODEV, true, 0,
					"no mounted NOVA file system matches", 20);
	struct nova_err e;

	(void)state;
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -ENODEV);
	assert_string_equal(e.msg, "no mounted NOVA file system matches");
	assert_true(e.from_kernel);
	assert_int_equal(e.bad_attr_off, 20);
	nlmsg_free(msg);
}

/* Without NETLINK_CAP_ACK the request comes back before the TLVs. */
static void test_ack_extack_uncapped(void **state)
{
	struct nl_msg *msg = make_error(-EINVAL, false, 24, "Attribute failed policy validation", -1);
	struct nova_err e;

	(void)state;
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -EINVAL);
	assert_string_equal(e.msg, "Attribute failed policy validation");
	assert_int_equal(e.bad_attr_off, -1);
	nlmsg_free(msg);
}

static void test_ack_missing_attr(void **state)
{
	struct nl_msg *msg = make_error(-EINVAL, true, 0, "no file system given", -1);
	struct nova_err e;

	(void)state;
	assert_int_equal(nla_put_u32(msg, NLMSGERR_ATTR_MISS_TYPE, NOVA_A_FS_DEV), 0);
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -EINVAL);
	assert_int_equal(e.missing_attr, NOVA_A_FS_DEV);
	assert_int_equal(e.bad_attr_off, -1);
	nlmsg_free(msg);
}

static void test_ack_no_text_uses_strerror(void **state)
{
	struct nl_msg *msg = make_error(-ENOSPC, true, 0, NULL, -1);
	struct nova_err e;

	(void)state;
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -ENOSPC);
	assert_false(e.from_kernel);
	assert_string_equal(e.msg, strerror(ENOSPC));
	nlmsg_free(msg);
}

/* A bare EPERM comes from GENL_ADMIN_PERM: say what is needed. */
static void test_ack_bare_eperm_says_root(void **state)
{
	struct nl_msg *msg = make_error(-EPERM, true, 0, NULL, -1);
	struct nova_err e;

	(void)state;
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -EPERM);
	assert_false(e.from_kernel);
	assert_string_equal(e.msg, "permission denied: this command needs root (CAP_SYS_ADMIN/CAP_NET_ADMIN)");
	nlmsg_free(msg);
}

static void test_ack_done_with_extack(void **state)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS);
	int err = -EINVAL;
	struct nova_err e;

	(void)state;
	assert_int_equal(nlmsg_append(msg, &err, sizeof(err), NLMSG_ALIGNTO), 0);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG, "dump says no"), 0);
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -EINVAL);
	assert_string_equal(e.msg, "dump says no");
	nlmsg_free(msg);
}

static void test_ack_truncated(void **state)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nova_err e;

	(void)state;
	assert_int_equal(nova_parse_ack(nlmsg_hdr(msg), &e), -EBADMSG);
	nlmsg_free(msg);
}

static struct nl_msg *make_genl(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 1, FAKE_FAMILY, 0, 0, cmd, 1));
	return msg;
}

static void put_identity(struct nl_msg *msg)
{
	assert_int_equal(nla_put_u64(msg, NOVA_A_FS_DEV, 0x10300), 0);
	assert_int_equal(nla_put(msg, NOVA_A_FS_UUID, 16, test_uuid), 0);
	assert_int_equal(nla_put_string(msg, NOVA_A_FS_LABEL, "data"), 0);
	assert_int_equal(nla_put_string(msg, NOVA_A_FS_BDEV, "pmem0"), 0);
}

static void put_op(struct nl_msg *msg, const char *name, uint64_t count,
		   uint64_t ns)
{
	struct nlattr *op = nla_nest_start(msg, NOVA_STATS_A_OP);

	assert_non_null(op);
	nla_put_string(msg, NOVA_OP_A_NAME, name);
	nla_put_u64(msg, NOVA_OP_A_COUNT, count);
	nla_put_u64(msg, NOVA_OP_A_TIME_NS, ns);
	nla_nest_end(msg, op);
}

static void test_decode_stats(void **state)
{
	struct nl_msg *msg = make_genl(NOVA_CMD_STATS_GET);
	struct nova_stats *st = malloc(sizeof(*st));
	struct nlattr *nest, *prot;

	(void)state;
	put_identity(msg);
	nest = nla_nest_start(msg, NOVA_A_STATS);
	nla_put_u32(msg, NOVA_STATS_A_FORMAT_VERSION, 0x10000);
	nla_put_u32(msg, NOVA_STATS_A_CPUS, 2);
	nla_put_u64(msg, NOVA_STATS_A_BLOCK_SIZE, 4096);
	nla_put_u64(msg, NOVA_STATS_A_BLOCKS_TOTAL, 262144);
	nla_put_u64(msg, NOVA_STATS_A_BLOCKS_FREE, 200000);
	nla_put_u64(msg, NOVA_STATS_A_INODES_TOTAL, 1024);
	nla_put_u64(msg, NOVA_STATS_A_INODES_FREE, 1000);
	nla_put_u64(msg, NOVA_STATS_A_LOG_PAGES, 7);
	nla_put_u64(msg, NOVA_STATS_A_DATA_PAGES, 9);
	nla_put_u64(msg, NOVA_STATS_A_EPOCH, 3);
	nla_put_u64(msg, NOVA_STATS_A_SNAPSHOTS, 1);
	nla_put_u64(msg, NOVA_STATS_A_MOUNT_TIME_NS, 123456);
	nla_put_u8(msg, NOVA_STATS_A_RECOVERED, 1);
	nla_put_u8(msg, NOVA_STATS_A_SPACE_CHECK_PENDING, 1);
	nla_put_u8(msg, NOVA_STATS_A_READ_ONLY, 0);
	put_op(msg, "read", 10, 1000);
	put_op(msg, "write", 20, 5000);
	prot = nla_nest_start(msg, NOVA_STATS_A_PROTECTION);
	nla_put_u8(msg, NOVA_PROT_A_CSUM, 1);
	nla_put_u8(msg, NOVA_PROT_A_PARITY, 0);
	nla_put_u8(msg, NOVA_PROT_A_VERIFY, 1);
	nla_put_u64(msg, NOVA_PROT_A_VERIFIED, 800);
	nla_put_u64(msg, NOVA_PROT_A_REPAIRED, 2);
	nla_put_u64(msg, NOVA_PROT_A_UNRECOVERABLE, 1);
	nla_put_u64(msg, NOVA_PROT_A_BADBLOCKS, 3);
	nla_put_u64(msg, NOVA_PROT_A_BADBLOCKS_REPAIRED, 1);
	nla_put_u64(msg, NOVA_PROT_A_BADBLOCKS_LOST, 2);
	nla_nest_end(msg, prot);
	/* An attribute from a newer kernel must be ignored. */
	nla_put_u32(msg, NOVA_STATS_A_MAX + 5, 42);
	nla_nest_end(msg, nest);

	assert_int_equal(nova_decode_stats(nlmsg_hdr(msg), st), 0);
	assert_int_equal(st->id.dev, 0x10300);
	assert_memory_equal(st->id.uuid, test_uuid, 16);
	assert_string_equal(st->id.label, "data");
	assert_string_equal(st->id.bdev, "pmem0");
	assert_int_equal(st->format_version, 0x10000);
	assert_int_equal(st->cpus, 2);
	assert_int_equal(st->block_size, 4096);
	assert_int_equal(st->blocks_total, 262144);
	assert_int_equal(st->blocks_free, 200000);
	assert_int_equal(st->inodes_total, 1024);
	assert_int_equal(st->inodes_free, 1000);
	assert_int_equal(st->log_pages, 7);
	assert_int_equal(st->data_pages, 9);
	assert_int_equal(st->epoch, 3);
	assert_int_equal(st->snapshots, 1);
	assert_int_equal(st->mount_time_ns, 123456);
	assert_true(st->recovered);
	assert_true(st->space_check_pending);
	assert_false(st->read_only);
	assert_int_equal(st->n_ops, 2);
	assert_string_equal(st->ops[0].name, "read");
	assert_int_equal(st->ops[0].count, 10);
	assert_int_equal(st->ops[0].time_ns, 1000);
	assert_string_equal(st->ops[1].name, "write");
	assert_int_equal(st->ops[1].count, 20);
	assert_int_equal(st->ops[1].time_ns, 5000);
	assert_true(st->prot_csum);
	assert_false(st->prot_parity);
	assert_true(st->prot_verify);
	assert_int_equal(st->prot_verified, 800);
	assert_int_equal(st->prot_repaired, 2);
	assert_int_equal(st->prot_unrecoverable, 1);
	assert_int_equal(st->bb_blocks, 3);
	assert_int_equal(st->bb_repaired, 1);
	assert_int_equal(st->bb_lost, 2);
	nlmsg_free(msg);
	free(st);
}

/* A CORRUPTION event and the count of events held back before it. */
static void test_decode_corruption_event(void **state)
{
	struct nl_msg *msg = make_genl(NOVA_CMD_CORRUPTION);
	struct nova_scrub_event *ev = malloc(sizeof(*ev));
	struct nlattr *nest;

	(void)state;
	put_identity(msg);
	nest = nla_nest_start(msg, NOVA_A_CORRUPTION);
	nla_put_u64(msg, NOVA_CORRUPTION_A_INODE, 17);
	nla_put_u32(msg, NOVA_CORRUPTION_A_KIND, NOVA_CORRUPT_PARITY);
	nla_put_u64(msg, NOVA_CORRUPTION_A_OFFSET, 8192);
	nla_put_u8(msg, NOVA_CORRUPTION_A_REPAIRED, 1);
	nla_put_u64(msg, NOVA_CORRUPTION_A_SUPPRESSED, 384);
	nla_nest_end(msg, nest);
	assert_int_equal(nova_decode_scrub_event(nlmsg_hdr(msg), ev), 0);
	assert_int_equal(ev->cmd, NOVA_CMD_CORRUPTION);
	assert_int_equal(ev->id.dev, 0x10300);
	assert_int_equal(ev->corruption.ino, 17);
	assert_int_equal(ev->corruption.kind, NOVA_CORRUPT_PARITY);
	assert_string_equal(nova_corruption_kind_name(ev->corruption.kind),
			    "parity");
	assert_int_equal(ev->corruption.offset, 8192);
	assert_true(ev->corruption.repaired);
	assert_int_equal(ev->suppressed, 384);
	nlmsg_free(msg);

	/* No corruption nest. */
	msg = make_genl(NOVA_CMD_CORRUPTION);
	put_identity(msg);
	assert_int_equal(nova_decode_scrub_event(nlmsg_hdr(msg), ev), -EBADMSG);
	nlmsg_free(msg);
	free(ev);
}

/* One inode of a SNAPSHOT_DIFF dump; every member is required. */
static void test_decode_snapdiff(void **state)
{
	struct nl_msg *msg = make_genl(NOVA_CMD_SNAPSHOT_DIFF);
	struct nova_snapdiff_rec d;
	struct nlattr *nest;

	(void)state;
	put_identity(msg);
	nest = nla_nest_start(msg, NOVA_A_SNAPSHOT_DIFF);
	nla_put_u64(msg, NOVA_SNAPDIFF_A_INO, 4242);
	nla_put_u32(msg, NOVA_SNAPDIFF_A_MODE, 0040000);
	nla_put_u32(msg, NOVA_SNAPDIFF_A_CHANGE, NOVA_SNAPDIFF_REMOVED);
	nla_nest_end(msg, nest);
	assert_int_equal(nova_decode_snapdiff(nlmsg_hdr(msg), &d), 0);
	assert_int_equal(d.id.dev, 0x10300);
	assert_int_equal(d.ino, 4242);
	assert_int_equal(d.mode, 0040000);
	assert_int_equal(d.change, NOVA_SNAPDIFF_REMOVED);
	nlmsg_free(msg);

	/* No change kind. */
	msg = make_genl(NOVA_CMD_SNAPSHOT_DIFF);
	put_identity(msg);
	nest = nla_nest_start(msg, NOVA_A_SNAPSHOT_DIFF);
	nla_put_u64(msg, NOVA_SNAPDIFF_A_INO, 4242);
	nla_put_u32(msg, NOVA_SNAPDIFF_A_MODE, 0100000);
	nla_nest_end(msg, nest);
	assert_int_equal(nova_decode_snapdiff(nlmsg_hdr(msg), &d), -EBADMSG);
	nlmsg_free(msg);
}

static void test_decode_stats_malformed(void **state)
{
	struct nova_stats *st = malloc(sizeof(*st));
	struct nl_msg *msg;

	(void)state;
	/* No stats nest. */
	msg = make_genl(NOVA_CMD_STATS_GET);
	put_identity(msg);
	assert_int_equal(nova_decode_stats(nlmsg_hdr(msg), st), -EBADMSG);
	nlmsg_free(msg);

	/* A u64 counter sent as 2 bytes. */
	msg = make_genl(NOVA_CMD_STATS_GET);
	put_identity(msg);
	{
		struct nlattr *nest = nla_nest_start(msg, NOVA_A_STATS);

		nla_put_u16(msg, NOVA_STATS_A_BLOCKS_FREE, 1);
		nla_nest_end(msg, nest);
	}
	assert_int_equal(nova_decode_stats(nlmsg_hdr(msg), st), -EBADMSG);
	nlmsg_free(msg);
	free(st);
}

static void test_decode_fs_info(void **state)
{
	struct nl_msg *msg = make_genl(NOVA_CMD_FS_LIST);
	struct nova_fs_info fi;

	(void)state;
	put_identity(msg);
	nla_put_u32(msg, NOVA_A_FS_FORMAT_VERSION, 5);
	nla_put_u8(msg, NOVA_A_FS_READ_ONLY, 1);
	assert_int_equal(nova_decode_fs_info(nlmsg_hdr(msg), &fi), 0);
	assert_int_equal(fi.id.dev, 0x10300);
	assert_int_equal(fi.format_version, 5);
	assert_true(fi.read_only);
	nlmsg_free(msg);

	/* The device number is the key: without it the message is useless. */
	msg = make_genl(NOVA_CMD_FS_LIST);
	nla_put_string(msg, NOVA_A_FS_BDEV, "pmem0");
	assert_int_equal(nova_decode_fs_info(nlmsg_hdr(msg), &fi), -EBADMSG);
	nlmsg_free(msg);

	/* A UUID of the wrong length. */
	msg = make_genl(NOVA_CMD_FS_LIST);
	nla_put_u64(msg, NOVA_A_FS_DEV, 1);
	nla_put(msg, NOVA_A_FS_UUID, 8, test_uuid);
	assert_int_equal(nova_decode_fs_info(nlmsg_hdr(msg), &fi), -EBADMSG);
	nlmsg_free(msg);
}

static void test_decode_event(void **state)
{
	struct nl_msg *msg = make_genl(NOVA_CMD_FS_UNMOUNTED);
	struct nova_event ev;

	(void)state;
	put_identity(msg);
	assert_int_equal(nova_decode_event(nlmsg_hdr(msg), &ev), 0);
	assert_int_equal(ev.kind, NOVA_EVENT_FS_UNMOUNTED);
	assert_string_equal(nova_event_name(ev.kind), "fs-unmounted");
	assert_string_equal(ev.id.bdev, "pmem0");
	nlmsg_free(msg);

	msg = make_genl(NOVA_CMD_FS_MOUNTED);
	put_identity(msg);
	assert_int_equal(nova_decode_event(nlmsg_hdr(msg), &ev), 0);
	assert_int_equal(ev.kind, NOVA_EVENT_FS_MOUNTED);
	nlmsg_free(msg);

	/* A notification this library does not know is skipped, not an error. */
	msg = make_genl(200);
	put_identity(msg);
	assert_int_equal(nova_decode_event(nlmsg_hdr(msg), &ev), -ENOENT);
	nlmsg_free(msg);
}

static void test_dev_encoding(void **state)
{
	(void)state;
	/* /dev/pmem0 is 259:0; the value stat(2) reports as st_dev. */
	assert_int_equal(nova_dev_make(259, 0), 0x10300);
	assert_int_equal(nova_dev_make(259, 0), makedev(259, 0));
	assert_int_equal(nova_dev_make(8, 1), makedev(8, 1));
	assert_int_equal(nova_dev_make(4095, 0xfffff), makedev(4095, 0xfffff));
	assert_int_equal(nova_dev_major(makedev(4095, 0xfffff)), 4095);
	assert_int_equal(nova_dev_minor(makedev(4095, 0xfffff)), 0xfffff);
	assert_int_equal(nova_dev_major(0x10300), 259);
	assert_int_equal(nova_dev_minor(0x10300), 0);
}

static void test_uuid_text(void **state)
{
	uint8_t u[16];
	char buf[37];

	(void)state;
	assert_int_equal(nova_uuid_parse("0f3c5a11-2233-4455-6677-8899aabbccdd", u), 0);
	assert_memory_equal(u, test_uuid, 16);
	nova_uuid_format(u, buf);
	assert_string_equal(buf, "0f3c5a11-2233-4455-6677-8899aabbccdd");
	assert_int_equal(nova_uuid_parse("0F3C5A11-2233-4455-6677-8899AABBCCDD", u), 0);
	assert_memory_equal(u, test_uuid, 16);
	assert_int_equal(nova_uuid_parse("0f3c5a11-2233-4455-6677-8899aabbccd", u), -EINVAL);
	assert_int_equal(nova_uuid_parse("0f3c5a11x2233-4455-6677-8899aabbccdd", u), -EINVAL);
	assert_int_equal(nova_uuid_parse("0f3c5a11-2233-4455-6677-8899aabbccdg", u), -EINVAL);
}

static void test_sel_parse(void **state)
{
	struct nova_sel sel;
	struct nova_err e;
	struct stat st;

	(void)state;
	assert_int_equal(nova_sel_parse("259:0", &sel, &e), 0);
	assert_int_equal(sel.kind, NOVA_SEL_DEV);
	assert_int_equal(sel.dev, 0x10300);

	assert_int_equal(nova_sel_parse("uuid=0f3c5a11-2233-4455-6677-8899aabbccdd", &sel, &e), 0);
	assert_int_equal(sel.kind, NOVA_SEL_UUID);
	assert_memory_equal(sel.uuid, test_uuid, 16);
	assert_int_equal(nova_sel_parse("0f3c5a11-2233-4455-6677-8899aabbccdd", &sel, &e), 0);
	assert_int_equal(sel.kind, NOVA_SEL_UUID);

	assert_int_equal(nova_sel_parse("4096:0", &sel, &e), -ERANGE);
	assert_int_equal(nova_sel_parse("1:1048576", &sel, &e), -ERANGE);
	assert_int_equal(nova_sel_parse("0:0", &sel, &e), -EINVAL);
	assert_int_equal(nova_sel_parse("uuid=nope", &sel, &e), -EINVAL);
	assert_int_equal(nova_sel_parse("", &sel, &e), -EINVAL);
	assert_int_equal(nova_sel_parse("/no/such/path", &sel, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/no/such/path"));

	/* A path names the file system holding it. */
	assert_int_equal(stat("/", &st), 0);
	assert_int_equal(nova_sel_parse("/", &sel, &e), 0);
	assert_int_equal(sel.kind, NOVA_SEL_DEV);
	assert_int_equal(sel.dev, st.st_dev);

	/* A block or character device node: a block device gives st_rdev. */
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_int_equal(nova_sel_parse("/dev/null", &sel, &e), 0);
	assert_int_equal(sel.dev, st.st_dev);	/* char dev: its fs, not rdev */
}

static void test_mountpoints(void **state)
{
	char path[] = "/tmp/nova-mountinfo-XXXXXX";
	char *mnts[4];
	int fd, n;
	FILE *f;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
	      "30 22 259:0 / /mnt/nova rw,relatime shared:7 - NOVA /dev/pmem0 rw\n"
	      "31 22 259:0 / /mnt/with\\040space rw - NOVA /dev/pmem0 rw\n"
	      "32 22 259:1 / /mnt/other rw - NOVA /dev/pmem1 rw\n"
	      "33 22 259:0 / /mnt/xfs rw - xfs /dev/pmem0 rw\n", f);
	fclose(f);

	n = nova_mountpoints(path, nova_dev_make(259, 0), mnts, 4);
	assert_int_equal(n, 2);
	assert_string_equal(mnts[0], "/mnt/nova");
	assert_string_equal(mnts[1], "/mnt/with space");
	free(mnts[0]);
	free(mnts[1]);

	/* More mount points than room: the count is still right. */
	n = nova_mountpoints(path, nova_dev_make(259, 0), mnts, 1);
	assert_int_equal(n, 2);
	free(mnts[0]);

	assert_int_equal(nova_mountpoints(path, nova_dev_make(8, 0), mnts, 4), 0);
	assert_int_equal(nova_mountpoints("/no/such/file", 1, mnts, 4), -ENOENT);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ack_ok),
		cmocka_unit_test(test_ack_extack_capped),
		cmocka_unit_test(test_ack_extack_uncapped),
		cmocka_unit_test(test_ack_missing_attr),
		cmocka_unit_test(test_ack_no_text_uses_strerror),
		cmocka_unit_test(test_ack_bare_eperm_says_root),
		cmocka_unit_test(test_ack_done_with_extack),
		cmocka_unit_test(test_ack_truncated),
		cmocka_unit_test(test_decode_stats),
		cmocka_unit_test(test_decode_corruption_event),
		cmocka_unit_test(test_decode_stats_malformed),
		cmocka_unit_test(test_decode_snapdiff),
		cmocka_unit_test(test_decode_fs_info),
		cmocka_unit_test(test_decode_event),
		cmocka_unit_test(test_dev_encoding),
		cmocka_unit_test(test_uuid_text),
		cmocka_unit_test(test_sel_parse),
		cmocka_unit_test(test_mountpoints),
	};

	return cmocka_run_group_tests_name("libnova", tests, NULL, NULL);
}

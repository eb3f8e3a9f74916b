// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novactl's JSON schema (version 1): member names, types and
 * values of fs list, stats, event and error documents.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "novactl.h"

static const uint8_t uuid[16] = {
	0x0f, 0x3c, 0x5a, 0x11, 0x22, 0x33, 0x44, 0x55,
	0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
};

static struct json_object *member(struct json_object *o, const char *key,
				  json_type type)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("member \"%s\" missing in %s", key,
			 json_object_to_json_string(o));
	if (!json_object_is_type(v, type))
		fail_msg("member \"%s\" has type %s, want %s", key,
			 json_type_to_name(json_object_get_type(v)),
			 json_type_to_name(type));
	return v;
}

static uint64_t u64_member(struct json_object *o, const char *key)
{
	return json_object_get_uint64(member(o, key, json_type_int));
}

static const char *str_member(struct json_object *o, const char *key)
{
	return json_object_get_string(member(o, key, json_type_string));
}

static void fill_id(struct nova_fs_id *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = nova_dev_make(259, 3);
	memcpy(id->uuid, uuid, 16);
	strcpy(id->label, "my \"data\"");
	strcpy(id->bdev, "pmem3");
}

static void check_id(struct json_object *o)
{
	assert_int_equal(u64_member(o, "dev"), nova_dev_make(259, 3));
	assert_string_equal(str_member(o, "device"), "259:3");
	assert_string_equal(str_member(o, "bdev"), "pmem3");
	assert_string_equal(str_member(o, "uuid"),
			    "0f3c5a11-2233-4455-6677-8899aabbccdd");
	assert_string_equal(str_member(o, "label"), "my \"data\"");
}

static void test_doc_version(void **state)
{
	struct json_object *doc = nctl_json_doc();

	(void)state;
	assert_int_equal(u64_member(doc, "version"), NOVACTL_JSON_VERSION);
	assert_int_equal(NOVACTL_JSON_VERSION, 1);
	json_object_put(doc);
}

static void test_fs_info(void **state)
{
	struct nova_fs_info fi = { .format_version = 7, .read_only = true };
	struct nova_fs_info fi14 = { .format_version = 1 << 16 | 4 };
	char *mnts[] = { "/mnt/a", "/mnt/b" };
	struct json_object *o, *a;

	(void)state;
	fill_id(&fi.id);
	o = nctl_json_fs_info(&fi, mnts, 2);
	check_id(o);
	assert_int_equal(u64_member(o, "format_version"), 7);
	assert_string_equal(json_object_get_string(member(o, "format", json_type_string)), "0.7");
	assert_true(json_object_get_boolean(member(o, "read_only", json_type_boolean)));
	a = member(o, "mountpoints", json_type_array);
	assert_int_equal(json_object_array_length(a), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(a, 1)),
			    "/mnt/b");
	json_object_put(o);
	fill_id(&fi14.id);
	o = nctl_json_fs_info(&fi14, mnts, 0);
	assert_int_equal(u64_member(o, "format_version"), 65540);
	assert_string_equal(json_object_get_string(member(o, "format", json_type_string)), "1.4");
	json_object_put(o);
}

static void test_stats(void **state)
{
	static struct nova_stats st;
	struct json_object *o, *ops, *op, *prot, *reclaim;

	(void)state;
	memset(&st, 0, sizeof(st));
	fill_id(&st.id);
	st.format_version = 1;
	st.cpus = 2;
	st.block_size = 4096;
	st.blocks_total = 262144;
	st.blocks_free = 1;
	st.inodes_total = 4;
	st.inodes_free = 3;
	st.log_pages = 5;
	st.data_pages = 6;
	st.epoch = 7;
	st.snapshots = 8;
	st.mount_time_ns = UINT64_MAX;	/* u64 must survive, not wrap */
	st.recovered = true;
	st.space_check_pending = true;
	st.n_ops = 2;
	strcpy(st.ops[0].name, "read");
	st.ops[0].count = 11;
	st.ops[0].time_ns = 12;
	strcpy(st.ops[1].name, "write");
	st.ops[1].count = 13;
	st.ops[1].time_ns = 14;
	st.prot_csum = true;
	st.prot_parity = false;
	st.prot_verify = true;
	st.prot_verified = 15;
	st.prot_repaired = 16;
	st.prot_unrecoverable = 17;
	st.bb_blocks = 18;
	st.bb_repaired = 19;
	st.bb_lost = 20;
	st.bb_withheld = 21;
	st.snap_reclaim_blocks = 22;
	st.snap_reclaim_inodes = 23;
	st.snap_reclaimed = 24;

	o = nctl_json_stats(&st, NULL, 0);
	check_id(o);
	assert_int_equal(json_object_array_length(member(o, "mountpoints",
							 json_type_array)), 0);
	assert_int_equal(u64_member(o, "format_version"), 1);
	assert_int_equal(u64_member(o, "cpus"), 2);
	assert_int_equal(u64_member(o, "block_size"), 4096);
	assert_int_equal(u64_member(o, "blocks_total"), 262144);
	assert_int_equal(u64_member(o, "blocks_free"), 1);
	assert_int_equal(u64_member(o, "inodes_total"), 4);
	assert_int_equal(u64_member(o, "inodes_free"), 3);
	assert_int_equal(u64_member(o, "log_pages"), 5);
	assert_int_equal(u64_member(o, "data_pages"), 6);
	assert_int_equal(u64_member(o, "epoch"), 7);
	assert_int_equal(u64_member(o, "snapshots"), 8);
	assert_true(u64_member(o, "mount_time_ns") == UINT64_MAX);
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			       "\"mount_time_ns\":18446744073709551615"));
	assert_true(json_object_get_boolean(member(o, "recovered", json_type_boolean)));
	assert_true(json_object_get_boolean(member(o, "space_check_pending",
						   json_type_boolean)));
	assert_false(json_object_get_boolean(member(o, "read_only", json_type_boolean)));
	ops = member(o, "operations", json_type_array);
	assert_int_equal(json_object_array_length(ops), 2);
	op = json_object_array_get_idx(ops, 1);
	assert_string_equal(str_member(op, "name"), "write");
	assert_int_equal(u64_member(op, "count"), 13);
	assert_int_equal(u64_member(op, "time_ns"), 14);
	prot = member(o, "protection", json_type_object);
	assert_true(json_object_get_boolean(member(prot, "csum", json_type_boolean)));
	assert_false(json_object_get_boolean(member(prot, "parity", json_type_boolean)));
	assert_true(json_object_get_boolean(member(prot, "verify", json_type_boolean)));
	assert_int_equal(u64_member(prot, "verified"), 15);
	assert_int_equal(u64_member(prot, "repaired"), 16);
	assert_int_equal(u64_member(prot, "unrecoverable"), 17);
	assert_int_equal(u64_member(prot, "badblocks"), 18);
	assert_int_equal(u64_member(prot, "badblocks_repaired"), 19);
	assert_int_equal(u64_member(prot, "badblocks_lost"), 20);
	assert_int_equal(u64_member(prot, "badblocks_withheld"), 21);
	reclaim = member(o, "snapshot_reclaim", json_type_object);
	assert_int_equal(u64_member(reclaim, "pending_blocks"), 22);
	assert_int_equal(u64_member(reclaim, "pending_inodes"), 23);
	assert_int_equal(u64_member(reclaim, "reclaimed_blocks"), 24);
	json_object_put(o);
}

static void test_event(void **state)
{
	struct nova_event ev = { .kind = NOVA_EVENT_FS_MOUNTED };
	struct json_object *o;

	(void)state;
	fill_id(&ev.id);
	o = nctl_json_event(&ev, "2026-12-03T05:00:00.000Z");
	assert_int_equal(u64_member(o, "version"), NOVACTL_JSON_VERSION);
	assert_string_equal(str_member(o, "event"), "fs-mounted");
	assert_string_equal(str_member(o, "time"), "2026-12-03T05:00:00.000Z");
	check_id(o);
	json_object_put(o);
}

static void test_error(void **state)
{
	struct json_object *o = nctl_json_error(-ENODEV, "no mounted NOVA file system matches");

	(void)state;
	assert_int_equal(u64_member(o, "errno"), ENODEV);
	assert_string_equal(str_member(o, "name"), "ENODEV");
	assert_string_equal(str_member(o, "message"),
			    "no mounted NOVA file system matches");
	json_object_put(o);
}

/* The printed document is valid JSON that parses back to the same thing. */
static void test_print_roundtrip(void **state)
{
	struct nctl c = { .json = true, .pretty = true };
	struct json_object *doc = nctl_json_doc(), *back;
	char buf[4096] = { 0 };
	FILE *f, *saved = stdout;

	(void)state;
	json_object_object_add(doc, "error", nctl_json_error(-EPERM, "a/b \"c\""));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	stdout = f;
	nctl_json_print(&c, doc);
	stdout = saved;
	fclose(f);
	assert_non_null(strchr(buf, '\n'));
	assert_non_null(strstr(buf, "a/b"));	/* no "\/" escaping */
	back = json_tokener_parse(buf);
	assert_non_null(back);
	assert_true(json_object_equal(doc, back));
	json_object_put(back);
	json_object_put(doc);
}

static void test_fmt(void **state)
{
	char buf[32];

	(void)state;
	nctl_fmt_dev(nova_dev_make(259, 0), buf, sizeof(buf));
	assert_string_equal(buf, "259:0");
	assert_string_equal(nctl_fmt_bytes(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(nctl_fmt_bytes(1536, buf, sizeof(buf)), "1.5 KiB");
	assert_string_equal(nctl_fmt_bytes(1ULL << 30, buf, sizeof(buf)), "1.0 GiB");
	assert_string_equal(nctl_fmt_ns(999, buf, sizeof(buf)), "999 ns");
	assert_string_equal(nctl_fmt_ns(1500, buf, sizeof(buf)), "1.5 us");
	assert_string_equal(nctl_fmt_ns(2500000, buf, sizeof(buf)), "2.5 ms");
	assert_string_equal(nctl_fmt_ns(3000000000ULL, buf, sizeof(buf)), "3.00 s");
}

/* scrub status: every member, the bad list, null times while unset. */
static void test_scrub(void **state)
{
	struct nova_scrub_info si;
	struct json_object *doc, *sc, *bad, *b, *v;

	(void)state;
	memset(&si, 0, sizeof(si));
	fill_id(&si.id);
	si.state = NOVA_SCRUB_PAUSED;
	si.bandwidth = 1 << 20;
	si.bytes_scanned = 4096;
	si.bytes_total = 8192;
	si.inodes_scanned = 3;
	si.meta_checked = 9;
	si.data_checked = 1;
	si.errors = 2;
	si.repaired = 1;
	si.unrecoverable = 1;
	si.start_ns = 1764756000ULL * 1000000000ULL;
	si.events_suppressed = 42;
	si.n_bad = 2;
	si.bad[0] = (struct nova_corruption){ 16, NOVA_CORRUPT_LOG_ENTRY,
					      81920, false };
	si.bad[1] = (struct nova_corruption){ 0, NOVA_CORRUPT_SUPER, 0, true };
	doc = nctl_json_scrub(&si);
	assert_int_equal(u64_member(doc, "version"), NOVACTL_JSON_VERSION);
	check_id(member(doc, "filesystem", json_type_object));
	sc = member(doc, "scrub", json_type_object);
	assert_string_equal(str_member(sc, "state"), "paused");
	assert_int_equal(u64_member(sc, "bandwidth"), 1 << 20);
	assert_int_equal(u64_member(sc, "bytes_scanned"), 4096);
	assert_int_equal(u64_member(sc, "bytes_total"), 8192);
	assert_int_equal(u64_member(sc, "inodes_scanned"), 3);
	assert_int_equal(u64_member(sc, "meta_checked"), 9);
	assert_int_equal(u64_member(sc, "data_checked"), 1);
	assert_int_equal(u64_member(sc, "errors"), 2);
	assert_int_equal(u64_member(sc, "repaired"), 1);
	assert_int_equal(u64_member(sc, "unrecoverable"), 1);
	assert_string_equal(str_member(sc, "start_time"), "2025-12-03T10:00:00Z");
	assert_true(json_object_object_get_ex(sc, "finish_time", &v) && !v);
	assert_int_equal(u64_member(sc, "finish_ns"), 0);
	assert_int_equal(u64_member(sc, "errno"), 0);
	assert_int_equal(u64_member(sc, "events_suppressed"), 42);
	bad = member(sc, "bad", json_type_array);
	assert_int_equal(json_object_array_length(bad), 2);
	b = json_object_array_get_idx(bad, 0);
	assert_int_equal(u64_member(b, "inode"), 16);
	assert_string_equal(str_member(b, "kind"), "log-entry");
	assert_int_equal(u64_member(b, "offset"), 81920);
	assert_false(json_object_get_boolean(member(b, "repaired",
						    json_type_boolean)));
	b = json_object_array_get_idx(bad, 1);
	assert_string_equal(str_member(b, "kind"), "super");
	json_object_put(doc);
}

/* Names shared by the CLI and the protocol. */
static void test_scrub_names(void **state)
{
	(void)state;
	assert_string_equal(nova_scrub_state_name(NOVA_SCRUB_IDLE), "idle");
	assert_string_equal(nova_scrub_state_name(NOVA_SCRUB_FINISHED), "finished");
	assert_string_equal(nova_scrub_state_name(99), "unknown");
	assert_string_equal(nova_corruption_kind_name(NOVA_CORRUPT_INODE_TABLE),
			    "inode-table");
	assert_string_equal(nova_corruption_kind_name(0), "unknown");
	assert_int_equal(nova_inject_target_parse("log-tail"), NOVA_INJECT_LOG_TAIL);
	assert_int_equal(nova_inject_target_parse("parity"), NOVA_INJECT_PARITY);
	assert_int_equal(nova_inject_target_parse("journal"), -EINVAL);
	assert_int_equal(nova_inject_target_parse(""), -EINVAL);
	assert_string_equal(nova_inject_target_name(NOVA_INJECT_CSUM), "csum");
	assert_string_equal(nova_inject_target_name(8), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_version),
		cmocka_unit_test(test_fs_info),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_print_roundtrip),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_scrub_names),
	};

	return cmocka_run_group_tests_name("novactl-json", tests, NULL, NULL);
}

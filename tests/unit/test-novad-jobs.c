// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novad's jobs against a test double of the job backend
 * (an in-memory snapshot table): snapshot naming, EEXIST, retention that
 * never deletes user snapshots, failures reported and not hidden, the
 * scrub bandwidth limit, a scrub already running, the state file round
 * trip, and the journal fields, priorities and hook environment of scrub
 * results and corruption notifications.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../novad/events.h"
#include "../../novad/jobs.h"
#include "../../novad/state.h"

/* ---- the test double ---- */

struct fake {
	struct novad_snap snaps[64];
	size_t n;
	uint64_t next_id;
	int fail_create, fail_list, fail_delete_id;	/* errno to return */
	int fail_scrub;
	const char *unavailable;
	uint64_t scrub_bw;
	int scrubs;
	/* What the job reported. */
	int ev_count[16];
	char last_err[256];
};

static const char *f_unavail(void *ctx)
{
	return ((struct fake *)ctx)->unavailable;
}

static int f_create(void *ctx, const struct novad_fs_ref *fs, const char *name,
		    uint64_t *id, struct nova_err *e)
{
	struct fake *f = ctx;

	(void)fs;
	if (f->unavailable) {
		nova_err_set(e, -EOPNOTSUPP, "%s", f->unavailable);
		return -EOPNOTSUPP;
	}
	if (f->fail_create) {
		nova_err_set(e, -f->fail_create, "create failed");
		return -f->fail_create;
	}
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->snaps[i].name, name)) {
			nova_err_set(e, -EEXIST, "exists");
			return -EEXIST;
		}
	f->snaps[f->n].id = ++f->next_id;
	snprintf(f->snaps[f->n].name, sizeof(f->snaps[f->n].name), "%s", name);
	*id = f->snaps[f->n++].id;
	return 0;
}

static int f_list(void *ctx, const struct novad_fs_ref *fs,
		  struct novad_snap **list, size_t *n, struct nova_err *e)
{
	struct fake *f = ctx;

	(void)fs;
	if (f->fail_list) {
		nova_err_set(e, -f->fail_list, "list failed");
		return -f->fail_list;
	}
	*list = malloc((f->n ? f->n : 1) * sizeof(**list));
	memcpy(*list, f->snaps, f->n * sizeof(**list));
	*n = f->n;
	return 0;
}

static int f_delete(void *ctx, const struct novad_fs_ref *fs, uint64_t id,
		    struct nova_err *e)
{
	struct fake *f = ctx;

	(void)fs;
	if (f->fail_delete_id && (uint64_t)f->fail_delete_id == id) {
		nova_err_set(e, -EBUSY, "snapshot is mounted");
		return -EBUSY;
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->snaps[i].id == id) {
			f->snaps[i] = f->snaps[--f->n];
			return 0;
		}
	nova_err_set(e, -ENOENT, "no such snapshot");
	return -ENOENT;
}

static int f_scrub(void *ctx, const struct novad_fs_ref *fs, uint64_t bw,
		   struct nova_err *e)
{
	struct fake *f = ctx;

	(void)fs;
	if (f->unavailable) {
		nova_err_set(e, -EOPNOTSUPP, "%s", f->unavailable);
		return -EOPNOTSUPP;
	}
	if (f->fail_scrub) {
		nova_err_set(e, -f->fail_scrub, "scrub refused");
		return -f->fail_scrub;
	}
	f->scrubs++;
	f->scrub_bw = bw;
	return 0;
}

static const struct novad_backend_ops fake_ops = {
	.snapshot_unavailable = f_unavail,
	.scrub_unavailable = f_unavail,
	.snapshot_create = f_create,
	.snapshot_list = f_list,
	.snapshot_delete = f_delete,
	.scrub_start = f_scrub,
};

static void on_event(void *arg, enum novad_job_event ev,
		     const struct novad_fs_ref *fs, const char *name,
		     uint64_t id, const struct nova_err *err)
{
	struct fake *f = arg;

	(void)fs, (void)name, (void)id;
	f->ev_count[ev]++;
	if (err)
		snprintf(f->last_err, sizeof(f->last_err), "%s", err->msg);
}

static const struct novad_fs_ref fsref = { .dev = 0x10300, .bdev = "pmem0",
					   .mountpoint = "/mnt/nova" };

static int64_t utc(int y, int mo, int d, int h, int mi)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
			 .tm_hour = h, .tm_min = mi };

	return (int64_t)timegm(&tm);
}

static bool has(const struct fake *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->snaps[i].name, name))
			return true;
	return false;
}

static void policy(struct novad_policy *pol, unsigned int hourly)
{
	memset(pol, 0, sizeof(*pol));
	pol->snapshots = true;
	pol->keep[NOVAD_HOURLY] = hourly;
	pol->keep[NOVAD_DAILY] = 7;
	strcpy(pol->prefix, "auto");
}

/* ---- tests ---- */

static void test_snapshot_and_prune(void **state)
{
	struct fake f = { 0 };
	struct novad_backend b = { &fake_ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol;

	(void)state;
	policy(&pol, 3);
	/* A user's snapshots that look a bit like ours. */
	f_create(&f, &fsref, "before-upgrade", &(uint64_t){ 0 }, NULL);
	f_create(&f, &fsref, "auto-manual", &(uint64_t){ 0 }, NULL);
	f_create(&f, &fsref, "auto-2026-12-02T1000Z-hourly-keep", &(uint64_t){ 0 }, NULL);

	for (int h = 10; h < 16; h++)
		assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
						    utc(2026, 12, 2, h, 0), &rep), 0);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_CREATED], 6);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_PRUNED], 3);
	assert_int_equal(f.n, 3 + 3);
	assert_true(has(&f, "before-upgrade"));
	assert_true(has(&f, "auto-manual"));
	assert_true(has(&f, "auto-2026-12-02T1000Z-hourly-keep"));
	assert_true(has(&f, "auto-2026-12-02T1300Z-hourly"));
	assert_true(has(&f, "auto-2026-12-02T1400Z-hourly"));
	assert_true(has(&f, "auto-2026-12-02T1500Z-hourly"));
	assert_false(has(&f, "auto-2026-12-02T1200Z-hourly"));

	/* Another prefix's auto snapshots are not ours either. */
	strcpy(pol.prefix, "other");
	pol.keep[NOVAD_HOURLY] = 0;
	assert_int_equal(novad_job_prune(&b, &fsref, &pol, &rep), 0);
	assert_int_equal(f.n, 6);
}

static void test_exists(void **state)
{
	struct fake f = { 0 };
	struct novad_backend b = { &fake_ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol;

	(void)state;
	policy(&pol, 5);
	assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_DAILY,
					    utc(2026, 12, 2, 0, 0), &rep), 0);
	/* Clock set back into the same minute: the name exists; fine. */
	assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_DAILY,
					    utc(2026, 12, 2, 0, 0) + 30, &rep), 0);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_CREATED], 1);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_EXISTS], 1);
	assert_int_equal(f.n, 1);
}

static void test_failures(void **state)
{
	struct fake f = { 0 };
	struct novad_backend b = { &fake_ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol;

	(void)state;
	policy(&pol, 1);
	/* Creation fails: the error comes back, nothing is pruned. */
	f.fail_create = EROFS;
	assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
					    utc(2026, 12, 2, 1, 0), &rep), -EROFS);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_FAILED], 1);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_CREATED], 0);
	assert_string_equal(f.last_err, "create failed");
	f.fail_create = 0;

	/* One deletion fails: reported, the others still happen. */
	for (int h = 1; h <= 3; h++)
		novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
				   utc(2026, 12, 2, h, 0), &rep);
	assert_int_equal(f.n, 1);
	pol.keep[NOVAD_HOURLY] = 5;
	for (int h = 4; h <= 6; h++)
		novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
				   utc(2026, 12, 2, h, 0), &rep);
	assert_int_equal(f.n, 4);
	pol.keep[NOVAD_HOURLY] = 1;
	f.fail_delete_id = (int)f.snaps[0].id;	/* the 03:00 one */
	f.ev_count[NOVAD_EV_SNAPSHOT_PRUNE_FAILED] = 0;
	assert_int_equal(novad_job_prune(&b, &fsref, &pol, &rep), 2);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_PRUNE_FAILED], 1);
	assert_string_equal(f.last_err, "snapshot is mounted");
	assert_int_equal(f.n, 2);

	/* Listing fails: a negative errno, an event, nothing deleted. */
	f.fail_list = EIO;
	assert_int_equal(novad_job_prune(&b, &fsref, &pol, &rep), -EIO);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_LIST_FAILED], 1);
	assert_int_equal(f.n, 2);
}

/* The kernel's snapshot limit, as the real backend sees it. */
static int f_create_limited(void *ctx, const struct novad_fs_ref *fs,
			    const char *name, uint64_t *id, struct nova_err *e)
{
	struct fake *f = ctx;

	if (f->n >= 4) {
		nova_err_set(e, -ENOSPC, "snapshot limit reached");
		return -ENOSPC;
	}
	return f_create(ctx, fs, name, id, e);
}

static void test_enospc(void **state)
{
	struct novad_backend_ops ops = fake_ops;
	struct fake f = { 0 };
	struct novad_backend b = { &ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol;

	(void)state;
	ops.snapshot_create = f_create_limited;
	policy(&pol, 3);
	f_create(&f, &fsref, "mine", &(uint64_t){ 0 }, NULL);
	for (int h = 1; h <= 3; h++)
		assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
						    utc(2026, 12, 2, h, 0), &rep), 0);
	assert_int_equal(f.n, 4);
	/* Full, but retention has one to delete: pruned, then created. */
	assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
					    utc(2026, 12, 2, 4, 0), &rep), 0);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_FAILED], 0);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_PRUNED], 1);
	assert_false(has(&f, "auto-2026-12-02T0100Z-hourly"));
	assert_true(has(&f, "auto-2026-12-02T0400Z-hourly"));
	assert_true(has(&f, "mine"));
	assert_int_equal(f.n, 4);

	/* Full of what novad must keep (user snapshots): the error stays. */
	pol.keep[NOVAD_HOURLY] = 10;
	assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY,
					    utc(2026, 12, 2, 5, 0), &rep), -ENOSPC);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_FAILED], 1);
	assert_string_equal(f.last_err, "snapshot limit reached");
	assert_true(has(&f, "mine"));
	assert_int_equal(f.n, 4);
}

static void test_unavailable(void **state)
{
	struct fake f = { .unavailable = "the nova genl family has no snapshot commands" };
	struct novad_backend b = { &fake_ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol;

	(void)state;
	policy(&pol, 1);
	assert_int_equal(novad_job_snapshot(&b, &fsref, &pol, NOVAD_HOURLY, 0, &rep),
			 -EOPNOTSUPP);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_FAILED], 1);
	assert_int_equal(f.ev_count[NOVAD_EV_SNAPSHOT_CREATED], 0);
	assert_string_equal(f.last_err, "the nova genl family has no snapshot commands");
	assert_int_equal(novad_job_scrub(&b, &fsref, &pol, &rep), -EOPNOTSUPP);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_FAILED], 1);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_STARTED], 0);
}

static void test_scrub(void **state)
{
	struct fake f = { 0 };
	struct novad_backend b = { &fake_ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol;

	(void)state;
	policy(&pol, 1);
	pol.scrub_interval = 86400;
	pol.scrub_bandwidth = 100 << 20;
	assert_int_equal(novad_job_scrub(&b, &fsref, &pol, &rep), 0);
	assert_int_equal(f.scrubs, 1);
	assert_int_equal(f.scrub_bw, 100 << 20);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_STARTED], 1);
}

/* A pass already running (EALREADY) is not doubled and is no failure. */
static void test_scrub_running(void **state)
{
	struct fake f = { .fail_scrub = EALREADY };
	struct novad_backend b = { &fake_ops, &f };
	struct novad_job_report rep = { on_event, &f };
	struct novad_policy pol = { .scrub_interval = 3600 };

	(void)state;
	assert_int_equal(novad_job_scrub(&b, &fsref, &pol, &rep), 0);
	assert_int_equal(f.scrubs, 0);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_RUNNING], 1);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_STARTED], 0);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_FAILED], 0);

	/* Other refusals are failures, with the kernel's message. */
	f.fail_scrub = EROFS;
	assert_int_equal(novad_job_scrub(&b, &fsref, &pol, &rep), -EROFS);
	assert_int_equal(f.ev_count[NOVAD_EV_SCRUB_FAILED], 1);
	assert_string_equal(f.last_err, "scrub refused");
}

static void test_scrub_result(void **state)
{
	struct nova_scrub_info si = {
		.state = NOVA_SCRUB_FINISHED, .bytes_scanned = 3 << 20,
		.bytes_total = 3 << 20, .inodes_scanned = 7,
		.start_ns = 1000000000ull, .finish_ns = 3500000000ull,
	};
	struct novad_fields f = { .n = 0 };
	char text[256];

	(void)state;
	/* Clean: info. */
	assert_int_equal(novad_scrub_result_prio(&si), LOG_INFO);
	novad_scrub_result_fields(&si, &f);
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_STATE"), "finished");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_BYTES_SCANNED"), "3145728");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_BYTES_TOTAL"), "3145728");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_INODES"), "7");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_ERRORS"), "0");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_REPAIRED"), "0");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_UNRECOVERABLE"), "0");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_DURATION_SEC"), "2.500");
	assert_null(novad_fields_get(&f, "NOVA_SCRUB_ERRNO"));
	assert_null(novad_fields_get(&f, "NOVA_SCRUB"));	/* no prefix match */
	assert_null(f.v[f.n]);
	novad_fields_free(&f);
	novad_scrub_result_text(&si, text, sizeof(text));
	assert_string_equal(text, "3.0 MiB scanned in 2.5 s: clean");

	/* Everything repaired: warning. */
	si.errors = 2;
	si.repaired = 2;
	assert_int_equal(novad_scrub_result_prio(&si), LOG_WARNING);
	novad_scrub_result_text(&si, text, sizeof(text));
	assert_string_equal(text, "3.0 MiB scanned in 2.5 s: 2 bad objects found, 2 repaired, 0 unrecoverable");

	/* Something unrecoverable: err. */
	si.errors = 3;
	si.unrecoverable = 1;
	assert_int_equal(novad_scrub_result_prio(&si), LOG_ERR);
	novad_scrub_result_fields(&si, &f);
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_ERRORS"), "3");
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_UNRECOVERABLE"), "1");
	novad_fields_free(&f);

	/* Ended early by an error, no times: err, the errno, no duration. */
	memset(&si, 0, sizeof(si));
	si.state = NOVA_SCRUB_FINISHED;
	si.err = EIO;
	assert_int_equal(novad_scrub_result_prio(&si), LOG_ERR);
	novad_scrub_result_fields(&si, &f);
	assert_string_equal(novad_fields_get(&f, "NOVA_SCRUB_ERRNO"), "5");
	assert_null(novad_fields_get(&f, "NOVA_SCRUB_DURATION_SEC"));
	novad_fields_free(&f);
	novad_scrub_result_text(&si, text, sizeof(text));
	assert_non_null(strstr(text, "the pass ended early: "));

	/* A full list is capped, never overrun. */
	for (int i = 0; i < NOVAD_FIELDS_MAX + 5; i++)
		novad_fields_add(&f, "X%d=1", i);
	assert_int_equal(f.n, NOVAD_FIELDS_MAX);
	assert_null(f.v[NOVAD_FIELDS_MAX]);
	novad_fields_free(&f);
}

static void test_corruption_event(void **state)
{
	struct nova_corruption c = { .ino = 42, .kind = NOVA_CORRUPT_LOG_ENTRY,
				     .offset = 8192, .repaired = false };
	struct novad_fs_ref ref = fsref;
	struct novad_fields f = { .n = 0 };

	(void)state;
	memset(ref.uuid, 0xab, sizeof(ref.uuid));
	assert_int_equal(novad_corruption_prio(&c), LOG_ERR);
	novad_corruption_fields(&c, &f);
	assert_int_equal(f.n, 4);
	assert_string_equal(novad_fields_get(&f, "NOVA_INODE"), "42");
	assert_string_equal(novad_fields_get(&f, "NOVA_KIND"), "log-entry");
	assert_string_equal(novad_fields_get(&f, "NOVA_OFFSET"), "8192");
	assert_string_equal(novad_fields_get(&f, "NOVA_REPAIRED"), "no");
	novad_fields_free(&f);

	c.kind = NOVA_CORRUPT_DATA;
	c.repaired = true;
	assert_int_equal(novad_corruption_prio(&c), LOG_WARNING);

	/* The hook's whole environment: nothing inherited from novad. */
	novad_hook_env(&ref, &c, &f);
	assert_string_equal(novad_fields_get(&f, "NOVA_EVENT"), "corruption");
	assert_string_equal(novad_fields_get(&f, "NOVA_DEVICE"), "/dev/pmem0");
	assert_string_equal(novad_fields_get(&f, "NOVA_MOUNTPOINT"), "/mnt/nova");
	assert_string_equal(novad_fields_get(&f, "NOVA_UUID"),
			    "abababab-abab-abab-abab-abababababab");
	assert_string_equal(novad_fields_get(&f, "NOVA_KIND"), "data");
	assert_string_equal(novad_fields_get(&f, "NOVA_REPAIRED"), "yes");
	assert_non_null(novad_fields_get(&f, "PATH"));
	assert_int_equal(f.n, 9);
	novad_fields_free(&f);

	/* Mount point unknown: present and empty. */
	ref.mountpoint = NULL;
	novad_hook_env(&ref, &c, &f);
	assert_string_equal(novad_fields_get(&f, "NOVA_MOUNTPOINT"), "");
	novad_fields_free(&f);
}

static void test_state_file(void **state)
{
	char dir[] = "/tmp/novad-state-XXXXXX", path[64];
	struct novad_state st = { 0 }, back;
	uint8_t u1[16] = { 1, 2, 3 }, u2[16] = { 9 };
	int64_t last;
	size_t bad;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
	/* Missing file: empty state. */
	assert_int_equal(novad_state_load(path, &back, &bad), 0);
	assert_int_equal(back.n, 0);

	assert_int_equal(novad_state_set(&st, u1, "snapshot-hourly", 1796248800), 0);
	assert_int_equal(novad_state_set(&st, u2, "scrub", -5), 0);
	assert_int_equal(novad_state_set(&st, u1, "snapshot-hourly", 1796252400), 0);
	assert_int_equal(st.n, 2);
	assert_int_equal(novad_state_save(path, &st), 0);
	assert_int_equal(novad_state_load(path, &back, &bad), 0);
	assert_int_equal(bad, 0);
	assert_true(novad_state_get(&back, u1, "snapshot-hourly", &last));
	assert_int_equal(last, 1796252400);
	assert_true(novad_state_get(&back, u2, "scrub", &last));
	assert_int_equal(last, -5);
	assert_false(novad_state_get(&back, u2, "snapshot-hourly", &last));
	novad_state_free(&back);

	/* Damaged lines are skipped and counted, good ones kept. */
	f = fopen(path, "a");
	fputs("garbage\n0f3c5a11-2233-4455-6677-8899aabbccdd scrub 12 extra\n"
	      "0f3c5a11-2233-4455-6677-8899aabbccdd snapshot-daily 77\n", f);
	fclose(f);
	assert_int_equal(novad_state_load(path, &back, &bad), 0);
	assert_int_equal(bad, 2);
	assert_int_equal(back.n, 3);
	novad_state_free(&back);
	novad_state_free(&st);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_and_prune),
		cmocka_unit_test(test_exists),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_state_file),
		cmocka_unit_test(test_scrub_running),
		cmocka_unit_test(test_scrub_result),
		cmocka_unit_test(test_corruption_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

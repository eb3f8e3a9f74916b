// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novad's scheduler with a fake clock: UTC period
 * boundaries, sortable snapshot names, due times, one catch-up after
 * downtime, clock jumps in both directions, retention pruning that never
 * touches user snapshots, and a simulated month of hourly operation.
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
#include <cmocka.h>

#include "../../novad/sched.h"

/* UTC broken-down time to seconds (the fake clock). */
static int64_t utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
			 .tm_hour = h, .tm_min = mi, .tm_sec = s };

	return (int64_t)timegm(&tm);
}

static void test_boundaries(void **state)
{
	int64_t t = utc(2026, 12, 2, 22, 37, 5);	/* a Wednesday */

	(void)state;
	assert_int_equal(novad_period_start(NOVAD_HOURLY, 0, t), utc(2026, 12, 2, 22, 0, 0));
	assert_int_equal(novad_period_next(NOVAD_HOURLY, 0, t), utc(2026, 12, 2, 23, 0, 0));
	assert_int_equal(novad_period_start(NOVAD_DAILY, 0, t), utc(2026, 12, 2, 0, 0, 0));
	assert_int_equal(novad_period_next(NOVAD_DAILY, 0, t), utc(2026, 12, 3, 0, 0, 0));
	assert_int_equal(novad_period_start(NOVAD_WEEKLY, 0, t), utc(2026, 11, 30, 0, 0, 0));
	assert_int_equal(novad_period_next(NOVAD_WEEKLY, 0, t), utc(2026, 12, 7, 0, 0, 0));
	assert_int_equal(novad_period_start(NOVAD_MONTHLY, 0, t), utc(2026, 12, 1, 0, 0, 0));
	assert_int_equal(novad_period_next(NOVAD_MONTHLY, 0, t), utc(2027, 1, 1, 0, 0, 0));
	assert_int_equal(novad_period_start(NOVAD_YEARLY, 0, t), utc(2026, 1, 1, 0, 0, 0));
	assert_int_equal(novad_period_next(NOVAD_YEARLY, 0, t), utc(2027, 1, 1, 0, 0, 0));
	/* Exactly on a boundary: that period starts, the next is later. */
	t = utc(2028, 2, 28, 0, 0, 0);
	assert_int_equal(novad_period_start(NOVAD_DAILY, 0, t), t);
	assert_int_equal(novad_period_next(NOVAD_DAILY, 0, t), utc(2028, 2, 29, 0, 0, 0));
	assert_int_equal(novad_period_next(NOVAD_MONTHLY, 0, t), utc(2028, 3, 1, 0, 0, 0));
	/* A Monday 00:00 starts its own week; Sunday 23:59 is the old one. */
	assert_int_equal(novad_period_start(NOVAD_WEEKLY, 0, utc(2026, 12, 7, 0, 0, 0)),
			 utc(2026, 12, 7, 0, 0, 0));
	assert_int_equal(novad_period_start(NOVAD_WEEKLY, 0, utc(2026, 12, 6, 23, 59, 59)),
			 utc(2026, 11, 30, 0, 0, 0));
	/* Before 1970 the floor still goes down, not towards zero. */
	assert_int_equal(novad_period_start(NOVAD_HOURLY, 0, -1), -3600);
	assert_int_equal(novad_period_start(NOVAD_WEEKLY, 0, 0), utc(1969, 12, 29, 0, 0, 0));
}

static void test_names(void **state)
{
	char buf[NOVAD_SNAP_NAME_LEN];
	enum novad_period p;
	int64_t t;

	(void)state;
	assert_int_equal(novad_snap_name(buf, sizeof(buf), "auto", NOVAD_HOURLY,
					 utc(2026, 12, 2, 22, 0, 41)), 0);
	assert_string_equal(buf, "auto-2026-12-02T2200Z-hourly");
	assert_int_equal(novad_snap_name(buf, sizeof(buf), "auto", NOVAD_YEARLY,
					 utc(2027, 1, 1, 0, 0, 0)), 0);
	assert_string_equal(buf, "auto-2027-01-01T0000Z-yearly");
	assert_int_equal(novad_snap_name(buf, 10, "auto", NOVAD_HOURLY, 0), -ENAMETOOLONG);

	assert_int_equal(novad_snap_parse("auto-2026-12-02T2200Z-hourly", "auto", &p, &t), 0);
	assert_int_equal(p, NOVAD_HOURLY);
	assert_int_equal(t, utc(2026, 12, 2, 22, 0, 0));
	assert_int_equal(novad_snap_parse("nightly-2026-12-02T2200Z-daily", "nightly", &p, &t), 0);
	assert_int_equal(p, NOVAD_DAILY);

	/* Not ours: user names, other prefixes, malformed times or periods. */
	static const char *const foreign[] = {
		"before-upgrade", "auto", "auto-", "auto-manual",
		"autox-2026-12-02T2200Z-hourly", "auto2026-12-02T2200Z-hourly",
		"nightly-2026-12-02T2200Z-hourly", "auto-2026-12-02T2200Z-minutely",
		"auto-2026-12-02T2200Z-hourly-keep", "auto-2026-02-30T0000Z-daily",
		"auto-2026-12-02T2460Z-hourly", "auto-2026-12-2T2200Z-hourly",
		"auto-2026-12-02T22:00Z-hourly", "auto-2026-12-02T2200-hourly",
		"auto- 2026-12-02T2200Z-hourly", "auto-+2026-12-02T2200Z-hourly",
	};
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		if (!novad_snap_parse(foreign[i], "auto", &p, &t))
			print_error("'%s' parsed as an auto snapshot\n", foreign[i]);
		assert_int_equal(novad_snap_parse(foreign[i], "auto", &p, &t), -EINVAL);
	}
}

static void test_names_sort(void **state)
{
	/* Lexical order of names is time order (zero-padded UTC). */
	int64_t times[] = { utc(2026, 9, 30, 23, 0, 0), utc(2026, 10, 1, 0, 0, 0),
			    utc(2026, 10, 1, 9, 0, 0), utc(2026, 10, 1, 10, 0, 0),
			    utc(2027, 1, 1, 0, 0, 0) };
	char prev[NOVAD_SNAP_NAME_LEN] = "", cur[NOVAD_SNAP_NAME_LEN];

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		novad_snap_name(cur, sizeof(cur), "auto", NOVAD_HOURLY, times[i]);
		assert_true(strcmp(prev, cur) < 0);
		strcpy(prev, cur);
	}
}

static void test_due_calendar(void **state)
{
	int64_t now = utc(2026, 12, 2, 22, 37, 0);

	(void)state;
	/* Never ran: at once. */
	assert_int_equal(novad_due_calendar(NOVAD_HOURLY, 0, false, 0, now), now);
	/* Ran in this hour: next hour. */
	assert_int_equal(novad_due_calendar(NOVAD_HOURLY, 0, true, utc(2026, 12, 2, 22, 0, 1), now),
			 utc(2026, 12, 2, 23, 0, 0));
	/* Ran last hour, this hour's boundary missed: now. */
	assert_int_equal(novad_due_calendar(NOVAD_HOURLY, 0, true, utc(2026, 12, 2, 21, 0, 0), now),
			 now);
	/* Daily that ran today at 00:00: tomorrow. */
	assert_int_equal(novad_due_calendar(NOVAD_DAILY, 0, true, utc(2026, 12, 2, 0, 0, 0), now),
			 utc(2026, 12, 3, 0, 0, 0));
	/* Monthly that ran on 1 November: now (December has none yet). */
	assert_int_equal(novad_due_calendar(NOVAD_MONTHLY, 0, true, utc(2026, 11, 1, 0, 0, 0), now),
			 now);
}

static void test_due_interval(void **state)
{
	int64_t now = 1000000;

	(void)state;
	assert_int_equal(novad_due_interval(3600, false, 0, now), now);
	assert_int_equal(novad_due_interval(3600, true, now - 60, now), now - 60 + 3600);
	assert_int_equal(novad_due_interval(3600, true, now - 7200, now), now);
	/* Last run far in the future (clock set back): one interval from now. */
	assert_int_equal(novad_due_interval(3600, true, now + 86400, now), now + 3600);
}

/*
 * Drive a calendar job with a fake clock from T0 to T1 in STEP seconds,
 * the way the daemon does: run when due, record the run time. DOWN_FROM
 * to DOWN_TO is downtime (no ticks). Returns how many times it ran.
 */
static int simulate(enum novad_period p, int64_t t0, int64_t t1, int64_t step,
		    int64_t down_from, int64_t down_to, int64_t *runs, int max)
{
	bool have = false;
	int64_t last = 0;
	int n = 0;

	for (int64_t now = t0; now <= t1; now += step) {
		if (now >= down_from && now < down_to)
			continue;
		if (novad_due_calendar(p, 0, have, last, now) <= now) {
			if (n < max)
				runs[n] = now;
			n++;
			have = true;
			last = now;
		}
	}
	return n;
}

static void test_catch_up_once(void **state)
{
	int64_t runs[200];
	int64_t t0 = utc(2026, 12, 1, 0, 0, 0);
	int n;

	(void)state;
	/* 24 hours of 1-minute ticks: 24 hourly runs, on the hour. */
	n = simulate(NOVAD_HOURLY, t0, t0 + 86400 - 1, 60, 0, 0, runs, 200);
	assert_int_equal(n, 24);
	for (int i = 0; i < n; i++)
		assert_int_equal(runs[i], t0 + i * 3600);

	/* Down from 03:10 to 09:25: the six missed hours give one run at
	 * 09:25, then 10:00, 11:00... */
	n = simulate(NOVAD_HOURLY, t0, t0 + 12 * 3600 - 1, 60,
		     t0 + 3 * 3600 + 600, t0 + 9 * 3600 + 1500, runs, 200);
	assert_int_equal(runs[3], t0 + 3 * 3600);
	assert_int_equal(runs[4], t0 + 9 * 3600 + 1500);
	assert_int_equal(runs[5], t0 + 10 * 3600);
	assert_int_equal(n, 4 + 1 + 2);

	/* A daily job across three days of downtime runs once on return. */
	n = simulate(NOVAD_DAILY, t0, t0 + 6 * 86400 - 1, 300,
		     t0 + 86400 + 3600, t0 + 4 * 86400 + 7200, runs, 200);
	assert_int_equal(n, 4);	/* days 1 and 2, day 5 02:00 on return, day 6 */
	assert_int_equal(runs[1], t0 + 86400);
	assert_int_equal(runs[2], t0 + 4 * 86400 + 7200);
	assert_int_equal(runs[3], t0 + 5 * 86400);
}

static void test_clock_jumps(void **state)
{
	int64_t last = utc(2026, 12, 2, 22, 0, 0);
	int64_t due;

	(void)state;
	/* Forward by three days: one catch-up now, then the next hour. */
	due = novad_due_calendar(NOVAD_HOURLY, 0, true, last, last + 3 * 86400 + 120);
	assert_int_equal(due, last + 3 * 86400 + 120);
	due = novad_due_calendar(NOVAD_HOURLY, 0, true, due, due);
	assert_int_equal(due, last + 3 * 86400 + 3600);

	/* Back by a day: the future run is clamped, the job runs at the next
	 * boundary of the new "now" instead of waiting a day. */
	due = novad_due_calendar(NOVAD_HOURLY, 0, true, last, last - 86400 + 600);
	assert_int_equal(due, last - 86400 + 3600);
	assert_int_equal(novad_sched_clamp(last, last - 86400), last - 86400);

	/* Back by less than the slack (NTP step of a few seconds): no
	 * second run in the same hour. */
	due = novad_due_calendar(NOVAD_HOURLY, 0, true, last + 5, last + 1);
	assert_int_equal(due, last + 3600);
}

static void add(struct novad_snap *s, size_t *n, uint64_t id, const char *name)
{
	s[*n].id = id;
	snprintf(s[*n].name, sizeof(s[*n].name), "%s", name);
	s[*n].ctime = 0;
	(*n)++;
}

static void test_prune(void **state)
{
	struct novad_snap s[32];
	bool del[32];
	size_t n = 0;
	unsigned int keep[NOVAD_NPERIODS] = { 2, 1, 0, 5, 0 };

	(void)state;
	add(s, &n, 1, "auto-2026-12-02T1900Z-hourly");
	add(s, &n, 2, "before-upgrade");				/* user */
	add(s, &n, 3, "auto-2026-12-02T2100Z-hourly");
	add(s, &n, 4, "auto-2026-12-02T2000Z-hourly");
	add(s, &n, 5, "auto-2026-12-02T2200Z-hourly");
	add(s, &n, 6, "auto-2026-12-01T0000Z-daily");
	add(s, &n, 7, "auto-2026-12-02T0000Z-daily");
	add(s, &n, 8, "auto-2026-11-30T0000Z-weekly");		/* keep 0 */
	add(s, &n, 9, "auto-2026-12-01T0000Z-monthly");
	add(s, &n, 10, "nightly-2026-12-01T0000Z-daily");	/* other prefix */
	add(s, &n, 11, "auto-2026-12-02T2200Z-hourly-mine");	/* user */
	add(s, &n, 12, "auto-keep-forever");			/* user */

	assert_int_equal(novad_prune_select(s, n, "auto", keep, del), 4);
	assert_true(del[0]);		/* 19:00 hourly: older than the 2 kept */
	assert_false(del[1]);
	assert_false(del[2]);		/* 21:00 kept */
	assert_true(del[3]);		/* 20:00 */
	assert_false(del[4]);		/* 22:00 kept */
	assert_true(del[5]);		/* older daily */
	assert_false(del[6]);
	assert_true(del[7]);		/* weekly, keep 0 */
	assert_false(del[8]);
	assert_false(del[9]);
	assert_false(del[10]);
	assert_false(del[11]);

	/* Keeping more than there are deletes nothing. */
	unsigned int lots[NOVAD_NPERIODS] = { 99, 99, 99, 99, 99 };
	assert_int_equal(novad_prune_select(s, n, "auto", lots, del), 0);
	for (size_t i = 0; i < n; i++)
		assert_false(del[i]);
	assert_int_equal(novad_prune_select(s, 0, "auto", lots, del), 0);
}

/* A month of operation with hourly ticks and keep counts: the survivors
 * are exactly the newest of each period. */
static void test_month(void **state)
{
	static struct novad_snap s[2000];
	static bool del[2000];
	unsigned int keep[NOVAD_NPERIODS] = { 24, 7, 4, 12, 0 };
	int64_t t0 = utc(2026, 11, 1, 0, 0, 0), t1 = utc(2026, 12, 1, 0, 0, 0);
	bool have[NOVAD_NPERIODS] = { false };
	int64_t last[NOVAD_NPERIODS] = { 0 };
	size_t n = 0, counts[NOVAD_NPERIODS] = { 0 };
	uint64_t id = 1;

	(void)state;
	for (int64_t now = t0; now <= t1; now += 3600) {
		for (int p = 0; p < NOVAD_NPERIODS; p++) {
			if (!keep[p] || novad_due_calendar(p, 0, have[p], last[p], now) > now)
				continue;
			assert_true(n < 2000);
			s[n].id = id++;
			assert_int_equal(novad_snap_name(s[n].name, sizeof(s[n].name),
							 "auto", p, now), 0);
			n++;
			have[p] = true;
			last[p] = now;
			novad_prune_select(s, n, "auto", keep, del);
			size_t w = 0;
			for (size_t i = 0; i < n; i++)
				if (!del[i])
					s[w++] = s[i];
			n = w;
		}
	}
	for (size_t i = 0; i < n; i++) {
		enum novad_period p;
		int64_t t;

		assert_int_equal(novad_snap_parse(s[i].name, "auto", &p, &t), 0);
		counts[p]++;
		if (p == NOVAD_HOURLY)
			assert_true(t > t1 - 24 * 3600);
	}
	assert_int_equal(counts[NOVAD_HOURLY], 24);
	assert_int_equal(counts[NOVAD_DAILY], 7);
	assert_int_equal(counts[NOVAD_WEEKLY], 4);
	assert_int_equal(counts[NOVAD_MONTHLY], 2);	/* Nov 1 and Dec 1 */
	assert_int_equal(counts[NOVAD_YEARLY], 0);
}

/* The "frequently" period: FREQUENT-second slots aligned on the epoch. */
static void test_frequent(void **state)
{
	int64_t now = utc(2026, 12, 2, 22, 37, 30), last = 0;
	struct novad_snap s[8];
	unsigned int keep[NOVAD_NPERIODS] = { 0 };
	char name[NOVAD_SNAP_NAME_LEN];
	enum novad_period p;
	bool del[8], have = false;
	int64_t t, runs[32];
	size_t n = 0;
	int nruns = 0;

	(void)state;
	assert_string_equal(novad_period_name(NOVAD_FREQUENTLY), "frequently");
	assert_int_equal(novad_period_from_name("frequently"), NOVAD_FREQUENTLY);
	assert_int_equal(novad_period_start(NOVAD_FREQUENTLY, 900, now),
			 utc(2026, 12, 2, 22, 30, 0));
	assert_int_equal(novad_period_next(NOVAD_FREQUENTLY, 900, now),
			 utc(2026, 12, 2, 22, 45, 0));
	assert_int_equal(novad_period_start(NOVAD_FREQUENTLY, 60, now),
			 utc(2026, 12, 2, 22, 37, 0));
	assert_int_equal(novad_period_next(NOVAD_FREQUENTLY, 60, now),
			 utc(2026, 12, 2, 22, 38, 0));
	/* Other periods ignore the length. */
	assert_int_equal(novad_period_start(NOVAD_HOURLY, 60, now),
			 utc(2026, 12, 2, 22, 0, 0));
	/* Before 1970 too. */
	assert_int_equal(novad_period_start(NOVAD_FREQUENTLY, 600, -1), -600);

	/* Due: never ran; ran in this slot; missed slots run once. */
	assert_int_equal(novad_due_calendar(NOVAD_FREQUENTLY, 900, false, 0, now), now);
	assert_int_equal(novad_due_calendar(NOVAD_FREQUENTLY, 900, true,
					    utc(2026, 12, 2, 22, 30, 5), now),
			 utc(2026, 12, 2, 22, 45, 0));
	assert_int_equal(novad_due_calendar(NOVAD_FREQUENTLY, 900, true,
					    utc(2026, 12, 2, 20, 0, 0), now), now);

	/* An hour with 10 s ticks and 5 minute slots: 12 runs, one per slot. */
	for (t = utc(2026, 12, 2, 22, 0, 0); t < utc(2026, 12, 2, 23, 0, 0); t += 10) {
		if (novad_due_calendar(NOVAD_FREQUENTLY, 300, have, last, t) > t)
			continue;
		assert_true(nruns < 32);
		runs[nruns++] = t;
		have = true;
		last = t;
	}
	assert_int_equal(nruns, 12);
	for (int i = 0; i < nruns; i++)
		assert_int_equal(runs[i], utc(2026, 12, 2, 22, 5 * i, 0));

	/* Names and retention. */
	assert_int_equal(novad_snap_name(name, sizeof(name), "auto",
					 NOVAD_FREQUENTLY, now), 0);
	assert_string_equal(name, "auto-2026-12-02T2237Z-frequently");
	assert_int_equal(novad_snap_parse(name, "auto", &p, &t), 0);
	assert_int_equal(p, NOVAD_FREQUENTLY);
	assert_int_equal(t, utc(2026, 12, 2, 22, 37, 0));
	add(s, &n, 1, "auto-2026-12-02T2235Z-frequently");
	add(s, &n, 2, "auto-2026-12-02T2236Z-frequently");
	add(s, &n, 3, "auto-2026-12-02T2237Z-frequently");
	add(s, &n, 4, "auto-2026-12-02T2200Z-hourly");
	add(s, &n, 5, "auto-2026-12-02T2237Z-frequently-mine");
	keep[NOVAD_FREQUENTLY] = 2;
	keep[NOVAD_HOURLY] = 1;
	assert_int_equal(novad_prune_select(s, n, "auto", keep, del), 1);
	assert_true(del[0]);
	assert_false(del[1] || del[2] || del[3] || del[4]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_names_sort),
		cmocka_unit_test(test_due_calendar),
		cmocka_unit_test(test_due_interval),
		cmocka_unit_test(test_catch_up_once),
		cmocka_unit_test(test_clock_jumps),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_month),
		cmocka_unit_test(test_frequent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

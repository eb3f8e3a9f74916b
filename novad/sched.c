// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad scheduler: period boundaries in UTC, due times, catch-up after
 * downtime, clock-jump clamping, auto snapshot names and retention.
 * Pure functions; see sched.h for the rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched.h"

static const char *const period_names[NOVAD_NPERIODS] = {
	[NOVAD_HOURLY]	= "hourly",
	[NOVAD_DAILY]	= "daily",
	[NOVAD_WEEKLY]	= "weekly",
	[NOVAD_MONTHLY]	= "monthly",
	[NOVAD_YEARLY]	= "yearly",
	[NOVAD_FREQUENTLY] = "frequently",
};

const char *novad_period_name(enum novad_period p)
{
	return (unsigned int)p < NOVAD_NPERIODS ? period_names[p] : NULL;
}

int novad_period_from_name(const char *s)
{
	for (int p = 0; p < NOVAD_NPERIODS; p++)
		if (!strcmp(s, period_names[p]))
			return p;
	return -1;
}

/* Floor division that rounds towards minus infinity (pre-1970 times). */
static int64_t floor_to(int64_t t, int64_t unit, int64_t origin)
{
	int64_t d = t - origin, q = d / unit;

	if (d % unit < 0)
		q--;
	return origin + q * unit;
}

#define HOUR	3600
#define DAY	(24 * HOUR)
#define WEEK	(7 * DAY)
/* 1970-01-05 00:00 UTC, the first Monday of the epoch. */
#define MONDAY	(4 * DAY)

int64_t novad_period_start(enum novad_period p, uint64_t frequent, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	switch (p) {
	case NOVAD_HOURLY:
		return floor_to(t, HOUR, 0);
	case NOVAD_DAILY:
		return floor_to(t, DAY, 0);
	case NOVAD_WEEKLY:
		return floor_to(t, WEEK, MONDAY);
	case NOVAD_MONTHLY:
	case NOVAD_YEARLY:
		gmtime_r(&tt, &tm);
		tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
		tm.tm_mday = 1;
		if (p == NOVAD_YEARLY)
			tm.tm_mon = 0;
		return (int64_t)timegm(&tm);
	case NOVAD_FREQUENTLY:
		return frequent ? floor_to(t, (int64_t)frequent, 0) : t;
	default:
		return t;
	}
}

int64_t novad_period_next(enum novad_period p, uint64_t frequent, int64_t t)
{
	int64_t s = novad_period_start(p, frequent, t);
	time_t tt = (time_t)s;
	struct tm tm;

	switch (p) {
	case NOVAD_HOURLY:
		return s + HOUR;
	case NOVAD_DAILY:
		return s + DAY;
	case NOVAD_WEEKLY:
		return s + WEEK;
	case NOVAD_MONTHLY:
	case NOVAD_YEARLY:
		gmtime_r(&tt, &tm);
		if (p == NOVAD_MONTHLY)
			tm.tm_mon++;
		else
			tm.tm_year++;
		return (int64_t)timegm(&tm);	/* normalises month 12 */
	case NOVAD_FREQUENTLY:
		return frequent ? s + (int64_t)frequent : t + 1;
	default:
		return t + 1;
	}
}

int64_t novad_sched_clamp(int64_t last, int64_t now)
{
	return last > now + NOVAD_CLOCK_SLACK ? now : last;
}

int64_t novad_due_calendar(enum novad_period p, uint64_t frequent,
			   bool have_last, int64_t last, int64_t now)
{
	if (!have_last)
		return now;
	last = novad_sched_clamp(last, now);
	if (last < novad_period_start(p, frequent, now))
		return now;	/* this period has no run yet: once, now */
	return novad_period_next(p, frequent, now > last ? now : last);
}

int64_t novad_due_interval(uint64_t interval, bool have_last, int64_t last,
			   int64_t now)
{
	int64_t due;

	if (!have_last)
		return now;
	last = novad_sched_clamp(last, now);
	due = last + (int64_t)interval;
	return due < now ? now : due;
}

int novad_snap_name(char *buf, size_t len, const char *prefix,
		    enum novad_period p, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	int n;

	if (!novad_period_name(p))
		return -EINVAL;
	gmtime_r(&tt, &tm);
	n = snprintf(buf, len, "%s-%04d-%02d-%02dT%02d%02dZ-%s", prefix,
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, novad_period_name(p));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int novad_snap_parse(const char *name, const char *prefix,
		     enum novad_period *period, int64_t *t)
{
	size_t plen = strlen(prefix);
	char again[NOVAD_SNAP_NAME_LEN * 2];
	int y, mo, d, h, mi, consumed = 0, p;
	struct tm tm = { 0 };
	const char *rest;

	if (strncmp(name, prefix, plen) || name[plen] != '-')
		return -EINVAL;
	rest = name + plen + 1;
	if (sscanf(rest, "%4d-%2d-%2dT%2d%2dZ-%n", &y, &mo, &d, &h, &mi,
		   &consumed) != 5 || !consumed)
		return -EINVAL;
	p = novad_period_from_name(rest + consumed);
	if (p < 0)
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    h < 0 || mi < 0 || y < 1970)
		return -EINVAL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	/* Round trip: rejects 31 February, signs, spaces and short fields. */
	if (novad_snap_name(again, sizeof(again), prefix, p, timegm(&tm)) ||
	    strcmp(again, name))
		return -EINVAL;
	*period = p;
	*t = (int64_t)timegm(&tm);
	return 0;
}

struct prune_ent {
	size_t idx;
	int64_t t;
	uint64_t id;
};

static int prune_newest_first(const void *a, const void *b)
{
	const struct prune_ent *x = a, *y = b;

	if (x->t != y->t)
		return x->t > y->t ? -1 : 1;
	if (x->id != y->id)
		return x->id > y->id ? -1 : 1;
	return 0;
}

size_t novad_prune_select(const struct novad_snap *snaps, size_t n,
			  const char *prefix,
			  const unsigned int keep[NOVAD_NPERIODS], bool *del)
{
	struct prune_ent *ents;
	size_t marked = 0;

	for (size_t i = 0; i < n; i++)
		del[i] = false;
	if (!n)
		return 0;
	ents = calloc(n, sizeof(*ents));
	if (!ents)
		return 0;	/* deleting nothing is the safe failure */
	for (int p = 0; p < NOVAD_NPERIODS; p++) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++) {
			enum novad_period sp;
			int64_t t;

			if (novad_snap_parse(snaps[i].name, prefix, &sp, &t) ||
			    (int)sp != p)
				continue;
			ents[m++] = (struct prune_ent){ i, t, snaps[i].id };
		}
		qsort(ents, m, sizeof(*ents), prune_newest_first);
		for (size_t k = keep[p]; k < m; k++) {
			del[ents[k].idx] = true;
			marked++;
		}
	}
	free(ents);
	return marked;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad scheduler: pure functions of a time value. Nothing here reads a
 * clock; the caller passes "now" (seconds since the epoch, UTC), so the
 * unit tests drive it with a fake clock.
 *
 * Calendar jobs (snapshots) run once per UTC period: hourly on the hour,
 * daily at 00:00, weekly on Monday 00:00, monthly on the 1st 00:00, yearly
 * on 1 January 00:00, "frequently" every FREQUENT seconds (a whole number
 * of minutes, slots aligned on the epoch: 15m gives :00, :15, :30, :45). UTC has no daylight saving time, so every period
 * has exactly one boundary and names never repeat or go backwards.
 * Interval jobs (scrub) run every N seconds after the previous run.
 *
 * A job that has never run is due at once. A job that missed one or more
 * boundaries while the daemon was down runs once, at start, not once per
 * missed boundary. A recorded last run in the future (the clock was set
 * back) is clamped to now, so the job is not starved until the clock
 * catches up.
 */
#ifndef NOVAD_SCHED_H
#define NOVAD_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum novad_period {
	NOVAD_HOURLY,
	NOVAD_DAILY,
	NOVAD_WEEKLY,
	NOVAD_MONTHLY,
	NOVAD_YEARLY,
	NOVAD_FREQUENTLY,	/* every frequent_period (sanoid's "frequently") */
	NOVAD_NPERIODS
};

/* "hourly", ...; -1 / NULL when unknown. */
const char *novad_period_name(enum novad_period p);
int novad_period_from_name(const char *s);

/*
 * Start of the period holding T, and the first boundary after T.
 * FREQUENT (seconds, > 0) is the length of NOVAD_FREQUENTLY; the other
 * periods ignore it.
 */
int64_t novad_period_start(enum novad_period p, uint64_t frequent, int64_t t);
int64_t novad_period_next(enum novad_period p, uint64_t frequent, int64_t t);

/* How far in the future a recorded last run may be before it is clamped. */
#define NOVAD_CLOCK_SLACK	60

/*
 * Last run as the scheduler should use it: NOW when LAST lies more than
 * NOVAD_CLOCK_SLACK seconds in the future, LAST otherwise.
 */
int64_t novad_sched_clamp(int64_t last, int64_t now);

/*
 * When a calendar job is due. HAVE_LAST false: never ran, due NOW.
 * Otherwise due NOW if the period holding NOW has no run yet (catch-up,
 * once), else at the next boundary.
 */
int64_t novad_due_calendar(enum novad_period p, uint64_t frequent,
			   bool have_last, int64_t last, int64_t now);

/* When an interval job is due (never ran: NOW; overdue: NOW). */
int64_t novad_due_interval(uint64_t interval, bool have_last, int64_t last,
			   int64_t now);

/* ---- auto snapshot names: PREFIX-YYYY-MM-DDTHHMMZ-PERIOD ---- */

#define NOVAD_SNAP_NAME_LEN	64

/* Returns 0, or -ENAMETOOLONG. */
int novad_snap_name(char *buf, size_t len, const char *prefix,
		    enum novad_period p, int64_t t);

/*
 * Parse a name novad made with PREFIX: returns 0 and fills *PERIOD and *T
 * (seconds, minute precision), or -EINVAL for any other name (a user's
 * snapshot, or another prefix).
 */
int novad_snap_parse(const char *name, const char *prefix,
		     enum novad_period *period, int64_t *t);

/* ---- retention ---- */

struct novad_snap {
	uint64_t id;
	char name[NOVAD_SNAP_NAME_LEN * 2];
	int64_t ctime;		/* as the kernel reports it; informational */
};

/*
 * Mark in DEL[i] the snapshots to delete: for each period, the ones
 * novad made (novad_snap_parse with PREFIX) beyond the KEEP[period]
 * newest. Every other snapshot is left alone. Returns how many are marked.
 */
size_t novad_prune_select(const struct novad_snap *snaps, size_t n,
			  const char *prefix,
			  const unsigned int keep[NOVAD_NPERIODS], bool *del);

#endif /* NOVAD_SCHED_H */

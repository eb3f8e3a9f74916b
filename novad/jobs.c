// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad jobs (see jobs.h): snapshot + retention, scrub start.
 *
 * A snapshot job creates first and prunes afterwards, so a failing
 * creation never leaves fewer snapshots than before. The one exception
 * is -ENOSPC (the kernel's snapshot limit, or no room for the record):
 * then retention runs first, keeping one fewer of the period being
 * taken, and if that deleted anything the creation is tried once more.
 * Should that retry fail too, one snapshot fewer than the keep count is
 * left: the price of making room.
 *
 * A scrub job only starts a pass; its result arrives later as a
 * SCRUB_FINISHED notification (fsset.c logs it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "jobs.h"

static void report(const struct novad_job_report *rep,
		   enum novad_job_event ev, const struct novad_fs_ref *fs,
		   const char *name, uint64_t id, const struct nova_err *e)
{
	if (rep && rep->event)
		rep->event(rep->arg, ev, fs, name, id, e);
}

int novad_job_prune(const struct novad_backend *b,
		    const struct novad_fs_ref *fs,
		    const struct novad_policy *pol,
		    const struct novad_job_report *rep)
{
	struct novad_snap *list = NULL;
	struct nova_err e;
	size_t n = 0;
	bool *del;
	int r, deleted = 0;

	nova_err_clear(&e);
	r = b->ops->snapshot_list(b->ctx, fs, &list, &n, &e);
	if (r) {
		report(rep, NOVAD_EV_SNAPSHOT_LIST_FAILED, fs, NULL, 0, &e);
		return r;
	}
	del = calloc(n ? n : 1, sizeof(*del));
	if (!del) {
		free(list);
		nova_err_set(&e, -ENOMEM, "out of memory");
		report(rep, NOVAD_EV_SNAPSHOT_LIST_FAILED, fs, NULL, 0, &e);
		return -ENOMEM;
	}
	novad_prune_select(list, n, pol->prefix, pol->keep, del);
	for (size_t i = 0; i < n; i++) {
		if (!del[i])
			continue;
		nova_err_clear(&e);
		r = b->ops->snapshot_delete(b->ctx, fs, list[i].id, &e);
		if (r) {
			report(rep, NOVAD_EV_SNAPSHOT_PRUNE_FAILED, fs,
			       list[i].name, list[i].id, &e);
			continue;
		}
		deleted++;
		report(rep, NOVAD_EV_SNAPSHOT_PRUNED, fs, list[i].name,
		       list[i].id, NULL);
	}
	free(del);
	free(list);
	return deleted;
}

/*
 * The snapshot limit (or the device) is full. Prune as if the new
 * PERIOD snapshot were already there (keep one fewer of that period):
 * what create-then-prune would leave, once the creation succeeds.
 */
static int make_room(const struct novad_backend *b,
		     const struct novad_fs_ref *fs,
		     const struct novad_policy *pol, enum novad_period period,
		     const struct novad_job_report *rep)
{
	struct novad_policy tight = *pol;

	if (tight.keep[period] > 0)
		tight.keep[period]--;
	return novad_job_prune(b, fs, &tight, rep);
}

int novad_job_snapshot(const struct novad_backend *b,
		       const struct novad_fs_ref *fs,
		       const struct novad_policy *pol, enum novad_period period,
		       int64_t now, const struct novad_job_report *rep)
{
	char name[NOVAD_SNAP_NAME_LEN];
	struct nova_err e;
	uint64_t id = 0;
	int r;

	nova_err_clear(&e);
	r = novad_snap_name(name, sizeof(name), pol->prefix, period, now);
	if (r) {
		nova_err_set(&e, r, "snapshot name too long");
		report(rep, NOVAD_EV_SNAPSHOT_FAILED, fs, NULL, 0, &e);
		return r;
	}
	r = b->ops->snapshot_create(b->ctx, fs, name, &id, &e);
	if (r == -ENOSPC && make_room(b, fs, pol, period, rep) > 0) {
		nova_err_clear(&e);
		r = b->ops->snapshot_create(b->ctx, fs, name, &id, &e);
	}
	if (r == -EEXIST) {
		report(rep, NOVAD_EV_SNAPSHOT_EXISTS, fs, name, 0, NULL);
	} else if (r) {
		report(rep, NOVAD_EV_SNAPSHOT_FAILED, fs, name, 0, &e);
		return r;
	} else {
		report(rep, NOVAD_EV_SNAPSHOT_CREATED, fs, name, id, NULL);
	}
	novad_job_prune(b, fs, pol, rep);
	return 0;
}

int novad_job_scrub(const struct novad_backend *b,
		    const struct novad_fs_ref *fs,
		    const struct novad_policy *pol,
		    const struct novad_job_report *rep)
{
	struct nova_err e;
	int r;

	nova_err_clear(&e);
	r = b->ops->scrub_start(b->ctx, fs, pol->scrub_bandwidth, &e);
	if (r == -EALREADY) {
		report(rep, NOVAD_EV_SCRUB_RUNNING, fs, NULL, 0, NULL);
		return 0;
	}
	if (r) {
		report(rep, NOVAD_EV_SCRUB_FAILED, fs, NULL, 0, &e);
		return r;
	}
	report(rep, NOVAD_EV_SCRUB_STARTED, fs, NULL, 0, NULL);
	return 0;
}

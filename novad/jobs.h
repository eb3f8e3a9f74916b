/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad jobs: one snapshot (with retention pruning) or one scrub start on
 * one file system, through a struct novad_backend. What happened is
 * reported through a callback, so the jobs know nothing of the journal.
 */
#ifndef NOVAD_JOBS_H
#define NOVAD_JOBS_H

#include <stdint.h>

#include "backend.h"
#include "config.h"

enum novad_job_event {
	NOVAD_EV_SNAPSHOT_CREATED,	/* name, id */
	NOVAD_EV_SNAPSHOT_EXISTS,	/* name: already there, nothing to do */
	NOVAD_EV_SNAPSHOT_FAILED,	/* name, err */
	NOVAD_EV_SNAPSHOT_LIST_FAILED,	/* err */
	NOVAD_EV_SNAPSHOT_PRUNED,	/* name, id */
	NOVAD_EV_SNAPSHOT_PRUNE_FAILED,	/* name, id, err */
	NOVAD_EV_SCRUB_STARTED,
	NOVAD_EV_SCRUB_RUNNING,		/* one runs already: none started */
	NOVAD_EV_SCRUB_FAILED,		/* err */
};

struct novad_job_report {
	void (*event)(void *arg, enum novad_job_event ev,
		      const struct novad_fs_ref *fs, const char *name,
		      uint64_t id, const struct nova_err *err);
	void *arg;
};

/*
 * Take the PERIOD snapshot of FS named after NOW, then prune. Returns 0
 * when the snapshot exists afterwards (created, or already there), else
 * the creation error; pruning problems are reported, not returned. On
 * -ENOSPC retention runs first (keeping one fewer of PERIOD, to make
 * room) and the creation is retried once if that deleted something.
 */
int novad_job_snapshot(const struct novad_backend *b,
		       const struct novad_fs_ref *fs,
		       const struct novad_policy *pol, enum novad_period period,
		       int64_t now, const struct novad_job_report *rep);

/*
 * Delete the auto snapshots of FS beyond the keep counts of POL (only
 * names with POL's prefix that novad_snap_parse accepts). Returns how
 * many were deleted, or a negative errno if the list failed.
 */
int novad_job_prune(const struct novad_backend *b,
		    const struct novad_fs_ref *fs,
		    const struct novad_policy *pol,
		    const struct novad_job_report *rep);

/*
 * Start a scrub of FS with POL's bandwidth limit (a paused pass is
 * resumed with it). A pass already running (-EALREADY, e.g. one an
 * operator started) is not an error: nothing is started, 0 is returned.
 */
int novad_job_scrub(const struct novad_backend *b,
		    const struct novad_fs_ref *fs,
		    const struct novad_policy *pol,
		    const struct novad_job_report *rep);

#endif /* NOVAD_JOBS_H */

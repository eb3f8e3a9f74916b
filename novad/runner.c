// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad job runner: which jobs of which file system are due, running
 * them through the backend, recording their last run in the state file,
 * and one CLOCK_REALTIME timer for the earliest next due time. A realtime
 * timer (not a monotonic one) is what calendar jobs need: it fires when
 * the wall clock reaches the time, across suspend and clock changes;
 * main.c also re-plans when the clock is set (TFD_TIMER_CANCEL_ON_SET).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "jobs.h"
#include "log.h"

static const char *const job_names[NOVAD_NJOBS] = {
	"snapshot-hourly", "snapshot-daily", "snapshot-weekly",
	"snapshot-monthly", "snapshot-yearly", "snapshot-frequently", "scrub",
};

const char *novad_job_name(unsigned int job)
{
	return job < NOVAD_NJOBS ? job_names[job] : "?";
}

static bool job_enabled(struct novad *d, const struct novad_fs *f,
			unsigned int job)
{
	if (!f->mountpoint[0])
		return false;	/* policy may depend on it: wait */
	if (f->read_only)
		return false;	/* EROFS for both: skipped (fsset.c says so) */
	if (job == NOVAD_JOB_SCRUB)
		return f->pol.scrub_interval > 0 &&
		       !d->backend.ops->scrub_unavailable(d->backend.ctx);
	return f->pol.snapshots && f->pol.keep[job] > 0 &&
	       !d->backend.ops->snapshot_unavailable(d->backend.ctx);
}

static int64_t job_due(struct novad *d, const struct novad_fs *f,
		       unsigned int job, int64_t now)
{
	int64_t last = 0, due;
	bool have = novad_state_get(&d->state, f->id.uuid, job_names[job], &last);

	if (job == NOVAD_JOB_SCRUB)
		due = novad_due_interval(f->pol.scrub_interval, have, last, now);
	else
		due = novad_due_calendar((enum novad_period)job,
					 f->pol.frequent_period, have, last, now);
	if (f->retry_at[job] > due)
		due = f->retry_at[job];
	return due;
}

/* What an operator should know about a failed snapshot request. */
static const char *snapshot_hint(int err)
{
	switch (err) {
	case -ENOSPC:
		return " (the file system has as many live snapshots as it can hold, or no room for the record: lower the keep counts or delete snapshots)";
	case -EROFS:
		return " (mounted read-only, or a snapshot mount)";
	case -ENODEV:
		return " (the file system is no longer mounted)";
	case -EBUSY:
		/* a delete also while someone browses the snapshot */
		return " (the file system is frozen, or the snapshot is being browsed under .snapshots; retrying later)";
	default:
		return "";
	}
}

/* A file system that went away is not novad's failure: a warning. */
static int failure_prio(const struct nova_err *err)
{
	return err && err->err == -ENODEV ? LOG_WARNING : LOG_ERR;
}

static void on_job_event(void *arg, enum novad_job_event ev,
			 const struct novad_fs_ref *fs, const char *name,
			 uint64_t id, const struct nova_err *err)
{
	char fid[48], fname[NOVAD_SNAP_NAME_LEN * 2 + 32], ferr[32];
	/* NOVA_SNAPSHOT_ID=, NOVA_SNAPSHOT_NAME=, ERRNO= (a positive errno) */
	const char *const all[] = { fid, fname, ferr, NULL };
	const char *const no_err[] = { fid, fname, NULL };
	const char *msg = err ? err->msg : "";
	const char *hint = err ? snapshot_hint(err->err) : "";

	(void)arg;
	snprintf(fid, sizeof(fid), "NOVA_SNAPSHOT_ID=%" PRIu64, id);
	snprintf(fname, sizeof(fname), "NOVA_SNAPSHOT_NAME=%s", name ? name : "");
	snprintf(ferr, sizeof(ferr), "ERRNO=%d", err ? -err->err : 0);
	switch (ev) {
	case NOVAD_EV_SNAPSHOT_CREATED:
		novad_log_fields(LOG_INFO, NOVAD_MID_SNAPSHOT_CREATED, fs, no_err,
				 "created snapshot %s (id %" PRIu64 ") of %s",
				 name, id, fs->mountpoint);
		break;
	case NOVAD_EV_SNAPSHOT_EXISTS:
		novad_log_fields(LOG_INFO, NULL, fs, no_err + 1,
				 "snapshot %s of %s already exists", name,
				 fs->mountpoint);
		break;
	case NOVAD_EV_SNAPSHOT_FAILED:
		novad_log_fields(failure_prio(err), NULL, fs, all + 1,
				 "cannot create snapshot %s of %s: %s%s", name,
				 fs->mountpoint, msg, hint);
		break;
	case NOVAD_EV_SNAPSHOT_LIST_FAILED:
		novad_log_fields(failure_prio(err), NULL, fs, all + 2,
				 "cannot list snapshots of %s to prune them: %s%s",
				 fs->mountpoint, msg, hint);
		break;
	case NOVAD_EV_SNAPSHOT_PRUNED:
		novad_log_fields(LOG_INFO, NOVAD_MID_SNAPSHOT_DELETED, fs, no_err,
				 "pruned snapshot %s (id %" PRIu64 ") of %s",
				 name, id, fs->mountpoint);
		break;
	case NOVAD_EV_SNAPSHOT_PRUNE_FAILED:
		novad_log_fields(failure_prio(err), NULL, fs, all,
				 "cannot prune snapshot %s (id %" PRIu64 ") of %s: %s%s",
				 name, id, fs->mountpoint, msg, hint);
		break;
	case NOVAD_EV_SCRUB_STARTED:
		novad_log_fields(LOG_INFO, NOVAD_MID_SCRUB_STARTED, fs,
				 (const char *const[]){ "NOVA_JOB=scrub", NULL },
				 "started scrub of %s", fs->mountpoint);
		break;
	case NOVAD_EV_SCRUB_RUNNING:
		novad_log_fields(LOG_INFO, NULL, fs,
				 (const char *const[]){ "NOVA_JOB=scrub", NULL },
				 "a scrub of %s is already running; not starting another",
				 fs->mountpoint);
		break;
	case NOVAD_EV_SCRUB_FAILED:
		novad_log_fields(failure_prio(err), NULL, fs,
				 (const char *const[]){ "NOVA_JOB=scrub", ferr, NULL },
				 "cannot start scrub of %s: %s", fs->mountpoint,
				 msg);
		break;
	}
}

bool novad_fs_has_jobs(struct novad *d, const struct novad_fs *f)
{
	(void)d;
	return f->pol.snapshots || f->pol.scrub_interval > 0;
}

/*
 * A new policy (start, reload, a file system appearing or moving) takes
 * effect at once: retention runs on the next pass even when no snapshot
 * is due, so lowering a keep count prunes without waiting for the next
 * period. Not while the mount point is unknown (the policy may still
 * change with it), nor when novad does not manage snapshots there.
 */
static bool prune_now(struct novad *d, struct novad_fs *f, bool pruned)
{
	/* Read-only: keep it pending until the file system is writable. */
	if (!f->prune_pending || !f->mountpoint[0] || f->read_only)
		return false;
	f->prune_pending = false;
	return !pruned && f->pol.snapshots &&
	       !d->backend.ops->snapshot_unavailable(d->backend.ctx);
}

void novad_jobs_run_due(struct novad *d, int64_t now)
{
	const struct novad_job_report rep = { .event = on_job_event, .arg = d };
	bool dirty = false;
	int r;

	/* A remount since the last look: skip rather than fail with EROFS. */
	novad_fs_refresh_read_only(d);
	for (struct novad_fs *f = d->fs; f; f = f->next) {
		struct novad_fs_ref ref;
		bool pruned = false;

		novad_fs_ref(f, &ref);
		for (unsigned int j = 0; j < NOVAD_NJOBS; j++) {
			if (!job_enabled(d, f, j) || job_due(d, f, j, now) > now)
				continue;
			if (j == NOVAD_JOB_SCRUB) {
				r = novad_job_scrub(&d->backend, &ref, &f->pol, &rep);
			} else {
				r = novad_job_snapshot(&d->backend, &ref, &f->pol,
						       (enum novad_period)j, now,
						       &rep);
				pruned = true;
			}
			if (r) {
				f->retry_at[j] = now + NOVAD_RETRY_S;
				continue;
			}
			f->retry_at[j] = 0;
			if (!novad_state_set(&d->state, f->id.uuid, job_names[j], now))
				dirty = true;
		}
		if (prune_now(d, f, pruned))
			novad_job_prune(&d->backend, &ref, &f->pol, &rep);
	}
	if (dirty) {
		r = novad_state_save(d->state_path, &d->state);
		if (r)
			novad_log(LOG_ERR, NULL,
				  "cannot save job state to %s: %s (a restart may repeat jobs)",
				  d->state_path, strerror(-r));
	}
}

void novad_jobs_schedule(struct novad *d, int64_t now)
{
	int64_t next = INT64_MAX;

	for (struct novad_fs *f = d->fs; f; f = f->next)
		for (unsigned int j = 0; j < NOVAD_NJOBS; j++)
			if (job_enabled(d, f, j)) {
				int64_t due = job_due(d, f, j, now);

				if (due < next)
					next = due;
			}
	if (next == INT64_MAX) {
		sd_event_source_set_enabled(d->job_timer, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(d->job_timer, (uint64_t)next * 1000000ull);
	sd_event_source_set_enabled(d->job_timer, SD_EVENT_ONESHOT);
}

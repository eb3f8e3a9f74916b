/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad: the daemon's state, shared by main.c (event loop, signals,
 * notify) and fsset.c (the followed file systems and their jobs).
 */
#ifndef NOVAD_DAEMON_H
#define NOVAD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "config.h"
#include "genl.h"
#include "hook.h"
#include "http.h"
#include "state.h"

/* Jobs per file system: one per snapshot period, then the scrub. */
#define NOVAD_JOB_SCRUB		NOVAD_NPERIODS
#define NOVAD_NJOBS		(NOVAD_NPERIODS + 1)
/* After a failed job, wait this long before trying again. */
#define NOVAD_RETRY_S		300

struct novad_fs {
	struct novad_fs *next;
	struct nova_fs_id id;
	char mountpoint[NOVAD_PATH_LEN];	/* "" : not (yet) visible */
	struct novad_policy pol;
	int64_t retry_at[NOVAD_NJOBS];		/* 0: no pending retry */
	bool warned_unavailable;
	/*
	 * Mounted read-only (also every snapshot mount): no snapshot or
	 * scrub jobs, no pruning (prune_pending waits), said once.
	 */
	bool read_only;
	bool said_read_only;			/* "skipped" logged */
	/* Policy (re)applied: prune with it on the next pass (runner.c). */
	bool prune_pending;
	bool seen;				/* resync marker */
	/* CORRUPTION notifications, with those held back (metrics) */
	uint64_t corruption_events;
};

struct novad {
	sd_event *ev;
	const char *config_path;
	struct novad_config cfg;
	struct novad_genl g;
	struct novad_backend backend;
	struct novad_state state;
	char state_path[NOVAD_PATH_LEN];
	struct novad_fs *fs;
	unsigned int nfs;
	char *metrics;				/* last formatted metrics */
	char stats_error[NOVAD_PATH_LEN + 512];			/* last collection problem */
	char export_error[NOVAD_PATH_LEN + 512];			/* last textfile problem */
	struct novad_http *http;
	struct novad_hooks hooks;		/* corruption_hook children */
	sd_event_source *ev_src, *stats_timer, *job_timer, *mnt_src, *clock_src;
	int mnt_fd, clock_fd;
};

/* fsset.c */
struct novad_fs *novad_fs_find(struct novad *d, uint64_t dev);
void novad_fs_resync(struct novad *d);
/* Re-read mount points; true if one changed. */
bool novad_fs_refresh_mounts(struct novad *d);
void novad_fs_apply_config(struct novad *d);
/*
 * The super block's read-only flag as the kernel reports it: set it
 * (logging a change once), or ask the kernel for every file system.
 * Both return true if a flag changed.
 */
bool novad_fs_set_read_only(struct novad *d, struct novad_fs *f, bool ro);
bool novad_fs_refresh_read_only(struct novad *d);
void novad_fs_free_all(struct novad *d);
void novad_fs_ref(const struct novad_fs *fs, struct novad_fs_ref *ref);
int novad_fs_event(const struct nlmsghdr *nlh, void *arg);
/* Does F's policy configure snapshot or scrub jobs (runner.c)? */
bool novad_fs_has_jobs(struct novad *d, const struct novad_fs *f);
/* Jobs: run what is due, re-arm the CLOCK_REALTIME timer. */
void novad_jobs_run_due(struct novad *d, int64_t now);
void novad_jobs_schedule(struct novad *d, int64_t now);
const char *novad_job_name(unsigned int job);
/* Statistics: collect, export; true if a read-only flag changed. */
bool novad_stats_collect(struct novad *d);
/* STATUS= text. */
void novad_status(struct novad *d, const char *prefix);

#endif /* NOVAD_DAEMON_H */

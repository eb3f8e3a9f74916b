// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad statistics: a NOVA_CMD_STATS_GET dump of every mounted file
 * system, formatted once (metrics.c) and handed to the exports: the
 * textfile (atomic rename) and the HTTP endpoint (serves the last text).
 * Problems are logged when they start and when they end, not on every
 * collection. The dump also carries each super block's read-only flag,
 * which is how novad notices a remount (fsset.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "log.h"
#include "metrics.h"
#include "textfile.h"

static void set_problem(char *slot, size_t len, const char *now)
{
	if (!strcmp(slot, now))
		return;
	if (now[0])
		novad_log(LOG_WARNING, NULL, "%s", now);
	else if (slot[0])
		novad_log(LOG_INFO, NULL, "statistics export recovered");
	snprintf(slot, len, "%s", now);
}

bool novad_stats_collect(struct novad *d)
{
	bool ro_changed = false;
	struct nova_stats *list = NULL;
	struct novad_metrics_fs *mfs = NULL;
	char problem[NOVAD_PATH_LEN + 512] = "", *text = NULL;
	struct nova_err e;
	size_t n = 0;
	int r;

	if (!d->g.have_stats) {
		set_problem(d->stats_error, sizeof(d->stats_error),
			    "the kernel's nova family has no STATS_GET command: no statistics");
		return novad_fs_refresh_read_only(d);
	}
	r = nova_req_stats_dump(d->g.req, &list, &n, &e);
	if (r) {
		snprintf(problem, sizeof(problem), "cannot collect statistics: %s", e.msg);
		set_problem(d->stats_error, sizeof(d->stats_error), problem);
		return false;
	}
	set_problem(d->stats_error, sizeof(d->stats_error), "");
	if (n) {
		mfs = calloc(n, sizeof(*mfs));
		if (!mfs) {
			free(list);
			return false;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct novad_fs *f = novad_fs_find(d, list[i].id.dev);

		mfs[i].st = &list[i];
		mfs[i].mountpoint = f ? f->mountpoint : NULL;
		mfs[i].corruption_events = f ? f->corruption_events : 0;
		if (f && novad_fs_set_read_only(d, f, list[i].read_only))
			ro_changed = true;
	}
	r = novad_metrics_format(mfs, n, (int64_t)time(NULL), &text);
	free(mfs);
	free(list);
	if (r)
		return ro_changed;
	free(d->metrics);
	d->metrics = text;
	if (!d->cfg.textfile[0]) {
		set_problem(d->export_error, sizeof(d->export_error), "");
		return ro_changed;
	}
	r = novad_textfile_write(d->cfg.textfile, text);
	if (r)
		snprintf(problem, sizeof(problem), "cannot write %s: %s%s",
			 d->cfg.textfile, strerror(-r),
			 r == -EROFS || r == -EACCES ?
			 " (is its directory in the unit's ReadWritePaths=? see novad(8))" : "");
	set_problem(d->export_error, sizeof(d->export_error), problem);
	return ro_changed;
}

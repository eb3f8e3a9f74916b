/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad persistent state: when each job last ran on each file system, so
 * that a restart (or a boot after downtime) runs a missed job once rather
 * than never or many times.
 *
 * File format (STATE_DIRECTORY/state, default /var/lib/novad/state), one
 * record per line: "UUID JOB SECONDS", e.g.
 *   0f3c5a11-2233-4455-6677-8899aabbccdd snapshot-hourly 1796248800
 * Lines starting with '#' are comments. The file is rewritten whole
 * (temporary file, fsync, rename), so a crash leaves the old or the new.
 */
#ifndef NOVAD_STATE_H
#define NOVAD_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NOVAD_JOB_LEN	32

struct novad_state_rec {
	uint8_t uuid[16];
	char job[NOVAD_JOB_LEN];
	int64_t last;
};

struct novad_state {
	struct novad_state_rec *recs;
	size_t n;
};

void novad_state_free(struct novad_state *st);
/*
 * Load PATH (a missing file is an empty state). Malformed lines are
 * skipped and counted in *BAD (which may be NULL). Returns 0 or -errno.
 */
int novad_state_load(const char *path, struct novad_state *st, size_t *bad);
int novad_state_save(const char *path, const struct novad_state *st);
bool novad_state_get(const struct novad_state *st, const uint8_t uuid[16],
		     const char *job, int64_t *last);
int novad_state_set(struct novad_state *st, const uint8_t uuid[16],
		    const char *job, int64_t last);

#endif /* NOVAD_STATE_H */

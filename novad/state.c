// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad persistent state (see state.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libnova.h"
#include "state.h"
#include "textfile.h"

void novad_state_free(struct novad_state *st)
{
	free(st->recs);
	st->recs = NULL;
	st->n = 0;
}

int novad_state_load(const char *path, struct novad_state *st, size_t *bad)
{
	char *line = NULL, uuid[64], job[64];
	size_t cap = 0, nbad = 0;
	long long last;
	uint8_t u[16];
	FILE *f;
	int r = 0;

	st->recs = NULL;
	st->n = 0;
	if (bad)
		*bad = 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (getline(&line, &cap, f) > 0) {
		char extra;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %63s %lld %c", uuid, job, &last, &extra) != 3 ||
		    nova_uuid_parse(uuid, u) || strlen(job) >= NOVAD_JOB_LEN) {
			nbad++;
			continue;
		}
		r = novad_state_set(st, u, job, (int64_t)last);
		if (r)
			break;
	}
	free(line);
	fclose(f);
	if (bad)
		*bad = nbad;
	return r;
}

int novad_state_save(const char *path, const struct novad_state *st)
{
	char uuid[37], *text = NULL;
	size_t len = 0;
	FILE *f;
	int r = 0;

	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	fprintf(f, "# novad state: UUID JOB LAST-RUN (seconds since the epoch, UTC)\n");
	for (size_t i = 0; i < st->n; i++) {
		nova_uuid_format(st->recs[i].uuid, uuid);
		fprintf(f, "%s %s %lld\n", uuid, st->recs[i].job,
			(long long)st->recs[i].last);
	}
	if (fclose(f))
		r = -errno;
	if (!r)
		r = novad_file_replace(path, text, true);
	free(text);
	return r;
}

static struct novad_state_rec *find(const struct novad_state *st,
				    const uint8_t uuid[16], const char *job)
{
	for (size_t i = 0; i < st->n; i++)
		if (!memcmp(st->recs[i].uuid, uuid, 16) &&
		    !strcmp(st->recs[i].job, job))
			return &st->recs[i];
	return NULL;
}

bool novad_state_get(const struct novad_state *st, const uint8_t uuid[16],
		     const char *job, int64_t *last)
{
	const struct novad_state_rec *r = find(st, uuid, job);

	if (r)
		*last = r->last;
	return r != NULL;
}

int novad_state_set(struct novad_state *st, const uint8_t uuid[16],
		    const char *job, int64_t last)
{
	struct novad_state_rec *r = find(st, uuid, job), *recs;

	if (strlen(job) >= NOVAD_JOB_LEN)
		return -EINVAL;
	if (r) {
		r->last = last;
		return 0;
	}
	recs = realloc(st->recs, (st->n + 1) * sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	st->recs = recs;
	r = &recs[st->n++];
	memset(r, 0, sizeof(*r));
	memcpy(r->uuid, uuid, 16);
	snprintf(r->job, sizeof(r->job), "%s", job);
	r->last = last;
	return 0;
}

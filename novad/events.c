// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad: journal fields, priorities and hook environment of the scrub
 * and corruption notifications (see events.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "events.h"

void novad_fields_add(struct novad_fields *f, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	if (f->n >= NOVAD_FIELDS_MAX)
		return;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	f->v[f->n++] = s;
	f->v[f->n] = NULL;
}

void novad_fields_free(struct novad_fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	f->n = 0;
	f->v[0] = NULL;
}

const char *novad_fields_get(const struct novad_fields *f, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < f->n; i++)
		if (!strncmp(f->v[i], name, len) && f->v[i][len] == '=')
			return f->v[i] + len + 1;
	return NULL;
}

int novad_scrub_result_prio(const struct nova_scrub_info *si)
{
	if (si->unrecoverable || si->err)
		return LOG_ERR;
	if (si->errors)
		return LOG_WARNING;
	return LOG_INFO;
}

static bool have_duration(const struct nova_scrub_info *si)
{
	return si->start_ns && si->finish_ns >= si->start_ns;
}

void novad_scrub_result_fields(const struct nova_scrub_info *si,
			       struct novad_fields *f)
{
	novad_fields_add(f, "NOVA_SCRUB_STATE=%s",
			 nova_scrub_state_name(si->state));
	novad_fields_add(f, "NOVA_SCRUB_BYTES_SCANNED=%" PRIu64, si->bytes_scanned);
	novad_fields_add(f, "NOVA_SCRUB_BYTES_TOTAL=%" PRIu64, si->bytes_total);
	novad_fields_add(f, "NOVA_SCRUB_INODES=%" PRIu64, si->inodes_scanned);
	novad_fields_add(f, "NOVA_SCRUB_ERRORS=%" PRIu64, si->errors);
	novad_fields_add(f, "NOVA_SCRUB_REPAIRED=%" PRIu64, si->repaired);
	novad_fields_add(f, "NOVA_SCRUB_UNRECOVERABLE=%" PRIu64, si->unrecoverable);
	if (have_duration(si))
		novad_fields_add(f, "NOVA_SCRUB_DURATION_SEC=%.3f",
				 (double)(si->finish_ns - si->start_ns) / 1e9);
	if (si->err)
		novad_fields_add(f, "NOVA_SCRUB_ERRNO=%u", si->err);
}

void novad_scrub_result_text(const struct nova_scrub_info *si, char *buf,
			     size_t len)
{
	char dur[48] = "";
	int n;

	if (have_duration(si))
		snprintf(dur, sizeof(dur), " in %.1f s",
			 (double)(si->finish_ns - si->start_ns) / 1e9);
	n = snprintf(buf, len, "%.1f MiB scanned%s", (double)si->bytes_scanned / 1048576.0,
		     dur);
	if (n < 0 || (size_t)n >= len)
		return;
	if (!si->errors)
		snprintf(buf + n, len - (size_t)n, ": clean");
	else
		snprintf(buf + n, len - (size_t)n,
			 ": %" PRIu64 " bad object%s found, %" PRIu64
			 " repaired, %" PRIu64 " unrecoverable",
			 si->errors, si->errors == 1 ? "" : "s", si->repaired,
			 si->unrecoverable);
	n = (int)strlen(buf);
	if (si->err && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; the pass ended early: %s",
			 strerror((int)si->err));
}

int novad_corruption_prio(const struct nova_corruption *c)
{
	return c->repaired ? LOG_WARNING : LOG_ERR;
}

void novad_corruption_fields(const struct nova_corruption *c,
			     struct novad_fields *f)
{
	novad_fields_add(f, "NOVA_INODE=%" PRIu64, c->ino);
	novad_fields_add(f, "NOVA_KIND=%s", nova_corruption_kind_name(c->kind));
	novad_fields_add(f, "NOVA_OFFSET=%" PRIu64, c->offset);
	novad_fields_add(f, "NOVA_REPAIRED=%s", c->repaired ? "yes" : "no");
}

void novad_hook_env(const struct novad_fs_ref *fs,
		    const struct nova_corruption *c, struct novad_fields *env)
{
	char uuid[37];

	nova_uuid_format(fs->uuid, uuid);
	novad_fields_add(env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	novad_fields_add(env, "NOVA_EVENT=corruption");
	novad_fields_add(env, "NOVA_DEVICE=/dev/%s", fs->bdev ? fs->bdev : "");
	novad_fields_add(env, "NOVA_MOUNTPOINT=%s",
			 fs->mountpoint ? fs->mountpoint : "");
	novad_fields_add(env, "NOVA_UUID=%s", uuid);
	novad_corruption_fields(c, env);
}

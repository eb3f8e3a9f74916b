/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad: what the scrub and corruption notifications become in the
 * journal and in a hook's environment. Pure functions of the decoded
 * notification (no journal, no event loop), so the unit tests check the
 * fields and priorities the daemon uses.
 */
#ifndef NOVAD_EVENTS_H
#define NOVAD_EVENTS_H

#include <stddef.h>
#include <syslog.h>

#include "backend.h"

#define NOVAD_FIELDS_MAX	24

/* A NULL-terminated list of malloc'ed "NAME=value" strings. */
struct novad_fields {
	char *v[NOVAD_FIELDS_MAX + 1];
	size_t n;
};

/* Append one; silently dropped when full or out of memory. */
void novad_fields_add(struct novad_fields *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void novad_fields_free(struct novad_fields *f);
/* The value of NAME, or NULL. */
const char *novad_fields_get(const struct novad_fields *f, const char *name);

/*
 * A finished scrub pass: LOG_ERR when something was unrecoverable or the
 * pass ended early with an error, LOG_WARNING when everything found was
 * repaired, LOG_INFO when clean.
 */
int novad_scrub_result_prio(const struct nova_scrub_info *si);
/*
 * NOVA_SCRUB_STATE=, _BYTES_SCANNED=, _BYTES_TOTAL=, _INODES=, _ERRORS=,
 * _REPAIRED=, _UNRECOVERABLE=, _DURATION_SEC= (when both times are
 * known), _ERRNO= (when the pass ended early).
 */
void novad_scrub_result_fields(const struct nova_scrub_info *si,
			       struct novad_fields *f);
/* "12.0 MiB scanned in 3.2 s: clean" and the like. */
void novad_scrub_result_text(const struct nova_scrub_info *si, char *buf,
			     size_t len);

/* LOG_WARNING if repaired, LOG_ERR if not. */
int novad_corruption_prio(const struct nova_corruption *c);
/* NOVA_INODE=, NOVA_KIND=, NOVA_OFFSET=, NOVA_REPAIRED=yes|no. */
void novad_corruption_fields(const struct nova_corruption *c,
			     struct novad_fields *f);

/*
 * The whole environment of the corruption hook: PATH, NOVA_EVENT=corruption,
 * NOVA_DEVICE=, NOVA_MOUNTPOINT= (empty if unknown), NOVA_UUID=,
 * and the corruption fields above.
 */
void novad_hook_env(const struct novad_fs_ref *fs,
		    const struct nova_corruption *c, struct novad_fields *env);

#endif /* NOVAD_EVENTS_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad: the set of NOVA file systems it follows. Built from
 * NOVA_CMD_FS_LIST at start (and again whenever notifications were lost),
 * kept current by FS_MOUNTED / FS_UNMOUNTED notifications, with mount
 * points from /proc/self/mountinfo (re-read when it changes: the
 * notification comes before the mount is attached to its mount point).
 * The read-only flag is the super block's, as the kernel reports it
 * (FS_LIST, STATS_GET; set on every snapshot mount), not the mount's:
 * novad's sandbox (ProtectSystem=strict) sees every mount read-only, and
 * a remount in another mount namespace changes nothing in novad's
 * mountinfo. It is re-read at every statistics collection and before
 * every job pass (runner.c).
 *
 * The scrub notifications (SCRUB_FINISHED, CORRUPTION) are decoded here
 * with nova_decode_scrub_event(), logged with the fields of events.c,
 * and a corruption starts the configured hook (hook.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "events.h"
#include "log.h"

struct novad_fs *novad_fs_find(struct novad *d, uint64_t dev)
{
	for (struct novad_fs *f = d->fs; f; f = f->next)
		if (f->id.dev == dev)
			return f;
	return NULL;
}

void novad_fs_ref(const struct novad_fs *fs, struct novad_fs_ref *ref)
{
	ref->dev = fs->id.dev;
	memcpy(ref->uuid, fs->id.uuid, sizeof(ref->uuid));
	ref->bdev = fs->id.bdev;
	ref->mountpoint = fs->mountpoint[0] ? fs->mountpoint : NULL;
}

static void log_fs(int prio, const char *msgid, const struct novad_fs *fs,
		   const char *what)
{
	struct novad_fs_ref ref;
	char uuid[37];

	novad_fs_ref(fs, &ref);
	nova_uuid_format(fs->id.uuid, uuid);
	novad_log_fields(prio, msgid, &ref, NULL,
			 "%s /dev/%s (%u:%u, uuid %s, label \"%s\"%s%s)", what,
			 fs->id.bdev, nova_dev_major(fs->id.dev),
			 nova_dev_minor(fs->id.dev), uuid, fs->id.label,
			 fs->mountpoint[0] ? ", on " : "", fs->mountpoint);
}

/* Tell once per file system that its configured jobs cannot run. */
static void warn_unavailable(struct novad *d, struct novad_fs *f)
{
	const char *why_snap = d->backend.ops->snapshot_unavailable(d->backend.ctx);
	const char *why_scrub = d->backend.ops->scrub_unavailable(d->backend.ctx);
	struct novad_fs_ref ref;
	bool snaps = f->pol.snapshots, scrub = f->pol.scrub_interval > 0;

	if (f->warned_unavailable || !f->mountpoint[0])
		return;
	novad_fs_ref(f, &ref);
	if (snaps && why_snap)
		novad_log_fields(LOG_WARNING, NOVAD_MID_JOB_UNAVAILABLE, &ref,
				 (const char *const[]){ "NOVA_JOB=snapshot", NULL },
				 "snapshot jobs configured for %s are unavailable: %s",
				 f->mountpoint, why_snap);
	if (scrub && why_scrub)
		novad_log_fields(LOG_WARNING, NOVAD_MID_JOB_UNAVAILABLE, &ref,
				 (const char *const[]){ "NOVA_JOB=scrub", NULL },
				 "scrub jobs configured for %s are unavailable: %s",
				 f->mountpoint, why_scrub);
	f->warned_unavailable = true;
}

/*
 * Say once that a read-only file system's jobs are skipped (rather than
 * failing with EROFS at every retry), and once that they resume.
 */
static void note_read_only(struct novad *d, struct novad_fs *f)
{
	struct novad_fs_ref ref;

	novad_fs_ref(f, &ref);
	if (f->read_only && !f->said_read_only && f->mountpoint[0] &&
	    novad_fs_has_jobs(d, f)) {
		novad_log_fields(LOG_INFO, NOVAD_MID_FS_SKIPPED, &ref,
				 (const char *const[]){ "NOVA_READ_ONLY=1", NULL },
				 "%s is mounted read-only (or is a snapshot mount): no snapshots, pruning or scrubs there until it is writable",
				 f->mountpoint);
		f->said_read_only = true;
	} else if (!f->read_only && f->said_read_only) {
		novad_log_fields(LOG_INFO, NOVAD_MID_FS_SKIPPED, &ref,
				 (const char *const[]){ "NOVA_READ_ONLY=0", NULL },
				 "%s is writable again: its jobs resume",
				 f->mountpoint);
		f->said_read_only = false;
	}
}

static void apply_policy(struct novad *d, struct novad_fs *f)
{
	novad_config_policy(&d->cfg, f->mountpoint[0] ? f->mountpoint : NULL,
			    f->id.uuid, &f->pol);
	f->prune_pending = true;
	warn_unavailable(d, f);
	note_read_only(d, f);
}

bool novad_fs_set_read_only(struct novad *d, struct novad_fs *f, bool ro)
{
	if (f->read_only == ro)
		return false;
	f->read_only = ro;
	note_read_only(d, f);
	return true;
}

bool novad_fs_refresh_read_only(struct novad *d)
{
	struct nova_fs_info *list = NULL;
	struct nova_err e;
	bool changed = false;
	size_t n = 0;

	if (!d->fs || nova_req_fs_list(d->g.req, &list, &n, &e))
		return false;	/* keep what we know; resync reports errors */
	for (size_t i = 0; i < n; i++) {
		struct novad_fs *f = novad_fs_find(d, list[i].id.dev);

		if (f && novad_fs_set_read_only(d, f, list[i].read_only))
			changed = true;
	}
	free(list);
	return changed;
}

void novad_fs_apply_config(struct novad *d)
{
	for (struct novad_fs *f = d->fs; f; f = f->next) {
		f->warned_unavailable = false;
		memset(f->retry_at, 0, sizeof(f->retry_at));
		apply_policy(d, f);
	}
}

bool novad_fs_refresh_mounts(struct novad *d)
{
	bool changed = false;

	for (struct novad_fs *f = d->fs; f; f = f->next) {
		char *paths[1] = { NULL };
		int n = nova_mountpoints(NULL, f->id.dev, paths, 1);
		const char *now = n > 0 ? paths[0] : "";

		if (strcmp(now, f->mountpoint)) {
			bool first = !f->mountpoint[0];

			snprintf(f->mountpoint, sizeof(f->mountpoint), "%s", now);
			changed = true;
			if (now[0])
				log_fs(LOG_INFO, NULL, f,
				       first ? "mount point of" : "mount point changed for");
			apply_policy(d, f);
		}
		free(paths[0]);
	}
	return changed;
}

static struct novad_fs *add_fs(struct novad *d, const struct nova_fs_id *id)
{
	struct novad_fs *f = novad_fs_find(d, id->dev);

	if (f) {
		f->id = *id;
		return f;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->id = *id;
	f->next = d->fs;
	d->fs = f;
	d->nfs++;
	apply_policy(d, f);
	return f;
}

static void remove_fs(struct novad *d, uint64_t dev)
{
	for (struct novad_fs **pp = &d->fs; *pp; pp = &(*pp)->next) {
		struct novad_fs *f = *pp;

		if (f->id.dev != dev)
			continue;
		*pp = f->next;
		d->nfs--;
		free(f);
		return;
	}
}

void novad_fs_free_all(struct novad *d)
{
	while (d->fs)
		remove_fs(d, d->fs->id.dev);
}

void novad_fs_resync(struct novad *d)
{
	struct nova_fs_info *list = NULL;
	struct nova_err e;
	size_t n = 0;
	int r;

	r = nova_req_fs_list(d->g.req, &list, &n, &e);
	if (r) {
		novad_log(LOG_ERR, NULL, "cannot list NOVA file systems: %s", e.msg);
		return;
	}
	for (struct novad_fs *f = d->fs; f; f = f->next)
		f->seen = false;
	for (size_t i = 0; i < n; i++) {
		struct novad_fs *f = novad_fs_find(d, list[i].id.dev);
		bool is_new = !f;

		f = add_fs(d, &list[i].id);
		if (!f)
			continue;
		f->seen = true;
		if (is_new) {
			novad_fs_refresh_mounts(d);
			log_fs(LOG_INFO, NULL, f, "following");
		}
		novad_fs_set_read_only(d, f, list[i].read_only);
	}
	for (struct novad_fs *f = d->fs, *next; f; f = next) {
		next = f->next;
		if (!f->seen) {
			log_fs(LOG_INFO, NOVAD_MID_FS_UNMOUNTED, f, "no longer mounted:");
			remove_fs(d, f->id.dev);
		}
	}
	free(list);
}

/* FS's reference for the journal, a followed one or just the event's id. */
static void event_ref(struct novad *d, const struct nova_fs_id *id,
		      struct novad_fs *tmp, struct novad_fs_ref *ref)
{
	struct novad_fs *f = novad_fs_find(d, id->dev);

	if (!f) {
		memset(tmp, 0, sizeof(*tmp));
		tmp->id = *id;
		f = tmp;
	}
	novad_fs_ref(f, ref);
}

static void scrub_finished(struct novad *d, const struct nova_scrub_event *ev)
{
	struct novad_fields fields = { .n = 0 };
	struct novad_fs_ref ref;
	struct novad_fs tmp;
	char text[512];

	event_ref(d, &ev->id, &tmp, &ref);
	novad_scrub_result_fields(&ev->scrub, &fields);
	novad_fields_add(&fields, "NOVA_JOB=scrub");
	novad_scrub_result_text(&ev->scrub, text, sizeof(text));
	novad_log_fields(novad_scrub_result_prio(&ev->scrub),
			 NOVAD_MID_SCRUB_FINISHED, &ref,
			 (const char *const *)fields.v,
			 "scrub of %s finished: %s",
			 ref.mountpoint ? ref.mountpoint : ev->id.bdev, text);
	novad_fields_free(&fields);
}

static void corruption(struct novad *d, const struct nova_scrub_event *ev)
{
	const struct nova_corruption *c = &ev->corruption;
	struct novad_fields fields = { .n = 0 };
	struct novad_fs_ref ref;
	struct novad_fs tmp, *f;
	char what[128];

	f = novad_fs_find(d, ev->id.dev);
	if (f)
		f->corruption_events += 1 + ev->suppressed;
	event_ref(d, &ev->id, &tmp, &ref);
	novad_corruption_fields(c, &fields);
	snprintf(what, sizeof(what), "bad %s of inode %" PRIu64 " at offset %" PRIu64,
		 nova_corruption_kind_name(c->kind), c->ino, c->offset);
	novad_log_fields(novad_corruption_prio(c), NOVAD_MID_CORRUPTION, &ref,
			 (const char *const *)fields.v, "corruption %s on %s: %s",
			 c->repaired ? "repaired" : "found (not repaired)",
			 ref.mountpoint ? ref.mountpoint : ev->id.bdev, what);
	novad_fields_free(&fields);
	if (!d->cfg.corruption_hook[0])
		return;
	novad_hook_env(&ref, c, &fields);
	novad_hook_run(&d->hooks, d->cfg.corruption_hook, d->cfg.hook_timeout,
		       fields.v, &ref, what);
	novad_fields_free(&fields);
}

/* A scrub notification? 1 if handled, 0 if it is another kind. */
static int scrub_event(struct novad *d, const struct nlmsghdr *nlh)
{
	struct nova_scrub_event *ev;
	int r;

	ev = malloc(sizeof(*ev));	/* holds 32 findings: not on the stack */
	if (!ev) {
		novad_log(LOG_ERR, NULL, "out of memory reading a nova notification");
		return 1;
	}
	r = nova_decode_scrub_event(nlh, ev);
	if (r == -ENOENT) {
		free(ev);
		return 0;
	}
	if (r)
		novad_log(LOG_WARNING, NULL, "malformed nova scrub notification ignored");
	else if (ev->cmd == NOVA_CMD_SCRUB_FINISHED)
		scrub_finished(d, ev);
	else
		corruption(d, ev);
	free(ev);
	return 1;
}

int novad_fs_event(const struct nlmsghdr *nlh, void *arg)
{
	struct novad *d = arg;
	struct nova_event ev;
	struct novad_fs *f;
	int r;

	if (scrub_event(d, nlh))
		return 0;
	r = nova_decode_event(nlh, &ev);
	if (r == -ENOENT)
		return 0;	/* a notification newer than this novad */
	if (r) {
		novad_log(LOG_WARNING, NULL, "malformed nova notification ignored");
		return 0;
	}
	switch (ev.kind) {
	case NOVA_EVENT_FS_MOUNTED:
		f = add_fs(d, &ev.id);
		if (!f)
			return 0;
		novad_fs_refresh_mounts(d);
		log_fs(LOG_INFO, NOVAD_MID_FS_MOUNTED, f, "mounted:");
		break;
	case NOVA_EVENT_FS_UNMOUNTED:
		f = novad_fs_find(d, ev.id.dev);
		if (!f) {
			struct novad_fs tmp = { .id = ev.id };

			log_fs(LOG_INFO, NOVAD_MID_FS_UNMOUNTED, &tmp, "unmounted:");
			return 0;
		}
		log_fs(LOG_INFO, NOVAD_MID_FS_UNMOUNTED, f, "unmounted:");
		remove_fs(d, ev.id.dev);
		break;
	}
	return 0;
}

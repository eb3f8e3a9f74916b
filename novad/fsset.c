// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad: the set of NOVA file systems it follows. Built from
 * NOVA_CMD_FS_LIST at start (and again whenever notifications were lost),
 * kept current by FS_MOUNTED / FS_UNMOUNTED notifications, with mount
 * points from /proc/self/mountinfo (re-read when it changes: the
 * notification comes before the mount is attached to its mount point).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
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

static void apply_policy(struct novad *d, struct novad_fs *f)
{
	novad_config_policy(&d->cfg, f->mountpoint[0] ? f->mountpoint : NULL,
			    f->id.uuid, &f->pol);
	f->prune_pending = true;
	warn_unavailable(d, f);
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

	r = nova_fs_list(d->g.req, &list, &n, &e);
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

int novad_fs_event(const struct nlmsghdr *nlh, void *arg)
{
	struct novad *d = arg;
	struct nova_event ev;
	struct novad_fs *f;
	int r;

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

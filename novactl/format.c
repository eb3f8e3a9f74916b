// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl: the JSON output schema, version NOVACTL_JSON_VERSION. Every
 * document is an object with "version" and either the command's payload or
 * "error". docs/man/novactl.8 documents the members; additions keep the
 * version, renames or removals bump it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "novactl.h"

void nctl_fmt_dev(uint64_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", nova_dev_major(dev), nova_dev_minor(dev));
}

struct json_object *nctl_json_error(int err, const char *msg)
{
	struct json_object *o = json_object_new_object();
	const char *name = err ? strerrorname_np(-err) : NULL;

	json_object_object_add(o, "errno", json_object_new_int(-err));
	json_object_object_add(o, "name", json_object_new_string(name ? name : ""));
	json_object_object_add(o, "message", json_object_new_string(msg));
	return o;
}

static void nctl_json_add_u64(struct json_object *o, const char *key,
			      uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void nctl_json_add_id(struct json_object *o, const struct nova_fs_id *id)
{
	char dev[32], uuid[37];

	nctl_fmt_dev(id->dev, dev, sizeof(dev));
	nova_uuid_format(id->uuid, uuid);
	nctl_json_add_u64(o, "dev", id->dev);
	json_object_object_add(o, "device", json_object_new_string(dev));
	json_object_object_add(o, "bdev", json_object_new_string(id->bdev));
	json_object_object_add(o, "uuid", json_object_new_string(uuid));
	json_object_object_add(o, "label", json_object_new_string(id->label));
}

static void nctl_json_add_mnts(struct json_object *o, char **mnts, size_t n)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(mnts[i]));
	json_object_object_add(o, "mountpoints", a);
}

/* "format": "MAJOR.MINOR" next to the raw format_version. */
static void nctl_json_add_format(struct json_object *o, uint32_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%u.%u", v >> 16, v & 0xffff);
	json_object_object_add(o, "format", json_object_new_string(buf));
}

struct json_object *nctl_json_fs_info(const struct nova_fs_info *fi,
				      char **mnts, size_t n_mnts)
{
	struct json_object *o = json_object_new_object();

	nctl_json_add_id(o, &fi->id);
	nctl_json_add_mnts(o, mnts, n_mnts);
	json_object_object_add(o, "format_version",
			       json_object_new_uint64(fi->format_version));
	nctl_json_add_format(o, fi->format_version);
	json_object_object_add(o, "read_only",
			       json_object_new_boolean(fi->read_only));
	return o;
}

/* The "protection" object of a stats document. */
static struct json_object *nctl_json_prot(const struct nova_stats *st)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "csum", json_object_new_boolean(st->prot_csum));
	json_object_object_add(p, "parity",
			       json_object_new_boolean(st->prot_parity));
	json_object_object_add(p, "verify",
			       json_object_new_boolean(st->prot_verify));
	nctl_json_add_u64(p, "verified", st->prot_verified);
	nctl_json_add_u64(p, "repaired", st->prot_repaired);
	nctl_json_add_u64(p, "unrecoverable", st->prot_unrecoverable);
	nctl_json_add_u64(p, "badblocks", st->bb_blocks);
	nctl_json_add_u64(p, "badblocks_repaired", st->bb_repaired);
	nctl_json_add_u64(p, "badblocks_lost", st->bb_lost);
	nctl_json_add_u64(p, "badblocks_withheld", st->bb_withheld);
	return p;
}

struct json_object *nctl_json_stats(const struct nova_stats *st,
				    char **mnts, size_t n_mnts)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ops = json_object_new_array(), *gc, *scrub, *reclaim;
	size_t i;

	nctl_json_add_id(o, &st->id);
	nctl_json_add_mnts(o, mnts, n_mnts);
	nctl_json_add_u64(o, "format_version", st->format_version);
	nctl_json_add_format(o, st->format_version);
	nctl_json_add_u64(o, "cpus", st->cpus);
	nctl_json_add_u64(o, "block_size", st->block_size);
	nctl_json_add_u64(o, "blocks_total", st->blocks_total);
	nctl_json_add_u64(o, "blocks_free", st->blocks_free);
	nctl_json_add_u64(o, "inodes_total", st->inodes_total);
	nctl_json_add_u64(o, "inodes_free", st->inodes_free);
	nctl_json_add_u64(o, "log_pages", st->log_pages);
	nctl_json_add_u64(o, "data_pages", st->data_pages);
	nctl_json_add_u64(o, "epoch", st->epoch);
	nctl_json_add_u64(o, "snapshots", st->snapshots);
	nctl_json_add_u64(o, "mount_time_ns", st->mount_time_ns);
	json_object_object_add(o, "recovered",
			       json_object_new_boolean(st->recovered));
	json_object_object_add(o, "space_check_pending",
			       json_object_new_boolean(st->space_check_pending));
	json_object_object_add(o, "read_only",
			       json_object_new_boolean(st->read_only));
	for (i = 0; i < st->n_ops; i++) {
		struct json_object *op = json_object_new_object();

		json_object_object_add(op, "name",
				       json_object_new_string(st->ops[i].name));
		nctl_json_add_u64(op, "count", st->ops[i].count);
		nctl_json_add_u64(op, "time_ns", st->ops[i].time_ns);
		json_object_array_add(ops, op);
	}
	json_object_object_add(o, "operations", ops);
	gc = json_object_new_object();
	nctl_json_add_u64(gc, "fast_pages", st->gc_fast_pages);
	nctl_json_add_u64(gc, "thorough_runs", st->gc_thorough_runs);
	nctl_json_add_u64(gc, "thorough_pages", st->gc_thorough_pages);
	nctl_json_add_u64(gc, "entries_copied", st->gc_entries_copied);
	nctl_json_add_u64(gc, "time_ns", st->gc_time_ns);
	json_object_object_add(o, "gc", gc);
	reclaim = json_object_new_object();
	nctl_json_add_u64(reclaim, "pending_blocks", st->snap_reclaim_blocks);
	nctl_json_add_u64(reclaim, "pending_inodes", st->snap_reclaim_inodes);
	nctl_json_add_u64(reclaim, "reclaimed_blocks", st->snap_reclaimed);
	json_object_object_add(o, "snapshot_reclaim", reclaim);
	scrub = json_object_new_object();
	json_object_object_add(scrub, "state",
			       json_object_new_string(nova_scrub_state_name(st->scrub_state)));
	nctl_json_add_u64(scrub, "passes", st->scrub_passes);
	nctl_json_add_u64(scrub, "bytes", st->scrub_bytes);
	nctl_json_add_u64(scrub, "errors", st->scrub_errors);
	nctl_json_add_u64(scrub, "repaired", st->scrub_repaired);
	nctl_json_add_u64(scrub, "unrecoverable", st->scrub_unrecoverable);
	json_object_object_add(o, "scrub", scrub);
	json_object_object_add(o, "protection", nctl_json_prot(st));
	return o;
}

/* A document {"version": 1, "filesystem": {identity of @id}}. */
static struct json_object *nctl_json_fs_doc(const struct nova_fs_id *id)
{
	struct json_object *doc = nctl_json_doc();
	struct json_object *fs = json_object_new_object();

	nctl_json_add_id(fs, id);
	json_object_object_add(doc, "filesystem", fs);
	return doc;
}

/* An event document: version, time, event name and the identity. */
static struct json_object *nctl_json_event_doc(const char *time,
					       const char *event,
					       const struct nova_fs_id *id)
{
	struct json_object *o = nctl_json_doc();

	json_object_object_add(o, "time", json_object_new_string(time));
	json_object_object_add(o, "event", json_object_new_string(event));
	nctl_json_add_id(o, id);
	return o;
}

/* The document novactl gc --json prints. */
struct json_object *nctl_json_gc(const struct nova_gc_report *r)
{
	struct json_object *doc = nctl_json_fs_doc(&r->id);
	struct json_object *o = json_object_new_object();

	if (r->ino)
		nctl_json_add_u64(o, "inode", r->ino);
	else
		json_object_object_add(o, "inode", NULL);
	nctl_json_add_u64(o, "inodes", r->inodes);
	nctl_json_add_u64(o, "log_pages_before", r->log_pages_before);
	nctl_json_add_u64(o, "log_pages_after", r->log_pages_after);
	nctl_json_add_u64(o, "fast_pages", r->fast_pages);
	nctl_json_add_u64(o, "thorough_runs", r->thorough_runs);
	nctl_json_add_u64(o, "entries_copied", r->entries_copied);
	nctl_json_add_u64(o, "time_ns", r->time_ns);
	json_object_object_add(doc, "gc", o);
	return doc;
}

struct json_object *nctl_json_event(const struct nova_event *ev,
				    const char *time)
{
	return nctl_json_event_doc(time, nova_event_name(ev->kind), &ev->id);
}

struct json_object *nctl_json_corruption(const struct nova_corruption *b)
{
	struct json_object *o = json_object_new_object();

	nctl_json_add_u64(o, "inode", b->ino);
	json_object_object_add(o, "kind",
			       json_object_new_string(nova_corruption_kind_name(b->kind)));
	nctl_json_add_u64(o, "offset", b->offset);
	json_object_object_add(o, "repaired",
			       json_object_new_boolean(b->repaired));
	return o;
}

/* Nanoseconds since the Unix epoch as ISO 8601 UTC; JSON null for 0. */
static struct json_object *nctl_json_time(uint64_t ns)
{
	char buf[40];

	if (!ns)
		return NULL;
	nctl_fmt_time(ns, buf, sizeof(buf));
	return json_object_new_string(buf);
}

uint64_t nctl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool nctl_scrub_rate(const struct nova_scrub_info *si, uint64_t now_ns,
		     double *rate, double *eta)
{
	uint64_t end = si->finish_ns ? si->finish_ns : now_ns;
	uint64_t left, t;

	*rate = 0;
	*eta = -1;
	if (!si->start_ns)
		return false;
	/* Running time if the kernel sends it, else wall time since the start. */
	t = si->has_run ? si->run_ns :
	    end > si->start_ns ? end - si->start_ns : 0;
	if (!t)
		return false;
	*rate = (double)si->bytes_scanned * 1e9 / (double)t;
	if (si->state == NOVA_SCRUB_RUNNING && *rate > 0) {
		left = si->bytes_total > si->bytes_scanned ?
		       si->bytes_total - si->bytes_scanned : 0;
		*eta = (double)left / *rate;
	}
	return true;
}

struct json_object *nctl_json_scrub_status(const struct nova_scrub_info *si)
{
	struct json_object *o = json_object_new_object();
	struct json_object *bad = json_object_new_array();
	double rate, eta;
	bool have_rate;
	size_t i;

	json_object_object_add(o, "state",
			       json_object_new_string(nova_scrub_state_name(si->state)));
	nctl_json_add_u64(o, "bandwidth", si->bandwidth);
	nctl_json_add_u64(o, "bytes_scanned", si->bytes_scanned);
	nctl_json_add_u64(o, "bytes_total", si->bytes_total);
	nctl_json_add_u64(o, "inodes_scanned", si->inodes_scanned);
	nctl_json_add_u64(o, "meta_checked", si->meta_checked);
	nctl_json_add_u64(o, "data_checked", si->data_checked);
	nctl_json_add_u64(o, "errors", si->errors);
	nctl_json_add_u64(o, "repaired", si->repaired);
	nctl_json_add_u64(o, "unrecoverable", si->unrecoverable);
	json_object_object_add(o, "start_time", nctl_json_time(si->start_ns));
	json_object_object_add(o, "finish_time", nctl_json_time(si->finish_ns));
	nctl_json_add_u64(o, "start_ns", si->start_ns);
	nctl_json_add_u64(o, "finish_ns", si->finish_ns);
	json_object_object_add(o, "run_ns", si->has_run ?
			       json_object_new_uint64(si->run_ns) : NULL);
	have_rate = nctl_scrub_rate(si, nctl_now_ns(), &rate, &eta);
	json_object_object_add(o, "rate", have_rate ?
			       json_object_new_int64((int64_t)rate) : NULL);
	json_object_object_add(o, "eta_sec", eta >= 0 ?
			       json_object_new_int64((int64_t)(eta + 0.5)) : NULL);
	json_object_object_add(o, "errno", json_object_new_int((int)si->err));
	nctl_json_add_u64(o, "bad_dropped", si->bad_dropped);
	nctl_json_add_u64(o, "events_suppressed", si->events_suppressed);
	for (i = 0; i < si->n_bad; i++)
		json_object_array_add(bad, nctl_json_corruption(&si->bad[i]));
	json_object_object_add(o, "bad", bad);
	return o;
}

struct json_object *nctl_json_scrub(const struct nova_scrub_info *si)
{
	struct json_object *doc = nctl_json_fs_doc(&si->id);

	json_object_object_add(doc, "scrub", nctl_json_scrub_status(si));
	return doc;
}

struct json_object *nctl_json_scrub_event(const struct nova_scrub_event *ev,
					  const char *time)
{
	struct json_object *o;

	o = nctl_json_event_doc(time, ev->cmd == NOVA_CMD_CORRUPTION ?
				"corruption" : "scrub-finished", &ev->id);
	if (ev->cmd == NOVA_CMD_CORRUPTION) {
		json_object_object_add(o, "corruption",
				       nctl_json_corruption(&ev->corruption));
		nctl_json_add_u64(o, "suppressed", ev->suppressed);
	} else
		json_object_object_add(o, "scrub",
				       nctl_json_scrub_status(&ev->scrub));
	return o;
}

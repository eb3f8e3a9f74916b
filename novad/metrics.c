// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad metrics formatter (see metrics.h). Every statistic the kernel
 * reports in NOVA_STATS_A_* becomes a series; the operation counters
 * become nova_operations_total and nova_operation_seconds_total with an
 * "op" label, whatever operation names the kernel sends.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

void novad_metrics_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
}

enum kind { GAUGE, COUNTER };
enum scale { RAW, NS_TO_S };

struct metric {
	const char *name;
	enum kind kind;
	const char *help;
	enum scale scale;
	uint64_t (*get)(const struct nova_stats *st);
};

#define GETTER(field) \
	static uint64_t get_##field(const struct nova_stats *st) \
	{ return (uint64_t)st->field; }
GETTER(format_version)
GETTER(cpus)
GETTER(block_size)
GETTER(blocks_total)
GETTER(blocks_free)
GETTER(inodes_total)
GETTER(inodes_free)
GETTER(log_pages)
GETTER(data_pages)
GETTER(epoch)
GETTER(snapshots)
GETTER(mount_time_ns)
GETTER(recovered)
GETTER(space_check_pending)
GETTER(read_only)
GETTER(snap_reclaim_blocks)
GETTER(snap_reclaim_inodes)
GETTER(snap_reclaimed)
GETTER(gc_fast_pages)
GETTER(gc_thorough_runs)
GETTER(gc_thorough_pages)
GETTER(gc_entries_copied)
GETTER(gc_time_ns)
GETTER(scrub_passes)
GETTER(scrub_bytes)
GETTER(scrub_errors)
GETTER(scrub_repaired)
GETTER(scrub_unrecoverable)
GETTER(prot_csum)
GETTER(prot_parity)
GETTER(prot_verify)
GETTER(prot_verified)
GETTER(prot_repaired)
GETTER(prot_unrecoverable)
GETTER(bb_blocks)
GETTER(bb_repaired)
GETTER(bb_lost)
GETTER(bb_withheld)

static uint64_t get_size_bytes(const struct nova_stats *st)
{
	return st->blocks_total * st->block_size;
}

static uint64_t get_free_bytes(const struct nova_stats *st)
{
	return st->blocks_free * st->block_size;
}

static uint64_t get_log_bytes(const struct nova_stats *st)
{
	return st->log_pages * st->block_size;
}

static uint64_t get_data_bytes(const struct nova_stats *st)
{
	return st->data_pages * st->block_size;
}

static const struct metric metrics[] = {
	{ "nova_format_version", GAUGE, "On-media format version.", RAW, get_format_version },
	{ "nova_cpu_stripes", GAUGE, "Per-CPU stripes (inode tables, journals, free lists) on the media.", RAW, get_cpus },
	{ "nova_block_size_bytes", GAUGE, "File system block size.", RAW, get_block_size },
	{ "nova_blocks", GAUGE, "Blocks the allocator manages.", RAW, get_blocks_total },
	{ "nova_blocks_free", GAUGE, "Free blocks.", RAW, get_blocks_free },
	{ "nova_size_bytes", GAUGE, "Size managed by the allocator (blocks times block size).", RAW, get_size_bytes },
	{ "nova_free_bytes", GAUGE, "Free space (free blocks times block size).", RAW, get_free_bytes },
	{ "nova_inodes", GAUGE, "Inode slots in the inode tables.", RAW, get_inodes_total },
	{ "nova_inodes_free", GAUGE, "Free inode slots.", RAW, get_inodes_free },
	{ "nova_log_pages", GAUGE, "Pages holding per-inode logs.", RAW, get_log_pages },
	{ "nova_log_bytes", GAUGE, "Space in pages holding per-inode logs.", RAW, get_log_bytes },
	{ "nova_data_pages", GAUGE, "Pages holding file data.", RAW, get_data_pages },
	{ "nova_data_bytes", GAUGE, "Space in pages holding file data.", RAW, get_data_bytes },
	{ "nova_snapshot_epoch", GAUGE, "Current snapshot epoch.", RAW, get_epoch },
	{ "nova_snapshots", GAUGE, "Live snapshots.", RAW, get_snapshots },
	{ "nova_mount_duration_seconds", GAUGE, "How long the last mount took.", NS_TO_S, get_mount_time_ns },
	{ "nova_mount_recovered", GAUGE, "1 if the last mount ran crash recovery, else 0.", RAW, get_recovered },
	{ "nova_space_check_pending", GAUGE, "1 after a recovery from the allocation bitmap until the space check ran (log and data page counts provisional), else 0.", RAW, get_space_check_pending },
	{ "nova_read_only", GAUGE, "1 if mounted read-only, else 0.", RAW, get_read_only },
	/* background reclaim of deleted snapshots */
	{ "nova_snapshot_reclaim_pending_blocks", GAUGE, "Blocks of deleted snapshots not yet freed by the background reclaim.", RAW, get_snap_reclaim_blocks },
	{ "nova_snapshot_reclaim_pending_inodes", GAUGE, "Removed inodes of deleted snapshots not yet freed by the background reclaim.", RAW, get_snap_reclaim_inodes },
	{ "nova_snapshot_reclaimed_blocks_total", COUNTER, "Blocks the background reclaim freed since mount.", RAW, get_snap_reclaimed },
	/* log garbage collection */
	{ "nova_gc_fast_pages_total", COUNTER, "Log pages freed by fast garbage collection since mount.", RAW, get_gc_fast_pages },
	{ "nova_gc_thorough_runs_total", COUNTER, "Thorough garbage collection runs (log rewrites) since mount.", RAW, get_gc_thorough_runs },
	{ "nova_gc_thorough_pages_total", COUNTER, "Log pages freed by thorough garbage collection since mount.", RAW, get_gc_thorough_pages },
	{ "nova_gc_entries_copied_total", COUNTER, "Live log entries copied by thorough garbage collection since mount.", RAW, get_gc_entries_copied },
	{ "nova_gc_seconds_total", COUNTER, "Time spent in log garbage collection since mount.", NS_TO_S, get_gc_time_ns },
	/* online scrub */
	{ "nova_scrub_passes_total", COUNTER, "Scrub passes finished since mount.", RAW, get_scrub_passes },
	{ "nova_scrub_bytes_total", COUNTER, "Metadata and data bytes scrubbed since mount, all passes.", RAW, get_scrub_bytes },
	{ "nova_scrub_errors_total", COUNTER, "Damaged objects scrubs found since mount.", RAW, get_scrub_errors },
	{ "nova_scrub_repaired_total", COUNTER, "Damaged objects scrubs found and repaired since mount.", RAW, get_scrub_repaired },
	{ "nova_scrub_unrecoverable_total", COUNTER, "Damaged objects scrubs found and could not repair since mount.", RAW, get_scrub_unrecoverable },
	/* data protection */
	{ "nova_protection_checksums", GAUGE, "1 if the format keeps data checksums, else 0.", RAW, get_prot_csum },
	{ "nova_protection_parity", GAUGE, "1 if the format keeps data parity, else 0.", RAW, get_prot_parity },
	{ "nova_protection_verify", GAUGE, "1 if reads are verified against the checksums, else 0 (verify=off).", RAW, get_prot_verify },
	{ "nova_protection_verified_total", COUNTER, "Data strips verified against their checksums since mount.", RAW, get_prot_verified },
	{ "nova_protection_repaired_total", COUNTER, "Data strips, checksums and parity rewritten by repairs since mount.", RAW, get_prot_repaired },
	{ "nova_protection_unrecoverable_total", COUNTER, "Data pages found damaged beyond repair since mount (reads get EIO).", RAW, get_prot_unrecoverable },
	/* the device's bad-block list, as read at mount */
	{ "nova_badblocks", GAUGE, "Blocks the device listed as bad at mount.", RAW, get_bb_blocks },
	{ "nova_badblocks_repaired", GAUGE, "Listed bad blocks rebuilt at mount.", RAW, get_bb_repaired },
	{ "nova_badblocks_lost", GAUGE, "Listed bad blocks that could not be rebuilt.", RAW, get_bb_lost },
	{ "nova_badblocks_withheld", GAUGE, "Listed bad blocks that were free, withheld from allocation.", RAW, get_bb_withheld },
};

#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static void put_value(FILE *f, enum scale sc, uint64_t v)
{
	if (sc == NS_TO_S)
		fprintf(f, "%" PRIu64 ".%09" PRIu64 "\n", v / 1000000000u,
			v % 1000000000u);
	else
		fprintf(f, "%" PRIu64 "\n", v);
}

struct labels {
	char text[8400];	/* device="...",mountpoint="...",uuid="..." */
};

static void make_labels(const struct novad_metrics_fs *m, struct labels *l)
{
	char dev[2 * NOVA_BDEV_LEN + 16], mnt[2 * 4096], uuid[37];
	char raw[NOVA_BDEV_LEN + 8];

	snprintf(raw, sizeof(raw), "/dev/%s", m->st->id.bdev);
	novad_metrics_escape(raw, dev, sizeof(dev));
	novad_metrics_escape(m->mountpoint ? m->mountpoint : "", mnt, sizeof(mnt));
	nova_uuid_format(m->st->id.uuid, uuid);
	snprintf(l->text, sizeof(l->text),
		 "device=\"%s\",mountpoint=\"%s\",uuid=\"%s\"", dev, mnt, uuid);
}

static void header(FILE *f, const char *name, enum kind k, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
		k == COUNTER ? "counter" : "gauge");
}

int novad_metrics_format(const struct novad_metrics_fs *fs, size_t n,
			 int64_t now_s, char **out)
{
	struct labels *lab = NULL;
	char *buf = NULL, label[80];
	size_t len = 0;
	FILE *f;

	*out = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	if (n) {
		lab = calloc(n, sizeof(*lab));
		if (!lab) {
			fclose(f);
			free(buf);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < n; i++)
		make_labels(&fs[i], &lab[i]);

	header(f, "nova_filesystems", GAUGE, "Mounted NOVA file systems novad follows.");
	fprintf(f, "nova_filesystems %zu\n", n);
	header(f, "nova_stats_collected_timestamp_seconds", GAUGE,
	       "When novad last collected these statistics.");
	fprintf(f, "nova_stats_collected_timestamp_seconds %lld\n", (long long)now_s);
	if (n) {
		header(f, "nova_filesystem_info", GAUGE,
		       "Identity of a mounted NOVA file system (value always 1).");
		for (size_t i = 0; i < n; i++) {
			novad_metrics_escape(fs[i].st->id.label, label, sizeof(label));
			fprintf(f, "nova_filesystem_info{%s,label=\"%s\"} 1\n",
				lab[i].text, label);
		}
	}
	for (size_t m = 0; n && m < NMETRICS; m++) {
		header(f, metrics[m].name, metrics[m].kind, metrics[m].help);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "%s{%s} ", metrics[m].name, lab[i].text);
			put_value(f, metrics[m].scale, metrics[m].get(fs[i].st));
		}
	}
	if (n) {
		header(f, "nova_scrub_state", GAUGE,
		       "Scrub state: 1 for the current one of idle, running, paused, finished.");
		for (size_t i = 0; i < n; i++)
			for (uint32_t s = NOVA_SCRUB_IDLE; s <= NOVA_SCRUB_FINISHED; s++)
				fprintf(f, "nova_scrub_state{%s,state=\"%s\"} %d\n",
					lab[i].text, nova_scrub_state_name(s),
					fs[i].st->scrub_state == s);
		header(f, "nova_corruption_events_total", COUNTER,
		       "Corruption notifications (from reads and scrubs, repaired or not, including those the kernel's rate limit held back) since novad began following the file system.");
		for (size_t i = 0; i < n; i++)
			fprintf(f, "nova_corruption_events_total{%s} %" PRIu64 "\n",
				lab[i].text, fs[i].corruption_events);
	}
	for (int pass = 0; pass < 2; pass++) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= fs[i].st->n_ops > 0;
		if (!any)
			break;
		if (pass == 0)
			header(f, "nova_operations_total", COUNTER,
			       "Calls of each file system operation since mount.");
		else
			header(f, "nova_operation_seconds_total", COUNTER,
			       "Time spent in each file system operation since mount.");
		for (size_t i = 0; i < n; i++) {
			for (size_t o = 0; o < fs[i].st->n_ops; o++) {
				const struct nova_op_stat *op = &fs[i].st->ops[o];
				char name[2 * NOVA_OP_NAME_LEN + 1];

				novad_metrics_escape(op->name, name, sizeof(name));
				fprintf(f, "%s{%s,op=\"%s\"} ",
					pass ? "nova_operation_seconds_total" :
					       "nova_operations_total",
					lab[i].text, name);
				put_value(f, pass ? NS_TO_S : RAW,
					  pass ? op->time_ns : op->count);
			}
		}
	}
	free(lab);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

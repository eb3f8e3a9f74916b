// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl stats: space, inode, log and per-operation statistics of one or
 * every mounted NOVA file system.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "novactl.h"

static void stats_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl stats [-j|--json] [-p|--pretty] [PATH|MAJOR:MINOR|UUID]\n"
		"\n"
		"Show the statistics of the NOVA file system holding PATH (a file in\n"
		"it or its block device), named by device number or by UUID, or of\n"
		"every mounted NOVA file system when none is given.\n");
}

static const char *on_off(bool b)
{
	return b ? "on" : "off";
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void stats_print_human(const struct nova_stats *st, bool first)
{
	char *mnts[NCTL_MAX_MNTS];
	char dev[32], uuid[37], b1[32], b2[32];
	size_t i, nm = nctl_mnts(st->id.dev, mnts);
	uint64_t bytes;

	nctl_fmt_dev(st->id.dev, dev, sizeof(dev));
	nova_uuid_format(st->id.uuid, uuid);
	printf("%s%s (%s)\n", first ? "" : "\n", st->id.bdev, dev);
	nctl_kv(2, "UUID", "%s", uuid);
	nctl_kv(2, "Label", "%s", st->id.label[0] ? st->id.label : "-");
	for (i = 0; i < nm; i++)
		nctl_kv(2, i ? "Also mounted on" : "Mounted on", "%s", mnts[i]);
	if (!nm)
		nctl_kv(2, "Mounted on", "-");
	nctl_mnts_free(mnts, nm);
	nctl_kv(2, "Format version", "%u.%u", st->format_version >> 16,
		st->format_version & 0xffff);
	nctl_kv(2, "CPUs", "%u", st->cpus);
	nctl_kv(2, "Block size", "%llu", (unsigned long long)st->block_size);
	bytes = st->blocks_total * st->block_size;
	nctl_kv(2, "Blocks total", "%llu (%s)",
		(unsigned long long)st->blocks_total,
		nctl_fmt_bytes(bytes, b1, sizeof(b1)));
	bytes = st->blocks_free * st->block_size;
	nctl_kv(2, "Blocks free", "%llu (%s, %.1f%%)",
		(unsigned long long)st->blocks_free,
		nctl_fmt_bytes(bytes, b1, sizeof(b1)),
		st->blocks_total ? 100.0 * st->blocks_free / st->blocks_total : 0.0);
	nctl_kv(2, "Inodes total", "%llu", (unsigned long long)st->inodes_total);
	nctl_kv(2, "Inodes free", "%llu", (unsigned long long)st->inodes_free);
	nctl_kv(2, "Log pages", "%llu", (unsigned long long)st->log_pages);
	nctl_kv(2, "Data pages", "%llu", (unsigned long long)st->data_pages);
	nctl_kv(2, "GC", "%llu pages freed fast, %llu logs rewritten (%llu pages, %llu entries), %s",
		(unsigned long long)st->gc_fast_pages,
		(unsigned long long)st->gc_thorough_runs,
		(unsigned long long)st->gc_thorough_pages,
		(unsigned long long)st->gc_entries_copied,
		nctl_fmt_ns(st->gc_time_ns, b1, sizeof(b1)));
	nctl_kv(2, "Scrub", "%s, %llu passes, %s read, %llu errors (%llu repaired, %llu unrecoverable)",
		nova_scrub_state_name(st->scrub_state),
		(unsigned long long)st->scrub_passes,
		nctl_fmt_bytes(st->scrub_bytes, b1, sizeof(b1)),
		(unsigned long long)st->scrub_errors,
		(unsigned long long)st->scrub_repaired,
		(unsigned long long)st->scrub_unrecoverable);
	nctl_kv(2, "Protection", "checksums %s, parity %s, verify %s",
		on_off(st->prot_csum), on_off(st->prot_parity),
		on_off(st->prot_verify));
	nctl_kv(2, "Data verified", "%llu strips, %llu repaired, %llu pages unrecoverable",
		(unsigned long long)st->prot_verified,
		(unsigned long long)st->prot_repaired,
		(unsigned long long)st->prot_unrecoverable);
	nctl_kv(2, "Bad blocks", "%llu listed at mount, %llu rebuilt, %llu lost, %llu free withheld",
		(unsigned long long)st->bb_blocks,
		(unsigned long long)st->bb_repaired,
		(unsigned long long)st->bb_lost,
		(unsigned long long)st->bb_withheld);
	nctl_kv(2, "Epoch", "%llu", (unsigned long long)st->epoch);
	nctl_kv(2, "Snapshots", "%llu", (unsigned long long)st->snapshots);
	nctl_kv(2, "Snapshot reclaim", "%llu blocks and %llu removed inodes pending, %llu blocks freed",
		(unsigned long long)st->snap_reclaim_blocks,
		(unsigned long long)st->snap_reclaim_inodes,
		(unsigned long long)st->snap_reclaimed);
	nctl_kv(2, "Mount time", "%s",
		nctl_fmt_ns(st->mount_time_ns, b1, sizeof(b1)));
	nctl_kv(2, "Recovered", "%s", yes_no(st->recovered));
	if (st->space_check_pending)
		nctl_kv(2, "Space check", "%s",
			"pending: log and data page counts are provisional until the next clean unmount, read-only remount or freeze");
	nctl_kv(2, "Read-only", "%s", yes_no(st->read_only));
	if (!st->n_ops)
		return;
	printf("  Operations:\n    %-15s %12s %12s %12s\n", "name", "count",
	       "total", "average");
	for (i = 0; i < st->n_ops; i++) {
		const struct nova_op_stat *op = &st->ops[i];

		printf("    %-15s %12llu %12s %12s\n", op->name,
		       (unsigned long long)op->count,
		       nctl_fmt_ns(op->time_ns, b1, sizeof(b1)),
		       op->count ? nctl_fmt_ns(op->time_ns / op->count, b2,
					       sizeof(b2)) : "-");
	}
}

static void stats_print(struct nctl *c, const struct nova_stats *list,
			size_t n)
{
	struct json_object *doc, *a;
	size_t i;

	if (!c->json) {
		for (i = 0; i < n; i++)
			stats_print_human(&list[i], i == 0);
		return;
	}
	doc = nctl_json_doc();
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		char *mnts[NCTL_MAX_MNTS];
		size_t nm = nctl_mnts(list[i].id.dev, mnts);

		json_object_array_add(a, nctl_json_stats(&list[i], mnts, nm));
		nctl_mnts_free(mnts, nm);
	}
	json_object_object_add(doc, "filesystems", a);
	nctl_json_print(c, doc);
	json_object_put(doc);
}

int nctl_cmd_stats(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct nova_stats *list = NULL, one;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	size_t n = 0;
	int opt, r;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT, opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			stats_help(stdout);
			return NCTL_EXIT_OK;
		}
		return nctl_usage_error(c, "stats: unknown option '%s'",
					argv[optind - 1]);
	}
	if (argc - optind > 1)
		return nctl_usage_error(c, "stats: unexpected argument '%s'",
					argv[optind + 1]);
	if (optind < argc && nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);

	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (optind < argc) {
		r = nova_req_stats_get(ipc, &sel, &one, &e);
		if (!r)
			stats_print(c, &one, 1);
	} else {
		r = nova_req_stats_dump(ipc, &list, &n, &e);
		if (!r)
			stats_print(c, list, n);
	}
	if (r && optind < argc && e.from_kernel)
		r = nctl_error(c, NCTL_EXIT_FAIL, e.err, "%s: %s", argv[optind],
			       e.msg);
	else if (r)
		r = nctl_error_nova(c, &e);
	free(list);
	nova_ipc_close(ipc);
	return r;
}

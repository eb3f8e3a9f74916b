// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl snapshot: take, list and delete snapshots of a mounted NOVA file
 * system.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "novactl.h"

/* NOVA_SNAPSHOT_A_EXCL_BLOCKS counts blocks of this size. */
#define NOVA_BLOCK 4096ULL

static void snapshot_create_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl snapshot create [-j|--json] [-p|--pretty] [-n|--name NAME] PATH\n"
		"\n"
		"Take a snapshot of the NOVA file system holding PATH (a file in it,\n"
		"its block device, MAJOR:MINOR or its UUID). NAME is optional; it must\n"
		"be unique and not made of digits only. Needs CAP_NET_ADMIN and CAP_SYS_ADMIN.\n");
}

static void snapshot_list_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl snapshot list [-j|--json] [-p|--pretty] PATH\n"
		"\n"
		"List the live snapshots of the NOVA file system holding PATH, oldest\n"
		"first: id, epoch, creation time (UTC) and name.\n");
}

static void snapshot_delete_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl snapshot delete [-j|--json] [-p|--pretty] [-w|--wait] PATH ID|NAME\n"
		"\n"
		"Delete a snapshot of the NOVA file system holding PATH, by id or by\n"
		"name. The space only it used is freed in the background right after;\n"
		"with --wait, return only once it is free. Needs CAP_NET_ADMIN and\n"
		"CAP_SYS_ADMIN.\n");
}

/* Creation time as ISO 8601 UTC, e.g. 2026-12-02T22:00:00Z. */
static void fmt_ctime(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
}

struct json_object *nctl_json_snapshot(const struct nova_snapshot_rec *sn)
{
	struct json_object *o = json_object_new_object();
	char t[64];

	fmt_ctime(sn->ctime_ns, t, sizeof(t));
	json_object_object_add(o, "id", json_object_new_uint64(sn->snap_id));
	json_object_object_add(o, "name", json_object_new_string(sn->name));
	json_object_object_add(o, "epoch", json_object_new_uint64(sn->epoch));
	json_object_object_add(o, "ctime", json_object_new_string(t));
	json_object_object_add(o, "ctime_ns",
			       json_object_new_uint64(sn->ctime_ns));
	if (sn->has_excl) {
		json_object_object_add(o, "exclusive_blocks",
				       json_object_new_uint64(sn->excl_blocks));
		json_object_object_add(o, "exclusive_bytes",
				       json_object_new_uint64(sn->excl_blocks *
							      NOVA_BLOCK));
	}
	return o;
}

struct json_object *nctl_json_fs_id(const struct nova_fs_id *id)
{
	struct json_object *o = json_object_new_object();
	char dev[32], uuid[37];

	nctl_fmt_dev(id->dev, dev, sizeof(dev));
	nova_uuid_format(id->uuid, uuid);
	json_object_object_add(o, "dev", json_object_new_uint64(id->dev));
	json_object_object_add(o, "device", json_object_new_string(dev));
	json_object_object_add(o, "bdev", json_object_new_string(id->bdev));
	json_object_object_add(o, "uuid", json_object_new_string(uuid));
	json_object_object_add(o, "label", json_object_new_string(id->label));
	return o;
}

/* "snapshot": {...} for create and delete. */
static void print_one(struct nctl *c, const char *verb,
		      const struct nova_snapshot_rec *sn)
{
	struct json_object *doc;
	char t[64];

	if (!c->json) {
		fmt_ctime(sn->ctime_ns, t, sizeof(t));
		printf("%s snapshot %llu of %s\n", verb,
		       (unsigned long long)sn->snap_id, sn->id.bdev);
		nctl_kv(2, "Name", "%s", sn->name[0] ? sn->name : "-");
		nctl_kv(2, "Epoch", "%llu", (unsigned long long)sn->epoch);
		nctl_kv(2, "Created", "%s", t);
		return;
	}
	doc = nctl_json_doc();
	json_object_object_add(doc, "filesystem", nctl_json_fs_id(&sn->id));
	json_object_object_add(doc, "snapshot", nctl_json_snapshot(sn));
	nctl_json_print(c, doc);
	json_object_put(doc);
}

/*
 * Common option loop. Returns -1 to go on, else an exit status. @name
 * receives -n/--name and @wait -w/--wait, each where it is not NULL (the
 * subcommands that take them).
 */
static int parse_opts(struct nctl *c, int argc, char **argv, const char *cmd,
		      void (*help)(FILE *), const char **name, bool *wait)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "name",	required_argument, NULL, 'n' },
		{ "wait",	no_argument,	   NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT "n:w", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			help(stdout);
			return NCTL_EXIT_OK;
		}
		if (opt == 'n' && name) {
			*name = optarg;
			continue;
		}
		if (opt == 'w' && wait) {
			*wait = true;
			continue;
		}
		if (opt == ':')
			return nctl_usage_error(c, "snapshot %s: option '%s' needs an argument",
						cmd, argv[optind - 1]);
		return nctl_usage_error(c, "snapshot %s: unknown option '%s'",
					cmd, argv[optind - 1]);
	}
	return -1;
}

static int fail(struct nctl *c, const char *what, const struct nova_err *e)
{
	if (e->from_kernel)
		return nctl_error(c, NCTL_EXIT_FAIL, e->err, "%s: %s", what,
				  e->msg);
	return nctl_error_nova(c, e);
}

static int snapshot_create(struct nctl *c, int argc, char **argv)
{
	const char *name = NULL;
	struct nova_snapshot_rec sn;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	int r;

	r = parse_opts(c, argc, argv, "create", snapshot_create_help, &name,
		       NULL);
	if (r >= 0)
		return r;
	if (argc - optind != 1)
		return nctl_usage_error(c, "snapshot create: need exactly one PATH");
	if (name && strlen(name) >= NOVA_GENL_SNAPSHOT_NAME_LEN)
		return nctl_usage_error(c, "snapshot create: name is longer than %d bytes",
					NOVA_GENL_SNAPSHOT_NAME_LEN - 1);
	if (nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (nova_req_snapshot_create(ipc, &sel, name, &sn, &e)) {
		r = fail(c, argv[optind], &e);
	} else {
		print_one(c, "Created", &sn);
		r = NCTL_EXIT_OK;
	}
	nova_ipc_close(ipc);
	return r;
}

static int snapshot_list(struct nctl *c, int argc, char **argv)
{
	struct nova_snapshot_rec *list = NULL;
	struct json_object *doc, *a;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	size_t n = 0, i;
	char t[64], x[32];
	int r;

	r = parse_opts(c, argc, argv, "list", snapshot_list_help, NULL, NULL);
	if (r >= 0)
		return r;
	if (argc - optind != 1)
		return nctl_usage_error(c, "snapshot list: need exactly one PATH");
	if (nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (nova_req_snapshot_list(ipc, &sel, &list, &n, &e)) {
		r = fail(c, argv[optind], &e);
		goto out;
	}
	r = NCTL_EXIT_OK;
	if (c->json) {
		doc = nctl_json_doc();
		a = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(a, nctl_json_snapshot(&list[i]));
		json_object_object_add(doc, "snapshots", a);
		nctl_json_print(c, doc);
		json_object_put(doc);
		goto out;
	}
	if (!n)
		goto out;
	printf("%-6s %-8s %-20s %-10s %s\n", "ID", "EPOCH", "CREATED",
	       "EXCLUSIVE", "NAME");
	for (i = 0; i < n; i++) {
		fmt_ctime(list[i].ctime_ns, t, sizeof(t));
		nctl_fmt_bytes(list[i].excl_blocks * NOVA_BLOCK, x, sizeof(x));
		printf("%-6llu %-8llu %-20s %-10s %s\n",
		       (unsigned long long)list[i].snap_id,
		       (unsigned long long)list[i].epoch, t,
		       list[i].has_excl ? x : "-",
		       list[i].name[0] ? list[i].name : "-");
	}
out:
	free(list);
	nova_ipc_close(ipc);
	return r;
}

static int snapshot_delete(struct nctl *c, int argc, char **argv)
{
	struct nova_snapshot_rec sn;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	uint64_t id = 0;
	const char *which;
	bool wait = false;
	int r;

	r = parse_opts(c, argc, argv, "delete", snapshot_delete_help, NULL,
		       &wait);
	if (r >= 0)
		return r;
	if (argc - optind != 2)
		return nctl_usage_error(c, "snapshot delete: need PATH and ID or NAME");
	which = argv[optind + 1];
	/* Names are never all digits, so digits are an id. */
	if (which[strspn(which, "0123456789")] == '\0' &&
	    (nctl_parse_uint(which, UINT64_MAX, &id) || !id))
		return nctl_usage_error(c, "snapshot delete: bad id '%s'", which);
	if (nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (nova_req_snapshot_delete(ipc, &sel, id, which, wait, &sn, &e)) {
		r = fail(c, which, &e);
	} else {
		print_one(c, "Deleted", &sn);
		r = NCTL_EXIT_OK;
	}
	nova_ipc_close(ipc);
	return r;
}

static const struct nctl_cmd snapshot_cmds[] = {
	{ "create", snapshot_create, "[-n NAME] PATH", "take a snapshot" },
	{ "list",   snapshot_list,   "PATH",              "list live snapshots" },
	{ "delete", snapshot_delete, "[-w] PATH ID|NAME", "delete a snapshot" },
	{ "restore", nctl_snapshot_restore, "[-t DEST] PATH SNAP FILE...",
	  "copy files back out of a snapshot" },
	{ "diff",   nctl_snapshot_diff, "PATH OLD [NEW]",
	  "paths created, deleted, modified, renamed since OLD" },
};

#define N_SNAPSHOT_CMDS (sizeof(snapshot_cmds) / sizeof(snapshot_cmds[0]))

static void snapshot_help(FILE *f)
{
	fprintf(f, "Usage: novactl snapshot COMMAND [ARGS]\n\nCommands:\n");
	nctl_print_cmds(f, "  ", snapshot_cmds, N_SNAPSHOT_CMDS);
	fprintf(f, "\nCOMMAND --help for details.\n");
}

int nctl_cmd_snapshot(struct nctl *c, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		snapshot_help(argc < 2 ? stderr : stdout);
		return argc < 2 ? NCTL_EXIT_USAGE : NCTL_EXIT_OK;
	}
	return nctl_dispatch(c, "snapshot command", snapshot_cmds,
			     N_SNAPSHOT_CMDS, argc - 1, argv + 1);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl fs: mounted NOVA file systems.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "novactl.h"

static void fs_list_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl fs list [-j|--json] [-p|--pretty]\n"
		"\n"
		"List the mounted NOVA file systems: device number, block device,\n"
		"UUID, label, read-only state and mount points.\n");
}

static void fs_print_human(const struct nova_fs_info *list, size_t n)
{
	size_t i, j;

	if (!n)
		return;
	printf("%-9s %-10s %-36s %-16s %-2s %s\n", "DEVICE", "BDEV", "UUID",
	       "LABEL", "RO", "MOUNTPOINT");
	for (i = 0; i < n; i++) {
		const struct nova_fs_info *fi = &list[i];
		char *mnts[NCTL_MAX_MNTS];
		char dev[32], uuid[37];
		size_t nm = nctl_mnts(fi->id.dev, mnts);

		nctl_fmt_dev(fi->id.dev, dev, sizeof(dev));
		nova_uuid_format(fi->id.uuid, uuid);
		printf("%-9s %-10s %-36s %-16s %-2s ", dev, fi->id.bdev, uuid,
		       fi->id.label[0] ? fi->id.label : "-",
		       fi->read_only ? "ro" : "rw");
		for (j = 0; j < nm; j++)
			printf("%s%s", j ? "," : "", mnts[j]);
		printf("%s\n", nm ? "" : "-");
		nctl_mnts_free(mnts, nm);
	}
}

static void fs_print_json(struct nctl *c, const struct nova_fs_info *list,
			  size_t n)
{
	struct json_object *doc = nctl_json_doc();
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		char *mnts[NCTL_MAX_MNTS];
		size_t nm = nctl_mnts(list[i].id.dev, mnts);

		json_object_array_add(a, nctl_json_fs_info(&list[i], mnts, nm));
		nctl_mnts_free(mnts, nm);
	}
	json_object_object_add(doc, "filesystems", a);
	nctl_json_print(c, doc);
	json_object_put(doc);
}

static int fs_list(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct nova_fs_info *list = NULL;
	struct nova_ipc *ipc;
	struct nova_err e;
	size_t n = 0;
	int opt, r;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT, opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			fs_list_help(stdout);
			return NCTL_EXIT_OK;
		}
		return nctl_usage_error(c, "fs list: unknown option '%s'",
					argv[optind - 1]);
	}
	if (optind < argc)
		return nctl_usage_error(c, "fs list: unexpected argument '%s'",
					argv[optind]);

	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (nova_req_fs_list(ipc, &list, &n, &e)) {
		r = nctl_error_nova(c, &e);
	} else {
		if (c->json)
			fs_print_json(c, list, n);
		else
			fs_print_human(list, n);
		r = NCTL_EXIT_OK;
	}
	free(list);
	nova_ipc_close(ipc);
	return r;
}

static const struct nctl_cmd fs_cmds[] = {
	{ "list", fs_list, "", "list mounted NOVA file systems" },
};

static void fs_help(FILE *f)
{
	fprintf(f, "Usage: novactl fs COMMAND [ARGS]\n\nCommands:\n");
	nctl_print_cmds(f, "  ", fs_cmds, sizeof(fs_cmds) / sizeof(fs_cmds[0]));
	fprintf(f, "\nWithout a command, 'list'. COMMAND --help for details.\n");
}

int nctl_cmd_fs(struct nctl *c, int argc, char **argv)
{
	char *list_argv[] = { "list", NULL };

	if (argc < 2)
		return fs_list(c, 1, list_argv);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fs_help(stdout);
		return NCTL_EXIT_OK;
	}
	if (argv[1][0] == '-')	/* options without a command: list */
		return fs_list(c, argc, argv);
	return nctl_dispatch(c, "fs command", fs_cmds,
			     sizeof(fs_cmds) / sizeof(fs_cmds[0]),
			     argc - 1, argv + 1);
}

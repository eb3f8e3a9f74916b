// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl gc: collect the logs of a mounted NOVA file system now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "novactl.h"

static void gc_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl gc [-j|--json] [-p|--pretty] [-i|--inode INO] PATH\n"
		"\n"
		"Garbage-collect the logs of the NOVA file system holding PATH (a\n"
		"file in it, its block device, MAJOR:MINOR or its UUID): free the log\n"
		"pages whose entries are all superseded and copy sparse logs to fresh\n"
		"pages. With --inode, only the log of inode INO (its st_ino), else the\n"
		"root directory and every inode whose log has more than one page.\n"
		"The kernel also does this by itself as logs grow. Needs CAP_NET_ADMIN\n"
		"and CAP_SYS_ADMIN.\n");
}

static void gc_print(struct nctl *c, const struct nova_gc_report *r)
{
	struct json_object *doc;
	char t[32];

	if (!c->json) {
		if (r->ino)
			printf("Collected inode %llu of %s\n",
			       (unsigned long long)r->ino, r->id.bdev);
		else
			printf("Collected %s\n", r->id.bdev);
		nctl_kv(2, "Inodes", "%llu", (unsigned long long)r->inodes);
		nctl_kv(2, "Log pages", "%llu -> %llu",
			(unsigned long long)r->log_pages_before,
			(unsigned long long)r->log_pages_after);
		nctl_kv(2, "Fast GC pages", "%llu",
			(unsigned long long)r->fast_pages);
		nctl_kv(2, "Logs rewritten", "%llu",
			(unsigned long long)r->thorough_runs);
		nctl_kv(2, "Entries copied", "%llu",
			(unsigned long long)r->entries_copied);
		nctl_kv(2, "Time", "%s", nctl_fmt_ns(r->time_ns, t, sizeof(t)));
		return;
	}
	doc = nctl_json_gc(r);
	nctl_json_print(c, doc);
	json_object_put(doc);
}

int nctl_cmd_gc(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "inode",	required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct nova_gc_report r;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	uint64_t ino = 0;
	int opt, ret;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT "i:", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			gc_help(stdout);
			return NCTL_EXIT_OK;
		}
		if (opt == 'i') {
			if (nctl_parse_uint(optarg, UINT64_MAX, &ino) || !ino)
				return nctl_usage_error(c, "gc: --inode needs an inode number >= 1, not '%s'",
							optarg);
			continue;
		}
		if (opt == ':')
			return nctl_usage_error(c, "gc: option '%s' needs an argument",
						argv[optind - 1]);
		return nctl_usage_error(c, "gc: unknown option '%s'",
					argv[optind - 1]);
	}
	if (argc - optind != 1)
		return nctl_usage_error(c, "gc: need exactly one PATH");
	if (nova_sel_parse(argv[optind], &sel, &e))
		return nctl_error_nova(c, &e);
	ret = nctl_ipc_open(c, &ipc);
	if (ret)
		return ret;
	if (nova_req_gc(ipc, &sel, ino, &r, &e)) {
		if (e.from_kernel)
			ret = nctl_error(c, NCTL_EXIT_FAIL, e.err, "%s: %s",
					 argv[optind], e.msg);
		else
			ret = nctl_error_nova(c, &e);
	} else {
		gc_print(c, &r);
		ret = NCTL_EXIT_OK;
	}
	nova_ipc_close(ipc);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl debug inject: a test tool that damages one on-media object of a
 * mounted NOVA file system, to prove detection and repair.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "novactl.h"

static void inject_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl debug inject [-j|--json] TARGET --ino N --offset N\n"
		"                            [--copy N] PATH\n"
		"\n"
		"TEST TOOL: flip bytes of one object of the NOVA file system holding\n"
		"PATH on the media, behind the file system's back. TARGET is super,\n"
		"inode, log-entry, log-tail, data, csum or parity. --ino names the\n"
		"inode (st_ino; ignored for super); --offset selects the object: the\n"
		"byte in the superblock or inode slot, the index of the log entry or\n"
		"log page, or a byte offset in the file for data, csum and parity;\n"
		"--copy 1 hits the replica where there is one. Works only with the\n"
		"test build of nova.ko (make module-test) loaded with inject=1.\n"
		"Needs CAP_NET_ADMIN and CAP_SYS_ADMIN.\n");
}

static int debug_inject(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "ino",	required_argument, NULL, 'i' },
		{ "offset",	required_argument, NULL, 'o' },
		{ "copy",	required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t ino = 0, off = 0, copy = 0;
	bool have_ino = false, have_off = false;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	int opt, r, target;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT "i:o:c:", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		switch (opt) {
		case 'h':
			inject_help(stdout);
			return NCTL_EXIT_OK;
		case 'i':
			if (nctl_parse_uint(optarg, UINT64_MAX, &ino))
				return nctl_usage_error(c, "debug inject: --ino needs a number, not '%s'",
							optarg);
			have_ino = true;
			break;
		case 'o':
			if (nctl_parse_uint(optarg, UINT64_MAX, &off))
				return nctl_usage_error(c, "debug inject: --offset needs a number, not '%s'",
							optarg);
			have_off = true;
			break;
		case 'c':
			if (nctl_parse_uint(optarg, 1, &copy))
				return nctl_usage_error(c, "debug inject: --copy is 0 or 1, not '%s'",
							optarg);
			break;
		case ':':
			return nctl_usage_error(c, "debug inject: option '%s' needs an argument",
						argv[optind - 1]);
		default:
			return nctl_usage_error(c, "debug inject: unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return nctl_usage_error(c, "debug inject: need TARGET and PATH");
	target = nova_inject_target_parse(argv[optind]);
	if (target < 0)
		return nctl_usage_error(c, "debug inject: unknown target '%s' (super, inode, log-entry, log-tail, data, csum, parity)",
					argv[optind]);
	if (!have_off || (!have_ino && target != NOVA_INJECT_SUPER))
		return nctl_usage_error(c, "debug inject: need --ino and --offset");
	if (nova_sel_parse(argv[optind + 1], &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (nova_req_inject(ipc, &sel, (uint32_t)target, ino, off, (uint32_t)copy,
			&e)) {
		if (e.err == -EOPNOTSUPP && !e.from_kernel)
			r = nctl_error(c, NCTL_EXIT_FAIL, e.err,
				       "this nova.ko has no corruption injector: it is a production build (the test build, 'make module-test', has it)");
		else
			r = e.from_kernel ?
			    nctl_error(c, NCTL_EXIT_FAIL, e.err, "%s: %s",
				       argv[optind + 1], e.msg) :
			    nctl_error_nova(c, &e);
	} else if (c->json) {
		struct json_object *doc = nctl_json_doc();
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "target",
				       json_object_new_string(nova_inject_target_name((uint32_t)target)));
		json_object_object_add(o, "inode", json_object_new_uint64(ino));
		json_object_object_add(o, "offset", json_object_new_uint64(off));
		json_object_object_add(o, "copy", json_object_new_uint64(copy));
		json_object_object_add(doc, "inject", o);
		nctl_json_print(c, doc);
		json_object_put(doc);
		r = NCTL_EXIT_OK;
	} else {
		printf("Injected %s corruption: inode %llu offset %llu copy %llu\n",
		       nova_inject_target_name((uint32_t)target),
		       (unsigned long long)ino, (unsigned long long)off,
		       (unsigned long long)copy);
		r = NCTL_EXIT_OK;
	}
	nova_ipc_close(ipc);
	return r;
}

static const struct nctl_cmd debug_cmds[] = {
	{ "inject", debug_inject, "TARGET --ino N --offset N [--copy N] PATH",
	  "test tool: damage one object on the media" },
};

#define N_DEBUG_CMDS (sizeof(debug_cmds) / sizeof(debug_cmds[0]))

int nctl_cmd_debug(struct nctl *c, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		FILE *f = argc < 2 ? stderr : stdout;

		fprintf(f, "Usage: novactl debug COMMAND [ARGS]\n\nCommands:\n");
		nctl_print_cmds(f, "  ", debug_cmds, N_DEBUG_CMDS);
		return argc < 2 ? NCTL_EXIT_USAGE : NCTL_EXIT_OK;
	}
	return nctl_dispatch(c, "debug command", debug_cmds, N_DEBUG_CMDS,
			     argc - 1, argv + 1);
}

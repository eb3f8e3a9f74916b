// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl: control NOVA file systems. This file is only the command table;
 * each object lives in its own file, the grammar in cli.c.
 */
#include "novactl.h"

static int help(struct nctl *c, int argc, char **argv);

static const struct nctl_cmd objects[] = {
	{ "fs",      nctl_cmd_fs,      "list",
	  "mounted NOVA file systems" },
	{ "stats",   nctl_cmd_stats,   "[PATH|DEV|UUID]",
	  "statistics of one or every file system" },
	{ "snapshot", nctl_cmd_snapshot, "create|list|delete ...",
	  "take, list and delete snapshots" },
	{ "gc",      nctl_cmd_gc,      "[--inode INO] PATH",
	  "garbage-collect the logs now" },
	{ "scrub",   nctl_cmd_scrub,   "start|stop|status ...",
	  "verify and repair everything on the media" },
	{ "debug",   nctl_cmd_debug,   "inject ...",
	  "test tools (corruption injector)" },
	{ "monitor", nctl_cmd_monitor, "[--count N]",
	  "print notifications as they arrive" },
	{ "help",    help,             "",
	  "show this help" },
};

#define N_OBJECTS (sizeof(objects) / sizeof(objects[0]))

static int help(struct nctl *c, int argc, char **argv)
{
	char *h[] = { "novactl", "--help", NULL };

	(void)c;
	if (argc > 1) {
		char *sub[] = { argv[1], "--help", NULL };

		return nctl_dispatch(c, "object", objects, N_OBJECTS, 2, sub);
	}
	(void)argv;
	return nctl_main(2, h, objects, N_OBJECTS);
}

int main(int argc, char **argv)
{
	return nctl_main(argc, argv, objects, N_OBJECTS);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fsck.NOVA: check a NOVA file system offline.
 *
 *   fsck.NOVA [-n] [-y|-p|-a] [-f] [-v] [-C FD] DEVICE|FILE
 *
 * Exit status as fsck(8): 0 clean, 1 errors corrected, 4 errors left,
 * 8 operational error, 16 usage, 32 cancelled.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "fsck.h"

extern volatile sig_atomic_t fsck_interrupted;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsck.NOVA [-n] [-y|-p|-a] [-f] [-v] [-C FD] DEVICE|FILE\n"
		"  -n     check only, change nothing (default)\n"
		"  -y     repair what can be repaired safely\n"
		"  -p, -a preen: repair safely, skip a clean file system\n"
		"  -f     check even if the file system is clean\n"
		"  -v     verbose (twice: more)\n"
		"  -C FD  progress: 0 a bar on stdout, else lines for fsck(8) on FD\n");
}

/* -C FD as e2fsck takes it (also glued: -C0); FD must be open. */
static int parse_progress_fd(const char *arg, struct fsck_opts *o)
{
	char *end;
	long fd;

	errno = 0;
	fd = strtol(arg, &end, 10);
	if (errno || end == arg || *end || fd < 0 || fd > INT_MAX) {
		fprintf(stderr, "fsck.NOVA: -C needs a file descriptor number, not '%s'\n", arg);
		return -1;
	}
	if (fd > 0 && fcntl((int)fd, F_GETFD) < 0) {
		fprintf(stderr, "fsck.NOVA: -C %ld: file descriptor %ld is not open\n", fd, fd);
		return -1;
	}
	o->progress = true;
	o->progress_fd = (int)fd;
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	fsck_interrupted = 1;
}

int main(int argc, char **argv)
{
	struct fsck_opts o = { .mode = FSCK_NO_CHANGES, .out = stdout };
	bool no = false, yes = false, preen = false;
	struct nova_dev dev;
	char where[4096];
	struct nerr e;
	int c, st, m;

	while ((c = getopt(argc, argv, "nypafvC:hV")) != -1) {
		switch (c) {
		case 'n': no = true; break;
		case 'y': yes = true; break;
		case 'p': case 'a': preen = true; break;
		case 'f': o.force = true; break;
		case 'v': o.verbose++; break;
		case 'C':
			if (parse_progress_fd(optarg, &o))
				return FSCK_USAGE;
			break;
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("fsck.NOVA for NOVA format %u.%u\n",
			       NOVA_FORMAT_MAJOR, NOVA_FORMAT_MINOR);
			return 0;
		default: usage(stderr); return FSCK_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return FSCK_USAGE;
	}
	if (no + yes + preen > 1) {
		fprintf(stderr, "fsck.NOVA: -n, -y and -p/-a exclude each other\n");
		return FSCK_USAGE;
	}
	if (yes)
		o.mode = FSCK_YES;
	else if (preen)
		o.mode = FSCK_PREEN;

	m = ndev_mounted(argv[optind], where, sizeof(where));
	if (m == 1) {
		if (o.mode != FSCK_NO_CHANGES) {
			fprintf(stderr, "fsck.NOVA: %s is mounted on %s: refusing to repair a mounted file system\n",
				argv[optind], where);
			return FSCK_OPERATIONAL;
		}
		fprintf(stderr, "fsck.NOVA: warning: %s is mounted on %s; results may be inconsistent\n",
			argv[optind], where);
	}
	if (ndev_open(&dev, argv[optind],
		      o.mode == FSCK_NO_CHANGES ? 0 : NDEV_WRITE | NDEV_EXCL,
		      &e)) {
		fprintf(stderr, "fsck.NOVA: %s\n", e.msg);
		return FSCK_OPERATIONAL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	st = fsck_run(&dev, &o);
	ndev_close(&dev);
	return st;
}

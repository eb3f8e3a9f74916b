// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl: command-line grammar "novactl [OPTIONS] OBJECT COMMAND [ARGS]",
 * global and common options, dispatch and help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "novactl.h"

void nctl_getopt_reset(void)
{
	optind = 0;	/* glibc: full reinitialisation */
	opterr = 0;	/* we report errors ourselves */
}

int nctl_common_opt(struct nctl *c, int opt)
{
	switch (opt) {
	case 'j':
		c->json = true;
		return 1;
	case 'p':
		c->json = true;
		c->pretty = true;
		return 1;
	}
	return 0;
}

int nctl_parse_uint(const char *s, uint64_t max, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	if (v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

static void nctl_global_help(const struct nctl *c, FILE *f,
			     const struct nctl_cmd *cmds, size_t n)
{
	fprintf(f,
		"Usage: %s [OPTIONS] OBJECT COMMAND [ARGS]\n"
		"       %s OBJECT --help\n"
		"\n"
		"Control mounted NOVA file systems through generic netlink.\n"
		"\n"
		"Objects:\n", c->prog, c->prog);
	nctl_print_cmds(f, "  ", cmds, n);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -j, --json     print JSON (one document; monitor: one per line)\n"
		"  -p, --pretty   print indented JSON (implies --json)\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the program and protocol version\n"
		"\n"
		"Exit status: 0 success, 1 failure, 2 usage error,\n"
		"3 NOVA not available (nova.ko not loaded).\n");
}

void nctl_print_cmds(FILE *f, const char *prefix, const struct nctl_cmd *cmds,
		     size_t n)
{
	char head[64];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(head, sizeof(head), "%s%s%s", cmds[i].name,
			 cmds[i].args && *cmds[i].args ? " " : "",
			 cmds[i].args ? cmds[i].args : "");
		fprintf(f, "%s%-24s %s\n", prefix, head, cmds[i].summary);
	}
}

/*
 * Parse the global options in front of OBJECT. Returns the index of OBJECT
 * in ARGV (argc if there is none), NCTL_GLOBAL_HELP or NCTL_GLOBAL_VERSION
 * when those were asked for, or -NCTL_EXIT_USAGE after reporting an error.
 */
int nctl_parse_global(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	nctl_getopt_reset();
	/* "+": stop at OBJECT, whose options are its own. */
	while ((opt = getopt_long(argc, argv, "+" NCTL_COMMON_SHORT "V", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		switch (opt) {
		case 'h':
			return NCTL_GLOBAL_HELP;
		case 'V':
			return NCTL_GLOBAL_VERSION;
		default:
			nctl_usage_error(c, "unknown option '%s'",
					 argv[optind - 1]);
			return -NCTL_EXIT_USAGE;
		}
	}
	return optind;
}

const struct nctl_cmd *nctl_find_cmd(const struct nctl_cmd *cmds, size_t n,
				     const char *name, bool *ambiguous)
{
	const struct nctl_cmd *found = NULL;
	size_t i, len = strlen(name);

	*ambiguous = false;
	if (!len)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
		if (!strncmp(cmds[i].name, name, len)) {
			if (found)
				*ambiguous = true;
			found = &cmds[i];
		}
	}
	return *ambiguous ? NULL : found;
}

int nctl_dispatch(struct nctl *c, const char *what,
		  const struct nctl_cmd *cmds, size_t n, int argc, char **argv)
{
	const struct nctl_cmd *cmd;
	bool ambiguous;

	if (argc < 1)
		return nctl_usage_error(c, "missing %s (try --help)", what);
	cmd = nctl_find_cmd(cmds, n, argv[0], &ambiguous);
	if (!cmd)
		return nctl_usage_error(c, "%s %s '%s' (try --help)",
					ambiguous ? "ambiguous" : "unknown",
					what, argv[0]);
	return cmd->fn(c, argc, argv);
}

int nctl_main(int argc, char **argv, const struct nctl_cmd *cmds, size_t n)
{
	struct nctl c = { .prog = "novactl" };
	int first;

	first = nctl_parse_global(&c, argc, argv);
	if (first == NCTL_GLOBAL_HELP) {
		nctl_global_help(&c, stdout, cmds, n);
		return NCTL_EXIT_OK;
	}
	if (first == NCTL_GLOBAL_VERSION) {
		printf("novactl %s (nova genl protocol %d, JSON schema %d)\n",
		       NOVACTL_VERSION, NOVA_GENL_VERSION, NOVACTL_JSON_VERSION);
		return NCTL_EXIT_OK;
	}
	if (first < 0)
		return -first;
	if (first >= argc) {
		nctl_global_help(&c, stderr, cmds, n);
		return NCTL_EXIT_USAGE;
	}
	return nctl_dispatch(&c, "object", cmds, n, argc - first, argv + first);
}

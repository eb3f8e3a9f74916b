// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl scrub: start, pause and watch the online integrity scrub of a
 * mounted NOVA file system.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "novactl.h"

/* How often --wait polls the status. */
#define SCRUB_POLL_MS	200

static void scrub_start_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl scrub start [-j|--json] [-p|--pretty] [-b|--bandwidth RATE]\n"
		"                           [-r|--restart] [-w|--wait] PATH\n"
		"\n"
		"Start an integrity scrub of the NOVA file system holding PATH (a file\n"
		"in it, its block device, MAJOR:MINOR or its UUID), or resume the paused\n"
		"one. The kernel reads every superblock copy, journal and inode-table\n"
		"record, inode, log page and data block, checks their checksums and\n"
		"repairs what it can. RATE limits the reading in bytes per second, with\n"
		"an optional K, M or G suffix (powers of 1024), 0 for no limit (the\n"
		"default for a new pass; a resumed pass keeps its limit). --restart\n"
		"begins a new pass even if one is paused. --wait returns when the pass\n"
		"ends and prints its result, showing progress, rate and time left on\n"
		"standard error meanwhile (one line updated in place on a terminal,\n"
		"else a line every 5 seconds; none with --json). Needs CAP_NET_ADMIN\n"
		"and CAP_SYS_ADMIN.\n");
}

static void scrub_stop_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl scrub stop [-j|--json] [-p|--pretty] PATH\n"
		"\n"
		"Pause the running scrub of the NOVA file system holding PATH; \"scrub\n"
		"start\" resumes it where it stopped. Needs CAP_NET_ADMIN and CAP_SYS_ADMIN.\n");
}

static void scrub_status_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl scrub status [-j|--json] [-p|--pretty] PATH\n"
		"\n"
		"Show the state, progress, average rate, time left (while running) and\n"
		"findings of the current or last scrub of the NOVA file system holding\n"
		"PATH. Exit status 1 if it found damage it could not repair.\n");
}

int nctl_parse_rate(const char *s, uint64_t *bps)
{
	uint64_t v, mul = 1;
	char num[32];
	size_t len;

	if (!s || !*s)
		return -EINVAL;
	len = strlen(s);
	if (len >= sizeof(num))
		return -ERANGE;
	memcpy(num, s, len + 1);
	switch (num[len - 1]) {
	case 'k': case 'K':
		mul = 1ULL << 10;
		break;
	case 'm': case 'M':
		mul = 1ULL << 20;
		break;
	case 'g': case 'G':
		mul = 1ULL << 30;
		break;
	default:
		break;
	}
	if (mul != 1)
		num[--len] = '\0';
	if (nctl_parse_uint(num, UINT64_MAX / mul, &v))
		return -EINVAL;
	*bps = v * mul;
	return 0;
}

/* "1h02m", "3m05s", "12s" */
static const char *fmt_secs(double secs, char *buf, size_t len)
{
	unsigned long long s = (unsigned long long)(secs + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%lluh%02llum", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%llum%02llus", s / 60, s % 60);
	else
		snprintf(buf, len, "%llus", s);
	return buf;
}

static double scrub_pct(const struct nova_scrub_info *si)
{
	double pct = si->bytes_total ? 100.0 * (double)si->bytes_scanned /
				       (double)si->bytes_total : 0;

	return pct > 100 ? 100 : pct;
}

static void scrub_print(struct nctl *c, const char *what,
			const struct nova_scrub_info *si)
{
	struct json_object *doc;
	char a[32], b[32], t[40];
	double pct, rate, eta;
	size_t i;

	if (c->json) {
		doc = nctl_json_scrub(si);
		nctl_json_print(c, doc);
		json_object_put(doc);
		return;
	}
	if (what)
		printf("%s %s\n", what, si->id.bdev);
	pct = scrub_pct(si);
	nctl_kv(2, "State", "%s", nova_scrub_state_name(si->state));
	if (si->err)
		nctl_kv(2, "Ended by", "%s", strerror((int)si->err));
	nctl_kv(2, "Scanned", "%s of %s (%.1f%%)",
		nctl_fmt_bytes(si->bytes_scanned, a, sizeof(a)),
		nctl_fmt_bytes(si->bytes_total, b, sizeof(b)), pct);
	if (nctl_scrub_rate(si, nctl_now_ns(), &rate, &eta)) {
		nctl_kv(2, "Rate", "%s/s (average %s)",
			nctl_fmt_bytes((uint64_t)rate, a, sizeof(a)),
			si->has_run ? "while running" :
			si->state == NOVA_SCRUB_PAUSED ?
			"since the start, pauses included" : "since the start");
		if (eta >= 0)
			nctl_kv(2, "Time left", "%s (at that rate)",
				fmt_secs(eta, t, sizeof(t)));
	}
	if (si->bandwidth)
		nctl_kv(2, "Bandwidth", "%s/s",
			nctl_fmt_bytes(si->bandwidth, a, sizeof(a)));
	else
		nctl_kv(2, "Bandwidth", "unlimited");
	nctl_kv(2, "Inodes", "%llu", (unsigned long long)si->inodes_scanned);
	nctl_kv(2, "Metadata checked", "%llu",
		(unsigned long long)si->meta_checked);
	nctl_kv(2, "Data checked", "%llu",
		(unsigned long long)si->data_checked);
	nctl_kv(2, "Errors", "%llu (repaired %llu, unrecoverable %llu)",
		(unsigned long long)si->errors,
		(unsigned long long)si->repaired,
		(unsigned long long)si->unrecoverable);
	if (si->start_ns)
		nctl_kv(2, "Started", "%s",
			nctl_fmt_time(si->start_ns, t, sizeof(t)));
	if (si->finish_ns)
		nctl_kv(2, "Finished", "%s",
			nctl_fmt_time(si->finish_ns, t, sizeof(t)));
	for (i = 0; i < si->n_bad; i++)
		printf("    bad %-11s inode %llu offset %llu: %s\n",
		       nova_corruption_kind_name(si->bad[i].kind),
		       (unsigned long long)si->bad[i].ino,
		       (unsigned long long)si->bad[i].offset,
		       si->bad[i].repaired ? "repaired" : "not repairable");
	if (si->bad_dropped)
		printf("    ... and %llu more\n",
		       (unsigned long long)si->bad_dropped);
	if (si->events_suppressed)
		printf("    %llu corruption events suppressed (rate limit)\n",
		       (unsigned long long)si->events_suppressed);
}

/* Exit status of a shown status: damage left behind is a failure. */
static int scrub_exit(const struct nova_scrub_info *si)
{
	return si->unrecoverable ? NCTL_EXIT_FAIL : NCTL_EXIT_OK;
}

static int scrub_fail(struct nctl *c, const char *path,
		      const struct nova_err *e)
{
	if (e->from_kernel)
		return nctl_error(c, NCTL_EXIT_FAIL, e->err, "%s: %s", path,
				  e->msg);
	return nctl_error_nova(c, e);
}

/* Options of the scrub commands. */
struct scrub_opts {
	bool set_bw;
	uint64_t bw;
	bool restart;
	bool wait;
	const char *path;
};

/* Parse ARGV; ALLOWED is the getopt string of extra short options. */
static int scrub_parse(struct nctl *c, int argc, char **argv,
		       const char *allowed, void (*help)(FILE *),
		       struct scrub_opts *o)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "bandwidth",	required_argument, NULL, 'b' },
		{ "restart",	no_argument,       NULL, 'r' },
		{ "wait",	no_argument,       NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	char shorts[32];
	int opt;

	memset(o, 0, sizeof(*o));
	snprintf(shorts, sizeof(shorts), "%s%s", NCTL_COMMON_SHORT, allowed);
	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		if (opt == 'h') {
			help(stdout);
			return -1;
		}
		if (opt == ':')
			return nctl_usage_error(c, "scrub %s: option '%s' needs an argument",
						argv[0], argv[optind - 1]);
		if (opt == '?' || !strchr(allowed, opt))
			return nctl_usage_error(c, "scrub %s: unknown option '%s'",
						argv[0], argv[optind - 1]);
		if (opt == 'b') {
			if (nctl_parse_rate(optarg, &o->bw))
				return nctl_usage_error(c, "scrub %s: --bandwidth needs a rate such as 64M, not '%s'",
							argv[0], optarg);
			o->set_bw = true;
		} else if (opt == 'r') {
			o->restart = true;
		} else if (opt == 'w') {
			o->wait = true;
		}
	}
	if (argc - optind != 1)
		return nctl_usage_error(c, "scrub %s: need exactly one PATH",
					argv[0]);
	o->path = argv[optind];
	return 0;
}

/* How often --wait prints a progress line when stderr is no terminal. */
#define SCRUB_LINE_MS	5000

/* One progress line on stderr: in place on a terminal, else a new line. */
static void scrub_progress(const struct nova_scrub_info *si, bool tty)
{
	char a[32], b[32], r[32], t[32];
	double rate, eta;
	bool have = nctl_scrub_rate(si, nctl_now_ns(), &rate, &eta);

	fprintf(stderr, "%sscrub %s: %5.1f%% (%s of %s)", tty ? "\r" : "",
		si->id.bdev, scrub_pct(si),
		nctl_fmt_bytes(si->bytes_scanned, a, sizeof(a)),
		nctl_fmt_bytes(si->bytes_total, b, sizeof(b)));
	if (have)
		fprintf(stderr, ", %s/s", nctl_fmt_bytes((uint64_t)rate, r, sizeof(r)));
	if (eta >= 0)
		fprintf(stderr, ", %s left", fmt_secs(eta, t, sizeof(t)));
	fprintf(stderr, ", %llu errors%s", (unsigned long long)si->errors,
		tty ? "\033[K" : "\n");
	fflush(stderr);
}

static int scrub_wait(struct nova_ipc *ipc, const struct nova_sel *sel,
		      bool show, struct nova_scrub_info *si,
		      struct nova_err *e)
{
	struct timespec ts = { 0, SCRUB_POLL_MS * 1000000L };
	bool tty = isatty(STDERR_FILENO);
	unsigned int polls = 0;
	int err = 0;

	while (si->state == NOVA_SCRUB_RUNNING) {
		if (show && (tty || polls % (SCRUB_LINE_MS / SCRUB_POLL_MS) == 0))
			scrub_progress(si, tty);
		polls++;
		nanosleep(&ts, NULL);
		err = nova_req_scrub_status(ipc, sel, si, e);
		if (err)
			break;
	}
	if (show && polls) {
		if (!err)
			scrub_progress(si, tty);
		if (tty)
			fputc('\n', stderr);
	}
	return err;
}

/* What one scrub command does once its file system is selected. */
struct scrub_action {
	const char *allowed;		/* extra short options */
	void (*help)(FILE *f);
	/* The request (and any waiting); 0 or -errno with E filled in. */
	int (*call)(struct nctl *c, struct nova_ipc *ipc,
		    const struct nova_sel *sel, const struct scrub_opts *o,
		    struct nova_scrub_info *si, struct nova_err *e);
	const char *heading;		/* of the status shown */
	const char *wait_heading;	/* instead, after --wait */
	bool judge;			/* exit status from the findings */
};

/* parse -> select -> open -> request -> print -> close, for every command. */
static int scrub_run(struct nctl *c, int argc, char **argv,
		     const struct scrub_action *a)
{
	struct nova_scrub_info si;
	struct scrub_opts o;
	struct nova_ipc *ipc;
	struct nova_sel sel;
	struct nova_err e;
	int r;

	r = scrub_parse(c, argc, argv, a->allowed, a->help, &o);
	if (r)
		return r < 0 ? NCTL_EXIT_OK : r;
	if (nova_sel_parse(o.path, &sel, &e))
		return nctl_error_nova(c, &e);
	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (a->call(c, ipc, &sel, &o, &si, &e)) {
		r = scrub_fail(c, o.path, &e);
	} else {
		scrub_print(c, o.wait ? a->wait_heading : a->heading, &si);
		r = (a->judge || o.wait) ? scrub_exit(&si) : NCTL_EXIT_OK;
	}
	nova_ipc_close(ipc);
	return r;
}

static int scrub_start_call(struct nctl *c, struct nova_ipc *ipc,
			    const struct nova_sel *sel,
			    const struct scrub_opts *o,
			    struct nova_scrub_info *si, struct nova_err *e)
{
	int err = nova_req_scrub_start(ipc, sel, o->set_bw, o->bw, o->restart, si,
				   e);

	return err || !o->wait ? err : scrub_wait(ipc, sel, !c->json, si, e);
}

static int scrub_stop_call(struct nctl *c, struct nova_ipc *ipc,
			   const struct nova_sel *sel,
			   const struct scrub_opts *o,
			   struct nova_scrub_info *si, struct nova_err *e)
{
	(void)c;
	(void)o;
	return nova_req_scrub_stop(ipc, sel, si, e);
}

static int scrub_status_call(struct nctl *c, struct nova_ipc *ipc,
			     const struct nova_sel *sel,
			     const struct scrub_opts *o,
			     struct nova_scrub_info *si, struct nova_err *e)
{
	(void)c;
	(void)o;
	return nova_req_scrub_status(ipc, sel, si, e);
}

static int scrub_start(struct nctl *c, int argc, char **argv)
{
	static const struct scrub_action a = {
		"b:rw", scrub_start_help, scrub_start_call,
		"Scrubbing", "Scrubbed", false,
	};

	return scrub_run(c, argc, argv, &a);
}

static int scrub_stop(struct nctl *c, int argc, char **argv)
{
	static const struct scrub_action a = {
		"", scrub_stop_help, scrub_stop_call, "Paused", NULL, false,
	};

	return scrub_run(c, argc, argv, &a);
}

static int scrub_status(struct nctl *c, int argc, char **argv)
{
	static const struct scrub_action a = {
		"", scrub_status_help, scrub_status_call, "Scrub of", NULL, true,
	};

	return scrub_run(c, argc, argv, &a);
}

static const struct nctl_cmd scrub_cmds[] = {
	{ "start",  scrub_start,  "[-b RATE] [-r] [-w] PATH",
	  "start or resume a scrub" },
	{ "stop",   scrub_stop,   "PATH", "pause the running scrub" },
	{ "status", scrub_status, "PATH", "progress and findings" },
};

#define N_SCRUB_CMDS (sizeof(scrub_cmds) / sizeof(scrub_cmds[0]))

static void scrub_help(FILE *f)
{
	fprintf(f, "Usage: novactl scrub COMMAND [ARGS]\n\nCommands:\n");
	nctl_print_cmds(f, "  ", scrub_cmds, N_SCRUB_CMDS);
	fprintf(f, "\nCOMMAND --help for details.\n");
}

int nctl_cmd_scrub(struct nctl *c, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		scrub_help(argc < 2 ? stderr : stdout);
		return argc < 2 ? NCTL_EXIT_USAGE : NCTL_EXIT_OK;
	}
	return nctl_dispatch(c, "scrub command", scrub_cmds, N_SCRUB_CMDS,
			     argc - 1, argv + 1);
}

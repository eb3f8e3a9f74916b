/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novactl: shared declarations of the command files.
 */
#ifndef NOVACTL_H
#define NOVACTL_H

#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "libnova.h"

#define NOVACTL_VERSION		"0.1"
/* Version of the JSON output schema (the "version" member). */
#define NOVACTL_JSON_VERSION	1

/* Exit status; documented in docs/man/novactl.8. */
enum nctl_exit {
	NCTL_EXIT_OK		= 0,
	NCTL_EXIT_FAIL		= 1,	/* the operation failed */
	NCTL_EXIT_USAGE		= 2,	/* bad command line */
	NCTL_EXIT_NO_NOVA	= 3,	/* no nova family: module not loaded */
};

struct nctl {
	bool json;
	bool pretty;
	const char *prog;
};

/* One OBJECT or COMMAND: ARGV[0] is its own name. Returns an exit status. */
struct nctl_cmd {
	const char *name;
	int (*fn)(struct nctl *c, int argc, char **argv);
	const char *args;		/* synopsis of the arguments */
	const char *summary;
};

/* cli.c */
int nctl_main(int argc, char **argv, const struct nctl_cmd *cmds, size_t n);
#define NCTL_GLOBAL_HELP	(-100)
#define NCTL_GLOBAL_VERSION	(-101)
int nctl_parse_global(struct nctl *c, int argc, char **argv);
const struct nctl_cmd *nctl_find_cmd(const struct nctl_cmd *cmds, size_t n,
				     const char *name, bool *ambiguous);
int nctl_dispatch(struct nctl *c, const char *what,
		  const struct nctl_cmd *cmds, size_t n, int argc, char **argv);
void nctl_print_cmds(FILE *f, const char *prefix, const struct nctl_cmd *cmds,
		     size_t n);
int nctl_parse_uint(const char *s, uint64_t max, uint64_t *val);

/*
 * Options every command accepts: -j/--json, -p/--pretty, -h/--help.
 * Use NCTL_COMMON_OPTS in a getopt_long table and NCTL_COMMON_SHORT in
 * its short options, and pass each option to nctl_common_opt(): it returns
 * 1 if handled, 0 if not one of them. Commands let options and arguments
 * mix ("stats /mnt -j"); "--" ends the options.
 */
#define NCTL_COMMON_SHORT	":jph"
#define NCTL_COMMON_OPTS				\
	{ "json",	no_argument, NULL, 'j' },	\
	{ "pretty",	no_argument, NULL, 'p' },	\
	{ "help",	no_argument, NULL, 'h' }
int nctl_common_opt(struct nctl *c, int opt);
void nctl_getopt_reset(void);

/* output.c */
int nctl_error(struct nctl *c, int status, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int nctl_error_nova(struct nctl *c, const struct nova_err *e);
int nctl_usage_error(struct nctl *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int nctl_ipc_open(struct nctl *c, struct nova_ipc **ipc);
struct json_object *nctl_json_doc(void);
void nctl_json_print(struct nctl *c, struct json_object *doc);
void nctl_kv(int indent, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *nctl_fmt_bytes(uint64_t bytes, char *buf, size_t len);
const char *nctl_fmt_ns(uint64_t ns, char *buf, size_t len);
/* ns since the Unix epoch as ISO 8601 UTC, e.g. 2026-12-03T10:00:00Z. */
const char *nctl_fmt_time(uint64_t ns, char *buf, size_t len);

/* format.c: JSON members of the output schema */
struct json_object *nctl_json_error(int err, const char *msg);
struct json_object *nctl_json_fs_info(const struct nova_fs_info *fi,
				      char **mnts, size_t n_mnts);
struct json_object *nctl_json_stats(const struct nova_stats *st,
				    char **mnts, size_t n_mnts);
struct json_object *nctl_json_event(const struct nova_event *ev,
				    const char *time);
struct json_object *nctl_json_gc(const struct nova_gc_report *r);
struct json_object *nctl_json_corruption(const struct nova_corruption *b);
struct json_object *nctl_json_scrub_status(const struct nova_scrub_info *si);

/*
 * Average rate of the scrub pass SI (bytes/s) over the time it ran
 * (NOVA_SCRUB_A_RUN_TIME; from a kernel without it, over the time since
 * its start, pauses included) and, for a running pass, the seconds left
 * at that rate. False if no pass has started or no time
 * has passed; *ETA is -1 if there is no estimate. NOW_NS: CLOCK_REALTIME.
 */
bool nctl_scrub_rate(const struct nova_scrub_info *si, uint64_t now_ns,
		     double *rate, double *eta);
uint64_t nctl_now_ns(void);
struct json_object *nctl_json_scrub(const struct nova_scrub_info *si);
struct json_object *nctl_json_scrub_event(const struct nova_scrub_event *ev,
					  const char *time);
void nctl_fmt_dev(uint64_t dev, char *buf, size_t len);

/* Mount points of DEV (at most NCTL_MAX_MNTS), freed by nctl_mnts_free. */
#define NCTL_MAX_MNTS	16
size_t nctl_mnts(uint64_t dev, char **mnts);
void nctl_mnts_free(char **mnts, size_t n);

/* Objects (one file each). */
int nctl_cmd_fs(struct nctl *c, int argc, char **argv);
int nctl_cmd_stats(struct nctl *c, int argc, char **argv);
int nctl_cmd_monitor(struct nctl *c, int argc, char **argv);
int nctl_cmd_snapshot(struct nctl *c, int argc, char **argv);
int nctl_cmd_gc(struct nctl *c, int argc, char **argv);
int nctl_cmd_scrub(struct nctl *c, int argc, char **argv);
int nctl_cmd_debug(struct nctl *c, int argc, char **argv);

/* snapshot.c: JSON of a snapshot and of the file system it belongs to. */
struct json_object *nctl_json_snapshot(const struct nova_snapshot_rec *sn);
struct json_object *nctl_json_fs_id(const struct nova_fs_id *id);

/*
 * snaprestore.c: "snapshot restore". nctl_snapshot_find() looks up the
 * live snapshot WHICH (id if all digits, else name) of the file system
 * SEL; 0, or an exit status after reporting the error.
 */
int nctl_snapshot_restore(struct nctl *c, int argc, char **argv);
/* snapdiff.c: "snapshot diff". */
int nctl_snapshot_diff(struct nctl *c, int argc, char **argv);
int nctl_snapshot_find(struct nctl *c, struct nova_ipc *ipc,
		       const struct nova_sel *sel, const char *which,
		       struct nova_snapshot_rec *sn);

/* scrub.c: "64M", "512K", "1G", "1000" -> bytes/s (binary multiples). */
int nctl_parse_rate(const char *s, uint64_t *bps);

#endif /* NOVACTL_H */

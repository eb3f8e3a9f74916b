/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad configuration: /etc/nova/novad.conf, INI style (see novad.conf(5)).
 *
 *   [global]        daemon-wide settings (stats export)
 *   [default]       policy for every NOVA file system
 *   [/mnt/point]    policy overrides for the file system mounted there
 *   [UUID]          policy overrides for the file system with that UUID
 *
 * The parser never touches the daemon's state: it fills a fresh struct and
 * reports the first problem as "FILE:LINE: message".
 */
#ifndef NOVAD_CONFIG_H
#define NOVAD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched.h"

#define NOVAD_CONFIG_PATH	"/etc/nova/novad.conf"
#define NOVAD_PREFIX_LEN	32
#define NOVAD_PATH_LEN		4096
#define NOVAD_ADDR_LEN		64
#define NOVAD_ERR_LEN		(NOVAD_PATH_LEN + 256)
#define NOVAD_KEEP_MAX		100000

/* Bits of struct novad_policy.set: which fields a section gave. */
enum {
	NOVAD_SET_SNAPSHOTS	= 1u << 0,
	NOVAD_SET_PREFIX	= 1u << 1,
	NOVAD_SET_SCRUB_IVAL	= 1u << 2,
	NOVAD_SET_SCRUB_BW	= 1u << 3,
	NOVAD_SET_KEEP0		= 1u << 4,	/* + period */
	NOVAD_SET_FREQ_PERIOD	= 1u << 16,
};

#define NOVAD_FREQUENT_DEFAULT	900	/* frequent_period: 15 minutes */
#define NOVAD_HOOK_TIMEOUT_DEFAULT 60	/* corruption_hook_timeout */

struct novad_policy {
	bool snapshots;				/* take and prune snapshots */
	unsigned int keep[NOVAD_NPERIODS];	/* per period, 0: none */
	char prefix[NOVAD_PREFIX_LEN];		/* auto snapshot name prefix */
	uint64_t scrub_interval;		/* seconds, 0: no scrub */
	uint64_t scrub_bandwidth;		/* bytes/s, 0: unlimited */
	uint64_t frequent_period;		/* seconds, whole minutes */
	unsigned int set;			/* NOVAD_SET_* */
};

enum novad_fs_key {
	NOVAD_FS_BY_MOUNTPOINT,
	NOVAD_FS_BY_UUID,
};

struct novad_fs_conf {
	enum novad_fs_key kind;
	char mountpoint[NOVAD_PATH_LEN];
	uint8_t uuid[16];
	unsigned int line;		/* where its section starts */
	struct novad_policy pol;	/* only the fields in pol.set */
};

struct novad_config {
	char file[NOVAD_PATH_LEN];	/* where it was read from */
	bool from_file;			/* false: built-in defaults */
	uint64_t stats_interval;	/* seconds */
	char textfile[NOVAD_PATH_LEN];	/* "" : no textfile export */
	char http_listen[NOVAD_ADDR_LEN]; /* "" : no HTTP export */
	char corruption_hook[NOVAD_PATH_LEN];	/* "" : none */
	uint64_t hook_timeout;		/* seconds */
	struct novad_policy def;	/* [default] over built-in defaults */
	struct novad_fs_conf *fs;
	size_t n_fs;
};

/* Built-in defaults (what an empty file gives). */
void novad_config_init(struct novad_config *cfg);
void novad_config_free(struct novad_config *cfg);

/*
 * Parse F (named NAME in messages) into CFG, which is initialised first.
 * Returns 0, or -EINVAL with "NAME:LINE: message" in ERR (-ENOMEM, -EIO
 * likewise with a message). CFG must be freed in both cases.
 */
int novad_config_parse(FILE *f, const char *name, struct novad_config *cfg,
		       char *err, size_t errlen);

/*
 * Read PATH. A missing file is not an error when MISSING_OK: CFG then
 * holds the built-in defaults and from_file is false.
 */
int novad_config_load(const char *path, bool missing_ok,
		      struct novad_config *cfg, char *err, size_t errlen);

/*
 * The policy for a file system: built-in defaults, then [default], then
 * the [MOUNTPOINT] section, then the [UUID] section (most specific wins).
 * MOUNTPOINT may be NULL (not known yet).
 */
void novad_config_policy(const struct novad_config *cfg,
			 const char *mountpoint, const uint8_t uuid[16],
			 struct novad_policy *out);

/* Value parsers, exposed for the tests: 0 or -EINVAL / -ERANGE. */
int novad_parse_duration(const char *s, uint64_t *secs);
int novad_parse_size(const char *s, uint64_t *bytes);
int novad_parse_bool(const char *s, bool *b);
/* "127.0.0.1:9469", "[::1]:9469"; only loopback addresses are accepted. */
int novad_parse_listen(const char *s, char *why, size_t whylen);

#endif /* NOVAD_CONFIG_H */

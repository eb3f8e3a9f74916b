// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad configuration parser (see config.h and novad.conf(5)).
 *
 * Grammar, one item per line: blank lines and lines starting with '#' or
 * ';' are ignored; "[SECTION]" opens a section; "KEY = VALUE" sets a key
 * of the current section. A value runs to the end of the line (surrounding
 * blanks removed); a '#' starts a comment only after a blank. Every
 * problem is fatal and reported as "FILE:LINE: message": a daemon that
 * silently ignores a misspelt retention key would delete the wrong
 * snapshots.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "libnova.h"
#include "config.h"

void novad_config_init(struct novad_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->stats_interval = 60;
	cfg->def.snapshots = false;
	snprintf(cfg->def.prefix, sizeof(cfg->def.prefix), "auto");
	/* Counts that apply once someone says "snapshots = yes". */
	cfg->def.keep[NOVAD_HOURLY] = 24;
	cfg->def.keep[NOVAD_DAILY] = 7;
	cfg->def.keep[NOVAD_WEEKLY] = 4;
	cfg->def.keep[NOVAD_MONTHLY] = 12;
	cfg->def.keep[NOVAD_YEARLY] = 0;
	cfg->def.keep[NOVAD_FREQUENTLY] = 0;
	cfg->def.frequent_period = NOVAD_FREQUENT_DEFAULT;
	cfg->hook_timeout = NOVAD_HOOK_TIMEOUT_DEFAULT;
	cfg->def.scrub_interval = 0;
	cfg->def.scrub_bandwidth = 0;
}

void novad_config_free(struct novad_config *cfg)
{
	free(cfg->fs);
	cfg->fs = NULL;
	cfg->n_fs = 0;
}

int novad_parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* A decimal number followed by an optional unit from UNITS. */
static int parse_scaled(const char *s, const char *const *units,
			const uint64_t *mult, size_t nunits, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	while (*end == ' ')
		end++;
	if (!*end) {
		*out = v * mult[0];
		return 0;
	}
	for (size_t i = 0; i < nunits; i++) {
		if (strcmp(end, units[i]))
			continue;
		if (v && mult[i] > UINT64_MAX / v)
			return -ERANGE;
		*out = v * mult[i];
		return 0;
	}
	return -EINVAL;
}

int novad_parse_duration(const char *s, uint64_t *secs)
{
	static const char *const u[] = { "s", "s", "m", "h", "d", "w" };
	static const uint64_t m[] = { 1, 1, 60, 3600, 86400, 604800 };

	return parse_scaled(s, u, m, 6, secs);
}

int novad_parse_size(const char *s, uint64_t *bytes)
{
	static const char *const u[] = { "", "K", "M", "G", "T" };
	static const uint64_t m[] = { 1, 1ull << 10, 1ull << 20, 1ull << 30,
				      1ull << 40 };

	return parse_scaled(s, u, m, 5, bytes);
}

int novad_parse_listen(const char *s, char *why, size_t whylen)
{
	char host[NOVAD_ADDR_LEN];
	const char *colon;
	unsigned char buf[16];
	unsigned long port;
	char *end;
	size_t hlen;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':') {
			snprintf(why, whylen, "expected [ADDRESS]:PORT");
			return -EINVAL;
		}
		hlen = (size_t)(rb - s - 1);
		colon = rb + 1;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon) {
			snprintf(why, whylen, "expected ADDRESS:PORT");
			return -EINVAL;
		}
		hlen = (size_t)(colon - s);
	}
	if (hlen >= sizeof(host)) {
		snprintf(why, whylen, "address too long");
		return -EINVAL;
	}
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port < 1 || port > 65535) {
		snprintf(why, whylen, "bad port '%s' (1-65535)", colon + 1);
		return -EINVAL;
	}
	if (inet_pton(AF_INET, host, buf) == 1) {
		if (buf[0] != 127) {
			snprintf(why, whylen,
				 "%s is not a loopback address (127.0.0.0/8 or ::1)",
				 host);
			return -EINVAL;
		}
		return 0;
	}
	if (inet_pton(AF_INET6, host, buf) == 1) {
		static const unsigned char lo6[16] = { [15] = 1 };

		if (memcmp(buf, lo6, 16)) {
			snprintf(why, whylen,
				 "%s is not a loopback address (127.0.0.0/8 or ::1)",
				 host);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, whylen, "'%s' is not a numeric IPv4 or IPv6 address", host);
	return -EINVAL;
}

enum section_kind {
	SEC_NONE,
	SEC_GLOBAL,
	SEC_DEFAULT,
	SEC_FS,
};

struct parser {
	const char *name;
	unsigned int line;
	char *err;
	size_t errlen;
	struct novad_config *cfg;
	enum section_kind sec;
	char secname[NOVAD_PATH_LEN];
	struct novad_policy *pol;	/* of the current section */
	unsigned int seen_global;	/* keys already given in [global] */
	bool have_global, have_default;
};

__attribute__((format(printf, 2, 3)))
static int perr(struct parser *p, const char *fmt, ...)
{
	char msg[NOVAD_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%u: %s", p->name, p->line, msg);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Is this mount point section a clean absolute path? */
static bool good_path(const char *s)
{
	if (s[0] != '/')
		return false;
	if (strstr(s, "//") || strstr(s, "/./") || strstr(s, "/../"))
		return false;
	if (strlen(s) > 1 && s[strlen(s) - 1] == '/')
		return false;
	return true;
}

static int open_section(struct parser *p, char *s)
{
	char *name = s + 1, *rb = strchr(s, ']');
	struct novad_fs_conf *fc;
	uint8_t uuid[16];

	if (!rb || trim(rb + 1)[0])
		return perr(p, "expected '[SECTION]'");
	*rb = '\0';
	name = trim(name);
	if (!*name)
		return perr(p, "empty section name");
	snprintf(p->secname, sizeof(p->secname), "%s", name);
	if (!strcmp(name, "global")) {
		if (p->have_global)
			return perr(p, "duplicate section [global]");
		p->have_global = true;
		p->sec = SEC_GLOBAL;
		p->pol = NULL;
		return 0;
	}
	if (!strcmp(name, "default")) {
		if (p->have_default)
			return perr(p, "duplicate section [default]");
		p->have_default = true;
		p->sec = SEC_DEFAULT;
		p->pol = &p->cfg->def;
		return 0;
	}
	if (name[0] == '/') {
		if (!good_path(name))
			return perr(p, "mount point '%s' is not a normalised absolute path",
				    name);
		if (strlen(name) >= NOVAD_PATH_LEN)
			return perr(p, "mount point too long");
	} else if (nova_uuid_parse(name, uuid)) {
		return perr(p, "unknown section [%s] (expected global, default, a mount point or a UUID)",
			    name);
	}
	for (size_t i = 0; i < p->cfg->n_fs; i++) {
		struct novad_fs_conf *o = &p->cfg->fs[i];
		bool same = name[0] == '/' ?
			o->kind == NOVAD_FS_BY_MOUNTPOINT && !strcmp(o->mountpoint, name) :
			o->kind == NOVAD_FS_BY_UUID && !memcmp(o->uuid, uuid, 16);

		if (same)
			return perr(p, "duplicate section [%s] (first at line %u)",
				    name, o->line);
	}
	fc = realloc(p->cfg->fs, (p->cfg->n_fs + 1) * sizeof(*fc));
	if (!fc) {
		snprintf(p->err, p->errlen, "%s: out of memory", p->name);
		return -ENOMEM;
	}
	p->cfg->fs = fc;
	fc = &fc[p->cfg->n_fs++];
	memset(fc, 0, sizeof(*fc));
	fc->line = p->line;
	if (name[0] == '/') {
		fc->kind = NOVAD_FS_BY_MOUNTPOINT;
		snprintf(fc->mountpoint, sizeof(fc->mountpoint), "%s", name);
	} else {
		fc->kind = NOVAD_FS_BY_UUID;
		memcpy(fc->uuid, uuid, 16);
	}
	p->sec = SEC_FS;
	p->pol = &fc->pol;
	return 0;
}

static int set_global(struct parser *p, const char *key, const char *val)
{
	static const char *const keys[] = { "stats_interval", "textfile",
					    "http_listen", "corruption_hook",
					    "corruption_hook_timeout" };
	const unsigned int nkeys = sizeof(keys) / sizeof(keys[0]);
	struct novad_config *cfg = p->cfg;
	char why[128];
	unsigned int k;
	uint64_t v;

	for (k = 0; k < nkeys; k++)
		if (!strcmp(key, keys[k]))
			break;
	if (k == nkeys)
		return perr(p, "unknown key '%s' in [global] (expected stats_interval, textfile, http_listen, corruption_hook, corruption_hook_timeout)",
			    key);
	if (p->seen_global & (1u << k))
		return perr(p, "duplicate key '%s' in [global]", key);
	p->seen_global |= 1u << k;
	switch (k) {
	case 0:
		if (novad_parse_duration(val, &v) || v < 1 || v > 86400)
			return perr(p, "stats_interval: '%s' is not a duration from 1s to 1d (e.g. 30s, 5m)",
				    val);
		cfg->stats_interval = v;
		return 0;
	case 1:
		if (val[0] && val[0] != '/')
			return perr(p, "textfile: '%s' is not an absolute path", val);
		if (val[0] && val[strlen(val) - 1] == '/')
			return perr(p, "textfile: '%s' names a directory, not a file", val);
		if (strlen(val) >= sizeof(cfg->textfile) - 16)
			return perr(p, "textfile: path too long");
		snprintf(cfg->textfile, sizeof(cfg->textfile), "%s", val);
		return 0;
	case 2:
		if (val[0] && novad_parse_listen(val, why, sizeof(why)))
			return perr(p, "http_listen: %s", why);
		snprintf(cfg->http_listen, sizeof(cfg->http_listen), "%s", val);
		return 0;
	case 3:
		/* Run without a shell: an absolute path, no arguments. */
		if (val[0] && (val[0] != '/' || strpbrk(val, " \t")))
			return perr(p, "corruption_hook: '%s' is not an absolute path to a program (no arguments, no shell)",
				    val);
		if (strlen(val) >= sizeof(cfg->corruption_hook))
			return perr(p, "corruption_hook: path too long");
		snprintf(cfg->corruption_hook, sizeof(cfg->corruption_hook), "%s", val);
		return 0;
	default:
		if (novad_parse_duration(val, &v) || v < 1 || v > 3600)
			return perr(p, "corruption_hook_timeout: '%s' is not a duration from 1s to 1h",
				    val);
		cfg->hook_timeout = v;
		return 0;
	}
}

static int parse_count(const char *s, uint64_t *v)
{
	static const char *const none[] = { "" };
	static const uint64_t one[] = { 1 };

	return parse_scaled(s, none, one, 0, v);
}

static bool good_prefix(const char *s)
{
	if (!*s || strlen(s) >= NOVAD_PREFIX_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' &&
		    *s != '-')
			return false;
	return true;
}

static int set_policy(struct parser *p, const char *key, const char *val)
{
	struct novad_policy *pol = p->pol;
	unsigned int bit;
	uint64_t v;
	int period = novad_period_from_name(key);

	if (period >= 0)
		bit = NOVAD_SET_KEEP0 << period;
	else if (!strcmp(key, "snapshots"))
		bit = NOVAD_SET_SNAPSHOTS;
	else if (!strcmp(key, "snapshot_prefix"))
		bit = NOVAD_SET_PREFIX;
	else if (!strcmp(key, "scrub_interval"))
		bit = NOVAD_SET_SCRUB_IVAL;
	else if (!strcmp(key, "scrub_bandwidth"))
		bit = NOVAD_SET_SCRUB_BW;
	else if (!strcmp(key, "frequent_period"))
		bit = NOVAD_SET_FREQ_PERIOD;
	else if (!strcmp(key, "stats_interval") || !strcmp(key, "textfile") ||
		 !strcmp(key, "http_listen") || !strcmp(key, "corruption_hook") ||
		 !strcmp(key, "corruption_hook_timeout"))
		return perr(p, "key '%s' belongs in [global], not [%s]", key,
			    p->secname);
	else
		return perr(p, "unknown key '%s' in [%s]", key, p->secname);
	if (pol->set & bit)
		return perr(p, "duplicate key '%s' in [%s]", key, p->secname);
	pol->set |= bit;

	if (period >= 0) {
		if (parse_count(val, &v) || v > NOVAD_KEEP_MAX)
			return perr(p, "%s: '%s' is not a count from 0 to %u", key,
				    val, NOVAD_KEEP_MAX);
		pol->keep[period] = (unsigned int)v;
	} else if (bit == NOVAD_SET_SNAPSHOTS) {
		if (novad_parse_bool(val, &pol->snapshots))
			return perr(p, "snapshots: '%s' is not yes or no", val);
	} else if (bit == NOVAD_SET_PREFIX) {
		if (!good_prefix(val))
			return perr(p, "snapshot_prefix: '%s' must be 1-%d letters, digits, '_', '.' or '-'",
				    val, NOVAD_PREFIX_LEN - 1);
		snprintf(pol->prefix, sizeof(pol->prefix), "%s", val);
	} else if (bit == NOVAD_SET_SCRUB_IVAL) {
		bool on;

		if (!novad_parse_bool(val, &on) && !on) {
			pol->scrub_interval = 0;
		} else if (novad_parse_duration(val, &v) || v < 60) {
			return perr(p, "scrub_interval: '%s' is not 'off' or a duration of at least 1m (e.g. 7d, 12h)",
				    val);
		} else {
			pol->scrub_interval = v;
		}
	} else if (bit == NOVAD_SET_FREQ_PERIOD) {
		/* Whole minutes: names have minute precision. */
		if (novad_parse_duration(val, &v) || v < 60 || v > 86400 || v % 60)
			return perr(p, "frequent_period: '%s' is not a whole number of minutes from 1m to 1d (e.g. 15m)",
				    val);
		pol->frequent_period = v;
	} else {
		if (novad_parse_size(val, &v))
			return perr(p, "scrub_bandwidth: '%s' is not a byte rate (e.g. 0 for unlimited, 512K, 100M)",
				    val);
		pol->scrub_bandwidth = v;
	}
	return 0;
}

static int parse_line(struct parser *p, char *raw)
{
	char *s = trim(raw), *eq, *key, *val, *hash;

	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (*s == '[')
		return open_section(p, s);
	eq = strchr(s, '=');
	if (!eq)
		return perr(p, "expected 'KEY = VALUE' or '[SECTION]'");
	*eq = '\0';
	key = trim(s);
	val = eq + 1;
	/* A comment after a value needs a blank before its '#'. */
	for (hash = val; (hash = strchr(hash, '#')); hash++) {
		if (hash > val && (hash[-1] == ' ' || hash[-1] == '\t')) {
			*hash = '\0';
			break;
		}
	}
	val = trim(val);
	if (!*key)
		return perr(p, "missing key before '='");
	if (p->sec == SEC_NONE)
		return perr(p, "key '%s' outside of any section", key);
	if (p->sec == SEC_GLOBAL)
		return set_global(p, key, val);
	return set_policy(p, key, val);
}

int novad_config_parse(FILE *f, const char *name, struct novad_config *cfg,
		       char *err, size_t errlen)
{
	struct parser p = {
		.name = name, .err = err, .errlen = errlen, .cfg = cfg,
	};
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;

	novad_config_init(cfg);
	snprintf(cfg->file, sizeof(cfg->file), "%s", name);
	cfg->from_file = true;
	err[0] = '\0';
	while ((n = getline(&line, &cap, f)) >= 0) {
		p.line++;
		if (memchr(line, '\0', (size_t)n)) {
			r = perr(&p, "NUL byte in line");
			break;
		}
		r = parse_line(&p, line);
		if (r)
			break;
	}
	if (!r && ferror(f)) {
		snprintf(err, errlen, "%s: read error", name);
		r = -EIO;
	}
	free(line);
	return r;
}

int novad_config_load(const char *path, bool missing_ok,
		      struct novad_config *cfg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f) {
		r = -errno;
		novad_config_init(cfg);
		snprintf(cfg->file, sizeof(cfg->file), "%s", path);
		if (r == -ENOENT && missing_ok) {
			err[0] = '\0';
			return 0;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	r = novad_config_parse(f, path, cfg, err, errlen);
	fclose(f);
	return r;
}

static void overlay(struct novad_policy *dst, const struct novad_policy *src)
{
	if (src->set & NOVAD_SET_SNAPSHOTS)
		dst->snapshots = src->snapshots;
	if (src->set & NOVAD_SET_PREFIX)
		memcpy(dst->prefix, src->prefix, sizeof(dst->prefix));
	if (src->set & NOVAD_SET_SCRUB_IVAL)
		dst->scrub_interval = src->scrub_interval;
	if (src->set & NOVAD_SET_SCRUB_BW)
		dst->scrub_bandwidth = src->scrub_bandwidth;
	if (src->set & NOVAD_SET_FREQ_PERIOD)
		dst->frequent_period = src->frequent_period;
	for (int p = 0; p < NOVAD_NPERIODS; p++)
		if (src->set & (NOVAD_SET_KEEP0 << p))
			dst->keep[p] = src->keep[p];
	dst->set |= src->set;
}

void novad_config_policy(const struct novad_config *cfg,
			 const char *mountpoint, const uint8_t uuid[16],
			 struct novad_policy *out)
{
	*out = cfg->def;	/* built-in defaults with [default] applied */
	for (size_t i = 0; mountpoint && i < cfg->n_fs; i++)
		if (cfg->fs[i].kind == NOVAD_FS_BY_MOUNTPOINT &&
		    !strcmp(cfg->fs[i].mountpoint, mountpoint))
			overlay(out, &cfg->fs[i].pol);
	for (size_t i = 0; uuid && i < cfg->n_fs; i++)
		if (cfg->fs[i].kind == NOVAD_FS_BY_UUID &&
		    !memcmp(cfg->fs[i].uuid, uuid, 16))
			overlay(out, &cfg->fs[i].pol);
}

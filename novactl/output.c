// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl: output helpers. Human output goes to stdout, errors to stderr
 * as "Error: MESSAGE". In JSON mode everything, errors included, is one
 * JSON document on stdout, so a script always has something to parse.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "novactl.h"

static int nctl_verror(struct nctl *c, int status, int err, const char *fmt,
		       va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (c->json) {
		struct json_object *doc = nctl_json_doc();

		json_object_object_add(doc, "error", nctl_json_error(err, msg));
		nctl_json_print(c, doc);
		json_object_put(doc);
	} else {
		fflush(stdout);
		fprintf(stderr, "Error: %s\n", msg);
	}
	return status;
}

int nctl_error(struct nctl *c, int status, int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = nctl_verror(c, status, err, fmt, ap);
	va_end(ap);
	return r;
}

int nctl_usage_error(struct nctl *c, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = nctl_verror(c, NCTL_EXIT_USAGE, -EINVAL, fmt, ap);
	va_end(ap);
	return r;
}

/* Report a libnova error; the status tells "no NOVA" from other failures. */
int nctl_error_nova(struct nctl *c, const struct nova_err *e)
{
	return nctl_error(c, NCTL_EXIT_FAIL, e->err, "%s",
			  e->msg[0] ? e->msg : strerror(-e->err));
}

int nctl_ipc_open(struct nctl *c, struct nova_ipc **ipc)
{
	struct nova_err e;
	int err;

	err = nova_ipc_open(ipc, &e);
	if (!err)
		return 0;
	if (err == -ENOENT || err == -EPROTO)
		return nctl_error(c, NCTL_EXIT_NO_NOVA, e.err, "%s", e.msg);
	return nctl_error_nova(c, &e);
}

struct json_object *nctl_json_doc(void)
{
	struct json_object *doc = json_object_new_object();

	json_object_object_add(doc, "version",
			       json_object_new_int(NOVACTL_JSON_VERSION));
	return doc;
}

void nctl_json_print(struct nctl *c, struct json_object *doc)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= c->pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			     JSON_C_TO_STRING_PLAIN;
	printf("%s\n", json_object_to_json_string_ext(doc, flags));
	fflush(stdout);
}

/* "  Key:           value", values aligned at one column. */
#define NCTL_KEY_WIDTH	20

void nctl_kv(int indent, const char *key, const char *fmt, ...)
{
	va_list ap;
	int w = NCTL_KEY_WIDTH - indent - (int)strlen(key) - 1;

	printf("%*s%s:%*s", indent, "", key, w > 1 ? w : 1, "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

const char *nctl_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

const char *nctl_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

const char *nctl_fmt_time(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "-");
	return buf;
}

size_t nctl_mnts(uint64_t dev, char **mnts)
{
	int n = nova_mountpoints(NULL, dev, mnts, NCTL_MAX_MNTS);

	if (n < 0)
		return 0;
	return (size_t)n > NCTL_MAX_MNTS ? NCTL_MAX_MNTS : (size_t)n;
}

void nctl_mnts_free(char **mnts, size_t n)
{
	while (n)
		free(mnts[--n]);
}

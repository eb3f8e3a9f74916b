// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mkfs.NOVA: command line options and their validation.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mkfs.h"
#include "probe.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int nova_parse_uuid(const char *s, uint8_t uuid[16])
{
	int i, n = 0;

	if (strlen(s) != 36)
		return -EINVAL;
	for (i = 0; i < 36;) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			i++;
			continue;
		}
		hi = hexval(s[i]);
		lo = hexval(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		uuid[n++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return 0;
}

/* The UUID an -U argument asks for: NULL or "random" draws a version 4 one. */
int nova_uuid_from_arg(const char *arg, uint8_t uuid[16], struct nerr *e)
{
	if (arg && strcmp(arg, "random")) {
		if (!nova_parse_uuid(arg, uuid))
			return 0;
		nerr_set(e, "bad UUID '%s': expected xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx or 'random'",
			 arg);
		return -EINVAL;
	}
	if (nova_random_bytes(uuid, 16)) {
		nerr_set(e, "cannot read /dev/urandom for a UUID");
		return -EIO;
	}
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x40);	/* v4 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);	/* RFC 4122 */
	return 0;
}

void nova_format_uuid(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

int nova_random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return 0;
}

int mkfs_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 0:
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case 't': case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	if (shift && v > (~0ULL >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int mkfs_parse_args(int argc, char **argv, struct mkfs_opts *o,
		    struct nerr *e)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt(argc, argv, ":L:O:U:c:fnqp:s:hV")) != -1) {
		char *end;

		switch (c) {
		case 'L':
			o->label = optarg;
			break;
		case 'O':
			o->features = optarg;
			break;
		case 'U':
			o->uuid = optarg;
			break;
		case 'c':
			errno = 0;
			{
				long v = strtol(optarg, &end, 10);

				if (errno || end == optarg || *end || v < 1) {
					nerr_set(e, "-%c: '%s' is not a positive number",
						 c, optarg);
					return -EINVAL;
				}
				o->cpus = v;
			}
			break;
		case 'f':
			o->force = true;
			break;
		case 'p':
			o->protection = optarg;
			break;
		case 's':
			if (mkfs_parse_size(optarg, &o->size) || !o->size) {
				nerr_set(e, "-s: '%s' is not a size (bytes, or a number with k, m, g or t)",
					 optarg);
				return -EINVAL;
			}
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			return 1;
		case 'V':
			return 2;
		case ':':
			nerr_set(e, "option -%c needs an argument", optopt);
			return -EINVAL;
		default:
			nerr_set(e, "unknown option -%c", optopt);
			return -EINVAL;
		}
	}
	if (optind == argc) {
		nerr_set(e, "no device given");
		return -EINVAL;
	}
	if (optind + 1 != argc) {
		nerr_set(e, "one device only (extra argument '%s')",
			 argv[optind + 1]);
		return -EINVAL;
	}
	o->device = argv[optind];
	return 0;
}

/*
 * -O: a comma-separated list of optional features. Only the allocation
 * bitmap (format 1.9, fast crash recovery) is optional today.
 */
static int mkfs_parse_features(const char *arg, uint32_t *features,
			       struct nerr *e)
{
	char buf[128], *tok, *save = NULL;

	if (!arg)
		return 0;
	if (strlen(arg) >= sizeof(buf)) {
		nerr_set(e, "-O: '%s' is too long", arg);
		return -EINVAL;
	}
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "alloc_bitmap")) {
			*features |= NOVA_FEATURE_ALLOC_BITMAP;
			continue;
		}
		nerr_set(e, "-O %s: unknown feature '%s' (known: alloc_bitmap)",
			 arg, tok);
		return -EINVAL;
	}
	return 0;
}

int mkfs_make_params(const struct mkfs_opts *o, struct mkfs_params *p,
		     struct nerr *e)
{
	struct timespec now;
	int err;

	memset(p, 0, sizeof(*p));
	if (o->label) {
		size_t len = strlen(o->label);

		if (len >= NOVA_LABEL_LEN) {
			nerr_set(e, "label '%s' is too long: %zu bytes, at most %u",
				 o->label, len, NOVA_LABEL_LEN - 1);
			return -EINVAL;
		}
		memcpy(p->label, o->label, len);
	}
	err = nova_uuid_from_arg(o->uuid, p->uuid, e);
	if (err)
		return err;
	if (o->cpus) {
		if (o->cpus > NOVA_MAX_CPUS) {
			nerr_set(e, "-c %ld: CPU stripes must be 1..%u", o->cpus,
				 NOVA_MAX_CPUS);
			return -EINVAL;
		}
		p->cpus = (unsigned int)o->cpus;
	} else {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		p->cpus = n < 1 ? 1 : n > NOVA_MAX_CPUS ? NOVA_MAX_CPUS :
			  (unsigned int)n;
	}
	if (!o->protection || !strcmp(o->protection, "all"))
		p->features = NOVA_FEATURE_DATA_CSUM | NOVA_FEATURE_DATA_PARITY |
			      NOVA_FEATURE_META_REPLICA |
			      NOVA_FEATURE_LOG_REPLICA;
	else if (!strcmp(o->protection, "nolog"))
		p->features = NOVA_FEATURE_DATA_CSUM | NOVA_FEATURE_DATA_PARITY |
			      NOVA_FEATURE_META_REPLICA;
	else if (!strcmp(o->protection, "csum"))
		p->features = NOVA_FEATURE_DATA_CSUM;
	else if (!strcmp(o->protection, "off"))
		p->features = 0;
	else {
		nerr_set(e, "-p %s: protection must be all, nolog, csum or off",
			 o->protection);
		return -EINVAL;
	}
	/*
	 * Format 1.6: logs may hold xattr and range entries (1.5) and file
	 * attribute flags (1.6).
	 */
	p->features |= NOVA_FEATURE_1_5 | NOVA_FEATURE_1_6;
	err = mkfs_parse_features(o->features, &p->features, e);
	if (err)
		return err;
	clock_gettime(CLOCK_REALTIME, &now);
	p->now = now.tv_sec;
	p->now_nsec = (uint32_t)now.tv_nsec;
	/* The kernel gives the root to whoever mounts with -o init. */
	p->uid = (uint32_t)geteuid();
	p->gid = (uint32_t)getegid();
	return 0;
}

int mkfs_check_device(struct nova_dev *d, const struct mkfs_opts *o,
		      struct mkfs_params *p, const char **sig,
		      struct nerr *e)
{
	uint64_t need = nova_mkfs_min_blocks(p->cpus) * NOVA_BLOCK_SIZE;

	*sig = nova_probe_signature(d);
	if (!*sig)
		*sig = nova_probe_foreign(d);
	if (*sig && !o->force) {
		nerr_set(e, "%s contains a %s signature; use -f to overwrite it",
			 d->path, *sig);
		return -EEXIST;
	}
	if (o->size > d->size) {
		nerr_set(e, "-s %llu: larger than %s (%llu bytes)",
			 (unsigned long long)o->size, d->path,
			 (unsigned long long)d->size);
		return -ENOSPC;
	}
	p->size = (o->size ? o->size : d->size) & ~(uint64_t)(NOVA_BLOCK_SIZE - 1);
	if (p->size < need) {
		nerr_set(e, "%s%s is too small: %llu bytes, NOVA with %u CPU stripes needs at least %llu (%llu MiB)",
			 o->size ? "-s: " : "", o->size ? "the size" : d->path,
			 (unsigned long long)(o->size ? o->size : d->size), p->cpus,
			 (unsigned long long)need,
			 (unsigned long long)((need + (1 << 20) - 1) >> 20));
		return -ENOSPC;
	}
	return 0;
}

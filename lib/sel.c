// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libnova: naming a file system from the command line (device number,
 * UUID or path) and finding its mount points in mountinfo.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libnova.h"

#define NOVA_FSTYPE	"NOVA"

/*
 * The st_dev encoding (the kernel's new_encode_dev(), which glibc's
 * makedev() agrees with for every device number the kernel can represent:
 * majors below 4096, minors below 2^20).
 */
uint64_t nova_dev_make(unsigned int major, unsigned int minor)
{
	return (uint64_t)((minor & 0xffu) | ((major & 0xfffu) << 8) |
			  ((minor & ~0xffu) << 12));
}

unsigned int nova_dev_major(uint64_t dev)
{
	return (unsigned int)((dev & 0xfff00u) >> 8);
}

unsigned int nova_dev_minor(uint64_t dev)
{
	return (unsigned int)((dev & 0xffu) | ((dev >> 12) & 0xfff00u));
}

static int nova_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int nova_uuid_parse(const char *s, uint8_t uuid[NOVA_GENL_UUID_LEN])
{
	int i, j = 0;

	if (strlen(s) != 36)
		return -EINVAL;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -EINVAL;
			continue;
		}
		if (nova_hexval(s[i]) < 0 || nova_hexval(s[i + 1]) < 0)
			return -EINVAL;
		uuid[j++] = (uint8_t)(nova_hexval(s[i]) << 4 | nova_hexval(s[i + 1]));
		i++;
	}
	return 0;
}

void nova_uuid_format(const uint8_t uuid[NOVA_GENL_UUID_LEN], char *buf)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < NOVA_GENL_UUID_LEN; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*buf++ = '-';
		*buf++ = hex[uuid[i] >> 4];
		*buf++ = hex[uuid[i] & 0xf];
	}
	*buf = '\0';
}

/* "MAJOR:MINOR" in decimal; 1 if ARG has that form, 0 if not, <0 if bad. */
static int nova_parse_majmin(const char *arg, uint64_t *dev)
{
	unsigned long major, minor;
	const char *p = arg;
	char *end;

	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != ':' || !isdigit((unsigned char)p[1]))
		return 0;
	for (end = (char *)p + 1; isdigit((unsigned char)*end); end++)
		;
	if (*end)
		return 0;
	errno = 0;
	major = strtoul(arg, NULL, 10);
	minor = strtoul(p + 1, NULL, 10);
	if (errno || major > 0xfff || minor > 0xfffff)
		return -ERANGE;
	if (!major && !minor)
		return -EINVAL;
	*dev = nova_dev_make((unsigned int)major, (unsigned int)minor);
	return 1;
}

int nova_sel_parse(const char *arg, struct nova_sel *sel, struct nova_err *e)
{
	struct stat stbuf;
	int r;

	nova_err_clear(e);
	memset(sel, 0, sizeof(*sel));
	if (!arg || !*arg) {
		nova_err_set(e, -EINVAL, "empty file system name");
		return -EINVAL;
	}
	if (!strchr(arg, '/')) {
		r = nova_parse_majmin(arg, &sel->dev);
		if (r < 0) {
			nova_err_set(e, r, "%s: not a valid device number", arg);
			return r;
		}
		if (r > 0) {
			sel->kind = NOVA_SEL_DEV;
			return 0;
		}
		if (!strncmp(arg, "uuid=", 5) || !strncmp(arg, "UUID=", 5)) {
			if (nova_uuid_parse(arg + 5, sel->uuid)) {
				nova_err_set(e, -EINVAL, "%s: not a valid UUID", arg + 5);
				return -EINVAL;
			}
			sel->kind = NOVA_SEL_UUID;
			return 0;
		}
		if (!nova_uuid_parse(arg, sel->uuid)) {
			sel->kind = NOVA_SEL_UUID;
			return 0;
		}
	}
	if (stat(arg, &stbuf)) {
		r = -errno;
		nova_err_set(e, r, "%s: %s", arg, strerror(-r));
		return r;
	}
	sel->kind = NOVA_SEL_DEV;
	sel->dev = S_ISBLK(stbuf.st_mode) ? (uint64_t)stbuf.st_rdev :
					    (uint64_t)stbuf.st_dev;
	return 0;
}

/* Undo mountinfo's octal escapes (\040 for space ...) in place. */
static void nova_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

int nova_mountpoints(const char *mountinfo, uint64_t dev, char **paths,
		     size_t max)
{
	unsigned int major, minor;
	char *line = NULL, *sep, *mnt, *fstype, *save;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	f = fopen(mountinfo ? mountinfo : "/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE ... */
		if (sscanf(line, "%*u %*u %u:%u", &major, &minor) != 2)
			continue;
		if (nova_dev_make(major, minor) != dev)
			continue;
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		fstype = strtok_r(sep + 3, " \n", &save);
		if (!fstype || strcmp(fstype, NOVA_FSTYPE))
			continue;
		if (!strtok_r(line, " ", &save) || !strtok_r(NULL, " ", &save) ||
		    !strtok_r(NULL, " ", &save) || !strtok_r(NULL, " ", &save))
			continue;
		mnt = strtok_r(NULL, " ", &save);
		if (!mnt)
			continue;
		if ((size_t)n < max) {
			nova_unescape(mnt);
			paths[n] = strdup(mnt);
			if (!paths[n]) {
				while (n > 0)
					free(paths[--n]);
				free(line);
				fclose(f);
				return -ENOMEM;
			}
		}
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

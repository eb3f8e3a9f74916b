// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device and image file access for mkfs.NOVA and fsck.NOVA.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev.h"

void nerr_set(struct nerr *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

int ndev_open(struct nova_dev *d, const char *path, int flags, struct nerr *e)
{
	struct stat st;
	off_t end;
	int oflags = (flags & NDEV_WRITE) ? O_RDWR : O_RDONLY;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = path;
	if (stat(path, &st) < 0) {
		nerr_set(e, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISBLK(st.st_mode)) {
		d->is_blk = true;
		d->rdev = st.st_rdev;
		if (flags & NDEV_EXCL)
			oflags |= O_EXCL;
	} else if (!S_ISREG(st.st_mode)) {
		nerr_set(e, "%s: not a block device or regular file", path);
		return -EINVAL;
	}
	d->fd = open(path, oflags | O_CLOEXEC);
	if (d->fd < 0) {
		int err = errno;

		if (err == EBUSY)
			nerr_set(e, "%s: device is in use (mounted?)", path);
		else
			nerr_set(e, "%s: %s", path, strerror(err));
		return -err;
	}
	end = lseek(d->fd, 0, SEEK_END);
	if (end < 0) {
		int err = errno;

		nerr_set(e, "%s: cannot determine size: %s", path,
			 strerror(err));
		close(d->fd);
		d->fd = -1;
		return -err;
	}
	d->size = (uint64_t)end;
	d->writable = flags & NDEV_WRITE;
	return 0;
}

void ndev_from_buffer(struct nova_dev *d, void *buf, uint64_t size)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = "(memory)";
	d->size = size;
	d->map = buf;
	d->writable = true;
}

int ndev_map(struct nova_dev *d, struct nerr *e)
{
	void *p;

	if (d->map)
		return 0;
	if (!d->size) {
		nerr_set(e, "%s: device is empty", d->path);
		return -EINVAL;
	}
	p = mmap(NULL, d->size, PROT_READ, MAP_SHARED, d->fd, 0);
	if (p == MAP_FAILED) {
		nerr_set(e, "%s: cannot map %llu bytes: %s", d->path,
			 (unsigned long long)d->size, strerror(errno));
		return -errno;
	}
	d->map = p;
	d->map_owned = true;
	return 0;
}

void ndev_close(struct nova_dev *d)
{
	if (d->map_owned)
		munmap(d->map, d->size);
	d->map = NULL;
	d->map_owned = false;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

const void *ndev_ptr(const struct nova_dev *d, uint64_t off, uint64_t len)
{
	if (!d->map || off > d->size || len > d->size - off)
		return NULL;
	return d->map + off;
}

static int range_ok(struct nova_dev *d, uint64_t off, uint64_t len,
		    struct nerr *e)
{
	if (off > d->size || len > d->size - off) {
		nerr_set(e, "%s: access to %llu+%llu is past the end (%llu)",
			 d->path, (unsigned long long)off,
			 (unsigned long long)len, (unsigned long long)d->size);
		return -ERANGE;
	}
	return 0;
}

int ndev_read(struct nova_dev *d, uint64_t off, void *buf, size_t len,
	      struct nerr *e)
{
	uint8_t *p = buf;
	int err = range_ok(d, off, len, e);

	if (err)
		return err;
	if (d->fd < 0) {
		memcpy(buf, d->map + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(d->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			nerr_set(e, "%s: read at %llu: %s", d->path,
				 (unsigned long long)off,
				 n < 0 ? strerror(errno) : "short read");
			return n < 0 ? -errno : -EIO;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int ndev_write(struct nova_dev *d, uint64_t off, const void *buf, size_t len,
	       struct nerr *e)
{
	const uint8_t *p = buf;
	int err = range_ok(d, off, len, e);

	if (err)
		return err;
	if (!d->writable) {
		nerr_set(e, "%s: opened read-only", d->path);
		return -EROFS;
	}
	if (d->fd < 0) {
		memcpy(d->map + off, buf, len);
		return 0;
	}
	while (len) {
		ssize_t n = pwrite(d->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			nerr_set(e, "%s: write at %llu: %s", d->path,
				 (unsigned long long)off,
				 n < 0 ? strerror(errno) : "short write");
			return n < 0 ? -errno : -EIO;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int ndev_zero(struct nova_dev *d, uint64_t off, uint64_t len, struct nerr *e)
{
	static const uint8_t zero[65536];
	int err = range_ok(d, off, len, e);

	while (!err && len) {
		size_t n = len < sizeof(zero) ? (size_t)len : sizeof(zero);

		err = ndev_write(d, off, zero, n, e);
		off += n;
		len -= n;
	}
	return err;
}

int ndev_sync(struct nova_dev *d, struct nerr *e)
{
	if (d->fd < 0)
		return 0;
	if (fsync(d->fd) < 0) {
		nerr_set(e, "%s: fsync: %s", d->path, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Undo the octal escapes of /proc/self/mountinfo in place. */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
}

/* Is the block device @rdev mounted? */
static int rdev_mounted(dev_t rdev, char *where, size_t where_len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char mnt[4096];

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min,
			   mnt) != 3)
			continue;
		if (makedev(maj, min) != rdev)
			continue;
		unescape(mnt);
		snprintf(where, where_len, "%s", mnt);
		found = 1;
	}
	fclose(f);
	return found;
}

/* A regular file: is it the backing file of a mounted loop device? */
static int file_mounted(const struct stat *st, char *where, size_t where_len)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *de;
	int found = 0;

	if (!dir)
		return 0;
	while (!found && (de = readdir(dir))) {
		char p[PATH_MAX], back[PATH_MAX];
		unsigned int maj, min;
		struct stat bst;
		FILE *f;
		size_t n;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		n = fread(back, 1, sizeof(back) - 1, f);
		fclose(f);
		back[n] = 0;
		back[strcspn(back, "\n")] = 0;
		if (stat(back, &bst) < 0 || bst.st_dev != st->st_dev ||
		    bst.st_ino != st->st_ino)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", de->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2)
			found = rdev_mounted(makedev(maj, min), where,
					     where_len) == 1;
		fclose(f);
	}
	closedir(dir);
	return found;
}

int ndev_mounted(const char *path, char *where, size_t where_len)
{
	struct stat st;

	if (where_len)
		where[0] = 0;
	if (stat(path, &st) < 0)
		return 0;
	if (S_ISBLK(st.st_mode))
		return rdev_mounted(st.st_rdev, where, where_len);
	if (S_ISREG(st.st_mode))
		return file_mounted(&st, where, where_len);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Access to the device or image file that holds a NOVA file system: open
 * (exclusively when writing a block device), size, a read-only mapping of
 * the whole device for walking, bounded reads and writes. A device can
 * also be a memory buffer, which the unit tests use.
 */
#ifndef NOVA_TOOLS_DEV_H
#define NOVA_TOOLS_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NDEV_WRITE	0x1	/* open read-write */
#define NDEV_EXCL	0x2	/* block devices: O_EXCL (fails if mounted) */

#define NERR_LEN	256

/* An error message for the user, filled by the library. */
struct nerr {
	char msg[NERR_LEN];
};

void nerr_set(struct nerr *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct nova_dev {
	const char *path;
	int fd;			/* -1 for a memory device */
	bool is_blk;
	bool writable;
	dev_t rdev;		/* block devices */
	uint64_t size;		/* bytes */
	uint8_t *map;		/* the whole device, read-only unless memory */
	bool map_owned;		/* map came from mmap() */
};

int ndev_open(struct nova_dev *d, const char *path, int flags,
	      struct nerr *e);
void ndev_from_buffer(struct nova_dev *d, void *buf, uint64_t size);
int ndev_map(struct nova_dev *d, struct nerr *e);
void ndev_close(struct nova_dev *d);

/* Pointer to [off, off + len) in the mapping, NULL if out of range. */
const void *ndev_ptr(const struct nova_dev *d, uint64_t off, uint64_t len);

int ndev_read(struct nova_dev *d, uint64_t off, void *buf, size_t len,
	      struct nerr *e);
int ndev_write(struct nova_dev *d, uint64_t off, const void *buf, size_t len,
	       struct nerr *e);
int ndev_zero(struct nova_dev *d, uint64_t off, uint64_t len, struct nerr *e);
int ndev_sync(struct nova_dev *d, struct nerr *e);

/*
 * Is @path (a block device, or an image file attached to a loop device)
 * mounted? Returns 1 and the mount point in @where, 0 if not, -1 if that
 * cannot be told (no /proc).
 */
int ndev_mounted(const char *path, char *where, size_t where_len);

#endif

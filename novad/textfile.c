// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Atomic file replacement for novad (see textfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "textfile.h"

int novad_file_replace(const char *path, const char *text, bool durable)
{
	char tmp[4200];
	size_t len = strlen(text), off = 0;
	int fd, r = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (!r && durable && fsync(fd))
		r = -errno;
	/* node_exporter runs as its own user: the file must be readable. */
	if (!r && fchmod(fd, 0644))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

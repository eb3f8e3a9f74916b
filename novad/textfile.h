/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Replacing a file's contents atomically: TEXT is written to
 * PATH.tmp.XXXXXX in the same directory (mode 0644), which is then renamed
 * over PATH, so a reader (node_exporter's textfile collector, novad after
 * a crash) never sees a half-written file.
 */
#ifndef NOVAD_TEXTFILE_H
#define NOVAD_TEXTFILE_H

#include <stdbool.h>

/*
 * Replace PATH with TEXT; with DURABLE, the new contents are on stable
 * storage (fsync) before the rename. Returns 0 or -errno.
 */
int novad_file_replace(const char *path, const char *text, bool durable);

/* The metrics export: no fsync, the next export rewrites it anyway. */
static inline int novad_textfile_write(const char *path, const char *text)
{
	return novad_file_replace(path, text, false);
}

#endif /* NOVAD_TEXTFILE_H */

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad textfile export: write the metrics for node_exporter's textfile
 * collector to PATH.tmp.XXXXXX in the same directory and rename it over
 * PATH, so the collector never reads a half-written file.
 */
#ifndef NOVAD_TEXTFILE_H
#define NOVAD_TEXTFILE_H

/* Returns 0 or -errno. */
int novad_textfile_write(const char *path, const char *text);

#endif /* NOVAD_TEXTFILE_H */

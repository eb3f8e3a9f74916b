/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad metrics: NOVA_CMD_STATS_GET replies in the Prometheus text
 * exposition format (version 0.0.4), for the node-exporter textfile
 * collector and for the optional HTTP /metrics endpoint.
 *
 * Names carry the nova_ prefix and base units (bytes, seconds); counters
 * end in _total. Every per-file-system series has the labels device
 * ("/dev/" + the kernel's block device name, as node_exporter's filesystem
 * collector spells it), mountpoint (first mount point, "" if none yet) and
 * uuid.
 */
#ifndef NOVAD_METRICS_H
#define NOVAD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "libnova.h"

struct novad_metrics_fs {
	const struct nova_stats *st;
	const char *mountpoint;		/* NULL or "" if unknown */
	uint64_t corruption_events;	/* CORRUPTION notifications novad got */
};

/*
 * Format the metrics of N file systems into a malloc'ed NUL-terminated
 * string (*OUT). NOW_S is the collection time (seconds since the epoch)
 * for nova_stats_collected_timestamp_seconds. Returns 0 or -ENOMEM.
 */
int novad_metrics_format(const struct novad_metrics_fs *fs, size_t n,
			 int64_t now_s, char **out);

/* Escape a label value (backslash, double quote, newline) into BUF. */
void novad_metrics_escape(const char *s, char *buf, size_t len);

#endif /* NOVAD_METRICS_H */

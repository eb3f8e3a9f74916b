// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novad's metrics formatter: names, types, base units,
 * labels and their escaping, per-operation counters, no file system;
 * scrub, protection, bad-block, GC and snapshot-reclaim series and the
 * scrub state as a state set.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../novad/metrics.h"

#define LBL "device=\"/dev/pmem0\",mountpoint=\"/mnt/nova\",uuid=\"0f3c5a11-2233-4455-6677-8899aabbccdd\""

static void fill(struct nova_stats *st)
{
	static const uint8_t uuid[16] = { 0x0f, 0x3c, 0x5a, 0x11, 0x22, 0x33,
					  0x44, 0x55, 0x66, 0x77, 0x88, 0x99,
					  0xaa, 0xbb, 0xcc, 0xdd };

	memset(st, 0, sizeof(*st));
	st->id.dev = 0x10300;
	memcpy(st->id.uuid, uuid, 16);
	strcpy(st->id.label, "data");
	strcpy(st->id.bdev, "pmem0");
	st->format_version = 1;
	st->cpus = 2;
	st->block_size = 4096;
	st->blocks_total = 262144;
	st->blocks_free = 200000;
	st->inodes_total = 1024;
	st->inodes_free = 1000;
	st->log_pages = 30;
	st->data_pages = 100;
	st->epoch = 3;
	st->snapshots = 2;
	st->mount_time_ns = 1500000000;	/* 1.5 s */
	st->recovered = true;
	st->space_check_pending = true;
	st->read_only = false;
	st->n_ops = 2;
	strcpy(st->ops[0].name, "write");
	st->ops[0].count = 42;
	st->ops[0].time_ns = 123456789;
	strcpy(st->ops[1].name, "fsync");
	st->ops[1].count = 7;
	st->ops[1].time_ns = 2000000001;
	st->snap_reclaim_blocks = 11;
	st->snap_reclaim_inodes = 2;
	st->snap_reclaimed = 400;
	st->gc_fast_pages = 5;
	st->gc_thorough_runs = 1;
	st->gc_thorough_pages = 3;
	st->gc_entries_copied = 70;
	st->gc_time_ns = 2500000;
	st->scrub_state = NOVA_SCRUB_FINISHED;
	st->scrub_passes = 4;
	st->scrub_bytes = 1 << 20;
	st->scrub_errors = 3;
	st->scrub_repaired = 2;
	st->scrub_unrecoverable = 1;
	st->prot_csum = true;
	st->prot_parity = true;
	st->prot_verify = false;
	st->prot_verified = 9000;
	st->prot_repaired = 6;
	st->prot_unrecoverable = 1;
	st->bb_blocks = 8;
	st->bb_repaired = 5;
	st->bb_lost = 1;
	st->bb_withheld = 2;
}

/* Assert that TEXT has LINE as a whole line. */
static void has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++) {
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			return;
	}
	print_error("missing line: %s\n", line);
	fail();
}

static void test_one_fs(void **state)
{
	struct nova_stats st;
	struct novad_metrics_fs fs;
	char *text;

	(void)state;
	fill(&st);
	fs.st = &st;
	fs.mountpoint = "/mnt/nova";
	fs.corruption_events = 17;
	assert_int_equal(novad_metrics_format(&fs, 1, 1796248800, &text), 0);
	has_line(text, "# TYPE nova_filesystems gauge");
	has_line(text, "nova_filesystems 1");
	has_line(text, "nova_stats_collected_timestamp_seconds 1796248800");
	has_line(text, "nova_filesystem_info{" LBL ",label=\"data\"} 1");
	has_line(text, "nova_format_version{" LBL "} 1");
	has_line(text, "nova_cpu_stripes{" LBL "} 2");
	has_line(text, "nova_block_size_bytes{" LBL "} 4096");
	has_line(text, "nova_blocks{" LBL "} 262144");
	has_line(text, "nova_blocks_free{" LBL "} 200000");
	has_line(text, "nova_size_bytes{" LBL "} 1073741824");
	has_line(text, "nova_free_bytes{" LBL "} 819200000");
	has_line(text, "nova_inodes{" LBL "} 1024");
	has_line(text, "nova_inodes_free{" LBL "} 1000");
	has_line(text, "nova_log_pages{" LBL "} 30");
	has_line(text, "nova_log_bytes{" LBL "} 122880");
	has_line(text, "nova_data_pages{" LBL "} 100");
	has_line(text, "nova_data_bytes{" LBL "} 409600");
	has_line(text, "nova_snapshot_epoch{" LBL "} 3");
	has_line(text, "nova_snapshots{" LBL "} 2");
	has_line(text, "nova_mount_duration_seconds{" LBL "} 1.500000000");
	has_line(text, "nova_mount_recovered{" LBL "} 1");
	has_line(text, "nova_space_check_pending{" LBL "} 1");
	has_line(text, "nova_read_only{" LBL "} 0");
	has_line(text, "# TYPE nova_operations_total counter");
	has_line(text, "# TYPE nova_operation_seconds_total counter");
	has_line(text, "nova_operations_total{" LBL ",op=\"write\"} 42");
	has_line(text, "nova_operations_total{" LBL ",op=\"fsync\"} 7");
	has_line(text, "nova_operation_seconds_total{" LBL ",op=\"write\"} 0.123456789");
	has_line(text, "nova_operation_seconds_total{" LBL ",op=\"fsync\"} 2.000000001");
	has_line(text, "nova_snapshot_reclaim_pending_blocks{" LBL "} 11");
	has_line(text, "nova_snapshot_reclaim_pending_inodes{" LBL "} 2");
	has_line(text, "nova_snapshot_reclaimed_blocks_total{" LBL "} 400");
	has_line(text, "nova_gc_fast_pages_total{" LBL "} 5");
	has_line(text, "nova_gc_thorough_runs_total{" LBL "} 1");
	has_line(text, "nova_gc_thorough_pages_total{" LBL "} 3");
	has_line(text, "nova_gc_entries_copied_total{" LBL "} 70");
	has_line(text, "nova_gc_seconds_total{" LBL "} 0.002500000");
	has_line(text, "# TYPE nova_scrub_state gauge");
	has_line(text, "nova_scrub_state{" LBL ",state=\"idle\"} 0");
	has_line(text, "nova_scrub_state{" LBL ",state=\"running\"} 0");
	has_line(text, "nova_scrub_state{" LBL ",state=\"paused\"} 0");
	has_line(text, "nova_scrub_state{" LBL ",state=\"finished\"} 1");
	has_line(text, "nova_scrub_passes_total{" LBL "} 4");
	has_line(text, "nova_scrub_bytes_total{" LBL "} 1048576");
	has_line(text, "nova_scrub_errors_total{" LBL "} 3");
	has_line(text, "nova_scrub_repaired_total{" LBL "} 2");
	has_line(text, "nova_scrub_unrecoverable_total{" LBL "} 1");
	has_line(text, "nova_protection_checksums{" LBL "} 1");
	has_line(text, "nova_protection_parity{" LBL "} 1");
	has_line(text, "nova_protection_verify{" LBL "} 0");
	has_line(text, "nova_protection_verified_total{" LBL "} 9000");
	has_line(text, "nova_protection_repaired_total{" LBL "} 6");
	has_line(text, "nova_protection_unrecoverable_total{" LBL "} 1");
	has_line(text, "nova_badblocks{" LBL "} 8");
	has_line(text, "nova_badblocks_repaired{" LBL "} 5");
	has_line(text, "nova_badblocks_lost{" LBL "} 1");
	has_line(text, "nova_badblocks_withheld{" LBL "} 2");
	has_line(text, "# TYPE nova_corruption_events_total counter");
	has_line(text, "nova_corruption_events_total{" LBL "} 17");

	/*
	 * Every sample line names a metric with a HELP and a TYPE just
	 * before its first sample, and a name ends in _total exactly when
	 * the metric is a counter.
	 */
	char type_of[64][2][128];
	size_t ntypes = 0;

	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128], kind[16];

		if (sscanf(line, "# TYPE %127s %15s", name, kind) == 2) {
			assert_true(ntypes < 64);
			snprintf(type_of[ntypes][0], 128, "%s", name);
			snprintf(type_of[ntypes][1], 128, "%s", kind);
			ntypes++;
			continue;
		}
		if (line[0] == '#')
			continue;
		assert_memory_equal(line, "nova_", 5);
		size_t nlen = strcspn(line, "{ ");
		bool total, counter;

		memcpy(name, line, nlen);
		name[nlen] = '\0';
		assert_true(ntypes > 0);
		assert_string_equal(type_of[ntypes - 1][0], name);
		total = nlen > 6 && !strcmp(name + nlen - 6, "_total");
		counter = !strcmp(type_of[ntypes - 1][1], "counter");
		if (total != counter)
			print_error("%s: _total %d, counter %d\n", name, total, counter);
		assert_int_equal(total, counter);
	}
	free(text);
}

static void test_no_fs(void **state)
{
	char *text;

	(void)state;
	assert_int_equal(novad_metrics_format(NULL, 0, 5, &text), 0);
	has_line(text, "nova_filesystems 0");
	has_line(text, "nova_stats_collected_timestamp_seconds 5");
	assert_null(strstr(text, "device="));
	assert_null(strstr(text, "nova_operations_total"));
	free(text);
}

static void test_escape(void **state)
{
	struct nova_stats st;
	struct novad_metrics_fs fs;
	char buf[64], *text;

	(void)state;
	novad_metrics_escape("a\"b\\c\nd", buf, sizeof(buf));
	assert_string_equal(buf, "a\\\"b\\\\c\\nd");
	fill(&st);
	st.n_ops = 0;
	strcpy(st.id.label, "my \"fs\"");
	fs.st = &st;
	fs.mountpoint = NULL;	/* not visible yet */
	fs.corruption_events = 0;
	assert_int_equal(novad_metrics_format(&fs, 1, 0, &text), 0);
	assert_non_null(strstr(text, "label=\"my \\\"fs\\\"\""));
	assert_non_null(strstr(text, "mountpoint=\"\""));
	assert_null(strstr(text, "nova_operations_total"));
	free(text);
}

static void test_two_fs(void **state)
{
	struct nova_stats st[2];
	struct novad_metrics_fs fs[2];
	char *text, *p;
	int n = 0;

	(void)state;
	fill(&st[0]);
	fill(&st[1]);
	strcpy(st[1].id.bdev, "pmem1");
	fs[0] = (struct novad_metrics_fs){ &st[0], "/mnt/a", 0 };
	fs[1] = (struct novad_metrics_fs){ &st[1], "/mnt/b", 0 };
	assert_int_equal(novad_metrics_format(fs, 2, 0, &text), 0);
	has_line(text, "nova_filesystems 2");
	/* One HELP/TYPE per metric, not per file system. */
	for (p = text; (p = strstr(p, "# TYPE nova_blocks_free ")); p++)
		n++;
	assert_int_equal(n, 1);
	assert_non_null(strstr(text, "nova_blocks_free{device=\"/dev/pmem1\",mountpoint=\"/mnt/b\""));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_fs),
		cmocka_unit_test(test_no_fs),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_two_fs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novad's configuration parser: valid files, built-in
 * defaults, policy layering (default < mount point < UUID), and every
 * kind of invalid input reported as "FILE:LINE: message".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../novad/config.h"

static int parse(const char *text, struct novad_config *cfg, char *err,
		 size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	r = novad_config_parse(f, "novad.conf", cfg, err, errlen);
	fclose(f);
	return r;
}

static void test_defaults(void **state)
{
	struct novad_config cfg;
	char err[NOVAD_ERR_LEN];

	(void)state;
	assert_int_equal(parse("", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.stats_interval, 60);
	assert_string_equal(cfg.textfile, "");
	assert_string_equal(cfg.http_listen, "");
	assert_false(cfg.def.snapshots);
	assert_string_equal(cfg.def.prefix, "auto");
	assert_int_equal(cfg.def.keep[NOVAD_HOURLY], 24);
	assert_int_equal(cfg.def.keep[NOVAD_YEARLY], 0);
	assert_int_equal(cfg.def.scrub_interval, 0);
	assert_int_equal(cfg.def.keep[NOVAD_FREQUENTLY], 0);
	assert_int_equal(cfg.def.frequent_period, 15 * 60);
	assert_string_equal(cfg.corruption_hook, "");
	assert_int_equal(cfg.hook_timeout, 60);
	assert_int_equal(cfg.n_fs, 0);
	novad_config_free(&cfg);
}

static const char full[] =
	"# novad.conf\n"
	"\n"
	"[global]\n"
	"stats_interval = 30s\n"
	"textfile = /var/lib/prometheus/node-exporter/nova.prom\n"
	"http_listen = 127.0.0.1:9469   # loopback only\n"
	"corruption_hook = /usr/local/libexec/nova-alert\n"
	"corruption_hook_timeout = 2m\n"
	"\n"
	"[default]\n"
	"snapshots = yes\n"
	"hourly = 48\n"
	"daily=14\n"
	"  weekly =  8  \n"
	"monthly = 6\n"
	"yearly = 2\n"
	"scrub_interval = 1w\n"
	"scrub_bandwidth = 100M\n"
	"\n"
	"; per file system\n"
	"[/mnt/nova]\n"
	"hourly = 6\n"
	"frequently = 4\n"
	"frequent_period = 5m\n"
	"snapshot_prefix = nightly.v1\n"
	"\n"
	"[0f3c5a11-2233-4455-6677-8899aabbccdd]\n"
	"snapshots = no\n"
	"scrub_interval = off\n";

static const uint8_t uuid1[16] = { 0x0f, 0x3c, 0x5a, 0x11, 0x22, 0x33, 0x44,
				   0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
				   0xcc, 0xdd };
static const uint8_t uuid2[16] = { 1 };

static void test_full(void **state)
{
	struct novad_config cfg;
	struct novad_policy pol;
	char err[NOVAD_ERR_LEN];

	(void)state;
	assert_int_equal(parse(full, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.stats_interval, 30);
	assert_string_equal(cfg.textfile, "/var/lib/prometheus/node-exporter/nova.prom");
	assert_string_equal(cfg.http_listen, "127.0.0.1:9469");
	assert_true(cfg.def.snapshots);
	assert_int_equal(cfg.def.keep[NOVAD_HOURLY], 48);
	assert_int_equal(cfg.def.keep[NOVAD_DAILY], 14);
	assert_int_equal(cfg.def.keep[NOVAD_WEEKLY], 8);
	assert_int_equal(cfg.def.keep[NOVAD_MONTHLY], 6);
	assert_int_equal(cfg.def.keep[NOVAD_YEARLY], 2);
	assert_int_equal(cfg.def.scrub_interval, 7 * 86400);
	assert_int_equal(cfg.def.scrub_bandwidth, 100ull << 20);
	assert_string_equal(cfg.corruption_hook, "/usr/local/libexec/nova-alert");
	assert_int_equal(cfg.hook_timeout, 120);
	assert_int_equal(cfg.def.keep[NOVAD_FREQUENTLY], 0);
	assert_int_equal(cfg.n_fs, 2);
	assert_int_equal(cfg.fs[0].line, 21);

	/* An unknown file system gets [default]. */
	novad_config_policy(&cfg, "/srv/other", uuid2, &pol);
	assert_true(pol.snapshots);
	assert_int_equal(pol.keep[NOVAD_HOURLY], 48);
	assert_string_equal(pol.prefix, "auto");
	assert_int_equal(pol.keep[NOVAD_FREQUENTLY], 0);
	assert_int_equal(pol.frequent_period, 15 * 60);

	/* The mount point section overrides only what it sets. */
	novad_config_policy(&cfg, "/mnt/nova", uuid2, &pol);
	assert_true(pol.snapshots);
	assert_int_equal(pol.keep[NOVAD_HOURLY], 6);
	assert_int_equal(pol.keep[NOVAD_DAILY], 14);
	assert_string_equal(pol.prefix, "nightly.v1");
	assert_int_equal(pol.keep[NOVAD_FREQUENTLY], 4);
	assert_int_equal(pol.frequent_period, 5 * 60);

	/* The UUID section wins over the mount point section. */
	novad_config_policy(&cfg, "/mnt/nova", uuid1, &pol);
	assert_false(pol.snapshots);
	assert_int_equal(pol.scrub_interval, 0);
	assert_int_equal(pol.keep[NOVAD_HOURLY], 6);
	assert_string_equal(pol.prefix, "nightly.v1");

	/* Mount point not known yet: UUID and default only. */
	novad_config_policy(&cfg, NULL, uuid2, &pol);
	assert_int_equal(pol.keep[NOVAD_HOURLY], 48);
	novad_config_free(&cfg);
}

struct bad_case {
	const char *text;
	const char *err;	/* expected message, exactly */
};

static const struct bad_case bad[] = {
	{ "hourly = 3\n", "novad.conf:1: key 'hourly' outside of any section" },
	{ "[default]\n\nhourly 3\n",
	  "novad.conf:3: expected 'KEY = VALUE' or '[SECTION]'" },
	{ "[default]\nhourlyy = 3\n", "novad.conf:2: unknown key 'hourlyy' in [default]" },
	{ "[default]\nhourly = -1\n",
	  "novad.conf:2: hourly: '-1' is not a count from 0 to 100000" },
	{ "[default]\ndaily = 7d\n",
	  "novad.conf:2: daily: '7d' is not a count from 0 to 100000" },
	{ "[default]\nweekly = 100001\n",
	  "novad.conf:2: weekly: '100001' is not a count from 0 to 100000" },
	{ "[default]\nsnapshots = maybe\n",
	  "novad.conf:2: snapshots: 'maybe' is not yes or no" },
	{ "[default]\nhourly = 1\nhourly = 2\n",
	  "novad.conf:3: duplicate key 'hourly' in [default]" },
	{ "[default]\n[global]\n[default]\n",
	  "novad.conf:3: duplicate section [default]" },
	{ "[/mnt/a]\n[/mnt/a]\n",
	  "novad.conf:2: duplicate section [/mnt/a] (first at line 1)" },
	{ "[mnt/a]\n",
	  "novad.conf:1: unknown section [mnt/a] (expected global, default, a mount point or a UUID)" },
	{ "[/mnt/a/]\n",
	  "novad.conf:1: mount point '/mnt/a/' is not a normalised absolute path" },
	{ "[default\n", "novad.conf:1: expected '[SECTION]'" },
	{ "[]\n", "novad.conf:1: empty section name" },
	{ "[global]\nhourly = 3\n",
	  "novad.conf:2: unknown key 'hourly' in [global] (expected stats_interval, textfile, http_listen, corruption_hook, corruption_hook_timeout)" },
	{ "[default]\ncorruption_hook = /x\n",
	  "novad.conf:2: key 'corruption_hook' belongs in [global], not [default]" },
	{ "[global]\ncorruption_hook = hook.sh\n",
	  "novad.conf:2: corruption_hook: 'hook.sh' is not an absolute path to a program (no arguments, no shell)" },
	{ "[global]\ncorruption_hook = /usr/bin/logger -t nova\n",
	  "novad.conf:2: corruption_hook: '/usr/bin/logger -t nova' is not an absolute path to a program (no arguments, no shell)" },
	{ "[global]\ncorruption_hook = /a\ncorruption_hook = /b\n",
	  "novad.conf:3: duplicate key 'corruption_hook' in [global]" },
	{ "[global]\ncorruption_hook_timeout = 0\n",
	  "novad.conf:2: corruption_hook_timeout: '0' is not a duration from 1s to 1h" },
	{ "[global]\ncorruption_hook_timeout = 2h\n",
	  "novad.conf:2: corruption_hook_timeout: '2h' is not a duration from 1s to 1h" },
	{ "[default]\nfrequent_period = 30s\n",
	  "novad.conf:2: frequent_period: '30s' is not a whole number of minutes from 1m to 1d (e.g. 15m)" },
	{ "[default]\nfrequent_period = 90s\n",
	  "novad.conf:2: frequent_period: '90s' is not a whole number of minutes from 1m to 1d (e.g. 15m)" },
	{ "[default]\nfrequent_period = 2d\n",
	  "novad.conf:2: frequent_period: '2d' is not a whole number of minutes from 1m to 1d (e.g. 15m)" },
	{ "[default]\nfrequently = many\n",
	  "novad.conf:2: frequently: 'many' is not a count from 0 to 100000" },
	{ "[/mnt/a]\nfrequent_period = 5m\nfrequent_period = 5m\n",
	  "novad.conf:3: duplicate key 'frequent_period' in [/mnt/a]" },
	{ "[/mnt/a]\ntextfile = /x\n",
	  "novad.conf:2: key 'textfile' belongs in [global], not [/mnt/a]" },
	{ "[global]\nhttp_listen = 0.0.0.0:9469\n",
	  "novad.conf:2: http_listen: 0.0.0.0 is not a loopback address (127.0.0.0/8 or ::1)" },
	{ "[global]\nhttp_listen = [::]:9469\n",
	  "novad.conf:2: http_listen: :: is not a loopback address (127.0.0.0/8 or ::1)" },
	{ "[global]\nhttp_listen = 127.0.0.1:99999\n",
	  "novad.conf:2: http_listen: bad port '99999' (1-65535)" },
	{ "[global]\nhttp_listen = localhost:9469\n",
	  "novad.conf:2: http_listen: 'localhost' is not a numeric IPv4 or IPv6 address" },
	{ "[global]\nstats_interval = 0\n",
	  "novad.conf:2: stats_interval: '0' is not a duration from 1s to 1d (e.g. 30s, 5m)" },
	{ "[global]\nstats_interval = 5 minutes\n",
	  "novad.conf:2: stats_interval: '5 minutes' is not a duration from 1s to 1d (e.g. 30s, 5m)" },
	{ "[global]\ntextfile = nova.prom\n",
	  "novad.conf:2: textfile: 'nova.prom' is not an absolute path" },
	{ "[default]\nscrub_interval = 10s\n",
	  "novad.conf:2: scrub_interval: '10s' is not 'off' or a duration of at least 1m (e.g. 7d, 12h)" },
	{ "[default]\nscrub_bandwidth = fast\n",
	  "novad.conf:2: scrub_bandwidth: 'fast' is not a byte rate (e.g. 0 for unlimited, 512K, 100M)" },
	{ "[default]\nsnapshot_prefix = my snaps\n",
	  "novad.conf:2: snapshot_prefix: 'my snaps' must be 1-31 letters, digits, '_', '.' or '-'" },
	{ "[default]\n = 3\n", "novad.conf:2: missing key before '='" },
};

static void test_invalid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct novad_config cfg;
		char err[NOVAD_ERR_LEN];

		assert_int_equal(parse(bad[i].text, &cfg, err, sizeof(err)), -EINVAL);
		if (strcmp(err, bad[i].err))
			print_error("case %zu: expected '%s'\n", i, bad[i].err);
		assert_string_equal(err, bad[i].err);
		novad_config_free(&cfg);
	}
}

static void test_values(void **state)
{
	uint64_t v;
	bool b;
	char why[128];

	(void)state;
	assert_int_equal(novad_parse_duration("90", &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(novad_parse_duration("5m", &v), 0);
	assert_int_equal(v, 300);
	assert_int_equal(novad_parse_duration("2d", &v), 0);
	assert_int_equal(v, 172800);
	assert_int_equal(novad_parse_duration("1y", &v), -EINVAL);
	assert_int_equal(novad_parse_duration("", &v), -EINVAL);
	assert_int_equal(novad_parse_duration("99999999999999999999", &v), -ERANGE);
	assert_int_equal(novad_parse_size("512K", &v), 0);
	assert_int_equal(v, 512 * 1024);
	assert_int_equal(novad_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(novad_parse_size("20000000T", &v), -ERANGE);
	assert_int_equal(novad_parse_bool("On", &b), 0);
	assert_true(b);
	assert_int_equal(novad_parse_bool("0", &b), 0);
	assert_false(b);
	assert_int_equal(novad_parse_listen("[::1]:80", why, sizeof(why)), 0);
	assert_int_equal(novad_parse_listen("127.0.0.53:9469", why, sizeof(why)), 0);
	assert_int_equal(novad_parse_listen("10.0.0.1:80", why, sizeof(why)), -EINVAL);
	assert_int_equal(novad_parse_listen("127.0.0.1", why, sizeof(why)), -EINVAL);
}

static void test_load(void **state)
{
	struct novad_config cfg;
	char err[NOVAD_ERR_LEN], want[NOVAD_ERR_LEN];
	char path[] = "/tmp/novad-test-XXXXXX";
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(novad_config_load("/nonexistent/novad.conf", true, &cfg,
					   err, sizeof(err)), 0);
	assert_false(cfg.from_file);
	novad_config_free(&cfg);
	assert_int_equal(novad_config_load("/nonexistent/novad.conf", false, &cfg,
					   err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/novad.conf: No such file or directory");
	novad_config_free(&cfg);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("[default]\nsnapshots = yes\n\n[/mnt/x]\nbogus = 1\n", f);
	fclose(f);
	assert_int_equal(novad_config_load(path, true, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:5: unknown key 'bogus' in [/mnt/x]", path);
	assert_string_equal(err, want);
	novad_config_free(&cfg);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novactl's command-line handling: global options, object
 * lookup by name and unique prefix, number parsing, exit statuses of
 * usage errors and --help.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "novactl.h"

static int called;
static int called_argc;
static const char *called_argv0;

/* Help text goes to stdout, which carries TAP: send it elsewhere. */
static int saved_stdout = -1;

static void quiet_begin(void)
{
	int fd = open("/dev/null", O_WRONLY);

	fflush(stdout);
	saved_stdout = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	close(fd);
}

static void quiet_end(void)
{
	fflush(stdout);
	dup2(saved_stdout, STDOUT_FILENO);
	close(saved_stdout);
}

static int fake_cmd(struct nctl *c, int argc, char **argv)
{
	(void)c;
	called++;
	called_argc = argc;
	called_argv0 = argv[0];
	return 42;
}

static const struct nctl_cmd cmds[] = {
	{ "fs", fake_cmd, "", "file systems" },
	{ "stats", fake_cmd, "", "statistics" },
	{ "snapshot", fake_cmd, "", "snapshots" },
	{ "monitor", fake_cmd, "", "events" },
};
#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static int setup(void **state)
{
	(void)state;
	called = 0;
	called_argc = 0;
	called_argv0 = NULL;
	return 0;
}

static void test_global_options(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *argv[] = { "novactl", "-j", "--pretty", "stats", "-x", NULL };

	(void)state;
	assert_int_equal(nctl_parse_global(&c, 5, argv), 3);
	assert_true(c.json);
	assert_true(c.pretty);
}

static void test_global_stops_at_object(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *argv[] = { "novactl", "stats", "-j", NULL };

	(void)state;
	/* Options after OBJECT belong to the command. */
	assert_int_equal(nctl_parse_global(&c, 3, argv), 1);
	assert_false(c.json);
}

static void test_global_pretty_implies_json(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *argv[] = { "novactl", "-p", "fs", NULL };

	(void)state;
	assert_int_equal(nctl_parse_global(&c, 3, argv), 2);
	assert_true(c.json);
	assert_true(c.pretty);
}

static void test_global_help_version(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *h[] = { "novactl", "--help", NULL };
	char *v[] = { "novactl", "-V", NULL };

	(void)state;
	assert_int_equal(nctl_parse_global(&c, 2, h), NCTL_GLOBAL_HELP);
	assert_int_equal(nctl_parse_global(&c, 2, v), NCTL_GLOBAL_VERSION);
}

static void test_global_unknown_option(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *argv[] = { "novactl", "--frobnicate", "fs", NULL };

	(void)state;
	assert_int_equal(nctl_parse_global(&c, 3, argv), -NCTL_EXIT_USAGE);
}

static void test_find_exact_and_prefix(void **state)
{
	bool amb;

	(void)state;
	assert_ptr_equal(nctl_find_cmd(cmds, N_CMDS, "fs", &amb), &cmds[0]);
	assert_ptr_equal(nctl_find_cmd(cmds, N_CMDS, "st", &amb), &cmds[1]);
	assert_ptr_equal(nctl_find_cmd(cmds, N_CMDS, "m", &amb), &cmds[3]);
	assert_false(amb);
	/* "s" could be stats or snapshot. */
	assert_null(nctl_find_cmd(cmds, N_CMDS, "s", &amb));
	assert_true(amb);
	assert_null(nctl_find_cmd(cmds, N_CMDS, "statsx", &amb));
	assert_false(amb);
	assert_null(nctl_find_cmd(cmds, N_CMDS, "", &amb));
}

static void test_dispatch(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *argv[] = { "sta", "/mnt", NULL };
	char *bad[] = { "nope", NULL };

	(void)state;
	assert_int_equal(nctl_dispatch(&c, "object", cmds, N_CMDS, 2, argv), 42);
	assert_int_equal(called, 1);
	assert_int_equal(called_argc, 2);
	assert_string_equal(called_argv0, "sta");
	assert_int_equal(nctl_dispatch(&c, "object", cmds, N_CMDS, 1, bad),
			 NCTL_EXIT_USAGE);
	assert_int_equal(nctl_dispatch(&c, "object", cmds, N_CMDS, 0, bad),
			 NCTL_EXIT_USAGE);
	assert_int_equal(called, 1);
}

static void test_main_statuses(void **state)
{
	char *none[] = { "novactl", NULL };
	char *help[] = { "novactl", "-h", NULL };
	char *run[] = { "novactl", "-j", "fs", "list", NULL };
	int r;

	(void)state;
	assert_int_equal(nctl_main(1, none, cmds, N_CMDS), NCTL_EXIT_USAGE);
	quiet_begin();
	r = nctl_main(2, help, cmds, N_CMDS);
	quiet_end();
	assert_int_equal(r, NCTL_EXIT_OK);
	assert_int_equal(called, 0);
	assert_int_equal(nctl_main(4, run, cmds, N_CMDS), 42);
	assert_int_equal(called_argc, 2);
	assert_string_equal(called_argv0, "fs");
}

static void test_parse_uint(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(nctl_parse_uint("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nctl_parse_uint("10", 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(nctl_parse_uint("11", 10, &v), -ERANGE);
	assert_int_equal(nctl_parse_uint("18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(nctl_parse_uint("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(nctl_parse_uint("-1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(nctl_parse_uint("+1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(nctl_parse_uint("1x", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(nctl_parse_uint("", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(nctl_parse_uint(NULL, UINT64_MAX, &v), -EINVAL);
}

/* Real objects: usage errors are caught before any netlink traffic. */
static void test_object_usage_errors(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *stats2[] = { "stats", "/a", "/b", NULL };
	char *statsopt[] = { "stats", "--bogus", NULL };
	char *fsbad[] = { "fs", "frob", NULL };
	char *fsarg[] = { "fs", "list", "extra", NULL };
	char *mon0[] = { "monitor", "--count", "0", NULL };
	char *monx[] = { "monitor", "-c", "x", NULL };
	char *monarg[] = { "monitor", "--count", NULL };
	char *statshelp[] = { "stats", "--help", NULL };
	char *fshelp[] = { "fs", "help", NULL };
	int r1, r2;

	(void)state;
	assert_int_equal(nctl_cmd_stats(&c, 3, stats2), NCTL_EXIT_USAGE);
	assert_int_equal(nctl_cmd_stats(&c, 2, statsopt), NCTL_EXIT_USAGE);
	assert_int_equal(nctl_cmd_fs(&c, 2, fsbad), NCTL_EXIT_USAGE);
	assert_int_equal(nctl_cmd_fs(&c, 3, fsarg), NCTL_EXIT_USAGE);
	assert_int_equal(nctl_cmd_monitor(&c, 3, mon0), NCTL_EXIT_USAGE);
	assert_int_equal(nctl_cmd_monitor(&c, 3, monx), NCTL_EXIT_USAGE);
	assert_int_equal(nctl_cmd_monitor(&c, 2, monarg), NCTL_EXIT_USAGE);
	quiet_begin();
	r1 = nctl_cmd_stats(&c, 2, statshelp);
	r2 = nctl_cmd_fs(&c, 2, fshelp);
	quiet_end();
	assert_int_equal(r1, NCTL_EXIT_OK);
	assert_int_equal(r2, NCTL_EXIT_OK);
}

/* Scrub and inject grammar: every mistake is a usage error, no netlink. */
static void test_scrub_usage_errors(void **state)
{
	static char *bad[][11] = {
		{ "scrub", NULL },
		{ "scrub", "frob", "/m", NULL },
		{ "scrub", "start", NULL },
		{ "scrub", "start", "/a", "/b", NULL },
		{ "scrub", "start", "--bandwidth", "12Q", "/m", NULL },
		{ "scrub", "start", "/m", "--bandwidth", NULL },
		{ "scrub", "stop", "--bandwidth", "1M", "/m", NULL },
		{ "scrub", "status", "--wait", "/m", NULL },
		{ "scrub", "status", "-r", "/m", NULL },
		{ "debug", NULL },
		{ "debug", "inject", "/m", NULL },
		{ "debug", "inject", "bogus", "--ino", "16", "--offset", "0",
		  "/m", NULL },
		{ "debug", "inject", "data", "--offset", "0", "/m", NULL },
		{ "debug", "inject", "data", "--ino", "16", "/m", NULL },
		{ "debug", "inject", "csum", "--ino", "16", "--offset", "0",
		  "--copy", "2", "/m", NULL },
		{ "debug", "inject", "data", "--ino", "x", "--offset", "0",
		  "/m", NULL },
	};
	struct nctl c = { .prog = "novactl" };
	size_t i;
	int argc, r;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (argc = 0; bad[i][argc]; argc++)
			;
		quiet_begin();
		r = !strcmp(bad[i][0], "scrub") ?
		    nctl_cmd_scrub(&c, argc, bad[i]) :
		    nctl_cmd_debug(&c, argc, bad[i]);
		quiet_end();
		if (r != NCTL_EXIT_USAGE)
			fail_msg("case %zu (%s %s): status %d, want usage error",
				 i, bad[i][0], bad[i][1] ? bad[i][1] : "", r);
	}
}

/* Bandwidth arguments: plain bytes or binary K/M/G multiples. */
static void test_parse_rate(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(nctl_parse_rate("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(nctl_parse_rate("1000", &v), 0);
	assert_true(v == 1000);
	assert_int_equal(nctl_parse_rate("64M", &v), 0);
	assert_true(v == 64ULL << 20);
	assert_int_equal(nctl_parse_rate("512k", &v), 0);
	assert_true(v == 512ULL << 10);
	assert_int_equal(nctl_parse_rate("2G", &v), 0);
	assert_true(v == 2ULL << 30);
	assert_int_equal(nctl_parse_rate("", &v), -EINVAL);
	assert_int_equal(nctl_parse_rate("M", &v), -EINVAL);
	assert_int_equal(nctl_parse_rate("-1M", &v), -EINVAL);
	assert_int_equal(nctl_parse_rate("12Q", &v), -EINVAL);
	assert_int_equal(nctl_parse_rate("1.5M", &v), -EINVAL);
	assert_int_equal(nctl_parse_rate("99999999999999999999G", &v), -EINVAL);
	assert_int_equal(nctl_parse_rate("17179869184G", &v), -EINVAL);
}

/* Options may follow the arguments of a command. */
static void test_options_after_arguments(void **state)
{
	struct nctl c = { .prog = "novactl" };
	char *argv[] = { "stats", "/no/such/path", "-j", NULL };
	int r;

	(void)state;
	quiet_begin();
	r = nctl_cmd_stats(&c, 3, argv);
	quiet_end();
	/* The path does not exist: a failure, reported as JSON. */
	assert_int_equal(r, NCTL_EXIT_FAIL);
	assert_true(c.json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_global_options, setup),
		cmocka_unit_test_setup(test_global_stops_at_object, setup),
		cmocka_unit_test_setup(test_global_pretty_implies_json, setup),
		cmocka_unit_test_setup(test_global_help_version, setup),
		cmocka_unit_test_setup(test_global_unknown_option, setup),
		cmocka_unit_test_setup(test_find_exact_and_prefix, setup),
		cmocka_unit_test_setup(test_dispatch, setup),
		cmocka_unit_test_setup(test_main_statuses, setup),
		cmocka_unit_test_setup(test_parse_uint, setup),
		cmocka_unit_test_setup(test_object_usage_errors, setup),
		cmocka_unit_test_setup(test_options_after_arguments, setup),
		cmocka_unit_test_setup(test_scrub_usage_errors, setup),
		cmocka_unit_test_setup(test_parse_rate, setup),
	};

	return cmocka_run_group_tests_name("novactl-args", tests, NULL, NULL);
}

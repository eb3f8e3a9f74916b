// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of novad's hook runner (hook.c) on a real sd-event loop:
 * the hook runs without a shell with exactly the environment given and
 * no inherited descriptors, novad does not wait for it, exit statuses,
 * a missing program, a timeout (SIGKILL to the hook's process group),
 * the limit of hooks at once, and every child reaped. The journal is
 * replaced by a double of novad_log_fields() that records the entries.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../novad/hook.h"
#include "../../novad/log.h"

/* ---- the journal double ---- */

struct entry {
	int prio;
	char msgid[40];
	char msg[512];
	char status[64];		/* NOVA_HOOK_STATUS */
};

static struct entry log_entries[32];
static int n_log;

void novad_log_fields(int prio, const char *msgid,
		      const struct novad_fs_ref *fs, const char *const *fields,
		      const char *fmt, ...)
{
	struct entry *e = &log_entries[n_log < 31 ? n_log++ : 31];
	va_list ap;

	(void)fs;
	memset(e, 0, sizeof(*e));
	e->prio = prio;
	snprintf(e->msgid, sizeof(e->msgid), "%s", msgid ? msgid : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	for (size_t i = 0; fields && fields[i]; i++)
		if (!strncmp(fields[i], "NOVA_HOOK_STATUS=", 17))
			snprintf(e->status, sizeof(e->status), "%s", fields[i] + 17);
}

/* The entry whose NOVA_HOOK_STATUS is STATUS, or NULL. */
static const struct entry *find_status(const char *status)
{
	for (int i = 0; i < n_log; i++)
		if (!strcmp(log_entries[i].status, status))
			return &log_entries[i];
	return NULL;
}

/* ---- fixture ---- */

static char dir[64];
static struct novad_hooks hooks;
static const struct novad_fs_ref fsref = { .dev = 0x10300, .bdev = "pmem0",
					   .mountpoint = "/mnt/nova" };

static void script(const char *name, const char *body, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

static int setup(void **state)
{
	sigset_t chld;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/novad-hook-test.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	memset(&hooks, 0, sizeof(hooks));
	n_log = 0;
	return sd_event_new(&hooks.ev) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	novad_hooks_free(&hooks);
	sd_event_unref(hooks.ev);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Run the loop until no hook runs (at most LIMIT seconds). */
static void run_until_done(double limit)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (hooks.n) {
		sd_event_run(hooks.ev, 100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		assert_true(elapsed(&t0, &t) < limit);
	}
}

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Does PID exist and is it not a zombie? */
static bool alive(pid_t pid)
{
	char path[64], buf[256], *rp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (access(path, F_OK))
		return false;
	slurp(path, buf, sizeof(buf));
	rp = strrchr(buf, ')');		/* "PID (comm) STATE ..." */
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* ---- tests ---- */

static void test_env_and_fds(void **state)
{
	char path[128], out[160], cmd[512], got[2048];
	char *env[] = { "NOVA_EVENT=corruption", "NOVA_KIND=data",
			"NOVA_MOUNTPOINT=/mnt/with space", NULL };
	int leak = dup(0);	/* a descriptor the hook must not get */
	int nfd;

	(void)state;
	assert_true(leak > 2 && leak < 10);
	snprintf(out, sizeof(out), "%s/out", dir);
	/* The argument count, the environment, and the open descriptors. */
	snprintf(cmd, sizeof(cmd),
		 "ls /proc/$$/fd > %s.fds; { echo \"argc=$#\"; env | grep -v '^PWD=' | sort; } > %s",
		 out, out);
	script("env.sh", cmd, path, sizeof(path));
	assert_int_equal(novad_hook_run(&hooks, path, 10, env, &fsref, "test"), 0);
	assert_int_equal(hooks.n, 1);
	run_until_done(10);
	close(leak);
	slurp(out, got, sizeof(got));
	assert_non_null(strstr(got, "argc=0\n"));
	assert_non_null(strstr(got, "NOVA_EVENT=corruption\nNOVA_KIND=data\nNOVA_MOUNTPOINT=/mnt/with space\n"));
	assert_null(strstr(got, "HOME="));
	/*
	 * The shell's descriptors: 0-2, and its own from 10 up (dash keeps
	 * the script and a saved stdout there). Nothing of the test's (the
	 * sd-event loop, LEAK) in between.
	 */
	strcat(out, ".fds");
	slurp(out, got, sizeof(got));
	nfd = 0;
	for (char *p = got; *p;) {
		long fd = strtol(p, &p, 10);

		nfd += fd < 3;
		assert_true(fd < 3 || fd >= 10);
		assert_true(fd != leak);
		while (*p == '\n')
			p++;
	}
	assert_int_equal(nfd, 3);	/* 0, 1 and 2 */
	assert_non_null(find_status("exit-0"));
	assert_int_equal(find_status("exit-0")->prio, LOG_INFO);
	assert_string_equal(find_status("exit-0")->msgid, NOVAD_MID_HOOK);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);	/* reaped */
}

static void test_failures(void **state)
{
	char ok[128], bad[128], missing[128], plain[128];
	char *env[] = { NULL };

	(void)state;
	script("bad.sh", "exit 7", bad, sizeof(bad));
	script("ok.sh", "exit 0", ok, sizeof(ok));
	snprintf(missing, sizeof(missing), "%s/none", dir);
	/* Not executable: refused by exec, reported at once. */
	script("plain.sh", "exit 0", plain, sizeof(plain));
	assert_int_equal(chmod(plain, 0644), 0);

	assert_int_equal(novad_hook_run(&hooks, bad, 10, env, &fsref, "t"), 0);
	assert_int_equal(novad_hook_run(&hooks, missing, 10, env, &fsref, "t"), -ENOENT);
	assert_int_equal(novad_hook_run(&hooks, plain, 10, env, &fsref, "t"), -EACCES);
	assert_int_equal(hooks.n, 1);
	run_until_done(10);
	assert_non_null(find_status("exit-7"));
	assert_int_equal(find_status("exit-7")->prio, LOG_WARNING);
	assert_non_null(strstr(find_status("exit-7")->msg, "failed with exit status 7"));
	assert_non_null(find_status("not-run"));
	assert_int_equal(find_status("not-run")->prio, LOG_ERR);
	assert_non_null(strstr(find_status("not-run")->msg, "No such file or directory"));
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

static void test_timeout(void **state)
{
	char path[128], pidfile[128], cmd[256], buf[32];
	char *env[] = { NULL };
	struct timespec t0, t1;
	long child;

	(void)state;
	snprintf(pidfile, sizeof(pidfile), "%s/grandchild", dir);
	/* The hook starts a grandchild and waits: both must die. */
	snprintf(cmd, sizeof(cmd), "sleep 30 & echo $! > %s; wait", pidfile);
	script("slow.sh", cmd, path, sizeof(path));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(novad_hook_run(&hooks, path, 1, env, &fsref, "t"), 0);
	/* novad_hook_run() did not wait for it. */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(elapsed(&t0, &t1) < 0.9);
	run_until_done(5);
	assert_non_null(find_status("timeout"));
	assert_non_null(strstr(find_status("timeout")->msg, "timed out after 1 s"));
	slurp(pidfile, buf, sizeof(buf));
	child = strtol(buf, NULL, 10);
	assert_true(child > 0);
	/* The group was killed: gone, or a zombie waiting for its reaper. */
	for (int i = 0; i < 20 && alive((pid_t)child); i++)
		usleep(50000);
	assert_false(alive((pid_t)child));
}

static void test_limit(void **state)
{
	char path[128];
	char *env[] = { NULL };

	(void)state;
	script("wait.sh", "sleep 0.5", path, sizeof(path));
	for (int i = 0; i < NOVAD_HOOKS_MAX; i++)
		assert_int_equal(novad_hook_run(&hooks, path, 10, env, &fsref, "t"), 0);
	assert_int_equal(novad_hook_run(&hooks, path, 10, env, &fsref, "t"), -EAGAIN);
	assert_non_null(strstr(find_status("not-run")->msg, "too many hooks"));
	run_until_done(10);
	assert_int_equal(n_log, NOVAD_HOOKS_MAX + 1);
	/* Room again. */
	assert_int_equal(novad_hook_run(&hooks, path, 10, env, &fsref, "t"), 0);
	run_until_done(10);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_env_and_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

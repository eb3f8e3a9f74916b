// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad hooks (see hook.h).
 *
 * posix_spawn() (glibc: clone(CLONE_VFORK) + execve) returns only once
 * the child has exec'ed or failed to, so a missing or non-executable
 * hook is an error here, and the loop is never blocked for longer than
 * an exec. The child gets a clean signal mask (sd-event blocks the
 * signals it handles, and a blocked SIGTERM would survive exec), default
 * dispositions, its own session (a timeout kills its whole process
 * group), and no descriptor beyond stdin/stdout/stderr (stdout and
 * stderr are novad's: under systemd the hook's output lands in the
 * journal with the unit's name).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "hook.h"
#include "log.h"

struct novad_hook {
	struct novad_hook *next;
	struct novad_hooks *owner;
	pid_t pid;
	bool timed_out;
	uint64_t timeout;
	sd_event_source *child, *timer;
	char path[NOVAD_PATH_LEN];
	char what[256];
	/* The file system, copied: the fs may be gone when the hook ends. */
	uint8_t uuid[NOVA_GENL_UUID_LEN];
	char bdev[NOVA_BDEV_LEN];
	char mountpoint[NOVAD_PATH_LEN];
	struct novad_fs_ref ref;
};

static void hook_unlink(struct novad_hook *k)
{
	struct novad_hooks *h = k->owner;

	for (struct novad_hook **pp = &h->list; *pp; pp = &(*pp)->next) {
		if (*pp == k) {
			*pp = k->next;
			h->n--;
			break;
		}
	}
	sd_event_source_disable_unref(k->child);
	sd_event_source_disable_unref(k->timer);
	free(k);
}

static void hook_log(int prio, struct novad_hook *k, const char *status,
		     const char *fmt, const char *detail)
{
	char fpath[NOVAD_PATH_LEN + 16], fstat[64];
	const char *const fields[] = { fpath, fstat, NULL };

	snprintf(fpath, sizeof(fpath), "NOVA_HOOK=%s", k->path);
	snprintf(fstat, sizeof(fstat), "NOVA_HOOK_STATUS=%s", status);
	novad_log_fields(prio, NOVAD_MID_HOOK, &k->ref, fields, fmt, k->path,
			 k->what, detail);
}

static int on_child(sd_event_source *s, const siginfo_t *si, void *arg)
{
	struct novad_hook *k = arg;
	char detail[128], status[32];

	(void)s;
	if (si->si_code == CLD_EXITED) {
		snprintf(status, sizeof(status), "exit-%d", si->si_status);
		if (si->si_status == 0) {
			hook_log(LOG_INFO, k, status, "hook %s for %s: done%s", "");
		} else {
			snprintf(detail, sizeof(detail), " with exit status %d",
				 si->si_status);
			hook_log(LOG_WARNING, k, status, "hook %s for %s failed%s",
				 detail);
		}
	} else if (k->timed_out) {
		snprintf(detail, sizeof(detail), "after %" PRIu64 " s: killed",
			 k->timeout);
		hook_log(LOG_WARNING, k, "timeout", "hook %s for %s timed out %s",
			 detail);
	} else {
		snprintf(status, sizeof(status), "signal-%d", si->si_status);
		snprintf(detail, sizeof(detail), "killed by signal %d (%s)",
			 si->si_status, strsignal(si->si_status));
		hook_log(LOG_WARNING, k, status, "hook %s for %s failed: %s",
			 detail);
	}
	hook_unlink(k);
	return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *arg)
{
	struct novad_hook *k = arg;

	(void)s, (void)usec;
	k->timed_out = true;
	/* Its own session and process group (POSIX_SPAWN_SETSID): kill
	 * whatever it started too. on_child reports and cleans up. */
	if (kill(-k->pid, SIGKILL))
		kill(k->pid, SIGKILL);
	return 0;
}

static int spawn(struct novad_hook *k, char *const env[])
{
	char *const argv[] = { k->path, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int r;

	sigemptyset(&none);
	sigfillset(&all);
	r = posix_spawnattr_init(&at);
	if (r)
		return -r;
	r = posix_spawn_file_actions_init(&fa);
	if (r) {
		posix_spawnattr_destroy(&at);
		return -r;
	}
	r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
				     POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
	if (!r)
		r = posix_spawnattr_setsigmask(&at, &none);
	if (!r)
		r = posix_spawnattr_setsigdefault(&at, &all);
	if (!r)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (!r)
		r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						     O_RDONLY, 0);
	if (!r)
		r = posix_spawn(&k->pid, k->path, &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return -r;
}

int novad_hook_run(struct novad_hooks *h, const char *path, uint64_t timeout,
		   char *const env[], const struct novad_fs_ref *fs,
		   const char *what)
{
	struct novad_hook *k;
	int r;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->owner = h;
	k->timeout = timeout;
	snprintf(k->path, sizeof(k->path), "%s", path);
	snprintf(k->what, sizeof(k->what), "%s", what);
	memcpy(k->uuid, fs->uuid, sizeof(k->uuid));
	snprintf(k->bdev, sizeof(k->bdev), "%s", fs->bdev ? fs->bdev : "");
	snprintf(k->mountpoint, sizeof(k->mountpoint), "%s",
		 fs->mountpoint ? fs->mountpoint : "");
	k->ref = (struct novad_fs_ref){ .dev = fs->dev, .bdev = k->bdev,
		.mountpoint = k->mountpoint[0] ? k->mountpoint : NULL };
	memcpy(k->ref.uuid, fs->uuid, sizeof(k->ref.uuid));

	if (h->n >= NOVAD_HOOKS_MAX) {
		hook_log(LOG_WARNING, k, "not-run",
			 "hook %s for %s not run: %s",
			 "too many hooks still running (at most 8)");
		free(k);
		return -EAGAIN;
	}
	r = spawn(k, env);
	if (r) {
		hook_log(LOG_ERR, k, "not-run", "hook %s for %s cannot be run: %s",
			 strerror(-r));
		free(k);
		return r;
	}
	r = sd_event_add_child(h->ev, &k->child, k->pid, WEXITED, on_child, k);
	if (r >= 0)
		r = sd_event_add_time_relative(h->ev, &k->timer, CLOCK_MONOTONIC,
					       timeout * 1000000ull, 100000ull,
					       on_timeout, k);
	if (r < 0) {
		/* Cannot watch it: do not leave it running unwatched. */
		sd_event_source_disable_unref(k->child);
		kill(k->pid, SIGKILL);
		waitpid(k->pid, NULL, 0);
		hook_log(LOG_ERR, k, "not-run", "hook %s for %s killed: %s",
			 "cannot watch it in the event loop");
		free(k);
		return r;
	}
	k->next = h->list;
	h->list = k;
	h->n++;
	return 0;
}

void novad_hooks_free(struct novad_hooks *h)
{
	while (h->list)
		hook_unlink(h->list);
}

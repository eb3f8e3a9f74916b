/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad hooks: run an operator's program (corruption_hook =) for an
 * event, without a shell, without waiting for it. The child's exit and
 * the timeout are sd-event sources; both end in a journal entry. The
 * caller must have SIGCHLD blocked (main.c does, before the loop).
 */
#ifndef NOVAD_HOOK_H
#define NOVAD_HOOK_H

#include <stdint.h>

#include <systemd/sd-event.h>

#include "backend.h"

/* At most this many hooks at once; more are not started (and logged). */
#define NOVAD_HOOKS_MAX		8

struct novad_hook;

struct novad_hooks {
	sd_event *ev;
	struct novad_hook *list;	/* running */
	unsigned int n;
};

/*
 * Start PATH with argv { PATH, NULL } and environment ENV; kill it with
 * SIGKILL after TIMEOUT seconds. WHAT describes the event for the
 * journal ("corruption: inode 12 log-entry"). Returns 0 once started,
 * or -errno (the reason is logged with FS's fields).
 */
int novad_hook_run(struct novad_hooks *h, const char *path, uint64_t timeout,
		   char *const env[], const struct novad_fs_ref *fs,
		   const char *what);

/* Forget running hooks (they keep running; systemd stops the cgroup). */
void novad_hooks_free(struct novad_hooks *h);

#endif /* NOVAD_HOOK_H */

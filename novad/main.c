// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad: the NOVA daemon. sd-event loop, sd_notify (READY=1 once the
 * genl sockets are up and the first statistics are out, STATUS=,
 * RELOADING=1, STOPPING=1), watchdog pings from the loop itself
 * (sd_event_set_watchdog), SIGTERM/SIGINT end the loop
 * (sd_event_set_signal_exit), SIGHUP reloads the configuration and keeps
 * the old one if the new one is invalid.
 *
 * Debugging the watchdog: with NOVAD_DEBUG_HANG_SIGNAL=1 in the
 * environment, SIGUSR2 makes the main loop block for good (no more
 * pings), so systemd's watchdog must kill and restart novad.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "daemon.h"
#include "log.h"

#define _cleanup_(f) __attribute__((cleanup(f)))

/* sysexits.h EX_CONFIG: Restart=on-failure leaves it alone (unit file). */
#define NOVAD_EXIT_CONFIG	78
#define NOVAD_VERSION		"0.1"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: novad [--config FILE] [--state-dir DIR]\n"
		"       novad --check-config [--config FILE]\n"
		"\n"
		"The NOVA daemon: follows mounted NOVA file systems, schedules\n"
		"snapshots with retention and scrubs, exports statistics. Meant to\n"
		"run under systemd (novad.service); see novad(8), novad.conf(5).\n"
		"\n"
		"  -c, --config FILE     configuration (default " NOVAD_CONFIG_PATH ")\n"
		"  -t, --check-config    check the configuration and exit (0: valid)\n"
		"  -s, --state-dir DIR   job state (default $STATE_DIRECTORY, else\n"
		"                        /var/lib/novad)\n"
		"  -h, --help, -V, --version\n");
}

void novad_status(struct novad *d, const char *prefix)
{
	const char *ws = d->backend.ops->snapshot_unavailable(d->backend.ctx);
	const char *wc = d->backend.ops->scrub_unavailable(d->backend.ctx);
	unsigned int snap = 0, scrub = 0, ro = 0;
	char buf[8192], snaps[64], ros[64] = "";

	for (struct novad_fs *f = d->fs; f; f = f->next) {
		if (f->read_only) {
			ro++;
			continue;
		}
		snap += f->pol.snapshots;
		scrub += f->pol.scrub_interval > 0;
	}
	if (ro)
		snprintf(ros, sizeof(ros), "; %u read-only (skipped)", ro);
	if (ws)
		snprintf(snaps, sizeof(snaps), "unavailable (see the journal for why)");
	else if (snap)
		snprintf(snaps, sizeof(snaps), "scheduled on %u", snap);
	else
		snprintf(snaps, sizeof(snaps), "none scheduled");
	snprintf(buf, sizeof(buf),
		 "%s%sfollowing %u NOVA file system%s; snapshots: %s; scrub: %s%s; stats: %s%s%s%s%s",
		 prefix ? prefix : "", prefix ? "; " : "", d->nfs,
		 d->nfs == 1 ? "" : "s", snaps,
		 wc ? "unavailable (see the journal for why)" : "",
		 wc ? "" : (scrub ? "scheduled" : "not configured"),
		 d->cfg.textfile[0] ? d->cfg.textfile : "no textfile",
		 d->http ? ", http " : "", d->http ? d->cfg.http_listen : "",
		 d->stats_error[0] || d->export_error[0] ? " (export failing, see journal)" : "",
		 ros);
	sd_notifyf(0, "STATUS=%s", buf);
}

static void config_rejected(const char *err, const char *what)
{
	char ffile[NOVAD_PATH_LEN + 16], fline[32];
	const char *colon = strchr(err, ':');
	const char *const fields[] = { ffile, fline, NULL };
	unsigned int line = 0;

	snprintf(ffile, sizeof(ffile), "CONFIG_FILE=%.*s",
		 colon ? (int)(colon - err) : (int)strlen(err), err);
	if (colon)
		sscanf(colon + 1, "%u", &line);
	snprintf(fline, sizeof(fline), "CONFIG_LINE=%u", line);
	novad_log_fields(LOG_ERR, NOVAD_MID_CONFIG_REJECTED, NULL,
			 line ? fields : fields + 1, "%s; %s", err, what);
}

/* A hook that cannot run is worth a warning now, not at the first corruption. */
static void check_hook(const struct novad *d)
{
	const char *h = d->cfg.corruption_hook;

	if (h[0] && access(h, X_OK))
		novad_log_fields(LOG_WARNING, NOVAD_MID_HOOK, NULL,
				 (const char *const[]){ "NOVA_HOOK_STATUS=not-executable", NULL },
				 "corruption_hook %s cannot be run: %s", h, strerror(errno));
}

static const char *http_body(void *arg)
{
	return ((struct novad *)arg)->metrics;
}

static int start_http(struct novad *d)
{
	char why[512];
	int r;

	novad_http_stop(d->http);
	d->http = NULL;
	if (!d->cfg.http_listen[0])
		return 0;
	r = novad_http_start(d->ev, d->cfg.http_listen, http_body, d, &d->http,
			     why, sizeof(why));
	if (r)
		novad_log(LOG_ERR, NULL, "HTTP metrics export: %s", why);
	else
		novad_log(LOG_INFO, NULL, "serving metrics on http://%s/metrics",
			  d->cfg.http_listen);
	return r;
}

static void replan(struct novad *d)
{
	novad_jobs_run_due(d, (int64_t)time(NULL));
	novad_jobs_schedule(d, (int64_t)time(NULL));
	novad_status(d, NULL);
}

static int on_job_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)s, (void)usec;
	replan(arg);
	return 0;
}

static int on_stats_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	struct novad *d = arg;

	if (novad_stats_collect(d))
		replan(d);	/* remounted: jobs stop or resume */
	sd_event_source_set_time(s, usec + d->cfg.stats_interval * 1000000ull);
	return 0;
}

static int on_events(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct novad *d = arg;
	struct nova_err e;
	bool resync = false;
	int r;

	(void)s, (void)fd, (void)revents;
	for (;;) {
		r = nova_ipc_recv_events(d->g.ev, novad_fs_event, d, &e);
		if (r == -EAGAIN)
			break;
		if (r == -ENOBUFS) {
			resync = true;	/* lost some: ask for the full list */
			continue;
		}
		if (r < 0) {
			novad_log(LOG_ERR, NULL, "reading nova notifications: %s", e.msg);
			return sd_event_exit(d->ev, EXIT_FAILURE);
		}
	}
	if (resync) {
		novad_log(LOG_WARNING, NULL,
			  "nova notifications were lost; listing file systems again");
		novad_fs_resync(d);
	}
	novad_stats_collect(d);
	replan(d);
	return 0;
}

static int on_mountinfo(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct novad *d = arg;

	(void)s, (void)fd, (void)revents;
	if (!novad_fs_refresh_mounts(d))
		return 0;
	novad_stats_collect(d);	/* the mountpoint label changed */
	replan(d);
	return 0;
}

static int arm_clock_watch(int fd)
{
	/* Fires (ECANCELED) only when someone sets the realtime clock. */
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)1 << 40 } };

	return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
			       &its, NULL) ? -errno : 0;
}

static int on_clock_change(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct novad *d = arg;
	uint64_t n;

	(void)s, (void)revents;
	if (read(fd, &n, sizeof(n)) < 0 && errno == ECANCELED) {
		novad_log(LOG_INFO, NULL, "system clock changed; re-planning jobs");
		arm_clock_watch(fd);
		replan(d);
	}
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si,
		     void *arg)
{
	struct novad *d = arg;
	struct novad_config cfg;
	char err[NOVAD_ERR_LEN];
	bool http_changed;
	int r;

	(void)s, (void)si;
	sd_notify(0, "RELOADING=1\nSTATUS=reloading the configuration");
	r = novad_config_load(d->config_path, true, &cfg, err, sizeof(err));
	if (r) {
		config_rejected(err, "keeping the previous configuration");
		novad_config_free(&cfg);
		sd_notify(0, "READY=1");
		novad_status(d, "last reload rejected (see journal)");
		return 0;
	}
	http_changed = strcmp(cfg.http_listen, d->cfg.http_listen) != 0;
	novad_config_free(&d->cfg);
	d->cfg = cfg;
	novad_log(LOG_INFO, NULL, "configuration reloaded from %s%s", d->cfg.file,
		  d->cfg.from_file ? "" : " (absent: built-in defaults)");
	if (http_changed || (d->cfg.http_listen[0] && !d->http))
		start_http(d);
	check_hook(d);
	novad_fs_apply_config(d);
	sd_event_source_set_time_relative(d->stats_timer, 0);
	sd_notify(0, "READY=1");
	replan(d);
	return 0;
}

static int on_debug_hang(sd_event_source *s, const struct signalfd_siginfo *si,
			 void *arg)
{
	(void)s, (void)si, (void)arg;
	novad_log(LOG_WARNING, NULL,
		  "SIGUSR2 with NOVAD_DEBUG_HANG_SIGNAL=1: hanging the main loop (no more watchdog pings)");
	for (;;)
		pause();
	return 0;
}

static void novad_done(struct novad *d)
{
	novad_http_stop(d->http);
	novad_hooks_free(&d->hooks);
	sd_event_source_disable_unref(d->ev_src);
	sd_event_source_disable_unref(d->stats_timer);
	sd_event_source_disable_unref(d->job_timer);
	sd_event_source_disable_unref(d->mnt_src);
	sd_event_source_disable_unref(d->clock_src);
	if (d->mnt_fd >= 0)
		close(d->mnt_fd);
	if (d->clock_fd >= 0)
		close(d->clock_fd);
	novad_genl_close(&d->g);
	novad_fs_free_all(d);
	novad_state_free(&d->state);
	novad_config_free(&d->cfg);
	free(d->metrics);
	sd_event_unref(d->ev);
}

static int setup_sources(struct novad *d)
{
	int r;

	r = sd_event_add_io(d->ev, &d->ev_src, novad_genl_event_fd(&d->g),
			    EPOLLIN, on_events, d);
	if (r < 0)
		return r;
	r = sd_event_add_time_relative(d->ev, &d->stats_timer, CLOCK_MONOTONIC,
				       d->cfg.stats_interval * 1000000ull,
				       1000000ull, on_stats_timer, d);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(d->stats_timer, SD_EVENT_ON);
	r = sd_event_add_time(d->ev, &d->job_timer, CLOCK_REALTIME, 0,
			      1000000ull, on_job_timer, d);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(d->job_timer, SD_EVENT_OFF);
	d->mnt_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (d->mnt_fd < 0)
		return -errno;
	r = sd_event_add_io(d->ev, &d->mnt_src, d->mnt_fd, EPOLLPRI,
			    on_mountinfo, d);
	if (r < 0)
		return r;
	d->clock_fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->clock_fd < 0 || arm_clock_watch(d->clock_fd))
		return -errno;
	r = sd_event_add_io(d->ev, &d->clock_src, d->clock_fd, EPOLLIN,
			    on_clock_change, d);
	if (r < 0)
		return r;
	r = sd_event_add_signal(d->ev, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK,
				on_sighup, d);
	if (r < 0)
		return r;
	if (getenv("NOVAD_DEBUG_HANG_SIGNAL") &&
	    !strcmp(getenv("NOVAD_DEBUG_HANG_SIGNAL"), "1")) {
		r = sd_event_add_signal(d->ev, NULL,
					SIGUSR2 | SD_EVENT_SIGNAL_PROCMASK,
					on_debug_hang, d);
		if (r < 0)
			return r;
	}
	r = sd_event_set_signal_exit(d->ev, true);
	if (r < 0)
		return r;
	return sd_event_set_watchdog(d->ev, true);
}

/*
 * nova.ko is not loaded yet (novad started before modules-load, or by
 * hand): wait for the family instead of exiting into a restart loop.
 * One log line and STATUS= say so; READY=1 goes out, so that systemd
 * neither times the start out nor restarts novad, and the watchdog is
 * fed. Polls with a backoff from 1 s to 10 s; SIGTERM still ends it.
 */
static int wait_for_family(struct novad *d, struct nova_err *e)
{
	unsigned int delay = 1;
	bool said = false;
	int r;

	for (;;) {
		r = novad_genl_open(&d->g, e);
		if (!r && said)
			novad_log(LOG_INFO, NULL, "the nova genl family appeared (nova.ko loaded); starting");
		if (!r || !d->g.no_family)
			return r;
		if (!said) {
			novad_log(LOG_WARNING, NULL,
				  "%s: waiting for it (load the module: modprobe nova; make install adds it to modules-load.d)",
				  e->msg);
			sd_notify(0, "READY=1\nSTATUS=waiting for nova.ko: generic netlink family \"nova\" not found");
			said = true;
		}
		sleep(delay);
		sd_notify(0, "WATCHDOG=1");
		if (delay < 10)
			delay = delay * 2 > 10 ? 10 : delay * 2;
	}
}

static void startup_report(struct novad *d)
{
	const char *ws = d->backend.ops->snapshot_unavailable(d->backend.ctx);
	const char *wc = d->backend.ops->scrub_unavailable(d->backend.ctx);
	char ops[256];

	novad_genl_ops_string(&d->g, ops, sizeof(ops));
	novad_log_fields(LOG_INFO, NOVAD_MID_STARTED, NULL, NULL,
			 "novad %s started: nova genl family %d version %u, commands %s; configuration %s%s; state %s",
			 NOVAD_VERSION, nova_ipc_family_id(d->g.req),
			 nova_ipc_family_version(d->g.req), ops, d->cfg.file,
			 d->cfg.from_file ? "" : " (absent: built-in defaults)",
			 d->state_path);
	if (ws)
		novad_log_fields(LOG_WARNING, NOVAD_MID_JOB_UNAVAILABLE, NULL,
				 (const char *const[]){ "NOVA_JOB=snapshot", NULL },
				 "snapshot jobs unavailable: %s", ws);
	if (wc)
		novad_log_fields(LOG_WARNING, NOVAD_MID_JOB_UNAVAILABLE, NULL,
				 (const char *const[]){ "NOVA_JOB=scrub", NULL },
				 "scrub jobs unavailable: %s", wc);
	check_hook(d);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 't' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_(novad_done) struct novad d = { .config_path = NOVAD_CONFIG_PATH,
						 .mnt_fd = -1, .clock_fd = -1 };
	const char *state_dir = getenv("STATE_DIRECTORY");
	char err[NOVAD_ERR_LEN];
	struct nova_err e;
	bool check = false;
	sigset_t chld;
	size_t bad = 0;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "c:ts:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			d.config_path = optarg;
			break;
		case 't':
			check = true;
			break;
		case 's':
			state_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("novad %s\n", NOVAD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "novad: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	r = novad_config_load(d.config_path, !check, &d.cfg, err, sizeof(err));
	if (check) {
		if (r) {
			fprintf(stderr, "%s\n", err);
			return NOVAD_EXIT_CONFIG;
		}
		printf("%s: OK\n", d.config_path);
		return 0;
	}
	if (r) {
		config_rejected(err, "novad refuses to start");
		/* Also on stderr: a process that exits at once may leave the
		 * journal unable to tell its unit; the stream always can. */
		if (getenv("JOURNAL_STREAM"))
			fprintf(stderr, "novad: %s; novad refuses to start\n", err);
		sd_notifyf(0, "STATUS=invalid configuration: %s", err);
		return NOVAD_EXIT_CONFIG;
	}

	/* $STATE_DIRECTORY may list several; the first is ours. */
	snprintf(d.state_path, sizeof(d.state_path), "%.*s/state",
		 state_dir ? (int)strcspn(state_dir, ":") : 14,
		 state_dir ? state_dir : "/var/lib/novad");
	r = novad_state_load(d.state_path, &d.state, &bad);
	if (r)
		novad_log(LOG_WARNING, NULL, "cannot read %s: %s; starting without job history",
			  d.state_path, strerror(-r));
	else if (bad)
		novad_log(LOG_WARNING, NULL, "%s: ignored %zu malformed line%s",
			  d.state_path, bad, bad == 1 ? "" : "s");

	/*
	 * sd_event_add_child() (corruption hooks) needs SIGCHLD blocked;
	 * SIGHUP too, so that a reload while novad waits for nova.ko is
	 * kept for the event loop instead of killing it.
	 */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigaddset(&chld, SIGHUP);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	r = sd_event_default(&d.ev);
	if (r < 0) {
		novad_log(LOG_ERR, NULL, "sd_event_default: %s", strerror(-r));
		return EXIT_FAILURE;
	}
	d.hooks.ev = d.ev;
	r = wait_for_family(&d, &e);
	if (r) {
		novad_log(LOG_ERR, NULL, "cannot talk to the kernel: %s", e.msg);
		sd_notifyf(0, "STATUS=cannot talk to the kernel: %s", e.msg);
		return EXIT_FAILURE;
	}
	d.backend = novad_genl_backend(&d.g);
	r = setup_sources(&d);
	if (r < 0) {
		novad_log(LOG_ERR, NULL, "cannot set up the event loop: %s", strerror(-r));
		return EXIT_FAILURE;
	}
	startup_report(&d);
	novad_fs_resync(&d);
	novad_stats_collect(&d);
	if (start_http(&d)) {
		sd_notify(0, "STATUS=cannot start the HTTP metrics export (see journal)");
		return NOVAD_EXIT_CONFIG;
	}
	sd_notify(0, "READY=1");
	replan(&d);

	r = sd_event_loop(d.ev);
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	if (r < 0) {
		novad_log(LOG_ERR, NULL, "event loop failed: %s", strerror(-r));
		return EXIT_FAILURE;
	}
	novad_log(LOG_INFO, NULL, "novad stopping");
	return r;
}

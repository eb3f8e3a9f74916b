// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novactl monitor: print NOVA notifications as they arrive.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "novactl.h"

struct monitor {
	struct nctl *c;
	uint64_t left;		/* events still to print; 0: unlimited */
	bool limited;
};

static void monitor_help(FILE *f)
{
	fprintf(f,
		"Usage: novactl monitor [-j|--json] [-p|--pretty] [-c|--count N]\n"
		"\n"
		"Print NOVA notifications (file system mounted / unmounted) as they\n"
		"arrive, one line each (JSON: one document per line). Once subscribed\n"
		"it says so on stderr. Runs until interrupted, or until N events were\n"
		"printed with --count.\n");
}

static void monitor_time(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* SCRUB_FINISHED and CORRUPTION; other unknown ones are skipped. */
static int monitor_scrub_event(struct monitor *m, const struct nlmsghdr *nlh)
{
	struct nova_scrub_event *ev = malloc(sizeof(*ev));
	char t[40], dev[32];
	int err;

	if (!ev)
		return -ENOMEM;
	err = nova_decode_scrub_event(nlh, ev);
	if (err) {
		free(ev);
		return err == -ENOENT ? 0 : err;	/* newer than us: skip */
	}
	monitor_time(t, sizeof(t));
	if (m->c->json) {
		struct json_object *doc = nctl_json_scrub_event(ev, t);

		nctl_json_print(m->c, doc);
		json_object_put(doc);
	} else if (ev->cmd == NOVA_CMD_CORRUPTION) {
		nctl_fmt_dev(ev->id.dev, dev, sizeof(dev));
		printf("%s %-12s %s %s kind %s inode %llu offset %llu %s suppressed %llu\n",
		       t, "corruption", dev, ev->id.bdev,
		       nova_corruption_kind_name(ev->corruption.kind),
		       (unsigned long long)ev->corruption.ino,
		       (unsigned long long)ev->corruption.offset,
		       ev->corruption.repaired ? "repaired" : "unrepaired",
		       (unsigned long long)ev->suppressed);
	} else {
		nctl_fmt_dev(ev->id.dev, dev, sizeof(dev));
		printf("%s %-12s %s %s state %s errors %llu repaired %llu unrecoverable %llu\n",
		       t, "scrub-finished", dev, ev->id.bdev,
		       nova_scrub_state_name(ev->scrub.state),
		       (unsigned long long)ev->scrub.errors,
		       (unsigned long long)ev->scrub.repaired,
		       (unsigned long long)ev->scrub.unrecoverable);
	}
	fflush(stdout);
	free(ev);
	if (m->limited && !--m->left)
		return 1;	/* stop */
	return 0;
}

static int monitor_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct monitor *m = arg;
	struct nova_event ev;
	char t[40], dev[32], uuid[37];
	int err;

	err = nova_decode_event(nlh, &ev);
	if (err == -ENOENT)
		return monitor_scrub_event(m, nlh);
	if (err)
		return err;
	monitor_time(t, sizeof(t));
	if (m->c->json) {
		struct json_object *doc = nctl_json_event(&ev, t);

		nctl_json_print(m->c, doc);
		json_object_put(doc);
	} else {
		nctl_fmt_dev(ev.id.dev, dev, sizeof(dev));
		nova_uuid_format(ev.id.uuid, uuid);
		printf("%s %-12s %s %s uuid %s label \"%s\"\n", t,
		       nova_event_name(ev.kind), dev, ev.id.bdev, uuid,
		       ev.id.label);
		fflush(stdout);
	}
	if (m->limited && !--m->left)
		return 1;	/* stop */
	return 0;
}

int nctl_cmd_monitor(struct nctl *c, int argc, char **argv)
{
	static const struct option opts[] = {
		NCTL_COMMON_OPTS,
		{ "count", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct monitor m = { .c = c };
	struct nova_ipc *ipc;
	struct nova_err e;
	int opt, r;

	nctl_getopt_reset();
	while ((opt = getopt_long(argc, argv, NCTL_COMMON_SHORT "c:", opts,
				  NULL)) != -1) {
		if (nctl_common_opt(c, opt))
			continue;
		switch (opt) {
		case 'h':
			monitor_help(stdout);
			return NCTL_EXIT_OK;
		case 'c':
			if (nctl_parse_uint(optarg, UINT64_MAX, &m.left) || !m.left)
				return nctl_usage_error(c,
					"monitor: --count needs a positive number, not '%s'",
					optarg);
			m.limited = true;
			break;
		case ':':
			return nctl_usage_error(c, "monitor: '%s' needs an argument",
						argv[optind - 1]);
		default:
			return nctl_usage_error(c, "monitor: unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (optind < argc)
		return nctl_usage_error(c, "monitor: unexpected argument '%s'",
					argv[optind]);

	r = nctl_ipc_open(c, &ipc);
	if (r)
		return r;
	if (nova_ipc_subscribe(ipc, &e)) {
		r = nctl_error_nova(c, &e);
		goto out;
	}
	fprintf(stderr, "Monitoring NOVA events (group \"%s\")\n",
		NOVA_GENL_MCGRP_EVENTS);
	for (;;) {
		r = nova_ipc_recv_events(ipc, monitor_cb, &m, &e);
		if (r == 1) {
			r = NCTL_EXIT_OK;
			break;
		}
		if (r == -ENOBUFS) {
			/* Say so and go on: the listener may resynchronise. */
			fprintf(stderr, "Warning: %s\n", e.msg);
			continue;
		}
		if (r == -EINTR)
			continue;
		if (r == -ENOENT) {
			r = nctl_error(c, NCTL_EXIT_NO_NOVA, r, "%s", e.msg);
			break;
		}
		if (r) {
			if (!e.err)
				nova_err_set(&e, r, "bad notification: %s",
					     strerror(-r));
			r = nctl_error_nova(c, &e);
			break;
		}
	}
out:
	nova_ipc_close(ipc);
	return r;
}

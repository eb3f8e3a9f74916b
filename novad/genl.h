/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad genl glue: the daemon's two libnova sockets (one for requests,
 * one subscribed to the "events" group, so a notification never arrives
 * in the middle of a dump), what the kernel's family offers, and the job
 * backend over it.
 */
#ifndef NOVAD_GENL_H
#define NOVAD_GENL_H

#include <stdbool.h>

#include "libnova.h"
#include "nova_family.h"
#include "backend.h"

struct novad_genl {
	struct nova_ipc *req;
	struct nova_ipc *ev;
	struct nova_family_ops ops;
	bool have_stats;
	char snapshot_why[256];		/* "" : snapshot jobs available */
	char scrub_why[256];		/* "" : scrub jobs available */
	bool no_family;			/* open failed: no "nova" family */
};

/*
 * Open both sockets, read the op list, subscribe. 0 or -errno (E says);
 * no_family tells a missing family (nova.ko not loaded) from the rest.
 */
int novad_genl_open(struct novad_genl *g, struct nova_err *e);
void novad_genl_close(struct novad_genl *g);
int novad_genl_event_fd(const struct novad_genl *g);

/* The job backend over G (snapshot/scrub availability from the op list). */
struct novad_backend novad_genl_backend(struct novad_genl *g);

/* Comma-separated command numbers the family offers, for the journal. */
void novad_genl_ops_string(const struct novad_genl *g, char *buf, size_t len);

#endif /* NOVAD_GENL_H */

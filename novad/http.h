/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad HTTP export: GET /metrics on a loopback address, for a Prometheus
 * that scrapes novad directly instead of through node_exporter. Minimal
 * HTTP/1.0-style server inside the event loop: one request per
 * connection, answered from the last collected metrics, then closed.
 */
#ifndef NOVAD_HTTP_H
#define NOVAD_HTTP_H

#include <systemd/sd-event.h>

struct novad_http;

/* The current metrics text (may be NULL before the first collection). */
typedef const char *(*novad_http_body_fn)(void *arg);

/*
 * Listen on LISTEN ("127.0.0.1:9469", "[::1]:9469"). 0 or -errno; WHY
 * gets a description of a failure (e.g. address family forbidden by the
 * unit's RestrictAddressFamilies=).
 */
int novad_http_start(sd_event *ev, const char *listen, novad_http_body_fn body,
		     void *arg, struct novad_http **out, char *why, size_t whylen);
void novad_http_stop(struct novad_http *h);

/* The response to a request head, for the unit tests: malloc'ed. */
char *novad_http_response(const char *request, const char *body);

#endif /* NOVAD_HTTP_H */

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad HTTP export (see http.h). Connections are non-blocking and live
 * in the sd-event loop; each has a 5 s deadline, so a client that never
 * finishes its request cannot pile up file descriptors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http.h"

#define HTTP_REQ_MAX	4096
#define HTTP_DEADLINE_US (5 * 1000000ull)
#define HTTP_MAX_CONNS	16

struct conn {
	struct novad_http *h;
	struct conn *next;
	int fd;
	sd_event_source *io, *timer;
	char req[HTTP_REQ_MAX + 1];
	size_t req_len;
	char *resp;
	size_t resp_len, resp_off;
};

struct novad_http {
	sd_event *ev;
	int fd;
	sd_event_source *io;
	novad_http_body_fn body;
	void *arg;
	struct conn *conns;
	unsigned int nconns;
};

static char *respond(int code, const char *reason, const char *ctype,
		     const char *body, bool head)
{
	char *out = NULL;
	size_t blen = strlen(body);

	if (asprintf(&out,
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n%s",
		     code, reason, ctype, blen, head ? "" : body) < 0)
		return NULL;
	return out;
}

char *novad_http_response(const char *request, const char *body)
{
	char method[16], path[256];
	bool head;

	if (sscanf(request, "%15s %255s", method, path) != 2)
		return respond(400, "Bad Request", "text/plain", "bad request\n", false);
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head)
		return respond(405, "Method Not Allowed", "text/plain",
			       "only GET and HEAD\n", false);
	if (strcmp(path, "/metrics") && strncmp(path, "/metrics?", 9)) {
		if (!strcmp(path, "/"))
			return respond(200, "OK", "text/plain",
				       "novad: NOVA metrics at /metrics\n", head);
		return respond(404, "Not Found", "text/plain", "not found\n", head);
	}
	if (!body)
		return respond(503, "Service Unavailable", "text/plain",
			       "no statistics collected yet\n", head);
	return respond(200, "OK", "text/plain; version=0.0.4; charset=utf-8",
		       body, head);
}

static void conn_free(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->h->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	c->h->nconns--;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	close(c->fd);
	free(c->resp);
	free(c);
}

static int conn_write(struct conn *c)
{
	while (c->resp_off < c->resp_len) {
		ssize_t w = send(c->fd, c->resp + c->resp_off,
				 c->resp_len - c->resp_off, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;	/* wait for EPOLLOUT */
			conn_free(c);
			return 0;
		}
		c->resp_off += (size_t)w;
	}
	shutdown(c->fd, SHUT_WR);
	conn_free(c);
	return 0;
}

static int on_conn_io(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct conn *c = arg;
	ssize_t n;

	(void)s;
	if (c->resp)
		return conn_write(c);
	if (revents & (EPOLLERR | EPOLLHUP) && !(revents & EPOLLIN)) {
		conn_free(c);
		return 0;
	}
	n = recv(fd, c->req + c->req_len, HTTP_REQ_MAX - c->req_len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		conn_free(c);
		return 0;
	}
	c->req_len += (size_t)n;
	c->req[c->req_len] = '\0';
	if (!strstr(c->req, "\r\n\r\n") && !strstr(c->req, "\n\n") &&
	    c->req_len < HTTP_REQ_MAX)
		return 0;	/* head not complete yet */
	c->resp = novad_http_response(c->req, c->h->body(c->h->arg));
	if (!c->resp) {
		conn_free(c);
		return 0;
	}
	c->resp_len = strlen(c->resp);
	sd_event_source_set_io_events(c->io, EPOLLOUT);
	return conn_write(c);
}

static int on_conn_timeout(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)s, (void)usec;
	conn_free(arg);
	return 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct novad_http *h = arg;
	struct conn *c;
	int cfd;

	(void)s, (void)revents;
	cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0)
		return 0;
	if (h->nconns >= HTTP_MAX_CONNS) {
		close(cfd);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(cfd);
		return 0;
	}
	c->h = h;
	c->fd = cfd;
	c->next = h->conns;
	h->conns = c;
	h->nconns++;
	if (sd_event_add_io(h->ev, &c->io, cfd, EPOLLIN, on_conn_io, c) < 0 ||
	    sd_event_add_time_relative(h->ev, &c->timer, CLOCK_MONOTONIC,
				       HTTP_DEADLINE_US, 0, on_conn_timeout, c) < 0)
		conn_free(c);
	return 0;
}

static int parse_addr(const char *addr, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	char host[64];
	const char *colon;
	size_t hlen;
	int port;

	if (addr[0] == '[') {
		const char *rb = strchr(addr, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		hlen = (size_t)(rb - addr - 1);
		colon = rb + 1;
		addr++;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		hlen = (size_t)(colon - addr);
	}
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, hlen);
	host[hlen] = '\0';
	port = atoi(colon + 1);
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*len = sizeof(*in);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

int novad_http_start(sd_event *ev, const char *addr, novad_http_body_fn body,
		     void *arg, struct novad_http **out, char *why, size_t whylen)
{
	struct sockaddr_storage ss;
	struct novad_http *h;
	socklen_t slen;
	int one = 1, r;

	*out = NULL;
	if (parse_addr(addr, &ss, &slen)) {
		snprintf(why, whylen, "http_listen: cannot parse '%s'", addr);
		return -EINVAL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	h->ev = ev;
	h->body = body;
	h->arg = arg;
	h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->fd < 0) {
		r = -errno;
		snprintf(why, whylen,
			 "cannot create an %s socket for %s: %s%s",
			 ss.ss_family == AF_INET ? "AF_INET" : "AF_INET6",
			 addr, strerror(-r),
			 r == -EAFNOSUPPORT ?
			 " (the unit's RestrictAddressFamilies= must allow it, see novad(8))" : "");
		free(h);
		return r;
	}
	setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->fd, (struct sockaddr *)&ss, slen) || listen(h->fd, 16)) {
		r = -errno;
		snprintf(why, whylen, "cannot listen on %s: %s", addr,
			 strerror(-r));
		close(h->fd);
		free(h);
		return r;
	}
	r = sd_event_add_io(ev, &h->io, h->fd, EPOLLIN, on_accept, h);
	if (r < 0) {
		snprintf(why, whylen, "sd_event_add_io: %s", strerror(-r));
		close(h->fd);
		free(h);
		return r;
	}
	*out = h;
	return 0;
}

void novad_http_stop(struct novad_http *h)
{
	if (!h)
		return;
	while (h->conns)
		conn_free(h->conns);
	sd_event_source_disable_unref(h->io);
	close(h->fd);
	free(h);
}

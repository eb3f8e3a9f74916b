// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libnova ipc: the generic netlink socket, family resolution, requests with
 * extended-ACK parsing, and multicast notifications.
 *
 * libnl 3.7 has no extack support, so the socket asks for extended ACKs
 * (NETLINK_EXT_ACK, and NETLINK_CAP_ACK so the request is not echoed back)
 * and the ACK/DONE messages are parsed here, as iproute2 does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "libnova.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nova_ipc {
	struct nl_sock *sk;
	int family;
	uint32_t version;
	uint32_t mcgrp_events;		/* 0: not found */
	bool watch_ctrl;		/* joined nlctrl's "notify" group */
};

void nova_err_clear(struct nova_err *e)
{
	if (!e)
		return;
	e->err = 0;
	e->msg[0] = '\0';
	e->from_kernel = false;
	e->bad_attr_off = -1;
	e->missing_attr = -1;
}

void nova_err_set(struct nova_err *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	e->err = err;
	e->from_kernel = false;
	e->bad_attr_off = -1;
	e->missing_attr = -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* libnl reports failures as -NLE_*; the errno behind them is more useful. */
static int nova_errno(int saved_errno, int fallback)
{
	return saved_errno > 0 ? -saved_errno : fallback;
}

int nova_parse_ack(const struct nlmsghdr *nlh, struct nova_err *e)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const unsigned char *payload = nlmsg_data(nlh);
	int plen = nlmsg_datalen(nlh);
	size_t hlen;
	int err;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *ne = (const void *)payload;

		if (plen < (int)sizeof(*ne)) {
			nova_err_set(e, -EBADMSG, "truncated netlink error message");
			return -EBADMSG;
		}
		err = ne->error;
		hlen = sizeof(*ne);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
		    ne->msg.nlmsg_len >= NLMSG_HDRLEN)
			hlen += ne->msg.nlmsg_len - NLMSG_HDRLEN;
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		if (plen < (int)sizeof(int)) {
			/* Very old kernels send an empty DONE. */
			err = 0;
			hlen = (size_t)plen;
		} else {
			memcpy(&err, payload, sizeof(err));
			hlen = sizeof(int);
		}
	} else {
		nova_err_set(e, -EBADMSG, "netlink message type %u is not an ACK",
			     nlh->nlmsg_type);
		return -EBADMSG;
	}
	if (err > 0)	/* not an errno: treat as a protocol error */
		err = -EPROTO;

	nova_err_clear(e);
	if (e)
		e->err = err;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && hlen <= (size_t)plen &&
	    nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(payload + hlen),
		      plen - (int)hlen, NULL) == 0) {
		struct nlattr *m = tb[NLMSGERR_ATTR_MSG];

		if (m && e && nla_len(m) > 0) {
			size_t n = (size_t)nla_len(m);

			if (n >= sizeof(e->msg))
				n = sizeof(e->msg) - 1;
			memcpy(e->msg, nla_data(m), n);
			e->msg[n] = '\0';
			/* The kernel includes the NUL; drop any trailing newline. */
			n = strlen(e->msg);
			while (n && e->msg[n - 1] == '\n')
				e->msg[--n] = '\0';
			e->from_kernel = n > 0;
		}
		if (tb[NLMSGERR_ATTR_OFFS] && e &&
		    nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4)
			e->bad_attr_off = (int)nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
		if (tb[NLMSGERR_ATTR_MISS_TYPE] && e &&
		    nla_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4)
			e->missing_attr =
				(int)nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	}
	/*
	 * The family's admin-only commands (GENL_ADMIN_PERM) are refused
	 * before any handler could explain: say what is missing.
	 */
	if (err == -EPERM && e && !e->from_kernel)
		snprintf(e->msg, sizeof(e->msg),
			 "permission denied: this command needs root (CAP_SYS_ADMIN/CAP_NET_ADMIN)");
	else if (err && e && !e->from_kernel)
		snprintf(e->msg, sizeof(e->msg), "%s", strerror(-err));
	return err;
}

struct nl_msg *nova_ipc_msg(struct nova_ipc *ipc, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ipc->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, NOVA_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Receive into *BUF; returns the length or a negative errno. */
static int nova_recv(struct nova_ipc *ipc, unsigned char **buf,
		     struct nova_err *e)
{
	struct sockaddr_nl nla;
	int n, saved;

	*buf = NULL;
	errno = 0;
	n = nl_recv(ipc->sk, &nla, buf, NULL);
	saved = errno;
	if (n > 0)
		return n;
	free(*buf);
	*buf = NULL;
	if (n == 0) {
		nova_err_set(e, -ECONNRESET, "netlink socket closed");
		return -ECONNRESET;
	}
	n = nova_errno(saved, -EIO);
	if (n != -EAGAIN)
		nova_err_set(e, n, "receiving from netlink: %s", strerror(-n));
	return n;
}

int nova_ipc_transact(struct nova_ipc *ipc, struct nl_msg *msg,
		      nova_msg_cb cb, void *arg, struct nova_err *e)
{
	struct nlmsghdr *req = nlmsg_hdr(msg);
	unsigned char *buf;
	bool intr = false, done = false;
	int cb_err = 0, err = 0, n, saved;
	uint32_t seq;

	nova_err_clear(e);
	req->nlmsg_flags |= NLM_F_ACK;
	nl_complete_msg(ipc->sk, msg);
	seq = req->nlmsg_seq;
	errno = 0;
	n = nl_send(ipc->sk, msg);
	saved = errno;
	nlmsg_free(msg);
	if (n < 0) {
		err = nova_errno(saved, -EIO);
		nova_err_set(e, err, "sending to netlink: %s", strerror(-err));
		return err;
	}

	while (!done) {
		struct nlmsghdr *h;

		n = nova_recv(ipc, &buf, e);
		if (n < 0)
			return n;
		for (h = (struct nlmsghdr *)buf; nlmsg_ok(h, n);
		     h = nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq)
				continue;	/* a late reply to something else */
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = true;
			if (h->nlmsg_type == NLMSG_ERROR ||
			    h->nlmsg_type == NLMSG_DONE) {
				err = nova_parse_ack(h, e);
				done = true;
				break;
			}
			if (h->nlmsg_type < NLMSG_MIN_TYPE)
				continue;	/* NOOP, OVERRUN */
			if (!cb_err && cb)
				cb_err = cb(h, arg);
		}
		free(buf);
	}
	if (err)
		return err;
	if (cb_err) {
		nova_err_set(e, cb_err, "cannot decode the reply: %s",
			     strerror(-cb_err));
		return cb_err;
	}
	if (intr) {
		nova_err_set(e, -EINTR,
			     "the dump was interrupted by a concurrent change");
		return -EINTR;
	}
	return 0;
}

struct nova_family_reply {
	const char *group;		/* multicast group to look up */
	int id;
	uint32_t version;
	uint32_t mcgrp;
};

static int nova_family_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nova_family_reply *r = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct nlattr *grp;
	int rem;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, NULL))
		return -EBADMSG;
	if (!tb[CTRL_ATTR_FAMILY_ID] || !tb[CTRL_ATTR_VERSION])
		return -EBADMSG;
	r->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	r->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	nla_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS], rem) {
		struct nlattr *g[CTRL_ATTR_MCAST_GRP_MAX + 1];

		if (nla_parse_nested(g, CTRL_ATTR_MCAST_GRP_MAX, grp, NULL) ||
		    !g[CTRL_ATTR_MCAST_GRP_NAME] || !g[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		if (!strcmp(nla_get_string(g[CTRL_ATTR_MCAST_GRP_NAME]), r->group))
			r->mcgrp = nla_get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return 0;
}

/* CTRL_CMD_GETFAMILY for NAME; fills R (id, version, GROUP's id). */
static int nova_getfamily(struct nova_ipc *ipc, const char *name,
			  struct nova_family_reply *r, struct nova_err *e)
{
	struct nl_msg *msg;
	int err;

	r->id = -1;
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL,
				 0, 0, CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name)) {
		nlmsg_free(msg);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	err = nova_ipc_transact(ipc, msg, nova_family_cb, r, e);
	if (!err && r->id < 0) {
		nova_err_set(e, -EBADMSG, "no reply resolving family \"%s\"", name);
		err = -EBADMSG;
	}
	return err;
}

static int nova_resolve(struct nova_ipc *ipc, struct nova_err *e)
{
	struct nova_family_reply r = { .group = NOVA_GENL_MCGRP_EVENTS };
	int err;

	err = nova_getfamily(ipc, NOVA_GENL_NAME, &r, e);
	if (err == -ENOENT) {
		nova_err_set(e, err,
			     "generic netlink family \"%s\" not found (is nova.ko loaded?)",
			     NOVA_GENL_NAME);
		return err;
	}
	if (err)
		return err;
	if (r.version != NOVA_GENL_VERSION) {
		nova_err_set(e, -EPROTO,
			     "kernel speaks nova protocol version %u, this program version %u",
			     r.version, NOVA_GENL_VERSION);
		return -EPROTO;
	}
	ipc->family = r.id;
	ipc->version = r.version;
	ipc->mcgrp_events = r.mcgrp;
	return 0;
}

int nova_ipc_open(struct nova_ipc **ipcp, struct nova_err *e)
{
	struct nova_ipc *ipc;
	int one = 1, err, saved, fd;

	nova_err_clear(e);
	*ipcp = NULL;
	ipc = calloc(1, sizeof(*ipc));
	if (!ipc) {
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	ipc->sk = nl_socket_alloc();
	if (!ipc->sk) {
		free(ipc);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	errno = 0;
	if (genl_connect(ipc->sk) < 0) {
		saved = errno;
		err = nova_errno(saved, -EIO);
		nova_err_set(e, err, "cannot open a generic netlink socket: %s",
			     strerror(-err));
		nova_ipc_close(ipc);
		return err;
	}
	fd = nl_socket_get_fd(ipc->sk);
	/* Both are best effort: a kernel without them just sends less. */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_enable_msg_peek(ipc->sk);
	nl_socket_disable_auto_ack(ipc->sk);	/* nova_ipc_transact asks */

	err = nova_resolve(ipc, e);
	if (err) {
		nova_ipc_close(ipc);
		return err;
	}
	*ipcp = ipc;
	return 0;
}

void nova_ipc_close(struct nova_ipc *ipc)
{
	if (!ipc)
		return;
	nl_socket_free(ipc->sk);
	free(ipc);
}

int nova_ipc_fd(const struct nova_ipc *ipc)
{
	return nl_socket_get_fd(ipc->sk);
}

int nova_ipc_family_id(const struct nova_ipc *ipc)
{
	return ipc->family;
}

uint32_t nova_ipc_family_version(const struct nova_ipc *ipc)
{
	return ipc->version;
}

static int nova_join(struct nova_ipc *ipc, uint32_t grp, const char *name,
		     struct nova_err *e)
{
	int err, saved;

	errno = 0;
	if (nl_socket_add_membership(ipc->sk, (int)grp) < 0) {
		saved = errno;
		err = nova_errno(saved, -EIO);
		nova_err_set(e, err, "cannot join multicast group \"%s\": %s",
			     name, strerror(-err));
		return err;
	}
	return 0;
}

int nova_ipc_subscribe(struct nova_ipc *ipc, struct nova_err *e)
{
	struct nova_family_reply ctrl = { .group = "notify" };
	int err;

	nova_err_clear(e);
	if (!ipc->mcgrp_events) {
		nova_err_set(e, -ENOENT,
			     "the kernel has no \"%s\" multicast group",
			     NOVA_GENL_MCGRP_EVENTS);
		return -ENOENT;
	}
	err = nova_join(ipc, ipc->mcgrp_events, NOVA_GENL_MCGRP_EVENTS, e);
	if (err)
		return err;
	/*
	 * Also watch the controller, to notice the family going away (module
	 * unloaded) instead of waiting forever. Best effort.
	 */
	if (!nova_getfamily(ipc, "nlctrl", &ctrl, NULL) && ctrl.mcgrp &&
	    !nova_join(ipc, ctrl.mcgrp, "notify", NULL))
		ipc->watch_ctrl = true;
	nova_err_clear(e);
	return 0;
}

/* Is NLH the controller announcing that our family was unregistered? */
static bool nova_family_gone(const struct nova_ipc *ipc,
			     const struct nlmsghdr *nlh)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct genlmsghdr *gh;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    !genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return false;
	gh = nlmsg_data(nlh);
	if (gh->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, NULL) ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return false;
	return nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) == ipc->family;
}

int nova_ipc_set_nonblocking(struct nova_ipc *ipc)
{
	return nl_socket_set_nonblocking(ipc->sk) < 0 ? -EIO : 0;
}

int nova_ipc_recv_events(struct nova_ipc *ipc, nova_msg_cb cb, void *arg,
			 struct nova_err *e)
{
	unsigned char *buf;
	struct nlmsghdr *h;
	int n, err = 0;

	nova_err_clear(e);
	n = nova_recv(ipc, &buf, e);
	if (n == -ENOBUFS)
		nova_err_set(e, n, "notifications were lost (receive buffer overrun)");
	if (n < 0)
		return n;
	for (h = (struct nlmsghdr *)buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
		if (ipc->watch_ctrl && nova_family_gone(ipc, h)) {
			nova_err_set(e, -ENOENT,
				     "generic netlink family \"%s\" was unregistered (nova.ko unloaded)",
				     NOVA_GENL_NAME);
			err = -ENOENT;
			break;
		}
		if (h->nlmsg_type != ipc->family)
			continue;
		err = cb(h, arg);
		if (err)
			break;
	}
	free(buf);
	return err;
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libnova family introspection (see nova_family.h): CTRL_CMD_GETFAMILY
 * for "nova", keeping only CTRL_ATTR_OPS. Uses the same request path as
 * every other libnova query (nova_ipc_transact).
 */
#include <errno.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <linux/genetlink.h>

#include "nova_family.h"

static int nova_family_ops_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nova_family_ops *ops = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op;
	int rem;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, NULL))
		return -EBADMSG;
	if (!tb[CTRL_ATTR_OPS])
		return 0;
	nla_for_each_nested(op, tb[CTRL_ATTR_OPS], rem) {
		struct nlattr *o[CTRL_ATTR_OP_MAX + 1];
		uint32_t id;

		if (nla_parse_nested(o, CTRL_ATTR_OP_MAX, op, NULL) ||
		    !o[CTRL_ATTR_OP_ID] || nla_len(o[CTRL_ATTR_OP_ID]) < 4)
			return -EBADMSG;
		id = nla_get_u32(o[CTRL_ATTR_OP_ID]);
		if (id > 255)
			continue;
		if (!(ops->bits[id / 32] & (1u << (id % 32))))
			ops->count++;
		ops->bits[id / 32] |= 1u << (id % 32);
		if (o[CTRL_ATTR_OP_FLAGS] && nla_len(o[CTRL_ATTR_OP_FLAGS]) >= 4)
			ops->flags[id] = nla_get_u32(o[CTRL_ATTR_OP_FLAGS]);
	}
	return 0;
}

int nova_family_ops_get(struct nova_ipc *ipc, struct nova_family_ops *ops,
			struct nova_err *e)
{
	struct nl_msg *msg;

	memset(ops, 0, sizeof(*ops));
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL,
				 0, 0, CTRL_CMD_GETFAMILY, 1) ||
	    nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, NOVA_GENL_NAME)) {
		nlmsg_free(msg);
		nova_err_set(e, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return nova_ipc_transact(ipc, msg, nova_family_ops_cb, ops, e);
}

bool nova_family_has_cmd(const struct nova_family_ops *ops, uint8_t cmd)
{
	return ops->bits[cmd / 32] & (1u << (cmd % 32));
}

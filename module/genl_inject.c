// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA control plane: NOVA_CMD_INJECT, the corruption injector's command
 * (uapi/linux/nova_genl.h). Built only into the test module
 * (NOVA_TEST_HOOKS); the production module does not register the command,
 * and the generic netlink core answers it with EOPNOTSUPP. Even in the
 * test module the command works only with the module parameter inject=1.
 *
 * Locking (nova.h): takes s_umount (read) of the file system it damages, and
 * nothing else; nova_inject() takes the file system's own locks below it.
 */
#define pr_fmt(fmt) "nova: " fmt

#include <linux/fs.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "nova.h"
#include "genl.h"
#include "protect.h"

static const struct nla_policy nova_inject_policy[NOVA_INJECT_A_MAX + 1] = {
	[NOVA_INJECT_A_TARGET]	= NLA_POLICY_RANGE(NLA_U32, 1, NOVA_INJECT_MAX),
	[NOVA_INJECT_A_INODE]	= { .type = NLA_U64 },
	[NOVA_INJECT_A_OFFSET]	= { .type = NLA_U64 },
	[NOVA_INJECT_A_COPY]	= NLA_POLICY_MAX(NLA_U32, 1),
};

const struct nla_policy nova_inject_req_policy[NOVA_A_INJECT + 1] = {
	[NOVA_A_FS_DEV]		= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_A_FS_UUID]	= NLA_POLICY_EXACT_LEN(NOVA_GENL_UUID_LEN),
	[NOVA_A_INJECT]		= NLA_POLICY_NESTED(nova_inject_policy),
};

struct nova_inject_req {
	u32 target;
	u64 ino;
	u64 offset;
	u32 copy;
};

static int nova_inject_reply(struct genl_info *info,
			     const struct nova_ctl_fs *fs,
			     const struct nova_inject_req *r)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nova_genl_family, 0,
				NOVA_CMD_INJECT);
	if (!hdr || nova_put_identity(msg, fs))
		goto fail;
	nest = nla_nest_start(msg, NOVA_A_INJECT);
	if (!nest ||
	    nla_put_u32(msg, NOVA_INJECT_A_TARGET, r->target) ||
	    nla_put_u64_64bit(msg, NOVA_INJECT_A_INODE, r->ino,
			      NOVA_INJECT_A_PAD) ||
	    nla_put_u64_64bit(msg, NOVA_INJECT_A_OFFSET, r->offset,
			      NOVA_INJECT_A_PAD) ||
	    nla_put_u32(msg, NOVA_INJECT_A_COPY, r->copy))
		goto fail;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
fail:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* The request's NOVA_A_INJECT nest; sets extack on failure. */
static int nova_inject_parse(struct genl_info *info,
			     struct nova_inject_req *r)
{
	struct nlattr *tb[NOVA_INJECT_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_INJECT];
	int err;

	if (!nest) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NOVA_A_INJECT);
		GENL_SET_ERR_MSG(info, "NOVA_A_INJECT is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, NOVA_INJECT_A_MAX, nest, nova_inject_policy,
			       info->extack);
	if (err)
		return err;
	if (!tb[NOVA_INJECT_A_TARGET]) {
		NL_SET_ERR_ATTR_MISS(info->extack, nest, NOVA_INJECT_A_TARGET);
		GENL_SET_ERR_MSG(info, "NOVA_INJECT_A_TARGET is required");
		return -EINVAL;
	}
	r->target = nla_get_u32(tb[NOVA_INJECT_A_TARGET]);
	r->ino = tb[NOVA_INJECT_A_INODE] ?
		 nla_get_u64(tb[NOVA_INJECT_A_INODE]) : 0;
	r->offset = tb[NOVA_INJECT_A_OFFSET] ?
		    nla_get_u64(tb[NOVA_INJECT_A_OFFSET]) : 0;
	r->copy = tb[NOVA_INJECT_A_COPY] ?
		  nla_get_u32(tb[NOVA_INJECT_A_COPY]) : 0;
	return 0;
}

static void nova_inject_errmsg(struct genl_info *info, int err)
{
	switch (err) {
	case -ENOENT:
		GENL_SET_ERR_MSG(info, "no such inode, or it has no such object");
		break;
	case -ERANGE:
		GENL_SET_ERR_MSG(info, "offset beyond the object");
		break;
	case -EINVAL:
		GENL_SET_ERR_MSG(info, "the target has no such copy or object");
		break;
	case -EOPNOTSUPP:
		GENL_SET_ERR_MSG(info, "the file system does not keep that object (protection off)");
		break;
	case -EROFS:
		GENL_SET_ERR_MSG(info, "the file system is mounted read-only (or is a snapshot)");
		break;
	default:
		GENL_SET_ERR_MSG(info, "injection failed");
		break;
	}
}

int nova_inject_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nova_inject_req r;
	struct nova_ctl_fs fs;
	struct super_block *sb;
	int err;

	if (!nova_inject_enabled()) {
		GENL_SET_ERR_MSG(info, "the corruption injector is off (load nova.ko with inject=1)");
		return -EPERM;
	}
	err = nova_inject_parse(info, &r);
	if (err)
		return err;
	sb = nova_ctl_get_sb(skb, info, &fs, NULL);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	/* s_umount keeps remount and freezing away while the media changes. */
	down_read(&sb->s_umount);
	if (sb_rdonly(sb) || NOVA_SB(sb)->view_epoch != NOVA_EPOCH_LIVE)
		err = -EROFS;
	else
		err = nova_inject(sb, r.target, r.ino, r.offset, r.copy);
	up_read(&sb->s_umount);
	if (err)
		nova_inject_errmsg(info, err);
	else
		err = nova_inject_reply(info, &fs, &r);
	deactivate_super(sb);
	return err;
}

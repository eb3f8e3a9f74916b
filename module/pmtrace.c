// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: the persistence trace, the recording half of the persistence
 * checker (tests/guest/pcheck.py, docs/testing.md). Test module only
 * (NOVA_TEST_HOOKS).
 *
 * NOVA_CMD_PMTRACE ARM names a block device and allocates a buffer
 * (vmalloc, 1..1024 MiB). From the next mount of that device on, every
 * write-back of its cache lines (nova_pmem_flush(), _memset(),
 * _memcpy(), _store64() and the commit helpers, and the copies of user
 * data and parity in protect.c and csum.c) appends a FLUSH record: the
 * byte offset on the device and the bytes of the whole cache lines as
 * they are at that moment, which is what the write-back makes durable;
 * every fence appends a FENCE record (one for a run of fences with
 * nothing between them). MARK requests put the workload's markers into
 * the same sequence. A record that does not fit is counted as lost, and
 * the status says so: the checker refuses an incomplete trace. STOP ends
 * the recording; the records are then read with a dump of the same
 * command and FREE drops the buffer.
 *
 * The trace is global, like the CPU's fence: a fence issued for another
 * file system is recorded too (a harmless extra crash point). Stores
 * that were never written back are never in the trace, which is what
 * makes a missing flush visible: the checker builds images from the
 * records only.
 *
 * Locking (nova.h): nova_pmtrace_mutex (control requests and dumps; may sleep:
 * static keys, vmalloc), then nova_pmtrace_lock (the buffer and the
 * attached mapping; a leaf, taken with interrupts off by the hooks,
 * which run under any NOVA lock).
 */
#define pr_fmt(fmt) "nova: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <net/genetlink.h>
#include <linux/nova_genl.h>

#include "genl.h"
#include "pmtrace.h"

DEFINE_STATIC_KEY_FALSE(nova_pmtrace_armed);

/* A FLUSH record carries at most this much; longer ranges are split. */
#define NOVA_PMTRACE_CHUNK	2048
#define NOVA_PMTRACE_LINE	64

enum { NOVA_PMTRACE_OFF, NOVA_PMTRACE_RECORDING, NOVA_PMTRACE_STOPPED };

/* In the buffer: a header, then @len bytes (FLUSH), 8-byte aligned. */
struct nova_pmtrace_hdr {
	u32	type;		/* enum nova_pmtrace_rec */
	u32	len;		/* bytes after the header */
	u64	off;		/* FLUSH: device offset; MARK: the value */
};

static DEFINE_MUTEX(nova_pmtrace_mutex);
static DEFINE_SPINLOCK(nova_pmtrace_lock);

/* Under nova_pmtrace_lock (and the mutex for buf, cap and state). */
static struct {
	u8		*buf;
	size_t		cap;
	size_t		used;
	u64		records;
	u64		lost;
	u32		last_type;
	int		state;
	dev_t		bdev;
	const u8	*virt;	/* the mapping of bdev while mounted */
	u64		size;
} pmt;

/* Append one record; caller holds nova_pmtrace_lock. */
static void nova_pmtrace_put(u32 type, u64 off, const void *data, u32 len)
{
	size_t need = sizeof(struct nova_pmtrace_hdr) + ALIGN(len, 8);
	struct nova_pmtrace_hdr *h;

	if (pmt.used + need > pmt.cap) {
		pmt.lost++;
		return;
	}
	h = (struct nova_pmtrace_hdr *)(pmt.buf + pmt.used);
	h->type = type;
	h->len = len;
	h->off = off;
	if (len)
		memcpy(h + 1, data, len);
	pmt.used += need;
	pmt.records++;
	pmt.last_type = type;
}

void nova_pmtrace_flush_hit(const void *addr, size_t len)
{
	const u8 *p = addr;
	unsigned long flags;
	u64 start, end, n;

	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	if (pmt.state != NOVA_PMTRACE_RECORDING || !pmt.virt ||
	    p < pmt.virt || p >= pmt.virt + pmt.size || !len)
		goto out;
	start = round_down((u64)(p - pmt.virt), NOVA_PMTRACE_LINE);
	end = min_t(u64, round_up((u64)(p - pmt.virt) + len, NOVA_PMTRACE_LINE),
		    pmt.size);
	while (start < end) {
		n = min_t(u64, end - start, NOVA_PMTRACE_CHUNK);
		nova_pmtrace_put(NOVA_PMTRACE_FLUSH, start, pmt.virt + start, n);
		start += n;
	}
out:
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
}

void nova_pmtrace_fence_hit(void)
{
	unsigned long flags;

	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	if (pmt.state == NOVA_PMTRACE_RECORDING && pmt.virt &&
	    pmt.last_type != NOVA_PMTRACE_FENCE)
		nova_pmtrace_put(NOVA_PMTRACE_FENCE, 0, NULL, 0);
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
}

/* A mount mapped its device at @virt: record it if it is the armed one. */
void nova_pmtrace_attach(struct super_block *sb, void *virt, u64 size)
{
	unsigned long flags;
	bool on = false;

	if (!static_branch_unlikely(&nova_pmtrace_armed))
		return;
	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	if (pmt.state == NOVA_PMTRACE_RECORDING && !pmt.virt &&
	    sb->s_dev == pmt.bdev) {
		pmt.virt = virt;
		pmt.size = size;
		on = true;
	}
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
	if (on)
		pr_info("persistence trace: recording %s\n", sb->s_id);
}

/* The mapping at @virt goes away (unmount, failed mount). */
void nova_pmtrace_detach(void *virt)
{
	unsigned long flags;

	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	if (pmt.virt && pmt.virt == virt)
		pmt.virt = NULL;
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
}

/* Stop recording and drop the buffer; caller holds the mutex. */
static void nova_pmtrace_free(void)
{
	unsigned long flags;
	u8 *buf;

	static_branch_disable(&nova_pmtrace_armed);
	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	buf = pmt.buf;
	pmt.buf = NULL;
	pmt.cap = 0;
	pmt.used = 0;
	pmt.records = 0;
	pmt.lost = 0;
	pmt.state = NOVA_PMTRACE_OFF;
	pmt.virt = NULL;
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
	vfree(buf);
}

void nova_pmtrace_exit(void)
{
	mutex_lock(&nova_pmtrace_mutex);
	nova_pmtrace_free();
	mutex_unlock(&nova_pmtrace_mutex);
}

/* ---- control plane: NOVA_CMD_PMTRACE ---- */

static const struct nla_policy nova_pmtrace_policy[NOVA_PMTRACE_A_MAX + 1] = {
	[NOVA_PMTRACE_A_OP]	= NLA_POLICY_RANGE(NLA_U32, 1, NOVA_PMTRACE_OP_MAX),
	[NOVA_PMTRACE_A_BDEV]	= NLA_POLICY_FULL_RANGE(NLA_U64, &nova_dev_range),
	[NOVA_PMTRACE_A_SIZE]	= NLA_POLICY_RANGE(NLA_U32, 1, 1024),
	[NOVA_PMTRACE_A_VALUE]	= { .type = NLA_U64 },
};

const struct nla_policy nova_pmtrace_req_policy[NOVA_A_PMTRACE + 1] = {
	[NOVA_A_PMTRACE]	= NLA_POLICY_NESTED(nova_pmtrace_policy),
};

/* The status reply; caller holds the mutex. */
static int nova_pmtrace_reply(struct genl_info *info)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	unsigned long flags;
	u64 records, used, lost;
	u32 state;
	void *hdr;

	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	state = pmt.state;
	records = pmt.records;
	used = pmt.used;
	lost = pmt.lost;
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nova_genl_family, 0,
				NOVA_CMD_PMTRACE);
	if (!hdr)
		goto fail;
	nest = nla_nest_start(msg, NOVA_A_PMTRACE);
	if (!nest ||
	    nla_put_u32(msg, NOVA_PMTRACE_A_STATE, state) ||
	    nla_put_u64_64bit(msg, NOVA_PMTRACE_A_RECORDS, records,
			      NOVA_PMTRACE_A_PAD) ||
	    nla_put_u64_64bit(msg, NOVA_PMTRACE_A_BYTES, used,
			      NOVA_PMTRACE_A_PAD) ||
	    nla_put_u64_64bit(msg, NOVA_PMTRACE_A_LOST, lost,
			      NOVA_PMTRACE_A_PAD))
		goto fail;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
fail:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int nova_pmtrace_arm(struct genl_info *info, struct nlattr **tb)
{
	u32 mib = 64;
	unsigned long flags;
	u8 *buf;

	if (!tb[NOVA_PMTRACE_A_BDEV]) {
		GENL_SET_ERR_MSG(info, "ARM needs NOVA_PMTRACE_A_BDEV");
		return -EINVAL;
	}
	if (pmt.state != NOVA_PMTRACE_OFF) {
		GENL_SET_ERR_MSG(info, "a persistence trace exists (FREE it first)");
		return -EBUSY;
	}
	if (tb[NOVA_PMTRACE_A_SIZE])
		mib = nla_get_u32(tb[NOVA_PMTRACE_A_SIZE]);
	buf = vmalloc((size_t)mib << 20);
	if (!buf) {
		GENL_SET_ERR_MSG(info, "cannot allocate the trace buffer");
		return -ENOMEM;
	}
	spin_lock_irqsave(&nova_pmtrace_lock, flags);
	pmt.buf = buf;
	pmt.cap = (size_t)mib << 20;
	pmt.used = 0;
	pmt.records = 0;
	pmt.lost = 0;
	pmt.last_type = 0;
	pmt.virt = NULL;
	pmt.bdev = new_decode_dev((u32)nla_get_u64(tb[NOVA_PMTRACE_A_BDEV]));
	pmt.state = NOVA_PMTRACE_RECORDING;
	spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
	static_branch_enable(&nova_pmtrace_armed);
	pr_info("persistence trace: armed for device %u:%u, %u MiB\n",
		MAJOR(pmt.bdev), MINOR(pmt.bdev), mib);
	return 0;
}

static int nova_pmtrace_op(struct genl_info *info, u32 op, struct nlattr **tb)
{
	unsigned long flags;
	int err = 0;

	switch (op) {
	case NOVA_PMTRACE_ARM:
		return nova_pmtrace_arm(info, tb);
	case NOVA_PMTRACE_STOP:
		if (pmt.state == NOVA_PMTRACE_OFF)
			goto none;
		spin_lock_irqsave(&nova_pmtrace_lock, flags);
		pmt.state = NOVA_PMTRACE_STOPPED;
		pmt.virt = NULL;
		spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
		static_branch_disable(&nova_pmtrace_armed);
		return 0;
	case NOVA_PMTRACE_FREE:
		nova_pmtrace_free();
		return 0;
	case NOVA_PMTRACE_MARK:
		if (!tb[NOVA_PMTRACE_A_VALUE]) {
			GENL_SET_ERR_MSG(info, "MARK needs NOVA_PMTRACE_A_VALUE");
			return -EINVAL;
		}
		spin_lock_irqsave(&nova_pmtrace_lock, flags);
		if (pmt.state == NOVA_PMTRACE_RECORDING)
			nova_pmtrace_put(NOVA_PMTRACE_MARK_REC,
					 nla_get_u64(tb[NOVA_PMTRACE_A_VALUE]),
					 NULL, 0);
		else
			err = -ENOENT;
		spin_unlock_irqrestore(&nova_pmtrace_lock, flags);
		if (err)
			goto none;
		return 0;
	case NOVA_PMTRACE_STATUS:
		return 0;
	}
	return -EINVAL;
none:
	GENL_SET_ERR_MSG(info, "no persistence trace is recording");
	return -ENOENT;
}

int nova_pmtrace_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[NOVA_PMTRACE_A_MAX + 1] = { };
	struct nlattr *nest = info->attrs[NOVA_A_PMTRACE];
	u32 op;
	int err;

	if (!netlink_capable(skb, CAP_SYS_ADMIN)) {
		GENL_SET_ERR_MSG(info, "the persistence trace needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	if (!nest) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NOVA_A_PMTRACE);
		GENL_SET_ERR_MSG(info, "NOVA_A_PMTRACE is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, NOVA_PMTRACE_A_MAX, nest,
			       nova_pmtrace_policy, info->extack);
	if (err)
		return err;
	if (!tb[NOVA_PMTRACE_A_OP]) {
		NL_SET_ERR_ATTR_MISS(info->extack, nest, NOVA_PMTRACE_A_OP);
		GENL_SET_ERR_MSG(info, "NOVA_PMTRACE_A_OP is required");
		return -EINVAL;
	}
	op = nla_get_u32(tb[NOVA_PMTRACE_A_OP]);
	mutex_lock(&nova_pmtrace_mutex);
	err = nova_pmtrace_op(info, op, tb);
	if (!err && op != NOVA_PMTRACE_FREE)
		err = nova_pmtrace_reply(info);
	mutex_unlock(&nova_pmtrace_mutex);
	return err;
}

/* One record as one message; false if it does not fit. */
static bool nova_pmtrace_put_msg(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 const struct nova_pmtrace_hdr *h)
{
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &nova_genl_family, NLM_F_MULTI, NOVA_CMD_PMTRACE);
	if (!hdr)
		return false;
	nest = nla_nest_start(skb, NOVA_A_PMTRACE);
	if (!nest || nla_put_u32(skb, NOVA_PMTRACE_A_TYPE, h->type))
		goto cancel;
	if (h->type == NOVA_PMTRACE_FLUSH &&
	    (nla_put_u64_64bit(skb, NOVA_PMTRACE_A_OFFSET, h->off,
			       NOVA_PMTRACE_A_PAD) ||
	     nla_put(skb, NOVA_PMTRACE_A_DATA, h->len, h + 1)))
		goto cancel;
	if (h->type == NOVA_PMTRACE_MARK_REC &&
	    nla_put_u64_64bit(skb, NOVA_PMTRACE_A_VALUE, h->off,
			      NOVA_PMTRACE_A_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return true;
cancel:
	genlmsg_cancel(skb, hdr);
	return false;
}

/* cb->args[0]: the byte position in the buffer of the next record. */
int nova_pmtrace_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	size_t pos = cb->args[0];
	int err = 0, sent = 0;

	if (!netlink_capable(cb->skb, CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(cb->extack, "the persistence trace needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	mutex_lock(&nova_pmtrace_mutex);
	if (pmt.state == NOVA_PMTRACE_OFF) {
		NL_SET_ERR_MSG(cb->extack, "no persistence trace");
		err = -ENOENT;
		goto out;
	}
	if (pmt.state != NOVA_PMTRACE_STOPPED) {
		NL_SET_ERR_MSG(cb->extack,
			       "the persistence trace is recording (STOP it first)");
		err = -EBUSY;
		goto out;
	}
	while (pos < pmt.used) {
		const struct nova_pmtrace_hdr *h = (void *)(pmt.buf + pos);

		if (!nova_pmtrace_put_msg(skb, cb, h))
			break;
		pos += sizeof(*h) + ALIGN(h->len, 8);
		sent++;
	}
	if (pos < pmt.used && !sent)
		err = -EMSGSIZE;
	cb->args[0] = pos;
out:
	mutex_unlock(&nova_pmtrace_mutex);
	return err ?: skb->len;
}

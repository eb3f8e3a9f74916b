/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA: what a file system reports about itself (health.c).
 *
 * The core reports damage it found and the life events of a file system
 * here, and only here; listeners (the control plane: genl_fs.c,
 * genl_scrub.c) subscribe with nova_health_register(). The core never calls into a listener by
 * name, so the netlink code sits on top of the core and depends on it,
 * never the other way round.
 *
 * Two notifier chains:
 * - damage (atomic): nova_report_damage() may be called from any context
 *   but hard interrupts, with any NOVA lock held; its listeners must not
 *   sleep and must allocate with GFP_ATOMIC. The notifier data is a
 *   struct nova_damage.
 * - events (blocking): nova_report_event() is called from process context
 *   with no NOVA lock and no registry lock held; listeners may sleep. The
 *   notifier action is an enum nova_event, the data a struct
 *   nova_event_info.
 *
 * Locking (nova.h): the chains' own locks are internal to the notifier
 * code; nothing is held across a call into a listener but what the
 * reporter holds.
 */
#ifndef _NOVA_HEALTH_H
#define _NOVA_HEALTH_H

#include <linux/notifier.h>
#include "scrub.h"

struct super_block;
struct nova_snapshot_info;

/* One damaged object, as reported to the damage chain. */
struct nova_damage {
	struct super_block	*sb;
	struct nova_scrub_bad	bad;
	/* the scrub whose thread found it, or NULL (a reader, the mount) */
	struct nova_scrub	*scrub;
};

enum nova_event {
	NOVA_EVENT_MOUNTED,		/* fully set up */
	NOVA_EVENT_UNMOUNTING,		/* first thing in ->kill_sb() */
	NOVA_EVENT_RELABELLED,		/* .label: the new label */
	NOVA_EVENT_SCRUB_FINISHED,	/* .scrub: the status at the end */
};

struct nova_event_info {
	struct super_block	*sb;
	union {
		const char			*label;
		const struct nova_scrub_status	*scrub;
	};
};

int nova_health_register(struct notifier_block *events,
			 struct notifier_block *damage);
void nova_health_unregister(struct notifier_block *events,
			    struct notifier_block *damage);

/*
 * A damaged object was found: @ino the inode it belongs to (0: none or
 * unknown), @offset the file offset (data, checksum, parity) or device
 * offset (other kinds, enum nova_corruption_kind), @repaired whether it
 * was rewritten. From the scrub thread (through a verification helper)
 * the object is also recorded in the scrub's findings, which fills in
 * the inode and file offset it is checking where @ino is 0; the scrub
 * counts its findings from the helpers' results, so the helpers do not
 * count twice. Does not print: the caller logs as it sees fit.
 */
void nova_report_damage(struct super_block *sb, u64 ino, u32 kind,
			u64 offset, bool repaired);

void nova_report_event(struct super_block *sb, enum nova_event event,
		       const void *data);

#endif /* _NOVA_HEALTH_H */

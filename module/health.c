// SPDX-License-Identifier: GPL-2.0
/*
 * NOVA: damage and life events of a file system, reported in one place
 * (health.h has the contract). The scrub, the core's readers, the mount
 * and the bad-block check report here; the control plane listens.
 *
 * Locking (nova.h): none of our own; see health.h for the contexts.
 */
#include <linux/fs.h>
#include <linux/notifier.h>

#include "health.h"

static ATOMIC_NOTIFIER_HEAD(nova_damage_chain);
static BLOCKING_NOTIFIER_HEAD(nova_event_chain);

int nova_health_register(struct notifier_block *events,
			 struct notifier_block *damage)
{
	int err;

	err = blocking_notifier_chain_register(&nova_event_chain, events);
	if (err)
		return err;
	err = atomic_notifier_chain_register(&nova_damage_chain, damage);
	if (err)
		blocking_notifier_chain_unregister(&nova_event_chain, events);
	return err;
}

void nova_health_unregister(struct notifier_block *events,
			    struct notifier_block *damage)
{
	atomic_notifier_chain_unregister(&nova_damage_chain, damage);
	blocking_notifier_chain_unregister(&nova_event_chain, events);
}

void nova_report_damage(struct super_block *sb, u64 ino, u32 kind,
			u64 offset, bool repaired)
{
	struct nova_damage d = {
		.sb = sb,
		.bad = { .ino = ino, .kind = kind, .offset = offset,
			 .repaired = repaired },
		.scrub = nova_scrub_current(sb),
	};

	if (d.scrub)
		nova_scrub_note(d.scrub, &d.bad);
	atomic_notifier_call_chain(&nova_damage_chain, kind, &d);
}

void nova_report_event(struct super_block *sb, enum nova_event event,
		       const void *data)
{
	struct nova_event_info info = { .sb = sb };

	might_sleep();
	if (event == NOVA_EVENT_RELABELLED)
		info.label = data;
	else if (event == NOVA_EVENT_SCRUB_FINISHED)
		info.scrub = data;
	blocking_notifier_call_chain(&nova_event_chain, event, &info);
}

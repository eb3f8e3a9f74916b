/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NOVA online integrity scrub (scrub.c), as the control plane
 * (genl_scrub.c) drives it. One struct nova_scrub per mounted file system, created on the
 * first NOVA_CMD_SCRUB_START and freed at unmount; at most one scrub
 * thread per file system runs at a time.
 *
 * Locking: nova_scrub.ctl_mutex serialises start, stop and free (thread
 * creation and kthread_stop()); nova_scrub.lock (a spinlock) protects the
 * status the thread updates and the readers copy. Neither is taken by
 * the thread while it waits for anything, and callers must not hold
 * nova_ctl_lock while calling nova_scrub_stop() or nova_scrub_free()
 * (the thread may send events, which take no registry lock, but the
 * rule keeps the waits simple).
 */
#ifndef _NOVA_SCRUB_H
#define _NOVA_SCRUB_H

#include <linux/types.h>
#include <linux/nova_genl.h>

struct super_block;
struct nova_scrub;
struct nova_fs_stats;

/* One bad object, as NOVA_SCRUB_A_BAD and NOVA_CMD_CORRUPTION carry it. */
struct nova_scrub_bad {
	u64 ino;
	u64 offset;
	u32 kind;			/* enum nova_corruption_kind */
	bool repaired;
};

/* A consistent copy of a scrub's state (NOVA_A_SCRUB). */
struct nova_scrub_status {
	u32 state;			/* enum nova_scrub_state */
	u32 err;			/* positive errno that ended the pass */
	u64 bandwidth;			/* bytes/s, 0 unlimited */
	u64 bytes_scanned;
	u64 bytes_total;
	u64 inodes_scanned;
	u64 meta_checked;
	u64 data_checked;
	u64 errors;
	u64 repaired;
	u64 unrecoverable;
	u64 start_ns;			/* CLOCK_REALTIME, 0: never started */
	u64 finish_ns;			/* CLOCK_REALTIME, 0: not finished */
	u64 run_ns;			/* time spent running, pauses excluded */
	u64 run_since;			/* CLOCK_MONOTONIC, while running */
	u64 bad_dropped;
	u64 events_suppressed;		/* CORRUPTION events rate-limited */
	u32 nr_bad;
	struct nova_scrub_bad bad[NOVA_GENL_SCRUB_BAD_MAX];
	/* since mount, all passes (NOVA_STATS_A_SCRUB_*) */
	u64 passes;
	u64 all_bytes;
	u64 all_errors;
	u64 all_repaired;
	u64 all_unrecoverable;
};

struct nova_scrub *nova_scrub_alloc(struct super_block *sb);
void nova_scrub_free(struct nova_scrub *s);
struct nova_scrub *nova_scrub_of(struct super_block *sb);
struct nova_scrub *nova_scrub_get(struct super_block *sb);
void nova_scrub_stats(struct super_block *sb, struct nova_fs_stats *st);
int nova_scrub_start(struct nova_scrub *s, bool set_bw, u64 bw, bool restart);
int nova_scrub_stop(struct nova_scrub *s);
void nova_scrub_get_status(struct nova_scrub *s, struct nova_scrub_status *st);

/* If current is a scrub thread of @sb, that scrub; else NULL. */
struct nova_scrub *nova_scrub_current(struct super_block *sb);
/*
 * Record a bad object the scrub thread found (directly or through a
 * verification helper of the core); fills in the inode and the file
 * offset of the object being checked where the caller did not know them.
 */
void nova_scrub_note(struct nova_scrub *s, struct nova_scrub_bad *bad);
/* Count findings a reader of the core dealt with (log mirrors). */
void nova_scrub_count(struct nova_scrub *s, u32 bad, u32 repaired,
		      u32 unrecoverable);
/* A CORRUPTION event of the scrub thread was suppressed by the limit. */
void nova_scrub_event_suppressed(struct nova_scrub *s);

#endif /* _NOVA_SCRUB_H */

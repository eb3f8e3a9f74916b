/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libnova: the userspace client of the "nova" generic netlink family
 * (uapi/linux/nova_genl.h), shared by novactl and novad. Every libnl call
 * lives behind this interface.
 *
 * Conventions: functions return 0 or a negative errno. Those that talk to
 * the kernel fill a struct nova_err, whose message is the kernel's extended
 * ACK text when it sent one, or a description of what failed otherwise.
 */
#ifndef LIBNOVA_H
#define LIBNOVA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/nova_genl.h>

struct nlmsghdr;
struct nlattr;

#define NOVA_ERR_MSG_LEN	256

struct nova_err {
	int err;			/* negative errno, 0 if none */
	char msg[NOVA_ERR_MSG_LEN];	/* extack text or local description */
	bool from_kernel;		/* msg is the kernel's extack message */
	int bad_attr_off;		/* NLMSGERR_ATTR_OFFS, -1 if none */
	int missing_attr;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
};

void nova_err_set(struct nova_err *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void nova_err_clear(struct nova_err *e);

/* ---- ipc: socket, family, requests, replies, events ---- */

struct nova_ipc;

/* Called once per data message of a reply or dump; return 0 or -errno. */
typedef int (*nova_msg_cb)(const struct nlmsghdr *nlh, void *arg);

/*
 * Open a generic netlink socket with extended ACKs and resolve the family.
 * -ENOENT: the family is not registered (nova.ko not loaded).
 * -EPROTO: the kernel speaks a protocol version this library does not.
 */
int nova_ipc_open(struct nova_ipc **ipcp, struct nova_err *e);
void nova_ipc_close(struct nova_ipc *ipc);
int nova_ipc_fd(const struct nova_ipc *ipc);
int nova_ipc_family_id(const struct nova_ipc *ipc);
uint32_t nova_ipc_family_version(const struct nova_ipc *ipc);

/* Request builder: a message for CMD with room for attributes. */
struct nl_msg *nova_ipc_msg(struct nova_ipc *ipc, uint8_t cmd, bool dump);

/*
 * Send MSG (consumed) and receive until the final ACK or NLMSG_DONE,
 * passing every data message to CB. A dump that the kernel marks as
 * interrupted (NLM_F_DUMP_INTR) returns -EINTR after all its messages.
 */
int nova_ipc_transact(struct nova_ipc *ipc, struct nl_msg *msg,
		      nova_msg_cb cb, void *arg, struct nova_err *e);

/*
 * Parse an NLMSG_ERROR or NLMSG_DONE message: returns its errno (<= 0)
 * and fills E with the extack message and offset if present. Exposed for
 * unit tests; nova_ipc_transact() uses it.
 */
int nova_parse_ack(const struct nlmsghdr *nlh, struct nova_err *e);

/*
 * Join the "events" multicast group (and the controller's "notify" group,
 * so that nova_ipc_recv_events() can report the family going away).
 */
int nova_ipc_subscribe(struct nova_ipc *ipc, struct nova_err *e);

/*
 * Receive pending notifications and pass each to CB. Blocks until at least
 * one message arrives unless the socket was made non-blocking.
 * -ENOBUFS: notifications were lost (socket buffer overrun).
 * -ENOENT: the family was unregistered (nova.ko unloaded).
 */
int nova_ipc_recv_events(struct nova_ipc *ipc, nova_msg_cb cb, void *arg,
			 struct nova_err *e);
int nova_ipc_set_nonblocking(struct nova_ipc *ipc);

/* ---- file-system selector ---- */

enum nova_sel_kind {
	NOVA_SEL_NONE,
	NOVA_SEL_DEV,
	NOVA_SEL_UUID,
};

struct nova_sel {
	enum nova_sel_kind kind;
	uint64_t dev;			/* st_dev encoding */
	uint8_t uuid[NOVA_GENL_UUID_LEN];
};

/*
 * Turn a command-line argument into a selector: "MAJOR:MINOR", a UUID
 * (8-4-4-4-12 hex), "uuid=UUID", or a path (a block device gives its
 * st_rdev, anything else the st_dev of the file system holding it).
 */
int nova_sel_parse(const char *arg, struct nova_sel *sel, struct nova_err *e);
uint64_t nova_dev_make(unsigned int major, unsigned int minor);
unsigned int nova_dev_major(uint64_t dev);
unsigned int nova_dev_minor(uint64_t dev);
int nova_uuid_parse(const char *s, uint8_t uuid[NOVA_GENL_UUID_LEN]);
/* BUF must hold 37 bytes. */
void nova_uuid_format(const uint8_t uuid[NOVA_GENL_UUID_LEN], char *buf);

/*
 * Mount points of DEV with type NOVA, from MOUNTINFO (NULL:
 * /proc/self/mountinfo). Stores up to MAX malloc'ed strings in PATHS and
 * returns how many there are (possibly more than MAX) or -errno.
 */
int nova_mountpoints(const char *mountinfo, uint64_t dev, char **paths,
		     size_t max);

/* ---- decoded replies ---- */

#define NOVA_BDEV_LEN		32
#define NOVA_OP_NAME_LEN	32
#define NOVA_MAX_OPS		64

struct nova_fs_id {
	uint64_t dev;
	uint8_t uuid[NOVA_GENL_UUID_LEN];
	char label[NOVA_GENL_LABEL_LEN];
	char bdev[NOVA_BDEV_LEN];
};

struct nova_fs_info {
	struct nova_fs_id id;
	uint32_t format_version;
	bool read_only;
};

struct nova_op_stat {
	char name[NOVA_OP_NAME_LEN];
	uint64_t count;
	uint64_t time_ns;
};

struct nova_stats {
	struct nova_fs_id id;
	uint32_t format_version;
	uint32_t cpus;
	uint64_t block_size;
	uint64_t blocks_total;
	uint64_t blocks_free;
	uint64_t inodes_total;
	uint64_t inodes_free;
	uint64_t log_pages;
	uint64_t data_pages;
	uint64_t epoch;
	uint64_t snapshots;
	uint64_t snap_reclaim_blocks;	/* deleted snapshots' blocks pending */
	uint64_t snap_reclaim_inodes;	/* ... and removed inodes pending */
	uint64_t snap_reclaimed;	/* blocks freed in the background */
	uint64_t mount_time_ns;
	bool recovered;
	bool space_check_pending;	/* log/data page counts provisional */
	bool read_only;
	size_t n_ops;
	struct nova_op_stat ops[NOVA_MAX_OPS];
	/* log garbage collection since mount */
	uint64_t gc_fast_pages;
	uint64_t gc_thorough_runs;
	uint64_t gc_thorough_pages;
	uint64_t gc_entries_copied;
	uint64_t gc_time_ns;
	/* integrity scrub since mount */
	uint32_t scrub_state;		/* enum nova_scrub_state */
	uint64_t scrub_passes;
	uint64_t scrub_bytes;
	uint64_t scrub_errors;
	uint64_t scrub_repaired;
	uint64_t scrub_unrecoverable;
	/* data protection: features, counters since mount */
	bool prot_csum;			/* the format keeps data checksums */
	bool prot_parity;		/* ... and data parity */
	bool prot_verify;		/* reads are verified */
	uint64_t prot_verified;		/* data strips checked */
	uint64_t prot_repaired;		/* strips, checksums, parity rewritten */
	uint64_t prot_unrecoverable;	/* data pages beyond repair */
	uint64_t bb_blocks;		/* listed bad by the device at mount */
	uint64_t bb_repaired;		/* ... rebuilt */
	uint64_t bb_lost;		/* ... not repairable */
	uint64_t bb_withheld;		/* ... free, kept from allocation */
};

enum nova_event_kind {
	NOVA_EVENT_FS_MOUNTED,
	NOVA_EVENT_FS_UNMOUNTED,
};

struct nova_event {
	enum nova_event_kind kind;
	struct nova_fs_id id;
};

struct nova_snapshot_rec {
	struct nova_fs_id id;		/* the file system */
	uint64_t snap_id;
	uint64_t epoch;
	uint64_t ctime_ns;		/* creation, ns since the Unix epoch */
	char name[NOVA_GENL_SNAPSHOT_NAME_LEN];
	bool has_excl;			/* excl_blocks sent (list dumps) */
	uint64_t excl_blocks;		/* 4 KiB blocks only it holds */
};

/* What one NOVA_CMD_GC request did. */
struct nova_gc_report {
	struct nova_fs_id id;		/* the file system */
	uint64_t ino;			/* inode asked for, 0: all */
	uint64_t inodes;
	uint64_t log_pages_before;
	uint64_t log_pages_after;
	uint64_t fast_pages;
	uint64_t thorough_runs;
	uint64_t entries_copied;
	uint64_t time_ns;
};

/* One inode of a NOVA_CMD_SNAPSHOT_DIFF answer. */
struct nova_snapdiff_rec {
	struct nova_fs_id id;		/* the file system */
	uint64_t ino;			/* NOVA inode number */
	uint32_t mode;			/* S_IFMT bits */
	uint32_t change;		/* enum nova_snapdiff_change */
};

/* Decoders of one message (genl header included); -EBADMSG if malformed. */
int nova_decode_snapdiff(const struct nlmsghdr *nlh,
			 struct nova_snapdiff_rec *d);
int nova_decode_gc(const struct nlmsghdr *nlh, struct nova_gc_report *r);
int nova_decode_snapshot(const struct nlmsghdr *nlh, struct nova_snapshot_rec *sn);
int nova_decode_fs_info(const struct nlmsghdr *nlh, struct nova_fs_info *fi);
int nova_decode_stats(const struct nlmsghdr *nlh, struct nova_stats *st);
/* -ENOENT for a notification this library does not know (skip it). */
int nova_decode_event(const struct nlmsghdr *nlh, struct nova_event *ev);
const char *nova_event_name(enum nova_event_kind kind);

/* ---- queries ---- */

/* All mounted file systems; *LIST is malloc'ed. Retries interrupted dumps. */
int nova_req_fs_list(struct nova_ipc *ipc, struct nova_fs_info **list,
		 size_t *n, struct nova_err *e);
/* Statistics of one file system. */
int nova_req_stats_get(struct nova_ipc *ipc, const struct nova_sel *sel,
		   struct nova_stats *st, struct nova_err *e);
/* Statistics of every file system; *LIST is malloc'ed. */
int nova_req_stats_dump(struct nova_ipc *ipc, struct nova_stats **list,
		    size_t *n, struct nova_err *e);

/* Snapshots of one file system; NAME may be NULL or "". */
int nova_req_snapshot_create(struct nova_ipc *ipc, const struct nova_sel *sel,
			 const char *name, struct nova_snapshot_rec *sn,
			 struct nova_err *e);
/*
 * Delete by ID if non-zero, else by NAME; SN receives the deleted one.
 * WAIT: return only once the space it frees is free (else a background
 * worker frees it after the reply).
 */
int nova_req_snapshot_delete(struct nova_ipc *ipc, const struct nova_sel *sel,
			 uint64_t id, const char *name, bool wait,
			 struct nova_snapshot_rec *sn, struct nova_err *e);
/* Collect the logs of inode INO (0: every inode) now; may take a while. */
int nova_req_gc(struct nova_ipc *ipc, const struct nova_sel *sel, uint64_t ino,
	    struct nova_gc_report *r, struct nova_err *e);
/* Live snapshots, oldest first; *LIST is malloc'ed. */
int nova_req_snapshot_list(struct nova_ipc *ipc, const struct nova_sel *sel,
		       struct nova_snapshot_rec **list, size_t *n,
		       struct nova_err *e);

/*
 * The inodes that changed between snapshot OLD_ID and snapshot NEW_ID (0:
 * the live file system), as the kernel reads them from the logs; *LIST is
 * malloc'ed. Needs CAP_SYS_ADMIN.
 */
int nova_req_snapshot_diff(struct nova_ipc *ipc, const struct nova_sel *sel,
			   uint64_t old_id, uint64_t new_id,
			   struct nova_snapdiff_rec **list, size_t *n,
			   struct nova_err *e);

/* ---- integrity scrub and corruption ---- */

/* One damaged object (NOVA_A_CORRUPTION, NOVA_SCRUB_A_BAD). */
struct nova_corruption {
	uint64_t ino;			/* 0: belongs to no inode */
	uint32_t kind;			/* enum nova_corruption_kind */
	uint64_t offset;		/* file offset (data kinds), else device */
	bool repaired;
};

/* State and findings of the current or last scrub pass. */
struct nova_scrub_info {
	struct nova_fs_id id;
	uint32_t state;			/* enum nova_scrub_state */
	uint32_t err;			/* errno that ended the pass, 0 */
	uint64_t bandwidth;		/* bytes/s, 0 unlimited */
	uint64_t bytes_scanned;
	uint64_t bytes_total;
	uint64_t inodes_scanned;
	uint64_t meta_checked;
	uint64_t data_checked;
	uint64_t errors;
	uint64_t repaired;
	uint64_t unrecoverable;
	uint64_t start_ns;		/* ns since the Unix epoch, 0: none */
	uint64_t finish_ns;		/* 0: not finished */
	uint64_t run_ns;		/* running time, pauses excluded */
	bool has_run;			/* run_ns sent (newer kernels) */
	uint64_t bad_dropped;
	uint64_t events_suppressed;	/* CORRUPTION events rate-limited */
	size_t n_bad;
	struct nova_corruption bad[NOVA_GENL_SCRUB_BAD_MAX];
};

/* NOVA_CMD_SCRUB_FINISHED or NOVA_CMD_CORRUPTION, as nova_decode_scrub_event() reads it. */
struct nova_scrub_event {
	uint8_t cmd;			/* which of the two */
	struct nova_fs_id id;
	struct nova_corruption corruption;	/* NOVA_CMD_CORRUPTION */
	uint64_t suppressed;		/* CORRUPTION: held back before it */
	struct nova_scrub_info scrub;		/* NOVA_CMD_SCRUB_FINISHED */
};

const char *nova_scrub_state_name(uint32_t state);	/* "idle", ... */
const char *nova_corruption_kind_name(uint32_t kind);	/* "log-entry", ... */
/* Inject target by name ("super", "inode", "log-entry", ...), or -EINVAL. */
int nova_inject_target_parse(const char *name);
const char *nova_inject_target_name(uint32_t target);

int nova_decode_scrub(const struct nlmsghdr *nlh, struct nova_scrub_info *si);
/* -ENOENT for a notification other than the two scrub ones. */
int nova_decode_scrub_event(const struct nlmsghdr *nlh,
			    struct nova_scrub_event *ev);

/*
 * Start a scrub pass, or resume the paused one unless RESTART. SET_BW:
 * limit to BW bytes/s (0: unlimited); otherwise a resumed pass keeps its
 * limit. SI receives the status right after the start.
 */
int nova_req_scrub_start(struct nova_ipc *ipc, const struct nova_sel *sel,
		     bool set_bw, uint64_t bw, bool restart,
		     struct nova_scrub_info *si, struct nova_err *e);
/* Pause the running pass (resumable); SI receives the paused status. */
int nova_req_scrub_stop(struct nova_ipc *ipc, const struct nova_sel *sel,
		    struct nova_scrub_info *si, struct nova_err *e);
int nova_req_scrub_status(struct nova_ipc *ipc, const struct nova_sel *sel,
		      struct nova_scrub_info *si, struct nova_err *e);
/* Test tool: damage one object (needs nova.ko loaded with inject=1). */
int nova_req_inject(struct nova_ipc *ipc, const struct nova_sel *sel,
		uint32_t target, uint64_t ino, uint64_t offset, uint32_t copy,
		struct nova_err *e);

#endif /* LIBNOVA_H */

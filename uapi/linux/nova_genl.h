/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * NOVA control plane: the generic netlink family "nova".
 *
 * Documentation
 * =============
 *
 * Every control operation on mounted NOVA file systems goes through the
 * generic netlink family NOVA_GENL_NAME, version NOVA_GENL_VERSION. There is
 * no procfs or ioctl control surface. This comment is the protocol's
 * reference; docs/netlink/nova.yaml is the same protocol in machine-readable
 * (YNL) form and docs/genl.md explains the design.
 *
 * General rules
 * -------------
 *
 * - The family exists only in the initial network namespace.
 * - Validation is strict: unknown attributes, attributes a command does not
 *   take, attributes of the wrong size or with a wrong NLA_F_NESTED bit,
 *   trailing garbage, a non-zero genlmsghdr.reserved and reserved
 *   nlmsg_flags bits are rejected with -EINVAL; integers outside their
 *   range and binary attributes of the wrong length with -ERANGE. Each
 *   rejection carries an extended ACK message and, where one attribute is
 *   at fault, its offset (NLMSGERR_ATTR_OFFS); set NETLINK_EXT_ACK on the
 *   socket to receive them. A command the family does not have is refused
 *   by the genetlink core with -EOPNOTSUPP and no message.
 * - Commands that change state (snapshot create and delete, GC, scrub
 *   start and stop, inject) require CAP_NET_ADMIN (GENL_ADMIN_PERM) and
 *   CAP_SYS_ADMIN in the user namespace that owns the file system, as
 *   deleting a btrfs subvolume does; either missing is -EPERM (the second
 *   with an extended ACK message naming CAP_SYS_ADMIN). Commands that only
 *   read are open to every user; they reveal nothing that statfs(2) and
 *   /proc/self/mountinfo do not already reveal, plus operation counters,
 *   scrub progress and snapshot names, ids and times (as subvolume names
 *   are visible to any user of a btrfs file system).
 * - Integers are host byte order. 64-bit integers are 8-byte aligned with
 *   NOVA_A_PAD (and the per-nest PAD attributes) as padding.
 * - A command number that is not listed here, a notification command sent
 *   as a request, and a plain request for a dump-only command (or the
 *   reverse) fail with -EOPNOTSUPP.
 *
 * Addressing a file system
 * ------------------------
 *
 * A mounted NOVA file system is named by its device number, in the encoding
 * stat(2) uses: the st_dev of any file inside the file system, which is also
 * the st_rdev of its block device (for /dev/pmem0, major 259 minor 0 is
 * 0x10300 = 66304). It is the natural key: it is unique among the live
 * super blocks, every tool can obtain it from a path without privileges, and
 * it is what /proc/self/mountinfo prints as "MAJOR:MINOR". A request carries
 * exactly one of:
 *
 *    NOVA_A_FS_DEV: NLA_U64, 1 .. 0xffffffff, st_dev encoding
 *                   (major = (v >> 8) & 0xfff, minor = (v & 0xff) |
 *                   ((v >> 12) & 0xfff00)); larger values cannot name a
 *                   Linux block device and are rejected with -ERANGE
 *    NOVA_A_FS_UUID: NLA_BINARY, exactly 16 bytes (else -ERANGE), the UUID
 *                    stored in the NOVA superblock (as NOVA_CMD_FS_LIST
 *                    reports it)
 *
 * Giving neither (the extack then reports NOVA_A_FS_DEV as the missing
 * attribute, NLMSGERR_ATTR_MISS_TYPE), or both, fails with -EINVAL. A value
 * that names no mounted NOVA file system (including a mounted file system
 * of another type) fails with -ENODEV, the extack pointing at it. A device
 * number is only meaningful while the file system stays mounted; after a
 * remount it names the same device again.
 *
 * Every reply and notification about one file system starts with its
 * identity:
 *
 *    NOVA_A_FS_DEV: NLA_U64, st_dev encoding as above
 *    NOVA_A_FS_UUID: NLA_BINARY, 16 bytes
 *    NOVA_A_FS_LABEL: NLA_NUL_STRING, at most 31 bytes, may be empty
 *    NOVA_A_FS_BDEV: NLA_NUL_STRING, the kernel's name of the block device
 *                    (e.g. "pmem0", as in the kernel log)
 *
 * NOVA_CMD_FS_LIST
 * ----------------
 *
 * Dump only (NLM_F_REQUEST | NLM_F_DUMP); takes no attributes. One message
 * (NLM_F_MULTI) per mounted NOVA file system, in mount order:
 *
 *    NOVA_A_FS_DEV, NOVA_A_FS_UUID, NOVA_A_FS_LABEL, NOVA_A_FS_BDEV
 *    NOVA_A_FS_FORMAT_VERSION: NLA_U32, on-media format version,
 *                              major << 16 | minor
 *    NOVA_A_FS_READ_ONLY: NLA_U8, 1 if currently mounted read-only, else 0
 *
 * No mounted file system gives an empty dump (just NLMSG_DONE), not an
 * error. If file systems are mounted or unmounted while a dump is in
 * progress, the message written after the change carries NLM_F_DUMP_INTR;
 * the listing may then be incomplete and the caller should dump again.
 *
 * NOVA_CMD_STATS_GET
 * ------------------
 *
 * As a plain request (NLM_F_REQUEST) it must name one file system (see
 * "Addressing a file system") and the reply is one message. As a dump
 * (NLM_F_REQUEST | NLM_F_DUMP) it takes no attributes and returns one message
 * per mounted NOVA file system, with the same NLM_F_DUMP_INTR rule as
 * NOVA_CMD_FS_LIST. Each message holds:
 *
 *    NOVA_A_FS_DEV, NOVA_A_FS_UUID, NOVA_A_FS_LABEL, NOVA_A_FS_BDEV
 *    NOVA_A_STATS: NLA_NESTED
 *        NOVA_STATS_A_FORMAT_VERSION: NLA_U32, as NOVA_A_FS_FORMAT_VERSION
 *        NOVA_STATS_A_CPUS: NLA_U32, per-CPU stripes (inode tables,
 *                           journals, free lists) on the media
 *        NOVA_STATS_A_BLOCK_SIZE: NLA_U64, bytes
 *        NOVA_STATS_A_BLOCKS_TOTAL: NLA_U64, blocks the allocator manages
 *        NOVA_STATS_A_BLOCKS_FREE: NLA_U64
 *        NOVA_STATS_A_INODES_TOTAL: NLA_U64, slots in the inode tables
 *        NOVA_STATS_A_INODES_FREE: NLA_U64
 *        NOVA_STATS_A_LOG_PAGES: NLA_U64, pages holding per-inode logs
 *        NOVA_STATS_A_DATA_PAGES: NLA_U64, pages holding file data
 *        NOVA_STATS_A_EPOCH: NLA_U64, current snapshot epoch
 *        NOVA_STATS_A_SNAPSHOTS: NLA_U64, live snapshots
 *        NOVA_STATS_A_SNAPSHOT_RECLAIM_BLOCKS: NLA_U64, blocks of deleted
 *                               snapshots' kept runs not yet freed by the
 *                               reclaim worker
 *        NOVA_STATS_A_SNAPSHOT_RECLAIM_INODES: NLA_U64, removed inodes
 *                               deleted snapshots kept, not yet freed
 *        NOVA_STATS_A_SNAPSHOT_RECLAIMED: NLA_U64, blocks the reclaim
 *                               worker freed since mount
 *        NOVA_STATS_A_MOUNT_TIME_NS: NLA_U64, how long the last mount took
 *        NOVA_STATS_A_RECOVERED: NLA_U8, 1 if the last mount ran crash
 *                                recovery, else 0
 *        NOVA_STATS_A_READ_ONLY: NLA_U8, 1 if mounted read-only, else 0
 *        NOVA_STATS_A_SPACE_CHECK_PENDING: NLA_U8, 1 if the last mount
 *                               recovered from the allocation bitmap
 *                               and the space check has not run yet:
 *                               LOG_PAGES and DATA_PAGES are provisional
 *                               and blocks the crash left allocated are
 *                               not free yet (docs/recovery.md); 0 once
 *                               the check ran at a clean unmount, a
 *                               read-only remount or a freeze
 *        NOVA_STATS_A_OP: NLA_NESTED, once per counted operation
 *            NOVA_OP_A_NAME: NLA_NUL_STRING, e.g. "read", "write",
 *                            "fsync", "fault", "lookup", "create",
 *                            "mkdir", "unlink", "rmdir", "rename",
 *                            "link", "symlink", "setattr", "readdir"
 *            NOVA_OP_A_COUNT: NLA_U64, calls since mount
 *            NOVA_OP_A_TIME_NS: NLA_U64, total time spent in them
 *        NOVA_STATS_A_OP: NLA_NESTED
 *            ...
 *        NOVA_STATS_A_GC_FAST_PAGES: NLA_U64, log pages freed by fast GC
 *        NOVA_STATS_A_GC_THOROUGH_RUNS: NLA_U64, logs rewritten by
 *                                       thorough GC
 *        NOVA_STATS_A_GC_THOROUGH_PAGES: NLA_U64, log pages thorough GC
 *                                        saved
 *        NOVA_STATS_A_GC_ENTRIES_COPIED: NLA_U64, log entries thorough GC
 *                                        copied
 *        NOVA_STATS_A_GC_TIME_NS: NLA_U64, time spent collecting logs
 *        NOVA_STATS_A_SCRUB_STATE: NLA_U32, enum nova_scrub_state
 *        NOVA_STATS_A_SCRUB_PASSES: NLA_U64, scrub passes finished
 *        NOVA_STATS_A_SCRUB_BYTES: NLA_U64, bytes scrubbed, all passes
 *        NOVA_STATS_A_SCRUB_ERRORS: NLA_U64, bad objects scrubs found
 *        NOVA_STATS_A_SCRUB_REPAIRED: NLA_U64, of which repaired
 *        NOVA_STATS_A_SCRUB_UNRECOVERABLE: NLA_U64, of which not
 *                                          repairable
 *        NOVA_STATS_A_PROTECTION: NLA_NESTED, data protection
 *                                 (docs/protection.md)
 *            NOVA_PROT_A_CSUM: NLA_U8, 1 if the format keeps data
 *                              checksums (chosen at mkfs time)
 *            NOVA_PROT_A_PARITY: NLA_U8, 1 if it keeps data parity
 *            NOVA_PROT_A_VERIFY: NLA_U8, 1 if reads are verified now
 *                                (0: mount option verify=off, no
 *                                checksums, or turned off at mount)
 *            NOVA_PROT_A_VERIFIED: NLA_U64, data strips verified since
 *                                  mount (reads and scrubs)
 *            NOVA_PROT_A_REPAIRED: NLA_U64, data strips, checksum slots
 *                                  and parity strips rewritten
 *            NOVA_PROT_A_UNRECOVERABLE: NLA_U64, data pages found
 *                                       damaged beyond repair
 *            NOVA_PROT_A_BADBLOCKS: NLA_U64, blocks the device's
 *                                   bad-block list named at mount
 *                                   (docs/protection.md)
 *            NOVA_PROT_A_BADBLOCKS_REPAIRED: NLA_U64, of which rebuilt
 *            NOVA_PROT_A_BADBLOCKS_LOST: NLA_U64, of which not
 *                                        repairable (file pages then
 *                                        read as EIO; metadata reported)
 *            NOVA_PROT_A_BADBLOCKS_WITHHELD: NLA_U64, of which free
 *                                        space, kept from allocation
 *
 * Counters start at zero at mount time. The set of operations may grow;
 * receivers must accept names they do not know. Errors (plain request):
 * -EINVAL/-ERANGE for a bad selector, -ENODEV for an unknown file system,
 * -ENOMEM. A dump ends with NLMSG_DONE carrying 0 or a negative errno.
 *
 * Snapshots
 * ---------
 *
 * A snapshot is a read-only image of a whole file system at one moment
 * (docs/snapshots.md). Snapshots are numbered from 1 in creation order;
 * ids are never reused. A name is optional; if given it is unique among
 * the live snapshots of the file system, 1..63 bytes of printable
 * non-space ASCII other than '/', and not made of digits only (so it
 * cannot be mistaken for an id). At most NOVA_GENL_SNAPSHOTS_MAX
 * snapshots are live at a time. A snapshot is described by
 *
 *    NOVA_A_SNAPSHOT: NLA_NESTED
 *        NOVA_SNAPSHOT_A_ID: NLA_U64, >= 1
 *        NOVA_SNAPSHOT_A_NAME: NLA_NUL_STRING, at most 63 bytes, may be
 *                              empty
 *        NOVA_SNAPSHOT_A_EPOCH: NLA_U64, the last epoch it shows (the
 *                               epoch NOVA_STATS_A_EPOCH reported before
 *                               it was taken)
 *        NOVA_SNAPSHOT_A_CTIME: NLA_U64, creation time, nanoseconds since
 *                               the Unix epoch (CLOCK_REALTIME)
 *        NOVA_SNAPSHOT_A_EXCL_BLOCKS: NLA_U64, list dump only: 4 KiB
 *                               blocks no other live snapshot and not the
 *                               live file system use, i.e. what deleting
 *                               it alone would free (kept data blocks,
 *                               and data, log and symlink blocks of the
 *                               removed inodes only it shows)
 *        NOVA_SNAPSHOT_A_WAIT: NLA_FLAG, delete request only: reply once
 *                               the space the delete frees is free
 *
 * NOVA_CMD_SNAPSHOT_CREATE
 *
 *   Plain request, GENL_ADMIN_PERM. Names one file system (see
 *   "Addressing a file system") and may carry NOVA_A_SNAPSHOT with
 *   NOVA_SNAPSHOT_A_NAME (other members are rejected with -EINVAL). The
 *   file system is frozen for the moment it takes to record the snapshot.
 *   The reply carries the identity and NOVA_A_SNAPSHOT with all four
 *   members. Errors: -EROFS (mounted read-only, or a snapshot mount),
 *   -ENOSPC (NOVA_GENL_SNAPSHOTS_MAX live snapshots, or no room on the
 *   device for the record), -EEXIST (name in use), -EINVAL (bad name),
 *   -EBUSY (frozen by someone else), plus the selector errors.
 *
 * NOVA_CMD_SNAPSHOT_DELETE
 *
 *   Plain request, GENL_ADMIN_PERM. Names one file system and carries
 *   NOVA_A_SNAPSHOT with exactly one of NOVA_SNAPSHOT_A_ID and
 *   NOVA_SNAPSHOT_A_NAME, and optionally NOVA_SNAPSHOT_A_WAIT (NLA_FLAG).
 *   The snapshot is gone (durably) when the reply arrives; the space only
 *   it used is freed by a background worker after that, in batches
 *   (NOVA_STATS_A_SNAPSHOT_RECLAIM_* show what is still pending), unless
 *   NOVA_SNAPSHOT_A_WAIT was given: then the reply comes once everything
 *   this delete queued is free (statfs shows it). Unmount and remount
 *   read-only wait for the worker. The reply carries the identity and the
 *   deleted snapshot's NOVA_A_SNAPSHOT. Errors: -ENOENT with the extack
 *   pointing at the id or name if no live snapshot matches, -EBUSY with
 *   the extack "this snapshot is mounted" for the snapshot a snapshot
 *   mount shows, -EROFS for any other on a read-only or snapshot mount (a
 *   snapshot can be mounted only while the live file system is not, so a
 *   mounted snapshot is never deleted), -EBUSY (frozen), -EINVAL for a
 *   missing or doubled selector, plus the selector errors. -EINTR if the
 *   caller was killed while waiting (the snapshot is deleted all the
 *   same).
 *
 * NOVA_CMD_SNAPSHOT_LIST
 *
 *   Dump only, open to every user. The request names one file system (the
 *   selector attributes, as for a plain request). One message
 *   (NLM_F_MULTI) per live snapshot, oldest first: the identity and
 *   NOVA_A_SNAPSHOT with all four members and
 *   NOVA_SNAPSHOT_A_EXCL_BLOCKS. No snapshot gives an empty
 *   dump. A snapshot created or deleted while the dump is in progress
 *   sets NLM_F_DUMP_INTR on the next message. Errors at the start of the
 *   dump (in NLMSG_DONE): the selector errors.
 *
 * What changed between two epochs
 * -------------------------------
 *
 * Every log entry carries the epoch it was written in, so the kernel can
 * say which inodes changed between snapshot OLD and snapshot NEW (or the
 * live file system) without comparing trees (docs/snapshots.md, "Restore
 * and diff"). A request names them in
 *
 *    NOVA_A_SNAPSHOT_DIFF: NLA_NESTED
 *        NOVA_SNAPDIFF_A_OLD: NLA_U64, >= 1, id of the older snapshot
 *        NOVA_SNAPDIFF_A_NEW: NLA_U64, >= 1, id of the newer one; absent:
 *                             the live file system
 *
 * and each inode of the answer is
 *
 *    NOVA_A_SNAPSHOT_DIFF: NLA_NESTED
 *        NOVA_SNAPDIFF_A_INO: NLA_U64, the NOVA inode number
 *        NOVA_SNAPDIFF_A_MODE: NLA_U32, its type (the S_IFMT bits)
 *        NOVA_SNAPDIFF_A_CHANGE: NLA_U32, enum nova_snapdiff_change
 *
 * NOVA_CMD_SNAPSHOT_DIFF
 *
 *   Dump only, GENL_ADMIN_PERM. Names one file system (the selector
 *   attributes) and carries NOVA_A_SNAPSHOT_DIFF with NOVA_SNAPDIFF_A_OLD
 *   and optionally NOVA_SNAPDIFF_A_NEW. One message (NLM_F_MULTI) per
 *   inode, the identity and NOVA_A_SNAPSHOT_DIFF with all three members:
 *   NOVA_SNAPDIFF_CREATED for an inode NEW shows and OLD does not,
 *   NOVA_SNAPDIFF_REMOVED for one OLD shows and NEW does not (a removed
 *   inode a snapshot keeps), NOVA_SNAPDIFF_MODIFIED for one both show
 *   whose log has an entry of an epoch in (OLD's epoch, NEW's epoch]
 *   (the live file system: any later epoch; a setattr entry of the atime
 *   alone, which a read writes, does not count). Inodes neither shows are
 *   not listed. The set may be larger than what a comparison of the
 *   trees finds: thorough GC closes a rewritten log with a setattr entry
 *   of its own epoch restating the attributes (copied entries keep their
 *   epoch). Order: the root, then the inode tables, then removed inodes.
 *   Errors (in NLMSG_DONE): -ENOENT with the extack at the id if no live
 *   snapshot has it (also when one is deleted during the dump), -EINVAL
 *   (OLD missing, NEW not newer than OLD, a snapshot mount), -EPERM, plus
 *   the selector errors; an unmount during the dump ends it.
 *
 * Garbage collection
 * ------------------
 *
 * Every inode has a log of 4 KiB pages. The kernel collects logs by
 * itself as they grow (docs/gc.md): fast GC frees pages whose entries
 * are all superseded, thorough GC copies the live entries of a sparse log
 * to fresh pages. NOVA_CMD_GC does both now. What one request did is
 * described by
 *
 *    NOVA_A_GC: NLA_NESTED
 *        NOVA_GC_A_INODE: NLA_U64, >= 1, the inode asked for; absent when
 *                         every inode was asked for
 *        NOVA_GC_A_INODES: NLA_U64, inodes whose logs were collected
 *        NOVA_GC_A_LOG_PAGES_BEFORE: NLA_U64, their log pages before
 *        NOVA_GC_A_LOG_PAGES_AFTER: NLA_U64, and after
 *        NOVA_GC_A_FAST_PAGES: NLA_U64, log pages fast GC freed
 *        NOVA_GC_A_THOROUGH_RUNS: NLA_U64, logs thorough GC rewrote
 *        NOVA_GC_A_ENTRIES_COPIED: NLA_U64, entries thorough GC wrote
 *        NOVA_GC_A_TIME_NS: NLA_U64, how long the request took
 *
 * NOVA_CMD_GC
 *
 *   Plain request, GENL_ADMIN_PERM. Names one file system and may carry
 *   NOVA_A_GC with NOVA_GC_A_INODE (other members are rejected with
 *   -EINVAL by the policy) to collect the log of that inode (the st_ino of a file); if
 *   absent, the root directory and every inode whose log has more than one
 *   page are collected. Each log gets a fast GC and then a thorough GC if
 *   that saves at least one page. The reply, sent when the work is done
 *   (collecting a whole file system may take a while), carries the
 *   identity and NOVA_A_GC. Errors: -ENOENT with the extack pointing at
 *   NOVA_GC_A_INODE if there is no such inode, -EROFS (mounted read-only,
 *   or a snapshot mount), -EBUSY (frozen), -EINTR (the caller was killed
 *   meanwhile), -ENOSPC (no room for the copy), -ENOMEM, -EUCLEAN (a
 *   damaged log, named in the kernel log), plus the selector errors.
 *
 * Integrity scrub
 * ---------------
 *
 * A scrub reads every object of a mounted file system and checks it
 * against its checksum (docs/scrub.md): the superblock and its replica,
 * the journals and inode-table heads, every valid inode slot, every page
 * of every inode log (page tail and each entry) and every data block a
 * file maps. What can be repaired (from a replica, from parity) is
 * repaired in place. One scrub per file system runs at a time, in a kernel
 * thread, in the background; it can be paused and resumed and is
 * rate-limited. A scrub is described by
 *
 *    NOVA_A_SCRUB: NLA_NESTED
 *        NOVA_SCRUB_A_STATE: NLA_U32, enum nova_scrub_state
 *        NOVA_SCRUB_A_BANDWIDTH: NLA_U64, bytes per second, 0 = unlimited
 *        NOVA_SCRUB_A_BYTES_SCANNED: NLA_U64, metadata and data bytes read
 *                                    so far in this pass
 *        NOVA_SCRUB_A_BYTES_TOTAL: NLA_U64, metadata and data bytes in use
 *                                  when the pass began (the goal; the
 *                                  file system may change meanwhile)
 *        NOVA_SCRUB_A_INODES_SCANNED: NLA_U64, valid inodes visited
 *        NOVA_SCRUB_A_META_CHECKED: NLA_U64, metadata objects checked
 *                                   (superblock copies, journal and
 *                                   table heads, inodes, log pages,
 *                                   log entries)
 *        NOVA_SCRUB_A_DATA_CHECKED: NLA_U64, data blocks checked
 *        NOVA_SCRUB_A_ERRORS: NLA_U64, bad objects found
 *        NOVA_SCRUB_A_REPAIRED: NLA_U64, of which repaired
 *        NOVA_SCRUB_A_UNRECOVERABLE: NLA_U64, of which not repairable
 *        NOVA_SCRUB_A_START_TIME: NLA_U64, when the pass began, ns since
 *                                 the Unix epoch (CLOCK_REALTIME); absent
 *                                 while idle
 *        NOVA_SCRUB_A_FINISH_TIME: NLA_U64, when it finished, same clock;
 *                                  only in state FINISHED
 *        NOVA_SCRUB_A_RUN_TIME: NLA_U64, ns the pass has been running,
 *                               pauses excluded (so a rate over it is
 *                               right for a resumed pass); with START_TIME
 *        NOVA_SCRUB_A_ERRNO: NLA_U32, 0, or the positive errno that ended
 *                            the pass early (e.g. ENOMEM, EROFS)
 *        NOVA_SCRUB_A_BAD_DROPPED: NLA_U64, bad objects beyond the first
 *                                  NOVA_GENL_SCRUB_BAD_MAX, not listed
 *        NOVA_SCRUB_A_EVENTS_SUPPRESSED: NLA_U64, NOVA_CMD_CORRUPTION
 *                                        notifications of this pass that
 *                                        the rate limit suppressed (below)
 *        NOVA_SCRUB_A_BAD: NLA_NESTED, once per bad object, at most
 *                          NOVA_GENL_SCRUB_BAD_MAX times, in order found
 *            NOVA_CORRUPTION_A_INODE, _KIND, _OFFSET, _REPAIRED as below
 *        NOVA_SCRUB_A_BAD: ...
 *
 * Counters and the list belong to the current or last pass and are reset
 * when a pass begins (not when a paused pass resumes).
 *
 * A corrupted object is described by
 *
 *    NOVA_A_CORRUPTION: NLA_NESTED
 *        NOVA_CORRUPTION_A_INODE: NLA_U64, the inode the object belongs to
 *                                 (its st_ino), 0 for objects of no inode
 *                                 (superblock, journals, table heads)
 *        NOVA_CORRUPTION_A_KIND: NLA_U32, enum nova_corruption_kind
 *        NOVA_CORRUPTION_A_OFFSET: NLA_U64, bytes: for DATA, CSUM and
 *                                  PARITY the offset in the file of the
 *                                  damaged page; for every other kind the
 *                                  offset of the damaged object on the
 *                                  device
 *        NOVA_CORRUPTION_A_REPAIRED: NLA_U8, 1 if the object was rewritten
 *                                    from a good copy, 0 if it is lost
 *                                    (readers of it then get EIO)
 *        NOVA_CORRUPTION_A_SUPPRESSED: NLA_U64, only in NOVA_CMD_CORRUPTION:
 *                                      notifications about this file
 *                                      system that the rate limit
 *                                      suppressed since the previous one
 *                                      sent (0 if none)
 *
 * NOVA_CMD_SCRUB_START
 *
 *   Plain request, GENL_ADMIN_PERM. Names one file system and may carry
 *   NOVA_A_SCRUB with NOVA_SCRUB_A_BANDWIDTH (bytes per second, 0 =
 *   unlimited, the default) and NOVA_SCRUB_A_RESTART (NLA_FLAG); other
 *   members are rejected with -EINVAL. A paused pass resumes from where it
 *   stopped (with the new bandwidth if one is given) unless RESTART is
 *   given; otherwise a new pass begins. The reply, sent at once, carries
 *   the identity and NOVA_A_SCRUB as NOVA_CMD_SCRUB_STATUS does. Errors:
 *   -EALREADY (a pass is running; the extack says so), -EROFS (mounted
 *   read-only or a snapshot mount: a scrub repairs in place and is
 *   refused there), -EBUSY (frozen), -ENOMEM, plus the selector errors.
 *
 * NOVA_CMD_SCRUB_STOP
 *
 *   Plain request, GENL_ADMIN_PERM. Names one file system; takes nothing
 *   else. Pauses the running pass and keeps its position, so that
 *   NOVA_CMD_SCRUB_START resumes it. The reply, sent once the thread has
 *   stopped, carries the identity and NOVA_A_SCRUB (state PAUSED).
 *   Errors: -EALREADY if no pass is running (the extack says whether it
 *   is idle, paused or finished), plus the selector errors.
 *
 * NOVA_CMD_SCRUB_STATUS
 *
 *   Plain request, open to every user. Names one file system; takes
 *   nothing else. The reply carries the identity and NOVA_A_SCRUB.
 *   Errors: the selector errors, -ENOMEM.
 *
 * Debugging: corruption injector
 * ------------------------------
 *
 *    NOVA_A_INJECT: NLA_NESTED
 *        NOVA_INJECT_A_TARGET: NLA_U32, enum nova_inject_target (required)
 *        NOVA_INJECT_A_INODE: NLA_U64, the inode (st_ino) whose object is
 *                             damaged; ignored for SUPER
 *        NOVA_INJECT_A_OFFSET: NLA_U64, where, by target: SUPER and INODE
 *                              the byte in the superblock / 256-byte inode
 *                              slot; LOG_ENTRY the index of the entry in
 *                              the inode's log (0 = first); LOG_TAIL the
 *                              index of the log page in the chain; DATA,
 *                              CSUM and PARITY a byte offset in the file
 *                              (the strip holding it, its checksum, the
 *                              page's parity strip)
 *        NOVA_INJECT_A_COPY: NLA_U32, 0 = the primary copy, 1 = the
 *                            replica (SUPER, INODE and CSUM have one)
 *
 * NOVA_CMD_INJECT
 *
 *   Plain request, GENL_ADMIN_PERM, a test tool (docs/scrub.md). Only the
 *   test build of the module (make module-test) registers it; the
 *   production module answers -EOPNOTSUPP (the generic netlink core's
 *   answer to an unknown command). Refused with -EPERM and an extack
 *   message unless the module was loaded with inject=1. Names one file system and carries NOVA_A_INJECT; flips bytes
 *   of the chosen object on the media, bypassing checksums, without
 *   telling the file system (in-DRAM copies stay as they are). The reply
 *   carries the identity and NOVA_A_INJECT as given. Errors: -EINVAL
 *   (missing target, or an offset/copy the object does not have), -ENOENT
 *   (no such inode, or no such object in it: the extack says which),
 *   -EROFS (read-only or snapshot mount), plus the selector errors.
 *
 * Debugging: persistence trace
 * ----------------------------
 *
 *    NOVA_A_PMTRACE: NLA_NESTED
 *        NOVA_PMTRACE_A_OP: NLA_U32, enum nova_pmtrace_op (required)
 *        NOVA_PMTRACE_A_BDEV: NLA_U64, ARM: the block device (its st_rdev,
 *                             the 32-bit "new" encoding) whose PMEM stores
 *                             are recorded from its next mount on
 *        NOVA_PMTRACE_A_SIZE: NLA_U32, ARM: the buffer in MiB (1..1024,
 *                             default 64)
 *        NOVA_PMTRACE_A_VALUE: NLA_U64, MARK: the value recorded
 *
 *    Replies (ARM, STOP, MARK, STATUS) carry NOVA_A_PMTRACE with
 *        NOVA_PMTRACE_A_STATE: NLA_U32, 0 off, 1 recording, 2 stopped
 *        NOVA_PMTRACE_A_RECORDS: NLA_U64, records in the buffer
 *        NOVA_PMTRACE_A_BYTES: NLA_U64, bytes of the buffer used
 *        NOVA_PMTRACE_A_LOST: NLA_U64, records that did not fit (the
 *                             trace is incomplete if not 0)
 *    and each message of a dump carries one record, NOVA_A_PMTRACE with
 *        NOVA_PMTRACE_A_TYPE: NLA_U32, enum nova_pmtrace_rec
 *        NOVA_PMTRACE_A_OFFSET: NLA_U64, FLUSH: the byte offset on the
 *                               device (a multiple of 64)
 *        NOVA_PMTRACE_A_DATA: NLA_BINARY, FLUSH: the cache lines as they
 *                             were when written back (64..2048 bytes)
 *        NOVA_PMTRACE_A_VALUE: NLA_U64, MARK: the value
 *
 * NOVA_CMD_PMTRACE
 *
 *   Plain request (ARM, STOP, FREE, MARK, STATUS) or dump (the records,
 *   oldest first; only while stopped), GENL_ADMIN_PERM and CAP_SYS_ADMIN,
 *   a test tool (the persistence checker, docs/testing.md). Only the test
 *   build registers it; the production module answers -EOPNOTSUPP. ARM
 *   allocates the buffer and records, while the named device is mounted,
 *   every write-back of its cache lines and every fence; STOP ends the
 *   recording and keeps the buffer for a dump; FREE drops it. Errors:
 *   -EBUSY (ARM while a trace exists, a dump while recording), -ENOENT
 *   (STOP, MARK or a dump without a trace), -ENOMEM, -EINVAL.
 *
 * Any user may subscribe. Notifications are never replies; sending their
 * command numbers as requests fails with -EOPNOTSUPP.
 *
 *    NOVA_CMD_FS_MOUNTED: a NOVA file system finished mounting.
 *    NOVA_CMD_FS_UNMOUNTED: a NOVA file system is being unmounted; after
 *                           this message it is no longer addressable.
 *
 *    NOVA_CMD_SNAPSHOT_CREATED: a snapshot was taken.
 *    NOVA_CMD_SNAPSHOT_DELETED: a snapshot was deleted.
 *
 *    NOVA_CMD_GC_FINISHED: a NOVA_CMD_GC request finished successfully
 *                          (the collection the kernel does by itself as
 *                          logs grow is not announced).
 * *
 *    NOVA_CMD_SCRUB_FINISHED: a scrub pass reached its end (not when it is
 *                             paused, nor when unmount interrupts it);
 *                             carries NOVA_A_SCRUB as NOVA_CMD_SCRUB_STATUS.
 *    NOVA_CMD_CORRUPTION: a damaged object was found, by a reader, at
 *                         mount, or by a scrub; carries NOVA_A_CORRUPTION.
 *                         Rate-limited per file system: at most
 *                         NOVA_GENL_CORRUPTION_BURST per second; the rest
 *                         are counted, and the count is carried by the
 *                         next one sent (NOVA_CORRUPTION_A_SUPPRESSED) and,
 *                         for those a scrub found, by the scrub status
 *                         (NOVA_SCRUB_A_EVENTS_SUPPRESSED, also in
 *                         NOVA_CMD_SCRUB_FINISHED). Nothing is counted
 *                         while nobody listens.
 *
 * All carry NOVA_A_FS_DEV, NOVA_A_FS_UUID, NOVA_A_FS_LABEL and
 * NOVA_A_FS_BDEV; the snapshot ones also NOVA_A_SNAPSHOT with all four
 * members, NOVA_CMD_GC_FINISHED also NOVA_A_GC as in the reply. Multicast delivery is not reliable: a listener whose
 * socket buffer overflows gets ENOBUFS from recv(2) and should resynchronise
 * with NOVA_CMD_FS_LIST.
 *
 * Room for what comes next
 * ------------------------
 *
 * Command and attribute numbers are ABI: new ones are only ever appended to
 * the enums below, never renumbered, and nothing is reserved in advance.
 * New top-level nests get their own NOVA_<NEST>_A_* enum, like
 * NOVA_STATS_A_* below, so each object's attribute space grows on its own.
 */
#ifndef _UAPI_LINUX_NOVA_GENL_H
#define _UAPI_LINUX_NOVA_GENL_H

#define NOVA_GENL_NAME		"nova"
#define NOVA_GENL_VERSION	1
#define NOVA_GENL_MCGRP_EVENTS	"events"

/* Length of NOVA_A_FS_UUID. */
#define NOVA_GENL_UUID_LEN	16
/* Longest NOVA_A_FS_LABEL including its terminating NUL. */
#define NOVA_GENL_LABEL_LEN	32
/* Longest NOVA_SNAPSHOT_A_NAME including its terminating NUL. */
#define NOVA_GENL_SNAPSHOT_NAME_LEN	64
/* Live snapshots per file system. */
#define NOVA_GENL_SNAPSHOTS_MAX	256
/* Bad objects listed in a scrub status (NOVA_SCRUB_A_BAD). */
#define NOVA_GENL_SCRUB_BAD_MAX	32
/* NOVA_CMD_CORRUPTION notifications per file system and second. */
#define NOVA_GENL_CORRUPTION_BURST	16

enum nova_cmd {
	NOVA_CMD_UNSPEC,
	NOVA_CMD_FS_LIST,
	NOVA_CMD_STATS_GET,
	NOVA_CMD_FS_MOUNTED,		/* notification */
	NOVA_CMD_FS_UNMOUNTED,		/* notification */
	NOVA_CMD_SNAPSHOT_CREATE,
	NOVA_CMD_SNAPSHOT_DELETE,
	NOVA_CMD_SNAPSHOT_LIST,
	NOVA_CMD_SNAPSHOT_CREATED,	/* notification */
	NOVA_CMD_SNAPSHOT_DELETED,	/* notification */
	NOVA_CMD_GC,
	NOVA_CMD_GC_FINISHED,		/* notification */
	NOVA_CMD_SCRUB_START,
	NOVA_CMD_SCRUB_STOP,
	NOVA_CMD_SCRUB_STATUS,
	NOVA_CMD_SCRUB_FINISHED,	/* notification */
	NOVA_CMD_CORRUPTION,		/* notification */
	NOVA_CMD_INJECT,		/* test builds, needs inject=1 */
	NOVA_CMD_PMTRACE,		/* test builds */
	NOVA_CMD_SNAPSHOT_DIFF,

	__NOVA_CMD_MAX
};
#define NOVA_CMD_MAX (__NOVA_CMD_MAX - 1)

enum nova_attr {
	NOVA_A_UNSPEC,
	NOVA_A_PAD,
	NOVA_A_FS_DEV,
	NOVA_A_FS_UUID,
	NOVA_A_FS_LABEL,
	NOVA_A_FS_BDEV,
	NOVA_A_FS_FORMAT_VERSION,
	NOVA_A_FS_READ_ONLY,
	NOVA_A_STATS,
	NOVA_A_SNAPSHOT,
	NOVA_A_GC,
	NOVA_A_SCRUB,
	NOVA_A_CORRUPTION,
	NOVA_A_INJECT,
	NOVA_A_PMTRACE,
	NOVA_A_SNAPSHOT_DIFF,

	__NOVA_A_MAX
};
#define NOVA_A_MAX (__NOVA_A_MAX - 1)

enum nova_stats_attr {
	NOVA_STATS_A_UNSPEC,
	NOVA_STATS_A_PAD,
	NOVA_STATS_A_FORMAT_VERSION,
	NOVA_STATS_A_CPUS,
	NOVA_STATS_A_BLOCK_SIZE,
	NOVA_STATS_A_BLOCKS_TOTAL,
	NOVA_STATS_A_BLOCKS_FREE,
	NOVA_STATS_A_INODES_TOTAL,
	NOVA_STATS_A_INODES_FREE,
	NOVA_STATS_A_LOG_PAGES,
	NOVA_STATS_A_DATA_PAGES,
	NOVA_STATS_A_EPOCH,
	NOVA_STATS_A_SNAPSHOTS,
	NOVA_STATS_A_MOUNT_TIME_NS,
	NOVA_STATS_A_RECOVERED,
	NOVA_STATS_A_READ_ONLY,
	NOVA_STATS_A_OP,
	NOVA_STATS_A_GC_FAST_PAGES,
	NOVA_STATS_A_GC_THOROUGH_RUNS,
	NOVA_STATS_A_GC_THOROUGH_PAGES,
	NOVA_STATS_A_GC_ENTRIES_COPIED,
	NOVA_STATS_A_GC_TIME_NS,
	NOVA_STATS_A_SCRUB_STATE,
	NOVA_STATS_A_SCRUB_PASSES,
	NOVA_STATS_A_SCRUB_BYTES,
	NOVA_STATS_A_SCRUB_ERRORS,
	NOVA_STATS_A_SCRUB_REPAIRED,
	NOVA_STATS_A_SCRUB_UNRECOVERABLE,
	NOVA_STATS_A_PROTECTION,
	NOVA_STATS_A_SNAPSHOT_RECLAIM_BLOCKS,
	NOVA_STATS_A_SNAPSHOT_RECLAIM_INODES,
	NOVA_STATS_A_SNAPSHOT_RECLAIMED,
	NOVA_STATS_A_SPACE_CHECK_PENDING,

	__NOVA_STATS_A_MAX
};
#define NOVA_STATS_A_MAX (__NOVA_STATS_A_MAX - 1)

enum nova_prot_attr {
	NOVA_PROT_A_UNSPEC,
	NOVA_PROT_A_PAD,
	NOVA_PROT_A_CSUM,
	NOVA_PROT_A_PARITY,
	NOVA_PROT_A_VERIFY,
	NOVA_PROT_A_VERIFIED,
	NOVA_PROT_A_REPAIRED,
	NOVA_PROT_A_UNRECOVERABLE,
	NOVA_PROT_A_BADBLOCKS,
	NOVA_PROT_A_BADBLOCKS_REPAIRED,
	NOVA_PROT_A_BADBLOCKS_LOST,
	NOVA_PROT_A_BADBLOCKS_WITHHELD,

	__NOVA_PROT_A_MAX
};
#define NOVA_PROT_A_MAX (__NOVA_PROT_A_MAX - 1)

enum nova_op_attr {
	NOVA_OP_A_UNSPEC,
	NOVA_OP_A_PAD,
	NOVA_OP_A_NAME,
	NOVA_OP_A_COUNT,
	NOVA_OP_A_TIME_NS,

	__NOVA_OP_A_MAX
};
#define NOVA_OP_A_MAX (__NOVA_OP_A_MAX - 1)

enum nova_snapshot_attr {
	NOVA_SNAPSHOT_A_UNSPEC,
	NOVA_SNAPSHOT_A_PAD,
	NOVA_SNAPSHOT_A_ID,
	NOVA_SNAPSHOT_A_NAME,
	NOVA_SNAPSHOT_A_EPOCH,
	NOVA_SNAPSHOT_A_CTIME,
	NOVA_SNAPSHOT_A_EXCL_BLOCKS,
	NOVA_SNAPSHOT_A_WAIT,

	__NOVA_SNAPSHOT_A_MAX
};
#define NOVA_SNAPSHOT_A_MAX (__NOVA_SNAPSHOT_A_MAX - 1)

enum nova_gc_attr {
	NOVA_GC_A_UNSPEC,
	NOVA_GC_A_PAD,
	NOVA_GC_A_INODE,
	NOVA_GC_A_INODES,
	NOVA_GC_A_LOG_PAGES_BEFORE,
	NOVA_GC_A_LOG_PAGES_AFTER,
	NOVA_GC_A_FAST_PAGES,
	NOVA_GC_A_THOROUGH_RUNS,
	NOVA_GC_A_ENTRIES_COPIED,
	NOVA_GC_A_TIME_NS,

	__NOVA_GC_A_MAX
};
#define NOVA_GC_A_MAX (__NOVA_GC_A_MAX - 1)

enum nova_scrub_state {
	NOVA_SCRUB_IDLE,		/* no pass since mount */
	NOVA_SCRUB_RUNNING,
	NOVA_SCRUB_PAUSED,		/* stopped, resumable */
	NOVA_SCRUB_FINISHED,		/* the last pass ended */
};

enum nova_scrub_attr {
	NOVA_SCRUB_A_UNSPEC,
	NOVA_SCRUB_A_PAD,
	NOVA_SCRUB_A_STATE,
	NOVA_SCRUB_A_BANDWIDTH,
	NOVA_SCRUB_A_RESTART,
	NOVA_SCRUB_A_BYTES_SCANNED,
	NOVA_SCRUB_A_BYTES_TOTAL,
	NOVA_SCRUB_A_INODES_SCANNED,
	NOVA_SCRUB_A_META_CHECKED,
	NOVA_SCRUB_A_DATA_CHECKED,
	NOVA_SCRUB_A_ERRORS,
	NOVA_SCRUB_A_REPAIRED,
	NOVA_SCRUB_A_UNRECOVERABLE,
	NOVA_SCRUB_A_START_TIME,
	NOVA_SCRUB_A_FINISH_TIME,
	NOVA_SCRUB_A_ERRNO,
	NOVA_SCRUB_A_BAD_DROPPED,
	NOVA_SCRUB_A_BAD,
	NOVA_SCRUB_A_EVENTS_SUPPRESSED,
	NOVA_SCRUB_A_RUN_TIME,

	__NOVA_SCRUB_A_MAX
};
#define NOVA_SCRUB_A_MAX (__NOVA_SCRUB_A_MAX - 1)

/* What a NOVA_CMD_CORRUPTION or NOVA_SCRUB_A_BAD is about. */
enum nova_corruption_kind {
	NOVA_CORRUPT_SUPER = 1,		/* a superblock copy */
	NOVA_CORRUPT_INODE = 2,		/* an inode slot */
	NOVA_CORRUPT_LOG_ENTRY = 3,	/* one entry of an inode log */
	NOVA_CORRUPT_LOG_TAIL = 4,	/* the tail of a log page */
	NOVA_CORRUPT_DATA = 5,		/* a strip of a data page */
	NOVA_CORRUPT_CSUM = 6,		/* the checksums of a data page */
	NOVA_CORRUPT_PARITY = 7,	/* the parity strip of a data page */
	NOVA_CORRUPT_JOURNAL = 8,	/* a per-CPU journal head */
	NOVA_CORRUPT_INODE_TABLE = 9,	/* an inode-table head */
	NOVA_CORRUPT_MEDIA = 10,	/* a block the device lists as bad:
					 * a log page, an inode table or free
					 * space (device offset)
					 */
};

enum nova_corruption_attr {
	NOVA_CORRUPTION_A_UNSPEC,
	NOVA_CORRUPTION_A_PAD,
	NOVA_CORRUPTION_A_INODE,
	NOVA_CORRUPTION_A_KIND,
	NOVA_CORRUPTION_A_OFFSET,
	NOVA_CORRUPTION_A_REPAIRED,
	NOVA_CORRUPTION_A_SUPPRESSED,

	__NOVA_CORRUPTION_A_MAX
};
#define NOVA_CORRUPTION_A_MAX (__NOVA_CORRUPTION_A_MAX - 1)

/* The object NOVA_CMD_INJECT damages (numbered as the corruption kinds). */
enum nova_inject_target {
	NOVA_INJECT_SUPER = 1,
	NOVA_INJECT_INODE = 2,
	NOVA_INJECT_LOG_ENTRY = 3,
	NOVA_INJECT_LOG_TAIL = 4,
	NOVA_INJECT_DATA = 5,
	NOVA_INJECT_CSUM = 6,
	NOVA_INJECT_PARITY = 7,

	__NOVA_INJECT_MAX
};
#define NOVA_INJECT_MAX (__NOVA_INJECT_MAX - 1)

enum nova_inject_attr {
	NOVA_INJECT_A_UNSPEC,
	NOVA_INJECT_A_PAD,
	NOVA_INJECT_A_TARGET,
	NOVA_INJECT_A_INODE,
	NOVA_INJECT_A_OFFSET,
	NOVA_INJECT_A_COPY,

	__NOVA_INJECT_A_MAX
};
#define NOVA_INJECT_A_MAX (__NOVA_INJECT_A_MAX - 1)

/* What NOVA_CMD_PMTRACE does. */
enum nova_pmtrace_op {
	NOVA_PMTRACE_ARM = 1,
	NOVA_PMTRACE_STOP = 2,
	NOVA_PMTRACE_FREE = 3,
	NOVA_PMTRACE_MARK = 4,
	NOVA_PMTRACE_STATUS = 5,

	__NOVA_PMTRACE_OP_MAX
};
#define NOVA_PMTRACE_OP_MAX (__NOVA_PMTRACE_OP_MAX - 1)

/* The kinds of record in a persistence trace. */
enum nova_pmtrace_rec {
	NOVA_PMTRACE_FLUSH = 1,	/* cache lines written back (or streamed) */
	NOVA_PMTRACE_FENCE = 2,	/* everything before is durable */
	NOVA_PMTRACE_MARK_REC = 3,	/* a NOVA_PMTRACE_MARK request */
};

enum nova_pmtrace_attr {
	NOVA_PMTRACE_A_UNSPEC,
	NOVA_PMTRACE_A_PAD,
	NOVA_PMTRACE_A_OP,
	NOVA_PMTRACE_A_BDEV,
	NOVA_PMTRACE_A_SIZE,
	NOVA_PMTRACE_A_VALUE,
	NOVA_PMTRACE_A_STATE,
	NOVA_PMTRACE_A_RECORDS,
	NOVA_PMTRACE_A_BYTES,
	NOVA_PMTRACE_A_LOST,
	NOVA_PMTRACE_A_TYPE,
	NOVA_PMTRACE_A_OFFSET,
	NOVA_PMTRACE_A_DATA,

	__NOVA_PMTRACE_A_MAX
};
#define NOVA_PMTRACE_A_MAX (__NOVA_PMTRACE_A_MAX - 1)

/* How an inode of a NOVA_CMD_SNAPSHOT_DIFF answer changed. */
enum nova_snapdiff_change {
	NOVA_SNAPDIFF_MODIFIED = 1,
	NOVA_SNAPDIFF_CREATED = 2,
	NOVA_SNAPDIFF_REMOVED = 3,
};

enum nova_snapdiff_attr {
	NOVA_SNAPDIFF_A_UNSPEC,
	NOVA_SNAPDIFF_A_PAD,
	NOVA_SNAPDIFF_A_OLD,
	NOVA_SNAPDIFF_A_NEW,
	NOVA_SNAPDIFF_A_INO,
	NOVA_SNAPDIFF_A_MODE,
	NOVA_SNAPDIFF_A_CHANGE,

	__NOVA_SNAPDIFF_A_MAX
};
#define NOVA_SNAPDIFF_A_MAX (__NOVA_SNAPDIFF_A_MAX - 1)

#endif /* _UAPI_LINUX_NOVA_GENL_H */

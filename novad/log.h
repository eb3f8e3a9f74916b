/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * novad logging: structured journal entries (sd_journal_sendv) with
 *   NOVA_DEVICE=/dev/pmem0  NOVA_MOUNTPOINT=/mnt/nova  NOVA_UUID=...
 *   NOVA_SNAPSHOT_ID=, NOVA_SNAPSHOT_NAME=, NOVA_JOB=, CONFIG_FILE=,
 *   CONFIG_LINE= where they apply, and MESSAGE_ID= for the events an
 *   operator may want to search for (journalctl MESSAGE_ID=...).
 * When stderr is not the journal (novad run by hand), every message is
 * also printed there.
 */
#ifndef NOVAD_LOG_H
#define NOVAD_LOG_H

#include <syslog.h>

#include "backend.h"

/* MESSAGE_IDs (see novad(8), section JOURNAL). */
#define NOVAD_MID_STARTED		"64b838b7e9ee4478bc9dba99938bf34d"
#define NOVAD_MID_CONFIG_REJECTED	"5380f6bccc364ca3a18698312de4eda0"
#define NOVAD_MID_FS_MOUNTED		"8f44d4ff0555461dae2ac6eab0d619c4"
#define NOVAD_MID_FS_UNMOUNTED		"c1c02c36371b454a93477beac918761f"
#define NOVAD_MID_SNAPSHOT_CREATED	"026458e4047843aca6bf66853506baa9"
#define NOVAD_MID_SNAPSHOT_DELETED	"eec686a34ad544088f939c2d18aa0c7a"
#define NOVAD_MID_SCRUB_STARTED		"c84fd649009649fa9718bb3034ad85e0"
#define NOVAD_MID_CORRUPTION		"4ecb137f478e4312a30d2cada427e1e2"
#define NOVAD_MID_JOB_UNAVAILABLE	"0ef52dab008141e9a201485e75ce40f1"
#define NOVAD_MID_SCRUB_FINISHED	"977c38b541da459fbf2517a894492628"
#define NOVAD_MID_HOOK			"18de991af75a4045bc92c137cd9c0655"
#define NOVAD_MID_FS_SKIPPED		"96277a3f9bed4dc89249644d1b7df4ab"

/* Extra FIELD=value strings, NULL-terminated; MSGID and FS may be NULL. */
void novad_log_fields(int prio, const char *msgid,
		      const struct novad_fs_ref *fs, const char *const *fields,
		      const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define novad_log(prio, fs, ...) \
	novad_log_fields(prio, NULL, fs, NULL, __VA_ARGS__)

#endif /* NOVAD_LOG_H */

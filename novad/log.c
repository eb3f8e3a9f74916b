// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * novad logging (see log.h).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"

#define MAX_FIELDS	32

/* Is stderr the journal stream systemd connected us to ($JOURNAL_STREAM)? */
static bool stderr_is_journal(void)
{
	static int cached = -1;
	unsigned long long dev, ino;
	const char *js;
	struct stat st;

	if (cached >= 0)
		return cached;
	js = getenv("JOURNAL_STREAM");
	cached = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
		 !fstat(STDERR_FILENO, &st) && st.st_dev == dev &&
		 st.st_ino == ino;
	return cached;
}

void novad_log_fields(int prio, const char *msgid,
		      const struct novad_fs_ref *fs, const char *const *fields,
		      const char *fmt, ...)
{
	char msg[2048], mbuf[2100], pbuf[32], idbuf[64], dbuf[80];
	char mnt[4200], ubuf[64], uuid[37];
	struct iovec iov[MAX_FIELDS];
	int n = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

#define ADD(s) do { if (n < MAX_FIELDS) { iov[n].iov_base = (void *)(s); \
			iov[n].iov_len = strlen(s); n++; } } while (0)
	snprintf(mbuf, sizeof(mbuf), "MESSAGE=%s", msg);
	ADD(mbuf);
	snprintf(pbuf, sizeof(pbuf), "PRIORITY=%d", prio);
	ADD(pbuf);
	ADD("SYSLOG_IDENTIFIER=novad");
	if (msgid) {
		snprintf(idbuf, sizeof(idbuf), "MESSAGE_ID=%s", msgid);
		ADD(idbuf);
	}
	if (fs) {
		snprintf(dbuf, sizeof(dbuf), "NOVA_DEVICE=/dev/%s",
			 fs->bdev ? fs->bdev : "");
		ADD(dbuf);
		if (fs->mountpoint && fs->mountpoint[0]) {
			snprintf(mnt, sizeof(mnt), "NOVA_MOUNTPOINT=%s",
				 fs->mountpoint);
			ADD(mnt);
		}
		nova_uuid_format(fs->uuid, uuid);
		snprintf(ubuf, sizeof(ubuf), "NOVA_UUID=%s", uuid);
		ADD(ubuf);
	}
	for (size_t i = 0; fields && fields[i]; i++)
		ADD(fields[i]);
#undef ADD
	sd_journal_sendv(iov, n);
	if (!stderr_is_journal())
		fprintf(stderr, "novad: %s\n", msg);
}

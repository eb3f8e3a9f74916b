/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libnova internals shared by its files (fs.c, scrub.c): message parsing
 * helpers. Not part of the library's interface.
 */
#ifndef LIBNOVA_DECODE_H
#define LIBNOVA_DECODE_H

#include "libnova.h"

struct nl_msg;

/* Top-level attributes of a nova message (genl header included). */
int nova_parse_top(const struct nlmsghdr *nlh,
		   struct nlattr *tb[NOVA_A_MAX + 1]);
/* The identity every reply and notification starts with. */
int nova_decode_id(struct nlattr **tb, struct nova_fs_id *id);
/* An optional u64 attribute, 0 if absent. */
uint64_t nova_u64(struct nlattr **tb, int type);
/* A string attribute, NUL-terminated and truncated to LEN - 1. */
void nova_copy_str(char *dst, size_t len, const struct nlattr *a);
/* The file-system selector of a request. */
int nova_put_sel(struct nl_msg *msg, const struct nova_sel *sel);
/*
 * One request for the selected file system and its one reply: CMD with
 * the selector and what PUT (may be NULL) adds from ARG; DECODE reads the
 * reply into OUT. WHAT names the reply in the error if none comes.
 */
int nova_request_one(struct nova_ipc *ipc, uint8_t cmd,
		     const struct nova_sel *sel,
		     int (*put)(struct nl_msg *msg, const void *arg),
		     const void *arg,
		     int (*decode)(const struct nlmsghdr *nlh, void *out),
		     void *out, const char *what, struct nova_err *e);

#endif /* LIBNOVA_DECODE_H */

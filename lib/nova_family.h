/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libnova family introspection: which commands the running kernel's
 * "nova" family offers, from the op list of CTRL_CMD_GETFAMILY. Lets a
 * client tell "this kernel lacks the command" apart from a failure before
 * it sends the command (novad uses it to report unavailable jobs).
 */
#ifndef LIBNOVA_FAMILY_H
#define LIBNOVA_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

#include "libnova.h"

/* Commands are 8-bit in genetlink. */
struct nova_family_ops {
	uint32_t bits[256 / 32];
	uint32_t flags[256];	/* GENL_CMD_CAP_* per command */
	unsigned int count;
};

/* Ask the generic netlink controller for the nova family's op list. */
int nova_family_ops_get(struct nova_ipc *ipc, struct nova_family_ops *ops,
			struct nova_err *e);
bool nova_family_has_cmd(const struct nova_family_ops *ops, uint8_t cmd);

#endif /* LIBNOVA_FAMILY_H */

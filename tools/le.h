/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Little-endian accessors for the on-media structures of
 * uapi/nova_format.h (whose __le types are plain integers to userspace).
 */
#ifndef NOVA_TOOLS_LE_H
#define NOVA_TOOLS_LE_H

#include <endian.h>
#include <stdint.h>

#include "nova_format.h"

static inline uint16_t le16(__le16 v) { return le16toh(v); }
static inline uint32_t le32(__le32 v) { return le32toh(v); }
static inline uint64_t le64(__le64 v) { return le64toh(v); }
static inline __le16 cpu16(uint16_t v) { return htole16(v); }
static inline __le32 cpu32(uint32_t v) { return htole32(v); }
static inline __le64 cpu64(uint64_t v) { return htole64(v); }

#endif

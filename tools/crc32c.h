/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * CRC-32C (Castagnoli) in software, with the kernel's crc32c() calling
 * convention: the caller passes the running value, there is no final
 * inversion. NOVA checksums are nova_crc32c(~0U, buf, len), the value the
 * kernel's crc32c(~0, buf, len) returns (uapi/nova_format.h).
 */
#ifndef NOVA_TOOLS_CRC32C_H
#define NOVA_TOOLS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "nova_csum.h"	/* NOVA_CRC_SEED, nova_csum_skip() and the rules */

/* Continue a CRC-32C over @len bytes of @buf. */
uint32_t nova_crc32c(uint32_t crc, const void *buf, size_t len);

#endif

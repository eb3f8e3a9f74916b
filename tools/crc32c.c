// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CRC-32C, reflected polynomial 0x82f63b78, slicing-by-8 tables built on
 * first use. Bit-for-bit the kernel's crc32c(): no pre- or post-inversion
 * beyond what the caller passes in.
 */
#include <string.h>

#include "crc32c.h"

#define CRC32C_POLY	0x82f63b78U

static uint32_t crc_table[8][256];
static int crc_table_ready;

static void crc_init(void)
{
	uint32_t c;
	int i, j, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (CRC32C_POLY & (0U - (c & 1)));
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
					  crc_table[0][crc_table[k - 1][i] & 0xff];
	crc_table_ready = 1;
}

uint32_t nova_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!crc_table_ready)
		crc_init();
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][p[4]] ^ crc_table[2][p[5]] ^
		      crc_table[1][p[6]] ^ crc_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

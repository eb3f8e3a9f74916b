// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CRC-32C known answers (RFC 3720 B.4 and the "123456789" check value),
 * in the kernel's crc32c(~0, ...) convention: no final inversion, so the
 * values are the complements of the published ones. Plus the checksum
 * helpers of tools/format.c: the field taken as zero, the coverage each
 * structure's checksum has in module/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "crc32c.h"
#include "format.h"
#include "le.h"

static void test_check_value(void **state)
{
	(void)state;
	/* CRC-32C("123456789") = 0xe3069283 with the final inversion. */
	assert_int_equal(nova_crc32c(~0U, "123456789", 9), ~0xe3069283U);
}

static void test_rfc3720_vectors(void **state)
{
	uint8_t zero[32], ones[32], inc[32], dec[32];
	int i;

	(void)state;
	for (i = 0; i < 32; i++) {
		zero[i] = 0;
		ones[i] = 0xff;
		inc[i] = (uint8_t)i;
		dec[i] = (uint8_t)(31 - i);
	}
	assert_int_equal(nova_crc32c(~0U, zero, 32), ~0x8a9136aaU);
	assert_int_equal(nova_crc32c(~0U, ones, 32), ~0x62a8ab43U);
	assert_int_equal(nova_crc32c(~0U, inc, 32), ~0x46dd794eU);
	assert_int_equal(nova_crc32c(~0U, dec, 32), ~0x113fdb5cU);
}

static void test_iscsi_read_pdu(void **state)
{
	/* RFC 3720 B.4: an iSCSI SCSI Read (10) command PDU. */
	static const uint8_t pdu[48] = {
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
		0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	(void)state;
	assert_int_equal(nova_crc32c(~0U, pdu, sizeof(pdu)), ~0xd9963a56U);
}

static void test_incremental_and_unaligned(void **state)
{
	uint8_t buf[1000];
	uint32_t whole, part;
	size_t i, cut;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	whole = nova_crc32c(~0U, buf, sizeof(buf));
	for (cut = 0; cut <= 17; cut++) {
		part = nova_crc32c(~0U, buf, cut);
		part = nova_crc32c(part, buf + cut, sizeof(buf) - cut);
		assert_int_equal(part, whole);
	}
	/* Same bytes at another alignment give the same value. */
	{
		uint8_t shifted[1001];

		memcpy(shifted + 1, buf, sizeof(buf));
		assert_int_equal(nova_crc32c(~0U, shifted + 1, sizeof(buf)), whole);
	}
	assert_int_equal(nova_crc32c(0x12345678U, buf, 0), 0x12345678U);
}

static void test_csum_skip_zeroes_field(void **state)
{
	uint8_t a[64], b[64];

	(void)state;
	memset(a, 0x5a, sizeof(a));
	memcpy(b, a, sizeof(b));
	memset(b + 8, 0, 4);
	a[8] = 1; a[9] = 2; a[10] = 3; a[11] = 4;
	assert_int_equal(nova_csum_skip(a, 64, 8), nova_crc32c(~0U, b, 64));
	/* A field outside the range is ignored. */
	assert_int_equal(nova_csum_skip(a, 64, 64), nova_crc32c(~0U, a, 64));
}

static void test_superblock_seal(void **state)
{
	struct nova_super_block sb;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	sb.s_magic = cpu32(NOVA_SUPER_MAGIC);
	sb.s_size = cpu64(1 << 30);
	nova_sb_seal(&sb);
	assert_int_equal(le32(sb.s_csum), nova_sb_csum(&sb));
	sb.s_label[3] ^= 1;
	assert_int_not_equal(le32(sb.s_csum), nova_sb_csum(&sb));
}

static void test_inode_csum_skips_commit_words(void **state)
{
	struct nova_inode pi;
	uint32_t c;

	(void)state;
	memset(&pi, 0, sizeof(pi));
	pi.i_mode = cpu16(0100644);
	nova_inode_seal(&pi);
	c = le32(pi.i_csum);
	/* Commit words are outside the checksum ... */
	pi.i_valid = cpu64(1);
	pi.i_log_head = cpu64(12345 * 4096);
	pi.i_log_tail = cpu64(12345 * 4096 + 64);
	assert_int_equal(nova_inode_csum(&pi), c);
	/* ... every other byte is inside. */
	pi.i_inline[NOVA_INLINE_SIZE - 1] = 1;
	assert_int_not_equal(nova_inode_csum(&pi), c);
}

static void test_entry_csum_skips_hints(void **state)
{
	struct nova_file_write_entry fw;
	uint32_t c;

	(void)state;
	memset(&fw, 0, sizeof(fw));
	fw.hdr.e_type = NOVA_LOG_FILE_WRITE;
	fw.hdr.e_size = cpu16(sizeof(fw));
	fw.fw_num_pages = cpu32(3);
	nova_entry_seal(&fw);
	c = le32(fw.hdr.e_csum);
	fw.hdr.e_flags = NOVA_ENTRY_INVALID;
	fw.fw_dead_pages = cpu32(2);
	assert_int_equal(nova_entry_csum(&fw, sizeof(fw)), c);
	fw.fw_block = cpu64(99);
	assert_int_not_equal(nova_entry_csum(&fw, sizeof(fw)), c);
}

static void test_log_tail_csum(void **state)
{
	struct nova_log_page_tail lt;
	uint32_t c;

	(void)state;
	memset(&lt, 0, sizeof(lt));
	lt.lt_ino = cpu64(7);
	lt.lt_magic = cpu32(NOVA_LOG_PAGE_MAGIC);
	/* The kernel seals with crc32c(~0, &lt_ino, 16) while lt_csum is 0. */
	c = nova_crc32c(~0U, &lt.lt_ino, 16);
	nova_lt_seal(&lt);
	assert_int_equal(le32(lt.lt_csum), c);
	assert_int_equal(nova_lt_csum(&lt), c);
	lt.lt_next = cpu64(4096);	/* commit word */
	lt.lt_valid = cpu32(9);		/* hints */
	assert_int_equal(nova_lt_csum(&lt), c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_rfc3720_vectors),
		cmocka_unit_test(test_iscsi_read_pdu),
		cmocka_unit_test(test_incremental_and_unaligned),
		cmocka_unit_test(test_csum_skip_zeroes_field),
		cmocka_unit_test(test_superblock_seal),
		cmocka_unit_test(test_inode_csum_skips_commit_words),
		cmocka_unit_test(test_entry_csum_skips_hints),
		cmocka_unit_test(test_log_tail_csum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

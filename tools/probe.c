// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Signature probes: a magic string at a fixed offset, from the table the
 * kernel's "mount -o init" uses too (uapi/nova_probe.h).
 */
#include <string.h>

#include <nova_probe.h>

#include "probe.h"

const char *nova_probe_signature(struct nova_dev *d)
{
	static unsigned char buf[NOVA_PROBE_BYTES];
	size_t n = d->size < NOVA_PROBE_BYTES ? (size_t)d->size : NOVA_PROBE_BYTES;
	size_t i;

	memset(buf, 0, sizeof(buf));
	if (ndev_read(d, 0, buf, n, NULL))
		return NULL;
	for (i = 0; i < NOVA_NR_SIGNATURES; i++) {
		const struct nova_signature *s = &nova_signatures[i];

		if (s->off + s->len <= n &&
		    !memcmp(buf + s->off, s->magic, s->len))
			return s->name;
	}
	return NULL;
}

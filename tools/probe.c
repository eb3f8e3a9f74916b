// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Signature probes: a magic string at a fixed offset, from the table the
 * kernel's "mount -o init" uses too (uapi/nova_probe.h).
 */
#include <stdbool.h>
#include <string.h>

#include <nova_probe.h>

#include "probe.h"

static const char *probe(struct nova_dev *d, bool skip_nova)
{
	static unsigned char buf[NOVA_PROBE_BYTES];
	size_t n = d->size < NOVA_PROBE_BYTES ? (size_t)d->size : NOVA_PROBE_BYTES;
	size_t i;

	memset(buf, 0, sizeof(buf));
	if (ndev_read(d, 0, buf, n, NULL))
		return NULL;
	for (i = 0; i < sizeof(nova_signatures) / sizeof(nova_signatures[0]); i++) {
		const struct nova_signature *s = &nova_signatures[i];

		if (skip_nova && !strcmp(s->name, "NOVA"))
			continue;
		if (s->off + s->len <= n &&
		    !memcmp(buf + s->off, s->magic, s->len))
			return s->name;
	}
	return NULL;
}

const char *nova_probe_signature(struct nova_dev *d)
{
	return probe(d, false);
}

const char *nova_probe_other_signature(struct nova_dev *d)
{
	return probe(d, true);
}

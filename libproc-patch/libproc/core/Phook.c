/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Phook.c: the release hooks of a handle's or a share's modules
 * (core/Phook.h).
 */
#include <errno.h>
#include <stddef.h>

#include "core/Phook.h"

int
Phook_set(phook_t *hooks, phook_f *fn, void *data, int order)
{
	phook_t *slot = NULL;

	for (size_t i = 0; i < PHOOKS; i++) {
		if (hooks[i].ph_free == fn) {
			slot = &hooks[i];
			break;
		}
		if (hooks[i].ph_free == NULL && slot == NULL)
			slot = &hooks[i];
	}
	if (slot == NULL)
		return (ENOSPC);
	slot->ph_free = fn;
	slot->ph_data = data;
	slot->ph_order = order;
	return (0);
}

void *
Phook_get(const phook_t *hooks, phook_f *fn)
{
	for (size_t i = 0; i < PHOOKS; i++) {
		if (hooks[i].ph_free == fn)
			return (hooks[i].ph_data);
	}
	return (NULL);
}

void
Phook_run(phook_t *hooks)
{
	for (int order = PHOOK_FIRST; order <= PHOOK_LAST; order++) {
		for (size_t i = 0; i < PHOOKS; i++) {
			phook_t *h = &hooks[i];

			if (h->ph_free != NULL && h->ph_order == order) {
				h->ph_free(h->ph_data);
				h->ph_free = NULL;
				h->ph_data = NULL;
			}
		}
	}
}

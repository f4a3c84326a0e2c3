/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socksrc.c: what the sources of socket facts share of their interface
 * (socksrc.h).
 */
#include <stdio.h>

#include "sock/socksrc.h"

int
socksrc_pass(struct ps_prochandle *P, const char *why)
{
	/* Not Pseterr: a source passed by is no failure, nor traced as one. */
	(void) snprintf(P->errmsg, sizeof (P->errmsg), "%s", why);
	return (SOCKSRC_PASS);
}

void
sockask_each(struct ps_prochandle *P, sockask_t *asks, size_t n,
    sockfacts_one_f *one)
{
	for (size_t i = 0; i < n; i++)
		asks[i].sa_err = one(P, asks[i].sa_fd, asks[i].sa_ino,
		    &asks[i].sa_facts);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pshare.c: a run's shared knowledge (core/Pshare.h), made, attached to
 * handles and freed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/Pcontrol.h"
#include "core/Pshare.h"

ps_share_t *
Pshare_create(void)
{
	return (calloc(1, sizeof (ps_share_t)));
}

int
Pshare_pids(ps_share_t *sh, const pid_t *pids, size_t n)
{
	pid_t *v = NULL;

	if (sh == NULL || (n > 0 && pids == NULL)) {
		errno = EINVAL;
		return (-1);
	}
	if (n > 0) {
		if ((v = malloc(n * sizeof (*v))) == NULL)
			return (-1);
		memcpy(v, pids, n * sizeof (*v));
	}
	free(sh->ps_pids);
	sh->ps_pids = v;
	sh->ps_npids = n;
	return (0);
}

int
Pshare(struct ps_prochandle *P, ps_share_t *sh)
{
	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	P->share = sh;
	P->share_turn = sh != NULL ? ++sh->ps_turns : 0;
	return (0);
}

void
Pshare_destroy(ps_share_t *sh)
{
	if (sh == NULL)
		return;
	Phook_run(sh->ps_hooks);
	free(sh->ps_pids);
	free(sh);
}

int
ps_many(const struct ps_prochandle *P)
{
	return (P->share != NULL && P->share->ps_npids > 1);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tu_pfiles.c: the tests' one runner of pfiles (see testutil.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include <atf-c.h>

#include "testutil.h"

/* The number of entries of a NULL-ended list (NULL: none). */
static size_t
list_len(const char *const *list)
{
	size_t n = 0;

	while (list != NULL && list[n] != NULL)
		n++;
	return (n);
}

void
tu_pfiles(const tu_pfiles_t *tp, tu_result_t *r)
{
	size_t nwrap = list_len(tp->tp_wrap), nopts = list_len(tp->tp_opts);
	size_t npids = tp->tp_npids != 0 ? tp->tp_npids :
	    list_len(tp->tp_pids);
	const char **argv = calloc(nwrap + nopts + npids + 2, sizeof (*argv));
	size_t n = 0;

	ATF_REQUIRE(argv != NULL);
	for (size_t i = 0; i < nwrap; i++)
		argv[n++] = tp->tp_wrap[i];
	argv[n++] = TU_PFILES;
	for (size_t i = 0; i < nopts; i++)
		argv[n++] = tp->tp_opts[i];
	for (size_t i = 0; i < npids; i++)
		argv[n++] = tp->tp_pids[i];
	argv[n] = NULL;
	tu_run_nofile(argv, tp->tp_env, tp->tp_timeout_ms != 0 ?
	    tp->tp_timeout_ms : TU_TIMEOUT_MS, tp->tp_nofile, r);
	free(argv);
}

void
tu_pfiles_ok(const tu_pfiles_t *tp, tu_result_t *r)
{
	tu_pfiles(tp, r);
	if (r->tr_errlen > 0)
		(void) fprintf(stderr, "pfiles stderr:\n%s", r->tr_err);
	tu_require_exit("pfiles", r, 0);
}

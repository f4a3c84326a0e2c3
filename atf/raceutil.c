/* SPDX-License-Identifier: BSD-2-Clause */
/* raceutil: see raceutil.h. */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raceutil.h"
#include "testutil.h"

void
said_fd(const tu_helper_t *h, const char *key, said_fd_t *sf)
{
	ATF_REQUIRE_MSG(sscanf(tu_said(h, key), "%d %llu %4095s", &sf->sf_fd,
	    &sf->sf_ino, sf->sf_rest) == 3, "%s: %s", key, h->h_said);
}

/* Make the two fifos of the handshake in the work directory. */
void
make_fifos(void)
{
	ATF_REQUIRE(mkfifo("cmd", 0600) == 0);
	ATF_REQUIRE(mkfifo("ack", 0600) == 0);
}

/*
 * Run pfiles ARGS with the wrapper configured by vars (NAME=VALUE, NULL
 * ended, at most 12), its log in the work directory's "race.log" (made
 * empty first).  The log's text in *logp (malloc'd).
 */
void
run_raced(const char *const args[], const char *const vars[],
    tu_result_t *r, char **logp)
{
	const char *env[20];
	char *cwd = getcwd(NULL, 0), *logvar;
	int e = 0;

	ATF_REQUIRE(cwd != NULL);
	tu_write_file("race.log", "", 0);
	logvar = tu_asprintf("RACE_LOG=%s/race.log", cwd);
	env[e++] = "LD_PRELOAD=" RACE_SHIM;
	/* SANITIZE=1: the ASan runtime is then not the first library. */
	env[e++] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[e++] = logvar;
	for (int i = 0; vars[i] != NULL && e < 19; i++)
		env[e++] = vars[i];
	env[e] = NULL;
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args, .tp_env = env }, r);
	*logp = tu_read_file("race.log", NULL);
	free(logvar);
	free(cwd);
}

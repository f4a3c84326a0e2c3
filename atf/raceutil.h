/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * raceutil: what t_race and t_replaced share to run pfiles under the race
 * wrapper (atf/race_shim.c) against atf/race_helper.c's targets.
 */
#ifndef	_RACEUTIL_H
#define	_RACEUTIL_H

#include "testutil.h"

#define	RACE_HELPER	BUILD_DIR "/atf/race_helper"
#define	RACE_SHIM	BUILD_DIR "/atf/race_shim.so"

/* An fd the helper said as "key FD INO REST"; REST in rest. */
typedef struct said_fd {
	int			sf_fd;
	unsigned long long	sf_ino;
	char			sf_rest[4096];
} said_fd_t;

void	said_fd(const tu_helper_t *, const char *key, said_fd_t *);

/* Make the two fifos of the handshake, "cmd" and "ack", in the cwd. */
void	make_fifos(void);

/*
 * Run pfiles ARGS with the wrapper configured by vars (NAME=VALUE, NULL
 * ended, at most 12), its log in the work directory's "race.log" (made
 * empty first).  The log's text in *logp (malloc'd).
 */
void	run_raced(const char *const args[], const char *const vars[],
	    tu_result_t *, char **logp);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agentutil.h: what the agent's test programs (t_agent_life, t_pr_calls,
 * t_agent_pass) share: fixtures/agent_target, its manifest (its own view
 * of its fds) parsed, the grab and the agent, and checks of how the agent
 * left the target.
 *
 * Like testutil's, every helper fails the running test case itself (ATF
 * requirements) when something it needs does not hold; the checks that
 * compare a value with the manifest are ATF_CHECKs, so that one run
 * reports every difference.
 */
#ifndef	_AGENTUTIL_H
#define	_AGENTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libproc.h"
#include "testutil.h"

#define	AU_TARGET	BUILD_DIR "/agent_target"
#define	AU_LINE_MS	10000		/* one line from a child */

/* ------------------------------------------------------------------ */
/* The target's manifest (see fixtures/agent_target.c), parsed. */

typedef struct au_mopt {
	int	level, name, err;
	size_t	len;
	uint8_t	val[64];
} au_mopt_t;

typedef struct au_mfd {
	int	fd;
	char	kind[16];
	int	getfl, getfd;
	unsigned long long dev, ino, nlink, rdev;
	unsigned mode, uid, gid;
	long long size;
	int	off_err;
	long long offset;
	int	have_lk, lk_type, lk_pid;
	long long lk_start, lk_len;
	int	nopts;
	au_mopt_t opts[20];
	int	sn_err, pn_err;
	size_t	sn_len, pn_len;
	uint8_t	sn[128], pn[128];
} au_mfd_t;

typedef struct au_manifest {
	char	*text;		/* as printed, before "end" */
	pid_t	pid;
	unsigned long long sigmask;
	int	nrl;
	struct { int res; unsigned long long cur, max; } rl[4];
	int	pingport;
	char	file[64];
	int	nfds;
	au_mfd_t fds[16];
} au_manifest_t;

/* Read a manifest (up to "end") from the target's stdout. */
void	au_read_manifest(tu_child_t *, au_manifest_t *);
void	au_free_manifest(au_manifest_t *);

/* The fd of the manifest of that kind ("file", "tcpclient", ...). */
const au_mfd_t *au_find_kind(const au_manifest_t *, const char *kind);

/* ------------------------------------------------------------------ */
/* The target: agent_target fds. */

/*
 * Start "agent_target fds" (with "-T nthreads" when nthreads > 0: that
 * many more threads, one of them answering on the manifest's pingport)
 * and read its manifest.
 */
void	au_spawn_fds(tu_child_t *, int nthreads, au_manifest_t *);

/* Tell the target to exit; it must exit 0. */
void	au_stop_target(tu_child_t *);

/* One write, so that the target's one read gets the whole line. */
void	au_send_line(tu_child_t *, const char *line);

/* The target answers "pong" to "ping": its main thread serves again. */
void	au_require_pong(tu_child_t *);

/* Another thread of the target answers while the main one is ours. */
void	au_require_ping_port(int port);

/* ------------------------------------------------------------------ */
/* The grab, the agent, and the target left free. */

struct ps_prochandle *au_grab(pid_t);
void	au_create_agent(struct ps_prochandle *);

/* TracerPid of pid's status, or -1. */
int	au_tracer_of(pid_t);

/* Wait (bounded) until pid's TracerPid is want (or, want < 0, not 0). */
void	au_require_tracer(pid_t, int want);

/* The target must be neither stopped nor traced. */
void	au_require_free(pid_t);

/* ------------------------------------------------------------------ */
/* pr_* calls on one fd against the target's own view of it. */

void	au_compare_stat(struct ps_prochandle *, const au_mfd_t *);
void	au_compare_fcntl_lseek(struct ps_prochandle *, const au_mfd_t *);
void	au_compare_socket(struct ps_prochandle *, const au_mfd_t *);

#endif	/* _AGENTUTIL_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_util.h: what t_bpf and t_bpf_refused share.
 */
#ifndef	_BPF_UTIL_H
#define	_BPF_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "src/bpf/sock_bpf.h"

#include "expect.h"
#include "fixture.h"
#include "testutil.h"

#define	HELPER		BUILD_DIR "/atf/bpf_helper"
#define	FIXTURE_SECONDS	"120"
#define	DEBUG_ENV	"LIBPROC_DEBUG=1"
#define	TRACE_LOADED	"bpf: the iterator is loaded"
#define	TRACE_BPF	": socket facts: bpf serves"
#define	TRACE_PIDFD	": socket facts: pidfd serves"
#define	AUTO_BPF_FDS	500	/* auto tries bpf from this many fds */

/* How many lines of text hold needle. */
size_t	count_lines_with(const char *text, const char *needle);

/* text without its libproc[...] trace lines (malloc'd). */
char	*without_trace(const char *text);

/*
 * What a line of pfiles' output starts: a process's block (the header
 * "PID:\t..." or, with -J, {"pid":PID) or an fd's ("%4d: " or
 * {"fd":FD).  Sets *pid or *fd and returns 1, or returns 0.
 */
int	line_starts(const char *line, int json, long *pid, long *fd);

/*
 * The block of the first differing line: the block of the last line both
 * share, unless both differing lines start a block (two fds: the lower,
 * which the other output lacks); a line that starts a block in one output
 * only is an extra line of the previous block in the other.
 */
void
diff_block(const char *pl, const char *bl, int json, long *pid, long *fd);

/*
 * bpf's output must be pidfd's, byte for byte.  On a difference both are
 * saved (WHAT.pidfd, WHAT.bpf) and the test fails naming the pid and fd
 * whose block holds the first differing line, with both lines.
 */
void
require_same_output(const char *what, int json, const tu_result_t *pidfd,
    const tu_result_t *bpf);

/*
 * pfiles [-J] --via=bpf PIDS against pfiles [-J] --via=pidfd PIDS: both
 * exit 0, the same stderr, the same stdout byte for byte; the bpf run
 * traces that bpf served each pid, and loaded the program exactly once.
 * Returns bpf's stdout (malloc'd).
 */
char	*compare_one(const char *what, int json, const char *const pids[],
	    size_t npids);

/* The text and the -J comparisons; returns bpf's text (malloc'd). */
char *
compare_vias(const char *what, const char *const pids[], size_t npids);

/* The value after "key " in the helper's lines. */
long	said(const char *text, const char *key);

/*
 * The helper started with argv, once it has said "ready": what it said
 * until then, for the caller to free.  The case fails, with the
 * helper's stderr, if it never says it.
 */
char	*spawn_ready(tu_child_t *c, const char *const argv[]);

#endif	/* _BPF_UTIL_H */

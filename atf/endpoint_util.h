/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_util.h: what t_endpoint, t_endpoint_ns and t_shared share.
 */
#ifndef	_ENDPOINT_UTIL_H
#define	_ENDPOINT_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <linux/sockios.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "expect.h"
#include "testutil.h"

#define	HELPER		BUILD_DIR "/atf/endpoint_helper"
#define	HELPER_SECONDS	"120"
#define	MAX_PROCS	16
#define	MAX_HOLDS	32

/* A process of the helper, as it says. */
typedef struct ep_proc {
	char		p_role[16];
	pid_t		p_pid;
	unsigned	p_uid;
	char		p_comm[17];
} ep_proc_t;

/* A socket fd a process says it holds. */
typedef struct ep_hold {
	char		h_role[16];
	pid_t		h_pid;
	int		h_fd;
	char		h_conn[8];
	char		h_end;		/* 'a' or 'b' */
	unsigned long long h_ino;
	int		h_cred;		/* SO_PEERCRED pid, -1: none */
	char		h_own[32];	/* AF_INET: getsockname, ADDR:PORT */
	char		h_peer[32];	/* and getpeername ("-": none) */
} ep_hold_t;

typedef struct ep_view {
	tu_child_t	v_child;
	ep_proc_t	v_procs[MAX_PROCS];
	size_t		v_nprocs;
	ep_hold_t	v_holds[MAX_HOLDS];
	size_t		v_nholds;
	char		v_pid[16];	/* the parent's */
} ep_view_t;

/* expected_lines() flags */
#define	EL_DIAG		0x1	/* --via=diag: no peer: line */
#define	EL_UNNAMED	0x2	/* the peer: line's pid without a name */

void	parse_view(ep_view_t *v, const char *text);

/* Start the helper in mode and read every process's view. */
void	view_start(ep_view_t *v, const char *mode);

/* The helper exits 0 when told to, and takes its children with it. */
void	view_stop(ep_view_t *v);

const ep_proc_t	*proc_of(const ep_view_t *v, pid_t pid);

const ep_hold_t *
hold_of(const ep_view_t *v, const char *role, const char *conn);

int	hold_cmp(const void *a, const void *b);

/*
 * The holders of h's other end, as they say: the holds of the same
 * connection at the other end, h's own process's first, then by pid
 * then fd.  Their number in *np.  Every one names the same socket (one
 * ino).
 */
const ep_hold_t **
holders_of(const ep_view_t *v, const ep_hold_t *h, size_t *np);

/*
 * The n holds of hs into the order of pfiles' lines: pid's own first,
 * then by pid, then fd.
 */
void	holders_order(const ep_hold_t **hs, size_t n, pid_t pid);

/* A process's comm through the rule (expect.c's escaping). */
char	*comm_text(const ep_view_t *v, pid_t pid);

/*
 * out, then a line "LABELcomm[pid] fd N" for each of the n holders hs, at
 * most EXP_ENDPOINTS_MAX, then "LABELand N more" (out is freed).
 */
char	*holder_lines(const ep_view_t *v, char *out, const char *label,
	    const ep_hold_t **hs, size_t n);
/* The same with the label "\tendpoint: ". */
char	*endpoint_lines(const ep_view_t *v, char *out, const ep_hold_t **hs,
	    size_t n);

/*
 * The peer: and endpoint lines pfiles must print for h: the peer line
 * of a unix socket (not with diag), named by the SO_PEERCRED pid the
 * holder itself reads (that process is alive: its name, unless flags say
 * that pfiles cannot prove it), then the holders of the other end.
 */
char	*expected_lines(const ep_view_t *v, const ep_hold_t *h, int flags);

/*
 * The block of pid's fd in pfiles' output (several pids: the one whose
 * header is "PID:\t"), from its stat line to the next stat line or
 * header.  NULL when there is none.
 */
char	*fd_block(const char *out, pid_t pid, int fd);

/* The lines of blk that start with one of prefixes (NULL-ended). */
char	*lines_with(const char *blk, const char *const *prefixes);

/* The peer: and endpoint: lines of a block, in order. */
char	*peer_lines(const char *blk);
/* The shared with: lines of a block, in order. */
char	*shared_lines(const char *blk);

/*
 * The other holds of h's very socket (the same connection and end, one
 * ino), in pfiles' order; their number in *np.  expected_shared: the
 * "shared with:" lines pfiles must print for h, capped as the endpoint
 * lines are.
 */
const ep_hold_t **
shared_of(const ep_view_t *v, const ep_hold_t *h, size_t *np);
char	*expected_shared(const ep_view_t *v, const ep_hold_t *h);

/*
 * h's block in out (fd_block), whose stat line must name the inode the
 * holder gave: malloc'd; the test fails when there is none.
 */
char	*hold_block(const char *what, const char *out, const ep_hold_t *h);

/*
 * h's block in out: its stat line names the inode the holder gave, and
 * its peer and endpoint lines are exactly the expected ones.
 */
void	check_hold(const char *what, const ep_view_t *v, const char *out,
	    const ep_hold_t *h, int flags);

/* Every hold of every process of the view, checked in out. */
void	check_all_holds(const char *what, const ep_view_t *v, const char *out,
	    int flags);

/* cross through one source: parent and child in one run. */
void	check_cross(ep_view_t *v, const char *via, int flags);

/*
 * The cross view itself: the child holds every b end, the parent every
 * a end, and the peer: line differs from the endpoint: each unix end's
 * SO_PEERCRED is the parent (creator, listener, connector), while the
 * holder of the parent's other ends is the child.
 */
void	require_cross_view(const ep_view_t *v);

/* A cross view of the helper's mode through --via=bpf. */
void	cross_bpf_of(const char *mode);

/* Each source on the view's parent and child (v_procs[0]) in one run. */
void	check_sources(ep_view_t *v, const char *what);

#endif	/* _ENDPOINT_UTIL_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_peer: a "peer:" line names only the process the kernel recorded.  A
 * daemon that listens, forks its server and exits leaves its pid in its
 * clients' SO_PEERCRED; once another process has that pid, pfiles must
 * print the pid without a name ("?[PID]", as for a process that exited),
 * never the other process's name.  The peer that is alive and the same
 * (the client, seen from the server's accepted socket) is still named,
 * so that a pfiles that names no peer at all does not pass.
 *
 * atf/peer_helper makes it in a pid namespace of its own, where the
 * daemon's pid is given to the impostor through ns_last_pid (root only:
 * the cases skip, saying why, where no pid namespace can be made); pfiles
 * runs in that namespace (nsenter), where the pids are the helper's.
 *
 *  reuse_pidfd, reuse_agent, reuse_diag, reuse_bpf
 *			one case per source (bpf where it can serve);
 *			diag, which holds no credentials, names no peer
 *  reuse_json		the same in -J: no "comm" for the client's peer
 *  netns_agent		a unix connection between two live processes of
 *			a network namespace of their own (peer_helper
 *			netns): --via=agent prints what --via=pidfd
 *			prints, each peer named (pfiles makes its
 *			sockets for the passed ones there), nothing on
 *			stderr
 *  netns_agent_no_setns	the same with pfiles refused setns(2): the
 *			agent asks inside the process, where no peer can
 *			be proven: "?[PID]", and said once on stderr; pidfd
 *			still names them
 *
 * Where the kernel cannot prove who a peer is (no SO_PEERPIDFD before
 * Linux 6.5; for bpf, no pidfs before 6.9), the live peer is unnamed too.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define	HELPER		BUILD_DIR "/atf/peer_helper"
#define	NSENTER		"/usr/bin/nsenter"
#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"

typedef struct reuse {
	tu_helper_t	r_h;
	const char	*r_init;	/* in our namespace */
	int		r_daemon, r_server, r_client, r_impostor;
} reuse_t;

static void
reuse_start(reuse_t *r)
{
	static const char *const argv[] = { HELPER, "reuse", NULL };
	const char *skip;

	if (access(NSENTER, X_OK) != 0)
		atf_tc_skip("no %s to run pfiles in the helper's namespace",
		    NSENTER);
	tu_helper_start(&r->r_h, argv);
	if (strncmp(r->r_h.h_said, "skip ", 5) == 0) {
		skip = tu_said(&r->r_h, "skip");
		atf_tc_skip("%.*s", (int)strcspn(skip, "\n"), skip);
	}
	r->r_init = tu_said(&r->r_h, "init");
	r->r_daemon = atoi(tu_said(&r->r_h, "daemon"));
	r->r_server = atoi(tu_said(&r->r_h, "server"));
	r->r_client = atoi(tu_said(&r->r_h, "client"));
	r->r_impostor = atoi(tu_said(&r->r_h, "impostor"));
	ATF_REQUIRE_MSG(r->r_daemon > 1 && r->r_impostor == r->r_daemon,
	    "the impostor did not get the daemon's pid: %s", r->r_h.h_said);
}

/* pfiles OPT in the helper's namespaces on pid; its stdout. */
static char *
pfiles_in(const reuse_t *r, const char *opt, int pid)
{
	char init[16], target[16];
	const char *wrap[] = { NSENTER, "-t", init, "-p", "-m", NULL };
	const char *args[] = { opt, target, NULL };
	tu_result_t res;
	char *out;

	(void) snprintf(init, sizeof (init), "%d", atoi(r->r_init));
	(void) snprintf(target, sizeof (target), "%d", pid);
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
	    .tp_opts = args }, &res);
	tu_require_exit("pfiles in the namespace", &res, 0);
	out = res.tr_out;
	res.tr_out = NULL;
	tu_result_free(&res);
	return (out);
}

/* pfiles via on pid prints want as its peer line (diag: no peer line). */
static void
check_peer_line(const reuse_t *r, const char *via, int pid, const char *want)
{
	char *out = pfiles_in(r, via, pid);

	ATF_CHECK_MSG(strstr(out, "peer-impostor") == NULL,
	    "%s names the impostor:\n%s", via, out);
	if (strcmp(via, "--via=diag") == 0)
		ATF_CHECK_MSG(strstr(out, "\tpeer: ") == NULL,
		    "diag printed a peer line:\n%s", out);
	else
		ATF_CHECK_MSG(strstr(out, want) != NULL, "%s on %d: no \"%s\""
		    ":\n%s", via, pid, want, out);
	free(out);
}

/* The client's peer unnamed, the server's named. */
static void
check_reuse(const char *via)
{
	reuse_t r;
	char *want;

	reuse_start(&r);
	want = tu_asprintf("\tpeer: ?[%d]\n", r.r_daemon);
	check_peer_line(&r, via, r.r_client, want);
	free(want);
	want = tu_asprintf("\tpeer: %s[%d]\n", tu_peer_provable(via) ?
	    "peer-client" : "?", r.r_client);
	check_peer_line(&r, via, r.r_server, want);
	free(want);
	tu_helper_stop(&r.r_h);
}

/* One case per source: the client's peer unnamed, the server's named. */
#define	REUSE_CASE(name, via, what)					\
	ATF_TC(name);							\
	ATF_TC_HEAD(name, tc)						\
	{								\
		atf_tc_set_md_var(tc, "descr", via ": a daemon's pid "	\
		    "taken by another process is printed without a "	\
		    "name; " what);					\
		atf_tc_set_md_var(tc, "require.user", "root");		\
	}								\
	ATF_TC_BODY(name, tc)						\
	{								\
		if (strcmp(via, "--via=bpf") == 0)			\
			tu_require_bpf();				\
		check_reuse(via);					\
	}

REUSE_CASE(reuse_pidfd, "--via=pidfd", "a live peer named")
REUSE_CASE(reuse_agent, "--via=agent", "a live peer named")
REUSE_CASE(reuse_diag, "--via=diag", "no peer line at all")
REUSE_CASE(reuse_bpf, "--via=bpf", "a live peer named")

ATF_TC(reuse_json);
ATF_TC_HEAD(reuse_json, tc)
{
	atf_tc_set_md_var(tc, "descr", "-J: the client's peer has a pid and "
	    "no comm; the server's has both");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(reuse_json, tc)
{
	reuse_t r;
	char *out, *want;

	reuse_start(&r);
	out = pfiles_in(&r, "-J", r.r_client);
	want = tu_asprintf("\"peer\":{\"pid\":%d}", r.r_daemon);
	ATF_CHECK_MSG(strstr(out, want) != NULL && strstr(out,
	    "peer-impostor") == NULL, "no %s, or the impostor named:\n%s",
	    want, out);
	free(want);
	free(out);
	out = pfiles_in(&r, "-J", r.r_server);
	want = tu_peer_provable(NULL) ?
	    tu_asprintf("\"peer\":{\"comm\":\"peer-client\",\"pid\":%d}",
	    r.r_client) : tu_asprintf("\"peer\":{\"pid\":%d}", r.r_client);
	ATF_CHECK_MSG(strstr(out, want) != NULL, "no %s:\n%s", want, out);
	free(want);
	free(out);
	tu_helper_stop(&r.r_h);
}

/* The netns helper, as it says: two live processes, each the other's peer. */
typedef struct netns_view {
	tu_helper_t	n_h;
	int		n_pid[2];	/* the server, the client */
	int		n_fd[2];	/* the accepted, the connected socket */
	int		n_cred[2];	/* SO_PEERCRED of each, as read there */
} netns_view_t;

static void
netns_start(netns_view_t *n)
{
	static const char *const argv[] = { HELPER, "netns", NULL };
	static const char *const keys[3][2] = { { "server", "client" },
	    { "sfd", "cfd" }, { "scred", "ccred" } };

	tu_helper_start(&n->n_h, argv);
	if (strncmp(n->n_h.h_said, "skip ", 5) == 0) {
		const char *why = tu_said(&n->n_h, "skip");

		atf_tc_skip("%.*s", (int)strcspn(why, "\n"), why);
	}
	for (int k = 0; k < 2; k++) {
		n->n_pid[k] = atoi(tu_said(&n->n_h, keys[0][k]));
		n->n_fd[k] = atoi(tu_said(&n->n_h, keys[1][k]));
		n->n_cred[k] = atoi(tu_said(&n->n_h, keys[2][k]));
	}
	ATF_REQUIRE_MSG(n->n_pid[0] == atoi(n->n_h.h_pid) &&
	    n->n_cred[0] == n->n_pid[1] && n->n_cred[1] == n->n_pid[0],
	    "each end's SO_PEERCRED is not the other end's process: %s",
	    n->n_h.h_said);
}

/* The peer: lines of fd's block in out (one pid's output). */
static char *
peer_lines_of(const char *out, int fd)
{
	char *blk = tu_fd_block(out, fd), *lines;

	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d in:\n%s", fd, out);
	ATF_REQUIRE((lines = calloc(1, strlen(blk) + 1)) != NULL);
	for (const char *p = strstr(blk, "\tpeer: "); p != NULL;
	    p = strstr(p + 1, "\tpeer: "))
		(void) strncat(lines, p, strcspn(p, "\n") + 1);
	free(blk);
	return (lines);
}

/* pfiles [wrap] via pid, which must exit 0. */
static void
netns_pfiles(const char *const *wrap, const char *via, int pid,
    tu_result_t *r)
{
	char arg[16];
	const char *const args[] = { via, arg, NULL };

	(void) snprintf(arg, sizeof (arg), "%d", pid);
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = args },
	    r);
	tu_require_exit(via, r, 0);
}

/*
 * Each end of the helper's connection through pidfd and the agent
 * (pfiles under wrap): pidfd names each end's peer, the other process,
 * as the helper says (where the kernel can prove it); the agent prints
 * the same, or, with setns refused (refused), every peer unnamed and
 * that said once on stderr, exactly.
 */
static void
netns_check(const char *const *wrap, int refused)
{
	static const char *const comm[2] = { "peer-client", "peer-server" };
	netns_view_t n;

	netns_start(&n);
	for (int k = 0; k < 2; k++) {
		char *want, *got, *said;
		tu_result_t pr, ar;

		want = tu_asprintf("\tpeer: %s[%d]\n", tu_peer_provable(NULL) ?
		    comm[k] : "?", n.n_cred[k]);
		netns_pfiles(wrap, "--via=pidfd", n.n_pid[k], &pr);
		got = peer_lines_of(pr.tr_out, n.n_fd[k]);
		tu_require_same_str("pidfd.peer", want, got);
		free(got);
		netns_pfiles(wrap, "--via=agent", n.n_pid[k], &ar);
		if (refused) {
			pr.tr_out = tu_unnamed_peers(pr.tr_out);
			said = tu_asprintf("pfiles: %d: not shown: peer (agent: "
			    "asked inside the process, not passed to pfiles)"
			    "\n", n.n_pid[k]);
			ATF_CHECK_MSG(strstr(ar.tr_err, said) != NULL &&
			    strstr(strstr(ar.tr_err, said) + 1, said) == NULL,
			    "the agent does not say once \"%s\": %s", said,
			    ar.tr_err);
			free(said);
		} else {
			tu_require_same_str("agent.stderr", pr.tr_err,
			    ar.tr_err);
		}
		tu_require_same_str("agent", pr.tr_out, ar.tr_out);
		free(want);
		tu_result_free(&pr);
		tu_result_free(&ar);
	}
	tu_helper_stop(&n.n_h);
}

ATF_TC(netns_agent);
ATF_TC_HEAD(netns_agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "two live processes of a network "
	    "namespace of their own, connected: --via=agent names each "
	    "peer as --via=pidfd does, and prints all else the same");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(netns_agent, tc)
{
	netns_check(NULL, 0);
}

ATF_TC(netns_agent_no_setns);
ATF_TC_HEAD(netns_agent_no_setns, tc)
{
	atf_tc_set_md_var(tc, "descr", "netns_agent with setns(2) refused "
	    "to pfiles: the agent asks inside the process, so names no peer, "
	    "and says so once on stderr; pidfd still names each peer");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(netns_agent_no_setns, tc)
{
	char nr[16], eperm[16];
	const char *const wrap[] = { SECCOMP_DENY, nr, eperm, NULL };

	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_setns);
	(void) snprintf(eperm, sizeof (eperm), "%d", EPERM);
	netns_check(wrap, 1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, reuse_pidfd);
	ATF_TP_ADD_TC(tp, reuse_agent);
	ATF_TP_ADD_TC(tp, reuse_diag);
	ATF_TP_ADD_TC(tp, reuse_bpf);
	ATF_TP_ADD_TC(tp, reuse_json);
	ATF_TP_ADD_TC(tp, netns_agent);
	ATF_TP_ADD_TC(tp, netns_agent_no_setns);
	return (atf_no_error());
}

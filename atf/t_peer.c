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
 *
 * Where the kernel cannot prove who a peer is (no SO_PEERPIDFD before
 * Linux 6.5; for bpf, no pidfs before 6.9), the live peer is unnamed too.
 */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define	HELPER		BUILD_DIR "/atf/peer_helper"
#define	NSENTER		"/usr/bin/nsenter"

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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, reuse_pidfd);
	ATF_TP_ADD_TC(tp, reuse_agent);
	ATF_TP_ADD_TC(tp, reuse_diag);
	ATF_TP_ADD_TC(tp, reuse_bpf);
	ATF_TP_ADD_TC(tp, reuse_json);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_endpoint: pfiles' endpoint lines (pfiles.1, "Socket lines" 5)
 * when the other end of a socket is held by other processes.
 *
 * atf/endpoint_helper makes local connections, forks, and every process
 * says from its own view which fd it holds of which end of which
 * connection, its pid, comm, uid, the fd's inode and its SO_PEERCRED
 * pid.  The expected lines are computed here from those views alone:
 * the holders of the other end of a socket are the processes that say
 * they hold it, in order of pid then fd, at most 8, then "and N more";
 * each comm through expect.c's own escaping (exp_escape, not pfiles').
 *
 *   - cross, cross_bpf: a socketpair, a unix stream connection and a
 *     loopback TCP connection whose "a" ends the parent keeps and whose
 *     "b" ends a child (comm "ep\x1bchild") holds: each end's endpoint
 *     line names the process holding the other, while the peer: line
 *     (SO_PEERCRED) names the parent, the socketpair's creator and the
 *     listener and connector; with --via=pidfd, agent, diag (no peer:
 *     line there) and bpf.  The parent's socketpair end is at fd 90,
 *     above its later sockets: fd order is not inode order, and the
 *     holders are still found.
 *   - few_fds: pfiles with RLIMIT_NOFILE from 4 to 24 on the cross
 *     view's parent: from 8 up (pfiles.1) each endpoint line is the
 *     holder's: the scan of the other processes' fd tables needs no fd
 *     more than the walk; below, the parent cannot be examined (pfiles
 *     is short of file descriptors), or it has no endpoint lines, with
 *     "endpoint lines incomplete: ..." on stderr; never a line missing
 *     unsaid, never a holder counted that was not found.
 *   - reuseport, reuseport_bpf: two UDP sockets of one address and port
 *     (SO_REUSEPORT) connected to a third, which is connected back: the
 *     other end of an AF_INET socket is the one socket whose names are
 *     its own reversed, as the holders' getsockname and getpeername say;
 *     the third has two such, so no endpoint line (never a guess), and
 *     each of the two names the third's holder.
 *   - two_holders: the other end held by two processes: two lines in
 *     order of pid, then fd, and pid order is not fd order here.
 *   - shared: the parent holds both ends of two connections and a child
 *     the b ends: the parent's own holder first, then the child.
 *   - thread_table: the only holder of an other end is a thread with a
 *     file table of its own: named, by its thread id.
 *   - udp_server: UDP clients of servers connected to no one (bound to
 *     127.0.0.1 and to the wildcard address): the clients' lines name
 *     the servers' holder, the servers have none.
 *   - more_than_8: ten holders: 8 lines, then "endpoint: and 2 more".
 *   - nflag: pfiles -n prints no endpoint line and opens no other
 *     process's fd table (strace), where pfiles without -n does.
 *   - json: pfiles -J says the same as "endpoints" and "endpoints_more":
 *     valid by the schema, the same as the text (json_check.py), and
 *     each holder's pid, fd and comm as the holders say.
 *
 * t_endpoint_ns holds the same lines past what pfiles may see.
 */
#include "endpoint_util.h"

#define	PYTHON		"/usr/bin/python3"
#define	CHECKER		SRC_DIR "/atf/json_check.py"
#define	SCHEMA		SRC_DIR "/libproc-patch/pfiles/pfiles.schema.json"

/*
 * The endpoint lines of an AF_INET hold h from the names alone: its
 * other end is the socket whose own end is h's peer and whose peer is
 * h's own end, when there is exactly one such socket; then its holders,
 * by pid then fd.  Two such sockets are two candidates: no line.  The
 * number of candidates in *nsockp.
 */
static char *
expected_by_ends(const ep_view_t *v, const ep_hold_t *h, size_t *nsockp)
{
	const ep_hold_t **hs = calloc(MAX_HOLDS, sizeof (*hs));
	size_t n = 0, nsock = 0;
	char *out;

	ATF_REQUIRE(hs != NULL);
	ATF_REQUIRE_MSG(h->h_own[0] != '\0' && strcmp(h->h_own, "-") != 0,
	    "pid %d fd %d: no AF_INET name in the view", (int)h->h_pid,
	    h->h_fd);
	for (size_t i = 0; i < v->v_nholds; i++) {
		const ep_hold_t *o = &v->v_holds[i];
		int seen = 0;

		if (o->h_ino == h->h_ino || strcmp(o->h_own, h->h_peer) != 0 ||
		    strcmp(o->h_peer, h->h_own) != 0)
			continue;
		for (size_t k = 0; k < n; k++)
			seen |= hs[k]->h_ino == o->h_ino;
		nsock += !seen;
		hs[n++] = o;
	}
	*nsockp = nsock;
	if (nsock != 1)
		n = 0;
	qsort(hs, n, sizeof (*hs), hold_cmp);
	out = endpoint_lines(v, tu_asprintf("%s", ""), hs, n);
	free(hs);
	return (out);
}

ATF_TC(cross);
ATF_TC_HEAD(cross, tc)
{
	atf_tc_set_md_var(tc, "descr", "a socketpair, a unix and a TCP "
	    "connection whose ends a parent and its child hold: each end's "
	    "endpoint line names the other process (comm escaped, pid, fd "
	    "as it says), the peer: line the parent (SO_PEERCRED), through "
	    "the default source, pidfd, agent and diag");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(cross, tc)
{
	ep_view_t v;

	view_start(&v, "cross");
	require_cross_view(&v);
	check_cross(&v, "--via=auto", 0);
	check_cross(&v, "--via=pidfd", 0);
	check_cross(&v, "--via=agent", 0);
	check_cross(&v, "--via=diag", EL_DIAG);
	view_stop(&v);
}

/*
 * One run of pfiles on the cross view's parent alone, with RLIMIT_NOFILE
 * at nofile: 0 when it could not examine the parent for want of fds (its
 * one error), 1 when every endpoint line is the holder's, 2 when there
 * are none because the other processes' fd tables could not be read, 3
 * because the socket tables could not be; stderr says which.  A line
 * missing unsaid, or a holder counted that was not found, fails.
 */
static int
cross_at_nofile(const ep_view_t *v, int nofile)
{
	static const char *const conns[] = { "sp", "unix", "tcp" };
	static const char incomplete[] = ": endpoint lines incomplete: ";
	char lim[32], *emfile = strerror(EMFILE), *cannot, *others, *tables;
	const char *const wrap[] = { "prlimit", lim, NULL };
	const char *const args[] = { v->v_pid, NULL };
	tu_result_t r;
	int rv = 1;

	(void) snprintf(lim, sizeof (lim), "--nofile=%d:%d", nofile, nofile);
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
	    .tp_opts = args }, &r);
	cannot = tu_asprintf("pfiles: cannot examine %s: pfiles is short "
	    "of file descriptors (RLIMIT_NOFILE %d)\n", v->v_pid, nofile);
	if (WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 1 &&
	    strstr(r.tr_err, cannot) != NULL) {
		free(cannot);
		tu_result_free(&r);
		return (0);
	}
	free(cannot);
	tu_require_exit("pfiles under prlimit", &r, 0);
	for (size_t i = 0; i < 3; i++) {
		const ep_hold_t *a = hold_of(v, "parent", conns[i]);
		char *blk = fd_block(r.tr_out, a->h_pid, a->h_fd);
		/*
		 * No fd left to prove who the peer is: said (among other
		 * facts it could not find, a listener's queues), and unnamed.
		 */
		char *want = expected_lines(v, a, tu_not_shown(r.tr_err,
		    v->v_pid, "peer", "too many open files") ? EL_UNNAMED : 0),
		    *got, *cut, *none;

		ATF_REQUIRE_MSG(blk != NULL, "nofile %d: no block of fd %d",
		    nofile, a->h_fd);
		got = peer_lines(blk);
		/* The peer: line stays; the holder is named, or not at all. */
		cut = strstr(want, "\tendpoint: ");
		ATF_REQUIRE(cut != NULL);
		none = tu_asprintf("%.*s", (int)(cut - want), want);
		if (strcmp(got, want) == 0) {
			ATF_CHECK_MSG(rv == 1, "nofile %d: %s has its endpoint "
			    "line, another none", nofile, conns[i]);
		} else {
			tu_require_same_str(conns[i], none, got);
			ATF_CHECK_MSG(i == 0 || rv == 2, "nofile %d: %s has no "
			    "endpoint line, others have", nofile, conns[i]);
			rv = 2;
		}
		free(none);
		free(want);
		free(got);
		free(blk);
	}
	/* 2: the others' tables; 3: the socket tables, unread. */
	others = tu_asprintf("fd tables of other processes could not be read "
	    "(%s)\n", emfile);
	tables = tu_asprintf("%s%s\n", incomplete, emfile);
	if (rv == 2 && strstr(r.tr_err, tables) != NULL)
		rv = 3;
	if (rv == 2)
		ATF_CHECK_MSG(strstr(r.tr_err, incomplete) != NULL &&
		    strstr(r.tr_err, others) != NULL, "nofile %d: holders not "
		    "named, and stderr does not say '%s' nor '%s': %s", nofile,
		    others, tables, r.tr_err);
	else if (rv == 1)
		ATF_CHECK_MSG(r.tr_errlen == 0, "nofile %d: every holder "
		    "named, yet stderr says: %s", nofile, r.tr_err);
	free(others);
	free(tables);
	tu_result_free(&r);
	return (rv);
}

ATF_TC(few_fds);
ATF_TC_HEAD(few_fds, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles on the cross view's parent "
	    "with RLIMIT_NOFILE from 4 to 24: from 8 up every endpoint line, "
	    "the holder's, and nothing on stderr; below, the parent not "
	    "examined (pfiles is short of file descriptors, exit 1), or "
	    "lines missing and said; never a line missing unsaid");
	atf_tc_set_md_var(tc, "require.progs", "prlimit");
	tu_timeout(tc, 180);
}
ATF_TC_BODY(few_fds, tc)
{
	static const char *const what[] = { "refused", "complete",
	    "with no endpoint line (the others' tables unread)",
	    "with no endpoint line (the socket tables unread)" };
	ep_view_t v;

	view_start(&v, "cross");
	require_cross_view(&v);
	/* Below 8, what could not be found is said (cross_at_nofile). */
	for (int n = 4; n <= 24; n++) {
		int got = cross_at_nofile(&v, n);

		ATF_CHECK_MSG(n < 8 ? got != 1 : got == 1, "RLIMIT_NOFILE %d: "
		    "%s", n, what[got]);
	}
	view_stop(&v);
}

ATF_TC(cross_bpf);
ATF_TC_HEAD(cross_bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "the cross case through --via=bpf: "
	    "the same peer: and endpoint lines (skipped where bpf cannot "
	    "serve)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}

ATF_TC_BODY(cross_bpf, tc)
{
	cross_bpf_of("cross");
}

/*
 * The reuseport view itself: the parent holds the third socket, the
 * child the two of one address and port; the two have the same names,
 * the third's are theirs reversed; three sockets, no SO_PEERCRED pid.
 */
static void
require_reuseport_view(const ep_view_t *v)
{
	const ep_hold_t *r = hold_of(v, "parent", "udpa");
	const ep_hold_t *a = hold_of(v, "child", "udpa");
	const ep_hold_t *b = hold_of(v, "child", "udpb");

	ATF_REQUIRE_EQ_MSG(v->v_nprocs, 2, "%zu processes", v->v_nprocs);
	ATF_REQUIRE_EQ_MSG(v->v_nholds, 3, "%zu holds", v->v_nholds);
	ATF_REQUIRE_MSG(strncmp(a->h_own, "127.0.0.1:", 10) == 0 &&
	    strncmp(r->h_own, "127.0.0.1:", 10) == 0, "not on loopback: %s, "
	    "%s", a->h_own, r->h_own);
	ATF_REQUIRE_MSG(strcmp(a->h_own, b->h_own) == 0 &&
	    strcmp(a->h_peer, b->h_peer) == 0, "the two differ: %s %s, %s %s",
	    a->h_own, a->h_peer, b->h_own, b->h_peer);
	ATF_REQUIRE_MSG(strcmp(r->h_own, a->h_peer) == 0 &&
	    strcmp(r->h_peer, a->h_own) == 0, "the third (%s %s) is not "
	    "connected to the two (%s %s)", r->h_own, r->h_peer, a->h_own,
	    a->h_peer);
	ATF_REQUIRE(r->h_ino != a->h_ino && r->h_ino != b->h_ino &&
	    a->h_ino != b->h_ino);
	ATF_REQUIRE(r->h_pid != a->h_pid && a->h_pid == b->h_pid);
	ATF_REQUIRE(r->h_cred <= 0 && a->h_cred <= 0 && b->h_cred <= 0);
}

/* reuseport through one source: every hold's lines from the names. */
static void
check_reuseport(const ep_view_t *v, const char *via)
{
	char kidpid[16], *want, *got, *blk, *name, *err, *next;
	const char *pids[3] = { v->v_pid, kidpid, NULL };
	const char *opts[2] = { via, NULL };
	size_t many[2] = { 0, 0 }, nsock;
	tu_result_t r;

	(void) snprintf(kidpid, sizeof (kidpid), "%d",
	    (int)v->v_procs[0].p_pid);
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids }
	    , &r);
	tu_write_file(via + 2, r.tr_out, r.tr_outlen);
	for (size_t i = 0; i < v->v_nholds; i++) {
		const ep_hold_t *h = &v->v_holds[i];

		blk = fd_block(r.tr_out, h->h_pid, h->h_fd);
		if (blk == NULL)
			atf_tc_fail("%s: no block of pid %d fd %d", via,
			    (int)h->h_pid, h->h_fd);
		got = peer_lines(blk);
		want = expected_by_ends(v, h, &nsock);
		/* Not named, and said: per process, after its output. */
		if (nsock > 1)
			many[h->h_pid == v->v_child.tc_pid ? 0 : 1]++;
		name = tu_asprintf("%s.%s-%s", via + 2, h->h_role, h->h_conn);
		tu_require_same_str(name, want, got);
		free(name);
		free(want);
		free(got);
		free(blk);
	}
	err = tu_asprintf("%s", "");
	for (int k = 0; k < 2; k++) {
		if (many[k] == 0)
			continue;
		next = tu_asprintf("%spfiles: %s: endpoint lines incomplete: "
		    "the other end of %zu socket%s is one of several sockets "
		    "with the same addresses (SO_REUSEPORT): not named\n", err,
		    pids[k], many[k], many[k] == 1 ? "" : "s");
		free(err);
		err = next;
	}
	ATF_REQUIRE_MSG(many[0] + many[1] > 0, "the view has no socket "
	    "with two candidates");
	name = tu_asprintf("%s.stderr", via + 2);
	/* diag says what its tables do not hold, too: among its lines. */
	if (strcmp(via, "--via=diag") == 0)
		ATF_CHECK_MSG(strstr(r.tr_err, err) != NULL, "%s: no '%s' "
		    "in: %s", name, err, r.tr_err);
	else
		tu_require_same_str(name, err, r.tr_err);
	free(name);
	free(err);
	tu_result_free(&r);
}

ATF_TC(reuseport);
ATF_TC_HEAD(reuseport, tc)
{
	atf_tc_set_md_var(tc, "descr", "two UDP sockets bound with "
	    "SO_REUSEPORT to one loopback address and port, both connected "
	    "to a third that is connected back to them: either could be the "
	    "third's other end, so its block has no endpoint line (no "
	    "guess), while each of the two names the third's holder; "
	    "through pidfd, diag and auto");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(reuseport, tc)
{
	ep_view_t v;

	view_start(&v, "reuseport");
	require_reuseport_view(&v);
	check_reuseport(&v, "--via=pidfd");
	check_reuseport(&v, "--via=diag");
	check_reuseport(&v, "--via=auto");
	view_stop(&v);
}

ATF_TC(reuseport_bpf);
ATF_TC_HEAD(reuseport_bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "the reuseport case through "
	    "--via=bpf: the same endpoint lines (skipped where bpf cannot "
	    "serve)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(reuseport_bpf, tc)
{
	ep_view_t v;

	tu_require_bpf();
	view_start(&v, "reuseport");
	require_reuseport_view(&v);
	check_reuseport(&v, "--via=bpf");
	view_stop(&v);
}

ATF_TC(two_holders);
ATF_TC_HEAD(two_holders, tc)
{
	atf_tc_set_md_var(tc, "descr", "the other end of a TCP connection "
	    "held by two processes (forked after connect): two endpoint "
	    "lines, by pid then fd, where fd order would be the reverse");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(two_holders, tc)
{
	const char *pids[2] = { NULL, NULL };
	const ep_hold_t *a, **hs;
	tu_result_t r;
	char *want, *blk, *got;
	size_t n;

	{
		ep_view_t v;

		view_start(&v, "two");
		pids[0] = v.v_pid;
		a = hold_of(&v, "parent", "tcp");
		hs = holders_of(&v, a, &n);
		ATF_REQUIRE_EQ_MSG(n, 2, "%zu holders of the b end", n);
		ATF_REQUIRE_MSG(hs[0]->h_pid < hs[1]->h_pid &&
		    hs[0]->h_fd > hs[1]->h_fd, "the helper did not make pid "
		    "order differ from fd order: pid %d fd %d, pid %d fd %d",
		    (int)hs[0]->h_pid, hs[0]->h_fd, (int)hs[1]->h_pid,
		    hs[1]->h_fd);
		free(hs);
		tu_pfiles_ok(&(const tu_pfiles_t){ .tp_pids = pids }, &r);
		tu_write_file("two.out", r.tr_out, r.tr_outlen);
		check_hold("two", &v, r.tr_out, a, 0);
		/* Two lines, the ones checked above. */
		want = expected_lines(&v, a, 0);
		blk = fd_block(r.tr_out, a->h_pid, a->h_fd);
		got = peer_lines(blk);
		ATF_REQUIRE_MSG(strcmp(got, want) == 0 &&
		    strchr(strchr(got, '\n') + 1, '\n')[1] == '\0',
		    "not two endpoint lines: %s", got);
		free(got);
		free(blk);
		free(want);
		tu_result_free(&r);
		view_stop(&v);
	}
}

ATF_TC(more_than_8);
ATF_TC_HEAD(more_than_8, tc)
{
	atf_tc_set_md_var(tc, "descr", "the other end of a socketpair held "
	    "by ten processes: 8 endpoint lines by pid, then \"endpoint: "
	    "and 2 more\"; each holder's own block names the one holder of "
	    "its other end");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(more_than_8, tc)
{
	ep_view_t v;
	const char *pids[13];
	char kids[10][16];
	const ep_hold_t *a;
	tu_result_t r;
	char *blk, *got;
	size_t n = 0, nlines = 0;

	view_start(&v, "many");
	ATF_REQUIRE_EQ_MSG(v.v_nprocs, 11, "%zu processes", v.v_nprocs);
	pids[n++] = v.v_pid;
	for (size_t i = 0; i < 10; i++) {
		(void) snprintf(kids[i], sizeof (kids[i]), "%d",
		    (int)v.v_procs[i].p_pid);
		pids[n++] = kids[i];
	}
	pids[n] = NULL;
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_pids = pids }, &r);
	tu_write_file("many.out", r.tr_out, r.tr_outlen);
	check_all_holds("many", &v, r.tr_out, 0);

	/* The parent's block, literally: 8 names and "and 2 more". */
	a = hold_of(&v, "parent", "sp");
	blk = fd_block(r.tr_out, a->h_pid, a->h_fd);
	got = peer_lines(blk);
	for (const char *p = got; (p = strstr(p, "\tendpoint: ep-child")) !=
	    NULL; p++)
		nlines++;
	ATF_CHECK_EQ_MSG(nlines, 8, "%zu endpoint lines naming a child: %s",
	    nlines, got);
	ATF_CHECK_MSG(strstr(got, "\tendpoint: and 2 more\n") != NULL &&
	    strstr(got, "\tendpoint: and 2 more\n")[22] == '\0',
	    "no last line \"and 2 more\": %s", got);
	free(got);
	free(blk);
	tu_result_free(&r);
	view_stop(&v);
}

/*
 * pfiles opts on pid under strace: the number of fd tables of other
 * processes than pid it opened ("/proc/N/fd" or "N/fd" relative to
 * /proc), each named on stderr; its stdout in *out (malloc'd).
 */
static int
count_other_fd_tables(const char *opt, const char *pid, char **out)
{
	const char *wrap[] = { "strace", "-f", "-qq", "-o", "strace.log", "-e",
	    "trace=open,openat,openat2", NULL };
	const char *args[] = { opt, pid, NULL };
	static const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
	    NULL };
	tu_result_t r;
	char *log, *line, *save = NULL;
	int n = 0;

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = args,
	    .tp_env = env }, &r);
	tu_require_exit("strace pfiles", &r, 0);
	*out = tu_asprintf("%s", r.tr_out);
	tu_result_free(&r);
	log = tu_read_file("strace.log", NULL);
	for (line = strtok_r(log, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		for (const char *q = strchr(line, '"'); q != NULL;
		    q = strchr(q + 1, '"')) {
			const char *d = q + 1;
			long who;

			if (strncmp(d, "/proc/", 6) == 0)
				d += 6;
			if (!isdigit((unsigned char)*d))
				continue;
			who = strtol(d, (char **)&d, 10);
			if (strncmp(d, "/fd", 3) != 0 ||
			    (d[3] != '"' && d[3] != '/'))
				continue;
			if (who != atol(pid)) {
				(void) fprintf(stderr, "%s: %s\n", opt, line);
				n++;
			}
			break;
		}
	}
	free(log);
	return (n);
}

ATF_TC(nflag);
ATF_TC_HEAD(nflag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n prints no endpoint line "
	    "and opens no other process's fd table, where pfiles without "
	    "-n opens them (the child holds the other ends)");
	atf_tc_set_md_var(tc, "require.progs", "strace");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(nflag, tc)
{
	ep_view_t v;
	char *out;
	int with_n, without_n;

	view_start(&v, "cross");
	with_n = count_other_fd_tables("-n", v.v_pid, &out);
	ATF_CHECK_MSG(strstr(out, "\n\t") == NULL, "pfiles -n printed "
	    "socket lines: %s", out);
	ATF_CHECK_MSG(strstr(out, "\tendpoint: ") == NULL, "pfiles -n "
	    "printed endpoints: %s", out);
	free(out);
	without_n = count_other_fd_tables("--via=pidfd", v.v_pid, &out);
	ATF_CHECK_MSG(strstr(out, "\tendpoint: ") != NULL, "no endpoint "
	    "line without -n: %s", out);
	free(out);
	view_stop(&v);
	ATF_REQUIRE_EQ_MSG(with_n, 0, "pfiles -n opened %d fd tables of "
	    "other processes (see stderr)", with_n);
	/* The check itself sees the tables that endpoints need. */
	ATF_REQUIRE_MSG(without_n > 0, "no other fd table opened without "
	    "-n: the strace check does not work");
}

ATF_TC(no_endpoints);
ATF_TC_HEAD(no_endpoints, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --no-endpoints prints no "
	    "endpoint line and opens no other process's fd table; the rest "
	    "is byte for byte what pfiles prints with them, whose names "
	    "and buffers come from the socket tables, where without them "
	    "they are asked of each socket");
	atf_tc_set_md_var(tc, "require.progs", "strace");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(no_endpoints, tc)
{
	ep_view_t v;
	char *out, *with, *stripped;
	int opened;

	view_start(&v, "cross");
	opened = count_other_fd_tables("--no-endpoints", v.v_pid, &out);
	(void) count_other_fd_tables("--via=pidfd", v.v_pid, &with);
	view_stop(&v);
	ATF_CHECK_MSG(strstr(with, "\tendpoint: ") != NULL, "no endpoint "
	    "line without --no-endpoints: %s", with);
	ATF_CHECK_MSG(strstr(out, "\tendpoint: ") == NULL, "pfiles "
	    "--no-endpoints printed endpoints: %s", out);
	ATF_CHECK_MSG(strstr(out, "\tpeername: ") != NULL, "pfiles "
	    "--no-endpoints printed no peer: %s", out);
	stripped = tu_without_lines(with, "\tendpoint: ");
	tu_require_same_text("no_endpoints", stripped, strlen(stripped), out,
	    strlen(out));
	ATF_REQUIRE_EQ_MSG(opened, 0, "pfiles --no-endpoints opened %d fd "
	    "tables of other processes (see stderr)", opened);
	free(stripped);
	free(with);
	free(out);
}

/* pfiles opts on pids, with -J and without: WHAT.{txt,json}[.err]. */
static void
run_both(const char *what, const char *via, const char *const pids[])
{
	for (int json = 0; json <= 1; json++) {
		const char *opts[3] = { json ? "-J" : via, json ? via : NULL,
		    NULL };
		char *name;
		tu_result_t r;

		tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts,
		    .tp_pids = pids }, &r);
		name = tu_asprintf("%s.%s", what, json ? "json" : "txt");
		tu_write_file(name, r.tr_out, r.tr_outlen);
		free(name);
		name = tu_asprintf("%s.%s.err", what, json ? "json" : "txt");
		tu_write_file(name, r.tr_err, r.tr_errlen);
		free(name);
		tu_result_free(&r);
	}
}

/*
 * The holders as json_check.py --endpoints reads them, for every hold
 * of the view: "PID FD MORE [HPID HFD COMMHEX]...".  With `wrong', the
 * first holder's fd is one more than it says (the check of the check).
 */
static void
write_endpoints(const ep_view_t *v, const char *name, int wrong)
{
	char *text = tu_asprintf("%s", ""), *next;

	for (size_t i = 0; i < v->v_nholds; i++) {
		const ep_hold_t *h = &v->v_holds[i];
		size_t n;
		const ep_hold_t **hs = holders_of(v, h, &n);

		next = tu_asprintf("%s%d %d %zu", text, (int)h->h_pid, h->h_fd,
		    n > EXP_ENDPOINTS_MAX ? n - EXP_ENDPOINTS_MAX : 0);
		free(text);
		text = next;
		for (size_t k = 0; k < n && k < EXP_ENDPOINTS_MAX; k++) {
			const ep_proc_t *p = proc_of(v, hs[k]->h_pid);

			next = tu_asprintf("%s %d %d ", text,
			    (int)hs[k]->h_pid, hs[k]->h_fd +
			    (wrong && i == 0 && k == 0));
			free(text);
			text = next;
			for (size_t c = 0; p->p_comm[c] != '\0'; c++) {
				next = tu_asprintf("%s%02x", text,
				    (unsigned char)p->p_comm[c]);
				free(text);
				text = next;
			}
		}
		next = tu_asprintf("%s\n", text);
		free(text);
		text = next;
		free(hs);
	}
	tu_write_file(name, text, strlen(text));
	free(text);
}

/* json_check.py on WHAT's outputs with the holders in `ends': status. */
static int
checker(const char *what, const char *ends)
{
	char *json = tu_asprintf("%s.json", what);
	char *text = tu_asprintf("%s.txt", what);
	char *jerr = tu_asprintf("%s.json.err", what);
	char *terr = tu_asprintf("%s.txt.err", what);
	const char *argv[] = { PYTHON, CHECKER, "check", "--schema", SCHEMA,
	    "--json", json, "--text", text, "--json-err", jerr, "--text-err",
	    terr, "--endpoints", ends, NULL };
	tu_result_t r;
	int code;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	if (r.tr_outlen > 0 || r.tr_errlen > 0)
		(void) fprintf(stderr, "checker on %s with %s:\n%s%s", json,
		    ends, r.tr_out, r.tr_err);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) > 1)
		atf_tc_fail("the checker failed: wait status 0x%x: %s",
		    (unsigned)r.tr_status, r.tr_err);
	code = WEXITSTATUS(r.tr_status);
	tu_result_free(&r);
	free(json);
	free(text);
	free(jerr);
	free(terr);
	return (code);
}

/* The view's processes, all of them, as pfiles' arguments. */
static void
all_pids(const ep_view_t *v, char pids[][16], const char **argv)
{
	size_t i;

	for (i = 0; i < v->v_nprocs; i++) {
		(void) snprintf(pids[i], 16, "%d", (int)v->v_procs[i].p_pid);
		argv[i] = pids[i];
	}
	argv[i] = NULL;
}

ATF_TC(json);
ATF_TC_HEAD(json, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J: endpoints and "
	    "endpoints_more valid by the schema, the same as the text's "
	    "lines, and each holder's pid, fd and comm as the holders say "
	    "(cross and more_than_8's processes, pidfd and diag); a wrong "
	    "holder is refused");
	atf_tc_set_md_var(tc, "require.progs", PYTHON);
	tu_timeout(tc, 180);
}
ATF_TC_BODY(json, tc)
{
	static const char *const modes[] = { "cross", "many" };
	static const char *const vias[] = { "--via=pidfd", "--via=diag" };
	const char *argv[] = { PYTHON, "-c", "import jsonschema; "
	    "jsonschema.Draft202012Validator", NULL };
	char pids[MAX_PROCS][16];
	const char *pidv[MAX_PROCS + 1];
	tu_result_t r;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_fail(PYTHON " has no jsonschema with Draft 2020-12 "
		    "(apt-get install python3-jsonschema): %s", r.tr_err);
	tu_result_free(&r);

	for (size_t m = 0; m < 2; m++) {
		ep_view_t v;

		view_start(&v, modes[m]);
		all_pids(&v, pids, pidv);
		write_endpoints(&v, "ends", 0);
		write_endpoints(&v, "ends.wrong", 1);
		for (size_t i = 0; i < 2; i++) {
			char *what = tu_asprintf("%s%s", modes[m], vias[i]);

			run_both(what, vias[i], pidv);
			ATF_CHECK_EQ_MSG(checker(what, "ends"), 0, "%s: the "
			    "JSON's endpoints are not the holders' (see "
			    "stderr)", what);
			ATF_CHECK_EQ_MSG(checker(what, "ends.wrong"), 1, "%s: "
			    "the checker passed a wrong holder", what);
			free(what);
		}
		view_stop(&v);
	}
}

ATF_TC(shared);
ATF_TC_HEAD(shared, tc)
{
	atf_tc_set_md_var(tc, "descr", "the parent holds both ends of a "
	    "socketpair and of a TCP connection, and a child it forked the "
	    "b ends too: the endpoint lines of each a end name the parent's "
	    "own fd first, then the child's, with every source");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(shared, tc)
{
	ep_view_t v;
	const ep_hold_t *a;
	const ep_hold_t **hs;
	size_t n;

	view_start(&v, "shared");
	ATF_REQUIRE_EQ_MSG(v.v_nprocs, 2, "%zu processes", v.v_nprocs);
	/* The premise: two holders of each b end, the parent one of them. */
	a = hold_of(&v, "parent", "tcp");
	ATF_REQUIRE(a->h_end == 'a');
	hs = holders_of(&v, a, &n);
	ATF_REQUIRE_MSG(n == 2 && hs[0]->h_pid == a->h_pid &&
	    hs[1]->h_pid == v.v_procs[0].p_pid, "the view does not give the "
	    "tcp b end to the parent and the child (see view)");
	free(hs);
	check_sources(&v, "shared");
	view_stop(&v);
}

ATF_TC(thread_table);
ATF_TC_HEAD(thread_table, tc)
{
	atf_tc_set_md_var(tc, "descr", "the other end of the parent's "
	    "socketpair end is held only by a thread of a child that has a "
	    "file table of its own (unshare(CLONE_FILES)): the endpoint line "
	    "names that thread (its comm and thread id) and its fd");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(thread_table, tc)
{
	static const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	const char *pids[] = { NULL, NULL };
	const ep_hold_t *a, *b;
	ep_view_t v;
	tu_result_t r;

	view_start(&v, "thread");
	a = hold_of(&v, "parent", "sp");
	b = hold_of(&v, "thread", "sp");
	ATF_REQUIRE_MSG(b->h_pid != a->h_pid && proc_of(&v, b->h_pid) !=
	    NULL && v.v_nholds == 2, "the view has not the thread alone "
	    "holding b (see view)");
	pids[0] = v.v_pid;
	tu_pfiles(&(const tu_pfiles_t){ .tp_pids = pids, .tp_env = env }, &r);
	tu_require_exit("pfiles", &r, 0);
	tu_write_file("thread.out", r.tr_out, r.tr_outlen);
	tu_write_file("thread.err", r.tr_err, r.tr_errlen);
	check_hold("thread", &v, r.tr_out, a, 0);
	/* The check of the check: found by the second pass. */
	ATF_CHECK_MSG(strstr(r.tr_err, "looked for in the threads' own fd "
	    "tables: 1 holders") != NULL, "the trace does not say the "
	    "thread's table held it (see thread.err)");
	tu_result_free(&r);
	view_stop(&v);
}

ATF_TC(udp_server);
ATF_TC_HEAD(udp_server, tc)
{
	atf_tc_set_md_var(tc, "descr", "UDP clients connected to servers "
	    "that are connected to no one (one bound to 127.0.0.1, one to "
	    "the wildcard address): each client's endpoint line names the "
	    "server's holder; the servers have none; every source");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(udp_server, tc)
{
	static const char *const conns[] = { "udps", "udpw" };
	static const char *const vias[] = { "--via=pidfd", "--via=agent",
	    "--via=diag" };
	char kidpid[16];
	const char *pids[3] = { NULL, kidpid, NULL };
	ep_view_t v;

	view_start(&v, "udpserver");
	pids[0] = v.v_pid;
	(void) snprintf(kidpid, sizeof (kidpid), "%d",
	    (int)v.v_procs[0].p_pid);
	/* The premise, from the holders' names: client -> server, alone. */
	for (size_t c = 0; c < 2; c++) {
		const ep_hold_t *a = hold_of(&v, "parent", conns[c]);
		const ep_hold_t *b = hold_of(&v, "child", conns[c]);
		const char *port = strrchr(b->h_own, ':');

		ATF_REQUIRE_MSG(strcmp(b->h_peer, "-") == 0 && port != NULL &&
		    strcmp(strrchr(a->h_peer, ':'), port) == 0 &&
		    strncmp(a->h_peer, "127.0.0.1:", 10) == 0, "%s: the "
		    "server is connected, or the client not to its port "
		    "(see view)", conns[c]);
	}
	for (size_t i = 0; i < 3; i++) {
		const char *opts[2] = { vias[i], NULL };
		tu_result_t r;

		tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts,
		    .tp_pids = pids }, &r);
		tu_write_file(vias[i] + 6, r.tr_out, r.tr_outlen);
		for (size_t c = 0; c < 2; c++) {
			const ep_hold_t *b = hold_of(&v, "child", conns[c]);
			char *blk = fd_block(r.tr_out, b->h_pid, b->h_fd);

			check_hold(vias[i] + 6, &v, r.tr_out,
			    hold_of(&v, "parent", conns[c]), 0);
			ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d",
			    b->h_fd);
			ATF_CHECK_MSG(strstr(blk, "endpoint:") == NULL, "%s: "
			    "the server %s has an endpoint line: %s", vias[i],
			    conns[c], blk);
			free(blk);
		}
		tu_result_free(&r);
	}
	view_stop(&v);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, cross);
	ATF_TP_ADD_TC(tp, cross_bpf);
	ATF_TP_ADD_TC(tp, few_fds);
	ATF_TP_ADD_TC(tp, reuseport);
	ATF_TP_ADD_TC(tp, reuseport_bpf);
	ATF_TP_ADD_TC(tp, two_holders);
	ATF_TP_ADD_TC(tp, more_than_8);
	ATF_TP_ADD_TC(tp, nflag);
	ATF_TP_ADD_TC(tp, no_endpoints);
	ATF_TP_ADD_TC(tp, json);
	ATF_TP_ADD_TC(tp, shared);
	ATF_TP_ADD_TC(tp, thread_table);
	ATF_TP_ADD_TC(tp, udp_server);
	return (atf_no_error());
}

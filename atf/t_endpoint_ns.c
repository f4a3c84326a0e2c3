/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_endpoint_ns: pfiles' endpoint lines (pfiles.1, "Socket lines" 5)
 * across the bounds of what pfiles may see: tables it may not read,
 * pid and network namespaces.  The fixture and the expected lines are
 * t_endpoint's (atf/endpoint_helper's views, expect.c's escaping).
 *
 *   - unreadable: pfiles as uid 65534 on a 65534 process whose peer is
 *     held by a root process: "endpoint: and 1 more", never a name;
 *     as root, the holder is named (the check of the check).
 *   - unreadable_links: in a pid namespace of its own, the same where
 *     the holder (its pid 1) is a 65534 process with a capability: its
 *     fd directory opens to pfiles, its links do not (EACCES), and no
 *     other table is refused: still "and 1 more", never no line.
 *   - zombie_holds_nothing: in a pid namespace whose only process
 *     pfiles (uid 65534) may not read is a root zombie, a socketpair end
 *     whose other end is in flight (SCM_RIGHTS, held by no process): the
 *     trace counts no table pfiles may not read (a zombie holds nothing)
 *     and says that the processes outside the namespace are not seen,
 *     which is what its "endpoint: and 1 more" counts.
 *   - netns_holder, netns_holder_bpf: cross, where the child moved to a
 *     network namespace of its own after: its sockets are looked up in
 *     their own namespace; every line as in cross.  Also with SIOCGSKNS
 *     refused (seccomp): pfiles' own namespace is looked in instead.
 *   - netns_accept: a unix connection accepted from a client made in
 *     another network namespace: both ends (of the client's namespace,
 *     not their holders') have their lines.
 *   - outside_pidns: pfiles in a child pid namespace, the other end held
 *     outside it: "endpoint: and 1 more", the reason in the trace.
 */
#include "endpoint_util.h"

#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	NOBODY		65534

/*
 * The helper started by argv (unshare --pid --fork --mount-proc ...,
 * pid 1 of a namespace of its own), or the case skipped where no such
 * namespace can be made: the text of its view up to "end" (*found 0
 * when it ended first).
 */
static char *
pidns_view_start(ep_view_t *v, const char *const argv[], int *found)
{
	const char *const probe[] = { "unshare", "--pid", "--fork",
	    "--mount-proc", "true", NULL };
	tu_result_t r;

	tu_run(probe, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_skip("cannot make a pid namespace with its own /proc "
		    "here: %s", r.tr_err);
	tu_result_free(&r);
	memset(v, 0, sizeof (*v));
	tu_spawn(&v->v_child, argv, TU_STDERR_PIPE);
	return (tu_read_until(v->v_child.tc_out, "end", TU_TIMEOUT_MS,
	    found));
}

/* Its end: unshare exits 0, and the helper (host pid kid) is gone. */
static void
pidns_view_stop(ep_view_t *v, pid_t kid)
{
	int status = tu_stop(&v->v_child, TU_TIMEOUT_MS);

	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "unshare endpoint_helper: wait status 0x%x", (unsigned)status);
	ATF_CHECK_MSG(tu_proc_state(kid) == 0 || tu_proc_state(kid) == 'Z',
	    "the helper %d is still running", (int)kid);
}

/*
 * pfiles pid, entered into host's pid and mount namespaces (as uid 65534
 * when as_nobody), with env (may be NULL): its result, exit 0 required.
 */
static void
pfiles_in_ns(const char *host, int as_nobody, const char *pid,
    const char *const env[], tu_result_t *r)
{
	const char *wrap[] = { "nsenter", "-t", host, "-p", "-m", "setpriv",
	    "--reuid=65534", "--regid=65534", "--clear-groups", NULL };
	const char *const pids[] = { pid, NULL };

	if (!as_nobody)
		wrap[5] = NULL;
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_pids = pids,
	    .tp_env = env }, r);
}

ATF_TC(zombie_holds_nothing);
ATF_TC_HEAD(zombie_holds_nothing, tc)
{
	atf_tc_set_md_var(tc, "descr", "in a pid namespace of its own "
	    "whose only process pfiles may not read is a root zombie: pfiles "
	    "as uid 65534 on a 65534 process whose socketpair's other end "
	    "is in flight (held by no process) counts no table it may not "
	    "read -- a zombie holds nothing -- and \"and 1 more\" for the "
	    "processes outside the namespace, which it cannot see");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare nsenter setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(zombie_holds_nothing, tc)
{
	const char *const argv[] = { "unshare", "--pid", "--fork",
	    "--mount-proc", "--kill-child", HELPER, "-t", HELPER_SECONDS,
	    "inflight", NULL };
	static const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	char host[16], *text, *rest, *line, *want, *blk, *got, *more;
	const char *const pids[] = { "1", NULL };
	const ep_hold_t *sp;
	int found, zpid, zerr;
	unsigned zuid;
	char zstate;
	pid_t kid;
	ep_view_t v;
	tu_result_t r;

	text = pidns_view_start(&v, argv, &found);
	if (!found)
		atf_tc_fail("endpoint_helper inflight gave no view: %s",
		    tu_read_until(v.v_child.tc_err, NULL, 2000, NULL));
	tu_write_file("view", text, strlen(text));
	/* The zombie line; the rest is a view as the others. */
	ATF_REQUIRE_MSG((line = strstr(text, "zombie ")) != NULL &&
	    sscanf(line, "zombie %d %u %c %d", &zpid, &zuid, &zstate,
	    &zerr) == 4, "no zombie line: %s", text);
	rest = tu_asprintf("%.*s%s", (int)(line - text), text,
	    strchr(line, '\n') + 1);
	parse_view(&v, rest);
	free(rest);
	free(text);
	ATF_REQUIRE_MSG(zuid == 0 && zstate == 'Z' && zerr == EACCES,
	    "the zombie %d: uid %u, state %c, its fd table %s to 65534",
	    zpid, zuid, zstate, zerr == 0 ? "readable" : strerror(zerr));
	ATF_REQUIRE_MSG(v.v_nprocs == 1 && v.v_procs[0].p_pid == 1 &&
	    v.v_procs[0].p_uid == NOBODY, "the helper is not pid 1, uid "
	    "65534, in its namespace (see view)");
	(void) snprintf(v.v_pid, sizeof (v.v_pid), "1");
	/* The helper in our namespace: unshare's one child. */
	kid = tu_only_child(v.v_child.tc_pid);
	ATF_REQUIRE_MSG(kid > 0, "unshare has no child");
	(void) snprintf(host, sizeof (host), "%d", (int)kid);
	/* sp's b end: no process holds it (in flight). */
	sp = hold_of(&v, "parent", "sp");
	for (size_t i = 0; i < v.v_nholds; i++)
		ATF_REQUIRE(strcmp(v.v_holds[i].h_conn, "sp") != 0 ||
		    v.v_holds[i].h_end == 'a');

	pfiles_in_ns(host, 1, pids[0], env, &r);
	tu_write_file("nobody.out", r.tr_out, r.tr_outlen);
	tu_write_file("nobody.err", r.tr_err, r.tr_errlen);
	/* The carrier's lines: each end names the other, its own. */
	for (size_t i = 0; i < v.v_nholds; i++)
		if (strcmp(v.v_holds[i].h_conn, "carrier") == 0)
			check_hold("nobody", &v, r.tr_out, &v.v_holds[i], 0);
	/*
	 * sp: its peer: line, and no holder of the other end can be named.
	 * pfiles cannot tell the in-flight end from one held outside its
	 * pid namespace (which its /proc does not show), so it counts one.
	 */
	want = expected_lines(&v, sp, 0);
	ATF_REQUIRE_MSG(strstr(want, "endpoint") == NULL, "the view gives "
	    "sp an endpoint: %s", want);
	blk = fd_block(r.tr_out, sp->h_pid, sp->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", sp->h_fd);
	got = peer_lines(blk);
	more = tu_asprintf("%s\tendpoint: and 1 more\n", want);
	tu_require_same_str("nobody.sp", more, got);
	free(more);
	free(got);
	free(blk);
	free(want);
	/*
	 * The zombie is no table pfiles may not read: the trace counts
	 * none, and says the outside is what it cannot see.  And the check
	 * of the check: the in-flight end was looked for everywhere.
	 */
	ATF_REQUIRE_MSG(strstr(r.tr_err, "looked for in every process: 0 "
	    "holders, 0 fd tables not readable; pfiles' pid namespace is not "
	    "the initial one") != NULL, "the trace does not count 0 tables "
	    "not readable and the pid namespace (see nobody.err)");
	ATF_REQUIRE_MSG(strstr(r.tr_err, "endpoints: 1 other ends held by "
	    "no process") != NULL, "pfiles did not look for the in-flight "
	    "end in every process (see nobody.err)");
	tu_result_free(&r);

	pidns_view_stop(&v, kid);
}

ATF_TC(unreadable);
ATF_TC_HEAD(unreadable, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles as uid 65534 on a 65534 "
	    "process whose socketpair's other end a root process holds: "
	    "\"endpoint: and 1 more\", never the holder guessed; as root, "
	    "the holder named");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(unreadable, tc)
{
	static const char *const nobody[] = { "setpriv", "--reuid=65534",
	    "--regid=65534", "--clear-groups", NULL };
	const char *pids[2] = { NULL, NULL };
	char kidpid[16], *blk, *got, *want, *comm, *name;
	const ep_hold_t *b, *a;
	ep_view_t v;
	tu_result_t r;

	view_start(&v, "nobody");
	b = hold_of(&v, "child", "sp");
	a = hold_of(&v, "parent", "sp");
	ATF_REQUIRE_MSG(proc_of(&v, b->h_pid)->p_uid == NOBODY &&
	    proc_of(&v, a->h_pid)->p_uid == 0, "the child is uid %u, the "
	    "parent %u", proc_of(&v, b->h_pid)->p_uid,
	    proc_of(&v, a->h_pid)->p_uid);
	(void) snprintf(kidpid, sizeof (kidpid), "%d", (int)b->h_pid);
	pids[0] = kidpid;

	/* As 65534: the holder is in a table pfiles may not read. */
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_pids = pids }
	    , &r);
	tu_write_file("nobody.out", r.tr_out, r.tr_outlen);
	blk = fd_block(r.tr_out, b->h_pid, b->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", b->h_fd);
	got = peer_lines(blk);
	/* Named only where the kernel proves the pid (SO_PEERPIDFD). */
	comm = tu_peer_provable(NULL) ? comm_text(&v, b->h_cred) :
	    strdup("?");
	ATF_REQUIRE(comm != NULL);
	want = tu_asprintf("\tpeer: %s[%d]\n\tendpoint: and 1 more\n", comm,
	    b->h_cred);
	tu_require_same_str("nobody", want, got);
	name = tu_asprintf("[%d] fd ", (int)a->h_pid);
	ATF_CHECK_MSG(strstr(r.tr_out, name) == NULL, "pfiles as 65534 names "
	    "the root holder: %s", r.tr_out);
	free(name);
	free(want);
	free(got);
	free(blk);
	tu_result_free(&r);

	/* As root: the same process, the holder named. */
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_pids = pids }, &r);
	tu_write_file("root.out", r.tr_out, r.tr_outlen);
	check_hold("root", &v, r.tr_out, b, 0);
	tu_result_free(&r);
	free(comm);
	view_stop(&v);
}

ATF_TC(unreadable_links);
ATF_TC_HEAD(unreadable_links, tc)
{
	atf_tc_set_md_var(tc, "descr", "in a pid namespace of its own, "
	    "pfiles as uid 65534 on a 65534 process whose socketpair's other "
	    "end a 65534 process with a capability holds (its fd directory "
	    "opens, its links do not, and every other table is readable): "
	    "\"endpoint: and 1 more\", never no line; as root, the holder "
	    "named");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare nsenter setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(unreadable_links, tc)
{
	const char *const argv[] = { "unshare", "--pid", "--fork",
	    "--mount-proc", "--kill-child", HELPER, "-t", HELPER_SECONDS,
	    "ambient", NULL };
	static const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	char host[16], kidpid[16], *text, *blk, *got, *want, *comm;
	const ep_hold_t *b, *a;
	ep_view_t v;
	tu_result_t r;
	pid_t kid;
	int found;

	text = pidns_view_start(&v, argv, &found);
	if (!found)
		atf_tc_fail("endpoint_helper ambient gave no view: %s",
		    tu_read_until(v.v_child.tc_err, NULL, 2000, NULL));
	tu_write_file("view", text, strlen(text));
	parse_view(&v, text);
	free(text);
	b = hold_of(&v, "child", "sp");
	a = hold_of(&v, "parent", "sp");
	ATF_REQUIRE_MSG(a->h_pid == 1 && proc_of(&v, 1)->p_uid == NOBODY &&
	    proc_of(&v, b->h_pid)->p_uid == NOBODY, "not pid 1 and its child, "
	    "both uid 65534, in a namespace of their own (see view)");
	kid = tu_only_child(v.v_child.tc_pid);
	ATF_REQUIRE_MSG(kid > 0, "unshare has no child");
	(void) snprintf(host, sizeof (host), "%d", (int)kid);
	(void) snprintf(kidpid, sizeof (kidpid), "%d", (int)b->h_pid);

	/* As 65534: pid 1's links refused, nothing else. */
	pfiles_in_ns(host, 1, kidpid, env, &r);
	tu_write_file("nobody.out", r.tr_out, r.tr_outlen);
	tu_write_file("nobody.err", r.tr_err, r.tr_errlen);
	/* Counted as a table not read, not only as the unseen outside. */
	ATF_CHECK_MSG(strstr(r.tr_err, "0 holders, 1 fd tables not "
	    "readable") != NULL, "the trace does not count pid 1's table as "
	    "not readable (see nobody.err)");
	blk = fd_block(r.tr_out, b->h_pid, b->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", b->h_fd);
	got = peer_lines(blk);
	/* Named only where the kernel proves the pid (SO_PEERPIDFD). */
	comm = tu_peer_provable(NULL) ? comm_text(&v, b->h_cred) :
	    strdup("?");
	ATF_REQUIRE(comm != NULL);
	want = tu_asprintf("\tpeer: %s[%d]\n\tendpoint: and 1 more\n", comm,
	    b->h_cred);
	tu_require_same_str("nobody", want, got);
	free(comm);
	free(want);
	free(got);
	free(blk);
	tu_result_free(&r);

	/* As root: the holder named (the check of the check). */
	pfiles_in_ns(host, 0, kidpid, NULL, &r);
	check_hold("root", &v, r.tr_out, b, 0);
	tu_result_free(&r);

	pidns_view_stop(&v, kid);
}

ATF_TC(netns_holder);
ATF_TC_HEAD(netns_holder, tc)
{
	atf_tc_set_md_var(tc, "descr", "the cross case where the child, "
	    "after the connections were made, moved to a network namespace "
	    "of its own: its sockets are in its parent's namespace, looked up "
	    "there; every endpoint line of both, and diag finds them all");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netns_holder, tc)
{
	static const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	char kidpid[16], arg[32];
	const char *const wrap[] = { SECCOMP_DENY, "-a", arg, "16", "1",
	    NULL };
	const char *args[] = { "--via=pidfd", NULL, kidpid, NULL };
	ep_view_t v;
	tu_result_t r;

	view_start(&v, "nscross");
	require_cross_view(&v);
	check_sources(&v, "nscross");
	/*
	 * Where a socket may not be asked its namespace (SIOCGSKNS refused,
	 * as to a user without CAP_NET_ADMIN there), pfiles' own is looked
	 * in: the child's sockets are of it.  The trace says the refusal
	 * (the check of the check).
	 */
	(void) snprintf(arg, sizeof (arg), "1=%d", SIOCGSKNS);
	(void) snprintf(kidpid, sizeof (kidpid), "%d",
	    (int)v.v_procs[0].p_pid);
	args[1] = v.v_pid;
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = args,
	    .tp_env = env }, &r);
	tu_require_exit("seccomp_deny ioctl SIOCGSKNS pfiles", &r, 0);
	tu_write_file("noskns.out", r.tr_out, r.tr_outlen);
	tu_write_file("noskns.err", r.tr_err, r.tr_errlen);
	check_all_holds("noskns", &v, r.tr_out, 0);
	ATF_CHECK_MSG(strstr(r.tr_err, "could not be asked (Operation not "
	    "permitted): pfiles' own is looked in") != NULL, "the trace does "
	    "not say SIOCGSKNS was refused (see noskns.err)");
	tu_result_free(&r);
	view_stop(&v);
}

ATF_TC(netns_holder_bpf);
ATF_TC_HEAD(netns_holder_bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "netns_holder through --via=bpf "
	    "(skipped where bpf cannot serve)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netns_holder_bpf, tc)
{
	cross_bpf_of("nscross");
}

ATF_TC(netns_accept);
ATF_TC_HEAD(netns_accept, tc)
{
	atf_tc_set_md_var(tc, "descr", "a unix connection to a listener of "
	    "ours from a client made in another network namespace: the "
	    "accepted socket is of the client's namespace, not its holder's; "
	    "both ends' endpoint lines, with every source");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netns_accept, tc)
{
	ep_view_t v;

	view_start(&v, "nsaccept");
	ATF_REQUIRE_EQ_MSG(v.v_nprocs, 2, "%zu processes", v.v_nprocs);
	check_sources(&v, "nsaccept");
	view_stop(&v);
}

ATF_TC(outside_pidns);
ATF_TC_HEAD(outside_pidns, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles in a pid namespace of its own "
	    "on a process there whose unix socket's other end this test "
	    "holds, outside: \"endpoint: and 1 more\", and the trace says why; "
	    "from outside, this test named (the check of the check)");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare nsenter");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(outside_pidns, tc)
{
	const char *const argv[] = { "unshare", "--pid", "--fork",
	    "--mount-proc", "--kill-child", HELPER, "-t", HELPER_SECONDS,
	    "-p", "out.sock", "outside", NULL };
	static const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	struct sockaddr_un sun;
	char host[16], comm[17] = "", *text, *blk, *got, *want, *esc;
	const char *pids[2] = { host, NULL };
	const ep_hold_t *a;
	struct pollfd pfd;
	ep_view_t v;
	tu_result_t r;
	pid_t kid;
	int l, b, found;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	(void) strcpy(sun.sun_path, "out.sock");
	ATF_REQUIRE((l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sun, sizeof (sun)) == 0 &&
	    listen(l, 1) == 0);
	text = pidns_view_start(&v, argv, &found);
	if (!found)
		atf_tc_fail("endpoint_helper outside gave no view: %s",
		    tu_read_until(v.v_child.tc_err, NULL, 2000, NULL));
	pfd.fd = l;
	pfd.events = POLLIN;
	ATF_REQUIRE_MSG(poll(&pfd, 1, TU_TIMEOUT_MS) == 1 &&
	    (b = accept4(l, NULL, NULL, SOCK_CLOEXEC)) >= 0,
	    "the helper did not connect");
	(void) close(l);
	(void) unlink("out.sock");
	tu_write_file("view", text, strlen(text));
	parse_view(&v, text);
	free(text);
	a = hold_of(&v, "parent", "out");
	ATF_REQUIRE_MSG(a->h_pid == 1 && a->h_cred == 0, "the helper is not "
	    "pid 1, or sees this test's pid (see view)");
	kid = tu_only_child(v.v_child.tc_pid);
	ATF_REQUIRE_MSG(kid > 0, "unshare has no child");
	(void) snprintf(host, sizeof (host), "%d", (int)kid);

	/* Inside: the holder cannot be seen, so counted, with the reason. */
	pfiles_in_ns(host, 0, "1", env, &r);
	tu_write_file("inside.out", r.tr_out, r.tr_outlen);
	tu_write_file("inside.err", r.tr_err, r.tr_errlen);
	blk = fd_block(r.tr_out, 1, a->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", a->h_fd);
	got = peer_lines(blk);
	tu_require_same_str("inside", "\tendpoint: and 1 more\n", got);
	ATF_CHECK_MSG(strstr(r.tr_err, "the processes outside it are not "
	    "seen") != NULL, "the trace does not say why (see inside.err)");
	free(got);
	free(blk);
	tu_result_free(&r);

	/* Outside: this test, named. */
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_pids = pids }, &r);
	tu_write_file("outside.out", r.tr_out, r.tr_outlen);
	blk = fd_block(r.tr_out, kid, a->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", a->h_fd);
	got = peer_lines(blk);
	ATF_REQUIRE(prctl(PR_GET_NAME, comm) == 0);
	esc = exp_escape(comm, strlen(comm), SIZE_MAX, NULL);
	/* The peer named only where the kernel proves it (SO_PEERPIDFD). */
	want = tu_asprintf("\tpeer: %s[%d]\n\tendpoint: %s[%d] fd %d\n",
	    tu_peer_provable(NULL) ? esc : "?", (int)getpid(), esc,
	    (int)getpid(), b);
	tu_require_same_str("outside", want, got);
	free(want);
	free(esc);
	free(got);
	free(blk);
	tu_result_free(&r);
	(void) close(b);
	pidns_view_stop(&v, kid);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, unreadable);
	ATF_TP_ADD_TC(tp, unreadable_links);
	ATF_TP_ADD_TC(tp, zombie_holds_nothing);
	ATF_TP_ADD_TC(tp, netns_holder);
	ATF_TP_ADD_TC(tp, netns_holder_bpf);
	ATF_TP_ADD_TC(tp, netns_accept);
	ATF_TP_ADD_TC(tp, outside_pidns);
	return (atf_no_error());
}

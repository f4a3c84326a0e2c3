/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_endpoint_ns: pfiles' endpoint lines (pfiles.1, "Socket lines" 5)
 * across the bounds of what pfiles may see: tables it may not read,
 * pid and network namespaces.  The fixture and the expected lines are
 * t_endpoint's (atf/endpoint_helper's views, expect.c's escaping).
 *
 *   - unreadable: pfiles as uid 65534 on a 65534 process whose peer is
 *     held by a root process: no endpoint line, never a name nor a
 *     count guessed, and stderr says that tables could not be read; as
 *     root, the holder is named (the check of the check).
 *   - unreadable_links: in a pid namespace of its own, the same where
 *     the holder (its pid 1) is a 65534 process with a capability: its
 *     fd directory opens to pfiles, its links do not (EACCES), and no
 *     other table is refused: counted as a table not read, and said.
 *   - zombie_holds_nothing: in a pid namespace whose only process
 *     pfiles (uid 65534) may not read is a root zombie, a socketpair end
 *     whose other end is in flight (SCM_RIGHTS, held by no process): the
 *     trace counts no table pfiles may not read (a zombie holds nothing)
 *     and says that the processes outside the namespace are not seen;
 *     no endpoint line (pfiles cannot tell the in-flight end from one
 *     held outside, and guesses neither), and stderr says why.
 *   - inflight_here, inflight_nobody, inflight_pidns: that socket with
 *     every source (pidfd, agent, diag, and bpf where it serves), ten
 *     runs each: as root in pfiles' own pid namespace, as uid 65534
 *     (tables it may not read: the root processes'), as root inside a
 *     pid namespace of the helper's.  Never an "endpoint: and N more"
 *     for a holder that is not there; every source the same lines, the
 *     view's; where pfiles could not look everywhere, stderr says so.
 *   - netns_holder, netns_holder_bpf: cross, where the child moved to a
 *     network namespace of its own after: its sockets are looked up in
 *     their own namespace; every line as in cross.  Also with SIOCGSKNS
 *     refused (seccomp): pfiles' own namespace is looked in instead.
 *   - netns_accept: a unix connection accepted from a client made in
 *     another network namespace: both ends (of the client's namespace,
 *     not their holders') have their lines.
 *   - outside_pidns: pfiles in a child pid namespace, the other end held
 *     outside it: no endpoint line, and stderr says why.
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

/* The inflight helper's zombie line. */
typedef struct zombie {
	int		z_pid;
	unsigned	z_uid;
	char		z_state;
	int		z_err;
} zombie_t;

/*
 * The inflight helper's text (freed here): its zombie line into *z, the
 * rest into the view, which must be the helper alone, uid 65534, whose
 * socketpair's b end no process holds.  The a end's hold, returned.
 */
static const ep_hold_t *
inflight_parse(ep_view_t *v, char *text, zombie_t *z)
{
	char *line, *rest;

	tu_write_file("view", text, strlen(text));
	ATF_REQUIRE_MSG((line = strstr(text, "zombie ")) != NULL &&
	    sscanf(line, "zombie %d %u %c %d", &z->z_pid, &z->z_uid,
	    &z->z_state, &z->z_err) == 4, "no zombie line: %s", text);
	rest = tu_asprintf("%.*s%s", (int)(line - text), text,
	    strchr(line, '\n') + 1);
	parse_view(v, rest);
	free(rest);
	free(text);
	ATF_REQUIRE_MSG(v->v_nprocs == 1 && v->v_procs[0].p_uid == NOBODY,
	    "the view is not the helper alone, uid 65534 (see view)");
	/* sp's b end: no process holds it (in flight). */
	for (size_t i = 0; i < v->v_nholds; i++)
		ATF_REQUIRE(strcmp(v->v_holds[i].h_conn, "sp") != 0 ||
		    v->v_holds[i].h_end == 'a');
	return (hold_of(v, "parent", "sp"));
}

/* The inflight helper in pfiles' own pid namespace, read. */
static void
inflight_start(ep_view_t *v)
{
	const char *const argv[] = { HELPER, "-t", HELPER_SECONDS,
	    "inflight", NULL };
	char *text;
	zombie_t z;
	int found;

	memset(v, 0, sizeof (*v));
	tu_spawn(&v->v_child, argv, TU_STDERR_PIPE);
	text = tu_read_until(v->v_child.tc_out, "end", TU_TIMEOUT_MS, &found);
	if (!found)
		atf_tc_fail("endpoint_helper inflight gave no view: %s",
		    tu_read_until(v->v_child.tc_err, NULL, 2000, NULL));
	(void) inflight_parse(v, text, &z);
	(void) snprintf(v->v_pid, sizeof (v->v_pid), "%d",
	    (int)v->v_child.tc_pid);
	ATF_REQUIRE_MSG(v->v_procs[0].p_pid == v->v_child.tc_pid, "the view "
	    "is not the helper's own (see view)");
}

/*
 * The inflight helper as pid 1 of a pid namespace of its own, read (the
 * case skipped where none can be made); its pid in ours, as text, into
 * host.  The a end's hold, returned.
 */
static const ep_hold_t *
inflight_pidns_start(ep_view_t *v, zombie_t *z, char *host, size_t size,
    pid_t *kidp)
{
	const char *const argv[] = { "unshare", "--pid", "--fork",
	    "--mount-proc", "--kill-child", HELPER, "-t", HELPER_SECONDS,
	    "inflight", NULL };
	const ep_hold_t *sp;
	char *text;
	int found;

	text = pidns_view_start(v, argv, &found);
	if (!found)
		atf_tc_fail("endpoint_helper inflight gave no view: %s",
		    tu_read_until(v->v_child.tc_err, NULL, 2000, NULL));
	sp = inflight_parse(v, text, z);
	ATF_REQUIRE_MSG(v->v_procs[0].p_pid == 1, "the helper is not pid 1 "
	    "of its namespace (see view)");
	(void) snprintf(v->v_pid, sizeof (v->v_pid), "1");
	/* The helper in our namespace: unshare's one child. */
	*kidp = tu_only_child(v->v_child.tc_pid);
	ATF_REQUIRE_MSG(*kidp > 0, "unshare has no child");
	(void) snprintf(host, size, "%d", (int)*kidp);
	return (sp);
}

#define	INFLIGHT_RUNS	10

/*
 * pfiles [wrap] --via=VIA pid, INFLIGHT_RUNS times for each source of
 * vias (NULL-ended): every hold's peer: and endpoint: lines are the
 * view's (so the same from every source, diag without peer: lines), no
 * "endpoint: and N more" anywhere; and when note is not NULL, stderr
 * has it.
 */
static void
inflight_runs(const ep_view_t *v, const char *const *wrap,
    const char *const *vias, const char *pid, const char *note)
{
	const char *const pids[] = { pid, NULL };

	for (size_t k = 0; vias[k] != NULL; k++) {
		const char *const opts[] = { vias[k], NULL };
		int flags = strcmp(vias[k], "--via=diag") == 0 ? EL_DIAG : 0;

		for (int i = 0; i < INFLIGHT_RUNS; i++) {
			char *name = tu_asprintf("%s.%d", vias[k] + 6, i);
			tu_result_t r;

			tu_pfiles_ok(&(const tu_pfiles_t){ .tp_wrap = wrap,
			    .tp_opts = opts, .tp_pids = pids }, &r);
			tu_write_file(name, r.tr_out, r.tr_outlen);
			check_all_holds(name, v, r.tr_out, flags);
			ATF_CHECK_MSG(strstr(r.tr_out, "\tendpoint: and ") ==
			    NULL, "%s: a holder counted that no process is "
			    "(see %s)", vias[k], name);
			ATF_CHECK_MSG(note == NULL || strstr(r.tr_err, note) !=
			    NULL, "%s: stderr does not say \"%s\": %s",
			    vias[k], note, r.tr_err);
			free(name);
			tu_result_free(&r);
		}
	}
}

/* The sources to ask: pidfd, agent, diag, and bpf where it serves. */
static void
inflight_vias(const char **vias, int bpf)
{
	char *why = bpf ? tu_bpf_why() : tu_asprintf("not as 65534");

	vias[0] = "--via=pidfd";
	vias[1] = "--via=agent";
	vias[2] = "--via=diag";
	vias[3] = why == NULL ? "--via=bpf" : NULL;
	vias[4] = NULL;
	if (why != NULL)
		(void) printf("bpf left out: %s\n", why);
	free(why);
}

ATF_TC(inflight_here);
ATF_TC_HEAD(inflight_here, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles as root on a process whose "
	    "socketpair's other end is in flight (sent with SCM_RIGHTS, not "
	    "received, the sender's copy closed): with every source, ten "
	    "times each, no endpoint line for it (no process holds it), the "
	    "view's lines for every socket");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 180);
}
ATF_TC_BODY(inflight_here, tc)
{
	const char *vias[5];
	ep_view_t v;

	inflight_start(&v);
	inflight_vias(vias, 1);
	inflight_runs(&v, NULL, vias, v.v_pid, NULL);
	view_stop(&v);
}

ATF_TC(inflight_nobody);
ATF_TC_HEAD(inflight_nobody, tc)
{
	atf_tc_set_md_var(tc, "descr", "inflight_here with pfiles as uid "
	    "65534, which may not read root's fd tables (this test's among "
	    "them): still no endpoint line for the in-flight end, never "
	    "\"and 1 more\"; stderr says that tables could not be read");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 180);
}
ATF_TC_BODY(inflight_nobody, tc)
{
	static const char *const nobody[] = { "setpriv", "--reuid=65534",
	    "--regid=65534", "--clear-groups", NULL };
	const char *vias[5];
	char *note;
	ep_view_t v;

	inflight_start(&v);
	inflight_vias(vias, 0);
	note = tu_asprintf("pfiles: %s: endpoint lines incomplete: the other "
	    "end of 1 socket is in no fd table pfiles read, and ", v.v_pid);
	inflight_runs(&v, nobody, vias, v.v_pid, note);
	free(note);
	view_stop(&v);
}

ATF_TC(inflight_pidns);
ATF_TC_HEAD(inflight_pidns, tc)
{
	atf_tc_set_md_var(tc, "descr", "inflight_here with pfiles as root "
	    "inside the helper's own pid namespace, whose /proc does not show "
	    "the processes outside: no endpoint line for the in-flight end, "
	    "never \"and 1 more\"; stderr says that the outside is not seen");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare nsenter");
	tu_timeout(tc, 180);
}
ATF_TC_BODY(inflight_pidns, tc)
{
	const char *vias[5], *wrap[] = { "nsenter", "-t", NULL, "-p", "-m",
	    NULL };
	char host[16], *note;
	zombie_t z;
	ep_view_t v;
	pid_t kid;

	(void) inflight_pidns_start(&v, &z, host, sizeof (host), &kid);
	wrap[2] = host;
	inflight_vias(vias, 1);
	note = tu_asprintf("pfiles: 1: endpoint lines incomplete: the other "
	    "end of 1 socket is in no fd table pfiles read, and the processes "
	    "outside pfiles' pid namespace are not seen: whether a process "
	    "holds it is not known\n");
	inflight_runs(&v, wrap, vias, "1", note);
	free(note);
	pidns_view_stop(&v, kid);
}

ATF_TC(zombie_holds_nothing);
ATF_TC_HEAD(zombie_holds_nothing, tc)
{
	atf_tc_set_md_var(tc, "descr", "in a pid namespace of its own "
	    "whose only process pfiles may not read is a root zombie: pfiles "
	    "as uid 65534 on a 65534 process whose socketpair's other end "
	    "is in flight (held by no process) counts no table it may not "
	    "read -- a zombie holds nothing -- and prints no endpoint line "
	    "for it: it cannot tell it from one held outside the namespace, "
	    "and says so on stderr");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare nsenter setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(zombie_holds_nothing, tc)
{
	static const char *const env[] = { "LIBPROC_DEBUG=1", NULL };
	char host[16], *want, *blk, *got, *note;
	const char *const pids[] = { "1", NULL };
	const ep_hold_t *sp;
	zombie_t z;
	pid_t kid;
	ep_view_t v;
	tu_result_t r;

	sp = inflight_pidns_start(&v, &z, host, sizeof (host), &kid);
	ATF_REQUIRE_MSG(z.z_uid == 0 && z.z_state == 'Z' && z.z_err == EACCES,
	    "the zombie %d: uid %u, state %c, its fd table %s to 65534",
	    z.z_pid, z.z_uid, z.z_state, z.z_err == 0 ? "readable" :
	    strerror(z.z_err));

	pfiles_in_ns(host, 1, pids[0], env, &r);
	tu_write_file("nobody.out", r.tr_out, r.tr_outlen);
	tu_write_file("nobody.err", r.tr_err, r.tr_errlen);
	/* The carrier's lines: each end names the other, its own. */
	for (size_t i = 0; i < v.v_nholds; i++)
		if (strcmp(v.v_holds[i].h_conn, "carrier") == 0)
			check_hold("nobody", &v, r.tr_out, &v.v_holds[i], 0);
	/*
	 * sp: its peer: line alone.  pfiles cannot tell the in-flight end
	 * from one held outside its pid namespace (which its /proc does not
	 * show): it names no holder, counts none, and says why.
	 */
	want = expected_lines(&v, sp, 0);
	ATF_REQUIRE_MSG(strstr(want, "endpoint") == NULL, "the view gives "
	    "sp an endpoint: %s", want);
	blk = fd_block(r.tr_out, sp->h_pid, sp->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", sp->h_fd);
	got = peer_lines(blk);
	tu_require_same_str("nobody.sp", want, got);
	note = tu_asprintf("pfiles: 1: endpoint lines incomplete: the other "
	    "end of 1 socket is in no fd table pfiles read, and the processes "
	    "outside pfiles' pid namespace are not seen: whether a process "
	    "holds it is not known\n");
	ATF_CHECK_MSG(strstr(r.tr_err, note) != NULL, "stderr does not say "
	    "\"%s\" (see nobody.err)", note);
	free(note);
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
	    "no endpoint line, never the holder nor a count guessed, and "
	    "stderr says that tables could not be read; as root, the holder "
	    "named");
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
	want = tu_asprintf("\tpeer: %s[%d]\n", comm, b->h_cred);
	tu_require_same_str("nobody", want, got);
	free(want);
	want = tu_asprintf("pfiles: %s: endpoint lines incomplete: the other "
	    "end of 1 socket is in no fd table pfiles read, and ", kidpid);
	ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL, "stderr does not say "
	    "\"%s...\": %s", want, r.tr_err);
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
	    "counted as a table not read, no endpoint line, and stderr says "
	    "so; as root, the holder named");
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
	want = tu_asprintf("\tpeer: %s[%d]\n", comm, b->h_cred);
	tu_require_same_str("nobody", want, got);
	free(want);
	want = tu_asprintf("pfiles: %s: endpoint lines incomplete: the other "
	    "end of 1 socket is in no fd table pfiles read, and 1 fd table of "
	    "other processes may not be read: whether a process holds it is "
	    "not known\n", kidpid);
	ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL, "stderr does not say "
	    "\"%s\" (see nobody.err)", want);
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
	    "holds, outside: no endpoint line, and stderr says why; "
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

	/* Inside: the holder cannot be seen: neither named nor counted. */
	pfiles_in_ns(host, 0, "1", env, &r);
	tu_write_file("inside.out", r.tr_out, r.tr_outlen);
	tu_write_file("inside.err", r.tr_err, r.tr_errlen);
	blk = fd_block(r.tr_out, 1, a->h_fd);
	ATF_REQUIRE_MSG(blk != NULL, "no block of fd %d", a->h_fd);
	got = peer_lines(blk);
	tu_require_same_str("inside", "", got);
	ATF_CHECK_MSG(strstr(r.tr_err, "the processes outside it are not "
	    "seen") != NULL, "the trace does not say why (see inside.err)");
	ATF_CHECK_MSG(strstr(r.tr_err, "pfiles: 1: endpoint lines incomplete: "
	    "the other end of 1 socket is in no fd table pfiles read, and the "
	    "processes outside pfiles' pid namespace are not seen: whether a "
	    "process holds it is not known\n") != NULL, "stderr does not say "
	    "why (see inside.err)");
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
	ATF_TP_ADD_TC(tp, inflight_here);
	ATF_TP_ADD_TC(tp, inflight_nobody);
	ATF_TP_ADD_TC(tp, inflight_pidns);
	ATF_TP_ADD_TC(tp, netns_holder);
	ATF_TP_ADD_TC(tp, netns_holder_bpf);
	ATF_TP_ADD_TC(tp, netns_accept);
	ATF_TP_ADD_TC(tp, outside_pidns);
	return (atf_no_error());
}

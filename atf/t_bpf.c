/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_bpf: the bpf source of socket facts (pfiles.1, "bpf") against the
 * pidfd source, byte for byte.
 *
 * --via=bpf must print exactly what --via=pidfd prints for the same
 * process, text and -J alike: on every sockfix set (hostile included),
 * on node with 100 and 2,000 loopback connections, and on a target in a
 * network and pid namespace of its own, whose unix peers' pids must be
 * the pids pfiles' namespace sees.  A difference fails the test naming
 * the pid and fd and printing both lines.  --via=bpf is never a silent
 * fallback: every run traces (LIBPROC_DEBUG=1) that bpf served each pid,
 * and the program is loaded once per run, however many pids.
 *
 * t_bpf_refused holds where bpf may not serve, and its load check.
 *
 * Every case needs the kernel's BTF and the privilege to load BPF; where
 * pfiles --via=bpf cannot serve a trivial process, the case is skipped
 * with pfiles' own reason.
 */
#include "bpf_util.h"

#define	MAX_PIDS	8
#define	NODE_SECONDS	"120"
/* node's fds beyond its 1 + 2N sockets (t_node's NODE_FD_SPARE) */
#define	NODE_FD_SPARE	39

/* Every fd of the manifest has its block in text. */
static void
require_every_fd(const fixture_t *fx, const char *text)
{
	for (size_t i = 0; i < fx->fx_manifest->m_nfds; i++) {
		int fd = fx->fx_manifest->m_fds[i].f_fd;
		char *want = tu_asprintf("\n%4d: ", fd);

		ATF_CHECK_MSG(strstr(text, want) != NULL, "fd %d (%s) is "
		    "not in pfiles --via=bpf's output", fd,
		    fx->fx_manifest->m_fds[i].f_kind);
		free(want);
	}
}

static void
check_set(const char *set)
{
	fixture_t fx;
	const char *pids[1];
	char *text;

	tu_require_bpf();
	fx_start_set(&fx, set, NULL, NULL);
	fx_require_kinds(&fx, set);
	pids[0] = fx.fx_pid;
	text = compare_vias(set, pids, 1);
	require_every_fd(&fx, text);
	free(text);
	fx_stop(&fx);
}

/* One case per set of fixture.h's list, the hostile one too. */
#define	SET_TC(set, kinds, flags)					\
	ATF_TC(set_ ## set);						\
	ATF_TC_HEAD(set_ ## set, tc)					\
	{								\
		atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf prints " \
		    "exactly what --via=pidfd prints, text and -J, on "	\
		    "sockfix's set '" #set "'");			\
		tu_timeout(tc, 120);		\
	}								\
	ATF_TC_BODY(set_ ## set, tc)					\
	{								\
		check_set(#set);					\
	}
FX_SETS(SET_TC)
FX_NAMED_SETS(SET_TC)
FX_STATE_SETS(SET_TC)
#undef	SET_TC

/*
 * node on sockets.js with n connections: bpf against pidfd, text and -J;
 * and --via=auto, which takes bpf from AUTO_BPF_FDS fds on and pidfd
 * below, prints the same.
 */
static void
check_node(size_t n)
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	char nstr[16], pid[16], *line, *want, *text, *what;
	const char *const argv[] = { "node", TU_SOCKETS_JS, nstr,
	    NODE_SECONDS, NULL };
	const char *pids[1] = { pid };
	const char *const via_auto[] = { "--via=auto", NULL };
	const char *const via_pidfd[] = { "--via=pidfd", NULL };
	tu_result_t ra, rp;
	struct rlimit rl;
	tu_child_t node;
	size_t nsock;

	tu_require_bpf();
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < 2 * n + 1 + NODE_FD_SPARE)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu: no room for %zu "
		    "connections", (unsigned long long)rl.rlim_max, n);
	/* node raises its soft limit to the hard one itself. */
	(void) snprintf(nstr, sizeof (nstr), "%zu", n);
	tu_spawn(&node, argv, TU_STDERR_PIPE);
	if ((line = tu_read_line(node.tc_out, TU_TIMEOUT_MS)) == NULL) {
		char *msg = tu_read_until(node.tc_err, NULL, 5000, NULL);

		(void) fprintf(stderr, "node's stderr:\n%s\n", msg);
		atf_tc_fail("node exited before reporting its sockets: %s",
		    msg);
	}
	(void) snprintf(pid, sizeof (pid), "%d", (int)node.tc_pid);
	want = tu_asprintf("opened %zu sockets, pid = %s", n, pid);
	tu_require_same_str("node-first-line", want, line);
	free(want);
	free(line);
	/* The report: node writes nothing more. */
	ATF_REQUIRE_MSG((line = tu_read_line(node.tc_out, TU_TIMEOUT_MS)) !=
	    NULL, "node wrote no report line");
	free(line);

	what = tu_asprintf("node-%zu", n);
	text = compare_vias(what, pids, 1);
	nsock = count_lines_with(text, ": S_IFSOCK ");
	ATF_REQUIRE_EQ_MSG(nsock, 2 * n + 1, "%s: %zu sockets shown, "
	    "expected %zu", what, nsock, 2 * n + 1);

	/* auto: bpf at AUTO_BPF_FDS fds or more, pidfd below. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_pidfd, .tp_pids = pids,
	    .tp_npids = 1 }, &rp);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_auto, .tp_pids = pids,
	    .tp_npids = 1, .tp_env = env }, &ra);
	tu_require_exit("pfiles --via=pidfd", &rp, 0);
	tu_require_exit("pfiles --via=auto", &ra, 0);
	free(what);
	what = tu_asprintf("node-%zu.auto", n);
	require_same_output(what, 0, &rp, &ra);
	if (2 * n + 1 >= AUTO_BPF_FDS)
		ATF_CHECK_EQ_MSG(count_lines_with(ra.tr_err, TRACE_BPF), 1,
		    "%s: %zu fds and auto did not take bpf:\n%s", what,
		    2 * n + 1, ra.tr_err);
	else
		ATF_CHECK_EQ_MSG(count_lines_with(ra.tr_err, TRACE_PIDFD), 1,
		    "%s: %zu sockets and auto did not take pidfd:\n%s",
		    what, 2 * n + 1, ra.tr_err);
	tu_result_free(&rp);
	tu_result_free(&ra);
	free(what);
	free(text);

	ATF_CHECK_MSG(tu_proc_state(node.tc_pid) != 'T' &&
	    tu_proc_state(node.tc_pid) != 't', "node is stopped");
	{
		int status = tu_stop(&node, TU_TIMEOUT_MS);

		ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "node ended with wait status 0x%x", (unsigned)status);
	}
}

ATF_TC(node_100);
ATF_TC_HEAD(node_100, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf prints exactly "
	    "what --via=pidfd prints, text and -J, on node with 100 "
	    "loopback connections; auto (pidfd there) prints the same");
	atf_tc_set_md_var(tc, "require.progs", "node");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(node_100, tc)
{
	check_node(100);
}

ATF_TC(node_2000);
ATF_TC_HEAD(node_2000, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf prints exactly "
	    "what --via=pidfd prints, text and -J, on node with 2,000 "
	    "loopback connections; auto takes bpf there and prints the "
	    "same");
	atf_tc_set_md_var(tc, "require.progs", "node");
	tu_timeout(tc, 180);
}
ATF_TC_BODY(node_2000, tc)
{
	check_node(2000);
}

/*
 * The NSpid line of /proc/PID/status: the pid in ours, then in each
 * namespace below; requires exactly two numbers, ours and the inner.
 */
static void
require_nspid(pid_t pid, long inner)
{
	char *path = tu_asprintf("/proc/%d/status", (int)pid);
	char *text = tu_read_file(path, NULL), *p, *end;
	long outer, in;

	ATF_REQUIRE_MSG((p = strstr(text, "\nNSpid:")) != NULL,
	    "%s: no NSpid line", path);
	outer = strtol(p + 7, &end, 10);
	in = strtol(end, &end, 10);
	ATF_REQUIRE_MSG(*end == '\n', "%s: NSpid of more than two "
	    "namespaces", path);
	ATF_REQUIRE_EQ_MSG(outer, (long)pid, "%s: NSpid %ld", path, outer);
	ATF_REQUIRE_EQ_MSG(in, inner, "%s: NSpid in its namespace %ld; the "
	    "helper says %ld", path, in, inner);
	/* Else the check below could not tell the two apart. */
	ATF_REQUIRE_MSG(in != outer, "%s: the same pid %ld in both "
	    "namespaces", path, in);
	free(text);
	free(path);
}

static char *
ns_of(pid_t pid, const char *ns)
{
	char path[64], link[128];
	ssize_t n;

	(void) snprintf(path, sizeof (path), "/proc/%d/ns/%s", (int)pid, ns);
	ATF_REQUIRE_MSG((n = readlink(path, link, sizeof (link) - 1)) > 0,
	    "readlink %s: %s", path, strerror(errno));
	link[n] = '\0';
	return (tu_asprintf("%s", link));
}

static void
require_other_ns(pid_t pid, const char *ns)
{
	char *theirs = ns_of(pid, ns), *ours = ns_of(getpid(), ns);

	ATF_REQUIRE_MSG(strcmp(theirs, ours) != 0, "pid %d is in our %s "
	    "namespace (%s)", (int)pid, ns, ours);
	free(theirs);
	free(ours);
}

/* Is prog an executable in PATH? */
static int
in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	int found = 0;

	if (path == NULL)
		return (0);
	copy = tu_asprintf("%s", path);
	for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
	    dir = strtok_r(NULL, ":", &save)) {
		char *full = tu_asprintf("%s/%s", dir, prog);

		found = access(full, X_OK) == 0;
		free(full);
	}
	free(copy);
	return (found);
}

ATF_TC(netns_pidns);
ATF_TC_HEAD(netns_pidns, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf on two processes "
	    "in a network and pid namespace of their own, joined by a unix "
	    "connection: their sockets as pidfd shows them, and each unix "
	    "peer's pid as pfiles' namespace sees it, not as theirs does; "
	    "no socket is asked through pidfd_getfd");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "unshare");
	tu_timeout(tc, 120);
}

ATF_TC_BODY(netns_pidns, tc)
{
	const char *const argv[] = { "unshare", "-n", "-p", "-f",
	    "--kill-child", HELPER, FIXTURE_SECONDS, "nspeer", NULL };
	const char *const probe[] = { "unshare", "-n", "-p", "-f", "true",
	    NULL };
	char spid[2][16], *said_text, *text, *want;
	const char *pids[2] = { spid[0], spid[1] };
	long in_parent, in_child;
	pid_t parent, child;
	tu_child_t c;
	tu_result_t r;
	int status;

	tu_require_bpf();
	tu_run(probe, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_skip("cannot make network and pid namespaces here: %s",
		    r.tr_err);
	tu_result_free(&r);

	said_text = spawn_ready(&c, argv);
	in_parent = said(said_text, "parent");
	in_child = said(said_text, "child");
	free(said_text);

	/* Their pids as we see them, and as they do. */
	parent = tu_only_child(c.tc_pid);
	child = tu_only_child(parent);
	require_nspid(parent, in_parent);
	require_nspid(child, in_child);
	require_other_ns(parent, "net");
	require_other_ns(parent, "pid");
	(void) snprintf(spid[0], sizeof (spid[0]), "%d", (int)parent);
	(void) snprintf(spid[1], sizeof (spid[1]), "%d", (int)child);

	text = compare_vias("nspeer", pids, 2);
	tu_write_file("nspeer.out", text, strlen(text));
	/* The sockets: tcp, udp, unix listener, accepted; tcp, udp, client */
	ATF_CHECK_EQ_MSG(count_lines_with(text, ": S_IFSOCK "), 7,
	    "%zu sockets shown, expected 7",
	    count_lines_with(text, ": S_IFSOCK "));
	ATF_CHECK_EQ_MSG(count_lines_with(text, "\tsockname: AF_INET "
	    "0.0.0.0  port: "), 4, "%zu AF_INET sockname lines, expected 4",
	    count_lines_with(text, "\tsockname: AF_INET 0.0.0.0  port: "));
	/* Each peer's pid is ours, not its namespace's. */
	want = tu_asprintf("\tpeer: %s[%d]\n", tu_peer_provable(NULL) ?
	    "nsp-child" : "?", (int)child);
	ATF_CHECK_MSG(strstr(text, want) != NULL, "no line \"%.*s\" in "
	    "the parent's block (the child's pid here)",
	    (int)strlen(want) - 1, want);
	free(want);
	want = tu_asprintf("\tpeer: %s[%d]\n", tu_peer_provable(NULL) ?
	    "nsp-parent" : "?", (int)parent);
	ATF_CHECK_MSG(strstr(text, want) != NULL, "no line \"%.*s\" in "
	    "the child's block (the parent's pid here)",
	    (int)strlen(want) - 1, want);
	free(want);
	want = tu_asprintf("[%ld]\n", in_parent);
	ATF_CHECK_MSG(strstr(text, want) == NULL, "a pid of the target's "
	    "namespace (%ld) is shown", in_parent);
	free(want);
	want = tu_asprintf("[%ld]\n", in_child);
	ATF_CHECK_MSG(strstr(text, want) == NULL, "a pid of the target's "
	    "namespace (%ld) is shown", in_child);
	free(want);
	ATF_CHECK_EQ_MSG(count_lines_with(text, "\tpeer: "), 2, "%zu peer "
	    "lines, expected 2", count_lines_with(text, "\tpeer: "));
	free(text);

	/* The peers came from the program: nothing duplicated. */
	if (in_path("strace")) {
		const char *const wrap[] = { "strace", "-f", "-qq", "-o",
		    "strace.log", "-e", "trace=pidfd_getfd", NULL };
		const char *const args[] = { "--via=bpf", spid[0], spid[1],
		    NULL };
		static const char *const env[] = {
		    "ASAN_OPTIONS=detect_leaks=0", NULL };
		char *log;

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
		tu_require_exit("strace pfiles --via=bpf", &r, 0);
		tu_result_free(&r);
		log = tu_read_file("strace.log", NULL);
		ATF_CHECK_MSG(strstr(log, "pidfd_getfd(") == NULL, "pfiles "
		    "--via=bpf duplicated fds of the targets:\n%s", log);
		free(log);
	}

	status = tu_stop(&c, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper ended with wait status 0x%x", (unsigned)status);
}

ATF_TC(one_load);
ATF_TC_HEAD(one_load, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf with three pids "
	    "loads the program once (LIBPROC_DEBUG traces \"" TRACE_LOADED
	    "\" exactly once), bpf serves each, and prints what "
	    "--via=pidfd prints for the three");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(one_load, tc)
{
	fixture_t a, b, c;
	const char *pids[3];

	tu_require_bpf();
	fx_start_set(&a, "tcp,unix", NULL, NULL);
	fx_start_set(&b, "all", NULL, NULL);
	fx_start_set(&c, "socketpair,pipe", NULL, NULL);
	pids[0] = a.fx_pid;
	pids[1] = b.fx_pid;
	pids[2] = c.fx_pid;
	/* compare_vias requires one load and one "bpf serves" per pid. */
	free(compare_vias("three", pids, 3));
	fx_stop(&a);
	fx_stop(&b);
	fx_stop(&c);
}

ATF_TC(thread_own_table);
ATF_TC_HEAD(thread_own_table, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf on a process one "
	    "of whose threads has a descriptor table of its own (unshare "
	    "CLONE_FILES) prints what --via=pidfd prints: the process's "
	    "table, as /proc/PID/fd shows it, once");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(thread_own_table, tc)
{
	const char *const argv[] = { HELPER, FIXTURE_SECONDS, "ownfiles",
	    NULL };
	char pid[16], *said_text, *text;
	const char *pids[1] = { pid };
	tu_child_t c;
	int status;

	tu_require_bpf();
	said_text = spawn_ready(&c, argv);
	ATF_REQUIRE(said(said_text, "tid") != (long)c.tc_pid);
	free(said_text);
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);
	text = compare_vias("ownfiles", pids, 1);
	ATF_CHECK_EQ_MSG(count_lines_with(text, ": S_IFSOCK "), 0,
	    "the thread's sockets are shown as the process's");
	free(text);
	status = tu_stop(&c, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper ended with wait status 0x%x", (unsigned)status);
}

/* The cases of SET_TC, in fixture.h's order. */
#define	ADD_SET_TC(set, kinds, flags)	ATF_TP_ADD_TC(tp, set_ ## set);

ATF_TP_ADD_TCS(tp)
{
	FX_SETS(ADD_SET_TC)
	FX_NAMED_SETS(ADD_SET_TC)
	FX_STATE_SETS(ADD_SET_TC)
	ATF_TP_ADD_TC(tp, node_100);
	ATF_TP_ADD_TC(tp, node_2000);
	ATF_TP_ADD_TC(tp, netns_pidns);
	ATF_TP_ADD_TC(tp, one_load);
	ATF_TP_ADD_TC(tp, thread_own_table);
	return (atf_no_error());
}

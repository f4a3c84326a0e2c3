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

/*
 * The state cases: state_helper's sockets, each as its own calls say it
 * is (state_helper.c), and the state line pfiles must print for each,
 * made here from the output contract (pfiles-format.md, "Socket
 * lines", 4).
 */
#define	STATE_HELPER	BUILD_DIR "/atf/state_helper"
#define	STATES_MAX	32
#define	STATE_LISTEN	10
#define	STATE_ESTABLISHED 1
#define	STATE_CLOSE	7

typedef struct said_sock {
	int		ss_fd;
	int		ss_unix;
	char		ss_what[48];
	int		ss_state;	/* 0: queues alone */
	int		ss_backlog;
	unsigned long	ss_read, ss_send;
} said_sock_t;

typedef struct said_all {
	said_sock_t	sa_sock[STATES_MAX];
	int		sa_n;
	int		sa_nlfd;	/* the netlink socket, and its words */
	unsigned long	sa_words[8];
	int		sa_nwords;
	int		sa_pktfd;	/* the packet socket, -1 none */
	int		sa_pktifindex;
	unsigned	sa_pktproto;
} said_all_t;

static void
parse_said(const char *text, said_all_t *sa)
{
	char fam[8], q[16];

	memset(sa, 0, sizeof (*sa));
	sa->sa_pktfd = -1;
	for (const char *p = text; p != NULL && *p != '\0';
	    p = strchr(p, '\n') != NULL ? strchr(p, '\n') + 1 : NULL) {
		said_sock_t *ss = &sa->sa_sock[sa->sa_n];
		int n;

		if (sa->sa_n < STATES_MAX && sscanf(p, "sock %d %7s %47s %d "
		    "%15s %lu %lu", &ss->ss_fd, fam, ss->ss_what,
		    &ss->ss_state, q, &ss->ss_read, &ss->ss_send) == 7) {
			ss->ss_unix = strcmp(fam, "unix") == 0;
			ss->ss_backlog = strcmp(q, "backlog") == 0;
			sa->sa_n++;
		} else if (sscanf(p, "groups %d%n", &sa->sa_nlfd, &n) == 1) {
			const char *w = p + n;
			char *end;

			while (sa->sa_nwords < 8 && *w == ' ') {
				sa->sa_words[sa->sa_nwords++] =
				    strtoul(w, &end, 10);
				w = end;
			}
		} else {
			(void) sscanf(p, "packet %d %d %u", &sa->sa_pktfd,
			    &sa->sa_pktifindex, &sa->sa_pktproto);
		}
	}
	ATF_REQUIRE_MSG(sa->sa_n >= 16 && sa->sa_nwords >= 2, "the helper "
	    "said too little: %s", text);
}

/* The contract's names of the states (the kernel's TCP numbers). */
static const char *
state_name(int state, int is_unix)
{
	static const char *const tcp[] = { NULL, "ESTABLISHED", "SYN_SENT",
	    "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT", "CLOSE",
	    "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV" };

	if (is_unix)
		return (state == STATE_LISTEN ? "LISTEN" :
		    state == STATE_ESTABLISHED ? "CONNECTED" :
		    state == STATE_CLOSE ? "UNCONNECTED" : "?");
	return (state > 0 && state <= 12 ? tcp[state] : "?");
}

/* The state line of the contract for what the helper said of ss. */
static char *
want_state_line(const said_sock_t *ss)
{
	if (ss->ss_state == 0)
		return (tu_asprintf("\tqueued: %lu to read, %lu to send\n",
		    ss->ss_read, ss->ss_send));
	if (ss->ss_backlog)
		return (tu_asprintf("\tstate: LISTEN  backlog: %lu of %lu\n",
		    ss->ss_read, ss->ss_send));
	return (tu_asprintf("\tstate: %s  queued: %lu to read, %lu to send\n",
	    state_name(ss->ss_state, ss->ss_unix), ss->ss_read,
	    ss->ss_send));
}

/* fd's block in pfiles' text: its "%4d: " line to the next fd's. */
static char *
fd_block(const char *text, int fd)
{
	char *head = tu_asprintf("\n%4d: ", fd);
	const char *b = strstr(text, head), *e;

	ATF_REQUIRE_MSG(b != NULL, "fd %d is not in pfiles' output", fd);
	b++;
	for (e = strchr(b, '\n'); e != NULL && e[1] != '\0'; e =
	    strchr(e + 1, '\n')) {
		int n = 0;

		if (sscanf(e + 1, "%*d:%n", &n) == 0 && n > 0 &&
		    e[1] == ' ')
			break;
	}
	free(head);
	return (tu_asprintf("%.*s", e != NULL ? (int)(e - b + 1) :
	    (int)strlen(b), b));
}

/*
 * Each socket's state line, as the helper's calls say it must be: how
 * many are not (each said on stderr).  Counted, not checked one by one:
 * the case's expected failure later (pidfd without states) must not
 * hide these.
 */
static int
state_lines_wrong(const char *what, const char *text, const said_all_t *sa,
    const char *skip)
{
	char *block, *want;
	int bad = 0;

	for (int i = 0; i < sa->sa_n; i++) {
		const said_sock_t *ss = &sa->sa_sock[i];

		if (skip != NULL && strcmp(ss->ss_what, skip) == 0)
			continue;
		block = fd_block(text, ss->ss_fd);
		want = want_state_line(ss);
		if (strstr(block, want) == NULL) {
			(void) fprintf(stderr, "%s: fd %d (%s): no line "
			    "\"%.*s\" in its block:\n%s", what, ss->ss_fd,
			    ss->ss_what, (int)strlen(want) - 1, want, block);
			bad++;
		}
		free(want);
		free(block);
	}
	/* The netlink groups: every word to the last one set. */
	block = fd_block(text, sa->sa_nlfd);
	want = tu_asprintf("groups: 0x%08lx", sa->sa_words[0]);
	for (int n = sa->sa_nwords, i = 1; i < n; i++) {
		int last = n;
		char *more;

		while (last > 1 && sa->sa_words[last - 1] == 0)
			last--;
		if (i >= last)
			break;
		more = tu_asprintf("%s,0x%08lx", want, sa->sa_words[i]);
		free(want);
		want = more;
	}
	if (strstr(block, want) == NULL ||
	    strstr(block, "\tsockname: AF_NETLINK ") == NULL) {
		(void) fprintf(stderr, "%s: netlink fd %d: no \"%s\" in its "
		    "block:\n%s", what, sa->sa_nlfd, want, block);
		bad++;
	}
	free(want);
	free(block);
	return (bad);
}

/*
 * The program's own records of the helper (bpf_pfiles_iter): the
 * seqpacket socket with more messages than the program sums has no
 * queues and is not taken as it is (the walk asks pidfd_getfd); every
 * other socket of the helper is, with its state and queues.
 */
typedef struct own_walk {
	const said_all_t *ow_sa;
	int		ow_seen;
	int		ow_bad;		/* records not as they must be */
} own_walk_t;

static int
check_own_rec(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	own_walk_t *ow = arg;

	for (int i = 0; i < ow->ow_sa->sa_n; i++) {
		const said_sock_t *ss = &ow->ow_sa->sa_sock[i];
		int many = strcmp(ss->ss_what, "seqpacket-many-messages") == 0;

		if (ss->ss_fd != br->br_fd)
			continue;
		ow->ow_seen++;
		if (bpf_taken_as_is(br) != !many ||
		    ((br->br_sock_have & BPFREC_S_QUEUES) != 0) != !many) {
			(void) fprintf(stderr, "fd %d (%s): taken as it is: %d, "
			    "queues: %s\n", br->br_fd, ss->ss_what,
			    bpf_taken_as_is(br), (br->br_sock_have &
			    BPFREC_S_QUEUES) ? "given" : "not given");
			ow->ow_bad++;
		}
	}
	return (0);
}

ATF_TC(states);
ATF_TC_HEAD(states, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf on state_helper's "
	    "sockets (a TCP listener with two clients not accepted, 1234 "
	    "bytes not read, CLOSE_WAIT with 77, FIN_WAIT2, UDP with three "
	    "datagrams queued, unix stream with 70 of 100 bytes not read, a "
	    "unix listener with a client waiting, seqpacket and datagram "
	    "queues, netlink groups 1 and 33, CLOSE with bytes and a FIN not "
	    "read): each state line is the one the helper's own calls "
	    "(TCP_INFO, SIOCINQ, SIOCOUTQ, SO_MEMINFO, "
	    "NETLINK_LIST_MEMBERSHIPS) make; a seqpacket queue longer than "
	    "the program sums is left to pidfd_getfd; and bpf prints what "
	    "pidfd prints, text and -J (expected to fail, and said why, "
	    "where the pidfd source gives no state)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(states, tc)
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	const char *const argv[] = { STATE_HELPER, FIXTURE_SECONDS, NULL };
	const char *const via_bpf[] = { "--via=bpf", NULL };
	const char *const via_pidfd[] = { "--via=pidfd", NULL };
	char pid[16], why[256], *said_text, *text;
	const char *pids[1] = { pid };
	own_walk_t ow;
	said_all_t sa;
	bpf_pfiles_t *bp;
	tu_result_t r;
	tu_child_t c;
	int status, bad;

	tu_require_bpf();
	said_text = spawn_ready(&c, argv);
	parse_said(said_text, &sa);
	free(said_text);
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);

	/* bpf's lines: the helper's calls' */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_bpf, .tp_pids = pids,
	    .tp_npids = 1, .tp_env = env }, &r);
	tu_require_exit("pfiles --via=bpf", &r, 0);
	ATF_REQUIRE_EQ_MSG(count_lines_with(r.tr_err, TRACE_BPF), 1, "bpf "
	    "did not serve:\n%s", r.tr_err);
	tu_write_file("states.bpf", r.tr_out, r.tr_outlen);
	bad = state_lines_wrong("bpf", r.tr_out, &sa,
	    "seqpacket-many-messages");
	ATF_REQUIRE_EQ_MSG(bad, 0, "%d state lines of --via=bpf are not the "
	    "helper's calls' (on stderr)", bad);
	tu_result_free(&r);

	/* The program's records: the long queue left to the calls. */
	ATF_REQUIRE((bp = bpf_pfiles_open(why, sizeof (why))) != NULL);
	memset(&ow, 0, sizeof (ow));
	ow.ow_sa = &sa;
	ATF_REQUIRE_EQ_MSG(bpf_pfiles_iter(bp, c.tc_pid, check_own_rec, &ow,
	    why, sizeof (why)), 0, "%s", why);
	bpf_pfiles_close(bp);
	ATF_REQUIRE_EQ_MSG(ow.ow_seen, sa.sa_n, "%d records of the helper's "
	    "%d sockets", ow.ow_seen, sa.sa_n);
	ATF_REQUIRE_EQ_MSG(ow.ow_bad, 0, "%d records not taken or left as "
	    "they must be (on stderr)", ow.ow_bad);

	/*
	 * pidfd's, for the sockets bpf leaves to it and against bpf's
	 * whole output.  A build whose pidfd source gives no state at all
	 * cannot match: expected to fail there, said why.
	 */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_pidfd, .tp_pids = pids,
	    .tp_npids = 1 }, &r);
	tu_require_exit("pfiles --via=pidfd", &r, 0);
	if (strstr(r.tr_out, "\tstate: ") == NULL)
		atf_tc_expect_fail("the pidfd source of this build prints no "
		    "state line: bpf's cannot be the same as pidfd's");
	tu_result_free(&r);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_bpf, .tp_pids = pids,
	    .tp_npids = 1 }, &r);
	tu_require_exit("pfiles --via=bpf", &r, 0);
	bad = state_lines_wrong("bpf, through pidfd_getfd", r.tr_out, &sa,
	    NULL);
	ATF_CHECK_EQ_MSG(bad, 0, "%d state lines of --via=bpf are not the "
	    "helper's calls' (on stderr)", bad);
	tu_result_free(&r);
	text = compare_vias("states", pids, 1);
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
	ATF_TP_ADD_TC(tp, states);
	return (atf_no_error());
}

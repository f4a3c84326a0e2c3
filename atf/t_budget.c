/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_budget: what pfiles reads per socket, and the netlink messages it
 * sends, against a budget per --via.
 *
 * The seed found the bug by counting preads with dtrace: per socket, 230
 * of /proc/PID/as and 50 of lwpstatus.  Here libpreadcount.so counts
 * every libc entry that reads or writes a file or another process's
 * memory, and every netlink message sent or received (atf/pcount.c runs
 * pfiles under it), on fixtures/sockets.js with
 * N and 4N connections.  From the two runs each class of reads gets a
 * slope, per socket added, and a fixed part:
 *
 *	per socket = (calls at 4N - calls at N - grown) / sockets added
 *	fixed      = calls at N - per socket * sockets at N
 *
 * The fixture has 1 + 2N sockets (the listener, N clients, N accepted),
 * so 4N connections add 2 * 3N sockets, in the same process.
 *
 * The classes, by the path the counter names (T is the target's pid or
 * the id of one of its threads; /proc/T/task/X/... counts as /proc/T/...):
 *
 *	target memory	/proc/T/mem by any call, and every "pid:N" (ptrace
 *			PEEK and POKE, process_vm_readv and _writev: pfiles
 *			examines one process here, so any is the target's);
 *			reads and writes apart, with the pread and pwrite
 *			families of /proc/T/mem shown on rows of their own;
 *	fdinfo		/proc/T/fdinfo/N;
 *	target /proc	any other /proc/T file;
 *	other /proc	every other /proc path, pfiles' own /proc/self
 *			included (the counter names it /proc/<pfiles' pid>);
 *	other files	the rest (shown, not budgeted);
 *	netlink sent	send, sendto, sendmsg on a netlink socket (the
 *			counter names it "netlink:P", P its protocol): for
 *			--via=diag, one per dump of the kernel's tables;
 *	netlink recvd	recv, recvfrom, recvmsg on a netlink socket: the
 *			datagrams of the dumps, and a receive that failed.
 *			A dump lists every socket of the target's network
 *			namespace, not only the target's, so their number
 *			follows the namespace (both nodes are up during
 *			both runs): shown, not budgeted.
 *
 * "grown": a /proc/T file that is read whole, once, may take more calls
 * when it grows with the sockets, without being read more often (node's
 * epoll fdinfo lists every watched socket, and pfiles reads fdinfo 4 KiB
 * at a time).  For a (call, path) pair whose bytes are one pass over the
 * file (no more than half again its size, which the test reads itself
 * while the target still runs), the calls beyond the first that its
 * 4 KiB pages explain are its "one-pass pages"; the growth of a class's
 * one-pass pages from N to 4N is not charged per socket, and the table
 * shows it.  A file read once per socket has bytes of many passes and
 * earns nothing; so do files that are gone, and target memory, which is
 * charged per call, always.
 *
 * Budgets (from the issue): --via=pidfd: no target memory read or written
 * at all, at most 1 fdinfo read per socket, other /proc reads constant;
 * --via=agent: at most 1 pread and 1 pwrite of /proc/T/mem per socket
 * (and no more by any other call), fdinfo and /proc as for pidfd;
 * --via=diag: no target memory read or written, no netlink message sent
 * per socket (the same number at N and at 4N) and per process at most
 * DIAG_DUMPS_MAX, one per dump, at least one (a diag run that sends
 * nothing is a counter that does not see it), and fdinfo and /proc as
 * for pidfd (no call per socket beyond the walk's own); --via=bpf: no
 * target memory read or written, and no call per socket in any budgeted
 * class: no fdinfo read (the iterator's records hold what fdinfo says),
 * other /proc reads constant, and no netlink message at all (the node
 * fixture's sockets are connections within the process, whose other
 * ends the iterator's facts settle: no dump of the socket tables).  The iterator's own reads ("other
 * files", 32 KiB each) follow the bytes of the records, not the number
 * of calls pfiles makes per socket: shown, not budgeted.
 *
 * Each case prints its table on stdout (kyua report --verbose shows it)
 * and fails with the numbers when a budget is exceeded.  The checker,
 * budget_check(), is one function from table to verdict and message; the
 * seedlike cases run it on atf/seedlike, which reads /proc/self/mem as
 * the seed's pfiles read its target, and require that it is caught, and
 * that well-behaved counts pass.
 *
 * The counter sees only glibc's public entry points: stdio's own reads
 * and writes are not counted (pfiles reads /proc with read and pread).
 */
#include "budget_util.h"

#define	NODE_SECONDS	"120"		/* the fixture's own time limit */

static const budget_t budget_bpf = { "--via=bpf", {
	[BC_MEM_R] = { BL_ZERO, 0, 0 },
	[BC_MEM_W] = { BL_ZERO, 0, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 0, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_NL_SENT] = { BL_ZERO, 0, 0 },
} };

/*
 * Running pfiles on node, and seedlike, under the counter.
 */
typedef struct node {
	tu_child_t	nd_child;
	int		nd_conn;
} node_t;

static void
node_spawn(node_t *nd, int nconn)
{
	char count[16];
	const char *const argv[] = { "node", TU_SOCKETS_JS, count,
	    NODE_SECONDS, NULL };

	(void) snprintf(count, sizeof (count), "%d", nconn);
	nd->nd_conn = nconn;
	tu_spawn(&nd->nd_child, argv, 0);
}

/* Wait for node's two lines: every connection is up on both sides. */
static void
node_ready(node_t *nd)
{
	char *line, *want;

	if ((line = tu_read_line(nd->nd_child.tc_out, TU_TIMEOUT_MS)) ==
	    NULL)
		atf_tc_fail("node with %d connections exited before reporting "
		    "its sockets (wait status 0x%x; see stderr)", nd->nd_conn,
		    (unsigned)tu_stop(&nd->nd_child, 0));
	want = tu_asprintf("opened %d sockets, pid = %d", nd->nd_conn,
	    (int)nd->nd_child.tc_pid);
	tu_require_same_str("node-first-line", want, line);
	free(want);
	free(line);
	if ((line = tu_read_line(nd->nd_child.tc_out, TU_TIMEOUT_MS)) == NULL)
		atf_tc_fail("node wrote no report line");
	free(line);
}

static void
node_stop(node_t *nd)
{
	char state = tu_proc_state(nd->nd_child.tc_pid);
	int status;

	ATF_CHECK_MSG(state != 0 && state != 'T' && state != 't' &&
	    state != 'Z', "node (%d connections) after pfiles: state '%c'",
	    nd->nd_conn, state != 0 ? state : '-');
	status = tu_stop(&nd->nd_child, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "node (%d connections) ended with wait status 0x%x",
	    nd->nd_conn, (unsigned)status);
}

/* The target's pid and the ids of its threads now. */
static void
target_ids(pid_t pid, btarget_t *tg)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	tg->bt_n = 0;
	tg->bt_ids[tg->bt_n++] = (long)pid;
	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		atf_tc_fail("%s: %s", path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name;
		long id = take_id(&p);

		if (id < 0 || *p != '\0' || id == (long)pid)
			continue;
		if (tg->bt_n == TIDS_MAX)
			atf_tc_fail("%s: more than %d threads", path,
			    TIDS_MAX);
		tg->bt_ids[tg->bt_n++] = id;
	}
	(void) closedir(d);
}

/* The S_IFSOCK stat lines ("%4d: S_IFSOCK ...") of pfiles' output. */
static long
count_sockets(const char *text)
{
	long n = 0;

	for (const char *line = text; *line != '\0';) {
		const char *p = line, *nl = strchr(line, '\n');

		while (*p == ' ')
			p++;
		if (take_id(&p) >= 0 && strncmp(p, ": S_IFSOCK ", 11) == 0)
			n++;
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	return (n);
}

/* pfiles --via=VIA on node ND under the counter, measured into M. */
static void
measure_pfiles(const char *via, const node_t *nd, bmeasure_t *m)
{
	char pfiles[] = TU_PFILES, viaarg[32], pidstr[16], out[64], so[64];
	char *const argv[] = { pfiles, viaarg, pidstr, NULL };
	char err[512], *text, *what;
	long want = sockets_of(nd->nd_conn), got;
	struct pcount_tab t;
	btarget_t tg;

	(void) snprintf(viaarg, sizeof (viaarg), "--via=%s", via);
	(void) snprintf(pidstr, sizeof (pidstr), "%d",
	    (int)nd->nd_child.tc_pid);
	(void) snprintf(out, sizeof (out), "pcount-%s-%d.out", via,
	    nd->nd_conn);
	(void) snprintf(so, sizeof (so), "pfiles-%s-%d.out", via,
	    nd->nd_conn);
	what = tu_asprintf("pfiles %s %s (node, %d connections)", viaarg,
	    pidstr, nd->nd_conn);

	counted_run(argv, what, out, so, &t);
	text = tu_read_file(so, NULL);
	got = count_sockets(text);
	free(text);
	if (got != want)
		atf_tc_fail("%s showed %ld S_IFSOCK fds, expected %ld (see %s)",
		    what, got, want, so);
	target_ids(nd->nd_child.tc_pid, &tg);
	if (measure(&t, &tg, want, 1, m, err, sizeof (err)) != 0)
		atf_tc_fail("%s: %s", what, err);
	pcount_free(&t);
	free(what);
}

/* The budget case of one --via: two nodes, two counted runs, a verdict. */
static void
budget_case(const char *via, const budget_t *budget)
{
	btable_t bt;
	node_t nd[2];
	char msg[MSG_MAX], title[160];
	int verdict;

	node_spawn(&nd[0], NCONN);
	node_spawn(&nd[1], 4 * NCONN);
	node_ready(&nd[0]);
	node_ready(&nd[1]);
	(void) snprintf(title, sizeof (title), "pfiles --via=%s under "
	    "libpreadcount.so, node sockets.js with %d and %d connections",
	    via, NCONN, 4 * NCONN);
	bt.bt_title = title;
	bt.bt_budget = budget;
	for (int i = 0; i < 2; i++)
		measure_pfiles(via, &nd[i], &bt.bt_at[i]);
	node_stop(&nd[0]);
	node_stop(&nd[1]);

	budget_print(&bt, stdout);
	verdict = budget_check(&bt, msg, sizeof (msg));
	if (verdict != 0) {
		(void) fprintf(stderr, "%s\n", msg);
		atf_tc_fail("%s", msg);
	}
}

ATF_TC(pidfd);
ATF_TC_HEAD(pidfd, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd on node at N and "
	    "4N connections: no read or write of the target's memory, at "
	    "most one fdinfo read per socket, other /proc reads constant");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(pidfd, tc)
{
	budget_case("pidfd", &budget_pidfd);
}

ATF_TC(agent);
ATF_TC_HEAD(agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on node at N and "
	    "4N connections: at most one pread and one pwrite of "
	    "/proc/PID/mem per socket, at most one fdinfo read per socket, "
	    "other /proc reads constant");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(agent, tc)
{
	budget_case("agent", &budget_agent);
}

ATF_TC(diag);
ATF_TC_HEAD(diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag on node at N and "
	    "4N connections: no read or write of the target's memory, no "
	    "netlink message sent per socket and 1 to 16 per process (one "
	    "per dump), at most one fdinfo read per socket, other /proc "
	    "reads constant");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(diag, tc)
{
	budget_case("diag", &budget_diag);
}

ATF_TC(bpf);
ATF_TC_HEAD(bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf on node at N and "
	    "4N connections: no read or write of the target's memory, and "
	    "no call per socket: no fdinfo read, other /proc reads "
	    "constant, no netlink message (skipped where bpf cannot "
	    "serve)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(bpf, tc)
{
	tu_require_bpf();
	budget_case("bpf", &budget_bpf);
}

ATF_TC(seedlike_caught);
ATF_TC_HEAD(seedlike_caught, tc)
{
	atf_tc_set_md_var(tc, "descr", "the budget checker catches the "
	    "seed's pattern (230 preads of /proc/self/mem and 50 of "
	    "/proc/self/task/TID/status per socket) under every budget, "
	    "naming the classes and their numbers");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(seedlike_caught, tc)
{
	btable_t bt;
	char msg[MSG_MAX];

	bt.bt_title = "seedlike -a 230 -l 50 -f 0: the seed's pfiles, "
	    "per socket";
	seedlike_table(&bt, "230", "50", "0");

	ATF_REQUIRE_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget: the seed's pattern passed: %s", msg);
	require_clause(msg, &budget_pidfd, BC_MEM_R, "230.00 per socket");
	require_clause(msg, &budget_pidfd, BC_TPROC, "50.00 per socket");
	require_no_clause(msg, &budget_pidfd, BC_FDINFO);

	ATF_REQUIRE_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 1,
	    "agent budget: the seed's pattern passed: %s", msg);
	require_clause(msg, &budget_agent, BC_MEM_R, "230.00 per socket");
	require_clause(msg, &budget_agent, BC_MEM_PREAD, "230.00 per socket");
	require_clause(msg, &budget_agent, BC_TPROC, "50.00 per socket");
	require_no_clause(msg, &budget_agent, BC_MEM_W);

	ATF_REQUIRE_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 1,
	    "diag budget: the seed's pattern passed: %s", msg);
	require_clause(msg, &budget_diag, BC_MEM_R, "230.00 per socket");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pidfd);
	ATF_TP_ADD_TC(tp, agent);
	ATF_TP_ADD_TC(tp, diag);
	ATF_TP_ADD_TC(tp, bpf);
	ATF_TP_ADD_TC(tp, seedlike_caught);
	return (atf_no_error());
}

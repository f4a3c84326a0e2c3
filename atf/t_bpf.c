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
 * An unprivileged caller (uid 65534, no capabilities) may not walk a
 * root process with bpf ("permission denied"), and cannot load the
 * program for its own process, nor can it with CAP_BPF alone (bpf needs
 * root, or CAP_BPF and CAP_PERFMON): --via=bpf says why, and --via=auto,
 * which would try bpf for 2,000 fds or more, serves through pidfd.  Nor does
 * bpf serve a process whose main thread has exited (the table shown is
 * a live thread's): --via=bpf says so, and --via=auto serves through
 * pidfd.
 *
 * Every case needs the kernel's BTF and the privilege to load BPF; where
 * pfiles --via=bpf cannot serve a trivial process, the case is skipped
 * with pfiles' own reason.
 */
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
#define	MAX_PIDS	8
#define	DEBUG_ENV	"LIBPROC_DEBUG=1"
#define	TRACE_LOADED	"bpf: the iterator is loaded"
#define	TRACE_BPF	": socket facts: bpf serves"
#define	TRACE_PIDFD	": socket facts: pidfd serves"
#define	TRACE_AGENT	": socket facts: agent serves"
#define	NODE_SECONDS	"120"
/* node's fds beyond its 1 + 2N sockets (t_node's NODE_FD_SPARE) */
#define	NODE_FD_SPARE	39
#define	AUTO_BPF_FDS	500	/* auto tries bpf from this many fds */
#define	MANY_FDS	"2100"
#define	NOBODY		"65534"

/* pfiles run as uid and gid 65534, with no capability of any kind. */
#define	SETPRIV_NOBODY	"setpriv", "--reuid=" NOBODY, "--regid=" NOBODY, \
			"--clear-groups", "--inh-caps=-all",		\
			"--bounding-set=-all"

/* How many lines of text hold needle. */
static size_t
count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char *line = tu_asprintf("%.*s", (int)len, p);

		n += strstr(line, needle) != NULL;
		free(line);
		p += len + (nl != NULL);
	}
	return (n);
}

/* text without its libproc[...] trace lines (malloc'd). */
static char *
without_trace(const char *text)
{
	char *out = tu_asprintf("%s", ""), *more;

	for (const char *p = text; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p + 1) : strlen(p);

		if (strncmp(p, "libproc[", 8) != 0) {
			more = tu_asprintf("%s%.*s", out, (int)len, p);
			free(out);
			out = more;
		}
		p += len;
	}
	return (out);
}

/*
 * What a line of pfiles' output starts: a process's block (the header
 * "PID:\t..." or, with -J, {"pid":PID) or an fd's ("%4d: " or
 * {"fd":FD).  Sets *pid or *fd and returns 1, or returns 0.
 */
static int
line_starts(const char *line, int json, long *pid, long *fd)
{
	const char *p = line;
	char *end;
	long v;

	if (json) {
		if (strncmp(p, "{\"pid\":", 7) == 0) {
			*pid = strtol(p + 7, NULL, 10);
			*fd = -1;
			return (1);
		}
		if (strncmp(p, "{\"fd\":", 6) == 0) {
			*fd = strtol(p + 6, NULL, 10);
			return (1);
		}
		return (0);
	}
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return (0);
	v = strtol(p, &end, 10);
	if (p == line && end[0] == ':' && end[1] == '\t') {
		*pid = v;
		*fd = -1;
		return (1);
	}
	if (p != line && end[0] == ':' && end[1] == ' ') {
		*fd = v;
		return (1);
	}
	return (0);
}

/*
 * The block of the first differing line: the block of the last line both
 * share, unless both differing lines start a block (two fds: the lower,
 * which the other output lacks); a line that starts a block in one output
 * only is an extra line of the previous block in the other.
 */
static void
diff_block(const char *pl, const char *bl, int json, long *pid, long *fd)
{
	long ppid = *pid, pfd = *fd, bpid = *pid, bfd = *fd;

	if (!line_starts(pl, json, &ppid, &pfd) ||
	    !line_starts(bl, json, &bpid, &bfd))
		return;
	if (ppid != *pid || bpid != *pid) {
		*pid = ppid != *pid ? ppid : bpid;
		*fd = -1;
	} else {
		*fd = pfd < bfd ? pfd : bfd;
	}
}

/*
 * bpf's output must be pidfd's, byte for byte.  On a difference both are
 * saved (WHAT.pidfd, WHAT.bpf) and the test fails naming the pid and fd
 * whose block holds the first differing line, with both lines.
 */
static void
require_same_output(const char *what, int json, const tu_result_t *pidfd,
    const tu_result_t *bpf)
{
	const char *p = pidfd->tr_out, *b = bpf->tr_out;
	const char *pend = p + pidfd->tr_outlen, *bend = b + bpf->tr_outlen;
	long pid = -1, fd = -1;
	size_t lineno = 0, plen, blen;
	char *file, *pl, *bl, *where;

	if (pidfd->tr_outlen == bpf->tr_outlen &&
	    memcmp(p, b, pidfd->tr_outlen) == 0)
		return;
	file = tu_asprintf("%s.pidfd", what);
	tu_write_file(file, p, pidfd->tr_outlen);
	free(file);
	file = tu_asprintf("%s.bpf", what);
	tu_write_file(file, b, bpf->tr_outlen);
	free(file);

	for (;;) {
		const char *pn = memchr(p, '\n', (size_t)(pend - p));
		const char *bn = memchr(b, '\n', (size_t)(bend - b));

		plen = pn != NULL ? (size_t)(pn - p + 1) : (size_t)(pend - p);
		blen = bn != NULL ? (size_t)(bn - b + 1) : (size_t)(bend - b);
		lineno++;
		if (plen != blen || memcmp(p, b, plen) != 0 || p == pend)
			break;
		pl = tu_asprintf("%.*s", (int)plen, p);
		(void) line_starts(pl, json, &pid, &fd);
		free(pl);
		p += plen;
		b += blen;
	}
	pl = p < pend ? tu_asprintf("%.*s", (int)plen, p) :
	    tu_asprintf("%s", "(end of output)");
	bl = b < bend ? tu_asprintf("%.*s", (int)blen, b) :
	    tu_asprintf("%s", "(end of output)");
	bl[strcspn(bl, "\n")] = '\0';
	pl[strcspn(pl, "\n")] = '\0';
	diff_block(pl, bl, json, &pid, &fd);
	where = fd >= 0 ? tu_asprintf("pid %ld, fd %ld", pid, fd) :
	    pid >= 0 ? tu_asprintf("pid %ld, its header", pid) :
	    tu_asprintf("%s", "before any process");
	(void) fprintf(stderr, "%s: --via=bpf differs from --via=pidfd at "
	    "line %zu (%s):\n  pidfd: %s\n  bpf:   %s\n", what, lineno,
	    where, pl, bl);
	atf_tc_fail("%s: %s: bpf and pidfd differ at line %zu: pidfd "
	    "\"%s\", bpf \"%s\"", what, where, lineno, pl, bl);
}

/*
 * pfiles [-J] --via=bpf PIDS against pfiles [-J] --via=pidfd PIDS: both
 * exit 0, the same stderr, the same stdout byte for byte; the bpf run
 * traces that bpf served each pid, and loaded the program exactly once.
 * Returns bpf's stdout (malloc'd).
 */
static char *
compare_one(const char *what, int json, const char *const pids[],
    size_t npids)
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	const char *pidfd_opts[3] = { "--via=pidfd", NULL, NULL };
	const char *bpf_opts[3] = { "--via=bpf", NULL, NULL };
	tu_result_t rp, rb;
	char *err, *out;
	size_t nserved, nloaded;

	if (json) {
		pidfd_opts[1] = "-J";
		bpf_opts[1] = "-J";
	}
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = pidfd_opts, .tp_pids = pids,
	    .tp_npids = npids }, &rp);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = bpf_opts, .tp_pids = pids,
	    .tp_npids = npids, .tp_env = env }, &rb);
	tu_require_exit("pfiles --via=pidfd", &rp, 0);
	tu_require_exit("pfiles --via=bpf", &rb, 0);

	nserved = count_lines_with(rb.tr_err, TRACE_BPF);
	nloaded = count_lines_with(rb.tr_err, TRACE_LOADED);
	if (nserved != npids || nloaded != 1)
		(void) fprintf(stderr, "%s: pfiles --via=bpf stderr:\n%s",
		    what, rb.tr_err);
	ATF_REQUIRE_EQ_MSG(nserved, npids, "%s: bpf served %zu of %zu "
	    "pids (the trace is on stderr)", what, nserved, npids);
	ATF_REQUIRE_EQ_MSG(nloaded, 1, "%s: \"" TRACE_LOADED "\" traced %zu "
	    "times in one run of %zu pids", what, nloaded, npids);

	require_same_output(what, json, &rp, &rb);
	err = without_trace(rb.tr_err);
	out = tu_asprintf("%s.stderr", what);
	tu_require_same_str(out, rp.tr_err, err);
	free(out);
	free(err);
	out = rb.tr_out;
	rb.tr_out = NULL;
	tu_result_free(&rp);
	tu_result_free(&rb);
	return (out);
}

/* The text and the -J comparisons; returns bpf's text (malloc'd). */
static char *
compare_vias(const char *what, const char *const pids[], size_t npids)
{
	char *text, *w;

	w = tu_asprintf("%s.json", what);
	free(compare_one(w, 1, pids, npids));
	free(w);
	text = compare_one(what, 0, pids, npids);
	ATF_REQUIRE_MSG(strlen(text) > 0, "%s: pfiles printed nothing",
	    what);
	return (text);
}

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

/* The value after "key " in the helper's lines. */
static long
said(const char *text, const char *key)
{
	char *pat = tu_asprintf("%s ", key);
	const char *p = text;

	for (;;) {
		if (strncmp(p, pat, strlen(pat)) == 0)
			break;
		if ((p = strchr(p, '\n')) == NULL)
			atf_tc_fail("the helper did not say \"%s\": %s", key,
			    text);
		p++;
	}
	p += strlen(pat);
	free(pat);
	return (strtol(p, NULL, 10));
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

/*
 * The helper started with argv, once it has said "ready": what it said
 * until then, for the caller to free.  The case fails, with the
 * helper's stderr, if it never says it.
 */
static char *
spawn_ready(tu_child_t *c, const char *const argv[])
{
	char *text;
	int found;

	tu_spawn(c, argv, TU_STDERR_PIPE);
	text = tu_read_until(c->tc_out, "ready", TU_TIMEOUT_MS, &found);
	if (!found) {
		char *msg = tu_read_until(c->tc_err, NULL, 5000, NULL);

		(void) fprintf(stderr, "helper's stderr:\n%s\n", msg);
		atf_tc_fail("the helper did not get ready: %s", msg);
	}
	return (text);
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
		const char *const sargv[] = { "strace", "-f", "-qq", "-o",
		    "strace.log", "-e", "trace=pidfd_getfd", TU_PFILES,
		    "--via=bpf", spid[0], spid[1], NULL };
		static const char *const env[] = {
		    "ASAN_OPTIONS=detect_leaks=0", NULL };
		char *log;

		tu_run(sargv, env, TU_TIMEOUT_MS, &r);
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

ATF_TC(unpriv_root_target);
ATF_TC_HEAD(unpriv_root_target, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf run as uid 65534 "
	    "with no capability, on a root process: \"permission denied\", "
	    "exit 1, nothing on stdout (root's pfiles --via=bpf serves the "
	    "same process)");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(unpriv_root_target, tc)
{
	static const char *const nobody[] = { SETPRIV_NOBODY, NULL };
	static const char *const via_bpf[] = { "--via=bpf", NULL };
	static const char *const via_auto[] = { "--via=auto", NULL };
	fixture_t fx;
	const char *pids[1];
	tu_result_t r;
	char *want;

	tu_require_bpf();
	fx_start_set(&fx, "tcp,unix,pipe", NULL, NULL);
	pids[0] = fx.fx_pid;
	want = tu_asprintf("pfiles: cannot examine %s: permission denied\n",
	    fx.fx_pid);

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_bpf,
	    .tp_pids = pids, .tp_npids = 1 }, &r);
	tu_require_exit("setpriv pfiles --via=bpf", &r, 1);
	tu_require_same_str("nobody-bpf.stderr", want, r.tr_err);
	ATF_REQUIRE_EQ_MSG(r.tr_outlen, 0, "pfiles printed on stdout: %s",
	    r.tr_out);
	tu_result_free(&r);

	/* auto: no source may read it either. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_auto,
	    .tp_pids = pids, .tp_npids = 1 }, &r);
	tu_require_exit("setpriv pfiles --via=auto", &r, 1);
	tu_require_same_str("nobody-auto.stderr", want, r.tr_err);
	ATF_REQUIRE_EQ_MSG(r.tr_outlen, 0, "pfiles printed on stdout: %s",
	    r.tr_out);
	tu_result_free(&r);
	free(want);

	/* The refusal is the caller's: root's bpf serves the process. */
	free(compare_vias("root-bpf", pids, 1));
	fx_stop(&fx);
}

/*
 * The helper, run as uid 65534 with no capability, with MANY_FDS fds;
 * pfiles run as uid 65534 through nobody (a setpriv), privileged short of
 * what bpf needs.  --via=bpf: refused (exit 1), one line whose reason
 * names what bpf needs; --via=auto: bpf tried, pidfd serves, the output
 * of --via=pidfd; root's --via=bpf: the same output.
 */
static void
own_process_refused(const char *const nobody[])
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	static const char *const via_bpf[] = { "--via=bpf", NULL };
	static const char *const via_auto[] = { "--via=auto", NULL };
	static const char *const via_pidfd[] = { "--via=pidfd", NULL };
	const char *const argv[] = { SETPRIV_NOBODY, HELPER,
	    FIXTURE_SECONDS, "many", MANY_FDS, NULL };
	char pid[16], *said_text, *want, *path, *status_text, *text, *note;
	const char *pids[1] = { pid }, *pids2[2];
	tu_result_t rp, ra, rb;
	struct rlimit rl;
	tu_child_t c;
	long count;
	int status;

	tu_require_bpf();
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (rlim_t)atoi(MANY_FDS) + 16)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu: no room for "
		    MANY_FDS " fds", (unsigned long long)rl.rlim_max);

	/* setpriv execs the helper: the child is the helper. */
	said_text = spawn_ready(&c, argv);
	count = said(said_text, "count");
	free(said_text);
	ATF_REQUIRE_MSG(count >= AUTO_BPF_FDS, "the helper has %ld fds, "
	    "fewer than %d", count, AUTO_BPF_FDS);
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);
	path = tu_asprintf("/proc/%s/status", pid);
	status_text = tu_read_file(path, NULL);
	ATF_REQUIRE_MSG(strstr(status_text, "\nUid:\t" NOBODY "\t" NOBODY
	    "\t" NOBODY "\t" NOBODY "\n") != NULL, "the helper does not "
	    "run as " NOBODY ":\n%s", status_text);
	free(status_text);
	free(path);

	/* bpf itself: refused, with the privilege it lacks. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_bpf,
	    .tp_pids = pids, .tp_npids = 1 }, &rb);
	tu_require_exit("setpriv pfiles --via=bpf", &rb, 1);
	ATF_REQUIRE_EQ_MSG(rb.tr_outlen, 0, "pfiles --via=bpf printed on "
	    "stdout: %.200s", rb.tr_out);
	want = tu_asprintf("pfiles: cannot examine %s: bpf: ", pid);
	ATF_REQUIRE_MSG(strncmp(rb.tr_err, want, strlen(want)) == 0 &&
	    count_lines_with(rb.tr_err, "") == 1, "pfiles --via=bpf's "
	    "stderr is not one line \"%s...\": %s", want, rb.tr_err);
	ATF_REQUIRE_MSG(strstr(rb.tr_err, "CAP_BPF") != NULL &&
	    strstr(rb.tr_err, "CAP_PERFMON") != NULL &&
	    strstr(rb.tr_err, "root") != NULL, "the reason does not name "
	    "the privilege bpf needs: %.*s", (int)strcspn(rb.tr_err, "\n"),
	    rb.tr_err);
	/* auto says that reason, once, of the process it was found at */
	note = tu_asprintf("pfiles: %s: the fast path (bpf) is not "
	    "available: %s", pid, rb.tr_err + strlen(want));
	free(want);
	tu_result_free(&rb);

	/* Its owner's pfiles: pidfd serves; auto too, bpf refused first. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody,
	    .tp_opts = via_pidfd, .tp_pids = pids, .tp_npids = 1 }, &rp);
	tu_require_exit("setpriv pfiles --via=pidfd", &rp, 0);
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_auto,
	    .tp_pids = pids, .tp_npids = 1, .tp_env = env }, &ra);
	tu_require_exit("setpriv pfiles --via=auto", &ra, 0);
	require_same_output("nobody-auto", 0, &rp, &ra);
	ATF_CHECK_MSG(count_lines_with(ra.tr_err, ": socket facts: bpf: ") ==
	    1 && count_lines_with(ra.tr_err, TRACE_PIDFD) == 1 &&
	    count_lines_with(ra.tr_err, TRACE_BPF) == 0, "auto did not try "
	    "bpf, then take pidfd:\n%s", ra.tr_err);
	text = without_trace(ra.tr_err);
	tu_require_same_str("nobody-auto.stderr", note, text);
	free(text);
	ATF_REQUIRE_MSG(count_lines_with(rp.tr_out, ": S_IFSOCK ") >= 2000,
	    "%zu sockets shown", count_lines_with(rp.tr_out, ": S_IFSOCK "));
	tu_result_free(&ra);

	/* Two processes (the same one twice): said once a run. */
	pids2[0] = pids2[1] = pid;
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody, .tp_opts = via_auto,
	    .tp_pids = pids2, .tp_npids = 2 }, &ra);
	tu_require_exit("setpriv pfiles --via=auto PID PID", &ra, 0);
	tu_require_same_str("nobody-auto-twice.stderr", note, ra.tr_err);
	tu_result_free(&ra);
	free(note);

	/* Root's bpf on the same process prints what its owner's pidfd did. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_bpf, .tp_pids = pids,
	    .tp_npids = 1 }, &rb);
	tu_require_exit("pfiles --via=bpf", &rb, 0);
	require_same_output("root-bpf", 0, &rp, &rb);
	tu_result_free(&rb);
	tu_result_free(&rp);

	status = tu_stop(&c, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper ended with wait status 0x%x", (unsigned)status);
}

ATF_TC(unpriv_own_process);
ATF_TC_HEAD(unpriv_own_process, tc)
{
	atf_tc_set_md_var(tc, "descr", "uid 65534 with no capability, on "
	    "its own process of " MANY_FDS " fds: --via=bpf is refused "
	    "(exit 1) with a reason naming the privilege it lacks, and "
	    "--via=auto, which tries bpf first at that many fds, serves "
	    "through pidfd: exit 0, the output of --via=pidfd, and on "
	    "stderr one line, once a run, that the fast path is not "
	    "available, with --via=bpf's reason");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(unpriv_own_process, tc)
{
	static const char *const nobody[] = { SETPRIV_NOBODY, NULL };

	own_process_refused(nobody);
}

ATF_TC(bpf_cap_only);
ATF_TC_HEAD(bpf_cap_only, tc)
{
	atf_tc_set_md_var(tc, "descr", "uid 65534 with CAP_BPF but not "
	    "CAP_PERFMON, on its own process of " MANY_FDS " fds: --via=bpf "
	    "is refused (exit 1) with a reason naming what bpf needs (root, "
	    "or CAP_BPF and CAP_PERFMON), and --via=auto serves through "
	    "pidfd: exit 0, the output of --via=pidfd, and one line that "
	    "the fast path is not available, with that reason");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(bpf_cap_only, tc)
{
	static const char *const bpf_only[] = { "setpriv",
	    "--reuid=" NOBODY, "--regid=" NOBODY, "--clear-groups",
	    "--inh-caps=-all,+bpf", "--ambient-caps=+bpf",
	    "--bounding-set=-all,+bpf", NULL };
	static const char *const capeff[] = { "setpriv", "--reuid=" NOBODY,
	    "--regid=" NOBODY, "--clear-groups", "--inh-caps=-all,+bpf",
	    "--ambient-caps=+bpf", "--bounding-set=-all,+bpf", "grep",
	    "^CapEff:", "/proc/self/status", NULL };
	tu_result_t r;

	/* What pfiles will hold: CAP_BPF (39) alone. */
	tu_run(capeff, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_skip("setpriv cannot give an ambient CAP_BPF here: %s",
		    r.tr_err);
	tu_require_same_str("capeff", "CapEff:\t0000008000000000\n",
	    r.tr_out);
	tu_result_free(&r);
	own_process_refused(bpf_only);
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

ATF_TC(main_thread_exited);
ATF_TC_HEAD(main_thread_exited, tc)
{
	atf_tc_set_md_var(tc, "descr", "a process of " MANY_FDS " fds whose "
	    "main thread has exited (pthread_exit) while another thread "
	    "lives: --via=bpf is refused (exit 1, \"the process's main "
	    "thread has exited\", nothing on stdout), and --via=auto, which "
	    "tries bpf first at that many fds, serves through pidfd (the "
	    "agent on a kernel without pidfds of threads, before 6.9): exit "
	    "0, that source's output, the live thread's fds, and one line "
	    "that the fast path is not available, and why");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(main_thread_exited, tc)
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	static const char *const via_bpf[] = { "--via=bpf", NULL };
	static const char *const via_auto[] = { "--via=auto", NULL };
	static const char *const via_pidfd[] = { "--via=pidfd", NULL };
	static const char *const via_agent[] = { "--via=agent", NULL };
	/* pidfd reaches a thread's files through a pidfd of it (6.9) */
	int thread_pidfd = tu_have_thread_pidfd();
	const char *const *via_ref = thread_pidfd ? via_pidfd : via_agent;
	const char *trace_ref = thread_pidfd ? TRACE_PIDFD : TRACE_AGENT;
	const char *const argv[] = { HELPER, FIXTURE_SECONDS, "leaderless",
	    MANY_FDS, NULL };
	char pid[16], path[64], *said_text, *want, *text;
	const char *pids[1] = { pid };
	tu_result_t rp, ra, rb;
	struct rlimit rl;
	tu_child_t c;
	long count, tid;
	char state = 0;
	int status;

	tu_require_bpf();
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < (rlim_t)atoi(MANY_FDS) + 16)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu: no room for "
		    MANY_FDS " fds", (unsigned long long)rl.rlim_max);

	said_text = spawn_ready(&c, argv);
	tid = said(said_text, "tid");
	count = said(said_text, "count");
	free(said_text);
	ATF_REQUIRE_MSG(tid != (long)c.tc_pid, "the live thread is the "
	    "leader (%ld)", tid);
	ATF_REQUIRE_MSG(count >= AUTO_BPF_FDS, "the helper has %ld fds, "
	    "fewer than %d", count, AUTO_BPF_FDS);
	/* The thread has joined the leader; its exit ends as a zombie. */
	state = tu_wait_state(c.tc_pid, 'Z', 10000);
	ATF_REQUIRE_EQ_MSG(state, 'Z', "the leader is in state %c, not Z",
	    state);
	(void) snprintf(path, sizeof (path), "/proc/%d/task/%ld",
	    (int)c.tc_pid, tid);
	ATF_REQUIRE_MSG(access(path, F_OK) == 0, "%s: %s", path,
	    strerror(errno));
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);

	/* bpf: refused, saying why. */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_bpf, .tp_pids = pids,
	    .tp_npids = 1 }, &rb);
	tu_require_exit("pfiles --via=bpf", &rb, 1);
	ATF_REQUIRE_EQ_MSG(rb.tr_outlen, 0, "pfiles --via=bpf printed on "
	    "stdout: %.200s", rb.tr_out);
	want = tu_asprintf("pfiles: cannot examine %s: bpf: the process's "
	    "main thread has exited\n", pid);
	tu_require_same_str("bpf.stderr", want, rb.tr_err);
	free(want);
	tu_result_free(&rb);

	/*
	 * auto: bpf tried and refused, pidfd serves (or, without pidfds of
	 * threads, the agent); that source's output.
	 */
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_ref, .tp_pids = pids,
	    .tp_npids = 1 }, &rp);
	tu_require_exit(via_ref[0], &rp, 0);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = via_auto, .tp_pids = pids,
	    .tp_npids = 1, .tp_env = env }, &ra);
	tu_require_exit("pfiles --via=auto", &ra, 0);
	require_same_output("leaderless-auto", 0, &rp, &ra);
	ATF_CHECK_MSG(count_lines_with(ra.tr_err, ": socket facts: bpf: the "
	    "process's main thread has exited") == 1 &&
	    count_lines_with(ra.tr_err, trace_ref) == 1 &&
	    count_lines_with(ra.tr_err, TRACE_BPF) == 0, "auto did not try "
	    "bpf, then take %s:\n%s", via_ref[0], ra.tr_err);
	text = without_trace(ra.tr_err);
	want = tu_asprintf("pfiles: %s: the fast path (bpf) is not "
	    "available: the process's main thread has exited\n", pid);
	tu_require_same_str("leaderless-auto.stderr", want, text);
	free(want);
	free(text);
	/* The live thread's table: its sockets, every fd of it. */
	ATF_CHECK_MSG(count_lines_with(rp.tr_out, ": S_IFSOCK ") >= 2000,
	    "%zu sockets shown", count_lines_with(rp.tr_out, ": S_IFSOCK "));
	ATF_CHECK_EQ_MSG((long)count_lines_with(rp.tr_out, ": S_IF"), count,
	    "%zu fds shown, the thread has %ld",
	    count_lines_with(rp.tr_out, ": S_IF"), count);
	tu_result_free(&ra);
	tu_result_free(&rp);

	status = tu_stop(&c, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the helper ended with wait status 0x%x", (unsigned)status);
}

/*
 * The records the program gives of the fds of this process listed in
 * want[], each parsed again from a copy of its bytes that it owns.
 */
#define	CHECK_FDS	4

typedef struct own_recs {
	int		or_fd[CHECK_FDS];
	uint8_t		or_raw[CHECK_FDS][BPFREC_RECSIZE_MAX];
	bpfrec_t	or_rec[CHECK_FDS];
	int		or_have[CHECK_FDS];
} own_recs_t;

static int
own_rec(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	own_recs_t *o = arg;

	for (int i = 0; i < CHECK_FDS; i++) {
		if (o->or_fd[i] != br->br_fd || rawlen > BPFREC_RECSIZE_MAX)
			continue;
		memcpy(o->or_raw[i], raw, rawlen);
		o->or_have[i] = bpfrec_parse(o->or_raw[i], rawlen,
		    &o->or_rec[i]) == (ssize_t)rawlen;
	}
	return (0);
}

/* The check of one record, which must find fact (NULL: no difference). */
static void
check_says(const char *what, const bpfrec_t *br, int fd, unsigned int hz,
    const char *fact)
{
	char got[128] = "";
	int r = bpf_check_record(br, fd, hz, got, sizeof (got));

	if (fact == NULL)
		ATF_CHECK_MSG(r == 0, "%s: the check found a difference: %s",
		    what, got);
	else
		ATF_CHECK_MSG(r == 1 && strcmp(got, fact) == 0, "%s: the "
		    "check said %d, \"%s\", not \"%s\"", what, r, got, fact);
}

ATF_TC(check_names_the_fact);
ATF_TC_HEAD(check_names_the_fact, tc)
{
	atf_tc_set_md_var(tc, "descr", "The bpf source's check at every "
	    "load: the program's records of a unix socket with SO_PASSCRED "
	    "(and its peer), a TCP listener with TCP_NODELAY and a pipe of "
	    "the test's own are found the same as the kernel's calls; each "
	    "record with one fact changed (SO_PASSCRED, SO_PEERCRED's pid, "
	    "SO_SNDBUF, TCP_NODELAY, SO_LINGER, the name's port, the mode, "
	    "the size, the path) is found different, naming that fact");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(check_names_the_fact, tc)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof (sin);
	char why[256];
	uint8_t name[BPFREC_ADDR_MAX];
	own_recs_t *o = calloc(1, sizeof (*o));
	bpf_pfiles_t *bp;
	bpfrec_t br;
	unsigned int hz;
	int sv[2], pfd[2], l, one = 1;

	tu_require_bpf();
	ATF_REQUIRE(o != NULL);
	ATF_REQUIRE((bp = bpf_pfiles_open(why, sizeof (why))) != NULL);
	hz = bpf_pfiles_hz(bp);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one,
	    sizeof (one)) == 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((l = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(setsockopt(l, IPPROTO_TCP, TCP_NODELAY, &one,
	    sizeof (one)) == 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(listen(l, 1) == 0);
	ATF_REQUIRE(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	ATF_REQUIRE(pipe(pfd) == 0);
	o->or_fd[0] = sv[0];
	o->or_fd[1] = sv[1];
	o->or_fd[2] = l;
	o->or_fd[3] = pfd[0];
	ATF_REQUIRE_EQ_MSG(bpf_pfiles_iter(bp, getpid(), own_rec, o, why,
	    sizeof (why)), 0, "%s", why);
	for (int i = 0; i < CHECK_FDS; i++)
		ATF_REQUIRE_MSG(o->or_have[i], "no record of fd %d",
		    o->or_fd[i]);

	/* As the kernel gives them: the same. */
	for (int i = 0; i < CHECK_FDS; i++)
		check_says("as given", &o->or_rec[i], o->or_fd[i], hz, NULL);

	/* One fact changed each. */
	br = o->or_rec[0];
	br.br_bools ^= PR_SO_PASSCRED;
	check_says("unix, SO_PASSCRED", &br, sv[0], hz, "SO_PASSCRED");
	br = o->or_rec[1];
	br.br_peer_pid++;
	check_says("unix peer, pid", &br, sv[1], hz, "SO_PEERCRED");
	br = o->or_rec[2];
	br.br_sndbuf += 2;
	check_says("tcp, SO_SNDBUF", &br, l, hz, "SO_SNDBUF");
	br = o->or_rec[2];
	br.br_bools ^= PR_TCP_NODELAY;
	check_says("tcp, TCP_NODELAY", &br, l, hz, "TCP_NODELAY");
	br = o->or_rec[2];
	br.br_linger_on = 1;
	check_says("tcp, SO_LINGER", &br, l, hz, "SO_LINGER");
	br = o->or_rec[2];
	ATF_REQUIRE(br.br_sockname.ba_len <= sizeof (name) &&
	    br.br_sockname.ba_len >= 4);
	memcpy(name, br.br_sockname.ba_data, br.br_sockname.ba_len);
	name[3] ^= 1;			/* sin_port's low byte */
	br.br_sockname.ba_data = name;
	check_says("tcp, sockname", &br, l, hz, "sockname");
	br = o->or_rec[3];
	br.br_mode ^= 0200;
	check_says("pipe, mode", &br, pfd[0], hz,
	    "st_mode, st_ino, st_nlink or st_size");
	br = o->or_rec[3];
	br.br_size++;
	check_says("pipe, size", &br, pfd[0], hz,
	    "st_mode, st_ino, st_nlink or st_size");
	br = o->or_rec[3];
	br.br_path_len--;
	check_says("pipe, path", &br, pfd[0], hz, "the path");

	bpf_pfiles_close(bp);
	(void) close(sv[0]);
	(void) close(sv[1]);
	(void) close(l);
	(void) close(pfd[0]);
	(void) close(pfd[1]);
	free(o);
}

/* The cases of SET_TC, in fixture.h's order. */
#define	ADD_SET_TC(set, kinds, flags)	ATF_TP_ADD_TC(tp, set_ ## set);

ATF_TP_ADD_TCS(tp)
{
	FX_SETS(ADD_SET_TC)
	FX_NAMED_SETS(ADD_SET_TC)
	ATF_TP_ADD_TC(tp, node_100);
	ATF_TP_ADD_TC(tp, node_2000);
	ATF_TP_ADD_TC(tp, netns_pidns);
	ATF_TP_ADD_TC(tp, unpriv_root_target);
	ATF_TP_ADD_TC(tp, unpriv_own_process);
	ATF_TP_ADD_TC(tp, bpf_cap_only);
	ATF_TP_ADD_TC(tp, one_load);
	ATF_TP_ADD_TC(tp, thread_own_table);
	ATF_TP_ADD_TC(tp, check_names_the_fact);
	ATF_TP_ADD_TC(tp, main_thread_exited);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_machine: pfiles over many processes at once (pfiles /proc/ *), whose
 * handles share what is the machine's (Pshare: the holders of every
 * socket, the socket tables, the bpf source's one pass).
 *
 * The fixture is fixtures/machine: a parent listening on loopback and
 * children, each with socket pairs and one connection to the parent,
 * whose manifest says which fd holds which end (its own view: the fds
 * socketpair, socket and accept gave it).
 *   - many_is_each_SRC: pfiles --via=SRC on every process of the fixture
 *     at once (half of them as /proc/PID) prints, byte for byte, what one
 *     run per pid prints; and its endpoint lines are the manifest's: each
 *     child's connection names the parent's accepted fd, each accepted fd
 *     the child's, each end of a pair the other; and its state lines what
 *     the fixture did: the listener made with listen(fd, CHILDREN) has
 *     every connection accepted, each connection's pid was read, the
 *     pairs carry nothing; no socket is held at two fds.
 *   - links_linear_SRC: the fd links pfiles reads (readlink, statx of
 *     /proc/PID/fd/N, counted in strace -f -y's log) over N children
 *     grow by a bound per child that does not depend on the machine:
 *     one pass over every fd table per run, not per process.  Without the
 *     shared index each child costs every fd of the machine (hundreds).
 *   - many_is_each_bpf_bounded: the same with bpf's bound on the records
 *     a pass keeps (LIBPROC_BPF_KEEP) so small that the run takes
 *     several passes, and the parent streams a pass of its own.
 *   - json_many: -J over many pids is one document, one object per pid.
 */
#include <atf-c.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define	MACHINE		BUILD_DIR "/machine"
#define	COMM		"mtest"
#define	NCHILD_MAX	64
#define	NPAIR		3
#define	MANY_CHILDREN	12	/* many_is_each's */

typedef struct mchild {
	int		mc_pid;
	int		mc_tcp;		/* its connected socket */
	int		mc_acc;		/* the parent's accepted one */
	int		mc_pairs[NPAIR][2];
	int		mc_npairs;
} mchild_t;

typedef struct mfix {
	tu_child_t	mf_proc;
	int		mf_parent;
	int		mf_listen;
	mchild_t	mf_child[NCHILD_MAX];
	int		mf_n;
} mfix_t;

static mchild_t *
child_of(mfix_t *m, int pid)
{
	for (int i = 0; i < m->mf_n; i++)
		if (m->mf_child[i].mc_pid == pid)
			return (&m->mf_child[i]);
	return (NULL);
}

/* The fixture with n children, and its manifest read. */
static void
machine_start(mfix_t *m, int n)
{
	char nbuf[16], pbuf[16];
	const char *argv[] = { MACHINE, "-n", nbuf, "-p", pbuf, "-t", "120",
	    "-c", COMM, NULL };
	char *text, *line, *save = NULL;
	int found, version = 0;

	memset(m, 0, sizeof (*m));
	(void) snprintf(nbuf, sizeof (nbuf), "%d", n);
	(void) snprintf(pbuf, sizeof (pbuf), "%d", NPAIR);
	tu_spawn(&m->mf_proc, argv, TU_STDERR_NULL);
	text = tu_read_until(m->mf_proc.tc_out, "end", TU_TIMEOUT_MS, &found);
	ATF_REQUIRE_MSG(found, "machine ended before its manifest's end");
	/* Pairs come first, from the children; the rest from the parent. */
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		int a, b, c;
		mchild_t *mc;

		if (sscanf(line, "machine %d", &a) == 1) {
			version = a;
		} else if (sscanf(line, "parent %d %d", &a, &b) == 2) {
			m->mf_parent = a;
			m->mf_listen = b;
		} else if (sscanf(line, "child %d %d %d", &a, &b, &c) == 3) {
			ATF_REQUIRE(m->mf_n < NCHILD_MAX);
			mc = child_of(m, a);
			if (mc == NULL) {
				mc = &m->mf_child[m->mf_n++];
				mc->mc_pid = a;
			}
			mc->mc_tcp = b;
			mc->mc_acc = c;
		} else if (sscanf(line, "pair %d %d %d", &a, &b, &c) == 3) {
			if ((mc = child_of(m, a)) == NULL) {
				ATF_REQUIRE(m->mf_n < NCHILD_MAX);
				mc = &m->mf_child[m->mf_n++];
				mc->mc_pid = a;
			}
			ATF_REQUIRE(mc->mc_npairs < NPAIR);
			mc->mc_pairs[mc->mc_npairs][0] = b;
			mc->mc_pairs[mc->mc_npairs++][1] = c;
		} else {
			atf_tc_fail("machine: unknown manifest line: %s", line);
		}
	}
	free(text);
	ATF_REQUIRE_EQ_MSG(version, 1, "machine: manifest version %d",
	    version);
	ATF_REQUIRE_EQ(m->mf_n, n);
	for (int i = 0; i < n; i++)
		ATF_REQUIRE_MSG(m->mf_child[i].mc_npairs == NPAIR &&
		    m->mf_child[i].mc_tcp > 0, "child %d: incomplete manifest",
		    m->mf_child[i].mc_pid);
}

static void
machine_stop(mfix_t *m)
{
	int st = tu_stop(&m->mf_proc, TU_TIMEOUT_MS);

	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "machine: wait status 0x%x", (unsigned)st);
}

/*
 * pfiles OPT ARGS... (nargs of them), with env (NULL-ended, or NULL): its
 * stdout, exit 0 required; its stderr into *errp when not NULL.
 */
static char *
pfiles_env(const char *opt, char **args, int nargs, const char *const env[],
    char **errp)
{
	const char *const opts[] = { opt, NULL };
	tu_result_t r;
	char *out;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = opts,
	    .tp_pids = (const char *const *)args, .tp_npids = (size_t)nargs,
	    .tp_env = env, .tp_timeout_ms = TU_TIMEOUT_MS * 2 }, &r);
	tu_require_exit("pfiles", &r, 0);
	out = r.tr_out;
	r.tr_out = NULL;
	if (errp != NULL) {
		*errp = r.tr_err;
		r.tr_err = NULL;
	}
	tu_result_free(&r);
	return (out);
}

static char *
pfiles_on(const char *opt, char **args, int nargs)
{
	return (pfiles_env(opt, args, nargs, NULL, NULL));
}

/* The block of process pid in pfiles' output over many (malloc'd). */
static char *
proc_block(const char *out, int pid)
{
	char head[24], *b, *next;
	const char *p;
	size_t hl;

	hl = (size_t)snprintf(head, sizeof (head), "%d:\t", pid);
	for (p = out; p != NULL; p = strchr(p, '\n') != NULL ?
	    strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, head, hl) == 0)
			break;
	}
	ATF_REQUIRE_MSG(p != NULL && *p != '\0', "no block of pid %d", pid);
	b = strdup(p);
	ATF_REQUIRE(b != NULL);
	/* Up to the next header: a line of digits, ":", TAB. */
	for (next = strchr(b, '\n'); next != NULL; next = strchr(next + 1,
	    '\n')) {
		const char *q = next + 1;

		while (isdigit((unsigned char)*q))
			q++;
		if (q > next + 1 && q[0] == ':' && q[1] == '\t') {
			next[1] = '\0';
			break;
		}
	}
	return (b);
}

/* Does fd's block of process pid hold the line want (malloc'd, freed)? */
static void
require_line(const char *out, int pid, int fd, char *want)
{
	char *b = proc_block(out, pid), *fb = tu_fd_block(b, fd);

	ATF_REQUIRE_MSG(fb != NULL, "pid %d: no fd %d", pid, fd);
	ATF_CHECK_MSG(strstr(fb, want) != NULL, "pid %d fd %d: no line "
	    "\"%.*s\" in:\n%s", pid, fd, (int)strlen(want) - 1, want, fb);
	free(want);
	free(fb);
	free(b);
}

/* Does fd's block of process pid hold the endpoint line of holder? */
static void
require_endpoint(const char *out, int pid, int fd, int hpid, int hfd)
{
	require_line(out, pid, fd, tu_asprintf("\tendpoint: " COMM
	    "[%d] fd %d\n", hpid, hfd));
}

#define	STATE_TCP	"\tstate: ESTABLISHED  queued: 0 to read, 0 to send\n"
#define	STATE_PAIR	"\tstate: CONNECTED  queued: 0 to read, 0 to send\n"

/*
 * The state lines of what the fixture did: its listener, made with
 * listen(fd, n) (n below net.core.somaxconn), has accepted every
 * connection; each connection's pid was sent and read; the pairs carry
 * nothing.  No socket is held at two fds.
 */
static void
require_states(const char *out, const mfix_t *m, int n)
{
	require_line(out, m->mf_parent, m->mf_listen, tu_asprintf("\tstate: "
	    "LISTEN  backlog: 0 of %d\n", n));
	for (int i = 0; i < m->mf_n; i++) {
		const mchild_t *c = &m->mf_child[i];

		require_line(out, c->mc_pid, c->mc_tcp, tu_asprintf(STATE_TCP));
		require_line(out, m->mf_parent, c->mc_acc, tu_asprintf(STATE_TCP));
		for (int k = 0; k < c->mc_npairs; k++) {
			require_line(out, c->mc_pid, c->mc_pairs[k][0],
			    tu_asprintf(STATE_PAIR));
			require_line(out, c->mc_pid, c->mc_pairs[k][1],
			    tu_asprintf(STATE_PAIR));
		}
	}
	ATF_CHECK_MSG(strstr(out, "\tshared with: ") == NULL, "a socket of "
	    "the fixture is shared: %s", strstr(out, "\tshared with: "));
}

/*
 * bound: with bpf, LIBPROC_BPF_KEEP so small that the parent's records
 * alone pass it (it streams a pass of its own) and each child's window
 * is one or two: several passes, each said in the trace.
 */
static void
many_is_each(const char *via, int bound)
{
	static const char *const env[] = { "LIBPROC_BPF_KEEP=6000",
	    "LIBPROC_DEBUG=1", NULL };
	char opt[32], *args[NCHILD_MAX + 1], *all, *each, *err = NULL;
	mfix_t m;
	int n;

	(void) snprintf(opt, sizeof (opt), "--via=%s", via);
	machine_start(&m, MANY_CHILDREN);
	n = 0;
	args[n++] = tu_asprintf("%d", m.mf_parent);
	for (int i = 0; i < m.mf_n; i++)
		args[n++] = (i % 2) ? tu_asprintf("/proc/%d",
		    m.mf_child[i].mc_pid) : tu_asprintf("%d",
		    m.mf_child[i].mc_pid);
	all = pfiles_env(opt, args, n, bound ? env : NULL, &err);
	if (bound)
		ATF_CHECK_MSG(strstr(err, "(the run's pass 3)") != NULL,
		    "fewer than 3 passes under LIBPROC_BPF_KEEP=6000:\n%s",
		    err);
	free(err);
	each = tu_asprintf("%s", "");
	for (int i = 0; i < n; i++) {
		char *one = pfiles_on(opt, &args[i], 1), *cat;

		cat = tu_asprintf("%s%s", each, one);
		free(each);
		free(one);
		each = cat;
	}
	tu_require_same_str("many_vs_each", each, all);

	/* The endpoints, as the fixture made them. */
	for (int i = 0; i < m.mf_n; i++) {
		const mchild_t *c = &m.mf_child[i];

		require_endpoint(all, c->mc_pid, c->mc_tcp, m.mf_parent,
		    c->mc_acc);
		require_endpoint(all, m.mf_parent, c->mc_acc, c->mc_pid,
		    c->mc_tcp);
		for (int k = 0; k < c->mc_npairs; k++) {
			require_endpoint(all, c->mc_pid, c->mc_pairs[k][0],
			    c->mc_pid, c->mc_pairs[k][1]);
			require_endpoint(all, c->mc_pid, c->mc_pairs[k][1],
			    c->mc_pid, c->mc_pairs[k][0]);
		}
	}
	require_states(all, &m, MANY_CHILDREN);
	machine_stop(&m);
	for (int i = 0; i < n; i++)
		free(args[i]);
	free(all);
	free(each);
}

#define	MANY_CASE(src, extra)						\
ATF_TC(many_is_each_##src);						\
ATF_TC_HEAD(many_is_each_##src, tc)					\
{									\
	atf_tc_set_md_var(tc, "descr", "pfiles --via=" #src " on many "	\
	    "pids at once prints what one run per pid prints, and the "	\
	    "fixture's endpoints");					\
	tu_timeout(tc, 240);						\
}									\
ATF_TC_BODY(many_is_each_##src, tc)					\
{									\
	extra;								\
	many_is_each(#src, 0);						\
}

MANY_CASE(pidfd, (void)0)
MANY_CASE(diag, (void)0)
MANY_CASE(agent, (void)0)
MANY_CASE(bpf, tu_require_bpf())

ATF_TC(many_is_each_bpf_bounded);
ATF_TC_HEAD(many_is_each_bpf_bounded, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf on many pids with "
	    "the bound on kept records so small that the run takes several "
	    "passes, and one process streams its own: what one run per pid "
	    "prints, and the fixture's endpoints");
	tu_timeout(tc, 240);
}
ATF_TC_BODY(many_is_each_bpf_bounded, tc)
{
	tu_require_bpf();
	many_is_each("bpf", 1);
}

/*
 * Does a call of strace -y's log read an fd link: a readlink or a stat of
 * /proc/PID/fd/N (by path, or by the fd of /proc/PID/fd and a name)?
 */
static int
reads_fd_link(const char *line)
{
	static const char *const calls[] = { "readlinkat(", "readlink(",
	    "statx(", "newfstatat(" };
	const char *p = strchr(line, ' '), *a;

	if (p == NULL)
		return (0);
	while (*p == ' ')	/* strace -f writes "PID  call(" */
		p++;
	for (size_t i = 0; i < sizeof (calls) / sizeof (calls[0]); i++) {
		size_t l = strlen(calls[i]);

		if (strncmp(p, calls[i], l) != 0)
			continue;
		a = p + l;
		/* The first argument, up to its comma. */
		if (strncmp(a, "\"/proc/", 7) == 0)
			a += 7;
		else if ((a = strstr(a, "</proc/")) != NULL &&
		    (size_t)(a - p) < l + 16)
			a += 7;
		else
			return (0);
		while (isdigit((unsigned char)*a))
			a++;
		return (strncmp(a, "/fd/", 4) == 0 || strncmp(a, "/fd>", 4) ==
		    0);
	}
	return (0);
}

/* The fd links pfiles --via=via reads over the first n children. */
static long
links_read(const mfix_t *m, const char *via, int n)
{
	static const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
	    NULL };
	static const char *const wrap[] = { "strace", "-f", "-qq", "-y", "-e",
	    "trace=readlinkat,readlink,statx,newfstatat", "-o", "links.log",
	    NULL };
	char opt[32], *line = NULL;
	size_t cap = 0;
	FILE *f;
	char *pids[NCHILD_MAX];
	tu_result_t r;
	const char *const opts[] = { opt, NULL };
	long count = 0;

	(void) snprintf(opt, sizeof (opt), "--via=%s", via);
	for (int i = 0; i < n; i++)
		pids[i] = tu_asprintf("%d", m->mf_child[i].mc_pid);
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = opts,
	    .tp_pids = (const char *const *)pids, .tp_npids = (size_t)n,
	    .tp_env = env, .tp_timeout_ms = TU_TIMEOUT_MS * 2 }, &r);
	tu_require_exit("strace pfiles", &r, 0);
	tu_result_free(&r);
	/* Line by line: without the shared index, the log is huge. */
	ATF_REQUIRE((f = fopen("links.log", "r")) != NULL);
	while (getline(&line, &cap, f) > 0)
		count += reads_fd_link(line);
	free(line);
	(void) fclose(f);
	(void) unlink("links.log");
	for (int i = 0; i < n; i++)
		free(pids[i]);
	return (count);
}

static void
links_linear(const char *via)
{
	/* Each child: 0 and 2, its pairs, its connection; 1 it closed. */
	const long per_child = 2 + 2 * NPAIR + 1, lo = 4, hi = 20;
	long c_lo, c_hi, slope;
	mfix_t m;

	if (access("/usr/bin/strace", X_OK) != 0)
		atf_tc_skip("strace is not installed");
	machine_start(&m, 40);
	/*
	 * With bpf, one child alone reads no other process's table: the
	 * one pass names every socket's holders.
	 */
	if (strcmp(via, "bpf") == 0) {
		long one = links_read(&m, via, 1);

		ATF_CHECK_MSG(one <= 3 * per_child + 4, "bpf: %ld fd links "
		    "read for one child", one);
	}
	c_lo = links_read(&m, via, (int)lo);
	c_hi = links_read(&m, via, (int)hi);
	slope = (c_hi - c_lo) / (hi - lo);
	(void) printf("%s: %ld fd links read over %ld children, %ld over %ld:"
	    " %ld per child (%ld fds each)\n", via, c_lo, lo, c_hi, hi, slope,
	    per_child);
	/*
	 * A child's own table, a look or two at each of its fds, and a
	 * check of its one holder elsewhere: a bound of its own fds, not
	 * of the machine's (the 40 children alone hold 400).
	 */
	ATF_CHECK_MSG(slope <= 3 * per_child + 4, "%s: %ld fd links read per "
	    "child examined (%ld at %ld children, %ld at %ld): more than "
	    "%ld, its own table's", via, slope, c_lo, lo, c_hi, hi,
	    3 * per_child + 4);
	machine_stop(&m);
}

#define	LINKS_CASE(src, extra)						\
ATF_TC(links_linear_##src);						\
ATF_TC_HEAD(links_linear_##src, tc)					\
{									\
	atf_tc_set_md_var(tc, "descr", "the fd links pfiles --via=" #src \
	    " reads for N processes grow linearly in N, by a bound of "	\
	    "their own tables");					\
	tu_timeout(tc, 240);						\
}									\
ATF_TC_BODY(links_linear_##src, tc)					\
{									\
	extra;								\
	links_linear(#src);						\
}

LINKS_CASE(pidfd, (void)0)
LINKS_CASE(diag, (void)0)
LINKS_CASE(bpf, tu_require_bpf())

ATF_TC(json_many);
ATF_TC_HEAD(json_many, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J over many pids is one JSON "
	    "document with one object per pid, in argument order");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(json_many, tc)
{
	char *args[5], *out, *p;
	const char *argv[] = { "python3", "-c",
	    "import json,sys\n"
	    "d=json.load(open(sys.argv[1]))\n"
	    "ps=d['processes'] if isinstance(d,dict) else d\n"
	    "print(' '.join(str(p['pid']) for p in ps))\n",
	    "many.json", NULL };
	char *want;
	tu_result_t r;
	mfix_t m;

	machine_start(&m, 3);
	args[0] = tu_asprintf("%d", m.mf_child[2].mc_pid);
	args[1] = tu_asprintf("%d", m.mf_parent);
	args[2] = tu_asprintf("/proc/%d", m.mf_child[0].mc_pid);
	args[3] = tu_asprintf("%d", m.mf_child[1].mc_pid);
	out = pfiles_on("-J", args, 4);
	tu_write_file("many.json", out, strlen(out));
	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	tu_require_exit("python3 json", &r, 0);
	want = tu_asprintf("%d %d %d %d\n", m.mf_child[2].mc_pid, m.mf_parent,
	    m.mf_child[0].mc_pid, m.mf_child[1].mc_pid);
	tu_require_same_str("json_pids", want, r.tr_out);
	/* One document: one top-level value, nothing after it. */
	p = out + strlen(out);
	while (p > out && isspace((unsigned char)p[-1]))
		p--;
	ATF_CHECK(p > out && (p[-1] == '}' || p[-1] == ']'));
	tu_result_free(&r);
	machine_stop(&m);
	for (int i = 0; i < 4; i++)
		free(args[i]);
	free(out);
	free(want);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, many_is_each_pidfd);
	ATF_TP_ADD_TC(tp, many_is_each_diag);
	ATF_TP_ADD_TC(tp, many_is_each_agent);
	ATF_TP_ADD_TC(tp, many_is_each_bpf);
	ATF_TP_ADD_TC(tp, many_is_each_bpf_bounded);
	ATF_TP_ADD_TC(tp, links_linear_pidfd);
	ATF_TP_ADD_TC(tp, links_linear_diag);
	ATF_TP_ADD_TC(tp, links_linear_bpf);
	ATF_TP_ADD_TC(tp, json_many);
	return (atf_no_error());
}

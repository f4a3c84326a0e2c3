/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_syscalls: the system calls pfiles makes per socket, against a budget
 * per source, counted by strace -f -c (pfiles and its threads).
 *
 * pfiles runs on fixtures/sockets.js with N and 4N connections (1 + 2N
 * TCP sockets, in one process, loopback only) and each system call gets
 * its slope per socket added:
 *
 *	per socket = (calls at 4N - calls at N) / sockets added
 *
 * which leaves out the fixed part (starting up, the dumps of the socket
 * tables, the threads).  The calls on other processes' /proc entries are
 * left out (the endpoints' pass over every process's fd table for the
 * holders of other ends): they follow what else runs on the machine.  Calls that follow the scheduler or the memory
 * allocator, not the sockets, are shown and not budgeted: futex,
 * sched_yield, and the memory calls (mmap, munmap, mprotect, madvise,
 * brk, mremap); nor is write, the output (64 KiB at a time).
 *
 * Budgets (issue 25):
 *  --via=pidfd: each call within what the design makes per socket,
 *	every other one none, and where the kernel's io_uring takes
 *	getsockopt, at most 8 calls per socket in all: /proc
 *	looked at once per fd (one statx, one open, read and close of
 *	fdinfo, no readlink), one pidfd_getfd, and where the kernel's
 *	io_uring takes getsockopt (SOCKET_URING_OP_GETSOCKOPT, probed here
 *	with a ring and a socket of the test's own), one getsockopt of its
 *	own (TCP_NODELAY, a level the ring does not take), no close (the
 *	ring closes the fdinfo file and the duplicate) and a share of the
 *	ring's enters;
 *  --via=pidfd without io_uring (a seccomp filter refusing io_uring_setup
 *	with EPERM, as kernel.io_uring_disabled does, and with ENOSYS, as a
 *	kernel without it does): the same output byte for byte, every
 *	option asked with getsockopt (at least 8 per socket), no
 *	io_uring_enter, and io_uring_setup not tried again per batch;
 *  --via=diag: /proc looked at once per fd and nothing else per socket:
 *	at most 4 calls per socket (statx, and open, read and close of
 *	fdinfo; the close in the ring where io_uring is to be had).
 * Each case prints its table (kyua report --verbose shows it).
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "testutil.h"

#define	NCONN		40		/* N; the second run has 4N */
#define	NODE_SECONDS	"120"
#define	NAMES_MAX	256
#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	NR_IO_URING_SETUP	"425"	/* x86_64 */

#ifndef	SOCKET_URING_OP_GETSOCKOPT
#define	SOCKET_URING_OP_GETSOCKOPT	2
#endif

/* Not budgeted: they follow the scheduler and the allocator. */
static const char *const unbudgeted[] = {
	"futex", "sched_yield", "mmap", "munmap", "mprotect", "madvise",
	"brk", "mremap", "write", NULL
};

/* One strace -c table: calls by system call. */
typedef struct counts {
	char	c_name[NAMES_MAX][32];
	long	c_calls[NAMES_MAX];
	int	c_n;
} counts_t;

static long
calls_of(const counts_t *c, const char *name)
{
	for (int i = 0; i < c->c_n; i++)
		if (strcmp(c->c_name[i], name) == 0)
			return (c->c_calls[i]);
	return (0);
}

static int
is_unbudgeted(const char *name)
{
	for (int i = 0; unbudgeted[i] != NULL; i++)
		if (strcmp(unbudgeted[i], name) == 0)
			return (1);
	return (0);
}

/* count name once more. */
static void
count_one(counts_t *c, const char *name, size_t len)
{
	int i;

	for (i = 0; i < c->c_n; i++)
		if (strlen(c->c_name[i]) == len &&
		    strncmp(c->c_name[i], name, len) == 0)
			break;
	if (i == c->c_n) {
		ATF_REQUIRE_MSG(c->c_n < NAMES_MAX && len < sizeof (c->c_name[0]),
		    "too many system calls, or a name too long");
		(void) snprintf(c->c_name[i], sizeof (c->c_name[0]), "%.*s",
		    (int)len, name);
		c->c_n++;
	}
	c->c_calls[i]++;
}

/*
 * Does a call of strace -y's log name another process's /proc entry than
 * target's or self's: "/proc/PID...", or a name relative to /proc
 * ("</proc>, \"PID/...")?  The pass over every other process's fd table
 * for the holders of other ends (endpoint/) follows what else runs on
 * the machine, not the target's sockets.
 */
static int
other_proc(const char *line, long target, long self)
{
	static const char *const pre[] = { "/proc/", "</proc>, \"" };

	for (int k = 0; k < 2; k++) {
		for (const char *p = strstr(line, pre[k]); p != NULL;
		    p = strstr(p + 1, pre[k])) {
			const char *d = p + strlen(pre[k]);
			char *end;
			long v;

			if (*d < '0' || *d > '9')
				continue;
			v = strtol(d, &end, 10);
			if ((*end == '/' || *end == '>' || *end == '"') &&
			    v != target && v != self)
				return (1);
		}
	}
	return (0);
}

/*
 * strace -f -y's log: "PID name(args) = ...", one call a line (or its
 * first half, "<unfinished ...>", the other half "<... name resumed>"):
 * the calls by name, but those on other processes' /proc entries.  The
 * first line's PID is pfiles'.
 */
static void
parse_log(const char *path, long target, counts_t *c)
{
	char *text = tu_read_file(path, NULL), *line, *save = NULL;
	long self = -1;

	memset(c, 0, sizeof (*c));
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *p;
		long pid = strtol(line, &p, 10);
		size_t len;

		if (p == line || *p != ' ')
			continue;
		if (self < 0)
			self = pid;
		while (*p == ' ')
			p++;
		if (*p == '<' || *p == '+' || *p == '-')
			continue;	/* resumed, exited, a signal */
		if ((len = strcspn(p, "(")) == 0 || p[len] != '(' ||
		    other_proc(p, target, self))
			continue;
		count_one(c, p, len);
	}
	free(text);
	ATF_REQUIRE_MSG(c->c_n > 0, "no calls in strace's log %s", path);
}

/* The fixture, up with nconn connections. */
static void
node_start(tu_child_t *node, int nconn)
{
	char count[16], *line, *want;
	const char *const argv[] = { "node", TU_SOCKETS_JS, count,
	    NODE_SECONDS, NULL };

	(void) snprintf(count, sizeof (count), "%d", nconn);
	tu_spawn(node, argv, 0);
	if ((line = tu_read_line(node->tc_out, TU_TIMEOUT_MS)) == NULL)
		atf_tc_fail("node with %d connections exited before reporting "
		    "its sockets", nconn);
	want = tu_asprintf("opened %d sockets, pid = %d", nconn,
	    (int)node->tc_pid);
	tu_require_same_str("node-first-line", want, line);
	free(want);
	free(line);
	if ((line = tu_read_line(node->tc_out, TU_TIMEOUT_MS)) == NULL)
		atf_tc_fail("node wrote no report line");
	free(line);
}

/*
 * pfiles OPT on pid under strace -f -y, behind seccomp_deny when deny is
 * not NULL (the errno io_uring_setup fails with): its counts into *c, its
 * stdout into *out (malloc'd).  It says nothing on stderr, but with
 * --via=diag the facts the tables do not hold (one line).
 */
static void
counted(const char *opt, pid_t pid, const char *deny, const char *table,
    counts_t *c, char **out)
{
	char pidarg[16];
	const char *wrap[16], *const args[] = { opt, pidarg, NULL };
	/* LeakSanitizer (SANITIZE=1) cannot work under strace. */
	static const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
	    NULL };
	tu_result_t r;
	int n = 0;

	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	wrap[n++] = "strace";
	wrap[n++] = "-f";
	wrap[n++] = "-qq";
	wrap[n++] = "-y";
	wrap[n++] = "-o";
	wrap[n++] = table;
	if (deny != NULL) {
		wrap[n++] = SECCOMP_DENY;
		wrap[n++] = NR_IO_URING_SETUP;
		wrap[n++] = deny;
	}
	wrap[n] = NULL;
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = args,
	    .tp_env = env, .tp_timeout_ms = TU_TIMEOUT_MS * 2 }, &r);
	tu_require_exit("strace pfiles", &r, 0);
	ATF_CHECK_MSG(r.tr_errlen == 0 || (strcmp(opt, "--via=diag") == 0 &&
	    strstr(r.tr_err, "(diag: the kernel's socket tables do not hold "
	    "them)\n") != NULL && strchr(r.tr_err, '\n') ==
	    r.tr_err + r.tr_errlen - 1), "pfiles %s said: %s", opt, r.tr_err);
	parse_log(table, (long)pid, c);
	*out = r.tr_out;
	r.tr_out = NULL;
	tu_result_free(&r);
}

/* The slopes of one pfiles option, and its outputs at N and 4N. */
typedef struct slopes {
	counts_t	s_lo, s_hi;
	long		s_added;	/* sockets */
	char		*s_out[2];
} slopes_t;

static double
slope(const slopes_t *s, const char *name)
{
	return ((double)(calls_of(&s->s_hi, name) - calls_of(&s->s_lo,
	    name)) / (double)s->s_added);
}

/* Every budgeted call's slope, summed. */
static double
budgeted_total(const slopes_t *s)
{
	double sum = 0;

	for (int i = 0; i < s->s_hi.c_n; i++)
		if (!is_unbudgeted(s->s_hi.c_name[i]))
			sum += slope(s, s->s_hi.c_name[i]);
	for (int i = 0; i < s->s_lo.c_n; i++)	/* gone at 4N */
		if (!is_unbudgeted(s->s_lo.c_name[i]) &&
		    calls_of(&s->s_hi, s->s_lo.c_name[i]) == 0)
			sum += slope(s, s->s_lo.c_name[i]);
	return (sum);
}

static void
print_slopes(const char *what, const slopes_t *s)
{
	(void) printf("%s: system calls per socket added (%ld sockets "
	    "added)\n", what, s->s_added);
	for (int i = 0; i < s->s_hi.c_n; i++) {
		const char *n = s->s_hi.c_name[i];

		(void) printf("  %-20s %8ld %8ld %7.2f%s\n", n,
		    calls_of(&s->s_lo, n), calls_of(&s->s_hi, n),
		    slope(s, n), is_unbudgeted(n) ? "  (not budgeted)" : "");
	}
	(void) printf("  %-20s %25.2f\n", "budgeted, in all",
	    budgeted_total(s));
}

/*
 * pfiles OPT on the fixture at N and 4N connections, once for each of the
 * nv variants: under deny[v] (see counted(); NULL: no filter), into
 * s[v].  The variants run on the same fixture, one after the other.
 */
static void
measure(const char *opt, const char *const *deny, slopes_t *s, int nv)
{
	tu_child_t node;

	for (int k = 0; k < 2; k++) {
		int nconn = k == 0 ? NCONN : 4 * NCONN;

		node_start(&node, nconn);
		for (int v = 0; v < nv; v++) {
			char *table = tu_asprintf("strace.%s.%d",
			    deny[v] != NULL ? deny[v] : "ring", nconn);

			counted(opt, node.tc_pid, deny[v], table,
			    k == 0 ? &s[v].s_lo : &s[v].s_hi, &s[v].s_out[k]);
			free(table);
		}
		ATF_CHECK_MSG(WIFEXITED(tu_stop(&node, TU_TIMEOUT_MS)),
		    "node did not end");
	}
	for (int v = 0; v < nv; v++)
		s[v].s_added = 2L * (4 * NCONN - NCONN);
}

static void
slopes_free(slopes_t *s)
{
	free(s->s_out[0]);
	free(s->s_out[1]);
}

/* At most lim of name per socket (2% for the rounding of a slope). */
static void
at_most(const char *what, const slopes_t *s, const char *name, double lim)
{
	double v = slope(s, name);

	ATF_CHECK_MSG(v <= lim + 0.02, "%s: %.2f %s per socket, budget %.2f",
	    what, v, name, lim);
}

/* A budget: the calls allowed per socket, by name; NULL ends it. */
typedef struct allow {
	const char	*a_name;
	double		a_max;
} allow_t;

/*
 * Every budgeted call within what allow gives it, and every one it does
 * not name at none per socket.
 */
static void
within(const char *what, const slopes_t *s, const allow_t *allow)
{
	const counts_t *c[2] = { &s->s_lo, &s->s_hi };

	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < c[k]->c_n; i++) {
			const char *n = c[k]->c_name[i];
			double lim = 0;

			if (is_unbudgeted(n))
				continue;
			for (const allow_t *a = allow; a->a_name != NULL; a++)
				if (strcmp(a->a_name, n) == 0)
					lim = a->a_max;
			at_most(what, s, n, lim);
		}
	}
}

/*
 * Does this kernel's io_uring take getsockopt of a TCP socket?  A ring of
 * one entry and a socket of our own: 1 yes, 0 no.
 */
static int
ring_takes_getsockopt(void)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	uint32_t lvl[2] = { SOL_SOCKET, SO_TYPE };
	unsigned *tail, *mask, *array, *chead, *ctail, *cmask;
	size_t sqlen, cqlen;
	char *sq, *cq;
	int ring, s, v = 0, ok = 0;

	memset(&p, 0, sizeof (p));
	if ((ring = (int)syscall(SYS_io_uring_setup, 1, &p)) < 0)
		return (0);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sqlen = p.sq_off.array + p.sq_entries * sizeof (unsigned);
	cqlen = p.cq_off.cqes + p.cq_entries * sizeof (*cqe);
	sq = mmap(NULL, sqlen, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
	    IORING_OFF_SQ_RING);
	cq = mmap(NULL, cqlen, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
	    IORING_OFF_CQ_RING);
	sqe = mmap(NULL, sizeof (*sqe), PROT_READ | PROT_WRITE, MAP_SHARED,
	    ring, IORING_OFF_SQES);
	ATF_REQUIRE(s >= 0 && sq != MAP_FAILED && cq != MAP_FAILED &&
	    sqe != MAP_FAILED);
	tail = (unsigned *)(void *)(sq + p.sq_off.tail);
	mask = (unsigned *)(void *)(sq + p.sq_off.ring_mask);
	array = (unsigned *)(void *)(sq + p.sq_off.array);
	chead = (unsigned *)(void *)(cq + p.cq_off.head);
	ctail = (unsigned *)(void *)(cq + p.cq_off.tail);
	cmask = (unsigned *)(void *)(cq + p.cq_off.ring_mask);
	memset(sqe, 0, sizeof (*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = s;
	sqe->cmd_op = SOCKET_URING_OP_GETSOCKOPT;
	memcpy(&sqe->addr, lvl, sizeof (lvl));
	sqe->file_index = sizeof (v);
	sqe->addr3 = (uint64_t)(uintptr_t)&v;
	array[*tail & *mask] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
	    NULL, 0) == 1 && *chead != __atomic_load_n(ctail,
	    __ATOMIC_ACQUIRE)) {
		cqe = (struct io_uring_cqe *)(void *)(cq + p.cq_off.cqes) +
		    (*chead & *cmask);
		ok = cqe->res == (int)sizeof (v) && v == SOCK_STREAM;
	}
	(void) munmap(sqe, sizeof (*sqe));
	(void) munmap(cq, cqlen);
	(void) munmap(sq, sqlen);
	(void) close(s);
	(void) close(ring);
	return (ok);
}

ATF_TC(pidfd);
ATF_TC_HEAD(pidfd, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd: /proc looked "
	    "at once per fd, and where io_uring takes getsockopt, one "
	    "getsockopt per socket and at most 8 system calls in all");
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	tu_timeout(tc, 240);
}
ATF_TC_BODY(pidfd, tc)
{
	static const char *const none[] = { NULL };
	slopes_t s;
	int ring = ring_takes_getsockopt();

	measure("--via=pidfd", none, &s, 1);
	(void) printf("io_uring takes getsockopt here: %s\n", ring ? "yes" :
	    "no");
	print_slopes("--via=pidfd", &s);
	if (ring) {
		/*
		 * /proc once: the endpoints' statx, fdinfo's open and read
		 * (its close and the duplicate's go through the ring);
		 * pidfd_getfd; TCP_NODELAY; a share of the enters of a chunk
		 * of 32 fds (the options, the closes); the dumps' datagrams,
		 * one more per some 200 sockets of the namespace.
		 */
		static const allow_t allow[] = {
			{ "statx", 1 }, { "openat", 1 }, { "read", 1 },
			{ "pidfd_getfd", 1 }, { "getsockopt", 1 },
			{ "io_uring_enter", 0.15 }, { "recvmsg", 0.05 },
			{ NULL, 0 }
		};

		within("--via=pidfd", &s, allow);
		ATF_CHECK_MSG(budgeted_total(&s) <= 8.02, "--via=pidfd: %.2f "
		    "system calls per socket, budget 8 (see stdout)",
		    budgeted_total(&s));
	} else {
		/*
		 * A kernel whose sockets take no io_uring command (before
		 * 6.7): the options one by one (of a TCP socket whose names
		 * and buffers the tables gave, at most the 9 booleans but
		 * SO_ACCEPTCONN, SO_LINGER, and SO_COOKIE), the files closed
		 * through the ring or each.
		 */
		static const allow_t allow[] = {
			{ "statx", 1 }, { "openat", 1 }, { "read", 1 },
			{ "close", 2 }, { "pidfd_getfd", 1 },
			{ "getsockopt", 11 }, { "io_uring_enter", 0.1 },
			{ "recvmsg", 0.05 }, { NULL, 0 }
		};

		within("--via=pidfd", &s, allow);
	}
	slopes_free(&s);
}

/*
 * Without io_uring (io_uring_setup refused with errno deny): the same
 * output, byte for byte, as with it, on the same fixture.
 */
static void
without_ring(const char *deny)
{
	const char *const variants[] = { NULL, deny };
	slopes_t s[2];
	char *what = tu_asprintf("--via=pidfd, io_uring_setup refused (%s)",
	    deny);

	memset(s, 0, sizeof (s));
	measure("--via=pidfd", variants, s, 2);
	print_slopes(what, &s[1]);
	for (int k = 0; k < 2; k++)
		tu_require_same_text(what, s[0].s_out[k],
		    strlen(s[0].s_out[k]), s[1].s_out[k],
		    strlen(s[1].s_out[k]));
	ATF_CHECK_MSG(slope(&s[1], "getsockopt") >= 8, "%s: %.2f getsockopt "
	    "per socket: the options were not asked one by one", what,
	    slope(&s[1], "getsockopt"));
	ATF_CHECK_MSG(calls_of(&s[1].s_hi, "io_uring_enter") == 0, "%s: "
	    "io_uring_enter was called", what);
	ATF_CHECK_MSG(calls_of(&s[1].s_hi, "io_uring_setup") >= 1, "%s: no "
	    "io_uring_setup was tried: the refusal was not met", what);
	/* Refused once is refused for the run: not tried per batch. */
	at_most(what, &s[1], "io_uring_setup", 0);
	free(what);
	slopes_free(&s[0]);
	slopes_free(&s[1]);
}

ATF_TC(pidfd_no_ring_eperm);
ATF_TC_HEAD(pidfd_no_ring_eperm, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd where "
	    "io_uring_setup is refused (EPERM, as kernel.io_uring_disabled "
	    "and seccomp filters refuse it): the same output as with the "
	    "ring, every option asked with getsockopt");
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	tu_timeout(tc, 240);
}
ATF_TC_BODY(pidfd_no_ring_eperm, tc)
{
#if !defined(__x86_64__)
	atf_tc_skip("seccomp_deny filters x86_64 system calls only");
#endif
	without_ring("1");
}

ATF_TC(pidfd_no_ring_enosys);
ATF_TC_HEAD(pidfd_no_ring_enosys, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd where "
	    "io_uring_setup does not exist (ENOSYS): the same output as "
	    "with the ring, every option asked with getsockopt");
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	tu_timeout(tc, 240);
}
ATF_TC_BODY(pidfd_no_ring_enosys, tc)
{
#if !defined(__x86_64__)
	atf_tc_skip("seccomp_deny filters x86_64 system calls only");
#endif
	without_ring("38");
}

ATF_TC(diag);
ATF_TC_HEAD(diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag: /proc looked at "
	    "once per fd and nothing else per socket: at most 4 system "
	    "calls per socket");
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	tu_timeout(tc, 240);
}
ATF_TC_BODY(diag, tc)
{
	static const char *const none[] = { NULL };
	/*
	 * /proc once: the endpoints' statx, fdinfo's open, read, close (in
	 * a ring's enter per chunk of 32 fds where io_uring is to be had);
	 * the dumps' datagrams, one more per some 200 sockets of the
	 * namespace.
	 */
	static const allow_t allow[] = {
		{ "statx", 1 }, { "openat", 1 }, { "read", 1 }, { "close", 1 },
		{ "io_uring_enter", 0.1 }, { "recvmsg", 0.05 }, { NULL, 0 }
	};
	slopes_t s;

	measure("--via=diag", none, &s, 1);
	print_slopes("--via=diag", &s);
	ATF_CHECK_MSG(budgeted_total(&s) <= 4.02, "--via=diag: %.2f system "
	    "calls per socket, budget 4 (see stdout)", budgeted_total(&s));
	within("--via=diag", &s, allow);
	slopes_free(&s);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pidfd);
	ATF_TP_ADD_TC(tp, pidfd_no_ring_eperm);
	ATF_TP_ADD_TC(tp, pidfd_no_ring_enosys);
	ATF_TP_ADD_TC(tp, diag);
	return (atf_no_error());
}

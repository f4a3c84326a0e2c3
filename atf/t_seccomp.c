/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_seccomp: the agent never injects a system call that the target's
 * seccomp filters have not been proven to allow (t_seccomp_check and
 * t_seccomp_kernel hold the checker's units).
 *
 * The agent, on targets of this program's own (forked: a TCP listener, a
 * socketpair, a pipe pair to answer on):
 *  kill_getsockopt	a filter that kills the process on getsockopt:
 *			pfiles --via=agent exits 0, prints every fd, says
 *			why the socket details are missing, and the target
 *			lives (it answers, and exits 0 when told)
 *  kill_mmap		the same on mmap: pfiles prints all (no call of a
 *			socket's batch is an mmap); a batch too large for
 *			the stack is refused before its mapping is made
 *  kill_sendmsg		the same on sendmsg; sendmsg injected is refused
 *  errno_getsockopt	ERRNO instead: the agent runs, the facts are
 *			missing; ERRNO with errno 0 is refused
 *  actions		every action on getppid: refused or run, as said
 *  arguments		a filter on a by-value argument decides per call;
 *			one on an address the agent has not chosen refuses
 *  several_filters	one filter among several kills: refused
 *  strict_mode		only read, write, exit and rt_sigreturn
 *  filter_added	a filter added by another thread of the target
 *			(TSYNC) while the agent holds one is seen
 *  unreadable		pfiles under a filter of its own cannot read the
 *			target's: the agent refuses, the target lives
 */
#include "seccomp_util.h"

#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	WAIT_MS		10000

/* ------------------------------------------------------------------ */
/* Targets of our own. */
/* A filter: call nr gets action, every other call is allowed. */
#define	ON_CALL(nr, action) {						\
	S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),				\
	J(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1),			\
	S(BPF_RET | BPF_K, (action)),					\
	S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),				\
}

typedef struct tspec {
	size_t		ts_nprogs;
	struct sock_fprog ts_progs[3];
	int		ts_strict;	/* seccomp strict mode, last */
	struct sock_fprog ts_tsync;	/* a thread adds this on 't' */
} tspec_t;

typedef struct target {
	pid_t	t_pid;
	int	t_cmd;		/* ours: 'p' ping, 'q' quit */
	int	t_ans;		/* theirs: 'r' ready, 'o' pong */
	int	t_tcmd;		/* the other thread's: 't' add a filter */
} target_t;

/* The target's fds, as the child lays them out. */
#define	T_CMD		3
#define	T_ANS		4
#define	T_TCMD		5
#define	T_LISTEN	6	/* then the socketpair: 7 and 8 */

static pid_t live_pid;

static void
kill_live(void)
{
	if (live_pid > 0)
		(void) kill(live_pid, SIGKILL);
}

static void *
tsync_thread(void *arg)
{
	const tspec_t *ts = arg;
	char c;

	while (read(T_TCMD, &c, 1) == 1) {
		long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_TSYNC, &ts->ts_tsync);

		(void) write(T_ANS, r == 0 ? "T" : "F", 1);
	}
	return (NULL);
}

static void
target_main(const tspec_t *ts, int cmd, int ans, int tcmd)
{
	struct sockaddr_in sin;
	int null, l, sp[2];
	pthread_t t;
	char c;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* 0-2 /dev/null, 3-5 the pipes, nothing else inherited. */
	cmd = fcntl(cmd, F_DUPFD, 20);
	ans = fcntl(ans, F_DUPFD, 20);
	tcmd = fcntl(tcmd, F_DUPFD, 20);
	if ((null = open("/dev/null", O_RDWR)) < 0 || dup2(null, 0) < 0 ||
	    dup2(null, 1) < 0 || dup2(null, 2) < 0 || dup2(cmd, T_CMD) < 0 ||
	    dup2(ans, T_ANS) < 0 || dup2(tcmd, T_TCMD) < 0)
		_exit(90);
	(void) syscall(SYS_close_range, T_TCMD + 1, ~0U, 0);
	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) != T_LISTEN ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 1) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		_exit(91);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(92);
	for (size_t i = 0; i < ts->ts_nprogs; i++) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
		    &ts->ts_progs[i]) != 0)
			_exit(94);
	}
	/* With the same filters as the main thread: TSYNC needs that. */
	if (ts->ts_tsync.len > 0 &&
	    pthread_create(&t, NULL, tsync_thread, (void *)ts) != 0)
		_exit(93);
	if (ts->ts_strict && prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0)
		_exit(95);
	/* From here on: read, write and exit only. */
	(void) write(T_ANS, "r", 1);
	while (read(T_CMD, &c, 1) == 1 && c == 'p')
		(void) write(T_ANS, "o", 1);
	if (ts->ts_strict)
		(void) syscall(SYS_exit, 0);
	(void) syscall(SYS_exit_group, 0);
}

/* One byte from fd within WAIT_MS: it, or 0. */
static char
answer(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char c;

	if (poll(&pfd, 1, WAIT_MS) != 1 || read(fd, &c, 1) != 1)
		return (0);
	return (c);
}

static void
target_start(target_t *t, const tspec_t *ts)
{
	int cmd[2], ans[2], tcmd[2];

	(void) signal(SIGPIPE, SIG_IGN);	/* a dead target: EPIPE */
	ATF_REQUIRE(pipe2(cmd, O_CLOEXEC) == 0 &&
	    pipe2(ans, O_CLOEXEC) == 0 && pipe2(tcmd, O_CLOEXEC) == 0);
	if (live_pid == 0)
		(void) atexit(kill_live);
	ATF_REQUIRE((t->t_pid = fork()) >= 0);
	if (t->t_pid == 0)
		target_main(ts, cmd[0], ans[1], tcmd[0]);
	live_pid = t->t_pid;
	(void) close(cmd[0]);
	(void) close(ans[1]);
	(void) close(tcmd[0]);
	t->t_cmd = cmd[1];
	t->t_ans = ans[0];
	t->t_tcmd = tcmd[1];
	ATF_REQUIRE_MSG(answer(t->t_ans) == 'r', "the target did not start");
}

/* The target answers: its main thread serves, the process lives. */
static void
target_ping(const target_t *t)
{
	pid_t r = 0;
	int st = 0;

	if (write(t->t_cmd, "p", 1) == 1 && answer(t->t_ans) == 'o')
		return;
	/* A dying process may take a while (a core dump): up to 3 s. */
	for (int i = 0; i < 300 && (r = waitpid(t->t_pid, &st, WNOHANG)) == 0;
	    i++)
		(void) usleep(10000);
	/* As its tracer, the agent may have collected its death itself. */
	if (r < 0 && errno == ECHILD)
		atf_tc_fail("the target died during a batch of the agent");
	if (r > 0 && WIFSIGNALED(st))
		atf_tc_fail("the target was killed by signal %d%s",
		    WTERMSIG(st), WTERMSIG(st) == SIGSYS ? " (SIGSYS: its "
		    "seccomp filter)" : "");
	atf_tc_fail("the target does not answer (state %c, wait status "
	    "0x%x)", tu_proc_state(t->t_pid), st);
}

/* Tell it to quit: it must exit 0, never be killed. */
static void
target_stop(target_t *t)
{
	int st;

	(void) write(t->t_cmd, "q", 1);
	(void) close(t->t_cmd);
	(void) close(t->t_tcmd);
	(void) close(t->t_ans);
	ATF_REQUIRE(waitpid(t->t_pid, &st, 0) == t->t_pid);
	live_pid = 0;
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the target "
	    "ended with wait status 0x%x%s", st, WIFSIGNALED(st) &&
	    WTERMSIG(st) == SIGSYS ? ": killed by SIGSYS" : "");
}

static void
spec_one(tspec_t *ts, struct sock_filter *f, size_t n)
{
	memset(ts, 0, sizeof (*ts));
	ts->ts_nprogs = 1;
	ts->ts_progs[0].len = (unsigned short)n;
	ts->ts_progs[0].filter = f;
}

static struct ps_prochandle *
grab(pid_t pid)
{
	struct ps_prochandle *P;
	int perr;

	ATF_REQUIRE_MSG((P = Pgrab(pid, 0, &perr)) != NULL, "Pgrab: %s",
	    Pgrab_error(perr));
	return (P);
}

/* getsockopt(fd, SOL_SOCKET, opt) in the target: Psyscall's result. */
static int
target_getsockopt(struct ps_prochandle *P, int fd, int opt, int *valp)
{
	socklen_t len = sizeof (int);
	argdes_t a[5];
	sysret_t rv;

	*valp = -1;
	argdes_byval(&a[0], fd);
	argdes_byval(&a[1], SOL_SOCKET);
	argdes_byval(&a[2], opt);
	argdes_byref(&a[3], valp, sizeof (int), AI_OUTPUT);
	argdes_byref(&a[4], &len, sizeof (len), AI_INOUT);
	return (Psyscall(P, &rv, SYS_getsockopt, 5, a));
}

/* A Psyscall that must be refused (-1, EPERM) with this message. */
static void
require_refused(struct ps_prochandle *P, int rv, const char *msg)
{
	int e = errno;

	ATF_CHECK_EQ_MSG(rv, -1, "not refused: returned %d", rv);
	ATF_CHECK_EQ_MSG(e, EPERM, "errno %d", e);
	ATF_CHECK_MSG(strcmp(Perrmsg(P), msg) == 0, "message \"%s\", not "
	    "\"%s\"", Perrmsg(P), msg);
}

/* pfiles' output with --via=pidfd: no call is made in the target. */
static char *
pidfd_output(const char *pidarg)
{
	const char *const args[] = { "--via=pidfd", pidarg, NULL };
	tu_result_t r;
	char *out;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	tu_require_exit("pfiles --via=pidfd", &r, 0);
	out = strdup(r.tr_out);
	tu_result_free(&r);
	ATF_REQUIRE(out != NULL && strstr(out, "\tSOCK_STREAM\n") != NULL);
	return (out);
}

/*
 * pfiles --via=agent on a target under filter f: it exits 0 and prints
 * every fd; with why NULL it prints what pidfd prints (its peers unnamed)
 * and nothing on stderr, else no socket details and why on stderr.  The
 * target lives.
 */
static void
pfiles_on(struct sock_filter *f, size_t n, const char *why)
{
	char pidarg[16], *want;
	tspec_t ts;
	target_t t;
	tu_result_t r;

	spec_one(&ts, f, n);
	target_start(&t, &ts);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)t.t_pid);
	want = pidfd_output(pidarg);
	{
		const char *const args[] = { "--via=agent", pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	target_ping(&t);
	tu_require_exit("pfiles --via=agent", &r, 0);
	if (why == NULL) {
		/* asked inside a filtered target: no peer proven, and said */
		char *said = strstr(want, "\tpeer: ") == NULL ?
		    tu_asprintf("%s", "") : tu_asprintf("pfiles: %s: not "
		    "shown: peer (agent: asked inside the process, not passed "
		    "to pfiles)\n", pidarg);

		want = tu_unnamed_peers(want);
		tu_require_same_str("agent.stdout", want, r.tr_out);
		tu_require_same_str("agent.stderr", said, r.tr_err);
		free(said);
	} else {
		char *msg = tu_asprintf("pfiles: %s: details of 3 sockets "
		    "unavailable: agent: %s\n", pidarg, why);

		tu_require_same_str("agent.stderr", msg, r.tr_err);
		free(msg);
		ATF_CHECK_MSG(strstr(r.tr_out, "\tSOCK_") == NULL,
		    "socket details printed:\n%s", r.tr_out);
		for (int fd = T_LISTEN; fd <= T_LISTEN + 2; fd++) {
			char *line = tu_asprintf("\n%4d: S_IFSOCK ", fd);

			ATF_CHECK_MSG(strstr(r.tr_out, line) != NULL,
			    "fd %d not shown:\n%s", fd, r.tr_out);
			free(line);
		}
	}
	tu_result_free(&r);
	free(want);
	target_ping(&t);
	target_stop(&t);
}

/* A library call on a target under filter f, then the target lives. */
typedef void (*lib_fn_t)(struct ps_prochandle *, const target_t *);

static void
lib_on(const tspec_t *ts, lib_fn_t fn)
{
	struct ps_prochandle *P;
	target_t t;

	target_start(&t, ts);
	P = grab(t.t_pid);
	fn(P, &t);
	Prelease(P, 0);
	target_ping(&t);
	target_stop(&t);
}

static void
lib_on_filter(struct sock_filter *f, size_t n, lib_fn_t fn)
{
	tspec_t ts;

	spec_one(&ts, f, n);
	lib_on(&ts, fn);
}

#define	REQUIRE_ROOT(tc)						\
	atf_tc_set_md_var(tc, "require.user", "root")

/* --- getsockopt ---------------------------------------------------- */
static void
lib_getsockopt(struct ps_prochandle *P, const target_t *t)
{
	psyscall_t c[2];
	argdes_t a[2][1];
	int v;

	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt would be killed by the process's seccomp filter");
	ATF_CHECK_EQ(v, -1);
	/* The call before it in the batch did not run either. */
	argdes_byval(&a[0][0], 0);
	psyscall_set(&c[0], SYS_getpid, a[0], 0);
	argdes_byval(&a[1][0], T_LISTEN);
	psyscall_set(&c[1], SYS_getsockopt, a[1], 1);
	require_refused(P, Psyscall_batch(P, c, 2),
	    "getsockopt would be killed by the process's seccomp filter");
	ATF_CHECK(c[0].ps_rval.sys_rval1 == -1 && c[0].ps_errno == 0);
	/* Another call runs. */
	target_ping(t);
	ATF_CHECK_EQ(Psyscall_batch(P, c, 1), 0);
	ATF_CHECK_EQ(c[0].ps_rval.sys_rval1, t->t_pid);
}

ATF_TC(kill_getsockopt);
ATF_TC_HEAD(kill_getsockopt, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter kills the "
	    "process on getsockopt: pfiles --via=agent exits 0, says why "
	    "the socket details are missing, and the target lives; "
	    "Psyscall refuses the call and runs no call of its batch");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(kill_getsockopt, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_getsockopt,
	    SECCOMP_RET_KILL_PROCESS);

	pfiles_on(f, NELEM(f), "getsockopt would be killed by the "
	    "process's seccomp filter");
	lib_on_filter(f, NELEM(f), lib_getsockopt);
}

/* --- mmap ---------------------------------------------------------- */
static void
lib_mmap(struct ps_prochandle *P, const target_t *t)
{
	/* 9 outputs of 4 KiB: more than the 32 KiB of the thread's stack. */
	static char bufs[9][MAXARGL];
	argdes_t a[9][3];
	psyscall_t c[9];

	for (int i = 0; i < 9; i++) {
		argdes_byval(&a[i][0], -1);
		argdes_byref(&a[i][1], bufs[i], MAXARGL, AI_OUTPUT);
		argdes_byval(&a[i][2], MAXARGL);
		psyscall_set(&c[i], SYS_read, a[i], 3);
	}
	require_refused(P, Psyscall_batch(P, c, 9),
	    "mmap would be killed by the process's seccomp filter");
	for (int i = 0; i < 9; i++)
		ATF_CHECK(c[i].ps_rval.sys_rval1 == -1 &&
		    c[i].ps_errno == 0);
	target_ping(t);
	/* On the stack, fewer of the same calls run. */
	ATF_CHECK_EQ(Psyscall_batch(P, c, 3), 0);
	ATF_CHECK_EQ(c[0].ps_errno, EBADF);
}

ATF_TC(kill_mmap);
ATF_TC_HEAD(kill_mmap, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter kills the "
	    "process on mmap: pfiles --via=agent prints all, the target "
	    "lives; a batch too large for the stack is refused before its "
	    "mapping is made");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(kill_mmap, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_mmap, SECCOMP_RET_KILL_PROCESS);

	pfiles_on(f, NELEM(f), NULL);
	lib_on_filter(f, NELEM(f), lib_mmap);
}

/* --- sendmsg ------------------------------------------------------- */
static void
lib_sendmsg(struct ps_prochandle *P, const target_t *t)
{
	argdes_t a[3];
	sysret_t rv;

	argdes_byval(&a[0], T_LISTEN + 1);
	argdes_byval(&a[1], 0);
	argdes_byval(&a[2], MSG_DONTWAIT);
	require_refused(P, Psyscall(P, &rv, SYS_sendmsg, 3, a),
	    "sendmsg would be killed by the process's seccomp filter");
	target_ping(t);
}

ATF_TC(kill_sendmsg);
ATF_TC_HEAD(kill_sendmsg, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter kills the "
	    "process on sendmsg: pfiles --via=agent prints all, the target "
	    "lives; an injected sendmsg is refused");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(kill_sendmsg, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_sendmsg,
	    SECCOMP_RET_KILL_PROCESS);

	pfiles_on(f, NELEM(f), NULL);
	lib_on_filter(f, NELEM(f), lib_sendmsg);
}

/* --- ERRNO --------------------------------------------------------- */
static void
lib_errno0(struct ps_prochandle *P, const target_t *t)
{
	int v;

	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt would be skipped as if it had succeeded by the "
	    "process's seccomp filter");
	target_ping(t);
}

ATF_TC(errno_getsockopt);
ATF_TC_HEAD(errno_getsockopt, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose filter fails "
	    "getsockopt with EPERM, EACCES or ENOSYS (the ways sandboxes "
	    "refuse a call): the agent runs, the facts are missing and the "
	    "refusal is named; ERRNO with errno 0 is refused");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(errno_getsockopt, tc)
{
	static const int refusals[] = { EPERM, EACCES, ENOSYS };
	struct sock_filter f0[] = ON_CALL(SYS_getsockopt, RET_ERRNO(0));

	for (size_t i = 0; i < NELEM(refusals); i++) {
		struct sock_filter f[] = ON_CALL(SYS_getsockopt,
		    RET_ERRNO(refusals[i]));
		char *why = tu_asprintf("getsockopt: %s",
		    strerror(refusals[i]));

		pfiles_on(f, NELEM(f), why);
		free(why);
	}
	lib_on_filter(f0, NELEM(f0), lib_errno0);
}

/* --- every action -------------------------------------------------- */
static const struct {
	uint32_t	act;
	int		want;		/* Psyscall's result when it runs */
	const char	*refused;	/* or the message */
} actions[] = {
	{ SECCOMP_RET_KILL_PROCESS, 0, "killed" },
	{ SECCOMP_RET_KILL_THREAD, 0, "killed" },
	{ SECCOMP_RET_TRAP, 0, "trapped (SIGSYS)" },
	{ RET_ERRNO(0), 0, "skipped as if it had succeeded" },
	{ RET_ERRNO(EACCES), EACCES, NULL },
	{ SECCOMP_RET_USER_NOTIF, 0, "handed to a user-space supervisor" },
	{ SECCOMP_RET_TRACE, 0, "handed to a tracer" },
	{ SECCOMP_RET_LOG, 0, NULL },
	{ 0x00010000U, 0, "killed" },
};
static size_t action_at;

static void
lib_action(struct ps_prochandle *P, const target_t *t)
{
	sysret_t rv;
	int r;

	r = Psyscall(P, &rv, SYS_getppid, 0, NULL);
	if (actions[action_at].refused != NULL) {
		char *msg = tu_asprintf("getppid would be %s by the process's "
		    "seccomp filter", actions[action_at].refused);

		require_refused(P, r, msg);
		free(msg);
	} else {
		ATF_CHECK_EQ_MSG(r, actions[action_at].want, "action 0x%x: "
		    "%d: %s", actions[action_at].act, r, Perrmsg(P));
		if (r == 0)
			ATF_CHECK_EQ(rv.sys_rval1, getpid());
	}
	target_ping(t);
}

ATF_TC(actions);
ATF_TC_HEAD(actions, tc)
{
	atf_tc_set_md_var(tc, "descr", "Every action on the injected call: "
	    "KILL_PROCESS, KILL_THREAD, TRAP, USER_NOTIF, TRACE, an unknown "
	    "one and ERRNO 0 are refused; LOG and ERRNO run");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(actions, tc)
{
	for (action_at = 0; action_at < NELEM(actions); action_at++) {
		struct sock_filter f[] = ON_CALL(SYS_getppid,
		    actions[action_at].act);

		lib_on_filter(f, NELEM(f), lib_action);
	}
}

/* --- arguments ----------------------------------------------------- */
static void
lib_arg_value(struct ps_prochandle *P, const target_t *t)
{
	int v;

	ATF_CHECK_EQ(target_getsockopt(P, T_LISTEN, SO_TYPE, &v), 0);
	ATF_CHECK_EQ(v, SOCK_STREAM);
	require_refused(P, target_getsockopt(P, T_LISTEN, SO_RCVBUF, &v),
	    "getsockopt would be killed by the process's seccomp filter");
	target_ping(t);
}

static void
lib_arg_address(struct ps_prochandle *P, const target_t *t)
{
	argdes_t a[5];
	sysret_t rv;
	int v;

	/* optval by reference: an address the agent has not chosen. */
	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt cannot be proven allowed by the process's seccomp "
	    "filter: it looks at an argument not known before the call");
	/* By value, it is known: NULL is killed, 0x1000 is allowed. */
	argdes_byval(&a[0], T_LISTEN);
	argdes_byval(&a[1], SOL_SOCKET);
	argdes_byval(&a[2], SO_TYPE);
	argdes_byval(&a[3], 0);
	argdes_byval(&a[4], 0x1000);
	require_refused(P, Psyscall(P, &rv, SYS_getsockopt, 5, a),
	    "getsockopt would be killed by the process's seccomp filter");
	argdes_byval(&a[3], 0x1000);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getsockopt, 5, a), EFAULT);
	target_ping(t);
}

ATF_TC(arguments);
ATF_TC_HEAD(arguments, tc)
{
	atf_tc_set_md_var(tc, "descr", "A filter on a by-value argument "
	    "decides each call; one that looks at an address the agent has "
	    "not chosen yet is refused as unproven");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(arguments, tc)
{
	/* getsockopt is killed for SO_RCVBUF (argument 2). */
	struct sock_filter byvalue[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(2)),
		J(BPF_JMP | BPF_JEQ | BPF_K, SO_RCVBUF, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	/* getsockopt is killed when optval (argument 3) is NULL. */
	struct sock_filter address[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(3)),
		J(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	lib_on_filter(byvalue, NELEM(byvalue), lib_arg_value);
	lib_on_filter(address, NELEM(address), lib_arg_address);
}

/* --- several filters ----------------------------------------------- */
static void
lib_several(struct ps_prochandle *P, const target_t *t)
{
	int v;

	require_refused(P, target_getsockopt(P, T_LISTEN, SO_TYPE, &v),
	    "getsockopt would be killed by the process's seccomp filter");
	ATF_CHECK_EQ(target_getsockopt(P, T_LISTEN, SO_RCVBUF, &v), 0);
	target_ping(t);
}

/*
 * An argument that is the result of an earlier call of the batch is not
 * known when the batch is proven: a filter that looks at it cannot be
 * proven to allow the call, whatever value the check would guess.
 */
static void
lib_arg_result(struct ps_prochandle *P, const target_t *t)
{
	psyscall_t c[2];
	argdes_t a[2][3];
	sysret_t rv;

	/* socket() gets the lowest free fd: T_LISTEN + 3, the one killed. */
	argdes_byval(&a[0][0], AF_UNIX);
	argdes_byval(&a[0][1], SOCK_DGRAM | SOCK_CLOEXEC);
	argdes_byval(&a[0][2], 0);
	psyscall_set(&c[0], SYS_socket, a[0], 3);
	argdes_result(&a[1][0], 0);
	psyscall_set(&c[1], SYS_close, a[1], 1);
	require_refused(P, Psyscall_batch(P, c, 2),
	    "close cannot be proven allowed by the process's seccomp "
	    "filter: it looks at an argument not known before the call");
	ATF_CHECK(c[0].ps_rval.sys_rval1 == -1 && c[0].ps_errno == 0);
	ATF_CHECK(c[1].ps_rval.sys_rval1 == -1 && c[1].ps_errno == 0);
	target_ping(t);
	/* close of a known fd the filter allows runs (no such fd). */
	argdes_byval(&a[1][0], 100);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_close, 1, a[1]), EBADF);
	target_ping(t);
}

ATF_TC(arguments_result);
ATF_TC_HEAD(arguments_result, tc)
{
	atf_tc_set_md_var(tc, "descr", "A batch whose close takes the fd "
	    "an earlier socket() of the batch returns, under a filter that "
	    "kills close of that fd: refused as unproven before anything "
	    "runs, the target lives");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(arguments_result, tc)
{
	/* close(T_LISTEN + 3) kills the process. */
	struct sock_filter f[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_close, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(0)),
		J(BPF_JMP | BPF_JEQ | BPF_K, T_LISTEN + 3, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	lib_on_filter(f, NELEM(f), lib_arg_result);
}

/* --- a filter that faults when run ---------------------------------- */
static void
lib_run_fault(struct ps_prochandle *P, const target_t *t)
{
	sysret_t rv;

	require_refused(P, Psyscall(P, &rv, SYS_getppid, 0, NULL),
	    "getppid cannot be proven allowed by the process's seccomp "
	    "filter 0: a shift by 32 bits or more (instruction 3)");
	/* The other calls do not reach the shift. */
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, t->t_pid);
	target_ping(t);
}

ATF_TC(run_fault);
ATF_TC_HEAD(run_fault, tc)
{
	atf_tc_set_md_var(tc, "descr", "A filter the kernel accepts that "
	    "shifts by an X of 32 on getppid, which has no defined result: "
	    "the call is refused, naming the filter, the fault and the "
	    "instruction; other calls run");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(run_fault, tc)
{
	struct sock_filter f[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 2),
		S(BPF_LDX | BPF_W | BPF_IMM, 32),
		S(BPF_ALU | BPF_LSH | BPF_X, 0),
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	lib_on_filter(f, NELEM(f), lib_run_fault);
}

ATF_TC(several_filters);
ATF_TC_HEAD(several_filters, tc)
{
	atf_tc_set_md_var(tc, "descr", "One of three filters kills: the "
	    "call is refused, whichever was installed first");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(several_filters, tc)
{
	struct sock_filter allow[] = {
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter errno_other[] = ON_CALL(SYS_ptrace,
	    RET_ERRNO(EPERM));
	/* getsockopt of SO_TYPE (argument 2) only. */
	struct sock_filter kill[] = {
		S(BPF_LD | BPF_W | BPF_ABS, OFF_NR),
		J(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 3),
		S(BPF_LD | BPF_W | BPF_ABS, OFF_ARG(2)),
		J(BPF_JMP | BPF_JEQ | BPF_K, SO_TYPE, 0, 1),
		S(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		S(BPF_RET | BPF_K, SECCOMP_RET_LOG),
	};
	tspec_t ts;

	for (int first = 0; first < 2; first++) {
		memset(&ts, 0, sizeof (ts));
		ts.ts_nprogs = 3;
		ts.ts_progs[first ? 0 : 2].filter = kill;
		ts.ts_progs[first ? 0 : 2].len = NELEM(kill);
		ts.ts_progs[1].filter = allow;
		ts.ts_progs[1].len = NELEM(allow);
		ts.ts_progs[first ? 2 : 0].filter = errno_other;
		ts.ts_progs[first ? 2 : 0].len = NELEM(errno_other);
		lib_on(&ts, lib_several);
	}
}

/* --- strict mode --------------------------------------------------- */
static void
lib_strict(struct ps_prochandle *P, const target_t *t)
{
	argdes_t a[3];
	sysret_t rv;
	char c = 'x';

	static const struct { int nr; const char *name; } other[] = {
		{ SYS_close, "close" }, { SYS_fstat, "fstat" },
		{ SYS_getsockopt, "getsockopt" }, { SYS_fcntl, "fcntl" },
		{ SYS_mmap, "mmap" }, { SYS_getpid, "getpid" },
	};

	require_refused(P, Psyscall(P, &rv, SYS_getppid, 0, NULL),
	    "getppid would be killed by the process's seccomp strict mode");
	/* Every call of the library other than read and write, too. */
	argdes_byval(&a[0], 100);
	for (size_t i = 0; i < NELEM(other); i++) {
		char *msg = tu_asprintf("%s would be killed by the process's "
		    "seccomp strict mode", other[i].name);

		require_refused(P, Psyscall(P, &rv, other[i].nr, 1, a), msg);
		free(msg);
	}
	target_ping(t);
	/* write is allowed: the target writes to its answer pipe. */
	argdes_byval(&a[0], T_ANS);
	argdes_byref(&a[1], &c, 1, AI_INPUT);
	argdes_byval(&a[2], 1);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_write, 3, a), 0);
	ATF_CHECK_EQ(rv.sys_rval1, 1);
	ATF_CHECK_EQ(answer(t->t_ans), 'x');
}

ATF_TC(strict_mode);
ATF_TC_HEAD(strict_mode, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target in seccomp strict mode: "
	    "only read, write, exit and rt_sigreturn are injected; close, "
	    "fstat, getsockopt, fcntl, mmap, getpid are refused");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(strict_mode, tc)
{
	tspec_t ts;

	memset(&ts, 0, sizeof (ts));
	ts.ts_strict = 1;
	lib_on(&ts, lib_strict);
}

/* --- a filter added while the agent is out ------------------------- */
static void
lib_tsync(struct ps_prochandle *P, const target_t *t)
{
	sysret_t rv;
	char c;

	ATF_REQUIRE_EQ(Pcreate_agent(P), 0);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getppid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, getpid());
	/* The other thread adds a filter to every thread, ours too. */
	ATF_REQUIRE(write(t->t_tcmd, "t", 1) == 1);
	c = answer(t->t_ans);
	ATF_REQUIRE_MSG(c == 'T', "the filter was not added: %c", c);
	require_refused(P, Psyscall(P, &rv, SYS_getppid, 0, NULL),
	    "getppid would be killed by the process's seccomp filter");
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	Pdestroy_agent(P);
}

ATF_TC(filter_added);
ATF_TC_HEAD(filter_added, tc)
{
	atf_tc_set_md_var(tc, "descr", "A filter that another thread of "
	    "the target adds to all its threads (TSYNC) while the agent "
	    "holds one is seen at the next batch, with or without a filter "
	    "before");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(filter_added, tc)
{
	struct sock_filter kill[] = ON_CALL(SYS_getppid,
	    SECCOMP_RET_KILL_PROCESS);
	struct sock_filter allow[] = {
		S(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	tspec_t ts;

	for (int before = 0; before < 2; before++) {
		memset(&ts, 0, sizeof (ts));
		ts.ts_tsync.filter = kill;
		ts.ts_tsync.len = NELEM(kill);
		if (before) {
			ts.ts_nprogs = 1;
			ts.ts_progs[0].filter = allow;
			ts.ts_progs[0].len = NELEM(allow);
		}
		lib_on(&ts, lib_tsync);
	}
}

/* --- filters that cannot be read ----------------------------------- */
ATF_TC(unreadable);
ATF_TC_HEAD(unreadable, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles under a seccomp filter of "
	    "its own cannot read the target's filters: the agent refuses "
	    "every batch, says why, and the target lives");
	REQUIRE_ROOT(tc);
}
ATF_TC_BODY(unreadable, tc)
{
	struct sock_filter f[] = ON_CALL(SYS_getsockopt,
	    SECCOMP_RET_KILL_PROCESS);
	char pidarg[16], nr[16], *msg;
	tspec_t ts;
	target_t t;
	tu_result_t r;

	spec_one(&ts, f, NELEM(f));
	target_start(&t, &ts);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)t.t_pid);
	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_acct);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr, "1", NULL };
		const char *const args[] = { "--via=agent", pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args }, &r);
	}
	target_ping(&t);
	tu_require_exit("pfiles --via=agent", &r, 0);
	msg = tu_asprintf("pfiles: %s: details of 3 sockets unavailable: "
	    "agent: the process's seccomp filters cannot be read: %s (it "
	    "takes CAP_SYS_ADMIN, and no seccomp filter of our own)\n",
	    pidarg, strerror(EACCES));
	tu_require_same_str("unreadable.stderr", msg, r.tr_err);
	free(msg);
	tu_result_free(&r);
	target_stop(&t);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, kill_getsockopt);
	ATF_TP_ADD_TC(tp, kill_mmap);
	ATF_TP_ADD_TC(tp, kill_sendmsg);
	ATF_TP_ADD_TC(tp, errno_getsockopt);
	ATF_TP_ADD_TC(tp, actions);
	ATF_TP_ADD_TC(tp, arguments);
	ATF_TP_ADD_TC(tp, arguments_result);
	ATF_TP_ADD_TC(tp, run_fault);
	ATF_TP_ADD_TC(tp, several_filters);
	ATF_TP_ADD_TC(tp, strict_mode);
	ATF_TP_ADD_TC(tp, filter_added);
	ATF_TP_ADD_TC(tp, unreadable);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_agent_held: what becomes of the thread the agent borrows when the
 * target is stopped, traced by another, killed in the middle of a batch,
 * SIGSTOPped while the thread is held or blocked in a system call
 * (accept, read, epoll_wait, nanosleep, a futex: the call completes as
 * it would have without the agent), or when the controlling process is
 * signalled; and a batch that blocks past its bound (cut, the next one
 * given twice the bound).  The target and the driver are t_agent_life's
 * (fixtures/agent_target, fixtures/agent_driver); t_agent_life holds
 * the borrowing and giving back, Psyscall and its batches.
 */
#include "agentlife_util.h"

#define	SHIM	BUILD_DIR "/atf/race_shim.so"

/* The call agent_target's "epoll" blocks in (agent_target.c). */
#ifdef	SYS_epoll_wait
#define	EPOLL_WAIT_NR	SYS_epoll_wait
#else
#define	EPOLL_WAIT_NR	SYS_epoll_pwait
#endif

/* ------------------------------------------------------------------ */
/* A thread blocked in a system call completes it after being examined. */
/* The number of the system call the main thread is in, or -2. */
static long
syscall_of(pid_t pid)
{
	char path[64], *text;
	long nr = -2;

	(void) snprintf(path, sizeof (path), "/proc/%d/syscall", (int)pid);
	text = tu_read_file(path, NULL);
	if (text[0] >= '0' && text[0] <= '9')
		nr = strtol(text, NULL, 10);
	free(text);
	return (nr);
}

/*
 * Wait until the main thread is asleep ('S') in system call nr (or alt):
 * the call seen before and after the state, so that the sleep is that
 * call's.  The number alone is no proof: it shows as soon as the thread
 * sleeps anywhere inside the call, and a restarted call may not yet have
 * gone back to waiting (a futex wait that has not yet checked its word).
 */
static void
wait_in_syscall(pid_t pid, long nr, long alt)
{
	long now = -2, then;
	char st = 0;

	for (int i = 0; i < 1000 * tu_time_scale(); i++) {
		now = syscall_of(pid);
		if (now == nr || now == alt) {
			st = tu_proc_state(pid);
			then = syscall_of(pid);
			if (st == 'S' && then == now)
				return;
		}
		(void) usleep(5000);
	}
	atf_tc_fail("the target is in system call %ld (state %c), not "
	    "asleep in %ld", now, st ? st : '?', nr);
}

/* Examine the blocked target: a batch, with its results checked. */
static void
examine(pid_t pid)
{
	struct ps_prochandle *P = au_grab(pid);
	int type = -1, len = sizeof (type);
	argdes_t a[3][5];
	psyscall_t c[3];

	memset(c, 0, sizeof (c));
	c[0].ps_sysindex = SYS_getpid;
	argdes_byval(&a[1][0], 0);
	argdes_byval(&a[1][1], F_GETFL);
	c[1].ps_sysindex = SYS_fcntl;
	c[1].ps_nargs = 2;
	c[1].ps_argp = a[1];
	argdes_byval(&a[2][0], 1);		/* stdout: a pipe, not a socket */
	argdes_byval(&a[2][1], SOL_SOCKET);
	argdes_byval(&a[2][2], SO_TYPE);
	argdes_byref(&a[2][3], &type, sizeof (type), AI_OUTPUT);
	argdes_byref(&a[2][4], &len, sizeof (len), AI_INOUT);
	c[2].ps_sysindex = SYS_getsockopt;
	c[2].ps_nargs = 5;
	c[2].ps_argp = a[2];

	au_create_agent(P);
	for (int k = 0; k < 3; k++) {
		ATF_REQUIRE_EQ_MSG(Psyscall_batch(P, c, 3), 0, "%s",
		    Perrmsg(P));
		ATF_CHECK_EQ(c[0].ps_rval.sys_rval1, pid);
		ATF_CHECK_EQ(c[1].ps_errno, 0);
		ATF_CHECK_EQ(c[2].ps_errno, ENOTSOCK);
	}
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_free(pid);
}

typedef struct blocked {
	tu_child_t	b_c;
	pid_t		b_pid;
	int		b_port;
	char		*b_result;
} blocked_t;

static void
block_and_examine(blocked_t *b, const char *call, long nr, long restart_nr)
{
	const char *argv[] = { AU_TARGET, "block", call, NULL };
	char *l;

	tu_spawn(&b->b_c, argv, 0);
	b->b_pid = b->b_c.tc_pid;
	l = tu_read_line(b->b_c.tc_out, AU_LINE_MS);
	ATF_REQUIRE_MSG(l != NULL && strncmp(l, "ready", 5) == 0,
	    "the target said '%s'", l ? l : "(nothing)");
	b->b_port = atoi(l + 5);
	free(l);
	wait_in_syscall(b->b_pid, nr, -1);
	(void) usleep(200000);	/* well inside the call */
	examine(b->b_pid);
	/* Back in the call (nanosleep: in restart_syscall), not out of it. */
	wait_in_syscall(b->b_pid, nr, restart_nr);
}

static void
finish_blocked(blocked_t *b)
{
	int st;

	b->b_result = tu_read_line(b->b_c.tc_out, AU_LINE_MS);
	ATF_REQUIRE_MSG(b->b_result != NULL, "the target said nothing");
	st = tu_stop(&b->b_c, AU_LINE_MS);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "target status 0x%x", st);
}

ATF_TC_WITHOUT_HEAD(blocked_accept);
ATF_TC_BODY(blocked_accept, tc)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	char want[64];
	blocked_t b;
	int s;

	block_and_examine(&b, "accept", SYS_accept, -1);
	/* The accept still accepts a later connection: this one. */
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)b.b_port);
	ATF_REQUIRE(connect(s, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(getsockname(s, (struct sockaddr *)&sin, &len) == 0);
	finish_blocked(&b);
	(void) snprintf(want, sizeof (want), "errno=0 port=%d",
	    ntohs(sin.sin_port));
	ATF_CHECK_MSG(strstr(b.b_result, want) != NULL &&
	    strncmp(b.b_result, "result ret=-", 12) != 0,
	    "accept ended with: %s", b.b_result);
	(void) close(s);
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_read);
ATF_TC_BODY(blocked_read, tc)
{
	blocked_t b;

	block_and_examine(&b, "read", SYS_read, -1);
	au_send_line(&b.b_c, "hello");
	finish_blocked(&b);
	ATF_CHECK_STREQ(b.b_result, "result ret=6 errno=0 data=hello");
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_epoll_wait);
ATF_TC_BODY(blocked_epoll_wait, tc)
{
	blocked_t b;

	if (!ISA_RESTARTS_EINTR)
		atf_tc_expect_fail("the agent cannot restart a call that "
		    "failed with EINTR on " ISA_NAME " (isa.h)");
	block_and_examine(&b, "epoll", EPOLL_WAIT_NR, -1);
	au_send_line(&b.b_c, "x");
	finish_blocked(&b);
	ATF_CHECK_STREQ(b.b_result, "result ret=1 errno=0 fd=0");
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_nanosleep);
ATF_TC_BODY(blocked_nanosleep, tc)
{
	long ms;
	blocked_t b;

	block_and_examine(&b, "nanosleep", SYS_nanosleep, SYS_restart_syscall);
	finish_blocked(&b);
	ATF_REQUIRE_MSG(sscanf(b.b_result, "result ret=0 errno=0 elapsed_ms=%ld",
	    &ms) == 1, "nanosleep ended with: %s", b.b_result);
	ATF_REQUIRE_MSG(ms >= 2000, "slept %ld ms: woken early", ms);
	/*
	 * The full 2 s, measured in the target; restarted from scratch after
	 * the examination (>= 200 ms in) it would be 2.2 s or more.  Where
	 * the agent cannot keep the restart block (isa.h), that is the
	 * sleep's fate when a batch took the thread before it was back in
	 * restart_syscall after the agent's first stop: a known limit, when
	 * it shows.
	 */
	if (!ISA_KEEPS_RESTART_BLOCK && ms >= 2150)
		atf_tc_expect_fail("after a batch, nanosleep is made again "
		    "whole on " ISA_NAME " (isa.h)");
	ATF_CHECK_MSG(ms < 2150, "slept %ld ms, not 2000", ms);
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_futex);
ATF_TC_BODY(blocked_futex, tc)
{
	blocked_t b;

	block_and_examine(&b, "futex", SYS_futex, -1);
	au_send_line(&b.b_c, "wake");
	finish_blocked(&b);
	/* One wait, ended by the wake: no spurious return, no EINTR. */
	ATF_CHECK_STREQ(b.b_result, "result ret=0 errno=0 word=1 waits=1");
	free(b.b_result);
}

/* ------------------------------------------------------------------ */
/* Errors of the borrowing itself. */
ATF_TC(traced_by_another);
ATF_TC_HEAD(traced_by_another, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
}
ATF_TC_BODY(traced_by_another, tc)
{
	struct ps_prochandle *P;
	char pidarg[16], want[64];
	tu_child_t c, s;
	au_manifest_t m;
	sysret_t rv;

	au_spawn_fds(&c, 0, &m);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)m.pid);
	{
		const char *argv[] = { "strace", "-qq", "-o", "/dev/null",
		    "-p", pidarg, NULL };

		tu_spawn(&s, argv, TU_STDERR_NULL);
	}
	au_require_tracer(m.pid, s.tc_pid);
	P = au_grab(m.pid);
	errno = 0;
	ATF_CHECK_EQ(Pcreate_agent(P), -1);
	ATF_CHECK_EQ(errno, EBUSY);
	(void) snprintf(want, sizeof (want), "process is already traced by "
	    "pid %d", (int)s.tc_pid);
	ATF_CHECK_STREQ(Perrmsg(P), want);
	errno = 0;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), -1);
	ATF_CHECK_EQ(errno, EBUSY);
	/* The source refused keeps its reason; the others have none. */
	ATF_CHECK_EQ(Psetsocksrc(P, PSOCK_AGENT), -1);
	ATF_CHECK_STREQ(Psocksrc_why(P, PSOCK_AGENT) != NULL ?
	    Psocksrc_why(P, PSOCK_AGENT) : "(null)", want);
	ATF_CHECK(Psocksrc_why(P, PSOCK_PIDFD) == NULL);
	ATF_CHECK(Psocksrc_why(P, PSOCK_AUTO) == NULL);

	/*
	 * pfiles --via=agent says so without a single ptrace call: the
	 * status is read first, not a seize tried and its EPERM explained.
	 */
	{
		const char *const args[] = { "--via=agent", pidarg, NULL };
		char *cwd = getcwd(NULL, 0), *logvar, *log, *err;
		const char *env[] = { "LD_PRELOAD=" SHIM,
		    "ASAN_OPTIONS=verify_asan_link_order=0", "RACE_CALL=ptrace",
		    "RACE_ACTION=count", NULL, NULL };
		tu_result_t r;

		ATF_REQUIRE(cwd != NULL);
		logvar = tu_asprintf("RACE_LOG=%s/ptrace.log", cwd);
		env[4] = logvar;
		tu_write_file("ptrace.log", "", 0);
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = env }, &r);
		tu_require_exit("pfiles --via=agent, traced by another", &r, 1);
		err = tu_asprintf("pfiles: cannot examine %s: agent: %s\n",
		    pidarg, want);
		tu_require_same_str("stderr", err, r.tr_err);
		log = tu_read_file("ptrace.log", NULL);
		tu_require_same_str("ptrace.log", "ptrace count 0\n", log);
		free(log);
		free(err);
		free(logvar);
		free(cwd);
		tu_result_free(&r);
	}

	(void) kill(s.tc_pid, SIGTERM);
	(void) tu_stop(&s, AU_LINE_MS);
	au_require_tracer(m.pid, 0);
	/* The tracer gone, the same handle may borrow. */
	au_create_agent(P);
	Pdestroy_agent(P);
	/* A new choice forgets the reasons of the last. */
	ATF_CHECK_EQ(Psetsocksrc(P, PSOCK_PIDFD), 0);
	ATF_CHECK(Psocksrc_why(P, PSOCK_AGENT) == NULL);
	Prelease(P, 0);
	au_require_pong(&c);
	au_free_manifest(&m);
	au_stop_target(&c);
}

/*
 * A process stopped by SIGSTOP can be examined, and is left stopped: the
 * borrowed thread goes back into the group stop when it is given back.
 */
ATF_TC_WITHOUT_HEAD(stopped_target);
ATF_TC_BODY(stopped_target, tc)
{
	struct ps_prochandle *P;
	const au_mfd_t *f;
	au_manifest_t m;
	tu_child_t c;
	char st = 0;

	au_spawn_fds(&c, 2, &m);
	ATF_REQUIRE(kill(m.pid, SIGSTOP) == 0);
	st = tu_wait_state(m.pid, 'T', 2000);
	ATF_REQUIRE_EQ_MSG(st, 'T', "state %c", st);
	P = au_grab(m.pid);
	au_create_agent(P);
	f = au_find_kind(&m, "tcpclient");
	au_compare_stat(P, f);
	au_compare_fcntl_lseek(P, f);
	au_compare_socket(P, f);
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_tracer(m.pid, 0);
	st = tu_wait_state(m.pid, 'T', 2000);
	ATF_CHECK_EQ_MSG(st, 'T', "no longer stopped: state %c", st);
	ATF_REQUIRE(kill(m.pid, SIGCONT) == 0);
	au_require_pong(&c);
	au_require_ping_port(m.pingport);
	au_free_manifest(&m);
	au_stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* The target dies during a batch. */
static void *
killer(void *arg)
{
	pid_t pid = *(pid_t *)arg;

	(void) usleep(30000);
	(void) kill(pid, SIGKILL);
	return (NULL);
}

ATF_TC_WITHOUT_HEAD(target_killed_during_batch);
ATF_TC_BODY(target_killed_during_batch, tc)
{
	static psyscall_t calls[MARSHAL_MAXCALLS];
	static argdes_t args[MARSHAL_MAXCALLS][2];
	static struct stat st[MARSHAL_MAXCALLS];
	struct ps_prochandle *P;
	struct timespec t0, t1;
	pthread_t t;
	au_manifest_t m;
	tu_child_t c;
	int rv = 0, batches = 0, st_;
	long ms;

	au_spawn_fds(&c, 2, &m);
	for (int i = 0; i < MARSHAL_MAXCALLS; i++) {
		argdes_byval(&args[i][0], i % 16);
		argdes_byref(&args[i][1], &st[i], sizeof (st[i]), AI_OUTPUT);
		calls[i].ps_sysindex = SYS_fstat;
		calls[i].ps_nargs = 2;
		calls[i].ps_argp = args[i];
	}
	P = au_grab(m.pid);
	au_create_agent(P);
	(void) clock_gettime(CLOCK_MONOTONIC, &t0);
	ATF_REQUIRE(pthread_create(&t, NULL, killer, &m.pid) == 0);
	for (batches = 0; batches < 100000; batches++) {
		if ((rv = Psyscall_batch(P, calls, MARSHAL_MAXCALLS)) != 0)
			break;
	}
	(void) clock_gettime(CLOCK_MONOTONIC, &t1);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000;
	printf("%d batches, then: %s (%ld ms)\n", batches, Perrmsg(P), ms);
	ATF_REQUIRE_EQ_MSG(rv, -1, "the batches went on after the kill");
	ATF_CHECK_EQ(errno, ESRCH);
	ATF_CHECK_STREQ(Perrmsg(P), "no such process");
	ATF_CHECK_MSG(ms < 5000, "took %ld ms to notice", ms);
	Pdestroy_agent(P);
	Prelease(P, 0);
	(void) unlink(m.file);	/* it had no chance to */
	st_ = tu_stop(&c, AU_LINE_MS);
	/* Reaped by the agent's wait, or here: either way not alive. */
	ATF_CHECK(st_ == 0 || (WIFSIGNALED(st_) && WTERMSIG(st_) == SIGKILL));
	ATF_CHECK_EQ(tu_proc_state(m.pid), 0);
	au_free_manifest(&m);
}

/* ------------------------------------------------------------------ */
/* The controlling process is killed while the agent is out. */
ATF_TC_WITHOUT_HEAD(controller_signalled);
ATF_TC_BODY(controller_signalled, tc)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	char pidarg[16], *l;
	au_manifest_t m, again;
	tu_child_t c, d;
	int st;

	au_spawn_fds(&c, 2, &m);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)m.pid);
	srandom((unsigned)getpid());
	for (int i = 0; i < 12; i++) {
		const char *argv[] = { DRIVER, "loop", pidarg, "30", NULL };
		int sig = sigs[i % 3];

		tu_spawn(&d, argv, 0);
		l = tu_read_line(d.tc_out, AU_LINE_MS);
		ATF_REQUIRE_MSG(l != NULL && strcmp(l, "looping") == 0,
		    "driver: %s", l ? l : "(nothing)");
		free(l);
		(void) usleep((useconds_t)(random() % 20000));
		(void) kill(d.tc_pid, sig);
		st = tu_stop(&d, AU_LINE_MS);
		ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sig,
		    "round %d: the driver ended with status 0x%x, not by "
		    "signal %d", i, st, sig);
		/* The thread is given back, unstopped, and serves again. */
		au_require_free(m.pid);
		au_require_ping_port(m.pingport);
		au_require_pong(&c);
	}
	/* Its own view of itself is what it was. */
	au_send_line(&c, "manifest");
	au_read_manifest(&c, &again);
	tu_require_same_str("manifest", m.text, again.text);
	au_free_manifest(&again);
	au_free_manifest(&m);
	au_stop_target(&c);
}

/*
 * A SIGSTOP that comes while the agent holds the thread (it cannot be
 * blocked) fails no call of the next batch, and is not lost: the process
 * is stopped once the thread is given back.
 */
ATF_TC_WITHOUT_HEAD(sigstop_while_held);
ATF_TC_BODY(sigstop_while_held, tc)
{
	struct ps_prochandle *P;
	const au_mfd_t *f;
	struct stat sb;
	au_manifest_t m;
	argdes_t a[2][2];
	psyscall_t c[2];
	tu_child_t t;
	char st = 0;

	au_spawn_fds(&t, 0, &m);
	f = au_find_kind(&m, "file");
	P = au_grab(m.pid);
	au_create_agent(P);
	ATF_REQUIRE(kill(m.pid, SIGSTOP) == 0);

	memset(c, 0, sizeof (c));
	memset(&sb, 0, sizeof (sb));
	c[0].ps_sysindex = SYS_getpid;
	argdes_byval(&a[1][0], f->fd);
	argdes_byref(&a[1][1], &sb, sizeof (sb), AI_OUTPUT);
	c[1].ps_sysindex = SYS_fstat;
	c[1].ps_nargs = 2;
	c[1].ps_argp = a[1];
	ATF_CHECK_EQ_MSG(Psyscall_batch(P, c, 2), 0, "%s", Perrmsg(P));
	ATF_CHECK_EQ(c[0].ps_errno, 0);
	ATF_CHECK_EQ(c[0].ps_rval.sys_rval1, m.pid);
	ATF_CHECK_EQ(c[1].ps_errno, 0);
	ATF_CHECK_EQ((unsigned long long)sb.st_ino, f->ino);
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_tracer(m.pid, 0);
	st = tu_wait_state(m.pid, 'T', 2000);
	ATF_CHECK_EQ_MSG(st, 'T', "the SIGSTOP was lost: state %c", st);
	ATF_REQUIRE(kill(m.pid, SIGCONT) == 0);
	au_require_pong(&t);
	au_free_manifest(&m);
	au_stop_target(&t);
}

/* ------------------------------------------------------------------ */
/* A batch cut at its bound: made again, with twice the bound. */

/*
 * One batch: a nanosleep of 10 s (interrupted at the batch's bound) and
 * a getpid (not made then): the batch is cut, EAGAIN.  Its time in ms.
 */
static long
cut_batch(struct ps_prochandle *P)
{
	struct timespec ts = { 10, 0 };
	argdes_t a[2];
	psyscall_t c[2];
	long t0 = tu_now_ms();

	argdes_byref(&a[0], &ts, sizeof (ts), AI_INPUT);
	argdes_byval(&a[1], 0);
	psyscall_set(&c[0], SYS_nanosleep, a, 2);
	psyscall_set(&c[1], SYS_getpid, NULL, 0);
	ATF_REQUIRE_MSG(Psyscall_batch(P, c, 2) != 0 && errno == EAGAIN,
	    "a batch past its bound: %s", Perrmsg(P));
	ATF_CHECK_EQ(c[0].ps_errno, EINTR);
	ATF_CHECK_EQ(c[1].ps_errno, ECANCELED);
	return (tu_now_ms() - t0);
}

ATF_TC_WITHOUT_HEAD(batch_bound_doubles);
ATF_TC_BODY(batch_bound_doubles, tc)
{
	/* 100 ms, doubled after each cut to 800 (agent.h), in ms. */
	static const long bound[] = { 100, 200, 400, 800, 800 };
	struct ps_prochandle *P;
	au_manifest_t m;
	tu_child_t c;
	sysret_t rv;
	long ms;

	au_spawn_fds(&c, 0, &m);
	P = au_grab(m.pid);
	au_create_agent(P);
	for (size_t i = 0; i < sizeof (bound) / sizeof (bound[0]); i++) {
		ms = cut_batch(P);
		printf("cut batch %zu: %ld ms\n", i, ms);
		/* Never cut before its bound, whatever the load. */
		ATF_CHECK_MSG(ms >= bound[i] - 5, "batch %zu cut after %ld ms, "
		    "its bound %ld", i, ms, bound[i]);
		ATF_CHECK_EQ_MSG(strstr(Perrmsg(P), "cut at its bound") !=
		    NULL, 1, "%s", Perrmsg(P));
	}
	/* A batch not cut: the next one's bound is 100 ms again. */
	ATF_REQUIRE_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ms = cut_batch(P);
	printf("after a batch not cut: %ld ms\n", ms);
	ATF_CHECK_MSG(ms >= 95 && ms < 700, "cut after %ld ms, not 100", ms);
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_free(m.pid);
	au_require_pong(&c);
	au_free_manifest(&m);
	au_stop_target(&c);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, batch_bound_doubles);
	ATF_TP_ADD_TC(tp, blocked_accept);
	ATF_TP_ADD_TC(tp, blocked_read);
	ATF_TP_ADD_TC(tp, blocked_epoll_wait);
	ATF_TP_ADD_TC(tp, blocked_nanosleep);
	ATF_TP_ADD_TC(tp, blocked_futex);
	ATF_TP_ADD_TC(tp, traced_by_another);
	ATF_TP_ADD_TC(tp, stopped_target);
	ATF_TP_ADD_TC(tp, target_killed_during_batch);
	ATF_TP_ADD_TC(tp, controller_signalled);
	ATF_TP_ADD_TC(tp, sigstop_while_held);
	return (atf_no_error());
}

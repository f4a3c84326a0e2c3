/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_agent_life: the agent's life (libproc-patch/libproc/agent/agent.c,
 * Psyscall.c): a thread of the target borrowed and given back, Psyscall
 * and its batches (t_agent_held holds what becomes of the borrowed
 * thread when the target is stopped, traced, killed or blocked, or the
 * controlling process signalled).
 *
 * The target, fixtures/agent_target, tells its own view of itself, and
 * the tests check that it is the same after the agent is gone.  Blocking
 * calls are checked by their outcome in the target: the call completes as
 * it would have without the agent.  fixtures/agent_driver is a
 * controlling process that strace can watch (reads and writes of
 * /proc/PID/mem per batch) and that the tests kill in the middle of its
 * work.
 */
#include "agentlife_util.h"

/* ------------------------------------------------------------------ */
/* Psyscall's errors, and the target unharmed. */
static void
require_einval(int rv, const char *what)
{
	int e = errno;

	ATF_CHECK_EQ_MSG(rv, -1, "%s: returned %d", what, rv);
	ATF_CHECK_EQ_MSG(e, EINVAL, "%s: errno %d", what, e);
}

/* The descriptions that cannot be run, with or without an agent. */
static void
check_bad_descriptions(struct ps_prochandle *P)
{
	static psyscall_t many[MARSHAL_MAXCALLS + 1];
	char name[MAXARGL + 1];
	socklen_t len = sizeof (name);
	argdes_t a[MAXARGS + 1];
	sysret_t rv;

	for (int i = 0; i <= MAXARGS; i++)
		argdes_byval(&a[i], 0);
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_getpid, MAXARGS + 1, a),
	    "nargs > MAXARGS");
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_getpid, 7, a), "nargs 7");

	argdes_byval(&a[0], 0);
	argdes_byref(&a[1], name, MAXARGL + 1, AI_OUTPUT);
	argdes_byref(&a[2], &len, sizeof (len), AI_INOUT);
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_getsockname, 3, a),
	    "arg_size > MAXARGL");

	argdes_byval(&a[0], AT_FDCWD);
	argdes_byref(&a[1], NULL, 10, AI_INPUT);
	argdes_byval(&a[2], O_RDONLY);
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_openat, 3, a),
	    "NULL by-reference input");

	for (int i = 0; i <= MARSHAL_MAXCALLS; i++)
		many[i].ps_sysindex = SYS_getpid;
	errno = 0;
	require_einval(Psyscall_batch(P, many, MARSHAL_MAXCALLS + 1),
	    "a batch too long");
	errno = 0;
	require_einval(Psyscall(NULL, &rv, SYS_getpid, 0, NULL),
	    "NULL handle");
}

ATF_TC_WITHOUT_HEAD(psyscall_errors);
ATF_TC_BODY(psyscall_errors, tc)
{
	struct ps_prochandle *P;
	au_manifest_t m, again;
	char *before;
	argdes_t a[2];
	sysret_t rv;
	tu_child_t c;

	au_spawn_fds(&c, 0, &m);
	before = m.text;
	P = au_grab(m.pid);

	/* Refused before any thread is borrowed. */
	check_bad_descriptions(P);
	ATF_CHECK(au_tracer_of(m.pid) == 0);

	au_create_agent(P);
	/* A call that fails in the target gives its errno. */
	argdes_byval(&a[0], 700);		/* below the target's rlimit, unused */
	argdes_byval(&a[1], F_GETFL);
	rv.sys_rval1 = 12345;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_fcntl, 2, a), EBADF);
	ATF_CHECK_EQ(rv.sys_rval1, -1);
	check_bad_descriptions(P);
	/* The agent still works after all that. */
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, m.pid);
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_free(m.pid);

	/* Unharmed: it answers, and tells the same of itself. */
	au_require_pong(&c);
	au_send_line(&c, "manifest");
	au_read_manifest(&c, &again);
	tu_require_same_str("manifest", before, again.text);
	au_free_manifest(&again);
	free(before);
	au_stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* The I/O budget: reads and writes of /proc/PID/mem per batch. */
typedef struct phase_count {
	char	name[16];
	int	reads, writes, proc_opens;
	int	cuts;		/* batches cut at their bound, made again */
} phase_count_t;

/*
 * Count, per phase of agent_driver's run, the reads and writes of
 * /proc/PID/mem in strace's log (-y shows each fd's path), and the
 * opens of any other file of /proc/PID.
 */
static int
count_phases(const char *log, pid_t pid, phase_count_t *ph, int max,
    int *peekpoke)
{
	char mem[64], procdir[64];
	const char *p = log;
	int n = 1;

	(void) snprintf(mem, sizeof (mem), "/proc/%d/mem>", (int)pid);
	(void) snprintf(procdir, sizeof (procdir), "/proc/%d/", (int)pid);
	memset(ph, 0, sizeof (*ph) * (size_t)max);
	(void) snprintf(ph[0].name, sizeof (ph[0].name), "create");
	*peekpoke = 0;
	while (*p != '\0') {
		const char *nl = strchr(p, '\n'), *q;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];

		if (len >= sizeof (line))
			len = sizeof (line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl != NULL);
		if ((q = strstr(line, "\"phase ")) != NULL && n < max) {
			(void) sscanf(q + 7, "%15[a-z]", ph[n].name);
			n++;
			continue;
		}
		if (strstr(line, "\"batch cut") != NULL) {
			ph[n - 1].cuts++;
			continue;
		}
		if (strstr(line, "PTRACE_PEEK") || strstr(line, "PTRACE_POKE") ||
		    strstr(line, "process_vm_"))
			(*peekpoke)++;
		if (strstr(line, mem) != NULL) {
			if (strstr(line, " pread64(") || strstr(line, " preadv"))
				ph[n - 1].reads++;
			if (strstr(line, " pwrite64(") ||
			    strstr(line, " pwritev"))
				ph[n - 1].writes++;
		} else if (strstr(line, " openat(") &&
		    strstr(line, procdir) != NULL) {
			ph[n - 1].proc_opens++;
		}
	}
	return (n);
}

static const phase_count_t *
phase_named(const phase_count_t *ph, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(ph[i].name, name) == 0)
			return (&ph[i]);
	}
	atf_tc_fail("no phase %s in strace's log", name);
	return (NULL);
}

ATF_TC(io_budget);
ATF_TC_HEAD(io_budget, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "At most one pwrite and one pread of "
	    "/proc/PID/mem per batch, none where nothing goes that way");
}
ATF_TC_BODY(io_budget, tc)
{
	static const struct {
		const char	*name;
		int		reads, writes, batches;
	} want[] = {
		{ "sockets", 5, 5, 5 },	/* 5 batches with outputs */
		{ "inputs", 0, 1, 1 },	/* inputs only: no read */
		{ "byval", 0, 0, 1 },	/* nothing by reference */
		{ "bigin", 0, 1, 1 },	/* through a private mapping */
		{ "bigout", 1, 1, 1 },
		{ "done", 0, 0, 0 },
	};
	phase_count_t ph[8];
	char pidarg[16], fdarg[16], *log;
	tu_result_t r;
	au_manifest_t m;
	tu_child_t c;
	int n, peekpoke;

	au_spawn_fds(&c, 0, &m);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)m.pid);
	(void) snprintf(fdarg, sizeof (fdarg), "%d",
	    au_find_kind(&m, "tcpclient")->fd);
	{
		const char *argv[] = { "strace", "-f", "-qq", "-y", "-o",
		    "strace.log", "-e", "trace=pread64,pwrite64,preadv,"
		    "pwritev,preadv2,pwritev2,process_vm_readv,"
		    "process_vm_writev,ptrace,openat,write", DRIVER, "count",
		    pidarg, fdarg, "5", NULL };

		/* LeakSanitizer (SANITIZE=1) cannot work under strace. */
		const char *env[] = { "ASAN_OPTIONS=detect_leaks=0", NULL };

		tu_run(argv, env, 60000, &r);
	}
	tu_require_exit("agent_driver count", &r, 0);
	ATF_REQUIRE_STREQ(r.tr_out, "ok\n");
	tu_result_free(&r);

	log = tu_read_file("strace.log", NULL);
	n = count_phases(log, m.pid, ph, 8, &peekpoke);
	printf("phase     preads  pwrites  /proc opens  cuts  (of /proc/%d/mem)"
	    "\n", (int)m.pid);
	for (int i = 0; i < n; i++)
		printf("%-8s  %6d  %7d  %11d  %4d\n", ph[i].name, ph[i].reads,
		    ph[i].writes, ph[i].proc_opens, ph[i].cuts);
	for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
		const phase_count_t *p = phase_named(ph, n, want[i].name);
		/*
		 * A batch cut at its bound (a slow machine) is made again,
		 * with its read and write again; where the ISA cannot tell,
		 * the rseq area of each batch is read too.
		 */
		int b = want[i].batches, runs = b + p->cuts;
		int reads = b == 0 ? 0 : want[i].reads / b * runs;
		int writes = b == 0 ? 0 : want[i].writes / b * runs;

		if (!ISA_PARKED_CALL_KNOWN)
			reads += runs;
		ATF_CHECK_EQ_MSG(p->reads, reads, "preads in %s", p->name);
		ATF_CHECK_EQ_MSG(p->writes, writes, "pwrites in %s",
		    p->name);
		ATF_CHECK_EQ_MSG(p->proc_opens, 0, "/proc opens in %s",
		    p->name);
	}
	/*
	 * Creating the agent: no code written (the driver's pr_fstat and
	 * pr_getsockname are the 2 writes), the syscall instruction
	 * confirmed with a read or so.
	 */
	ATF_CHECK_EQ(ph[0].writes, 2);
	ATF_CHECK(ph[0].reads >= 2 && ph[0].reads <= 5);
	ATF_CHECK_EQ_MSG(peekpoke, 0, "ptrace PEEK/POKE or process_vm_*");
	free(log);
	au_free_manifest(&m);
	au_stop_target(&c);
}

/*
 * A 32-bit (i386) program, with no libc: it opens a socket (for pfiles
 * to ask about), says "ready", then echoes each byte of its stdin until
 * its end, and exits 0.
 */
static const char i386_src[] =
    "static long sys3(long n, long a, long b, long c)\n"
    "{\n"
    "\tlong r;\n"
    "\t__asm__ volatile (\"int $0x80\" : \"=a\"(r) : \"a\"(n), \"b\"(a),\n"
    "\t    \"c\"(b), \"d\"(c) : \"memory\");\n"
    "\treturn r;\n"
    "}\n"
    "void _start(void);\n"
    "void _start(void)\n"
    "{\n"
    "\tchar c;\n"
    "\tsys3(359, 1, 1, 0);\n"
    "\tsys3(4, 1, (long)\"ready\\n\", 6);\n"
    "\twhile (sys3(3, 0, (long)&c, 1) == 1)\n"
    "\t\tsys3(4, 1, (long)&c, 1);\n"
    "\tsys3(1, 0, 0, 0);\n"
    "\tfor (;;)\n"
    "\t\t;\n"
    "}\n";

ATF_TC(not_x86_64);
ATF_TC_HEAD(not_x86_64, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "A 32-bit (i386) process cannot be "
	    "given x86_64 system calls: Pcreate_agent and Psyscall refuse it "
	    "with ENOEXEC, and pfiles --via=agent says so and never ptraces "
	    "it (no PTRACE_SEIZE); it runs on untraced");
}
ATF_TC_BODY(not_x86_64, tc)
{
	const char *const cc[] = { TEST_CC, "-m32", "-nostdlib", "-static",
	    "-ffreestanding", "-fno-pic", "-O1", "-o", "i386", "i386.c", NULL };
	const char *const argv[] = { "./i386", NULL };
	struct ps_prochandle *P;
	tu_result_t r;
	tu_child_t c;
	sysret_t rv;
	char *l;

	tu_write_file("i386.c", i386_src, strlen(i386_src));
	tu_run(cc, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0) {
		tu_result_free(&r);
		atf_tc_skip("%s cannot build an i386 program here", TEST_CC);
	}
	tu_result_free(&r);
	tu_spawn(&c, argv, TU_STDERR_NULL);
	l = tu_read_line(c.tc_out, AU_LINE_MS);
	if (l == NULL || strcmp(l, "ready") != 0) {
		free(l);
		(void) tu_stop(&c, AU_LINE_MS);
		atf_tc_skip("this kernel does not run i386 programs");
	}
	free(l);

	P = au_grab(c.tc_pid);
	errno = 0;
	ATF_CHECK_EQ(Pcreate_agent(P), -1);
	ATF_CHECK_EQ(errno, ENOEXEC);
	ATF_CHECK_STREQ(Perrmsg(P), "not a " ISA_NAME " process");
	errno = 0;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), -1);
	ATF_CHECK_EQ(errno, ENOEXEC);
	au_require_free(c.tc_pid);
	Prelease(P, 0);
	{
		char pidarg[16], *log, *msg;
		const char *const wrap[] = { "strace", "-f", "-qq", "-o",
		    "ptrace.log", "-e", "trace=ptrace", NULL };
		const char *const args[] = { "--via=agent", pidarg, NULL };
		/* LeakSanitizer (SANITIZE=1) cannot work under strace. */
		const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    NULL };

		(void) snprintf(pidarg, sizeof (pidarg), "%d",
		    (int)c.tc_pid);
		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
		tu_require_exit("pfiles --via=agent", &r, 1);
		msg = tu_asprintf("pfiles: cannot examine %s: agent: not a "
		    ISA_NAME " process\n", pidarg);
		ATF_CHECK_MSG(strcmp(r.tr_err, msg) == 0, "pfiles said: %s",
		    r.tr_err);
		free(msg);
		log = tu_read_file("ptrace.log", NULL);
		ATF_CHECK_MSG(strstr(log, "PTRACE_SEIZE") == NULL, "pfiles "
		    "seized the process:\n%.2000s", log);
		free(log);
		tu_result_free(&r);
		(void) unlink("ptrace.log");
	}
	au_require_free(c.tc_pid);
	/* It runs as before: it echoes. */
	ATF_REQUIRE(write(c.tc_in, "x\n", 2) == 2);
	l = tu_read_line(c.tc_out, AU_LINE_MS);
	ATF_CHECK_MSG(l != NULL && strcmp(l, "x") == 0, "the target did "
	    "not echo: %s", l != NULL ? l : "(nothing)");
	free(l);
	{
		int st = tu_stop(&c, AU_LINE_MS);

		ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "the target ended with status 0x%x", st);
	}
	(void) unlink("i386");
	(void) unlink("i386.c");
}

ATF_TC_WITHOUT_HEAD(lifecycle);
ATF_TC_BODY(lifecycle, tc)
{
	struct ps_prochandle *P, *self;
	au_manifest_t m;
	tu_child_t c;
	sysret_t rv;
	int gerr;

	au_spawn_fds(&c, 0, &m);
	P = au_grab(m.pid);
	au_create_agent(P);
	au_create_agent(P);		/* already held: nothing more */
	au_require_tracer(m.pid, (int)getpid());
	Pdestroy_agent(P);
	au_require_free(m.pid);
	Pdestroy_agent(P);		/* none held: nothing */

	/* Prelease gives back an agent still held. */
	au_create_agent(P);
	Prelease(P, 0);
	au_require_free(m.pid);

	/* Prelease_agents (for signal handlers) gives every thread back. */
	P = au_grab(m.pid);
	au_create_agent(P);
	Prelease_agents();
	au_require_free(m.pid);
	errno = 0;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), -1);
	ATF_CHECK_EQ(errno, ESRCH);
	Pdestroy_agent(P);
	au_create_agent(P);		/* and a new one can be made */
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, m.pid);
	Prelease(P, 0);
	au_require_free(m.pid);

	/* Not a thread of ourselves. */
	self = Pgrab(getpid(), 0, &gerr);
	ATF_REQUIRE(self != NULL);
	errno = 0;
	ATF_CHECK_EQ(Pcreate_agent(self), -1);
	ATF_CHECK_EQ(errno, EINVAL);
	Prelease(self, 0);

	au_require_pong(&c);
	au_free_manifest(&m);
	au_stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* Where the batch's block goes, and what is left behind. */
/* The text of /proc/PID/maps. */
static char *
maps_of(pid_t pid)
{
	char path[64];

	(void) snprintf(path, sizeof (path), "/proc/%d/maps", (int)pid);
	return (tu_read_file(path, NULL));
}

/* The calls that fill a batch of n getcwd(buf[i], MAXARGL). */
static void
getcwd_batch(psyscall_t *c, argdes_t (*a)[2], char (*buf)[MAXARGL], int n)
{
	memset(c, 0, sizeof (*c) * (size_t)n);
	for (int i = 0; i < n; i++) {
		memset(buf[i], 'x', MAXARGL);
		argdes_byref(&a[i][0], buf[i], MAXARGL, AI_OUTPUT);
		argdes_byval(&a[i][1], MAXARGL);
		c[i].ps_sysindex = SYS_getcwd;
		c[i].ps_nargs = 2;
		c[i].ps_argp = a[i];
	}
}

/*
 * A batch whose objects need more room than the agent takes below the
 * thread's stack pointer (32 KiB: 9 objects of MAXARGL bytes) runs, and
 * leaves the process's mappings as they were: the scratch mapping it
 * needed is gone when the batch is.
 */
ATF_TC_WITHOUT_HEAD(large_batch_leaves_no_mapping);
ATF_TC_BODY(large_batch_leaves_no_mapping, tc)
{
	enum { N = 9 };
	static char buf[N][MAXARGL];
	static argdes_t a[N][2];
	static psyscall_t c[N];
	char path[64], cwd[MAXARGL];
	char *before, *after;
	struct ps_prochandle *P;
	au_manifest_t m;
	tu_child_t t;
	ssize_t n;

	au_spawn_fds(&t, 0, &m);
	(void) snprintf(path, sizeof (path), "/proc/%d/cwd", (int)m.pid);
	n = readlink(path, cwd, sizeof (cwd) - 1);
	ATF_REQUIRE(n > 0);
	cwd[n] = '\0';
	before = maps_of(m.pid);
	P = au_grab(m.pid);
	au_create_agent(P);
	for (int round = 0; round < 2; round++) {
		getcwd_batch(c, a, buf, N);
		ATF_REQUIRE_MSG(Psyscall_batch(P, c, N) == 0, "%s", Perrmsg(P));
		for (int i = 0; i < N; i++) {
			ATF_CHECK_EQ_MSG(c[i].ps_errno, 0, "call %d", i);
			ATF_CHECK_EQ(c[i].ps_rval.sys_rval1, n + 1);
			ATF_CHECK_STREQ(buf[i], cwd);
		}
		/* The agent still held, lent between batches. */
		after = maps_of(m.pid);
		tu_require_same_str("maps", before, after);
		free(after);
	}
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_free(m.pid);
	after = maps_of(m.pid);
	tu_require_same_str("maps", before, after);
	free(after);
	free(before);
	au_require_pong(&t);
	au_free_manifest(&m);
	au_stop_target(&t);
}

/*
 * A thread that runs on a stack of its own making (a coroutine's, here
 * an array in the program's data) is not one whose memory below the
 * stack pointer is known to be free.  The agent leaves that memory alone:
 * every batch, even one with no object at all, runs in a scratch mapping,
 * which is removed after it.
 */
#define	CO_STACK	(128 * 1024)
static unsigned char co_stack[CO_STACK] __attribute__((aligned(16)));
static ucontext_t co_main, co_uc;
static int co_fd;

static void
co_body(void)
{
	char b;

	(void) !read(co_fd, &b, 1);
}

/* The child: block in a read on the coroutine's stack, then exit 0. */
static void
co_child(int rfd, int wfd)
{
	char b;

	co_fd = rfd;
	/*
	 * A read of nothing first, on the main stack: a lazy binding of
	 * read() would otherwise use kilobytes of the coroutine's stack.
	 */
	if (read(rfd, &b, 0) != 0)
		_exit(2);
	memset(co_stack, 0xa5, sizeof (co_stack));
	if (getcontext(&co_uc) != 0)
		_exit(2);
	co_uc.uc_stack.ss_sp = co_stack;
	co_uc.uc_stack.ss_size = sizeof (co_stack);
	co_uc.uc_link = &co_main;
	makecontext(&co_uc, co_body, 0);
	if (write(wfd, "r", 1) != 1 || swapcontext(&co_main, &co_uc) != 0)
		_exit(3);
	_exit(0);
}

/* The stack pointer of pid's main thread, when it is in call nr. */
static uint64_t
sp_in_call(pid_t pid, long nr)
{
	char path[64], *text = NULL;
	unsigned long long sp = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 2000; i++) {
		long now;

		text = tu_read_file(path, NULL);
		if (sscanf(text, "%ld %*s %*s %*s %*s %*s %*s %llx", &now,
		    &sp) == 2 && now == nr)
			break;
		free(text);
		text = NULL;
		sp = 0;
		(void) usleep(5000);
	}
	free(text);
	ATF_REQUIRE_MSG(sp != 0, "pid %d never got into call %ld",
	    (int)pid, nr);
	return (sp);
}

ATF_TC_WITHOUT_HEAD(own_stack_left_alone);
ATF_TC_BODY(own_stack_left_alone, tc)
{
	static unsigned char seen[CO_STACK], seen0[CO_STACK];
	int go[2], ready[2], st, mfd;
	char *before, *after, path[64], b;
	struct ps_prochandle *P;
	struct stat want, got;
	uint64_t sp, lo = (uintptr_t)co_stack;
	size_t below;
	argdes_t a[2];
	sysret_t rv;
	pid_t pid;

	ATF_REQUIRE(pipe(go) == 0 && pipe(ready) == 0);
	if ((pid = fork()) == 0) {
		(void) close(go[1]);
		(void) close(ready[0]);
		co_child(go[0], ready[1]);
	}
	ATF_REQUIRE(pid > 0);
	(void) close(go[0]);
	(void) close(ready[1]);
	ATF_REQUIRE_EQ(read(ready[0], &b, 1), 1);
	sp = sp_in_call(pid, SYS_read);
	/* The same address in the child: it is a fork of this program. */
	ATF_REQUIRE_MSG(sp > lo + 4096 && sp <= lo + CO_STACK,
	    "sp %#llx outside the coroutine's stack", (unsigned long long)sp);
	below = (size_t)(sp - 128 - lo);
	(void) snprintf(path, sizeof (path), "/proc/%d/fd/%d", (int)pid, go[0]);
	ATF_REQUIRE(stat(path, &want) == 0);
	before = maps_of(pid);
	(void) snprintf(path, sizeof (path), "/proc/%d/mem", (int)pid);
	ATF_REQUIRE((mfd = open(path, O_RDONLY)) >= 0);
	ATF_REQUIRE_EQ(pread(mfd, seen0, below, (off_t)lo), (ssize_t)below);

	P = au_grab(pid);
	au_create_agent(P);
	/* Nothing by reference: still never below the stack pointer. */
	ATF_CHECK_EQ_MSG(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0, "%s",
	    Perrmsg(P));
	ATF_CHECK_EQ(rv.sys_rval1, pid);
	memset(&got, 0, sizeof (got));
	argdes_byval(&a[0], go[0]);
	argdes_byref(&a[1], &got, sizeof (got), AI_OUTPUT);
	ATF_CHECK_EQ_MSG(Psyscall(P, &rv, SYS_fstat, 2, a), 0, "%s",
	    Perrmsg(P));
	ATF_CHECK_EQ(got.st_ino, want.st_ino);
	ATF_CHECK_EQ(got.st_dev, want.st_dev);
	Pdestroy_agent(P);
	Prelease(P, 0);
	au_require_tracer(pid, 0);

	after = maps_of(pid);
	tu_require_same_str("maps", before, after);
	free(after);
	free(before);
	/* The coroutine's free stack is as it was before. */
	ATF_REQUIRE_EQ(pread(mfd, seen, below, (off_t)lo), (ssize_t)below);
	(void) close(mfd);
	for (size_t i = 0; i < below; i++)
		ATF_REQUIRE_MSG(seen[i] == seen0[i], "byte %zu below sp "
		    "changed from %#x to %#x", below - i, seen0[i], seen[i]);

	/* It goes on: its read returns, and it exits 0. */
	ATF_REQUIRE_EQ(write(go[1], "g", 1), 1);
	ATF_REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x",
	    st);
	(void) close(go[1]);
	(void) close(ready[0]);
}

/*
 * A process whose main thread has exited (its leader a zombie) while
 * another thread goes on: the agent borrows the live thread, and the
 * calls run in the process.
 */
static int mx_fd;

static void *
mx_thread(void *arg)
{
	char b;

	(void) arg;
	_exit(read(mx_fd, &b, 1) == 1 ? 0 : 4);
}

ATF_TC_WITHOUT_HEAD(main_thread_exited);
ATF_TC_BODY(main_thread_exited, tc)
{
	struct ps_prochandle *P;
	int go[2], st;
	char state = 0, path[64];
	pid_t pid, live = 0;
	sysret_t rv;
	DIR *d;
	struct dirent *e;

	ATF_REQUIRE(pipe(go) == 0);
	if ((pid = fork()) == 0) {
		pthread_t t;

		(void) close(go[1]);
		mx_fd = go[0];
		if (pthread_create(&t, NULL, mx_thread, NULL) != 0)
			_exit(5);
		pthread_exit(NULL);
	}
	ATF_REQUIRE(pid > 0);
	(void) close(go[0]);
	state = tu_wait_state(pid, 'Z', 10000);
	ATF_REQUIRE_EQ_MSG(state, 'Z', "leader in state %c", state);
	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)pid);
	ATF_REQUIRE((d = opendir(path)) != NULL);
	while ((e = readdir(d)) != NULL) {
		if (atoi(e->d_name) > 0 && atoi(e->d_name) != pid)
			live = atoi(e->d_name);
	}
	(void) closedir(d);
	ATF_REQUIRE(live > 0);

	P = au_grab(pid);
	au_create_agent(P);
	ATF_CHECK_EQ_MSG(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0, "%s",
	    Perrmsg(P));
	ATF_CHECK_EQ(rv.sys_rval1, pid);
	ATF_CHECK_EQ_MSG(Psyscall(P, &rv, SYS_gettid, 0, NULL), 0, "%s",
	    Perrmsg(P));
	ATF_CHECK_EQ(rv.sys_rval1, live);
	Pdestroy_agent(P);
	Prelease(P, 0);
	(void) snprintf(path, sizeof (path), "/proc/%d/task/%d/status",
	    (int)pid, (int)live);
	{
		char *s = tu_read_file(path, NULL);

		ATF_CHECK_MSG(strstr(s, "\nTracerPid:\t0\n") != NULL,
		    "thread %d still traced", (int)live);
		free(s);
	}
	ATF_REQUIRE_EQ(write(go[1], "g", 1), 1);
	ATF_REQUIRE_EQ(waitpid(pid, &st, 0), pid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x",
	    st);
	(void) close(go[1]);
}

/* ------------------------------------------------------------------ */
/* With a NULL handle, pr_* act on the calling process. */
ATF_TC_WITHOUT_HEAD(null_handle);
ATF_TC_BODY(null_handle, tc)
{
	struct sockaddr_storage ss, ss2;
	socklen_t sl = sizeof (ss), sl2 = sizeof (ss2);
	struct stat st, st2;
	struct rlimit rl, rl2;
	int sv[2], v, len = sizeof (v), fd;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
	ATF_CHECK_EQ(pr_getsockopt(NULL, sv[0], SOL_SOCKET, SO_TYPE, &v,
	    &len), 0);
	ATF_CHECK_EQ(v, SOCK_DGRAM);
	ATF_CHECK_EQ(len, sizeof (v));
	ATF_CHECK_EQ(pr_getsockname(NULL, sv[0], (struct sockaddr *)&ss,
	    &sl), 0);
	ATF_CHECK_EQ(getsockname(sv[0], (struct sockaddr *)&ss2, &sl2), 0);
	ATF_CHECK(sl == sl2 && memcmp(&ss, &ss2, sl) == 0);
	ATF_CHECK_EQ(pr_getpeername(NULL, sv[0], (struct sockaddr *)&ss,
	    &sl), 0);
	ATF_CHECK_EQ(pr_fstat(NULL, sv[1], &st), 0);
	ATF_CHECK_EQ(fstat(sv[1], &st2), 0);
	ATF_CHECK_EQ(st.st_ino, st2.st_ino);
	ATF_CHECK_EQ(pr_fcntl(NULL, sv[1], F_GETFL, NULL),
	    fcntl(sv[1], F_GETFL));
	ATF_CHECK_EQ(pr_fcntl(NULL, sv[1], F_SETFD, (void *)(long)FD_CLOEXEC),
	    0);
	ATF_CHECK_EQ(fcntl(sv[1], F_GETFD), FD_CLOEXEC);
	ATF_CHECK_EQ(pr_getrlimit(NULL, RLIMIT_NOFILE, &rl), 0);
	ATF_CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl2), 0);
	ATF_CHECK_EQ(rl.rlim_cur, rl2.rlim_cur);
	fd = pr_open(NULL, "/dev/null", O_RDONLY, 0);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK_EQ(pr_lseek(NULL, fd, 0, SEEK_CUR), 0);
	ATF_CHECK_EQ(pr_close(NULL, fd), 0);
	errno = 0;
	ATF_CHECK_EQ(pr_close(NULL, fd), -1);
	ATF_CHECK_EQ(errno, EBADF);
	(void) close(sv[0]);
	(void) close(sv[1]);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, psyscall_errors);
	ATF_TP_ADD_TC(tp, io_budget);
	ATF_TP_ADD_TC(tp, not_x86_64);
	ATF_TP_ADD_TC(tp, lifecycle);
	ATF_TP_ADD_TC(tp, null_handle);
	ATF_TP_ADD_TC(tp, large_batch_leaves_no_mapping);
	ATF_TP_ADD_TC(tp, own_stack_left_alone);
	ATF_TP_ADD_TC(tp, main_thread_exited);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_fdshort: pfiles short of fds of its own (a low soft RLIMIT_NOFILE).
 * The target is a child of the test that opens some 300 fds (TCP
 * listener, connections and UDP sockets on 127.0.0.1, unix socket pairs,
 * pipes, /dev/null, directories, regular files) and says, from its own
 * fstat of each, which fds it holds and of what type.  pfiles runs at
 * RLIMIT_NOFILE LIM_LO to LIM_HI, RUNS times at each, text and -J:
 *
 *	from the limit pfiles.1 gives (FULL_MIN, FULL_MIN_AGENT,
 *	FULL_MIN_MANY) up, every run exits 0, says on stderr what it says
 *	at the usual limit (nothing, but with diag), lists
 *	every fd of the target with its type (the target's own list),
 *	prints the same bytes each run, and the same as at the ordinary
 *	limit (the agent, which then asks inside the target, with its
 *	peers unnamed);
 *	one below it, with pidfd (and auto): every fd, but no fd to prove
 *	who a unix socket's peer is: every peer unnamed, and "not shown:
 *	peer (too many open files)" for each pid;
 *	below that, every run exits 1 and says on stderr only what ran out
 *	(never that the target exited or is gone);
 *	after every run, the target is alive, neither stopped nor traced,
 *	and holds the fds it held (no fd of the agent's left in it).
 *
 *  via_auto	pfiles with no --via (auto: bpf is not tried short of fds)
 *  via_pidfd	--via=pidfd
 *  via_agent	--via=agent (ptrace and injected calls: it needs one fd more)
 *  via_diag	--via=diag (one fd more too; the facts it cannot give are
 *		named on stderr, as at the usual limit)
 *  many_auto	pfiles with no --via on two such targets (a run over
 *		several pids: one fd more; no handle grabbed ahead)
 *  leaderless_*	the same target with its main thread exited
 *		(pthread_exit) while LEADERLESS_THREADS others run: one fd
 *		more (a pidfd of the live thread it is examined through,
 *		where the kernel has them: 6.9),
 *		and short of fds, what ran out, never "process is defunct";
 *		with auto, pidfd, agent and diag as above, with -n (every fd,
 *		or what ran out), and with bpf (which refuses such a process:
 *		what ran out, or bpf's reason)
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define	LIM_LO		6
#define	LIM_HI		16
#define	RUNS		5
#define	FULL_MIN	9	/* pfiles.1: every fact from here up */
#define	FULL_MIN_AGENT	9	/* the same with --via=agent or diag */
#define	FULL_MIN_MANY	10	/* the same with several pids */
#define	MAX_TARGETS	2
/*
 * A target whose main thread has exited: one fd more, pfiles.1 says,
 * where the kernel has pidfds of threads (6.9) to hold.
 */
#define	FULL_MIN_LEADERLESS	(FULL_MIN + (tu_have_thread_pidfd() ? 1 : 0))
#define	LEADERLESS_THREADS	200
#define	LEADERLESS_LIM_HI	12
#define	LEADERLESS_RUNS	2	/* each grab waits EXEC_SETTLE_MS */
#define	RUN_MS		60000
#define	TARGET_MAXFD	1024

/* What the target opens: about 300 fds. */
#define	N_TCP		60	/* connections: client and accepted end */
#define	N_UDP		10
#define	N_PAIR		40
#define	N_PIPE		20
#define	N_NULL		20
#define	N_DIR		10
#define	N_FILE		10

typedef struct target {
	pid_t	t_pid;
	pid_t	t_tid;		/* the thread that lives: t_pid, or with */
				/* its main thread exited, another */
	int	t_ctl;		/* closed: the target exits */
	char	t_arg[16];	/* its pid, as pfiles is given it */
	char	*t_view;	/* "FD TYPE\n" for each fd, its own view */
	size_t	t_nfds;
} target_t;

static const char *
type_word(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:	return ("S_IFREG");
	case S_IFDIR:	return ("S_IFDIR");
	case S_IFCHR:	return ("S_IFCHR");
	case S_IFBLK:	return ("S_IFBLK");
	case S_IFIFO:	return ("S_IFIFO");
	case S_IFSOCK:	return ("S_IFSOCK");
	case S_IFLNK:	return ("S_IFLNK");
	default:	return ("?");
	}
}

/* The target's sockets; 0 or -1 (errno). */
static int
open_sockets(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int l, fds[2];

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, N_TCP) != 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) != 0)
		return (-1);
	for (int i = 0; i < N_TCP; i++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);

		if (c < 0 || connect(c, (struct sockaddr *)&sin,
		    sizeof (sin)) != 0 || accept(l, NULL, NULL) < 0)
			return (-1);
	}
	sin.sin_port = 0;
	for (int i = 0; i < N_UDP; i++) {
		int u = socket(AF_INET, SOCK_DGRAM, 0);

		if (u < 0 || bind(u, (struct sockaddr *)&sin,
		    sizeof (sin)) != 0)
			return (-1);
	}
	for (int i = 0; i < N_PAIR; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
			return (-1);
	}
	return (0);
}

/* The rest of its fds; 0 or -1 (errno). */
static int
open_files(void)
{
	int fds[2];

	for (int i = 0; i < N_PIPE; i++) {
		if (pipe(fds) != 0)
			return (-1);
	}
	for (int i = 0; i < N_NULL; i++) {
		if (open("/dev/null", O_RDWR) < 0)
			return (-1);
	}
	for (int i = 0; i < N_DIR; i++) {
		if (open("/", O_RDONLY | O_DIRECTORY) < 0)
			return (-1);
	}
	for (int i = 0; i < N_FILE; i++) {
		if (open("fdshort.file", O_RDWR | O_CREAT, 0644) < 0)
			return (-1);
	}
	return (0);
}

/* A thread of a leaderless target: it runs until the process exits. */
static void *
sleeper(void *arg)
{
	(void) arg;
	for (;;)
		(void) pause();
	return (NULL);
}

/*
 * The thread that speaks for a leaderless target once its main thread
 * is a zombie: "tid N" and "ready", then fd 4 read until the test
 * closes it.
 */
static void *
speaker(void *arg)
{
	char c;

	(void) arg;
	for (int i = 0; tu_proc_state(getpid()) != 'Z'; i++) {
		if (i == RUN_MS)
			_exit(1);
		(void) usleep(1000);
	}
	(void) dprintf(3, "tid %d\nready\n", (int)gettid());
	while (read(4, &c, 1) != 0)
		continue;
	_exit(0);
	return (NULL);
}

/* LEADERLESS_THREADS threads, the speaker, and the main thread's exit. */
static void __attribute__((__noreturn__))
leave_main(void)
{
	pthread_attr_t attr;
	pthread_t t;

	if (pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, 64 * 1024) != 0)
		_exit(1);
	for (int i = 0; i < LEADERLESS_THREADS; i++) {
		if (pthread_create(&t, &attr, sleeper, NULL) != 0)
			_exit(1);
	}
	if (pthread_create(&t, &attr, speaker, NULL) != 0)
		_exit(1);
	pthread_exit(NULL);
}

/*
 * The target (a child): 3 writes to the test, 4 is read until the
 * test closes it; 0, 1, 2 are /dev/null.  Says "FD TYPE" for each of
 * its fds, then "ready"; a leaderless one first lets its main thread
 * exit, and says which thread lives ("tid N").
 */
static void __attribute__((__noreturn__))
target_main(int rep, int ctl, int leaderless)
{
	char c;
	int nul;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if ((rep = fcntl(rep, F_DUPFD, 100)) < 0 ||
	    (ctl = fcntl(ctl, F_DUPFD, 100)) < 0 || dup2(rep, 3) != 3 ||
	    dup2(ctl, 4) != 4 || close_range(5, ~0U, 0) != 0 ||
	    (nul = open("/dev/null", O_RDWR)) < 0 || dup2(nul, 0) != 0 ||
	    dup2(nul, 1) != 1 || dup2(nul, 2) != 2 || close(nul) != 0)
		_exit(126);
	if (open_sockets() != 0 || open_files() != 0) {
		(void) dprintf(3, "fail %s\n", strerror(errno));
		_exit(1);
	}
	for (int fd = 0; fd < TARGET_MAXFD; fd++) {
		struct stat st;

		if (fstat(fd, &st) == 0)
			(void) dprintf(3, "%d %s\n", fd, type_word(st.st_mode));
	}
	if (leaderless)
		leave_main();
	(void) dprintf(3, "ready\n");
	while (read(4, &c, 1) != 0)
		continue;
	_exit(0);
}

static void
target_start(target_t *t, int leaderless)
{
	const char *tid;
	int rep[2], ctl[2], found;

	if (pipe2(rep, O_CLOEXEC) != 0 || pipe2(ctl, O_CLOEXEC) != 0)
		atf_tc_fail("pipe2: %s", strerror(errno));
	if ((t->t_pid = fork()) < 0)
		atf_tc_fail("fork: %s", strerror(errno));
	if (t->t_pid == 0)
		target_main(rep[1], ctl[0], leaderless);
	(void) close(rep[1]);
	(void) close(ctl[0]);
	t->t_ctl = ctl[1];
	(void) snprintf(t->t_arg, sizeof (t->t_arg), "%d", (int)t->t_pid);
	t->t_view = tu_read_until(rep[0], "ready", RUN_MS, &found);
	(void) close(rep[0]);
	if (!found)
		atf_tc_fail("the target did not get ready: %s", t->t_view);
	t->t_tid = t->t_pid;
	if (leaderless) {
		/* its last line: not an fd of the view */
		if ((tid = strstr(t->t_view, "tid ")) == NULL ||
		    (t->t_tid = (pid_t)atoi(tid + 4)) == t->t_pid ||
		    t->t_tid <= 0 || tu_proc_state(t->t_pid) != 'Z')
			atf_tc_fail("the target's main thread lives on: %s",
			    t->t_view);
		t->t_view[tid - t->t_view] = '\0';
	}
	t->t_nfds = 0;
	for (const char *p = t->t_view; *p != '\0'; p++)
		t->t_nfds += *p == '\n';
	if (t->t_nfds < N_TCP * 2 + N_PAIR * 2 + N_PIPE * 2)
		atf_tc_fail("the target holds %zu fds", t->t_nfds);
}

static void
target_stop(target_t *t)
{
	int st;

	(void) close(t->t_ctl);
	if (waitpid(t->t_pid, &st, 0) != t->t_pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		atf_tc_fail("the target did not exit as told: 0x%x",
		    (unsigned)st);
	free(t->t_view);
}

/* How many fds the target holds now: its /proc directory's count. */
static size_t
fds_now(pid_t pid)
{
	char path[40];
	struct stat st;
	size_t n = 0;

	for (int fd = 0; fd < TARGET_MAXFD; fd++) {
		(void) snprintf(path, sizeof (path), "/proc/%d/fd/%d",
		    (int)pid, fd);
		n += lstat(path, &st) == 0;
	}
	return (n);
}

/*
 * The target's thread that lives is gone: how the target ended, for the
 * test is its parent (the exit of the whole process, or of this thread
 * alone), so that the failure says what happened.
 */
static void __attribute__((__noreturn__))
target_gone(const target_t *t, const char *what)
{
	int st = 0;
	pid_t r = waitpid(t->t_pid, &st, WNOHANG);

	if (r == t->t_pid && WIFSIGNALED(st))
		atf_tc_fail("%s: the target was killed by signal %d", what,
		    WTERMSIG(st));
	if (r == t->t_pid)
		atf_tc_fail("%s: the target exited (status 0x%x)", what,
		    (unsigned)st);
	atf_tc_fail("%s: the target's thread %d is gone, the process %s",
	    what, (int)t->t_tid, r == 0 ? "lives on" : strerror(errno));
}

/*
 * The target as pfiles found it: alive, not stopped, as it was (seen
 * through the thread that lives).
 */
static void
require_untouched(const target_t *t, const char *what)
{
	char path[40], *status, *tracer;
	char s = tu_proc_state(t->t_tid);

	if (s == 0)
		target_gone(t, what);
	if (s == 'T' || s == 't' || s == 'Z' || s == 'X')
		atf_tc_fail("%s: the target's state is '%c'", what, s);
	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)t->t_tid);
	status = tu_read_file(path, NULL);
	if ((tracer = strstr(status, "\nTracerPid:\t")) == NULL ||
	    strncmp(tracer, "\nTracerPid:\t0\n", 14) != 0)
		atf_tc_fail("%s: the target is traced", what);
	free(status);
	if (fds_now(t->t_tid) != t->t_nfds)
		atf_tc_fail("%s: the target holds %zu fds, not %zu", what,
		    fds_now(t->t_tid), t->t_nfds);
}

/*
 * "FD TYPE\n" for each fd that pfiles' output lists: its fd lines
 * (text), or its fd objects (-J, one a line).
 */
static char *
listed(const char *out, int json)
{
	char *list = tu_asprintf("%s", ""), *line, *copy, *save = NULL;

	copy = tu_asprintf("%s", out);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char type[64], *more;
		int fd;

		if (json ? sscanf(line, "{\"fd\":%d,\"type\":\"%63[^\"]\"",
		    &fd, type) != 2 : !tu_is_fd_line(line) ||
		    sscanf(line, "%d: %63s", &fd, type) != 2)
			continue;
		more = tu_asprintf("%s%d %s\n", list, fd, type);
		free(list);
		list = more;
	}
	free(copy);
	return (list);
}

/* The targets of a case, examined by one pfiles in this order. */
typedef struct targets {
	target_t	ts_t[MAX_TARGETS];
	int		ts_n;
	char		*ts_view;	/* their views, one after another */
	int		ts_peerless;	/* one below the full limit: every */
					/* fd, no fd to prove a peer */
	int		ts_agent;	/* --via=agent */
	int		ts_runs;	/* at each limit */
	rlim_t		ts_lim_hi;	/* the last limit tried */
	int		ts_leaderless;	/* their main threads exited */
	const char	*ts_opt;	/* NULL, or "-n" */
} targets_t;

/* One run of pfiles [-J] [--via=VIA] PID... at the limit; its result. */
static void
run(const targets_t *ts, const char *via, int json, rlim_t lim,
    tu_result_t *r)
{
	char opt[32];
	const char *opts[4], *pids[MAX_TARGETS];
	int n = 0;

	if (json)
		opts[n++] = "-J";
	if (ts->ts_opt != NULL)
		opts[n++] = ts->ts_opt;
	if (via != NULL) {
		(void) snprintf(opt, sizeof (opt), "--via=%s", via);
		opts[n++] = opt;
	}
	opts[n] = NULL;
	for (int i = 0; i < ts->ts_n; i++)
		pids[i] = ts->ts_t[i].t_arg;
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids,
	    .tp_npids = (size_t)ts->ts_n, .tp_timeout_ms = RUN_MS,
	    .tp_nofile = lim }, r);
}

/*
 * What the agent prints where it asks inside the target (short of fds,
 * it passes nothing): every target's peer (each has one) unnamed, and
 * that said once per pid, on stderr and, with -J, in its notes (none
 * at the usual limit).  *outp and *errp are the usual run's, replaced.
 */
static void
agent_unnamed(const targets_t *ts, int json, char **outp, char **errp)
{
	static const char note[] = "not shown: peer (agent: asked inside "
	    "the process, not passed to pfiles)";
	char *out = tu_unnamed_peers(*outp), *p, *next;

	for (int i = 0; i < ts->ts_n; i++) {
		next = tu_asprintf("%spfiles: %s: %s\n", *errp,
		    ts->ts_t[i].t_arg, note);
		free(*errp);
		*errp = next;
		/* the next empty notes of -J are this pid's */
		if (json && (p = strstr(out, "\"notes\":[]")) != NULL) {
			next = tu_asprintf("%.*s\"notes\":[\"%s\"]%s",
			    (int)(p - out), out, note, p + 10);
			free(out);
			out = next;
		}
	}
	*outp = out;
}

/*
 * At a limit that allows it: every fd, the same as at the usual limit
 * (stdout and stderr: with diag, the facts it cannot give are named).
 */
static void
require_full(const targets_t *ts, const tu_result_t *r,
    const tu_result_t *usual, int json, const char *what)
{
	char *got, *want = tu_asprintf("%s", usual->tr_out);
	char *err = tu_asprintf("%s", usual->tr_err);

	/* short of fds, the agent asks inside the target: no peer proven */
	if (ts->ts_agent)
		agent_unnamed(ts, json, &want, &err);
	tu_require_exit(what, r, 0);
	tu_require_same_str(what, err, r->tr_err);
	got = listed(r->tr_out, json);
	tu_require_same_str(what, ts->ts_view, got);
	free(got);
	tu_require_same_str(what, want, r->tr_out);
	free(want);
	free(err);
}

/*
 * -n below that limit, when it examined the process: every fd (the
 * header's lines may be fewer).
 */
static void
require_listed(const targets_t *ts, const tu_result_t *r, int json,
    const char *what)
{
	char *got = listed(r->tr_out, json);

	tu_require_same_str(what, ts->ts_view, got);
	free(got);
}

/*
 * One below it, where a peer: line would name a process (every source
 * but diag): every fd, but the one fd that proves who a peer is was not
 * there: each peer unnamed, and said, for each pid.
 */
static void
require_peerless(const targets_t *ts, const tu_result_t *r, int json,
    const char *what)
{
	char *want = tu_asprintf("%s", ""), *more, *got;

	for (int i = 0; i < ts->ts_n; i++) {
		more = tu_asprintf("%spfiles: %s: not shown: peer (too many "
		    "open files)\n", want, ts->ts_t[i].t_arg);
		free(want);
		want = more;
	}
	tu_require_exit(what, r, 0);
	tu_require_same_str(what, want, r->tr_err);
	got = listed(r->tr_out, json);
	tu_require_same_str(what, ts->ts_view, got);
	free(got);
	if (!json)
		ATF_CHECK_MSG(strstr(r->tr_out, "\tpeer: ?[") != NULL &&
		    strstr(r->tr_out, "\tpeer: t_fdshort[") == NULL,
		    "%s: a peer named, or none unnamed", what);
	free(want);
}

/* Below it: exit 1, and only what ran out said, for each pid. */
static void
require_short(const targets_t *ts, const tu_result_t *r, rlim_t lim,
    int json, const char *what)
{
	char *want = tu_asprintf("%s", ""), *more;

	for (int i = 0; i < ts->ts_n; i++) {
		more = tu_asprintf("%spfiles: cannot examine %s: pfiles is "
		    "short of file descriptors (RLIMIT_NOFILE %llu)\n", want,
		    ts->ts_t[i].t_arg, (unsigned long long)lim);
		free(want);
		want = more;
	}
	tu_require_exit(what, r, 1);
	tu_require_same_str(what, want, r->tr_err);
	if (!json)
		tu_require_same_str(what, "", r->tr_out);
	free(want);
}

/* RUNS runs at one limit: each as the limit allows, all the same. */
static void
runs_at(const targets_t *ts, const char *via, int json, rlim_t lim,
    rlim_t full_min, const tu_result_t *usual)
{
	char *first = NULL;

	for (int i = 0; i < ts->ts_runs; i++) {
		char *what = tu_asprintf("%s%s%s%s, %d pid%s%s, RLIMIT_NOFILE "
		    "%llu, run %d", via != NULL ? via : "auto",
		    ts->ts_opt != NULL ? " " : "",
		    ts->ts_opt != NULL ? ts->ts_opt : "", json ? " -J" : "",
		    ts->ts_n, ts->ts_n == 1 ? "" : "s",
		    ts->ts_leaderless ? " (main thread exited)" : "",
		    (unsigned long long)lim, i + 1);
		tu_result_t r;

		run(ts, via, json, lim, &r);
		for (int k = 0; k < ts->ts_n; k++)
			require_untouched(&ts->ts_t[k], what);
		if (lim >= full_min)
			require_full(ts, &r, usual, json, what);
		else if (ts->ts_opt != NULL && WIFEXITED(r.tr_status) &&
		    WEXITSTATUS(r.tr_status) == 0)
			require_listed(ts, &r, json, what);
		else if (lim == full_min - 1 && ts->ts_peerless)
			require_peerless(ts, &r, json, what);
		else
			require_short(ts, &r, lim, json, what);
		if (first == NULL)
			first = tu_asprintf("%s", r.tr_out);
		tu_require_same_str(what, first, r.tr_out);
		tu_result_free(&r);
		free(what);
	}
	free(first);
}

/* The targets started: n, leaderless or not. */
static void
targets_start(targets_t *ts, int n, int leaderless)
{
	ts->ts_n = n;
	ts->ts_leaderless = leaderless;
	ts->ts_runs = leaderless ? LEADERLESS_RUNS : RUNS;
	ts->ts_lim_hi = leaderless ? LEADERLESS_LIM_HI : LIM_HI;
	ts->ts_view = tu_asprintf("%s", "");
	for (int i = 0; i < n; i++) {
		char *more;

		target_start(&ts->ts_t[i], leaderless);
		more = tu_asprintf("%s%s", ts->ts_view, ts->ts_t[i].t_view);
		free(ts->ts_view);
		ts->ts_view = more;
	}
}

static void
targets_stop(targets_t *ts)
{
	for (int i = 0; i < ts->ts_n; i++)
		target_stop(&ts->ts_t[i]);
	free(ts->ts_view);
}

/*
 * Every limit, ts_runs times, text and -J, for one source, on n targets
 * (leaderless: their main threads exited).
 */
static void
short_runs(const char *via, rlim_t full_min, int n, int leaderless)
{
	targets_t ts;

	targets_start(&ts, n, leaderless);
	ts.ts_opt = NULL;
	/* the agent and diag need their fd more before a peer's */
	ts.ts_peerless = via == NULL || strcmp(via, "pidfd") == 0;
	ts.ts_agent = via != NULL && strcmp(via, "agent") == 0;
	/* auto serves through the agent where pidfd cannot (before 6.9) */
	if (leaderless && via == NULL && !tu_have_thread_pidfd()) {
		ts.ts_peerless = 0;
		ts.ts_agent = 1;
	}
	for (int json = 0; json < 2; json++) {
		tu_result_t usual;

		run(&ts, via, json, 0, &usual);
		tu_require_exit("pfiles at the usual limit", &usual, 0);
		/* Only diag has facts to name that it cannot give. */
		if (via == NULL || strcmp(via, "diag") != 0)
			tu_require_same_str("stderr at the usual limit", "",
			    usual.tr_err);
		for (rlim_t lim = LIM_LO; lim <= ts.ts_lim_hi; lim++)
			runs_at(&ts, via, json, lim, full_min, &usual);
		tu_result_free(&usual);
	}
	targets_stop(&ts);
}

ATF_TC(via_auto);
ATF_TC_HEAD(via_auto, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles (auto) at RLIMIT_NOFILE 6 to "
	    "16: every fd each run from 9 up (at 8, peers unnamed and said), "
	    "what ran out below");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(via_auto, tc)
{
	short_runs(NULL, FULL_MIN, 1, 0);
}

ATF_TC(via_pidfd);
ATF_TC_HEAD(via_pidfd, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd at RLIMIT_NOFILE "
	    "6 to 16: every fd each run from 9 up (at 8, peers unnamed and "
	    "said), what ran out below");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(via_pidfd, tc)
{
	short_runs("pidfd", FULL_MIN, 1, 0);
}

ATF_TC(via_agent);
ATF_TC_HEAD(via_agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent at RLIMIT_NOFILE "
	    "6 to 16: every fd each run from 9 up, what ran out below, "
	    "never the target's exit; the target let go as it was");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(via_agent, tc)
{
	short_runs("agent", FULL_MIN_AGENT, 1, 0);
}

ATF_TC(via_diag);
ATF_TC_HEAD(via_diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag at RLIMIT_NOFILE "
	    "6 to 16: every fd each run from 9 up, what ran out below");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(via_diag, tc)
{
	short_runs("diag", FULL_MIN_AGENT, 1, 0);
}

ATF_TC(many_auto);
ATF_TC_HEAD(many_auto, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles (auto) on two pids at "
	    "RLIMIT_NOFILE 6 to 16: every fd of each, each run, from 10 up "
	    "(a run over several pids holds one fd more; at 9, peers unnamed "
	    "and said), what ran out "
	    "below, for each pid");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(many_auto, tc)
{
	short_runs(NULL, FULL_MIN_MANY, 2, 0);
}

ATF_TC(leaderless_auto);
ATF_TC_HEAD(leaderless_auto, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles (auto) at RLIMIT_NOFILE 6 to "
	    "12 on a target whose main thread has exited while 200 others "
	    "run: every fd each run from 10 up (9 before Linux 6.9; at 9, "
	    "peers unnamed and "
	    "said, where pidfd serves), below what ran out, as for any "
	    "process: never \"process is defunct\"");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(leaderless_auto, tc)
{
	short_runs(NULL, FULL_MIN_LEADERLESS, 1, 1);
}

ATF_TC(leaderless_pidfd);
ATF_TC_HEAD(leaderless_pidfd, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd at RLIMIT_NOFILE "
	    "6 to 12 on a target whose main thread has exited: every fd "
	    "from 10 up (at 9, peers unnamed and said), what ran out below, "
	    "never \"process is defunct\"");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(leaderless_pidfd, tc)
{
	if (!tu_have_thread_pidfd())
		atf_tc_skip("no pidfds of threads (Linux 6.9): pidfd refuses "
		    "a process whose main thread has exited (t_truth)");
	short_runs("pidfd", FULL_MIN_LEADERLESS, 1, 1);
}

ATF_TC(leaderless_agent);
ATF_TC_HEAD(leaderless_agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent at RLIMIT_NOFILE "
	    "6 to 12 on a target whose main thread has exited: every fd "
	    "from 10 up (9 before Linux 6.9), what ran out below, never "
	    "\"process is defunct\"; "
	    "the target let go as it was");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(leaderless_agent, tc)
{
	short_runs("agent", FULL_MIN_LEADERLESS, 1, 1);
}

ATF_TC(leaderless_diag);
ATF_TC_HEAD(leaderless_diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag at RLIMIT_NOFILE "
	    "6 to 12 on a target whose main thread has exited: every fd "
	    "from 10 up (9 before Linux 6.9), what ran out below, never "
	    "\"process is defunct\"");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(leaderless_diag, tc)
{
	short_runs("diag", FULL_MIN_LEADERLESS, 1, 1);
}

ATF_TC(leaderless_n);
ATF_TC_HEAD(leaderless_n, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n at RLIMIT_NOFILE 6 to 12 "
	    "on a target whose main thread has exited: every fd from 10 up "
	    "(9 before Linux 6.9), "
	    "below every fd or what ran out, never \"process is defunct\"");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(leaderless_n, tc)
{
	targets_t ts;

	targets_start(&ts, 1, 1);
	ts.ts_opt = "-n";
	ts.ts_peerless = ts.ts_agent = 0;
	for (int json = 0; json < 2; json++) {
		tu_result_t usual;

		run(&ts, NULL, json, 0, &usual);
		tu_require_exit("pfiles -n at the usual limit", &usual, 0);
		tu_require_same_str("stderr at the usual limit", "",
		    usual.tr_err);
		for (rlim_t lim = LIM_LO; lim <= ts.ts_lim_hi; lim++)
			runs_at(&ts, NULL, json, lim, FULL_MIN_LEADERLESS,
			    &usual);
		tu_result_free(&usual);
	}
	targets_stop(&ts);
}

ATF_TC(leaderless_bpf);
ATF_TC_HEAD(leaderless_bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf at RLIMIT_NOFILE 6 "
	    "to 12 on a target whose main thread has exited, which bpf does "
	    "not serve: exit 1, nothing on stdout, one line: what ran out or "
	    "bpf's reason, never \"process is defunct\"");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(leaderless_bpf, tc)
{
	targets_t ts;

	tu_require_bpf();
	targets_start(&ts, 1, 1);
	ts.ts_opt = NULL;
	for (rlim_t lim = LIM_LO; lim <= ts.ts_lim_hi; lim++) {
		char *what = tu_asprintf("bpf, RLIMIT_NOFILE %llu",
		    (unsigned long long)lim);
		char *head = tu_asprintf("pfiles: cannot examine %s: ",
		    ts.ts_t[0].t_arg), *nl;
		tu_result_t r;

		run(&ts, "bpf", 0, lim, &r);
		require_untouched(&ts.ts_t[0], what);
		if (strncmp(r.tr_err, head, strlen(head)) == 0 &&
		    strncmp(r.tr_err + strlen(head), "bpf: ", 5) == 0 &&
		    (nl = strchr(r.tr_err, '\n')) != NULL && nl[1] == '\0') {
			tu_require_exit(what, &r, 1);
			tu_require_same_str(what, "", r.tr_out);
		} else {
			require_short(&ts, &r, lim, 0, what);
		}
		tu_result_free(&r);
		free(head);
		free(what);
	}
	targets_stop(&ts);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, via_auto);
	ATF_TP_ADD_TC(tp, via_pidfd);
	ATF_TP_ADD_TC(tp, via_agent);
	ATF_TP_ADD_TC(tp, via_diag);
	ATF_TP_ADD_TC(tp, many_auto);
	ATF_TP_ADD_TC(tp, leaderless_auto);
	ATF_TP_ADD_TC(tp, leaderless_pidfd);
	ATF_TP_ADD_TC(tp, leaderless_agent);
	ATF_TP_ADD_TC(tp, leaderless_diag);
	ATF_TP_ADD_TC(tp, leaderless_n);
	ATF_TP_ADD_TC(tp, leaderless_bpf);
	return (atf_no_error());
}

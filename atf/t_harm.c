/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_harm: the agent does its target no harm that the target can see.
 * Each case runs pfiles --via=agent at a target of atf/harm_helper.c,
 * which checks itself and reports what it saw:
 *
 *  calls_not_interrupted	a thread blocked in semop, sigwaitinfo or
 *				epoll_wait with no timeout: none of them
 *				returns EINTR because the agent borrowed it
 *  no_signal_lost		real-time signals queued at the borrowed
 *				thread without pause while the agent comes
 *				and goes: every one sent is received
 *  tracer_not_borrowed	pfiles run under strace -f, pointed at that
 *				strace: the agent refuses (it would stop the
 *				tracer that waits on it) instead of hanging
 *  exec_is_no_exit		a process that execs again and again from a
 *				second thread while it is examined: never
 *				"exited", never a lost agent (the agent's
 *				deadline may be said); with pidfd and the
 *				agent
 *  deadline_in_exec_storm	a process that execs every 3 ms from a
 *				second thread, which no agent can settle in:
 *				pfiles --via=agent ends within the agent's
 *				deadline, no thread of the target is stopped
 *				for a second at a stretch, and it is never
 *				called exited or not to be examined
 *  stress			200 borrows of a thread that runs rseq
 *				sections and timed waits under a signal storm
 *				while another thread churns an fd: no signal
 *				lost, no section committed late, alive
 *  rseq_section_aborted	a thread borrowed inside an rseq critical
 *				section is given back at the section's abort
 *				handler, as after a preemption: no section
 *				commits after being off the CPU
 *  stop_bounded		pfiles' output is not read for 3 s, in the
 *				middle of a walk: the borrowed thread is
 *				stopped for a batch at a time, not for as long
 *				as pfiles waits
 *  facts_of_one_socket	an fd switched flat out between a TCP
 *				listener and a UDP socket, served by the
 *				per-socket batch (the target is in another
 *				network namespace): every block is wholly the
 *				one socket's or the other's
 *  linger_not_waited	the target dies while pfiles holds the last
 *				duplicate of its socket, which has SO_LINGER
 *				and unsent data: pfiles does not wait for the
 *				linger time, with pidfd or the agent
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "isa.h"
#include "libproc.h"

#define	HELPER		BUILD_DIR "/atf/harm_helper"
#define	LINE_MS		10000
#define	STORM_RUNS	100
#define	BLOCK_RUNS	3

/* Is the main thread of pid blocked in a system call (not running)? */
static int
is_blocked(pid_t pid)
{
	char path[64], *text;
	long nr = -1;

	(void) snprintf(path, sizeof (path), "/proc/%d/syscall", (int)pid);
	text = tu_read_file(path, NULL);
	if (text == NULL || sscanf(text, "%ld", &nr) != 1)
		nr = -1;
	free(text);
	return (nr >= 0);
}

/*
 * Start the helper with up to three arguments, and wait for its "ready":
 * what it said before that (its "KEY VALUE" lines).
 */
static char *
start_says(tu_child_t *c, const char *mode, const char *arg, char *pid,
    size_t pidsz)
{
	const char *argv[] = { HELPER, mode, arg, NULL };
	char *text;
	int found;

	tu_spawn(c, argv, 0);
	text = tu_read_until(c->tc_out, "ready", LINE_MS, &found);
	if (strncmp(text, "skip ", 5) == 0) {
		(void) tu_stop(c, LINE_MS);
		atf_tc_skip("%.*s", (int)strcspn(text + 5, "\n"), text + 5);
	}
	ATF_REQUIRE_MSG(found, "harm_helper %s: no ready: %s", mode, text);
	(void) snprintf(pid, pidsz, "%d", (int)c->tc_pid);
	return (text);
}

/* Start the helper in mode (with arg), and wait for its "ready". */
static void
start_arg(tu_child_t *c, const char *mode, const char *arg, char *pid,
    size_t pidsz)
{
	free(start_says(c, mode, arg, pid, pidsz));
}

static void
start(tu_child_t *c, const char *mode, char *pid, size_t pidsz)
{
	start_arg(c, mode, NULL, pid, pidsz);
}

/* Close its stdin (the end of the run) and read its "result" line. */
static char *
finish(tu_child_t *c)
{
	char *line;
	int st;

	(void) close(c->tc_in);
	c->tc_in = -1;
	/* A loaded machine may take a while to drain a signal storm. */
	line = tu_read_line(c->tc_out, TU_TIMEOUT_MS);
	st = tu_stop(c, LINE_MS);
	ATF_REQUIRE_MSG(line != NULL && strncmp(line, "result ", 7) == 0,
	    "no result: %s", line != NULL ? line : "(nothing)");
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the target ended with status 0x%x", st);
	return (line);
}

static void
agent_at(const char *pid)
{
	const char *args[] = { "--via=agent", pid, NULL };
	tu_result_t r;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	tu_require_exit("pfiles --via=agent", &r, 0);
	tu_result_free(&r);
}

ATF_TC(calls_not_interrupted);
ATF_TC_HEAD(calls_not_interrupted, tc)
{
	atf_tc_set_md_var(tc, "descr", "A thread blocked in semop, "
	    "sigwaitinfo or epoll_wait with no timeout, borrowed three times: "
	    "the call goes on waiting and never returns EINTR");
}
ATF_TC_BODY(calls_not_interrupted, tc)
{
	static const char *const modes[] = { "semop", "sigwait",
	    "epollwait" };

	if (!ISA_RESTARTS_EINTR)
		atf_tc_expect_fail("the agent cannot restart a call that "
		    "failed with EINTR on " ISA_NAME " (isa.h)");

	for (size_t m = 0; m < sizeof (modes) / sizeof (modes[0]); m++) {
		char pid[16], *result;
		tu_child_t c;
		long eintrs;

		start(&c, modes[m], pid, sizeof (pid));
		for (int i = 0; i < LINE_MS && !is_blocked(c.tc_pid); i++)
			(void) usleep(1000);
		for (int i = 0; i < BLOCK_RUNS; i++)
			agent_at(pid);
		result = finish(&c);
		ATF_REQUIRE(sscanf(result, "result %ld", &eintrs) == 1);
		ATF_CHECK_MSG(eintrs == 0, "%s returned EINTR %ld times",
		    modes[m], eintrs);
		free(result);
	}
}

ATF_TC(no_signal_lost);
ATF_TC_HEAD(no_signal_lost, tc)
{
	atf_tc_set_md_var(tc, "descr", "Real-time signals queued at the "
	    "borrowed thread without pause while pfiles --via=agent runs 100 "
	    "times: every signal sent is received");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(no_signal_lost, tc)
{
	char pid[16], *result;
	long sent, received;
	tu_child_t c;

	start(&c, "sigstorm", pid, sizeof (pid));
	for (int i = 0; i < STORM_RUNS; i++)
		agent_at(pid);
	result = finish(&c);
	ATF_REQUIRE(sscanf(result, "result %ld %ld", &sent, &received) == 2);
	printf("%d agent runs: %ld signals sent, %ld received\n", STORM_RUNS,
	    sent, received);
	ATF_CHECK(sent > 0);
	ATF_CHECK_EQ(sent, received);
	free(result);
}

ATF_TC(rseq_section_aborted);
ATF_TC_HEAD(rseq_section_aborted, tc)
{
	atf_tc_set_md_var(tc, "descr", "A thread that runs rseq critical "
	    "sections back to back, with 2000 sockets so that each walk "
	    "holds it for a while, borrowed 10 times: no section commits "
	    "after the thread was off the CPU; they abort");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(rseq_section_aborted, tc)
{
	long commits, aborts, late;
	char pid[16], *result;
	tu_child_t c;

	start_arg(&c, "rseq", "1000", pid, sizeof (pid));
	for (int i = 0; i < 10; i++)
		agent_at(pid);
	result = finish(&c);
	ATF_REQUIRE(sscanf(result, "result %ld %ld %ld", &commits, &aborts,
	    &late) == 3);
	printf("%ld sections committed, %ld aborted, %ld committed late\n",
	    commits, aborts, late);
	ATF_CHECK(commits > 0);
	ATF_CHECK_EQ(late, 0);
	free(result);
}

ATF_TC(tracer_not_borrowed);
ATF_TC_HEAD(tracer_not_borrowed, tc)
{
	atf_tc_set_md_var(tc, "descr", "strace -f pfiles --via=agent "
	    "<that strace>: pfiles refuses the agent with a reason, at once, "
	    "instead of stopping the process that traces it");
	atf_tc_set_md_var(tc, "require.progs", "strace");
}
ATF_TC_BODY(tracer_not_borrowed, tc)
{
	/* strace holds a socket (UDP, connected to loopback, nothing sent):
	 * one without needs no source, and the agent would not be asked. */
	char *cmd = tu_asprintf("exec 3<>/dev/udp/127.0.0.1/9 && "
	    "exec strace -f -o /dev/null %s --via=agent $$", TU_PFILES);
	const char *argv[] = { "/bin/bash", "-c", cmd, NULL };
	tu_result_t r;

	/* Before: both stopped for good (the bound ends it, and the test). */
	tu_run(argv, NULL, LINE_MS, &r);
	tu_require_exit("strace -f pfiles --via=agent", &r, 1);
	ATF_CHECK_MSG(strstr(r.tr_err, ": agent: the process is tracing this "
	    "one\n") != NULL, "%s", r.tr_err);
	tu_require_same_str("stdout", "", r.tr_out);
	tu_result_free(&r);
	free(cmd);
}

/*
 * What pfiles must never say of a process that lives on, however often
 * it execs: that it exited or is gone, that it cannot be examined, that
 * the agent was lost or refused.  (That the agent met its deadline, or
 * could not prove a peer, may be said: those are true.)  The first such
 * line of err, or NULL.
 */
static const char *
false_word(const char *err)
{
	static const char *const words[] = {
		"exited", "no such process", "defunct", "cannot examine",
		"its thread is leaving", "not usable", "not permitted",
	};

	for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++)
		if (strstr(err, words[i]) != NULL)
			return (words[i]);
	return (NULL);
}

/* pfiles' environment for the agent's own deadline, the default. */
static const char *const dflt[] = { TU_DEFAULT_DEADLINE, NULL };

ATF_TC(exec_is_no_exit);
ATF_TC_HEAD(exec_is_no_exit, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process with 600 sockets that "
	    "execs itself every 30 ms from a second thread, examined 30 times "
	    "with pidfd and 30 with the agent: every run exits 0 and has "
	    "never a word of an exit or a lost agent on stderr");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(exec_is_no_exit, tc)
{
	static const char *const vias[] = { "--via=pidfd", "--via=agent" };
	char pid[16];
	tu_child_t c;
	int st;

	start(&c, "exec", pid, sizeof (pid));
	for (int i = 0; i < 60; i++) {
		const char *args[] = { vias[i % 2], pid, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = dflt }, &r);
		/*
		 * What is true may be said (the agent met its deadline on a
		 * busy machine; an other end was read mid-exec): never a
		 * false word.
		 */
		ATF_CHECK_MSG(WIFEXITED(r.tr_status) &&
		    WEXITSTATUS(r.tr_status) == 0 &&
		    false_word(r.tr_err) == NULL,
		    "%s, run %d: status 0x%x: %s", vias[i % 2], i,
		    r.tr_status, r.tr_err);
		tu_result_free(&r);
	}
	(void) close(c.tc_in);
	c.tc_in = -1;
	st = tu_stop(&c, LINE_MS);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the target ended with status 0x%x", st);
}

/*
 * A watch over the threads of a process: every 2 ms, the State of each
 * (/proc/PID/task/TID/stat); the longest span for which one thread was
 * seen in a tracing stop ('t') without a break.
 */
#define	WATCH_THREADS	64

typedef struct stop_watch {
	pid_t		sw_pid;
	volatile int	sw_stop;
	long long	sw_longest;	/* ms */
	pthread_t	sw_thread;
} stop_watch_t;

/* The tids of pid's threads, at most max; how many. */
static int
watch_tids(pid_t pid, int *tids, int max)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while (n < max && (de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			tids[n++] = atoi(de->d_name);
	}
	(void) closedir(d);
	return (n);
}

/* The State letter of one thread, 0 when it is gone. */
static int
watch_state(pid_t pid, int tid)
{
	char path[80], text[512], *p;
	ssize_t n = -1;
	int fd, st = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/task/%d/stat",
	    (int)pid, tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, text, sizeof (text) - 1);
		(void) close(fd);
	}
	if (n <= 0)
		return (0);		/* gone: an exec took it */
	text[n] = '\0';
	if ((p = strrchr(text, ')')) != NULL && p[1] == ' ')
		st = p[2];
	return (st);
}

static void *
watch_run(void *arg)
{
	stop_watch_t *sw = arg;
	int tid[WATCH_THREADS], since_tid[WATCH_THREADS], nsince = 0;
	long long since[WATCH_THREADS];

	while (!sw->sw_stop) {
		int n = watch_tids(sw->sw_pid, tid, WATCH_THREADS), k = 0;
		long long now = tu_now_ms();

		for (int i = 0; i < n; i++) {
			long long t0 = now;

			if (watch_state(sw->sw_pid, tid[i]) != 't')
				continue;
			for (int j = 0; j < nsince; j++)
				if (since_tid[j] == tid[i])
					t0 = since[j];
			if (now - t0 > sw->sw_longest)
				sw->sw_longest = now - t0;
			tid[k] = tid[i];
			since[k++] = t0;
		}
		memcpy(since_tid, tid, sizeof (int) * (size_t)k);
		nsince = k;
		(void) usleep(2000);
	}
	return (NULL);
}

ATF_TC(deadline_in_exec_storm);
ATF_TC_HEAD(deadline_in_exec_storm, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process with 600 sockets that "
	    "execs itself every 3 ms from a second thread, examined 5 times "
	    "with the agent: each run ends within the agent's deadline and a "
	    "second, no thread of the target is seen in a tracing stop for "
	    "over a second at a stretch, and stderr never says it exited, "
	    "cannot be examined or lost its agent");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(deadline_in_exec_storm, tc)
{
	stop_watch_t sw = { .sw_stop = 0, .sw_longest = 0 };
	char pid[16];
	tu_child_t c;

	start_arg(&c, "exec", "3", pid, sizeof (pid));
	sw.sw_pid = c.tc_pid;
	ATF_REQUIRE(pthread_create(&sw.sw_thread, NULL, watch_run, &sw) == 0);
	for (int i = 0; i < 5; i++) {
		const char *args[] = { "--via=agent", pid, NULL };
		long long t0 = tu_now_ms(), ms;
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args,
		    .tp_env = dflt }, &r);
		ms = tu_now_ms() - t0;
		printf("run %d: %lld ms: %.*s\n", i, ms,
		    (int)strcspn(r.tr_err, "\n"), r.tr_err);
		ATF_CHECK_MSG(ms <= PAGENT_DEADLINE_MS + 1000LL *
		    tu_time_scale(), "run %d took %lld ms, the deadline is %d "
		    "ms", i, ms, PAGENT_DEADLINE_MS);
		ATF_CHECK_MSG(WIFEXITED(r.tr_status) &&
		    WEXITSTATUS(r.tr_status) == 0, "run %d: status 0x%x", i,
		    r.tr_status);
		ATF_CHECK_MSG(false_word(r.tr_err) == NULL, "run %d: %s", i,
		    r.tr_err);
		tu_result_free(&r);
	}
	sw.sw_stop = 1;
	(void) pthread_join(sw.sw_thread, NULL);
	printf("longest tracing stop of a thread: %lld ms\n", sw.sw_longest);
	ATF_CHECK_MSG(sw.sw_longest <= 1000, "a thread of the target was "
	    "stopped for %lld ms at a stretch", sw.sw_longest);
	(void) close(c.tc_in);
	c.tc_in = -1;
	(void) tu_stop(&c, LINE_MS);
}

ATF_TC(stress);
ATF_TC_HEAD(stress, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent 200 times on a "
	    "target whose borrowed thread runs rseq sections and timed waits "
	    "under a real-time signal storm, with 2000 sockets and an fd "
	    "switched between two files: every signal arrives, no section "
	    "commits late, and the target goes on and exits cleanly");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(stress, tc)
{
	long sent, received, commits, late, waits;
	char pid[16], *result;
	tu_child_t c;

	start_arg(&c, "stress", "1000", pid, sizeof (pid));
	for (int i = 0; i < 200; i++)
		agent_at(pid);
	result = finish(&c);
	ATF_REQUIRE(sscanf(result, "result %ld %ld %ld %ld %ld", &sent,
	    &received, &commits, &late, &waits) == 5);
	printf("200 agent runs: %ld signals sent, %ld received; %ld sections "
	    "committed, %ld late; %ld timed waits\n", sent, received, commits,
	    late, waits);
	ATF_CHECK(sent > 0 && waits > 0);
	ATF_CHECK_EQ(sent, received);
	ATF_CHECK_EQ(late, 0);
	free(result);
}

ATF_TC(stop_bounded);
ATF_TC_HEAD(stop_bounded, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on a target with "
	    "3000 sockets whose output is left unread for 3 s mid-walk: the "
	    "borrowed thread, which reads the clock flat out, is never kept "
	    "from running for 1.5 s");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(stop_bounded, tc)
{
	char pid[16], *result, *rest, buf[4096];
	const char *argv[] = { TU_PFILES, "--via=agent", pid, NULL };
	struct pollfd pfd;
	tu_child_t c, p;
	long us;
	int st;

	start_arg(&c, "stopwatch", "1500", pid, sizeof (pid));
	tu_spawn(&p, argv, 0);
	/* Its first bytes: the walk is under way. */
	pfd.fd = p.tc_out;
	pfd.events = POLLIN;
	ATF_REQUIRE_MSG(poll(&pfd, 1, LINE_MS) == 1 &&
	    read(p.tc_out, buf, sizeof (buf)) > 0, "pfiles printed nothing");
	/* A reader that stops reading: pfiles blocks in write(2). */
	(void) sleep(3);
	rest = tu_read_until(p.tc_out, NULL, TU_TIMEOUT_MS, NULL);
	free(rest);
	st = tu_stop(&p, LINE_MS);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "pfiles ended with status 0x%x", st);
	result = finish(&c);
	ATF_REQUIRE(sscanf(result, "result %ld", &us) == 1);
	printf("the borrowed thread's longest time off the CPU: %ld us\n",
	    us);
	ATF_CHECK_MSG(us < 1500000, "the borrowed thread was kept from "
	    "running for %ld us while pfiles waited to write", us);
	free(result);
}

/* One socket of harm_helper swap, as its own view says. */
typedef struct swap_sock {
	unsigned long long	ss_ino;
	unsigned		ss_port;
	int			ss_snd, ss_rcv;
	char			*ss_lines;	/* its socket lines */
} swap_sock_t;

static void
swap_sock(const char *said, const char *key, const char *type,
    const char *bools, pid_t pid, swap_sock_t *ss)
{
	const char *l = strstr(said, key);
	int fd;

	ATF_REQUIRE_MSG(l != NULL && sscanf(l + strlen(key),
	    "%llu %u %d %d %d", &ss->ss_ino, &ss->ss_port, &ss->ss_snd,
	    &ss->ss_rcv, &fd) == 5, "harm_helper swap said: %s", said);
	/*
	 * The contract's lines, from the socket's own view and what the
	 * helper did: a listener of listen(fd, 1) nobody connects to, a UDP
	 * socket nobody sends to; each held at its own fd besides fd 10.
	 */
	ss->ss_lines = tu_asprintf("\t%s\n\t%sSO_SNDBUF(%d),SO_RCVBUF(%d)\n"
	    "\tsockname: AF_INET 127.0.0.1  port: %u\n%s"
	    "\tshared with: harm_helper[%d] fd %d\n", type, bools,
	    ss->ss_snd, ss->ss_rcv, ss->ss_port,
	    strcmp(type, "SOCK_STREAM") == 0 ?
	    "\tstate: LISTEN  backlog: 0 of 1\n" :
	    "\tqueued: 0 to read, 0 to send\n", (int)pid, fd);
}

/*
 * The socket lines of fd's block in out, and the inode of its stat line:
 * NULL when the block is not there.
 */
static char *
block_of(const char *out, int fd, unsigned long long *inop)
{
	char head[32];
	const char *p, *q, *e;

	(void) snprintf(head, sizeof (head), "\n%4d: S_IFSOCK", fd);
	if ((p = strstr(out, head)) == NULL ||
	    (q = strstr(p, " ino:")) == NULL ||
	    sscanf(q, " ino:%llu", inop) != 1)
		return (NULL);
	/* Past the stat line and the flags line. */
	for (int k = 0; k < 2 && p != NULL; k++)
		p = strchr(p + 1, '\n');
	if (p == NULL)
		return (NULL);
	p++;
	for (e = p; *e == '\t'; ) {
		const char *nl = strchr(e, '\n');

		if (nl == NULL)
			break;
		e = nl + 1;
	}
	return (strndup(p, (size_t)(e - p)));
}

ATF_TC(facts_of_one_socket);
ATF_TC_HEAD(facts_of_one_socket, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "unshare");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "descr", "fd 10 switched flat out between a "
	    "TCP listener and a UDP socket, in a target in another network "
	    "namespace (the per-socket batch serves), examined 40 times with "
	    "the agent: fd 10's socket lines are always wholly those of the "
	    "socket its stat line names, never a mix");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(facts_of_one_socket, tc)
{
	const char *uargv[] = { "unshare", "-n", HELPER, "swap", NULL };
	swap_sock_t a, b;
	char pid[16], *said, *result;
	const char *args[] = { "--via=agent", pid, NULL };
	int found, mixed = 0, seen_a = 0, seen_b = 0;
	tu_child_t c;

	tu_spawn(&c, uargv, 0);
	said = tu_read_until(c.tc_out, "ready", LINE_MS, &found);
	ATF_REQUIRE_MSG(found, "harm_helper swap: %s", said);
	(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);
	swap_sock(said, "a ", "SOCK_STREAM", "SO_REUSEADDR,SO_ACCEPTCONN,",
	    c.tc_pid, &a);
	swap_sock(said, "b ", "SOCK_DGRAM", "SO_BROADCAST,", c.tc_pid, &b);
	for (int i = 0; i < 40; i++) {
		unsigned long long ino;
		tu_result_t r;
		char *lines;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles --via=agent", &r, 0);
		if ((lines = block_of(r.tr_out, 10, &ino)) != NULL) {
			const swap_sock_t *want = ino == a.ss_ino ? &a :
			    ino == b.ss_ino ? &b : NULL;

			ATF_CHECK_MSG(want != NULL, "run %d: fd 10 is inode "
			    "%llu, neither socket", i, ino);
			/* No socket lines: facts found unknown, and said. */
			if (want != NULL && lines[0] != '\0' &&
			    strcmp(lines, want->ss_lines) != 0) {
				mixed++;
				ATF_CHECK_MSG(0, "run %d: fd 10 (inode %llu) "
				    "shows:\n%swhere its own view is:\n%s", i,
				    ino, lines, want->ss_lines);
			}
			seen_a += want == &a;
			seen_b += want == &b;
		}
		free(lines);
		tu_result_free(&r);
	}
	printf("40 runs: fd 10 was A %d times, B %d times, mixed %d times\n",
	    seen_a, seen_b, mixed);
	result = finish(&c);
	free(result);
	free(said);
	free(a.ss_lines);
	free(b.ss_lines);
}

/* A listener on 127.0.0.1: its fd, and its port in *portp. */
static int
loopback_listener(char *port, size_t portsz)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int s;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	ATF_REQUIRE(bind(s, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(listen(s, 1) == 0);
	ATF_REQUIRE(getsockname(s, (struct sockaddr *)&sin, &len) == 0);
	(void) snprintf(port, portsz, "%u", ntohs(sin.sin_port));
	return (s);
}

ATF_TC(linger_not_waited);
ATF_TC_HEAD(linger_not_waited, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose TCP socket has "
	    "SO_LINGER of 60 s and unsent data to a peer that reads nothing "
	    "dies (SIGKILL, by a close(2) wrapper preloaded in pfiles) while "
	    "pfiles holds the last duplicate: pfiles, with pidfd and with "
	    "the agent, finishes within 20 s instead of lingering");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(linger_not_waited, tc)
{
	static const char *const vias[] = { "--via=pidfd", "--via=agent" };

	for (int v = 0; v < 2; v++) {
		char pid[16], port[16], *said, *shimpid;
		const char *args[] = { vias[v], pid, NULL };
		const char *env[] = { "LD_PRELOAD=" BUILD_DIR
		    "/atf/linger_shim.so", NULL,
		    "ASAN_OPTIONS=verify_asan_link_order=0", NULL };
		struct pollfd pfd;
		tu_child_t c;
		tu_result_t r;
		int l, conn;

		l = loopback_listener(port, sizeof (port));
		said = start_says(&c, "linger", port, pid, sizeof (pid));
		pfd.fd = l;
		pfd.events = POLLIN;
		ATF_REQUIRE(poll(&pfd, 1, LINE_MS) == 1);
		ATF_REQUIRE((conn = accept(l, NULL, NULL)) >= 0);
		shimpid = tu_asprintf("LINGER_SHIM_PID=%s", pid);
		env[1] = shimpid;
		/* On a timeout (the linger time) tu_run fails the test. */
		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args, .tp_env = env,
		    .tp_timeout_ms = 20000 }, &r);
		ATF_CHECK_MSG(WIFEXITED(r.tr_status), "%s: pfiles ended "
		    "with status 0x%x", vias[v], r.tr_status);
		ATF_CHECK_MSG(tu_proc_state(c.tc_pid) == 'Z', "%s: the "
		    "wrapper did not kill the target", vias[v]);
		tu_result_free(&r);
		(void) tu_stop(&c, LINE_MS);
		(void) close(conn);
		(void) close(l);
		free(shimpid);
		free(said);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, calls_not_interrupted);
	ATF_TP_ADD_TC(tp, no_signal_lost);
	ATF_TP_ADD_TC(tp, tracer_not_borrowed);
	ATF_TP_ADD_TC(tp, exec_is_no_exit);
	ATF_TP_ADD_TC(tp, deadline_in_exec_storm);
	ATF_TP_ADD_TC(tp, stress);
	ATF_TP_ADD_TC(tp, rseq_section_aborted);
	ATF_TP_ADD_TC(tp, stop_bounded);
	ATF_TP_ADD_TC(tp, facts_of_one_socket);
	ATF_TP_ADD_TC(tp, linger_not_waited);
	return (atf_no_error());
}

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
 *				"exited", never a lost agent; with pidfd and
 *				the agent
 *  stress			200 borrows of a thread that runs rseq
 *				sections and timed waits under a signal storm
 *				while another thread churns an fd: no signal
 *				lost, no section committed late, alive
 *  rseq_section_aborted	a thread borrowed inside an rseq critical
 *				section is given back at the section's abort
 *				handler, as after a preemption: no section
 *				commits after being off the CPU
 */
#include <atf-c.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

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

/* Start the helper in mode (with arg), and wait for its "ready". */
static void
start_arg(tu_child_t *c, const char *mode, const char *arg, char *pid,
    size_t pidsz)
{
	const char *argv[] = { HELPER, mode, arg, NULL };
	char *line;

	tu_spawn(c, argv, 0);
	line = tu_read_line(c->tc_out, LINE_MS);
	if (line != NULL && strncmp(line, "skip ", 5) == 0) {
		(void) tu_stop(c, LINE_MS);
		atf_tc_skip("%s", line + 5);
	}
	ATF_REQUIRE_MSG(line != NULL && strcmp(line, "ready") == 0,
	    "harm_helper %s: %s", mode, line != NULL ? line : "(nothing)");
	free(line);
	(void) snprintf(pid, pidsz, "%d", (int)c->tc_pid);
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
	const char *argv[] = { TU_PFILES, "--via=agent", pid, NULL };
	tu_result_t r;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
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
	atf_tc_set_md_var(tc, "timeout", "300");
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
	atf_tc_set_md_var(tc, "timeout", "300");
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
	char *cmd = tu_asprintf("exec strace -f -o /dev/null %s --via=agent "
	    "$$", TU_PFILES);
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
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

ATF_TC(exec_is_no_exit);
ATF_TC_HEAD(exec_is_no_exit, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process with 600 sockets that "
	    "execs itself every 30 ms from a second thread, examined 30 times "
	    "with pidfd and 30 with the agent: every run exits 0 and has "
	    "nothing to say on stderr (no 'exited', no lost agent)");
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(exec_is_no_exit, tc)
{
	static const char *const vias[] = { "--via=pidfd", "--via=agent" };
	char pid[16];
	tu_child_t c;
	int st;

	start(&c, "exec", pid, sizeof (pid));
	for (int i = 0; i < 60; i++) {
		const char *argv[] = { TU_PFILES, vias[i % 2], pid, NULL };
		tu_result_t r;

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
		ATF_CHECK_MSG(WIFEXITED(r.tr_status) &&
		    WEXITSTATUS(r.tr_status) == 0 && r.tr_errlen == 0,
		    "%s, run %d: status 0x%x: %.*s", vias[i % 2], i,
		    r.tr_status, (int)strcspn(r.tr_err, "\n"), r.tr_err);
		tu_result_free(&r);
	}
	(void) close(c.tc_in);
	c.tc_in = -1;
	st = tu_stop(&c, LINE_MS);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the target ended with status 0x%x", st);
}

ATF_TC(stress);
ATF_TC_HEAD(stress, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent 200 times on a "
	    "target whose borrowed thread runs rseq sections and timed waits "
	    "under a real-time signal storm, with 2000 sockets and an fd "
	    "switched between two files: every signal arrives, no section "
	    "commits late, and the target goes on and exits cleanly");
	atf_tc_set_md_var(tc, "timeout", "600");
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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, calls_not_interrupted);
	ATF_TP_ADD_TC(tp, no_signal_lost);
	ATF_TP_ADD_TC(tp, tracer_not_borrowed);
	ATF_TP_ADD_TC(tp, exec_is_no_exit);
	ATF_TP_ADD_TC(tp, stress);
	ATF_TP_ADD_TC(tp, rseq_section_aborted);
	return (atf_no_error());
}

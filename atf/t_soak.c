/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_soak: the soak's judges (soak/, make soak) can fail.  Each case
 * makes, itself, what a judge must catch, and what it must let pass:
 *
 *  stop_over_bound	the watchdog: a target's thread held in a ptrace
 *			stop by the test for 1.5 s while a run labelled
 *			agent is at it is one stop over 1000 ms, put down to
 *			that run; held 100 ms outside any run, a stop of
 *			"none" under the bound
 *  stop_split_by_run	a thread held 700 ms, let run for far less than
 *			the watchdog's look (100 ms here), and held 700 ms
 *			again: two stops under the bound, not one over it
 *  gap_over_bound	every thread of a target held 1.8 s: a heartbeat
 *			gap over 1500 ms
 *  group_stop_own	a SIGSTOP of 1.3 s is a stop of the plain target,
 *			and none of the sigstop target, whose life it is
 *  fd_left_found	a target's self-check: an fd the test opens in it
 *			with libproc's agent (pr_open) and leaves there is
 *			named; an fd of its own the test closes in it
 *			(pr_close) likewise; the agent coming and going
 *			with nothing left is not a failure
 *  run_judged		the runner: a false word about a live target (text
 *			and -J), a run over its bound, one killed at the hard
 *			bound, a crash, a sanitizer's report are failures; a
 *			clean run, and "no such process" about a process
 *			that is gone, are not (nor is anything run at it, or
 *			at a pid whose start time is not its target's); each
 *			run is written into the target's slot for the
 *			watchdog
 */
#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libproc.h"
#include "testutil.h"
#include "soak_common.h"

#define	TARGET	BUILD_DIR "/soak/soak_target"
#define	WATCH	BUILD_DIR "/soak/soak_watch"
#define	RUNNER	BUILD_DIR "/soak/soak_run"
#define	LINE_MS	10000
#define	MAX_TIDS 16

/* A new soak folder, in the case's work directory. */
static char *
soak_dir(void)
{
	char cwd[4096], *dir;

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	dir = tu_asprintf("%s/soak.XXXXXX", cwd);
	ATF_REQUIRE(mkdtemp(dir) != NULL);
	return (dir);
}

/* A target of kind in dir, its stderr a pipe; what it said before ready. */
static char *
start_target(tu_child_t *c, const char *kind, const char *dir)
{
	const char *argv[] = { TARGET, kind, dir, NULL };
	char *said;
	int found;

	tu_spawn(c, argv, TU_STDERR_PIPE);
	said = tu_read_until(c->tc_out, "ready", LINE_MS, &found);
	ATF_REQUIRE_MSG(found, "soak_target %s did not get ready: %s", kind,
	    said);
	return (said);
}

/* A target ends only by a signal (or its parent, or its life). */
static void
stop_target(tu_child_t *c)
{
	(void) kill(c->tc_pid, SIGKILL);
	(void) tu_stop(c, LINE_MS);
}

/* The watchdog: looks every look_ms, a gap over gap_ms a failure. */
static void
start_watch(tu_child_t *c, const char *dir, const char *gap_ms,
    const char *look_ms)
{
	const char *argv[] = { WATCH, "-s", "1000", "-g", gap_ms, "-i",
	    look_ms, dir, NULL };
	char *said;
	int found;

	tu_spawn(c, argv, 0);
	said = tu_read_until(c->tc_out, "ready", LINE_MS, &found);
	ATF_REQUIRE_MSG(found, "soak_watch did not get ready: %s", said);
	free(said);
}

/* SIGTERM: all it says at its end. */
static char *
stop_watch(tu_child_t *c)
{
	char *text;

	ATF_REQUIRE(kill(c->tc_pid, SIGTERM) == 0);
	text = tu_read_until(c->tc_out, NULL, LINE_MS, NULL);
	(void) tu_stop(c, LINE_MS);
	(void) printf("soak_watch said:\n%s", text);
	return (text);
}

/* The lines of text that start with prefix: their number; the first. */
static int
lines_with(const char *text, const char *prefix, const char **first)
{
	size_t n = strlen(prefix);
	int count = 0;

	*first = NULL;
	for (const char *l = text; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, prefix, n) != 0)
			continue;
		if (count++ == 0)
			*first = l;
	}
	return (count);
}

/* Hold threads tids in a ptrace stop (seized, interrupted) for ms. */
static void
hold_traced(const pid_t *tids, int n, int ms)
{
	int st;

	for (int i = 0; i < n; i++) {
		ATF_REQUIRE_MSG(ptrace(PTRACE_SEIZE, tids[i], NULL, NULL) == 0,
		    "PTRACE_SEIZE %d: %s", (int)tids[i], strerror(errno));
		ATF_REQUIRE(ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL) ==
		    0);
	}
	for (int i = 0; i < n; i++)
		ATF_REQUIRE(waitpid(tids[i], &st, __WALL) == tids[i] &&
		    WIFSTOPPED(st));
	(void) usleep((useconds_t)ms * 1000);
	for (int i = 0; i < n; i++)
		ATF_REQUIRE(ptrace(PTRACE_DETACH, tids[i], NULL, NULL) == 0);
}

/* The slot of pid in dir's ctl: its latest run (r_id 0: none). */
static soak_run_t
last_run(const char *dir, pid_t pid, uint64_t *nruns)
{
	soak_ctl_t *ctl = soak_map_ctl(dir);
	soak_slot_t s;
	int n;

	ATF_REQUIRE(ctl != NULL);
	n = soak_slot_of(ctl, pid);
	ATF_REQUIRE_MSG(n >= 0, "pid %d has no slot in %s/ctl", (int)pid,
	    dir);
	soak_slot_read(&ctl->c_slot[n], &s);
	*nruns = s.s_nruns;
	(void) munmap(ctl, sizeof (*ctl));
	return (soak_slot_last(&s));
}

ATF_TC(stop_over_bound);
ATF_TC_HEAD(stop_over_bound, tc)
{
	atf_tc_set_md_var(tc, "descr", "The watchdog: a target thread held "
	    "in a ptrace stop for 1.5 s during a run labelled agent is one "
	    "stop over 1000 ms, of that run; held 100 ms outside any run, a "
	    "stop of none under the bound");
}
ATF_TC_BODY(stop_over_bound, tc)
{
	char *dir = soak_dir(), pid[16], *out, *line;
	tu_child_t t, w, r;
	const char *first;
	uint64_t nruns;
	long long ms = 0;
	unsigned long long run = 0;
	int tid = 0;

	free(start_target(&t, "plain", dir));
	(void) snprintf(pid, sizeof (pid), "%d", (int)t.tc_pid);
	start_watch(&w, dir, "1500", "2");
	hold_traced(&t.tc_pid, 1, 100);
	(void) usleep(300000);	/* seen running between the two stops */
	{
		const char *argv[] = { RUNNER, "-d", dir, "-p", pid, "-s",
		    "agent", "--", "/bin/sleep", "3", NULL };

		tu_spawn(&r, argv, 0);
	}
	for (int i = 0; i < LINE_MS && last_run(dir, t.tc_pid,
	    &nruns).r_id == 0; i++)
		(void) usleep(1000);
	hold_traced(&t.tc_pid, 1, 1500);
	line = tu_read_line(r.tc_out, LINE_MS);
	(void) tu_stop(&r, LINE_MS);
	out = stop_watch(&w);
	ATF_CHECK_MSG(line != NULL && strncmp(line, "run\t1\tplain\tagent\t",
	    18) == 0, "soak_run said: %s", line != NULL ? line : "nothing");
	ATF_REQUIRE_EQ_MSG(lines_with(out, "fail stop ", &first), 1,
	    "not one stop over the bound");
	ATF_REQUIRE(sscanf(first, "fail stop plain agent run=%llu tid=%d "
	    "ms=%lld", &run, &tid, &ms) == 3);
	ATF_CHECK_EQ(run, 1);
	ATF_CHECK_EQ(tid, (int)t.tc_pid);
	ATF_CHECK_MSG(ms > 1000, "the stop of 1500 ms counted %lld ms", ms);
	ATF_CHECK_MSG(lines_with(out, "stat plain none 1 ", &first) == 1,
	    "the stop of 100 ms, outside any run, not counted as none's");
	ATF_CHECK_EQ(lines_with(out, "fail gap ", &first), 0);
	stop_target(&t);
	free(line);
	free(out);
	free(dir);
}

/* The time tid has run, ever, in ns (its schedstat). */
static unsigned long long
ran_ns(pid_t tid)
{
	char path[64], *text;
	unsigned long long ns = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/schedstat", (int)tid);
	text = tu_read_file(path, NULL);
	ATF_REQUIRE(text != NULL && sscanf(text, "%llu", &ns) == 1);
	free(text);
	return (ns);
}

ATF_TC(stop_split_by_run);
ATF_TC_HEAD(stop_split_by_run, tc)
{
	atf_tc_set_md_var(tc, "descr", "The watchdog, looking every 100 ms: "
	    "a thread held in a ptrace stop for 700 ms, let run for a moment "
	    "(its run time grows), and held again for 700 ms has had two "
	    "stops under the bound, not one over it, though no look sees it "
	    "running");
}
ATF_TC_BODY(stop_split_by_run, tc)
{
	char *dir = soak_dir(), *out;
	unsigned long long ran;
	const char *first;
	tu_child_t t, w;
	int st, i;

	free(start_target(&t, "plain", dir));
	start_watch(&w, dir, "60000", "100");
	hold_traced(&t.tc_pid, 1, 700);
	ATF_REQUIRE(ptrace(PTRACE_SEIZE, t.tc_pid, NULL, NULL) == 0);
	ran = ran_ns(t.tc_pid);
	for (i = 0; i < LINE_MS * 10 && ran_ns(t.tc_pid) == ran; i++)
		(void) usleep(100);
	ATF_REQUIRE_MSG(i < LINE_MS * 10, "the thread did not run");
	ATF_REQUIRE(ptrace(PTRACE_INTERRUPT, t.tc_pid, NULL, NULL) == 0);
	ATF_REQUIRE(waitpid(t.tc_pid, &st, __WALL) == t.tc_pid &&
	    WIFSTOPPED(st));
	(void) usleep(700000);
	ATF_REQUIRE(ptrace(PTRACE_DETACH, t.tc_pid, NULL, NULL) == 0);
	out = stop_watch(&w);
	ATF_CHECK_EQ_MSG(lines_with(out, "fail stop ", &first), 0,
	    "two stops of 700 ms taken for one: %s", first);
	ATF_CHECK_MSG(lines_with(out, "stat plain none 2 ", &first) == 1,
	    "not two stops");
	stop_target(&t);
	free(out);
	free(dir);
}

ATF_TC(gap_over_bound);
ATF_TC_HEAD(gap_over_bound, tc)
{
	atf_tc_set_md_var(tc, "descr", "The watchdog: every thread of a "
	    "target held in a ptrace stop for 1.8 s is a heartbeat gap over "
	    "1500 ms, counted by the target itself");
}
ATF_TC_BODY(gap_over_bound, tc)
{
	char *dir = soak_dir(), path[64], *out;
	pid_t tids[MAX_TIDS];
	const char *first;
	struct dirent *e;
	tu_child_t t, w;
	long long ms = 0;
	int n = 0;
	DIR *d;

	free(start_target(&t, "plain", dir));
	start_watch(&w, dir, "1500", "2");
	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)t.tc_pid);
	ATF_REQUIRE((d = opendir(path)) != NULL);
	while ((e = readdir(d)) != NULL && n < MAX_TIDS)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			tids[n++] = (pid_t)atoi(e->d_name);
	(void) closedir(d);
	ATF_REQUIRE_MSG(n >= 3, "the plain target has %d threads", n);
	hold_traced(tids, n, 1800);
	(void) usleep(100000);		/* its next beat, and the look after */
	out = stop_watch(&w);
	ATF_REQUIRE_EQ_MSG(lines_with(out, "fail gap plain none run=0 ms=",
	    &first), 1, "not one heartbeat gap over the bound");
	ATF_REQUIRE(sscanf(first, "fail gap plain none run=0 ms=%lld",
	    &ms) == 1);
	ATF_CHECK_MSG(ms >= 1800, "a gap of 1800 ms at least counted %lld",
	    ms);
	stop_target(&t);
	free(out);
	free(dir);
}

/* Wait (bounded) for pid's state to be want. */
static void
state_is(pid_t pid, char want)
{
	for (int i = 0; i < LINE_MS && tu_proc_state(pid) != want; i++)
		(void) usleep(1000);
	ATF_REQUIRE_MSG(tu_proc_state(pid) == want, "pid %d: state %c, not "
	    "%c", (int)pid, tu_proc_state(pid), want);
}

/* A group stop of pid (SIGSTOP) for ms, then SIGCONT. */
static void
hold_stopped(pid_t pid, int ms)
{
	ATF_REQUIRE(kill(pid, SIGSTOP) == 0);
	state_is(pid, 'T');
	(void) usleep((useconds_t)ms * 1000);
	ATF_REQUIRE(kill(pid, SIGCONT) == 0);
}

ATF_TC(group_stop_own);
ATF_TC_HEAD(group_stop_own, tc)
{
	atf_tc_set_md_var(tc, "descr", "The watchdog: a SIGSTOP of 1.3 s is "
	    "a stop over the bound of the plain target, and none of the "
	    "sigstop target, which a child of its own stops all the time");
}
ATF_TC_BODY(group_stop_own, tc)
{
	char *dir = soak_dir(), *said, *out;
	const char *first, *at;
	tu_child_t p, s, w;
	pid_t pest;

	free(start_target(&p, "plain", dir));
	said = start_target(&s, "sigstop", dir);
	ATF_REQUIRE_MSG((at = strstr(said, "pest ")) != NULL, "%s", said);
	pest = (pid_t)atoi(at + 5);
	start_watch(&w, dir, "60000", "2");
	/* Its stopper frozen first, the target let go if it held it. */
	ATF_REQUIRE(kill(pest, SIGSTOP) == 0);
	state_is(pest, 'T');
	ATF_REQUIRE(kill(s.tc_pid, SIGCONT) == 0);
	hold_stopped(s.tc_pid, 1300);
	hold_stopped(p.tc_pid, 1300);
	out = stop_watch(&w);
	ATF_CHECK_MSG(lines_with(out, "fail stop plain none ", &first) >= 1,
	    "the plain target's group stop of 1.3 s not over the bound");
	ATF_CHECK_EQ_MSG(lines_with(out, "fail stop sigstop ", &first), 0,
	    "the sigstop target's own group stop counted: %s", first);
	(void) kill(pest, SIGKILL);
	stop_target(&s);
	stop_target(&p);
	free(out);
	free(said);
	free(dir);
}

/*
 * Read the target's stderr for ms at most, until a line holding want[i]
 * has been seen for every i (found[i] set then); the number not seen.
 */
static int
said_within(tu_child_t *c, const char *const want[], int *found, int ms)
{
	int missing = 0;

	for (int i = 0; want[i] != NULL; i++)
		missing += !found[i];
	for (int left = ms; left > 0 && missing > 0; ) {
		struct pollfd pfd = { c->tc_err, POLLIN, 0 };
		int64_t t0 = soak_now();
		char *line;

		if (poll(&pfd, 1, left) <= 0 ||
		    (line = tu_read_line(c->tc_err, LINE_MS)) == NULL)
			break;
		(void) printf("the target said: %s\n", line);
		for (int i = 0; want[i] != NULL; i++)
			if (!found[i] && strstr(line, want[i]) != NULL) {
				found[i] = 1;
				missing--;
			}
		free(line);
		left -= (int)((soak_now() - t0) / 1000000);
	}
	return (missing);
}

ATF_TC(fd_left_found);
ATF_TC_HEAD(fd_left_found, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target's self-check: an fd opened "
	    "in it through the agent (pr_open) and left is named; an fd of "
	    "its own closed in it (pr_close) is named; the agent coming and "
	    "going with nothing left is no failure");
}
ATF_TC_BODY(fd_left_found, tc)
{
	char *dir = soak_dir(), *said, left[80], gone[80];
	const char *any[] = { "FAIL", NULL }, *want[] = { left, gone, NULL };
	int err, fd, sock, none[1] = { 0 }, found[2] = { 0, 0 };
	struct ps_prochandle *P;
	tu_child_t t;

	said = start_target(&t, "plain", dir);
	ATF_REQUIRE(sscanf(said, "sock %d", &sock) == 1);
	ATF_REQUIRE((P = Pgrab(t.tc_pid, 0, &err)) != NULL);
	ATF_REQUIRE_MSG(Pcreate_agent(P) == 0, "%s", Perrmsg(P));
	Pdestroy_agent(P);
	ATF_REQUIRE_MSG(said_within(&t, any, none, 600) == 1,
	    "the target found a failure where there was none");
	fd = pr_open(P, "/dev/null", O_RDONLY, 0);
	ATF_REQUIRE_MSG(fd >= 0, "pr_open: %s", Perrmsg(P));
	ATF_REQUIRE_EQ(pr_close(P, sock), 0);
	Prelease(P, 0);
	(void) snprintf(left, sizeof (left), "FAIL fd-left (run 0): fd %d "
	    "(/dev/null) was left", fd);
	(void) snprintf(gone, sizeof (gone), "FAIL fd-gone (run 0): fd %d, "
	    "its own, was closed", sock);
	(void) said_within(&t, want, found, LINE_MS);
	ATF_CHECK_MSG(found[0], "fd %d opened and left in it: not found", fd);
	ATF_CHECK_MSG(found[1], "fd %d, its own, closed: not found", sock);
	stop_target(&t);
	free(said);
	free(dir);
}

/* soak_run at pid, with opts, of "/bin/sh -c script sh PID": its line. */
static char *
judged(const char *dir, const char *pid, const char *const opts[],
    const char *script)
{
	const char *argv[24] = { RUNNER, "-d", dir, "-p", pid, "-s", "pidfd" };
	int n = 7;
	tu_result_t r;
	char *line;

	for (int i = 0; opts[i] != NULL && n < 16; i++)
		argv[n++] = opts[i];
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "sh";
	argv[n++] = pid;
	argv[n] = NULL;
	tu_run(argv, NULL, 3 * LINE_MS, &r);
	line = tu_asprintf("%s", r.tr_out);
	(void) printf("%s: %s", script, line);
	tu_result_free(&r);
	return (line);
}

static const struct {
	const char	*opts[3];
	const char	*script;
	const char	*want;	/* in its line: "\tok\n", or a reason */
} judge_cases[] = {
	{ { NULL }, "exit 0", "\texit0\t" },
	{ { NULL }, "echo \"pfiles: cannot examine $1: process is defunct\" "
	    ">&2; exit 1", "a false word about a live target: pfiles: "
	    "cannot examine " },
	{ { NULL }, "echo '[{\"arg\":\"'$1'\",\"error\":\"no such "
	    "process\"}]'; exit 1", "a false word about a live target: "
	    "[{\"arg\":" },
	{ { NULL }, "echo \"pfiles: $1: process exited during examination\" "
	    ">&2; exit 1", "a false word about a live target" },
	{ { "-b", "200", NULL }, "sleep 1", "over its bound of 200 ms" },
	{ { "-k", "500", NULL }, "exec sleep 20", "ended at its hard bound "
	    "of 500 ms" },
	{ { "-k", "300", NULL }, "trap '' TERM; exec sleep 20", "\tkilled\t" },
	{ { NULL }, "kill -SEGV $$", "crashed: Segmentation fault" },
	{ { NULL }, "echo '==1==ERROR: AddressSanitizer: heap-use-after-free'"
	    " >&2", "a sanitizer's report: ==1==ERROR: AddressSanitizer" },
	{ { NULL }, "echo 'x.c:1:2: runtime error: signed integer overflow' "
	    ">&2", "a sanitizer's report: x.c:1:2: runtime error" },
	{ { NULL }, "exit 3", "exit status 3" },
};

#define	NJUDGE	(sizeof (judge_cases) / sizeof (judge_cases[0]))

/*
 * A target whose pid has been taken by another process: its slot's start
 * time is not the pid's (made so here): gone, not run at, exit 3.
 */
static void
gone_by_start(const char *dir, tu_child_t *t)
{
	const char *argv[] = { RUNNER, "-d", dir, "-p", NULL, "-s", "pidfd",
	    "--", "/bin/true", NULL };
	soak_ctl_t *ctl = soak_map_ctl(dir);
	char pid[16];
	tu_result_t r;
	int n;

	ATF_REQUIRE(ctl != NULL && (n = soak_slot_of(ctl, t->tc_pid)) >= 0);
	(void) snprintf(pid, sizeof (pid), "%d", (int)t->tc_pid);
	argv[4] = pid;
	ctl->c_slot[n].s_start++;
	tu_run(argv, NULL, LINE_MS, &r);
	ctl->c_slot[n].s_start--;
	ATF_CHECK_MSG(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 3 &&
	    strstr(r.tr_out, "the target was gone before the run") != NULL,
	    "a pid not its target's: status 0x%x: %s", r.tr_status, r.tr_out);
	tu_result_free(&r);
	(void) munmap(ctl, sizeof (*ctl));
}

ATF_TC(run_judged);
ATF_TC_HEAD(run_judged, tc)
{
	atf_tc_set_md_var(tc, "descr", "The runner: a false word about a live "
	    "target, a run over its bound, one killed, a crash, a sanitizer's "
	    "report, an odd exit status each fail; a clean run and 'no such "
	    "process' about a process that is gone do not, and nothing is run "
	    "at it, nor at a pid another process has taken; each run is in "
	    "the target's slot");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(run_judged, tc)
{
	char *dir = soak_dir(), pid[16], *line;
	const char *none[] = { NULL };
	uint64_t nruns = 0;
	soak_run_t last;
	tu_child_t t;
	pid_t gone;

	free(start_target(&t, "plain", dir));
	(void) snprintf(pid, sizeof (pid), "%d", (int)t.tc_pid);
	for (size_t i = 0; i < NJUDGE; i++) {
		line = judged(dir, pid, judge_cases[i].opts,
		    judge_cases[i].script);
		ATF_CHECK_MSG(strstr(line, judge_cases[i].want) != NULL,
		    "%s: not '%s': %s", judge_cases[i].script,
		    judge_cases[i].want, line);
		ATF_CHECK_MSG((strstr(line, "\tFAIL: ") == NULL) == (i == 0),
		    "%s: %s", judge_cases[i].script, line);
		free(line);
	}
	last = last_run(dir, t.tc_pid, &nruns);
	ATF_CHECK_EQ(nruns, NJUDGE);
	ATF_CHECK_STREQ(last.r_source, "pidfd");
	ATF_CHECK(last.r_end_ns > last.r_start_ns);
	if ((gone = fork()) == 0)
		_exit(0);
	ATF_REQUIRE(gone > 0 && waitpid(gone, NULL, 0) == gone);
	(void) snprintf(pid, sizeof (pid), "%d", (int)gone);
	line = judged(dir, pid, none, "echo \"pfiles: cannot examine $1: no "
	    "such process\" >&2; exit 1");
	ATF_CHECK_MSG(strstr(line, "the target was gone before the run") !=
	    NULL && strstr(line, "false word") == NULL, "%s", line);
	free(line);
	gone_by_start(dir, &t);
	stop_target(&t);
	free(dir);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, stop_over_bound);
	ATF_TP_ADD_TC(tp, stop_split_by_run);
	ATF_TP_ADD_TC(tp, gap_over_bound);
	ATF_TP_ADD_TC(tp, group_stop_own);
	ATF_TP_ADD_TC(tp, fd_left_found);
	ATF_TP_ADD_TC(tp, run_judged);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_race_gone: what pfiles says when the target dies at one exact step:
 * while the source of socket facts is probed, between the grab's
 * pidfd_open and its first read of /proc, at the open of /proc/PID.  As
 * in t_race, a wrapper preloaded into pfiles (atf/race_shim.c) stops it
 * at one call while the target (atf/race_helper.c) changes, and every
 * case checks from the wrapper's log that the race came.
 *
 *  gone_during_probe	the target dies and is reaped while the source of
 *			socket facts is probed: "no such process", once,
 *			and no other source tried
 *  gone_after_pidfd_open  the target dies and is reaped between the
 *			grab's pidfd_open and its first read of /proc: "no
 *			such process"
 *  gone_at_proc_open	the same, and the open of /proc/PID made to
 *			fail with ENOENT, or ESRCH: "no such process"
 *  proc_enoent_alive	that open fails with ENOENT while the target
 *			lives: examined all the same
 *  gone_in_all		the same in pfiles -n --all: it is no longer a
 *			process of the machine, and passed over unsaid
 *  gone_before_probe	libproc: a target that has exited between the grab
 *			and Psetsocksrc(PSOCK_AUTO) ends the probing at
 *			once: ESRCH, and the message is pidfd's alone
 *  closed_in_batch	a socket the target closes at one of a sample of
 *			pfiles' ptrace calls, --via=agent, each socket
 *			asked on its own fd in one batch: shown whole or
 *			left out, never "unavailable"
 */
#include <sys/resource.h>

#include "race_util.h"

/* pfiles PID on a process reaped during its grab: said, exit 1. */
static void
reaped_said(const tu_result_t *r, const char *pid)
{
	char *want;

	tu_require_exit("pfiles", r, 1);
	tu_require_same_str("stdout", "", r->tr_out);
	want = tu_asprintf("pfiles: cannot examine %s: no such process\n",
	    pid);
	tu_require_same_str("stderr", want, r->tr_err);
	free(want);
}

/*
 * pfiles -n --all with a process reaped during its grab: nothing said of
 * it (other processes may be refused, as pid 1 in a container), no
 * block, and the live helper's block.
 */
static void
all_passed_over(const tu_result_t *r, const char *pid, const char *live)
{
	char *gone = tu_asprintf("\n%s:\t", pid), *said, *shown;

	ATF_REQUIRE_MSG(WIFEXITED(r->tr_status) && WEXITSTATUS(r->tr_status)
	    <= 1, "pfiles -n --all: wait status 0x%x", (unsigned)r->tr_status);
	said = tu_asprintf(" %s: ", pid);
	ATF_CHECK_MSG(strstr(r->tr_err, said) == NULL, "the reaped process "
	    "was said: %s", r->tr_err);
	ATF_CHECK_MSG(strstr(r->tr_out, gone) == NULL, "the reaped process "
	    "has a block");
	shown = tu_asprintf("\n%s:\t", live);
	ATF_CHECK_MSG(strstr(r->tr_out, shown) != NULL, "the helper %s has "
	    "no block", live);
	free(shown);
	free(said);
	free(gone);
}

/*
 * pfiles on race_helper's reaped target, the shim set by vars ("{}" in
 * them is the target's pid): the shim acted as log_want says (its %s is
 * the pid), and pfiles said "no such process" alone; with all, pfiles -n
 * --all passed over it without a word, and showed the helper.
 */
static void
check_reaped(const char *const vars_in[], const char *log_want, int all)
{
	const char *hargv[] = { HELPER, "reaped", NULL };
	const char *vars[8], *args[3] = { "-n", "--all", NULL };
	char *log, *want, *filled[8], pid[16];
	tu_helper_t h;
	tu_result_t r;
	size_t n = 0;

	tu_helper_start(&h, hargv);
	/* Its word is the pid, then what else it says of it. */
	(void) snprintf(pid, sizeof (pid), "%d",
	    atoi(tu_said(&h, "target")));
	for (; vars_in[n] != NULL && n < 7; n++) {
		const char *at = strstr(vars_in[n], "{}");

		filled[n] = at == NULL ? tu_asprintf("%s", vars_in[n]) :
		    tu_asprintf("%.*s%s%s", (int)(at - vars_in[n]),
		    vars_in[n], pid, at + 2);
		vars[n] = filled[n];
	}
	vars[n] = NULL;
	if (!all) {
		args[0] = pid;
		args[1] = NULL;
	}
	run_raced(args, vars, &r, &log);
	want = tu_asprintf(log_want, pid);
	tu_require_same_str("race.log", want, log);
	free(want);
	if (all)
		all_passed_over(&r, pid, h.h_pid);
	else
		reaped_said(&r, pid);
	free(log);
	for (size_t i = 0; i < n; i++)
		free(filled[i]);
	tu_result_free(&r);
	tu_helper_stop(&h);
}

ATF_TC(gone_during_probe);
ATF_TC_HEAD(gone_during_probe, tc)
{
	atf_tc_set_md_var(tc, "descr", "The target dies (SIGKILL) and is "
	    "reaped while pfiles probes pidfd_getfd, the first source of "
	    "socket facts: pfiles says \"no such process\", once, and tries "
	    "neither the agent nor diag");
}
ATF_TC_BODY(gone_during_probe, tc)
{
	static const char *const vars[] = { "RACE_CALL=pidfd_getfd",
	    "RACE_ARG=-1", "RACE_ACTION=reap", "RACE_PID={}", NULL };

	check_reaped(vars, "pidfd_getfd -1 reap ok\n", 0);
}

ATF_TC(gone_after_pidfd_open);
ATF_TC_HEAD(gone_after_pidfd_open, tc)
{
	atf_tc_set_md_var(tc, "descr", "The target dies (SIGKILL) and is "
	    "reaped just after pfiles' pidfd_open, before its first read of "
	    "/proc: \"cannot examine PID: no such process\", exit 1, nothing "
	    "on stdout");
}
ATF_TC_BODY(gone_after_pidfd_open, tc)
{
	static const char *const vars[] = { "RACE_CALL=pidfd_open",
	    "RACE_ARG={}", "RACE_WHEN=after", "RACE_ACTION=reap",
	    "RACE_PID={}", NULL };

	check_reaped(vars, "pidfd_open %s reap ok\n", 0);
}

ATF_TC(gone_in_all);
ATF_TC_HEAD(gone_in_all, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n --all, the target killed "
	    "and reaped just after pfiles' pidfd_open of it: no longer a "
	    "process of the machine, it is passed over without a word (the "
	    "helper, alive, is shown)");
}
ATF_TC_BODY(gone_in_all, tc)
{
	static const char *const vars[] = { "RACE_CALL=pidfd_open",
	    "RACE_ARG={}", "RACE_WHEN=after", "RACE_ACTION=reap",
	    "RACE_PID={}", NULL };

	check_reaped(vars, "pidfd_open %s reap ok\n", 1);
}

ATF_TC(gone_at_proc_open);
ATF_TC_HEAD(gone_at_proc_open, tc)
{
	atf_tc_set_md_var(tc, "descr", "The target dies (SIGKILL) and is "
	    "reaped between pfiles' pidfd_open and its open of /proc/PID, "
	    "which is made to fail with ENOENT, then with ESRCH (what the "
	    "kernel says of a gone process, by name or through a directory "
	    "held): each time \"cannot examine PID: no such process\", exit "
	    "1, nothing on stdout");
}
ATF_TC_BODY(gone_at_proc_open, tc)
{
	static const char *const enoent[] = { "RACE_CALL=proc_open",
	    "RACE_ARG={}", "RACE_ACTION=reapfail", "RACE_PID={}",
	    "RACE_ERRNO=2", NULL };
	static const char *const esrch[] = { "RACE_CALL=proc_open",
	    "RACE_ARG={}", "RACE_ACTION=reapfail", "RACE_PID={}",
	    "RACE_ERRNO=3", NULL };

	ATF_REQUIRE(ENOENT == 2 && ESRCH == 3);
	check_reaped(enoent, "proc_open %s reapfail ok\n", 0);
	check_reaped(esrch, "proc_open %s reapfail ok\n", 0);
}

ATF_TC(proc_enoent_alive);
ATF_TC_HEAD(proc_enoent_alive, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles' first open of /proc/PID "
	    "fails with ENOENT while the target lives (as while an exec "
	    "hands its pid over): not \"no such process\"; the target is "
	    "examined, its socket shown, exit 0, nothing on stderr");
}
ATF_TC_BODY(proc_enoent_alive, tc)
{
	const char *hargv[] = { HELPER, "reaped", NULL };
	const char *args[2];
	char *log, *want, *b, pid[16], arg[32];
	said_fd_t sock;
	tu_helper_t h;
	tu_result_t r;

	tu_helper_start(&h, hargv);
	(void) snprintf(pid, sizeof (pid), "%d",
	    atoi(tu_said(&h, "target")));
	said_fd(&h, "sock", &sock);
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%s", pid);
	{
		const char *vars[] = { "RACE_CALL=proc_open", arg,
		    "RACE_ACTION=fail", "RACE_ERRNO=2", NULL };

		args[0] = pid;
		args[1] = NULL;
		run_raced(args, vars, &r, &log);
	}
	want = tu_asprintf("proc_open %s fail ok\n", pid);
	tu_require_same_str("race.log", want, log);
	free(want);
	tu_require_exit("pfiles", &r, 0);
	tu_require_same_str("stderr", "", r.tr_err);
	ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, sock.sf_fd)) != NULL,
	    "fd %d not shown:\n%s", sock.sf_fd, r.tr_out);
	want = tu_asprintf(" ino:%llu ", sock.sf_ino);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "not its socket:\n%s", b);
	free(want);
	free(b);
	free(log);
	tu_result_free(&r);
	tu_helper_stop(&h);
}

ATF_TC(gone_before_probe);
ATF_TC_HEAD(gone_before_probe, tc)
{
	atf_tc_set_md_var(tc, "descr", "libproc: a target grabbed, then "
	    "killed and reaped before Psetsocksrc(PSOCK_AUTO): the probing "
	    "ends at once, with ESRCH and the pidfd source's message alone "
	    "(no other source is tried, or named)");
}
ATF_TC_BODY(gone_before_probe, tc)
{
	struct ps_prochandle *P;
	const char *msg;
	int p[2], gerr, st, err;
	pid_t kid;
	char c;

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((kid = fork()) >= 0);
	if (kid == 0) {
		(void) close(p[1]);
		(void) alarm(60);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	(void) close(p[0]);
	P = Pgrab(kid, 0, &gerr);
	ATF_REQUIRE_MSG(P != NULL, "Pgrab: %s", Pgrab_error(gerr));
	ATF_REQUIRE(kill(kid, SIGKILL) == 0);
	ATF_REQUIRE_EQ(waitpid(kid, &st, 0), kid);
	(void) close(p[1]);
	ATF_CHECK_EQ(Psetsocksrc(P, PSOCK_AUTO), -1);
	err = errno;
	ATF_CHECK_MSG(err == ESRCH, "errno %d (%s), not ESRCH", err,
	    strerror(err));
	ATF_CHECK_EQ(Psocksrc(P), PSOCK_AUTO);
	msg = Perrmsg(P);
	ATF_CHECK_MSG(msg != NULL && strncmp(msg, "pidfd: ", 7) == 0 &&
	    strstr(msg, strerror(ESRCH)) != NULL && strchr(msg, ';') ==
	    NULL && strstr(msg, "agent") == NULL && strstr(msg, "diag") ==
	    NULL, "not pidfd's reason alone: \"%s\"", msg != NULL ? msg :
	    "(null)");
	Prelease(P, 0);
}

/* The lowest fd that process pid does not have. */
static int
lowest_free_fd(const char *pid)
{
	char path[64];
	int fd;

	for (fd = 0; fd < 4096; fd++) {
		(void) snprintf(path, sizeof (path), "/proc/%s/fd/%d", pid, fd);
		if (access(path, F_OK) != 0)
			break;
	}
	return (fd);
}

/*
 * race_helper sockets-thread, its soft fd limit at its lowest free fd:
 * the agent can make no duplicate there, and asks each socket on its own
 * fd, in one batch.  The helper's word of its sockets in a, b and c.
 */
static void
short_helper(tu_helper_t *h, said_fd_t s[3])
{
	const char *hargv[] = { HELPER, "sockets-thread", "cmd", "ack", NULL };
	struct rlimit rl;

	make_fifos();
	tu_helper_start(h, hargv);
	said_fd(h, "a", &s[0]);
	said_fd(h, "b", &s[1]);
	said_fd(h, "c", &s[2]);
	ATF_REQUIRE(prlimit(atoi(h->h_pid), RLIMIT_NOFILE, NULL, &rl) == 0);
	rl.rlim_cur = (rlim_t)lowest_free_fd(h->h_pid);
	ATF_REQUIRE(prlimit(atoi(h->h_pid), RLIMIT_NOFILE, &rl, NULL) == 0);
}

static void
short_helper_stop(tu_helper_t *h)
{
	tu_helper_stop(h);
	(void) unlink("cmd");
	(void) unlink("ack");
}

/*
 * pfiles --via=agent's output on the helper: nothing on stderr, b and c
 * whole (their inode and port), a whole or not shown.  1 when a is shown.
 */
static int
shown_whole(const tu_result_t *r, const said_fd_t s[3], int nth)
{
	int shown = 0;

	tu_require_exit("pfiles", r, 0);
	ATF_CHECK_MSG(r->tr_err[0] == '\0', "closed at ptrace call %d, "
	    "stderr: %s", nth, r->tr_err);
	for (int i = 0; i < 3; i++) {
		char *b = tu_fd_block(r->tr_out, s[i].sf_fd), *ino, *port;

		if (b == NULL) {
			ATF_CHECK_MSG(i == 0, "fd %d not shown", s[i].sf_fd);
			continue;
		}
		shown |= i == 0;
		ino = tu_asprintf(" ino:%llu ", s[i].sf_ino);
		port = tu_asprintf("\tsockname: AF_INET 127.0.0.1  port: %s\n",
		    s[i].sf_rest);
		ATF_CHECK_MSG(strstr(b, ino) != NULL && strstr(b, port) !=
		    NULL, "closed at ptrace call %d, fd %d:\n%s", nth,
		    s[i].sf_fd, b);
		free(port);
		free(ino);
		free(b);
	}
	return (shown);
}

ATF_TC(closed_in_batch);
ATF_TC_HEAD(closed_in_batch, tc)
{
	atf_tc_set_md_var(tc, "descr", "A socket that the target closes "
	    "(from a second thread) while pfiles --via=agent examines it, at "
	    "each of a sample of pfiles' ptrace calls (the agent's every "
	    "step), the target short of fds so that each socket's batch asks "
	    "its own fd: the socket is shown whole or left out, never said "
	    "unavailable, and the others are shown whole");
}
ATF_TC_BODY(closed_in_batch, tc)
{
	const char *cnt[] = { "RACE_CALL=ptrace", "RACE_ACTION=count", NULL };
	char *log, say[32], nthvar[32];
	int n, step, left_out = 0, shown = 0;
	said_fd_t s[3];
	tu_helper_t h;
	tu_result_t r;

	short_helper(&h, s);
	run_raced((const char *[]){ "--via=agent", h.h_pid, NULL }, cnt, &r,
	    &log);
	ATF_REQUIRE_MSG(sscanf(log, "ptrace count %d", &n) == 1 && n > 0,
	    "race.log: %s", log);
	ATF_REQUIRE(shown_whole(&r, s, 0));
	free(log);
	tu_result_free(&r);
	short_helper_stop(&h);
	/*
	 * A socket's batch is some 25 calls, each of at least three ptrace
	 * requests: a step of 16 or less lands inside each batch often.
	 */
	step = n / 24 > 16 ? 16 : n / 24 > 0 ? n / 24 : 1;
	for (int nth = 1; nth <= n; nth += step) {
		short_helper(&h, s);
		(void) snprintf(say, sizeof (say), "RACE_SAY=close %d",
		    s[0].sf_fd);
		(void) snprintf(nthvar, sizeof (nthvar), "RACE_NTH=%d", nth);
		run_raced((const char *[]){ "--via=agent", h.h_pid, NULL },
		    (const char *[]){ "RACE_CALL=ptrace", nthvar,
		    "RACE_ACTION=fifo", "RACE_CMD=cmd", "RACE_ACK=ack", say,
		    NULL }, &r, &log);
		ATF_REQUIRE_MSG(strncmp(log, "ptrace ", 7) == 0 &&
		    strstr(log, " fifo ok\n") != NULL, "at ptrace call %d, "
		    "race.log: %s", nth, log);
		if (shown_whole(&r, s, nth))
			shown++;
		else
			left_out++;
		free(log);
		tu_result_free(&r);
		short_helper_stop(&h);
	}
	printf("%d ptrace calls, every %d: a shown %d times, left out %d\n",
	    n, step, shown, left_out);
	/* The sample spans the examination: closed before a's batch, after. */
	ATF_CHECK(shown > 0 && left_out > 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, gone_during_probe);
	ATF_TP_ADD_TC(tp, gone_after_pidfd_open);
	ATF_TP_ADD_TC(tp, gone_at_proc_open);
	ATF_TP_ADD_TC(tp, proc_enoent_alive);
	ATF_TP_ADD_TC(tp, gone_in_all);
	ATF_TP_ADD_TC(tp, gone_before_probe);
	ATF_TP_ADD_TC(tp, closed_in_batch);
	return (atf_no_error());
}

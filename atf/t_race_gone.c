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
 */
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

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, gone_during_probe);
	ATF_TP_ADD_TC(tp, gone_after_pidfd_open);
	ATF_TP_ADD_TC(tp, gone_at_proc_open);
	ATF_TP_ADD_TC(tp, proc_enoent_alive);
	ATF_TP_ADD_TC(tp, gone_in_all);
	ATF_TP_ADD_TC(tp, gone_before_probe);
	return (atf_no_error());
}

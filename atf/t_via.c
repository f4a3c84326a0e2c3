/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_via: where pfiles takes socket facts from when pidfd_getfd(2) is
 * refused, as a sandbox's seccomp policy or an old kernel refuses it:
 * --via=pidfd is then an error for that pid, and --via=auto falls back to
 * the agent, printing exactly what --via=pidfd prints where it works.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcount.h"
#include "testutil.h"

#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"

/*
 * Start a sockfix (argv, maybe behind seccomp_deny) and wait for its
 * manifest; its pid.  Its stderr is not ours: the size of our stderr file
 * changes as the test writes to it, and pfiles would show that.
 */
static pid_t
start_sockfix(tu_child_t *fx, const char *const argv[])
{
	char *manifest;
	int found;
	pid_t pid;

	tu_spawn(fx, argv, TU_STDERR_NULL);
	manifest = tu_read_until(fx->tc_out, "end", TU_TIMEOUT_MS, &found);
	ATF_REQUIRE_MSG(found, "sockfix wrote no manifest");
	ATF_REQUIRE(sscanf(strstr(manifest, "\npid ") + 5, "%d", &pid) == 1);
	free(manifest);
	return (pid);
}

/* A sockfix with sockets of every family. */
static pid_t
start_fixture(tu_child_t *fx)
{
	const char *const argv[] = { TU_SOCKFIX, "-s",
	    "tcp,udp4,unix,abstract,socketpair,netlink,pipe,file", NULL };

	return (start_sockfix(fx, argv));
}

/*
 * A sockfix under a seccomp filter of its own: one system call it never
 * makes (acct) refused, so that /proc/PID/status says "Seccomp: 2".
 */
static pid_t
start_filtered_fixture(tu_child_t *fx)
{
	char nr[16];

	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_acct);
	const char *const argv[] = { SECCOMP_DENY, nr, "1", TU_SOCKFIX, "-s",
	    "tcp,unix,socketpair,pipe", NULL };
	return (start_sockfix(fx, argv));
}

/* pfiles' output with --via=pidfd, where nothing is refused. */
static char *
reference_output(const char *pidarg)
{
	const char *const args[] = { "--via=pidfd", pidarg, NULL };
	tu_result_t r;
	char *out;

	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	tu_require_exit("pfiles --via=pidfd", &r, 0);
	out = strdup(r.tr_out);
	tu_result_free(&r);
	return (out);
}

/* Run pfiles VIA PID with pidfd_getfd refused with err. */
static void
run_refused(int err, const char *via, const char *pidarg, tu_result_t *r)
{
	char nr[16], errs[16];

	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_pidfd_getfd);
	(void) snprintf(errs, sizeof (errs), "%d", err);
	const char *const wrap[] = { SECCOMP_DENY, nr, errs, NULL };
	const char *const args[] = { via, pidarg, NULL };
	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = args }, r);
}

static void
check_fallback(int err)
{
	tu_child_t fx;
	tu_result_t r;
	char pidarg[16], *want, *msg;
	pid_t pid;

	pid = start_fixture(&fx);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	want = reference_output(pidarg);

	/* Forced, the refused source is an error, and nothing is printed. */
	run_refused(err, "--via=pidfd", pidarg, &r);
	tu_require_exit("pfiles --via=pidfd (refused)", &r, 1);
	ATF_CHECK_EQ_MSG(r.tr_outlen, 0, "stdout: %s", r.tr_out);
	msg = tu_asprintf("pfiles: cannot examine %s: pidfd: pidfd_getfd: "
	    "%s\n", pidarg, strerror(err));
	tu_require_same_str("refused-pidfd.stderr", msg, r.tr_err);
	free(msg);
	tu_result_free(&r);

	/* auto takes the agent, and prints the same, saying nothing. */
	run_refused(err, "--via=auto", pidarg, &r);
	tu_require_exit("pfiles --via=auto (refused)", &r, 0);
	tu_require_same_str("refused-auto.stdout", want, r.tr_out);
	tu_require_same_str("refused-auto.stderr", "", r.tr_err);
	tu_result_free(&r);
	free(want);

	ATF_CHECK_EQ(tu_proc_state(pid) != 'T', 1);
	(void) tu_stop(&fx, TU_TIMEOUT_MS);
}

ATF_TC(auto_falls_back_on_enosys);
ATF_TC_HEAD(auto_falls_back_on_enosys, tc)
{
	atf_tc_set_md_var(tc, "descr", "pidfd_getfd failing with ENOSYS (a "
	    "kernel before 5.6): --via=pidfd errs, --via=auto uses the agent "
	    "and prints what pidfd prints");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(auto_falls_back_on_enosys, tc)
{
	check_fallback(ENOSYS);
}

ATF_TC(auto_falls_back_on_eperm);
ATF_TC_HEAD(auto_falls_back_on_eperm, tc)
{
	atf_tc_set_md_var(tc, "descr", "pidfd_getfd refused by seccomp with "
	    "EPERM: --via=pidfd errs, --via=auto uses the agent and prints "
	    "what pidfd prints");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(auto_falls_back_on_eperm, tc)
{
	check_fallback(EPERM);
}

ATF_TC(no_pidfd_open);
ATF_TC_HEAD(no_pidfd_open, tc)
{
	atf_tc_set_md_var(tc, "descr", "pidfd_open failing with ENOSYS (a "
	    "kernel before 5.3, a sandbox): the pid is grabbed without a "
	    "pidfd; --via=pidfd is an error saying so, --via=auto prints "
	    "what pidfd prints where pidfd_open works");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(no_pidfd_open, tc)
{
	char nr[16], errs[16], pidarg[16], *want, *msg;
	tu_child_t fx;
	tu_result_t r;
	pid_t pid;

	pid = start_fixture(&fx);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_pidfd_open);
	(void) snprintf(errs, sizeof (errs), "%d", ENOSYS);
	want = reference_output(pidarg);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr, errs, NULL };
		const char *const args[] = { "--via=pidfd", pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles --via=pidfd (no pidfd_open)", &r, 1);
	ATF_CHECK_EQ_MSG(r.tr_outlen, 0, "stdout: %s", r.tr_out);
	msg = tu_asprintf("pfiles: cannot examine %s: pidfd: pidfd_open is "
	    "not available\n", pidarg);
	tu_require_same_str("no-pidfd_open-pidfd.stderr", msg, r.tr_err);
	free(msg);
	tu_result_free(&r);
	{
		const char *const wrap[] = { SECCOMP_DENY, nr, errs, NULL };
		const char *const args[] = { "--via=auto", pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles --via=auto (no pidfd_open)", &r, 0);
	tu_require_same_str("no-pidfd_open-auto.stdout", want, r.tr_out);
	tu_require_same_str("no-pidfd_open-auto.stderr", "", r.tr_err);
	tu_result_free(&r);
	free(want);
	(void) tu_stop(&fx, TU_TIMEOUT_MS);
}

/*
 * The fallback really is the agent: under the refusal, pfiles --via=auto
 * reads and writes the target's memory (the agent's batches), which
 * --via=pidfd never does.
 */
ATF_TC(fallback_is_the_agent);
ATF_TC_HEAD(fallback_is_the_agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "under the refusal, --via=auto moves "
	    "arguments through /proc/PID/mem, as only the agent does");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(fallback_is_the_agent, tc)
{
	struct pcount_tab t = { 0 };
	const struct pcount_rec *w;
	char pidarg[16], mem[64], nr[16], errs[16], err[256];
	tu_child_t fx;
	pid_t pid;
	int status;

	pid = start_fixture(&fx);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	(void) snprintf(mem, sizeof (mem), "/proc/%d/mem", (int)pid);
	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_pidfd_getfd);
	(void) snprintf(errs, sizeof (errs), "%d", ENOSYS);

	/* The counter goes on the pfiles that seccomp_deny execs. */
	char *const argv[] = { (char *)SECCOMP_DENY, nr, errs,
	    (char *)TU_PFILES, (char *)"--via=auto", pidarg, NULL };
	ATF_REQUIRE_MSG(pcount_run(argv, "counts", "/dev/null", 60, &status,
	    err, sizeof (err)) == 0, "%s", err);
	ATF_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ATF_REQUIRE_MSG(pcount_load("counts", &t, err, sizeof (err)) == 0,
	    "%s", err);
	w = pcount_find(&t, "pwrite64", mem);
	if (w == NULL)
		w = pcount_find(&t, "pwrite", mem);
	ATF_CHECK_MSG(w != NULL && w->pr_calls > 0,
	    "no pwrite of %s: the agent was not used", mem);
	pcount_free(&t);
	(void) tu_stop(&fx, TU_TIMEOUT_MS);
}

/*
 * A target under a seccomp filter: pfiles does not, on its own, run
 * system calls in it (one its filter forbids could kill it).  With
 * pidfd_getfd refused, --via=auto then prints no socket details and says
 * why; --via=agent, asked for by name, still serves, through the
 * per-socket calls only, and prints what pidfd prints.
 */
ATF_TC(auto_spares_filtered_target);
ATF_TC_HEAD(auto_spares_filtered_target, tc)
{
	atf_tc_set_md_var(tc, "descr", "--via=auto does not use the agent "
	    "on a target under a seccomp filter, and with pidfd_getfd refused "
	    "falls back on diag, printing what --via=diag prints and saying "
	    "why; --via=agent uses the agent, and prints what pidfd prints");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(auto_spares_filtered_target, tc)
{
	tu_child_t fx;
	tu_result_t r;
	char pidarg[16], *want, *err, *diag;
	pid_t pid;

	pid = start_filtered_fixture(&fx);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	want = reference_output(pidarg);
	ATF_REQUIRE(strstr(want, "\tSOCK_STREAM\n") != NULL);

	{
		const char *const args[] = { "--via=diag", pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles --via=diag (filtered target)", &r, 0);
	diag = strdup(r.tr_out);
	tu_result_free(&r);

	run_refused(ENOSYS, "--via=auto", pidarg, &r);
	tu_require_exit("pfiles --via=auto (filtered target)", &r, 0);
	tu_require_same_str("filtered-auto.stdout", diag, r.tr_out);
	err = tu_asprintf("pfiles: %s: socket facts from diag (pidfd: "
	    "pidfd_getfd: %s; agent: not used on a process under seccomp)\n",
	    pidarg, strerror(ENOSYS));
	ATF_CHECK_MSG(strncmp(r.tr_err, err, strlen(err)) == 0,
	    "stderr: %s", r.tr_err);
	free(err);
	free(diag);
	tu_result_free(&r);

	/*
	 * Not under a filter of its own: the agent proves each call allowed
	 * by the target's filters, and reading them takes an unconfined
	 * caller (t_seccomp:unreadable shows the refusal otherwise).
	 */
	{
		const char *const args[] = { "--via=agent", pidarg, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles --via=agent (filtered target)", &r, 0);
	/* asked inside the target (no passing under a filter): no proof */
	if (strstr(want, "\tpeer: ") != NULL) {
		char *said = tu_asprintf("pfiles: %s: not shown: peer (agent: "
		    "asked inside the process, not passed to pfiles)\n",
		    pidarg);

		ATF_CHECK_MSG(strstr(r.tr_err, said) != NULL, "stderr does "
		    "not say \"%s\": %s", said, r.tr_err);
		free(said);
	}
	want = tu_unnamed_peers(want);
	tu_require_same_str("filtered-agent.stdout", want, r.tr_out);
	tu_result_free(&r);
	free(want);

	ATF_CHECK(tu_proc_state(pid) != 'T' && tu_proc_state(pid) != 'Z');
	ATF_CHECK_EQ(WEXITSTATUS(tu_stop(&fx, TU_TIMEOUT_MS)), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, auto_spares_filtered_target);
	ATF_TP_ADD_TC(tp, auto_falls_back_on_enosys);
	ATF_TP_ADD_TC(tp, auto_falls_back_on_eperm);
	ATF_TP_ADD_TC(tp, fallback_is_the_agent);
	ATF_TP_ADD_TC(tp, no_pidfd_open);
	return (atf_no_error());
}

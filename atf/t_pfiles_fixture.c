/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_pfiles_fixture: pfiles' output on the sockfix fixture, byte for byte.
 *
 * Each case starts sockfix with a set of fds, reads its manifest (its own
 * view of every fd it has open), turns it into the text the contract
 * prescribes (expect.c, an implementation independent of pfiles), runs
 * pfiles on it and compares stdout exactly; with --via=diag, the text of
 * the facts diag gives (EXP_DIAG), and stderr's "not shown:" line of the
 * facts that applied to the manifest's sockets.  After every run the fixture
 * must still be running, not stopped, with the same fds open, and must
 * exit by itself when its stdin is closed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "expect.h"
#include "fixture.h"
#include "testutil.h"

#define	MAX_ARGS	32


/*
 * The fixture after pfiles ran: alive, not stopped or traced-stopped,
 * and with exactly the fds of its manifest (pfiles left none behind).
 */
static void
fixture_check_intact(const fixture_t *fx)
{
	const manifest_t *m = fx->fx_manifest;
	char path[64], state;
	struct dirent *de;
	size_t nopen = 0;
	DIR *d;

	state = tu_proc_state(m->m_pid);
	ATF_REQUIRE_MSG(state != 0, "the fixture %d has gone", (int)m->m_pid);
	ATF_REQUIRE_MSG(state != 'T' && state != 't' && state != 'Z',
	    "the fixture %d is in state %c after pfiles", (int)m->m_pid,
	    state);

	(void) snprintf(path, sizeof (path), "/proc/%d/fd", (int)m->m_pid);
	ATF_REQUIRE_MSG((d = opendir(path)) != NULL, "opendir %s", path);
	while ((de = readdir(d)) != NULL) {
		int fd, known = 0;

		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		for (size_t i = 0; i < m->m_nfds; i++)
			known |= m->m_fds[i].f_fd == fd;
		if (!known) {
			(void) closedir(d);
			atf_tc_fail("fd %d of the fixture is not in its "
			    "manifest", fd);
		}
		nopen++;
	}
	(void) closedir(d);
	ATF_REQUIRE_EQ_MSG(nopen, m->m_nfds, "%zu fds open, %zu in the "
	    "manifest", nopen, m->m_nfds);
}

static char *
expected_text(const fixture_t *fx, int flags)
{
	char err[256], *text;

	text = expect_pfiles(fx->fx_manifest, flags, err, sizeof (err));
	if (text == NULL)
		atf_tc_fail("cannot compute the expected text: %s", err);
	return (text);
}

/*
 * Run pfiles with options opts (NULL-ended, may be NULL) on the pids of
 * fxs, in that order, and compare its stdout with expected, and its
 * stderr with experr unless that is NULL; it must exit 0.  `what' names
 * the comparison's files in the work directory.
 */
static void
run_and_compare_err(const char *what, const char *const opts[],
    fixture_t *const fxs[], size_t nfx, const char *expected,
    const char *experr)
{
	const char *pids[MAX_ARGS];
	tu_result_t r;

	ATF_REQUIRE(nfx <= MAX_ARGS);
	for (size_t i = 0; i < nfx; i++)
		pids[i] = fxs[i]->fx_pid;
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids,
	    .tp_npids = nfx }, &r);
	if (r.tr_errlen > 0)
		(void) fprintf(stderr, "%s: pfiles stderr:\n%s", what,
		    r.tr_err);
	tu_require_exit("pfiles", &r, 0);
	tu_require_same_text(what, expected, strlen(expected), r.tr_out,
	    r.tr_outlen);
	if (experr != NULL) {
		char *errwhat = tu_asprintf("%s.stderr", what);

		tu_require_same_text(errwhat, experr, strlen(experr),
		    r.tr_err, r.tr_errlen);
		free(errwhat);
	}
	tu_result_free(&r);
	for (size_t i = 0; i < nfx; i++)
		fixture_check_intact(fxs[i]);
}

static void
run_and_compare(const char *what, const char *const opts[],
    fixture_t *const fxs[], size_t nfx, const char *expected)
{
	run_and_compare_err(what, opts, fxs, nfx, expected, NULL);
}

/*
 * One set of fds: pfiles with no --via, and with --via=auto, pidfd and
 * agent, must each print exactly the expected text (so the agent's
 * output is byte for byte pidfd's, on every fixture), and nothing on
 * stderr (a fact said to be missing, as a "not shown" SO_LINGER, is a
 * fault there).  --via=diag must
 * print exactly the text limited to the facts diag gives, and on stderr
 * exactly the "not shown:" line of the facts that applied to the
 * fixture's sockets (nothing for a set without sockets).
 */
static void
check_set(const char *set)
{
	static const char *const via_auto[] = { "--via=auto", NULL };
	static const char *const via_pidfd[] = { "--via=pidfd", NULL };
	static const char *const via_agent[] = { "--via=agent", NULL };
	static const char *const via_diag[] = { "--via=diag", NULL };
	fixture_t fx, *fxs[1] = { &fx };
	char *expected, *experr, *what;

	fx_start_set(&fx, set, NULL, NULL);
	fx_require_kinds(&fx, set);
	/* Every fact is there: nothing to say on stderr, not a word. */
	expected = expected_text(&fx, 0);
	what = tu_asprintf("%s.default", set);
	run_and_compare_err(what, NULL, fxs, 1, expected, "");
	free(what);
	what = tu_asprintf("%s.via-auto", set);
	run_and_compare_err(what, via_auto, fxs, 1, expected, "");
	free(what);
	what = tu_asprintf("%s.via-pidfd", set);
	run_and_compare_err(what, via_pidfd, fxs, 1, expected, "");
	free(what);
	what = tu_asprintf("%s.via-agent", set);
	run_and_compare_err(what, via_agent, fxs, 1, expected, "");
	free(what);
	free(expected);

	expected = expected_text(&fx, EXP_DIAG);
	experr = expect_diag_stderr(fx.fx_manifest, fx.fx_pid);
	what = tu_asprintf("%s.via-diag", set);
	run_and_compare_err(what, via_diag, fxs, 1, expected, experr);
	free(what);
	free(experr);
	free(expected);
	fx_stop(&fx);
}

/* A case's descr: the set's kinds of fd, as fixture.h lists them. */
static void
set_head(atf_tc_t *tc, const char *set)
{
	const char *kinds = fx_set(set)->fs_kinds;

	atf_tc_set_md_var(tc, "descr", "pfiles prints the fixture's fds of "
	    "set '%s' (%s) exactly as the contract says, with every --via "
	    "that works (diag: its facts only, and the facts not shown "
	    "named exactly on stderr)", set, kinds != NULL ? kinds :
	    "the kinds of every set it opens");
}

/*
 * One case per set of fixture.h's list but the hostile one (t_hostile's
 * subject, under a hostile comm and command line too): the sets of
 * "all", and the sets of still states.
 */
#define	SET_TC(set, kinds, flags)					\
	ATF_TC(set_ ## set);						\
	ATF_TC_HEAD(set_ ## set, tc)					\
	{								\
		set_head(tc, #set);					\
	}								\
	ATF_TC_BODY(set_ ## set, tc)					\
	{								\
		check_set(#set);					\
	}
FX_SETS(SET_TC)
FX_STATE_SETS(SET_TC)
#undef	SET_TC


static void
soft_limit_check(void)
{
	struct rlimit hard;
	fixture_t fx, *fxs[1] = { &fx };
	char *expected;

	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &hard) == 0);
	fx_start_set(&fx, "pipe", NULL, NULL);
	/* The manifest holds the limits the test set, in their order. */
	ATF_CHECK_EQ(fx.fx_manifest->m_rlim_cur, TU_SOFT_NOFILE);
	ATF_CHECK_EQ(fx.fx_manifest->m_rlim_max, hard.rlim_max);
	expected = expected_text(&fx, 0);
	ATF_REQUIRE_MSG(strstr(expected, "  Current rlimit: 1500 file "
	    "descriptors\n") != NULL, "expected: %s", expected);
	run_and_compare("soft-limit", NULL, fxs, 1, expected);
	free(expected);
	fx_stop(&fx);
}

ATF_TC(soft_limit);
ATF_TC_HEAD(soft_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target whose soft RLIMIT_NOFILE "
	    "is below its hard one: the header shows the soft one");
}
ATF_TC_BODY(soft_limit, tc)
{
	tu_with_low_soft_nofile(soft_limit_check);
}

ATF_TC(nflag);
ATF_TC_HEAD(nflag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n prints only the header "
	    "and the stat lines, for every kind of fd");
}
ATF_TC_BODY(nflag, tc)
{
	static const char *const n_default[] = { "-n", NULL };
	static const char *const n_pidfd[] = { "-n", "--via=pidfd", NULL };
	fixture_t fx, *fxs[1] = { &fx };
	char *expected;

	fx_start_set(&fx, "all", NULL, NULL);
	expected = expected_text(&fx, EXP_NFLAG);
	run_and_compare("all.n", n_default, fxs, 1, expected);
	run_and_compare("all.n-via-pidfd", n_pidfd, fxs, 1, expected);
	free(expected);
	fx_stop(&fx);
}

/*
 * Run pfiles under strace with opts on fx; fail when it duplicated an fd
 * of the target (pidfd_getfd) or opened one through /proc/PID/fd/N.
 * Returns the number of such calls (for the check of the check).
 */
static int
count_target_fd_opens(const fixture_t *fx, const char *opt)
{
	char *fdpath = tu_asprintf("\"/proc/%s/fd/", fx->fx_pid);
	const char *wrap[] = { "strace", "-f", "-qq", "-o", "strace.log", "-e",
	    "trace=pidfd_getfd,open,openat,openat2", NULL };
	const char *args[] = { opt, fx->fx_pid, NULL };
	/* LeakSanitizer cannot work under ptrace (SANITIZE=1 builds). */
	static const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
	    NULL };
	tu_result_t r;
	char *log, *line, *save = NULL;
	int n = 0;

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap, .tp_opts = args,
	    .tp_env = env }, &r);
	tu_require_exit("strace pfiles", &r, 0);
	tu_result_free(&r);
	log = tu_read_file("strace.log", NULL);
	for (line = strtok_r(log, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "pidfd_getfd(") != NULL ||
		    strstr(line, fdpath) != NULL) {
			(void) fprintf(stderr, "%s: %s\n", opt, line);
			n++;
		}
	}
	free(log);
	free(fdpath);
	return (n);
}

ATF_TC(nflag_opens_nothing);
ATF_TC_HEAD(nflag_opens_nothing, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -n opens no fd of the target "
	    "(no pidfd_getfd, no open of /proc/PID/fd/N), where pfiles "
	    "without -n does");
	atf_tc_set_md_var(tc, "require.progs", "strace");
}
ATF_TC_BODY(nflag_opens_nothing, tc)
{
	fixture_t fx;
	int with_n, without_n;

	fx_start_set(&fx, "tcp,unix,file", NULL, NULL);
	with_n = count_target_fd_opens(&fx, "-n");
	without_n = count_target_fd_opens(&fx, "--via=pidfd");
	fixture_check_intact(&fx);
	fx_stop(&fx);
	ATF_REQUIRE_EQ_MSG(with_n, 0, "pfiles -n opened %d fds of the target "
	    "(see stderr)", with_n);
	/* The check itself sees the duplicates that sockets need. */
	ATF_REQUIRE_MSG(without_n > 0, "no pidfd_getfd seen without -n: "
	    "the strace check does not work");
}

/* The expected text of several fixtures, in the order given. */
static char *
expected_concat(fixture_t *const fxs[], size_t nfx, int flags)
{
	char *all = tu_asprintf("%s", "");

	for (size_t i = 0; i < nfx; i++) {
		char *one = expected_text(fxs[i], flags);
		char *both = tu_asprintf("%s%s", all, one);

		free(one);
		free(all);
		all = both;
	}
	return (all);
}

ATF_TC(several_pids);
ATF_TC_HEAD(several_pids, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles with several pids prints "
	    "one block per pid in the order given, and exits 0");
}
ATF_TC_BODY(several_pids, tc)
{
	static const char *const nflag[] = { "-n", NULL };
	fixture_t a, b, c;
	fixture_t *order[4] = { &c, &a, &b, &a };
	char *expected;

	fx_start_set(&a, "tcp,pipe", NULL, NULL);
	fx_start_set(&b, "unix,file", NULL, NULL);
	fx_start_set(&c, "min", NULL, NULL);

	/* Not in the order started, and one pid twice. */
	expected = expected_concat(order, 4, 0);
	run_and_compare("several", NULL, order, 4, expected);
	free(expected);
	expected = expected_concat(order, 3, EXP_NFLAG);
	run_and_compare("several.n", nflag, order, 3, expected);
	free(expected);

	fx_stop(&a);
	fx_stop(&b);
	fx_stop(&c);
}

ATF_TC(header_cut);
ATF_TC_HEAD(header_cut, tc)
{
	atf_tc_set_md_var(tc, "descr", "the header shows the command line "
	    "cut at 70 bytes, and the peer line the comm, not argv[0]");
}
ATF_TC_BODY(header_cut, tc)
{
	static const char *const extra[] = {
	    "an argument with spaces", "",
	    "0123456789012345678901234567890123456789012345678901234567890",
	    NULL };
	fixture_t fx, *fxs[1] = { &fx };
	char *expected;

	fx_start_set(&fx, "socketpair", "fix comm 1", extra);
	ATF_REQUIRE_MSG(fx.fx_manifest->m_cmdlen > 71,
	    "the command line is only %zu bytes", fx.fx_manifest->m_cmdlen);
	ATF_REQUIRE_STREQ(fx.fx_manifest->m_comm, "fix comm 1");
	expected = expected_text(&fx, 0);
	run_and_compare("header", NULL, fxs, 1, expected);
	free(expected);
	fx_stop(&fx);
}

ATF_TC(target_keeps_running);
ATF_TC_HEAD(target_keeps_running, tc)
{
	atf_tc_set_md_var(tc, "descr", "after pfiles (each --via) the "
	    "fixture is not stopped, keeps its fds, and still obeys its "
	    "stdin");
}
ATF_TC_BODY(target_keeps_running, tc)
{
	static const char *const vias[][2] = {
	    { "--via=pidfd", NULL }, { "--via=auto", NULL },
	    { "--via=agent", NULL }, { NULL, NULL } };
	fixture_t fx, *fxs[1] = { &fx };
	char *expected, *line;
	int status;

	fx_start_set(&fx, "all", NULL, NULL);
	expected = expected_text(&fx, 0);
	for (int i = 0; i < 4; i++) {
		char *what = tu_asprintf("keeps-running.%d", i);

		run_and_compare(what, vias[i], fxs, 1, expected);
		free(what);
	}
	free(expected);

	/* It reads its stdin still: "exit" ends it, with status 0. */
	ATF_REQUIRE(write(fx.fx_child.tc_in, "exit\n", 5) == 5);
	line = tu_read_line(fx.fx_child.tc_out, TU_TIMEOUT_MS);
	ATF_REQUIRE_MSG(line == NULL, "sockfix wrote after its manifest: %s",
	    line);
	status = tu_stop(&fx.fx_child, TU_TIMEOUT_MS);
	mf_free(fx.fx_manifest);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "sockfix wait status 0x%x after \"exit\"", (unsigned)status);
}

ATF_TC(fixture_times_out);
ATF_TC_HEAD(fixture_times_out, tc)
{
	atf_tc_set_md_var(tc, "descr", "sockfix itself: it exits by itself "
	    "(status 3) when its time is up, and removes its temporary "
	    "files");
}
ATF_TC_BODY(fixture_times_out, tc)
{
	static const char *const extra[] = { "-t", "1", NULL };
	const mf_fd_t *dir;
	struct stat st;
	fixture_t fx;
	char *line;
	int status;

	fx_start_set(&fx, "dir,unix,file", NULL, extra);
	dir = mf_find_kind(fx.fx_manifest, "dir");
	ATF_REQUIRE(dir != NULL && dir->f_link != NULL);
	ATF_REQUIRE_MSG(stat(dir->f_link, &st) == 0, "no %s", dir->f_link);

	/* Its stdout ends when it exits; stdin stays open meanwhile. */
	line = tu_read_line(fx.fx_child.tc_out, 10000);
	ATF_REQUIRE_MSG(line == NULL, "sockfix wrote after its manifest: %s",
	    line);
	status = tu_stop(&fx.fx_child, TU_TIMEOUT_MS);
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	    "sockfix wait status 0x%x, expected exit 3", (unsigned)status);
	ATF_REQUIRE_MSG(stat(dir->f_link, &st) != 0 && errno == ENOENT,
	    "sockfix left %s behind", dir->f_link);
	mf_free(fx.fx_manifest);
}

/* The cases of SET_TC, in fixture.h's order. */
#define	ADD_SET_TC(set, kinds, flags)	ATF_TP_ADD_TC(tp, set_ ## set);

ATF_TP_ADD_TCS(tp)
{
	FX_SETS(ADD_SET_TC)
	FX_STATE_SETS(ADD_SET_TC)
	ATF_TP_ADD_TC(tp, nflag);
	ATF_TP_ADD_TC(tp, soft_limit);
	ATF_TP_ADD_TC(tp, nflag_opens_nothing);
	ATF_TP_ADD_TC(tp, several_pids);
	ATF_TP_ADD_TC(tp, header_cut);
	ATF_TP_ADD_TC(tp, target_keeps_running);
	ATF_TP_ADD_TC(tp, fixture_times_out);
	return (atf_no_error());
}

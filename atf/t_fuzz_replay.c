/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_fuzz_replay: every file of the fuzzing corpus of each target,
 * fuzz/corpus/TARGET/, run through that target's replay driver,
 * $(B)/fuzz/replay-TARGET, built with ASan and UBSan whatever SANITIZE
 * says (fuzz/Makefile.inc).  A harness aborts when one of its invariants
 * fails and the sanitizers end the process on a memory error or
 * undefined behaviour, so a corpus input that once found a bug is a
 * regression test, and the fuzzers' coverage becomes part of make check.
 */
#include <atf-c.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* Generous: the whole corpus of a target takes well under a second. */
#define	REPLAY_TIMEOUT_MS	120000

/* The regular files of dir, as the replay driver counts them. */
static long
count_inputs(const char *dir)
{
	struct dirent *de;
	struct stat st;
	char *path;
	long n = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		atf_tc_fail("cannot open the corpus %s", dir);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		path = tu_asprintf("%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			n++;
		free(path);
	}
	(void) closedir(d);
	return (n);
}

static void
replay(const char *target)
{
	char *drv = tu_asprintf("%s/fuzz/replay-%s", BUILD_DIR, target);
	char *dir = tu_asprintf("%s/fuzz/corpus/%s", SRC_DIR, target);
	char *want;
	const char *argv[] = { drv, dir, NULL };
	/* Stop at the first report, and say where. */
	const char *env[] = {
	    "ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:halt_on_error=1",
	    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1",
	    NULL };
	tu_result_t r;
	long n;

	if (access(drv, X_OK) != 0)
		atf_tc_fail("no replay driver %s: build it with make", drv);
	if ((n = count_inputs(dir)) == 0)
		atf_tc_fail("the corpus %s is empty", dir);

	tu_run(argv, env, REPLAY_TIMEOUT_MS, &r);
	if (r.tr_errlen > 0)
		(void) fprintf(stderr, "%s", r.tr_err);
	if (WIFSIGNALED(r.tr_status))
		atf_tc_fail("replay-%s died of signal %d: a corpus input "
		    "broke an invariant (see stderr for which)", target,
		    WTERMSIG(r.tr_status));
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_fail("replay-%s exited %d: a sanitizer report or an "
		    "unreadable input (see stderr)", target,
		    WEXITSTATUS(r.tr_status));
	/* Every file was run: the driver counts what it ran. */
	want = tu_asprintf("replay: %ld inputs\n", n);
	tu_require_same_str("replay-count", want, r.tr_out);
	free(want);
	tu_result_free(&r);
	free(drv);
	free(dir);
}

#define	REPLAY_TC(target)						\
	ATF_TC(target);							\
	ATF_TC_HEAD(target, tc)						\
	{								\
		atf_tc_set_md_var(tc, "descr", "Every file of "		\
		    "fuzz/corpus/" #target " passes the " #target	\
		    " harness's checks under ASan and UBSan");		\
		tu_timeout(tc, 300);		\
	}								\
	ATF_TC_BODY(target, tc)						\
	{								\
		replay(#target);					\
	}

REPLAY_TC(fdinfo)
REPLAY_TC(procfs)
REPLAY_TC(sockfmt)
REPLAY_TC(marshal)
REPLAY_TC(maps)
REPLAY_TC(escape)
REPLAY_TC(seccomp)
REPLAY_TC(diag)
REPLAY_TC(bpfrec)

/* The driver itself: an input it cannot read is an error, not a pass. */
ATF_TC(unreadable_input_fails);
ATF_TC_HEAD(unreadable_input_fails, tc)
{
	atf_tc_set_md_var(tc, "descr", "A replay driver given a file that "
	    "does not exist exits non-zero");
}
ATF_TC_BODY(unreadable_input_fails, tc)
{
	char *drv = tu_asprintf("%s/fuzz/replay-fdinfo", BUILD_DIR);
	const char *argv[] = { drv, "no-such-input", NULL };
	tu_result_t r;

	tu_run(argv, NULL, REPLAY_TIMEOUT_MS, &r);
	ATF_CHECK(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 1);
	ATF_CHECK(strstr(r.tr_err, "no-such-input") != NULL);
	tu_result_free(&r);
	free(drv);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, fdinfo);
	ATF_TP_ADD_TC(tp, procfs);
	ATF_TP_ADD_TC(tp, sockfmt);
	ATF_TP_ADD_TC(tp, marshal);
	ATF_TP_ADD_TC(tp, maps);
	ATF_TP_ADD_TC(tp, escape);
	ATF_TP_ADD_TC(tp, seccomp);
	ATF_TP_ADD_TC(tp, diag);
	ATF_TP_ADD_TC(tp, bpfrec);
	ATF_TP_ADD_TC(tp, unreadable_input_fails);
	return (atf_no_error());
}

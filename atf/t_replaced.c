/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_replaced: an fd that the target replaces again and again, at the exact
 * step of every look pfiles takes at it.  The wrapper (atf/race_shim.c)
 * stops pfiles at each of several calls in a row -- the walk's stat of the
 * fd, or its pidfd_getfd -- while the target (atf/race_helper.c) puts
 * another file onto the fd ("flip": never the one it holds), and each
 * such look finds the fd changed since the one before.  pfiles.1
 * ("Changes while the process is examined"): a descriptor is read again
 * while it changes, and one that changes eight times in a row is shown
 * with its stat line alone, and the standard error says so.
 *
 *  file_replaced_7	a file replaced after each of 7 stats in a row:
 *			the eighth look holds still, and the fd is shown
 *			whole, as the file it then holds, stderr empty
 *  file_replaced_8	after each of 8 stats: its stat line alone, and
 *			the page's words on stderr
 *  socket_replaced_7	a socket replaced before each of 7 pidfd_getfd
 *			calls in a row: shown whole, as the socket it then
 *			holds, stderr empty
 *  socket_replaced_8	before each of 8: its stat line alone, and the
 *			page's words on stderr
 */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raceutil.h"
#include "testutil.h"

/* pfiles.1: "One that changes all the while, eight times in a row". */
#define	TIMES_BOUND	8

/* The page's words (pfiles.1, DIAGNOSTICS) for one such fd of pid. */
static char *
changed_words(const char *pid)
{
	return (tu_asprintf("pfiles: %s: 1 fd changed all the while it was "
	    "examined: only its stat line is shown\n", pid));
}

/* What the helper made: its fds "a", "b", "c". */
typedef struct made {
	tu_helper_t	m_h;
	said_fd_t	m_a, m_b, m_c;
} made_t;

/*
 * The helper of mode (files or sockets) started; pfiles run on it with
 * fd a flipped between b and c at call (RACE_CALL, RACE_WHEN) of fd a,
 * times times in a row.  The wrapper must have acted each time.  Flips
 * start from a's own file: an odd count leaves b's file in a, an even
 * one c's.  Returns the fd's block (malloc'd); *said is the held file.
 */
static char *
run_flipped(made_t *m, const char *mode, const char *call,
    const char *when, int times, tu_result_t *r, const said_fd_t **said)
{
	char *cwd = getcwd(NULL, 0), *log, *want, *b, arg[32], say[64],
	    rcall[48], rwhen[32], rtimes[32];

	ATF_REQUIRE(cwd != NULL);
	make_fifos();
	{
		const char *files[] = { RACE_HELPER, "files", cwd, "cmd",
		    "ack", NULL };
		const char *socks[] = { RACE_HELPER, "sockets", "cmd", "ack",
		    NULL };

		tu_helper_start(&m->m_h, strcmp(mode, "files") == 0 ? files :
		    socks);
	}
	said_fd(&m->m_h, "a", &m->m_a);
	said_fd(&m->m_h, "b", &m->m_b);
	said_fd(&m->m_h, "c", &m->m_c);
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", m->m_a.sf_fd);
	(void) snprintf(say, sizeof (say), "RACE_SAY=flip %d %d %d",
	    m->m_a.sf_fd, m->m_b.sf_fd, m->m_c.sf_fd);
	(void) snprintf(rcall, sizeof (rcall), "RACE_CALL=%s", call);
	(void) snprintf(rwhen, sizeof (rwhen), "RACE_WHEN=%s", when);
	(void) snprintf(rtimes, sizeof (rtimes), "RACE_TIMES=%d", times);
	{
		/*
		 * Files: without the endpoints' pass, whose stat of every fd
		 * comes first, each look at the fd is one stat of it.
		 */
		const char *args[] = { "--via=pidfd", m->m_h.h_pid, NULL,
		    NULL };

		if (strcmp(mode, "files") == 0) {
			args[1] = "--no-endpoints";
			args[2] = m->m_h.h_pid;
		}
		const char *vars[] = { rcall, arg, rwhen, rtimes,
		    "RACE_ACTION=fifo", "RACE_CMD=cmd", "RACE_ACK=ack", say,
		    NULL };

		run_raced(args, vars, r, &log);
	}
	want = tu_asprintf("%s %d fifo ok\n", call, m->m_a.sf_fd);
	for (int i = 1; i < times; i++) {
		char *more = tu_asprintf("%s%s %d fifo ok\n", want, call,
		    m->m_a.sf_fd);

		free(want);
		want = more;
	}
	tu_require_same_str("race.log", want, log);
	free(want);
	free(log);
	free(cwd);
	tu_require_exit("pfiles", r, 0);
	ATF_REQUIRE_MSG((b = tu_fd_block(r->tr_out, m->m_a.sf_fd)) != NULL,
	    "fd %d not shown:\n%s", m->m_a.sf_fd, r->tr_out);
	*said = times % 2 == 1 ? &m->m_b : &m->m_c;
	return (b);
}

static void
made_free(made_t *m, tu_result_t *r, char *block)
{
	free(block);
	tu_result_free(r);
	tu_helper_stop(&m->m_h);
	(void) unlink("cmd");
	(void) unlink("ack");
	(void) unlink("race.log");
}

/* The block is the stat line of the file held, alone. */
static void
require_stat_alone(const char *b, const char *type, const said_fd_t *held,
    int fd)
{
	char *want = tu_asprintf("%4d: %s ", fd, type);
	const char *nl = strchr(b, '\n');

	ATF_CHECK_MSG(strncmp(b, want, strlen(want)) == 0, "%s", b);
	free(want);
	want = tu_asprintf(" ino:%llu ", held->sf_ino);
	ATF_CHECK_MSG(strstr(b, want) != NULL && strstr(b, want) < nl,
	    "not the stat of inode %llu:\n%s", held->sf_ino, b);
	free(want);
	ATF_CHECK_MSG(nl != NULL && nl[1] == '\0', "more than the stat "
	    "line:\n%s", b);
}

/*
 * run_flipped, then: at the bound, the stat line alone (of type) and the
 * page's words, and NULL; below it, stderr empty and the fd's block to
 * check further (malloc'd).
 */
static char *
check_flipped(made_t *m, const char *mode, const char *call,
    const char *when, int times, const char *type, tu_result_t *r,
    const said_fd_t **held)
{
	char *b = run_flipped(m, mode, call, when, times, r, held), *want;

	if (times < TIMES_BOUND) {
		tu_require_same_str("stderr", "", r->tr_err);
		want = tu_asprintf(" ino:%llu ", (*held)->sf_ino);
		ATF_CHECK_MSG(strstr(b, want) != NULL, "not the inode %llu "
		    "of what it holds:\n%s", (*held)->sf_ino, b);
		free(want);
		return (b);
	}
	want = changed_words(m->m_h.h_pid);
	tu_require_same_str("stderr", want, r->tr_err);
	free(want);
	require_stat_alone(b, type, *held, m->m_a.sf_fd);
	made_free(m, r, b);
	return (NULL);
}

static void
file_replaced(int times)
{
	const said_fd_t *held;
	tu_result_t r;
	made_t m;
	char *b, *want;

	if ((b = check_flipped(&m, "files", "statx", "after", times,
	    "S_IFREG mode:0644", &r, &held)) == NULL)
		return;
	/* b's file: race_helper opens it write-only, append. */
	ATF_CHECK_MSG(strstr(b, "\n      O_WRONLY|O_APPEND") != NULL,
	    "not the flags of the file it holds:\n%s", b);
	want = tu_asprintf("\n      %s\n", held->sf_rest);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "not the path %s of the file "
	    "it holds:\n%s", held->sf_rest, b);
	free(want);
	made_free(&m, &r, b);
}

static void
socket_replaced(int times)
{
	const said_fd_t *held;
	tu_result_t r;
	made_t m;
	char *b, *want;

	if ((b = check_flipped(&m, "sockets", "pidfd_getfd", "before", times,
	    "S_IFSOCK mode:0777", &r, &held)) == NULL)
		return;
	want = tu_asprintf("\tsockname: AF_INET 127.0.0.1  port: %s\n",
	    held->sf_rest);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "not the name (port %s) of "
	    "the socket it holds:\n%s", held->sf_rest, b);
	free(want);
	made_free(&m, &r, b);
}

ATF_TC(file_replaced_7);
ATF_TC_HEAD(file_replaced_7, tc)
{
	atf_tc_set_md_var(tc, "descr", "A file fd that the target replaces "
	    "(with another file each time) just after each of 7 stats of it "
	    "in a row: the eighth look holds still, and pfiles shows the fd "
	    "whole, with the inode, flags and path of the file it then "
	    "holds, and nothing on stderr");
}
ATF_TC_BODY(file_replaced_7, tc)
{
	file_replaced(TIMES_BOUND - 1);
}

ATF_TC(file_replaced_8);
ATF_TC_HEAD(file_replaced_8, tc)
{
	atf_tc_set_md_var(tc, "descr", "A file fd that the target replaces "
	    "just after each of 8 stats of it in a row: pfiles shows its "
	    "stat line alone, of the file it holds at the end, and says so "
	    "on stderr in the page's words");
}
ATF_TC_BODY(file_replaced_8, tc)
{
	file_replaced(TIMES_BOUND);
}

ATF_TC(socket_replaced_7);
ATF_TC_HEAD(socket_replaced_7, tc)
{
	atf_tc_set_md_var(tc, "descr", "A socket fd that the target "
	    "replaces (with another socket each time) just before each of 7 "
	    "pidfd_getfd calls of it in a row: pfiles shows the socket the fd "
	    "then holds, its inode and its name, and nothing on stderr");
}
ATF_TC_BODY(socket_replaced_7, tc)
{
	socket_replaced(TIMES_BOUND - 1);
}

ATF_TC(socket_replaced_8);
ATF_TC_HEAD(socket_replaced_8, tc)
{
	atf_tc_set_md_var(tc, "descr", "A socket fd that the target "
	    "replaces just before each of 8 pidfd_getfd calls of it in a "
	    "row: pfiles shows its stat line alone, and says so on stderr in "
	    "the page's words");
}
ATF_TC_BODY(socket_replaced_8, tc)
{
	socket_replaced(TIMES_BOUND);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, file_replaced_7);
	ATF_TP_ADD_TC(tp, file_replaced_8);
	ATF_TP_ADD_TC(tp, socket_replaced_7);
	ATF_TP_ADD_TC(tp, socket_replaced_8);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_race: what pfiles shows when the target changes at one exact step of
 * the walk.  A wrapper preloaded into pfiles (atf/race_shim.c) stops it
 * at one call -- the walk's stat of an fd, its pidfd_getfd -- while the
 * target (atf/race_helper.c) changes, or dies, and waits for the target's
 * word before it goes on: the race is run the same way every time.
 * Every case also checks, from the wrapper's log, that the race came.
 * t_race_gone holds the races with a target that dies.
 *
 *  replaced_after_stat	an fd replaced (dup2) between the walk's stat
 *			and its other looks, and then still: shown whole,
 *			as the file it now holds, not as changing
 *  socket_replaced	a socket fd replaced by another socket between the
 *			walk's stat and pidfd_getfd: never shown with the
 *			other socket's facts under its first inode
 *  getfd_refused	pidfd_getfd fails (EMFILE) for one socket after the
 *			probe served: the socket is shown, the reason given
 *			for its details, the walk goes on
 *  getfd_emfile_held  EMFILE while another socket's duplicate is held:
 *			that one asked and closed, this one duplicated again
 *  zombie_thread	a process whose main thread has exited, and whose
 *			first other thread is a zombie held by a tracer
 *			(this test): examined through the live thread
 *  unknown_option	an option the kernel does not know (getsockopt
 *			fails with ENOPROTOOPT, by a seccomp filter in
 *			pfiles): left out, not an error (pidfd), and not
 *			named among the facts diag cannot show
 *  linger_not_slept	the target dies while pfiles holds the last copy
 *			of its TCP socket, with SO_LINGER of 1 s and data
 *			that cannot go: pfiles' close never sleeps

 */
#include "race_util.h"

#define	LINE_MS		10000

/*
 * In a run over many pids the holders of the other ends are found in the
 * run's index, made in an earlier process's turn: a holder that has let
 * go since is not named.  The helper (first pid) holds "mine"; so does a
 * second child, the holder; the target (second pid) holds "theirs".  The
 * index is made in the helper's turn; the holder is killed at the
 * target's first statx of its fd "theirs", before its endpoints are
 * answered: its line must be gone, the helper's stay.
 */
ATF_TC(holder_gone_since_index);
ATF_TC_HEAD(holder_gone_since_index, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles over many pids names no "
	    "holder of an other end that let it go after the run's index "
	    "was made (its link is read again)");
}
ATF_TC_BODY(holder_gone_since_index, tc)
{
	char *log, *b, *fb, *want, *gone, *head, arg[16], pidvar[32];
	char tpid[16], hpid[16];
	said_fd_t mine, theirs;
	const char *target, *holder;
	tu_helper_t h;
	tu_result_t r;

	{
		const char *hargv[] = { HELPER, "holders", NULL };

		tu_helper_start(&h, hargv);
	}
	said_fd(&h, "mine", &mine);
	said_fd(&h, "theirs", &theirs);
	(void) snprintf(tpid, sizeof (tpid), "%d", atoi(tu_said(&h,
	    "target")));
	(void) snprintf(hpid, sizeof (hpid), "%d", atoi(tu_said(&h,
	    "holder")));
	target = tpid;
	holder = hpid;
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", theirs.sf_fd);
	(void) snprintf(pidvar, sizeof (pidvar), "RACE_PID=%s", holder);
	{
		const char *args[] = { "--via=pidfd", h.h_pid, target, NULL };
		const char *vars[] = { "RACE_CALL=statx", arg,
		    "RACE_ACTION=kill", pidvar, NULL };

		run_raced(args, vars, &r, &log);
	}
	tu_require_exit("pfiles", &r, 0);
	ATF_REQUIRE_MSG(strstr(log, "kill ok") != NULL, "the holder was not "
	    "killed at the target's statx: %s", log);
	head = tu_asprintf("%s:\t", target);
	b = strstr(r.tr_out, head);
	ATF_REQUIRE_MSG(b != NULL, "no block of the target in:\n%s",
	    r.tr_out);
	fb = tu_fd_block(b, theirs.sf_fd);
	ATF_REQUIRE(fb != NULL);
	want = tu_asprintf("\tendpoint: race_helper[%s] fd %d\n", h.h_pid,
	    mine.sf_fd);
	gone = tu_asprintf("[%s] fd", holder);
	ATF_CHECK_MSG(strstr(fb, want) != NULL, "the helper's line is "
	    "missing:\n%s", fb);
	ATF_CHECK_MSG(strstr(fb, gone) == NULL &&
	    strstr(fb, "more") == NULL, "the holder gone is named:\n%s", fb);
	free(fb);
	free(want);
	free(gone);
	free(head);
	free(log);
	tu_result_free(&r);
	tu_helper_stop(&h);
}

/*
 * A connection made after the run's index and socket tables: the helper
 * (first pid) sends the target (second pid) one end of a new socket pair
 * at the walk's second statx of the helper's fd 0, after its turn's index
 * was made and its tables dumped, and keeps the other end.  The target's
 * line for it must name the helper (tables and index read again), or
 * pfiles must say on stderr that the socket, or its other end's holder,
 * was not looked for: never nothing, and never a holder counted that was
 * not found.
 */
ATF_TC(other_end_made_since_index);
ATF_TC_HEAD(other_end_made_since_index, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles over many pids says a holder "
	    "of an other end made after the run's index was: named, or its "
	    "absence said on stderr, never left out unsaid");
}

static void
made_since_index(int netns)
{
	char *log, *b, *fb, *named, *said, *unseen, *head, *line, tpid[16];
	int got = -1, mine = -1;
	tu_helper_t h;
	tu_result_t r;

	make_fifos();
	{
		const char *hargv[] = { HELPER, netns ? "latecomer-netns" :
		    "latecomer", "cmd", "ack", NULL };

		tu_helper_start(&h, hargv);
	}
	if (strstr(h.h_said, "skip ") != NULL) {
		int e = atoi(tu_said(&h, "skip"));

		tu_helper_stop(&h);
		atf_tc_skip("cannot make a network namespace here: %s",
		    strerror(e));
	}
	(void) snprintf(tpid, sizeof (tpid), "%d", atoi(tu_said(&h,
	    "target")));
	{
		const char *args[] = { "--via=pidfd", h.h_pid, tpid, NULL };
		const char *vars[] = { "RACE_CALL=statx", "RACE_ARG=0",
		    "RACE_NTH=2", "RACE_ACTION=fifo", "RACE_CMD=cmd",
		    "RACE_ACK=ack", "RACE_SAY=late", NULL };

		run_raced(args, vars, &r, &log);
	}
	tu_require_exit("pfiles", &r, 0);
	ATF_REQUIRE_MSG(strstr(log, "fifo ok") != NULL, "the pair was not "
	    "made during the helper's walk: %s", log);
	line = tu_read_line(h.h_child.tc_out, TU_TIMEOUT_MS);
	ATF_REQUIRE(line != NULL && sscanf(line, "got %d", &got) == 1);
	free(line);
	line = tu_read_line(h.h_child.tc_out, TU_TIMEOUT_MS);
	ATF_REQUIRE(line != NULL && sscanf(line, "mine %d", &mine) == 1);
	free(line);
	head = tu_asprintf("%s:\t", tpid);
	b = strstr(r.tr_out, head);
	ATF_REQUIRE_MSG(b != NULL, "no block of the target in:\n%s",
	    r.tr_out);
	fb = tu_fd_block(b, got);
	ATF_REQUIRE_MSG(fb != NULL, "the target's fd %d is not shown", got);
	named = tu_asprintf("\tendpoint: race_helper[%s] fd %d\n", h.h_pid,
	    mine);
	said = tu_asprintf("%s: endpoint lines incomplete: 1 socket is not "
	    "in the socket tables this run read before", tpid);
	unseen = tu_asprintf("%s: endpoint lines incomplete: the other end of "
	    "1 socket is in no fd table pfiles read, and the run read them "
	    "before this process's turn: whether a process holds it is not "
	    "known\n", tpid);
	/*
	 * In a namespace of a few sockets, the run's tables are dumped again
	 * at once (their lookups since soon add up to their size): the
	 * other end is known, and its holder named, or the index's age said.
	 */
	ATF_CHECK_MSG(strstr(fb, "\tendpoint: and ") == NULL, "a holder "
	    "counted that was not found:\n%s", fb);
	ATF_CHECK_MSG(strstr(fb, named) != NULL ||
	    strstr(r.tr_err, unseen) != NULL ||
	    (!netns && strstr(r.tr_err, said) != NULL), "the holder of the "
	    "other end is not named, nor its absence said:\n%s%s", fb,
	    r.tr_err);
	free(unseen);
	free(named);
	free(said);
	free(head);
	free(fb);
	free(log);
	tu_result_free(&r);
	tu_helper_stop(&h);
}

ATF_TC_BODY(other_end_made_since_index, tc)
{
	made_since_index(0);
}

ATF_TC(other_end_made_since_index_netns);
ATF_TC_HEAD(other_end_made_since_index_netns, tc)
{
	atf_tc_set_md_var(tc, "descr", "the same in a network namespace of "
	    "a few sockets, whose tables the run reads again at once: the "
	    "holder of the new other end named, or the index's age said");
}
ATF_TC_BODY(other_end_made_since_index_netns, tc)
{
	made_since_index(1);
}

ATF_TC(replaced_after_stat);
ATF_TC_HEAD(replaced_after_stat, tc)
{
	atf_tc_set_md_var(tc, "descr", "An fd that the target replaces "
	    "(dup2 of another file onto it) just after the walk's stat of "
	    "it, and then keeps: pfiles shows it whole, with the inode, flags "
	    "and path of the file it now holds, and does not call it "
	    "changing");
}
ATF_TC_BODY(replaced_after_stat, tc)
{
	char *cwd = getcwd(NULL, 0), *b, *want, *log, arg[16], say[64];
	said_fd_t a, bf;
	tu_helper_t h;
	tu_result_t r;

	ATF_REQUIRE(cwd != NULL);
	make_fifos();
	{
		const char *hargv[] = { HELPER, "files", cwd, "cmd", "ack",
		    NULL };

		tu_helper_start(&h, hargv);
	}
	said_fd(&h, "a", &a);
	said_fd(&h, "b", &bf);
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", a.sf_fd);
	(void) snprintf(say, sizeof (say), "RACE_SAY=dup2 %d %d", bf.sf_fd,
	    a.sf_fd);
	{
		const char *args[] = { h.h_pid, NULL };
		const char *vars[] = { "RACE_CALL=statx", arg,
		    "RACE_WHEN=after", "RACE_ACTION=fifo", "RACE_CMD=cmd",
		    "RACE_ACK=ack", say, NULL };

		run_raced(args, vars, &r, &log);
	}
	want = tu_asprintf("statx %d fifo ok\n", a.sf_fd);
	tu_require_same_str("race.log", want, log);
	free(want);
	tu_require_exit("pfiles", &r, 0);
	tu_require_same_str("stderr", "", r.tr_err);
	ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, a.sf_fd)) != NULL,
	    "fd %d not shown:\n%s", a.sf_fd, r.tr_out);
	want = tu_asprintf("%4d: S_IFREG mode:0644 ", a.sf_fd);
	ATF_CHECK_MSG(strncmp(b, want, strlen(want)) == 0, "%s", b);
	free(want);
	want = tu_asprintf(" ino:%llu ", bf.sf_ino);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "not the new file's inode "
	    "%llu:\n%s", bf.sf_ino, b);
	free(want);
	ATF_CHECK_MSG(strstr(b, "\n      O_WRONLY|O_APPEND") != NULL,
	    "not the new file's flags:\n%s", b);
	want = tu_asprintf("\n      %s\n", bf.sf_rest);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "not the new file's path "
	    "%s:\n%s", bf.sf_rest, b);
	free(want);
	free(b);
	free(log);
	tu_result_free(&r);
	tu_helper_stop(&h);
	free(cwd);
}

/* The end of a race on the helper: its log, result, helper and fifos. */
static void
race_done(tu_helper_t *h, tu_result_t *r, char *log)
{
	free(log);
	tu_result_free(r);
	tu_helper_stop(h);
	(void) unlink("cmd");
	(void) unlink("ack");
	(void) unlink("race.log");
}

/*
 * The target replaces socket a with b (dup2) at call (RACE_CALL, RACE_WHEN)
 * of fd a; pfiles with opt must show b, the socket the fd then holds.
 */
static void
replaced_socket(const char *via, const char *opt, const char *call,
    const char *when)
{
	const char *hargv[] = { HELPER, "sockets", "cmd", "ack", NULL };
	char *b, *want, *log, arg[16], say[64], rcall[32], rwhen[32];
	said_fd_t a, bs;
	tu_helper_t h;
	tu_result_t r;

	make_fifos();
	tu_helper_start(&h, hargv);
	said_fd(&h, "a", &a);
	said_fd(&h, "b", &bs);
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", a.sf_fd);
	(void) snprintf(say, sizeof (say), "RACE_SAY=dup2 %d %d", bs.sf_fd,
	    a.sf_fd);
	(void) snprintf(rcall, sizeof (rcall), "RACE_CALL=%s", call);
	(void) snprintf(rwhen, sizeof (rwhen), "RACE_WHEN=%s", when);
	{
		const char *args[] = { via, opt, h.h_pid, NULL };
		const char *vars[] = { rcall, arg, rwhen, "RACE_ACTION=fifo",
		    "RACE_CMD=cmd", "RACE_ACK=ack", say, NULL };

		if (opt == NULL) {
			args[1] = h.h_pid;
			args[2] = NULL;
		}
		run_raced(args, vars, &r, &log);
	}
	want = tu_asprintf("%s %d fifo ok\n", call, a.sf_fd);
	tu_require_same_str("race.log", want, log);
	free(want);
	tu_require_exit("pfiles", &r, 0);
	/* diag names once what the tables do not hold. */
	if (strcmp(via, "--via=diag") != 0)
		tu_require_same_str("stderr", "", r.tr_err);
	ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, a.sf_fd)) != NULL,
	    "fd %d not shown:\n%s", a.sf_fd, r.tr_out);
	want = tu_asprintf(" ino:%llu ", bs.sf_ino);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "%s %s: not the inode %llu of "
	    "the socket it holds:\n%s", via, opt != NULL ? opt : "",
	    bs.sf_ino, b);
	free(want);
	want = tu_asprintf("\tsockname: AF_INET 127.0.0.1  port: %s\n",
	    bs.sf_rest);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "%s: not the name (port %s) "
	    "of the socket it holds:\n%s", opt != NULL ? opt : "",
	    bs.sf_rest, b);
	free(want);
	free(b);
	race_done(&h, &r, log);
}

ATF_TC(socket_replaced);
ATF_TC_HEAD(socket_replaced, tc)
{
	atf_tc_set_md_var(tc, "descr", "A socket fd that the target "
	    "replaces with another socket (dup2) between the walk's stat of "
	    "it and pidfd_getfd: pfiles never shows the other socket's facts "
	    "under the first one's inode; it shows the socket the fd now "
	    "holds, its inode and its name; with the endpoints (the socket "
	    "known by its cookie in the socket tables) and without (by the "
	    "inode of the duplicate)");
}
ATF_TC_BODY(socket_replaced, tc)
{
	replaced_socket("--via=pidfd", NULL, "pidfd_getfd", "before");
	replaced_socket("--via=pidfd", "--no-endpoints", "pidfd_getfd",
	    "before");
}

ATF_TC(socket_replaced_after_pass);
ATF_TC_HEAD(socket_replaced_after_pass, tc)
{
	atf_tc_set_md_var(tc, "descr", "A socket fd that the target "
	    "replaces with another socket (dup2) just after the endpoints' "
	    "pass over its table took its stat, which the walk then takes "
	    "instead of a stat of its own: pfiles shows the socket the fd "
	    "now holds, its inode and its name, not the stat of the first");
}
ATF_TC_BODY(socket_replaced_after_pass, tc)
{
	/*
	 * The first statx of fd a is the endpoints' pass's.  With diag, no
	 * duplicate is asked who it is: fdinfo's inode alone tells.
	 */
	replaced_socket("--via=pidfd", NULL, "statx", "after");
	replaced_socket("--via=diag", NULL, "statx", "after");
}

ATF_TC(getfd_refused);
ATF_TC_HEAD(getfd_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "pidfd_getfd fails with EMFILE, "
	    "then with EPERM, for one socket, after the probe served: pfiles "
	    "shows that socket (its stat line), says on stderr that its "
	    "details are unavailable and why (each errno as it is), and "
	    "shows the other socket whole");
}

/* pidfd_getfd of socket a fails with err: a alone shows no details. */
static void
getfd_fails(int err)
{
	const char *hargv[] = { HELPER, "sockets", "cmd", "ack", NULL };
	char *b, *want, *log, arg[16], errnum[32];
	said_fd_t a, bs;
	tu_helper_t h;
	tu_result_t r;

	make_fifos();
	tu_helper_start(&h, hargv);
	said_fd(&h, "a", &a);
	said_fd(&h, "b", &bs);
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", a.sf_fd);
	(void) snprintf(errnum, sizeof (errnum), "RACE_ERRNO=%d", err);
	{
		const char *args[] = { "--via=pidfd", h.h_pid, NULL };
		const char *vars[] = { "RACE_CALL=pidfd_getfd", arg,
		    "RACE_ACTION=fail", errnum, NULL };

		run_raced(args, vars, &r, &log);
	}
	want = tu_asprintf("pidfd_getfd %d fail ok\n", a.sf_fd);
	tu_require_same_str("race.log", want, log);
	free(want);
	tu_require_exit("pfiles --via=pidfd", &r, 0);
	want = tu_asprintf("pfiles: %s: details of 1 socket unavailable: "
	    "pidfd_getfd: %s\n", h.h_pid, strerror(err));
	tu_require_same_str("stderr", want, r.tr_err);
	free(want);
	ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, a.sf_fd)) != NULL,
	    "fd %d not shown:\n%s", a.sf_fd, r.tr_out);
	want = tu_asprintf("%4d: S_IFSOCK mode:", a.sf_fd);
	ATF_CHECK_MSG(strncmp(b, want, strlen(want)) == 0, "%s", b);
	free(want);
	want = tu_asprintf(" ino:%llu ", a.sf_ino);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "not inode %llu:\n%s",
	    a.sf_ino, b);
	free(want);
	ATF_CHECK_MSG(strstr(b, "sockname:") == NULL, "details shown:\n%s",
	    b);
	free(b);
	ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, bs.sf_fd)) != NULL,
	    "fd %d not shown:\n%s", bs.sf_fd, r.tr_out);
	want = tu_asprintf("\tsockname: AF_INET 127.0.0.1  port: %s\n",
	    bs.sf_rest);
	ATF_CHECK_MSG(strstr(b, want) != NULL, "the other socket not "
	    "whole:\n%s", b);
	free(want);
	free(b);
	race_done(&h, &r, log);
}

ATF_TC_BODY(getfd_refused, tc)
{
	/* Out of fds with none held, and refused: each said as it is. */
	getfd_fails(EMFILE);
	getfd_fails(EPERM);
}

ATF_TC(getfd_emfile_held);
ATF_TC_HEAD(getfd_emfile_held, tc)
{
	atf_tc_set_md_var(tc, "descr", "pidfd_getfd fails once with EMFILE "
	    "for socket b while socket a's duplicate is held: a is asked and "
	    "its duplicate closed, b duplicated again; both shown whole, "
	    "nothing on stderr");
}
ATF_TC_BODY(getfd_emfile_held, tc)
{
	const char *hargv[] = { HELPER, "sockets", "cmd", "ack", NULL };
	char *b, *want, *log, arg[32], errnum[32];
	said_fd_t s[2];
	tu_helper_t h;
	tu_result_t r;

	make_fifos();
	tu_helper_start(&h, hargv);
	said_fd(&h, "a", &s[0]);
	said_fd(&h, "b", &s[1]);
	ATF_REQUIRE(s[0].sf_fd < s[1].sf_fd);	/* a is duplicated first */
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", s[1].sf_fd);
	(void) snprintf(errnum, sizeof (errnum), "RACE_ERRNO=%d", EMFILE);
	run_raced((const char *[]){ "--via=pidfd", h.h_pid, NULL },
	    (const char *[]){ "RACE_CALL=pidfd_getfd", arg,
	    "RACE_ACTION=fail", errnum, NULL }, &r, &log);
	want = tu_asprintf("pidfd_getfd %d fail ok\n", s[1].sf_fd);
	tu_require_same_str("race.log", want, log);
	free(want);
	tu_require_exit("pfiles --via=pidfd", &r, 0);
	tu_require_same_str("stderr", "", r.tr_err);
	for (int i = 0; i < 2; i++) {
		ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, s[i].sf_fd)) !=
		    NULL, "fd %d not shown:\n%s", s[i].sf_fd, r.tr_out);
		want = tu_asprintf("\tsockname: AF_INET 127.0.0.1  port: "
		    "%s\n", s[i].sf_rest);
		ATF_CHECK_MSG(strstr(b, want) != NULL, "fd %d not whole:\n%s",
		    s[i].sf_fd, b);
		free(want);
		free(b);
	}
	race_done(&h, &r, log);
}

/*
 * The thread of zombie_thread that this test traces: its tracer must reap
 * it before anything waits for the helper, whose thread group cannot be
 * reaped while it is there -- also when a check fails and the test exits
 * (an atexit handler, run before testutil's, which waits for children).
 */
static pid_t traced_tid;

static void
reap_traced(void)
{
	int st;

	if (traced_tid > 0)
		(void) waitpid(traced_tid, &st, __WALL);
	traced_tid = 0;
}

/*
 * pfiles on the zombie_thread helper: each way must show its file, from
 * the live thread.  nothread: as on a kernel without pidfds of threads
 * (before 6.9), where pidfd cannot reach that thread's files; the helper
 * holds no socket, which needs no source, so that even --via=pidfd shows
 * it (t_truth:main_thread_exited has pidfd refused, with a socket).
 */
static void
zombie_thread_views(const tu_helper_t *h, const said_fd_t *f,
    const char *path, int nothread)
{
	const char *modes[] = { "--via=pidfd", "--via=auto", "-n" };
	const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0", NULL };
	char *b, *want;

	for (int m = 0; m < 3; m++) {
		const char *const wrap[] = { TU_NO_THREAD_PIDFD, NULL };
		const char *const args[] = { modes[m], h->h_pid, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nothread ? wrap :
		    NULL, .tp_opts = args, .tp_env = nothread ? env : NULL }, &r);
		tu_require_exit(modes[m], &r, 0);
		tu_require_same_str(modes[m], "", r.tr_err);
		ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, f->sf_fd)) != NULL,
		    "%s: fd %d not shown:\n%s", modes[m], f->sf_fd, r.tr_out);
		want = tu_asprintf("%4d: S_IFREG mode:0644 ", f->sf_fd);
		ATF_CHECK_MSG(strncmp(b, want, strlen(want)) == 0, "%s: %s",
		    modes[m], b);
		free(want);
		want = tu_asprintf(" ino:%llu ", f->sf_ino);
		ATF_CHECK_MSG(strstr(b, want) != NULL, "%s: %s", modes[m], b);
		free(want);
		/* -n: the stat line alone. */
		want = tu_asprintf("\n      %s\n", path);
		ATF_CHECK_MSG(m == 2 || strstr(b, want) != NULL,
		    "%s: no path: %s", modes[m], b);
		free(want);
		free(b);
		tu_result_free(&r);
	}
}

ATF_TC(zombie_thread);
ATF_TC_HEAD(zombie_thread, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process whose main thread has "
	    "exited and whose first other thread has exited too but is "
	    "held, a zombie, by its tracer (this test), while a third "
	    "thread lives: pfiles (pidfd where the kernel has pidfds of "
	    "threads, auto, -n) examines it through the live thread and "
	    "shows its open file; as on a kernel without them (a filter "
	    "refusing PIDFD_THREAD), pidfd is refused saying why and auto "
	    "serves through the agent");
}
ATF_TC_BODY(zombie_thread, tc)
{
	const char *hargv[] = { HELPER, "zthread", NULL, NULL };
	char *cwd = getcwd(NULL, 0), *path, *line;
	int thread_pidfd = tu_have_thread_pidfd();
	said_fd_t f;
	siginfo_t si;
	tu_helper_t h;
	pid_t tid;
	int found, i;

	ATF_REQUIRE(cwd != NULL);
	path = tu_asprintf("%s/zfile", cwd);
	tu_write_file("zfile", "z", 1);
	hargv[2] = path;
	tu_spawn(&h.h_child, hargv, 0);
	(void) snprintf(h.h_pid, sizeof (h.h_pid), "%d",
	    (int)h.h_child.tc_pid);
	line = tu_read_line(h.h_child.tc_out, LINE_MS);
	ATF_REQUIRE_MSG(line != NULL && sscanf(line, "thread %d", &tid) == 1,
	    "no thread: %s", line != NULL ? line : "(end)");
	free(line);
	/* Its exit is ours to collect: until then, it is a zombie. */
	ATF_REQUIRE_MSG(ptrace(PTRACE_SEIZE, tid, 0, 0) == 0,
	    "PTRACE_SEIZE %d: %s", (int)tid, strerror(errno));
	traced_tid = tid;
	ATF_REQUIRE(atexit(reap_traced) == 0);
	ATF_REQUIRE(write(h.h_child.tc_in, "x", 1) == 1);
	for (i = 0; i < LINE_MS; i++) {
		memset(&si, 0, sizeof (si));
		ATF_REQUIRE(waitid(P_PID, (id_t)tid, &si, WEXITED | WNOWAIT |
		    WNOHANG | __WALL) == 0);
		if (si.si_pid == tid)
			break;
		(void) usleep(1000);
	}
	ATF_REQUIRE_MSG(i < LINE_MS, "thread %d did not exit", (int)tid);
	ATF_REQUIRE_EQ(tu_proc_state(tid), 'Z');
	h.h_said = tu_read_until(h.h_child.tc_out, "ready", LINE_MS, &found);
	ATF_REQUIRE_MSG(found, "no ready: %s", h.h_said);
	said_fd(&h, "file", &f);
	/* The main thread has exited: a zombie while the others are not. */
	ATF_REQUIRE_MSG(tu_wait_state(h.h_child.tc_pid, 'Z', LINE_MS) == 'Z',
	    "the main thread did not exit");
	zombie_thread_views(&h, &f, path, !thread_pidfd);
	if (thread_pidfd)
		zombie_thread_views(&h, &f, path, 1);
	reap_traced();
	tu_helper_stop(&h);
	(void) unlink("zfile");
	free(path);
	free(cwd);
}

ATF_TC(unknown_option);
ATF_TC_HEAD(unknown_option, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles under a seccomp filter that "
	    "fails getsockopt(SOL_SOCKET, SO_REUSEPORT) with ENOPROTOOPT, as "
	    "a kernel that does not know the option (Linux < 3.9) answers: "
	    "with pidfd the option is left out and no error said; with "
	    "diag it is not named among the facts diag cannot show, as no "
	    "socket of that kernel can have it");
}
ATF_TC_BODY(unknown_option, tc)
{
	const char *hargv[] = { HELPER, "sockets", "cmd", "ack", NULL };
	const char *vias[] = { "--via=pidfd", "--via=diag" };
	char opt[16];
	said_fd_t a;
	tu_helper_t h;

	make_fifos();
	tu_helper_start(&h, hargv);
	said_fd(&h, "a", &a);
	(void) snprintf(opt, sizeof (opt), "%d", SO_REUSEPORT);
	for (int v = 0; v < 2; v++) {
		const char *wrap[] = { HELPER, "noopt", opt, NULL };
		const char *args[] = { vias[v], h.h_pid, NULL };
		/* LeakSanitizer (SANITIZE=1) does not run under the filter. */
		const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    NULL };
		char *b, *want;
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
		tu_require_exit(vias[v], &r, 0);
		ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, a.sf_fd)) != NULL,
		    "%s: fd %d not shown:\n%s", vias[v], a.sf_fd, r.tr_out);
		want = tu_asprintf("\tsockname: AF_INET 127.0.0.1  port: %s\n",
		    a.sf_rest);
		ATF_CHECK_MSG(strstr(b, want) != NULL, "%s: not whole:\n%s",
		    vias[v], b);
		ATF_CHECK_MSG(strstr(b, "SO_REUSEPORT") == NULL, "%s: %s",
		    vias[v], b);
		free(want);
		free(b);
		if (v == 0) {
			tu_require_same_str("stderr", "", r.tr_err);
		} else {
			/* diag knows no options: some are named, not it. */
			want = tu_asprintf("pfiles: %s: not shown: ", h.h_pid);
			ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL,
			    "diag names no facts it cannot show: %s",
			    r.tr_err);
			ATF_CHECK_MSG(strstr(r.tr_err, "SO_REUSEPORT") == NULL,
			    "diag names an option the kernel does not know: "
			    "%s", r.tr_err);
			free(want);
		}
		tu_result_free(&r);
	}
	tu_helper_stop(&h);
}

ATF_TC(linger_not_slept);
ATF_TC_HEAD(linger_not_slept, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target's TCP socket with "
	    "SO_LINGER of 1 s and data that cannot go (the peer's window is "
	    "shut) is left to pfiles alone: the target is killed (by the "
	    "wrapper) just before pfiles closes its duplicate, the last "
	    "reference: pfiles' thread is never seen asleep in that close");
}
ATF_TC_BODY(linger_not_slept, tc)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	char port[16], pidvar[32], *log, *nl;
	const char *hargv[] = { HELPER, "linger", port, NULL };
	int l, conn, tiny = 4096;
	struct pollfd pfd;
	tu_helper_t h;
	tu_result_t r;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	/* A receive buffer of fixed, small size: the window shuts soon. */
	ATF_REQUIRE(setsockopt(l, SOL_SOCKET, SO_RCVBUF, &tiny,
	    sizeof (tiny)) == 0);
	ATF_REQUIRE(bind(l, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(listen(l, 1) == 0);
	ATF_REQUIRE(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	(void) snprintf(port, sizeof (port), "%u", ntohs(sin.sin_port));
	tu_helper_start(&h, hargv);
	pfd.fd = l;
	pfd.events = POLLIN;
	ATF_REQUIRE(poll(&pfd, 1, LINE_MS) == 1);
	ATF_REQUIRE((conn = accept(l, NULL, NULL)) >= 0);
	(void) snprintf(pidvar, sizeof (pidvar), "RACE_PID=%s", h.h_pid);
	{
		const char *args[] = { "--via=pidfd", h.h_pid, NULL };
		const char *vars[] = { "RACE_CALL=close_linger",
		    "RACE_ACTION=kill", pidvar, "RACE_WATCH=1", NULL };

		run_raced(args, vars, &r, &log);
	}
	ATF_CHECK_MSG(WIFEXITED(r.tr_status), "pfiles ended with status "
	    "0x%x", r.tr_status);
	ATF_CHECK_MSG(tu_proc_state(h.h_child.tc_pid) == 'Z', "the wrapper "
	    "did not kill the target");
	/* "close_linger FD kill ok", then what the watcher saw. */
	nl = strchr(log, '\n');
	ATF_REQUIRE_MSG(strncmp(log, "close_linger ", 13) == 0 && nl != NULL &&
	    nl - log > 8 && strncmp(nl - 8, " kill ok", 8) == 0,
	    "the race did not come: %s", log);
	tu_require_same_str("what the watcher saw", "awake\n", nl + 1);
	free(log);
	tu_result_free(&r);
	tu_helper_stop(&h);
	(void) close(conn);
	(void) close(l);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, holder_gone_since_index);
	ATF_TP_ADD_TC(tp, other_end_made_since_index);
	ATF_TP_ADD_TC(tp, other_end_made_since_index_netns);
	ATF_TP_ADD_TC(tp, replaced_after_stat);
	ATF_TP_ADD_TC(tp, socket_replaced);
	ATF_TP_ADD_TC(tp, socket_replaced_after_pass);
	ATF_TP_ADD_TC(tp, getfd_refused);
	ATF_TP_ADD_TC(tp, getfd_emfile_held);
	ATF_TP_ADD_TC(tp, zombie_thread);
	ATF_TP_ADD_TC(tp, unknown_option);
	ATF_TP_ADD_TC(tp, linger_not_slept);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_truth: pfiles never prints a false fact, and never drops an fd
 * without saying so.  Each case reproduces one situation in which it
 * once did, with a target of atf/truth_helper.c that says what it made:
 *
 *  killed_during_walk	a target killed at a random moment of the walk:
 *			never exit 0 with a listing cut short (pidfd, -n,
 *			the agent)
 *  torn_records	an fd switched between two files all the time: it is
 *			always shown, its inode, flags and path of one file,
 *			or its stat line alone, marked as changing
 *  pid_namespace	pfiles in a pid namespace that sees another /proc:
 *			an error, not another process's fds
 *  path_too_long	files open at paths longer than PATH_MAX: every
 *			fd printed, those without a path, a note on stderr
 *  path_refused	readlinkat refused to pfiles (seccomp, EACCES):
 *			the one file without a path, the reason on stderr
 *  agent_refused	the agent under a target's seccomp filter that
 *			fails fstat or getsockopt with EPERM: every fd
 *			printed, the missing facts named on stderr
 *  agent_peer_pidns	SO_PEERCRED asked through the agent in another
 *			pid namespace never names an unrelated process
 *  main_thread_exited	a process whose main thread exited is examined
 *  opath_socket	an O_PATH fd on a socket file is a path
 *  hung_fuse		a file open on a FUSE filesystem whose server no
 *			longer answers: pfiles does not wait on it
 *  reasons		messages in the contract's words; valid pid numbers
 *			beyond pid_max are "no such process"; no header for
 *			a process that cannot be examined
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define	HELPER		BUILD_DIR "/atf/truth_helper"
#define	SECCOMP_DENY	BUILD_DIR "/atf/seccomp_deny"
#define	FUSE_HELPER	BUILD_DIR "/atf/fuse_helper"
#define	FUSE_MS		10000
#define	LINE_MS		10000
#define	KILL_RUNS	100
#define	KILL_FDS	4000
#define	CHURN_RUNS	300

static int
count_fd_lines(const char *text)
{
	int n = 0;

	for (const char *l = text; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		if (tu_is_fd_line(l))
			n++;
	}
	return (n);
}

/* Start pfiles with its output in files; its pid. */
static pid_t
spawn_pfiles(const char *const argv[], const char *out, const char *err)
{
	pid_t pid = fork();

	ATF_REQUIRE(pid >= 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		(void) execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return (pid);
}

static int
wait_bounded(pid_t pid, int ms)
{
	int st;

	for (int i = 0; i < ms; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return (st);
		(void) usleep(1000);
	}
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, &st, 0);
	atf_tc_fail("pfiles did not end within %d ms", ms);
	return (st);
}

ATF_TC(killed_during_walk);
ATF_TC_HEAD(killed_during_walk, tc)
{
	atf_tc_set_md_var(tc, "descr", "A target with 4000 fds killed at a "
	    "random moment of the walk: pfiles never exits 0 with a listing "
	    "cut short; with -n and the agent too");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(killed_during_walk, tc)
{
	static const char *const modes[] = { "--via=pidfd", "-n",
	    "--via=agent" };
	int complete = 0, exited = 0;
	char nfds[16];

	(void) snprintf(nfds, sizeof (nfds), "%d", KILL_FDS);
	srandom((unsigned)time(NULL));
	for (int run = 0; run < KILL_RUNS; run++) {
		const char *hargv[] = { HELPER, "fds", nfds, NULL };
		const char *mode = modes[run % 3];
		tu_helper_t h;
		char *out, *err;
		int st, want;

		tu_helper_start(&h, hargv);
		want = atoi(tu_said(&h, "count"));
		{
			const char *argv[] = { TU_PFILES, mode, h.h_pid,
			    NULL };
			pid_t p = spawn_pfiles(argv, "out", "err");

			(void) usleep((useconds_t)(random() % 40000));
			(void) kill(h.h_child.tc_pid, SIGKILL);
			st = wait_bounded(p, TU_TIMEOUT_MS);
		}
		tu_helper_stop(&h);
		out = tu_read_file("out", NULL);
		err = tu_read_file("err", NULL);
		ATF_REQUIRE_MSG(WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
		    WEXITSTATUS(st) == 1), "%s: pfiles ended with status "
		    "0x%x: %s", mode, st, err);
		if (WEXITSTATUS(st) == 0) {
			ATF_REQUIRE_MSG(count_fd_lines(out) == want,
			    "%s: exit 0 with %d of %d fds (run %d)", mode,
			    count_fd_lines(out), want, run);
			complete++;
		} else {
			/* Gone before the grab (our child: a zombie), or in it. */
			ATF_REQUIRE_MSG(strstr(err, "process exited during "
			    "examination\n") != NULL || strstr(err,
			    "no such process\n") != NULL || strstr(err,
			    "process is defunct\n") != NULL, "%s: %.*s", mode,
			    (int)strcspn(err, "\n"), err);
			exited++;
		}
		free(out);
		free(err);
	}
	printf("%d runs: %d complete listings, %d said the process exited\n",
	    KILL_RUNS, complete, exited);
}

ATF_TC(torn_records);
ATF_TC_HEAD(torn_records, tc)
{
	atf_tc_set_md_var(tc, "descr", "fd 20 switched between two files by "
	    "a thread: every printed block has the inode, flags and path of "
	    "one and the same file");
	tu_timeout(tc, 600);
}
ATF_TC_BODY(torn_records, tc)
{
	const char *hargv[] = { HELPER, "churn", ".", NULL };
	char *path_a, *path_b, *cwd, *tag_a, *tag_b;
	int whole = 0, changed = 0;
	tu_helper_t h;

	cwd = getcwd(NULL, 0);
	ATF_REQUIRE(cwd != NULL);
	hargv[2] = cwd;
	tu_helper_start(&h, hargv);
	tag_a = tu_asprintf(" ino:%llu ", strtoull(tu_said(&h, "rdonly"), NULL,
	    10));
	tag_b = tu_asprintf(" ino:%llu ", strtoull(tu_said(&h, "append"), NULL,
	    10));
	path_a = tu_asprintf("%s/churn-a", cwd);
	path_b = tu_asprintf("%s/churn-b", cwd);
	for (int run = 0; run < CHURN_RUNS; run++) {
		const char *args[] = { h.h_pid, NULL };
		char *b, *want;
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles", &r, 0);
		ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, 20)) != NULL,
		    "fd 20 not shown (run %d):\n%s", run, r.tr_out);
		if (strstr(r.tr_err, "1 fd changed all the while it was "
		    "examined: only its stat line is shown\n") != NULL) {
			/* Marked: its stat line, one file's, and no more. */
			ATF_REQUIRE_MSG(strchr(b, '\n') == strrchr(b, '\n') &&
			    (strstr(b, tag_a) != NULL) !=
			    (strstr(b, tag_b) != NULL), "a changed fd: %s", b);
			changed++;
		} else {
			int is_a = strstr(b, tag_a) != NULL;
			int is_b = strstr(b, tag_b) != NULL;

			tu_require_same_str("stderr", "", r.tr_err);
			ATF_REQUIRE_MSG(is_a != is_b, "neither file: %s", b);
			/* The flags line, then the path line, of that file. */
			want = tu_asprintf("\n      %s", is_a ? "O_RDONLY" :
			    "O_WRONLY|O_APPEND|");
			ATF_REQUIRE_MSG(strstr(b, want) != NULL,
			    "flags of the other file (run %d):\n%s", run, b);
			free(want);
			want = tu_asprintf("\n      %s\n", is_a ? path_a :
			    path_b);
			ATF_REQUIRE_MSG(strstr(b, want) != NULL,
			    "path of the other file (run %d):\n%s", run, b);
			free(want);
			whole++;
		}
		free(b);
		tu_result_free(&r);
	}
	printf("%d runs: fd 20 whole and of one file %d times, marked as "
	    "changing %d times\n", CHURN_RUNS, whole, changed);
	tu_helper_stop(&h);
	free(tag_a);
	free(tag_b);
	free(path_a);
	free(path_b);
	free(cwd);
}

ATF_TC(pid_namespace);
ATF_TC_HEAD(pid_namespace, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles in a new pid namespace that "
	    "still sees the host's /proc: pid 1 is not examined as the "
	    "host's pid 1, it is an error");
	atf_tc_set_md_var(tc, "require.progs", "unshare");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(pid_namespace, tc)
{
	const char *wrap[] = { "unshare", "-p", "-f", NULL };
	const char *args[] = { "1", NULL };
	tu_result_t r;

	tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
	    .tp_opts = args }, &r);
	if (WIFEXITED(r.tr_status) && strstr(r.tr_err, "unshare:") != NULL)
		atf_tc_skip("no pid namespace here: %s", r.tr_err);
	tu_require_exit("unshare -p -f pfiles 1", &r, 1);
	tu_require_same_str("stdout", "", r.tr_out);
	tu_require_same_str("stderr", "pfiles: cannot examine 1: the pid is "
	    "another process in /proc (pid namespaces differ)\n", r.tr_err);
	tu_result_free(&r);
}

ATF_TC(path_too_long);
ATF_TC_HEAD(path_too_long, tc)
{
	atf_tc_set_md_var(tc, "descr", "A file open at a path longer than "
	    "PATH_MAX: every fd is printed, that one without a path line, "
	    "and stderr says why; -n prints every fd too");
}
ATF_TC_BODY(path_too_long, tc)
{
	const char *hargv[] = { HELPER, "deep", ".", NULL };
	char *cwd = getcwd(NULL, 0), *b, *want;
	int deep, count, nlong;
	tu_helper_t h;

	ATF_REQUIRE(cwd != NULL);
	hargv[2] = cwd;
	tu_helper_start(&h, hargv);
	deep = atoi(tu_said(&h, "deep"));
	count = atoi(tu_said(&h, "count"));
	nlong = atoi(tu_said(&h, "long"));
	ATF_REQUIRE(nlong >= 1);
	{
		const char *args[] = { h.h_pid, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles", &r, 0);
		ATF_CHECK_EQ(count_fd_lines(r.tr_out), count);
		ATF_REQUIRE((b = tu_fd_block(r.tr_out, deep)) != NULL);
		/* The stat line, the flags line and the offset: no path. */
		ATF_CHECK_MSG(strstr(b, "\n      /") == NULL, "a path: %s", b);
		ATF_CHECK_MSG(strstr(b, "      O_RDWR") != NULL, "%s", b);
		want = tu_asprintf("pfiles: %s: path of %d fd%s unavailable: "
		    "file name too long\n", h.h_pid, nlong, nlong == 1 ? "" :
		    "s");
		tu_require_same_str("stderr", want, r.tr_err);
		free(want);
		free(b);
		tu_result_free(&r);
	}
	{
		const char *args[] = { "-n", h.h_pid, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles -n", &r, 0);
		ATF_CHECK_EQ(count_fd_lines(r.tr_out), count);
		tu_require_same_str("stderr -n", "", r.tr_err);
		tu_result_free(&r);
	}
	tu_helper_stop(&h);
	free(cwd);
}

ATF_TC(path_refused);
ATF_TC_HEAD(path_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles whose readlinkat(2) a "
	    "seccomp filter fails with EACCES, on a target with one file "
	    "and two sockets: every fd is printed, the file without a path "
	    "line, and stderr gives the reason for that one fd in the "
	    "system's words");
}
ATF_TC_BODY(path_refused, tc)
{
	char nr[16], errnum[16], pid[16], *want, *b;
	int sv[2], status;
	struct pollfd pfd;
	tu_result_t r;
	pid_t kid;
	char c;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	ATF_REQUIRE((kid = fork()) >= 0);
	if (kid == 0) {
		int f = open("pathfile", O_RDWR | O_CREAT, 0644);

		/* fds 0 and 1 the socket, 2 the file, nothing else. */
		if (f < 0 || dup2(sv[1], 0) != 0 || dup2(sv[1], 1) != 1 ||
		    dup2(f, 2) != 2)
			_exit(1);
		(void) close_range(3, ~0U, 0);
		(void) alarm(120);
		if (write(1, "r", 1) != 1)
			_exit(1);
		while (read(0, &c, 1) > 0)
			;
		_exit(0);
	}
	(void) close(sv[1]);
	pfd.fd = sv[0];
	pfd.events = POLLIN;
	ATF_REQUIRE(poll(&pfd, 1, TU_TIMEOUT_MS) == 1);
	ATF_REQUIRE(read(sv[0], &c, 1) == 1);

	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_readlinkat);
	(void) snprintf(errnum, sizeof (errnum), "%d", EACCES);
	(void) snprintf(pid, sizeof (pid), "%d", (int)kid);
	{
		const char *wrap[] = { SECCOMP_DENY, nr, errnum, NULL };
		const char *args[] = { pid, NULL };
		/* LeakSanitizer (SANITIZE=1) does not run under the filter. */
		const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = wrap,
		    .tp_opts = args, .tp_env = env }, &r);
	}
	(void) close(sv[0]);
	ATF_REQUIRE_EQ(waitpid(kid, &status, 0), kid);
	(void) unlink("pathfile");
	tu_require_exit("seccomp_deny readlinkat pfiles", &r, 0);
	ATF_CHECK_EQ(count_fd_lines(r.tr_out), 3);
	ATF_REQUIRE((b = tu_fd_block(r.tr_out, 2)) != NULL);
	ATF_CHECK_MSG(strstr(b, "      O_RDWR") != NULL, "%s", b);
	ATF_CHECK_MSG(strstr(b, "\n      /") == NULL, "a path: %s", b);
	free(b);
	want = tu_asprintf("pfiles: %s: path of 1 fd unavailable: %s\n",
	    pid, strerror(EACCES));
	ATF_CHECK_MSG(strstr(r.tr_err, want) != NULL, "no \"%s\" in: %s",
	    want, r.tr_err);
	free(want);
	tu_result_free(&r);
}

/* pfiles --via=agent on a target whose filter refuses nr with EPERM. */
static void
agent_refused(const char *nr, const char *why)
{
	const char *hargv[] = { HELPER, "seccomp", nr, NULL };
	char l[16], p0[16], p1[16], *want;
	int count;
	tu_helper_t h;
	tu_result_t r;

	tu_helper_start(&h, hargv);
	ATF_REQUIRE(sscanf(tu_said(&h, "sockets"), "%15s %15s %15s", l, p0,
	    p1) == 3);
	count = atoi(tu_said(&h, "count"));
	{
		const char *args[] = { "--via=agent", h.h_pid, NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
	}
	tu_require_exit("pfiles --via=agent", &r, 0);
	ATF_CHECK_EQ(count_fd_lines(r.tr_out), count);
	want = tu_asprintf("pfiles: %s: details of 3 sockets unavailable: "
	    "agent: %s: Operation not permitted\n", h.h_pid, why);
	tu_require_same_str("stderr", want, r.tr_err);
	free(want);
	for (int i = 0; i < 3; i++) {
		char *b = tu_fd_block(r.tr_out, atoi(i == 0 ? l : i == 1 ? p0 :
		    p1));

		ATF_REQUIRE_MSG(b != NULL, "fd %d not shown", i);
		/* getsockopt refused: no type, no options; fstat: nothing. */
		ATF_CHECK_MSG(strstr(b, "\tSOCK_") == NULL, "%s", b);
		ATF_CHECK_MSG(strstr(b, "SO_") == NULL, "%s", b);
		if (strcmp(why, "fstat") == 0)
			ATF_CHECK_MSG(strstr(b, "name:") == NULL, "%s", b);
		else if (i == 0)
			ATF_CHECK_MSG(strstr(b, "\tsockname: AF_INET "
			    "127.0.0.1  port: ") != NULL, "%s", b);
		free(b);
	}
	tu_result_free(&r);
	tu_helper_stop(&h);
}

ATF_TC(agent_refused);
ATF_TC_HEAD(agent_refused, tc)
{
	atf_tc_set_md_var(tc, "descr", "The agent under a target's seccomp "
	    "filter that fails fstat, or getsockopt, with EPERM: every fd "
	    "is printed, the missing facts are named on stderr");
	/* The agent reads the filters first: that takes CAP_SYS_ADMIN. */
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(agent_refused, tc)
{
	char nr[16];

	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_fstat);
	agent_refused(nr, "fstat");
	(void) snprintf(nr, sizeof (nr), "%d", (int)SYS_getsockopt);
	agent_refused(nr, "getsockopt");
}

ATF_TC(agent_peer_pidns);
ATF_TC_HEAD(agent_peer_pidns, tc)
{
	atf_tc_set_md_var(tc, "descr", "A socketpair of a process in its own "
	    "pid and network namespaces: the agent's peer: line never names "
	    "a process by its pid of the other namespace; pidfd names the "
	    "holder as we see it");
	atf_tc_set_md_var(tc, "require.progs", "unshare");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(agent_peer_pidns, tc)
{
	const char *hargv[] = { "unshare", "-p", "-n", "-f", "--mount-proc",
	    HELPER, "pair", NULL };
	char path[64], *kids, *want;
	const char *vias[] = { "--via=agent", "--via=pidfd" };
	tu_helper_t h;
	pid_t inner;

	tu_helper_start(&h, hargv);
	/* The helper is unshare's child; its pid as we see it. */
	(void) snprintf(path, sizeof (path), "/proc/%s/task/%s/children",
	    h.h_pid, h.h_pid);
	kids = tu_read_file(path, NULL);
	inner = (pid_t)atoi(kids);
	ATF_REQUIRE_MSG(inner > 0, "no child of unshare: %s", kids);
	for (int i = 0; i < 2; i++) {
		char pid[16];
		tu_result_t r;
		const char *p;

		(void) snprintf(pid, sizeof (pid), "%d", (int)inner);
		{
			const char *args[] = { vias[i], pid, NULL };

			tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		}
		tu_require_exit(vias[i], &r, 0);
		want = tu_asprintf("\tpeer: %s[%d]\n", tu_peer_provable(NULL) ?
		    "truth_helper" : "?", (int)inner);
		for (p = strstr(r.tr_out, "\tpeer: "); p != NULL;
		    p = strstr(p + 1, "\tpeer: "))
			ATF_CHECK_MSG(strncmp(p, want, strlen(want)) == 0,
			    "%s names another process: %.60s", vias[i], p);
		if (i == 1)
			ATF_CHECK_MSG(strstr(r.tr_out, want) != NULL,
			    "pidfd names no peer:\n%s", r.tr_out);
		free(want);
		tu_result_free(&r);
	}
	free(kids);
	tu_helper_stop(&h);
}

/*
 * pfiles on the helper whose main thread has exited, each way; with
 * nothread, under a filter that refuses pidfd_open(2) with PIDFD_THREAD
 * (O_EXCL) as a kernel before 6.9 does (EINVAL).  With pidfds of threads,
 * pidfd serves through the live thread; without, it is refused, saying
 * why, and auto serves through the agent, with the agent's output.
 */
static void
leaderless(const tu_helper_t *h, int fd, int thread_pidfd, int nothread)
{
	const char *vias[] = { "--via=pidfd", "--via=agent", "-n",
	    "--via=auto" };
	char *agent_out = NULL;

	for (int i = 0; i < 4; i++) {
		const char *const wrap[] = { TU_NO_THREAD_PIDFD, NULL };
		const char *const args[] = { vias[i], h->h_pid, NULL };
		const char *const env[] = { "ASAN_OPTIONS=detect_leaks=0",
		    NULL };
		const char *what = nothread ? tu_asprintf("%s, no PIDFD_THREAD",
		    vias[i]) : tu_asprintf("%s", vias[i]);
		tu_result_t r;
		char *b;

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nothread ? wrap :
		    NULL, .tp_opts = args, .tp_env = env }, &r);
		if (i == 0 && !thread_pidfd) {
			tu_require_leaderless_refused(&r, h->h_pid);
			tu_result_free(&r);
			free((void *)what);
			continue;
		}
		tu_require_exit(what, &r, 0);
		ATF_REQUIRE_MSG((b = tu_fd_block(r.tr_out, fd)) != NULL,
		    "%s: fd %d not shown:\n%s", what, fd, r.tr_out);
		if (i != 2)
			ATF_CHECK_MSG(strstr(b, "      /dev/zero\n") != NULL,
			    "%s: %s", what, b);
		free(b);
		if (i == 1)
			agent_out = tu_asprintf("%s", r.tr_out);
		/* auto without pidfd: the agent, as --via=agent shows */
		if (i == 3 && !thread_pidfd) {
			tu_require_same_str("auto.stdout", agent_out,
			    r.tr_out);
			tu_require_same_str("auto.stderr", "", r.tr_err);
		}
		tu_result_free(&r);
		free((void *)what);
	}
	free(agent_out);
}

ATF_TC(main_thread_exited);
ATF_TC_HEAD(main_thread_exited, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process whose main thread has "
	    "exited while another runs is examined, with the agent, with "
	    "-n, and with pidfd where the kernel has pidfds of threads "
	    "(6.9); where it has not (the kernel's own, or a filter that "
	    "refuses PIDFD_THREAD as before 6.9), pidfd is refused saying "
	    "why and auto serves through the agent");
}
ATF_TC_BODY(main_thread_exited, tc)
{
	const char *hargv[] = { HELPER, "mainexit", "/dev/zero", NULL };
	int thread_pidfd = tu_have_thread_pidfd();
	tu_helper_t h;
	int fd;

	tu_helper_start(&h, hargv);
	fd = atoi(tu_said(&h, "file"));
	leaderless(&h, fd, thread_pidfd, 0);
	/* The other way, as the other kernels: without PIDFD_THREAD. */
	if (thread_pidfd)
		leaderless(&h, fd, 0, 1);
	tu_helper_stop(&h);
}

ATF_TC(opath_socket);
ATF_TC_HEAD(opath_socket, tc)
{
	atf_tc_set_md_var(tc, "descr", "An O_PATH fd on a unix socket file "
	    "is a path, not a socket endpoint: its path is printed and no "
	    "socket lines");
}
ATF_TC_BODY(opath_socket, tc)
{
	const char *hargv[] = { HELPER, "opath", ".", NULL };
	char *cwd = getcwd(NULL, 0), *b, *want, path[PATH_MAX];
	unsigned long long ino;
	tu_helper_t h;
	int fd;

	ATF_REQUIRE(cwd != NULL);
	hargv[2] = cwd;
	tu_helper_start(&h, hargv);
	ATF_REQUIRE(sscanf(tu_said(&h, "opath"), "%d %llu %4095s", &fd, &ino,
	    path) == 3);
	{
		const char *args[] = { h.h_pid, NULL };
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles", &r, 0);
		ATF_REQUIRE((b = tu_fd_block(r.tr_out, fd)) != NULL);
		want = tu_asprintf("%4d: S_IFSOCK mode:", fd);
		ATF_CHECK_MSG(strncmp(b, want, strlen(want)) == 0, "%s", b);
		free(want);
		want = tu_asprintf("      O_PATH\n      %s\n", path);
		ATF_CHECK_MSG(strstr(b, want) != NULL, "no path: %s", b);
		ATF_CHECK_MSG(strchr(b, '\t') == NULL, "socket lines: %s", b);
		free(want);
		free(b);
		tu_result_free(&r);
	}
	tu_helper_stop(&h);
	free(cwd);
}

/*
 * End every wait on FUSE connection conn: what a hung server leaves
 * behind is in an uninterruptible sleep, which not even SIGKILL ends.
 */
static void
abort_fuse(unsigned conn)
{
	static const char ctl[] = "/sys/fs/fuse/connections";
	char *path = tu_asprintf("%s/%u/abort", ctl, conn);
	int fd;

	if (access(path, W_OK) != 0)
		(void) mount("fusectl", ctl, "fusectl", 0, NULL);
	if ((fd = open(path, O_WRONLY)) >= 0) {
		(void) write(fd, "1", 1);
		(void) close(fd);
	}
	free(path);
}

ATF_TC(hung_fuse);
ATF_TC_HEAD(hung_fuse, tc)
{
	atf_tc_set_md_var(tc, "descr", "A file open on a FUSE filesystem "
	    "whose server answers nothing any more: pfiles, pfiles -n and "
	    "pfiles --via=agent (which must not pass the file to itself and "
	    "flush it on close) finish, and show the file");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(hung_fuse, tc)
{
	const char *modes[] = { "--via=pidfd", "-n", "--via=agent" };
	char *cwd = getcwd(NULL, 0), *mnt, *text, *b;
	tu_child_t c;
	unsigned conn;
	int found, fd, st;

	ATF_REQUIRE(cwd != NULL);
	mnt = tu_asprintf("%s/mnt", cwd);
	ATF_REQUIRE(mkdir(mnt, 0755) == 0);
	{
		/* A socket first: the agent passes fds from a socket on. */
		const char *argv[] = { FUSE_HELPER, "-s", mnt, NULL };

		tu_spawn(&c, argv, 0);
	}
	text = tu_read_until(c.tc_out, "ready", LINE_MS, &found);
	/* Nothing stays mounted, whatever happens next. */
	(void) umount2(mnt, MNT_DETACH);
	if (!found) {
		(void) tu_stop(&c, LINE_MS);
		/* One line: kyua takes a reason of several as broken. */
		if (strncmp(text, "skip ", 5) == 0)
			atf_tc_skip("no FUSE here: %.*s",
			    (int)strcspn(text + 5, "\n"), text + 5);
		atf_tc_fail("fuse_helper did not get ready: %s", text);
	}
	ATF_REQUIRE(sscanf(text, "file %d\nconn %u", &fd, &conn) == 2);
	for (int i = 0; i < 3; i++) {
		char pid[16];
		pid_t p;
		int ms;

		(void) snprintf(pid, sizeof (pid), "%d", (int)c.tc_pid);
		{
			const char *argv[] = { TU_PFILES, modes[i], pid,
			    NULL };

			p = spawn_pfiles(argv, "out", "err");
		}
		for (ms = 0; ms < FUSE_MS; ms++) {
			if (waitpid(p, &st, WNOHANG) == p)
				break;
			(void) usleep(1000);
		}
		if (ms == FUSE_MS) {
			/*
			 * pfiles waits on a request the server read and will
			 * never answer, in a sleep SIGKILL does not end: the
			 * connection is aborted first.
			 */
			abort_fuse(conn);
			(void) kill(p, SIGKILL);
			(void) waitpid(p, &st, 0);
			(void) tu_stop(&c, LINE_MS);
			atf_tc_fail("pfiles %s waited on the FUSE server",
			    modes[i]);
		}
		ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "pfiles %s: status 0x%x", modes[i], st);
		free(text);
		text = tu_read_file("out", NULL);
		ATF_REQUIRE_MSG((b = tu_fd_block(text, fd)) != NULL,
		    "%s: fd %d not shown:\n%s", modes[i], fd, text);
		ATF_CHECK_MSG(strstr(b, ": S_IFREG mode:0644 ") != NULL &&
		    strstr(b, " size:5\n") != NULL, "%s: %s", modes[i], b);
		free(b);
	}
	(void) tu_stop(&c, LINE_MS);
	free(text);
	free(mnt);
	free(cwd);
}

ATF_TC(reasons);
ATF_TC_HEAD(reasons, tc)
{
	atf_tc_set_md_var(tc, "descr", "Reasons in the contract's lower-case "
	    "words; pid numbers up to INT_MAX are process ids; nothing on "
	    "stdout for a process that cannot be examined");
}
ATF_TC_BODY(reasons, tc)
{
	tu_result_t r;

	{
		const char *args[] = { "2147483647", "2147483648", NULL };

		tu_pfiles(&(const tu_pfiles_t){ .tp_opts = args }, &r);
		tu_require_exit("pfiles", &r, 1);
		tu_require_same_str("stderr", "pfiles: cannot examine "
		    "2147483647: no such process\npfiles: cannot examine "
		    "2147483648: not a process id\n", r.tr_err);
		tu_result_free(&r);
	}
	{
		/* Too few fds left for the walk: the grab or the walk fails. */
		char *cmd = tu_asprintf("ulimit -n 7 && exec %s $$", TU_PFILES);
		const char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
		tu_require_exit(cmd, &r, 1);
		tu_require_same_str("stdout", "", r.tr_out);
		ATF_CHECK_MSG(strstr(r.tr_err, ": pfiles is short of file "
		    "descriptors (RLIMIT_NOFILE 7)\n") != NULL, "%s",
		    r.tr_err);
		tu_result_free(&r);
		free(cmd);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, killed_during_walk);
	ATF_TP_ADD_TC(tp, torn_records);
	ATF_TP_ADD_TC(tp, pid_namespace);
	ATF_TP_ADD_TC(tp, path_too_long);
	ATF_TP_ADD_TC(tp, path_refused);
	ATF_TP_ADD_TC(tp, agent_refused);
	ATF_TP_ADD_TC(tp, agent_peer_pidns);
	ATF_TP_ADD_TC(tp, main_thread_exited);
	ATF_TP_ADD_TC(tp, opath_socket);
	ATF_TP_ADD_TC(tp, hung_fuse);
	ATF_TP_ADD_TC(tp, reasons);
	return (atf_no_error());
}

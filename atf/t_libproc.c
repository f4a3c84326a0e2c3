/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_libproc: the library's grab, psinfo, memory access and fd walk, on
 * children of the test: the grab's error codes, Pread/Pwrite against the
 * child's own view of its memory, the walk's order, and fds that close or
 * a target that exits while it is being walked.
 */
#include <atf-c.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include "libproc.h"
#include "core/Pcontrol.h"
#include "testutil.h"

#define	CHILD_SECONDS	60	/* a child left behind exits by itself */

/*
 * A forked child: it runs fn, then obeys one-byte commands from the
 * parent ('c': close fds lo..hi sent as two ints, 'q': exit) and answers
 * each with one byte.  It exits by itself after CHILD_SECONDS.
 */
typedef struct kid {
	pid_t	k_pid;
	int	k_cmd;		/* parent -> child */
	int	k_ack;		/* child -> parent */
} kid_t;

static void
kid_loop(int cmd, int ack)
{
	char c;
	int range[2];

	(void) alarm(CHILD_SECONDS);
	for (;;) {
		if (read(cmd, &c, 1) != 1 || c == 'q')
			_exit(0);
		if (c == 'c' && read(cmd, range, sizeof (range)) ==
		    sizeof (range)) {
			for (int fd = range[0]; fd <= range[1]; fd++)
				(void) close(fd);
		}
		if (write(ack, "k", 1) != 1)
			_exit(1);
	}
}

/* Start a child that first runs setup (may be NULL), then kid_loop. */
static void
kid_start(kid_t *k, void (*setup)(void))
{
	int p2c[2], c2p[2];
	char c;

	ATF_REQUIRE(pipe(p2c) == 0 && pipe(c2p) == 0);
	ATF_REQUIRE((k->k_pid = fork()) >= 0);
	if (k->k_pid == 0) {
		(void) close(p2c[1]);
		(void) close(c2p[0]);
		/* Out of the way of the fds the tests use. */
		if (dup2(p2c[0], 900) < 0 || dup2(c2p[1], 901) < 0)
			_exit(1);
		/* Only 0, 1, 2 and the two pipes: a known set of fds. */
		(void) close_range(3, 899, 0);
		(void) close_range(902, ~0U, 0);
		if (setup != NULL)
			setup();
		if (write(901, "r", 1) != 1)
			_exit(1);
		kid_loop(900, 901);
	}
	(void) close(p2c[0]);
	(void) close(c2p[1]);
	k->k_cmd = p2c[1];
	k->k_ack = c2p[0];
	ATF_REQUIRE_EQ_MSG(read(k->k_ack, &c, 1), 1, "child did not start");
}

static void
kid_close_fds(kid_t *k, int lo, int hi)
{
	int range[2] = { lo, hi };
	char c;

	ATF_REQUIRE(write(k->k_cmd, "c", 1) == 1);
	ATF_REQUIRE(write(k->k_cmd, range, sizeof (range)) ==
	    sizeof (range));
	ATF_REQUIRE(read(k->k_ack, &c, 1) == 1);
}

static void
kid_stop(kid_t *k)
{
	int status;

	(void) write(k->k_cmd, "q", 1);
	(void) close(k->k_cmd);
	(void) close(k->k_ack);
	(void) waitpid(k->k_pid, &status, 0);
}

/*
 * Records may be built ahead of the callback (the pipelined walk keeps up
 * to 64 in flight), so what the callback does to the child is checked far
 * enough ahead of it: the child has 800 pipe ends, on fds 3..802.
 */
#define	KID_PIPES	400
#define	KID_NFDS	(3 + 2 * KID_PIPES + 2)	/* 0..2, pipes, 900, 901 */
#define	AHEAD		200	/* well past what the walk builds ahead */

static void
open_many_fds(void)
{
	for (int i = 0; i < KID_PIPES; i++) {
		int p[2];

		if (pipe(p) != 0)
			_exit(1);
	}
}

/* What a walk saw. */
typedef struct seen {
	int	s_n;
	int	s_fds[1024];
	kid_t	*s_kid;
	int	s_at;		/* at this fd, act */
	int	s_action;	/* 1: close fds s_lo..s_hi, 2: kill, 3: stop */
	int	s_lo, s_hi;
} seen_t;

static int
record_fd(void *arg, const prfdinfo_t *info)
{
	seen_t *s = arg;

	if (s->s_n < (int)(sizeof (s->s_fds) / sizeof (s->s_fds[0])))
		s->s_fds[s->s_n++] = info->pr_fd;
	if (info->pr_fd != s->s_at)
		return (0);
	switch (s->s_action) {
	case 1:
		kid_close_fds(s->s_kid, s->s_lo, s->s_hi);
		return (0);
	case 2:
		(void) kill(s->s_kid->k_pid, SIGKILL);
		/* Wait until it is dead, so the walk sees it gone. */
		for (int i = 0; i < 1000; i++) {
			if (waitid(P_PID, s->s_kid->k_pid, NULL,
			    WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    kill(s->s_kid->k_pid, 0) == 0) {
				char st[64], buf[256];
				int fd, n;

				(void) snprintf(st, sizeof (st),
				    "/proc/%d/stat", (int)s->s_kid->k_pid);
				if ((fd = open(st, O_RDONLY)) < 0)
					break;
				n = (int)read(fd, buf, sizeof (buf) - 1);
				(void) close(fd);
				buf[n > 0 ? n : 0] = '\0';
				if (strstr(buf, ") Z") != NULL)
					break;
			}
			(void) usleep(1000);
		}
		return (0);
	case 3:
		return (42);
	}
	return (0);
}

static struct ps_prochandle *
grab_ok(pid_t pid)
{
	struct ps_prochandle *P;
	int gerr;

	P = Pgrab(pid, 0, &gerr);
	ATF_REQUIRE_MSG(P != NULL, "Pgrab(%d): %s", (int)pid,
	    Pgrab_error(gerr));
	return (P);
}

ATF_TC_WITHOUT_HEAD(walk_order);
ATF_TC_BODY(walk_order, tc)
{
	struct ps_prochandle *P;
	static seen_t s;
	kid_t k;

	kid_start(&k, open_many_fds);
	P = grab_ok(k.k_pid);
	ATF_REQUIRE_EQ(Pfdinfo_iter(P, record_fd, &s), 0);
	ATF_REQUIRE_EQ_MSG(s.s_n, KID_NFDS, "saw %d fds", s.s_n);
	for (int i = 1; i < s.s_n; i++)
		ATF_CHECK_MSG(s.s_fds[i] > s.s_fds[i - 1],
		    "fd %d after fd %d", s.s_fds[i], s.s_fds[i - 1]);
	ATF_CHECK_EQ(s.s_fds[s.s_n - 1], 901);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(walk_fds_closed_during_walk);
ATF_TC_BODY(walk_fds_closed_during_walk, tc)
{
	struct ps_prochandle *P;
	static seen_t s;
	kid_t k;

	kid_start(&k, open_many_fds);
	P = grab_ok(k.k_pid);
	s.s_kid = &k;
	s.s_at = 50;
	s.s_action = 1;
	s.s_lo = 50 + AHEAD;
	s.s_hi = 50 + AHEAD + 99;
	ATF_REQUIRE_EQ(Pfdinfo_iter(P, record_fd, &s), 0);
	/* Everything but the 100 closed, in order, on to 901. */
	ATF_CHECK_EQ_MSG(s.s_n, KID_NFDS - 100, "saw %d fds", s.s_n);
	for (int i = 0; i < s.s_n; i++)
		ATF_CHECK_MSG(s.s_fds[i] < s.s_lo || s.s_fds[i] > s.s_hi,
		    "closed fd %d was reported", s.s_fds[i]);
	for (int i = 1; i < s.s_n; i++)
		ATF_CHECK(s.s_fds[i] > s.s_fds[i - 1]);
	ATF_CHECK_EQ(s.s_fds[s.s_n - 1], 901);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(walk_target_exits);
ATF_TC_BODY(walk_target_exits, tc)
{
	struct ps_prochandle *P;
	static seen_t s;
	kid_t k;
	int rv, status;

	kid_start(&k, open_many_fds);
	P = grab_ok(k.k_pid);
	s.s_kid = &k;
	s.s_at = 20;
	s.s_action = 2;
	errno = 0;
	rv = Pfdinfo_iter(P, record_fd, &s);
	ATF_CHECK_EQ(rv, -1);
	ATF_CHECK_EQ_MSG(errno, ESRCH, "errno %d", errno);
	ATF_CHECK_MSG(s.s_n <= 20 + AHEAD, "walk went on after the exit: "
	    "%d fds", s.s_n);
	Prelease(P, 0);
	(void) close(k.k_cmd);
	(void) close(k.k_ack);
	ATF_REQUIRE(waitpid(k.k_pid, &status, 0) == k.k_pid);
	ATF_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

ATF_TC_WITHOUT_HEAD(walk_callback_stops);
ATF_TC_BODY(walk_callback_stops, tc)
{
	struct ps_prochandle *P;
	static seen_t s;
	kid_t k;

	kid_start(&k, open_many_fds);
	P = grab_ok(k.k_pid);
	s.s_kid = &k;
	s.s_at = 7;
	s.s_action = 3;
	ATF_CHECK_EQ(Pfdinfo_iter(P, record_fd, &s), 42);
	ATF_CHECK_EQ(s.s_fds[s.s_n - 1], 7);
	Prelease(P, 0);
	kid_stop(&k);
}

/* The record of a pipe and of a socket against the child's own view. */
static struct stat kid_pipe_st, kid_sock_st;

static void
open_pipe_and_socket(void)
{
	int p[2], sv[2];

	if (pipe(p) != 0 || dup2(p[1], 10) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0 ||
	    dup2(sv[0], 11) < 0)
		_exit(1);
	(void) fcntl(11, F_SETFD, FD_CLOEXEC);
}

typedef struct pick {
	int		p_fd;
	int		p_found;
	char		p_path[64];
	int		p_type;
	int		p_has_peercred;
	prfdinfo_t	p_info;		/* the fixed part only; last */
} pick_t;

static int
pick_fd(void *arg, const prfdinfo_t *info)
{
	pick_t *p = arg;
	const char *path;
	const int *type;

	if (info->pr_fd != p->p_fd)
		return (0);
	p->p_found = 1;
	p->p_info = *info;
	if ((path = proc_fdinfo_misc(info, PR_PATHNAME, NULL)) != NULL)
		(void) snprintf(p->p_path, sizeof (p->p_path), "%s", path);
	if ((type = proc_fdinfo_misc(info, PR_SOCKOPT_TYPE, NULL)) != NULL)
		p->p_type = *type;
	p->p_has_peercred = proc_fdinfo_misc(info, PR_PEERCRED, NULL) !=
	    NULL;
	return (1);
}

ATF_TC_WITHOUT_HEAD(walk_record_fields);
ATF_TC_BODY(walk_record_fields, tc)
{
	struct ps_prochandle *P;
	char path[64], link[64];
	pick_t p;
	kid_t k;
	ssize_t n;

	kid_start(&k, open_pipe_and_socket);
	/* The child's fds, seen through its /proc (the same files). */
	(void) snprintf(path, sizeof (path), "/proc/%d/fd/10", (int)k.k_pid);
	ATF_REQUIRE(stat(path, &kid_pipe_st) == 0);
	ATF_REQUIRE((n = readlink(path, link, sizeof (link) - 1)) > 0);
	link[n] = '\0';
	(void) snprintf(path, sizeof (path), "/proc/%d/fd/11", (int)k.k_pid);
	ATF_REQUIRE(stat(path, &kid_sock_st) == 0);

	P = grab_ok(k.k_pid);
	memset(&p, 0, sizeof (p));
	p.p_fd = 10;
	ATF_REQUIRE_EQ(Pfdinfo_iter(P, pick_fd, &p), 1);
	ATF_CHECK_EQ(p.p_info.pr_ino, kid_pipe_st.st_ino);
	ATF_CHECK_EQ(p.p_info.pr_mode, kid_pipe_st.st_mode);
	ATF_CHECK_EQ(p.p_info.pr_fileflags & O_ACCMODE, O_WRONLY);
	ATF_CHECK_EQ(p.p_info.pr_fdflags, 0);
	ATF_CHECK_STREQ(p.p_path, link);

	memset(&p, 0, sizeof (p));
	p.p_fd = 11;
	ATF_REQUIRE_EQ(Pfdinfo_iter(P, pick_fd, &p), 1);
	ATF_CHECK_EQ(p.p_info.pr_ino, kid_sock_st.st_ino);
	ATF_CHECK(S_ISSOCK(p.p_info.pr_mode));
	ATF_CHECK_EQ(p.p_info.pr_fdflags, FD_CLOEXEC);
	ATF_CHECK((p.p_info.pr_fileflags & O_NONBLOCK) != 0);
	ATF_CHECK_EQ(p.p_type, SOCK_STREAM);
	ATF_CHECK(p.p_has_peercred);

	/* Stat only: no fdinfo, no socket facts. */
	memset(&p, 0, sizeof (p));
	p.p_fd = 11;
	ATF_REQUIRE_EQ(Pfdinfo_iter_flags(P, PFDI_STATONLY, pick_fd, &p), 1);
	ATF_CHECK_EQ(p.p_info.pr_ino, kid_sock_st.st_ino);
	ATF_CHECK_EQ(p.p_info.pr_offset, -1);
	ATF_CHECK_EQ(p.p_type, 0);
	ATF_CHECK(!p.p_has_peercred);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(grab_errors);
ATF_TC_BODY(grab_errors, tc)
{
	struct ps_prochandle *P;
	pid_t pid, kthread = 0;
	int gerr, status;
	DIR *d;
	struct dirent *de;

	P = Pgrab(0, 0, &gerr);
	ATF_CHECK(P == NULL && gerr == G_NOPROC);
	ATF_CHECK_STREQ(Pgrab_error(G_NOPROC), "no such process");

	/* A reaped child: its pid is free (nothing forks in between). */
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	P = Pgrab(pid, 0, &gerr);
	ATF_CHECK_MSG(P == NULL && gerr == G_NOPROC, "reaped: gerr %d", gerr);

	/* A zombie. */
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0)
		_exit(0);
	ATF_REQUIRE(waitid(P_PID, pid, NULL, WEXITED | WNOWAIT) == 0);
	P = Pgrab(pid, 0, &gerr);
	ATF_CHECK_MSG(P == NULL && gerr == G_ZOMB, "zombie: gerr %d", gerr);
	ATF_CHECK_STREQ(Pgrab_error(G_ZOMB), "process is defunct");
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);

	/* A kernel thread: kthreadd's children. */
	ATF_REQUIRE((d = opendir("/proc")) != NULL);
	while (kthread == 0 && (de = readdir(d)) != NULL) {
		psinfo_t ps;
		pid_t p = (pid_t)atoi(de->d_name);

		if (p > 2 && proc_get_psinfo(p, &ps) == 0 && ps.pr_ppid == 2)
			kthread = p;
	}
	(void) closedir(d);
	if (kthread != 0) {
		P = Pgrab(kthread, 0, &gerr);
		ATF_CHECK_MSG(P == NULL && gerr == G_SYS, "kthread: gerr %d",
		    gerr);
	}
	ATF_CHECK_STREQ(Pgrab_error(G_PERM), "permission denied");
}

ATF_TC_WITHOUT_HEAD(psinfo_and_limit);
ATF_TC_BODY(psinfo_and_limit, tc)
{
	struct ps_prochandle *P;
	const char *argv[] = { "sleep", "30", NULL };
	const psinfo_t *ps;
	struct rlimit rl;
	pid_t pid;
	int status;

	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		struct rlimit nrl = { 777, 777 };

		if (setrlimit(RLIMIT_NOFILE, &nrl) != 0)
			_exit(1);
		(void) execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	/*
	 * Wait (bounded) until the exec is complete, as the kernel's own
	 * cmdline says: the comm changes before the new image's arguments
	 * are there.
	 */
	for (int i = 0; i < 3000; i++) {
		static const char want[] = "sleep\0" "30";
		char path[64], *raw;
		size_t len = 0;

		(void) snprintf(path, sizeof (path), "/proc/%d/cmdline",
		    (int)pid);
		raw = tu_read_file(path, &len);
		if (raw != NULL && len == sizeof (want) &&
		    memcmp(raw, want, sizeof (want)) == 0) {
			free(raw);
			break;
		}
		free(raw);
		(void) usleep(1000);
	}
	P = grab_ok(pid);
	ps = Ppsinfo(P);
	ATF_CHECK_STREQ(ps->pr_psargs, "sleep 30");
	ATF_CHECK_STREQ(ps->pr_fname, "sleep");
	ATF_CHECK_EQ(ps->pr_pid, pid);
	ATF_CHECK_EQ(ps->pr_ppid, getpid());
	ATF_CHECK_EQ(Pstatus_pid(P), pid);
	ATF_REQUIRE_EQ(Plimit(P, RLIMIT_NOFILE, &rl), 0);
	ATF_CHECK_EQ(rl.rlim_cur, 777);
	ATF_CHECK_EQ(rl.rlim_max, 777);
	Prelease(P, 0);
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, &status, 0);
}

/* Pread and Pwrite against the child's own view of a buffer. */
static char kid_buf[64] = "before";

static void
fill_kid_buf(void)
{
	(void) snprintf(kid_buf, sizeof (kid_buf), "child %d", (int)getpid());
}

ATF_TC_WITHOUT_HEAD(pread_pwrite);
ATF_TC_BODY(pread_pwrite, tc)
{
	struct ps_prochandle *P;
	char want[64], got[64];
	kid_t k;
	ssize_t n;

	kid_start(&k, fill_kid_buf);
	P = grab_ok(k.k_pid);
	(void) snprintf(want, sizeof (want), "child %d", (int)k.k_pid);
	memset(got, 0, sizeof (got));
	n = Pread(P, got, sizeof (got), (uintptr_t)kid_buf);
	ATF_REQUIRE_EQ(n, (ssize_t)sizeof (got));
	ATF_CHECK_STREQ(got, want);
	ATF_CHECK_STREQ(kid_buf, "before");	/* ours is untouched */

	ATF_REQUIRE_EQ(Pwrite(P, "written", 8, (uintptr_t)kid_buf), 8);
	memset(got, 0, sizeof (got));
	ATF_REQUIRE_EQ(Pread(P, got, 8, (uintptr_t)kid_buf), 8);
	ATF_CHECK_STREQ(got, "written");
	/* An address that cannot be a file offset. */
	ATF_CHECK_EQ(Pread(P, got, 8, (uintptr_t)-4), -1);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(grab_out_of_fds);
ATF_TC_BODY(grab_out_of_fds, tc)
{
	struct ps_prochandle *P;
	struct rlimit mine, low;
	int fds[64], nfds = 0, gerr, e = 0;
	kid_t k;

	kid_start(&k, NULL);
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &mine) == 0);
	low = mine;
	low.rlim_cur = 64;
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
	/* Every fd this process may have, taken: as this process sees. */
	while (nfds < 64) {
		int f = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (f < 0) {
			e = errno;
			break;
		}
		fds[nfds++] = f;
	}
	ATF_REQUIRE_EQ_MSG(e, EMFILE, "open: %s", strerror(e));
	P = Pgrab(k.k_pid, 0, &gerr);
	while (nfds > 0)
		(void) close(fds[--nfds]);
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &mine) == 0);
	/* Too many open files of the caller's: G_NOFD, not "strange". */
	ATF_CHECK_MSG(P == NULL && gerr == G_NOFD, "gerr %d (%s)", gerr,
	    Pgrab_error(gerr));
	if (P != NULL)
		Prelease(P, 0);
	/* With its fds back, the same grab holds. */
	P = grab_ok(k.k_pid);
	Prelease(P, 0);
	kid_stop(&k);
}

/*
 * In a new pid namespace that still sees the host's /proc: its pid 2 has
 * exited (a zombie, not reaped), and the host's /proc/2 is another
 * process.  The grab says the process has gone, not that /proc shows
 * another one.  The namespace's init exits with the grab's code.
 */
static int
grab_gone_in_pidns(void)
{
	struct ps_prochandle *P;
	pid_t z;
	int gerr;

	if ((z = fork()) < 0)
		return (100);
	if (z == 0)
		_exit(0);
	if (z != 2)
		return (101);
	/* Exited, left a zombie: not reaped. */
	if (waitid(P_PID, z, NULL, WEXITED | WNOWAIT) != 0)
		return (102);
	P = Pgrab(z, 0, &gerr);
	if (P != NULL) {
		Prelease(P, 0);
		return (103);
	}
	return (gerr);
}

ATF_TC(grab_gone_other_pidns);
ATF_TC_HEAD(grab_gone_other_pidns, tc)
{
	atf_tc_set_md_var(tc, "descr", "From a pid namespace other than "
	    "/proc's, a pid whose process has exited while the host's /proc "
	    "has another process of that number: G_NOPROC (it has gone), "
	    "not G_NOTSAME");
	atf_tc_set_md_var(tc, "require.user", "root");
}
ATF_TC_BODY(grab_gone_other_pidns, tc)
{
	pid_t outer, init;
	int status;

	/* The host's pid 2 must be some process for the case to mean it. */
	if (access("/proc/2", F_OK) != 0)
		atf_tc_skip("no process 2 in /proc here");
	ATF_REQUIRE((outer = fork()) >= 0);
	if (outer == 0) {
		if (unshare(CLONE_NEWPID) != 0)
			_exit(110);
		if ((init = fork()) < 0)
			_exit(111);
		if (init == 0)
			_exit(grab_gone_in_pidns());
		if (waitpid(init, &status, 0) != init || !WIFEXITED(status))
			_exit(112);
		_exit(WEXITSTATUS(status));
	}
	ATF_REQUIRE_EQ(waitpid(outer, &status, 0), outer);
	ATF_REQUIRE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 110)
		atf_tc_skip("no new pid namespace here");
	ATF_CHECK_MSG(WEXITSTATUS(status) == G_NOPROC, "exit %d (G_NOPROC "
	    "%d, G_NOTSAME %d)", WEXITSTATUS(status), G_NOPROC, G_NOTSAME);
}

/*
 * /proc/PID/maps is handed out by the kernel a page at a time (seq_file):
 * 300 mappings that cannot merge make it several pages.
 */
#define	MANY_MAPS	300

static void
many_mappings(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, (size_t)pg * MANY_MAPS * 2, PROT_READ,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		_exit(1);
	/* Every other page inaccessible: 300 separate PROT_READ lines. */
	for (int i = 0; i < MANY_MAPS; i++) {
		if (mprotect(base + (2 * i + 1) * pg, (size_t)pg,
		    PROT_NONE) != 0)
			_exit(1);
	}
}

/*
 * A file of one seq_file record comes whole in one read: proc_read_record
 * gives what reading to the end gives, and a buffer too small its start,
 * cut and NUL-terminated.
 */
ATF_TC_WITHOUT_HEAD(read_record_whole);
ATF_TC_BODY(read_record_whole, tc)
{
	static const char *const files[] = { "stat", "comm", "limits",
	    "status" };
	char path[64], buf[8192], *want;
	size_t wantlen;
	ssize_t n;

	for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
		(void) snprintf(path, sizeof (path), "/proc/self/%s", files[i]);
		want = tu_read_file(path, &wantlen);
		memset(buf, 'X', sizeof (buf));
		n = proc_read_record(AT_FDCWD, path, buf, sizeof (buf));
		/*
		 * stat and status move (their counters): whole, to the last
		 * line's end; comm and limits, byte for byte.
		 */
		ATF_CHECK_MSG(n > 0 && buf[n - 1] == '\n' && (i == 0 ||
		    i == 3 || ((size_t)n == wantlen &&
		    memcmp(buf, want, wantlen) == 0)), "%s: %zd bytes, not "
		    "%zu", files[i], n, wantlen);
		ATF_CHECK(n >= 0 && buf[n] == '\0');
		n = proc_read_record(AT_FDCWD, path, buf, 8);
		ATF_CHECK_EQ(n, 7);
		ATF_CHECK(memcmp(buf, want, 7) == 0 && buf[7] == '\0');
		free(want);
	}
	ATF_CHECK_EQ(proc_read_record(AT_FDCWD, "/proc/self/no such file",
	    buf, sizeof (buf)), -1);
}

ATF_TC_WITHOUT_HEAD(read_small_in_pieces);
ATF_TC_BODY(read_small_in_pieces, tc)
{
	static char buf[256 * 1024];
	char path[64], *want;
	size_t wantlen;
	ssize_t n, first;
	int fd;
	kid_t k;

	kid_start(&k, many_mappings);
	(void) snprintf(path, sizeof (path), "/proc/%d/maps", (int)k.k_pid);
	/* The child blocks in read(2): its maps hold still. */
	want = tu_read_file(path, &wantlen);
	ATF_REQUIRE(wantlen + 1 < sizeof (buf));
	ATF_REQUIRE((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	first = read(fd, buf, sizeof (buf));
	(void) close(fd);
	ATF_REQUIRE_MSG(first > 0 && (size_t)first < wantlen, "one read gave "
	    "%zd bytes of %zu: the file does not come in pieces here", first,
	    wantlen);

	/* The reader of small /proc files: the whole text, NUL after it. */
	memset(buf, 'X', sizeof (buf));
	n = proc_read_small(AT_FDCWD, path, buf, sizeof (buf));
	ATF_REQUIRE_EQ_MSG(n, (ssize_t)wantlen, "%zd bytes, not %zu", n,
	    wantlen);
	ATF_CHECK_MSG(memcmp(buf, want, wantlen) == 0, "the text differs");
	ATF_CHECK_EQ(buf[n], '\0');
	/* A buffer too small: what fits, cut, still NUL-terminated. */
	memset(buf, 'X', sizeof (buf));
	n = proc_read_small(AT_FDCWD, path, buf, 100);
	ATF_CHECK_EQ(n, 99);
	ATF_CHECK(memcmp(buf, want, 99) == 0);
	ATF_CHECK_EQ(buf[99], '\0');
	free(want);
	kid_stop(&k);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, walk_order);
	ATF_TP_ADD_TC(tp, walk_fds_closed_during_walk);
	ATF_TP_ADD_TC(tp, walk_target_exits);
	ATF_TP_ADD_TC(tp, walk_callback_stops);
	ATF_TP_ADD_TC(tp, walk_record_fields);
	ATF_TP_ADD_TC(tp, grab_errors);
	ATF_TP_ADD_TC(tp, grab_out_of_fds);
	ATF_TP_ADD_TC(tp, grab_gone_other_pidns);
	ATF_TP_ADD_TC(tp, read_record_whole);
	ATF_TP_ADD_TC(tp, read_small_in_pieces);
	ATF_TP_ADD_TC(tp, psinfo_and_limit);
	ATF_TP_ADD_TC(tp, pread_pwrite);
	return (atf_no_error());
}

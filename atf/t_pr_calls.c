/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_pr_calls: the pr_* wrappers of the agent (libproc-patch/libproc/
 * agent/pr_calls.c), each call against the target's own view of its fds.
 *
 * The target, fixtures/agent_target, tells its own view of its fds (its
 * own fstat, fcntl, lseek, getsockopt, getsockname...) and the tests
 * compare what the agent finds inside it with that view, with the target
 * single-threaded and with more threads (one of which must go on
 * answering while the main one is borrowed).  Then pr_open and pr_close
 * as the target sees them, a pr_* call without an agent held, and the
 * target's view of itself after all that; and buffers past MAXARGL, cut
 * to it, the call made, in bytes or, for SO_GET_FILTER, in instructions.
 */
#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/filter.h>

#include "agentutil.h"
#include "libproc.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* Every pr_* call against the target's own view. */

static void
compare_all(struct ps_prochandle *P, const au_manifest_t *m)
{
	int sockets = 0;

	for (int i = 0; i < m->nrl; i++) {
		struct rlimit rl;

		ATF_REQUIRE_EQ(pr_getrlimit(P, m->rl[i].res, &rl), 0);
		ATF_CHECK_EQ((unsigned long long)rl.rlim_cur, m->rl[i].cur);
		ATF_CHECK_EQ((unsigned long long)rl.rlim_max, m->rl[i].max);
	}
	for (int i = 0; i < m->nfds; i++) {
		const au_mfd_t *f = &m->fds[i];

		au_compare_stat(P, f);
		au_compare_fcntl_lseek(P, f);
		if (S_ISSOCK(f->mode)) {
			au_compare_socket(P, f);
			sockets++;
		}
	}
	ATF_REQUIRE_MSG(sockets >= 6, "only %d sockets in the manifest",
	    sockets);
}

/* pr_open and pr_close, seen from the target itself. */
static void
check_open_close(struct ps_prochandle *P, tu_child_t *c)
{
	char want[64], *l;
	int fd;

	au_create_agent(P);
	fd = pr_open(P, "/dev/null", O_RDONLY, 0);
	ATF_REQUIRE_MSG(fd >= 0, "pr_open: %s", strerror(errno));
	Pdestroy_agent(P);
	(void) snprintf(want, sizeof (want), "fdcheck %d", fd);
	au_send_line(c, want);
	l = tu_read_line(c->tc_out, AU_LINE_MS);
	(void) snprintf(want, sizeof (want), "fd %d open /dev/null", fd);
	ATF_REQUIRE_STREQ(l, want);
	free(l);

	au_create_agent(P);
	ATF_REQUIRE_EQ(pr_close(P, fd), 0);
	errno = 0;
	ATF_REQUIRE_EQ(pr_close(P, fd), -1);
	ATF_REQUIRE_EQ(errno, EBADF);
	Pdestroy_agent(P);
	(void) snprintf(want, sizeof (want), "fdcheck %d", fd);
	au_send_line(c, want);
	l = tu_read_line(c->tc_out, AU_LINE_MS);
	(void) snprintf(want, sizeof (want), "fd %d closed %d", fd, EBADF);
	ATF_REQUIRE_STREQ(l, want);
	free(l);
}

static void
check_pr_calls(int nthreads)
{
	struct ps_prochandle *P;
	const au_mfd_t *file, *sock;
	au_manifest_t m;
	struct flock fl;
	tu_child_t c;
	int lf, len, type;

	au_spawn_fds(&c, nthreads, &m);
	/* Hold a lock on the target's file, so that F_GETLK has an answer. */
	lf = open(m.file, O_RDWR);
	ATF_REQUIRE_MSG(lf >= 0, "open %s: %s", m.file, strerror(errno));
	memset(&fl, 0, sizeof (fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 2;
	fl.l_len = 3;
	ATF_REQUIRE(fcntl(lf, F_SETLK, &fl) == 0);
	au_free_manifest(&m);
	au_send_line(&c, "manifest");
	au_read_manifest(&c, &m);
	file = au_find_kind(&m, "file");
	ATF_REQUIRE_EQ(file->lk_pid, getpid());

	P = au_grab(m.pid);
	au_create_agent(P);
	au_require_tracer(m.pid, (int)getpid());
	if (nthreads > 0)
		au_require_ping_port(m.pingport);
	compare_all(P, &m);
	/* An offset moved by the agent is the target's own. */
	ATF_REQUIRE_EQ(pr_lseek(P, file->fd, 3, SEEK_SET), 3);
	Pdestroy_agent(P);
	au_require_free(m.pid);

	check_open_close(P, &c);

	/* Without an agent held, a pr_* call makes one for itself. */
	sock = au_find_kind(&m, "tcpclient");
	len = sizeof (type);
	ATF_REQUIRE_EQ(pr_getsockopt(P, sock->fd, SOL_SOCKET, SO_TYPE, &type,
	    &len), 0);
	ATF_CHECK_EQ(type, SOCK_STREAM);
	ATF_CHECK_EQ(len, sizeof (type));
	au_require_free(m.pid);
	Prelease(P, 0);

	au_require_pong(&c);
	au_free_manifest(&m);
	au_send_line(&c, "manifest");
	au_read_manifest(&c, &m);
	ATF_CHECK_EQ(au_find_kind(&m, "file")->offset, 3);
	ATF_CHECK_EQ(m.sigmask, 1ULL << (SIGUSR2 - 1));
	au_free_manifest(&m);
	au_stop_target(&c);
	(void) close(lf);
}

ATF_TC_WITHOUT_HEAD(pr_calls_single_thread);
ATF_TC_BODY(pr_calls_single_thread, tc)
{
	check_pr_calls(0);
}

ATF_TC_WITHOUT_HEAD(pr_calls_multithreaded);
ATF_TC_BODY(pr_calls_multithreaded, tc)
{
	check_pr_calls(3);
}

/*
 * pr_open of a path that no open(2) can take -- one of MAXARGL (4096,
 * PATH_MAX) characters or more, which with its NUL does not fit in an
 * object -- fails with ENAMETOOLONG, as open(2) here does, and without
 * asking the process: even one that is gone by then.  A path of one
 * character less is the process's to answer.
 */
ATF_TC_WITHOUT_HEAD(pr_open_long_paths);
ATF_TC_BODY(pr_open_long_paths, tc)
{
	static char path[MAXARGL + 2];
	struct ps_prochandle *P;
	au_manifest_t m;
	tu_child_t c;
	/* "/aaa.../aaa...": no such file; components of 99 characters. */
	for (size_t i = 0; i < sizeof (path) - 1; i++)
		path[i] = i % 100 == 0 ? '/' : 'a';
	au_spawn_fds(&c, 0, &m);
	P = au_grab(m.pid);

	path[MAXARGL - 1] = '\0';		/* 4095 characters */
	errno = 0;
	ATF_REQUIRE_EQ(open(path, O_RDONLY), -1);
	ATF_REQUIRE_EQ(errno, ENOENT);
	errno = 0;
	ATF_CHECK_EQ(pr_open(P, path, O_RDONLY, 0), -1);
	ATF_CHECK_EQ(errno, ENOENT);
	path[MAXARGL - 1] = 'a';

	au_stop_target(&c);
	ATF_REQUIRE_EQ(tu_proc_state(m.pid), 0);
	errno = 0;
	ATF_CHECK_EQ(pr_open(P, "/dev/null", O_RDONLY, 0), -1);
	ATF_CHECK_EQ(errno, ESRCH);
	for (size_t len = MAXARGL; len <= MAXARGL + 1; len++) {
		path[len] = '\0';
		errno = 0;
		ATF_REQUIRE_EQ(open(path, O_RDONLY), -1);
		ATF_REQUIRE_EQ(errno, ENAMETOOLONG);
		errno = 0;
		ATF_CHECK_EQ_MSG(pr_open(P, path, O_RDONLY, 0), -1,
		    "%zu characters", len);
		ATF_CHECK_EQ_MSG(errno, ENAMETOOLONG, "%zu characters: %s",
		    len, strerror(errno));
		path[len] = 'a';
	}
	Prelease(P, 0);
	au_free_manifest(&m);
}

/*
 * A buffer larger than MAXARGL with its length (libproc.3: "described as
 * MAXARGL bytes, and the length handed to the call says no more"): the
 * call is made, not refused as Psyscall refuses such an object, and gives
 * what the target's own view says, its length, and not a byte more.
 */
static void
check_long_buffer(struct ps_prochandle *P, const au_mfd_t *f, size_t size)
{
	static uint8_t buf[4 * MAXARGL];
	const au_mopt_t *o = &f->opts[0];
	socklen_t slen = (socklen_t)size;
	int len = (int)size, r;

	ATF_REQUIRE(size <= sizeof (buf) && f->nopts > 0 && o->err == 0);
	memset(buf, 0xee, sizeof (buf));
	errno = 0;
	r = pr_getsockopt(P, f->fd, o->level, o->name, buf, &len);
	ATF_REQUIRE_MSG(r == 0, "getsockopt %d/%d of fd %d, length %zu: %s",
	    o->level, o->name, f->fd, size, strerror(errno));
	ATF_CHECK_EQ_MSG((size_t)len, o->len, "length %zu", size);
	ATF_CHECK_MSG(memcmp(buf, o->val, o->len) == 0, "another value");
	for (size_t i = o->len; i < sizeof (buf); i++)
		ATF_REQUIRE_MSG(buf[i] == 0xee, "byte %zu written", i);

	memset(buf, 0xee, sizeof (buf));
	errno = 0;
	r = pr_getsockname(P, f->fd, (struct sockaddr *)buf, &slen);
	ATF_REQUIRE_MSG(r == 0, "getsockname of fd %d, length %zu: %s",
	    f->fd, size, strerror(errno));
	ATF_CHECK_MSG(f->sn_err == 0 && slen == f->sn_len &&
	    memcmp(buf, f->sn, slen) == 0, "another name, length %zu", size);
	for (size_t i = f->sn_len; i < sizeof (buf); i++)
		ATF_REQUIRE_MSG(buf[i] == 0xee, "byte %zu written", i);
}

ATF_TC_WITHOUT_HEAD(pr_calls_long_buffers);
ATF_TC_BODY(pr_calls_long_buffers, tc)
{
	static const size_t sizes[] = { MAXARGL, MAXARGL + 1, 4 * MAXARGL };
	struct ps_prochandle *P;
	au_manifest_t m;
	tu_child_t c;

	au_spawn_fds(&c, 0, &m);
	P = au_grab(m.pid);
	au_create_agent(P);
	for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++)
		check_long_buffer(P, au_find_kind(&m, "tcpclient"), sizes[i]);
	Pdestroy_agent(P);
	au_require_free(m.pid);
	Prelease(P, 0);
	au_stop_target(&c);
	au_free_manifest(&m);
}

/*
 * SO_GET_FILTER counts its optlen in instructions, not bytes: a filter of
 * n instructions, attached here to a socket that a child of ours then
 * holds, asked of the child with room for 4 x MAXARGL of them.  Up to
 * MAXARGL bytes of them (512) it is the filter as our own getsockopt
 * gives it, and nothing past it is written; past that the buffer cannot
 * hold it, and pr_getsockopt fails as getsockopt does with room for 512
 * (EINVAL), and writes nothing.
 */
static void
check_filter(int n)
{
	static struct sock_filter prog[4 * MAXARGL], got[4 * MAXARGL],
	    mine[4 * MAXARGL];
	struct sock_fprog fp = { (unsigned short)n, prog };
	struct ps_prochandle *P;
	socklen_t mylen = MAXARGL / sizeof (prog[0]);
	int s, gerr, len = 4 * MAXARGL, hold[2], st, r, myr;
	pid_t kid;

	/*
	 * A = i: one instruction of the kernel's own each, so that the
	 * filter stays within what a socket may be charged (optmem_max:
	 * 20 KiB on 6.1, where 512 loads from the packet do not fit).
	 */
	for (int i = 0; i < n - 1; i++)
		prog[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM,
		    (unsigned)i);
	prog[n - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffff);
	ATF_REQUIRE((s = socket(AF_INET, SOCK_DGRAM, 0)) >= 0);
	ATF_REQUIRE_MSG(setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &fp,
	    sizeof (fp)) == 0, "SO_ATTACH_FILTER of %d: %s", n,
	    strerror(errno));
	myr = getsockopt(s, SOL_SOCKET, SO_GET_FILTER, mine, &mylen);
	ATF_REQUIRE(pipe(hold) == 0);
	ATF_REQUIRE((kid = fork()) >= 0);
	if (kid == 0) {
		char c;

		(void) close(hold[1]);
		_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);	/* our end */
	}
	(void) close(hold[0]);
	ATF_REQUIRE_MSG((P = Pgrab(kid, 0, &gerr)) != NULL, "Pgrab: %s",
	    Pgrab_error(gerr));
	memset(got, 0xee, sizeof (got));
	errno = 0;
	r = pr_getsockopt(P, s, SOL_SOCKET, SO_GET_FILTER, got, &len);
	Prelease(P, 0);
	(void) close(hold[1]);
	ATF_REQUIRE(waitpid(kid, &st, 0) == kid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child");
	(void) close(s);
	if (myr != 0) {
		ATF_CHECK_EQ_MSG(r, -1, "%d instructions", n);
		ATF_CHECK_EQ_MSG(errno, EINVAL, "%d instructions: %s", n,
		    strerror(errno));
		ATF_CHECK_EQ(len, 4 * MAXARGL);
		n = 0;
	} else {
		ATF_REQUIRE_MSG(r == 0, "%d instructions: %s", n,
		    strerror(errno));
		ATF_CHECK_EQ(len, n);
		ATF_CHECK_MSG(memcmp(got, mine, (size_t)n * sizeof (got[0]))
		    == 0, "%d instructions: another filter", n);
	}
	for (size_t i = (size_t)n * sizeof (got[0]); i < sizeof (got); i++)
		ATF_REQUIRE_MSG(((uint8_t *)got)[i] == 0xee, "%d instructions: "
		    "byte %zu written", n, i);
}

ATF_TC_WITHOUT_HEAD(pr_getsockopt_filter);
ATF_TC_BODY(pr_getsockopt_filter, tc)
{
	check_filter(100);
	check_filter(MAXARGL / sizeof (struct sock_filter));
	check_filter(MAXARGL / sizeof (struct sock_filter) + 1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pr_calls_single_thread);
	ATF_TP_ADD_TC(tp, pr_calls_multithreaded);
	ATF_TP_ADD_TC(tp, pr_open_long_paths);
	ATF_TP_ADD_TC(tp, pr_calls_long_buffers);
	ATF_TP_ADD_TC(tp, pr_getsockopt_filter);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_api: every public function of libproc (libproc.h) called with NULL and
 * invalid arguments, held to what libproc.3 says of them (its ERRORS
 * section): the return value and errno, and never a crash.  Then the copy
 * back of pr_getsockopt, pr_getsockname and pr_getpeername: no byte of the
 * caller's buffer past what the call wrote is touched, whatever length
 * the caller claimed.
 *
 * The target is a child of the test's own, forked with sockets that the
 * test made before the fork on known fds, so that the test's own view of
 * those sockets is the expected one.
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libproc.h"
#include "testutil.h"

/* The child's fds, out of the way of those it inherits. */
#define	FD_LISTEN	40	/* TCP listener on 127.0.0.1 */
#define	FD_CLIENT	41	/* TCP, connected to the listener */
#define	FD_UNIX		42	/* one end of an AF_UNIX socketpair */
#define	FD_FILE		43	/* /dev/null: not a socket */
#define	FD_CMD		44	/* end of file on it: exit */
#define	FD_ACK		45	/* one byte: ready */
#define	KID_SECONDS	60	/* a child left behind exits by itself */

#define	PAT		0xAA	/* what a buffer holds before a call */

typedef struct kid {
	pid_t	k_pid;
	int	k_cmd;		/* our end of FD_CMD */
	int	k_fds[4];	/* our copies of FD_LISTEN .. FD_FILE */
	int	k_accepted;	/* the listener's end of FD_CLIENT */
	int	k_peer;		/* the other end of FD_UNIX */
} kid_t;

static void
kid_run(const kid_t *k, int cmd, int ack)
{
	char c;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm(KID_SECONDS);
	for (int i = 0; i < 4; i++) {
		if (dup2(k->k_fds[i], FD_LISTEN + i) < 0)
			_exit(1);
	}
	if (dup2(cmd, FD_CMD) < 0 || dup2(ack, FD_ACK) < 0)
		_exit(1);
	/* Only 0, 1, 2 and ours: nothing of the test's. */
	(void) close_range(3, FD_LISTEN - 1, 0);
	(void) close_range(FD_ACK + 1, ~0U, 0);
	if (write(FD_ACK, "r", 1) != 1)
		_exit(1);
	(void) close(FD_ACK);
	while (read(FD_CMD, &c, 1) == 1)
		continue;
	_exit(0);
}

/* Make the sockets, then the child that holds them. */
static void
kid_start(kid_t *k)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int cmd[2], ack[2], sp[2];
	char c;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE((k->k_fds[0] = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(bind(k->k_fds[0], (struct sockaddr *)&sin,
	    sizeof (sin)) == 0);
	ATF_REQUIRE(listen(k->k_fds[0], 4) == 0);
	ATF_REQUIRE(getsockname(k->k_fds[0], (struct sockaddr *)&sin,
	    &len) == 0);
	ATF_REQUIRE((k->k_fds[1] = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
	ATF_REQUIRE(connect(k->k_fds[1], (struct sockaddr *)&sin,
	    sizeof (sin)) == 0);
	ATF_REQUIRE((k->k_accepted = accept(k->k_fds[0], NULL, NULL)) >= 0);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	k->k_fds[2] = sp[0];
	k->k_peer = sp[1];
	ATF_REQUIRE((k->k_fds[3] = open("/dev/null", O_RDONLY)) >= 0);
	ATF_REQUIRE(pipe(cmd) == 0 && pipe(ack) == 0);

	ATF_REQUIRE((k->k_pid = fork()) >= 0);
	if (k->k_pid == 0)
		kid_run(k, cmd[0], ack[1]);
	(void) close(cmd[0]);
	(void) close(ack[1]);
	k->k_cmd = cmd[1];
	ATF_REQUIRE_EQ_MSG(read(ack[0], &c, 1), 1, "child did not start");
	/* End of file: the child has closed its end, its fds are final. */
	ATF_REQUIRE_EQ_MSG(read(ack[0], &c, 1), 0, "child said more");
	(void) close(ack[0]);
}

static void
kid_stop(kid_t *k)
{
	int status;

	(void) close(k->k_cmd);
	(void) kill(k->k_pid, SIGKILL);
	(void) waitpid(k->k_pid, &status, 0);
	for (int i = 0; i < 4; i++)
		(void) close(k->k_fds[i]);
	(void) close(k->k_accepted);
	(void) close(k->k_peer);
}

static struct ps_prochandle *
grab(pid_t pid)
{
	struct ps_prochandle *P;
	int gerr;

	P = Pgrab(pid, 0, &gerr);
	ATF_REQUIRE_MSG(P != NULL, "Pgrab(%d): %s", (int)pid,
	    Pgrab_error(gerr));
	return (P);
}

/* Our open fds: a handle that is let go must leave none behind. */
static int
count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 4096; fd++) {
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	}
	return (n);
}

/* The number of open fds of pid, as /proc says. */
static int
count_kid_fds(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/fd", (int)pid);
	ATF_REQUIRE((dir = opendir(path)) != NULL);
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] != '.')
			n++;
	}
	(void) closedir(dir);
	return (n);
}

/* TracerPid of pid, or -1. */
static int
tracer_of(pid_t pid)
{
	char path[64], *text, *p;
	int t = -1;

	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)pid);
	text = tu_read_file(path, NULL);
	if ((p = strstr(text, "\nTracerPid:")) != NULL)
		t = atoi(p + strlen("\nTracerPid:"));
	free(text);
	return (t);
}

/* Is every byte of buf[from, to) still PAT? */
static int
untouched(const uint8_t *buf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (buf[i] != PAT)
			return (0);
	}
	return (1);
}

/* The call returned -1 with errno e. */
#define	CHECK_FAIL(call, e) do {					\
	errno = 0;							\
	long rv_ = (long)(call);					\
	int e_ = errno;							\
	ATF_CHECK_MSG(rv_ == -1 && e_ == (e),				\
	    "%s: returned %ld, errno %d (%s); want -1, %s",		\
	    #call, rv_, e_, strerror(e_), #e);				\
} while (0)

/* The call returned NULL with errno e. */
#define	CHECK_NULL(call, e) do {					\
	errno = 0;							\
	const void *p_ = (call);					\
	int e_ = errno;							\
	ATF_CHECK_MSG(p_ == NULL && e_ == (e),				\
	    "%s: returned %p, errno %d (%s); want NULL, %s",		\
	    #call, p_, e_, strerror(e_), #e);				\
} while (0)

/* ------------------------------------------------------------------ */

ATF_TC_WITHOUT_HEAD(Pgrab_invalid);
ATF_TC_BODY(Pgrab_invalid, tc)
{
	struct ps_prochandle *P;
	int gerr, nfds;
	kid_t k;

	kid_start(&k);
	nfds = count_fds();
	/* No place for the code: refused, not grabbed. */
	CHECK_NULL(Pgrab(k.k_pid, 0, NULL), EINVAL);
	CHECK_NULL(Pgrab(0, 0, NULL), EINVAL);
	CHECK_NULL(Pgrab(-1, PGRAB_FORCE, NULL), EINVAL);
	CHECK_NULL(Pgrab(k.k_pid, 0x100, NULL), EINVAL);
	ATF_CHECK_EQ(count_fds(), nfds);

	/* An unknown flag: G_STRANGE, errno EINVAL. */
	gerr = 12345;
	CHECK_NULL(Pgrab(k.k_pid, 0x100, &gerr), EINVAL);
	ATF_CHECK_EQ(gerr, G_STRANGE);
	gerr = 12345;
	CHECK_NULL(Pgrab(k.k_pid, -1, &gerr), EINVAL);
	ATF_CHECK_EQ(gerr, G_STRANGE);
	ATF_CHECK_EQ(count_fds(), nfds);

	/* Every known flag is accepted; a bad pid is still G_NOPROC. */
	gerr = 12345;
	ATF_CHECK(Pgrab(0, PGRAB_RETAIN, &gerr) == NULL && gerr == G_NOPROC);
	P = Pgrab(k.k_pid, PGRAB_RETAIN | PGRAB_FORCE | PGRAB_RDONLY |
	    PGRAB_NOSTOP, &gerr);
	ATF_REQUIRE_MSG(P != NULL, "Pgrab: %s", Pgrab_error(gerr));
	ATF_CHECK_EQ(gerr, 0);
	Prelease(P, 0);
	ATF_CHECK_EQ(count_fds(), nfds);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(Prelease_invalid);
ATF_TC_BODY(Prelease_invalid, tc)
{
	int nfds;
	kid_t k;

	Prelease(NULL, 0);
	Prelease(NULL, PRELEASE_KILL);
	Prelease(NULL, ~0);
	/* Flags are ignored, known or not: the handle is let go. */
	kid_start(&k);
	nfds = count_fds();
	Prelease(grab(k.k_pid), ~0);
	ATF_CHECK_EQ(count_fds(), nfds);
	Prelease(grab(k.k_pid), PRELEASE_KILL);
	ATF_CHECK_EQ(count_fds(), nfds);
	ATF_CHECK_EQ(kill(k.k_pid, 0), 0);	/* and never killed */
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(Pgrab_error_unknown);
ATF_TC_BODY(Pgrab_error_unknown, tc)
{
	const int unknown[] = { INT_MIN, -2, 2, 3, 11, 17, 39, 41, 1000,
	    INT_MAX };

	ATF_CHECK_STREQ(Pgrab_error(0), "no error");
	ATF_CHECK_STREQ(Pgrab_error(G_STRANGE), "unanticipated system error");
	for (size_t i = 0; i < sizeof (unknown) / sizeof (unknown[0]); i++) {
		const char *s = Pgrab_error(unknown[i]);

		ATF_CHECK_MSG(s != NULL &&
		    strcmp(s, "unanticipated system error") == 0,
		    "Pgrab_error(%d): %s", unknown[i], s != NULL ? s : "NULL");
	}
}

ATF_TC_WITHOUT_HEAD(Pstatus_pid_Ppsinfo_invalid);
ATF_TC_BODY(Pstatus_pid_Ppsinfo_invalid, tc)
{
	struct ps_prochandle *P;
	kid_t k;

	CHECK_FAIL(Pstatus_pid(NULL), EINVAL);
	CHECK_NULL(Ppsinfo(NULL), EINVAL);
	kid_start(&k);
	P = grab(k.k_pid);
	ATF_CHECK_EQ(Pstatus_pid(P), k.k_pid);
	ATF_REQUIRE(Ppsinfo(P) != NULL);
	ATF_CHECK_EQ(Ppsinfo(P)->pr_pid, k.k_pid);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(Perrmsg_null);
ATF_TC_BODY(Perrmsg_null, tc)
{
	struct ps_prochandle *P;
	const char *s;
	kid_t k;

	/* "" and errno as it was: it is read right after a failure. */
	errno = ERANGE;
	s = Perrmsg(NULL);
	ATF_CHECK_EQ(errno, ERANGE);
	ATF_REQUIRE(s != NULL);
	ATF_CHECK_STREQ(s, "");
	kid_start(&k);
	P = grab(k.k_pid);
	errno = ERANGE;
	ATF_CHECK_STREQ(Perrmsg(P), "");
	ATF_CHECK_EQ(errno, ERANGE);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(proc_get_psinfo_invalid);
ATF_TC_BODY(proc_get_psinfo_invalid, tc)
{
	psinfo_t ps;

	CHECK_FAIL(proc_get_psinfo(getpid(), NULL), EINVAL);
	CHECK_FAIL(proc_get_psinfo(0, NULL), EINVAL);
	CHECK_FAIL(proc_get_psinfo(0, &ps), ESRCH);
	CHECK_FAIL(proc_get_psinfo(-5, &ps), ESRCH);
	ATF_CHECK_EQ(proc_get_psinfo(getpid(), &ps), 0);
	ATF_CHECK_EQ(ps.pr_pid, getpid());
}

ATF_TC_WITHOUT_HEAD(Plimit_invalid);
ATF_TC_BODY(Plimit_invalid, tc)
{
	struct ps_prochandle *P;
	struct rlimit rl, mine;
	kid_t k;

	CHECK_FAIL(Plimit(NULL, RLIMIT_NOFILE, &rl), EINVAL);
	CHECK_FAIL(Plimit(NULL, RLIMIT_NOFILE, NULL), EINVAL);
	kid_start(&k);
	P = grab(k.k_pid);
	CHECK_FAIL(Plimit(P, RLIMIT_NOFILE, NULL), EINVAL);
	CHECK_FAIL(Plimit(P, -1, &rl), EINVAL);
	CHECK_FAIL(Plimit(P, INT_MIN, &rl), EINVAL);
	CHECK_FAIL(Plimit(P, RLIM_NLIMITS, &rl), EINVAL);
	CHECK_FAIL(Plimit(P, INT_MAX, &rl), EINVAL);
	/* Every resource in range is answered. */
	for (int r = 0; r < RLIM_NLIMITS; r++) {
		ATF_CHECK_MSG(Plimit(P, r, &rl) == 0, "Plimit(%d): %s", r,
		    strerror(errno));
	}
	ATF_REQUIRE_EQ(Plimit(P, RLIMIT_NOFILE, &rl), 0);
	ATF_REQUIRE_EQ(getrlimit(RLIMIT_NOFILE, &mine), 0);
	ATF_CHECK_EQ(rl.rlim_cur, mine.rlim_cur);
	Prelease(P, 0);
	kid_stop(&k);
}

static char kid_word[16] = "word";

ATF_TC_WITHOUT_HEAD(Pread_Pwrite_invalid);
ATF_TC_BODY(Pread_Pwrite_invalid, tc)
{
	struct ps_prochandle *P;
	uintptr_t a = (uintptr_t)kid_word;
	char buf[16];
	kid_t k;

	CHECK_FAIL(Pread(NULL, buf, sizeof (buf), a), EINVAL);
	CHECK_FAIL(Pwrite(NULL, buf, sizeof (buf), a), EINVAL);
	CHECK_FAIL(Pread(NULL, NULL, 0, a), EINVAL);
	kid_start(&k);
	P = grab(k.k_pid);
	CHECK_FAIL(Pread(P, NULL, sizeof (buf), a), EINVAL);
	CHECK_FAIL(Pread(P, NULL, 0, a), EINVAL);
	CHECK_FAIL(Pwrite(P, NULL, sizeof (buf), a), EINVAL);
	CHECK_FAIL(Pwrite(P, NULL, 0, a), EINVAL);
	CHECK_FAIL(Pread(P, buf, sizeof (buf), (uintptr_t)-4), EINVAL);
	/* Whose last byte would be past the largest offset of mem. */
	CHECK_FAIL(Pread(P, buf, sizeof (buf), (uintptr_t)INT64_MAX - 4),
	    EINVAL);
	CHECK_FAIL(Pwrite(P, buf, sizeof (buf), (uintptr_t)INT64_MAX - 4),
	    EINVAL);
	CHECK_FAIL(Pread(P, buf, SIZE_MAX, a), EINVAL);
	/* The handle still works. */
	memset(buf, 0, sizeof (buf));
	ATF_CHECK_EQ(Pread(P, buf, 5, a), 5);
	ATF_CHECK_STREQ(buf, "word");
	Prelease(P, 0);
	kid_stop(&k);
}

static int
count_cb(void *cd, const prfdinfo_t *info)
{
	(*(int *)cd)++;
	return (0);
}

ATF_TC_WITHOUT_HEAD(Pfdinfo_iter_invalid);
ATF_TC_BODY(Pfdinfo_iter_invalid, tc)
{
	struct ps_prochandle *P;
	int n = 0;
	kid_t k;

	CHECK_FAIL(Pfdinfo_iter(NULL, count_cb, &n), EINVAL);
	CHECK_FAIL(Pfdinfo_iter(NULL, NULL, NULL), EINVAL);
	CHECK_FAIL(Pfdinfo_iter_flags(NULL, 0, count_cb, &n), EINVAL);
	kid_start(&k);
	P = grab(k.k_pid);
	CHECK_FAIL(Pfdinfo_iter(P, NULL, &n), EINVAL);
	CHECK_FAIL(Pfdinfo_iter_flags(P, 0, NULL, &n), EINVAL);
	CHECK_FAIL(Pfdinfo_iter_flags(P, PFDI_STATONLY, NULL, &n), EINVAL);
	/* The first flag that means nothing. */
	CHECK_FAIL(Pfdinfo_iter_flags(P, (PFDI_STATONLY | PFDI_NOENDPOINTS) +
	    1, count_cb, &n), EINVAL);
	CHECK_FAIL(Pfdinfo_iter_flags(P, -1, count_cb, &n), EINVAL);
	CHECK_FAIL(Pfdinfo_iter_flags(P, INT_MIN | PFDI_STATONLY, count_cb,
	    &n), EINVAL);
	ATF_CHECK_EQ(n, 0);		/* nothing was walked */
	/* Refused walks leave the handle as it was. */
	ATF_CHECK_EQ(Psocksrc(P), PSOCK_AUTO);
	ATF_CHECK_EQ(Pfdinfo_iter_flags(P, PFDI_STATONLY, count_cb, &n), 0);
	ATF_CHECK_EQ(n, count_kid_fds(k.k_pid));
	n = 0;
	ATF_CHECK_EQ(Pfdinfo_iter_flags(P, PFDI_NOENDPOINTS, count_cb, &n),
	    0);
	ATF_CHECK_EQ(n, count_kid_fds(k.k_pid));
	Prelease(P, 0);
	kid_stop(&k);
}

/* A record with one PR_PATHNAME item "/x", built by hand. */
typedef union {
	prfdinfo_t	r_info;
	uint64_t	r_align[32];
} rec_t;

static void
make_record(rec_t *r)
{
	pr_misc_header_t h = { sizeof (h) + 3, PR_PATHNAME };

	memset(r, 0, sizeof (*r));
	r->r_info.pr_misc_size = 16;
	memcpy(r->r_info.pr_misc, &h, sizeof (h));
	memcpy(r->r_info.pr_misc + sizeof (h), "/x", 3);
}

ATF_TC_WITHOUT_HEAD(proc_fdinfo_misc_invalid);
ATF_TC_BODY(proc_fdinfo_misc_invalid, tc)
{
	pr_misc_header_t bad = { 0, PR_PATHNAME };
	size_t len;
	rec_t r;

	len = 99;
	CHECK_NULL(proc_fdinfo_misc(NULL, PR_PATHNAME, &len), EINVAL);
	ATF_CHECK_EQ(len, 0);
	CHECK_NULL(proc_fdinfo_misc(NULL, PR_PATHNAME, NULL), EINVAL);

	/* lenp may be NULL; an absent or unknown type is just absent. */
	make_record(&r);
	ATF_CHECK_STREQ((const char *)proc_fdinfo_misc(&r.r_info, PR_PATHNAME,
	    NULL), "/x");
	ATF_CHECK(proc_fdinfo_misc(&r.r_info, PR_PATHNAME, &len) != NULL);
	ATF_CHECK_EQ(len, 3);
	len = 99;
	ATF_CHECK(proc_fdinfo_misc(&r.r_info, PR_SOCKETNAME, &len) == NULL);
	ATF_CHECK_EQ(len, 0);
	ATF_CHECK(proc_fdinfo_misc(&r.r_info, 0, &len) == NULL);
	ATF_CHECK(proc_fdinfo_misc(&r.r_info, UINT_MAX, NULL) == NULL);

	/* A damaged record ends the search. */
	memcpy(r.r_info.pr_misc, &bad, sizeof (bad));
	ATF_CHECK(proc_fdinfo_misc(&r.r_info, PR_PATHNAME, &len) == NULL);
	make_record(&r);
	r.r_info.pr_misc_size = UINT_MAX;
	bad.pr_misc_size = UINT_MAX - 8;
	bad.pr_misc_type = PR_SOCKETNAME;
	memcpy(r.r_info.pr_misc, &bad, sizeof (bad));
	ATF_CHECK(proc_fdinfo_misc(&r.r_info, PR_PATHNAME, &len) == NULL);
}

/* proc_fdinfowalk's func: counts its calls in *arg; 7 for a NULL arg. */
static int
walk_count(uint_t type, const void *data, size_t len, void *arg)
{
	if (arg == NULL)
		return (7);
	(*(int *)arg)++;
	return (0);
}

ATF_TC_WITHOUT_HEAD(proc_fdinfowalk_invalid);
ATF_TC_BODY(proc_fdinfowalk_invalid, tc)
{
	int n = 0;
	rec_t r;

	/* Refused before anything is done: func is never called. */
	make_record(&r);
	CHECK_FAIL(proc_fdinfowalk(NULL, walk_count, &n), EINVAL);
	CHECK_FAIL(proc_fdinfowalk(&r.r_info, NULL, &n), EINVAL);
	CHECK_FAIL(proc_fdinfowalk(NULL, NULL, NULL), EINVAL);
	ATF_CHECK_EQ(n, 0);

	ATF_CHECK_EQ(proc_fdinfowalk(&r.r_info, walk_count, &n), 0);
	ATF_CHECK_EQ(n, 1);
	/* arg may be NULL: handed to func as it is. */
	ATF_CHECK_EQ(proc_fdinfowalk(&r.r_info, walk_count, NULL), 7);
}

ATF_TC_WITHOUT_HEAD(Psocksrc_invalid);
ATF_TC_BODY(Psocksrc_invalid, tc)
{
	struct ps_prochandle *P;
	kid_t k;

	CHECK_FAIL(Psetsocksrc(NULL, PSOCK_AUTO), EINVAL);
	CHECK_FAIL(Psetsocksrc(NULL, (psocksrc_t)42), EINVAL);
	errno = 0;
	ATF_CHECK_EQ(Psocksrc(NULL), PSOCK_AUTO);
	ATF_CHECK_EQ(errno, EINVAL);
	ATF_CHECK_STREQ(Psocksrc_name(PSOCK_AUTO), "auto");
	ATF_CHECK_STREQ(Psocksrc_name(PSOCK_PIDFD), "pidfd");
	ATF_CHECK_STREQ(Psocksrc_name(PSOCK_AGENT), "agent");
	ATF_CHECK_STREQ(Psocksrc_name(PSOCK_DIAG), "diag");
	ATF_CHECK_STREQ(Psocksrc_name(PSOCK_BPF), "bpf");
	ATF_CHECK_STREQ(Psocksrc_name((psocksrc_t)42), "?");
	ATF_CHECK_STREQ(Psocksrc_name((psocksrc_t)-1), "?");
	ATF_CHECK_STREQ(Psocksrc_name((psocksrc_t)INT_MAX), "?");

	kid_start(&k);
	P = grab(k.k_pid);
	CHECK_FAIL(Psetsocksrc(P, (psocksrc_t)42), EINVAL);
	CHECK_FAIL(Psetsocksrc(P, (psocksrc_t)-1), EINVAL);
	CHECK_FAIL(Psetsocksrc(P, (psocksrc_t)(PSOCK_BPF + 1)), EINVAL);
	ATF_CHECK_EQ(Psocksrc(P), PSOCK_AUTO);
	/* No reason where nothing was refused, or for no source. */
	ATF_CHECK(Psocksrc_why(NULL, PSOCK_PIDFD) == NULL);
	for (int s = -1; s <= PSOCK_NSRC; s++)
		ATF_CHECK(Psocksrc_why(P, (psocksrc_t)s) == NULL);
	/* A refused call leaves the source chosen before as it was. */
	if (Psetsocksrc(P, PSOCK_PIDFD) == 0) {
		CHECK_FAIL(Psetsocksrc(P, (psocksrc_t)42), EINVAL);
		ATF_CHECK_EQ(Psocksrc(P), PSOCK_PIDFD);
	}
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(agent_invalid);
ATF_TC_BODY(agent_invalid, tc)
{
	struct ps_prochandle *P;
	kid_t k;

	CHECK_FAIL(Pcreate_agent(NULL), EINVAL);
	errno = ERANGE;
	Pdestroy_agent(NULL);
	Prelease_agents();		/* none out: nothing to do */
	ATF_CHECK_EQ(errno, ERANGE);
	kid_start(&k);
	P = grab(k.k_pid);
	Pdestroy_agent(P);		/* the handle has none */
	ATF_CHECK_EQ(tracer_of(k.k_pid), 0);
	ATF_REQUIRE_EQ(Pcreate_agent(P), 0);
	Pdestroy_agent(P);
	Pdestroy_agent(P);		/* twice: nothing more */
	ATF_CHECK_EQ(tracer_of(k.k_pid), 0);
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(agent_deadline);
ATF_TC_BODY(agent_deadline, tc)
{
	struct ps_prochandle *P;
	sysret_t rv;
	kid_t k;

	CHECK_FAIL(Pset_agent_deadline(NULL, 10), EINVAL);
	errno = 0;
	ATF_CHECK_EQ(Pagent_held(NULL), 0);
	ATF_CHECK_EQ(errno, EINVAL);
	kid_start(&k);
	P = grab(k.k_pid);
	CHECK_FAIL(Pset_agent_deadline(P, PAGENT_DEADLINE_MAX + 1), EINVAL);
	ATF_CHECK_EQ(Pagent_held(P), 0);	/* nothing borrowed yet */
	ATF_REQUIRE_EQ(Pset_agent_deadline(P, 0), 0);	/* the default */
	ATF_REQUIRE_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, k.k_pid);
	/* A deadline already spent: nothing more is borrowed, and why. */
	ATF_REQUIRE_EQ(Pset_agent_deadline(P, 1), 0);
	for (int i = 0; i < 1000 && Pagent_held(P) < 1; i++)
		ATF_REQUIRE_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_REQUIRE(Pagent_held(P) >= 1);
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 0, NULL), ETIME);
	ATF_CHECK_STREQ(Perrmsg(P), "the target was held for its deadline "
	    "(1 ms)");
	CHECK_FAIL(Pcreate_agent(P), ETIME);
	ATF_CHECK_EQ(tracer_of(k.k_pid), 0);	/* given back, as it was */
	/* A longer one lets it be borrowed again. */
	ATF_REQUIRE_EQ(Pset_agent_deadline(P, PAGENT_DEADLINE_MAX), 0);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	Prelease(P, 0);
	ATF_CHECK_EQ(tracer_of(k.k_pid), 0);
	kid_stop(&k);
}

ATF_TC_WITHOUT_HEAD(Psyscall_invalid);
ATF_TC_BODY(Psyscall_invalid, tc)
{
	struct ps_prochandle *P;
	long word = 0;
	psyscall_t calls[65];
	argdes_t a[7];
	sysret_t rv;
	kid_t k;

	for (int i = 0; i < 7; i++)
		argdes_byval(&a[i], 0);
	for (int i = 0; i < 65; i++)
		psyscall_set(&calls[i], SYS_getpid, NULL, 0);

	CHECK_FAIL(Psyscall(NULL, &rv, SYS_getpid, 0, NULL), EINVAL);
	CHECK_FAIL(Psyscall_batch(NULL, calls, 1), EINVAL);
	CHECK_FAIL(Psyscall_batch(NULL, NULL, 0), EINVAL);
	kid_start(&k);
	P = grab(k.k_pid);
	CHECK_FAIL(Psyscall(P, &rv, -1, 0, NULL), EINVAL);
	CHECK_FAIL(Psyscall(P, &rv, INT_MIN, 0, NULL), EINVAL);
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 1, NULL), EINVAL);
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 7, a), EINVAL);
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, UINT_MAX, a), EINVAL);
	a[0].arg_type = 9;
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 1, a), EINVAL);
	argdes_byref(&a[0], &word, sizeof (word), AI_INPUT);
	a[0].arg_inout = 0;
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 1, a), EINVAL);
	argdes_byref(&a[0], &word, sizeof (word), AI_INPUT);
	a[0].arg_size = MAXARGL + 1;
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 1, a), EINVAL);
	argdes_byref(&a[0], NULL, sizeof (word), AI_OUTPUT);
	CHECK_FAIL(Psyscall(P, &rv, SYS_getpid, 1, a), EINVAL);
	CHECK_FAIL(Psyscall_batch(P, NULL, 1), EINVAL);
	CHECK_FAIL(Psyscall_batch(P, calls, 65), EINVAL);
	CHECK_FAIL(Psyscall_batch(P, calls, UINT_MAX), EINVAL);
	calls[3].ps_nargs = 2;		/* with a NULL ps_argp */
	CHECK_FAIL(Psyscall_batch(P, calls, 4), EINVAL);
	ATF_CHECK_EQ(calls[0].ps_errno, 0);
	/* Nothing was run: no agent was ever made. */
	ATF_CHECK_EQ(tracer_of(k.k_pid), 0);

	/* An empty batch runs nothing; rval may be NULL. */
	ATF_CHECK_EQ(Psyscall_batch(P, NULL, 0), 0);
	ATF_CHECK_EQ(Psyscall(P, NULL, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, k.k_pid);
	Prelease(P, 0);
	kid_stop(&k);
}

/*
 * The pr_* calls answer as the system call would: their NULL objects
 * and bad fds reach the call (or, where the C library declares an
 * argument nonnull, get the call's EFAULT without it).
 */
static void
check_pr_invalid(struct ps_prochandle *P, int sock, int file)
{
	struct sockaddr_storage ss;
	struct rlimit rl;
	struct stat st;
	socklen_t sl;
	int v, len;

	len = sizeof (v);
	CHECK_FAIL(pr_getsockopt(P, sock, SOL_SOCKET, SO_TYPE, &v, NULL),
	    EFAULT);
	CHECK_FAIL(pr_getsockopt(P, sock, SOL_SOCKET, SO_TYPE, NULL, &len),
	    EFAULT);
	len = -1;
	CHECK_FAIL(pr_getsockopt(P, sock, SOL_SOCKET, SO_TYPE, &v, &len),
	    EINVAL);
	len = sizeof (v);
	CHECK_FAIL(pr_getsockopt(P, -1, SOL_SOCKET, SO_TYPE, &v, &len),
	    EBADF);
	CHECK_FAIL(pr_getsockopt(P, file, SOL_SOCKET, SO_TYPE, &v, &len),
	    ENOTSOCK);
	sl = sizeof (ss);
	CHECK_FAIL(pr_getsockname(P, sock, NULL, &sl), EFAULT);
	CHECK_FAIL(pr_getsockname(P, sock, (struct sockaddr *)&ss, NULL),
	    EFAULT);
	CHECK_FAIL(pr_getpeername(P, sock, NULL, &sl), EFAULT);
	CHECK_FAIL(pr_getpeername(P, -1, (struct sockaddr *)&ss, &sl),
	    EBADF);
	CHECK_FAIL(pr_fstat(P, file, NULL), EFAULT);
	CHECK_FAIL(pr_fstat(P, -1, &st), EBADF);
	CHECK_FAIL(pr_fcntl(P, -1, F_GETFL, NULL), EBADF);
	CHECK_FAIL(pr_fcntl(P, file, F_GETLK, NULL), EFAULT);
	CHECK_FAIL(pr_lseek(P, -1, 0, SEEK_SET), EBADF);
	CHECK_FAIL(pr_lseek(P, file, 0, 42), EINVAL);
	CHECK_FAIL(pr_open(P, NULL, O_RDONLY, 0), EFAULT);
	CHECK_FAIL(pr_close(P, -1), EBADF);
	CHECK_FAIL(pr_getrlimit(P, RLIMIT_NOFILE, NULL), EFAULT);
	CHECK_FAIL(pr_getrlimit(P, -1, &rl), EINVAL);
	CHECK_FAIL(pr_getrlimit(P, INT_MAX, &rl), EINVAL);
}

ATF_TC_WITHOUT_HEAD(pr_calls_invalid);
ATF_TC_BODY(pr_calls_invalid, tc)
{
	struct ps_prochandle *P;
	struct rlimit rl, mine;
	kid_t k;

	kid_start(&k);
	/* With no handle, in the calling process, as on illumos. */
	check_pr_invalid(NULL, k.k_fds[1], k.k_fds[3]);
	ATF_REQUIRE_EQ(pr_getrlimit(NULL, RLIMIT_NOFILE, &rl), 0);
	ATF_REQUIRE_EQ(getrlimit(RLIMIT_NOFILE, &mine), 0);
	ATF_CHECK_EQ(rl.rlim_cur, mine.rlim_cur);

	P = grab(k.k_pid);
	check_pr_invalid(P, FD_CLIENT, FD_FILE);
	/* With the agent held, the same answers. */
	ATF_REQUIRE_EQ(Pcreate_agent(P), 0);
	check_pr_invalid(P, FD_CLIENT, FD_FILE);
	Pdestroy_agent(P);
	ATF_CHECK_EQ(tracer_of(k.k_pid), 0);
	Prelease(P, 0);
	kid_stop(&k);
}

/* ------------------------------------------------------------------ */
/* Copying back: only what the call wrote. */

/*
 * getsockopt(level, name) of the child's fd into a buffer of bufsz bytes
 * of PAT, the caller claiming claim bytes: the call must return 0 with
 * the length and value of our own getsockopt of the same socket, and
 * leave every byte past that length as it was.
 */
static void
check_sockopt(struct ps_prochandle *P, int fd, int ourfd, int level,
    int name, size_t bufsz, int claim)
{
	uint8_t *buf = malloc(bufsz), want[64];
	socklen_t wantlen = (socklen_t)(claim < 64 ? claim : 64);
	int len = claim;

	ATF_REQUIRE(buf != NULL);
	memset(buf, PAT, bufsz);
	ATF_REQUIRE(getsockopt(ourfd, level, name, want, &wantlen) == 0);
	ATF_REQUIRE_MSG(pr_getsockopt(P, fd, level, name, buf, &len) == 0,
	    "pr_getsockopt(%d, %d, %d) claiming %d: %s", fd, level, name,
	    claim, strerror(errno));
	ATF_CHECK_MSG(len == (int)wantlen, "option %d claiming %d: len %d, "
	    "want %u", name, claim, len, (unsigned)wantlen);
	if (len >= 0 && (size_t)len <= bufsz) {
		ATF_CHECK(memcmp(buf, want, (size_t)len) == 0);
		ATF_CHECK_MSG(untouched(buf, (size_t)len, bufsz),
		    "option %d claiming %d: bytes past %d were written",
		    name, claim, len);
	}
	free(buf);
}

ATF_TC_WITHOUT_HEAD(pr_getsockopt_copyback);
ATF_TC_BODY(pr_getsockopt_copyback, tc)
{
	struct ps_prochandle *P;
	uint8_t buf16[16];
	int len, file_len;
	kid_t k;

	kid_start(&k);
	P = grab(k.k_pid);

	/* The case: 16 bytes offered, getsockopt writes 4. */
	memset(buf16, PAT, sizeof (buf16));
	len = sizeof (buf16);
	ATF_REQUIRE_MSG(pr_getsockopt(P, FD_CLIENT, SOL_SOCKET, SO_TYPE,
	    buf16, &len) == 0, "pr_getsockopt: %s", strerror(errno));
	ATF_CHECK_EQ(len, 4);
	ATF_CHECK(memcmp(buf16, &(int){ SOCK_STREAM }, 4) == 0);
	ATF_CHECK_MSG(untouched(buf16, 4, sizeof (buf16)),
	    "buf16[4..15] were written");

	/*
	 * A claim far past the buffer (4 KiB, and past MAXARGL) is as
	 * harmless as it is to getsockopt itself: the buffers are larger
	 * here only so that a write past 4 bytes shows, not corrupts.
	 */
	check_sockopt(P, FD_CLIENT, k.k_fds[1], SOL_SOCKET, SO_TYPE, 8192,
	    4096);
	check_sockopt(P, FD_CLIENT, k.k_fds[1], SOL_SOCKET, SO_TYPE, 8192,
	    8192);
	check_sockopt(P, FD_CLIENT, k.k_fds[1], SOL_SOCKET, SO_LINGER, 64,
	    64);
	check_sockopt(P, FD_UNIX, k.k_fds[2], SOL_SOCKET, SO_PEERCRED, 256,
	    256);
	/* A claim shorter than the value: that many bytes, no more. */
	check_sockopt(P, FD_CLIENT, k.k_fds[1], SOL_SOCKET, SO_RCVBUF, 16, 2);
	check_sockopt(P, FD_CLIENT, k.k_fds[1], SOL_SOCKET, SO_RCVBUF, 16, 0);

	/* A call that fails writes nothing: not the buffer, not the length. */
	memset(buf16, PAT, sizeof (buf16));
	file_len = len = sizeof (buf16);
	CHECK_FAIL(pr_getsockopt(P, FD_FILE, SOL_SOCKET, SO_TYPE, buf16, &len),
	    ENOTSOCK);
	ATF_CHECK_EQ(len, file_len);
	ATF_CHECK_MSG(untouched(buf16, 0, sizeof (buf16)),
	    "a failed call wrote into the buffer");

	/* The same with the agent held. */
	ATF_REQUIRE_EQ(Pcreate_agent(P), 0);
	check_sockopt(P, FD_CLIENT, k.k_fds[1], SOL_SOCKET, SO_TYPE, 8192,
	    4096);
	Pdestroy_agent(P);
	Prelease(P, 0);
	kid_stop(&k);
}

typedef int name_f(struct ps_prochandle *, int, struct sockaddr *,
    socklen_t *);
typedef int local_name_f(int, struct sockaddr *, socklen_t *);

/*
 * A name call of the child's fd into a buffer of bufsz bytes of PAT, the
 * caller claiming claim bytes: our own call on the same socket tells the
 * whole address; the target's must give min(its length, claim) bytes of
 * it and that length, and leave every byte past it as it was.
 */
static void
check_name(struct ps_prochandle *P, name_f *f, local_name_f *local,
    int fd, int ourfd, size_t bufsz, socklen_t claim)
{
	struct sockaddr_storage want;
	socklen_t wantlen = sizeof (want), len = claim, cut;
	uint8_t *buf = malloc(bufsz);

	ATF_REQUIRE(buf != NULL);
	memset(buf, PAT, bufsz);
	ATF_REQUIRE(local(ourfd, (struct sockaddr *)&want, &wantlen) == 0);
	cut = wantlen < claim ? wantlen : claim;
	ATF_REQUIRE_MSG(f(P, fd, (struct sockaddr *)buf, &len) == 0,
	    "name of fd %d claiming %u: %s", fd, (unsigned)claim,
	    strerror(errno));
	ATF_CHECK_MSG(len == cut, "fd %d claiming %u: len %u, want %u", fd,
	    (unsigned)claim, (unsigned)len, (unsigned)cut);
	if (len <= bufsz) {
		ATF_CHECK(memcmp(buf, &want, len) == 0);
		ATF_CHECK_MSG(untouched(buf, len, bufsz),
		    "fd %d claiming %u: bytes past %u were written", fd,
		    (unsigned)claim, (unsigned)len);
	}
	free(buf);
}

ATF_TC_WITHOUT_HEAD(pr_getsockname_copyback);
ATF_TC_BODY(pr_getsockname_copyback, tc)
{
	struct ps_prochandle *P;
	struct sockaddr_storage ss;
	socklen_t len, before;
	kid_t k;

	kid_start(&k);
	P = grab(k.k_pid);
	/* AF_INET: 16 bytes, whatever the claim past them. */
	check_name(P, pr_getsockname, getsockname, FD_LISTEN, k.k_fds[0],
	    sizeof (ss), sizeof (ss));
	check_name(P, pr_getsockname, getsockname, FD_CLIENT, k.k_fds[1],
	    8192, 4096);
	check_name(P, pr_getsockname, getsockname, FD_CLIENT, k.k_fds[1],
	    8192, 8192);
	check_name(P, pr_getpeername, getpeername, FD_CLIENT, k.k_fds[1],
	    sizeof (ss), sizeof (ss));
	check_name(P, pr_getpeername, getpeername, FD_CLIENT, k.k_fds[1],
	    8192, 5000);
	/* An unnamed AF_UNIX socket: the family alone, 2 bytes. */
	check_name(P, pr_getsockname, getsockname, FD_UNIX, k.k_fds[2],
	    sizeof (ss), sizeof (ss));
	check_name(P, pr_getpeername, getpeername, FD_UNIX, k.k_fds[2],
	    512, 512);
	/* A claim shorter than the address: cut to it (libproc.3). */
	check_name(P, pr_getsockname, getsockname, FD_CLIENT, k.k_fds[1],
	    sizeof (ss), 4);
	check_name(P, pr_getpeername, getpeername, FD_CLIENT, k.k_fds[1],
	    sizeof (ss), 0);

	/* A call that fails writes nothing. */
	memset(&ss, PAT, sizeof (ss));
	before = len = sizeof (ss);
	CHECK_FAIL(pr_getpeername(P, FD_LISTEN, (struct sockaddr *)&ss, &len),
	    ENOTCONN);
	ATF_CHECK_EQ(len, before);
	ATF_CHECK_MSG(untouched((uint8_t *)&ss, 0, sizeof (ss)),
	    "a failed call wrote into the buffer");
	Prelease(P, 0);
	kid_stop(&k);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, Pgrab_invalid);
	ATF_TP_ADD_TC(tp, agent_deadline);
	ATF_TP_ADD_TC(tp, Prelease_invalid);
	ATF_TP_ADD_TC(tp, Pgrab_error_unknown);
	ATF_TP_ADD_TC(tp, Pstatus_pid_Ppsinfo_invalid);
	ATF_TP_ADD_TC(tp, Perrmsg_null);
	ATF_TP_ADD_TC(tp, proc_get_psinfo_invalid);
	ATF_TP_ADD_TC(tp, Plimit_invalid);
	ATF_TP_ADD_TC(tp, Pread_Pwrite_invalid);
	ATF_TP_ADD_TC(tp, Pfdinfo_iter_invalid);
	ATF_TP_ADD_TC(tp, proc_fdinfo_misc_invalid);
	ATF_TP_ADD_TC(tp, proc_fdinfowalk_invalid);
	ATF_TP_ADD_TC(tp, Psocksrc_invalid);
	ATF_TP_ADD_TC(tp, agent_invalid);
	ATF_TP_ADD_TC(tp, Psyscall_invalid);
	ATF_TP_ADD_TC(tp, pr_calls_invalid);
	ATF_TP_ADD_TC(tp, pr_getsockopt_copyback);
	ATF_TP_ADD_TC(tp, pr_getsockname_copyback);
	return (atf_no_error());
}

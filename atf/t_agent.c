/*
 * t_agent: the agent (libproc-patch/agent.c): Psyscall and its batches,
 * the pr_* wrappers, and what becomes of the borrowed thread.
 *
 * The target, fixtures/agent_target, tells its own view of its fds (its
 * own fstat, fcntl, lseek, getsockopt, getsockname...) and the tests
 * compare what the agent finds inside it with that view.  Blocking calls
 * are checked by their outcome in the target: the call completes as it
 * would have without the agent.  fixtures/agent_driver is a controlling
 * process that strace can watch (reads and writes of /proc/PID/mem per
 * batch) and that the tests kill in the middle of its work.
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
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
#include <time.h>
#include <unistd.h>

#include "Pcontrol.h"
#include "libproc.h"
#include "marshal.h"
#include "testutil.h"

#define	TARGET	BUILD_DIR "/agent_target"
#define	DRIVER	BUILD_DIR "/agent_driver"
#define	LINE_MS	10000		/* one line from a child */

/* ------------------------------------------------------------------ */
/* The target's manifest (see fixtures/agent_target.c), parsed. */

typedef struct mopt {
	int	level, name, err;
	size_t	len;
	uint8_t	val[64];
} mopt_t;

typedef struct mfd {
	int	fd;
	char	kind[16];
	int	getfl, getfd;
	unsigned long long dev, ino, nlink, rdev;
	unsigned mode, uid, gid;
	long long size;
	int	off_err;
	long long offset;
	int	have_lk, lk_type, lk_pid;
	long long lk_start, lk_len;
	int	nopts;
	mopt_t	opts[20];
	int	sn_err, pn_err;
	size_t	sn_len, pn_len;
	uint8_t	sn[128], pn[128];
} mfd_t;

typedef struct manifest {
	char	*text;		/* as printed, before "end" */
	pid_t	pid;
	unsigned long long sigmask;
	int	nrl;
	struct { int res; unsigned long long cur, max; } rl[4];
	int	pingport;
	char	file[64];
	int	nfds;
	mfd_t	fds[16];
} manifest_t;

static size_t
parse_hex(const char *s, uint8_t *buf, size_t cap)
{
	size_t len;
	char *p;

	len = strtoul(s, &p, 10);
	ATF_REQUIRE_MSG(*p == ' ' && len <= cap, "bad hex field: %s", s);
	p++;
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		ATF_REQUIRE(sscanf(p + 2 * i, "%2x", &v) == 1);
		buf[i] = (uint8_t)v;
	}
	return (len);
}

/* "error E" or "LEN HEX": the errno, or 0 with the bytes. */
static int
parse_result(const char *s, uint8_t *buf, size_t cap, size_t *lenp)
{
	if (strncmp(s, "error ", 6) == 0)
		return (atoi(s + 6));
	*lenp = parse_hex(s, buf, cap);
	return (0);
}

static void
parse_line(manifest_t *m, const char *l)
{
	mfd_t *f = m->nfds > 0 ? &m->fds[m->nfds - 1] : NULL;
	int n;

	if (sscanf(l, "pid %d", &n) == 1) {
		m->pid = n;
	} else if (strncmp(l, "sigmask ", 8) == 0) {
		m->sigmask = strtoull(l + 8, NULL, 16);
	} else if (strncmp(l, "rlimit ", 7) == 0) {
		ATF_REQUIRE(m->nrl < 4);
		ATF_REQUIRE(sscanf(l, "rlimit %d %llu %llu", &m->rl[m->nrl].res,
		    &m->rl[m->nrl].cur, &m->rl[m->nrl].max) == 3);
		m->nrl++;
	} else if (sscanf(l, "pingport %d", &n) == 1) {
		m->pingport = n;
	} else if (strncmp(l, "file ", 5) == 0) {
		(void) snprintf(m->file, sizeof (m->file), "%s", l + 5);
	} else if (strncmp(l, "fd ", 3) == 0) {
		ATF_REQUIRE(m->nfds < 16);
		f = &m->fds[m->nfds++];
		memset(f, 0, sizeof (*f));
		ATF_REQUIRE(sscanf(l, "fd %d %15s", &f->fd, f->kind) == 2);
	} else if (f == NULL) {
		atf_tc_fail("manifest line before any fd: %s", l);
	} else if (sscanf(l, "getfl %d", &n) == 1) {
		f->getfl = n;
	} else if (sscanf(l, "getfd %d", &n) == 1) {
		f->getfd = n;
	} else if (strncmp(l, "stat ", 5) == 0) {
		ATF_REQUIRE(sscanf(l, "stat %llu %llu %u %llu %u %u %llu %lld",
		    &f->dev, &f->ino, &f->mode, &f->nlink, &f->uid, &f->gid,
		    &f->rdev, &f->size) == 8);
	} else if (sscanf(l, "offset error %d", &n) == 1) {
		f->off_err = n;
	} else if (strncmp(l, "offset ", 7) == 0) {
		f->offset = atoll(l + 7);
	} else if (strncmp(l, "getlk ", 6) == 0) {
		f->have_lk = 1;
		ATF_REQUIRE(sscanf(l, "getlk %d %lld %lld %d", &f->lk_type,
		    &f->lk_start, &f->lk_len, &f->lk_pid) == 4);
	} else if (strncmp(l, "sockopt ", 8) == 0) {
		mopt_t *o;
		int off;

		ATF_REQUIRE(f->nopts < 20);
		o = &f->opts[f->nopts++];
		ATF_REQUIRE(sscanf(l, "sockopt %d %d %n", &o->level, &o->name,
		    &off) == 2);
		o->err = parse_result(l + off, o->val, sizeof (o->val),
		    &o->len);
	} else if (strncmp(l, "sockname ", 9) == 0) {
		f->sn_err = parse_result(l + 9, f->sn, sizeof (f->sn),
		    &f->sn_len);
	} else if (strncmp(l, "peername ", 9) == 0) {
		f->pn_err = parse_result(l + 9, f->pn, sizeof (f->pn),
		    &f->pn_len);
	} else {
		atf_tc_fail("unknown manifest line: %s", l);
	}
}

/* Read a manifest (up to "end") from the target's stdout. */
static void
read_manifest(tu_child_t *c, manifest_t *m)
{
	int found;
	char *p, *nl;

	memset(m, 0, sizeof (*m));
	m->pingport = -1;
	m->text = tu_read_until(c->tc_out, "end", LINE_MS, &found);
	ATF_REQUIRE_MSG(found, "the target's manifest has no end");
	for (p = m->text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		parse_line(m, p);
		*nl = '\n';
	}
	ATF_REQUIRE_MSG(m->pid > 0 && m->nfds > 0, "empty manifest");
}

static void
free_manifest(manifest_t *m)
{
	free(m->text);
	m->text = NULL;
}

/* One write, so that the target's one read gets the whole line. */
static void
send_line(tu_child_t *c, const char *line)
{
	char *l = tu_asprintf("%s\n", line);
	size_t len = strlen(l);

	ATF_REQUIRE_MSG(write(c->tc_in, l, len) == (ssize_t)len,
	    "write to the target: %s", strerror(errno));
	free(l);
}

/* The target answers "pong" to "ping": its main thread serves again. */
static void
require_pong(tu_child_t *c)
{
	char *l;

	send_line(c, "ping");
	l = tu_read_line(c->tc_out, LINE_MS);
	ATF_REQUIRE_MSG(l != NULL, "the target went away");
	ATF_REQUIRE_MSG(strcmp(l, "pong") == 0,
	    "the target answered '%s' to ping (a read it was blocked in did "
	    "not resume cleanly)", l);
	free(l);
}

static void
spawn_fds(tu_child_t *c, int nthreads, manifest_t *m)
{
	char n[16];
	const char *argv[] = { TARGET, "fds", "-T", n, NULL };

	(void) snprintf(n, sizeof (n), "%d", nthreads);
	if (nthreads == 0)
		argv[2] = NULL;
	tu_spawn(c, argv, 0);
	read_manifest(c, m);
}

static void
stop_target(tu_child_t *c)
{
	int st;

	send_line(c, "exit");
	st = tu_stop(c, LINE_MS);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the target did not exit cleanly (status 0x%x)", st);
}

static struct ps_prochandle *
grab(pid_t pid)
{
	struct ps_prochandle *P;
	int gerr;

	P = Pgrab(pid, 0, &gerr);
	ATF_REQUIRE_MSG(P != NULL, "Pgrab %d: %s", (int)pid,
	    Pgrab_error(gerr));
	return (P);
}

static void
create_agent(struct ps_prochandle *P)
{
	ATF_REQUIRE_MSG(Pcreate_agent(P) == 0, "Pcreate_agent: %s (%s)",
	    strerror(errno), Pagent_error());
}

/* TracerPid of pid's status, or -1. */
static int
tracer_of(pid_t pid)
{
	char path[64], *text, *p;
	int tracer = -1;

	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)pid);
	text = tu_read_file(path, NULL);
	if ((p = strstr(text, "TracerPid:")) != NULL)
		tracer = atoi(p + strlen("TracerPid:"));
	free(text);
	return (tracer);
}

/* Wait (bounded) until pid's TracerPid is want (or, want < 0, not 0). */
static void
require_tracer(pid_t pid, int want)
{
	int t = -1;

	for (int i = 0; i < 400; i++) {
		t = tracer_of(pid);
		if (want < 0 ? t > 0 : t == want)
			return;
		(void) usleep(5000);
	}
	atf_tc_fail("TracerPid of %d is %d, want %d", (int)pid, t, want);
}

/* The target must be neither stopped nor traced. */
static void
require_free(pid_t pid)
{
	char st;

	require_tracer(pid, 0);
	st = tu_proc_state(pid);
	ATF_REQUIRE_MSG(st != 'T' && st != 't' && st != 0,
	    "target %d is in state %c", (int)pid, st ? st : '?');
}

/* ------------------------------------------------------------------ */
/* Every pr_* call against the target's own view. */

static void
compare_stat(struct ps_prochandle *P, const mfd_t *f)
{
	struct stat st;

	ATF_REQUIRE_EQ_MSG(pr_fstat(P, f->fd, &st), 0, "pr_fstat %d: %s",
	    f->fd, strerror(errno));
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_dev, f->dev, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_ino, f->ino, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG(st.st_mode, f->mode, "fd %d", f->fd);
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_nlink, f->nlink, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG(st.st_uid, f->uid, "fd %d", f->fd);
	ATF_CHECK_EQ_MSG(st.st_gid, f->gid, "fd %d", f->fd);
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_rdev, f->rdev, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG((long long)st.st_size, f->size, "fd %d", f->fd);
}

static void
compare_fcntl_lseek(struct ps_prochandle *P, const mfd_t *f)
{
	off_t off;

	ATF_CHECK_EQ_MSG(pr_fcntl(P, f->fd, F_GETFL, NULL), f->getfl,
	    "F_GETFL of fd %d", f->fd);
	ATF_CHECK_EQ_MSG(pr_fcntl(P, f->fd, F_GETFD, NULL), f->getfd,
	    "F_GETFD of fd %d", f->fd);
	errno = 0;
	off = pr_lseek(P, f->fd, 0, SEEK_CUR);
	if (f->off_err != 0) {
		ATF_CHECK_EQ_MSG(off, -1, "lseek of fd %d", f->fd);
		ATF_CHECK_EQ_MSG(errno, f->off_err, "lseek errno of fd %d",
		    f->fd);
	} else {
		ATF_CHECK_EQ_MSG(off, f->offset, "offset of fd %d", f->fd);
	}
	if (f->have_lk) {
		struct flock fl;

		memset(&fl, 0, sizeof (fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		ATF_REQUIRE_EQ(pr_fcntl(P, f->fd, F_GETLK, &fl), 0);
		ATF_CHECK_EQ(fl.l_type, f->lk_type);
		ATF_CHECK_EQ(fl.l_start, f->lk_start);
		ATF_CHECK_EQ(fl.l_len, f->lk_len);
		ATF_CHECK_EQ(fl.l_pid, f->lk_pid);
	}
}

static void
compare_socket(struct ps_prochandle *P, const mfd_t *f)
{
	uint8_t buf[128];
	socklen_t slen;
	int len, r;

	for (int i = 0; i < f->nopts; i++) {
		const mopt_t *o = &f->opts[i];

		len = 64;
		memset(buf, 0xee, sizeof (buf));
		errno = 0;
		r = pr_getsockopt(P, f->fd, o->level, o->name, buf, &len);
		if (o->err != 0) {
			ATF_CHECK_EQ_MSG(r, -1, "fd %d opt %d/%d", f->fd,
			    o->level, o->name);
			ATF_CHECK_EQ_MSG(errno, o->err, "fd %d opt %d/%d",
			    f->fd, o->level, o->name);
			continue;
		}
		ATF_CHECK_EQ_MSG(r, 0, "fd %d opt %d/%d: %s", f->fd, o->level,
		    o->name, strerror(errno));
		ATF_CHECK_EQ_MSG((size_t)len, o->len, "fd %d opt %d/%d",
		    f->fd, o->level, o->name);
		ATF_CHECK_MSG(memcmp(buf, o->val, o->len) == 0,
		    "fd %d opt %d/%d: another value", f->fd, o->level,
		    o->name);
	}

	slen = sizeof (buf);
	errno = 0;
	r = pr_getsockname(P, f->fd, (struct sockaddr *)buf, &slen);
	ATF_CHECK_EQ_MSG(r, f->sn_err ? -1 : 0, "getsockname of fd %d", f->fd);
	if (f->sn_err != 0)
		ATF_CHECK_EQ(errno, f->sn_err);
	else
		ATF_CHECK_MSG(slen == f->sn_len &&
		    memcmp(buf, f->sn, slen) == 0, "sockname of fd %d", f->fd);

	slen = sizeof (buf);
	errno = 0;
	r = pr_getpeername(P, f->fd, (struct sockaddr *)buf, &slen);
	ATF_CHECK_EQ_MSG(r, f->pn_err ? -1 : 0, "getpeername of fd %d", f->fd);
	if (f->pn_err != 0)
		ATF_CHECK_EQ(errno, f->pn_err);
	else
		ATF_CHECK_MSG(slen == f->pn_len &&
		    memcmp(buf, f->pn, slen) == 0, "peername of fd %d", f->fd);
}

static void
compare_all(struct ps_prochandle *P, const manifest_t *m)
{
	int sockets = 0;

	for (int i = 0; i < m->nrl; i++) {
		struct rlimit rl;

		ATF_REQUIRE_EQ(pr_getrlimit(P, m->rl[i].res, &rl), 0);
		ATF_CHECK_EQ((unsigned long long)rl.rlim_cur, m->rl[i].cur);
		ATF_CHECK_EQ((unsigned long long)rl.rlim_max, m->rl[i].max);
	}
	for (int i = 0; i < m->nfds; i++) {
		const mfd_t *f = &m->fds[i];

		compare_stat(P, f);
		compare_fcntl_lseek(P, f);
		if (S_ISSOCK(f->mode)) {
			compare_socket(P, f);
			sockets++;
		}
	}
	ATF_REQUIRE_MSG(sockets >= 6, "only %d sockets in the manifest",
	    sockets);
}

static const mfd_t *
find_kind(const manifest_t *m, const char *kind)
{
	for (int i = 0; i < m->nfds; i++) {
		if (strcmp(m->fds[i].kind, kind) == 0)
			return (&m->fds[i]);
	}
	atf_tc_fail("no %s in the manifest", kind);
	return (NULL);
}

/* Another thread of the target answers while the main one is ours. */
static void
require_ping_port(int port)
{
	struct sockaddr_in sin;
	struct timeval tv = { 5, 0 };
	char buf[8];
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ATF_REQUIRE(s >= 0);
	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	ATF_REQUIRE(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv,
	    sizeof (tv)) == 0);
	ATF_REQUIRE(connect(s, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE_MSG(read(s, buf, 5) == 5 && memcmp(buf, "pong\n", 5) == 0,
	    "the target's other thread did not answer");
	(void) close(s);
}

/* pr_open and pr_close, seen from the target itself. */
static void
check_open_close(struct ps_prochandle *P, tu_child_t *c)
{
	char want[64], *l;
	int fd;

	create_agent(P);
	fd = pr_open(P, "/dev/null", O_RDONLY, 0);
	ATF_REQUIRE_MSG(fd >= 0, "pr_open: %s", strerror(errno));
	Pdestroy_agent(P);
	(void) snprintf(want, sizeof (want), "fdcheck %d", fd);
	send_line(c, want);
	l = tu_read_line(c->tc_out, LINE_MS);
	(void) snprintf(want, sizeof (want), "fd %d open /dev/null", fd);
	ATF_REQUIRE_STREQ(l, want);
	free(l);

	create_agent(P);
	ATF_REQUIRE_EQ(pr_close(P, fd), 0);
	errno = 0;
	ATF_REQUIRE_EQ(pr_close(P, fd), -1);
	ATF_REQUIRE_EQ(errno, EBADF);
	Pdestroy_agent(P);
	(void) snprintf(want, sizeof (want), "fdcheck %d", fd);
	send_line(c, want);
	l = tu_read_line(c->tc_out, LINE_MS);
	(void) snprintf(want, sizeof (want), "fd %d closed %d", fd, EBADF);
	ATF_REQUIRE_STREQ(l, want);
	free(l);
}

static void
check_pr_calls(int nthreads)
{
	struct ps_prochandle *P;
	const mfd_t *file, *sock;
	manifest_t m;
	struct flock fl;
	tu_child_t c;
	int lf, len, type;

	spawn_fds(&c, nthreads, &m);
	/* Hold a lock on the target's file, so that F_GETLK has an answer. */
	lf = open(m.file, O_RDWR);
	ATF_REQUIRE_MSG(lf >= 0, "open %s: %s", m.file, strerror(errno));
	memset(&fl, 0, sizeof (fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 2;
	fl.l_len = 3;
	ATF_REQUIRE(fcntl(lf, F_SETLK, &fl) == 0);
	free_manifest(&m);
	send_line(&c, "manifest");
	read_manifest(&c, &m);
	file = find_kind(&m, "file");
	ATF_REQUIRE_EQ(file->lk_pid, getpid());

	P = grab(m.pid);
	create_agent(P);
	require_tracer(m.pid, (int)getpid());
	if (nthreads > 0)
		require_ping_port(m.pingport);
	compare_all(P, &m);
	/* An offset moved by the agent is the target's own. */
	ATF_REQUIRE_EQ(pr_lseek(P, file->fd, 3, SEEK_SET), 3);
	Pdestroy_agent(P);
	require_free(m.pid);

	check_open_close(P, &c);

	/* Without an agent held, a pr_* call makes one for itself. */
	sock = find_kind(&m, "tcpclient");
	len = sizeof (type);
	ATF_REQUIRE_EQ(pr_getsockopt(P, sock->fd, SOL_SOCKET, SO_TYPE, &type,
	    &len), 0);
	ATF_CHECK_EQ(type, SOCK_STREAM);
	ATF_CHECK_EQ(len, sizeof (type));
	require_free(m.pid);
	Prelease(P, 0);

	require_pong(&c);
	free_manifest(&m);
	send_line(&c, "manifest");
	read_manifest(&c, &m);
	ATF_CHECK_EQ(find_kind(&m, "file")->offset, 3);
	ATF_CHECK_EQ(m.sigmask, 1ULL << (SIGUSR2 - 1));
	free_manifest(&m);
	stop_target(&c);
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

/* ------------------------------------------------------------------ */
/* Psyscall's errors, and the target unharmed. */

static void
require_einval(int rv, const char *what)
{
	int e = errno;

	ATF_CHECK_EQ_MSG(rv, -1, "%s: returned %d", what, rv);
	ATF_CHECK_EQ_MSG(e, EINVAL, "%s: errno %d", what, e);
}

/* The descriptions that cannot be run, with or without an agent. */
static void
check_bad_descriptions(struct ps_prochandle *P)
{
	static psyscall_t many[MARSHAL_MAXCALLS + 1];
	char name[MAXARGL + 1];
	socklen_t len = sizeof (name);
	argdes_t a[MAXARGS + 1];
	sysret_t rv;

	for (int i = 0; i <= MAXARGS; i++)
		argdes_byval(&a[i], 0);
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_getpid, MAXARGS + 1, a),
	    "nargs > MAXARGS");
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_getpid, 7, a), "nargs 7");

	argdes_byval(&a[0], 0);
	argdes_byref(&a[1], name, MAXARGL + 1, AI_OUTPUT);
	argdes_byref(&a[2], &len, sizeof (len), AI_INOUT);
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_getsockname, 3, a),
	    "arg_size > MAXARGL");

	argdes_byval(&a[0], AT_FDCWD);
	argdes_byref(&a[1], NULL, 10, AI_INPUT);
	argdes_byval(&a[2], O_RDONLY);
	errno = 0;
	require_einval(Psyscall(P, &rv, SYS_openat, 3, a),
	    "NULL by-reference input");

	for (int i = 0; i <= MARSHAL_MAXCALLS; i++)
		many[i].ps_sysindex = SYS_getpid;
	errno = 0;
	require_einval(Psyscall_batch(P, many, MARSHAL_MAXCALLS + 1),
	    "a batch too long");
	errno = 0;
	require_einval(Psyscall(NULL, &rv, SYS_getpid, 0, NULL),
	    "NULL handle");
}

ATF_TC_WITHOUT_HEAD(psyscall_errors);
ATF_TC_BODY(psyscall_errors, tc)
{
	struct ps_prochandle *P;
	manifest_t m, again;
	char *before;
	argdes_t a[2];
	sysret_t rv;
	tu_child_t c;

	spawn_fds(&c, 0, &m);
	before = m.text;
	P = grab(m.pid);

	/* Refused before any thread is borrowed. */
	check_bad_descriptions(P);
	ATF_CHECK(tracer_of(m.pid) == 0);

	create_agent(P);
	/* A call that fails in the target gives its errno. */
	argdes_byval(&a[0], 700);		/* below the target's rlimit, unused */
	argdes_byval(&a[1], F_GETFL);
	rv.sys_rval1 = 12345;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_fcntl, 2, a), EBADF);
	ATF_CHECK_EQ(rv.sys_rval1, -1);
	check_bad_descriptions(P);
	/* The agent still works after all that. */
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, m.pid);
	Pdestroy_agent(P);
	Prelease(P, 0);
	require_free(m.pid);

	/* Unharmed: it answers, and tells the same of itself. */
	require_pong(&c);
	send_line(&c, "manifest");
	read_manifest(&c, &again);
	tu_require_same_str("manifest", before, again.text);
	free_manifest(&again);
	free(before);
	stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* A thread blocked in a system call completes it after being examined. */

/* The number of the system call the main thread is in, or -2. */
static long
syscall_of(pid_t pid)
{
	char path[64], *text;
	long nr = -2;

	(void) snprintf(path, sizeof (path), "/proc/%d/syscall", (int)pid);
	text = tu_read_file(path, NULL);
	if (text[0] >= '0' && text[0] <= '9')
		nr = strtol(text, NULL, 10);
	free(text);
	return (nr);
}

static void
wait_in_syscall(pid_t pid, long nr, long alt)
{
	long now = -2;

	for (int i = 0; i < 1000; i++) {
		now = syscall_of(pid);
		if (now == nr || now == alt)
			return;
		(void) usleep(5000);
	}
	atf_tc_fail("the target is in system call %ld, not %ld", now, nr);
}

/* Examine the blocked target: a batch, with its results checked. */
static void
examine(pid_t pid)
{
	struct ps_prochandle *P = grab(pid);
	int type = -1, len = sizeof (type);
	argdes_t a[3][5];
	psyscall_t c[3];

	memset(c, 0, sizeof (c));
	c[0].ps_sysindex = SYS_getpid;
	argdes_byval(&a[1][0], 0);
	argdes_byval(&a[1][1], F_GETFL);
	c[1].ps_sysindex = SYS_fcntl;
	c[1].ps_nargs = 2;
	c[1].ps_argp = a[1];
	argdes_byval(&a[2][0], 1);		/* stdout: a pipe, not a socket */
	argdes_byval(&a[2][1], SOL_SOCKET);
	argdes_byval(&a[2][2], SO_TYPE);
	argdes_byref(&a[2][3], &type, sizeof (type), AI_OUTPUT);
	argdes_byref(&a[2][4], &len, sizeof (len), AI_INOUT);
	c[2].ps_sysindex = SYS_getsockopt;
	c[2].ps_nargs = 5;
	c[2].ps_argp = a[2];

	create_agent(P);
	for (int k = 0; k < 3; k++) {
		ATF_REQUIRE_EQ_MSG(Psyscall_batch(P, c, 3), 0, "%s",
		    Pagent_error());
		ATF_CHECK_EQ(c[0].ps_rval.sys_rval1, pid);
		ATF_CHECK_EQ(c[1].ps_errno, 0);
		ATF_CHECK_EQ(c[2].ps_errno, ENOTSOCK);
	}
	Pdestroy_agent(P);
	Prelease(P, 0);
	require_free(pid);
}

typedef struct blocked {
	tu_child_t	b_c;
	pid_t		b_pid;
	int		b_port;
	char		*b_result;
} blocked_t;

static void
block_and_examine(blocked_t *b, const char *call, long nr, long restart_nr)
{
	const char *argv[] = { TARGET, "block", call, NULL };
	char *l;

	tu_spawn(&b->b_c, argv, 0);
	b->b_pid = b->b_c.tc_pid;
	l = tu_read_line(b->b_c.tc_out, LINE_MS);
	ATF_REQUIRE_MSG(l != NULL && strncmp(l, "ready", 5) == 0,
	    "the target said '%s'", l ? l : "(nothing)");
	b->b_port = atoi(l + 5);
	free(l);
	wait_in_syscall(b->b_pid, nr, -1);
	(void) usleep(200000);	/* well inside the call */
	examine(b->b_pid);
	/* Back in the call (nanosleep: in restart_syscall), not out of it. */
	wait_in_syscall(b->b_pid, nr, restart_nr);
}

static void
finish_blocked(blocked_t *b)
{
	int st;

	b->b_result = tu_read_line(b->b_c.tc_out, LINE_MS);
	ATF_REQUIRE_MSG(b->b_result != NULL, "the target said nothing");
	st = tu_stop(&b->b_c, LINE_MS);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "target status 0x%x", st);
}

ATF_TC_WITHOUT_HEAD(blocked_accept);
ATF_TC_BODY(blocked_accept, tc)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	char want[64];
	blocked_t b;
	int s;

	block_and_examine(&b, "accept", SYS_accept, -1);
	/* The accept still accepts a later connection: this one. */
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)b.b_port);
	ATF_REQUIRE(connect(s, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE(getsockname(s, (struct sockaddr *)&sin, &len) == 0);
	finish_blocked(&b);
	(void) snprintf(want, sizeof (want), "errno=0 port=%d",
	    ntohs(sin.sin_port));
	ATF_CHECK_MSG(strstr(b.b_result, want) != NULL &&
	    strncmp(b.b_result, "result ret=-", 12) != 0,
	    "accept ended with: %s", b.b_result);
	(void) close(s);
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_read);
ATF_TC_BODY(blocked_read, tc)
{
	blocked_t b;

	block_and_examine(&b, "read", SYS_read, -1);
	send_line(&b.b_c, "hello");
	finish_blocked(&b);
	ATF_CHECK_STREQ(b.b_result, "result ret=6 errno=0 data=hello");
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_epoll_wait);
ATF_TC_BODY(blocked_epoll_wait, tc)
{
	blocked_t b;

	block_and_examine(&b, "epoll", SYS_epoll_wait, -1);
	send_line(&b.b_c, "x");
	finish_blocked(&b);
	ATF_CHECK_STREQ(b.b_result, "result ret=1 errno=0 fd=0");
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_nanosleep);
ATF_TC_BODY(blocked_nanosleep, tc)
{
	long ms;
	blocked_t b;

	block_and_examine(&b, "nanosleep", SYS_nanosleep, SYS_restart_syscall);
	finish_blocked(&b);
	ATF_REQUIRE_MSG(sscanf(b.b_result, "result ret=0 errno=0 elapsed_ms=%ld",
	    &ms) == 1, "nanosleep ended with: %s", b.b_result);
	/*
	 * The full 2 s, measured in the target; restarted from scratch after
	 * the examination (>= 200 ms in) it would be 2.2 s or more.
	 */
	ATF_CHECK_MSG(ms >= 2000 && ms < 2150, "slept %ld ms, not 2000", ms);
	free(b.b_result);
}

ATF_TC_WITHOUT_HEAD(blocked_futex);
ATF_TC_BODY(blocked_futex, tc)
{
	blocked_t b;

	block_and_examine(&b, "futex", SYS_futex, -1);
	send_line(&b.b_c, "wake");
	finish_blocked(&b);
	/* One wait, ended by the wake: no spurious return, no EINTR. */
	ATF_CHECK_STREQ(b.b_result, "result ret=0 errno=0 word=1 waits=1");
	free(b.b_result);
}

/* ------------------------------------------------------------------ */
/* The I/O budget: reads and writes of /proc/PID/mem per batch. */

typedef struct phase_count {
	char	name[16];
	int	reads, writes, proc_opens;
} phase_count_t;

/*
 * Count, per phase of agent_driver's run, the reads and writes of
 * /proc/PID/mem in strace's log (-y shows each fd's path), and the
 * opens of any other file of /proc/PID.
 */
static int
count_phases(const char *log, pid_t pid, phase_count_t *ph, int max,
    int *peekpoke)
{
	char mem[64], procdir[64];
	const char *p = log;
	int n = 1;

	(void) snprintf(mem, sizeof (mem), "/proc/%d/mem>", (int)pid);
	(void) snprintf(procdir, sizeof (procdir), "/proc/%d/", (int)pid);
	memset(ph, 0, sizeof (*ph) * (size_t)max);
	(void) snprintf(ph[0].name, sizeof (ph[0].name), "create");
	*peekpoke = 0;
	while (*p != '\0') {
		const char *nl = strchr(p, '\n'), *q;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[1024];

		if (len >= sizeof (line))
			len = sizeof (line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl != NULL);
		if ((q = strstr(line, "\"phase ")) != NULL && n < max) {
			(void) sscanf(q + 7, "%15[a-z]", ph[n].name);
			n++;
			continue;
		}
		if (strstr(line, "PTRACE_PEEK") || strstr(line, "PTRACE_POKE") ||
		    strstr(line, "process_vm_"))
			(*peekpoke)++;
		if (strstr(line, mem) != NULL) {
			if (strstr(line, " pread64(") || strstr(line, " preadv"))
				ph[n - 1].reads++;
			if (strstr(line, " pwrite64(") ||
			    strstr(line, " pwritev"))
				ph[n - 1].writes++;
		} else if (strstr(line, " openat(") &&
		    strstr(line, procdir) != NULL) {
			ph[n - 1].proc_opens++;
		}
	}
	return (n);
}

static const phase_count_t *
phase_named(const phase_count_t *ph, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(ph[i].name, name) == 0)
			return (&ph[i]);
	}
	atf_tc_fail("no phase %s in strace's log", name);
	return (NULL);
}

ATF_TC(io_budget);
ATF_TC_HEAD(io_budget, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "At most one pwrite and one pread of "
	    "/proc/PID/mem per batch, none where nothing goes that way");
}
ATF_TC_BODY(io_budget, tc)
{
	static const struct { const char *name; int reads, writes; } want[] = {
		{ "sockets", 5, 5 },	/* 5 batches with outputs */
		{ "inputs", 0, 1 },	/* inputs only: no read */
		{ "byval", 0, 0 },	/* nothing by reference */
		{ "bigin", 0, 1 },	/* through a private mapping */
		{ "bigout", 1, 1 },
		{ "done", 0, 0 },
	};
	phase_count_t ph[8];
	char pidarg[16], fdarg[16], *log;
	tu_result_t r;
	manifest_t m;
	tu_child_t c;
	int n, peekpoke;

	spawn_fds(&c, 0, &m);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)m.pid);
	(void) snprintf(fdarg, sizeof (fdarg), "%d",
	    find_kind(&m, "tcpclient")->fd);
	{
		const char *argv[] = { "strace", "-f", "-qq", "-y", "-o",
		    "strace.log", "-e", "trace=pread64,pwrite64,preadv,"
		    "pwritev,preadv2,pwritev2,process_vm_readv,"
		    "process_vm_writev,ptrace,openat,write", DRIVER, "count",
		    pidarg, fdarg, "5", NULL };

		/* LeakSanitizer (SANITIZE=1) cannot work under strace. */
		const char *env[] = { "ASAN_OPTIONS=detect_leaks=0", NULL };

		tu_run(argv, env, 60000, &r);
	}
	tu_require_exit("agent_driver count", &r, 0);
	ATF_REQUIRE_STREQ(r.tr_out, "ok\n");
	tu_result_free(&r);

	log = tu_read_file("strace.log", NULL);
	n = count_phases(log, m.pid, ph, 8, &peekpoke);
	printf("phase     preads  pwrites  /proc opens   (of /proc/%d/mem)\n",
	    (int)m.pid);
	for (int i = 0; i < n; i++)
		printf("%-8s  %6d  %7d  %11d\n", ph[i].name, ph[i].reads,
		    ph[i].writes, ph[i].proc_opens);
	for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
		const phase_count_t *p = phase_named(ph, n, want[i].name);

		ATF_CHECK_EQ_MSG(p->reads, want[i].reads, "preads in %s",
		    p->name);
		ATF_CHECK_EQ_MSG(p->writes, want[i].writes, "pwrites in %s",
		    p->name);
		ATF_CHECK_EQ_MSG(p->proc_opens, 0, "/proc opens in %s",
		    p->name);
	}
	/*
	 * Creating the agent: no code written (the driver's pr_fstat and
	 * pr_getsockname are the 2 writes), the syscall instruction
	 * confirmed with a read or so.
	 */
	ATF_CHECK_EQ(ph[0].writes, 2);
	ATF_CHECK(ph[0].reads >= 2 && ph[0].reads <= 5);
	ATF_CHECK_EQ_MSG(peekpoke, 0, "ptrace PEEK/POKE or process_vm_*");
	free(log);
	free_manifest(&m);
	stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* Errors of the borrowing itself. */

ATF_TC(traced_by_another);
ATF_TC_HEAD(traced_by_another, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
}
ATF_TC_BODY(traced_by_another, tc)
{
	struct ps_prochandle *P;
	char pidarg[16], want[64];
	tu_child_t c, s;
	manifest_t m;
	sysret_t rv;

	spawn_fds(&c, 0, &m);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)m.pid);
	{
		const char *argv[] = { "strace", "-qq", "-o", "/dev/null",
		    "-p", pidarg, NULL };

		tu_spawn(&s, argv, TU_STDERR_NULL);
	}
	require_tracer(m.pid, s.tc_pid);
	P = grab(m.pid);
	errno = 0;
	ATF_CHECK_EQ(Pcreate_agent(P), -1);
	ATF_CHECK_EQ(errno, EBUSY);
	(void) snprintf(want, sizeof (want), "process is already traced by "
	    "pid %d", (int)s.tc_pid);
	ATF_CHECK_STREQ(Pagent_error(), want);
	errno = 0;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), -1);
	ATF_CHECK_EQ(errno, EBUSY);

	(void) kill(s.tc_pid, SIGTERM);
	(void) tu_stop(&s, LINE_MS);
	require_tracer(m.pid, 0);
	/* The tracer gone, the same handle may borrow. */
	create_agent(P);
	Pdestroy_agent(P);
	Prelease(P, 0);
	require_pong(&c);
	free_manifest(&m);
	stop_target(&c);
}

ATF_TC_WITHOUT_HEAD(lifecycle);
ATF_TC_BODY(lifecycle, tc)
{
	struct ps_prochandle *P, *self;
	manifest_t m;
	tu_child_t c;
	sysret_t rv;
	int gerr;

	spawn_fds(&c, 0, &m);
	P = grab(m.pid);
	create_agent(P);
	create_agent(P);		/* already held: nothing more */
	require_tracer(m.pid, (int)getpid());
	Pdestroy_agent(P);
	require_free(m.pid);
	Pdestroy_agent(P);		/* none held: nothing */

	/* Prelease gives back an agent still held. */
	create_agent(P);
	Prelease(P, 0);
	require_free(m.pid);

	/* Prelease_agents (for signal handlers) gives every thread back. */
	P = grab(m.pid);
	create_agent(P);
	Prelease_agents();
	require_free(m.pid);
	errno = 0;
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), -1);
	ATF_CHECK_EQ(errno, ESRCH);
	Pdestroy_agent(P);
	create_agent(P);		/* and a new one can be made */
	ATF_CHECK_EQ(Psyscall(P, &rv, SYS_getpid, 0, NULL), 0);
	ATF_CHECK_EQ(rv.sys_rval1, m.pid);
	Prelease(P, 0);
	require_free(m.pid);

	/* Not a thread of ourselves. */
	self = Pgrab(getpid(), 0, &gerr);
	ATF_REQUIRE(self != NULL);
	errno = 0;
	ATF_CHECK_EQ(Pcreate_agent(self), -1);
	ATF_CHECK_EQ(errno, EINVAL);
	Prelease(self, 0);

	require_pong(&c);
	free_manifest(&m);
	stop_target(&c);
}

/*
 * A process stopped by SIGSTOP can be examined, and is left stopped: the
 * borrowed thread goes back into the group stop when it is given back.
 */
ATF_TC_WITHOUT_HEAD(stopped_target);
ATF_TC_BODY(stopped_target, tc)
{
	struct ps_prochandle *P;
	const mfd_t *f;
	manifest_t m;
	tu_child_t c;
	char st = 0;

	spawn_fds(&c, 2, &m);
	ATF_REQUIRE(kill(m.pid, SIGSTOP) == 0);
	for (int i = 0; i < 400 && (st = tu_proc_state(m.pid)) != 'T'; i++)
		(void) usleep(5000);
	ATF_REQUIRE_EQ_MSG(st, 'T', "state %c", st);
	P = grab(m.pid);
	create_agent(P);
	f = find_kind(&m, "tcpclient");
	compare_stat(P, f);
	compare_fcntl_lseek(P, f);
	compare_socket(P, f);
	Pdestroy_agent(P);
	Prelease(P, 0);
	require_tracer(m.pid, 0);
	for (int i = 0; i < 400 && (st = tu_proc_state(m.pid)) != 'T'; i++)
		(void) usleep(5000);
	ATF_CHECK_EQ_MSG(st, 'T', "no longer stopped: state %c", st);
	ATF_REQUIRE(kill(m.pid, SIGCONT) == 0);
	require_pong(&c);
	require_ping_port(m.pingport);
	free_manifest(&m);
	stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* The target dies during a batch. */

static void *
killer(void *arg)
{
	pid_t pid = *(pid_t *)arg;

	(void) usleep(30000);
	(void) kill(pid, SIGKILL);
	return (NULL);
}

ATF_TC_WITHOUT_HEAD(target_killed_during_batch);
ATF_TC_BODY(target_killed_during_batch, tc)
{
	static psyscall_t calls[MARSHAL_MAXCALLS];
	static argdes_t args[MARSHAL_MAXCALLS][2];
	static struct stat st[MARSHAL_MAXCALLS];
	struct ps_prochandle *P;
	struct timespec t0, t1;
	pthread_t t;
	manifest_t m;
	tu_child_t c;
	int rv = 0, batches = 0, st_;
	long ms;

	spawn_fds(&c, 2, &m);
	for (int i = 0; i < MARSHAL_MAXCALLS; i++) {
		argdes_byval(&args[i][0], i % 16);
		argdes_byref(&args[i][1], &st[i], sizeof (st[i]), AI_OUTPUT);
		calls[i].ps_sysindex = SYS_fstat;
		calls[i].ps_nargs = 2;
		calls[i].ps_argp = args[i];
	}
	P = grab(m.pid);
	create_agent(P);
	(void) clock_gettime(CLOCK_MONOTONIC, &t0);
	ATF_REQUIRE(pthread_create(&t, NULL, killer, &m.pid) == 0);
	for (batches = 0; batches < 100000; batches++) {
		if ((rv = Psyscall_batch(P, calls, MARSHAL_MAXCALLS)) != 0)
			break;
	}
	(void) clock_gettime(CLOCK_MONOTONIC, &t1);
	ATF_REQUIRE(pthread_join(t, NULL) == 0);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000;
	printf("%d batches, then: %s (%ld ms)\n", batches, Pagent_error(), ms);
	ATF_REQUIRE_EQ_MSG(rv, -1, "the batches went on after the kill");
	ATF_CHECK_EQ(errno, ESRCH);
	ATF_CHECK_STREQ(Pagent_error(), "no such process");
	ATF_CHECK_MSG(ms < 5000, "took %ld ms to notice", ms);
	Pdestroy_agent(P);
	Prelease(P, 0);
	(void) unlink(m.file);	/* it had no chance to */
	st_ = tu_stop(&c, LINE_MS);
	/* Reaped by the agent's wait, or here: either way not alive. */
	ATF_CHECK(st_ == 0 || (WIFSIGNALED(st_) && WTERMSIG(st_) == SIGKILL));
	ATF_CHECK_EQ(tu_proc_state(m.pid), 0);
	free_manifest(&m);
}

/* ------------------------------------------------------------------ */
/* The controlling process is killed while the agent is out. */

ATF_TC_WITHOUT_HEAD(controller_signalled);
ATF_TC_BODY(controller_signalled, tc)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	char pidarg[16], *l;
	manifest_t m, again;
	tu_child_t c, d;
	int st;

	spawn_fds(&c, 2, &m);
	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)m.pid);
	srandom((unsigned)getpid());
	for (int i = 0; i < 12; i++) {
		const char *argv[] = { DRIVER, "loop", pidarg, "30", NULL };
		int sig = sigs[i % 3];

		tu_spawn(&d, argv, 0);
		l = tu_read_line(d.tc_out, LINE_MS);
		ATF_REQUIRE_MSG(l != NULL && strcmp(l, "looping") == 0,
		    "driver: %s", l ? l : "(nothing)");
		free(l);
		(void) usleep((useconds_t)(random() % 20000));
		(void) kill(d.tc_pid, sig);
		st = tu_stop(&d, LINE_MS);
		ATF_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sig,
		    "round %d: the driver ended with status 0x%x, not by "
		    "signal %d", i, st, sig);
		/* The thread is given back, unstopped, and serves again. */
		require_free(m.pid);
		require_ping_port(m.pingport);
		require_pong(&c);
	}
	/* Its own view of itself is what it was. */
	send_line(&c, "manifest");
	read_manifest(&c, &again);
	tu_require_same_str("manifest", m.text, again.text);
	free_manifest(&again);
	free_manifest(&m);
	stop_target(&c);
}

/* ------------------------------------------------------------------ */
/* With a NULL handle, pr_* act on the calling process. */

ATF_TC_WITHOUT_HEAD(null_handle);
ATF_TC_BODY(null_handle, tc)
{
	struct sockaddr_storage ss, ss2;
	socklen_t sl = sizeof (ss), sl2 = sizeof (ss2);
	struct stat st, st2;
	struct rlimit rl, rl2;
	int sv[2], v, len = sizeof (v), fd;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
	ATF_CHECK_EQ(pr_getsockopt(NULL, sv[0], SOL_SOCKET, SO_TYPE, &v,
	    &len), 0);
	ATF_CHECK_EQ(v, SOCK_DGRAM);
	ATF_CHECK_EQ(len, sizeof (v));
	ATF_CHECK_EQ(pr_getsockname(NULL, sv[0], (struct sockaddr *)&ss,
	    &sl), 0);
	ATF_CHECK_EQ(getsockname(sv[0], (struct sockaddr *)&ss2, &sl2), 0);
	ATF_CHECK(sl == sl2 && memcmp(&ss, &ss2, sl) == 0);
	ATF_CHECK_EQ(pr_getpeername(NULL, sv[0], (struct sockaddr *)&ss,
	    &sl), 0);
	ATF_CHECK_EQ(pr_fstat(NULL, sv[1], &st), 0);
	ATF_CHECK_EQ(fstat(sv[1], &st2), 0);
	ATF_CHECK_EQ(st.st_ino, st2.st_ino);
	ATF_CHECK_EQ(pr_fcntl(NULL, sv[1], F_GETFL, NULL),
	    fcntl(sv[1], F_GETFL));
	ATF_CHECK_EQ(pr_fcntl(NULL, sv[1], F_SETFD, (void *)(long)FD_CLOEXEC),
	    0);
	ATF_CHECK_EQ(fcntl(sv[1], F_GETFD), FD_CLOEXEC);
	ATF_CHECK_EQ(pr_getrlimit(NULL, RLIMIT_NOFILE, &rl), 0);
	ATF_CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl2), 0);
	ATF_CHECK_EQ(rl.rlim_cur, rl2.rlim_cur);
	fd = pr_open(NULL, "/dev/null", O_RDONLY, 0);
	ATF_REQUIRE(fd >= 0);
	ATF_CHECK_EQ(pr_lseek(NULL, fd, 0, SEEK_CUR), 0);
	ATF_CHECK_EQ(pr_close(NULL, fd), 0);
	errno = 0;
	ATF_CHECK_EQ(pr_close(NULL, fd), -1);
	ATF_CHECK_EQ(errno, EBADF);
	(void) close(sv[0]);
	(void) close(sv[1]);
}

/* ------------------------------------------------------------------ */
/*
 * pfiles --via=agent: the target passes its sockets to pfiles over
 * SCM_RIGHTS (sock_agent_pass.c), and the per-socket batch serves where
 * passing cannot.  Either way pfiles must print what --via=pidfd prints
 * (itself checked against the fixture's own view in t_pfiles_fixture),
 * and leave the target with exactly its fds and mappings.
 */

#define	PASS_STRACE	"pass.strace"

/* The target as pfiles must leave it: its fds, its number of mappings. */
typedef struct target_view {
	char	*tv_fds;	/* "0 1 2 ...", increasing */
	int	tv_nfds;
	int	tv_nsock;	/* fds that are sockets */
	int	tv_maps;	/* lines of /proc/PID/maps */
} target_view_t;

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

static void
view_target(pid_t pid, target_view_t *tv)
{
	char path[64], link[64], *text, *p;
	struct dirent *de;
	size_t n = 0, cap = 256, len = 0;
	int *fds = malloc(cap * sizeof (int));
	DIR *d;

	ATF_REQUIRE(fds != NULL);
	memset(tv, 0, sizeof (*tv));
	(void) snprintf(path, sizeof (path), "/proc/%d/fd", (int)pid);
	ATF_REQUIRE_MSG((d = opendir(path)) != NULL, "opendir %s", path);
	while ((de = readdir(d)) != NULL) {
		char lpath[sizeof (path) + sizeof (de->d_name) + 1];
		ssize_t ll;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap *= 2;
			ATF_REQUIRE((fds = realloc(fds, cap * sizeof (int))) !=
			    NULL);
		}
		fds[n++] = atoi(de->d_name);
		(void) snprintf(lpath, sizeof (lpath), "%s/%s", path,
		    de->d_name);
		ll = readlink(lpath, link, sizeof (link) - 1);
		if (ll > 0 && strncmp(link, "socket:[", 8) == 0)
			tv->tv_nsock++;
	}
	(void) closedir(d);
	qsort(fds, n, sizeof (int), cmp_int);
	tv->tv_nfds = (int)n;
	ATF_REQUIRE((tv->tv_fds = malloc(n * 12 + 1)) != NULL);
	tv->tv_fds[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(tv->tv_fds + len, "%d ", fds[i]);
	free(fds);

	(void) snprintf(path, sizeof (path), "/proc/%d/maps", (int)pid);
	text = tu_read_file(path, NULL);
	for (p = text; *p != '\0'; p++)
		tv->tv_maps += *p == '\n';
	free(text);
}

/* The target is as it was: the same fds, as many mappings, not held. */
static void
require_view(pid_t pid, const target_view_t *before, const char *when)
{
	target_view_t now;

	require_free(pid);
	view_target(pid, &now);
	ATF_CHECK_MSG(strcmp(before->tv_fds, now.tv_fds) == 0,
	    "%s: the target's fds changed:\n  before: %.300s\n  after:  "
	    "%.300s", when, before->tv_fds, now.tv_fds);
	ATF_CHECK_MSG(before->tv_maps == now.tv_maps, "%s: the target had "
	    "%d mappings, now %d", when, before->tv_maps, now.tv_maps);
	free(now.tv_fds);
}

/* Writes to /proc/PID/mem in strace's log. */
static int
count_mem_writes(pid_t pid)
{
	char *log = tu_read_file(PASS_STRACE, NULL), *mem, *p;
	int n = 0;

	mem = tu_asprintf("/proc/%d/mem>", (int)pid);
	for (p = log; (p = strstr(p, "pwrite64(")) != NULL; p++) {
		const char *nl = strchr(p, '\n');
		const char *m = strstr(p, mem);

		if (m != NULL && (nl == NULL || m < nl))
			n++;
	}
	free(mem);
	free(log);
	return (n);
}

/*
 * pfiles --via=VIA PID; it must exit 0 and say nothing on stderr.  With
 * pwrites, under strace: the writes to the target's memory.  Its stdout.
 */
static char *
run_pfiles(const char *via, pid_t pid, int *pwrites)
{
	char pidarg[16], viaarg[32], *out;
	tu_result_t r;

	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	(void) snprintf(viaarg, sizeof (viaarg), "--via=%s", via);
	if (pwrites != NULL) {
		const char *argv[] = { "strace", "-f", "-qq", "-y", "-o",
		    PASS_STRACE, "-e", "trace=pwrite64", TU_PFILES, viaarg,
		    pidarg, NULL };
		/* LeakSanitizer (SANITIZE=1) cannot work under strace. */
		const char *env[] = { "ASAN_OPTIONS=detect_leaks=0", NULL };

		tu_run(argv, env, TU_TIMEOUT_MS, &r);
	} else {
		const char *argv[] = { TU_PFILES, viaarg, pidarg, NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	}
	tu_require_exit("pfiles", &r, 0);
	ATF_CHECK_MSG(r.tr_errlen == 0, "pfiles %s said: %s", viaarg,
	    r.tr_err);
	if (pwrites != NULL)
		*pwrites = count_mem_writes(pid);
	out = r.tr_out;
	r.tr_out = NULL;
	tu_result_free(&r);
	return (out);
}

/*
 * pfiles --via=agent prints what --via=pidfd prints, and leaves the
 * target as it was; the writes to its memory it made.
 */
static int
agent_same_as_pidfd(const char *what, pid_t pid)
{
	target_view_t before;
	char *pidfd, *agent;
	int pwrites = -1;

	view_target(pid, &before);
	pidfd = run_pfiles("pidfd", pid, NULL);
	agent = run_pfiles("agent", pid, &pwrites);
	tu_require_same_text(what, pidfd, strlen(pidfd), agent,
	    strlen(agent));
	require_view(pid, &before, what);
	printf("%s: %d sockets, %d writes to the target's memory\n", what,
	    before.tv_nsock, pwrites);
	free(pidfd);
	free(agent);
	free(before.tv_fds);
	return (pwrites);
}

/* Start sockfix (argv) and read its manifest up to "end"; its pid. */
static pid_t
start_sockfix(tu_child_t *c, const char *const argv[])
{
	char *text, *p;
	int found;
	pid_t pid;

	tu_spawn(c, argv, TU_STDERR_NULL);
	text = tu_read_until(c->tc_out, "end", TU_TIMEOUT_MS, &found);
	if (!found || (p = strstr(text, "\npid ")) == NULL) {
		free(text);
		(void) tu_stop(c, LINE_MS);
		return (-1);
	}
	pid = (pid_t)atoi(p + 5);
	free(text);
	ATF_REQUIRE_EQ_MSG(pid, c->tc_pid, "sockfix says pid %d, is %d",
	    (int)pid, (int)c->tc_pid);
	return (pid);
}

static void
stop_sockfix(tu_child_t *c)
{
	int st = tu_stop(c, LINE_MS);

	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "sockfix did not exit cleanly (status 0x%x)", st);
}

/* Start sockets.js with n connections; its pid. */
static pid_t
start_node(tu_child_t *c, const char *n)
{
	const char *argv[] = { "node", TU_SOCKETS_JS, n, "300", NULL };
	char *l;
	pid_t pid;

	tu_spawn(c, argv, 0);
	l = tu_read_line(c->tc_out, TU_TIMEOUT_MS);
	ATF_REQUIRE_MSG(l != NULL && strstr(l, "pid = ") != NULL,
	    "sockets.js: %s", l != NULL ? l : "(nothing)");
	pid = (pid_t)atoi(strstr(l, "pid = ") + 6);
	free(l);
	free(tu_read_line(c->tc_out, TU_TIMEOUT_MS));	/* its JSON */
	ATF_REQUIRE_EQ(pid, c->tc_pid);
	return (pid);
}

static void
stop_node(tu_child_t *c)
{
	int st = tu_stop(c, TU_TIMEOUT_MS);

	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "node did not exit cleanly (status 0x%x)", st);
}

ATF_TC(pass_sockfix);
ATF_TC_HEAD(pass_sockfix, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on every kind of "
	    "fd prints what --via=pidfd prints, its sockets passed in one "
	    "message (one write to the target's memory), the target intact");
}
ATF_TC_BODY(pass_sockfix, tc)
{
	const char *argv[] = { TU_SOCKFIX, "-s", "all", "-t", "120", NULL };
	tu_child_t c;
	pid_t pid;
	int pwrites;

	ATF_REQUIRE((pid = start_sockfix(&c, argv)) > 0);
	pwrites = agent_same_as_pidfd("sockfix-all", pid);
	ATF_CHECK_EQ_MSG(pwrites, 1, "%d writes to the target's memory: the "
	    "sockets were not passed in one message", pwrites);
	stop_sockfix(&c);
}

ATF_TC(pass_node);
ATF_TC_HEAD(pass_node, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on node with 300 "
	    "connections prints what --via=pidfd prints, with one write to "
	    "the target's memory per round (up to 1365 fds), the target "
	    "intact");
}
ATF_TC_BODY(pass_node, tc)
{
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites, most;

	pid = start_node(&c, "300");
	view_target(pid, &v);
	ATF_REQUIRE_MSG(v.tv_nsock >= 601, "node has %d sockets", v.tv_nsock);
	pwrites = agent_same_as_pidfd("node-300", pid);
	/*
	 * One round per getdents batch of the walk, which holds 1000 fds at
	 * least (32 KiB, at most 32 bytes an entry).
	 */
	most = v.tv_nfds / 1000 + 1;
	ATF_CHECK_MSG(pwrites >= 1 && pwrites <= most, "%d writes to the "
	    "target's memory for %d sockets (want 1 to %d)", pwrites,
	    v.tv_nsock, most);
	free(v.tv_fds);
	stop_node(&c);
}

/*
 * A target in another network namespace cannot reach pfiles' socket:
 * the per-socket batch serves every socket (one write each), silently.
 */
ATF_TC(pass_fallback_netns);
ATF_TC_HEAD(pass_fallback_netns, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace unshare");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "descr", "A target in another network "
	    "namespace: the per-socket batch serves, pfiles prints the same");
}
ATF_TC_BODY(pass_fallback_netns, tc)
{
	const char *argv[] = { "unshare", "-n", TU_SOCKFIX, "-s",
	    "unix,abstract,unnamed,socketpair,netlink,pipe,file", "-t", "120",
	    NULL };
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites;

	if ((pid = start_sockfix(&c, argv)) < 0)
		atf_tc_skip("unshare -n could not start sockfix here");
	view_target(pid, &v);
	pwrites = agent_same_as_pidfd("netns", pid);
	ATF_CHECK_EQ_MSG(pwrites, v.tv_nsock, "%d writes to the target's "
	    "memory for %d sockets: not one batch per socket", pwrites,
	    v.tv_nsock);
	free(v.tv_fds);
	stop_sockfix(&c);
}

/*
 * The target can open no fd (soft RLIMIT_NOFILE 0): its socket for
 * passing fails with EMFILE, and the per-socket batch serves.
 */
ATF_TC(pass_fallback_emfile);
ATF_TC_HEAD(pass_fallback_emfile, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "A target that can open no fd: the "
	    "per-socket batch serves, pfiles prints the same");
}
ATF_TC_BODY(pass_fallback_emfile, tc)
{
	const char *argv[] = { TU_SOCKFIX, "-s", "all", "-t", "120", NULL };
	struct rlimit rl, zero;
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites;

	ATF_REQUIRE((pid = start_sockfix(&c, argv)) > 0);
	ATF_REQUIRE(prlimit(pid, RLIMIT_NOFILE, NULL, &rl) == 0);
	zero = rl;
	zero.rlim_cur = 0;
	ATF_REQUIRE_MSG(prlimit(pid, RLIMIT_NOFILE, &zero, NULL) == 0,
	    "prlimit: %s", strerror(errno));
	view_target(pid, &v);
	pwrites = agent_same_as_pidfd("emfile", pid);
	ATF_CHECK_EQ_MSG(pwrites, v.tv_nsock, "%d writes to the target's "
	    "memory for %d sockets: not one batch per socket", pwrites,
	    v.tv_nsock);
	free(v.tv_fds);
	/* Its poll(2) of stdin needs the limit back (nfds <= it). */
	ATF_REQUIRE(prlimit(pid, RLIMIT_NOFILE, &rl, NULL) == 0);
	stop_sockfix(&c);
}

/*
 * pfiles' own fd limit is low: a message is cut short (MSG_CTRUNC), the
 * fds that arrived serve, and later messages are smaller; no socket is
 * lost or mixed up.
 */
ATF_TC(pass_short_of_fds);
ATF_TC_HEAD(pass_short_of_fds, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "node strace");
	atf_tc_set_md_var(tc, "descr", "pfiles with a soft fd limit of 64 on "
	    "node with 300 connections: messages cut short, the same output");
}
ATF_TC_BODY(pass_short_of_fds, tc)
{
	struct rlimit rl, low;
	target_view_t v;
	tu_child_t c;
	pid_t pid;
	int pwrites;

	pid = start_node(&c, "300");
	view_target(pid, &v);
	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	low = rl;
	low.rlim_cur = 64;		/* inherited by strace and pfiles */
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
	pwrites = agent_same_as_pidfd("node-300-fd64", pid);
	ATF_REQUIRE(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	/*
	 * One round (one write) passes 607 fds when nothing is cut short;
	 * here more rounds, but far fewer than sockets.
	 */
	ATF_CHECK_MSG(pwrites >= 2 && pwrites < v.tv_nsock / 4, "%d writes "
	    "to the target's memory for %d sockets", pwrites, v.tv_nsock);
	free(v.tv_fds);
	stop_node(&c);
}

/*
 * A child of ours holding 80 sockets and, among them, an io_uring fd,
 * which SCM_RIGHTS refuses (EINVAL): the message is split down to it,
 * and the sockets around it are still passed.
 */
#define	URING_PAIRS	40

static void
uring_child(int ready, int hold)
{
	struct { uint32_t a[10]; uint32_t rest[20]; } params;
	int sv[2];
	char b;

	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm(120);
	for (int i = 0; i < URING_PAIRS; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			_exit(1);
		if (i == URING_PAIRS / 2) {
			memset(&params, 0, sizeof (params));
			if (syscall(SYS_io_uring_setup, 4, &params) < 0) {
				b = 'n';
				(void) write(ready, &b, 1);
				_exit(0);
			}
		}
	}
	b = 'y';
	(void) write(ready, &b, 1);
	(void) read(hold, &b, 1);	/* end of file: the test is done */
	_exit(0);
}

ATF_TC(pass_unpassable_fd);
ATF_TC_HEAD(pass_unpassable_fd, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "strace");
	atf_tc_set_md_var(tc, "descr", "An fd that cannot be passed (io_uring) "
	    "among 80 sockets: split around, the same output");
}
ATF_TC_BODY(pass_unpassable_fd, tc)
{
	int rp[2], hp[2], pwrites, st;
	target_view_t v;
	char b = 0;
	pid_t pid;

	ATF_REQUIRE(pipe2(rp, O_CLOEXEC) == 0 && pipe2(hp, O_CLOEXEC) == 0);
	ATF_REQUIRE((pid = fork()) >= 0);
	if (pid == 0) {
		(void) close(rp[0]);
		(void) close(hp[1]);
		uring_child(rp[1], hp[0]);
	}
	(void) close(rp[1]);
	(void) close(hp[0]);
	{
		struct pollfd pfd = { rp[0], POLLIN, 0 };

		if (poll(&pfd, 1, LINE_MS) == 1)
			(void) read(rp[0], &b, 1);
	}
	if (b != 'y') {
		(void) kill(pid, SIGKILL);
		(void) waitpid(pid, &st, 0);
		if (b == 'n')
			atf_tc_skip("io_uring_setup is not available here");
		atf_tc_fail("the child did not get ready");
	}
	view_target(pid, &v);
	pwrites = agent_same_as_pidfd("uring", pid);
	ATF_CHECK_MSG(pwrites > 1 && pwrites < v.tv_nsock / 2, "%d writes "
	    "to the target's memory for %d sockets: not split around the "
	    "io_uring fd", pwrites, v.tv_nsock);
	free(v.tv_fds);
	(void) close(hp[1]);		/* the child's end of file */
	(void) close(rp[0]);
	ATF_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0);
}

/*
 * SIGTERM to pfiles at random moments of its walk: it dies by it, and
 * the target is left with exactly its fds and mappings, neither stopped
 * nor traced.
 */
static long
elapsed_us(const struct timespec *t0)
{
	struct timespec t1;

	(void) clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0->tv_sec) * 1000000 +
	    (t1.tv_nsec - t0->tv_nsec) / 1000);
}

/* Start pfiles --via=agent on pid, its stdout to /dev/null. */
static pid_t
spawn_pfiles_quiet(pid_t pid)
{
	char pidarg[16];
	pid_t child;
	int fd;

	(void) snprintf(pidarg, sizeof (pidarg), "%d", (int)pid);
	ATF_REQUIRE((child = fork()) >= 0);
	if (child == 0) {
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			(void) dup2(fd, 1);
		(void) execl(TU_PFILES, TU_PFILES, "--via=agent", pidarg,
		    (char *)NULL);
		_exit(127);
	}
	return (child);
}

/* Wait for child within ms, or kill it; its status. */
static int
wait_bounded(pid_t child, int ms)
{
	int st = 0;

	for (int i = 0; i < ms; i++) {
		if (waitpid(child, &st, WNOHANG) == child)
			return (st);
		(void) usleep(1000);
	}
	(void) kill(child, SIGKILL);
	(void) waitpid(child, &st, 0);
	atf_tc_fail("pfiles did not end within %d ms", ms);
	return (st);
}

ATF_TC(pass_sigterm);
ATF_TC_HEAD(pass_sigterm, tc)
{
	atf_tc_set_md_var(tc, "require.progs", "node");
	atf_tc_set_md_var(tc, "descr", "SIGTERM to pfiles --via=agent at "
	    "random moments on node with 1000 connections: the target keeps "
	    "exactly its fds and mappings");
}
ATF_TC_BODY(pass_sigterm, tc)
{
	struct timespec t0;
	target_view_t before;
	tu_child_t c;
	pid_t pid, pf;
	long walk_us;
	int st, killed = 0;

	pid = start_node(&c, "1000");
	view_target(pid, &before);

	/* How long a whole walk takes here. */
	(void) clock_gettime(CLOCK_MONOTONIC, &t0);
	pf = spawn_pfiles_quiet(pid);
	st = wait_bounded(pf, TU_TIMEOUT_MS);
	walk_us = elapsed_us(&t0);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "pfiles: status 0x%x", st);
	require_view(pid, &before, "a whole walk");

	srandom((unsigned)getpid());
	for (int i = 0; i < 16; i++) {
		char when[32];

		pf = spawn_pfiles_quiet(pid);
		(void) usleep((useconds_t)(random() % walk_us));
		(void) kill(pf, SIGTERM);
		st = wait_bounded(pf, TU_TIMEOUT_MS);
		ATF_CHECK_MSG((WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) ||
		    (WIFEXITED(st) && WEXITSTATUS(st) == 0), "round %d: "
		    "pfiles ended with status 0x%x", i, st);
		killed += WIFSIGNALED(st);
		(void) snprintf(when, sizeof (when), "round %d", i);
		require_view(pid, &before, when);
	}
	printf("a walk takes %ld us; %d of 16 runs were cut by SIGTERM\n",
	    walk_us, killed);
	ATF_CHECK_MSG(killed >= 4, "only %d of 16 runs were cut short: the "
	    "test did not test", killed);
	free(before.tv_fds);
	stop_node(&c);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pr_calls_single_thread);
	ATF_TP_ADD_TC(tp, pr_calls_multithreaded);
	ATF_TP_ADD_TC(tp, psyscall_errors);
	ATF_TP_ADD_TC(tp, blocked_accept);
	ATF_TP_ADD_TC(tp, blocked_read);
	ATF_TP_ADD_TC(tp, blocked_epoll_wait);
	ATF_TP_ADD_TC(tp, blocked_nanosleep);
	ATF_TP_ADD_TC(tp, blocked_futex);
	ATF_TP_ADD_TC(tp, io_budget);
	ATF_TP_ADD_TC(tp, traced_by_another);
	ATF_TP_ADD_TC(tp, lifecycle);
	ATF_TP_ADD_TC(tp, stopped_target);
	ATF_TP_ADD_TC(tp, target_killed_during_batch);
	ATF_TP_ADD_TC(tp, controller_signalled);
	ATF_TP_ADD_TC(tp, null_handle);
	ATF_TP_ADD_TC(tp, pass_sockfix);
	ATF_TP_ADD_TC(tp, pass_node);
	ATF_TP_ADD_TC(tp, pass_fallback_netns);
	ATF_TP_ADD_TC(tp, pass_fallback_emfile);
	ATF_TP_ADD_TC(tp, pass_short_of_fds);
	ATF_TP_ADD_TC(tp, pass_unpassable_fd);
	ATF_TP_ADD_TC(tp, pass_sigterm);
	return (atf_no_error());
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_shared: pfiles' "shared with:" lines (pfiles.1, "Socket lines"): the
 * other fds that hold the very same socket as the one shown.
 *
 * The holders are processes this test forks itself (no exec): a leader
 * ("sh-leader") and the children it forks.  Each, once its fd table is
 * final (every fd closed but the ones it keeps), writes its pid, its comm
 * (prctl PR_GET_NAME) and the pid, fd and fstat inode of each socket it
 * keeps on a board of shared memory made before the first fork, then
 * closes its end of the ready pipe; the test reads the board, once every
 * end is closed, into a view as atf/endpoint_util.h has them.  The lines
 * expected for a socket fd are computed from the view alone: every other
 * (pid, fd) on the same inode, the fd's own process first, then the
 * others by pid, then fd (pfiles.1: the order of the endpoint lines), at
 * most 8, then "shared with: and N more"; each comm through expect.c's
 * escaping (exp_escape, not pfiles').  The fd's own is never one of them;
 * a socket no other fd holds has no line.
 *
 *   - dup_same_process: a TCP listener dup'ed twice (once to fd 70) in the
 *     leader, and a socketpair it holds both ends of: each listener fd
 *     names the other two; the pair's ends, no line.
 *   - inherited_listener: a TCP listener inherited by two forked workers,
 *     the second of which dups it to fd 60 as well.
 *   - scm_rights: a unix listener made after the fork, sent over
 *     SCM_RIGHTS to a child with the comm "sh\x1bpass": each names the
 *     other (the comm escaped); the carrier pair's ends, no line.
 *   - more_than_8: a listener inherited by ten children: every holder has
 *     ten others, 8 lines and "shared with: and 2 more".
 *   Each of these with every source that serves here (--via=pidfd, agent,
 *   diag; bpf where it serves), in one run over every pid of the fixture
 *   (the run's index) and one run per pid (the pass of one walk).
 *   - no_endpoints: --no-endpoints prints no such line, with every source.
 *   - holder_gone_since_index: a worker that exits after the run's index
 *     was made (killed at the next process's stat of the listener's fd,
 *     atf/race_shim.c) is not named: its link is read again.
 *   - netns_not_entered: the holders in a network namespace that pfiles
 *     (uid 65534) may not enter: no endpoint line and stderr says why, but
 *     the shared lines, which need no socket table, are there.
 *   - json: -J's "shared_with" and "shared_with_more" are valid by the
 *     schema and say what the text says (json_check.py).
 */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <grp.h>

#include "endpoint_util.h"
#include "raceutil.h"

#define	SH_PROCS	MAX_PROCS	/* the view's room */
#define	SH_HOLDS	MAX_HOLDS
#define	SH_SECONDS	120
#define	SH_NMANY	10
#define	SH_DUP_FD	70
#define	SH_WORKER_FD	60
#define	PYTHON		"/usr/bin/python3"
#define	CHECKER		SRC_DIR "/atf/json_check.py"
#define	SCHEMA		SRC_DIR "/libproc-patch/pfiles/pfiles.schema.json"

typedef struct sh_hold {
	pid_t			h_pid;
	int			h_fd;
	unsigned long long	h_ino;
} sh_hold_t;

typedef struct sh_proc {
	pid_t		p_pid;
	char		p_comm[17];
} sh_proc_t;

/* Written by the fixture's processes, read by the test once all are set. */
typedef struct sh_board {
	atomic_int	b_nprocs;
	atomic_int	b_nholds;
	atomic_int	b_failed;
	char		b_why[256];
	sh_proc_t	b_procs[SH_PROCS];
	sh_hold_t	b_holds[SH_HOLDS];
} sh_board_t;

/* What a process of the fixture has of it. */
typedef struct sh_ctx {
	sh_board_t	*c_board;
	int		c_ctl;		/* read end: end of file, exit */
	int		c_ready;	/* write end: closed once registered */
	int		c_nobody;	/* become uid and gid 65534 */
} sh_ctx_t;

typedef void sh_mode_f(const sh_ctx_t *);

/* The test's side of a fixture: the board read into a view. */
typedef struct sh_fix {
	sh_board_t	*f_board;
	pid_t		f_leader;
	int		f_ctl;		/* write end */
	ep_view_t	f_view;
	char		f_pids[SH_PROCS][16];
	const char	*f_pidv[SH_PROCS + 1];
} sh_fix_t;

/* ------------------------------------------------------------------ */
/* The fixture's processes. */

static _Noreturn void
sh_die(const sh_ctx_t *c, const char *what)
{
	if (atomic_exchange(&c->c_board->b_failed, 1) == 0)
		(void) snprintf(c->c_board->b_why, sizeof (c->c_board->b_why),
		    "%d: %s: %s", (int)getpid(), what, strerror(errno));
	_exit(1);
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

/* Close every fd from 3 up but the n of keep. */
static void
sh_close_others(const sh_ctx_t *c, const int *keep, int n)
{
	int k[SH_HOLDS + 2], lo = 3;

	if (n > SH_HOLDS + 2) {
		errno = E2BIG;
		sh_die(c, "keep");
	}
	memcpy(k, keep, (size_t)n * sizeof (int));
	qsort(k, (size_t)n, sizeof (int), int_cmp);
	for (int i = 0; i < n; i++) {
		if (k[i] > lo)
			(void) syscall(SYS_close_range, (unsigned)lo,
			    (unsigned)k[i] - 1, 0U);
		if (k[i] >= lo)
			lo = k[i] + 1;
	}
	(void) syscall(SYS_close_range, (unsigned)lo, ~0U, 0U);
}

/* A process of the fixture starts: its death with its parent, its comm. */
static void
sh_begin(const sh_ctx_t *c, const char *comm)
{
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm(SH_SECONDS + 10);
	if (prctl(PR_SET_NAME, comm) != 0)
		sh_die(c, "PR_SET_NAME");
}

/* Become uid and gid 65534, dumpable again (its /proc readable). */
static void
sh_become_nobody(const sh_ctx_t *c)
{
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0 ||
	    prctl(PR_SET_DUMPABLE, 1) != 0)
		sh_die(c, "becoming 65534");
}

/*
 * The fd table is final but for the fixture's pipes: every fd closed but
 * the n sockets of keep; the process and its sockets on the board; ready
 * said; then wait for the end, and (the leader) reap the children.
 */
static _Noreturn void
sh_hold(const sh_ctx_t *c, const int *keep, int n)
{
	int k[SH_HOLDS + 2], slot;
	sh_board_t *b = c->c_board;
	char ch;

	if (n > SH_HOLDS) {
		errno = E2BIG;
		sh_die(c, "holds");
	}
	memcpy(k, keep, (size_t)n * sizeof (int));
	k[n] = c->c_ctl;
	k[n + 1] = c->c_ready;
	sh_close_others(c, k, n + 2);
	if (c->c_nobody)
		sh_become_nobody(c);
	if ((slot = atomic_fetch_add(&b->b_nprocs, 1)) >= SH_PROCS) {
		errno = E2BIG;
		sh_die(c, "procs");
	}
	b->b_procs[slot].p_pid = getpid();
	if (prctl(PR_GET_NAME, b->b_procs[slot].p_comm) != 0)
		sh_die(c, "PR_GET_NAME");
	for (int i = 0; i < n; i++) {
		struct stat st;
		int h;

		if (fstat(keep[i], &st) != 0 || !S_ISSOCK(st.st_mode))
			sh_die(c, "fstat of a socket kept");
		if ((h = atomic_fetch_add(&b->b_nholds, 1)) >= SH_HOLDS) {
			errno = E2BIG;
			sh_die(c, "holds");
		}
		b->b_holds[h] = (sh_hold_t){ getpid(), keep[i],
		    (unsigned long long)st.st_ino };
	}
	(void) close(c->c_ready);
	while (read(c->c_ctl, &ch, 1) > 0)
		continue;
	while (waitpid(-1, NULL, 0) > 0)
		continue;
	_exit(0);
}

/* A child of the leader, which keeps the n sockets of keep. */
static pid_t
sh_child(const sh_ctx_t *c, const char *comm, const int *keep, int n)
{
	pid_t pid = fork();

	if (pid < 0)
		sh_die(c, "fork");
	if (pid == 0) {
		sh_begin(c, comm);
		sh_hold(c, keep, n);
	}
	return (pid);
}

/* A TCP listener on loopback. */
static int
sh_listener(const sh_ctx_t *c)
{
	struct sockaddr_in sin;
	int l;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(l, 4) != 0)
		sh_die(c, "tcp listener");
	return (l);
}

static void
mode_dup(const sh_ctx_t *c)
{
	int l = sh_listener(c), keep[5], sp[2];

	keep[0] = l;
	if ((keep[1] = dup(l)) < 0 ||
	    (keep[2] = fcntl(l, F_DUPFD, SH_DUP_FD)) != SH_DUP_FD)
		sh_die(c, "dup");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		sh_die(c, "socketpair");
	keep[3] = sp[0];
	keep[4] = sp[1];
	sh_hold(c, keep, 5);
}

static void
mode_workers(const sh_ctx_t *c)
{
	int l = sh_listener(c), keep[2];

	(void) sh_child(c, "sh-worker0", &l, 1);
	keep[0] = l;
	if ((keep[1] = fcntl(l, F_DUPFD, SH_WORKER_FD)) != SH_WORKER_FD)
		sh_die(c, "dup to the worker's fd");
	(void) sh_child(c, "sh-worker1", keep, 2);
	(void) close(keep[1]);
	sh_hold(c, &l, 1);
}

static void
mode_many(const sh_ctx_t *c)
{
	int l = sh_listener(c);

	for (int i = 0; i < SH_NMANY; i++) {
		char comm[16];

		(void) snprintf(comm, sizeof (comm), "sh-many%d", i);
		(void) sh_child(c, comm, &l, 1);
	}
	sh_hold(c, &l, 1);
}

/* The room of one SCM_RIGHTS message: one byte and one fd. */
typedef struct sh_msg {
	struct iovec	m_iov;
	struct msghdr	m_mh;
	char		m_byte;
	union {				/* last: cmsghdr ends in an array */
		struct cmsghdr	cm;
		char		buf[CMSG_SPACE(sizeof (int))];
	} m_u;
} sh_msg_t;

static struct msghdr *
sh_msg(sh_msg_t *m)
{
	memset(m, 0, sizeof (*m));
	m->m_iov.iov_base = &m->m_byte;
	m->m_iov.iov_len = 1;
	m->m_mh.msg_iov = &m->m_iov;
	m->m_mh.msg_iovlen = 1;
	m->m_mh.msg_control = m->m_u.buf;
	m->m_mh.msg_controllen = sizeof (m->m_u.buf);
	return (&m->m_mh);
}

/* The child of scm_rights: takes the socket off the carrier, keeps both. */
static void
pass_child(const sh_ctx_t *c, int carrier)
{
	struct cmsghdr *cm;
	sh_msg_t m;
	int keep[2];

	sh_begin(c, "sh\x1bpass");
	if (recvmsg(carrier, sh_msg(&m), 0) != 1 ||
	    (cm = CMSG_FIRSTHDR(&m.m_mh)) == NULL ||
	    cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof (int)))
		sh_die(c, "recvmsg SCM_RIGHTS");
	memcpy(&keep[0], CMSG_DATA(cm), sizeof (int));
	keep[1] = carrier;
	sh_hold(c, keep, 2);
}

/* A unix listener on an abstract name of the leader's. */
static int
sh_unix_listener(const sh_ctx_t *c)
{
	struct sockaddr_un sun;
	socklen_t len;
	int l, n;

	memset(&sun, 0, sizeof (sun));
	sun.sun_family = AF_UNIX;
	n = snprintf(sun.sun_path + 1, sizeof (sun.sun_path) - 1,
	    "t_shared.%d", (int)getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if ((l = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&sun, len) != 0 || listen(l, 4) != 0)
		sh_die(c, "unix listener");
	return (l);
}

static void
mode_pass(const sh_ctx_t *c)
{
	int cr[2], keep[2];
	sh_msg_t m;
	pid_t kid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, cr) != 0)
		sh_die(c, "socketpair (carrier)");
	if ((kid = fork()) < 0)
		sh_die(c, "fork");
	if (kid == 0) {
		(void) close(cr[0]);
		pass_child(c, cr[1]);
	}
	(void) close(cr[1]);
	/* Made after the fork: the child holds it only as it is sent. */
	keep[0] = sh_unix_listener(c);
	keep[1] = cr[0];
	(void) sh_msg(&m);
	m.m_u.cm.cmsg_level = SOL_SOCKET;
	m.m_u.cm.cmsg_type = SCM_RIGHTS;
	m.m_u.cm.cmsg_len = CMSG_LEN(sizeof (int));
	memcpy(CMSG_DATA(&m.m_u.cm), &keep[0], sizeof (int));
	if (sendmsg(cr[0], &m.m_mh, 0) != 1)
		sh_die(c, "sendmsg SCM_RIGHTS");
	sh_hold(c, keep, 2);
}

/* As workers, in a network namespace of its own, then as uid 65534. */
static void
mode_netns(const sh_ctx_t *c)
{
	sh_ctx_t nc = *c;

	if (unshare(CLONE_NEWNET) != 0)
		sh_die(c, "unshare CLONE_NEWNET");
	nc.c_nobody = 1;
	mode_workers(&nc);
}

/* ------------------------------------------------------------------ */
/* The test's side. */

/* The leader, forked from the test: never returns. */
static _Noreturn void
sh_leader(sh_ctx_t *c, sh_mode_f *mode)
{
	int keep[2] = { c->c_ctl, c->c_ready };

	sh_begin(c, "sh-leader");
	sh_close_others(c, keep, 2);
	mode(c);
	_exit(1);
}

/* Wait for every ready end to close, or the leader to die first. */
static void
sh_wait_ready(sh_fix_t *f, int ready)
{
	long long deadline = tu_now_ms() + TU_TIMEOUT_MS;
	char buf[64];
	int status;

	for (;;) {
		struct pollfd pfd = { ready, POLLIN, 0 };
		long long left = deadline - tu_now_ms();

		ATF_REQUIRE_MSG(left > 0, "the fixture was not ready in %d ms",
		    TU_TIMEOUT_MS);
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) > 0 &&
		    read(ready, buf, sizeof (buf)) == 0)
			break;
		if (waitpid(f->f_leader, &status, WNOHANG) == f->f_leader) {
			f->f_leader = -1;
			atf_tc_fail("the fixture's leader ended (0x%x): %s",
			    (unsigned)status, f->f_board->b_why);
		}
	}
	ATF_REQUIRE_MSG(atomic_load(&f->f_board->b_failed) == 0, "the "
	    "fixture: %s", f->f_board->b_why);
}

/* The board, once every process is on it, into the view and the pids. */
static void
sh_read_board(sh_fix_t *f)
{
	const sh_board_t *b = f->f_board;
	ep_view_t *v = &f->f_view;

	v->v_nprocs = (size_t)atomic_load(&b->b_nprocs);
	v->v_nholds = (size_t)atomic_load(&b->b_nholds);
	for (size_t i = 0; i < v->v_nprocs; i++) {
		ep_proc_t *p = &v->v_procs[i];

		p->p_pid = b->b_procs[i].p_pid;
		(void) snprintf(p->p_comm, sizeof (p->p_comm), "%s",
		    b->b_procs[i].p_comm);
		(void) snprintf(p->p_role, sizeof (p->p_role), "%.15s",
		    p->p_comm);
		(void) snprintf(f->f_pids[i], sizeof (f->f_pids[i]), "%d",
		    (int)p->p_pid);
		f->f_pidv[i] = f->f_pids[i];
	}
	f->f_pidv[v->v_nprocs] = NULL;
	for (size_t i = 0; i < v->v_nholds; i++) {
		ep_hold_t *h = &v->v_holds[i];

		h->h_pid = b->b_holds[i].h_pid;
		h->h_fd = b->b_holds[i].h_fd;
		h->h_ino = b->b_holds[i].h_ino;
		h->h_end = '-';
		h->h_cred = -1;
		(void) snprintf(h->h_role, sizeof (h->h_role), "%.15s",
		    proc_of(v, h->h_pid)->p_comm);
		(void) snprintf(h->h_conn, sizeof (h->h_conn), "-");
	}
}

static void
sh_start(sh_fix_t *f, sh_mode_f *mode)
{
	int ctl[2], ready[2];
	sh_ctx_t c;

	memset(f, 0, sizeof (*f));
	f->f_board = mmap(NULL, sizeof (sh_board_t), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ATF_REQUIRE(f->f_board != MAP_FAILED);
	memset(f->f_board, 0, sizeof (sh_board_t));
	ATF_REQUIRE(pipe2(ctl, O_CLOEXEC) == 0 && pipe2(ready, O_CLOEXEC) == 0);
	(void) fflush(stdout);
	(void) fflush(stderr);
	ATF_REQUIRE((f->f_leader = fork()) >= 0);
	if (f->f_leader == 0) {
		(void) close(ctl[1]);
		(void) close(ready[0]);
		c = (sh_ctx_t){ f->f_board, ctl[0], ready[1], 0 };
		sh_leader(&c, mode);
	}
	(void) close(ctl[0]);
	(void) close(ready[1]);
	f->f_ctl = ctl[1];
	sh_wait_ready(f, ready[0]);
	(void) close(ready[0]);
	sh_read_board(f);
}

/* The end: every process told, the leader reaped (SIGKILL after 10 s). */
static void
sh_stop(sh_fix_t *f)
{
	long long deadline = tu_now_ms() + 10000;
	int status = 0;

	(void) close(f->f_ctl);
	while (f->f_leader > 0 && waitpid(f->f_leader, &status, WNOHANG) == 0) {
		if (tu_now_ms() > deadline) {
			(void) kill(f->f_leader, SIGKILL);
			(void) waitpid(f->f_leader, &status, 0);
			break;
		}
		(void) usleep(10000);
	}
	ATF_CHECK_MSG(f->f_leader < 0 || (WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0), "the fixture's leader: wait status "
	    "0x%x", (unsigned)status);
	(void) munmap(f->f_board, sizeof (sh_board_t));
}

/*
 * The shared lines of h, from the view alone: every other hold of its
 * inode (those of process gone, when not 0, left out), in the order of
 * pfiles' lines, at most 8, then "and N more".
 */
static char *
sh_expected(const ep_view_t *v, const ep_hold_t *h, pid_t gone)
{
	const ep_hold_t *hs[MAX_HOLDS];
	size_t n = 0;

	for (size_t i = 0; i < v->v_nholds; i++) {
		const ep_hold_t *o = &v->v_holds[i];

		if (o->h_ino == h->h_ino && o->h_pid != gone &&
		    (o->h_pid != h->h_pid || o->h_fd != h->h_fd))
			hs[n++] = o;
	}
	holders_order(hs, n, h->h_pid);
	return (holder_lines(v, tu_asprintf("%s", ""), "\tshared with: ", hs,
	    n));
}

/* h's block in out has exactly the shared lines of the view. */
static void
sh_check_hold(const char *what, const ep_view_t *v, const char *out,
    const ep_hold_t *h, pid_t gone)
{
	static const char *const shared[] = { "\tshared with: ", NULL };
	char *blk = hold_block(what, out, h), *got, *want, *name;

	got = lines_with(blk, shared);
	want = sh_expected(v, h, gone);
	name = tu_asprintf("%s.%d-%d", what, (int)h->h_pid, h->h_fd);
	tu_require_same_str(name, want, got);
	free(name);
	free(want);
	free(got);
	free(blk);
}

/* Does out hold the block of process pid ("PID:\t" at a line's start)? */
static int
sh_shown(const char *out, pid_t pid)
{
	char *head = tu_asprintf("\n%d:\t", (int)pid);
	int shown = strncmp(out, head + 1, strlen(head + 1)) == 0 ||
	    strstr(out, head) != NULL;

	free(head);
	return (shown);
}

/* Every hold of the view whose process out shows. */
static void
sh_check(const char *what, const ep_view_t *v, const char *out)
{
	size_t checked = 0;

	for (size_t i = 0; i < v->v_nholds; i++) {
		if (!sh_shown(out, v->v_holds[i].h_pid))
			continue;
		sh_check_hold(what, v, out, &v->v_holds[i], 0);
		checked++;
	}
	ATF_REQUIRE_MSG(checked > 0, "%s: no hold of the fixture shown", what);
}

/* The sources that serve here: pidfd, agent, diag, and bpf where it can. */
static size_t
sh_sources(const char **vias)
{
	char *why = tu_bpf_why();
	size_t n = 0;

	vias[n++] = "--via=pidfd";
	vias[n++] = "--via=agent";
	vias[n++] = "--via=diag";
	if (why == NULL)
		vias[n++] = "--via=bpf";
	else
		(void) printf("--via=bpf left out: %s\n", why);
	free(why);
	return (n);
}

/* One pfiles run with opts on pids (both NULL-ended), its stdout kept. */
static char *
sh_run(const char *what, const char *const *opts, const char *const *pids)
{
	tu_result_t r;
	char *out;

	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids },
	    &r);
	tu_write_file(what, r.tr_out, r.tr_outlen);
	out = tu_asprintf("%s", r.tr_out);
	tu_result_free(&r);
	return (out);
}

/*
 * Every source: one run over every pid of the fixture (the run's index),
 * then one run per pid, of the first nsingle (each walk's own pass).
 */
static void
sh_check_sources(const sh_fix_t *f, const char *what, size_t nsingle)
{
	const char *vias[4];
	size_t nvia = sh_sources(vias);

	for (size_t s = 0; s < nvia; s++) {
		const char *const opts[] = { vias[s], NULL };
		char *name = tu_asprintf("%s.%s.all", what, vias[s] + 6);
		char *out = sh_run(name, opts, f->f_pidv);

		sh_check(name, &f->f_view, out);
		free(out);
		free(name);
		for (size_t i = 0; i < f->f_view.v_nprocs && i < nsingle; i++) {
			const char *const one[] = { f->f_pids[i], NULL };

			name = tu_asprintf("%s.%s.%s", what, vias[s] + 6,
			    one[0]);
			out = sh_run(name, opts, one);
			sh_check(name, &f->f_view, out);
			free(out);
			free(name);
		}
	}
}

/* The view holds n holds of k sockets, across np processes. */
static void
sh_require_view(const ep_view_t *v, size_t np, size_t n, size_t k)
{
	unsigned long long inos[MAX_HOLDS];
	size_t ninos = 0;

	ATF_REQUIRE_EQ_MSG(v->v_nprocs, np, "%zu processes, not %zu",
	    v->v_nprocs, np);
	ATF_REQUIRE_EQ_MSG(v->v_nholds, n, "%zu holds, not %zu", v->v_nholds,
	    n);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < ninos && inos[j] != v->v_holds[i].h_ino)
			j++;
		if (j == ninos)
			inos[ninos++] = v->v_holds[i].h_ino;
	}
	ATF_REQUIRE_EQ_MSG(ninos, k, "%zu sockets, not %zu", ninos, k);
}

/*
 * A case: the fixture of mode, np processes holding n socket fds of k
 * sockets, checked through every source over every pid, and over each
 * of the first nsingle pids alone.
 */
#define	SH_CASE(name, mode, np, n, k, nsingle, descr)			\
ATF_TC(name);								\
ATF_TC_HEAD(name, tc)							\
{									\
	atf_tc_set_md_var(tc, "descr", descr);				\
	tu_timeout(tc, 240);						\
}									\
ATF_TC_BODY(name, tc)							\
{									\
	sh_fix_t f;							\
									\
	sh_start(&f, mode);						\
	sh_require_view(&f.f_view, np, n, k);				\
	sh_check_sources(&f, #name, nsingle);				\
	sh_stop(&f);							\
}

SH_CASE(dup_same_process, mode_dup, 1, 5, 3, 1, "a listener dup'ed "
    "twice in one process: each of its fds names the other two, in fd "
    "order; a socketpair's ends, held once each, have no shared line; "
    "with every source")
SH_CASE(inherited_listener, mode_workers, 3, 4, 1, 3, "a listener "
    "inherited by two forked workers, one of which holds it at a second "
    "fd: each holder's lines name the others, its own process first, then "
    "by pid and fd; with every source, over all pids and one at a time")
SH_CASE(scm_rights, mode_pass, 2, 4, 3, 2, "a listener sent over "
    "SCM_RIGHTS to a child (comm with an ESC) that did not inherit it: "
    "each names the other, the comm escaped; the carrier's ends have no "
    "shared line; with every source")
SH_CASE(more_than_8, mode_many, SH_NMANY + 1, SH_NMANY + 1, 1, 2, "a "
    "listener held by eleven processes: each holder's 8 lines, then "
    "\"shared with: and 2 more\"; with every source")

ATF_TC(no_endpoints);
ATF_TC_HEAD(no_endpoints, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --no-endpoints prints no "
	    "\"shared with:\" line, with every source, where pfiles without "
	    "it does");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(no_endpoints, tc)
{
	const char *vias[4];
	size_t nvia;
	sh_fix_t f;

	sh_start(&f, mode_workers);
	nvia = sh_sources(vias);
	for (size_t s = 0; s < nvia; s++) {
		const char *const with[] = { vias[s], NULL };
		const char *const without[] = { "--no-endpoints", vias[s],
		    NULL };
		char *name = tu_asprintf("noend.%s", vias[s] + 6);
		char *out = sh_run(name, with, f.f_pidv);

		ATF_CHECK_MSG(strstr(out, "\tshared with: ") != NULL, "%s: no "
		    "shared line without --no-endpoints", name);
		free(out);
		out = sh_run(name, without, f.f_pidv);
		ATF_CHECK_MSG(strstr(out, "\tshared with: ") == NULL &&
		    strstr(out, "\tendpoint: ") == NULL, "%s: "
		    "--no-endpoints printed holders (see %s)", name, name);
		free(out);
		free(name);
	}
	sh_stop(&f);
}

/* The pid of the view's process named comm, as text. */
static const char *
sh_pid_of(const sh_fix_t *f, const char *comm)
{
	for (size_t i = 0; i < f->f_view.v_nprocs; i++)
		if (strcmp(f->f_view.v_procs[i].p_comm, comm) == 0)
			return (f->f_pids[i]);
	atf_tc_fail("no process %s in the fixture", comm);
	return (NULL);
}

ATF_TC(holder_gone_since_index);
ATF_TC_HEAD(holder_gone_since_index, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles over the leader and a worker: "
	    "the other worker, killed after the run's index was made (at the "
	    "worker's stat of the listener's fd), is not named: the holder's "
	    "link is read again");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(holder_gone_since_index, tc)
{
	char arg[32], victim[32], *log;
	const char *leader, *worker;
	const ep_hold_t *l;
	pid_t gone;
	tu_result_t r;
	sh_fix_t f;

	sh_start(&f, mode_workers);
	sh_require_view(&f.f_view, 3, 4, 1);
	leader = sh_pid_of(&f, "sh-leader");
	worker = sh_pid_of(&f, "sh-worker0");
	gone = (pid_t)atoi(sh_pid_of(&f, "sh-worker1"));
	for (l = f.f_view.v_holds; l->h_pid != (pid_t)atoi(leader); l++)
		continue;
	/*
	 * The listener's fd is the same number in every process: the second
	 * stat of it is the worker's turn, after the leader's.
	 */
	(void) snprintf(arg, sizeof (arg), "RACE_ARG=%d", l->h_fd);
	(void) snprintf(victim, sizeof (victim), "RACE_PID=%d", (int)gone);
	{
		const char *args[] = { "--via=pidfd", leader, worker, NULL };
		const char *vars[] = { "RACE_CALL=statx", arg, "RACE_NTH=2",
		    "RACE_ACTION=kill", victim, NULL };

		run_raced(args, vars, &r, &log);
	}
	tu_require_exit("pfiles", &r, 0);
	ATF_REQUIRE_MSG(strstr(log, "kill ok") != NULL, "the worker was not "
	    "killed at the other's stat: %s", log);
	tu_write_file("gone", r.tr_out, r.tr_outlen);
	/* The leader's turn made the index: the other worker was there. */
	for (size_t i = 0; i < f.f_view.v_nholds; i++) {
		const ep_hold_t *h = &f.f_view.v_holds[i];

		if (h->h_pid != gone)
			sh_check_hold("gone", &f.f_view, r.tr_out, h,
			    h->h_pid == l->h_pid ? 0 : gone);
	}
	free(log);
	tu_result_free(&r);
	sh_stop(&f);
}

ATF_TC(netns_not_entered);
ATF_TC_HEAD(netns_not_entered, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles as uid 65534 on workers (uid "
	    "65534) of a network namespace it may not enter: stderr says "
	    "the endpoint lines are incomplete, and the shared lines, which "
	    "need no socket table, are all there");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.progs", "setpriv");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(netns_not_entered, tc)
{
	static const char *const nobody[] = { "setpriv", "--reuid=65534",
	    "--regid=65534", "--clear-groups", NULL };
	static const char *const vias[] = { "--via=pidfd", "--via=diag" };
	sh_fix_t f;

	sh_start(&f, mode_netns);
	sh_require_view(&f.f_view, 3, 4, 1);
	for (size_t s = 0; s < 2; s++) {
		const char *const opts[] = { vias[s], NULL };
		char *name = tu_asprintf("netns.%s", vias[s] + 6);
		tu_result_t r;

		tu_pfiles(&(const tu_pfiles_t){ .tp_wrap = nobody,
		    .tp_opts = opts, .tp_pids = f.f_pidv }, &r);
		tu_write_file(name, r.tr_out, r.tr_outlen);
		tu_require_exit(name, &r, 0);
		ATF_CHECK_MSG(strstr(r.tr_err, "endpoint lines incomplete: "
		    "the process is in another network namespace") != NULL,
		    "%s: stderr does not say the namespace: %s", name,
		    r.tr_err);
		sh_check(name, &f.f_view, r.tr_out);
		free(name);
		tu_result_free(&r);
	}
	sh_stop(&f);
}

ATF_TC(json);
ATF_TC_HEAD(json, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles -J on the many fixture: valid "
	    "by the schema, and its shared_with and shared_with_more say "
	    "what the text says (json_check.py)");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(json, tc)
{
	const char *const probe[] = { PYTHON, "-c", "import jsonschema; "
	    "jsonschema.Draft202012Validator", NULL };
	const char *const check[] = { PYTHON, CHECKER, "check", "--schema",
	    SCHEMA, "--json", "many.json", "--text", "many.txt", NULL };
	const char *const topt[] = { "--via=pidfd", NULL };
	const char *const jopt[] = { "-J", "--via=pidfd", NULL };
	tu_result_t r;
	sh_fix_t f;
	char *out;

	tu_run(probe, NULL, TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_fail(PYTHON " has no jsonschema with Draft 2020-12 "
		    "(apt-get install python3-jsonschema): %s", r.tr_err);
	tu_result_free(&r);
	sh_start(&f, mode_many);
	out = sh_run("many.txt", topt, f.f_pidv);
	ATF_REQUIRE(strstr(out, "\tshared with: and 2 more\n") != NULL);
	free(out);
	out = sh_run("many.json", jopt, f.f_pidv);
	ATF_REQUIRE(strstr(out, "\"shared_with_more\":2") != NULL);
	free(out);
	tu_run(check, NULL, TU_TIMEOUT_MS, &r);
	ATF_CHECK_MSG(WIFEXITED(r.tr_status) && WEXITSTATUS(r.tr_status) == 0,
	    "json_check.py: %s%s", r.tr_out, r.tr_err);
	tu_result_free(&r);
	sh_stop(&f);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, dup_same_process);
	ATF_TP_ADD_TC(tp, inherited_listener);
	ATF_TP_ADD_TC(tp, scm_rights);
	ATF_TP_ADD_TC(tp, more_than_8);
	ATF_TP_ADD_TC(tp, no_endpoints);
	ATF_TP_ADD_TC(tp, holder_gone_since_index);
	ATF_TP_ADD_TC(tp, netns_not_entered);
	ATF_TP_ADD_TC(tp, json);
	return (atf_no_error());
}

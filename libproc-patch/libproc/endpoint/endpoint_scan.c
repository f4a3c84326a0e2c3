/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_scan.c: the fd tables endpoint/ reads: the target's, for its
 * sockets and their inodes, and every other process's, for the holders
 * of the other ends the target does not hold.
 *
 * A socket fd's link in /proc/PID/fd says "socket:[INO]": one readlink
 * per fd tells which fds are sockets and which sockets they are, with
 * no open of anything.  The target's own table is read before the walk
 * (the walk streams in fd order, and a socket's other end may be an fd
 * not walked yet), unless the source lists its sockets more cheaply:
 * there with one statx per fd, the walk's own, whose answers for the
 * sockets the walk takes (endpoints_stat()) instead of asking again, so
 * that a socket costs the walk no second look at /proc.  The other
 * processes' tables are read in one pass, for the holders of every
 * other end; and the tables of threads that have their own, only for an
 * other end that no process was found to hold.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "kconst.h"
#include "endpoint/endpoint_impl.h"
#include "sources/psock.h"

#define	EP_LINK		64		/* "socket:[INO]" and more */
#define	PF_KTHREAD_BIT	0x00200000	/* /proc/PID/stat flags: kthread */

/* A decimal name: its value, or -1. */
static long
decimal(const char *s)
{
	long v = 0;

	if (*s == '\0')
		return (-1);
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (INT32_MAX - 9) / 10)
			return (-1);
		v = v * 10 + (*s - '0');
	}
	return (v);
}

/* The inode of a link "socket:[INO]" of n bytes, or 0. */
static uint64_t
socket_ino(const char *link, ssize_t n)
{
	uint64_t v = 0;
	ssize_t i = 8;

	if (n < 10 || memcmp(link, "socket:[", 8) != 0 || link[n - 1] != ']')
		return (0);
	for (; i < n - 1; i++) {
		if (link[i] < '0' || link[i] > '9' || v > UINT64_MAX / 10)
			return (0);
		v = v * 10 + (uint64_t)(link[i] - '0');
	}
	return (v);
}

uint64_t
ep_fd_ino(pid_t pid, int fd)
{
	char path[48], link[EP_LINK];
	ssize_t n;

	(void) snprintf(path, sizeof (path), "/proc/%d/fd/%d", (int)pid, fd);
	if ((n = readlink(path, link, sizeof (link))) <= 0)
		return (0);
	return (socket_ino(link, n));
}

/* ------------------------------------------------------------------ */
/* The target's own table. */

/*
 * The target's fd numbers as the pass lists them, a getdents64 batch at a
 * time, for the threads that stat them meanwhile: listing 20,000 fds
 * takes as long as stating a third of them.
 */
typedef struct feed {
	pthread_mutex_t	fe_lock;
	pthread_cond_t	fe_more;
	int		**fe_fds;	/* each batch's fds */
	size_t		*fe_len;	/* and their number */
	size_t		fe_n, fe_cap;	/* batches listed */
	size_t		fe_next;	/* the next one to stat */
	int		fe_done;	/* the listing has ended */
} feed_t;

/* The share of the target's fds one thread stats, batch by batch. */
typedef struct share {
	int		sh_dirfd;
	pid_t		sh_pid;
	feed_t		*sh_feed;
	holds_t		sh_holds;
	stats_t		sh_stats;
	epsignal_t	*sh_sig;
	int		sh_err;
} share_t;

void
ep_signal(epsignal_t *sg, int socket)
{
	if (sg != NULL && atomic_exchange(&sg->sg_sent, 1) == 0)
		sg->sg_fn(sg->sg_arg, socket);
}

/* The next batch listed, or NULL at the end: *np its number of fds. */
static const int *
take_batch(feed_t *fe, size_t *np)
{
	const int *fds = NULL;

	(void) pthread_mutex_lock(&fe->fe_lock);
	while (fe->fe_next == fe->fe_n && !fe->fe_done)
		(void) pthread_cond_wait(&fe->fe_more, &fe->fe_lock);
	if (fe->fe_next < fe->fe_n) {
		*np = fe->fe_len[fe->fe_next];
		fds = fe->fe_fds[fe->fe_next++];
	}
	(void) pthread_mutex_unlock(&fe->fe_lock);
	return (fds);
}

/*
 * The socket fds among the batches a share takes: a statx of each, as the
 * walk makes it (AT_STATX_DONT_SYNC: never a wait on a file's
 * filesystem), kept for the walk, which does not make it again.  A
 * share's batches are in increasing fd order.
 */
static void *
read_share(void *arg)
{
	share_t *sh = arg;
	struct statx stx;
	const int *fds;
	char name[16];
	size_t n;

	while ((fds = take_batch(sh->sh_feed, &n)) != NULL) {
		for (size_t i = 0; i < n && sh->sh_err == 0; i++) {
			(void) snprintf(name, sizeof (name), "%d", fds[i]);
			if (statx(sh->sh_dirfd, name, AT_STATX_DONT_SYNC,
			    STATX_BASIC_STATS, &stx) != 0 ||
			    !S_ISSOCK(stx.stx_mode))
				continue;
			if (sh->sh_holds.h_n == 0)
				ep_signal(sh->sh_sig, 1);
			if ((sh->sh_err = ep_holds_add(&sh->sh_holds,
			    stx.stx_ino, sh->sh_pid, fds[i])) == 0)
				sh->sh_err = ep_stats_add(&sh->sh_stats, fds[i],
				    &stx);
		}
	}
	return (NULL);
}

/* One batch more into the feed: 0, or ENOMEM. */
static int
feed_add(feed_t *fe, int *fds, size_t n)
{
	int err = 0;

	(void) pthread_mutex_lock(&fe->fe_lock);
	if (fe->fe_n == fe->fe_cap) {
		size_t cap = fe->fe_cap == 0 ? 16 : fe->fe_cap * 2;
		int **f = realloc(fe->fe_fds, cap * sizeof (*f));
		size_t *l = f != NULL ? realloc(fe->fe_len, cap * sizeof (*l)) :
		    NULL;

		if (f != NULL)
			fe->fe_fds = f;
		if (l != NULL) {
			fe->fe_len = l;
			fe->fe_cap = cap;
		} else {
			err = ENOMEM;
		}
	}
	if (err == 0) {
		fe->fe_fds[fe->fe_n] = fds;
		fe->fe_len[fe->fe_n++] = n;
		(void) pthread_cond_signal(&fe->fe_more);
	}
	(void) pthread_mutex_unlock(&fe->fe_lock);
	return (err);
}

/*
 * List the fd directory dirfd into the feed, a getdents64 at a time; once
 * a second batch comes (a table of more than one), *startp is called
 * with arg, to start a thread that stats them meanwhile.  The feed's end
 * is said either way.  0 or an errno.
 */
static int
list_fds(int dirfd, char *dents, feed_t *fe, void (*startp)(void *),
    void *arg)
{
	long got;
	int err = 0;

	while (err == 0 &&
	    (got = syscall(SYS_getdents64, dirfd, dents, EP_DENTS)) > 0) {
		int *fds = malloc((size_t)got / 20 * sizeof (*fds) + sizeof (*fds));
		size_t n = 0;

		if (fds == NULL) {
			err = ENOMEM;
			break;
		}
		for (long off = 0; off < got; ) {
			struct dirent64 *d = (struct dirent64 *)(void *)
			    (dents + off);
			long fd;

			if (d->d_reclen < 20 || d->d_reclen > got - off) {
				err = EPROTO;
				break;
			}
			off += d->d_reclen;
			if ((fd = decimal(d->d_name)) >= 0)
				fds[n++] = (int)fd;
		}
		if (err != 0 || (err = feed_add(fe, fds, n)) != 0) {
			free(fds);
			break;
		}
		if (fe->fe_n == 2 && startp != NULL)
			startp(arg);
	}
	if (err == 0 && got < 0)
		err = errno;
	(void) pthread_mutex_lock(&fe->fe_lock);
	fe->fe_done = 1;
	(void) pthread_cond_broadcast(&fe->fe_more);
	(void) pthread_mutex_unlock(&fe->fe_lock);
	return (err);
}

/*
 * The n fds listed (increasing, after those kept so far) as runs of
 * consecutive numbers into en_runs, for the walk, which takes its fds from them rather than list
 * the directory again (endpoints_fds()): a few runs for a table of fds
 * opened one after another.  0, or ENOMEM.
 */
static int
keep_runs(endpoints_t *en, const int *fds, size_t n)
{
	size_t k = en->en_nruns;

	for (size_t i = 0; i < n; i++) {
		if (k > 0 && fds[i] == en->en_runs[k - 1].r_first +
		    en->en_runs[k - 1].r_n) {
			en->en_runs[k - 1].r_n++;
			continue;
		}
		if (k == en->en_runcap) {
			size_t cap = en->en_runcap == 0 ? 16 : en->en_runcap * 2;
			eprun_t *v = realloc(en->en_runs, cap * sizeof (*v));

			if (v == NULL)
				return (ENOMEM);
			en->en_runs = v;
			en->en_runcap = cap;
		}
		en->en_runs[k].r_first = fds[i];
		en->en_runs[k].r_n = 1;
		k++;
	}
	en->en_nruns = k;
	en->en_listed = 1;
	return (0);
}

/* One socket of the target's, as a source lists them (Psock_inodes). */
typedef struct own_cb {
	endpoints_t	*oc_en;
	pid_t		oc_pid;
} own_cb_t;

static int
own_socket(void *arg, const psockid_t *id)
{
	own_cb_t *oc = arg;
	ids_t *ids = &oc->oc_en->en_ids;

	if (ids->i_n == ids->i_cap) {
		size_t cap = ids->i_cap == 0 ? 256 : ids->i_cap * 2;
		psockid_t *v = realloc(ids->i_v, cap * sizeof (*v));

		if (v == NULL)
			return (ENOMEM);
		ids->i_v = v;
		ids->i_cap = cap;
	}
	ids->i_v[ids->i_n++] = *id;
	return (ep_holds_add(&oc->oc_en->en_own, id->sid_ino, oc->oc_pid,
	    id->sid_fd));
}

/* The thread that stats a share while the table is still listed. */
typedef struct starter {
	share_t		*st_share;
	pthread_t	st_thread;
	int		st_started;
} starter_t;

static void
start_helper(void *arg)
{
	starter_t *st = arg;
	sigset_t all, old;

	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_SETMASK, &all, &old);
	st->st_started = pthread_create(&st->st_thread, NULL, read_share,
	    st->st_share) == 0;
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * The two shares' holders and stats into en: the holders together (sorted
 * after), the stats merged by fd, each share's being in fd order.  0, or
 * ENOMEM.
 */
static int
merge_shares(endpoints_t *en, const share_t *sh)
{
	const stats_t *a = &sh[0].sh_stats, *b = &sh[1].sh_stats;
	size_t i = 0, j = 0;
	int err = 0;

	for (int k = 0; k < 2 && err == 0; k++) {
		for (size_t h = 0; h < sh[k].sh_holds.h_n && err == 0; h++) {
			const ephold_t *e = &sh[k].sh_holds.h_v[h];

			err = ep_holds_add(&en->en_own, e->eh_ino, e->eh_pid,
			    e->eh_fd);
		}
	}
	if (err != 0 || a->s_n + b->s_n == 0)
		return (err);
	if ((en->en_stats.s_v = malloc((a->s_n + b->s_n) *
	    sizeof (epstat_t))) == NULL)
		return (ENOMEM);
	en->en_stats.s_cap = a->s_n + b->s_n;
	while (i < a->s_n || j < b->s_n) {
		if (j == b->s_n || (i < a->s_n &&
		    a->s_v[i].es_fd < b->s_v[j].es_fd))
			en->en_stats.s_v[en->en_stats.s_n++] = a->s_v[i++];
		else
			en->en_stats.s_v[en->en_stats.s_n++] = b->s_v[j++];
	}
	return (0);
}

/*
 * The target's socket fds, sorted by inode: 0 or an errno.  From the
 * source when it knows them cheaply (the bpf source: one pass of 16
 * bytes per socket); else a statx of each /proc/PID/fd/N, a few
 * microseconds each (a lookup, a check of ptrace access, the stat):
 * with more than one CPU, a second thread stats batches of the table
 * while it is still being listed, and the listing thread joins in once
 * it is done.
 */
int
ep_read_own(struct ps_prochandle *P, endpoints_t *en, char *dents,
    epsignal_t *sig)
{
	own_cb_t oc = { en, P->pid };
	share_t sh[2];
	starter_t st;
	feed_t fe;
	int d, err;

	if (Psock_inodes(P, own_socket, &oc) == 0) {
		return (ep_sort_own(&en->en_own));
	}
	/* A source that failed part-way: what it gave is read again. */
	en->en_own.h_n = 0;
	en->en_ids.i_n = 0;

	if ((d = openat(P->procfd, "fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return (errno);
	memset(&fe, 0, sizeof (fe));
	(void) pthread_mutex_init(&fe.fe_lock, NULL);
	(void) pthread_cond_init(&fe.fe_more, NULL);
	memset(sh, 0, sizeof (sh));
	memset(&st, 0, sizeof (st));
	for (int k = 0; k < 2; k++) {
		sh[k].sh_dirfd = d;
		sh[k].sh_pid = P->pid;
		sh[k].sh_sig = sig;
		sh[k].sh_feed = &fe;
	}
	st.st_share = &sh[1];
	err = list_fds(d, dents, &fe, Pconcurrent() ?
	    start_helper : NULL, &st);
	(void) read_share(&sh[0]);
	if (st.st_started)
		(void) pthread_join(st.st_thread, NULL);
	(void) close(d);
	for (size_t b = 0; b < fe.fe_n; b++) {
		if (err == 0)
			err = keep_runs(en, fe.fe_fds[b], fe.fe_len[b]);
		free(fe.fe_fds[b]);
	}
	if (err == 0)
		en->en_listed = 1;
	free(fe.fe_fds);
	free(fe.fe_len);
	(void) pthread_mutex_destroy(&fe.fe_lock);
	(void) pthread_cond_destroy(&fe.fe_more);
	if (err == 0)
		err = sh[0].sh_err != 0 ? sh[0].sh_err : sh[1].sh_err;
	if (err == 0)
		err = merge_shares(en, sh);
	for (int k = 0; k < 2; k++) {
		free(sh[k].sh_holds.h_v);
		free(sh[k].sh_stats.s_v);
	}
	return (err != 0 ? err : ep_sort_own(&en->en_own));
}

/* ------------------------------------------------------------------ */
/* Every other process's table. */

/* Is ino among the n sorted inodes of want? */
static int
wanted(const uint64_t *want, size_t n, uint64_t ino)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (want[mid] == ino)
			return (1);
		if (want[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (0);
}

/*
 * The socket fds of the fd directory dirfd (of pid) into h: every one,
 * or with want only those whose inode is wanted.  0 or an errno; EACCES
 * when the directory opened but its links may not be read (they need
 * ptrace access, refused to a process with capabilities the caller
 * lacks): what was read is kept, and the table counts as not readable.
 */
static int
read_fd_table(int dirfd, pid_t pid, char *dents, const uint64_t *want,
    size_t nwant, holds_t *h, size_t *nlinks)
{
	char link[EP_LINK];
	int denied = 0;
	long n;

	while ((n = syscall(SYS_getdents64, dirfd, dents, EP_DENTS)) > 0) {
		for (long off = 0; off < n; ) {
			struct dirent64 *d = (struct dirent64 *)(void *)
			    (dents + off);
			ssize_t len;
			uint64_t ino;
			long fd;

			if (d->d_reclen == 0 || d->d_reclen > n - off)
				return (EPROTO);
			off += d->d_reclen;
			if ((fd = decimal(d->d_name)) < 0)
				continue;
			(*nlinks)++;
			if ((len = readlinkat(dirfd, d->d_name, link,
			    sizeof (link))) < 0 && (errno == EACCES ||
			    errno == EPERM))
				denied = 1;
			if (len <= 0 || (ino = socket_ino(link, len)) == 0)
				continue;
			if (want != NULL && !wanted(want, nwant, ino))
				continue;
			if (ep_holds_add(h, ino, pid, (int)fd) != 0)
				return (ENOMEM);
		}
	}
	return (n < 0 ? errno : denied ? EACCES : 0);
}

/*
 * Does process pid (whose fd table may not be read) hold no fd at all:
 * a kernel thread, or a zombie?  Its stat line says, to anyone.
 */
static int
holds_nothing(long pid)
{
	char path[40], buf[512], *p;
	unsigned long flags;
	ssize_t n;
	int fd;

	(void) snprintf(path, sizeof (path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (errno == ENOENT);	/* gone: holds nothing now */
	n = read(fd, buf, sizeof (buf) - 1);
	(void) close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	/* After the comm: state, ppid, pgrp, session, tty, tpgid, flags. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return (0);
	if (p[2] == 'Z' || p[2] == 'X')
		return (1);
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return (0);
	return ((flags & PF_KTHREAD_BIT) != 0);
}

/*
 * Does the /proc pfiles reads show every process of the machine: is it
 * the initial pid namespace's?  Its pid 1 says, to whom may look at it
 * (root); else pfiles' own namespace does, when this /proc shows pfiles
 * itself (/proc/self): a /proc of a namespace pfiles is not in does not.
 */
int
ep_sees_every_process(void)
{
	struct stat st;

	if (stat("/proc/1/ns/pid", &st) == 0)
		return (st.st_ino == K_PROC_PID_INIT_INO);
	return (stat("/proc/self/ns/pid", &st) == 0 &&
	    st.st_ino == K_PROC_PID_INIT_INO);
}

/*
 * The pids /proc lists, into *pidsp (*np of them; free()d by the
 * caller): listed first and the directory closed, so that a pass over
 * them holds one fd of its own at a time (two for a thread's table)
 * where RLIMIT_NOFILE is low.  0 or an errno.
 */
static int
proc_pids(long **pidsp, size_t *np)
{
	struct dirent *d;
	DIR *proc;
	long *v = NULL, *nv;
	size_t n = 0, cap = 0;
	int err = 0;

	if ((proc = opendir("/proc")) == NULL)
		return (errno);
	while ((d = readdir(proc)) != NULL) {
		long pid = decimal(d->d_name);

		if (pid <= 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 1024 : cap * 2;
			if ((nv = realloc(v, cap * sizeof (*v))) == NULL) {
				err = ENOMEM;
				break;
			}
			v = nv;
		}
		v[n++] = pid;
	}
	(void) closedir(proc);
	if (err != 0) {
		free(v);
		return (err);
	}
	*pidsp = v;
	*np = n;
	return (0);
}

/*
 * The one pass over every other process's fd table: the holders of the
 * nwant inodes of want (sorted), and the processes whose table pfiles
 * may not read.  0 or an errno.
 */
int
ep_scan_others(struct ps_prochandle *P, endpoints_t *en, const uint64_t *want,
    size_t nwant, char *dents)
{
	long *pids;
	size_t npids;
	int err;

	if ((err = proc_pids(&pids, &npids)) != 0)
		return (err);
	en->en_outside = !ep_sees_every_process();
	for (size_t i = 0; err == 0 && i < npids; i++) {
		char path[40];
		long pid = pids[i];
		int fdd;

		if (pid == (long)P->pid)
			continue;
		(void) snprintf(path, sizeof (path), "/proc/%ld/fd", pid);
		if ((fdd = open(path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0) {
			int e = errno;

			/* Gone meanwhile, or a zombie or a kernel thread. */
			if (e == ENOENT || e == ESRCH || holds_nothing(pid))
				continue;
			en->en_unreadable++;
			/* Not a refusal: pfiles' own want (EMFILE), said. */
			if (e != EACCES && e != EPERM &&
			    en->en_scanfail++ == 0)
				en->en_scanerr = e;
			continue;
		}
		err = read_fd_table(fdd, (pid_t)pid, dents, want, nwant,
		    &en->en_other, &en->en_links);
		if (err == EACCES || err == EPERM) {
			en->en_unreadable++;
			err = 0;
		} else if (err != 0 && err != ENOMEM) {
			err = 0;	/* gone meanwhile: it holds nothing */
		}
		(void) close(fdd);
	}
	free(pids);
	en->en_scanned = 1;
	if (en->en_other.h_n > 1)
		qsort(en->en_other.h_v, en->en_other.h_n, sizeof (ephold_t),
		    ep_hold_cmp);
	PDEBUG(P, "endpoints: %zu other ends looked for in every process: "
	    "%zu holders, %u fd tables not readable%s", nwant,
	    en->en_other.h_n, en->en_unreadable, en->en_outside ?
	    "; pfiles' pid namespace is not the initial one: the processes "
	    "outside it are not seen" : "");
	return (err);
}

/*
 * The threads of process pid (its task directory taskd) whose file table
 * is not the process's (kcmp(KCMP_FILES) says; where it cannot, the
 * table is read): the holders among them of the nwant inodes of want.
 * 0 or ENOMEM; a thread gone or not readable holds nothing here (its
 * process's table was counted in the first pass).
 */
static int
scan_tasks(int taskd, long pid, const uint64_t *want, size_t nwant,
    char *dents, holds_t *h, size_t *nlinks)
{
	struct dirent *d;
	DIR *tasks;
	int err = 0;

	if ((tasks = fdopendir(taskd)) == NULL) {
		(void) close(taskd);
		return (0);
	}
	while (err == 0 && (d = readdir(tasks)) != NULL) {
		char path[32];
		long tid = decimal(d->d_name);
		int fdd;

		if (tid <= 0 || tid == pid || syscall(SYS_kcmp, (pid_t)pid,
		    (pid_t)tid, KCMP_FILES, 0UL, 0UL) == 0)
			continue;
		(void) snprintf(path, sizeof (path), "%ld/fd", tid);
		if ((fdd = openat(dirfd(tasks), path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0)
			continue;
		if (read_fd_table(fdd, (pid_t)tid, dents, want, nwant, h,
		    nlinks) == ENOMEM)
			err = ENOMEM;
		(void) close(fdd);
	}
	(void) closedir(tasks);
	return (err);
}

int
ep_scan_threads(struct ps_prochandle *P, endpoints_t *en,
    const uint64_t *want, size_t nwant, char *dents)
{
	long *pids;
	size_t npids, before = en->en_other.h_n;
	int err;

	if ((err = proc_pids(&pids, &npids)) != 0)
		return (err);
	for (size_t i = 0; err == 0 && i < npids; i++) {
		char path[40];
		int taskd;

		(void) snprintf(path, sizeof (path), "/proc/%ld/task", pids[i]);
		if ((taskd = open(path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) >= 0)
			err = scan_tasks(taskd, pids[i], want, nwant, dents,
			    &en->en_other, &en->en_links);
	}
	free(pids);
	if (en->en_other.h_n > 1)
		qsort(en->en_other.h_v, en->en_other.h_n, sizeof (ephold_t),
		    ep_hold_cmp);
	PDEBUG(P, "endpoints: %zu other ends held by no process: looked for "
	    "in the threads' own fd tables: %zu holders", nwant,
	    en->en_other.h_n - before);
	return (err);
}

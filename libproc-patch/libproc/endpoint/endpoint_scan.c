/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_scan.c: the fd tables endpoint/ reads: the target's, for its
 * sockets and their inodes, and every other process's, for the other
 * holders of the other ends and of the target's own sockets.
 *
 * A socket fd's link in /proc/PID/fd says "socket:[INO]": one readlink
 * per fd tells which fds are sockets and which sockets they are, with
 * no open of anything.  The target's own table is read before the walk
 * (the walk streams in fd order, and a socket's other end may be an fd
 * not walked yet), unless the source lists its sockets more cheaply:
 * there once for the walk and the endpoints both (fdtab_read(): one
 * statx per fd, the walk's own, whose answers for the sockets the walk
 * takes instead of asking again), so that a socket costs the walk no
 * second look at /proc.  The other
 * processes' tables are read in one pass, for the holders of every
 * other end and of every socket of the target's at once (one readlink
 * per fd, whichever it serves); and the tables of threads that have
 * their own, only for an other end that no process was found to hold.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "kconst.h"
#include "fdtab/fdtab.h"
#include "endpoint/endpoint_impl.h"
#include "sources/psock.h"

#define	EP_LINK		64		/* "socket:[INO]" and more */
#define	PF_KTHREAD_BIT	0x00200000	/* /proc/PID/stat flags: kthread */

uint64_t
ep_fd_ino(pid_t pid, int fd)
{
	char path[48], link[EP_LINK];
	ssize_t n;

	(void) snprintf(path, sizeof (path), "/proc/%d/fd/%d", (int)pid, fd);
	if ((n = readlink(path, link, sizeof (link))) <= 0)
		return (0);
	return (fdtab_socket_ino(link, (size_t)n));
}

/* ------------------------------------------------------------------ */
/* The target's own table. */

void
ep_signal(epsignal_t *sg, int socket)
{
	if (sg != NULL && atomic_exchange(&sg->sg_sent, 1) == 0)
		sg->sg_fn(sg->sg_arg, socket);
}

/* The table read has seen a socket. */
static void
saw_socket(void *arg)
{
	ep_signal(arg, 1);
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

/*
 * The target's socket fds, sorted by inode: 0 or an errno.  From the
 * source when it knows them cheaply (the bpf source: one pass of 16
 * bytes per socket); else from the target's table read once (fdtab.h),
 * whose fds and sockets' stats the walk then takes.
 */
int
ep_read_own(struct ps_prochandle *P, endpoints_t *en, fdtab_t *tab,
    epsignal_t *sig)
{
	own_cb_t oc = { en, P->pid };
	int err;

	if (Psock_inodes(P, own_socket, &oc) == 0)
		return (ep_sort_own(&en->en_own));
	/* A source that failed part-way: what it gave is read again. */
	en->en_own.h_n = 0;
	en->en_ids.i_n = 0;
	if ((err = fdtab_read(tab, P->procfd, sig != NULL ? saw_socket : NULL,
	    sig)) != 0)
		return (err);
	for (size_t i = 0; i < tab->ft_nsocks; i++) {
		const fdsock_t *k = &tab->ft_socks[i];

		if ((err = ep_holds_add(&en->en_own, k->fk_ino, P->pid,
		    k->fk_fd)) != 0)
			return (err);
	}
	return (ep_sort_own(&en->en_own));
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

/* What a pass over fd tables looks for, and its room. */
typedef struct epwant {
	const uint64_t	*w_want;	/* sorted; NULL: every socket */
	size_t		w_n;
	epbuf_t		*w_buf;
	struct ps_prochandle *w_P;	/* whose lent agent is served */
} epwant_t;

/*
 * The socket fds of the fd directory dirfd (of pid) into h: every one,
 * or with w_want only those whose inode is wanted.  0 or an errno; EACCES
 * when the directory opened but its links may not be read (they need
 * ptrace access, refused to a process with capabilities the caller
 * lacks): what was read is kept, and the table counts as not readable.
 */
static int
read_fd_table(int dirfd, pid_t pid, const epwant_t *w, holds_t *h,
    size_t *nlinks)
{
	const int *fds = w->w_buf->b_fds;
	char link[EP_LINK], name[16];
	int denied = 0;
	long n;

	while ((n = fdtab_next(dirfd, w->w_buf->b_dents,
	    w->w_buf->b_fds)) > 0) {
		Ptick(w->w_P);	/* a table of 20,000 fds takes long */
		for (long i = 0; i < n; i++) {
			ssize_t len;
			uint64_t ino;

			(*nlinks)++;
			(void) snprintf(name, sizeof (name), "%d", fds[i]);
			if ((len = readlinkat(dirfd, name, link,
			    sizeof (link))) < 0 && (errno == EACCES ||
			    errno == EPERM))
				denied = 1;
			if (len <= 0 ||
			    (ino = fdtab_socket_ino(link, (size_t)len)) == 0)
				continue;
			if (w->w_want != NULL &&
			    !wanted(w->w_want, w->w_n, ino))
				continue;
			if (ep_holds_add(h, ino, pid, fds[i]) != 0)
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
		long pid = fdtab_decimal(d->d_name);

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
    size_t nwant, epbuf_t *buf)
{
	epwant_t w = { want, nwant, buf, P };
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
		Ptick(P);
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
		err = read_fd_table(fdd, (pid_t)pid, &w, &en->en_other,
		    &en->en_links);
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
	PDEBUG(P, "endpoints: %zu sockets (other ends, the target's own) "
	    "looked for in every process: %zu holders, %u fd tables not "
	    "readable%s", nwant,
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
scan_tasks(int taskd, long pid, const epwant_t *w, holds_t *h,
    size_t *nlinks)
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
		long tid = fdtab_decimal(d->d_name);
		int fdd;

		if (tid <= 0 || tid == pid || syscall(SYS_kcmp, (pid_t)pid,
		    (pid_t)tid, KCMP_FILES, 0UL, 0UL) == 0)
			continue;
		(void) snprintf(path, sizeof (path), "%ld/fd", tid);
		if ((fdd = openat(dirfd(tasks), path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) < 0)
			continue;
		if (read_fd_table(fdd, (pid_t)tid, w, h, nlinks) == ENOMEM)
			err = ENOMEM;
		(void) close(fdd);
	}
	(void) closedir(tasks);
	return (err);
}

int
ep_scan_threads(struct ps_prochandle *P, endpoints_t *en,
    const uint64_t *want, size_t nwant, epbuf_t *buf)
{
	epwant_t w = { want, nwant, buf, P };
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
			err = scan_tasks(taskd, pids[i], &w, &en->en_other,
			    &en->en_links);
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

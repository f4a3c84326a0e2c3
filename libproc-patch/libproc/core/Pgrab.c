/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pgrab.c: grabbing and releasing a process, its psinfo and limits, and
 * its memory (Pread/Pwrite).
 *
 * A grab holds a pidfd for its whole life.  /proc/PID is opened after the
 * pidfd, and the pidfd is then asked whether the process has exited: if it
 * has not, the pid cannot have been recycled.  That the two name the same
 * process is proven, not assumed: in a pid namespace other than that of
 * /proc, a number is one process to pidfd_open(2) and another in /proc,
 * and the pidfd's own fdinfo says which pid it holds as /proc sees it.
 * Every later lookup goes through the /proc/PID directory fd, never
 * through the pid again.  A grab never stops the target and never reads
 * its memory.
 *
 * A process whose main thread has exited (pthread_exit) while others run
 * is alive, but /proc/PID shows the main thread's state: a zombie with no
 * files and no memory.  It is examined through /proc/PID/task/TID of a
 * live thread instead, which shows the process's files and memory.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/Pcontrol.h"
#include "core/procfs_parse.h"

#ifndef	SYS_pidfd_open
#define	SYS_pidfd_open	434
#endif
#ifndef	PIDFD_THREAD
#define	PIDFD_THREAD	O_EXCL		/* Linux 6.9 */
#endif

/* Every flag of Pgrab(); any other bit is refused. */
#define	PGRAB_FLAGS	(PGRAB_RETAIN | PGRAB_FORCE | PGRAB_RDONLY | \
	PGRAB_NOSTOP)

/* The psinfo of the process whose /proc directory is procfd. */
static int
fill_psinfo(int procfd, pid_t pid, psinfo_t *psp, procstat_t *stp)
{
	char buf[4096];
	struct stat st;
	ssize_t n;

	memset(psp, 0, sizeof (*psp));
	psp->pr_pid = pid;
	if ((n = proc_read_record(procfd, "stat", buf, sizeof (buf))) < 0)
		return (-1);
	if (procfs_parse_stat(buf, (size_t)n, stp) != 0) {
		errno = EPROTO;
		return (-1);
	}
	psp->pr_ppid = stp->ps_ppid;
	if (stp->ps_flags & PF_KTHREAD_FLAG)
		psp->pr_flag |= SSYS;
	if (fstat(procfd, &st) == 0) {
		psp->pr_uid = st.st_uid;
		psp->pr_gid = st.st_gid;
	}
	if ((n = proc_read_record(procfd, "comm", buf, sizeof (buf))) > 0) {
		if (buf[n - 1] == '\n')
			n--;
		if ((size_t)n >= sizeof (psp->pr_fname))
			n = sizeof (psp->pr_fname) - 1;
		memcpy(psp->pr_fname, buf, (size_t)n);
	}
	/* A zombie's cmdline is empty; that is not an error. */
	if ((n = proc_read_record(procfd, "cmdline", buf, sizeof (buf))) > 0)
		(void) procfs_cmdline_to_args(buf, (size_t)n, psp->pr_psargs,
		    sizeof (psp->pr_psargs));
	return (0);
}

/* Is /proc our own pid namespace's: does /proc/self name us?  Asked once. */
static int
proc_is_ours(void)
{
	static int ours = -1;
	int v = __atomic_load_n(&ours, __ATOMIC_RELAXED);
	char buf[32], me[32];
	ssize_t n;

	if (v >= 0)
		return (v);
	(void) snprintf(me, sizeof (me), "%d", (int)getpid());
	v = (n = readlink("/proc/self", buf, sizeof (buf) - 1)) > 0 &&
	    (buf[n] = '\0', strcmp(buf, me) == 0);
	__atomic_store_n(&ours, v, __ATOMIC_RELAXED);
	return (v);
}

/*
 * Is the process the pidfd names the one /proc shows as pid?  Without a
 * pidfd, at least /proc must be of our own pid namespace.  Where /proc is
 * ours, a pidfd whose process has not exited after /proc/PID was opened
 * says so at once (one poll): a process keeps its pid until it has
 * exited and been reaped, so the entry opened meanwhile is its; else
 * the pidfd's fdinfo says which pid it holds as /proc sees it.
 */
static int
same_process(int pidfd, pid_t pid)
{
	char path[48], buf[1024];
	ssize_t n;
	pid_t seen;

	if (pidfd >= 0 && proc_is_ours()) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

		if (poll(&pfd, 1, 0) == 0)
			return (1);
	}
	if (pidfd >= 0) {
		(void) snprintf(path, sizeof (path), "/proc/self/fdinfo/%d",
		    pidfd);
		if ((n = proc_read_record(AT_FDCWD, path, buf,
		    sizeof (buf))) > 0 &&
		    (seen = procfs_parse_pidfd(buf, (size_t)n)) >= 0)
			return (seen == pid);
	}
	if ((n = readlink("/proc/self", buf, sizeof (buf) - 1)) <= 0)
		return (0);
	buf[n] = '\0';
	(void) snprintf(path, sizeof (path), "%d", (int)getpid());
	return (strcmp(buf, path) == 0);
}

/*
 * Is this stat the one of a thread that lives on: not a zombie, not dead,
 * not exiting (PF_EXITING is set before its fds close)?
 */
static int
lives_on(const procstat_t *st)
{
	return ((st->ps_flags & PF_EXITING_FLAG) == 0 && st->ps_state != 'Z' &&
	    st->ps_state != 'X');
}

/* SIGKILL pending for the thread itself: a group exit has begun to end it. */
static int
killed(const procstat_t *st)
{
	return ((st->ps_sigpnd & (1ULL << (SIGKILL - 1))) != 0);
}

/* An error that says the thread or process looked at is gone. */
static int
gone(int err)
{
	return (err == ENOENT || err == ESRCH);
}

/*
 * A thread of the process, other than skip, that lives on (with unkilled,
 * one that has no SIGKILL pending either): its tid; 0 when there is none
 * (the whole process is exiting or dead, or being killed); -1 with errno
 * when none was found among the threads that could be looked at but not
 * every one could be (short of fds of our own: EMFILE, ENFILE): no proof of
 * a zombie, of an exit or of a kill.
 */
static pid_t
thread_living(struct ps_prochandle *P, pid_t skip, int unkilled)
{
	char buf[4096], name[32];
	struct dirent *d;
	procstat_t st;
	pid_t tid = 0;
	DIR *dir;
	ssize_t n;
	int fd, err = 0;

	/* The process's, also when it is examined through a thread. */
	(void) snprintf(name, sizeof (name), "/proc/%d/task", (int)P->pid);
	if ((fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (dir = fdopendir(fd)) == NULL) {
		err = errno;
		if (fd >= 0)
			(void) close(fd);
		errno = err;
		return (gone(err) ? 0 : -1);
	}
	while (tid == 0 && (errno = 0, d = readdir(dir)) != NULL) {
		long t = strtol(d->d_name, NULL, 10);

		if (t <= 0 || t == skip || t > INT_MAX)
			continue;
		(void) snprintf(name, sizeof (name), "%ld/stat", t);
		if ((n = proc_read_small(fd, name, buf, sizeof (buf))) < 0) {
			if (!gone(errno))
				err = errno;	/* not looked at */
		} else if (procfs_parse_stat(buf, (size_t)n, &st) == 0 &&
		    lives_on(&st) && !(unkilled && killed(&st)))
			tid = (pid_t)t;
	}
	if (d == NULL && errno != 0 && !gone(errno))
		err = errno;
	(void) closedir(dir);
	if (tid == 0 && err != 0) {
		errno = err;
		return (-1);
	}
	return (tid);
}

/*
 * A live thread of a process whose main thread is a zombie: its tid, 0
 * when there is none (the whole process is exiting or dead), or -1 with
 * errno when the threads could not all be looked at.
 */
pid_t
Plive_thread(struct ps_prochandle *P)
{
	return (thread_living(P, P->pid, 0));
}

/*
 * Is thread tid in execve?  Then the main thread is a zombie only for the
 * moment of the exec's hand-over: the thread takes the pid and its task
 * directory goes; the grab waits for the exec instead of going through it.
 */
static int
in_exec(struct ps_prochandle *P, pid_t tid)
{
	char name[40], buf[256];
	long nr;

	(void) snprintf(name, sizeof (name), "task/%d/syscall", (int)tid);
	if (proc_read_small(P->procfd, name, buf, sizeof (buf)) <= 0 ||
	    sscanf(buf, "%ld", &nr) != 1)
		return (0);
	return (nr == SYS_execve || nr == SYS_execveat);
}

/*
 * Examine the process through thread tid from now on: its task directory
 * shows the process's files, memory and command line.  The name stays
 * the process's (the main thread's comm).
 */
static int
use_thread(struct ps_prochandle *P, pid_t tid, procstat_t *stp)
{
	char name[32], fname[PRFNSZ];
	int fd;

	(void) snprintf(name, sizeof (name), "task/%d", (int)tid);
	if ((fd = openat(P->procfd, name, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return (-1);
	(void) close(P->procfd);
	P->procfd = fd;
	P->tid = tid;
	/*
	 * pidfd_getfd takes a thread's files: this thread's.  Where there
	 * is none (before 6.9) the pidfd source refuses; none for want of
	 * an fd is said as such.
	 */
	P->thrpidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (P->thrpidfd < 0 && Pshort_of_fds(errno))
		return (-1);
	(void) memcpy(fname, P->psinfo.pr_fname, sizeof (fname));
	if (fill_psinfo(P->procfd, P->pid, &P->psinfo, stp) != 0)
		return (-1);
	(void) memcpy(P->psinfo.pr_fname, fname, sizeof (fname));
	PDEBUG(P, "main thread has exited: examined through thread %d",
	    (int)tid);
	return (0);
}

static int
open_procdir(pid_t pid)
{
	char path[32];

	(void) snprintf(path, sizeof (path), "/proc/%d", (int)pid);
	return (open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

int
proc_get_psinfo(pid_t pid, psinfo_t *psp)
{
	procstat_t st;
	int procfd, rv, e;

	if (psp == NULL) {
		errno = EINVAL;
		return (-1);
	}
	if (pid <= 0) {
		errno = ESRCH;
		return (-1);
	}
	if ((procfd = open_procdir(pid)) < 0) {
		if (errno == ENOENT)
			errno = ESRCH;
		return (-1);
	}
	rv = fill_psinfo(procfd, pid, psp, &st);
	e = errno;
	(void) close(procfd);
	errno = e;
	return (rv);
}

int
Pexited(struct ps_prochandle *P)
{
	struct pollfd pfd;
	struct stat st;

	if (P->pidfd < 0)	/* no pidfds: /proc/PID/stat goes on reap */
		return (fstatat(P->procfd, "stat", &st, 0) != 0);
	pfd.fd = P->pidfd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	return (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN));
}

int
Psame_pidns(struct ps_prochandle *P)
{
	struct stat mine, theirs;

	if (P->pidns == 0)
		P->pidns = stat("/proc/self/ns/pid", &mine) == 0 &&
		    fstatat(P->procfd, "ns/pid", &theirs, 0) == 0 &&
		    mine.st_dev == theirs.st_dev &&
		    mine.st_ino == theirs.st_ino ? 1 : 2;
	return (P->pidns == 1);
}

int
Plives_on(struct ps_prochandle *P)
{
	char buf[4096];
	procstat_t st;
	ssize_t n;

	return ((n = proc_read_record(P->procfd, "stat", buf,
	    sizeof (buf))) > 0 && procfs_parse_stat(buf, (size_t)n, &st) == 0 &&
	    lives_on(&st));
}

/*
 * A process is exiting when none of its threads lives on.  The main
 * thread alone does not tell: an exec by another thread makes every
 * other thread, the main one included, exit first, and on a busy machine
 * that can take longer than any wait, while the exec'ing thread lives on
 * and takes the pid.  A thread that lives on is the proof of life; the
 * pidfd, or "none lives on" held for EXEC_SETTLE_MS (the list of threads
 * read while the pid changes hands may miss one), the proof of exit.
 */
/*
 * Is the process being killed: no thread of it lives on without SIGKILL
 * pending?  A SIGKILLed process's main thread may be a zombie, and its
 * namespaces gone, while another thread has not yet begun its exit.
 */
int
Pkilled(struct ps_prochandle *P)
{
	/* No look at every thread (short of fds) is no proof of a kill. */
	return (thread_living(P, 0, 1) == 0);
}

int
Pexiting(struct ps_prochandle *P)
{
	for (int ms = 0; ; ms++) {
		if (Pexited(P))
			return (1);
		if (Plives_on(P))
			return (0);
		/*
		 * A thread that lives on, or no look at every thread (we are
		 * short of fds), which is no proof of exit: Pexited, which
		 * said none, stands.
		 */
		if (thread_living(P, 0, 0) != 0)
			return (0);
		if (ms == EXEC_SETTLE_MS || P->pidfd < 0)
			return (1);
		(void) usleep(1000);
	}
}

static int
errno_to_gerr(int e)
{
	switch (e) {
	case ENOENT:
	case ESRCH:
	case EINVAL:
		return (G_NOPROC);
	case EACCES:
	case EPERM:
		return (G_PERM);
	case EMFILE:
	case ENFILE:
		return (G_NOFD);
	default:
		return (G_STRANGE);
	}
}

static void
Pfree(struct ps_prochandle *P)
{
	int *fds[] = { &P->pidfd, &P->thrpidfd, &P->procfd, &P->fddirfd,
	    &P->fdinfofd, &P->memfd, &P->selffdfd };

	for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++) {
		if (*fds[i] >= 0)
			(void) close(*fds[i]);
	}
	free(P);
}

/*
 * A process whose main thread is a zombie, examined through a thread that
 * lives on: 0, or G_*.  G_ZOMB when none lives on, or for a moment, in
 * an exec, or not yet settled: again.  What kept pfiles from looking at
 * its threads (short of fds) is said as such, never taken for a zombie.
 */
static int
grab_thread(struct ps_prochandle *P, int settled, procstat_t *stp)
{
	pid_t tid;

	if ((tid = Plive_thread(P)) < 0)
		return (errno_to_gerr(errno));
	if (tid == 0 || !settled || in_exec(P, tid))
		return (G_ZOMB);
	if (use_thread(P, tid, stp) != 0)
		return (gone(errno) ? G_ZOMB : errno_to_gerr(errno));
	return (0);
}

/*
 * One attempt at the grab, once the pidfd is held: G_* (0 when it holds);
 * what it opened is closed again when it fails.  A main thread that is a
 * zombie while others live is an exec's hand-over, or a main thread that
 * has exited (pthread_exit): only once it has held EXEC_SETTLE_MS
 * (settled) is it the second, examined through a live thread.
 */
static int
grab_once(struct ps_prochandle *P, int settled)
{
	procstat_t st;
	int gerr;

	/*
	 * Alive by its pidfd, and not in a /proc of another pid namespace:
	 * the pid names another process there, or none.
	 */
	if ((P->procfd = open_procdir(P->pid)) < 0) {
		if (errno != ENOENT || P->pidfd < 0 || proc_is_ours() ||
		    Pexited(P))
			goto fail;
		gerr = G_NOTSAME;
		goto fail_gerr;
	}
	if (!same_process(P->pidfd, P->pid)) {
		gerr = Pexited(P) ? G_NOPROC : G_NOTSAME;
		goto fail_gerr;
	}
	if (fill_psinfo(P->procfd, P->pid, &P->psinfo, &st) != 0)
		goto fail;
	if (st.ps_state == 'X') {
		gerr = G_ZOMB;
		goto fail_gerr;
	}
	if (st.ps_state == 'Z' && (gerr = grab_thread(P, settled, &st)) != 0)
		goto fail_gerr;
	if (P->psinfo.pr_flag & SSYS) {
		gerr = G_SYS;
		goto fail_gerr;
	}
	if (Pexited(P)) {
		gerr = G_NOPROC;
		goto fail_gerr;
	}
	/* The permission check of the whole walk: may we see its fds? */
	P->fddirfd = openat(P->procfd, "fd",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (P->fddirfd < 0)
		goto fail;
	return (0);

fail:
	gerr = errno_to_gerr(errno);
fail_gerr:
	if (P->procfd >= 0)
		(void) close(P->procfd);
	if (P->thrpidfd >= 0)
		(void) close(P->thrpidfd);
	P->procfd = P->thrpidfd = -1;
	P->tid = 0;
	return (gerr);
}

#define	GRAB_WAIT_MS	2	/* while an exec hands the pid over */
#define	GRAB_TRIES	(EXEC_SETTLE_MS / GRAB_WAIT_MS)

struct ps_prochandle *
Pgrab(pid_t pid, int flags, int *perr)
{
	struct ps_prochandle *P;
	int gerr;

	/* Refused before anything is opened (libproc.3, ERRORS). */
	if (perr == NULL) {
		errno = EINVAL;
		return (NULL);
	}
	if (flags & ~PGRAB_FLAGS) {
		errno = EINVAL;
		*perr = G_STRANGE;
		return (NULL);
	}
	if (pid <= 0) {
		*perr = G_NOPROC;
		return (NULL);
	}
	if ((P = calloc(1, sizeof (*P))) == NULL) {
		*perr = G_STRANGE;
		return (NULL);
	}
	P->pid = pid;
	P->procfd = P->fddirfd = P->fdinfofd = P->memfd = P->thrpidfd = -1;
	P->selffdfd = -1;

	/*
	 * The pidfd first: it names the process for the rest of the grab.
	 * Where there is none (before 5.3, or refused by a seccomp profile
	 * or an LSM: pidfd_open itself asks no permission), the directory
	 * /proc/PID held from the start names it instead: its files cannot
	 * be those of a later process of that pid, and a reaped process's
	 * stat is gone from it.  What is lost: pidfd_getfd (the pidfd
	 * source), and the exec hand-over told apart from an exit.
	 */
	P->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (P->pidfd < 0 && errno != ENOSYS && errno != EPERM &&
	    errno != EACCES) {
		gerr = errno_to_gerr(errno);
		goto fail;
	}
	if (P->pidfd < 0) {
		P->pidfd_err = errno;
		PDEBUG(P, "no pidfd (pidfd_open: %s): the process is held by "
		    "its /proc directory", strerror(errno));
	}
	/*
	 * A process that is alive by its pidfd but not to be found, or a
	 * zombie, in /proc is handing its pid over in an exec: again.
	 */
	for (int i = 0; ; i++) {
		int settled = i >= GRAB_TRIES || P->pidfd < 0;

		if ((gerr = grab_once(P, settled)) == 0 || settled ||
		    (gerr != G_NOPROC && gerr != G_ZOMB) || Pexited(P))
			break;
		(void) usleep(GRAB_WAIT_MS * 1000);
	}
	if (gerr != 0)
		goto fail;
	PDEBUG(P, "grabbed: %s, pidfd %s", P->psinfo.pr_fname,
	    P->pidfd >= 0 ? "held" : "not available");
	*perr = 0;
	return (P);

fail:
	PDEBUG(P, "not grabbed: %s", Pgrab_error(gerr));
	Pfree(P);
	*perr = gerr;
	return (NULL);
}

void
Prelease(struct ps_prochandle *P, int flags)
{
	/*
	 * Every flag is ignored, known or not: Prelease cannot fail, and a
	 * handle it refused to let go would leak.
	 */
	(void) flags;
	if (P == NULL)
		return;
	/* What the modules attached: the source first, then the agent. */
	Phook_run(P->hooks);
	PDEBUG(P, "released");
	Pfree(P);
}

const char *
Pgrab_error(int error)
{
	switch (error) {
	case 0:
		return ("no error");
	case G_NOPROC:
		return ("no such process");
	case G_ZOMB:
		return ("process is defunct");
	case G_PERM:
		return ("permission denied");
	case G_BUSY:
		return ("process is traced");
	case G_SYS:
		return ("system process");
	case G_SELF:
		return ("attempt to grab self");
	case G_INTR:
		return ("operation interrupted");
	case G_LP64:
	case G_ISAINVAL:
		return ("wrong architecture");
	case G_NOFD:
		return ("too many open files");
	case G_NOTSAME:
		return ("the pid is another process in /proc (pid namespaces "
		    "differ)");
	default:
		return ("unanticipated system error");
	}
}

pid_t
Pstatus_pid(struct ps_prochandle *P)
{
	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	return (P->pid);
}

const psinfo_t *
Ppsinfo(struct ps_prochandle *P)
{
	if (P == NULL) {
		errno = EINVAL;
		return (NULL);
	}
	return (&P->psinfo);
}

int
Plimit(struct ps_prochandle *P, int resource, struct rlimit *rl)
{
	char buf[4096];
	ssize_t n;

	if (P == NULL || rl == NULL || resource < 0 ||
	    resource >= RLIM_NLIMITS) {
		errno = EINVAL;
		return (-1);
	}
	if ((n = proc_read_record(P->procfd, "limits", buf, sizeof (buf))) < 0)
		return (-1);
	if (procfs_parse_limits(buf, (size_t)n, resource, rl) != 0) {
		errno = EINVAL;
		return (-1);
	}
	return (0);
}

const procstatus_t *
Prefresh_status(struct ps_prochandle *P)
{
	char buf[4096];
	ssize_t n;

	if ((n = proc_read_record(P->procfd, "status", buf, sizeof (buf))) < 0)
		return (NULL);
	procfs_parse_status(buf, (size_t)n, &P->status);
	P->status_read = 1;
	return (&P->status);
}

const procstatus_t *
Pstatus_facts(struct ps_prochandle *P)
{
	return (P->status_read ? &P->status : Prefresh_status(P));
}

int
Pprocopen(struct ps_prochandle *P, const char *name, int oflags)
{
	return (openat(P->procfd, name, oflags | O_CLOEXEC));
}

static int
open_mem(struct ps_prochandle *P)
{
	if (P->memfd >= 0)
		return (0);
	P->memfd = Pprocopen(P, "mem", O_RDWR);
	if (P->memfd < 0)
		P->memfd = Pprocopen(P, "mem", O_RDONLY);
	return (P->memfd < 0 ? -1 : 0);
}

/* A target address as a file offset of /proc/PID/mem, or -1. */
static off_t
mem_offset(uintptr_t address, size_t nbyte)
{
	if (address > (uintptr_t)INT64_MAX ||
	    nbyte > (uintptr_t)INT64_MAX - address) {
		errno = EINVAL;
		return (-1);
	}
	return ((off_t)address);
}

/* The checks and the file of a Pread or Pwrite: the offset, or -1. */
static off_t
mem_access(struct ps_prochandle *P, const void *buf, size_t nbyte,
    uintptr_t address)
{
	off_t off;

	if (P == NULL || buf == NULL) {
		errno = EINVAL;
		return (-1);
	}
	if ((off = mem_offset(address, nbyte)) < 0 || open_mem(P) != 0)
		return (-1);
	return (off);
}

ssize_t
Pread(struct ps_prochandle *P, void *buf, size_t nbyte, uintptr_t address)
{
	off_t off;

	if ((off = mem_access(P, buf, nbyte, address)) < 0)
		return (-1);
	return (pread(P->memfd, buf, nbyte, off));
}

ssize_t
Pwrite(struct ps_prochandle *P, const void *buf, size_t nbyte,
    uintptr_t address)
{
	off_t off;

	if ((off = mem_access(P, buf, nbyte, address)) < 0)
		return (-1);
	return (pwrite(P->memfd, buf, nbyte, off));
}

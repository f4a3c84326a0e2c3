/*
 * Pgrab.c: grabbing and releasing a process, its psinfo and limits, and
 * its memory (Pread/Pwrite).
 *
 * A grab holds a pidfd for its whole life.  /proc/PID is opened after the
 * pidfd, and the pidfd is then asked whether the process has exited: if it
 * has not, the pid cannot have been recycled, so /proc/PID is the process
 * the pidfd names.  Every later lookup goes through the /proc/PID
 * directory fd, never through the pid again.  A grab never stops the
 * target and never reads its memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "Pcontrol.h"
#include "procfs_parse.h"

#ifndef	SYS_pidfd_open
#define	SYS_pidfd_open	434
#endif

/* The psinfo of the process whose /proc directory is procfd. */
static int
fill_psinfo(int procfd, pid_t pid, psinfo_t *psp, procstat_t *stp)
{
	char buf[4096];
	struct stat st;
	ssize_t n;

	memset(psp, 0, sizeof (*psp));
	psp->pr_pid = pid;
	if ((n = proc_read_small(procfd, "stat", buf, sizeof (buf))) < 0)
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
	if ((n = proc_read_small(procfd, "comm", buf, sizeof (buf))) > 0) {
		if (buf[n - 1] == '\n')
			n--;
		if ((size_t)n >= sizeof (psp->pr_fname))
			n = sizeof (psp->pr_fname) - 1;
		memcpy(psp->pr_fname, buf, (size_t)n);
	}
	/* A zombie's cmdline is empty; that is not an error. */
	if ((n = proc_read_small(procfd, "cmdline", buf, sizeof (buf))) > 0)
		(void) procfs_cmdline_to_args(buf, (size_t)n, psp->pr_psargs,
		    sizeof (psp->pr_psargs));
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
	int *fds[] = { &P->pidfd, &P->procfd, &P->fddirfd, &P->fdinfofd,
	    &P->memfd };

	for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++) {
		if (*fds[i] >= 0)
			(void) close(*fds[i]);
	}
	free(P);
}

struct ps_prochandle *
Pgrab(pid_t pid, int flags, int *perr)
{
	struct ps_prochandle *P;
	procstat_t st;
	int gerr;

	(void) flags;
	if (pid <= 0) {
		*perr = G_NOPROC;
		return (NULL);
	}
	if ((P = calloc(1, sizeof (*P))) == NULL) {
		*perr = G_STRANGE;
		return (NULL);
	}
	P->pid = pid;
	P->procfd = P->fddirfd = P->fdinfofd = P->memfd = -1;

	/* The pidfd first: it names the process for the rest of the grab. */
	P->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (P->pidfd < 0 && errno != ENOSYS)
		goto fail;
	if ((P->procfd = open_procdir(pid)) < 0)
		goto fail;
	if (fill_psinfo(P->procfd, pid, &P->psinfo, &st) != 0)
		goto fail;
	if (st.ps_state == 'Z' || st.ps_state == 'X') {
		gerr = G_ZOMB;
		goto fail_gerr;
	}
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
	PDEBUG(P, "grabbed: %s, pidfd %s", P->psinfo.pr_fname,
	    P->pidfd >= 0 ? "held" : "not available");
	*perr = 0;
	return (P);

fail:
	gerr = errno_to_gerr(errno);
fail_gerr:
	PDEBUG(P, "not grabbed: %s", Pgrab_error(gerr));
	Pfree(P);
	*perr = gerr;
	return (NULL);
}

void
Prelease(struct ps_prochandle *P, int flags)
{
	(void) flags;
	if (P == NULL)
		return;
	/* The source first: the agent's may still hold our sockets. */
	Psockrelease(P);
	if (P->agent != NULL)
		Pdestroy_agent(P);
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
	default:
		return ("unanticipated system error");
	}
}

pid_t
Pstatus_pid(struct ps_prochandle *P)
{
	return (P->pid);
}

const psinfo_t *
Ppsinfo(struct ps_prochandle *P)
{
	return (&P->psinfo);
}

int
Plimit(struct ps_prochandle *P, int resource, struct rlimit *rl)
{
	char buf[4096];
	ssize_t n;

	if ((n = proc_read_small(P->procfd, "limits", buf, sizeof (buf))) < 0)
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

	if ((n = proc_read_small(P->procfd, "status", buf, sizeof (buf))) < 0)
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

ssize_t
Pread(struct ps_prochandle *P, void *buf, size_t nbyte, uintptr_t address)
{
	off_t off;

	if ((off = mem_offset(address, nbyte)) < 0 || open_mem(P) != 0)
		return (-1);
	return (pread(P->memfd, buf, nbyte, off));
}

ssize_t
Pwrite(struct ps_prochandle *P, const void *buf, size_t nbyte,
    uintptr_t address)
{
	off_t off;

	if ((off = mem_offset(address, nbyte)) < 0 || open_mem(P) != 0)
		return (-1);
	return (pwrite(P->memfd, buf, nbyte, off));
}

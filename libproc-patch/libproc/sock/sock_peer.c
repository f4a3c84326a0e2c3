/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_peer.c: the name of a unix socket's peer, given only when the
 * process that now has SO_PEERCRED's pid is proven to be the one the
 * kernel recorded.  The pid is a number the kernel keeps after its
 * process is gone: a daemon that listens, forks and exits leaves its pid
 * in every client's credentials, and another process may take it.  The
 * kernel keeps no time of a socket's making (a socket's inode has none),
 * so a start time cannot be compared with anything: the only proof is a
 * pidfd of the recorded process, which refers to it or to nothing.
 *
 * The rule, once for every source (sock_peer_name): read the comm of the
 * process that has PID, then take a pidfd of the recorded process and
 * see that it is still alive: it was alive when the kernel recorded it
 * and is now, so it had PID all along, and the comm read was its.  The
 * pidfd is taken after the read so that the proof holds one fd at a
 * time.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sock/socksrc.h"

#ifndef	SO_PEERPIDFD
#define	SO_PEERPIDFD	77	/* Linux 6.5 */
#endif
#define	PIDFS_MAGIC	0x50494446	/* "PIDF": pidfs, Linux 6.9 */

/* Why a proof could not be tried: pfiles itself had no fd to spare. */
static const char nofd_why[] = "too many open files";

int
sock_peer_pidfd(const void *arg)
{
	int fd = -1, s = *(const int *)arg;
	socklen_t len = sizeof (fd);

	if (getsockopt(s, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) != 0)
		return (-errno);
	if (len != sizeof (fd) || fd < 0)
		return (-EINVAL);
	return (fd);
}

int
sock_peer_pidfd_ino(const void *arg)
{
	const sock_peer_ino_t *pi = arg;
	struct statfs sfs;
	struct stat st;
	int fd, err;

	if (pi->pi_pid <= 0 || pi->pi_ino == 0)
		return (-EINVAL);
	if ((fd = (int)syscall(SYS_pidfd_open, pi->pi_pid, 0)) < 0)
		return (-errno);
	/* only pidfs gives each process an inode of its own */
	if (fstatfs(fd, &sfs) == 0 && sfs.f_type == PIDFS_MAGIC &&
	    fstat(fd, &st) == 0 && (uint64_t)st.st_ino == pi->pi_ino)
		return (fd);
	err = errno;
	(void) close(fd);
	return (Pshort_of_fds(err) ? -err : -ESRCH);
}

/* Whether the process of pidfd is not reaped yet (a zombie still is). */
static int
pidfd_alive(int pidfd)
{
	return (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 ||
	    errno == EPERM);
}

/* The comm of the process that has pid now, into buf; 0, or an errno. */
static int
read_comm(pid_t pid, char *buf, size_t size)
{
	char path[32];
	ssize_t n;
	int fd;

	(void) snprintf(path, sizeof (path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (errno);
	n = read(fd, buf, size - 1);
	(void) close(fd);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n <= 0)
		return (ENOENT);
	buf[n] = '\0';
	return (0);
}

void
sock_peer_name(sockfacts_t *sf, sock_peer_pidfd_f *pidfd_of, const void *arg)
{
	int err, pidfd;

	if (!(sf->sf_have & SF_CRED) || sf->sf_cred.pid <= 0)
		return;
	err = read_comm(sf->sf_cred.pid, sf->sf_peercomm,
	    sizeof (sf->sf_peercomm));
	if (err == 0) {
		/* taken after the read: one fd at a time */
		if ((pidfd = pidfd_of(arg)) >= 0) {
			if (pidfd_alive(pidfd))
				sf->sf_have |= SF_PEERCOMM;
			(void) close(pidfd);
			return;
		}
		err = -pidfd;
	}
	/* what could not be tried is said, not taken for gone */
	if (Pshort_of_fds(err)) {
		sf->sf_gaps |= SF_PEERCOMM;
		if (sf->sf_gapwhy == NULL)
			sf->sf_gapwhy = nofd_why;
	}
}

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
 * The rule, once for every source (sock_peer_name): open /proc/PID, then
 * see that the recorded process is still alive (then PID is still its,
 * and was when /proc/PID was opened, so the directory is its), then read
 * its comm through that directory (which fails once it is gone).
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

static int
short_of_fds(int err)
{
	return (err == EMFILE || err == ENFILE);
}

int
sock_peer_pidfd(int s)
{
	int fd = -1;
	socklen_t len = sizeof (fd);

	if (getsockopt(s, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) != 0)
		return (-errno);
	if (len != sizeof (fd) || fd < 0)
		return (-EINVAL);
	return (fd);
}

int
sock_peer_pidfd_ino(pid_t pid, uint64_t ino)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if (pid <= 0 || ino == 0)
		return (-EINVAL);
	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) < 0)
		return (-errno);
	/* only pidfs gives each process an inode of its own */
	if (fstatfs(fd, &sfs) == 0 && sfs.f_type == PIDFS_MAGIC &&
	    fstat(fd, &st) == 0 && (uint64_t)st.st_ino == ino)
		return (fd);
	(void) close(fd);
	return (-ESRCH);
}

/* Whether the process of pidfd is not reaped yet (a zombie still is). */
static int
pidfd_alive(int pidfd)
{
	return (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0 ||
	    errno == EPERM);
}

void
sock_peer_name(sockfacts_t *sf, int pidfd)
{
	char path[32];
	ssize_t n;
	int dir, fd, alive, err = pidfd < 0 ? -pidfd : 0;

	dir = fd = -1;
	if (pidfd >= 0 && (sf->sf_have & SF_CRED) && sf->sf_cred.pid > 0) {
		(void) snprintf(path, sizeof (path), "/proc/%d",
		    (int)sf->sf_cred.pid);
		if ((dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			err = errno;
	}
	alive = dir >= 0 && pidfd_alive(pidfd);
	if (pidfd >= 0)
		(void) close(pidfd);	/* one fd fewer for the comm's */
	if (alive && (fd = openat(dir, "comm", O_RDONLY | O_CLOEXEC)) < 0)
		err = errno;
	if (dir >= 0)
		(void) close(dir);
	if (fd < 0) {
		/* what could not be tried is said, not taken for gone */
		if (short_of_fds(err)) {
			sf->sf_gaps |= SF_PEERCOMM;
			if (sf->sf_gapwhy == NULL)
				sf->sf_gapwhy = nofd_why;
		}
		return;
	}
	n = read(fd, sf->sf_peercomm, sizeof (sf->sf_peercomm) - 1);
	(void) close(fd);
	if (n > 0 && sf->sf_peercomm[n - 1] == '\n')
		n--;
	if (n > 0) {
		sf->sf_peercomm[n] = '\0';
		sf->sf_have |= SF_PEERCOMM;
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfile.c: the one reader of small files of /proc (stat, comm,
 * cmdline, limits, status).  Such a file is generated whole when it is
 * read, so the loop only guards against short reads and EINTR.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/Pcontrol.h"

ssize_t
proc_read_small(int dirfd, const char *name, char *buf, size_t bufsz)
{
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if (bufsz == 0) {
		errno = EINVAL;
		return (-1);
	}
	if ((fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	while (len < bufsz - 1) {
		n = read(fd, buf + len, bufsz - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			(void) close(fd);
			errno = e;
			return (-1);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	(void) close(fd);
	buf[len] = '\0';
	return ((ssize_t)len);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfile.c: the one reader of small files of /proc (stat, comm,
 * cmdline, limits, status).  Such a file is generated whole when it is
 * read, so the loop only guards against short reads and EINTR.  A file
 * that is one seq_file record (stat, comm, limits, status, a pidfd's
 * fdinfo) comes whole in the first read whose buffer holds it, and
 * cmdline is copied until the read is full or the arguments end: a read
 * that gives less than was asked for has reached the end, and
 * proc_read_record() makes no second read to see it (a grab reads five
 * such files; a run over a whole machine, thousands).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/Pcontrol.h"

static ssize_t
read_small(int dirfd, const char *name, char *buf, size_t bufsz, int record)
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
		if (record && (size_t)n < bufsz - 1 - (len - (size_t)n))
			break;		/* short: the record's end */
	}
	(void) close(fd);
	buf[len] = '\0';
	return ((ssize_t)len);
}

ssize_t
proc_read_small(int dirfd, const char *name, char *buf, size_t bufsz)
{
	return (read_small(dirfd, name, buf, bufsz, 0));
}

ssize_t
proc_read_record(int dirfd, const char *name, char *buf, size_t bufsz)
{
	return (read_small(dirfd, name, buf, bufsz, 1));
}

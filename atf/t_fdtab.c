/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_fdtab: the fd-table layer (libproc/fdtab/), on its own.
 *
 *  parsers	fd names and socket links: digits only, no overflow (a
 *		number one past the largest is no number at all)
 *  next	the one directory reader: the fds of a directory of this
 *		test's making, names that are not fds left out; and of
 *		this process's /proc/self/fd, the very fds fcntl sees
 *  has		"at least n fds", both sides of the count, and the
 *		directory left at its start
 *  read	this process's table read once: every fd in its runs,
 *		in increasing order (with the one the read opened for
 *		/proc/self/fd, the lowest free); its sockets (and only they) with the
 *		inode and mode fstat gives; a fd that is no socket has no
 *		stat there; the cursor hands the runs out a few at a time
 */
#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdtab/fdtab.h"

#define	NSOCK	6

ATF_TC_WITHOUT_HEAD(parsers);
ATF_TC_BODY(parsers, tc)
{
	static const struct {
		const char	*s;
		int		v;
	} dec[] = {
		{ "0", 0 }, { "7", 7 }, { "1024", 1024 },
		{ "2147483647", INT_MAX }, { "2147483648", -1 },
		{ "99999999999", -1 }, { "", -1 }, { ".", -1 }, { "..", -1 },
		{ "12a", -1 }, { "-1", -1 }, { " 1", -1 }, { "+1", -1 },
	};
	static const struct {
		const char	*s;
		uint64_t	v;
	} ino[] = {
		{ "socket:[1]", 1 }, { "socket:[4026531993]", 4026531993ULL },
		{ "socket:[18446744073709551615]", UINT64_MAX },
		{ "socket:[18446744073709551616]", 0 },
		{ "socket:[18446744073709551619]", 0 },
		{ "socket:[99999999999999999999]", 0 },
		{ "socket:[]", 0 }, { "socket:[12", 0 }, { "socket:12]", 0 },
		{ "pipe:[12]", 0 }, { "socket:[1a]", 0 }, { "socket:[-1]", 0 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof (dec) / sizeof (dec[0]); i++)
		ATF_CHECK_EQ_MSG(fdtab_decimal(dec[i].s), dec[i].v, "\"%s\"",
		    dec[i].s);
	for (size_t i = 0; i < sizeof (ino) / sizeof (ino[0]); i++)
		ATF_CHECK_MSG(fdtab_socket_ino(ino[i].s, strlen(ino[i].s)) ==
		    ino[i].v, "\"%s\"", ino[i].s);
}

/* All the fds fdtab_next gives of dirfd, into v (room for max). */
static size_t
list_all(int dirfd, int *v, size_t max)
{
	char *dents = malloc(FDTAB_DENTS);
	int *fds = malloc(FDTAB_BATCH * sizeof (int));
	size_t n = 0;
	long got;

	ATF_REQUIRE(dents != NULL && fds != NULL);
	while ((got = fdtab_next(dirfd, dents, fds)) > 0) {
		ATF_REQUIRE((size_t)got <= max - n);
		memcpy(v + n, fds, (size_t)got * sizeof (int));
		n += (size_t)got;
	}
	ATF_REQUIRE_EQ_MSG(got, 0, "%s", strerror(errno));
	free(dents);
	free(fds);
	return (n);
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

/* The fds open in this process, as fcntl sees them, into v. */
static size_t
open_fds(int *v, size_t max)
{
	size_t n = 0;

	for (int fd = 0; fd < 4096 && n < max; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			v[n++] = fd;
	return (n);
}

ATF_TC_WITHOUT_HEAD(next);
ATF_TC_BODY(next, tc)
{
	static const char *names[] = { "0", "1", "5", "300", "x", "07x",
	    "2147483648" };
	static const int want[] = { 0, 1, 5, 300 };
	char dir[] = "/tmp/t_fdtab.XXXXXX", path[PATH_MAX];
	int got[4096], mine[4096], d, f;
	size_t n, m;

	ATF_REQUIRE(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
		(void) snprintf(path, sizeof (path), "%s/%s", dir, names[i]);
		ATF_REQUIRE((f = open(path, O_CREAT | O_WRONLY, 0600)) >= 0);
		(void) close(f);
	}
	ATF_REQUIRE((d = open(dir, O_RDONLY | O_DIRECTORY)) >= 0);
	n = list_all(d, got, 4096);
	(void) close(d);
	for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
		(void) snprintf(path, sizeof (path), "%s/%s", dir, names[i]);
		(void) unlink(path);
	}
	(void) rmdir(dir);
	qsort(got, n, sizeof (int), int_cmp);
	ATF_REQUIRE_EQ(n, sizeof (want) / sizeof (want[0]));
	ATF_CHECK(memcmp(got, want, sizeof (want)) == 0);

	/* /proc/self/fd: the fds fcntl sees, and d itself, in order. */
	ATF_REQUIRE((d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY)) >= 0);
	m = open_fds(mine, 4096);
	n = list_all(d, got, 4096);
	(void) close(d);
	ATF_REQUIRE_EQ(n, m);
	ATF_CHECK(memcmp(got, mine, m * sizeof (int)) == 0);
}

ATF_TC_WITHOUT_HEAD(has);
ATF_TC_BODY(has, tc)
{
	char *dents = malloc(FDTAB_DENTS);
	int fds[FDTAB_BATCH], mine[4096], d;
	long m;

	ATF_REQUIRE(dents != NULL);
	ATF_REQUIRE((d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY)) >= 0);
	m = (long)open_fds(mine, 4096);
	ATF_CHECK(fdtab_has(d, m));
	ATF_CHECK(fdtab_has(d, 1));
	ATF_CHECK(!fdtab_has(d, m + 1));
	ATF_CHECK(!fdtab_has(-1, 1));
	/* Left at its start: the whole listing is still there. */
	ATF_CHECK_EQ(fdtab_next(d, dents, fds), m);
	(void) close(d);
	free(dents);
}

ATF_TC_WITHOUT_HEAD(read);
ATF_TC_BODY(read, tc)
{
	int sv[NSOCK][2], mine[4096], got[4096], pfd[2], procfd, low;
	fdtab_t t;
	fdcursor_t cur = { 0, 0 };
	struct statx stx;
	struct stat st;
	size_t m, n = 0, k = 0;
	long b;

	for (int i = 0; i < NSOCK; i++)
		ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]) == 0);
	ATF_REQUIRE(pipe(pfd) == 0);
	ATF_REQUIRE((procfd = open("/proc/self", O_RDONLY |
	    O_DIRECTORY)) >= 0);
	ATF_REQUIRE((low = dup(0)) >= 0);	/* the read's own fd */
	(void) close(low);
	memset(&t, 0, sizeof (t));
	ATF_CHECK_EQ(fdtab_fds(&t, &cur, got, 8), -1);	/* not read */
	ATF_REQUIRE_EQ(fdtab_read(&t, procfd, NULL, NULL), 0);
	m = open_fds(mine, 4095);
	mine[m++] = low;
	qsort(mine, m, sizeof (int), int_cmp);
	ATF_REQUIRE(t.ft_listed);
	/* Three at a time through the cursor: every fd, in order. */
	while ((b = fdtab_fds(&t, &cur, got + n, 3)) > 0) {
		ATF_REQUIRE(b <= 3);
		n += (size_t)b;
	}
	ATF_REQUIRE_EQ(b, 0);
	ATF_REQUIRE_EQ(n, m);
	ATF_CHECK(memcmp(got, mine, m * sizeof (int)) == 0);
	/* Its sockets: the socketpairs' and no other of this process's. */
	for (size_t i = 0; i < m; i++) {
		if (mine[i] == low)
			continue;
		ATF_REQUIRE(fstat(mine[i], &st) == 0);
		if (!S_ISSOCK(st.st_mode)) {
			ATF_CHECK_MSG(!fdtab_stat(&t, mine[i], &stx),
			    "fd %d is no socket", mine[i]);
			continue;
		}
		k++;
		ATF_REQUIRE_MSG(fdtab_stat(&t, mine[i], &stx), "fd %d",
		    mine[i]);
		ATF_CHECK_EQ(stx.stx_ino, st.st_ino);
		ATF_CHECK_EQ(stx.stx_mode, st.st_mode);
		ATF_CHECK_EQ(stx.stx_uid, st.st_uid);
	}
	ATF_CHECK(k >= 2 * NSOCK);
	ATF_CHECK_EQ(t.ft_nsocks, k);
	ATF_CHECK(!fdtab_stat(&t, pfd[0], &stx));
	fdtab_clear(&t);
	ATF_CHECK(t.ft_socks == NULL && t.ft_nsocks == 0 && !t.ft_listed);
	(void) close(procfd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, parsers);
	ATF_TP_ADD_TC(tp, next);
	ATF_TP_ADD_TC(tp, has);
	ATF_TP_ADD_TC(tp, read);
	return (atf_no_error());
}

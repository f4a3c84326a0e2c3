/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdtab.c: the one reader of fd directories, the parsers of their names
 * and links, and the answers of a table read once (fdtab.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fdtab/fdtab.h"

int
fdtab_decimal(const char *s)
{
	int v = 0;

	if (*s == '\0')
		return (-1);
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (INT_MAX - (*s - '0')) / 10)
			return (-1);
		v = v * 10 + (*s - '0');
	}
	return (v);
}

uint64_t
fdtab_socket_ino(const char *link, size_t n)
{
	uint64_t v = 0;

	if (n < 10 || memcmp(link, "socket:[", 8) != 0 || link[n - 1] != ']')
		return (0);
	for (size_t i = 8; i < n - 1; i++) {
		uint64_t d = (uint64_t)(link[i] - '0');

		if (link[i] < '0' || link[i] > '9' || v > (UINT64_MAX - d) / 10)
			return (0);
		v = v * 10 + d;
	}
	return (v);
}

/*
 * The fds the n bytes of records in dents name, into fds from *countp on.
 * Every record must fit in what is left, be no smaller than the kernel
 * makes one and hold its name's NUL: so no more than FDTAB_BATCH fit.
 * 0, or EPROTO.
 */
static int
parse_dents(const char *dents, long n, int *fds, long *countp)
{
	const size_t namepos = offsetof(struct dirent64, d_name);

	for (long off = 0; off < n; ) {
		const struct dirent64 *d = (const void *)(dents + off);
		int fd;

		if (n - off < FDTAB_DIRENT_MIN || d->d_reclen < FDTAB_DIRENT_MIN ||
		    d->d_reclen > n - off ||
		    memchr(d->d_name, '\0', d->d_reclen - namepos) == NULL)
			return (EPROTO);
		off += d->d_reclen;
		if ((fd = fdtab_decimal(d->d_name)) >= 0)
			fds[(*countp)++] = fd;
	}
	return (0);
}

long
fdtab_next(int dirfd, char *dents, int *fds)
{
	long n, count = 0;

	do {
		if ((n = syscall(SYS_getdents64, dirfd, dents,
		    FDTAB_DENTS)) < 0)
			return (-1);
		if ((errno = parse_dents(dents, n, fds, &count)) != 0)
			return (-1);
	} while (count == 0 && n > 0);	/* "." and ".." alone: on */
	return (count);
}

int
fdtab_has(int dirfd, long n)
{
	char dents[FDTAB_DENTS];
	int fds[FDTAB_BATCH];
	long count = 0, got;

	if (dirfd < 0 || lseek(dirfd, 0, SEEK_SET) != 0)
		return (0);
	while (count < n && (got = fdtab_next(dirfd, dents, fds)) > 0)
		count += got;
	(void) lseek(dirfd, 0, SEEK_SET);
	return (count >= n);
}

void
fdtab_clear(fdtab_t *t)
{
	free(t->ft_socks);
	free(t->ft_runs);
	memset(t, 0, sizeof (*t));
}

int
fdtab_stat(const fdtab_t *t, int fd, struct statx *stx)
{
	size_t lo = 0, hi = t->ft_nsocks;
	const fdsock_t *k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ft_socks[mid].fk_fd < fd)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->ft_nsocks || t->ft_socks[lo].fk_fd != fd)
		return (0);
	k = &t->ft_socks[lo];
	memset(stx, 0, sizeof (*stx));
	stx->stx_mode = (uint16_t)k->fk_mode;
	stx->stx_uid = k->fk_uid;
	stx->stx_gid = k->fk_gid;
	stx->stx_dev_major = k->fk_major;
	stx->stx_dev_minor = k->fk_minor;
	stx->stx_rdev_major = k->fk_rmajor;
	stx->stx_rdev_minor = k->fk_rminor;
	stx->stx_ino = k->fk_ino;
	stx->stx_size = k->fk_size;
	return (1);
}

long
fdtab_fds(const fdtab_t *t, fdcursor_t *c, int *fds, size_t max)
{
	size_t got = 0;

	if (!t->ft_listed)
		return (-1);
	while (c->c_run < t->ft_nruns && got < max) {
		const fdrun_t *r = &t->ft_runs[c->c_run];

		while (c->c_off < (size_t)r->r_n && got < max)
			fds[got++] = r->r_first + (int)c->c_off++;
		if (c->c_off == (size_t)r->r_n) {
			c->c_run++;
			c->c_off = 0;
		}
	}
	return ((long)got);
}

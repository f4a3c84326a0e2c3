/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdtab.h: a process's fd table as /proc/PID/fd lists it.  Below the walk
 * and the endpoints, on core alone.  Not installed.
 *
 * fdtab.c is the one reader of fd directories (getdents64: the fds of a
 * directory, a batch at a time, in the kernel's order, which for
 * /proc/PID/fd is increasing) and the parsers of their names and links.
 * fdtab_read.c reads a process's table once: its fds as runs of
 * consecutive numbers, and each socket's inode and stat, for the walk
 * and the endpoints both.
 */
#ifndef	_FDTAB_H
#define	_FDTAB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define	FDTAB_DENTS	32768		/* one getdents64 */
/*
 * The smallest record the kernel makes: 19 bytes before the name, a
 * one-character name and its NUL, rounded up to 8.  So one getdents64
 * names at most FDTAB_BATCH fds.
 */
#define	FDTAB_DIRENT_MIN	24
#define	FDTAB_BATCH	(FDTAB_DENTS / FDTAB_DIRENT_MIN)

/* A decimal name (digits only, at most INT_MAX): its value, or -1. */
extern int fdtab_decimal(const char *);
/* The inode of the link "socket:[INO]" of n bytes, or 0. */
extern uint64_t fdtab_socket_ino(const char *, size_t);

/*
 * The next fds of the fd directory dirfd, from one getdents64 or more
 * into dents (FDTAB_DENTS bytes): into fds (room for FDTAB_BATCH), in
 * the directory's order; their number, 0 at the end, or -1 with errno
 * (EPROTO for a record that does not hold together).
 */
extern long fdtab_next(int, char *, int *);
/*
 * Does the fd directory dirfd list at least n fds?  Read from its start;
 * left at its start.
 */
extern int fdtab_has(int, long);

/* A socket fd of the table, with its stat (a statx of /proc/PID/fd/N). */
typedef struct fdsock {
	int		fk_fd;
	uint32_t	fk_mode, fk_uid, fk_gid;
	uint32_t	fk_major, fk_minor, fk_rmajor, fk_rminor;
	uint64_t	fk_ino;
	uint64_t	fk_size;
} fdsock_t;

/* fds r_first to r_first + r_n - 1, all open when the table was read. */
typedef struct fdrun {
	int		r_first;
	int		r_n;
} fdrun_t;

/* A table read once (fdtab_read); zeroed: not read. */
typedef struct fdtab {
	fdsock_t	*ft_socks;	/* the socket fds, in fd order */
	size_t		ft_nsocks, ft_sockcap;
	fdrun_t		*ft_runs;	/* every fd, in increasing runs */
	size_t		ft_nruns, ft_runcap;
	int		ft_listed;	/* ft_runs is the table's */
} fdtab_t;

/*
 * Read the table of the process whose /proc directory is procfd into t
 * (emptied first): a statx of each fd (AT_STATX_DONT_SYNC), the sockets'
 * kept.  first(arg), when not NULL, is called as soon as a socket is
 * seen, once or more, maybe from another thread.  0 or an errno; t is
 * then empty.
 */
extern int fdtab_read(fdtab_t *, int, void (*)(void *), void *);
/* Let go of what t holds, and empty it. */
extern void fdtab_clear(fdtab_t *);

/*
 * The stat of fd when the table read saw it as a socket, into the statx
 * fields the walk uses: 1; else 0.  Safe from several threads.
 */
struct statx;
extern int fdtab_stat(const fdtab_t *, int, struct statx *);

/*
 * The table's fds from the cursor (zeroed at first): at most max into
 * fds, their number, 0 at the end; -1 when the table was not read.
 */
typedef struct fdcursor {
	size_t		c_run, c_off;
} fdcursor_t;
extern long fdtab_fds(const fdtab_t *, fdcursor_t *, int *, size_t);

#endif	/* _FDTAB_H */

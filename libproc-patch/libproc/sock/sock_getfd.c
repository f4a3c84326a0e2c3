/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_getfd.c: the facts of the target's sockets through pidfd_getfd(2)
 * (socksrc.h).  Each socket is duplicated into this process, asked
 * locally (sock_local.c) and closed at once.  Several at a time: each is
 * duplicated, then all are asked together, the options of all of them
 * in one system call where the kernel allows it, then all are closed
 * (sock_close.c: never one that lingers).  Per TCP socket whose names,
 * buffers and state the socket tables gave: one pidfd_getfd, one
 * getsockopt (TCP_NODELAY), and a share of two io_uring_enter (its
 * options, its close); without its state, one getsockopt more
 * (TCP_INFO).  Safe from several threads at once.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sock/socksrc.h"

#define	EXEC_TRIES	EXEC_SETTLE_MS	/* 1 ms each */

/*
 * pidfd_getfd(2).  While an exec by another thread hands the process
 * over to the exec'ing thread, the pidfd names no task for a moment
 * (ESRCH) although the process lives on: asked again, bounded.
 */
int
sock_getfd(struct ps_prochandle *P, int fd)
{
	int s;

	for (int i = 0; (s = (int)syscall(SYS_pidfd_getfd, PFD_PIDFD(P), fd,
	    0)) < 0 && errno == ESRCH && i < EXEC_TRIES && !Pexited(P); i++)
		(void) usleep(1000);
	return (s);
}

/*
 * The duplicate of ask's socket, or -1: with its answer in sa_err, or
 * (EMFILE, ENFILE) none yet, when *full says this process has no fd to
 * spare.
 */
static int
dup_of(struct ps_prochandle *P, sockask_t *ask, int *full)
{
	int s, err;

	*full = 0;
	if ((s = sock_getfd(P, ask->sa_fd)) >= 0)
		return (s);
	if ((err = errno) == EBADF)
		ask->sa_err = ENOENT;	/* closed since the walk */
	else if (Pexited(P))
		ask->sa_err = ESRCH;
	else if (Pshort_of_fds(err))
		*full = 1;
	else
		sockfacts_error(&ask->sa_facts, "pidfd_getfd: %s",
		    strerror(err));
	return (-1);
}

#define	MANY_MAX	64	/* sockets asked together, at most */

/* How many duplicates a batch may hold at once: at least one. */
static size_t
batch_room(void)
{
	size_t r = Pfd_room();

	return (r < 1 ? 1 : r > MANY_MAX ? MANY_MAX : r);
}

/* The m sockets of a batch, duplicated (s[i] < 0: not), asked, closed. */
static void
ask_batch(sockask_t *const *a, const int *s, size_t m)
{
	int err[MANY_MAX] = { 0 };
	uint64_t ino[MANY_MAX] = { 0 };
	sockfacts_t *sf[MANY_MAX] = { NULL };

	for (size_t i = 0; i < m; i++) {
		if (s[i] >= 0 && a[i]->sa_dent != NULL)
			sockfacts_from_table(&a[i]->sa_facts, a[i]->sa_tab,
			    a[i]->sa_dent, 1);
		ino[i] = a[i]->sa_ino;
		sf[i] = &a[i]->sa_facts;
		err[i] = 0;
	}
	sock_local_facts_many(s, ino, sf, err, m);
	for (size_t i = 0; i < m; i++) {
		if (s[i] < 0)
			continue;
		a[i]->sa_err = err[i];
		if (err[i] == 0)
			sockfacts_queues_from_table(sf[i], a[i]->sa_tab,
			    a[i]->sa_dent);
	}
	sock_close_many(s, sf, m);
}

/*
 * Batches of at most batch_room() sockets.  Out of fds while the batch
 * holds some: the batch is asked (its fds let go), and the socket
 * duplicated again, in a batch of its own; out of fds with none held,
 * the socket says so.
 */
void
sock_getfd_facts(struct ps_prochandle *P, sockask_t *asks, size_t n)
{
	sockask_t *a[MANY_MAX];
	int s[MANY_MAX];
	size_t room = batch_room(), m = 0;

	for (size_t i = 0; i < n; i++) {
		int full;

		asks[i].sa_err = 0;
		s[m] = dup_of(P, &asks[i], &full);
		if (full && m > 0) {
			ask_batch(a, s, m);
			m = 0;
			s[m] = dup_of(P, &asks[i], &full);
		}
		if (full)
			sockfacts_error(&asks[i].sa_facts, "pidfd_getfd: %s",
			    strerror(EMFILE));
		a[m++] = &asks[i];
		if (m == room || i == n - 1) {
			ask_batch(a, s, m);
			m = 0;
		}
	}
	sockask_backlogs(P, asks, n);
}

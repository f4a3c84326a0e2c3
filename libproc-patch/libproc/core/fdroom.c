/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdroom.c: how many fds of this process one builder of the walk may hold
 * at once (fdinfo files waiting to be closed together, duplicates of the
 * target's sockets asked together): a share of what RLIMIT_NOFILE leaves
 * beyond FD_SPARE for each of the walk's threads (at most 4, and the
 * caller's), so that a low limit is not run into.  The walk and the
 * sources that batch ask here, once: one rule for both.  Where none is
 * left to spare, nothing is done on a thread of its own either (a thread
 * opens fds of the same table, at moments no one chooses, and which of
 * two gets EMFILE would change from run to run): one fd at a time, in
 * order, each closed before the next is opened.
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/Pcontrol.h"

#define	FD_SPARE	64	/* fds of ours the batches leave */
#define	FD_HOLDERS	5	/* the walk's threads, and its caller */
#define	FD_ROOM_MAX	64

size_t
Pfd_room(void)
{
	static _Atomic size_t room;	/* + 1: 0 is not known yet */
	struct rlimit rl;
	size_t r = atomic_load_explicit(&room, memory_order_relaxed);

	if (r != 0)
		return (r - 1);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		r = FD_ROOM_MAX;
	else if (rl.rlim_cur <= FD_SPARE)
		r = 0;
	else
		r = (size_t)(rl.rlim_cur - FD_SPARE) / FD_HOLDERS;
	if (r > FD_ROOM_MAX)
		r = FD_ROOM_MAX;
	atomic_store_explicit(&room, r + 1, memory_order_relaxed);
	return (r);
}

int
Pconcurrent(void)
{
	static _Atomic int conc;	/* + 1: 0 is not known yet */
	int c = atomic_load_explicit(&conc, memory_order_relaxed);

	if (c != 0)
		return (c - 1);
	/* Asked before sysconf, which opens a file of /sys to answer. */
	c = Pfd_room() > 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	atomic_store_explicit(&conc, c + 1, memory_order_relaxed);
	return (c);
}

int
Pshort_of_fds(int err)
{
	return (err == EMFILE || err == ENFILE);
}

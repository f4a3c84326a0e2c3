/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pnetns.c: work done in another network namespace.  A socket belongs to
 * the network namespace of the thread that makes it, for its whole life,
 * wherever its fd goes after; so a socket of the target's namespace (a
 * netlink socket that dumps its tables, one bound to an abstract name
 * its processes can reach) is made by a short-lived thread of ours that
 * enters that namespace (setns(2), which changes the calling thread
 * alone), makes it, and ends.  pfiles' own threads never leave theirs.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "core/Pcontrol.h"

typedef struct netns_task {
	int		nt_nsfd;
	void		(*nt_fn)(void *);
	void		*nt_arg;
	int		nt_err;
} netns_task_t;

static void *
netns_thread(void *arg)
{
	netns_task_t *nt = arg;

	if (setns(nt->nt_nsfd, CLONE_NEWNET) != 0)
		nt->nt_err = errno;
	else
		nt->nt_fn(nt->nt_arg);
	return (NULL);
}

int
Pin_netns(int nsfd, void (*fn)(void *), void *arg)
{
	netns_task_t nt = { nsfd, fn, arg, 0 };
	sigset_t all, old;
	pthread_t t;
	int err;

	/* The thread takes no asynchronous signal of ours. */
	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t, NULL, netns_thread, &nt);
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0)
		return (err);
	(void) pthread_join(t, NULL);
	return (nt.nt_err);
}

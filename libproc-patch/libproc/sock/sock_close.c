/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_close.c: letting go of a duplicate of the target's socket without
 * ever waiting on it.
 *
 * A duplicate (pidfd_getfd, or passed by the agent) is one reference of
 * several, and closing it only drops ours.  But the target may close its
 * own fd, or exit, while we hold the duplicate: ours is then the last,
 * and closing the last reference of a TCP socket whose SO_LINGER is set
 * with a time and which still has unsent data waits for that time
 * (tcp_close): pfiles would wait on a peer that it does not control.
 *
 * The kernel never lingers on behalf of a task that is exiting
 * (inet_release: PF_EXITING).  So a socket that would linger is let go
 * by a short-lived thread of our own with its own fd table (unshare
 * CLONE_FILES), which holds a copy of the duplicate while we close ours;
 * its exit then drops the last reference, if that is the last, without
 * lingering.  Other sockets are closed at once: several together in one
 * system call where the kernel allows it (sock_ring.c).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sock/sock_ring.h"
#include "sock/socksrc.h"

#define	CLOSER_WAIT_S	2	/* for the thread to have its own table */

typedef struct closer {
	sem_t	c_ready;	/* posted once the thread has its table */
	sem_t	c_go;		/* posted once ours is closed */
	int	c_err;		/* unshare's errno */
} closer_t;

static int
sem_wait_eintr(sem_t *s)
{
	while (sem_wait(s) != 0) {
		if (errno != EINTR)
			return (-1);
	}
	return (0);
}

static void *
closer_main(void *arg)
{
	closer_t *c = arg;
	int err = unshare(CLONE_FILES) == 0 ? 0 : errno;

	c->c_err = err;
	(void) sem_post(&c->c_ready);
	if (err != 0)
		return (NULL);		/* the caller frees c */
	/* Our copy of the socket is let go by this thread's exit. */
	(void) sem_wait_eintr(&c->c_go);
	(void) sem_destroy(&c->c_ready);
	(void) sem_destroy(&c->c_go);
	free(c);
	return (NULL);
}

/* Would closing the last reference of s wait (SO_LINGER with a time)? */
static int
would_linger(int s, const sockfacts_t *sf)
{
	struct linger lg;
	socklen_t len = sizeof (lg);

	if (sf != NULL && (sf->sf_have & SF_LINGER))
		lg = sf->sf_linger;
	else if (getsockopt(s, SOL_SOCKET, SO_LINGER, &lg, &len) != 0 ||
	    len != sizeof (lg))
		return (0);	/* not a socket, or no linger to it */
	return (lg.l_onoff != 0 && lg.l_linger > 0);
}

/*
 * Close s through a closer thread.  0, or -1 when no thread could be had
 * (the caller then closes s itself).
 */
static int
close_by_exit(int s)
{
	struct timespec until;
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	closer_t *c;
	int err;

	if ((c = calloc(1, sizeof (*c))) == NULL)
		return (-1);
	if (sem_init(&c->c_ready, 0, 0) != 0 || sem_init(&c->c_go, 0, 0) != 0 ||
	    pthread_attr_init(&attr) != 0) {
		free(c);
		return (-1);
	}
	(void) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* No handler of the caller's runs on the closer. */
	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&t, &attr, closer_main, c);
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
	(void) pthread_attr_destroy(&attr);
	if (err != 0) {
		free(c);
		return (-1);
	}
	(void) clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += CLOSER_WAIT_S;
	while ((err = sem_timedwait(&c->c_ready, &until)) != 0 &&
	    errno == EINTR)
		continue;
	if (err != 0) {
		/* Not ready in time: it finishes (and frees c) on its own. */
		(void) sem_post(&c->c_go);
		return (-1);
	}
	if (c->c_err != 0) {
		free(c);
		return (-1);
	}
	(void) close(s);		/* the thread's copy remains */
	(void) sem_post(&c->c_go);
	return (0);
}

void
sock_close(int s, const sockfacts_t *sf)
{
	if (s < 0)
		return;
	if (would_linger(s, sf) && close_by_exit(s) == 0)
		return;
	(void) close(s);
}

void
sock_close_many(const int *s, sockfacts_t *const *sf, size_t n)
{
	int now[64];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0)
			continue;
		if (would_linger(s[i], sf[i]) && close_by_exit(s[i]) == 0)
			continue;
		if (k == sizeof (now) / sizeof (now[0])) {
			sockring_close(now, k);
			k = 0;
		}
		now[k++] = s[i];
	}
	sockring_close(now, k);
}

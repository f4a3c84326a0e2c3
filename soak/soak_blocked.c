/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_blocked.c: the soak target "blocked" (soak_target.c runs it).
 *
 * Six threads, the main thread among them, each blocked in one call after
 * another, in turn: read of a pipe, accept on a loopback listener, a futex
 * wait, a nanosleep, an epoll_wait with a timeout and one without.  Every
 * signal is blocked in them, so nothing may interrupt those calls.  A
 * controller thread ends the calls that wait for something, each after a
 * random 50-600 ms, by sending it a token naming that very wait (written
 * into the pipe, sent over a new loopback connection, or the futex word
 * set and woken).  Each waiter checks that its call
 *
 *  - never failed EINTR (but the timed epoll_wait, which does after
 *    any stop, as pfiles(1) says, and then waits for what it had left);
 *  - ended only when woken, with its own token (a read, an accept or an
 *    epoll_wait that returns without it was woken by something else; a
 *    futex wait that returns while its word is still 0, likewise);
 *  - when timed (nanosleep, the timed epoll_wait), lasted at least its
 *    time, on CLOCK_MONOTONIC, and brought no event.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "soak_target.h"

#define	MS		1000000LL
#define	WAITERS		6
/* An epoll_wait with no timeout fails EINTR after a stop (pfiles(1)). */
#if defined(__aarch64__)
#define	EINTR_SAID	1
#else
#define	EINTR_SAID	0
#endif

enum { W_READ, W_ACCEPT, W_FUTEX, W_SLEEP, W_EPOLL_TIMED, W_EPOLL_WAKE,
    W_KINDS };

static const char *const wait_name[W_KINDS] = {
	"a blocked read", "a blocked accept", "a futex wait", "a nanosleep",
	"a timed epoll_wait", "an epoll_wait with no timeout"
};

typedef struct waiter {
	int		w_idx;
	int		w_pipe[2];	/* the controller writes [1] */
	int		w_lsn;		/* its listener, on w_port */
	uint16_t	w_port;
	int		w_ep;		/* epoll of w_pipe[0] */
	uint32_t	w_futex;
	uint32_t	w_state;	/* the wait to end: seq << 4 | kind + 1 */
	uint32_t	w_planned;	/* the controller's: a wait it saw, */
	uint32_t	w_done;		/* and the last it ended */
	int64_t		w_wake_at;
} waiter_t;

typedef struct token {
	uint64_t	t_state;	/* the wait it ends */
	int64_t		t_sent_ns;
} token_t;

static waiter_t waiters[WAITERS];

static void
check_token(const token_t *t, ssize_t n, uint32_t st, int kind)
{
	if (n != (ssize_t)sizeof (*t))
		fail(C_WAKE, "%s ended with %zd bytes, not a token",
		    wait_name[kind], n);
	else if (t->t_state != st)
		fail(C_WAKE, "%s ended with the token of another wait (%#llx, "
		    "not %#x)", wait_name[kind],
		    (unsigned long long)t->t_state, st);
}

/* read(2) into t until it is not EINTR (each EINTR said). */
static ssize_t
read_token(int fd, token_t *t, int kind)
{
	ssize_t n;

	while ((n = read(fd, t, sizeof (*t))) < 0 && errno == EINTR)
		fail(C_EINTR, "%s failed EINTR", wait_name[kind]);
	return (n);
}

static void
wait_accept(waiter_t *w, uint32_t st)
{
	token_t t;
	ssize_t n;
	int a;

	while ((a = accept4(w->w_lsn, NULL, NULL, SOCK_CLOEXEC)) < 0 &&
	    errno == EINTR)
		fail(C_EINTR, "%s failed EINTR", wait_name[W_ACCEPT]);
	if (a < 0) {
		fail(C_WAKE, "accept: %s", strerror(errno));
		return;
	}
	(void) fd_note(a);
	while ((n = recv(a, &t, sizeof (t), MSG_WAITALL)) < 0 &&
	    errno == EINTR)
		fail(C_EINTR, "a recv failed EINTR");
	check_token(&t, n, st, W_ACCEPT);
	(void) pthread_mutex_lock(&soak_fd_mu);
	fd_drop_locked(a);
	(void) pthread_mutex_unlock(&soak_fd_mu);
}

static void
wait_futex(waiter_t *w)
{
	for (;;) {
		long r = syscall(SYS_futex, &w->w_futex, FUTEX_WAIT_PRIVATE,
		    0, NULL, NULL, 0);

		if (__atomic_load_n(&w->w_futex, __ATOMIC_ACQUIRE) != 0)
			return;
		if (r == 0)
			fail(C_WAKE, "%s returned 0 with nobody waking it",
			    wait_name[W_FUTEX]);
		else if (errno == EINTR)
			fail(C_EINTR, "%s failed EINTR", wait_name[W_FUTEX]);
		else if (errno != EAGAIN) {
			fail(C_WAKE, "futex: %s", strerror(errno));
			return;
		}
	}
}

/*
 * epoll_wait(timeout_ms); its time into *took.  A timed one that fails
 * EINTR (as after any stop: signal(7), pfiles(1)) waits again for what
 * it had left; one with no timeout must not fail EINTR (the agent
 * restarts it), but on aarch64, where pfiles(1) says it does.
 */
static int
epoll_once(waiter_t *w, int timeout_ms, int kind, int64_t *took)
{
	struct epoll_event ev;
	int64_t t0 = soak_now();
	int r, left = timeout_ms;

	while ((r = epoll_wait(w->w_ep, &ev, 1, left)) < 0 && errno == EINTR) {
		if (timeout_ms < 0 && !EINTR_SAID)
			fail(C_EINTR, "%s failed EINTR", wait_name[kind]);
		if (timeout_ms < 0)
			continue;
		left = timeout_ms - (int)((soak_now() - t0) / MS);
		if (left <= 0) {
			r = 0;
			break;
		}
	}
	*took = soak_now() - t0;
	if (r < 0)
		fail(C_WAKE, "epoll_wait: %s", strerror(errno));
	return (r);
}

static void
wait_epoll(waiter_t *w, uint32_t st, int timeout_ms)
{
	int kind = timeout_ms < 0 ? W_EPOLL_WAKE : W_EPOLL_TIMED;
	int64_t took;
	token_t t;
	int r = epoll_once(w, timeout_ms, kind, &took);

	if (kind == W_EPOLL_TIMED) {
		if (r > 0)
			fail(C_WAKE, "%s of %d ms brought an event nobody "
			    "sent", wait_name[kind], timeout_ms);
		else if (r == 0 && took < timeout_ms * MS)
			fail(C_EARLY, "%s of %d ms ended after %lld us",
			    wait_name[kind], timeout_ms,
			    (long long)(took / 1000));
	} else if (r == 0) {
		fail(C_WAKE, "%s returned 0", wait_name[kind]);
	} else if (r > 0) {
		check_token(&t, read_token(w->w_pipe[0], &t, kind), st, kind);
	}
}

/* One wait of kind, the seq-th of waiter w. */
static void
wait_once(waiter_t *w, int kind, uint32_t seq, unsigned *seed)
{
	int ms = 50 + (int)(soak_rand(seed) % 551);
	uint32_t st = seq << 4 | (uint32_t)(kind + 1);
	token_t t;

	if (kind == W_SLEEP || kind == W_EPOLL_TIMED) {
		if (kind == W_SLEEP)
			sleep_checked(ms * MS, 0, wait_name[kind]);
		else
			wait_epoll(w, 0, ms);
		return;
	}
	__atomic_store_n(&w->w_futex, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&w->w_state, st, __ATOMIC_RELEASE);
	if (kind == W_READ)
		check_token(&t, read_token(w->w_pipe[0], &t, kind), st, kind);
	else if (kind == W_ACCEPT)
		wait_accept(w, st);
	else if (kind == W_FUTEX)
		wait_futex(w);
	else
		wait_epoll(w, st, -1);
	__atomic_store_n(&w->w_state, 0, __ATOMIC_RELEASE);
}

static void __attribute__((__noreturn__))
waiter_loop(waiter_t *w)
{
	uint64_t want = block_all();
	unsigned seed = (unsigned)w->w_idx * 7919u + 1u;

	for (uint32_t seq = 1;; seq++) {
		wait_once(w, (int)((seq + (uint32_t)w->w_idx) % W_KINDS), seq,
		    &seed);
		check_mask(&want, "a waiter");
	}
}

static void *
waiter_thread(void *arg)
{
	waiter_loop(arg);
}

/* End the wait st of w: a token, a connection, or the futex woken. */
static void
wake(waiter_t *w, uint32_t st)
{
	token_t t = { st, soak_now() };
	int kind = (int)(st & 15) - 1, c;

	if (kind == W_READ || kind == W_EPOLL_WAKE) {
		if (write(w->w_pipe[1], &t, sizeof (t)) != (ssize_t)sizeof (t))
			fail(C_SETUP, "the controller's write: %s",
			    strerror(errno));
	} else if (kind == W_ACCEPT) {
		(void) pthread_mutex_lock(&soak_fd_mu);
		if ((c = loopback_connect(w->w_port)) >= 0)
			fd_note_locked(c);
		(void) pthread_mutex_unlock(&soak_fd_mu);
		if (c < 0) {
			fail(C_SETUP, "the controller's connect: %s",
			    strerror(errno));
			return;
		}
		if (send(c, &t, sizeof (t), MSG_NOSIGNAL) != (ssize_t)sizeof (t))
			fail(C_SETUP, "the controller's send: %s",
			    strerror(errno));
		(void) pthread_mutex_lock(&soak_fd_mu);
		fd_drop_locked(c);
		(void) pthread_mutex_unlock(&soak_fd_mu);
	} else if (kind == W_FUTEX) {
		__atomic_store_n(&w->w_futex, 1, __ATOMIC_RELEASE);
		(void) syscall(SYS_futex, &w->w_futex, FUTEX_WAKE_PRIVATE, 1,
		    NULL, NULL, 0);
	}
}

/* A wait seen the first time is planned; ended once its time comes. */
static void
tend(waiter_t *w, int64_t now, unsigned *seed)
{
	uint32_t st = __atomic_load_n(&w->w_state, __ATOMIC_ACQUIRE);

	if (st == 0 || st == w->w_done)
		return;
	if (st != w->w_planned) {
		w->w_planned = st;
		w->w_wake_at = now + (50 + (int64_t)(soak_rand(seed) % 551)) *
		    MS;
	} else if (now >= w->w_wake_at) {
		wake(w, st);
		w->w_done = st;
	}
}

static void *
controller(void *arg)
{
	uint64_t mine = block_all();
	unsigned seed = 4242;

	(void) arg;
	for (;;) {
		int64_t now = soak_now();

		for (int i = 0; i < WAITERS; i++)
			tend(&waiters[i], now, &seed);
		check_mask(&mine, "the controller");
		sleep_checked(5 * MS, 0, "the controller");
	}
	return (NULL);
}

static void
blocked_setup(void)
{
	for (int i = 0; i < WAITERS; i++) {
		waiter_t *w = &waiters[i];
		struct epoll_event ev = { .events = EPOLLIN };

		w->w_idx = i;
		if (pipe2(w->w_pipe, O_CLOEXEC) != 0 ||
		    (w->w_ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
			die_setup("pipe, epoll");
		ev.data.fd = w->w_pipe[0];
		if (epoll_ctl(w->w_ep, EPOLL_CTL_ADD, w->w_pipe[0], &ev) != 0)
			die_setup("epoll_ctl");
		(void) fd_note(w->w_pipe[0]);
		(void) fd_note(w->w_pipe[1]);
		(void) fd_note(w->w_ep);
		w->w_lsn = loopback_listener(&w->w_port);
	}
}

static void
blocked_run(void)
{
	for (int i = 1; i < WAITERS; i++)
		(void) spawn(waiter_thread, &waiters[i], 1);
	waiter_loop(&waiters[0]);
}

const soak_mode_t soak_mode_blocked = {
	"blocked", blocked_setup, controller, blocked_run, 0, 100
};

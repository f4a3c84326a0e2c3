/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_ring.c: getsockopt(2) calls and the ioctls SIOCINQ and SIOCOUTQ in
 * batches, through an io_uring of the calling thread's (sock_ring.h).
 *
 * Each thread that asks gets a small ring of its own at its first batch
 * (io_uring_setup and three mappings, or one a thread that has exited
 * left), kept for its next batches and left for the next thread when it
 * exits (a thread-specific key's destructor).  A batch is
 * written as one SQE per request (IORING_OP_URING_CMD,
 * SOCKET_URING_OP_GETSOCKOPT, or SOCKET_URING_OP_SIOCINQ or SIOCOUTQ,
 * whose completion is the ioctl's answer) and handed over with one
 * io_uring_enter,
 * which waits for every completion: the kernel runs these commands at
 * once, in the submitting thread, so the enter returns with them done.
 *
 * What the ring cannot take is asked with getsockopt(2) or ioctl(2):
 *  - options of another level than SOL_SOCKET (the kernel refuses them);
 *  - everything, once io_uring_setup failed for want of io_uring
 *    (ENOSYS), or by policy (EPERM: kernel.io_uring_disabled, or a
 *    seccomp filter; EACCES); io_uring is then not tried again; and
 *    everything while RLIMIT_NOFILE leaves no fd to spare (a ring is
 *    one: Pfd_room());
 *  - the sockets of a family whose command the kernel refused
 *    (EOPNOTSUPP or EINVAL from the ring, while getsockopt(2) or ioctl(2)
 *    answered the same request), known for getsockopt and for the ioctls
 *    apart: before Linux 6.7 no socket takes the command, and the ioctls
 *    are refused to a socket whose protocol has no ioctl of its own
 *    (unix sockets), which some kernels refuse getsockopt too, and 6.18
 *    does not.  A request refused by both is refused: that is the answer
 *    (SIOCINQ of a listener).
 */
#include <errno.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/Pcontrol.h"
#include "sock/sock_ring.h"

/*
 * include/uapi/linux/io_uring.h, Linux 6.7 (not in older headers; an
 * enum's, which #ifndef cannot see: these come after it).
 */
#ifndef	SOCKET_URING_OP_GETSOCKOPT
#define	SOCKET_URING_OP_SIOCINQ		0
#define	SOCKET_URING_OP_SIOCOUTQ	1
#define	SOCKET_URING_OP_GETSOCKOPT	2
#endif

/*
 * The kernel's own "no such ioctl" (include/linux/errno.h), which a
 * protocol's ioctl gives the ring as it is: ioctl(2) makes it ENOTTY.
 */
#define	ENOIOCTLCMD	515

#define	RING_ENTRIES	512	/* SQEs; the CQ ring is twice that */
#define	RING_FAMILIES	64

typedef struct ring {
	int		r_fd;
	void		*r_sq, *r_cq;	/* r_cq == r_sq: one mapping */
	size_t		r_sqlen, r_cqlen;
	struct io_uring_sqe *r_sqes;
	size_t		r_sqeslen;
	unsigned	*r_sqtail, *r_sqmask, *r_sqarray, r_sqentries;
	unsigned	*r_cqhead, *r_cqtail, *r_cqmask;
	struct io_uring_cqe *r_cqes;
} ring_t;

/* io_uring: 0 while it may serve, -1 once it cannot be had at all. */
static _Atomic int ring_state;
/*
 * The families whose sockets refuse the command: a bit each, for
 * getsockopt and for the ioctls apart, which a kernel may serve one and
 * not the other (above).
 */
static _Atomic uint64_t refused_families, refused_ioctl_families;

static pthread_key_t ring_key;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;
static int ring_key_ok;

static void
ring_free(ring_t *r)
{
	if (r == NULL)
		return;
	if (r->r_sqes != NULL)
		(void) munmap(r->r_sqes, r->r_sqeslen);
	if (r->r_cq != NULL && r->r_cq != r->r_sq)
		(void) munmap(r->r_cq, r->r_cqlen);
	if (r->r_sq != NULL)
		(void) munmap(r->r_sq, r->r_sqlen);
	if (r->r_fd >= 0)
		(void) close(r->r_fd);
	free(r);
}

/*
 * Rings of threads that have exited, for the next threads to take: the
 * walk's workers last one batch of fds each, and a ring outlives them
 * (io_uring_setup and three mappings saved per thread).  A ring may be
 * used by any thread of the process (no IORING_SETUP_SINGLE_ISSUER), one
 * at a time.
 */
#define	RING_POOL	4
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static ring_t *pool[RING_POOL];
static int npool;

static void
ring_destroy(void *arg)
{
	(void) pthread_mutex_lock(&pool_lock);
	if (npool < RING_POOL) {
		pool[npool++] = arg;
		arg = NULL;
	}
	(void) pthread_mutex_unlock(&pool_lock);
	ring_free(arg);
}

/* A ring from the pool, or NULL. */
static ring_t *
pool_take(void)
{
	ring_t *r = NULL;

	(void) pthread_mutex_lock(&pool_lock);
	if (npool > 0)
		r = pool[--npool];
	(void) pthread_mutex_unlock(&pool_lock);
	return (r);
}

static void
key_init(void)
{
	ring_key_ok = pthread_key_create(&ring_key, ring_destroy) == 0;
}

static void *
map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, fd, off);

	return (p == MAP_FAILED ? NULL : p);
}

/*
 * A new ring, or NULL (errno).  Flags of newer kernels are asked for
 * first (IORING_SETUP_SUBMIT_ALL: one bad SQE does not stop the batch;
 * IORING_SETUP_COOP_TASKRUN: no interrupt to post a completion), then
 * none.
 */
static ring_t *
ring_new(void)
{
	struct io_uring_params p;
	ring_t *r;
	int fd = -1;

	for (int i = 0; i < 2 && fd < 0; i++) {
		memset(&p, 0, sizeof (p));
		if (i == 0)
			p.flags = IORING_SETUP_SUBMIT_ALL |
			    IORING_SETUP_COOP_TASKRUN;
		fd = (int)syscall(SYS_io_uring_setup, RING_ENTRIES, &p);
		if (fd < 0 && errno != EINVAL)
			return (NULL);
	}
	if (fd < 0)
		return (NULL);
	if ((r = calloc(1, sizeof (*r))) == NULL) {
		(void) close(fd);
		errno = ENOMEM;
		return (NULL);
	}
	r->r_fd = fd;
	r->r_sqlen = p.sq_off.array + p.sq_entries * sizeof (unsigned);
	r->r_cqlen = p.cq_off.cqes + p.cq_entries *
	    sizeof (struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->r_cqlen > r->r_sqlen)
			r->r_sqlen = r->r_cqlen;
		r->r_cqlen = r->r_sqlen;
	}
	r->r_sqeslen = p.sq_entries * sizeof (struct io_uring_sqe);
	if ((r->r_sq = map(fd, r->r_sqlen, IORING_OFF_SQ_RING)) == NULL ||
	    (r->r_cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? r->r_sq :
	    map(fd, r->r_cqlen, IORING_OFF_CQ_RING)) == NULL ||
	    (r->r_sqes = map(fd, r->r_sqeslen, IORING_OFF_SQES)) == NULL) {
		int err = errno;

		ring_free(r);
		errno = err;
		return (NULL);
	}
	r->r_sqtail = (unsigned *)(void *)((char *)r->r_sq + p.sq_off.tail);
	r->r_sqmask = (unsigned *)(void *)((char *)r->r_sq +
	    p.sq_off.ring_mask);
	r->r_sqarray = (unsigned *)(void *)((char *)r->r_sq + p.sq_off.array);
	r->r_sqentries = p.sq_entries;
	r->r_cqhead = (unsigned *)(void *)((char *)r->r_cq + p.cq_off.head);
	r->r_cqtail = (unsigned *)(void *)((char *)r->r_cq + p.cq_off.tail);
	r->r_cqmask = (unsigned *)(void *)((char *)r->r_cq +
	    p.cq_off.ring_mask);
	r->r_cqes = (struct io_uring_cqe *)(void *)((char *)r->r_cq +
	    p.cq_off.cqes);
	return (r);
}

/*
 * This thread's ring, made at its first use; NULL when there is none to
 * be had.  A refusal by policy or want of io_uring is for every thread.
 */
static ring_t *
thread_ring(void)
{
	ring_t *r;

	/* A ring is an fd: none under a low RLIMIT_NOFILE. */
	if (atomic_load_explicit(&ring_state, memory_order_relaxed) < 0 ||
	    Pfd_room() == 0)
		return (NULL);
	(void) pthread_once(&ring_once, key_init);
	if (!ring_key_ok)
		return (NULL);
	if ((r = pthread_getspecific(ring_key)) != NULL)
		return (r);
	if ((r = pool_take()) == NULL && (r = ring_new()) == NULL) {
		if (errno == ENOSYS || errno == EPERM || errno == EACCES)
			atomic_store(&ring_state, -1);
		return (NULL);
	}
	if (pthread_setspecific(ring_key, r) != 0) {
		ring_free(r);
		return (NULL);
	}
	return (r);
}

/* This thread's ring is let go (a batch it could not finish). */
static void
drop_ring(ring_t *r)
{
	(void) pthread_setspecific(ring_key, NULL);
	ring_free(r);
}

static void
ask_plain(sockopt_req_t *q)
{
	socklen_t len = q->sr_len;

	if (q->sr_level == SOCKRING_IOCTL) {
		if (q->sr_len != sizeof (int))
			q->sr_err = EINVAL;
		else
			q->sr_err = ioctl(q->sr_fd, (unsigned long)q->sr_name,
			    q->sr_val) == 0 ? 0 : errno;
		return;
	}
	q->sr_err = getsockopt(q->sr_fd, q->sr_level, q->sr_name, q->sr_val,
	    &len) == 0 ? 0 : errno;
	if (q->sr_err == 0)
		q->sr_len = len;
}

/* The ring's command for q; -1 for none. */
static int
ring_op(const sockopt_req_t *q)
{
	if (q->sr_level == SOL_SOCKET)
		return (SOCKET_URING_OP_GETSOCKOPT);
	if (q->sr_level == SOCKRING_IOCTL && q->sr_len == sizeof (int))
		return (q->sr_name == SIOCINQ ? SOCKET_URING_OP_SIOCINQ :
		    q->sr_name == SIOCOUTQ ? SOCKET_URING_OP_SIOCOUTQ : -1);
	return (-1);
}

static uint64_t
family_bit(int family)
{
	return (family >= 0 && family < RING_FAMILIES ?
	    (uint64_t)1 << family : 0);
}

int
sockring_serves(int family)
{
	if (atomic_load(&ring_state) < 0)
		return (-1);
	return ((atomic_load(&refused_families) & family_bit(family)) == 0);
}

/* The families that refuse q's kind of command. */
static _Atomic uint64_t *
refused_of(const sockopt_req_t *q)
{
	return (q->sr_level == SOCKRING_IOCTL ? &refused_ioctl_families :
	    &refused_families);
}

/* May q go to the ring? */
static int
ring_takes(const sockopt_req_t *q)
{
	return (ring_op(q) >= 0 && (atomic_load_explicit(refused_of(q),
	    memory_order_relaxed) & family_bit(q->sr_family)) == 0);
}

/* The ring's answer res to q. */
static void
answered(sockopt_req_t *q, int res)
{
	if (res >= 0) {
		/* An ioctl's answer is the value; getsockopt's, the length. */
		if (q->sr_level == SOCKRING_IOCTL)
			memcpy(q->sr_val, &res, sizeof (res));
		else
			q->sr_len = (socklen_t)res;
		q->sr_err = 0;
		return;
	}
	if (res != -EOPNOTSUPP && res != -EINVAL && res != -ENOIOCTLCMD) {
		q->sr_err = -res;
		return;
	}
	/* The command refused, or the request: the plain call tells which. */
	ask_plain(q);
	if (q->sr_err == 0) {
		uint64_t bit = family_bit(q->sr_family);

		if (bit != 0)
			(void) atomic_fetch_or(refused_of(q), bit);
		else
			atomic_store(&ring_state, -1);
	}
}

static int
enter(ring_t *r, unsigned submit, unsigned wait)
{
	long n;

	while ((n = syscall(SYS_io_uring_enter, r->r_fd, submit, wait,
	    IORING_ENTER_GETEVENTS, NULL, 0)) < 0 && errno == EINTR)
		submit = 0;	/* they were taken; wait on */
	return (n < 0 ? -1 : 0);
}

/* One SQE for q, whose index in the batch is idx. */
static void
put_sqe(ring_t *r, unsigned slot, const sockopt_req_t *q, size_t idx)
{
	struct io_uring_sqe *sqe = &r->r_sqes[slot];
	uint32_t lvl[2] = { (uint32_t)q->sr_level, (uint32_t)q->sr_name };

	memset(sqe, 0, sizeof (*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->sr_fd;
	sqe->cmd_op = (uint32_t)ring_op(q);
	if (sqe->cmd_op == SOCKET_URING_OP_GETSOCKOPT) {
		memcpy(&sqe->addr, lvl, sizeof (lvl));	/* level, optname */
		sqe->file_index = (uint32_t)q->sr_len;	/* optlen */
		sqe->addr3 = (uint64_t)(uintptr_t)q->sr_val;	/* optval */
	}
	sqe->user_data = idx;
	r->r_sqarray[slot] = slot;
}

/*
 * One round: up to a ring's worth of v[*next...] in one enter, the
 * others asked plainly.  -1 when the ring failed (the caller answers
 * what is left plainly; what was taken is answered).
 */
static int
one_round(ring_t *r, sockopt_req_t *v, size_t n, size_t *next)
{
	unsigned tail = *r->r_sqtail, mask = *r->r_sqmask, k = 0, got = 0;

	for (; *next < n && k < r->r_sqentries; (*next)++) {
		if (!ring_takes(&v[*next])) {
			ask_plain(&v[*next]);
			continue;
		}
		put_sqe(r, (tail + k) & mask, &v[*next], *next);
		k++;
	}
	if (k == 0)
		return (0);
	atomic_store_explicit((_Atomic unsigned *)r->r_sqtail, tail + k,
	    memory_order_release);
	if (enter(r, k, k) != 0)
		return (-1);
	while (got < k) {
		unsigned head = *r->r_cqhead;
		unsigned ctail = atomic_load_explicit(
		    (_Atomic unsigned *)r->r_cqtail, memory_order_acquire);

		if (head == ctail) {
			if (enter(r, 0, k - got) != 0)
				return (-1);
			continue;
		}
		for (; head != ctail; head++, got++) {
			const struct io_uring_cqe *c =
			    &r->r_cqes[head & *r->r_cqmask];

			if (c->user_data < n)
				answered(&v[c->user_data], c->res);
		}
		atomic_store_explicit((_Atomic unsigned *)r->r_cqhead, head,
		    memory_order_release);
	}
	return (0);
}

/*
 * Close n fds: one IORING_OP_CLOSE each, in rounds of a ring's worth, one
 * enter a round; close(2) for each the ring did not close.
 */
void
sockring_close(const int *fds, size_t n)
{
	ring_t *r = thread_ring();
	size_t next = 0;

	while (r != NULL && next < n) {
		unsigned tail = *r->r_sqtail, mask = *r->r_sqmask, k = 0;
		unsigned got = 0;
		size_t first = next;

		for (; next < n && k < r->r_sqentries; next++, k++) {
			struct io_uring_sqe *sqe = &r->r_sqes[(tail + k) & mask];

			memset(sqe, 0, sizeof (*sqe));
			sqe->opcode = IORING_OP_CLOSE;
			sqe->fd = fds[next];
			sqe->user_data = next;
			r->r_sqarray[(tail + k) & mask] = (tail + k) & mask;
		}
		atomic_store_explicit((_Atomic unsigned *)r->r_sqtail,
		    tail + k, memory_order_release);
		if (enter(r, k, k) != 0) {
			/* Which were closed is not known: none is again. */
			drop_ring(r);
			return;
		}
		while (got < k) {
			unsigned head = *r->r_cqhead;
			unsigned ctail = atomic_load_explicit(
			    (_Atomic unsigned *)r->r_cqtail,
			    memory_order_acquire);

			if (head == ctail) {
				if (enter(r, 0, k - got) != 0) {
					drop_ring(r);
					return;
				}
				continue;
			}
			for (; head != ctail; head++, got++) {
				const struct io_uring_cqe *c =
				    &r->r_cqes[head & *r->r_cqmask];

				/* Refused (not closed): close(2) does it. */
				if (c->res < 0 && c->res != -EBADF &&
				    c->user_data >= first && c->user_data < n)
					(void) close(fds[c->user_data]);
			}
			atomic_store_explicit((_Atomic unsigned *)r->r_cqhead,
			    head, memory_order_release);
		}
	}
	for (; next < n; next++)
		(void) close(fds[next]);
}

void
sockring_ask(sockopt_req_t *v, size_t n)
{
	ring_t *r = thread_ring();
	size_t next = 0;

	for (size_t i = 0; i < n; i++)
		v[i].sr_err = -1;	/* not answered yet */
	while (r != NULL && next < n) {
		if (one_round(r, v, n, &next) != 0) {
			drop_ring(r);
			r = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].sr_err == -1)
			ask_plain(&v[i]);
	}
}

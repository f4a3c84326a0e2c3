/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_pass.c: the agent's fast path, our side: our sockets, the
 * messages received and the duplicates they bring, and which fd of the
 * walk is served from which (sock_pass.h says how a round goes).  The
 * facts of a passed socket are asked of the duplicate by sock_local.c,
 * exactly as the pidfd source asks them, so that both print the same by
 * construction.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/agent.h"
#include "src/agent/sock_pass.h"

/* ------------------------------------------------------------------ */
/* Our side. */

static void
close_all(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sock_close(fds[i], NULL);
}

/* Let the duplicates of the message received go. */
static void
drop_held(sock_pass_t *sp)
{
	for (size_t i = 0; i < sp->sp_nent; i++) {
		if (sp->sp_ent[i].pe_local >= 0)
			sock_close(sp->sp_ent[i].pe_local, NULL);
	}
	sp->sp_nent = 0;
	sp->sp_epos = 0;
}

/*
 * The fds of one message's control data, into got[] (at most cap; the
 * rest are closed), and the sender's pid.  Their count.
 */
static size_t
take_control(struct msghdr *mh, int *got, size_t cap, pid_t *fromp)
{
	size_t n = 0;

	*fromp = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	    c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_len < CMSG_LEN(0))
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len == CMSG_LEN(sizeof (struct ucred))) {
			struct ucred uc;

			memcpy(&uc, CMSG_DATA(c), sizeof (uc));
			*fromp = uc.pid;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof (int);

			for (size_t i = 0; i < k; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof (int),
				    sizeof (fd));
				if (n < cap)
					got[n++] = fd;
				else
					sock_close(fd, NULL);
			}
		}
	}
	return (n);
}

int
pass_msg_wanted(pid_t want, pid_t from, ssize_t len, uint64_t payload,
    uint64_t seq, int msg_flags)
{
	return (want != 0 && from == want &&
	    len == (ssize_t)sizeof (payload) && payload == seq &&
	    !(msg_flags & MSG_TRUNC));
}

/*
 * Receive from slot ps the message with its payload (ps_seq) from pid:
 * the duplicates of the first *np of the n fds sent (fewer when our fd
 * limit cut it short).  Any other message is discarded, its fds closed.  0, or
 * ENOMSG when the message is not there.  With pid 0 (draining), nothing
 * is wanted, and every message is discarded.
 */
static int
receive(const pass_slot_t *ps, pid_t pid, int *got, size_t n, size_t *np,
    int *shortp)
{
	union {
		struct cmsghdr	align;
		uint8_t		buf[CMSG_SPACE(sizeof (struct ucred)) +
				    CTL_MAX];
	} ctl;

	for (int m = 0; m < PASS_MAX_MSGS; m++) {
		struct msghdr mh;
		struct iovec iov;
		uint64_t payload = 0;
		ssize_t len;
		size_t k;
		pid_t from;

		memset(&mh, 0, sizeof (mh));
		iov.iov_base = &payload;
		iov.iov_len = sizeof (payload);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof (ctl.buf);
		len = recvmsg(ps->ps_sock, &mh, MSG_DONTWAIT |
		    MSG_CMSG_CLOEXEC);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return (errno == EAGAIN ? ENOMSG : errno);
		k = take_control(&mh, got, n, &from);
		if (!pass_msg_wanted(pid, from, len, payload, ps->ps_seq,
		    mh.msg_flags)) {
			close_all(got, k);	/* not the one we wait for */
			continue;
		}
		*shortp = (mh.msg_flags & MSG_CTRUNC) != 0 || k < n;
		*np = k;
		return (0);
	}
	return (ENOMSG);
}

/* Discard what waits in a slot. */
static void
drain_slot(pass_slot_t *ps)
{
	int got[PASS_MAX_FDS], sh;
	size_t k;

	if (ps->ps_waiting && ps->ps_sock >= 0)
		(void) receive(ps, 0, got, PASS_MAX_FDS, &k, &sh);
	ps->ps_waiting = 0;
}

static void
drain_all(sock_pass_t *sp)
{
	for (int j = 0; j < PASS_SLOTS; j++)
		drain_slot(&sp->sp_slot[j]);
}

/* The source's release: everything of ours goes. */
void
sock_pass_release(struct ps_prochandle *P)
{
	sock_pass_t *sp = P->src_data;

	if (sp == NULL)
		return;
	drop_held(sp);
	/* Closing a socket drops what waits in it, and the fds in flight. */
	for (int j = 0; j < PASS_SLOTS; j++) {
		if (sp->sp_slot[j].ps_sock >= 0)
			(void) close(sp->sp_slot[j].ps_sock);
	}
	free(sp->sp_batch);
	free(sp);
	P->src_data = NULL;
}

/* Passing stops for this grab; what is held or waits is let go. */
static void
pass_off(sock_pass_t *sp)
{
	sp->sp_off = 1;
	drop_held(sp);
	drain_all(sp);
}

/*
 * Is the target in our network namespace?  Abstract names are per
 * namespace.  When either cannot be looked at, it is taken to be: a
 * name the target cannot reach fails the sendmsg, and passing stops.
 */
static int
same_netns(struct ps_prochandle *P)
{
	struct stat mine, theirs;

	if (stat("/proc/thread-self/ns/net", &mine) != 0 ||
	    fstatat(P->procfd, "ns/net", &theirs, 0) != 0)
		return (1);
	return (mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino);
}

static int
random_bytes(void *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (getrandom(buf, len, GRND_NONBLOCK) == (ssize_t)len)
		return (0);
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	n = read(fd, buf, len);
	(void) close(fd);
	return (n == (ssize_t)len ? 0 : -1);
}

/* Our sockets, their names, the first payload.  0 or an errno. */
static int
open_slots(sock_pass_t *sp)
{
	uint64_t rnd[3];
	int on = 1;

	if (random_bytes(rnd, sizeof (rnd)) != 0)
		return (EAGAIN);
	sp->sp_seq = rnd[2];
	for (int j = 0; j < PASS_SLOTS; j++) {
		pass_slot_t *ps = &sp->sp_slot[j];
		int s, n;

		if ((s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
			return (errno);
		ps->ps_sock = s;
		memset(&ps->ps_addr, 0, sizeof (ps->ps_addr));
		ps->ps_addr.sun_family = AF_UNIX;
		/* sun_path[0] stays NUL: an abstract name, this long. */
		n = snprintf(ps->ps_addr.sun_path + 1,
		    sizeof (ps->ps_addr.sun_path) - 1,
		    "libproc.%d.%016llx%016llx.%d", (int)getpid(),
		    (unsigned long long)rnd[0], (unsigned long long)rnd[1], j);
		ps->ps_addrlen = (socklen_t)(offsetof(struct sockaddr_un,
		    sun_path) + 1 + (size_t)n);
		if (setsockopt(s, SOL_SOCKET, SO_PASSCRED, &on,
		    sizeof (on)) != 0 || bind(s,
		    (struct sockaddr *)&ps->ps_addr, ps->ps_addrlen) != 0)
			return (errno);
	}
	return (0);
}

/* Our sockets made on a thread in the target's network namespace. */
typedef struct slots_there {
	sock_pass_t	*st_sp;
	int		st_err;
} slots_there_t;

static void
open_slots_there(void *arg)
{
	slots_there_t *st = arg;

	st->st_err = open_slots(st->st_sp);
}

/*
 * Our sockets, in the target's network namespace, where its abstract
 * names are: made there (Pin_netns()) when it is not ours.  0 or an
 * errno (EPERM: pfiles may not enter it; passing then stops, and the
 * per-socket batch serves).
 */
static int
open_slots_for(struct ps_prochandle *P, sock_pass_t *sp)
{
	slots_there_t st = { sp, 0 };
	int nsfd, err;

	if (same_netns(P))
		return (open_slots(sp));
	if ((nsfd = openat(P->procfd, "ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return (errno);
	err = Pin_netns(nsfd, open_slots_there, &st);
	(void) close(nsfd);
	PDEBUG(P, "agent: sockets for passing in the process's network "
	    "namespace: %s", strerror(err != 0 ? err : st.st_err));
	return (err != 0 ? err : st.st_err);
}

/* The handle's state, made at the walk's first batch. */
static sock_pass_t *
pass_state(struct ps_prochandle *P, int make)
{
	sock_pass_t *sp = P->src_data;
	const procstatus_t *ps;

	if (sp != NULL || !make || P->agent == NULL)
		return (sp);
	if ((sp = calloc(1, sizeof (*sp))) == NULL)
		return (NULL);
	for (int j = 0; j < PASS_SLOTS; j++)
		sp->sp_slot[j].ps_sock = -1;
	sp->sp_max = PASS_MAX_FDS;
	/*
	 * A target under a seccomp filter is asked nothing it might not be
	 * asked anyway: socket, mmap and sendmsg may be forbidden to it, and
	 * a filter may kill rather than refuse.  Passing holds PASS_SLOTS
	 * sockets and what a message brings: where RLIMIT_NOFILE leaves no
	 * fd to spare, the per-socket batch, which needs none, serves.
	 */
	sp->sp_off = Pfd_room() == 0 || (ps = Pstatus_facts(P)) == NULL ||
	    ps->pst_seccomp != 0;
	PDEBUG(P, "agent: passing sockets %s", sp->sp_off ? "off" : "on");
	P->src_data = sp;
	return (sp);
}

/* ------------------------------------------------------------------ */
/* The message received. */

/* Note what came of fds[0..k): they arrived as got[0..k). */
static void
note_received(sock_pass_t *sp, const int *fds, const int *got, size_t k)
{
	struct stat st;

	for (size_t i = 0; i < k && sp->sp_nent < PASS_MAX_FDS; i++) {
		pass_ent_t *pe = &sp->sp_ent[sp->sp_nent++];

		pe->pe_fd = fds[i];
		pe->pe_local = got[i];
		pe->pe_state = PE_HELD;
		/* Not a socket: its facts are never asked; let it go now. */
		if (fstat(got[i], &st) != 0 || !S_ISSOCK(st.st_mode)) {
			(void) close(got[i]);
			pe->pe_local = -1;
			pe->pe_state = PE_NOTSOCK;
		}
	}
}

static void
note_failed(sock_pass_t *sp, int fd)
{
	pass_ent_t *pe;

	if (sp->sp_nent < PASS_MAX_FDS) {
		pe = &sp->sp_ent[sp->sp_nent++];
		pe->pe_fd = fd;
		pe->pe_local = -1;
		pe->pe_state = PE_FAILED;
	}
}

/*
 * Receive the message of slot j, which holds fds[0..n), into the
 * entries of the message received.  0, or an errno.
 */
static int
take_message(struct ps_prochandle *P, sock_pass_t *sp, int j,
    const int *fds, size_t n)
{
	pass_slot_t *ps = &sp->sp_slot[j];
	int got[PASS_MAX_FDS], err, sh = 0;
	size_t k = 0;

	ps->ps_waiting = 0;
	if ((err = receive(ps, P->pid, got, n, &k, &sh)) != 0)
		return (err);
	if (k == 0)
		return (EMFILE);	/* we could receive none */
	note_received(sp, fds, got, k);
	if (sh) {
		sp->sp_short = 1;
		sp->sp_max = k;		/* our fd limit: no larger */
	}
	return (0);
}

/*
 * Send fds[0..n) in one message to slot 0 and receive it.  One that
 * fails with EBADF or EINVAL is split in halves, down to the fd at
 * fault.  0, or an errno when passing cannot serve (or ESRCH).
 */
static int
send_split(struct ps_prochandle *P, sock_pass_t *sp, pass_target_t *pt,
    const int *fds, size_t n)
{
	pass_send_t sd;
	size_t half;
	int err;

	memset(&sd, 0, sizeof (sd));
	sd.psd_fds[0] = fds;
	sd.psd_n[0] = n;
	sd.psd_count = 1;
	if ((err = target_send(P, sp, pt, &sd, 0)) != 0)
		return (err);
	if (sd.psd_err[0] == 0)
		return (take_message(P, sp, 0, fds, n));
	if (sd.psd_err[0] != EBADF && sd.psd_err[0] != EINVAL)
		return (sd.psd_err[0]);
	if (n == 1) {
		note_failed(sp, fds[0]);
		return (0);
	}
	half = n / 2;
	if ((err = send_split(P, sp, pt, fds, half)) != 0 || sp->sp_short)
		return (err);
	return (send_split(P, sp, pt, fds + half, n - half));
}

/*
 * After batch 2: the first message received now (or split, when one of
 * its fds could not go), the others left to wait in their slots.
 */
static int
after_send(struct ps_prochandle *P, sock_pass_t *sp, pass_target_t *pt,
    const pass_send_t *sd, size_t first)
{
	int err = sd->psd_err[0];
	size_t at = first + sd->psd_n[0];

	for (size_t j = 1; j < sd->psd_count; j++) {
		pass_slot_t *ps = &sp->sp_slot[j];

		ps->ps_waiting = sd->psd_err[j] == 0;
		ps->ps_first = at;
		ps->ps_count = sd->psd_n[j];
		at += sd->psd_n[j];
	}
	if (err == 0)
		return (take_message(P, sp, 0, sd->psd_fds[0], sd->psd_n[0]));
	if (err != EBADF && err != EINVAL)
		return (err);
	if (sd->psd_n[0] == 1) {
		note_failed(sp, sd->psd_fds[0][0]);
		return (0);
	}
	/* Batch 2 took the socket and pages away: new ones. */
	if ((err = target_setup(P, pt)) != 0)
		return (err);
	return (send_split(P, sp, pt, sd->psd_fds[0], sd->psd_n[0]));
}

/*
 * A round: the walk's fds from sp_batch[first] on, in up to PASS_SLOTS
 * messages, with our asynchronous signals blocked throughout, so that
 * nothing of it outlives a SIGTERM.
 */
static int
pass_round(struct ps_prochandle *P, sock_pass_t *sp, size_t first)
{
	pass_target_t pt = { -1, 0 };
	pass_send_t sd;
	size_t at = first;
	sigset_t old;
	int err, err2 = 0;

	drop_held(sp);
	drain_all(sp);
	sp->sp_short = 0;
	if (sp->sp_slot[0].ps_sock < 0 && (err = open_slots_for(P, sp)) != 0)
		return (err);
	memset(&sd, 0, sizeof (sd));
	while (sd.psd_count < PASS_SLOTS && at < sp->sp_nbatch) {
		size_t n = sp->sp_nbatch - at;

		sd.psd_n[sd.psd_count] = n < sp->sp_max ? n : sp->sp_max;
		sd.psd_fds[sd.psd_count] = sp->sp_batch + at;
		at += sd.psd_n[sd.psd_count++];
	}

	agent_block_signals(&old);
	if ((err = target_setup(P, &pt)) == 0 &&
	    (err = target_send(P, sp, &pt, &sd, 1)) == 0)
		err = after_send(P, sp, &pt, &sd, first);
	/* The target can open no fd: the per-socket batch needs to know. */
	if (err == EMFILE && P->agent != NULL)
		P->agent->ag_nodup = 1;
	if (err != ESRCH)
		err2 = target_teardown(P, &pt);	/* what is left, if any */
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (err != 0 ? err : err2);
}

/* ------------------------------------------------------------------ */
/* The source's entry points. */

void
sock_pass_batch(struct ps_prochandle *P, const int *fds, size_t nfds)
{
	sock_pass_t *sp = pass_state(P, 1);

	if (sp == NULL || sp->sp_off)
		return;
	drop_held(sp);
	drain_all(sp);
	sp->sp_nbatch = 0;
	if (nfds > sp->sp_batchcap) {
		int *nb = realloc(sp->sp_batch, nfds * sizeof (int));

		if (nb == NULL)
			return;		/* no batch: no fd is passed */
		sp->sp_batch = nb;
		sp->sp_batchcap = nfds;
	}
	/*
	 * Only sockets are passed.  Closing our duplicate of any other file
	 * may wait on its filesystem (a FUSE or NFS file is flushed on
	 * close, and a server that no longer answers never lets the close
	 * return), with the target's thread stopped meanwhile.  The stat
	 * asks no filesystem (AT_STATX_DONT_SYNC), and sockets have none.
	 */
	for (size_t i = 0; i < nfds; i++) {
		struct statx stx;
		char name[16];

		(void) snprintf(name, sizeof (name), "%d", fds[i]);
		if (statx(P->fddirfd, name, AT_STATX_DONT_SYNC, STATX_TYPE,
		    &stx) == 0 && S_ISSOCK(stx.stx_mode))
			sp->sp_batch[sp->sp_nbatch++] = fds[i];
	}
}

/*
 * The entry of fd in the message received, or NULL.  The walk asks in
 * increasing fd order: held sockets it passed over (it found them gone,
 * or not sockets) are let go.
 */
static pass_ent_t *
find_held(sock_pass_t *sp, int fd)
{
	while (sp->sp_epos < sp->sp_nent) {
		pass_ent_t *pe = &sp->sp_ent[sp->sp_epos];

		if (pe->pe_fd == fd)
			return (pe);
		if (pe->pe_fd > fd)
			return (NULL);
		if (pe->pe_local >= 0) {
			sock_close(pe->pe_local, NULL);
			pe->pe_local = -1;
			pe->pe_state = PE_USED;
		}
		sp->sp_epos++;
	}
	return (NULL);
}

/*
 * Receive the waiting message that holds fd, letting go of the message
 * received before and of those for fds the walk has passed.  0; ENOENT
 * when no waiting message holds fd; another errno.
 */
static int
take_waiting(struct ps_prochandle *P, sock_pass_t *sp, int fd)
{
	for (int j = 1; j < PASS_SLOTS; j++) {
		pass_slot_t *ps = &sp->sp_slot[j];
		const int *fds = sp->sp_batch + ps->ps_first;

		if (!ps->ps_waiting)
			continue;
		if (fds[ps->ps_count - 1] < fd) {
			drain_slot(ps);
			continue;
		}
		if (fds[0] > fd)
			return (ENOENT);
		drop_held(sp);
		sp->sp_short = 0;
		return (take_message(P, sp, j, fds, ps->ps_count));
	}
	return (ENOENT);
}

/* Where fd is in the walk's batch; ENOENT when it is not in it. */
static int
batch_index(const sock_pass_t *sp, int fd, size_t *ip)
{
	size_t lo = 0, hi = sp->sp_nbatch;

	while (lo < hi) {		/* the batch is in increasing order */
		size_t mid = lo + (hi - lo) / 2;

		if (sp->sp_batch[mid] < fd)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sp->sp_nbatch || sp->sp_batch[lo] != fd)
		return (ENOENT);
	*ip = lo;
	return (0);
}

/* Have fd passed: from a waiting message, or in a new round. */
static int
pass_fd(struct ps_prochandle *P, sock_pass_t *sp, int fd)
{
	size_t i;
	int err;

	if ((err = take_waiting(P, sp, fd)) != ENOENT)
		return (err);
	if (batch_index(sp, fd, &i) != 0)
		return (ENOENT);
	return (pass_round(P, sp, i));
}

int
sock_pass_facts(struct ps_prochandle *P, int fd, uint64_t ino,
    sockfacts_t *sf)
{
	sock_pass_t *sp = pass_state(P, 0);
	pass_ent_t *pe;
	int err, fresh = 0;

	if (sp == NULL || sp->sp_off)
		return (SOCK_PASS_NO);
	pe = find_held(sp, fd);
	if (pe == NULL || pe->pe_state == PE_USED ||
	    pe->pe_state == PE_NOTSOCK) {
		/* Not passed yet, or asked again (the walk's retry). */
		if ((err = pass_fd(P, sp, fd)) == ENOENT)
			return (SOCK_PASS_NO);
		if (err == ESRCH)
			return (ESRCH);
		/* A round cut at its bound: this socket by its own batch. */
		if (err == EAGAIN)
			return (SOCK_PASS_NO);
		if (err != 0) {
			pass_off(sp);
			return (SOCK_PASS_NO);
		}
		fresh = 1;
		if ((pe = find_held(sp, fd)) == NULL)
			return (SOCK_PASS_NO);
	}
	switch (pe->pe_state) {
	case PE_HELD:
		break;
	case PE_NOTSOCK:
		/* Passed just now, and no socket: replaced since the stat. */
		return (fresh ? ESTALE : SOCK_PASS_NO);
	default:
		return (SOCK_PASS_NO);
	}
	err = sock_local_facts(pe->pe_local, ino, sf);
	sock_close(pe->pe_local, sf);
	pe->pe_local = -1;
	pe->pe_state = PE_USED;
	return (err);
}

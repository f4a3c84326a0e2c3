/*
 * sock_agent_pass.c: the agent's fast path.  The target passes its
 * sockets to us over SCM_RIGHTS, many in one message, and their facts are
 * asked here, of the duplicates, by sock_local.c -- exactly as the pidfd
 * source asks them, so that both print the same by construction.
 *
 * An injected system call costs two ptrace stops (16-20 us), a batch a
 * few more; one batch of 17 calls per socket (sock_agent.c) is half a
 * millisecond a socket.  Passing costs two batches and ONE pwrite of
 * /proc/PID/mem (no pread) per round: a round passes the walk's whole
 * batch of fds (up to 1365, in up to PASS_SLOTS messages of up to 253,
 * the kernel's SCM_MAX_FD).
 *
 * Our side, made at the first round of a grab: PASS_SLOTS sockets,
 * AF_UNIX SOCK_DGRAM, each bound to an abstract name of its own
 * ("\0libproc.PID.RANDOM.SLOT", 128 random bits), with SO_PASSCRED so
 * that every message comes with its sender's pid.  Message j of a round
 * goes to slot j, so that each queue holds at most one message and a
 * message that fails never puts the others out of order.  A message not
 * from the target, or not the one we wait for (an 8-byte sequence number
 * is its payload), is discarded and the fds it brought closed.  The
 * names live in our network namespace; a target in another one could
 * not reach them (and someone there could hold the same name), so such a
 * target is not asked to pass at all.
 *
 * A round, in the target, through the agent, all arguments by value:
 *	batch 1: socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0) -> tfd,
 *		 mmap(NULL, 8 KiB, RW, MAP_PRIVATE|MAP_ANONYMOUS) -> A;
 *	pwrite:  per message, the msghdr, iovec, payload, the slot's name
 *		 and the SCM_RIGHTS cmsg, laid out for where it lies in A,
 *		 all in one write to A;
 *	batch 2: sendmsg(tfd, A + j * PASS_MSG_SPACE, MSG_DONTWAIT |
 *		 MSG_NOSIGNAL) for each message j, close(tfd), munmap(A).
 * The socket and the pages of the target live only inside a round, and
 * the calling thread's asynchronous signals are blocked across it (as
 * the agent blocks them across each batch): a SIGTERM, SIGINT or SIGHUP
 * of pfiles takes effect after batch 2, and the target keeps no trace of
 * us.  A SIGKILL between the batches (well under a millisecond per 1365
 * fds) would leave the target one unused socket and two pages; a SIGKILL
 * inside a batch is the agent's own risk (libproc.h).
 *
 * The first message is received at once; the others wait in their
 * slots, in flight (no fd of ours), until the walk comes to their fds,
 * so that we hold at most one message's duplicates (253 fds), and close
 * each as soon as its facts are taken.  All that is held or waits goes
 * when the agent does (Pdestroy_agent, from Prelease), through
 * agent_client.h.  When our own fd limit cuts a message short
 * (MSG_CTRUNC), the fds that did arrive serve, and later messages are
 * made no larger.
 *
 * Which fds: those of the walk's batch (sock_agent_batch), from the
 * socket the walk asks about on.  Which of them are sockets is known only
 * once they are here: the others are closed at once, and their facts are
 * never asked.  Closing a duplicate has no effect on the target's file
 * (locks are per process, and we hold none), except that filesystems
 * with a flush operation (NFS, FUSE) are told of the close.
 *
 * Failures.  When the first message of a round fails with EBADF (an fd
 * closed since getdents listed it) or EINVAL (an fd that cannot be
 * passed, as io_uring's), it is split in halves and tried again (on a
 * new socket and page, in the same round), down to the fd at fault,
 * which is then left to the per-socket batch (which says ENOENT for a
 * closed fd).  Another message that fails is simply not waited for: the
 * walk starts a new round when it comes to its fds.  Any other failure of
 * the first message -- the target's seccomp policy refusing a call,
 * EMFILE in the target -- turns passing off for the rest of the grab,
 * silently: the per-socket batch serves, and prints the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "Pcontrol.h"
#include "agent_client.h"
#include "sock_agent_pass.h"

#define	PASS_MAX_FDS	253	/* the kernel's SCM_MAX_FD */
#define	PASS_SLOTS	6	/* messages in a round: 6 x 253 >= 1365 */
#define	PASS_MSG_SPACE	1280	/* room for one message in the pages */
#define	PASS_MAP_LEN	8192	/* the target's scratch pages */
#define	PASS_MAX_MSGS	64	/* strangers' messages passed over, at most */

/* The parts of one message, from its start in the target's pages. */
#define	OFF_MSG		0
#define	OFF_IOV		64
#define	OFF_DATA	80
#define	OFF_NAME	96
#define	OFF_CTL		208
#define	CTL_MAX		CMSG_SPACE(PASS_MAX_FDS * sizeof (int))

_Static_assert(OFF_MSG + sizeof (struct msghdr) <= OFF_IOV, "msghdr");
_Static_assert(OFF_IOV + sizeof (struct iovec) <= OFF_DATA, "iovec");
_Static_assert(OFF_DATA + sizeof (uint64_t) <= OFF_NAME, "payload");
_Static_assert(OFF_NAME + sizeof (struct sockaddr_un) <= OFF_CTL, "name");
_Static_assert(OFF_CTL % 8 == 0 && PASS_MSG_SPACE % 8 == 0, "alignment");
_Static_assert(OFF_CTL + CTL_MAX <= PASS_MSG_SPACE, "message");
_Static_assert(PASS_SLOTS * PASS_MSG_SPACE <= PASS_MAP_LEN, "pages");

/* What became of an fd of the message received. */
enum pass_state {
	PE_HELD = 1,	/* a socket; our duplicate is pe_local */
	PE_USED,	/* its facts were taken; closed */
	PE_NOTSOCK,	/* not a socket when it came; closed */
	PE_FAILED	/* could not be passed alone: not served */
};

typedef struct pass_ent {
	int		pe_fd;		/* the target's */
	int		pe_local;	/* ours, while PE_HELD; else -1 */
	int		pe_state;
} pass_ent_t;

/* One of our sockets, and the message that waits in it. */
typedef struct pass_slot {
	int		ps_sock;	/* -1 until the first round */
	struct sockaddr_un ps_addr;	/* its abstract name */
	socklen_t	ps_addrlen;
	uint64_t	ps_seq;		/* payload of the message sent to it */
	int		ps_waiting;	/* that message is in its queue */
	size_t		ps_first;	/* its fds: sp_batch[ps_first..] */
	size_t		ps_count;
} pass_slot_t;

typedef struct sock_pass {
	pass_slot_t	sp_slot[PASS_SLOTS];
	uint64_t	sp_seq;		/* the last payload given */
	int		sp_off;		/* passing cannot serve this grab */
	size_t		sp_max;		/* most fds in one message */
	int		sp_short;	/* the last message was cut short */
	int		*sp_batch;	/* the walk's batch of fds */
	size_t		sp_nbatch;
	size_t		sp_batchcap;
	pass_ent_t	sp_ent[PASS_MAX_FDS];	/* the message received */
	size_t		sp_nent;
	size_t		sp_epos;	/* where in it the walk has come */
	uint8_t		sp_img[PASS_MAP_LEN];	/* the pages' image */
} sock_pass_t;

/* The target's side of a round: its socket and scratch pages. */
typedef struct pass_target {
	long		pt_fd;		/* -1 when not made */
	uint64_t	pt_addr;	/* 0 when not made */
} pass_target_t;

/* ------------------------------------------------------------------ */
/* Our side. */

static void
close_all(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		(void) close(fds[i]);
}

/* Let the duplicates of the message received go. */
static void
drop_held(sock_pass_t *sp)
{
	for (size_t i = 0; i < sp->sp_nent; i++) {
		if (sp->sp_ent[i].pe_local >= 0)
			(void) close(sp->sp_ent[i].pe_local);
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
					(void) close(fd);
			}
		}
	}
	return (n);
}

/*
 * Receive from slot ps the message with payload seq from pid: the
 * duplicates of the first *np of the n fds sent (fewer when our fd limit
 * cut it short).  Any other message is discarded, its fds closed.  0, or
 * ENOMSG when the message is not there.  With pid 0 (draining), nothing
 * is wanted, and every message is discarded.
 */
static int
receive(const pass_slot_t *ps, pid_t pid, uint64_t seq, int *got,
    size_t n, size_t *np, int *shortp)
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
		if (pid == 0 || from != pid ||
		    len != (ssize_t)sizeof (payload) || payload != seq ||
		    (mh.msg_flags & MSG_TRUNC)) {
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
		(void) receive(ps, 0, 0, got, PASS_MAX_FDS, &k, &sh);
	ps->ps_waiting = 0;
}

static void
drain_all(sock_pass_t *sp)
{
	for (int j = 0; j < PASS_SLOTS; j++)
		drain_slot(&sp->sp_slot[j]);
}

/* Called by Pdestroy_agent (agent_client.h). */
static void
pass_fini(struct ps_prochandle *P, void *arg)
{
	sock_pass_t *sp = arg;

	drop_held(sp);
	/* Closing a socket drops what waits in it, and the fds in flight. */
	for (int j = 0; j < PASS_SLOTS; j++) {
		if (sp->sp_slot[j].ps_sock >= 0)
			(void) close(sp->sp_slot[j].ps_sock);
	}
	free(sp->sp_batch);
	free(sp);
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
 * namespace.  When either cannot be looked at, it is tried anyway: a
 * name the target cannot reach fails the sendmsg, and passing stops.
 */
static int
same_netns(struct ps_prochandle *P)
{
	struct stat mine, theirs;

	if (stat("/proc/self/ns/net", &mine) != 0 ||
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

/* The handle's state, made at the walk's first batch. */
static sock_pass_t *
pass_state(struct ps_prochandle *P, int make)
{
	sock_pass_t *sp = Pagent_client(P);

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
	 * a filter may kill rather than refuse.
	 */
	sp->sp_off = !same_netns(P) || Pseccomp_mode(P) > 0;
	if (Pagent_set_client(P, sp, pass_fini) != 0) {
		free(sp);
		return (NULL);
	}
	return (sp);
}

/* ------------------------------------------------------------------ */
/* Calls in the target. */

#define	TB_MAX	(PASS_SLOTS + 2)

/* Calls with arguments by value, run as one batch. */
typedef struct tbatch {
	psyscall_t	tb_call[TB_MAX];
	argdes_t	tb_args[TB_MAX][6];
	uint_t		tb_n;
} tbatch_t;

static void
tb_add(tbatch_t *tb, int nr, uint_t nargs, const long *args)
{
	psyscall_t *c = &tb->tb_call[tb->tb_n];

	for (uint_t i = 0; i < nargs; i++)
		argdes_byval(&tb->tb_args[tb->tb_n][i], args[i]);
	psyscall_set(c, nr, tb->tb_args[tb->tb_n], nargs);
	c->ps_rval.sys_rval1 = -1;	/* not run, until it has */
	tb->tb_n++;
}

/* Run the batch: 0, or why the agent could not (ESRCH: target gone). */
static int
tb_run(struct ps_prochandle *P, tbatch_t *tb)
{
	if (Psyscall_batch(P, tb->tb_call, tb->tb_n) != 0)
		return (errno != 0 ? errno : EIO);
	return (0);
}

/* Did call i run?  Not when the batch broke off before it. */
static int
tb_ran(const tbatch_t *tb, uint_t i)
{
	return (tb->tb_call[i].ps_errno != 0 ||
	    tb->tb_call[i].ps_rval.sys_rval1 != -1);
}

/* Did call i run, and succeed? */
static int
tb_ok(const tbatch_t *tb, uint_t i)
{
	return (tb->tb_call[i].ps_errno == 0 &&
	    tb->tb_call[i].ps_rval.sys_rval1 != -1);
}

/*
 * Batch 1: the target's socket and scratch pages.  0, an errno of the
 * agent, or the errno of a call that failed.
 */
static int
target_setup(struct ps_prochandle *P, pass_target_t *pt)
{
	const long sargs[] = { AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0 };
	const long margs[] = { 0, PASS_MAP_LEN, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 };
	tbatch_t tb = { .tb_n = 0 };
	int err;

	tb_add(&tb, SYS_socket, 3, sargs);
	tb_add(&tb, SYS_mmap, 6, margs);
	err = tb_run(P, &tb);
	/* Whatever was made is undone, even when the batch broke off. */
	if (tb_ok(&tb, 0))
		pt->pt_fd = tb.tb_call[0].ps_rval.sys_rval1;
	if (tb_ok(&tb, 1))
		pt->pt_addr = (uint64_t)tb.tb_call[1].ps_rval.sys_rval1;
	if (err != 0)
		return (err);
	if (tb.tb_call[0].ps_errno != 0)
		return (tb.tb_call[0].ps_errno);
	if (tb.tb_call[1].ps_errno != 0)
		return (tb.tb_call[1].ps_errno);
	return (pt->pt_fd >= 0 && pt->pt_addr != 0 ? 0 : EIO);
}

/* Add to tb the calls that undo batch 1; the index of the first. */
static uint_t
tb_add_undo(tbatch_t *tb, const pass_target_t *pt)
{
	const long cargs[] = { pt->pt_fd };
	const long margs[] = { (long)pt->pt_addr, PASS_MAP_LEN };
	uint_t first = tb->tb_n;

	if (pt->pt_fd >= 0)
		tb_add(tb, SYS_close, 1, cargs);
	if (pt->pt_addr != 0)
		tb_add(tb, SYS_munmap, 2, margs);
	return (first);
}

/*
 * Forget what the undo calls from index i on took away: what one of
 * them was not run for (the batch broke off) is still there.
 */
static void
note_undone(const tbatch_t *tb, uint_t i, pass_target_t *pt)
{
	if (pt->pt_fd >= 0 && tb_ran(tb, i++))
		pt->pt_fd = -1;
	if (pt->pt_addr != 0 && tb_ran(tb, i))
		pt->pt_addr = 0;
}

/* Undo what is left of batch 1, if anything.  0 or ESRCH. */
static int
target_teardown(struct ps_prochandle *P, pass_target_t *pt)
{
	tbatch_t tb = { .tb_n = 0 };
	uint_t first = tb_add_undo(&tb, pt);
	int err;

	if (tb.tb_n == 0)
		return (0);
	err = tb_run(P, &tb);
	note_undone(&tb, first, pt);
	return (err == ESRCH ? ESRCH : 0);
}

/*
 * The message of fds[0..n) to slot ps, laid out in img for the target's
 * address base: msghdr, iovec, payload, the slot's name, the SCM_RIGHTS
 * cmsg.  Its size.
 */
static size_t
build_message(const pass_slot_t *ps, uint64_t base, const int *fds,
    size_t n, uint8_t *img)
{
	size_t ctl = CMSG_SPACE(n * sizeof (int));
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr ch;

	memset(img, 0, OFF_CTL + ctl);
	memset(&mh, 0, sizeof (mh));
	mh.msg_name = (void *)(uintptr_t)(base + OFF_NAME);
	mh.msg_namelen = ps->ps_addrlen;
	mh.msg_iov = (void *)(uintptr_t)(base + OFF_IOV);
	mh.msg_iovlen = 1;
	mh.msg_control = (void *)(uintptr_t)(base + OFF_CTL);
	mh.msg_controllen = ctl;
	iov.iov_base = (void *)(uintptr_t)(base + OFF_DATA);
	iov.iov_len = sizeof (ps->ps_seq);
	memset(&ch, 0, sizeof (ch));
	ch.cmsg_len = CMSG_LEN(n * sizeof (int));
	ch.cmsg_level = SOL_SOCKET;
	ch.cmsg_type = SCM_RIGHTS;

	memcpy(img + OFF_MSG, &mh, sizeof (mh));
	memcpy(img + OFF_IOV, &iov, sizeof (iov));
	memcpy(img + OFF_DATA, &ps->ps_seq, sizeof (ps->ps_seq));
	memcpy(img + OFF_NAME, &ps->ps_addr, ps->ps_addrlen);
	memcpy(img + OFF_CTL, &ch, sizeof (ch));
	memcpy(img + OFF_CTL + CMSG_LEN(0), fds, n * sizeof (int));
	return (OFF_CTL + ctl);
}

/* Messages of one send: message j holds fds[j][0..n[j]) for slot j. */
typedef struct pass_send {
	const int	*psd_fds[PASS_SLOTS];
	size_t		psd_n[PASS_SLOTS];
	size_t		psd_count;
	int		psd_err[PASS_SLOTS];	/* out: each sendmsg's errno */
} pass_send_t;

/*
 * The pwrite and batch 2: the target sends each message to its slot,
 * and with undo, closes its socket and unmaps its pages in the same
 * batch.  0, or an errno of the agent or of the write.
 */
static int
target_send(struct ps_prochandle *P, sock_pass_t *sp, pass_target_t *pt,
    pass_send_t *sd, int undo)
{
	uint8_t *img = sp->sp_img;
	tbatch_t tb = { .tb_n = 0 };
	size_t len = 0;
	int err;

	for (size_t j = 0; j < sd->psd_count; j++) {
		pass_slot_t *ps = &sp->sp_slot[j];
		uint64_t at = pt->pt_addr + j * PASS_MSG_SPACE;
		const long args[] = { pt->pt_fd, (long)(at + OFF_MSG),
		    MSG_DONTWAIT | MSG_NOSIGNAL };

		ps->ps_seq = ++sp->sp_seq;
		len = j * PASS_MSG_SPACE + build_message(ps, at,
		    sd->psd_fds[j], sd->psd_n[j], img + j * PASS_MSG_SPACE);
		tb_add(&tb, SYS_sendmsg, 3, args);
	}
	errno = 0;
	if (Pwrite(P, img, len, (uintptr_t)pt->pt_addr) != (ssize_t)len)
		return (errno == ENOENT || errno == ESRCH || Pexited(P) ?
		    ESRCH : errno != 0 ? errno : EIO);
	if (undo)
		(void) tb_add_undo(&tb, pt);
	err = tb_run(P, &tb);
	if (undo)
		note_undone(&tb, (uint_t)sd->psd_count, pt);
	for (size_t j = 0; j < sd->psd_count; j++)
		sd->psd_err[j] = tb_ran(&tb, (uint_t)j) ?
		    tb.tb_call[j].ps_errno : EIO;
	return (err);
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
	if ((err = receive(ps, P->pid, ps->ps_seq, got, n, &k, &sh)) != 0)
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
	if (sp->sp_slot[0].ps_sock < 0 && (err = open_slots(sp)) != 0)
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
	memcpy(sp->sp_batch, fds, nfds * sizeof (int));
	sp->sp_nbatch = nfds;
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
			(void) close(pe->pe_local);
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
sock_pass_facts(struct ps_prochandle *P, int fd, uint64_t ino, fdrec_t *rec)
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
	err = sock_local_facts(pe->pe_local, ino, rec);
	(void) close(pe->pe_local);
	pe->pe_local = -1;
	pe->pe_state = PE_USED;
	return (err);
}

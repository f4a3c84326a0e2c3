/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_pass.h: the agent's fast path, shared by sock_pass.c (our side)
 * and sock_pass_target.c (the calls run in the target).  Not installed.
 *
 * The agent's fast path.  The target passes its
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
 * names are per network namespace: for a target in another one, our
 * sockets are made in its namespace (by a thread of ours that enters it,
 * Pin_netns()), where its sendmsg reaches them; where pfiles may not
 * enter it, or a name is taken there (bind fails), passing stops.
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
 * when the source is let go (sock_pass_release, from Prelease, before
 * the agent is destroyed).  When our own fd limit cuts a message short
 * (MSG_CTRUNC), the fds that did arrive serve, and later messages are
 * made no larger.
 *
 * Which fds: the sockets of the walk's batch (the agent source's
 * sc_batch; a stat that asks no filesystem says which), from the socket
 * the walk asks about on.  Only sockets: closing our duplicate of a file
 * would tell its filesystem (NFS, FUSE flush on close), and a server that
 * no longer answers would keep us, and the target's thread, waiting.  An
 * fd replaced by another file since is found out once it is here, and
 * closed at once, its facts never asked.  Closing a duplicate socket has
 * no effect on the target's socket (we hold no lock).
 *
 * Failures.  When the first message of a round fails with EBADF (an fd
 * closed since getdents listed it) or EINVAL (an fd that cannot be
 * passed, as io_uring's), it is split in halves and tried again (on a
 * new socket and page, in the same round), down to the fd at fault,
 * which is then left to the per-socket batch (which says ENOENT for a
 * closed fd).  Another message that fails is simply not waited for: the
 * walk starts a new round when it comes to its fds.  Any other failure of
 * the first message -- the target's seccomp policy refusing a call,
 * EMFILE in the target -- turns passing off for the rest of the grab:
 * the per-socket batch serves, and prints the same, but for the peer's
 * name, which it cannot prove, and says so (sock_agent.c).
 */
#ifndef	_SOCK_PASS_H
#define	_SOCK_PASS_H

#include <sys/socket.h>
#include <sys/un.h>

#include "sock/socksrc.h"

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

/* Messages of one send: message j holds fds[j][0..n[j]) for slot j. */
typedef struct pass_send {
	const int	*psd_fds[PASS_SLOTS];
	size_t		psd_n[PASS_SLOTS];
	size_t		psd_count;
	int		psd_err[PASS_SLOTS];	/* out: each sendmsg's errno */
} pass_send_t;

/* sock_pass.c: this socket is not served; ask the per-socket batch. */
#define	SOCK_PASS_NO	(-1)

/* The walk's next batch of fds, as the agent source is told it. */
extern void sock_pass_batch(struct ps_prochandle *, const int *, size_t);

/*
 * The facts of fd (whose inode the walk saw as ino), from its duplicate
 * passed to us: an errno as for every source (socksrc.h), or SOCK_PASS_NO
 * when passing does not serve this fd.
 */
extern int sock_pass_facts(struct ps_prochandle *, int, uint64_t,
    sockfacts_t *);
extern void sock_pass_release(struct ps_prochandle *);

/*
 * Is a message a slot received the one waited for: sent by pid want
 * (SCM_CREDENTIALS says from), of len bytes that are the round's payload
 * seq, neither it nor its fds cut short (msg_flags)?  With want 0 (a
 * slot drained), none is.  Anything else, a stranger's or a late one,
 * is discarded with its fds.
 */
extern int pass_msg_wanted(pid_t want, pid_t from, ssize_t len,
    uint64_t payload, uint64_t seq, int msg_flags);

/*
 * sock_pass_target.c: a round's calls in the target.  Each returns an
 * errno: of the agent (ESRCH: the target is gone), of the write, or of a
 * call that failed.
 *  target_setup	batch 1: the target's socket and scratch pages;
 *  target_send	the pwrite and batch 2: the messages of sd, each to its
 *		slot; with undo, the socket and pages go in the same batch;
 *  target_teardown	undo what is left of batch 1, if anything.
 */
extern int target_setup(struct ps_prochandle *, pass_target_t *);
extern int target_send(struct ps_prochandle *, sock_pass_t *,
    pass_target_t *, pass_send_t *, int);
extern int target_teardown(struct ps_prochandle *, pass_target_t *);

#endif	/* _SOCK_PASS_H */

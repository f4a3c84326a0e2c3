/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_pass_target.c: the calls of a passing round that run in the
 * target, through the agent, all with arguments by value (sock_pass.h
 * says what a round is).  Whatever batch 1 made is undone, even when a
 * batch breaks off part-way.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "agent/agent.h"
#include "src/agent/sock_pass.h"


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

/*
 * Run the batch (with undo, one that undoes: past the deadline too): 0,
 * or why the agent could not (ESRCH: target gone).
 */
static int
tb_run(struct ps_prochandle *P, tbatch_t *tb, int undo)
{
	if ((undo ? agent_undo_batch(P, tb->tb_call, tb->tb_n) :
	    Psyscall_batch(P, tb->tb_call, tb->tb_n)) != 0)
		return (errno != 0 ? errno : EIO);
	return (0);
}

/* Did call i run?  Not when the batch broke off or was cut before it. */
static int
tb_ran(const tbatch_t *tb, uint_t i)
{
	return (tb->tb_call[i].ps_errno != ECANCELED &&
	    (tb->tb_call[i].ps_errno != 0 ||
	    tb->tb_call[i].ps_rval.sys_rval1 != -1));
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
int
target_setup(struct ps_prochandle *P, pass_target_t *pt)
{
	const long sargs[] = { AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0 };
	const long margs[] = { 0, PASS_MAP_LEN, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0 };
	tbatch_t tb = { .tb_n = 0 };
	int err;

	tb_add(&tb, SYS_socket, 3, sargs);
	tb_add(&tb, SYS_mmap, 6, margs);
	err = tb_run(P, &tb, 0);
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
int
target_teardown(struct ps_prochandle *P, pass_target_t *pt)
{
	tbatch_t tb = { .tb_n = 0 };
	uint_t first = tb_add_undo(&tb, pt);
	int err;

	if (tb.tb_n == 0)
		return (0);
	err = tb_run(P, &tb, 1);
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


/*
 * The pwrite and batch 2: the target sends each message to its slot,
 * and with undo, closes its socket and unmaps its pages in the same
 * batch.  0, or an errno of the agent or of the write.
 */
int
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
	err = tb_run(P, &tb, 0);
	if (undo)
		note_undone(&tb, (uint_t)sd->psd_count, pt);
	for (size_t j = 0; j < sd->psd_count; j++)
		sd->psd_err[j] = tb_ran(&tb, (uint_t)j) ?
		    tb.tb_call[j].ps_errno : EIO;
	return (err);
}

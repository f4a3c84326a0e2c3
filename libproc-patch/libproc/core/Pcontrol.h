/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pcontrol.h: the inside of a process handle, and what the files of
 * libproc share.  Not installed.
 *
 * Error conventions.  Said once here, for every function of libproc:
 *  - Public functions (libproc.h) return -1 with errno set, or NULL with
 *    errno set, except Pgrab (NULL, and a G_* code in *perr) and
 *    Psyscall (the call's own errno, or -1 with errno when it could not
 *    be run).  When a failure has more to say than errno, the handle's
 *    message says it (Perrmsg); it is set through Pseterr() only.
 *  - NULL and invalid arguments, one rule for every public function
 *    (libproc.3, ERRORS): they are checked before anything is done, and
 *    a call refused for one changes nothing but errno and perhaps the
 *    handle's message.  A NULL handle, a NULL callback, a NULL pointer
 *    where an object is required, an unknown flag bit or psocksrc_t, a
 *    resource out of range and a bad description of system calls give
 *    EINVAL: -1, or NULL, with errno EINVAL.  What cannot fail answers
 *    a NULL handle with a fixed value: Psocksrc PSOCK_AUTO (errno
 *    EINVAL), Perrmsg "" (errno untouched: it is read right after a
 *    failure), Prelease and Pdestroy_agent nothing.  Pgrab with a NULL
 *    perr grabs nothing (NULL, EINVAL); with an unknown flag, G_STRANGE
 *    and EINVAL; a pid <= 0 names no process (G_NOPROC; ESRCH from
 *    proc_get_psinfo).  Prelease ignores every flag (a refused release
 *    would leak the handle).  Pgrab_error and Psocksrc_name give a fixed
 *    text for a value they do not know.  The pr_* calls differ: a NULL
 *    handle is the calling process, and the system call answers for the
 *    other arguments (EFAULT, EBADF...), in the target as it would here.
 *  - Private functions that "return an errno" return 0 or a positive
 *    errno value and leave errno alone; the others say so where they
 *    are declared.  The sources of socket facts (socksrc.h) and the
 *    agent's internals (agent.h) return errnos.
 */
#ifndef	_PCONTROL_H
#define	_PCONTROL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libproc.h"
#include "core/Phook.h"
#include "core/procfs_parse.h"

struct agent;			/* agent.h */
struct socksrc_ops;		/* socksrc.h */

#define	PERRMSG_MAX	256

/* Where the handle stands with its source of socket facts. */
typedef enum {
	SRC_UNSET = 0,		/* not chosen yet: auto chooses at first use */
	SRC_CHOSEN,		/* P->src serves */
	SRC_NONE		/* none serves (auto found none, or the one
				   asked for refused); Perrmsg says why */
} srcstate_t;

struct ps_prochandle {
	pid_t		pid;
	int		pidfd;		/* held for the grab; -1: none */
	pid_t		tid;		/* examined through this thread; 0: pid */
	int		thrpidfd;	/* a pidfd of tid, or -1 */
	int		procfd;		/* /proc/PID */
	int		fddirfd;	/* /proc/PID/fd */
	int		fdinfofd;	/* /proc/PID/fdinfo, at first use */
	int		memfd;		/* /proc/PID/mem, opened at first use */
	int		selffdfd;	/* our /proc/self/fd, at first use */
	psinfo_t	psinfo;
	procstatus_t	status;		/* /proc/PID/status, at first use */
	int		status_read;
	int		pidns;		/* 0 unknown, 1 ours, 2 another */
	srcstate_t	src_state;
	const struct socksrc_ops *src;	/* when SRC_CHOSEN */
	void		*src_data;	/* the source's; sc_release frees it */
	/* why each source refused at the last Psetsocksrc, "" when not */
	char		src_why[PSOCK_NSRC][PERRMSG_MAX];
	struct agent	*agent;		/* Pcreate_agent() */
	/* called by the long loops below the agent (Ptick) */
	void		(*tick)(struct ps_prochandle *);
	/* the agents' clock (agent/agent_clock.c): ms, over the grab */
	unsigned	ag_deadline;	/* 0: PAGENT_DEADLINE_MS */
	long		ag_spent;	/* in spans ended */
	long		ag_span_t0;	/* the open span's start */
	int		ag_span_depth;	/* spans open (nested entries) */
	long		ag_batch_ms;	/* the next batch's bound; 0: least */
	int		pidfd_err;	/* pidfd_open's errno when there is none */
	/* what the last walk could not learn of the other ends, "" if none */
	char		ep_why[PERRMSG_MAX];
	struct ps_share	*share;		/* the run's (Pshare), or NULL */
	unsigned	share_turn;	/* this handle's turn in it */
	phook_t		hooks[PHOOKS];	/* Prelease calls them (Phook.h) */
	char		errmsg[PERRMSG_MAX];
};

/*
 * The long loops of the layers below the agent (the walk, between its
 * chunks of fds; the endpoints' pass over every other process, and over
 * each chunk of a process's fd table; the socket tables' dumps, before
 * each) tick the
 * handle now and then: a module that lends a thread of the target while
 * they run registers P->tick to pass on what that thread met meanwhile
 * (the agent: a signal for it, a group stop).
 */
static inline void
Ptick(struct ps_prochandle *P)
{
	if (P->tick != NULL)
		P->tick(P);
}

/*
 * The handle's message (Perror.c).  Pseterr sets it from fmt, sets errno
 * to err and returns err; it is traced under LIBPROC_DEBUG.
 */
extern int Pseterr(struct ps_prochandle *, int, const char *, ...)
    __attribute__((__format__(__printf__, 3, 4)));

/*
 * The debug trace: LIBPROC_DEBUG=1 in the environment sends one line per
 * event (grabs, probes of sources and the choice, the agent's changes of
 * state) to stderr.  Unset, a trace point costs one load and a branch,
 * and its arguments are not evaluated.
 */
extern int Pdebug_on;		/* -1 until the environment is read */
extern int Pdebug_init(void);
extern void Pdebug(const struct ps_prochandle *, const char *, ...)
    __attribute__((__format__(__printf__, 2, 3)));

#define	PDEBUG_ON()	__atomic_load_n(&Pdebug_on, __ATOMIC_RELAXED)
#define	PDEBUG(P, ...)							\
	do {								\
		if (PDEBUG_ON() > 0 || (PDEBUG_ON() < 0 && Pdebug_init())) \
			Pdebug((P), __VA_ARGS__);			\
	} while (0)

/*
 * A record under construction: the prfdinfo_t fixed part and its items in
 * one growable buffer, reused from one fd to the next (fdrec.c).
 */
typedef struct fdrec {
	uint8_t		*buf;
	size_t		cap;
} fdrec_t;

#define	FDREC_MAX	(1U << 20)	/* no single record is bigger */

_Static_assert(sizeof (pr_misc_header_t) == 8, "an item's header is 8 bytes");

/* fdrec_reset, fdrec_grow and fdrec_add: 0, or -1 with errno. */
extern int fdrec_reset(fdrec_t *, int);
extern void fdrec_free(fdrec_t *);
/* Room for need more bytes of items, by growing the buffer (fdrec.c). */
extern int fdrec_grow(fdrec_t *, size_t);

static inline prfdinfo_t *
fdrec_info(fdrec_t *rec)
{
	return ((prfdinfo_t *)(void *)rec->buf);
}

/*
 * An item of type with len bytes of data: its header (8 bytes), the
 * data, zeros to the next multiple of 8.  In line: a record gets some
 * ten of them, and most need no room made.
 */
static inline int
fdrec_add(fdrec_t *rec, uint_t type, const void *data, size_t len)
{
	pr_misc_header_t hdr;
	prfdinfo_t *info;
	size_t size = sizeof (hdr) + len;
	uint8_t *at;

	if (len > FDREC_MAX) {
		errno = E2BIG;
		return (-1);	/* the item is left out */
	}
	if ((rec->buf == NULL || PR_MISC_NEXT(size) > rec->cap -
	    sizeof (prfdinfo_t) - fdrec_info(rec)->pr_misc_size) &&
	    fdrec_grow(rec, PR_MISC_NEXT(size)) != 0)
		return (-1);
	info = fdrec_info(rec);
	at = info->pr_misc + info->pr_misc_size;
	hdr.pr_misc_size = (uint_t)size;
	hdr.pr_misc_type = type;
	/*
	 * The padding is in the item's last 8 bytes (the header is 8): that
	 * word is zeroed first, then the header and the data written.
	 */
	memset(at + PR_MISC_NEXT(size) - 8, 0, 8);
	memcpy(at, &hdr, sizeof (hdr));
	if (len > 0)
		memcpy(at + sizeof (hdr), data, len);
	info->pr_misc_size += (uint_t)PR_MISC_NEXT(size);
	return (0);
}

/*
 * The item that says why a record has no path (PR_PATHERR): err in the
 * words pfiles prints, "file name too long" for ENAMETOOLONG.
 */
static inline void
fdrec_add_patherr(fdrec_t *rec, int err)
{
	const char *why = err == ENAMETOOLONG ? "file name too long" :
	    strerror(err);

	(void) fdrec_add(rec, PR_PATHERR, why, strlen(why) + 1);
}

/*
 * Small files of /proc (procfile.c): the whole of dirfd's name into buf,
 * NUL-ended (at most bufsz - 1 bytes); its length, or -1 with errno.
 */
extern ssize_t proc_read_small(int, const char *, char *, size_t);
/* The same for a file of one seq_file record: a short read is its end. */
extern ssize_t proc_read_record(int, const char *, char *, size_t);
/*
 * How many fds of its own one builder of the walk may hold at once
 * (fdroom.c): 0 when RLIMIT_NOFILE leaves none to spare.
 */
extern size_t Pfd_room(void);
/*
 * Is err this process's own want of fds (EMFILE, ENFILE: fdroom.c)?  It
 * says nothing of the target: never taken for its exit or a zombie.
 */
extern int Pshort_of_fds(int);
/*
 * May the walk spread its work over threads of its own (fdroom.c)?  Not
 * on one CPU, nor when Pfd_room() is 0: then all is done one at a time.
 */
extern int Pconcurrent(void);

/* Open /proc/PID/<name> relative to the grab; -1 with errno. */
extern int Pprocopen(struct ps_prochandle *, const char *, int);

/*
 * The facts of /proc/PID/status, read at first use and kept for the
 * grab; NULL with errno when it cannot be read.  Prefresh_status reads
 * it again (TracerPid changes).
 */
extern const procstatus_t *Pstatus_facts(struct ps_prochandle *);
extern const procstatus_t *Prefresh_status(struct ps_prochandle *);

/*
 * A live thread of the process other than its main thread, 0 when none
 * lives on, or -1 with errno when not every thread could be looked at
 * (Pgrab.c): for a process whose main thread has exited.
 */
extern pid_t Plive_thread(struct ps_prochandle *);

/* The pidfd through which the target's fds are taken: its thread's. */
#define	PFD_PIDFD(P)	((P)->thrpidfd >= 0 ? (P)->thrpidfd : (P)->pidfd)

/* pidfd_getfd(2), where the C library's headers predate it (5.6). */
#include <sys/syscall.h>
#ifndef	SYS_pidfd_getfd
#define	SYS_pidfd_getfd	438
#endif

/* Is the target in our pid namespace?  Read once per grab. */
extern int Psame_pidns(struct ps_prochandle *);

/*
 * fn(arg) run on a short-lived thread of ours that has entered the
 * network namespace of nsfd (a /proc/PID/ns/net), so that the sockets fn
 * makes are of that namespace (Pnetns.c): 0 once fn has run, else the
 * errno of entering it (EPERM: no privilege there) or of the thread.
 */
extern int Pin_netns(int, void (*)(void *), void *);

/*
 * An exec by a thread other than the main one hands the pid over to the
 * exec'ing thread: for a moment the process looks gone or exiting while
 * it lives on.  A look that may have met that moment is made again, 1 ms
 * apart, this many times at most; each loop ends as soon as the pidfd
 * says the process has exited.  The moment lasts as long as the exec'ing
 * thread is kept off a CPU: on a loaded machine, tens of milliseconds.
 */
#define	EXEC_SETTLE_MS	250

/* Has the target exited (or been reaped)?  Asks the pidfd. */
extern int Pexited(struct ps_prochandle *);
/*
 * Is it exiting, or gone?  The kernel closes a dying process's fds before
 * its pidfd says it has exited, so a walk that saw fds vanish must ask
 * this too: a thread's PF_EXITING flag is set before its fds close, and
 * the process is exiting when no thread is left without it.
 */
extern int Pexiting(struct ps_prochandle *);
extern int Pkilled(struct ps_prochandle *);
/*
 * Does the thread the handle examines (the main one, or the live one
 * Pgrab chose) live on this instant: not a zombie, not dead, not exiting?
 */
extern int Plives_on(struct ps_prochandle *);

#endif	/* _PCONTROL_H */

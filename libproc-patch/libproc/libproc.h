/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libproc.h: the illumos process-control library, for Linux.
 *
 * The names, types and signatures follow illumos' <libproc.h> wherever
 * illumos has them, so that libproc-style tools port with few changes.
 * Where Linux differs, the difference is documented in libproc.3.
 *
 * A grab (Pgrab) never stops the target.  Socket facts come, in order of
 * preference, from pidfd_getfd(2) (the target is neither stopped nor
 * read), from the agent (one thread of the target borrowed through
 * ptrace(2) to run system calls; see Pcreate_agent), or from the kernel's
 * socket tables (NETLINK_SOCK_DIAG; no permission on the target needed).
 *
 * NULL and invalid arguments are refused with EINVAL by one rule, never
 * a crash; the pr_* calls leave theirs to the system call.  libproc.3,
 * ERRORS, says it function by function.
 */
#ifndef	_LIBPROC_H
#define	_LIBPROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

/*
 * The version of this library, "MAJOR.MINOR.PATCH" (the project's VERSION
 * file: the build defines it, make install writes it here).
 */
#ifndef	LIBPROC_VERSION
#define	LIBPROC_VERSION	"@VERSION@"
#endif

#ifdef	__cplusplus
extern "C" {
#endif

struct ps_prochandle;

typedef unsigned int uint_t;
typedef unsigned short ushort_t;
typedef uint32_t major_t;
typedef uint32_t minor_t;

/* Pgrab() flags.  Accepted for compatibility; a grab never stops. */
#define	PGRAB_RETAIN	0x01
#define	PGRAB_FORCE	0x02
#define	PGRAB_RDONLY	0x04
#define	PGRAB_NOSTOP	0x08

/* Prelease() flags.  Accepted for compatibility. */
#define	PRELEASE_CLEAR	0x10
#define	PRELEASE_RETAIN	0x20
#define	PRELEASE_HANG	0x40
#define	PRELEASE_KILL	0x80	/* ignored: libproc never kills a target */

/* Pgrab() error codes, as illumos numbers them where it has them. */
#define	G_STRANGE	(-1)	/* unanticipated error, errno is meaningful */
#define	G_NOPROC	1	/* No such process */
#define	G_ZOMB		4	/* Zombie process */
#define	G_PERM		5	/* No permission */
#define	G_BUSY		6	/* Another process has control */
#define	G_SYS		7	/* System process */
#define	G_SELF		8	/* Process is self */
#define	G_INTR		9	/* Interrupt received while grabbing */
#define	G_LP64		10	/* Process is _LP64, self is ILP32 */
#define	G_ISAINVAL	16	/* Wrong ISA for this operation */
#define	G_NOFD		18	/* Too many open files */
#define	G_NOTSAME	40	/* Linux: the pid is another process in /proc */

extern struct ps_prochandle *Pgrab(pid_t, int, int *);
extern void Prelease(struct ps_prochandle *, int);
extern const char *Pgrab_error(int);

extern pid_t Pstatus_pid(struct ps_prochandle *);

/*
 * Why the last call on this handle that failed, failed, when there is
 * more to say than errno: a short phrase ("process is already traced by
 * pid 1234", "pidfd: pidfd_getfd: Operation not permitted; agent: ...").
 * "" when none has said anything.  Linux extension.
 */
extern const char *Perrmsg(struct ps_prochandle *);

/*
 * What pfiles prints in its header: illumos' psinfo_t, the fields Linux
 * has.  pr_psargs is /proc/PID/cmdline with NULs made spaces (trailing
 * ones dropped), cut to PRARGSZ - 1 bytes; pr_fname is /proc/PID/comm
 * (illumos has 16 bytes here; Linux shows kernel threads' full names,
 * longer than that).
 */
#define	PRARGSZ		80
#define	PRFNSZ		64	/* kernel threads' names may pass 15 bytes */

#define	SSYS		0x00000001	/* pr_flag: kernel thread */

typedef struct psinfo {
	int	pr_flag;
	pid_t	pr_pid;
	pid_t	pr_ppid;
	uid_t	pr_uid;
	gid_t	pr_gid;
	char	pr_fname[PRFNSZ];
	char	pr_psargs[PRARGSZ];
} psinfo_t;

extern const psinfo_t *Ppsinfo(struct ps_prochandle *);
extern int proc_get_psinfo(pid_t, psinfo_t *);

/*
 * Resource limits of the target, from /proc/PID/limits (no permission on
 * the target needed).  Returns 0, or -1 with errno set.
 */
extern int Plimit(struct ps_prochandle *, int, struct rlimit *);

/*
 * Memory of the target, through /proc/PID/mem: one pread(2) or pwrite(2)
 * each.  The file is opened at first use, never by a walk through pidfd.
 */
extern ssize_t Pread(struct ps_prochandle *, void *, size_t, uintptr_t);
extern ssize_t Pwrite(struct ps_prochandle *, const void *, size_t,
    uintptr_t);

/*
 * Open files.  Pfdinfo_iter() calls func once for every open fd of the
 * target, in increasing fd order, with one record: a fixed part followed
 * by self-describing items, read through proc_fdinfo_misc().  The record
 * is only valid during the call.  A nonzero return from func ends the walk
 * and is returned.  Otherwise 0 is returned, or -1 with errno set when the
 * walk could not be completed (ESRCH: the target exited).
 */
typedef struct prfdinfo {
	int		pr_fd;
	mode_t		pr_mode;	/* st_mode */
	uint64_t	pr_ino;
	int64_t		pr_size;
	int64_t		pr_offset;	/* fdinfo pos:, -1 when not known */
	uid_t		pr_uid;
	gid_t		pr_gid;
	major_t		pr_major;	/* of st_dev */
	minor_t		pr_minor;
	major_t		pr_rmajor;	/* of st_rdev */
	minor_t		pr_rminor;
	int		pr_fileflags;	/* fdinfo flags:, less O_CLOEXEC */
	int		pr_fdflags;	/* FD_CLOEXEC or 0 */
	int		pr_mnt_id;	/* fdinfo mnt_id:, -1 when not known */
	uint_t		pr_misc_size;	/* bytes of items in pr_misc */
	uint8_t		pr_misc[];	/* items, each 8-byte aligned */
} prfdinfo_t;

typedef struct pr_misc_header {
	uint_t		pr_misc_size;	/* header and payload, unpadded */
	uint_t		pr_misc_type;
} pr_misc_header_t;

/* Where the item after one of pr_misc_size bytes starts: padded to 8. */
#define	PR_MISC_NEXT(size)	(((size_t)(size) + 7) & ~(size_t)7)

/* Item types.  Every item appears at most once per record. */
#define	PR_PATHNAME		1	/* char[]: link target, NUL-ended */
#define	PR_SOCKETNAME		2	/* struct sockaddr, its length */
#define	PR_PEERSOCKNAME		3	/* struct sockaddr, its length */
#define	PR_SOCKOPTS_BOOL_OPTS	4	/* prsockbool_t */
#define	PR_SOCKOPT_LINGER	5	/* struct linger */
#define	PR_SOCKOPT_SNDBUF	6	/* int */
#define	PR_SOCKOPT_RCVBUF	7	/* int */
#define	PR_SOCKOPT_TYPE		8	/* int: SOCK_STREAM, ... */
#define	PR_SOCKOPT_PROTOCOL	9	/* int: SO_PROTOCOL */
#define	PR_SOCKOPT_DOMAIN	10	/* int: SO_DOMAIN */
#define	PR_PEERCRED		11	/* struct ucred: SO_PEERCRED */
#define	PR_LOCKS		12	/* prfdlock_t[] */
#define	PR_SOCKERR		13	/* char[]: why socket facts are missing */
#define	PR_LOCKS_DROPPED	14	/* uint_t: locks beyond PR_LOCKS' */
#define	PR_PATHERR		15	/* char[]: why PR_PATHNAME is missing */
#define	PR_CHANGED		16	/* empty: the fd changed under every
					   try; only the stat fields hold */
#define	PR_SOCKGAPS		17	/* prsockgaps_t: facts that the
					   source cannot find out */
#define	PR_ENDPOINTS		18	/* prendpoints_t: who holds the
					   other end of a local socket */
#define	PR_PEERCOMM		19	/* char[]: the comm of PR_PEERCRED's
					   process, proven to be it */
#define	PR_SOCKSTATE		20	/* prsockstate_t: state and queues */
#define	PR_SHARED		21	/* prendpoints_t: the other fds that
					   hold this very socket */
#define	PR_NLGROUPS		22	/* uint32_t[]: every netlink group
					   joined, 32 a word, to the last
					   word with one set */
#define	PR_IFNAME		23	/* char[]: the name of the interface
					   of a packet socket's name, in the
					   target's network namespace */

/* Bits of prsockbool_t, in the order pfiles prints them. */
#define	PR_SO_DEBUG		0x0001
#define	PR_SO_REUSEADDR		0x0002
#define	PR_SO_KEEPALIVE		0x0004
#define	PR_SO_DONTROUTE		0x0008
#define	PR_SO_BROADCAST		0x0010
#define	PR_SO_OOBINLINE		0x0020
#define	PR_SO_REUSEPORT		0x0040
#define	PR_SO_PASSCRED		0x0080
#define	PR_SO_ACCEPTCONN	0x0100
#define	PR_TCP_NODELAY		0x0200
#define	PR_SO_NBOOL		10

typedef struct prsockbool {
	uint_t		pr_known;	/* bits whose value is known */
	uint_t		pr_set;		/* of those, the ones that are on */
} prsockbool_t;

/*
 * The facts of a socket that its source cannot find out at all (diag: the
 * kernel's socket tables do not hold them), as opposed to facts that a
 * source failed to get (PR_SOCKERR): the booleans not known, other facts
 * not known (PR_GAP_*), and why.
 */
#define	PR_GAP_LINGER		0x01	/* SO_LINGER */
#define	PR_GAP_SNDBUF		0x02	/* SO_SNDBUF */
#define	PR_GAP_RCVBUF		0x04	/* SO_RCVBUF */
#define	PR_GAP_PEERCRED		0x08	/* SO_PEERCRED of a unix socket */
#define	PR_GAP_PEERNAME		0x10	/* a connected unix socket's peer name */
#define	PR_GAP_PEERCOMM		0x20	/* the name of its peer's process */
#define	PR_GAP_STATE		0x40	/* PR_SOCKSTATE's state */
#define	PR_GAP_QUEUES		0x80	/* PR_SOCKSTATE's queues */

typedef struct prsockgaps {
	uint_t		pr_bools;	/* PR_SO_* bits not known */
	uint_t		pr_other;	/* PR_GAP_* */
	char		pr_why[];	/* NUL-ended */
} prsockgaps_t;

/*
 * The holders of the other end of a socket whose other end is on this
 * host (a connected unix socket, a socketpair, a TCP or UDP connection
 * to a local address): the first pr_nend of them (at most
 * PR_ENDPOINTS_MAX), the target's own fds first, then the others' in
 * order of pid, then fd, pids as the caller's /proc sees them;
 * pr_more, the holders found and left out.  No item where no fd table
 * read holds the other end (in flight, or where the caller could not
 * look: Pendpoints_why() says).
 */
#define	PR_ENDPOINTS_MAX	8
/*
 * PR_SHARED has the same form: the other fds (the target's own, and
 * other processes') that hold the very same socket, by the same order
 * and cap; the record's own fd is never one of them.
 */

typedef struct prendpoint {
	pid_t		pr_pid;
	int		pr_fd;
} prendpoint_t;

typedef struct prendpoints {
	uint_t		pr_nend;	/* entries of pr_end */
	uint_t		pr_more;	/* holders not in pr_end */
	prendpoint_t	pr_end[];
} prendpoints_t;

/*
 * A socket's state and queues (PR_SOCKSTATE), for a TCP socket or a
 * connection-oriented unix socket (pr_state: the kernel's TCP state
 * number, PR_SS_*; a unix socket is PR_SS_LISTEN, PR_SS_ESTABLISHED for
 * connected, or PR_SS_CLOSE for unconnected), or the queues alone of a
 * UDP, raw or unix datagram socket (pr_state 0).  With PR_SSQ_QUEUED,
 * pr_read and pr_send: the bytes this end has not read, and those it
 * sent that are not acknowledged (TCP, as SIOCINQ and SIOCOUTQ count
 * them); for unix and datagram sockets, the kernel's own counts (SIOCINQ
 * and SIOCOUTQ of a unix socket, the receive and send memory of a UDP or
 * raw socket), as its socket tables give them.  With PR_SSQ_BACKLOG (a
 * listener): pr_read, the connections waiting in its accept queue, and
 * pr_send the queue's limit.  Neither flag: the queues are not known.
 */
#define	PR_SS_ESTABLISHED	1
#define	PR_SS_SYN_SENT		2
#define	PR_SS_SYN_RECV		3
#define	PR_SS_FIN_WAIT1		4
#define	PR_SS_FIN_WAIT2		5
#define	PR_SS_TIME_WAIT		6
#define	PR_SS_CLOSE		7
#define	PR_SS_CLOSE_WAIT	8
#define	PR_SS_LAST_ACK		9
#define	PR_SS_LISTEN		10
#define	PR_SS_CLOSING		11
#define	PR_SS_NEW_SYN_RECV	12
#define	PR_SS_MAX		PR_SS_NEW_SYN_RECV

#define	PR_SSQ_QUEUED		0x1
#define	PR_SSQ_BACKLOG		0x2

typedef struct prsockstate {
	int		pr_state;	/* PR_SS_*, or 0: queues alone */
	uint_t		pr_queues;	/* PR_SSQ_* */
	uint32_t	pr_read;	/* or the connections waiting */
	uint32_t	pr_send;	/* or the accept queue's limit */
} prsockstate_t;

/* One lock held through an fd, from the lock: lines of fdinfo. */
#define	PR_LOCK_POSIX	1
#define	PR_LOCK_OFD	2
#define	PR_LOCK_FLOCK	3
#define	PR_LOCK_OTHER	4

typedef struct prfdlock {
	short		pr_kind;	/* PR_LOCK_* */
	short		pr_type;	/* F_RDLCK, F_WRLCK */
	int		pr_mandatory;	/* 1 for MANDATORY, else 0 */
	pid_t		pr_pid;		/* owner, 0 when none */
} prfdlock_t;

typedef int proc_fdinfo_f(void *, const prfdinfo_t *);

extern int Pfdinfo_iter(struct ps_prochandle *, proc_fdinfo_f *, void *);
extern const void *proc_fdinfo_misc(const prfdinfo_t *, uint_t, size_t *);
/*
 * The items of a record, in their order: func(type, payload, its length,
 * arg) for each, until func returns nonzero, which is returned; 0 after
 * the last.  A damaged header ends the walk as the last item would.
 */
extern int proc_fdinfowalk(const prfdinfo_t *,
    int (*)(uint_t, const void *, size_t, void *), void *);

/*
 * Linux extensions.  Pfdinfo_iter_flags(PFDI_STATONLY) gives records with
 * the stat fields and PR_PATHNAME only, and opens no fd of the target;
 * with PFDI_NOENDPOINTS, records without PR_ENDPOINTS and PR_SHARED: the
 * holders of the other ends of the target's sockets, and the other holders
 * of the sockets themselves, are not looked for.
 */
#define	PFDI_STATONLY	0x1
#define	PFDI_NOENDPOINTS	0x2

extern int Pfdinfo_iter_flags(struct ps_prochandle *, int, proc_fdinfo_f *,
    void *);
/*
 * Why the last walk's PR_ENDPOINTS items may be missing or incomplete
 * (the target's network namespace may not be entered; other processes'
 * fd tables could not be read for want of fds), or NULL when nothing
 * kept it from looking.
 */
extern const char *Pendpoints_why(struct ps_prochandle *);

/*
 * A run over many processes (pfiles /proc/ *): what is the machine's and
 * not one process's -- who holds each socket (every process's fd table),
 * the kernel's socket tables of each network namespace, and with the bpf
 * source one iterator pass over every task's files -- is learned once,
 * by the first handle that needs it, and serves every handle attached to
 * the same share, in turn (one at a time).  Pshare_pids names the run's
 * processes in the order they will be walked: the bpf source then keeps,
 * from its one pass, the records of those not walked yet (their memory
 * bounded, the rest taken by a later pass).  Facts kept from an earlier
 * handle's turn are the run's: a holder named by the endpoint lines is
 * checked again (its link still names the socket) before it is given.
 * Pshare(P, NULL) detaches; destroy a share after every handle attached
 * to it is released.  Pshare_create returns NULL with errno (ENOMEM);
 * Pshare_pids and Pshare return 0, or -1 with errno (EINVAL, ENOMEM).
 */
typedef struct ps_share ps_share_t;

extern ps_share_t *Pshare_create(void);
extern int Pshare_pids(ps_share_t *, const pid_t *, size_t);
extern int Pshare(struct ps_prochandle *, ps_share_t *);
extern void Pshare_destroy(ps_share_t *);

/* Where socket facts come from; see pfiles(1) --via. */
typedef enum {
	PSOCK_AUTO = 0,
	PSOCK_PIDFD,
	PSOCK_AGENT,
	PSOCK_DIAG,
	PSOCK_BPF
} psocksrc_t;

#define	PSOCK_NSRC	(PSOCK_BPF + 1)	/* PSOCK_AUTO included */

/*
 * Choose the source of socket facts, and make sure it can work for this
 * target.  Returns 0, or -1 with errno set and a message in the handle
 * (Perrmsg) when the source cannot serve.  With PSOCK_AUTO the
 * first source that works is chosen; Psocksrc() then says which.
 */
extern int Psetsocksrc(struct ps_prochandle *, psocksrc_t);
extern psocksrc_t Psocksrc(struct ps_prochandle *);
extern const char *Psocksrc_name(psocksrc_t);
/*
 * Why the source src could not serve at the handle's last Psetsocksrc()
 * (one reason, without the source's name), or NULL when it served, was
 * not tried, or is not a source.  With PSOCK_AUTO, it tells which of the
 * sources before the chosen one were refused, and why: pfiles says so of
 * bpf, the fast path.
 */
extern const char *Psocksrc_why(struct ps_prochandle *, psocksrc_t);

/*
 * The agent: one thread of the target, borrowed through ptrace(2) to run
 * system calls in the target (illumos' agent LWP).  Pcreate_agent() seizes
 * and interrupts one thread, saves its registers and signal mask and
 * blocks its signals; Pdestroy_agent() gives all of it back.  The other
 * threads keep running.  No code is written into the target.
 */
#define	MAXARGS		8	/* most arguments of one system call */
#define	MAXARGL		4096	/* largest by-reference argument */

/* argdes_t arg_type */
#define	AT_BYVAL	1
#define	AT_BYREF	2
#define	AT_RESULT	4	/* Linux: the result of an earlier call */

/* argdes_t arg_inout */
#define	AI_INPUT	1
#define	AI_OUTPUT	2
#define	AI_INOUT	3

typedef struct argdes {
	long		arg_value;	/* value (BYVAL), or set for BYREF */
	void		*arg_object;	/* the object (BYREF) */
	char		arg_type;	/* AT_BYVAL, AT_BYREF */
	char		arg_inout;	/* AI_INPUT, AI_OUTPUT, AI_INOUT */
	ushort_t	arg_size;	/* size of the object (BYREF) */
} argdes_t;

typedef struct sysret {
	long		sys_rval1;
	long		sys_rval2;
} sysret_t;

/* Filling in argument descriptions and calls (Linux extensions). */
static inline void
argdes_byval(argdes_t *a, long value)
{
	a->arg_value = value;
	a->arg_object = (void *)0;
	a->arg_type = AT_BYVAL;
	a->arg_inout = 0;
	a->arg_size = 0;
}

static inline void
argdes_byref(argdes_t *a, void *object, size_t size, int inout)
{
	a->arg_value = 0;
	a->arg_object = object;
	a->arg_type = AT_BYREF;
	a->arg_inout = (char)inout;
	a->arg_size = (ushort_t)size;	/* Psyscall refuses > MAXARGL */
}

/*
 * In a batch (Psyscall_batch), the value of an argument can be the
 * result (sys_rval1, -1 when it failed) of an earlier call of the same
 * batch, known only once that call has run: call is its index.  So the
 * fd that an F_DUPFD returns is the one the next calls use.
 */
static inline void
argdes_result(argdes_t *a, uint_t call)
{
	a->arg_value = (long)call;
	a->arg_object = (void *)0;
	a->arg_type = AT_RESULT;
	a->arg_inout = 0;
	a->arg_size = 0;
}

extern int Pcreate_agent(struct ps_prochandle *);
extern void Pdestroy_agent(struct ps_prochandle *);
extern int Psyscall(struct ps_prochandle *, sysret_t *, int, uint_t,
    argdes_t *);

/*
 * A batch: up to 64 system calls run in one borrow of the agent, with
 * the by-reference objects of all of them moved in one write and one read
 * of the target's memory.  Each call's result lands in its psyscall_t.
 * Like Psyscall(), it makes an agent for the batch when the caller holds
 * none, and destroys it after.
 */
typedef struct psyscall {
	int		ps_sysindex;	/* system call number */
	uint_t		ps_nargs;
	argdes_t	*ps_argp;
	sysret_t	ps_rval;	/* out: return values */
	int		ps_errno;	/* out: 0, or the call's errno */
} psyscall_t;

extern int Psyscall_batch(struct ps_prochandle *, psyscall_t *, uint_t);

/*
 * The agent's deadline: the most time, in milliseconds, that the agents
 * of one handle may spend keeping a thread of the target from running
 * its own code -- seizing and parking it, the batches, a new agent after
 * an exec, and the waits and retries between them -- added up over the
 * handle's life.  Between batches the thread runs, and that is not
 * counted.  Past the deadline the thread is given back as it was, and
 * Pcreate_agent, Psyscall and Psyscall_batch fail with ETIME ("the target
 * was held for its deadline (N ms)").  A batch's calls are also cut at a
 * bound of their own (100 ms, doubled after each batch cut, to 800 ms):
 * the calls not run then are ECANCELED and the batch fails with EAGAIN.  Pset_agent_deadline: 0 for the default
 * (LIBPROC_AGENT_DEADLINE_MS of the environment, else PAGENT_DEADLINE_MS);
 * at most PAGENT_DEADLINE_MAX.  Pagent_held: the time counted so far.
 */
#define	PAGENT_DEADLINE_MS	2000
#define	PAGENT_DEADLINE_MAX	3600000
extern int Pset_agent_deadline(struct ps_prochandle *, unsigned int);
extern unsigned int Pagent_held(struct ps_prochandle *);

static inline void
psyscall_set(psyscall_t *c, int sysindex, argdes_t *argp, uint_t nargs)
{
	c->ps_sysindex = sysindex;
	c->ps_nargs = nargs;
	c->ps_argp = argp;
	c->ps_rval.sys_rval1 = 0;
	c->ps_rval.sys_rval2 = 0;
	c->ps_errno = 0;
}


/*
 * Signals and the agent.
 *
 * Outside a batch, a borrowed thread runs its own code, seized (lent),
 * with its own registers and signal mask: if the controlling process
 * dies then, by any signal, SIGKILL included, the kernel detaches the
 * thread and it carries on exactly as if Pdestroy_agent() had been
 * called.  Only during a batch are its
 * registers and mask altered; so while a batch runs, libproc blocks
 * every asynchronous signal of the calling thread (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT, SIGTSTP, SIGCHLD, ...), and restores the caller's
 * mask when the thread's own registers and mask are back.  A signal that
 * arrived meanwhile is then delivered as usual: with the default action
 * the program dies and the kernel gives the thread back; a handler runs
 * between batches.  So pfiles needs no handler at all.  The window in
 * which a SIGKILL of the controlling process leaves the thread altered
 * is the batch itself (tens of microseconds per call).
 *
 * A program that catches SIGINT/SIGTERM/SIGHUP and wants the threads
 * back before it goes on (or before _exit) may call Prelease_agents()
 * from its handler: it is async-signal-safe, detaches every thread that
 * any handle of this process has borrowed, and leaves the handles to be
 * freed by Pdestroy_agent()/Prelease() later (their calls then fail
 * with ESRCH).  A handler can only run between batches, so every
 * borrowed thread is then in its own state.
 */
extern void Prelease_agents(void);


/*
 * illumos' pr_* wrappers: a system call run in the target through the
 * agent (made for the call, when the caller holds none).  With a NULL
 * handle they act on the calling process.  -1 with errno on failure.
 */
extern int pr_getsockopt(struct ps_prochandle *, int, int, int, void *,
    int *);
extern int pr_getsockname(struct ps_prochandle *, int, struct sockaddr *,
    socklen_t *);
extern int pr_getpeername(struct ps_prochandle *, int, struct sockaddr *,
    socklen_t *);
extern int pr_fcntl(struct ps_prochandle *, int, int, void *);
extern int pr_fstat(struct ps_prochandle *, int, struct stat *);
extern off_t pr_lseek(struct ps_prochandle *, int, off_t, int);
extern int pr_open(struct ps_prochandle *, const char *, int, mode_t);
extern int pr_close(struct ps_prochandle *, int);
extern int pr_getrlimit(struct ps_prochandle *, int, struct rlimit *);

#ifdef	__cplusplus
}
#endif

#endif	/* _LIBPROC_H */

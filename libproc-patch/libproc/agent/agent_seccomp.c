/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent_seccomp.c: the borrowed thread's seccomp filters, read once per
 * agent, and the proof, before each call is injected, that they allow
 * it (agent_seccomp.h says where Psyscall.c asks).  seccomp_check.c
 * checks and runs the filters; this file does the reading.
 *
 * What is read.  The thread's seccomp mode, from /proc/PID/task/TID/
 * status (the "Seccomp:" line), once per agent:
 *  0	no filter: every call is allowed;
 *  1	strict mode: only read, write, exit and rt_sigreturn; the kernel
 *	kills the thread for any other call;
 *  2	filters: each is read with PTRACE_SECCOMP_GET_FILTER (the thread is
 *	in a ptrace stop between batches, as it must be), index 0 being the
 *	first installed, then checked with the kernel's rules for seccomp
 *	filters (sc_validate).  Reading them needs CAP_SYS_ADMIN and no
 *	seccomp filter of our own (EACCES), a kernel with
 *	CONFIG_CHECKPOINT_RESTORE (EIO otherwise), and classic BPF filters
 *	(EMEDIUMTYPE otherwise).
 * When the filters cannot be read, or one of them fails the kernel's
 * rules (a kernel that accepts more than sc_validate knows), every call
 * is refused: nothing is guessed.
 *
 * What is proven.  Each call is run through every filter, on the struct
 * seccomp_data the kernel will build: nr, ISA_AUDIT_ARCH, the address
 * after the syscall instruction the agent uses (the kernel reports the
 * instruction pointer after the instruction), and the six argument
 * registers.  The results are combined as the kernel does (the action of
 * the highest precedence wins).  ALLOW and LOG are allowed; ERRNO with
 * an errno other than 0 too (the call fails in the target: a missing
 * fact).  Everything else is refused: KILL_PROCESS, KILL_THREAD, TRAP,
 * USER_NOTIF, TRACE (no PTRACE_O_TRACESECCOMP is set) and ERRNO with
 * errno 0, which would skip the call and make it look successful.
 *
 * Filters only ever get added.  A filter added to the thread after it
 * was read (another thread's SECCOMP_FILTER_FLAG_TSYNC) is caught at the
 * next batch: with CAP_SYS_ADMIN by one PTRACE_SECCOMP_GET_FILTER of the
 * index after the last one known (ENOENT: nothing new), without it, for
 * a thread that had no filter, by reading its mode again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include "isa.h"
#include "agent/agent_seccomp.h"
#include "agent/marshal.h"
#include "agent/seccomp_check.h"

#ifndef	PTRACE_SECCOMP_GET_FILTER
#define	PTRACE_SECCOMP_GET_FILTER	0x420c
#endif

/* The kernel's bound on a thread's filters: their lengths, 4 more each. */
#define	AS_MAXPATH	((1 << 18) / 8)
#define	AS_STATUS_MAX	16384	/* most of task/TID/status read */
#define	AS_ALLARGS	0x3fU	/* all six arguments known */

enum as_mode {
	AS_UNREAD = 0,
	AS_NONE,		/* mode 0: no filter */
	AS_STRICT,		/* mode 1 */
	AS_FILTERS,		/* mode 2, read and checked */
	AS_UNREADABLE		/* as_err, as_bad say why */
};

struct agent_seccomp {
	int		as_mode;
	int		as_err;		/* the errno that stopped the reading */
	int		as_priv;	/* GET_FILTER answers us */
	size_t		as_n;		/* filters */
	sc_prog_t	*as_prog;	/* the most recently installed first */
	struct sock_filter *as_insns;	/* all of them */
	size_t		as_bad;		/* 1 + the index of one sc_validate */
	sc_fault_t	as_fault;	/* refuses, and why */
	char		as_why[PERRMSG_MAX];	/* a refusal of the gate */
};

/* The names of the calls the library makes, for the messages. */
static const char *
call_name(int nr, char *buf, size_t len)
{
	static const struct {
		int		nr;
		const char	*name;
	} names[] = {
		{ SYS_read, "read" }, { SYS_write, "write" },
		{ SYS_close, "close" }, { SYS_fstat, "fstat" },
		{ SYS_lseek, "lseek" }, { SYS_mmap, "mmap" },
		{ SYS_munmap, "munmap" }, { SYS_socket, "socket" },
		{ SYS_sendmsg, "sendmsg" }, { SYS_recvmsg, "recvmsg" },
		{ SYS_getsockname, "getsockname" },
		{ SYS_getpeername, "getpeername" },
		{ SYS_getsockopt, "getsockopt" }, { SYS_fcntl, "fcntl" },
		{ SYS_getrlimit, "getrlimit" }, { SYS_prlimit64, "prlimit64" },
		{ SYS_openat, "openat" }, { SYS_getpid, "getpid" },
		{ SYS_getppid, "getppid" }, { SYS_readlinkat, "readlinkat" },
	};

	for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
		if (names[i].nr == nr)
			return (names[i].name);
	}
	(void) snprintf(buf, len, "system call %d", nr);
	return (buf);
}

static struct agent_seccomp *
state_of(struct agent *ag)
{
	if (ag->ag_seccomp == NULL)
		ag->ag_seccomp = calloc(1, sizeof (struct agent_seccomp));
	return (ag->ag_seccomp);
}

static void
drop_filters(struct agent_seccomp *as)
{
	free(as->as_prog);
	free(as->as_insns);
	as->as_prog = NULL;
	as->as_insns = NULL;
	as->as_n = 0;
	as->as_bad = 0;
}

void
agent_seccomp_free(struct agent *ag)
{
	if (ag->ag_seccomp != NULL) {
		drop_filters(ag->ag_seccomp);
		free(ag->ag_seccomp);
		ag->ag_seccomp = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Reading. */

/* The "Seccomp:" of the thread's status (-1: none there); an errno. */
static int
thread_mode(struct ps_prochandle *P, pid_t tid, int *modep)
{
	char path[40], *buf;
	procstatus_t ps;
	ssize_t n;
	int err = 0;

	if ((buf = malloc(AS_STATUS_MAX)) == NULL)
		return (ENOMEM);
	/*
	 * When the main thread has exited, the handle looks at the process
	 * through this thread's own directory (Pgrab.c, use_thread), which
	 * has no task/ of its own.
	 */
	if (P->tid != 0 && tid == P->tid)
		(void) snprintf(path, sizeof (path), "status");
	else
		(void) snprintf(path, sizeof (path), "task/%d/status",
		    (int)tid);
	if ((n = proc_read_small(P->procfd, path, buf, AS_STATUS_MAX)) < 0) {
		err = errno == ENOENT ? ESRCH : errno;
	} else {
		procfs_parse_status(buf, (size_t)n, &ps);
		*modep = ps.pst_seccomp;
	}
	free(buf);
	return (err);
}

/* PTRACE_SECCOMP_GET_FILTER: a length, or -1 and *errp. */
static long
get_filter(pid_t tid, size_t index, struct sock_filter *buf, int *errp)
{
	long r;

	errno = 0;
	r = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)index, buf);
	*errp = r < 0 ? (errno != 0 ? errno : EIO) : 0;
	return (r);
}

/* Every filter of the thread, in as_prog the newest first; an errno. */
static int
read_filters(pid_t tid, struct agent_seccomp *as)
{
	size_t used = 0, nf = 0, total = 0, *lens = NULL;
	struct sock_filter *insns = NULL;
	int err = 0;

	for (size_t i = 0; ; i++) {
		struct sock_filter *ni;
		size_t *nl;
		long r, r2;

		if ((r = get_filter(tid, i, NULL, &err)) < 0) {
			if (err == ENOENT && i > 0)
				err = 0;	/* the last one was i - 1 */
			break;
		}
		/* The kernel's own bounds: never more, or it lies. */
		total += (size_t)r + 4;
		if (r == 0 || r > SC_MAXINSNS || total > AS_MAXPATH + 4) {
			err = E2BIG;
			break;
		}
		ni = realloc(insns, (used + (size_t)r) * sizeof (*insns));
		if (ni != NULL)
			insns = ni;
		nl = realloc(lens, (nf + 1) * sizeof (*lens));
		if (nl != NULL)
			lens = nl;
		if (ni == NULL || nl == NULL) {
			err = ENOMEM;
			break;
		}
		r2 = get_filter(tid, i, insns + used, &err);
		if (r2 != r) {
			err = r2 < 0 ? err : EIO;
			break;
		}
		lens[nf++] = (size_t)r;
		used += (size_t)r;
	}
	if (err == 0 && (as->as_prog = calloc(nf, sizeof (sc_prog_t))) ==
	    NULL)
		err = ENOMEM;
	if (err != 0) {
		free(insns);
		free(lens);
		return (err);
	}
	as->as_insns = insns;
	as->as_n = nf;
	/* Index i of the kernel's is as_prog[nf - 1 - i]. */
	for (size_t i = 0, at = 0; i < nf; at += lens[i], i++) {
		sc_prog_t *sp = &as->as_prog[nf - 1 - i];

		sp->sp_insns = insns + at;
		sp->sp_len = lens[i];
		if (as->as_bad == 0 && sc_validate(sp->sp_insns, sp->sp_len,
		    &as->as_fault) != SC_OK)
			as->as_bad = i + 1;
	}
	free(lens);
	return (0);
}

/* Read what there is to read of the thread's seccomp state. */
static int
load(struct ps_prochandle *P, struct agent *ag, struct agent_seccomp *as)
{
	int mode = -1, err, perr;
	long r;

	drop_filters(as);
	as->as_mode = AS_UNREADABLE;
	as->as_err = 0;
	if ((err = thread_mode(P, ag->ag_tid, &mode)) != 0) {
		as->as_err = err;
		return (err == ESRCH ? ESRCH : 0);
	}
	r = get_filter(ag->ag_tid, 0, NULL, &perr);
	if (r < 0 && perr == ESRCH)
		return (ESRCH);
	as->as_priv = r >= 0 || perr == EINVAL;
	if (mode == 1) {
		as->as_mode = AS_STRICT;
	} else if (mode == 0 && r < 0) {
		as->as_mode = AS_NONE;
	} else if (mode == 0 || mode == 2) {
		/* Mode 0 with a filter: one came meanwhile. */
		if ((err = read_filters(ag->ag_tid, as)) == ESRCH)
			return (ESRCH);
		as->as_err = err;
		if (err == 0 && as->as_bad == 0)
			as->as_mode = AS_FILTERS;
	} else {
		as->as_err = ENODATA;	/* no "Seccomp:" line we know */
	}
	PDEBUG(P, "agent: thread %d: seccomp %s, %zu filter%s%s%s",
	    (int)ag->ag_tid, as->as_mode == AS_NONE ? "off" :
	    as->as_mode == AS_STRICT ? "strict" : as->as_mode == AS_FILTERS ?
	    "filters" : "unreadable", as->as_n, as->as_n == 1 ? "" : "s",
	    as->as_err != 0 ? ": " : "",
	    as->as_err != 0 ? strerror(as->as_err) : "");
	return (0);
}

/* Are the filters known to be those the thread has now?  Else read. */
static int
refresh(struct ps_prochandle *P, struct agent *ag, struct agent_seccomp *as)
{
	int err, mode = -1;
	long r;

	switch (as->as_mode) {
	case AS_STRICT:
		return (0);	/* a strict thread can get no filter */
	case AS_NONE:
		if (as->as_priv) {
			r = get_filter(ag->ag_tid, 0, NULL, &err);
			if (r < 0 && err == EINVAL)
				return (0);
		} else if ((err = thread_mode(P, ag->ag_tid, &mode)) == 0 &&
		    mode == 0) {
			return (0);
		}
		break;
	case AS_FILTERS:
		r = get_filter(ag->ag_tid, as->as_n, NULL, &err);
		if (r < 0 && err == ENOENT)
			return (0);
		break;
	default:		/* not read yet, or unreadable: try again */
		break;
	}
	return (load(P, ag, as));
}

/* Why the filters cannot be used, into msg; 0 when they can. */
static int
unreadable(const struct agent_seccomp *as, char *msg, size_t len)
{
	const char *hint;

	if (as->as_mode != AS_UNREADABLE)
		return (0);
	if (as->as_bad != 0) {
		(void) snprintf(msg, len, "the process's seccomp filter %zu "
		    "cannot be checked: %s (instruction %u)", as->as_bad - 1,
		    sc_strerror(as->as_fault.sf_code),
		    (unsigned)as->as_fault.sf_pc);
		return (1);
	}
	switch (as->as_err) {
	case EACCES:
		hint = " (it takes CAP_SYS_ADMIN, and no seccomp filter of "
		    "our own)";
		break;
	case EIO:
		hint = " (a kernel without CONFIG_CHECKPOINT_RESTORE)";
		break;
	case EMEDIUMTYPE:
		hint = " (a filter that is not classic BPF)";
		break;
	case E2BIG:
		hint = " (more than the kernel allows)";
		break;
	case ENODATA:
		(void) snprintf(msg, len, "the seccomp mode of the process "
		    "cannot be read");
		return (1);
	default:
		hint = "";
		break;
	}
	(void) snprintf(msg, len, "the process's seccomp filters cannot be "
	    "read: %s%s", strerror(as->as_err), hint);
	return (1);
}

/* ------------------------------------------------------------------ */
/* Proving. */

/* A call the agent is about to make, as the filters will see it. */
typedef struct planned_call {
	int		pc_nr;
	const uint64_t	*pc_args;	/* its six argument registers */
	unsigned	pc_known;	/* bit i: pc_args[i] is known */
	int		pc_errno_ok;	/* may the filter make it fail */
} planned_call_t;

/*
 * Is call c, made by the system call instruction at insn, allowed?  1;
 * else 0 and msg says why.  Without pc_errno_ok, ERRNO is refused too.
 */
static int
proven(const struct agent_seccomp *as, const planned_call_t *c,
    uint64_t insn, char *msg, size_t len)
{
	char nbuf[32];
	const char *name = call_name(c->pc_nr, nbuf, sizeof (nbuf)), *what;
	int nr = c->pc_nr, code;
	uint32_t ret;
	sc_input_t in;
	sc_fault_t f;
	size_t which;

	if (as->as_mode == AS_NONE)
		return (1);
	if (as->as_mode == AS_STRICT) {
		if (nr == SYS_read || nr == SYS_write || nr == SYS_exit ||
		    nr == SYS_rt_sigreturn)
			return (1);
		(void) snprintf(msg, len, "%s would be killed by the "
		    "process's seccomp strict mode", name);
		return (0);
	}
	sc_input_make(&in, nr, ISA_AUDIT_ARCH, insn + ISA_SYSCALL_LEN,
	    c->pc_args, c->pc_known);
	code = sc_judge(as->as_prog, as->as_n, &in, &ret, &f, &which);
	if (code == SC_OK && sc_permits(ret, c->pc_errno_ok))
		return (1);
	if (code == SC_UNKNOWN) {
		(void) snprintf(msg, len, "%s cannot be proven allowed by the "
		    "process's seccomp filter: %s", name, sc_strerror(code));
		return (0);
	}
	if (code != SC_OK) {
		(void) snprintf(msg, len, "%s cannot be proven allowed by the "
		    "process's seccomp filter %zu: %s (instruction %u)", name,
		    as->as_n - 1 - which, sc_strerror(code), (unsigned)f.sf_pc);
		return (0);
	}
	switch (sc_action(ret)) {
	case SC_ACT_ERRNO:
		what = (ret & SECCOMP_RET_DATA) == 0 ? "skipped as if it had "
		    "succeeded" : "made to fail";
		break;
	case SC_ACT_TRAP:
		what = "trapped (SIGSYS)";
		break;
	case SC_ACT_USER_NOTIF:
		what = "handed to a user-space supervisor";
		break;
	case SC_ACT_TRACE:
		what = "handed to a tracer";
		break;
	default:
		what = "killed";
		break;
	}
	(void) snprintf(msg, len, "%s would be %s by the process's seccomp "
	    "filter", name, what);
	return (0);
}

int
agent_seccomp_allows(struct ps_prochandle *P, struct agent *ag,
    const psyscall_t *calls, uint_t n, uint64_t syscall_insn)
{
	marshal_area_t area = { MARSHAL_MINADDR, MARSHAL_MAXADDR };
	struct agent_seccomp *as;
	char msg[PERRMSG_MAX];
	marshal_t *m;
	int err;

	if ((as = state_of(ag)) == NULL)
		return (Pseterr(P, ENOMEM, "%s", strerror(ENOMEM)));
	as->as_why[0] = '\0';
	if ((err = refresh(P, ag, as)) != 0)
		return (Pseterr(P, err, "%s", err == ESRCH ?
		    "no such process" : strerror(err)));
	if (as->as_mode == AS_NONE)
		return (0);
	if (unreadable(as, msg, sizeof (msg)))
		return (Pseterr(P, EPERM, "%s", msg));
	/*
	 * The registers the calls will have: marshal's, planned in the
	 * largest area.  A by-value argument's register does not depend on
	 * the area; a by-reference one's is an address not chosen yet.  A
	 * batch that cannot be planned fails before anything is written.
	 */
	if ((m = malloc(sizeof (*m))) == NULL)
		return (Pseterr(P, ENOMEM, "%s", strerror(ENOMEM)));
	if (marshal_plan(m, &area, calls, n) != 0) {
		free(m);
		return (0);
	}
	for (uint_t i = 0; i < n; i++) {
		planned_call_t c = { calls[i].ps_sysindex, m->m_regs[i], 0, 1 };

		for (uint_t j = 0; j < MARSHAL_NREGS; j++) {
			if (j >= calls[i].ps_nargs ||
			    calls[i].ps_argp[j].arg_type == AT_BYVAL)
				c.pc_known |= 1U << j;
		}
		if (!proven(as, &c, syscall_insn, msg, sizeof (msg))) {
			free(m);
			PDEBUG(P, "agent: batch refused: %s", msg);
			return (Pseterr(P, EPERM, "%s", msg));
		}
	}
	free(m);
	return (0);
}

/* The gate and the scratch mapping: filters read, usable? */
static struct agent_seccomp *
usable(struct agent *ag)
{
	struct agent_seccomp *as = ag->ag_seccomp;

	if (as == NULL)
		return (NULL);
	if (as->as_mode != AS_NONE && as->as_mode != AS_STRICT &&
	    as->as_mode != AS_FILTERS) {
		(void) snprintf(as->as_why, sizeof (as->as_why), "the "
		    "process's seccomp filters were not read before the call");
		return (NULL);
	}
	return (as);
}

int
agent_seccomp_scratch(struct agent *ag, uint64_t len)
{
	const uint64_t margs[6] = { 0, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0 };
	const uint64_t uargs[6] = { 0, len, 0, 0, 0, 0 };
	const planned_call_t mmap_call = { SYS_mmap, margs, AS_ALLARGS, 1 };
	/* The munmap's address is the mmap's result: not known yet. */
	const planned_call_t munmap_call = { SYS_munmap, uargs,
	    AS_ALLARGS & ~1U, 0 };
	struct agent_seccomp *as;

	if ((as = usable(ag)) == NULL)
		return (EPERM);
	if (!proven(as, &mmap_call, ag->ag_syscall, as->as_why,
	    sizeof (as->as_why)) || !proven(as, &munmap_call, ag->ag_syscall,
	    as->as_why, sizeof (as->as_why)))
		return (EPERM);
	return (0);
}

int
agent_seccomp_gate(struct agent *ag, int nr, const uint64_t args[6])
{
	const planned_call_t c = { nr, args, AS_ALLARGS, 1 };
	struct agent_seccomp *as;

	if ((as = usable(ag)) == NULL)
		return (EPERM);
	if (!proven(as, &c, ag->ag_syscall, as->as_why, sizeof (as->as_why)))
		return (EPERM);
	return (0);
}

int
agent_seccomp_refusal(struct ps_prochandle *P, struct agent *ag)
{
	struct agent_seccomp *as = ag->ag_seccomp;

	if (as == NULL || as->as_why[0] == '\0')
		return (0);
	(void) Pseterr(P, EPERM, "%s", as->as_why);
	as->as_why[0] = '\0';
	return (1);
}

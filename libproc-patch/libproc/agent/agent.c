/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent.c: the agent -- one thread of the target borrowed through
 * ptrace(2) to run system calls in the target -- its life: seize, park,
 * release.  Psyscall.c runs the calls; agent_stop.c waits for stops.
 * The machine's registers and instructions are isa/ISA/isa.h's.
 *
 * Borrowing.  Pcreate_agent() seizes one thread (PTRACE_SEIZE, never
 * SIGSTOP, never PTRACE_O_EXITKILL) and interrupts it (PTRACE_INTERRUPT).
 * The thread stops inside the kernel's signal code, with what the kernel
 * needs to restart a system call it was in (isa.h says where).  That stop
 * is where the thread is "parked"
 * whenever no batch runs: its registers and signal mask are its own, so
 * that if we detach -- or die, and the kernel detaches for us -- the
 * kernel's restart logic sees the thread's own registers and restarts the
 * call (restart_syscall for nanosleep, so it sleeps only what was left).
 * The other threads of the target keep running throughout.
 *
 * One exception to "given back exactly": a few blocking calls with no
 * timeout (epoll_wait, semop, sigwaitinfo...) return EINTR when their
 * thread is merely stopped; the agent turns that into a restart (see
 * agent_restart.c), which is the same call.
 *
 * No code is ever written into the target: the syscall instruction is
 * one that exists in its vDSO (or the one its parked call came through),
 * found once per agent and confirmed with one pread.  /proc/PID/maps is
 * read once per agent, and so is /proc/PID/status (TracerPid changes).
 *
 * Signals of the calling program: see libproc.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/agent_seccomp.h"

#define	VDSO_MAX	(64 * 1024)	/* most we read of a target's vDSO */
#define	AGENT_MAX_LIVE	64		/* agents Prelease_agents() knows */

/*
 * The agents of this process, for Prelease_agents(), which may run in a
 * signal handler: plain words, changed with signals blocked.
 */
static struct {
	volatile pid_t		l_owner;	/* 0: free */
	volatile pid_t		l_tid;
	volatile sig_atomic_t	l_parked;
	volatile sig_atomic_t	l_released;
} live[AGENT_MAX_LIVE];

static pid_t
my_tid(void)
{
	return ((pid_t)syscall(SYS_gettid));
}

/*
 * Block the calling thread's asynchronous signals (see libproc.h).  The
 * synchronous ones stay open: blocking them would turn a fault of ours
 * into a silent death.
 */
void
agent_block_signals(sigset_t *old)
{
	static const int sync_sigs[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT
	};
	sigset_t all;

	(void) sigfillset(&all);
	for (size_t i = 0; i < sizeof (sync_sigs) / sizeof (sync_sigs[0]); i++)
		(void) sigdelset(&all, sync_sigs[i]);
	(void) pthread_sigmask(SIG_BLOCK, &all, old);
}

void
agent_restore_signals(const sigset_t *old)
{
	(void) pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* A slot for a new agent; without one it works, but is not listed. */
static void
live_add(struct agent *ag)
{
	ag->ag_slot = -1;
	for (int i = 0; i < AGENT_MAX_LIVE; i++) {
		pid_t free_slot = 0;

		/* Claimed atomically: threads may create agents at once. */
		if (!__atomic_compare_exchange_n(&live[i].l_owner, &free_slot,
		    ag->ag_owner, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		live[i].l_tid = ag->ag_tid;
		live[i].l_released = 0;
		live[i].l_parked = 1;
		ag->ag_slot = i;
		return;
	}
}

void
agent_live_set_parked(struct agent *ag, int parked)
{
	if (ag->ag_slot >= 0)
		live[ag->ag_slot].l_parked = parked;
}

/* Did Prelease_agents() give this thread back?  Then the agent is done. */
int
agent_live_released(struct agent *ag)
{
	if (ag->ag_slot >= 0 && live[ag->ag_slot].l_released) {
		ag->ag_state = AG_RELEASED;
		return (1);
	}
	return (ag->ag_state == AG_RELEASED);
}

static void
live_remove(struct agent *ag)
{
	if (ag->ag_slot >= 0) {
		live[ag->ag_slot].l_parked = 0;
		__atomic_store_n(&live[ag->ag_slot].l_owner, 0,
		    __ATOMIC_SEQ_CST);
		ag->ag_slot = -1;
	}
}

static int stop_signal(pid_t);

/*
 * Let a lent thread go, from a signal handler too (every call here is
 * async-signal-safe): stop it (PTRACE_INTERRUPT), wait a bounded while
 * for the stop, and detach, giving it the signal it had stopped for.
 */
static void
release_lent(pid_t tid)
{
	struct timespec nap = { 0, 100000 };
	int st;

	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) != 0)
		return;
	for (int i = 0; i < AGENT_RELEASE_NAPS; i++) {
		pid_t r = waitpid(tid, &st, __WALL | WNOHANG);

		if (r == tid && (WIFEXITED(st) || WIFSIGNALED(st)))
			return;
		if (r == tid) {
			(void) ptrace(PTRACE_DETACH, tid, NULL,
			    (void *)(long)stop_signal(tid));
			return;
		}
		if (r < 0 && errno != EINTR)
			return;
		(void) nanosleep(&nap, NULL);
	}
}

void
Prelease_agents(void)
{
	int saved = errno;
	pid_t me = my_tid();

	for (int i = 0; i < AGENT_MAX_LIVE; i++) {
		if (live[i].l_owner != me || live[i].l_released)
			continue;
		/* Not parked: lent (a handler never runs during a batch). */
		if (live[i].l_parked)
			(void) ptrace(PTRACE_DETACH, live[i].l_tid, NULL, NULL);
		else
			release_lent(live[i].l_tid);
		live[i].l_released = 1;
	}
	errno = saved;
}

/* ---------------------------------------------------------------------
 * Creation: which thread, is it ours to take, where is a syscall
 * instruction, where is its stack.  All of this is read once per agent.
 */

/* Is the program an ELF of the agent's ISA?  1, 0, or -1 when unknown. */
static int
exe_is_isa(struct ps_prochandle *P)
{
	unsigned char eh[EI_NIDENT + 4];
	ssize_t n;
	int fd;

	if ((fd = Pprocopen(P, "exe", O_RDONLY)) < 0)
		return (-1);
	n = pread(fd, eh, sizeof (eh), 0);
	(void) close(fd);
	if (n != (ssize_t)sizeof (eh) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return (-1);
	/* e_machine follows e_type, both after e_ident; little-endian. */
	return (eh[EI_CLASS] == ISA_ELF_CLASS &&
	    (eh[EI_NIDENT + 2] | eh[EI_NIDENT + 3] << 8) == ISA_ELF_MACHINE);
}

/* Read /proc/PID/maps once, through the pure scanner (procfs_parse.c). */
static int
read_maps(struct ps_prochandle *P, uint64_t sp, uint64_t pc2,
    procmaps_t *pm)
{
	char buf[8192];
	ssize_t n;
	int fd;

	procfs_maps_init(pm, sp, pc2);
	if ((fd = Pprocopen(P, "maps", O_RDONLY)) < 0)
		return (errno == ENOENT ? ESRCH : errno);
	while ((n = read(fd, buf, sizeof (buf))) > 0 ||
	    (n < 0 && errno == EINTR)) {
		if (n > 0)
			procfs_maps_feed(pm, buf, (size_t)n);
	}
	(void) close(fd);
	procfs_maps_end(pm);
	return (0);
}

/*
 * The offset of a syscall instruction in our own vDSO, the same image the
 * kernel maps into every 64-bit process; 0 when none.
 */
static uint64_t
own_vdso_syscall_offset(void)
{
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;

	if (base == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_phentsize != sizeof (Elf64_Phdr) || eh->e_phnum > 64)
		return (0);
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base +
		    eh->e_phoff) + i;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
		    ph->p_filesz > VDSO_MAX || ph->p_offset > VDSO_MAX)
			continue;
		for (uint64_t o = 0; o + ISA_SYSCALL_LEN <= ph->p_filesz;
		    o += ISA_INSN_ALIGN) {
			const uint8_t *p = base + ph->p_offset + o;

			if (isa_is_syscall(p))
				return (ph->p_offset + o);
		}
	}
	return (0);
}

static int
is_syscall_at(struct ps_prochandle *P, uint64_t addr)
{
	uint8_t b[ISA_SYSCALL_LEN];

	return (Pread(P, b, sizeof (b), (uintptr_t)addr) == sizeof (b) &&
	    isa_is_syscall(b));
}

/* Scan the target's vDSO, read whole with one pread. */
static uint64_t
scan_target_vdso(struct ps_prochandle *P, const procmaps_t *mf)
{
	size_t len = mf->pm_vdso_hi - mf->pm_vdso_lo;
	uint64_t found = 0;
	uint8_t *img;
	ssize_t n;

	if (len < ISA_SYSCALL_LEN || len > VDSO_MAX || (img = malloc(len)) == NULL)
		return (0);
	n = Pread(P, img, len, (uintptr_t)mf->pm_vdso_lo);
	for (ssize_t o = 0; n >= ISA_SYSCALL_LEN &&
	    o + ISA_SYSCALL_LEN <= n; o += ISA_INSN_ALIGN) {
		if (isa_is_syscall(img + o)) {
			found = mf->pm_vdso_lo + (uint64_t)o;
			break;
		}
	}
	free(img);
	return (found);
}

/*
 * A syscall instruction in the target: at the same offset of its vDSO as
 * in ours; else the one its parked call came through (isa_parked_insn);
 * else one found in its vDSO read whole.  Each candidate costs one pread.
 */
static uint64_t
find_syscall_insn(struct ps_prochandle *P, const procmaps_t *mf,
    const isa_regs_t *r)
{
	uint64_t off = own_vdso_syscall_offset();
	uint64_t parked = isa_parked_insn(r);

	if (mf->pm_vdso_hi != 0 && off != 0 &&
	    mf->pm_vdso_lo + off + ISA_SYSCALL_LEN <= mf->pm_vdso_hi &&
	    is_syscall_at(P, mf->pm_vdso_lo + off))
		return (mf->pm_vdso_lo + off);
	if (parked != 0 && mf->pm_pc_exec && is_syscall_at(P, parked))
		return (parked);
	if (mf->pm_vdso_hi != 0)
		return (scan_target_vdso(P, mf));
	return (0);
}
/*
 * PTRACE_SEIZE, with our options: system-call stops told apart, and an
 * exec of the thread while it is lent reported (ST_EXEC).
 */
static int
attach(struct ps_prochandle *P, struct agent *ag)
{
	int err;

	if (ptrace(PTRACE_SEIZE, ag->ag_tid, NULL,
	    (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC)) != 0) {
		err = errno;
		if (err == ESRCH)
			return (Pseterr(P, ESRCH, "no such process"));
		return (Pseterr(P, err, "ptrace: %s", strerror(err)));
	}
	return (0);
}

/*
 * A wait for the thread to stop (our interrupt) ended with err instead:
 * it is gone, or it did not stop in time, by the deadline or in
 * AGENT_STOP_MS; then it is seized and not known to be stopped.
 */
int
agent_no_stop(struct ps_prochandle *P, struct agent *ag, int err)
{
	if (err == ESRCH)
		return (Pseterr(P, ESRCH, "no such process"));
	ag->ag_state = AG_BROKEN;
	if (err == ETIMEDOUT)
		return (Pseterr(P, err, "thread %d did not stop within %d ms",
		    (int)ag->ag_tid, AGENT_STOP_MS));
	return (Pseterr(P, err, "thread %d did not stop: %s",
	    (int)ag->ag_tid, strerror(err)));
}

/* Seize and interrupt the thread, and wait until it is parked. */
static int
seize(struct ps_prochandle *P, struct agent *ag)
{
	const procstatus_t *ps;
	int err;

	if ((err = attach(P, ag)) != 0) {
		/*
		 * Someone may have come first since we read the status (not
		 * us: a thread of ours that is leaving, Pcreate_agent).
		 */
		if (err == EPERM && (ps = Prefresh_status(P)) != NULL &&
		    ps->pst_tracer != 0 && ps->pst_tracer != getpid())
			return (Pseterr(P, EBUSY, "process is already traced "
			    "by pid %d", (int)ps->pst_tracer));
		return (err);
	}
	if (ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL) != 0) {
		err = errno;
		if (err != ESRCH)	/* seized and running: keep trying */
			ag->ag_state = AG_BROKEN;
		return (Pseterr(P, err, "ptrace interrupt: %s",
		    strerror(err)));
	}
	/*
	 * Not cut short by the deadline either: a thread given up on before
	 * it stops would stop later and stay stopped, seized and broken.
	 */
	ag->ag_until = agent_now_ms() + AGENT_STOP_MS;
	/*
	 * A signal may be on its way to the thread before our trap: give it
	 * back (ST_SIGNAL resumed with its signal); the trap comes next.
	 */
	err = agent_wait_for(ag, ST_EVENT, PTRACE_CONT, 0);
	if (err != 0)
		return (agent_no_stop(P, ag, err));
	ag->ag_state = AG_PARKED;
	return (0);
}

/* The parked thread's facts: 64-bit, a syscall instruction, its stack. */
static int
examine(struct ps_prochandle *P, struct agent *ag)
{
	isa_regs_t r;
	procmaps_t mf;
	int err;

	if ((err = agent_get_regs(ag, &r)) != 0)
		return (Pseterr(P, err, "ptrace getregs: %s", strerror(err)));
	if (!isa_native(&r))
		return (Pseterr(P, ENOEXEC, "not a " ISA_NAME " process"));
	if ((err = agent_restart_interrupted(P, ag, &r)) != 0)
		return (err);
	if ((err = read_maps(P, isa_sp(&r), isa_parked_insn(&r), &mf)) != 0)
		return (Pseterr(P, err, "cannot read maps: %s",
		    strerror(err)));
	if ((ag->ag_syscall = find_syscall_insn(P, &mf, &r)) == 0)
		return (Pseterr(P, ENOEXEC,
		    "no system call instruction found in the process"));
	agent_read_rseq(ag);
	if (mf.pm_stack_known) {
		ag->ag_stack_lo = mf.pm_stack_lo;
		ag->ag_stack_hi = mf.pm_stack_hi;
	}
	return (0);
}

/* Give a parked (or at least stopped, own-state) thread back. */
static void
detach(struct agent *ag)
{
	if (ag->ag_state == AG_PARKED &&
	    ptrace(PTRACE_DETACH, ag->ag_tid, NULL, NULL) != 0 &&
	    errno == ESRCH)
		(void) agent_lost(ag);
}

/* Does pid trace this process (TracerPid of our own status)? */
static int
traces_us(pid_t pid)
{
	procstatus_t ps;
	char buf[4096];
	ssize_t n;

	if ((n = proc_read_small(AT_FDCWD, "/proc/self/status", buf,
	    sizeof (buf))) <= 0)
		return (0);
	procfs_parse_status(buf, (size_t)n, &ps);
	return (ps.pst_tracer == pid);
}

/* Prelease's hook (core/Phook.h): the agent goes after the source. */
static void
agent_release(void *P)
{
	Pdestroy_agent(P);
}

/* The handle has the agent ag; Prelease gives it back. */
static void
agent_attach(struct ps_prochandle *P, struct agent *ag)
{
	P->agent = ag;
	P->tick = agent_service;
	(void) Phook_set(P->hooks, agent_release, P, PHOOK_LAST);
}

static void recover_and_detach(struct agent *);

/*
 * The thread known by the pid is ours with no agent on it: seized in the
 * middle of an exec (after the exec took the pid over, before it was
 * reported) by an agent since let go, it stopped at its exec
 * (PTRACE_EVENT_EXEC), and would stay stopped until this process exits.
 * It is let go now.  1 when it is no longer ours.
 */
static int
release_leftover(struct ps_prochandle *P)
{
	struct agent left = { .ag_tid = P->pid, .ag_state = AG_BROKEN };
	const procstatus_t *ps;

	PDEBUG(P, "agent: thread %d is still ours after an exec: let go",
	    (int)P->pid);
	recover_and_detach(&left);
	return ((ps = Prefresh_status(P)) != NULL && ps->pst_tracer !=
	    getpid());
}

/*
 * The thread of the target that Pcreate_agent may borrow, or 0 with the
 * reason in the handle's message (errno set).
 */
static pid_t
thread_to_borrow(struct ps_prochandle *P)
{
	const procstatus_t *ps;
	pid_t tid;
	int err;

	if (P->pid == getpid()) {
		(void) Pseterr(P, EINVAL, "cannot borrow a thread of itself");
		return (0);
	}
	if (traces_us(P->pid)) {
		/* It would wait on us while we wait on it: both stop for good. */
		(void) Pseterr(P, EDEADLK, "the process is tracing this one");
		return (0);
	}
	/* Fresh: a tracer may have come or gone since the grab. */
	if ((ps = Prefresh_status(P)) == NULL) {
		err = errno == ENOENT ? ESRCH : errno;
		(void) Pseterr(P, err, "%s", err == ESRCH ? "no such process" :
		    strerror(err));
		return (0);
	}
	/*
	 * Still ours after Pdestroy_agent: the thread we had seized was
	 * leaving (an exec by another thread makes it exit) and could not be
	 * let go; the kernel unlinks it once it is gone.  Not another tracer.
	 */
	if (ps->pst_tracer != 0 && ps->pst_tracer == getpid() &&
	    !release_leftover(P)) {
		(void) Pseterr(P, ESRCH, "its thread is leaving (an exec?)");
		return (0);
	}
	if (ps->pst_tracer != 0) {
		(void) Pseterr(P, EBUSY, "process is already traced by pid %d",
		    (int)ps->pst_tracer);
		return (0);
	}
	if (exe_is_isa(P) == 0) {
		(void) Pseterr(P, ENOEXEC, "not a " ISA_NAME " process");
		return (0);
	}
	/* The thread Pgrab examines through, or a live one of a zombie. */
	tid = P->tid != 0 ? P->tid : P->pid;
	if (ps->pst_state == 'Z' && (tid = Plive_thread(P)) <= 0) {
		/* Threads not looked at (short of fds) are no zombie. */
		err = tid < 0 ? errno : ESRCH;
		(void) Pseterr(P, err, "%s", tid < 0 ? strerror(err) :
		    "process is defunct");
		return (0);
	}
	return (tid);
}

/* Seize and examine thread tid, and make it P's agent: 0 or -1 (errno). */
static int
seize_agent(struct ps_prochandle *P, pid_t tid)
{
	struct agent *ag;
	sigset_t old;
	int err;

	if ((ag = calloc(1, sizeof (*ag))) == NULL)
		return (-1);
	ag->ag_tid = tid;
	ag->ag_owner = my_tid();
	ag->ag_slot = -1;
	if ((err = seize(P, ag)) == 0 && (err = examine(P, ag)) != 0)
		detach(ag);
	ag->ag_execd = 0;	/* examined as it is now */
	if (err != 0 && ag->ag_state == AG_BROKEN) {
		/*
		 * Seized, but it never stopped: we cannot detach a running
		 * thread.  Keep the agent so that Pdestroy_agent() (from
		 * Prelease) can try again; the thread carries on meanwhile.
		 */
		PDEBUG(P, "agent: thread %d seized, not stopped: kept",
		    (int)tid);
		agent_attach(P, ag);
		errno = err;
		return (-1);
	}
	if (err != 0) {
		free(ag);
		errno = err;
		return (-1);
	}
	/*
	 * Lent at once: the thread runs its own code until the first batch,
	 * whatever the caller does before it (pfiles reads the socket
	 * tables and every other process's fds first).
	 */
	agent_block_signals(&old);
	live_add(ag);
	err = agent_lend(ag);
	agent_live_set_parked(ag, ag->ag_state == AG_PARKED);
	agent_restore_signals(&old);
	agent_attach(P, ag);
	if (err != 0) {
		errno = err == ESRCH ? Pseterr(P, ESRCH, "no such process") :
		    Pseterr(P, err, "ptrace cont: %s", strerror(err));
		return (-1);
	}
	PDEBUG(P, "agent: thread %d seized, examined and lent", (int)tid);
	return (0);
}

int
agent_create(struct ps_prochandle *P)
{
	pid_t tid;

	if (P->agent != NULL)
		return (0);
	if ((tid = thread_to_borrow(P)) == 0)
		return (-1);
	return (seize_agent(P, tid));
}

int
Pcreate_agent(struct ps_prochandle *P)
{
	int rc, err;

	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	if (P->agent != NULL)
		return (0);
	if ((err = agent_span_open(P, 1)) != 0) {
		errno = err;
		return (-1);
	}
	rc = agent_create(P);
	err = errno;
	agent_span_close(P);
	errno = err;
	return (rc);
}

/*
 * A broken agent: wait (bounded) until the thread is stopped -- GETREGS
 * succeeds only then --, put its own registers and mask back if we had
 * changed them, and let it go.  Detached from a stop outside its parked
 * one, the thread still goes through the kernel's restart logic (the
 * detach marks a signal pending).  If it never stops, it stays seized
 * until this process exits, when the kernel detaches it.
 */
/*
 * The signal a stopped thread would be given were it let go now: that of
 * a signal-delivery stop; 0 for any other stop (an event stop, such as
 * our interrupt's; a system-call stop; a group stop, for which
 * PTRACE_GETSIGINFO fails).  Asked of the kernel, not of our own record
 * of stops, so that whatever the thread was doing, a signal it was about
 * to take is delivered when we let go.
 */
static int
stop_signal(pid_t tid)
{
	siginfo_t si;

	memset(&si, 0, sizeof (si));
	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) != 0)
		return (0);
	if (si.si_signo == SIGTRAP && ((si.si_code >> 8) != 0 ||
	    si.si_code == SIGTRAP || si.si_code == (SIGTRAP | 0x80)))
		return (0);
	return (si.si_signo);
}

static void
recover_and_detach(struct agent *ag)
{
	long until = agent_now_ms() + AGENT_STOP_MS;
	isa_regs_t r;
	int st, sig = 0;

	for (int n = 0; isa_getregs(ag->ag_tid, &r) != 0; n++) {
		long left = until - agent_now_ms();

		if (n == AGENT_MAX_STOPS || left <= 0 ||
		    agent_wait_event(ag->ag_tid, &st, left) != 0)
			return;
		if (agent_stop_kind(st, &sig) == ST_GONE) {
			ag->ag_state = AG_GONE;
			return;
		}
	}
	sig = stop_signal(ag->ag_tid);
	if (ag->ag_dirty) {
		(void) isa_setregs(ag->ag_tid, &ag->ag_regs);
		(void) ptrace(PTRACE_SETSIGMASK, ag->ag_tid,
		    (void *)sizeof (ag->ag_mask), &ag->ag_mask);
		ag->ag_dirty = 0;
		sig = 0;	/* a fault of an injected call: not theirs */
	}
	(void) ptrace(PTRACE_DETACH, ag->ag_tid, NULL, (void *)(long)sig);
}

void
Pdestroy_agent(struct ps_prochandle *P)
{
	struct agent *ag;
	sigset_t old;
	int st, e = errno;

	if (P == NULL || (ag = P->agent) == NULL)
		return;
	agent_block_signals(&old);
	if (!agent_live_released(ag)) {
		/*
		 * A lent thread is stopped first: only then can it be let
		 * go.  Giving back is never cut short by the deadline.
		 */
		ag->ag_until = agent_now_ms() + AGENT_STOP_MS;
		if (ag->ag_state == AG_LENT)
			(void) agent_take(P, ag);
		if (ag->ag_state == AG_PARKED)
			detach(ag);
		else if (ag->ag_state == AG_BROKEN)
			recover_and_detach(ag);
	}
	/* A thread that died under us: collect what the kernel told us. */
	if (ag->ag_state == AG_GONE)
		(void) waitpid(ag->ag_tid, &st, __WALL | WNOHANG);
	live_remove(ag);
	agent_restore_signals(&old);
	PDEBUG(P, "agent: thread %d %s", (int)ag->ag_tid,
	    ag->ag_state == AG_GONE ? "is gone" :
	    ag->ag_state == AG_RELEASED ? "was given back by Prelease_agents" :
	    "given back");
	agent_seccomp_free(ag);
	free(ag->ag_buf);
	free(ag);
	P->agent = NULL;
	P->tick = NULL;
	errno = e;
}
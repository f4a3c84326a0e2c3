/*
 * agent.c: the agent -- one thread of the target borrowed through
 * ptrace(2) to run system calls in the target -- and Psyscall.  Linux
 * x86_64 only.
 *
 * Borrowing.  Pcreate_agent() seizes one thread (PTRACE_SEIZE, never
 * SIGSTOP, never PTRACE_O_EXITKILL) and interrupts it (PTRACE_INTERRUPT).
 * The thread stops inside the kernel's signal code, before the kernel
 * decides whether to restart a system call it was in: rax then holds
 * -ERESTARTSYS (or -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK...) and
 * orig_rax the call's number.  That stop is where the thread is "parked"
 * whenever no batch runs: its registers and signal mask are its own, so
 * that if we detach -- or die, and the kernel detaches for us -- the
 * kernel's restart logic sees the thread's own registers and restarts the
 * call (restart_syscall for nanosleep, so it sleeps only what was left).
 * The other threads of the target keep running throughout.
 *
 * A batch (Psyscall_batch).  From the parked stop:
 *   1. PTRACE_GETREGS and PTRACE_GETSIGMASK: the thread's own state;
 *   2. marshal (marshal.c) every by-reference object of the batch into
 *      one block below the thread's red zone, and write it with ONE
 *      pwrite of /proc/PID/mem (or, when the batch needs more room than
 *      STACK_BUDGET or the stack is not one we know, in a private mapping
 *      that the agent makes with mmap first and removes with munmap
 *      after);
 *   3. block every signal of the thread (PTRACE_SETSIGMASK), so that no
 *      signal is delivered to, or interrupts, an injected call;
 *   4. per call: PTRACE_SETREGS with rip at an existing syscall
 *      instruction, rax the call's number, orig_rax -1 (the kernel's
 *      restart logic, which runs when the thread leaves its stop, then
 *      leaves these registers alone; rax, a call number, is no -ERESTART
 *      code anyway), the arguments, rsp the block's 16-aligned base;
 *      PTRACE_SYSCALL to the call's entry stop, PTRACE_SYSCALL to its
 *      exit stop, PTRACE_GETREGS for rax;
 *   5. ONE pread of the outputs part of the block (none if no outputs);
 *   6. PTRACE_SETREGS and PTRACE_SETSIGMASK of the thread's own state;
 *   7. park again: PTRACE_INTERRUPT and PTRACE_CONT; the thread goes
 *      from the exit stop into the kernel's signal code and stops there,
 *      as in the beginning, with its own registers.
 * One exception to "given back exactly": epoll_wait with no timeout
 * returns EINTR when its thread is merely stopped; the agent turns that
 * into a restart (see restartable_epoll_eintr), which is the same call.
 *
 * No code is ever written into the target: the syscall instruction is
 * one that exists in its vDSO (or the one its parked call came through),
 * found once per agent and confirmed with one pread.  Registers go
 * through ptrace only; nothing under /proc is read per call or per
 * batch.
 *
 * Waits.  Every wait for a stop is bounded (AGENT_STOP_MS): waitpid
 * with WNOHANG, spinning briefly and then sleeping in growing steps.  A
 * target that exits or is killed during a batch ends it with ESRCH.
 *
 * Signals of the calling program: see libproc.h.  In short, the thread's
 * registers and mask are altered only during steps 3-6, and the calling
 * thread's asynchronous signals are blocked for exactly that window.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "Pcontrol.h"
#include "agent_client.h"
#include "marshal.h"

#define	AGENT_STOP_MS	2000		/* bound of one wait for a stop */
#define	AGENT_MAX_STOPS	32		/* stops passed over in one wait */
#define	AGENT_SPINS	200		/* waitpid polls before sleeping */
#define	STACK_BUDGET	(32 * 1024)	/* scratch room below the red zone */
#define	VDSO_MAX	(64 * 1024)	/* most we read of a target's vDSO */
#define	USER_CS_64	0x33		/* %cs of 64-bit user code */
#define	AGENT_MAX_LIVE	64		/* agents Prelease_agents() knows */

enum agent_state {
	AG_PARKED = 1,	/* in its parked stop, its own state */
	AG_BROKEN,	/* seized, not known to be stopped: see ag_dirty */
	AG_GONE,	/* the thread has exited */
	AG_RELEASED	/* detached by Prelease_agents() */
};

struct agent {
	pid_t		ag_tid;		/* the borrowed thread */
	pid_t		ag_owner;	/* our thread that traces it */
	int		ag_state;
	int		ag_slot;	/* in live[], or -1 */
	uint64_t	ag_syscall;	/* address of a syscall instruction */
	uint64_t	ag_stack_lo;	/* the mapping of the thread's stack, */
	uint64_t	ag_stack_hi;	/* when it is one we know */
	int		ag_dirty;	/* regs/mask below must be put back */
	int		ag_passed;	/* signals passed on while seizing */
	struct user_regs_struct ag_regs; /* the thread's own, in a batch */
	uint64_t	ag_mask;
	uint8_t		*ag_buf;	/* the block's image */
	size_t		ag_bufsz;
	void		*ag_client;	/* agent_client.h */
	agent_client_fini_f *ag_client_fini;
};

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

static _Thread_local char agent_err[160];

const char *
Pagent_error(void)
{
	return (agent_err);
}

/* Say why, and return err (also in errno). */
static int
agent_fail(int err, const char *fmt, ...)
    __attribute__((__format__(__printf__, 2, 3)));

static int
agent_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(agent_err, sizeof (agent_err), fmt, ap);
	va_end(ap);
	errno = err;
	return (err);
}

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

static void
restore_signals(const sigset_t *old)
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

static void
live_set_parked(struct agent *ag, int parked)
{
	if (ag->ag_slot >= 0)
		live[ag->ag_slot].l_parked = parked;
}

/* Did Prelease_agents() give this thread back?  Then the agent is done. */
static int
live_released(struct agent *ag)
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

void
Prelease_agents(void)
{
	int saved = errno;
	pid_t me = my_tid();

	for (int i = 0; i < AGENT_MAX_LIVE; i++) {
		if (live[i].l_owner != me || !live[i].l_parked ||
		    live[i].l_released)
			continue;
		(void) ptrace(PTRACE_DETACH, live[i].l_tid, NULL, NULL);
		live[i].l_released = 1;
	}
	errno = saved;
}

/* Milliseconds since some fixed point. */
static long
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * Wait for the next event of the thread within timeout_ms.  0 with the
 * status in *stp; ETIMEDOUT; ESRCH when there is nothing to wait for.
 */
static int
wait_event(pid_t tid, int *stp, long timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	long nap_ns = 20000;

	for (int spin = 0; ; spin++) {
		pid_t r = waitpid(tid, stp, __WALL | WNOHANG);

		if (r == tid)
			return (0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return (errno == ECHILD ? ESRCH : errno);
		if (spin < AGENT_SPINS) {
			(void) sched_yield();
			continue;
		}
		if (now_ms() >= deadline)
			return (ETIMEDOUT);
		struct timespec ts = { 0, nap_ns };
		(void) nanosleep(&ts, NULL);
		if (nap_ns < 1000000)
			nap_ns *= 2;
	}
}

/* What a wait status says. */
enum stop_kind { ST_GONE, ST_SYSCALL, ST_EVENT, ST_SIGNAL };

static enum stop_kind
stop_kind(int st, int *sigp)
{
	*sigp = 0;
	if (WIFEXITED(st) || WIFSIGNALED(st))
		return (ST_GONE);
	if (WSTOPSIG(st) == (SIGTRAP | 0x80))
		return (ST_SYSCALL);
	if ((st >> 16) == PTRACE_EVENT_STOP)
		return (ST_EVENT);	/* our interrupt, or a group stop */
	*sigp = WSTOPSIG(st);
	return (ST_SIGNAL);
}

/*
 * Wait until the thread reaches a stop of kind want, resuming it with
 * resume_req over the stops that are not (a group stop is resumed; a
 * signal-delivery stop gets its signal back, so that nothing is lost,
 * except, when in_batch, a fault that our injected call caused, which is
 * suppressed and ends the batch with EFAULT).  0, ESRCH, ETIMEDOUT,
 * EFAULT, or an errno of ptrace.
 */
static int
wait_for(struct agent *ag, enum stop_kind want, int resume_req, int in_batch)
{
	long deadline = now_ms() + AGENT_STOP_MS;
	int st, sig, err, interrupted = 0;

	for (int n = 0; n < AGENT_MAX_STOPS; n++) {
		long left = deadline - now_ms();

		err = wait_event(ag->ag_tid, &st, left > 0 ? left : 0);
		if (err == ETIMEDOUT && in_batch && !interrupted) {
			/* An injected call blocks: interrupt it (EINTR). */
			(void) ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL);
			interrupted = 1;
			deadline = now_ms() + AGENT_STOP_MS;
			continue;
		}
		if (err != 0)
			return (err);
		enum stop_kind k = stop_kind(st, &sig);
		if (k == ST_GONE) {
			ag->ag_state = AG_GONE;
			return (ESRCH);
		}
		if (k == want)
			return (0);
		if (k == ST_SIGNAL && sig != SIGSTOP && in_batch)
			return (EFAULT);
		if (k == ST_SIGNAL)
			ag->ag_passed++;
		if (ptrace(resume_req, ag->ag_tid, NULL,
		    (void *)(long)(k == ST_SIGNAL ? sig : 0)) != 0)
			return (errno == ESRCH ? ESRCH : errno);
	}
	return (ETIMEDOUT);
}

/*
 * A ptrace request failed with ESRCH: the thread is either gone (or
 * going: SIGKILL wakes it from any stop) or no longer stopped.  Find out
 * which within a short bound, looking at its events without consuming a
 * stop (WNOWAIT), so that whoever waits next still sees it.
 */
static int
lost(struct agent *ag)
{
	long deadline = now_ms() + 100;
	siginfo_t si;
	int st;

	do {
		memset(&si, 0, sizeof (si));
		if (waitid(P_PID, (id_t)ag->ag_tid, &si, WEXITED | WSTOPPED |
		    __WALL | WNOHANG | WNOWAIT) != 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			ag->ag_state = AG_BROKEN;
			return (EIO);
		}
		if (si.si_pid == ag->ag_tid && (si.si_code == CLD_EXITED ||
		    si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)) {
			(void) waitpid(ag->ag_tid, &st, __WALL | WNOHANG);
			break;
		}
		if (si.si_pid == ag->ag_tid) {		/* stopped after all */
			ag->ag_state = AG_BROKEN;
			return (EIO);
		}
		struct timespec ts = { 0, 1000000 };
		(void) nanosleep(&ts, NULL);
	} while (now_ms() < deadline);
	if (kill(ag->ag_tid, 0) != 0 && errno == ESRCH) {
		ag->ag_state = AG_GONE;
		return (ESRCH);
	}
	ag->ag_state = AG_BROKEN;
	return (EIO);
}

/* ---------------------------------------------------------------------
 * Creation: which thread, is it ours to take, where is a syscall
 * instruction, where is its stack.  All of this is read once per agent.
 */

typedef struct target_facts {
	pid_t		tf_tracer;	/* TracerPid */
	char		tf_state;	/* State letter of the main thread */
} target_facts_t;

/* Read a small file of /proc/PID into buf (NUL-ended); its length or -1. */
static ssize_t
read_small(struct ps_prochandle *P, const char *name, char *buf, size_t sz)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	if ((fd = Pprocopen(P, name, O_RDONLY)) < 0)
		return (-1);
	while (len + 1 < sz) {
		n = read(fd, buf + len, sz - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	(void) close(fd);
	buf[len] = '\0';
	return ((ssize_t)len);
}

static int
read_status(struct ps_prochandle *P, target_facts_t *tf)
{
	char buf[4096], *p;

	tf->tf_tracer = 0;
	tf->tf_state = '?';
	if (read_small(P, "status", buf, sizeof (buf)) < 0)
		return (errno == ENOENT ? ESRCH : errno);
	if ((p = strstr(buf, "\nState:")) != NULL) {
		p += strlen("\nState:");
		while (*p == ' ' || *p == '\t')
			p++;
		tf->tf_state = *p;
	}
	if ((p = strstr(buf, "\nTracerPid:")) != NULL)
		tf->tf_tracer = (pid_t)strtol(p + strlen("\nTracerPid:"),
		    NULL, 10);
	return (0);
}

/* Is the program a 64-bit x86_64 ELF?  1, 0, or -1 when unknown. */
static int
exe_is_x86_64(struct ps_prochandle *P)
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
	return (eh[EI_CLASS] == ELFCLASS64 &&
	    (eh[EI_NIDENT + 2] | eh[EI_NIDENT + 3] << 8) == EM_X86_64);
}

/* A live thread other than the main one (which is a zombie), or 0. */
static pid_t
other_thread(struct ps_prochandle *P)
{
	pid_t tid = 0;
	int fd;

	/* /proc/PID/task lists tids; the first that is not PID will do. */
	if ((fd = Pprocopen(P, "task", O_RDONLY | O_DIRECTORY)) < 0)
		return (0);
	for (;;) {
		char dents[1024];
		long n = syscall(SYS_getdents64, fd, dents, sizeof (dents));

		if (n <= 0)
			break;
		for (long off = 0; off < n; ) {
			struct {
				uint64_t	d_ino;
				int64_t		d_off;
				unsigned short	d_reclen;
				unsigned char	d_type;
				char		d_name[];
			} *d = (void *)(dents + off);
			pid_t t = (pid_t)strtol(d->d_name, NULL, 10);

			if (t > 0 && t != P->pid && tid == 0)
				tid = t;
			off += d->d_reclen;
		}
		if (tid != 0)
			break;
	}
	(void) close(fd);
	return (tid);
}

/* What /proc/PID/maps tells the agent. */
typedef struct maps_facts {
	uint64_t	mf_vdso_lo, mf_vdso_hi;
	uint64_t	mf_stack_lo, mf_stack_hi;	/* mapping holding sp */
	int		mf_stack_known;	/* [stack], or guarded below */
	int		mf_pc_exec;	/* rip - 2 is in an executable map */
} maps_facts_t;

typedef struct maps_line {
	uint64_t	ml_lo, ml_hi;
	char		ml_perms[5];
	const char	*ml_name;	/* "" when anonymous */
} maps_line_t;

/* Parse "lo-hi perms offset dev inode   name"; 0 or -1. */
static int
parse_maps_line(char *line, maps_line_t *ml)
{
	char *p = line, *end;
	int field = 0;

	ml->ml_lo = strtoull(p, &end, 16);
	if (end == p || *end != '-')
		return (-1);
	p = end + 1;
	ml->ml_hi = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return (-1);
	p = end + 1;
	if (strlen(p) < 4)
		return (-1);
	memcpy(ml->ml_perms, p, 4);
	ml->ml_perms[4] = '\0';
	/* Skip perms, offset, dev, inode; the rest is the name. */
	while (*p != '\0' && field < 4) {
		while (*p != '\0' && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
		field++;
	}
	ml->ml_name = p;
	return (0);
}

static void
note_maps_line(const maps_line_t *ml, const maps_line_t *prev,
    uint64_t sp, uint64_t pc2, maps_facts_t *mf)
{
	if (strcmp(ml->ml_name, "[vdso]") == 0) {
		mf->mf_vdso_lo = ml->ml_lo;
		mf->mf_vdso_hi = ml->ml_hi;
	}
	if (sp >= ml->ml_lo && sp < ml->ml_hi) {
		mf->mf_stack_lo = ml->ml_lo;
		mf->mf_stack_hi = ml->ml_hi;
		/*
		 * The main thread's [stack], or a thread stack of glibc's
		 * kind (an anonymous mapping with a guard page right
		 * below): there, what lies below sp is free stack.  Any
		 * other mapping (a Go heap, a sigaltstack in malloc'd
		 * memory) may hold live data below sp: the agent then
		 * uses a private mapping.
		 */
		mf->mf_stack_known = strcmp(ml->ml_name, "[stack]") == 0 ||
		    (ml->ml_name[0] == '\0' && ml->ml_perms[0] == 'r' &&
		    ml->ml_perms[1] == 'w' && prev != NULL &&
		    prev->ml_hi == ml->ml_lo &&
		    strcmp(prev->ml_perms, "---p") == 0);
	}
	if (pc2 >= ml->ml_lo && pc2 + 2 <= ml->ml_hi && ml->ml_perms[2] == 'x')
		mf->mf_pc_exec = 1;
}

/* Read /proc/PID/maps once, line by line. */
static int
read_maps(struct ps_prochandle *P, uint64_t sp, uint64_t pc2,
    maps_facts_t *mf)
{
	char buf[8192], line[512], prevname[1];
	maps_line_t ml, prev;
	size_t llen = 0;
	int have_prev = 0, fd;
	ssize_t n;

	memset(mf, 0, sizeof (*mf));
	if ((fd = Pprocopen(P, "maps", O_RDONLY)) < 0)
		return (errno == ENOENT ? ESRCH : errno);
	prevname[0] = '\0';
	while ((n = read(fd, buf, sizeof (buf))) > 0 || (n < 0 &&
	    errno == EINTR)) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (llen < sizeof (line) - 1)
					line[llen++] = buf[i];
				continue;
			}
			line[llen] = '\0';
			llen = 0;
			if (parse_maps_line(line, &ml) != 0)
				continue;
			note_maps_line(&ml, have_prev ? &prev : NULL, sp, pc2,
			    mf);
			prev = ml;
			prev.ml_name = prevname;	/* line is reused */
			have_prev = 1;
		}
	}
	(void) close(fd);
	return (0);
}

/*
 * The offset of a syscall instruction (0f 05) in our own vDSO, the same
 * image the kernel maps into every 64-bit process; 0 when none.
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
		for (uint64_t o = 0; o + 1 < ph->p_filesz; o++) {
			const uint8_t *p = base + ph->p_offset + o;

			if (p[0] == 0x0f && p[1] == 0x05)
				return (ph->p_offset + o);
		}
	}
	return (0);
}

static int
is_syscall_at(struct ps_prochandle *P, uint64_t addr)
{
	uint8_t b[2];

	return (Pread(P, b, 2, (uintptr_t)addr) == 2 && b[0] == 0x0f &&
	    b[1] == 0x05);
}

/* Scan the target's vDSO, read whole with one pread. */
static uint64_t
scan_target_vdso(struct ps_prochandle *P, const maps_facts_t *mf)
{
	size_t len = mf->mf_vdso_hi - mf->mf_vdso_lo;
	uint64_t found = 0;
	uint8_t *img;
	ssize_t n;

	if (len < 2 || len > VDSO_MAX || (img = malloc(len)) == NULL)
		return (0);
	n = Pread(P, img, len, (uintptr_t)mf->mf_vdso_lo);
	for (ssize_t o = 0; n > 1 && o + 1 < n; o++) {
		if (img[o] == 0x0f && img[o + 1] == 0x05) {
			found = mf->mf_vdso_lo + (uint64_t)o;
			break;
		}
	}
	free(img);
	return (found);
}

/*
 * A syscall instruction in the target: at the same offset of its vDSO as
 * in ours; else the one its parked call came through (rip - 2); else one
 * found in its vDSO read whole.  Each candidate costs one pread.
 */
static uint64_t
find_syscall_insn(struct ps_prochandle *P, const maps_facts_t *mf,
    const struct user_regs_struct *r)
{
	uint64_t off = own_vdso_syscall_offset();

	if (mf->mf_vdso_hi != 0 && off != 0 &&
	    mf->mf_vdso_lo + off + 2 <= mf->mf_vdso_hi &&
	    is_syscall_at(P, mf->mf_vdso_lo + off))
		return (mf->mf_vdso_lo + off);
	if ((long long)r->orig_rax >= 0 && mf->mf_pc_exec &&
	    is_syscall_at(P, r->rip - 2))
		return (r->rip - 2);
	if (mf->mf_vdso_hi != 0)
		return (scan_target_vdso(P, mf));
	return (0);
}

static int
get_regs(struct agent *ag, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, ag->ag_tid, NULL, r) != 0)
		return (errno == ESRCH ? lost(ag) : errno);
	return (0);
}

static int
set_regs(struct agent *ag, const struct user_regs_struct *r)
{
	if (ptrace(PTRACE_SETREGS, ag->ag_tid, NULL, r) != 0)
		return (errno == ESRCH ? lost(ag) : errno);
	return (0);
}

static int
get_mask(struct agent *ag, uint64_t *mask)
{
	if (ptrace(PTRACE_GETSIGMASK, ag->ag_tid, (void *)sizeof (*mask),
	    mask) != 0)
		return (errno == ESRCH ? lost(ag) : errno);
	return (0);
}

static int
set_mask(struct agent *ag, uint64_t mask)
{
	if (ptrace(PTRACE_SETSIGMASK, ag->ag_tid, (void *)sizeof (mask),
	    &mask) != 0)
		return (errno == ESRCH ? lost(ag) : errno);
	return (0);
}

/* PTRACE_SEIZE, with our one option. */
static int
attach(struct agent *ag)
{
	int err;

	if (ptrace(PTRACE_SEIZE, ag->ag_tid, NULL,
	    (void *)(long)PTRACE_O_TRACESYSGOOD) != 0) {
		err = errno;
		if (err == ESRCH)
			return (agent_fail(ESRCH, "no such process"));
		return (agent_fail(err, "ptrace: %s", strerror(err)));
	}
	return (0);
}

/* Seize and interrupt the thread, and wait until it is parked. */
static int
seize(struct ps_prochandle *P, struct agent *ag)
{
	target_facts_t tf;
	int err;

	if ((err = attach(ag)) != 0) {
		/* Someone may have come first since we read the status. */
		if (err == EPERM && read_status(P, &tf) == 0 &&
		    tf.tf_tracer != 0)
			return (agent_fail(EBUSY, "process is already traced "
			    "by pid %d", (int)tf.tf_tracer));
		return (err);
	}
	if (ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL) != 0) {
		err = errno;
		if (err != ESRCH)	/* seized and running: keep trying */
			ag->ag_state = AG_BROKEN;
		return (agent_fail(err, "ptrace interrupt: %s",
		    strerror(err)));
	}
	/*
	 * A signal may be on its way to the thread before our trap: give it
	 * back (ST_SIGNAL resumed with its signal); the trap comes next.
	 */
	err = wait_for(ag, ST_EVENT, PTRACE_CONT, 0);
	if (err == ESRCH)
		return (agent_fail(ESRCH, "no such process"));
	if (err != 0) {
		ag->ag_state = AG_BROKEN;
		return (agent_fail(err, "thread %d did not stop within %d ms",
		    (int)ag->ag_tid, AGENT_STOP_MS));
	}
	ag->ag_state = AG_PARKED;
	return (0);
}

#ifndef	SYS_epoll_pwait2
#define	SYS_epoll_pwait2	441
#endif
#define	ERESTARTNOHAND		514	/* the kernel's, not in <errno.h> */

/*
 * epoll_wait returns EINTR when its thread is interrupted at all, even
 * by a ptrace stop (signal(7) says so of stop signals).  When the wait
 * has no timeout, restarting it is exactly the same call, so the thread
 * is given -ERESTARTNOHAND instead: the kernel then restarts it when the
 * thread is given back, unless a signal handler is to run first, in
 * which case the call returns EINTR as it would have anyway.  Only when
 * the thread came straight from the call into our stop (no signal was
 * delivered on the way), so that rip is still right after the call.
 */
static int
restartable_epoll_eintr(const struct agent *ag,
    const struct user_regs_struct *r)
{
	if (ag->ag_passed != 0 || (long long)r->rax != -EINTR)
		return (0);
	switch ((long long)r->orig_rax) {
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
		return ((int)r->r10 < 0);	/* int timeout: -1 */
	case SYS_epoll_pwait2:
		return (r->r10 == 0);		/* no timespec */
	default:
		return (0);
	}
}

/* The parked thread's facts: 64-bit, a syscall instruction, its stack. */
static int
examine(struct ps_prochandle *P, struct agent *ag)
{
	struct user_regs_struct r;
	maps_facts_t mf;
	int err;

	if ((err = get_regs(ag, &r)) != 0)
		return (agent_fail(err, "ptrace getregs: %s", strerror(err)));
	if (r.cs != USER_CS_64)
		return (agent_fail(ENOEXEC, "not a 64-bit x86_64 process"));
	if (restartable_epoll_eintr(ag, &r)) {
		r.rax = (unsigned long long)-ERESTARTNOHAND;
		if ((err = set_regs(ag, &r)) != 0)
			return (agent_fail(err, "ptrace setregs: %s",
			    strerror(err)));
	}
	if ((err = read_maps(P, r.rsp, r.rip - 2, &mf)) != 0)
		return (agent_fail(err, "cannot read maps: %s",
		    strerror(err)));
	if ((ag->ag_syscall = find_syscall_insn(P, &mf, &r)) == 0)
		return (agent_fail(ENOEXEC,
		    "no system call instruction found in the process"));
	if (mf.mf_stack_known) {
		ag->ag_stack_lo = mf.mf_stack_lo;
		ag->ag_stack_hi = mf.mf_stack_hi;
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
		(void) lost(ag);
}

int
Pcreate_agent(struct ps_prochandle *P)
{
	target_facts_t tf;
	struct agent *ag;
	pid_t tid;
	int err;

	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	if (P->agent != NULL)
		return (0);
	agent_err[0] = '\0';
	if (P->pid == getpid()) {
		(void) agent_fail(EINVAL, "cannot borrow a thread of itself");
		return (-1);
	}
	if ((err = read_status(P, &tf)) != 0) {
		(void) agent_fail(err, "%s", err == ESRCH ? "no such process" :
		    strerror(err));
		return (-1);
	}
	if (tf.tf_tracer != 0) {
		(void) agent_fail(EBUSY, "process is already traced by pid %d",
		    (int)tf.tf_tracer);
		return (-1);
	}
	if (exe_is_x86_64(P) == 0) {
		(void) agent_fail(ENOEXEC, "not a 64-bit x86_64 process");
		return (-1);
	}
	tid = P->pid;
	if (tf.tf_state == 'Z' && (tid = other_thread(P)) == 0) {
		(void) agent_fail(ESRCH, "process is defunct");
		return (-1);
	}

	if ((ag = calloc(1, sizeof (*ag))) == NULL)
		return (-1);
	ag->ag_tid = tid;
	ag->ag_owner = my_tid();
	ag->ag_slot = -1;
	if ((err = seize(P, ag)) == 0 && (err = examine(P, ag)) != 0)
		detach(ag);
	if (err != 0 && ag->ag_state == AG_BROKEN) {
		/*
		 * Seized, but it never stopped: we cannot detach a running
		 * thread.  Keep the agent so that Pdestroy_agent() (from
		 * Prelease) can try again; the thread carries on meanwhile.
		 */
		P->agent = ag;
		errno = err;
		return (-1);
	}
	if (err != 0) {
		free(ag);
		errno = err;
		return (-1);
	}
	sigset_t old;
	agent_block_signals(&old);
	live_add(ag);
	restore_signals(&old);
	P->agent = ag;
	return (0);
}

/*
 * A broken agent: wait (bounded) until the thread is stopped -- GETREGS
 * succeeds only then --, put its own registers and mask back if we had
 * changed them, and let it go.  Detached from a stop outside its parked
 * one, the thread still goes through the kernel's restart logic (the
 * detach marks a signal pending).  If it never stops, it stays seized
 * until this process exits, when the kernel detaches it.
 */
static void
recover_and_detach(struct agent *ag)
{
	struct user_regs_struct r;
	int st, sig = 0;

	for (int n = 0; ptrace(PTRACE_GETREGS, ag->ag_tid, NULL, &r) != 0;
	    n++) {
		if (n == AGENT_MAX_STOPS ||
		    wait_event(ag->ag_tid, &st, AGENT_STOP_MS) != 0)
			return;
		if (stop_kind(st, &sig) == ST_GONE) {
			ag->ag_state = AG_GONE;
			return;
		}
	}
	if (ag->ag_dirty) {
		(void) ptrace(PTRACE_SETREGS, ag->ag_tid, NULL, &ag->ag_regs);
		(void) ptrace(PTRACE_SETSIGMASK, ag->ag_tid,
		    (void *)sizeof (ag->ag_mask), &ag->ag_mask);
		ag->ag_dirty = 0;
		sig = 0;	/* a fault of an injected call: not theirs */
	}
	(void) ptrace(PTRACE_DETACH, ag->ag_tid, NULL, (void *)(long)sig);
}

void *
Pagent_client(struct ps_prochandle *P)
{
	return (P != NULL && P->agent != NULL ? P->agent->ag_client : NULL);
}

int
Pagent_set_client(struct ps_prochandle *P, void *client,
    agent_client_fini_f *fini)
{
	if (P == NULL || P->agent == NULL) {
		errno = EINVAL;
		return (-1);
	}
	P->agent->ag_client = client;
	P->agent->ag_client_fini = fini;
	return (0);
}

void
Pdestroy_agent(struct ps_prochandle *P)
{
	agent_client_fini_f *fini;
	struct agent *ag;
	sigset_t old;
	int st, e = errno;

	if (P == NULL || (ag = P->agent) == NULL)
		return;
	/* The client first, while the agent can still run its calls. */
	if ((fini = ag->ag_client_fini) != NULL) {
		ag->ag_client_fini = NULL;
		fini(P, ag->ag_client);
		ag->ag_client = NULL;
	}
	agent_block_signals(&old);
	if (!live_released(ag)) {
		if (ag->ag_state == AG_PARKED)
			detach(ag);
		else if (ag->ag_state == AG_BROKEN)
			recover_and_detach(ag);
	}
	/* A thread that died under us: collect what the kernel told us. */
	if (ag->ag_state == AG_GONE)
		(void) waitpid(ag->ag_tid, &st, __WALL | WNOHANG);
	live_remove(ag);
	restore_signals(&old);
	free(ag->ag_buf);
	free(ag);
	P->agent = NULL;
	errno = e;
}

/* ---------------------------------------------------------------------
 * Running calls.
 */

/*
 * Run one call in the stopped thread: set the registers, run it from its
 * entry stop to its exit stop, and get rax.
 */
static int
run_call(struct agent *ag, const struct user_regs_struct *own, int nr,
    const uint64_t args[MARSHAL_NREGS], uint64_t sp, uint64_t *raxp)
{
	struct user_regs_struct r = *own;
	int err;

	r.rip = ag->ag_syscall;
	r.rax = (unsigned long long)nr;
	r.orig_rax = (unsigned long long)-1;	/* no restart handling */
	r.rdi = args[0];
	r.rsi = args[1];
	r.rdx = args[2];
	r.r10 = args[3];
	r.r8 = args[4];
	r.r9 = args[5];
	r.rsp = sp;
	if ((err = set_regs(ag, &r)) != 0)
		return (err);
	for (int stop = 0; stop < 2; stop++) {		/* entry, exit */
		if (ptrace(PTRACE_SYSCALL, ag->ag_tid, NULL, NULL) != 0)
			return (errno == ESRCH ? lost(ag) : errno);
		if ((err = wait_for(ag, ST_SYSCALL, PTRACE_SYSCALL, 1)) != 0) {
			if (err == ETIMEDOUT)
				ag->ag_state = AG_BROKEN;
			return (err);
		}
	}
	if ((err = get_regs(ag, &r)) != 0)
		return (err);
	if (r.rip != ag->ag_syscall + 2 || r.orig_rax != (unsigned)nr) {
		/* Not the stop we expect: do not trust rax. */
		return (EIO);
	}
	*raxp = r.rax;
	return (0);
}

static int
ensure_buf(struct agent *ag, size_t size)
{
	uint8_t *p;

	if (size <= ag->ag_bufsz)
		return (0);
	if ((p = realloc(ag->ag_buf, size)) == NULL)
		return (ENOMEM);
	ag->ag_buf = p;
	ag->ag_bufsz = size;
	return (0);
}

/* Plan, pack and write the block; the one pwrite of the batch. */
static int
write_block(struct ps_prochandle *P, struct agent *ag, marshal_t *m,
    const marshal_area_t *area, const psyscall_t *calls, uint_t n)
{
	int err;

	if ((err = marshal_plan(m, area, calls, n)) != 0)
		return (err);
	if ((err = ensure_buf(ag, m->m_size)) != 0)
		return (err);
	if (m->m_size == 0)
		return (0);
	if ((err = marshal_pack(m, calls, n, ag->ag_buf, ag->ag_bufsz)) != 0)
		return (err);
	errno = 0;
	if (Pwrite(P, ag->ag_buf, m->m_size, (uintptr_t)m->m_base) !=
	    (ssize_t)m->m_size)
		return (errno != 0 ? errno : EIO);
	return (0);
}

/* The thread's stack below its red zone, if it has room for this batch. */
static int
stack_plan(struct ps_prochandle *P, struct agent *ag, marshal_t *m,
    uint64_t sp, const psyscall_t *calls, uint_t n)
{
	marshal_area_t area;

	if (ag->ag_stack_hi == 0 || sp < ag->ag_stack_lo ||
	    sp >= ag->ag_stack_hi ||
	    marshal_stack_area(sp, ag->ag_stack_lo, STACK_BUDGET, &area) != 0)
		return (ENOSPC);
	return (write_block(P, ag, m, &area, calls, n));
}

/* Make a private mapping of len bytes in the target; its address. */
static int
map_scratch(struct agent *ag, const struct user_regs_struct *own,
    size_t len, uint64_t *addrp)
{
	uint64_t args[MARSHAL_NREGS] = {
		0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		(uint64_t)-1, 0
	};
	psyscall_t c;
	uint64_t rax;
	int err;

	/* The stack pointer is the thread's own, 16-aligned, less the zone. */
	if ((err = run_call(ag, own, SYS_mmap, args,
	    (own->rsp - MARSHAL_REDZONE) & ~(uint64_t)(MARSHAL_SP_ALIGN - 1),
	    &rax)) != 0)
		return (err);
	memset(&c, 0, sizeof (c));
	marshal_result(&c, rax);
	if (c.ps_errno != 0)
		return (c.ps_errno);
	*addrp = rax;
	return (0);
}

static int
unmap_scratch(struct agent *ag, const struct user_regs_struct *own,
    uint64_t addr, size_t len)
{
	uint64_t args[MARSHAL_NREGS] = { addr, len, 0, 0, 0, 0 };
	uint64_t rax;

	return (run_call(ag, own, SYS_munmap, args,
	    (own->rsp - MARSHAL_REDZONE) & ~(uint64_t)(MARSHAL_SP_ALIGN - 1),
	    &rax));
}

/*
 * Put the thread's own registers and mask back, and park it again in the
 * kernel's signal code (see the top of this file).
 */
static int
restore_and_park(struct agent *ag)
{
	int err;

	if ((err = set_regs(ag, &ag->ag_regs)) != 0 ||
	    (err = set_mask(ag, ag->ag_mask)) != 0)
		return (err);
	ag->ag_dirty = 0;
	if (ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL) != 0 ||
	    ptrace(PTRACE_CONT, ag->ag_tid, NULL, NULL) != 0)
		return (errno == ESRCH ? lost(ag) : errno);
	if ((err = wait_for(ag, ST_EVENT, PTRACE_CONT, 0)) != 0) {
		if (err == ETIMEDOUT)
			ag->ag_state = AG_BROKEN;
		return (err);
	}
	ag->ag_state = AG_PARKED;
	return (0);
}

/* The calls, between the block's write and its read. */
static int
run_calls(struct agent *ag, const marshal_t *m, psyscall_t *calls,
    uint_t n)
{
	uint64_t rax;
	int err;

	for (uint_t i = 0; i < n; i++) {
		if ((err = run_call(ag, &ag->ag_regs, calls[i].ps_sysindex,
		    m->m_regs[i], m->m_sp, &rax)) != 0)
			return (err);
		marshal_result(&calls[i], rax);
	}
	return (0);
}

/*
 * The borrowed part of a batch: the thread's mask blocked, the calls
 * run, the outputs read, its own state back.  0 or an errno; the agent's
 * state says whether the thread is parked again.
 */
static int
borrow(struct ps_prochandle *P, struct agent *ag, marshal_t *m,
    int on_stack, size_t size, psyscall_t *calls, uint_t n)
{
	uint64_t maddr = 0;
	size_t mlen = 0;
	int err, err2;

	ag->ag_dirty = 1;
	if ((err = set_mask(ag, ~(uint64_t)0)) != 0)
		goto out;
	if (!on_stack) {
		marshal_area_t area;

		mlen = (size + MARSHAL_SP_ALIGN + 4095) & ~(size_t)4095;
		if ((err = map_scratch(ag, &ag->ag_regs, mlen, &maddr)) != 0) {
			maddr = 0;
			goto out;
		}
		area.ma_lo = maddr;
		area.ma_hi = maddr + mlen;
		if ((err = write_block(P, ag, m, &area, calls, n)) != 0)
			goto out;
	}
	if ((err = run_calls(ag, m, calls, n)) != 0)
		goto out;
	/* The one pread of the batch: outputs only. */
	errno = 0;
	if (m->m_outsize > 0 && Pread(P, ag->ag_buf, m->m_outsize,
	    (uintptr_t)m->m_base) != (ssize_t)m->m_outsize)
		err = errno != 0 ? errno : EIO;
out:
	if (maddr != 0 && ag->ag_state != AG_GONE && ag->ag_state != AG_BROKEN)
		(void) unmap_scratch(ag, &ag->ag_regs, maddr, mlen);
	if (ag->ag_state != AG_GONE && ag->ag_state != AG_BROKEN)
		err2 = restore_and_park(ag);
	else
		err2 = ESRCH;
	/* Whatever failed first, a target that is gone says so. */
	if (ag->ag_state == AG_GONE)
		return (ESRCH);
	return (err != 0 ? err : err2);
}

static int
run_batch(struct ps_prochandle *P, struct agent *ag, psyscall_t *calls,
    uint_t n)
{
	marshal_t *m;
	size_t size;
	sigset_t old;
	int err, on_stack;

	if (live_released(ag))
		return (agent_fail(ESRCH, "the agent was released"));
	if (ag->ag_state == AG_GONE)
		return (agent_fail(ESRCH, "no such process"));
	if (ag->ag_state != AG_PARKED)
		return (agent_fail(EIO, "the agent is not usable"));
	if ((m = malloc(sizeof (*m))) == NULL)
		return (ENOMEM);

	/* The thread's own state, at its parked stop. */
	if ((err = get_regs(ag, &ag->ag_regs)) != 0 ||
	    (err = get_mask(ag, &ag->ag_mask)) != 0)
		goto done;
	(void) marshal_check(calls, n, &size, NULL);

	/* The block's one pwrite, before anything of the thread changes. */
	err = stack_plan(P, ag, m, ag->ag_regs.rsp, calls, n);
	on_stack = err == 0;
	if (err != 0 && err != ENOSPC)
		goto done;

	agent_block_signals(&old);
	live_set_parked(ag, 0);
	err = borrow(P, ag, m, on_stack, size, calls, n);
	live_set_parked(ag, ag->ag_state == AG_PARKED);
	restore_signals(&old);

	if (err == 0 && marshal_unpack(m, calls, n, ag->ag_buf,
	    m->m_outsize) != 0)
		err = EIO;
done:
	free(m);
	if (err == ESRCH)
		return (agent_fail(ESRCH, "no such process"));
	if (err != 0)
		return (agent_fail(err, "system call in the process: %s",
		    strerror(err)));
	return (0);
}

int
Psyscall_batch(struct ps_prochandle *P, psyscall_t *calls, uint_t ncalls)
{
	int made = 0, err;

	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	if ((err = marshal_check(calls, ncalls, NULL, NULL)) != 0) {
		(void) agent_fail(err, "invalid system call description");
		return (-1);
	}
	for (uint_t i = 0; i < ncalls; i++) {
		calls[i].ps_rval.sys_rval1 = -1;
		calls[i].ps_rval.sys_rval2 = 0;
		calls[i].ps_errno = 0;
	}
	if (ncalls == 0)
		return (0);
	if (P->agent == NULL) {
		if (Pcreate_agent(P) != 0)
			return (-1);
		made = 1;
	}
	err = run_batch(P, P->agent, calls, ncalls);
	if (made)
		Pdestroy_agent(P);
	if (err != 0) {
		errno = err;
		return (-1);
	}
	return (0);
}

int
Psyscall(struct ps_prochandle *P, sysret_t *rval, int sysindex,
    uint_t nargs, argdes_t *argp)
{
	psyscall_t c;

	memset(&c, 0, sizeof (c));
	c.ps_sysindex = sysindex;
	c.ps_nargs = nargs;
	c.ps_argp = argp;
	if (Psyscall_batch(P, &c, 1) != 0)
		return (-1);
	if (rval != NULL)
		*rval = c.ps_rval;
	return (c.ps_errno);
}

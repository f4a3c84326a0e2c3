/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Psyscall.c: running system calls in the target through the agent
 * (agent.c borrows the thread): Psyscall and Psyscall_batch.
 *
 * A batch, from the parked stop:
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
 *      as in the beginning, with its own registers;
 *   8. lend it (agent.h): PTRACE_CONT, so that it runs its own code until
 *      the next batch takes it again with PTRACE_INTERRUPT.  The thread
 *      is stopped for the batch only, however long its caller takes
 *      between batches (pfiles writing to a pipe nobody reads).
 * Registers go through ptrace only; nothing under /proc is read per call
 * or per batch.  The calling thread's asynchronous signals are blocked
 * for steps 3-6 exactly (libproc.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "agent/agent.h"
#include "agent/agent_seccomp.h"
#include "agent/marshal.h"

/*
 * Run one call in the stopped thread: set the registers (and block every
 * signal), run it from its entry stop to its exit stop, get rax, and put
 * the thread's own registers and mask back at once.  The thread holds
 * injected registers for the call itself only: should we die between two
 * calls (SIGKILL), the kernel lets go of a thread in its own state, which
 * goes on as from its parked stop (the restart of a call it was in is
 * decided on its way out, from its own registers).
 */
static int
run_call(struct agent *ag, const isa_regs_t *own, int nr,
    const uint64_t args[MARSHAL_NREGS], uint64_t sp, uint64_t *raxp)
{
	isa_regs_t r = *own;
	int err;

	/* Never a call the thread's seccomp filters are not proven to allow. */
	if ((err = agent_seccomp_gate(ag, nr, args)) != 0)
		return (err);
	isa_set_call(&r, ag->ag_syscall, nr, args, sp);
	ag->ag_dirty = 1;
	if ((err = agent_set_mask(ag, ~(uint64_t)0)) != 0 ||
	    (err = agent_set_regs(ag, &r)) != 0)
		return (err);
	for (int stop = 0; stop < 2; stop++) {		/* entry, exit */
		if (ptrace(PTRACE_SYSCALL, ag->ag_tid, NULL, NULL) != 0)
			return (errno == ESRCH ? agent_lost(ag) : errno);
		if ((err = agent_wait_for(ag, ST_SYSCALL, PTRACE_SYSCALL,
		    1)) != 0) {
			if (err == ETIMEDOUT)
				ag->ag_state = AG_BROKEN;
			return (err);
		}
	}
	if ((err = agent_get_regs(ag, &r)) != 0 ||
	    (err = agent_set_regs(ag, own)) != 0 ||
	    (err = agent_set_mask(ag, ag->ag_mask)) != 0)
		return (err);
	ag->ag_dirty = 0;
	if (!isa_call_done(&r, ag->ag_syscall, nr)) {
		/* Not the stop we expect: do not trust rax. */
		return (EIO);
	}
	*raxp = (uint64_t)isa_retval(&r);
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
map_scratch(struct agent *ag, const isa_regs_t *own,
    size_t len, uint64_t *addrp)
{
	uint64_t args[MARSHAL_NREGS] = {
		0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		(uint64_t)-1, 0
	};
	psyscall_t c;
	uint64_t rax;
	int err;

	/* Its mmap and its munmap both proven allowed, or no mapping. */
	if ((err = agent_seccomp_scratch(ag, len)) != 0)
		return (err);
	/* The stack pointer is the thread's own, 16-aligned, less the zone. */
	if ((err = run_call(ag, own, SYS_mmap, args,
	    (isa_sp(own) - MARSHAL_REDZONE) & ~(uint64_t)(MARSHAL_SP_ALIGN - 1),
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
unmap_scratch(struct agent *ag, const isa_regs_t *own,
    uint64_t addr, size_t len)
{
	uint64_t args[MARSHAL_NREGS] = { addr, len, 0, 0, 0, 0 };
	uint64_t rax;

	return (run_call(ag, own, SYS_munmap, args,
	    (isa_sp(own) - MARSHAL_REDZONE) & ~(uint64_t)(MARSHAL_SP_ALIGN - 1),
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

	if ((err = agent_set_regs(ag, &ag->ag_regs)) != 0 ||
	    (err = agent_set_mask(ag, ag->ag_mask)) != 0)
		return (err);
	ag->ag_dirty = 0;
	ag->ag_until = agent_now_ms() + AGENT_STOP_MS;	/* never cut short */
	if (ptrace(PTRACE_INTERRUPT, ag->ag_tid, NULL, NULL) != 0 ||
	    ptrace(PTRACE_CONT, ag->ag_tid, NULL, NULL) != 0)
		return (errno == ESRCH ? agent_lost(ag) : errno);
	if ((err = agent_wait_for(ag, ST_EVENT, PTRACE_CONT, 0)) != 0) {
		if (err == ETIMEDOUT)
			ag->ag_state = AG_BROKEN;
		return (err);
	}
	ag->ag_state = AG_PARKED;
	return (0);
}

/*
 * The calls, between the block's write and its read.  Past ag_until (the
 * batch's bound) no further call is made: those left are ECANCELED, and
 * the batch ends with EAGAIN, so that the thread is given back.
 */
static int
run_calls(struct agent *ag, const marshal_t *m, psyscall_t *calls,
    uint_t n)
{
	uint64_t args[MARSHAL_NREGS], rax;
	int err;

	for (uint_t i = 0; i < n; i++) {
		if (i > 0 && agent_now_ms() >= ag->ag_until) {
			for (uint_t j = i; j < n; j++)
				calls[j].ps_errno = ECANCELED;
			return (EAGAIN);
		}
		marshal_args(m, calls, i, args);
		if ((err = run_call(ag, &ag->ag_regs, calls[i].ps_sysindex,
		    args, m->m_sp, &rax)) != 0)
			return (err);
		marshal_result(&calls[i], rax);
	}
	return (0);
}

/*
 * The borrowed part of a batch: the block written in a private mapping of
 * mlen bytes unless (mlen 0) it is on the stack already, the calls run
 * (each with the thread's mask blocked, run_call), the outputs read, the
 * thread parked again.  0 or an errno; the agent's state says whether the
 * thread is parked again.
 */
static int
borrow(struct ps_prochandle *P, struct agent *ag, marshal_t *m, size_t mlen,
    psyscall_t *calls, uint_t n)
{
	uint64_t maddr = 0;
	int err, err2;

	if (mlen != 0) {
		marshal_area_t area;

		if ((err = map_scratch(ag, &ag->ag_regs, mlen, &maddr)) != 0) {
			maddr = 0;
			goto out;
		}
		area.ma_lo = maddr;
		area.ma_hi = maddr + mlen;
		if ((err = write_block(P, ag, m, &area, calls, n)) != 0)
			goto out;
	}
	/* A batch cut at its bound still reads what its calls gave. */
	if ((err = run_calls(ag, m, calls, n)) != 0 && err != EAGAIN)
		goto out;
	/* The one pread of the batch: outputs only. */
	errno = 0;
	if (m->m_outsize > 0 && Pread(P, ag->ag_buf, m->m_outsize,
	    (uintptr_t)m->m_base) != (ssize_t)m->m_outsize)
		err = errno != 0 ? errno : EIO;
out:
	ag->ag_until = agent_now_ms() + AGENT_STOP_MS;	/* never cut short */
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

/* Why a batch failed with err, in the handle's message: the errno. */
static int
batch_failed(struct ps_prochandle *P, struct agent *ag, int err, long bound)
{
	if (err == ESRCH)
		return (Pseterr(P, ESRCH, "no such process"));
	if (err == EAGAIN && agent_left_ms(P) <= 0)
		return (agent_deadline_err(P));
	if (err == EAGAIN)
		return (Pseterr(P, EAGAIN, "the batch was cut at its bound "
		    "(%ld ms)", bound));
	if (agent_seccomp_refusal(P, ag))
		return (err);
	return (Pseterr(P, err, "system call in the process: %s",
	    strerror(err)));
}

/*
 * The batch, from the parked stop to the parked stop; its calls end by
 * their bound (agent_batch_ms, and the deadline), an undo's by
 * AGENT_STOP_MS.
 */
static int
run_parked(struct ps_prochandle *P, struct agent *ag, psyscall_t *calls,
    uint_t n, int undo)
{
	marshal_t *m;
	uint64_t rip;
	size_t size, mlen;
	sigset_t old;
	long bound = agent_batch_ms(P);
	int err;

	if ((m = malloc(sizeof (*m))) == NULL)
		return (ENOMEM);

	/*
	 * The thread's own state, at its parked stop; where it was inside an
	 * rseq critical section, it goes back at the section's abort handler.
	 */
	if ((err = agent_get_regs(ag, &ag->ag_regs)) != 0 ||
	    (err = agent_get_mask(ag, &ag->ag_mask)) != 0 ||
	    (err = agent_rseq_resume(P, ag, &ag->ag_regs, &rip)) != 0)
		goto done;
	isa_set_pc(&ag->ag_regs, rip);
	(void) marshal_check(calls, n, &size, NULL);
	/* Every call proven allowed by its seccomp filters, or none runs. */
	if ((err = agent_seccomp_allows(P, ag, calls, n, ag->ag_syscall)) !=
	    0) {
		free(m);
		return (err);
	}

	/*
	 * The block's one pwrite, before anything of the thread changes;
	 * where the stack has no room, a mapping of whole pages (with room to
	 * align the block) is to hold it.
	 */
	err = stack_plan(P, ag, m, isa_sp(&ag->ag_regs), calls, n);
	if (err != 0 && err != ENOSPC)
		goto done;
	mlen = err == 0 ? 0 : (size + MARSHAL_SP_ALIGN + 4095) & ~(size_t)4095;

	ag->ag_until = undo ? agent_now_ms() + AGENT_STOP_MS :
	    agent_bound(P, bound);
	agent_block_signals(&old);
	agent_live_set_parked(ag, 0);
	err = borrow(P, ag, m, mlen, calls, n);
	agent_live_set_parked(ag, ag->ag_state == AG_PARKED);
	agent_restore_signals(&old);
	if (!undo)
		agent_batch_ended(P, err == EAGAIN);

	if ((err == 0 || err == EAGAIN) && marshal_unpack(m, calls, n,
	    ag->ag_buf, m->m_outsize) != 0)
		err = EIO;
done:
	free(m);
	return (err != 0 ? batch_failed(P, ag, err, bound) : 0);
}

/*
 * A batch of a lent (or parked) agent; with lend, the thread is lent
 * again after it, whatever became of the batch.
 */
static int
run_batch(struct ps_prochandle *P, struct agent *ag, psyscall_t *calls,
    uint_t n, int lend, int undo)
{
	sigset_t old;
	int err, err2;

	if (agent_live_released(ag))
		return (Pseterr(P, ESRCH, "the agent was released"));
	if (ag->ag_state == AG_GONE)
		return (Pseterr(P, ESRCH, "no such process"));
	/* Our interrupt's stop comes in microseconds: never cut short. */
	ag->ag_until = agent_now_ms() + AGENT_STOP_MS;
	if (ag->ag_state == AG_LENT && (err = agent_take(P, ag)) != 0)
		return (err);
	/* Broken by the process's death, it is gone, not unusable. */
	if (ag->ag_state != AG_PARKED)
		return (Pexiting(P) ? Pseterr(P, ESRCH, "no such process") :
		    Pseterr(P, EIO, "the agent is not usable"));
	err = run_parked(P, ag, calls, n, undo);
	if (lend && ag->ag_state == AG_PARKED) {
		agent_block_signals(&old);
		agent_live_set_parked(ag, 0);
		if ((err2 = agent_lend(ag)) != 0 && err == 0)
			err = err2 == ESRCH ? Pseterr(P, ESRCH,
			    "no such process") : Pseterr(P, err2,
			    "ptrace cont: %s", strerror(err2));
		agent_live_set_parked(ag, ag->ag_state == AG_PARKED);
		agent_restore_signals(&old);
	}
	return (err);
}

/* Psyscall_batch, or (undo) agent_undo_batch. */
static int
batch(struct ps_prochandle *P, psyscall_t *calls, uint_t ncalls, int undo)
{
	int made = 0, err;

	if (P == NULL) {
		errno = EINVAL;
		return (-1);
	}
	if ((err = marshal_check(calls, ncalls, NULL, NULL)) != 0) {
		(void) Pseterr(P, err, "invalid system call description");
		return (-1);
	}
	for (uint_t i = 0; i < ncalls; i++) {
		calls[i].ps_rval.sys_rval1 = -1;
		calls[i].ps_rval.sys_rval2 = 0;
		calls[i].ps_errno = 0;
	}
	if (ncalls == 0)
		return (0);
	if ((err = agent_span_open(P, !undo)) != 0) {
		errno = err;
		return (-1);
	}
	/* An agent made for the batch is destroyed after it. */
	if (P->agent == NULL) {
		err = agent_create(P) != 0 ? errno : 0;
		made = err == 0;
	}
	if (err == 0)
		err = run_batch(P, P->agent, calls, ncalls, !made, undo);
	if (made)
		Pdestroy_agent(P);
	agent_span_close(P);
	if (err != 0) {
		errno = err;
		return (-1);
	}
	return (0);
}

int
Psyscall_batch(struct ps_prochandle *P, psyscall_t *calls, uint_t ncalls)
{
	return (batch(P, calls, ncalls, 0));
}

int
agent_undo_batch(struct ps_prochandle *P, psyscall_t *calls, uint_t ncalls)
{
	return (batch(P, calls, ncalls, 1));
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

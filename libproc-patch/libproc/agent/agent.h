/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent.h: the agent's insides, shared by agent.c (its life: seize,
 * park, release), agent_lend.c (between batches), agent_rseq.c (rseq
 * sections), agent_clock.c (the deadline), agent_restart.c (calls our
 * stop interrupts),
 * agent_stop.c (ptrace stops, waits and registers) and Psyscall.c
 * (running batches of calls).  Not installed.  The machine's
 * registers and instructions are isa/ISA/isa.h's.
 *
 * Every function here returns an errno (Pcontrol.h), and ESRCH when the
 * thread or the target is gone.
 */
#ifndef	_AGENT_H
#define	_AGENT_H

#include <signal.h>

#include "core/Pcontrol.h"
#include "isa.h"

struct agent_seccomp;		/* agent_seccomp.c */

#define	AGENT_STOP_MS	2000		/* bound of one wait for a stop */
#define	AGENT_BATCH_MS	100		/* bound of one batch's calls, */
#define	AGENT_BATCH_MAX_MS 800		/* doubled after a cut, to this */
#define	AGENT_GRACE_MS	200		/* for a call interrupted to stop */
#define	AGENT_MAX_STOPS	32		/* stops passed over in one wait */
#define	AGENT_RELEASE_NAPS 1000	/* of 100 us: Prelease_agents' wait */
#define	AGENT_SPIN_NS	20000		/* waitpid polled before sleeping */
#define	AGENT_NAP0_NS	10000		/* then sleeps, from this, doubling, */
#define	AGENT_NAP_SLACK_NS 1000	/* with this timer slack */
#define	STACK_BUDGET	(32 * 1024)	/* scratch room below the red zone */

enum agent_state {
	AG_PARKED = 1,	/* in its parked stop, its own state */
	AG_LENT,	/* given back between batches: seized, running */
	AG_BROKEN,	/* seized, not known to be stopped: see ag_dirty */
	AG_GONE,	/* the thread has exited */
	AG_RELEASED	/* detached by Prelease_agents() */
};

struct agent {
	pid_t		ag_tid;		/* the borrowed thread */
	pid_t		ag_owner;	/* our thread that traces it */
	int		ag_state;
	int		ag_slot;	/* in the live list, or -1 */
	uint64_t	ag_syscall;	/* address of a syscall instruction */
	uint64_t	ag_stack_lo;	/* the mapping of the thread's stack, */
	uint64_t	ag_stack_hi;	/* when it is one we know */
	int		ag_dirty;	/* regs/mask below must be put back */
	int		ag_passed;	/* signals passed on while seizing */
	int		ag_nodup;	/* the target can open no fd (EMFILE) */
	int		ag_nostate;	/* its seccomp filter refuses the calls
					   of a socket's state (sock_agent.c) */
	int		ag_execd;	/* it exec'd while lent */
	long		ag_until;	/* the wait for a stop ends then (ms) */
	long		ag_served;	/* agent_service's last look (ms) */
	isa_regs_t ag_regs; /* the thread's own, in a batch */
	uint64_t	ag_mask;
	uint8_t		*ag_buf;	/* the block's image */
	size_t		ag_bufsz;
	uint64_t	ag_rseq;	/* its rseq area; 0: none registered */
	uint32_t	ag_rseq_sig;	/* the signature before abort handlers */
	struct agent_seccomp *ag_seccomp; /* its filters (agent_seccomp.c) */
};

/* What a wait status says. */
enum stop_kind { ST_GONE, ST_SYSCALL, ST_EVENT, ST_EXEC, ST_SIGNAL };

/*
 * agent_clock.c: the handle's deadline (libproc.h, Pset_agent_deadline).
 * agent_span_open() opens a span of the clock (nested: counted once);
 * with gate, past the deadline it gives the thread back and fails with
 * ETIME, saying so in the handle's message.  agent_bound() is the time
 * (agent_now_ms) at which a wait of at most bound_ms must end so as not
 * to pass the deadline.  agent_batch_ms() is the bound of the next
 * batch's calls, agent_batch_ended() tells the clock whether a batch was
 * cut at it.
 */
extern int agent_span_open(struct ps_prochandle *, int);
extern int agent_deadline_err(struct ps_prochandle *);
extern void agent_span_close(struct ps_prochandle *);
extern long agent_left_ms(struct ps_prochandle *);
extern long agent_bound(struct ps_prochandle *, long);
extern long agent_batch_ms(const struct ps_prochandle *);
extern void agent_batch_ended(struct ps_prochandle *, int);

/* agent_stop.c */
extern long agent_now_ms(void);
extern int agent_wait_event(pid_t, int *, long);
extern enum stop_kind agent_stop_kind(int, int *);
extern int agent_wait_for(struct agent *, enum stop_kind, int, int);
extern int agent_lost(struct agent *);
extern int agent_get_regs(struct agent *, isa_regs_t *);
extern int agent_set_regs(struct agent *, const isa_regs_t *);
extern int agent_get_mask(struct agent *, uint64_t *);
extern int agent_set_mask(struct agent *, uint64_t);

/* agent.c */
/*
 * Block the calling thread's asynchronous signals for the span in which
 * the borrowed thread is not in its own state (see libproc.h); the old
 * mask goes back with agent_restore_signals().
 */
extern void agent_block_signals(sigset_t *);
extern void agent_restore_signals(const sigset_t *);
/*
 * Where a thread whose own registers are r must be given back: at the
 * abort handler of the rseq critical section it is inside (the kernel
 * would have sent it there had it been preempted; our injected calls
 * make the kernel forget the section), else where it was.  0, or an
 * errno when the section cannot be read or its handler is not signed.
 */
extern int agent_rseq_resume(struct ps_prochandle *, struct agent *,
    const isa_regs_t *, uint64_t *);
/* agent_rseq.c: the thread's rseq registration, if any, into ag_rseq. */
extern void agent_read_rseq(struct agent *);

/*
 * Between two batches the thread is lent: given back to run its own code
 * (PTRACE_CONT from its parked stop, its own state), still seized, so
 * that it is never kept stopped for longer than a batch, whatever the
 * caller does between batches.  agent_lend() lends a parked thread;
 * agent_take() parks a lent one again (PTRACE_INTERRUPT, as when it was
 * seized), waiting for its stop until ag_until (the caller sets it): 0,
 * or an errno, with the state saying what became of it.  A new agent is
 * lent as soon as it has been examined: the thread is stopped for a
 * batch at a time only, never between Pcreate_agent and the first batch.
 */
extern int agent_lend(struct agent *);
/* Pass on the stops a lent thread is in now, without waiting. */
extern void agent_service(struct ps_prochandle *);
extern int agent_take(struct ps_prochandle *, struct agent *);
/*
 * A wait for our interrupt's stop ended with err: the handle's message
 * says why (gone, the deadline, AGENT_STOP_MS); the errno.
 */
extern int agent_no_stop(struct ps_prochandle *, struct agent *, int);

/*
 * Pcreate_agent without the deadline's gate or span (the caller holds a
 * span, or undoes what an agent made: agent_undo_batch).
 */
extern int agent_create(struct ps_prochandle *);

/*
 * Psyscall.c: a batch that undoes what earlier batches made in the target
 * (closes a duplicate, unmaps pages): run even past the deadline, and
 * never cut at AGENT_BATCH_MS, so that nothing of ours is left there.  As
 * Psyscall_batch otherwise.
 */
extern int agent_undo_batch(struct ps_prochandle *, psyscall_t *, uint_t);

/* agent_restart.c */
/*
 * The thread has just stopped for our interrupt, with registers r: a call
 * it was blocked in and that our stop made fail with EINTR is restarted
 * where that is exactly the same call.
 */
extern int agent_restart_interrupted(struct ps_prochandle *, struct agent *,
    isa_regs_t *);

/* The live list, for Prelease_agents(). */
extern void agent_live_set_parked(struct agent *, int);
extern int agent_live_released(struct agent *);

#endif	/* _AGENT_H */

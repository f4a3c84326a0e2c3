/*
 * agent.h: what the agent (agent.c) offers the rest of libproc and
 * pfiles beyond libproc.h.  Not installed.  (Proposed for libproc.h:
 * Prelease_agents and Pagent_error; see the lead's note.)
 */
#ifndef	_AGENT_H
#define	_AGENT_H

#include "Pcontrol.h"

/*
 * Why the last Pcreate_agent() or Psyscall_batch() of this thread failed,
 * as a short phrase ("process is already traced by pid 1234", "not a
 * 64-bit x86_64 process", ...); "" when nothing failed yet.
 */
extern const char *Pagent_error(void);

/*
 * Signals and the agent.
 *
 * Outside a batch, a borrowed thread sits in a ptrace stop with its own
 * registers and signal mask: if the controlling process dies then, by
 * any signal, SIGKILL included, the kernel detaches the thread and it
 * carries on exactly as if Pdestroy_agent() had been called (a system
 * call it was blocked in is restarted).  Only during a batch are its
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

#endif	/* _AGENT_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_run.h: the bpf source's one pass for a whole run (bpf_run.c).  Not
 * installed.
 */
#ifndef	_BPF_RUN_H
#define	_BPF_RUN_H

#include "core/Pcontrol.h"
#include "sock/sockid.h"
#include "src/bpf/bpf_load.h"

typedef struct bpf_run bpf_run_t;

/* The walk has no records kept: the caller makes its own pass. */
#define	BPF_RUN_NONE	(-2)

/*
 * The run's (made at first use, its passes by the program prog), or NULL
 * without a share or memory.
 */
extern bpf_run_t *bpf_run_of(struct ps_prochandle *, bpf_pfiles_t *);
/*
 * One pass over every task's files: the records of the run's processes
 * from order from on (up to the bound), and at the first pass every
 * socket fd.  0, or -1 with errno and why.
 */
extern int bpf_run_pass(struct ps_prochandle *, bpf_run_t *, size_t, char *,
    size_t);
/*
 * The records of the handle's process to cb, from the pass (made when
 * they are not kept), then let go: as bpf_pfiles_iter, or BPF_RUN_NONE
 * when the run keeps none for it (not one of its pids, or alone past
 * the bound).
 */
extern int bpf_run_walk(struct ps_prochandle *, bpf_run_t *,
    bpf_pfiles_rec_f *, void *, char *, size_t);
/*
 * The socket fds of the machine from elsewhere (an inode pass): one more
 * (0, or ENOMEM); then all of them given (complete 1), or the pass failed
 * (0: those given are let go).
 */
extern int bpf_run_hold(bpf_run_t *, uint64_t, pid_t, int);
extern void bpf_run_held(bpf_run_t *, int);
/* Has the run the socket fds of the machine? */
extern int bpf_run_has_holds(const bpf_run_t *);
/* The same records, kept for the walk after: BPF_RUN_NONE when none. */
extern int bpf_run_sockets(struct ps_prochandle *, bpf_run_t *,
    bpf_pfiles_rec_f *, void *, char *, size_t);
/*
 * The pass whose records the handle's walk takes (holders 0: 0 when its
 * records are not kept, or have been taken), or whose socket fds
 * bpf_run_holders gives (holders 1: 0 when none was made).
 */
extern unsigned bpf_run_snapshot(struct ps_prochandle *, bpf_run_t *, int);
/* Every socket fd of the machine (the first pass's) to cb: 0 or an errno. */
extern int bpf_run_holders(struct ps_prochandle *, bpf_run_t *,
    psockhold_f *, void *, char *, size_t);

#endif	/* _BPF_RUN_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_comm.h: the names of the processes that "peer:" and "endpoint:"
 * lines name (their comm, /proc/PID/comm), read once each: peers repeat,
 * so a few are kept.  For pf_ctx_t's pf_comm and pf_comm_arg
 * (pfiles_fmt.h): pf_comm_of with a zeroed pf_comm_cache_t.
 */
#ifndef	_PF_COMM_H
#define	_PF_COMM_H

#include <sys/types.h>

#include "libproc.h"

#define	PF_COMM_CACHE	64

typedef struct pf_comm_cache {
	pid_t	cc_pid[PF_COMM_CACHE];
	char	cc_comm[PF_COMM_CACHE][PRFNSZ];
	uint_t	cc_next;
} pf_comm_cache_t;

/*
 * The comm of pid (the text as the kernel has it: the formatter escapes
 * it), or NULL when it cannot be read; arg is a pf_comm_cache_t.
 */
extern const char *pf_comm_of(void *, pid_t);

#endif	/* _PF_COMM_H */

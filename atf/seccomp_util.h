/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seccomp_util.h: what t_seccomp, t_seccomp_check and t_seccomp_kernel
 * share (seccomp_util.c).
 */
#ifndef	_SECCOMP_UTIL_H
#define	_SECCOMP_UTIL_H

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libproc.h"
#include "agent/seccomp_check.h"
#include "isa.h"
#include "testutil.h"

/* Filters written as the kernel's macros write them. */
#define	NELEM(a)	(sizeof (a) / sizeof ((a)[0]))
#define	S(c, k)		((struct sock_filter)BPF_STMT((c), (k)))
#define	J(c, k, t, f)	((struct sock_filter)BPF_JUMP((c), (k), (t), (f)))
#define	OFF_NR		offsetof(struct seccomp_data, nr)
#define	OFF_ARG(i)	(offsetof(struct seccomp_data, args) + 8 * (i))
#define	RET_ERRNO(e)	(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

#define	OFF_ARCH	offsetof(struct seccomp_data, arch)
#define	IP0		0x7fff12345678ULL

/* The arguments of the checker's default input (t_seccomp_check). */
extern const uint64_t args0[6];

/*
 * Does the kernel accept p as a seccomp filter?  A child installs it
 * under ptrace, and the result of its seccomp(2) is read at the call's
 * exit, before the filter can do anything to the child; the child is
 * then killed.  1, 0, or -1 when it could not be found out.
 */
int	kernel_accepts(const struct sock_filter *p, size_t n);

/* A small pseudo-random generator, the same on every run. */
extern uint64_t rng_state;
uint32_t	rnd(void);
/* A constant of the kinds filters and bugs like. */
uint32_t	rnd_k(void);

#endif	/* _SECCOMP_UTIL_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * seccomp_deny: run a program with one system call refused, as a sandbox
 * would refuse it.
 *
 *	seccomp_deny [-a N=VALUE] NR ERRNO PROGRAM [ARG ...]
 *
 * System call NR of this ISA fails with ERRNO in PROGRAM and everything it
 * starts; every other call is allowed.  With -a, only when the low 32
 * bits of its argument N (0 to 5) are VALUE: pidfd_open(2) with
 * PIDFD_THREAD refused with EINVAL is a kernel before 6.9.  Used to show
 * that pfiles --via=auto falls back to the agent where pidfd_getfd(2) is
 * refused, and that pfiles works without the kernel features it probes.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "isa.h"

static int
number(const char *s, long max, long *valp)
{
	char *end;

	errno = 0;
	*valp = strtol(s, &end, 10);
	return (errno != 0 || *end != '\0' || end == s || *valp < 0 ||
	    *valp > max ? -1 : 0);
}

int
main(int argc, char **argv)
{
	long nr, err, argn = -1, argval = 0;
	char *eq;

	if (argc > 2 && argv[1][0] == '-' && argv[1][1] == 'a' &&
	    argv[1][2] == '\0') {
		if ((eq = strchr(argv[2], '=')) == NULL) {
			argc = 0;	/* usage */
		} else {
			*eq = '\0';
			if (number(argv[2], 5, &argn) != 0 ||
			    number(eq + 1, 0xffffffffL, &argval) != 0)
				argc = 0;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || number(argv[1], 4096, &nr) != 0 ||
	    number(argv[2], 4095, &err) != 0) {
		(void) fprintf(stderr, "usage: seccomp_deny [-a N=VALUE] NR "
		    "ERRNO PROGRAM [ARG ...]\n");
		return (2);
	}

	/* The argument's low word (every ISA the agent knows is little-endian). */
	unsigned argoff = (unsigned)(offsetof(struct seccomp_data, args) +
	    8 * (argn < 0 ? 0 : (unsigned long)argn));
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ISA_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 3),
		/* -a: the argument must be the value too */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, argoff),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)argval,
		    0, argn < 0 ? 0 : 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO |
		    ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof (code) / sizeof (code[0]),
		.filter = code,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("seccomp_deny: prctl");
		return (1);
	}
	(void) execvp(argv[3], argv + 3);
	perror("seccomp_deny: exec");
	return (127);
}

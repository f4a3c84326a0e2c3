/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_comm.c: the names of processes, for the lines that name peers and
 * holders (pf_comm.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "pf_comm.h"

const char *
pf_comm_of(void *arg, pid_t pid)
{
	pf_comm_cache_t *cc = arg;
	char path[32];
	ssize_t n;
	uint_t slot;
	int fd;

	for (uint_t i = 0; i < PF_COMM_CACHE; i++) {
		if (cc->cc_pid[i] == pid && pid != 0)
			return (cc->cc_comm[i]);
	}
	(void) snprintf(path, sizeof (path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	slot = cc->cc_next++ % PF_COMM_CACHE;
	n = read(fd, cc->cc_comm[slot], PRFNSZ - 1);
	(void) close(fd);
	if (n <= 0)
		return (NULL);
	if (cc->cc_comm[slot][n - 1] == '\n')
		n--;
	cc->cc_comm[slot][n] = '\0';
	cc->cc_pid[slot] = pid;
	return (cc->cc_comm[slot]);
}

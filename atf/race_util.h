/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * race_util.h: the headers and constants of t_race and t_race_gone
 * (raceutil.c runs their races).
 */
#ifndef	_RACE_UTIL_H
#define	_RACE_UTIL_H

#include <atf-c.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libproc.h"
#include "raceutil.h"
#include "testutil.h"

#define	HELPER		RACE_HELPER

#endif	/* _RACE_UTIL_H */

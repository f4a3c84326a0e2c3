/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agentlife_util.h: what t_agent_life and t_agent_held share.
 */
#ifndef	_AGENTLIFE_UTIL_H
#define	_AGENTLIFE_UTIL_H

#include <atf-c.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "agentutil.h"
#include "libproc.h"
#include "agent/marshal.h"
#include "testutil.h"

#define	DRIVER	BUILD_DIR "/agent_driver"

#endif	/* _AGENTLIFE_UTIL_H */

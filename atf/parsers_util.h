/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * parsers_util.h: the headers t_parsers, t_procfs_parse and t_pfiles_fmt
 * include.
 */
#ifndef	_PARSERS_UTIL_H
#define	_PARSERS_UTIL_H

#include <atf-c.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <errno.h>
#include <unistd.h>
#include <linux/types.h>

#include "core/Pcontrol.h"
#include "src/bpf/bpf_load.h"
#include "src/bpf/pfiles_bpf.h"
#include "walk/fdinfo_parse.h"
#include "pf_escape.h"
#include "pfiles_fmt.h"
#include "core/procfs_parse.h"

#endif	/* _PARSERS_UTIL_H */

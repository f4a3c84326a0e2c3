/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diagparse_util.h: what t_diag_parse and t_diag_live share.
 */
#ifndef	_DIAGPARSE_UTIL_H
#define	_DIAGPARSE_UTIL_H

#include <atf-c.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/packet_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netpacket/packet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "netdiag/diag_parse.h"
#include "testutil.h"

/* The sequence number of every request made here. */
#define	SEQ	4242U

#endif	/* _DIAGPARSE_UTIL_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_kind.h: what kind of socket one of the target's fds is, without
 * touching it, and why the kernel may give no dump of a kind.  Not
 * installed.
 *
 * A socket that is in none of the tables dumped (diag_table.h) is said
 * to be missing for a reason that must be true of that socket: a dump
 * the kernel lacks is no reason for a socket of another kind, and a
 * socket of a kind that has no other end (netlink, raw, packet...) has
 * none to look for, whether it is in the tables or not.
 */
#ifndef	_DIAG_KIND_H
#define	_DIAG_KIND_H

#include "core/Pcontrol.h"
#include "netdiag/diag_parse.h"

/*
 * The kind of the target's socket fd as a request of the dump that would
 * hold it (dr_family 0: of a kind no dump holds, as vsock or an ICMP
 * "ping" socket), from the name of its protocol, which the kernel gives
 * as the socket file's attribute system.sockprotoname to whoever may
 * read the fd's link: 1; 0 when it cannot be read (closed since).
 */
extern int diag_sock_kind(struct ps_prochandle *, int, diag_req_t *);

/*
 * Why the kernel answered the request of dump req with ENOENT, after
 * trying to load its module itself, where that can be known: its module
 * is not built into a kernel that loads no modules (no /proc/modules),
 * is in neither /lib/modules/RELEASE/modules.builtin nor modules.dep, or
 * is among the modules and was not loaded.  A static text, or NULL when
 * nothing can be known (no list of this kernel's modules to read); the
 * module's name into *modp.
 */
extern const char *diag_nodump_why(const diag_req_t *, const char **);

#endif	/* _DIAG_KIND_H */

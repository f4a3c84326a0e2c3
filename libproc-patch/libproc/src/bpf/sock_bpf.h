/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_bpf.h: what the bpf source (sock_bpf.c) shares with its load-time
 * check (sock_bpf_check.c).  Not installed.
 */
#ifndef	_SOCK_BPF_H
#define	_SOCK_BPF_H

#include "src/bpf/bpf_load.h"
#include "sock/socksrc.h"

/*
 * The socket facts of an iterator's record, for the one builder
 * (sockrec.c); hz is the kernel's (bpf_pfiles_hz()), SO_LINGER's unit.
 */
extern void bpf_sockfacts(const bpfrec_t *, unsigned int, sockfacts_t *);
/*
 * The one translation of an iterator's record into libproc's record of
 * its fd (rec, reset to it): the stat fields, flags, offset, path (or why
 * there is none), locks and, for a socket, its items through the one
 * builder (sockrec.c).  hz is the kernel's.  Used by the walk for the
 * records it takes as they are, and by bpfdump for every record.
 * Returns an errno.
 */
extern int bpf_record(const bpfrec_t *, unsigned int, fdrec_t *);
/*
 * Does the record show its fd as the other sources would, so that it is
 * taken as it is?  Else the walk builds that fd the other sources' way.
 */
extern int bpf_taken_as_is(const bpfrec_t *);
/*
 * Does the record br of fd, an fd of this process, say what fstat(2),
 * fcntl(2), readlink(2) and, for a socket, the calls of the pidfd source
 * (sock_local.c) say of it, as far as pfiles shows it?  0; 1 with the
 * first fact that differs in fact; the facts of a socket through the
 * one translation of a record (bpf_sockfacts()), with the kernel's hz.
 */
extern int bpf_check_record(const bpfrec_t *, int, unsigned int, char *,
    size_t);
/*
 * The check made once per load, before the source serves: the records
 * of sockets, a pipe and an eventfd of pfiles' own, made for it (every
 * family and option pfiles prints, options on and off), are compared
 * with what fstat(2), getsockopt(2), getsockname(2), getpeername(2) and
 * readlink(2) say of them, while a thread shares the fd table; every fd
 * must be shown once.  0 (and how many records were compared), or -1
 * with errno (EPROTO: a difference) and why in the contract's words.
 */
extern int bpf_check_facts(bpf_pfiles_t *, unsigned int *, char *, size_t);

#endif	/* _SOCK_BPF_H */

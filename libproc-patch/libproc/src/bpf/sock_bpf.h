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

/*
 * What a socket the check made in a known state must show
 * (sock_bpf_queued.c): its state line (w_state a PR_SS_*, 0 for queues
 * alone, -1 nothing wanted; w_read and w_send -1 where any value will
 * do) and its netlink groups (w_ngroups words; 0 nothing wanted).
 */
typedef struct bpf_ckwant {
	int		w_state;
	uint_t		w_queues;	/* PR_SSQ_* */
	int64_t		w_read;
	int64_t		w_send;
	uint32_t	w_groups[2];
	uint_t		w_ngroups;
} bpf_ckwant_t;

/* The check's: keep fd to be checked, as what, and what it must show. */
typedef void bpf_ck_add_f(void *, int, const char *, const bpf_ckwant_t *);
/*
 * The sockets that hold something (bytes, datagrams, a FIN, clients not
 * accepted, groups past 32), each to add with what it must show.
 */
extern void bpf_check_make_queued(bpf_ck_add_f *, void *);
/*
 * NULL when the record br shows what w says, through the one
 * translation of a record (hz the kernel's); else the fact that differs.
 */
extern const char *bpf_check_want(const bpfrec_t *, unsigned int,
    const bpf_ckwant_t *);

#endif	/* _SOCK_BPF_H */

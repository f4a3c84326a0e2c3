/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_load.h: the loader of the BPF task-file iterator (bpf/pfiles.bpf.c),
 * through its light skeleton: no libbpf at run time.
 *
 * bpf_pfiles_open() checks what the iterator needs, each with its own
 * reason (privilege, BTF, lockdown), loads and verifies the program once,
 * and proves on pfiles itself that the kernel's task-file iterator obeys
 * the pid filter (6.1 and later) and learns the kernel's HZ (SO_LINGER's
 * unit).  bpf_pfiles_iter() attaches one link for one pid, reads the
 * iterator in 32 KiB reads and hands each record, decoded and checked
 * (bpfrec_parse.h), to the callback; a callback that returns non-zero
 * stops the walk, and bpf_pfiles_iter() returns that value.
 *
 * On failure both return NULL or -1 with errno set and the reason, in
 * the contract's words, in why.
 */
#ifndef	_BPF_LOAD_H
#define	_BPF_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/bpf/bpfrec_parse.h"

typedef struct bpf_pfiles bpf_pfiles_t;

/* raw/rawlen: the record's bytes as the kernel wrote them. */
typedef int bpf_pfiles_rec_f(void *, const bpfrec_t *, const void *raw,
    size_t rawlen);

typedef struct bpf_pfiles_times {
	double		bt_load_ms;	/* open + load + verify */
	double		bt_probe_ms;	/* the self-test walk */
} bpf_pfiles_times_t;

extern bpf_pfiles_t *bpf_pfiles_open(char *, size_t);
extern int bpf_pfiles_iter(bpf_pfiles_t *, pid_t, bpf_pfiles_rec_f *, void *,
    char *, size_t);
/*
 * The records of fd, a stream of them as the iterator writes them, to
 * the callback as bpf_pfiles_iter() hands them (each must be of process
 * pid); fd is closed.  bpf_pfiles_iter() reads its iterator so; a read
 * may end inside a record (the kernel's seq buffer is bigger than a read
 * where pages are bigger than 4 KiB), which the tests prove on a pipe.
 * Built with or without HAVE_BPF.
 */
extern int bpf_pfiles_read(int, pid_t, bpf_pfiles_rec_f *, void *, char *,
    size_t);
/*
 * The target's sockets only, one psockid_t each (sockid.h), in one pass
 * of a second program: for the endpoints, before the walk.  Returns as
 * bpf_pfiles_iter() does.
 */
typedef psockid_f bpf_pfiles_ino_f;
extern int bpf_pfiles_sock_inodes(bpf_pfiles_t *, pid_t, bpf_pfiles_ino_f *,
    void *, char *, size_t);
/*
 * One pass over every task's files (no pid filter): every record of every
 * process to cb, in the kernel's order (by pid, then fd); as
 * bpf_pfiles_iter.
 */
extern int bpf_pfiles_iter_all(bpf_pfiles_t *, bpf_pfiles_rec_f *, void *,
    char *, size_t);
/* Whose records a walk takes (0: every process's), and to whom. */
typedef struct bpf_pfiles_walk {
	pid_t			bw_pid;
	bpf_pfiles_rec_f	*bw_cb;
	void			*bw_arg;
} bpf_pfiles_walk_t;
/*
 * The records of process bw_pid kept from such a pass (len bytes at buf,
 * as the kernel wrote them) to bw_cb, each parsed again (nothing is
 * trusted because it was parsed once): as bpf_pfiles_iter.
 */
extern int bpf_pfiles_replay(const void *, size_t, const bpf_pfiles_walk_t *,
    char *, size_t);
extern unsigned int bpf_pfiles_hz(const bpf_pfiles_t *);
extern void bpf_pfiles_times(const bpf_pfiles_t *, bpf_pfiles_times_t *);
extern void bpf_pfiles_close(bpf_pfiles_t *);

/*
 * Set before bpf_pfiles_open(): the verifier's log on stderr when the
 * load fails, its figures (instructions processed, per program) when it
 * succeeds.
 */
extern int bpf_pfiles_verbose;

#endif	/* _BPF_LOAD_H */

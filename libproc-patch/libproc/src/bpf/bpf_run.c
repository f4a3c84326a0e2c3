/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_run.c: the bpf source's one pass for a whole run (core/Pshare.h).
 *
 * Without a share, each process is one pass of the iterator, filtered by
 * its pid.  With one, the first handle that needs the program makes one
 * pass over every task's files, with no filter: it keeps the records of
 * the run's processes not walked yet (Pshare_pids), as the kernel wrote
 * them, and every socket fd of the machine (inode, pid, fd) for the
 * endpoints' holders (sp_holders).  Each process's walk then takes its
 * records from memory, parsed again, in the order the run gives
 * (pfiles' argument order), not the kernel's (by pid); the records of a
 * process walked are let go at once.
 *
 * With one pid, no record is kept (the walk streams its own pass, as
 * without a share): the socket fds of the machine come from one pass of
 * the inode program with no pid filter (sock_bpf.c), 80 bytes a socket,
 * which gives the target's own sockets at the same time.
 *
 * Memory is bounded: a pass keeps at most BR_KEEP bytes of records, for
 * the processes of the run in its order from the first not walked yet;
 * those past the bound wait for the next pass, made when the first of
 * them is walked.  A process alone bigger than the bound is walked by a
 * pass of its own, filtered, streamed as without a share.
 *
 * The records are the run's: a process walked later is shown as the
 * pass saw it (as lsof's and ss's one pass), but for the fds the walk
 * builds the other way (files on filesystems with attributes of their
 * own, bpf_taken_as_is()), whose stat is the walk's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "core/Pshare.h"
#include "src/bpf/bpf_load.h"
#include "src/bpf/bpf_run.h"

#define	BR_KEEP		(64U << 20)	/* bytes of records a pass keeps */
#define	BR_ARENA0	(1U << 20)	/* the arena's first size */
#define	K_MADV_POPULATE_WRITE	23	/* uapi asm-generic/mman-common.h */

/* A process of the run. */
typedef struct br_slot {
	pid_t		bs_pid;
	size_t		bs_order;	/* its place in the run */
	int		bs_state;
#define	BS_WAITING	0		/* no records kept */
#define	BS_KEPT		1		/* every record of the last pass */
#define	BS_WALKED	2		/* taken; memory let go */
	int		bs_cut;		/* its records were not one run */
	unsigned	bs_pass;	/* of the pass that kept them */
	size_t		bs_off, bs_len;	/* its records in br_arena */
} br_slot_t;

typedef struct br_hold {
	uint64_t	bh_ino;
	pid_t		bh_pid;
	int		bh_fd;
} br_hold_t;

struct bpf_run {
	br_slot_t	*br_slots;	/* by pid */
	size_t		br_n;
	size_t		br_from;	/* the last pass kept from this order */
	size_t		br_limit;	/* and below this one */
	size_t		br_bound;	/* of the records a pass keeps */
	uint8_t		*br_arena;	/* the records kept, one after */
	size_t		br_kept, br_cap;	/* another, a slot's in one run */
	int		br_passes;
	br_hold_t	*br_holds;	/* the first pass's socket fds */
	size_t		br_nholds, br_capholds;
	int		br_have_holds;
	unsigned	br_holds_pass;	/* the pass that gave them */
	bpf_pfiles_t	*br_prog;	/* the program the passes run */
};

/* The share's hook (core/Phook.h): the run's state goes with it. */
static void
bpf_run_free(void *arg)
{
	bpf_run_t *br = arg;

	if (br->br_cap > 0)
		(void) munmap(br->br_arena, br->br_cap);
	free(br->br_slots);
	free(br->br_holds);
	free(br);
}

static int
slot_cmp(const void *a, const void *b)
{
	const br_slot_t *x = a, *y = b;

	if (x->bs_pid != y->bs_pid)
		return (x->bs_pid < y->bs_pid ? -1 : 1);
	return (x->bs_order < y->bs_order ? -1 : x->bs_order > y->bs_order);
}

/* The first slot of pid not walked yet, or NULL. */
static br_slot_t *
slot_of(bpf_run_t *br, pid_t pid)
{
	size_t lo = 0, hi = br->br_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (br->br_slots[mid].bs_pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < br->br_n && br->br_slots[lo].bs_pid == pid; lo++)
		if (br->br_slots[lo].bs_state != BS_WALKED)
			return (&br->br_slots[lo]);
	return (NULL);
}

/*
 * The bound on the records a pass keeps: BR_KEEP, or LIBPROC_BPF_KEEP
 * bytes from the environment (a number, at least 1), with which the
 * suite makes a few small processes take several passes.
 */
static size_t
keep_bound(void)
{
	const char *v = getenv("LIBPROC_BPF_KEEP");
	char *end;
	unsigned long long n;

	if (v == NULL || *v < '0' || *v > '9')
		return (BR_KEEP);
	errno = 0;
	n = strtoull(v, &end, 10);
	return (errno != 0 || *end != '\0' || n == 0 || n > BR_KEEP ?
	    BR_KEEP : (size_t)n);
}

bpf_run_t *
bpf_run_of(struct ps_prochandle *P, bpf_pfiles_t *prog)
{
	ps_share_t *sh = P->share;
	bpf_run_t *br;

	if (sh == NULL)
		return (NULL);
	if ((br = Phook_get(sh->ps_hooks, bpf_run_free)) != NULL)
		return (br);
	if ((br = calloc(1, sizeof (*br))) == NULL ||
	    (sh->ps_npids > 0 && (br->br_slots = calloc(sh->ps_npids,
	    sizeof (br_slot_t))) == NULL)) {
		free(br);
		return (NULL);
	}
	for (size_t i = 0; i < sh->ps_npids; i++) {
		br->br_slots[i].bs_pid = sh->ps_pids[i];
		br->br_slots[i].bs_order = i;
	}
	br->br_n = sh->ps_npids;
	if (br->br_n > 1)
		qsort(br->br_slots, br->br_n, sizeof (br_slot_t), slot_cmp);
	br->br_bound = keep_bound();
	br->br_prog = prog;
	if (Phook_set(sh->ps_hooks, bpf_run_free, br, PHOOK_FIRST) != 0) {
		bpf_run_free(br);
		return (NULL);
	}
	return (br);
}

/* What one pass carries. */
typedef struct br_pass {
	bpf_run_t	*bp_run;
	int		bp_holds;	/* keep the socket fds */
	int		bp_err;
} br_pass_t;

/*
 * Every slot from order o on lets its records go (their bytes stay in the
 * arena until the next pass: the bound counts them).
 */
static void
drop_from(bpf_run_t *br, size_t o)
{
	for (size_t i = 0; i < br->br_n; i++) {
		br_slot_t *s = &br->br_slots[i];

		if (s->bs_order >= o && s->bs_state != BS_WALKED)
			s->bs_len = 0;
	}
	br->br_limit = o;
}

/*
 * Room for need bytes in the arena: mapped memory, grown by doubling
 * (mremap: nothing copied), its new pages made present in one call
 * (MADV_POPULATE_WRITE, Linux 5.14; without it, each is faulted in when
 * first written, which in a virtual machine costs several times more).
 * 0, or ENOMEM.
 */
static int
arena_grow(bpf_run_t *br, size_t need)
{
	size_t cap = br->br_cap == 0 ? BR_ARENA0 : br->br_cap;
	void *v;

	while (cap < need)
		cap *= 2;
	if (br->br_cap == 0)
		v = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS, -1, 0);
	else
		v = mremap(br->br_arena, br->br_cap, cap, MREMAP_MAYMOVE);
	if (v == MAP_FAILED)
		return (ENOMEM);
	(void) madvise((uint8_t *)v + br->br_cap, cap - br->br_cap,
	    K_MADV_POPULATE_WRITE);
	br->br_arena = v;
	br->br_cap = cap;
	return (0);
}

static int
keep_rec(void *arg, const bpfrec_t *rec, const void *raw, size_t rawlen)
{
	br_pass_t *pp = arg;
	bpf_run_t *br = pp->bp_run;
	br_slot_t *s;

	if (pp->bp_holds && rec->br_tgid > 0 &&
	    (rec->br_mode & S_IFMT) == S_IFSOCK &&
	    !(rec->br_have & BPFREC_OWNTABLE) &&
	    bpf_run_hold(br, rec->br_ino, rec->br_tgid, rec->br_fd) != 0) {
		pp->bp_err = ENOMEM;
		return (-1);
	}
	/* A thread's own table is not shown (one_fd()): not kept. */
	if (rec->br_tgid <= 0 || (rec->br_have & BPFREC_OWNTABLE) ||
	    (s = slot_of(br, rec->br_tgid)) == NULL || s->bs_cut ||
	    s->bs_order < br->br_from || s->bs_order >= br->br_limit)
		return (0);
	if (br->br_kept + rawlen > br->br_bound) {
		/* Past the bound: this one and those after it wait. */
		drop_from(br, s->bs_order);
		return (0);
	}
	/* The leader's table is visited once: its records are one run. */
	if (s->bs_len == 0) {
		s->bs_off = br->br_kept;
	} else if (s->bs_off + s->bs_len != br->br_kept) {
		s->bs_cut = 1;		/* walked by a pass of its own */
		s->bs_len = 0;
		return (0);
	}
	if (br->br_kept + rawlen > br->br_cap && arena_grow(br,
	    br->br_kept + rawlen) != 0) {
		pp->bp_err = ENOMEM;
		return (-1);
	}
	memcpy(br->br_arena + br->br_kept, raw, rawlen);
	s->bs_len += rawlen;
	br->br_kept += rawlen;
	return (0);
}

int
bpf_run_pass(struct ps_prochandle *P, bpf_run_t *br, size_t from, char *why,
    size_t whysz)
{
	br_pass_t pp = { br, !br->br_have_holds, 0 };
	int r;

	/* What an earlier pass kept and nobody took is the run's no more. */
	drop_from(br, 0);
	for (size_t i = 0; i < br->br_n; i++) {
		if (br->br_slots[i].bs_state == BS_KEPT)
			br->br_slots[i].bs_state = BS_WAITING;
		br->br_slots[i].bs_cut = 0;
	}
	br->br_from = from;
	br->br_limit = SIZE_MAX;
	br->br_kept = 0;
	br->br_passes++;
	if ((r = bpf_pfiles_iter_all(br->br_prog, keep_rec, &pp, why,
	    whysz)) != 0) {
		int err = pp.bp_err != 0 ? pp.bp_err : errno;

		drop_from(br, 0);
		br->br_nholds = 0;
		if (pp.bp_err != 0)
			(void) snprintf(why, whysz, "%s", strerror(err));
		errno = err;
		return (-1);
	}
	for (size_t i = 0; i < br->br_n; i++) {
		br_slot_t *s = &br->br_slots[i];

		if (s->bs_state == BS_WAITING && s->bs_order >= from &&
		    s->bs_order < br->br_limit && !s->bs_cut) {
			s->bs_state = BS_KEPT;
			s->bs_pass = (unsigned)br->br_passes;
		}
	}
	if (pp.bp_holds) {
		br->br_have_holds = 1;
		br->br_holds_pass = (unsigned)br->br_passes;
	}
	PDEBUG(P, "bpf: one pass over every task's files (the run's pass "
	    "%d): %zu bytes of records kept, of the processes %zu to %zu of "
	    "the run; %zu socket fds", br->br_passes, br->br_kept, from,
	    br->br_limit == SIZE_MAX ? br->br_n : br->br_limit,
	    br->br_nholds);
	return (0);
}

/*
 * The slot of the handle's process with its records kept (a pass from it
 * made when they are not, unless the last began there: alone past the
 * bound), or NULL with *errp 0 (none kept), or an errno.
 */
static br_slot_t *
ready(struct ps_prochandle *P, bpf_run_t *br, char *why, size_t whysz,
    int *errp)
{
	br_slot_t *s = slot_of(br, P->pid);

	*errp = 0;
	if (s == NULL)
		return (NULL);
	if (s->bs_state == BS_WAITING && (br->br_passes == 0 ||
	    br->br_from != s->bs_order) &&
	    bpf_run_pass(P, br, s->bs_order, why, whysz) != 0) {
		*errp = errno != 0 ? errno : EIO;
		return (NULL);
	}
	return (s->bs_state == BS_KEPT ? s : NULL);
}

int
bpf_run_walk(struct ps_prochandle *P, bpf_run_t *br, bpf_pfiles_rec_f *cb,
    void *arg, char *why, size_t whysz)
{
	br_slot_t *s;
	int r, err;

	if ((s = ready(P, br, why, whysz, &err)) == NULL) {
		errno = err;
		return (err != 0 ? -1 : BPF_RUN_NONE);
	}
	r = bpf_pfiles_replay(br->br_arena + s->bs_off, s->bs_len,
	    &(bpf_pfiles_walk_t){ P->pid, cb, arg }, why, whysz);
	s->bs_len = 0;
	s->bs_state = BS_WALKED;
	return (r);
}

int
bpf_run_hold(bpf_run_t *br, uint64_t ino, pid_t pid, int fd)
{
	if (br->br_nholds == br->br_capholds) {
		size_t cap = br->br_capholds == 0 ? 1024 : br->br_capholds * 2;
		br_hold_t *v = realloc(br->br_holds, cap * sizeof (*v));

		if (v == NULL)
			return (ENOMEM);
		br->br_holds = v;
		br->br_capholds = cap;
	}
	br->br_holds[br->br_nholds].bh_ino = ino;
	br->br_holds[br->br_nholds].bh_pid = pid;
	br->br_holds[br->br_nholds++].bh_fd = fd;
	return (0);
}

void
bpf_run_held(bpf_run_t *br, int complete)
{
	if (complete) {
		br->br_have_holds = 1;
		br->br_holds_pass = 0;	/* no record of a pass's with them */
	} else {
		br->br_nholds = 0;
	}
}

int
bpf_run_has_holds(const bpf_run_t *br)
{
	return (br->br_have_holds);
}

unsigned
bpf_run_snapshot(struct ps_prochandle *P, bpf_run_t *br, int holders)
{
	br_slot_t *s;

	if (holders)
		return (br->br_have_holds ? br->br_holds_pass : 0);
	s = slot_of(br, P->pid);
	return (s != NULL && s->bs_state == BS_KEPT ? s->bs_pass : 0);
}

int
bpf_run_sockets(struct ps_prochandle *P, bpf_run_t *br, bpf_pfiles_rec_f *cb,
    void *arg, char *why, size_t whysz)
{
	br_slot_t *s;
	int err;

	if ((s = ready(P, br, why, whysz, &err)) == NULL) {
		errno = err;
		return (err != 0 ? -1 : BPF_RUN_NONE);
	}
	return (bpf_pfiles_replay(br->br_arena + s->bs_off, s->bs_len,
	    &(bpf_pfiles_walk_t){ P->pid, cb, arg }, why, whysz));
}

int
bpf_run_holders(struct ps_prochandle *P, bpf_run_t *br, psockhold_f *cb,
    void *arg, char *why, size_t whysz)
{
	br_slot_t *s;
	int r;

	if (!br->br_have_holds) {
		s = slot_of(br, P->pid);
		if (bpf_run_pass(P, br, s != NULL ? s->bs_order : 0, why,
		    whysz) != 0)
			return (errno != 0 ? errno : EIO);
	}
	for (size_t i = 0; i < br->br_nholds; i++) {
		const br_hold_t *h = &br->br_holds[i];

		if ((r = cb(arg, h->bh_ino, h->bh_pid, h->bh_fd)) != 0)
			return (r);
	}
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * budget_util.h: what t_budget and t_budget_check share.
 */
#ifndef	_BUDGET_UTIL_H
#define	_BUDGET_UTIL_H

#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "pcount.h"
#include "testutil.h"

#define	NCONN		25		/* N; the second run has 4N */
#define	PFILES_SECONDS	60		/* one counted pfiles run */
#define	PAGE		4096		/* the piece size of a one-pass read */
#define	TIDS_MAX	1024
#define	MSG_MAX		4096
#define	SIZE_MAX_READ	(16L << 20)
#define	SEEDLIKE	BUILD_DIR "/atf/seedlike"

/* The classes of counted calls; see t_budget.c's top comment. */
typedef enum bclass {
	BC_MEM_R,	/* target memory, reads by any call */
	BC_MEM_PREAD,	/* of them, the pread family on /proc/T/mem */
	BC_MEM_W,	/* target memory, writes by any call */
	BC_MEM_PWRITE,	/* of them, the pwrite family on /proc/T/mem */
	BC_FDINFO,	/* reads of /proc/T/fdinfo/N */
	BC_TPROC,	/* reads of other /proc/T files */
	BC_OPROC,	/* reads of other /proc files */
	BC_OTHER_R,	/* reads of anything else */
	BC_OTHER_W,	/* writes of anything but target memory */
	BC_NL_SENT,	/* netlink messages sent */
	BC_NL_RECV,	/* netlink datagrams received (or receives tried) */
	BC_NCLASS
} bclass_t;

#define	SEED_TOTAL	280	/* 230 /proc/PID/as + 50 lwpstatus */

/* What the counter's call names are. */
typedef enum ckside {
	CK_READ,		/* reads a file or memory */
	CK_WRITE,		/* writes one */
	CK_NL_SEND,		/* sends a netlink message */
	CK_NL_RECV		/* receives a netlink datagram */
} ckside_t;

/* The process examined: its pid and its threads' ids. */
typedef struct btarget {
	long	bt_ids[TIDS_MAX];
	size_t	bt_n;
} btarget_t;

/* One class at one size. */
typedef struct bcount {
	uint64_t	bc_calls;
	uint64_t	bc_pages;	/* one-pass pages (see the top) */
} bcount_t;

/* Every class at one size. */
typedef struct bmeasure {
	long		bm_sockets;
	bcount_t	bm_class[BC_NCLASS];
} bmeasure_t;

typedef enum blimit_kind {
	BL_NONE,		/* shown, not budgeted */
	BL_ZERO,		/* no call at all, at either size */
	BL_PER_SOCKET,		/* at most bl_max per socket added */
	BL_BOUNDED		/* none per socket added, and from bl_min */
				/* to bl_max calls at each size */
} blimit_kind_t;

typedef struct blimit {
	blimit_kind_t	bl_kind;
	unsigned	bl_max;
	unsigned	bl_min;		/* BL_BOUNDED only */
} blimit_t;

typedef struct budget {
	const char	*b_name;
	blimit_t	b_lim[BC_NCLASS];
} budget_t;

/* The checker's input: a budget and the measures at N and at 4N. */
typedef struct btable {
	const char	*bt_title;
	const budget_t	*bt_budget;
	bmeasure_t	bt_at[2];
} btable_t;

/*
 * The most netlink messages --via=diag may send for one process (the
 * issue's bound): one per dump, and sock_diag.c has 13 dumps in 8 groups;
 * the node fixture's sockets are all in the first group (2 dumps).
 */
#define	DIAG_DUMPS_MAX	16

/*
 * Classifying what the counter wrote.
 */
typedef enum pathkind {
	PK_MEM, PK_FDINFO, PK_TPROC, PK_OPROC, PK_OTHER
} pathkind_t;

/*
 * The checker.
 */
/* The numbers of one row: what the table prints and the checker judges. */
typedef struct brow {
	uint64_t	br_lo, br_hi;	/* calls at N and at 4N */
	uint64_t	br_grown;	/* growth of one-pass pages, not charged */
	int64_t		br_charged;	/* hi - lo - grown */
	double		br_slope;	/* per socket added */
	double		br_fixed;
} brow_t;

struct bclass_info {
	const char	*bi_name;
	int		bi_seed;	/* the seed's count per socket, or -1 */
};
extern const struct bclass_info bclass_info[BC_NCLASS];

struct callkind {
	const char	*ck_name;
	ckside_t	ck_side;
	int		ck_pfamily;	/* pread or pwrite family */
};
extern const struct callkind callkinds[];

extern const budget_t budget_pidfd;

extern const budget_t budget_agent;

extern const budget_t budget_diag;

const struct callkind	*callkind(const char *name);

int	is_target_id(const btarget_t *tg, long id);

/* A decimal id at *pp (digits only), and *pp moved past it; -1 if none. */
long	take_id(const char **pp);

pathkind_t	classify_path(const char *path, const btarget_t *tg);

/*
 * The size of the file at PATH now, read whole (at most SIZE_MAX_READ
 * bytes); -1 when it cannot be read.  The test reads it itself, uncounted.
 */
long	size_now(const char *path);

/*
 * The one-pass pages of a (call, path) pair (see the top): when the file
 * can still be read (SIZES) and the pair's bytes are no more than one
 * pass over it (half again its size now, for files that change a little),
 * the calls beyond the first that its 4 KiB pages explain.  A file read
 * more than once, or no longer there, has none.
 */
uint64_t	one_pass_pages(const struct pcount_rec *r, int sizes);

void	add_to(bmeasure_t *m, bclass_t c, uint64_t calls, uint64_t pages);

/*
 * Sort the counter's pairs in T into classes.  SIZES: the target is still
 * there, so the sizes of its /proc files can be read (see one_pass_pages).
 */
int	measure(const struct pcount_tab *t, const btarget_t *tg, long sockets,
	    int sizes, bmeasure_t *m, char *err, size_t errlen);

void	row_numbers(const btable_t *bt, const bcount_t *lo, const bcount_t *hi,
	    brow_t *r);

void	class_row(const btable_t *bt, bclass_t c, brow_t *r);

/* All reads of the target: memory, fdinfo and the other /proc/T files. */
void	target_row(const btable_t *bt, brow_t *r);

const char	*limit_text(const blimit_t *bl, char *buf, size_t len);

/* Is the row within its limit? */
int	within(const blimit_t *bl, const brow_t *r, long added);

/* Append to msg at *off, bounded; a full buffer ends in "...". */
void	msg_add(char *msg, size_t msglen, size_t *off, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 4, 5)));

const char	*trim(const char *name);

/*
 * The verdict on a table: 0 when every budgeted class is within its
 * budget; 1 when some are not, each named in MSG with its numbers; -1
 * when the table cannot be judged (the message says why).
 */
int	budget_check(const btable_t *bt, char *msg, size_t msglen);

void	print_row(FILE *fp, const char *name, const brow_t *r, const char *lim,
	    const char *verdict, int seed);

/* The table, for kyua report --verbose. */
void	budget_print(const btable_t *bt, FILE *fp);

long	sockets_of(int nconn);

/* Run ARGV under the counter into OUT (stdout into STDOUT_FILE); load it. */
void	counted_run(char *const argv[], const char *what, const char *out,
	    const char *stdout_file, struct pcount_tab *t);

/* seedlike OPTS NSOCK under the counter, measured into M. */
void	measure_seedlike(const char *aopt, const char *lopt, const char *fopt,
	    long nsock, bmeasure_t *m);

/* seedlike at the node fixture's two socket counts, into BT. */
void	seedlike_table(btable_t *bt, const char *aopt, const char *lopt,
	    const char *fopt);

/* Judge BT under BUDGET; print the table; return the verdict. */
int	judge(btable_t *bt, const budget_t *budget, char *msg, size_t msglen);

/*
 * The message must hold the clause of CLASS (for BUDGET), and that
 * clause must say PER_SOCKET ("230.00 per socket").
 */
void	require_clause(const char *msg, const budget_t *budget, bclass_t c,
	    const char *per_socket);

/* The clause of CLASS must not be in the message. */
void	require_no_clause(const char *msg, const budget_t *budget, bclass_t c);

#endif	/* _BUDGET_UTIL_H */

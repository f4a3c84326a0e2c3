/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_budget: what pfiles reads per socket, and the netlink messages it
 * sends, against a budget per --via.
 *
 * The seed found the bug by counting preads with dtrace: per socket, 230
 * of /proc/PID/as and 50 of lwpstatus.  Here libpreadcount.so counts
 * every libc entry that reads or writes a file or another process's
 * memory, and every netlink message sent or received (atf/pcount.c runs
 * pfiles under it), on fixtures/sockets.js with
 * N and 4N connections.  From the two runs each class of reads gets a
 * slope, per socket added, and a fixed part:
 *
 *	per socket = (calls at 4N - calls at N - grown) / sockets added
 *	fixed      = calls at N - per socket * sockets at N
 *
 * The fixture has 1 + 2N sockets (the listener, N clients, N accepted),
 * so 4N connections add 2 * 3N sockets, in the same process.
 *
 * The classes, by the path the counter names (T is the target's pid or
 * the id of one of its threads; /proc/T/task/X/... counts as /proc/T/...):
 *
 *	target memory	/proc/T/mem by any call, and every "pid:N" (ptrace
 *			PEEK and POKE, process_vm_readv and _writev: pfiles
 *			examines one process here, so any is the target's);
 *			reads and writes apart, with the pread and pwrite
 *			families of /proc/T/mem shown on rows of their own;
 *	fdinfo		/proc/T/fdinfo/N;
 *	target /proc	any other /proc/T file;
 *	other /proc	every other /proc path, pfiles' own /proc/self
 *			included (the counter names it /proc/<pfiles' pid>);
 *	other files	the rest (shown, not budgeted);
 *	netlink sent	send, sendto, sendmsg on a netlink socket (the
 *			counter names it "netlink:P", P its protocol): for
 *			--via=diag, one per dump of the kernel's tables;
 *	netlink recvd	recv, recvfrom, recvmsg on a netlink socket: the
 *			datagrams of the dumps, and a receive that failed.
 *			A dump lists every socket of the target's network
 *			namespace, not only the target's, so their number
 *			follows the namespace (both nodes are up during
 *			both runs): shown, not budgeted.
 *
 * "grown": a /proc/T file that is read whole, once, may take more calls
 * when it grows with the sockets, without being read more often (node's
 * epoll fdinfo lists every watched socket, and pfiles reads fdinfo 4 KiB
 * at a time).  For a (call, path) pair whose bytes are one pass over the
 * file (no more than half again its size, which the test reads itself
 * while the target still runs), the calls beyond the first that its
 * 4 KiB pages explain are its "one-pass pages"; the growth of a class's
 * one-pass pages from N to 4N is not charged per socket, and the table
 * shows it.  A file read once per socket has bytes of many passes and
 * earns nothing; so do files that are gone, and target memory, which is
 * charged per call, always.
 *
 * Budgets (from the issue): --via=pidfd: no target memory read or written
 * at all, at most 1 fdinfo read per socket, other /proc reads constant;
 * --via=agent: at most 1 pread and 1 pwrite of /proc/T/mem per socket
 * (and no more by any other call), fdinfo and /proc as for pidfd;
 * --via=diag: no target memory read or written, no netlink message sent
 * per socket (the same number at N and at 4N) and per process at most
 * DIAG_DUMPS_MAX, one per dump, at least one (a diag run that sends
 * nothing is a counter that does not see it), and fdinfo and /proc as
 * for pidfd (no call per socket beyond the walk's own); --via=bpf: no
 * target memory read or written, and no call per socket in any budgeted
 * class: no fdinfo read (the iterator's records hold what fdinfo says),
 * other /proc reads constant, and no netlink message at all (the node
 * fixture's sockets are connections within the process, whose other
 * ends the iterator's facts settle: no dump of the socket tables).  The iterator's own reads ("other
 * files", 32 KiB each) follow the bytes of the records, not the number
 * of calls pfiles makes per socket: shown, not budgeted.
 *
 * Each case prints its table on stdout (kyua report --verbose shows it)
 * and fails with the numbers when a budget is exceeded.  The checker,
 * budget_check(), is one function from table to verdict and message; the
 * seedlike cases run it on atf/seedlike, which reads /proc/self/mem as
 * the seed's pfiles read its target, and require that it is caught, and
 * that well-behaved counts pass.
 *
 * The counter sees only glibc's public entry points: stdio's own reads
 * and writes are not counted (pfiles reads /proc with read and pread).
 */
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
#define	NODE_SECONDS	"120"		/* the fixture's own time limit */
#define	PFILES_SECONDS	60		/* one counted pfiles run */
#define	PAGE		4096		/* the piece size of a one-pass read */
#define	TIDS_MAX	1024
#define	MSG_MAX		4096
#define	SIZE_MAX_READ	(16L << 20)
#define	SEEDLIKE	BUILD_DIR "/atf/seedlike"

/* The classes of counted calls; see the comment at the top. */
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

static const struct bclass_info {
	const char	*bi_name;
	int		bi_seed;	/* the seed's count per socket, or -1 */
} bclass_info[BC_NCLASS] = {
	[BC_MEM_R] = { "target memory, reads (any call)", 230 },
	[BC_MEM_PREAD] = { "  of them preads of /proc/T/mem", 230 },
	[BC_MEM_W] = { "target memory, writes (any call)", -1 },
	[BC_MEM_PWRITE] = { "  of them pwrites of /proc/T/mem", -1 },
	[BC_FDINFO] = { "/proc/T/fdinfo/N, reads", -1 },
	[BC_TPROC] = { "other /proc/T files, reads", 50 },
	[BC_OPROC] = { "other /proc files, reads", -1 },
	[BC_OTHER_R] = { "other files, reads", -1 },
	[BC_OTHER_W] = { "other files, writes", -1 },
	[BC_NL_SENT] = { "netlink messages sent", -1 },
	[BC_NL_RECV] = { "netlink datagrams received", -1 },
};

#define	SEED_TOTAL	280	/* 230 /proc/PID/as + 50 lwpstatus */

/* What the counter's call names are. */
typedef enum ckside {
	CK_READ,		/* reads a file or memory */
	CK_WRITE,		/* writes one */
	CK_NL_SEND,		/* sends a netlink message */
	CK_NL_RECV		/* receives a netlink datagram */
} ckside_t;

static const struct callkind {
	const char	*ck_name;
	ckside_t	ck_side;
	int		ck_pfamily;	/* pread or pwrite family */
} callkinds[] = {
	{ "pread", CK_READ, 1 }, { "pread64", CK_READ, 1 },
	{ "__pread_chk", CK_READ, 1 }, { "__pread64_chk", CK_READ, 1 },
	{ "preadv", CK_READ, 1 }, { "preadv64", CK_READ, 1 },
	{ "preadv2", CK_READ, 1 }, { "preadv64v2", CK_READ, 1 },
	{ "read", CK_READ, 0 }, { "__read_chk", CK_READ, 0 },
	{ "readv", CK_READ, 0 }, { "process_vm_readv", CK_READ, 0 },
	{ "ptrace:PEEKTEXT", CK_READ, 0 }, { "ptrace:PEEKDATA", CK_READ, 0 },
	{ "ptrace:PEEKUSER", CK_READ, 0 },
	{ "pwrite", CK_WRITE, 1 }, { "pwrite64", CK_WRITE, 1 },
	{ "pwritev", CK_WRITE, 1 }, { "pwritev64", CK_WRITE, 1 },
	{ "pwritev2", CK_WRITE, 1 }, { "pwritev64v2", CK_WRITE, 1 },
	{ "write", CK_WRITE, 0 }, { "writev", CK_WRITE, 0 },
	{ "process_vm_writev", CK_WRITE, 0 },
	{ "ptrace:POKETEXT", CK_WRITE, 0 }, { "ptrace:POKEDATA", CK_WRITE, 0 },
	{ "ptrace:POKEUSER", CK_WRITE, 0 },
	{ "send", CK_NL_SEND, 0 }, { "sendto", CK_NL_SEND, 0 },
	{ "sendmsg", CK_NL_SEND, 0 },
	{ "recv", CK_NL_RECV, 0 }, { "__recv_chk", CK_NL_RECV, 0 },
	{ "recvfrom", CK_NL_RECV, 0 }, { "__recvfrom_chk", CK_NL_RECV, 0 },
	{ "recvmsg", CK_NL_RECV, 0 },
};

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

static const budget_t budget_pidfd = { "--via=pidfd", {
	[BC_MEM_R] = { BL_ZERO, 0, 0 },
	[BC_MEM_W] = { BL_ZERO, 0, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 1, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
} };

static const budget_t budget_agent = { "--via=agent", {
	[BC_MEM_R] = { BL_PER_SOCKET, 1, 0 },
	[BC_MEM_PREAD] = { BL_PER_SOCKET, 1, 0 },
	[BC_MEM_W] = { BL_PER_SOCKET, 1, 0 },
	[BC_MEM_PWRITE] = { BL_PER_SOCKET, 1, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 1, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
} };

static const budget_t budget_diag = { "--via=diag", {
	[BC_MEM_R] = { BL_ZERO, 0, 0 },
	[BC_MEM_W] = { BL_ZERO, 0, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 1, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_NL_SENT] = { BL_BOUNDED, DIAG_DUMPS_MAX, 1 },
} };

static const budget_t budget_bpf = { "--via=bpf", {
	[BC_MEM_R] = { BL_ZERO, 0, 0 },
	[BC_MEM_W] = { BL_ZERO, 0, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 0, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_NL_SENT] = { BL_ZERO, 0, 0 },
} };

/*
 * Classifying what the counter wrote.
 */

typedef enum pathkind {
	PK_MEM, PK_FDINFO, PK_TPROC, PK_OPROC, PK_OTHER
} pathkind_t;

static const struct callkind *
callkind(const char *name)
{
	for (size_t i = 0; i < sizeof (callkinds) / sizeof (callkinds[0]); i++)
		if (strcmp(callkinds[i].ck_name, name) == 0)
			return (&callkinds[i]);
	return (NULL);
}

static int
is_target_id(const btarget_t *tg, long id)
{
	for (size_t i = 0; i < tg->bt_n; i++)
		if (tg->bt_ids[i] == id)
			return (1);
	return (0);
}

/* A decimal id at *pp (digits only), and *pp moved past it; -1 if none. */
static long
take_id(const char **pp)
{
	const char *p = *pp;
	long id = 0;

	if (*p < '0' || *p > '9')
		return (-1);
	for (; *p >= '0' && *p <= '9'; p++) {
		if (id > 100000000)
			return (-1);
		id = id * 10 + (*p - '0');
	}
	*pp = p;
	return (id);
}

static pathkind_t
classify_path(const char *path, const btarget_t *tg)
{
	const char *p;
	long id;

	if (strncmp(path, "pid:", 4) == 0)
		return (PK_MEM);
	if (strncmp(path, "/proc/", 6) != 0)
		return (PK_OTHER);
	p = path + 6;
	if ((id = take_id(&p)) < 0 || !is_target_id(tg, id) ||
	    (*p != '/' && *p != '\0'))
		return (PK_OPROC);
	if (*p == '/')
		p++;
	if (strncmp(p, "task/", 5) == 0) {
		const char *q = p + 5;

		if (take_id(&q) >= 0 && *q == '/')
			p = q + 1;
	}
	if (strcmp(p, "mem") == 0)
		return (PK_MEM);
	if (strncmp(p, "fdinfo/", 7) == 0)
		return (PK_FDINFO);
	return (PK_TPROC);
}

/*
 * The size of the file at PATH now, read whole (at most SIZE_MAX_READ
 * bytes); -1 when it cannot be read.  The test reads it itself, uncounted.
 */
static long
size_now(const char *path)
{
	char buf[65536];
	long size = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	while ((n = read(fd, buf, sizeof (buf))) > 0 && size < SIZE_MAX_READ)
		size += n;
	(void) close(fd);
	return (n < 0 || size >= SIZE_MAX_READ ? -1 : size);
}

/*
 * The one-pass pages of a (call, path) pair (see the top): when the file
 * can still be read (SIZES) and the pair's bytes are no more than one
 * pass over it (half again its size now, for files that change a little),
 * the calls beyond the first that its 4 KiB pages explain.  A file read
 * more than once, or no longer there, has none.
 */
static uint64_t
one_pass_pages(const struct pcount_rec *r, int sizes)
{
	uint64_t pages = r->pr_bytes / PAGE;
	long size;

	if (!sizes || r->pr_calls < 2 || pages == 0)
		return (0);
	if ((size = size_now(r->pr_path)) <= 0 ||
	    r->pr_bytes > (uint64_t)size + (uint64_t)size / 2)
		return (0);
	return (pages < r->pr_calls - 1 ? pages : r->pr_calls - 1);
}

static void
add_to(bmeasure_t *m, bclass_t c, uint64_t calls, uint64_t pages)
{
	m->bm_class[c].bc_calls += calls;
	m->bm_class[c].bc_pages += pages;
}

/*
 * Sort the counter's pairs in T into classes.  SIZES: the target is still
 * there, so the sizes of its /proc files can be read (see one_pass_pages).
 */
static int
measure(const struct pcount_tab *t, const btarget_t *tg, long sockets,
    int sizes, bmeasure_t *m, char *err, size_t errlen)
{
	(void) memset(m, 0, sizeof (*m));
	m->bm_sockets = sockets;
	for (size_t i = 0; i < t->pt_n; i++) {
		const struct pcount_rec *r = &t->pt_recs[i];
		const struct callkind *ck = callkind(r->pr_call);
		pathkind_t pk;

		if (ck == NULL) {
			(void) snprintf(err, errlen, "the counter names a call "
			    "t_budget does not know: \"%s\" (on %s); add it to "
			    "callkinds[]", r->pr_call, r->pr_path);
			return (-1);
		}
		if (strcmp(r->pr_path, "(overflow)") == 0) {
			(void) snprintf(err, errlen, "the counter's tables "
			    "overflowed (%" PRIu64 " %s calls on no path): "
			    "they cannot be classified", r->pr_calls,
			    r->pr_call);
			return (-1);
		}
		if (ck->ck_side == CK_NL_SEND || ck->ck_side == CK_NL_RECV) {
			/* The counter counts these on netlink sockets only. */
			if (strncmp(r->pr_path, "netlink:", 8) != 0) {
				(void) snprintf(err, errlen, "the counter "
				    "names %s on %s, not a netlink socket",
				    r->pr_call, r->pr_path);
				return (-1);
			}
			add_to(m, ck->ck_side == CK_NL_SEND ? BC_NL_SENT :
			    BC_NL_RECV, r->pr_calls, 0);
			continue;
		}
		pk = classify_path(r->pr_path, tg);
		if (pk == PK_MEM) {
			int onfile = strncmp(r->pr_path, "pid:", 4) != 0;
			int w = ck->ck_side == CK_WRITE;

			add_to(m, w ? BC_MEM_W : BC_MEM_R, r->pr_calls, 0);
			if (ck->ck_pfamily && onfile)
				add_to(m, w ? BC_MEM_PWRITE : BC_MEM_PREAD,
				    r->pr_calls, 0);
		} else if (ck->ck_side == CK_WRITE) {
			add_to(m, BC_OTHER_W, r->pr_calls, 0);
		} else {
			bclass_t c = pk == PK_FDINFO ? BC_FDINFO :
			    pk == PK_TPROC ? BC_TPROC :
			    pk == PK_OPROC ? BC_OPROC : BC_OTHER_R;

			add_to(m, c, r->pr_calls, (c == BC_FDINFO ||
			    c == BC_TPROC) ? one_pass_pages(r, sizes) : 0);
		}
	}
	return (0);
}

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

static void
row_numbers(const btable_t *bt, const bcount_t *lo, const bcount_t *hi,
    brow_t *r)
{
	long added = bt->bt_at[1].bm_sockets - bt->bt_at[0].bm_sockets;
	int64_t delta = (int64_t)hi->bc_calls - (int64_t)lo->bc_calls;
	uint64_t grown = hi->bc_pages > lo->bc_pages ?
	    hi->bc_pages - lo->bc_pages : 0;

	/* Growth in pages excuses growth in calls, and nothing more. */
	if (delta <= 0)
		grown = 0;
	else if (grown > (uint64_t)delta)
		grown = (uint64_t)delta;
	r->br_lo = lo->bc_calls;
	r->br_hi = hi->bc_calls;
	r->br_grown = grown;
	r->br_charged = delta - (int64_t)grown;
	r->br_slope = added > 0 ? (double)r->br_charged / (double)added : 0;
	r->br_fixed = (double)lo->bc_calls -
	    r->br_slope * (double)bt->bt_at[0].bm_sockets;
}

static void
class_row(const btable_t *bt, bclass_t c, brow_t *r)
{
	row_numbers(bt, &bt->bt_at[0].bm_class[c], &bt->bt_at[1].bm_class[c],
	    r);
}

/* All reads of the target: memory, fdinfo and the other /proc/T files. */
static void
target_row(const btable_t *bt, brow_t *r)
{
	static const bclass_t cls[] = { BC_MEM_R, BC_FDINFO, BC_TPROC };
	bcount_t lo = { 0, 0 }, hi = { 0, 0 };

	for (size_t i = 0; i < sizeof (cls) / sizeof (cls[0]); i++) {
		lo.bc_calls += bt->bt_at[0].bm_class[cls[i]].bc_calls;
		lo.bc_pages += bt->bt_at[0].bm_class[cls[i]].bc_pages;
		hi.bc_calls += bt->bt_at[1].bm_class[cls[i]].bc_calls;
		hi.bc_pages += bt->bt_at[1].bm_class[cls[i]].bc_pages;
	}
	row_numbers(bt, &lo, &hi, r);
}

static const char *
limit_text(const blimit_t *bl, char *buf, size_t len)
{
	switch (bl->bl_kind) {
	case BL_ZERO:
		return ("none at all");
	case BL_PER_SOCKET:
		if (bl->bl_max == 0)
			return ("constant");
		(void) snprintf(buf, len, "<= %u per socket", bl->bl_max);
		return (buf);
	case BL_BOUNDED:
		(void) snprintf(buf, len, "constant, %u..%u", bl->bl_min,
		    bl->bl_max);
		return (buf);
	case BL_NONE:
		break;
	}
	return ("-");
}

/* Is the row within its limit? */
static int
within(const blimit_t *bl, const brow_t *r, long added)
{
	switch (bl->bl_kind) {
	case BL_ZERO:
		return (r->br_lo == 0 && r->br_hi == 0);
	case BL_PER_SOCKET:
		return (r->br_charged <= (int64_t)bl->bl_max * added);
	case BL_BOUNDED:
		return (r->br_charged <= 0 && r->br_lo >= bl->bl_min &&
		    r->br_hi >= bl->bl_min && r->br_lo <= bl->bl_max &&
		    r->br_hi <= bl->bl_max);
	case BL_NONE:
		break;
	}
	return (1);
}

/* Append to msg at *off, bounded; a full buffer ends in "...". */
static void
msg_add(char *msg, size_t msglen, size_t *off, const char *fmt, ...)
    __attribute__((__format__(__printf__, 4, 5)));
static void
msg_add(char *msg, size_t msglen, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= msglen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg + *off, msglen - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= msglen - *off) {
		*off = msglen - 1;
		if (msglen > 4)
			(void) memcpy(msg + msglen - 4, "...", 4);
	} else {
		*off += (size_t)n;
	}
}

static const char *
trim(const char *name)
{
	while (*name == ' ')
		name++;
	return (name);
}

/*
 * The verdict on a table: 0 when every budgeted class is within its
 * budget; 1 when some are not, each named in MSG with its numbers; -1
 * when the table cannot be judged (the message says why).
 */
static int
budget_check(const btable_t *bt, char *msg, size_t msglen)
{
	long lo = bt->bt_at[0].bm_sockets, hi = bt->bt_at[1].bm_sockets;
	size_t off = 0;
	int over = 0;

	msg[0] = '\0';
	if (lo <= 0 || hi <= lo) {
		msg_add(msg, msglen, &off, "%s: cannot judge: %ld sockets, "
		    "then %ld", bt->bt_title, lo, hi);
		return (-1);
	}
	for (int c = 0; c < BC_NCLASS; c++) {
		const blimit_t *bl = &bt->bt_budget->b_lim[c];
		char lim[32];
		brow_t r;

		class_row(bt, (bclass_t)c, &r);
		if (within(bl, &r, hi - lo))
			continue;
		msg_add(msg, msglen, &off, "%s%s: %s: %.2f per socket "
		    "(%" PRIu64 " calls at %ld sockets, %" PRIu64 " at %ld",
		    over ? "; " : "", bt->bt_budget->b_name,
		    trim(bclass_info[c].bi_name), r.br_slope, r.br_lo, lo,
		    r.br_hi, hi);
		if (r.br_grown > 0)
			msg_add(msg, msglen, &off, ", %" PRIu64 " of the "
			    "added calls not charged: files that grew",
			    r.br_grown);
		msg_add(msg, msglen, &off, "), budget: %s",
		    limit_text(bl, lim, sizeof (lim)));
		over = 1;
	}
	return (over);
}

static void
print_row(FILE *fp, const char *name, const brow_t *r, const char *lim,
    const char *verdict, int seed)
{
	char seedtext[16];

	if (seed >= 0)
		(void) snprintf(seedtext, sizeof (seedtext), "%d", seed);
	else
		(void) snprintf(seedtext, sizeof (seedtext), "-");
	(void) fprintf(fp, "%-34s %8" PRIu64 " %8" PRIu64 " %10.2f %8.1f "
	    "%7" PRIu64 "  %-17s %-8s %5s\n", name, r->br_lo, r->br_hi,
	    r->br_slope, r->br_fixed, r->br_grown, lim, verdict, seedtext);
}

/* The table, for kyua report --verbose. */
static void
budget_print(const btable_t *bt, FILE *fp)
{
	long lo = bt->bt_at[0].bm_sockets, hi = bt->bt_at[1].bm_sockets;
	char col_lo[16], col_hi[16];
	brow_t r;

	(void) snprintf(col_lo, sizeof (col_lo), "at %ld", lo);
	(void) snprintf(col_hi, sizeof (col_hi), "at %ld", hi);
	(void) fprintf(fp, "\n%s\nbudget %s; calls at %ld and %ld sockets "
	    "(%ld added)\n\n", bt->bt_title, bt->bt_budget->b_name, lo, hi,
	    hi - lo);
	(void) fprintf(fp, "%-34s %8s %8s %10s %8s %7s  %-17s %-8s %5s\n",
	    "class", col_lo, col_hi, "per socket", "fixed", "grown", "budget",
	    "verdict", "seed");
	for (int c = 0; c < BC_NCLASS; c++) {
		const blimit_t *bl = &bt->bt_budget->b_lim[c];
		char lim[32];

		class_row(bt, (bclass_t)c, &r);
		print_row(fp, bclass_info[c].bi_name, &r,
		    limit_text(bl, lim, sizeof (lim)),
		    bl->bl_kind == BL_NONE ? "" :
		    within(bl, &r, hi - lo) ? "ok" : "OVER",
		    bclass_info[c].bi_seed);
	}
	target_row(bt, &r);
	print_row(fp, "all reads of the target", &r, "-", "", SEED_TOTAL);
	(void) fprintf(fp, "\nper socket = (calls %s - calls %s - grown) / "
	    "%ld; fixed = calls %s - %ld x per socket.\ngrown: added calls "
	    "of files read whole in one pass that grew (4 KiB a call).\n"
	    "seed: pfiles on illumos, per socket (dtrace): 230 preads of "
	    "/proc/PID/as + 50 of lwpstatus = 280.\n\n", col_hi, col_lo,
	    hi - lo, col_lo, lo);
	(void) fflush(fp);
}

/*
 * Running pfiles on node, and seedlike, under the counter.
 */

typedef struct node {
	tu_child_t	nd_child;
	int		nd_conn;
} node_t;

static long
sockets_of(int nconn)
{
	return (1 + 2L * nconn);
}

static void
node_spawn(node_t *nd, int nconn)
{
	char count[16];
	const char *const argv[] = { "node", TU_SOCKETS_JS, count,
	    NODE_SECONDS, NULL };

	(void) snprintf(count, sizeof (count), "%d", nconn);
	nd->nd_conn = nconn;
	tu_spawn(&nd->nd_child, argv, 0);
}

/* Wait for node's two lines: every connection is up on both sides. */
static void
node_ready(node_t *nd)
{
	char *line, *want;

	if ((line = tu_read_line(nd->nd_child.tc_out, TU_TIMEOUT_MS)) ==
	    NULL)
		atf_tc_fail("node with %d connections exited before reporting "
		    "its sockets (wait status 0x%x; see stderr)", nd->nd_conn,
		    (unsigned)tu_stop(&nd->nd_child, 0));
	want = tu_asprintf("opened %d sockets, pid = %d", nd->nd_conn,
	    (int)nd->nd_child.tc_pid);
	tu_require_same_str("node-first-line", want, line);
	free(want);
	free(line);
	if ((line = tu_read_line(nd->nd_child.tc_out, TU_TIMEOUT_MS)) == NULL)
		atf_tc_fail("node wrote no report line");
	free(line);
}

static void
node_stop(node_t *nd)
{
	char state = tu_proc_state(nd->nd_child.tc_pid);
	int status;

	ATF_CHECK_MSG(state != 0 && state != 'T' && state != 't' &&
	    state != 'Z', "node (%d connections) after pfiles: state '%c'",
	    nd->nd_conn, state != 0 ? state : '-');
	status = tu_stop(&nd->nd_child, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "node (%d connections) ended with wait status 0x%x",
	    nd->nd_conn, (unsigned)status);
}

/* The target's pid and the ids of its threads now. */
static void
target_ids(pid_t pid, btarget_t *tg)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	tg->bt_n = 0;
	tg->bt_ids[tg->bt_n++] = (long)pid;
	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		atf_tc_fail("%s: %s", path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name;
		long id = take_id(&p);

		if (id < 0 || *p != '\0' || id == (long)pid)
			continue;
		if (tg->bt_n == TIDS_MAX)
			atf_tc_fail("%s: more than %d threads", path,
			    TIDS_MAX);
		tg->bt_ids[tg->bt_n++] = id;
	}
	(void) closedir(d);
}

/* The S_IFSOCK stat lines ("%4d: S_IFSOCK ...") of pfiles' output. */
static long
count_sockets(const char *text)
{
	long n = 0;

	for (const char *line = text; *line != '\0';) {
		const char *p = line, *nl = strchr(line, '\n');

		while (*p == ' ')
			p++;
		if (take_id(&p) >= 0 && strncmp(p, ": S_IFSOCK ", 11) == 0)
			n++;
		if (nl == NULL)
			break;
		line = nl + 1;
	}
	return (n);
}

/* Run ARGV under the counter into OUT (stdout into STDOUT_FILE); load it. */
static void
counted_run(char *const argv[], const char *what, const char *out,
    const char *stdout_file, struct pcount_tab *t)
{
	char err[512];
	int status;

	if (unlink(out) != 0 && errno != ENOENT)
		atf_tc_fail("unlink %s: %s", out, strerror(errno));
	if (pcount_run(argv, out, stdout_file, PFILES_SECONDS, &status, err,
	    sizeof (err)) != 0)
		atf_tc_fail("%s under the counter: %s", what, err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		atf_tc_fail("%s: wait status 0x%x, expected exit 0 (its "
		    "stderr is above)", what, (unsigned)status);
	if (pcount_load(out, t, err, sizeof (err)) != 0)
		atf_tc_fail("%s: counter output: %s", what, err);
}

/* pfiles --via=VIA on node ND under the counter, measured into M. */
static void
measure_pfiles(const char *via, const node_t *nd, bmeasure_t *m)
{
	char pfiles[] = TU_PFILES, viaarg[32], pidstr[16], out[64], so[64];
	char *const argv[] = { pfiles, viaarg, pidstr, NULL };
	char err[512], *text, *what;
	long want = sockets_of(nd->nd_conn), got;
	struct pcount_tab t;
	btarget_t tg;

	(void) snprintf(viaarg, sizeof (viaarg), "--via=%s", via);
	(void) snprintf(pidstr, sizeof (pidstr), "%d",
	    (int)nd->nd_child.tc_pid);
	(void) snprintf(out, sizeof (out), "pcount-%s-%d.out", via,
	    nd->nd_conn);
	(void) snprintf(so, sizeof (so), "pfiles-%s-%d.out", via,
	    nd->nd_conn);
	what = tu_asprintf("pfiles %s %s (node, %d connections)", viaarg,
	    pidstr, nd->nd_conn);

	counted_run(argv, what, out, so, &t);
	text = tu_read_file(so, NULL);
	got = count_sockets(text);
	free(text);
	if (got != want)
		atf_tc_fail("%s showed %ld S_IFSOCK fds, expected %ld (see %s)",
		    what, got, want, so);
	target_ids(nd->nd_child.tc_pid, &tg);
	if (measure(&t, &tg, want, 1, m, err, sizeof (err)) != 0)
		atf_tc_fail("%s: %s", what, err);
	pcount_free(&t);
	free(what);
}

/* The budget case of one --via: two nodes, two counted runs, a verdict. */
static void
budget_case(const char *via, const budget_t *budget)
{
	btable_t bt;
	node_t nd[2];
	char msg[MSG_MAX], title[160];
	int verdict;

	node_spawn(&nd[0], NCONN);
	node_spawn(&nd[1], 4 * NCONN);
	node_ready(&nd[0]);
	node_ready(&nd[1]);
	(void) snprintf(title, sizeof (title), "pfiles --via=%s under "
	    "libpreadcount.so, node sockets.js with %d and %d connections",
	    via, NCONN, 4 * NCONN);
	bt.bt_title = title;
	bt.bt_budget = budget;
	for (int i = 0; i < 2; i++)
		measure_pfiles(via, &nd[i], &bt.bt_at[i]);
	node_stop(&nd[0]);
	node_stop(&nd[1]);

	budget_print(&bt, stdout);
	verdict = budget_check(&bt, msg, sizeof (msg));
	if (verdict != 0) {
		(void) fprintf(stderr, "%s\n", msg);
		atf_tc_fail("%s", msg);
	}
}

/* seedlike OPTS NSOCK under the counter, measured into M. */
static void
measure_seedlike(const char *aopt, const char *lopt, const char *fopt,
    long nsock, bmeasure_t *m)
{
	char prog[] = SEEDLIKE, a[] = "-a", l[] = "-l", f[] = "-f";
	char av[16], lv[16], fv[16], nv[16], out[96], so[96], err[512];
	char *const argv[] = { prog, a, av, l, lv, f, fv, nv, NULL };
	char *text, *what;
	struct pcount_tab t;
	btarget_t tg;
	long pid;

	(void) snprintf(av, sizeof (av), "%s", aopt);
	(void) snprintf(lv, sizeof (lv), "%s", lopt);
	(void) snprintf(fv, sizeof (fv), "%s", fopt);
	(void) snprintf(nv, sizeof (nv), "%ld", nsock);
	(void) snprintf(out, sizeof (out), "pcount-seedlike-%s-%s-%s-%ld.out",
	    aopt, lopt, fopt, nsock);
	(void) snprintf(so, sizeof (so), "seedlike-%s-%s-%s-%ld.out", aopt,
	    lopt, fopt, nsock);
	what = tu_asprintf("seedlike -a %s -l %s -f %s %ld", aopt, lopt, fopt,
	    nsock);

	counted_run(argv, what, out, so, &t);
	text = tu_read_file(so, NULL);
	if (sscanf(text, "seedlike pid = %ld\n", &pid) != 1 || pid <= 0)
		atf_tc_fail("%s: no pid line: %s", what, text);
	free(text);
	/* Its target is itself, single-threaded. */
	tg.bt_n = 1;
	tg.bt_ids[0] = pid;
	if (measure(&t, &tg, nsock, 0, m, err, sizeof (err)) != 0)
		atf_tc_fail("%s: %s", what, err);
	pcount_free(&t);
	free(what);
}

/* seedlike at the node fixture's two socket counts, into BT. */
static void
seedlike_table(btable_t *bt, const char *aopt, const char *lopt,
    const char *fopt)
{
	measure_seedlike(aopt, lopt, fopt, sockets_of(NCONN), &bt->bt_at[0]);
	measure_seedlike(aopt, lopt, fopt, sockets_of(4 * NCONN),
	    &bt->bt_at[1]);
}

/* Judge BT under BUDGET; print the table; return the verdict. */
static int
judge(btable_t *bt, const budget_t *budget, char *msg, size_t msglen)
{
	int verdict;

	bt->bt_budget = budget;
	budget_print(bt, stdout);
	verdict = budget_check(bt, msg, msglen);
	(void) printf("verdict %d: %s\n", verdict, verdict == 0 ?
	    "within budget" : msg);
	(void) fflush(stdout);
	return (verdict);
}

/*
 * The message must hold the clause of CLASS (for BUDGET), and that
 * clause must say PER_SOCKET ("230.00 per socket").
 */
static void
require_clause(const char *msg, const budget_t *budget, bclass_t c,
    const char *per_socket)
{
	char *head = tu_asprintf("%s: %s: %s", budget->b_name,
	    trim(bclass_info[c].bi_name), per_socket);

	ATF_CHECK_MSG(strstr(msg, head) != NULL, "the checker's message "
	    "does not say \"%s\": %s", head, msg);
	free(head);
}

/* The clause of CLASS must not be in the message. */
static void
require_no_clause(const char *msg, const budget_t *budget, bclass_t c)
{
	char *head = tu_asprintf("%s: %s:", budget->b_name,
	    trim(bclass_info[c].bi_name));

	ATF_CHECK_MSG(strstr(msg, head) == NULL, "the checker blames \"%s\" "
	    "wrongly: %s", head, msg);
	free(head);
}

ATF_TC(pidfd);
ATF_TC_HEAD(pidfd, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=pidfd on node at N and "
	    "4N connections: no read or write of the target's memory, at "
	    "most one fdinfo read per socket, other /proc reads constant");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(pidfd, tc)
{
	budget_case("pidfd", &budget_pidfd);
}

ATF_TC(agent);
ATF_TC_HEAD(agent, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=agent on node at N and "
	    "4N connections: at most one pread and one pwrite of "
	    "/proc/PID/mem per socket, at most one fdinfo read per socket, "
	    "other /proc reads constant");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(agent, tc)
{
	budget_case("agent", &budget_agent);
}

ATF_TC(diag);
ATF_TC_HEAD(diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag on node at N and "
	    "4N connections: no read or write of the target's memory, no "
	    "netlink message sent per socket and 1 to 16 per process (one "
	    "per dump), at most one fdinfo read per socket, other /proc "
	    "reads constant");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(diag, tc)
{
	budget_case("diag", &budget_diag);
}

ATF_TC(bpf);
ATF_TC_HEAD(bpf, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=bpf on node at N and "
	    "4N connections: no read or write of the target's memory, and "
	    "no call per socket: no fdinfo read, other /proc reads "
	    "constant, no netlink message (skipped where bpf cannot "
	    "serve)");
	atf_tc_set_md_var(tc, "require.user", "root");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(bpf, tc)
{
	tu_require_bpf();
	budget_case("bpf", &budget_bpf);
}

ATF_TC(seedlike_caught);
ATF_TC_HEAD(seedlike_caught, tc)
{
	atf_tc_set_md_var(tc, "descr", "the budget checker catches the "
	    "seed's pattern (230 preads of /proc/self/mem and 50 of "
	    "/proc/self/task/TID/status per socket) under every budget, "
	    "naming the classes and their numbers");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(seedlike_caught, tc)
{
	btable_t bt;
	char msg[MSG_MAX];

	bt.bt_title = "seedlike -a 230 -l 50 -f 0: the seed's pfiles, "
	    "per socket";
	seedlike_table(&bt, "230", "50", "0");

	ATF_REQUIRE_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget: the seed's pattern passed: %s", msg);
	require_clause(msg, &budget_pidfd, BC_MEM_R, "230.00 per socket");
	require_clause(msg, &budget_pidfd, BC_TPROC, "50.00 per socket");
	require_no_clause(msg, &budget_pidfd, BC_FDINFO);

	ATF_REQUIRE_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 1,
	    "agent budget: the seed's pattern passed: %s", msg);
	require_clause(msg, &budget_agent, BC_MEM_R, "230.00 per socket");
	require_clause(msg, &budget_agent, BC_MEM_PREAD, "230.00 per socket");
	require_clause(msg, &budget_agent, BC_TPROC, "50.00 per socket");
	require_no_clause(msg, &budget_agent, BC_MEM_W);

	ATF_REQUIRE_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 1,
	    "diag budget: the seed's pattern passed: %s", msg);
	require_clause(msg, &budget_diag, BC_MEM_R, "230.00 per socket");
}

ATF_TC(checker_bounds);
ATF_TC_HEAD(checker_bounds, tc)
{
	atf_tc_set_md_var(tc, "descr", "the budget checker passes counts at "
	    "the budget and fails those one read per socket over it");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(checker_bounds, tc)
{
	btable_t bt;
	char msg[MSG_MAX];

	/* One fdinfo read per socket and nothing else: pidfd's budget. */
	bt.bt_title = "seedlike -a 0 -l 0 -f 1: one fdinfo read per socket";
	seedlike_table(&bt, "0", "0", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "pidfd budget: %s", msg);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 0,
	    "agent budget: %s", msg);

	/* One pread of its memory per socket: the agent's, not pidfd's. */
	bt.bt_title = "seedlike -a 1 -l 0 -f 1: one memory pread per socket";
	seedlike_table(&bt, "1", "0", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 0,
	    "agent budget: %s", msg);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget let a memory read per socket pass");
	require_clause(msg, &budget_pidfd, BC_MEM_R, "1.00 per socket");

	/* Two preads of memory per socket: over the agent's budget. */
	bt.bt_title = "seedlike -a 2 -l 0 -f 1: two memory preads per socket";
	seedlike_table(&bt, "2", "0", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 1,
	    "agent budget let two memory preads per socket pass");
	require_clause(msg, &budget_agent, BC_MEM_PREAD, "2.00 per socket");

	/* The fdinfo file twice per socket. */
	bt.bt_title = "seedlike -a 0 -l 0 -f 2: two fdinfo reads per socket";
	seedlike_table(&bt, "0", "0", "2");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget let two fdinfo reads per socket pass");
	require_clause(msg, &budget_pidfd, BC_FDINFO, "2.00 per socket");

	/* One more /proc/self file per socket. */
	bt.bt_title = "seedlike -a 0 -l 1 -f 1: one status read per socket";
	seedlike_table(&bt, "0", "1", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget let a status read per socket pass");
	require_clause(msg, &budget_pidfd, BC_TPROC, "1.00 per socket");
	require_no_clause(msg, &budget_pidfd, BC_FDINFO);
}

ATF_TC(classify);
ATF_TC_HEAD(classify, tc)
{
	atf_tc_set_md_var(tc, "descr", "the counter's paths sort into the "
	    "right classes: the target's memory, fdinfo and other /proc "
	    "files, threads included; other pids' /proc is not the target's");
}
ATF_TC_BODY(classify, tc)
{
	static const struct {
		const char	*path;
		pathkind_t	kind;
	} cases[] = {
		{ "pid:100", PK_MEM }, { "pid:7", PK_MEM },
		{ "/proc/100/mem", PK_MEM }, { "/proc/105/mem", PK_MEM },
		{ "/proc/100/task/105/mem", PK_MEM },
		{ "/proc/100/fdinfo/3", PK_FDINFO },
		{ "/proc/100/task/100/fdinfo/3", PK_FDINFO },
		{ "/proc/100/status", PK_TPROC },
		{ "/proc/100/task/105/status", PK_TPROC },
		{ "/proc/100", PK_TPROC },
		{ "/proc/1000/mem", PK_OPROC }, { "/proc/10/fdinfo/3", PK_OPROC },
		{ "/proc/self/status", PK_OPROC }, { "/proc/100x/mem", PK_OPROC },
		{ "/proc/sys/kernel/pid_max", PK_OPROC },
		{ "/procfoo", PK_OTHER }, { "/usr/bin/node", PK_OTHER },
		{ "pipe:[1]", PK_OTHER }, { "fd:3", PK_OTHER },
	};
	btarget_t tg = { { 100, 105 }, 2 };

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
		ATF_CHECK_EQ_MSG(classify_path(cases[i].path, &tg),
		    cases[i].kind, "%s: kind %d, expected %d", cases[i].path,
		    (int)classify_path(cases[i].path, &tg), (int)cases[i].kind);
	ATF_CHECK_MSG(callkind("pread64") != NULL &&
	    callkind("ptrace:PEEKDATA") != NULL && callkind("pwritev2")->
	    ck_side == CK_WRITE && callkind("__read_chk")->ck_side ==
	    CK_READ && callkind("sendto")->ck_side == CK_NL_SEND &&
	    callkind("__recvfrom_chk")->ck_side == CK_NL_RECV &&
	    callkind("mmap") == NULL, "callkinds[]");
}

/* A table of one class, by hand: calls and one-pass pages at N and 4N. */
static void
hand_table(btable_t *bt, bclass_t c, uint64_t lo_calls, uint64_t lo_pages,
    uint64_t hi_calls, uint64_t hi_pages)
{
	(void) memset(bt, 0, sizeof (*bt));
	bt->bt_title = "by hand";
	bt->bt_at[0].bm_sockets = sockets_of(NCONN);
	bt->bt_at[1].bm_sockets = sockets_of(4 * NCONN);
	bt->bt_at[0].bm_class[c].bc_calls = lo_calls;
	bt->bt_at[0].bm_class[c].bc_pages = lo_pages;
	bt->bt_at[1].bm_class[c].bc_calls = hi_calls;
	bt->bt_at[1].bm_class[c].bc_pages = hi_pages;
}

ATF_TC(checker_grown);
ATF_TC_HEAD(checker_grown, tc)
{
	atf_tc_set_md_var(tc, "descr", "the checker on tables made by hand: "
	    "files that grew excuse their own added calls and no more; one "
	    "call over a budget fails; a table it cannot judge is refused");
}
ATF_TC_BODY(checker_grown, tc)
{
	btable_t bt;
	char msg[MSG_MAX];

	/* 150 sockets, 152 more fdinfo reads, 2 of them a file that grew. */
	hand_table(&bt, BC_FDINFO, 70, 1, 222, 3);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* One more, that no growth explains. */
	hand_table(&bt, BC_FDINFO, 70, 1, 223, 3);
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_pidfd, BC_FDINFO, "1.01 per socket");
	/* Pages that grew more than the calls excuse only the calls. */
	hand_table(&bt, BC_TPROC, 8, 0, 8, 500);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "%s", msg);
	hand_table(&bt, BC_TPROC, 8, 1, 9, 2);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* Constant means constant: one call more over 150 sockets. */
	hand_table(&bt, BC_TPROC, 8, 0, 9, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_pidfd, BC_TPROC, "0.01 per socket");
	/* No memory at all: one read, at N only, fails; pages excuse none. */
	hand_table(&bt, BC_MEM_R, 1, 0, 1, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_pidfd, BC_MEM_R, "0.00 per socket");
	/* Fewer calls at 4N than at N is within any per-socket budget. */
	hand_table(&bt, BC_MEM_PREAD, 60, 0, 50, 0);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* As many sockets at 4N as at N: no slope to judge. */
	hand_table(&bt, BC_FDINFO, 1, 0, 1, 0);
	bt.bt_at[1].bm_sockets = bt.bt_at[0].bm_sockets;
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), -1);
	ATF_CHECK_MSG(strstr(msg, "cannot judge") != NULL, "%s", msg);
}

ATF_TC(checker_netlink);
ATF_TC_HEAD(checker_netlink, tc)
{
	atf_tc_set_md_var(tc, "descr", "the diag budget on netlink messages "
	    "sent, by hand: the same few at N and 4N pass; one more at 4N, "
	    "one per socket, more than 16, or none at all fail; the counter's "
	    "netlink lines sort into their classes, and one not on a netlink "
	    "socket is refused");
}
ATF_TC_BODY(checker_netlink, tc)
{
	static char call_s[] = "sendto", call_r[] = "recvmsg";
	static char call_w[] = "sendmsg", nl4[] = "netlink:4";
	static char tcp[] = "socket:[77]";
	struct pcount_rec recs[3] = {
		{ call_s, nl4, 2, 152, 1 }, { call_r, nl4, 33, 967128, 1 },
		{ call_w, tcp, 1, 10, 1 },
	};
	struct pcount_tab t = { recs, 2, 3, 2, NULL, 0 };
	btarget_t tg = { { 100 }, 1 };
	bmeasure_t m;
	btable_t bt;
	char msg[MSG_MAX];

	/* Two dumps at either size: diag's budget, and no read of memory. */
	hand_table(&bt, BC_NL_SENT, 2, 0, 2, 0);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 0,
	    "%s", msg);
	hand_table(&bt, BC_NL_SENT, 16, 0, 16, 0);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* One more dump at 4N: not constant. */
	hand_table(&bt, BC_NL_SENT, 2, 0, 3, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "0.01 per socket");
	/* One message per socket. */
	hand_table(&bt, BC_NL_SENT, 51, 0, 201, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "1.00 per socket");
	/* Constant, but more than one per dump. */
	hand_table(&bt, BC_NL_SENT, 17, 0, 17, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "0.00 per socket");
	/* None at all: diag made no dump the counter saw. */
	hand_table(&bt, BC_NL_SENT, 0, 0, 0, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "0.00 per socket");
	/* Datagrams received are shown, not budgeted: they follow the netns. */
	hand_table(&bt, BC_NL_RECV, 30, 0, 500, 0);
	bt.bt_at[0].bm_class[BC_NL_SENT].bc_calls = 2;
	bt.bt_at[1].bm_class[BC_NL_SENT].bc_calls = 2;
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 0,
	    "%s", msg);

	/* The counter's lines: sent and received apart, nothing else. */
	ATF_REQUIRE_EQ_MSG(measure(&t, &tg, 51, 0, &m, msg, sizeof (msg)), 0,
	    "%s", msg);
	ATF_CHECK_EQ(m.bm_class[BC_NL_SENT].bc_calls, 2);
	ATF_CHECK_EQ(m.bm_class[BC_NL_RECV].bc_calls, 33);
	ATF_CHECK_EQ(m.bm_class[BC_OTHER_W].bc_calls, 0);
	ATF_CHECK_EQ(m.bm_class[BC_OTHER_R].bc_calls, 0);
	/* A send the counter says was not on a netlink socket. */
	t.pt_n = 3;
	ATF_CHECK_EQ(measure(&t, &tg, 51, 0, &m, msg, sizeof (msg)), -1);
	ATF_CHECK_MSG(strstr(msg, "not a netlink socket") != NULL, "%s", msg);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, pidfd);
	ATF_TP_ADD_TC(tp, agent);
	ATF_TP_ADD_TC(tp, diag);
	ATF_TP_ADD_TC(tp, bpf);
	ATF_TP_ADD_TC(tp, seedlike_caught);
	ATF_TP_ADD_TC(tp, checker_bounds);
	ATF_TP_ADD_TC(tp, checker_grown);
	ATF_TP_ADD_TC(tp, checker_netlink);
	ATF_TP_ADD_TC(tp, classify);
	return (atf_no_error());
}

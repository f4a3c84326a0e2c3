/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_load.c: the loader of the BPF task-file iterator (bpf_load.h).
 *
 * Built with HAVE_BPF when the build machine could build the program and
 * its light skeleton (bpf/Makefile.inc); without it, bpf_pfiles_open()
 * says so and fails.  The light skeleton loads the program through a
 * BPF_PROG_TYPE_SYSCALL loader and needs only bpf(2) at run time; the
 * iterator's link and fd are made here with bpf(2) too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <linux/types.h>

#include "src/bpf/bpf_load.h"
#include "src/bpf/pfiles_bpf.h"

int bpf_pfiles_verbose;

#define	ITER_READSZ	(32 * 1024)	/* the kernel's seq buffer is 8 pages */
#define	ITER_HEAD	PFB_RECSIZE_MAX	/* room before a read, for a cut record */

/*
 * The reads of an iterator: one read at a time into one buffer, whose
 * records are taken where they were read.  The program runs inside
 * read(2): the kernel fills its seq buffer (8 pages) with whole records
 * and a read takes them, so the records handed on are never more than
 * one buffer (some 58 sockets) behind the kernel's walk, and an fd
 * closed, or an exit, during the walk shows as soon as with the other
 * sources.  Where pages are bigger than 4 KiB, that buffer is bigger
 * than a read, and a read may end inside a record: what is left of it
 * is moved into the room before where the reads land (ITER_HEAD bytes,
 * one record at most), so that the next read's bytes follow it.
 *
 * The reads were once made ahead on a thread of their own, so that the
 * kernel's work overlapped the formatting: at 19,821 fds that took 0.77x
 * the wall time but 1.09x the CPU time (paired runs; the two threads'
 * work costs more when it runs at once than one after the other), and
 * the CPU time is what the bench's goal binds.
 */
typedef struct iter_reader {
	int		ir_fd;
	int		ir_eof;			/* read(2) returned 0 */
	size_t		ir_nleft;		/* bytes kept before a read's */
	uint8_t		ir_mem[ITER_HEAD + ITER_READSZ]; /* room, then a read */
} iter_reader_t;

/* The iterator fd's reads start. */
static void
iter_start(iter_reader_t *ir, int fd)
{
	ir->ir_fd = fd;
	ir->ir_eof = 0;
	ir->ir_nleft = 0;
}

/* The reads stop, whatever is left unread, and the fd is closed. */
static void
iter_stop(iter_reader_t *ir)
{
	(void) close(ir->ir_fd);
	ir->ir_fd = -1;
}

/*
 * The next bytes of the iterator, at *datap: the ir_nleft bytes kept of
 * the read before (iter_keep), then one more read's.  Returns how many
 * (0 at the end, the kept bytes untouched), or -1 with why set and the
 * reads stopped.
 */
static ssize_t
iter_next(iter_reader_t *ir, uint8_t **datap, char *why, size_t whysz)
{
	ssize_t n;
	int e;

	if (ir->ir_eof)
		return (0);
	while ((n = read(ir->ir_fd, ir->ir_mem + ITER_HEAD, ITER_READSZ)) < 0 &&
	    errno == EINTR)
		continue;
	if (n < 0) {
		e = errno;
		(void) snprintf(why, whysz, "BPF iterator read: %s",
		    strerror(e));
		iter_stop(ir);
		errno = e;
		return (-1);
	}
	if (n == 0) {
		ir->ir_eof = 1;
		return (0);
	}
	*datap = ir->ir_mem + ITER_HEAD - ir->ir_nleft;
	n += (ssize_t)ir->ir_nleft;
	ir->ir_nleft = 0;
	return (n);
}

/*
 * Keeps the n bytes at p, the end of what iter_next() gave and less than
 * one record, in front of the next read's bytes.
 */
static void
iter_keep(iter_reader_t *ir, const uint8_t *p, size_t n)
{
	memmove(ir->ir_mem + ITER_HEAD - n, p, n);
	ir->ir_nleft = n;
}

/*
 * What a walk does with the bytes at p (len of them, from a record's
 * start): takes the record there and returns its length; returns 0 when
 * len holds less than one record; or returns -1 with errno and why set
 * (a bad record), or with *stopp set to the callback's non-zero value.
 */
typedef ssize_t iter_take_f(const void *, const uint8_t *, size_t, int *,
    char *, size_t);

/*
 * The records of the stream fd, each to take in turn; fd is closed.
 * Returns 0, -1 with errno and why set, or take's stop value.  What is
 * left at a read's end is less than one record, so less than
 * PFB_RECSIZE_MAX (bpf/pfiles_bpf.h): it fits in front of the next
 * read's bytes.
 */
static int
iter_walk(iter_reader_t *ir, int fd, iter_take_f *take, const void *arg,
    char *why, size_t whysz)
{
	size_t held, off;
	ssize_t n, used;
	uint8_t *p;
	int stop = 0;

	iter_start(ir, fd);
	for (;;) {
		if ((n = iter_next(ir, &p, why, whysz)) < 0)
			return (-1);
		if (n == 0)
			break;
		held = (size_t)n;
		for (off = 0; off < held; off += (size_t)used) {
			if ((used = take(arg, p + off, held - off, &stop, why,
			    whysz)) < 0 || stop != 0) {
				int e = errno;

				iter_stop(ir);
				errno = e;
				return (stop != 0 ? stop : -1);
			}
			if (used == 0)
				break;
		}
		iter_keep(ir, p + off, held - off);
	}
	iter_stop(ir);
	if (ir->ir_nleft != 0) {
		(void) snprintf(why, whysz, "BPF record: cut short");
		errno = EPROTO;
		return (-1);
	}
	return (0);
}

static ssize_t
take_rec(const void *arg, const uint8_t *p, size_t len, int *stopp,
    char *why, size_t whysz)
{
	const bpf_pfiles_walk_t *rw = arg;
	bpfrec_t br;
	ssize_t used;

	if ((used = bpfrec_parse(p, len, &br)) <= 0) {
		if (used < 0) {
			(void) snprintf(why, whysz, "BPF record: %s",
			    br.br_err);
			errno = EPROTO;
		}
		return (used);
	}
	if (rw->bw_pid != 0 && br.br_tgid != rw->bw_pid) {
		(void) snprintf(why, whysz, "the kernel's task-file iterator "
		    "gave process %d's fds (no pid filter: 6.1 and later)",
		    (int)br.br_tgid);
		errno = ENOTSUP;
		return (-1);
	}
	*stopp = rw->bw_cb(rw->bw_arg, &br, p, (size_t)used);
	return (used);
}

/* The main program's records of the stream fd (bpf_load.h). */
static int
iter_records(iter_reader_t *ir, int fd, const bpf_pfiles_walk_t *w,
    char *why, size_t whysz)
{
	return (iter_walk(ir, fd, take_rec, w, why, whysz));
}

int
bpf_pfiles_read(int fd, pid_t pid, bpf_pfiles_rec_f *cb, void *arg,
    char *why, size_t whysz)
{
	iter_reader_t *ir;
	int r, e;

	if ((ir = malloc(sizeof (*ir))) == NULL) {
		e = errno;
		(void) close(fd);
		(void) snprintf(why, whysz, "%s", strerror(e));
		errno = e;
		return (-1);
	}
	r = iter_records(ir, fd, &(bpf_pfiles_walk_t){ pid, cb, arg }, why,
	    whysz);
	e = errno;
	free(ir);
	errno = e;
	return (r);
}

#ifndef	HAVE_BPF

bpf_pfiles_t *
bpf_pfiles_open(char *why, size_t whysz)
{
	(void) snprintf(why, whysz, "pfiles was built without BPF support");
	errno = ENOTSUP;
	return (NULL);
}

int
bpf_pfiles_iter(bpf_pfiles_t *bp, pid_t pid, bpf_pfiles_rec_f *cb, void *arg,
    char *why, size_t whysz)
{
	(void) snprintf(why, whysz, "pfiles was built without BPF support");
	errno = ENOTSUP;
	return (-1);
}

int
bpf_pfiles_sock_inodes(bpf_pfiles_t *bp, pid_t pid, bpf_pfiles_ino_f *cb,
    void *arg, char *why, size_t whysz)
{
	(void) snprintf(why, whysz, "built without BPF support");
	errno = ENOTSUP;
	return (-1);
}

int
bpf_pfiles_iter_all(bpf_pfiles_t *bp, bpf_pfiles_rec_f *cb, void *arg,
    char *why, size_t whysz)
{
	(void) snprintf(why, whysz, "pfiles was built without BPF support");
	errno = ENOTSUP;
	return (-1);
}

int
bpf_pfiles_replay(const void *buf, size_t len, const bpf_pfiles_walk_t *w,
    char *why, size_t whysz)
{
	(void) snprintf(why, whysz, "pfiles was built without BPF support");
	errno = ENOTSUP;
	return (-1);
}

unsigned int
bpf_pfiles_hz(const bpf_pfiles_t *bp)
{
	return (0);
}

void
bpf_pfiles_times(const bpf_pfiles_t *bp, bpf_pfiles_times_t *bt)
{
	(void) memset(bt, 0, sizeof (*bt));
}

void
bpf_pfiles_close(bpf_pfiles_t *bp)
{
}

#else	/* HAVE_BPF */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpointer-arith"
#include "pfiles.lskel.h"
#pragma GCC diagnostic pop

#define	LOG_SIZE	(4 * 1024 * 1024)

/* include/uapi/linux/capability.h of 5.8 and later */
#define	K_CAP_SYS_ADMIN	21
#define	K_CAP_PERFMON	38
#define	K_CAP_BPF	39

struct bpf_pfiles {
	struct pfiles	*bp_skel;
	int		bp_prog_fd;
	int		bp_ino_prog_fd;	/* pfiles_sock_inodes */
	unsigned int	bp_hz;
	bpf_pfiles_times_t bp_times;
	iter_reader_t	bp_reader;
};

static double
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

static int
have_cap(const struct __user_cap_data_struct *d, int cap)
{
	return ((d[cap / 32].effective >> (cap % 32)) & 1);
}

/* Root, or CAP_BPF and CAP_PERFMON (the program reads kernel memory). */
static int
check_privilege(char *why, size_t whysz)
{
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[2];

	(void) memset(&h, 0, sizeof (h));
	(void) memset(d, 0, sizeof (d));
	h.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &h, d) != 0) {
		(void) snprintf(why, whysz, "capget: %s", strerror(errno));
		return (-1);
	}
	if (have_cap(d, K_CAP_SYS_ADMIN) ||
	    (have_cap(d, K_CAP_BPF) && have_cap(d, K_CAP_PERFMON)))
		return (0);
	(void) snprintf(why, whysz, "permission denied (BPF needs root, or "
	    "CAP_BPF and CAP_PERFMON)");
	errno = EPERM;
	return (-1);
}

static int
check_btf(char *why, size_t whysz)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return (0);
	(void) snprintf(why, whysz, "the kernel has no BTF "
	    "(/sys/kernel/btf/vmlinux: %s)", strerror(errno));
	errno = ENOTSUP;
	return (-1);
}

/* Lockdown "confidentiality" forbids BPF reads of kernel memory. */
static int
check_lockdown(char *why, size_t whysz)
{
	char buf[128];
	ssize_t n;
	int fd;

	if ((fd = open("/sys/kernel/security/lockdown",
	    O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	n = read(fd, buf, sizeof (buf) - 1);
	(void) close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	if (strstr(buf, "[confidentiality]") == NULL)
		return (0);
	(void) snprintf(why, whysz, "kernel lockdown (confidentiality) "
	    "forbids BPF reads of kernel memory");
	errno = EPERM;
	return (-1);
}

static int
sys_bpf(int cmd, union bpf_attr *attr)
{
	return ((int)syscall(__NR_bpf, cmd, attr, sizeof (*attr)));
}

/* An iterator fd of program prog over the fds of pid (our pid ns). */
static int
iter_fd(int prog, pid_t pid, char *why, size_t whysz)
{
	union bpf_iter_link_info li;
	union bpf_attr attr;
	int lfd, ifd, e;

	(void) memset(&li, 0, sizeof (li));
	li.task.pid = (__u32)pid;
	(void) memset(&attr, 0, sizeof (attr));
	attr.link_create.prog_fd = (__u32)prog;
	attr.link_create.attach_type = BPF_TRACE_ITER;
	attr.link_create.iter_info = (__u64)(uintptr_t)&li;
	attr.link_create.iter_info_len = sizeof (li);
	if ((lfd = sys_bpf(BPF_LINK_CREATE, &attr)) < 0) {
		e = errno;
		if (e == E2BIG || e == EINVAL)
			(void) snprintf(why, whysz, "the kernel's task-file "
			    "iterator has no pid filter (6.1 and later): "
			    "link: %s", strerror(e));
		else
			(void) snprintf(why, whysz, "BPF link: %s",
			    strerror(e));
		errno = e;
		return (-1);
	}
	(void) memset(&attr, 0, sizeof (attr));
	attr.iter_create.link_fd = (__u32)lfd;
	ifd = sys_bpf(BPF_ITER_CREATE, &attr);
	e = errno;
	(void) close(lfd);	/* the iterator holds the link */
	if (ifd < 0) {
		(void) snprintf(why, whysz, "BPF iterator: %s", strerror(e));
		errno = e;
		return (-1);
	}
	return (ifd);
}

int
bpf_pfiles_iter(bpf_pfiles_t *bp, pid_t pid, bpf_pfiles_rec_f *cb, void *arg,
    char *why, size_t whysz)
{
	int fd;

	if ((fd = iter_fd(bp->bp_prog_fd, pid, why, whysz)) < 0)
		return (-1);
	return (iter_records(&bp->bp_reader, fd,
	    &(bpf_pfiles_walk_t){ pid, cb, arg }, why, whysz));
}

int
bpf_pfiles_iter_all(bpf_pfiles_t *bp, bpf_pfiles_rec_f *cb, void *arg,
    char *why, size_t whysz)
{
	int fd;

	if ((fd = iter_fd(bp->bp_prog_fd, 0, why, whysz)) < 0)
		return (-1);
	return (iter_records(&bp->bp_reader, fd,
	    &(bpf_pfiles_walk_t){ 0, cb, arg }, why, whysz));
}

int
bpf_pfiles_replay(const void *buf, size_t len, const bpf_pfiles_walk_t *w,
    char *why, size_t whysz)
{
	const uint8_t *p = buf;
	size_t off = 0;
	ssize_t used;
	int stop = 0;

	while (off < len) {
		if ((used = take_rec(w, p + off, len - off, &stop, why,
		    whysz)) < 0)
			return (-1);
		if (stop != 0)
			return (stop);
		if (used == 0) {
			(void) snprintf(why, whysz, "BPF record: cut short");
			errno = EPROTO;
			return (-1);
		}
		off += (size_t)used;
	}
	return (0);
}

/* A walk of the inode program's records: to whom. */
typedef struct ino_walk {
	bpf_pfiles_ino_f	*iw_cb;
	void			*iw_arg;
} ino_walk_t;

static ssize_t
take_ino(const void *arg, const uint8_t *p, size_t len, int *stopp,
    char *why, size_t whysz)
{
	const ino_walk_t *iw = arg;
	const char *bad;
	psockid_t si;

	if (len < BPFINO_SIZE)
		return (0);
	if (bpfino_parse(p, BPFINO_SIZE, &si, &bad) != 0) {
		(void) snprintf(why, whysz, "BPF record: %s", bad);
		errno = EPROTO;
		return (-1);
	}
	*stopp = iw->iw_cb(iw->iw_arg, &si);
	return (BPFINO_SIZE);
}

int
bpf_pfiles_sock_inodes(bpf_pfiles_t *bp, pid_t pid, bpf_pfiles_ino_f *cb,
    void *arg, char *why, size_t whysz)
{
	ino_walk_t iw = { cb, arg };
	int fd;

	if ((fd = iter_fd(bp->bp_ino_prog_fd, pid, why, whysz)) < 0)
		return (-1);
	return (iter_walk(&bp->bp_reader, fd, take_ino, &iw, why, whysz));
}

typedef struct probe {
	int	pr_fd;
	unsigned int pr_hz;
} probe_t;

static int
probe_rec(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	probe_t *p = arg;

	if (br->br_fd == p->pr_fd && (br->br_have & BPFREC_SOCK) &&
	    br->br_linger_on && br->br_lingertime <= UINT32_MAX)
		p->pr_hz = (unsigned int)br->br_lingertime;
	return (0);
}

/*
 * The walk of our own fds: proves the pid filter, and gives HZ from a
 * socket whose SO_LINGER is 1 second (sk_lingertime = 1 * HZ).
 */
static int
self_test(bpf_pfiles_t *bp, char *why, size_t whysz)
{
	struct linger l = { 1, 1 };
	probe_t p;
	int e, r;

	if ((p.pr_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		(void) snprintf(why, whysz, "socket: %s", strerror(errno));
		return (-1);
	}
	p.pr_hz = 0;
	if (setsockopt(p.pr_fd, SOL_SOCKET, SO_LINGER, &l, sizeof (l)) != 0) {
		e = errno;
		(void) close(p.pr_fd);
		(void) snprintf(why, whysz, "setsockopt: %s", strerror(e));
		errno = e;
		return (-1);
	}
	r = bpf_pfiles_iter(bp, getpid(), probe_rec, &p, why, whysz);
	e = errno;
	(void) close(p.pr_fd);
	if (r != 0) {
		errno = e;
		return (-1);
	}
	if (p.pr_hz == 0) {
		(void) snprintf(why, whysz, "the BPF iterator did not show "
		    "pfiles' own socket");
		errno = EPROTO;
		return (-1);
	}
	bp->bp_hz = p.pr_hz;
	return (0);
}

/*
 * How many instructions the verifier processed to accept program fd
 * (bpf_prog_info's verified_insns, Linux 5.16), on stderr.
 */
static void
say_verified(const char *name, int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	(void) memset(&info, 0, sizeof (info));
	(void) memset(&attr, 0, sizeof (attr));
	attr.info.bpf_fd = (__u32)fd;
	attr.info.info_len = sizeof (info);
	attr.info.info = (__u64)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) == 0)
		(void) fprintf(stderr, "%s: %u instructions processed by the "
		    "verifier\n", name, info.verified_insns);
}

/*
 * The words added to a load's failure on a kernel older than 6.1, the
 * oldest the program is written for (its helpers and the iterator's pid
 * filter; a distribution may have them in an older release, so the
 * version is not checked before): "" on 6.1 and later.
 */
static const char *
older_than_6_1(char *buf, size_t bufsz)
{
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &maj, &min) != 2 ||
	    maj > 6 || (maj == 6 && min >= 1))
		return ("");
	(void) snprintf(buf, bufsz, " (this is Linux %.64s: the program "
	    "needs 6.1 or later)", u.release);
	return (buf);
}

bpf_pfiles_t *
bpf_pfiles_open(char *why, size_t whysz)
{
	bpf_pfiles_t *bp;
	char rel[128];
	char *log = NULL;
	double t0, t1;
	int e;

	if (check_privilege(why, whysz) != 0 || check_btf(why, whysz) != 0 ||
	    check_lockdown(why, whysz) != 0)
		return (NULL);
	if ((bp = calloc(1, sizeof (*bp))) == NULL) {
		(void) snprintf(why, whysz, "%s", strerror(errno));
		return (NULL);
	}
	t0 = now_ms();
	if ((bp->bp_skel = pfiles__open()) == NULL) {
		e = errno;
		(void) snprintf(why, whysz, "BPF open: %s", strerror(e));
		free(bp);
		errno = e;
		return (NULL);
	}
	if (bpf_pfiles_verbose && (log = calloc(1, LOG_SIZE)) != NULL) {
		bp->bp_skel->ctx.log_level = 1;
		bp->bp_skel->ctx.log_size = LOG_SIZE;
		bp->bp_skel->ctx.log_buf = (__u64)(uintptr_t)log;
	}
	if (pfiles__load(bp->bp_skel) != 0) {
		e = errno;
		if (log != NULL)
			(void) fprintf(stderr, "%s\n", log);
		(void) snprintf(why, whysz, "BPF load: %s%s", strerror(e),
		    older_than_6_1(rel, sizeof (rel)));
		pfiles__destroy(bp->bp_skel);
		free(log);
		free(bp);
		errno = e;
		return (NULL);
	}
	free(log);
	bp->bp_skel->ctx.log_buf = 0;
	bp->bp_prog_fd = bp->bp_skel->progs.pfiles_task_file.prog_fd;
	bp->bp_ino_prog_fd = bp->bp_skel->progs.pfiles_sock_inodes.prog_fd;
	/* Loaded: the verifier's figures, per program. */
	if (bpf_pfiles_verbose) {
		say_verified("pfiles_task_file", bp->bp_prog_fd);
		say_verified("pfiles_sock_inodes", bp->bp_ino_prog_fd);
	}
	t1 = now_ms();
	bp->bp_times.bt_load_ms = t1 - t0;
	if (self_test(bp, why, whysz) != 0) {
		e = errno;
		bpf_pfiles_close(bp);
		errno = e;
		return (NULL);
	}
	bp->bp_times.bt_probe_ms = now_ms() - t1;
	return (bp);
}

unsigned int
bpf_pfiles_hz(const bpf_pfiles_t *bp)
{
	return (bp->bp_hz);
}

void
bpf_pfiles_times(const bpf_pfiles_t *bp, bpf_pfiles_times_t *bt)
{
	*bt = bp->bp_times;
}

void
bpf_pfiles_close(bpf_pfiles_t *bp)
{
	if (bp == NULL)
		return;
	pfiles__destroy(bp->bp_skel);
	free(bp);
}

#endif	/* HAVE_BPF */

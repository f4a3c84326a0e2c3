/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpfdump: a developer's tool for the BPF task-file iterator.
 *
 *	bpfdump [-q] [-v] [-i COUNT] [-r FILE] pid
 *
 * Loads the iterator (bpf_load.c), walks the fds of pid and prints each
 * record's facts, translated as the bpf source translates them
 * (bpf_record()), through pfiles' own formatting (pf_file()), so that the
 * lines compare byte for byte with those of `pfiles --via=pidfd pid'
 * (less its header and its endpoint: lines, which come from other
 * processes).  Facts the iterator did not compute are said on stderr.
 *
 *	-q	no listing: only the times, on stderr
 *	-v	the verifier's log on stderr when loading fails, its
 *		figures (instructions processed, per program) when not
 *	-i N	walk N times (times are per walk: the last and the best)
 *	-r FILE	also write the raw record stream to FILE (fuzz seeds)
 *
 * Times on stderr: open+load+verify, the self-test walk, the source's
 * check (its records of files of its own against the kernel's calls),
 * and the walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "libproc.h"
#include "core/Pcontrol.h"
#include "pf_comm.h"
#include "pfiles_fmt.h"
#include "src/bpf/bpf_load.h"
#include "src/bpf/sock_bpf.h"

typedef struct dump {
	pf_ctx_t	d_ctx;
	fdrec_t		d_rec;
	unsigned int	d_hz;
	int		d_quiet;
	FILE		*d_raw;
	unsigned long	d_nrec;
	unsigned long	d_notcomputed;
	unsigned long	d_lockcut;
	unsigned long	d_lockglobal;
	pf_comm_cache_t	d_comm;
	long		d_iters;	/* walks to make (-i) */
	double		d_last_ms;	/* the last walk's time */
	double		d_best_ms;	/* the best walk's */
} dump_t;

static double
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

static int
one_rec(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	dump_t *d = arg;

	d->d_nrec++;
	if (d->d_raw != NULL)
		(void) fwrite(raw, 1, rawlen, d->d_raw);
	if ((br->br_have & BPFREC_SOCK) &&
	    (br->br_sockname.ba_err == BPFREC_ENOTCOMPUTED ||
	    br->br_peername.ba_err == BPFREC_ENOTCOMPUTED))
		d->d_notcomputed++;
	if (br->br_have & BPFREC_LOCKPID_GLOBAL)
		d->d_lockglobal++;
	if (br->br_have & BPFREC_LOCKS_CUT)
		d->d_lockcut++;
	if (d->d_quiet)
		return (0);
	/* The record as the source translates it (sock_bpf.c). */
	if (bpf_record(NULL, br, d->d_hz, &d->d_rec) != 0)
		return (-1);
	return (pf_file(&d->d_ctx, fdrec_info(&d->d_rec)) < 0 ? -1 : 0);
}

static _Noreturn void
usage(void)
{
	(void) fprintf(stderr, "usage:\tbpfdump [-q] [-v] [-i COUNT] "
	    "[-r FILE] pid\n");
	exit(2);
}

/* The options into d; the pid, or -1 when the raw file cannot be made. */
static pid_t
parse_args(int argc, char **argv, dump_t *d)
{
	pid_t pid;
	int c;

	d->d_iters = 1;
	while ((c = getopt(argc, argv, "qvi:r:")) != -1) {
		switch (c) {
		case 'q':
			d->d_quiet = 1;
			break;
		case 'v':
			bpf_pfiles_verbose = 1;
			break;
		case 'i':
			if ((d->d_iters = strtol(optarg, NULL, 10)) < 1)
				usage();
			break;
		case 'r':
			if ((d->d_raw = fopen(optarg, "we")) == NULL) {
				perror(optarg);
				return (-1);
			}
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || (pid = (pid_t)strtol(argv[optind], NULL,
	    10)) <= 0)
		usage();
	return (pid);
}

/* The walks of pid, timed; the raw stream is of the first only. */
static int
walk(bpf_pfiles_t *bp, pid_t pid, dump_t *d, char *why, size_t whysz)
{
	double t0;
	int r = 0;

	for (long i = 0; i < d->d_iters && r == 0; i++) {
		d->d_nrec = 0;
		t0 = now_ms();
		r = bpf_pfiles_iter(bp, pid, one_rec, d, why, whysz);
		d->d_last_ms = now_ms() - t0;
		if (i == 0 || d->d_last_ms < d->d_best_ms)
			d->d_best_ms = d->d_last_ms;
		if (d->d_raw != NULL) {
			(void) fclose(d->d_raw);
			d->d_raw = NULL;
		}
	}
	return (r);
}

/* What the walk could not do or tell, on stderr. */
static void
report(pid_t pid, const dump_t *d, int r, const char *why)
{
	if (r != 0) {
		(void) fprintf(stderr, "bpfdump: %d: %s\n", (int)pid, why);
		return;
	}
	if (d->d_nrec == 0 && kill(pid, 0) != 0 && errno == ESRCH)
		(void) fprintf(stderr, "bpfdump: %d: no such process\n",
		    (int)pid);
	if (d->d_notcomputed > 0)
		(void) fprintf(stderr, "bpfdump: %d: names of %lu sockets not "
		    "computed (family)\n", (int)pid, d->d_notcomputed);
	if (d->d_lockcut > 0 || d->d_lockglobal > 0)
		(void) fprintf(stderr, "bpfdump: %d: locks cut short on %lu "
		    "fds, lock pids not translated on %lu\n", (int)pid,
		    d->d_lockcut, d->d_lockglobal);
}

int
main(int argc, char **argv)
{
	bpf_pfiles_times_t bt;
	bpf_pfiles_t *bp;
	double t0, tcheck;
	unsigned int nchecked = 0;
	char why[256];
	dump_t d;
	pid_t pid;
	int r;

	(void) memset(&d, 0, sizeof (d));
	if ((pid = parse_args(argc, argv, &d)) < 0)
		return (1);
	if ((bp = bpf_pfiles_open(why, sizeof (why))) == NULL) {
		(void) fprintf(stderr, "bpfdump: %s\n", why);
		return (1);
	}
	bpf_pfiles_times(bp, &bt);
	/* The source's check of every load (sock_bpf_check.c), timed. */
	t0 = now_ms();
	if (bpf_check_facts(bp, &nchecked, why, sizeof (why)) != 0) {
		(void) fprintf(stderr, "bpfdump: the check: %s\n", why);
		bpf_pfiles_close(bp);
		return (1);
	}
	tcheck = now_ms() - t0;
	d.d_hz = bpf_pfiles_hz(bp);
	d.d_ctx.pf_out = stdout;
	d.d_ctx.pf_comm = pf_comm_of;
	d.d_ctx.pf_comm_arg = &d.d_comm;

	r = walk(bp, pid, &d, why, sizeof (why));
	(void) fflush(stdout);
	report(pid, &d, r, why);
	(void) fprintf(stderr, "bpfdump: load+verify %.2f ms, self-test "
	    "%.2f ms (HZ %u), check %.2f ms (%u files), walk %.2f ms (best "
	    "of %ld: %.2f ms), %lu fds\n", bt.bt_load_ms, bt.bt_probe_ms,
	    d.d_hz, tcheck, nchecked, d.d_last_ms, d.d_iters, d.d_best_ms,
	    d.d_nrec);
	fdrec_free(&d.d_rec);
	bpf_pfiles_close(bp);
	return (r != 0);
}

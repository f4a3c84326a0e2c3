/*
 * bpfdump: a developer's tool for the BPF task-file iterator.
 *
 *	bpfdump [-q] [-v] [-i COUNT] [-r FILE] pid
 *
 * Loads the iterator (bpf_load.c), walks the fds of pid and prints each
 * record's facts through pfiles' own formatting (pf_file()), so that the
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
	char		d_comm[PRFNSZ];
} dump_t;

static double
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

static const char *
comm_of(void *arg, pid_t pid)
{
	dump_t *d = arg;
	char path[32];
	ssize_t n;
	int fd;

	(void) snprintf(path, sizeof (path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	n = read(fd, d->d_comm, sizeof (d->d_comm) - 1);
	(void) close(fd);
	if (n <= 0)
		return (NULL);
	if (d->d_comm[n - 1] == '\n')
		n--;
	d->d_comm[n] = '\0';
	return (d->d_comm);
}

static void
add_int(fdrec_t *rec, uint_t item, int v)
{
	(void) fdrec_add(rec, item, &v, sizeof (v));
}

static void
add_sock(dump_t *d, const bpfrec_t *br)
{
	fdrec_t *rec = &d->d_rec;
	prsockbool_t b;
	struct linger l;
	struct ucred uc;

	if (!(br->br_sock_have & BPFREC_S_SK))
		return;
	if (br->br_sockname.ba_err == 0)
		(void) fdrec_add(rec, PR_SOCKETNAME, br->br_sockname.ba_data,
		    br->br_sockname.ba_len);
	if (br->br_peername.ba_err == 0)
		(void) fdrec_add(rec, PR_PEERSOCKNAME,
		    br->br_peername.ba_data, br->br_peername.ba_len);
	if (br->br_sockname.ba_err == BPFREC_ENOTCOMPUTED ||
	    br->br_peername.ba_err == BPFREC_ENOTCOMPUTED)
		d->d_notcomputed++;
	b.pr_known = br->br_bools_known;
	b.pr_set = br->br_bools;
	if (b.pr_known != 0)
		(void) fdrec_add(rec, PR_SOCKOPTS_BOOL_OPTS, &b, sizeof (b));
	if (br->br_sock_have & BPFREC_S_LINGER) {
		l.l_onoff = br->br_linger_on;
		l.l_linger = bpfrec_linger_secs(br, d->d_hz);
		(void) fdrec_add(rec, PR_SOCKOPT_LINGER, &l, sizeof (l));
	}
	if (br->br_sock_have & BPFREC_S_BUFS) {
		add_int(rec, PR_SOCKOPT_SNDBUF, br->br_sndbuf);
		add_int(rec, PR_SOCKOPT_RCVBUF, br->br_rcvbuf);
	}
	add_int(rec, PR_SOCKOPT_TYPE, br->br_type);
	add_int(rec, PR_SOCKOPT_PROTOCOL, br->br_protocol);
	add_int(rec, PR_SOCKOPT_DOMAIN, br->br_family);
	if (br->br_sock_have & BPFREC_S_PEERPID) {
		uc.pid = br->br_peer_pid;
		uc.uid = (uid_t)-1;
		uc.gid = (gid_t)-1;
		(void) fdrec_add(rec, PR_PEERCRED, &uc, sizeof (uc));
	}
}

static int
one_rec(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	dump_t *d = arg;
	fdrec_t *rec = &d->d_rec;
	prfdinfo_t *info;
	prfdlock_t lk[BPFREC_MAXLOCKS];
	const char *why;

	d->d_nrec++;
	if (d->d_raw != NULL)
		(void) fwrite(raw, 1, rawlen, d->d_raw);
	if (d->d_quiet)
		return (0);
	if (fdrec_reset(rec, br->br_fd) != 0)
		return (-1);
	info = fdrec_info(rec);
	info->pr_mode = br->br_mode;
	info->pr_ino = br->br_ino;
	info->pr_size = br->br_size;
	info->pr_uid = br->br_uid;
	info->pr_gid = br->br_gid;
	info->pr_major = br->br_major;
	info->pr_minor = br->br_minor;
	info->pr_rmajor = br->br_rmajor;
	info->pr_rminor = br->br_rminor;
	info->pr_fileflags = (int)(br->br_fflags & ~(uint32_t)O_CLOEXEC);
	info->pr_fdflags = (br->br_fflags & O_CLOEXEC) ? FD_CLOEXEC : 0;
	info->pr_offset = br->br_pos;
	info->pr_mnt_id = br->br_mnt_id;

	if (br->br_have & BPFREC_LOCKPID_GLOBAL)
		d->d_lockglobal++;
	if (br->br_have & BPFREC_LOCKS_CUT)
		d->d_lockcut++;
	for (unsigned int i = 0; i < br->br_nlocks; i++) {
		lk[i].pr_kind = (short)br->br_locks[i].bl_kind;
		lk[i].pr_type = (short)br->br_locks[i].bl_type;
		lk[i].pr_mandatory = 0;
		lk[i].pr_pid = br->br_locks[i].bl_pid > 0 ?
		    br->br_locks[i].bl_pid : 0;
	}
	if (br->br_nlocks > 0)
		(void) fdrec_add(rec, PR_LOCKS, lk, br->br_nlocks *
		    sizeof (lk[0]));
	if (br->br_locks_more > 0)
		(void) fdrec_add(rec, PR_LOCKS_DROPPED, &br->br_locks_more,
		    sizeof (br->br_locks_more));

	if (br->br_path != NULL) {
		char path[4096];

		memcpy(path, br->br_path, br->br_path_len);
		path[br->br_path_len] = '\0';
		(void) fdrec_add(rec, PR_PATHNAME, path, br->br_path_len + 1);
	} else {
		why = br->br_path_err == ENAMETOOLONG ? "file name too long" :
		    strerror(br->br_path_err);
		(void) fdrec_add(rec, PR_PATHERR, why, strlen(why) + 1);
	}
	if (br->br_have & BPFREC_SOCK)
		add_sock(d, br);
	info = fdrec_info(rec);
	return (pf_file(&d->d_ctx, info) < 0 ? -1 : 0);
}

static void
usage(void)
{
	(void) fprintf(stderr, "usage:\tbpfdump [-q] [-v] [-i COUNT] "
	    "[-r FILE] pid\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	bpf_pfiles_times_t bt;
	bpf_pfiles_t *bp;
	double t0, t = 0, best = 0, tcheck;
	unsigned int nchecked = 0;
	char why[256];
	long iters = 1;
	dump_t d;
	pid_t pid;
	int c, r = 0;

	(void) memset(&d, 0, sizeof (d));
	while ((c = getopt(argc, argv, "qvi:r:")) != -1) {
		switch (c) {
		case 'q':
			d.d_quiet = 1;
			break;
		case 'v':
			bpf_pfiles_verbose = 1;
			break;
		case 'i':
			if ((iters = strtol(optarg, NULL, 10)) < 1)
				usage();
			break;
		case 'r':
			if ((d.d_raw = fopen(optarg, "we")) == NULL) {
				perror(optarg);
				return (1);
			}
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || (pid = (pid_t)strtol(argv[optind], NULL,
	    10)) <= 0)
		usage();

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
	d.d_ctx.pf_comm = comm_of;
	d.d_ctx.pf_comm_arg = &d;

	for (long i = 0; i < iters && r == 0; i++) {
		d.d_nrec = 0;
		t0 = now_ms();
		r = bpf_pfiles_iter(bp, pid, one_rec, &d, why, sizeof (why));
		t = now_ms() - t0;
		if (i == 0 || t < best)
			best = t;
		if (d.d_raw != NULL) {
			(void) fclose(d.d_raw);
			d.d_raw = NULL;
		}
	}
	(void) fflush(stdout);
	if (r != 0) {
		(void) fprintf(stderr, "bpfdump: %d: %s\n", (int)pid, why);
	} else {
		if (d.d_nrec == 0 && kill(pid, 0) != 0 && errno == ESRCH)
			(void) fprintf(stderr, "bpfdump: %d: no such process\n",
			    (int)pid);
		if (d.d_notcomputed > 0)
			(void) fprintf(stderr, "bpfdump: %d: names of %lu "
			    "sockets not computed (family)\n", (int)pid,
			    d.d_notcomputed);
		if (d.d_lockcut > 0 || d.d_lockglobal > 0)
			(void) fprintf(stderr, "bpfdump: %d: locks cut short "
			    "on %lu fds, lock pids not translated on %lu\n",
			    (int)pid, d.d_lockcut, d.d_lockglobal);
	}
	(void) fprintf(stderr, "bpfdump: load+verify %.2f ms, self-test "
	    "%.2f ms (HZ %u), check %.2f ms (%u files), walk %.2f ms (best "
	    "of %ld: %.2f ms), %lu fds\n", bt.bt_load_ms, bt.bt_probe_ms,
	    d.d_hz, tcheck, nchecked, t, iters, best, d.d_nrec);
	fdrec_free(&d.d_rec);
	bpf_pfiles_close(bp);
	return (r != 0);
}

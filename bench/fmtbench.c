/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fmtbench: pfiles' text formatter alone, timed (make bench).
 *
 * Usage: fmtbench [-v SOURCE] [-n PASSES] [-o FILE] PID
 *
 * Walks PID once with Pfdinfo_iter_flags() through SOURCE (auto, pidfd,
 * agent, diag, bpf; default bpf) and keeps a copy of every record
 * (sizeof (prfdinfo_t) + pr_misc_size bytes: fdrec.c's layout).  The
 * comm of every pid a record names as a peer or an endpoint is read
 * during the walk, so that no pass reads /proc.  Then it runs PASSES
 * (default 20) passes of pf_file() over the records, as pfiles does (a
 * record marked PR_CHANGED with its stat line only), into /dev/null
 * through a 64 KiB fully buffered stdio stream, pfiles' own stdout.
 * With -o, one more pass, untimed, goes to FILE (to check it against
 * pfiles' output, which has two header lines more).
 *
 * It prints one line:
 *
 *	RECORDS LINES BYTES WALK_MS MEDIAN_MS MIN_MS MEDIAN_CPU_MS
 *
 * LINES and BYTES are one pass's output; WALK_MS the walk with its
 * copies; MEDIAN_MS and MIN_MS the wall time of a pass (CLOCK_MONOTONIC),
 * MEDIAN_CPU_MS its CPU time (CLOCK_PROCESS_CPUTIME_ID).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libproc.h"
#include "pfiles_fmt.h"

#define	OUT_BUFSZ	(64 * 1024)	/* pfiles' STDOUT_BUFSZ */
#define	COMM_MAX	256

typedef struct recs {
	prfdinfo_t	**r_rec;
	size_t		r_n, r_cap;
} recs_t;

/* The comms of the pids the records name, read during the walk. */
static struct {
	pid_t	c_pid;
	char	c_comm[PRFNSZ];
	int	c_ok;
} comms[COMM_MAX];
static size_t ncomm;

static void
comm_read(pid_t pid)
{
	char path[32];
	ssize_t n;
	int fd;

	if (pid <= 0 || ncomm == COMM_MAX)
		return;
	for (size_t i = 0; i < ncomm; i++) {
		if (comms[i].c_pid == pid)
			return;
	}
	comms[ncomm].c_pid = pid;
	(void) snprintf(path, sizeof (path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, comms[ncomm].c_comm, PRFNSZ - 1);
		(void) close(fd);
		if (n > 0) {
			if (comms[ncomm].c_comm[n - 1] == '\n')
				n--;
			comms[ncomm].c_comm[n] = '\0';
			comms[ncomm].c_ok = 1;
		}
	}
	ncomm++;
}

/* pf_comm_f: a lookup in the table, as pfiles' cache hit costs. */
static const char *
comm_of(void *arg, pid_t pid)
{
	for (size_t i = 0; i < ncomm; i++) {
		if (comms[i].c_pid == pid)
			return (comms[i].c_ok ? comms[i].c_comm : NULL);
	}
	return (NULL);
}

static void
comm_endpoint(void *arg, pid_t pid, int fd, uint_t more)
{
	if (more == 0)
		comm_read(pid);
}

static int
keep(void *arg, const prfdinfo_t *info)
{
	recs_t *r = arg;
	size_t sz = sizeof (prfdinfo_t) + info->pr_misc_size;
	const void *p;
	struct ucred cred;
	size_t len;
	prfdinfo_t *copy;

	if (r->r_n == r->r_cap) {
		size_t ncap = r->r_cap == 0 ? 1024 : r->r_cap * 2;
		prfdinfo_t **n = realloc(r->r_rec, ncap * sizeof (*n));

		if (n == NULL)
			return (-1);
		r->r_rec = n;
		r->r_cap = ncap;
	}
	if ((copy = malloc(sz)) == NULL)
		return (-1);
	memcpy(copy, info, sz);
	r->r_rec[r->r_n++] = copy;

	if ((p = proc_fdinfo_misc(info, PR_PEERCRED, &len)) != NULL &&
	    len == sizeof (cred)) {
		memcpy(&cred, p, sizeof (cred));
		comm_read(cred.pid);
	}
	pf_endpoint_each(info, comm_endpoint, NULL);
	return (0);
}

static double
now(clockid_t clk)
{
	struct timespec ts;

	(void) clock_gettime(clk, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

/* One pass of pfiles' formatting of every record into out. */
static void
pass(FILE *out, const recs_t *r)
{
	pf_ctx_t ctx;

	memset(&ctx, 0, sizeof (ctx));
	ctx.pf_out = out;
	ctx.pf_comm = comm_of;
	for (size_t i = 0; i < r->r_n; i++) {
		const prfdinfo_t *info = r->r_rec[i];

		if (proc_fdinfo_misc(info, PR_CHANGED, NULL) != NULL) {
			pf_ctx_t stat_only = ctx;

			stat_only.pf_statonly = 1;
			(void) pf_file(&stat_only, info);
		} else {
			(void) pf_file(&ctx, info);
		}
	}
	(void) fflush(out);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof (*v), cmp_double);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

static void
usage(void)
{
	(void) fprintf(stderr,
	    "usage: fmtbench [-v SOURCE] [-n PASSES] [-o FILE] PID\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const psocksrc_t all[] = {
		PSOCK_AUTO, PSOCK_PIDFD, PSOCK_AGENT, PSOCK_DIAG, PSOCK_BPF
	};
	psocksrc_t via = PSOCK_BPF;
	const char *vianame = "bpf", *outfile = NULL;
	struct ps_prochandle *P;
	recs_t r = { NULL, 0, 0 };
	char *mem = NULL;
	size_t memlen = 0;
	long lines = 0;
	double t0, walk, *wall, *cpu;
	int c, passes = 20, gerr, found = 0;
	pid_t pid;
	FILE *out;

	while ((c = getopt(argc, argv, "v:n:o:")) != -1) {
		switch (c) {
		case 'v':
			vianame = optarg;
			break;
		case 'n':
			passes = atoi(optarg);
			break;
		case 'o':
			outfile = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind + 1 != argc || passes < 1)
		usage();
	pid = (pid_t)atoi(argv[optind]);
	for (size_t i = 0; i < sizeof (all) / sizeof (all[0]); i++) {
		if (strcmp(vianame, Psocksrc_name(all[i])) == 0) {
			via = all[i];
			found = 1;
		}
	}
	if (!found)
		usage();

	if ((P = Pgrab(pid, PGRAB_RETAIN | PGRAB_FORCE | PGRAB_NOSTOP,
	    &gerr)) == NULL) {
		(void) fprintf(stderr, "fmtbench: %d: %s\n", (int)pid,
		    Pgrab_error(gerr));
		return (1);
	}
	if (Psetsocksrc(P, via) != 0) {
		(void) fprintf(stderr, "fmtbench: %s: %s\n", vianame,
		    Perrmsg(P));
		return (1);
	}
	t0 = now(CLOCK_MONOTONIC);
	if (Pfdinfo_iter_flags(P, 0, keep, &r) != 0) {
		(void) fprintf(stderr, "fmtbench: walk: %s\n", strerror(errno));
		return (1);
	}
	walk = now(CLOCK_MONOTONIC) - t0;
	Prelease(P, 0);

	/* Lines and bytes of one pass (it warms the caches, too). */
	if ((out = open_memstream(&mem, &memlen)) == NULL)
		return (1);
	pass(out, &r);
	(void) fclose(out);
	for (size_t i = 0; i < memlen; i++)
		lines += mem[i] == '\n';
	free(mem);

	if (outfile != NULL) {
		if ((out = fopen(outfile, "w")) == NULL) {
			(void) fprintf(stderr, "fmtbench: %s: %s\n", outfile,
			    strerror(errno));
			return (1);
		}
		pass(out, &r);
		(void) fclose(out);
	}

	if ((out = fopen("/dev/null", "w")) == NULL ||
	    setvbuf(out, NULL, _IOFBF, OUT_BUFSZ) != 0)
		return (1);
	wall = calloc((size_t)passes, sizeof (*wall));
	cpu = calloc((size_t)passes, sizeof (*cpu));
	if (wall == NULL || cpu == NULL)
		return (1);
	for (int i = 0; i < passes; i++) {
		double w0 = now(CLOCK_MONOTONIC);
		double c0 = now(CLOCK_PROCESS_CPUTIME_ID);

		pass(out, &r);
		cpu[i] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall[i] = now(CLOCK_MONOTONIC) - w0;
	}
	(void) fclose(out);
	{
		double mcpu = median(cpu, passes);
		double mwall = median(wall, passes);

		(void) printf("%zu %ld %zu %.3f %.3f %.3f %.3f\n", r.r_n, lines,
		    memlen, walk, mwall, wall[0], mcpu);
	}
	return (0);
}

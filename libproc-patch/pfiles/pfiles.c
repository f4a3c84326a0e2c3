/*
 * pfiles(1): report the open files of processes.
 *
 *	pfiles [-n] [--via=auto|pidfd|agent|diag] pid ...
 *
 * The output contract is pfiles.1.  pfiles never stops its target for
 * long, never writes to it, and never kills it: socket facts come from
 * pidfd_getfd(2) where it works (the target is neither stopped nor read),
 * else from the agent, else from the kernel's socket tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libproc.h"
#include "pfiles_fmt.h"

#define	USAGE		"usage:\tpfiles [-n] [--via=auto|pidfd|agent|diag] " \
			"pid ...\n"
#define	STDOUT_BUFSZ	(64 * 1024)
#define	COMM_CACHE	64

static const char *command = "pfiles";

/* A small cache of comms for "peer:" lines; peers repeat. */
typedef struct comm_cache {
	pid_t	cc_pid[COMM_CACHE];
	char	cc_comm[COMM_CACHE][PRFNSZ];
	uint_t	cc_next;
} comm_cache_t;

static const char *
comm_of(void *arg, pid_t pid)
{
	comm_cache_t *cc = arg;
	char path[32];
	ssize_t n;
	uint_t slot;
	int fd;

	for (uint_t i = 0; i < COMM_CACHE; i++) {
		if (cc->cc_pid[i] == pid && pid != 0)
			return (cc->cc_comm[i]);
	}
	(void) snprintf(path, sizeof (path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	slot = cc->cc_next++ % COMM_CACHE;
	n = read(fd, cc->cc_comm[slot], PRFNSZ - 1);
	(void) close(fd);
	if (n <= 0)
		return (NULL);
	if (cc->cc_comm[slot][n - 1] == '\n')
		n--;
	cc->cc_comm[slot][n] = '\0';
	cc->cc_pid[slot] = pid;
	return (cc->cc_comm[slot]);
}

static int
show_file(void *arg, const prfdinfo_t *info)
{
	return (pf_file(arg, info));
}

static void
complain(const char *arg, const char *reason)
{
	(void) fflush(stdout);
	(void) fprintf(stderr, "%s: cannot examine %s: %s\n", command, arg,
	    reason);
}

/* "1234" or "/proc/1234": the pid, or -1. */
static pid_t
parse_pid(const char *arg)
{
	const char *p = arg;
	long v = 0;

	if (strncmp(p, "/proc/", 6) == 0)
		p += 6;
	if (*p == '\0')
		return (-1);
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || v > (INT_MAX - 9) / 10)
			return (-1);
		v = v * 10 + (*p - '0');
	}
	return (v > 0 ? (pid_t)v : -1);
}

/* A kernel thread: its name and "[system process]". */
static int
show_sysproc(const char *arg, pid_t pid)
{
	psinfo_t ps;

	if (proc_get_psinfo(pid, &ps) != 0) {
		complain(arg, "no such process");
		return (1);
	}
	pf_sysproc(stdout, &ps);
	return (0);
}

/* Print what could not be found out about this pid, once. */
static void
report_gaps(const char *arg, const pf_ctx_t *ctx)
{
	if (ctx->pf_nsockerr == 0 && ctx->pf_nlockdrop == 0)
		return;
	(void) fflush(stdout);
	if (ctx->pf_nsockerr > 0)
		(void) fprintf(stderr, "%s: %s: details of %u socket%s "
		    "unavailable: %s\n", command, arg, ctx->pf_nsockerr,
		    ctx->pf_nsockerr == 1 ? "" : "s", ctx->pf_sockerr);
	if (ctx->pf_nlockdrop > 0)
		(void) fprintf(stderr, "%s: %s: %u fd%s hold more locks than "
		    "are shown\n", command, arg, ctx->pf_nlockdrop,
		    ctx->pf_nlockdrop == 1 ? "" : "s");
}

static int
show_process(const char *arg, int statonly, psocksrc_t via,
    comm_cache_t *cc)
{
	struct ps_prochandle *P;
	struct rlimit rl;
	pf_ctx_t ctx;
	pid_t pid;
	int gerr, rv;

	if ((pid = parse_pid(arg)) < 0) {
		complain(arg, "not a process id");
		return (1);
	}
	if ((P = Pgrab(pid, PGRAB_RETAIN | PGRAB_FORCE | PGRAB_NOSTOP,
	    &gerr)) == NULL) {
		if (gerr == G_SYS)
			return (show_sysproc(arg, pid));
		complain(arg, Pgrab_error(gerr));
		return (1);
	}

	/* A forced source that cannot serve is an error, before output. */
	if (!statonly && Psetsocksrc(P, via) != 0 &&
	    (via != PSOCK_AUTO || errno == ESRCH)) {
		complain(arg, errno == ESRCH ? "no such process" :
		    Perrmsg(P));
		Prelease(P, 0);
		return (1);
	}

	memset(&ctx, 0, sizeof (ctx));
	ctx.pf_out = stdout;
	ctx.pf_statonly = statonly;
	ctx.pf_comm = comm_of;
	ctx.pf_comm_arg = cc;

	pf_header(stdout, Ppsinfo(P),
	    Plimit(P, RLIMIT_NOFILE, &rl) == 0 ? &rl : NULL);
	rv = Pfdinfo_iter_flags(P, statonly ? PFDI_STATONLY : 0, show_file,
	    &ctx);
	report_gaps(arg, &ctx);
	if (rv != 0)
		complain(arg, errno == ESRCH ?
		    "process exited during examination" : strerror(errno));
	Prelease(P, 0);
	return (rv != 0);
}

static int
parse_via(const char *s, psocksrc_t *viap)
{
	static const psocksrc_t all[] = {
		PSOCK_AUTO, PSOCK_PIDFD, PSOCK_AGENT, PSOCK_DIAG
	};

	for (size_t i = 0; i < sizeof (all) / sizeof (all[0]); i++) {
		if (strcmp(s, Psocksrc_name(all[i])) == 0) {
			*viap = all[i];
			return (0);
		}
	}
	return (-1);
}

static void
usage(void)
{
	(void) fputs(USAGE, stderr);
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "via", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static comm_cache_t cc;
	psocksrc_t via = PSOCK_AUTO;
	int c, statonly = 0, rc = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			statonly = 1;
			break;
		case 'V':
			if (parse_via(optarg, &via) != 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();

	(void) setvbuf(stdout, NULL, _IOFBF, STDOUT_BUFSZ);
	for (int i = optind; i < argc; i++)
		rc |= show_process(argv[i], statonly, via, &cc);

	if (fflush(stdout) != 0 || ferror(stdout)) {
		(void) fprintf(stderr, "%s: write error: %s\n", command,
		    strerror(errno));
		return (1);
	}
	return (rc);
}

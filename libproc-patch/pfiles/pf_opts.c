/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_opts.c: pfiles' command line.  The options are written once, in
 * opts[]: getopt_long's strings, --help and the messages for a bad
 * option all come from that table, and the --via values from libproc
 * (Psocksrc_name()).
 *
 * As GNU and util-linux tools do: --help on the standard output, exit 0;
 * -V, --version: "pfiles from PROJECT VERSION", exit 0; an unknown or
 * malformed option named on the standard error, then the usage line and
 * a "Try" line, and illumos' exit status 2 for a usage error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_opts.h"

#ifndef	LIBPROC_PROJECT
#define	LIBPROC_PROJECT	"pfiles-linux"
#endif

/*
 * The one usage line: the first of --help, and of every usage error,
 * then followed by TRY_LINE.
 */
#define	USAGE_LINE	"usage:\tpfiles [-J] [-n] [--no-endpoints] " \
			"[--via=auto|pidfd|agent|diag|bpf] pid ...\n"
#define	TRY_LINE	"Try 'pfiles --help' for more information.\n"

/* Where make install puts the schema of -J's document: the Makefile says. */
#ifndef	PFILES_SCHEMA
#error "PFILES_SCHEMA: the installed path of pfiles.schema.json"
#endif

/* Values of the options that have no letter (getopt_long's val). */
#define	OPT_VIA		256
#define	OPT_NOENDPOINTS	257
#define	OPT_ALL		258

typedef struct pf_opt {
	int		o_letter;	/* the short option, or 0 */
	const char	*o_long;	/* the long one */
	int		o_arg;		/* no_argument, required_argument */
	int		o_val;		/* what getopt_long returns for it */
	const char	*o_argname;	/* its argument in --help */
	const char	*o_help;	/* one line */
} pf_opt_t;

static const pf_opt_t opts[] = {
	{ 'J', "json", no_argument, 'J', NULL,
	    "print one JSON document (its schema: below)" },
	{ 'n', "stat-only", no_argument, 'n', NULL,
	    "the stat line of each fd only: no socket facts" },
	{ 0, "no-endpoints", no_argument, OPT_NOENDPOINTS, NULL,
	    "leave out the endpoint lines (holders of other ends)" },
	{ 0, "via", required_argument, OPT_VIA, "SOURCE",
	    "socket facts from SOURCE: " },	/* + the sources */
	{ 0, "all", no_argument, OPT_ALL, NULL,
	    "every process but pfiles, in pid order (no pid)" },
	{ 'h', "help", no_argument, 'h', NULL,
	    "print this help and exit" },
	{ 'V', "version", no_argument, 'V', NULL,
	    "print the version and exit" },
};
#define	NOPTS	(sizeof (opts) / sizeof (opts[0]))

/* The sources --via takes, in the order --help lists them. */
static const psocksrc_t sources[] = {
	PSOCK_AUTO, PSOCK_PIDFD, PSOCK_AGENT, PSOCK_DIAG, PSOCK_BPF
};
#define	NSOURCES	(sizeof (sources) / sizeof (sources[0]))

static const pf_opt_t *
opt_of(int val)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (opts[i].o_val == val)
			return (&opts[i]);
	return (NULL);
}

/* The --via values, "a, b, c", to fp. */
static void
put_sources(FILE *fp)
{
	for (size_t i = 0; i < NSOURCES; i++)
		(void) fprintf(fp, "%s%s", i > 0 ? ", " : "",
		    Psocksrc_name(sources[i]));
}

static _Noreturn void
help(void)
{
	(void) printf(USAGE_LINE "Report the open files of each process "
	    "(PID or /proc/PID): for each fd its\nfstat and fcntl facts, "
	    "its path, locks and, for a socket, its options, names,\npeer "
	    "and endpoints.\n\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const pf_opt_t *o = &opts[i];
		char head[40];

		(void) snprintf(head, sizeof (head), "%c%c%c --%s%s%s",
		    o->o_letter != 0 ? '-' : ' ',
		    o->o_letter != 0 ? o->o_letter : ' ',
		    o->o_letter != 0 ? ',' : ' ', o->o_long,
		    o->o_argname != NULL ? "=" : "",
		    o->o_argname != NULL ? o->o_argname : "");
		(void) printf("  %-22s %s", head, o->o_help);
		if (o->o_val == OPT_VIA)
			put_sources(stdout);
		(void) printf("\n");
	}
	(void) printf("\nExit status: 0 when every process was examined, "
	    "1 when one could not be,\n2 for a usage error.  See pfiles(1).  "
	    "The JSON schema of --json:\n  %s\n", PFILES_SCHEMA);
	exit(0);
}

static _Noreturn void
version(void)
{
	(void) printf("pfiles from %s %s\n", LIBPROC_PROJECT,
	    LIBPROC_VERSION);
	exit(0);
}

/* A usage error, once what is wrong has been said: exit 2. */
static _Noreturn void
usage(void)
{
	(void) fputs(USAGE_LINE TRY_LINE, stderr);
	exit(2);
}

/* A usage error: what is wrong (head, name, tail), then usage(). */
static _Noreturn void
bad(const char *head, const char *name, const char *tail)
{
	(void) fprintf(stderr, "pfiles: %s%s%s\n", head, name, tail);
	usage();
}

static _Noreturn void
bad_via(const char *s)
{
	(void) fprintf(stderr, "pfiles: invalid argument '%s' for '--via' "
	    "(one of ", s);
	put_sources(stderr);
	(void) fputs(")\n", stderr);
	usage();
}

/*
 * getopt_long's '?' or ':': which option, and what is wrong with it.
 * optopt is the option's val when getopt knew the option (a long one
 * given an argument it takes none of, or one lacking its argument), the
 * unknown letter for a short one, and 0 for an unknown long one.
 */
static _Noreturn void
bad_option(int c, char *const argv[], int ind)
{
	const pf_opt_t *o = optopt != 0 ? opt_of(optopt) : NULL;
	char letter[2] = { (char)optopt, '\0' };

	if (c == ':' && o != NULL)
		bad("option '--", o->o_long, "' requires an argument");
	if (o != NULL)
		bad("option '--", o->o_long, "' doesn't allow an argument");
	if (optopt != 0)
		bad("invalid option -- '", letter, "'");
	bad("unrecognized option '", argv[ind - 1], "'");
}

void
pf_opts_parse(int argc, char **argv, pf_args_t *a)
{
	struct option longopts[NOPTS + 1];
	char shorts[2 + 2 * NOPTS + 1] = "+:";
	size_t ns = 2;
	int c;

	memset(a, 0, sizeof (*a));
	a->pa_via = PSOCK_AUTO;
	memset(longopts, 0, sizeof (longopts));
	for (size_t i = 0; i < NOPTS; i++) {
		longopts[i].name = opts[i].o_long;
		longopts[i].has_arg = opts[i].o_arg;
		longopts[i].val = opts[i].o_val;
		if (opts[i].o_letter != 0) {
			shorts[ns++] = (char)opts[i].o_letter;
			if (opts[i].o_arg == required_argument)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			a->pa_json = 1;
			break;
		case 'n':
			a->pa_statonly = 1;
			break;
		case OPT_NOENDPOINTS:
			a->pa_noendpoints = 1;
			break;
		case OPT_ALL:
			a->pa_all = 1;
			break;
		case OPT_VIA: {
			size_t i;

			for (i = 0; i < NSOURCES; i++)
				if (strcmp(optarg,
				    Psocksrc_name(sources[i])) == 0)
					break;
			if (i == NSOURCES)
				bad_via(optarg);
			a->pa_via = sources[i];
			break;
		}
		case 'h':
			help();
		case 'V':
			version();
		default:
			bad_option(c, argv, optind);
		}
	}
	if (a->pa_all && optind < argc)
		bad("--all takes no pid: extra operand '", argv[optind], "'");
	if (optind == argc && !a->pa_all)
		usage();
	a->pa_first = optind;
}

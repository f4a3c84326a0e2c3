/*
 * procfs_parse.h: pure parsers of the per-process files of /proc that
 * libproc reads once per grab (stat, cmdline, limits).  No I/O here: the
 * callers read the files, these functions only look at bytes.  Every
 * input is treated as untrusted and may be truncated.
 */
#ifndef	_PROCFS_PARSE_H
#define	_PROCFS_PARSE_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#define	PF_KTHREAD_FLAG	0x00200000	/* the kernel's PF_KTHREAD */

typedef struct procstat {
	char		ps_state;	/* R, S, D, Z, X, T, t, ... */
	pid_t		ps_ppid;
	unsigned long	ps_flags;	/* the kernel's task flags */
} procstat_t;

/* /proc/PID/stat: 0, or -1 when the text is not a stat line. */
extern int procfs_parse_stat(const char *, size_t, procstat_t *);

/*
 * /proc/PID/cmdline: the arguments, NULs made single spaces and the final
 * NUL dropped, cut to fit dst (always NUL-terminated when dstsz > 0).
 * Returns the length written.
 */
extern size_t procfs_cmdline_to_args(const char *, size_t, char *, size_t);

/*
 * /proc/PID/limits: the soft and hard values of resource (RLIMIT_*), with
 * "unlimited" as RLIM_INFINITY.  0, or -1 when the line is missing or
 * malformed.
 */
extern int procfs_parse_limits(const char *, size_t, int, struct rlimit *);

/*
 * /proc/PID/status: the value of the "Seccomp:" line (0 none, 1 strict,
 * 2 filter), or -1 when there is none.
 */
extern int procfs_parse_seccomp(const char *, size_t);

#endif	/* _PROCFS_PARSE_H */

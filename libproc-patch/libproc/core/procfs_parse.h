/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfs_parse.h: pure parsers of the per-process files of /proc that
 * libproc reads once per grab (stat, cmdline, limits, status) or once
 * per agent (maps).  No I/O here: the callers read the files, these
 * functions only look at bytes.  Every input is treated as untrusted and
 * may be truncated.
 */
#ifndef	_PROCFS_PARSE_H
#define	_PROCFS_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#define	PF_EXITING_FLAG	0x00000004	/* the kernel's PF_EXITING */
#define	PF_KTHREAD_FLAG	0x00200000	/* the kernel's PF_KTHREAD */

typedef struct procstat {
	char		ps_state;	/* R, S, D, Z, X, T, t, ... */
	pid_t		ps_ppid;
	unsigned long	ps_flags;	/* the kernel's task flags */
	/*
	 * The signals pending for the thread itself (field 31; 0 when the
	 * line ends before it): SIGKILL there says a group exit or an exec
	 * by another thread has begun to end it.
	 */
	unsigned long long ps_sigpnd;
} procstat_t;

/* /proc/PID/stat: 0, or -1 when the text is not a stat line. */
extern int procfs_parse_stat(const char *, size_t, procstat_t *);

/*
 * /proc/PID/cmdline: the arguments, NULs made single spaces and the
 * trailing NULs dropped, cut to fit dst (always NUL-terminated when
 * dstsz > 0).  dst may be buf itself.
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
 * /proc/PID/status: the facts libproc uses.  A line that is missing or
 * malformed leaves its field at the "unknown" value given below.  Keys
 * match only at the start of a line; the first line of a key that holds
 * more than the key decides it.  A value must end its line (or the
 * text): "Seccomp:\t2x" is malformed.
 */
typedef struct procstatus {
	char		pst_state;	/* State: letter; '?' when unknown */
	pid_t		pst_tracer;	/* TracerPid:; 0 when none or unknown */
	int		pst_seccomp;	/* Seccomp: 0, 1, 2; -1: unknown */
} procstatus_t;

extern void procfs_parse_status(const char *, size_t, procstatus_t *);

/*
 * The fdinfo of a pidfd: the "Pid:" of the process it names, as the
 * reader's /proc sees it (0 when that /proc does not see it at all, as
 * the kernel says); -1 when there is no such line or it is malformed.
 */
extern pid_t procfs_parse_pidfd(const char *, size_t);

/*
 * /proc/PID/maps, streamed: what the agent needs to know of the address
 * space of the thread it borrows, whose stack pointer is sp and whose
 * instruction pointer less 2 is pc (where a syscall instruction it came
 * through would be).  Fed in pieces as it is read; lines longer than
 * MAPS_LINEMAX - 1 bytes are parsed from their first MAPS_LINEMAX - 1
 * bytes (the name is cut); a last line without a newline is parsed at
 * procfs_maps_end().
 */
#define	MAPS_LINEMAX	512

typedef struct maps_line {
	uint64_t	ml_lo, ml_hi;
	char		ml_perms[5];	/* "r-xp", NUL-ended */
	const char	*ml_name;	/* "" if anonymous; in the line */
} maps_line_t;

/*
 * One line, "lo-hi perms offset dev inode   name", NUL-terminated and
 * not changed; 0, or -1 when lo or hi is not hexadecimal or does not fit
 * 64 bits, when lo >= hi, or when fewer than 4 bytes of perms follow.
 */
extern int procfs_parse_maps_line(char *, maps_line_t *);

typedef struct procmaps {
	/* What was found. */
	uint64_t	pm_vdso_lo, pm_vdso_hi;	/* [vdso]; 0: none */
	uint64_t	pm_stack_lo, pm_stack_hi;	/* holding sp */
	int		pm_stack_known;	/* [stack], or rw over a ---p guard */
	int		pm_pc_exec;	/* pc..pc+2 lies in an executable map */
	/* The scan. */
	uint64_t	pm_sp, pm_pc;
	uint64_t	pm_prev_hi;	/* the previous line's hi */
	char		pm_prev_perms[5];
	int		pm_have_prev;
	size_t		pm_len;
	char		pm_line[MAPS_LINEMAX];
} procmaps_t;

extern void procfs_maps_init(procmaps_t *, uint64_t, uint64_t);
extern void procfs_maps_feed(procmaps_t *, const char *, size_t);
extern void procfs_maps_end(procmaps_t *);

#endif	/* _PROCFS_PARSE_H */

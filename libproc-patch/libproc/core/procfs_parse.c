/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfs_parse.c: pure parsers of /proc/PID/stat, cmdline, limits, status
 * and maps.  No I/O: the callers read the files.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/procfs_parse.h"

/* Parse a decimal number that fits an unsigned long long; 0, or -1. */
static int
parse_ulong(const char **pp, const char *end, unsigned long long *valp)
{
	const char *p = *pp;
	unsigned long long v = 0;

	if (p >= end || *p < '0' || *p > '9')
		return (-1);
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (v > (ULLONG_MAX - 9) / 10)
			return (-1);
		v = v * 10 + (unsigned)(*p - '0');
	}
	*pp = p;
	*valp = v;
	return (0);
}

static void
skip_spaces(const char **pp, const char *end)
{
	while (*pp < end && **pp == ' ')
		(*pp)++;
}

/* Skip one field and the spaces after it. */
static int
skip_field(const char **pp, const char *end)
{
	const char *p = *pp;

	if (p >= end || *p == ' ')
		return (-1);
	while (p < end && *p != ' ')
		p++;
	*pp = p;
	skip_spaces(pp, end);
	return (0);
}

#define	STAT_SIGNAL_FIELD	31	/* "signal": the thread's pending */

/*
 * "pid (comm) state ppid pgrp session tty_nr tpgid flags ...".  The comm
 * may hold spaces and parentheses, so the fields start after the last ')'.
 */
int
procfs_parse_stat(const char *buf, size_t len, procstat_t *ps)
{
	const char *end = buf + len, *p;
	unsigned long long ppid, flags, sig;
	int i;

	p = NULL;
	for (const char *q = buf; q < end; q++) {
		if (*q == ')')
			p = q;
	}
	if (p == NULL || end - p < 3 || p[1] != ' ')
		return (-1);
	p += 2;
	ps->ps_state = *p;
	if (skip_field(&p, end) != 0)
		return (-1);
	if (parse_ulong(&p, end, &ppid) != 0 || ppid > INT_MAX)
		return (-1);
	skip_spaces(&p, end);
	for (i = 0; i < 4; i++) {	/* pgrp, session, tty_nr, tpgid */
		if (skip_field(&p, end) != 0)
			return (-1);
	}
	if (parse_ulong(&p, end, &flags) != 0)
		return (-1);
	ps->ps_ppid = (pid_t)ppid;
	ps->ps_flags = (unsigned long)flags;
	ps->ps_sigpnd = 0;
	skip_spaces(&p, end);
	for (i = 10; i < STAT_SIGNAL_FIELD; i++) {	/* minflt ... kstkeip */
		if (skip_field(&p, end) != 0)
			return (0);
	}
	if (parse_ulong(&p, end, &sig) == 0)
		ps->ps_sigpnd = sig;
	return (0);
}

size_t
procfs_cmdline_to_args(const char *buf, size_t len, char *dst, size_t dstsz)
{
	size_t i, n;

	if (dstsz == 0)
		return (0);
	/*
	 * Every trailing NUL goes, not just the last argument's end: a
	 * process that rewrote its command line in place (setproctitle)
	 * leaves NULs to the end of the old argument area, and they are
	 * no arguments.  An empty argument before another stays a space.
	 */
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	n = len < dstsz - 1 ? len : dstsz - 1;
	for (i = 0; i < n; i++)
		dst[i] = buf[i] == '\0' ? ' ' : buf[i];
	dst[n] = '\0';
	return (n);
}

/* The names /proc/PID/limits gives the resources, in RLIMIT_* order. */
static const char *const limit_names[] = {
	[RLIMIT_CPU] = "Max cpu time",
	[RLIMIT_FSIZE] = "Max file size",
	[RLIMIT_DATA] = "Max data size",
	[RLIMIT_STACK] = "Max stack size",
	[RLIMIT_CORE] = "Max core file size",
	[RLIMIT_RSS] = "Max resident set",
	[RLIMIT_NPROC] = "Max processes",
	[RLIMIT_NOFILE] = "Max open files",
	[RLIMIT_MEMLOCK] = "Max locked memory",
	[RLIMIT_AS] = "Max address space",
	[RLIMIT_LOCKS] = "Max file locks",
	[RLIMIT_SIGPENDING] = "Max pending signals",
	[RLIMIT_MSGQUEUE] = "Max msgqueue size",
	[RLIMIT_NICE] = "Max nice priority",
	[RLIMIT_RTPRIO] = "Max realtime priority",
	[RLIMIT_RTTIME] = "Max realtime timeout",
};

static int
parse_limit_value(const char **pp, const char *end, rlim_t *valp)
{
	static const char unl[] = "unlimited";
	unsigned long long v;

	skip_spaces(pp, end);
	if ((size_t)(end - *pp) >= sizeof (unl) - 1 &&
	    memcmp(*pp, unl, sizeof (unl) - 1) == 0) {
		*pp += sizeof (unl) - 1;
		*valp = RLIM_INFINITY;
		return (0);
	}
	if (parse_ulong(pp, end, &v) != 0)
		return (-1);
	if (v >= RLIM_INFINITY)
		v = RLIM_INFINITY;
	*valp = (rlim_t)v;
	return (0);
}

int
procfs_parse_limits(const char *buf, size_t len, int resource,
    struct rlimit *rl)
{
	const char *end = buf + len, *line, *nl, *p;
	const char *name;
	size_t namelen;

	if (resource < 0 || (size_t)resource >= sizeof (limit_names) /
	    sizeof (limit_names[0]) || limit_names[resource] == NULL)
		return (-1);
	name = limit_names[resource];
	namelen = strlen(name);

	for (line = buf; line < end; line = nl < end ? nl + 1 : end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		/* The name must be followed by a space, not a longer name. */
		if ((size_t)(nl - line) <= namelen ||
		    memcmp(line, name, namelen) != 0 || line[namelen] != ' ')
			continue;
		p = line + namelen;
		if (parse_limit_value(&p, nl, &rl->rlim_cur) != 0 ||
		    p >= nl || *p != ' ' ||
		    parse_limit_value(&p, nl, &rl->rlim_max) != 0)
			return (-1);
		return (0);
	}
	return (-1);
}

/*
 * If the line [line, nl) starts with key and holds more than the key, the
 * first byte of its value (after spaces and tabs, perhaps nl itself);
 * else NULL.  A line that is the key alone is passed over, as the
 * seccomp parser this replaces did, so a later line may still give the
 * value.
 */
static const char *
status_value(const char *line, const char *nl, const char *key)
{
	size_t klen = strlen(key);
	const char *p;

	if ((size_t)(nl - line) <= klen || memcmp(line, key, klen) != 0)
		return (NULL);
	p = line + klen;
	while (p < nl && (*p == ' ' || *p == '\t'))
		p++;
	return (p);
}

/*
 * "Key:\tvalue" lines.  The first line of each key decides that key: a
 * malformed value there leaves the "unknown" value, as a later line of
 * the same key is not the kernel's (status has one of each).  Keys match
 * only at the start of a line, so "Seccomp_filters:" is not "Seccomp:"
 * and a key inside another line's value is not taken.
 */
void
procfs_parse_status(const char *buf, size_t len, procstatus_t *pst)
{
	const char *end = buf + len, *line, *nl, *p;
	int have_state = 0, have_tracer = 0, have_seccomp = 0;
	unsigned long long v;

	pst->pst_state = '?';
	pst->pst_tracer = 0;
	pst->pst_seccomp = -1;
	/* nl + 1 only before end: a pointer past end + 1 is undefined. */
	for (line = buf; line < end &&
	    !(have_state && have_tracer && have_seccomp);
	    line = nl < end ? nl + 1 : end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		if (!have_state &&
		    (p = status_value(line, nl, "State:")) != NULL) {
			have_state = 1;
			/* Only spaces after the key: no letter, unknown. */
			if (p < nl)
				pst->pst_state = *p;
		} else if (!have_tracer &&
		    (p = status_value(line, nl, "TracerPid:")) != NULL) {
			have_tracer = 1;
			if (parse_ulong(&p, nl, &v) == 0 && p == nl &&
			    v <= INT_MAX)
				pst->pst_tracer = (pid_t)v;
		} else if (!have_seccomp &&
		    (p = status_value(line, nl, "Seccomp:")) != NULL) {
			have_seccomp = 1;
			if (parse_ulong(&p, nl, &v) == 0 && p == nl && v <= 2)
				pst->pst_seccomp = (int)v;
		}
	}
}

pid_t
procfs_parse_pidfd(const char *buf, size_t len)
{
	const char *end = buf + len, *line, *nl, *p;
	unsigned long long v;

	for (line = buf; line < end; line = nl < end ? nl + 1 : end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		if ((p = status_value(line, nl, "Pid:")) == NULL)
			continue;
		if (parse_ulong(&p, nl, &v) == 0 && p == nl && v <= INT_MAX)
			return ((pid_t)v);
		return (-1);
	}
	return (-1);
}

/*
 * One hexadecimal number at *pp of a NUL-terminated line.  A value that
 * does not fit 64 bits is an error, not UINT64_MAX: an address the
 * kernel cannot have written is not one to compare sp and pc with.
 * Leading zeros are fine.
 */
static int
parse_hex64(const char **pp, uint64_t *valp)
{
	const char *p = *pp;
	uint64_t v = 0;
	unsigned d;

	for (;; p++) {
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a') + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A') + 10;
		else
			break;
		if (v > UINT64_MAX >> 4)
			return (-1);
		v = v << 4 | d;
	}
	if (p == *pp)
		return (-1);
	*pp = p;
	*valp = v;
	return (0);
}

/*
 * "lo-hi perms offset dev inode   name", NUL-terminated.  The line is
 * only read; ml_name points into it.  A mapping that is empty or
 * inverted (lo >= hi) is malformed: the kernel never shows one, and the
 * callers take [lo, hi) to hold something.
 */
int
procfs_parse_maps_line(char *line, maps_line_t *ml)
{
	const char *p = line;
	int field;

	if (parse_hex64(&p, &ml->ml_lo) != 0 || *p != '-')
		return (-1);
	p++;
	if (parse_hex64(&p, &ml->ml_hi) != 0 || *p != ' ')
		return (-1);
	p++;
	if (ml->ml_lo >= ml->ml_hi)
		return (-1);
	/* Four bytes of perms, whatever they are, but not the line's end. */
	for (field = 0; field < 4; field++) {
		if (p[field] == '\0')
			return (-1);
		ml->ml_perms[field] = p[field];
	}
	ml->ml_perms[4] = '\0';
	/* Skip perms, offset, dev and inode; the rest is the name. */
	for (field = 0; *p != '\0' && field < 4; field++) {
		while (*p != '\0' && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
	}
	ml->ml_name = p;
	return (0);
}

void
procfs_maps_init(procmaps_t *pm, uint64_t sp, uint64_t pc)
{
	(void) memset(pm, 0, sizeof (*pm));
	pm->pm_sp = sp;
	pm->pm_pc = pc;
}

/* What one parsed line tells; a later line overrides an earlier one. */
static void
maps_note(procmaps_t *pm, const maps_line_t *ml)
{
	if (strcmp(ml->ml_name, "[vdso]") == 0) {
		pm->pm_vdso_lo = ml->ml_lo;
		pm->pm_vdso_hi = ml->ml_hi;
	}
	if (pm->pm_sp >= ml->ml_lo && pm->pm_sp < ml->ml_hi) {
		pm->pm_stack_lo = ml->ml_lo;
		pm->pm_stack_hi = ml->ml_hi;
		/*
		 * The main thread's [stack], or a thread stack of glibc's
		 * kind (an anonymous mapping with a guard page right
		 * below): there, what lies below sp is free stack.  Any
		 * other mapping (a Go heap, a sigaltstack in malloc'd
		 * memory) may hold live data below sp.
		 */
		pm->pm_stack_known = strcmp(ml->ml_name, "[stack]") == 0 ||
		    (ml->ml_name[0] == '\0' && ml->ml_perms[0] == 'r' &&
		    ml->ml_perms[1] == 'w' && pm->pm_have_prev &&
		    pm->pm_prev_hi == ml->ml_lo &&
		    strcmp(pm->pm_prev_perms, "---p") == 0);
	}
	/* pc + 2 <= hi, written so that a pc near 2^64 cannot wrap. */
	if (pm->pm_pc >= ml->ml_lo && pm->pm_pc < ml->ml_hi &&
	    ml->ml_hi - pm->pm_pc >= 2 && ml->ml_perms[2] == 'x')
		pm->pm_pc_exec = 1;
}

/* The line gathered in pm_line is complete: parse it, note it. */
static void
maps_line_done(procmaps_t *pm)
{
	maps_line_t ml;
	size_t n = pm->pm_len < MAPS_LINEMAX - 1 ? pm->pm_len :
	    MAPS_LINEMAX - 1;

	pm->pm_line[n] = '\0';
	pm->pm_len = 0;
	/* A line that does not parse is not "the previous line" either. */
	if (procfs_parse_maps_line(pm->pm_line, &ml) != 0)
		return;
	maps_note(pm, &ml);
	pm->pm_prev_hi = ml.ml_hi;
	(void) memcpy(pm->pm_prev_perms, ml.ml_perms,
	    sizeof (pm->pm_prev_perms));
	pm->pm_have_prev = 1;
}

/*
 * Gather each line in pm_line, up to MAPS_LINEMAX - 1 bytes of it (the
 * rest is dropped), and parse it at its newline.  Where the pieces are
 * cut does not matter: a line is only parsed once its newline (or
 * procfs_maps_end) is seen.
 */
void
procfs_maps_feed(procmaps_t *pm, const char *buf, size_t len)
{
	const char *end = buf + len, *nl;
	size_t n, room;

	while (buf < end) {
		nl = memchr(buf, '\n', (size_t)(end - buf));
		n = (size_t)((nl != NULL ? nl : end) - buf);
		room = pm->pm_len < MAPS_LINEMAX - 1 ?
		    MAPS_LINEMAX - 1 - pm->pm_len : 0;
		if (n > room)
			n = room;
		(void) memcpy(pm->pm_line + pm->pm_len, buf, n);
		pm->pm_len += n;
		if (nl == NULL)
			break;
		maps_line_done(pm);
		buf = nl + 1;
	}
}

/*
 * The end of the text: a last line without its newline is parsed too.
 * An empty one cannot parse, so it is not looked at.  Calling this again
 * does nothing more.
 */
void
procfs_maps_end(procmaps_t *pm)
{
	if (pm->pm_len > 0)
		maps_line_done(pm);
}

/*
 * procfs_parse.c: pure parsers of /proc/PID/stat, cmdline and limits.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procfs_parse.h"

/* Parse a decimal number of at most maxdigits; 0, or -1. */
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

/*
 * "pid (comm) state ppid pgrp session tty_nr tpgid flags ...".  The comm
 * may hold spaces and parentheses, so the fields start after the last ')'.
 */
int
procfs_parse_stat(const char *buf, size_t len, procstat_t *ps)
{
	const char *end = buf + len, *p;
	unsigned long long ppid, flags;
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
	return (0);
}

size_t
procfs_cmdline_to_args(const char *buf, size_t len, char *dst, size_t dstsz)
{
	size_t i, n;

	if (dstsz == 0)
		return (0);
	if (len > 0 && buf[len - 1] == '\0')
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

	for (line = buf; line < end; line = nl + 1) {
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

int
procfs_parse_seccomp(const char *buf, size_t len)
{
	static const char key[] = "Seccomp:";
	const char *end = buf + len, *line, *nl, *p;
	unsigned long long v;

	for (line = buf; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			nl = end;
		if ((size_t)(nl - line) <= sizeof (key) - 1 ||
		    memcmp(line, key, sizeof (key) - 1) != 0)
			continue;
		p = line + sizeof (key) - 1;
		while (p < nl && (*p == ' ' || *p == '\t'))
			p++;
		if (parse_ulong(&p, nl, &v) != 0 || p != nl || v > 2)
			return (-1);
		return ((int)v);
	}
	return (-1);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Perror.c: the handle's message, and the debug trace.
 *
 * Every failure that has more to say than errno says it in one place, the
 * handle's message, through Pseterr(); Perrmsg() reads it.  The trace is
 * for people finding out why a source was or was not chosen, or what the
 * agent did to a thread: LIBPROC_DEBUG=1 in the environment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/Pcontrol.h"

int Pdebug_on = -1;

int
Pseterr(struct ps_prochandle *P, int err, const char *fmt, ...)
{
	va_list ap;

	if (P != NULL) {
		va_start(ap, fmt);
		(void) vsnprintf(P->errmsg, sizeof (P->errmsg), fmt, ap);
		va_end(ap);
		PDEBUG(P, "error: %s (%s)", P->errmsg, strerror(err));
	}
	errno = err;
	return (err);
}

const char *
Perrmsg(struct ps_prochandle *P)
{
	return (P != NULL ? P->errmsg : "");
}

/* Read LIBPROC_DEBUG once; whether tracing is on. */
int
Pdebug_init(void)
{
	const char *v = getenv("LIBPROC_DEBUG");
	int on = v != NULL && strcmp(v, "1") == 0;

	__atomic_store_n(&Pdebug_on, on, __ATOMIC_RELAXED);
	return (on);
}

/*
 * One line, written with one write(2) so that the lines of the walk's
 * threads do not mix: "libproc[OURPID]: pid TARGET: text".  At most 511
 * bytes; a longer text is cut.
 */
void
Pdebug(const struct ps_prochandle *P, const char *fmt, ...)
{
	char line[512], text[400];
	va_list ap;
	int n, e = errno;

	if (P != NULL)
		n = snprintf(line, sizeof (line), "libproc[%d]: pid %d: ",
		    (int)getpid(), (int)P->pid);
	else
		n = snprintf(line, sizeof (line), "libproc[%d]: ",
		    (int)getpid());
	if (n < 0 || (size_t)n >= sizeof (line))
		n = 0;
	va_start(ap, fmt);
	(void) vsnprintf(text, sizeof (text), fmt, ap);
	va_end(ap);
	/*
	 * The text may hold the target's own strings (its comm): a control
	 * byte or a backslash is written \xHH, so that no target can forge a
	 * trace line or reach the terminal.
	 */
	for (const unsigned char *p = (const unsigned char *)text;
	    *p != '\0' && (size_t)n < sizeof (line) - 6; p++) {
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			n += snprintf(line + n, sizeof (line) - (size_t)n,
			    "\\x%02x", *p);
		else
			line[n++] = (char)*p;
	}
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) != (ssize_t)n) {
		/* The trace is best effort: there is nowhere to say it. */
	}
	errno = e;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfiles_json.h: pfiles -J, the same facts as the text as one JSON
 * document, streamed (pfiles.schema.json is its schema; pfiles.1 says
 * what each member means).  Like pfiles_fmt.c, no system calls.
 *
 *	[
 *	{"pid":...,"args":...,"rlimit_nofile":...,"fds":[
 *	{"fd":0,...},
 *	...
 *	],"notes":[...]},
 *	{"arg":"...","error":"..."}
 *	]
 *
 * Strings from the target go through the rule for text from the target
 * (pf_escape.c), then JSON's own escaping.
 */
#ifndef	_PFILES_JSON_H
#define	_PFILES_JSON_H

#include <stdio.h>
#include <sys/resource.h>

#include "pfiles_fmt.h"

typedef struct pfj {
	FILE	*j_out;
	int	j_nobj;		/* objects in the array so far */
	int	j_nfd;		/* fds in the open process object */
	int	j_open;		/* a process object is open */
} pfj_t;

extern void pfj_begin(pfj_t *, FILE *);
extern void pfj_end(pfj_t *);

/*
 * A process: its header facts (args: its whole command line, NULs made
 * spaces; NULL for psinfo's), then its fds, then its notes.
 */
extern void pfj_proc_begin(pfj_t *, const psinfo_t *, const struct rlimit *,
    const char *, size_t);
/* One fd, of a record whose items the caller has found (pf_items). */
extern int pfj_file(pfj_t *, pf_ctx_t *, const pf_items_t *);
/* Ends it: what could not be found out, and the error that ended it. */
extern void pfj_proc_end(pfj_t *, const char *const *, int, const char *);

/* A kernel thread: its header facts only. */
extern void pfj_sysproc(pfj_t *, const psinfo_t *);
/* A pid that could not be examined: the argument, and why. */
extern void pfj_error(pfj_t *, const char *, const char *);

/* A JSON string of our own text (ASCII), quotes included. */
extern void pfj_string(FILE *, const char *);

#endif	/* _PFILES_JSON_H */

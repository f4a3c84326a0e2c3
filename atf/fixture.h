/*
 * fixture.h: fixtures/sockfix started by a test, and its manifest (its
 * own view of every fd it opened) read and parsed.  Shared by the test
 * programs that compare pfiles with the manifest.
 */
#ifndef	_FIXTURE_H
#define	_FIXTURE_H

#include "expect.h"
#include "testutil.h"

typedef struct fixture {
	tu_child_t	fx_child;
	manifest_t	*fx_manifest;
	char		fx_pid[16];
} fixture_t;

/*
 * Start sockfix with argv (NULL-ended; the caller's choice of options,
 * "-s set" among them) and read its manifest, up to its "end" line.
 * Fails the test when sockfix gives none, or one that does not parse, or
 * one of another pid.
 */
void	fx_start(fixture_t *, const char *const argv[]);

#endif	/* _FIXTURE_H */

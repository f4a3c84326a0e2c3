/*
 * fixture.c: fixtures/sockfix started and its manifest read (fixture.h).
 */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

void
fx_start(fixture_t *fx, const char *const argv[])
{
	char err[256], *text;
	int found;

	tu_spawn(&fx->fx_child, argv, TU_STDERR_PIPE);
	text = tu_read_until(fx->fx_child.tc_out, "end", TU_TIMEOUT_MS,
	    &found);
	if (!found) {
		char *msg = tu_read_until(fx->fx_child.tc_err, NULL, 2000,
		    NULL);

		(void) fprintf(stderr, "sockfix stderr:\n%s\n", msg);
		atf_tc_fail("sockfix gave no manifest: %s", msg);
	}
	if ((fx->fx_manifest = mf_parse(text, err, sizeof (err))) == NULL) {
		tu_write_file("manifest", text, strlen(text));
		atf_tc_fail("sockfix manifest: %s", err);
	}
	free(text);
	(void) snprintf(fx->fx_pid, sizeof (fx->fx_pid), "%d",
	    (int)fx->fx_manifest->m_pid);
	ATF_REQUIRE_EQ_MSG(fx->fx_manifest->m_pid, fx->fx_child.tc_pid,
	    "manifest pid %d, child %d", (int)fx->fx_manifest->m_pid,
	    (int)fx->fx_child.tc_pid);
}

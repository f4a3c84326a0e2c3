/*
 * t_docs: the manual pages are well-formed and say what the program does:
 * mandoc finds nothing to warn about, and the synopsis of pfiles.1 is the
 * usage line pfiles itself prints.
 */
#include <atf-c.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define	PFILES_1	SRC_DIR "/libproc-patch/pfiles/pfiles.1"
#define	LIBPROC_3	SRC_DIR "/libproc-patch/libproc/libproc.3"

static void
require_mandoc(void)
{
	if (access("/usr/bin/mandoc", X_OK) != 0)
		atf_tc_skip("mandoc is not installed (apt-get install mandoc)");
}

ATF_TC_WITHOUT_HEAD(lint);
ATF_TC_BODY(lint, tc)
{
	const char *const argv[] = { "mandoc", "-Tlint", "-Wwarning",
	    PFILES_1, LIBPROC_3, NULL };
	tu_result_t r;

	require_mandoc();
	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	ATF_CHECK_MSG(r.tr_outlen == 0 && r.tr_errlen == 0,
	    "mandoc -Tlint: %s%s", r.tr_out, r.tr_err);
	tu_require_exit("mandoc -Tlint", &r, 0);
	tu_result_free(&r);
}

/* Drop mandoc's overstrike (X BS X for bold, _ BS X for underline). */
static void
strip_overstrike(char *text)
{
	char *d = text;

	for (char *s = text; *s != '\0'; s++) {
		if (s[1] == '\b' && s[2] != '\0') {
			s++;	/* the next byte, after the backspace, stays */
			continue;
		}
		*d++ = *s;
	}
	*d = '\0';
}

/* The first line after SYNOPSIS in the rendered page, trimmed. */
static char *
rendered_synopsis(void)
{
	const char *const argv[] = { "mandoc", "-Tascii", "-Owidth=200",
	    PFILES_1, NULL };
	tu_result_t r;
	char *p, *line = NULL;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	tu_require_exit("mandoc -Tascii", &r, 0);
	strip_overstrike(r.tr_out);
	if ((p = strstr(r.tr_out, "\nSYNOPSIS\n")) != NULL) {
		p += strlen("\nSYNOPSIS\n");
		while (*p == ' ')
			p++;
		line = strndup(p, strcspn(p, "\n"));
	}
	tu_result_free(&r);
	ATF_REQUIRE_MSG(line != NULL, "pfiles.1 renders no SYNOPSIS");
	return (line);
}

ATF_TC_WITHOUT_HEAD(synopsis_is_usage);
ATF_TC_BODY(synopsis_is_usage, tc)
{
	const char *const argv[] = { TU_PFILES, NULL };
	tu_result_t r;
	char *usage, *synopsis;

	require_mandoc();
	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	tu_require_exit("pfiles (no arguments)", &r, 2);
	/* "usage:\tpfiles ...\n" */
	ATF_REQUIRE(strncmp(r.tr_err, "usage:\t", 7) == 0);
	usage = strndup(r.tr_err + 7, strcspn(r.tr_err + 7, "\n"));
	tu_result_free(&r);

	synopsis = rendered_synopsis();
	tu_require_same_str("synopsis", usage, synopsis);
	free(usage);
	free(synopsis);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lint);
	ATF_TP_ADD_TC(tp, synopsis_is_usage);
	return (atf_no_error());
}

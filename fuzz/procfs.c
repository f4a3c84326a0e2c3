/*
 * procfs.c: fuzzing harness of the parsers of /proc/PID/stat, cmdline and
 * limits (procfs_parse.c).
 *
 * Input: one byte, the resource asked of the limits parser (as a signed
 * byte, so negative and out-of-range resources are tried too); one byte,
 * the size of the buffer the cmdline is cut into; then the text, handed
 * to all three parsers (every resource is asked of the limits parser).
 *
 * Checked: the stat state is the byte two after the last ')' and the ppid
 * a pid; the cmdline result is exactly the text less its final NUL, NULs
 * made spaces, cut to the buffer and NUL-terminated inside it; a limits
 * line is found only for a resource that exists.
 */
#include <limits.h>
#include <sys/resource.h>

#include "fuzz.h"
#include "procfs_parse.h"

static void
check_stat(const char *text, size_t len)
{
	const char *last = NULL;
	procstat_t ps;

	memset(&ps, 0, sizeof (ps));
	if (procfs_parse_stat(text, len, &ps) != 0)
		return;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == ')')
			last = text + i;
	}
	FUZZ_CHECK(last != NULL && last + 2 < text + len);
	FUZZ_CHECK(ps.ps_state == last[2]);
	FUZZ_CHECK(ps.ps_ppid >= 0);
}

static void
check_cmdline(const char *text, size_t len, size_t dstsz)
{
	size_t n, want;
	char *dst;

	if ((dst = malloc(dstsz)) == NULL)
		abort();
	n = procfs_cmdline_to_args(text, len, dst, dstsz);
	if (dstsz == 0) {
		FUZZ_CHECK(n == 0);
		free(dst);
		return;
	}
	want = len > 0 && text[len - 1] == '\0' ? len - 1 : len;
	if (want > dstsz - 1)
		want = dstsz - 1;
	FUZZ_CHECK(n == want);
	FUZZ_CHECK(dst[n] == '\0');
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(dst[i] == (text[i] == '\0' ? ' ' : text[i]));
	free(dst);
}

static void
check_limits(const char *text, size_t len, int resource)
{
	struct rlimit rl;

	if (procfs_parse_limits(text, len, resource, &rl) == 0)
		FUZZ_CHECK(resource >= 0 && resource < RLIMIT_NLIMITS);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_in_t in;
	int resource;
	size_t dstsz, tlen;
	uint8_t *text;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	resource = (int8_t)fuzz_u8(&in);
	dstsz = fuzz_u8(&in);
	text = fuzz_copy(&in, in.fi_left, &tlen);

	check_stat((const char *)text, tlen);
	check_cmdline((const char *)text, tlen, dstsz);
	check_limits((const char *)text, tlen, resource);
	for (int r = -1; r <= RLIMIT_NLIMITS; r++)
		check_limits((const char *)text, tlen, r);
	free(text);
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * procfs.c: fuzzing harness of the parsers of /proc/PID/stat, cmdline,
 * limits and status (procfs_parse.c).
 *
 * Input: one byte, the resource asked of the limits parser (as a signed
 * byte, so negative and out-of-range resources are tried too); one byte,
 * the size of the buffer the cmdline is cut into; then the text, handed
 * to all four parsers (every resource is asked of the limits parser).
 *
 * Checked: the stat state is the byte two after the last ')' and the ppid
 * a pid; the cmdline result is exactly the text less its final NUL, NULs
 * made spaces, cut to the buffer and NUL-terminated inside it; a limits
 * line is found only for a resource that exists; the status facts are in
 * range and each known one comes from a line that starts with its key:
 * the state is the byte after "State:" and its spaces and tabs, the
 * tracer the number after "TracerPid:", the seccomp mode the digit after
 * "Seccomp:".
 */
#include <limits.h>
#include <sys/resource.h>

#include "fuzz.h"
#include "core/procfs_parse.h"

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
	want = len;
	while (want > 0 && text[want - 1] == '\0')
		want--;
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

/*
 * Where the value of a line that starts with key begins (after spaces
 * and tabs), for the first such line at or after *offp; -1 when none.
 * *offp is moved past that line's start.  Never reads past len.
 */
static long
next_status_line(const char *text, size_t len, const char *key,
    size_t *offp)
{
	size_t klen = strlen(key), i, j;

	for (i = *offp; i < len; i++) {
		if (i > 0 && text[i - 1] != '\n')
			continue;
		if (len - i < klen || memcmp(text + i, key, klen) != 0)
			continue;
		for (j = i + klen; j < len && (text[j] == ' ' ||
		    text[j] == '\t'); j++)
			continue;
		*offp = i + 1;
		return ((long)j);
	}
	*offp = len;
	return (-1);
}

/* Is there a line "key", spaces or tabs, then the byte c? */
static int
has_status_byte(const char *text, size_t len, const char *key, char c)
{
	size_t off = 0;
	long j;

	while ((j = next_status_line(text, len, key, &off)) >= 0) {
		if ((size_t)j < len && text[j] == c)
			return (1);
	}
	return (0);
}

/*
 * Is there a line "key", spaces or tabs, then a decimal number of value
 * v (leading zeros allowed) that ends the line or the text?
 */
static int
has_status_number(const char *text, size_t len, const char *key,
    long long v)
{
	size_t off = 0, k;
	long long got;
	long j;

	while ((j = next_status_line(text, len, key, &off)) >= 0) {
		got = 0;
		for (k = (size_t)j; k < len && text[k] >= '0' &&
		    text[k] <= '9' && got <= INT_MAX; k++)
			got = got * 10 + (text[k] - '0');
		if (k > (size_t)j && got == v && (k == len || text[k] == '\n'))
			return (1);
	}
	return (0);
}

static void
check_status(const char *text, size_t len)
{
	procstatus_t pst;

	memset(&pst, 0x5a, sizeof (pst));
	procfs_parse_status(text, len, &pst);
	FUZZ_CHECK(pst.pst_seccomp >= -1 && pst.pst_seccomp <= 2);
	FUZZ_CHECK(pst.pst_tracer >= 0);
	if (pst.pst_state != '?')
		FUZZ_CHECK(pst.pst_state != '\n' &&
		    has_status_byte(text, len, "State:", pst.pst_state));
	if (pst.pst_tracer != 0)
		FUZZ_CHECK(has_status_number(text, len, "TracerPid:",
		    (long long)pst.pst_tracer));
	if (pst.pst_seccomp != -1)
		FUZZ_CHECK(has_status_number(text, len, "Seccomp:",
		    pst.pst_seccomp));
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
	check_status((const char *)text, tlen);
	for (int r = -1; r <= RLIMIT_NLIMITS; r++)
		check_limits((const char *)text, tlen, r);
	free(text);
	return (0);
}

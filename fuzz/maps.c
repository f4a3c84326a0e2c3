/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * maps.c: fuzzing harness of the streaming /proc/PID/maps scanner and its
 * line parser (procfs_parse.c).
 *
 * Input: 8 bytes, the stack pointer; 8 bytes, the pc (both
 * little-endian); one byte that seeds the sizes of the pieces; then the
 * text of a maps file.  The text is scanned three ways that must agree
 * exactly:
 *
 *   1. fed whole, as one piece;
 *   2. fed in pieces whose sizes come from the seed byte (0: byte by
 *	byte; else a pseudo-random walk of sizes from 0 up to 4 times the
 *	seed, empty pieces included), each piece in its own buffer of
 *	exactly its size, so that a read past a piece is caught;
 *   3. a model, from procfs_parse.h's description: split into lines
 *	here, each cut to MAPS_LINEMAX - 1 bytes, handed to
 *	procfs_parse_maps_line(), and the rules of the scan applied here
 *	(the [vdso] line, the mapping holding sp and whether it is a stack
 *	of a known kind, pc..pc+2 in an executable mapping), the previous
 *	line being the previous one that parsed.
 *
 * Checked besides: the line parser accepts exactly the lines of the form
 * "HEX-HEX " and four more bytes whose numbers fit 64 bits and make a
 * non-empty range, and gives back those numbers and bytes; the mapping
 * found for sp holds sp; a [vdso] found is not empty.
 */
#include <ctype.h>

#include "fuzz.h"
#include "core/procfs_parse.h"

/* The three results. */
static procmaps_t whole, pieces, model;

static void
scan_whole(const uint8_t *text, size_t len, uint64_t sp, uint64_t pc)
{
	procfs_maps_init(&whole, sp, pc);
	procfs_maps_feed(&whole, (const char *)text, len);
	procfs_maps_end(&whole);
}

static void
scan_pieces(const uint8_t *text, size_t len, uint64_t sp, uint64_t pc,
    uint8_t seed)
{
	uint32_t x = seed;
	size_t off = 0, n, last = 1;
	char *piece;

	procfs_maps_init(&pieces, sp, pc);
	while (off < len) {
		x = x * 1103515245U + 12345U;
		if (seed == 0)
			n = 1;
		else
			n = (size_t)((x >> 16) % (4U * seed + 1));
		/* An empty piece, then never two: the loop must end. */
		if (n == 0 && last == 0)
			n = 1;
		if (n > len - off)
			n = len - off;
		if ((piece = malloc(n)) == NULL)
			abort();
		memcpy(piece, text + off, n);
		procfs_maps_feed(&pieces, piece, n);
		free(piece);
		off += n;
		last = n;
	}
	procfs_maps_end(&pieces);
}

/*
 * The line parser's contract, worked out here without it: is line of
 * the form HEX-HEX followed by a space and four more bytes, with numbers
 * that fit 64 bits, lo < hi?  Their values in *lop and *hip.
 */
static int
line_ok(const char *line, uint64_t *lop, uint64_t *hip)
{
	const char *p = line;
	uint64_t v[2];

	for (int i = 0; i < 2; i++) {
		const char *start = p, *sig;

		while (isxdigit((unsigned char)*p))
			p++;
		if (p == start || *p != (i == 0 ? '-' : ' '))
			return (0);
		/* Leading zeros do not count against the 16 digits. */
		for (sig = start; sig < p - 1 && *sig == '0'; sig++)
			continue;
		if (p - sig > 16)
			return (0);
		v[i] = strtoull(start, NULL, 16);	/* NUL-ended: safe */
		p++;
	}
	if (strnlen(p, 4) < 4 || v[0] >= v[1])
		return (0);
	*lop = v[0];
	*hip = v[1];
	return (1);
}

/* One line as the model takes it. */
static void
model_line(const uint8_t *text, size_t n)
{
	char line[MAPS_LINEMAX];
	const char *perms;
	maps_line_t ml;
	uint64_t lo = 0, hi = 0;
	int ok, parsed;

	if (n > MAPS_LINEMAX - 1)
		n = MAPS_LINEMAX - 1;
	memcpy(line, text, n);
	line[n] = '\0';
	ok = line_ok(line, &lo, &hi);
	parsed = procfs_parse_maps_line(line, &ml) == 0;
	FUZZ_CHECK(ok == parsed);
	if (!parsed)
		return;
	FUZZ_CHECK(ml.ml_lo == lo && ml.ml_hi == hi);
	perms = strchr(line, ' ') + 1;
	FUZZ_CHECK(memcmp(ml.ml_perms, perms, 4) == 0 &&
	    ml.ml_perms[4] == '\0');
	FUZZ_CHECK(ml.ml_name >= perms && ml.ml_name <= line + strlen(line));
	FUZZ_CHECK(ml.ml_name[0] != ' ');

	/* The rules of the scan, from the header's description. */
	if (strcmp(ml.ml_name, "[vdso]") == 0) {
		model.pm_vdso_lo = lo;
		model.pm_vdso_hi = hi;
	}
	if (lo <= model.pm_sp && model.pm_sp <= hi - 1) {
		int stack = strcmp(ml.ml_name, "[stack]") == 0;
		int guarded = ml.ml_name[0] == '\0' &&
		    strncmp(ml.ml_perms, "rw", 2) == 0 &&
		    model.pm_have_prev && model.pm_prev_hi == lo &&
		    memcmp(model.pm_prev_perms, "---p", 5) == 0;

		model.pm_stack_lo = lo;
		model.pm_stack_hi = hi;
		model.pm_stack_known = stack || guarded;
	}
	if (ml.ml_perms[2] == 'x' && hi >= 2 && lo <= model.pm_pc &&
	    model.pm_pc <= hi - 2)
		model.pm_pc_exec = 1;
	model.pm_have_prev = 1;
	model.pm_prev_hi = hi;
	memcpy(model.pm_prev_perms, ml.ml_perms, 5);
}

static void
scan_model(const uint8_t *text, size_t len, uint64_t sp, uint64_t pc)
{
	const uint8_t *p = text, *end = text + len, *nl;

	memset(&model, 0, sizeof (model));
	model.pm_sp = sp;
	model.pm_pc = pc;
	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			/* The unterminated last line. */
			model_line(p, (size_t)(end - p));
			break;
		}
		model_line(p, (size_t)(nl - p));
		p = nl + 1;
	}
}

static void
check_same(const procmaps_t *a, const procmaps_t *b)
{
	FUZZ_CHECK(a->pm_vdso_lo == b->pm_vdso_lo);
	FUZZ_CHECK(a->pm_vdso_hi == b->pm_vdso_hi);
	FUZZ_CHECK(a->pm_stack_lo == b->pm_stack_lo);
	FUZZ_CHECK(a->pm_stack_hi == b->pm_stack_hi);
	FUZZ_CHECK(a->pm_stack_known == b->pm_stack_known);
	FUZZ_CHECK(a->pm_pc_exec == b->pm_pc_exec);
	FUZZ_CHECK(a->pm_have_prev == b->pm_have_prev);
	if (a->pm_have_prev) {
		FUZZ_CHECK(a->pm_prev_hi == b->pm_prev_hi);
		FUZZ_CHECK(memcmp(a->pm_prev_perms, b->pm_prev_perms,
		    sizeof (a->pm_prev_perms)) == 0);
	}
}

static void
check_sane(const procmaps_t *pm, uint64_t sp, uint64_t pc)
{
	FUZZ_CHECK(pm->pm_sp == sp && pm->pm_pc == pc);
	if (pm->pm_stack_hi != 0) {
		FUZZ_CHECK(pm->pm_stack_lo <= sp && sp < pm->pm_stack_hi);
	} else {
		FUZZ_CHECK(pm->pm_stack_lo == 0 && pm->pm_stack_known == 0);
	}
	FUZZ_CHECK(pm->pm_stack_known == 0 || pm->pm_stack_known == 1);
	if (pm->pm_vdso_hi != 0)
		FUZZ_CHECK(pm->pm_vdso_lo < pm->pm_vdso_hi);
	else
		FUZZ_CHECK(pm->pm_vdso_lo == 0);
	FUZZ_CHECK(pm->pm_pc_exec == 0 || pm->pm_pc_exec == 1);
	/* The end leaves nothing gathered. */
	FUZZ_CHECK(pm->pm_len == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint64_t sp, pc;
	uint8_t seed;
	fuzz_in_t in;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	sp = fuzz_u64(&in);
	pc = fuzz_u64(&in);
	seed = fuzz_u8(&in);

	scan_whole(in.fi_p, in.fi_left, sp, pc);
	scan_pieces(in.fi_p, in.fi_left, sp, pc, seed);
	scan_model(in.fi_p, in.fi_left, sp, pc);

	check_sane(&whole, sp, pc);
	check_same(&whole, &pieces);
	check_same(&whole, &model);
	return (0);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz.h: what every fuzzing harness shares.
 *
 * A harness is one source file, fuzz/NAME.c, that defines
 * LLVMFuzzerTestOneInput() and nothing else that is global.  It is linked
 * with one of three drivers:
 *
 *	fuzz/afl.c	AFL++ persistent mode (built with afl-clang-fast)
 *	fuzz/replay.c	runs the files and directories named on its command
 *			line, once each (any C compiler; make check)
 *	libFuzzer	clang -fsanitize=fuzzer supplies main() itself
 *
 * Every driver hands the harness a copy of the input in a buffer of
 * exactly its length, so that AddressSanitizer sees a read past its end.
 * A harness checks its invariants with FUZZ_CHECK, which aborts: the
 * fuzzer then saves the input as a crash.
 */
#ifndef	_FUZZ_H
#define	_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs longer than this are ignored: no parser needs more to be lost. */
#define	FUZZ_MAXLEN	65536

extern int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define	FUZZ_CHECK(e)	((e) ? (void)0 : fuzz_fail(#e, __FILE__, __LINE__))

static inline void
fuzz_fail(const char *what, const char *file, int line)
{
	(void) fprintf(stderr, "fuzz: invariant failed: %s (%s:%d)\n", what,
	    file, line);
	abort();
}

/*
 * A reader of the input: bytes taken from the front; past the end it
 * yields zeros and lengths of 0, so a harness needs no length checks of
 * its own to decode.
 */
typedef struct fuzz_in {
	const uint8_t	*fi_p;
	size_t		fi_left;
} fuzz_in_t;

static inline void
fuzz_in_init(fuzz_in_t *in, const uint8_t *data, size_t len)
{
	in->fi_p = data;
	in->fi_left = len;
}

/* Up to n bytes from the front; returns how many there were. */
static inline size_t
fuzz_take(fuzz_in_t *in, void *dst, size_t n)
{
	size_t k = n < in->fi_left ? n : in->fi_left;

	if (k > 0)
		memcpy(dst, in->fi_p, k);
	if (k < n)
		memset((uint8_t *)dst + k, 0, n - k);
	in->fi_p += k;
	in->fi_left -= k;
	return (k);
}

static inline uint8_t
fuzz_u8(fuzz_in_t *in)
{
	uint8_t v;

	(void) fuzz_take(in, &v, sizeof (v));
	return (v);
}

/* Little-endian, whatever the host: seeds are files. */
static inline uint16_t
fuzz_u16(fuzz_in_t *in)
{
	uint8_t b[2];

	(void) fuzz_take(in, b, sizeof (b));
	return ((uint16_t)(b[0] | b[1] << 8));
}

static inline uint32_t
fuzz_u32(fuzz_in_t *in)
{
	uint8_t b[4];

	(void) fuzz_take(in, b, sizeof (b));
	return ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24);
}

static inline uint64_t
fuzz_u64(fuzz_in_t *in)
{
	uint64_t lo = fuzz_u32(in);

	return (lo | (uint64_t)fuzz_u32(in) << 32);
}

/*
 * The next n bytes (fewer at the end) as a fresh malloc'd copy of exactly
 * that length, so that a read past it is caught.  *lenp gets the length.
 * Free with free().  Never NULL: malloc(0) gives a unique pointer on
 * glibc and under AddressSanitizer (where reading it is caught too).
 */
static inline uint8_t *
fuzz_copy(fuzz_in_t *in, size_t n, size_t *lenp)
{
	size_t k = n < in->fi_left ? n : in->fi_left;
	uint8_t *p;

	if ((p = malloc(k)) == NULL)
		abort();
	(void) fuzz_take(in, p, k);
	*lenp = k;
	return (p);
}

#endif	/* _FUZZ_H */

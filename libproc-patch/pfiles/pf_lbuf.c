/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_lbuf.c: the line buffer of pfiles' text formatter, its out-of-line
 * part (pf_lbuf.h has the rest, in line): the flush, the target's text
 * through the escaping rule, and decimal numbers.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pf_escape.h"
#include "pf_lbuf.h"

/* Out of line: the rare way, where lb_room and the writes are in line. */
void
lb_flush(lbuf_t *lb)
{
	if (lb->lb_len > 0)
		(void) fwrite(lb->lb_buf, 1, lb->lb_len, lb->lb_out);
	lb->lb_len = 0;
}

/* In the buffer only when n bytes at PF_ESC_UNITMAX each fit there. */
void
lb_esc(lbuf_t *lb, const void *s, size_t n)
{
	if (n < LB_SIZE / PF_ESC_UNITMAX) {
		char *at = lb_room(lb, n * PF_ESC_UNITMAX + 1);

		lb->lb_len += pf_escape(at, LB_SIZE - lb->lb_len, s, n,
		    PF_ESC_NOMAX);
		return;
	}
	lb_flush(lb);
	pf_fputesc(lb->lb_out, s, n);
}

/* The decimal digits of 0 to 99, two by two. */
static const char lb_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930"
    "31323334353637383940414243444546474849505152535455565758596061"
    "62636465666768697071727374757677787980818283848586878889909192"
    "93949596979899";

/*
 * Written in place from its last digit, two at a time from a table, in
 * 32-bit arithmetic when it fits (most numbers here: ports, octets, ids,
 * inodes).  One or two digits (the zeros of dev:, uid:, rdev:...) without
 * counting them first.
 */
char *
put_uint(char *p, unsigned long long v)
{
	static const unsigned long long tens[LB_NUMMAX] = {
		1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	};
	size_t ndig;
	char *end;
	uint32_t w;

	if (v < 10)
		return (put_chr(p, (char)('0' + v)));
	if (v < 100)
		return (put_mem(p, &lb_pairs[2 * v], 2));
	/*
	 * Its digits: log10 from its bit length (1233 / 4096 is just above
	 * log10(2)), one less when below that power of ten.
	 */
	ndig = (size_t)(64 - __builtin_clzll(v)) * 1233 >> 12;
	ndig += v >= tens[ndig];
	end = p + ndig;
	p = end;
	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, &lb_pairs[2 * r], 2);
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		p -= 2;
		memcpy(p, &lb_pairs[2 * (w % 100)], 2);
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, &lb_pairs[2 * w], 2);
	} else {
		*--p = (char)('0' + w);
	}
	return (end);
}

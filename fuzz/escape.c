/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * escape.c: fuzzing harness of the rule for text from the target
 * (pf_escape.c), which every name pfiles prints from a target goes
 * through.
 *
 * Input: one byte, a width for one more cut; one byte, the size of a
 * small output buffer; then the text (at most TEXT_MAX bytes).
 *
 * Checked on the whole escape of the text:
 *	- no byte below 0x20, no 0x7f; every backslash starts "\\" or
 *	  "\xHH" (two lower-case hex digits); every byte from 0x80 up is
 *	  part of a well-formed UTF-8 sequence of a character that is
 *	  shown (this harness's own decoder, not pf_escape.c's);
 *	- unescaping it gives the text back;
 *	- it escapes nothing it need not: "\xHH" stands for a control
 *	  byte, DEL, or a byte that does not start a shown character;
 *	- pf_fputesc() writes exactly the same bytes.
 * Checked on every cut (each width from 0 to 80, the header's 70, the
 * input's width, and the small buffer, of exactly its size): it is a
 * prefix of the whole escape, ends where a unit ends (never inside an
 * escape or a UTF-8 sequence), and holds every unit that fits.
 */
#include "fuzz.h"
#include "pf_escape.h"

#define	TEXT_MAX	4096	/* a path is at most PATH_MAX */
#define	HEADER_WIDTH	70
#define	ALL_WIDTHS	80

/*
 * The code point of the shown character whose UTF-8 sequence starts at
 * p, with the sequence's length in *np; -1 when there is none there.
 */
static long
shown_char(const uint8_t *p, size_t left, size_t *np)
{
	long cp, min;
	size_t n;

	if (p[0] < 0x80)
		return (-1);
	if (p[0] >= 0xf0) {
		n = 4;
		min = 0x10000;
		cp = p[0] & 0x07;
		if (p[0] > 0xf7)
			return (-1);
	} else if (p[0] >= 0xe0) {
		n = 3;
		min = 0x800;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xc0) {
		n = 2;
		min = 0x80;
		cp = p[0] & 0x1f;
	} else {
		return (-1);
	}
	if (left < n)
		return (-1);
	for (size_t i = 1; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf)
			return (-1);
		cp = (cp << 6) + (p[i] - 0x80);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return (-1);
	if (cp < 0xa0 || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff)
		return (-1);
	*np = n;
	return (cp);
}

static int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);		/* upper case included: the rule says lower */
}

/*
 * Check the whole escape out (olen bytes) of the text in (len bytes):
 * decode it unit by unit, back into the text.  Sets ends[k] for every
 * offset k of out where a unit ends (ends[0] too).
 */
static void
check_whole(const uint8_t *out, size_t olen, const uint8_t *in, size_t len,
    uint8_t *ends)
{
	size_t o = 0, i = 0, n;
	int hi, lo;

	ends[0] = 1;
	while (o < olen) {
		uint8_t c = out[o];

		FUZZ_CHECK(c >= 0x20 && c != 0x7f);
		FUZZ_CHECK(i < len);
		if (c == '\\') {
			FUZZ_CHECK(o + 1 < olen);
			if (out[o + 1] == '\\') {
				FUZZ_CHECK(in[i] == '\\');
				o += 2;
				i++;
			} else {
				FUZZ_CHECK(out[o + 1] == 'x' && o + 3 < olen);
				hi = hexval(out[o + 2]);
				lo = hexval(out[o + 3]);
				FUZZ_CHECK(hi >= 0 && lo >= 0);
				FUZZ_CHECK(in[i] == (uint8_t)(hi << 4 | lo));
				/* Only what must be escaped is. */
				FUZZ_CHECK(in[i] < 0x20 || in[i] == 0x7f ||
				    (in[i] >= 0x80 &&
				    shown_char(in + i, len - i, &n) < 0));
				o += 4;
				i++;
			}
		} else if (c < 0x80) {
			FUZZ_CHECK(in[i] == c);
			o++;
			i++;
		} else {
			FUZZ_CHECK(shown_char(out + o, olen - o, &n) >= 0);
			FUZZ_CHECK(n <= len - i &&
			    memcmp(out + o, in + i, n) == 0);
			o += n;
			i += n;
		}
		ends[o] = 1;
	}
	FUZZ_CHECK(o == olen);
	FUZZ_CHECK(i == len);	/* all of the text, nothing more */
}

/*
 * A cut of the whole escape: n bytes written into a buffer, bounded by
 * width: a prefix that ends where a unit ends, and holds every unit
 * that fits (the next unit ends past width).
 */
static void
check_cut(const char *cut, size_t n, size_t width, const char *whole,
    size_t wlen, const uint8_t *ends)
{
	size_t next;

	FUZZ_CHECK(n <= width && n <= wlen);
	FUZZ_CHECK(cut[n] == '\0');
	FUZZ_CHECK(memcmp(cut, whole, n) == 0);
	FUZZ_CHECK(ends[n]);
	if (n == wlen)
		return;
	for (next = n + 1; !ends[next]; next++)
		continue;
	FUZZ_CHECK(next > width);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_in_t in;
	size_t width, dstsz, tlen, wlen, n, slen;
	uint8_t *text, *ends;
	char *whole, *cut, *small, *stream = NULL;
	FILE *fp;

	if (len > 2 + TEXT_MAX)
		return (0);
	fuzz_in_init(&in, data, len);
	width = fuzz_u8(&in);
	dstsz = fuzz_u8(&in);
	text = fuzz_copy(&in, in.fi_left, &tlen);

	/* No byte escapes to more than 4: this buffer always holds it. */
	if ((whole = malloc(4 * tlen + 1)) == NULL ||
	    (ends = calloc(4 * tlen + 1, 1)) == NULL ||
	    (cut = malloc(ALL_WIDTHS + 1)) == NULL ||
	    (small = malloc(dstsz)) == NULL)
		abort();
	wlen = pf_escape(whole, 4 * tlen + 1, text, tlen, PF_ESC_NOMAX);
	FUZZ_CHECK(wlen >= tlen && wlen <= 4 * tlen);
	FUZZ_CHECK(whole[wlen] == '\0' && strlen(whole) == wlen);
	check_whole((const uint8_t *)whole, wlen, text, tlen, ends);

	if ((fp = open_memstream(&stream, &slen)) == NULL)
		abort();
	pf_fputesc(fp, text, tlen);
	FUZZ_CHECK(fclose(fp) == 0);
	FUZZ_CHECK(slen == wlen && memcmp(stream, whole, wlen) == 0);
	free(stream);

	for (size_t w = 0; w <= ALL_WIDTHS; w++) {
		n = pf_escape(cut, ALL_WIDTHS + 1, text, tlen, w);
		check_cut(cut, n, w, whole, wlen, ends);
	}
	n = pf_escape(cut, HEADER_WIDTH + 1, text, tlen, PF_ESC_NOMAX);
	check_cut(cut, n, HEADER_WIDTH, whole, wlen, ends);
	n = pf_escape(cut, ALL_WIDTHS + 1, text, tlen, width);
	check_cut(cut, n, width < ALL_WIDTHS ? width : ALL_WIDTHS, whole,
	    wlen, ends);

	/* A buffer of exactly dstsz bytes: no write past it. */
	n = pf_escape(small, dstsz, text, tlen, PF_ESC_NOMAX);
	if (dstsz == 0)
		FUZZ_CHECK(n == 0);
	else
		check_cut(small, n, dstsz - 1, whole, wlen, ends);

	free(small);
	free(cut);
	free(ends);
	free(whole);
	free(text);
	return (0);
}

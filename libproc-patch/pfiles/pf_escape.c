/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_escape.c: the rule for text from the target (pf_escape.h).
 *
 * Every field pfiles prints from the target goes through esc_run(): a
 * process controls its command line, comm, paths and socket names, and
 * with a newline or an escape sequence in one it could otherwise forge
 * lines of pfiles' output or reach the terminal.
 *
 * UTF-8 is checked with the byte ranges of Unicode's table of
 * well-formed sequences (Unicode 15, table 3-7), so that overlong forms,
 * surrogates and code points past U+10FFFF are never well-formed; the
 * characters that are well-formed but not shown are then recognised by
 * their bytes.
 */
#include <string.h>

#include "pf_escape.h"

static const char hexdigits[] = "0123456789abcdef";

/*
 * The length (2-4) of the well-formed UTF-8 sequence at p, or 0 when
 * the bytes there are not one (or len cuts it short).
 */
static size_t
utf8_len(const unsigned char *p, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */
	size_t n;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return (0);	/* ASCII, a continuation byte, C0, C1, F5-FF */
	if (len < n)
		return (0);
	switch (p[0]) {
	case 0xe0:		/* below U+0800: overlong */
		lo = 0xa0;
		break;
	case 0xed:		/* U+D800-U+DFFF: surrogates */
		hi = 0x9f;
		break;
	case 0xf0:		/* below U+10000: overlong */
		lo = 0x90;
		break;
	case 0xf4:		/* past U+10FFFF */
		hi = 0x8f;
		break;
	}
	if (p[1] < lo || p[1] > hi)
		return (0);
	for (size_t i = 2; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return (0);
	}
	return (n);
}

/*
 * Is the well-formed sequence of n bytes at p one of the characters
 * never shown: a C1 control, a zero-width or bidirectional formatting
 * character, or a line or paragraph separator?
 */
static int
utf8_hidden(const unsigned char *p, size_t n)
{
	if (n == 2)				/* U+0080-U+009F */
		return (p[0] == 0xc2 && p[1] <= 0x9f);
	if (n != 3)
		return (0);
	if (p[0] == 0xe2 && p[1] == 0x80)	/* U+2000-U+203F */
		return ((p[2] >= 0x8b && p[2] <= 0x8f) ||	/* 200B-200F */
		    (p[2] >= 0xa8 && p[2] <= 0xae));	/* 2028-202E */
	if (p[0] == 0xe2 && p[1] == 0x81)	/* U+2066-U+2069 */
		return (p[2] >= 0xa6 && p[2] <= 0xa9);
	return (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf);	/* FEFF */
}

/*
 * The next unit of output for the len (> 0) bytes at p: its text in
 * unit, its length in *unitlen; returns how many input bytes it stands
 * for.
 */
static size_t
esc_unit(const unsigned char *p, size_t len, char unit[PF_ESC_UNITMAX],
    size_t *unitlen)
{
	unsigned char c = p[0];
	size_t n;

	if (c == '\\') {
		unit[0] = '\\';
		unit[1] = '\\';
		*unitlen = 2;
		return (1);
	}
	if (c >= 0x20 && c < 0x7f) {
		unit[0] = (char)c;
		*unitlen = 1;
		return (1);
	}
	if (c >= 0x80 && (n = utf8_len(p, len)) != 0 && !utf8_hidden(p, n)) {
		memcpy(unit, p, n);
		*unitlen = n;
		return (n);
	}
	/*
	 * A control byte, or the first byte of a sequence not shown: this
	 * byte alone, as an escape.  The bytes after it in that sequence
	 * are continuation bytes, which never start a well-formed sequence,
	 * so each of them is escaped in turn: every byte of the sequence is
	 * written \xHH, as the rule says.
	 */
	unit[0] = '\\';
	unit[1] = 'x';
	unit[2] = hexdigits[c >> 4];
	unit[3] = hexdigits[c & 0xf];
	*unitlen = 4;
	return (1);
}

/*
 * Escape as many whole units of the len bytes at src as fit in room
 * bytes of dst.  Returns the bytes written; *usedp gets the input bytes
 * they stand for.
 */
static size_t
esc_run(char *dst, size_t room, const unsigned char *src, size_t len,
    size_t *usedp)
{
	char unit[PF_ESC_UNITMAX];
	size_t in = 0, out = 0, n, ulen;

	while (in < len) {
		/* Printable ASCII, the most of it, stands for itself. */
		if (src[in] >= 0x20 && src[in] < 0x7f && src[in] != '\\') {
			if (out == room)
				break;
			dst[out++] = (char)src[in++];
			continue;
		}
		n = esc_unit(src + in, len - in, unit, &ulen);
		if (ulen > room - out)
			break;
		memcpy(dst + out, unit, ulen);
		out += ulen;
		in += n;
	}
	*usedp = in;
	return (out);
}

size_t
pf_escape(char *dst, size_t dstsz, const void *src, size_t len,
    size_t maxout)
{
	size_t room, used, n;

	if (dstsz == 0)
		return (0);
	room = dstsz - 1 < maxout ? dstsz - 1 : maxout;
	n = esc_run(dst, room, src, len, &used);
	dst[n] = '\0';
	return (n);
}

void
pf_fputesc(FILE *out, const void *src, size_t len)
{
	const unsigned char *p = src;
	char buf[256];
	size_t used, n;

	/* A chunk at a time; the buffer holds a unit at least. */
	while (len > 0) {
		n = esc_run(buf, sizeof (buf), p, len, &used);
		(void) fwrite(buf, 1, n, out);
		p += used;
		len -= used;
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_lbuf.h: the line buffer of pfiles' text formatter (pfiles_fmt.c,
 * pf_sockfmt.c), and its writers of bytes, words and numbers.  Private to
 * the formatter.
 *
 * The text of a record is built in memory and handed to the stream in one
 * fwrite: without the printf family (three quarters of the formatter's
 * time once) and without stdio's own cost per call, which was a third of
 * what was left with some twenty writes per record.  A piece that does
 * not fit flushes what is there first, so the buffer bounds nothing.
 * Text from the target goes in through lb_esc (pf_escape.c's rule).
 *
 * The writers are called a few dozen times per record: those that are
 * short are here, static inline, so that each file of the formatter has
 * them in line as when the formatter was one file; the rare ways and the
 * long ones are in pf_lbuf.c.
 */
#ifndef	_PF_LBUF_H
#define	_PF_LBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define	LB_SIZE		4096
#define	LB_NUMMAX	20	/* digits of the largest unsigned long long */

typedef struct lbuf {
	FILE	*lb_out;
	size_t	lb_len;
	char	lb_buf[LB_SIZE];
} lbuf_t;

/* What is in the buffer, to the stream; the buffer empty again. */
extern void lb_flush(lbuf_t *);

/*
 * n bytes of text from the target, through the rule (pf_escape.c): into
 * the buffer when its escaped form fits there, else straight to the
 * stream.
 */
extern void lb_esc(lbuf_t *, const void *, size_t);

/*
 * An unsigned number in decimal, at the cursor (LB_NUMMAX bytes at most);
 * returns the cursor after it.
 */
extern char *put_uint(char *, unsigned long long);

static inline void
lb_init(lbuf_t *lb, FILE *out)
{
	lb->lb_out = out;
	lb->lb_len = 0;
}

/* Where n more bytes (n <= LB_SIZE) go: flushed first if they'd not fit. */
static inline __attribute__((always_inline)) char *
lb_room(lbuf_t *lb, size_t n)
{
	if (LB_SIZE - lb->lb_len < n)
		lb_flush(lb);
	return (lb->lb_buf + lb->lb_len);
}

/*
 * A line whose length has a bound: room for all of it is made once
 * (lb_begin), its pieces are put at a cursor kept in a register, with no
 * check each (put_*: each returns the cursor after what it put), and the
 * buffer takes them (lb_end).  A piece of unbounded length (the target's
 * text) is never put so: it goes through lb_esc.
 */
static inline __attribute__((always_inline)) char *
lb_begin(lbuf_t *lb, size_t bound)
{
	return (lb_room(lb, bound));
}

static inline __attribute__((always_inline)) void
lb_end(lbuf_t *lb, char *p)
{
	lb->lb_len = (size_t)(p - lb->lb_buf);
}

/*
 * n bytes.  Most pieces are words of a few bytes: those are copied as two
 * overlapping 8- or 4-byte moves, not by a call of memcpy for n bytes.
 */
static inline __attribute__((always_inline)) char *
put_mem(char *p, const char *s, size_t n)
{
	if (n >= 8 && n <= 16) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else {
		memcpy(p, s, n);
	}
	return (p + n);
}

#define	put_lit(p, s)	put_mem((p), ("" s), sizeof (s) - 1)

static inline __attribute__((always_inline)) char *
put_chr(char *p, char c)
{
	*p = c;
	return (p + 1);
}

/* A signed number: its sign and LB_NUMMAX digits at most. */
static inline char *
put_int(char *p, long long v)
{
	if (v < 0)
		return (put_uint(put_chr(p, '-'), 0ULL - (unsigned long long)v));
	return (put_uint(p, (unsigned long long)v));
}

/* n bytes. */
static inline __attribute__((always_inline)) void
lb_mem(lbuf_t *lb, const char *s, size_t n)
{
	if (n > LB_SIZE) {
		lb_flush(lb);
		(void) fwrite(s, 1, n, lb->lb_out);
		return;
	}
	lb_end(lb, put_mem(lb_room(lb, n), s, n));
}

/* A string literal: its length known when compiled. */
#define	lb_lit(lb, s)	lb_mem((lb), (s), sizeof (s) - 1)

static inline __attribute__((always_inline)) void
lb_str(lbuf_t *lb, const char *s)
{
	lb_mem(lb, s, strlen(s));
}

static inline __attribute__((always_inline)) void
lb_chr(lbuf_t *lb, char c)
{
	*lb_room(lb, 1) = c;
	lb->lb_len++;
}

static inline void
lb_uint(lbuf_t *lb, unsigned long long v)
{
	lb_end(lb, put_uint(lb_begin(lb, LB_NUMMAX), v));
}

static inline void
lb_int(lbuf_t *lb, long long v)
{
	lb_end(lb, put_int(lb_begin(lb, 1 + LB_NUMMAX), v));
}

/* "%*d": v right-aligned in width (< LB_NUMMAX) columns. */
static inline void
lb_int_right(lbuf_t *lb, int v, int width)
{
	unsigned mag = v < 0 ? 0U - (unsigned)v : (unsigned)v;
	int n = v < 0 ? 2 : 1;

	for (; mag >= 10; mag /= 10)
		n++;
	if (n < width)
		lb_mem(lb, "                    ", (size_t)(width - n));
	lb_int(lb, v);
}

#endif	/* _PF_LBUF_H */

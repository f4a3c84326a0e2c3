/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_escape.h: the one rule by which pfiles writes text that comes from
 * the target: its command line, its comm, file paths, unix socket names
 * and the names of anonymous inodes (pfiles.1, "Text from the target").
 *
 *	a backslash			\\
 *	0x00-0x1f and 0x7f		\xHH (lower-case hex)
 *	a well-formed UTF-8 sequence	as it is, unless it encodes a C1
 *					control (U+0080-U+009F), U+200B-U+200F,
 *					U+202A-U+202E, U+2066-U+2069, U+FEFF,
 *					U+2028 or U+2029
 *	any other byte 0x80-0xff	\xHH, each byte of the sequence
 *	everything else			as it is
 *
 * The output is cut into units: one byte as it is, "\\", one "\xHH", or
 * one whole UTF-8 sequence kept.  Where the output is bounded, it is cut
 * after the last whole unit that fits, never inside one.
 */
#ifndef	_PF_ESCAPE_H
#define	_PF_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* The longest unit of output: "\xHH", or a 4-byte UTF-8 sequence. */
#define	PF_ESC_UNITMAX	4

/* No bound other than the buffer's (maxout of pf_escape()). */
#define	PF_ESC_NOMAX	((size_t)-1)

/*
 * Escape len bytes at src into dst, at most maxout bytes and at most
 * dstsz - 1 bytes of output, cut after the last whole unit that fits.
 * dst is NUL-terminated when dstsz > 0.  Returns the number of bytes
 * written, without the NUL.  Pure: no allocation, no system call.
 */
extern size_t pf_escape(char *dst, size_t dstsz, const void *src,
    size_t len, size_t maxout);

/* Escape len bytes at src, all of them, to out. */
extern void pf_fputesc(FILE *out, const void *src, size_t len);

#endif	/* _PF_ESCAPE_H */

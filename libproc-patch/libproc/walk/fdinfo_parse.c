/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdinfo_parse.c: the parser of /proc/PID/fdinfo/FD.  Pure: no I/O.
 *
 * The kernel writes "key:\tvalue" lines: pos (decimal), flags (octal),
 * mnt_id (decimal), ino (decimal, since Linux 5.14), then one "lock:" line
 * per lock held through the file, and type-specific lines (eventfd-count,
 * tfd, inotify, ...) that libproc does not need.  A lock line reads
 *
 *	lock:\t1: POSIX  ADVISORY  WRITE 1234 08:02:131 0 EOF
 *
 * that is: an ordinal, the kind (POSIX, OFDLCK, FLOCK, ACCESS, LEASE,
 * DELEG), ADVISORY or MANDATORY (older kernels; a lease shows its state
 * instead), READ/WRITE/UNLCK, the owner's pid (-1 for OFD locks), the
 * device and inode, and the range.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "walk/fdinfo_parse.h"

void
fdinfo_parse_init(fdinfo_parser_t *fp, fdinfo_t *out)
{
	memset(out, 0, offsetof(fdinfo_t, fi_locks));
	out->fi_pos = -1;
	out->fi_mnt_id = -1;
	fp->fp_out = out;
	fp->fp_len = 0;
	fp->fp_overlong = 0;
	fp->fp_done = 0;
}

int
fdinfo_parse_done(const fdinfo_parser_t *fp)
{
	return (fp->fp_done);
}

/* Is this line one of the type-specific ones that end what matters? */
static int
line_is_type_specific(const char *line, size_t len)
{
	static const char *const keys[] = {
		"pos:", "flags:", "mnt_id:", "ino:", "lock:"
	};

	for (size_t i = 0; i < sizeof (keys) / sizeof (keys[0]); i++) {
		size_t n = strlen(keys[i]);

		if (len >= n && memcmp(line, keys[i], n) == 0)
			return (0);
	}
	return (1);
}

/* A word: the bytes up to the next space or tab. */
typedef struct word {
	const char	*w_p;
	size_t		w_len;
} word_t;

static int
next_word(const char **pp, const char *end, word_t *w)
{
	const char *p = *pp;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return (-1);
	w->w_p = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	w->w_len = (size_t)(p - w->w_p);
	*pp = p;
	return (0);
}

static int
word_is(const word_t *w, const char *s)
{
	size_t n = strlen(s);

	return (w->w_len == n && memcmp(w->w_p, s, n) == 0);
}

/* The whole word as a number in base 8 or 10; 0, or -1. */
static int
word_to_u64(const word_t *w, unsigned base, uint64_t *valp)
{
	uint64_t v = 0;
	size_t i;

	if (w->w_len == 0)
		return (-1);
	for (i = 0; i < w->w_len; i++) {
		unsigned d = (unsigned)(unsigned char)w->w_p[i] - '0';

		if (d >= base || v > (UINT64_MAX - d) / base)
			return (-1);
		v = v * base + d;
	}
	*valp = v;
	return (0);
}

static int
word_to_int(const word_t *w, int *valp)
{
	word_t digits = *w;
	uint64_t v;
	int neg = 0;

	if (digits.w_len > 0 && digits.w_p[0] == '-') {
		neg = 1;
		digits.w_p++;
		digits.w_len--;
	}
	if (word_to_u64(&digits, 10, &v) != 0 || v > INT_MAX)
		return (-1);
	*valp = neg ? -(int)v : (int)v;
	return (0);
}

int
fdinfo_parse_lock(const char *s, size_t len, prfdlock_t *lk)
{
	const char *p = s, *end = s + len;
	word_t ord, kind, mode, type, pid;
	int pidval;

	if (next_word(&p, end, &ord) != 0 || ord.w_len < 2 ||
	    ord.w_p[ord.w_len - 1] != ':' ||
	    next_word(&p, end, &kind) != 0 ||
	    next_word(&p, end, &mode) != 0 ||
	    next_word(&p, end, &type) != 0 ||
	    next_word(&p, end, &pid) != 0 || word_to_int(&pid, &pidval) != 0)
		return (-1);

	if (word_is(&kind, "POSIX"))
		lk->pr_kind = PR_LOCK_POSIX;
	else if (word_is(&kind, "OFDLCK"))
		lk->pr_kind = PR_LOCK_OFD;
	else if (word_is(&kind, "FLOCK"))
		lk->pr_kind = PR_LOCK_FLOCK;
	else
		lk->pr_kind = PR_LOCK_OTHER;

	if (word_is(&type, "WRITE"))
		lk->pr_type = F_WRLCK;
	else if (word_is(&type, "READ"))
		lk->pr_type = F_RDLCK;
	else if (word_is(&type, "UNLCK"))
		lk->pr_type = F_UNLCK;
	else
		return (-1);

	lk->pr_mandatory = word_is(&mode, "MANDATORY");
	lk->pr_pid = pidval > 0 ? pidval : 0;
	return (0);
}

int
fdinfo_parse_line(fdinfo_t *fi, const char *line, size_t len)
{
	const char *colon, *p, *end = line + len;
	word_t key, val;
	uint64_t v;

	colon = memchr(line, ':', len);
	if (colon == NULL)
		return (0);
	key.w_p = line;
	key.w_len = (size_t)(colon - line);
	p = colon + 1;

	if (word_is(&key, "lock")) {
		if (fi->fi_nlocks == FDINFO_MAXLOCKS) {
			fi->fi_locks_dropped++;
			return (0);
		}
		if (fdinfo_parse_lock(p, (size_t)(end - p),
		    &fi->fi_locks[fi->fi_nlocks]) != 0)
			return (-1);
		fi->fi_nlocks++;
		return (0);
	}

	if (!word_is(&key, "pos") && !word_is(&key, "flags") &&
	    !word_is(&key, "mnt_id") && !word_is(&key, "ino"))
		return (0);
	/* A known key has exactly one value. */
	if (next_word(&p, end, &val) != 0)
		return (-1);
	for (const char *q = val.w_p + val.w_len; q < end; q++) {
		if (*q != ' ' && *q != '\t')
			return (-1);
	}

	if (word_is(&key, "flags")) {
		if (word_to_u64(&val, 8, &v) != 0 || v > UINT32_MAX)
			return (-1);
		fi->fi_flags = (uint32_t)v;
		fi->fi_have |= FDI_FLAGS;
	} else if (word_is(&key, "pos")) {
		if (word_to_u64(&val, 10, &v) != 0 || v > INT64_MAX)
			return (-1);
		fi->fi_pos = (int64_t)v;
		fi->fi_have |= FDI_POS;
	} else if (word_is(&key, "mnt_id")) {
		if (word_to_u64(&val, 10, &v) != 0 || v > INT_MAX)
			return (-1);
		fi->fi_mnt_id = (int)v;
		fi->fi_have |= FDI_MNT_ID;
	} else {
		if (word_to_u64(&val, 10, &v) != 0)
			return (-1);
		fi->fi_ino = v;
		fi->fi_have |= FDI_INO;
	}
	return (0);
}

void
fdinfo_parse_feed(fdinfo_parser_t *fp, const char *buf, size_t n)
{
	const char *end = buf + n, *nl;
	size_t take;

	while (buf < end && !fp->fp_done) {
		nl = memchr(buf, '\n', (size_t)(end - buf));
		take = (size_t)((nl != NULL ? nl : end) - buf);

		if (!fp->fp_overlong) {
			if (take > sizeof (fp->fp_line) - fp->fp_len) {
				fp->fp_overlong = 1;
			} else {
				memcpy(fp->fp_line + fp->fp_len, buf, take);
				fp->fp_len += take;
			}
		}
		if (nl == NULL)
			return;
		if (fp->fp_overlong)
			;	/* no line libproc needs is that long */
		else if (line_is_type_specific(fp->fp_line, fp->fp_len))
			fp->fp_done = 1;
		else
			(void) fdinfo_parse_line(fp->fp_out, fp->fp_line,
			    fp->fp_len);
		fp->fp_len = 0;
		fp->fp_overlong = 0;
		buf = nl + 1;
	}
}

void
fdinfo_parse_end(fdinfo_parser_t *fp)
{
	if (!fp->fp_done && !fp->fp_overlong && fp->fp_len > 0 &&
	    !line_is_type_specific(fp->fp_line, fp->fp_len))
		(void) fdinfo_parse_line(fp->fp_out, fp->fp_line, fp->fp_len);
	fp->fp_len = 0;
	fp->fp_overlong = 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdinfo_parse.h: a pure, line-oriented parser of /proc/PID/fdinfo/FD.
 *
 * The text is fed in pieces as it is read; lines longer than the parser's
 * line buffer are passed over whole (no key libproc needs is that long),
 * and an unterminated last line is parsed at fdinfo_parse_end().  Keys
 * that are not known are ignored, so fdinfo of any file type parses.
 */
#ifndef	_FDINFO_PARSE_H
#define	_FDINFO_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "libproc.h"

#define	FDINFO_MAXLOCKS		256	/* lock: lines kept per fd */
#define	FDINFO_LINEMAX		256	/* longer lines are passed over */

#define	FDI_POS		0x01
#define	FDI_FLAGS	0x02
#define	FDI_MNT_ID	0x04
#define	FDI_INO		0x08

typedef struct fdinfo {
	uint_t		fi_have;	/* FDI_* */
	int64_t		fi_pos;
	uint32_t	fi_flags;	/* octal in the file, O_CLOEXEC included */
	int		fi_mnt_id;
	uint64_t	fi_ino;
	uint_t		fi_nlocks;
	uint_t		fi_locks_dropped;	/* beyond FDINFO_MAXLOCKS */
	prfdlock_t	fi_locks[FDINFO_MAXLOCKS];
} fdinfo_t;

typedef struct fdinfo_parser {
	fdinfo_t	*fp_out;
	size_t		fp_len;		/* bytes in fp_line */
	int		fp_overlong;	/* passing over the rest of a line */
	int		fp_done;	/* past the lines libproc needs */
	char		fp_line[FDINFO_LINEMAX];
} fdinfo_parser_t;

extern void fdinfo_parse_init(fdinfo_parser_t *, fdinfo_t *);
extern void fdinfo_parse_feed(fdinfo_parser_t *, const char *, size_t);
extern void fdinfo_parse_end(fdinfo_parser_t *);

/*
 * Has the parser seen all that libproc needs?  The kernel writes the
 * common lines, then the lock lines, then the lines of the file's type
 * (an epoll fd lists every fd it watches: megabytes, for a busy server),
 * so the first line of another key ends what matters and the reader may
 * stop reading.
 */
extern int fdinfo_parse_done(const fdinfo_parser_t *);

/* One line, without its newline.  0 when understood or ignored, -1 when a
 * known key had a malformed value (the value is then not used). */
extern int fdinfo_parse_line(fdinfo_t *, const char *, size_t);

/* One lock: line's value (after "lock:"); 0, or -1 when malformed. */
extern int fdinfo_parse_lock(const char *, size_t, prfdlock_t *);

#endif	/* _FDINFO_PARSE_H */

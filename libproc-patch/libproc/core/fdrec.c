/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdrec.c: the record Pfdinfo_iter() hands out: a prfdinfo_t followed by
 * self-describing items (pr_misc_header_t + payload, each padded to 8
 * bytes; fdrec_add(), in Pcontrol.h, writes one); proc_fdinfowalk(), the
 * one walk of its items, which checks their headers; and proc_fdinfo_misc(),
 * the accessor that finds an item, on that walk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/Pcontrol.h"

#define	ALIGN_UP(x)	PR_MISC_NEXT(x)
#define	FDREC_INITIAL	8192

/* Make room for need more bytes of items, by growing; 0, or -1 (ENOMEM). */
int
fdrec_grow(fdrec_t *rec, size_t need)
{
	size_t used, cap;
	uint8_t *nbuf;

	used = rec->buf == NULL ? 0 :
	    sizeof (prfdinfo_t) + fdrec_info(rec)->pr_misc_size;
	if (need > FDREC_MAX - used) {
		errno = ENOMEM;
		return (-1);
	}
	cap = rec->cap == 0 ? FDREC_INITIAL : rec->cap;
	while (cap - used < need)
		cap *= 2;
	if ((nbuf = realloc(rec->buf, cap)) == NULL)
		return (-1);
	if (rec->buf == NULL)
		memset(nbuf, 0, sizeof (prfdinfo_t));
	rec->buf = nbuf;
	rec->cap = cap;
	return (0);
}

/* Start a new record for fd: the fixed part cleared, no items. */
int
fdrec_reset(fdrec_t *rec, int fd)
{
	prfdinfo_t *info;

	if (rec->buf == NULL && fdrec_grow(rec, 0) != 0)
		return (-1);
	info = fdrec_info(rec);
	memset(info, 0, sizeof (*info));
	info->pr_fd = fd;
	info->pr_offset = -1;
	info->pr_mnt_id = -1;
	return (0);
}

void
fdrec_free(fdrec_t *rec)
{
	free(rec->buf);
	rec->buf = NULL;
	rec->cap = 0;
}

/*
 * Each header is checked before its item is handed out: one that claims
 * less than itself, or more than the record has left, is where the walk
 * ends, as after the last item; nothing past pr_misc_size is ever read.
 */
int
proc_fdinfowalk(const prfdinfo_t *info,
    int (*func)(uint_t, const void *, size_t, void *), void *arg)
{
	size_t off = 0;
	pr_misc_header_t hdr;
	int rv;

	if (info == NULL || func == NULL) {
		errno = EINVAL;
		return (-1);
	}
	while (off < info->pr_misc_size &&
	    info->pr_misc_size - off >= sizeof (hdr)) {
		memcpy(&hdr, info->pr_misc + off, sizeof (hdr));
		if (hdr.pr_misc_size < sizeof (hdr) ||
		    hdr.pr_misc_size > info->pr_misc_size - off)
			break;
		if ((rv = func(hdr.pr_misc_type, info->pr_misc + off +
		    sizeof (hdr), hdr.pr_misc_size - sizeof (hdr), arg)) != 0)
			return (rv);
		off += ALIGN_UP(hdr.pr_misc_size);
	}
	return (0);
}

/* What proc_fdinfo_misc() looks for, and what it found. */
typedef struct misc_find {
	uint_t		mf_type;
	const void	*mf_data;	/* NULL: not found */
	size_t		mf_len;
} misc_find_t;

static int
misc_find(uint_t type, const void *data, size_t len, void *arg)
{
	misc_find_t *mf = arg;

	if (type != mf->mf_type)
		return (0);
	mf->mf_data = data;
	mf->mf_len = len;
	return (1);		/* the first of its type: no further */
}

/*
 * The payload of the first item of this type, and its length, or NULL
 * (and 0): a damaged record ends the search where the walk ends.
 */
const void *
proc_fdinfo_misc(const prfdinfo_t *info, uint_t type, size_t *lenp)
{
	misc_find_t mf = { type, NULL, 0 };

	/* A NULL record: -1 and EINVAL from the walk, nothing found. */
	(void) proc_fdinfowalk(info, misc_find, &mf);
	if (lenp != NULL)
		*lenp = mf.mf_len;
	return (mf.mf_data);
}

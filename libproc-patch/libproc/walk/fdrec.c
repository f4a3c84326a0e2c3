/*
 * fdrec.c: the record Pfdinfo_iter() hands out: a prfdinfo_t followed by
 * self-describing items (pr_misc_header_t + payload, each padded to 8
 * bytes; fdrec_add(), in Pcontrol.h, writes one), and proc_fdinfo_misc(),
 * the accessor that finds an item.
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
 * The payload of the first item of this type, and its length, or NULL.
 * The walk checks each header, so a damaged record ends the search.
 */
const void *
proc_fdinfo_misc(const prfdinfo_t *info, uint_t type, size_t *lenp)
{
	size_t off = 0;
	pr_misc_header_t hdr;

	if (info == NULL) {
		if (lenp != NULL)
			*lenp = 0;
		errno = EINVAL;
		return (NULL);
	}
	while (off < info->pr_misc_size &&
	    info->pr_misc_size - off >= sizeof (hdr)) {
		memcpy(&hdr, info->pr_misc + off, sizeof (hdr));
		if (hdr.pr_misc_size < sizeof (hdr) ||
		    hdr.pr_misc_size > info->pr_misc_size - off)
			break;
		if (hdr.pr_misc_type == type) {
			if (lenp != NULL)
				*lenp = hdr.pr_misc_size - sizeof (hdr);
			return (info->pr_misc + off + sizeof (hdr));
		}
		off += ALIGN_UP(hdr.pr_misc_size);
	}
	if (lenp != NULL)
		*lenp = 0;
	return (NULL);
}

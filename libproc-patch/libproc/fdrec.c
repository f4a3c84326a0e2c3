/*
 * fdrec.c: the record Pfdinfo_iter() hands out: a prfdinfo_t followed by
 * self-describing items (pr_misc_header_t + payload, each padded to 8
 * bytes), and proc_fdinfo_misc(), the accessor that finds an item.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "Pcontrol.h"

#define	ALIGN_UP(x)	PR_MISC_NEXT(x)
#define	FDREC_INITIAL	8192
#define	FDREC_MAX	(1U << 20)	/* no single record is bigger */

_Static_assert(sizeof (pr_misc_header_t) == 8, "an item's header is 8 bytes");

prfdinfo_t *
fdrec_info(fdrec_t *rec)
{
	return ((prfdinfo_t *)(void *)rec->buf);
}

/* Make room for need more bytes of items, by growing; 0, or -1 (ENOMEM). */
static int
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

/* Make room for need more bytes of items; 0, or -1 (ENOMEM). */
static inline int
fdrec_reserve(fdrec_t *rec, size_t need)
{
	if (rec->buf != NULL && need <= rec->cap - sizeof (prfdinfo_t) -
	    fdrec_info(rec)->pr_misc_size)
		return (0);
	return (fdrec_grow(rec, need));
}

/* Start a new record for fd: the fixed part cleared, no items. */
int
fdrec_reset(fdrec_t *rec, int fd)
{
	prfdinfo_t *info;

	if (fdrec_reserve(rec, 0) != 0)
		return (-1);
	info = fdrec_info(rec);
	memset(info, 0, sizeof (*info));
	info->pr_fd = fd;
	info->pr_offset = -1;
	info->pr_mnt_id = -1;
	return (0);
}

int
fdrec_add(fdrec_t *rec, uint_t type, const void *data, size_t len)
{
	pr_misc_header_t hdr;
	prfdinfo_t *info;
	size_t size = sizeof (hdr) + len;
	uint8_t *at;

	if (len > FDREC_MAX || fdrec_reserve(rec, ALIGN_UP(size)) != 0)
		return (-1);	/* the item is left out */
	info = fdrec_info(rec);
	at = info->pr_misc + info->pr_misc_size;
	hdr.pr_misc_size = (uint_t)size;
	hdr.pr_misc_type = type;
	/*
	 * The padding is in the item's last 8 bytes (the header is 8): that
	 * word is zeroed first, then the header and the payload written.
	 */
	memset(at + ALIGN_UP(size) - 8, 0, 8);
	memcpy(at, &hdr, sizeof (hdr));
	if (len > 0)
		memcpy(at + sizeof (hdr), data, len);
	info->pr_misc_size += (uint_t)ALIGN_UP(size);
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

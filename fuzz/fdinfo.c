/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdinfo.c: fuzzing harness of the fdinfo parser (fdinfo_parse.c).
 *
 * Input: one byte whose low 4 bits say how many chunk sizes follow
 * (0-15), those sizes (a byte each, 0 allowed), then the text of an
 * fdinfo file.  The text is parsed three ways that must agree exactly:
 *
 *   1. fed whole, as one piece;
 *   2. fed in pieces whose sizes cycle through the chunk sizes, each piece
 *	in its own buffer of exactly its size (so a read past a piece is
 *	caught), as Pfdinfo.c feeds what each read(2) returns;
 *   3. a model of the feed, from fdinfo_parse.h's description: split
 *	into lines here, lines longer than FDINFO_LINEMAX passed over, the
 *	others handed to fdinfo_parse_line() until the first one that does
 *	not start with a key libproc needs (pos:, flags:, mnt_id:, ino:,
 *	lock:), where the parser is done; an unterminated last line is
 *	parsed too (but never makes the parser done: it may be cut short).
 *
 * The three must also agree on fdinfo_parse_done().  The result must be
 * one the parser can produce: at most FDINFO_MAXLOCKS locks, locks
 * dropped only once that many are kept, pos >= -1 and -1 exactly when no
 * pos: line was taken, and so on.
 */
#include <fcntl.h>

#include "walk/fdinfo_parse.h"
#include "fuzz.h"

#define	NCHUNKS_MAX	15

/* The three results; static, as each is several KiB. */
static fdinfo_t whole, pieces, model;
static int whole_done, pieces_done, model_done;

static void
parse_whole(const uint8_t *text, size_t len)
{
	fdinfo_parser_t fp;

	fdinfo_parse_init(&fp, &whole);
	fdinfo_parse_feed(&fp, (const char *)text, len);
	whole_done = fdinfo_parse_done(&fp);
	fdinfo_parse_end(&fp);
}

static void
parse_pieces(const uint8_t *text, size_t len, const uint8_t *sizes,
    size_t nsizes)
{
	fdinfo_parser_t fp;
	size_t off = 0, i = 0, n;
	char *piece;

	fdinfo_parse_init(&fp, &pieces);
	while (off < len) {
		/* Empty pieces are fed too; sizes all 0 mean byte by byte. */
		n = nsizes == 0 ? 1 : sizes[i++ % nsizes];
		if (n > len - off)
			n = len - off;
		if ((piece = malloc(n)) == NULL)
			abort();
		memcpy(piece, text + off, n);
		fdinfo_parse_feed(&fp, piece, n);
		free(piece);
		off += n;
	}
	pieces_done = fdinfo_parse_done(&fp);
	fdinfo_parse_end(&fp);
}

/* Does the line start with a key that libproc needs? */
static int
model_key_needed(const uint8_t *line, size_t n)
{
	static const char *const keys[] = {
		"pos:", "flags:", "mnt_id:", "ino:", "lock:"
	};

	for (size_t i = 0; i < sizeof (keys) / sizeof (keys[0]); i++) {
		size_t k = strlen(keys[i]);

		if (n >= k && memcmp(line, keys[i], k) == 0)
			return (1);
	}
	return (0);
}

/* One line as the model takes it; whole: it had its newline. */
static void
model_line(const uint8_t *line, size_t n, int whole_line)
{
	char *copy;

	if (n > FDINFO_LINEMAX || model_done)
		return;
	if (!model_key_needed(line, n)) {
		model_done = whole_line;
		return;
	}
	if ((copy = malloc(n)) == NULL)
		abort();
	memcpy(copy, line, n);
	(void) fdinfo_parse_line(&model, copy, n);
	free(copy);
}

static void
parse_model(const uint8_t *text, size_t len)
{
	const uint8_t *p = text, *end = text + len, *nl;
	fdinfo_parser_t fp;

	fdinfo_parse_init(&fp, &model);		/* only to clear model */
	model_done = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			model_line(p, (size_t)(end - p), 0);
			break;
		}
		model_line(p, (size_t)(nl - p), 1);
		p = nl + 1;
	}
}

static void
check_same(const fdinfo_t *a, const fdinfo_t *b)
{
	FUZZ_CHECK(a->fi_have == b->fi_have);
	FUZZ_CHECK(a->fi_pos == b->fi_pos);
	FUZZ_CHECK(a->fi_flags == b->fi_flags);
	FUZZ_CHECK(a->fi_mnt_id == b->fi_mnt_id);
	FUZZ_CHECK(a->fi_ino == b->fi_ino);
	FUZZ_CHECK(a->fi_nlocks == b->fi_nlocks);
	FUZZ_CHECK(a->fi_locks_dropped == b->fi_locks_dropped);
	for (uint_t i = 0; i < a->fi_nlocks && i < FDINFO_MAXLOCKS; i++) {
		FUZZ_CHECK(a->fi_locks[i].pr_kind == b->fi_locks[i].pr_kind);
		FUZZ_CHECK(a->fi_locks[i].pr_type == b->fi_locks[i].pr_type);
		FUZZ_CHECK(a->fi_locks[i].pr_mandatory ==
		    b->fi_locks[i].pr_mandatory);
		FUZZ_CHECK(a->fi_locks[i].pr_pid == b->fi_locks[i].pr_pid);
	}
}

static void
check_sane(const fdinfo_t *fi)
{
	FUZZ_CHECK((fi->fi_have & ~(uint_t)(FDI_POS | FDI_FLAGS |
	    FDI_MNT_ID | FDI_INO)) == 0);
	FUZZ_CHECK(fi->fi_pos >= -1);
	FUZZ_CHECK((fi->fi_have & FDI_POS) ? fi->fi_pos >= 0 :
	    fi->fi_pos == -1);
	FUZZ_CHECK((fi->fi_have & FDI_MNT_ID) ? fi->fi_mnt_id >= 0 :
	    fi->fi_mnt_id == -1);
	FUZZ_CHECK((fi->fi_have & FDI_FLAGS) || fi->fi_flags == 0);
	FUZZ_CHECK((fi->fi_have & FDI_INO) || fi->fi_ino == 0);
	FUZZ_CHECK(fi->fi_nlocks <= FDINFO_MAXLOCKS);
	FUZZ_CHECK(fi->fi_locks_dropped == 0 ||
	    fi->fi_nlocks == FDINFO_MAXLOCKS);
	for (uint_t i = 0; i < fi->fi_nlocks && i < FDINFO_MAXLOCKS; i++) {
		const prfdlock_t *lk = &fi->fi_locks[i];

		FUZZ_CHECK(lk->pr_kind >= PR_LOCK_POSIX &&
		    lk->pr_kind <= PR_LOCK_OTHER);
		FUZZ_CHECK(lk->pr_type == F_RDLCK || lk->pr_type == F_WRLCK ||
		    lk->pr_type == F_UNLCK);
		FUZZ_CHECK(lk->pr_mandatory == 0 || lk->pr_mandatory == 1);
		FUZZ_CHECK(lk->pr_pid >= 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint8_t sizes[NCHUNKS_MAX];
	size_t nsizes, i;
	fuzz_in_t in;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	nsizes = fuzz_u8(&in) & NCHUNKS_MAX;
	nsizes = fuzz_take(&in, sizes, nsizes);
	for (i = 0; i < nsizes && sizes[i] == 0; i++)
		continue;
	if (i == nsizes)
		nsizes = 0;

	parse_whole(in.fi_p, in.fi_left);
	parse_pieces(in.fi_p, in.fi_left, sizes, nsizes);
	parse_model(in.fi_p, in.fi_left);

	check_sane(&whole);
	check_same(&whole, &pieces);
	check_same(&whole, &model);
	FUZZ_CHECK(whole_done == pieces_done && whole_done == model_done);
	return (0);
}

/*
 * bpfrec.c: fuzzing harness of the BPF record parser (bpfrec_parse.c).
 *
 * Input: one byte of options, then a stream of records as the BPF
 * task-file iterator writes them (bpf/pfiles_bpf.h).  Option bit 0 writes
 * a good header (magic, version, size) over every record before it is
 * parsed, so that the fuzzer reaches the checks of the fields; bit 1
 * feeds the stream in pieces of the size given by the next byte (as the
 * loader's 32 KiB reads may cut it).
 *
 * The stream is parsed record after record, as bpf_load.c does, from one
 * buffer and again from a copy of each record in a buffer of exactly its
 * size (a read past a record is caught); the two must agree.  Every
 * prefix shorter than a record must ask for more (0) or fail on the
 * header, never succeed.  A record taken must be one the iterator can
 * write: counts and lengths in range, the path and every address inside
 * the record, the booleans known, and so on.
 */
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/types.h>

#include "bpf/pfiles_bpf.h"
#include "bpfrec_parse.h"
#include "fuzz.h"

#define	OPT_FIXHDR	0x01
#define	OPT_PIECES	0x02

static void
fix_header(uint8_t *rec)
{
	uint32_t magic = PFB_MAGIC;
	uint16_t version = PFB_VERSION, size = PFB_RECSIZE;

	memcpy(rec + offsetof(struct pfb_rec, r_magic), &magic, 4);
	memcpy(rec + offsetof(struct pfb_rec, r_version), &version, 2);
	memcpy(rec + offsetof(struct pfb_rec, r_recsize), &size, 2);
}

static int
inside(const void *p, size_t n, const uint8_t *rec)
{
	const uint8_t *q = p;

	return (q >= rec && q + n <= rec + PFB_RECSIZE);
}

static void
check_sane(const bpfrec_t *br, const uint8_t *rec)
{
	FUZZ_CHECK(br->br_err == NULL);
	FUZZ_CHECK(br->br_fd >= 0 && br->br_tgid >= 0);
	FUZZ_CHECK(br->br_nlocks <= BPFREC_MAXLOCKS);
	FUZZ_CHECK(br->br_locks_more == 0 || br->br_nlocks == BPFREC_MAXLOCKS);
	for (unsigned int i = 0; i < br->br_nlocks; i++) {
		const bpfrec_lock_t *l = &br->br_locks[i];

		FUZZ_CHECK(l->bl_kind >= BPFREC_LK_POSIX &&
		    l->bl_kind <= BPFREC_LK_OTHER);
		FUZZ_CHECK(l->bl_type == F_RDLCK || l->bl_type == F_WRLCK ||
		    l->bl_type == F_UNLCK);
		FUZZ_CHECK(l->bl_kind != BPFREC_LK_OFD || l->bl_pid == -1);
	}
	if (br->br_path != NULL) {
		FUZZ_CHECK(br->br_path_err == 0);
		FUZZ_CHECK(br->br_path_len < PFB_PATH_MAX);
		FUZZ_CHECK(inside(br->br_path, br->br_path_len + 1, rec));
		FUZZ_CHECK(memchr(br->br_path, '\0', br->br_path_len) == NULL);
		FUZZ_CHECK(br->br_path[br->br_path_len] == '\0');
	} else {
		FUZZ_CHECK(br->br_path_err > 0 && br->br_path_len == 0);
		FUZZ_CHECK(br->br_anon == NULL);
	}
	if (br->br_anon != NULL) {
		FUZZ_CHECK((br->br_mode & S_IFMT) == 0);
		FUZZ_CHECK(br->br_anon >= br->br_path &&
		    br->br_anon + br->br_anon_len ==
		    br->br_path + br->br_path_len);
	}
	FUZZ_CHECK(br->br_major < 4096 && br->br_rmajor < 4096);
	FUZZ_CHECK(br->br_size >= 0);
	if (!(br->br_have & BPFREC_SOCK)) {
		FUZZ_CHECK(br->br_sock_have == 0 && br->br_bools_known == 0);
		return;
	}
	FUZZ_CHECK((br->br_mode & S_IFMT) == S_IFSOCK);
	FUZZ_CHECK((br->br_bools & ~br->br_bools_known) == 0);
	FUZZ_CHECK((br->br_bools_known & ~(unsigned)BPFREC_SO_ALL) == 0);
	FUZZ_CHECK(br->br_linger_on == 0 || br->br_linger_on == 1);
	FUZZ_CHECK(br->br_peer_pid >= 0);
	FUZZ_CHECK(br->br_peer_pid == 0 ||
	    (br->br_sock_have & BPFREC_S_PEERPID));
	for (int k = 0; k < 2; k++) {
		const bpfrec_addr_t *a = k == 0 ? &br->br_sockname :
		    &br->br_peername;

		if (a->ba_err != 0) {
			FUZZ_CHECK(a->ba_err > 0 && a->ba_len == 0 &&
			    a->ba_data == NULL);
			continue;
		}
		if (!(br->br_sock_have & BPFREC_S_SK))
			continue;
		FUZZ_CHECK(a->ba_len >= 2 && a->ba_len <= BPFREC_ADDR_MAX);
		FUZZ_CHECK(inside(a->ba_data, a->ba_len, rec));
		FUZZ_CHECK((a->ba_data[0] | a->ba_data[1] << 8) ==
		    br->br_family);
	}
}

static void
check_same(const bpfrec_t *a, const bpfrec_t *b, const uint8_t *ra,
    const uint8_t *rb)
{
	FUZZ_CHECK(a->br_have == b->br_have && a->br_fd == b->br_fd);
	FUZZ_CHECK(a->br_mode == b->br_mode && a->br_ino == b->br_ino);
	FUZZ_CHECK(a->br_size == b->br_size && a->br_pos == b->br_pos);
	FUZZ_CHECK(a->br_fflags == b->br_fflags);
	FUZZ_CHECK(a->br_path_len == b->br_path_len);
	FUZZ_CHECK(a->br_path_err == b->br_path_err);
	FUZZ_CHECK((a->br_path == NULL) == (b->br_path == NULL));
	FUZZ_CHECK(a->br_path == NULL ||
	    a->br_path - (const char *)ra == b->br_path - (const char *)rb);
	FUZZ_CHECK(a->br_nlocks == b->br_nlocks);
	FUZZ_CHECK(a->br_locks_more == b->br_locks_more);
	FUZZ_CHECK(memcmp(a->br_locks, b->br_locks, sizeof (a->br_locks)) == 0);
	FUZZ_CHECK(a->br_sock_have == b->br_sock_have);
	FUZZ_CHECK(a->br_bools == b->br_bools);
	FUZZ_CHECK(a->br_sockname.ba_len == b->br_sockname.ba_len);
	FUZZ_CHECK(a->br_peername.ba_len == b->br_peername.ba_len);
	FUZZ_CHECK(a->br_peer_pid == b->br_peer_pid);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	bpfrec_t whole, alone, part;
	uint8_t *buf, *copy;
	size_t off, cut, n;
	ssize_t r, r2;
	fuzz_in_t in;
	uint8_t opt, piece = 0;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	opt = fuzz_u8(&in);
	if (opt & OPT_PIECES)
		piece = fuzz_u8(&in);
	buf = fuzz_copy(&in, in.fi_left, &n);

	for (off = 0; off < n; off += (size_t)r) {
		if ((opt & OPT_FIXHDR) && n - off >= PFB_RECSIZE)
			fix_header(buf + off);
		r = bpfrec_parse(buf + off, n - off, &whole);
		FUZZ_CHECK(r == -1 || r == 0 || r == PFB_RECSIZE);
		if (r <= 0) {
			FUZZ_CHECK(r == 0 ? n - off < PFB_RECSIZE :
			    whole.br_err != NULL);
			break;
		}
		check_sane(&whole, buf + off);

		/* The same record alone, in a buffer of exactly its size. */
		if ((copy = malloc(PFB_RECSIZE)) == NULL)
			abort();
		memcpy(copy, buf + off, PFB_RECSIZE);
		r2 = bpfrec_parse(copy, PFB_RECSIZE, &alone);
		FUZZ_CHECK(r2 == r);
		check_same(&whole, &alone, buf + off, copy);

		/* A prefix never yields a record. */
		cut = (opt & OPT_PIECES) ? (size_t)piece * 19 % PFB_RECSIZE :
		    PFB_RECSIZE - 1;
		r2 = bpfrec_parse(copy, cut, &part);
		FUZZ_CHECK(r2 == 0);
		free(copy);
	}
	free(buf);
	return (0);
}

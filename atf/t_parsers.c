/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_parsers: unit tests of the pure parsers of kernel data: fdinfo's,
 * bpf's records and the record accessor (t_procfs_parse holds /proc's
 * other texts, t_pfiles_fmt pfiles' formatting).
 */
#include "parsers_util.h"

static fdinfo_t fi;		/* big: keep it off the stack */

static void
parse_text(const char *text, size_t chunk)
{
	fdinfo_parser_t fp;
	size_t len = strlen(text);

	fdinfo_parse_init(&fp, &fi);
	for (size_t off = 0; off < len; off += chunk)
		fdinfo_parse_feed(&fp, text + off,
		    len - off < chunk ? len - off : chunk);
	fdinfo_parse_end(&fp);
}

static const char regular_fdinfo[] =
    "pos:\t1221\nflags:\t02100002\nmnt_id:\t24\nino:\t861\n"
    "lock:\t1: POSIX  ADVISORY  WRITE 4242 fe:00:861 0 EOF\n"
    "lock:\t2: OFDLCK ADVISORY  READ  -1 fe:00:861 10 20\n"
    "lock:\t3: FLOCK  ADVISORY  WRITE 77 fe:00:861 0 EOF\n";

ATF_TC_WITHOUT_HEAD(fdinfo_fields);
ATF_TC_BODY(fdinfo_fields, tc)
{
	/* The same text fed whole, in 7-byte pieces and byte by byte. */
	const size_t chunks[] = { sizeof (regular_fdinfo), 7, 1 };

	for (size_t c = 0; c < 3; c++) {
		parse_text(regular_fdinfo, chunks[c]);
		ATF_CHECK_EQ(fi.fi_have, FDI_POS | FDI_FLAGS | FDI_MNT_ID |
		    FDI_INO);
		ATF_CHECK_EQ(fi.fi_pos, 1221);
		ATF_CHECK_EQ(fi.fi_flags, 02100002);
		ATF_CHECK_EQ(fi.fi_mnt_id, 24);
		ATF_CHECK_EQ(fi.fi_ino, 861);
		ATF_REQUIRE_EQ(fi.fi_nlocks, 3);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_kind, PR_LOCK_POSIX);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_type, F_WRLCK);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_pid, 4242);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_mandatory, 0);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_kind, PR_LOCK_OFD);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_type, F_RDLCK);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_pid, 0);
		ATF_CHECK_EQ(fi.fi_locks[2].pr_kind, PR_LOCK_FLOCK);
		ATF_CHECK_EQ(fi.fi_locks[2].pr_pid, 77);
	}
}

ATF_TC_WITHOUT_HEAD(fdinfo_mandatory_and_other);
ATF_TC_BODY(fdinfo_mandatory_and_other, tc)
{
	parse_text("lock:\t1: POSIX  MANDATORY READ 9 08:02:1 0 EOF\n"
	    "lock:\t2: LEASE  ACTIVE    READ  12 08:02:1 0 EOF\n", 64);
	ATF_REQUIRE_EQ(fi.fi_nlocks, 2);
	ATF_CHECK_EQ(fi.fi_locks[0].pr_mandatory, 1);
	ATF_CHECK_EQ(fi.fi_locks[0].pr_type, F_RDLCK);
	ATF_CHECK_EQ(fi.fi_locks[1].pr_kind, PR_LOCK_OTHER);
	ATF_CHECK_EQ(fi.fi_locks[1].pr_pid, 12);
	/* Only MANDATORY makes a lock mandatory, not "not ADVISORY". */
	ATF_CHECK_EQ(fi.fi_locks[1].pr_mandatory, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_unknown_keys);
ATF_TC_BODY(fdinfo_unknown_keys, tc)
{
	/* eventpoll's fdinfo: tfd lines hold "pos:" but are not keys. */
	parse_text("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1057\n"
	    "tfd:        5 events:       19 data:                5  pos:7 "
	    "ino:99 sdev:8\neventfd-count: 3\n", 5);
	ATF_CHECK_EQ(fi.fi_pos, 0);
	ATF_CHECK_EQ(fi.fi_flags, 02);
	ATF_CHECK_EQ(fi.fi_ino, 1057);
	ATF_CHECK_EQ(fi.fi_nlocks, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_stops_at_type_lines);
ATF_TC_BODY(fdinfo_stops_at_type_lines, tc)
{
	fdinfo_parser_t fp;
	static const char head[] = "pos:\t0\nflags:\t02\nmnt_id:\t15\n"
	    "ino:\t1057\nlock:\t1: FLOCK  ADVISORY  WRITE 9 0:1:2 0 EOF\n"
	    "tfd:        5 events:       19 data: 5  pos:0 ino:9 sdev:8\n";

	/* Once the type's own lines begin, nothing more is wanted, and a
	 * later line that looks like a key is not taken. */
	fdinfo_parse_init(&fp, &fi);
	ATF_CHECK(!fdinfo_parse_done(&fp));
	fdinfo_parse_feed(&fp, head, strlen(head));
	ATF_CHECK(fdinfo_parse_done(&fp));
	fdinfo_parse_feed(&fp, "pos:\t77\nlock:\t2: POSIX ADVISORY READ 3 0:1:2"
	    " 0 EOF\n", 49);
	fdinfo_parse_end(&fp);
	ATF_CHECK_EQ(fi.fi_pos, 0);
	ATF_CHECK_EQ(fi.fi_ino, 1057);
	ATF_CHECK_EQ(fi.fi_nlocks, 1);
}

ATF_TC_WITHOUT_HEAD(fdinfo_malformed);
ATF_TC_BODY(fdinfo_malformed, tc)
{
	/* Bad values are not used; good lines around them still are. */
	parse_text("pos:\t12x\nflags:\t0800\nmnt_id:\t-3\n"
	    "ino:\t99999999999999999999999\nlock:\t1: POSIX\n"
	    "lock:\t1: POSIX ADVISORY SIDEWAYS 3 0:0:0 0 EOF\n"
	    "pos:\t5 6\nflags:\t0100002\n", 3);
	ATF_CHECK_EQ(fi.fi_have, FDI_FLAGS);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_flags, 0100002);
	ATF_CHECK_EQ(fi.fi_mnt_id, -1);
	ATF_CHECK_EQ(fi.fi_nlocks, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_digits_of_base);
ATF_TC_BODY(fdinfo_digits_of_base, tc)
{
	/*
	 * flags: is octal, the others decimal: a digit that is not one of
	 * the base ('8' in octal; ':' is '0' + 10) rejects the value, as
	 * does anything but blanks after it.
	 */
	static const char *const bad[] = {
		"flags:\t0800002\n", "flags:\t0100009\n", "pos:\t1:\n",
		"mnt_id:\t2:\n", "ino:\t9:\n", "pos:\t7 \x01\n",
		"pos:\t7\t.\n",
	};

	for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		parse_text(bad[i], 64);
		ATF_CHECK_EQ_MSG(fi.fi_have, 0, "taken: %s", bad[i]);
		ATF_CHECK_EQ_MSG(fi.fi_pos, -1, "pos of %s", bad[i]);
		ATF_CHECK_EQ_MSG(fi.fi_mnt_id, -1, "mnt_id of %s", bad[i]);
	}
	/* The largest digit of each base is one. */
	parse_text("flags:\t0777\npos:\t99 \t\nmnt_id:\t9\n", 64);
	ATF_CHECK_EQ(fi.fi_have, FDI_FLAGS | FDI_POS | FDI_MNT_ID);
	ATF_CHECK_EQ(fi.fi_flags, 0777);
	ATF_CHECK_EQ(fi.fi_pos, 99);
	ATF_CHECK_EQ(fi.fi_mnt_id, 9);
}

ATF_TC_WITHOUT_HEAD(fdinfo_line_fills_buffer);
ATF_TC_BODY(fdinfo_line_fills_buffer, tc)
{
	char text[FDINFO_LINEMAX + 16];
	const size_t chunks[] = { sizeof (text), 100, 1 };

	/* A line of exactly FDINFO_LINEMAX bytes is read... */
	(void) memset(text, '0', FDINFO_LINEMAX);
	(void) memcpy(text, "pos:\t", 5);
	(void) memcpy(text + FDINFO_LINEMAX - 2, "42\nino:\t5\n", 11);
	for (size_t c = 0; c < 3; c++) {
		parse_text(text, chunks[c]);
		ATF_CHECK_EQ_MSG(fi.fi_pos, 42, "in pieces of %zu", chunks[c]);
		ATF_CHECK_EQ(fi.fi_ino, 5);
	}
	/* ...one byte longer, it is passed over. */
	(void) memset(text, '0', FDINFO_LINEMAX + 1);
	(void) memcpy(text, "pos:\t", 5);
	(void) memcpy(text + FDINFO_LINEMAX - 1, "42\nino:\t5\n", 11);
	parse_text(text, 100);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_ino, 5);
}

ATF_TC_WITHOUT_HEAD(fdinfo_overlong_and_truncated);
ATF_TC_BODY(fdinfo_overlong_and_truncated, tc)
{
	char *text;
	size_t n = FDINFO_LINEMAX * 3;

	/* An overlong line is passed over whole, even when it looks like
	 * a key; the line after it is read; a last line without its
	 * newline is parsed at the end. */
	text = malloc(n + 64);
	ATF_REQUIRE(text != NULL);
	strcpy(text, "pos:\t");
	memset(text + 5, '7', n);
	strcpy(text + 5 + n, "\nflags:\t04002\nmnt_id:\t31");
	parse_text(text, 100);
	free(text);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_flags, 04002);
	ATF_CHECK_EQ(fi.fi_mnt_id, 31);
}

ATF_TC_WITHOUT_HEAD(fdinfo_many_locks);
ATF_TC_BODY(fdinfo_many_locks, tc)
{
	static char text[(FDINFO_MAXLOCKS + 10) * 64];
	size_t off = 0;

	for (int i = 0; i < FDINFO_MAXLOCKS + 10; i++)
		off += (size_t)snprintf(text + off, sizeof (text) - off,
		    "lock:\t%d: POSIX  ADVISORY  READ %d 0:1:2 %d %d\n",
		    i + 1, 100 + i, i, i);
	parse_text(text, 4096);
	ATF_CHECK_EQ(fi.fi_nlocks, FDINFO_MAXLOCKS);
	ATF_CHECK_EQ(fi.fi_locks_dropped, 10);
	ATF_CHECK_EQ(fi.fi_locks[FDINFO_MAXLOCKS - 1].pr_pid,
	    100 + FDINFO_MAXLOCKS - 1);
}

ATF_TC_WITHOUT_HEAD(record_items);
ATF_TC_BODY(record_items, tc)
{
	fdrec_t rec = { NULL, 0 };
	const char *p;
	size_t len;
	int v = 212992;
	static char big[20000];

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 7), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PATHNAME, "abc", 4), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_SNDBUF, &v, sizeof (v)), 0);
	memset(big, 'x', sizeof (big));	/* grows the buffer */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKERR, big, sizeof (big)), 0);

	p = proc_fdinfo_misc(fdrec_info(&rec), PR_PATHNAME, &len);
	ATF_REQUIRE(p != NULL);
	ATF_CHECK_EQ(len, 4);
	ATF_CHECK_STREQ(p, "abc");
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKOPT_SNDBUF, &len);
	ATF_REQUIRE(p != NULL && len == sizeof (int));
	ATF_CHECK_EQ(memcmp(p, &v, sizeof (v)), 0);
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKERR, &len);
	ATF_CHECK(p != NULL && len == sizeof (big) && p[19999] == 'x');
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_PEERCRED, &len) ==
	    NULL && len == 0);
	ATF_CHECK_EQ(fdrec_info(&rec)->pr_fd, 7);

	/* A damaged item header ends the search instead of overrunning. */
	fdrec_info(&rec)->pr_misc_size = 12;
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKOPT_SNDBUF,
	    &len) == NULL);
	/* Reset starts an empty record. */
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 9), 0);
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_PATHNAME, NULL) ==
	    NULL);
	fdrec_free(&rec);
}

/* What proc_fdinfowalk() handed its func, call by call. */
#define	WALKED_MAX	8

typedef struct walked {
	int		w_n;			/* calls */
	int		w_stopat;		/* the call that returns w_rv */
	int		w_rv;
	uint_t		w_type[WALKED_MAX];
	const void	*w_data[WALKED_MAX];
	size_t		w_len[WALKED_MAX];
} walked_t;

static int
walk_note(uint_t type, const void *data, size_t len, void *arg)
{
	walked_t *w = arg;

	if (w->w_n < WALKED_MAX) {
		w->w_type[w->w_n] = type;
		w->w_data[w->w_n] = data;
		w->w_len[w->w_n] = len;
	}
	return (++w->w_n == w->w_stopat ? w->w_rv : 0);
}

static int
walk_rec(fdrec_t *rec, walked_t *w, int stopat, int rv)
{
	memset(w, 0, sizeof (*w));
	w->w_stopat = stopat;
	w->w_rv = rv;
	return (proc_fdinfowalk(fdrec_info(rec), walk_note, w));
}

ATF_TC_WITHOUT_HEAD(record_walk);
ATF_TC_BODY(record_walk, tc)
{
	fdrec_t rec = { NULL, 0 };
	pr_misc_header_t hdr;
	uint8_t *misc;
	walked_t w;
	int v = 212992;

	/* An empty record: no call, 0. */
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK_EQ(w.w_n, 0);

	/* Every item, in order, each payload at its 8-byte boundary. */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PATHNAME, "abc", 4), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_SNDBUF, &v, sizeof (v)), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKERR, "no", 3), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_CHANGED, NULL, 0), 0);
	misc = fdrec_info(&rec)->pr_misc;
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_REQUIRE_EQ(w.w_n, 4);
	ATF_CHECK(w.w_type[0] == PR_PATHNAME && w.w_len[0] == 4 &&
	    w.w_data[0] == misc + 8);
	ATF_CHECK(w.w_type[1] == PR_SOCKOPT_SNDBUF &&
	    w.w_len[1] == sizeof (v) && w.w_data[1] == misc + 24);
	ATF_CHECK_EQ(memcmp(w.w_data[1], &v, sizeof (v)), 0);
	ATF_CHECK(w.w_type[2] == PR_SOCKERR && w.w_len[2] == 3 &&
	    w.w_data[2] == misc + 40);
	ATF_CHECK_STREQ((const char *)w.w_data[2], "no");
	ATF_CHECK(w.w_type[3] == PR_CHANGED && w.w_len[3] == 0);

	/* A nonzero value from func ends the walk and is returned. */
	ATF_CHECK_EQ(walk_rec(&rec, &w, 2, 42), 42);
	ATF_CHECK_EQ(w.w_n, 2);
	ATF_CHECK_EQ(walk_rec(&rec, &w, 1, -7), -7);
	ATF_CHECK_EQ(w.w_n, 1);
	ATF_CHECK_EQ(walk_rec(&rec, &w, 4, 1), 1);
	ATF_CHECK_EQ(w.w_n, 4);

	/*
	 * A damaged header ends the walk, as after the last item: one
	 * smaller than a header, one longer than what is left.
	 */
	memcpy(&hdr, misc + 16, sizeof (hdr));
	hdr.pr_misc_size = sizeof (hdr) - 1;
	memcpy(misc + 16, &hdr, sizeof (hdr));
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK(w.w_n == 1 && w.w_type[0] == PR_PATHNAME);
	hdr.pr_misc_size = fdrec_info(&rec)->pr_misc_size - 16 + 1;
	memcpy(misc + 16, &hdr, sizeof (hdr));
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK_EQ(w.w_n, 1);
	/* Exactly what is left is no damage: that item is the last. */
	hdr.pr_misc_size = fdrec_info(&rec)->pr_misc_size - 16;
	memcpy(misc + 16, &hdr, sizeof (hdr));
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK(w.w_n == 2 && w.w_type[1] == PR_SOCKOPT_SNDBUF &&
	    w.w_len[1] == fdrec_info(&rec)->pr_misc_size - 16 - sizeof (hdr));
	/* A record cut inside a header: the items before the cut. */
	fdrec_info(&rec)->pr_misc_size = 16 + sizeof (hdr) - 1;
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK_EQ(w.w_n, 1);
	fdrec_free(&rec);
}

/*
 * The BPF iterator's stream of records, as bpf_pfiles_read() takes it
 * from an fd whose reads may end anywhere in a record (the kernel's seq
 * buffer is bigger than pfiles' reads where pages are bigger than 4 KiB):
 * records of a regular file each, the path of record i of i % 199 + 3
 * bytes (so their sizes vary), written by a child into a pipe in pieces
 * of 1 to 10,000 bytes with a pause after each, so that most reads end
 * inside a record.
 */
#define	RS_PID		4242
#define	RS_NREC		300
#define	RS_FD(i)	((i) + 3)
#define	RS_INO(i)	(1000000ULL + (i))

static size_t
rs_path(int i, char *buf)
{
	size_t n = (size_t)(i % 199) + 3;

	buf[0] = '/';
	for (size_t k = 1; k < n; k++)
		buf[k] = (char)('a' + (i + (int)k) % 26);
	buf[n] = '\0';
	return (n);
}

/* Record i, as the iterator writes it: its length. */
static size_t
rs_record(int i, uint8_t *out)
{
	struct pfb_rec r;
	size_t plen, size;

	memset(&r, 0, sizeof (r));
	plen = rs_path(i, r.r_path);
	size = PFB_RECSIZE(plen);
	r.r_magic = PFB_MAGIC;
	r.r_version = PFB_VERSION;
	r.r_recsize = (__u16)size;
	r.r_have = PFB_H_STAT | PFB_H_FILE;
	r.r_fd = RS_FD(i);
	r.r_tgid = RS_PID;
	r.r_mode = S_IFREG | 0644;
	r.r_nlink = 1;
	r.r_ino = RS_INO(i);
	r.r_size = i;
	r.r_fflags = O_RDONLY;
	r.r_path_len = (__u32)plen;
	memcpy(out, &r, size);
	return (size);
}

/* The stream of the records, less cut bytes at its end: its length. */
static size_t
rs_stream(uint8_t **bufp, size_t cut)
{
	uint8_t *buf = malloc((size_t)RS_NREC * PFB_RECSIZE_MAX);
	size_t len = 0;

	ATF_REQUIRE(buf != NULL);
	for (int i = 0; i < RS_NREC; i++)
		len += rs_record(i, buf + len);
	*bufp = buf;
	return (len - cut);
}

/* A child writes len bytes of buf into a pipe, in pieces: its read end. */
static int
rs_writer(const uint8_t *buf, size_t len, pid_t *pidp)
{
	static const size_t piece[] = { 1, 7, 500, 4096, 33, 10000, 3, 2047 };
	int p[2];

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((*pidp = fork()) >= 0);
	if (*pidp == 0) {
		size_t off = 0;

		(void) close(p[0]);
		for (int k = 0; off < len; k++) {
			size_t n = piece[k % 8] < len - off ? piece[k % 8] :
			    len - off;
			ssize_t w = write(p[1], buf + off, n);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			(void) usleep(300);
		}
		_exit(0);
	}
	(void) close(p[1]);
	return (p[0]);
}

typedef struct rs_seen {
	int	s_n;
	int	s_bad;		/* the first record not as written, + 1 */
} rs_seen_t;

static int
rs_take(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	rs_seen_t *s = arg;
	char path[PFB_PATH_MAX];
	int i = s->s_n++;
	size_t plen = rs_path(i, path);

	if (s->s_bad == 0 && (i >= RS_NREC || br->br_fd != RS_FD(i) ||
	    br->br_ino != RS_INO(i) || br->br_size != i ||
	    br->br_path_len != plen || br->br_path == NULL ||
	    memcmp(br->br_path, path, plen + 1) != 0 ||
	    rawlen != PFB_RECSIZE(plen)))
		s->s_bad = i + 1;
	return (0);
}

/*
 * The stream less cut bytes at its end, written by a child and read as
 * the records of process asked: bpf_pfiles_read()'s value, its errno in
 * *errp.  With wrote, the child must have written every byte.
 */
static int
rs_read(size_t cut, pid_t asked, int wrote, rs_seen_t *s, char *why,
    size_t whysz, int *errp)
{
	uint8_t *buf;
	size_t len = rs_stream(&buf, cut);
	pid_t pid;
	int fd = rs_writer(buf, len, &pid), r, status;

	errno = 0;
	r = bpf_pfiles_read(fd, asked, rs_take, s, why, whysz);
	*errp = errno;
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	if (wrote)
		ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(buf);
	return (r);
}

ATF_TC_WITHOUT_HEAD(bpfrec_read_pieces);
ATF_TC_BODY(bpfrec_read_pieces, tc)
{
	char why[256] = "";
	rs_seen_t s = { 0, 0 };
	int err;

	ATF_CHECK_EQ_MSG(rs_read(0, RS_PID, 1, &s, why, sizeof (why), &err),
	    0, "%s", why);
	ATF_CHECK_EQ(s.s_n, RS_NREC);
	ATF_CHECK_EQ_MSG(s.s_bad, 0, "record %d is not as written",
	    s.s_bad - 1);
}

ATF_TC_WITHOUT_HEAD(bpfrec_read_cut_short);
ATF_TC_BODY(bpfrec_read_cut_short, tc)
{
	char why[256] = "";
	rs_seen_t s = { 0, 0 };
	int err;

	/* The last record cut. */
	ATF_CHECK_EQ(rs_read(100, RS_PID, 1, &s, why, sizeof (why), &err),
	    -1);
	ATF_CHECK_EQ(err, EPROTO);
	ATF_CHECK_MSG(strstr(why, "cut short") != NULL, "why: %s", why);
	ATF_CHECK_EQ(s.s_n, RS_NREC - 1);
	ATF_CHECK_EQ_MSG(s.s_bad, 0, "record %d is not as written",
	    s.s_bad - 1);
}

ATF_TC_WITHOUT_HEAD(bpfrec_read_other_pid);
ATF_TC_BODY(bpfrec_read_other_pid, tc)
{
	char why[256] = "";
	rs_seen_t s = { 0, 0 };
	int err;

	/* The reads stop at its first record: the writer meets EPIPE. */
	ATF_CHECK_EQ(rs_read(0, RS_PID + 1, 0, &s, why, sizeof (why), &err),
	    -1);
	ATF_CHECK_EQ(err, ENOTSUP);
	ATF_CHECK_MSG(strstr(why, "gave process 4242's fds") != NULL,
	    "why: %s", why);
	ATF_CHECK_EQ(s.s_n, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, bpfrec_read_pieces);
	ATF_TP_ADD_TC(tp, bpfrec_read_cut_short);
	ATF_TP_ADD_TC(tp, bpfrec_read_other_pid);
	ATF_TP_ADD_TC(tp, fdinfo_fields);
	ATF_TP_ADD_TC(tp, fdinfo_mandatory_and_other);
	ATF_TP_ADD_TC(tp, fdinfo_unknown_keys);
	ATF_TP_ADD_TC(tp, fdinfo_malformed);
	ATF_TP_ADD_TC(tp, fdinfo_stops_at_type_lines);
	ATF_TP_ADD_TC(tp, fdinfo_digits_of_base);
	ATF_TP_ADD_TC(tp, fdinfo_line_fills_buffer);
	ATF_TP_ADD_TC(tp, fdinfo_overlong_and_truncated);
	ATF_TP_ADD_TC(tp, fdinfo_many_locks);
	ATF_TP_ADD_TC(tp, record_items);
	ATF_TP_ADD_TC(tp, record_walk);
	return (atf_no_error());
}

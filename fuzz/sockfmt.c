/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sockfmt.c: fuzzing harness of the decoding of socket facts and of the
 * formatting of a whole fd (pfiles_fmt.c), on records built by fdrec.c.
 *
 * Input:
 *	flags		1 byte: SF_RAW, SF_STATONLY, SF_NOCOMM, SF_BADCOMM
 *	salen		1 byte, then protocol (4 bytes) and salen bytes: one
 *			address for pf_sockaddr(), at exactly that length
 *	fixed part	the prfdinfo_t fields before pr_misc_size
 *	items		without SF_RAW: { type (1 byte), length (2 bytes),
 *			payload } up to the end, added with fdrec_add();
 *			with SF_RAW: the rest is pr_misc as it stands, in a
 *			record of exactly its size (a damaged record)
 *
 * Checked: an address line is exactly what the output contract says for
 * AF_INET and AF_UNIX (a path up to its NUL, or "@" and every byte of an
 * abstract name, through the rule for text from the target, pf_escape()),
 * and ends as it says for AF_INET6 and AF_NETLINK; proc_fdinfo_misc()
 * finds, for every type, the first item of that type with its exact
 * length and bytes; what pf_sockaddr() and pf_file() print (paths, names
 * and the peer's comm from the record, a hostile comm with SF_BADCOMM)
 * holds no control byte but TAB and newline, no DEL, and ends with a
 * newline; the list of facts not shown (pf_gaps) holds none either.
 */
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "core/Pcontrol.h"
#include "fuzz.h"
#include "pf_escape.h"
#include "pfiles_fmt.h"

#define	SF_RAW		0x01
#define	SF_STATONLY	0x02
#define	SF_NOCOMM	0x04
#define	SF_BADCOMM	0x08	/* a comm with a newline and ESC */

#define	NTYPES		24	/* item types tried: 0-23 */
#define	FIXED_SIZE	offsetof(prfdinfo_t, pr_misc_size)

/* Text written to a memory stream: open, then take the result. */
typedef struct memout {
	FILE	*mo_fp;
	char	*mo_buf;
	size_t	mo_len;
} memout_t;

static void
memout_open(memout_t *mo)
{
	mo->mo_buf = NULL;
	mo->mo_len = 0;
	if ((mo->mo_fp = open_memstream(&mo->mo_buf, &mo->mo_len)) == NULL)
		abort();
}

static void
memout_close(memout_t *mo)
{
	FUZZ_CHECK(fclose(mo->mo_fp) == 0);
	mo->mo_fp = NULL;
}

/*
 * What the contract says an AF_UNIX address line is.  The rule itself
 * is the escape harness's to check; this checks which bytes go through
 * it.
 */
static void
expect_unix(FILE *out, const uint8_t *sa, size_t len)
{
	const uint8_t *path = sa + offsetof(struct sockaddr_un, sun_path);
	size_t plen = len - offsetof(struct sockaddr_un, sun_path), n;

	if (plen > sizeof (((struct sockaddr_un *)0)->sun_path))
		plen = sizeof (((struct sockaddr_un *)0)->sun_path);
	(void) fputs("\tsockname: AF_UNIX ", out);
	if (plen > 0 && path[0] != '\0') {
		for (n = 0; n < plen && path[n] != '\0'; n++)
			continue;
		pf_fputesc(out, path, n);
	} else if (plen > 0) {
		(void) fputc('@', out);
		pf_fputesc(out, path + 1, plen - 1);
	}
	(void) fputc('\n', out);
}

/* No control byte but TAB and newline, no DEL: nothing forged. */
static void
check_no_controls(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		FUZZ_CHECK((c >= 0x20 && c != 0x7f) || c == '\t' ||
		    c == '\n');
	}
}

static int
ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return (len >= n && memcmp(s + len - n, suffix, n) == 0);
}

static void
check_sockaddr(const uint8_t *sa, size_t len, int protocol)
{
	static const char pfx[] = "\tsockname: AF_";
	memout_t got, want;
	sa_family_t family = 0;
	char tail[64];

	memout_open(&got);
	pf_sockaddr(got.mo_fp, "sockname", sa, len, protocol);
	memout_close(&got);
	if (len < sizeof (family)) {
		FUZZ_CHECK(got.mo_len == 0);
		free(got.mo_buf);
		return;
	}
	memcpy(&family, sa, sizeof (family));
	FUZZ_CHECK(got.mo_len > sizeof (pfx) - 1 &&
	    memcmp(got.mo_buf, pfx, sizeof (pfx) - 1) == 0);
	FUZZ_CHECK(got.mo_buf[got.mo_len - 1] == '\n');
	FUZZ_CHECK(memchr(got.mo_buf, '\0', got.mo_len) == NULL);
	check_no_controls(got.mo_buf, got.mo_len - 1);

	memout_open(&want);
	if (family == AF_UNIX) {
		expect_unix(want.mo_fp, sa, len);
	} else if (family == AF_INET && len >= sizeof (struct sockaddr_in)) {
		const uint8_t *a = sa + offsetof(struct sockaddr_in, sin_addr);
		const uint8_t *p = sa + offsetof(struct sockaddr_in, sin_port);

		(void) fprintf(want.mo_fp, "\tsockname: AF_INET %u.%u.%u.%u  "
		    "port: %u\n", a[0], a[1], a[2], a[3], p[0] << 8 | p[1]);
	}
	memout_close(&want);
	if (want.mo_len > 0) {
		FUZZ_CHECK(got.mo_len == want.mo_len &&
		    memcmp(got.mo_buf, want.mo_buf, got.mo_len) == 0);
	}
	free(want.mo_buf);

	if (family == AF_INET6 && len >= sizeof (struct sockaddr_in6)) {
		const uint8_t *p = sa + offsetof(struct sockaddr_in6,
		    sin6_port);

		(void) snprintf(tail, sizeof (tail), "  port: %u\n",
		    (unsigned)(p[0] << 8 | p[1]));
		FUZZ_CHECK(ends_with(got.mo_buf, got.mo_len, tail));
	} else if (family == AF_NETLINK &&
	    len >= sizeof (struct sockaddr_nl)) {
		struct sockaddr_nl snl;

		memcpy(&snl, sa, sizeof (snl));
		(void) snprintf(tail, sizeof (tail), "  pid: %u  groups: "
		    "0x%08x\n", (unsigned)snl.nl_pid, (unsigned)snl.nl_groups);
		FUZZ_CHECK(ends_with(got.mo_buf, got.mo_len, tail));
	}
	free(got.mo_buf);
}

static const char *
comm_of(void *arg, pid_t pid)
{
	return (arg);
}

/* pf_file() on info: the text must be whole lines with no NUL. */
static void
check_file(const prfdinfo_t *info, uint8_t flags)
{
	memout_t got;
	pf_ctx_t ctx;

	memset(&ctx, 0, sizeof (ctx));
	memout_open(&got);
	ctx.pf_out = got.mo_fp;
	ctx.pf_statonly = (flags & SF_STATONLY) != 0;
	ctx.pf_comm = comm_of;
	ctx.pf_comm_arg = (flags & SF_NOCOMM) ? NULL :
	    (flags & SF_BADCOMM) ? "c\n  9: \x1b[2J\xff" : "comm";
	FUZZ_CHECK(pf_file(&ctx, info) == 0);
	memout_close(&got);

	FUZZ_CHECK(got.mo_len > 0 && got.mo_buf[got.mo_len - 1] == '\n');
	FUZZ_CHECK(memchr(got.mo_buf, '\0', got.mo_len) == NULL);
	check_no_controls(got.mo_buf, got.mo_len);
	FUZZ_CHECK(memchr(ctx.pf_sockerr, '\0', sizeof (ctx.pf_sockerr)) !=
	    NULL);
	free(got.mo_buf);

	/* The facts not shown (PR_SOCKGAPS): names of the option table. */
	FUZZ_CHECK(ctx.pf_ngapsets <= PF_GAPSETS);
	for (uint_t i = 0; i < ctx.pf_ngapsets; i++) {
		FUZZ_CHECK(memchr(ctx.pf_gapsets[i].pg_why, '\0',
		    sizeof (ctx.pf_gapsets[i].pg_why)) != NULL);
		memout_open(&got);
		(void) pf_gaps(got.mo_fp, &ctx.pf_gapsets[i]);
		memout_close(&got);
		FUZZ_CHECK(memchr(got.mo_buf, '\0', got.mo_len) == NULL);
		check_no_controls(got.mo_buf, got.mo_len);
		free(got.mo_buf);
	}
}

/* A record built with fdrec_add(), checked against what was added. */
static void
built_record(fuzz_in_t *in, uint8_t flags)
{
	const uint8_t *first[NTYPES] = { NULL };
	size_t firstlen[NTYPES] = { 0 };
	fdrec_t rec = { NULL, 0 };
	prfdinfo_t *info;
	const void *p;
	size_t len;

	if (fdrec_reset(&rec, 0) != 0)
		abort();
	info = fdrec_info(&rec);
	(void) fuzz_take(in, info, FIXED_SIZE);

	while (in->fi_left > 0) {
		uint_t type = fuzz_u8(in) % NTYPES;
		size_t n = fuzz_u16(in);

		if (n > in->fi_left)
			n = in->fi_left;
		FUZZ_CHECK(fdrec_add(&rec, type, in->fi_p, n) == 0);
		info = fdrec_info(&rec);	/* it may have moved */
		if (first[type] == NULL) {
			first[type] = in->fi_p;
			firstlen[type] = n;
		}
		in->fi_p += n;
		in->fi_left -= n;
	}
	FUZZ_CHECK(info->pr_misc_size % 8 == 0);

	for (uint_t t = 0; t < NTYPES; t++) {
		p = proc_fdinfo_misc(info, t, &len);
		if (first[t] == NULL) {
			FUZZ_CHECK(p == NULL && len == 0);
			continue;
		}
		FUZZ_CHECK(p != NULL && len == firstlen[t]);
		FUZZ_CHECK(len == 0 || memcmp(p, first[t], len) == 0);
	}
	check_file(info, flags);
	fdrec_free(&rec);
}

/* A record of exactly its size whose items are the input's bytes. */
static void
raw_record(fuzz_in_t *in, uint8_t flags)
{
	prfdinfo_t *info;
	size_t n;

	n = in->fi_left > FIXED_SIZE ? in->fi_left - FIXED_SIZE : 0;
	if ((info = malloc(offsetof(prfdinfo_t, pr_misc) + n)) == NULL)
		abort();
	memset(info, 0, offsetof(prfdinfo_t, pr_misc));
	(void) fuzz_take(in, info, FIXED_SIZE);
	info->pr_misc_size = (uint_t)n;
	(void) fuzz_take(in, info->pr_misc, n);

	for (uint_t t = 0; t < NTYPES; t++) {
		const uint8_t *p;
		size_t len;

		/* Whatever it finds lies inside the record. */
		if ((p = proc_fdinfo_misc(info, t, &len)) != NULL)
			FUZZ_CHECK(p >= info->pr_misc &&
			    len <= n - (size_t)(p - info->pr_misc));
	}
	check_file(info, flags);
	free(info);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	fuzz_in_t in;
	uint8_t flags, *sa;
	size_t salen;
	int protocol;

	if (len > FUZZ_MAXLEN)
		return (0);
	fuzz_in_init(&in, data, len);
	flags = fuzz_u8(&in);
	salen = fuzz_u8(&in);
	protocol = (int)fuzz_u32(&in);
	sa = fuzz_copy(&in, salen, &salen);
	check_sockaddr(sa, salen, protocol);
	free(sa);

	if (flags & SF_RAW)
		raw_record(&in, flags);
	else
		built_record(&in, flags);
	return (0);
}

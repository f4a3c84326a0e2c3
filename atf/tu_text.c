/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tu_text.c: the tests' helpers on texts: comparing them, finding an fd's
 * block, cutting lines and peers (see testutil.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "testutil.h"

/* Print a line quoted, with TAB, quote, backslash and non-ASCII escaped. */
static void
put_escaped(FILE *fp, const char *s, size_t n)
{
	(void) fputc('"', fp);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\t')
			(void) fputs("\\t", fp);
		else if (ch == '"' || ch == '\\')
			(void) fprintf(fp, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			(void) fprintf(fp, "\\x%02x", ch);
		else
			(void) fputc(ch, fp);
	}
	(void) fputc('"', fp);
}

/* The line starting at off: its length without '\n', and if it has one. */
static size_t
line_at(const char *s, size_t len, size_t off, int *has_nl)
{
	const char *nl = memchr(s + off, '\n', len - off);

	*has_nl = nl != NULL;
	return (nl != NULL ? (size_t)(nl - (s + off)) : len - off);
}

static void
show_line(const char *label, const char *s, size_t len, size_t off)
{
	int nl;
	size_t n;

	(void) fprintf(stderr, "  %s: ", label);
	if (off >= len) {
		(void) fputs("(end of text)\n", stderr);
		return;
	}
	n = line_at(s, len, off, &nl);
	put_escaped(stderr, s + off, n);
	(void) fputs(nl ? "\n" : " (no newline at end)\n", stderr);
}

void
tu_require_same_text(const char *what, const char *expected, size_t explen,
    const char *actual, size_t actlen)
{
	size_t eo = 0, ao = 0, lineno = 1;
	char *ename, *aname;

	if (explen == actlen && memcmp(expected, actual, explen) == 0)
		return;

	/* Find the first line that differs, terminator included. */
	while (eo < explen && ao < actlen) {
		int enl, anl;
		size_t en = line_at(expected, explen, eo, &enl);
		size_t an = line_at(actual, actlen, ao, &anl);

		if (en != an || enl != anl ||
		    memcmp(expected + eo, actual + ao, en) != 0)
			break;
		eo += en + (size_t)enl;
		ao += an + (size_t)anl;
		lineno++;
	}

	ename = tu_asprintf("%s.expected", what);
	aname = tu_asprintf("%s.actual", what);
	tu_write_file(ename, expected, explen);
	tu_write_file(aname, actual, actlen);
	(void) fprintf(stderr, "%s: texts differ at line %zu "
	    "(full texts in %s and %s):\n", what, lineno, ename, aname);
	show_line("expected", expected, explen, eo);
	show_line("actual  ", actual, actlen, ao);
	(void) fprintf(stderr, "--- expected (%zu bytes)\n%.*s--- actual "
	    "(%zu bytes)\n%.*s---\n", explen, (int)explen, expected, actlen,
	    (int)actlen, actual);
	atf_tc_fail("%s: output differs from the expected text at line %zu "
	    "(see stderr, %s, %s)", what, lineno, ename, aname);
}

void
tu_require_same_str(const char *what, const char *expected,
    const char *actual)
{
	tu_require_same_text(what, expected, strlen(expected), actual,
	    strlen(actual));
}

int
tu_is_fd_line(const char *l)
{
	char colon, space;
	int fd;

	return (sscanf(l, "%d%c%c", &fd, &colon, &space) == 3 &&
	    colon == ':' && space == ' ');
}

char *
tu_fd_block(const char *out, int fd)
{
	char *head = tu_asprintf("\n%4d: ", fd), *b, *end;
	const char *p = strstr(out, head);

	free(head);
	if (p == NULL)
		return (NULL);
	b = tu_asprintf("%s", p + 1);
	for (end = strchr(b, '\n'); end != NULL; end = strchr(end + 1, '\n')) {
		if (tu_is_fd_line(end + 1)) {
			end[1] = '\0';
			break;
		}
	}
	return (b);
}

/*
 * text with every match of key cut from it up to (not including) the
 * first end after it, replaced by with.
 */
static char *
cut_after(char *text, const char *key, const char *end, const char *with)
{
	char *out = tu_asprintf("%s", ""), *next, *p = text, *q, *b;

	while ((q = strstr(p, key)) != NULL &&
	    (b = strstr(q + strlen(key), end)) != NULL) {
		next = tu_asprintf("%s%.*s%s", out, (int)(q - p), p, with);
		free(out);
		out = next;
		p = b;
	}
	next = tu_asprintf("%s%s", out, p);
	free(out);
	free(text);
	return (next);
}

char *
tu_unnamed_peers(char *text)
{
	/* the text's peer lines; -J's peer objects (a comm has no '"') */
	text = cut_after(text, "\tpeer: ", "[", "\tpeer: ?");
	return (cut_after(text, "\"peer\":{\"comm\":\"", "\"pid\":",
	    "\"peer\":{"));
}

int
tu_not_shown(const char *err, const char *arg, const char *item,
    const char *why)
{
	char *head = tu_asprintf("pfiles: %s: not shown: ", arg), *list;
	const char *p = strstr(err, head);
	size_t n;
	int found = 0;

	if (p != NULL) {
		p += strlen(head);
		n = strcspn(p, " \n");
		list = tu_asprintf("%.*s", (int)n, p);
		for (char *save = NULL, *w = strtok_r(list, ",", &save);
		    w != NULL; w = strtok_r(NULL, ",", &save))
			found |= strcmp(w, item) == 0;
		free(list);
		if (found && why != NULL) {
			char *tail = tu_asprintf(" (%s)\n", why);

			found = strncmp(p + n, tail, strlen(tail)) == 0;
			free(tail);
		}
	}
	free(head);
	return (found);
}

/* Text without its lines holding needle. */
char *
tu_without_lines(const char *text, const char *needle)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	const char *p = text;

	ATF_REQUIRE(out != NULL);
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) + 1 : strlen(p);

		if (memmem(p, len, needle, strlen(needle)) == NULL) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return (out);
}

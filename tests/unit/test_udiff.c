/* test_udiff.c - the unified line diff (tui/udiff.c): SAME, BINARY and TOO_BIG; hunks and
 * context; a property test over thousands of small random files (the hunks, applied to A,
 * give B byte for byte, and the number of +/- lines is |A| + |B| - 2·LCS, i.e. minimal);
 * byte-for-byte agreement with `diff -U3` where the diff is unambiguous; files without a
 * final newline, CRLF lines, empty files; a large file stays within memory. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/buf.h"
#include "tsupport.h"
#include "tui/udiff.h"

#define NONL "\\ No newline at end of file"

/* The diff's lines joined with '\n', each ending in '\n' (new string). */
static char *diff_text(const char *a, const char *b, int context, int max_d, int *rc)
{
	struct tdoc d;
	tdoc_init(&d);
	*rc = udiff(&d, a, strlen(a), b, strlen(b), context, max_d);
	struct buf o = {0};
	for (size_t i = 0; i < d.n; i++) {
		char *l = tdoc_line_text(&d, i);
		buf_puts(&o, l);
		buf_putc(&o, '\n');
		free(l);
	}
	tdoc_free(&d);
	buf_cstr(&o);
	return buf_take(&o);
}

static void expect(const char *a, const char *b, int context, const char *want)
{
	int rc;
	char *got = diff_text(a, b, context, 1000, &rc);
	cr_assert_eq(rc, UDIFF_OK, "rc %d", rc);
	cr_assert_str_eq(got, want, "--- got:\n%s--- want:\n%s", got, want);
	free(got);
}

/*==== the codes ====*/

Test(udiff, same_binary_too_big)
{
	struct tdoc d;
	tdoc_init(&d);
	cr_assert_eq(udiff(&d, "a\nb\n", 4, "a\nb\n", 4, 3, 100), UDIFF_SAME);
	cr_assert_eq(udiff(&d, "", 0, "", 0, 3, 100), UDIFF_SAME);
	cr_assert_eq(udiff(&d, "a\nb\n", 4, "a\nb\n", 4, 3, 0), UDIFF_SAME, "the same even when no edit is allowed");
	cr_assert_eq(udiff(&d, "a\0b\n", 4, "a\nb\n", 4, 3, 100), UDIFF_BINARY, "a NUL in the first");
	cr_assert_eq(udiff(&d, "a\nb\n", 4, "a\nb\n\0", 5, 3, 100), UDIFF_BINARY, "a NUL in the second");
	cr_assert_eq(udiff(&d, "\0", 1, "\0", 1, 3, 100), UDIFF_BINARY, "binary even when equal");
	cr_assert_eq(d.n, 0, "nothing is drawn for SAME or BINARY");
	/* Three lines replaced by three others: 6 edits. */
	cr_assert_eq(udiff(&d, "a\nb\nc\n", 6, "x\ny\nz\n", 6, 3, 5), UDIFF_TOO_BIG);
	cr_assert_eq(d.n, 0, "nothing is drawn when refused");
	cr_assert_eq(udiff(&d, "a\nb\nc\n", 6, "x\ny\nz\n", 6, 3, 6), UDIFF_OK);
	cr_assert_eq(d.n, 7);
	tdoc_free(&d);
	/* max_d bounds edits, not lines: a long file with one change needs 2. */
	struct buf a = {0}, b = {0};
	for (int i = 0; i < 5000; i++) {
		buf_printf(&a, "line %d\n", i);
		buf_printf(&b, "%s %d\n", i == 2500 ? "LINE" : "line", i);
	}
	tdoc_init(&d);
	cr_assert_eq(udiff(&d, a.p, a.len, b.p, b.len, 3, 2), UDIFF_OK);
	cr_assert_eq(d.n, 1 + 3 + 2 + 3);
	tdoc_free(&d);
	tdoc_init(&d);
	cr_assert_eq(udiff(&d, a.p, a.len, b.p, b.len, 3, 1), UDIFF_TOO_BIG);
	tdoc_free(&d);
	buf_free(&a);
	buf_free(&b);
}

/*==== hunks and context ====*/

static const char *TEN = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

Test(udiff, one_change_with_context)
{
	expect(TEN, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n", 3,
	       "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
	expect(TEN, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n", 1, "@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n");
	expect(TEN, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n", 0, "@@ -5,1 +5,1 @@\n-5\n+five\n");
	/* Context is cut at both ends of the file. */
	expect(TEN, "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", 3, "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n");
	expect(TEN, "1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n", 3, "@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n");
}

Test(udiff, insertions_and_deletions_alone)
{
	/* An insertion after line 5: the '-' side count covers only context. */
	expect(TEN, "1\n2\n3\n4\n5\nnew\n6\n7\n8\n9\n10\n", 3, "@@ -3,6 +3,7 @@\n 3\n 4\n 5\n+new\n 6\n 7\n 8\n");
	/* With no context, an empty range names the line before it (diff -U0). */
	expect(TEN, "1\n2\n3\n4\n5\nnew\n6\n7\n8\n9\n10\n", 0, "@@ -5,0 +6,1 @@\n+new\n");
	expect(TEN, "1\n2\n3\n4\n6\n7\n8\n9\n10\n", 0, "@@ -5,1 +4,0 @@\n-5\n");
	expect(TEN, "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", 0, "@@ -0,0 +1,1 @@\n+0\n");
}

Test(udiff, hunks_merge_when_their_context_touches)
{
	const char *A = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n";
	/* Changes at 3 and 10: six unchanged lines between them, exactly 2 x 3: one hunk. */
	expect(A, "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n11\n12\n13\n14\n15\n", 3,
	       "@@ -1,13 +1,13 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n 7\n 8\n 9\n-10\n+Y\n 11\n 12\n 13\n");
	/* Changes at 3 and 11: seven between them: two hunks. */
	expect(A, "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n13\n14\n15\n", 3,
	       "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+X\n 4\n 5\n 6\n"
	       "@@ -8,7 +8,7 @@\n 8\n 9\n 10\n-11\n+Y\n 12\n 13\n 14\n");
	/* Adjacent changes with no context never merge into a gap line. */
	expect(A, "1\n2\nX\n4\nY\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n", 0,
	       "@@ -3,1 +3,1 @@\n-3\n+X\n@@ -5,1 +5,1 @@\n-5\n+Y\n");
}

Test(udiff, roles_of_the_lines)
{
	struct tdoc d;
	tdoc_init(&d);
	cr_assert_eq(udiff(&d, "a\nb\nc\n", 6, "a\nB\nc\n", 6, 3, 10), UDIFF_OK);
	cr_assert_eq(d.n, 5);
	cr_assert_eq(d.lines[0].sp[0].role, ROLE_DIFF_HUNK);
	cr_assert_eq(d.lines[1].sp[0].role, ROLE_NORMAL);
	cr_assert_eq(d.lines[2].sp[0].role, ROLE_DIFF_DEL);
	cr_assert_eq(d.lines[3].sp[0].role, ROLE_DIFF_ADD);
	for (size_t i = 0; i < d.n; i++)
		cr_assert_eq(d.lines[i].n, 1, "line %zu is one span (prefix and text share the role)", i);
	tdoc_free(&d);
}

/*==== edges: empty files, no final newline, CRLF ====*/

Test(udiff, empty_files)
{
	expect("", "x\n", 3, "@@ -0,0 +1,1 @@\n+x\n");
	expect("x\n", "", 3, "@@ -1,1 +0,0 @@\n-x\n");
	expect("", "\n", 3, "@@ -0,0 +1,1 @@\n+\n");
	expect("", "a\nb\n", 3, "@@ -0,0 +1,2 @@\n+a\n+b\n");
}

Test(udiff, no_final_newline)
{
	/* Only the final newline differs: still a change, and it says so (as diff does). */
	expect("a\nb", "a\nb\n", 3, "@@ -1,2 +1,2 @@\n a\n-b\n" NONL "\n+b\n");
	expect("a\nb\n", "a\nb", 3, "@@ -1,2 +1,2 @@\n a\n-b\n+b\n" NONL "\n");
	/* An unchanged last line without a newline, as context. */
	expect("a\nb\nc", "A\nb\nc", 3, "@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n" NONL "\n");
	/* Both sides end without one, and the last line changes. */
	expect("a\nb", "a\nc", 3, "@@ -1,2 +1,2 @@\n a\n-b\n" NONL "\n+c\n" NONL "\n");
	expect("", "x", 3, "@@ -0,0 +1,1 @@\n+x\n" NONL "\n");
	expect("x", "", 3, "@@ -1,1 +0,0 @@\n-x\n" NONL "\n");
}

Test(udiff, crlf_lines)
{
	/* The CR is part of the line (compared) but not drawn. */
	expect("one\r\ntwo\r\nthree\r\n", "one\r\nTWO\r\nthree\r\n", 3, "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
	/* CRLF to LF changes every line. */
	expect("a\r\nb\r\n", "a\nb\n", 3, "@@ -1,2 +1,2 @@\n-a\n-b\n+a\n+b\n");
	/* A lone CR inside a line stays (the canvas shows it as a replacement character). */
	expect("a\rb\n", "a\rc\n", 3, "@@ -1,1 +1,1 @@\n-a\rb\n+a\rc\n");
}

/*==== against diff -U3 ====*/

static void against_diff(const char *a, const char *b)
{
	char *dir = ts_tmpdir("udiff");
	char pa[512], pb[512], po[512];
	snprintf(pa, sizeof pa, "%s/a", dir);
	snprintf(pb, sizeof pb, "%s/b", dir);
	snprintf(po, sizeof po, "%s/out", dir);
	ts_write_file(pa, a, strlen(a));
	ts_write_file(pb, b, strlen(b));
	int st = ts_sh("diff -U3 '%s' '%s' > '%s'", pa, pb, po);
	cr_assert_eq(st, 1, "diff finds a difference (status %d)", st);
	size_t n;
	char *out = ts_read_file(po, &n);
	/* Drop the two file header lines; spell out the counts diff leaves implicit (",1"). */
	struct buf want = {0};
	char *save = NULL;
	int line = 0;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save), line++) {
		if (line < 2)
			continue;
		if (!strncmp(l, "@@ ", 3)) {
			long as, ac = 1, bs, bc = 1;
			char rest[64];
			if (sscanf(l, "@@ -%ld,%ld +%ld,%ld @@%63s", &as, &ac, &bs, &bc, rest) < 4 &&
			    sscanf(l, "@@ -%ld +%ld,%ld @@", &as, &bs, &bc) != 3 &&
			    sscanf(l, "@@ -%ld,%ld +%ld @@", &as, &ac, &bs) != 3 && sscanf(l, "@@ -%ld +%ld @@", &as, &bs) != 2)
				cr_assert_fail("cannot read diff's header %s", l);
			buf_printf(&want, "@@ -%ld,%ld +%ld,%ld @@\n", as, ac, bs, bc);
		} else {
			buf_printf(&want, "%s\n", l);
		}
	}
	int rc;
	char *got = diff_text(a, b, 3, 1000, &rc);
	cr_assert_eq(rc, UDIFF_OK);
	cr_assert_str_eq(got, buf_cstr(&want), "--- udiff:\n%s--- diff -U3:\n%s", got, buf_cstr(&want));
	free(got);
	free(out);
	buf_free(&want);
	ts_rmtree(dir);
	free(dir);
}

Test(udiff, agrees_with_diff_U3)
{
	const char *A = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";
	against_diff(A, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n");
	against_diff(A, "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n");
	against_diff(A, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n");
	against_diff(A, "1\n2\nX\n4\n5\n6\n7\n8\n9\nY\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n");
	against_diff(A, "1\n2\nX\n4\n5\n6\n7\n8\n9\n10\nY\n12\n13\n14\n15\n16\n17\n18\n19\n20\n");
	against_diff(A, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nA\nB\nC\n13\n14\n15\n16\n17\n18\n19\n20\n");
	against_diff(A, "1\n2\n3\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n");
	against_diff(A, "");
	against_diff("", A);
	against_diff("a\nb", "a\nb\n");
	against_diff("a\nb\n", "a\nb");
	against_diff("a\nb\nc", "A\nb\nc");
	against_diff("a\nb", "a\nc");
}

/*==== property: random small files ====*/

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A random file of up to maxl lines from a 4-line alphabet, sometimes without a final
 * newline, sometimes with an empty line. */
static void rand_file(struct buf *b, int maxl)
{
	static const char *alpha[] = {"apple", "bread", "", "cheese"};
	b->len = 0;
	int n = (int)(next() % (uint64_t)(maxl + 1));
	for (int i = 0; i < n; i++) {
		buf_puts(b, alpha[next() % 4]);
		buf_putc(b, '\n');
	}
	if (n && next() % 8 == 0)
		b->len--; /* no final newline */
	buf_cstr(b);
}

struct toks {
	char **t; /* each line with its '\n' if it has one */
	size_t n;
};

static void tokens(const char *s, size_t len, struct toks *o)
{
	o->t = NULL;
	o->n = 0;
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - s) + 1 : len;
		o->t = realloc(o->t, (o->n + 1) * sizeof *o->t);
		o->t[o->n++] = strndup(s + i, e - i);
		i = e;
	}
}

static void toks_free(struct toks *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->t[i]);
	free(o->t);
}

static size_t lcs(const struct toks *a, const struct toks *b)
{
	size_t *row = calloc((a->n + 1) * (b->n + 1), sizeof *row);
	size_t w = b->n + 1;
	for (size_t i = 1; i <= a->n; i++)
		for (size_t j = 1; j <= b->n; j++)
			row[i * w + j] = !strcmp(a->t[i - 1], b->t[j - 1]) ? row[(i - 1) * w + j - 1] + 1
					 : row[(i - 1) * w + j] > row[i * w + j - 1] ? row[(i - 1) * w + j]
										      : row[i * w + j - 1];
	size_t r = row[a->n * w + b->n];
	free(row);
	return r;
}

/* Parses the rendered hunks, checks their headers and context rules, applies them to A and
 * returns the result in out; *changes gets the number of +/- lines. */
/* 1 when line i of d is the "no newline" mark. */
static int is_nonl(const struct tdoc *d, size_t i)
{
	if (i >= d->n)
		return 0;
	char *l = tdoc_line_text(d, i);
	int r = !strcmp(l, NONL);
	free(l);
	return r;
}

/* Parses the rendered hunks, checks their headers and context rules, applies them to A and
 * returns the result in out; *changes gets the number of +/- lines. */
static void apply(const struct tdoc *d, const struct toks *A, int context, struct buf *out, size_t *changes,
		  const char *what)
{
	size_t apos = 0;      /* next line of A to copy */
	size_t i = 0;
	size_t after_last = 0; /* the A line after the previous hunk's last change */
	int have_prev = 0;
	*changes = 0;
	out->len = 0;
	while (i < d->n) {
		char *h = tdoc_line_text(d, i++);
		long as, ac, bs, bc;
		cr_assert_eq(sscanf(h, "@@ -%ld,%ld +%ld,%ld @@", &as, &ac, &bs, &bc), 4, "%s: a hunk header: '%s'", what, h);
		free(h);
		size_t start = ac ? (size_t)as - 1 : (size_t)as; /* index of the hunk's first A line */
		cr_assert(start >= apos, "%s: hunks in order, not overlapping", what);
		for (; apos < start; apos++)
			buf_puts(out, A->t[apos]);
		size_t prev_after = after_last;
		long na = 0, nb = 0;
		int first = 1, lead = 0, run = 0;
		size_t first_change = 0;
		while (i < d->n && !is_nonl(d, i)) {
			char *l = tdoc_line_text(d, i);
			if (!strncmp(l, "@@ ", 3)) {
				free(l);
				break;
			}
			i++;
			char op = l[0];
			const char *txt = l + 1;
			int nonl = is_nonl(d, i);
			if (nonl)
				i++;
			cr_assert(op == ' ' || op == '-' || op == '+', "%s: an op, not '%c'", what, op);
			if (op == ' ') {
				run++;
				lead += first;
			} else {
				if (first)
					first_change = apos;
				else
					cr_assert(run <= 2 * context, "%s: %d unchanged lines inside a hunk", what, run);
				run = 0;
				first = 0;
				(*changes)++;
			}
			if (op == ' ' || op == '-') {
				cr_assert(apos < A->n, "%s: the hunk runs past A", what);
				size_t tl = strlen(A->t[apos]);
				int a_nonl = A->t[apos][tl - 1] != '\n';
				cr_assert_eq(a_nonl, nonl, "%s: the no-newline mark matches A's line %zu", what, apos);
				cr_assert(strlen(txt) == tl - !a_nonl && !strncmp(A->t[apos], txt, tl - !a_nonl),
					  "%s: the hunk's line '%s' is A's line %zu '%s'", what, txt, apos, A->t[apos]);
				if (op == ' ')
					buf_puts(out, A->t[apos]);
				apos++;
				na++;
			}
			if (op == '+') {
				buf_puts(out, txt);
				if (!nonl)
					buf_putc(out, '\n');
			}
			if (op == ' ' || op == '+')
				nb++;
			if (op != ' ')
				after_last = apos;
			free(l);
		}
		cr_assert(!first, "%s: a hunk with no change", what);
		cr_assert_eq(na, ac, "%s: '-' count in the header", what);
		cr_assert_eq(nb, bc, "%s: '+' count in the header", what);
		if (have_prev)
			cr_assert(first_change - prev_after > (size_t)(2 * context),
				  "%s: hunks %zu unchanged lines apart should be one", what, first_change - prev_after);
		int want_lead = have_prev || (size_t)context <= first_change ? context : (int)first_change;
		cr_assert_eq(lead, want_lead, "%s: %d leading context lines, want %d", what, lead, want_lead);
		cr_assert(run == context || (run < context && apos == A->n), "%s: %d trailing context lines", what, run);
		have_prev = 1;
	}
	for (; apos < A->n; apos++)
		buf_puts(out, A->t[apos]);
	buf_cstr(out);
}

Test(udiff, property_random_files_apply_and_are_minimal)
{
	struct buf a = {0}, b = {0}, got = {0};
	int same = 0, ok = 0;
	for (int iter = 0; iter < 6000; iter++) {
		rand_file(&a, iter < 3000 ? 8 : 16);
		rand_file(&b, iter < 3000 ? 8 : 16);
		int context = (int)(next() % 4);
		char what[64];
		snprintf(what, sizeof what, "case %d (context %d)", iter, context);
		struct tdoc d;
		tdoc_init(&d);
		int rc = udiff(&d, a.p, a.len, b.p, b.len, context, 1000);
		if (a.len == b.len && !memcmp(a.p, b.p, a.len)) {
			cr_assert_eq(rc, UDIFF_SAME, "%s", what);
			cr_assert_eq(d.n, 0);
			tdoc_free(&d);
			same++;
			continue;
		}
		cr_assert_eq(rc, UDIFF_OK, "%s: rc %d", what, rc);
		struct toks A, B;
		tokens(a.p, a.len, &A);
		tokens(b.p, b.len, &B);
		size_t changes;
		apply(&d, &A, context, &got, &changes, what);
		cr_assert(got.len == b.len && !memcmp(got.p, b.p, b.len), "%s: A + hunks != B\nA:\n%s\nB:\n%s\ngot:\n%s", what,
			  a.p, b.p, got.p);
		size_t l = lcs(&A, &B);
		cr_assert_eq(changes, A.n + B.n - 2 * l, "%s: %zu +/- lines, minimal is %zu\nA:\n%s\nB:\n%s", what, changes,
			     A.n + B.n - 2 * l, a.p, b.p);
		toks_free(&A);
		toks_free(&B);
		tdoc_free(&d);
		ok++;
	}
	cr_assert(same > 10 && ok > 5000, "%d same, %d diffs", same, ok);
	buf_free(&a);
	buf_free(&b);
	buf_free(&got);
}

/*==== size ====*/

Test(udiff, a_large_file_with_many_changes_stays_small)
{
	/* 60,000 lines, 1,200 of them changed (2,400 edits): the edit trace must stay O(D²), not
	 * O((N+M)·D) (which is gigabytes here). */
	struct buf a = {0}, b = {0};
	for (int i = 0; i < 60000; i++) {
		buf_printf(&a, "line %d\n", i);
		buf_printf(&b, "%s %d\n", i % 50 == 7 ? "changed" : "line", i);
	}
	struct rlimit old;
	getrlimit(RLIMIT_DATA, &old);
#if !defined(__SANITIZE_ADDRESS__)
	struct rlimit lim = {512u << 20, old.rlim_max};
	setrlimit(RLIMIT_DATA, &lim); /* xmalloc aborts (the test crashes) beyond this */
#endif
	struct tdoc d;
	tdoc_init(&d);
	int rc = udiff(&d, a.p, a.len, b.p, b.len, 3, 4000);
	setrlimit(RLIMIT_DATA, &old);
	cr_assert_eq(rc, UDIFF_OK);
	size_t plus = 0, minus = 0;
	for (size_t i = 0; i < d.n; i++) {
		plus += d.lines[i].sp[0].text[0] == '+';
		minus += d.lines[i].sp[0].text[0] == '-';
	}
	cr_assert_eq(plus, 1200);
	cr_assert_eq(minus, 1200);
	tdoc_free(&d);
	buf_free(&a);
	buf_free(&b);
}

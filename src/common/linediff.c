/* linediff.c - Myers' O(ND) diff over lines, handed out as unified hunks (see linediff.h).
 *
 * Must not: read files (the caller hands in bytes), take more than O((N+M)·D) time or
 * O(D²) memory; it refuses beyond max_d. */
#include "common/linediff.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/xalloc.h"

struct lines {
	const char **p;
	size_t *len;
	uint64_t *h;
	size_t n;
	int nonl; /* the last line has no final newline (it differs from the same text with one) */
};

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static void split(const char *s, size_t n, struct lines *l)
{
	memset(l, 0, sizeof *l);
	size_t cap = 0;
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) : n;
		if (l->n == cap) {
			cap = cap ? cap * 2 : 64;
			l->p = xrealloc(l->p, cap * sizeof *l->p);
			l->len = xrealloc(l->len, cap * sizeof *l->len);
			l->h = xrealloc(l->h, cap * sizeof *l->h);
		}
		l->p[l->n] = s + i;
		l->len[l->n] = e - i;
		l->h[l->n] = fnv(s + i, e - i);
		l->n++;
		i = e + 1;
	}
	l->nonl = n && s[n - 1] != '\n';
}

static void lines_free(struct lines *l)
{
	free(l->p);
	free(l->len);
	free(l->h);
}

static int eq(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->h[i] == b->h[j] && a->len[i] == b->len[j] && !memcmp(a->p[i], b->p[j], a->len[i]) &&
	       (a->nonl && i == a->n - 1) == (b->nonl && j == b->n - 1);
}

/* An edit script as a sequence of ops: ' ' keep, '-' delete from a, '+' insert from b. */
static char *myers(const struct lines *a, const struct lines *b, int max_d, size_t *nops)
{
	long n = (long)a->n, m = (long)b->n, off = n + m + 1;
	if (n == 0 || m == 0) { /* all added or all removed: no search, whatever the length */
		char *ops = xmalloc((size_t)(n + m) + 1);
		memset(ops, n ? '-' : '+', (size_t)(n + m));
		ops[n + m] = '\0';
		*nops = (size_t)(n + m);
		return ops;
	}
	long vsz = 2 * off + 1;
	long *v = xcalloc((size_t)vsz, sizeof *v);
	long **trace = xcalloc((size_t)max_d + 1, sizeof *trace);
	long dfound = -1;
	for (long d = 0; d <= max_d && d <= n + m; d++) {
		for (long k = -d; k <= d; k += 2) {
			long x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
			long y = x - k;
			while (x < n && y < m && eq(a, (size_t)x, b, (size_t)y))
				x++, y++;
			v[off + k] = x;
			if (x >= n && y >= m) {
				dfound = d;
				break;
			}
		}
		/* Only diagonals -d..d can be read back (O(D²) memory, not O((N+M)·D)). */
		trace[d] = xmalloc((size_t)(2 * d + 1) * sizeof **trace);
		memcpy(trace[d], v + off - d, (size_t)(2 * d + 1) * sizeof *v);
		if (dfound >= 0)
			break;
	}
	char *ops = NULL;
	if (dfound >= 0) {
		/* Walk back from (n, m). */
		size_t cap = (size_t)(n + m) + 1, len = 0;
		char *rev = xmalloc(cap);
		long x = n, y = m;
		for (long d = dfound; d > 0; d--) {
			long *pv = trace[d - 1] + (d - 1); /* pv[k] is diagonal k of round d-1 */
			long k = x - y;
			long pk = (k == -d || (k != d && pv[k - 1] < pv[k + 1])) ? k + 1 : k - 1;
			long px = pv[pk], py = px - pk;
			while (x > px && y > py)
				rev[len++] = ' ', x--, y--;
			if (x == px)
				rev[len++] = '+', y--;
			else
				rev[len++] = '-', x--;
		}
		while (x > 0 && y > 0)
			rev[len++] = ' ', x--, y--;
		ops = xmalloc(len + 1);
		for (size_t i = 0; i < len; i++)
			ops[i] = rev[len - 1 - i];
		ops[len] = '\0';
		*nops = len;
		free(rev);
	}
	for (long d = 0; d <= max_d; d++)
		free(trace[d]);
	free(trace);
	free(v);
	return ops;
}

int linediff(const char *a, size_t alen, const char *b, size_t blen, int context, int max_d,
	     const struct linediff_sink *k)
{
	struct lines la, lb;
	split(a, alen, &la);
	split(b, blen, &lb);
	size_t nops = 0;
	char *ops = myers(&la, &lb, max_d, &nops);
	if (!ops) {
		lines_free(&la);
		lines_free(&lb);
		return -E2BIG;
	}
	/* Positions in a and b before each op. */
	size_t *ia = xmalloc((nops + 1) * sizeof *ia), *ib = xmalloc((nops + 1) * sizeof *ib);
	size_t x = 0, y = 0;
	for (size_t i = 0; i < nops; i++) {
		ia[i] = x;
		ib[i] = y;
		if (ops[i] != '+')
			x++;
		if (ops[i] != '-')
			y++;
	}
	ia[nops] = x;
	ib[nops] = y;
	size_t i = 0;
	while (i < nops) {
		if (ops[i] == ' ') {
			i++;
			continue;
		}
		/* A hunk: from `context` keeps before the change to `context` after the last change
		 * that is within 2*context keeps of the next. */
		size_t start = i >= (size_t)context ? i - (size_t)context : 0;
		while (start < i && ops[start] != ' ')
			start++;
		size_t end = i;
		for (;;) {
			while (end < nops && ops[end] != ' ')
				end++;
			size_t keep = end;
			while (keep < nops && ops[keep] == ' ' && keep - end < (size_t)(2 * context))
				keep++;
			if (keep < nops && ops[keep] != ' ' && keep - end <= (size_t)(2 * context)) {
				end = keep;
				continue;
			}
			end = end + (size_t)context < nops ? end + (size_t)context : nops;
			break;
		}
		size_t na = 0, nb = 0;
		for (size_t j = start; j < end; j++) {
			if (ops[j] != '+')
				na++;
			if (ops[j] != '-')
				nb++;
		}
		k->hunk(k->ctx, na ? ia[start] + 1 : ia[start], na, nb ? ib[start] + 1 : ib[start], nb);
		for (size_t j = start; j < end; j++) {
			if (ops[j] == '+')
				k->line(k->ctx, '+', lb.p[ib[j]], lb.len[ib[j]], lb.nonl && ib[j] == lb.n - 1);
			else
				k->line(k->ctx, ops[j], la.p[ia[j]], la.len[ia[j]], la.nonl && ia[j] == la.n - 1);
		}
		i = end;
	}
	free(ia);
	free(ib);
	free(ops);
	lines_free(&la);
	lines_free(&lb);
	return 0;
}

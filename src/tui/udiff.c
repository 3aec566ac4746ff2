/* udiff.c - a unified line diff rendered into a tdoc (see udiff.h); the diff itself is
 * common/linediff.c.
 *
 * Must not: read files (the caller hands in bytes). */
#include "tui/udiff.h"

#include <string.h>

#include "common/linediff.h"

static void on_line(void *ctx, char op, const char *s, size_t n, int nonl)
{
	struct tdoc *d = ctx;
	tdoc_nl(d);
	enum role r = op == '+' ? ROLE_DIFF_ADD : op == '-' ? ROLE_DIFF_DEL : ROLE_NORMAL;
	char pre[2] = {op, 0};
	tdoc_add(d, r, pre);
	if (n && s[n - 1] == '\r')
		n--;
	tdoc_addn(d, r, s, n);
	if (nonl) { /* as diff says it */
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIFF_META, "\\ No newline at end of file");
	}
}

static void on_hunk(void *ctx, size_t as, size_t an, size_t bs, size_t bn)
{
	struct tdoc *d = ctx;
	tdoc_nl(d);
	tdoc_addf(d, ROLE_DIFF_HUNK, "@@ -%zu,%zu +%zu,%zu @@", as, an, bs, bn);
}

int udiff(struct tdoc *d, const char *a, size_t alen, const char *b, size_t blen, int context, int max_d)
{
	if (memchr(a, '\0', alen) || memchr(b, '\0', blen))
		return UDIFF_BINARY;
	if (alen == blen && !memcmp(a, b, alen))
		return UDIFF_SAME;
	const struct linediff_sink k = {.hunk = on_hunk, .line = on_line, .ctx = d};
	return linediff(a, alen, b, blen, context, max_d, &k) == 0 ? UDIFF_OK : UDIFF_TOO_BIG;
}

/* filter.c - parsing and matching the turns filter (see filter.h). Pure: no I/O.
 *
 * Must not: allocate while matching (it runs over every turn of a run on each keystroke). */
#include "tui/filter.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"

enum fkey { F_TEXT, F_TOOL, F_VERDICT, F_STATUS, F_GATE, F_LABEL, F_HAS };

struct fterm {
	int neg;
	enum fkey key;
	char *val;
	char *low; /* val folded with the filter's table (the substring keys) */
	size_t nlow;
	int ival;
};

struct filter {
	struct fterm *t;
	int n;
	unsigned char fold[256]; /* tolower() of every byte in the locale of the parse */
};

static const char *keys[] = {[F_TOOL] = "tool",   [F_VERDICT] = "verdict", [F_STATUS] = "status",
			     [F_GATE] = "gate",   [F_LABEL] = "label",     [F_HAS] = "has"};

static const char *verdicts[] = {"pass", "warn", "unverified", "fail", "not_covered", "none", NULL};
static const char *statuses[] = {"pending", "answered", "error", "cancelled", "held", "refused", NULL};
static const char *gates[] = {"allow", "flagged", "ask", "deny", NULL};
static const char *labels[] = {"true-positive", "false-positive", "unverifiable", "pending", "none", "missed", NULL};
static const char *has[] = {"denials", "error", "label", NULL};

static int pick(const char *const *list, const char *v)
{
	for (int i = 0; list[i]; i++)
		if (!strcasecmp(list[i], v))
			return i;
	return -1;
}

static void list_join(const char *const *list, char *out, size_t n)
{
	out[0] = '\0';
	for (int i = 0; list[i]; i++) {
		if (i)
			strncat(out, ", ", n - strlen(out) - 1);
		strncat(out, list[i], n - strlen(out) - 1);
	}
}

void filter_free(struct filter *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++) {
		free(f->t[i].val);
		free(f->t[i].low);
	}
	free(f->t);
	free(f);
}

static int parse_term(const char *tok, struct fterm *t, struct err *e)
{
	memset(t, 0, sizeof *t);
	if (*tok == '!') {
		t->neg = 1;
		tok++;
	}
	const char *colon = strchr(tok, ':');
	if (!colon) {
		if (!*tok)
			return err_set(e, BELAY_EINVAL, "filter: '!' needs something after it");
		t->key = F_TEXT;
		t->val = xstrdup(tok);
		return 0;
	}
	size_t kn = (size_t)(colon - tok);
	const char *v = colon + 1;
	int key = -1;
	for (int k = F_TOOL; k <= F_HAS; k++)
		if (strlen(keys[k]) == kn && !strncasecmp(keys[k], tok, kn))
			key = k;
	if (key < 0)
		return err_set(e, BELAY_EINVAL, "filter: unknown key '%.*s' (tool, verdict, status, gate, label, has)",
			       (int)kn, tok);
	t->key = (enum fkey)key;
	const char *const *allowed = key == F_VERDICT  ? verdicts
				     : key == F_STATUS ? statuses
				     : key == F_GATE   ? gates
				     : key == F_LABEL  ? labels
				     : key == F_HAS    ? has
						       : NULL;
	if (!*v)
		return err_set(e, BELAY_EINVAL, "filter: '%s:' needs a value", keys[key]);
	if (allowed) {
		t->ival = pick(allowed, v);
		if (t->ival < 0) {
			char l[200];
			list_join(allowed, l, sizeof l);
			return err_set(e, BELAY_EINVAL, "filter: %s:%s is not one of %s", keys[key], v, l);
		}
	}
	t->val = xstrdup(v);
	return 0;
}

int filter_parse(const char *expr, struct filter **out, struct err *e)
{
	*out = NULL;
	struct filter *f = xcalloc(1, sizeof *f);
	const char *p = expr ? expr : "";
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		char *tok = xstrndup(s, (size_t)(p - s));
		f->t = xrealloc(f->t, (size_t)(f->n + 1) * sizeof *f->t);
		int rc = parse_term(tok, &f->t[f->n], e);
		free(tok);
		if (rc) {
			filter_free(f);
			return rc;
		}
		f->n++;
	}
	for (int c = 0; c < 256; c++)
		f->fold[c] = (unsigned char)tolower(c);
	for (int i = 0; i < f->n; i++) {
		struct fterm *t = &f->t[i];
		if (t->key != F_TEXT && t->key != F_TOOL)
			continue;
		t->nlow = strlen(t->val);
		t->low = xmalloc(t->nlow + 1);
		for (size_t k = 0; k <= t->nlow; k++)
			t->low[k] = (char)f->fold[(unsigned char)t->val[k]];
	}
	if (!f->n) {
		filter_free(f);
		return 0;
	}
	*out = f;
	return 0;
}

/* Whether the term's value occurs in hay, ignoring case: what strcasestr() finds (tolower()
 * of every byte in the current locale), without its per-call set-up, which dominated a
 * keystroke's refilter of a long run. Haystacks are short (summaries, names, causes). */
static int icontains(const char *hay, const struct fterm *t, const unsigned char *fold)
{
	if (!hay)
		return 0;
	const unsigned char *h = (const unsigned char *)hay, *n = (const unsigned char *)t->low;
	size_t nn = t->nlow;
	if (nn == 0)
		return 1;
	for (; *h; h++) {
		if (fold[*h] != n[0])
			continue;
		size_t k = 1;
		while (k < nn && h[k] && fold[h[k]] == n[k])
			k++;
		if (k == nn)
			return 1;
		if (!h[k])
			return 0; /* hay ends before the needle could */
	}
	return 0;
}

static int term_match(const struct fterm *t, const struct cm_turn *x, const unsigned char *fold)
{
	switch (t->key) {
	case F_TEXT:
		return icontains(x->tool, t, fold) || icontains(x->args, t, fold) || icontains(x->error, t, fold) ||
		       icontains(cm_v_word(x->v), t, fold) || icontains(x->cause, t, fold);
	case F_TOOL:
		return icontains(x->tool, t, fold);
	case F_VERDICT:
		return t->ival == 5 ? x->v == CMV_NONE : (int)x->v == t->ival;
	case F_STATUS:
		switch (t->ival) {
		case 0: return x->call == CMC_PENDING && !x->hold;
		case 1: return x->call == CMC_ANSWERED;
		case 2: return x->error != NULL;
		case 3: return x->call == CMC_CANCELLED;
		case 4: return x->hold != 0;
		default: return !strcmp(x->outcome, "refused") || !strcmp(x->approval, "refused");
		}
	case F_GATE:
		switch (t->ival) {
		case 0: return !strcmp(x->decision, "allow");
		case 1: return !strcmp(x->decision, "allow_flagged");
		case 2: return !strcmp(x->decision, "ask");
		default: return !strcmp(x->decision, "deny");
		}
	case F_LABEL:
		if (t->ival == 5) /* a recorded miss */
			return x->label_miss && !strcmp(x->label, "true-positive");
		return t->ival == 4 ? x->label[0] == '\0' : !strcasecmp(x->label, labels[t->ival]);
	case F_HAS:
		return t->ival == 0 ? x->denials > 0 : t->ival == 1 ? x->error != NULL : x->label[0] != '\0';
	}
	return 0;
}

int filter_match(const struct filter *f, const struct cm_turn *t)
{
	if (!f)
		return 1;
	for (int i = 0; i < f->n; i++)
		if (term_match(&f->t[i], t, f->fold) == f->t[i].neg)
			return 0;
	return 1;
}

/* The last term of expression e (after its last blank), and its length. */
static const char *last_term(const char *e, size_t n, size_t *len)
{
	size_t a = n;
	while (a > 0 && e[a - 1] != ' ' && e[a - 1] != '\t')
		a--;
	*len = n - a;
	return e + a;
}

/* A term whose value matches as a substring: a word, or tool:VALUE (any case of the key). */
static int substring_term(const char *t, size_t n)
{
	const char *colon = memchr(t, ':', n);
	return !colon || ((size_t)(colon - t) == 4 && !strncasecmp(t, "tool", 4) && colon + 1 < t + n);
}

int filter_narrows(const char *before, const char *after)
{
	size_t bn = strlen(before), an = strlen(after);
	while (bn && (before[bn - 1] == ' ' || before[bn - 1] == '\t'))
		bn--;
	if (!bn || an < bn || strncmp(before, after, bn) || strchr(after, '!'))
		return 0;
	if (after[bn] == '\0' || after[bn] == ' ' || after[bn] == '\t')
		return 1; /* the same terms, and maybe more: each must match too */
	/* The last term goes on: both it and what it becomes must match as substrings. */
	size_t tl, ul;
	const char *t = last_term(before, bn, &tl);
	size_t end = bn;
	while (end < an && after[end] != ' ' && after[end] != '\t')
		end++;
	const char *u = last_term(after, end, &ul);
	return substring_term(t, tl) && substring_term(u, ul) && (memchr(t, ':', tl) != NULL) == (memchr(u, ':', ul) != NULL);
}

/* opt.c - getopt-like iteration over a command's expanded arguments for the decoders:
 * short clusters (-rf, -n5), long options (--out=x, --out x), "--", and words whose text
 * is only known at run time (which may turn out to be options). Must not: interpret what an
 * option means (the decoders do). Pure; caller's thread. */
#include "gate/lower.h"

#include <string.h>

void opt_init(struct optit *it, struct cmd *c, const struct optspec *sp, size_t start)
{
	memset(it, 0, sizeof *it);
	it->c = c;
	it->sp = sp;
	it->i = start;
}

/* The tail of w from byte off, as a word of its own. */
static const struct xword *tail(struct lower *L, const struct xword *w, size_t off)
{
	struct xword *t = arena_zalloc(L->a, sizeof *t);
	*t = *w;
	t->s = w->s + off;
	t->f = w->f + off;
	t->n = w->n - off;
	t->unknown = t->under = t->glob = t->may_split = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (XM_IS_UNK(t->s[i])) {
			t->unknown = 1;
			if (!(t->f[i] & XF_QUOTED))
				t->may_split = 1;
		} else if (t->s[i] == XM_UNDER) {
			t->under = 1;
		} else if ((t->s[i] == '*' || t->s[i] == '?' || t->s[i] == '[') && !(t->f[i] & XF_QUOTED)) {
			t->glob = 1;
		}
	}
	return t;
}

static int takes_long(const struct optspec *sp, const char *name, size_t n)
{
	for (const char *const *l = sp->long_arg; l && *l; l++)
		if (strlen(*l) == n && strncmp(*l, name, n) == 0)
			return 1;
	return 0;
}

/* getopt_long accepts any unambiguous abbreviation of a long option (sort --out=f is
 * --output=f): an abbreviation of exactly one of the options that take a value is that
 * option. NULL when there is none (or several). */
static const char *abbrev_long(const struct optspec *sp, const char *name, size_t n)
{
	const char *hit = NULL;
	if (n < 3)
		return NULL;
	for (const char *const *l = sp->long_arg; l && *l; l++) {
		if (strlen(*l) > n && strncmp(*l, name, n) == 0) {
			if (hit)
				return NULL;
			hit = *l;
		}
	}
	return hit;
}

int opt_next(struct optit *it, struct opt *o)
{
	struct cmd *c = it->c;
	const struct optspec *sp = it->sp;
	memset(o, 0, sizeof *o);
	if (it->ci) {
		const struct xword *w = &c->argv[it->i];
		char ch = w->s[it->ci];
		o->k = OPT_SHORT;
		o->ch = (unsigned char)ch;
		o->idx = it->i;
		it->ci++;
		if (sp->short_arg && ch && strchr(sp->short_arg, ch)) {
			if (w->s[it->ci]) {
				o->val = tail(c->L, w, it->ci);
				it->ci = 0;
				it->i++;
			} else {
				it->ci = 0;
				it->i++;
				if (it->i < c->argc)
					o->val = &c->argv[it->i++];
			}
		} else if (!w->s[it->ci] || XM_IS_UNK(w->s[it->ci])) {
			if (XM_IS_UNK(w->s[it->ci])) {
				/* -$X: more option letters only known at run time */
				o->k = OPT_DYNAMIC;
				o->w = w;
			}
			it->ci = 0;
			it->i++;
		}
		o->valtext = o->val ? xw_lit(o->val) : NULL;
		return 1;
	}
	for (;;) {
		if (it->i >= c->argc) {
			o->k = OPT_END;
			return 0;
		}
		const struct xword *w = &c->argv[it->i];
		o->idx = it->i;
		o->w = w;
		if (it->dashdash) {
			o->k = OPT_OPERAND;
			it->i++;
			return 1;
		}
		if (XM_IS_UNK(w->s[0])) {
			o->k = OPT_DYNAMIC;
			it->i++;
			return 1;
		}
		if (w->s[0] != '-' || w->s[1] == '\0') {
			o->k = OPT_OPERAND;
			it->i++;
			if (sp->posix)
				it->dashdash = 1;
			return 1;
		}
		if (strcmp(w->s, "--") == 0) {
			it->dashdash = 1;
			it->i++;
			continue;
		}
		if (w->s[1] == '-') {
			const char *eq = strchr(w->s, '=');
			size_t nl = eq ? (size_t)(eq - w->s) : strlen(w->s);
			o->k = OPT_LONG;
			o->name = arena_strndup(c->L->a, w->s, nl);
			it->i++;
			int takes = takes_long(sp, w->s, nl);
			if (!takes) {
				const char *full = abbrev_long(sp, w->s, nl);
				if (full) {
					o->name = full;
					takes = 1;
				}
			}
			if (eq)
				o->val = tail(c->L, w, nl + 1);
			else if (takes && it->i < c->argc)
				o->val = &c->argv[it->i++];
			o->valtext = o->val ? xw_lit(o->val) : NULL;
			return 1;
		}
		it->ci = 1;
		return opt_next(it, o);
	}
}

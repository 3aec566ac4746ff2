/* lower.c - walks a parsed shell program and lowers it to effects (see lower.h).
 *
 * Responsible for: the shell state a reader can know (variables assigned in the script,
 * the possible working directories after cd, functions, positional parameters), word
 * expansion with unknowns marked (parameters, command substitutions, arithmetic, tildes,
 * brace expansion, field splitting, globs), redirects and here-documents, pipelines (what
 * flows into xargs or a shell), control flow (every branch counts; state is merged), and
 * nested scripts with a depth cap. Must not: decide what a named command does (decode*.c
 * does) or perform any I/O. Runs on the caller's thread; all memory in L->a. */
#include "gate/lower.h"
#include "common/err.h"
#include "common/secret.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gate/envvar.h"

static void walk(struct lower *L, const struct sh_node *n, struct shstate *st, const struct cmd_in *in,
		 struct cmd_out *out);
static const char *word_orig(struct lower *L, const struct sh_word *w);

/*==== budget ====*/

static int spend(struct lower *L, long units)
{
	L->budget -= units;
	if (L->budget >= 0)
		return 1;
	if (!L->budget_reported) {
		L->budget_reported = 1;
		effect_plan_add(L->plan, EK_INDETERMINATE, "analysis budget", "",
				"the command is too large or loops too much to analyse within the gate's budget");
	}
	return 0;
}

/*==== state ====*/

int xm_known(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 1 && (unsigned char)*s <= XM_LAST)
			return 0;
	return 1;
}

static const char UNKNOWN_VAL[] = {XM_UNKNOWN, 0};
static const char SECRET_VAL[] = {XM_SECRET, 0};
static const char NUM_VAL[] = {XM_NUM, 0};
static const char INHERIT_VAL[] = {XM_INHERIT, 0};

/* 1 when v is exactly one run-time value (not a partially known string). */
static int whole_unknown(const char *v)
{
	return XM_IS_UNK(v[0]) && v[1] == '\0';
}

struct var *lower_var_entry(struct shstate *st, const char *name)
{
	for (size_t i = st->nvars; i-- > 0;)
		if (strcmp(st->vars[i].name, name) == 0)
			return &st->vars[i];
	return NULL;
}

const char *lower_var(const struct shstate *st, const char *name)
{
	const struct var *v = lower_var_entry((struct shstate *)st, name);
	return v ? v->val : NULL;
}

void lower_var_set(struct lower *L, struct shstate *st, const char *name, const char *val)
{
	struct var *e = lower_var_entry(st, name);
	if (e) {
		e->val = val;
		return;
	}
	struct var v = {arena_strdup(L->a, name), val, 0};
	ARENA_PUSH(L->a, st->vars, st->nvars, st->capvars, v);
}

#define var_find lower_var
#define var_set lower_var_set

void lower_indet_at(struct lower *L, const char *resource, const char *why)
{
	effect_plan_add(L->plan, EK_INDETERMINATE, resource, L->ev ? L->ev : "", why);
}


void lower_taint_dir(struct lower *L, struct shstate *st, const char *dir, int archive)
{
	(void)L;
	for (int i = 0; i < st->nlinkdirs; i++) {
		if (gpath_under(dir, st->linkdirs[i])) {
			st->linkarchive[i] |= (unsigned char)(archive != 0);
			return;
		}
	}
	if (st->nlinkdirs < (int)(sizeof st->linkdirs / sizeof st->linkdirs[0])) {
		st->linkarchive[st->nlinkdirs] = (unsigned char)(archive != 0);
		st->linkdirs[st->nlinkdirs++] = dir;
	} else {
		st->linkdirs[0] = "/"; /* too many to track: anywhere */
		st->linkarchive[0] = 1;
	}
}

const char *lower_tainted(const struct shstate *st, const char *path, int wild, int archive_only)
{
	for (int i = 0; i < st->nlinkdirs; i++) {
		const char *ld = st->linkdirs[i];
		if (archive_only && !st->linkarchive[i])
			continue;
		if (wild ? gpath_under(path, ld) : (gpath_under(path, ld) && strcmp(path, ld)))
			return ld;
	}
	return NULL;
}

void lower_state_init(struct lower *L, struct shstate *st, const char *cwd)
{
	memset(st, 0, sizeof *st);
	if (cwd) {
		st->cwd[0] = cwd;
		st->ncwd = 1;
		var_set(L, st, "PWD", cwd);
	}
	if (L->g.home)
		var_set(L, st, "HOME", L->g.home);
	st->pos_known = 0;
}

struct shstate *lower_state_copy(struct lower *L, const struct shstate *st)
{
	struct shstate *c = arena_alloc(L->a, sizeof *c);
	*c = *st;
	c->vars = st->nvars ? arena_grow(L->a, st->vars, st->nvars, st->nvars, sizeof *st->vars) : NULL;
	c->capvars = st->nvars;
	c->funcs = st->nfuncs ? arena_grow(L->a, st->funcs, st->nfuncs, st->nfuncs, sizeof *st->funcs) : NULL;
	c->capfuncs = st->nfuncs;
	c->aliases = st->naliases
			 ? arena_grow(L->a, (void *)st->aliases, st->naliases, st->naliases, sizeof *st->aliases)
			 : NULL;
	c->capaliases = st->naliases;
	return c;
}

static void cwd_union(struct shstate *dst, const struct shstate *src)
{
	if (dst->ncwd == 0)
		return;
	if (src->ncwd == 0) {
		dst->ncwd = 0;
		return;
	}
	for (int i = 0; i < src->ncwd; i++) {
		int found = 0;
		for (int j = 0; j < dst->ncwd; j++)
			if (strcmp(dst->cwd[j], src->cwd[i]) == 0)
				found = 1;
		if (found)
			continue;
		if (dst->ncwd == LOWER_MAX_CWDS) {
			dst->ncwd = 0;
			return;
		}
		dst->cwd[dst->ncwd++] = src->cwd[i];
	}
}

/* After branches that may or may not run: variables any branch changed become unknown,
 * functions they defined are kept, the working directory is any of them. */
static void state_merge(struct lower *L, struct shstate *st, struct shstate **br, size_t nb)
{
	for (size_t b = 0; b < nb; b++) {
		const struct shstate *s = br[b];
		for (size_t i = 0; i < s->nvars; i++) {
			const char *old = var_find(st, s->vars[i].name);
			if (!old || strcmp(old, s->vars[i].val) != 0)
				var_set(L, st, s->vars[i].name, UNKNOWN_VAL);
		}
		for (size_t i = st->nfuncs; i < s->nfuncs; i++)
			ARENA_PUSH(L->a, st->funcs, st->nfuncs, st->capfuncs, s->funcs[i]);
		for (size_t i = st->naliases; i < s->naliases; i++)
			ARENA_PUSH(L->a, st->aliases, st->naliases, st->capaliases, s->aliases[i]);
		if (s->pos != st->pos || s->npos != st->npos)
			st->pos_known = 0;
		for (int i = 0; i < s->nlinkdirs; i++)
			lower_taint_dir(L, st, s->linkdirs[i], s->linkarchive[i]);
		if (s->dotglob)
			st->dotglob = 1;
	}
	struct shstate u = *st;
	for (size_t b = 0; b < nb; b++)
		cwd_union(&u, br[b]);
	memcpy(st->cwd, u.cwd, sizeof st->cwd);
	st->ncwd = u.ncwd;
}

/*==== expansion ====*/

struct xb {
	char *s;
	unsigned char *f;
	size_t n, cap;
	unsigned unknown : 1, under : 1, cmdsub : 1, secret : 1, nofilter : 1, had_quoted : 1, dollar_at : 1;
};

static void xb_put(struct lower *L, struct xb *b, const char *s, size_t n, unsigned char fl)
{
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 64;
		while (nc < b->n + n + 1)
			nc *= 2;
		b->s = arena_grow(L->a, b->s, b->n, nc, 1);
		b->f = arena_grow(L->a, b->f, b->n, nc, 1);
		b->cap = nc;
	}
	memcpy(b->s + b->n, s, n);
	memset(b->f + b->n, fl, n);
	b->n += n;
	b->s[b->n] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == XM_UNKNOWN) {
			b->unknown = 1;
		} else if (s[i] == XM_SECRET) {
			b->unknown = 1;
			b->secret = 1;
		} else if (s[i] == XM_UNDER) {
			b->under = 1;
		}
	}
}


enum xmode { XM_ARGS, XM_SINGLE };

static void expand_parts(struct lower *L, struct shstate *st, const struct sh_word *w, struct xb *b, int force_quoted);

/* Expands w to a single marker string (no splitting), for values and defaults. */
static const char *expand_value(struct lower *L, struct shstate *st, const struct sh_word *w, unsigned *flags)
{
	struct xb b = {0};
	expand_parts(L, st, w, &b, 1);
	if (flags)
		*flags = (b.secret ? 1u : 0u) | (b.cmdsub ? 2u : 0u);
	return b.s ? b.s : "";
}

static const char *positional(const struct shstate *st, const char *name)
{
	if (!st->pos_known)
		return NULL;
	if (strcmp(name, "#") == 0)
		return NULL;
	if (strcmp(name, "@") == 0 || strcmp(name, "*") == 0)
		return NULL;
	char *end;
	long k = strtol(name, &end, 10);
	if (*end || k < 0)
		return NULL;
	if (k == 0)
		return st->npos ? st->pos[0] : NULL;
	return (size_t)k < st->npos ? st->pos[k] : "";
}

/* Applies a literal pattern-removal operator to a known value. */
static const char *trim_pattern(struct lower *L, const char *val, const char *op, const char *pat)
{
	size_t n = strlen(val);
	int longest = op[1] == op[0];
	if (op[0] == '#') {
		size_t best = (size_t)-1;
		for (size_t k = 0; k <= n; k++) {
			char *pre = arena_strndup(L->a, val, k);
			if (fnmatch(pat, pre, 0) == 0) {
				best = k;
				if (!longest)
					break;
			}
		}
		return best == (size_t)-1 ? val : val + best;
	}
	size_t best = (size_t)-1;
	for (size_t k = n + 1; k-- > 0;) {
		if (fnmatch(pat, val + k, 0) == 0) {
			best = k;
			if (!longest)
				break;
		}
	}
	return best == (size_t)-1 ? val : arena_strndup(L->a, val, best);
}

static int is_name_char_start(const char *s)
{
	return s[0] == '_' || isalpha((unsigned char)s[0]);
}

/* ${!name}: the value of name is itself a variable name. bash evaluates a subscript in it
 * (x='a[$(cmd)]'; echo ${!x} runs cmd), so a name only known at run time is indeterminate. */
static const char *indirect(struct lower *L, struct shstate *st, const char *target, int *secret)
{
	if (!xm_known(target)) {
		lower_indet_at(L, "${!...}",
			       "indirect expansion of a name only known at run time (bash evaluates a subscript in "
			       "the name, which can run commands)");
		return UNKNOWN_VAL;
	}
	size_t k = 0;
	if (is_name_char_start(target))
		while (isalnum((unsigned char)target[k]) || target[k] == '_')
			k++;
	if (k && target[k] == '[') {
		lower_name_ok(L, st, target, "indirect expansion reads");
		return UNKNOWN_VAL;
	}
	if (!k || target[k])
		return UNKNOWN_VAL; /* positional or invalid: bash refuses or gives a parameter */
	const char *v = var_find(st, target);
	if (!v && secret_name_like(target))
		*secret = 1;
	return v ? v : UNKNOWN_VAL;
}

static const char *param_value(struct lower *L, struct shstate *st, const struct sh_part *pt, int *secret)
{
	const char *name = pt->s;
	const char *v = NULL;
	const char *op = pt->op;
	if (pt->idx) {
		const char *ix = expand_value(L, st, pt->idx, NULL);
		const struct var *e = lower_var_entry(st, name);
		/* an indexed array's subscript is arithmetic (an associative array's is a string) */
		if (strcmp(ix, "@") && strcmp(ix, "*") && !(e && (e->flags & VF_ASSOC)) && is_name_char_start(name))
			lower_arith(L, st, ix, "${%s[%s]}", name, word_orig(L, pt->idx));
		v = UNKNOWN_VAL;
		if (op[0] == '!' && (!strcmp(ix, "@") || !strcmp(ix, "*")))
			return UNKNOWN_VAL; /* ${!a[@]}: the keys */
	} else if (name[0] == '#' && !name[1]) {
		v = st->pos_known && st->npos ? arena_printf(L->a, "%zu", st->npos - 1) : NUM_VAL;
	} else if (isdigit((unsigned char)name[0]) || strchr("@*", name[0])) {
		v = positional(st, name);
		if (!v)
			v = UNKNOWN_VAL;
	} else if (strchr("?$!", name[0]) && name[1] == '\0') {
		v = NUM_VAL;
	} else if (strchr("-_", name[0]) && name[1] == '\0') {
		v = UNKNOWN_VAL;
	} else {
		v = var_find(st, name);
		if (!v) {
			/* from the environment: unknown (a search path keeps its inherited value) */
			v = envvar_pathlist(name) != ENVP_NONE ? INHERIT_VAL : UNKNOWN_VAL;
			if (secret_name_like(name))
				*secret = 1;
		}
	}
	if (!op[0])
		return v;
	if (op[0] == '!') {
		/* ${!prefix@}: names; ${!name} and ${!name OP word}: indirect */
		if (pt->arg)
			expand_value(L, st, pt->arg, NULL);
		if (!strcmp(op, "!@"))
			return UNKNOWN_VAL;
		const char *r = indirect(L, st, v, secret);
		return op[1] ? UNKNOWN_VAL : r;
	}
	if (strcmp(op, "len") == 0) {
		if (pt->arg)
			expand_value(L, st, pt->arg, NULL);
		return NUM_VAL;
	}
	if (strcmp(op, "@") == 0) {
		const char *t = pt->arg ? expand_value(L, st, pt->arg, NULL) : "";
		/* prompt expansion runs the command substitutions in the value */
		if (!strcmp(t, "P") && !(xm_known(v) && !strchr(v, '$') && !strchr(v, '`')))
			lower_indet_at(L, arena_printf(L->a, "${%s@P}", name),
				       "prompt expansion of a value that holds (or may hold) $(...) or `...`: they run");
		return UNKNOWN_VAL;
	}
	if (strcmp(op, ":") == 0) {
		/* ${v:offset:length}: both are arithmetic */
		const char *t = pt->arg ? expand_value(L, st, pt->arg, NULL) : "";
		lower_arith(L, st, t, "${%s:%s}", name, pt->arg ? word_orig(L, pt->arg) : "");
		return UNKNOWN_VAL;
	}
	unsigned fl = 0;
	const char *arg = pt->arg ? expand_value(L, st, pt->arg, &fl) : "";
	if (fl & 1)
		*secret = 1;
	int vknown = xm_known(v);
	int empty = vknown && v[0] == '\0';
	if (!strcmp(op, ":-") || !strcmp(op, "-") || !strcmp(op, ":=") || !strcmp(op, "=")) {
		const char *r;
		if (whole_unknown(v))
			r = xm_known(arg) && !arg[0] ? v : UNKNOWN_VAL; /* either value */
		else
			r = (op[0] == ':' && empty) ? arg : v;
		if (op[strlen(op) - 1] == '=' && !pt->idx && is_name_char_start(name))
			lower_assign(L, st, name, r);
		return r;
	}
	if (!strcmp(op, ":+") || !strcmp(op, "+")) {
		if (whole_unknown(v))
			return UNKNOWN_VAL;
		return (op[0] == ':' && empty) ? "" : arg;
	}
	if (!strcmp(op, ":?") || !strcmp(op, "?"))
		return v;
	if (op[0] == '#' || op[0] == '%') {
		if (!xm_known(arg))
			return UNKNOWN_VAL;
		if (vknown)
			return trim_pattern(L, v, op, arg);
		/* a path beneath D keeps being one when a suffix without '/' or wildcards is cut */
		if (v[0] == XM_UNDER && op[0] == '%' && !strpbrk(arg, "/*?["))
			return v;
		return UNKNOWN_VAL;
	}
	if (op[0] == '/') {
		if (!vknown || !xm_known(arg))
			return UNKNOWN_VAL;
		/* ${v/pat/rep}: the parser keeps "pat/rep" as one word */
		const char *slash = strchr(arg, '/');
		const char *pat = slash ? arena_strndup(L->a, arg, (size_t)(slash - arg)) : arg;
		const char *rep = slash ? slash + 1 : "";
		if (strpbrk(pat, "*?[") || !pat[0])
			return UNKNOWN_VAL;
		struct xb b = {0};
		size_t pl = strlen(pat);
		const char *q = v;
		while (*q) {
			if (strncmp(q, pat, pl) == 0 && (op[1] == '/' || b.n == 0 || 1)) {
				xb_put(L, &b, rep, strlen(rep), 0);
				q += pl;
				if (op[1] != '/') {
					xb_put(L, &b, q, strlen(q), 0);
					break;
				}
			} else {
				xb_put(L, &b, q, 1, 0);
				q++;
			}
		}
		return b.s ? b.s : "";
	}
	if (op[0] == '^' || op[0] == ',') {
		if (!vknown)
			return UNKNOWN_VAL;
		char *r = arena_strdup(L->a, v);
		for (char *q = r; *q; q++) {
			*q = op[0] == '^' ? (char)toupper((unsigned char)*q) : (char)tolower((unsigned char)*q);
			if (!op[1])
				break;
		}
		return r;
	}
	return UNKNOWN_VAL;
}

/* Output of a command substitution whose result the gate can know without running
 * anything: pwd, git rev-parse --show-toplevel, mktemp. NULL otherwise. */
static const char *known_cmdsub_output(struct lower *L, const struct shstate *st, const struct sh_node *sub)
{
	if (!sub || sub->kind != SH_SEQ || sub->nkids != 1)
		return NULL;
	const struct sh_node *n = sub->kids[0];
	if (n->kind != SH_SIMPLE || n->nassigns || n->nredirs)
		return NULL;
	char *w0 = NULL, *w1 = NULL, *w2 = NULL;
	if (n->nwords < 1 || !shparse_word_literal(L->a, &n->words[0], &w0))
		return NULL;
	if (n->nwords >= 2 && !shparse_word_literal(L->a, &n->words[1], &w1))
		return NULL;
	if (n->nwords >= 3 && !shparse_word_literal(L->a, &n->words[2], &w2))
		return NULL;
	if (strcmp(w0, "pwd") == 0 && n->nwords == 1)
		return st->ncwd == 1 ? st->cwd[0] : NULL;
	if (strcmp(w0, "git") == 0 && n->nwords == 3 && strcmp(w1, "rev-parse") == 0 &&
	    strcmp(w2, "--show-toplevel") == 0 && st->ncwd == 1 && gpath_under(st->cwd[0], L->g.root))
		return L->g.root;
	if (strcmp(w0, "mktemp") == 0 && (n->nwords == 1 || (n->nwords == 2 && strcmp(w1, "-d") == 0)))
		return arena_printf(L->a, "%c/tmp%c", XM_UNDER, XM_END);
	return NULL;
}

/* 1 when a command substitution's output is a number: $(nproc), $(id -u), $(date +%s),
 * $(seq ...), $(git rev-list --count ...), $(... | wc -l), $(wc -l < f), $(grep -c p). */
static int numeric_cmdsub(struct lower *L, const struct sh_node *sub)
{
	if (!sub || sub->kind != SH_SEQ || sub->nkids != 1)
		return 0;
	const struct sh_node *n = sub->kids[0];
	if (n->kind == SH_PIPE && n->nkids > 1)
		n = n->kids[n->nkids - 1];
	if (n->kind != SH_SIMPLE || n->nwords < 1)
		return 0;
	char *w[4] = {NULL, NULL, NULL, NULL};
	for (size_t i = 0; i < n->nwords && i < 4; i++)
		if (!shparse_word_literal(L->a, &n->words[i], &w[i]))
			return 0;
	size_t nw = n->nwords;
	if (!strcmp(w[0], "nproc") && nw == 1)
		return 1;
	if (!strcmp(w[0], "id") && nw == 2 && (!strcmp(w[1], "-u") || !strcmp(w[1], "-g")))
		return 1;
	if (!strcmp(w[0], "date") && nw == 2 && !strcmp(w[1], "+%s"))
		return 1;
	if (!strcmp(w[0], "seq") && nw >= 2 && nw <= 4) {
		/* seq -f / -s could print text: literal numbers (and -w) only */
		for (size_t i = 1; i < nw; i++)
			if (strcmp(w[i], "-w") && !arith_is_number(w[i]))
				return 0;
		return 1;
	}
	if (!strcmp(w[0], "git") && nw >= 3 && !strcmp(w[1], "rev-list") && !strcmp(w[2], "--count"))
		return 1;
	/* counting stdin: wc -l / -c / -w / -m, grep -c PATTERN */
	if (!strcmp(w[0], "wc") && nw == 2 && (!strcmp(w[1], "-l") || !strcmp(w[1], "-c") || !strcmp(w[1], "-w") ||
					      !strcmp(w[1], "-m")))
		return 1;
	if (!strcmp(w[0], "grep") && nw == 3 && !strcmp(w[1], "-c"))
		return 1;
	return 0;
}

static void expand_cmdsub(struct lower *L, struct shstate *st, const struct sh_part *pt, struct xb *b, unsigned char fl)
{
	size_t before = effect_plan_count(L->plan);
	struct shstate *sub = lower_state_copy(L, st);
	struct cmd_in in = {IN_INHERIT, NULL, 0, NULL};
	struct cmd_out out = {0};
	walk(L, pt->sub, sub, &in, &out);
	int secret = 0;
	for (size_t i = before; i < effect_plan_count(L->plan); i++)
		if (effect_plan_effect(L->plan, i)->kind == EK_SECRET_READ)
			secret = 1;
	const char *known = known_cmdsub_output(L, st, pt->sub);
	if (known) {
		xb_put(L, b, known, strlen(known), fl);
		return;
	}
	if (!secret && numeric_cmdsub(L, pt->sub)) {
		b->cmdsub = 1;
		xb_put(L, b, NUM_VAL, 1, fl);
		return;
	}
	if (out.kind == OUT_UNDER && out.under && !secret) {
		/* $(find D ...), $(git ls-files): paths beneath D */
		char m = XM_UNDER, e = XM_END;
		xb_put(L, b, &m, 1, fl);
		xb_put(L, b, out.under, strlen(out.under), fl);
		xb_put(L, b, &e, 1, fl);
		b->nofilter = (unsigned)(out.nofilter != 0);
		b->cmdsub = 1;
		return;
	}
	b->cmdsub = 1;
	/* output computed from a secret stays marked as one wherever it flows */
	xb_put(L, b, secret ? SECRET_VAL : UNKNOWN_VAL, 1, fl);
}

static void expand_parts(struct lower *L, struct shstate *st, const struct sh_word *w, struct xb *b, int force_quoted)
{
	for (size_t i = 0; i < w->n; i++) {
		const struct sh_part *pt = &w->p[i];
		int q = pt->quoted || force_quoted;
		unsigned char fl = q ? XF_QUOTED : 0;
		switch (pt->kind) {
		case SHP_LIT:
			if (q)
				b->had_quoted = 1;
			xb_put(L, b, pt->s, pt->n, fl);
			break;
		case SHP_PARAM: {
			int secret = 0;
			const char *v = param_value(L, st, pt, &secret);
			if (secret)
				b->secret = 1;
			if (q)
				b->had_quoted = 1;
			if (strcmp(pt->s, "@") == 0 && !pt->op[0] && q)
				b->dollar_at = 1;
			xb_put(L, b, v, strlen(v), (unsigned char)(fl | XF_EXP));
			break;
		}
		case SHP_CMDSUB:
			expand_cmdsub(L, st, pt, b, (unsigned char)(fl | XF_EXP));
			break;
		case SHP_ARITH:
			if (pt->arg) {
				/* $((...)) and $[...]: a number, once the evaluation is known to be safe */
				const char *t = expand_value(L, st, pt->arg, NULL);
				lower_arith(L, st, t, "$((%s))", word_orig(L, pt->arg));
				xb_put(L, b, NUM_VAL, 1, (unsigned char)(XF_EXP | XF_QUOTED));
			} else {
				/* the parser's stand-in for an array value NAME=(...) */
				xb_put(L, b, UNKNOWN_VAL, 1, (unsigned char)(XF_EXP | XF_QUOTED));
			}
			break;
		case SHP_PROCSUB: {
			struct shstate *sub = lower_state_copy(L, st);
			struct cmd_in in = {pt->dir == '>' ? IN_PIPE : IN_INHERIT, NULL, 0, NULL};
			struct cmd_out out = {0};
			walk(L, pt->sub, sub, &in, &out);
			xb_put(L, b, "/dev/fd/63", 10, XF_EXP | XF_QUOTED);
			break;
		}
		case SHP_TILDE:
			if (pt->n == 0) {
				/* ~ is $HOME when it is set (the account's home when it is not) */
				const char *h = var_find(st, "HOME");
				if (!h || !h[0])
					h = L->g.home;
				if (h && xm_known(h))
					xb_put(L, b, h, strlen(h), XF_QUOTED);
				else
					xb_put(L, b, UNKNOWN_VAL, 1, XF_QUOTED | XF_EXP);
			}
			else if (pt->n == 4 && strncmp(pt->s, "root", 4) == 0)
				xb_put(L, b, "/root", 5, XF_QUOTED);
			else
				xb_put(L, b, UNKNOWN_VAL, 1, XF_QUOTED | XF_EXP);
			break;
		}
	}
}

static struct xword xb_finish(struct lower *L, struct xb *b, const char *orig)
{
	struct xword x = {0};
	if (!b->s) {
		b->s = arena_strdup(L->a, "");
		b->f = arena_zalloc(L->a, 1);
	}
	x.s = b->s;
	x.f = b->f;
	x.n = b->n;
	x.orig = orig;
	x.secret = b->secret;
	x.cmdsub = b->cmdsub;
	x.nofilter = b->nofilter;
	for (size_t i = 0; i < b->n; i++) {
		char c = b->s[i];
		if (XM_IS_UNK(c)) {
			x.unknown = 1;
			if (c == XM_SECRET)
				x.secret = 1;
			if (!(b->f[i] & XF_QUOTED))
				x.may_split = 1;
		} else if (c == XM_UNDER) {
			x.under = 1;
		} else if ((c == '*' || c == '?') && !(b->f[i] & XF_QUOTED)) {
			x.glob = 1;
		} else if (c == '[' && !(b->f[i] & XF_QUOTED)) {
			/* a bracket expression needs a closing ']' after at least one character;
			 * a lone '[' (the test command) is literal */
			for (size_t k = i + 2; k < b->n; k++)
				if (b->s[k] == ']' && !(b->f[k] & XF_QUOTED)) {
					x.glob = 1;
					break;
				}
		}
	}
	return x;
}

/* Brace expansion over unquoted literal braces: {a,b} and {1..3}. Appends results. */
static void brace_expand(struct lower *L, struct xb *in, struct xb ***outv, size_t *outn, size_t *cap, int budget)
{
	/* find the first top-level {...} with a comma or .. */
	size_t open = (size_t)-1, close = 0;
	for (size_t i = 0; i < in->n && open == (size_t)-1; i++) {
		if (in->s[i] != '{' || in->f[i])
			continue;
		int depth = 0, comma = 0, dots = 0;
		for (size_t j = i; j < in->n; j++) {
			if (in->f[j])
				continue;
			if (in->s[j] == '{')
				depth++;
			else if (in->s[j] == '}') {
				if (--depth == 0) {
					if (comma || dots) {
						open = i;
						close = j;
					}
					break;
				}
			} else if (in->s[j] == ',' && depth == 1)
				comma = 1;
			else if (in->s[j] == '.' && depth == 1 && j + 1 < in->n && in->s[j + 1] == '.')
				dots = 1;
		}
	}
	if (open == (size_t)-1 || budget <= 0 || *outn >= 64) {
		ARENA_PUSH(L->a, *outv, *outn, *cap, in);
		return;
	}
	/* alternatives */
	const char *inner = in->s + open + 1;
	size_t ilen = close - open - 1;
	struct {
		size_t s, e;
	} alts[64];
	size_t na = 0;
	int depth = 0;
	size_t st = 0;
	int has_comma = 0;
	for (size_t k = 0; k < ilen; k++) {
		if (in->f[open + 1 + k])
			continue;
		if (inner[k] == '{')
			depth++;
		else if (inner[k] == '}')
			depth--;
		else if (inner[k] == ',' && depth == 0 && na < 63) {
			alts[na].s = st;
			alts[na].e = k;
			na++;
			st = k + 1;
			has_comma = 1;
		}
	}
	char seqbuf[64][24];
	int seq = 0;
	if (!has_comma) {
		/* {a..b} numeric or single-character sequences */
		char *txt = arena_strndup(L->a, inner, ilen);
		char *dd = strstr(txt, "..");
		if (!dd) {
			ARENA_PUSH(L->a, *outv, *outn, *cap, in);
			return;
		}
		*dd = '\0';
		const char *a = txt, *z = dd + 2;
		char *e1, *e2;
		long la = strtol(a, &e1, 10), lz = strtol(z, &e2, 10);
		if (*a && *z && !*e1 && !*e2) {
			long step = la <= lz ? 1 : -1;
			for (long v = la;; v += step) {
				if (na >= 64)
					break;
				snprintf(seqbuf[na], sizeof seqbuf[na], "%ld", v);
				na++;
				if (v == lz)
					break;
			}
			if (na >= 64 && la + (long)(na - 1) * (la <= lz ? 1 : -1) != lz) {
				ARENA_PUSH(L->a, *outv, *outn, *cap, in); /* too long: leave as is */
				return;
			}
		} else if (strlen(a) == 1 && strlen(z) == 1) {
			int step = a[0] <= z[0] ? 1 : -1;
			for (int v = a[0];; v += step) {
				seqbuf[na][0] = (char)v;
				seqbuf[na][1] = '\0';
				na++;
				if (v == z[0] || na >= 64)
					break;
			}
		} else {
			ARENA_PUSH(L->a, *outv, *outn, *cap, in);
			return;
		}
		seq = 1;
	} else {
		alts[na].s = st;
		alts[na].e = ilen;
		na++;
	}
	for (size_t k = 0; k < na; k++) {
		struct xb *nb = arena_zalloc(L->a, sizeof *nb);
		*nb = (struct xb){0};
		nb->unknown = in->unknown;
		nb->secret = in->secret;
		nb->cmdsub = in->cmdsub;
		nb->had_quoted = in->had_quoted;
		xb_put(L, nb, in->s, open, 0);
		memcpy(nb->f, in->f, open);
		if (seq) {
			xb_put(L, nb, seqbuf[k], strlen(seqbuf[k]), 0);
		} else {
			size_t at = nb->n;
			xb_put(L, nb, inner + alts[k].s, alts[k].e - alts[k].s, 0);
			memcpy(nb->f + at, in->f + open + 1 + alts[k].s, alts[k].e - alts[k].s);
		}
		size_t at = nb->n;
		xb_put(L, nb, in->s + close + 1, in->n - close - 1, 0);
		memcpy(nb->f + at, in->f + close + 1, in->n - close - 1);
		brace_expand(L, nb, outv, outn, cap, budget - 1);
	}
}

static int ifs_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* The field separators in force: NULL for the default (space, tab, newline). An IFS only
 * known at run time splits like the default here; the caller reports it. */
static const char *ifs_of(const struct shstate *st, int *unknown)
{
	const char *v = var_find(st, "IFS");
	*unknown = v && !xm_known(v);
	return v && !*unknown ? v : NULL;
}

static int ifs_split_at(const char *ifs, const struct xb *x, size_t i)
{
	if (!(x->f[i] & XF_EXP) || (x->f[i] & XF_QUOTED))
		return 0;
	char c = x->s[i];
	if (!ifs)
		return ifs_space(c);
	return c && strchr(ifs, c) != NULL;
}

static const char *word_orig(struct lower *L, const struct sh_word *w)
{
	if (!w->src || w->end <= w->off)
		return "";
	return arena_strndup(L->a, w->src + w->off, w->end - w->off);
}

/* Expands one word into 0..n argument words (brace expansion, field splitting). */
static void expand_args(struct lower *L, struct shstate *st, const struct sh_word *w, struct xword **v, size_t *n,
			size_t *cap)
{
	if (!spend(L, 1))
		return;
	const char *orig = word_orig(L, w);
	/* "$@" alone: one word per positional parameter when they are known */
	if (w->n == 1 && w->p[0].kind == SHP_PARAM && w->p[0].quoted && !w->p[0].op[0] && !w->p[0].idx &&
	    strcmp(w->p[0].s, "@") == 0 && st->pos_known) {
		for (size_t k = 1; k < st->npos; k++) {
			struct xb b = {0};
			xb_put(L, &b, st->pos[k], strlen(st->pos[k]), XF_QUOTED | XF_EXP);
			struct xword x = xb_finish(L, &b, orig);
			ARENA_PUSH(L->a, *v, *n, *cap, x);
		}
		return;
	}
	struct xb b = {0};
	expand_parts(L, st, w, &b, 0);
	struct xb **bv = NULL;
	size_t bn = 0, bcap = 0;
	brace_expand(L, &b, &bv, &bn, &bcap, 8);
	int ifs_unknown;
	const char *ifs = ifs_of(st, &ifs_unknown);
	if (ifs_unknown && !st->ifs_reported) {
		for (size_t i = 0; i < b.n; i++) {
			if ((b.f[i] & XF_EXP) && !(b.f[i] & XF_QUOTED) && !XM_IS_UNK(b.s[i])) {
				st->ifs_reported = 1;
				lower_indet_at(L, "IFS",
					       "IFS is only known at run time: an unquoted expansion may split into "
					       "other words than the gate sees");
				break;
			}
		}
	}
	for (size_t k = 0; k < bn; k++) {
		struct xb *x = bv[k];
		/* split on unquoted field separators (IFS) that came from an expansion */
		size_t i = 0;
		int any = 0;
		while (i <= x->n) {
			while (i < x->n && ifs_split_at(ifs, x, i))
				i++;
			size_t s0 = i;
			while (i < x->n && !ifs_split_at(ifs, x, i))
				i++;
			if (i > s0 || (!any && x->had_quoted && i == x->n)) {
				struct xb part = {0};
				part.secret = x->secret;
				part.cmdsub = x->cmdsub;
				xb_put(L, &part, x->s + s0, i - s0, 0);
				if (i > s0)
					memcpy(part.f, x->f + s0, i - s0);
				struct xword xw = xb_finish(L, &part, orig);
				ARENA_PUSH(L->a, *v, *n, *cap, xw);
				any = 1;
			}
			if (i >= x->n)
				break;
		}
	}
}

/*==== xword helpers ====*/

const char *xw_lit(const struct xword *w)
{
	if (w->unknown || w->under || w->glob)
		return NULL;
	return w->s;
}

const char *xw_show(struct lower *L, const struct xword *w)
{
	if (!w->unknown && !w->under)
		return w->s;
	if (w->orig && *w->orig)
		return w->orig;
	struct xb b = {0};
	for (size_t i = 0; i < w->n; i++) {
		char c = w->s[i];
		if (XM_IS_UNK(c))
			xb_put(L, &b, "<dynamic>", 9, 0);
		else if (c == XM_UNDER)
			continue;
		else if (c == XM_END)
			xb_put(L, &b, "/**", 3, 0);
		else
			xb_put(L, &b, &c, 1, 0);
	}
	return b.s ? b.s : "";
}

struct xword xw_make(struct lower *L, const char *lit)
{
	struct xb b = {0};
	xb_put(L, &b, lit, strlen(lit), XF_QUOTED);
	return xb_finish(L, &b, lit);
}

struct xword xw_unknown(struct lower *L, const char *orig)
{
	struct xb b = {0};
	xb_put(L, &b, UNKNOWN_VAL, 1, XF_EXP);
	return xb_finish(L, &b, orig);
}

struct xword xw_under(struct lower *L, const char *dir, int nofilter, const char *orig)
{
	struct xb b = {0};
	char m = XM_UNDER, e = XM_END;
	xb_put(L, &b, &m, 1, XF_QUOTED | XF_EXP);
	xb_put(L, &b, dir, strlen(dir), XF_QUOTED | XF_EXP);
	xb_put(L, &b, &e, 1, XF_QUOTED | XF_EXP);
	b.nofilter = (unsigned)(nofilter != 0);
	return xb_finish(L, &b, orig);
}

struct xword xw_splice(struct lower *L, const struct xword *w, size_t at, size_t len, const struct xword *ins)
{
	struct xb b = {0};
	xb_put(L, &b, w->s, at, 0);
	if (at)
		memcpy(b.f, w->f, at);
	size_t o = b.n;
	xb_put(L, &b, ins->s, ins->n, 0);
	if (ins->n)
		memcpy(b.f + o, ins->f, ins->n);
	o = b.n;
	xb_put(L, &b, w->s + at + len, w->n - at - len, 0);
	if (w->n - at - len)
		memcpy(b.f + o, w->f + at + len, w->n - at - len);
	b.secret = w->secret | ins->secret;
	b.cmdsub = w->cmdsub | ins->cmdsub;
	b.nofilter = ins->nofilter;
	return xb_finish(L, &b, w->orig);
}

const char *lower_getenv(const struct cmd *c, const char *name)
{
	for (size_t i = c->nenv; i-- > 0;)
		if (strcmp(c->env[i].name, name) == 0)
			return c->env[i].val;
	return var_find(c->st, name);
}

/*==== emitters ====*/

void lower_emit(struct cmd *c, enum effect_kind k, const char *resource, const char *why)
{
	effect_plan_add(c->L->plan, k, resource, c->evidence, why);
}

void lower_indet(struct cmd *c, const char *resource, const char *why)
{
	lower_emit(c, EK_INDETERMINATE, resource, why);
}

void lower_local_unknown(struct cmd *c, const char *resource, const char *why)
{
	effect_plan_add_local(c->L->plan, resource, c->evidence, why);
}

/* A path beneath a directory an earlier command filled with unseen files (linkdirs). */
static const char *through_link(const struct cmd *c, const struct gpath_target *t)
{
	return lower_tainted(c->st, t->wild ? t->scope : t->path, t->wild, 0);
}

static void classify_emit(struct cmd *c, const struct gpath_target *t, enum gpath_access acc, const char *res)
{
	enum effect_kind k;
	const char *why;
	const char *ld = acc != GPA_META ? through_link(c, t) : NULL;
	if (ld)
		lower_indet(c, res,
			    arena_printf(c->L->a,
					 "goes beneath %s, which an earlier command filled with files the gate cannot "
					 "see: any of them may be a symbolic link to somewhere else",
					 ld));
	if (gpath_classify(&c->L->g, t, acc, &k, &why))
		lower_emit(c, k, res, why);
}

/* Resolves a literal or glob text against one cwd and classifies it. */
static void path_at(struct cmd *c, const char *cwd, const char *text, const unsigned char *fl, enum gpath_access acc,
		    int recursive)
{
	struct lower *L = c->L;
	size_t n = strlen(text);
	/* position of the first unquoted glob character */
	size_t g = n;
	for (size_t i = 0; i < n; i++)
		if ((text[i] == '*' || text[i] == '?' || text[i] == '[') && !(fl && (fl[i] & XF_QUOTED))) {
			g = i;
			break;
		}
	struct gpath_target t = {0};
	t.recursive = (unsigned)(recursive != 0);
	char *full = gpath_resolve(L->a, cwd, text, n);
	t.path = full;
	if (g < n) {
		size_t ds = g;
		while (ds > 0 && text[ds - 1] != '/')
			ds--;
		/* the directory before the first wildcard component */
		const char *scope = gpath_resolve(L->a, cwd, ds ? text : ".", ds ? ds : 1);
		/* components from the wildcard on: any ".." makes the location unknown; a component
		 * starting with '.' may match dot entries (and ".." itself for ".*") */
		const char *q = text + ds;
		int up = 0;
		while (*q) {
			const char *e = strchr(q, '/');
			size_t cl = e ? (size_t)(e - q) : strlen(q);
			char *comp = arena_strndup(L->a, q, cl);
			if (strcmp(comp, "..") == 0) {
				lower_indet(c, text, "a glob followed by '..' names a location the gate cannot bound");
				return;
			}
			if (comp[0] == '.' || c->st->dotglob) {
				t.dotwild = 1;
				if (fnmatch(comp, "..", FNM_PERIOD) == 0)
					up = 1;
			}
			q += cl;
			while (*q == '/')
				q++;
		}
		if (up)
			scope = gpath_resolve(L->a, scope, "..", 2);
		/* resolve the path text without letting the wildcard components collapse */
		t.path = arena_printf(L->a, "%s/%s", strcmp(scope, "/") ? scope : "", text + ds);
		t.scope = scope;
		t.wild = 1;
		classify_emit(c, &t, acc, t.path);
		return;
	}
	t.scope = full;
	classify_emit(c, &t, acc, full);
}

/* bash opens a socket for /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT. Returns 1 if handled. */
static int dev_socket(struct cmd *c, const struct xword *w, enum gpath_access acc)
{
	const char *s = w->s;
	if (strncmp(s, "/dev/tcp/", 9) != 0 && strncmp(s, "/dev/udp/", 9) != 0)
		return 0;
	const char *h = s + 9;
	size_t hl = strcspn(h, "/");
	const char *host = arena_strndup(c->L->a, h, hl);
	if (!xm_known(host) || !hl) {
		lower_indet(c, xw_show(c->L, w), "opens a network socket to a host only known at run time");
		return 1;
	}
	int lb = !strcmp(host, "localhost") || !strncmp(host, "127.", 4);
	if (acc == GPA_READ || acc == GPA_META)
		lower_emit(c, EK_NET_READ, host, "reads from a network socket (bash /dev/tcp)");
	else
		lower_emit(c, lb ? EK_NET_LOCAL : EK_NET_SEND, host, "sends data over a network socket (bash /dev/tcp)");
	return 1;
}

void lower_path(struct cmd *c, const struct xword *w, enum gpath_access acc, int recursive)
{
	struct lower *L = c->L;
	if (dev_socket(c, w, acc))
		return;
	if (!w->unknown && !w->under) {
		if (w->s[0] == '\0')
			return;
		if (w->s[0] == '/') {
			path_at(c, "/", w->s, w->f, acc, recursive);
			return;
		}
		if (c->ncwd == 0) {
			if (acc == GPA_META || acc == GPA_READ) {
				if (acc == GPA_READ && gpath_is_secret(&L->g, w->s, acc))
					lower_emit(
					    c, EK_SECRET_READ, w->s,
					    "reads a credential, key or .env file (relative to an unknown directory)");
				else
					lower_emit(
					    c, EK_FS_READ_OUTSIDE, arena_printf(L->a, "<unknown cwd>/%s", w->s),
					    "reads relative to a working directory the gate could not determine");
				return;
			}
			lower_indet(c, arena_printf(L->a, "<unknown cwd>/%s", w->s),
				    "writes relative to a working directory the gate could not determine (cd to a "
				    "computed path)");
			return;
		}
		for (int i = 0; i < c->ncwd; i++)
			path_at(c, c->cwd[i], w->s, w->f, acc, recursive);
		return;
	}
	if (w->under && !w->unknown && w->s[0] == XM_UNDER) {
		const char *end = strchr(w->s, XM_END);
		const char *rest = end ? end + 1 : "";
		if (end && xm_known(rest) && !strstr(rest, "/..") && strncmp(rest, "..", 2) != 0) {
			const char *dir = arena_strndup(L->a, w->s + 1, (size_t)(end - w->s - 1));
			struct gpath_target t = {0};
			t.scope = dir;
			t.path = arena_printf(L->a, "%s/**%s", strcmp(dir, "/") ? dir : "", rest);
			t.wild = 1;
			t.descends = 1;
			t.dotwild = w->nofilter;
			t.recursive = (unsigned)(recursive != 0);
			classify_emit(c, &t, acc, t.path);
			return;
		}
	}
	const char *show = xw_show(L, w);
	switch (acc) {
	case GPA_META:
		lower_emit(c, EK_FS_READ_OUTSIDE, show, "inspects a path only known at run time");
		return;
	case GPA_READ:
		lower_indet(c, show, "reads a path only known at run time (it could be a secret)");
		return;
	case GPA_WRITE:
		lower_indet(c, show, "writes a path only known at run time");
		return;
	case GPA_DESTROY:
		lower_indet(c, show, "deletes a path only known at run time");
		return;
	}
}

void lower_path_lit(struct cmd *c, const char *p, enum gpath_access acc, int recursive)
{
	struct xword w = xw_make(c->L, p);
	lower_path(c, &w, acc, recursive);
}

/*==== nested scripts ====*/

int lower_text(struct lower *L, struct shstate *st, const char *text, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)text[i] >= 1 && (unsigned char)text[i] <= XM_LAST) {
			effect_plan_add(
			    L->plan, EK_INDETERMINATE, what, "",
			    "the shell text contains control bytes (\\x01-\\x06) the gate refuses to analyse");
			return BELAY_EINVAL;
		}
	}
	struct sh_node *prog;
	struct shparse_error pe;
	if (shparse_program(L->a, text, n, &L->lim, &prog, &pe) != 0) {
		char *why =
		    arena_printf(L->a, "%s: %s", pe.too_deep ? "over the gate's limits" : "cannot parse", pe.msg);
		const char *ev = arena_strndup(L->a, text, n > 120 ? 120 : n);
		effect_plan_add(L->plan, EK_INDETERMINATE, what, ev, why);
		return BELAY_EINVAL;
	}
	struct cmd_in in = {IN_INHERIT, NULL, 0, NULL};
	struct cmd_out out = {0};
	walk(L, prog, st, &in, &out);
	return 0;
}

void lower_script(struct cmd *c, const char *text, size_t n, const struct xword *pos, size_t npos, const char *what)
{
	struct lower *L = c->L;
	if (L->depth >= LOWER_MAX_DEPTH) {
		lower_indet(c, what,
			    arena_printf(L->a,
					 "shell scripts nested deeper than %d levels (sh -c, eval, here-documents)",
					 LOWER_MAX_DEPTH));
		return;
	}
	struct shstate *st = lower_state_copy(L, c->st);
	memcpy(st->cwd, c->cwd, sizeof st->cwd[0] * (size_t)c->ncwd);
	st->ncwd = c->ncwd;
	for (size_t i = 0; i < c->nenv; i++)
		var_set(L, st, c->env[i].name, c->env[i].val);
	if (pos) {
		st->pos = arena_alloc(L->a, (npos ? npos : 1) * sizeof *st->pos);
		for (size_t i = 0; i < npos; i++)
			st->pos[i] = pos[i].s;
		st->npos = npos;
		st->pos_known = 1;
	}
	L->depth++;
	lower_text(L, st, text, n, what);
	L->depth--;
}

struct cmd lower_subcmd(const struct cmd *c, size_t k)
{
	struct cmd s = *c;
	s.argv = c->argv + k;
	s.argc = k <= c->argc ? c->argc - k : 0;
	s.wrappers = c->wrappers + 1;
	memset(&s.out, 0, sizeof s.out);
	return s;
}

/*==== commands ====*/

static const struct func *func_find(const struct shstate *st, const char *name)
{
	for (size_t i = st->nfuncs; i-- > 0;)
		if (strcmp(st->funcs[i].name, name) == 0)
			return &st->funcs[i];
	return NULL;
}

static int alias_find(const struct shstate *st, const char *name)
{
	for (size_t i = 0; i < st->naliases; i++)
		if (strcmp(st->aliases[i], name) == 0)
			return 1;
	return 0;
}

void lower_dispatch(struct cmd *c)
{
	struct lower *L = c->L;
	if (c->argc == 0)
		return;
	if (c->wrappers > LOWER_MAX_WRAPPERS) {
		lower_indet(c, xw_show(L, &c->argv[0]), "more than 32 nested command wrappers");
		return;
	}
	const char *name = xw_lit(&c->argv[0]);
	if (!name) {
		lower_indet(c, xw_show(L, &c->argv[0]), "the program to run is only known at run time");
		return;
	}
	const char *slash = strrchr(name, '/');
	if (slash) {
		static const char *const sysdirs[] = {
		    "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin", NULL};
		size_t dl = (size_t)(slash - name);
		int sys = 0;
		for (int i = 0; sysdirs[i]; i++)
			if (strlen(sysdirs[i]) == dl && strncmp(name, sysdirs[i], dl) == 0)
				sys = 1;
		if (!sys) {
			/* a program inside the root (./build.sh, tools/gen): a repository-local one */
			int local = c->ncwd > 0;
			for (int i = 0; local && i < c->ncwd; i++) {
				const char *abs = gpath_resolve(L->a, c->cwd[i], name, strlen(name));
				local = abs && gpath_under(abs, L->g.root);
			}
			if (local)
				lower_local_unknown(c, name, "runs a program by path; the gate does not know what it does");
			else
				lower_indet(c, name, "runs a program by path; the gate does not know what it does");
			return;
		}
		name = slash + 1;
	} else if (!c->nofunc) {
		const struct func *f = func_find(c->st, name);
		if (f) {
			if (L->depth >= LOWER_MAX_DEPTH) {
				lower_indet(c, name, "shell functions nested deeper than the gate follows");
				return;
			}
			const char **savepos = c->st->pos;
			size_t savenpos = c->st->npos;
			int saveknown = c->st->pos_known;
			const char **np = arena_alloc(L->a, c->argc * sizeof *np);
			for (size_t i = 0; i < c->argc; i++)
				np[i] = c->argv[i].s;
			c->st->pos = np;
			c->st->npos = c->argc;
			c->st->pos_known = 1;
			L->depth++;
			L->in_func++;
			struct cmd_out out = {0};
			walk(L, f->body, c->st, &c->in, &out);
			L->in_func--;
			L->depth--;
			c->st->pos = savepos;
			c->st->npos = savenpos;
			c->st->pos_known = saveknown;
			return;
		}
		if (alias_find(c->st, name)) {
			lower_indet(c, name, "the command is an alias defined in the script");
			return;
		}
	}
	decode_command(c, name);
}

static const char *node_text(struct lower *L, const struct sh_node *n)
{
	if (!n->src || n->end <= n->off)
		return "";
	size_t len = n->end - n->off;
	while (len && isspace((unsigned char)n->src[n->off + len - 1]))
		len--;
	return arena_strndup(L->a, n->src + n->off, len > 400 ? 400 : len);
}

/* Applies the redirects of a command: file effects, here-document bodies (their
 * substitutions run), and what becomes stdin. */
static void do_redirects(struct lower *L, struct cmd *c, const struct sh_redir *r, size_t nr, struct cmd_in *in)
{
	for (size_t i = 0; i < nr; i++) {
		const struct sh_redir *rd = &r[i];
		if (!spend(L, 1))
			return;
		int to_stdin = rd->fd < 0 || rd->fd == 0;
		if (rd->op == SHR_HEREDOC) {
			unsigned fl = 0;
			const char *body = rd->hd && rd->hd->body ? expand_value(L, c->st, rd->hd->body, &fl) : "";
			if (to_stdin) {
				in->kind = IN_HEREDOC;
				in->text = xm_known(body) ? body : NULL;
				in->under = NULL;
			}
			continue;
		}
		if (rd->op == SHR_HERESTRING) {
			const char *v = expand_value(L, c->st, &rd->target, NULL);
			if (to_stdin) {
				in->kind = IN_STRING;
				in->text = xm_known(v) ? arena_printf(L->a, "%s\n", v) : NULL;
				in->under = NULL;
			}
			continue;
		}
		struct xb b = {0};
		expand_parts(L, c->st, &rd->target, &b, 0);
		struct xword t = xb_finish(L, &b, word_orig(L, &rd->target));
		switch (rd->op) {
		case SHR_DUPIN:
		case SHR_DUPOUT:
			if (!xw_lit(&t))
				lower_indet(c, xw_show(L, &t),
					    "redirects to a descriptor or file only known at run time");
			break;
		case SHR_IN:
			lower_path(c, &t, GPA_READ, 0);
			if (to_stdin) {
				in->kind = IN_FILE;
				in->text = NULL;
				in->under = NULL;
			}
			break;
		case SHR_RW:
			lower_path(c, &t, GPA_READ, 0);
			lower_path(c, &t, GPA_WRITE, 0);
			break;
		default: /* > >| >> &> &>> */
			lower_path(c, &t, GPA_WRITE, 0);
			break;
		}
	}
}

/* NAME from NAME=, NAME+=, NAME[i]=; *after points past '='. *element: an array element. */
static const char *assign_name(struct lower *L, const struct sh_word *w, const char **after, int *append, int *element)
{
	const struct sh_part *p0 = &w->p[0];
	const char *eq = memchr(p0->s, '=', p0->n);
	size_t nl = (size_t)(eq - p0->s);
	*append = nl > 0 && p0->s[nl - 1] == '+';
	if (*append)
		nl--;
	char *name = arena_strndup(L->a, p0->s, nl);
	char *br = strchr(name, '[');
	*element = br != NULL;
	if (br)
		*br = '\0';
	*after = eq + 1;
	return name;
}

/* The value of NAME=value as a marker string. */
static const char *assign_value(struct lower *L, struct shstate *st, const struct sh_word *w)
{
	const char *after;
	int append, element;
	assign_name(L, w, &after, &append, &element);
	struct sh_word rest = *w;
	struct sh_part first = w->p[0];
	first.n = (size_t)(w->p[0].s + w->p[0].n - after);
	first.s = after;
	struct sh_part *parts = arena_alloc(L->a, (w->n ? w->n : 1) * sizeof *parts);
	memcpy(parts, w->p, w->n * sizeof *parts);
	parts[0] = first;
	rest.p = parts;
	/* a tilde right after '=' was parsed as its own part already */
	return expand_value(L, st, &rest, NULL);
}

static void walk_simple(struct lower *L, const struct sh_node *n, struct shstate *st, const struct cmd_in *inherit,
			struct cmd_out *out)
{
	struct cmd c = {0};
	c.L = L;
	c.st = st;
	c.evidence = node_text(L, n);
	c.in = *inherit;
	c.cwd = st->cwd;
	c.ncwd = st->ncwd;
	const char *saved_ev = L->ev;
	L->ev = c.evidence;
	/* words first (as the shell does), then redirects, then assignments */
	struct xword *argv = NULL;
	size_t argc = 0, cap = 0;
	for (size_t i = 0; i < n->nwords; i++)
		expand_args(L, st, &n->words[i], &argv, &argc, &cap);
	c.argv = argv;
	c.argc = argc;
	do_redirects(L, &c, n->redirs, n->nredirs, &c.in);
	size_t capenv = 0;
	for (size_t i = 0; i < n->nassigns; i++) {
		const char *after;
		int append, element;
		const struct sh_word *aw = &n->assigns[i];
		const char *name = assign_name(L, aw, &after, &append, &element);
		const char *val = assign_value(L, st, aw);
		const struct var *attr = lower_var_entry(st, name);
		int assoc = attr && (attr->flags & VF_ASSOC);
		if (append) {
			const char *old = lower_getenv(&c, name);
			if (!old && envvar_pathlist(name) != ENVP_NONE)
				old = INHERIT_VAL;
			val = old ? arena_printf(L->a, "%s%s", old, val) : UNKNOWN_VAL;
		}
		if (element) {
			/* NAME[sub]=v: an indexed array's subscript is arithmetic */
			const char *lb = memchr(aw->p[0].s, '[', aw->p[0].n);
			const char *rb = lb ? memchr(lb, ']', (size_t)(aw->p[0].s + aw->p[0].n - lb)) : NULL;
			if (lb && rb && !assoc)
				lower_arith(L, st, arena_strndup(L->a, lb + 1, (size_t)(rb - lb - 1)),
					    "%s[%.*s]=", name, (int)(rb - lb - 1), lb + 1);
			val = UNKNOWN_VAL; /* an array element: the variable's scalar value is unknown */
		}
		for (size_t k = 0; k < aw->nelems; k++) {
			/* NAME=( [sub]=v ... ): subscripts of an indexed array are arithmetic */
			const struct sh_word *ew = &aw->elems[k];
			const char *et = expand_value(L, st, ew, NULL);
			if (ew->n && ew->p[0].kind == SHP_LIT && !ew->p[0].quoted && ew->p[0].n && ew->p[0].s[0] == '[') {
				const char *close = strstr(et, "]=");
				if (close && !assoc)
					lower_arith(L, st, arena_strndup(L->a, et + 1, (size_t)(close - et - 1)),
						    "%s=([...]=...)", name);
			}
		}
		if (argc == 0) {
			lower_assign(L, st, name, val);
		} else {
			struct var v = {name, val, 0};
			ARENA_PUSH(L->a, c.env, c.nenv, capenv, v);
			lower_env_check(&c, name, val);
		}
	}
	if (argc == 0) {
		L->ev = saved_ev;
		return;
	}
	/* the cwd array of st may be changed by cd inside dispatch: decoders read c.cwd */
	lower_dispatch(&c);
	*out = c.out;
	L->ev = saved_ev;
}

static struct cmd_in redirect_stdin(struct lower *L, const struct sh_node *n, struct shstate *st,
				    const struct cmd_in *in)
{
	struct cmd_in r = *in;
	if (!n->nredirs)
		return r;
	struct cmd c = {0};
	c.L = L;
	c.st = st;
	c.evidence = node_text(L, n);
	c.cwd = st->cwd;
	c.ncwd = st->ncwd;
	do_redirects(L, &c, n->redirs, n->nredirs, &r);
	return r;
}

static void walk_branches(struct lower *L, const struct sh_node *n, struct shstate *st, const struct cmd_in *in)
{
	/* conditions run in order on one state; each body on its own copy */
	struct shstate *cond = lower_state_copy(L, st);
	struct shstate *br[64];
	size_t nb = 0;
	struct cmd_out out = {0};
	switch (n->kind) {
	case SH_IF:
		for (size_t i = 0; i < n->nkids; i++) {
			int is_body = (i % 2 == 1) || (i == n->nkids - 1 && n->nkids % 2 == 1);
			if (!is_body) {
				walk(L, n->kids[i], cond, in, &out);
			} else if (nb < 64) {
				br[nb] = lower_state_copy(L, cond);
				walk(L, n->kids[i], br[nb], in, &out);
				nb++;
			}
		}
		break;
	case SH_CASE:
		for (size_t i = 0; i < n->nwords; i++)
			expand_value(L, cond, &n->words[i], NULL);
		for (size_t i = 0; i < n->nkids && nb < 64; i++) {
			br[nb] = lower_state_copy(L, cond);
			walk(L, n->kids[i], br[nb], in, &out);
			nb++;
		}
		break;
	default: /* while / until: condition and body, as one possible iteration */
		br[nb] = cond;
		for (size_t i = 0; i < n->nkids; i++)
			walk(L, n->kids[i], cond, in, &out);
		nb++;
		break;
	}
	if (n->kind != SH_WHILE && n->kind != SH_UNTIL)
		br[nb++] = cond;
	state_merge(L, st, br, nb);
}

static void walk_for(struct lower *L, const struct sh_node *n, struct shstate *st, const struct cmd_in *in)
{
	struct xword *v = NULL;
	size_t nv = 0, cap = 0;
	int all_known = 1;
	if (n->has_in) {
		for (size_t i = 0; i < n->nwords; i++)
			expand_args(L, st, &n->words[i], &v, &nv, &cap);
	} else if (st->pos_known) {
		for (size_t k = 1; k < st->npos; k++) {
			struct xword x = xw_make(L, st->pos[k]);
			ARENA_PUSH(L->a, v, nv, cap, x);
		}
	} else {
		all_known = 0;
	}
	for (size_t i = 0; i < nv; i++)
		if (!xw_lit(&v[i]))
			all_known = 0;
	struct shstate *br[9];
	size_t nb = 0;
	struct cmd_out out = {0};
	int numbers = nv > 0;
	for (size_t i = 0; i < nv; i++)
		if (v[i].glob || v[i].under || !arith_is_number(v[i].s))
			numbers = 0;
	if (all_known && nv <= 8) {
		for (size_t i = 0; i < nv; i++) {
			if (!spend(L, 10))
				break;
			br[nb] = lower_state_copy(L, st);
			lower_assign(L, br[nb], n->name, v[i].s);
			walk(L, n->kids[0], br[nb], in, &out);
			nb++;
		}
	} else {
		/* one pass with the loop variable standing for "one of the matches": a glob's
		 * pattern, resolved (the same entries the glob reaches: no dot entries unless the
		 * pattern asks for them); anything else is unknown */
		const char *val = numbers ? NUM_VAL : UNKNOWN_VAL;
		if (nv == 1 && v[0].glob && !v[0].unknown && !v[0].under && st->ncwd == 1) {
			const char *t = v[0].s;
			const char *g = strpbrk(t, "*?[");
			size_t ds = (size_t)(g - t);
			while (ds > 0 && t[ds - 1] != '/')
				ds--;
			const char *rest = t + ds;
			if (!strstr(rest, "..") && rest[0] != '.' && !st->dotglob) {
				const char *dir = gpath_resolve(L->a, st->cwd[0], ds ? t : ".", ds ? ds : 1);
				val = arena_printf(L->a, "%s/%s", strcmp(dir, "/") ? dir : "", rest);
			}
		}
		br[nb] = lower_state_copy(L, st);
		lower_assign(L, br[nb], n->name, val);
		walk(L, n->kids[0], br[nb], in, &out);
		nb++;
	}
	br[nb++] = lower_state_copy(L, st);
	state_merge(L, st, br, nb);
}

/* [[ ]]: the operands of -eq -ne -lt -le -gt -ge are evaluated as arithmetic, and -v
 * evaluates a subscript in the name it tests. */
static void cond_operands(struct lower *L, const struct sh_node *n, struct shstate *st, const char **tx)
{
	static const char *const arith_ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge", NULL};
	for (size_t i = 0; i < n->nwords; i++) {
		const struct sh_word *w = &n->words[i];
		if (w->n != 1 || w->p[0].kind != SHP_LIT || w->p[0].quoted)
			continue;
		const char *op = tx[i];
		int is_arith = 0;
		for (int k = 0; arith_ops[k]; k++)
			if (!strcmp(op, arith_ops[k]))
				is_arith = 1;
		if (is_arith) {
			if (i > 0)
				lower_arith(L, st, tx[i - 1], "[[ %s %s ... ]]", word_orig(L, &n->words[i - 1]), op);
			if (i + 1 < n->nwords)
				lower_arith(L, st, tx[i + 1], "[[ ... %s %s ]]", op, word_orig(L, &n->words[i + 1]));
		} else if (!strcmp(op, "-v") && i + 1 < n->nwords) {
			lower_name_ok(L, st, tx[i + 1], "[[ -v ]] tests");
		}
	}
}

static void walk(struct lower *L, const struct sh_node *n, struct shstate *st, const struct cmd_in *in,
		 struct cmd_out *out)
{
	if (!n || !spend(L, 1))
		return;
	memset(out, 0, sizeof *out);
	switch (n->kind) {
	case SH_SIMPLE:
		walk_simple(L, n, st, in, out);
		if (out->kind == OUT_PASS) {
			if (in->kind == IN_PIPE && in->under) {
				out->kind = OUT_UNDER;
				out->under = in->under;
				out->nofilter = in->under_nofilter;
			} else {
				out->kind = OUT_UNKNOWN;
			}
		}
		return;
	case SH_SEQ:
		for (size_t i = 0; i < n->nkids; i++) {
			struct shstate pre = *st;
			walk(L, n->kids[i], st, in, out);
			/* a cd that fails leaves the directory as it was: later commands may run in
			 * either place */
			if (i + 1 < n->nkids)
				cwd_union(st, &pre);
		}
		return;
	case SH_AND:
		walk(L, n->kids[0], st, in, out);
		walk(L, n->kids[1], st, in, out);
		return;
	case SH_OR: {
		struct shstate pre = *st;
		walk(L, n->kids[0], st, in, out);
		/* the right side runs when the left failed: possibly before its cd took effect */
		cwd_union(st, &pre);
		walk(L, n->kids[1], st, in, out);
		return;
	}
	case SH_PIPE: {
		struct cmd_in cur = *in;
		for (size_t i = 0; i < n->nkids; i++) {
			struct shstate *sub = n->nkids > 1 ? lower_state_copy(L, st) : st;
			struct cmd_out o = {0};
			walk(L, n->kids[i], sub, &cur, &o);
			cur.kind = IN_PIPE;
			cur.text = NULL;
			cur.under = o.kind == OUT_UNDER ? o.under : NULL;
			cur.under_nofilter = o.nofilter;
			*out = o;
		}
		return;
	}
	case SH_BG:
	case SH_COPROC: {
		const char *txt = node_text(L, n->kids[0]);
		effect_plan_add(L->plan, EK_PROC_SPAWN, txt, txt,
				"starts a background job that keeps running after the command returns");
		struct shstate *sub = lower_state_copy(L, st);
		walk(L, n->kids[0], sub, in, out);
		return;
	}
	case SH_NOT:
		walk(L, n->kids[0], st, in, out);
		return;
	case SH_SUBSHELL: {
		struct shstate *sub = lower_state_copy(L, st);
		struct cmd_in r = redirect_stdin(L, n, sub, in);
		walk(L, n->kids[0], sub, &r, out);
		return;
	}
	case SH_GROUP: {
		struct cmd_in r = redirect_stdin(L, n, st, in);
		walk(L, n->kids[0], st, &r, out);
		return;
	}
	case SH_IF:
	case SH_WHILE:
	case SH_UNTIL:
	case SH_CASE: {
		struct cmd_in r = redirect_stdin(L, n, st, in);
		walk_branches(L, n, st, &r);
		return;
	}
	case SH_FOR: {
		struct cmd_in r = redirect_stdin(L, n, st, in);
		walk_for(L, n, st, &r);
		return;
	}
	case SH_FUNC: {
		struct func f = {n->name, n->kids[0]};
		ARENA_PUSH(L->a, st->funcs, st->nfuncs, st->capfuncs, f);
		return;
	}
	case SH_COND:
	case SH_ARITHCMD: {
		const char *saved_ev = L->ev;
		L->ev = node_text(L, n);
		const char **tx = arena_alloc(L->a, (n->nwords + 1) * sizeof *tx);
		for (size_t i = 0; i < n->nwords; i++)
			tx[i] = expand_value(L, st, &n->words[i], NULL);
		if (n->kind == SH_ARITHCMD) {
			for (size_t i = 0; i < n->nwords; i++)
				lower_arith(L, st, tx[i], "((%s))", word_orig(L, &n->words[i]));
		} else {
			cond_operands(L, n, st, tx);
		}
		for (size_t i = 0; i < n->nkids; i++)
			walk(L, n->kids[i], st, in, out);
		redirect_stdin(L, n, st, in);
		L->ev = saved_ev;
		return;
	}
	}
}

/*==== entry ====*/

void lower_init(struct lower *L, struct arena *a, struct effect_plan *plan, const struct gate_ctx *ctx)
{
	memset(L, 0, sizeof *L);
	L->a = a;
	L->plan = plan;
	L->budget = LOWER_BUDGET;
	L->lim.max_input = LOWER_MAX_INPUT;
	L->lim.max_nesting = LOWER_MAX_NESTING;
	gpath_env_init(&L->g, a, ctx);
}

const char *lower_cwd(struct lower *L, const struct gate_ctx *ctx, const char *cwd_arg)
{
	const char *base = L->g.root;
	if (ctx->cwd && *ctx->cwd)
		base = gpath_resolve(L->a, L->g.root, ctx->cwd, strlen(ctx->cwd));
	if (cwd_arg && *cwd_arg) {
		if (cwd_arg[0] == '~' && (cwd_arg[1] == '/' || !cwd_arg[1]) && L->g.home)
			return gpath_resolve(L->a, L->g.home, cwd_arg + 1 + (cwd_arg[1] == '/'),
					     strlen(cwd_arg + 1 + (cwd_arg[1] == '/')));
		return gpath_resolve(L->a, base, cwd_arg, strlen(cwd_arg));
	}
	return base;
}

void lower_run(struct effect_plan *plan, const char *text, size_t n, const struct gate_ctx *ctx, const char *cwd_arg,
	       const char *what)
{
	struct arena a;
	arena_init(&a);
	struct lower L;
	lower_init(&L, &a, plan, ctx);
	if (n > LOWER_MAX_INPUT) {
		effect_plan_add(plan, EK_INDETERMINATE, what, "",
				arena_printf(&a, "input_too_large: %zu bytes of shell text exceed the %d-byte limit", n,
					     LOWER_MAX_INPUT));
		arena_free(&a);
		return;
	}
	struct shstate st;
	lower_state_init(&L, &st, lower_cwd(&L, ctx, cwd_arg));
	lower_text(&L, &st, text, n, what);
	arena_free(&a);
}

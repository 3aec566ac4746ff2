/* decode_vars.c - builtins that set, read or rebind shell variables and command names:
 * export/declare/typeset/local/readonly, read, mapfile/readarray, printf -v, getopts, let,
 * unset, set and shift (positional parameters), wait -p, test/[ -v, hash and enable, and
 * env/printenv/set/export -p dumps (secret reads).
 *
 * Responsible for: every variable these builtins assign going through lower_assign (so a
 * variable that names code is judged, and the gate's idea of a value never outlives the
 * builtin that changed it), variable names given as text being checked (bash evaluates a
 * subscript in them), attributes that change evaluation (declare -i makes assignments
 * arithmetic, declare -n makes a name an alias the gate cannot follow, declare -A makes
 * subscripts strings), and builtins that rebind what a command name runs (hash -p,
 * enable -f/-n) being indeterminate. Must not: perform I/O. Pure; caller's thread. */
#include <stdlib.h>
#include <string.h>

#include "gate/decode.h"

static const char UNKNOWN_VAL[] = {XM_UNKNOWN, 0};
static const char NUM_VAL[] = {XM_NUM, 0};

/* NAME or NAME[sub] -> NAME (arena). */
static const char *base_name(struct lower *L, const char *s)
{
	const char *b = strchr(s, '[');
	return b ? arena_strndup(L->a, s, (size_t)(b - s)) : s;
}

/* The builtin stores into the variable named by text: check the name, then assign. */
static void store(struct cmd *c, const char *text, const char *val, const char *what)
{
	if (!lower_name_ok(c->L, c->st, text, what))
		return;
	lower_assign(c->L, c->st, base_name(c->L, text), strchr(text, '[') ? UNKNOWN_VAL : val);
}

static void dynamic_word(struct cmd *c, const char *name, const struct xword *w)
{
	lower_indet(c, xw_show(c->L, w),
		    arena_printf(c->L->a,
				 "%s: a word only known at run time may be an option or a variable name (bash "
				 "evaluates a subscript in a name, which can run commands)",
				 name));
}

/*==== declarations ====*/

static void decode_declare(struct cmd *c, const char *name)
{
	/* export/declare/typeset/local/readonly [-aAfFgilnprtux] [+...] NAME[=value]... */
	struct lower *L = c->L;
	unsigned set_flags = 0;
	int funcs = 0, nameref = 0, print = 0, options = 1;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (options && !strcmp(s, "--")) {
			options = 0;
			continue;
		}
		if (options && (s[0] == '-' || s[0] == '+') && s[1]) {
			if (!xm_known(s)) {
				dynamic_word(c, name, w);
				return;
			}
			for (const char *q = s + 1; *q; q++) {
				if (*q == 'f' || *q == 'F')
					funcs = 1;
				else if (*q == 'p')
					print = 1;
				else if (s[0] == '-' && *q == 'i')
					set_flags |= VF_INT;
				else if (s[0] == '-' && *q == 'A' && (!c->L->in_func || strchr(s, 'g')))
					set_flags |= VF_ASSOC; /* in a function the array is local: outside it the
								* name is an indexed array again */
				else if (s[0] == '-' && *q == 'n' && strcmp(name, "export"))
					nameref = 1;
			}
			continue;
		}
		options = 0;
		if (funcs)
			continue; /* function names (export -f f: child shells get f, as the gate assumes) */
		int append;
		const char *val;
		const char *vn = lower_split_assign(L, s, &val, &append);
		if (!lower_name_ok(L, c->st, vn, arena_printf(L->a, "%s sets", name)))
			continue;
		const char *base = base_name(L, vn);
		if (nameref) {
			lower_indet(c, base,
				    arena_printf(L->a,
						 "%s -n makes %s a nameref: every later use of it reaches a variable the "
						 "gate cannot follow (and a subscript in the target runs commands)",
						 name, base));
			continue;
		}
		if (print) {
			static const char *const words[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL",
							    "AUTH",  "COOKIE", "SESSION",  NULL};
			for (int k = 0; words[k]; k++)
				if (strcasestr(base, words[k]))
					lower_emit(c, EK_SECRET_READ, arena_printf(L->a, "$%s", base),
						   "prints a variable named like a credential");
			continue;
		}
		struct var *e = lower_var_entry(c->st, base);
		if (!val) {
			/* declare NAME: attributes only (the value stays) */
			if (set_flags) {
				if (!e) {
					lower_var_set(L, c->st, base, "");
					e = lower_var_entry(c->st, base);
				}
				e->flags |= set_flags;
			}
			continue;
		}
		if (val[0] == '(' && (!xm_known(val) || strchr(val, '$') || strchr(val, '`'))) {
			/* declare -a "a=(...)": the text is parsed again as an array assignment, and
			 * the expansions in it run */
			lower_indet(c, vn,
				    arena_printf(L->a, "%s re-parses a (...) value holding expansions as an array "
						       "assignment: they run",
						 name));
			continue;
		}
		if (val[0] == '(')
			val = UNKNOWN_VAL;
		if (strchr(vn, '['))
			val = UNKNOWN_VAL;
		if (append) {
			const char *old = lower_var(c->st, base);
			val = old ? arena_printf(L->a, "%s%s", old, val) : UNKNOWN_VAL;
		}
		if ((set_flags & VF_INT) && !arith_is_number(val)) {
			lower_arith(L, c->st, val, "%s -i %s", name, xw_show(L, w));
			val = NUM_VAL;
		}
		lower_assign(L, c->st, base, val);
		if (set_flags) {
			e = lower_var_entry(c->st, base);
			if (e)
				e->flags |= set_flags;
		}
	}
}

/*==== reading input into variables ====*/

/* Steps over one word of a builtin's option area: 1 when argv[*i] is an option cluster for
 * the caller to read, 0 when the options have ended (*i is the first operand), -1 when the
 * word is only known at run time (reported: it may be an option or a name). */
static int option_word(struct cmd *c, const char *name, size_t *i)
{
	if (*i >= c->argc)
		return 0;
	const struct xword *w = &c->argv[*i];
	if (XM_IS_UNK(w->s[0])) {
		dynamic_word(c, name, w);
		return -1;
	}
	if (!strcmp(w->s, "--")) {
		++*i;
		return 0;
	}
	return w->s[0] == '-' && w->s[1];
}

static void decode_read(struct cmd *c, const char *name)
{
	/* read [-ers] [-a ARRAY] [-d DELIM] [-i TEXT] [-n N] [-N N] [-p PROMPT] [-t T] [-u FD] [NAME...] */
	int any = 0, r;
	size_t i = 1;
	for (; (r = option_word(c, name, &i)) > 0; i++) {
		const char *s = c->argv[i].s;
		for (const char *q = s + 1; *q; q++) {
			if (strchr("adinNptu", *q)) {
				const char *v = q[1] ? q + 1 : (i + 1 < c->argc ? c->argv[++i].s : NULL);
				if (*q == 'a' && v) {
					store(c, v, UNKNOWN_VAL, "read -a stores into");
					any = 1;
				}
				break;
			}
		}
	}
	if (r < 0)
		return;
	for (; i < c->argc; i++) {
		store(c, c->argv[i].s, UNKNOWN_VAL, "read stores into");
		any = 1;
	}
	if (!any)
		lower_assign(c->L, c->st, "REPLY", UNKNOWN_VAL);
}

static void decode_mapfile(struct cmd *c, const char *name)
{
	/* mapfile [-d DELIM] [-n COUNT] [-O ORIGIN] [-s COUNT] [-t] [-u FD] [-C CALLBACK [-c N]] [ARRAY] */
	size_t i = 1;
	int r;
	for (; (r = option_word(c, name, &i)) > 0; i++) {
		const char *s = c->argv[i].s;
		for (const char *q = s + 1; *q; q++) {
			if (*q == 'C') {
				lower_indet(c, arena_printf(c->L->a, "%s -C", name),
					    "runs a callback command with every chunk of lines read (the lines "
					    "become part of the command text)");
				return;
			}
			if (strchr("dnOsuc", *q)) {
				if (!q[1])
					i++;
				break;
			}
		}
	}
	if (r < 0)
		return;
	if (i < c->argc)
		store(c, c->argv[i].s, UNKNOWN_VAL, arena_printf(c->L->a, "%s stores into", name));
	else
		lower_assign(c->L, c->st, "MAPFILE", UNKNOWN_VAL);
}

static void decode_getopts(struct cmd *c, const char *name)
{
	/* getopts OPTSTRING NAME [ARG...] */
	if (c->argc >= 3)
		store(c, c->argv[2].s, UNKNOWN_VAL, arena_printf(c->L->a, "%s stores into", name));
	lower_assign(c->L, c->st, "OPTARG", UNKNOWN_VAL);
	lower_assign(c->L, c->st, "OPTIND", NUM_VAL);
}

static void decode_printf(struct cmd *c, const char *name)
{
	/* printf [-v VAR] FORMAT [ARGS...]: output only, unless -v stores it */
	if (c->argc < 2)
		return;
	const struct xword *w = &c->argv[1];
	const char *var = NULL;
	size_t fmt = 2;
	if (!strcmp(w->s, "-v")) {
		if (c->argc < 3)
			return;
		var = c->argv[2].s;
		fmt = 3;
	} else if (!strncmp(w->s, "-v", 2) && w->s[2]) {
		var = w->s + 2;
	} else if (XM_IS_UNK(w->s[0])) {
		/* a format only known at run time may be -v, and then the next word is a name */
		if (c->argc >= 3)
			store(c, c->argv[2].s, UNKNOWN_VAL, arena_printf(c->L->a, "%s -v (possibly) stores into", name));
		return;
	} else {
		return;
	}
	const char *val = UNKNOWN_VAL;
	if (fmt + 1 == c->argc && xm_known(c->argv[fmt].s) && !strpbrk(c->argv[fmt].s, "%\\"))
		val = c->argv[fmt].s;
	store(c, var, val, arena_printf(c->L->a, "%s -v stores into", name));
}

static void decode_let(struct cmd *c, const char *name)
{
	/* let EXPR...: each argument is evaluated as arithmetic */
	for (size_t i = 1; i < c->argc; i++)
		lower_arith(c->L, c->st, c->argv[i].s, "%s %s", name, xw_show(c->L, &c->argv[i]));
}

static void decode_wait(struct cmd *c, const char *name)
{
	/* wait [-fn] [-p VAR] [ID...]: -p stores a process id */
	for (size_t i = 1; i + 1 < c->argc; i++)
		if (!strcmp(c->argv[i].s, "-p"))
			store(c, c->argv[i + 1].s, NUM_VAL, arena_printf(c->L->a, "%s -p stores into", name));
}

static void decode_test(struct cmd *c, const char *name)
{
	/* test / [: output only, but -v evaluates a subscript in the name it tests */
	for (size_t i = 1; i + 1 < c->argc; i++)
		if (!strcmp(c->argv[i].s, "-v"))
			lower_name_ok(c->L, c->st, c->argv[i + 1].s, arena_printf(c->L->a, "%s -v tests", name));
}

static void decode_unset(struct cmd *c, const char *name)
{
	int funcs = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (!xm_known(s)) {
			/* the gate would no longer know which of the values it relies on still hold */
			lower_indet(c, xw_show(c->L, w),
				    arena_printf(c->L->a, "%s of a name only known at run time: any variable the gate "
							  "resolved may be gone",
						 name));
			continue;
		}
		if (!strcmp(s, "-f")) {
			funcs = 1;
			continue;
		}
		if (s[0] == '-')
			continue;
		if (funcs) {
			for (size_t k = 0; k < c->st->nfuncs; k++)
				if (!strcmp(c->st->funcs[k].name, s))
					c->st->funcs[k].name = "";
			continue;
		}
		if (strchr(s, '[')) {
			lower_name_ok(c->L, c->st, s, arena_printf(c->L->a, "%s removes", name));
			lower_var_set(c->L, c->st, base_name(c->L, s), UNKNOWN_VAL);
			continue;
		}
		/* an unset IFS splits like the default one; anything else unset is empty */
		lower_var_set(c->L, c->st, s, strcmp(s, "IFS") ? "" : " \t\n");
		struct var *e = lower_var_entry(c->st, s);
		if (e)
			e->flags = 0;
	}
}

/*==== positional parameters ====*/

static void decode_set(struct cmd *c, const char *name)
{
	(void)name;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--") || (s[0] != '-' && s[0] != '+')) {
			size_t from = !strcmp(s, "--") ? i + 1 : i;
			size_t np = c->argc - from + 1;
			const char **pos = arena_alloc(c->L->a, np * sizeof *pos);
			pos[0] = c->st->pos_known && c->st->npos ? c->st->pos[0] : "sh";
			for (size_t k = from; k < c->argc; k++)
				pos[k - from + 1] = c->argv[k].s;
			c->st->pos = pos;
			c->st->npos = np;
			c->st->pos_known = 1;
			return;
		}
		if (!strcmp(s, "-o") || !strcmp(s, "+o"))
			i++;
	}
}

static void decode_shift(struct cmd *c, const char *name)
{
	(void)name;
	if (!c->st->pos_known)
		return;
	long k = 1;
	if (c->argc > 1) {
		const char *s = xw_lit(&c->argv[1]);
		if (!s) {
			c->st->pos_known = 0;
			return;
		}
		k = strtol(s, NULL, 10);
	}
	if (k < 0 || (size_t)k >= c->st->npos) {
		c->st->npos = c->st->npos ? 1 : 0;
		return;
	}
	const char **pos = arena_alloc(c->L->a, c->st->npos * sizeof *pos);
	pos[0] = c->st->pos[0];
	for (size_t i = (size_t)k + 1; i < c->st->npos; i++)
		pos[i - (size_t)k] = c->st->pos[i];
	c->st->pos = pos;
	c->st->npos -= (size_t)k;
}

/*==== what a command name runs ====*/

static void decode_hash(struct cmd *c, const char *name)
{
	/* hash -p PATH NAME: NAME now runs PATH, whatever the gate thinks NAME is */
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!xm_known(s) || (s[0] == '-' && strchr(s, 'p'))) {
			lower_indet(c, arena_printf(c->L->a, "%s -p", name),
				    "binds a command name to another program: later uses of the name run it");
			return;
		}
	}
}

static void decode_enable(struct cmd *c, const char *name)
{
	/* enable [-a] [-dnps] [-f FILE] [NAME...]: listing is harmless; -f loads a builtin from a
	 * shared object (code), -n/-d remove builtins so the names run other programs */
	int names = 0, change = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!xm_known(s)) {
			change = 1;
			continue;
		}
		if (s[0] == '-') {
			if (strpbrk(s + 1, "fnd"))
				change = 1;
			continue;
		}
		names = 1;
	}
	if (change)
		lower_indet(c, name,
			    "loads a builtin from a shared object or removes builtins, so command names run other "
			    "code");
	(void)names;
}

/*==== printing variables ====*/

/* env / printenv / set / export -p without names print every variable, tokens included. */
static void decode_printenv(struct cmd *c, const char *name)
{
	if (!strcmp(name, "set") || !strcmp(name, "export") || !strcmp(name, "declare") || !strcmp(name, "typeset")) {
		int dump = c->argc == 1;
		if (strcmp(name, "set")) {
			/* export -p, declare -x, typeset: options only, no names (-f/-F list functions) */
			dump = 1;
			for (size_t i = 1; i < c->argc; i++)
				if (c->argv[i].s[0] != '-' || strchr(c->argv[i].s, 'f') || strchr(c->argv[i].s, 'F'))
					dump = 0;
		}
		if (!dump) {
			if (!strcmp(name, "set"))
				decode_set(c, name);
			else
				decode_declare(c, name);
			return;
		}
	}
	int named = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] == '-')
			continue;
		named = 1;
		static const char *const words[] = {"TOKEN",	  "SECRET", "PASSWORD", "PASSWD",  "KEY",
						    "CREDENTIAL", "AUTH",   "COOKIE",	"SESSION", NULL};
		for (int k = 0; words[k]; k++)
			if (strcasestr(s, words[k]) || !xm_known(s)) {
				lower_emit(c, EK_SECRET_READ, arena_printf(c->L->a, "$%s", s),
					   "prints an environment variable named like a credential");
				break;
			}
	}
	if (!named)
		lower_emit(c, EK_SECRET_READ, arena_printf(c->L->a, "%s (all variables)", name),
			   "prints every environment variable; agent environments usually hold API tokens");
}

/*==== table ====*/

static const struct vars_decoder {
	const char *name;
	decode_fn fn;
} vars_table[] = {
    {"export", decode_printenv}, {"declare", decode_printenv}, {"typeset", decode_printenv},
    {"local", decode_declare},	 {"readonly", decode_declare}, {"read", decode_read},
    {"mapfile", decode_mapfile}, {"readarray", decode_mapfile}, {"getopts", decode_getopts},
    {"unset", decode_unset},	 {"set", decode_printenv},     {"shift", decode_shift},
    {"printenv", decode_printenv}, {"printf", decode_printf},  {"let", decode_let},
    {"wait", decode_wait},	 {"test", decode_test},	       {"[", decode_test},
    {"hash", decode_hash},	 {"enable", decode_enable},
};

decode_fn decode_vars_find(const char *name)
{
	for (size_t i = 0; i < sizeof vars_table / sizeof vars_table[0]; i++)
		if (vars_table[i].name[0] == name[0] && !strcmp(vars_table[i].name, name))
			return vars_table[i].fn;
	return NULL;
}

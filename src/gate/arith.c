/* arith.c - can evaluating this arithmetic run anything? (see lower.h, "arith.c").
 *
 * bash evaluates arithmetic ($((...)), $[...], ((...)), for ((...)), let, the operands of
 * [[ -eq ]], indexed-array subscripts, substring offsets, declare -i assignments) by
 * looking up every identifier and, when its value is not a plain number, evaluating that
 * value as an expression too; array subscripts met on the way are expanded again, so
 * command substitutions inside them run. x='a[$(rm -rf ~)]'; echo $((x)) deletes the home
 * directory. Responsible for: deciding from the text (after the shell's first expansion)
 * and the script's known variables whether every value reached is a number. Must not:
 * compute values (a number the gate cannot know is still a number). Pure; caller's thread. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gate/lower.h"

#define ARITH_MAX_DEPTH 8
#define ARITH_MAX_ASSIGNED 32

struct arith {
	struct lower *L;
	const struct shstate *st;
	const char *why;
	const char *assigned[ARITH_MAX_ASSIGNED];
	size_t nassigned;
	int depth;
};

int arith_is_number(const char *v)
{
	const char *p = v;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 1; /* empty: evaluates to 0 */
	if (*p == '-' || *p == '+')
		p++;
	/* 42, 0x1f, 8#17, 64#_@, or a run-time number: a token that starts with a digit is a
	 * constant (or an error), never a name */
	if (*p != XM_NUM && !isdigit((unsigned char)*p))
		return 0;
	while (*p == XM_NUM || isalnum((unsigned char)*p) || *p == '#' || *p == '_' || *p == '@')
		p++;
	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* Variables the shell itself keeps numeric, whatever the environment says. */
static int shell_numeric(const char *name)
{
	static const char *const n[] = {"RANDOM", "SRANDOM", "LINENO", "BASHPID", "PPID",
					"UID",	  "EUID",    "EPOCHSECONDS", "HISTCMD", NULL};
	for (int i = 0; n[i]; i++)
		if (!strcmp(n[i], name))
			return 1;
	return 0;
}

static int fail(struct arith *a, const char *why)
{
	if (!a->why)
		a->why = why;
	return 0;
}

static int scan(struct arith *a, const char *t, size_t n);

static int was_assigned(const struct arith *a, const char *name)
{
	for (size_t i = 0; i < a->nassigned; i++)
		if (!strcmp(a->assigned[i], name))
			return 1;
	return 0;
}

static void note_assigned(struct arith *a, const char *name)
{
	if (!was_assigned(a, name) && a->nassigned < ARITH_MAX_ASSIGNED)
		a->assigned[a->nassigned++] = name;
}

/* The value of variable `name` is evaluated: it must be a number, or an expression that is
 * safe in turn. */
static int read_var(struct arith *a, const char *name)
{
	if (was_assigned(a, name) || shell_numeric(name))
		return 1;
	const char *v = lower_var(a->st, name);
	if (!v)
		return fail(a, arena_printf(a->L->a,
					    "%s is not set by the script, so its value comes from the environment "
					    "and is evaluated as an expression",
					    name));
	if (arith_is_number(v))
		return 1;
	if (a->depth >= ARITH_MAX_DEPTH)
		return fail(a, "variables refer to each other deeper than the gate follows");
	a->depth++;
	int ok = scan(a, v, strlen(v));
	a->depth--;
	if (!ok && a->why)
		a->why = arena_printf(a->L->a, "the value of %s: %s", name, a->why);
	return ok;
}

/* 1 when t[k..] starts an assignment operator (=, +=, <<=, ...) but not ==. *plain: '='. */
static int assign_op(const char *t, size_t n, size_t k, int *plain)
{
	*plain = 0;
	if (k < n && t[k] == '=' && (k + 1 >= n || t[k + 1] != '=')) {
		*plain = 1;
		return 1;
	}
	static const char *const ops[] = {"+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "<<=", ">>=", NULL};
	for (int i = 0; ops[i]; i++) {
		size_t l = strlen(ops[i]);
		if (k + l <= n && !strncmp(t + k, ops[i], l))
			return 1;
	}
	return 0;
}

static int scan(struct arith *a, const char *t, size_t n)
{
	size_t i = 0;
	while (i < n) {
		char c = t[i];
		if (c == XM_NUM) {
			i++;
			continue;
		}
		if (c == XM_UNKNOWN || c == XM_SECRET || c == XM_INHERIT || c == XM_UNDER || c == XM_END)
			return fail(a, "it holds a value only known at run time, which may name an array "
				       "subscript that runs commands");
		if (c == '$' || c == '`')
			return fail(a, "it holds text with $ or ` that bash expands again while evaluating");
		if (isdigit((unsigned char)c)) {
			while (i < n && (isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '@' || t[i] == '#'))
				i++;
			continue;
		}
		if (isalpha((unsigned char)c) || c == '_') {
			size_t s = i;
			while (i < n && (isalnum((unsigned char)t[i]) || t[i] == '_'))
				i++;
			const char *name = arena_strndup(a->L->a, t + s, i - s);
			size_t k = i;
			while (k < n && (t[k] == ' ' || t[k] == '\t'))
				k++;
			if (k < n && t[k] == '[') {
				/* an array element: the subscript is evaluated (after being expanded again) */
				size_t m = k + 1;
				int d = 1;
				while (m < n && d) {
					if (t[m] == '[')
						d++;
					else if (t[m] == ']')
						d--;
					if (d)
						m++;
				}
				if (m >= n)
					return fail(a, "it has an unterminated array subscript");
				const struct var *v = lower_var_entry((struct shstate *)a->st, name);
				if (!(v && (v->flags & VF_ASSOC)) && !scan(a, t + k + 1, m - k - 1))
					return 0;
				size_t after = m + 1;
				while (after < n && (t[after] == ' ' || t[after] == '\t'))
					after++;
				int plain;
				if (!(assign_op(t, n, after, &plain) && plain))
					return fail(a, arena_printf(a->L->a,
								    "it reads an element of %s, whose value the gate "
								    "does not track (it is evaluated as an expression)",
								    name));
				i = m + 1;
				continue;
			}
			int plain;
			int is_assign = assign_op(t, n, k, &plain);
			int incdec = (k + 1 < n && ((t[k] == '+' && t[k + 1] == '+') || (t[k] == '-' && t[k + 1] == '-'))) ||
				     (s >= 2 && ((t[s - 1] == '+' && t[s - 2] == '+') || (t[s - 1] == '-' && t[s - 2] == '-')));
			if (!(is_assign && plain) && !read_var(a, name))
				return 0;
			if (is_assign || incdec)
				note_assigned(a, name);
			continue;
		}
		i++;
	}
	return 1;
}

int arith_safe(struct lower *L, const struct shstate *st, const char *text, const char **why)
{
	struct arith a = {0};
	a.L = L;
	a.st = st;
	int ok = scan(&a, text, strlen(text));
	if (why)
		*why = a.why;
	return ok;
}

int lower_arith(struct lower *L, struct shstate *st, const char *text, const char *resource_fmt, ...)
{
	struct arith a = {0};
	a.L = L;
	a.st = st;
	int ok = scan(&a, text, strlen(text));
	if (!ok) {
		/* the resource is only formatted when there is something to say */
		char buf[256];
		va_list ap;
		va_start(ap, resource_fmt);
		vsnprintf(buf, sizeof buf, resource_fmt, ap);
		va_end(ap);
		lower_indet_at(L, buf,
			       arena_printf(L->a, "arithmetic evaluates a value that is not a plain number (%s)", a.why));
	}
	static const char NUM[] = {XM_NUM, 0};
	for (size_t i = 0; i < a.nassigned; i++)
		lower_assign(L, st, a.assigned[i], NUM);
	return ok;
}

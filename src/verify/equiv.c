/* equiv.c - reply comparison with workspace folding, and nondeterminism classification. */
#include "verify/equiv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static int path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static char *fold_string(const char *s, const struct fold_root *roots)
{
	struct buf out = {0};
	size_t n = strlen(s);
	size_t i = 0;
	while (i < n) {
		const struct fold_root *best = NULL;
		size_t bl = 0;
		for (const struct fold_root *r = roots; r->path; r++) {
			size_t rl = r->len ? r->len : strlen(r->path);
			if (rl > bl && rl && strncmp(s + i, r->path, rl) == 0 && !path_char(s[i + rl]) &&
			    (i == 0 || !path_char(s[i - 1]))) {
				best = r;
				bl = rl;
			}
		}
		if (best) {
			buf_puts(&out, best->as);
			i += bl;
		} else {
			buf_putc(&out, s[i++]);
		}
	}
	return out.p ? buf_take(&out) : xstrdup("");
}

cJSON *equiv_fold(const cJSON *v, const struct fold_root *roots)
{
	cJSON *c = cJSON_Duplicate(v, 1);
	/* Walk the copy iteratively (depth-first) and rewrite string values. */
	cJSON **stack = xmalloc(sizeof *stack * 64);
	size_t cap = 64, top = 0;
	stack[top++] = c;
	while (top) {
		cJSON *x = stack[--top];
		if (cJSON_IsString(x)) {
			char *f = fold_string(x->valuestring, roots);
			if (strcmp(f, x->valuestring) != 0)
				cJSON_SetValuestring(x, f);
			free(f);
		}
		for (cJSON *ch = x->child; ch; ch = ch->next) {
			if (top == cap) {
				cap *= 2;
				stack = xrealloc(stack, cap * sizeof *stack);
			}
			stack[top++] = ch;
		}
	}
	free(stack);
	return c;
}

static cJSON *outcome_part(const cJSON *msg)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(msg, "result");
	if (r)
		return (cJSON *)r;
	return cJSON_GetObjectItemCaseSensitive(msg, "error");
}

enum equiv_outcome equiv_compare(const char *recorded, size_t rlen, const char *replayed, size_t plen,
				 const struct fold_root *roots, cJSON **rec_out, cJSON **obs_out)
{
	*rec_out = *obs_out = NULL;
	cJSON *a = cJSON_ParseWithLength(recorded, rlen);
	cJSON *b = cJSON_ParseWithLength(replayed, plen);
	enum equiv_outcome out;
	if (!b) {
		out = EQ_UNPARSEABLE;
	} else if (!a) {
		out = EQ_DIVERGED;
	} else {
		cJSON *pa = outcome_part(a), *pb = outcome_part(b);
		int kinds_match = (cJSON_GetObjectItemCaseSensitive(a, "result") != NULL) ==
				  (cJSON_GetObjectItemCaseSensitive(b, "result") != NULL);
		cJSON *fa = pa ? equiv_fold(pa, roots) : cJSON_CreateNull();
		cJSON *fb = pb ? equiv_fold(pb, roots) : cJSON_CreateNull();
		out = kinds_match && jx_equal(fa, fb) ? EQ_EQUAL : EQ_DIVERGED;
		*rec_out = fa;
		*obs_out = fb;
	}
	cJSON_Delete(a);
	cJSON_Delete(b);
	return out;
}

/*==== nondeterminism ====*/

enum tok_kind { TK_WORD, TK_NUM, TK_HEX, TK_UUID, TK_TIME };

struct tok {
	enum tok_kind kind;
	char *text;
	double value; /* numbers and timestamps */
};

struct toks {
	struct tok *t;
	size_t n;
};

static int is_uuid(const char *s)
{
	static const int groups[] = {8, 4, 4, 4, 12};
	for (int g = 0; g < 5; g++) {
		for (int i = 0; i < groups[g]; i++, s++)
			if (!isxdigit((unsigned char)*s))
				return 0;
		if (g < 4 && *s++ != '-')
			return 0;
	}
	return !isalnum((unsigned char)*s);
}

/* ISO-8601 date-time at s: returns its length (0 if none) and its epoch value. */
static size_t iso_time(const char *s, double *value)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int n = 0;
	if (sscanf(s, "%4d-%2d-%2d%*[T ]%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &n) != 6 ||
	    n < 19)
		return 0;
	size_t len = (size_t)n;
	double frac = 0;
	if (s[len] == '.') {
		double scale = 0.1;
		len++;
		while (isdigit((unsigned char)s[len])) {
			frac += (s[len] - '0') * scale;
			scale /= 10;
			len++;
		}
	}
	if (s[len] == 'Z')
		len++;
	else if ((s[len] == '+' || s[len] == '-') && isdigit((unsigned char)s[len + 1]))
		len += strspn(s + len + 1, "0123456789:") + 1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*value = (double)timegm(&tm) + frac;
	return len;
}

/* A time of day "HH:MM:SS[.frac]" (as in JavaScript's Date.toString, RFC 2822, logs):
 * returns its length (0 if none) and its value in seconds since midnight. */
static size_t clock_time(const char *s, double *value)
{
	int h, m, sec, n = 0;
	if (sscanf(s, "%2d:%2d:%2d%n", &h, &m, &sec, &n) != 3 || n < 7 || !isdigit((unsigned char)s[n - 1]))
		return 0;
	if (h > 23 || m > 59 || sec > 60)
		return 0;
	size_t len = (size_t)n;
	double frac = 0, scale = 0.1;
	if (s[len] == '.' && isdigit((unsigned char)s[len + 1])) {
		len++;
		while (isdigit((unsigned char)s[len])) {
			frac += (s[len] - '0') * scale;
			scale /= 10;
			len++;
		}
	}
	*value = h * 3600.0 + m * 60.0 + sec + frac;
	return len;
}

static void tokenize(const char *s, struct toks *out)
{
	memset(out, 0, sizeof *out);
	size_t cap = 0;
	while (*s) {
		if (!isalnum((unsigned char)*s)) {
			s++;
			continue;
		}
		struct tok t = {0};
		size_t len;
		double v;
		if ((len = iso_time(s, &v)) > 0 || (len = clock_time(s, &v)) > 0) {
			t.kind = TK_TIME;
			t.value = v;
		} else if (is_uuid(s)) {
			t.kind = TK_UUID;
			len = 36;
		} else {
			len = 0;
			while (isalnum((unsigned char)s[len]))
				len++;
			int digits = 1, hexletter = 0;
			for (size_t i = 0; i < len; i++) {
				if (!isdigit((unsigned char)s[i]))
					digits = 0;
				if (strchr("abcdefABCDEF", s[i]))
					hexletter = 1;
			}
			int allhex = 1;
			for (size_t i = 0; i < len; i++)
				if (!isxdigit((unsigned char)s[i]))
					allhex = 0;
			if (digits) {
				t.kind = TK_NUM;
				/* 1795975426.670641674 is one number */
				if (s[len] == '.' && isdigit((unsigned char)s[len + 1])) {
					len++;
					while (isdigit((unsigned char)s[len]))
						len++;
				}
				t.value = strtod(s, NULL);
			} else if (allhex && hexletter && len >= 8) {
				t.kind = TK_HEX;
			} else {
				t.kind = TK_WORD;
			}
		}
		t.text = xstrndup(s, len);
		if (out->n == cap) {
			cap = cap ? cap * 2 : 32;
			out->t = xrealloc(out->t, cap * sizeof *out->t);
		}
		out->t[out->n++] = t;
		s += len;
	}
}

static int time_unit(const struct toks *t, size_t i)
{
	static const char *const units[] = {"s", "ms", "us", "ns", "sec", "secs", "second", "seconds",
					    "millisecond", "milliseconds", NULL};
	if (i >= t->n || t->t[i].kind != TK_WORD)
		return 0;
	for (const char *const *u = units; *u; u++)
		if (!strcmp(t->t[i].text, *u))
			return 1;
	return 0;
}

static void toks_free(struct toks *t);

/* Equal once every run of digits and dots is taken out: the tokens skip punctuation, this
 * does not. */
static int same_but_numbers(const char *a, const char *b)
{
	for (;;) {
		while (*a && (isdigit((unsigned char)*a) || *a == '.'))
			a++;
		while (*b && (isdigit((unsigned char)*b) || *b == '.'))
			b++;
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		a++, b++;
	}
}

char *equiv_rtrim(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s ? s : "", n);
}

int equiv_durations_only(const char *a_in, const char *b_in)
{
	char *a = equiv_rtrim(a_in), *b = equiv_rtrim(b_in);
	int same = same_but_numbers(a, b);
	struct toks x = {0}, y = {0};
	if (same) {
		tokenize(a, &x);
		tokenize(b, &y);
	}
	free(a);
	free(b);
	if (!same)
		return 0;
	int ok = x.n == y.n, differs = 0;
	for (size_t i = 0; ok && i < x.n; i++) {
		if (!strcmp(x.t[i].text, y.t[i].text))
			continue;
		differs = 1;
		ok = x.t[i].kind == TK_NUM && y.t[i].kind == TK_NUM && time_unit(&x, i + 1) && time_unit(&y, i + 1);
	}
	toks_free(&x);
	toks_free(&y);
	return ok && differs;
}

static void toks_free(struct toks *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->t[i].text);
	free(t->t);
}

const char *equiv_classify(const char *const *texts, size_t n)
{
	int all_equal = 1;
	for (size_t i = 1; i < n; i++)
		if (strcmp(texts[i], texts[0]))
			all_equal = 0;
	if (all_equal)
		return NULL;
	struct toks *tk = xcalloc(n, sizeof *tk);
	for (size_t i = 0; i < n; i++)
		tokenize(texts[i], &tk[i]);
	const char *axis = NULL;
	int unknown = 0;
	for (size_t i = 1; i < n; i++)
		if (tk[i].n != tk[0].n)
			unknown = 1;
	for (size_t col = 0; !unknown && col < tk[0].n; col++) {
		int varies = 0;
		for (size_t i = 1; i < n; i++)
			if (strcmp(tk[i].t[col].text, tk[0].t[col].text))
				varies = 1;
		if (!varies)
			continue;
		const char *this_axis = NULL;
		int all_time = 1, all_hex = 1, all_num = 1, all_long = 1, all_duration = 1, increasing = 1, all_frac = 1;
		for (size_t i = 0; i < n; i++) {
			const struct tok *t = &tk[i].t[col];
			all_time &= t->kind == TK_TIME;
			all_hex &= t->kind == TK_HEX || t->kind == TK_UUID;
			all_num &= t->kind == TK_NUM;
			all_long &= t->kind == TK_NUM && strcspn(t->text, ".") >= 10;
			all_duration &= t->kind == TK_NUM && time_unit(&tk[i], col + 1);
			/* a full-precision fraction (Math.random(), random.random()): 6 digits or more */
			const char *dot = t->kind == TK_NUM ? strchr(t->text, '.') : NULL;
			all_frac &= dot && strlen(dot + 1) >= 6;
			if (i && t->value < tk[i - 1].t[col].value)
				increasing = 0;
		}
		if (all_time && increasing)
			this_axis = "RESULT_NONDETERMINISTIC_CLOCK";
		else if (all_duration) /* "in 0.001s": how long something took, read off a clock */
			this_axis = "RESULT_NONDETERMINISTIC_CLOCK";
		else if (all_hex)
			this_axis = "RESULT_NONDETERMINISTIC_RANDOM";
		else if (all_num && all_long && increasing)
			this_axis = "RESULT_NONDETERMINISTIC_CLOCK";
		else if (all_num && !all_long && all_frac) /* random floats, not what a process numbers */
			this_axis = "RESULT_NONDETERMINISTIC_RANDOM";
		else if (all_num && !all_long)
			this_axis = "RESULT_NONDETERMINISTIC_PROCESS";
		if (!this_axis || (axis && strcmp(axis, this_axis)))
			unknown = 1;
		else
			axis = this_axis;
	}
	for (size_t i = 0; i < n; i++)
		toks_free(&tk[i]);
	free(tk);
	return unknown || !axis ? "RESULT_NONDETERMINISTIC_UNKNOWN" : axis;
}

/*==== masked comparison ====*/

/* The characters between the tokens of s (each token replaced by \x01): two strings whose
 * tokens line up have equal skeletons. */
static char *skeleton(const char *s, const struct toks *tk)
{
	struct buf b = {0};
	const char *p = s;
	for (size_t i = 0; i < tk->n; i++) {
		const char *at = strstr(p, tk->t[i].text);
		if (!at) {
			buf_free(&b);
			return NULL;
		}
		buf_append(&b, p, (size_t)(at - p));
		buf_putc(&b, '\x01');
		p = at + strlen(tk->t[i].text);
	}
	buf_puts(&b, p);
	return buf_take(&b);
}

static const char *token_class(const struct tok *t)
{
	if (t->kind == TK_TIME || (t->kind == TK_NUM && strcspn(t->text, ".") >= 10))
		return "clock";
	if (t->kind == TK_HEX || t->kind == TK_UUID)
		return "random";
	return NULL;
}

static void add_mask(cJSON *masked, const char *path, int token, const char *cls)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "path", *path ? path : "/");
	cJSON_AddNumberToObject(m, "token", token);
	cJSON_AddStringToObject(m, "class", cls);
	cJSON_AddItemToArray(masked, m);
}

/* What a masked comparison left in and out: a result that is nothing but a clock reading
 * or an id (no compared token beside the masked ones) is not "the rest reproduced". */
struct mcount {
	size_t kept, masked;
};

/* Tokens of s, for the count of what was compared. */
static size_t token_count(const char *s)
{
	struct toks t;
	tokenize(s, &t);
	size_t n = t.n;
	toks_free(&t);
	return n;
}

/* vals[0] is the record, vals[1..n] the replays. 1 when equal with masks added. */
static int strings_masked(const char *const *vals, size_t n, const char *path, int counts, cJSON *masked,
			  struct mcount *mc)
{
	int same = 1;
	for (size_t i = 1; i <= n; i++)
		same &= !strcmp(vals[i], vals[0]);
	if (same) {
		if (counts)
			mc->kept += token_count(vals[0]);
		return 1;
	}
	struct toks *tk = xcalloc(n + 1, sizeof *tk);
	char **sk = xcalloc(n + 1, sizeof *sk);
	int ok = 1;
	for (size_t i = 0; i <= n; i++) {
		tokenize(vals[i], &tk[i]);
		sk[i] = skeleton(vals[i], &tk[i]);
		if (!sk[i] || tk[i].n != tk[0].n || (i && strcmp(sk[i], sk[0])))
			ok = 0;
	}
	for (size_t col = 0; ok && col < tk[0].n; col++) {
		int replays_vary = 0;
		for (size_t i = 2; i <= n; i++)
			replays_vary |= strcmp(tk[i].t[col].text, tk[1].t[col].text) != 0;
		if (!replays_vary) {
			ok = !strcmp(tk[0].t[col].text, tk[1].t[col].text);
			mc->kept += counts;
			continue;
		}
		const char *cls = token_class(&tk[0].t[col]);
		for (size_t i = 1; i <= n && cls; i++) {
			const char *ci = token_class(&tk[i].t[col]);
			if (!ci || strcmp(ci, cls))
				cls = NULL;
		}
		if (cls) {
			add_mask(masked, path, (int)col, cls);
			mc->masked++;
		} else {
			ok = 0;
		}
	}
	for (size_t i = 0; i <= n; i++) {
		toks_free(&tk[i]);
		free(sk[i]);
	}
	free(tk);
	free(sk);
	return ok;
}

static int json_masked(const cJSON *const *vals, size_t n, struct buf *path, cJSON *masked, struct mcount *mc)
{
	const cJSON *r = vals[0];
	for (size_t i = 1; i <= n; i++)
		if ((vals[i]->type & 0xff) != (r->type & 0xff))
			return 0;
	if (cJSON_IsString(r)) {
		const char **s = xcalloc(n + 1, sizeof *s);
		for (size_t i = 0; i <= n; i++)
			s[i] = vals[i]->valuestring;
		/* MCP's content tags ("type": "text") say nothing about the call */
		int counts = !(r->string && !strcmp(r->string, "type"));
		int ok = strings_masked(s, n, buf_cstr(path), counts, masked, mc);
		free(s);
		return ok;
	}
	if (cJSON_IsNumber(r)) {
		int vary = 0;
		for (size_t i = 2; i <= n; i++)
			vary |= vals[i]->valuedouble != vals[1]->valuedouble;
		if (!vary) {
			mc->kept++;
			return r->valuedouble == vals[1]->valuedouble;
		}
		for (size_t i = 0; i <= n; i++)
			if (!(vals[i]->valuedouble >= 1e9))
				return 0;
		add_mask(masked, buf_cstr(path), -1, "clock");
		mc->masked++;
		return 1;
	}
	if (cJSON_IsArray(r) || cJSON_IsObject(r)) {
		int len = cJSON_GetArraySize(r);
		for (size_t i = 1; i <= n; i++)
			if (cJSON_GetArraySize(vals[i]) != len)
				return 0;
		const cJSON **kids = xcalloc(n + 1, sizeof *kids);
		int ok = 1, idx = 0;
		for (const cJSON *ch = r->child; ch && ok; ch = ch->next, idx++) {
			kids[0] = ch;
			for (size_t i = 1; i <= n && ok; i++) {
				kids[i] = cJSON_IsArray(r) ? cJSON_GetArrayItem(vals[i], idx)
							   : cJSON_GetObjectItemCaseSensitive(vals[i], ch->string);
				ok = kids[i] != NULL;
			}
			if (!ok)
				break;
			size_t mark = path->len;
			if (cJSON_IsArray(r)) {
				buf_printf(path, "/%d", idx);
			} else {
				buf_putc(path, '/');
				for (const char *p = ch->string; *p; p++) {
					if (*p == '~')
						buf_puts(path, "~0");
					else if (*p == '/')
						buf_puts(path, "~1");
					else
						buf_putc(path, *p);
				}
			}
			ok = json_masked(kids, n, path, masked, mc);
			path->len = mark;
		}
		free(kids);
		return ok;
	}
	for (size_t i = 1; i <= n; i++)
		if (!jx_equal(r, vals[i]))
			return 0;
	mc->kept++;
	return 1;
}

int equiv_masked_equal(const cJSON *recorded, const cJSON *const *replays, size_t n, cJSON **masked)
{
	*masked = NULL;
	if (!recorded || n < 2)
		return 0;
	const cJSON **vals = xcalloc(n + 1, sizeof *vals);
	vals[0] = recorded;
	for (size_t i = 0; i < n; i++) {
		if (!replays[i]) {
			free(vals);
			return 0;
		}
		vals[i + 1] = replays[i];
	}
	cJSON *m = cJSON_CreateArray();
	struct buf path = {0};
	buf_cstr(&path);
	struct mcount mc = {0};
	int ok = json_masked(vals, n, &path, m, &mc) && mc.masked > 0 && mc.kept >= mc.masked;
	buf_free(&path);
	free(vals);
	if (!ok) {
		cJSON_Delete(m);
		return 0;
	}
	*masked = m;
	return 1;
}

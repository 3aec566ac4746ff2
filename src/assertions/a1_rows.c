/* a1_rows.c - A1's table rule (a1_rows.h): the rows a post test reads and the generalised
 * assertions they feed, matched against pre assertions left unpaired.
 *
 * The text is read by a lexer of the union of Go, Rust, Java and Kotlin (comments, strings,
 * raw strings, text blocks, characters vs Rust lifetimes): no grammar, so no nesting limit is
 * met here - every walk is a loop with an explicit stack.
 *
 * Threads: any. Must not: print, keep state between calls. */
#include "assertions/a1_rows.h"

#include <stdlib.h>
#include <string.h>

#include "assertions/a1_js_facts.h"
#include "assertions/a1_lang.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#define ROW_ITEMS 64   /* items of one row read (a longer group is no row) */
#define ITEM_MAX 256   /* bytes of one literal kept */
#define LITS_MAX 32    /* literals of one pre assertion (more: not covered) */
#define ROW_BYTES (ROW_ITEMS * (ITEM_MAX + 64)) /* bytes of one row read */
#define BUDGET (64ull << 20) /* bytes read and items compared for one side's tests: then nothing more is covered */

struct span {
	size_t a, e;
};

struct row {
	char **v; /* literals, normalised */
	size_t n;
	size_t at;	    /* where it starts */
	const char *callee; /* borrowed: the helper whose call's arguments it is; NULL for none */
	size_t ncallee;
	unsigned char spent;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

/* A function of the side: its declaration's first byte and its body. */
struct fspan {
	const char *name;
	unsigned line;
	size_t head;
	struct span body;
	int ok;
};

struct a1_rows_index {
	const char *s;
	size_t n;
	size_t *line_at; /* byte of each line's start */
	size_t nlines;
	struct fspan *fn;
	size_t nfn;
	struct rows top; /* the rows outside every function */
	unsigned long long budget; /* what a1_rows_cover may still read (BUDGET at first) */
	int js;			   /* a test is a call `test(name, () => {..})`: its body is its callback's */
};

struct a1_rows {
	struct a1_rows_index *ix;
	int own_ix;
	const struct a1_rows_fact *g;
	size_t ng;
	struct span body; /* the test's body, [a, e) from its `{` */
	int has_body;
	struct rows rows;	  /* the test's own */
	unsigned char *top_spent; /* per ix->top row */
	unsigned char *param;	  /* per g: parameterised */
};

/*==== lexing ================================================================================*/

static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static int digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* The end of the comment / string / character starting at i, or i when none starts there. */
static size_t skip(const char *s, size_t n, size_t i)
{
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
		while (i < n && s[i] != '\n')
			i++;
		return i;
	}
	if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
		for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
			;
		return i + 2 <= n ? i + 2 : n;
	}
	if (s[i] == '"' && i + 2 < n && s[i + 1] == '"' && s[i + 2] == '"') {
		for (i += 3; i + 2 < n && !(s[i] == '"' && s[i + 1] == '"' && s[i + 2] == '"'); i++)
			;
		return i + 3 <= n ? i + 3 : n;
	}
	if (s[i] == 'r' && (i == 0 || !word_byte((unsigned char)s[i - 1])) && i + 1 < n && (s[i + 1] == '#' || s[i + 1] == '"')) {
		size_t h = 0, j = i + 1;
		while (j < n && s[j] == '#')
			h++, j++;
		if (j >= n || s[j] != '"')
			return i;
		for (j++; j < n; j++) {
			size_t k = 0;
			if (s[j] != '"')
				continue;
			while (k < h && j + 1 + k < n && s[j + 1 + k] == '#')
				k++;
			if (k == h)
				return j + 1 + h;
		}
		return n;
	}
	if (s[i] == '"' || s[i] == '`') {
		char q = s[i];
		for (i++; i < n && s[i] != q; i++)
			if (s[i] == '\\' && q == '"')
				i++;
		return i < n ? i + 1 : n;
	}
	if (s[i] == '\'') { /* a character, or a Rust lifetime / label (left alone) */
		size_t j = i + 1;
		if (j < n && s[j] == '\\') {
			for (j += 2; j < n && j < i + 12 && s[j] != '\''; j++)
				;
			return j < n && s[j] == '\'' ? j + 1 : i + 1;
		}
		if (j < n)
			j++;
		while (j < n && ((unsigned char)s[j] & 0xC0) == 0x80)
			j++;
		return j < n && s[j] == '\'' ? j + 1 : i + 1;
	}
	return i;
}

/* The byte after the bracket matching the one at i (s[i] one of ( [ {), n when unmatched. */
static size_t close_of(const char *s, size_t n, size_t i)
{
	size_t depth = 0;
	while (i < n) {
		size_t j = skip(s, n, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (s[i] == '(' || s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ')' || s[i] == ']' || s[i] == '}') && --depth == 0)
			return i + 1;
		i++;
	}
	return n;
}

/* The body `{..}` of the function whose declaration starts at byte `at`: the first `{` outside
 * brackets, before any `;` or `=` (an expression body: none). 0 when there is none. */
static int body_from(const char *s, size_t n, size_t at, struct span *b)
{
	size_t depth = 0;
	for (size_t i = at; i < n;) {
		size_t j = skip(s, n, i);
		if (j != i) {
			i = j;
			continue;
		}
		char c = s[i];
		if (c == '(' || c == '[')
			depth++;
		else if ((c == ')' || c == ']') && depth)
			depth--;
		else if (!depth && c == '{') {
			b->a = i;
			b->e = close_of(s, n, i);
			return 1;
		} else if (!depth && (c == ';' || c == '}'))
			return 0;
		else if (!depth && c == '=' && !(i + 1 < n && (s[i + 1] == '=' || s[i + 1] == '>')) &&
			 !(i && strchr("=!<>", s[i - 1])))
			return 0;
		i++;
	}
	return 0;
}

/* The body of the callback of the test call starting at byte `at` (`test('a', () => {..})`,
 * `test.each([..])('a', function (a) {..})`): the first `{` after `=>` or `)`, within the call
 * (its chain of calls). 0 when there is none. */
static int js_body(const char *s, size_t n, size_t at, struct span *b)
{
	size_t depth = 0;
	int opened = 0;
	for (size_t i = at; i < n;) {
		size_t j = skip(s, n, i);
		if (j != i) {
			i = j;
			continue;
		}
		char c = s[i];
		if (c == '{') {
			size_t p = i;
			while (p > at && (s[p - 1] == ' ' || s[p - 1] == '\t' || s[p - 1] == '\n' || s[p - 1] == '\r'))
				p--;
			if (opened && p > at &&
			    (s[p - 1] == ')' || (p - 1 > at && s[p - 1] == '>' && s[p - 2] == '='))) {
				b->a = i;
				b->e = close_of(s, n, i);
				return 1;
			}
		}
		if (c == '(' || c == '[' || c == '{')
			depth++, opened = 1;
		else if ((c == ')' || c == ']' || c == '}') && depth && --depth == 0) {
			size_t q = i + 1;
			while (q < n && (s[q] == ' ' || s[q] == '\t' || s[q] == '\n' || s[q] == '\r'))
				q++;
			if (q >= n || (s[q] != '(' && s[q] != '.'))
				return 0;
		} else if (!depth && opened && c == ';')
			return 0;
		i++;
	}
	return 0;
}

/* A function's body: a declaration's, or (ix->js) a test call's callback's. */
static int fn_body(const struct a1_rows_index *ix, size_t at, struct span *b)
{
	return ix->js ? js_body(ix->s, ix->n, at, b) : body_from(ix->s, ix->n, at, b);
}

/* The last part of a name: after its last `.` or `::`. */
static const char *last_part(const char *name, size_t *k)
{
	const char *p = name;
	for (const char *q = name; *q; q++)
		if (*q == '.' || *q == ':')
			p = q + 1;
	*k = strlen(p);
	return p;
}

/* The body of a declaration whose name ends at byte e (`name(..)` then the body, a return
 * type between: `: T`, `-> T`, `throws E`; the name after a word, `>` or `]`: a keyword or a
 * type) from byte i; 0 for none. */
static int declared_at(const char *s, size_t n, size_t i, size_t e, struct span *b)
{
	size_t p = i;
	while (p > 0 && (s[p - 1] == ' ' || s[p - 1] == '\t' || s[p - 1] == '\n' || s[p - 1] == '\r'))
		p--;
	size_t q = e;
	while (q < n && (s[q] == ' ' || s[q] == '\t'))
		q++;
	if (!p || !(word_byte((unsigned char)s[p - 1]) || s[p - 1] == '>' || s[p - 1] == ']') || q >= n || s[q] != '(')
		return 0;
	size_t c = close_of(s, n, q);
	while (c < n && (s[c] == ' ' || s[c] == '\t' || s[c] == '\n' || s[c] == '\r'))
		c++;
	return c < n &&
	       (s[c] == '{' || s[c] == ':' || (s[c] == '-' && c + 1 < n && s[c + 1] == '>') || !strncmp(s + c, "throws", 6)) &&
	       body_from(s, n, c, b);
}

/*==== literals ==============================================================================*/

/* The literal token at i (a number, maybe negative; a string; a character; a literal word) into
 * *out (normalised: a number without `_` and type suffix, a string's content); its end, or i. */
static size_t literal_at(const char *s, size_t n, size_t i, char **out)
{
	size_t a = i;
	int neg = 0;
	if (s[i] == '-' && i + 1 < n && digit((unsigned char)s[i + 1]))
		neg = 1, i++;
	if (digit((unsigned char)s[i]) && (a == 0 || !word_byte((unsigned char)s[a - 1]))) {
		size_t j = i;
		int hex = s[j] == '0' && j + 1 < n && (s[j + 1] == 'x' || s[j + 1] == 'X');
		char buf[ITEM_MAX];
		size_t k = 0;
		if (neg)
			buf[k++] = '-';
		int cut = 0;
		for (; j < n && (word_byte((unsigned char)s[j]) || (s[j] == '.' && j + 1 < n && digit((unsigned char)s[j + 1])));
		     j++) {
			char c = s[j];
			if (c == '_')
				continue;
			if (!hex && !digit((unsigned char)c) && c != '.' && !((c == 'e' || c == 'E') && j + 1 < n &&
									       (digit((unsigned char)s[j + 1]) || s[j + 1] == '-')))
				cut = 1; /* a type suffix: 3i32, 3L, 2.0f */
			if (!cut && k + 1 < sizeof buf)
				buf[k++] = c;
		}
		buf[k] = 0;
		*out = xstrdup(buf);
		return j;
	}
	if (neg)
		return a;
	size_t j = skip(s, n, i), q = 0, z = 0;
	if (j > i + 1 && (s[i] == '"' || s[i] == '`' || s[i] == '\'') && s[j - 1] == s[i]) {
		int triple = s[i] == '"' && j - i >= 6 && s[i + 1] == '"' && s[i + 2] == '"';
		q = i + (triple ? 3 : 1);
		z = j - (triple ? 3 : 1);
	} else if (j > i + 1 && s[i] == 'r') { /* r#"..."# */
		size_t h = 0;
		for (q = i + 1; q < j && s[q] == '#'; q++)
			h++;
		q++;
		z = j - 1 - h;
	}
	if (z > q || (j > i + 1 && z == q && q)) {
		*out = xstrndup(s + q, z - q < ITEM_MAX ? z - q : ITEM_MAX - 1);
		return j;
	}
	static const char *const words[] = {"true", "false", "nil", "null", NULL};
	if (i == 0 || !word_byte((unsigned char)s[i - 1]))
		for (const char *const *w = words; *w; w++) {
			size_t k = strlen(*w);
			if (i + k <= n && !strncmp(s + i, *w, k) && (i + k == n || !word_byte((unsigned char)s[i + k]))) {
				*out = xstrdup(*w);
				return i + k;
			}
		}
	return i;
}

/* The literals of an expression (a fact's subject / expected) appended to v (at most LITS_MAX;
 * -1 when more). A `-` is a sign only after an operator or an opening. */
static int literals(const char *x, char **v, size_t *nv)
{
	size_t n = x ? strlen(x) : 0;
	for (size_t i = 0; i < n;) {
		char *lit = NULL;
		int sign_ok = x[i] != '-' || i == 0 || strchr("(,[{=:!<>+*/%&|^ ", x[i - 1]);
		size_t j = sign_ok ? literal_at(x, n, i, &lit) : i;
		if (j != i) {
			if (*nv >= LITS_MAX) {
				free(lit);
				return -1;
			}
			v[(*nv)++] = lit;
			i = j;
			continue;
		}
		if (word_byte((unsigned char)x[i]))
			while (i < n && word_byte((unsigned char)x[i]))
				i++;
		else
			i++;
	}
	return 0;
}

/* 1 when expression x names a variable: an identifier that is no literal word, no called
 * function and no qualifier of one (`Calc.add(` / `a::b(`). */
static int names_variable(const char *x)
{
	size_t n = x ? strlen(x) : 0;
	for (size_t i = 0; i < n;) {
		char *lit = NULL;
		size_t j = literal_at(x, n, i, &lit);
		free(lit);
		if (j != i) {
			i = j;
			continue;
		}
		if (!word_byte((unsigned char)x[i]) || (i && x[i - 1] == '.')) {
			while (i < n && word_byte((unsigned char)x[i]))
				i++;
			i += i < n && !word_byte((unsigned char)x[i]);
			continue;
		}
		/* a path a.b::c: a call when it ends in `(` or `!(` */
		size_t e = i;
		for (;;) {
			while (e < n && word_byte((unsigned char)x[e]))
				e++;
			if (e < n && x[e] == '.' && e + 1 < n && word_byte((unsigned char)x[e + 1]))
				e++;
			else if (e + 1 < n && x[e] == ':' && x[e + 1] == ':')
				e += 2;
			else
				break;
		}
		int call = e < n && (x[e] == '(' || (x[e] == '!' && e + 1 < n && x[e + 1] == '('));
		if (!call)
			return 1;
		i = e;
	}
	return 0;
}

/* The name P's subject (else expected) calls first: its last part, into *k bytes; NULL for none. */
static const char *callee(const char *x, size_t *k)
{
	size_t n = x ? strlen(x) : 0;
	for (size_t i = 0; i < n; i++) {
		if (x[i] != '(' || !i || !word_byte((unsigned char)x[i - 1]))
			continue;
		size_t a = i;
		while (a > 0 && word_byte((unsigned char)x[a - 1]))
			a--;
		if (digit((unsigned char)x[a]))
			continue;
		*k = i - a;
		return x + a;
	}
	return NULL;
}

/* 1 when `name(` (k bytes, a whole word) is called in s[a, e). */
static int calls(const char *s, size_t a, size_t e, const char *name, size_t k)
{
	for (size_t i = a; i + k < e; i++)
		if (!strncmp(s + i, name, k) && (i == 0 || !word_byte((unsigned char)s[i - 1])) && s[i + k] == '(')
			return 1;
	return 0;
}

/*==== rows ==================================================================================*/

static void row_add(struct rows *r, char **v, size_t n, size_t at, const char *callee_name, size_t ncallee)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	struct row *w = &r->v[r->n++];
	w->v = xmalloc((n + 1) * sizeof *w->v);
	memcpy(w->v, v, n * sizeof *v);
	w->n = n;
	w->at = at;
	w->callee = callee_name;
	w->ncallee = ncallee;
	w->spent = 0;
}

static void free_items(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

/* The items of the group s[a, e) (inside its brackets) when every one is a literal, optionally
 * after `key:` / `key =`; their count, 0 for none / not a row. `csv`: values separated by commas,
 * bare or in single quotes (a @CsvSource string). */
static size_t items(const char *s, size_t a, size_t e, int csv, char **v)
{
	size_t n = 0;
	for (size_t i = a; i < e;) {
		while (i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i >= e)
			break;
		if (n >= ROW_ITEMS) {
			free_items(v, n);
			return 0;
		}
		if (csv) {
			size_t j = i;
			while (j < e && s[j] != ',')
				j++;
			size_t z = j;
			while (z > i && (s[z - 1] == ' ' || s[z - 1] == '\t'))
				z--;
			size_t q = i;
			if (z - q >= 2 && s[q] == '\'' && s[z - 1] == '\'')
				q++, z--;
			v[n++] = xstrndup(s + q, z - q < ITEM_MAX ? z - q : ITEM_MAX - 1);
			i = j + 1;
			continue;
		}
		size_t k = i; /* key: / key = */
		while (k < e && word_byte((unsigned char)s[k]))
			k++;
		size_t k2 = k;
		while (k2 < e && (s[k2] == ' ' || s[k2] == '\t'))
			k2++;
		if (k > i && !digit((unsigned char)s[i]) && k2 < e && (s[k2] == ':' || s[k2] == '=') &&
		    !(k2 + 1 < e && (s[k2 + 1] == ':' || s[k2 + 1] == '='))) {
			i = k2 + 1;
			while (i < e && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
				i++;
		}
		char *lit = NULL;
		size_t j = i < e ? literal_at(s, e, i, &lit) : i;
		if (j == i) {
			free_items(v, n);
			return 0;
		}
		v[n++] = lit;
		while (j < e && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'))
			j++;
		if (j < e && s[j] != ',') {
			free_items(v, n);
			return 0;
		}
		i = j + 1;
	}
	return n;
}

/* 1 when a helper holding a parameterised g is named `w` (k bytes). */
static int holder_named(const struct a1_rows *r, const char *w, size_t k)
{
	for (size_t i = 0; r && i < r->ng; i++) {
		if (!r->param[i] || !r->g[i].holder)
			continue;
		size_t hk;
		const char *h = last_part(r->g[i].holder, &hk);
		if (hk == k && !strncmp(h, w, k))
			return 1;
	}
	return 0;
}

/* The groups of s[a, e) that are rows. `head`: the test's annotations (@CsvSource strings,
 * @ValueSource values). */
static void scan(const char *s, struct rows *out, const struct a1_rows *r, size_t a, size_t e, int head)
{
	int csv = head && memmem(s + a, e - a, "CsvSource", 9) != NULL;
	int single = head && memmem(s + a, e - a, "ValueSource", 11) != NULL;
	char *v[ROW_ITEMS];
	for (size_t i = a; i < e;) {
		size_t j = skip(s, e, i);
		if (j != i) {
			if (csv && s[i] == '"') {
				int triple = j - i >= 6 && s[i + 1] == '"' && s[i + 2] == '"';
				size_t q = i + (triple ? 3 : 1), z = j - (triple ? 3 : 1);
				/* a text block: one row a line */
				for (size_t l = q; l < z;) {
					size_t m = l;
					while (m < z && s[m] != '\n')
						m++;
					size_t n = items(s, l, m, 1, v);
					if (n)
						row_add(out, v, n, l, NULL, 0);
					l = m + 1;
				}
			}
			i = j;
			continue;
		}
		char c = s[i];
		if (c != '(' && c != '[' && c != '{') {
			i++;
			continue;
		}
		/* a row is short: a group not closed within ROW_BYTES is none (so deep nesting costs
		 * ROW_BYTES a bracket, not the text's length) */
		size_t end = close_of(s, e - i > ROW_BYTES ? i + ROW_BYTES : e, i);
		if (end <= i + 1 || s[end - 1] != (c == '(' ? ')' : c == '[' ? ']' : '}')) {
			i++;
			continue;
		}
		size_t p = i; /* what stands before: a call's name, an index's operand */
		while (p > a && (s[p - 1] == ' ' || s[p - 1] == '\t'))
			p--;
		size_t w = p;
		while (w > a && word_byte((unsigned char)s[w - 1]))
			w--;
		const char *name = s + w;
		size_t k = p - w;
		const char *via = NULL;
		int ok = 1;
		if (c == '(' && k) {
			static const char *const makers[] = {"of", "Pair", "Triple", "arguments", "tuple", "listOf", "arrayOf", "param", NULL};
			ok = 0;
			for (const char *const *m = makers; *m && !ok; m++)
				ok = strlen(*m) == k && !strncmp(*m, name, k);
			if (!ok && holder_named(r, name, k)) {
				ok = 1;
				via = name;
			}
		} else if (c == '(' && p > a && (s[p - 1] == ')' || s[p - 1] == ']'))
			ok = 0; /* a call of a call's result */
		else if (c == '[' && p > a && (k || s[p - 1] == ')' || s[p - 1] == ']'))
			ok = 0; /* an index */
		size_t n = ok ? items(s, i + 1, end - 1, 0, v) : 0;
		if (n && single && !via)
			for (size_t x = 0; x < n; x++)
				row_add(out, &v[x], 1, i, NULL, 0);
		else if (n)
			row_add(out, v, n, i, via, via ? k : 0);
		i++;
	}
}

static void index_top(struct a1_rows_index *ix);
static void rows_of(struct a1_rows *r, size_t head);

static size_t line_at(const struct a1_rows_index *ix, unsigned line)
{
	return line && line <= ix->nlines ? ix->line_at[line - 1] : ix->n;
}

static void rows_free(struct rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free_items(r->v[i].v, r->v[i].n);
		free(r->v[i].v);
	}
	free(r->v);
}

/* The functions without a line found by their declarations, in one pass over the text: the
 * first declaration of each name (its last part). */
static void bodies_named(struct a1_rows_index *ix)
{
	struct strmap want;
	strmap_init(&want);
	for (size_t i = 0; i < ix->nfn; i++) {
		size_t k;
		const char *w = last_part(ix->fn[i].name, &k);
		if (ix->fn[i].line || !k || k >= 256)
			continue;
		char key[256];
		memcpy(key, w, k);
		key[k] = 0;
		if (!strmap_get(&want, key, NULL))
			strmap_put(&want, key, (int64_t)i);
	}
	const char *s = ix->s;
	size_t n = ix->n;
	for (size_t i = 0; strmap_count(&want) && i < n;) {
		size_t j = skip(s, n, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (!word_byte((unsigned char)s[i]) || (i && word_byte((unsigned char)s[i - 1]))) {
			i++;
			continue;
		}
		size_t e = i;
		while (e < n && word_byte((unsigned char)s[e]))
			e++;
		int64_t at;
		char key[256];
		if (e - i < sizeof key) {
			memcpy(key, s + i, e - i);
			key[e - i] = 0;
			struct span b;
			if (strmap_get(&want, key, &at) && !ix->fn[at].ok && declared_at(s, n, i, e, &b)) {
				ix->fn[at].ok = 1;
				ix->fn[at].body = b;
				ix->fn[at].head = b.a;
			}
		}
		i = e;
	}
	for (size_t i = 0; i < ix->nfn; i++) { /* a name declared twice: its first declaration */
		size_t k;
		const char *w = last_part(ix->fn[i].name, &k);
		char key[256];
		int64_t at;
		if (ix->fn[i].line || ix->fn[i].ok || !k || k >= sizeof key)
			continue;
		memcpy(key, w, k);
		key[k] = 0;
		if (strmap_get(&want, key, &at) && ix->fn[at].ok) {
			ix->fn[i].ok = 1;
			ix->fn[i].body = ix->fn[at].body;
			ix->fn[i].head = ix->fn[at].head;
		}
	}
	strmap_free(&want);
}

static struct a1_rows_index *index_new(const char *text, size_t len, const struct a1_rows_func *funcs, size_t nfuncs,
				       int js)
{
	struct a1_rows_index *ix = xcalloc(1, sizeof *ix);
	ix->js = js;
	ix->budget = BUDGET;
	ix->s = text ? text : "";
	ix->n = text ? len : 0;
	size_t cap = 64;
	ix->line_at = xmalloc(cap * sizeof *ix->line_at);
	ix->line_at[ix->nlines++] = 0;
	for (size_t i = 0; i < ix->n; i++)
		if (ix->s[i] == '\n') {
			if (ix->nlines == cap)
				ix->line_at = xrealloc(ix->line_at, (cap *= 2) * sizeof *ix->line_at);
			ix->line_at[ix->nlines++] = i + 1;
		}
	ix->fn = xcalloc(nfuncs + 1, sizeof *ix->fn);
	for (size_t i = 0; i < nfuncs; i++) {
		struct fspan *f = &ix->fn[ix->nfn++];
		f->name = funcs[i].name;
		f->line = funcs[i].line;
		if (f->line) {
			f->head = line_at(ix, f->line);
			f->ok = fn_body(ix, f->head, &f->body);
		}
	}
	bodies_named(ix);
	index_top(ix);
	return ix;
}

struct a1_rows_index *a1_rows_index_new(const char *text, size_t len, const struct a1_rows_func *funcs, size_t nfuncs)
{
	return index_new(text, len, funcs, nfuncs, 0);
}

struct a1_rows_index *a1_rows_index_spans(const char *text, size_t len, const struct a1_rows_span *fn, size_t n)
{
	struct a1_rows_index *ix = a1_rows_index_new(text, len, NULL, 0);
	rows_free(&ix->top);
	ix->top = (struct rows){0};
	free(ix->fn);
	ix->fn = xcalloc(n + 1, sizeof *ix->fn);
	for (size_t i = 0; i < n; i++)
		if (fn[i].head <= fn[i].a && fn[i].a <= fn[i].e && fn[i].e <= ix->n)
			ix->fn[ix->nfn++] = (struct fspan){fn[i].name, 0, fn[i].head, {fn[i].a, fn[i].e}, 1};
	index_top(ix);
	return ix;
}

/* The rows outside every function: from one function's end to the next one's head. */
static void index_top(struct a1_rows_index *ix)
{
	for (size_t from = 0;;) {
		size_t next = ix->n, to = ix->n;
		for (size_t i = 0; i < ix->nfn; i++)
			if (ix->fn[i].ok && ix->fn[i].head >= from && ix->fn[i].head < next)
				next = ix->fn[i].head, to = ix->fn[i].body.e;
		if (next > from)
			scan(ix->s, &ix->top, NULL, from, next, 0);
		if (next >= ix->n)
			break;
		from = to > next ? to : next + 1;
	}
}

void a1_rows_index_free(struct a1_rows_index *ix)
{
	if (!ix)
		return;
	free(ix->line_at);
	free(ix->fn);
	rows_free(&ix->top);
	free(ix);
}

struct a1_rows *a1_rows_new_in(struct a1_rows_index *ix, unsigned line, const struct a1_rows_fact *g, size_t ng)
{
	struct a1_rows *r = xcalloc(1, sizeof *r);
	r->ix = ix;
	r->g = g;
	r->ng = ng;
	r->param = xcalloc(ng + 1, 1);
	r->top_spent = xcalloc(ix->top.n + 1, 1);
	for (size_t i = 0; i < ng; i++)
		r->param[i] = g[i].expected ? names_variable(g[i].expected) /* `got != 4`: one case */
				      : names_variable(g[i].subject ? g[i].subject : g[i].form);
	if (!line || line > ix->nlines)
		return r;
	size_t head = line_at(ix, line);
	r->has_body = fn_body(ix, head, &r->body);
	rows_of(r, head);
	return r;
}

struct a1_rows *a1_rows_new_span(struct a1_rows_index *ix, const struct a1_rows_span *t, const struct a1_rows_fact *g,
				 size_t ng)
{
	struct a1_rows *r = a1_rows_new_in(ix, 0, g, ng);
	if (!(t->head <= t->a && t->a <= t->e && t->e <= ix->n))
		return r;
	r->has_body = 1;
	r->body = (struct span){t->a, t->e};
	rows_of(r, t->head);
	return r;
}

/* The rows of r's test: its head [head, body.a) and its body. */
static void rows_of(struct a1_rows *r, size_t head)
{
	struct a1_rows_index *ix = r->ix;
	if (r->has_body && ix->budget > r->body.e - head) {
		ix->budget -= r->body.e - head;
		scan(ix->s, &r->rows, r, head, r->body.a, 1);
		scan(ix->s, &r->rows, r, r->body.a, r->body.e, 0);
	}
}

struct a1_rows *a1_rows_new(const struct a1_rows_test *t, const struct a1_rows_fact *g, size_t ng)
{
	struct a1_rows_func *fs = xcalloc(t->nfuncs + 2, sizeof *fs);
	if (t->nfuncs)
		memcpy(fs, t->funcs, t->nfuncs * sizeof *fs);
	fs[t->nfuncs] = (struct a1_rows_func){"", t->line};
	struct a1_rows_index *ix = a1_rows_index_new(t->text, t->len, fs, t->nfuncs + 1);
	free(fs);
	struct a1_rows *r = a1_rows_new_in(ix, t->line, g, ng);
	r->own_ix = 1;
	return r;
}

/* Matchers of one family: the same, or both an equality of the frameworks. */
static int family(const char *a, const char *b)
{
	static const char *const eqs[] = {"assert.Equal", "require.Equal", "assert_eq", "debug_assert_eq", "assertEquals",
					  "isEqualTo", "assertEqual", NULL};
	if (!a || !b)
		return !a && !b;
	if (!strcmp(a, b))
		return 1;
	int ia = 0, ib = 0;
	for (const char *const *m = eqs; *m; m++) {
		ia |= !strcmp(a, *m);
		ib |= !strcmp(b, *m);
	}
	return ia && ib;
}

/* 1 when the multiset need[0..nn) is in the row. */
static int contains(const struct row *w, char **need, size_t nn)
{
	unsigned char used[ROW_ITEMS] = {0};
	for (size_t i = 0; i < nn; i++) {
		size_t j;
		for (j = 0; j < w->n; j++)
			if (!used[j] && !strcmp(w->v[j], need[i]))
				break;
		if (j == w->n)
			return 0;
		used[j] = 1;
	}
	return 1;
}

/* The body of the function holding g: the test's, or its helper's. */
static int holder_span(const struct a1_rows *r, const struct a1_rows_fact *g, struct span *b)
{
	if (!g->holder) {
		*b = r->body;
		return r->has_body;
	}
	for (size_t i = 0; i < r->ix->nfn; i++)
		if (r->ix->fn[i].ok && !strcmp(r->ix->fn[i].name, g->holder)) {
			*b = r->ix->fn[i].body;
			return 1;
		}
	return 0;
}

long a1_rows_cover(struct a1_rows *r, const struct a1_rows_fact *p)
{
	if (!r->has_body || (!r->rows.n && !r->ix->top.n) || !p->subject)
		return -1; /* a test not found (no body: an expression body) reads no rows */
	size_t k = 0;
	const char *fn = callee(p->subject, &k);
	if (!fn)
		fn = callee(p->expected, &k);
	char *need[LITS_MAX];
	size_t nn = 0;
	long got = -1;
	if (!fn || literals(p->subject, need, &nn) || literals(p->expected, need, &nn) || !nn)
		goto done;
	for (size_t i = 0; i < r->ng && got < 0; i++) {
		const struct a1_rows_fact *g = &r->g[i];
		if (!r->param[i] || !family(p->matcher, g->matcher))
			continue;
		struct span b;
		size_t glen = strlen(g->form);
		if (r->ix->budget < glen)
			break;
		r->ix->budget -= glen;
		if (!calls(g->form, 0, glen, fn, k)) {
			if (!holder_span(r, g, &b) || r->ix->budget < b.e - b.a)
				continue;
			r->ix->budget -= b.e - b.a;
			if (!calls(r->ix->s, b.a, b.e, fn, k))
				continue;
		}
		size_t hk = 0;
		const char *h = g->holder ? last_part(g->holder, &hk) : NULL;
		for (size_t j = 0; j < r->rows.n + r->ix->top.n && got < 0; j++) {
			int own = j < r->rows.n;
			struct row *w = own ? &r->rows.v[j] : &r->ix->top.v[j - r->rows.n];
			unsigned char *spent = own ? (unsigned char *)&w->spent : &r->top_spent[j - r->rows.n];
			if (*spent || (w->callee && !(h && w->ncallee == hk && !strncmp(w->callee, h, hk))))
				continue;
			if (r->ix->budget < nn * w->n + 1)
				break;
			r->ix->budget -= nn * w->n + 1;
			if (!contains(w, need, nn))
				continue;
			*spent = 1;
			got = (long)i;
		}
	}
done:
	free_items(need, nn);
	return got;
}

void a1_rows_free(struct a1_rows *r)
{
	if (!r)
		return;
	rows_free(&r->rows);
	if (r->own_ix)
		a1_rows_index_free(r->ix);
	free(r->top_spent);
	free(r->param);
	free(r);
}

struct a1_rows *a1_rows_text_rows(struct a1_rows_text *rt, const struct a1_rows_func *funcs, size_t nfuncs, unsigned line,
				  const struct a1_rows_fact *g, size_t ng)
{
	if (!rt->ix)
		rt->ix = a1_rows_index_new(rt->text, rt->len, funcs, nfuncs);
	return a1_rows_new_in(rt->ix, line, g, ng);
}

void a1_rows_text_done(struct a1_rows_text *rt)
{
	a1_rows_index_free(rt->ix);
	rt->ix = NULL;
}

size_t a1_rows_head(const char *text, size_t len, size_t at, char ***out)
{
	*out = NULL;
	struct span b;
	if (!text || at >= len || !js_body(text, len, at, &b) || b.a - at > BUDGET)
		return 0;
	struct rows r = {0};
	scan(text, &r, NULL, at, b.a, 0);
	*out = xcalloc(r.n + 1, sizeof **out);
	for (size_t i = 0; i < r.n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < r.v[i].n; j++)
			k += strlen(r.v[i].v[j]) + 1;
		char *w = xmalloc(k + 1), *p = w;
		for (size_t j = 0; j < r.v[i].n; j++) {
			size_t m = strlen(r.v[i].v[j]);
			memcpy(p, r.v[i].v[j], m);
			p += m;
			*p++ = j + 1 < r.v[i].n ? ',' : 0;
		}
		if (!r.v[i].n)
			*p = 0;
		(*out)[i] = w;
	}
	size_t n = r.n;
	rows_free(&r);
	return n;
}

/* 1 when the word name (k bytes) stands whole in s[a, e). */
static int word_in(const char *s, size_t a, size_t e, const char *name, size_t k)
{
	for (size_t i = a; i + k <= e; i++)
		if (!strncmp(s + i, name, k) && (i == 0 || !word_byte((unsigned char)s[i - 1])) &&
		    (i + k >= e || !word_byte((unsigned char)s[i + k])))
			return 1;
	return 0;
}

int a1_rows_js_bound(const struct a1_rows_text *rt, unsigned line, const char *name)
{
	size_t k = name ? strlen(name) : 0;
	if (!rt || !rt->js || !rt->ix || !k || digit((unsigned char)name[0]))
		return 0;
	for (size_t i = 0; i < k; i++)
		if (!word_byte((unsigned char)name[i]))
			return 0;
	static const char *const lits[] = {"true", "false", "null", "undefined", "NaN", "Infinity", NULL};
	for (const char *const *w = lits; *w; w++)
		if (!strcmp(name, *w))
			return 0;
	const struct a1_rows_index *ix = rt->ix;
	if (!line || line > ix->nlines)
		return 0;
	size_t head = line_at(ix, line);
	struct span b;
	if (!js_body(ix->s, ix->n, head, &b))
		return 0;
	if (word_in(ix->s, head, b.a, name, k)) /* a parameter of the callback */
		return 1;
	for (size_t i = b.a; i + 3 < b.e;) { /* a for's binding: for (const [a, want] of ..) */
		size_t j = skip(ix->s, b.e, i);
		if (j != i) {
			i = j;
			continue;
		}
		if (!strncmp(ix->s + i, "for", 3) && (i == 0 || !word_byte((unsigned char)ix->s[i - 1])) &&
		    !word_byte((unsigned char)ix->s[i + 3])) {
			size_t o = i + 3;
			while (o < b.e && (ix->s[o] == ' ' || ix->s[o] == '\t'))
				o++;
			if (o < b.e && ix->s[o] == '(') {
				size_t c = close_of(ix->s, b.e, o), of = o;
				for (size_t q = o; q + 2 < c && of == o; q++)
					if ((!strncmp(ix->s + q, " of ", 4) || !strncmp(ix->s + q, " in ", 4)))
						of = q;
				if (of > o && word_in(ix->s, o, of, name, k))
					return 1;
			}
		}
		i++;
	}
	return 0;
}

/*==== the judges' side ======================================================================*/

void a1_rows_lang(const struct a1_lang_side *post, const struct a1_lang_func *Q, struct a1_rows_text *rt,
		  const struct a1_lang_fact *const *pf, size_t np, const struct a1_lang_fact *const *qf, size_t nq,
		  long *pair, unsigned char *used)
{
	int want = 0;
	for (size_t i = 0; i < np; i++)
		want |= pair[i] < 0 && !pf[i]->dead && !pf[i]->taut;
	if (!want || !rt || !rt->text || !nq)
		return;
	struct a1_rows_fact *g = xcalloc(nq + 1, sizeof *g);
	size_t *at = xmalloc((nq + 1) * sizeof *at), ng = 0;
	for (size_t j = 0; j < nq; j++) {
		if (qf[j]->dead || qf[j]->taut)
			continue;
		const char *holder = NULL;
		if (qf[j] < Q->facts || qf[j] >= Q->facts + Q->nfacts)
			for (size_t k = 0; k < post->nfuncs && !holder; k++)
				if (post->funcs[k].nfacts && qf[j] >= post->funcs[k].facts &&
				    qf[j] < post->funcs[k].facts + post->funcs[k].nfacts)
					holder = post->funcs[k].name;
		g[ng] = (struct a1_rows_fact){qf[j]->form, qf[j]->subject, qf[j]->matcher, qf[j]->expected, holder};
		at[ng++] = j;
	}
	struct a1_rows_func *fs = xcalloc(post->nfuncs + 1, sizeof *fs);
	for (size_t k = 0; k < post->nfuncs; k++)
		fs[k] = (struct a1_rows_func){post->funcs[k].name, post->funcs[k].line};
	struct a1_rows *r = a1_rows_text_rows(rt, fs, post->nfuncs, Q->line, g, ng);
	for (size_t i = 0; i < np; i++) {
		if (pair[i] >= 0 || pf[i]->dead || pf[i]->taut)
			continue;
		struct a1_rows_fact p = {pf[i]->form, pf[i]->subject, pf[i]->matcher, pf[i]->expected, NULL};
		long c = a1_rows_cover(r, &p);
		if (c >= 0) {
			pair[i] = (long)at[c];
			used[at[c]] = 1;
		}
	}
	a1_rows_free(r);
	free(fs);
	free(at);
	free(g);
}

static int js_live(const struct a1_js_fact *f)
{
	return !f->dead && !f->swallowed && !f->taut && f->kind != A1_JS_K_COUNT;
}

/* Marks the functions of s that `calls` reaches within `depth` calls. */
static void js_reach(const struct a1_js_side *s, const struct a1_js_names *calls, unsigned char *seen, int depth)
{
	if (depth <= 0)
		return;
	for (size_t i = 0; i < calls->n; i++)
		for (size_t j = 0; j < s->nfuncs; j++)
			if (!seen[j] && !strcmp(s->funcs[j].name, calls->v[i])) {
				seen[j] = 1;
				js_reach(s, &s->funcs[j].calls, seen, depth - 1);
			}
}

void a1_rows_js(const struct a1_js_side *post, const struct a1_js_test *P, const struct a1_js_test *Q,
		struct a1_rows_text *rt, int depth, long *pair, unsigned char *used)
{
	int want = 0;
	for (size_t i = 0; i < P->facts.n; i++)
		want |= pair[i] == -1 && js_live(&P->facts.v[i]);
	if (!want || !rt || !rt->text || !Q->line)
		return;
	unsigned char *seen = xcalloc(post->nfuncs + 1, 1);
	js_reach(post, &Q->calls, seen, depth);
	size_t cap = Q->facts.n;
	for (size_t k = 0; k < post->nfuncs; k++)
		cap += seen[k] ? post->funcs[k].facts.n : 0;
	struct a1_rows_fact *g = xcalloc(cap + 1, sizeof *g);
	long *at = xmalloc((cap + 1) * sizeof *at);
	size_t ng = 0;
	for (size_t j = 0; j < Q->facts.n; j++)
		if (js_live(&Q->facts.v[j])) {
			const struct a1_js_fact *f = &Q->facts.v[j];
			g[ng] = (struct a1_rows_fact){f->form, f->subject, f->matcher, f->expected, NULL};
			at[ng++] = (long)j;
		}
	for (size_t k = 0; k < post->nfuncs; k++)
		for (size_t j = 0; seen[k] && j < post->funcs[k].facts.n; j++)
			if (js_live(&post->funcs[k].facts.v[j])) {
				const struct a1_js_fact *f = &post->funcs[k].facts.v[j];
				g[ng] = (struct a1_rows_fact){f->form, f->subject, f->matcher, f->expected, post->funcs[k].name};
				at[ng++] = -1;
			}
	struct a1_rows_func *fs = xcalloc(post->ntests + post->nfuncs + 1, sizeof *fs);
	size_t nf = 0;
	for (size_t k = 0; k < post->ntests; k++)
		fs[nf++] = (struct a1_rows_func){post->tests[k].name, post->tests[k].line};
	for (size_t k = 0; k < post->nfuncs; k++)
		fs[nf++] = (struct a1_rows_func){post->funcs[k].name, 0};
	if (!rt->ix)
		rt->ix = index_new(rt->text, rt->len, fs, nf, rt->js);
	struct a1_rows *r = a1_rows_new_in(rt->ix, Q->line, g, ng);
	for (size_t i = 0; i < P->facts.n; i++) {
		const struct a1_js_fact *f = &P->facts.v[i];
		if (pair[i] != -1 || !js_live(f))
			continue;
		struct a1_rows_fact p = {f->form, f->subject, f->matcher, f->expected, NULL};
		long c = a1_rows_cover(r, &p);
		if (c < 0)
			continue;
		pair[i] = -2;
		if (at[c] >= 0)
			used[at[c]] = 1;
	}
	a1_rows_free(r);
	free(fs);
	free(at);
	free(g);
	free(seen);
}

size_t a1_rows_missing(char *const *pv, size_t np, char *const *qv, size_t nq, size_t **missing)
{
	*missing = NULL;
	size_t n = 0;
	unsigned char *hit = xcalloc(nq + 1, 1);
	for (size_t k = 0; k < np; k++) {
		size_t j;
		for (j = 0; j < nq; j++)
			if (!hit[j] && !strcmp(pv[k], qv[j]))
				break;
		if (j < nq) {
			hit[j] = 1;
			continue;
		}
		if (!*missing)
			*missing = xmalloc(np * sizeof **missing);
		(*missing)[n++] = k;
	}
	free(hit);
	return n;
}

void a1_rows_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

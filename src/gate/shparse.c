/* shparse.c - the shell lexer and recursive-descent parser behind shparse.h.
 *
 * Responsible for: tokens (operators, fd redirects, words with quoting), here-document
 * bodies (read at the newline that follows their redirect, as the shell does), command and
 * process substitutions (parsed recursively), compound commands, and named limits on input
 * size and nesting. Must not: expand anything, look at command names beyond reserved words,
 * or touch the filesystem. Errors unwind with longjmp to shparse_program; every allocation
 * is in the caller's arena, so unwinding leaks nothing. One thread per parse. */
#include "gate/shparse.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"

enum tok_type {
	T_EOF,
	T_WORD,
	T_NL,
	T_SEMI,
	T_AMP,
	T_ANDIF,
	T_ORIF,
	T_PIPE,
	T_PIPEAMP,
	T_LPAREN,
	T_RPAREN,
	T_DSEMI,
	T_REDIR,
};

struct tok {
	enum tok_type t;
	size_t off, end;
	struct sh_word w;
	enum sh_redir_op rop;
	int fd;
	int strip_tabs;
};

#define MAX_PENDING_HEREDOCS 64

struct shp {
	struct arena *a;
	const char *s;
	size_t n, i;
	const struct shparse_limits *lim;
	int *depth; /* shared with sub-parsers */
	struct shparse_error *pe;
	jmp_buf *jb;
	struct sh_pending {
		struct sh_heredoc *hd;
		struct sh_word delim;
	} pend[MAX_PENDING_HEREDOCS];
	int npend;
	int has_la;
	struct tok la;
};

enum lex_mode {
	M_UNQ,	   /* an ordinary word */
	M_DQ,	   /* inside "..." */
	M_HEREDOC, /* an unquoted here-document body */
	M_BRACE,   /* the word after a ${name OP */
	M_ARITH,   /* $(( ... )) */
	M_SUBSCR,  /* ${name[ ... ]} */
};

static _Noreturn void fail(struct shp *p, int too_deep, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static _Noreturn void fail(struct shp *p, int too_deep, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->pe->msg, sizeof p->pe->msg, fmt, ap);
	va_end(ap);
	p->pe->off = p->i;
	p->pe->too_deep = too_deep;
	longjmp(*p->jb, 1);
}

static void enter(struct shp *p)
{
	if (++*p->depth > p->lim->max_nesting)
		fail(p, 1, "nesting deeper than %d levels", p->lim->max_nesting);
}

static void leave(struct shp *p)
{
	--*p->depth;
}

static void sub_init(struct shp *sub, const struct shp *p, const char *s, size_t n)
{
	memset(sub, 0, sizeof *sub);
	sub->a = p->a;
	sub->s = s;
	sub->n = n;
	sub->lim = p->lim;
	sub->depth = p->depth;
	sub->pe = p->pe;
	sub->jb = p->jb;
}

static int peekc(const struct shp *p, size_t k)
{
	return p->i + k < p->n ? (unsigned char)p->s[p->i + k] : -1;
}

static int is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
	       c == '<' || c == '>';
}

static int is_name_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/*==== word building ====*/

struct lit {
	char *s;
	size_t n, cap;
	int quoted;
};

static struct sh_part *word_add(struct shp *p, struct sh_word *w)
{
	struct sh_part zero = {0};
	ARENA_PUSH(p->a, w->p, w->n, w->cap, zero);
	return &w->p[w->n - 1];
}

static void lit_flush(struct shp *p, struct sh_word *w, struct lit *l)
{
	if (!l->n)
		return;
	struct sh_part *pt = word_add(p, w);
	pt->kind = SHP_LIT;
	pt->quoted = (unsigned char)l->quoted;
	pt->s = l->s;
	pt->n = l->n;
	l->s = NULL;
	l->n = l->cap = 0;
}

static void lit_putc(struct shp *p, struct sh_word *w, struct lit *l, int c, int quoted)
{
	if (l->n && l->quoted != quoted)
		lit_flush(p, w, l);
	if (l->n + 2 > l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 32;
		l->s = arena_grow(p->a, l->s, l->n, nc, 1);
		l->cap = nc;
	}
	l->quoted = quoted;
	l->s[l->n++] = (char)c;
	l->s[l->n] = '\0';
}

static struct sh_node *parse_list(struct shp *p);
static void lex_parts(struct shp *p, struct sh_word *w, enum lex_mode mode, int quoted);
static void lex(struct shp *p, struct tok *t);

static struct tok *peek(struct shp *p)
{
	if (!p->has_la) {
		lex(p, &p->la);
		p->has_la = 1;
	}
	return &p->la;
}

static void consume(struct shp *p)
{
	p->has_la = 0;
}

/* Parses a program that ends at ')' (for $( ) and <( )); leaves p->i after the ')'. */
static struct sh_node *parse_until_rparen(struct shp *p, const char *what)
{
	enter(p);
	/* The caller is inside lex(); the lookahead slot is free. */
	int saved_has = p->has_la;
	struct tok saved = p->la;
	p->has_la = 0;
	struct sh_node *n = parse_list(p);
	struct tok *t = peek(p);
	if (t->t != T_RPAREN)
		fail(p, 0, t->t == T_EOF ? "unterminated %s" : "unexpected token inside %s", what);
	consume(p);
	p->has_la = saved_has;
	p->la = saved;
	leave(p);
	return n;
}

static void ansi_c_quote(struct shp *p, struct sh_word *w, struct lit *l)
{
	/* p->i is after "$'" */
	for (;;) {
		int c = peekc(p, 0);
		if (c < 0)
			fail(p, 0, "unterminated $'...' string");
		p->i++;
		if (c == '\'')
			return;
		if (c != '\\') {
			lit_putc(p, w, l, c, 1);
			continue;
		}
		int e = peekc(p, 0);
		if (e < 0)
			fail(p, 0, "unterminated $'...' string");
		p->i++;
		unsigned long v = 0;
		int k;
		switch (e) {
		case 'n':
			lit_putc(p, w, l, '\n', 1);
			break;
		case 't':
			lit_putc(p, w, l, '\t', 1);
			break;
		case 'r':
			lit_putc(p, w, l, '\r', 1);
			break;
		case 'a':
			lit_putc(p, w, l, '\a', 1);
			break;
		case 'b':
			lit_putc(p, w, l, '\b', 1);
			break;
		case 'f':
			lit_putc(p, w, l, '\f', 1);
			break;
		case 'v':
			lit_putc(p, w, l, '\v', 1);
			break;
		case 'e':
		case 'E':
			lit_putc(p, w, l, 27, 1);
			break;
		case 'c':
			if (peekc(p, 0) >= 0)
				lit_putc(p, w, l, peekc(p, 0) & 31, 1), p->i++;
			break;
		case 'x':
			for (k = 0; k < 2 && isxdigit(peekc(p, 0)); k++, p->i++)
				v = v * 16 + (unsigned long)(isdigit(peekc(p, 0)) ? peekc(p, 0) - '0'
										  : (tolower(peekc(p, 0)) - 'a' + 10));
			if (k == 0)
				lit_putc(p, w, l, '\\', 1), lit_putc(p, w, l, 'x', 1);
			else
				lit_putc(p, w, l, (int)(v & 0xff), 1);
			break;
		case 'u':
		case 'U': {
			int maxd = e == 'u' ? 4 : 8;
			for (k = 0; k < maxd && isxdigit(peekc(p, 0)); k++, p->i++)
				v = v * 16 + (unsigned long)(isdigit(peekc(p, 0)) ? peekc(p, 0) - '0'
										  : (tolower(peekc(p, 0)) - 'a' + 10));
			if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
				v = 0xFFFD;
			if (v < 0x80) {
				lit_putc(p, w, l, (int)v, 1);
			} else if (v < 0x800) {
				lit_putc(p, w, l, (int)(0xC0 | (v >> 6)), 1);
				lit_putc(p, w, l, (int)(0x80 | (v & 0x3F)), 1);
			} else if (v < 0x10000) {
				lit_putc(p, w, l, (int)(0xE0 | (v >> 12)), 1);
				lit_putc(p, w, l, (int)(0x80 | ((v >> 6) & 0x3F)), 1);
				lit_putc(p, w, l, (int)(0x80 | (v & 0x3F)), 1);
			} else {
				lit_putc(p, w, l, (int)(0xF0 | (v >> 18)), 1);
				lit_putc(p, w, l, (int)(0x80 | ((v >> 12) & 0x3F)), 1);
				lit_putc(p, w, l, (int)(0x80 | ((v >> 6) & 0x3F)), 1);
				lit_putc(p, w, l, (int)(0x80 | (v & 0x3F)), 1);
			}
			break;
		}
		default:
			if (e >= '0' && e <= '7') {
				v = (unsigned long)(e - '0');
				for (k = 0; k < 2 && peekc(p, 0) >= '0' && peekc(p, 0) <= '7'; k++, p->i++)
					v = v * 8 + (unsigned long)(peekc(p, 0) - '0');
				lit_putc(p, w, l, (int)(v & 0xff), 1);
			} else if (e == '\\' || e == '\'' || e == '"' || e == '?') {
				lit_putc(p, w, l, e, 1);
			} else {
				lit_putc(p, w, l, '\\', 1);
				lit_putc(p, w, l, e, 1);
			}
		}
	}
}

/* `...`: the text up to the closing backquote with \$ \` \\ (and \" inside "...")
 * unescaped, parsed as a program of its own. p->i is after the opening backquote. */
static struct sh_node *backquote(struct shp *p, int in_dq)
{
	enter(p);
	char *t = NULL;
	size_t tn = 0, tcap = 0;
	for (;;) {
		int c = peekc(p, 0);
		if (c < 0)
			fail(p, 0, "unterminated `...` command substitution");
		p->i++;
		if (c == '`')
			break;
		if (c == '\\') {
			int d = peekc(p, 0);
			if (d == '$' || d == '`' || d == '\\' || (in_dq && d == '"')) {
				c = d;
				p->i++;
			} else if (d == '\n') {
				p->i++;
				continue;
			}
		}
		char ch = (char)c;
		ARENA_PUSH(p->a, t, tn, tcap, ch);
	}
	char nul = '\0';
	ARENA_PUSH(p->a, t, tn, tcap, nul);
	struct shp sub;
	sub_init(&sub, p, t, tn - 1);
	struct sh_node *n = parse_list(&sub);
	struct tok *tk = peek(&sub);
	if (tk->t != T_EOF)
		fail(p, 0, "unexpected token inside `...` command substitution");
	leave(p);
	return n;
}

/* Decides whether "$((" at p->i (pointing after "$((") opens arithmetic: it does when the
 * parenthesis that brings the depth back to one is immediately followed by another ')'. */
static int looks_arith(const struct shp *p)
{
	int depth = 2;
	for (size_t k = p->i; k < p->n; k++) {
		char c = p->s[k];
		if (c == '\\') {
			k++;
			continue;
		}
		if (c == '\'' || c == '"') {
			char q = c;
			for (k++; k < p->n && p->s[k] != q; k++)
				if (q == '"' && p->s[k] == '\\')
					k++;
			continue;
		}
		if (c == '(')
			depth++;
		else if (c == ')') {
			depth--;
			if (depth == 1)
				return k + 1 < p->n && p->s[k + 1] == ')';
		}
	}
	return 0;
}

static struct sh_word *new_word(struct shp *p)
{
	struct sh_word *w = arena_zalloc(p->a, sizeof *w);
	w->src = p->s;
	w->off = p->i;
	return w;
}

/* Appends an arithmetic part ($((...)) or $[...]) whose expression is aw. */
static void push_arith(struct shp *p, struct sh_word *w, struct sh_word *aw, int quoted)
{
	struct sh_part *pt = word_add(p, w);
	pt->kind = SHP_ARITH;
	pt->quoted = (unsigned char)quoted;
	pt->arg = aw;
}

/* Handles a '$' at p->i (already known to be there). */
static void dollar(struct shp *p, struct sh_word *w, struct lit *l, enum lex_mode mode, int quoted)
{
	int c1 = peekc(p, 1);
	if (c1 == '\'' && (mode == M_UNQ || mode == M_BRACE) && !quoted) {
		p->i += 2;
		ansi_c_quote(p, w, l);
		return;
	}
	if (c1 == '"' && mode == M_UNQ && !quoted) {
		p->i += 2;
		lit_flush(p, w, l);
		lex_parts(p, w, M_DQ, 1);
		if (peekc(p, 0) != '"')
			fail(p, 0, "unterminated $\"...\" string");
		p->i++;
		return;
	}
	if (c1 == '(') {
		lit_flush(p, w, l);
		if (peekc(p, 2) == '(') {
			size_t save = p->i;
			p->i += 3;
			if (looks_arith(p)) {
				enter(p);
				struct sh_word *aw = new_word(p);
				lex_parts(p, aw, M_ARITH, 1);
				aw->end = p->i;
				p->i += 2; /* )) */
				leave(p);
				push_arith(p, w, aw, quoted);
				return;
			}
			p->i = save;
		}
		p->i += 2;
		struct sh_node *sub = parse_until_rparen(p, "$( ) command substitution");
		struct sh_part *pt = word_add(p, w);
		pt->kind = SHP_CMDSUB;
		pt->quoted = (unsigned char)quoted;
		pt->sub = sub;
		return;
	}
	if (c1 == '[') {
		/* $[ expr ]: the old form of arithmetic expansion */
		lit_flush(p, w, l);
		enter(p);
		p->i += 2;
		struct sh_word *aw = new_word(p);
		lex_parts(p, aw, M_SUBSCR, 1);
		if (peekc(p, 0) != ']')
			fail(p, 0, "unterminated $[ ] arithmetic");
		aw->end = p->i;
		p->i++;
		leave(p);
		push_arith(p, w, aw, quoted);
		return;
	}
	if (c1 == '{') {
		lit_flush(p, w, l);
		enter(p);
		p->i += 2;
		struct sh_part *pt = word_add(p, w);
		size_t pi = w->n - 1;
		pt->kind = SHP_PARAM;
		pt->quoted = (unsigned char)quoted;
		int c = peekc(p, 0);
		char pre = 0;
		if ((c == '#' || c == '!') && peekc(p, 1) != '}' &&
		    (is_name_char(peekc(p, 1)) || strchr("@*#?$!-", peekc(p, 1) > 0 ? peekc(p, 1) : 'x'))) {
			pre = (char)c;
			p->i++;
			c = peekc(p, 0);
		}
		size_t ns = p->i;
		if (is_name_start(c)) {
			while (is_name_char(peekc(p, 0)))
				p->i++;
		} else if (c >= '0' && c <= '9') {
			while (peekc(p, 0) >= '0' && peekc(p, 0) <= '9')
				p->i++;
		} else if (c > 0 && strchr("@*#?$!-", c)) {
			p->i++;
		} else {
			fail(p, 0, "bad ${...} substitution");
		}
		const char *name = arena_strndup(p->a, p->s + ns, p->i - ns);
		struct sh_word *idx = NULL;
		if (peekc(p, 0) == '[') {
			p->i++;
			idx = new_word(p);
			lex_parts(p, idx, M_SUBSCR, 1);
			if (peekc(p, 0) != ']')
				fail(p, 0, "unterminated ${name[...]} subscript");
			p->i++;
		}
		char op[4] = "";
		if (pre == '#')
			strcpy(op, "len");
		else if (pre == '!')
			strcpy(op, "!");
		c = peekc(p, 0);
		struct sh_word *arg = NULL;
		if (c != '}') {
			if (c < 0)
				fail(p, 0, "unterminated ${...} substitution");
			static const char *const ops[] = {":-", ":=", ":+", ":?", "##", "%%", "//", "/#",
							  "/%", "^^", ",,", "-",  "=",	"+",  "?",  "#",
							  "%",	"/",  "^",  ",",  ":",	"@"};
			size_t k;
			for (k = 0; k < sizeof ops / sizeof ops[0]; k++) {
				size_t ol = strlen(ops[k]);
				if (p->i + ol <= p->n && memcmp(p->s + p->i, ops[k], ol) == 0)
					break;
			}
			if (k == sizeof ops / sizeof ops[0])
				fail(p, 0, "bad ${...} operator");
			if (!pre) {
				snprintf(op, sizeof op, "%s", ops[k]);
			} else if (pre == '!') {
				/* ${!name OP word}: keep the operator after the '!' */
				size_t ol = strlen(ops[k]);
				op[0] = '!';
				memcpy(op + 1, ops[k], ol < 2 ? ol : 2);
				op[1 + (ol < 2 ? ol : 2)] = '\0';
			}
			p->i += strlen(ops[k]);
			arg = new_word(p);
			lex_parts(p, arg, M_BRACE, quoted);
			arg->end = p->i;
		}
		if (peekc(p, 0) != '}')
			fail(p, 0, "unterminated ${...} substitution");
		p->i++;
		pt = &w->p[pi]; /* the array may have moved */
		pt->s = name;
		pt->n = strlen(name);
		memcpy(pt->op, op, sizeof op);
		pt->arg = arg;
		pt->idx = idx;
		leave(p);
		return;
	}
	if (c1 > 0 && (is_name_start(c1) || (c1 >= '0' && c1 <= '9') || strchr("@*#?$!-", c1))) {
		lit_flush(p, w, l);
		p->i++;
		size_t ns = p->i;
		if (is_name_start(c1))
			while (is_name_char(peekc(p, 0)))
				p->i++;
		else
			p->i++;
		struct sh_part *pt = word_add(p, w);
		pt->kind = SHP_PARAM;
		pt->quoted = (unsigned char)quoted;
		pt->s = arena_strndup(p->a, p->s + ns, p->i - ns);
		pt->n = p->i - ns;
		return;
	}
	lit_putc(p, w, l, '$', quoted);
	p->i++;
}

static int assignment_prefix_lit(const struct sh_word *w, const struct lit *l)
{
	/* the word so far is NAME= (one unquoted literal) */
	if (w->n != 0 || l->quoted || l->n < 2 || l->s[l->n - 1] != '=')
		return 0;
	if (!is_name_start((unsigned char)l->s[0]))
		return 0;
	for (size_t k = 1; k + 1 < l->n; k++)
		if (!is_name_char((unsigned char)l->s[k]))
			return 0;
	return 1;
}

static void tilde(struct shp *p, struct sh_word *w, struct lit *l)
{
	/* p->i at '~' */
	size_t k = p->i + 1;
	while (k < p->n && (is_name_char((unsigned char)p->s[k]) || p->s[k] == '.' || p->s[k] == '-'))
		k++;
	if (k < p->n && p->s[k] != '/' && p->s[k] != ':' && !is_meta((unsigned char)p->s[k])) {
		lit_putc(p, w, l, '~', 0);
		p->i++;
		return;
	}
	lit_flush(p, w, l);
	struct sh_part *pt = word_add(p, w);
	pt->kind = SHP_TILDE;
	pt->s = arena_strndup(p->a, p->s + p->i + 1, k - p->i - 1);
	pt->n = k - p->i - 1;
	p->i = k;
}

/* Appends s[0..n) as one literal run. */
static void lit_append(struct shp *p, struct sh_word *w, struct lit *l, const char *s, size_t n, int quoted)
{
	if (l->n && l->quoted != quoted)
		lit_flush(p, w, l);
	if (l->n + n + 1 > l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 32;
		while (nc < l->n + n + 1)
			nc *= 2;
		l->s = arena_grow(p->a, l->s, l->n, nc, 1);
		l->cap = nc;
	}
	l->quoted = quoted;
	memcpy(l->s + l->n, s, n);
	l->n += n;
	l->s[l->n] = '\0';
}

/* Length of the run of characters at p->i that need no special handling in `mode`. */
static size_t plain_run(const struct shp *p, enum lex_mode mode)
{
	size_t k = p->i;
	switch (mode) {
	case M_UNQ:
		while (k < p->n) {
			unsigned char c = (unsigned char)p->s[k];
			if (is_meta(c) || c == '\\' || c == '\'' || c == '"' || c == '$' || c == '`' || c == '~' ||
			    c == '@' || c == '!' || c == '+' || c == '*' || c == '?')
				break;
			k++;
		}
		break;
	case M_DQ:
	case M_HEREDOC:
		while (k < p->n) {
			unsigned char c = (unsigned char)p->s[k];
			if (c == '\\' || c == '$' || c == '`' || (c == '"' && mode == M_DQ))
				break;
			k++;
		}
		break;
	default:
		break;
	}
	return k - p->i;
}

/* Lexes word parts in `mode` until the mode's terminator, which is left unconsumed. */
static void lex_parts(struct shp *p, struct sh_word *w, enum lex_mode mode, int quoted)
{
	struct lit l = {0};
	int depth = 0; /* braces (M_BRACE), parentheses (M_ARITH), brackets (M_SUBSCR) */
	for (;;) {
		size_t run = plain_run(p, mode);
		if (run > 1) {
			lit_append(p, w, &l, p->s + p->i, run, quoted || mode != M_UNQ);
			p->i += run;
			continue;
		}
		int c = peekc(p, 0);
		if (c < 0) {
			if (mode == M_DQ)
				fail(p, 0, "unterminated double quote");
			if (mode == M_BRACE)
				fail(p, 0, "unterminated ${...} substitution");
			if (mode == M_ARITH)
				fail(p, 0, "unterminated $(( )) arithmetic");
			if (mode == M_SUBSCR)
				fail(p, 0, "unterminated subscript");
			break;
		}
		if (mode == M_UNQ) {
			if (c == '(' && l.n && !l.quoted && strchr("@!+*?", l.s[l.n - 1])) {
				/* extglob @(a|b): a pattern, kept as unquoted literal text */
				int d = 0;
				do {
					int e = peekc(p, 0);
					if (e < 0)
						fail(p, 0, "unterminated extended glob");
					if (e == '(')
						d++;
					else if (e == ')')
						d--;
					lit_putc(p, w, &l, e, 0);
					p->i++;
				} while (d > 0);
				continue;
			}
			if (is_meta(c))
				break;
		}
		if (mode == M_DQ && c == '"')
			break;
		if (mode == M_BRACE) {
			if (c == '}' && depth == 0)
				break;
			if (c == '{')
				depth++;
			else if (c == '}')
				depth--;
		}
		if (mode == M_ARITH) {
			if (c == ')' && depth == 0 && peekc(p, 1) == ')')
				break;
			if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
		}
		if (mode == M_SUBSCR) {
			if (c == ']' && depth == 0)
				break;
			if (c == '[')
				depth++;
			else if (c == ']')
				depth--;
		}
		if (c == '\\') {
			int d = peekc(p, 1);
			if (d == '\n') {
				p->i += 2;
				continue;
			}
			if (d < 0) {
				lit_putc(p, w, &l, '\\', quoted || mode != M_UNQ);
				p->i++;
				continue;
			}
			if (mode == M_UNQ || (mode == M_BRACE && !quoted)) {
				lit_putc(p, w, &l, d, 1);
				p->i += 2;
				continue;
			}
			int special = d == '$' || d == '`' || d == '\\' || (mode == M_DQ && d == '"') ||
				      (mode == M_BRACE && (d == '}' || d == '"'));
			if (special) {
				lit_putc(p, w, &l, d, 1);
				p->i += 2;
			} else {
				lit_putc(p, w, &l, '\\', 1);
				p->i++;
			}
			continue;
		}
		if (c == '\'' && (mode == M_UNQ || (mode == M_BRACE && !quoted))) {
			p->i++;
			size_t st = p->i;
			while (p->i < p->n && p->s[p->i] != '\'')
				p->i++;
			if (p->i >= p->n)
				fail(p, 0, "unterminated single quote");
			if (p->i == st && l.n == 0 && w->n == 0) {
				/* '' alone still makes an (empty) word */
				lit_flush(p, w, &l);
				struct sh_part *pt = word_add(p, w);
				pt->kind = SHP_LIT;
				pt->quoted = 1;
				pt->s = "";
				pt->n = 0;
			}
			for (size_t k = st; k < p->i; k++)
				lit_putc(p, w, &l, (unsigned char)p->s[k], 1);
			p->i++;
			continue;
		}
		if (c == '"' && (mode == M_UNQ || mode == M_BRACE)) {
			p->i++;
			lit_flush(p, w, &l);
			size_t before = w->n;
			lex_parts(p, w, M_DQ, 1);
			if (peekc(p, 0) != '"')
				fail(p, 0, "unterminated double quote");
			p->i++;
			if (w->n == before) {
				/* "" makes an empty, quoted word part */
				struct sh_part *pt = word_add(p, w);
				pt->kind = SHP_LIT;
				pt->quoted = 1;
				pt->s = "";
				pt->n = 0;
			}
			continue;
		}
		if (c == '$') {
			dollar(p, w, &l, mode, quoted || mode == M_DQ || mode == M_HEREDOC);
			continue;
		}
		if (c == '`') {
			lit_flush(p, w, &l);
			p->i++;
			struct sh_node *sub = backquote(p, mode == M_DQ);
			struct sh_part *pt = word_add(p, w);
			pt->kind = SHP_CMDSUB;
			pt->quoted = (unsigned char)(quoted || mode != M_UNQ);
			pt->sub = sub;
			continue;
		}
		if (c == '~' && mode == M_UNQ && ((w->n == 0 && l.n == 0) || assignment_prefix_lit(w, &l))) {
			tilde(p, w, &l);
			continue;
		}
		lit_putc(p, w, &l, c,
			 quoted || mode == M_DQ || mode == M_HEREDOC || mode == M_ARITH || mode == M_SUBSCR);
		p->i++;
	}
	lit_flush(p, w, &l);
}

/*==== here-documents ====*/

static void read_heredocs(struct shp *p)
{
	for (int k = 0; k < p->npend; k++) {
		struct sh_heredoc *hd = p->pend[k].hd;
		char *delim = NULL;
		shparse_word_literal(p->a, &p->pend[k].delim, &delim);
		size_t dl = strlen(delim);
		char *body = NULL;
		size_t bn = 0, bcap = 0;
		int found = 0;
		while (p->i < p->n) {
			size_t ls = p->i, le = ls;
			while (le < p->n && p->s[le] != '\n')
				le++;
			size_t cs = ls;
			if (hd->strip_tabs)
				while (cs < le && p->s[cs] == '\t')
					cs++;
			p->i = le < p->n ? le + 1 : le;
			if (le - cs == dl && memcmp(p->s + cs, delim, dl) == 0) {
				found = 1;
				break;
			}
			for (size_t q = cs; q < le; q++)
				ARENA_PUSH(p->a, body, bn, bcap, p->s[q]);
			char nl = '\n';
			ARENA_PUSH(p->a, body, bn, bcap, nl);
		}
		char nul = '\0';
		ARENA_PUSH(p->a, body, bn, bcap, nul);
		bn--;
		hd->unterminated = (unsigned char)!found;
		struct sh_word *bw = arena_zalloc(p->a, sizeof *bw);
		bw->src = body;
		bw->off = 0;
		bw->end = bn;
		if (hd->literal) {
			struct sh_part pt = {.kind = SHP_LIT, .quoted = 1, .s = body, .n = bn};
			ARENA_PUSH(p->a, bw->p, bw->n, bw->cap, pt);
		} else {
			struct shp sub;
			sub_init(&sub, p, body, bn);
			lex_parts(&sub, bw, M_HEREDOC, 1);
		}
		hd->body = bw;
	}
	p->npend = 0;
}

/*==== tokens ====*/

static void set_redir(struct tok *t, enum sh_redir_op op, int fd, size_t len, struct shp *p)
{
	t->t = T_REDIR;
	t->rop = op;
	t->fd = fd;
	p->i += len;
}

static void lex(struct shp *p, struct tok *t)
{
	memset(t, 0, sizeof *t);
	for (;;) {
		int c = peekc(p, 0);
		if (c == ' ' || c == '\t' || c == '\r') {
			p->i++;
		} else if (c == '\\' && peekc(p, 1) == '\n') {
			p->i += 2;
		} else if (c == '#') {
			while (p->i < p->n && p->s[p->i] != '\n')
				p->i++;
		} else {
			break;
		}
	}
	t->off = p->i;
	int c = peekc(p, 0);
	if (c < 0) {
		if (p->npend)
			read_heredocs(p);
		t->t = T_EOF;
		t->end = p->i;
		return;
	}
	if (c == '\n') {
		p->i++;
		if (p->npend)
			read_heredocs(p);
		t->t = T_NL;
		t->end = p->i;
		return;
	}
	int c1 = peekc(p, 1), c2 = peekc(p, 2);
	int fd = -1;
	if (c >= '0' && c <= '9') {
		size_t k = p->i;
		while (k < p->n && p->s[k] >= '0' && p->s[k] <= '9')
			k++;
		if (k < p->n && (p->s[k] == '<' || p->s[k] == '>') && k - p->i < 6 &&
		    !(k + 1 < p->n && p->s[k + 1] == '(')) {
			fd = 0;
			for (size_t q = p->i; q < k; q++)
				fd = fd * 10 + (p->s[q] - '0');
			p->i = k;
			c = peekc(p, 0);
			c1 = peekc(p, 1);
			c2 = peekc(p, 2);
		}
	}
	switch (c) {
	case '&':
		if (c1 == '&')
			t->t = T_ANDIF, p->i += 2;
		else if (c1 == '>' && c2 == '>')
			set_redir(t, SHR_ALL_APPEND, -1, 3, p);
		else if (c1 == '>')
			set_redir(t, SHR_ALL, -1, 2, p);
		else
			t->t = T_AMP, p->i++;
		break;
	case '|':
		if (c1 == '|')
			t->t = T_ORIF, p->i += 2;
		else if (c1 == '&')
			t->t = T_PIPEAMP, p->i += 2;
		else
			t->t = T_PIPE, p->i++;
		break;
	case ';':
		if (c1 == ';' && c2 == '&')
			t->t = T_DSEMI, p->i += 3;
		else if (c1 == ';' || c1 == '&')
			t->t = T_DSEMI, p->i += 2;
		else
			t->t = T_SEMI, p->i++;
		break;
	case '(':
		t->t = T_LPAREN, p->i++;
		break;
	case ')':
		t->t = T_RPAREN, p->i++;
		break;
	case '<':
		if (c1 == '(' && fd < 0)
			goto word;
		if (c1 == '<' && c2 == '<')
			set_redir(t, SHR_HERESTRING, fd, 3, p);
		else if (c1 == '<' && c2 == '-')
			set_redir(t, SHR_HEREDOC, fd, 3, p), t->strip_tabs = 1;
		else if (c1 == '<')
			set_redir(t, SHR_HEREDOC, fd, 2, p);
		else if (c1 == '&')
			set_redir(t, SHR_DUPIN, fd, 2, p);
		else if (c1 == '>')
			set_redir(t, SHR_RW, fd, 2, p);
		else
			set_redir(t, SHR_IN, fd, 1, p);
		break;
	case '>':
		if (c1 == '(' && fd < 0)
			goto word;
		if (c1 == '>')
			set_redir(t, SHR_APPEND, fd, 2, p);
		else if (c1 == '&')
			set_redir(t, SHR_DUPOUT, fd, 2, p);
		else if (c1 == '|')
			set_redir(t, SHR_CLOBBER, fd, 2, p);
		else
			set_redir(t, SHR_OUT, fd, 1, p);
		break;
	default:
		goto word;
	}
	t->end = p->i;
	return;
word:
	t->t = T_WORD;
	t->w.src = p->s;
	t->w.off = p->i;
	if ((c == '<' || c == '>') && c1 == '(') {
		p->i += 2;
		struct sh_node *sub = parse_until_rparen(p, "process substitution");
		struct sh_part pt = {.kind = SHP_PROCSUB, .dir = (char)c, .sub = sub};
		ARENA_PUSH(p->a, t->w.p, t->w.n, t->w.cap, pt);
		if (peekc(p, 0) >= 0 && !is_meta(peekc(p, 0)))
			lex_parts(p, &t->w, M_UNQ, 0);
	} else {
		lex_parts(p, &t->w, M_UNQ, 0);
	}
	t->w.end = p->i;
	t->end = p->i;
	if (t->w.n == 0) /* only line continuations: nothing */
		lex(p, t);
}

/*==== grammar ====*/

int shparse_word_is(const struct sh_word *w, const char *lit)
{
	return w->n == 1 && w->p[0].kind == SHP_LIT && !w->p[0].quoted && w->p[0].n == strlen(lit) &&
	       memcmp(w->p[0].s, lit, w->p[0].n) == 0;
}

int shparse_word_literal(struct arena *a, const struct sh_word *w, char **text)
{
	size_t len = 0;
	int ok = 1;
	for (size_t k = 0; k < w->n; k++) {
		if (w->p[k].kind == SHP_LIT)
			len += w->p[k].n;
		else
			ok = 0;
	}
	char *s = arena_alloc(a, len + 1);
	size_t o = 0;
	for (size_t k = 0; k < w->n; k++) {
		if (w->p[k].kind == SHP_LIT) {
			memcpy(s + o, w->p[k].s, w->p[k].n);
			o += w->p[k].n;
		}
	}
	s[o] = '\0';
	if (text)
		*text = s;
	return ok;
}

static int word_quoted_anywhere(const struct sh_word *w)
{
	for (size_t k = 0; k < w->n; k++)
		if (w->p[k].quoted)
			return 1;
	return 0;
}

static struct sh_node *new_node(struct shp *p, enum sh_kind k, size_t off)
{
	struct sh_node *n = arena_zalloc(p->a, sizeof *n);
	n->kind = k;
	n->src = p->s;
	n->off = off;
	return n;
}

static void add_kid(struct shp *p, struct sh_node *n, struct sh_node *kid)
{
	ARENA_PUSH(p->a, n->kids, n->nkids, n->capkids, kid);
}

static int tok_is_word(struct shp *p, const char *lit)
{
	struct tok *t = peek(p);
	return t->t == T_WORD && shparse_word_is(&t->w, lit);
}

static int at_list_end(struct shp *p)
{
	static const char *const stops[] = {"then", "else", "elif", "fi", "do", "done", "esac", "}", NULL};
	struct tok *t = peek(p);
	if (t->t == T_EOF || t->t == T_RPAREN || t->t == T_DSEMI)
		return 1;
	if (t->t == T_WORD)
		for (int k = 0; stops[k]; k++)
			if (shparse_word_is(&t->w, stops[k]))
				return 1;
	return 0;
}

static void skip_newlines(struct shp *p)
{
	while (peek(p)->t == T_NL)
		consume(p);
}

static const char *tok_name(const struct tok *t)
{
	switch (t->t) {
	case T_EOF:
		return "end of input";
	case T_WORD:
		return "word";
	case T_NL:
		return "newline";
	case T_SEMI:
		return "';'";
	case T_AMP:
		return "'&'";
	case T_ANDIF:
		return "'&&'";
	case T_ORIF:
		return "'||'";
	case T_PIPE:
		return "'|'";
	case T_PIPEAMP:
		return "'|&'";
	case T_LPAREN:
		return "'('";
	case T_RPAREN:
		return "')'";
	case T_DSEMI:
		return "';;'";
	case T_REDIR:
		return "redirection";
	}
	return "token";
}

static void expect_word(struct shp *p, const char *lit, const char *ctx)
{
	struct tok *t = peek(p);
	if (!(t->t == T_WORD && shparse_word_is(&t->w, lit)))
		fail(p, 0, "expected '%s' %s, found %s", lit, ctx, tok_name(t));
	consume(p);
}

static void parse_redir(struct shp *p, struct sh_redir **arr, size_t *n, size_t *cap)
{
	struct tok rt = *peek(p);
	consume(p);
	struct tok *t = peek(p);
	if (t->t != T_WORD)
		fail(p, 0, "redirection without a target (found %s)", tok_name(t));
	struct sh_redir r = {0};
	r.op = rt.rop;
	r.fd = rt.fd;
	r.target = t->w;
	r.src = p->s;
	r.off = rt.off;
	r.end = t->end;
	consume(p);
	if (r.op == SHR_DUPOUT || r.op == SHR_DUPIN) {
		char *txt;
		if (shparse_word_literal(p->a, &r.target, &txt)) {
			int numeric = *txt != '\0';
			for (char *q = txt; *q; q++)
				if (!isdigit((unsigned char)*q) && !(q[0] == '-' && q[1] == '\0' && q != txt - 1))
					numeric = 0;
			if (strcmp(txt, "-") == 0)
				numeric = 1;
			size_t tl = strlen(txt);
			if (tl > 1 && txt[tl - 1] == '-') { /* 3>&1- moves the descriptor */
				numeric = 1;
				for (size_t q = 0; q + 1 < tl; q++)
					if (!isdigit((unsigned char)txt[q]))
						numeric = 0;
			}
			if (!numeric && r.op == SHR_DUPOUT && r.fd < 0)
				r.op = SHR_ALL; /* >&file is &>file */
			else if (!numeric)
				r.op = r.op == SHR_DUPOUT ? SHR_OUT : SHR_IN;
		}
	}
	if (r.op == SHR_HEREDOC) {
		if (p->npend >= MAX_PENDING_HEREDOCS)
			fail(p, 1, "more than %d pending here-documents", MAX_PENDING_HEREDOCS);
		r.hd = arena_zalloc(p->a, sizeof *r.hd);
		r.hd->literal = (unsigned char)word_quoted_anywhere(&r.target);
		r.hd->strip_tabs = (unsigned char)rt.strip_tabs;
		p->pend[p->npend].hd = r.hd;
		p->pend[p->npend].delim = r.target;
		p->npend++;
	}
	ARENA_PUSH(p->a, *arr, *n, *cap, r);
}

static void parse_redirs_after(struct shp *p, struct sh_node *n)
{
	while (peek(p)->t == T_REDIR)
		parse_redir(p, &n->redirs, &n->nredirs, &n->capredirs);
}

static int is_assignment(const struct sh_word *w)
{
	if (w->n == 0 || w->p[0].kind != SHP_LIT || w->p[0].quoted)
		return 0;
	const char *s = w->p[0].s;
	size_t n = w->p[0].n, k = 0;
	if (!n || !is_name_start((unsigned char)s[0]))
		return 0;
	while (k < n && is_name_char((unsigned char)s[k]))
		k++;
	if (k < n && s[k] == '[') {
		while (k < n && s[k] != ']')
			k++;
		if (k >= n)
			return 0;
		k++;
	}
	if (k < n && s[k] == '+')
		k++;
	return k < n && s[k] == '=';
}

static struct sh_node *parse_command(struct shp *p);
static struct sh_node *parse_and_or(struct shp *p);

static struct sh_node *parse_compound_list_until(struct shp *p, const char *end, const char *ctx)
{
	struct sh_node *body = parse_list(p);
	expect_word(p, end, ctx);
	return body;
}

/* (( expr )) at p->i pointing after the first '(' token with the second '(' next. */
static struct sh_word *arith_command_body(struct shp *p)
{
	/* p->i points at the second '(' */
	p->i++;
	enter(p);
	struct sh_word *aw = new_word(p);
	lex_parts(p, aw, M_ARITH, 1);
	aw->end = p->i;
	if (peekc(p, 0) != ')' || peekc(p, 1) != ')')
		fail(p, 0, "unterminated (( )) arithmetic");
	p->i += 2;
	leave(p);
	return aw;
}

static int arith_command_ahead(struct shp *p)
{
	/* The lookahead is '(' and the raw next char is '(': arithmetic when the matching close
	 * is "))". */
	if (peekc(p, 0) != '(')
		return 0;
	size_t save = p->i;
	p->i++;
	int r = looks_arith(p);
	p->i = save;
	return r;
}

static struct sh_node *parse_simple(struct shp *p)
{
	struct tok *t = peek(p);
	struct sh_node *n = new_node(p, SH_SIMPLE, t->off);
	size_t last_end = t->off;
	for (;;) {
		t = peek(p);
		if (t->t == T_REDIR) {
			parse_redir(p, &n->redirs, &n->nredirs, &n->capredirs);
			last_end = n->redirs[n->nredirs - 1].end;
			continue;
		}
		if (t->t != T_WORD)
			break;
		struct sh_word w = t->w;
		size_t wend = t->end;
		last_end = wend;
		if (n->nwords == 0 && is_assignment(&w)) {
			consume(p);
			if (peekc(p, 0) == '(' && wend == p->i && w.p[w.n - 1].kind == SHP_LIT && w.p[w.n - 1].n &&
			    w.p[w.n - 1].s[w.p[w.n - 1].n - 1] == '=') {
				/* NAME=( elements ): the value is an array; keep element words so their
				 * substitutions are seen, mark the value unknown */
				struct tok *lp = peek(p);
				consume(p);
				(void)lp;
				for (;;) {
					struct tok *e = peek(p);
					if (e->t == T_NL) {
						consume(p);
						continue;
					}
					if (e->t == T_RPAREN) {
						consume(p);
						break;
					}
					if (e->t != T_WORD)
						fail(p, 0, "bad array assignment");
					ARENA_PUSH(p->a, w.elems, w.nelems, w.capelems, e->w);
					consume(p);
				}
				struct sh_part unk = {.kind = SHP_ARITH, .quoted = 1};
				ARENA_PUSH(p->a, w.p, w.n, w.cap, unk);
			}
			ARENA_PUSH(p->a, n->assigns, n->nassigns, n->capassigns, w);
			continue;
		}
		consume(p);
		if (n->nwords == 0 && n->nassigns == 0 && peek(p)->t == T_LPAREN) {
			/* name ( ) compound-command: a function definition */
			char *fname;
			if (!shparse_word_literal(p->a, &w, &fname))
				fail(p, 0, "bad function name");
			consume(p);
			if (peek(p)->t != T_RPAREN)
				fail(p, 0, "expected ')' in function definition");
			consume(p);
			skip_newlines(p);
			struct sh_node *f = new_node(p, SH_FUNC, n->off);
			f->name = fname;
			add_kid(p, f, parse_command(p));
			f->end = p->i;
			return f;
		}
		ARENA_PUSH(p->a, n->words, n->nwords, n->capwords, w);
	}
	if (n->nwords == 0 && n->nassigns == 0 && n->nredirs == 0)
		fail(p, 0, "expected a command, found %s", tok_name(peek(p)));
	n->end = last_end;
	return n;
}

static struct sh_node *parse_for(struct shp *p, size_t off)
{
	struct sh_node *n = new_node(p, SH_FOR, off);
	struct tok *t = peek(p);
	if (t->t == T_LPAREN && arith_command_ahead(p)) {
		/* for (( init; cond; step )) */
		consume(p);
		struct sh_node *a = new_node(p, SH_ARITHCMD, off);
		struct sh_word *aw = arith_command_body(p);
		ARENA_PUSH(p->a, a->words, a->nwords, a->capwords, *aw);
		n->kind = SH_WHILE;
		add_kid(p, n, a);
		t = peek(p);
		if (t->t == T_SEMI || t->t == T_NL)
			consume(p);
		skip_newlines(p);
		expect_word(p, "do", "after for (( ))");
		add_kid(p, n, parse_compound_list_until(p, "done", "to close the for loop"));
		n->end = p->i;
		return n;
	}
	if (t->t != T_WORD)
		fail(p, 0, "expected a variable name after 'for'");
	char *name;
	if (!shparse_word_literal(p->a, &t->w, &name) || !is_name_start((unsigned char)name[0]))
		fail(p, 0, "bad for-loop variable");
	n->name = name;
	consume(p);
	skip_newlines(p);
	if (tok_is_word(p, "in")) {
		consume(p);
		n->has_in = 1;
		for (;;) {
			t = peek(p);
			if (t->t != T_WORD)
				break;
			ARENA_PUSH(p->a, n->words, n->nwords, n->capwords, t->w);
			consume(p);
		}
		t = peek(p);
		if (t->t == T_SEMI || t->t == T_NL)
			consume(p);
		else
			fail(p, 0, "expected ';' or newline after the for-loop word list");
	} else if (peek(p)->t == T_SEMI) {
		consume(p);
	}
	skip_newlines(p);
	if (tok_is_word(p, "{")) {
		consume(p);
		add_kid(p, n, parse_compound_list_until(p, "}", "to close the for body"));
	} else {
		expect_word(p, "do", "in the for loop");
		add_kid(p, n, parse_compound_list_until(p, "done", "to close the for loop"));
	}
	n->end = p->i;
	return n;
}

static struct sh_node *parse_case(struct shp *p, size_t off)
{
	struct sh_node *n = new_node(p, SH_CASE, off);
	struct tok *t = peek(p);
	if (t->t != T_WORD)
		fail(p, 0, "expected a word after 'case'");
	ARENA_PUSH(p->a, n->words, n->nwords, n->capwords, t->w);
	consume(p);
	skip_newlines(p);
	expect_word(p, "in", "after the case word");
	skip_newlines(p);
	for (;;) {
		if (tok_is_word(p, "esac")) {
			consume(p);
			break;
		}
		t = peek(p);
		if (t->t == T_LPAREN) {
			consume(p);
			t = peek(p);
		}
		for (;;) {
			if (t->t != T_WORD)
				fail(p, 0, "expected a case pattern, found %s", tok_name(t));
			ARENA_PUSH(p->a, n->words, n->nwords, n->capwords, t->w);
			consume(p);
			t = peek(p);
			if (t->t == T_PIPE) {
				consume(p);
				t = peek(p);
				continue;
			}
			break;
		}
		if (t->t != T_RPAREN)
			fail(p, 0, "expected ')' after a case pattern");
		consume(p);
		add_kid(p, n, parse_list(p));
		t = peek(p);
		if (t->t == T_DSEMI) {
			consume(p);
			skip_newlines(p);
			continue;
		}
		if (tok_is_word(p, "esac")) {
			consume(p);
			break;
		}
		fail(p, 0, "expected ';;' or 'esac' in case, found %s", tok_name(t));
	}
	n->end = p->i;
	return n;
}

static struct sh_node *parse_command(struct shp *p)
{
	enter(p);
	struct tok *t = peek(p);
	size_t off = t->off;
	struct sh_node *n = NULL;
	if (t->t == T_LPAREN) {
		if (arith_command_ahead(p)) {
			consume(p);
			n = new_node(p, SH_ARITHCMD, off);
			struct sh_word *aw = arith_command_body(p);
			ARENA_PUSH(p->a, n->words, n->nwords, n->capwords, *aw);
		} else {
			consume(p);
			n = new_node(p, SH_SUBSHELL, off);
			add_kid(p, n, parse_list(p));
			if (peek(p)->t != T_RPAREN)
				fail(p, 0, "expected ')' to close the subshell, found %s", tok_name(peek(p)));
			consume(p);
		}
	} else if (t->t == T_WORD && shparse_word_is(&t->w, "{")) {
		consume(p);
		n = new_node(p, SH_GROUP, off);
		add_kid(p, n, parse_compound_list_until(p, "}", "to close the { group"));
	} else if (t->t == T_WORD && shparse_word_is(&t->w, "if")) {
		consume(p);
		n = new_node(p, SH_IF, off);
		add_kid(p, n, parse_compound_list_until(p, "then", "after the if condition"));
		add_kid(p, n, parse_list(p));
		for (;;) {
			if (tok_is_word(p, "elif")) {
				consume(p);
				add_kid(p, n, parse_compound_list_until(p, "then", "after the elif condition"));
				add_kid(p, n, parse_list(p));
				continue;
			}
			if (tok_is_word(p, "else")) {
				consume(p);
				add_kid(p, n, parse_list(p));
			}
			expect_word(p, "fi", "to close the if");
			break;
		}
	} else if (t->t == T_WORD && (shparse_word_is(&t->w, "while") || shparse_word_is(&t->w, "until"))) {
		int until = shparse_word_is(&t->w, "until");
		consume(p);
		n = new_node(p, until ? SH_UNTIL : SH_WHILE, off);
		add_kid(p, n, parse_compound_list_until(p, "do", "after the loop condition"));
		add_kid(p, n, parse_compound_list_until(p, "done", "to close the loop"));
	} else if (t->t == T_WORD && (shparse_word_is(&t->w, "for") || shparse_word_is(&t->w, "select"))) {
		consume(p);
		n = parse_for(p, off);
	} else if (t->t == T_WORD && shparse_word_is(&t->w, "case")) {
		consume(p);
		n = parse_case(p, off);
	} else if (t->t == T_WORD && shparse_word_is(&t->w, "function")) {
		consume(p);
		t = peek(p);
		char *fname;
		if (t->t != T_WORD || !shparse_word_literal(p->a, &t->w, &fname))
			fail(p, 0, "expected a function name after 'function'");
		consume(p);
		if (peek(p)->t == T_LPAREN) {
			consume(p);
			if (peek(p)->t != T_RPAREN)
				fail(p, 0, "expected ')' in function definition");
			consume(p);
		}
		skip_newlines(p);
		n = new_node(p, SH_FUNC, off);
		n->name = fname;
		add_kid(p, n, parse_command(p));
		n->end = p->i;
		leave(p);
		return n;
	} else if (t->t == T_WORD && shparse_word_is(&t->w, "[[")) {
		consume(p);
		n = new_node(p, SH_COND, off);
		for (;;) {
			t = peek(p);
			if (t->t == T_EOF)
				fail(p, 0, "unterminated [[ ... ]]");
			if (t->t == T_WORD && shparse_word_is(&t->w, "]]")) {
				consume(p);
				break;
			}
			if (t->t == T_WORD)
				ARENA_PUSH(p->a, n->words, n->nwords, n->capwords, t->w);
			consume(p);
		}
	} else if (t->t == T_WORD && shparse_word_is(&t->w, "coproc")) {
		consume(p);
		n = new_node(p, SH_COPROC, off);
		t = peek(p);
		/* coproc NAME { ...; } : a name before a compound command */
		if (t->t == T_WORD && !shparse_word_is(&t->w, "{") && !shparse_word_is(&t->w, "(")) {
			struct tok save = *t;
			size_t savei = p->i;
			consume(p);
			struct tok *t2 = peek(p);
			if (!(t2->t == T_WORD && shparse_word_is(&t2->w, "{")) && t2->t != T_LPAREN) {
				/* not a name: re-read as a simple command */
				p->i = savei;
				p->la = save;
				p->has_la = 1;
			}
		}
		add_kid(p, n, parse_command(p));
	} else {
		n = parse_simple(p);
		leave(p);
		return n;
	}
	parse_redirs_after(p, n);
	n->end = p->i;
	leave(p);
	return n;
}

static struct sh_node *parse_pipeline(struct shp *p)
{
	struct tok *t = peek(p);
	size_t off = t->off;
	int negate = 0, timed = 0;
	for (;;) {
		t = peek(p);
		if (t->t == T_WORD && shparse_word_is(&t->w, "!")) {
			consume(p);
			negate = !negate;
			continue;
		}
		if (t->t == T_WORD && shparse_word_is(&t->w, "time")) {
			consume(p);
			timed = 1;
			if (tok_is_word(p, "-p"))
				consume(p);
			continue;
		}
		break;
	}
	struct sh_node *first = parse_command(p);
	struct sh_node *n = first;
	if (peek(p)->t == T_PIPE || peek(p)->t == T_PIPEAMP) {
		n = new_node(p, SH_PIPE, off);
		add_kid(p, n, first);
		while (peek(p)->t == T_PIPE || peek(p)->t == T_PIPEAMP) {
			consume(p);
			skip_newlines(p);
			add_kid(p, n, parse_command(p));
		}
		n->end = p->i;
	}
	n->timed = (unsigned char)(n->timed | timed);
	if (negate) {
		struct sh_node *nn = new_node(p, SH_NOT, off);
		add_kid(p, nn, n);
		nn->end = p->i;
		n = nn;
	}
	return n;
}

static struct sh_node *parse_and_or(struct shp *p)
{
	size_t off = peek(p)->off;
	struct sh_node *left = parse_pipeline(p);
	for (;;) {
		struct tok *t = peek(p);
		if (t->t != T_ANDIF && t->t != T_ORIF)
			break;
		enum sh_kind k = t->t == T_ANDIF ? SH_AND : SH_OR;
		consume(p);
		skip_newlines(p);
		struct sh_node *n = new_node(p, k, off);
		add_kid(p, n, left);
		add_kid(p, n, parse_pipeline(p));
		n->end = p->i;
		left = n;
	}
	return left;
}

static struct sh_node *parse_list(struct shp *p)
{
	enter(p);
	struct sh_node *seq = new_node(p, SH_SEQ, p->i);
	for (;;) {
		skip_newlines(p);
		if (at_list_end(p))
			break;
		struct tok *t = peek(p);
		if (t->t != T_WORD && t->t != T_REDIR && t->t != T_LPAREN)
			fail(p, 0, "unexpected %s", tok_name(t));
		struct sh_node *n = parse_and_or(p);
		t = peek(p);
		if (t->t == T_AMP) {
			consume(p);
			struct sh_node *bg = new_node(p, SH_BG, n->off);
			add_kid(p, bg, n);
			bg->end = p->i;
			n = bg;
			add_kid(p, seq, n);
			continue;
		}
		add_kid(p, seq, n);
		if (t->t == T_SEMI || t->t == T_NL) {
			consume(p);
			continue;
		}
		break;
	}
	seq->end = p->i;
	leave(p);
	return seq;
}

int shparse_program(struct arena *a, const char *s, size_t n, const struct shparse_limits *lim, struct sh_node **out,
		    struct shparse_error *pe)
{
	jmp_buf jb;
	int depth = 0;
	struct shp p;
	memset(&p, 0, sizeof p);
	p.a = a;
	p.s = s;
	p.n = n;
	p.lim = lim;
	p.depth = &depth;
	p.pe = pe;
	p.jb = &jb;
	memset(pe, 0, sizeof *pe);
	*out = NULL;
	if (n > lim->max_input) {
		snprintf(pe->msg, sizeof pe->msg, "input of %zu bytes exceeds the %zu-byte limit", n, lim->max_input);
		pe->too_deep = 1;
		return BELAY_EINVAL;
	}
	if (memchr(s, '\0', n)) {
		snprintf(pe->msg, sizeof pe->msg, "NUL byte in the command");
		return BELAY_EINVAL;
	}
	if (setjmp(jb))
		return BELAY_EINVAL;
	struct sh_node *prog = parse_list(&p);
	struct tok *t = peek(&p);
	if (t->t != T_EOF)
		fail(&p, 0, "unexpected %s", tok_name(t));
	*out = prog;
	return 0;
}

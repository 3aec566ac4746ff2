/* jsonview.c - indented, coloured, foldable JSON (see jsonview.h).
 *
 * Must not: change the JSON it shows (numbers and strings are printed by cJSON from the
 * parsed value; the raw tab shows the bytes as they were). */
#include "tui/jsonview.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "tui/glyphs.h"

#define FOLD_DEPTH 3
#define FOLD_STRING 240

void jfold_free(struct jfold *f)
{
	free(f->state);
	f->state = NULL;
	f->n = 0;
}

static unsigned char fold_state(struct jfold *f, int node)
{
	return (size_t)node < f->n ? f->state[node] : 0;
}

static void set_state(struct jfold *f, int node, unsigned char v)
{
	if ((size_t)node >= f->n) {
		size_t n = (size_t)node + 64;
		f->state = xrealloc(f->state, n);
		memset(f->state + f->n, 0, n - f->n);
		f->n = n;
	}
	f->state[node] = v;
}

static int is_folded(struct jfold *f, const cJSON *v, int node, int depth)
{
	unsigned char s = fold_state(f, node);
	if (s)
		return s == 1;
	if (cJSON_IsString(v))
		return strlen(v->valuestring) > FOLD_STRING;
	return (cJSON_IsObject(v) || cJSON_IsArray(v)) && depth > FOLD_DEPTH && v->child;
}

static void indent(struct tdoc *d, int depth)
{
	static const char sp[] = "                                                                ";
	int n = depth * 2;
	if (n > (int)sizeof sp - 1)
		n = (int)sizeof sp - 1;
	if (n)
		tdoc_addn(d, ROLE_JSON_PUNCT, sp, (size_t)n);
}

static void scalar(struct tdoc *d, const cJSON *v, int folded)
{
	if (cJSON_IsString(v)) {
		if (folded) {
			/* The start of the string, escaped, and how much is hidden. */
			cJSON *head = cJSON_CreateString("");
			size_t n = strlen(v->valuestring), cut = 60;
			while (cut > 0 && ((unsigned char)v->valuestring[cut] & 0xC0) == 0x80)
				cut--;
			char *part = xstrndup(v->valuestring, cut);
			cJSON_SetValuestring(head, part);
			char *s = cJSON_PrintUnformatted(head);
			size_t sl = strlen(s);
			tdoc_addn(d, ROLE_JSON_STRING, s, sl > 1 ? sl - 1 : sl); /* without the closing quote */
			tdoc_addf(d, ROLE_JSON_PUNCT, "%s\" (%zu bytes)", glyph(G_ELLIPSIS), n);
			cJSON_free(s);
			free(part);
			cJSON_Delete(head);
			return;
		}
		char *s = cJSON_PrintUnformatted(v);
		tdoc_add(d, ROLE_JSON_STRING, s);
		cJSON_free(s);
	} else if (cJSON_IsNumber(v)) {
		char *s = cJSON_PrintUnformatted(v);
		tdoc_add(d, ROLE_JSON_NUMBER, s);
		cJSON_free(s);
	} else if (cJSON_IsTrue(v)) {
		tdoc_add(d, ROLE_JSON_LITERAL, "true");
	} else if (cJSON_IsFalse(v)) {
		tdoc_add(d, ROLE_JSON_LITERAL, "false");
	} else {
		tdoc_add(d, ROLE_JSON_LITERAL, "null");
	}
}

static int descendants(const cJSON *v)
{
	int n = 0;
	if (cJSON_IsObject(v) || cJSON_IsArray(v))
		for (const cJSON *c = v->child; c; c = c->next)
			n += 1 + descendants(c);
	return n;
}

/* Renders v (whose line has been started, key included); returns the next node number. */
static int render(struct tdoc *d, const cJSON *v, struct jfold *f, int node, int depth, int comma)
{
	int folded = is_folded(f, v, node, depth);
	d->lines[d->n - 1].tag = node;
	int next = node + 1;
	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		int obj = cJSON_IsObject(v);
		int count = cJSON_GetArraySize(v);
		if (!v->child) {
			tdoc_add(d, ROLE_JSON_PUNCT, obj ? "{}" : "[]");
		} else if (folded) {
			tdoc_addf(d, ROLE_JSON_PUNCT, "%c%s%c", obj ? '{' : '[', glyph(G_ELLIPSIS), obj ? '}' : ']');
			tdoc_addf(d, ROLE_DIM, " %d %s", count, obj ? (count == 1 ? "key" : "keys") : (count == 1 ? "item" : "items"));
			/* Skip the hidden descendants' numbers so numbering stays stable. */
			next += descendants(v);
		} else {
			tdoc_add(d, ROLE_JSON_PUNCT, obj ? "{" : "[");
			for (const cJSON *c = v->child; c; c = c->next) {
				tdoc_nl(d);
				indent(d, depth + 1);
				if (obj) {
					cJSON *k = cJSON_CreateString(c->string ? c->string : "");
					char *ks = cJSON_PrintUnformatted(k);
					tdoc_add(d, ROLE_JSON_KEY, ks);
					tdoc_add(d, ROLE_JSON_PUNCT, ": ");
					cJSON_free(ks);
					cJSON_Delete(k);
				}
				next = render(d, c, f, next, depth + 1, c->next != NULL);
			}
			tdoc_nl(d);
			indent(d, depth);
			tdoc_add(d, ROLE_JSON_PUNCT, obj ? "}" : "]");
		}
	} else {
		scalar(d, v, folded);
	}
	if (comma)
		tdoc_add(d, ROLE_JSON_PUNCT, ",");
	return next;
}

void jsonview_render(struct tdoc *d, const cJSON *root, struct jfold *f)
{
	tdoc_nl(d);
	if (!root) {
		tdoc_add(d, ROLE_DIM, "(nothing)");
		return;
	}
	render(d, root, f, 0, 0, 0);
}

/* The node numbered `node` in document order, with its depth. */
static const cJSON *find(const cJSON *v, int *counter, int node, int depth, int *depth_out)
{
	if (*counter == node) {
		*depth_out = depth;
		return v;
	}
	(*counter)++;
	if (cJSON_IsObject(v) || cJSON_IsArray(v))
		for (const cJSON *c = v->child; c; c = c->next) {
			const cJSON *r = find(c, counter, node, depth + 1, depth_out);
			if (r)
				return r;
		}
	return NULL;
}

int jsonview_toggle(struct jfold *f, const cJSON *root, int node)
{
	if (!root || node < 0)
		return -1;
	int counter = 0, depth = 0;
	const cJSON *v = find(root, &counter, node, 0, &depth);
	if (!v)
		return -1;
	int foldable = ((cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child) ||
		       (cJSON_IsString(v) && strlen(v->valuestring) > FOLD_STRING);
	if (!foldable)
		return -1;
	set_state(f, node, is_folded(f, v, node, depth) ? 2 : 1);
	return 0;
}

struct unfold {
	struct jfold *f;
	int (*match)(void *arg, const char *text, size_t n);
	void *arg;
	int counter, unfolded;
	struct buf line; /* a member's line, reused */
};

/* Whether the member shows a match: its key (key != NULL) and its value as its line shows
 * them (`"key": value`, a container's value as its opening bracket). */
/* Appends s as a JSON string, as the view prints it (cJSON's printing for a string that
 * needs escaping; as it is, in quotes, for one that does not: most of them). */
static void put_string(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p >= 0x20 && *p != '"' && *p != '\\' && *p != 0x7f)
		p++;
	if (!*p) {
		buf_putc(b, '"');
		buf_append(b, s, (size_t)(p - (const unsigned char *)s));
		buf_putc(b, '"');
		return;
	}
	cJSON *k = cJSON_CreateString(s);
	char *t = cJSON_PrintUnformatted(k);
	buf_puts(b, t ? t : "");
	cJSON_free(t);
	cJSON_Delete(k);
}

static int printed_match(struct unfold *u, const char *key, const cJSON *v)
{
	struct buf *b = &u->line;
	buf_reset(b);
	if (key) {
		put_string(b, key);
		buf_puts(b, ": ");
	}
	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		buf_puts(b, cJSON_IsObject(v) ? "{" : "[");
	} else if (cJSON_IsString(v)) {
		put_string(b, v->valuestring);
	} else {
		char *s = cJSON_PrintUnformatted(v);
		buf_puts(b, s ? s : "");
		cJSON_free(s);
	}
	return u->match(u->arg, b->p ? b->p : "", b->len);
}

/* Whether v (node u->counter, at depth; self: its own line matches) or anything in it
 * matches; unfolds as it goes. */
static int unfold_walk(struct unfold *u, const cJSON *v, int depth, int self)
{
	int node = u->counter++;
	int hit = self;
	if (cJSON_IsObject(v) || cJSON_IsArray(v))
		for (const cJSON *c = v->child; c; c = c->next)
			hit |= unfold_walk(u, c, depth + 1, printed_match(u, cJSON_IsObject(v) ? c->string ? c->string : "" : NULL, c));
	if (hit && is_folded(u->f, v, node, depth)) {
		set_state(u->f, node, 2);
		u->unfolded++;
	}
	return hit;
}

int jsonview_unfold_where(struct jfold *f, const cJSON *root, int (*match)(void *arg, const char *text, size_t n),
			  void *arg)
{
	if (!root)
		return 0;
	struct unfold u = {f, match, arg, 0, 0, {0}};
	unfold_walk(&u, root, 0, 0);
	buf_free(&u.line);
	return u.unfolded;
}

/* Whether s (after blanks) starts a JSON object or array. */
static int looks_like_json(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return *s == '{' || *s == '[';
}

struct parsed {
	const cJSON **v;
	size_t n, cap;
};

static int parse_in(cJSON *root, struct parsed *p)
{
	int n = 0;
	if (!root || !(cJSON_IsObject(root) || cJSON_IsArray(root)))
		return 0;
	for (cJSON *c = root->child, *next; c; c = next) {
		next = c->next;
		if (cJSON_IsString(c) && looks_like_json(c->valuestring)) {
			cJSON *v = cJSON_Parse(c->valuestring);
			if (v && (cJSON_IsObject(v) || cJSON_IsArray(v))) {
				n += 1 + parse_in(v, p);
				if (cJSON_IsObject(root) && c->string)
					cJSON_ReplaceItemInObjectCaseSensitive(root, c->string, v); /* keeps the key */
				else
					cJSON_ReplaceItemViaPointer(root, c, v);
				if (p->n == p->cap) {
					p->cap = p->cap ? p->cap * 2 : 16;
					p->v = xrealloc(p->v, p->cap * sizeof *p->v);
				}
				p->v[p->n++] = v;
			} else {
				cJSON_Delete(v);
			}
		} else {
			n += parse_in(c, p);
		}
	}
	return n;
}

/* Unfolds each parsed value, FOLD_DEPTH levels of what is in it (as if it were a document
 * of its own), and what is around it (node numbers as render gives them); open: the levels
 * still to unfold below a parsed value. */
static int open_parsed(const cJSON *v, struct jfold *f, const struct parsed *p, int *counter, int open)
{
	int node = (*counter)++, hit = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i] == v)
			hit = 1, open = FOLD_DEPTH + 1;
	if (cJSON_IsObject(v) || cJSON_IsArray(v))
		for (const cJSON *c = v->child; c; c = c->next)
			hit |= open_parsed(c, f, p, counter, open > 0 ? open - 1 : 0);
	if ((hit || open > 0) && (cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child)
		set_state(f, node, 2);
	return hit;
}

int jsonview_parse_strings(cJSON *root, struct jfold *f)
{
	struct parsed p = {0};
	int n = parse_in(root, &p);
	int counter = 0;
	if (n && f)
		open_parsed(root, f, &p, &counter, 0);
	free(p.v);
	return n;
}

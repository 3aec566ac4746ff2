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

/* Where the build of the index stands: the containers being walked, each with the next of
 * its members to visit (a build goes on a step at a time, while the console is idle). */
struct ixframe {
	const cJSON *next;
	int node, depth, obj;
};

struct jindex {
	const cJSON *root;
	size_t n;            /* nodes */
	const cJSON **v;     /* per node */
	int *parent;         /* -1 for the root */
	unsigned short *depth;
	size_t *off;         /* where each node's line starts in text; off[n] = len (when done) */
	char *text, *lower;  /* lower: as far as text was when the last step ended */
	size_t len;
	int done;
	size_t cap, lcap;
	struct buf b;        /* text while it is built */
	struct ixframe *st;
	size_t sp, scap;
};

static void jindex_free(struct jindex *ix)
{
	if (!ix)
		return;
	free(ix->v);
	free(ix->parent);
	free(ix->depth);
	free(ix->off);
	free(ix->text);
	free(ix->lower);
	buf_free(&ix->b);
	free(ix->st);
	free(ix);
}

void jfold_free(struct jfold *f)
{
	free(f->state);
	free(f->shown);
	free(f->dirty);
	free(f->span);
	jindex_free(f->ix);
	memset(f, 0, sizeof *f);
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
	if (f->state[node] != v) {
		if (f->ndirty == f->capdirty) {
			f->capdirty = f->capdirty ? f->capdirty * 2 : 16;
			f->dirty = xrealloc(f->dirty, f->capdirty * sizeof *f->dirty);
		}
		f->dirty[f->ndirty++] = node;
	}
	f->state[node] = v;
}

static void set_shown(struct jfold *f, int node, int folded)
{
	if ((size_t)node >= f->nshown) {
		size_t n = (size_t)node + 1024;
		f->shown = xrealloc(f->shown, n);
		memset(f->shown + f->nshown, 0, n - f->nshown);
		f->nshown = n;
	}
	f->shown[node] = (unsigned char)folded;
}

static int was_folded(const struct jfold *f, int node)
{
	return (size_t)node < f->nshown && f->shown[node];
}

/* Fills f->span for v (node) and all below it; returns v's span. */
static int fill_span(struct jfold *f, const cJSON *v, int node)
{
	int span = 1;
	if (cJSON_IsObject(v) || cJSON_IsArray(v))
		for (const cJSON *c = v->child; c; c = c->next)
			span += fill_span(f, c, node + span);
	if ((size_t)node >= f->nspan) {
		size_t n = ((size_t)node + 1) * 2;
		f->span = xrealloc(f->span, n * sizeof *f->span);
		f->nspan = n;
	}
	f->span[node] = span;
	return span;
}

static void ensure_spans(struct jfold *f, const cJSON *root)
{
	if (f->span && f->span_root == root)
		return;
	fill_span(f, root, 0);
	f->span_root = root;
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

/* n in decimal into t (16 bytes; no NUL); its length. */
static size_t int_text(char *t, int n)
{
	char r[16];
	size_t k = 0, len = 0;
	unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n;
	do
		r[k++] = (char)('0' + u % 10);
	while (u /= 10);
	if (n < 0)
		t[len++] = '-';
	while (k)
		t[len++] = r[--k];
	return len;
}

/* Whether s prints as itself in quotes (nothing to escape). */
static int plain_string(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p && *p >= 0x20 && *p != '"' && *p != '\\' && *p != 0x7f)
		p++;
	*len = (size_t)(p - (const unsigned char *)s);
	return !*p;
}

/* Adds s, quoted and escaped as cJSON prints it, in role r; then tail (may be ""). */
static void add_string(struct tdoc *d, enum role r, const char *s, const char *tail)
{
	size_t n;
	char small[256];
	size_t tl = strlen(tail);
	if (plain_string(s, &n) && n + tl + 3 <= sizeof small) {
		small[0] = '"';
		memcpy(small + 1, s, n);
		small[n + 1] = '"';
		tdoc_addn(d, r, small, n + 2);
		if (tl)
			tdoc_addn(d, ROLE_JSON_PUNCT, tail, tl);
		return;
	}
	cJSON *k = cJSON_CreateString(s);
	char *t = cJSON_PrintUnformatted(k);
	tdoc_add(d, r, t ? t : "");
	if (tl)
		tdoc_addn(d, ROLE_JSON_PUNCT, tail, tl);
	cJSON_free(t);
	cJSON_Delete(k);
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
		add_string(d, ROLE_JSON_STRING, v->valuestring, "");
	} else if (cJSON_IsNumber(v) && v->valuedouble == (double)v->valueint) {
		char t[16];
		tdoc_addn(d, ROLE_JSON_NUMBER, t, int_text(t, v->valueint));
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

static int render(struct tdoc *d, const cJSON *v, struct jfold *f, int node, int depth, int comma);
static struct jindex *index_of(struct jfold *f, const cJSON *root);

/* Starts c's line (in a container, obj: an object) and renders it; returns the next node
 * number. */
static int member(struct tdoc *d, int obj, const cJSON *c, struct jfold *f, int node, int depth)
{
	tdoc_nl(d);
	indent(d, depth);
	if (obj)
		add_string(d, ROLE_JSON_KEY, c->string ? c->string : "", ": ");
	return render(d, c, f, node, depth, c->next != NULL);
}

/* Renders v (whose line has been started, key included); returns the next node number. */
static int render(struct tdoc *d, const cJSON *v, struct jfold *f, int node, int depth, int comma)
{
	int folded = is_folded(f, v, node, depth);
	d->lines[d->n - 1].tag = node;
	set_shown(f, node, folded);
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
			next = node + f->span[node];
		} else {
			tdoc_add(d, ROLE_JSON_PUNCT, obj ? "{" : "[");
			for (const cJSON *c = v->child; c; c = c->next)
				next = member(d, obj, c, f, next, depth + 1);
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
	/* Anew: root may be a tree that was parsed where a freed one was. */
	f->span_root = NULL;
	ensure_spans(f, root);
	f->ndirty = 0;
	render(d, root, f, 0, 0, 0);
	jindex_free(f->ix); /* built again when needed, or ahead while idle (jsonview_prepare) */
	f->ix = NULL;
}

/*==== rendering again what changed ====*/

/* The line that opens node (its tag), or SIZE_MAX when none shows it. Lines with a tag are
 * in node order; the closing brackets between them have none. */
static size_t line_of_node(const struct tdoc *d, int node)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, m = mid;
		while (m < hi && d->lines[m].tag < 0)
			m++;
		if (m == hi) {
			hi = mid;
			continue;
		}
		if (d->lines[m].tag == node)
			return m;
		if (d->lines[m].tag < node)
			lo = m + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

/* The lines node took when it was last rendered (it was shown). */
static size_t old_lines(const struct jfold *f, const cJSON *v, int node)
{
	if (!(cJSON_IsObject(v) || cJSON_IsArray(v)) || !v->child || was_folded(f, node))
		return 1;
	size_t n = 2;
	int c_node = node + 1;
	for (const cJSON *c = v->child; c; c = c->next) {
		n += old_lines(f, c, c_node);
		c_node += f->span[c_node];
	}
	return n;
}

struct upd {
	struct tdoc *d;
	struct jfold *f;
	const int *dirty; /* ascending, no repeats */
	size_t nd, k;
	struct tdoc_piece *p;
	size_t np, capp;
};

/* Walks from v (node, at depth; obj: its parent is an object) towards the changed nodes;
 * each shown one whose fold changed is rendered again into a piece. */
static void upd_walk(struct upd *u, const cJSON *v, int obj, int node, int depth)
{
	struct jfold *f = u->f;
	int end = node + f->span[node];
	if (u->k < u->nd && u->dirty[u->k] == node) {
		u->k++;
		int foldable = ((cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child) || cJSON_IsString(v);
		size_t line;
		if (foldable && is_folded(f, v, node, depth) != was_folded(f, node) &&
		    (line = line_of_node(u->d, node)) != (size_t)-1) {
			size_t removed = old_lines(f, v, node);
			struct tdoc *t = xcalloc(1, sizeof *t);
			tdoc_init(t);
			if (node == 0) {
				tdoc_nl(t);
				render(t, v, f, 0, 0, 0);
			} else {
				member(t, obj, v, f, node, depth);
			}
			if (u->np == u->capp) {
				u->capp = u->capp ? u->capp * 2 : 8;
				u->p = xrealloc(u->p, u->capp * sizeof *u->p);
			}
			u->p[u->np++] = (struct tdoc_piece){.at = line, .removed = removed, .src = t};
			while (u->k < u->nd && u->dirty[u->k] < end) /* rendered with it */
				u->k++;
			return;
		}
	}
	if (!(cJSON_IsObject(v) || cJSON_IsArray(v)))
		return;
	int c_node = node + 1;
	for (const cJSON *c = v->child; c && u->k < u->nd; c = c->next) {
		int c_end = c_node + f->span[c_node];
		if (u->dirty[u->k] < c_end)
			upd_walk(u, c, cJSON_IsObject(v), c_node, depth + 1);
		c_node = c_end;
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int jsonview_update(struct tdoc *d, const cJSON *root, struct jfold *f)
{
	if (!root || !f->ndirty)
		return 0;
	ensure_spans(f, root);
	qsort(f->dirty, f->ndirty, sizeof *f->dirty, cmp_int);
	size_t nd = 0;
	for (size_t i = 0; i < f->ndirty; i++)
		if (!nd || f->dirty[nd - 1] != f->dirty[i])
			f->dirty[nd++] = f->dirty[i];
	struct upd u = {.d = d, .f = f, .dirty = f->dirty, .nd = nd};
	upd_walk(&u, root, 0, 0, 0);
	f->ndirty = 0;
	tdoc_splice(d, u.p, u.np);
	for (size_t i = 0; i < u.np; i++) {
		tdoc_free(u.p[i].src);
		free(u.p[i].src);
	}
	free(u.p);
	return (int)u.np;
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

/*==== finding what folds hide ====*/

/* Appends s as a JSON string, as the view prints it (cJSON's printing for a string that
 * needs escaping; as it is, in quotes, for one that does not: most of them). */
static void put_string(struct buf *b, const char *s)
{
	size_t n;
	if (plain_string(s, &n)) {
		buf_putc(b, '"');
		buf_append(b, s, n);
		buf_putc(b, '"');
		return;
	}
	cJSON *k = cJSON_CreateString(s);
	char *t = cJSON_PrintUnformatted(k);
	buf_puts(b, t ? t : "");
	cJSON_free(t);
	cJSON_Delete(k);
}

/* A member's line as it shows unfolded: its key (key != NULL) and its value (`"key": value`,
 * a container's value as its opening bracket). */
static void put_member(struct buf *b, const char *key, const cJSON *v)
{
	if (key) {
		put_string(b, key);
		buf_puts(b, ": ");
	}
	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		buf_puts(b, cJSON_IsObject(v) ? "{" : "[");
	} else if (cJSON_IsString(v)) {
		put_string(b, v->valuestring);
	} else if (cJSON_IsNumber(v) && v->valuedouble == (double)v->valueint) {
		char t[16];
		buf_append(b, t, int_text(t, v->valueint)); /* as cJSON prints an integer */
	} else {
		char *s = cJSON_PrintUnformatted(v);
		buf_puts(b, s ? s : "");
		cJSON_free(s);
	}
}

/* Adds node v (its key when its container is an object) to the index. */
static int ix_add(struct jindex *ix, const char *key, const cJSON *v, int parent, int depth)
{
	if (ix->n == ix->cap) {
		ix->cap = ix->cap ? ix->cap * 2 : 1024;
		ix->v = xrealloc(ix->v, ix->cap * sizeof *ix->v);
		ix->parent = xrealloc(ix->parent, ix->cap * sizeof *ix->parent);
		ix->depth = xrealloc(ix->depth, ix->cap * sizeof *ix->depth);
		ix->off = xrealloc(ix->off, (ix->cap + 1) * sizeof *ix->off);
	}
	int node = (int)ix->n++;
	ix->v[node] = v;
	ix->parent[node] = parent;
	ix->depth[node] = (unsigned short)(depth > 65535 ? 65535 : depth);
	ix->off[node] = ix->b.len;
	put_member(&ix->b, key, v);
	buf_putc(&ix->b, '\n');
	if ((cJSON_IsObject(v) || cJSON_IsArray(v)) && v->child) {
		if (ix->sp == ix->scap) {
			ix->scap = ix->scap ? ix->scap * 2 : 64;
			ix->st = xrealloc(ix->st, ix->scap * sizeof *ix->st);
		}
		ix->st[ix->sp++] = (struct ixframe){.next = v->child, .node = node, .depth = depth, .obj = cJSON_IsObject(v)};
	}
	return node;
}

/* Goes on with the index's build for up to `nodes` nodes; returns 1 while more remains. */
static int ix_step(struct jindex *ix, size_t nodes)
{
	if (ix->done)
		return 0;
	if (!ix->n)
		ix_add(ix, NULL, ix->root, -1, 0);
	size_t k = 0;
	while (k < nodes && ix->sp) {
		struct ixframe *fr = &ix->st[ix->sp - 1];
		if (!fr->next) { /* this container is done */
			ix->sp--;
			continue;
		}
		const cJSON *v = fr->next;
		fr->next = v->next;
		ix_add(ix, fr->obj ? v->string ? v->string : "" : NULL, v, fr->node, fr->depth + 1);
		k++;
	}
	while (ix->sp && !ix->st[ix->sp - 1].next)
		ix->sp--;
	/* The lower-cased copy follows the text as far as it goes. */
	if (ix->b.len + 1 > ix->lcap) {
		ix->lcap = (ix->b.len + 1) * 2;
		ix->lower = xrealloc(ix->lower, ix->lcap);
	}
	for (size_t i = ix->len; i < ix->b.len; i++) {
		unsigned char c = (unsigned char)ix->b.p[i];
		ix->lower[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	ix->len = ix->b.len;
	ix->lower[ix->len] = '\0';
	if (ix->sp)
		return 1;
	ix->off[ix->n] = ix->len;
	ix->text = ix->b.p ? buf_take(&ix->b) : xstrdup("");
	ix->done = 1;
	return 0;
}

/* The index of root, started when there is none (or it is of another tree); built whole when
 * whole (else as far as it is). */
static struct jindex *index_for(struct jfold *f, const cJSON *root, int whole)
{
	if (!f->ix || f->ix->root != root) {
		jindex_free(f->ix);
		struct jindex *ix = f->ix = xcalloc(1, sizeof *f->ix);
		ix->root = root;
		if (f->span && f->span_root == root) { /* the nodes are known: room for all of them */
			ix->cap = (size_t)f->span[0];
			ix->v = xmalloc(ix->cap * sizeof *ix->v);
			ix->parent = xmalloc(ix->cap * sizeof *ix->parent);
			ix->depth = xmalloc(ix->cap * sizeof *ix->depth);
			ix->off = xmalloc((ix->cap + 1) * sizeof *ix->off);
		}
	}
	if (whole)
		while (ix_step(f->ix, (size_t)1 << 20))
			;
	return f->ix;
}

static struct jindex *index_of(struct jfold *f, const cJSON *root)
{
	return index_for(f, root, 1);
}

int jsonview_prepare(struct jfold *f, const cJSON *root, size_t nodes)
{
	if (!root)
		return 0;
	return ix_step(index_for(f, root, 0), nodes);
}

const char *jsonview_text(struct jfold *f, const cJSON *root, size_t *n, const char **lower)
{
	if (!root) {
		*n = 0;
		if (lower)
			*lower = "";
		return "";
	}
	struct jindex *ix = index_of(f, root);
	*n = ix->len;
	if (lower)
		*lower = ix->lower;
	return ix->text;
}

/* Unfolds node k (the one whose line matched) and every folded node around it; seen: the
 * nodes already done. */
static int unfold_up(struct jfold *f, const struct jindex *ix, int k, unsigned char *seen)
{
	int n = 0;
	for (int a = k; a >= 0 && !seen[a]; a = ix->parent[a]) {
		seen[a] = 1;
		if (is_folded(f, ix->v[a], a, ix->depth[a])) {
			set_state(f, a, 2);
			n++;
		}
	}
	return n;
}

int jsonview_unfold_at(struct jfold *f, const cJSON *root, const size_t *off, size_t n)
{
	if (!root || !n)
		return 0;
	struct jindex *ix = index_of(f, root);
	unsigned char *seen = xcalloc(ix->n ? ix->n : 1, 1);
	int unfolded = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		while (k + 1 < ix->n && ix->off[k + 1] <= off[i]) /* the line holding off[i] */
			k++;
		if (k > 0) /* the root's own line is not searched (it has no key) */
			unfolded += unfold_up(f, ix, (int)k, seen);
	}
	free(seen);
	return unfolded;
}

int jsonview_unfold_where(struct jfold *f, const cJSON *root, int (*match)(void *arg, const char *text, size_t n),
			  void *arg)
{
	if (!root)
		return 0;
	struct jindex *ix = index_of(f, root);
	unsigned char *seen = xcalloc(ix->n ? ix->n : 1, 1);
	int unfolded = 0;
	for (size_t k = 1; k < ix->n; k++)
		if (match(arg, ix->text + ix->off[k], ix->off[k + 1] - ix->off[k] - 1))
			unfolded += unfold_up(f, ix, (int)k, seen);
	free(seen);
	return unfolded;
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

/* jsonview.c - indented, coloured, foldable JSON (see jsonview.h).
 *
 * Must not: change the JSON it shows (numbers and strings are printed by cJSON from the
 * parsed value; the raw tab shows the bytes as they were). */
#include "tui/jsonview.h"

#include <stdlib.h>
#include <string.h>

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

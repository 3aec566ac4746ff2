/* a1_java_wire.c - one side's facts as bytes and back (a1_java_wire.h).
 *
 * Responsibility: the layout, written and checked; nothing of how a side is read. */
#include "assertions/a1_java_wire.h"

#include <stdint.h>
#include <string.h>

#include "common/err.h"
#include "common/xalloc.h"

#define WIRE_MAGIC 0x4a317766u /* "fw1J": closes a whole side */
#define WIRE_NULL 0xffffffffu

/* ---- writing ---- */

static void put_u32(struct buf *b, uint32_t x)
{
	unsigned char c[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16),
			      (unsigned char)(x >> 24)};
	buf_append(b, c, 4);
}

static void put_str(struct buf *b, const char *s)
{
	if (!s) {
		put_u32(b, WIRE_NULL);
		return;
	}
	size_t n = strlen(s);
	if (n > 0xfffffffeu)
		n = 0xfffffffeu; /* never: a side is at most A1_JAVA_MAX_BYTES */
	put_u32(b, (uint32_t)n);
	buf_append(b, s, n);
}

static void put_facts(struct buf *b, const struct a1_js_facts *l)
{
	put_u32(b, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++) {
		const struct a1_js_fact *f = &l->v[i];
		put_str(b, f->form);
		put_str(b, f->subject);
		put_str(b, f->matcher);
		put_str(b, f->expected);
		put_str(b, f->exp1);
		put_u32(b, (uint32_t)f->digits); /* -1 travels as 0xffffffff */
		put_u32(b, f->kind);
		put_u32(b, f->line);
		put_u32(b, (uint32_t)f->dead | (uint32_t)f->swallowed << 8 | (uint32_t)f->taut << 16);
	}
}

static void put_names(struct buf *b, const struct a1_js_names *l)
{
	put_u32(b, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++)
		put_str(b, l->v[i]);
}

static void put_sites(struct buf *b, const struct a1_js_site *v, size_t n)
{
	put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put_str(b, v[i].name);
		put_str(b, v[i].text);
		put_u32(b, v[i].line);
	}
}

void a1_java_wire_put(const struct a1_java_side *j, struct buf *b)
{
	const struct a1_js_side *s = &j->s;
	put_u32(b, (uint32_t)s->status);
	put_str(b, s->why);
	put_u32(b, (uint32_t)s->ntests);
	for (size_t i = 0; i < s->ntests; i++) {
		const struct a1_js_test *t = &s->tests[i];
		put_str(b, t->name);
		put_u32(b, t->mods);
		put_u32(b, t->line);
		put_u32(b, (uint32_t)t->hook);
		put_facts(b, &t->facts);
		put_names(b, &t->calls);
	}
	put_u32(b, (uint32_t)s->nfuncs);
	for (size_t i = 0; i < s->nfuncs; i++) {
		put_str(b, s->funcs[i].name);
		put_facts(b, &s->funcs[i].facts);
		put_names(b, &s->funcs[i].calls);
	}
	put_sites(b, s->focus, s->nfocus);
	put_sites(b, s->mocks, s->nmocks);
	put_sites(b, j->conds, j->nconds);
	put_names(b, &j->methods);
	put_sites(b, j->dropped, j->ndropped);
	put_sites(b, j->rows, j->nrows);
	put_u32(b, WIRE_MAGIC);
}

/* ---- reading ---- */

struct rd {
	const unsigned char *p;
	size_t n;
	int bad;
};

static uint32_t get_u32(struct rd *r)
{
	if (r->bad || r->n < 4) {
		r->bad = 1;
		return 0;
	}
	uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
	r->p += 4;
	r->n -= 4;
	return v;
}

/* A count of items each at least `least` bytes long: more than could follow is a bad answer. */
static size_t get_count(struct rd *r, size_t least)
{
	uint32_t v = get_u32(r);
	if (r->bad || (size_t)v > r->n / least) {
		r->bad = 1;
		return 0;
	}
	return v;
}

static char *get_str(struct rd *r)
{
	uint32_t n = get_u32(r);
	if (r->bad || n == WIRE_NULL)
		return NULL;
	if (n > r->n || memchr(r->p, 0, n)) { /* a string with a NUL was never a C string */
		r->bad = 1;
		return NULL;
	}
	char *s = xstrndup((const char *)r->p, n);
	r->p += n;
	r->n -= n;
	return s;
}

static void get_facts(struct rd *r, struct a1_js_facts *l)
{
	size_t n = get_count(r, 36);
	if (!n)
		return;
	l->v = xcalloc(n, sizeof *l->v);
	l->n = l->cap = n;
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct a1_js_fact *f = &l->v[i];
		f->form = get_str(r);
		f->subject = get_str(r);
		f->matcher = get_str(r);
		f->expected = get_str(r);
		f->exp1 = get_str(r);
		f->digits = (int)get_u32(r);
		f->kind = get_u32(r);
		f->line = get_u32(r);
		uint32_t flags = get_u32(r);
		if (flags >> 24)
			r->bad = 1; /* three flags of a byte each, nothing above */
		f->dead = (unsigned char)flags;
		f->swallowed = (unsigned char)(flags >> 8);
		f->taut = (unsigned char)(flags >> 16);
	}
}

static void get_names(struct rd *r, struct a1_js_names *l)
{
	size_t n = get_count(r, 4);
	if (!n)
		return;
	l->v = xcalloc(n, sizeof *l->v);
	l->n = l->cap = n;
	for (size_t i = 0; i < n && !r->bad; i++) {
		l->v[i] = get_str(r);
		if (!l->v[i])
			r->bad = 1; /* a name is never NULL */
	}
}

static struct a1_js_site *get_sites(struct rd *r, size_t *n, size_t *cap)
{
	*n = *cap = get_count(r, 12);
	if (!*n)
		return NULL;
	struct a1_js_site *v = xcalloc(*n, sizeof *v);
	for (size_t i = 0; i < *n && !r->bad; i++) {
		v[i].name = get_str(r);
		v[i].text = get_str(r);
		v[i].line = get_u32(r);
	}
	return v;
}

int a1_java_wire_get(const char *p, size_t n, struct a1_java_side *j)
{
	struct rd r = {(const unsigned char *)p, n, 0};
	struct a1_js_side *s = &j->s;
	s->status = (int)get_u32(&r);
	s->why = get_str(&r);
	size_t nt = get_count(&r, 24);
	if (nt) {
		s->tests = xcalloc(nt, sizeof *s->tests);
		s->ntests = s->captests = nt;
	}
	for (size_t i = 0; i < nt && !r.bad; i++) {
		struct a1_js_test *t = &s->tests[i];
		t->name = get_str(&r);
		t->mods = get_u32(&r);
		t->line = get_u32(&r);
		t->hook = (int)get_u32(&r);
		get_facts(&r, &t->facts);
		get_names(&r, &t->calls);
		if (!t->name)
			r.bad = 1;
	}
	size_t nf = r.bad ? 0 : get_count(&r, 12);
	if (nf) {
		s->funcs = xcalloc(nf, sizeof *s->funcs);
		s->nfuncs = s->capfuncs = nf;
	}
	for (size_t i = 0; i < nf && !r.bad; i++) {
		s->funcs[i].name = get_str(&r);
		get_facts(&r, &s->funcs[i].facts);
		get_names(&r, &s->funcs[i].calls);
		if (!s->funcs[i].name)
			r.bad = 1;
	}
	if (!r.bad)
		s->focus = get_sites(&r, &s->nfocus, &s->capfocus);
	if (!r.bad)
		s->mocks = get_sites(&r, &s->nmocks, &s->capmocks);
	if (!r.bad)
		j->conds = get_sites(&r, &j->nconds, &j->capconds);
	if (!r.bad)
		get_names(&r, &j->methods);
	if (!r.bad)
		j->dropped = get_sites(&r, &j->ndropped, &j->capdropped);
	if (!r.bad)
		j->rows = get_sites(&r, &j->nrows, &j->caprows);
	if (get_u32(&r) != WIRE_MAGIC || r.n || r.bad || s->status < A1_JS_OK || s->status > A1_JS_UNDECIDABLE)
		return BELAY_EINVAL;
	return 0;
}

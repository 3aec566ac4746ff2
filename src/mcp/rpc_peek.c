/* rpc_peek.c - top-level JSON-RPC members without a parse tree. See rpc_peek.h. */
#include "mcp/rpc_peek.h"

#include <string.h>

#define NEST_MAX 1000 /* cJSON's nesting limit: deeper frames are unparseable there */

/* cJSON takes every byte up to 0x20 for whitespace; so must we, to agree with it. */
static int is_ws(char c)
{
	return (unsigned char)c <= 0x20;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && is_ws(*p))
		p++;
	return p;
}

/* p at the opening quote: the byte after the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *e)
{
	p++;
	for (;;) {
		const char *q = memchr(p, '"', (size_t)(e - p));
		if (!q)
			return NULL;
		/* Escaped when an odd number of backslashes precede it (p - 1 is a quote, so a
		 * run of backslashes never reaches back past p). */
		size_t bs = 0;
		for (const char *b = q; b > p && b[-1] == '\\'; b--)
			bs++;
		if (bs % 2 == 0)
			return q + 1;
		p = q + 1;
	}
}

/* p at a value: the byte after it, or NULL. Containers are checked for balance only. */
static const char *skip_value(const char *p, const char *e)
{
	if (p >= e)
		return NULL;
	if (*p == '"')
		return skip_string(p, e);
	if (*p == '{' || *p == '[') {
		int depth = 0;
		while (p < e) {
			char c = *p;
			if (c == '"') {
				p = skip_string(p, e);
				if (!p)
					return NULL;
				continue;
			}
			if (c == '{' || c == '[') {
				if (++depth > NEST_MAX)
					return NULL;
			} else if (c == '}' || c == ']') {
				if (--depth == 0)
					return p + 1;
			}
			p++;
		}
		return NULL;
	}
	const char *s = p;
	while (p < e && !is_ws(*p) && *p != ',' && *p != '}' && *p != ']')
		p++;
	return p > s ? p : NULL;
}

static int name_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(k, want, n) == 0;
}

int rpc_peek(const char *data, size_t len, struct rpc_peek *p)
{
	memset(p, 0, sizeof *p);
	const char *e = data + len, *c = skip_ws(data, e);
	if (c >= e || *c != '{')
		return RPC_PEEK_UNSURE;
	c = skip_ws(c + 1, e);
	int has_id = 0, has_method = 0, method_string = 0, has_reply = 0;
	if (c < e && *c == '}')
		goto done;
	for (;;) {
		if (c >= e || *c != '"')
			return RPC_PEEK_UNSURE;
		const char *k = c + 1, *ke = skip_string(c, e);
		if (!ke || memchr(k, '\\', (size_t)(ke - 1 - k)) || memchr(k, '\0', (size_t)(ke - 1 - k)))
			return RPC_PEEK_UNSURE; /* unterminated, a name to unescape, or one cJSON cuts at a NUL */
		size_t kn = (size_t)(ke - 1 - k);
		c = skip_ws(ke, e);
		if (c >= e || *c != ':')
			return RPC_PEEK_UNSURE;
		const char *v = skip_ws(c + 1, e), *ve = skip_value(v, e);
		if (!ve)
			return RPC_PEEK_UNSURE;
		if (!has_id && name_is(k, kn, "id")) {
			has_id = 1;
			p->id_text = v;
			p->id_len = (size_t)(ve - v);
		} else if (!has_method && name_is(k, kn, "method")) {
			has_method = 1;
			if (*v == '"') {
				size_t mn = (size_t)(ve - v - 2);
				if (memchr(v + 1, '\\', mn))
					return RPC_PEEK_UNSURE; /* an escaped method name: let the parser say */
				method_string = 1;
				if (mn < sizeof p->method) {
					memcpy(p->method, v + 1, mn);
					p->method[mn] = '\0';
				} else {
					p->method_long = 1;
				}
			}
		} else if (name_is(k, kn, "result") || name_is(k, kn, "error")) {
			has_reply = 1;
		}
		c = skip_ws(ve, e);
		if (c < e && *c == ',') {
			c = skip_ws(c + 1, e);
			continue;
		}
		if (c < e && *c == '}')
			break;
		return RPC_PEEK_UNSURE;
	}
done:
	if (has_id) {
		/* Ids are short: cJSON reads the token, so the key is exactly rpc_id_from_json's. */
		cJSON *idv = cJSON_ParseWithLength(p->id_text, p->id_len);
		if (!idv)
			return RPC_PEEK_UNSURE;
		rpc_id_from_json(idv, &p->id);
		cJSON_Delete(idv);
	} else {
		rpc_id_from_json(NULL, &p->id);
	}
	p->kind = has_reply ? RPC_RESPONSE : method_string && has_id ? RPC_REQUEST : method_string ? RPC_NOTIFICATION
												   : RPC_UNKNOWN;
	return RPC_PEEK_OK;
}

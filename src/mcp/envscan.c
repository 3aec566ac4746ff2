/* envscan.c - the envelope of an oversized frame, read as it streams. See envscan.h.
 *
 * A byte-level JSON lexer with a bit stack of the open containers; it keeps only what sits
 * at the two levels it reads: the members of the message (item level) and the members of
 * its params / result / error object (sub level). */
#include "mcp/envscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

enum { L_VALUE, L_AFTER, L_KEY, L_COLON, L_STRING, L_SCALAR, L_DONE };
enum { K_ID, K_METHOD, K_PARAMS, K_RESULT, K_ERROR }; /* item-level keys */

void envscan_init(struct envscan *s)
{
	memset(s, 0, sizeof *s);
	envscan_reset(s);
}

void envscan_reset(struct envscan *s)
{
	struct envscan_item *items = s->items;
	size_t cap = s->capitems;
	memset(s, 0, sizeof *s);
	s->items = items;
	s->capitems = cap;
	s->lex = L_VALUE;
	s->cap_field = -1;
	s->sub = -1;
	s->item_key = s->sub_key = -1;
	s->key_level = -1;
}

void envscan_free(struct envscan *s)
{
	free(s->items);
	memset(s, 0, sizeof *s);
}

static int top_is_obj(const struct envscan *s)
{
	int i = s->depth - 1;
	return i >= 0 && (s->stack[i / 8] >> (i % 8) & 1);
}

static void keep_byte(struct envscan *s, char c)
{
	if (s->cap_field < 0 || !s->cur)
		return;
	struct envscan_item *it = s->cur;
	if (it->len[s->cap_field] < ENVSCAN_VALUE_MAX)
		it->val[s->cap_field][it->len[s->cap_field]++] = c;
	else
		it->too_long[s->cap_field] = 1;
}

static struct envscan_item *new_item(struct envscan *s, int object)
{
	if (s->nitems == ENVSCAN_ITEMS_MAX) {
		s->bad = 1;
		return NULL;
	}
	if (s->nitems == s->capitems) {
		s->capitems = s->capitems ? s->capitems * 2 : 4;
		s->items = xrealloc(s->items, s->capitems * sizeof *s->items);
	}
	struct envscan_item *it = &s->items[s->nitems++];
	memset(it, 0, sizeof *it);
	it->object = object;
	return it;
}

static void push(struct envscan *s, char c, int sub)
{
	if (s->depth >= ENVSCAN_DEPTH_MAX) {
		s->bad = 1;
		return;
	}
	int i = s->depth++;
	if (c == '{')
		s->stack[i / 8] |= (unsigned char)(1u << (i % 8));
	else
		s->stack[i / 8] &= (unsigned char)~(1u << (i % 8));
	s->just_opened = 1;
	s->lex = c == '{' ? L_KEY : L_VALUE;
	if (s->depth == s->item_depth)
		s->item_key = -1;
	if (s->depth == s->item_depth + 1) {
		s->sub = sub;
		s->sub_key = -1;
	}
}

static void pop(struct envscan *s, char c)
{
	if (s->depth == 0 || (c == '}') != top_is_obj(s)) {
		s->bad = 1;
		return;
	}
	if (s->depth == s->item_depth && s->root == '[')
		s->cur = NULL; /* a batch element ended */
	if (s->depth == s->item_depth + 1)
		s->sub = -1;
	s->depth--;
	s->just_opened = 0;
	if (s->depth == 0) {
		s->lex = L_DONE;
		s->done = 1;
	} else {
		s->lex = L_AFTER;
	}
}

/* Whitespace as cJSON skips it: every byte up to the space. */
static int is_ws(char c)
{
	return (unsigned char)c <= ' ';
}

static int is_scalar_byte(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' ||
	       c == '.';
}

/* The field a sub-level key names, for the member the sub object is. */
static int sub_field(int sub, const char *k)
{
	if (sub == ENV_PARAMS)
		return !strcmp(k, "name") ? ENV_NAME : !strcmp(k, "requestId") ? ENV_REQUEST_ID : -1;
	if (sub == ENV_RESULT)
		return !strcmp(k, "isError") ? ENV_IS_ERROR : -1;
	if (sub == ENV_ERROR)
		return !strcmp(k, "code") ? ENV_CODE : !strcmp(k, "message") ? ENV_MESSAGE : -1;
	return -1;
}

static void end_key(struct envscan *s)
{
	s->lex = L_COLON;
	if (s->key_level < 0)
		return;
	int match = -1;
	if (!s->key_long) {
		char k[sizeof s->key + 1];
		memcpy(k, s->key, s->keylen);
		k[s->keylen] = '\0';
		if (s->key_esc) {
			/* Escaped member names ("\u0069d" is "id") decode as cJSON decodes them. */
			char quoted[sizeof s->key + 3];
			quoted[0] = '"';
			memcpy(quoted + 1, s->key, s->keylen);
			quoted[s->keylen + 1] = '"';
			cJSON *v = cJSON_ParseWithLength(quoted, s->keylen + 2);
			const char *d = cJSON_IsString(v) ? v->valuestring : "";
			snprintf(k, sizeof k, "%s", strlen(d) < sizeof k ? d : "");
			cJSON_Delete(v);
		}
		if (s->key_level == 0)
			match = !strcmp(k, "id")	 ? K_ID
				: !strcmp(k, "method") ? K_METHOD
				: !strcmp(k, "params") ? K_PARAMS
				: !strcmp(k, "result") ? K_RESULT
				: !strcmp(k, "error")  ? K_ERROR
						       : -1;
		else
			match = sub_field(s->sub, k);
	}
	if (s->key_level == 0)
		s->item_key = match;
	else
		s->sub_key = match;
}

static void end_value(struct envscan *s)
{
	s->cap_field = -1;
	s->lex = s->depth == 0 ? L_DONE : L_AFTER;
	if (s->depth == 0)
		s->bad = 1; /* a scalar at the top: not a message */
}

/* The first byte c of a value at the current depth. */
static void begin_value(struct envscan *s, char c)
{
	int d = s->depth;
	int sub = -1;
	s->cap_field = -1;
	s->just_opened = 0;
	if (d == 0) {
		if (c == '{') {
			s->root = '{';
			s->item_depth = 1;
			s->cur = new_item(s, 1);
		} else if (c == '[') {
			s->root = '[';
			s->item_depth = 2;
		} else {
			s->bad = 1;
			return;
		}
	} else if (d == 1 && s->root == '[') {
		struct envscan_item *it = new_item(s, c == '{');
		s->cur = c == '{' ? it : NULL;
	} else if (s->cur && d == s->item_depth && top_is_obj(s) && s->item_key >= 0) {
		struct envscan_item *it = s->cur;
		if (s->item_key == K_ID || s->item_key == K_METHOD) {
			int f = s->item_key == K_ID ? ENV_ID : ENV_METHOD;
			if (!it->kind[f]) { /* the first of duplicate members, as cJSON reads them */
				it->kind[f] = c;
				s->cap_field = f;
			}
		} else {
			int m = s->item_key == K_PARAMS ? ENV_PARAMS : s->item_key == K_RESULT ? ENV_RESULT : ENV_ERROR;
			if (!it->member[m]) {
				it->member[m] = c;
				sub = m;
			}
		}
	} else if (s->cur && d == s->item_depth + 1 && s->sub >= 0 && top_is_obj(s) && s->sub_key >= 0) {
		if (!s->cur->kind[s->sub_key]) {
			s->cur->kind[s->sub_key] = c;
			s->cap_field = s->sub_key;
		}
	}
	if (c == '{' || c == '[') {
		s->cap_field = -1; /* a container is kept as its type only */
		push(s, c, c == '{' ? sub : -1);
	} else if (c == '"') {
		s->lex = L_STRING;
		s->str_key = 0;
		s->esc = 0;
		keep_byte(s, c);
	} else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
		s->lex = L_SCALAR;
		keep_byte(s, c);
	} else {
		s->bad = 1;
	}
}

/* One byte inside a string (lex == L_STRING). */
static void string_byte(struct envscan *s, char c)
{
	int keeping_key = s->str_key && s->key_level >= 0;
	if (keeping_key) {
		if (s->keylen < sizeof s->key)
			s->key[s->keylen++] = c;
		else
			s->key_long = 1;
	}
	if (s->esc) {
		/* As cJSON finds a string's end: a backslash takes the next byte with it (\uXXXX
		 * digits are not checked, cJSON decodes what it can). */
		if (strchr("\"\\/bfnrtu", c) && c)
			s->esc = 0;
		else
			s->bad = 1;
		if (!s->str_key)
			keep_byte(s, c);
		return;
	}
	if (c == '"') {
		if (keeping_key)
			s->keylen--; /* the closing quote is not part of the name */
		if (s->str_key) {
			end_key(s);
		} else {
			keep_byte(s, c);
			end_value(s);
		}
		return;
	}
	if (c == '\\') {
		s->esc = 1;
		if (keeping_key)
			s->key_esc = 1;
	}
	if (!s->str_key)
		keep_byte(s, c);
}

/* The index of the next byte c at or after i in p[0..n) (n when none), found once per
 * occurrence: *at caches it across the calls of one feed. */
static size_t next_of(const char *p, size_t n, size_t i, char c, size_t *at)
{
	if (*at < i || *at == (size_t)-1) {
		const char *q = memchr(p + i, c, n - i);
		*at = q ? (size_t)(q - p) : n;
	}
	return *at;
}

/* Deeper than the two levels read (inside a result's content): only strings and brackets
 * matter. Skips to the next string (lexed as usual) or to the bracket that closes back to
 * the sub level; returns where lexing resumes. */
static size_t skip_deep(struct envscan *s, const char *p, size_t n, size_t i)
{
	static const unsigned char special[256] = {['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1};
	while (i < n) {
		while (i < n && !special[(unsigned char)p[i]])
			i++;
		if (i == n)
			break;
		char c = p[i++];
		if (c == '"') {
			/* A string: to its closing quote, here when it ends in this chunk (short ones
			 * byte by byte, long ones by memchr). */
			int closed = 0;
			while (i < n) {
				size_t j = i, stop = i + 32 < n ? i + 32 : n;
				while (j < stop && p[j] != '"' && p[j] != '\\')
					j++;
				if (j == stop && stop < n) {
					const char *q = memchr(p + j, '"', n - j);
					const char *b = memchr(p + j, '\\', (size_t)((q ? q : p + n) - (p + j)));
					j = b ? (size_t)(b - p) : q ? (size_t)(q - p) : n;
				}
				if (j >= n) {
					i = n;
					break;
				}
				if (p[j] == '"') {
					i = j + 1;
					closed = 1;
					break;
				}
				if (j + 1 == n) { /* a backslash ends the chunk: the string lexer takes over */
					i = j;
					break;
				}
				if (!strchr("\"\\/bfnrtu", p[j + 1]) || !p[j + 1]) {
					s->bad = 1;
					return n;
				}
				i = j + 2;
			}
			if (closed)
				continue;
			s->lex = L_STRING; /* it goes on in the next chunk */
			s->str_key = 0;
			s->esc = 0;
			s->cap_field = -1;
			return i;
		}
		if (c == '{' || c == '[') {
			if (s->depth >= ENVSCAN_DEPTH_MAX) {
				s->bad = 1;
				return n;
			}
			int k = s->depth++;
			if (c == '{')
				s->stack[k / 8] |= (unsigned char)(1u << (k % 8));
			else
				s->stack[k / 8] &= (unsigned char)~(1u << (k % 8));
			continue;
		}
		if ((c == '}') != top_is_obj(s)) {
			s->bad = 1;
			return n;
		}
		if (--s->depth <= s->item_depth + 1) {
			s->lex = L_AFTER;
			s->just_opened = 0;
			return i;
		}
	}
	return i;
}

void envscan_feed(struct envscan *s, const char *p, size_t n)
{
	size_t i = 0, quote = (size_t)-1, bslash = (size_t)-1;
	while (i < n && !s->bad) {
		if (s->item_depth && s->depth > s->item_depth + 1 && s->lex != L_STRING && s->lex != L_SCALAR) {
			i = skip_deep(s, p, n, i);
			continue;
		}
		char c = p[i];
		switch (s->lex) {
		case L_STRING:
			if (!s->esc && s->cap_field < 0 && !(s->str_key && s->key_level >= 0)) {
				/* Nothing kept: skip the plain run (most of a big frame is string content). */
				size_t q = next_of(p, n, i, '"', &quote), b = next_of(p, n, i, '\\', &bslash);
				size_t j = q < b ? q : b;
				if (j > i) {
					i = j;
					continue;
				}
			}
			string_byte(s, c);
			break;
		case L_SCALAR:
			if (is_scalar_byte(c)) {
				keep_byte(s, c);
				break;
			}
			end_value(s);
			continue; /* c is the next token: read it again */
		case L_VALUE:
			if (s->fed + i < 3 && s->depth == 0 && (unsigned char)c == (unsigned char)"\xef\xbb\xbf"[s->fed + i] &&
			    s->bom == s->fed + i) {
				s->bom++; /* a leading UTF-8 byte order mark, which cJSON skips */
				break;
			}
			if (s->bom % 3) {
				s->bad = 1; /* part of one */
				break;
			}
			if (is_ws(c))
				break;
			if (c == ']' && s->just_opened && s->depth > 0 && !top_is_obj(s))
				pop(s, c);
			else
				begin_value(s, c);
			break;
		case L_AFTER:
			if (is_ws(c))
				break;
			if (c == ',') {
				s->lex = top_is_obj(s) ? L_KEY : L_VALUE;
				s->just_opened = 0;
			} else if (c == '}' || c == ']') {
				pop(s, c);
			} else {
				s->bad = 1;
			}
			break;
		case L_KEY:
			if (is_ws(c))
				break;
			if (c == '"') {
				s->lex = L_STRING;
				s->str_key = 1;
				s->esc = 0;
				s->keylen = 0;
				s->key_long = s->key_esc = 0;
				s->key_level = s->cur && s->depth == s->item_depth			       ? 0
					       : s->cur && s->depth == s->item_depth + 1 && s->sub >= 0 ? 1
													: -1;
				s->just_opened = 0;
			} else if (c == '}' && s->just_opened) {
				pop(s, c);
			} else {
				s->bad = 1;
			}
			break;
		case L_COLON:
			if (is_ws(c))
				break;
			if (c == ':')
				s->lex = L_VALUE;
			else
				s->bad = 1;
			break;
		case L_DONE:
			break; /* cJSON ignores what follows the value, so the envelope does too */
		}
		i++;
	}
	s->fed += n;
}

/*==== the skeleton ====*/

/* An empty value of the JSON type that starts with c. */
static cJSON *empty_of(char c)
{
	switch (c) {
	case '{': return cJSON_CreateObject();
	case '[': return cJSON_CreateArray();
	case '"': return cJSON_CreateString("");
	case 't':
	case 'f': return cJSON_CreateFalse();
	case 'n': return cJSON_CreateNull();
	default: return cJSON_CreateNumber(0);
	}
}

/* Adds field f of it to o under name. 0, or -1 when a kept value is not JSON. */
static int add_field(cJSON *o, const char *name, const struct envscan_item *it, int f)
{
	if (!it->kind[f] || it->too_long[f])
		return 0; /* absent, or too long to keep: left out */
	if (it->kind[f] == '{' || it->kind[f] == '[') {
		cJSON_AddItemToObject(o, name, empty_of(it->kind[f]));
		return 0;
	}
	cJSON *v = cJSON_ParseWithLength(it->val[f], it->len[f]);
	if (!v || cJSON_IsArray(v) || cJSON_IsObject(v)) {
		cJSON_Delete(v);
		return -1;
	}
	cJSON_AddItemToObject(o, name, v);
	return 0;
}

static cJSON *item_json(const struct envscan_item *it)
{
	if (!it->object)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	int rc = add_field(o, "id", it, ENV_ID);
	rc |= add_field(o, "method", it, ENV_METHOD);
	static const char *const members[ENV_NMEMBERS] = {"params", "result", "error"};
	for (int m = 0; m < ENV_NMEMBERS && rc == 0; m++) {
		if (!it->member[m])
			continue;
		cJSON *v = empty_of(it->member[m]);
		if (it->member[m] == '{') {
			if (m == ENV_PARAMS) {
				rc |= add_field(v, "name", it, ENV_NAME);
				rc |= add_field(v, "requestId", it, ENV_REQUEST_ID);
			} else if (m == ENV_RESULT) {
				rc |= add_field(v, "isError", it, ENV_IS_ERROR);
			} else {
				rc |= add_field(v, "code", it, ENV_CODE);
				rc |= add_field(v, "message", it, ENV_MESSAGE);
			}
		}
		cJSON_AddItemToObject(o, members[m], v);
	}
	if (rc) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *envscan_skeleton(const struct envscan *s)
{
	if (!s->done || s->bad || (s->root == '{' && s->nitems != 1))
		return NULL;
	if (s->root == '{')
		return item_json(&s->items[0]);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < s->nitems; i++) {
		cJSON *it = item_json(&s->items[i]);
		if (!it) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, it);
	}
	return arr;
}

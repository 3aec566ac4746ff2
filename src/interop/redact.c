/* redact.c - secrets out of exported text and JSON. See redact.h. */
#include "interop/redact.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "common/secret.h"
#include "gate/gate_secrets.h"

/* what ends a token for the value-shape check */
#define TOKEN_STOP "\"'`,;()[]{}<>="

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int secret_key(const char *name, size_t n)
{
	char *k = xstrndup(name, n);
	int r = secret_name_like(k) || gate_secret_header(k);
	free(k);
	return r;
}

/* Skips a value at p: a quoted string (with escapes) or a bare word. Returns its end. */
static const char *value_end(const char *p)
{
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (*p && *p != q) {
			if (*p == '\\' && p[1])
				p++;
			p++;
		}
		return *p ? p + 1 : p;
	}
	while (*p && !isspace((unsigned char)*p) && !strchr(",;&\"'}]\\", *p))
		p++;
	return p;
}

char *redact_text(const char *s)
{
	struct buf b = {0};
	const char *p = s;
	while (*p) {
		/* PEM private keys, whole */
		if (!strncmp(p, "-----BEGIN ", 11)) {
			const char *hdr_end = strstr(p + 11, "-----");
			if (hdr_end && memmem(p, (size_t)(hdr_end - p), "PRIVATE KEY", 11)) {
				const char *end = strstr(hdr_end + 5, "-----END ");
				const char *fin = end ? strstr(end + 9, "-----") : NULL;
				buf_puts(&b, REDACTED);
				p = fin ? fin + 5 : p + strlen(p);
				continue;
			}
		}
		/* a token shaped like a credential (sk-..., ghp_..., a JWT, user:pass@ in a URL) */
		if (!(p > s && !strchr(TOKEN_STOP, p[-1]) && !isspace((unsigned char)p[-1])) && !strchr(TOKEN_STOP, *p) &&
		    !isspace((unsigned char)*p)) {
			size_t n = 0;
			while (p[n] && !strchr(TOKEN_STOP, p[n]) && !isspace((unsigned char)p[n]))
				n++;
			if (secret_value_like(p, n)) {
				buf_puts(&b, REDACTED);
				p += n;
				continue;
			}
		}
		if (!ident_char(*p) || (p > s && ident_char(p[-1]))) {
			buf_putc(&b, *p++);
			continue;
		}
		const char *id = p;
		while (ident_char(*p))
			p++;
		size_t idn = (size_t)(p - id);
		buf_append(&b, id, idn);
		const char *q = p;
		if (*q == '"' || *q == '\'')
			q++;
		while (*q == ' ' || *q == '\t')
			q++;
		if ((*q != '=' && *q != ':') || !secret_key(id, idn))
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		buf_append(&b, p, (size_t)(q - p));
		const char *ve = value_end(q);
		/* "Authorization: Bearer <token>": the scheme word goes too */
		size_t vn = (size_t)(ve - q);
		if ((vn == 6 && !strncasecmp(q, "Bearer", 6)) || (vn == 5 && !strncasecmp(q, "Basic", 5)) ||
		    (vn == 5 && !strncasecmp(q, "Token", 5))) {
			const char *r = ve;
			while (*r == ' ')
				r++;
			ve = value_end(r);
		}
		int quoted = *q == '"' || *q == '\'';
		if (quoted)
			buf_putc(&b, *q);
		buf_puts(&b, REDACTED);
		if (quoted && ve > q + 1 && ve[-1] == *q)
			buf_putc(&b, *q);
		p = ve;
	}
	buf_cstr(&b);
	return buf_take(&b);
}

void redact_json(cJSON *v)
{
	for (cJSON *c = v ? v->child : NULL; c; c = c->next) {
		if (cJSON_IsObject(v) && c->string && (secret_name_like(c->string) || gate_secret_header(c->string))) {
			cJSON *r = cJSON_CreateString(REDACTED);
			r->string = strdup(c->string); /* cJSON's default allocator; freed with r */
			cJSON_ReplaceItemViaPointer(v, c, r);
			c = r;
			continue;
		}
		if (cJSON_IsString(c)) {
			char *s = redact_text(c->valuestring);
			if (strcmp(s, c->valuestring))
				cJSON_SetValuestring(c, s);
			free(s);
		} else {
			redact_json(c);
		}
	}
}

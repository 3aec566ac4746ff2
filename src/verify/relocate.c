/* relocate.c - workspace path relocation for replays. See relocate.h. */
#include "verify/relocate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static int path_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* 1 when s[0..i) ends in "SCHEME://" with an empty authority: the path that follows is a
 * local one (RFC 3986: a scheme is a letter, then letters, digits, '+', '-', '.'). */
static int after_scheme(const char *s, size_t i)
{
	if (i < 4 || strncmp(s + i - 3, "://", 3))
		return 0;
	size_t b = i - 3;
	while (b > 0 && (isalnum((unsigned char)s[b - 1]) || s[b - 1] == '+' || s[b - 1] == '-' || s[b - 1] == '.'))
		b--;
	return b < i - 3 && isalpha((unsigned char)s[b]);
}

char *relocate_string(const struct relocation *r, const char *s, int *changed)
{
	*changed = 0;
	if (!strcmp(s, "{workspace}")) {
		*changed = 1;
		return xstrdup(r->to);
	}
	size_t fl = strlen(r->from), n = strlen(s);
	struct buf out = {0};
	size_t i = 0;
	while (i < n) {
		/* The root at the start of a path: after a non-path character, or right after a
		 * URI's "SCHEME://" (file://, and a database's sqlite:///PATH DSN). */
		int starts = i == 0 || !(path_char(s[i - 1]) || s[i - 1] == '/') || after_scheme(s, i);
		if (starts && strncmp(s + i, r->from, fl) == 0 &&
		    (s[i + fl] == '\0' || s[i + fl] == '/' || !path_char(s[i + fl]))) {
			buf_puts(&out, r->to);
			i += fl;
			*changed = 1;
		} else {
			buf_putc(&out, s[i++]);
		}
	}
	return out.p ? buf_take(&out) : xstrdup("");
}

int relocate_json(const struct relocation *r, cJSON *v)
{
	int n = 0;
	if (cJSON_IsString(v)) {
		int ch = 0;
		char *x = relocate_string(r, v->valuestring, &ch);
		if (ch) {
			cJSON_SetValuestring(v, x);
			n++;
		}
		free(x);
	}
	for (cJSON *c = v->child; c; c = c->next)
		n += relocate_json(r, c);
	return n;
}

int relocate_frame(const struct relocation *r, const char *bytes, size_t len, struct buf *out)
{
	cJSON *m = cJSON_ParseWithLength(bytes, len);
	if (!m) {
		buf_append(out, bytes, len);
		return BELAY_EINVAL;
	}
	int changed = 0;
	cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
	cJSON *result = cJSON_GetObjectItemCaseSensitive(m, "result");
	if (params)
		changed += relocate_json(r, params);
	if (result)
		changed += relocate_json(r, result);
	if (changed)
		jx_print_buf(m, out);
	else
		buf_append(out, bytes, len);
	cJSON_Delete(m);
	return changed ? 1 : 0;
}

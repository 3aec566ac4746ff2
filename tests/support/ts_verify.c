/* ts_verify.c - see ts_verify.h. */
#include "ts_verify.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "tsupport.h"

cJSON *ts_verify_json(const char *trace, const char *const *extra, const char *cwd, int *status)
{
	const char *argv[40] = {BELAY_BIN, "verify", trace, "--json"};
	int k = 4;
	for (const char *const *x = extra; x && *x && k < 39; x++)
		argv[k++] = *x;
	argv[k] = NULL;
	struct ts_out o;
	ts_run(argv, NULL, cwd, NULL, 0, 600, &o);
	if (status)
		*status = o.status;
	cJSON *arr = cJSON_CreateArray();
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		if (j)
			cJSON_AddItemToArray(arr, j);
	}
	ts_out_free(&o);
	return arr;
}

const cJSON *ts_turn(const cJSON *arr, int k)
{
	for (const cJSON *t = arr->child; t; t = t->next) {
		const cJSON *n = cJSON_GetObjectItem(t, "turn");
		if (cJSON_IsNumber(n) && n->valueint == k)
			return t;
	}
	return NULL;
}

const cJSON *ts_sub(const cJSON *t, const char *axis, const char *kind, int nth)
{
	const cJSON *subs = t ? cJSON_GetObjectItem(t, "verdicts") : NULL;
	for (const cJSON *s = subs ? subs->child : NULL; s; s = s->next)
		if (!strcmp(jx_str(s, "axis"), axis) && !strcmp(jx_str(s, "kind"), kind) && nth-- == 0)
			return s;
	return NULL;
}

const char *ts_sub_status(const cJSON *t, const char *axis, const char *kind, int nth)
{
	const cJSON *s = ts_sub(t, axis, kind, nth);
	return s ? jx_str(s, "status") : NULL;
}

void ts_edit_reply(const char *trace, int nth, const char *from, const char *to)
{
	size_t len;
	char *text = ts_read_file(trace, &len);
	cr_assert_not_null(text, "cannot read %s", trace);
	struct buf out = {0};
	int edited = 0;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		const char *b64 = jx_str(j, "raw");
		const char *d = jx_str(j, "dir");
		if (b64 && !edited && d && !strcmp(d, "s2c")) {
			struct buf raw = {0};
			base64_decode(b64, strlen(b64), &raw);
			char *at = strstr(buf_cstr(&raw), from);
			if (at && nth-- == 0) {
				struct buf nb = {0}, enc = {0};
				buf_append(&nb, raw.p, (size_t)(at - raw.p));
				buf_puts(&nb, to);
				buf_puts(&nb, at + strlen(from));
				base64_encode(nb.p, nb.len, &enc);
				char h[72];
				sha256_tagged(nb.p, nb.len, h);
				cJSON_ReplaceItemInObject(j, "raw", cJSON_CreateString(buf_cstr(&enc)));
				cJSON_ReplaceItemInObject(j, "hash_raw", cJSON_CreateString(h));
				cJSON_ReplaceItemInObject(j, "len", cJSON_CreateNumber((double)nb.len));
				if (cJSON_GetObjectItem(j, "total"))
					cJSON_ReplaceItemInObject(j, "total", cJSON_CreateNumber((double)nb.len));
				edited = 1;
				buf_free(&nb);
				buf_free(&enc);
			}
			buf_free(&raw);
		}
		char *o = jx_print(j);
		buf_puts(&out, o);
		buf_putc(&out, '\n');
		cJSON_free(o);
		cJSON_Delete(j);
	}
	cr_assert(edited, "no server reply contained %s", from);
	ts_write_file(trace, out.p, out.len);
	buf_free(&out);
	free(text);
}

/* fuzz_ini.c - the configparser-style INI reader (src/assertions/ini.c).
 *
 * Every input is read; a refusal must be BELAY_EINVAL with a "line N: " message and no
 * result. An accepted result must be an object of objects of UTF-8 strings, and must be a
 * fixed point: written back out as INI (each value's pieces on indented lines, its empty
 * pieces as empty lines) and read again, it gives the same JSON, member order included. */
#include <stdint.h>
#include <string.h>

#include "assertions/ini.h"
#include "common/buf.h"
#include "common/jsonx.h"
#include "support.h"

static void write_ini(const cJSON *o, struct buf *b)
{
	const cJSON *s, *k;
	cJSON_ArrayForEach(s, o)
	{
		buf_printf(b, "[%s]\n", s->string);
		cJSON_ArrayForEach(k, s)
		{
			buf_printf(b, "%s = ", k->string);
			for (const char *p = k->valuestring; *p; p++) {
				buf_putc(b, *p);
				if (*p == '\n' && p[1] && p[1] != '\n')
					buf_puts(b, "  ");
			}
			buf_putc(b, '\n');
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *o = (cJSON *)1;
	struct err e = {0};
	int rc = ini_parse((const char *)data, size, &o, &e);
	if (rc != 0) {
		FZ_CHECK(rc == BELAY_EINVAL, "ini_parse returned %d", rc);
		FZ_CHECK(o == NULL, "a refusal left a result");
		FZ_CHECK(strncmp(e.msg, "line ", 5) == 0, "message without a line: %s", e.msg);
		FZ_NOTE("refused: %s", e.msg);
		return 0;
	}
	FZ_CHECK(cJSON_IsObject(o), "not an object");
	const cJSON *s, *k;
	cJSON_ArrayForEach(s, o)
	{
		FZ_CHECK(cJSON_IsObject(s) && utf8_valid(s->string, strlen(s->string)), "a section is not an object");
		cJSON_ArrayForEach(k, s)
		    FZ_CHECK(cJSON_IsString(k) && utf8_valid(k->valuestring, strlen(k->valuestring)) &&
				 utf8_valid(k->string, strlen(k->string)) && k->string[0],
			     "an option is not a UTF-8 string with a key");
	}
	struct buf b = {0};
	write_ini(o, &b);
	cJSON *again = NULL;
	struct err e2 = {0};
	rc = ini_parse(b.p ? b.p : "", b.len, &again, &e2);
	FZ_CHECK(rc == 0, "the result written back is refused (%s):\n%.*s", e2.msg, (int)b.len, b.p);
	char *x = jx_print(o), *y = jx_print(again);
	FZ_CHECK(strcmp(x, y) == 0, "read back differently:\n%s\n%s", x, y);
	FZ_NOTE("%s", x);
	free(x);
	free(y);
	cJSON_Delete(again);
	cJSON_Delete(o);
	buf_free(&b);
	return 0;
}

/* fuzz_pomxml.c - the pom.xml projection (src/assertions/pomxml.c) over libxml2.
 *
 * Every input is projected twice; a refusal must be BELAY_EINVAL with a "line N: " message
 * and no result, and the same both times. An accepted projection has its four members
 * (properties, build, plugins, profiles) of the right types, only UTF-8 strings, and is the
 * same both times (libxml2's per-call context leaves nothing behind). */
#include <stdint.h>
#include <string.h>

#include "assertions/pomxml.h"
#include "common/jsonx.h"
#include "support.h"

static void check_strings(const cJSON *v, int depth)
{
	FZ_CHECK(depth < 1200, "the projection nests deeper than libxml2 allows");
	if (v->string)
		FZ_CHECK(utf8_valid(v->string, strlen(v->string)), "a key is not UTF-8");
	if (cJSON_IsString(v))
		FZ_CHECK(utf8_valid(v->valuestring, strlen(v->valuestring)), "a string is not UTF-8");
	const cJSON *c;
	cJSON_ArrayForEach(c, v) check_strings(c, depth + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *a = (cJSON *)1, *b = (cJSON *)1;
	struct err ea = {0}, eb = {0};
	int ra = pomxml_test_config((const char *)data, size, &a, &ea);
	int rb = pomxml_test_config((const char *)data, size, &b, &eb);
	FZ_CHECK(ra == rb, "two runs disagree: %d, %d", ra, rb);
	if (ra != 0) {
		FZ_CHECK(ra == BELAY_EINVAL, "pomxml_test_config returned %d", ra);
		FZ_CHECK(a == NULL && b == NULL, "a refusal left a result");
		FZ_CHECK(strncmp(ea.msg, "line ", 5) == 0, "message without a line: %s", ea.msg);
		FZ_CHECK(strcmp(ea.msg, eb.msg) == 0, "two runs, two messages: %s / %s", ea.msg, eb.msg);
		FZ_NOTE("refused: %s", ea.msg);
		return 0;
	}
	FZ_CHECK(cJSON_IsObject(jx_obj(a, "properties")) && cJSON_IsObject(jx_obj(a, "build")) &&
		     cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(a, "plugins")) &&
		     cJSON_IsObject(jx_obj(a, "profiles")),
		 "a member is missing");
	check_strings(a, 0);
	char *x = jx_print(a), *y = jx_print(b);
	FZ_CHECK(strcmp(x, y) == 0, "two runs, two projections");
	FZ_NOTE("%s", x);
	free(x);
	free(y);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return 0;
}

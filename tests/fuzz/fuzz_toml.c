/* fuzz_toml.c - the TOML reader (src/assertions/toml.c) on hostile bytes.
 *
 * Every input is parsed; a refusal must leave no tree and a message naming a line, and an
 * accepted document must print as JSON (cJSON_PrintUnformatted) that is valid UTF-8 and
 * parses back to an equal tree. Leaks, overflows and unbounded recursion are what
 * libFuzzer and the sanitizers report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assertions/toml.h"
#include "common/jsonx.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *out = (cJSON *)1;
	struct err e = {0};
	int rc = toml_parse((const char *)data, size, &out, &e);
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL, "toml_parse returned %d", rc);
		FZ_CHECK(out == NULL, "a refusal left a tree");
		FZ_CHECK(!strncmp(e.msg, "line ", 5), "the message names no line: %s", e.msg);
		FZ_CHECK(utf8_valid(e.msg, strlen(e.msg)), "the message is not UTF-8");
		FZ_NOTE("refused: %s", e.msg);
		return 0;
	}
	FZ_CHECK(cJSON_IsObject(out), "the document is not an object");
	char *json = cJSON_PrintUnformatted(out);
	FZ_CHECK(json != NULL, "the tree does not print");
	FZ_CHECK(utf8_valid(json, strlen(json)), "the JSON is not UTF-8");
	cJSON *back = cJSON_Parse(json);
	FZ_CHECK(back && cJSON_Compare(out, back, 1), "the JSON does not parse back to the tree: %s", json);
	FZ_NOTE("accepted: %.200s", json);
	cJSON_Delete(back);
	free(json);
	cJSON_Delete(out);
	return 0;
}

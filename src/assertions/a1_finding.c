/* a1_finding.c - one A1 finding as JSON (a1_finding.h). Threads: any; no state. */
#include "assertions/a1_finding.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* At most A1_FINDING_TEXT_MAX bytes of s, cut at a character boundary, "..." when cut. */
static char *clip(const char *s)
{
	size_t n = strlen(s);
	if (n <= A1_FINDING_TEXT_MAX)
		return xstrdup(s);
	size_t k = A1_FINDING_TEXT_MAX;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	char *o = xmalloc(k + 4);
	memcpy(o, s, k);
	memcpy(o + k, "...", 4);
	return o;
}

static void add_str(cJSON *o, const char *key, const char *v)
{
	cJSON *item;
	if (v) {
		char *c = clip(v);
		item = cJSON_CreateString(c);
		free(c);
	} else {
		item = cJSON_CreateNull();
	}
	if (!item)
		FATAL("out of memory");
	cJSON_AddItemToObject(o, key, item);
}

void a1_finding_add(cJSON *out, const char *function, const char *finding, const char *status, const char *cause,
		    const char *pre, const char *post)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		FATAL("out of memory");
	add_str(o, "function", function);
	add_str(o, "finding", finding);
	add_str(o, "status", status);
	add_str(o, "cause", cause);
	add_str(o, "pre", pre);
	add_str(o, "post", post);
	cJSON_AddItemToArray(out, o);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int a1_forms_cover(const char **have, size_t nh, const char **need, size_t nn)
{
	qsort(have, nh, sizeof *have, cmp_str);
	qsort(need, nn, sizeof *need, cmp_str);
	size_t i = 0, j = 0;
	while (j < nn && i < nh) {
		int c = strcmp(have[i], need[j]);
		if (c == 0)
			i++, j++;
		else if (c < 0)
			i++;
		else
			break;
	}
	return j == nn;
}

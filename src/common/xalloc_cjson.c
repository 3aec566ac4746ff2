/* xalloc_cjson.c - see xalloc_cjson.h. */
#include "common/xalloc_cjson.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "common/xalloc.h"

static void *xalloc_cjson_malloc(size_t n)
{
	return xmalloc(n);
}

static void xalloc_cjson_free(void *p)
{
	free(p);
}

void xalloc_cjson_install(void)
{
	/* Not malloc/free themselves, so cJSON reallocates by allocate + copy through these. */
	cJSON_Hooks hooks = {.malloc_fn = xalloc_cjson_malloc, .free_fn = xalloc_cjson_free};
	cJSON_InitHooks(&hooks);
}

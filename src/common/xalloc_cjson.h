/* xalloc_cjson.h - cJSON inside the out-of-memory policy of xalloc.h: after
 * xalloc_cjson_install, every allocation cJSON makes (parse, create, print, cJSON_malloc)
 * goes through xmalloc, so it aborts on out-of-memory as belay's own allocations do and a
 * cJSON_Add*, cJSON_Create* or cJSON_Print* result is NULL only for a reason other than
 * memory. What cJSON returns is still freed with free() or cJSON_free (xmalloc is malloc).
 *
 * Who calls it: the first statement of every main that links cJSON (src/bin, bench) and, by
 * a constructor, every test and fuzz harness (tests/support/xalloc_hooks.c);
 * tests/unit/test_xalloc.c checks both. Threads: call it before any thread starts (cJSON's
 * hooks are one process-wide variable). Must not: be called with cJSON objects alive that a
 * different allocator made (free() frees both here, so it is harmless, but keep it first). */
#ifndef BELAY_COMMON_XALLOC_CJSON_H
#define BELAY_COMMON_XALLOC_CJSON_H

void xalloc_cjson_install(void);

#endif

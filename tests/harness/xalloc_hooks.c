/* xalloc_hooks.c - puts cJSON inside xalloc's out-of-memory policy in every test program
 * (src/common/xalloc_cjson.h): compiled into each Criterion test, fixture program and fuzz
 * harness (tests/CMakeLists.txt, tests/fuzz/CMakeLists.txt), whose main is not ours.
 *
 * A constructor rather than a call in main: Criterion and libFuzzer own main, and Criterion
 * runs each test in a worker process of its own, which runs constructors too. */
#include "common/xalloc_cjson.h"

__attribute__((constructor)) static void xalloc_hooks_install(void)
{
	xalloc_cjson_install();
}

/* test_xalloc.c - cJSON inside xalloc's out-of-memory policy (src/common/xalloc_cjson.h):
 * an allocation cJSON cannot get aborts with xmalloc's message, as belay's own do, instead of
 * returning NULL for a cJSON_Add* caller to dereference; and every main that links cJSON
 * installs the hooks (test programs get them from tests/harness/xalloc_hooks.c, which this
 * program is itself built with). */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tsupport.h"

#ifdef BELAY_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif

#ifdef BELAY_SANITIZED
/* AddressSanitizer would end the process itself on an impossible size (before malloc
 * returns); let malloc return NULL, as it does without the sanitizer, so xmalloc sees it.
 * ASAN_OPTIONS in the environment still wins for any option it names. */
__attribute__((used, visibility("default"))) const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
#endif

/* Runs fn in a child with stderr captured; returns its wait status, *err its stderr. */
static int in_child(void (*fn)(void), char **err)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 2);
		fn();
		_exit(0);
	}
	close(p[1]);
	size_t n = 0;
	*err = NULL;
	while (ts_read_some(p[0], err, &n))
		;
	close(p[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	return st;
}

static void cjson_huge_malloc(void)
{
#ifdef BELAY_SANITIZED
	/* its warning that it returns NULL is this child's stderr, not a report in scripts/test.sh's log directory */
	__sanitizer_set_report_path("stderr");
#endif
	void *p = cJSON_malloc(SIZE_MAX / 4);
	fprintf(stderr, "cJSON_malloc returned %s\n", p ? "memory" : "NULL");
	free(p);
}

Test(xalloc, cjson_out_of_memory_aborts_with_xmallocs_message)
{
	char *err = NULL;
	int st = in_child(cjson_huge_malloc, &err);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %d, stderr: %s", st, err ? err : "");
	cr_assert(err && strstr(err, "belay: fatal (xmalloc): out of memory allocating"), "stderr: %s", err ? err : "");
	free(err);
}

static void cjson_parse_and_print(void)
{
	cJSON *v = cJSON_Parse("{\"a\":[1,2,{\"b\":\"c\"}]}");
	cJSON_AddStringToObject(v, "d", "e");
	char *s = cJSON_PrintUnformatted(v);
	fprintf(stderr, "%s\n", s);
	cJSON_free(s);
	cJSON_Delete(v);
}

Test(xalloc, cjson_still_parses_prints_and_frees_through_the_hooks)
{
	char *err = NULL;
	int st = in_child(cjson_parse_and_print, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d, stderr: %s", st, err ? err : "");
	cr_assert(err && strstr(err, "{\"a\":[1,2,{\"b\":\"c\"}],\"d\":\"e\"}"), "stderr: %s", err ? err : "");
	free(err);
}

/* Every main of src/bin and bench installs the hooks first, except the two executables that
 * do not link cJSON at all. */
static const char *no_cjson[] = {"belay-launch.c", "belay-otlp-post.c", NULL};

static void check_mains(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", BELAY_SOURCE_DIR, dir);
	DIR *d = opendir(path);
	cr_assert(d, "%s", path);
	int mains = 0;
	for (struct dirent *de; (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (len < 3 || strcmp(de->d_name + len - 2, ".c") != 0)
			continue;
		int skip = 0;
		for (const char **s = no_cjson; *s; s++)
			skip |= strcmp(*s, de->d_name) == 0;
		snprintf(path, sizeof path, "%s/%s/%s", BELAY_SOURCE_DIR, dir, de->d_name);
		char *text = ts_read_file(path, NULL);
		cr_assert(text, "%s", path);
		char *m = strstr(text, "\nint main(");
		if (m) {
			mains++;
			char *body = strstr(m, "\n{\n");
			int first = body && strncmp(body + 3, "\txalloc_cjson_install();\n", 25) == 0;
			if (skip)
				cr_assert(!strstr(text, "cJSON"), "%s uses cJSON: it must install the hooks", path);
			else
				cr_assert(first, "%s: main must call xalloc_cjson_install() first", path);
		}
		free(text);
	}
	closedir(d);
	cr_assert(mains > 0, "no main in %s", dir);
}

Test(xalloc, every_main_that_links_cjson_installs_the_hooks_first)
{
	check_mains("src/bin");
	check_mains("bench");
	const char *lists[] = {"tests/CMakeLists.txt", "tests/fuzz/CMakeLists.txt"};
	for (size_t i = 0; i < 2; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", BELAY_SOURCE_DIR, lists[i]);
		char *text = ts_read_file(path, NULL);
		cr_assert(text && strstr(text, "harness/xalloc_hooks.c"), "%s does not build its programs with the hooks", path);
		free(text);
	}
}

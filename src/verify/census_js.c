/* census_js.c - the census's JavaScript runner: vitest, as the project installed it, asked
 * `vitest list --json --includeTaskLocation` (each collected test's name, file and position),
 * contained like every discovery (census.h).
 *
 * vitest lists the tests it would run: a skipped test (`test.skip`, `describe.skip`,
 * `.todo`) is not listed at all, so it reads as no longer collected, and the census names it
 * as dropped. The instances of a parametrised test (`test.each`) share one position; they
 * are folded into one test named by their common words ("adds 1", "adds 2" -> "adds"), so
 * an honest parameter change is not a disappearance. What the runner printed is hostile:
 * only the JSON array is read (bounded by the contained run's output cap). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "verify/census.h"
#include "verify/census_internal.h"

int census_vitest_detect(int dirfd)
{
	struct stat sb;
	if (fstatat(dirfd, "node_modules/vitest/vitest.mjs", &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
		return 0;
	int fd = openat(dirfd, "package.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char b[65536];
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	return strstr(b, "\"vitest\"") != NULL;
}

struct listed {
	char *file, *name;
	long line, col;
};

static int cmp_pos(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int is_sep(char c)
{
	return c == ' ' || c == ',' || c == '(' || c == ')' || c == '[' || c == ']' || c == '-' || c == '_' || c == ':' ||
	       c == '=';
}

/* The words the names of a parametrised test's instances share: their common prefix, cut back
 * to its last separator, separators trimmed ("adds 1", "adds 10" -> "adds"). */
static size_t common_words(struct listed *v, size_t n)
{
	size_t len = strlen(v[0].name);
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;
		while (k < len && v[i].name[k] && v[i].name[k] == v[0].name[k])
			k++;
		len = k;
	}
	size_t cut = len;
	while (cut > 0 && !is_sep(v[0].name[cut - 1]))
		cut--;
	if (cut == 0)
		cut = len; /* no separator in it: the prefix itself */
	while (cut > 0 && is_sep(v[0].name[cut - 1]))
		cut--;
	return cut;
}

void census_run_vitest(const struct census_opts *o, const char *root, struct census_run *cr, struct err *e)
{
	char *node = fs_which("node");
	if (!node) {
		cr->status = CENSUS_NONE;
		snprintf(cr->detail, sizeof cr->detail, "vitest: no node on PATH");
		return;
	}
	char *envbin = fs_which("env"), *home = xasprintf("HOME=%s", o->tmpdir);
	char *argv[] = {envbin ? envbin : "/usr/bin/env", home, "CI=1", "NO_COLOR=1", node, "node_modules/vitest/vitest.mjs",
			"list", "--json", "--includeTaskLocation", NULL};
	struct crun r;
	if (census_run_listing(o, root, argv, "vitest", cr, &r, e) != 0)
		goto out;
	const char *s = r.out.p ? r.out.p : "";
	const char *lb = memchr(s, '[', r.out.len);
	cJSON *arr = lb ? cJSON_ParseWithLength(lb, r.out.len - (size_t)(lb - s)) : NULL;
	if (!cJSON_IsArray(arr) || r.timed_out) {
		char t[420];
		census_tail(t, sizeof t, r.err.len ? &r.err : &r.out);
		cr->status = r.net_denied ? CENSUS_NETWORK : CENSUS_ERROR;
		snprintf(cr->detail, sizeof cr->detail, "vitest list %s (exit %d)%s%s",
			 r.timed_out ? "did not finish within the time bound" : "printed no listing", r.exit_code, *t ? ": " : "",
			 t);
		cJSON_Delete(arr);
		census_crun_free(&r);
		goto out;
	}
	size_t rl = strlen(root), n = 0;
	struct listed *v = xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *v);
	for (const cJSON *it = arr->child; it; it = it->next) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "name"));
		const char *file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "file"));
		if (!name || !file || !*name)
			continue;
		if (!strncmp(file, root, rl) && file[rl] == '/')
			file += rl + 1;
		const cJSON *loc = cJSON_GetObjectItemCaseSensitive(it, "location");
		v[n++] = (struct listed){xstrdup(file), xstrdup(name),
					 (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(loc, "line")),
					 (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(loc, "column"))};
	}
	cJSON_Delete(arr);
	qsort(v, n, sizeof *v, cmp_pos);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j].line > 0 && !strcmp(v[j].file, v[i].file) && v[j].line == v[i].line && v[j].col == v[i].col)
			j++;
		size_t len = j - i > 1 ? common_words(v + i, j - i) : strlen(v[i].name);
		census_add_test(cr, v[i].file, strlen(v[i].file), v[i].name, len ? len : strlen(v[i].name), 'R', NULL);
		i = j;
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].file);
		free(v[i].name);
	}
	free(v);
	cr->status = CENSUS_OK;
	census_fold(cr);
	census_crun_free(&r);
out:
	free(node);
	free(envbin);
	free(home);
}

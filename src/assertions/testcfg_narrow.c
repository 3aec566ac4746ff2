/* testcfg_narrow.c - which changes of test configuration make a suite run less, or pass
 * whatever happens (see testcfg.h, testcfg_narrowed).
 *
 * Responsibility: given the two sides' projections of one configuration file (testcfg.c),
 * name the first change that narrows discovery or execution (an ignore or deselect added, a
 * test path or target dropped, `-k` / `--testNamePattern` added), skips the tests, makes the
 * suite succeed whatever it finds (`|| true`, `--passWithNoTests`, testFailureIgnore), or
 * lowers a coverage threshold. Anything else that changed stays "changed" for the caller (not
 * judged). One section per format family; every rule is a row of a table where it can be.
 * Threads: any; no state. Must not: read files, print. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assertions/testcfg.h"
#include "common/xalloc.h"

/*==== words and lists =======================================================================*/

struct words {
	char **w;
	size_t n;
};

static void words_free(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
	ws->w = NULL;
	ws->n = 0;
}

static void words_add(struct words *ws, const char *s, size_t n)
{
	ws->w = xrealloc(ws->w, (ws->n + 1) * sizeof *ws->w);
	char *w = xmalloc(n + 1);
	memcpy(w, s, n);
	w[n] = '\0';
	ws->w[ws->n++] = w;
}

/* Splits a command line or a list the way a shell (roughly) or an INI list would: whitespace
 * separates, quotes group and are dropped. */
static void split_into(struct words *ws, const char *s)
{
	char *tmp = xmalloc(strlen(s) + 1);
	while (*s) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		size_t k = 0;
		char q = 0;
		while (*s && (q || !isspace((unsigned char)*s))) {
			if (!q && (*s == '"' || *s == '\'')) {
				q = *s++;
				continue;
			}
			if (q && *s == q) {
				q = 0;
				s++;
				continue;
			}
			tmp[k++] = *s++;
		}
		words_add(ws, tmp, k);
	}
	free(tmp);
}

/* The words of a value: a string split, an array's strings split. */
static void value_words(const cJSON *v, struct words *ws)
{
	if (cJSON_IsString(v))
		split_into(ws, v->valuestring);
	else if (cJSON_IsArray(v)) {
		const cJSON *e;
		cJSON_ArrayForEach(e, v) if (cJSON_IsString(e)) split_into(ws, e->valuestring);
	}
}

static int has_word(const struct words *ws, const char *w)
{
	for (size_t i = 0; i < ws->n; i++)
		if (strcmp(ws->w[i], w) == 0)
			return 1;
	return 0;
}

/* The first word of `b` missing from `a`, or NULL. */
static const char *gained(const struct words *a, const struct words *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (!has_word(a, b->w[i]))
			return b->w[i];
	return NULL;
}

/* The first option of `flags` that `b` uses and `a` does not ("-k", "-kfoo", "--ignore=x"). */
static const char *gained_flag(const struct words *a, const struct words *b, const char *const *flags)
{
	for (const char *const *f = flags; *f; f++) {
		size_t n = strlen(*f);
		int in_a = 0, in_b = 0;
		for (size_t i = 0; i < a->n; i++)
			in_a |= strncmp(a->w[i], *f, n) == 0 && (a->w[i][n] == 0 || a->w[i][n] == '=' || (*f)[1] != '-');
		for (size_t i = 0; i < b->n; i++)
			in_b |= strncmp(b->w[i], *f, n) == 0 && (b->w[i][n] == 0 || b->w[i][n] == '=' || (*f)[1] != '-');
		if (in_b && !in_a)
			return *f;
	}
	return NULL;
}

/* A number from a JSON number or a numeric string; 0 with *ok = 0 otherwise. */
static double number(const cJSON *v, int *ok)
{
	*ok = 1;
	if (cJSON_IsNumber(v))
		return v->valuedouble;
	if (cJSON_IsString(v)) {
		char *end;
		double d = strtod(v->valuestring, &end);
		while (*end && isspace((unsigned char)*end))
			end++;
		if (end != v->valuestring && !*end)
			return d;
	}
	*ok = 0;
	return 0;
}

/* true / "true" / "1" / "yes" / "on" */
static int truthy(const cJSON *v)
{
	if (cJSON_IsTrue(v))
		return 1;
	if (!cJSON_IsString(v))
		return 0;
	const char *s = v->valuestring;
	return !strcasecmp(s, "true") || !strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "on");
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

struct verdict {
	const char *finding;
	char detail[320];
	int found;
};

static void say(struct verdict *v, const char *finding, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct verdict *v, const char *finding, const char *fmt, ...)
{
	if (v->found)
		return;
	v->found = 1;
	v->finding = finding;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->detail, sizeof v->detail, fmt, ap);
	va_end(ap);
}

/* Words of key `k` of both sides; the first word `b` gained. */
static void list_gained(struct verdict *v, const char *where, const cJSON *a, const cJSON *b, const char *k,
			const char *finding)
{
	struct words wa = {0}, wb = {0};
	value_words(get(a, k), &wa);
	value_words(get(b, k), &wb);
	const char *g = gained(&wa, &wb);
	if (g)
		say(v, finding, "%s %s gained \"%.120s\"", where, k, g);
	words_free(&wa);
	words_free(&wb);
}

/* Words of key `k` that `b` lost while keeping some (an emptied list means the default). */
static void list_lost(struct verdict *v, const char *where, const cJSON *a, const cJSON *b, const char *k,
		      const char *finding)
{
	struct words wa = {0}, wb = {0};
	value_words(get(a, k), &wa);
	value_words(get(b, k), &wb);
	const char *l = gained(&wb, &wa);
	if (l && (wb.n > 0 || !get(b, k)))
		say(v, finding, "%s %s lost \"%.120s\"", where, k, l);
	words_free(&wa);
	words_free(&wb);
}

static void number_lowered(struct verdict *v, const char *where, const cJSON *a, const cJSON *b, const char *k)
{
	int oka, okb;
	double x = number(get(a, k), &oka), y = number(get(b, k), &okb);
	if (!oka || x == 0)
		return;
	if (!get(b, k))
		say(v, "coverage-threshold-lowered", "%s %s %g removed", where, k, x);
	else if (okb && y < x)
		say(v, "coverage-threshold-lowered", "%s %s %g -> %g", where, k, x, y);
}

static void flag_turned(struct verdict *v, const char *where, const cJSON *a, const cJSON *b, const char *k, int to,
			const char *finding)
{
	if (truthy(get(b, k)) == to && truthy(get(a, k)) != to && (to || get(a, k)))
		say(v, finding, "%s %s turned %s", where, k, to ? "on" : "off");
}

/*==== pytest and coverage ===================================================================*/

/* Options of pytest (and pytest-cov) that run fewer tests than the configuration collects. */
static const char *const PYTEST_NARROW[] = {"-k",   "-m",	    "--deselect", "--ignore-glob", "--ignore",	     "--lf",
					     "--last-failed", "--sw", "--stepwise", "--co",	    "--collect-only", NULL};

static void cov_fail_under(const struct words *w, double *v, int *ok)
{
	*ok = 0;
	for (size_t i = 0; i < w->n; i++) {
		const char *s = w->w[i];
		if (strncmp(s, "--cov-fail-under", 16) != 0)
			continue;
		const char *num = s[16] == '=' ? s + 17 : i + 1 < w->n ? w->w[i + 1] : NULL;
		char *end;
		if (num && (*v = strtod(num, &end), end != num))
			*ok = 1;
	}
}

static void pytest_section(struct verdict *v, const char *where, const cJSON *a, const cJSON *b)
{
	if (!a && !b)
		return;
	struct words wa = {0}, wb = {0};
	value_words(get(a, "addopts"), &wa);
	value_words(get(b, "addopts"), &wb);
	const char *f = gained_flag(&wa, &wb, PYTEST_NARROW);
	if (f)
		say(v, "discovery-narrowed", "%s addopts gained %s", where, f);
	double x, y;
	int oka, okb;
	cov_fail_under(&wa, &x, &oka);
	cov_fail_under(&wb, &y, &okb);
	if (oka && (!okb || y < x))
		say(v, "coverage-threshold-lowered", "%s addopts --cov-fail-under %g -> %s", where, x, okb ? "lower" : "removed");
	words_free(&wa);
	words_free(&wb);
	list_lost(v, where, a, b, "testpaths", "discovery-narrowed");
	list_gained(v, where, a, b, "norecursedirs", "discovery-narrowed");
	list_gained(v, where, a, b, "collect_ignore", "discovery-narrowed");
}

static void coverage_sections(struct verdict *v, const char *where, const cJSON *run_a, const cJSON *run_b,
			      const cJSON *rep_a, const cJSON *rep_b)
{
	(void)run_a, (void)run_b; /* an omit list grown is often honest (generated code): left changed */
	number_lowered(v, where, rep_a, rep_b, "fail_under");
}

/*==== JavaScript ============================================================================*/

static const char *const JS_NARROW[] = {"-t",	    "--testNamePattern", "--testPathIgnorePatterns", "--testPathPattern",
					"--grep",   "-g",		 "--fgrep",		     "--exclude",
					"--ignore", "--onlyChanged",	 "-o",			     "--changedSince",
					"--findRelatedTests", "--lastCommit", NULL};
static const char *const JS_MADE_TO_PASS[] = {"--passWithNoTests", "--pass-with-no-tests", NULL};

/* 1 when a test script ends in something that succeeds whatever the suite did. */
static int forgives(const char *s)
{
	static const char *const tails[] = {"|| true", "|| exit 0", "||true", "|| :", "; true", "; exit 0", "|| echo",
					    "|| node -e", "; echo", NULL};
	for (const char *const *t = tails; *t; t++)
		if (strstr(s, *t))
			return 1;
	if (strstr(s, "exit 1") || strstr(s, "false"))
		return 0; /* npm's own placeholder: echo "Error: no test specified" && exit 1 */
	while (isspace((unsigned char)*s))
		s++;
	static const char *const heads[] = {"echo", "true", "exit 0", ":", NULL};
	for (const char *const *h = heads; *h; h++) {
		size_t n = strlen(*h);
		if (strncmp(s, *h, n) == 0 && (s[n] == 0 || isspace((unsigned char)s[n]) || s[n] == ';'))
			return 1;
	}
	return 0;
}

static void test_script(struct verdict *v, const char *name, const cJSON *a, const cJSON *b)
{
	if (!cJSON_IsString(b))
		return;
	const char *pa = cJSON_IsString(a) ? a->valuestring : "", *pb = b->valuestring;
	if (forgives(pb) && !forgives(pa))
		say(v, "suite-made-to-pass", "%s now succeeds whatever the tests do: \"%.120s\"", name, pb);
	struct words wa = {0}, wb = {0};
	split_into(&wa, pa);
	split_into(&wb, pb);
	const char *f = gained_flag(&wa, &wb, JS_MADE_TO_PASS);
	if (f)
		say(v, "suite-made-to-pass", "%s gained %s", name, f);
	f = gained_flag(&wa, &wb, JS_NARROW);
	if (f)
		say(v, "discovery-narrowed", "%s gained %s", name, f);
	f = gained_flag(&wa, &wb, PYTEST_NARROW);
	if (f && strstr(pb, "pytest"))
		say(v, "discovery-narrowed", "%s gained %s", name, f);
	words_free(&wa);
	words_free(&wb);
}

/* Lowered numbers anywhere under a coverageThreshold-like object. */
static void thresholds_lowered(struct verdict *v, const char *where, const cJSON *a, const cJSON *b, int depth)
{
	if (!cJSON_IsObject(a) || depth > 8)
		return;
	const cJSON *m;
	cJSON_ArrayForEach(m, a)
	{
		const cJSON *o = get(b, m->string);
		if (cJSON_IsObject(m)) {
			thresholds_lowered(v, where, m, o, depth + 1);
			continue;
		}
		int oka, okb;
		double x = number(m, &oka), y = number(o, &okb);
		if (oka && (!o || (okb && fabs(y) < fabs(x))))
			say(v, "coverage-threshold-lowered", "%s %s %g -> %s", where, m->string, x, o ? "lower" : "removed");
	}
}

static void jest_config(struct verdict *v, const char *where, const cJSON *a, const cJSON *b)
{
	if (!cJSON_IsObject(b))
		return;
	static const char *const ignores[] = {"testPathIgnorePatterns", "modulePathIgnorePatterns",
					      "coveragePathIgnorePatterns", NULL};
	for (const char *const *k = ignores; *k; k++)
		if (!strstr(*k, "coverage"))
			list_gained(v, where, a, b, *k, "discovery-narrowed");
	flag_turned(v, where, a, b, "passWithNoTests", 1, "suite-made-to-pass");
	thresholds_lowered(v, where, get(a, "coverageThreshold"), get(b, "coverageThreshold"), 0);
}

static void mocha_config(struct verdict *v, const char *where, const cJSON *a, const cJSON *b)
{
	if (!cJSON_IsObject(b))
		return;
	list_gained(v, where, a, b, "ignore", "discovery-narrowed");
	list_gained(v, where, a, b, "exclude", "discovery-narrowed");
	if (get(b, "grep") && !cJSON_Compare(get(a, "grep"), get(b, "grep"), 1))
		say(v, "discovery-narrowed", "%s grep set", where);
	if (get(b, "fgrep") && !cJSON_Compare(get(a, "fgrep"), get(b, "fgrep"), 1))
		say(v, "discovery-narrowed", "%s fgrep set", where);
	flag_turned(v, where, a, b, "forbidOnly", 0, "discovery-narrowed");
	flag_turned(v, where, a, b, "forbid-only", 0, "discovery-narrowed");
}

static void nyc_config(struct verdict *v, const char *where, const cJSON *a, const cJSON *b)
{
	if (!cJSON_IsObject(b) && !cJSON_IsObject(a))
		return;
	flag_turned(v, where, a, b, "check-coverage", 0, "coverage-threshold-lowered");
	static const char *const nums[] = {"lines", "branches", "functions", "statements", NULL};
	for (const char *const *k = nums; *k; k++)
		number_lowered(v, where, a, b, *k);
}

/*==== Cargo and Maven =======================================================================*/

/* The names of the [[test]] targets. */
static void target_names(const cJSON *arr, struct words *ws)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, arr)
	{
		const cJSON *n = get(t, "name");
		if (cJSON_IsString(n))
			words_add(ws, n->valuestring, strlen(n->valuestring));
	}
}

/* A [[test]] target kept by name whose `test` or `harness` turned false: it no longer runs
 * (test = false) or no longer runs its #[test] functions (harness = false). */
static void target_flags(struct verdict *v, const cJSON *pre, const cJSON *post)
{
	const cJSON *q;
	cJSON_ArrayForEach(q, post)
	{
		const cJSON *name = get(q, "name"), *p = NULL, *t;
		cJSON_ArrayForEach(t, pre)
		{
			const cJSON *n = get(t, "name");
			if (cJSON_IsString(name) && cJSON_IsString(n) && !strcmp(n->valuestring, name->valuestring))
				p = t;
		}
		if (!p)
			continue;
		static const char *const keys[] = {"test", "harness"};
		for (size_t i = 0; i < 2; i++)
			if (cJSON_IsFalse(get(q, keys[i])) && !cJSON_IsFalse(get(p, keys[i])))
				say(v, "tests-skipped", "[[test]] \"%.120s\": %s = false", name->valuestring, keys[i]);
	}
}

static void cargo(struct verdict *v, const cJSON *a, const cJSON *b)
{
	struct words wa = {0}, wb = {0};
	target_names(get(a, "[[test]]"), &wa);
	target_names(get(b, "[[test]]"), &wb);
	const char *l = gained(&wb, &wa);
	if (l)
		say(v, "discovery-narrowed", "[[test]] target \"%.120s\" removed", l);
	words_free(&wa);
	words_free(&wb);
	if (cJSON_IsFalse(get(get(b, "lib"), "test")) && !cJSON_IsFalse(get(get(a, "lib"), "test")))
		say(v, "tests-skipped", "lib.test = false");
	if (cJSON_IsFalse(get(get(b, "lib"), "harness")) && !cJSON_IsFalse(get(get(a, "lib"), "harness")))
		say(v, "tests-skipped", "lib.harness = false (libtest no longer runs the #[test] functions)");
	target_flags(v, get(a, "[[test]]"), get(b, "[[test]]"));
	if (cJSON_IsFalse(get(b, "package.autotests")) && !cJSON_IsFalse(get(a, "package.autotests")))
		say(v, "discovery-narrowed", "package.autotests = false");
	/* the checks `cargo test` makes turned off: debug_assert! and arithmetic overflow no
	 * longer panic (the test profile inherits dev's) */
	static const char *const checks[][2] = {{"profile.dev.debug-assertions", NULL},
						 {"profile.dev.overflow-checks", NULL},
						 {"profile.test", "debug-assertions"},
						 {"profile.test", "overflow-checks"}};
	for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
		const cJSON *x = get(b, checks[i][0]), *y = get(a, checks[i][0]);
		if (checks[i][1])
			x = get(x, checks[i][1]), y = get(y, checks[i][1]);
		if (cJSON_IsFalse(x) && !cJSON_IsFalse(y))
			say(v, "assertions-disabled", "%s%s%s = false", checks[i][0], checks[i][1] ? "." : "",
			    checks[i][1] ? checks[i][1] : "");
	}
	list_lost(v, "workspace", a, b, "workspace.members", "discovery-narrowed");
	list_gained(v, "workspace", a, b, "workspace.exclude", "discovery-narrowed");
}

/* Every element named `name` under a canonical element (pomxml.h), its text into `out`. */
static void pom_texts(const cJSON *el, const char *name, struct words *out, int depth)
{
	if (!cJSON_IsObject(el) || depth > 64)
		return;
	const cJSON *n = get(el, "name"), *t = get(el, "text");
	if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0 && cJSON_IsString(t))
		words_add(out, t->valuestring, strlen(t->valuestring));
	const cJSON *c;
	cJSON_ArrayForEach(c, get(el, "children")) pom_texts(c, name, out, depth + 1);
}

static void pom_all(const cJSON *proj, const char *name, struct words *out)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, get(proj, "plugins")) pom_texts(p, name, out, 0);
}

static int any_true(const struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcasecmp(w->w[i], "true"))
			return 1;
	return 0;
}

static void pom(struct verdict *v, const cJSON *a, const cJSON *b)
{
	static const struct {
		const char *name, *finding;
	} flags[] = {
	    {"skipTests", "tests-skipped"},	    {"skip", "tests-skipped"},
	    {"skipExec", "tests-skipped"},	    {"skipITs", "tests-skipped"},
	    {"maven.test.skip", "tests-skipped"},   {"maven.test.skip.exec", "tests-skipped"},
	    {"testFailureIgnore", "suite-made-to-pass"}, {"maven.test.failure.ignore", "suite-made-to-pass"},
	    {"maven.test.error.ignore", "suite-made-to-pass"}, {"haltOnFailure", NULL},
	};
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		struct words wa = {0}, wb = {0};
		pom_all(a, flags[i].name, &wa);
		pom_all(b, flags[i].name, &wb);
		const cJSON *pa = get(get(a, "properties"), flags[i].name), *pb = get(get(b, "properties"), flags[i].name);
		if (cJSON_IsString(pa))
			words_add(&wa, pa->valuestring, strlen(pa->valuestring));
		if (cJSON_IsString(pb))
			words_add(&wb, pb->valuestring, strlen(pb->valuestring));
		if (!flags[i].finding) { /* jacoco haltOnFailure turned off: the check no longer fails */
			if (has_word(&wb, "false") && !has_word(&wa, "false"))
				say(v, "coverage-threshold-lowered", "jacoco haltOnFailure = false");
		} else if (any_true(&wb) && !any_true(&wa)) {
			say(v, flags[i].finding, "%s = true", flags[i].name);
		}
		words_free(&wa);
		words_free(&wb);
	}
	static const struct {
		const char *name;
		int gained_narrows; /* 1: an element gained narrows; 0: an element lost narrows */
	} lists[] = {{"exclude", 1}, {"excludedGroups", 1}, {"include", 0}, {"test", 1}, {"groups", 1}};
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		struct words wa = {0}, wb = {0};
		pom_all(a, lists[i].name, &wa);
		pom_all(b, lists[i].name, &wb);
		const char *x = lists[i].gained_narrows ? gained(&wa, &wb) : (wb.n ? gained(&wb, &wa) : NULL);
		if (x)
			say(v, "discovery-narrowed", "surefire/failsafe <%s> %s \"%.120s\"", lists[i].name,
			    lists[i].gained_narrows ? "gained" : "lost", x);
		words_free(&wa);
		words_free(&wb);
	}
	struct words ma = {0}, mb = {0};
	pom_all(a, "minimum", &ma);
	pom_all(b, "minimum", &mb);
	for (size_t i = 0; i < ma.n && i < mb.n; i++) {
		double x = strtod(ma.w[i], NULL), y = strtod(mb.w[i], NULL);
		if (y < x)
			say(v, "coverage-threshold-lowered", "jacoco minimum %s -> %s", ma.w[i], mb.w[i]);
	}
	if (mb.n < ma.n)
		say(v, "coverage-threshold-lowered", "jacoco lost %zu minimum(s)", ma.n - mb.n);
	words_free(&ma);
	words_free(&mb);
}

/*==== entry =================================================================================*/

static const cJSON *path2(const cJSON *o, const char *a, const char *b)
{
	return get(get(o, a), b);
}

int testcfg_narrowed(const struct testfile *tf, const cJSON *a, const cJSON *b, const char **finding, char *detail,
		     size_t n)
{
	struct verdict v = {0};
	switch (tf->cfg) {
	case TESTCFG_PYTEST_INI:
		pytest_section(&v, "[pytest]", get(a, "pytest"), get(b, "pytest"));
		break;
	case TESTCFG_SETUP_CFG:
		pytest_section(&v, "[tool:pytest]", get(a, "tool:pytest"), get(b, "tool:pytest"));
		coverage_sections(&v, "[coverage:report]", get(a, "coverage:run"), get(b, "coverage:run"),
				  get(a, "coverage:report"), get(b, "coverage:report"));
		break;
	case TESTCFG_TOX_INI: {
		pytest_section(&v, "[pytest]", get(a, "pytest"), get(b, "pytest"));
		coverage_sections(&v, "[coverage:report]", get(a, "coverage:run"), get(b, "coverage:run"),
				  get(a, "coverage:report"), get(b, "coverage:report"));
		const cJSON *env;
		cJSON_ArrayForEach(env, b)
		{
			if (strncmp(env->string, "testenv", 7) != 0)
				continue;
			const cJSON *pre = get(a, env->string);
			char where[160];
			snprintf(where, sizeof where, "[%.120s]", env->string);
			const cJSON *ca = get(pre, "commands"), *cb = get(env, "commands");
			if (cJSON_IsString(cb)) {
				test_script(&v, where, ca, cb);
				/* tox ignores the exit status of a command written "- cmd" */
				int ign_b = cb->valuestring[0] == '-' || strstr(cb->valuestring, "\n-"),
				    ign_a = cJSON_IsString(ca) && (ca->valuestring[0] == '-' || strstr(ca->valuestring, "\n-"));
				if (ign_b && !ign_a)
					say(&v, "suite-made-to-pass", "%s commands ignore their exit status (\"- ...\")", where);
			}
			flag_turned(&v, where, pre, env, "ignore_outcome", 1, "suite-made-to-pass");
			flag_turned(&v, where, pre, env, "ignore_errors", 1, "suite-made-to-pass");
		}
		list_lost(&v, "[tox]", get(a, "tox"), get(b, "tox"), "envlist", "discovery-narrowed");
		list_lost(&v, "[tox]", get(a, "tox"), get(b, "tox"), "env_list", "discovery-narrowed");
		break;
	}
	case TESTCFG_COVERAGERC:
		coverage_sections(&v, "[report]", get(a, "run"), get(b, "run"), get(a, "report"), get(b, "report"));
		break;
	case TESTCFG_PYPROJECT: {
		const cJSON *pa = get(a, "tool.pytest"), *pb = get(b, "tool.pytest");
		pytest_section(&v, "[tool.pytest.ini_options]", get(pa, "ini_options"), get(pb, "ini_options"));
		pytest_section(&v, "[tool.pytest]", pa, pb);
		const cJSON *ca = get(a, "tool.coverage"), *cb = get(b, "tool.coverage");
		coverage_sections(&v, "[tool.coverage.report]", get(ca, "run"), get(cb, "run"), get(ca, "report"),
				  get(cb, "report"));
		break;
	}
	case TESTCFG_PACKAGE_JSON: {
		const cJSON *s;
		cJSON_ArrayForEach(s, b) if (strncmp(s->string, "scripts.", 8) == 0)
		    test_script(&v, s->string, get(a, s->string), s);
		jest_config(&v, "jest", get(a, "jest"), get(b, "jest"));
		mocha_config(&v, "mocha", get(a, "mocha"), get(b, "mocha"));
		nyc_config(&v, "nyc", get(a, "nyc"), get(b, "nyc"));
		nyc_config(&v, "c8", get(a, "c8"), get(b, "c8"));
		break;
	}
	case TESTCFG_JSON_FILE:
		if (strstr(tf->convention, "jest"))
			jest_config(&v, tf->convention, a, b);
		else if (strstr(tf->convention, "mocharc"))
			mocha_config(&v, tf->convention, a, b);
		else if (strstr(tf->convention, "nycrc") || strstr(tf->convention, "c8rc"))
			nyc_config(&v, tf->convention, a, b);
		break;
	case TESTCFG_CARGO_TOML:
		cargo(&v, a, b);
		break;
	case TESTCFG_POM_XML:
		pom(&v, a, b);
		{
			const cJSON *p;
			cJSON_ArrayForEach(p, get(b, "profiles"))
			{
				/* A profile's own properties: the same flags. */
				cJSON *x = cJSON_CreateObject(), *y = cJSON_CreateObject();
				cJSON_AddItemReferenceToObject(x, "properties", (cJSON *)path2(get(a, "profiles"), p->string, "properties"));
				cJSON_AddItemReferenceToObject(y, "properties", (cJSON *)get(p, "properties"));
				pom(&v, x, y);
				cJSON_Delete(x);
				cJSON_Delete(y);
			}
		}
		break;
	default:
		break;
	}
	if (!v.found)
		return 0;
	*finding = v.finding;
	snprintf(detail, n, "%s", v.detail);
	return 1;
}

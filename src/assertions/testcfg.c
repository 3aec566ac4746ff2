/* testcfg.c - test configuration files judged on their test-relevant keys (see testcfg.h).
 *
 * Responsibility: parse each side with its format's parser, project it onto the test-relevant
 * keys (one projection function per format family), compare the projections as data, and
 * name the keys that differ. Threads: any. Must not: read files, print. */
#include "assertions/testcfg.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "assertions/ini.h"
#include "assertions/pomxml.h"
#include "assertions/toml.h"
#include "common/buf.h"
#include "common/err.h"

/*==== projections ===========================================================================*/

/* Copies `key` of `from` (when present) into `to` under `as`. */
static void keep(cJSON *to, const cJSON *from, const char *key, const char *as)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);
	if (v)
		cJSON_AddItemToObject(to, as ? as : key, cJSON_Duplicate(v, 1));
}

/* INI: the sections named in `exact`, those starting with a prefix in `prefixes`. For tox's
 * [testenv*] sections only the keys in `env_keys` count. */
static cJSON *project_ini(const cJSON *doc, const char *const *exact, const char *const *prefixes,
			  const char *const *env_keys)
{
	cJSON *p = cJSON_CreateObject();
	const cJSON *sec;
	cJSON_ArrayForEach(sec, doc)
	{
		int take = 0;
		for (const char *const *x = exact; x && *x && !take; x++)
			take = strcmp(sec->string, *x) == 0;
		for (const char *const *x = prefixes; x && *x && !take; x++)
			take = strncmp(sec->string, *x, strlen(*x)) == 0;
		if (take) {
			cJSON_AddItemToObject(p, sec->string, cJSON_Duplicate(sec, 1));
			continue;
		}
		if (env_keys && (strcmp(sec->string, "testenv") == 0 || strncmp(sec->string, "testenv:", 8) == 0)) {
			cJSON *o = cJSON_CreateObject();
			for (const char *const *k = env_keys; *k; k++)
				keep(o, sec, *k, NULL);
			cJSON_AddItemToObject(p, sec->string, o);
		}
	}
	return p;
}

static cJSON *project_pyproject(const cJSON *doc)
{
	cJSON *p = cJSON_CreateObject();
	const cJSON *tool = cJSON_GetObjectItemCaseSensitive(doc, "tool");
	keep(p, tool, "pytest", "tool.pytest");
	keep(p, tool, "coverage", "tool.coverage");
	keep(p, tool, "tox", "tool.tox");
	return p;
}

static cJSON *project_cargo(const cJSON *doc)
{
	cJSON *p = cJSON_CreateObject();
	keep(p, doc, "test", "[[test]]");
	const cJSON *lib = cJSON_GetObjectItemCaseSensitive(doc, "lib");
	static const char *const target_keys[] = {"test", "harness", "doctest", NULL};
	cJSON *l = cJSON_CreateObject();
	for (const char *const *k = target_keys; *k; k++)
		keep(l, lib, *k, NULL);
	cJSON_AddItemToObject(p, "lib", l);
	const cJSON *bins = cJSON_GetObjectItemCaseSensitive(doc, "bin");
	cJSON *b = cJSON_CreateArray();
	const cJSON *bin;
	cJSON_ArrayForEach(bin, bins)
	{
		cJSON *o = cJSON_CreateObject();
		for (const char *const *k = target_keys; *k; k++)
			keep(o, bin, *k, NULL);
		if (cJSON_GetArraySize(o) > 0)
			keep(o, bin, "name", NULL);
		cJSON_AddItemToArray(b, o);
	}
	cJSON_AddItemToObject(p, "[[bin]]", b);
	keep(p, cJSON_GetObjectItemCaseSensitive(doc, "package"), "autotests", "package.autotests");
	keep(p, cJSON_GetObjectItemCaseSensitive(doc, "profile"), "test", "profile.test");
	/* `cargo test` builds with the test profile, which inherits dev: whether debug_assert!
	 * and overflow checks panic */
	const cJSON *dev = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "profile"), "dev");
	keep(p, dev, "debug-assertions", "profile.dev.debug-assertions");
	keep(p, dev, "overflow-checks", "profile.dev.overflow-checks");
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(doc, "workspace");
	keep(p, ws, "members", "workspace.members");
	keep(p, ws, "exclude", "workspace.exclude");
	keep(p, ws, "default-members", "workspace.default-members");
	keep(p, cJSON_GetObjectItemCaseSensitive(doc, "features"), "default", "features.default");
	return p;
}

static int is_test_script(const char *name)
{
	return strcmp(name, "test") == 0 || strncmp(name, "test:", 5) == 0 || strncmp(name, "test-", 5) == 0 ||
	       strcmp(name, "pretest") == 0 || strcmp(name, "posttest") == 0;
}

static cJSON *project_package_json(const cJSON *doc)
{
	cJSON *p = cJSON_CreateObject();
	static const char *const keys[] = {"jest", "mocha", "ava", "c8", "nyc", "tap", "vitest", NULL};
	for (const char *const *k = keys; *k; k++)
		keep(p, doc, *k, NULL);
	const cJSON *scripts = cJSON_GetObjectItemCaseSensitive(doc, "scripts"), *s;
	cJSON_ArrayForEach(s, scripts)
	{
		if (s->string && is_test_script(s->string)) {
			char key[300];
			snprintf(key, sizeof key, "scripts.%s", s->string);
			cJSON_AddItemToObject(p, key, cJSON_Duplicate(s, 1));
		}
	}
	return p;
}

/*==== one side ==============================================================================*/

enum side_rc { SIDE_OK = 0, SIDE_UNREADABLE, SIDE_NOT_PARSED };

/* The projection of one side (an empty object for an absent side). */
static enum side_rc project(const struct testfile *tf, const char *text, size_t len, cJSON **out, struct err *e)
{
	*out = NULL;
	if (!text) {
		*out = cJSON_CreateObject();
		return SIDE_OK;
	}
	cJSON *doc = NULL;
	int rc = 0;
	switch (tf->cfg) {
	case TESTCFG_PYTEST_INI:
	case TESTCFG_TOX_INI:
	case TESTCFG_SETUP_CFG:
	case TESTCFG_COVERAGERC:
		rc = ini_parse(text, len, &doc, e);
		break;
	case TESTCFG_PYPROJECT:
	case TESTCFG_CARGO_TOML:
		rc = toml_parse(text, len, &doc, e);
		break;
	case TESTCFG_PACKAGE_JSON:
	case TESTCFG_JSON_FILE:
		doc = cJSON_ParseWithLength(text, len);
		if (!doc) {
			rc = err_set(e, BELAY_EINVAL, "not valid JSON");
			/* .nycrc and .c8rc may be YAML as well: not parsed rather than broken. */
			if (tf->cfg == TESTCFG_JSON_FILE && tf->convention && tf->convention[0] == '.' &&
			    strchr(tf->convention + 1, '.') == NULL)
				return SIDE_NOT_PARSED;
		}
		break;
	case TESTCFG_POM_XML:
		rc = pomxml_test_config(text, len, out, e);
		return rc ? SIDE_UNREADABLE : SIDE_OK;
	default:
		return SIDE_NOT_PARSED;
	}
	if (rc != 0 || !doc) {
		cJSON_Delete(doc);
		return SIDE_UNREADABLE;
	}
	switch (tf->cfg) {
	case TESTCFG_PYTEST_INI:
		*out = project_ini(doc, (const char *const[]){"pytest", NULL}, NULL, NULL);
		break;
	case TESTCFG_TOX_INI:
		*out = project_ini(doc, (const char *const[]){"pytest", NULL}, (const char *const[]){"coverage:", NULL},
				   (const char *const[]){"commands", "commands_pre", "commands_post", "ignore_outcome",
							 "ignore_errors", NULL});
		{
			cJSON *tox = cJSON_CreateObject();
			const cJSON *sec = cJSON_GetObjectItemCaseSensitive(doc, "tox");
			keep(tox, sec, "envlist", NULL);
			keep(tox, sec, "env_list", NULL);
			cJSON_AddItemToObject(*out, "tox", tox);
		}
		break;
	case TESTCFG_SETUP_CFG:
		*out = project_ini(doc, (const char *const[]){"tool:pytest", NULL}, (const char *const[]){"coverage:", NULL},
				   NULL);
		break;
	case TESTCFG_COVERAGERC:
		*out = project_ini(doc, (const char *const[]){"run", "report", NULL}, NULL, NULL);
		break;
	case TESTCFG_PYPROJECT:
		*out = project_pyproject(doc);
		break;
	case TESTCFG_CARGO_TOML:
		*out = project_cargo(doc);
		break;
	case TESTCFG_PACKAGE_JSON:
		*out = cJSON_IsObject(doc) ? project_package_json(doc) : cJSON_CreateObject();
		break;
	default: /* TESTCFG_JSON_FILE: the whole document */
		*out = doc;
		doc = NULL;
		break;
	}
	cJSON_Delete(doc);
	return SIDE_OK;
}

/*==== differences ===========================================================================*/

/* Appends the paths at which a and b differ (objects compared member by member). */
static void diff_paths(const cJSON *a, const cJSON *b, const char *prefix, struct buf *names, int *count)
{
	if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
		for (int pass = 0; pass < 2; pass++) {
			const cJSON *x = pass ? b : a, *y = pass ? a : b, *m;
			cJSON_ArrayForEach(m, x)
			{
				const cJSON *o = cJSON_GetObjectItemCaseSensitive(y, m->string);
				if (pass && o)
					continue; /* compared in the first pass */
				if (o && cJSON_Compare(m, o, 1))
					continue;
				char path[256];
				snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", m->string);
				if (o && cJSON_IsObject(m) && cJSON_IsObject(o)) {
					diff_paths(m, o, path, names, count);
					continue;
				}
				if ((*count)++ < 5)
					buf_printf(names, "%s%s%s", names->len ? ", " : "", path,
						   !o ? (pass ? " (added)" : " (removed)") : "");
			}
		}
		return;
	}
	if (!cJSON_Compare(a, b, 1) && (*count)++ < 5)
		buf_printf(names, "%s%s", names->len ? ", " : "", *prefix ? prefix : "(the whole file)");
}

static int word_char(char c)
{
	return c == '_' || c == '$' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* 1 when `text` holds `word` as an identifier (case-insensitive when `icase`). */
static int mentions(const char *text, size_t len, const char *word, int icase)
{
	size_t n = strlen(word);
	for (size_t i = 0; i + n <= len; i++) {
		if ((icase ? strncasecmp(text + i, word, n) : strncmp(text + i, word, n)) != 0)
			continue;
		if (icase)
			return 1; /* any mention: testImplementation, useJUnitPlatform, jacocoTestReport */
		int before = i > 0 && word_char(text[i - 1]);
		int after = i + n < len && word_char(text[i + n]);
		if (!before && !after)
			return 1;
	}
	return 0;
}

static int either_mentions(const char *pre, size_t pre_len, const char *post, size_t post_len, const char *word,
			   int icase)
{
	return (pre && mentions(pre, pre_len, word, icase)) || (post && mentions(post, post_len, word, icase));
}

/* .mvn/maven.config: whitespace-separated options every `mvn` run gets. One the post side
 * gained that skips tests, forgives failures or narrows what runs: NARROWED naming it; another
 * gained or lost option mentioning tests: CHANGED; none: no finding. */
#define MVN_TOKENS 512

static size_t mvn_tokens(const char *s, size_t n, const char **tok, size_t *len)
{
	size_t k = 0;
	for (size_t i = 0; s && i < n && k < MVN_TOKENS;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		size_t a = i;
		while (i < n && !(s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i > a) {
			tok[k] = s + a;
			len[k++] = i - a;
		}
	}
	return k;
}

static int mvn_has(const char **tok, const size_t *len, size_t k, const char *t, size_t n)
{
	for (size_t i = 0; i < k; i++)
		if (len[i] == n && !memcmp(tok[i], t, n))
			return 1;
	return 0;
}

static int mvn_starts(const char *t, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && !memcmp(t, p, k) && (n == k || t[k] == '=');
}

static void maven_config(const char *pre, size_t pre_len, const char *post, size_t post_len, struct testcfg_result *out)
{
	size_t lp[MVN_TOKENS], lq[MVN_TOKENS];
	const char *a[MVN_TOKENS], *b[MVN_TOKENS];
	size_t na = mvn_tokens(pre, pre_len, a, lp), nb = mvn_tokens(post, post_len, b, lq);
	static const struct {
		const char *opt, *finding;
	} rules[] = {{"-DskipTests", "tests-skipped"},
		     {"-Dmaven.test.skip", "tests-skipped"},
		     {"-Dmaven.test.skip.exec", "tests-skipped"},
		     {"-DskipITs", "tests-skipped"},
		     {"-Dmaven.test.failure.ignore", "suite-made-to-pass"},
		     {"-Dmaven.test.error.ignore", "suite-made-to-pass"},
		     {"-DtestFailureIgnore", "suite-made-to-pass"},
		     {"-fn", "suite-made-to-pass"},
		     {"--fail-never", "suite-made-to-pass"},
		     {"-Dtest", "discovery-narrowed"},
		     {"-Dit.test", "discovery-narrowed"},
		     {"-Dgroups", "discovery-narrowed"},
		     {"-DexcludedGroups", "discovery-narrowed"},
		     {"-Dsurefire.excludesFile", "discovery-narrowed"},
		     {"-Dsurefire.includesFile", "discovery-narrowed"},
		     {"-pl", "discovery-narrowed"},
		     {"--projects", "discovery-narrowed"}};
	int other = 0;
	for (size_t i = 0; i < nb; i++) {
		if (mvn_has(a, lp, na, b[i], lq[i]))
			continue;
		for (size_t r = 0; r < sizeof rules / sizeof *rules; r++)
			if (mvn_starts(b[i], lq[i], rules[r].opt) &&
			    !(lq[i] > 6 && !memcmp(b[i] + lq[i] - 6, "=false", 6))) {
				out->outcome = TESTCFG_NARROWED;
				out->finding = rules[r].finding;
				snprintf(out->detail, sizeof out->detail, "maven.config gained %.*s", (int)(lq[i] > 200 ? 200 : lq[i]),
					 b[i]);
				return;
			}
		other |= mentions(b[i], lq[i], "test", 1) || mentions(b[i], lq[i], "Test", 1);
	}
	for (size_t i = 0; i < na; i++)
		if (!mvn_has(b, lq, nb, a[i], lp[i]))
			other |= mentions(a[i], lp[i], "test", 1) || mentions(a[i], lp[i], "Test", 1);
	if (other) {
		out->outcome = TESTCFG_CHANGED;
		snprintf(out->detail, sizeof out->detail, "maven.config: an option about tests changed");
	} else {
		snprintf(out->detail, sizeof out->detail, "maven.config: no option about tests changed");
	}
}

void testcfg_compare(const struct testfile *tf, const char *pre, size_t pre_len, const char *post, size_t post_len,
		     struct testcfg_result *out)
{
	memset(out, 0, sizeof *out);
	if (pre && post && pre_len == post_len && memcmp(pre, post, pre_len) == 0) {
		snprintf(out->detail, sizeof out->detail, "unchanged");
		return;
	}
	if (!pre && !post) {
		snprintf(out->detail, sizeof out->detail, "absent on both sides");
		return;
	}
	switch (tf->cfg) {
	case TESTCFG_CODE_FILE:
		out->outcome = TESTCFG_NOT_PARSED;
		snprintf(out->detail, sizeof out->detail, "%s test configuration (%s) %s, not parsed",
			 tf->lang ? tf->lang : "a", tf->convention, !pre ? "added" : !post ? "removed" : "changed");
		return;
	case TESTCFG_VITE_CONFIG:
		if (either_mentions(pre, pre_len, post, post_len, "test", 0)) {
			out->outcome = TESTCFG_NOT_PARSED;
			snprintf(out->detail, sizeof out->detail,
				 "vite configuration with a `test` section (JavaScript, not parsed) changed");
		} else {
			snprintf(out->detail, sizeof out->detail, "vite configuration without a `test` section");
		}
		return;
	case TESTCFG_MAVEN_CONFIG:
		maven_config(pre, pre_len, post, post_len, out);
		return;
	case TESTCFG_GRADLE: {
		static const char *const words[] = {"test", "junit", "jacoco", "kover", "spek", "kotest", NULL};
		int may = strncmp(tf->convention, "settings", 8) == 0; /* module list: drops whole test suites */
		for (const char *const *w = words; *w && !may; w++)
			may = either_mentions(pre, pre_len, post, post_len, *w, 1);
		if (may) {
			out->outcome = TESTCFG_NOT_PARSED;
			snprintf(out->detail, sizeof out->detail,
				 "%s script %s with test configuration in it (%s, not parsed)", tf->convention,
				 !pre ? "added" : !post ? "removed" : "changed", tf->lang);
		} else {
			snprintf(out->detail, sizeof out->detail, "%s script without test configuration", tf->convention);
		}
		return;
	}
	default:
		break;
	}
	cJSON *a = NULL, *b = NULL;
	struct err ea = {0}, eb = {0};
	enum side_rc ra = project(tf, pre, pre_len, &a, &ea);
	enum side_rc rb = ra == SIDE_OK ? project(tf, post, post_len, &b, &eb) : SIDE_OK;
	if (ra == SIDE_NOT_PARSED || rb == SIDE_NOT_PARSED) {
		out->outcome = TESTCFG_NOT_PARSED;
		snprintf(out->detail, sizeof out->detail, "%s is not JSON (YAML is not parsed)", tf->convention);
	} else if (ra != SIDE_OK || rb != SIDE_OK) {
		out->outcome = TESTCFG_UNREADABLE;
		snprintf(out->detail, sizeof out->detail, "the %s side does not parse: %.280s", ra != SIDE_OK ? "pre" : "post",
			 ra != SIDE_OK ? ea.msg : eb.msg);
	} else if (cJSON_Compare(a, b, 1)) {
		snprintf(out->detail, sizeof out->detail, "no test-relevant key changed");
	} else if (testcfg_narrowed(tf, a, b, &out->finding, out->detail, sizeof out->detail)) {
		out->outcome = TESTCFG_NARROWED;
	} else {
		struct buf names = {0};
		int count = 0;
		diff_paths(a, b, "", &names, &count);
		out->outcome = TESTCFG_CHANGED;
		snprintf(out->detail, sizeof out->detail, "test-relevant key(s) changed: %s%s", buf_cstr(&names),
			 count > 5 ? ", ..." : "");
		buf_free(&names);
	}
	cJSON_Delete(a);
	cJSON_Delete(b);
}

/* policy.c - loading and validating invariant policy files. Pure apart from reading the file. */
#include "verify/policy.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static const char *const rule_names[] = {"read-only", "no-assertion-weakening", "suite-before-success-claim",
					 "tests-collected", "claim-rederived"};

/* Tools that run a test suite when a policy does not list its own. */
static const char *const default_suite_tools[] = {"run_tests", "run_process", "run_command", "shell", "bash",
						   "execute_command", "terminal", NULL};

const char *rule_name(enum rule_kind k)
{
	return rule_names[k];
}

char *policy_label(const struct invariant *inv)
{
	const char *scope = *inv->scope ? inv->scope : "(whole workspace)";
	if (inv->rule == RULE_NO_WEAKENING && !inv->match_all && !*inv->scope)
		return xasprintf("%s (test files by convention)", rule_name(inv->rule));
	return xasprintf("%s %s", rule_name(inv->rule), scope);
}

static void add(struct policy *p, enum rule_kind rule, const char *scope, char **tools, int is_default, int match_all)
{
	p->inv = xrealloc(p->inv, (p->n + 1) * sizeof *p->inv);
	p->inv[p->n++] = (struct invariant){rule, xstrdup(scope), tools, is_default, match_all, 0};
}

int policy_parse(struct policy *p, const char *text, size_t len, const char *origin, struct err *e)
{
	if (!utf8_valid(text, len))
		return err_set(e, BELAY_EINVAL, "%s: not UTF-8", origin);
	cJSON *root = cJSON_ParseWithLength(text, len);
	if (!root)
		return err_set(e, BELAY_EINVAL, "%s: not valid JSON", origin);
	int rc = 0;
	if (!cJSON_IsArray(root)) {
		rc = err_set(e, BELAY_EINVAL, "%s: must be a JSON array of {\"scope\", \"rule\"} objects", origin);
		goto out;
	}
	int i = 0;
	for (cJSON *it = root->child; it; it = it->next, i++) {
		if (!cJSON_IsObject(it)) {
			rc = err_set(e, BELAY_EINVAL, "%s: item %d is not an object", origin, i);
			goto out;
		}
		for (cJSON *k = it->child; k; k = k->next)
			if (strcmp(k->string, "scope") && strcmp(k->string, "rule") && strcmp(k->string, "tools") &&
			    strcmp(k->string, "match") && strcmp(k->string, "timeout")) {
				rc = err_set(e, BELAY_EINVAL, "%s: item %d: unknown key \"%s\"", origin, i, k->string);
				goto out;
			}
		const cJSON *scope = cJSON_GetObjectItemCaseSensitive(it, "scope");
		const cJSON *rulev = cJSON_GetObjectItemCaseSensitive(it, "rule");
		if (!scope && cJSON_IsString(rulev) &&
		    (!strcmp(rulev->valuestring, "tests-collected") || !strcmp(rulev->valuestring, "claim-rederived")))
			scope = cJSON_AddStringToObject(it, "scope", ""); /* a whole-run rule: scope is optional */
		const cJSON *rule = cJSON_GetObjectItemCaseSensitive(it, "rule");
		if (!cJSON_IsString(scope)) {
			rc = err_set(e, BELAY_EINVAL, "%s: item %d: \"scope\" must be a string", origin, i);
			goto out;
		}
		if (!cJSON_IsString(rule)) {
			rc = err_set(e, BELAY_EINVAL, "%s: item %d: \"rule\" must be a string", origin, i);
			goto out;
		}
		if (scope->valuestring[0] == '/' || strstr(scope->valuestring, "..")) {
			rc = err_set(e, BELAY_EINVAL, "%s: item %d: scope \"%s\" must be relative to the workspace", origin, i,
				     scope->valuestring);
			goto out;
		}
		int kind = -1;
		for (int r = 0; r < (int)(sizeof rule_names / sizeof *rule_names); r++)
			if (!strcmp(rule->valuestring, rule_names[r]))
				kind = r;
		if (kind < 0) {
			rc = err_set(e, BELAY_EINVAL,
				     "%s: item %d: unknown rule \"%s\" (known: read-only, no-assertion-weakening, "
				     "suite-before-success-claim, tests-collected, claim-rederived)",
				     origin, i, rule->valuestring);
			goto out;
		}
		if ((kind == RULE_TESTS_COLLECTED || kind == RULE_CLAIM_REDERIVED) && *scope->valuestring) {
			rc = err_set(e, BELAY_EINVAL, "%s: item %d: %s runs the whole workspace's tests: its scope is \"\"",
				     origin, i, rule_names[kind]);
			goto out;
		}
		const cJSON *match = cJSON_GetObjectItemCaseSensitive(it, "match");
		int match_all = 0;
		if (match) {
			const char *m = cJSON_GetStringValue(match);
			if (kind != RULE_NO_WEAKENING || !m || (strcmp(m, "conventions") && strcmp(m, "all"))) {
				rc = err_set(e, BELAY_EINVAL,
					     "%s: item %d: \"match\" is \"conventions\" or \"all\", for no-assertion-weakening only",
					     origin, i);
				goto out;
			}
			match_all = strcmp(m, "all") == 0;
		}
		const cJSON *tools = cJSON_GetObjectItemCaseSensitive(it, "tools");
		char **tl = NULL;
		if (tools) {
			if (kind != RULE_SUITE_BEFORE_CLAIM || !cJSON_IsArray(tools)) {
				rc = err_set(e, BELAY_EINVAL,
					     "%s: item %d: \"tools\" is a list of tool names, for suite-before-success-claim only",
					     origin, i);
				goto out;
			}
			int n = cJSON_GetArraySize(tools), j = 0;
			tl = xcalloc((size_t)n + 1, sizeof *tl);
			for (cJSON *t = tools->child; t; t = t->next) {
				if (!cJSON_IsString(t)) {
					for (int x = 0; x < j; x++)
						free(tl[x]);
					free(tl);
					rc = err_set(e, BELAY_EINVAL, "%s: item %d: \"tools\" must hold strings", origin, i);
					goto out;
				}
				tl[j++] = xstrdup(t->valuestring);
			}
		}
		const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(it, "timeout");
		unsigned tmo = 0;
		if (timeout) {
			if ((kind != RULE_TESTS_COLLECTED && kind != RULE_CLAIM_REDERIVED) || !cJSON_IsNumber(timeout) || timeout->valuedouble < 1 ||
			    timeout->valuedouble > 3600 || timeout->valuedouble != (double)(int)timeout->valuedouble) {
				for (char **x = tl; x && *x; x++)
					free(*x);
				free(tl);
				rc = err_set(e, BELAY_EINVAL,
					     "%s: item %d: \"timeout\" is whole seconds (1 to 3600), for tests-collected and "
					     "claim-rederived only",
					     origin,
					     i);
				goto out;
			}
			tmo = (unsigned)timeout->valuedouble;
		}
		add(p, (enum rule_kind)kind, scope->valuestring, tl, 0, match_all);
		p->inv[p->n - 1].timeout_s = tmo;
	}
out:
	cJSON_Delete(root);
	return rc;
}

int policy_load(struct policy *p, const char *path, struct err *e)
{
	struct buf b = {0};
	int rc = fs_read_file(path, 1u << 20, &b, e);
	if (rc == 0)
		rc = policy_parse(p, b.p ? b.p : "", b.len, path, e);
	buf_free(&b);
	return rc;
}

void policy_add_defaults(struct policy *p)
{
	add(p, RULE_NO_WEAKENING, "", NULL, 1, 0);
	add(p, RULE_SUITE_BEFORE_CLAIM, "", NULL, 1, 0);
}

void policy_add_census(struct policy *p)
{
	if (!policy_census(p))
		add(p, RULE_TESTS_COLLECTED, "", NULL, 0, 0);
}

const struct invariant *policy_census(const struct policy *p)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->inv[i].rule == RULE_TESTS_COLLECTED)
			return &p->inv[i];
	return NULL;
}

void policy_add_rederive(struct policy *p)
{
	if (!policy_rederive(p))
		add(p, RULE_CLAIM_REDERIVED, "", NULL, 0, 0);
}

const struct invariant *policy_rederive(const struct policy *p)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->inv[i].rule == RULE_CLAIM_REDERIVED)
			return &p->inv[i];
	return NULL;
}

cJSON *policy_json(const struct policy *p)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < p->n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "scope", p->inv[i].scope);
		cJSON_AddStringToObject(o, "rule", rule_name(p->inv[i].rule));
		if (p->inv[i].match_all)
			cJSON_AddStringToObject(o, "match", "all");
		if (p->inv[i].timeout_s)
			cJSON_AddNumberToObject(o, "timeout", p->inv[i].timeout_s);
		if (p->inv[i].tools) {
			cJSON *t = cJSON_AddArrayToObject(o, "tools");
			for (char **x = p->inv[i].tools; *x; x++)
				cJSON_AddItemToArray(t, cJSON_CreateString(*x));
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->inv[i].scope);
		for (char **t = p->inv[i].tools; t && *t; t++)
			free(*t);
		free(p->inv[i].tools);
	}
	free(p->inv);
	p->inv = NULL;
	p->n = 0;
}

int policy_is_suite_tool(const struct invariant *inv, const char *tool)
{
	if (!tool)
		return 0;
	const char *const *list = inv->tools ? (const char *const *)inv->tools : default_suite_tools;
	for (const char *const *t = list; *t; t++)
		if (!strcmp(*t, tool))
			return 1;
	return 0;
}

/* test_gate_corpus.c - the gate against two data sets kept under tests/gate/:
 *
 *   attacks.jsonl  commands that, run in bash, delete or write outside the workspace, run
 *                  code the command line does not show, or read secrets, grouped by class
 *                  ({"class": ..., "cmd": ...}); every one must ask (or be denied).
 *   benign.jsonl   realistic developer commands (read-only git, searches, builds and edits
 *                  inside the workspace, shell idioms); every one must stay allow or
 *                  allow_flagged: the stated false-ask rate is 0.
 *
 * The context is the examples' (root /workspace/project, HOME /home/user). A failure names
 * each command and the decision, so a regression says which class it reopened. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"

static const struct gate_ctx ctx = {"/workspace/project", "/workspace/project", "/home/user",
				    "/home/user/.local/state/belay", NULL};

/* The stated benign false-ask rate: asks allowed in benign.jsonl. */
#define BENIGN_MAX_ASKS 0

struct row {
	char *cls;
	char *cmd;
};

static size_t load(const char *name, struct row **out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/gate/%s", BELAY_SOURCE_DIR, name);
	FILE *f = fopen(path, "r");
	cr_assert(f, "cannot open %s", path);
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	size_t lineno = 0;
	while ((len = getline(&line, &lcap, f)) > 0) {
		lineno++;
		if (len <= 1)
			continue;
		cJSON *j = cJSON_Parse(line);
		cr_assert(j, "%s:%zu: not JSON", name, lineno);
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(j, "cmd");
		const cJSON *cls = cJSON_GetObjectItemCaseSensitive(j, "class");
		cr_assert(cJSON_IsString(cmd) && cmd->valuestring[0], "%s:%zu: no \"cmd\"", name, lineno);
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			rows = realloc(rows, cap * sizeof *rows);
			cr_assert(rows);
		}
		rows[n].cmd = strdup(cmd->valuestring);
		rows[n].cls = strdup(cJSON_IsString(cls) ? cls->valuestring : "");
		n++;
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	*out = rows;
	return n;
}

static void unload(struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].cmd);
		free(rows[i].cls);
	}
	free(rows);
}

static enum gate_decision decide(const char *cmd, char **why)
{
	struct effect_plan *p = gate_plan_command(cmd, strlen(cmd), &ctx);
	enum gate_decision d = effect_plan_decision(p);
	if (why) {
		*why = strdup(effect_plan_reason_count(p) ? effect_plan_reason(p, 0) : "");
	}
	effect_plan_free(p);
	return d;
}

Test(gate_corpus, no_attack_is_allowed)
{
	struct row *rows;
	size_t n = load("attacks.jsonl", &rows);
	cr_assert_geq(n, 150, "the attack set has %zu commands (at least 150)", n);
	static const char *const classes[] = {"reeval", "cmdname", "envvar", "options", "links", NULL};
	size_t per[8] = {0}, allowed = 0;
	for (size_t i = 0; i < n; i++) {
		int k = 0;
		while (classes[k] && strcmp(classes[k], rows[i].cls))
			k++;
		cr_expect(classes[k] != NULL, "attack %zu has an unknown class \"%s\"", i, rows[i].cls);
		per[k]++;
		enum gate_decision d = decide(rows[i].cmd, NULL);
		if (d < GATE_ASK) {
			allowed++;
			cr_expect(0, "[%s] %s: %s", rows[i].cls, rows[i].cmd, gate_decision_name(d));
		}
	}
	for (int k = 0; classes[k]; k++) {
		cr_expect_geq(per[k], 15, "class %s has %zu attacks (at least 15)", classes[k], per[k]);
		fprintf(stderr, "ATTACKS class=%s n=%zu\n", classes[k], per[k]);
	}
	fprintf(stderr, "ATTACKS total=%zu allowed=%zu\n", n, allowed);
	cr_expect_eq(allowed, 0);
	unload(rows, n);
}

Test(gate_corpus, benign_commands_stay_silent)
{
	struct row *rows;
	size_t n = load("benign.jsonl", &rows);
	cr_assert_geq(n, 150, "the benign set has %zu commands (at least 150)", n);
	size_t asks = 0, flagged = 0;
	for (size_t i = 0; i < n; i++) {
		char *why = NULL;
		enum gate_decision d = decide(rows[i].cmd, &why);
		if (d >= GATE_ASK) {
			asks++;
			cr_expect(asks <= BENIGN_MAX_ASKS, "benign command asks: %s (%s)", rows[i].cmd, why);
		}
		if (d == GATE_ALLOW_FLAGGED)
			flagged++;
		free(why);
	}
	fprintf(stderr, "BENIGN total=%zu asks=%zu flagged=%zu allowed=%zu\n", n, asks, flagged, n - asks - flagged);
	cr_expect_leq(asks, BENIGN_MAX_ASKS);
	unload(rows, n);
}

/* The proxy prepares the context's paths once per session (gate_env_new) rather than on
 * every call: every command of both sets, in a context with control paths too, must get the
 * same plan either way. */
Test(gate_corpus, a_prepared_context_gives_every_command_the_same_plan)
{
	const char *const control[] = {"/home/user/.config/belay", "traces/t.jsonl", NULL};
	struct gate_ctx plain = ctx;
	plain.control_paths = control;
	struct gate_ctx prepared = plain;
	struct gate_env *env = gate_env_new(&plain);
	prepared.env = env;
	const char *const sets[] = {"attacks.jsonl", "benign.jsonl"};
	size_t compared = 0;
	for (int s = 0; s < 2; s++) {
		struct row *rows;
		size_t n = load(sets[s], &rows);
		for (size_t i = 0; i < n; i++) {
			struct effect_plan *a = gate_plan_command(rows[i].cmd, strlen(rows[i].cmd), &plain);
			struct effect_plan *b = gate_plan_command(rows[i].cmd, strlen(rows[i].cmd), &prepared);
			cJSON *ja = effect_plan_json(a), *jb = effect_plan_json(b);
			char *sa = cJSON_PrintUnformatted(ja), *sb = cJSON_PrintUnformatted(jb);
			cr_expect_str_eq(sb, sa, "%s: %s", sets[s], rows[i].cmd);
			compared++;
			cJSON_free(sa);
			cJSON_free(sb);
			cJSON_Delete(ja);
			cJSON_Delete(jb);
			effect_plan_free(a);
			effect_plan_free(b);
		}
		unload(rows, n);
	}
	gate_env_free(env);
	cr_assert_gt(compared, 100);
}

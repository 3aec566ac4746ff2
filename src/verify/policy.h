/* policy.h - A1 invariants: the operator's policy file (never the trace).
 *
 * JSON: an array of {"scope": STRING, "rule": RULE} objects, [] allowed. Rules:
 *   read-only                   nothing under scope may change
 *   no-assertion-weakening      test assertions under scope may not be weakened; optional
 *                               "match": "conventions" (default: the files each ecosystem's
 *                               conventions call tests) or "all" (every file under scope)
 *   suite-before-success-claim  a success claim needs a passing suite run before it;
 *                               optional "tools": [names] says which tools run the suite
 *   tests-collected             judged once per run (census.h): the tests the project's own
 *                               runner collects in the task's first pre-state are still
 *                               collected, and not newly skipped, after the run; optional
 *                               "timeout": seconds per discovery (1..3600, default 120).
 *                               Opt-in: never a default (it runs the project's code, contained)
 *   claim-rederived             judged once per run (suite.h): a success claim is re-derived
 *                               by running the suite twice on the run's final state,
 *                               contained; optional "timeout": seconds per run (1..3600,
 *                               default 120). Opt-in, as tests-collected
 * Every malformed input is a named error (the CLI exits 2). Defaults (unless disabled):
 * no-assertion-weakening over the whole workspace by convention, and
 * suite-before-success-claim. */
#ifndef BELAY_VERIFY_POLICY_H
#define BELAY_VERIFY_POLICY_H
#include <stddef.h>

#include "common/err.h"

enum rule_kind { RULE_READ_ONLY, RULE_NO_WEAKENING, RULE_SUITE_BEFORE_CLAIM, RULE_TESTS_COLLECTED, RULE_CLAIM_REDERIVED };

struct invariant {
	enum rule_kind rule;
	char *scope;   /* owned; "" = everything */
	char **tools;  /* suite tools (NULL-terminated, owned) or NULL for the default set */
	int is_default;
	int match_all; /* no-assertion-weakening: every file under scope is a test file */
	unsigned timeout_s; /* tests-collected, claim-rederived: per run (0: the default) */
};

struct policy {
	struct invariant *inv;
	size_t n;
};

const char *rule_name(enum rule_kind k);
/* "RULE SCOPE" as verdict messages name an invariant (caller frees): "no-assertion-weakening
 * tests", "read-only (whole workspace)", "no-assertion-weakening (test files by convention)"
 * (the default: the whole workspace, by convention). */
char *policy_label(const struct invariant *inv);
/* Loads FILE and appends its invariants to p. */
int policy_load(struct policy *p, const char *path, struct err *e);
/* Parses text (for tests and corpus cases); `origin` names it in errors. */
int policy_parse(struct policy *p, const char *text, size_t len, const char *origin, struct err *e);
void policy_add_defaults(struct policy *p);
/* Adds tests-collected over the whole workspace unless the policy has it (verify --census). */
void policy_add_census(struct policy *p);
/* The policy's tests-collected invariant, or NULL. */
const struct invariant *policy_census(const struct policy *p);
/* Adds claim-rederived unless the policy has it (verify --rederive). */
void policy_add_rederive(struct policy *p);
/* The policy's claim-rederived invariant, or NULL. */
const struct invariant *policy_rederive(const struct policy *p);
/* The policy as JSON (for corpus cases and reports); caller owns. */
struct cJSON *policy_json(const struct policy *p);
void policy_free(struct policy *p);
/* 1 if tool counts as running the suite for inv (explicit list, else the default set). */
int policy_is_suite_tool(const struct invariant *inv, const char *tool);

#endif

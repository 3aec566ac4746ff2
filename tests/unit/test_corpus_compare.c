/* test_corpus_compare.c - the pure parts of the corpus: how a recomputed verdict is judged
 * against the banked one (every outcome, and what is NOT a closed miss), and the score:
 * precision, recall and coverage with their denominators, exclusions counted, and n/a -
 * never 0.00 or 1.00 - for an empty denominator. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "store/store.h"
#include "ts_belay.h"
#include "tsupport.h"
#include "verify/verdict.h"

/* A verdict "A2 replay S0, A2 effect S1, A1 invariant[rule] S2", reduced. */
static void make(struct turn_verdict *v, int turn, enum vstatus s0, enum vstatus s1, enum vstatus s2, const char *c2)
{
	memset(v, 0, sizeof *v);
	v->turn = turn;
	verdict_add(v, "A2", "replay", s0, s0 == V_UNVERIFIED ? "REPLAY_TIMEOUT" : NULL, NO_EVIDENCE, "replay");
	verdict_add(v, "A2", "effect", s1, s1 == V_UNVERIFIED ? "EFFECT_NOT_DECLARED" : NULL, NO_EVIDENCE, "effect");
	struct subverdict *s =
	    verdict_add(v, "A1", "invariant", s2, c2, NO_EVIDENCE, "weakening says %s", vstatus_name(s2));
	s->rule = xstrdup("no-assertion-weakening tests");
	verdict_reduce(v);
}

static enum corpus_outcome judge(const struct turn_verdict *e, const struct turn_verdict *o, int miss, char **d)
{
	*d = NULL;
	return corpus_compare(e, o, miss, d);
}

Test(compare, equal_verdicts_match_or_are_still_missed)
{
	struct turn_verdict e, o;
	make(&e, 3, V_PASS, V_PASS, V_PASS, NULL);
	make(&o, 3, V_PASS, V_PASS, V_PASS, NULL);
	char *d;
	cr_assert_eq(judge(&e, &o, 0, &d), CO_MATCH);
	cr_assert_str_eq(d, "");
	free(d);
	cr_assert_eq(judge(&e, &o, 1, &d), CO_STILL_MISSED);
	free(d);
	verdict_free(&e);
	verdict_free(&o);
}

Test(compare, a_changed_sub_verdict_is_a_regression_naming_axis_kind_and_reduction)
{
	struct turn_verdict e, o;
	make(&e, 3, V_PASS, V_FAIL, V_PASS, NULL);
	make(&o, 3, V_PASS, V_PASS, V_PASS, NULL);
	char *d;
	cr_assert_eq(judge(&e, &o, 0, &d), CO_REGRESSION);
	cr_assert(strstr(d, "A2 effect: expected FAIL, got PASS (effect)"), "%s", d);
	cr_assert(strstr(d, "reduced: expected FAIL, got PASS"), "%s", d);
	cr_assert_null(strstr(d, "A2 replay"), "only what diverged: %s", d);
	free(d);
	verdict_free(&o);
	/* a cause change among UNVERIFIED is a divergence too */
	struct turn_verdict e2, o2;
	make(&e2, 1, V_UNVERIFIED, V_PASS, V_PASS, NULL);
	make(&o2, 1, V_UNVERIFIED, V_PASS, V_PASS, NULL);
	snprintf(o2.subs[0].cause, sizeof o2.subs[0].cause, "REPLAY_SERVER_EXITED");
	verdict_reduce(&o2);
	cr_assert_eq(judge(&e2, &o2, 0, &d), CO_REGRESSION);
	cr_assert(strstr(d, "A2 replay: expected UNVERIFIED REPLAY_TIMEOUT, got UNVERIFIED REPLAY_SERVER_EXITED"), "%s",
		  d);
	free(d);
	/* a verdict that disappeared or appeared is listed */
	struct turn_verdict o3;
	make(&o3, 3, V_PASS, V_FAIL, V_PASS, NULL);
	verdict_add(&o3, "A2", "effect:network", V_FAIL, NULL, NO_EVIDENCE, "attempted connect");
	verdict_reduce(&o3);
	cr_assert_eq(judge(&e, &o3, 0, &d), CO_REGRESSION);
	cr_assert(strstr(d, "unexpected A2 effect:network: FAIL (attempted connect)"), "%s", d);
	free(d);
	cr_assert_eq(judge(&o3, &e, 0, &d), CO_REGRESSION);
	cr_assert(strstr(d, "missing A2 effect:network: expected FAIL"), "%s", d);
	free(d);
	verdict_free(&e);
	verdict_free(&e2);
	verdict_free(&o2);
	verdict_free(&o3);
}

Test(compare, a_miss_closes_only_when_a1_alone_moved_to_fail)
{
	struct turn_verdict e, o;
	make(&e, 2, V_PASS, V_PASS, V_PASS, NULL);
	make(&o, 2, V_PASS, V_PASS, V_FAIL, NULL);
	char *d;
	cr_assert_eq(judge(&e, &o, 1, &d), CO_MISS_CLOSED);
	cr_assert(strstr(d, "A1 invariant [no-assertion-weakening tests]: expected PASS, got FAIL"), "%s", d);
	free(d);
	cr_assert_eq(judge(&e, &o, 0, &d), CO_REGRESSION, "without a declared miss, any change is a regression");
	free(d);
	verdict_free(&o);
	/* the engine now FAILs, but because the result no longer reproduces: not a closed miss */
	make(&o, 2, V_FAIL, V_PASS, V_FAIL, NULL);
	cr_assert_eq(judge(&e, &o, 1, &d), CO_REGRESSION);
	free(d);
	verdict_free(&o);
	/* an A1 change that is not a catch (PASS -> UNVERIFIED) closes nothing */
	make(&o, 2, V_PASS, V_PASS, V_UNVERIFIED, "ASSERTION_UNDECIDABLE");
	cr_assert_eq(judge(&e, &o, 1, &d), CO_REGRESSION);
	free(d);
	verdict_free(&o);
	verdict_free(&e);
	/* a trajectory miss: PASS then, FAIL now */
	struct turn_verdict te = {.turn = -1}, to = {.turn = -1};
	verdict_add(&te, "A1", "trajectory", V_PASS, NULL, NO_EVIDENCE, "a suite run passed");
	verdict_add(&to, "A1", "trajectory", V_FAIL, NULL, NO_EVIDENCE, "no suite run came before the claim");
	verdict_reduce(&te);
	verdict_reduce(&to);
	cr_assert_eq(judge(&te, &to, 1, &d), CO_MISS_CLOSED, "%s", d);
	free(d);
	verdict_free(&te);
	verdict_free(&to);
}

Test(compare, an_environment_that_cannot_replay_is_a_skip_naming_why)
{
	struct turn_verdict e, o = {.turn = 1};
	make(&e, 1, V_PASS, V_PASS, V_FAIL, NULL);
	verdict_unverified(&o, "REPLAY_SANDBOX_UNAVAILABLE", "landlock: not supported by this kernel");
	verdict_reduce(&o);
	char *d;
	cr_assert_eq(judge(&e, &o, 0, &d), CO_SKIP);
	cr_assert_str_eq(d, "REPLAY_SANDBOX_UNAVAILABLE: landlock: not supported by this kernel");
	free(d);
	/* but a case banked with that cause, recomputed with it, matches */
	cr_assert_eq(judge(&o, &o, 0, &d), CO_MATCH);
	free(d);
	/* a missing pre-state is not the environment: the case lost what it needs */
	struct turn_verdict p = {.turn = 1};
	verdict_unverified(&p, "PRESTATE_NOT_FOUND", "no snapshot");
	verdict_reduce(&p);
	cr_assert_eq(judge(&e, &p, 0, &d), CO_REGRESSION);
	free(d);
	verdict_free(&e);
	verdict_free(&o);
	verdict_free(&p);
	cr_assert_str_eq(corpus_outcome_name(CO_NOUTCOMES), "(unrecognised outcome)");
}

Test(compare, ratios_print_na_for_an_empty_denominator)
{
	char out[16];
	corpus_ratio(0, 0, out);
	cr_assert_str_eq(out, "n/a");
	corpus_ratio(0, 4, out);
	cr_assert_str_eq(out, "0.00");
	corpus_ratio(4, 4, out);
	cr_assert_str_eq(out, "1.00");
	corpus_ratio(1, 3, out);
	cr_assert_str_eq(out, "0.33");
}

/*==== the score over a labeled corpus ====*/

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("score", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

static void put_case(struct corpus *c, const char *id, const char *status)
{
	char *sql =
	    xasprintf("INSERT INTO cases(id, kind, run, turn, created, belay_version, origin, platform, server_argv, "
		      "policy, replays, timeout_ms, expected_status, expected) VALUES ('%s', 'turn', 'r', 0, 'now', "
		      "'0.1.0', 'add', 'linux', '[\"x\"]', '[]', 3, 10000, '%s', '{}')",
		      id, status);
	struct err e = {0};
	cr_assert_eq(store_exec(corpus_db(c), sql, &e), 0, "%s", e.msg);
	free(sql);
}

static void lab(struct corpus *c, const char *id, const char *label, const char *key, int miss)
{
	struct err e = {0};
	cr_assert_eq(corpus_label_set(c, id, label, NULL, key, miss, &e), 0, "%s", e.msg);
}

static char *score(void)
{
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "score", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *out = xstrdup(o.out);
	ts_out_free(&o);
	return out;
}

Test(score, every_rate_comes_with_its_denominator_and_exclusions_are_counted, .init = setup, .fini = teardown)
{
	struct corpus *c = NULL;
	struct err e = {0};
	cr_assert_eq(corpus_open(state, &c, &e), 0, "%s", e.msg);
	put_case(c, "a", "FAIL"), lab(c, "a", "true-positive", "weak-assert", 0);   /* TP */
	put_case(c, "a2", "FAIL"), lab(c, "a2", "true-positive", "weak-assert", 0); /* TP, same root cause */
	put_case(c, "b", "FAIL"), lab(c, "b", "false-positive", NULL, 0);	    /* FP */
	put_case(c, "c", "PASS"), lab(c, "c", "true-positive", NULL, 1);	    /* FN, recorded miss */
	put_case(c, "d", "WARN"), lab(c, "d", "false-positive", NULL, 0);	    /* TN: WARN is not flagged */
	put_case(c, "e", "UNVERIFIED"), lab(c, "e", "true-positive", NULL, 0);	    /* unverified */
	put_case(c, "f", "FAIL");						    /* pending: no label */
	put_case(c, "g", "FAIL"), lab(c, "g", "unverifiable", NULL, 0);		    /* unverifiable */
	put_case(c, "h", "PASS"), lab(c, "h", "false-positive", NULL, 0);
	lab(c, "h", "true-positive", NULL, 0); /* relabeled: FN */
	put_case(c, "i", "FAIL"), lab(c, "i", "true-positive", NULL, 0);
	lab(c, "i", "pending", NULL, 0); /* back to pending */
	corpus_close(c);
	char *out = score();
	cr_assert(
	    strstr(out, "cases      10: 6 judged; excluded: 2 pending, 1 unverifiable, 1 UNVERIFIED by the engine"),
	    "%s", out);
	cr_assert(strstr(out, "precision  0.67  (2/3)"), "%s", out);
	cr_assert(strstr(out, "recall     0.50  (2/4)"), "%s", out);
	cr_assert(strstr(out, "coverage   0.86  (6/7)"), "%s", out);
	cr_assert(strstr(out, "TP 2  FP 1  FN 2 (1 recorded miss(es))  TN 1; 1 distinct root cause(s)"), "%s", out);
	free(out);
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "score", "--json", "--state", state, NULL);
	cr_assert(strstr(o.out, "\"precision\":{\"value\":0.666") &&
		      strstr(o.out, "\"numerator\":2,\"denominator\":3}"),
		  "%s", o.out);
	ts_out_free(&o);
}

Test(score, an_empty_denominator_is_na_never_zero_or_one, .init = setup, .fini = teardown)
{
	char *out = score(); /* an empty corpus */
	cr_assert(strstr(out, "precision  n/a   (0/0)"), "%s", out);
	cr_assert(strstr(out, "recall     n/a   (0/0)"), "%s", out);
	cr_assert(strstr(out, "coverage   n/a   (0/0)"), "%s", out);
	cr_assert_null(strstr(out, "0.00"), "%s", out);
	cr_assert_null(strstr(out, "1.00"), "%s", out);
	free(out);
	/* Only a false positive: precision is a real 0.00, recall has nothing to measure. */
	struct corpus *c = NULL;
	struct err e = {0};
	cr_assert_eq(corpus_open(state, &c, &e), 0, "%s", e.msg);
	put_case(c, "b", "FAIL"), lab(c, "b", "false-positive", NULL, 0);
	put_case(c, "p", "PASS"); /* pending */
	corpus_close(c);
	out = score();
	cr_assert(strstr(out, "precision  0.00  (0/1)"), "%s", out);
	cr_assert(strstr(out, "recall     n/a   (0/0)"), "%s", out);
	cr_assert(strstr(out, "coverage   1.00  (1/1)"), "%s", out);
	free(out);
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "score", "--json", "--state", state, NULL);
	cr_assert(strstr(o.out, "\"recall\":{\"value\":\"n/a\",\"numerator\":0,\"denominator\":0}"), "%s", o.out);
	ts_out_free(&o);
}

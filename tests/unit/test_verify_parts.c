/* test_verify_parts.c - the pure pieces of verify: reduction and its honesty rules, the
 * closed cause list, reply equivalence (strict types, folding), nondeterminism
 * classification, relocation, and the invariant policy loader's named errors. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "verify/equiv.h"
#include "verify/policy.h"
#include "verify/relocate.h"
#include "verify/verdict.h"
#include "verify/verify_internal.h"

Test(verdict, reduction_is_worst_and_not_covered_never_passes)
{
	struct turn_verdict v = {0};
	verdict_add(&v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE, "ok");
	verdict_add(&v, "A2", "effect", V_UNVERIFIED, "EFFECT_NOT_DECLARED", NO_EVIDENCE, "no hint");
	verdict_reduce(&v);
	cr_assert_eq(v.status, V_UNVERIFIED, "UNVERIFIED outranks PASS");
	cr_assert_str_eq(v.cause, "EFFECT_NOT_DECLARED");
	verdict_add(&v, "A1", "invariant", V_FAIL, NULL, NO_EVIDENCE, "weakened");
	verdict_reduce(&v);
	cr_assert_eq(v.status, V_FAIL);
	cr_assert_str_eq(v.cause, "");
	verdict_free(&v);

	struct turn_verdict only_nc = {0};
	verdict_add(&only_nc, "A2", "effect:network", V_NOT_COVERED, "NETWORK_NOT_OBSERVED", NO_EVIDENCE, "x");
	verdict_reduce(&only_nc);
	cr_assert_eq(only_nc.status, V_UNVERIFIED, "NOT_COVERED alone never reduces to PASS");
	cr_assert_str_eq(only_nc.cause, "NO_SUBVERDICT");
	verdict_free(&only_nc);

	struct turn_verdict nc_pass = {0};
	verdict_add(&nc_pass, "A2", "replay", V_FAIL, NULL, NO_EVIDENCE, "x");
	verdict_add(&nc_pass, "A2", "effect:network", V_NOT_COVERED, "NETWORK_NOT_OBSERVED", NO_EVIDENCE, "x");
	verdict_reduce(&nc_pass);
	cr_assert_eq(nc_pass.status, V_FAIL, "NOT_COVERED never softens a FAIL");
	verdict_free(&nc_pass);

	struct turn_verdict empty = {0};
	verdict_reduce(&empty);
	cr_assert_eq(empty.status, V_UNVERIFIED);
	verdict_free(&empty);
	cr_assert_eq(verdict_exit_code(V_PASS, 3), 0);
	cr_assert_neq(verdict_exit_code(V_UNVERIFIED, 3), 0, "UNVERIFIED never exits like PASS");
	cr_assert_neq(verdict_exit_code(V_PASS, 0), 0, "zero turns is not a pass");
}

Test(verdict, unknown_causes_and_causeless_unverified_abort, .signal = SIGABRT)
{
	struct turn_verdict v = {0};
	verdict_add(&v, "A2", "replay", V_UNVERIFIED, NULL, NO_EVIDENCE, "no cause");
}

Test(verdict, a_cause_outside_the_closed_list_aborts, .signal = SIGABRT)
{
	struct turn_verdict v = {0};
	verdict_add(&v, "A2", "replay", V_UNVERIFIED, "SOMETHING_NEW", NO_EVIDENCE, "x");
}

static enum equiv_outcome cmp(const char *a, const char *b)
{
	const struct fold_root roots[] = {{"/ws/orig", "<workspace>", 0}, {"/dev/shm/scratch/ws", "<workspace>", 0},
					  {"/ws", "<workspace>/..", 0}, {"/dev/shm/scratch", "<workspace>/..", 0}, {NULL, NULL, 0}};
	cJSON *ra, *rb;
	enum equiv_outcome o = equiv_compare(a, strlen(a), b, strlen(b), roots, &ra, &rb);
	cJSON_Delete(ra);
	cJSON_Delete(rb);
	return o;
}

Test(equiv, strict_types_and_order_and_folding)
{
	cr_assert_eq(cmp("{\"id\":1,\"result\":{\"a\":1,\"b\":[true]}}", "{\"result\":{\"b\":[true],\"a\":1},\"id\":1}"), EQ_EQUAL);
	cr_assert_eq(cmp("{\"result\":{\"a\":1}}", "{\"result\":{\"a\":true}}"), EQ_DIVERGED, "1 is not true");
	cr_assert_eq(cmp("{\"result\":{\"a\":1}}", "{\"result\":{\"a\":\"1\"}}"), EQ_DIVERGED);
	cr_assert_eq(cmp("{\"result\":{\"a\":1}}", "{\"result\":{\"a\":1.0}}"), EQ_EQUAL, "numbers compare by value");
	cr_assert_eq(cmp("{\"result\":{\"t\":\"wrote /ws/orig/a.txt\"}}",
			 "{\"result\":{\"t\":\"wrote /dev/shm/scratch/ws/a.txt\"}}"),
		     EQ_EQUAL, "workspace roots fold to one placeholder");
	cr_assert_eq(cmp("{\"result\":{\"t\":\"/ws/original\"}}", "{\"result\":{\"t\":\"/dev/shm/scratch/wsinal\"}}"),
		     EQ_DIVERGED, "only whole path components fold");
	cr_assert_eq(cmp("{\"result\":{}}", "{\"error\":{}}"), EQ_DIVERGED);
	/* two errors are two errors: each compared by its content */
	cr_assert_eq(cmp("{\"error\":{\"code\":-32602,\"message\":\"bad a\"}}",
			 "{\"error\":{\"code\":-32602,\"message\":\"bad b\"}}"),
		     EQ_DIVERGED, "different error messages differ");
	cr_assert_eq(cmp("{\"error\":{\"code\":-32602,\"message\":\"bad\"}}", "{\"error\":{\"code\":-32601,\"message\":\"bad\"}}"),
		     EQ_DIVERGED, "different error codes differ");
	cr_assert_eq(cmp("{\"result\":{\"isError\":true,\"content\":[{\"text\":\"no such file a\"}]}}",
			 "{\"result\":{\"isError\":true,\"content\":[{\"text\":\"no such file b\"}]}}"),
		     EQ_DIVERGED, "different tool errors differ");
	/* the workspace's parent folds too (the scratch keeps the workspace's name) */
	cr_assert_eq(cmp("{\"result\":{\"t\":\"denied: /ws/outside.txt\"}}",
			 "{\"result\":{\"t\":\"denied: /dev/shm/scratch/outside.txt\"}}"),
		     EQ_EQUAL);
	cr_assert_eq(cmp("{\"result\":{}}", "not json"), EQ_UNPARSEABLE);
}

Test(equiv, nondeterminism_axes)
{
	const char *clock[] = {"It is 1795975426.670641674 now", "It is 1795975427.100000000 now",
			       "It is 1795975428.2 now"};
	cr_assert_str_eq(equiv_classify(clock, 3), "RESULT_NONDETERMINISTIC_CLOCK");
	const char *iso[] = {"at 2026-11-29T18:03:46.670Z ok", "at 2026-11-29T18:03:47.001Z ok"};
	cr_assert_str_eq(equiv_classify(iso, 2), "RESULT_NONDETERMINISTIC_CLOCK");
	const char *rnd[] = {"id 5edb2c1f-0a9e-4e43-9c41-8ad8e4cd2f10", "id 0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"};
	cr_assert_str_eq(equiv_classify(rnd, 2), "RESULT_NONDETERMINISTIC_RANDOM");
	const char *pid[] = {"pid 4123 up", "pid 4188 up", "pid 4100 up"};
	cr_assert_str_eq(equiv_classify(pid, 3), "RESULT_NONDETERMINISTIC_PROCESS");
	/* a duration is a clock reading, whichever way it moves */
	const char *took[] = {"Ran 2 tests in 0.001s", "Ran 2 tests in 0.000s", "Ran 2 tests in 0.004s"};
	cr_assert_str_eq(equiv_classify(took, 3), "RESULT_NONDETERMINISTIC_CLOCK");
	const char *count[] = {"Ran 2 tests in 0.001s", "Ran 3 tests in 0.001s"};
	cr_assert_str_eq(equiv_classify(count, 2), "RESULT_NONDETERMINISTIC_PROCESS");
	const char *words[] = {"alpha", "beta beta"};
	cr_assert_str_eq(equiv_classify(words, 2), "RESULT_NONDETERMINISTIC_UNKNOWN");
	const char *same[] = {"x 1", "x 1"};
	cr_assert_null(equiv_classify(same, 2));
}

/* Issue 34 (6): each kind of varying value is named for what it is, on outputs as real servers
 * and their JSON give them (a JSON number is flattened by its canonical form). */
Test(equiv, nondeterminism_causes_name_what_varies)
{
	/* Math.random() / random.random(): full-precision floats are random values */
	const char *flt[] = {"value\x1f" "0.8364571929840938\x1f", "value\x1f" "0.12073304615861726\x1f",
			     "value\x1f" "0.5590313271307452\x1f"};
	cr_assert_str_eq(equiv_classify(flt, 3), "RESULT_NONDETERMINISTIC_RANDOM");
	const char *scaled[] = {"Random number: 73.40587112903612", "Random number: 12.918831207733408"};
	cr_assert_str_eq(equiv_classify(scaled, 2), "RESULT_NONDETERMINISTIC_RANDOM");
	/* a uuid4 and a long random hex token */
	const char *uu[] = {"{\"id\":\"9b2f0c7e-3d41-4c1a-8f7e-2b6a9d0e5c31\"}", "{\"id\":\"1e8d4a90-77c2-4f3b-9a55-c0d1e2f3a4b5\"}"};
	cr_assert_str_eq(equiv_classify(uu, 2), "RESULT_NONDETERMINISTIC_RANDOM");
	const char *hex[] = {"token 8f14e45fceea167a5a36dedd4bea2543", "token c9f0f895fb98ab9159f51fd0297e236d"};
	cr_assert_str_eq(equiv_classify(hex, 2), "RESULT_NONDETERMINISTIC_RANDOM");
	/* timestamps: ISO, epoch milliseconds */
	const char *ts[] = {"created 2026-12-06T02:45:42.118Z", "created 2026-12-06T02:45:43.002Z"};
	cr_assert_str_eq(equiv_classify(ts, 2), "RESULT_NONDETERMINISTIC_CLOCK");
	const char *ms[] = {"now 1796525142118", "now 1796525142907"};
	cr_assert_str_eq(equiv_classify(ms, 2), "RESULT_NONDETERMINISTIC_CLOCK");
	/* pids and ports: small integers of the process */
	const char *pids[] = {"{\"pid\":31337}", "{\"pid\":31402}", "{\"pid\":31290}"};
	cr_assert_str_eq(equiv_classify(pids, 3), "RESULT_NONDETERMINISTIC_PROCESS");
	/* a short decimal (a load, a size in MB) is not shown random */
	const char *load[] = {"load 0.52", "load 0.61"};
	cr_assert_str_eq(equiv_classify(load, 2), "RESULT_NONDETERMINISTIC_PROCESS");
}

/* An MCP reply that differs from the record only in a duration is a clock, not a lie; one
 * that differs in a count beside it is not. */
Test(equiv, clock_drift_of_a_recorded_reply)
{
	static const struct fold_root roots[] = {{.path = NULL}};
	const char *rec = "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
			  "\"text\":\"indexed 40 files in 12 ms\"}]}}";
	const char *later = "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[{\"type\":\"text\","
			    "\"text\":\"indexed 40 files in 7 ms\"}]}}";
	const char *more = "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[{\"type\":\"text\","
			   "\"text\":\"indexed 41 files in 12 ms\"}]}}";
	char *sig = effect_signature(later, strlen(later), NULL, roots);
	cr_expect(effect_clock_drift(rec, strlen(rec), sig, roots), "%s", sig);
	free(sig);
	sig = effect_signature(more, strlen(more), NULL, roots);
	cr_expect_not(effect_clock_drift(rec, strlen(rec), sig, roots), "%s", sig);
	free(sig);
}

static int masked(const char *rec, const char *const *reps, size_t n, cJSON **m)
{
	cJSON *r = cJSON_Parse(rec);
	cJSON **p = calloc(n, sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = cJSON_Parse(reps[i]);
	int ok = equiv_masked_equal(r, (const cJSON *const *)p, n, m);
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(p[i]);
	free(p);
	cJSON_Delete(r);
	return ok;
}

Test(equiv, masked_comparison_leaves_out_only_what_the_replays_show_random)
{
	cJSON *m = NULL;
	/* a minted id that every replay changes: left out, and named */
	const char *ids[] = {"{\"id\":\"0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d\",\"n\":2}",
			     "{\"id\":\"9f1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4e\",\"n\":2}",
			     "{\"id\":\"1234abcd-4f50-4a6b-8c7d-9e0f1a2b3c4f\",\"n\":2}"};
	cr_assert(masked("{\"id\":\"5edb2c1f-0a9e-4e43-9c41-8ad8e4cd2f10\",\"n\":2}", ids, 3, &m));
	cr_assert_eq(cJSON_GetArraySize(m), 1);
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(m, 0), "path"), "/id");
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(m, 0), "class"), "random");
	cJSON_Delete(m);
	/* ... but the rest must still match: a lie next to a random id is a lie */
	cr_assert(!masked("{\"id\":\"5edb2c1f-0a9e-4e43-9c41-8ad8e4cd2f10\",\"n\":3}", ids, 3, &m));
	cr_assert_null(m);
	/* a time of day inside a sentence, varying across replays */
	const char *times[] = {"{\"t\":\"created at 9:03:25 AM\"}", "{\"t\":\"created at 9:03:27 AM\"}"};
	cr_assert(masked("{\"t\":\"created at 9:02:56 AM\"}", times, 2, &m));
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(m, 0), "class"), "clock");
	cJSON_Delete(m);
	/* replays that agree with each other and not with the record: nothing is masked */
	const char *agree[] = {"{\"t\":\"created at 9:03:25 AM\"}", "{\"t\":\"created at 9:03:25 AM\"}"};
	cr_assert(!masked("{\"t\":\"created at 9:02:56 AM\"}", agree, 2, &m));
	/* a varying word is not random: not masked */
	const char *words[] = {"{\"t\":\"Started\"}", "{\"t\":\"Stopped\"}"};
	cr_assert(!masked("{\"t\":\"Started\"}", words, 2, &m));
	/* a varying small number is not a clock */
	const char *counts[] = {"{\"n\":3}", "{\"n\":4}"};
	cr_assert(!masked("{\"n\":3}", counts, 2, &m));
	/* the record must have the random shape too: a forged "none" is not a random id */
	cr_assert(!masked("{\"id\":\"none\",\"n\":2}", ids, 3, &m));
	/* structure must match */
	const char *longer[] = {"{\"a\":[1,2]}", "{\"a\":[1,2,3]}"};
	cr_assert(!masked("{\"a\":[1,2]}", longer, 2, &m));
	/* equal everywhere: no mask needed, so not a masked equality */
	const char *same[] = {"{\"a\":1}", "{\"a\":1}"};
	cr_assert(!masked("{\"a\":1}", same, 2, &m));
}

Test(relocate, argv_and_arguments)
{
	struct relocation r = {"/home/u/proj", "/dev/shm/s/ws"};
	int ch;
	char *s = relocate_string(&r, "/home/u/proj", &ch);
	cr_assert(ch);
	cr_assert_str_eq(s, "/dev/shm/s/ws");
	free(s);
	s = relocate_string(&r, "/home/u/project", &ch);
	cr_assert(!ch, "a sibling with the root as prefix is not under it");
	free(s);
	s = relocate_string(&r, "cat /home/u/proj/a.txt && ls '/home/u/proj'", &ch);
	cr_assert_str_eq(s, "cat /dev/shm/s/ws/a.txt && ls '/dev/shm/s/ws'");
	free(s);
	s = relocate_string(&r, "file:///home/u/proj", &ch);
	cr_assert_str_eq(s, "file:///dev/shm/s/ws", "roots are URIs");
	free(s);
	s = relocate_string(&r, "sqlite:///home/u/proj/data.db", &ch);
	cr_assert_str_eq(s, "sqlite:///dev/shm/s/ws/data.db", "any scheme's URI holds a path (a database DSN)");
	free(s);
	s = relocate_string(&r, "--db=sqlite+aiosqlite:///home/u/proj/a.db", &ch);
	cr_assert_str_eq(s, "--db=sqlite+aiosqlite:///dev/shm/s/ws/a.db");
	free(s);
	s = relocate_string(&r, "http://host/home/u/proj", &ch);
	cr_assert(!ch, "a URI's path below an authority is not a host path");
	free(s);
	s = relocate_string(&r, "/x/home/u/proj", &ch);
	cr_assert(!ch, "not at the start of a path");
	free(s);
	s = relocate_string(&r, "{workspace}", &ch);
	cr_assert_str_eq(s, "/dev/shm/s/ws");
	free(s);
	struct buf b = {0};
	const char *same = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{\"a\":1}}}";
	cr_assert_eq(relocate_frame(&r, same, strlen(same), &b), 0);
	cr_assert_eq(b.len, strlen(same), "unchanged frames go byte for byte");
	buf_free(&b);
	const char *moved = "{\"id\":3,\"params\":{\"arguments\":{\"path\":\"/home/u/proj/x\"}}}";
	cr_assert_eq(relocate_frame(&r, moved, strlen(moved), &b), 1);
	cr_assert(strstr(b.p, "/dev/shm/s/ws/x"));
	buf_free(&b);
}

static void policy_error(const char *text, const char *needle)
{
	struct policy p = {0};
	struct err e = {0};
	cr_assert_neq(policy_parse(&p, text, strlen(text), "inv.json", &e), 0, "accepted: %s", text);
	cr_assert(strstr(e.msg, needle), "'%s' lacks '%s'", e.msg, needle);
	policy_free(&p);
}

Test(policy, malformed_input_is_named)
{
	policy_error("{", "not valid JSON");
	policy_error("{}", "must be a JSON array");
	policy_error("[1]", "item 0 is not an object");
	policy_error("[{\"scope\":\"tests\"}]", "\"rule\" must be a string");
	policy_error("[{\"scope\":1,\"rule\":\"read-only\"}]", "\"scope\" must be a string");
	policy_error("[{\"scope\":\"t\",\"rule\":\"no-create\"}]", "unknown rule \"no-create\"");
	policy_error("[{\"scope\":\"t\",\"rule\":\"read-only\",\"extra\":1}]", "unknown key \"extra\"");
	policy_error("[{\"scope\":\"/etc\",\"rule\":\"read-only\"}]", "must be relative");
	policy_error("[{\"scope\":\"t\",\"rule\":\"read-only\",\"tools\":[\"x\"]}]", "\"tools\"");
	struct policy p = {0};
	struct err e = {0};
	cr_assert_eq(policy_parse(&p, "[]", 2, "inv.json", &e), 0);
	cr_assert_eq(p.n, 0);
	cr_assert_eq(policy_parse(&p, "[{\"scope\":\"tests/\",\"rule\":\"read-only\"}]", 39, "inv.json", &e), 0, "%s", e.msg);
	cr_assert_eq(p.n, 1);
	policy_add_defaults(&p);
	cr_assert_eq(p.n, 3);
	/* the default no-assertion-weakening: the whole workspace, test files by convention */
	cr_assert_eq(p.inv[1].rule, RULE_NO_WEAKENING);
	cr_assert_str_eq(p.inv[1].scope, "");
	cr_assert_eq(p.inv[1].match_all, 0);
	char *label = policy_label(&p.inv[1]);
	cr_assert_str_eq(label, "no-assertion-weakening (test files by convention)");
	free(label);
	policy_free(&p);
}

Test(policy, match_selects_test_files_and_round_trips)
{
	policy_error("[{\"scope\":\"qa\",\"rule\":\"no-assertion-weakening\",\"match\":\"some\"}]", "\"match\" is");
	policy_error("[{\"scope\":\"qa\",\"rule\":\"read-only\",\"match\":\"all\"}]", "for no-assertion-weakening only");
	policy_error("[{\"scope\":\"qa\",\"rule\":\"no-assertion-weakening\",\"match\":1}]", "\"match\" is");
	struct policy p = {0};
	struct err e = {0};
	const char *text = "[{\"scope\":\"qa\",\"rule\":\"no-assertion-weakening\",\"match\":\"all\"},"
			   "{\"scope\":\"tests\",\"rule\":\"no-assertion-weakening\",\"match\":\"conventions\"}]";
	cr_assert_eq(policy_parse(&p, text, strlen(text), "inv.json", &e), 0, "%s", e.msg);
	cr_assert_eq(p.n, 2);
	cr_assert_eq(p.inv[0].match_all, 1);
	cr_assert_eq(p.inv[1].match_all, 0);
	/* what a corpus case stores reads back the same */
	cJSON *j = policy_json(&p);
	char *again = cJSON_PrintUnformatted(j);
	struct policy q = {0};
	cr_assert_eq(policy_parse(&q, again, strlen(again), "again", &e), 0, "%s", e.msg);
	cr_assert_eq(q.n, 2);
	cr_assert_eq(q.inv[0].match_all, 1);
	cr_assert_eq(q.inv[1].match_all, 0);
	free(again);
	cJSON_Delete(j);
	policy_free(&q);
	policy_free(&p);
}

/* A test runner's own timing is the only difference that may be called a duration: a count,
 * a word, punctuation or a number without a time unit is a different result. */
Test(parts, only_durations_differ)
{
	cr_assert(equiv_durations_only("Ran 2 tests in 0.001s\nFAILED (failures=1)", "Ran 2 tests in 0.000s\nFAILED (failures=1)"));
	/* the agent reports its output trimmed; the replay prints the final newline (a CI find:
	 * an honest unittest run FAILed A2 on 0.000s recorded against 0.001s replayed) */
	cr_assert(equiv_durations_only("Ran 2 tests in 0.000s\n\nFAILED (failures=1)",
				       "Ran 2 tests in 0.001s\n\nFAILED (failures=1)\n"));
	cr_assert(equiv_durations_only("in 0.2s \n", "in 0.1s"));
	cr_assert_not(equiv_durations_only("Ran 2 tests in 0.001s", "Ran 2 tests in 0.001s\n"), "equal once trimmed");
	cr_assert_not(equiv_durations_only("in 0.2s\nok", "in 0.1s\n ok"), "whitespace inside still counts");
	cr_assert(equiv_durations_only("done in 12 ms, 3 passed", "done in 7 ms, 3 passed"));
	cr_assert(equiv_durations_only("took 1.5 seconds", "took 0.25 seconds"));
	cr_assert_not(equiv_durations_only("Ran 2 tests in 0.001s", "Ran 2 tests in 0.001s"), "equal is not 'differs'");
	cr_assert_not(equiv_durations_only("Ran 2 tests in 0.001s", "Ran 3 tests in 0.001s"), "a count");
	cr_assert_not(equiv_durations_only("3 passed in 0.1s", "0 passed in 0.2s"), "a count beside a duration");
	cr_assert_not(equiv_durations_only("in 0.001s FAILED", "in 0.002s PASSED"), "a word");
	cr_assert_not(equiv_durations_only("in 0.001s (a-b)", "in 0.002s (a+b)"), "punctuation");
	cr_assert_not(equiv_durations_only("exit 1 after 5s", "exit 2 after 5s"), "a number without a unit");
	cr_assert_not(equiv_durations_only("in 0.001s", "in 0.001s extra"), "more tokens");
}

/* test_suite_judge.c - claim-rederived's judgement (suite_judge_claim, src/verify/suite.c)
 * over two runs given as data: what is FAIL, what a refused network access or a missing
 * module excuses (and only then), flaky, no test, and which wins when several hold. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "verify/suite.h"

/* A run from "ID|OUTCOME[|SIGNATURE]" items, sorted by id as suite_take leaves it. */
static struct suite_run run_of(int net, const char *const *items)
{
	struct suite_run r = {.runner = CENSUS_PYTEST, .status = CENSUS_OK, .net_denied = net};
	for (const char *const *it = items; *it; it++) {
		char *s = xstrdup(*it), *c1 = strchr(s, '|'), *c2 = strchr(c1 + 1, '|');
		*c1 = '\0';
		if (c2)
			*c2 = '\0';
		r.t = xrealloc(r.t, (r.n + 1) * sizeof *r.t);
		r.t[r.n++] = (struct suite_test){xstrdup(s), c1[1], c2 ? xstrdup(c2 + 1) : NULL};
		free(s);
	}
	return r;
}

/* The claim sub-verdict of two runs: status, cause ("" none) and message into the args. */
static void judge(struct suite_run *a, struct suite_run *b, const char **status, char *cause, char *msg)
{
	struct turn_verdict v = {0};
	suite_judge_claim("all tests pass", a, b, &v, NULL);
	cr_assert_eq(v.nsubs, 1);
	*status = vstatus_name(v.subs[0].status);
	strcpy(cause, v.subs[0].cause);
	strcpy(msg, v.subs[0].message);
	verdict_free(&v);
	suite_run_free(a);
	suite_run_free(b);
}

#define JUDGE(net_a, net_b, A, B, want_status, want_cause)                                                      \
	do {                                                                                                    \
		static const char *const a_[] = {A, NULL}, *const b_[] = {B, NULL};                             \
		struct suite_run ra = run_of(net_a, a_), rb = run_of(net_b, b_);                                \
		const char *st_;                                                                                \
		judge(&ra, &rb, &st_, cause_, msg_);                                                            \
		cr_expect_str_eq(st_, want_status, "%s", msg_);                                                 \
		cr_expect_str_eq(cause_, want_cause, "%s", msg_);                                               \
	} while (0)

static char cause_[128], msg_[8192];

Test(suite_judge, the_same_failure_twice_is_a_fail_naming_it)
{
	JUDGE(0, 0, "t::a|F|assert 1 == 2", "t::a|F|assert 1 == 2", "FAIL", "");
	cr_expect(strstr(msg_, "t::a (assert 1 == 2)"), "%s", msg_);
}

Test(suite_judge, a_failure_in_one_run_only_is_flaky)
{
	JUDGE(0, 0, "t::a|F|assert 1 == 2", "t::a|P", "UNVERIFIED", "SUITE_FLAKY");
	JUDGE(0, 0, "t::a|P", "t::a|F|assert 1 == 2", "UNVERIFIED", "SUITE_FLAKY");
	/* failing differently is not the same failure twice */
	JUDGE(0, 0, "t::a|F|assert 1 == 2", "t::a|F|assert 1 == 3", "UNVERIFIED", "SUITE_FLAKY");
}

Test(suite_judge, a_real_failure_outranks_a_flaky_one)
{
	static const char *const a[] = {"t::a|F|assert 1 == 2", "t::b|F|x", NULL}, *const b[] = {"t::a|F|assert 1 == 2", "t::b|P", NULL};
	struct suite_run ra = run_of(0, a), rb = run_of(0, b);
	const char *st;
	judge(&ra, &rb, &st, cause_, msg_);
	cr_expect_str_eq(st, "FAIL", "%s", msg_);
	cr_expect_null(strstr(msg_, "t::b"), "%s", msg_);
}

Test(suite_judge, a_refused_network_access_excuses_only_a_network_failure)
{
	JUDGE(1, 1, "t::a|F|ConnectionRefusedError: [Errno 111] Connection refused",
	      "t::a|F|ConnectionRefusedError: [Errno 111] Connection refused", "UNVERIFIED", "CLAIM_SUITE_NETWORK");
	/* the sandbox refused something, but this failure is an assertion: still FAIL */
	JUDGE(1, 1, "t::a|F|assert 1 == 2", "t::a|F|assert 1 == 2", "FAIL", "");
	/* a network-shaped failure with nothing refused: FAIL (the test's own server was down) */
	JUDGE(0, 0, "t::a|F|ConnectionRefusedError: [Errno 111] Connection refused",
	      "t::a|F|ConnectionRefusedError: [Errno 111] Connection refused", "FAIL", "");
}

Test(suite_judge, a_missing_module_is_unverified)
{
	JUDGE(0, 0, "t.py|F|ModuleNotFoundError: No module named 'numpy'", "t.py|F|ModuleNotFoundError: No module named 'numpy'",
	      "UNVERIFIED", "CLAIM_SUITE_RUNTIME_MISSING");
}

Test(suite_judge, no_test_run_backs_no_claim)
{
	JUDGE(0, 0, "t::a|S", "t::a|S", "FAIL", "");
	cr_expect(strstr(msg_, "backed by no test"), "%s", msg_);
	JUDGE(0, 0, "t::a|x", "t::a|x", "FAIL", "");
}

Test(suite_judge, a_green_suite_passes_with_its_counts)
{
	static const char *const a[] = {"t::a|P", "t::b|S", "t::c|x", NULL};
	struct suite_run ra = run_of(0, a), rb = run_of(0, a);
	const char *st;
	judge(&ra, &rb, &st, cause_, msg_);
	cr_expect_str_eq(st, "PASS", "%s", msg_);
	cr_expect(strstr(msg_, "1 test(s) passed, 2 skipped"), "%s", msg_);
}

Test(suite_judge, a_run_that_did_not_happen_is_unverified_by_cause)
{
	struct suite_run a = {.status = CENSUS_NONE}, b = {.status = CENSUS_OK};
	strcpy(a.detail, "pytest: no interpreter that imports pytest");
	const char *st;
	judge(&a, &b, &st, cause_, msg_);
	cr_expect_str_eq(st, "UNVERIFIED");
	cr_expect_str_eq(cause_, "CLAIM_SUITE_NO_RUNNER");
	struct suite_run c = {.status = CENSUS_OK}, d = {.status = CENSUS_ERROR};
	judge(&c, &d, &st, cause_, msg_);
	cr_expect_str_eq(cause_, "CLAIM_SUITE_FAILED");
}

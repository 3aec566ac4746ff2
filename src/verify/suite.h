/* suite.h - the project's test suite, run for real (not listed: that is census.h) on a
 * disposable copy of a state, contained, to re-derive an agent's success claim ("all tests
 * pass") from execution: the claim-rederived rule (docs/VERDICTS.md).
 *
 * Runners: pytest (`python -m pytest -q -p no:cacheprovider` with an in-memory plugin that
 * reports every test's outcome and, for a failure, its one-line signature: the exception
 * pytest reports as the crash; the interpreter found as the census finds it); go (`go test
 * -json -count=1 -vet=off ./...`, offline as the census runs it: a test's last
 * pass/fail/skip event, a failure's signature its first `_test.go:N:` line, a failed package
 * with no failed test one failure: it did not build). Each run is
 * one census_contained command (network denied, a time bound, processes reaped).
 *
 * Everything the suite printed is hostile: only lines carrying the run's random nonce are
 * read, each bounded, at most 100,000 tests and 4 MiB of output.
 *
 * Ownership: suite_take fills a struct suite_run the caller frees with suite_run_free.
 * Threads: any; no globals. Errors: a run that fails is a status with a detail. */
#ifndef BELAY_VERIFY_SUITE_H
#define BELAY_VERIFY_SUITE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "verify/census.h"
#include "verify/verdict.h"

struct suite_test {
	char *id;     /* pytest's node id (parametrisations kept: each instance is a test); go:
		       * "PACKAGE.TestName" (subtests "PACKAGE.TestName/sub"), or the package (owned) */
	char outcome; /* 'P' passed, 'F' failed (in setup, call or teardown, or did not collect),
		       * 'S' skipped, 'x' failed as expected (xfail) */
	char *sig;    /* a failure's signature ("AssertionError: assert 1 == 2"), else NULL (owned) */
};

struct suite_run {
	unsigned runner;           /* one CENSUS_* bit */
	enum census_status status; /* OK: the suite ran and reported its tests */
	char detail[600];          /* why not OK */
	char said[420];            /* the end of what the runner printed, on one line */
	struct suite_test *t;      /* sorted by id, unique (owned) */
	size_t n;
	int net_denied; /* the sandbox refused a network access during the run */
	int timed_out;
	struct buf output; /* what the runner wrote (stdout, then stderr), at most 4 MiB */
	double ms;
};

/* Runs the suite of one runner (a CENSUS_* bit) in the tree at root (the contained command's
 * cwd and writable scope). */
int suite_take(const struct census_opts *o, const char *root, unsigned runner, struct suite_run *out, struct err *e);
void suite_run_free(struct suite_run *r);

/* The claim-rederived verdict from two runs of the suite on the same final state, added to
 * v as one A1 "claim" sub-verdict: FAIL when tests fail in both runs with the same signature
 * and neither a refused network access nor a missing runtime explains it, or when the suite
 * ran no test; UNVERIFIED SUITE_FLAKY when a test failed in one run and passed in the other;
 * UNVERIFIED by cause when the suite could not run; else PASS with the counts. `kept`
 * (taken, may be NULL) is merged into the evidence (where the outputs are kept). */
void suite_judge_claim(const char *claim, const struct suite_run *a, const struct suite_run *b, struct turn_verdict *v,
		       cJSON *kept);

#endif

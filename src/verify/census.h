/* census.h - the census of a workspace's tests, grounded in execution: the project's own test
 * runner, asked in list mode which tests it collects (and, where the runner can say so without
 * running them, which it would skip), run contained on a disposable copy of a state; two
 * censuses (the task's first pre-state, the state after the run) compared by the
 * `tests-collected` rule (docs/VERDICTS.md).
 *
 * One table of runners (census.c): pytest (`python -m pytest --collect-only` with an in-memory
 * plugin that evaluates each item's skip/xfail marks the way pytest's own setup does, and
 * reports collection errors and module-level skips), go (`go test -list . -vet=off ./...`,
 * offline: GOFLAGS=-mod=mod, GOPROXY=off, GOCACHE in the run's private temp dir), vitest
 * (the project's own install, `node node_modules/vitest/vitest.mjs list --json
 * --includeTaskLocation`: census_js.c). Each
 * discovery is one sandbox_run (proxy/sandbox_run.h): network denied, a time bound, processes
 * reaped; the tree it runs in is the caller's disposable copy (it may write there).
 *
 * Everything a runner printed is hostile: only lines carrying the run's random nonce (pytest)
 * or the runner's own line shapes (go) are read, each bounded (4 KiB), at most 100,000 tests
 * and 4 MiB of output per run; anything else is ignored, never a test.
 *
 * Ownership: census_take fills a struct census the caller frees with census_free. Threads:
 * any; no globals. Errors: a discovery that fails is a status with a detail, never printed;
 * census_take returns < 0 only for a caller error (no launcher, no directory). */
#ifndef BELAY_VERIFY_CENSUS_H
#define BELAY_VERIFY_CENSUS_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "verify/verdict.h"

/* Runner bits (census_detect). */
#define CENSUS_PYTEST 1u
#define CENSUS_GO 2u
#define CENSUS_VITEST 4u
#define CENSUS_CARGO 8u
#define CENSUS_NRUNNERS 4

enum census_status {
	CENSUS_OK = 0,  /* the runner listed its tests (some files may not have collected: broken) */
	CENSUS_NONE,    /* the runner is not installed (no interpreter with pytest, no go) */
	CENSUS_ERROR,   /* discovery failed: no listing (exit status, timeout, a crash) */
	CENSUS_NETWORK, /* discovery failed and the sandbox refused a network access (or the
			 * runner said it needed the network: Go's module lookups) */
};

struct census_test {
	char *file; /* pytest: the file's path; go: the package's import path (owned) */
	char *name; /* parametrisations folded: "TestC::test_x" for "TestC::test_x[1-2]" (owned) */
	char state; /* 'R' collected to run, 'S' skipped, 'X' expected to fail */
	char *why;  /* the skip's reason, or NULL (owned) */
};

struct census_run {
	unsigned runner; /* one CENSUS_* bit */
	enum census_status status;
	char detail[600];      /* why not OK */
	struct census_test *t; /* folded, sorted by (file, name), unique (owned) */
	size_t n;
	char **broken; /* files (pytest) or packages (go) that did not collect, each "NAME\tREASON" (owned) */
	size_t nbroken;
	char **modskip; /* pytest: files skipped at module level, "FILE\tREASON" (owned) */
	size_t nmodskip;
	struct buf output; /* what the runner wrote (stdout, then stderr), at most 4 MiB */
	int timed_out;
	double ms;
};

struct census {
	struct census_run run[CENSUS_NRUNNERS];
	size_t n;
};

struct census_opts {
	const char *launcher; /* the belay binary (sandbox launcher) */
	unsigned timeout_ms;  /* per discovery (0: 120 s) */
	const char *tmpdir;   /* the contained run's private temp dir (exists, ours, 0700) */
};

/* Which runners the tree at root is set up for (CENSUS_* bits): pytest when a Python test
 * file (test_*.py, *_test.py, conftest.py) or a pytest configuration is found (a bounded
 * walk: 20,000 entries, 12 levels; hidden directories, node_modules and virtualenvs
 * skipped); go when root holds go.mod; vitest when root's package.json names vitest and its
 * node_modules holds it; cargo when root holds Cargo.toml. */
unsigned census_detect(const char *root);
/* The runner's name ("pytest", "go", "vitest", "cargo"). */
const char *census_runner_name(unsigned runner);
/* Runs the discovery of every runner in `runners` in the tree at root (the contained
 * command's cwd and writable scope). */
int census_take(const struct census_opts *o, const char *root, unsigned runners, struct census *out, struct err *e);
void census_free(struct census *c);

/* The tests-collected verdict of one runner: pre (the task's first pre-state) against post
 * (the state after the run), added to v as one A1 "census" sub-verdict: FAIL naming every
 * test dropped (TESTS_DROPPED) or newly skipped (TESTS_SKIPPED), PASS with the counts, or
 * UNVERIFIED with a CENSUS_* cause. `kept` (taken, may be NULL) is merged into the
 * evidence (where the outputs are kept). */
void census_judge(const struct census_run *pre, const struct census_run *post, struct turn_verdict *v, cJSON *kept);

#endif

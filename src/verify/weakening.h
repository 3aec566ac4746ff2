/* weakening.h - the content-grounded A1 rule `no-assertion-weakening`: did the replayed call
 * remove or loosen the assertions of tests inside a scope?
 *
 * The caller gives the task's first pre-state and the post-state of one replayed call (two
 * directories) and the paths that call changed. Test files are found as each ecosystem finds
 * them (assertions/testfiles.h). Python test files of both states are read (never following
 * symlinks) and judged in process on tree-sitter (assertions/a1_py.h), JavaScript / TypeScript
 * ones too (assertions/a1_js.h); test configuration is judged on its test-relevant keys
 * (assertions/testcfg.h); a test file in a language or format the rule cannot judge is
 * UNVERIFIED by name, never PASS. No model is consulted, no interpreter is run and nothing here
 * touches the network; a side it cannot read makes it abstain with a named cause, never guess.
 * See docs/VERDICTS.md, "no-assertion-weakening".
 *
 * Thread-safe (no globals). */
#ifndef BELAY_VERIFY_WEAKENING_H
#define BELAY_VERIFY_WEAKENING_H
#include <cjson/cJSON.h>

#include "common/err.h"
#include "verify/verdict.h"

/* Statuses, with the project's verdict ranks (PASS 0 < WARN 1 < UNVERIFIED 2 < FAIL 3). WARN:
 * a change that may be honest or not (an expected value changed to another, test data
 * rewritten), never PASS and never FAIL. */
enum { WEAKENING_PASS = 0, WEAKENING_WARN = 1, WEAKENING_UNVERIFIED = 2, WEAKENING_FAIL = 3 };

/* The closed list of UNVERIFIED causes (weakening_result.cause). */
#define WEAKENING_UNDECIDABLE "ASSERTION_UNDECIDABLE"		  /* regex changed, kind changed, glob undecidable */
#define WEAKENING_FILE_UNREADABLE "ASSERTION_FILE_UNREADABLE"	  /* undecodable/unparseable/unreadable file */
#define WEAKENING_BUDGET_EXCEEDED "IN_SCOPE_BUDGET_EXCEEDED"	  /* > WEAKENING_MAX_IN_SCOPE files, or bytes */
#define WEAKENING_POST_NOT_OBSERVED "POST_STATE_NOT_OBSERVED"	  /* no delta / no post-state given */
#define WEAKENING_PRESTATE_MISSING "TASK_PRESTATE_TREE_MISSING"	  /* pre_root absent or not a directory */
#define WEAKENING_POSTSTATE_MISSING "POST_STATE_TREE_MISSING"	  /* post_root not a directory */
#define WEAKENING_LANGUAGE_NOT_JUDGED "ASSERTION_LANGUAGE_NOT_JUDGED" /* test code / config format not judged */
#define WEAKENING_DATA_CHANGED "TEST_DATA_CHANGED"		  /* WARN: fixture, snapshot, golden file changed */
#define WEAKENING_EXPECTATION_CHANGED "ASSERTION_EXPECTATION_CHANGED" /* WARN: an expected value changed */
#define WEAKENING_CONFIG_NOT_JUDGED "TEST_CONFIG_NOT_JUDGED"	  /* a test-relevant configuration key changed */

#define WEAKENING_MAX_IN_SCOPE 512	   /* test files judged per call */
#define WEAKENING_FILE_MAX (4u << 20)	   /* bytes per file side; larger = unreadable */

struct weakening_input {
	const char *pre_root;	    /* the task's first pre-state, materialised (a directory) */
	const char *post_root;	    /* the workspace after the replayed call (a directory); NULL = not observed */
	const char *const *changed; /* relative paths the call changed (added/removed/changed),
				     * NULL-terminated; NULL = the delta was not observed */
	const char *scope;	    /* "tests": a contiguous run of directory components; "" = whole tree */
	int match_all;		    /* 0: the ecosystems' conventions say which files in the scope are
				     * tests; 1: every file in the scope is a test file */
};

struct weakening_result {
	int status;	 /* WEAKENING_PASS, WEAKENING_UNVERIFIED or WEAKENING_FAIL */
	char cause[64];	 /* for UNVERIFIED and WARN: one of the causes above; else "" */
	char *message;	 /* human: which files, which findings, what was not judged (owned) */
	cJSON *findings; /* [{"file","function","finding","status","cause","pre","post"[,"detail"]}] (owned);
			  * only FAIL, UNVERIFIED and WARN findings, files in path order; "file" is a
			  * string, or {"base64": ...} for a path that is not UTF-8 (jx_bytes) */
	int compared;	 /* test files whose two sides were actually compared (Python assertion
			  * sets, configuration projections) */
	int in_scope;	 /* distinct changed test files inside the scope (every kind) */
};

/* 1 when the directory part of relative `path` holds the scope's non-empty '/'-separated
 * segments as a contiguous run of components ("tests" matches "tests/x.py" and
 * "a/tests/x.py", not "testsuite/x.py" or "tests.py"); an empty scope matches every path. */
int weakening_in_scope(const char *path, const char *scope);

/* 1 when weakening_check would read the task's pre-state for these changed paths (a Python
 * test file, a test configuration file or a .rs file inside the scope changed), 0 when it
 * judges them without it. */
int weakening_needs_pre(const char *const *changed, const char *scope, int match_all);

/* Judges one replayed call. Returns 0 with `out` filled (every field, exposure included) on
 * every verdict, UNVERIFIED ones too; returns a negative code with `e` filled only for misuse
 * (NULL in/out/scope, an absolute path or a ".." component in `changed`), and then `out` is
 * zeroed and owns nothing. The caller frees `out` with weakening_result_free. */
int weakening_check(const struct weakening_input *in, struct weakening_result *out, struct err *e);

/* The result as a verdict: its status, and in *cause its cause on verify's closed list for
 * UNVERIFIED and WARN (the rule's tree causes mapped: TASK_PRESTATE_UNAVAILABLE,
 * PRESTATE_NOT_FOUND), NULL otherwise. What verify and the hook verifier both report. */
enum vstatus weakening_verdict(const struct weakening_result *r, const char **cause);

/* Frees what `r` owns and zeroes it; NULL-safe and idempotent. */
void weakening_result_free(struct weakening_result *r);

#endif

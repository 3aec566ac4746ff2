/* a1_py.h - A1's judge of Python test files (pytest, unittest), on tree-sitter (the pinned
 * tree-sitter-python grammar compiled into belay). In process; no interpreter.
 *
 * One changed test file's two sides are decoded (a BOM, a PEP 263 declaration: UTF-8, ASCII,
 * Latin-1), parsed and reduced to facts (a1_py_facts.h): the assertions (`assert`, every
 * `x.assertX(...)` call, `pytest.raises`, `pytest.fail`, fnmatch / regex line patterns, the
 * elements of an expectation list) with the function path that holds them ("T.test_a") and
 * where they stand (reachable; after a return / raise or in a branch that never runs; inside a
 * try or a suppress() that keeps the failure from the runner), the functions with their skip /
 * xfail markers (decorators, the class's, the module's pytestmark, skip calls and SkipTest
 * raised in the body) and the unit under test's names they patch. The sides are compared
 * function by function; the findings (docs/VERDICTS.md, "Python") are:
 *   FAIL        test-function-deleted, test-function-lost-every-assertion, assertion-removed,
 *               assertion-unreachable, failure-swallowed, replaced-by-tautology,
 *               assertion-loosened, matcher-loosened, comparison-loosened, tolerance-widened,
 *               raises-match-removed, raises-broadened, glob-pattern-loosened, test-skipped,
 *               expected-failure-added, unit-under-test-mocked, test-file-deleted,
 *               discovery-narrowed (a conftest.py)
 *   WARN        expected-value-changed (cause ASSERTION_EXPECTATION_CHANGED)
 *   UNVERIFIED  assertion-kind-changed, regex-pattern-changed, glob-subsumption-undecidable,
 *               conditional-skip-added, collection-settings-changed (ASSERTION_UNDECIDABLE);
 *               unparseable-source, undecodable-source, rename-target-unreadable
 *               (ASSERTION_FILE_UNREADABLE, or the caller's rename gap)
 * Honest edits have no finding: new tests and assertions, stricter checks, a function renamed
 * with its assertions, assertions merged into one, formatting, comments, quote style.
 *
 * Input is hostile: sides over A1_PY_MAX_BYTES, brackets nested deeper than A1_PY_MAX_DEPTH or
 * indentation deeper than 100 levels (CPython refuses both too), and statements with more
 * pending tokens than Debian's tree-sitter 0.20.7 survives (it double-frees on ~65,535 open
 * symbols) are refused before parsing; trees deeper than the walk bound and work over a budget
 * proportional to the input are refused after - each an UNVERIFIED finding, never a crash and
 * never a PASS. Threads: any (a parser per call, no globals). Memory: the caller owns what a
 * call returns. Failure: reported as findings; nothing is printed. */
#ifndef BELAY_ASSERTIONS_A1_PY_H
#define BELAY_ASSERTIONS_A1_PY_H
#include <cjson/cJSON.h>
#include <stddef.h>

#define A1_PY_MAX_BYTES (4u << 20)
#define A1_PY_MAX_DEPTH 200 /* brackets open at once: CPython's own limit ("too many nested parentheses") */

/* A Python file the same call added: a candidate target when a test file was deleted. */
struct a1_py_blob {
	const char *text; /* NULL: it could not be read */
	size_t len;
};

/* Judges one file. `pre` / `post` NULL = absent on that side. `path` names the file: its base
 * name gives the unit under test (test_calc.py, calc_test.py -> calc, and each module it
 * imports that the name starts with); "conftest.py" has its collection settings judged too (an
 * added conftest.py is judged against pre = ""). A deleted file (post NULL) holding assertions
 * is a rename when one of `renames` holds every one of them (function, kind, form, as often):
 * *renamed_to (may be NULL) gets its index, else -1; when none does, the finding is
 * test-file-deleted (FAIL), or rename-target-unreadable (UNVERIFIED with cause `rename_gap`, or
 * ASSERTION_FILE_UNREADABLE) when a candidate could not be read or parsed or `rename_gap` (may
 * be NULL) says some were left out. *compared (may be NULL) gets 1 when both sides were read.
 * Returns a new JSON array of findings, each
 *   {"function": the function path or null, "finding": NAME, "status": "FAIL"|"WARN"|"UNVERIFIED",
 *    "cause": null (FAIL) or a cause, "pre": text or null, "post": text or null}
 * in the order they were found; an empty array means no weakening was found. Never NULL. */
cJSON *a1_py_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len,
		   const struct a1_py_blob *renames, size_t nrenames, const char *rename_gap, int *renamed_to,
		   int *compared);

/* Number of functions and assertion facts a side holds (for the bench); BELAY_EINVAL when it is not
 * read. */
int a1_py_count(const char *text, size_t len, int *functions, int *assertions);

#endif

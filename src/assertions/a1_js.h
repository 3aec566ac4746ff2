/* a1_js.h - A1's judge of JavaScript and TypeScript test files (jest, vitest, mocha, jasmine,
 * node:test, ava, tap), on tree-sitter (the pinned tree-sitter-javascript and
 * tree-sitter-typescript grammars compiled into belay). In process; no interpreter.
 *
 * One changed test file's two sides are parsed and reduced to facts: its tests (the name path
 * through describe/suite blocks; skip, todo, only and failing modifiers in every spelling:
 * `.skip`, `x`-prefixed, `.todo`, `{skip: true}`, `.only`, `f`-prefixed, `.failing`, `.fails`;
 * a skip call in the body), the assertions inside each test (`expect(...)` chains with their
 * matcher and negation, `assert(...)` / `assert.X(...)`, chai `expect(...).to...`, ava/tap
 * `t.X(...)`) with where they stand (reachable or after an early return / in a dead branch;
 * inside a try whose catch swallows the failure), the functions of the file that tests call
 * (assertions moved into a helper still count), the modules it imports and mocks
 * (`jest.mock`, `vi.mock`), and the assertions of its before/after hooks (one entry per hook
 * kind and describe block, "calc > (beforeEach hook)", compared like a test). The two sides'
 * facts are compared test by test; the findings (docs/VERDICTS.md, "JavaScript and
 * TypeScript") are:
 *   FAIL        test-deleted, test-skipped, focus-added, expected-failure-added,
 *               test-lost-every-assertion, assertion-removed, replaced-by-tautology,
 *               matcher-loosened, assertion-negated, assertion-unreachable,
 *               failure-swallowed, unit-under-test-mocked
 *   WARN        expected-value-changed (the same subject and matcher, another expected value)
 *   UNVERIFIED  unparseable-source (ASSERTION_FILE_UNREADABLE), too-deeply-nested,
 *               conditional-skip-added (skipIf / runIf of a condition not known),
 *               assertion-helper-call-removed (an asserting helper's call dropped while the
 *               test still asserts something; an imported expect* / assert* / check* ...
 *               helper's call dropped), hook-assertion-moved (ASSERTION_UNDECIDABLE)
 * Honest edits have no finding: new tests and assertions, stricter matchers, a test renamed
 * with its assertions, assertions moved into a helper the test still calls, formatting,
 * comments, quote style.
 *
 * Input is hostile: sizes over A1_JS_MAX_BYTES, bracket nesting over A1_JS_MAX_DEPTH (the
 * Debian runtime double-frees on ~65,535 open brackets) and parses over the time budget are
 * refused as findings, never crashes. Threads: any (a parser per call, no globals). */
#ifndef BELAY_ASSERTIONS_A1_JS_H
#define BELAY_ASSERTIONS_A1_JS_H
#include <cjson/cJSON.h>
#include <stddef.h>

#define A1_JS_MAX_BYTES (2u << 20)
#define A1_JS_MAX_DEPTH 256

enum a1_js_dialect { A1_JS_NONE = 0, A1_JS_JAVASCRIPT, A1_JS_TYPESCRIPT, A1_JS_TSX };

/* The grammar for a path by its extension (.js .jsx .mjs .cjs -> JavaScript, .ts .mts .cts
 * -> TypeScript, .tsx -> TSX), or A1_JS_NONE. */
enum a1_js_dialect a1_js_dialect(const char *path);

/* Judges one file. `pre` / `post` NULL = absent on that side (an added file is judged against
 * an empty one: only `.only` and mocks of the unit can weaken anything there; a deleted file
 * loses every test it had). `path` names the file (the unit under test is its stem without
 * `.test` / `.spec`). Returns a new JSON array of findings, each
 *   {"function": test name path or null, "finding": NAME, "status": "FAIL"|"WARN"|"UNVERIFIED",
 *    "cause": null or a cause, "pre": text or null, "post": text or null}
 * in source order; an empty array means no weakening was found. Never NULL. */
cJSON *a1_js_judge(enum a1_js_dialect d, const char *path, const char *pre, size_t pre_len, const char *post,
		   size_t post_len);

/* Number of tests and assertions a side holds (for exposure and the bench); BELAY_EINVAL when it does
 * not parse. */
int a1_js_count(enum a1_js_dialect d, const char *text, size_t len, int *tests, int *assertions);

#endif

/* a1_go.h - A1's judge of Go test files (`testing`, testify's assert / require), on tree-sitter
 * (the pinned tree-sitter-go grammar compiled into belay). In process; no go toolchain.
 *
 * One changed `_test.go` file's two sides are parsed and reduced to facts (a1_lang.h): its
 * functions - tests are `TestX(t *testing.T)` / `FuzzX(f *testing.F)` with X not starting
 * lower-case, as `go test` collects them - with their failure calls (`t.Error*`, `t.Fatal*`,
 * `t.Fail*` on a testing parameter, each with the `if` conditions that guard it; testify's
 * `assert.X` / `require.X`), where those stand (after a return; under a condition that is
 * never true: `if false`, `if x != x`), the skips (`t.Skip*`: unconditional, or under a
 * condition the rule cannot evaluate), the functions each calls (a failure moved into a helper
 * still counts) and the file's build constraints (`//go:build`, `// +build`). The findings
 * (docs/VERDICTS.md, "Go and Rust") are:
 *   FAIL        test-deleted, test-not-collected, test-skipped, test-lost-every-assertion,
 *               assertion-removed, replaced-by-tautology, assertion-unreachable,
 *               matcher-loosened, build-excluded (a constraint `ignore` or a tag nothing sets)
 *   WARN        expected-value-changed (the same check, another literal expected)
 *   UNVERIFIED  conditional-skip-added, build-constraint-added (a platform tag),
 *               too-deeply-nested (ASSERTION_UNDECIDABLE); unparseable-source
 *               (ASSERTION_FILE_UNREADABLE)
 * Honest edits have no finding: new tests, subtests (`t.Run`), `t.Parallel()`, table rows,
 * stricter checks, a test renamed that stays a test, formatting and comments.
 *
 * Input is hostile: sides over A1_LANG_MAX_BYTES, brackets over A1_LANG_MAX_DEPTH and
 * unbracketed chains the Debian runtime would double-free on are refused before parsing,
 * each an UNVERIFIED finding, never a crash or a PASS. Threads: any (a parser per call;
 * a side read is remembered by its bytes in a1_cache.h, a locked table: read once per process). Memory: the caller owns the returned array. Failure: findings; nothing printed. */
#ifndef BELAY_ASSERTIONS_A1_GO_H
#define BELAY_ASSERTIONS_A1_GO_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* 1 when `path` names a Go source (".go"). */
int a1_go_path(const char *path);

/* Judges one file; `pre` / `post` NULL = absent on that side (an added file is judged against
 * an empty one, a deleted one loses every test). Returns a new JSON array of findings, each
 *   {"function": test name or null, "finding": NAME, "status": "FAIL"|"WARN"|"UNVERIFIED",
 *    "cause": null or a cause, "pre": text or null, "post": text or null}
 * in the order found; empty when no weakening was found. Never NULL. */
cJSON *a1_go_judge(const char *pre, size_t pre_len, const char *post, size_t post_len);

/* Tests and assertion facts a side holds (for the bench); BELAY_EINVAL when it is not read. */
int a1_go_count(const char *text, size_t len, int *tests, int *assertions);

#endif

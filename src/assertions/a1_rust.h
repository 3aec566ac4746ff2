/* a1_rust.h - A1's judge of Rust test code (libtest: `#[test]` functions and the assertion
 * macros), on tree-sitter (the pinned tree-sitter-rust grammar compiled into belay). In
 * process; no cargo, no rustc, no macro expansion.
 *
 * One changed `.rs` file's two sides are parsed and reduced to facts (a1_lang.h): its
 * functions, named by module path ("tests::adds") - tests are those with a test attribute
 * (`#[test]`, `#[tokio::test]` and any `#[x::test]`, `#[rstest]`, `#[test_case(..)]`) - with
 * their assertions (`assert!`, `assert_eq!`, `assert_ne!`, their `debug_` forms, any macro
 * whose name holds `assert`, and `panic!` / `unreachable!` with the `if` conditions guarding
 * them; a macro's arguments are re-read as Rust expressions), where those stand (after a
 * `return` or a `panic!`; in a branch of a constant condition), `#[ignore]`,
 * `#[should_panic(expected = ..)]`, the `#[cfg(..)]` / `#![cfg(..)]` / `cfg_attr(.., ignore)`
 * around them (`test` holds; `any()`, `not(test)` and a bare name nothing sets never do;
 * `feature = ..`, platforms and the like are not known), the functions each calls, and the
 * `macro_rules!` definitions and item-level macro calls (which may generate tests the judge
 * cannot see: compared as text; a test gone that such a macro names, or that a `mod x;` now
 * declared in another file may hold, is out of view). The findings (docs/VERDICTS.md, "Go and Rust") are:
 *   FAIL        test-deleted, test-not-collected, test-skipped, test-lost-every-assertion,
 *               assertion-removed, replaced-by-tautology, assertion-unreachable,
 *               matcher-loosened, assertion-negated, expected-failure-added,
 *               should-panic-expected-removed, build-excluded
 *   WARN        expected-value-changed
 *   UNVERIFIED  build-constraint-added, conditional-skip-added, macro-changed,
 *               test-out-of-view, too-deeply-nested (ASSERTION_UNDECIDABLE);
 *               unparseable-source (ASSERTION_FILE_UNREADABLE)
 * Honest edits have no finding: new tests and assertions, stricter checks, a message added,
 * a test renamed that stays a test, an assertion moved into a helper the test calls,
 * formatting and comments.
 *
 * Input is hostile: the limits and refusals of a1_go.h hold (a1_lang_parse). Threads: any
 * (parsers per call; a side read is remembered by its bytes in a1_cache.h, a locked table). Memory: the caller owns the returned array. Failure:
 * findings; nothing printed. */
#ifndef BELAY_ASSERTIONS_A1_RUST_H
#define BELAY_ASSERTIONS_A1_RUST_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* The contract of a1_go.h's three functions, for Rust: a1_rust_path is 1 when `path` ends in
 * ".rs"; a1_rust_judge gives a new array of findings of that shape (never NULL; a macro's
 * finding names the macro as its "function"), `pre` / `post` NULL being a side absent;
 * a1_rust_count the tests and assertion facts of one side, BELAY_EINVAL when it is not read. */
int a1_rust_path(const char *path);
cJSON *a1_rust_judge(const char *pre, size_t pre_len, const char *post, size_t post_len);
int a1_rust_count(const char *text, size_t len, int *tests, int *assertions);

/* An assertion macro's fact is remembered per process by the macro's name and token text
 * (bounded; any thread): forgets them all (the bench's cold runs). */
void a1_rust_memo_clear(void);

#endif

/* a1_kotlin.h - A1's judge of Kotlin test files (JUnit 4 / 5 on Kotlin, kotlin.test), on
 * tree-sitter (the pinned @tree-sitter-grammars/tree-sitter-kotlin compiled into belay). No
 * JVM, no Kotlin compiler; the grammar is read in a forked child of belay bounded in memory
 * and time, because on crafted files its scanner loops and its parse grows without end where
 * tree-sitter's timeout does not reach: a long-lived worker (a1_worker.h) bounded per request,
 * which remembers recent sides (their trees and facts, by their bytes) so that a pre side read
 * in an earlier turn is not read again and the post side is parsed against its tree; while
 * another thread's file holds the worker past A1_WORKER_WAIT_MS, a one-shot child (a1_bound.h).
 *
 * One changed file's two sides are read into the facts Java's judge compares
 * (a1_kotlin_facts.c into struct a1_java_side) and judged by it (a1_jvm_judge: the JavaScript
 * judge's rules, each pair of assertions by Java's matchers). Read: the functions annotated
 * @Test / @ParameterizedTest / @RepeatedTest ("Class.method"), skipped by @Ignore / @Disabled
 * on them or their class (or an outer class of a @Nested one); the assertions in each -
 * kotlin.test's and JUnit's assertEquals, assertNotEquals, assertTrue, assertFalse, assertNull,
 * assertNotNull, assertSame, assertContains, assertContentEquals, assertIs<T>, fail, and
 * assertFailsWith<E> { } / assertFailsWith(E::class) { } / assertThrows<E> { } /
 * assertThrows(E::class.java) { } / assertFails { } (read as assertThrows of E.class) - with
 * where they stand (after a return / throw, in an `if (false)`, in a try whose catch takes
 * AssertionError / Error / Throwable and does not throw again); the functions that are not
 * tests (helpers). Findings are Java's (docs/VERDICTS.md, "Kotlin").
 *
 * Input is hostile: the same bounds as Java's (A1_JAVA_MAX_BYTES, A1_JAVA_MAX_DEPTH, pending
 * tokens, the walk bound), checked before parsing with Kotlin's nesting comments and string
 * templates - each an UNVERIFIED finding, never a crash and never a PASS; a side whose reading
 * was stopped at a bound is UNVERIFIED parse-bounded (and the worker that read it is ended:
 * the next file starts a new one). Threads: any (one file at a time in the worker; a file
 * that waited A1_WORKER_WAIT_MS for it in a one-shot child, reaped before the call returns).
 * Memory: the caller owns what a call returns. */
#ifndef BELAY_ASSERTIONS_A1_KOTLIN_H
#define BELAY_ASSERTIONS_A1_KOTLIN_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <sys/types.h>

/* 1 when `path` names a Kotlin source (.kt, any case; not a .kts script). */
int a1_kotlin_is_source(const char *path);

/* As a1_java_judge (a1_java.h), for Kotlin. Never NULL. */
cJSON *a1_kotlin_judge(const char *path, const char *pre, size_t pre_len, const char *post, size_t post_len);

/* Number of tests and assertions a side holds: 0, or BELAY_EINVAL when it is not read. */
int a1_kotlin_count(const char *text, size_t len, int *tests, int *assertions);

/* The worker (a1_worker.h), for tests and the bench: forget the sides it remembers (done by
 * every a1_cache_clear too); end it (the next reading starts a new one); turn it off (0: every
 * reading in a one-shot child, as before it) or on (1, the default); its pid (0: none) and how
 * many were started. Threads: any. */
void a1_kotlin_worker_forget(void);
void a1_kotlin_worker_stop(void);
void a1_kotlin_worker_use(int on);
pid_t a1_kotlin_worker_pid(unsigned long *started);

#endif

/* support.h - what the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share: an in-memory file
 * for parsers that read a path, a scratch directory removed at exit, a failed invariant as
 * a crash libFuzzer records, and the checks on a gate plan and a derived model that more
 * than one harness makes.
 *
 * Threads: one (libFuzzer calls a harness from one thread). Every harness is built with
 * -fsanitize=fuzzer,address,undefined (tests/fuzz/CMakeLists.txt). */
#ifndef BELAY_TESTS_FUZZ_SUPPORT_H
#define BELAY_TESTS_FUZZ_SUPPORT_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

struct effect_plan;
struct model;

/* A failed invariant: names itself on stderr and aborts, so libFuzzer saves the input. */
#define FZ_CHECK(cond, ...)                                                                                            \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			fprintf(stderr, "\nfuzz invariant failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);        \
			fprintf(stderr, "" __VA_ARGS__);                                                               \
			fputc('\n', stderr);                                                                           \
			abort();                                                                                       \
		}                                                                                                      \
	} while (0)

/* With BELAY_FUZZ_VERBOSE set, says what became of an input (for checking that seeds reach
 * what they are meant to: BELAY_FUZZ_VERBOSE=1 fuzz_NAME seeds/NAME/FILE...). */
#define FZ_NOTE(...)                                                                                                   \
	do {                                                                                                           \
		if (getenv("BELAY_FUZZ_VERBOSE")) {                                                                    \
			fprintf(stderr, "fuzz: " __VA_ARGS__);                                                         \
			fputc('\n', stderr);                                                                           \
		}                                                                                                      \
	} while (0)

/* The path of a file that holds exactly data[0..n) (a memfd, reused across calls:
 * "/proc/self/fd/N"). Valid until the next call. */
const char *fz_memfile(const uint8_t *data, size_t n);
/* A new directory under the scratch base (tmpfs when there is one), removed at exit. */
char *fz_scratch(const char *tag);
/* The invariants of any plan: a reason; each effect no stricter than the plan and fully
 * described; indeterminate effects only in a partial plan, which asks; its JSON prints and
 * parses back. Returns the JSON text (caller frees), so callers can compare two plans. */
char *fz_plan_check(const struct effect_plan *p);
/* The invariants of an A1 judge's answer (assertions/a1_finding.h): an array of findings of
 * six members in order, "finding" and "status" strings; FAIL without a cause, UNVERIFIED
 * with one, WARN with one when `warn_cause` (Python's judge) and without otherwise (the
 * JavaScript, Go and Java judges); with `self` (a side judged against itself) nothing but UNVERIFIED; the
 * JSON prints as valid UTF-8. */
void fz_findings_check(const cJSON *out, int self, int warn_cause);
/* A judge of a1_lang's family (Go, Rust) on one input: split at its first 0xff byte into the
 * pre and the post side (no 0xff: the post side is absent), judged and checked
 * (fz_findings_check), the pre side judged against itself (nothing but UNVERIFIED) and
 * counted (-1, or counts of 0 or more); with both sides, a side remembered by its bytes
 * (a1_cache.h) judges as one read afresh. */
void fz_a1_lang(const uint8_t *data, size_t size, cJSON *(*judge)(const char *, size_t, const char *, size_t),
		int (*count)(const char *, size_t, int *, int *));
/* The invariants of a derived model: frame and exchange indexes in range, turns pointing
 * at their tools/call exchanges in order, pending ids naming unanswered requests. */
void fz_model_check(const struct model *m);

#endif

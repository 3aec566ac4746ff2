/* testcfg.h - test configuration files judged on their test-relevant part only.
 *
 * Each format of testfiles.h's TESTCFG_* is parsed with a real parser (INI by configparser's
 * rules: ini.h; TOML with tree-sitter: toml.h; XML with libxml2: pomxml.h; JSON with cJSON)
 * and projected onto the keys that can change which tests run or how (the table in
 * docs/VERDICTS.md, "Test configuration"); the two sides' projections are compared as data,
 * so formatting, comments, key order and every other key (a dependency bump) do not count.
 * Formats that are code or not parsed (jest.config.js, Gradle scripts, .mocharc.yml) count as
 * changed when their bytes differ and a test-relevant part may be in them.
 *
 * Pure: no I/O (the caller reads both sides), no globals. Threads: any. */
#ifndef BELAY_ASSERTIONS_TESTCFG_H
#define BELAY_ASSERTIONS_TESTCFG_H
#include <stddef.h>

#include "assertions/testfiles.h"

enum testcfg_outcome {
	TESTCFG_SAME = 0,   /* no test-relevant part changed (detail says what was compared) */
	TESTCFG_CHANGED,    /* a test-relevant key changed: detail names up to 5 of them */
	TESTCFG_NARROWED,   /* a change that runs fewer tests or forgives failures: `finding` names it */
	TESTCFG_NOT_PARSED, /* a format not parsed whose test-relevant part may have changed */
	TESTCFG_UNREADABLE, /* a side does not parse: detail says which and where */
};

struct testcfg_result {
	enum testcfg_outcome outcome;
	const char *finding; /* TESTCFG_NARROWED: "discovery-narrowed", "tests-skipped",
			      * "suite-made-to-pass", "coverage-threshold-lowered" or
			      * "assertions-disabled" */
	char detail[320]; /* one line; may hold bytes from the files (clean it before display) */
};

/* Compares one configuration file's two sides (NULL = absent on that side; both absent is
 * SAME). `tf` is the file's classification (kind TESTFILE_CONFIG). */
void testcfg_compare(const struct testfile *tf, const char *pre, size_t pre_len, const char *post, size_t post_len,
		     struct testcfg_result *out);

/* The first change between two projections (testcfg_compare's) of a file of format tf->cfg
 * that narrows what the suite runs (an ignore / deselect / name filter added, a test path or
 * target dropped), skips it, makes it succeed whatever happens (`|| true`,
 * `--passWithNoTests`, testFailureIgnore, tox's "- cmd"), or lowers a coverage threshold.
 * 1 with *finding and `detail` filled, 0 when no such change is recognised (testcfg_narrow.c;
 * the rules are the table in docs/VERDICTS.md, "Test configuration"). */
struct cJSON;
int testcfg_narrowed(const struct testfile *tf, const struct cJSON *pre, const struct cJSON *post, const char **finding,
		     char *detail, size_t n);

#endif

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
	TESTCFG_NOT_PARSED, /* a format not parsed whose test-relevant part may have changed */
	TESTCFG_UNREADABLE, /* a side does not parse: detail says which and where */
};

struct testcfg_result {
	enum testcfg_outcome outcome;
	char detail[320]; /* one line; may hold bytes from the files (clean it before display) */
};

/* Compares one configuration file's two sides (NULL = absent on that side; both absent is
 * SAME). `tf` is the file's classification (kind TESTFILE_CONFIG). */
void testcfg_compare(const struct testfile *tf, const char *pre, size_t pre_len, const char *post, size_t post_len,
		     struct testcfg_result *out);

#endif

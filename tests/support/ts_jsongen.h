/* ts_jsongen.h - deterministic JSON-ish texts for the canonicalisation and trace tests:
 * random documents (mostly valid JSON, canonical or not: whitespace, key order, escapes,
 * UTF-8 and UTF-16 escapes, numbers of every form) and random mutations of them. */
#ifndef BELAY_TESTS_TS_JSONGEN_H
#define BELAY_TESTS_TS_JSONGEN_H
#include <stdint.h>

#include "common/buf.h"

struct ts_rng {
	uint64_t s;
};

uint64_t ts_rng_next(struct ts_rng *r);
/* Uniform in [0, n). */
unsigned ts_rng_below(struct ts_rng *r, unsigned n);
/* Appends a random JSON document (nested at most max_depth) to out. With `messy`
 * non-zero it also uses whitespace, escapes and key orders a canonical form never has. */
void ts_json_gen(struct ts_rng *r, struct buf *out, int max_depth, int messy);
/* Applies one to three random byte edits (flip, insert, delete, splice a token) to b. */
void ts_json_mutate(struct ts_rng *r, struct buf *b);

#endif

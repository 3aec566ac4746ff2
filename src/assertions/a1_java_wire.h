/* a1_java_wire.h - one side's facts (struct a1_java_side, a1_java_facts.h) as bytes and back:
 * what a bounded reading's child (a1_bound.h) sends its parent. Not a file format: both ends
 * are the same build, so the layout is whatever this file writes (lengths and counts as
 * 32-bit little-endian words, strings by length, NULL as 0xffffffff), closed by a magic word
 * so that an answer cut short never decodes.
 *
 * Threads: any (no globals). Must not: trust the bytes it decodes (every count and length is
 * checked against what is left). */
#ifndef BELAY_ASSERTIONS_A1_JAVA_WIRE_H
#define BELAY_ASSERTIONS_A1_JAVA_WIRE_H
#include <stddef.h>

#include "assertions/a1_java_facts.h"
#include "common/buf.h"

/* Appends side s to out. */
void a1_java_wire_put(const struct a1_java_side *s, struct buf *out);

/* Decodes p[0..n) into *s (zeroed by the caller; the caller frees it with a1_java_side_free
 * either way). 0, or BELAY_EINVAL when the bytes are not one whole side. */
int a1_java_wire_get(const char *p, size_t n, struct a1_java_side *s);

#endif

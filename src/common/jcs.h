/* jcs.h - RFC 8785 JSON Canonicalization Scheme (with the semantics of cJSON's parse).
 *
 * The canonical form id written into traces is JCS_FORM_ID. Inputs that RFC 8785 does
 * not define a canonical form for are refused (return BELAY_EINVAL): invalid UTF-8, duplicate
 * member names, lone surrogate escapes, an escaped NUL (cJSON cannot represent it), and
 * numbers cJSON cannot hold. Integers beyond 2^53 canonicalise by their IEEE double value,
 * as RFC 8785 requires. */
#ifndef BELAY_COMMON_JCS_H
#define BELAY_COMMON_JCS_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/buf.h"

#define JCS_FORM_ID "rfc8785"

/* Appends the canonical text of json[0..n) to out. Returns 0, or BELAY_EINVAL when refused. */
int jcs_canonicalize(const char *json, size_t n, struct buf *out);
/* Same, but when json[0..n) is already its own canonical form it appends nothing and
 * returns 1 (the caller can reuse the input and its hash). */
int jcs_canonicalize_same(const char *json, size_t n, struct buf *out);
/* The reference: cJSON's parse and jcs_serialize. jcs_canonicalize gives the same result
 * (it hands every input it is not sure of to this one); kept for that and for tests. */
int jcs_canonicalize_ref(const char *json, size_t n, struct buf *out);
/* Same for an already-parsed value (no UTF-8 / NUL checks possible there). */
int jcs_serialize(const cJSON *v, struct buf *out);
/* ECMAScript Number::toString of d into out (needs 32 bytes): NaN and Infinity too, by
 * their ECMAScript names (cJSON parses 1e999 as infinity; jcs_serialize refuses it). */
void jcs_number(double d, char out[32]);

#endif

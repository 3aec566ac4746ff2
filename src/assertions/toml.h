/* toml.h - a TOML document as a JSON tree, parsed with tree-sitter (the pinned
 * @tree-sitter-grammars/tree-sitter-toml grammar compiled into belay, Debian's runtime).
 *
 * The tree is what a TOML 1.0 reader would build: the root and every table an object
 * (standard tables, dotted keys, inline tables, arrays of tables merged as TOML defines);
 * strings decoded (basic and literal, multi-line, every escape; not UTF-8 = an error);
 * booleans as booleans; integers (decimal, hex, octal, binary, underscores) as numbers when
 * |v| <= 2^53, else as their decimal string; floats as numbers (inf / nan as the strings
 * "inf", "-inf", "nan"); dates and times as the text written; arrays as arrays.
 * Object members keep the document's order.
 *
 * Errors (a named BELAY_EINVAL, "line L, column C: ..."): a syntax error anywhere in the
 * tree, a key defined twice, a table defined twice, a dotted key or table header that
 * reaches into a value that is not a table, an inline table extended afterwards, an
 * integer out of the 64-bit range, invalid escapes or UTF-8. Input is hostile: bounded
 * recursion (nesting over TOML_MAX_DEPTH is an error), no I/O, no global state.
 * Details: L and C count from 1, C in bytes; CRLF in multi-line strings reads as LF; a
 * float past the double range is "inf" / "-inf"; dates must exist (4-digit year, no
 * 2023-02-29); a NUL byte, raw or as \u0000, is an error (cJSON strings cannot hold it);
 * brackets nested deeper than TOML_MAX_DEPTH are refused before tree-sitter parses.
 * Threads: any (a parser per call). */
#ifndef BELAY_ASSERTIONS_TOML_H
#define BELAY_ASSERTIONS_TOML_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"

#define TOML_MAX_DEPTH 128
#define TOML_MAX_BYTES (1u << 20) /* larger input is refused, not parsed: manifests are kilobytes, and tree-sitter
				  * takes ~2.5 GB and 9 s on 8 MiB of hostile input */

/* 0 with *out the document (caller frees with cJSON_Delete), or a negative code with `e`
 * filled and *out NULL. `text` need not be NUL-terminated. */
int toml_parse(const char *text, size_t len, cJSON **out, struct err *e);

/* The grammar's language ABI and the runtime's accepted range (for doctor and the tests). */
unsigned toml_grammar_abi(void);

#endif

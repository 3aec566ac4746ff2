/* ini.h - an INI file read by the rules of Python's configparser (ConfigParser() with its
 * defaults), the reader pytest, setuptools and tox use for pytest.ini, setup.cfg, tox.ini.
 *
 * Result: a JSON object {section: {key: value}} in the file's order, values strings.
 * configparser's defaults, exactly: section headers "[name]" (the name is everything between
 * the first '[' and the last ']' on the line, as written, case-sensitive); "key = value" or
 * "key: value" (the first '=' or ':' delimits; key and value stripped of whitespace; keys
 * lower-cased); whole-line comments starting with '#' or ';' (after optional whitespace);
 * no inline comments; a line indented deeper than its key's line continues the value (joined
 * with '\n'; empty lines inside a value kept, trailing ones dropped); the "DEFAULT" section
 * kept as its own member "DEFAULT" (not merged). Errors (BELAY_EINVAL, "line N: ..."): an
 * option before any section header (MissingSectionHeaderError), a section or an option in a
 * section given twice (strict=True), a line that is neither header, option, comment nor
 * continuation (a key without a delimiter: allow_no_value=False), text that is not UTF-8.
 * No interpolation is done (values are compared as written). As Python reads a file opened
 * as text: lines end at "\n", "\r\n" or "\r"; whitespace (stripping, indentation in code
 * points) is str.isspace()'s; a UTF-8 BOM is an ordinary character (so "\xEF\xBB\xBF[s]" is
 * not a header); keys lower-case as str.lower(). "DEFAULT" appears where its first header is,
 * even when empty. Like configparser, a malformed line is reported only if no missing-header
 * or duplicate error follows it. One deliberate difference: a NUL byte is refused (a JSON
 * string of cJSON cannot hold it). Input is hostile; no I/O, no global state; time linear in
 * the input. Threads: any. */
#ifndef BELAY_ASSERTIONS_INI_H
#define BELAY_ASSERTIONS_INI_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"

#define INI_MAX_BYTES (8u << 20)

/* 0 with *out the sections (caller frees), or a negative code with `e` filled, *out NULL. */
int ini_parse(const char *text, size_t len, cJSON **out, struct err *e);

#endif

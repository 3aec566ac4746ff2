/* pomxml.h - the test-relevant part of a Maven pom.xml, read with libxml2.
 *
 * A pom is parsed as XML by libxml2 (no network, no DTD loading, no entity substitution:
 * XML_PARSE_NONET, never XML_PARSE_NOENT / DTDLOAD; an internal entity reference is an error
 * rather than expanded). The projection is a JSON object holding, in document order:
 *   "properties":   {name: value} for <project><properties> children whose name is
 *                   skipTests, skipITs, maven.test.skip, maven.test.skip.exec,
 *                   maven.test.failure.ignore, maven.test.error.ignore, or starts with
 *                   "surefire." / "failsafe." / "jacoco." / "test" / "junit";
 *   "build":        {"testSourceDirectory": text, "testOutputDirectory": text,
 *                    "testResources": canonical element}, members present only when present;
 *   "plugins":      [canonical <plugin> element] for every plugin (under build/plugins,
 *                   build/pluginManagement/plugins, and the same inside every
 *                   profiles/profile, whose id is kept as "profile") whose artifactId is
 *                   maven-surefire-plugin, maven-failsafe-plugin, jacoco-maven-plugin or
 *                   maven-surefire-report-plugin;
 *   "profiles":     {id: {"properties": ..., "build": ...}} the same two projections per profile.
 * A canonical element is {"name": local name, "text": trimmed text when it has no element
 * children, "children": [canonical...]} with comments, processing instructions and
 * whitespace-only text dropped, attributes as "attrs": {name: value}.
 * Details: the four members are always there (empty when the pom has none); "text" (text and
 * CDATA joined, trimmed of bytes <= ' ' as Maven trims) and "children" (only when there are
 * element children) exclude each other; "attrs" only when there are attributes, a prefixed
 * one as "prefix:name", namespace declarations never. A plugin under pluginManagement also
 * carries "pluginManagement": true (moving jacoco's check there turns it off), and a
 * profile's projection also its "activation" (canonical) when it has one; a profile without
 * <id> is "default" (Maven's). A name given twice (a property, a build member, a profile id):
 * the last one counts. Dependencies,
 * versions of anything else, and other plugins are not in the projection: a dependency bump
 * leaves it unchanged. The text is read as UTF-8 whatever its XML declaration says (poms are
 * UTF-8; a pom in another encoding reads the same when it is ASCII, else is refused).
 * Errors (BELAY_EINVAL, "line N: ..."): bytes that are not UTF-8 or a NUL byte, not
 * well-formed XML (libxml2's message; nesting deeper than libxml2's 256 levels is not
 * well-formed), a root that is not <project>, an entity reference, an <!ENTITY> declaration
 * (refused as it is parsed: no entity is ever recorded, expanded or loaded), input over
 * POMXML_MAX_BYTES. Threads: any (libxml2 is initialised once, thread-safely, on first use). */
#ifndef BELAY_ASSERTIONS_POMXML_H
#define BELAY_ASSERTIONS_POMXML_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/err.h"

#define POMXML_MAX_BYTES (8u << 20)

/* 0 with *out the projection (caller frees), or a negative code with `e` filled, *out NULL. */
int pomxml_test_config(const char *text, size_t len, cJSON **out, struct err *e);

#endif

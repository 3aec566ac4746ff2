/* a1_java_facts.h - one side of a Java test file read into the facts a1_js_facts.h describes,
 * plus what only Java has (internal to a1_java.c and a1_java_facts.c; a1_java.h is the
 * contract). Fact kinds: A1_JS_K_ASSERT for JUnit's assertX / fail and @Test(expected),
 * A1_JS_K_EXPECT for AssertJ / Truth chains, A1_JS_K_T for Hamcrest's assertThat(x, matcher)
 * (its matcher "is", "not.equalTo", the wrapping is(...) of a matcher dropped). Strings are
 * canonical: leaf tokens, comments dropped, a space only between two word tokens.
 * Threads: any (no globals). */
#ifndef BELAY_ASSERTIONS_A1_JAVA_FACTS_H
#define BELAY_ASSERTIONS_A1_JAVA_FACTS_H
#include <stddef.h>

#include "assertions/a1_java.h"
#include "assertions/a1_js_facts.h"

struct a1_java_side {
	struct a1_js_side s;	     /* tests, helpers (by simple name), status */
	struct a1_js_site *conds;    /* conditional skips: name = test path, text = the condition */
	size_t nconds, capconds;
	struct a1_js_names methods; /* "Class.method" of every method that is not a test */
};

/* Reads `text` (not NUL-terminated; NULL = an empty side) into *s (zeroed by the caller).
 * Returns s->s.status (A1_JS_OK, A1_JS_UNREADABLE, A1_JS_UNDECIDABLE). */
int a1_java_extract(const char *text, size_t len, struct a1_java_side *s);
void a1_java_side_free(struct a1_java_side *s);

#endif

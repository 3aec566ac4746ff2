/* a1_py_facts.h - the facts a1_py.c compares, read from one side of a Python test file by
 * a1_py_facts.c, and the expression helpers both use (internal to the two; a1_py.h is the
 * contract).
 *
 * A side keeps its text and syntax tree alive: a fact points at its node, which the judge
 * reads again (literal values, sub-expressions, keywords). A fact's form is canonical: the
 * tokens of its node, comments and redundant parentheses dropped, quotes unified, one space
 * where ast.unparse puts one - formatting and quote style never change it.
 * Threads: any (no globals). */
#ifndef BELAY_ASSERTIONS_A1_PY_FACTS_H
#define BELAY_ASSERTIONS_A1_PY_FACTS_H
#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "assertions/tsnode.h"
#include "common/buf.h"
#include "common/strmap.h"

enum a1_py_kind {
	A1_PY_K_ASSERT,	  /* assert X: node = X */
	A1_PY_K_UNITTEST, /* x.assertY(...), x.assert_y(...): node = the call */
	A1_PY_K_RAISES,	  /* pytest.raises(...): node = the call */
	A1_PY_K_FAIL,	  /* pytest.fail(...): node = the call */
	A1_PY_K_GLOB,	  /* a string of fnmatch_lines(...): form = its value */
	A1_PY_K_REGEX,	  /* a string of re_match_lines(...): form = its value */
	A1_PY_K_EXPECT,	  /* an element of an expectation list: node = the element */
	A1_PY_K_N
};

enum { A1_PY_OK = 0, A1_PY_DEAD, A1_PY_SWALLOWED };
enum { A1_PY_M_SKIP = 1, A1_PY_M_XFAIL = 2, A1_PY_M_SKIPQ = 4 }; /* skip? = a condition not decided */

struct a1_py_fact {
	int kind;
	char *form;
	long fn; /* index in funcs, -1 = module level */
	unsigned ordinal;
	unsigned char state;
	TSNode node;
};

struct a1_py_func {
	char *name;   /* "T.test_a" */
	unsigned marks;
	char **mocks; /* the unit's names it patches, unique */
	size_t nmocks, capmocks;
	char **calls; /* names it calls: f(...), self.f(...) -> "f"; unique */
	size_t ncalls, capcalls;
	size_t head, body_a, body_e; /* bytes: its first decorator (else `def`), its body block [a, e) */
};

/* Why a side was not read. */
enum { A1_PY_READ = 0, A1_PY_UNDECODABLE, A1_PY_UNPARSEABLE };

struct a1_py_side {
	const char *src; /* the UTF-8 text parsed (src == own when transcoded or BOM-stripped copy) */
	size_t len;
	char *own;
	TSTree *tree;
	struct a1_py_fact *facts;
	size_t nfacts, capfacts;
	struct a1_py_func *funcs;
	size_t nfuncs, capfuncs;
	struct strmap func_index; /* funcs[].name -> its index */
	int status;
	char *why; /* "unparseable-source: line L, column C: ..." when status is not A1_PY_READ */
	size_t budget;
	struct buf cb; /* scratch for canonical text */
	struct tsnode_cursors render_cursors;
};

/* Reads `text` (NULL = an empty side) into *s (zeroed by the caller); `unit` NULL or the
 * base name's unit ("calc"). Returns s->status. */
int a1_py_extract(const char *text, size_t len, const char *unit, struct a1_py_side *s);
/* Both sides of one file into *a and *b (zeroed by the caller; `post` NULL = absent): the post
 * side is parsed incrementally against the pre side's tree, edited by the bytes that differ
 * (the same tree as a parse from scratch, most of it not parsed again). The first non-zero
 * status. */
int a1_py_extract_pair(const char *pre, size_t pre_len, const char *post, size_t post_len, const char *unit,
		       struct a1_py_side *a, struct a1_py_side *b);
void a1_py_side_free(struct a1_py_side *s);
/* The index of the function named `name` (NULL: none) in s->funcs, or -1. */
long a1_py_find_func(const struct a1_py_side *s, const char *name);

/* ---- reading expressions of a read side ---- */

/* The n-th named child that is not a comment (a parenthesized expression's inner one ...). */
TSNode a1_py_kid(TSNode n, uint32_t i);
uint32_t a1_py_nkids(TSNode n);
/* Through parentheses. */
TSNode a1_py_bare(TSNode n);
/* A new string: the canonical form of `n` (ast.unparse's spacing; see the top). */
char *a1_py_canon(struct a1_py_side *s, TSNode n);
int a1_py_same(struct a1_py_side *a, TSNode x, struct a1_py_side *b, TSNode y);
/* "pytest.mark.skip" for a Name / Attribute chain, else NULL (new string). */
char *a1_py_dotted(const struct a1_py_side *s, TSNode n);
/* The positional arguments of a call (argument_list children that are not keyword
 * arguments, splats excluded from literal reasoning by their kind); up to max, returns count. */
size_t a1_py_args(TSNode call, TSNode *out, size_t max);
TSNode a1_py_keyword(const struct a1_py_side *s, TSNode call, const char *name);
/* For a call `x.attr(...)`: attr's name (new string), else NULL. */
char *a1_py_method(const struct a1_py_side *s, TSNode call);
/* 1 truthy / 0 falsy whatever the state (weakening.py's always_truthy / always_falsy). */
int a1_py_always_truthy(struct a1_py_side *s, TSNode n, int depth);
int a1_py_always_falsy(struct a1_py_side *s, TSNode n);
/* 1 when the expression is a literal (const_value is not MISSING); its number in *num when it
 * is an int or float (and *is_num 1), its type: 'i' int, 'f' float, 'b' bool, 's' str, ... */
int a1_py_literal(struct a1_py_side *s, TSNode n, double *num, int *type);
/* The decoded value of a string literal (escapes read unless raw), NULL when it is not a plain
 * string; lone surrogates are kept as "\udXXX" text so the value stays UTF-8. */
char *a1_py_string_value(const struct a1_py_side *s, TSNode n);

/* ---- a conftest.py: what it tells pytest to collect ---- */

struct a1_py_collection {
	char **stmts; /* canonical text of each module-level collection statement and pytest_* hook */
	unsigned char *drops; /* per statement: a pytest_collection_modifyitems / pytest_ignore_collect hook that drops tests */
	size_t n;
	char **ignored; /* string literals put into collect_ignore(_glob), sorted, unique */
	size_t nignored;
};

void a1_py_collection(struct a1_py_side *s, struct a1_py_collection *c);
void a1_py_collection_free(struct a1_py_collection *c);

#endif

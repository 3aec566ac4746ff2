/* a1_lang.h - what A1's judges of Go and Rust test files (a1_go.c, a1_rust.c) share: the facts
 * one side of a test file is reduced to (its functions - tests and helpers - with their
 * assertion facts, skip / collection state, calls and tables of rows; the file's build exclusion; the
 * constructs the judge could not look into), the comparison of two sides into findings of the
 * shape a1_py / a1_js give, and the reading of a side on tree-sitter (bytes checked, nesting
 * refused before parsing, syntax errors reported, canonical text of a node, constant
 * conditions). Internal to the judges; a1_go.h and a1_rust.h are the contracts.
 *
 * Threads: any (no globals). Memory: a side owns every string in it (a1_lang_side_free).
 * Failure: a side that could not be read carries status and why; nothing is printed. */
#ifndef BELAY_ASSERTIONS_A1_LANG_H
#define BELAY_ASSERTIONS_A1_LANG_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <tree_sitter/api.h>

#define A1_LANG_MAX_BYTES (4u << 20)
#define A1_LANG_MAX_DEPTH 256 /* brackets open at once */

/* A function's state as the runner sees it. */
enum {
	A1_LANG_SKIP = 1,	 /* skipped unconditionally (t.Skip, #[ignore]) */
	A1_LANG_COND_SKIP = 2,	 /* skipped under a condition the rule cannot evaluate */
	A1_LANG_UNCOLLECTED = 4, /* not run as a test (no Test prefix, wrong signature, no #[test], cfg'd away) */
	A1_LANG_COND_CFG = 8,	 /* compiled under a condition the rule cannot evaluate */
	A1_LANG_PANICS = 16,	 /* expected to fail (#[should_panic]) */
	A1_LANG_CFG_OFF = 32,	 /* never compiled: a cfg that never holds (with UNCOLLECTED) */
	A1_LANG_NO_RUN = 64,	 /* Go's TestMain(m) that never calls m.Run(): no test of the package runs */
	A1_LANG_COND_RUN = 128,	 /* ... that calls it only under a condition the rule cannot evaluate */
	A1_LANG_SWALLOWS = 256,	 /* a deferred recover() that fails nothing: a panic ends the test as passed */
	A1_LANG_EXITS = 512,	 /* its body ends the process (os.Exit, process::exit) or goroutine
				  * (runtime.Goexit) at its top level, whatever it is called with */
};

enum { A1_LANG_SEEN = 0, A1_LANG_SWALLOWED, A1_LANG_MAYBE_SWALLOWED }; /* a fact's swallowed */

enum { A1_LANG_OTHER = 0, A1_LANG_EXACT, A1_LANG_LOOSE };

struct a1_lang_fact {
	char *form;	/* the whole assertion, canonical (guards of a failure call included) */
	char *subject;	/* what is checked; NULL for none */
	char *matcher;	/* "assert.Equal", "!=", "assert_eq" */
	char *expected; /* the expected operand; NULL for none */
	unsigned line;
	unsigned char dead;	/* after a return, or in a branch that never runs */
	unsigned char taut;	/* can never fail: a constant condition, x against itself */
	unsigned char strength; /* A1_LANG_EXACT / LOOSE / OTHER */
	unsigned char swallowed; /* A1_LANG_SWALLOWED: its failure is caught and dropped (catch_unwind,
				  * a thread never joined); A1_LANG_MAYBE_SWALLOWED: it runs where the
				  * test may not see it (a goroutine, a thread's handle kept) */
	unsigned char soft;	 /* a check by the way (Rust's `x?`, `x.unwrap()`, `x.expect(..)`): never
				  * reported removed alone, only when its test is left with no check at all */
};

struct a1_lang_names {
	char **v;
	size_t n, cap;
};

/* A table a test runs its checks over: Go's `for _, tc := range tests` (the table a composite
 * literal in the test or a package-level var), Rust's `for .. in [..]` / `vec![..]`, or its
 * #[rstest] #[case(..)] / #[test_case(..)] attributes. Rows compared as multisets of `keys`
 * (a row's text without its name: a case renamed is no change). */
struct a1_lang_table {
	char *name;		    /* what is ranged over ("tests"), "#[case]", "#[test_case]" */
	char *source;		    /* not a literal: the expression the rows come from; NULL: a literal */
	struct a1_lang_names rows;  /* each row's canonical text (shown) */
	struct a1_lang_names keys;  /* each row's text without its name (compared) */
	struct a1_lang_names calls; /* functions its loop body calls (it asserts through them) */
	int asserts;		    /* its loop body holds a live fact of its own */
	unsigned line;
};

struct a1_lang_func {
	char *name;	   /* "TestAdd", "tests::adds" */
	int is_test;	   /* the runner collects it (given mods) */
	unsigned mods;	   /* A1_LANG_* */
	char *why;	   /* what makes it skipped / uncollected / conditional: "t.Skip(\"x\")"; NULL */
	char *panic_expect; /* #[should_panic(expected = ...)]'s text; NULL for none */
	unsigned line;
	struct a1_lang_fact *facts;
	size_t nfacts, capfacts;
	struct a1_lang_names calls; /* names it calls */
	struct a1_lang_table *tables;
	size_t ntables, captables;
	unsigned char lazy; /* not walked (a lazy reading: byte-identical on both sides, see a1_lang_skip):
			     * name, is_test and line only, no facts, no calls */
};

/* A construct the judge does not look into: a macro that may generate tests, compared as
 * text, `name` ("macro_rules! check", "check!") the finding's function; or a module read in
 * another file, `name` its path ("tests::"), not compared (its tests are judged there). A
 * test gone while one of these may hold it is UNVERIFIED test-out-of-view. */
struct a1_lang_opaque {
	char *name, *text;
};

enum { A1_LANG_OK = 0, A1_LANG_UNREADABLE, A1_LANG_UNDECIDABLE };

struct a1_lang_side {
	struct a1_lang_func *funcs;
	size_t nfuncs, capfuncs;
	struct a1_lang_opaque *opaque;
	size_t nopaque, capopaque;
	char *excluded;	  /* the file is never built: the constraint that says so; NULL */
	char *constraint; /* built only under a condition the rule cannot evaluate; NULL */
	int status;	  /* A1_LANG_OK, or why the side was not read */
	char *why;
	int partial; /* some function is lazy: not the whole side (a1_cache.h holds it for its tree) */
	int shallow; /* a lazy reading found no unit of it too deep to leave unwalked (remembered with it) */
};

/* ---- building a side ---- */
struct a1_lang_func *a1_lang_func_add(struct a1_lang_side *s, const char *name, int is_test, unsigned line);
struct a1_lang_fact *a1_lang_fact_add(struct a1_lang_func *f, char *form, unsigned line); /* takes form */
void a1_lang_call_add(struct a1_lang_func *f, const char *name, size_t n);
struct a1_lang_table *a1_lang_table_add(struct a1_lang_func *f, const char *name, unsigned line);
void a1_lang_names_add(struct a1_lang_names *x, const char *s, size_t n); /* copies s[0..n) */
void a1_lang_opaque_add(struct a1_lang_side *s, const char *name, const char *text);
void a1_lang_side_status(struct a1_lang_side *s, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void a1_lang_side_free(struct a1_lang_side *s);

/* ---- reading a side ---- */
enum a1_lang_syntax { A1_LANG_GO, A1_LANG_RUST };

/* Checks `text` (size, UTF-8, NUL, nesting), parses it and reports a syntax error; on success
 * returns the tree (the caller deletes it), else NULL with s->status set. `text` NULL = the
 * side is absent: NULL, status OK. `old` (may be NULL): an edited tree of the other side to
 * parse against (tree-sitter's incremental parse: only what changed is parsed again). */
TSTree *a1_lang_parse(enum a1_lang_syntax syn, const TSLanguage *lang, const char *text, size_t len,
		      struct a1_lang_side *s, TSTree *old);

/* The node's canonical text: its leaf tokens, comments dropped, a space only between two
 * word tokens; at most 64 KiB (longer: cut). Never NULL; the caller frees it. */
char *a1_lang_canon(const char *src, TSNode n);

/* 1 when the node is a literal (number, string, character, true / false / nil, or a
 * composite of them only). */
int a1_lang_literal(TSNode n);

/* A condition's value: 1 always true, 0 always false, -1 not known (`x != x` is 0,
 * `1 == 2` is 0, `!false` is 1, `&&` / `||` of known parts). */
int a1_lang_cond(const char *src, TSNode n);

/* A failure call under the condition `cond` (a comparison `a != 3`): the fact's subject,
 * operator as matcher and expected operand (a literal, either side), strength EXACT, in place
 * of what the fact held. Other conditions leave the fact as it is. */
void a1_lang_guarded(const char *src, TSNode cond, struct a1_lang_fact *f);

/* 1-based line of a node. */
unsigned a1_lang_line(TSNode n);

/* ---- reading lazily (a1_lang_judge) ---- */

/* A plan for reading one side of a judged pair: which of its units (a top-level function or
 * method with the comments and attributes right before it; Rust: a fn in a mod too) to walk.
 * Opaque to the judges; NULL = walk everything (a1_lang_count, BELAY_A1_EAGER=1). */
struct a1_lang_plan;

/* The side's tree: the plan's when it has one (already parsed and checked: nothing is parsed
 * again), else a1_lang_parse's. Hand it back with a1_lang_plan_done. */
TSTree *a1_lang_plan_parse(struct a1_lang_plan *p, enum a1_lang_syntax syn, const TSLanguage *lang, const char *text,
			   size_t len, struct a1_lang_side *s, TSTree *old);

/* Gives the tree from a1_lang_plan_parse to *keep (when asked and the side was not refused) or
 * deletes it; a plan's own tree is left alone. */
void a1_lang_plan_done(struct a1_lang_plan *p, TSTree *tree, TSTree **keep, const struct a1_lang_side *s);

/* A unit: a top-level function or method with the comments and attributes right before it
 * (Rust: a fn in a mod too). A judge calls, for each unit in document order, a1_lang_skip
 * before reading anything of it (`fn` the function's node, `start` the first byte of the
 * attributes / comments read with it): 1 = skip it altogether (a1_lang_judge holds it from
 * its survey). Else, having added its function (the last of s->funcs: name, is_test, mods,
 * line set), a1_lang_want: 1 = walk it; 0 = do not (the function is marked lazy). The judge
 * must read everything outside its units (imports, a module's attributes and name...) the
 * same way whatever these return, and a unit's facts must depend only on its own bytes and
 * on what lies outside every unit; when it cannot promise that for a side, it calls
 * a1_lang_plan_abort (every unit is then walked). */
int a1_lang_skip(struct a1_lang_plan *p, TSNode fn, uint32_t start);
int a1_lang_want(struct a1_lang_plan *p, struct a1_lang_side *s, TSNode fn, uint32_t start);
void a1_lang_plan_abort(struct a1_lang_plan *p);

/* A unit as a1_lang_decide sees it (shared with the Java judge, a1_java_facts.c, which reads
 * into other facts): its bytes [a, e) with the comments and attributes / annotations read with
 * it, its node, its name ("Class.method": callers and callees are found by the last `.` / `::`
 * part). sidx / ridx / read: a1_lang_judge's own bookkeeping (ignored by a1_lang_decide). */
struct a1_lang_unit {
	uint32_t a, e;
	TSNode node;
	char *name;
	int need; /* out: walk it */
	size_t sidx, ridx; /* its function in the survey's side, in the reading's */
	int read;	   /* the reading walked it (ridx set) */
};

/* Decides which units of the two sides (each in document order, disjoint) are walked: sets
 * every unit's need. 0, or -1 when everything must be walked: the context (everything outside
 * the units, blank ends of its gaps cut) differs, or the units outside the edit `e` are not
 * the same on both sides, in the same order, at the same (shifted) bytes, under the same
 * names. Needed: the units touching the edit, their callers and callees (transitively, by a
 * name's last part as a word of a unit's text), every unit whose name another shares. A
 * unit left unwalked is no deeper than 256 levels: *shallow (in: 1 = the pre side's units are
 * known to be, skip the check) is set when none is deeper; a deeper one unneeded gives -1. */
int a1_lang_decide(struct a1_lang_unit *ua, size_t na, const char *pre, size_t pre_len, struct a1_lang_unit *ub,
		   size_t nb, const char *post, size_t post_len, const TSInputEdit *e, int *shallow);

/* 1 when A1's judges walk every unit (env BELAY_A1_EAGER=1: the differential tests). */
int a1_lang_eager(void);

/* ---- judging ---- */

/* Reads one side's text (NULL: absent, an empty side) into a zeroed side, parsing against
 * `old` (NULL: from scratch); given `keep`, hands its tree back (NULL when not read). `ctx`:
 * what the caller of a1_lang_judge / a1_lang_count passed (the same for both sides). `plan`
 * (may be NULL): see a1_lang_skip - its tree replaces the parse. */
typedef void (*a1_lang_extract_fn)(const char *text, size_t len, struct a1_lang_side *s, TSTree *old, TSTree **keep,
				   void *ctx, struct a1_lang_plan *plan);

/* Both sides read with `fn` (the post side parsed against the pre side's tree, edited by the
 * bytes that differ) and compared - lazily: a unit outside the edited bytes, whose context
 * (everything outside the units) is the same on both sides and which neither calls nor is
 * called by (transitively) a unit inside them, is not walked on either side and its pair is
 * taken as equal (docs/PERFORMANCE.md, issue 32; env BELAY_A1_EAGER=1 walks everything; the
 * findings are the same either way). A new array of findings (a1_go.h's shape); a side not read
 * gives its refusal (UNVERIFIED) instead. Never NULL. A side already read in this process by
 * `kind` ("go", "rust") with `lang`'s grammar is taken from a1_cache.h's memory (its tree too,
 * for the other side to parse against), a side read and not refused is stored there (a
 * partial side for its tree only: its facts are used only when whole): `fn` must read the
 * same bytes into the same facts whatever `ctx` and `old` are. */
cJSON *a1_lang_judge(const char *kind, const TSLanguage *lang, a1_lang_extract_fn fn, void *ctx, const char *pre,
		     size_t pre_len, const char *post, size_t post_len);

/* Tests and facts a side holds; BELAY_EINVAL when it is not read. */
int a1_lang_count(a1_lang_extract_fn fn, void *ctx, const char *text, size_t len, int *tests, int *assertions);

/* Appends one finding {"function","finding","status","cause","pre","post"} (strings clipped). */
void a1_lang_finding(cJSON *out, const char *function, const char *name, const char *status, const char *cause,
		     const char *pre, const char *post);

#endif

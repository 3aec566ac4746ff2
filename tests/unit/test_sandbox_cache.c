/* test_sandbox_cache.c - the contained processes' writable cache (src/sandbox/sandbox_cache.c)
 * is one per scope and network policy (issue 30, class 3): a file one run plants in its cache
 * (a Python bytecode file, say) is not what a run of another scope, or of the same scope
 * with the other network policy, finds in its own; and that run cannot write into the first
 * one's cache either. A run of the same scope and policy does see it (the cache persists). */
#include "sandbox_harness.h"

TestSuite(sandbox_cache, .init = sbx_setup, .fini = sbx_teardown, .timeout = 120);

/* The value of "NAME=" in the server's stderr (printed as NAME=VALUE on a line), or NULL. */
static char *printed(const struct run *r, const char *name)
{
	char *key = xasprintf("\n%s=", name);
	char *hay = xasprintf("\n%s", r->o.err);
	char *p = strstr(hay, key), *v = NULL;
	if (p) {
		p += strlen(key);
		v = xstrndup(p, strcspn(p, "\n"));
	}
	free(key);
	free(hay);
	return v;
}

static const char plant[] = "mkdir -p \"$PYTHONPYCACHEPREFIX\" && printf evil > \"$PYTHONPYCACHEPREFIX/planted.pyc\" && "
			    "echo \"CACHE=$XDG_CACHE_HOME\" >&2 && echo \"PLANTED=$(cat \"$PYTHONPYCACHEPREFIX/planted.pyc\")\" >&2";

/* Runs a look at the cache: what planted.pyc holds there, and whether writing into
 * `other` (another run's cache) works. */
static void look(const char *other, const struct sbx_opts *o, struct run *r)
{
	char *script = xasprintf("echo \"CACHE=$XDG_CACHE_HOME\" >&2; "
				 "echo \"SEEN=$(cat \"$PYTHONPYCACHEPREFIX/planted.pyc\" 2>/dev/null)\" >&2; "
				 "if printf x > '%s/pycache/planted2.pyc' 2>/dev/null; then echo WROTE=yes >&2; "
				 "else echo WROTE=no >&2; fi",
				 other);
	sbx_run(script, o, r);
	free(script);
}

Test(sandbox_cache, a_run_of_another_scope_or_network_policy_never_sees_a_planted_file)
{
	struct run a;
	sbx_run(plant, NULL, &a);
	char *ca = printed(&a, "CACHE"), *pa = printed(&a, "PLANTED");
	cr_assert(ca && *ca, "the run has a cache: %s", a.o.err);
	cr_assert_str_eq(pa, "evil", "run A wrote its cache: %s", a.o.err);

	/* the same scope, the other network policy */
	struct sbx_opts allow = {.network = "allow"};
	struct run b;
	look(ca, &allow, &b);
	char *cb = printed(&b, "CACHE"), *sb = printed(&b, "SEEN"), *wb = printed(&b, "WROTE");
	cr_assert(cb && *cb, "%s", b.o.err);
	cr_assert_str_neq(cb, ca, "another network policy gets another cache");
	cr_assert_str_eq(sb, "", "run B does not find A's planted file: %s", b.o.err);
	cr_assert_str_eq(wb, "no", "run B cannot write into A's cache: %s", b.o.err);

	/* another scope, the same policy */
	char *ws2 = fs_join(dir, "ws2"), *ws1 = ws;
	fs_mkdir_p(ws2, 0755, NULL);
	ws = ws2;
	struct run c;
	look(ca, NULL, &c);
	ws = ws1;
	char *cc = printed(&c, "CACHE"), *sc = printed(&c, "SEEN"), *wc = printed(&c, "WROTE");
	cr_assert(cc && *cc, "%s", c.o.err);
	cr_assert_str_neq(cc, ca, "another scope gets another cache");
	cr_assert_str_eq(sc, "", "run C does not find A's planted file: %s", c.o.err);
	cr_assert_str_eq(wc, "no", "run C cannot write into A's cache: %s", c.o.err);
	char *a2 = fs_join(ca, "pycache/planted2.pyc");
	cr_assert_neq(access(a2, F_OK), 0, "nothing was planted in A's cache by B or C");

	/* the same scope and policy: the cache persists (a control: the look works) */
	struct run d;
	look("/nonexistent", NULL, &d);
	char *cd = printed(&d, "CACHE"), *sd = printed(&d, "SEEN");
	cr_assert_str_eq(cd, ca, "one scope and policy keep one cache");
	cr_assert_str_eq(sd, "evil", "%s", d.o.err);
	free(a2);
	free(ws2);
	free(ca);
	free(pa);
	free(cb);
	free(sb);
	free(wb);
	free(cc);
	free(sc);
	free(wc);
	free(cd);
	free(sd);
	run_free(&a);
	run_free(&b);
	run_free(&c);
	run_free(&d);
}

/* test_a1_bound.c - src/assertions/a1_bound.c, the bounded child a grammar that can loop or
 * grow without end is read in, and src/assertions/a1_java_wire.c, the facts it sends back:
 * an answer comes back whole (larger than a pipe holds), a child that spins is stopped at its
 * CPU bound, one that grows at its memory bound (what it sent before arrives), one that ends
 * otherwise is named so; a side's
 * facts survive the wire, and no prefix of them decodes. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assertions/a1_bound.h"
#include "assertions/a1_java_facts.h"
#include "assertions/a1_java_wire.h"
#include "common/xalloc.h"

static void answer_big(void *ctx, struct a1_bound_chan *ch)
{
	(void)ctx;
	struct buf out = {0};
	for (int i = 0; i < (1 << 20); i++)
		buf_putc(&out, (char)('a' + i % 26));
	a1_bound_send(ch, out.p, out.len);
	buf_free(&out);
}

static void spin(void *ctx, struct a1_bound_chan *ch)
{
	(void)ctx;
	(void)ch;
	for (volatile unsigned long i = 0;; i++)
		;
}

static void grow(void *ctx, struct a1_bound_chan *ch)
{
	(void)ctx;
	a1_bound_send(ch, "before", 6);
	for (;;) {
		char *p = xmalloc(1 << 20);
		memset(p, 1, 1 << 20); /* resident, not only reserved */
	}
}

static void die(void *ctx, struct a1_bound_chan *ch)
{
	(void)ctx;
	a1_bound_send(ch, "half an answer", 14);
	_exit(7);
}

static struct a1_bound_result run(void (*fn)(void *, struct a1_bound_chan *), struct buf *out)
{
	struct a1_bound_result r;
	struct err e = {0};
	cr_assert_eq(a1_bound_run(fn, NULL, out, &r, &e), 0, "%s", e.msg);
	return r;
}

Test(a1_bound, an_answer_larger_than_a_pipe_comes_back_whole)
{
	struct buf out = {0};
	buf_puts(&out, "kept:");
	struct a1_bound_result r = run(answer_big, &out);
	cr_assert_eq(r.end, A1_BOUND_DONE);
	cr_assert_eq(out.len, 5 + (1u << 20));
	cr_expect_eq(memcmp(out.p, "kept:abc", 8), 0);
	cr_expect_eq(out.p[out.len - 1], 'a' + ((1 << 20) - 1) % 26);
	buf_free(&out);
}

Test(a1_bound, a_child_that_spins_is_stopped_at_its_cpu_bound)
{
	setenv("BELAY_A1_PARSE_MS", "200", 1);
	struct buf out = {0};
	struct a1_bound_result r = run(spin, &out);
	cr_expect_eq(r.end, A1_BOUND_TIME);
	cr_expect_eq(r.ms, 200);
	cr_expect_eq(out.len, 0);
	char why[128];
	cr_expect_str_eq(a1_bound_why(&r, why, sizeof why),
			 "the parser was stopped at its bound of 200 ms of CPU time");
	unsetenv("BELAY_A1_PARSE_MS");
}

Test(a1_bound, a_child_that_grows_is_stopped_at_its_memory_bound)
{
	setenv("BELAY_A1_PARSE_MIB", "32", 1);
	struct buf out = {0};
	struct a1_bound_result r = run(grow, &out);
	cr_expect_eq(r.end, A1_BOUND_MEMORY, "end %d signal %d", r.end, r.signal);
	cr_expect_eq(r.mib, 32);
	char why[128];
	cr_expect_str_eq(a1_bound_why(&r, why, sizeof why), "the parser was stopped at its bound of 32 MiB of memory");
	cr_expect(out.len == 6 && !memcmp(out.p, "before", 6), "what was sent before the bound arrives");
	buf_free(&out);
	unsetenv("BELAY_A1_PARSE_MIB");
}

Test(a1_bound, a_child_that_ends_otherwise_gives_no_answer)
{
	struct buf out = {0};
	struct a1_bound_result r = run(die, &out);
	cr_expect_eq(r.end, A1_BOUND_DIED);
	cr_expect(out.len == 14 && !memcmp(out.p, "half an answer", 14),
		  "what was sent arrives; the end says it is not whole");
	buf_free(&out);
}

#define JAVA                                                                                                           \
	"import org.junit.jupiter.api.*;\nimport static org.junit.jupiter.api.Assertions.*;\n"                         \
	"class CalcTest {\n  @Test @Disabled void add() { assertEquals(3, Calc.add(1, 2)); }\n"                        \
	"  @Test @EnabledIf(\"fast\") void sub() { if (false) { assertTrue(Calc.sub(2, 1) == 1); } }\n"                \
	"  @Test void div() { assertThrows(ArithmeticException.class, () -> Calc.div(1, 0)); helper(); }\n"            \
	"  void helper() { assertNotNull(Calc.zero()); }\n}\n"

Test(a1_bound, a_sides_facts_survive_the_wire_and_no_prefix_decodes)
{
	struct a1_java_side s = {0}, t = {0};
	cr_assert_eq(a1_java_extract(JAVA, strlen(JAVA), &s), 0);
	cr_assert_geq(s.s.ntests, 3);
	cr_assert_geq(s.nconds, 1);
	struct buf a = {0}, b = {0};
	a1_java_wire_put(&s, &a);
	cr_assert_eq(a1_java_wire_get(a.p, a.len, &t), 0);
	a1_java_wire_put(&t, &b);
	cr_assert_eq(a.len, b.len);
	cr_expect_eq(memcmp(a.p, b.p, a.len), 0);
	cr_expect_str_eq(t.s.tests[0].name, s.s.tests[0].name);
	cr_expect_eq(t.s.tests[0].mods, s.s.tests[0].mods);
	cr_expect_eq(t.s.tests[0].facts.n, s.s.tests[0].facts.n);
	a1_java_side_free(&t);
	for (size_t n = 0; n < a.len; n++) {
		struct a1_java_side u = {0};
		cr_expect_neq(a1_java_wire_get(a.p, n, &u), 0, "a prefix of %zu bytes decoded", n);
		a1_java_side_free(&u);
	}
	struct a1_java_side u = {0};
	buf_putc(&a, 0);
	cr_expect_neq(a1_java_wire_get(a.p, a.len, &u), 0, "a byte past the end decoded");
	a1_java_side_free(&u);
	a.len--;
	/* what fuzz_a1_wire found: bytes that decoded but did not encode back (regress/a1_wire) */
	char *name = memmem(a.p, a.len, s.s.tests[0].name, strlen(s.s.tests[0].name));
	cr_assert_not_null(name);
	name[1] = '\0'; /* a NUL inside a string: never a C string */
	cr_expect_neq(a1_java_wire_get(a.p, a.len, &u), 0, "a string holding a NUL decoded");
	a1_java_side_free(&u);
	a1_java_side_free(&s);
	buf_free(&a);
	buf_free(&b);
}

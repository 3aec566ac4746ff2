/* test_strmap.c - the string map: puts, gets, deletes against a reference, and a map that
 * churns (a call ledger: one key in, one out, a million times) stays small - deleted slots
 * are reclaimed instead of doubling the table forever. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strmap.h"

Test(strmap, agrees_with_a_reference_under_random_operations)
{
	enum { N = 512 };
	int64_t ref[N];
	int present[N] = {0};
	struct strmap m;
	strmap_init(&m);
	unsigned seed = 7;
	for (int step = 0; step < 200000; step++) {
		seed = seed * 1103515245u + 12345u;
		int k = (int)((seed >> 8) % N), op = (int)((seed >> 20) % 3);
		char key[16];
		snprintf(key, sizeof key, "k%d", k);
		if (op == 0) {
			strmap_put(&m, key, step);
			ref[k] = step;
			present[k] = 1;
		} else if (op == 1) {
			cr_assert_eq(strmap_del(&m, key), present[k]);
			present[k] = 0;
		} else {
			int64_t v = -1;
			cr_assert_eq(strmap_get(&m, key, &v), present[k]);
			if (present[k])
				cr_assert_eq(v, ref[k]);
		}
	}
	size_t live = 0;
	for (int k = 0; k < N; k++)
		live += (size_t)present[k];
	cr_assert_eq(strmap_count(&m), live);
	size_t seen = 0;
	for (size_t i = 0; i < m.cap; i++)
		seen += (size_t)strmap_live(&m, i);
	cr_assert_eq(seen, live);
	strmap_free(&m);
}

Test(strmap, churn_does_not_grow_the_table)
{
	struct strmap m;
	strmap_init(&m);
	char key[32];
	for (int i = 0; i < 1000000; i++) {
		snprintf(key, sizeof key, "call-%d", i);
		strmap_put(&m, key, i);
		if (i >= 4) { /* four calls outstanding at a time */
			snprintf(key, sizeof key, "call-%d", i - 4);
			cr_assert(strmap_del(&m, key));
		}
	}
	cr_assert_eq(strmap_count(&m), 4);
	cr_assert_leq(m.cap, 64, "the table kept growing with deleted slots: %zu slots for 4 keys", m.cap);
	strmap_free(&m);
}

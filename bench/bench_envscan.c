/* bench_envscan.c - what reading the envelope of a frame over the recording cap costs
 * (src/mcp/envscan.c: every byte of such a frame goes through it on the proxy's loop),
 * against the framer's own newline search over the same bytes in the same process, for two
 * shapes: one long string (a file read) and dense small objects (a directory tree). Frames
 * within the cap are never scanned, so this is the whole added cost.
 *
 * usage: bench_envscan [MIB (64)] [ROUNDS (5)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/xalloc_cjson.h"
#include "mcp/envscan.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void make(struct buf *b, size_t n, int dense)
{
	if (dense) {
		buf_puts(b, "{\"result\":{\"tree\":[");
		for (size_t k = 0; b->len < n; k++)
			buf_printf(b, "{\"name\":\"file%zu.txt\",\"type\":\"file\",\"size\":%zu,\"children\":[]},", k, k % 977);
		buf_puts(b, "{}]},\"jsonrpc\":\"2.0\",\"id\":42}");
	} else {
		buf_puts(b, "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"");
		while (b->len < n)
			buf_puts(b, "a line of text in a file that is being read back by the agent, 80 columns\\n");
		buf_puts(b, "\"}]},\"jsonrpc\":\"2.0\",\"id\":42}");
	}
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (mib < 1 || rounds < 1) {
		fprintf(stderr, "usage: bench_envscan [MIB] [ROUNDS]\n");
		return 2;
	}
	for (int dense = 0; dense < 2; dense++) {
		struct buf b = {0};
		make(&b, mib << 20, dense);
		double best_nl = 1e9, best_env = 1e9;
		volatile size_t found = 0; /* keeps the newline search */
		for (int r = 0; r < rounds; r++) {
			double t0 = now();
			for (size_t o = 0; o < b.len; o += 65536)
				found += memchr(b.p + o, '\n', b.len - o < 65536 ? b.len - o : 65536) != NULL;
			double t1 = now();
			struct envscan s;
			envscan_init(&s);
			for (size_t o = 0; o < b.len; o += 65536)
				envscan_feed(&s, b.p + o, b.len - o < 65536 ? b.len - o : 65536);
			cJSON *env = envscan_skeleton(&s);
			double t2 = now();
			if (!env || !cJSON_GetObjectItem(env, "id")) {
				fprintf(stderr, "bench_envscan: no envelope read\n");
				return 1;
			}
			cJSON_Delete(env);
			envscan_free(&s);
			if (t1 - t0 < best_nl)
				best_nl = t1 - t0;
			if (t2 - t1 < best_env)
				best_env = t2 - t1;
		}
		double mb = (double)b.len / 1e6;
		printf("%-22s %6.1f MiB  newline search %7.1f ms (%5.2f GB/s)  envelope %7.1f ms (%5.2f GB/s)  ratio %5.1fx\n",
		       dense ? "dense small objects" : "one long string", (double)b.len / 1048576.0, best_nl * 1e3,
		       mb / best_nl / 1e3, best_env * 1e3, mb / best_env / 1e3, best_env / best_nl);
		buf_free(&b);
	}
	return 0;
}

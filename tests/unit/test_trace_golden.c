/* test_trace_golden.c - the trace writer's bytes against a golden file: a fixed sequence
 * of records (frames of every shape with fixed t_in, deferred ones completed out of order
 * and one never completed, other kinds, large frames that travel in batches) must give
 * exactly the lines tests/golden/trace_writer.txt holds. Timestamps the writer takes itself
 * and the version string are normalised; lines over 1500 bytes are kept as their hash.
 * BELAY_GOLDEN_UPDATE=1 rewrites the golden file (only from a writer known to be right). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "ts_jsongen.h"
#include "tsupport.h"

#define GOLDEN BELAY_SOURCE_DIR "/tests/golden/trace_writer.txt"
#define LONG_LINE 1500

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("trace-golden");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(trace_golden, .init = setup, .fini = teardown);

static struct timespec t_at(int i)
{
	struct timespec t = {1000000000 + i * 3, (long)((unsigned)i * 123456789u % 1000000000u)};
	return t;
}

static cJSON *handle_for(int i)
{
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "present");
	char name[32];
	snprintf(name, sizeof name, "h-%d-\xc3\xa9\"", i);
	cJSON_AddStringToObject(h, "handle", name);
	cJSON_AddNumberToObject(h, "bytes", i * 1000.5);
	return h;
}

/* A large frame of one of several shapes, n bytes or about. */
static void big_frame(struct buf *b, int shape, size_t n, struct ts_rng *r)
{
	buf_reset(b);
	switch (shape % 6) {
	case 0: /* the throughput benchmark's notification: canonical */
		buf_puts(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/blob\",\"params\":{\"d\":\"");
		while (b->len < n - 3)
			buf_putc(b, 'x');
		buf_puts(b, "\"}}");
		break;
	case 1: /* a response whose members are out of order, with whitespace */
		buf_puts(b, "{\"result\": {\"content\": [{\"type\": \"text\", \"text\": \"");
		while (b->len < n - 40)
			buf_puts(b,
				 (b->len / 64) % 3 ? "line of text\\n" : "tab\\there \\\"q\\\" \\u00e9 \xe2\x82\xac ");
		buf_puts(b, "\"}]}, \"jsonrpc\": \"2.0\", \"id\": 7}");
		break;
	case 2: /* many small members and arrays */
		buf_puts(b, "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"rows\":[");
		for (int i = 0; b->len < n - 20; i++)
			buf_printf(b, "%s{\"n\":%d,\"f\":%d.25,\"s\":\"r%d\",\"z\":null,\"a\":[true,false]}",
				   i ? "," : "", i, i, i);
		buf_puts(b, "]}}");
		break;
	case 3: /* not UTF-8 at all */
		while (b->len < n)
			buf_putc(b, (char)(ts_rng_next(r) & 0xff));
		break;
	case 4: /* random valid and invalid documents, concatenated in an array */
		buf_putc(b, '[');
		while (b->len < n) {
			if (b->len > 1)
				buf_putc(b, ',');
			ts_json_gen(r, b, 3, 0);
		}
		buf_putc(b, ']');
		break;
	default: /* a long string with every kind of escape */
		buf_puts(b, "{\"params\":{\"arguments\":{\"content\":\"");
		while (b->len < n - 8)
			buf_puts(b, "\\u20ac\\ud83d\\ude00\\/\\b\\f\\r\\t\xf0\x9f\x98\x80 plain text 0123456789 ");
		buf_puts(b, "\"}}}");
	}
}

static void golden_body(struct trace_writer *w)
{
	int t = 0;
	/* Other kinds. */
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "start");
	cJSON *argv = cJSON_AddArrayToObject(f, "argv");
	cJSON_AddItemToArray(argv, cJSON_CreateString("srv"));
	cJSON_AddItemToArray(argv, cJSON_CreateString("\xc3\xbc\n\"q\"\x01"));
	cJSON_AddNumberToObject(f, "pid", 1234);
	cJSON_AddNumberToObject(f, "ratio", 1.5);
	cJSON_AddNumberToObject(f, "big", 1e300);
	cJSON_AddNullToObject(f, "sandbox");
	cJSON_AddTrueToObject(f, "t");
	cJSON_AddItemToObject(f, "empty", cJSON_CreateObject());
	trace_writer_add(w, "server", f);
	trace_writer_add(w, "note", NULL);
	trace_writer_capture_error(w, "c2s", "FrameTooLarge: 5000 bytes");
	trace_writer_capture_error(w, NULL, "Odd \"cause\"\n");

	/* Hand-picked frames. */
	static const char *const frames[] = {
	    "{\"id\":1}",
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	    " {\"b\" : [ true , false , null ] , \"a\" : \"x\\/y\\u0007\\t\\\"\" } ",
	    "{\"a\":1,\"a\":2}",
	    "\"\\ud800\"",
	    "\"a\\u0000b\"",
	    "\"a\\\\u0000b\"",
	    "{\"a\":1} x",
	    "{\"a\":NaN}",
	    "[1.0,2e2,-0.0,-0,1e400]",
	    "[1.0,2e2,-0.0,-0]",
	    "[1E21,1e-7,0.000001,123456789012345680000,9007199254740993,5e-324,4.35,333333333.33333329]",
	    "{\"\\u20ac\":1,\"\\r\":2,\"\\ufb33\":3,\"1\":4,\"\\ud83d\\ude00\":5,\"\\u0080\":6,\"\\u00f6\":7}",
	    "{\"\xe2\x82\xac\":1,\"\xef\xac\xb3\":3,\"\xf0\x9f\x98\x80\":5,\"\xee\x80\x80\":6}",
	    "\xef\xbb\xbf{\"bom\":true}",
	    "{\"tab\":\"raw\ttab\",\"ctl\":\"\x01\x1f\"}",
	    "{\"x\":\"\\uD834\\uDD1E\\u00E9\\u005C\\u0022\\u002f\"}",
	    "{\"x\":\"\\uZZZZ\"}",
	    "{\"x\":\"\\u12\"}",
	    "[]",
	    "{}",
	    "  [ ]  ",
	    "null",
	    "true",
	    "0",
	    "-0",
	    "\"s\"",
	    "",
	    "\n",
	    "{\"a\":[1,2,{\"c\":3,\"b\":[{}]}],\"A\":\"\"}",
	    "{\"a\":1}\r\n",
	    "{\"a\":1}\x0b",
	    "\x0b{\"a\":1}",
	    "[1,\x0b"
	    "2]",
	    "{\"n\":1234567890123456789012345678901234567890123456789012345678901234567890}",
	    "{\"n\":12345678901234567890123456789012345678901234567890123456789012.5}",
	    "{\"n\":01}",
	    "{\"n\":1.}",
	    "{\"n\":-}",
	    "[1-2]",
	    "[truex]",
	    "[nul]",
	    "{\"a\" 1}",
	    "{\"a\":1,}",
	    "[1,]",
	    "\xff\xfe",
	    "{\"x\":\"\xc3\"}",
	    "{\"x\":\"\xed\xa0\x80\"}",
	    "{\"x\":\"\xf4\x90\x80\x80\"}",
	};
	for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
		struct timespec ti = t_at(t++);
		size_t len = strlen(frames[i]);
		trace_writer_frame(w, i % 2 ? "s2c" : "c2s", frames[i], len, len, 0, &ti,
				   i % 5 == 4 ? handle_for((int)i) : NULL, NULL);
	}
	/* A frame with a NUL in it. */
	{
		struct timespec ti = t_at(t++);
		trace_writer_frame(w, "c2s", "{\"a\":\"\0\"}", 9, 9, 0, &ti, NULL, NULL);
	}
	/* Truncated frames. */
	for (int i = 0; i < 3; i++) {
		struct timespec ti = t_at(t++);
		trace_writer_frame(w, "s2c", "{\"id\":1,\"result\":{}}", 10 + (size_t)i, 5000, 1, &ti, NULL, NULL);
	}
	/* Random documents, clean and messy, some mutated. */
	struct ts_rng r = {42};
	struct buf b = {0};
	for (int i = 0; i < 120; i++) {
		buf_reset(&b);
		ts_json_gen(&r, &b, 4, i % 3 != 0);
		if (i % 4 == 3)
			ts_json_mutate(&r, &b);
		struct timespec ti = t_at(t++);
		trace_writer_frame(w, i % 2 ? "s2c" : "c2s", b.p, b.len, b.len, 0, &ti, NULL, NULL);
	}
	/* Deferred frames, completed out of order, with later records waiting behind them. */
	struct trace_rec *d1 = NULL, *d2 = NULL, *d3 = NULL;
	struct timespec ti = t_at(t++);
	trace_writer_frame(w, "c2s", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\"}", 47, 47, 0, &ti, NULL,
			   &d1);
	ti = t_at(t++);
	trace_writer_frame(w, "s2c", "{\"b\":2}", 7, 7, 0, &ti, NULL, NULL);
	ti = t_at(t++);
	trace_writer_frame(w, "c2s", "{\"c\":3}", 7, 7, 0, &ti, handle_for(1), &d2);
	trace_writer_frame_from_belay(w, "s2c", "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32001}}", 48,
				      "gate_refused");
	usleep(20 * 1000);
	trace_writer_set_handle(w, d2, handle_for(2));
	usleep(5 * 1000);
	trace_writer_set_handle(w, d1, NULL);

	/* Large frames, added as fast as possible (they travel in batches). */
	for (int i = 0; i < 36; i++) {
		size_t n = (size_t[]){65535, 65536, 100000, 200001, 1 << 20, 4097}[i % 6];
		big_frame(&b, i / 6 + i, n, &r);
		ti = t_at(t++);
		if (i == 17)
			trace_writer_frame(w, "c2s", b.p, b.len, b.len, 0, &ti, NULL, &d3);
		else
			trace_writer_frame(w, i % 2 ? "s2c" : "c2s", b.p, b.len, b.len + (i == 20), i == 20, &ti,
					   i % 7 == 0 ? handle_for(i) : NULL, NULL);
	}
	usleep(5 * 1000);
	trace_writer_set_handle(w, d3, handle_for(3));
	/* One more deferred frame that is never completed: close names it. */
	ti = t_at(t++);
	trace_writer_frame(w, "s2c", "{\"late\":true}", 13, 13, 0, &ti, NULL, &d1);
	ti = t_at(t++);
	trace_writer_frame(w, "c2s", "{\"after\":1}", 11, 11, 0, &ti, NULL, NULL);
	buf_free(&b);
}

/* The normalised text of a trace: "t_in" values the writer took from the clock become
 * "T", the version becomes "V", and long lines become "#<hash> <length>". */
static void normalise(const char *p, size_t n, struct buf *out)
{
	static const char ver[] = "\"writer\":\"belay " BELAY_VERSION_STRING "\"";
	const char *end = p + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		struct buf line = {0};
		buf_append(&line, p, len);
		char *v = strstr(buf_cstr(&line), ver);
		if (v) {
			size_t off = (size_t)(v - line.p), vl = strlen(ver);
			struct buf t = {0};
			buf_append(&t, line.p, off);
			buf_puts(&t, "\"writer\":\"belay V\"");
			buf_append(&t, line.p + off + vl, line.len - off - vl);
			buf_free(&line);
			line = t;
		}
		char *ts = strstr(buf_cstr(&line), ",\"t_in\":\"");
		if (ts && strncmp(ts + 9, "2001-", 5) != 0) {
			char *q = strchr(ts + 9, '"');
			cr_assert(q);
			struct buf t = {0};
			buf_append(&t, line.p, (size_t)(ts + 9 - line.p));
			buf_putc(&t, 'T');
			buf_append(&t, q, line.len - (size_t)(q - line.p));
			buf_free(&line);
			line = t;
		}
		if (line.len > LONG_LINE) {
			char h[72];
			sha256_tagged(line.p, line.len, h);
			buf_printf(out, "#%s %zu\n", h, line.len);
		} else {
			buf_append(out, line.p, line.len);
		}
		buf_free(&line);
		p += len;
	}
}

static void write_golden_trace(const char *path)
{
	struct err e = {0};
	struct trace_writer *w = NULL;
	cr_assert_eq(trace_writer_open_path(path, NULL, &w, &e), 0, "%s", e.msg);
	golden_body(w);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
}

static void check_against_golden(const char *path)
{
	size_t n = 0;
	char *text = ts_read_file(path, &n);
	cr_assert(text);
	struct buf got = {0};
	normalise(text, n, &got);
	free(text);
	if (ts_golden_update("BELAY_GOLDEN_UPDATE")) {
		ts_write_file(GOLDEN, got.p, got.len);
		buf_free(&got);
		ts_golden_rewritten("BELAY_GOLDEN_UPDATE", GOLDEN);
		return;
	}
	size_t gn = 0;
	char *want = ts_read_file(GOLDEN, &gn);
	cr_assert(want, "cannot read %s", GOLDEN);
	if (gn != got.len || memcmp(want, got.p, gn) != 0) {
		/* Name the first line that differs, and keep the whole text for a diff. */
		size_t i = 0, line = 1, start = 0;
		while (i < gn && i < got.len && want[i] == got.p[i]) {
			if (want[i] == '\n') {
				line++;
				start = i + 1;
			}
			i++;
		}
		char *keep = fs_join(dir, "..");
		char *out = xasprintf("%s/trace_golden.actual", keep);
		ts_write_file(out, got.p, got.len);
		cr_assert_fail(
		    "trace differs from %s at line %zu (byte %zu of the line); the normalised trace is in %s", GOLDEN,
		    line, i - start, out);
	}
	free(want);
	buf_free(&got);
}

Test(trace_golden, bytes_match_the_golden_file)
{
	char *path = fs_join(dir, "g.jsonl");
	write_golden_trace(path);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	trace_free(t);
	check_against_golden(path);
	free(path);
}

Test(trace_golden, bytes_match_the_golden_file_again)
{
	/* A second run: batch boundaries and thread timing differ, the bytes must not. */
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "g%d.jsonl", i);
		char *path = fs_join(dir, name);
		write_golden_trace(path);
		if (!ts_golden_update("BELAY_GOLDEN_UPDATE"))
			check_against_golden(path);
		free(path);
	}
}

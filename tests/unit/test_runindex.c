/* test_runindex.c - the run view: the proxy's live index, `belay index` and a rebuild from
 * nothing but the trace give the same rows; the frame index's offsets point at the right
 * lines; re-indexing keeps verdicts; a corrupt or foreign trace changes nothing; a failing
 * store never touches forwarding; `belay runs` and `belay show` read it back. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("runindex", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(runindex, .init = setup, .fini = teardown, .timeout = 180);

/* The run-view tables, row for row, in key order. */
static char *run_view(void)
{
	static const char *const q[] = {"SELECT * FROM runs ORDER BY id", "SELECT * FROM frames ORDER BY run, seq",
					"SELECT * FROM turns ORDER BY run, turn",
					"SELECT * FROM denials ORDER BY run, seq", NULL};
	struct buf b = {0};
	for (const char *const *s = q; *s; s++) {
		char *rows = ts_sql_dump(db, *s);
		buf_printf(&b, "== %s\n%s", *s, rows);
		free(rows);
	}
	buf_cstr(&b);
	return buf_take(&b);
}

static void remove_db(void)
{
	char *p[3] = {xasprintf("%s", db), xasprintf("%s-wal", db), xasprintf("%s-shm", db)};
	for (int i = 0; i < 3; i++) {
		unlink(p[i]);
		free(p[i]);
	}
}

static void index_ok(const char *trace)
{
	struct ts_out o;
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "index failed: %s", o.err);
	cr_assert(strstr(o.out, "indexed "), "%s", o.out);
	ts_out_free(&o);
}

/* The demo session plus a call the sandbox refuses (a write outside the workspace). */
static const char *const denied_lines[] = {
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
    "\"arguments\":{\"command_line\":\"touch /etc/belay-denied\"}}}",
    NULL,
};

Test(runindex, live_index_equals_belay_index_equals_a_rebuild_from_the_trace)
{
	const char *lines[10];
	memcpy(lines, denied_lines, sizeof lines);
	for (int i = 0; i < 8; i++)
		lines[i] = ts_demo_lines[i];
	char *trace = ts_record_demo(dir, lines, NULL);
	char *live = run_view();
	/* The live view is complete: every turn, frames, denials of the contained server. */
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM runs"), 1);
	cr_assert_eq(ts_sql_int(db, "SELECT turns FROM runs"), 6, "%s", live);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE status = 'answered' AND gate = 'captured' "
				    "AND handle IS NOT NULL"),
		     6, "%s", live);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE error LIKE 'tool error: unknown tool%'"), 1, "%s",
		     live);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM runs WHERE ended IS NOT NULL AND exit_status = 0"), 1);
	struct stat sb;
	cr_assert_eq(stat(trace, &sb), 0);
	cr_assert_eq(ts_sql_int(db, "SELECT indexed_bytes FROM runs"), (long long)sb.st_size,
		     "the live index stopped early");
	cr_assert_gt(ts_sql_int(db, "SELECT count(*) FROM denials"), 0, "the refused write outside the workspace is a denial");

	/* belay index replaces the run's view with the same rows. */
	index_ok(trace);
	char *again = run_view();
	cr_assert_str_eq(again, live, "belay index differs from the live index");
	/* Idempotent. */
	index_ok(trace);
	char *third = run_view();
	cr_assert_str_eq(third, live);
	/* Delete the database and rebuild from the trace alone. */
	remove_db();
	index_ok(trace);
	char *rebuilt = run_view();
	cr_assert_str_eq(rebuilt, live, "a rebuild from the trace differs");
	free(live);
	free(again);
	free(third);
	free(rebuilt);
	free(trace);
}

/* The live view when the store writer's queue holds at most `max` bytes: lines beyond it are
 * read back from the trace; the view must equal a rebuild from the trace. */
static void live_with_queue_max(const char *max)
{
	setenv("BELAY_STORE_QUEUE_MAX", max, 1);
	char *trace = ts_record_demo(dir, NULL, NULL);
	unsetenv("BELAY_STORE_QUEUE_MAX");
	char *live = run_view();
	struct stat sb;
	cr_assert_eq(stat(trace, &sb), 0);
	cr_assert_eq(ts_sql_int(db, "SELECT indexed_bytes FROM runs"), (long long)sb.st_size,
		     "the live index stopped early (queue max %s)", max);
	cr_assert_eq(ts_sql_int(db, "SELECT turns FROM runs"), 5, "%s", live); /* ts_demo_lines' tools/calls */
	remove_db();
	index_ok(trace);
	char *rebuilt = run_view();
	cr_assert_str_eq(rebuilt, live, "queue max %s: the live view differs from a rebuild", max);
	free(live);
	free(rebuilt);
	free(trace);
}

Test(runindex, a_full_queue_reads_lines_back_from_the_trace)
{
	live_with_queue_max("1"); /* every line read back */
}

Test(runindex, a_queue_that_fills_and_drains_keeps_trace_order)
{
	live_with_queue_max("3000"); /* queued, read back, queued again */
}

/* Replies out of order, after a cancel, twice, to nobody, and as a reversed batch: the run
 * view's turns (the indexer keeps only the latest frame) pair exactly as `belay trace show`
 * (a model with every frame) does. */
Test(runindex, a_bad_queue_max_is_a_named_error)
{
	const char *env[] = {"BELAY_STORE_QUEUE_MAX=8M", NULL};
	const char *argv[] = {BELAY_BIN, "proxy", "--state", state, "--", "cat", NULL};
	struct ts_out o;
	ts_run(argv, env, dir, "", 0, 30, &o);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "BELAY_STORE_QUEUE_MAX must be a positive number of bytes, not '8M'"), "%s", o.err);
	ts_out_free(&o);
}

Test(runindex, tricky_pairing_matches_trace_show)
{
	static const char in[] =
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hold\",\"arguments\":{}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"release\",\"arguments\":{}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"twice\",\"arguments\":{}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"orphan\",\"arguments\":{}}}\n"
	    "[{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"b1\",\"arguments\":{}}},"
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"b2\",\"arguments\":{}}}]\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":\"8\",\"method\":\"tools/call\",\"params\":{\"name\":\"plain\",\"arguments\":{}}}\n";
	char *tr = fs_join(dir, "traces");
	const char *argv[] = {BELAY_BIN, "proxy", "--state", state, "--trace-dir", tr, "--",
			      "python3", BELAY_SOURCE_DIR "/tests/fixtures/pairing_server.py", NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, in, sizeof in - 1, 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	char *trace = NULL;
	cr_assert_eq(ts_sh("ls %s/*.jsonl > %s/which", tr, dir), 0);
	char *which = fs_join(dir, "which");
	size_t n;
	trace = ts_read_file(which, &n);
	trace[strcspn(trace, "\n")] = '\0';
	ts_belay(&o, NULL, "trace", "show", trace, "--json", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	/* trace show's turns, as the store's rows would print them */
	struct buf want = {0};
	int turns = 0;
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		const cJSON *t = cJSON_GetObjectItem(j, "turn");
		if (cJSON_IsNumber(t)) {
			buf_printf(&want, "%d|%d|%d|%s\n", t->valueint, cJSON_GetObjectItem(j, "request_seq")->valueint,
				   cJSON_GetObjectItem(j, "response_seq")->valueint, cJSON_GetObjectItem(j, "status")->valuestring);
			turns++;
		}
		cJSON_Delete(j);
	}
	cr_assert_eq(turns, 8, "%s", buf_cstr(&want));
	char *got = ts_sql_dump(db, "SELECT turn, req_seq, resp_seq, status FROM turns ORDER BY turn");
	cr_assert_str_eq(got, buf_cstr(&want), "the store's turns differ from trace show's");
	/* and a rebuild gives the same */
	remove_db();
	index_ok(trace);
	char *again = ts_sql_dump(db, "SELECT turn, req_seq, resp_seq, status FROM turns ORDER BY turn");
	cr_assert_str_eq(again, got);
	free(again);
	free(got);
	buf_free(&want);
	ts_out_free(&o);
	free(which);
	free(trace);
	free(tr);
}

Test(runindex, frame_offsets_point_at_their_lines)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	size_t len = 0;
	char *text = ts_read_file(trace, &len);
	char *rows = ts_sql_dump(db, "SELECT seq, off, len FROM frames ORDER BY seq");
	int n = 0;
	for (char *line = rows, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		long long seq, off, l;
		cr_assert_eq(sscanf(line, "%lld|%lld|%lld", &seq, &off, &l), 3);
		cr_assert_leq((size_t)(off + l), len);
		cr_assert(off == 0 || text[off - 1] == '\n', "offset %lld is not a line start", off);
		cr_assert_eq(text[off + l - 1], '\n');
		char *want = xasprintf("\"seq\":%lld,", seq);
		char *rec = xstrndup(text + off, (size_t)l);
		cr_assert(strstr(rec, "\"kind\":\"frame\"") && strstr(rec, want), "seq %lld -> %s", seq, rec);
		free(rec);
		free(want);
		n++;
	}
	cr_assert_eq(n, ts_sql_int(db, "SELECT frames FROM runs"));
	cr_assert_gt(n, 10);
	free(rows);
	free(text);
	free(trace);
}

Test(runindex, reindexing_keeps_verdicts_and_show_reads_frames_by_offset)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "verify", trace, "--state", state, NULL);
	cr_assert_eq(o.status, 4, "the demo run has FAIL turns: %s%s", o.out, o.err);
	ts_out_free(&o);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM verifications"), 1);
	long long verdicts = ts_sql_int(db, "SELECT count(*) FROM verdicts");
	cr_assert_gt(verdicts, 10);
	/* Messages are stored with every sub-verdict. */
	cr_assert_eq(
	    ts_sql_int(db, "SELECT count(*) FROM verdicts WHERE idx >= 0 AND (message IS NULL OR message = '')"), 0);
	cr_assert_eq(
	    ts_sql_int(db, "SELECT count(*) FROM verdicts WHERE turn = 1 AND kind = 'invariant' AND status = 'FAIL' "
			   "AND message LIKE '%replaced-by-tautology%'"),
	    1);
	index_ok(trace);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM verdicts"), verdicts, "re-indexing touched verdicts");

	ts_belay(&o, NULL, "runs", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	char *run = xstrndup(strrchr(trace, '/') + 1, strlen(strrchr(trace, '/') + 1) - 6);
	cr_assert(strstr(o.out, run) && strstr(o.out, "FAIL") && strstr(o.out, "5/5"), "%s", o.out);
	ts_out_free(&o);

	ts_belay(&o, NULL, "show", run, "--turn", "1", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "write_file") && strstr(o.out, "assert True"), "%s", o.out);
	cr_assert(strstr(o.out, "wrote tests/test_a.py"), "the response is read back from the trace: %s", o.out);
	cr_assert(strstr(o.out, "replaced-by-tautology"), "the verdict's message is shown: %s", o.out);
	ts_out_free(&o);

	/* A trace changed after indexing is named, never misread. */
	size_t len;
	char *text = ts_read_file(trace, &len);
	long long off =
	    ts_sql_int(db, "SELECT f.off FROM frames f JOIN turns t ON t.run = f.run AND t.resp_seq = f.seq "
			   "WHERE t.turn = 1");
	text[off + 40] = text[off + 40] == 'A' ? 'B' : 'A'; /* inside the base64 of raw */
	ts_write_file(trace, text, len);
	free(text);
	ts_belay(&o, NULL, "show", run, "--turn", "1", "--state", state, NULL);
	cr_assert(strstr(o.out, "does not match its hash_raw") || strstr(o.out, "changed since it was indexed"), "%s",
		  o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "show", run, "--turn", "9", "--state", state, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "has no turn 9"), "%s", o.err);
	ts_out_free(&o);
	free(run);
	free(trace);
}

Test(runindex, a_corrupt_or_foreign_trace_is_named_and_changes_nothing)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	index_ok(trace);
	char *before = ts_db_snapshot(db);
	size_t len;
	char *text = ts_read_file(trace, &len);
	const char *base = strrchr(trace, '/') + 1;
	struct bad_trace {
		const char *name, *want;
		char *data;
		size_t len;
	} bad[5];
	/* 1: a frame whose bytes no longer match hash_raw, under the same run id */
	char *c1 = xmemdup(text, len);
	char *raw = strstr(c1, "\"raw\":\"") + 7;
	raw[2] = raw[2] == 'A' ? 'B' : 'A';
	bad[0] = (struct bad_trace){base, "does not match its bytes", c1, len};
	/* 2: nothing but a line cut mid-line (a trace cut after complete lines is read up to
	 * them: test_trace_cut.c) */
	bad[1] = (struct bad_trace){"trace-cut.jsonl", "the only line is cut mid-line", xmemdup(text, 30), 30};
	/* 3: foreign bytes */
	bad[2] = (struct bad_trace){"trace-foreign.jsonl", "",
				    xmemdup("\x7f"
					    "ELF\x02\x01\x01 not a trace\n",
					    21),
				    21};
	/* 4: an empty file */
	bad[3] = (struct bad_trace){"trace-empty.jsonl", "empty", xstrdup(""), 0};
	/* 5: valid JSON lines, but not a trace (no connection_window first) */
	const char *js = "{\"v\":1,\"kind\":\"frame\",\"seq\":0}\n";
	bad[4] = (struct bad_trace){"trace-json.jsonl", "", xstrdup(js), strlen(js)};
	char *other = fs_join(dir, "other");
	fs_mkdir_p(other, 0700, NULL);
	for (int i = 0; i < 5; i++) {
		char *p = fs_join(other, bad[i].name);
		ts_write_file(p, bad[i].data, bad[i].len);
		struct ts_out o;
		ts_belay(&o, NULL, "index", "--state", state, p, NULL);
		cr_assert_eq(o.status, 2, "%s was accepted: %s", bad[i].name, o.out);
		cr_assert(strstr(o.err, "belay: index: ") && strstr(o.err, bad[i].want), "case %d: %s", i, o.err);
		cr_assert_eq(strchr(o.err, '\n'), o.err + strlen(o.err) - 1, "one line: %s", o.err);
		ts_out_free(&o);
		char *after = ts_db_snapshot(db);
		cr_assert_str_eq(after, before, "a refused %s changed the store", bad[i].name);
		free(after);
		free(p);
		free(bad[i].data);
	}
	free(other);
	free(text);
	free(before);
	free(trace);
}

Test(runindex, no_index_and_a_failing_store_never_touch_forwarding)
{
	const char *extra[] = {"--no-index", NULL};
	char *trace = ts_record_demo(dir, NULL, extra);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM runs"), 0, "--no-index indexed");
	free(trace);

	/* A store that cannot be written: the session still completes, the trace is whole, the
	 * failure is said once. */
	remove_db();
	fs_mkdir_p(db, 0700, NULL); /* a directory where the database file should be */
	char *ws = fs_join(dir, "ws"), *traces = fs_join(dir, "traces");
	const char *argv[] = {BELAY_BIN,     "proxy", "--state", state,
			      "--trace-dir", traces,  "--",	 BELAY_BUILD_DIR "/belay-demo-server",
			      "editor",	     ws,      NULL};
	struct ts_out o;
	cr_assert_eq(ts_mcp_session(argv, NULL, ts_demo_lines, 60, &o), 0, "forwarding stalled: %s", o.err);
	cr_assert_eq(o.status, 0, "%s", o.err);
	int replies = 0;
	for (char *p = o.out; (p = strchr(p, '\n')); p++)
		replies++;
	cr_assert_eq(replies, 7, "every request answered: %s", o.out);
	const char *first = strstr(o.err, "indexing stopped");
	cr_assert(first, "the failure is reported: %s", o.err);
	cr_assert_null(strstr(first + 1, "indexing stopped"), "said once: %s", o.err);
	cr_assert(strstr(o.err, "belay index"), "names the way back: %s", o.err);
	ts_out_free(&o);
	free(ws);
	free(traces);
}

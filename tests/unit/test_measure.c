/* test_measure.c - `belay measure` end to end with the real binary and real replays of the
 * demo server: dispositions, the ledger's shape, resume and duplicates, the report's fixed
 * order and its JSON, INSTRUMENT SUSPECT, controls in combine, ingest into the corpus and
 * the false-positive rate, the HTML page, and bad input as named errors (exit 2). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("measure", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(measure, .init = setup, .fini = teardown, .timeout = 300);


/* A valid trace with no tools/call (nothing verifiable); `tag` makes its content unique. */
static void write_empty_trace(const char *path, const char *tag)
{
	char *s = xasprintf("{\"v\":1,\"kind\":\"connection_window\",\"phase\":\"open\",\"writer\":\"belay %s\",\"seq\":0,"
			    "\"t_in\":\"2026-01-01T00:00:00.000000+00:00\",\"observation_point\":\"proxy\"}\n",
			    tag);
	ts_write_file(path, s, strlen(s));
	free(s);
}


static void copy_file(const char *from, const char *to)
{
	size_t n;
	char *s = ts_read_file(from, &n);
	cr_assert_not_null(s);
	ts_write_file(to, s, n);
	free(s);
}

/* The batch of the tests: clean, flagged, nothing verifiable, corrupt, a duplicate. */
static char *make_batch(void)
{
	char *batch = fs_join(dir, "batch");
	char *t = ts_record_demo(dir, ts_read_lines, NULL);
	char *clean = ts_place(t, batch, "trace-clean");
	free(t);
	t = ts_record_demo(dir, NULL, NULL);
	char *flagged = ts_place(t, batch, "trace-flagged");
	free(t);
	char *p = fs_join(batch, "trace-empty.jsonl");
	write_empty_trace(p, "empty");
	free(p);
	p = fs_join(batch, "trace-corrupt.jsonl");
	ts_write_file(p, "{\"v\":1,\"kind\":\"connection_window\"\nnot json\n", 40);
	free(p);
	p = fs_join(batch, "trace-zcopy.jsonl");
	copy_file(clean, p);
	free(p);
	free(clean);
	free(flagged);
	return batch;
}

static cJSON *ledger_line(const char *ledger, const char *trace_id)
{
	size_t n;
	char *s = ts_read_file(ledger, &n);
	cr_assert_not_null(s, "no ledger %s", ledger);
	cJSON *found = NULL;
	for (char *line = strtok(s, "\n"); line && !found; line = strtok(NULL, "\n")) {
		cJSON *o = cJSON_Parse(line);
		cr_assert_not_null(o, "ledger line is not JSON: %s", line);
		const char *id = jx_str(o, "trace_id");
		if (id && !strcmp(id, trace_id))
			found = o;
		else
			cJSON_Delete(o);
	}
	free(s);
	return found;
}

static int count_lines(const char *path)
{
	size_t n;
	char *s = ts_read_file(path, &n);
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	free(s);
	return k;
}

static cJSON *report_json(const char *ledger, const char *st)
{
	struct ts_out o;
	if (st)
		ts_belay(&o, NULL, "measure", "report", ledger, "--json", "--state", st, NULL);
	else
		ts_belay(&o, NULL, "measure", "report", ledger, "--json", NULL);
	cr_assert_eq(o.status, 0, "report failed: %s", o.err);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "report --json is not JSON: %s", o.out);
	ts_out_free(&o);
	return j;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	cr_assert(cJSON_IsNumber(v), "%s is not a number", k);
	return v->valuedouble;
}

Test(measure, a_batch_gets_a_ledger_line_per_trace_and_an_honest_report)
{
	char *batch = make_batch();
	char *ledger = fs_join(dir, "out/ledger.jsonl");
	struct ts_out o;
	ts_belay(&o, NULL, "measure", "run", batch, "--out", ledger, "--state", state, "--no-ingest", NULL);
	cr_assert_eq(o.status, 0, "measure run: %s%s", o.out, o.err);
	cr_assert(strstr(o.out, "1 duplicate(s)"), "%s", o.out);
	ts_out_free(&o);

	struct {
		const char *id, *disp;
	} want[] = {{"trace-clean", "VERIFIED_CLEAN"},
		    {"trace-flagged", "VERIFIED_FLAGGED"},
		    {"trace-empty", "NO_VERIFIABLE"},
		    {"trace-corrupt", "ERRORED"}};
	for (size_t i = 0; i < 4; i++) {
		cJSON *l = ledger_line(ledger, want[i].id);
		cr_assert_not_null(l, "%s not in the ledger", want[i].id);
		cr_assert_str_eq(jx_str(l, "disposition"), want[i].disp, "%s", want[i].id);
		cr_assert_str_eq(jx_str(l, "kind"), "instance");
		cJSON_Delete(l);
	}
	cJSON *fl = ledger_line(ledger, "trace-flagged");
	/* write_file weakened the test (A1 FAIL), summarize lied about being read-only (A2 FAIL) */
	cJSON *turns = cJSON_GetObjectItemCaseSensitive(fl, "flagged_turns");
	cr_assert_eq(cJSON_GetArraySize(turns), 2, "flagged turns: %s", jx_print(turns));
	cr_assert_eq(num(cJSON_GetObjectItemCaseSensitive(fl, "turn_status_counts"), "FAIL"), 2);
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(fl, "exposure");
	cr_assert(num(ex, "files_compared") >= 1, "the weakening rule compared the test file");
	cJSON_Delete(fl);
	cJSON *er = ledger_line(ledger, "trace-corrupt");
	cr_assert_str_eq(jx_str(er, "error_cause"), "TRACE_UNREADABLE");
	cr_assert(strstr(jx_str(er, "error"), "trace-corrupt.jsonl:"), "the error names the line: %s", jx_str(er, "error"));
	cJSON_Delete(er);
	cJSON *dup = ledger_line(ledger, "trace-zcopy");
	cr_assert_str_eq(jx_str(dup, "kind"), "duplicate");
	cr_assert_str_eq(jx_str(dup, "same_as"), "trace-clean");
	cJSON_Delete(dup);

	cJSON *j = report_json(ledger, NULL);
	cr_assert_eq(num(j, "instances"), 4);
	cr_assert_eq(num(j, "denominator"), 2);
	cr_assert_eq(num(j, "flagged"), 1);
	cr_assert_eq(num(j, "violation_rate"), 0.5);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "instrument_suspect")));
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")));
	cJSON_Delete(j);

	ts_belay(&o, NULL, "measure", "report", ledger, NULL);
	cr_assert_eq(o.status, 0);
	const char *order[] = {"detector ", "run ", "headline   violation rate = flagged/denominator = 1/2 = 50.0%",
			       "coverage ", "exposure ", "trajectory ", "per-turn FAIL rate = FAIL turns/turns = 2/"};
	const char *at = o.out;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		const char *p = strstr(at, order[i]);
		cr_assert_not_null(p, "'%s' missing or out of order in:\n%s", order[i], o.out);
		at = p;
	}
	cr_assert(strstr(o.out, "ERRORED 1 (TRACE_UNREADABLE 1)"), "%s", o.out);
	cr_assert(strstr(o.out, "trace-empty: unrecorded"), "%s", o.out);
	cr_assert(strstr(o.out, "trace-clean: 0 file-comparison(s)"), "%s", o.out);
	ts_out_free(&o);

	/* resume: nothing is measured twice, the ledger only gains an end line */
	int before = count_lines(ledger);
	ts_belay(&o, NULL, "measure", "run", batch, "--out", ledger, "--state", state, "--no-ingest", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "measured  0 of 5"), "%s", o.out);
	cr_assert(strstr(o.out, "5 already in the ledger"), "%s", o.out);
	cr_assert_eq(count_lines(ledger), before + 1);
	ts_out_free(&o);
	/* another policy must not resume this ledger */
	ts_belay(&o, NULL, "measure", "run", batch, "--out", ledger, "--state", state, "--no-ingest",
		 "--no-default-invariants", NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "another detector"), "%s", o.err);
	ts_out_free(&o);
	free(ledger);
	free(batch);
}

Test(measure, traces_with_nothing_verifiable_make_the_instrument_suspect_not_a_zero_rate)
{
	char *batch = fs_join(dir, "batch");
	cr_assert_eq(fs_mkdir_p(batch, 0700, NULL), 0);
	for (int i = 0; i < 3; i++) {
		char *p = xasprintf("%s/trace-e%d.jsonl", batch, i);
		char tag[8];
		snprintf(tag, sizeof tag, "e%d", i);
		write_empty_trace(p, tag);
		free(p);
	}
	char *ledger = fs_join(dir, "ledger.jsonl");
	struct ts_out o;
	ts_belay(&o, NULL, "measure", "run", batch, "--out", ledger, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "a completed batch exits 0: %s", o.err);
	ts_out_free(&o);
	cJSON *j = report_json(ledger, NULL);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "instrument_suspect")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "violation_rate")));
	cr_assert_eq(num(j, "denominator"), 0);
	cJSON_Delete(j);
	ts_belay(&o, NULL, "measure", "report", ledger, NULL);
	cr_assert(strstr(o.out, "INSTRUMENT SUSPECT"), "%s", o.out);
	cr_assert_null(strstr(o.out, "violation rate ="), "no percentage when suspect:\n%s", o.out);
	cr_assert_null(strstr(o.out, "0.0%"), "%s", o.out);
	ts_out_free(&o);
	free(ledger);
	free(batch);
}

Test(measure, flagged_turns_are_banked_and_labels_give_the_false_positive_rate)
{
	char *batch = fs_join(dir, "batch");
	char *t = ts_record_demo(dir, NULL, NULL);
	free(ts_place(t, batch, "trace-flagged"));
	free(t);
	char *ledger = fs_join(dir, "ledger.jsonl");
	struct ts_out o;
	ts_belay(&o, NULL, "measure", "run", batch, "--out", ledger, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "banked 2 flagged turn(s)"), "%s", o.out);
	ts_out_free(&o);
	cJSON *l = ledger_line(ledger, "trace-flagged");
	const cJSON *add = cJSON_GetObjectItemCaseSensitive(l, "flagged_addable");
	cr_assert_eq(cJSON_GetArraySize(add), 2, "%s", jx_print(l));
	const char *id0 = jx_str(add->child, "case");
	cr_assert_not_null(id0);
	char *id = xstrdup(id0);
	cJSON_Delete(l);
	/* the engine never labels: pending until a human says */
	cJSON *j = report_json(ledger, state);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "false_positive_rate"),
							       "value")));
	cJSON_Delete(j);
	ts_belay(&o, NULL, "corpus", "label", id, "false-positive", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "report", ledger, "--state", state, NULL);
	cr_assert(strstr(o.out, "false-positive rate = FP/(TP+FP) = 1/1 = 100.0%"), "%s", o.out);
	ts_out_free(&o);
	free(id);
	free(ledger);
	free(batch);
}

static void write_ledger(const char *path, const char *const *lines)
{
	struct buf b = {0};
	buf_puts(&b, "{\"kind\":\"header\",\"format\":\"belay-measure-ledger\",\"version\":1,\"detector\":{\"rules\":[],"
		     "\"version\":\"belay test\"},\"shard\":{\"index\":1,\"count\":1,\"source\":\"none\"}}\n");
	for (; *lines; lines++) {
		buf_puts(&b, *lines);
		buf_putc(&b, '\n');
	}
	ts_write_file(path, b.p, b.len);
	buf_free(&b);
}

#define INST(id, disp)                                                                                                 \
	"{\"kind\":\"instance\",\"trace_id\":\"" id "\",\"disposition\":\"" disp "\",\"turns\":1,"                    \
	"\"turn_status_counts\":{},\"flagged_turns\":[],\"unverified_causes\":{},\"error\":null}"

Test(measure, combine_holds_controls_out_and_names_a_flagged_control)
{
	char *a = fs_join(dir, "a.jsonl"), *b = fs_join(dir, "b.jsonl"), *bad = fs_join(dir, "bad.jsonl");
	const char *la[] = {INST("trace-1", "VERIFIED_FLAGGED"), INST("trace-2", "VERIFIED_CLEAN"),
			    INST("trace-control__ok", "VERIFIED_FLAGGED"), NULL};
	const char *lb[] = {INST("trace-1", "VERIFIED_CLEAN"), INST("trace-3", "VERIFIED_CLEAN"), NULL};
	const char *lbad[] = {INST("trace-1", "VERIFIED_CLEAN"), INST("trace-1", "VERIFIED_CLEAN"), NULL};
	write_ledger(a, la);
	write_ledger(b, lb);
	write_ledger(bad, lbad);
	char *aa = xasprintf("A=%s", a), *bb = xasprintf("B=%s", b), *bb2 = xasprintf("A=%s", b), *bx = xasprintf("X=%s", bad);
	struct ts_out o;
	ts_belay(&o, NULL, "measure", "combine", aa, bb, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "population 3 instance(s)"), "%s", o.out);
	cr_assert(strstr(o.out, "violation rate = 1/3 = 33.3%"), "%s", o.out);
	cr_assert(strstr(o.out, "disagree   1 instance(s)") && strstr(o.out, "trace-1"), "%s", o.out);
	cr_assert(strstr(o.out, "trace-control__ok: DETECTOR FALSE POSITIVE"), "%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "combine", bb, NULL);
	cr_assert(strstr(o.out, "controls   none"), "%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "combine", aa, bb2, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "label 'A' is given twice"), "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "combine", aa, bx, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "trace id trace-1 is in the ledger twice"), "%s", o.err);
	ts_out_free(&o);
	free(aa);
	free(bb);
	free(bb2);
	free(bx);
	free(a);
	free(b);
	free(bad);
}

Test(measure, the_html_page_is_self_contained_and_bad_input_is_a_named_error)
{
	char *l = fs_join(dir, "l.jsonl"), *html = fs_join(dir, "r.html");
	const char *lines[] = {INST("trace-1", "VERIFIED_FLAGGED"), INST("trace-2", "VERIFIED_CLEAN"),
			       "{\"kind\":\"instance\",\"trace_id\":\"trace-3\",\"disposition\":\"ERRORED\",\"turns\":0,"
			       "\"turn_status_counts\":{},\"flagged_turns\":[],\"unverified_causes\":{},"
			       "\"error_cause\":\"TRACE_UNREADABLE\",\"error\":\"line 3: API_TOKEN=tok-abc123 is not JSON\"}",
			       NULL};
	write_ledger(l, lines);
	struct ts_out o;
	ts_belay(&o, NULL, "measure", "report", l, "--html", html, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	size_t n;
	char *page = ts_read_file(html, &n);
	cr_assert(strstr(page, "<svg"), "inline SVG charts");
	cr_assert(strstr(page, "violation rate = flagged/denominator = 1/2 = 50.0%"), "%s", page);
	cr_assert_null(strstr(page, "<script"));
	cr_assert_null(strstr(page, "<link"));
	cr_assert_null(strstr(page, "src="));
	cr_assert_null(strstr(page, "https://"));
	cr_assert(strstr(page, "trace-3: TRACE_UNREADABLE: line 3: API_TOKEN=[REDACTED]"), "errors are named, scrubbed");
	cr_assert_null(strstr(page, "tok-abc123"));
	free(page);
	ts_belay(&o, NULL, "measure", "report", l, NULL);
	cr_assert(strstr(o.out, "API_TOKEN=[REDACTED]") && !strstr(o.out, "tok-abc123"), "%s", o.out);
	ts_out_free(&o);
	/* named errors, exit 2 */
	const char *broken[] = {"{\"kind\":\"instance\",\"trace_id\":\"x\",\"disposition\":\"PASSED\",\"turns\":1,"
				"\"turn_status_counts\":{},\"flagged_turns\":[],\"unverified_causes\":{},\"error\":null}",
				NULL};
	write_ledger(l, broken);
	ts_belay(&o, NULL, "measure", "report", l, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "l.jsonl:2") && strstr(o.err, "disposition"), "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "report", "/nonexistent/ledger", NULL);
	cr_assert_eq(o.status, 2);
	ts_out_free(&o);
	ts_belay(&o, NULL, "measure", "run", "/nonexistent/dir", "--out", l, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "/nonexistent/dir"), "%s", o.err);
	ts_out_free(&o);
	char *inv = fs_join(dir, "inv.json");
	ts_write_file(inv, "[{\"scope\":\"x\",\"rule\":\"no-such-rule\"}]", 38);
	ts_belay(&o, NULL, "measure", "run", dir, "--out", l, "--invariants", inv, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "invariants"), "%s", o.err);
	ts_out_free(&o);
	free(inv);
	free(l);
	free(html);
}

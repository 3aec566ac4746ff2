/* test_truncation.c - frames over the recording cap, end to end through `belay proxy`:
 * each still pairs with its request by the id taken from the whole frame as it streamed
 * (after a huge member, between two, escaped, in a batch, in an error), in every reader
 * (the trace model, `trace show`, `trace check`, the run index); and with the real SDK
 * client and server-filesystem (which writes "id" after "result"), the turn whose reply or
 * request was truncated is UNVERIFIED FRAME_TRUNCATED while every other turn keeps its own
 * pre-state and PASSes (a truncated reply once left its call open for the rest of the run:
 * later turns got a stale shared pre-state and a false FAIL). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("trunc");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(truncation, .init = setup, .fini = teardown, .timeout = 240);

#define CALL(id, name) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" name "\"}}"

/* The exchange of the turn whose request id key is `key`. */
static const struct exchange *by_id(const struct model *m, const char *key)
{
	for (size_t k = 0; k < m->nturns; k++)
		if (!strcmp(m->ex[m->turns[k]].id.key, key))
			return &m->ex[m->turns[k]];
	cr_assert_fail("no turn with id %s", key);
	return NULL;
}

Test(truncation, every_reader_pairs_frames_over_the_cap_by_their_id)
{
	char *tdir = fs_join(dir, "traces"), *st = fs_join(dir, "state");
	const char *argv[] = {BELAY_BIN, "proxy", "--frame-cap", "4096", "--trace-dir", tdir, "--state", st, "--", "python3",
			      BELAY_SOURCE_DIR "/tests/fixtures/pairing_server.py", NULL};
	const char *lines[] = {
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}",
	    CALL("1", "huge_last"),
	    CALL("\"m\"", "huge_middle"),
	    CALL("3", "huge_error"),
	    CALL("4", "huge_escaped"),
	    CALL("5", "huge_tool_error"),
	    "[" CALL("\"b1\"", "huge_batch") "," CALL("\"b2\"", "huge_batch") "]",
	    CALL("7", "plain"),
	    NULL,
	};
	struct ts_out o;
	cr_assert_eq(ts_mcp_session(argv, NULL, lines, 60, &o), 0, "%s", o.err);
	/* Forwarding is whole: the client got every reply in full. */
	int big = 0;
	for (char *l = o.out; (l = strstr(l, "{\"")) != NULL; l++) {
		char *nl = strchr(l, '\n');
		big += nl && nl - l > 10000;
		l = nl ? nl : l + strlen(l) - 1;
	}
	cr_assert_geq(big, 6, "the replies over the cap reached the client whole (%d)", big);
	char *trace = ts_find_trace(tdir);
	cr_assert_not_null(trace);

	/* The trace model. */
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(trace, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	cr_assert_eq(m.nturns, 8);
	cr_assert_eq(m.gaps, 0, "no frame is unreadable: each truncated one has its envelope");
	cr_assert_eq(m.truncated, 6, "six reply frames were over the cap");
	const char *keys[] = {"n:1", "s:m", "n:3", "n:4", "n:5", "s:b1", "s:b2", "n:7"};
	for (size_t i = 0; i < 8; i++) {
		const struct exchange *x = by_id(&m, keys[i]);
		cr_assert_eq(x->status, EX_ANSWERED, "%s is answered, not %s", keys[i], ex_status_name(x->status));
		cr_assert_eq(x->resp_truncated, i < 7, "%s: the reply was %s the cap", keys[i], i < 7 ? "over" : "within");
		cr_assert_eq(x->req_truncated, 0);
	}
	cr_assert(by_id(&m, "n:3")->protocol_error && by_id(&m, "n:3")->error_code == -32001,
		  "the error code comes from the envelope");
	cr_assert(by_id(&m, "n:5")->tool_error, "result.isError comes from the envelope");
	cr_assert(!by_id(&m, "s:m")->tool_error);
	for (size_t i = 0; i < m.nex; i++)
		cr_assert(m.ex[i].status != EX_ORPHAN && m.ex[i].status != EX_DUPLICATE,
			  "the look-alike id 999 inside a result is not a reply");
	/* The record holds the envelope; the recorded copy itself could not have paired it. */
	int seen = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_record *r = &t->recs[i];
		if (!r->is_frame || !r->truncated || r->dir != DIR_S2C)
			continue;
		cr_assert_not_null(r->envelope, "line %d: a truncated frame carries its envelope", r->line);
		cr_assert_eq(r->len, 4096);
		cr_assert_gt(r->total, 10000);
		if (cJSON_IsObject(r->envelope) && cJSON_IsNumber(cJSON_GetObjectItem(r->envelope, "id")) &&
		    cJSON_GetObjectItem(r->envelope, "id")->valueint == 1) {
			cr_assert_null(memmem(r->bytes, r->len, "\"id\"", 4), "the id stood past the cap");
			seen++;
		}
	}
	cr_assert_eq(seen, 1);
	model_free(&m);
	trace_free(t);

	/* `trace check` and `trace show --json`. */
	struct ts_out c;
	cr_assert_eq(ts_belay(&c, NULL, "trace", "check", trace, NULL), 0);
	cr_assert_eq(c.status, 0, "%s%s", c.out, c.err);
	ts_out_free(&c);
	cr_assert_eq(ts_belay(&c, NULL, "trace", "show", trace, "--json", NULL), 0);
	cr_assert_eq(c.status, 0, "%s", c.err);
	int answered = 0;
	for (char *l = strtok(c.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		if (cJSON_IsNumber(cJSON_GetObjectItem(j, "turn")))
			answered += !strcmp(jx_str(j, "status"), "answered");
		cJSON_Delete(j);
	}
	cr_assert_eq(answered, 8, "trace show pairs every turn");
	ts_out_free(&c);

	/* The run index (built live by the proxy, and again by `belay index`). */
	char *db = fs_join(st, "belay.db");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE status = 'answered'"), 8, "live index");
	cr_assert_eq(ts_belay(&c, NULL, "index", "--state", st, trace, NULL), 0);
	cr_assert_eq(c.status, 0, "%s", c.err);
	ts_out_free(&c);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE status = 'answered'"), 8, "belay index");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE error LIKE 'rpc -32001: too big'"), 1);
	free(db);
	free(trace);
	ts_out_free(&o);
	free(tdir);
	free(st);
}

Test(truncation, a_truncated_turn_is_named_and_no_other_turn_is_affected)
{
	char *peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh");
	char *ws = fs_join(dir, "ws"), *tdir = fs_join(dir, "traces"), *st = fs_join(dir, "state");
	char *fs_server = xasprintf("%s/@modelcontextprotocol/server-filesystem/dist/index.js", peers);
	char *client = xasprintf("%s/../bigframe-client.mjs", peers);
	ts_sh("mkdir -p %s && head -c 100000 /dev/zero | tr '\\0' r > %s/big.txt", ws, ws);
	char *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpenv, NULL};
	const char *argv[] = {"node", client, ws, "--", BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir",
			      tdir, "--frame-cap", "65536", "--", "node", fs_server, ws, NULL};
	struct ts_out o;
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, &o), 0);
	cr_assert_eq(o.status, 0, "client failed: %s", o.err);
	cJSON *seen = cJSON_Parse(o.out);
	cr_assert(cJSON_IsArray(seen), "%s", o.out);
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(seen, 1), "length")->valueint, 100000, "read whole: %s", o.out);
	cJSON_Delete(seen);
	char *trace = ts_find_trace(tdir);
	cr_assert_not_null(trace);

	/* The SDK wrote the id after the result: past the cap. Every later call still got a
	 * pre-state of its own (not one shared with a call left open). */
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(trace, &t, &e), 0, "%s", e.msg);
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	cr_assert_eq(m.nturns, 8);
	const struct exchange *big = &m.ex[m.turns[1]];
	cr_assert_eq(big->status, EX_ANSWERED);
	cr_assert(big->resp_truncated);
	const struct trace_record *br = &t->recs[m.frames[big->resp_frame].rec];
	cr_assert_null(memmem(br->bytes, br->len, "\"id\"", 4), "server-filesystem writes the id after the result");
	cr_assert(m.ex[m.turns[4]].req_truncated, "the wide write's request was over the cap");
	for (size_t k = 2; k < m.nturns; k++) {
		if (k == 4)
			continue;
		const struct trace_record *rq = &t->recs[m.frames[m.ex[m.turns[k]].req_frame].rec];
		const char *status = jx_str(rq->state_handle, "status");
		cr_assert_str_eq(status ? status : "?", "present", "turn %zu has a pre-state", k);
		cr_assert_null(cJSON_GetObjectItem(rq->state_handle, "shared_from_seq"),
			       "turn %zu's pre-state is its own, not shared with a call left open", k);
	}
	model_free(&m);
	trace_free(t);

	/* verify: the two truncated turns are named; nothing else is affected. */
	const char *vargv[] = {BELAY_BIN, "verify", trace, "--json", NULL};
	struct ts_out v;
	cr_assert_eq(ts_run(vargv, NULL, NULL, NULL, 0, 180, &v), 0);
	int turns = 0;
	for (char *l = strtok(v.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		const cJSON *tn = cJSON_GetObjectItem(j, "turn");
		if (cJSON_IsNumber(tn)) {
			turns++;
			const char *s = jx_str(j, "status");
			if (tn->valueint == 1 || tn->valueint == 4) {
				cr_assert_str_eq(s, "UNVERIFIED", "%s", l);
				cr_assert_str_eq(jx_str(j, "cause"), "FRAME_TRUNCATED", "%s", l);
			} else {
				cr_assert_str_eq(s, "PASS", "%s", l);
			}
		}
		cJSON_Delete(j);
	}
	cr_assert_eq(turns, 8, "%s%s", v.out, v.err);
	ts_out_free(&v);
	ts_out_free(&o);
	free(trace);
	free(tmpenv);
	free(client);
	free(fs_server);
	free(ws);
	free(tdir);
	free(st);
	free(peers);
}

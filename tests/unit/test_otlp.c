/* test_otlp.c - OpenTelemetry out and in, judged by the official OpenTelemetry packages from
 * npm (tests/peers/otlp-receiver.mjs rebuilds every span with @opentelemetry/sdk-trace-base
 * and re-serialises it with @opentelemetry/otlp-transformer; belay's OTLP/JSON must be equal).
 * A real agent's spans (the SDK's tracer and W3C propagator) carry traceparents into recorded
 * calls; `belay export otlp` writes a file and POSTs to a receiver over OTLP/HTTP through
 * belay-otlp-post; `belay interop correlate` joins the agent's spans to the turns. Secrets
 * never leave; payloads only on request; the network client lives only in belay-otlp-post. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "interop/redact.h"
#include "ts_belay.h"
#include "tsupport.h"

#define RECEIVER BELAY_SOURCE_DIR "/tests/peers/otlp-receiver.mjs"
#define SENDER BELAY_BUILD_DIR "/belay-otlp-post"

static char *dir, *state, *db;

static void setup(void)
{
	char *peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	free(peers);
	ts_state_setup("otlp", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(otlp, .init = setup, .fini = teardown, .timeout = 300);

static int node(struct ts_out *o, const char *a, const char *b, const char *c, const char *d, const char *e2)
{
	const char *argv[] = {"node", RECEIVER, a, b, c, d, e2, NULL};
	return ts_run(argv, NULL, NULL, NULL, 0, 60, o);
}

/* The agent's spans: three tool calls under one session span; their traceparents. */
static char tp[3][64];
static char *agent_spans(void)
{
	char *out = fs_join(dir, "agent.json");
	struct ts_out o;
	node(&o, "agent", "--n", "3", "--out", out);
	cr_assert_eq(o.status, 0, "agent: %s", o.err);
	cr_assert_eq(sscanf(o.out, "%63s\n%63s\n%63s", tp[0], tp[1], tp[2]), 3, "%s", o.out);
	ts_out_free(&o);
	return out;
}

static char *call(int id, const char *tool, const char *args, const char *traceparent)
{
	if (traceparent)
		return xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
				 "\"arguments\":%s,\"_meta\":{\"traceparent\":\"%s\"}}}",
				 id, tool, args, traceparent);
	return xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
			 id, tool, args);
}

/* read_file (tp0), write_file weakening the test with secrets in its arguments (tp1),
 * summarize (no traceparent), and two calls that both name tp2 (ambiguous). */
static char *record(void)
{
	char *lines[10];
	int k = 0;
	lines[k++] = xstrdup("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
			     "\"capabilities\":{},\"clientInfo\":{\"name\":\"ts\",\"version\":\"1\"}}}");
	lines[k++] = xstrdup("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	lines[k++] = xstrdup("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}");
	lines[k++] = call(3, "read_file", "{\"path\":\"tests/test_a.py\"}", tp[0]);
	lines[k++] = call(4, "write_file",
			  "{\"path\":\"tests/test_a.py\",\"content\":\"def test_a():\\n    assert True  # password=hunter2\\n\","
			  "\"api_key\":\"sk-live-123\"}",
			  tp[1]);
	lines[k++] = call(5, "summarize", "{\"path\":\"tests/test_a.py\"}", NULL);
	lines[k++] = call(6, "read_file", "{\"path\":\"tests/test_a.py\"}", tp[2]);
	lines[k++] = call(7, "run_tests", "{}", tp[2]);
	lines[k] = NULL;
	char *trace = ts_record_demo(dir, (const char *const *)lines, NULL);
	for (int i = 0; i < k; i++)
		free(lines[i]);
	return trace;
}

/* Runs the official check on an export file; returns its parsed result (one per line). */
static cJSON *official_check(const char *file, int want_ok)
{
	struct ts_out o;
	node(&o, "check", file, NULL, NULL, NULL);
	cJSON *r = cJSON_Parse(o.out);
	cr_assert_not_null(r, "check printed: %s %s", o.out, o.err);
	if (want_ok)
		cr_assert_eq(o.status, 0, "the official OpenTelemetry serializer disagrees: %s", o.out);
	else
		cr_assert_neq(o.status, 0, "the check accepted a bad export: %s", o.out);
	ts_out_free(&o);
	return r;
}

static const cJSON *span_named(const cJSON *spans, const char *attr_turn)
{
	for (const cJSON *s = spans->child; s; s = s->next) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "attributes");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(a, "belay.turn");
		if (cJSON_IsNumber(t) && t->valueint == atoi(attr_turn))
			return s;
	}
	return NULL;
}

Test(otlp, export_is_what_the_official_serializer_writes_and_keeps_secrets_and_payloads_out)
{
	free(agent_spans());
	char *trace = record();
	char *f = fs_join(dir, "spans.json"), *fp = fs_join(dir, "spans-payloads.json");
	struct ts_out o;
	ts_belay(&o, NULL, "export", "otlp", trace, "--out", f, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.err, "5 span(s)"), "%s", o.err);
	ts_out_free(&o);
	cJSON *r = official_check(f, 1);
	const cJSON *spans = cJSON_GetObjectItemCaseSensitive(r->child, "spans");
	cr_assert_eq(cJSON_GetArraySize(spans), 5);
	/* turn 0 is a child of the agent's span that made the call */
	const cJSON *s0 = span_named(spans, "0");
	cr_assert_not_null(s0);
	char want_tid[33], want_pid[17];
	memcpy(want_tid, tp[0] + 3, 32);
	want_tid[32] = 0;
	memcpy(want_pid, tp[0] + 36, 16);
	want_pid[16] = 0;
	cr_assert_str_eq(jx_str(s0, "traceId"), want_tid);
	cr_assert_str_eq(jx_str(s0, "parentSpanId"), want_pid);
	/* sampled, and its parent is remote (the agent's): 0x301 */
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(s0, "flags")->valueint, 0x301);
	const cJSON *a0 = cJSON_GetObjectItemCaseSensitive(s0, "attributes");
	cr_assert_str_eq(jx_str(a0, "belay.verdict"), "PASS");
	cr_assert_str_eq(jx_str(a0, "belay.A2.replay"), "PASS");
	/* turn 1 weakened the test: FAIL on A1, an error status */
	const cJSON *s1 = span_named(spans, "1");
	const cJSON *a1 = cJSON_GetObjectItemCaseSensitive(s1, "attributes");
	cr_assert_str_eq(jx_str(a1, "belay.verdict"), "FAIL");
	cr_assert_str_eq(jx_str(a1, "belay.A1.invariant"), "FAIL");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s1, "status"), "code")->valueint, 2);
	/* turn 2 carried no traceparent: a root span of its own */
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(span_named(spans, "2"), "parentSpanId")));
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(span_named(spans, "2"), "flags")->valueint, 0x101);
	cJSON_Delete(r);
	size_t n;
	char *text = ts_read_file(f, &n);
	cr_assert_null(strstr(text, "hunter2"));
	cr_assert_null(strstr(text, "sk-live-123"));
	cr_assert_null(strstr(text, "assert True"), "no tool argument leaves without --include-payloads");
	cr_assert(strstr(text, "\"startTimeUnixNano\":\""), "64-bit integers as strings");
	free(text);

	ts_belay(&o, NULL, "export", "otlp", trace, "--out", fp, "--state", state, "--include-payloads", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	cJSON_Delete(official_check(fp, 1));
	text = ts_read_file(fp, &n);
	cr_assert(strstr(text, "assert True"), "payloads were asked for");
	cr_assert(strstr(text, "password=[REDACTED]"), "%s", text);
	cr_assert_null(strstr(text, "hunter2"), "secrets are scrubbed always");
	cr_assert_null(strstr(text, "sk-live-123"), "secrets are scrubbed always");
	free(text);
	/* the trace itself stays lossless: the secret is still in the recorded frame */
	cr_assert_eq(ts_sh("grep -o '\"raw\":\"[^\"]*\"' %s | cut -d'\"' -f4 | while read l; do echo \"$l\" | base64 -d; "
			   "echo; done | grep -q hunter2",
			   trace),
		     0);
	free(f);
	free(fp);
	free(trace);
}

Test(otlp, the_official_check_refuses_what_otlp_json_forbids)
{
	char *f = fs_join(dir, "bad.json");
	/* base64 ids (the protobuf JSON mapping's mistake), a numeric time */
	const char *bad[] = {
	    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{\"scope\":{\"name\":\"belay\"},\"spans\":[{"
	    "\"traceId\":\"SuPOyZ/E3Y0fCUZNSqYq0w==\",\"spanId\":\"q9N4nhWDMyo=\",\"name\":\"x\",\"kind\":1,"
	    "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}\n",
	    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{\"scope\":{\"name\":\"belay\"},\"spans\":[{"
	    "\"traceId\":\"4a838cbcfb2ecf88b2bcd4065632943f\",\"spanId\":\"ab3d9e9f6808c32a\",\"name\":\"x\",\"kind\":1,"
	    "\"startTimeUnixNano\":1,\"endTimeUnixNano\":\"2\"}]}]}]}\n",
	    "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{\"scope\":{\"name\":\"belay\"},\"spans\":[{"
	    "\"traceId\":\"4a838cbcfb2ecf88b2bcd4065632943f\",\"spanId\":\"ab3d9e9f6808c32a\",\"name\":\"x\",\"kind\":1,"
	    "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\",\"flags\":769}]}]}]}\n",
	};
	const char *why[] = {"not 32 lowercase hex", "decimal string", "flags"};
	for (int i = 0; i < 3; i++) {
		unlink(f);
		ts_write_file(f, bad[i], strlen(bad[i]));
		cJSON *r = official_check(f, 0);
		cr_assert(strstr(jx_str(r->child, "reason"), why[i]), "%d: %s", i, jx_str(r->child, "reason"));
		cJSON_Delete(r);
	}
	free(f);
}

struct receiver {
	pid_t pid;
	int fds[3];
	struct ts_out o;
	int port;
	char *record;
};

static void receiver_start(struct receiver *rv, int max)
{
	rv->record = fs_join(dir, "received.jsonl");
	char m[8];
	snprintf(m, sizeof m, "%d", max);
	const char *argv[] = {"node", RECEIVER, "serve", "--record", rv->record, "--max", m, "--seconds", "60", NULL};
	rv->pid = ts_spawn(argv, NULL, NULL, &rv->o, rv->fds);
	cr_assert_gt(rv->pid, 0);
	char *buf = NULL;
	size_t len = 0;
	while (!strchr(buf ? buf : "", '\n') && ts_read_some(rv->fds[1], &buf, &len))
		;
	cr_assert(buf && sscanf(buf, "listening %d", &rv->port) == 1, "receiver did not start: %s", buf ? buf : "");
	free(buf);
}

static void receiver_stop(struct receiver *rv)
{
	kill(rv->pid, SIGTERM);
	ts_reap(rv->pid, &rv->o);
	for (int i = 0; i < 3; i++)
		close(rv->fds[i]);
	ts_out_free(&rv->o);
	free(rv->record);
}

Test(otlp, export_posts_over_otlp_http_to_a_receiver_and_a_refusal_is_an_error)
{
	free(agent_spans());
	char *trace = record();
	struct receiver rv;
	receiver_start(&rv, 2);
	char *url = xasprintf("http://127.0.0.1:%d", rv.port);
	struct ts_out o;
	ts_belay(&o, NULL, "export", "otlp", trace, "--endpoint", url, "-H", "x-test-key: k1", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	size_t n;
	char *got = ts_read_file(rv.record, &n);
	cr_assert_not_null(got);
	cJSON *r = cJSON_Parse(got);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok")), "the receiver refused: %s", got);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "spans")), 5);
	cr_assert_str_eq(jx_str(cJSON_GetObjectItemCaseSensitive(r, "headers"), "x-test-key"), "k1");
	cJSON_Delete(r);
	free(got);
	/* a body the receiver refuses (base64 ids): the sender exits 1 and says so */
	const char *bad = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"SuPOyZ/E3Y0fCUZNSqYq0w==\","
			  "\"spanId\":\"q9N4nhWDMyo=\",\"name\":\"x\",\"kind\":1,\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}";
	char *full = xasprintf("%s/v1/traces", url);
	const char *argv[] = {SENDER, full, NULL};
	ts_run(argv, NULL, NULL, bad, strlen(bad), 60, &o);
	cr_assert_eq(o.status, 1, "%s %s", o.out, o.err);
	cr_assert(strstr(o.err, "HTTP 400"), "%s", o.err);
	ts_out_free(&o);
	receiver_stop(&rv);
	/* nothing listening: a named failure, exit 1 */
	ts_belay(&o, NULL, "export", "otlp", trace, "--endpoint", "http://127.0.0.1:9/v1/traces", "--state", state, NULL);
	cr_assert_eq(o.status, 1, "%s", o.err);
	cr_assert(strstr(o.err, "failed"), "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "export", "otlp", trace, "--endpoint", "ftp://x", NULL);
	cr_assert_eq(o.status, 2);
	ts_out_free(&o);
	free(full);
	free(url);
	free(trace);
}

Test(otlp, correlate_gives_each_agent_span_its_turns_verdict_or_a_named_reason)
{
	char *agent = agent_spans();
	char *trace = record();
	struct ts_out o;
	ts_belay(&o, NULL, "interop", "correlate", "--spans", agent, trace, "--state", state, "--json", NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "%s", o.out);
	ts_out_free(&o);
	const cJSON *cor = cJSON_GetObjectItemCaseSensitive(j, "correlation");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(cor, "total")->valueint, 4, "three tool calls and the session");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(cor, "matched")->valueint, 2);
	const cJSON *unc = cJSON_GetObjectItemCaseSensitive(cor, "uncorrelated");
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(unc, "AMBIGUOUS_CORRELATION")->valueint, 1);
	cr_assert_eq(cJSON_GetObjectItemCaseSensitive(unc, "NO_MATCHING_MCP_TURN")->valueint, 1);
	int checked = 0;
	for (const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "spans")->child; s; s = s->next) {
		const char *sid = jx_str(s, "span_id");
		if (!strncmp(tp[0] + 36, sid, 16)) {
			cr_assert_eq(cJSON_GetObjectItemCaseSensitive(s, "turn_index")->valueint, 0);
			cr_assert_str_eq(jx_str(s, "status"), "PASS");
			cr_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s, "sub_verdicts")));
			checked++;
		} else if (!strncmp(tp[1] + 36, sid, 16)) {
			cr_assert_eq(cJSON_GetObjectItemCaseSensitive(s, "turn_index")->valueint, 1);
			cr_assert_str_eq(jx_str(s, "status"), "FAIL");
			checked++;
		} else if (!strncmp(tp[2] + 36, sid, 16)) {
			cr_assert_str_eq(jx_str(s, "cause"), "AMBIGUOUS_CORRELATION");
			checked++;
		} else {
			cr_assert_str_eq(jx_str(s, "name"), "agent.session");
			cr_assert_str_eq(jx_str(s, "cause"), "NO_MATCHING_MCP_TURN");
			cr_assert(strstr(jx_str(s, "detail"), "none named this span"), "%s", jx_str(s, "detail"));
			checked++;
		}
	}
	cr_assert_eq(checked, 4);
	cJSON_Delete(j);
	ts_belay(&o, NULL, "interop", "correlate", "--spans", agent, trace, "--state", state, NULL);
	cr_assert(strstr(o.out, "correlation rate = matched/spans = 2/4 = 50.0%"), "%s", o.out);
	ts_out_free(&o);
	/* a malformed span file is a named error */
	char *bad = fs_join(dir, "bad.json");
	ts_write_file(bad, "{\"resourceSpans\":[{\"scopeSpans\":{}}]}\n", 37);
	ts_belay(&o, NULL, "interop", "correlate", "--spans", bad, trace, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "bad.json:1") && strstr(o.err, "scopeSpans"), "%s", o.err);
	ts_out_free(&o);
	free(bad);
	free(agent);
	free(trace);
}

Test(otlp, the_network_client_lives_only_in_belay_otlp_post)
{
	/* the sender really is the network client... */
	cr_assert_eq(ts_sh("nm -u %s | grep -q curl_easy_perform", SENDER), 0);
	/* ...and neither the measurement nor the OTLP libraries (nor the verdict code, see
	 * test_verify) reference a resolver, a socket client or libcurl */
	const char *libs[] = {"libbelay_measure.a", "libbelay_interop.a", "libbelay_verify.a", NULL};
	for (const char *const *l = libs; *l; l++) {
		cr_assert_eq(ts_sh("test -s %s/%s", BELAY_BUILD_DIR, *l), 0, "%s missing", *l);
		cr_assert_neq(ts_sh("nm -u %s/%s | awk '{print $2}' | grep -E -x "
				    "'(connect|getaddrinfo|gethostbyname|socket|send|sendto|curl_.*|SSL_.*)' >/dev/null",
				    BELAY_BUILD_DIR, *l),
			      0, "%s references a network client", *l);
	}
	cr_assert_eq(ts_sh("nm %s/libbelay_interop.a | grep -q ' T otlp_spans_for_trace$'", BELAY_BUILD_DIR), 0);
	cr_assert_neq(ts_sh("ldd %s | grep -q libcurl", BELAY_BIN), 0, "belay links libcurl");
}

Test(otlp, redaction_scrubs_the_gates_secret_patterns_and_leaves_the_rest)
{
	struct {
		const char *in, *out;
	} cases[] = {
	    {"GITHUB_TOKEN=ghp_abc123 make", "GITHUB_TOKEN=[REDACTED] make"},
	    {"curl -H 'Authorization: Bearer eyJhbGc.x.y' https://x", "curl -H 'Authorization: [REDACTED]' https://x"},
	    {"{\"api_key\": \"sk-live-123\", \"path\": \"a.py\"}", "{\"api_key\": \"[REDACTED]\", \"path\": \"a.py\"}"},
	    {"password=hunter2;next", "password=[REDACTED];next"},
	    {"key\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\ntail", "key\n[REDACTED]\ntail"},
	    {"tests/test_a.py changed: assert x == 1", "tests/test_a.py changed: assert x == 1"},
	    /* credential shapes whatever their name (common/secret.h) */
	    {"pushed with ghp_abcdefghijklmnop1234 today", "pushed with [REDACTED] today"},
	    {"clone https://bob:hunter2@example.com/r.git", "clone [REDACTED]"},
	    {"X=sk-proj-0123456789abcdef", "X=[REDACTED]"},
	    {"a short sk- or ghp_ is not one", "a short sk- or ghp_ is not one"},
	    {"", ""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *r = redact_text(cases[i].in);
		cr_assert_str_eq(r, cases[i].out, "case %zu", i);
		free(r);
	}
	cJSON *j = cJSON_Parse("{\"env\":{\"AWS_SECRET_ACCESS_KEY\":{\"nested\":1},\"HOME\":\"/root\"},"
			       "\"argv\":[\"--password=x\",\"ok\"]}");
	redact_json(j);
	char *s = jx_print(j);
	cr_assert_str_eq(s, "{\"env\":{\"AWS_SECRET_ACCESS_KEY\":\"[REDACTED]\",\"HOME\":\"/root\"},"
			    "\"argv\":[\"--password=[REDACTED]\",\"ok\"]}");
	free(s);
	cJSON_Delete(j);
}

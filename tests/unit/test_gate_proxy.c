/* test_gate_proxy.c - the effect gate in `belay proxy --mode enforce`: a call that asks is
 * refused with an explanation and a one-shot approval id, and never reaches the server; a
 * person outside approves it with `belay approve`, the identical call then goes through
 * exactly once; a sandboxed server cannot approve (the key is hidden from it, and the
 * approval socket refuses peers in another user namespace); deny has no approval; audit
 * only records; writes to belay's own control files (the user's config dir, the --policy
 * file) are denied in the proxy as `belay gate explain` says. In audit mode an uncontained
 * call is written to the server before it is classified; its gate_decision still follows
 * its frame in the trace, one per call, with the plan `belay gate explain` gives. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "tsupport.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

Test(gate_proxy, enforce_refuses_explains_and_approves_once, .timeout = 120)
{
	char *dir = ts_tmpdir("gateproxy");
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "state"), *other = fs_join(dir, "other-state");
	fs_mkdir_p(ws, 0755, NULL);
	fs_mkdir_p(other, 0700, NULL);
	char *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpenv, NULL};
	/* the other state dir holds a copy of the key once the proxy made it (see below) */
	const char *argv[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/gate_driver.py", BELAY_BIN, DEMO, ws, st,
			      "--other-state", other, NULL};
	/* Pre-create the key so the copy exists before the inner proxy starts. */
	fs_mkdir_p(st, 0700, NULL);
	ts_sh("head -c 32 /dev/urandom > %s/approval.key && chmod 600 %s/approval.key && cp -p %s/approval.key %s/",
	      st, st, st, other);
	struct ts_out o;
	ts_run(argv, env, dir, NULL, 0, 100, &o);
	cr_assert_eq(o.status, 0, "driver failed: %s", o.err);
	cJSON *r = cJSON_Parse(o.out);
	cr_assert_not_null(r, "%s", o.out);

	const cJSON *refused = cJSON_GetObjectItem(r, "refused");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(refused, "error")));
	const char *text = jx_str(refused, "text");
	cr_assert(strstr(text, "belay refused"), "%s", text);
	cr_assert(strstr(text, "writes outside the workspace root"), "says why: %s", text);
	cr_assert(strstr(text, "belay approve "), "says how: %s", text);
	cr_assert_str_eq(jx_str(cJSON_GetObjectItem(refused, "gate"), "decision"), "ask");
	char *escape = fs_join(dir, "escape.txt");
	struct stat sb;

	/* deny: no approval id */
	const cJSON *deny = cJSON_GetObjectItem(r, "deny");
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(deny, "error")));
	cr_assert_str_eq(jx_str(cJSON_GetObjectItem(deny, "gate"), "decision"), "deny");
	cr_assert_null(jx_str(cJSON_GetObjectItem(deny, "gate"), "approval_id"));

	/* the sandboxed server cannot approve: hidden key, and the socket refuses its namespace */
	const char *in1 = jx_str(cJSON_GetObjectItem(r, "inside_same_state"), "text");
	cr_assert(strstr(in1, "rc=1") || strstr(in1, "rc=2"), "inside approve must fail: %s", in1);
	cr_assert(strstr(in1, "approval.key"), "the key is not visible inside: %s", in1);
	const char *in2 = jx_str(cJSON_GetObjectItem(r, "inside_other_state"), "text");
	cr_assert(strstr(in2, "another user namespace") || strstr(in2, "inside the sandbox"), "%s", in2);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "retry_before_approval"), "error")),
		  "still refused after the attempts from inside");

	/* approved from outside: exactly one more run */
	const cJSON *ap = cJSON_GetObjectItem(r, "approve_outside");
	cr_assert_eq(cJSON_GetObjectItem(ap, "rc")->valueint, 0, "%s", jx_str(ap, "stderr"));
	const char *after = jx_str(cJSON_GetObjectItem(r, "retry_after_approval"), "text");
	cr_assert_null(strstr(after, "belay refused"), "the approved call went through: %s", after);
	cr_assert(strstr(after, "Permission denied"), "and met the sandbox (it still cannot write outside): %s", after);
	const char *again = jx_str(cJSON_GetObjectItem(r, "retry_again"), "text");
	cr_assert(strstr(again, "belay refused"), "one shot: %s", again);
	cr_assert_neq(stat(escape, &sb), 0);

	/* The trace holds every decision and who made it. */
	char *traces = fs_join(st, "traces");
	cr_assert_eq(ts_sh("grep -h '\"kind\":\"gate_decision\"' %s/*.jsonl | grep -c '\"outcome\":\"refused\"' | grep -q '^[3-9]'",
			   traces),
		     0);
	cr_assert_eq(ts_sh("grep -h '\"kind\":\"gate_decision\"' %s/*.jsonl | grep -q 'approved once'", traces), 0);
	cr_assert_eq(ts_sh("grep -h '\"kind\":\"gate_decision\"' %s/*.jsonl | grep -q 'belay approve (pid'", traces), 0);
	free(traces);
	cJSON_Delete(r);
	ts_out_free(&o);
	free(escape);
	free(tmpenv);
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(st);
	free(other);
}

Test(gate_proxy, audit_records_and_forwards, .timeout = 60)
{
	char *dir = ts_tmpdir("gateaudit");
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "state"), *tr = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0755, NULL);
	char *in = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n"
			     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
			     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
			     "\"arguments\":{\"command_line\":\"echo hi > %s/../audit.txt\"}}}\n",
			     ws);
	char *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpenv, NULL};
	const char *argv[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tr, "--mode", "audit", "--",
			      DEMO, "shell", ws, NULL};
	struct ts_out o;
	ts_run(argv, env, dir, in, strlen(in), 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "Permission denied"), "forwarded to the (contained) server: %s", o.out);
	cr_assert_null(strstr(o.out, "belay refused"));
	cr_assert_eq(ts_sh("grep -h '\"kind\":\"gate_decision\"' %s/*.jsonl | grep -q '\"outcome\":\"forwarded (audit)\"'", tr), 0);
	ts_out_free(&o);
	free(in);
	free(tmpenv);
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(st);
	free(tr);
}

Test(gate_proxy, the_config_dir_and_the_policy_file_are_control_files, .timeout = 60)
{
	char *dir = ts_tmpdir("gatectl");
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "state"), *tr = fs_join(dir, "tr");
	char *cfg = fs_join(dir, "cfg"), *pol = fs_join(dir, "policy.json");
	fs_mkdir_p(ws, 0755, NULL);
	ts_write_file(pol, "{\"version\": 1}\n", 15);
	char *in = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n"
			     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n"
			     "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
			     "\"arguments\":{\"command_line\":\"echo '{}' > %s/belay/gate.json\"}}}\n"
			     "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
			     "\"arguments\":{\"command_line\":\"echo '{}' > %s\"}}}\n",
			     cfg, pol);
	char *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir), *cfgenv = xasprintf("XDG_CONFIG_HOME=%s", cfg);
	const char *env[] = {tmpenv, cfgenv, NULL};
	const char *argv[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tr, "--mode", "enforce",
			      "--policy", pol, "--", DEMO, "shell", ws, NULL};
	struct ts_out o;
	ts_run(argv, env, dir, in, strlen(in), 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	/* Both calls are denied (no approval can lift deny) and never reach the server. */
	int denied = 0;
	for (char *l = strtok(o.out, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		cr_assert_not_null(j, "%s", l);
		int id = cJSON_GetObjectItem(j, "id")->valueint;
		if (id >= 3) {
			char *text = cJSON_PrintUnformatted(j);
			cr_assert(strstr(text, "belay refused"), "call %d: %s", id, text);
			cr_assert(strstr(text, "control.write"), "call %d names the control write: %s", id, text);
			cr_assert(strstr(text, "\"decision\":\"deny\""), "call %d: %s", id, text);
			denied++;
			free(text);
		}
		cJSON_Delete(j);
	}
	cr_assert_eq(denied, 2);
	cr_assert_eq(ts_sh("grep -q version %s", pol), 0, "the policy file is untouched");
	ts_out_free(&o);
	free(in);
	free(tmpenv);
	free(cfgenv);
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(st);
	free(tr);
	free(cfg);
	free(pol);
}

static int num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? (int)v->valuedouble : -1;
}

/* The plan `belay gate explain` gives for a run_process call (compact JSON, new string). */
static char *explained(const char *root, const char *st, const char *args)
{
	const char *argv[] = {BELAY_BIN, "gate", "explain", "--root", root, "--state", st, "--compact",
			      "--tool", "run_process", "--args", args, NULL};
	struct ts_out o;
	ts_run(argv, NULL, root, NULL, 0, 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "%s", o.out);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	ts_out_free(&o);
	return s;
}

/* Audit mode, uncontained: the call's bytes go to the server before the gate classifies
 * it (nothing it decides changes what is forwarded). All the calls arrive in one read (one
 * write of several lines, a notification and a tools/list between them): every call's
 * gate_decision is the record right after its frame (nothing in between, none after the
 * chunk), one per call, with the call's own plan, and every call was answered. */
Test(gate_proxy, audit_decides_after_forwarding_in_order, .timeout = 60)
{
	char *dir = ts_tmpdir("gateorder");
	char *ws = fs_join(dir, "ws"), *st = fs_join(dir, "state"), *tr = fs_join(dir, "tr");
	fs_mkdir_p(ws, 0755, NULL);
	const char *cmds[4] = {"echo one", "echo two > /etc/belay-gate-order-test", "rm -rf /", "ls -la"};
	struct buf in = {0};
	buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n"
		      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
	char *args[4];
	for (int i = 0; i < 4; i++) {
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "command_line", cmds[i]);
		args[i] = cJSON_PrintUnformatted(a);
		cJSON_Delete(a);
		buf_printf(&in, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
			   "\"arguments\":%s}}\n", 10 + i, args[i]);
		if (i == 1)
			buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
		if (i == 2)
			buf_puts(&in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n");
	}
	const char *argv[] = {BELAY_BIN, "proxy", "--state", st, "--trace-dir", tr, "--mode", "audit", "--",
			      DEMO, "shell", ws, NULL};
	struct ts_out o;
	ts_run(argv, NULL, ws, in.p, in.len, 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	for (int i = 0; i < 4; i++) {
		char want[32];
		snprintf(want, sizeof want, "\"id\":%d,", 10 + i);
		cr_assert(strstr(o.out, want), "call %d was forwarded and answered: %s", 10 + i, o.out);
	}
	cr_assert_null(strstr(o.out, "belay refused"));

	char *trace = ts_find_trace(tr);
	cr_assert_not_null(trace);
	size_t len = 0;
	char *text = ts_read_file(trace, &len);
	cr_assert_not_null(text);
	/* the records by seq */
	cJSON *recs[256] = {0};
	int nrec = 0;
	for (char *line = text, *nl; *line && (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		*nl = '\0';
		cJSON *r = cJSON_Parse(line);
		cr_assert_not_null(r, "%s", line);
		int seq = num(r, "seq");
		cr_assert(seq >= 0 && seq < 256 && seq == nrec, "records in seq order: %s", line);
		recs[nrec++] = r;
	}
	int calls = 0, decisions = 0;
	for (int q = 0; q < nrec; q++) {
		const char *kind = jx_str(recs[q], "kind");
		if (!strcmp(kind, "gate_decision")) {
			decisions++;
			cr_assert_eq(num(recs[q], "request_seq"), q - 1,
				     "a decision follows its call's frame at once (seq %d)", q);
			continue;
		}
		if (strcmp(kind, "frame") || strcmp(jx_str(recs[q], "dir"), "c2s"))
			continue;
		const char *raw = jx_str(recs[q], "raw");
		struct buf b = {0};
		cr_assert_eq(base64_decode(raw, strlen(raw), &b), 0);
		buf_cstr(&b);
		if (strstr(b.p, "\"tools/call\"")) {
			int k = calls++;
			cr_assert(k < 4);
			char want[32];
			snprintf(want, sizeof want, "\"id\":%d,", 10 + k);
			cr_assert(strstr(b.p, want), "the calls in the order sent: %s", b.p);
			cr_assert(q + 1 < nrec, "a decision after the last call");
			const cJSON *d = recs[q + 1];
			cr_assert_str_eq(jx_str(d, "kind"), "gate_decision", "call %d's next record: %s", 10 + k,
					 jx_str(d, "kind"));
			cr_assert_str_eq(jx_str(d, "mode"), "audit");
			cr_assert_str_eq(jx_str(d, "tool"), "run_process");
			char *plan = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(d, "plan"));
			char *want_plan = explained(ws, st, args[k]);
			cr_assert_str_eq(plan, want_plan, "call %d's plan", 10 + k);
			const char *dec = jx_str(d, "decision");
			int asks = !strcmp(dec, "ask") || !strcmp(dec, "deny");
			cr_assert_str_eq(jx_str(d, "outcome"), asks ? "forwarded (audit)" : "forwarded");
			if (k == 0)
				cr_assert_str_eq(dec, "allow");
			if (k == 1 || k == 2)
				cr_assert(asks, "call %d: %s", 10 + k, dec);
			free(plan);
			free(want_plan);
		}
		buf_free(&b);
	}
	cr_assert_eq(calls, 4);
	cr_assert_eq(decisions, 4, "one decision per call");
	for (int q = 0; q < nrec; q++)
		cJSON_Delete(recs[q]);
	for (int i = 0; i < 4; i++)
		cJSON_free(args[i]);
	free(text);
	free(trace);
	ts_out_free(&o);
	buf_free(&in);
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(st);
	free(tr);
}

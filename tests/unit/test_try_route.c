/* test_try_route.c - the gate's trial route in enforce mode (docs/TRY.md): `belay proxy
 * --mode enforce --scope WS` gets a tools/call whose only unknown effect is a program of the
 * workspace (./build.sh); the command runs once in a mirror before the refusal, the agent's
 * refusal carries what it did there (exit, effect, denials, output) with the trial id and
 * both ways on (belay approve / belay try apply), the trace records the trial, the real
 * workspace is untouched, and `belay try apply` then gives the workspace that effect. A call
 * that also writes outside, and --no-trial, get no trial. */
#include "try_harness.h"
#include "trial/trial_route.h"
#include "ts_belay.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

TestSuite(try_route, .init = try_setup, .fini = try_teardown, .timeout = 180);

static void add_build_script(void)
{
	cr_assert_eq(ts_sh("printf '#!/bin/sh\\nmkdir -p out && echo built > out/built.txt && echo building done\\n' > "
			   "%s/build.sh && chmod 755 %s/build.sh",
			   ws, ws),
		     0);
}

/* An enforce-mode proxy session with one run_process call (command_line `cmd`); extra: more
 * proxy options before --. Returns the call's response (owned) and the trace's path. */
static cJSON *enforce_call(const char *cmd, const char *extra, char **trace, struct ts_out *o)
{
	char *tr = fs_join(dir, "traces");
	cJSON *args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "command_line", cmd);
	char *a = cJSON_PrintUnformatted(args);
	cJSON_Delete(args);
	char *call = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
			       "\"arguments\":%s}}",
			       a);
	free(a);
	const char *lines[] = {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
			       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", call, NULL};
	const char *env[] = {tmpbase, NULL};
	const char *with[] = {BELAY_BIN, "proxy", "--scope", ws,    "--state", st, "--trace-dir", tr, "--mode", "enforce",
			      extra,     "--",    DEMO,      "shell", ws,        NULL};
	const char *const *argv = with;
	if (!extra)
		memmove(&with[10], &with[11], 5 * sizeof with[0]); /* no extra option */
	cr_assert_eq(ts_mcp_session(argv, env, lines, 120, o), 0, "%s", o->err);
	*trace = ts_find_trace(tr);
	cr_assert_not_null(*trace, "a trace in %s: %s", tr, o->err);
	free(tr);
	free(call);
	cJSON *resp = NULL;
	for (char *l = o->out; l && *l && !resp;) {
		char *nl = strchr(l, '\n');
		cJSON *j = cJSON_ParseWithLength(l, nl ? (size_t)(nl - l) : strlen(l));
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
		if (cJSON_IsNumber(id) && id->valueint == 3)
			resp = j;
		else
			cJSON_Delete(j);
		l = nl ? nl + 1 : NULL;
	}
	cr_assert_not_null(resp, "the call was answered: %s", o->out);
	return resp;
}

static const char *reply_text(const cJSON *resp)
{
	const cJSON *c = cJSON_GetArrayItem(jx_path(resp, "result.content"), 0);
	return c ? jx_str(c, "text") : NULL;
}

/* The trace's records of `kind`, in order (owned array). */
static cJSON *records(const char *trace, const char *kind)
{
	size_t n;
	char *text = ts_read_file(trace, &n);
	cJSON *out = cJSON_CreateArray();
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		if (j && jx_str(j, "kind") && !strcmp(jx_str(j, "kind"), kind))
			cJSON_AddItemToArray(out, j);
		else
			cJSON_Delete(j);
	}
	free(text);
	return out;
}

Test(try_route, a_local_only_call_is_tried_first_and_its_refusal_says_what_it_did)
{
	add_build_script();
	char *before = try_tree_hash();
	struct ts_out o;
	char *trace;
	cJSON *resp = enforce_call("./build.sh", NULL, &trace, &o);
	const char *text = reply_text(resp);
	cr_assert(cJSON_IsTrue(jx_path(resp, "result.isError")), "a refusal: %s", o.out);
	cr_assert(text && strstr(text, "disposable mirror of the workspace"), "%s", text);
	cr_assert(strstr(text, "exited with status 0"), "%s", text);
	cr_assert(strstr(text, "added out/built.txt"), "the effect is named: %s", text);
	cr_assert(strstr(text, "building done"), "the output tail: %s", text);
	cr_assert(strstr(text, "belay approve "), "the call can still be approved: %s", text);
	const cJSON *gate = cJSON_GetObjectItemCaseSensitive(jx_path(resp, "result._meta"), "belay/gate");
	const char *tid = gate ? jx_str(gate, "trial_id") : NULL;
	cr_assert_not_null(tid, "the refusal names the trial: %s", o.out);
	char *apply = xasprintf("belay try apply %s", tid);
	cr_assert(strstr(text, apply), "and how to apply its effect instead: %s", text);
	free(apply);
	/* the real workspace was not written */
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before);
	/* the trace holds the trial (with the call it tried) and the decision's two steps */
	cJSON *trials = records(trace, "trial");
	cr_assert_eq(cJSON_GetArraySize(trials), 1);
	const cJSON *t = cJSON_GetArrayItem(trials, 0);
	cr_assert_str_eq(jx_str(t, "id"), tid);
	cr_assert_str_eq(jx_str(t, "command"), "./build.sh");
	cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(t, "request_seq")));
	cr_assert_not_null(try_effect(t, "out/built.txt"), "the record holds the effect");
	cJSON *dec = records(trace, "gate_decision");
	cr_assert_eq(cJSON_GetArraySize(dec), 2);
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(dec, 0), "outcome"), "trying");
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(dec, 1), "outcome"), "refused");
	/* the trace with the trial in it is a well-formed trace */
	struct ts_out ck;
	const char *check[] = {BELAY_BIN, "trace", "check", trace, NULL};
	cr_assert_eq(ts_run(check, NULL, dir, NULL, 0, 60, &ck), 0);
	cr_assert_eq(ck.status, 0, "trace check: %s %s", ck.out, ck.err);
	ts_out_free(&ck);
	/* applying the trial gives the workspace what the command did in the mirror */
	struct ts_out a;
	cr_assert_eq(try_sub(&a, "apply", tid, "--yes"), 0, "%s %s", a.out, a.err);
	char *built = fs_join(ws, "out/built.txt");
	size_t n;
	char *content = ts_read_file(built, &n);
	cr_assert_str_eq(content, "built\n");
	free(content);
	free(built);
	ts_out_free(&a);
	cJSON_Delete(dec);
	cJSON_Delete(trials);
	cJSON_Delete(resp);
	free(before);
	free(after);
	free(trace);
	ts_out_free(&o);
}

Test(try_route, a_call_that_also_writes_outside_and_no_trial_get_no_trial)
{
	add_build_script();
	static const char *const cases[][2] = {{"./build.sh > /var/tmp/belay-route-outside.log", NULL},
					       {"./build.sh", "--no-trial"}};
	for (int i = 0; i < 2; i++) {
		struct ts_out o;
		char *trace;
		cJSON *resp = enforce_call(cases[i][0], cases[i][1], &trace, &o);
		const char *text = reply_text(resp);
		cr_assert(cJSON_IsTrue(jx_path(resp, "result.isError")), "still refused: %s", o.out);
		cr_assert(text && !strstr(text, "mirror"), "%s: no trial: %s", cases[i][0], text);
		cJSON *trials = records(trace, "trial");
		cr_assert_eq(cJSON_GetArraySize(trials), 0, "%s %s", cases[i][0], cases[i][1] ? cases[i][1] : "");
		cr_assert_neq(ts_sh("ls -d %s/trials/trial-* > /dev/null 2>&1", st), 0, "nothing was tried");
		cJSON_Delete(trials);
		cJSON_Delete(resp);
		free(trace);
		ts_out_free(&o);
		ts_sh("rm -rf %s/traces", dir);
	}
}

/* The gate keeps one snapshotter across its trials (each pre-state an incremental capture): a
 * change of the real tree between two trials - same size, the old mtime put back - is in the
 * second trial's pre-state, and neither trial is voided by it. */
Test(try_route, a_gates_trials_see_every_change_of_the_tree_between_them)
{
	setenv("BELAY_SANDBOX_TMP_BASE", dir, 1);
	struct trial_route *tg = trial_route_new(ws, st, BELAY_BIN, 0);
	char *h1 = try_tree_hash();
	cJSON *r1 = trial_route_run(tg, "cat a.txt > copy.txt", NULL);
	cr_assert_str_eq(jx_str(r1, "status"), "done", "%s", jx_str(r1, "error") ? jx_str(r1, "error") : "");
	cr_assert_str_eq(cJSON_GetStringValue(jx_path(r1, "prestate.tree_hash")), h1);
	cr_assert_eq(ts_sh("touch -r %s/a.txt %s/stamp && printf 'two\\n' > %s/a.txt && touch -r %s/stamp %s/a.txt && rm %s/stamp",
			   ws, dir, ws, dir, ws, dir),
		     0);
	char *h2 = try_tree_hash();
	cr_assert_str_neq(h2, h1);
	cJSON *r2 = trial_route_run(tg, "cat a.txt > copy.txt", NULL);
	cr_assert_str_eq(jx_str(r2, "status"), "done", "not voided: %s", jx_str(r2, "cause") ? jx_str(r2, "cause") : "");
	cr_assert_str_eq(cJSON_GetStringValue(jx_path(r2, "prestate.tree_hash")), h2, "the second pre-state is the changed tree");
	trial_route_free(tg);
	cJSON_Delete(r1);
	cJSON_Delete(r2);
	free(h1);
	free(h2);
}

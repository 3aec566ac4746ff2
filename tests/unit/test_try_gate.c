/* test_try_gate.c - which plans a contained trial could answer (effect_plan_trial_eligible):
 * only unknown local effects (Makefile recipes, a package.json script, a program of the
 * workspace by path), never with a write outside, the network, a secret or another
 * indeterminate effect; the decision stays ask either way; and `belay proxy --mode audit`
 * records would_try on such a call's gate_decision and runs nothing else for it, as the agent
 * hooks do in audit mode. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "gate/gate.h"
#include "ts_belay.h"
#include "ts_hook.h"
#include "tsupport.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

static int eligible(const char *cmd)
{
	struct gate_ctx ctx = {.root = "/work/project", .home = "/home/u", .state_dir = "/home/u/.local/state/belay"};
	struct effect_plan *p = gate_plan_command(cmd, strlen(cmd), &ctx);
	int e = effect_plan_trial_eligible(p);
	cr_assert_geq(effect_plan_decision(p), GATE_ASK, "the decision of '%s' stays ask or stricter (it is %s)", cmd,
		      gate_decision_name(effect_plan_decision(p)));
	effect_plan_free(p);
	return e;
}

Test(try_gate, unknown_local_effects_alone_could_be_tried)
{
	cr_assert(eligible("make"));
	cr_assert(eligible("make -j4 all"));
	cr_assert(eligible("npm run build"));
	cr_assert(eligible("./build.sh"));
	cr_assert(eligible("tools/gen.sh --out gen"));
	cr_assert(eligible("cd sub && ../scripts/build"));
	cr_assert(eligible("make && ./run-tests.sh > out/log.txt"), "with a write inside the root");
}

Test(try_gate, anything_else_stays_ask_without_a_trial)
{
	cr_assert_not(eligible("make > /tmp/build.log"), "a write outside the root");
	cr_assert_not(eligible("make && curl -d @report.txt https://example.com/upload"), "the network");
	cr_assert_not(eligible("cat ~/.ssh/id_rsa; make"), "a secret");
	cr_assert_not(eligible("eval \"$CMD\""), "indeterminate, not local");
	cr_assert_not(eligible("make; $TOOL"), "another indeterminate effect");
	cr_assert_not(eligible("/opt/vendor/bin/run"), "a program by path outside the root");
	cr_assert_not(eligible("../elsewhere/build.sh"), "a program by path outside the root");
	cr_assert_not(eligible("sudo make install"), "privilege");
	cr_assert_not(eligible("rm -rf /"), "destroys outside");
}

/* What a trial would run: the one command line the plan was built from, and its directory. */
Test(try_gate, the_plan_names_the_one_command_a_trial_runs)
{
	struct gate_ctx ctx = {.root = "/work/project", .home = "/home/u", .state_dir = "/home/u/.local/state/belay"};
	cJSON *args = cJSON_Parse("{\"command_line\":\"make -j2\",\"cwd\":\"sub\"}");
	struct effect_plan *p = gate_plan_tool_call(NULL, "run_process", args, NULL, &ctx);
	const char *cwd = NULL;
	cr_assert_str_eq(effect_plan_command(p, &cwd), "make -j2");
	cr_assert_str_eq(cwd, "/work/project/sub", "the call's cwd, resolved against the root");
	effect_plan_free(p);
	cJSON_Delete(args);
	args = cJSON_Parse("{\"command\":\"make\"}");
	p = gate_plan_tool_call(NULL, "run_process", args, NULL, &ctx);
	cr_assert_str_eq(effect_plan_command(p, &cwd), "make");
	cr_assert_null(cwd, "no cwd given: the workspace");
	effect_plan_free(p);
	cJSON_Delete(args);
	/* two command lines: nothing single to try */
	args = cJSON_Parse("{\"command\":\"make\",\"script\":\"./build.sh\"}");
	const char *pol = "{\"version\":1,\"tools\":[{\"name\":\"run2\",\"shell\":[\"command\",\"script\"]}]}";
	struct gate_policy *gp = NULL;
	struct err e = {0};
	cr_assert_eq(gate_policy_parse(pol, strlen(pol), "t.json", &gp, &e), 0, "%s", e.msg);
	p = gate_plan_tool_call(gp, "run2", args, NULL, &ctx);
	cr_assert_null(effect_plan_command(p, NULL));
	effect_plan_free(p);
	gate_policy_free(gp);
	cJSON_Delete(args);
	p = gate_plan_command("./build.sh", 10, &ctx);
	cr_assert_str_eq(effect_plan_command(p, NULL), "./build.sh");
	effect_plan_free(p);
}

/* The gate_decision records of a trace with and without would_try (each decision ask). */
static void count_would_try(const char *trace, int *with, int *without)
{
	size_t n;
	char *text = ts_read_file(trace, &n);
	*with = *without = 0;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(l);
		if (j && jx_str(j, "kind") && !strcmp(jx_str(j, "kind"), "gate_decision")) {
			cr_assert_str_eq(jx_str(j, "decision"), "ask");
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "would_try")))
				(*with)++;
			else
				(*without)++;
		}
		cJSON_Delete(j);
	}
	free(text);
}

Test(try_gate, audit_mode_records_would_try_and_runs_nothing_for_it, .timeout = 60)
{
	char *dir, *st, *db;
	ts_state_setup("trygate", &dir, &st, &db);
	char *ws = fs_join(dir, "ws"), *tr = fs_join(dir, "tr"), *tmpenv = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	fs_mkdir_p(ws, 0755, NULL);
	char *outside_call = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":"
				       "\"run_process\",\"arguments\":{\"command_line\":\"./build.sh > %s/../outside.log\"}}}",
				       ws);
	const char *lines[] = {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
			       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
			       "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"run_process\","
			       "\"arguments\":{\"command_line\":\"./build.sh\"}}}",
			       outside_call, NULL};
	const char *env[] = {tmpenv, NULL};
	const char *argv[] = {BELAY_BIN, "proxy", "--scope", ws, "--state", st, "--trace-dir", tr, "--mode", "audit", "--",
			      DEMO, "shell", ws, NULL};
	struct ts_out o;
	cr_assert_eq(ts_mcp_session(argv, env, lines, 30, &o), 0, "%s", o.err);
	char *trace = ts_find_trace(tr);
	cr_assert_not_null(trace);
	int with, without;
	count_would_try(trace, &with, &without);
	cr_assert_eq(with, 1, "the local-only call would be tried");
	cr_assert_eq(without, 1, "the call that also writes outside would not");
	cr_assert_neq(ts_sh("ls -d %s/trials/trial-* > /dev/null 2>&1", st), 0, "audit mode runs no trial");
	free(trace);
	ts_out_free(&o);
	free(outside_call);
	free(tmpenv);
	free(ws);
	free(tr);
	ts_state_teardown(dir, st, db);
}

Test(try_gate, the_agent_hooks_record_would_try_in_audit_mode, .timeout = 120)
{
	struct ts_world w;
	ts_world_setup(&w, "trygatehook");
	struct ts_driver d;
	ts_driver_start(&d, &w, "sess-trygate");
	ts_drive_bash(&d, "./build.sh");
	cr_expect_str_eq(d.decision, "", "audit answers nothing");
	ts_drive_bash(&d, "./build.sh > /tmp/belay-trygate.log");
	char *trace = ts_session_trace(&w, &d);
	int with, without;
	count_would_try(trace, &with, &without);
	cr_assert_eq(with, 1, "the local-only call would be tried");
	cr_assert_eq(without, 1, "the call that also writes outside would not");
	free(trace);
	ts_driver_free(&d);
	ts_world_teardown(&w);
}

/* Enforce mode: the agent hooks try a local-only shell command in a mirror first, and the
 * ask's reason (Claude Code shows it in its permission prompt) carries what it did there;
 * --no-trial asks without one. */
Test(try_gate, the_agent_hooks_try_first_in_enforce_mode, .timeout = 120)
{
	struct ts_world w;
	ts_world_setup(&w, "trygateenf");
	ts_world_put(&w, "build.sh", "#!/bin/sh\nmkdir -p out && echo built > out/built.txt && echo building done\n");
	cr_assert_eq(ts_sh("chmod 755 %s/build.sh", w.ws), 0);
	/* the mirror's upper layer needs user xattrs: the state on the root disk (tmpfs has them
	 * only since Linux 6.6) */
	char *outside = ts_outside_dir("trygateenf"), *st = fs_join(outside, "state");
	const char *flags[] = {"--mode", "enforce", "--state", st, NULL};
	struct ts_driver d;
	ts_driver_start(&d, &w, "sess-tryenf");
	d.flags = flags;
	cr_assert_eq(ts_drive_bash(&d, "./build.sh"), -1, "asked, not run");
	cr_assert_str_eq(d.decision, "ask");
	cr_assert(strstr(d.pre.out, "disposable mirror of the workspace"), "%s", d.pre.out);
	cr_assert(strstr(d.pre.out, "added out/built.txt"), "%s", d.pre.out);
	cr_assert(strstr(d.pre.out, "building done"), "%s", d.pre.out);
	cr_assert(strstr(d.pre.out, "belay try apply trial-"), "%s", d.pre.out);
	char *built = fs_join(w.ws, "out/built.txt");
	cr_assert_neq(access(built, F_OK), 0, "the real workspace was not written");
	cr_assert_eq(ts_sh("ls -d %s/trials/trial-* > /dev/null 2>&1", st), 0, "the trial is kept");
	/* --no-trial: asked as before, nothing tried */
	const char *flags2[] = {"--mode", "enforce", "--state", st, "--no-trial", NULL};
	d.flags = flags2;
	ts_sh("rm -rf %s/trials", st);
	cr_assert_eq(ts_drive_bash(&d, "./build.sh"), -1);
	cr_assert_str_eq(d.decision, "ask");
	cr_assert_null(strstr(d.pre.out, "mirror"), "%s", d.pre.out);
	cr_assert_neq(ts_sh("ls -d %s/trials/trial-* > /dev/null 2>&1", st), 0);
	free(built);
	free(st);
	ts_rmtree(outside);
	free(outside);
	ts_driver_free(&d);
	ts_world_teardown(&w);
}

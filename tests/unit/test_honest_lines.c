/* test_honest_lines.c - what belay says when there is nothing to judge or no reply: the
 * trajectory line says "no success claim recorded" only when the rule ran and found none (off
 * when the policy lacks it, not judged for one turn), and a run that ended with a call
 * unanswered never shows it "pending" (the console's row and detail, belay show). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_tmux.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("honest", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(honest, .init = setup, .fini = teardown, .timeout = 240);

static char *trajectory_line(const char *out)
{
	const char *p = strstr(out, "\ntrajectory ");
	cr_assert_not_null(p, "no trajectory line: %s", out);
	p++;
	return xstrndup(p, (size_t)(strchr(p, '\n') - p));
}

static void verify_says(const char *trace, const char *want, const char *not, const char *a, const char *b)
{
	struct ts_out o;
	ts_belay(&o, NULL, "verify", trace, "--state", state, "--no-store", a ? a : "--replays", b ? b : "3", NULL);
	cr_assert(o.status != 2, "%s", o.err);
	char *l = trajectory_line(o.out);
	cr_assert(strstr(l, want), "expected '%s' in: %s", want, l);
	if (not)
		cr_assert(!strstr(l, not), "'%s' is not true here: %s", not, l);
	free(l);
	ts_out_free(&o);
}

Test(honest, the_trajectory_line_says_why_there_is_no_whole_run_verdict)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	verify_says(trace, "no success claim recorded", NULL, NULL, NULL);
	verify_says(trace, "suite-before-success-claim is off", "no success claim", "--no-default-invariants", "--no-store");
	verify_says(trace, "not judged: only one turn was verified", "no success claim", "--turn", "0");
	/* --json says the same. */
	struct ts_out o;
	ts_belay(&o, NULL, "verify", trace, "--state", state, "--no-store", "--json", "--no-default-invariants", NULL);
	char *last = ts_last_line(o.out);
	cJSON *j = cJSON_Parse(last);
	const char *why = jx_str(cJSON_GetObjectItem(j, "summary"), "trajectory_not_judged");
	cr_assert(why && strstr(why, "is off"), "%s", last);
	cJSON_Delete(j);
	free(last);
	ts_out_free(&o);
	/* With a claim and the rule on, the line is the verdict. */
	ts_append_claim(trace, "all tests pass");
	verify_says(trace, "trajectory ", "no success claim", NULL, NULL);
	ts_belay(&o, NULL, "verify", trace, "--state", state, "--no-store", NULL);
	char *l = trajectory_line(o.out);
	cr_assert(strstr(l, "suite-before-success-claim:"), "the claim is judged: %s", l);
	free(l);
	ts_out_free(&o);
	free(trace);
}

Test(honest, a_call_left_unanswered_when_the_run_ended_is_not_pending)
{
	cr_assert_eq(ts_sh("command -v tmux >/dev/null"), 0, "tmux is needed (scripts/setup.sh installs it)");
	/* The scripted agent gives up after 1 s on a call the server answers after 3 s, and the
	 * run ends: the call is unanswered for good. */
	char *ws = fs_join(dir, "ws"), *traces = fs_join(dir, "traces"), *steps = fs_join(dir, "steps.json");
	ts_sh("mkdir -p %s", ws);
	const char *s = "[{\"initialize\":{}},{\"list\":true},{\"call\":\"run_process\",\"args\":{\"command_line\":\"sleep 3\"}}]";
	ts_write_file(steps, s, strlen(s));
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpbase, NULL};
	const char *argv[] = {BELAY_BIN, "__script", steps, "--state", state, "--trace-dir", traces, "--timeout", "1",
			      "--scope", ws, "--", BELAY_BUILD_DIR "/belay-demo-server", "shell", ws, NULL};
	struct ts_out o;
	ts_run(argv, env, dir, NULL, 0, 60, &o);
	char *nl = strchr(o.out, '\n');
	cr_assert_not_null(nl, "no trace: %s", o.err);
	*nl = '\0';
	char *trace = xstrdup(o.out);
	ts_out_free(&o);
	char *run = xstrdup(strrchr(trace, '/') + 1);
	*strstr(run, ".jsonl") = '\0';
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "show", run, "--state", state, NULL);
	cr_assert(strstr(o.out, "unanswered") && !strstr(o.out, "pending"), "%s", o.out);
	ts_out_free(&o);

	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color %s console --state %s --open %s 2>%s/c.err", dir,
			      BELAY_BIN, state, trace, dir);
	struct ts_tmux t;
	cr_assert_eq(ts_tmux_start(&t, dir, 160, 40, cmd), 0);
	const char *shown[] = {"TURNS (1)", "run_process", "no resp", NULL};
	char *last = NULL, *scr = ts_tmux_wait(&t, shown, 30, &last);
	cr_assert_not_null(scr, "the row says the call has no response: %s", last);
	cr_assert_null(strstr(scr, "pending"), "a call of an ended run is not pending:\n%s", scr);
	free(scr);
	free(last);
	/* Open the turn on its response tab. */
	ts_tmux_keys(&t, "Enter");
	const char *opened[] = {"TURN 0", NULL};
	scr = ts_tmux_wait(&t, opened, 10, &last);
	if (!scr) {
		free(last);
		ts_tmux_keys(&t, "Tab Enter");
		scr = ts_tmux_wait(&t, opened, 10, &last);
	}
	cr_assert_not_null(scr, "the turn opens: %s", last);
	free(scr);
	free(last);
	ts_tmux_keys(&t, "2");
	const char *detail[] = {"the run ended with this call unanswered", NULL};
	scr = ts_tmux_wait(&t, detail, 20, &last);
	cr_assert_not_null(scr, "the detail says so: %s", last);
	free(scr);
	ts_tmux_kill(&t);
	free(cmd);
	free(run);
	free(trace);
	free(tmpbase);
	free(ws);
	free(traces);
	free(steps);
}

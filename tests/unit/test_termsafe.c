/* test_termsafe.c - what reaches a terminal outside the console (issue 30, class 6): the one
 * definition of unsafe characters (common/termsafe.h), shared by the console's canvas, and
 * every CLI command that prints what a contained process, a trace or an agent wrote: a file
 * name or a diff line of a trial (`belay try`, `try show`, `try apply`'s question), a
 * trace's server command, tool names and arguments (`trace show`, `runs`, `show`, `verify`),
 * and the reason an agent's hook prompt shows. Each prints a crafted string that holds an
 * escape sequence (ESC ] title BEL, ESC [ 8m "concealed"), a bidi override and a zero-width
 * space, and must print none of them raw, but each escaped where the string was. */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/termsafe.h"
#include "trace/trace_writer.h"
#include "tui/canvas.h"
#include "ts_belay.h"
#include "ts_hook.h"
#include "try_harness.h"

/* ESC ] 0 ; title BEL, ESC [ 8 m (concealed), RLO (U+202E), ZWSP (U+200B), a C1 CSI (U+009B) */
#define EVIL "ev\033]0;pwned\007il\033[8mhid\033[0m\342\200\256txt.py\342\200\213\302\233x"
#define EVIL_SHOWN "ev\\x1b]0;pwned\\x07il\\x1b[8mhid\\x1b[0m\\u202etxt.py\\u200b\\u009bx"

/* Nothing of EVIL raw in s: no ESC, BEL, RLO, ZWSP, C1 CSI. */
static void assert_clean(const char *s, const char *what)
{
	cr_assert_null(strchr(s, '\033'), "%s prints an ESC raw:\n%s", what, s);
	cr_assert_null(strchr(s, '\007'), "%s prints a BEL raw:\n%s", what, s);
	cr_assert_null(strstr(s, "\342\200\256"), "%s prints a bidi override raw:\n%s", what, s);
	cr_assert_null(strstr(s, "\342\200\213"), "%s prints a zero-width space raw:\n%s", what, s);
	cr_assert_null(strstr(s, "\302\233"), "%s prints a C1 CSI raw:\n%s", what, s);
}

/*==== the definition and the escape ====*/

Test(termsafe, classes)
{
	cr_assert_eq(termsafe_class('a'), TERMSAFE_PRINT);
	cr_assert_eq(termsafe_class(0x1B), TERMSAFE_CONTROL);
	cr_assert_eq(termsafe_class(0x7F), TERMSAFE_CONTROL);
	cr_assert_eq(termsafe_class(0x9B), TERMSAFE_CONTROL);
	cr_assert_eq(termsafe_class(0xA0), TERMSAFE_PRINT);
	cr_assert_eq(termsafe_class(0xE9), TERMSAFE_PRINT);
	static const uint32_t inv[] = {0x061C, 0x200B, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E,
				       0x2060, 0x2066, 0x2069, 0xFEFF, 0xE0041, 0x3164, 0x115F};
	for (size_t i = 0; i < sizeof inv / sizeof inv[0]; i++)
		cr_assert_eq(termsafe_class(inv[i]), TERMSAFE_INVISIBLE, "U+%04X is invisible", (unsigned)inv[i]);
	static const uint32_t ok[] = {0x202F, 0x2010, 0x4E2D, 0x1F600, 0x0301, 0xFFFD};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		cr_assert_eq(termsafe_class(ok[i]), TERMSAFE_PRINT, "U+%04X is shown", (unsigned)ok[i]);
}

Test(termsafe, escapes_what_is_unsafe_and_nothing_else)
{
	char *s = termsafe_dup(EVIL, 0);
	cr_assert_str_eq(s, EVIL_SHOWN);
	free(s);
	s = termsafe_dup("caf\303\251 \344\270\255 \360\237\230\200 a\\b", 0);
	cr_assert_str_eq(s, "caf\303\251 \344\270\255 \360\237\230\200 a\\b", "UTF-8 text and backslashes stay");
	free(s);
	s = termsafe_dup("a\nb\tc\rd", 0);
	cr_assert_str_eq(s, "a\\nb\\tc\\rd");
	free(s);
	s = termsafe_dup("a\nb\tc\rd", TERMSAFE_LINES);
	cr_assert_str_eq(s, "a\nb\tc\\rd", "lines keep newlines and tabs, not carriage returns");
	free(s);
	/* invalid UTF-8: each bad byte, and decoding goes on */
	s = termsafe_dup("x\377y\300\257z\355\240\200w\342\200", 0);
	cr_assert_str_eq(s, "x\\xffy\\xc0\\xafz\\xed\\xa0\\x80w\\xe2\\x80");
	free(s);
	s = termsafe_dup("\363\240\201\201tag", 0);
	cr_assert_str_eq(s, "\\U000e0041tag", "tag characters (invisible ASCII) are shown");
	free(s);
	s = termsafe_dup("a\\b\nc\033", TERMSAFE_BACKSLASH);
	cr_assert_str_eq(s, "a\\x5cb\\x0ac\\x1b", "listings escape backslashes too, and every control as \\xHH");
	free(s);
	s = termsafe_dup(NULL, 0);
	cr_assert_str_eq(s, "");
	free(s);
	cr_assert(termsafe_is_safe("ok \303\251", 5, 0));
	cr_assert_not(termsafe_is_safe("a\nb", 3, 0));
	cr_assert(termsafe_is_safe("a\nb", 3, TERMSAFE_LINES));
	cr_assert_not(termsafe_is_safe("a\342\200\256b", 5, TERMSAFE_LINES));
}

/* The console draws by the same definition: an invisible is dropped even in a single-byte
 * locale (where wcwidth knows nothing beyond ASCII), a control is U+FFFD. */
Test(termsafe, the_canvas_shares_the_definition)
{
	setlocale(LC_CTYPE, "C");
	cr_assert_eq(canvas_width("a\342\200\256b\342\200\213c"), 3, "bidi and zero-width controls take no column");
	struct canvas c;
	canvas_init(&c, 12, 1);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "a\342\200\256b\033c\302\233d");
	struct buf b = {0};
	canvas_dump_text(&c, &b);
	cr_assert_str_eq(buf_cstr(&b), "ab\357\277\275c\357\277\275d      \n");
	buf_free(&b);
	canvas_free(&c);
}

/*==== belay try, try show, try apply ====*/

TestSuite(termsafe_try, .init = try_setup, .fini = try_teardown, .timeout = 240);

Test(termsafe_try, a_trials_file_names_diff_lines_and_output_are_escaped)
{
	/* the trial writes a file whose name and content hold the crafted string, and says it */
	char *script = xasprintf("printf 'assert weakened \\033[8mhidden\\033[0m\\342\\200\\256\\n' > \"$(printf '%s')\"; "
				 "printf 'out \\033]0;t\\007\\n'",
				 "ev\\033]0;pwned\\007il\\033[8mhid\\033[0m\\342\\200\\256txt.py\\342\\200\\213\\302\\233x");
	struct ts_out o;
	cJSON *rec = try_run(&o, NULL, script);
	cr_assert_not_null(rec, "%s%s", o.out, o.err);
	cr_assert_not_null(try_effect(rec, EVIL), "the trial made the crafted file: %s", o.out);
	char *id = xstrdup(jx_str(rec, "id"));
	cJSON_Delete(rec);
	ts_out_free(&o);
	/* belay try itself (not --json) */
	const char *argv[] = {BELAY_BIN, "try", "--state", st, "--", "/bin/sh", "-c", script, NULL};
	const char *env[] = {tmpbase, NULL};
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, &o), 0);
	assert_clean(o.out, "belay try");
	cr_assert(strstr(o.out, EVIL_SHOWN), "belay try names the file, escaped:\n%s", o.out);
	cr_assert(strstr(o.out, "out \\x1b]0;t\\x07"), "and its output, escaped:\n%s", o.out);
	ts_out_free(&o);
	/* try show, and try apply's question (no terminal: nothing is applied) */
	static const char *const subs[] = {"show", "apply"};
	for (int i = 0; i < 2; i++) {
		try_sub(&o, subs[i], id, NULL);
		assert_clean(o.out, subs[i]);
		assert_clean(o.err, subs[i]);
		cr_assert(strstr(o.out, EVIL_SHOWN), "try %s names the file, escaped:\n%s", subs[i], o.out);
		cr_assert(strstr(o.out, "assert weakened \\x1b[8mhidden\\x1b[0m\\u202e"),
			  "try %s shows the diff line, escaped:\n%s", subs[i], o.out);
		ts_out_free(&o);
	}
	char *real = fs_join(ws, EVIL);
	cr_assert_neq(access(real, F_OK), 0, "nothing was applied without a terminal to answer");
	free(real);
	free(id);
	free(script);
}

/*==== a trace: trace show, index + runs + show, verify ====*/

/* A trace whose server command, tool name, arguments and result hold EVIL. */
static char *evil_trace(const char *in)
{
	char *path = fs_join(in, "evil.jsonl");
	struct trace_writer_opts to = {0};
	struct trace_writer *tw = NULL;
	struct err e = {0};
	cr_assert_eq(trace_writer_open_path(path, &to, &tw, &e), 0, "%s", e.msg);
	cJSON *start = cJSON_CreateObject();
	cJSON_AddStringToObject(start, "phase", "start");
	cJSON *av = cJSON_AddArrayToObject(start, "argv");
	cJSON_AddItemToArray(av, cJSON_CreateString("/nonexistent/server"));
	cJSON_AddItemToArray(av, cJSON_CreateString(EVIL));
	cJSON_AddNumberToObject(start, "pid", 1);
	trace_writer_add(tw, "server", start);
	const char *frames[][2] = {
	    {"c2s", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
		    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"},
	    {"s2c", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
		    "\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}"},
	    {"c2s", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"},
	    {"c2s", NULL},
	    {"s2c", NULL},
	};
	char *call = NULL, *res = NULL;
	{
		cJSON *o = cJSON_CreateObject(), *p;
		cJSON_AddStringToObject(o, "jsonrpc", "2.0");
		cJSON_AddNumberToObject(o, "id", 2);
		cJSON_AddStringToObject(o, "method", "tools/call");
		p = cJSON_AddObjectToObject(o, "params");
		cJSON_AddStringToObject(p, "name", EVIL);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "arguments"), "path", EVIL);
		call = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "jsonrpc", "2.0");
		cJSON_AddNumberToObject(o, "id", 2);
		cJSON *r = cJSON_AddObjectToObject(o, "result"), *c = cJSON_AddArrayToObject(r, "content"), *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "text");
		cJSON_AddStringToObject(t, "text", EVIL);
		cJSON_AddItemToArray(c, t);
		res = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
	}
	frames[3][1] = call;
	frames[4][1] = res;
	for (size_t i = 0; i < 5; i++)
		trace_writer_frame(tw, frames[i][0], frames[i][1], strlen(frames[i][1]), strlen(frames[i][1]), 0, NULL, NULL,
				   NULL);
	cr_assert_eq(trace_writer_close(tw, &e), 0, "%s", e.msg);
	free(call);
	free(res);
	return path;
}

TestSuite(termsafe_trace, .timeout = 240);

Test(termsafe_trace, a_traces_strings_are_escaped_by_every_command_that_prints_them)
{
	char *tdir, *state, *db;
	ts_state_setup("termsafe", &tdir, &state, &db);
	char *trace = evil_trace(tdir);
	struct ts_out o;
	ts_belay(&o, NULL, "trace", "show", trace, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	assert_clean(o.out, "trace show");
	cr_assert(strstr(o.out, EVIL_SHOWN), "trace show names the server's argument, escaped:\n%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "runs", "--state", state, "--json", NULL);
	cJSON *run = cJSON_Parse(o.out);
	cr_assert_not_null(run, "%s", o.out);
	char *id = xstrdup(jx_str(run, "id"));
	cJSON_Delete(run);
	ts_out_free(&o);
	ts_belay(&o, NULL, "runs", "--state", state, NULL);
	assert_clean(o.out, "runs");
	ts_out_free(&o);
	ts_belay(&o, NULL, "show", id, "--state", state, NULL);
	assert_clean(o.out, "show RUN");
	cr_assert(strstr(o.out, "ev\\x1b]0"), "show names the tool, escaped:\n%s", o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "show", id, "--turn", "0", "--state", state, NULL);
	assert_clean(o.out, "show RUN --turn 0");
	cr_assert(strstr(o.out, EVIL_SHOWN), "show --turn names the tool, escaped:\n%s", o.out);
	ts_out_free(&o);
	/* --json keeps JSON's escaping only: the string comes back as it was */
	ts_belay(&o, NULL, "show", id, "--turn", "0", "--state", state, "--json", NULL);
	cJSON *j = cJSON_Parse(o.out);
	cr_assert_not_null(j, "%s", o.out);
	cr_assert_str_eq(jx_str(j, "tool"), EVIL, "--json is not escaped twice");
	cJSON_Delete(j);
	ts_out_free(&o);
	ts_belay(&o, NULL, "verify", trace, "--state", state, NULL);
	assert_clean(o.out, "verify");
	assert_clean(o.err, "verify");
	cr_assert(strstr(o.out, "ev\\x1b]0"), "verify names the tool, escaped:\n%s%s", o.out, o.err);
	ts_out_free(&o);
	free(id);
	free(trace);
	ts_state_teardown(tdir, state, db);
}

/*==== an agent's hook prompt ====*/

TestSuite(termsafe_hook, .timeout = 120);

Test(termsafe_hook, the_reason_a_hook_prompt_shows_is_escaped)
{
	struct ts_world w;
	ts_world_setup(&w, "termsafe-hook");
	/* a write outside the workspace asks, naming the path the agent wrote */
	cJSON *ev = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(ev, "tool_input");
	cJSON_AddStringToObject(ev, "session_id", "s-termsafe");
	cJSON_AddStringToObject(ev, "hook_event_name", "PreToolUse");
	cJSON_AddStringToObject(ev, "tool_name", "Bash");
	cJSON_AddStringToObject(ev, "tool_use_id", "toolu_termsafe");
	char *cmd = xasprintf("rm -f '/etc/%s'", EVIL);
	cJSON_AddStringToObject(in, "command", cmd);
	cJSON_AddStringToObject(ev, "cwd", w.ws);
	char *payload = cJSON_PrintUnformatted(ev);
	struct ts_out o;
	static const char *const enforce[] = {"--mode", "enforce", NULL};
	ts_hook(&w, "claude-code", enforce, NULL, payload, &o);
	cJSON *ans = cJSON_Parse(o.out);
	cr_assert_not_null(ans, "stdout: %s\nstderr: %s", o.out, o.err);
	const char *why = jx_str(cJSON_GetObjectItemCaseSensitive(ans, "hookSpecificOutput"), "permissionDecisionReason");
	cr_assert_not_null(why, "%s", o.out);
	assert_clean(why, "the hook's reason");
	cr_assert(strstr(why, "\\x1b]0;pwned"), "the reason names the path, escaped: %s", why);
	cJSON_Delete(ans);
	ts_out_free(&o);
	free(payload);
	free(cmd);
	cJSON_Delete(ev);
	ts_world_teardown(&w);
}

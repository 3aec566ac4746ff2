/* test_hook_event.c - the agents' hook payloads read into one shape (Claude Code, Cursor,
 * Codex, with unknown extra fields and malformed input), the answers in each agent's form
 * (never an explicit allow), and the gate on built-in tools (shell, edits, reads, mcp__*). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "hook/hook_answer.h"
#include "hook/hook_event.h"
#include "hook/hook_plan.h"
#include "ts_gate.h"

static void parse_ok(enum hook_agent a, const char *json, struct hook_event *ev)
{
	struct err e = {0};
	int rc = hook_event_parse(a, json, strlen(json), ev, &e);
	cr_assert_eq(rc, 0, "%s: %s", json, e.msg);
}

Test(hook_event, claude_code_payloads_as_the_cli_sends_them)
{
	/* recorded from claude 2.1.332 (tests/peers), with fields belay does not know */
	struct hook_event ev;
	parse_ok(HA_CLAUDE_CODE,
		 "{\"session_id\":\"s1\",\"transcript_path\":\"/h/t.jsonl\",\"cwd\":\"/ws\",\"prompt_id\":\"p\","
		 "\"permission_mode\":\"acceptEdits\",\"effort\":{\"level\":\"medium\"},\"hook_event_name\":\"PreToolUse\","
		 "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"echo hi > a.txt\",\"description\":\"w\"},"
		 "\"tool_use_id\":\"toolu_01\",\"some_future_field\":[1,2]}",
		 &ev);
	cr_expect_eq(ev.kind, HK_PRE_TOOL);
	cr_expect_eq(ev.cls, HT_SHELL);
	cr_expect_str_eq(ev.session, "s1");
	cr_expect_str_eq(ev.command, "echo hi > a.txt");
	cr_expect_str_eq(ev.tool_use_id, "toolu_01");
	hook_event_free(&ev);
	parse_ok(HA_CLAUDE_CODE,
		 "{\"session_id\":\"s1\",\"cwd\":\"/ws\",\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\","
		 "\"tool_input\":{\"command\":\"false\"},\"tool_use_id\":\"toolu_05\",\"error\":\"Exit code 1\","
		 "\"is_interrupt\":false,\"duration_ms\":8}",
		 &ev);
	cr_expect_eq(ev.kind, HK_POST_TOOL_FAILURE);
	cr_expect_str_eq(ev.error, "Exit code 1");
	hook_event_free(&ev);
	parse_ok(HA_CLAUDE_CODE,
		 "{\"session_id\":\"s1\",\"hook_event_name\":\"Stop\",\"stop_hook_active\":false,"
		 "\"last_assistant_message\":\"All tests pass.\",\"background_tasks\":[]}",
		 &ev);
	cr_expect_eq(ev.kind, HK_STOP);
	cr_expect_str_eq(ev.last_message, "All tests pass.");
	hook_event_free(&ev);
	/* the subagent tool is Task in some versions and Agent in others; MultiEdit may be absent */
	cr_expect_eq(hook_tool_classify(HA_CLAUDE_CODE, "Task"), HT_SUBAGENT);
	cr_expect_eq(hook_tool_classify(HA_CLAUDE_CODE, "Agent"), HT_SUBAGENT);
	cr_expect_eq(hook_tool_classify(HA_CLAUDE_CODE, "MultiEdit"), HT_EDIT);
	cr_expect_eq(hook_tool_classify(HA_CLAUDE_CODE, "mcp__fs__read_file"), HT_MCP);
	cr_expect_eq(hook_tool_classify(HA_CLAUDE_CODE, "Grep"), HT_READ);
	cr_expect_eq(hook_tool_classify(HA_CLAUDE_CODE, "WebFetch"), HT_OTHER);
}

Test(hook_event, cursor_flat_events_become_tool_calls)
{
	struct hook_event ev;
	parse_ok(HA_CURSOR,
		 "{\"conversation_id\":\"c9\",\"generation_id\":\"g\",\"hook_event_name\":\"beforeShellExecution\","
		 "\"command\":\"npm test\",\"cwd\":\"/ws\",\"workspace_roots\":[\"/ws\"]}",
		 &ev);
	cr_expect_eq(ev.kind, HK_PRE_TOOL);
	cr_expect_eq(ev.cls, HT_SHELL);
	cr_expect_str_eq(ev.session, "c9");
	cr_expect_str_eq(ev.tool, "Shell");
	cr_expect_str_eq(ev.command, "npm test");
	hook_event_free(&ev);
	parse_ok(HA_CURSOR,
		 "{\"conversation_id\":\"c9\",\"hook_event_name\":\"afterFileEdit\",\"file_path\":\"/ws/a.py\","
		 "\"edits\":[{\"old_string\":\"a\",\"new_string\":\"b\"}],\"workspace_roots\":[\"/ws\"]}",
		 &ev);
	cr_expect_eq(ev.kind, HK_POST_ONLY);
	cr_expect_eq(ev.cls, HT_EDIT);
	cr_expect_str_eq(ev.cwd, "/ws", "no cwd: the first workspace root");
	hook_event_free(&ev);
	parse_ok(HA_CURSOR,
		 "{\"conversation_id\":\"c9\",\"hook_event_name\":\"beforeMCPExecution\",\"tool_name\":\"write_file\","
		 "\"tool_input\":{\"path\":\"/etc/x\"}}",
		 &ev);
	cr_expect_eq(ev.cls, HT_MCP);
	hook_event_free(&ev);
}

Test(hook_event, codex_shell_argv_and_apply_patch)
{
	struct hook_event ev;
	parse_ok(HA_CODEX,
		 "{\"session_id\":\"x\",\"cwd\":\"/ws\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"shell\","
		 "\"tool_input\":{\"command\":[\"bash\",\"-lc\",\"rm -rf build\"]},\"model\":\"gpt\"}",
		 &ev);
	cr_expect_eq(ev.cls, HT_SHELL);
	cr_expect_str_eq(ev.command, "rm -rf build");
	hook_event_free(&ev);
	parse_ok(HA_CODEX,
		 "{\"session_id\":\"x\",\"cwd\":\"/ws\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"exec_command\","
		 "\"tool_input\":{\"cmd\":[\"ls\",\"it's here\"]}}",
		 &ev);
	cr_expect_str_eq(ev.command, "'ls' 'it'\\''s here'", "each word quoted, so it stays one word");
	hook_event_free(&ev);
	parse_ok(HA_CODEX,
		 "{\"session_id\":\"x\",\"cwd\":\"/ws\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"apply_patch\","
		 "\"tool_input\":{\"command\":\"*** Begin Patch\\n*** Update File: src/a.c\\n@@\\n-x\\n+y\\n"
		 "*** Delete File: old.c\\n*** End Patch\\n\"}}",
		 &ev);
	cr_expect_eq(ev.cls, HT_EDIT);
	char **paths;
	int del;
	size_t n = hook_patch_targets(ev.command, &paths, &del);
	cr_assert_eq(n, 2);
	cr_expect_str_eq(paths[0], "src/a.c");
	cr_expect_str_eq(paths[1], "old.c");
	cr_expect(del);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	hook_event_free(&ev);
}

Test(hook_event, malformed_payloads_are_named_errors)
{
	static const char *const bad[][2] = {
		{"not json at all", "not JSON"},
		{"[1,2]", "not a JSON object"},
		{"{\"session_id\":\"s\"}", "no \"hook_event_name\""},
		{"{\"hook_event_name\":\"BeforeEverything\"}", "unknown claude-code hook event \"BeforeEverything\""},
		{"{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{}}", "names no tool"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct hook_event ev;
		struct err e = {0};
		cr_expect_neq(hook_event_parse(HA_CLAUDE_CODE, bad[i][0], strlen(bad[i][0]), &ev, &e), 0, "%s", bad[i][0]);
		cr_expect(strstr(e.msg, bad[i][1]), "%s: message '%s' lacks '%s'", bad[i][0], e.msg, bad[i][1]);
		hook_event_free(&ev);
	}
	/* a Cursor event name is not a Claude Code one */
	struct hook_event ev;
	struct err e = {0};
	const char *p = "{\"hook_event_name\":\"beforeShellExecution\",\"command\":\"ls\"}";
	cr_expect_neq(hook_event_parse(HA_CLAUDE_CODE, p, strlen(p), &ev, &e), 0);
	hook_event_free(&ev);
}

static char *render(enum hook_agent a, const char *event, enum hook_kind k, enum hook_answer_kind kind, int *code,
		    char **err)
{
	struct hook_answer ans = {0};
	if (kind != HANS_NONE)
		hook_answer_set(&ans, kind, "belay: because");
	struct buf out = {0}, eb = {0};
	hook_answer_render(a, event, k, &ans, &out, &eb, code);
	hook_answer_free(&ans);
	*err = buf_take(&eb);
	char *s = buf_take(&out);
	return s ? s : xstrdup("");
}

Test(hook_event, answers_never_say_allow)
{
	int code;
	char *err;
	/* let through: nothing at all (the agent's own permission flow applies) */
	char *s = render(HA_CLAUDE_CODE, "PreToolUse", HK_PRE_TOOL, HANS_NONE, &code, &err);
	cr_expect_str_eq(s, "");
	cr_expect_eq(code, 0);
	free(s);
	free(err);
	s = render(HA_CLAUDE_CODE, "PreToolUse", HK_PRE_TOOL, HANS_ASK, &code, &err);
	cJSON *o = cJSON_Parse(s);
	cr_expect_str_eq(jx_str(jx_obj(o, "hookSpecificOutput"), "permissionDecision"), "ask");
	cr_expect_str_eq(jx_str(jx_obj(o, "hookSpecificOutput"), "permissionDecisionReason"), "belay: because");
	cr_expect_str_eq(jx_str(jx_obj(o, "hookSpecificOutput"), "hookEventName"), "PreToolUse");
	cJSON_Delete(o);
	free(s);
	free(err);
	s = render(HA_CODEX, "PreToolUse", HK_PRE_TOOL, HANS_DENY, &code, &err);
	cr_expect(strstr(s, "\"permissionDecision\":\"deny\""), "%s", s);
	free(s);
	free(err);
	s = render(HA_CURSOR, "beforeShellExecution", HK_PRE_TOOL, HANS_NONE, &code, &err);
	cr_expect_str_eq(s, "{}\n", "Cursor: no permission field, not an allow");
	free(s);
	free(err);
	s = render(HA_CURSOR, "beforeShellExecution", HK_PRE_TOOL, HANS_ASK, &code, &err);
	cr_expect(strstr(s, "\"permission\":\"ask\"") && strstr(s, "\"user_message\"") && strstr(s, "\"agent_message\""),
		  "%s", s);
	free(s);
	free(err);
	s = render(HA_CURSOR, "beforeSubmitPrompt", HK_PROMPT, HANS_NONE, &code, &err);
	cr_expect_str_eq(s, "{\"continue\":true}\n");
	free(s);
	free(err);
	/* every form, every agent: never an explicit allow */
	for (int a = 0; a < HA__COUNT; a++)
		for (int k = HANS_NONE; k <= HANS_DENY; k++) {
			s = render((enum hook_agent)a, a == HA_CURSOR ? "beforeShellExecution" : "PreToolUse", HK_PRE_TOOL,
				   (enum hook_answer_kind)k, &code, &err);
			cr_expect(!strstr(s, "allow"), "%s: %s", hook_agent_name((enum hook_agent)a), s);
			free(s);
			free(err);
		}
}

Test(hook_event, failures_answer_with_the_deny_form)
{
	struct buf out = {0}, err = {0};
	int code;
	hook_answer_failure(HA_CLAUDE_CODE, "PreToolUse", 1, "the store is gone", &out, &err, &code);
	cr_expect_eq(code, 0);
	cr_expect(strstr(buf_cstr(&out), "\"permissionDecision\":\"deny\""));
	cr_expect(strstr(buf_cstr(&out), "the store is gone") && strstr(buf_cstr(&out), "belay doctor"));
	buf_reset(&out);
	buf_reset(&err);
	/* which event it was is unknown: the blocking exit */
	hook_answer_failure(HA_CLAUDE_CODE, NULL, 0, "not JSON", &out, &err, &code);
	cr_expect_eq(code, 2);
	cr_expect(strstr(buf_cstr(&err), "not JSON"));
	buf_reset(&out);
	buf_reset(&err);
	hook_answer_failure(HA_CURSOR, "beforeShellExecution", 1, "x", &out, &err, &code);
	cr_expect(strstr(buf_cstr(&out), "\"permission\":\"deny\""));
	buf_free(&out);
	buf_free(&err);
}

/*==== the gate on built-in tools ====*/

static struct effect_plan *plan(enum hook_agent a, const char *json, int *mutating)
{
	static const char *const ctl[] = {"/ws/proj/.claude/settings.json", "/home/u/.codex/hooks.json", NULL};
	struct gate_ctx ctx = {"/ws/proj", "/ws/proj", "/home/u", "/home/u/.local/state/belay", ctl};
	struct hook_event ev;
	parse_ok(a, json, &ev);
	struct effect_plan *p = hook_plan_event(&ev, &ctx, NULL, mutating);
	hook_event_free(&ev);
	return p;
}

#define PRE(tool, input) \
	"{\"session_id\":\"s\",\"cwd\":\"/ws/proj\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"" tool \
	"\",\"tool_input\":" input "}"

static void expect(const char *json, enum gate_decision d, int mut, enum effect_kind k, const char *res)
{
	int m = -1;
	struct effect_plan *p = plan(HA_CLAUDE_CODE, json, &m);
	cr_expect_eq(effect_plan_decision(p), d, "%s: %s", json, gate_decision_name(effect_plan_decision(p)));
	cr_expect_eq(m, mut, "%s: mutating %d", json, m);
	if (res)
		cr_expect(ts_plan_has(p, k, res), "%s: no %s %s", json, effect_kind_name(k), res);
	effect_plan_free(p);
}

Test(hook_event, the_gate_on_built_in_tools)
{
	expect(PRE("Bash", "{\"command\":\"ls -la\"}"), GATE_ALLOW, 0, EK_FS_READ, "/ws/proj");
	expect(PRE("Bash", "{\"command\":\"rm -rf build\"}"), GATE_ALLOW_FLAGGED, 1, EK_FS_DESTROY, "/ws/proj/build");
	expect(PRE("Bash", "{\"command\":\"rm -rf ~/notes\"}"), GATE_ASK, 1, EK_FS_DESTROY_OUTSIDE, "/home/u/notes");
	expect(PRE("Bash", "{\"command\":\"belay approve 1234\"}"), GATE_DENY, 1, EK_CONTROL_WRITE, NULL);
	expect(PRE("Write", "{\"file_path\":\"/ws/proj/a.py\",\"content\":\"rm -rf / ; curl evil\"}"), GATE_ALLOW_FLAGGED, 1,
	       EK_FS_WRITE, "/ws/proj/a.py");
	expect(PRE("Edit", "{\"file_path\":\"/etc/hosts\",\"old_string\":\"a\",\"new_string\":\"b\"}"), GATE_ASK, 1,
	       EK_FS_WRITE_OUTSIDE, "/etc/hosts");
	expect(PRE("Edit", "{\"file_path\":\"/ws/proj/.env\",\"old_string\":\"a\",\"new_string\":\"b\"}"), GATE_ASK, 1,
	       EK_SECRET_WRITE, "/ws/proj/.env");
	/* the agent's own hooks: switching belay off is a control-file write */
	expect(PRE("Write", "{\"file_path\":\"/ws/proj/.claude/settings.json\",\"content\":\"{}\"}"), GATE_DENY, 1,
	       EK_CONTROL_WRITE, "/ws/proj/.claude/settings.json");
	expect(PRE("Write", "{\"file_path\":\"/home/u/.local/state/belay/belay.db\",\"content\":\"\"}"), GATE_DENY, 1,
	       EK_CONTROL_WRITE, NULL);
	expect(PRE("Read", "{\"file_path\":\"/ws/proj/src/a.c\"}"), GATE_ALLOW, 0, EK_FS_READ, "/ws/proj/src/a.c");
	expect(PRE("Read", "{\"file_path\":\"/home/u/.ssh/id_rsa\"}"), GATE_ASK, 0, EK_SECRET_READ, "id_rsa");
	expect(PRE("Grep", "{\"pattern\":\"TODO\",\"path\":\"/ws/proj\"}"), GATE_ALLOW, 0, EK_FS_READ, NULL);
	expect(PRE("Task", "{\"description\":\"look\",\"prompt\":\"rm -rf /\"}"), GATE_ALLOW, 0, EK_FS_READ, NULL);
	expect(PRE("mcp__fs__write_file", "{\"path\":\"/tmp/x\",\"content\":\"y\"}"), GATE_ASK, 1, EK_FS_WRITE_OUTSIDE,
	       "/tmp/x");
	expect(PRE("SomeNewTool", "{\"x\":1}"), GATE_ASK, 1, EK_INDETERMINATE, NULL);
	/* Codex's apply_patch: the files named in the patch */
	int m;
	struct effect_plan *p = plan(HA_CODEX,
				     PRE("apply_patch", "{\"command\":\"*** Begin Patch\\n*** Add File: ../../outside.txt\\n"
							"+x\\n*** End Patch\\n\"}"),
				     &m);
	cr_expect_eq(effect_plan_decision(p), GATE_ASK);
	cr_expect(ts_plan_has(p, EK_FS_WRITE_OUTSIDE, "/outside.txt"));
	effect_plan_free(p);
	p = plan(HA_CODEX, PRE("apply_patch", "{\"command\":\"*** Begin Patch\\n*** Update File: src/m.c\\n*** End Patch\"}"),
		 &m);
	cr_expect_eq(effect_plan_decision(p), GATE_ALLOW_FLAGGED);
	cr_expect(ts_plan_has(p, EK_FS_WRITE, "/ws/proj/src/m.c"));
	effect_plan_free(p);
	p = plan(HA_CODEX, PRE("apply_patch", "{\"command\":\"not a patch\"}"), &m);
	cr_expect_eq(effect_plan_decision(p), GATE_ASK, "a patch naming no file is indeterminate");
	effect_plan_free(p);
}

/*==== Gemini CLI ====*/

/* Payloads recorded from gemini 0.61.0 (tests/peers) with a capturing hook. */
Test(hook_event, gemini_cli_payloads_as_the_cli_sends_them)
{
	struct hook_event ev;
	parse_ok(HA_GEMINI,
		 "{\"session_id\":\"def6\",\"transcript_path\":\"/h/.gemini/tmp/ws/chats/s.jsonl\",\"cwd\":\"/ws\","
		 "\"hook_event_name\":\"BeforeTool\",\"timestamp\":\"2026-12-06T05:02:01.407Z\",\"tool_name\":\"run_shell_command\","
		 "\"tool_input\":{\"command\":\"echo hi > made2.txt; echo done\"}}",
		 &ev);
	cr_expect_eq(ev.kind, HK_PRE_TOOL);
	cr_expect_eq(ev.cls, HT_SHELL);
	cr_expect_str_eq(ev.session, "def6");
	cr_expect_str_eq(ev.command, "echo hi > made2.txt; echo done");
	cr_expect_null(ev.tool_use_id, "Gemini CLI sends no call id: pre and post pair by command");
	hook_event_free(&ev);
	/* a command that exited 3: a failure, its status in the form belay reads */
	parse_ok(HA_GEMINI,
		 "{\"session_id\":\"d1\",\"cwd\":\"/ws\",\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		 "\"tool_input\":{\"command\":\"echo out; echo err >&2; exit 3\"},\"tool_response\":{\"llmContent\":"
		 "\"<untrusted_context>\\nOutput: out\\nerr\\nExit Code: 3\\nProcess Group PGID: 30229\\n</untrusted_context>\","
		 "\"returnDisplay\":\"out\\nerr\"}}",
		 &ev);
	cr_expect_eq(ev.kind, HK_POST_TOOL_FAILURE);
	cr_expect_str_eq(ev.error, "Exit code 3");
	hook_event_free(&ev);
	/* an "Exit Code:" the command printed itself, with its own output after it, is not read */
	parse_ok(HA_GEMINI,
		 "{\"session_id\":\"d1\",\"cwd\":\"/ws\",\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		 "\"tool_input\":{\"command\":\"cat log\"},\"tool_response\":{\"llmContent\":"
		 "\"<untrusted_context>\\nOutput: a\\nExit Code: 7\\nmore\\nProcess Group PGID: 1\\n</untrusted_context>\"}}",
		 &ev);
	cr_expect_eq(ev.kind, HK_POST_TOOL);
	cr_expect_null(ev.error);
	hook_event_free(&ev);
	/* a command belay rewrote to run contained comes back rewritten: read as the original */
	parse_ok(HA_GEMINI,
		 "{\"session_id\":\"d1\",\"cwd\":\"/ws\",\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		 "\"tool_input\":{\"command\":\"'/b/belay' exec --run 'hook-gemini-cli-d1' --turn 0 --network deny --state '/s' "
		 "--trace-dir '/s/traces' -- bash -c 'echo '\\\\''hi'\\\\'' > a.txt'\"},\"tool_response\":{\"llmContent\":\"x\"}}",
		 &ev);
	cr_expect_str_eq(ev.command, "echo 'hi' > a.txt");
	hook_event_free(&ev);
	/* a tool that failed: its error */
	parse_ok(HA_GEMINI,
		 "{\"session_id\":\"d1\",\"cwd\":\"/ws\",\"hook_event_name\":\"AfterTool\",\"tool_name\":\"replace\","
		 "\"tool_input\":{\"file_path\":\"a.py\",\"old_string\":\"x\",\"new_string\":\"y\"},\"tool_response\":{"
		 "\"llmContent\":\"Error\",\"returnDisplay\":\"Error\",\"error\":{\"message\":\"0 occurrences found\","
		 "\"type\":\"edit_no_occurrence_found\"}}}",
		 &ev);
	cr_expect_eq(ev.kind, HK_POST_TOOL_FAILURE);
	cr_expect_eq(ev.cls, HT_EDIT);
	cr_expect_str_eq(ev.error, "0 occurrences found");
	hook_event_free(&ev);
	parse_ok(HA_GEMINI,
		 "{\"session_id\":\"d1\",\"cwd\":\"/ws\",\"hook_event_name\":\"AfterAgent\",\"prompt\":\"fix it\","
		 "\"prompt_response\":\"All done.\",\"stop_hook_active\":false}",
		 &ev);
	cr_expect_eq(ev.kind, HK_STOP);
	cr_expect_str_eq(ev.last_message, "All done.", "AfterAgent's prompt_response is the claim");
	hook_event_free(&ev);
	parse_ok(HA_GEMINI, "{\"session_id\":\"d1\",\"hook_event_name\":\"BeforeAgent\",\"prompt\":\"fix it\"}", &ev);
	cr_expect_eq(ev.kind, HK_PROMPT);
	hook_event_free(&ev);
	parse_ok(HA_GEMINI, "{\"session_id\":\"d1\",\"hook_event_name\":\"BeforeModel\",\"llm_request\":{}}", &ev);
	cr_expect_eq(ev.kind, HK_NOTICE);
	hook_event_free(&ev);
	/* Claude Code's names are not Gemini CLI's */
	struct err e = {0};
	const char *p = "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{}}";
	cr_expect_neq(hook_event_parse(HA_GEMINI, p, strlen(p), &ev, &e), 0);
	hook_event_free(&ev);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "write_file"), HT_EDIT);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "replace"), HT_EDIT);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "read_many_files"), HT_READ);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "grep_search"), HT_READ);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "mcp_fs_write_file"), HT_MCP);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "google_web_search"), HT_OTHER);
	cr_expect_eq(hook_tool_classify(HA_GEMINI, "Bash"), HT_OTHER, "not a Gemini CLI tool");
}

Test(hook_event, gemini_cli_answers)
{
	int code;
	char *err;
	/* let through: an empty object (never nothing: Gemini CLI would read stderr instead) */
	char *s = render(HA_GEMINI, "BeforeTool", HK_PRE_TOOL, HANS_NONE, &code, &err);
	cr_expect_str_eq(s, "{}\n");
	cr_expect_eq(code, 0);
	free(s);
	free(err);
	s = render(HA_GEMINI, "BeforeTool", HK_PRE_TOOL, HANS_DENY, &code, &err);
	cr_expect_str_eq(s, "{\"decision\":\"deny\",\"reason\":\"belay: because\"}\n");
	cr_expect_str_eq(err, "");
	free(s);
	free(err);
	/* the prompt refused: BeforeAgent's deny */
	s = render(HA_GEMINI, "BeforeAgent", HK_PROMPT, HANS_DENY, &code, &err);
	cr_expect_str_eq(s, "{\"decision\":\"deny\",\"reason\":\"belay: because\"}\n");
	free(s);
	free(err);
	/* after the fact nothing is refused: AfterTool's deny would hide the output, AfterAgent's
	 * would make the model retry */
	s = render(HA_GEMINI, "AfterTool", HK_POST_TOOL, HANS_DENY, &code, &err);
	cr_expect_str_eq(s, "{}\n");
	cr_expect_str_eq(err, "belay: because\n");
	free(s);
	free(err);
	s = render(HA_GEMINI, "AfterAgent", HK_STOP, HANS_DENY, &code, &err);
	cr_expect_str_eq(s, "{}\n");
	free(s);
	free(err);
	/* a rewritten command (--contain): hookSpecificOutput.tool_input, which Gemini merges */
	struct hook_answer ans = {0};
	ans.updated_input = cJSON_Parse("{\"command\":\"belay exec -- bash -c ls\"}");
	struct buf out = {0}, eb = {0};
	hook_answer_render(HA_GEMINI, "BeforeTool", HK_PRE_TOOL, &ans, &out, &eb, &code);
	cr_expect_str_eq(buf_cstr(&out), "{\"hookSpecificOutput\":{\"tool_input\":{\"command\":\"belay exec -- bash -c ls\"}}}\n");
	hook_answer_free(&ans);
	buf_reset(&out);
	buf_reset(&eb);
	/* belay failing: the deny form on BeforeTool, the blocking exit when the event is unknown */
	hook_answer_failure(HA_GEMINI, "BeforeTool", 1, "the store is gone", &out, &eb, &code);
	cr_expect_eq(code, 0);
	cr_expect(strstr(buf_cstr(&out), "\"decision\":\"deny\"") && strstr(buf_cstr(&out), "the store is gone"), "%s",
		  buf_cstr(&out));
	buf_reset(&out);
	buf_reset(&eb);
	hook_answer_failure(HA_GEMINI, NULL, 0, "not JSON", &out, &eb, &code);
	cr_expect_eq(code, 2);
	cr_expect_str_eq(buf_cstr(&out), "", "stdout empty: Gemini CLI takes stderr as the reason of exit 2");
	cr_expect(strstr(buf_cstr(&eb), "not JSON"));
	buf_free(&out);
	buf_free(&eb);
}

Test(hook_event, the_gate_on_gemini_cli_tools)
{
#define GPRE(tool, input) \
	"{\"session_id\":\"s\",\"cwd\":\"/ws/proj\",\"hook_event_name\":\"BeforeTool\",\"tool_name\":\"" tool \
	"\",\"tool_input\":" input "}"
	static const struct {
		const char *json;
		enum gate_decision d;
		int mut;
		enum effect_kind k;
		const char *res;
	} cases[] = {
		{GPRE("write_file", "{\"file_path\":\"/ws/proj/a.py\",\"content\":\"rm -rf /\"}"), GATE_ALLOW_FLAGGED, 1,
		 EK_FS_WRITE, "/ws/proj/a.py"},
		{GPRE("replace", "{\"file_path\":\"/etc/hosts\",\"old_string\":\"a\",\"new_string\":\"b\"}"), GATE_ASK, 1,
		 EK_FS_WRITE_OUTSIDE, "/etc/hosts"},
		/* its own hooks: a control-file write */
		{GPRE("write_file", "{\"file_path\":\"/ws/proj/.gemini/settings.json\",\"content\":\"{}\"}"), GATE_DENY, 1,
		 EK_CONTROL_WRITE, "/ws/proj/.gemini/settings.json"},
		{GPRE("read_file", "{\"file_path\":\"/home/u/.ssh/id_rsa\"}"), GATE_ASK, 0, EK_SECRET_READ, "id_rsa"},
		{GPRE("list_directory", "{\"dir_path\":\"/ws/proj\"}"), GATE_ALLOW, 0, EK_FS_READ, NULL},
		{GPRE("run_shell_command", "{\"command\":\"rm -rf ~/notes\"}"), GATE_ASK, 1, EK_FS_DESTROY_OUTSIDE,
		 "/home/u/notes"},
	};
	static const char *const ctl[] = {"/ws/proj/.gemini/settings.json", NULL};
	struct gate_ctx ctx = {"/ws/proj", "/ws/proj", "/home/u", "/home/u/.local/state/belay", ctl};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct hook_event ev;
		parse_ok(HA_GEMINI, cases[i].json, &ev);
		int m = -1;
		struct effect_plan *p = hook_plan_event(&ev, &ctx, NULL, &m);
		cr_expect_eq(effect_plan_decision(p), cases[i].d, "%s: %s", cases[i].json, gate_decision_name(effect_plan_decision(p)));
		cr_expect_eq(m, cases[i].mut, "%s: mutating %d", cases[i].json, m);
		if (cases[i].res)
			cr_expect(ts_plan_has(p, cases[i].k, cases[i].res), "%s: no %s %s", cases[i].json,
				  effect_kind_name(cases[i].k), cases[i].res);
		effect_plan_free(p);
		hook_event_free(&ev);
	}
	/* the agents' configurations belay protects include Gemini CLI's, project and home */
	char **v = hook_plan_agent_configs("/ws/proj", "/home/u");
	int proj = 0, home = 0;
	for (char **x = v; *x; x++) {
		proj |= !strcmp(*x, "/ws/proj/.gemini/settings.json");
		home |= !strcmp(*x, "/home/u/.gemini/settings.json");
	}
	cr_expect(proj && home);
	hook_plan_free_paths(v);
#undef GPRE
}

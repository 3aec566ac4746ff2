/* ts_belay.c - see ts_belay.h. */
#include "ts_belay.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

const char *const ts_demo_lines[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"ts\",\"version\":\"1\"}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
    "call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/"
    "call\",\"params\":{\"name\":\"write_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\",\"content\":\"def test_a():\\n    assert True\\n\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"run_tests\",\"arguments\":{}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/"
    "call\",\"params\":{\"name\":\"summarize\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"no_such_tool\",\"arguments\":{}}}",
    NULL,
};

const char *const ts_read_lines[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"ts\",\"version\":\"1\"}}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":"
    "\"tests/test_a.py\"}}}",
    NULL,
};

char *ts_place(const char *trace, const char *to, const char *name)
{
	cr_assert_eq(fs_mkdir_p(to, 0700, NULL), 0);
	char *file = xasprintf("%s/%s.jsonl", to, name);
	cr_assert_eq(rename(trace, file), 0, "rename %s", trace);
	return file;
}

void ts_state_setup(const char *tag, char **dir, char **state, char **db)
{
	*dir = ts_tmpdir(tag);
	*state = fs_join(*dir, "state");
	*db = fs_join(*state, "belay.db");
}

void ts_state_teardown(char *dir, char *state, char *db)
{
	ts_rmtree(dir);
	free(dir);
	free(state);
	free(db);
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

static size_t count_nl(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

int ts_mcp_session(const char *const *argv, const char *const *env, const char *const *lines, int timeout_s,
		   struct ts_out *o)
{
	int fd[3];
	pid_t pid = ts_spawn(argv, env, NULL, o, fd);
	if (pid < 0)
		return -1;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 0, out_open = 1, err_open = 1;
	size_t want = 0;
	for (const char *const *l = lines; *l && rc == 0; l++) {
		struct buf b = {0};
		buf_puts(&b, *l);
		buf_putc(&b, '\n');
		if (fs_write_all(fd[0], b.p, b.len) != 0)
			rc = -1;
		buf_free(&b);
		if (strstr(*l, "\"id\""))
			want++;
		while (rc == 0 && count_nl(o->out, o->out_len) < want) {
			if (ms_since(&t0) > timeout_s * 1000L) {
				rc = -1;
				break;
			}
			struct pollfd fds[2] = {{fd[1], POLLIN, 0}, {fd[2], POLLIN, 0}};
			if (poll(fds, 2, 200) < 0 && errno != EINTR)
				rc = -1;
			if (fds[0].revents && !(out_open = ts_read_some(fd[1], &o->out, &o->out_len)))
				rc = -1;
			if (err_open && fds[1].revents)
				err_open = ts_read_some(fd[2], &o->err, &o->err_len);
		}
	}
	close(fd[0]);
	while (out_open || err_open) {
		if (ms_since(&t0) > timeout_s * 1000L) {
			kill(pid, SIGKILL);
			o->timed_out = 1;
			rc = -1;
			break;
		}
		struct pollfd fds[2] = {{out_open ? fd[1] : -1, POLLIN, 0}, {err_open ? fd[2] : -1, POLLIN, 0}};
		if (poll(fds, 2, 200) < 0 && errno != EINTR)
			break;
		if (out_open && fds[0].revents)
			out_open = ts_read_some(fd[1], &o->out, &o->out_len);
		if (err_open && fds[1].revents)
			err_open = ts_read_some(fd[2], &o->err, &o->err_len);
	}
	close(fd[1]);
	close(fd[2]);
	ts_reap(pid, o);
	return rc;
}

char *ts_record_demo(const char *dir, const char *const *lines, const char *const *extra)
{
	return ts_record_server(dir, lines, extra, NULL);
}

char *ts_record_server(const char *dir, const char *const *lines, const char *const *extra, const char *const *server)
{
	char *ws = fs_join(dir, "ws"), *tests = fs_join(ws, "tests"), *state = fs_join(dir, "state");
	char *traces = fs_join(dir, "traces"), *file = fs_join(tests, "test_a.py");
	struct stat sb;
	if (stat(file, &sb) != 0) {
		cr_assert_eq(fs_mkdir_p(tests, 0755, NULL), 0);
		ts_write_file(file, "def test_a():\n    assert 1 + 1 == 2\n", 35);
	}
	const char *argv[32];
	int k = 0;
	argv[k++] = BELAY_BIN;
	argv[k++] = "proxy";
	argv[k++] = "--scope";
	argv[k++] = ws;
	argv[k++] = "--state";
	argv[k++] = state;
	argv[k++] = "--trace-dir";
	argv[k++] = traces;
	for (const char *const *x = extra; x && *x; x++)
		argv[k++] = *x;
	argv[k++] = "--";
	if (server) {
		for (const char *const *x = server; *x; x++)
			argv[k++] = *x;
	} else {
		argv[k++] = BELAY_BUILD_DIR "/belay-demo-server";
		argv[k++] = "all";
	}
	argv[k++] = ws;
	argv[k] = NULL;
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpbase, NULL};
	/* The traces already there (an earlier recording into the same directory): this
	 * recording's trace is the one that was not, whatever the names' order says (two
	 * recordings in the same second differ only in their random suffix). */
	struct buf before = {0};
	buf_putc(&before, '\n');
	DIR *bd = opendir(traces);
	for (struct dirent *de; bd && (de = readdir(bd)) != NULL;)
		buf_printf(&before, "%s\n", de->d_name);
	if (bd)
		closedir(bd);
	struct ts_out o;
	int rc = ts_mcp_session(argv, env, lines ? lines : ts_demo_lines, 60, &o);
	cr_assert_eq(rc, 0, "the demo session failed: %s", o.err);
	cr_assert_eq(o.status, 0, "belay proxy exited %d: %s", o.status, o.err);
	char *trace = NULL;
	/* The trace this recording wrote (the newest of those not there before). */
	DIR *d = opendir(traces);
	cr_assert_not_null(d);
	struct dirent *de;
	char best[256] = "";
	while ((de = readdir(d)) != NULL) {
		char *line = xasprintf("\n%s\n", de->d_name);
		int old = strstr(buf_cstr(&before), line) != NULL;
		free(line);
		if (!strncmp(de->d_name, "trace-", 6) && !old && strcmp(de->d_name, best) > 0)
			snprintf(best, sizeof best, "%s", de->d_name);
	}
	closedir(d);
	buf_free(&before);
	cr_assert(best[0], "no trace written: %s", o.err);
	trace = fs_join(traces, best);
	ts_out_free(&o);
	free(tmpbase);
	free(ws);
	free(tests);
	free(state);
	free(traces);
	free(file);
	return trace;
}

int ts_belay(struct ts_out *o, const char *const *env, ...)
{
	const char *argv[64];
	int k = 0;
	argv[k++] = BELAY_BIN;
	va_list ap;
	va_start(ap, env);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && k < 63)
		argv[k++] = a;
	va_end(ap);
	argv[k] = NULL;
	return ts_run(argv, env, NULL, NULL, 0, 120, o);
}

static sqlite3 *open_ro(const char *db)
{
	sqlite3 *h = NULL;
	int r = sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL);
	cr_assert_eq(r, SQLITE_OK, "cannot open %s", db);
	sqlite3_busy_timeout(h, 5000);
	return h;
}

char *ts_sql_dump(const char *db, const char *sql)
{
	sqlite3 *h = open_ro(db);
	sqlite3_stmt *q = NULL;
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	struct buf b = {0};
	while (sqlite3_step(q) == SQLITE_ROW) {
		int n = sqlite3_column_count(q);
		for (int i = 0; i < n; i++) {
			if (i)
				buf_putc(&b, '|');
			if (sqlite3_column_type(q, i) == SQLITE_BLOB) {
				const unsigned char *p = sqlite3_column_blob(q, i);
				int len = sqlite3_column_bytes(q, i);
				buf_puts(&b, "x'");
				for (int j = 0; j < len; j++)
					buf_printf(&b, "%02x", p[j]);
				buf_putc(&b, '\'');
			} else if (sqlite3_column_type(q, i) == SQLITE_NULL) {
				buf_puts(&b, "NULL");
			} else {
				buf_puts(&b, (const char *)sqlite3_column_text(q, i));
			}
		}
		buf_putc(&b, '\n');
	}
	sqlite3_finalize(q);
	sqlite3_close(h);
	buf_cstr(&b);
	return buf_take(&b);
}

long long ts_sql_int(const char *db, const char *sql)
{
	sqlite3 *h = open_ro(db);
	sqlite3_stmt *q = NULL;
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_step(q), SQLITE_ROW, "%s returned no row", sql);
	long long v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(h);
	return v;
}

void ts_sql_exec(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	char *msg = NULL;
	int r = sqlite3_exec(h, sql, NULL, NULL, &msg);
	cr_assert_eq(r, SQLITE_OK, "%s: %s", sql, msg ? msg : "");
	sqlite3_close(h);
}

char *ts_last_line(const char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\n')
		n--;
	size_t start = n;
	while (start && s[start - 1] != '\n')
		start--;
	return xstrndup(s + start, n - start);
}

char *ts_db_snapshot(const char *db)
{
	char *tables = ts_sql_dump(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
	struct buf b = {0};
	for (char *line = tables, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		char *sql = xasprintf("SELECT * FROM \"%s\" ORDER BY 1, 2", line);
		/* Some tables have a single column: order by it alone. */
		sqlite3 *h = open_ro(db);
		sqlite3_stmt *q = NULL;
		char *probe = xasprintf("SELECT * FROM \"%s\" LIMIT 0", line);
		sqlite3_prepare_v2(h, probe, -1, &q, NULL);
		int ncol = q ? sqlite3_column_count(q) : 0;
		sqlite3_finalize(q);
		sqlite3_close(h);
		free(probe);
		if (ncol < 2) {
			free(sql);
			sql = xasprintf("SELECT * FROM \"%s\" ORDER BY 1", line);
		}
		char *rows = ts_sql_dump(db, sql);
		buf_printf(&b, "== %s\n%s", line, rows);
		free(rows);
		free(sql);
	}
	free(tables);
	buf_cstr(&b);
	return buf_take(&b);
}

struct ent {
	char *line;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->line, ((const struct ent *)b)->line);
}

static void walk(const char *dir, const char *rel, struct ent **v, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = fs_join(dir, de->d_name);
		char *r = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		struct stat sb;
		if (lstat(p, &sb) == 0) {
			*v = xrealloc(*v, (*n + 1) * sizeof **v);
			(*v)[(*n)++].line = xasprintf("%s %lld", r, S_ISDIR(sb.st_mode) ? -1LL : (long long)sb.st_size);
			if (S_ISDIR(sb.st_mode))
				walk(p, r, v, n);
		}
		free(p);
		free(r);
	}
	closedir(d);
}

char *ts_tree_listing(const char *dir)
{
	struct ent *v = NULL;
	size_t n = 0;
	walk(dir, "", &v, &n);
	if (n)
		qsort(v, n, sizeof *v, cmp_line);
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		buf_printf(&b, "%s\n", v[i].line);
		free(v[i].line);
	}
	free(v);
	buf_cstr(&b);
	return buf_take(&b);
}

void ts_append_claim(const char *trace, const char *text)
{
	size_t len = 0;
	char *t = ts_read_file(trace, &len);
	cr_assert_not_null(t);
	size_t lines = count_nl(t, len);
	free(t);
	FILE *f = fopen(trace, "a");
	cr_assert_not_null(f);
	fprintf(f,
		"{\"v\":1,\"kind\":\"claim\",\"text\":\"%s\",\"seq\":%zu,\"t_in\":\"2026-11-29T00:00:00.000000+00:00\","
		"\"observation_point\":\"eval\"}\n",
		text, lines);
	fclose(f);
}

char *ts_record_script(const char *dir, const char *steps, const char *state, const char *traces, const char *ws,
		       const char *timeout_s, const char *const *extra, const char *mode)
{
	char *sp = fs_join(dir, "steps.json");
	ts_write_file(sp, steps, strlen(steps));
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[] = {tmpbase, NULL};
	const char *argv[32];
	int k = 0;
	const char *head[] = {BELAY_BIN, "__script", sp, "--state", state, "--trace-dir", traces, "--timeout", timeout_s,
			      "--scope", ws};
	for (size_t i = 0; i < sizeof head / sizeof *head; i++)
		argv[k++] = head[i];
	for (const char *const *x = extra; x && *x; x++)
		argv[k++] = *x;
	argv[k++] = "--";
	argv[k++] = BELAY_BUILD_DIR "/belay-demo-server";
	argv[k++] = mode;
	argv[k++] = ws;
	argv[k] = NULL;
	struct ts_out o;
	ts_run(argv, env, dir, NULL, 0, 120, &o);
	cr_assert_eq(o.status, 0, "recording failed (%d): %s", o.status, o.err);
	char *nl = strchr(o.out, '\n');
	cr_assert_not_null(nl, "no trace path printed: %s", o.err);
	*nl = '\0';
	char *trace = xstrdup(o.out);
	ts_out_free(&o);
	free(sp);
	free(tmpbase);
	return trace;
}

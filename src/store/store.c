/* store.c - the SQLite connection: open with pragmas, migrate by user_version, transaction
 * and prepared-statement helpers.
 *
 * Must not: hold table knowledge beyond the migration list below; print anything.
 * Threads: one connection per struct store, used by one thread at a time (see store.h). */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "common/xalloc.h"

/* The migration steps, in order. Step i brings user_version from i to i+1. Append only. */
static const struct migration {
	int version;
	const char *embedded; /* name in the embedded table */
} migrations[] = {
	{1, "store/schema.sql"},       /* snapshots: packs, objects, lineages, snapshots, entries, refs */
	{2, "store/002-runs.sql"},     /* the run view (derived from traces): runs, frames, turns, denials */
	{3, "store/003-verdicts.sql"}, /* verifications and their verdicts */
	{4, "store/004-corpus.sql"},   /* corpus cases, their traces and snapshots, labels, run results */
	{5, "store/005-gate.sql"},     /* the effect gate's decision per turn */
	{6, "store/006-snapshot-deltas.sql"}, /* entries by born / died / link_group: deltas between snapshots */
	{7, "store/007-recoveries.sql"},      /* every recover apply */
	{8, "store/008-rechecks.sql"},        /* verifications.kind: full | recheck */
	{9, "store/009-hooks.sql"},           /* runs recorded from agents' hooks: agent, session, post-states */
	{10, "store/010-object-refs.sql"},    /* objects kept for an owner of their own (a trial's output) */
	{11, "store/011-health-checks.sql"},  /* runs.workspace_writes: health checks can be folded */
	{12, "store/012-http-runs.sql"},      /* runs.http_upstream, http_listener: a server that is a URL */
};
#define NMIGRATIONS (sizeof migrations / sizeof migrations[0])

struct cached_stmt {
	const char *sql;
	sqlite3_stmt *stmt;
};

struct store {
	sqlite3 *db;
	struct cached_stmt *cache;
	size_t ncache, capcache;
};

int store_schema_version(void)
{
	return migrations[NMIGRATIONS - 1].version;
}

int store_fail(struct store *st, struct err *e, const char *what)
{
	return err_set(e, BELAY_ESTORE, "%s: %s", what, st && st->db ? sqlite3_errmsg(st->db) : "no database");
}

sqlite3 *store_db(struct store *st)
{
	return st->db;
}

int store_exec(struct store *st, const char *sql, struct err *e)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(e, BELAY_ESTORE, "%s", msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return BELAY_ESTORE;
	}
	return 0;
}

int store_begin(struct store *st, struct err *e)
{
	int rc = store_exec(st, "BEGIN IMMEDIATE", e);
	return rc ? err_wrap(e, "cannot start a write transaction") : 0;
}

int store_commit(struct store *st, struct err *e)
{
	int rc = store_exec(st, "COMMIT", e);
	if (rc) {
		err_wrap(e, "cannot commit");
		store_rollback(st);
	}
	return rc;
}

void store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_user_version(struct store *st, int *out, struct err *e)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return store_fail(st, e, "cannot read user_version");
	int rc = 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		*out = sqlite3_column_int(s, 0);
	else
		rc = store_fail(st, e, "cannot read user_version");
	sqlite3_finalize(s);
	return rc;
}

int store_stmt(struct store *st, const char *sql, sqlite3_stmt **out, struct err *e)
{
	for (size_t i = 0; i < st->ncache; i++) {
		if (st->cache[i].sql == sql || strcmp(st->cache[i].sql, sql) == 0) {
			sqlite3_reset(st->cache[i].stmt);
			sqlite3_clear_bindings(st->cache[i].stmt);
			*out = st->cache[i].stmt;
			return 0;
		}
	}
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK)
		return store_fail(st, e, "cannot prepare a statement");
	if (st->ncache == st->capcache) {
		st->capcache = st->capcache ? st->capcache * 2 : 16;
		st->cache = xrealloc(st->cache, st->capcache * sizeof *st->cache);
	}
	st->cache[st->ncache++] = (struct cached_stmt){sql, s};
	*out = s;
	return 0;
}

int store_bind_blob(struct store *st, sqlite3_stmt *s, int i, const void *p, size_t n, struct err *e)
{
	int r = p ? sqlite3_bind_blob64(s, i, n ? p : "", n, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
	return r == SQLITE_OK ? 0 : store_fail(st, e, "cannot bind");
}

int store_bind_i64(struct store *st, sqlite3_stmt *s, int i, int64_t v, struct err *e)
{
	return sqlite3_bind_int64(s, i, v) == SQLITE_OK ? 0 : store_fail(st, e, "cannot bind");
}

int store_bind_text(struct store *st, sqlite3_stmt *s, int i, const char *v, struct err *e)
{
	int r = v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
	return r == SQLITE_OK ? 0 : store_fail(st, e, "cannot bind");
}

int store_step_done(struct store *st, sqlite3_stmt *s, struct err *e, const char *what)
{
	int r = sqlite3_step(s);
	int rc = r == SQLITE_DONE ? 0 : store_fail(st, e, what);
	sqlite3_reset(s);
	return rc;
}

static int migrate(struct store *st, int target, struct err *e)
{
	int have = 0, rc;
	if ((rc = store_user_version(st, &have, e)) != 0)
		return rc;
	if (have > store_schema_version())
		return err_set(e, BELAY_ESTORE,
			       "the database has schema version %d; this belay knows only up to %d (a newer belay "
			       "wrote it)",
			       have, store_schema_version());
	if (have >= target)
		return 0;
	if ((rc = store_begin(st, e)) != 0)
		return rc;
	/* Re-read under the write lock: another process may have migrated meanwhile. */
	if ((rc = store_user_version(st, &have, e)) != 0)
		goto fail;
	for (size_t i = 0; i < NMIGRATIONS; i++) {
		if (migrations[i].version <= have || migrations[i].version > target)
			continue;
		const struct embedded_file *f = embedded_find(migrations[i].embedded);
		if (!f) {
			rc = err_set(e, BELAY_ESTORE, "migration %d (%s) is not embedded in this binary",
				     migrations[i].version, migrations[i].embedded);
			goto fail;
		}
		if ((rc = store_exec(st, f->data, e)) != 0) {
			err_wrap(e, "migration %d (%s) failed", migrations[i].version, migrations[i].embedded);
			goto fail;
		}
		char pragma[64];
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", migrations[i].version);
		if ((rc = store_exec(st, pragma, e)) != 0)
			goto fail;
	}
	return store_commit(st, e);
fail:
	store_rollback(st);
	return rc;
}

int store_open(const char *path, struct store **out, struct err *e)
{
	return store_open_upto(path, store_schema_version(), out, e);
}

int store_open_upto(const char *path, int version, struct store **out, struct err *e)
{
	*out = NULL;
	if (version < 1 || version > store_schema_version())
		return err_set(e, BELAY_EINVAL, "no schema version %d (this belay knows 1 to %d)", version,
			       store_schema_version());
	if (!sqlite3_threadsafe())
		return err_set(e, BELAY_ESTORE, "this SQLite library was built single-threaded");
	/* Create the file ourselves so it is 0600 from the first byte; SQLite gives the -wal and
	 * -shm files the same permissions as the database file.
	 * An existing file is never opened here: SQLite's locks are POSIX advisory locks, and
	 * closing ANY descriptor of the file drops every lock this process holds on it. Another
	 * connection of this process (the proxy's snapshot store next to its store writer, the
	 * corpus next to verify's workers) would lose its shared lock, and another process
	 * closing its own connection would then think it was the last and delete the WAL under
	 * it ("database disk image is malformed"). A file that does not exist yet can hold no
	 * lock of ours. */
	struct stat sb;
	if (lstat(path, &sb) != 0) {
		if (errno != ENOENT)
			return err_set(e, -errno, "cannot open the database %s: %s", path, strerror(errno));
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 && errno != EEXIST)
			return err_set(e, -errno, "cannot create the database %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	} else if (S_ISLNK(sb.st_mode)) {
		return err_set(e, BELAY_EREFUSED, "refusing the database %s: it is a symbolic link", path);
	} else if (!S_ISREG(sb.st_mode)) {
		return err_set(e, BELAY_EINVAL, "cannot open the database %s: not a regular file", path);
	} else if ((sb.st_mode & 077) && sb.st_uid == geteuid()) {
		chmod(path, 0600);
	}

	struct store *st = xcalloc(1, sizeof *st);
	int rc = 0;
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = store_fail(st, e, "cannot open the database");
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	/* busy_timeout first: switching to WAL may itself need a lock. */
	if ((rc = store_exec(st,
			     "PRAGMA busy_timeout = 5000;"
			     "PRAGMA journal_mode = WAL;"
			     "PRAGMA synchronous = NORMAL;"
			     "PRAGMA foreign_keys = ON;",
			     e)) != 0) {
		err_wrap(e, "cannot configure %s", path);
		goto fail;
	}
	if ((rc = migrate(st, version, e)) != 0)
		goto fail;
	*out = st;
	return 0;
fail:
	store_close(st);
	return rc;
}

/* "file:PATH?QUERY" with PATH percent-encoded where a URI needs it. */
static char *file_uri(const char *path, const char *query)
{
	struct buf b = {0};
	buf_puts(&b, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 || *p >= 0x7f)
			buf_printf(&b, "%%%02X", *p);
		else
			buf_putc(&b, (char)*p);
	}
	buf_printf(&b, "?%s", query);
	buf_cstr(&b);
	return buf_take(&b);
}

int store_open_readonly(const char *path, struct store **out, struct err *e)
{
	*out = NULL;
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return err_set(e, -errno, "cannot open the database %s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return err_set(e, BELAY_EINVAL, "cannot open the database %s: not a regular file", path);
	static const char *const modes[] = {"mode=ro", "mode=ro&immutable=1"};
	int rc = 0;
	for (int m = 0; m < 2; m++) {
		struct store *st = xcalloc(1, sizeof *st);
		char *uri = file_uri(path, modes[m]);
		int orc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
		free(uri);
		int have = 0;
		if (orc != SQLITE_OK) {
			rc = store_fail(st, e, "cannot open the database");
		} else {
			sqlite3_extended_result_codes(st->db, 1);
			rc = store_exec(st, "PRAGMA busy_timeout = 5000;", e);
			if (rc == 0)
				rc = store_user_version(st, &have, e); /* the first read: fails here without -shm */
		}
		if (rc == 0 && have != store_schema_version())
			rc = err_set(e, BELAY_ESTORE,
				     "the database %s has schema version %d and this belay reads %d; it can be upgraded only "
				     "where it is writable",
				     path, have, store_schema_version());
		if (rc == 0) {
			*out = st;
			return 0;
		}
		store_close(st);
		if (rc == BELAY_ESTORE && have)
			break;
	}
	return rc;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->ncache; i++)
		sqlite3_finalize(st->cache[i].stmt);
	free(st->cache);
	if (st->db)
		sqlite3_close(st->db);
	free(st);
}

void store_column_json(struct cJSON *o, const char *name, sqlite3_stmt *q, int i)
{
	switch (sqlite3_column_type(q, i)) {
	case SQLITE_INTEGER:
		cJSON_AddNumberToObject(o, name, (double)sqlite3_column_int64(q, i));
		break;
	case SQLITE_FLOAT:
		cJSON_AddNumberToObject(o, name, sqlite3_column_double(q, i));
		break;
	case SQLITE_TEXT:
		cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(q, i));
		break;
	default:
		cJSON_AddNullToObject(o, name);
		break;
	}
}

/* store.h - belay's one SQLite database (<state>/belay.db): opening with the pragmas every
 * connection needs (WAL, busy_timeout 5 s, foreign_keys ON), schema migrations by
 * PRAGMA user_version, BEGIN IMMEDIATE/COMMIT helpers and a per-connection cache of
 * prepared statements.
 *
 * Must not: know any table. Tables belong to the modules that use them; their DDL is a
 * migration step listed in store.c (step N = embedded file "store/NNN-*.sql" or
 * "store/schema.sql" for v1). A module adds tables by appending a step, never by editing
 * an earlier one.
 *
 * Threads: a `struct store` is one SQLite connection opened in multi-thread mode
 * (SQLITE_OPEN_NOMUTEX). It may move between threads but must never be used by two
 * threads at once. Every thread that needs the database opens its own store. */
#ifndef BELAY_STORE_STORE_H
#define BELAY_STORE_STORE_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;

/* Opens (creating when missing) the database file at `path`: the file is created 0600,
 * pragmas are applied and every pending migration runs in one IMMEDIATE transaction.
 * A database whose user_version is newer than this binary knows is refused
 * (BELAY_ESTORE). On success *out is a new store the caller closes with store_close. */
int store_open(const char *path, struct store **out, struct err *e);
/* Same, but migrates only up to schema `version` (1..store_schema_version()): lets the
 * upgrade tests build a database as an earlier belay left it. */
int store_open_upto(const char *path, int version, struct store **out, struct err *e);
/* Opens an existing database for reading only (a read-only state directory, where SQLite
 * can make no -wal/-shm file: then it is opened immutable). Nothing is migrated: a database
 * of another schema version than this binary's is refused by name (BELAY_ESTORE). */
int store_open_readonly(const char *path, struct store **out, struct err *e);
/* Finalizes every cached statement and closes the connection. NULL is a no-op. */
void store_close(struct store *st);

/* The connection (borrowed, valid until store_close). */
sqlite3 *store_db(struct store *st);
/* The schema version this binary migrates to. */
int store_schema_version(void);
/* PRAGMA user_version of the open database. */
int store_user_version(struct store *st, int *out, struct err *e);

/* Runs one or more statements without results. */
int store_exec(struct store *st, const char *sql, struct err *e);
/* BEGIN IMMEDIATE (takes the write lock now, waiting up to busy_timeout). */
int store_begin(struct store *st, struct err *e);
int store_commit(struct store *st, struct err *e);
/* Rolls back the open transaction, if any; never fails visibly. */
void store_rollback(struct store *st);

/* Returns in *out a prepared statement for `sql`, reset and with bindings cleared. The
 * statement is cached on the connection (prepared once) and owned by the store: do not
 * finalize it. `sql` should be a string literal; it is compared by content. */
int store_stmt(struct store *st, const char *sql, sqlite3_stmt **out, struct err *e);
/* Fills e with "<what>: <sqlite message>" and returns BELAY_ESTORE. */
int store_fail(struct store *st, struct err *e, const char *what);

/* Binds helpers returning 0 or BELAY_ESTORE (message in e). */
int store_bind_blob(struct store *st, sqlite3_stmt *s, int i, const void *p, size_t n, struct err *e);
int store_bind_i64(struct store *st, sqlite3_stmt *s, int i, int64_t v, struct err *e);
int store_bind_text(struct store *st, sqlite3_stmt *s, int i, const char *v, struct err *e);
/* Steps a statement that returns no row (SQLITE_DONE expected) and resets it. */
int store_step_done(struct store *st, sqlite3_stmt *s, struct err *e, const char *what);

struct cJSON;
/* Adds column i of the current row of q to the JSON object o under name, typed as SQLite
 * holds it: an integer or a float as a number, text as a string, anything else (NULL, a
 * blob) as null. */
void store_column_json(struct cJSON *o, const char *name, sqlite3_stmt *q, int i);

#endif

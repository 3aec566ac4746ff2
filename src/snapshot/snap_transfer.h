/* snap_transfer.h - moving snapshots between stores (corpus export/import): a handle's
 * manifest as JSON, its objects streamed out with their SHA-256 checked, and on the other
 * side objects put back (re-hashed) and the manifest registered under the same handle so a
 * case replays there with nothing else present.
 *
 * A transferred manifest (JSON):
 *   {"handle": "<32 hex>", "tree_hash": "BTH-2:sha256:<hex>", "created_ns": "<decimal>",
 *    "files": N, "bytes": N,
 *    "entries": [[path, kind, mode, uid, gid, "mtime_ns", size, oid|null, target|null,
 *                 xattrs|null, link_group|null], ...]}      (path order)
 * path/target/link_group are jx_bytes values (a string, or {"base64": ...}); oid is 64 hex;
 * xattrs is the stored encoding in base64; 64-bit nanoseconds travel as decimal strings
 * (a JSON number would lose them).
 *
 * An imported snapshot gets a lineage of its own (workspace "import:<origin>", closed), so
 * gc treats it like any other: kept while a snapshot_refs row names it.
 *
 * Must not: print; write outside the caller's transaction except object bytes (which stay
 * pending, i.e. invisible, until the caller commits). Threads: like snapshot.h. */
#ifndef BELAY_SNAPSHOT_SNAP_TRANSFER_H
#define BELAY_SNAPSHOT_SNAP_TRANSFER_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/strmap.h"
#include "snapshot/snapshot.h"

struct store;

/* 1 when h is a well-formed snapshot handle (32 lowercase hex digits), else 0 (NULL too). */
int snap_handle_valid(const char *h);
/* The store's SQLite connection (borrowed), so a caller can add its own rows in the same
 * transaction as snapshot references and imported manifests. */
struct store *snap_store_sql(struct snap_store *st);
/* Shared lock against gc around a multi-step read or import (re-entrant). */
int snap_transfer_lock(struct snap_store *st, struct err *e);
void snap_transfer_unlock(struct snap_store *st);

/* 1 when the store has snapshot `handle` (its recorded tree hash copied into tree_hash when
 * not NULL), 0 when not, < 0 on error. */
int snap_handle_exists(struct snap_store *st, const char *handle, char tree_hash[SNAP_TREE_HASH_LEN], struct err *e);

/*==== export ====*/

/* The manifest of handle as JSON (above). BELAY_ENOTFOUND for an unknown handle. */
int snap_manifest_json(struct snap_store *st, const char *handle, cJSON **out, struct err *e);
/* Streams a committed object: sink(ctx, bytes, n) per chunk (at most 1 MiB; it returns 0 or
 * -errno, which stops the stream), the SHA-256
 * verified at the end (BELAY_ECORRUPT; the sink has then seen bad bytes: the caller must
 * discard its output). *len receives the object's length before the first chunk. */
int snap_object_stream(struct snap_store *st, const uint8_t oid[SHA256_LEN], uint64_t *len,
		       int (*sink)(void *ctx, const void *p, size_t n), void *ctx, struct err *e);
/* The object's length without reading it (BELAY_ENOTFOUND when absent). */
int snap_object_len(struct snap_store *st, const uint8_t oid[SHA256_LEN], uint64_t *len, struct err *e);

/*==== import ====*/

/* 1 when p (len bytes) is a clean relative manifest path: "." (the root) or components
 * that are neither empty, "." nor "..", no leading '/', no NUL. */
int snap_manifest_path_safe(const char *p, size_t len);
/* Checks a transferred manifest's shape (nothing is written) and adds the hex oid of every
 * file entry to oids (value 1). BELAY_EINVAL naming what is wrong; an unsafe path or a
 * duplicate entry is BELAY_EREFUSED ("unsafe path", "duplicate entry"), found row by row
 * before the tree hash is computed. */
int snap_manifest_json_check(const cJSON *m, struct strmap *oids, struct err *e);
/* 1 when the object is in the store (committed or pending), 0 when not, < 0 on error. */
int snap_object_present(struct snap_store *st, const uint8_t oid[SHA256_LEN], struct err *e);

/* An object arriving in chunks: kept in memory below the loose-object size, else in a
 * temporary file in the store; on end its length and SHA-256 must match, and it becomes a
 * pending object of st (committed by snap_import_commit). */
struct snap_obj_in;
int snap_obj_in_begin(struct snap_store *st, const uint8_t oid[SHA256_LEN], uint64_t len, struct snap_obj_in **out,
		      struct err *e);
int snap_obj_in_write(struct snap_obj_in *w, const void *p, size_t n, struct err *e);
/* Verifies and stores; frees w in every case. */
int snap_obj_in_end(struct snap_obj_in *w, struct err *e);
void snap_obj_in_abort(struct snap_obj_in *w);

/* Inside the caller's write transaction: indexes the pending objects, then registers the
 * manifest under its handle. A handle already present with the same tree hash is left as
 * it is (*added = 0); with another tree hash it is BELAY_ECORRUPT (a foreign or forged
 * file). A new manifest's tree hash is recomputed from the inserted rows and must equal
 * the recorded one; every file's object must be present. */
int snap_import_commit_pending(struct snap_store *st, struct err *e);
int snap_import_manifest(struct snap_store *st, const cJSON *m, const char *origin, int *added, struct err *e);
/* After the caller's COMMIT / instead of it (drops the pending objects' bytes). */
void snap_import_after_commit(struct snap_store *st);
void snap_import_rollback(struct snap_store *st);

#endif

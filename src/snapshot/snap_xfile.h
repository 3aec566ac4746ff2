/* snap_xfile.h - the file that carries snapshots between stores: a magic, a JSON header, a
 * trace, the objects of some snapshots, and a trailer hash. Shared by the corpus's case
 * export (docs/CORPUS.md, "Export format", magic BELAYCS1) and measure's trace bundles
 * (docs/MEASURE.md, magic BELAYTB1); each caller adds its own header members and checks.
 *
 *   magic[8] u32le version(1) u32le flags(0)
 *   u64le header_len, header JSON {format, version, ..., "trace_sha256", "snapshots":
 *        [manifests (snap_transfer.h)], "objects": N, "object_bytes": B}
 *   u64le trace_len, the trace bytes
 *   objects × N: "OBJ1" u32le flags(0) u64le len sha256[32] data[len]   (as in packs)
 *   "END1" u32le 0 sha256[32] of every byte before "END1"
 *
 * Reading is two passes: snap_xfile_verify checks every byte (framing, header, each
 * manifest, a handle this store has must carry the same tree hash, the trace's SHA-256,
 * each object exactly once, referenced, matching its hash, the byte total, the trailer,
 * nothing after it) and writes nothing; snap_xfile_store_objects then stores the objects
 * the store lacks (re-hashed, pending until the caller's transaction commits, see
 * snap_transfer.h).
 *
 * Must not: print. Threads: like snapshot.h. */
#ifndef BELAY_SNAPSHOT_SNAP_XFILE_H
#define BELAY_SNAPSHOT_SNAP_XFILE_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/strmap.h"
#include "snapshot/snapshot.h"

struct snap_xfile_kind {
	const char *magic;  /* 8 bytes: "BELAYCS1" */
	const char *format; /* the header's "format": "belay-case" */
	const char *name;   /* in errors: "belay case file" */
};

struct snap_xfile_stats {
	uint64_t bytes, objects, object_bytes, objects_new;
};

/* Writes the file at path (never replacing one: tmp + link, 0600, fsync'ed). head (taken)
 * gets "trace_sha256", "snapshots" (the manifests of handles[0..nh)), "objects" and
 * "object_bytes" added. The store must hold every handle. */
int snap_xfile_write(struct snap_store *st, const struct snap_xfile_kind *k, const char *path, cJSON *head,
		     const char *const *handles, size_t nh, const void *trace, size_t tlen, struct snap_xfile_stats *stats,
		     struct err *e);

/* What the first pass learns. */
struct snap_xfile_in {
	cJSON *head;	   /* owned */
	struct buf trace;
	struct strmap oids; /* hex oid -> 2 once seen */
	uint64_t nobjects, data_off;
};
/* Pass 1: verifies the whole file, writes nothing. On error p is freed. */
int snap_xfile_verify(struct snap_store *st, const struct snap_xfile_kind *k, const char *path, struct snap_xfile_in *p,
		      struct err *e);
/* Pass 2: stores the objects st lacks (pending). */
int snap_xfile_store_objects(struct snap_store *st, const char *path, const struct snap_xfile_in *p,
			     struct snap_xfile_stats *stats, struct err *e);
void snap_xfile_in_free(struct snap_xfile_in *p);
/* Reads only the magic and the header (nothing verified beyond their framing). *head: new. */
int snap_xfile_peek(const struct snap_xfile_kind *k, const char *path, cJSON **head, struct err *e);

#endif

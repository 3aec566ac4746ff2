/* bundle.h - a portable trace bundle: a trace plus every pre-state object it refers to, so
 * a shard on a machine without the recording machine's state directory can verify it
 * (docs/MEASURE.md, "Bundles"). The format is the corpus export's (docs/CORPUS.md, "Export
 * format") with its own magic and header:
 *
 *   "BELAYTB1" u32le version(1) u32le flags(0)
 *   u64le header_len, header JSON {"format":"belay-trace-bundle","version":1,"trace_id",
 *        "trace_sha256","handles":[...],"missing":[{"handle","turn"}],"snapshots":[manifests],
 *        "objects":N,"object_bytes":B}
 *   u64le trace_len, the trace bytes
 *   objects × N: "OBJ1" u32le flags(0) u64le len sha256[32] data[len]
 *   "END1" u32le 0 sha256[32] of every byte before "END1"
 *
 * A handle the source store does not have is listed in "missing" (the bundle is still
 * written: on the shard that turn is PRESTATE_NOT_FOUND, named). Import verifies every byte
 * before it writes anything (magic, header, each manifest's tree hash, the trace's SHA-256,
 * each object's SHA-256, the trailer), then adds objects and snapshots to the state
 * directory's store in one transaction.
 *
 * Must not: print. Threads: one call uses its own store connections. */
#ifndef BELAY_MEASURE_BUNDLE_H
#define BELAY_MEASURE_BUNDLE_H
#include <stdint.h>

#include "common/err.h"

#define BUNDLE_SUFFIX ".belaytb"

struct bundle_stats {
	uint64_t bytes, objects, object_bytes, snapshots, missing;
	uint64_t objects_new; /* import: objects the store did not have */
};

/* Writes trace_path and the objects of every pre-state it names (read from the store at
 * state_dir) to out_path (never replacing a file; tmp + link, 0600). */
int bundle_write(const char *trace_path, const char *state_dir, const char *out_path, struct bundle_stats *st,
		 struct err *e);
/* Reads only the header: the trace's SHA-256 (hex) and id. */
int bundle_peek(const char *path, char sha[65], char **trace_id, struct err *e);
struct snap_store;
/* Copies into the store at state_dir every pre-state of the trace that it lacks and the
 * shared store `from` (snap_store_open_readonly) has, objects re-hashed on the way, in one
 * transaction. A pre-state `from` lacks is left out (that turn verifies as
 * PRESTATE_NOT_FOUND, named). */
int bundle_copy_from_store(struct snap_store *from, const char *trace_path, const char *state_dir,
			   struct bundle_stats *st, struct err *e);

/* Verifies the bundle, imports its snapshots into the store at state_dir and writes its
 * trace to <scratch_dir>/<trace_id>.jsonl (*trace_out: new string). */
int bundle_import(const char *path, const char *state_dir, const char *scratch_dir, char **trace_out,
		  struct bundle_stats *st, struct err *e);

#endif

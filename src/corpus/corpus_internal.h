/* corpus_internal.h - what the corpus files share: the open corpus, a case row in memory,
 * reading and inserting case rows, and the case's JSON form (used by export/import).
 * Must not: be included outside src/corpus/. */
#ifndef BELAY_CORPUS_CORPUS_INTERNAL_H
#define BELAY_CORPUS_CORPUS_INTERNAL_H
#include <cjson/cJSON.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"
#include "corpus/corpus.h"

struct corpus {
	struct snap_store *snap;
	struct store *db; /* the snap store's connection; its own when snap is NULL (corpus_open_read) */
	char *dir;
	int borrowed; /* db belongs to the caller (corpus_borrow) */
};

/* One row of `cases` (JSON columns kept as text). Every string is owned. */
struct ccase {
	char *id, *kind, *run, *tool, *created, *belay_version, *origin, *platform;
	int turn; /* -1 for a trajectory case */
	char *server_argv, *server_cwd, *scope, *policy;
	int replays;
	int64_t timeout_ms;
	char *handle, *task_handle;
	char *expected_status, *expected_cause, *expected;
};

void ccase_free(struct ccase *cc);
/* BELAY_ENOTFOUND when there is no such case. */
int ccase_load(struct corpus *c, const char *id, struct ccase *out, struct err *e);
/* 1 if the case exists, 0 if not, < 0 on error. */
int ccase_exists(struct corpus *c, const char *id, struct err *e);
/* The case's trace bytes (appended to out) and their recorded sha256 (hex). The bytes are
 * checked against it: BELAY_ECORRUPT on a mismatch. */
int ccase_trace(struct corpus *c, const char *id, struct buf *out, struct err *e);
/* [{"handle","role"}] of the case. */
int ccase_handles(struct corpus *c, const char *id, cJSON **out, struct err *e);
/* Inside the caller's transaction: the case row, its trace, its snapshot list and a
 * snapshot_refs row per handle (owner_kind "case"). handles: [{"handle","role"}]. */
int ccase_insert(struct corpus *c, const struct ccase *cc, const void *trace, size_t trace_len, const cJSON *handles,
		 struct err *e);

/* The case as JSON (export) and back (import), with every field validated: the kind, the
 * id matching corpus_case_id(run, turn), the policy parsing, the expected verdict parsing
 * and agreeing with expected_status. */
cJSON *ccase_to_json(const struct ccase *cc);
int ccase_from_json(const cJSON *j, struct ccase *out, struct err *e);

/* The latest label row of a case: label ("pending" when none), miss. */
int ccase_label(struct corpus *c, const char *id, char label[24], int *miss, struct err *e);

#endif

/* corpus.h - the failure corpus: banked cases that replay with nothing else present, their
 * human labels (with history), and the regression suite and metrics over them. See
 * docs/CORPUS.md.
 *
 * A case is one turn's verdict (kind "turn", id <run>-turn<N>) or one run's trajectory
 * verdict (kind "trajectory", id <run>-trajectory), recomputed by real replay when it is
 * added, with the trace, the server command, the policy, the expected verdict with every
 * sub-verdict's message, and references to the snapshots it needs (its pre-state and the
 * task's first pre-state; every turn's for a trajectory case).
 *
 * The engine never labels: the only writer of the labels table is corpus_label_set (a test
 * proves it; the connection's authorizer refuses any other write to it).
 *
 * Must not: print. Threads: a struct corpus is one connection, used by one thread. */
#ifndef BELAY_CORPUS_CORPUS_H
#define BELAY_CORPUS_CORPUS_H
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "verify/policy.h"
#include "verify/verdict.h"

struct corpus;
struct store;
struct snap_store;

/* Opens the corpus of a state directory (its belay.db and snapshot store, created when
 * missing). *out: new, corpus_close. */
int corpus_open(const char *state_dir, struct corpus **out, struct err *e);
/* For reading only (list, show, score): the database alone, opened by statedb_open_read (so a
 * read-only state directory works). Nothing that needs the snapshots may be called on it. */
int corpus_open_read(const char *state_dir, struct corpus **out, struct err *e);
/* A read-only corpus over a connection the caller owns and keeps open (the console's model
 * reads the cases, labels and score on its own connection): list, show, score and
 * corpus_turn_labels only. corpus_close frees the wrapper and leaves db open. */
struct corpus *corpus_borrow(struct store *db, const char *state_dir);
void corpus_close(struct corpus *c);
struct store *corpus_db(struct corpus *c);	       /* borrowed */
struct snap_store *corpus_snapshots(struct corpus *c); /* borrowed */
const char *corpus_state_dir(const struct corpus *c);  /* borrowed */

/* <run>-turn<N> (turn >= 0) or <run>-trajectory (turn < 0), every character outside
 * [A-Za-z0-9_.-] replaced by '_'. New string. */
char *corpus_case_id(const char *run, int turn);

/*==== add ====*/

struct corpus_add_opts {
	const char *trace_path;
	int turn;		     /* the turn (kind turn); ignored for a trajectory */
	int trajectory;		     /* bank the run's trajectory verdict instead */
	const struct policy *policy; /* as verify would use it (defaults already added) */
	int replays;		     /* >= 3 */
	unsigned timeout_ms;
	int jobs;
	const char *launcher; /* the belay binary */
};
struct corpus_add_result {
	char *id;	     /* new string */
	enum vstatus status; /* the expected (recomputed) reduced status */
	char cause[48];
	size_t snapshots; /* snapshot references the case holds */
};
/* Recomputes the verdict by replay, then banks the case in one transaction. An existing id
 * is BELAY_EEXIST (never overwritten); a turn without a restorable pre-state in this store
 * is BELAY_ENOTFOUND. */
int corpus_add(struct corpus *c, const struct corpus_add_opts *o, struct corpus_add_result *out, struct err *e);

/*==== labels ====*/

/* Appends a label to the case's history: label is true-positive, false-positive,
 * unverifiable or pending; root_cause (may be NULL) matches ^[a-z0-9]+(-[a-z0-9]+)*$; miss
 * declares a recorded miss (only with true-positive, and only on a case whose expected
 * status is not FAIL). `by` is the OS user. The one and only writer of labels. */
int corpus_label_set(struct corpus *c, const char *id, const char *label, const char *note, const char *root_cause,
		     int miss, struct err *e);
/* What a person means, whatever the verdict: "right" (the verdict is), "wrong" (it is not),
 * "missed" (a verdict that did not flag hid a real failure). */
enum corpus_meaning { CORPUS_RIGHT = 0, CORPUS_WRONG, CORPUS_MISSED };
/* The label a meaning is on a case whose expected status is `status` (pure): on a FAIL,
 * right is true-positive and wrong false-positive; on anything else (PASS, WARN,
 * UNVERIFIED), right is false-positive (nothing failed) and wrong or missed is
 * true-positive with miss set. Missed on a FAIL is BELAY_EUSAGE, saying why. */
int corpus_label_meaning(const char *status, enum corpus_meaning m, const char **label, int *miss, struct err *e);
/* Deletes a case and everything that is its own: its label history, its run results, its
 * trace, its snapshot list and its snapshot references (so gc may take pre-states no one
 * else needs). A person's act (`belay corpus delete`, the console's delete key), like a
 * label; BELAY_ENOTFOUND when there is no such case. */
int corpus_delete(struct corpus *c, const char *id, struct err *e);
/* Installs the authorizer that refuses writes to the labels table on this connection
 * unless they come from corpus_label_set. corpus_open does this. */
void corpus_label_guard(struct store *db);

/*==== reading ====*/

/* [{"id","kind","run","turn","tool","expected_status","expected_cause","label","miss",
 *   "root_cause","last_outcome","created","origin"}] sorted by id. Caller owns *out. */
int corpus_list(struct corpus *c, cJSON **out, struct err *e);
/* One case in full: its row, "expected" (the verdict with messages), "policy",
 * "snapshots", "labels" (history, oldest first), "results" (last 10 runs). */
int corpus_show(struct corpus *c, const char *id, cJSON **out, struct err *e);

/* The current label of every turn case of run `run`: fn(ctx, turn, label, miss) per case,
 * label "pending" when it has no label row. */
int corpus_turn_labels(struct corpus *c, const char *run, void (*fn)(void *ctx, int turn, const char *label, int miss),
		       void *ctx, struct err *e);

/*==== the regression suite ====*/

enum corpus_outcome { CO_MATCH = 0, CO_REGRESSION, CO_SKIP, CO_STILL_MISSED, CO_MISS_CLOSED, CO_NOUTCOMES };
const char *corpus_outcome_name(enum corpus_outcome o);

struct corpus_result {
	char *id;
	enum corpus_outcome outcome;
	char *detail;	 /* one line per divergence, or the SKIP cause ("" for MATCH); owned */
	cJSON *observed; /* the recomputed verdict; owned */
};

struct corpus_run_opts {
	char *const *ids; /* only these cases (NULL: all, sorted by id) */
	size_t nids;
	int jobs;
	const char *launcher;
	const char *scratch; /* where case traces are written for replay (NULL: fs_scratch_base) */
	void (*progress)(void *ctx, const struct corpus_result *r); /* after each case */
	void *ctx;
	/* Optional: set by another thread to stop: the running replay stops (verify_opts.cancel)
	 * and no further case starts; corpus_run then returns -ECANCELED with the cases judged
	 * so far in the report (the cancelled case is neither judged nor saved). */
	atomic_int *cancel;
};
struct corpus_run_report {
	struct corpus_result *r;
	size_t n;
	size_t counts[CO_NOUTCOMES];
};
/* Replays every case from the store alone and compares with its expected verdict; each
 * outcome is saved in case_results. Returns 0 when every case was judged (regressions
 * included); < 0 when a case could not be read at all. */
int corpus_run(struct corpus *c, const struct corpus_run_opts *o, struct corpus_run_report *out, struct err *e);
void corpus_run_report_free(struct corpus_run_report *r);

/* The comparison itself (pure): expected vs observed verdict, for a case that is or is not
 * a declared miss. *detail: new string. */
enum corpus_outcome corpus_compare(const struct turn_verdict *expected, const struct turn_verdict *observed, int miss,
				   char **detail);

/*==== metrics ====*/

struct corpus_score {
	long cases;
	long tp, fp, fn, tn;
	long pending, unverifiable; /* excluded: no usable human label */
	long unverified;	    /* labeled, but the engine abstained: excluded, lowers coverage */
	long fn_missed;		    /* FNs declared as recorded misses */
	long root_causes;	    /* distinct root-cause keys among TPs */
};
int corpus_score(struct corpus *c, struct corpus_score *out, struct err *e);
/* "0.75" or "n/a" for a zero denominator (never 0.00 or 1.00 then). */
void corpus_ratio(long num, long den, char out[16]);

/*==== export / import ====*/

struct corpus_xfer_stats {
	uint64_t bytes; /* file size */
	uint64_t objects, object_bytes;
	uint64_t objects_new; /* import: objects this store did not have */
	uint64_t snapshots_new;
};
/* Writes the case as one self-contained file (docs/CORPUS.md, "Export format"); the file is
 * written under a temporary name and renamed, 0600. stats may be NULL. */
int corpus_export(struct corpus *c, const char *id, const char *path, struct corpus_xfer_stats *stats, struct err *e);
/* Reads a case file: every byte is verified first (format, trailer hash, every object's
 * SHA-256, manifests, the case itself) and nothing is written unless all of it is sound;
 * then objects, snapshots, the case and its references are added in one transaction. An
 * existing case id is BELAY_EEXIST. *id: new string. Labels never travel: an imported case
 * is pending until someone here labels it. */
int corpus_import(struct corpus *c, const char *path, char **id, struct corpus_xfer_stats *stats, struct err *e);

#endif

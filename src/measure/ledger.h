/* ledger.h - the measurement ledger: one JSON object per line (docs/MEASURE.md).
 *
 *   {"kind":"header","format":"belay-measure-ledger","version":1,"detector":{...},
 *    "shard":{"index":I,"count":N,"source":"..."},"population":{"traces":P,"sha256":"..."}}
 *   {"kind":"instance","trace_id":"...","trace_sha256":"...","disposition":"VERIFIED_CLEAN",...}
 *   {"kind":"duplicate","trace_id":"...","trace_sha256":"...","same_as":"..."}
 *   {"kind":"end","selected":n}                 (a batch that ran to completion)
 *
 * Loading is fail-closed: a line that is not one of these shapes, a disposition outside the
 * four names, a trace id twice, a second header, is a named error naming the line. Lines
 * are appended with one write(2) each, so a killed batch leaves a readable prefix and
 * resumes where it stopped.
 *
 * Must not: print. Threads: a struct ledger is used by one thread; ledger_append may be
 * called from several threads (it takes the ledger's lock). */
#ifndef BELAY_MEASURE_LEDGER_H
#define BELAY_MEASURE_LEDGER_H
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stddef.h>

#include "common/err.h"
#include "common/strmap.h"

enum disposition { DISP_CLEAN = 0, DISP_FLAGGED, DISP_NO_VERIFIABLE, DISP_ERRORED, DISP_N };
const char *disposition_name(enum disposition d);
int disposition_parse(const char *name, enum disposition *out);

#define LEDGER_FORMAT "belay-measure-ledger"

struct ledger {
	char *path;
	cJSON *header;	   /* owned; NULL for an empty ledger */
	cJSON **lines;	   /* instance and duplicate lines in file order (owned) */
	size_t n, cap;
	cJSON *end;	   /* the last "end" line (owned), NULL when the batch did not finish */
	struct strmap ids; /* trace_id -> line index */
	struct strmap sha; /* trace_sha256 -> line index (instances only) */
	int fd;		   /* open for appending (ledger_open_append), else -1 */
	pthread_mutex_t mu;
};

/* Reads path into l. A missing file is an empty ledger when missing_ok, else
 * BELAY_ENOTFOUND. Malformed content: BELAY_EINVAL "PATH:LINE: what". */
int ledger_load(struct ledger *l, const char *path, int missing_ok, struct err *e);
void ledger_free(struct ledger *l);
/* Opens l->path for appending (creating it 0600 and its parent directories). */
int ledger_open_append(struct ledger *l, struct err *e);
/* Appends one line (kind header/instance/duplicate/end) to the file and to l. Takes obj. */
int ledger_append(struct ledger *l, cJSON *obj, struct err *e);
/* The instance or duplicate line of trace_id (borrowed) or NULL. */
const cJSON *ledger_find(const struct ledger *l, const char *trace_id);
/* The instance line whose trace content hash is sha (borrowed) or NULL. */
const cJSON *ledger_find_sha(const struct ledger *l, const char *sha);
/* Checks one instance line's shape (also used for lines built in memory). */
int ledger_check_instance(const cJSON *o, const char *where, struct err *e);
/* Writes header + lines (sorted by trace_id) + end to path atomically (merge). */
int ledger_write_sorted(const char *path, const cJSON *header, cJSON *const *lines, size_t n, const cJSON *end,
			struct err *e);

#endif

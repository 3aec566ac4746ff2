/* scripted.h - a scripted MCP agent: runs a list of steps as the client of one session
 * (the same engine as `belay proxy`: recorded, optionally contained and gated), on a private
 * loop on the calling thread. Used by `belay demo` and by tests that need exact traces.
 *
 * Steps (a JSON array, executed in order, each waiting for its replies):
 *   {"initialize": {params}}            initialize + notifications/initialized
 *   {"list": true}                      tools/list
 *   {"call": TOOL, "args": {...}}       tools/call
 *   {"parallel": [{"call":...}, ...]}   calls written back to back, then all awaited
 *   {"claim": TEXT}                     a `claim` record (the agent says it is done)
 *   {"sleep_ms": N}
 * A step's reply is passed to on_step (may be NULL) on the calling thread. */
#ifndef BELAY_DEMO_SCRIPTED_H
#define BELAY_DEMO_SCRIPTED_H
#include <cjson/cJSON.h>

#include "common/err.h"
#include "sandbox/sandbox.h"
#include "proxy/admission.h"

struct scripted_opts {
	char *const *argv;        /* the server */
	const char *cwd;
	const char *trace_dir;
	const char *state_dir;
	const struct sandbox_spec *sandbox; /* NULL: uncontained */
	struct admission *gate;   /* taken */
	const char *launcher;
	unsigned timeout_ms;      /* per reply (default 20 s) */
	size_t frame_cap;         /* the session's recording cap (0: the default 16 MiB) */
	/* step index, the step, its reply (a response object, or NULL on timeout/failure) */
	void (*on_step)(void *ctx, int index, const cJSON *step, const cJSON *reply);
	/* once the session runs, before any step (may be NULL) */
	void (*on_started)(void *ctx, const char *trace_path);
	void *ctx;
};

struct scripted_result {
	char *trace_path; /* owned, NULL without a trace */
	int exit_code;    /* the server's */
	int failed_step;  /* -1 when every step got its replies */
	char why[256];
};

int scripted_run(const struct scripted_opts *o, const cJSON *steps, struct scripted_result *out, struct err *e);
void scripted_result_free(struct scripted_result *r);

#endif

/* sandbox_run.h - runs one command to completion inside the sandbox (the same launcher and
 * supervisor a proxied server gets) and returns its exit status, its output and every
 * record the session produced (sandbox status, denials, network attempts). For
 * `belay sandbox check` and tests. Blocks the calling thread (private loop). */
#ifndef BELAY_SANDBOX_SANDBOX_RUN_H
#define BELAY_SANDBOX_SANDBOX_RUN_H
#include <cjson/cJSON.h>

#include "common/buf.h"
#include "sandbox/sandbox.h"

struct sandbox_run_result {
	int exit_code;     /* as the proxy would exit: the status, or 128+signal */
	struct buf out;    /* the command's stdout */
	cJSON *records;    /* [{"kind":..., fields...}] in order (owned) */
};

int sandbox_run(const struct sandbox_spec *spec, const char *launcher, char *const *argv, const char *cwd,
		unsigned timeout_ms, struct sandbox_run_result *out, struct err *e);
void sandbox_run_result_free(struct sandbox_run_result *r);

#endif

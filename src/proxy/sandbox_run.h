/* sandbox_run.h - runs one command to completion inside the sandbox (the same launcher and
 * supervisor a proxied server gets) and returns its exit status, its output and every
 * record the session produced (sandbox status, denials, network attempts). For
 * `belay sandbox check` and tests. Blocks the calling thread (private loop). */
#ifndef BELAY_PROXY_SANDBOX_RUN_H
#define BELAY_PROXY_SANDBOX_RUN_H
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
/* How the command's stdio is wired (sandbox_run: no input, stdout captured, stderr dropped). */
struct sandbox_run_io {
	int in_fd, out_fd;  /* both >= 0: the command reads in_fd and writes out_fd directly, byte
			     * for byte (out->out stays empty); else no input and stdout captured */
	int err_fd;         /* where its stderr goes (-1: discarded; a regular file, a pipe, 2) */
	int report_writes;  /* the supervisor records "write_intent"s (sandbox_supervisor.h) */
	int reap;           /* kill contained processes that outlive it ("sandbox_end" record) */
};
/* sandbox_run with the stdio wired as io says. A command whose input ends keeps running:
 * only timeout_ms (0: none) ends it early. */
int sandbox_run_io(const struct sandbox_spec *spec, const char *launcher, char *const *argv, const char *cwd,
		   unsigned timeout_ms, const struct sandbox_run_io *io, struct sandbox_run_result *out, struct err *e);
void sandbox_run_result_free(struct sandbox_run_result *r);

#endif

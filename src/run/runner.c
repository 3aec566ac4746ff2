/* runner.c - one recorded, contained, gated and indexed run (see runner.h). The one place
 * that wires sandbox spec, admission step, approvals, trace and store writer into a session.
 *
 * Must not: print, block the loop (the store writer is joined only in runner_free). */
#include "run/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "proxy/approvals.h"
#include "proxy/prestate.h"
#include "proxy/loop_spin.h"
#include "proxy/session.h"
#include "proxy/witness.h"
#include "gate/gate.h"
#include "index/runidx.h"
#include "trace/trace_writer.h"
#include "index/store_writer.h"
#include "sandbox/sandbox_cache.h"

struct runner {
	struct runner_cfg cfg;
	struct sandbox_spec spec;
	struct pkgexec_plan plan; /* a launcher-style server resolved here (else empty) */
	int contained;
	struct session *session; /* NULL once ended */
	struct approvals *approvals;
	struct store_writer *sw;
	struct session_observer obs;
	struct witness *witness; /* what the server was let write, between captures */
	char *trace_path, *run_id, *state_dir, *trace_dir;
	int ended, exit_code;
	struct trace_writer_stats trace_stats; /* taken as the session ends */
	struct loop_spin_stats spin_stats;     /* likewise */
};

static void on_record(void *ctx, struct session *s, int64_t seq, const char *kind, const cJSON *fields)
{
	struct runner *r = ctx;
	(void)s;
	(void)seq;
	if (!strcmp(kind, "workspace_shared") && r->cfg.report)
		r->cfg.report(r->cfg.ctx, "another belay started recording this workspace: calls of either that overlap "
					  "the other's writes will be UNVERIFIED (WORKSPACE_CHANGED_OUTSIDE)");
	/* Once containment is up, approvals from inside the sandbox are refused by namespace. */
	if (r->approvals && !strcmp(kind, "sandbox") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fields, "ok")))
		approvals_set_sandbox(r->approvals, jx_str(cJSON_GetObjectItemCaseSensitive(fields, "layers"), "userns"));
}

static void on_ended(void *ctx, struct session *s, int code)
{
	struct runner *r = ctx;
	session_trace_stats(s, &r->trace_stats);
	session_spin_stats(s, &r->spin_stats);
	r->exit_code = code;
	r->ended = 1;
	r->session = NULL;
	approvals_close(r->approvals);
	r->approvals = NULL;
	if (r->cfg.ended)
		r->cfg.ended(r->cfg.ctx, r, code);
}

static void on_alert(void *ctx, struct session *s, const char *reason, const char *text)
{
	struct runner *r = ctx;
	(void)s;
	if (r->cfg.alert)
		r->cfg.alert(r->cfg.ctx, r, reason, text);
}

static void on_hold(void *ctx, struct session *s, uint64_t hold, int64_t seq, const char *tool, const cJSON *plan,
		    const cJSON *trial)
{
	struct runner *r = ctx;
	(void)s;
	if (r->cfg.hold)
		r->cfg.hold(r->cfg.ctx, r, hold, seq, tool, plan, trial);
}

static void on_committed(void *ctx)
{
	struct runner *r = ctx;
	if (r->cfg.committed)
		r->cfg.committed(r->cfg.ctx, r);
}

static void on_report(void *ctx, const char *msg)
{
	struct runner *r = ctx;
	if (r->cfg.report)
		r->cfg.report(r->cfg.ctx, msg);
}

static void runner_discard(struct runner *r)
{
	if (r->contained)
		sandbox_spec_done(&r->spec);
	pkgexec_plan_free(&r->plan);
	free(r->trace_path);
	free(r->run_id);
	free(r->state_dir);
	free(r->trace_dir);
	free(r);
}

int runner_start(uv_loop_t *loop, const struct runner_cfg *cfg, struct endpoint *cin, struct endpoint *cout,
		 struct runner **out, struct err *e)
{
	*out = NULL;
	struct runner *r = xcalloc(1, sizeof *r);
	r->cfg = *cfg;
	r->state_dir = paths_state_dir(cfg->state_dir);
	r->trace_dir = cfg->trace_dir && *cfg->trace_dir ? xstrdup(cfg->trace_dir) : fs_join(r->state_dir, "traces");
	struct admission *gate = NULL;
	struct gate_policy *gpol = NULL;
	int rc = 0;
	char *not_started = NULL; /* a launcher whose package could not be resolved: why */
	if (!cfg->server || !cfg->server[0]) {
		rc = err_set(e, BELAY_EUSAGE, "no server command given");
		goto fail;
	}
	if (cfg->policy_file && (rc = gate_policy_load(cfg->policy_file, &gpol, e)) != 0) {
		err_wrap(e, "policy");
		goto fail;
	}
	enum admission_mode mode = cfg->mode;
	if (cfg->policy_file && mode == ADMISSION_OFF)
		mode = ADMISSION_AUDIT;
	if (cfg->scope && *cfg->scope) {
		if ((rc = sandbox_spec_init(&r->spec, cfg->scope, cfg->net, e)) != 0)
			goto fail;
		r->contained = 1;
		for (char *const *x = cfg->expose; x && *x; x++)
			if ((rc = sandbox_spec_expose(&r->spec, *x, e)) != 0)
				goto fail;
		if (paths_ensure_state_dir(r->state_dir, e) == 0)
			r->spec.hide = realpath(r->state_dir, NULL); /* the server never sees belay's state */
		/* The writable cache of contained processes of this scope and network policy (npm,
		 * pip, ...: sandbox_cache.h).
		 * Without it the server still runs, and tools in it that must write a cache fail. */
		struct err ce = {0};
		if (sandbox_cache_prepare(&r->spec, &ce) == 0 && r->spec.hide && fs_is_under(r->spec.cache, r->spec.hide)) {
			err_set(&ce, BELAY_EINVAL, "the cache %s lies inside the state directory %s, which the server never "
						   "sees (set BELAY_CACHE_DIR elsewhere)",
				r->spec.cache, r->spec.hide);
			free(r->spec.cache);
			r->spec.cache = NULL;
		}
		if (ce.msg[0] && cfg->report) {
			char msg[700];
			snprintf(msg, sizeof msg, "no writable cache for the contained server: %s", ce.msg);
			cfg->report(cfg->ctx, msg);
		}
		/* npx & co. cannot fetch inside the sandbox, and must not fetch with their install
		 * scripts on: resolve outside it, then run the installed entry point contained. */
		if (!cfg->resolved && pkgexec_is_launcher(cfg->server)) {
			struct pkgexec_opts po = {.cwd = cfg->cwd, .stderr_fd = cfg->stderr_fd ? cfg->stderr_fd : 2};
			struct err pe = {0};
			if (pkgexec_resolve(cfg->server, &po, &r->plan, &pe) != 0) {
				/* Nothing runs; the agent's requests are answered with the cause
				 * (session_opts.not_started), and the run is recorded. */
				not_started = xstrdup(pe.msg);
				goto start;
			}
		}
		/* The installed package stays in view, read-only, wherever it lies (a cache under
		 * the host's /tmp or /dev/shm is hidden by default); one inside the scope is already. */
		const struct pkgexec_plan *pp = cfg->resolved ? cfg->resolved : r->plan.argv ? &r->plan : NULL;
		const char *pdir = pp ? jx_str(pp->launch, "dir") : NULL;
		if (pdir && !fs_is_under(pdir, r->spec.scope) && (rc = sandbox_spec_expose(&r->spec, pdir, e)) != 0)
			goto fail;
		/* Every tools/call waits for its pre-state (snapshots in the state dir). */
		if ((rc = prestate_gate_new(r->state_dir, r->spec.scope, &gate, e)) != 0)
			goto fail;
		/* Changes in the workspace that the server did not make are named in the pre-states
		 * (another belay's server, the user, the agent's own tools). */
		r->witness = witness_new(r->spec.scope);
		prestate_gate_set_witness(gate, r->witness);
		if (prestate_gate_shared(gate) && cfg->report)
			cfg->report(cfg->ctx, "another belay is already recording this workspace: calls of either that "
					      "overlap the other's writes will be UNVERIFIED (WORKSPACE_CHANGED_OUTSIDE)");
	}
	if (mode != ADMISSION_OFF) {
		if (!gate)
			gate = admission_new(NULL, NULL, NULL);
		char *cwd = getcwd(NULL, 0);
		admission_set_policy(gate, mode, gpol, r->contained ? r->spec.scope : cwd, r->state_dir, cfg->policy_file);
		gpol = NULL;
		free(cwd);
		if (mode == ADMISSION_ENFORCE && cfg->approvals) {
			struct err ae = {0};
			if (approvals_open(loop, r->state_dir, &r->approvals, &ae) != 0) {
				approvals_close(r->approvals);
				r->approvals = NULL;
				if (cfg->report) {
					char msg[700];
					snprintf(msg, sizeof msg, "approvals unavailable (%s); refused calls cannot be approved",
						 ae.msg);
					cfg->report(cfg->ctx, msg);
				}
			}
			gate->approvals = r->approvals;
		}
		if (cfg->hold) {
			gate->on_hold = on_hold;
			gate->hold_ctx = r;
		}
		if (mode == ADMISSION_ENFORCE && r->contained && cfg->trial) {
			gate->trial = cfg->trial;
			gate->trial_ctx = cfg->trial_ctx;
		}
	}
start:
	gate_policy_free(gpol);
	gpol = NULL;
	if (!cfg->no_trace && !cfg->no_index) {
		struct store_writer_opts swo = {.report = on_report, .committed = on_committed, .ctx = r};
		/* BELAY_STORE_QUEUE_MAX: bytes of trace lines the store writer holds in memory
		 * before it reads them back from the trace instead (docs/STORE.md). */
		const char *qm = getenv("BELAY_STORE_QUEUE_MAX");
		if (qm && *qm) {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(qm, &end, 10);
			if (errno || *end || v == 0 || qm[0] == '-') {
				rc = err_set(e, BELAY_EUSAGE, "BELAY_STORE_QUEUE_MAX must be a positive number of bytes, not '%s'",
					     qm);
				goto fail;
			}
			swo.queue_max = (size_t)v;
		}
		r->sw = store_writer_new(r->state_dir, &swo);
	}
	r->obs = (struct session_observer){.record = on_record, .ended = on_ended, .alert = on_alert, .ctx = r};
	const struct pkgexec_plan *plan = cfg->resolved ? cfg->resolved : r->plan.argv ? &r->plan : NULL;
	struct session_opts so = {
		.argv = plan ? plan->argv : cfg->server,
		.launch = plan ? plan->launch : NULL,
		.cwd = cfg->cwd,
		.trace_dir = cfg->no_trace ? NULL : r->trace_dir,
		.frame_cap = cfg->frame_cap,
		.trace_writer_normal = cfg->trace_writer_normal,
		.obs = &r->obs,
		.sandbox = r->contained ? &r->spec : NULL,
		.launcher = paths_self_exe(),
		.gate = gate,
		.witness = r->witness,
		.state_dir = r->state_dir,
		.stderr_fd = cfg->stderr_fd,
		.trace_tap = r->sw ? store_writer_tap : NULL,
		.trace_tap_ctx = r->sw,
		.reply_when_gone = 1, /* an agent is never left waiting for a server that cannot answer */
		.not_started = not_started,
		.spin_us = cfg->no_spin ? 0 : cfg->spin_us ? cfg->spin_us : LOOP_SPIN_DEFAULT_US,
	};
	gate = NULL; /* the session owns it (and the witness) now, even when it fails */
	r->witness = NULL;
	rc = session_start(loop, &so, cin, cout, &r->session, e);
	free(not_started);
	not_started = NULL;
	if (rc != 0)
		goto fail;
	const char *tp = session_trace_path(r->session);
	if (tp) {
		r->trace_path = xstrdup(tp);
		r->run_id = runidx_run_id(tp);
		if (so.gate && r->contained) /* only a contained run's gate captures pre-states */
			prestate_gate_set_run(so.gate, r->run_id);
		struct err se = {0};
		if (r->sw && store_writer_start(r->sw, tp, &se) != 0 && cfg->report) {
			char msg[700];
			snprintf(msg, sizeof msg, "%s; the run is not indexed live (belay index can do it later)", se.msg);
			cfg->report(cfg->ctx, msg);
		}
	}
	*out = r;
	return 0;
fail:
	free(not_started);
	if (cin)
		endpoint_close(cin);
	if (cout)
		endpoint_close(cout);
	if (gate)
		admission_free(gate);
	witness_free(r->witness);
	gate_policy_free(gpol);
	store_writer_close(r->sw, NULL);
	runner_discard(r);
	return rc;
}

const char *runner_trace_path(const struct runner *r)
{
	return r->trace_path;
}

const char *runner_run_id(const struct runner *r)
{
	return r->run_id;
}

int runner_server_pid(const struct runner *r)
{
	return r->session ? session_server_pid(r->session) : -1;
}

void runner_terminate(struct runner *r)
{
	if (r->session)
		session_terminate(r->session);
}

int runner_resolve(struct runner *r, uint64_t hold, enum admission_answer answer, const char *by)
{
	return r->session ? session_admission_resolve(r->session, hold, answer, by) : BELAY_ENOTFOUND;
}

int runner_ended(const struct runner *r)
{
	return r->ended;
}

void runner_trace_stats(const struct runner *r, struct trace_writer_stats *st)
{
	if (r->session)
		session_trace_stats(r->session, st);
	else
		*st = r->trace_stats;
}

void runner_spin_stats(const struct runner *r, struct loop_spin_stats *st)
{
	if (r->session)
		session_spin_stats(r->session, st);
	else
		*st = r->spin_stats;
}

int runner_exit_code(const struct runner *r)
{
	return r->exit_code;
}

int runner_free_stats(struct runner *r, struct store_writer_stats *st, int *indexed)
{
	if (st)
		memset(st, 0, sizeof *st);
	if (indexed)
		*indexed = r && r->sw;
	if (!r)
		return 0;
	int rc = store_writer_close(r->sw, st);
	runner_discard(r);
	return rc;
}

int runner_free(struct runner *r)
{
	return runner_free_stats(r, NULL, NULL);
}

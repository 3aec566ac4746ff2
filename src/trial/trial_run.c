/* trial_run.c - one trial (trial.h): the pre-state captured, the command run contained with
 * the mirror at the workspace's path (its upper layer's size watched, trial_watch.c), the
 * real tree checked unchanged, the effect read from the upper layer, the record sealed and
 * written.
 *
 * Fail closed: the mirror not mounted (the launcher's overlay stage refused, or the sandbox
 * reports no overlay layer), no sandbox, no pre-state: an error, nothing kept. The command's
 * timeout, an upper layer over the bound, the real tree changing meanwhile, survivors not
 * confirmed gone: a record with status "failed"/"voided" and the named cause, never an
 * appliable effect. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "proxy/sandbox_run.h"
#include "trace/trace_writer.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"
#include "trial/trial_diff.h"
#include "trial/trial_effect.h"
#include "trial/trial_mirror.h"
#include "trial/trial_record.h"
#include "trial/trial_store.h"
#include "trial/trial_watch.h"

#define DEFAULT_TIMEOUT_MS (600u * 1000u)
#define DEFAULT_MAX_BYTES ((uint64_t)1 << 30)

/* The workspace as it is now, captured into the store (the trial's pre-state) and kept by a
 * reference in the trial's name; the store and the snapshotter stay open (*st, *sn), so the
 * check after the trial is an incremental capture. New handle object or an error. */
static int capture(const char *state_dir, const char *scope, const char *id, struct snap_store **st,
		   struct snapshotter **sn, cJSON **out, struct err *e)
{
	int rc = *st ? 0 : snap_store_open(state_dir, scope, st, e);
	if (rc == 0 && !*sn)
		rc = snapshotter_open(*st, scope, sn, e);
	if (rc)
		return rc;
	cJSON *h = snapshotter_capture(*sn);
	const char *status = jx_str(h, "status");
	if (!status || strcmp(status, "present") != 0) {
		rc = err_set(e, BELAY_EREFUSED, "%s: the workspace's pre-state cannot be captured (%s%s%s)", TRIAL_NO_PRESTATE,
			     jx_str(h, "cause") ? jx_str(h, "cause") : "?", jx_str(h, "path") ? " at " : "",
			     jx_str(h, "path") ? jx_str(h, "path") : "");
		cJSON_Delete(h);
	} else if ((rc = snap_ref_add(*st, jx_str(h, "handle"), "trial", id, e)) != 0) {
		cJSON_Delete(h);
	} else {
		*out = h;
	}
	return rc;
}

/* Whether the real tree still is the pre-state: an authority capture (every entry stat'ed
 * again, changed files re-hashed; inotify alone could miss a change, docs/SNAPSHOTS.md). */
static int tree_unchanged(struct snapshotter *sn, const cJSON *pre)
{
	snapshotter_request_full(sn);
	cJSON *h = snapshotter_capture(sn);
	const char *a = jx_str(h, "tree_hash"), *b = jx_str(pre, "tree_hash");
	int same = a && b && !strcmp(a, b);
	cJSON_Delete(h);
	return same;
}

static void drop_ref(struct snap_store *st, const char *handle, const char *id)
{
	struct err e = {0};
	if (st && handle)
		snap_ref_drop(st, handle, "trial", id, &e);
}

static char *read_memfd(int fd)
{
	struct buf b = {0};
	struct err e = {0};
	if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0)
		fs_read_fd(fd, 256u << 20, &b, &e);
	buf_putc(&b, '\0');
	return buf_take(&b);
}

/* The contained run's records: the sandbox status (the overlay must be among its layers),
 * the server's exit, the end of its survivors, the denials. */
struct seen {
	const cJSON *sandbox, *exit, *end;
	cJSON *denials; /* owned */
};

static void sort_records(const cJSON *records, struct seen *s)
{
	memset(s, 0, sizeof *s);
	s->denials = cJSON_CreateArray();
	for (const cJSON *r = records ? records->child : NULL; r; r = r->next) {
		const char *kind = jx_str(r, "kind"), *phase = jx_str(r, "phase");
		if (!kind)
			continue;
		if (!strcmp(kind, "sandbox"))
			s->sandbox = r;
		else if (!strcmp(kind, "server") && phase && !strcmp(phase, "exit"))
			s->exit = r;
		else if (!strcmp(kind, "sandbox_end"))
			s->end = r;
		else if (!strcmp(kind, "denial") || !strcmp(kind, "network_attempt")) {
			cJSON *d = cJSON_Duplicate(r, 1);
			cJSON_DeleteItemFromObjectCaseSensitive(d, "turn_seq");
			cJSON_AddItemToArray(s->denials, d);
		}
	}
}

static cJSON *argv_json(char *const *argv)
{
	cJSON *a = cJSON_CreateArray();
	for (char *const *p = argv; *p; p++)
		cJSON_AddItemToArray(a, jx_bytes(*p, strlen(*p)));
	return a;
}

int trial_run(const struct trial_opts *o, cJSON **record, struct err *e)
{
	*record = NULL;
	if (!o->argv || !o->argv[0])
		return err_set(e, BELAY_EUSAGE, "no command to try");
	struct err se = {0};
	trial_sweep(o->state_dir, &se);
	struct trial_mirror m;
	int rc = trial_mirror_create(o->state_dir, &m, e);
	if (rc)
		return rc;
	/* a temp dir of the trial's own: what the command leaves in $TMPDIR goes with it (the
	 * scope's shared one would keep it for the next contained run) */
	struct sandbox_spec spec;
	if ((rc = sandbox_spec_init_tmp(&spec, o->scope, m.tmp, o->net, e)) != 0) {
		trial_mirror_destroy(&m);
		return err_wrap(e, "%s", TRIAL_NO_SANDBOX);
	}
	cJSON *pre = NULL, *rec = NULL;
	/* the caller's warm snapshotter, when it gave one for this scope (trial_opts) */
	int warm = o->store && o->sn;
	struct snap_store *store = warm ? o->store : NULL;
	struct snapshotter *sn = warm ? o->sn : NULL;
	struct sandbox_run_result res = {0};
	int have_res = 0, efd = -1;
	char *out = NULL, *errs = NULL, *cwd = NULL;
	struct trial_effect eff = {0};
	struct seen seen = {0};
	if ((rc = capture(o->state_dir, spec.scope, m.id, &store, &sn, &pre, e)) != 0)
		goto fail;
	spec.hide = realpath(o->state_dir, NULL); /* the command never sees belay's state (traces, keys) */
	if ((rc = sandbox_spec_overlay(&spec, NULL, m.upper, m.work, e)) != 0) {
		err_wrap(e, "%s", TRIAL_NO_OVERLAY);
		goto fail;
	}
	cwd = o->cwd ? realpath(o->cwd, NULL) : NULL;
	if (!cwd || !fs_is_under(cwd, spec.scope)) {
		free(cwd);
		cwd = xstrdup(spec.scope);
	}
	unsigned timeout = o->timeout_ms ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
	uint64_t max_bytes = o->max_bytes ? o->max_bytes : DEFAULT_MAX_BYTES;
	efd = memfd_create("belay-trial-stderr", MFD_CLOEXEC);
	struct sandbox_run_io io = {.in_fd = -1, .out_fd = -1, .err_fd = efd, .reap = 1};
	char started[40];
	time_now_iso8601(started);
	uint64_t t0 = time_mono_ns();
	struct trial_watch watch;
	int watching = trial_watch_start(&watch, spec.overlay_upper, max_bytes) == 0;
	rc = sandbox_run_io(&spec, o->launcher, o->argv, cwd, timeout, &io, &res, e);
	have_res = 1; /* its records exist either way */
	int over_limit = watching ? trial_watch_stop(&watch) : 0;
	if (rc) {
		err_wrap(e, "%s", rc == BELAY_ENOTFOUND ? TRIAL_NO_COMMAND : TRIAL_NO_SANDBOX);
		goto fail;
	}
	uint64_t wall_ns = time_mono_ns() - t0;
	sort_records(res.records, &seen);
	if (!seen.sandbox || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(seen.sandbox, "ok"))) {
		const char *layer = seen.sandbox ? jx_str(seen.sandbox, "layer") : NULL;
		const char *msg = seen.sandbox ? jx_str(seen.sandbox, "error") : NULL;
		rc = err_set(e, BELAY_ESANDBOX, "%s: %s%s%s", layer && !strcmp(layer, "overlay") ? TRIAL_NO_OVERLAY : TRIAL_NO_SANDBOX,
			     layer ? layer : "the sandbox did not report", msg ? ": " : "", msg ? msg : "");
		goto fail;
	}
	if (!jx_path(seen.sandbox, "layers.overlay")) {
		rc = err_set(e, BELAY_ESANDBOX, "%s: the sandbox reports no overlay at %s", TRIAL_NO_OVERLAY, spec.scope);
		goto fail;
	}
	/* The trial happened: from here on it is recorded, whatever else goes wrong. */
	rec = cJSON_CreateObject();
	cJSON_AddNumberToObject(rec, "v", 1);
	cJSON_AddStringToObject(rec, "kind", "trial");
	cJSON_AddStringToObject(rec, "id", m.id);
	cJSON_AddItemToObject(rec, "command", argv_json(o->argv));
	cJSON_AddStringToObject(rec, "scope", spec.scope);
	cJSON_AddStringToObject(rec, "cwd", cwd);
	cJSON_AddStringToObject(rec, "network", o->net == SANDBOX_NET_ALLOW ? "allow" : "deny");
	cJSON_AddStringToObject(rec, "started", started);
	cJSON_AddNumberToObject(rec, "timeout_ms", timeout);
	cJSON_AddNumberToObject(rec, "max_bytes", (double)max_bytes);
	cJSON *ps = cJSON_AddObjectToObject(rec, "prestate");
	cJSON_AddStringToObject(ps, "handle", jx_str(pre, "handle"));
	cJSON_AddStringToObject(ps, "tree_hash", jx_str(pre, "tree_hash"));
	const cJSON *sig = seen.exit ? cJSON_GetObjectItemCaseSensitive(seen.exit, "signal") : NULL;
	const cJSON *xs = seen.exit ? cJSON_GetObjectItemCaseSensitive(seen.exit, "exit_status") : NULL;
	if (cJSON_IsNumber(sig)) {
		cJSON_AddNullToObject(rec, "exit");
		cJSON_AddNumberToObject(rec, "signal", sig->valuedouble);
		cJSON_AddStringToObject(rec, "signal_name", jx_str(seen.exit, "signal_name"));
	} else {
		cJSON_AddNumberToObject(rec, "exit", cJSON_IsNumber(xs) ? xs->valuedouble : res.exit_code);
		cJSON_AddNullToObject(rec, "signal");
	}
	int timed_out = wall_ns >= (uint64_t)timeout * 1000000u;
	cJSON_AddBoolToObject(rec, "timed_out", timed_out);
	cJSON_AddNumberToObject(rec, "wall_ms", (double)(wall_ns / 1000000u));
	const char *cause = timed_out ? TRIAL_TIMEOUT : NULL, *status = timed_out ? "failed" : "done";
	char cause_detail[512] = "";
	if (timed_out)
		snprintf(cause_detail, sizeof cause_detail, "the command did not end within %u ms and was killed", timeout);
	if (over_limit) {
		cause = TRIAL_UPPER_OVER_LIMIT, status = "failed";
		snprintf(cause_detail, sizeof cause_detail,
			 "the upper layer grew past --max-bytes %llu while the command ran: the command was killed",
			 (unsigned long long)max_bytes);
	}
	/* survivors (daemons) killed and confirmed gone */
	int killed = 0;
	if (seen.end) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(seen.end, "survivors_killed");
		killed = cJSON_IsNumber(k) ? k->valueint : 0;
	}
	cJSON_AddNumberToObject(rec, "survivors_killed", killed);
	if (!cause && (!seen.end || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(seen.end, "contained_gone")))) {
		cause = TRIAL_CLEANUP_UNCONFIRMED, status = "failed";
		snprintf(cause_detail, sizeof cause_detail, "processes the command left behind were not confirmed gone");
	}
	/* the lower layer must not have changed under the mirror */
	if (!tree_unchanged(sn, pre)) {
		if (!cause || strcmp(status, "voided") != 0) {
			cause = TRIAL_WORKSPACE_CHANGED, status = "voided";
			snprintf(cause_detail, sizeof cause_detail,
				 "the real workspace %s changed while the trial ran (its lower layer): the effect is void", spec.scope);
		}
	}
	if (trial_effect_scan(m.upper, spec.scope, &eff, e) != 0) {
		cJSON_AddItemToObject(rec, "effect", cJSON_CreateArray());
		if (!cause || strcmp(status, "voided") != 0) {
			cause = TRIAL_CLEANUP_UNCONFIRMED, status = "failed";
			snprintf(cause_detail, sizeof cause_detail, "the upper layer could not be read: %.400s", e->msg);
		}
		memset(e, 0, sizeof *e);
	} else {
		/* the text diffs, while the upper layer is there and the real tree is the pre-state */
		trial_diff_add(eff.items, store, jx_str(pre, "handle"), m.upper);
		cJSON_AddItemToObject(rec, "effect", eff.items);
		eff.items = NULL;
		cJSON_AddNumberToObject(rec, "upper_bytes", (double)eff.upper_bytes);
		if (eff.upper_bytes > max_bytes && !cause) {
			cause = TRIAL_UPPER_OVER_LIMIT, status = "failed";
			snprintf(cause_detail, sizeof cause_detail, "the upper layer holds %llu bytes, over --max-bytes %llu",
				 (unsigned long long)eff.upper_bytes, (unsigned long long)max_bytes);
		}
	}
	cJSON_AddItemToObject(rec, "denials", seen.denials);
	seen.denials = NULL;
	out = buf_take(&res.out);
	errs = read_memfd(efd);
	/* the full output into the store (kept while the trial's directory is), the tails here */
	trial_store_output(rec, store, m.id, "stdout", out, out ? strlen(out) : 0);
	trial_store_output(rec, store, m.id, "stderr", errs, strlen(errs));
	cJSON_AddItemToObject(rec, "sandbox", cJSON_Duplicate(jx_obj(seen.sandbox, "layers"), 1));
	/* the work and temp dirs go now; the upper stays while the effect can be applied */
	struct stat gone;
	fs_remove_tree(m.work);
	fs_remove_tree(m.tmp);
	if ((lstat(m.work, &gone) == 0 || lstat(m.tmp, &gone) == 0) && !cause) {
		cause = TRIAL_CLEANUP_UNCONFIRMED, status = "failed";
		snprintf(cause_detail, sizeof cause_detail, "the overlay's work dir or the trial's temp dir in %s could not be removed",
			 m.dir);
	}
	free(m.work);
	free(m.tmp);
	m.work = m.tmp = NULL;
	cJSON_AddStringToObject(rec, "status", status);
	if (cause) {
		cJSON_AddStringToObject(rec, "cause", cause);
		cJSON_AddStringToObject(rec, "cause_detail", cause_detail);
	} else {
		cJSON_AddNullToObject(rec, "cause");
	}
	if (strcmp(status, "done") != 0) {
		/* never appliable: neither its layers nor its pre-state are kept for it */
		if (trial_mirror_drop_layers(&m) != 0)
			cJSON_AddStringToObject(rec, "layers_left", m.upper);
		drop_ref(store, jx_str(pre, "handle"), m.id);
	}
	if ((rc = trial_record_write(m.dir, rec, e)) != 0) {
		cJSON_Delete(rec);
		rec = NULL;
		goto fail;
	}
	/* ... and as a trace of its own (the record's kind is in the closed list) */
	char *tpath = fs_join(m.dir, "trace.jsonl");
	struct trace_writer *w = NULL;
	struct err te = {0};
	if (trace_writer_open_path(tpath, NULL, &w, &te) == 0) {
		trace_writer_add(w, "trial", cJSON_Duplicate(rec, 1));
		trace_writer_close(w, &te);
	}
	free(tpath);
	*record = rec;
	rec = NULL;
	trial_mirror_close(&m);
	goto done;
fail:
	if (pre)
		drop_ref(store, jx_str(pre, "handle"), m.id);
	trial_mirror_destroy(&m);
done:
	cJSON_Delete(seen.denials);
	trial_effect_free(&eff);
	if (have_res)
		sandbox_run_result_free(&res);
	if (efd >= 0)
		close(efd);
	cJSON_Delete(pre);
	cJSON_Delete(rec);
	if (!warm) {
		snapshotter_free(sn);
		snap_store_close(store);
	}
	free(out);
	free(errs);
	free(cwd);
	sandbox_spec_done(&spec);
	return rc;
}

/* hook_exec.c - the contained shell of a hook run. See hook_exec.h. */
#include "hook/hook_exec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "proxy/sandbox_run.h"
#include "hook/hook_protect.h"
#include "hook/hook_run.h"
#include "index/runidx.h"
#include "store/store.h"

#define LOCK_MS 30000u

/* The run's trace (it must exist: a contained call belongs to a recorded turn). */
static int find_run(const struct hook_exec_opts *o, struct hook_run **out, struct err *e)
{
	char *path = xasprintf("%s/%s.jsonl", o->trace_dir, o->run);
	int rc = access(path, F_OK) == 0 ? hook_run_attach(path, out, e)
					 : err_set(e, BELAY_ENOTFOUND, "no run %s in %s", o->run, o->trace_dir);
	free(path);
	if (rc == 0 && !(*out)->root) {
		hook_run_close(*out);
		*out = NULL;
		rc = err_set(e, BELAY_EINVAL, "run %s is not a hook run (no agent_session record)", o->run);
	}
	return rc;
}

/* belay's protected files inside the root (hook_protect.h) stay read-only to the kernel in
 * the sandbox, whatever the gate made of the command: each agent configuration's directory
 * (.claude, .cursor, .codex: a settings.local.json created beside it would override it, a
 * rename over it would replace it) or the file itself when it lies in the root, and a hook
 * program inside the root. The state directory is hidden already. Outside the root every
 * path is read-only anyway. A pin that cannot be made is an error: nothing runs. */
static int pin_protected(struct sandbox_spec *spec, const char *root, const char *state_dir, const char *belay,
			 struct err *e)
{
	struct hook_protect *p = hook_protect_new(root, NULL, state_dir, belay);
	int rc = 0;
	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct hook_protect_file *f = &p->v[i];
		if (f->role == HP_STATE || !fs_is_under(f->path, root))
			continue;
		char *pin = xstrdup(f->path);
		char *slash = strrchr(pin, '/');
		if (f->role == HP_CONFIG && slash && slash != pin) {
			*slash = '\0';
			if (!strcmp(pin, root)) /* a configuration in the root itself: the file */
				*slash = '/';
		}
		struct err pe = {0};
		rc = sandbox_spec_pin(spec, pin, &pe);
		if (rc == BELAY_ENOTFOUND)
			rc = 0; /* nothing there to keep: the after-call check sees one appear */
		else if (rc)
			err_set(e, rc, "%s", pe.msg);
		free(pin);
	}
	hook_protect_free(p);
	return rc;
}

static void describe(struct buf *b, const cJSON *d)
{
	const char *op = jx_str(d, "op"), *path = jx_str(d, "path"), *addr = jx_str(d, "address"), *err = jx_str(d, "errno");
	buf_printf(b, "%s %s%s%s", op ? op : "?", path ? path : addr ? addr : "?", err ? ": " : "", err ? err : "");
}

int hook_exec(const struct hook_exec_opts *o, int *exit_code, void (*report)(void *ctx, const char *line), void *ctx,
	      struct err *e)
{
	*exit_code = 126;
	struct hook_run *r = NULL;
	int rc = find_run(o, &r, e);
	if (rc)
		return rc;
	char *root = xstrdup(r->root);
	int64_t turn_seq = hook_run_turn_seq(r, o->turn);
	hook_run_unlock(r); /* nobody waits for us while the command runs */
	struct sandbox_spec spec;
	if ((rc = sandbox_spec_init(&spec, root, o->net, e)) != 0) {
		hook_run_close(r);
		free(root);
		return rc;
	}
	spec.hide = realpath(o->state_dir, NULL); /* the command never sees belay's state (traces, keys) */
	if ((rc = pin_protected(&spec, spec.scope, o->state_dir, o->launcher, e)) != 0) {
		sandbox_spec_done(&spec);
		hook_run_close(r);
		free(root);
		return rc;
	}
	char *cwd = getcwd(NULL, 0);
	struct sandbox_run_io io = {.in_fd = 0, .out_fd = 1, .err_fd = 2, .reap = 1};
	struct sandbox_run_result res;
	rc = sandbox_run_io(&spec, o->launcher, o->argv, cwd, 0, &io, &res, e);
	sandbox_spec_done(&spec);
	if (rc) {
		hook_run_close(r);
		free(root);
		free(cwd);
		return rc;
	}
	*exit_code = res.exit_code;
	/* What the sandbox saw, into the run, attributed to the turn. */
	struct buf line = {0};
	int denied = 0;
	struct err we = {0};
	if (hook_run_lock(r, LOCK_MS, &we) == 0) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddNumberToObject(f, "turn", o->turn);
		if (turn_seq >= 0)
			cJSON_AddNumberToObject(f, "request_seq", (double)turn_seq);
		cJSON *argv = cJSON_AddArrayToObject(f, "argv");
		for (char *const *a = o->argv; *a; a++)
			cJSON_AddItemToArray(argv, jx_bytes(*a, strlen(*a)));
		if (cwd)
			cJSON_AddStringToObject(f, "cwd", cwd);
		cJSON_AddStringToObject(f, "scope", root);
		cJSON_AddStringToObject(f, "network", o->net == SANDBOX_NET_ALLOW ? "allow" : "deny");
		cJSON_AddNumberToObject(f, "exit_status", res.exit_code);
		for (cJSON *x = res.records ? res.records->child : NULL; x; x = x->next) {
			const char *kind = jx_str(x, "kind");
			if (kind && !strcmp(kind, "sandbox"))
				cJSON_AddItemToObject(f, "sandbox", cJSON_Duplicate(x, 1));
		}
		hook_run_append(r, "exec", f, &we);
		for (cJSON *x = res.records ? res.records->child : NULL; x; x = x->next) {
			const char *kind = jx_str(x, "kind");
			if (!kind || (strcmp(kind, "denial") && strcmp(kind, "network_attempt")))
				continue;
			cJSON *d = cJSON_Duplicate(x, 1);
			cJSON_DeleteItemFromObjectCaseSensitive(d, "kind");
			cJSON_DeleteItemFromObjectCaseSensitive(d, "turn_seq");
			if (turn_seq >= 0)
				cJSON_AddNumberToObject(d, "turn_seq", (double)turn_seq);
			if (!strcmp(kind, "denial")) {
				buf_puts(&line, denied ? "; " : "");
				describe(&line, x);
				denied++;
			}
			hook_run_append(r, kind, d, &we);
		}
		struct store *st = NULL;
		char *db = fs_join(o->state_dir, "belay.db");
		if (store_open(db, &st, &we) == 0)
			runidx_catch_up(st, r->path, NULL, &we);
		store_close(st);
		free(db);
	}
	if (denied && report) {
		char *msg = xasprintf("belay: the sandbox refused %d operation(s) of this command (run %s, turn %d): %s",
				      denied, o->run, o->turn, buf_cstr(&line));
		report(ctx, msg);
		free(msg);
	}
	buf_free(&line);
	sandbox_run_result_free(&res);
	hook_run_close(r);
	free(root);
	free(cwd);
	return 0;
}

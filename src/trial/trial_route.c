/* trial_route.c - the effect gate's trial route. See trial_route.h. */
#include "trial/trial_route.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/termsafe.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"

struct trial_route {
	char *scope, *state_dir, *launcher, *shell;
	unsigned timeout_ms;
	/* A snapshotter kept across trials (opened by the first), so that a trial's pre-state is
	 * an incremental capture like a proxied call's; one trial uses it at a time (mu), and a
	 * trial that finds it busy (another session of the same console) opens its own. */
	pthread_mutex_t mu;
	struct snap_store *store;
	struct snapshotter *sn;
	int warm_failed; /* it could not be opened: every trial opens its own */
};

/* How much of each output tail and how many paths the brief shows (the record has all). */
#define BRIEF_TAIL_BYTES 1200
#define BRIEF_PATHS 8

struct trial_route *trial_route_new(const char *scope, const char *state_dir, const char *launcher, unsigned timeout_ms)
{
	struct trial_route *g = xcalloc(1, sizeof *g);
	g->scope = xstrdup(scope);
	g->state_dir = xstrdup(state_dir);
	g->launcher = launcher ? xstrdup(launcher) : NULL;
	g->timeout_ms = timeout_ms ? timeout_ms : TRIAL_ROUTE_TIMEOUT_MS;
	g->shell = xstrdup("/bin/sh");
	pthread_mutex_init(&g->mu, NULL);
	return g;
}

void trial_route_set_shell(struct trial_route *g, const char *shell)
{
	free(g->shell);
	g->shell = xstrdup(shell);
}

void trial_route_free(struct trial_route *g)
{
	if (!g)
		return;
	snapshotter_free(g->sn);
	snap_store_close(g->store);
	pthread_mutex_destroy(&g->mu);
	free(g->scope);
	free(g->state_dir);
	free(g->launcher);
	free(g->shell);
	free(g);
}

/* With mu held: the gate's snapshotter, opened on first use (0), or -1 when it cannot be. */
static int warm_open(struct trial_route *g)
{
	if (g->sn)
		return 0;
	if (g->warm_failed)
		return -1;
	struct err e = {0};
	char *real = realpath(g->scope, NULL);
	if (!real || snap_store_open(g->state_dir, real, &g->store, &e) != 0 ||
	    snapshotter_open(g->store, real, &g->sn, &e) != 0) {
		snap_store_close(g->store);
		g->store = NULL;
		g->sn = NULL;
		g->warm_failed = 1; /* the trial opens its own and names what fails */
	}
	free(real);
	return g->sn ? 0 : -1;
}

cJSON *trial_route_run(void *ctx, const char *command, const char *cwd)
{
	struct trial_route *g = ctx;
	char *argv[] = {g->shell, "-c", (char *)command, NULL};
	struct trial_opts o = {.scope = g->scope,
			       .state_dir = g->state_dir,
			       .cwd = cwd,
			       .argv = argv,
			       .net = SANDBOX_NET_DENY,
			       .timeout_ms = g->timeout_ms,
			       .launcher = g->launcher};
	int locked = pthread_mutex_trylock(&g->mu) == 0;
	if (locked && warm_open(g) == 0) {
		o.store = g->store;
		o.sn = g->sn;
	}
	cJSON *rec = NULL;
	struct err e = {0};
	cJSON *out = cJSON_CreateObject();
	int rc = trial_run(&o, &rec, &e);
	if (locked)
		pthread_mutex_unlock(&g->mu);
	if (rc != 0) {
		cJSON_AddStringToObject(out, "error", e.msg[0] ? e.msg : "TRIAL_NO_SANDBOX: the trial could not run");
		return out;
	}
	cJSON_Delete(out);
	char *brief = trial_route_brief(rec);
	cJSON_AddStringToObject(rec, "brief", brief);
	free(brief);
	/* the fields of a `trial` trace record: not the record file's own "v" and "kind", and the
	 * command line tried as "command" (its argv, SHELL -c LINE, as "argv") */
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "v");
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "kind");
	cJSON *argvj = cJSON_DetachItemFromObjectCaseSensitive(rec, "command");
	if (argvj)
		cJSON_AddItemToObject(rec, "argv", argvj);
	cJSON_AddStringToObject(rec, "command", command);
	return rec;
}

/* The brief reaches a person (an agent's permission prompt, a refusal it shows): what the
 * command wrote and named is escaped (common/termsafe.h). */
static void put_safe(struct buf *b, const char *s, unsigned flags)
{
	termsafe_append(b, s ? s : "", s ? strlen(s) : 0, flags);
}

static void brief_tail(struct buf *b, const cJSON *rec, const char *key, const char *what)
{
	const char *t = jx_str(rec, key);
	if (!t || !*t)
		return;
	size_t n = strlen(t);
	const char *from = t;
	if (n > BRIEF_TAIL_BYTES) {
		from = t + n - BRIEF_TAIL_BYTES;
		while (*from && ((unsigned char)*from & 0xC0) == 0x80)
			from++; /* start on a character */
		const char *nl = strchr(from, '\n');
		if (nl && nl[1])
			from = nl + 1;
	}
	buf_printf(b, "\n%s%s:\n", what, from != t ? " (last lines; the trial record has 16 KiB)" : "");
	put_safe(b, from, TERMSAFE_LINES);
	if (from[strlen(from) - 1] != '\n')
		buf_puts(b, "\n");
}

char *trial_route_brief(const cJSON *rec)
{
	struct buf b = {0};
	const char *id = jx_str(rec, "id"), *status = jx_str(rec, "status"), *cause = jx_str(rec, "cause");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(rec, "signal");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(rec, "exit");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "wall_ms");
	buf_printf(&b,
		   "belay ran the command once in a disposable mirror of the workspace first (trial %s, network %s); "
		   "the real workspace was not touched.\n",
		   id ? id : "?", jx_str(rec, "network") ? jx_str(rec, "network") : "deny");
	if (cJSON_IsNumber(sig))
		buf_printf(&b, "It ended by signal %d (%s)", sig->valueint,
			   jx_str(rec, "signal_name") ? jx_str(rec, "signal_name") : "?");
	else
		buf_printf(&b, "It exited with status %d", cJSON_IsNumber(ex) ? ex->valueint : -1);
	buf_printf(&b, " after %.1f s%s.\n", cJSON_IsNumber(w) ? w->valuedouble / 1000 : 0.0,
		   cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timed_out")) ? " (timed out and killed)" : "");
	if (cause) {
		buf_printf(&b, "The trial %s: %s (", status && !strcmp(status, "voided") ? "is void" : "failed", cause);
		put_safe(&b, jx_str(rec, "cause_detail"), 0);
		buf_puts(&b, "); its effect cannot be applied.\n");
	}
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	int counts[4] = {0}, shown = 0;
	static const char *const kinds[4] = {"added", "changed", "deleted", "mode"};
	for (const cJSON *it = eff ? eff->child : NULL; it; it = it->next)
		for (int k = 0; k < 4; k++)
			if (jx_str(it, "change") && !strcmp(jx_str(it, "change"), kinds[k]))
				counts[k]++;
	int total = cJSON_GetArraySize(eff);
	if (!total) {
		buf_puts(&b, "In the mirror it changed nothing in the workspace.\n");
	} else {
		buf_printf(&b, "In the mirror it changed %d path(s): %d added, %d changed, %d deleted, %d mode change(s):", total,
			   counts[0], counts[1], counts[2], counts[3]);
		for (const cJSON *it = eff->child; it && shown < BRIEF_PATHS; it = it->next, shown++) {
			buf_printf(&b, "\n  %s ", jx_str(it, "change") ? jx_str(it, "change") : "?");
			put_safe(&b, jx_str(it, "path"), 0);
		}
		if (total > shown)
			buf_printf(&b, "\n  ... and %d more (belay try show %s)", total - shown, id ? id : "");
		buf_puts(&b, "\n");
	}
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(rec, "denials");
	int nd = cJSON_GetArraySize(den);
	if (!nd) {
		buf_puts(&b, "The sandbox refused nothing.\n");
	} else {
		buf_printf(&b, "The sandbox refused %d operation(s):", nd);
		int k = 0;
		for (const cJSON *d = den->child; d && k < BRIEF_PATHS; d = d->next, k++) {
			const char *op = jx_str(d, "op"), *path = jx_str(d, "path"), *addr = jx_str(d, "address");
			buf_printf(&b, "\n  %s ", op ? op : jx_str(d, "kind") ? jx_str(d, "kind") : "?");
			put_safe(&b, path ? path : addr, 0);
		}
		if (nd > k)
			buf_printf(&b, "\n  ... and %d more", nd - k);
		buf_puts(&b, "\n");
	}
	brief_tail(&b, rec, "stdout_tail", "stdout");
	brief_tail(&b, rec, "stderr_tail", "stderr");
	return buf_take(&b);
}

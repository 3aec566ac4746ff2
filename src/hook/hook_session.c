/* hook_session.c - one hook event end to end. See hook_session.h and docs/HOOKS.md.
 *
 * Under the run's lock, in this order: the session's agent_session record (once), the
 * event's `hook` record (the agent's bytes, base64, with their hash; for a mutating call
 * the pre-state captured just before it, for its post event the post-state), then what the
 * gate decided (`gate_decision`), the claim of a Stop event, the close of a SessionEnd; then
 * the new lines are indexed. A call held for the operator releases the lock while it waits,
 * so the session's other events go on. */
#include "hook/hook_session.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "gate/gate.h"
#include "hook/hook_answer.h"
#include "hook/hook_capture.h"
#include "hook/hook_claim.h"
#include "hook/hook_plan.h"
#include "hook/hook_protect.h"
#include "hook/hook_run.h"
#include "hook/hook_tamper.h"
#include "hook/hook_trials.h"
#include "index/runidx.h"
#include "store/store.h"
#include "trial/trial_route.h"

#define RAW_CAP ((size_t)16 << 20) /* bytes of a payload recorded (the rest is counted) */
#define RUN_LOCK_MS 30000u
/* A shell command tried in a mirror before the agent is answered (enforce mode, docs/TRY.md)
 * gets this long: the agents' hook timeout belay installs is 120 s, and the answer must come
 * well inside it. */
#define HOOK_TRIAL_MS 20000u

/* A run a resident handler keeps open between events. */
struct cached_run {
	char *key; /* trace_dir + base */
	struct hook_run *r;
	pthread_mutex_t mu; /* threads of this process (the flock only excludes other processes) */
	struct cached_run *next;
};

struct hook_ctx {
	int resident;
	struct hook_observer obs;
	struct hook_captures *caps; /* resident: one per state dir (the first one asked) */
	char *caps_dir;
	pthread_mutex_t mu;         /* caps, runs list, store */
	struct cached_run *runs;
	struct store *st;           /* resident: the indexing connection */
	char *st_dir;
	pthread_mutex_t st_mu;
	struct hook_trials *trials; /* resident: the trial gates, warm across events */
};

struct hook_ctx *hook_ctx_new(int resident, const struct hook_observer *obs)
{
	struct hook_ctx *c = xcalloc(1, sizeof *c);
	c->resident = resident;
	if (obs)
		c->obs = *obs;
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->st_mu, NULL);
	if (resident)
		c->trials = hook_trials_new(HOOK_TRIAL_MS, "/bin/bash");
	return c;
}

void hook_ctx_free(struct hook_ctx *c)
{
	if (!c)
		return;
	while (c->runs) {
		struct cached_run *k = c->runs;
		c->runs = k->next;
		hook_run_close(k->r);
		pthread_mutex_destroy(&k->mu);
		free(k->key);
		free(k);
	}
	hook_captures_free(c->caps);
	hook_trials_free(c->trials);
	free(c->caps_dir);
	store_close(c->st);
	free(c->st_dir);
	pthread_mutex_destroy(&c->mu);
	pthread_mutex_destroy(&c->st_mu);
	free(c);
}

static void add_opt(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

/*==== where things are ====*/

static int is_dir(const char *p)
{
	struct stat st;
	return p && p[0] == '/' && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *hook_resolve_root(const struct hook_request *rq, const struct hook_event *ev)
{
	const char *cand = NULL;
	if (rq->root)
		cand = rq->root;
	else if (rq->project_dir && is_dir(rq->project_dir))
		cand = rq->project_dir;
	else if (cJSON_IsArray(ev->roots) && cJSON_IsString(ev->roots->child) && is_dir(ev->roots->child->valuestring))
		cand = ev->roots->child->valuestring;
	if (!cand && ev->cwd && is_dir(ev->cwd)) {
		/* the nearest directory holding .git, else the cwd itself */
		char *d = fs_normalize(ev->cwd);
		for (;;) {
			char *git = fs_join(d, ".git");
			struct stat st;
			int found = lstat(git, &st) == 0;
			free(git);
			if (found)
				break;
			char *slash = strrchr(d, '/');
			if (!slash || slash == d) {
				free(d);
				d = NULL;
				break;
			}
			*slash = '\0';
		}
		if (d) {
			char *real = realpath(d, NULL);
			free(d);
			return real;
		}
		cand = ev->cwd;
	}
	if (!cand || !is_dir(cand))
		return NULL;
	return realpath(cand, NULL);
}

/*==== the run ====*/

/* The session's run, locked. In a resident handler the struct stays cached (its mutex held
 * until put_run). */
static struct hook_run *get_run(struct hook_ctx *c, const char *trace_dir, const char *base, struct cached_run **kept,
				struct err *e)
{
	*kept = NULL;
	struct hook_run *r = NULL;
	if (!c->resident)
		return hook_run_open(trace_dir, base, &r, e) == 0 ? r : NULL;
	char *key = xasprintf("%s\n%s", trace_dir, base);
	pthread_mutex_lock(&c->mu);
	struct cached_run *k = c->runs;
	while (k && strcmp(k->key, key))
		k = k->next;
	if (!k) {
		k = xcalloc(1, sizeof *k);
		k->key = key;
		key = NULL;
		pthread_mutex_init(&k->mu, NULL);
		k->next = c->runs;
		c->runs = k;
	}
	free(key);
	pthread_mutex_unlock(&c->mu);
	pthread_mutex_lock(&k->mu);
	if (k->r && hook_run_lock(k->r, RUN_LOCK_MS, e) == 0 && !k->r->closed) {
		*kept = k;
		return k->r;
	}
	/* not open yet, or ended (a resumed session starts its next run), or unusable */
	hook_run_close(k->r);
	k->r = NULL;
	if (hook_run_open(trace_dir, base, &k->r, e) != 0) {
		pthread_mutex_unlock(&k->mu);
		return NULL;
	}
	*kept = k;
	return k->r;
}

static void put_run(struct hook_run *r, struct cached_run *kept)
{
	if (!r)
		return;
	hook_run_unlock(r);
	if (kept)
		pthread_mutex_unlock(&kept->mu);
	else
		hook_run_close(r);
}

/* Brings the store's view of the run up to date. Needs no run lock: runidx_catch_up reads
 * where the store stands inside its own write transaction, so two indexers of one run
 * (this process and a one-shot hook) serialise there, and a line still being appended is
 * left for the next one. */
static int index_trace(struct hook_ctx *c, const struct hook_request *rq, const char *trace, struct err *e)
{
	int rc = 0;
	char *db = fs_join(rq->state_dir, "belay.db");
	if (c->resident) {
		pthread_mutex_lock(&c->st_mu);
		if (c->st && (!c->st_dir || strcmp(c->st_dir, rq->state_dir))) {
			store_close(c->st);
			c->st = NULL;
		}
		if (!c->st) {
			free(c->st_dir);
			c->st_dir = xstrdup(rq->state_dir);
			rc = paths_ensure_state_dir(rq->state_dir, e);
			if (!rc)
				rc = store_open(db, &c->st, e);
		}
		if (!rc)
			rc = runidx_catch_up(c->st, trace, NULL, e);
		pthread_mutex_unlock(&c->st_mu);
	} else {
		struct store *st = NULL;
		rc = paths_ensure_state_dir(rq->state_dir, e);
		if (!rc)
			rc = store_open(db, &st, e);
		if (!rc)
			rc = runidx_catch_up(st, trace, NULL, e);
		store_close(st);
	}
	free(db);
	return rc;
}

void hook_index(struct hook_ctx *c, const struct hook_request *rq, struct hook_reply *rp)
{
	if (!rp->trace)
		return;
	struct err e = {0};
	if (index_trace(c, rq, rp->trace, &e) != 0) {
		char *msg = xasprintf("belay: the run was recorded but not indexed (%s); `belay index %s` indexes it", e.msg,
				      rp->trace);
		if (c->resident && c->obs.log)
			c->obs.log(c->obs.ctx, msg);
		else
			buf_printf(&rp->err, "%s\n", msg);
		free(msg);
	}
	if (rp->run && c->obs.changed) {
		if (rp->new_run)
			c->obs.changed(c->obs.ctx, rp->run, rp->trace, 0);
		c->obs.changed(c->obs.ctx, rp->run, rp->trace, rp->ended ? 2 : 1);
	}
}

/*==== records ====*/

/* The common fields of a hook record: which event, and the agent's bytes. */
static cJSON *hook_fields(const struct hook_request *rq, const struct hook_event *ev, const char *phase)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "agent", hook_agent_name(rq->agent));
	add_opt(f, "event", ev->event);
	cJSON_AddStringToObject(f, "event_kind", hook_kind_name(ev->kind));
	cJSON_AddStringToObject(f, "phase", phase);
	return f;
}

static void add_raw(cJSON *f, const struct hook_request *rq)
{
	size_t n = rq->len > RAW_CAP ? RAW_CAP : rq->len;
	struct buf b = {0};
	base64_encode(rq->payload, n, &b);
	char h[72];
	sha256_tagged(rq->payload, n, h);
	cJSON_AddStringToObject(f, "raw", buf_cstr(&b));
	cJSON_AddStringToObject(f, "hash_raw", h);
	cJSON_AddBoolToObject(f, "truncated", n < rq->len);
	cJSON_AddNumberToObject(f, "len", (double)rq->len);
	buf_free(&b);
}

static void add_tool(cJSON *f, const struct hook_event *ev, const char *key)
{
	add_opt(f, "tool", ev->tool);
	cJSON_AddStringToObject(f, "tool_class", hook_tool_class_name(ev->cls));
	add_opt(f, "tool_use_id", ev->tool_use_id);
	add_opt(f, "key", key);
	add_opt(f, "cwd", ev->cwd);
}

/* The pairing key of a tool event: the agent's tool_use_id, else the command (Cursor's
 * shell events carry no id), else the tool's name. */
static char *pair_key(const struct hook_event *ev)
{
	if (ev->tool_use_id)
		return xasprintf("id:%s", ev->tool_use_id);
	if (ev->command)
		return xasprintf("cmd:%s", ev->command);
	return xasprintf("tool:%s", ev->tool ? ev->tool : "");
}

static int64_t append(struct hook_run *r, const char *kind, cJSON *f, struct err *e)
{
	return hook_run_append(r, kind, f, e);
}

static int ensure_started(struct hook_run *r, const struct hook_request *rq, const struct hook_event *ev,
			  const char *root, struct err *e)
{
	if (r->started)
		return 0;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "phase", "start");
	cJSON_AddStringToObject(f, "agent", hook_agent_name(rq->agent));
	add_opt(f, "session", ev->session);
	cJSON_AddStringToObject(f, "root", root);
	add_opt(f, "cwd", ev->cwd);
	add_opt(f, "transcript_path", ev->transcript);
	cJSON_AddStringToObject(f, "state_dir", rq->state_dir);
	cJSON_AddStringToObject(f, "writer", "belay " BELAY_VERSION_STRING);
	return append(r, "agent_session", f, e) < 0 ? e->code : 0;
}

/*==== the gate ====*/

struct gate_env {
	struct gate_ctx g;
	char *cfg_dir, *policy_real;
	char **agent_cfgs;
	const char **control; /* NULL-terminated */
	struct gate_policy *policy;
};

static int gate_env_init(struct gate_env *ge, const struct hook_request *rq, const struct hook_event *ev,
			 const char *root, const char *trace, struct err *e)
{
	memset(ge, 0, sizeof *ge);
	if (rq->policy_file) {
		int rc = gate_policy_load(rq->policy_file, &ge->policy, e);
		if (rc)
			return rc;
		ge->policy_real = realpath(rq->policy_file, NULL);
	}
	ge->cfg_dir = paths_config_dir();
	ge->agent_cfgs = hook_plan_agent_configs(root, rq->home);
	size_t n = 0;
	for (char **p = ge->agent_cfgs; *p; p++)
		n++;
	ge->control = xcalloc(n + 5, sizeof *ge->control);
	size_t k = 0;
	if (ge->cfg_dir)
		ge->control[k++] = ge->cfg_dir;
	if (ge->policy_real)
		ge->control[k++] = ge->policy_real;
	if (trace)
		ge->control[k++] = trace;
	for (char **p = ge->agent_cfgs; *p; p++)
		ge->control[k++] = *p;
	ge->g.root = root;
	ge->g.cwd = ev->cwd && ev->cwd[0] == '/' ? ev->cwd : NULL;
	ge->g.home = rq->home;
	ge->g.state_dir = rq->state_dir;
	ge->g.control_paths = ge->control;
	return 0;
}

static void gate_env_done(struct gate_env *ge)
{
	gate_policy_free(ge->policy);
	free(ge->cfg_dir);
	free(ge->policy_real);
	hook_plan_free_paths(ge->agent_cfgs);
	free(ge->control);
}

/* The shell command rewritten to run contained: belay exec --run RUN --turn N -- bash -c CMD. */
static cJSON *contained_input(const struct hook_request *rq, const struct hook_event *ev, const char *run, int turn)
{
	struct buf b = {0};
	buf_sh_quote(&b, rq->belay ? rq->belay : "belay");
	buf_puts(&b, " exec --run ");
	buf_sh_quote(&b, run);
	buf_printf(&b, " --turn %d --network %s --state ", turn, rq->net == SANDBOX_NET_ALLOW ? "allow" : "deny");
	buf_sh_quote(&b, rq->state_dir);
	buf_puts(&b, " --trace-dir ");
	buf_sh_quote(&b, rq->trace_dir);
	buf_puts(&b, " -- bash -c ");
	buf_sh_quote(&b, ev->command);
	cJSON *in = cJSON_Duplicate(ev->input, 1);
	if (!cJSON_IsObject(in)) {
		cJSON_Delete(in);
		in = cJSON_CreateObject();
	}
	cJSON_DeleteItemFromObjectCaseSensitive(in, "command");
	cJSON_DeleteItemFromObjectCaseSensitive(in, "cmd");
	cJSON_AddStringToObject(in, "command", buf_cstr(&b));
	buf_free(&b);
	return in;
}

static void reason_of(struct buf *b, const struct effect_plan *plan, const char *lead)
{
	buf_printf(b, "belay: %s", lead);
	size_t n = effect_plan_reason_count(plan);
	for (size_t i = 0; i < n && i < 3; i++)
		buf_printf(b, "%s%s", i ? "; " : ": ", effect_plan_reason(plan, i));
	if (n > 3)
		buf_printf(b, " (+%zu more)", n - 3);
}

static cJSON *gate_record(int64_t seq, const struct hook_event *ev, const struct hook_request *rq,
			  const struct effect_plan *plan, const char *outcome, enum hook_answer_kind answer, int contained)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "request_seq", (double)seq);
	add_opt(f, "tool", ev->tool);
	cJSON_AddStringToObject(f, "mode", rq->mode == ADMISSION_ENFORCE ? "enforce" : "audit");
	cJSON_AddStringToObject(f, "decision", gate_decision_name(effect_plan_decision(plan)));
	cJSON_AddStringToObject(f, "outcome", outcome);
	cJSON_AddStringToObject(f, "decided_by", "policy");
	cJSON_AddStringToObject(f, "answer", hook_answer_kind_name(answer));
	if (contained)
		cJSON_AddTrueToObject(f, "contained");
	/* audit mode: a shell call that is only an unknown local effect would be tried in a
	 * mirror (docs/TRY.md); nothing is run for it */
	if (rq->mode == ADMISSION_AUDIT && effect_plan_trial_eligible(plan))
		cJSON_AddTrueToObject(f, "would_try");
	cJSON_AddItemToObject(f, "plan", effect_plan_json(plan));
	return f;
}

/* Calls still open whose result the transcript already holds never got a post event: the
 * agent refused them (its own prompt, its permission rules). They are over, so they do not
 * make later calls concurrent: a `hook` record "retired" says so, naming why. */
static int retire_refused(struct hook_run *r, const struct hook_event *ev, struct err *e)
{
	if (!r->nopen || !ev->transcript)
		return 0;
	const char **ids = xcalloc(r->nopen + 1, sizeof *ids);
	int *found = xcalloc(r->nopen + 1, sizeof *found);
	int *turns = xcalloc(r->nopen + 1, sizeof *turns);
	size_t n = 0;
	for (size_t i = 0; i < r->nopen; i++)
		if (r->open[i].key && !strncmp(r->open[i].key, "id:", 3)) {
			turns[n] = r->open[i].turn;
			ids[n++] = r->open[i].key + 3;
		}
	int rc = 0;
	if (n) {
		hook_transcript_results(ev->transcript, ids, found);
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (!found[i])
				continue;
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "agent", hook_agent_name(ev->agent));
			cJSON_AddStringToObject(f, "phase", "retired");
			cJSON_AddNumberToObject(f, "turn", turns[i]);
			cJSON_AddStringToObject(f, "tool_use_id", ids[i]);
			cJSON_AddStringToObject(f, "why", "the transcript holds its result but no post event came: the agent "
							 "refused it (its own prompt or permission rules)");
			if (append(r, "hook", f, e) < 0)
				rc = e->code;
		}
	}
	free(ids);
	free(found);
	free(turns);
	return rc;
}

/* Enforce mode, a call the gate asks about: the shell command runs once in a mirror of the
 * workspace (bash, network denied, HOOK_TRIAL_MS at most; the run unlocked meanwhile), the
 * trial is recorded for request `seq`, and its brief goes into `why` (the text the agent or the
 * person gets). *trial (new) is the record's fields, for a hold. */
static int try_first(struct hook_ctx *c, struct hook_run *r, const struct hook_request *rq, const struct hook_event *ev,
		     const char *root, const char *cwd, int64_t seq, struct buf *why, cJSON **trial, struct err *e)
{
	/* resident: the root's gate, warm across events; one-shot: a gate for this trial */
	const char *launcher = rq->belay ? rq->belay : paths_self_exe();
	struct trial_route *tg = c->trials ? hook_trials_get(c->trials, root, rq->state_dir, launcher) : NULL;
	struct trial_route *own = tg ? NULL : trial_route_new(root, rq->state_dir, launcher, HOOK_TRIAL_MS);
	if (own)
		trial_route_set_shell(own, "/bin/bash");
	hook_run_unlock(r);
	cJSON *res = trial_route_run(tg ? tg : own, ev->command, cwd);
	trial_route_free(own);
	int rc = hook_run_lock(r, RUN_LOCK_MS, e);
	if (rc) {
		cJSON_Delete(res);
		return rc;
	}
	const char *brief = jx_str(res, "brief"), *id = jx_str(res, "id"), *terr = jx_str(res, "error");
	if (brief)
		buf_printf(why, "\n\n%s", brief);
	else
		buf_printf(why, "\n\nbelay could not try the command in a mirror of the workspace first: %s",
			   terr ? terr : "?");
	if (brief && id)
		buf_printf(why, "\nTo apply the effect the trial had instead of running the command (conflict-checked; "
				"`belay recover` undoes it), a person runs: belay try apply %s", id);
	cJSON_AddNumberToObject(res, "request_seq", (double)seq);
	add_opt(res, "tool", ev->tool);
	if (!cJSON_GetObjectItemCaseSensitive(res, "command"))
		cJSON_AddStringToObject(res, "command", ev->command);
	*trial = cJSON_Duplicate(res, 1);
	return append(r, "trial", res, e) < 0 ? e->code : 0; /* the trial's fields (trial_route.h) */
}

/* What the agent is told when a person applied the trial's effect instead of letting the
 * command run (a refusal: the command never ran for real, so there is no result to give). */
static void applied_reason(struct buf *why, const cJSON *trial, const char *by)
{
	const char *brief = jx_str(trial, "brief");
	buf_printf(why,
		   "belay: the command did not run: %s applied to the workspace, instead, the effect it had when belay "
		   "ran it once in a disposable mirror of the workspace (trial %s). The workspace now holds that effect "
		   "(conflict-checked; a recover point was taken first, and `belay recover` undoes it); do not run the "
		   "command again.",
		   by ? by : "the operator", jx_str(trial, "id"));
	if (brief)
		buf_printf(why, "\n\nThe trial's report, from before the effect was applied:\n%s", brief);
}

/*==== belay's protected files ====*/

/* The keys the protected set of this root was recorded under: the project, and an install
 * into the home. */
static void protect_keys(const struct hook_request *rq, const char *root, char *keys[2])
{
	keys[0] = xstrdup(root);
	keys[1] = rq->home ? xasprintf("global:%s", rq->home) : NULL;
}

/* The protected set against what was recorded (hook_tamper.h): alerts trip the project's
 * sessions (once: the alert is recorded into the run and told to the console / stderr when
 * it is new). Returns the alerts the sessions are tripped with (new), or NULL. */
static cJSON *protect_verify(struct hook_ctx *c, const struct hook_request *rq, const char *root, struct hook_run *r,
			     struct buf *note, struct err *e, int *rc)
{
	char *keys[2];
	protect_keys(rq, root, keys);
	cJSON *out = NULL;
	*rc = 0;
	for (int k = 0; k < 2 && keys[k]; k++) {
		cJSON *alerts = NULL;
		hook_tamper_verify(rq->state_dir, keys[k], &alerts);
		if (alerts && hook_tamper_trip(rq->state_dir, keys[k], alerts)) {
			char *d = hook_tamper_describe(alerts);
			char *msg = xasprintf("belay: ALERT: belay's protected files changed without belay: %s. Every tool "
					      "call of this project is refused until a person checks them and runs `belay "
					      "hook rearm --project %s`",
					      d, root);
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "agent", hook_agent_name(rq->agent));
			cJSON_AddStringToObject(f, "phase", "protect_alert");
			cJSON_AddItemToObject(f, "alerts", cJSON_Duplicate(alerts, 1));
			cJSON_AddStringToObject(f, "why", msg);
			if (append(r, "hook", f, e) < 0)
				*rc = e->code;
			if (c->obs.log)
				c->obs.log(c->obs.ctx, msg);
			if (note)
				buf_printf(note, "%s\n", msg);
			free(msg);
			free(d);
		}
		cJSON_Delete(alerts);
		cJSON *t = hook_tamper_tripped(rq->state_dir, keys[k]);
		if (t && !out)
			out = t;
		else
			cJSON_Delete(t);
	}
	free(keys[0]);
	free(keys[1]);
	return out;
}

/* The plan against belay's protected files: a tripped session refuses everything; else each
 * path the plan writes or deletes, by identity (hook_protect.h). */
static void protect_plan(const struct hook_request *rq, const struct hook_event *ev, const char *root,
			 const cJSON *tripped, struct effect_plan *plan, const char *cwd)
{
	if (tripped) {
		char *d = hook_tamper_describe(tripped);
		char *why = xasprintf("changed without belay (%s): every call is refused until a person checks them and "
				      "runs `belay hook rearm --project %s` (the agent cannot: the gate refuses it)",
				      d, root);
		effect_plan_amend(plan, EK_CONTROL_WRITE, "belay's protected files", ev->tool, why);
		free(why);
		free(d);
		return;
	}
	struct hook_protect *prot = hook_protect_new(root, rq->home, rq->state_dir, rq->belay);
	char *res = NULL;
	struct buf why = {0};
	enum hook_protect_verdict v = hook_protect_check(prot, plan, cwd, &res, &why);
	if (v == HOOK_PROTECT_HIT)
		effect_plan_amend(plan, EK_CONTROL_WRITE, res, ev->tool, buf_cstr(&why));
	else if (v == HOOK_PROTECT_UNRESOLVED)
		effect_plan_amend(plan, EK_INDETERMINATE, res, ev->tool, buf_cstr(&why));
	free(res);
	buf_free(&why);
	hook_protect_free(prot);
}

/* A pre-tool event: gate, capture, record; the answer in *ans. Returns 0 or the error that
 * kept it from being recorded. May unlock and re-lock the run while a hold waits. */
static int on_pre(struct hook_ctx *c, struct hook_captures *caps, const struct hook_request *rq,
		  const struct hook_event *ev, struct hook_run *r, const char *root, struct hook_answer *ans, struct err *e)
{
	int rc = retire_refused(r, ev, e);
	if (rc)
		return rc;
	struct gate_env ge;
	if ((rc = gate_env_init(&ge, rq, ev, root, r->path, e)) != 0)
		return rc;
	int mutating = 0;
	struct effect_plan *plan = hook_plan_event(ev, &ge.g, ge.policy, &mutating);
	cJSON *tripped = protect_verify(c, rq, root, r, NULL, e, &rc);
	if (rc) {
		cJSON_Delete(tripped);
		effect_plan_free(plan);
		gate_env_done(&ge);
		return rc;
	}
	protect_plan(rq, ev, root, tripped, plan, ge.g.cwd);
	cJSON_Delete(tripped);
	enum gate_decision d = effect_plan_decision(plan);
	int enforce = rq->mode == ADMISSION_ENFORCE;
	int turn = r->next_turn;
	char *key = pair_key(ev);
	int stays_open = !(rq->agent == HA_CURSOR && ev->event && !strcmp(ev->event, "beforeReadFile"));
	cJSON *f = hook_fields(rq, ev, "request");
	cJSON_AddNumberToObject(f, "turn", turn);
	add_tool(f, ev, key);
	cJSON_AddBoolToObject(f, "mutating", mutating);
	cJSON_AddBoolToObject(f, "open", stays_open && !(enforce && d == GATE_DENY));
	/* Every shell command gets a pre-state (a read-only plan is a prediction A2 checks by
	 * re-executing it); other tools only when they may write. */
	if ((mutating || ev->cls == HT_SHELL) && !(enforce && d == GATE_DENY)) {
		cJSON *h = hook_captures_capture(caps, root, r->id);
		cJSON *with = NULL;
		for (size_t i = 0; i < r->nopen; i++)
			if (r->open[i].mutating) {
				if (!with)
					with = cJSON_CreateArray();
				cJSON_AddItemToArray(with, cJSON_CreateNumber(r->open[i].turn));
			}
		if (with)
			cJSON_AddItemToObject(h, "concurrent_with", with);
		cJSON_AddItemToObject(f, "state_handle", h);
	}
	add_raw(f, rq);
	int64_t seq = append(r, "hook", f, e);
	if (seq < 0) {
		rc = e->code;
		goto out;
	}
	struct buf why = {0};
	const char *outcome;
	enum hook_answer_kind kind = HANS_NONE;
	int held = 0;
	if (!enforce) {
		outcome = d >= GATE_ASK ? "passed (audit: would ask)" : "passed (audit)";
		if (d == GATE_DENY)
			outcome = "passed (audit: would refuse)";
	} else if (d == GATE_DENY) {
		kind = HANS_DENY;
		outcome = "refused";
		reason_of(&why, plan, "refused");
	} else if (d == GATE_ASK) {
		kind = HANS_ASK;
		outcome = c->obs.hold ? "held" : "asked";
		held = c->obs.hold != NULL;
		reason_of(&why, plan, "asks before this runs");
		if (!held && rq->agent == HA_CODEX) {
			/* Codex has no ask (a failed hook there, and the command runs) */
			kind = HANS_DENY;
			outcome = "refused (Codex cannot ask)";
		} else if (!held && rq->agent == HA_GEMINI) {
			/* Gemini CLI 0.61 headless waits forever on a hook's ask (measured) */
			kind = HANS_DENY;
			outcome = "refused (Gemini CLI cannot ask headless)";
		}
	} else {
		outcome = "passed";
	}
	cJSON *trial = NULL;        /* the trial's fields, when the command was tried first */
	struct buf tried = {0};     /* what the trial adds to the answer's reason */
	uint64_t hold_ms = rq->hold_ms;
	if (enforce && d == GATE_ASK && !rq->no_trial && ev->cls == HT_SHELL && ev->command &&
	    effect_plan_trial_eligible(plan) && effect_plan_command(plan, NULL)) {
		const char *cwd = ge.g.cwd && fs_is_under(ge.g.cwd, root) ? ge.g.cwd : NULL;
		uint64_t t0 = time_mono_ns();
		if ((rc = try_first(c, r, rq, ev, root, cwd, seq, &tried, &trial, e)) != 0) {
			buf_free(&why);
			buf_free(&tried);
			cJSON_Delete(trial);
			goto out;
		}
		buf_puts(&why, buf_cstr(&tried));
		/* the trial's time comes out of the hold's: the answer must still come inside the
		 * agent's hook timeout */
		uint64_t spent = (time_mono_ns() - t0) / 1000000u;
		hold_ms = hold_ms > spent + 5000u ? hold_ms - spent : 5000u;
		outcome = held				  ? "held after a trial"
			  : kind == HANS_DENY && rq->agent == HA_GEMINI ? "refused after a trial (Gemini CLI cannot ask headless)"
			  : kind == HANS_DENY				  ? "refused after a trial (Codex cannot ask)"
									  : "asked after a trial";
	}
	/* only Claude Code (updatedInput) and Gemini CLI (hookSpecificOutput.tool_input) take a
	 * rewritten command (Codex ignores updatedInput and runs the original: containment there
	 * would be a claim, not a fact) */
	int contained = rq->contain && (rq->agent == HA_CLAUDE_CODE || rq->agent == HA_GEMINI) && ev->cls == HT_SHELL &&
			ev->command && kind != HANS_DENY;
	if (contained)
		ans->updated_input = contained_input(rq, ev, r->id, turn);
	if (append(r, "gate_decision", gate_record(seq, ev, rq, plan, outcome, kind, contained), e) < 0) {
		buf_free(&why);
		buf_free(&tried);
		cJSON_Delete(trial);
		rc = e->code;
		goto out;
	}
	if (held) {
		/* The operator's answer, with the lock released meanwhile. */
		cJSON *pj = effect_plan_json(plan);
		hook_run_unlock(r);
		char *by = NULL;
		int got = c->obs.hold(c->obs.ctx, r->id, seq, ev->tool, pj, trial, (unsigned)hold_ms, &by);
		if (got == 2 && !jx_str(trial, "id"))
			got = 0; /* an "applied" answer for a call with no trial cannot be: refused */
		cJSON_Delete(pj);
		rc = hook_run_lock(r, RUN_LOCK_MS, e);
		if (rc == 0) {
			cJSON *af = cJSON_CreateObject();
			cJSON_AddNumberToObject(af, "request_seq", (double)seq);
			if (got >= 0) {
				cJSON_AddBoolToObject(af, "approved", got == 1);
				if (got == 2)
					cJSON_AddStringToObject(af, "applied_trial", jx_str(trial, "id"));
				cJSON_AddStringToObject(af, "by", by ? by : "console");
			} else {
				cJSON_AddStringToObject(af, "outcome", "no answer in the console: the agent asks");
			}
			kind = got == 1 ? HANS_NONE : got == 0 || got == 2 || rq->agent == HA_CODEX || rq->agent == HA_GEMINI ? HANS_DENY
														 : HANS_ASK;
			cJSON_AddStringToObject(af, "answer", hook_answer_kind_name(kind));
			if (append(r, "approval", af, e) < 0)
				rc = e->code;
		}
		buf_reset(&why);
		if (got == 0)
			buf_printf(&why, "belay: refused in the console by %s", by ? by : "the operator");
		else if (got == 2)
			applied_reason(&why, trial, by);
		else if (got < 0) {
			reason_of(&why, plan, "no answer in belay's console; asks before this runs");
			buf_puts(&why, buf_cstr(&tried));
		}
		free(by);
	}
	cJSON_Delete(trial);
	buf_free(&tried);
	if (kind != HANS_NONE)
		hook_answer_set(ans, kind, "%s", buf_cstr(&why));
	else if (enforce && d == GATE_ASK && !held) /* unreachable: ask always answers */
		hook_answer_set(ans, HANS_ASK, "belay: asks");
	if (kind == HANS_DENY) {
		cJSON_Delete(ans->updated_input);
		ans->updated_input = NULL;
	}
	buf_free(&why);
out:
	free(key);
	effect_plan_free(plan);
	gate_env_done(&ge);
	return rc;
}

/* "Exit code N" at the start of a failure's text (Claude Code's Bash). */
static int error_exit_code(const char *error, long *out)
{
	if (!error || strncmp(error, "Exit code ", 10))
		return 0;
	char *end;
	long v = strtol(error + 10, &end, 10);
	if (end == error + 10 || v < 0 || v > 255)
		return 0;
	*out = v;
	return 1;
}

static int on_post(struct hook_ctx *c, struct hook_captures *caps, const struct hook_request *rq,
		   const struct hook_event *ev, struct hook_run *r, const char *root, struct buf *note, struct err *e)
{
	char *key = pair_key(ev);
	struct hook_open *op = ev->kind == HK_POST_ONLY ? NULL : hook_run_find_open(r, key);
	int single = op == NULL;
	cJSON *f = hook_fields(rq, ev, single ? "single" : "response");
	cJSON_AddNumberToObject(f, "turn", op ? op->turn : r->next_turn);
	add_tool(f, ev, key);
	if (single && ev->kind != HK_POST_ONLY)
		cJSON_AddTrueToObject(f, "unpaired"); /* no pre event of it was recorded */
	int failed = ev->kind == HK_POST_TOOL_FAILURE;
	cJSON_AddStringToObject(f, "outcome", failed ? "failed" : "ok");
	add_opt(f, "error", ev->error);
	long code;
	if (error_exit_code(ev->error, &code))
		cJSON_AddNumberToObject(f, "error_exit_code", (double)code);
	int mutating = op ? op->mutating : ev->kind == HK_POST_ONLY || ev->cls == HT_EDIT;
	if (single)
		cJSON_AddBoolToObject(f, "mutating", mutating);
	if (op ? op->pre_handle != NULL : mutating) /* the state after it, beside the one before */
		cJSON_AddItemToObject(f, "post_state", hook_captures_capture(caps, root, r->id));
	add_raw(f, rq);
	free(key);
	if (append(r, "hook", f, e) < 0)
		return e->code;
	/* after every call the agent made: belay's protected files as they were recorded */
	int rc;
	cJSON_Delete(protect_verify(c, rq, root, r, note, e, &rc));
	return rc;
}

static int on_other(struct hook_captures *caps, const struct hook_request *rq, const struct hook_event *ev,
		    struct hook_run *r, const char *root, struct err *e)
{
	cJSON *f = hook_fields(rq, ev, "event");
	add_opt(f, "cwd", ev->cwd);
	add_raw(f, rq);
	if (append(r, "hook", f, e) < 0)
		return e->code;
	if (ev->kind == HK_STOP) {
		const char *source = "last_assistant_message";
		char *text = ev->last_message ? xstrdup(ev->last_message) : NULL;
		if (!text && (text = hook_claim_from_transcript(ev->transcript)) != NULL)
			source = "transcript";
		if (text && append(r, "claim", hook_claim_fields(text, source), e) < 0) {
			free(text);
			return e->code;
		}
		free(text);
	} else if (ev->kind == HK_SESSION_END) {
		cJSON *fs = cJSON_CreateObject();
		cJSON_AddItemToObject(fs, "state_handle", hook_captures_capture(caps, root, r->id));
		if (append(r, "final_state", fs, e) < 0)
			return e->code;
		cJSON *cw = cJSON_CreateObject();
		cJSON_AddStringToObject(cw, "phase", "close");
		if (append(r, "connection_window", cw, e) < 0)
			return e->code;
	}
	return 0;
}

/* Records a payload belay could not read, in the session's run when it names one. */
static void record_unreadable(struct hook_ctx *c, const struct hook_request *rq, const struct hook_event *ev,
			      const char *cause, struct hook_reply *rp)
{
	if (!ev->session || !rq->trace_dir)
		return;
	char *base = hook_run_id(hook_agent_name(rq->agent), ev->session);
	struct cached_run *kept;
	struct err e = {0};
	struct hook_run *r = get_run(c, rq->trace_dir, base, &kept, &e);
	free(base);
	if (!r)
		return;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "agent", hook_agent_name(rq->agent));
	add_opt(f, "event", ev->event);
	cJSON_AddStringToObject(f, "phase", "unreadable");
	cJSON_AddStringToObject(f, "error_cause", cause);
	add_raw(f, rq);
	if (append(r, "hook", f, &e) >= 0) {
		rp->run = xstrdup(r->id);
		rp->trace = xstrdup(r->path);
	}
	put_run(r, kept);
}

/* The captures for a request: a resident handler's warm ones for the state dir it serves
 * (the first one asked), one-shot ones otherwise (*own: the caller frees them). */
static struct hook_captures *captures_for(struct hook_ctx *c, const char *state_dir, int *own)
{
	*own = 0;
	if (!c->resident) {
		*own = 1;
		return hook_captures_new(state_dir, 0);
	}
	pthread_mutex_lock(&c->mu);
	if (!c->caps) {
		c->caps = hook_captures_new(state_dir, 1);
		c->caps_dir = xstrdup(state_dir);
	}
	struct hook_captures *caps = c->caps;
	if (strcmp(c->caps_dir, state_dir)) {
		*own = 1;
		caps = hook_captures_new(state_dir, 0);
	}
	pthread_mutex_unlock(&c->mu);
	return caps;
}

void hook_handle(struct hook_ctx *c, const struct hook_request *rq, struct hook_reply *rp)
{
	memset(rp, 0, sizeof *rp);
	struct hook_event ev;
	struct err e = {0};
	int pre = 0;
	if (hook_event_parse(rq->agent, rq->payload, rq->len, &ev, &e) != 0) {
		record_unreadable(c, rq, &ev, e.msg, rp);
		hook_answer_failure(rq->agent, NULL, 0, e.msg, &rp->out, &rp->err, &rp->exit_code);
		hook_event_free(&ev);
		return;
	}
	pre = ev.kind == HK_PRE_TOOL;
	char *root = hook_resolve_root(rq, &ev);
	if (!root) {
		err_set(&e, BELAY_EINVAL, "the project root is unknown (no --root, no $CLAUDE_PROJECT_DIR, no usable cwd)");
		hook_answer_failure(rq->agent, ev.event, pre, e.msg, &rp->out, &rp->err, &rp->exit_code);
		hook_event_free(&ev);
		return;
	}
	int own_caps;
	struct hook_captures *caps = captures_for(c, rq->state_dir, &own_caps);
	char *base = hook_run_id(hook_agent_name(rq->agent), ev.session);
	struct cached_run *kept = NULL;
	struct hook_run *r = get_run(c, rq->trace_dir, base, &kept, &e);
	free(base);
	struct hook_answer ans = {0};
	struct buf note = {0}; /* an alert for stderr (what the person sees of the hook) */
	int rc = r ? 0 : e.code ? e.code : BELAY_EINVAL;
	int was_started = r && r->started;
	if (rc == 0)
		rc = ensure_started(r, rq, &ev, root, &e);
	if (rc == 0) {
		switch (ev.kind) {
		case HK_PRE_TOOL: rc = on_pre(c, caps, rq, &ev, r, root, &ans, &e); break;
		case HK_POST_TOOL:
		case HK_POST_TOOL_FAILURE:
		case HK_POST_ONLY: rc = on_post(c, caps, rq, &ev, r, root, &note, &e); break;
		default: rc = on_other(caps, rq, &ev, r, root, &e); break;
		}
	}
	if (r) {
		rp->run = xstrdup(r->id);
		rp->trace = xstrdup(r->path);
		rp->new_run = !was_started;
		rp->ended = r->closed;
	}
	put_run(r, kept);
	if (rc) {
		char *cause = xasprintf("cannot record the %s event: %s", ev.event, e.msg);
		hook_answer_failure(rq->agent, ev.event, pre, cause, &rp->out, &rp->err, &rp->exit_code);
		free(cause);
	} else {
		hook_answer_render(rq->agent, ev.event, ev.kind, &ans, &rp->out, &rp->err, &rp->exit_code);
	}
	if (note.len)
		buf_append(&rp->err, note.p, note.len);
	buf_free(&note);
	if (own_caps)
		hook_captures_free(caps);
	hook_answer_free(&ans);
	free(root);
	hook_event_free(&ev);
}

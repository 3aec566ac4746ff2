/* verify_hook.c - verifying a hook run. See verify_hook.h and docs/HOOKS.md.
 *
 * One scratch workspace (scratch.h) moves from state to state: a shell turn's pre-state for
 * its replay, a mutating turn's post-state for the A1 checks; turn 0's task pre-state is
 * restored once beside it. Everything is judged from the trace's own records (the agent's
 * payloads, the gate's plan, the captured states): nothing is invented, so what the agent
 * did not report (Claude Code's Bash gives no exit status on success) is never compared. */
#include "verify/verify_hook.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
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
#include "snapshot/snapshot.h"
#include "verify/equiv.h"
#include "verify/relocate.h"
#include "verify/scratch.h"
#include "verify/weakening.h"

#define REPLAYS_ON_DIVERGENCE 2 /* further replays to tell a lie from nondeterminism */
#define REPLAY_TIMEOUT_MS 60000u

/* One turn of the run, as its records say. */
struct hturn {
	int turn;
	const cJSON *req, *resp; /* hook records (single-event turns: the same record) */
	const cJSON *decision;   /* gate_decision */
	const cJSON *approval;
	const cJSON *retired;    /* refused in the agent (no post event) */
	int64_t req_seq;
	cJSON *in_payload, *out_payload; /* the agent's payloads, parsed (owned) */
	const char *tool, *cls;
};

struct hctx {
	const struct trace *t;
	const struct verify_opts *o;
	struct hturn *turns;
	size_t n;
	char *root, *state_dir;
	const char *task_handle; /* the run's first pre-state */
	int merged;              /* the agent reports a shell call's stdout and stderr as one stream */
	struct snap_store *st;
	struct scratch sc;
	int sc_open;
	int *suite_passed; /* per turn: 1 passed, 0 failed, -1 unknown (for the trajectory) */
};

int verify_is_hook_run(const struct trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->recs[i].kind, "agent_session"))
			return 1;
	return 0;
}

static const char *handle_of(const cJSON *h)
{
	const char *st = jx_str(h, "status");
	return st && !strcmp(st, "present") ? jx_str(h, "handle") : NULL;
}

/* The hook records read into turns, in turn order. */
static void collect(struct hctx *c)
{
	const struct trace *t = c->t;
	int max = -1;
	for (size_t i = 0; i < t->n; i++) {
		long long k;
		if (!strcmp(t->recs[i].kind, "hook") && jx_int(t->recs[i].obj, "turn", 0, INT_MAX, &k) && k > max)
			max = (int)k;
		if (!strcmp(t->recs[i].kind, "agent_session") && !c->root) {
			const char *root = jx_str(t->recs[i].obj, "root"), *sd = jx_str(t->recs[i].obj, "state_dir");
			const char *agent = jx_str(t->recs[i].obj, "agent");
			c->root = root ? xstrdup(root) : NULL;
			c->state_dir = sd ? xstrdup(sd) : NULL;
			/* Claude Code and Codex both report a shell call's output as one stream */
			c->merged = agent && (!strcmp(agent, "claude-code") || !strcmp(agent, "codex"));
		}
	}
	c->n = (size_t)(max + 1);
	c->turns = xcalloc(c->n + 1, sizeof *c->turns);
	for (size_t i = 0; i < c->n; i++)
		c->turns[i].turn = -1;
	for (size_t i = 0; i < t->n; i++) {
		const cJSON *o = t->recs[i].obj;
		long long k;
		const char *kind = t->recs[i].kind, *phase = jx_str(o, "phase");
		if (!strcmp(kind, "hook") && phase && jx_int(o, "turn", 0, INT_MAX, &k)) {
			struct hturn *h = &c->turns[k];
			if (!strcmp(phase, "request") || !strcmp(phase, "single")) {
				h->turn = (int)k;
				h->req = o;
				h->req_seq = t->recs[i].seq;
				h->tool = jx_str(o, "tool");
				h->cls = jx_str(o, "tool_class");
				if (!strcmp(phase, "single"))
					h->resp = o;
				if (!c->task_handle && handle_of(cJSON_GetObjectItemCaseSensitive(o, "state_handle")))
					c->task_handle = handle_of(cJSON_GetObjectItemCaseSensitive(o, "state_handle"));
			} else if (!strcmp(phase, "response")) {
				h->resp = o;
			} else if (!strcmp(phase, "retired")) {
				h->retired = o;
			}
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		const cJSON *o = t->recs[i].obj;
		long long rs;
		if (!jx_int(o, "request_seq", 0, LLONG_MAX, &rs))
			continue;
		for (size_t k = 0; k < c->n; k++)
			if (c->turns[k].req && c->turns[k].req_seq == rs) {
				if (!strcmp(t->recs[i].kind, "gate_decision"))
					c->turns[k].decision = o;
				else if (!strcmp(t->recs[i].kind, "approval"))
					c->turns[k].approval = o;
			}
	}
	for (size_t k = 0; k < c->n; k++) {
		struct hturn *h = &c->turns[k];
		if (h->req)
			h->in_payload = trace_hook_payload(h->req);
		if (h->resp && h->resp != h->req)
			h->out_payload = trace_hook_payload(h->resp);
	}
}

static const cJSON *tool_input(const struct hturn *h)
{
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(h->in_payload, "tool_input");
	return in ? in : h->in_payload; /* Cursor's flat events carry the call at the top */
}

/* The shell command line of a turn (Claude Code's tool_input.command, Codex's command or
 * cmd, Cursor's command). New string or NULL. */
static char *command_of(const struct hturn *h)
{
	const cJSON *in = tool_input(h);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(in, "command");
	if (!c)
		c = cJSON_GetObjectItemCaseSensitive(in, "cmd");
	if (cJSON_IsString(c))
		return xstrdup(c->valuestring);
	if (cJSON_IsArray(c) && cJSON_GetArraySize(c) == 3 && cJSON_IsString(cJSON_GetArrayItem(c, 2)))
		return xstrdup(cJSON_GetArrayItem(c, 2)->valuestring);
	return NULL;
}

/*==== what the agent recorded of a shell call ====*/

struct recorded {
	int has_outcome, ok;       /* the agent said it succeeded (post event) or failed (failure event) */
	int has_exit;
	long exit;                 /* an exit status the agent named ("Exit code N") */
	const char *out, *err;     /* stdout / stderr as the agent reported them (borrowed) */
	const char *combined;      /* one output text (Cursor's "output") */
	int interrupted;
};

static void recorded_of(const struct hturn *h, struct recorded *r)
{
	memset(r, 0, sizeof *r);
	if (!h->resp)
		return;
	const char *outcome = jx_str(h->resp, "outcome");
	if (outcome) {
		r->has_outcome = 1;
		r->ok = !strcmp(outcome, "ok");
	}
	long long code;
	if (jx_int(h->resp, "error_exit_code", 0, 255, &code)) {
		r->has_exit = 1;
		r->exit = (long)code;
		/* Claude Code: "Exit code N" and, below it, what the command printed */
		const char *err = jx_str(h->resp, "error"), *nl = err ? strchr(err, '\n') : NULL;
		if (nl)
			r->combined = nl + 1;
	}
	const cJSON *p = h->out_payload;
	const cJSON *resp = cJSON_GetObjectItemCaseSensitive(p, "tool_response");
	if (!resp)
		resp = cJSON_GetObjectItemCaseSensitive(p, "tool_output");
	if (cJSON_IsObject(resp)) {
		r->out = jx_str(resp, "stdout");
		r->err = jx_str(resp, "stderr");
		if (!r->out && jx_str(resp, "output"))
			r->combined = jx_str(resp, "output");
		r->interrupted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(resp, "interrupted"));
	} else if (cJSON_IsString(resp)) {
		r->combined = resp->valuestring;
	} else if (jx_str(p, "output")) {
		r->combined = jx_str(p, "output");
	}
}

/*==== one contained run of the command ====*/

struct replayed {
	int exit;
	char *out, *err;  /* owned, relocated back to the recorded root */
	cJSON *records;   /* denials and network attempts (owned) */
	cJSON *effect;    /* changed paths relative to the pre-state (owned) */
	int network_refused;
	const char *cause; /* a REPLAY_* cause when it could not run */
	char detail[600];
};

static void replayed_free(struct replayed *p)
{
	free(p->out);
	free(p->err);
	cJSON_Delete(p->records);
	cJSON_Delete(p->effect);
	memset(p, 0, sizeof *p);
}

static char *read_memfd(int fd)
{
	struct buf b = {0};
	struct err e = {0};
	lseek(fd, 0, SEEK_SET);
	if (fs_read_fd(fd, (size_t)64 << 20, &b, &e) != 0) {
		/* a larger output is cut: what was read is compared */
	}
	return buf_take(&b);
}

static cJSON *diff_json(const struct snap_diff *d)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < d->n; i++) {
		const struct snap_diff_item *it = &d->items[i];
		if (it->path_len == 1 && it->path[0] == '.')
			continue; /* the root directory itself (its mtime moves with any entry) */
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "path", jx_bytes(it->path, it->path_len));
		cJSON_AddStringToObject(o, "change", it->kind == SNAP_DIFF_ADDED     ? "added"
						     : it->kind == SNAP_DIFF_REMOVED ? "removed"
										 : "changed");
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* Restores the turn's pre-state into the scratch and runs the command there, contained. */
static void replay(struct hctx *c, const struct hturn *h, const char *handle, const char *cmd, struct replayed *p)
{
	memset(p, 0, sizeof *p);
	struct err e = {0};
	if (scratch_prepare(&c->sc, c->st, handle, NULL, &e) != 0) {
		const char *cause = snap_cause_of(&e);
		p->cause = cause && vcause_known(cause) ? cause : "PRESTATE_NOT_FOUND";
		snprintf(p->detail, sizeof p->detail, "%s", e.msg);
		return;
	}
	struct relocation to = {c->root, c->sc.ws}, back = {c->sc.ws, c->root};
	int ch;
	char *rcmd = relocate_string(&to, cmd, &ch);
	const char *cwd = jx_str(h->req, "cwd");
	char *rcwd = cwd ? relocate_string(&to, cwd, &ch) : NULL;
	struct stat sb;
	if (!rcwd || !ch || stat(rcwd, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		free(rcwd);
		rcwd = xstrdup(c->sc.ws);
	}
	struct sandbox_spec spec;
	if (sandbox_spec_init_tmp(&spec, c->sc.ws, c->sc.tmp, SANDBOX_NET_DENY, &e) != 0) {
		p->cause = "REPLAY_SANDBOX_UNAVAILABLE";
		snprintf(p->detail, sizeof p->detail, "%s", e.msg);
		free(rcmd);
		free(rcwd);
		return;
	}
	int efd = memfd_create("belay-replay-stderr", MFD_CLOEXEC);
	/* Claude Code's Bash reports stdout and stderr as one stream, in order: so is the replay
	 * (the command itself untouched: an outer shell hands bash one descriptor for both) */
	char *argv_split[] = {"bash", "-c", rcmd, NULL};
	char *argv_merged[] = {"/bin/sh", "-c", "exec bash -c \"$1\" 2>&1", "sh", rcmd, NULL};
	char **argv = c->merged ? argv_merged : argv_split;
	struct sandbox_run_io io = {.in_fd = -1, .out_fd = -1, .err_fd = efd, .reap = 1};
	long long tmo = 0;
	unsigned timeout = c->o->timeout_ms > REPLAY_TIMEOUT_MS ? c->o->timeout_ms : REPLAY_TIMEOUT_MS;
	if (jx_int(tool_input(h), "timeout", 1, 3600000, &tmo) && (unsigned)tmo + 5000 > timeout)
		timeout = (unsigned)tmo + 5000;
	struct sandbox_run_result res;
	scratch_arm(&c->sc);
	uint64_t t0 = time_mono_ns();
	int rc = sandbox_run_io(&spec, c->o->launcher, argv, rcwd, timeout, &io, &res, &e);
	if (rc) {
		p->cause = "REPLAY_SERVER_FAILED";
		snprintf(p->detail, sizeof p->detail, "%s", e.msg);
		scratch_invalidate(&c->sc);
	} else {
		if (time_mono_ns() - t0 >= (uint64_t)timeout * 1000000u) {
			p->cause = "REPLAY_TIMEOUT";
			snprintf(p->detail, sizeof p->detail, "the command did not end within %u s", timeout / 1000);
		}
		p->exit = res.exit_code;
		char *o = buf_take(&res.out), *er = efd >= 0 ? read_memfd(efd) : xstrdup("");
		p->out = relocate_string(&back, o ? o : "", &ch);
		p->err = relocate_string(&back, er ? er : "", &ch);
		free(o);
		free(er);
		p->records = cJSON_CreateArray();
		for (cJSON *r = res.records ? res.records->child : NULL; r; r = r->next) {
			const char *kind = jx_str(r, "kind");
			if (kind && (!strcmp(kind, "denial") || !strcmp(kind, "network_attempt"))) {
				cJSON_AddItemToArray(p->records, cJSON_Duplicate(r, 1));
				const char *fam = jx_str(r, "family");
				if (!strcmp(kind, "denial") && fam && (!strcmp(fam, "inet") || !strcmp(fam, "inet6")))
					p->network_refused = 1;
			}
		}
		/* the effect: what the run changed against the pre-state */
		struct snap_diff d;
		if (snap_diff_handle_dir(c->st, handle, c->sc.ws, &d, &e) == 0) {
			p->effect = diff_json(&d);
			scratch_changed(&c->sc, &d);
			snap_diff_free(&d);
		} else {
			scratch_invalidate(&c->sc);
		}
		sandbox_run_result_free(&res);
	}
	if (efd >= 0)
		close(efd);
	sandbox_spec_done(&spec);
	free(rcmd);
	free(rcwd);
}

/*==== comparing ====*/

/* s without trailing white space (a new string): agents trim what they report. */
static int same_text(const char *a, const char *b)
{
	char *x = equiv_rtrim(a), *y = equiv_rtrim(b);
	int eq = !strcmp(x, y);
	free(x);
	free(y);
	return eq;
}

/* Whether a replay agrees with what the agent recorded; *what names the first difference. */
static int agrees(const struct recorded *r, const struct replayed *p, const char **what)
{
	*what = NULL;
	if (r->has_exit && r->exit != p->exit)
		*what = "exit status";
	else if (!r->has_exit && r->has_outcome && r->ok != (p->exit == 0))
		*what = "outcome (success or failure)";
	else if (r->out && !same_text(r->out, p->out))
		*what = "stdout";
	else if (r->err && !same_text(r->err, p->err))
		*what = "stderr";
	else if (r->combined) {
		struct buf both = {0};
		buf_printf(&both, "%s%s", p->out, p->err);
		if (!same_text(r->combined, p->out) && !same_text(r->combined, buf_cstr(&both)))
			*what = "output";
		buf_free(&both);
	}
	return *what == NULL;
}

/* 1 when the part agrees() found different differs only in durations (equiv.h). */
static int durations_only(const struct recorded *r, const struct replayed *p, const char *what)
{
	if (!strcmp(what, "stdout"))
		return equiv_durations_only(r->out, p->out);
	if (!strcmp(what, "stderr"))
		return equiv_durations_only(r->err, p->err) && (!r->out || same_text(r->out, p->out));
	if (!strcmp(what, "output")) {
		struct buf both = {0};
		buf_printf(&both, "%s%s", p->out, p->err);
		int d = equiv_durations_only(r->combined, p->out) || equiv_durations_only(r->combined, buf_cstr(&both));
		buf_free(&both);
		return d;
	}
	return 0; /* exit status or outcome */
}

static char *signature(const struct replayed *p)
{
	char *o = equiv_rtrim(p->out), *er = equiv_rtrim(p->err);
	char *s = xasprintf("%d\x1f%s\x1f%s", p->exit, o, er);
	free(o);
	free(er);
	return s;
}

static cJSON *replay_json(const struct replayed *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "exit_status", p->exit);
	cJSON_AddStringToObject(o, "stdout", p->out ? p->out : "");
	cJSON_AddStringToObject(o, "stderr", p->err ? p->err : "");
	return o;
}

static cJSON *recorded_json(const struct recorded *r)
{
	cJSON *o = cJSON_CreateObject();
	if (r->has_exit)
		cJSON_AddNumberToObject(o, "exit_status", r->exit);
	if (r->has_outcome)
		cJSON_AddStringToObject(o, "outcome", r->ok ? "ok" : "failed");
	if (r->out)
		cJSON_AddStringToObject(o, "stdout", r->out);
	if (r->err)
		cJSON_AddStringToObject(o, "stderr", r->err);
	if (r->combined)
		cJSON_AddStringToObject(o, "output", r->combined);
	return o;
}

/* 1 when some other path of arr lies below p (p is then a directory whose mtime moved). */
static int has_below(const cJSON *arr, const char *p)
{
	size_t n = strlen(p);
	for (const cJSON *it = arr->child; it; it = it->next) {
		const char *q = jx_str(it, "path");
		if (q && !strncmp(q, p, n) && q[n] == '/')
			return 1;
	}
	return 0;
}

/* The paths of an effect or of denials, for a message: a directory that only holds other
 * listed paths is left out. */
static void list_paths(struct buf *b, const cJSON *arr, int max)
{
	int k = 0, shown = 0;
	for (const cJSON *it = arr ? arr->child : NULL; it; it = it->next) {
		const char *p = jx_str(it, "path");
		if (p && has_below(arr, p))
			continue;
		if (shown < max)
			buf_printf(b, "%s%s", shown ? ", " : "", p ? p : "?");
		shown += shown < max;
		k++;
	}
	if (k > shown)
		buf_printf(b, ", +%d more", k - shown);
}

/* The paths a turn changed between its pre- and its post-state (relative), or NULL. */
static cJSON *recorded_effect(struct hctx *c, const char *pre, const char *post)
{
	struct snap_diff d;
	struct err e = {0};
	if (!pre || !post || snap_diff_handles(c->st, pre, post, &d, &e) != 0)
		return NULL;
	cJSON *j = diff_json(&d);
	snap_diff_free(&d);
	return j;
}

static int effect_has(const cJSON *effect, const char *path)
{
	for (const cJSON *it = effect ? effect->child : NULL; it; it = it->next)
		if (jx_str(it, "path") && !strcmp(jx_str(it, "path"), path))
			return 1;
	return 0;
}

/* Every path of a that b lacks, as an array (new). */
static cJSON *effect_minus(const cJSON *a, const cJSON *b)
{
	cJSON *out = cJSON_CreateArray();
	for (const cJSON *it = a ? a->child : NULL; it; it = it->next)
		if (jx_str(it, "path") && !effect_has(b, jx_str(it, "path")))
			cJSON_AddItemToArray(out, cJSON_Duplicate(it, 1));
	return out;
}

/*==== A2 effect:plan ====*/

static int kind_is(const char *k, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(k, *set))
			return 1;
	return 0;
}

/* A write the sandbox refused in the replay (a path outside the workspace). */
static int is_outside_write(const cJSON *rec)
{
	const char *kind = jx_str(rec, "kind"), *fam = jx_str(rec, "family"), *op = jx_str(rec, "op");
	if (!kind || strcmp(kind, "denial") || (fam && (!strcmp(fam, "inet") || !strcmp(fam, "inet6") || !strcmp(fam, "unix"))))
		return 0;
	return op && jx_str(rec, "path") && !strstr(op, "exec") && strcmp(op, "connect");
}

/* The plan against what happened: inside the root, the recorded effect (the pre-state
 * against the post-state the agent's own run left; a replay's writes can differ for reasons
 * of the restore, such as git refreshing an index whose inode numbers moved), else the
 * replay's; outside the root, the writes the sandbox refused in the replay. */
static void judge_plan(struct turn_verdict *v, const cJSON *plan, const struct replayed *p, const cJSON *rec_effect)
{
	const cJSON *effect = rec_effect ? rec_effect : p->effect;
	static const char *const reads[] = {"fs.read", "fs.read.outside", "secret.read", "network.read", NULL};
	static const char *const outside[] = {"fs.write.outside", "fs.destroy.outside", "secret.write", "git.ref.remote",
					      "system.change", "control.write", NULL};
	const char *completeness = jx_str(plan, "completeness");
	if (!plan || !completeness || strcmp(completeness, "complete")) {
		verdict_add(v, "A2", "effect:plan", V_NOT_COVERED, "PLAN_INCOMPLETE", NO_EVIDENCE,
			    "the effect plan could not say what the command would do (%s), so there is no prediction to "
			    "check",
			    plan ? "partial" : "no plan recorded");
		return;
	}
	int read_only = 1, local = 1;
	const cJSON *effects = cJSON_GetObjectItemCaseSensitive(plan, "effects");
	for (const cJSON *ef = effects ? effects->child : NULL; ef; ef = ef->next) {
		const char *k = jx_str(ef, "kind");
		if (!k)
			continue;
		if (!kind_is(k, reads))
			read_only = 0;
		if (kind_is(k, outside))
			local = 0;
	}
	cJSON *outs = cJSON_CreateArray();
	for (const cJSON *r = p->records ? p->records->child : NULL; r; r = r->next)
		if (is_outside_write(r))
			cJSON_AddItemToArray(outs, cJSON_Duplicate(r, 1));
	int wrote = cJSON_GetArraySize(effect) > 0, wrote_out = cJSON_GetArraySize(outs) > 0;
	struct buf b = {0};
	if (read_only && (wrote || wrote_out)) {
		list_paths(&b, wrote ? effect : outs, 8);
		verdict_add(v, "A2", "effect:plan", V_FAIL, NULL, EVIDENCE(.observed = cJSON_Duplicate(wrote ? effect : outs, 1), .expected = cJSON_CreateString("read-only")), "the plan said read-only; the command wrote %s%s", buf_cstr(&b),
			    wrote ? "" : " (refused in the replay)");
	} else if (local && wrote_out) {
		list_paths(&b, outs, 8);
		verdict_add(v, "A2", "effect:plan", V_FAIL, NULL, EVIDENCE(.observed = cJSON_Duplicate(outs, 1), .expected = cJSON_CreateString("writes inside the root only")),
			    "the plan said writes inside the root only; the command tried to write outside it: %s (refused in "
			    "the replay)",
			    buf_cstr(&b));
	} else {
		verdict_add(v, "A2", "effect:plan", V_PASS, NULL, NO_EVIDENCE, "the plan said %s; the command kept to it (%d path(s) changed)",
			    read_only ? "read-only" : local ? "writes inside the root only" : "it may write outside the root",
			    cJSON_GetArraySize(effect));
	}
	cJSON_Delete(outs);
	buf_free(&b);
}

/*==== A1 ====*/

static int under(const char *path, const char *scope)
{
	size_t n = strlen(scope);
	while (n && scope[n - 1] == '/')
		n--;
	return !n || (!strncmp(path, scope, n) && (path[n] == '\0' || path[n] == '/'));
}

/* The invariants on a turn's recorded change: effect = pre -> post, post restored into the
 * scratch (for the assertion rule, beside the task's first pre-state). */
static void judge_a1(struct hctx *c, struct turn_verdict *v, const char *post, const cJSON *effect)
{
	const char *task_root = NULL, *task_cause = NULL;
	int post_ready = -1; /* not tried */
	struct err e = {0};
	for (size_t i = 0; i < c->o->policy->n; i++) {
		const struct invariant *inv = &c->o->policy->inv[i];
		if (inv->rule == RULE_SUITE_BEFORE_CLAIM || inv->rule == RULE_TESTS_COLLECTED)
			continue; /* whole-run rules */
		char *label = policy_label(inv);
		struct subverdict *s = NULL;
		if (inv->rule == RULE_READ_ONLY) {
			cJSON *hit = cJSON_CreateArray();
			for (const cJSON *it = effect->child; it; it = it->next)
				if (jx_str(it, "path") && under(jx_str(it, "path"), inv->scope))
					cJSON_AddItemToArray(hit, cJSON_Duplicate(it, 1));
			if (cJSON_GetArraySize(hit)) {
				struct buf b = {0};
				list_paths(&b, hit, 8);
				s = verdict_add(v, "A1", "invariant", V_FAIL, NULL, EVIDENCE(.observed = hit), "%s: changed %s", label, buf_cstr(&b));
				buf_free(&b);
			} else {
				cJSON_Delete(hit);
				s = verdict_add(v, "A1", "invariant", V_PASS, NULL, NO_EVIDENCE, "%s: nothing under it changed",
						label);
			}
		} else {
			if (!task_root && !task_cause) {
				task_root = c->task_handle ? scratch_task(&c->sc, c->st, c->task_handle, &task_cause) : NULL;
				if (!c->task_handle)
					task_cause = "the run has no captured pre-state";
			}
			if (post_ready < 0)
				post_ready = scratch_prepare(&c->sc, c->st, post, NULL, &e) == 0;
			if (!task_root) {
				s = verdict_add(v, "A1", "invariant", V_UNVERIFIED, "TASK_PRESTATE_UNAVAILABLE", NO_EVIDENCE,
						"%s: %s", label, task_cause);
			} else if (!post_ready) {
				s = verdict_add(v, "A1", "invariant", V_UNVERIFIED, "PRESTATE_NOT_FOUND", NO_EVIDENCE,
						"%s: the post-state cannot be restored: %s", label, e.msg);
			} else {
				size_t n = 0;
				const char **changed = xcalloc((size_t)cJSON_GetArraySize(effect) + 1, sizeof *changed);
				for (const cJSON *it = effect->child; it; it = it->next)
					if (jx_str(it, "path"))
						changed[n++] = jx_str(it, "path");
				struct weakening_input wi = {task_root, c->sc.ws, changed, inv->scope, inv->match_all};
				struct weakening_result wr;
				weakening_check(&wi, &wr, &e);
				free(changed);
				const char *cause;
				enum vstatus ws = weakening_verdict(&wr, &cause);
				s = verdict_add(v, "A1", "invariant", ws, cause,
						EVIDENCE(.observed = wr.findings ? cJSON_Duplicate(wr.findings, 1) : NULL), "%s: %s", label,
						wr.message ? wr.message : "");
				weakening_result_free(&wr);
			}
		}
		s->rule = xstrdup(label);
		free(label);
	}
}

/*==== A2 on edits ====*/

/* old -> new in text (the first occurrence, or every one). NULL when old is not there. */
static char *replace(const char *text, const char *old, const char *new, int all)
{
	size_t ol = strlen(old);
	if (!ol || !strstr(text, old))
		return NULL;
	struct buf b = {0};
	const char *p = text, *q;
	while ((q = strstr(p, old)) != NULL) {
		buf_append(&b, p, (size_t)(q - p));
		buf_puts(&b, new);
		p = q + ol;
		if (!all)
			break;
	}
	buf_puts(&b, p);
	return buf_take(&b);
}

/* What the file should hold after the recorded edit, from its pre-state content (NULL: the
 * file did not exist). *why names a tool belay does not re-apply or an edit that does not
 * apply. New string or NULL. */
static char *apply_edit(const char *tool, const cJSON *in, const char *pre, const char **why)
{
	*why = NULL;
	if (!strcmp(tool, "Write") || !strcmp(tool, "write_file")) { /* write_file: Gemini CLI's */
		const char *content = jx_str(in, "content");
		if (!content)
			*why = "the Write call carries no content";
		return content ? xstrdup(content) : NULL;
	}
	if (!pre) {
		*why = "the file did not exist before the edit";
		return NULL;
	}
	if (!strcmp(tool, "Edit") || !strcmp(tool, "replace")) { /* replace: Gemini CLI's (allow_multiple) */
		const char *o = jx_str(in, "old_string"), *n = jx_str(in, "new_string");
		int all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "replace_all")) ||
			  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(in, "allow_multiple"));
		char *r = o && n ? replace(pre, o, n, all) : NULL;
		if (!r)
			*why = "old_string does not occur in the pre-state's file";
		return r;
	}
	if (!strcmp(tool, "MultiEdit")) {
		char *cur = xstrdup(pre);
		const cJSON *edits = cJSON_GetObjectItemCaseSensitive(in, "edits");
		for (const cJSON *ed = edits ? edits->child : NULL; ed && cur; ed = ed->next) {
			const char *o = jx_str(ed, "old_string"), *n = jx_str(ed, "new_string");
			char *r = o && n ? replace(cur, o, n, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ed, "replace_all")))
					 : NULL;
			free(cur);
			cur = r;
		}
		if (!cur)
			*why = "an edit's old_string does not occur in the file as the earlier edits leave it";
		return cur;
	}
	*why = "belay re-applies Write, Edit and MultiEdit only";
	return NULL;
}

static char *rel_to_root(const char *root, const char *path)
{
	size_t n = strlen(root);
	if (path && !strncmp(path, root, n) && path[n] == '/')
		return xstrdup(path + n + 1);
	return NULL;
}

static void judge_edit(struct hctx *c, struct turn_verdict *v, const struct hturn *h, const char *pre,
		       const char *post, const cJSON *effect, int concurrent)
{
	const cJSON *in = tool_input(h);
	const char *path = jx_str(in, "file_path");
	/* Gemini CLI's file tools take a path relative to its cwd (the payload's) */
	const char *cwd = jx_str(h->in_payload, "cwd");
	char *joined = path && path[0] != '/' && cwd && cwd[0] == '/' ? fs_join(cwd, path) : NULL;
	char *abs = joined ? fs_normalize(joined) : NULL;
	free(joined);
	char *rel = rel_to_root(c->root, abs ? abs : path);
	free(abs);
	if (!rel || !h->tool ||
	    (strcmp(h->tool, "Write") && strcmp(h->tool, "Edit") && strcmp(h->tool, "MultiEdit") &&
	     strcmp(h->tool, "write_file") && strcmp(h->tool, "replace"))) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "TOOL_NOT_REEXECUTED", NO_EVIDENCE,
			    "%s: belay re-applies Write, Edit and MultiEdit of files inside the root only",
			    h->tool ? h->tool : "the tool");
		free(rel);
		return;
	}
	struct err e = {0};
	struct buf before = {0}, after = {0};
	int had = snap_read_file(c->st, pre, rel, &before, &e) == 0;
	int has = snap_read_file(c->st, post, rel, &after, &e) == 0;
	const char *why;
	char *want = apply_edit(h->tool, in, had ? buf_cstr(&before) : NULL, &why);
	if (!want) {
		verdict_add(v, "A2", "replay", V_FAIL, NULL, NO_EVIDENCE,
			    "the recorded %s of %s does not apply to its pre-state: %s", h->tool, rel, why);
	} else if (!has || strcmp(want, buf_cstr(&after))) {
		if (concurrent)
			verdict_add(v, "A2", "replay", V_UNVERIFIED, "UNRESTORABLE_CONCURRENT_TURN", NO_EVIDENCE,
				    "applying the recorded %s to the pre-state does not give the post-state of %s, and other "
				    "calls ran at the same time",
				    h->tool, rel);
		else
			verdict_add(v, "A2", "replay", V_FAIL, NULL, EVIDENCE(.observed = has ? cJSON_CreateString(buf_cstr(&after)) : NULL, .expected = cJSON_CreateString(want)),
				    "applying the recorded %s to the pre-state does not give the recorded post-state of %s: "
				    "something else changed the file",
				    h->tool, rel);
	} else {
		cJSON *others = cJSON_CreateArray();
		for (const cJSON *it = effect ? effect->child : NULL; it; it = it->next) {
			const char *p = jx_str(it, "path");
			/* the file, and the directories above it (their mtimes move with it) */
			if (p && strcmp(p, rel) && !(strncmp(rel, p, strlen(p)) == 0 && rel[strlen(p)] == '/'))
				cJSON_AddItemToArray(others, cJSON_Duplicate(it, 1));
		}
		if (cJSON_GetArraySize(others)) {
			struct buf b = {0};
			list_paths(&b, others, 8);
			verdict_add(v, "A2", "replay", V_WARN, "POST_STATE_UNEXPLAINED", EVIDENCE(.observed = others),
				    "the %s reproduces %s, but the post-state also changed %s, which the edit does not explain",
				    h->tool, rel, buf_cstr(&b));
			buf_free(&b);
		} else {
			cJSON_Delete(others);
			verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE,
				    "applying the recorded %s to the pre-state gives the recorded post-state of %s", h->tool,
				    rel);
		}
	}
	free(want);
	buf_free(&before);
	buf_free(&after);
	free(rel);
}

/*==== A2 on shell turns ====*/

static void judge_shell(struct hctx *c, struct turn_verdict *v, const struct hturn *h, const char *pre,
			const cJSON *rec_effect, int concurrent, int k)
{
	char *cmd = command_of(h);
	if (!cmd) {
		verdict_unverified(v, "TOOL_NOT_REEXECUTED", "the shell call names no command line");
		return;
	}
	struct recorded r;
	recorded_of(h, &r);
	struct replayed p;
	replay(c, h, pre, cmd, &p);
	if (p.cause) {
		verdict_unverified(v, p.cause, "%s", p.detail);
		replayed_free(&p);
		free(cmd);
		return;
	}
	v->replayed = 1;
	v->effect = p.effect ? cJSON_Duplicate(p.effect, 1) : NULL;
	cJSON_Delete(v->denials);
	v->denials = cJSON_Duplicate(p.records, 1);
	c->suite_passed[k] = p.exit == 0;
	const char *what;
	if (r.interrupted) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NOT_RECORDED", NO_EVIDENCE,
			    "the recorded run was interrupted, so its output is not a result to compare");
	} else if (!r.has_outcome) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NOT_RECORDED", NO_EVIDENCE,
			    "the call has no post event (refused by the user, interrupted, or still running)");
	} else if (agrees(&r, &p, &what)) {
		verdict_add(v, "A2", "replay", V_PASS, NULL, NO_EVIDENCE, "the recorded %s reproduce%s",
			    r.out || r.combined ? "output and outcome" : "outcome", r.out || r.combined ? "" : "s");
	} else if (p.network_refused) {
		verdict_add(v, "A2", "replay", V_UNVERIFIED, "REPLAY_NETWORK_REFUSED", EVIDENCE(.observed = replay_json(&p), .expected = recorded_json(&r)),
			    "the %s differs and the replay was refused the network it asked for", what);
	} else {
		/* Diverged: again, to tell a lie from nondeterminism. */
		const char *texts[REPLAYS_ON_DIVERGENCE + 1];
		char *own[REPLAYS_ON_DIVERGENCE + 1];
		own[0] = signature(&p);
		texts[0] = own[0];
		size_t got = 1;
		const char *fail = NULL;
		for (int i = 0; i < REPLAYS_ON_DIVERGENCE && !fail; i++) {
			struct replayed q;
			replay(c, h, pre, cmd, &q);
			if (q.cause)
				fail = q.cause;
			else {
				own[got] = signature(&q);
				texts[got] = own[got];
				got++;
			}
			replayed_free(&q);
		}
		const char *axis = fail ? NULL : equiv_classify(texts, got);
		if (fail)
			verdict_add(v, "A2", "replay", V_UNVERIFIED, fail, EVIDENCE(.observed = replay_json(&p), .expected = recorded_json(&r)),
				    "the %s differs and a further replay failed", what);
		else if (axis)
			verdict_add(v, "A2", "replay", V_UNVERIFIED, axis, EVIDENCE(.observed = replay_json(&p), .expected = recorded_json(&r)),
				    "the %s varies across %zu replays (%s)", what, got, axis);
		else if (durations_only(&r, &p, what))
			/* the replays agree; the record differs from them only in the timing a test
			 * runner prints of itself (its run was slower or faster): not a different result */
			verdict_add(v, "A2", "replay", V_UNVERIFIED, "RESULT_NONDETERMINISTIC_CLOCK",
				    EVIDENCE(.observed = replay_json(&p), .expected = recorded_json(&r)),
				    "the %s differs from the record only in durations (%zu replays agree with each other)",
				    what, got);
		else if (concurrent)
			verdict_add(v, "A2", "replay", V_UNVERIFIED, "UNRESTORABLE_CONCURRENT_TURN", EVIDENCE(.observed = recorded_json(&r), .expected = replay_json(&p)),
				    "the %s does not reproduce, and other calls ran at the same time (the pre-state may not be "
				    "what the command saw)",
				    what);
		else
			verdict_add(v, "A2", "replay", V_FAIL, NULL, EVIDENCE(.observed = replay_json(&p), .expected = recorded_json(&r)),
				    "the recorded %s does not reproduce: %zu replays agree with each other, not with the record",
				    what, got);
		for (size_t i = 0; i < got; i++)
			free(own[i]);
	}
	/* The replay's effect against the recorded one (pre -> post). */
	if (rec_effect && p.effect) {
		cJSON *only_rec = effect_minus(rec_effect, p.effect), *only_rep = effect_minus(p.effect, rec_effect);
		if (!cJSON_GetArraySize(only_rec) && !cJSON_GetArraySize(only_rep)) {
			verdict_add(v, "A2", "effect", V_PASS, NULL, NO_EVIDENCE,
				    "the replay changed the same %d path(s) as the recorded call", cJSON_GetArraySize(p.effect));
		} else {
			struct buf b = {0};
			if (cJSON_GetArraySize(only_rec)) {
				buf_puts(&b, "only the record changed ");
				list_paths(&b, only_rec, 6);
			}
			if (cJSON_GetArraySize(only_rep)) {
				buf_puts(&b, b.len ? "; only the replay changed " : "only the replay changed ");
				list_paths(&b, only_rep, 6);
			}
			verdict_add(v, "A2", "effect", V_WARN, "POST_STATE_UNEXPLAINED", EVIDENCE(.observed = cJSON_Duplicate(p.effect, 1), .expected = cJSON_Duplicate(rec_effect, 1)), "the recorded post-state and the replay differ: %s",
				    buf_cstr(&b));
			buf_free(&b);
		}
		cJSON_Delete(only_rec);
		cJSON_Delete(only_rep);
	}
	judge_plan(v, h->decision ? cJSON_GetObjectItemCaseSensitive(h->decision, "plan") : NULL, &p, rec_effect);
	int denied = 0;
	for (const cJSON *o = p.records ? p.records->child : NULL; o; o = o->next)
		denied += jx_str(o, "kind") && !strcmp(jx_str(o, "kind"), "denial");
	if (denied)
		verdict_add(v, "A2", "replay", V_WARN, "REPLAY_DENIALS", NO_EVIDENCE,
			    "the sandbox refused %d operation(s) during the replay", denied);
	replayed_free(&p);
	free(cmd);
}

/*==== one turn ====*/

static int refused_by_gate(const struct hturn *h)
{
	const char *out = jx_str(h->decision, "outcome"), *ans = jx_str(h->approval, "answer");
	return (out && !strncmp(out, "refused", 7)) || (ans && !strcmp(ans, "deny"));
}

static void verify_turn(struct hctx *c, size_t k, struct turn_verdict *v)
{
	const struct hturn *h = &c->turns[k];
	uint64_t t0 = time_mono_ns();
	v->turn = (int)k;
	v->tool = h->tool ? xstrdup(h->tool) : NULL;
	v->denials = cJSON_CreateArray();
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(h->req, "state_handle");
	const cJSON *ps = h->resp ? cJSON_GetObjectItemCaseSensitive(h->resp, "post_state") : NULL;
	const char *pre = handle_of(sh), *post = handle_of(ps);
	int concurrent = cJSON_GetObjectItemCaseSensitive(sh, "concurrent_with") != NULL;
	const char *cls = h->cls ? h->cls : "other";
	int shell = !strcmp(cls, "shell"), edit = !strcmp(cls, "edit");
	if (!h->req) {
		verdict_unverified(v, "NO_SUBVERDICT", "the turn's request is not in the trace");
	} else if (refused_by_gate(h)) {
		verdict_unverified(v, "CALL_REFUSED_BY_GATE", "belay refused the call, so it never ran");
	} else if (!shell && !edit) {
		verdict_unverified(v, "TOOL_NOT_REEXECUTED",
				   "%s is recorded, not re-executed (belay re-executes shell commands and re-applies edits)",
				   h->tool ? h->tool : "the tool");
	} else if (!h->resp) {
		verdict_unverified(v, "RESULT_NOT_RECORDED", "%s",
				   h->retired ? "the agent refused the call (its transcript holds the refusal, no post event came)"
					      : "the call has no post event (refused in the agent, interrupted, or still running)");
	} else if (!pre) {
		const char *cause = jx_str(sh, "cause");
		if (sh && cause && vcause_known(cause))
			verdict_unverified(v, cause, "no pre-state: %s", jx_str(sh, "detail") ? jx_str(sh, "detail") : cause);
		else
			verdict_unverified(v, "PRESTATE_ABSENT", "no pre-state was captured for this call");
	} else {
		cJSON *rec_effect = post ? recorded_effect(c, pre, post) : NULL;
		if (shell)
			judge_shell(c, v, h, pre, rec_effect, concurrent, (int)k);
		else
			judge_edit(c, v, h, pre, post, rec_effect, concurrent);
		if (post && rec_effect && !c->o->coverage_only)
			judge_a1(c, v, post, rec_effect);
		else if (!post)
			verdict_add(v, "A1", "invariant", V_UNVERIFIED, "PRESTATE_NOT_FOUND", NO_EVIDENCE,
				    "no post-state was captured for this call, so the invariants have nothing to check");
		cJSON_Delete(rec_effect);
	}
	verdict_reduce(v);
	v->ms_total = (double)(time_mono_ns() - t0) / 1e6;
	if (c->o->progress)
		c->o->progress(c->o->ctx, v);
}

/*==== the trajectory ====*/

/* A shell command that runs a test suite. */
static int runs_suite(const struct invariant *inv, const char *tool, const char *cmd)
{
	if (inv->tools) {
		for (char **t = inv->tools; *t; t++) {
			size_t n = strlen(*t);
			if ((tool && !strcmp(*t, tool)) || (cmd && !strncmp(cmd, *t, n) && (!cmd[n] || isspace((unsigned char)cmd[n]))))
				return 1;
		}
		return 0;
	}
	static const char *const runners[] = {"pytest", "py.test", "-m pytest", "-m unittest", "npm test", "npm run test",
					      "pnpm test", "pnpm run test", "yarn test", "go test", "cargo test",
					      "make test", "make check", "ctest", "jest", "vitest", "mocha", "tox",
					      "rspec", "phpunit", "bats", "run_tests", "run-tests", NULL};
	for (const char *const *r = runners; cmd && *r; r++)
		if (strstr(cmd, *r))
			return 1;
	return 0;
}

static void judge_trajectory(struct hctx *c, struct verify_report *out)
{
	int64_t claim_seq = -1;
	const struct invariant *inv = verify_trajectory_begin(c->t, c->o->policy, out, &claim_seq);
	verify_claim_rederive(c->t, c->o, c->state_dir, c->root, out);
	if (!inv)
		return;
	struct turn_verdict *v = &out->trajectory;
	int last = -1, runs = 0;
	for (size_t k = 0; k < c->n; k++) {
		const struct hturn *h = &c->turns[k];
		if (!h->req || h->req_seq >= claim_seq || !h->cls || strcmp(h->cls, "shell"))
			continue;
		char *cmd = command_of(h);
		if (runs_suite(inv, h->tool, cmd)) {
			runs++;
			last = (int)k;
		}
		free(cmd);
	}
	if (last < 0) {
		verdict_add(v, "A1", "trajectory", V_FAIL, NULL, NO_EVIDENCE,
			    "suite-before-success-claim: success was claimed but no suite run came before it");
	} else {
		const struct hturn *h = &c->turns[last];
		struct recorded r;
		recorded_of(h, &r);
		int replayed = c->suite_passed[last];
		if (replayed == 0 || (replayed < 0 && r.has_outcome && !r.ok))
			verdict_add(v, "A1", "trajectory", V_FAIL, NULL, NO_EVIDENCE,
				    "suite-before-success-claim: the last suite run before the claim (turn %d) failed (%s)", last,
				    replayed == 0 ? "re-executed" : "as the agent recorded it");
		else if (replayed == 1)
			verdict_add(v, "A1", "trajectory", V_PASS, NULL, NO_EVIDENCE,
				    "suite-before-success-claim: the last suite run before the claim (turn %d) passed when "
				    "re-executed (%d suite run(s))",
				    last, runs);
		else
			verdict_add(v, "A1", "trajectory", V_UNVERIFIED, "EVIDENCE_UNOBSERVABLE", NO_EVIDENCE,
				    "suite-before-success-claim: the last suite run before the claim (turn %d) could not be "
				    "re-executed",
				    last);
	}
	verdict_reduce(v);
}

/*==== the run ====*/

static int wants(const struct verify_opts *o, size_t k)
{
	if (o->turn >= 0)
		return (int)k == o->turn;
	return o->turn_from <= 0 || (int)k >= o->turn_from;
}

int verify_hook_run(const struct trace *t, const struct verify_opts *o, struct verify_report *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	struct hctx c = {.t = t, .o = o};
	collect(&c);
	int rc = 0;
	if ((o->turn >= 0 && (size_t)o->turn >= c.n) || (o->turn < 0 && o->turn_from > 0 && (size_t)o->turn_from >= c.n)) {
		rc = err_set(e, BELAY_EUSAGE, "turn %d does not exist (the run has %zu turn(s))",
			     o->turn >= 0 ? o->turn : o->turn_from, c.n);
		goto done;
	}
	if (!c.root) {
		rc = err_set(e, BELAY_EINVAL, "%s: the agent_session record names no root", t->path);
		goto done;
	}
	const char *sd = o->state_dir ? o->state_dir : c.state_dir ? c.state_dir : ".";
	if ((rc = snap_store_open(sd, NULL, &c.st, e)) != 0)
		goto done;
	if ((rc = scratch_open(&c.sc, c.root, e)) != 0) /* the workspace at its own path below the mirror */
		goto done;
	c.sc_open = 1;
	c.suite_passed = xcalloc(c.n + 1, sizeof *c.suite_passed);
	for (size_t k = 0; k < c.n; k++)
		c.suite_passed[k] = -1;
	out->total_turns = c.n;
	out->worst = V_PASS;
	for (size_t k = 0; k < c.n; k++) {
		if (!wants(o, k))
			continue;
		struct turn_verdict v = {0};
		verify_turn(&c, k, &v);
		out->turns = xrealloc(out->turns, (out->n + 1) * sizeof *out->turns);
		out->turns[out->n++] = v;
		if (v.status > out->worst)
			out->worst = v.status;
	}
	if (o->turn < 0 && o->turn_from <= 0) {
		judge_trajectory(&c, out);
		if (out->has_trajectory && out->trajectory.status > out->worst)
			out->worst = out->trajectory.status;
	}
	out->full_restores = c.sc.full_restores;
	out->partial_restores = c.sc.partial_restores;
done:
	if (c.sc_open)
		scratch_close(&c.sc);
	snap_store_close(c.st);
	for (size_t k = 0; k < c.n; k++) {
		cJSON_Delete(c.turns[k].in_payload);
		cJSON_Delete(c.turns[k].out_payload);
	}
	free(c.turns);
	free(c.suite_passed);
	free(c.root);
	free(c.state_dir);
	return rc;
}

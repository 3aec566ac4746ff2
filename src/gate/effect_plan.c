/* effect_plan.c - the effect plan: a de-duplicated list of effects, the decision projected
 * from them (strictest wins), reasons, completeness, and its JSON form.
 *
 * Responsible for the kind -> decision table (the whole policy: one decision per kind).
 * Must not: parse commands or look at tool arguments. A plan is built on one thread and
 * read-only afterwards, so finished plans may be shared between threads. */
#include "gate/effect_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"

/* Strings of a plan live in a pool of chunks owned by the plan: one allocation per few
 * kilobytes instead of three per effect. */
struct pool_chunk {
	struct pool_chunk *next;
	size_t used, cap;
	char data[];
};

struct effect_plan {
	struct gate_effect *v;
	uint32_t *hash; /* per effect: kind and resource, to skip most string compares */
	size_t n, cap;
	struct pool_chunk *pool;
	const char *last_ev_in, *last_ev; /* evidence interning: consecutive effects share it */
	const char *last_why_in, *last_why;
	int overflow;
	int finished;
	int adding_local; /* effect_plan_add_local is adding */
	enum gate_decision decision;
	char **reasons;
	size_t nreasons;
	char **incomplete;
	size_t nincomplete;
	enum gate_decision floor;
	char *floor_why;
	char *command, *command_cwd; /* the first command line noted, and its directory */
	int commands;                /* how many were noted */
};

static const struct {
	const char *name;
	enum gate_decision decision;
} kinds[EK__COUNT] = {
    [EK_FS_READ] = {"fs.read", GATE_ALLOW},
    [EK_FS_READ_OUTSIDE] = {"fs.read.outside", GATE_ALLOW},
    [EK_FS_WRITE] = {"fs.write", GATE_ALLOW_FLAGGED},
    [EK_FS_DESTROY] = {"fs.destroy", GATE_ALLOW_FLAGGED},
    [EK_FS_WRITE_OUTSIDE] = {"fs.write.outside", GATE_ASK},
    [EK_FS_DESTROY_OUTSIDE] = {"fs.destroy.outside", GATE_ASK},
    [EK_SECRET_READ] = {"secret.read", GATE_ASK},
    [EK_SECRET_WRITE] = {"secret.write", GATE_ASK},
    [EK_GIT_REF_LOCAL] = {"git.ref.local", GATE_ALLOW_FLAGGED},
    [EK_GIT_REF_REMOTE] = {"git.ref.remote", GATE_ASK},
    [EK_GIT_DESTRUCTIVE] = {"git.destructive", GATE_ASK},
    [EK_PROC_SPAWN] = {"process.spawn", GATE_ALLOW_FLAGGED},
    [EK_PROC_SIGNAL] = {"process.signal", GATE_ASK},
    [EK_PROC_PRIVILEGE] = {"process.privilege", GATE_ASK},
    [EK_NET_READ] = {"network.read", GATE_ALLOW},
    [EK_NET_LOCAL] = {"network.local", GATE_ALLOW_FLAGGED},
    [EK_NET_SEND] = {"network.send", GATE_ASK},
    [EK_NET_SECRET] = {"network.secret", GATE_ASK},
    [EK_NET_ACQUIRE] = {"network.acquire", GATE_ASK},
    [EK_SYSTEM] = {"system.change", GATE_ASK},
    [EK_CONTROL_WRITE] = {"control.write", GATE_DENY},
    [EK_INDETERMINATE] = {"indeterminate", GATE_ASK},
};

const char *effect_kind_name(enum effect_kind k)
{
	return (unsigned)k < EK__COUNT ? kinds[k].name : "?";
}

enum gate_decision effect_kind_decision(enum effect_kind k)
{
	return (unsigned)k < EK__COUNT ? kinds[k].decision : GATE_ASK;
}

const char *gate_decision_name(enum gate_decision d)
{
	switch (d) {
	case GATE_ALLOW:
		return "allow";
	case GATE_ALLOW_FLAGGED:
		return "allow_flagged";
	case GATE_ASK:
		return "ask";
	case GATE_DENY:
		return "deny";
	}
	return "ask";
}

struct effect_plan *effect_plan_new(void)
{
	return xcalloc(1, sizeof(struct effect_plan));
}

#define EVIDENCE_MAX 200

static char *pool_alloc(struct effect_plan *p, size_t n)
{
	struct pool_chunk *c = p->pool;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 4000 ? n : 4000;
		c = xmalloc(sizeof *c + cap);
		c->cap = cap;
		c->used = 0;
		c->next = p->pool;
		p->pool = c;
	}
	char *r = c->data + c->used;
	c->used += n;
	return r;
}

/* A pool copy that is valid UTF-8 (bytes of a broken sequence become '?') and at most
 * EVIDENCE_MAX bytes plus "...". */
static const char *clip(struct effect_plan *p, const char *in)
{
	if (!in)
		in = "";
	size_t n = strnlen(in, EVIDENCE_MAX + 1);
	int cut = n > EVIDENCE_MAX;
	if (cut) {
		n = EVIDENCE_MAX;
		while (n > 0 && ((unsigned char)in[n] & 0xC0) == 0x80)
			n--;
	}
	char *r = pool_alloc(p, n + (cut ? 4 : 1));
	memcpy(r, in, n);
	if (!utf8_valid(r, n))
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)r[i] >= 0x80)
				r[i] = '?';
	if (cut)
		memcpy(r + n, "...", 4);
	else
		r[n] = '\0';
	return r;
}

static uint32_t effect_hash(enum effect_kind k, const char *res)
{
	uint32_t h = 2166136261u ^ (uint32_t)k;
	for (const unsigned char *q = (const unsigned char *)res; *q; q++)
		h = (h ^ *q) * 16777619u;
	return h;
}

void effect_plan_add(struct effect_plan *p, enum effect_kind k, const char *resource, const char *evidence,
		     const char *why)
{
	if (!resource)
		resource = "";
	uint32_t h = effect_hash(k, resource);
	for (size_t i = 0; i < p->n; i++)
		if (p->hash[i] == h && p->v[i].kind == k && strncmp(p->v[i].resource, resource, EVIDENCE_MAX) == 0) {
			p->v[i].local &= p->adding_local; /* non-local wins */
			return;
		}
	if (p->n >= EFFECT_PLAN_MAX_EFFECTS) {
		if (p->overflow)
			return;
		p->overflow = 1;
		k = EK_INDETERMINATE;
		resource = "(more effects)";
		why = "the command has more effects than the gate records; the rest are not shown";
		h = effect_hash(k, resource);
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = xrealloc(p->v, p->cap * sizeof *p->v);
		p->hash = xrealloc(p->hash, p->cap * sizeof *p->hash);
	}
	if (!evidence)
		evidence = "";
	if (evidence != p->last_ev_in) {
		p->last_ev_in = evidence;
		p->last_ev = clip(p, evidence);
	}
	if (!why)
		why = "";
	if (why != p->last_why_in) {
		p->last_why_in = why;
		size_t wl = strlen(why);
		char *w = pool_alloc(p, wl + 1);
		memcpy(w, why, wl + 1);
		p->last_why = w;
	}
	p->hash[p->n] = h;
	struct gate_effect *e = &p->v[p->n++];
	e->kind = k;
	e->resource = clip(p, resource);
	e->evidence = p->last_ev;
	e->why = p->last_why;
	e->local = p->adding_local && !p->overflow;
}

void effect_plan_add_local(struct effect_plan *p, const char *resource, const char *evidence, const char *why)
{
	p->adding_local = 1;
	effect_plan_add(p, EK_INDETERMINATE, resource, evidence, why);
	p->adding_local = 0;
}

int effect_plan_trial_eligible(const struct effect_plan *p)
{
	if (p->overflow || p->floor >= GATE_ASK)
		return 0;
	int local = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct gate_effect *e = &p->v[i];
		switch (e->kind) {
		case EK_FS_READ:
		case EK_FS_WRITE:
		case EK_FS_DESTROY:
		case EK_PROC_SPAWN: break;
		case EK_INDETERMINATE:
			if (!e->local)
				return 0;
			local = 1;
			break;
		default: return 0;
		}
	}
	return local;
}

static void push_unique(char ***arr, size_t *n, char *s)
{
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*arr)[i], s) == 0) {
			free(s);
			return;
		}
	}
	*arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
	(*arr)[(*n)++] = s;
}

void effect_plan_note_command(struct effect_plan *p, const char *text, size_t n, const char *cwd)
{
	if (p->commands++)
		return;
	p->command = xmalloc(n + 1); /* text need not be NUL-terminated */
	memcpy(p->command, text, n);
	p->command[n] = '\0';
	p->command_cwd = cwd ? xstrdup(cwd) : NULL;
}

const char *effect_plan_command(const struct effect_plan *p, const char **cwd)
{
	if (cwd)
		*cwd = p->commands == 1 ? p->command_cwd : NULL;
	return p->commands == 1 ? p->command : NULL;
}

void effect_plan_floor(struct effect_plan *p, enum gate_decision d, const char *why)
{
	if (d <= p->floor && p->floor_why)
		return;
	p->floor = d;
	free(p->floor_why);
	p->floor_why = xstrdup(why);
}

#define PLAN_MAX_REASONS 8

void effect_plan_finish(struct effect_plan *p)
{
	if (p->finished)
		return;
	p->finished = 1;
	enum gate_decision d = GATE_ALLOW;
	for (size_t i = 0; i < p->n; i++)
		if (kinds[p->v[i].kind].decision > d)
			d = kinds[p->v[i].kind].decision;
	if (p->floor > d)
		d = p->floor;
	p->decision = d;
	if (p->floor_why && p->floor >= d)
		push_unique(&p->reasons, &p->nreasons, xasprintf("policy: %s", p->floor_why));
	size_t more = 0, more_incomplete = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct gate_effect *e = &p->v[i];
		if (kinds[e->kind].decision == d) {
			if (p->nreasons < (d == GATE_ALLOW ? 4 : PLAN_MAX_REASONS))
				push_unique(&p->reasons, &p->nreasons,
					    xasprintf("%s %s: %s", kinds[e->kind].name, e->resource, e->why));
			else
				more++;
		}
		if (e->kind == EK_INDETERMINATE) {
			if (p->nincomplete < PLAN_MAX_REASONS)
				push_unique(&p->incomplete, &p->nincomplete, xstrdup(e->why));
			else
				more_incomplete++;
		}
	}
	if (more && d != GATE_ALLOW)
		push_unique(&p->reasons, &p->nreasons, xasprintf("... and %zu more effects like these", more));
	if (more_incomplete)
		push_unique(&p->incomplete, &p->nincomplete, xasprintf("... and %zu more unknowns", more_incomplete));
	if (p->n == 0 && !p->nreasons)
		push_unique(&p->reasons, &p->nreasons,
			    xstrdup("no effects: the command only computes, prints or inspects"));
}

void effect_plan_amend(struct effect_plan *p, enum effect_kind k, const char *resource, const char *evidence,
		       const char *why)
{
	effect_plan_add(p, k, resource, evidence, why);
	for (size_t i = 0; i < p->nreasons; i++)
		free(p->reasons[i]);
	free(p->reasons);
	for (size_t i = 0; i < p->nincomplete; i++)
		free(p->incomplete[i]);
	free(p->incomplete);
	p->reasons = p->incomplete = NULL;
	p->nreasons = p->nincomplete = 0;
	p->finished = 0;
	effect_plan_finish(p);
}

enum gate_decision effect_plan_decision(const struct effect_plan *plan)
{
	return plan->decision;
}

int effect_plan_complete(const struct effect_plan *plan)
{
	return plan->nincomplete == 0;
}

size_t effect_plan_count(const struct effect_plan *plan)
{
	return plan->n;
}

const struct gate_effect *effect_plan_effect(const struct effect_plan *plan, size_t i)
{
	return i < plan->n ? &plan->v[i] : NULL;
}

size_t effect_plan_reason_count(const struct effect_plan *plan)
{
	return plan->nreasons;
}

const char *effect_plan_reason(const struct effect_plan *plan, size_t i)
{
	return i < plan->nreasons ? plan->reasons[i] : NULL;
}

cJSON *effect_plan_json(const struct effect_plan *plan)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "decision", gate_decision_name(plan->decision));
	cJSON_AddStringToObject(o, "completeness", plan->nincomplete ? "partial" : "complete");
	if (plan->nincomplete) {
		cJSON *inc = cJSON_AddArrayToObject(o, "incomplete");
		for (size_t i = 0; i < plan->nincomplete; i++)
			cJSON_AddItemToArray(inc, cJSON_CreateString(plan->incomplete[i]));
	}
	cJSON *rs = cJSON_AddArrayToObject(o, "reasons");
	for (size_t i = 0; i < plan->nreasons; i++)
		cJSON_AddItemToArray(rs, cJSON_CreateString(plan->reasons[i]));
	cJSON *es = cJSON_AddArrayToObject(o, "effects");
	for (size_t i = 0; i < plan->n; i++) {
		const struct gate_effect *e = &plan->v[i];
		cJSON *eo = cJSON_CreateObject();
		cJSON_AddStringToObject(eo, "kind", kinds[e->kind].name);
		cJSON_AddStringToObject(eo, "resource", e->resource);
		cJSON_AddStringToObject(eo, "evidence", e->evidence);
		cJSON_AddStringToObject(eo, "decision", gate_decision_name(kinds[e->kind].decision));
		cJSON_AddStringToObject(eo, "why", e->why);
		cJSON_AddItemToArray(es, eo);
	}
	return o;
}

void effect_plan_free(struct effect_plan *plan)
{
	if (!plan)
		return;
	for (struct pool_chunk *c = plan->pool; c;) {
		struct pool_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(plan->v);
	free(plan->hash);
	for (size_t i = 0; i < plan->nreasons; i++)
		free(plan->reasons[i]);
	free(plan->reasons);
	for (size_t i = 0; i < plan->nincomplete; i++)
		free(plan->incomplete[i]);
	free(plan->incomplete);
	free(plan->floor_why);
	free(plan->command);
	free(plan->command_cwd);
	free(plan);
}

/* effect_plan.c - the effect plan: a de-duplicated list of effects, the decision projected
 * from them (strictest wins), reasons, completeness, and its JSON form.
 *
 * Responsible for the kind -> decision table (the whole policy: one decision per kind).
 * Must not: parse commands or look at tool arguments. A plan is built on one thread and
 * read-only afterwards, so finished plans may be shared between threads. */
#include "gate/effect_plan.h"

#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/xalloc.h"

struct effect_plan {
	struct gate_effect *v;
	size_t n, cap;
	int overflow;
	int finished;
	enum gate_decision decision;
	char **reasons;
	size_t nreasons;
	char **incomplete;
	size_t nincomplete;
	enum gate_decision floor;
	char *floor_why;
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
	case GATE_ALLOW: return "allow";
	case GATE_ALLOW_FLAGGED: return "allow_flagged";
	case GATE_ASK: return "ask";
	case GATE_DENY: return "deny";
	}
	return "ask";
}

struct effect_plan *effect_plan_new(void)
{
	return xcalloc(1, sizeof(struct effect_plan));
}

#define EVIDENCE_MAX 200

/* A copy that is valid UTF-8 (bytes of a broken sequence become '?') and at most
 * EVIDENCE_MAX bytes plus "...". */
static char *clip(const char *in)
{
	if (!in)
		return xstrdup("");
	char *s = xstrdup(in);
	size_t n = strlen(s);
	if (!utf8_valid(s, n))
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] >= 0x80)
				s[i] = '?';
	if (n <= EVIDENCE_MAX)
		return s;
	/* cut on a UTF-8 boundary */
	size_t cut = EVIDENCE_MAX;
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	char *r = xmalloc(cut + 4);
	memcpy(r, s, cut);
	memcpy(r + cut, "...", 4);
	free(s);
	return r;
}

void effect_plan_add(struct effect_plan *p, enum effect_kind k, const char *resource, const char *evidence,
		     const char *why)
{
	if (!resource)
		resource = "";
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kind == k && strcmp(p->v[i].resource, resource) == 0)
			return;
	if (p->n >= EFFECT_PLAN_MAX_EFFECTS) {
		if (p->overflow)
			return;
		p->overflow = 1;
		k = EK_INDETERMINATE;
		resource = "(more effects)";
		why = "the command has more effects than the gate records; the rest are not shown";
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->v = xrealloc(p->v, p->cap * sizeof *p->v);
	}
	struct gate_effect *e = &p->v[p->n++];
	e->kind = k;
	e->resource = clip(resource);
	e->evidence = clip(evidence);
	e->why = xstrdup(why ? why : "");
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

void effect_plan_floor(struct effect_plan *p, enum gate_decision d, const char *why)
{
	if (d <= p->floor && p->floor_why)
		return;
	p->floor = d;
	free(p->floor_why);
	p->floor_why = xstrdup(why);
}

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
	for (size_t i = 0; i < p->n; i++) {
		const struct gate_effect *e = &p->v[i];
		if (kinds[e->kind].decision == d && (d != GATE_ALLOW || p->nreasons < 4))
			push_unique(&p->reasons, &p->nreasons,
				    xasprintf("%s %s: %s", kinds[e->kind].name, e->resource, e->why));
		if (e->kind == EK_INDETERMINATE)
			push_unique(&p->incomplete, &p->nincomplete, xstrdup(e->why));
	}
	if (p->n == 0 && !p->nreasons)
		push_unique(&p->reasons, &p->nreasons,
			    xstrdup("no effects: the command only computes, prints or inspects"));
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
	for (size_t i = 0; i < plan->n; i++) {
		free((char *)plan->v[i].resource);
		free((char *)plan->v[i].evidence);
		free((char *)plan->v[i].why);
	}
	free(plan->v);
	for (size_t i = 0; i < plan->nreasons; i++)
		free(plan->reasons[i]);
	free(plan->reasons);
	for (size_t i = 0; i < plan->nincomplete; i++)
		free(plan->incomplete[i]);
	free(plan->incomplete);
	free(plan->floor_why);
	free(plan);
}

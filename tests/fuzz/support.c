/* support.c - shared pieces of the fuzz harnesses. See support.h. */
#include "support.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "assertions/a1_cache.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "mcp/model.h"
#include "gate/gate.h"

const char *fz_memfile(const uint8_t *data, size_t n)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("belay-fuzz", MFD_CLOEXEC);
		FZ_CHECK(fd >= 0, "memfd_create failed");
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	FZ_CHECK(ftruncate(fd, 0) == 0);
	FZ_CHECK(n == 0 || pwrite(fd, data, n, 0) == (ssize_t)n);
	return path;
}

static char **scratch_dirs;
static size_t nscratch;

static void scratch_cleanup(void)
{
	for (size_t i = 0; i < nscratch; i++) {
		fs_remove_tree(scratch_dirs[i]);
		free(scratch_dirs[i]);
	}
	free(scratch_dirs);
	scratch_dirs = NULL;
	nscratch = 0;
}

char *fz_scratch(const char *tag)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "belay-fuzz-%s-", tag);
	char *dir = fs_mkdtemp_in(fs_scratch_base(), prefix, NULL);
	FZ_CHECK(dir != NULL, "cannot create a scratch directory under %s", fs_scratch_base());
	if (!scratch_dirs)
		atexit(scratch_cleanup);
	scratch_dirs = realloc(scratch_dirs, (nscratch + 1) * sizeof *scratch_dirs);
	FZ_CHECK(scratch_dirs != NULL);
	scratch_dirs[nscratch++] = strdup(dir);
	return dir;
}

char *fz_plan_check(const struct effect_plan *p)
{
	FZ_CHECK(p != NULL, "a plan is never NULL");
	enum gate_decision d = effect_plan_decision(p);
	FZ_CHECK(d >= GATE_ALLOW && d <= GATE_DENY, "decision %d", (int)d);
	FZ_CHECK(effect_plan_reason_count(p) > 0, "a plan without a reason");
	for (size_t i = 0; i < effect_plan_reason_count(p); i++)
		FZ_CHECK(effect_plan_reason(p, i) != NULL);
	int partial = !effect_plan_complete(p);
	for (size_t i = 0; i < effect_plan_count(p); i++) {
		const struct gate_effect *e = effect_plan_effect(p, i);
		FZ_CHECK(e->kind >= 0 && e->kind < EK__COUNT, "kind %d", (int)e->kind);
		FZ_CHECK(effect_kind_decision(e->kind) <= d, "effect %s is stricter than the plan's %s",
			 effect_kind_name(e->kind), gate_decision_name(d));
		FZ_CHECK(e->resource && e->evidence && e->why, "effect %zu is not fully described", i);
		if (e->kind == EK_INDETERMINATE)
			FZ_CHECK(partial, "an indeterminate effect in a complete plan");
	}
	if (partial)
		FZ_CHECK(d >= GATE_ASK, "a partial plan decided %s", gate_decision_name(d));
	cJSON *j = effect_plan_json(p);
	FZ_CHECK(j != NULL);
	char *txt = cJSON_PrintUnformatted(j);
	FZ_CHECK(txt != NULL, "the plan's JSON does not print");
	cJSON *back = cJSON_Parse(txt);
	FZ_CHECK(back != NULL, "the plan's JSON does not parse back: %s", txt);
	const cJSON *dec = cJSON_GetObjectItemCaseSensitive(back, "decision");
	FZ_CHECK(cJSON_IsString(dec) && strcmp(dec->valuestring, gate_decision_name(d)) == 0, "%s", txt);
	cJSON_Delete(back);
	cJSON_Delete(j);
	return txt;
}

void fz_model_check(const struct model *m)
{
	size_t turns = 0;
	for (size_t i = 0; i < m->nex; i++) {
		const struct exchange *x = &m->ex[i];
		FZ_CHECK(x->origin == DIR_C2S || x->origin == DIR_S2C);
		if (!m->latest_frame_only) {
			FZ_CHECK(x->req_frame == SIZE_MAX || x->req_frame < m->nframes, "exchange %zu req_frame", i);
			FZ_CHECK(x->resp_frame == SIZE_MAX || x->resp_frame < m->nframes, "exchange %zu resp_frame", i);
			if (x->req_frame != SIZE_MAX)
				FZ_CHECK(m->frames[x->req_frame].seq == x->req_seq, "exchange %zu req_seq", i);
			if (x->resp_frame != SIZE_MAX)
				FZ_CHECK(m->frames[x->resp_frame].seq == x->resp_seq, "exchange %zu resp_seq", i);
		}
		FZ_CHECK((x->req_seq < 0) == (x->req_frame == SIZE_MAX), "exchange %zu: a request seq without its frame", i);
		FZ_CHECK((x->resp_seq < 0) == (x->resp_frame == SIZE_MAX), "exchange %zu", i);
		if (x->status == EX_ANSWERED || x->status == EX_ORPHAN || x->status == EX_DUPLICATE)
			FZ_CHECK(x->resp_seq >= 0, "exchange %zu is %s without a response", i, ex_status_name(x->status));
		if (x->status == EX_ORPHAN)
			FZ_CHECK(x->req_seq < 0, "an orphan with a request");
		if (x->status == EX_UNANSWERED)
			FZ_CHECK(x->resp_seq < 0 && x->req_seq >= 0, "exchange %zu", i);
		if (x->turn >= 0) {
			FZ_CHECK((size_t)x->turn < m->nturns && m->turns[x->turn] == i, "exchange %zu turn %d", i, x->turn);
			FZ_CHECK(x->method && strcmp(x->method, "tools/call") == 0);
			turns++;
		}
		(void)exchange_latency_us(x);
	}
	FZ_CHECK(turns == m->nturns, "%zu turns, %zu exchanges say they are one", m->nturns, turns);
	for (size_t t = 1; t < m->nturns; t++)
		FZ_CHECK(m->turns[t - 1] < m->turns[t], "turns out of request order");
	for (size_t i = 0; i < m->pending.cap; i++) {
		if (!strmap_live(&m->pending, i))
			continue;
		int64_t idx = m->pending.slots[i].val;
		FZ_CHECK(idx >= 0 && (size_t)idx < m->nex, "pending %s -> %lld", m->pending.slots[i].key, (long long)idx);
		FZ_CHECK(m->ex[idx].status == EX_UNANSWERED, "pending %s names a %s exchange", m->pending.slots[i].key,
			 ex_status_name(m->ex[idx].status));
	}
}

static char *judged(cJSON *(*judge)(const char *, size_t, const char *, size_t), const char *pre, size_t pre_len,
		   const char *post, size_t post_len)
{
	cJSON *o = judge(pre, pre_len, post, post_len);
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* A side remembered by its bytes (a1_cache.h, its tree the other side is parsed against)
 * judges as one read afresh: the same findings with nothing, the pre side, or both sides
 * remembered; and the lazy reading (a1_lang.h: units outside the edit not walked) as the
 * eager one (BELAY_A1_EAGER=1), cold and warm. */
static void remembered_as_fresh(cJSON *(*judge)(const char *, size_t, const char *, size_t), const char *pre,
				size_t pre_len, const char *post, size_t post_len)
{
	a1_cache_clear();
	char *cold = judged(judge, pre, pre_len, post, post_len);
	a1_cache_clear();
	free(judged(judge, pre, pre_len, pre, pre_len)); /* the pre side remembered, with its tree */
	char *pre_warm = judged(judge, pre, pre_len, post, post_len), *both_warm = judged(judge, pre, pre_len, post, post_len);
	FZ_CHECK(!strcmp(cold, pre_warm), "pre side remembered: %s, fresh: %s", pre_warm, cold);
	FZ_CHECK(!strcmp(cold, both_warm), "both sides remembered: %s, fresh: %s", both_warm, cold);
	a1_cache_clear();
	setenv("BELAY_A1_EAGER", "1", 1);
	char *eager = judged(judge, pre, pre_len, post, post_len);
	unsetenv("BELAY_A1_EAGER");
	FZ_CHECK(!strcmp(cold, eager), "lazy: %s, eager: %s", cold, eager);
	free(eager);
	free(cold);
	free(pre_warm);
	free(both_warm);
	a1_cache_clear();
}

void fz_a1_lang(const uint8_t *data, size_t size, cJSON *(*judge)(const char *, size_t, const char *, size_t),
		int (*count)(const char *, size_t, int *, int *))
{
	const char *s = (const char *)data;
	const char *cut = memchr(s, 0xff, size);
	size_t pre_len = cut ? (size_t)(cut - s) : size;
	const char *post = cut ? cut + 1 : NULL;
	size_t post_len = cut ? size - pre_len - 1 : 0;
	cJSON *out = judge(s, pre_len, post, post_len);
	fz_findings_check(out, 0, 0);
	cJSON_Delete(out);
	out = judge(s, pre_len, s, pre_len);
	fz_findings_check(out, 1, 0);
	cJSON_Delete(out);
	int tests = -1, asserts = -1;
	int rc = count(s, pre_len, &tests, &asserts);
	FZ_CHECK(rc == BELAY_EINVAL || (rc == 0 && tests >= 0 && asserts >= 0), "count %d %d %d", rc, tests, asserts);
	if (cut)
		remembered_as_fresh(judge, s, pre_len, post, post_len);
}

void fz_findings_check(const cJSON *out, int self, int warn_cause)
{
	static const char *const keys[] = {"function", "finding", "status", "cause", "pre", "post"};
	FZ_CHECK(cJSON_IsArray(out), "not an array");
	const cJSON *f;
	cJSON_ArrayForEach(f, out)
	{
		int k = 0;
		for (const cJSON *m = f->child; m; m = m->next, k++) {
			FZ_CHECK(k < 6 && !strcmp(m->string, keys[k]), "member %d is %s", k, m->string);
			FZ_CHECK(cJSON_IsString(m) || (cJSON_IsNull(m) && k != 1 && k != 2), "member %s", m->string);
		}
		FZ_CHECK(k == 6, "%d members", k);
		const char *st = cJSON_GetObjectItem(f, "status")->valuestring;
		const cJSON *cause = cJSON_GetObjectItem(f, "cause");
		if (!strcmp(st, "UNVERIFIED") || (warn_cause && !strcmp(st, "WARN")))
			FZ_CHECK(cJSON_IsString(cause), "%s without a cause", st);
		else
			FZ_CHECK((!strcmp(st, "FAIL") || !strcmp(st, "WARN")) && cJSON_IsNull(cause), "status %s", st);
		FZ_CHECK(!self || !strcmp(st, "UNVERIFIED"), "a side against itself: %s %s", st,
			 cJSON_GetObjectItem(f, "finding")->valuestring);
	}
	char *json = cJSON_PrintUnformatted(out);
	FZ_CHECK(json && utf8_valid(json, strlen(json)), "the JSON is not UTF-8");
	FZ_NOTE("%.300s", json);
	free(json);
}
